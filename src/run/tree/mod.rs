//! A metadata workload's tree: its root directory made in the scratch directory and marked as this run's, its directories built, each job's directories opened beneath it without following links, and its removal — only of what iolab names, only while the root is still the one it made, and of a killed run's tree by the next run.
//!
//! The root is `iolab-<run id>.tree`, made with `mkdirat` through the
//! scratch directory's descriptor; its first entry is the owner file
//! `iolab.owner` (the owner tag, then `run <run id>`), made with
//! `O_CREAT|O_EXCL` before anything else, so a tree without one is never
//! iolab's. Below it: `job.<J>` per job with `--unique-dir` or `shared`, then the
//! directories `t.<K>` to `--depth` levels of `--fanout` each, and in them
//! the items: files `f.<J>.<I>` (`r.<J>.<I>` once renamed) and directories
//! `m.<J>.<I>`. Every directory a job works in is opened with `openat2`'s
//! `RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS`, so a link planted in the tree
//! cannot send an operation outside it; removal reads each directory
//! through its descriptor and removes only names of that form.

mod job;
mod remove;
mod session;

pub use job::{SystemCalls, TreeJob};
pub(super) use job::{TreePass, run_tree_job};
pub(super) use remove::remove_dead_trees;
pub use session::TreeInfo;

use crate::plan::tree::TreeShape;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{Mode, OFlags, ResolveFlags};
use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};

/// The name of run `run_id`'s tree in the scratch directory.
pub fn tree_name(run_id: &str) -> String {
    format!("iolab-{run_id}.tree")
}

/// The owner file inside a tree's root: the owner tag, then `run <run id>`.
pub const OWNER_FILE: &str = "iolab.owner";

/// Which items a tree holds now, so each phase finds what it needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Present {
    /// The files each job (all ranks', by global number) has, and whether
    /// they carry their renamed names; `None`: no files.
    pub(super) files: Option<(Vec<u64>, bool)>,
    /// The item directories each job has; `None`: none.
    pub(super) dirs: Option<Vec<u64>>,
}

/// A tree made in the scratch directory for one shape of workload.
#[derive(Debug)]
pub struct Tree {
    /// The root's path, for messages and the record.
    path: PathBuf,
    /// Its name in the scratch directory.
    name: String,
    /// The root, held open for the whole run: every operation is made beneath it.
    root: OwnedFd,
    /// The root's device and inode, checked before it is removed by name.
    identity: (u64, u64),
    /// Whether this process made it (and so removes it): in a distributed
    /// run rank 0 makes the tree and the other ranks open it.
    made_here: bool,
    /// The shape it was built for.
    pub(super) shape: TreeShape,
    /// What it holds now.
    pub(super) present: Present,
}

