//! What a plan will cost before it runs: the bytes its one-pass points move, with their layouts, the time of its time-based points, and the largest file set one point needs.

use super::trace::{TraceCost, TracePath, TraceSpeed};
use super::{PlannedPoint, SyncMode, Workload};
use serde::{Deserialize, Serialize};

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
    /// Seconds the one-pass points and the layouts take at [`Speeds`].
    pub one_pass_s: f64,
    /// Some of those seconds come from speeds measured on the device.
    pub measured: bool,
}

/// The speed [`Cost::seconds`] assumes for one-pass points when nothing
/// was measured on the device: a modest disk.
pub const ASSUMED_BPS: f64 = 100.0 * 1_048_576.0;

/// The I/Os a second [`Cost::seconds`] assumes for O_DIRECT and synced I/O,
/// each of which waits for the device, when nothing was measured: 512-byte
/// O_DIRECT writes ran at about 8,000 a second on this project's virtio
/// disk, and a buffered estimate of them (bytes at 100 MiB/s) was off by
/// more than twice for `dd-blocksize`. Buffered I/O is taken at the
/// bandwidth alone.
pub const ASSUMED_DEVICE_IOPS: f64 = 10_000.0;

/// What one kind of I/O ran at on a device: bytes and I/Os a second.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Speed {
    /// Bytes a second.
    pub bps: f64,
    /// I/Os a second.
    pub iops: f64,
    /// The size of those I/Os, bytes.
    pub bs: u64,
}

/// The kinds of I/O whose speeds differ by an order of magnitude on one
/// device: reads or writes, each through the page cache or waiting for the
/// device (O_DIRECT, synced).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    BufferedRead,
    BufferedWrite,
    WaitingRead,
    WaitingWrite,
}

impl Kind {
    /// The kind of `workload`'s I/O (a mix by whether it writes).
    pub fn of(workload: &Workload) -> Kind {
        let waits = workload.direct || workload.sync != SyncMode::None || workload.fsync_every > 0;
        let writes = workload.op.writes() || workload.directions().writes();
        match (waits, writes) {
            (false, false) => Kind::BufferedRead,
            (false, true) => Kind::BufferedWrite,
            (true, false) => Kind::WaitingRead,
            (true, true) => Kind::WaitingWrite,
        }
    }

    fn place(self) -> usize {
        self as usize
    }
}

/// The speeds measured on one device, by [`Kind`], that estimates use in
/// place of [`ASSUMED_BPS`] and [`ASSUMED_DEVICE_IOPS`]: the last one-pass
/// point of each kind (kept by the app between runs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Speeds {
    /// By [`Kind`] in declaration order.
    pub kinds: [Option<Speed>; 4],
}

impl Speeds {
    /// The speed measured for `kind`, if any.
    pub fn of(&self, kind: Kind) -> Option<Speed> {
        self.kinds[kind.place()]
    }

    /// Keeps `rate` as `kind`'s speed.
    pub fn learn(&mut self, kind: Kind, rate: Speed) {
        if rate.bps.is_finite() && rate.bps > 0.0 && rate.iops.is_finite() && rate.iops > 0.0 {
            self.kinds[kind.place()] = Some(rate);
        }
    }

    /// Seconds to move `bytes` in I/Os of `bs` bytes of `kind`: at the
    /// measured speed, else at the assumed. I/Os that wait for the device
    /// and are smaller than the measured ones are taken at its I/Os a
    /// second (each waits about as long); otherwise the bandwidth binds.
    fn seconds(&self, kind: Kind, bytes: f64, bs: u64) -> f64 {
        let ios = bytes / bs.max(1) as f64;
        let waits = matches!(kind, Kind::WaitingRead | Kind::WaitingWrite);
        match self.of(kind) {
            Some(rate) if waits && bs < rate.bs => (bytes / rate.bps).max(ios / rate.iops),
            Some(rate) => bytes / rate.bps,
            None if waits => (bytes / ASSUMED_BPS).max(ios / ASSUMED_DEVICE_IOPS),
            None => bytes / ASSUMED_BPS,
        }
    }
}

/// Adds a trace point's repetitions to `cost`: each lays out the trace's
/// file (buffered writes in large blocks) and replays the trace in its
/// time at its speed, or as fast as possible at the device's speed.
fn trace_cost(cost: &mut Cost, w: &Workload, trace: Option<TraceCost>, speeds: &Speeds) {
    let Some(trace) = trace else {
        return;
    };
    let repetitions = f64::from(w.warmup + w.repeat);
    cost.largest_bytes = cost.largest_bytes.max(trace.file_bytes);
    let bytes = u128::from(trace.bytes) * u128::from(w.warmup + w.repeat);
    cost.one_pass_bytes += bytes;
    cost.moved_bytes += bytes + u128::from(trace.file_bytes) * u128::from(w.warmup + w.repeat);
    cost.measured |= speeds.of(Kind::BufferedWrite).is_some();
    let layout = speeds.seconds(Kind::BufferedWrite, trace.file_bytes as f64, 1 << 20);
    let replay = match w.trace_speed {
        TraceSpeed::Times(factor) => trace.duration_s / factor,
        TraceSpeed::Afap => speeds.seconds(Kind::of(w), trace.bytes as f64, 4096),
    };
    cost.one_pass_s += (layout + replay) * repetitions;
}

impl Cost {
    /// Seconds the plan takes: its one-pass points and layouts at the
    /// device's measured speeds or the assumed ones (see [`Speeds`]), plus
    /// its time-based points.
    pub fn seconds(&self) -> f64 {
        self.one_pass_s + self.timed_s
    }
}

/// The cost of `points` (see [`Cost`]) at `speeds`; a trace point's from
/// what `traces` says of its trace (`None`: not readable, refused when it
/// runs).
pub fn cost(
    points: &[PlannedPoint],
    speeds: &Speeds,
    traces: &dyn Fn(TracePath) -> Option<TraceCost>,
) -> Cost {
    let mut cost = Cost::default();
    for point in points {
        let w = point.workload();
        if let Some(trace) = w.trace {
            trace_cost(&mut cost, w, traces(trace), speeds);
            continue;
        }
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
            let kind = Kind::of(w);
            if w.runtime_s.is_none() {
                cost.measured |= speeds.of(kind).is_some();
                cost.one_pass_bytes += per_repetition * repetitions;
                cost.moved_bytes += per_repetition * repetitions;
                let moved = (per_repetition * repetitions) as f64;
                let seconds = speeds.seconds(kind, moved, w.bs);
                // Groups of one pass run at once: their sum bounds the point.
                cost.one_pass_s += if timed.is_none() { seconds } else { 0.0 };
            }
            if w.op.needs_layout() {
                // The untimed layout, at most once per file set: buffered
                // writes in large blocks.
                cost.moved_bytes += per_repetition;
                cost.measured |= speeds.of(Kind::BufferedWrite).is_some();
                cost.one_pass_s +=
                    speeds.seconds(Kind::BufferedWrite, per_repetition as f64, 1 << 20);
            }
        }
    }
    cost
}
