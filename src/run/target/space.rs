//! Where a session's files live: the [`Space`] trait, implemented by a local
//! scratch directory ([`ScratchDir`]) and by each network protocol's space
//! in `net/` (a directory on an NFS export reached through libnfs, the
//! portal of an iSCSI LUN).
//!
//! A space creates the files of a run (as [`Target`]s, which the session
//! then lays out, treats and releases), opens those another rank created,
//! and finds what killed runs left behind.

use super::scratch::ScratchDir;
use crate::plan::tree::TreeShape;
use crate::run::site::tree::{LocalTree, TreeSite};
use crate::run::target::{LocalFile, Target};
use std::io;
use std::path::Path;

/// A place files of a run are created in.
pub trait Space {
    /// The directory (or URL), for the record and messages.
    fn path(&self) -> &Path;

    /// This run's id, part of every file's name.
    fn run_id(&self) -> &str;

    /// What stores the files, as recorded: a file system's name.
    fn filesystem(&self) -> String;

    /// Bytes a new file may still take.
    fn available_bytes(&self) -> io::Result<u64>;

    /// Creates job `job`'s file, new and empty.
    fn create(&self, job: u32) -> Result<Box<dyn Target>, String>;

    /// Opens job `job`'s file, which another rank of this run created.
    fn open_peer(&self, job: u32, write: bool) -> Result<Box<dyn Target>, String>;

    /// Removes what the killed run `run_id` left; returns the names removed.
    fn remove_leftovers(&self, run_id: &str) -> io::Result<Vec<String>>;

    /// Removes what dead runs on this host left; returns the names removed.
    fn remove_dead_runs(&self) -> io::Result<Vec<String>>;

    /// The local directory, for what only one has (`--file`, devices).
    fn local(&self) -> Option<&ScratchDir>;

    /// Makes this run's metadata tree of `shape` here, or with `open`
    /// opens the one rank 0 made.
    /// `serial` numbers the session's trees (see [`crate::run::site::tree::tree_name`]).
    fn tree(
        &self,
        _shape: TreeShape,
        _open: bool,
        _serial: u32,
    ) -> Result<Box<dyn TreeSite>, String> {
        Err(format!(
            "{} holds no files: a metadata workload (--items) needs a file system",
            self.path().display()
        ))
    }

    /// Free inodes, inodes in all and free bytes where a tree would go.
    fn tree_room(&self) -> io::Result<(u64, u64, u64)> {
        Err(io::Error::other("no file system here"))
    }

    /// How the file `name` in it is shown in messages.
    fn shown_path(&self, name: &str) -> std::path::PathBuf {
        self.path().join(name)
    }
}

impl Space for ScratchDir {
    fn path(&self) -> &Path {
        ScratchDir::path(self)
    }

    fn run_id(&self) -> &str {
        ScratchDir::run_id(self)
    }

    fn filesystem(&self) -> String {
        ScratchDir::filesystem(self)
    }

    fn available_bytes(&self) -> io::Result<u64> {
        ScratchDir::available_bytes(self)
    }

    fn create(&self, job: u32) -> Result<Box<dyn Target>, String> {
        let file = ScratchDir::create(self, job).map_err(|e| e.to_string())?;
        Ok(Box::new(LocalFile::new(file)))
    }

    fn open_peer(&self, job: u32, write: bool) -> Result<Box<dyn Target>, String> {
        let file = ScratchDir::open_peer(self, job, write).map_err(|e| e.to_string())?;
        Ok(Box::new(LocalFile::new(file)))
    }

    fn remove_leftovers(&self, run_id: &str) -> io::Result<Vec<String>> {
        ScratchDir::remove_leftovers(self, run_id)
    }

    fn remove_dead_runs(&self) -> io::Result<Vec<String>> {
        ScratchDir::remove_dead_runs(self)
    }

    fn local(&self) -> Option<&ScratchDir> {
        Some(self)
    }

    fn tree(&self, shape: TreeShape, open: bool, serial: u32) -> Result<Box<dyn TreeSite>, String> {
        let made = if open {
            LocalTree::open(
                self.shared_fd(),
                self.path(),
                (self.run_id(), serial),
                shape,
            )
        } else {
            LocalTree::make(
                self.shared_fd(),
                self.path(),
                (self.run_id(), serial),
                shape,
            )
        };
        Ok(Box::new(made.map_err(|e| e.to_string())?))
    }

    fn tree_room(&self) -> io::Result<(u64, u64, u64)> {
        LocalTree::free(self.fd())
    }
}
