//! Scratch files: created only by iolab, only inside the chosen directory, and
//! removed only after checking they are still the files iolab created.
//!
//! Every file operation goes through a descriptor of the directory opened once
//! (`openat`, `unlinkat`), so a directory renamed or replaced by a symlink
//! mid-run cannot redirect a write. Files are created with
//! `O_CREAT|O_EXCL|O_NOFOLLOW`: an existing file or a planted symlink makes
//! creation fail instead of being opened. Each created file carries iolab's
//! marker ([`MARKER_XATTR`]), or where the file system keeps no xattrs a line
//! in the run's owner marker file; a file the user names with `--file` is opened
//! read-only, and for writing only when it carries that marker.

use super::owner_marker::{
    MarkerContent, file_line, first_line, marker_of_key, process_marker_name,
};
use crate::input::describe_io;
use crate::owner::owner_tag;
use crate::plan::UsageError;
use crate::usage;
use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{Access, AtFlags, Mode, OFlags, XattrFlags};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod file;
mod leftovers;
pub mod system_tree;

pub use file::{Ownership, TargetFile};

/// The extended attribute iolab sets on every file it creates; its value is the run id.
pub const MARKER_XATTR: &str = "user.iolab.scratch";

/// The directory scratch files go in, held open for the whole run.
#[derive(Debug)]
pub struct ScratchDir {
    path: PathBuf,
    /// Shared with every file opened through it, which reopens and removes
    /// itself through the same descriptor.
    fd: Arc<OwnedFd>,
    run_id: String,
    /// Where the file system keeps no user xattrs (NFSv3 through the
    /// kernel's client): the identity of this run's owner marker
    /// ([`super::owner_marker`]), once its first file was created.
    marker: std::sync::Mutex<Option<(u64, u64)>>,
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        // The session released (or kept and disowned) its files first: the
        // marker goes, so nothing of this run is taken for a dead run's.
        let identity = *self.marker.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(identity) = identity {
            let name = process_marker_name(&self.run_id);
            let now = rustix::fs::statat(&self.fd, name.as_str(), AtFlags::SYMLINK_NOFOLLOW);
            if now.is_ok_and(|now| (now.st_dev, now.st_ino) == identity) {
                let _ = rustix::fs::unlinkat(&self.fd, name.as_str(), AtFlags::empty());
            }
        }
    }
}

impl ScratchDir {
    /// Opens `path` after checking that it is an existing, writable directory.
    /// Refusals are usage errors; nothing is created.
    pub fn open(path: &Path, run_id: &str) -> Result<Self, UsageError> {
        ScratchDir::open_checked(path, run_id, true)
    }

    /// Opens the directory of a file or device the user gave (`--file`):
    /// nothing is created in it, so it need not be writable.
    pub fn open_given(path: &Path, run_id: &str) -> Result<Self, UsageError> {
        ScratchDir::open_checked(path, run_id, false)
    }

    fn open_checked(path: &Path, run_id: &str, creates: bool) -> Result<Self, UsageError> {
        let shown = path.display();
        let metadata = std::fs::metadata(path)
            .map_err(|error| usage!("--dir {shown}: {}", describe_io(&error)))?;
        if !metadata.is_dir() {
            return Err(usage!("--dir {shown} is not a directory"));
        }
        // access(2) also reports EROFS on a read-only mount, even for root.
        let access = if creates {
            Access::WRITE_OK | Access::EXEC_OK
        } else {
            Access::EXEC_OK
        };
        rustix::fs::access(path, access).map_err(|error| {
            usage!(
                "--dir {shown} is not writable: {}",
                describe_io(&error.into())
            )
        })?;
        let fd = rustix::fs::open(
            path,
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|error| usage!("--dir {shown}: {}", describe_io(&error.into())))?;
        // Records and messages name the directory absolutely: "." means nothing
        // once a result file has left the machine.
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if creates {
            system_tree::refuse(&path, &shown.to_string())?;
        }
        Ok(ScratchDir {
            path,
            fd: Arc::new(fd),
            run_id: run_id.to_string(),
            marker: std::sync::Mutex::new(None),
        })
    }

