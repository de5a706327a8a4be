//! Metadata workloads: the tree of directories and files a metadata op works on (mdtest's shape: items per directory, depth, fanout, leaf-only, one tree per job or one shared), how many items and inodes it needs, and what each op does to it.
//!
//! A workload is a metadata workload when it gives `--items`: its op then
//! works on the items of a tree, one operation per item (or per directory
//! for `readdir`), and `read` reads whole small files instead of blocks of
//! one large file. Nothing here does I/O: the runner's `run::tree` builds
//! the tree this describes.

use super::{CacheMode, ItemOp, Op, Pattern, UsageError, Workload, units};
use crate::usage;

/// The most items (files or directories) one point may make across all
/// jobs: ten million, mdtest-hard's scale on one client, and what the
/// runner's per-job counters and a tree's removal are sized for.
pub const MAX_ITEMS: u64 = 10_000_000;

/// The most bytes of one file a create writes or a read reads (mdtest
/// `-w`/`-e`; IO500's hard phase uses 3901): a metadata workload's files
/// are small, and each job holds one file's bytes in its buffer.
pub const MAX_FILE_SIZE: u64 = 64 << 20;

/// The most directories of one tree (`fanout^0 + … + fanout^depth`).
pub const MAX_DIRECTORIES: u64 = 1_000_000;

/// The shape of a metadata workload's tree, taken from its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TreeShape {
    /// Items each job makes in each directory that holds items (mdtest `-I`).
    pub items: u64,
    /// Levels of directories below each tree's top (mdtest `-z`): 0 is the top alone.
    pub depth: u32,
    /// Subdirectories of each directory above the last level (mdtest `-b`).
    pub fanout: u32,
    /// Items only in the last level's directories (mdtest `-L`).
    pub leaf_only: bool,
    /// Each job has a tree of its own (mdtest `-u`); otherwise all share one,
    /// each job's items named by its number.
    pub unique_dir: bool,
    /// Job k stats, reads and deletes job k+stride's items (mdtest `-N`), so
    /// a client's cache of what it made itself does not serve it; 0: its own.
    pub stride: u32,
    /// Bytes a create writes into each file and a read reads back.
    pub file_size: u64,
    /// Jobs in all (all ranks' in a distributed run).
    pub jobs: u32,
}

impl TreeShape {
    /// The shape of `workload`'s tree when it is a metadata workload, for
    /// `ranks` ranks of `workload.jobs` jobs each.
    pub fn of(workload: &Workload, ranks: u32) -> Option<TreeShape> {
        Some(TreeShape {
            items: workload.items?,
            depth: workload.depth,
            fanout: workload.fanout,
            leaf_only: workload.leaf_only,
            unique_dir: workload.unique_dir,
            stride: workload.stride,
            file_size: workload.file_size.unwrap_or(0),
            jobs: workload.jobs.saturating_mul(ranks.max(1)),
        })
    }

    /// Refuses a stride that sends every job back to its own items (a
    /// multiple of all jobs), whichever op the point does: the phases of
    /// `--ops` share one tree, so it is refused before the first.
    pub fn check_stride(&self) -> Result<(), UsageError> {
        if self.stride > 0 && u64::from(self.stride) % u64::from(self.jobs.max(1)) == 0 {
            return Err(usage!(
                "--stride {} with {} jobs sends every job back to its own items: give a stride that is not a multiple of the jobs",
                self.stride,
                self.jobs
            ));
        }
        Ok(())
    }

    /// Directories in one tree, its top included: `fanout^0 + … + fanout^depth`,
    /// saturating.
    pub fn directories(&self) -> u64 {
        let mut level = 1u64;
        let mut total = 1u64;
        for _ in 0..self.depth {
            level = level.saturating_mul(u64::from(self.fanout));
            total = total.saturating_add(level);
        }
        total
    }

    /// The directories of one tree that hold items: all, or the last level's.
    pub fn item_directories(&self) -> u64 {
        if self.leaf_only {
            u64::from(self.fanout)
                .checked_pow(self.depth)
                .unwrap_or(u64::MAX)
        } else {
            self.directories()
        }
    }

    /// Items one job makes: items per directory × directories holding items.
    pub fn items_per_job(&self) -> u64 {
        self.items.saturating_mul(self.item_directories())
    }

    /// Items all jobs make.
    pub fn total_items(&self) -> u64 {
        self.items_per_job().saturating_mul(u64::from(self.jobs))
    }

