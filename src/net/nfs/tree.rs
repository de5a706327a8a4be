//! A metadata workload's tree on an NFS export through libnfs, with no mount: the root and its owner file made over the session's connection, each job's items done on a connection of its own with libnfs's path calls, the RPCs they send counted from the wire by procedure, and the tree removed name by name.
//!
//! The tree's names and shape are the local tree's (`run::tree`): the root
//! `iolab-<run>.tree` in the URL's directory, its owner file `iolab.owner`
//! written and committed first, then `shared` or `job.<J>` and the `t.<K>`
//! directories. libnfs resolves a path by LOOKUPs from the export's root
//! (it keeps no lookup cache, and its directory cache is off), so each item
//! costs its LOOKUPs and its own procedure: what the record's requests say,
//! procedure by procedure. NFSv3's RENAME has no "no replace": a rename's
//! other name is iolab's, absent by construction of the phases.

use crate::engine::nfs::libnfs::Context;
use crate::engine::nfs::url::NfsUrl;
use crate::engine::nfs::wire::{Counting, NFS3_PROCEDURES, RpcWire, counting_available};
use crate::net::server::lock;
use crate::plan::Op;
use crate::plan::tree::TreeShape;
use crate::run::calls::{SystemCalls, TreeJob};
use crate::run::recorder::{JobMemory, JobOutcome};
use crate::run::spec::LoopSpec;
use crate::run::traffic::{ClientTraffic, RequestTally};
use crate::run::tree::{
    ItemFailure, ItemOps, OWNER_FILE, TreePass, TreeSite, directory_path, run_tree_job, top,
    tree_name,
};
use std::ffi::{CStr, CString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A tree in a directory of an NFS export.
pub struct NfsTree {
    url: NfsUrl,
    /// The root as libnfs takes it: `/DIR/iolab-<run>.tree`.
    root: String,
    /// The root as the user knows it: `nfs://HOST/EXPORT/DIR/iolab-<run>.tree`.
    shown: PathBuf,
    shape: TreeShape,
    made_here: bool,
    /// The session's connection, for making and removing.
    context: Arc<Mutex<Context>>,
}

impl NfsTree {
    /// Makes run `run_id`'s tree of `shape` (or with `open` finds the one
    /// rank 0 made) over `context`, in the directory of `url` shown as `shown_dir`.
    pub fn new(
        url: &NfsUrl,
        context: Arc<Mutex<Context>>,
        shown_dir: &Path,
        (run_id, serial): (&str, u32),
        shape: TreeShape,
        open: bool,
    ) -> io::Result<NfsTree> {
        let name = tree_name(run_id, serial);
        let root = lock(&context).path_of(&name);
        let tree = NfsTree {
            url: url.clone(),
            shown: shown_dir.join(&name),
            root,
            shape,
            made_here: !open,
            context,
        };
        if open {
            let owner = tree.owner()?;
            if owner.lines().nth(1) != Some(&format!("run {run_id}")) {
                return Err(io::Error::other(format!(
                    "{} does not carry run {run_id}'s owner file",
                    tree.shown.display()
                )));
            }
            return Ok(tree);
        }
        // A root that cannot be made (its name taken) is not ours: nothing
        // is removed then. Once it is made, whatever failed after goes.
        let root = CString::new(tree.root.as_str()).map_err(io::Error::other)?;
        lock(&tree.context).mkdir(&root)?;
        if let Err(error) = tree.make(run_id) {
            let _ = TreeSite::remove(&tree);
            return Err(error);
        }
        Ok(tree)
    }

    fn path(&self, relative: &str) -> io::Result<CString> {
        CString::new(format!("{}/{relative}", self.root)).map_err(io::Error::other)
    }

    /// In the root just made: its owner file (committed), then the directories.
    fn make(&self, run_id: &str) -> io::Result<()> {
        let context = lock(&self.context);
        let owner = format!(
            "{}run {run_id}\n",
            crate::run::owner_marker::first_line(&crate::owner::owner_tag())
        );
        let file = context.create_at(&self.path(OWNER_FILE)?, false)?;
        file.write_at(owner.as_bytes(), 0)?;
        file.commit()?;
        file.close()?;
        for tree in 0..self.shape.trees() {
            context.mkdir(&self.path(&top(&self.shape, tree as u32))?)?;
            for index in 1..self.shape.directories() {
                let path = directory_path(&self.shape, tree as u32, index);
                context.mkdir(&self.path(&path)?)?;
            }
        }
        Ok(())
    }

    /// The owner file's text.
    fn owner(&self) -> io::Result<String> {
        let context = lock(&self.context);
        let file = context.open_at(&self.path(OWNER_FILE)?)?;
        let mut text = vec![0u8; 4096];
        let read = file.read_at(&mut text, 0)?;
        text.truncate(read);
        Ok(String::from_utf8_lossy(&text).into_owned())
    }
}

impl TreeSite for NfsTree {
    fn path(&self) -> &Path {
        &self.shown
    }

    fn made_here(&self) -> bool {
        self.made_here
    }

    fn run_job(
        &self,
        pass: &TreePass<'_>,
        job: u32,
        spec: &LoopSpec<'_>,
        memory: JobMemory,
        buffer: &mut [u8],
        ready: &mut dyn FnMut() -> bool,
    ) -> (JobOutcome, TreeJob) {
        // Its own connection, as a data job's; a failure to connect is the job's.
        let context = match Context::connect(&self.url) {
            Ok(context) => context,
            Err(error) => {
                ready();
                let outcome = JobOutcome::setup_failure(&self.shown.display().to_string(), error);
                return (outcome, TreeJob::default());
            }
        };
        let fd = context
            .socket()
            .map(|fd| rustix::fd::AsRawFd::as_raw_fd(&fd))
            .unwrap_or(-1);
        let mut counting = Counting::start(fd);
        let mut ops = NfsOps {
            context: &context,
            root: self.root.as_bytes(),
            shape: self.shape,
            path: Vec::with_capacity(self.root.len() + 256),
            to: Vec::with_capacity(self.root.len() + 256),
        };
        let tcp_before = context
            .socket()
            .and_then(|fd| crate::probe::tcp::TcpSnapshot::of(fd).ok());
        // The connection's mount is not the job's: counts start with the clock.
        let mut started = |counting: &mut Counting| {
            let go = ready();
            counting.wire_mut().restart();
            go
        };
        let mut ready_then_count = || started(&mut counting);
        let (outcome, done) = run_tree_job(
            pass,
            job,
            spec,
            memory,
            buffer,
            &mut ready_then_count,
            &mut ops,
        );
        let tcp = context
            .socket()
            .and_then(|fd| crate::probe::tcp::TcpSnapshot::of(fd).ok())
            .zip(tcp_before)
            .map(|(after, before)| after.since(before));
        let mut outcome = outcome;
        outcome.network = Some(traffic(counting.wire(), tcp));
        (outcome, done)
    }

    fn write_back(&self) -> io::Result<()> {
        // libnfs keeps nothing: every call is on the wire when it returns.
        Ok(())
    }

    fn evict_files(&self, _counts: &[u64], _renamed: bool) -> io::Result<()> {
        Ok(())
    }

    fn drop_caches(&self) -> io::Result<()> {
        // The client keeps no cache; the server's is the server's.
        Ok(())
    }

    fn cold_leaves(&self) -> &'static str {
        "iolab's NFS client keeps no cache (every lookup is a LOOKUP on the wire); the server's caches are not touched"
    }

    fn remove(&self) -> io::Result<Vec<String>> {
        remove_tree(&lock(&self.context), &self.root, &self.shown)
    }

    fn check_intact(&self) -> io::Result<()> {
        check_directories(&lock(&self.context), &self.root, &self.shape, &self.shown)
    }
}

