//! Where a replay's I/O goes: a file iolab creates, sized to the trace (or to the wrap), laid out and evicted before the replay and removed after it — locally, or on an NFS export through a session's space; or a user's file, read only.

use crate::run::io::buffer::AlignedBuffer;
use crate::run::io::replay::created_length;
use crate::run::target::scratch::{ScratchDir, TargetFile};
use crate::trace::TraceSummary;
use rustix::fs::OFlags;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

/// Where the user asked the I/O to go.
#[derive(Clone, Debug)]
pub enum TargetChoice {
    /// A file iolab creates in this directory.
    Dir(PathBuf),
    /// The user's file, read only; or a block device, written only when
    /// `destroy_data` repeats its `/dev/NAME` and nothing lives on it.
    File {
        path: PathBuf,
        destroy_data: Option<PathBuf>,
    },
    /// No file: the null engine.
    Nothing,
}

/// A file a network session created for the replay, with the session
/// whose space (its marker, its connection) outlives it.
struct RemoteFile {
    /// The file made for the replay; `None` on a LUN (the session's own).
    file: Option<Box<dyn crate::run::target::Target>>,
    session: crate::run::Session,
}

/// The target, opened.
pub struct Target {
    /// On a network target: the file the session made (its I/O goes
    /// through its client's engine, not a descriptor).
    remote: Option<RemoteFile>,
    /// The scratch directory, which outlives the file.
    _dir: Option<ScratchDir>,
    file: Option<TargetFile>,
    /// The descriptor the replay uses (with O_DIRECT when asked).
    pub fd: Option<OwnedFd>,
    /// The target's length, bytes: offsets are wrapped into it when the
    /// trace reaches beyond (with `wrap`).
    pub length: u64,
    /// What it is, for the record: its path, or "null".
    pub shown: String,
    /// Whether iolab created it (and removes it).
    pub created: bool,
}

impl Target {
    /// Opens (or creates, lays out and evicts) the target for a trace of
    /// `summary`. `run_id` names a created file; `direct` adds O_DIRECT; a
    /// signal in `stop` ends the layout ([`TargetError::Interrupted`]).
    pub fn open(
        choice: &TargetChoice,
        summary: &TraceSummary,
        wrap: Option<u64>,
        run_id: &str,
        direct: bool,
        stop: &std::sync::atomic::AtomicUsize,
    ) -> Result<Target, TargetError> {
        use TargetError::{Failed, Refused};
        let extra = if direct {
            OFlags::DIRECT
        } else {
            OFlags::empty()
        };
        match choice {
            TargetChoice::Nothing => Ok(Target {
                remote: None,
                _dir: None,
                file: None,
                fd: None,
                length: wrap.unwrap_or(u64::MAX),
                shown: "null".into(),
                created: false,
            }),
            TargetChoice::File { path, destroy_data } => {
                let writes = summary.ios[1] + summary.ios[3];
                let device = crate::run::target::device::identify(path)
                    .map_err(|e| Refused(format!("--file {}: {e}", path.display())))?;
                if let Some(device) = device {
                    return Target::device(
                        path,
                        &device,
                        destroy_data.as_deref(),
                        writes,
                        summary,
                        wrap,
                        run_id,
                        extra,
                    );
                }
                if writes > 0 {
                    return Err(Refused(format!(
                        "--file {}: the trace writes or trims ({writes} I/Os) and iolab writes only files it creates: replay it onto --dir",
                        path.display()
                    )));
                }
                let (dir, name) = split(path).map_err(Refused)?;
                let scratch =
                    ScratchDir::open_given(dir, run_id).map_err(|e| Refused(e.to_string()))?;
                let file = scratch
                    .adopt(name, false)
                    .map_err(|e| Refused(e.to_string()))?;
                let length = file
                    .length()
                    .map_err(|e| Refused(format!("--file {}: {e}", path.display())))?;
                fit_within(wrap, length, &format!("--file {}", path.display()))?;
                let length = wrap.unwrap_or(length);
                if wrap.is_none() && summary.end > length {
                    return Err(Refused(format!(
                        "--file {}: the trace reaches byte {} and the file has {length}: give --wrap {length} to wrap the offsets into it",
                        path.display(),
                        summary.end
                    )));
                }
                let fd = file
                    .reopen_as(OFlags::RDONLY, extra)
                    .map_err(|e| Refused(opening(&path.display().to_string(), &e, direct)))?;
                Ok(Target {
                    remote: None,
                    shown: path.display().to_string(),
                    _dir: Some(scratch),
                    file: Some(file),
                    fd: Some(fd),
                    length,
                    created: false,
                })
            }
            TargetChoice::Dir(dir) => {
                let scratch = ScratchDir::open(dir, run_id).map_err(|e| Refused(e.to_string()))?;
                let _ = scratch.remove_dead_runs();
                let length = created_length(summary, wrap);
                let free = scratch.available_bytes().unwrap_or(u64::MAX);
                if length > free {
                    return Err(Refused(format!(
                        "--dir {}: the trace's file needs {length} bytes and {free} are free: give --wrap SIZE to wrap its offsets into a smaller file",
                        dir.display()
                    )));
                }
                let file = scratch
                    .create(0)
                    .map_err(|e| Failed(format!("--dir {}: {e}", dir.display())))?;
                let shown = file.path().display().to_string();
                let mut target = Target {
                    remote: None,
                    _dir: Some(scratch),
                    fd: None,
                    length,
                    shown,
                    created: true,
                    file: Some(file),
                };
                target.lay_out(stop)?;
                let file = target.file.as_ref().expect("created");
                let fd = file
                    .reopen(extra)
                    .map_err(|e| Refused(opening(&target.shown, &e, direct)))?;
                target.fd = Some(fd);
                Ok(target)
            }
        }
    }