impl Tree {
    /// Makes run `run_id`'s tree root in the directory `dir` (at `dir_path`)
    /// with its owner file, then the directories of `shape`. Fails, having
    /// removed whatever it made, when any step fails.
    pub fn make(
        dir: BorrowedFd<'_>,
        dir_path: &Path,
        run_id: &str,
        shape: TreeShape,
    ) -> io::Result<Tree> {
        let name = tree_name(run_id);
        rustix::fs::mkdirat(dir, name.as_str(), Mode::from_raw_mode(0o755))?;
        let root = rustix::fs::openat(
            dir,
            name.as_str(),
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let stat = rustix::fs::fstat(&root)?;
        let tree = Tree {
            path: dir_path.join(&name),
            name,
            root,
            identity: (stat.st_dev, stat.st_ino),
            made_here: true,
            shape,
            present: Present::default(),
        };
        let made = tree.mark(run_id).and_then(|()| tree.build());
        match made {
            Ok(()) => Ok(tree),
            Err(error) => {
                let _ = tree.remove(dir);
                Err(error)
            }
        }
    }

    /// Opens run `run_id`'s tree that another rank made in the directory
    /// `dir`: a directory (no link followed) whose owner file names the run.
    pub fn open(
        dir: BorrowedFd<'_>,
        dir_path: &Path,
        run_id: &str,
        shape: TreeShape,
    ) -> io::Result<Tree> {
        let name = tree_name(run_id);
        let root = rustix::fs::openat(
            dir,
            name.as_str(),
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        if remove::owner_of(root.as_fd()).is_none_or(|(_, run)| run != run_id) {
            return Err(io::Error::other(format!(
                "{name} does not carry run {run_id}'s owner file"
            )));
        }
        let stat = rustix::fs::fstat(&root)?;
        Ok(Tree {
            path: dir_path.join(&name),
            name,
            root,
            identity: (stat.st_dev, stat.st_ino),
            made_here: false,
            shape,
            present: Present::default(),
        })
    }

    /// Whether this process made the tree, and so removes it.
    pub(super) fn made_here(&self) -> bool {
        self.made_here
    }

    /// Writes the owner file, durably, before anything else is in the tree.
    fn mark(&self, run_id: &str) -> io::Result<()> {
        let fd = rustix::fs::openat(
            &self.root,
            OWNER_FILE,
            OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::RUSR | Mode::WUSR,
        )?;
        let text = format!(
            "{}run {run_id}\n",
            crate::run::owner_marker::first_line(&crate::owner::owner_tag())
        );
        let written = rustix::io::write(&fd, text.as_bytes())?;
        if written != text.len() {
            return Err(io::Error::other("short write of the tree's owner file"));
        }
        rustix::fs::fsync(&fd)?;
        Ok(())
    }

    /// Makes every tree's directories, breadth first.
    fn build(&self) -> io::Result<()> {
        for tree in 0..self.shape.trees() {
            let top = self.top(tree as u32);
            rustix::fs::mkdirat(&self.root, top.as_str(), Mode::from_raw_mode(0o755))?;
            for index in 1..self.shape.directories() {
                let path = self.directory_path(tree as u32, index);
                rustix::fs::mkdirat(&self.root, path.as_str(), Mode::from_raw_mode(0o755))?;
            }
        }
        Ok(())
    }

    /// The top directory of job `job`'s tree relative to the root: `job.<J>`
    /// with a tree per job, else `shared` (the root holds the owner file,
    /// which is no item of the tree).
    fn top(&self, job: u32) -> String {
        if self.shape.unique_dir {
            format!("job.{job}")
        } else {
            "shared".to_string()
        }
    }

    /// Directory `index` of job `job`'s tree, relative to the root.
    pub(super) fn directory_path(&self, job: u32, index: u64) -> String {
        let mut parts = vec![self.top(job)];
        parts.extend(
            self.shape
                .directory_path(index)
                .into_iter()
                .map(|k| format!("t.{k}")),
        );
        parts.join("/")
    }

    /// Opens directory `index` of job `job`'s tree beneath the root, no
    /// link followed.
    pub(super) fn open_directory(&self, job: u32, index: u64) -> io::Result<OwnedFd> {
        let path = CString::new(self.directory_path(job, index)).map_err(io::Error::other)?;
        Ok(rustix::fs::openat2(
            &self.root,
            path.as_c_str(),
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        )?)
    }

    /// The root's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the file system holding the tree back (syncfs), untimed.
    pub(super) fn write_back(&self) -> io::Result<()> {
        Ok(rustix::fs::syncfs(&self.root)?)
    }

    /// Free inodes, inodes in all and free bytes of the file system of
    /// `dir` (statfs `f_ffree`, `f_files`, `f_bavail`).
    pub(super) fn free(dir: BorrowedFd<'_>) -> io::Result<(u64, u64, u64)> {
        let stat = rustix::fs::fstatvfs(dir)?;
        Ok((
            stat.f_ffree,
            stat.f_files,
            stat.f_bavail.saturating_mul(stat.f_frsize),
        ))
    }

    /// Evicts the pages of every file present (`counts` per job, renamed
    /// or not) from the page cache, untimed: opened read-only beneath the
    /// root, fadvise DONTNEED, closed.
    pub(super) fn evict_files(&self, counts: &[u64], renamed: bool) -> io::Result<()> {
        let prefix = if renamed { "r" } else { "f" };
        let items = self.shape.items.max(1);
        let first = self.shape.first_item_directory();
        for (job, &count) in counts.iter().enumerate() {
            let mut open: Option<(u64, OwnedFd)> = None;
            for item in 0..count {
                let directory = first + item / items;
                if open.as_ref().is_none_or(|(index, _)| *index != directory) {
                    open = Some((directory, self.open_directory(job as u32, directory)?));
                }
                let dir = open
                    .as_ref()
                    .map(|(_, fd)| fd.as_fd())
                    .expect("opened above");
                let name = format!("{prefix}.{job}.{}", item % items);
                let fd = rustix::fs::openat(
                    dir,
                    name.as_str(),
                    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )?;
                crate::run::cache::evict(fd.as_fd())?;
            }
        }
        Ok(())
    }

    /// Removes everything iolab made in the tree, its owner file last,
    /// then the root by its name in `dir` while it is still the directory
    /// made. Returns what was left because it is not iolab's (named), which
    /// keeps the owner file and the root too.
    pub(super) fn remove(&self, dir: BorrowedFd<'_>) -> io::Result<Vec<String>> {
        remove::remove_root(
            dir,
            &self.name,
            self.root.as_fd(),
            self.identity,
            &self.path,
        )
    }
}