    /// The directory as the user named it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// This run's id, part of every scratch file's name and its marker.
    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    /// The owner marker of key `key` here, when it is a regular file that reads.
    fn marker_of(&self, key: &str) -> Option<MarkerContent> {
        let fd = rustix::fs::openat(
            self.fd(),
            marker_of_key(key).as_str(),
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
            Mode::empty(),
        )
        .ok()?;
        let stat = rustix::fs::fstat(&fd).ok()?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile
            || stat.st_size > 1 << 20
        {
            return None;
        }
        let mut text = Vec::new();
        std::io::Read::read_to_end(&mut std::fs::File::from(fd), &mut text).ok()?;
        Some(MarkerContent::parse(&String::from_utf8_lossy(&text)))
    }

    /// Names `name` (inode `inode`) in this run's owner marker, durably:
    /// the file system keeps no xattrs.
    fn note_in_marker(&self, name: &str, inode: u64) -> io::Result<()> {
        let fd = self.own_marker()?;
        write_all(&fd, file_line(name, inode).as_bytes())?;
        rustix::fs::fsync(&fd)?;
        Ok(())
    }

    /// This run's owner marker, opened for appending: created with the
    /// owner tag, made durable before any file it will name exists (on a
    /// client that caches writes, a marker still empty on the server when
    /// the run is killed could not be judged), or reopened and checked to
    /// be the one created.
    fn own_marker(&self) -> io::Result<OwnedFd> {
        let mut identity = self.marker.lock().unwrap_or_else(|p| p.into_inner());
        let marker = process_marker_name(&self.run_id);
        let append = OFlags::NOFOLLOW | OFlags::WRONLY | OFlags::APPEND | OFlags::CLOEXEC;
        match *identity {
            None => {
                let fd = rustix::fs::openat(
                    &self.fd,
                    marker.as_str(),
                    append | OFlags::CREATE | OFlags::EXCL,
                    Mode::RUSR | Mode::WUSR,
                )?;
                let stat = rustix::fs::fstat(&fd)?;
                *identity = Some((stat.st_dev, stat.st_ino));
                write_all(&fd, first_line(&owner_tag()).as_bytes())?;
                rustix::fs::fsync(&fd)?;
                Ok(fd)
            }
            Some(known) => {
                let fd = rustix::fs::openat(&self.fd, marker.as_str(), append, Mode::empty())?;
                let stat = rustix::fs::fstat(&fd)?;
                if (stat.st_dev, stat.st_ino) != known {
                    return Err(io::Error::other(format!(
                        "{marker} was replaced during the run"
                    )));
                }
                Ok(fd)
            }
        }
    }

    /// An unnamed file in this directory carrying iolab's marker and owner
    /// tag, where the file system has O_TMPFILE and user xattrs; `None`
    /// elsewhere (nothing is left behind then).
    fn unnamed_and_marked(&self) -> Option<OwnedFd> {
        let fd = rustix::fs::openat(
            &self.fd,
            ".",
            OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
            Mode::RUSR | Mode::WUSR,
        )
        .ok()?;
        rustix::fs::fsetxattr(
            &fd,
            MARKER_XATTR,
            self.run_id.as_bytes(),
            XattrFlags::CREATE,
        )
        .ok()?;
        crate::owner::tag(&fd);
        Some(fd)
    }

    /// Whether this file system keeps no user xattrs: reading one from the
    /// directory (nothing is written to it) is refused as unsupported.
    fn keeps_no_xattrs(&self) -> bool {
        let mut value = [0u8; 1];
        matches!(
            rustix::fs::fgetxattr(&self.fd, MARKER_XATTR, &mut value[..]),
            Err(rustix::io::Errno::OPNOTSUPP)
        )
    }

