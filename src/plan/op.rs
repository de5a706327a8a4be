//! The operations a workload times: the data ops on blocks of a file and the metadata ops on a tree's items, each op's name, what it needs and does, and where it runs in a sequence.
//!
//! Adding a metadata op: its variant here in `Op` and `ItemOp` (with what
//! it does to the items), then one primitive per backend (`run/site/tree/job.rs`'s
//! `LocalOps` and its arm in `do_item`, `net/nfs/tree.rs`'s `NfsOps`).

use serde::{Deserialize, Serialize};

/// The operation a workload times, following IOzone's definitions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// Create a new file and write it.
    Write,
    /// Overwrite a file that is already laid out.
    Rewrite,
    /// Read a laid-out file.
    Read,
    /// Read a file again right after a read, with the cache as it left it:
    /// the read of the point before when it read the same files the same
    /// way and the cache is kept (`keep`, `clean`), as IOzone's reread
    /// follows its read; else an untimed read of its own first.
    Reread,
    /// Read and overwrite a laid-out file, each I/O's direction drawn from
    /// the `--mix` shares (fio's `randrw`/`readwrite` with `rwmixread`).
    Mix,
    /// Discard ranges of a laid-out file (fio's `trim`/`randtrim`): a hole
    /// punched per I/O, a discard on a block device (with `--destroy-data`).
    Trim,
    /// Discard each block of a laid-out file and then write it (fio's
    /// `trimwrite`/`randtrimwrite`): every block the pattern draws is a
    /// trim and then a write of the same range, the pair counted once
    /// against the job's size.
    Trimwrite,
    /// Metadata (with `--items`): create each file of the tree (empty, or
    /// `--file-size` bytes written), mdtest's file creation.
    Create,
    /// Metadata: stat each file of the tree.
    Stat,
    /// Metadata: rename each file of the tree within its directory.
    Rename,
    /// Metadata: remove each file of the tree (mdtest's file removal).
    Delete,
    /// Metadata: make each item of the tree as a directory.
    Mkdir,
    /// Metadata: remove each directory `mkdir` made.
    Rmdir,
    /// Metadata: stat each directory `mkdir` made (fio's `dirstat` engine).
    Dirstat,
    /// Metadata: list each directory of the tree (getdents until its end).
    Readdir,
}

impl Op {
    /// Whether the timed I/O changes the file: writes it, or trims it
    /// (a block device then needs `--destroy-data`).
    pub fn writes(self) -> bool {
        matches!(
            self,
            Op::Write
                | Op::Rewrite
                | Op::Mix
                | Op::Trim
                | Op::Trimwrite
                | Op::Create
                | Op::Rename
                | Op::Delete
                | Op::Mkdir
                | Op::Rmdir
        )
    }

    /// Whether the timed I/O reads (a mix does both).
    pub fn reads(self) -> bool {
        matches!(self, Op::Read | Op::Reread | Op::Mix)
    }

    /// Whether the op needs the file laid out (fully written) before timing.
    pub fn needs_layout(self) -> bool {
        !matches!(self, Op::Write)
    }

    /// Where the op runs in a sequence of ops over the same files, whatever
    /// the order given: IOzone's (write, rewrite, read, reread: each needs
    /// the one before) and mdtest's for a tree (directories made and
    /// removed, then files made, used, renamed and removed); `None` for an
    /// op that needs no other (mix, trim), which runs first.
    pub fn sequence_rank(self) -> Option<usize> {
        [
            Op::Write,
            Op::Rewrite,
            Op::Mkdir,
            Op::Dirstat,
            Op::Rmdir,
            Op::Create,
            Op::Stat,
            Op::Read,
            Op::Reread,
            Op::Readdir,
            Op::Rename,
            Op::Delete,
        ]
        .iter()
        .position(|o| *o == self)
    }

    /// The op's name as used on the command line and in the result file.
    pub fn name(self) -> &'static str {
        match self {
            Op::Write => "write",
            Op::Rewrite => "rewrite",
            Op::Read => "read",
            Op::Reread => "reread",
            Op::Mix => "mix",
            Op::Trim => "trim",
            Op::Trimwrite => "trimwrite",
            Op::Create => "create",
            Op::Stat => "stat",
            Op::Rename => "rename",
            Op::Delete => "delete",
            Op::Mkdir => "mkdir",
            Op::Rmdir => "rmdir",
            Op::Dirstat => "dirstat",
            Op::Readdir => "readdir",
        }
    }
}

