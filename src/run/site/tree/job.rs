//! One job's pass over a tree: each item's operation as one system call (or the few a create or read of a file takes), its latency recorded as an I/O's is, every result checked, and the system calls counted as they are made.
//!
//! Per item: its name written into a stack buffer (no allocation), the
//! call or calls, one clock read (the end of one item is the start of the
//! next; a directory's opening between items is in the phase's time and in
//! no item's), one record into the job's recorder, a relaxed load of the
//! interrupt flag. A time-bounded pass that makes items (`--runtime`, the
//! stonewall) stops each job at the deadline and says how many it made.

use super::{LocalTree, TreeSite, directory_path};
use crate::clock::now_ns;
use crate::plan::ItemOp;
use crate::plan::Items;
use crate::plan::direction::Direction;
use crate::plan::tree::TreeShape;
use crate::probe::cpu::CpuUsage;
use crate::run::io::calls::{SystemCalls, TreeJob};
use crate::run::io::recorder::{JobMemory, JobOutcome, Recorder};
use crate::run::io::spec::{IoFailure, LoopSpec};
use rustix::fd::{IntoRawFd, OwnedFd};
use rustix::fs::{AtFlags, Mode, OFlags, RenameFlags};
use std::ffi::CStr;
use std::io;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// What the jobs of one pass over a tree share.
#[derive(Clone, Copy)]
pub struct TreePass<'a> {
    /// Where the tree is.
    pub site: &'a dyn TreeSite,
    pub shape: TreeShape,
    /// The operation on each item.
    pub op: ItemOp,
    /// Items each job (by global number) has, for an op that uses or
    /// removes them; an op that makes items makes the shape's full count.
    pub counts: &'a [u64],
    /// Whether the files carry their renamed names (`r.`) now.
    pub renamed: bool,
    /// This rank's first job among all ranks' jobs.
    pub first_job: u32,
    /// The stonewall of a pass that makes items: each job stops making
    /// them once it is up.
    pub stonewall: Option<Duration>,
    /// Flags a create opens its file with beside the access mode
    /// (`O_SYNC`, `O_DSYNC`).
    pub create_flags: OFlags,
    /// An fsync of each file a create wrote before it is closed (`--fsync-end`).
    pub fsync: bool,
}

/// The primitives one kind of tree does its items with, one per call:
/// the loop around them ([`run_tree_job`], and `do_item` for each
/// item's op, a create's writes and a read's reads) is written once for
/// every kind, as fio's `fileoperations` engine plugs each op into one loop.
pub trait ItemOps {
    /// An open directory of the tree.
    type Dir;
    /// An open file of the tree.
    type File;
    /// The call a create's data goes by, named in a short write's failure.
    const WRITE_CALL: &'static str;
    /// The call a read's data comes by, named in a short read's failure.
    const READ_CALL: &'static str;
    /// Opens directory `index` of job `owner`'s tree (outside any item's time).
    fn open_directory(&mut self, owner: u32, index: u64) -> io::Result<Self::Dir>;
    /// Creates the file `name` in `dir` for writing, failing when the name
    /// exists; with `pass.create_flags` its writes are synchronous.
    fn create(
        &mut self,
        dir: &Self::Dir,
        name: &CStr,
        pass: &TreePass<'_>,
    ) -> Result<Self::File, ItemFailure>;
    /// Writes `data` at `offset` (a create writes in order from 0); the bytes taken.
    fn write(
        &mut self,
        file: &mut Self::File,
        offset: u64,
        data: &[u8],
    ) -> Result<usize, ItemFailure>;
    /// Ends a create: its data made durable as the pass asks (`--fsync-end`,
    /// or the commit of unstable writes when `wrote`), then the file closed.
    fn finish_create(
        &mut self,
        file: Self::File,
        pass: &TreePass<'_>,
        wrote: bool,
    ) -> Result<(), ItemFailure>;
    /// Opens the regular file `name` in `dir` for reading.
    fn open(&mut self, dir: &Self::Dir, name: &CStr) -> Result<Self::File, ItemFailure>;
    /// Reads into `buffer` at `offset` (a read reads in order from 0); the bytes read.
    fn read(
        &mut self,
        file: &mut Self::File,
        offset: u64,
        buffer: &mut [u8],
    ) -> Result<usize, ItemFailure>;
    /// Closes a file opened for reading.
    fn close(&mut self, file: Self::File) -> Result<(), ItemFailure>;
    /// Looks up `name`'s attributes, not following a link.
    fn stat(&mut self, dir: &Self::Dir, name: &CStr) -> Result<(), ItemFailure>;
    /// Renames `from` to `to` in `dir`; `to` is absent by construction.
    fn rename(&mut self, dir: &Self::Dir, from: &CStr, to: &CStr) -> Result<(), ItemFailure>;
    /// Removes the file `name`.
    fn delete(&mut self, dir: &Self::Dir, name: &CStr) -> Result<(), ItemFailure>;
    /// Makes the directory `name`.
    fn mkdir(&mut self, dir: &Self::Dir, name: &CStr) -> Result<(), ItemFailure>;
    /// Removes the empty directory `name`.
    fn rmdir(&mut self, dir: &Self::Dir, name: &CStr) -> Result<(), ItemFailure>;
    /// Lists `dir` to its end; the entries found, `.` and `..` left out.
    fn list(&mut self, dir: &Self::Dir) -> Result<u64, ItemFailure>;
    /// The system calls made so far, where they are the measure.
    fn calls(&self) -> SystemCalls;
}

