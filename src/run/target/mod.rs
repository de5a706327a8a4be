//! Where a job's I/O goes: the [`Target`] trait (open for I/O, lay out,
//! treat and check the cache, verify data, release) and its two local
//! implementations, a file ([`LocalFile`]) and a block device ([`DeviceTarget`]),
//! and the memory devices (`memory`).
//!
//! The session lays out, treats the cache, counts residency and verifies
//! through this trait only, and a job opens its target through it, so a
//! target reached without a local descriptor (a file on an NFS export
//! through libnfs, an iSCSI LUN through libiscsi) is one more implementation:
//! it overrides the provided methods, which work on a local descriptor, and
//! says through [`Target::residency`] that the client's cache cannot be seen.

pub mod device;
pub mod memory;
pub mod owner_marker;
pub mod scratch;
pub mod space;

use crate::plan::CacheMode;
use crate::run::io::verify::{self, Verified};
use crate::run::site::cache::{self, Residency};
use crate::run::site::prepare::{self, DirectCapability, Fill};
use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::OFlags;
use scratch::{Ownership, TargetFile};
use std::fmt;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Whether a file iolab created was found replaced by another at its
/// release and left in place: the run then ends with status 1, since
/// something else wrote where it measured.
static LEFT_IN_PLACE: AtomicBool = AtomicBool::new(false);

/// Notes that a created file's name now holds another file, left in place.
pub fn note_left_in_place() {
    LEFT_IN_PLACE.store(true, Ordering::Relaxed);
}

/// Whether any release this process made left a replaced file in place.
pub fn any_left_in_place() -> bool {
    LEFT_IN_PLACE.load(Ordering::Relaxed)
}

/// What a target is, for the record and for what the runner watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetKind {
    /// A regular file in a directory: its file system is the one recorded.
    File,
    /// A whole block device, whose own counters are watched.
    BlockDevice,
    /// A logical unit reached over the network (iSCSI): no file system,
    /// no local device, written only with consent.
    Lun,
    /// `/dev/null` or `/dev/zero` ([`memory::MemoryDevice`]): nothing stored.
    Memory,
}

/// A file or device a job does its I/O on, with everything the runner does
/// to it outside the timed region.
///
/// The provided methods work on [`Target::local`], the descriptor of a local
/// file or device; a target without one overrides them all.
pub trait Target: Send + Sync + fmt::Debug {
    /// Its path (or URL), for messages and the record.
    fn path(&self) -> &Path;

    /// What it is.
    fn kind(&self) -> TargetKind;

    /// Who made it, which decides whether iolab may write and remove it.
    fn ownership(&self) -> Ownership;

    /// Its length in bytes (a device's capacity).
    fn length(&self) -> io::Result<u64>;

    /// Whether O_DIRECT works on it, and with which alignment.
    fn direct_capability(&self) -> DirectCapability;

    /// The local file or device behind it, when there is one.
    fn local(&self) -> Option<&TargetFile>;

    /// The size every I/O and region must be a whole number of, when the
    /// target imposes one (a LUN's logical block); files impose none.
    fn io_unit(&self) -> Option<u64> {
        None
    }

    /// The job of the network client that reaches it, for a target of a
    /// protocol in `net/`; `None` for a local file or device, which any
    /// local engine opens through [`Target::open`].
    fn client(&self) -> Option<&dyn crate::run::io::client::ClientJob> {
        None
    }

    /// Removes it if iolab created it, or with `keep` leaves it and says
    /// where; a file the user gave or another rank made is left alone.
    fn release(self: Box<Self>, keep: bool);

    /// For a device or LUN the user consented to overwrite: what lives on
    /// it now (a signature, a mount), in one phrase, or why that cannot be
    /// told. Asked before every point and repetition that writes, so that
    /// a file system made on it after the first check is never written
    /// over. `None` for anything iolab may write without consent, or not at all.
    fn found_in_use(&self) -> Option<String> {
        None
    }

    /// A new descriptor for an engine that works on one, with the access
    /// mode `access` (`O_RDONLY`, `O_WRONLY` or `O_RDWR`) and `extra` flags
    /// (O_DIRECT, O_SYNC…), checked to be the very file opened first.
    fn open(&self, access: OFlags, extra: OFlags) -> io::Result<OwnedFd> {
        self.need_local()?.reopen_as(access, extra)
    }

    /// Gives a new file `len` bytes without writing them (sparse), for an
    /// engine that maps it and so cannot grow it.
    fn set_length(&self, len: u64) -> io::Result<()> {
        Ok(rustix::fs::ftruncate(self.need_local()?.fd(), len)?)
    }

    /// Writes `len` bytes of seeded data from `base` and makes them durable,
    /// untimed; stops early with `Interrupted` when `interrupt` is set.
    fn lay_out(&self, base: u64, len: u64, fill: Fill, interrupt: &AtomicUsize) -> io::Result<()> {
        prepare::lay_out(self.need_local()?.fd(), base, len, fill, interrupt)
    }

