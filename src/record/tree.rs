//! A metadata workload's records: its tree as the point's target, and what each repetition did to the tree's items and which system calls it made.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A metadata workload's tree: where it is and how large.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeTarget {
    /// The tree's root (`iolab-<run id>.tree` in the directory).
    pub root: String,
    /// Trees in it: one per job (`unique_dir`) or one shared.
    pub trees: u64,
    /// Directories per tree, its top included.
    pub directories: u64,
    /// Directories per tree that hold items.
    pub item_directories: u64,
    /// Items each job makes when no stonewall stops it.
    pub items_per_job: u64,
    /// Jobs, all ranks' together.
    pub jobs: u32,
    /// Inodes the whole tree takes at most (what was checked against statfs `f_ffree`).
    pub inodes: u64,
    /// What the cache treatment did to the tree's metadata, and what it could not.
    pub cache: String,
}

/// What one repetition did to the tree.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeRepetition {
    /// Items worked on in the timed region (for readdir: directories listed).
    pub items: u64,
    /// Per job, in job order: items it made, used or removed. After a
    /// create or mkdir stopped by `runtime_s` (the stonewall), the counts
    /// the following phases work on.
    pub items_per_job: Vec<u64>,
    /// Whether the stonewall stopped a job before its full count.
    pub stonewalled: bool,
    /// For readdir: the entries the listings returned, `.` and `..` left out.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub entries: Option<u64>,
    /// The system calls the jobs made in the timed region, by the names
    /// strace gives them, counted as they were made.
    pub system_calls: BTreeMap<String, u64>,
}
