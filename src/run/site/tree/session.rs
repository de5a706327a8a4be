//! A session's metadata points: the tree made (or kept from the point before) after its inodes and bytes are checked, each repetition's items made present or absent as its op needs (untimed), its cache treated, its items worked on with the sampler beside the jobs, and what the tree holds afterwards kept for the next phase.

use super::{Held, Present, TreePass};
use crate::plan::tree::TreeShape;
use crate::plan::units::{format_size, human_size};
use crate::plan::{CacheMode, Op, SyncMode, Workload};
use crate::plan::{ItemOp, Items};
use crate::run::io::jobs::{self, Pass, Work};
use crate::run::{RepetitionStatus, RunError, Session, TargetInfo};
use crate::usage;
use std::path::PathBuf;
use std::time::Duration;

/// Free inodes kept in reserve beyond the tree's own.
pub const FREE_INODE_MARGIN: u64 = 1024;

/// Free bytes kept in reserve beyond what the tree's files and
/// directories take in whole 4 KiB blocks.
pub const TREE_SPACE_MARGIN: u64 = 8 << 20;

/// What a point's record says of its tree.
#[derive(Clone, Debug)]
pub struct TreeInfo {
    /// The tree's root.
    pub root: PathBuf,
    pub shape: TreeShape,
    /// What the cache treatment did to the tree's metadata, and what it could not.
    pub cache: String,
}

impl Session {
    /// Checks the tree `workload` needs against the limits and the file
    /// system's free inodes and bytes, and makes it unless the point before
    /// left one of the same shape.
    pub(in crate::run) fn prepare_tree(
        &mut self,
        workload: &Workload,
        target: &mut TargetInfo,
    ) -> Result<(), RunError> {
        let shape = workload
            .tree(self.peers.size())
            .unwrap_or_else(|| unreachable!("a metadata workload has --items"));
        // A network client's engine goes with its target, system calls with a directory.
        let network = workload.engine.capabilities().network;
        if network.is_some() == self.dir.local().is_some() {
            return Err(match network {
                Some(scheme) => usage!(
                    "--engine {} works on a network target: give --target {scheme}://…",
                    workload.engine.name()
                ),
                None => usage!(
                    "--engine {} makes system calls on a local directory; a network target needs its own engine",
                    workload.engine.name()
                ),
            }
            .into());
        }
        if !self.peers.alone() && workload.runtime_s.is_some() {
            return Err(usage!(
                "--runtime stonewalls a metadata phase on one host; over --mpi every rank works on the whole tree (leave out --runtime)"
            )
            .into());
        }
        shape.check_stride()?;
        let fresh = self.tree.as_ref().is_none_or(|tree| tree.shape != shape);
        // Ranks agree, so they all make (or all keep) the tree together.
        if self.peers.any(fresh) {
            self.release_tree();
            let room = if self.peers.rank() == 0 {
                self.check_tree_room(&shape)
            } else {
                Ok(())
            };
            self.together(room)?;
        }
        self.ensure_tree(workload)?;
        let held = self.tree.as_ref().expect("the tree was made");
        target.files = Vec::new();
        target.tree = Some(TreeInfo {
            root: held.site.path().to_path_buf(),
            shape,
            cache: cache_note(workload, held.site.cold_leaves()),
        });
        Ok(())
    }

