//! A metadata workload's tree on an NFS export through libnfs, with no
//! mount: every directory looked up once, one name at a time from the
//! URL's directory, and every item one NFSv3 procedure on its directory's
//! file handle (`engine::nfs::handle`), so no symbolic link is ever
//! followed; the RPCs counted from the wire by procedure, and the tree
//! removed name by name the same way.
//!
//! The tree's names and shape are the local tree's (`run::tree`): the root
//! `iolab-<run>[.<n>].tree` in the URL's directory, its owner file
//! `iolab.owner` written FILE_SYNC first, then `shared` or `job.<J>` and
//! the `t.<K>` directories. A job looks up the root once and each directory
//! it enters once (LOOKUPs, untimed but on the wire and so in the record's
//! counts), then each item costs its own procedures: CREATE and its WRITEs
//! and COMMIT, LOOKUP and READs, LOOKUP (a stat: its attributes come with
//! it), RENAME, REMOVE, MKDIR, RMDIR, READDIRPLUS. NFSv3's RENAME has no
//! "no replace": a rename's other name is iolab's, absent by construction
//! of the phases.

use crate::engine::nfs::handle::{Handle, Handles, Kind, Stable};
use crate::engine::nfs::libnfs::Context;
use crate::engine::nfs::url::NfsUrl;
use crate::engine::nfs::wire::{Counting, NFS3_PROCEDURES, RpcWire, counting_available};
use crate::net::server::lock;
use crate::plan::tree::TreeShape;
use crate::run::io::calls::{SystemCalls, TreeJob};
use crate::run::io::recorder::{JobMemory, JobOutcome};
use crate::run::io::spec::LoopSpec;
use crate::run::io::traffic::{ClientTraffic, RequestTally};
use crate::run::site::tree::{
    ItemFailure, ItemOps, OWNER_FILE, TreePass, TreeSite, directory_path, run_tree_job, tree_name,
};
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A tree in a directory of an NFS export.
pub struct NfsTree {
    url: NfsUrl,
    /// The root's name in the URL's directory: `iolab-<run>[.<n>].tree`.
    name: CString,
    /// The root as the user knows it: `nfs://HOST/EXPORT/DIR/iolab-<run>.tree`.
    shown: PathBuf,
    /// The URL's directory as the user knows it.
    shown_dir: PathBuf,
    shape: TreeShape,
    made_here: bool,
    /// The session's connection, for making and removing.
    context: Arc<Mutex<Context>>,
}

fn c_name(name: &str) -> io::Result<CString> {
    CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a name"))
}

/// The URL's directory on `context`'s export: looked up from the export's
/// root one component at a time, no link followed.
fn url_directory(handles: &mut Handles<'_>, context: &Context, shown: &Path) -> io::Result<Handle> {
    let export = handles.export_root()?;
    // `shown` ends with the directory's components: the export's is above them.
    let mut export_shown = shown.to_path_buf();
    for _ in context.dir.split('/').filter(|c| !c.is_empty()) {
        export_shown.pop();
    }
    handles.directory(&export, &context.dir, &export_shown)
}

/// The directory `name` in `dir` (shown as `shown`), refused when it is a
/// link or anything else but a directory.
fn subdirectory(
    handles: &mut Handles<'_>,
    dir: &Handle,
    name: &CStr,
    shown: &Path,
) -> io::Result<Handle> {
    handles.directory(dir, &name.to_string_lossy(), shown)
}