    /// Puts the `len` bytes from `base` in the cache state `mode` asks for.
    fn treat_cache(
        &self,
        mode: CacheMode,
        base: u64,
        len: u64,
        interrupt: &AtomicUsize,
    ) -> io::Result<()> {
        let fd = self.need_local()?.fd();
        match mode {
            CacheMode::Cold | CacheMode::Drop => cache::evict(fd),
            CacheMode::Warm => cache::warm(fd, base, len, interrupt),
            CacheMode::Keep => Ok(()),
            CacheMode::Clean => cache::write_back(fd),
        }
    }

    /// How much of the `len` bytes from `base` is in this host's page
    /// cache, or `None` when that cannot be seen.
    fn residency(&self, base: u64, len: u64) -> io::Result<Option<Residency>> {
        cache::residency(self.need_local()?.fd(), base, len).map(Some)
    }

    /// Checks every block of the region `check` names as stored (written
    /// back and evicted first, untimed).
    fn verify(&self, check: &verify::BlockCheck<'_>) -> io::Result<Verified> {
        let fd = self.need_local()?.fd();
        cache::evict(fd)?;
        verify::verify_file(fd, check)
    }

    /// Why trims of this target would fail, learned before any I/O (a file
    /// system that cannot punch holes, a device or LUN that cannot
    /// discard); `None` when they can run or the probe cannot tell.
    fn why_trims_fail(&self) -> Option<String> {
        self.local()
            .and_then(|file| crate::engine::trim::why_trims_fail(file.fd()))
    }

    /// The local file, or an error saying this target has none.
    fn need_local(&self) -> io::Result<&TargetFile> {
        self.local().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::Unsupported,
                format!("{} is not a local file", self.path().display()),
            )
        })
    }
}

/// A regular file in a local directory (any file system mounted here,
/// network ones included): created by iolab, given by the user, or made by
/// another rank.
#[derive(Debug)]
pub struct LocalFile(TargetFile);

impl LocalFile {
    /// The target of `file`.
    pub fn new(file: TargetFile) -> LocalFile {
        LocalFile(file)
    }
}

impl Target for LocalFile {
    fn path(&self) -> &Path {
        self.0.path()
    }

    fn kind(&self) -> TargetKind {
        TargetKind::File
    }

    fn ownership(&self) -> Ownership {
        self.0.ownership()
    }

    fn length(&self) -> io::Result<u64> {
        self.0.length()
    }

    fn direct_capability(&self) -> DirectCapability {
        let in_memory = rustix::fs::fstatfs(self.0.fd()).is_ok_and(|stats| {
            let name = scratch::filesystem_name(stats.f_type as u64);
            name == "tmpfs" || name == "ramfs"
        });
        if in_memory {
            // tmpfs takes O_DIRECT since Linux 6.6 but serves it from memory.
            return match self.0.reopen(OFlags::DIRECT) {
                Ok(_) => DirectCapability::AcceptedInMemory,
                Err(error) => refused(&error),
            };
        }
        direct_on(&self.0)
    }

    fn local(&self) -> Option<&TargetFile> {
        Some(&self.0)
    }

    fn release(self: Box<Self>, keep: bool) {
        let file = self.0;
        if file.ownership() != Ownership::Created {
            return; // the user's file, or another rank's: never removed here
        }
        if keep {
            crate::say!("iolab: kept {}", file.path().display());
            file.disown();
            return;
        }
        let path = file.path().to_path_buf();
        let now_at = file.now_at().filter(|at| *at != path);
        match file.remove() {
            Ok(true) => {}
            Ok(false) => {
                note_left_in_place();
                crate::say!(
                    "iolab: {} is no longer the file iolab created; left in place{}",
                    path.display(),
                    now_at.map_or(String::new(), |at| format!(
                        "; the file iolab created is now {} (remove it once nothing uses it)",
                        at.display()
                    ))
                )
            }
            Err(error) => crate::say!(
                "iolab: could not remove scratch file {}: {error}",
                path.display()
            ),
        }
    }
}

/// A whole block device the user named with `--file`: never created or
/// removed, written only with consent ([`device::check_writable`]).
#[derive(Debug)]
pub struct DeviceTarget(TargetFile, device::BlockDevice);

impl DeviceTarget {
    /// The target of `device`, opened as `file`.
    pub fn new(file: TargetFile, device: device::BlockDevice) -> DeviceTarget {
        DeviceTarget(file, device)
    }
}

impl Target for DeviceTarget {
    fn path(&self) -> &Path {
        self.0.path()
    }

    fn kind(&self) -> TargetKind {
        TargetKind::BlockDevice
    }

    fn ownership(&self) -> Ownership {
        self.0.ownership()
    }