    /// Refuses, with the figures, a tree the file system has no inodes or
    /// bytes for.
    fn check_tree_room(&self, shape: &TreeShape) -> Result<(), RunError> {
        let shown = self.dir.path().display();
        let (free_inodes, files, free_bytes) = self
            .dir
            .tree_room()
            .map_err(|e| RunError::Setup(format!("statfs {shown}: {e}")))?;
        let needed = shape.inodes().saturating_add(FREE_INODE_MARGIN);
        // A file system that counts no inodes (btrfs) reports none free.
        if files > 0 && free_inodes < needed {
            return Err(usage!(
                "the tree needs {} inodes ({} items, {} directories) with a margin of {FREE_INODE_MARGIN}, and {shown} has {free_inodes} free (statfs f_ffree)",
                needed,
                shape.total_items(),
                shape.directories().saturating_mul(shape.trees())
            )
            .into());
        }
        // Each file's bytes in whole 4 KiB blocks, and each directory's block.
        let block = 4096u64;
        let bytes = shape
            .total_items()
            .saturating_mul(shape.file_size.div_ceil(block) * block)
            .saturating_add(shape.directories().saturating_mul(shape.trees()) * block);
        let needed = bytes.saturating_add(TREE_SPACE_MARGIN);
        if free_bytes < needed {
            return Err(usage!(
                "the tree's {} files of {} and {} directories need {} with a {} margin, and {shown} has {} free",
                shape.total_items(),
                format_size(shape.file_size),
                shape.directories().saturating_mul(shape.trees()),
                human_size(bytes),
                format_size(TREE_SPACE_MARGIN),
                human_size(free_bytes)
            )
            .into());
        }
        Ok(())
    }

    /// Makes the tree when there is none: rank 0 makes it, then every other
    /// rank opens it. Every rank calls this together.
    fn ensure_tree(&mut self, workload: &Workload) -> Result<(), RunError> {
        if !self.peers.any(self.tree.is_none()) {
            return Ok(());
        }
        let shape = workload
            .tree(self.peers.size())
            .unwrap_or_else(|| unreachable!("a metadata workload has --items"));
        let rank = self.peers.rank();
        let setup = |what: &str, e: String| {
            RunError::Setup(format!(
                "cannot {what} the tree in {}: {e}",
                self.dir.path().display()
            ))
        };
        let made = match rank {
            0 => self
                .dir
                .tree(shape, false, self.tree_serial)
                .map(Some)
                .map_err(|e| setup("make", e)),
            _ => Ok(None),
        };
        let made = self.together(made)?;
        let site = match made {
            Some(site) => Ok(site),
            None => self
                .dir
                .tree(shape, true, self.tree_serial)
                .map_err(|e| setup("open", e)),
        };
        let site = self.together(site)?;
        self.tree = Some(Held {
            site,
            shape,
            present: Present::default(),
        });
        Ok(())
    }

    /// Removes the tree, or under `--keep` leaves it and says where.
    pub(in crate::run) fn release_tree(&mut self) {
        let Some(held) = self.tree.take() else { return };
        self.tree_serial += 1;
        let site = held.site;
        if !site.made_here() {
            return;
        }
        if self.keep {
            crate::say!("iolab: kept the tree {}", site.path().display());
            return;
        }
        match site.remove() {
            Ok(left) if left.is_empty() => {}
            Ok(left) => crate::say!(
                "iolab: left {}: it holds what iolab did not make: {}",
                site.path().display(),
                left.join(", ")
            ),
            Err(error) => crate::say!(
                "iolab: could not remove the tree {}: {error}",
                site.path().display()
            ),
        }
    }

    /// Makes the tree hold what `workload`'s op needs, untimed: its items
    /// absent for an op that makes them, present for one that uses or
    /// removes them.
    fn items_as_needed(&mut self, workload: &Workload) -> Result<(), String> {
        let held = self.tree.as_ref().expect("the tree was made");
        let present = held.present.clone();
        let on_directories = workload.op.on_directories();
        let have = if on_directories {
            present.dirs.is_some()
        } else {
            present.files.is_some()
        };
        let (make, remove) = if on_directories {
            (ItemOp::Mkdir, ItemOp::Rmdir)
        } else {
            (ItemOp::Create, ItemOp::Delete)
        };
        let step = match (workload.op.items(), have) {
            (Items::Makes, true) => Some(remove),
            (Items::Uses | Items::Removes, false) => Some(make),
            _ => None,
        };
        // readdir lists the files.
        if let Some(op) = step {
            let run = self.tree_pass(workload, op, false, None);
            match run.status() {
                RepetitionStatus::Ok => {
                    let made = self.reached(&run.outcomes);
                    self.after(op.op(), made);
                }
                RepetitionStatus::Failed(message) => {
                    return Err(format!(
                        "preparing the tree ({} untimed): {message}",
                        op.op().name()
                    ));
                }
                RepetitionStatus::Interrupted => return Err("interrupted".to_string()),
            }
        }
        Ok(())
    }

