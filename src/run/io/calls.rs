//! What a metadata job did to a tree's items: how many, the entries its listings found, and the system calls it made. Data only: the tree's loops fill it, the recorder keeps it, the record is built from it.

/// System calls a job made, by the name strace gives them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SystemCalls {
    /// `openat`: the items' files.
    pub openat: u64,
    /// `openat2`: the directories worked in, opened beneath the tree's root.
    pub openat2: u64,
    /// `close`.
    pub close: u64,
    /// `write`.
    pub write: u64,
    /// `read`.
    pub read: u64,
    /// `fsync`.
    pub fsync: u64,
    /// `newfstatat`.
    pub newfstatat: u64,
    /// `renameat2`.
    pub renameat2: u64,
    /// `unlinkat`, files and directories.
    pub unlinkat: u64,
    /// `mkdirat`.
    pub mkdirat: u64,
    /// `getdents64`.
    pub getdents64: u64,
}

impl SystemCalls {
    /// The calls made at least once, as (strace's name, count).
    pub fn named(&self) -> Vec<(&'static str, u64)> {
        [
            ("openat", self.openat),
            ("openat2", self.openat2),
            ("close", self.close),
            ("write", self.write),
            ("read", self.read),
            ("fsync", self.fsync),
            ("newfstatat", self.newfstatat),
            ("renameat2", self.renameat2),
            ("unlinkat", self.unlinkat),
            ("mkdirat", self.mkdirat),
            ("getdents64", self.getdents64),
        ]
        .into_iter()
        .filter(|(_, count)| *count > 0)
        .collect()
    }
}

/// What one job's pass over a tree did beside its I/O figures.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TreeJob {
    /// Items it made, used or removed (for readdir: directories listed).
    pub items: u64,
    /// Entries its directory listings returned (readdir), `.` and `..` left out.
    pub entries: u64,
    /// The system calls it made in the timed region.
    pub calls: SystemCalls,
}