    fn length(&self) -> io::Result<u64> {
        self.0.length()
    }

    fn direct_capability(&self) -> DirectCapability {
        // The node lives on devtmpfs, which has tmpfs's magic number, but
        // O_DIRECT goes to the device itself.
        direct_on(&self.0)
    }

    fn local(&self) -> Option<&TargetFile> {
        Some(&self.0)
    }

    fn release(self: Box<Self>, _keep: bool) {
        // The user's device: nothing to remove or keep.
    }

    fn found_in_use(&self) -> Option<String> {
        if self.0.ownership() != (Ownership::Given { writable: true }) {
            return None;
        }
        let found = device::in_use(Path::new("/sys"), &self.1);
        (!found.is_empty()).then(|| {
            format!(
                "stopped before writing {} again: {} (made since the run began); nothing more was written",
                self.1.path.display(),
                found.join("; ")
            )
        })
    }
}

/// What O_DIRECT does on a local file or device that stores its data.
fn direct_on(file: &TargetFile) -> DirectCapability {
    match file.reopen(OFlags::DIRECT) {
        Ok(fd) => match prepare::direct_alignment(fd.as_fd()) {
            Ok(alignment) => DirectCapability::Supported(alignment),
            Err(errno) => DirectCapability::Refused(errno),
        },
        Err(error) => refused(&error),
    }
}

fn refused(error: &io::Error) -> DirectCapability {
    DirectCapability::Refused(error.raw_os_error().unwrap_or(libc::EINVAL))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::target::scratch::ScratchDir;

    #[test]
    fn a_local_file_lays_out_verifies_and_is_removed_by_release() {
        let temp = tempfile::tempdir().unwrap();
        let dir = ScratchDir::open(temp.path(), "tg1").unwrap();
        let target: Box<dyn Target> = Box::new(LocalFile::new(dir.create(0).unwrap()));
        let stop = AtomicUsize::new(0);
        let fill = Fill {
            seed: 7,
            data: crate::plan::data::DataPattern::Unique,
            bs: 4096,
            seal: None,
        };
        target.lay_out(0, 1 << 20, fill, &stop).unwrap();
        assert_eq!(target.length().unwrap(), 1 << 20);
        target
            .treat_cache(CacheMode::Cold, 0, 1 << 20, &stop)
            .unwrap();
        let residency = target.residency(0, 1 << 20).unwrap().unwrap();
        assert_eq!(
            residency.total_pages,
            (1 << 20) / rustix::param::page_size() as u64
        );
        // Laid-out data carries no verification headers: every block fails.
        let check = verify::BlockCheck {
            base: 0,
            len: 1 << 20,
            bs: 4096,
            alignment: 4096,
            writers: None,
        };
        let verified = target.verify(&check).unwrap();
        assert_eq!((verified.blocks, verified.bad_blocks), (256, 256));
        let path = target.path().to_path_buf();
        target.release(false);
        assert!(!path.exists(), "a created file is removed on release");
    }

    #[test]
    fn released_given_files_stay() {
        let temp = tempfile::tempdir().unwrap();
        std::fs::write(temp.path().join("mine"), b"the user's").unwrap();
        let dir = ScratchDir::open(temp.path(), "tg2").unwrap();
        let target = Box::new(LocalFile::new(dir.adopt("mine".as_ref(), false).unwrap()));
        assert_eq!(target.kind(), TargetKind::File);
        target.release(false);
        assert_eq!(
            std::fs::read(temp.path().join("mine")).unwrap(),
            b"the user's"
        );
    }

    /// A target with no local descriptor, as a network client's is.
    #[derive(Debug)]
    struct Remote;

    impl Target for Remote {
        fn path(&self) -> &Path {
            Path::new("nfs://127.0.0.1/export/f")
        }
        fn kind(&self) -> TargetKind {
            TargetKind::File
        }
        fn ownership(&self) -> Ownership {
            Ownership::Created
        }
        fn length(&self) -> io::Result<u64> {
            Ok(0)
        }
        fn direct_capability(&self) -> DirectCapability {
            DirectCapability::Refused(libc::EINVAL)
        }
        fn local(&self) -> Option<&TargetFile> {
            None
        }
        fn release(self: Box<Self>, _keep: bool) {}
    }

    #[test]
    fn a_target_without_a_local_file_refuses_the_local_operations_by_name() {
        let error = Remote.open(OFlags::RDONLY, OFlags::empty()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::Unsupported);
        assert!(
            error.to_string().contains("nfs://127.0.0.1/export/f"),
            "{error}"
        );
        let stop = AtomicUsize::new(0);
        let fill = Fill {
            seed: 1,
            data: crate::plan::data::DataPattern::Unique,
            bs: 4096,
            seal: None,
        };
        assert!(Remote.lay_out(0, 4096, fill, &stop).is_err());
        assert!(Remote.residency(0, 4096).is_err());
    }
}