    /// The items each job of all ranks made, used or removed in a pass
    /// that completed, by global job number: this process's jobs' own
    /// counts alone; over MPI, where nothing stonewalls a pass, the shape's
    /// full count for every job.
    fn reached(&self, jobs: &[crate::run::io::recorder::JobOutcome]) -> Vec<u64> {
        let held = self.tree.as_ref().expect("the tree was made");
        if self.peers.alone() {
            jobs.iter()
                .map(|job| job.tree.as_ref().map_or(0, |t| t.items))
                .collect()
        } else {
            vec![held.shape.items_per_job(); held.shape.jobs as usize]
        }
    }

    /// What the tree holds after a pass of `op` whose jobs made, used or
    /// removed `done` items each.
    fn after(&mut self, op: Op, done: Vec<u64>) {
        let Some(tree) = self.tree.as_mut() else {
            return;
        };
        let present = &mut tree.present;
        match op {
            Op::Create => present.files = Some((done, false)),
            Op::Delete => present.files = None,
            Op::Rename => {
                if let Some((_, renamed)) = present.files.as_mut() {
                    *renamed = !*renamed;
                }
            }
            Op::Mkdir => present.dirs = Some(done),
            Op::Rmdir => present.dirs = None,
            _ => {}
        }
    }

    /// The cache treatment of the tree before a timed pass.
    fn treat_tree_cache(&mut self, workload: &Workload) -> Result<(), String> {
        let held = self.tree.as_ref().expect("the tree was made");
        let site = held.site.as_ref();
        let shown = site.path().display();
        let written_back = || {
            site.write_back()
                .map_err(|e| format!("syncfs {shown}: {e}"))
        };
        match workload.cache {
            CacheMode::Keep => Ok(()),
            CacheMode::Clean => written_back(),
            CacheMode::Cold => {
                written_back()?;
                if workload.op == Op::Read {
                    let (counts, renamed) = held.present.files.clone().unwrap_or_default();
                    site.evict_files(&counts, renamed)
                        .map_err(|e| format!("evicting the files of {shown}: {e}"))?;
                }
                Ok(())
            }
            CacheMode::Drop => {
                written_back()?;
                site.drop_caches().map_err(|e| {
                    format!("--cache drop: writing 3 to /proc/sys/vm/drop_caches: {e} (root only)")
                })
            }
            CacheMode::Warm => {
                if held.present.files.is_some() && !workload.op.on_directories() {
                    let run = self.tree_pass(workload, ItemOp::Stat, false, None);
                    if let RepetitionStatus::Failed(message) = run.status() {
                        return Err(format!("warming the tree (stat untimed): {message}"));
                    }
                }
                Ok(())
            }
        }
    }

    /// What a pass of `op` over the held tree works from: each job's
    /// items (by global job number), and whether the files carry their
    /// renamed names.
    pub(in crate::run) fn tree_counts(&self, op: ItemOp) -> (Vec<u64>, bool) {
        let held = self.tree.as_ref().expect("the tree was made");
        if op.op().on_directories() {
            (held.present.dirs.clone().unwrap_or_default(), false)
        } else {
            held.present.files.clone().unwrap_or_default()
        }
    }