/// The text of the regular file `name` in `dir`, at most 4 KiB.
fn read_small(handles: &mut Handles<'_>, dir: &Handle, name: &CStr) -> io::Result<String> {
    let (file, attributes) = handles.lookup(dir, name)?;
    if attributes.kind != Kind::File {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            name.to_string_lossy()
        )));
    }
    let mut text = vec![0u8; 4096];
    let (read, _) = handles.read(&file, 0, &mut text)?;
    text.truncate(read);
    Ok(String::from_utf8_lossy(&text).into_owned())
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
        let tree = NfsTree {
            url: url.clone(),
            shown: shown_dir.join(&name),
            shown_dir: shown_dir.to_path_buf(),
            name: c_name(&name)?,
            shape,
            made_here: !open,
            context,
        };
        let context = lock(&tree.context);
        let mut handles = Handles::new(&context);
        let dir = url_directory(&mut handles, &context, shown_dir)?;
        if open {
            let root = subdirectory(&mut handles, &dir, &tree.name, shown_dir)?;
            let owner = read_small(&mut handles, &root, &c_name(OWNER_FILE)?)?;
            if owner.lines().nth(1) != Some(&format!("run {run_id}")) {
                return Err(io::Error::other(format!(
                    "{} does not carry run {run_id}'s owner file",
                    tree.shown.display()
                )));
            }
            drop(handles);
            drop(context);
            return Ok(tree);
        }
        // A root that cannot be made (its name taken) is not ours: nothing
        // is removed then. Once it is made, whatever failed after goes.
        let root = handles.mkdir(&dir, &tree.name).map_err(|error| {
            io::Error::new(error.kind(), format!("{}: {error}", tree.shown.display()))
        })?;
        if let Err(error) = tree.make(&mut handles, &root, run_id) {
            let _ = remove_tree(&mut handles, &dir, &tree.name, &tree.shown);
            return Err(error);
        }
        drop(handles);
        drop(context);
        Ok(tree)
    }

    /// In the root just made: its owner file (FILE_SYNC), then the directories.
    fn make(&self, handles: &mut Handles<'_>, root: &Handle, run_id: &str) -> io::Result<()> {
        let owner = format!(
            "{}run {run_id}\n",
            crate::run::target::owner_marker::first_line(&crate::owner::owner_tag())
        );
        let file = handles.create(root, &c_name(OWNER_FILE)?, 0o644)?;
        let written = handles.write(&file, 0, owner.as_bytes(), Stable::FileSync)?;
        if written as usize != owner.len() {
            return Err(io::Error::other(format!(
                "{}: the server took {written} of the owner file's {} bytes",
                self.shown.display(),
                owner.len()
            )));
        }
        walk_directories(handles, root, &self.shape, &self.shown, true)
    }
}

/// Each directory of `shape` in the tree at `root`, parents first, one
/// name at a time from its parent's handle: made (MKDIR) when `make`,
/// else looked up and refused when it is not a directory (a link among
/// them: never followed).
fn walk_directories(
    handles: &mut Handles<'_>,
    root: &Handle,
    shape: &TreeShape,
    shown: &Path,
    make: bool,
) -> io::Result<()> {
    let mut known: HashMap<String, Handle> = HashMap::new();
    for tree in 0..shape.trees() {
        for index in 0..shape.directories() {
            let path = directory_path(shape, tree as u32, index);
            let (parent, name) = path.rsplit_once('/').unwrap_or(("", &path));
            let parent_handle = match parent {
                "" => *root,
                parent => *known.get(parent).ok_or_else(|| {
                    io::Error::other(format!("{parent} comes after its directory {path}"))
                })?,
            };
            let name = c_name(name)?;
            let handle = if make {
                handles.mkdir(&parent_handle, &name)?
            } else {
                subdirectory(handles, &parent_handle, &name, &shown.join(parent))?
            };
            known.insert(path, handle);
        }
    }
    Ok(())
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
        // Its own connection, as a data job's; a failure to connect, or to
        // find the tree's root, is the job's.
        let context = match Context::connect(&self.url) {
            Ok(context) => context,
            Err(error) => {
                ready();
                let outcome = JobOutcome::setup_failure(&self.shown.display().to_string(), error);
                return (outcome, TreeJob::default());
            }
        };
        let mut handles = Handles::new(&context);
        let root = url_directory(&mut handles, &context, &self.shown_dir)
            .and_then(|dir| subdirectory(&mut handles, &dir, &self.name, &self.shown_dir));
        let root = match root {
            Ok(root) => root,
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
            handles,
            root,
            shown: &self.shown,
            shape: self.shape,
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
        drop(ops);
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
        // Every procedure is on the wire when it returns, and each create's
        // data committed (COMMIT) or written FILE_SYNC.
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
        "iolab's NFS client keeps no cache (every name is a LOOKUP on the wire); the server's caches are not touched"
    }

    fn remove(&self) -> io::Result<Vec<String>> {
        let context = lock(&self.context);
        let mut handles = Handles::new(&context);
        let dir = url_directory(&mut handles, &context, &self.shown_dir)?;
        remove_tree(&mut handles, &dir, &self.name, &self.shown)
    }

    /// Whether the tree is as iolab made it: the root and every directory
    /// of the shape a directory, none a symbolic link, looked up one name
    /// at a time from the URL's directory. Checked before each pass,
    /// untimed: a link found there is named, and the tree is left alone.
    fn check_intact(&self) -> io::Result<()> {
        let context = lock(&self.context);
        let mut handles = Handles::new(&context);
        let changed = |error: io::Error| {
            if error.kind() == io::ErrorKind::NotADirectory {
                io::Error::other(format!(
                    "{error}: another client changed the tree, and iolab does nothing more in it"
                ))
            } else {
                error
            }
        };
        let dir = url_directory(&mut handles, &context, &self.shown_dir)?;
        let root =
            subdirectory(&mut handles, &dir, &self.name, &self.shown_dir).map_err(changed)?;
        walk_directories(&mut handles, &root, &self.shape, &self.shown, false).map_err(changed)
    }
}