/// What a metadata op does to the tree's items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Items {
    /// Makes them (create, mkdir): they must be absent before.
    Makes,
    /// Needs them present and leaves them (stat, read, readdir; rename
    /// leaves them under their other name).
    Uses,
    /// Removes them (delete, rmdir): they must be present before.
    Removes,
}

/// An operation on each item of a tree: a metadata op, or the read of
/// each file (`--op read` with `--items`). A type of its own, so the code
/// that works on items matches every one and never meets a data op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemOp {
    /// Create each file (and write `--file-size` bytes).
    Create,
    /// Read each file whole.
    Read,
    /// Stat each file.
    Stat,
    /// Rename each file within its directory.
    Rename,
    /// Remove each file.
    Delete,
    /// Make each item as a directory.
    Mkdir,
    /// Remove each directory `mkdir` made.
    Rmdir,
    /// Stat each directory `mkdir` made.
    Dirstat,
    /// List each directory to its end.
    Readdir,
}

impl ItemOp {
    /// `op` as an operation on items; `None` for an op that has no item
    /// form (write, rewrite, reread, mix, trim: a plan with `--items`
    /// refuses them before this is asked).
    pub fn of(op: Op) -> Option<ItemOp> {
        Some(match op {
            Op::Create => ItemOp::Create,
            Op::Read => ItemOp::Read,
            Op::Stat => ItemOp::Stat,
            Op::Rename => ItemOp::Rename,
            Op::Delete => ItemOp::Delete,
            Op::Mkdir => ItemOp::Mkdir,
            Op::Rmdir => ItemOp::Rmdir,
            Op::Dirstat => ItemOp::Dirstat,
            Op::Readdir => ItemOp::Readdir,
            Op::Write | Op::Rewrite | Op::Reread | Op::Mix | Op::Trim | Op::Trimwrite => {
                return None;
            }
        })
    }

    /// The names of the ops that work on items, in `Op`'s order.
    pub fn names() -> Vec<&'static str> {
        <Op as clap::ValueEnum>::value_variants()
            .iter()
            .filter(|op| ItemOp::of(**op).is_some())
            .map(|op| op.name())
            .collect()
    }

    /// The workload's op.
    pub fn op(self) -> Op {
        match self {
            ItemOp::Create => Op::Create,
            ItemOp::Read => Op::Read,
            ItemOp::Stat => Op::Stat,
            ItemOp::Rename => Op::Rename,
            ItemOp::Delete => Op::Delete,
            ItemOp::Mkdir => Op::Mkdir,
            ItemOp::Rmdir => Op::Rmdir,
            ItemOp::Dirstat => Op::Dirstat,
            ItemOp::Readdir => Op::Readdir,
        }
    }
}

impl Op {
    /// Whether the op works on a tree's items rather than blocks of a file.
    pub fn is_metadata(self) -> bool {
        matches!(
            self,
            Op::Create
                | Op::Stat
                | Op::Rename
                | Op::Delete
                | Op::Mkdir
                | Op::Rmdir
                | Op::Dirstat
                | Op::Readdir
        )
    }

    /// The items an op on a tree works on are directories (mkdir, dirstat,
    /// rmdir), not files.
    pub fn on_directories(self) -> bool {
        matches!(self, Op::Mkdir | Op::Dirstat | Op::Rmdir)
    }

    /// Whether a metadata op only looks items up (a cache can serve it).
    pub fn looks_up(self) -> bool {
        matches!(self, Op::Stat | Op::Dirstat | Op::Read | Op::Readdir)
    }

    /// What the op does to the tree's items.
    pub fn items(self) -> Items {
        match self {
            Op::Create | Op::Mkdir => Items::Makes,
            Op::Delete | Op::Rmdir => Items::Removes,
            _ => Items::Uses,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_item_op_is_its_op_and_back() {
        for &op in <Op as clap::ValueEnum>::value_variants() {
            if let Some(item_op) = ItemOp::of(op) {
                assert_eq!(item_op.op(), op);
            } else {
                assert!(!op.is_metadata(), "{op:?}");
            }
        }
    }
}