    /// The pass of `op` over the held tree for `workload`'s jobs, from
    /// `counts` ([`Session::tree_counts`]), timed or not.
    pub(in crate::run) fn tree_work<'a>(
        &'a self,
        workload: &Workload,
        op: ItemOp,
        (counts, renamed): (&'a [u64], bool),
        timed: bool,
    ) -> TreePass<'a> {
        let held = self.tree.as_ref().expect("the tree was made");
        TreePass {
            site: held.site.as_ref(),
            shape: held.shape,
            op,
            counts,
            renamed,
            first_job: self.peers.rank() * workload.jobs,
            stonewall: workload
                .runtime_s
                .filter(|_| timed)
                .map(Duration::from_secs_f64),
            create_flags: match workload.sync {
                SyncMode::None => rustix::fs::OFlags::empty(),
                _ => crate::run::io::open::open_flags(workload),
            },
            fsync: timed && workload.fsync_end,
        }
    }

    /// Before a timed pass over the point's tree: the tree made again if a
    /// failed pass took it, checked intact, its items made present or absent
    /// as the op needs and its cache treated, all untimed and agreed by
    /// every rank. After a failure the tree is gone unless only its cache
    /// treatment failed.
    pub(in crate::run) fn tree_ready(&mut self, workload: &Workload) -> Result<(), RunError> {
        self.ensure_tree(workload)?;
        let held = self.tree.as_ref().expect("the tree was made");
        let intact = held
            .site
            .check_intact()
            .map_err(|e| RunError::Setup(e.to_string()));
        // Each rank prepares its own jobs' items, then they meet: a rank's
        // stat may find another's files.
        let prepared = self
            .together(intact)
            .and_then(|()| self.items_as_needed(workload).map_err(RunError::Setup));
        if let Err(error) = self.together(prepared) {
            self.release_tree();
            return Err(error);
        }
        let treated = self.treat_tree_cache(workload).map_err(RunError::Setup);
        self.together(treated)
    }

    /// After a timed pass of `op` by the tree group's `jobs` (this rank's):
    /// what the tree holds now. After a pass that did not complete on every
    /// rank, the tree goes: what it holds is not known item by item, and
    /// the next repetition makes another.
    pub(in crate::run) fn tree_done(
        &mut self,
        op: ItemOp,
        jobs: &[crate::run::io::recorder::JobOutcome],
        completed: bool,
    ) {
        if !self.peers.any(!completed) {
            let made = self.reached(jobs);
            self.after(op.op(), made);
        } else {
            self.release_tree();
        }
    }

    /// One pass of `op` over the tree with every job, timed or not.
    fn tree_pass(
        &self,
        workload: &Workload,
        op: ItemOp,
        timed: bool,
        watch: Option<&crate::probe::sampler::Watch>,
    ) -> jobs::JobsRun {
        let (counts, renamed) = self.tree_counts(op);
        let drawn = Workload {
            op: op.op(),
            ..workload.clone()
        };
        let interrupt = self.interrupt.clone();
        jobs::run_jobs(
            Pass {
                run_id: self.dir.run_id(),
                workload: &drawn,
                interrupt: &interrupt,
                timed,
                write_back: false,
                zones: None,
            },
            Work::Tree(self.tree_work(workload, op, (&counts, renamed), timed)),
            &TargetInfo {
                dir: self.dir.path().to_path_buf(),
                filesystem: String::new(),
                direct_alignment: None,
                direct_in_memory: false,
                files: Vec::new(),
                file_given: false,
                open_flags: None,
                tree: None,
            },
            watch,
            if timed {
                self.peers.as_ref()
            } else {
                &crate::run::peers::Alone
            },
        )
    }
}

/// What `workload`'s cache treatment does to a tree's metadata, in words
/// for the record.
fn cache_note(workload: &Workload, cold_leaves: &str) -> String {
    match workload.cache {
        CacheMode::Keep => "keep: nothing done; the tree's dentries, inodes and pages are as the last phase left them".into(),
        CacheMode::Clean => format!("clean: written back (syncfs) before each repetition; {cold_leaves}"),
        CacheMode::Cold if workload.op == Op::Read => format!("cold: written back (syncfs) and each file's pages evicted (fadvise DONTNEED); {cold_leaves}"),
        CacheMode::Cold => format!("cold: written back (syncfs); {cold_leaves}"),
        CacheMode::Drop => "drop: written back (syncfs), then every file system's clean pages, dentries and inodes dropped (drop_caches=3), system-wide".into(),
        CacheMode::Warm => "warm: every file stat'ed untimed first, so its dentry and inode are in memory".into(),
    }
}