/// Removes iolab's names in the directory `dir` (shown as `shown`) and
/// below; a name of another form is added to `foreign` and left, with the
/// directories above it.
///
/// Each name is looked up in its directory's handle (LOOKUP never follows
/// a link) before anything is done to it, and acted on by that directory's
/// handle: a directory is entered only when it is one, and a link is
/// removed itself, never what it points to.
fn empty(
    handles: &mut Handles<'_>,
    dir: &Handle,
    shown: &Path,
    level: usize,
    foreign: &mut Vec<String>,
) -> io::Result<()> {
    let mut names = Vec::new();
    handles.list(dir, &mut |name, _| names.push(name.to_owned()))?;
    for name in names {
        let text = name.to_string_lossy().into_owned();
        if level == 0 && text == OWNER_FILE {
            continue;
        }
        let shown_below = || shown.join(&text).display().to_string();
        let (handle, attributes) = match handles.lookup(dir, &name) {
            Ok(found) => found,
            Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
            Err(error) => return Err(error),
        };
        let directory_name =
            text == "shared" || ["t.", "job.", "m."].iter().any(|p| text.starts_with(p));
        if !crate::run::site::tree::is_iolab_name(&text) || level > 68 {
            foreign.push(shown_below());
        } else if attributes.kind == Kind::Link {
            // Planted in iolab's tree: the link goes, what it names stays.
            handles.remove(dir, &name)?;
            crate::say!(
                "iolab: {} was a symbolic link planted in iolab's tree: the link is removed, not followed",
                shown_below()
            );
        } else if attributes.kind == Kind::Directory && directory_name {
            let before = foreign.len();
            empty(handles, &handle, &shown.join(&text), level + 1, foreign)?;
            if foreign.len() == before {
                handles.rmdir(dir, &name)?;
            }
        } else if attributes.kind == Kind::File && !directory_name {
            handles.remove(dir, &name)?;
        } else {
            foreign.push(shown_below());
        }
    }
    Ok(())
}

/// Removes the tree `name` in `dir` (shown as `shown`): iolab's names, its
/// owner file last, then the root; what is not iolab's is left and returned.
fn remove_tree(
    handles: &mut Handles<'_>,
    dir: &Handle,
    name: &CStr,
    shown: &Path,
) -> io::Result<Vec<String>> {
    let (root, attributes) = handles.lookup(dir, name)?;
    if attributes.kind != Kind::Directory {
        return Ok(vec![shown.display().to_string()]);
    }
    let mut foreign = Vec::new();
    empty(handles, &root, shown, 0, &mut foreign)?;
    if !foreign.is_empty() {
        return Ok(foreign);
    }
    match handles.remove(&root, &c_name(OWNER_FILE)?) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    handles.rmdir(dir, name)?;
    Ok(foreign)
}