    /// Opens the block device `device` (named `path`): read only, or with
    /// O_EXCL for a trace that writes once `--destroy-data` confirmed it.
    #[allow(clippy::too_many_arguments)]
    fn device(
        path: &Path,
        device: &crate::run::target::device::BlockDevice,
        destroy_data: Option<&Path>,
        writes: u64,
        summary: &TraceSummary,
        wrap: Option<u64>,
        run_id: &str,
        extra: OFlags,
    ) -> Result<Target, TargetError> {
        use TargetError::Refused;
        if writes > 0 {
            crate::run::target::device::check_writable(
                device,
                destroy_data,
                &format!("{}", path.display()),
            )
            .map_err(|e| Refused(format!("{e} (the trace writes or trims {writes} times)")))?;
        }
        let scratch = ScratchDir::open_given(Path::new("/dev"), run_id)
            .map_err(|e| Refused(e.to_string()))?;
        let file = scratch
            .adopt_device(&device.name, device, writes > 0)
            .map_err(|e| Refused(e.to_string()))?;
        fit_within(wrap, device.size, &format!("--file {}", path.display()))?;
        let length = wrap.unwrap_or(device.size);
        if wrap.is_none() && summary.end > length {
            return Err(Refused(format!(
                "--file {}: the trace reaches byte {} and the device has {length}: give --wrap {length} to wrap the offsets into it",
                path.display(),
                summary.end
            )));
        }
        let shown = device.path.display().to_string();
        let fd = file
            .reopen(extra)
            .map_err(|e| Refused(opening(&shown, &e, extra.contains(OFlags::DIRECT))))?;
        Ok(Target {
            remote: None,
            shown,
            _dir: Some(scratch),
            file: Some(file),
            fd: Some(fd),
            length,
            created: false,
        })
    }

