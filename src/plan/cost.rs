//! What a plan will cost before it runs: the bytes its one-pass points move, with their layouts, the time of its time-based points, and the largest file set one point needs.

use super::{PlannedPoint, SyncMode, Workload};

/// What a plan will cost before it runs: the data its one-pass points move,
/// everything moved with the untimed layouts, the time of its time-based
/// points, and the largest file set it needs at once.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// Bytes the one-pass points read or write (every repetition, at most).
    pub one_pass_bytes: u128,
    /// The same with the untimed layouts of files to be read.
    pub moved_bytes: u128,
    /// Seconds of timed I/O and ramps of the time-based points.
    pub timed_s: f64,
    /// The largest set of scratch files one point needs, bytes.
    pub largest_bytes: u64,
    /// Some repetitions are adaptive (`--until-ci`): the figures are bounds.
    pub adaptive: bool,
    /// Seconds the one-pass points and the layouts take at [`ASSUMED_BPS`],
    /// or, for O_DIRECT and synced I/O, at [`ASSUMED_DEVICE_IOPS`] when
    /// their I/Os are too small for the bandwidth to be the limit.
    pub one_pass_s: f64,
}

/// The speed [`Cost::seconds`] assumes for one-pass points: a modest disk.
pub const ASSUMED_BPS: f64 = 100.0 * 1_048_576.0;

/// The I/Os a second [`Cost::seconds`] assumes for O_DIRECT and synced I/O,
/// each of which waits for the device: 512-byte O_DIRECT writes ran at
/// about 8,000 a second on this project's virtio disk, and a buffered
/// estimate of them (bytes at 100 MiB/s) was off by more than twice for
/// `dd-blocksize`. Buffered I/O is taken at the bandwidth alone.
pub const ASSUMED_DEVICE_IOPS: f64 = 10_000.0;

impl Cost {
    /// Seconds the plan takes: its one-pass points and layouts at
    /// [`ASSUMED_BPS`] (at [`ASSUMED_DEVICE_IOPS`] for O_DIRECT or synced
    /// I/Os too small for the bandwidth to bind), plus its time-based
    /// points. The device's real speed is not known before it is measured.
    pub fn seconds(&self) -> f64 {
        self.one_pass_s + self.timed_s
    }
}

/// The cost of `points` (see [`Cost`]).
pub fn cost(points: &[PlannedPoint]) -> Cost {
    let mut cost = Cost::default();
    for point in points {
        // A point of groups holds every group's files at once, and its
        // time is its longest group's.
        let workloads: Vec<&Workload> = point.workloads().collect();
        let files: u64 = workloads
            .iter()
            .map(|w| w.size.saturating_mul(u64::from(w.jobs)))
            .fold(0, u64::saturating_add);
        cost.largest_bytes = cost.largest_bytes.max(files);
        let timed = workloads
            .iter()
            .filter_map(|w| w.runtime_s.map(|runtime| runtime + w.ramp_s))
            .fold(None, |longest: Option<f64>, s| {
                Some(longest.map_or(s, |l| l.max(s)))
            });
        let w = point.workload();
        let repetitions = u128::from(w.warmup + w.max_repeat.unwrap_or(w.repeat).max(w.repeat));
        cost.adaptive |= w.until_ci.is_some();
        if let Some(seconds) = timed {
            cost.timed_s += seconds * repetitions as f64;
        }
        for w in workloads {
            let per_job = match w.io_size {
                Some(bytes) => u128::from(bytes),
                None => u128::from(w.size) * u128::from(w.loops),
            };
            let per_repetition = per_job * u128::from(w.jobs);
            if w.runtime_s.is_none() {
                cost.one_pass_bytes += per_repetition * repetitions;
                cost.moved_bytes += per_repetition * repetitions;
                let moved = (per_repetition * repetitions) as f64;
                let waits = w.direct || w.sync != SyncMode::None || w.fsync_every > 0;
                let ios = moved / w.bs.max(1) as f64;
                let seconds = if waits {
                    (moved / ASSUMED_BPS).max(ios / ASSUMED_DEVICE_IOPS)
                } else {
                    moved / ASSUMED_BPS
                };
                // Groups of one pass run at once: their sum bounds the point.
                cost.one_pass_s += if timed.is_none() { seconds } else { 0.0 };
            }
            if w.op.needs_layout() {
                cost.moved_bytes += per_repetition; // the untimed layout, at most once per file set
                cost.one_pass_s += per_repetition as f64 / ASSUMED_BPS;
            }
        }
    }
    cost
}