/// `root`'s path joined with `relative`, as libnfs takes it.
fn nfs_path(root: &str, relative: &str) -> io::Result<CString> {
    CString::new(format!("{root}/{relative}")).map_err(io::Error::other)
}

/// Removes iolab's names in the directory `relative` of the tree at `root`
/// and below; a name of another form is added to `foreign` (as shown
/// under `shown`) and left, with the directories above it.
///
/// libnfs resolves every path from the export's root and follows a
/// symbolic link met on the way, so each name is looked at without
/// following it (`lstat`) before anything is done to it: a directory is
/// entered only when it is one, and a link is removed itself, never what
/// it points to. The directories above were looked at the same way first.
fn empty(
    context: &Context,
    (root, shown): (&str, &Path),
    relative: &str,
    level: usize,
    foreign: &mut Vec<String>,
) -> io::Result<()> {
    let mut names = Vec::new();
    context.list_at(&nfs_path(root, relative)?, |name| {
        names.push(name.to_string_lossy().into_owned());
    })?;
    for name in names {
        if level == 0 && name == OWNER_FILE {
            continue;
        }
        let below = format!("{relative}/{name}");
        let shown_below = || {
            shown
                .join(below.trim_start_matches('/'))
                .display()
                .to_string()
        };
        let path = nfs_path(root, &below)?;
        let kind = match context.kind_of(&path) {
            Ok(kind) => kind,
            Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
            Err(error) => return Err(error),
        };
        let directory_name =
            name == "shared" || ["t.", "job.", "m."].iter().any(|p| name.starts_with(p));
        if !crate::run::tree::is_iolab_name(&name) || level > 68 {
            foreign.push(shown_below());
        } else if kind == libc::S_IFLNK {
            // Planted in iolab's tree: the link goes, what it names stays.
            context.remove(&path)?;
            crate::say!(
                "iolab: {} was a symbolic link planted in iolab's tree: the link is removed, not followed",
                shown_below()
            );
        } else if kind == libc::S_IFDIR && directory_name {
            let before = foreign.len();
            empty(context, (root, shown), &below, level + 1, foreign)?;
            if foreign.len() == before {
                context.rmdir(&path)?;
            }
        } else if kind == libc::S_IFREG && !directory_name {
            context.remove(&path)?;
        } else {
            foreign.push(shown_below());
        }
    }
    Ok(())
}