/// A short transfer by `call`.
fn short(call: &'static str) -> ItemFailure {
    ItemFailure { call, error: None }
}

/// Does `pass.op` on the item `name` in `dir` with `ops` (`to`: a rename's
/// new name; a listing adds its entries to `entries`); the bytes it moved.
/// `buffer` holds what a create writes and takes what a read reads, in
/// pieces of `bs`.
#[inline]
fn do_item<O: ItemOps>(
    ops: &mut O,
    dir: &O::Dir,
    pass: &TreePass<'_>,
    (name, to): (&CStr, &CStr),
    (buffer, bs): (&mut [u8], u64),
    entries: &mut u64,
) -> Result<u64, ItemFailure> {
    let file_size = pass.shape.file_size;
    match pass.op {
        ItemOp::Create => {
            let mut file = ops.create(dir, name, pass)?;
            let mut offset = 0;
            while offset < file_size {
                let chunk = (file_size - offset).min(bs) as usize;
                let written = ops.write(&mut file, offset, &buffer[..chunk])?;
                if written == 0 {
                    return Err(short(O::WRITE_CALL));
                }
                offset += written as u64;
            }
            ops.finish_create(file, pass, file_size > 0)?;
            Ok(file_size)
        }
        ItemOp::Read => {
            let mut file = ops.open(dir, name)?;
            let mut offset = 0;
            while offset < file_size {
                let chunk = (file_size - offset).min(bs) as usize;
                let read = ops.read(&mut file, offset, &mut buffer[..chunk])?;
                if read == 0 {
                    return Err(short(O::READ_CALL));
                }
                offset += read as u64;
            }
            ops.close(file)?;
            Ok(file_size)
        }
        ItemOp::Stat | ItemOp::Dirstat => ops.stat(dir, name).map(|()| 0),
        ItemOp::Rename => ops.rename(dir, name, to).map(|()| 0),
        ItemOp::Delete => ops.delete(dir, name).map(|()| 0),
        ItemOp::Mkdir => ops.mkdir(dir, name).map(|()| 0),
        ItemOp::Rmdir => ops.rmdir(dir, name).map(|()| 0),
        ItemOp::Readdir => {
            *entries += ops.list(dir)?;
            Ok(0)
        }
    }
}

/// An item's name, written into a stack buffer: `f.<J>.<I>` and a NUL.
pub struct ItemName {
    bytes: [u8; 48],
    len: usize,
}

impl Default for ItemName {
    fn default() -> ItemName {
        ItemName::new()
    }
}

impl ItemName {
    pub fn new() -> ItemName {
        ItemName {
            bytes: [0; 48],
            len: 0,
        }
    }

    /// Becomes `<prefix>.<job>.<item>`.
    pub fn set(&mut self, prefix: u8, job: u32, item: u64) -> &CStr {
        self.len = 0;
        self.push(prefix);
        self.push(b'.');
        self.number(u64::from(job));
        self.push(b'.');
        self.number(item);
        self.bytes[self.len] = 0;
        CStr::from_bytes_with_nul(&self.bytes[..=self.len]).expect("one NUL, at the end")
    }

    fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    fn number(&mut self, mut value: u64) {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (value % 10) as u8;
            count += 1;
            value /= 10;
            if value == 0 {
                break;
            }
        }
        for &digit in digits[..count].iter().rev() {
            self.push(digit);
        }
    }

    /// The name as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes[..self.len]).into_owned()
    }
}

