//! A file the session holds (`TargetFile`): opened once and checked to be the very file created or adopted, reopened by that identity with each job's flags, and removed only while it still is; and who made it (`Ownership`), which decides whether iolab may write and remove it.

use crate::owner::OWNER_XATTR;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{AtFlags, Mode, OFlags};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Who made a target file, which decides what iolab may do with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ownership {
    /// Created by iolab in this run: written freely, removed at the end.
    Created,
    /// Named by the user: never removed; written only if it carries iolab's marker.
    Given {
        /// Whether the workload writes it (checked against the marker).
        writable: bool,
    },
    /// Created in this run by another rank of a distributed run: removed by
    /// that rank, never by this one.
    Peer {
        /// Whether this rank writes it (its region of a shared file).
        writable: bool,
    },
}

impl Ownership {
    /// Whether iolab may write it: created, or given or another rank's with leave to write.
    pub fn writable(self) -> bool {
        matches!(
            self,
            Ownership::Created
                | Ownership::Given { writable: true }
                | Ownership::Peer { writable: true }
        )
    }
}

/// A file a session measures: one iolab created in this run, removed by
/// [`TargetFile::remove`] only while its name still refers to it, or one the
/// user gave, which is never removed.
#[derive(Debug)]
pub struct TargetFile {
    pub(super) name: std::ffi::OsString,
    pub(super) path: PathBuf,
    pub(super) fd: OwnedFd,
    pub(super) identity: (u64, u64),
    /// The directory it was opened in, through which it is reopened and removed.
    pub(super) dir: Arc<OwnedFd>,
    pub(super) ownership: Ownership,
}

impl TargetFile {
    /// The full path, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The buffered descriptor the file was opened with (read-only for a given file).
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Who made the file.
    pub fn ownership(&self) -> Ownership {
        self.ownership
    }

    /// The file's length in bytes (a block device's capacity).
    pub fn length(&self) -> io::Result<u64> {
        let stat = rustix::fs::fstat(&self.fd)?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::BlockDevice {
            return crate::run::target::device::size_of(crate::probe::stack::split_dev(
                stat.st_rdev,
            ));
        }
        Ok(stat.st_size as u64)
    }

    /// Whether the target is a block device rather than a file.
    pub fn is_device(&self) -> bool {
        rustix::fs::fstat(&self.fd).is_ok_and(|stat| {
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::BlockDevice
        })
    }

    /// Opens the file again with extra flags (O_DIRECT, O_SYNC…) and checks the
    /// new descriptor refers to the very file created, not one put in its place.
    pub fn reopen(&self, extra: OFlags) -> io::Result<OwnedFd> {
        let access = if self.writable() {
            OFlags::RDWR
        } else {
            OFlags::RDONLY
        };
        self.reopen_as(access, extra)
    }

    pub(super) fn writable(&self) -> bool {
        self.ownership.writable()
    }

    /// As [`TargetFile::reopen`], with the access mode `access`
    /// (`O_RDONLY`, `O_WRONLY`, `O_RDWR`): a job opens its file as the
    /// workload uses it, as the programs it stands for do. Write access to
    /// a file iolab may not write is refused.
    pub fn reopen_as(&self, access: OFlags, extra: OFlags) -> io::Result<OwnedFd> {
        if access != OFlags::RDONLY && !self.writable() {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("{} may not be written", self.path.display()),
            ));
        }
        let fd = rustix::fs::openat(
            &self.dir,
            self.name.as_os_str(),
            access | OFlags::NOFOLLOW | OFlags::CLOEXEC | extra,
            Mode::empty(),
        )?;
        let stat = rustix::fs::fstat(&fd)?;
        if (stat.st_dev, stat.st_ino) != self.identity {
            return Err(io::Error::other(format!(
                "{} was replaced by another file during the run; not touching it",
                self.path.display()
            )));
        }
        Ok(fd)
    }

    /// Leaves a created file for good (`--keep`): its owner tag goes, so no
    /// later run takes it for a dead run's leftover. It keeps its marker, so
    /// a later `--file … --op rewrite` may write it.
    pub fn disown(self) {
        let _ = rustix::fs::fremovexattr(&self.fd, OWNER_XATTR);
    }

    /// Where the file is now, through its open descriptor: its new name
    /// after a move (`None` once deleted or where it cannot be read).
    pub fn now_at(&self) -> Option<PathBuf> {
        crate::probe::process::path_of_descriptor(self.fd.as_fd())
            .filter(|at| !at.to_string_lossy().ends_with(" (deleted)"))
    }

    /// Removes a file iolab created, if its name still refers to it; returns
    /// whether it did. A given file is never removed.
    pub fn remove(self) -> io::Result<bool> {
        if self.ownership != Ownership::Created {
            return Ok(false);
        }
        let current =
            rustix::fs::statat(&self.dir, self.name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW);
        match current {
            Ok(stat) if (stat.st_dev, stat.st_ino) == self.identity => {
                rustix::fs::unlinkat(&self.dir, self.name.as_os_str(), AtFlags::empty())?;
                Ok(true)
            }
            Ok(_) => Ok(false),
            Err(rustix::io::Errno::NOENT) => Ok(false),
            Err(error) => Err(error.into()),
        }
    }
}

/// `fd`, a file just linked in as `name` in `dir` from an unnamed one,
/// opened again by its name where that is the same file (`identity`), so
/// that the descriptor follows a rename: an O_TMPFILE descriptor stays
/// "deleted" in /proc, and a file moved away is then found by its new
/// name when the run ends ([`TargetFile::now_at`]).
pub(super) fn by_name(dir: &OwnedFd, name: &str, fd: OwnedFd, identity: (u64, u64)) -> OwnedFd {
    rustix::fs::openat(
        dir,
        name,
        OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()
    .filter(|named| rustix::fs::fstat(named).is_ok_and(|s| (s.st_dev, s.st_ino) == identity))
    .unwrap_or(fd)
}