/// Whether the tree at `root` is as iolab made it: the root and every
/// directory of `shape` a directory, none a symbolic link (looked at one
/// by one from the root down, without following). Checked before each
/// pass, untimed: a link planted in the tree would send libnfs's path
/// calls, which follow links, into another directory.
fn check_directories(
    context: &Context,
    root: &str,
    shape: &TreeShape,
    shown: &Path,
) -> io::Result<()> {
    let is_directory = |relative: &str| -> io::Result<()> {
        let path = if relative.is_empty() {
            CString::new(root).map_err(io::Error::other)?
        } else {
            nfs_path(root, relative)?
        };
        match context.kind_of(&path)? {
            kind if kind == libc::S_IFDIR => Ok(()),
            kind => Err(io::Error::other(format!(
                "{} is {} where iolab made a directory: another client changed the tree, and iolab does nothing more in it",
                shown.join(relative).display(),
                if kind == libc::S_IFLNK {
                    "a symbolic link"
                } else {
                    "not a directory"
                }
            ))),
        }
    };
    is_directory("")?;
    for tree in 0..shape.trees() {
        is_directory(&top(shape, tree as u32))?;
        for index in 1..shape.directories() {
            is_directory(&directory_path(shape, tree as u32, index))?;
        }
    }
    Ok(())
}

/// Removes the tree at `root` (shown as `shown`): iolab's names, its owner
/// file last, then the root; what is not iolab's is left and returned.
fn remove_tree(context: &Context, root: &str, shown: &Path) -> io::Result<Vec<String>> {
    let mut foreign = Vec::new();
    empty(context, (root, shown), "", 0, &mut foreign)?;
    if !foreign.is_empty() {
        return Ok(foreign);
    }
    match context.remove(&nfs_path(root, OWNER_FILE)?) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    context.rmdir(&CString::new(root).map_err(io::Error::other)?)?;
    Ok(foreign)
}