    /// Writes the whole created file (1 MiB at a time), syncs it and
    /// evicts its pages, so the replay's reads find data on the device; a
    /// signal in `stop` ends it between two MiB.
    fn lay_out(&mut self, stop: &std::sync::atomic::AtomicUsize) -> Result<(), TargetError> {
        use TargetError::Failed;
        let file = self.file.as_ref().expect("created");
        let fd = file
            .reopen(OFlags::empty())
            .map_err(|e| Failed(format!("{}: {e}", self.shown)))?;
        let buffer = AlignedBuffer::with_data(1 << 20, 4096, 0x1010);
        let mut at = 0u64;
        while at < self.length {
            if stop.load(std::sync::atomic::Ordering::Relaxed) != 0 {
                return Err(TargetError::Interrupted);
            }
            let chunk = (self.length - at).min(1 << 20) as usize;
            let written = rustix::io::pwrite(&fd, &buffer.as_slice()[..chunk], at)
                .map_err(|e| Failed(format!("laying out {} at byte {at}: {e}", self.shown)))?;
            if written == 0 {
                return Err(Failed(format!(
                    "laying out {} at byte {at}: a short write",
                    self.shown
                )));
            }
            at += written as u64;
        }
        rustix::fs::fsync(&fd).map_err(|e| Failed(format!("syncing {}: {e}", self.shown)))?;
        rustix::fs::fadvise(&fd, 0, None, rustix::fs::Advice::DontNeed)
            .map_err(|e| Failed(format!("evicting {}: {e}", self.shown)))?;
        Ok(())
    }

    /// The LUN `session` measures (`--target iscsi://…`), as it is: never
    /// laid out nor removed, written only as the session was consented.
    pub fn on_lun(session: crate::run::Session) -> Result<Target, TargetError> {
        let lun = session
            .lun()
            .ok_or_else(|| TargetError::Failed("the session holds no LUN".into()))?;
        let length = lun
            .length()
            .map_err(|e| TargetError::Failed(format!("{}: {e}", lun.path().display())))?;
        let shown = lun.path().display().to_string();
        Ok(Target::remote(session, length, shown, false))
    }

    /// A target reached through `session`'s client, its file (if one is
    /// made for the replay) not yet set.
    fn remote(session: crate::run::Session, length: u64, shown: String, created: bool) -> Target {
        Target {
            remote: Some(RemoteFile {
                file: None,
                session,
            }),
            _dir: None,
            file: None,
            fd: None,
            length,
            shown,
            created,
        }
    }

    /// A file created for a trace of `summary` (sized as on a local file system)
    /// in `session`'s space on a network target, laid out through it and
    /// removed by identity after the replay, as `run` does its files there.
    pub fn on_session(
        session: crate::run::Session,
        summary: &TraceSummary,
        wrap: Option<u64>,
        interrupt: &std::sync::atomic::AtomicUsize,
    ) -> Result<Target, TargetError> {
        let length = created_length(summary, wrap);
        // As on a local directory: the export's room checked before a byte
        // is written, so a replay never fills a server others share.
        session
            .check_free_space(length, 1)
            .map_err(|error| match error {
                crate::run::RunError::Usage(usage) => TargetError::Refused(usage.to_string()),
                other => TargetError::Failed(other.to_string()),
            })?;
        let file = session.dir().create(0).map_err(TargetError::Failed)?;
        let shown = file.path().display().to_string();
        let mut target = Target::remote(session, length, shown.clone(), true);
        let fill = crate::run::site::prepare::Fill {
            seed: 0x1010,
            data: crate::plan::data::DataPattern::default(),
            bs: 1 << 20,
            seal: None,
        };
        let laid = file
            .set_length(length)
            .and_then(|()| file.lay_out(0, length, fill, interrupt));
        if let Some(remote) = target.remote.as_mut() {
            remote.file = Some(file);
        }
        laid.map_err(|e| {
            if interrupt.load(std::sync::atomic::Ordering::Relaxed) != 0 {
                TargetError::Interrupted
            } else {
                TargetError::Failed(format!("laying out {shown}: {e}"))
            }
        })?;
        Ok(target)
    }