    /// The trees there are: one per job, or one shared.
    pub fn trees(&self) -> u64 {
        if self.unique_dir {
            u64::from(self.jobs)
        } else {
            1
        }
    }

    /// Inodes the tree takes: every item, every directory of every tree
    /// (its top included), and the root and its owner file.
    pub fn inodes(&self) -> u64 {
        self.total_items()
            .saturating_add(self.directories().saturating_mul(self.trees()))
            .saturating_add(2)
    }

    /// The job whose items job `job` works on in `op`: its own, or with a
    /// stride the job that many further on (mdtest `-N`), for the ops that
    /// find items another job made.
    pub fn owner_of(&self, job: u32, op: Op) -> u32 {
        if self.stride == 0 || !matches!(op, Op::Stat | Op::Read | Op::Delete | Op::Readdir) {
            return job;
        }
        ((u64::from(job) + u64::from(self.stride)) % u64::from(self.jobs.max(1))) as u32
    }

    /// The path of directory `index` of a tree below its top, in the order
    /// the tree is built (breadth first): `t.0/t.2` for the third
    /// directory of the second level with fanout 2. Index 0 is the top.
    pub fn directory_path(&self, index: u64) -> Vec<u64> {
        let fanout = u64::from(self.fanout.max(1));
        let mut path = Vec::new();
        let mut index = index;
        while index > 0 {
            // Parent of index i (breadth first, top = 0) is (i - 1) / fanout.
            path.push((index - 1) % fanout);
            index = (index - 1) / fanout;
        }
        path.reverse();
        path
    }

    /// The tree in a few words for a point's description: `items=100
    /// depth=2 fanout=3 leaf-only unique-dir stride=1 file=3901B`, what is
    /// at its default left out.
    pub fn describe(&self) -> String {
        let mut text = format!("items={}", self.items);
        if self.depth > 0 {
            text.push_str(&format!(" depth={} fanout={}", self.depth, self.fanout));
        }
        if self.leaf_only {
            text.push_str(" leaf-only");
        }
        if self.unique_dir {
            text.push_str(" unique-dir");
        }
        if self.stride > 0 {
            text.push_str(&format!(" stride={}", self.stride));
        }
        if self.file_size > 0 {
            text.push_str(&format!(" file={}", units::format_size(self.file_size)));
        }
        text
    }

    /// The first directory index of the level that holds items: 0, or with
    /// leaf-only the first of the last level.
    pub fn first_item_directory(&self) -> u64 {
        if self.leaf_only {
            self.directories() - self.item_directories()
        } else {
            0
        }
    }
}

/// Whether a count is 0 (a tree parameter left at its default is not written).
pub fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// Whether a fanout is 1, its default.
pub fn is_one(value: &u32) -> bool {
    *value == 1
}

/// A fanout of 1, for result files written before there were trees.
pub fn one() -> u32 {
    1
}