/// Removes the trees in the URL's directory of the runs on this host
/// whose process is gone (`here` is this process's owner tag; `this_run`
/// is never removed): a directory `iolab-<run>.tree` whose owner file names
/// that run. Returns the names removed; a tree holding what iolab did not
/// make is left, and named on stderr.
pub fn remove_dead_trees(
    context: &Context,
    shown_dir: &Path,
    here: &str,
    this_run: &str,
) -> io::Result<Vec<String>> {
    let mut removed = Vec::new();
    for name in context.list()? {
        let Some(run_id) = crate::run::tree::run_of_tree(&name).filter(|id| *id != this_run) else {
            continue;
        };
        let root = context.path_of(&name);
        // A link by a tree's name is not a tree iolab made: not followed.
        let root_c = CString::new(root.as_str()).map_err(io::Error::other)?;
        if context.kind_of(&root_c).ok() != Some(libc::S_IFDIR) {
            continue;
        }
        let Ok(file) = context.open_at(&nfs_path(&root, OWNER_FILE)?) else {
            continue;
        };
        let mut text = vec![0u8; 4096];
        let read = file.read_at(&mut text, 0).unwrap_or(0);
        drop(file);
        let text = String::from_utf8_lossy(&text[..read]).into_owned();
        let mut lines = text.lines();
        let (Some(tag), Some(run)) = (lines.next(), lines.next()) else {
            continue;
        };
        if run != format!("run {run_id}") || !crate::owner::tag_is_dead(tag, here) {
            continue;
        }
        let shown = shown_dir.join(&name);
        let left = remove_tree(context, &root, &shown)?;
        if left.is_empty() {
            removed.push(name);
        } else {
            crate::say!(
                "iolab: left {} of a dead run: it holds what iolab did not make: {}",
                shown.display(),
                left.join(", ")
            );
        }
    }
    Ok(removed)
}

/// A job's items on its own connection, by path.
struct NfsOps<'a> {
    context: &'a Context,
    root: &'a [u8],
    shape: TreeShape,
    /// The item's path, rebuilt in place for each item (no allocation once grown).
    path: Vec<u8>,
    /// A rename's new path.
    to: Vec<u8>,
}

/// `prefix` then `/NAME` and a NUL, into `into`.
fn join<'b>(into: &'b mut Vec<u8>, prefix: &[u8], name: &CStr) -> &'b CStr {
    into.clear();
    into.extend_from_slice(prefix);
    into.push(b'/');
    into.extend_from_slice(name.to_bytes());
    into.push(0);
    CStr::from_bytes_with_nul(into).expect("one NUL, at the end")
}