    /// The directory descriptor, to be held by what is removed through it.
    pub fn shared_fd(&self) -> Arc<OwnedFd> {
        self.fd.clone()
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Bytes available to an unprivileged writer (statvfs f_bavail).
    pub fn available_bytes(&self) -> io::Result<u64> {
        let stats = rustix::fs::fstatvfs(&self.fd)?;
        Ok(stats.f_bavail.saturating_mul(stats.f_frsize))
    }

    /// The file system's type name, from statfs's magic number.
    pub fn filesystem(&self) -> String {
        match rustix::fs::fstatfs(&self.fd) {
            Ok(stats) => filesystem_name(stats.f_type as u64),
            Err(_) => "unknown".to_string(),
        }
    }

    /// Creates the scratch file of `job`: `iolab-<run id>-<job>.dat`, mode 0600.
    pub fn create(&self, job: u32) -> io::Result<TargetFile> {
        self.create_named(&format!("iolab-{}-{job}.dat", self.run_id))
    }

    /// Creates `name` as [`ScratchDir::create`] creates a job's file: new
    /// (refused when the name exists), marked as iolab's, removed when
    /// released unless kept. For a job file's `filename=` that names a
    /// file not there yet, as fio makes it.
    pub fn create_named(&self, name: &str) -> io::Result<TargetFile> {
        let name = name.to_string();
        if self.keeps_no_xattrs() {
            // The marker, with its tag, is on the server before the file is.
            self.own_marker().map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!(
                        "cannot create the run's owner marker in {}: {error}",
                        self.path.display()
                    ),
                )
            })?;
        }
        let cannot = |error: rustix::io::Errno| {
            io::Error::new(
                io::Error::from(error).kind(),
                format!(
                    "cannot create scratch file {}: {error}",
                    self.path.join(&name).display()
                ),
            )
        };
        // Marked before it has a name: an unnamed file (O_TMPFILE) gets
        // iolab's marker and owner tag, then is linked in place (failing
        // if the name exists, as O_EXCL would), so a run killed at any
        // moment leaves no file of its own unmarked. Where O_TMPFILE is not
        // supported (NFS), the file is created by name and marked after.
        if let Some(fd) = self.unnamed_and_marked() {
            let linked = rustix::fs::linkat(
                rustix::fs::CWD,
                format!("/proc/self/fd/{}", fd.as_raw_fd()).as_str(),
                &self.fd,
                name.as_str(),
                AtFlags::SYMLINK_FOLLOW,
            );
            match linked {
                Ok(()) => {
                    let stat = rustix::fs::fstat(&fd)?;
                    let fd = file::by_name(&self.fd, &name, fd, (stat.st_dev, stat.st_ino));
                    return Ok(TargetFile {
                        path: self.path.join(&name),
                        name: name.into(),
                        fd,
                        identity: (stat.st_dev, stat.st_ino),
                        dir: self.fd.clone(),
                        ownership: Ownership::Created,
                    });
                }
                // The name is taken: refused, as O_EXCL refuses it.
                Err(error) if error == rustix::io::Errno::EXIST => return Err(cannot(error)),
                // No /proc to link through: created by name below.
                Err(_) => {}
            }
        }
        let fd = rustix::fs::openat(
            &self.fd,
            name.as_str(),
            OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::RDWR | OFlags::CLOEXEC,
            Mode::RUSR | Mode::WUSR,
        )
        .map_err(cannot)?;
        let stat = rustix::fs::fstat(&fd)?;
        // File systems without user xattrs (NFSv3) leave the file unmarked
        // and name it in the run's owner marker instead: a later run removes
        // it if this one is killed; it just cannot be written again later.
        let marked = rustix::fs::fsetxattr(
            &fd,
            MARKER_XATTR,
            self.run_id.as_bytes(),
            XattrFlags::CREATE,
        );
        if marked.is_ok() {
            crate::owner::tag(&fd);
        } else if let Err(error) = self.note_in_marker(&name, stat.st_ino) {
            // Named nowhere, a later run could not remove it: gone now.
            let _ = rustix::fs::unlinkat(&self.fd, name.as_str(), AtFlags::empty());
            return Err(io::Error::new(
                error.kind(),
                format!(
                    "cannot name {} in the run's owner marker: {error}",
                    self.path.join(&name).display()
                ),
            ));
        }
        Ok(TargetFile {
            path: self.path.join(&name),
            name: name.into(),
            fd,
            identity: (stat.st_dev, stat.st_ino),
            dir: self.fd.clone(),
            ownership: Ownership::Created,
        })
    }

    /// Opens the scratch file of `job` that another rank of this distributed
    /// run created (same run id): by name without following a link, checked
    /// to be a regular file carrying this run's marker where the file system
    /// keeps extended attributes. Written only when `write`; never removed here.
    pub fn open_peer(&self, job: u32, write: bool) -> io::Result<TargetFile> {
        let name = format!("iolab-{}-{job}.dat", self.run_id);
        let path = self.path.join(&name);
        let access = if write { OFlags::RDWR } else { OFlags::RDONLY };
        let fd = rustix::fs::openat(
            &self.fd,
            name.as_str(),
            access | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|error| {
            io::Error::new(
                io::Error::from(error).kind(),
                format!(
                    "cannot open {}, another rank's file: {error}",
                    path.display()
                ),
            )
        })?;
        let stat = rustix::fs::fstat(&fd)?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile {
            return Err(io::Error::other(format!(
                "{} is not a regular file; not touching it",
                path.display()
            )));
        }
        let mut value = [0u8; 64];
        match rustix::fs::fgetxattr(&fd, MARKER_XATTR, &mut value[..]) {
            Ok(n) if &value[..n] == self.run_id.as_bytes() => {}
            // No user xattrs here (as on some network file systems): the
            // name, with its fresh run id, is all there is to go by.
            Err(rustix::io::Errno::NOTSUP) => {}
            _ => {
                return Err(io::Error::other(format!(
                    "{} does not carry the marker of run {}; not touching it",
                    path.display(),
                    self.run_id
                )));
            }
        }
        Ok(TargetFile {
            path,
            name: name.into(),
            fd,
            identity: (stat.st_dev, stat.st_ino),
            dir: self.fd.clone(),
            ownership: Ownership::Peer { writable: write },
        })
    }

    /// Uses the existing regular file `name` in this directory, given by the
    /// user: opened read-only, never removed, and reopened for writing only
    /// when `write` is asked and the file carries iolab's marker.
    pub fn adopt(&self, name: &std::ffi::OsStr, write: bool) -> Result<TargetFile, UsageError> {
        let path = self.path.join(name);
        let shown = path.display();
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
        // writer forever; it is refused below as not a regular file.
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|error| match error {
            rustix::io::Errno::LOOP => {
                usage!("--file {shown} is a symbolic link; name the file itself")
            }
            other => usage!("--file {shown}: {}", describe_io(&other.into())),
        })?;
        let stat = rustix::fs::fstat(&fd).map_err(|e| usage!("--file {shown}: {e}"))?;
        let kind = rustix::fs::FileType::from_raw_mode(stat.st_mode);
        let memory = super::device::memory_device(kind, stat.st_rdev).is_some();
        if kind != rustix::fs::FileType::RegularFile && !memory {
            return Err(usage!("--file {shown} is not a regular file"));
        }
        if write && !memory && !has_marker(&fd) {
            return Err(usage!(
                "--file {shown} was not created by iolab (it has no {MARKER_XATTR} attribute), \
                 so iolab only reads it; `iolab run --dir {} --op write --size SIZE --keep` \
                 keeps a file of iolab's there (its name is said), which --file may then write",
                path.parent()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map_or_else(|| ".".to_string(), |p| p.display().to_string())
            ));
        }
        Ok(TargetFile {
            path,
            name: name.to_owned(),
            fd,
            identity: (stat.st_dev, stat.st_ino),
            dir: self.fd.clone(),
            ownership: Ownership::Given { writable: write },
        })
    }
}

