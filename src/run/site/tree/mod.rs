//! A metadata workload's tree: where it is (the `TreeSite` trait: a local directory here, a server's in `net/`), its names, and the local tree — its root made in the scratch directory and marked as this run's, its directories built, each job's directories opened beneath it without following links, and its removal, only of what iolab names, only while the root is still the one it made, and of a killed run's tree by the next run.
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

use crate::run::io::calls::TreeJob;
pub use job::{ItemFailure, ItemName, ItemOps, TreePass, prefixes, run_tree_job};
pub use remove::is_iolab_name;
pub(in crate::run) use remove::remove_dead_trees;
pub use session::TreeInfo;

use crate::plan::tree::TreeShape;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{Mode, OFlags, ResolveFlags};
use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};

/// The name of run `run_id`'s tree in the scratch directory.
pub fn tree_name(run_id: &str, serial: u32) -> String {
    match serial {
        0 => format!("iolab-{run_id}.tree"),
        serial => format!("iolab-{run_id}.{serial}.tree"),
    }
}

/// The run id in a tree's name (`iolab-<run id>[.<serial>].tree`), when
/// the name is a tree's.
pub fn run_of_tree(name: &str) -> Option<&str> {
    let inner = name.strip_prefix("iolab-")?.strip_suffix(".tree")?;
    let run = match inner.split_once('.') {
        Some((run, serial)) if !serial.is_empty() && serial.bytes().all(|b| b.is_ascii_digit()) => {
            run
        }
        Some(_) => return None,
        None => inner,
    };
    (!run.is_empty()).then_some(run)
}

/// The owner file inside a tree's root: the owner tag, then `run <run id>`.
pub const OWNER_FILE: &str = "iolab.owner";

/// Which items a tree holds now, so each phase finds what it needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(in crate::run) struct Present {
    /// The files each job (all ranks', by global number) has, and whether
    /// they carry their renamed names; `None`: no files.
    pub(in crate::run) files: Option<(Vec<u64>, bool)>,
    /// The item directories each job has; `None`: none.
    pub(in crate::run) dirs: Option<Vec<u64>>,
}

/// Where a metadata workload's tree is: a local directory (`LocalTree`),
/// or a directory on a server reached by iolab's own client (in `net/`).
pub trait TreeSite: Send + Sync {
    /// The root, for messages and the record.
    fn path(&self) -> &Path;
    /// Whether this process made the tree, and so removes it.
    fn made_here(&self) -> bool;
    /// Runs job `job` of `pass` (see [`run_tree_job`]); the job's figures
    /// and what it did to the tree.
    fn run_job(
        &self,
        pass: &TreePass<'_>,
        job: u32,
        spec: &crate::run::io::spec::LoopSpec<'_>,
        memory: crate::run::io::recorder::JobMemory,
        buffer: &mut [u8],
        ready: &mut dyn FnMut() -> bool,
    ) -> (crate::run::io::recorder::JobOutcome, TreeJob);
    /// Writes what the client holds of the tree back, untimed (syncfs);
    /// a client that holds nothing does nothing.
    fn write_back(&self) -> io::Result<()>;
    /// Evicts the files' pages from the client's cache, where it has one.
    fn evict_files(&self, counts: &[u64], renamed: bool) -> io::Result<()>;
    /// Drops every cache of the client's (`--cache drop`): the kernel's,
    /// system-wide; a client with none to drop says so.
    fn drop_caches(&self) -> io::Result<()>;
    /// What `--cache cold` leaves of the tree's metadata in memory, in words.
    fn cold_leaves(&self) -> &'static str;
    /// Removes everything iolab made in the tree; returns what was left
    /// because it is not iolab's (named).
    fn remove(&self) -> io::Result<Vec<String>>;

    /// Refuses a tree another party changed so that the calls would reach
    /// outside it (a symbolic link where iolab made a directory). A local
    /// tree's calls resolve beneath its root without following links
    /// (`RESOLVE_NO_SYMLINKS`), so only a client that follows them checks.
    fn check_intact(&self) -> io::Result<()> {
        Ok(())
    }
}

/// The top directory of job `job`'s tree relative to the root: `job.<J>`
/// with a tree per job, else `shared` (the root holds the owner file,
/// which is no item of the tree).
pub fn top(shape: &TreeShape, job: u32) -> String {
    if shape.unique_dir {
        format!("job.{job}")
    } else {
        "shared".to_string()
    }
}

/// Directory `index` of job `job`'s tree, relative to the root.
pub fn directory_path(shape: &TreeShape, job: u32, index: u64) -> String {
    let mut parts = vec![top(shape, job)];
    parts.extend(
        shape
            .directory_path(index)
            .into_iter()
            .map(|k| format!("t.{k}")),
    );
    parts.join("/")
}

/// A session's tree and what it holds now.
pub(in crate::run) struct Held {
    /// Where it is.
    pub(in crate::run) site: Box<dyn TreeSite>,
    /// The shape it was made for.
    pub(in crate::run) shape: TreeShape,
    /// What it holds.
    pub(in crate::run) present: Present,
}

