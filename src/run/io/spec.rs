//! What one job's loop is asked to do ([`LoopSpec`]), one I/O as drawn (`Io`), and how a failed I/O is told ([`IoFailure`], and the failures of each kind the loops report): the loops, the recorder and the network clients all name these, and this file names none of them.

use crate::plan::Pattern;
use crate::plan::data::DataPattern;
use crate::plan::direction::{Direction, DirectionMix};
use crate::plan::pace::Pace;
use crate::plan::split::BlockSplit;
use std::fmt;
use std::io;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

/// What one job's loop does.
#[derive(Clone, Copy, Debug)]
pub struct LoopSpec<'a> {
    /// The directions of its I/Os, drawn per I/O from `seed`.
    pub directions: DirectionMix,
    /// Bytes per I/O; with a block-size split, its smallest size, the grid
    /// I/Os start on.
    pub bs: u64,
    /// A block-size split: each I/O's length drawn from it, per I/O (a
    /// mix with `write_sizes`: the reads').
    pub sizes: Option<BlockSplit>,
    /// A mix's writes' own sizes (`--write-bs`): each direction then walks
    /// the file on its own grid, its smallest size.
    pub write_sizes: Option<BlockSplit>,
    /// Each drawn range is trimmed and then written (`op trimwrite`):
    /// the directions alternate, each write on its trim's range.
    pub trim_then_write: bool,
    /// A queued job issues no I/O overlapping one in flight
    /// (`--serialize-overlap`).
    pub serialize_overlap: bool,
    /// Blocks in the file.
    pub blocks: u64,
    /// Independent random draws lie on multiples of this many blocks
    /// (`--align`; 1: any block).
    pub align_blocks: u64,
    /// Byte offset of block 0: 0, or the job's region of a shared file.
    pub base: u64,
    /// Visiting order.
    pub pattern: Pattern,
    /// Seed of the pattern.
    pub seed: u64,
    /// This job's number and the jobs of its group, for data shared
    /// between them (a global dedupe working set).
    pub job: (u32, u32),
    /// Time-based length; `None` = `passes` passes.
    pub runtime: Option<Duration>,
    /// Passes over the blocks without a runtime (`--loops`; 1 untimed).
    pub passes: u64,
    /// Without a runtime: the blocks (of `bs`) the timed region moves
    /// (`--io-size`), over as many passes as that takes.
    pub io_blocks: Option<u64>,
    /// Without a runtime: the longest the timed region lasts
    /// (`--time-limit`), its passes ending it sooner.
    pub time_limit: Option<Duration>,
    /// A wait before the first I/O (`--start-delay`), outside every figure.
    pub start_delay: Duration,
    /// Unmeasured lead-in.
    pub ramp: Duration,
    /// io_uring: requests per submitting system call.
    pub batch: u32,
    /// fsync after this many writes; 0 = never.
    pub fsync_every: u64,
    /// The syncs of `fsync_every` are fdatasync (`--fsync-data`).
    pub fsync_data: bool,
    /// fsync at the end, inside the timed region.
    pub fsync_end: bool,
    /// Time-series interval.
    pub interval: Duration,
    /// The job's `iodepth`: the requests a queued engine keeps in flight,
    /// and the deepest a latency target's search goes on any engine.
    pub iodepth: u32,
    /// Completions a queued job handles per reaping pass at most (0: all
    /// it finds); the rest stay in flight for the next pass.
    pub reap: u32,
    /// A latency target: the depth searched for, the figures those of the
    /// window measured at the depth found (`run/io/depth_search.rs`).
    pub latency_target: Option<crate::plan::latency_target::LatencyTarget>,
    /// I/O priorities: the shares of a queued job's I/Os that carry one of
    /// their own (the thread's is set before the loop starts).
    pub priority: Option<&'a crate::plan::priority::Priority>,
    /// The most intervals kept before neighbours are merged and the interval
    /// doubles (even; see [`super::recorder::intervals_kept_per_job`]).
    pub max_intervals: usize,
    /// Set by SIGINT/SIGTERM, or to [`crate::run::signals::STEADY_STOP`] when every job is steady.
    pub interrupt: &'a AtomicUsize,
    /// The file, for error messages.
    pub file: &'a str,
    /// With `--verify`: the run's tag, sealed into every written block.
    pub verify: Option<u64>,
    /// With `verify`: each run of this many writes is read back and
    /// checked as soon as it is written, inside the timed region (fio's
    /// `verify_backlog`); 0: only the check after the timed region.
    pub verify_backlog: u64,
    /// With `verify`: the blocks written are tracked for the check after
    /// the timed region (a mix, or writes that may skip blocks).
    pub verify_tracks_writes: bool,
    /// The shape of the data written (`--data`): how each write is stamped.
    pub data: DataPattern,
    /// When its I/Os are issued: as fast as they go, at a rate, with think time.
    pub pace: Pace,
    /// A network engine's connection, whose TCP counters each interval
    /// records when it closes (the cold path: one `getsockopt` per interval).
    pub socket: Option<rustix::fd::BorrowedFd<'a>>,
}