impl ScratchDir {
    /// Uses the block device `device`, whose node is `name` in this directory
    /// (`/dev`): opened read-only, or for writing with O_EXCL, which the
    /// kernel refuses while a file system, device-mapper or md holds the
    /// device. The caller has checked `--destroy-data` ([`super::device::check_writable`]).
    pub fn adopt_device(
        &self,
        name: &str,
        device: &super::device::BlockDevice,
        write: bool,
    ) -> Result<TargetFile, UsageError> {
        let path = self.path.join(name);
        let shown = path.display();
        let access = if write {
            OFlags::RDWR | OFlags::EXCL
        } else {
            OFlags::RDONLY
        };
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            access | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|error| match error {
            rustix::io::Errno::BUSY => usage!(
                "refusing to write {shown}: the kernel refuses exclusive access \
                 (mounted, possibly in another mount namespace, or held by another device or program)"
            ),
            other => usage!("--file {shown}: {}", describe_io(&other.into())),
        })?;
        let stat = rustix::fs::fstat(&fd).map_err(|e| usage!("--file {shown}: {e}"))?;
        let is_device =
            rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::BlockDevice;
        if !is_device || crate::probe::stack::split_dev(stat.st_rdev) != device.dev {
            return Err(usage!(
                "{shown} is no longer the block device {}:{}; not touching it",
                device.dev.0,
                device.dev.1
            ));
        }
        Ok(TargetFile {
            path,
            name: name.into(),
            fd,
            identity: (stat.st_dev, stat.st_ino),
            dir: self.fd.clone(),
            ownership: Ownership::Given { writable: write },
        })
    }
}