impl Workload {
    /// The rules of a metadata workload: its op works on a tree's items
    /// (given by `--items`), through system calls on the files (engine
    /// psync or sync), one after another in the order the tree was made,
    /// without what only moving blocks means (O_DIRECT, a mix, block-size
    /// splits, pacing, a ramp, verification).
    pub(super) fn check_tree(&self) -> Result<(), UsageError> {
        let Some(items) = self.items else {
            if self.cache == CacheMode::Drop {
                return Err(usage!(
                    "--cache drop drops every file system's caches, for a metadata workload's tree (--items); a file's own pages go with --cache cold"
                ));
            }
            if self.op.is_metadata() {
                return Err(usage!(
                    "--op {} works on the items of a tree: give --items N (items per directory, mdtest -I)",
                    self.op.name()
                ));
            }
            return Ok(());
        };
        if !self.op.is_metadata() && self.op != Op::Read {
            return Err(usage!(
                "--items {items} makes a metadata workload, and op {} moves blocks of one file: \
                 give one of {}",
                self.op.name(),
                ItemOp::names().join(", ")
            ));
        }
        let caps = self.engine.capabilities();
        let system_calls = caps.local_fd && !caps.queued && !caps.maps_file && !caps.library_stream;
        // A network client does each item with its own calls (its target
        // refuses what it cannot hold: a LUN has no files).
        if !system_calls && caps.network.is_none() {
            return Err(usage!(
                "--engine {} with --items {items}: a metadata workload makes system calls on the tree's files (engine psync or sync), or a network client's calls (with --target)",
                self.engine.name()
            ));
        }
        let refused = [
            (self.direct, "--direct"),
            (self.mix.is_some(), "--mix"),
            (self.bssplit.is_some(), "--bssplit"),
            (self.rate.is_some(), "--rate"),
            (self.rate_iops.is_some(), "--rate-iops"),
            (self.think.is_some(), "--think"),
            (self.ramp_s > 0.0, "--ramp"),
            (self.verify, "--verify"),
            (self.steady.is_some(), "--steady"),
            (self.latency_target.is_some(), "--latency-target"),
            (
                self.fsync_every > 0,
                "--fsync-every (--fsync-end syncs each file)",
            ),
            (
                self.pattern != Pattern::Seq,
                "--pattern (items are visited in the order made)",
            ),
        ];
        if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
            return Err(usage!(
                "{flag} does not apply to a metadata workload (--items {items}): it moves no blocks of a file"
            ));
        }
        let file_size = self.file_size.unwrap_or(0);
        if file_size > MAX_FILE_SIZE {
            return Err(usage!(
                "--file-size {} is above the {} a metadata workload's small files may have",
                units::format_size(file_size),
                units::format_size(MAX_FILE_SIZE)
            ));
        }
        if file_size > 0 && self.op.on_directories() {
            return Err(usage!(
                "--file-size {} with op {}: its items are directories, which hold no bytes",
                units::format_size(file_size),
                self.op.name()
            ));
        }
        let shape = TreeShape::of(self, 1).unwrap_or_else(|| unreachable!("items is given"));
        if shape.directories() > MAX_DIRECTORIES {
            return Err(usage!(
                "--depth {} --fanout {} makes {} directories per tree; at most {MAX_DIRECTORIES}",
                self.depth,
                self.fanout,
                shape.directories()
            ));
        }
        if shape.total_items() > MAX_ITEMS {
            return Err(usage!(
                "--items {items} in {} directories × {} jobs is {} items; at most {MAX_ITEMS}",
                shape.item_directories(),
                self.jobs,
                shape.total_items()
            ));
        }
        Ok(())
    }

    /// The shape of this workload's tree in a run of `ranks` ranks, when
    /// it is a metadata workload.
    pub fn tree(&self, ranks: u32) -> Option<TreeShape> {
        TreeShape::of(self, ranks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(items: u64, depth: u32, fanout: u32, leaf_only: bool) -> TreeShape {
        TreeShape {
            items,
            depth,
            fanout,
            leaf_only,
            unique_dir: false,
            stride: 0,
            file_size: 0,
            jobs: 3,
        }
    }

    #[test]
    fn a_tree_counts_its_directories_and_items_as_mdtest_does() {
        // mdtest -z 2 -b 3 -I 10: 1 + 3 + 9 directories, 10 items in each.
        let tree = shape(10, 2, 3, false);
        assert_eq!(tree.directories(), 13);
        assert_eq!(tree.items_per_job(), 130);
        assert_eq!(tree.total_items(), 390);
        // -L: only the 9 leaves hold items.
        let leaves = shape(10, 2, 3, true);
        assert_eq!(leaves.item_directories(), 9);
        assert_eq!(leaves.items_per_job(), 90);
        assert_eq!(leaves.first_item_directory(), 4);
        assert_eq!(shape(5, 0, 1, false).items_per_job(), 5);
    }

    #[test]
    fn directories_are_numbered_breadth_first() {
        let tree = shape(1, 2, 2, false);
        assert_eq!(tree.directory_path(0), Vec::<u64>::new());
        assert_eq!(tree.directory_path(1), vec![0]);
        assert_eq!(tree.directory_path(2), vec![1]);
        assert_eq!(tree.directory_path(3), vec![0, 0]);
        assert_eq!(tree.directory_path(6), vec![1, 1]);
    }

    #[test]
    fn a_stride_sends_the_ops_that_find_items_to_a_neighbour() {
        let mut tree = shape(1, 0, 1, false);
        tree.stride = 1;
        assert_eq!(tree.owner_of(2, Op::Stat), 0);
        assert_eq!(tree.owner_of(0, Op::Read), 1);
        assert_eq!(tree.owner_of(0, Op::Create), 0, "each job makes its own");
        assert_eq!(tree.owner_of(1, Op::Rename), 1);
    }

    #[test]
    fn huge_shapes_saturate_instead_of_wrapping() {
        let tree = shape(u64::MAX, 60, 4096, false);
        assert_eq!(tree.directories(), u64::MAX);
        assert_eq!(tree.inodes(), u64::MAX);
    }
}