impl LoopSpec<'_> {
    /// Where this job's written data lies among the jobs that share it.
    pub fn data_share(&self) -> crate::plan::data::DataShare {
        crate::plan::data::DataShare {
            job: self.job.0,
            jobs: self.job.1,
            blocks: self.blocks,
        }
    }

    /// The system call the syncs of `fsync_every` make, as a failure names it.
    pub fn sync_call(&self) -> &'static str {
        if self.fsync_data {
            "fdatasync"
        } else {
            "fsync"
        }
    }
}

/// One I/O as drawn: where, how long, which way.
#[derive(Clone, Copy, Debug)]
pub(in crate::run) struct Io {
    /// Its first block (of `bs` bytes).
    pub(in crate::run) block: u64,
    /// Its length in blocks: 1 unless a block-size split drew more.
    pub(in crate::run) blocks: u64,
    pub(in crate::run) direction: Direction,
    /// A trim that resets an emulated zone (`--zbd`): done by the zone
    /// table alone, no command to the target, as fio's emulation does.
    pub(in crate::run) zone_reset: bool,
}

/// A failed or short I/O, with everything needed to find it.
#[derive(Debug)]
pub struct IoFailure {
    /// "read", "write" or "fsync".
    pub action: &'static str,
    /// The file's path.
    pub file: String,
    /// Byte offset of the I/O.
    pub offset: u64,
    /// Bytes asked for.
    pub bs: u64,
    /// Bytes moved, for a short transfer.
    pub moved: Option<u64>,
    /// The error, for a failed call.
    pub error: Option<io::Error>,
}

impl fmt::Display for IoFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.error, self.moved) {
            // Setting up moves no bytes: no size or offset to name.
            (Some(error), _) if self.bs == 0 => {
                write!(f, "{} for {} failed: {}", self.action, self.file, error)?;
                match error.raw_os_error() {
                    Some(errno) => write!(f, " (errno {})", errno_name(errno)),
                    None => Ok(()),
                }
            }
            (Some(error), _) => {
                write!(
                    f,
                    "{} of {} bytes at offset {} in {} failed: {}",
                    self.action, self.bs, self.offset, self.file, error,
                )?;
                // An engine's own message (a SCSI sense key, an NFS status) has no errno.
                match error.raw_os_error() {
                    Some(errno) => write!(f, " (errno {})", errno_name(errno)),
                    None => Ok(()),
                }
            }
            (None, moved) => write!(
                f,
                "short {}: {} of {} bytes at offset {} in {}",
                self.action,
                moved.unwrap_or(0),
                self.bs,
                self.offset,
                self.file
            ),
        }
    }
}

/// The queue could not be waited on: the loop stops with its requests'
/// buffers still allocated by the caller (the kernel may use them).
pub(in crate::run) fn wait_failure(spec: &LoopSpec<'_>, error: io::Error) -> IoFailure {
    fsync_failure(spec, error, "wait for completions")
}

pub(in crate::run) fn fsync_failure(
    spec: &LoopSpec<'_>,
    error: io::Error,
    action: &'static str,
) -> IoFailure {
    IoFailure {
        action,
        file: spec.file.to_string(),
        offset: 0,
        bs: 0,
        moved: None,
        error: Some(error),
    }
}

/// A latency target missed at depth 1 with a percentile of 100, by the
/// I/O `(direction, offset, len)` that took `latency_ns`: fio ends the job
/// ("max latency exceeded"), and so does iolab.
pub(in crate::run) fn latency_failure(
    spec: &LoopSpec<'_>,
    io: (Direction, u64, u64),
    latency_ns: u64,
) -> IoFailure {
    let target = spec.latency_target.map_or(0, |target| target.target_ns);
    let error = io::Error::new(
        io::ErrorKind::TimedOut,
        format!(
            "it took {:.1} us, over the latency target of {} at depth 1, where the search cannot go lower (fio: max latency exceeded)",
            latency_ns as f64 / 1e3,
            crate::plan::units::format_duration_ns(target),
        ),
    );
    transfer_failure(spec, io, None, Some(error))
}

/// The failure of the I/O `(direction, offset, len)`: short (`moved`) or failed (`error`).
pub(in crate::run) fn transfer_failure(
    spec: &LoopSpec<'_>,
    (direction, offset, len): (Direction, u64, u64),
    moved: Option<u64>,
    error: Option<io::Error>,
) -> IoFailure {
    IoFailure {
        action: direction.name(),
        file: spec.file.to_string(),
        offset,
        bs: len,
        moved,
        error,
    }
}

/// The symbolic name of an errno value, such as `EIO`.
pub fn errno_name(errno: i32) -> String {
    let name = match errno {
        libc::EIO => "EIO",
        libc::ENOSPC => "ENOSPC",
        libc::EINVAL => "EINVAL",
        libc::EROFS => "EROFS",
        libc::EFBIG => "EFBIG",
        libc::EDQUOT => "EDQUOT",
        libc::EBADF => "EBADF",
        libc::EFAULT => "EFAULT",
        libc::EAGAIN => "EAGAIN",
        libc::EINTR => "EINTR",
        libc::ENOMEM => "ENOMEM",
        libc::EPERM => "EPERM",
        libc::EACCES => "EACCES",
        libc::EOPNOTSUPP => "EOPNOTSUPP",
        libc::ENXIO => "ENXIO",
        libc::ESTALE => "ESTALE",
        _ => return errno.to_string(),
    };
    name.to_string()
}