/// Whether the open file carries iolab's marker.
pub fn has_marker(fd: impl AsFd) -> bool {
    let mut value = [0u8; 64];
    rustix::fs::fgetxattr(fd, MARKER_XATTR, &mut value[..]).is_ok()
}

/// Names the file systems whose statfs magic numbers iolab knows.
pub fn filesystem_name(magic: u64) -> String {
    let name = match magic {
        0xEF53 => "ext4",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0x0102_1994 => "tmpfs",
        0x8584_58F6 => "ramfs",
        0x6969 => "nfs",
        0xFF53_4D42 => "cifs",
        0xFE53_4D42 => "smb2",
        0x6573_5546 => "fuse",
        0x794C_7630 => "overlayfs",
        0x2FC1_2FC1 => "zfs",
        0xF2F5_2010 => "f2fs",
        0x4D44 => "vfat",
        0x2011_BAB0 => "exfat",
        0x5346_544E => "ntfs",
        0x0BD0_0BD0 => "lustre",
        0x00C3_6400 => "ceph",
        0x0102_1997 => "9p",
        0x4244 => "hfs",
        0x5346_4846 => "zonefs",
        other => return format!("unknown (0x{other:x})"),
    };
    name.to_string()
}

/// Writes all of `bytes` to `fd`.
fn write_all(fd: &OwnedFd, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        let written = rustix::io::write(fd, bytes)?;
        if written == 0 {
            return Err(io::ErrorKind::WriteZero.into());
        }
        bytes = &bytes[written..];
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::owner::OWNER_XATTR;

    #[test]
    fn create_refuses_existing_files_and_symlinks() {
        let temp = tempfile::tempdir().unwrap();
        let dir = ScratchDir::open(temp.path(), "t1").unwrap();
        let victim = temp.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        std::os::unix::fs::symlink(&victim, temp.path().join("iolab-t1-0.dat")).unwrap();
        assert!(
            dir.create(0).is_err(),
            "a planted symlink must not be followed"
        );
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");

        let file = dir.create(1).unwrap();
        assert!(
            dir.create(1).is_err(),
            "an existing file must not be reopened"
        );
        assert!(file.remove().unwrap());
        assert!(!temp.path().join("iolab-t1-1.dat").exists());
    }

    #[test]
    fn remove_leaves_a_file_put_in_its_place() {
        let temp = tempfile::tempdir().unwrap();
        let dir = ScratchDir::open(temp.path(), "t2").unwrap();
        let file = dir.create(0).unwrap();
        let path = file.path().to_path_buf();
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"someone else's").unwrap();
        assert!(file.reopen(OFlags::empty()).is_err());
        assert!(!file.remove().unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"someone else's");
    }

    #[test]
    fn created_files_carry_the_marker_and_given_files_are_only_read() {
        let temp = tempfile::tempdir().unwrap();
        let dir = ScratchDir::open(temp.path(), "t3").unwrap();
        let created = dir.create(0).unwrap();
        let marked = has_marker(created.fd());
        let foreign = temp.path().join("data.bin");
        std::fs::write(&foreign, b"the user's data").unwrap();
        let error = dir
            .adopt("data.bin".as_ref(), true)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("not created by iolab") && error.contains("data.bin"),
            "{error}"
        );
        let given = dir.adopt("data.bin".as_ref(), false).unwrap();
        assert!(given.reopen(OFlags::empty()).is_ok());
        assert!(!given.remove().unwrap(), "a given file is never removed");
        assert_eq!(std::fs::read(&foreign).unwrap(), b"the user's data");
        if marked {
            let name = created.path().file_name().unwrap().to_owned();
            assert!(
                dir.adopt(&name, true).is_ok(),
                "iolab's own marked file may be written"
            );
        } else {
            eprintln!("skip: this file system keeps no user xattrs");
        }
        assert!(created.remove().unwrap());
    }

    #[test]
    fn a_dead_runs_files_go_and_a_live_runs_stay() {
        let temp = tempfile::tempdir().unwrap();
        let live = ScratchDir::open(temp.path(), "aaaa0001").unwrap();
        let file = live.create(0).unwrap();
        if !has_marker(file.fd()) {
            eprintln!("skip: this file system keeps no user xattrs");
            return;
        }
        let here = owner_tag();
        let this = crate::owner::parse_owner(&here).unwrap();
        // A file whose owner is this host's earlier boot, and one whose pid
        // runs but started at another time (the pid was reused).
        let dead = ScratchDir::open(temp.path(), "dead0001").unwrap();
        let rebooted = dead.create(0).unwrap();
        let reused = dead.create(1).unwrap();
        let set = |target: &TargetFile, tag: String| {
            rustix::fs::fsetxattr(
                target.fd(),
                OWNER_XATTR,
                tag.as_bytes(),
                XattrFlags::REPLACE,
            )
            .unwrap();
        };
        let (host, namespace, boot) = (this.host, this.namespace, this.boot);
        set(
            &rebooted,
            format!("{host} {namespace} other-boot {} {}", this.pid, this.start),
        );
        set(
            &reused,
            format!("{host} {namespace} {boot} {} {}", this.pid, this.start + 1),
        );
        // Another host's file in a shared directory, and another container's
        // (whose pids this process cannot see), are never judged.
        let foreign = dead.create(2).unwrap();
        set(&foreign, format!("elsewhere {namespace} other-boot 1 1"));
        let contained = dead.create(3).unwrap();
        set(&contained, format!("{host} pid:[1] {boot} 1 1"));
        let finder = ScratchDir::open(temp.path(), "bbbb0001").unwrap();
        let mut removed = finder.remove_dead_runs().unwrap();
        removed.sort();
        assert_eq!(
            removed,
            vec!["iolab-dead0001-0.dat", "iolab-dead0001-1.dat"]
        );
        assert!(file.path().exists(), "a live run's file stays");
        assert!(foreign.path().exists(), "another host's file stays");
        assert!(contained.path().exists(), "another container's file stays");
    }

    #[test]
    fn bad_directories_are_usage_errors() {
        let temp = tempfile::tempdir().unwrap();
        let missing = temp.path().join("missing");
        let error = ScratchDir::open(&missing, "x").unwrap_err().to_string();
        assert!(
            error.contains("does not exist") && error.contains("missing"),
            "{error}"
        );
        let file = temp.path().join("plain");
        std::fs::write(&file, b"").unwrap();
        let error = ScratchDir::open(&file, "x").unwrap_err().to_string();
        assert!(error.contains("not a directory"), "{error}");
    }
}