/// Why one item's operation failed: the call and its error, or a short transfer.
pub struct ItemFailure {
    /// The call that failed.
    pub call: &'static str,
    /// Its error; `None` for a short transfer.
    pub error: Option<io::Error>,
}

impl From<(&'static str, rustix::io::Errno)> for ItemFailure {
    fn from((call, errno): (&'static str, rustix::io::Errno)) -> ItemFailure {
        ItemFailure {
            call,
            error: Some(errno.into()),
        }
    }
}

impl From<(&'static str, io::Error)> for ItemFailure {
    fn from((call, error): (&'static str, io::Error)) -> ItemFailure {
        ItemFailure {
            call,
            error: Some(error),
        }
    }
}

/// The prefixes of an item's name and of its other name for `op`: files
/// `f.` (and `r.` once renamed), directory items `m.`.
pub fn prefixes(op: ItemOp, renamed: bool) -> (u8, u8) {
    match (op.op().on_directories(), renamed) {
        (true, _) => (b'm', b'm'),
        (false, false) => (b'f', b'r'),
        (false, true) => (b'r', b'f'),
    }
}

/// Closes `fd`, checking the result (a network file system reports a
/// failed write-back here).
fn close_checked(fd: OwnedFd) -> Result<(), ItemFailure> {
    let raw = fd.into_raw_fd();
    // SAFETY: `raw` was just released from its owner and is closed once.
    if unsafe { libc::close(raw) } != 0 {
        return Err(ItemFailure {
            call: "close",
            error: Some(io::Error::last_os_error()),
        });
    }
    Ok(())
}

/// Runs job `job` (this rank's) of `pass` with `ops` doing each item:
/// waits at `ready`, then works on its items in order, recording each.
/// `buffer` holds the bytes a create writes, in writes of `spec.bs`, and
/// what a read reads. The job's failure names `shown` (the tree's root as
/// the user knows it) and the item.
pub fn run_tree_job<O: ItemOps>(
    pass: &TreePass<'_>,
    job: u32,
    spec: &LoopSpec<'_>,
    memory: JobMemory,
    buffer: &mut [u8],
    ready: &mut dyn FnMut() -> bool,
    ops: &mut O,
) -> (JobOutcome, TreeJob) {
    let shape = pass.shape;
    let global = pass.first_job + job;
    let owner = shape.owner_of(global, pass.op.op());
    let count = match pass.op.op().items() {
        Items::Makes => shape.items_per_job(),
        Items::Uses | Items::Removes => pass.counts.get(owner as usize).copied().unwrap_or(0),
    };
    let direction = if pass.op.op().writes() {
        Direction::Write
    } else {
        Direction::Read
    };
    let (prefix, other) = prefixes(pass.op, pass.renamed);
    let mut recorder = Recorder::new(spec, memory);
    let mut done = TreeJob::default();
    if !ready() {
        return (
            recorder.finish(now_ns(), CpuUsage::default(), None, true),
            done,
        );
    }
    let cpu_before = CpuUsage::of_this_thread();
    let start = now_ns();
    recorder.begin(start);
    crate::run::io::live::set_phase(crate::run::io::live::Phase::Measuring);
    let deadline = pass
        .stonewall
        .filter(|_| pass.op.op().items() == Items::Makes)
        .map(|limit| start.saturating_add(limit.as_nanos() as u64));
    let (mut name, mut to) = (ItemName::new(), ItemName::new());
    let mut failure = None;
    let mut interrupted = false;
    let mut last = start;
    let items = shape.items.max(1);
    let first_dir = shape.first_item_directory();
    let mut open: Option<(u64, O::Dir)> = None;
    let units = if pass.op == ItemOp::Readdir {
        shape.item_directories()
    } else {
        count
    };
    let failed = |directory: u64, item: Option<&ItemName>, failure: ItemFailure, unit: u64| {
        let mut path = pass
            .site
            .path()
            .join(directory_path(&shape, owner, directory));
        if let Some(item) = item {
            path = path.join(item.text());
        }
        IoFailure {
            action: failure.call,
            file: format!(
                "{} ({} of job {global}, after {unit} of its {units} done)",
                path.display(),
                pass.op.op().name(),
            ),
            offset: 0,
            bs: 0,
            moved: None,
            error: failure
                .error
                .or_else(|| Some(io::Error::other("short transfer"))),
        }
    };
    for unit in 0..units {
        let directory = if pass.op == ItemOp::Readdir {
            first_dir + unit
        } else {
            first_dir + unit / items
        };
        if open.as_ref().is_none_or(|(index, _)| *index != directory) {
            open = None;
            match ops.open_directory(owner, directory) {
                Ok(dir) => open = Some((directory, dir)),
                Err(error) => {
                    let error = ItemFailure::from(("open the directory", error));
                    failure = Some(failed(directory, None, error, unit));
                    break;
                }
            }
            last = now_ns();
        }
        let dir = &open.as_ref().expect("opened above").1;
        let item = unit % items;
        let to_name = to.set(other, owner, item);
        let item_name = name.set(prefix, owner, item);
        let result = do_item(
            ops,
            dir,
            pass,
            (item_name, to_name),
            (buffer, spec.bs),
            &mut done.entries,
        );
        let now = now_ns();
        match result {
            Ok(bytes) => recorder.record(now, now - last, (0, bytes), direction),
            Err(error) => {
                let item = (pass.op != ItemOp::Readdir).then_some(&name);
                failure = Some(failed(directory, item, error, unit));
                break;
            }
        }
        last = now;
        done.items += 1;
        if spec.interrupt.load(Ordering::Relaxed) != 0 {
            interrupted = true;
            break;
        }
        if deadline.is_some_and(|deadline| now >= deadline) {
            break;
        }
    }
    drop(open);
    let end = now_ns();
    let cpu = CpuUsage::of_this_thread() - cpu_before;
    done.calls = ops.calls();
    (recorder.finish(end, cpu, failure, interrupted), done)
}

/// A local tree's items, done with system calls relative to each
/// directory's descriptor, counted as they are made.
pub(super) struct LocalOps<'a> {
    tree: &'a LocalTree,
    /// A directory listing's buffer, as the C library's (32 KiB).
    listing: Vec<u8>,
    calls: SystemCalls,
}

impl<'a> LocalOps<'a> {
    /// The operations on `tree`, with a listing buffer when `op` lists.
    pub(super) fn new(tree: &'a LocalTree, op: ItemOp) -> LocalOps<'a> {
        LocalOps {
            tree,
            listing: if op == ItemOp::Readdir {
                vec![0u8; 32 << 10]
            } else {
                Vec::new()
            },
            calls: SystemCalls::default(),
        }
    }
}

impl ItemOps for LocalOps<'_> {
    type Dir = OwnedFd;
    type File = OwnedFd;
    const WRITE_CALL: &'static str = "write";
    const READ_CALL: &'static str = "read";

    fn open_directory(&mut self, owner: u32, index: u64) -> io::Result<OwnedFd> {
        self.calls.openat2 += 1;
        let fd = self.tree.open_directory(owner, index)?;
        // Each directory opened is closed when the next is.
        self.calls.close += 1;
        Ok(fd)
    }

    fn calls(&self) -> SystemCalls {
        self.calls
    }

    fn create(
        &mut self,
        dir: &OwnedFd,
        name: &CStr,
        pass: &TreePass<'_>,
    ) -> Result<OwnedFd, ItemFailure> {
        self.calls.openat += 1;
        let flags = OFlags::CREATE
            | OFlags::EXCL
            | OFlags::WRONLY
            | OFlags::NOFOLLOW
            | OFlags::CLOEXEC
            | pass.create_flags;
        rustix::fs::openat(dir, name, flags, Mode::from_raw_mode(0o644))
            .map_err(|e| ItemFailure::from(("openat", e)))
    }

    /// write(2) at the file's position: a create writes in order.
    fn write(
        &mut self,
        file: &mut OwnedFd,
        _offset: u64,
        data: &[u8],
    ) -> Result<usize, ItemFailure> {
        self.calls.write += 1;
        rustix::io::write(&*file, data).map_err(|e| ItemFailure::from(("write", e)))
    }

    fn finish_create(
        &mut self,
        file: OwnedFd,
        pass: &TreePass<'_>,
        _wrote: bool,
    ) -> Result<(), ItemFailure> {
        if pass.fsync {
            self.calls.fsync += 1;
            rustix::fs::fsync(&file).map_err(|e| ItemFailure::from(("fsync", e)))?;
        }
        self.close(file)
    }

    fn open(&mut self, dir: &OwnedFd, name: &CStr) -> Result<OwnedFd, ItemFailure> {
        self.calls.openat += 1;
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        rustix::fs::openat(dir, name, flags, Mode::empty())
            .map_err(|e| ItemFailure::from(("openat", e)))
    }

    /// read(2) at the file's position: a read reads in order.
    fn read(
        &mut self,
        file: &mut OwnedFd,
        _offset: u64,
        buffer: &mut [u8],
    ) -> Result<usize, ItemFailure> {
        self.calls.read += 1;
        rustix::io::read(&*file, buffer).map_err(|e| ItemFailure::from(("read", e)))
    }

    fn close(&mut self, file: OwnedFd) -> Result<(), ItemFailure> {
        self.calls.close += 1;
        close_checked(file)
    }

    fn stat(&mut self, dir: &OwnedFd, name: &CStr) -> Result<(), ItemFailure> {
        self.calls.newfstatat += 1;
        rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
            .map(drop)
            .map_err(|e| ItemFailure::from(("newfstatat", e)))
    }

    fn rename(&mut self, dir: &OwnedFd, from: &CStr, to: &CStr) -> Result<(), ItemFailure> {
        self.calls.renameat2 += 1;
        // Never over a name that exists: nothing is replaced.
        rustix::fs::renameat_with(dir, from, dir, to, RenameFlags::NOREPLACE)
            .map_err(|e| ItemFailure::from(("renameat2", e)))
    }

    fn delete(&mut self, dir: &OwnedFd, name: &CStr) -> Result<(), ItemFailure> {
        self.calls.unlinkat += 1;
        rustix::fs::unlinkat(dir, name, AtFlags::empty())
            .map_err(|e| ItemFailure::from(("unlinkat", e)))
    }

    fn mkdir(&mut self, dir: &OwnedFd, name: &CStr) -> Result<(), ItemFailure> {
        self.calls.mkdirat += 1;
        rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o755))
            .map_err(|e| ItemFailure::from(("mkdirat", e)))
    }

    fn rmdir(&mut self, dir: &OwnedFd, name: &CStr) -> Result<(), ItemFailure> {
        self.calls.unlinkat += 1;
        rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)
            .map_err(|e| ItemFailure::from(("unlinkat", e)))
    }

    /// Lists the directory to its end with getdents64 from its start.
    fn list(&mut self, dir: &OwnedFd) -> Result<u64, ItemFailure> {
        self.calls.openat += 1;
        let fd = rustix::fs::openat(
            dir,
            c".",
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| ItemFailure::from(("openat", e)))?;
        let mut entries = 0;
        loop {
            self.calls.getdents64 += 1;
            let raw = rustix::fd::AsRawFd::as_raw_fd(&fd);
            // SAFETY: the buffer is valid for its length and the descriptor open.
            let got = unsafe {
                libc::syscall(
                    libc::SYS_getdents64,
                    raw,
                    self.listing.as_mut_ptr(),
                    self.listing.len(),
                )
            };
            if got < 0 {
                return Err(ItemFailure {
                    call: "getdents64",
                    error: Some(io::Error::last_os_error()),
                });
            }
            if got == 0 {
                break;
            }
            entries += count_entries(&self.listing[..got as usize]);
        }
        self.calls.close += 1;
        close_checked(fd)?;
        Ok(entries)
    }
}

/// The entries of a getdents64 buffer, `.` and `..` left out.
fn count_entries(buffer: &[u8]) -> u64 {
    // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name.
    let mut offset = 0;
    let mut count = 0;
    while offset + 19 < buffer.len() {
        let reclen = u16::from_ne_bytes([buffer[offset + 16], buffer[offset + 17]]) as usize;
        if reclen == 0 {
            break;
        }
        let name = &buffer[offset + 19..(offset + reclen).min(buffer.len())];
        let name = name.split(|&b| b == 0).next().unwrap_or_default();
        if name != b"." && name != b".." {
            count += 1;
        }
        offset += reclen;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_written_without_allocating() {
        let mut name = ItemName::new();
        assert_eq!(name.set(b'f', 3, 1204).to_bytes(), b"f.3.1204");
        assert_eq!(name.set(b'm', 0, 0).to_bytes(), b"m.0.0");
        assert_eq!(
            name.set(b'r', u32::MAX, u64::MAX).to_bytes(),
            b"r.4294967295.18446744073709551615"
        );
    }
}