    /// Where the replay loop issues: this target's descriptor or client,
    /// its length and name.
    pub fn site(&self) -> crate::run::io::replay::Site<'_> {
        crate::run::io::replay::Site {
            fd: self.fd(),
            client: self.client(),
            length: self.length,
            shown: &self.shown,
        }
    }

    /// The network client the I/O goes through, on a network target: the
    /// created file's, or the session's LUN's.
    pub fn client(&self) -> Option<&dyn crate::run::io::client::ClientJob> {
        let remote = self.remote.as_ref()?;
        match &remote.file {
            Some(file) => file.client(),
            None => remote.session.lun()?.client(),
        }
    }

    /// The descriptor, when there is a file.
    pub fn fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        self.fd.as_ref().map(|fd| fd.as_fd())
    }

    /// Removes a created file (checked to be the one created); a given
    /// file is left alone. What became of it.
    pub fn release(mut self, keep: bool) -> Result<Released, String> {
        self.fd = None;
        if let Some(file) = self.remote.as_mut().and_then(|r| r.file.take()) {
            // The space checks its identity and says what it left.
            file.release(keep);
            return Ok(if keep {
                Released::Kept
            } else {
                Released::Removed
            });
        }
        match self.file.take() {
            Some(file) if self.created && !keep => {
                let now_at = file.now_at();
                match file.remove() {
                    Ok(true) => Ok(Released::Removed),
                    Ok(false) => {
                        // Something else wrote where the replay measured.
                        crate::run::target::note_left_in_place();
                        Ok(Released::Replaced {
                            moved_to: now_at.filter(|at| *at != Path::new(&self.shown)),
                        })
                    }
                    Err(e) => Err(format!("removing {}: {e}", self.shown)),
                }
            }
            Some(file) if keep => {
                file.disown();
                Ok(Released::Kept)
            }
            _ => Ok(Released::NotOurs),
        }
    }
}

/// What became of a replay's target at its end.
#[derive(Debug, PartialEq, Eq)]
pub enum Released {
    /// The file iolab created, removed.
    Removed,
    /// Kept on request (`--keep`), disowned.
    Kept,
    /// The user's file or device, or nothing: left as it is.
    NotOurs,
    /// Its name held another file at the end, left in place (the run then
    /// exits 1); iolab's own file, if it was moved rather than deleted, is
    /// now at `moved_to` and keeps its owner tag.
    Replaced { moved_to: Option<PathBuf> },
}

impl Released {
    /// The warning for a target whose name another file took, naming
    /// where iolab's own went.
    pub fn warning(&self, shown: &str) -> Option<String> {
        let Released::Replaced { moved_to } = self else {
            return None;
        };
        Some(match moved_to {
            Some(at) => format!(
                "{shown} was replaced during the replay and left in place; the file iolab created is now {} (remove it once nothing uses it)",
                at.display()
            ),
            None => format!(
                "{shown} was replaced during the replay and left in place; the file iolab created is gone"
            ),
        })
    }
}

impl Drop for Target {
    /// A created file not released (a refusal or a failure on the way) is
    /// removed, checked to be the one created.
    fn drop(&mut self) {
        self.fd = None;
        if let Some(file) = self.remote.as_mut().and_then(|r| r.file.take()) {
            file.release(false);
        }
        if let Some(file) = self.file.take() {
            if self.created {
                let _ = file.remove();
            }
        }
    }
}

/// Why a target could not be had: bad input (nothing written), or a
/// failure on the way (laying out the file).
#[derive(Debug)]
pub enum TargetError {
    Refused(String),
    Failed(String),
    /// A signal came while the file was laid out; it is removed.
    Interrupted,
}

/// Refuses a `--wrap` beyond the user's file or device of `length` bytes
/// (it would have wrapped into less than was asked, silently), and a
/// target with no bytes to replay onto (`/dev/zero`, an empty file).
fn fit_within(wrap: Option<u64>, length: u64, shown: &str) -> Result<(), TargetError> {
    if length == 0 {
        return Err(TargetError::Refused(format!(
            "{shown} has no bytes to replay onto (its length is 0)"
        )));
    }
    match wrap {
        Some(wrap) if wrap > length => Err(TargetError::Refused(format!(
            "--wrap {wrap} is beyond {shown}'s {length} bytes: give --wrap {length} or less"
        ))),
        _ => Ok(()),
    }
}

/// Why `shown` would not open; O_DIRECT's refusal says what to do.
fn opening(shown: &str, error: &std::io::Error, direct: bool) -> String {
    if direct && error.raw_os_error() == Some(libc::EINVAL) {
        format!("{shown}: its file system takes no O_DIRECT; replay with --buffered")
    } else {
        format!("{shown}: {error}")
    }
}

/// A path's directory and file name.
fn split(path: &Path) -> Result<(&Path, &std::ffi::OsStr), String> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("--file {} names no file", path.display()))?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((dir, name))
}