impl ItemOps for NfsOps<'_> {
    /// The directory's path (`/DIR/iolab-<run>.tree/shared/t.0`), no NUL.
    type Dir = Vec<u8>;

    fn open_directory(&mut self, owner: u32, index: u64) -> io::Result<Vec<u8>> {
        let mut dir = self.root.to_vec();
        dir.push(b'/');
        dir.extend_from_slice(directory_path(&self.shape, owner, index).as_bytes());
        Ok(dir)
    }

    fn item(
        &mut self,
        dir: &Vec<u8>,
        pass: &TreePass<'_>,
        (name, to): (&CStr, &CStr),
        buffer: &mut [u8],
        bs: u64,
    ) -> Result<u64, ItemFailure> {
        let context = self.context;
        let file_size = pass.shape.file_size;
        let path = join(&mut self.path, dir, name);
        let failed = |call: &'static str| move |error: io::Error| ItemFailure::from((call, error));
        match pass.op {
            Op::Create => {
                let file_sync = !pass.create_flags.is_empty();
                let file = context
                    .create_at(path, file_sync)
                    .map_err(failed("CREATE"))?;
                let mut offset = 0;
                while offset < file_size {
                    let chunk = (file_size - offset).min(bs) as usize;
                    let written = file
                        .write_at(&buffer[..chunk], offset)
                        .map_err(failed("WRITE"))?;
                    if written == 0 {
                        return Err(ItemFailure {
                            call: "WRITE",
                            error: None,
                        });
                    }
                    offset += written as u64;
                }
                // libnfs commits a file written UNSTABLE when it is closed
                // (one COMMIT, inside the item's time), so --fsync-end asks
                // for nothing more: a COMMIT of its own would be a second.
                file.close().map_err(failed("close"))?;
                Ok(file_size)
            }
            Op::Read => {
                let file = context.open_at(path).map_err(failed("open"))?;
                let mut offset = 0;
                while offset < file_size {
                    let chunk = (file_size - offset).min(bs) as usize;
                    let read = file
                        .read_at(&mut buffer[..chunk], offset)
                        .map_err(failed("READ"))?;
                    if read == 0 {
                        return Err(ItemFailure {
                            call: "READ",
                            error: None,
                        });
                    }
                    offset += read as u64;
                }
                file.close().map_err(failed("close"))?;
                Ok(file_size)
            }
            Op::Stat => {
                context.stat_size(path).map_err(failed("GETATTR"))?;
                Ok(0)
            }
            Op::Rename => {
                let to = join(&mut self.to, dir, to);
                let path = CStr::from_bytes_with_nul(&self.path).expect("built above");
                context.rename(path, to).map_err(failed("RENAME"))?;
                Ok(0)
            }
            Op::Delete => {
                context.remove(path).map_err(failed("REMOVE"))?;
                Ok(0)
            }
            Op::Mkdir => {
                context.mkdir(path).map_err(failed("MKDIR"))?;
                Ok(0)
            }
            Op::Rmdir => {
                context.rmdir(path).map_err(failed("RMDIR"))?;
                Ok(0)
            }
            other => unreachable!("op {} is not a metadata op", other.name()),
        }
    }

    fn list(&mut self, dir: &Vec<u8>) -> Result<u64, ItemFailure> {
        self.path.clear();
        self.path.extend_from_slice(dir);
        self.path.push(0);
        let path = CStr::from_bytes_with_nul(&self.path).expect("one NUL, at the end");
        let mut entries = 0;
        self.context
            .list_at(path, |_| entries += 1)
            .map_err(|error| ItemFailure::from(("READDIRPLUS", error)))?;
        Ok(entries)
    }

    fn calls(&self) -> SystemCalls {
        // The measure over NFS is the RPCs (the record's client_network).
        SystemCalls::default()
    }
}

/// A job's RPCs by procedure, as the record keeps them: calls completed
/// (replies received), the bytes of calls and replies on the wire, and
/// their round trips; or, when libnfs's calls could not be counted, why.
fn traffic(wire: &RpcWire, tcp: Option<crate::probe::tcp::TcpTraffic>) -> ClientTraffic {
    let mut requests: Vec<RequestTally> = NFS3_PROCEDURES
        .iter()
        .zip(wire.nfs.iter())
        .filter(|(_, tally)| tally.calls > 0)
        .map(|(&name, tally)| RequestTally {
            name,
            count: tally.replies,
            bytes: tally.call_bytes + tally.reply_bytes,
            round_trip_ns: Some(tally.round_trip_ns),
        })
        .collect();
    if wire.mount.calls > 0 {
        requests.push(RequestTally {
            name: "MOUNT",
            count: wire.mount.replies,
            bytes: wire.mount.call_bytes + wire.mount.reply_bytes,
            round_trip_ns: Some(wire.mount.round_trip_ns),
        });
    }
    let counted = match (counting_available(), wire.lost) {
        (Err(why), _) => Some(why),
        (Ok(()), true) => Some("the RPC stream stopped parsing; the counts stop there".to_string()),
        (Ok(()), false) => None,
    };
    ClientTraffic {
        protocol: "NFSv3",
        requests,
        pdus: counted.map(Err),
        status_in_data: 0,
        tcp,
    }
}