/// Removes the trees in the URL's directory of the runs on this host
/// whose process is gone (`here` is this process's owner tag; `this_run`
/// is never removed): a directory `iolab-<run>[.<n>].tree` whose owner file
/// names that run. Returns the names removed; a tree holding what iolab did
/// not make is left, and named on stderr.
pub fn remove_dead_trees(
    context: &Context,
    shown_dir: &Path,
    here: &str,
    this_run: &str,
) -> io::Result<Vec<String>> {
    let mut handles = Handles::new(context);
    let dir = url_directory(&mut handles, context, shown_dir)?;
    let mut names = Vec::new();
    handles.list(&dir, &mut |name, _| names.push(name.to_owned()))?;
    let owner_file = c_name(OWNER_FILE)?;
    let mut removed = Vec::new();
    for name in names {
        let text = name.to_string_lossy().into_owned();
        let Some(run_id) = crate::run::site::tree::run_of_tree(&text).filter(|id| *id != this_run)
        else {
            continue;
        };
        // A link by a tree's name is not a tree iolab made: not followed.
        let Ok((root, attributes)) = handles.lookup(&dir, &name) else {
            continue;
        };
        if attributes.kind != Kind::Directory {
            continue;
        }
        let Ok(owner) = read_small(&mut handles, &root, &owner_file) else {
            continue;
        };
        let mut lines = owner.lines();
        let (Some(tag), Some(run)) = (lines.next(), lines.next()) else {
            continue;
        };
        if run != format!("run {run_id}") || !crate::owner::tag_is_dead(tag, here) {
            continue;
        }
        let shown = shown_dir.join(&text);
        let left = remove_tree(&mut handles, &dir, &name, &shown)?;
        if left.is_empty() {
            removed.push(text);
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

/// A job's items on its own connection, each by its directory's handle.
struct NfsOps<'a> {
    handles: Handles<'a>,
    /// The tree's root, looked up once.
    root: Handle,
    shown: &'a Path,
    shape: TreeShape,
}

/// An item's procedure failed: `call` and its error.
fn failed(call: &'static str) -> impl Fn(io::Error) -> ItemFailure {
    move |error| ItemFailure::from((call, error))
}

impl ItemOps for NfsOps<'_> {
    /// The directory's handle.
    type Dir = Handle;
    /// The file's handle, and how a create writes it.
    type File = (Handle, Stable);
    const WRITE_CALL: &'static str = "WRITE";
    const READ_CALL: &'static str = "READ";

    fn open_directory(&mut self, owner: u32, index: u64) -> io::Result<Handle> {
        let path = directory_path(&self.shape, owner, index);
        self.handles.directory(&self.root, &path, self.shown)
    }

    fn create(
        &mut self,
        dir: &Handle,
        name: &CStr,
        pass: &TreePass<'_>,
    ) -> Result<(Handle, Stable), ItemFailure> {
        let stable = if pass.create_flags.is_empty() {
            Stable::Unstable
        } else {
            Stable::FileSync
        };
        let file = self
            .handles
            .create(dir, name, 0o644)
            .map_err(failed("CREATE"))?;
        Ok((file, stable))
    }

    fn write(
        &mut self,
        (file, stable): &mut (Handle, Stable),
        offset: u64,
        data: &[u8],
    ) -> Result<usize, ItemFailure> {
        let written = self.handles.write(file, offset, data, *stable);
        Ok(written.map_err(failed("WRITE"))? as usize)
    }

    /// One COMMIT for a file written UNSTABLE, inside the item's time (as
    /// libnfs's close sends): `--fsync-end` asks for nothing more.
    fn finish_create(
        &mut self,
        (file, stable): (Handle, Stable),
        _pass: &TreePass<'_>,
        wrote: bool,
    ) -> Result<(), ItemFailure> {
        if stable == Stable::Unstable && wrote {
            self.handles.commit(&file).map_err(failed("COMMIT"))?;
        }
        Ok(())
    }

    fn open(&mut self, dir: &Handle, name: &CStr) -> Result<(Handle, Stable), ItemFailure> {
        let (file, attributes) = self.handles.lookup(dir, name).map_err(failed("LOOKUP"))?;
        if attributes.kind != Kind::File {
            return Err(ItemFailure::from((
                "LOOKUP",
                io::Error::other("not a regular file"),
            )));
        }
        Ok((file, Stable::Unstable))
    }

    fn read(
        &mut self,
        (file, _): &mut (Handle, Stable),
        offset: u64,
        buffer: &mut [u8],
    ) -> Result<usize, ItemFailure> {
        let (read, _) = self
            .handles
            .read(file, offset, buffer)
            .map_err(failed("READ"))?;
        Ok(read)
    }

    /// NFSv3 has no open or close.
    fn close(&mut self, _file: (Handle, Stable)) -> Result<(), ItemFailure> {
        Ok(())
    }

    /// One LOOKUP: its attributes come with it.
    fn stat(&mut self, dir: &Handle, name: &CStr) -> Result<(), ItemFailure> {
        self.handles
            .lookup(dir, name)
            .map(drop)
            .map_err(failed("LOOKUP"))
    }

    fn rename(&mut self, dir: &Handle, from: &CStr, to: &CStr) -> Result<(), ItemFailure> {
        self.handles.rename(dir, from, to).map_err(failed("RENAME"))
    }

    fn delete(&mut self, dir: &Handle, name: &CStr) -> Result<(), ItemFailure> {
        self.handles.remove(dir, name).map_err(failed("REMOVE"))
    }

    fn mkdir(&mut self, dir: &Handle, name: &CStr) -> Result<(), ItemFailure> {
        self.handles
            .mkdir(dir, name)
            .map(drop)
            .map_err(failed("MKDIR"))
    }

    fn rmdir(&mut self, dir: &Handle, name: &CStr) -> Result<(), ItemFailure> {
        self.handles.rmdir(dir, name).map_err(failed("RMDIR"))
    }

    fn list(&mut self, dir: &Handle) -> Result<u64, ItemFailure> {
        let mut entries = 0;
        self.handles
            .list(dir, &mut |_, _| entries += 1)
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
        requests_are: "RPCs",
        requests,
        pdus: counted.map(Err),
        status_in_data: 0,
        tcp,
    }
}