/// A tree made in a local scratch directory for one shape of workload.
#[derive(Debug)]
pub struct LocalTree {
    /// The root's path, for messages and the record.
    path: PathBuf,
    /// Its name in the scratch directory.
    name: String,
    /// The root, held open for the whole run: every operation is made beneath it.
    root: OwnedFd,
    /// The root's device and inode, checked before it is removed by name.
    identity: (u64, u64),
    /// The scratch directory holding it, through which it is removed.
    dir: std::sync::Arc<OwnedFd>,
    /// Whether this process made it (and so removes it): in a distributed
    /// run rank 0 makes the tree and the other ranks open it.
    made_here: bool,
    /// The shape it was built for.
    shape: TreeShape,
}

impl LocalTree {
    /// Makes run `run_id`'s tree root in the directory `dir` (at `dir_path`)
    /// with its owner file, then the directories of `shape`. Fails, having
    /// removed whatever it made, when any step fails.
    pub fn make(
        dir: std::sync::Arc<OwnedFd>,
        dir_path: &Path,
        (run_id, serial): (&str, u32),
        shape: TreeShape,
    ) -> io::Result<LocalTree> {
        let name = tree_name(run_id, serial);
        rustix::fs::mkdirat(&dir, name.as_str(), Mode::from_raw_mode(0o755))?;
        let root = rustix::fs::openat(
            &dir,
            name.as_str(),
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let stat = rustix::fs::fstat(&root)?;
        let tree = LocalTree {
            path: dir_path.join(&name),
            name,
            root,
            identity: (stat.st_dev, stat.st_ino),
            dir,
            made_here: true,
            shape,
        };
        let made = tree.mark(run_id).and_then(|()| tree.build());
        match made {
            Ok(()) => Ok(tree),
            Err(error) => {
                let _ = TreeSite::remove(&tree);
                Err(error)
            }
        }
    }

    /// Opens run `run_id`'s tree that another rank made in the directory
    /// `dir`: a directory (no link followed) whose owner file names the run.
    pub fn open(
        dir: std::sync::Arc<OwnedFd>,
        dir_path: &Path,
        (run_id, serial): (&str, u32),
        shape: TreeShape,
    ) -> io::Result<LocalTree> {
        let name = tree_name(run_id, serial);
        let root = rustix::fs::openat(
            &dir,
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
        Ok(LocalTree {
            path: dir_path.join(&name),
            name,
            root,
            identity: (stat.st_dev, stat.st_ino),
            dir,
            made_here: false,
            shape,
        })
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
            crate::run::target::owner_marker::first_line(&crate::owner::owner_tag())
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
            let top = top(&self.shape, tree as u32);
            rustix::fs::mkdirat(&self.root, top.as_str(), Mode::from_raw_mode(0o755))?;
            for index in 1..self.shape.directories() {
                let path = self.directory_path(tree as u32, index);
                rustix::fs::mkdirat(&self.root, path.as_str(), Mode::from_raw_mode(0o755))?;
            }
        }
        Ok(())
    }

    /// Directory `index` of job `job`'s tree, relative to the root.
    pub(in crate::run) fn directory_path(&self, job: u32, index: u64) -> String {
        directory_path(&self.shape, job, index)
    }

    /// Opens directory `index` of job `job`'s tree beneath the root, no
    /// link followed.
    pub(in crate::run) fn open_directory(&self, job: u32, index: u64) -> io::Result<OwnedFd> {
        let path = CString::new(self.directory_path(job, index)).map_err(io::Error::other)?;
        Ok(rustix::fs::openat2(
            &self.root,
            path.as_c_str(),
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        )?)
    }

    /// Free inodes, inodes in all and free bytes of the file system of
    /// `dir` (statfs `f_ffree`, `f_files`, `f_bavail`).
    pub(in crate::run) fn free(dir: BorrowedFd<'_>) -> io::Result<(u64, u64, u64)> {
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
    fn evict(&self, counts: &[u64], renamed: bool) -> io::Result<()> {
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
                crate::run::site::cache::evict(fd.as_fd())?;
            }
        }
        Ok(())
    }
}

impl TreeSite for LocalTree {
    fn path(&self) -> &Path {
        &self.path
    }

    fn made_here(&self) -> bool {
        self.made_here
    }

    fn run_job(
        &self,
        pass: &TreePass<'_>,
        job: u32,
        spec: &crate::run::io::spec::LoopSpec<'_>,
        memory: crate::run::io::recorder::JobMemory,
        buffer: &mut [u8],
        ready: &mut dyn FnMut() -> bool,
    ) -> (crate::run::io::recorder::JobOutcome, TreeJob) {
        let mut ops = job::LocalOps::new(self, pass.op);
        run_tree_job(pass, job, spec, memory, buffer, ready, &mut ops)
    }

    fn write_back(&self) -> io::Result<()> {
        Ok(rustix::fs::syncfs(&self.root)?)
    }

    fn evict_files(&self, counts: &[u64], renamed: bool) -> io::Result<()> {
        self.evict(counts, renamed)
    }

    fn drop_caches(&self) -> io::Result<()> {
        crate::run::site::cache::drop_caches()
    }

    fn cold_leaves(&self) -> &'static str {
        "the tree's dentries and inodes stay in memory, since only a system-wide drop evicts them (--cache drop)"
    }

    /// Removes everything iolab made in the tree, its owner file last,
    /// then the root by its name in the scratch directory while it is
    /// still the directory made.
    fn remove(&self) -> io::Result<Vec<String>> {
        remove::remove_root(
            self.dir.as_fd(),
            &self.name,
            self.root.as_fd(),
            self.identity,
            &self.path,
        )
    }
}
