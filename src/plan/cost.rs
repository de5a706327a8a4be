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
    /// Seconds every repetition costs beyond its timed I/O (files made,
    /// caches evicted and checked, counters read), as measured here.
    pub overhead_s: f64,
    /// Seconds the run itself costs, once, beyond its points (probing the
    /// environment, checks, writing the result), as measured here.
    pub run_s: f64,
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

/// The fixed part of one I/O's time assumed where one block size was
/// measured and another is asked: a device's access for I/O that waits
/// for it ([`ASSUMED_DEVICE_IOPS`]'s), a system call's for buffered I/O.
const ASSUMED_WAIT_S: f64 = 1.0 / ASSUMED_DEVICE_IOPS;
const ASSUMED_CALL_S: f64 = 2e-6;

/// Seconds a repetition is assumed to cost beyond its timed I/O where none
/// was measured on the device (files made, caches evicted, counters read).
pub const ASSUMED_REPETITION_OVERHEAD_S: f64 = 0.02;

/// Seconds one metadata operation (a create, stat, rename…) is assumed
/// to take on a local file system.
const ASSUMED_METADATA_OP_S: f64 = 30e-6;

/// The most block sizes kept per kind.
const MAX_SIZES: usize = 24;

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

impl Speed {
    /// Seconds one I/O took.
    fn per_io(&self) -> f64 {
        1.0 / self.iops
    }

    /// This speed and a newer one at the same size, taken together: their
    /// geometric mean, so that one run on a device whose cache below swung
    /// (a cold read served by the host's cache, then by its disk) moves the
    /// estimate half way, not all the way.
    fn with(self, newer: Speed) -> Speed {
        Speed {
            bps: (self.bps * newer.bps).sqrt(),
            iops: (self.iops * newer.iops).sqrt(),
            bs: newer.bs,
        }
    }
}

/// A cost learned before and a newer one, taken together (their mean; speeds take their geometric mean).
pub fn blend(older: Option<f64>, newer: f64) -> f64 {
    match older {
        Some(older) if older.is_finite() => (older + newer) / 2.0,
        _ => newer,
    }
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
    /// The kind of `workload`'s I/O (a mix by whether it writes). A read
    /// opened O_SYNC does not wait for the device (Linux ignores O_SYNC on
    /// reads); O_DIRECT makes it, and so does a cold cache: its buffered
    /// reads come from the device.
    pub fn of(workload: &Workload) -> Kind {
        let writes = workload.op.writes() || workload.directions().writes();
        let syncs = workload.sync != SyncMode::None || workload.fsync_every > 0;
        let cold = matches!(
            workload.cache,
            super::CacheMode::Cold | super::CacheMode::Drop
        );
        let waits = workload.direct || (writes && syncs) || (!writes && cold);
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

    fn waits(self) -> bool {
        matches!(self, Kind::WaitingRead | Kind::WaitingWrite)
    }
}

/// The speeds measured on one device, by [`Kind`] and block size, that
/// estimates use in place of [`ASSUMED_BPS`] and [`ASSUMED_DEVICE_IOPS`]
/// (kept by the app between runs), and what a repetition costs beyond its
/// timed I/O there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Speeds {
    /// By [`Kind`] in declaration order: the last speed measured at each
    /// block size, smallest first.
    #[serde(default)]
    pub by_size: [Vec<Speed>; 4],
    /// Seconds a repetition took beyond its timed I/O (files made and
    /// removed, caches evicted and checked, counters read) by the bytes of
    /// its files, the last measured at each size, smallest first (points
    /// that lay nothing out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub overhead_by_size: Vec<Overhead>,
    /// Seconds the last run on the host took beyond its points (probing
    /// the environment, checks, writing the result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_overhead_s: Option<f64>,
}

/// What a repetition cost beyond its timed I/O, for files of one size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overhead {
    /// The bytes of the point's files (size × jobs).
    pub bytes: u64,
    /// Seconds per repetition.
    pub seconds: f64,
}

/// `y` at `x` on the line through the two known points around it (or the
/// nearest two outside them), never below `floor(nearest x, its y)`: how
/// speeds and overheads measured at a few sizes are read at another.
fn on_line(known: &[(f64, f64)], x: f64, floor: impl Fn(f64, f64) -> f64) -> f64 {
    let after = known
        .partition_point(|&(at, _)| at < x)
        .clamp(1, known.len() - 1);
    let ((x0, y0), (x1, y1)) = (known[after - 1], known[after]);
    let slope = ((y1 - y0) / (x1 - x0).max(1.0)).max(0.0);
    (y0 + (x - x0) * slope).max(floor(x0, y0))
}

impl Speeds {
    /// Whether anything was measured for `kind`.
    pub fn of(&self, kind: Kind) -> bool {
        !self.by_size[kind.place()].is_empty()
    }

    /// Keeps `rate` as `kind`'s speed at its block size, taken together
    /// with the one learned there before.
    pub fn learn(&mut self, kind: Kind, rate: Speed) {
        if !(rate.bps.is_finite() && rate.bps > 0.0 && rate.iops.is_finite() && rate.iops > 0.0) {
            return;
        }
        let sizes = &mut self.by_size[kind.place()];
        match sizes.binary_search_by_key(&rate.bs, |s| s.bs) {
            Ok(at) => sizes[at] = sizes[at].with(rate),
            Err(at) => sizes.insert(at, rate),
        }
        if sizes.len() > MAX_SIZES {
            // The size furthest from the new one goes.
            let far = if sizes[0].bs.abs_diff(rate.bs) > sizes[sizes.len() - 1].bs.abs_diff(rate.bs)
            {
                0
            } else {
                sizes.len() - 1
            };
            sizes.remove(far);
        }
    }

    /// Seconds one I/O of `bs` bytes of `kind` takes: a fixed part and a
    /// part per byte (t = L + bs / B), on the line through the two measured
    /// sizes around `bs` (or the nearest two outside them); with one size
    /// measured, its time split at an assumed fixed part (a device access,
    /// or a system call for buffered I/O); with none, the assumed speeds.
    fn per_io(&self, kind: Kind, bs: u64) -> f64 {
        let sizes = &self.by_size[kind.place()];
        let bs_f = bs.max(1) as f64;
        let fixed = if kind.waits() {
            ASSUMED_WAIT_S
        } else {
            ASSUMED_CALL_S
        };
        match sizes.as_slice() {
            [] if kind.waits() => (bs_f / ASSUMED_BPS).max(1.0 / ASSUMED_DEVICE_IOPS),
            [] => bs_f / ASSUMED_BPS,
            [only] => {
                let measured = only.per_io();
                let fixed = fixed.min(0.9 * measured);
                fixed + bs_f * (measured - fixed) / only.bs.max(1) as f64
            }
            _ => {
                let known: Vec<(f64, f64)> =
                    sizes.iter().map(|s| (s.bs as f64, s.per_io())).collect();
                // A larger I/O never takes less than a smaller measured one;
                // a smaller one at least a tenth of the smallest measured.
                on_line(
                    &known,
                    bs_f,
                    |at, time| {
                        if bs_f >= at { time } else { 0.1 * time }
                    },
                )
            }
        }
    }

    /// Keeps what a repetition with files of `bytes` cost beyond its
    /// timed I/O, taken together with the one learned at that size before.
    pub fn learn_overhead(&mut self, bytes: u64, seconds: f64) {
        if !(seconds.is_finite() && seconds >= 0.0) {
            return;
        }
        let known = &mut self.overhead_by_size;
        let overhead = Overhead { bytes, seconds };
        match known.binary_search_by_key(&bytes, |o| o.bytes) {
            Ok(at) => known[at].seconds = blend(Some(known[at].seconds), seconds),
            Err(at) => known.insert(at, overhead),
        }
        if known.len() > MAX_SIZES {
            let first_further =
                known[0].bytes.abs_diff(bytes) > known[known.len() - 1].bytes.abs_diff(bytes);
            let far = if first_further { 0 } else { known.len() - 1 };
            known.remove(far);
        }
    }

    /// Seconds a repetition with files of `bytes` costs beyond its timed
    /// I/O: on the line through the sizes measured around it, the one
    /// measured where only one was, else [`ASSUMED_REPETITION_OVERHEAD_S`].
    fn overhead(&self, bytes: u64) -> f64 {
        match self.overhead_by_size.as_slice() {
            [] => ASSUMED_REPETITION_OVERHEAD_S,
            [only] => only.seconds,
            known => {
                let known: Vec<(f64, f64)> =
                    known.iter().map(|o| (o.bytes as f64, o.seconds)).collect();
                on_line(&known, bytes as f64, |_, _| 0.0)
            }
        }
    }

    /// Seconds to move `bytes` in I/Os of `bs` bytes of `kind`.
    fn seconds(&self, kind: Kind, bytes: f64, bs: u64) -> f64 {
        bytes / bs.max(1) as f64 * self.per_io(kind, bs)
    }
}

/// Adds a trace point's repetitions to `cost`: each lays out the trace's
/// file (buffered writes in large blocks) and replays the trace in its
/// time at its speed, or as fast as possible at the device's speed.
fn trace_cost(cost: &mut Cost, w: &Workload, trace: Option<TraceCost>, speeds: &Speeds) {
    let Some(trace) = trace else {
        return;
    };
    // At most `--max-repeat` replays under `--until-ci`.
    let count = w.warmup + w.max_repeat.unwrap_or(w.repeat).max(w.repeat);
    cost.adaptive |= w.until_ci.is_some();
    let repetitions = f64::from(count);
    cost.largest_bytes = cost.largest_bytes.max(trace.file_bytes);
    let bytes = u128::from(trace.bytes) * u128::from(count);
    cost.one_pass_bytes += bytes;
    cost.moved_bytes += bytes + u128::from(trace.file_bytes) * u128::from(count);
    cost.measured |= speeds.of(Kind::BufferedWrite);
    let layout = speeds.seconds(Kind::BufferedWrite, trace.file_bytes as f64, 1 << 20);
    let replay = match w.trace_speed {
        TraceSpeed::Times(factor) => trace.duration_s / factor,
        TraceSpeed::Afap => speeds.seconds(Kind::of(w), trace.bytes as f64, 4096),
    };
    cost.one_pass_s += (layout + replay) * repetitions;
}

impl Cost {
    /// Seconds the plan takes: its one-pass points and layouts at the
    /// device's measured speeds or the assumed ones (see [`Speeds`]), its
    /// time-based points, and every repetition's own overhead.
    pub fn seconds(&self) -> f64 {
        self.one_pass_s + self.timed_s + self.overhead_s + self.run_s
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
    let mut cost = Cost {
        run_s: if points.is_empty() {
            0.0
        } else {
            speeds.run_overhead_s.unwrap_or(0.0)
        },
        ..Cost::default()
    };
    // The file set the point before left: a point of the same sizes and
    // jobs works on it as it is (IOzone's read after its write), no layout.
    let mut left: Option<(u64, u32)> = None;
    // Bytes a buffered write without sync left in the page cache: written
    // back before the next point that waits for the device or starts cold
    // (its eviction waits for them), at the device's speed (seq-device's
    // `cat` after its `dd`).
    let mut dirty: u128 = 0;
    for point in points {
        let w = point.workload();
        if let (Some(trace), [_]) = (w.trace, point.groups.as_slice()) {
            trace_cost(&mut cost, w, traces(trace), speeds);
            continue;
        }
        // A point of groups holds every group's files at once, and its
        // time is its longest group's.
        let workloads: Vec<&Workload> = point.workloads().collect();
        let files: u64 = workloads
            .iter()
            .map(|w| match (w.trace, super::tree::TreeShape::of(w, 1)) {
                (Some(trace), _) => traces(trace).map_or(0, |trace| trace.file_bytes),
                (None, Some(tree)) => tree.file_size.saturating_mul(tree.total_items()),
                (None, None) => w.size.saturating_mul(u64::from(w.jobs)),
            })
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
        cost.overhead_s += repetitions as f64 * speeds.overhead(files);
        cost.adaptive |= w.until_ci.is_some();
        if let Some(seconds) = timed {
            cost.timed_s += seconds * repetitions as f64;
        }
        for w in workloads {
            // A trace group: its file's layout and its replays.
            if let Some(trace) = w.trace {
                trace_cost(&mut cost, w, traces(trace), speeds);
                continue;
            }
            // A metadata point's items: one operation each, moving
            // file_size bytes at most; no data file is made.
            if let Some(tree) = super::tree::TreeShape::of(w, 1) {
                let items = tree.total_items() as f64 * repetitions as f64;
                cost.one_pass_s += items * ASSUMED_METADATA_OP_S;
                let bytes = u128::from(tree.file_size) * u128::from(tree.total_items());
                cost.one_pass_bytes += bytes * repetitions;
                cost.moved_bytes += bytes * repetitions;
                continue;
            }
            let per_job = match w.io_size {
                Some(bytes) => u128::from(bytes),
                None => u128::from(w.size) * u128::from(w.loops),
            };
            let per_repetition = per_job * u128::from(w.jobs);
            let kind = Kind::of(w);
            let cold = matches!(w.cache, super::CacheMode::Cold | super::CacheMode::Drop);
            if dirty > 0 && (kind.waits() || cold) {
                cost.measured |= speeds.of(Kind::WaitingWrite);
                cost.one_pass_s += speeds.seconds(Kind::WaitingWrite, dirty as f64, 1 << 20);
                dirty = 0;
            }
            if kind == Kind::BufferedWrite && !w.fsync_end && w.fsync_every == 0 {
                dirty += per_repetition;
            }
            if w.runtime_s.is_none() {
                cost.measured |= speeds.of(kind);
                cost.one_pass_bytes += per_repetition * repetitions;
                cost.moved_bytes += per_repetition * repetitions;
                let moved = (per_repetition * repetitions) as f64;
                let seconds = speeds.seconds(kind, moved, w.bs);
                // Groups of one pass run at once: their sum bounds the point.
                cost.one_pass_s += if timed.is_none() { seconds } else { 0.0 };
            }
            let kept = left == Some((w.size, w.jobs)) && point.groups.len() == 1;
            left = (point.groups.len() == 1 && w.items.is_none()).then_some((w.size, w.jobs));
            if w.op.needs_layout() && !kept {
                // The untimed layout, at most once per file set: buffered
                // writes in large blocks.
                cost.moved_bytes += per_repetition;
                cost.measured |= speeds.of(Kind::BufferedWrite);
                cost.one_pass_s +=
                    speeds.seconds(Kind::BufferedWrite, per_repetition as f64, 1 << 20);
            }
        }
    }
    cost
}

#[cfg(test)]
mod tests {
    use super::super::{
        CacheMode, Op, PlannedPoint, SyncMode, TraceSpeed, Workload, default_workload,
    };
    use super::{Kind as SpeedKind, *};

    #[test]
    fn small_direct_ios_are_costed_by_their_count_not_their_bytes() {
        let point = |direct: bool, bs: u64| {
            let workload = Workload {
                size: 64 << 20,
                bs,
                direct,
                op: Op::Write,
                ..default_workload()
            };
            PlannedPoint::alone(String::new(), workload)
        };
        let overhead = ASSUMED_REPETITION_OVERHEAD_S;
        // 131,072 I/Os: 13.1 s at 10,000 a second; 0.64 s of bytes at 100 MiB/s.
        let assumed = Speeds::default();
        let direct = cost(&[point(true, 512)], &assumed, &|_| None).seconds();
        let buffered = cost(&[point(false, 512)], &assumed, &|_| None).seconds();
        assert!((direct - 13.1072 - overhead).abs() < 1e-6, "{direct}");
        assert!((buffered - 0.64 - overhead).abs() < 1e-6, "{buffered}");
        // Measured here at one size: 20,000 direct 4 KiB writes a second.
        // Its 50 µs split into a fixed part (at most the assumed device
        // access, here 90% of it: 45 µs) and 5 µs per 4 KiB.
        let mut measured = Speeds::default();
        measured.learn_overhead(64 << 20, 0.0);
        measured.learn(
            SpeedKind::WaitingWrite,
            Speed {
                bps: 80e6,
                iops: 20_000.0,
                bs: 4096,
            },
        );
        let direct = cost(&[point(true, 512)], &measured, &|_| None);
        assert!(direct.measured);
        let per_io = 45e-6 + 5e-6 / 8.0;
        assert!(
            (direct.seconds() - 131_072.0 * per_io).abs() < 1e-6,
            "{direct:?}"
        );
        // Measured at two sizes: a size between them is on their line
        // (t = L + bs / B), not at either's I/Os a second or bandwidth.
        measured.learn(
            SpeedKind::WaitingWrite,
            Speed {
                bps: 1e9,
                iops: 1e9 / f64::from(1 << 20),
                bs: 1 << 20,
            },
        );
        let middle = cost(&[point(true, 64 << 10)], &measured, &|_| None).seconds();
        let (small, large) = (50e-6, f64::from(1 << 20) / 1e9);
        let at_64k =
            small + (large - small) * f64::from((64 << 10) - 4096) / f64::from((1 << 20) - 4096);
        assert!((middle - 1024.0 * at_64k).abs() < 1e-6, "{middle}");
        // Past the largest: the same line, whose fixed part a larger I/O
        // shares less of (64.9 ms, against 67.1 ms at 1 MiB's bandwidth).
        let huge = cost(&[point(true, 4 << 20)], &measured, &|_| None).seconds();
        let slope = (large - small) / f64::from((1 << 20) - 4096);
        let at_4m = small + slope * f64::from((4 << 20) - 4096);
        assert!((huge - 16.0 * at_4m).abs() < 1e-9, "{huge}");
    }

    /// O_SYNC on a read does not wait for the device (Linux ignores it):
    /// such reads are costed as buffered ones, unless the cache is cold.
    #[test]
    fn synced_reads_are_costed_as_buffered() {
        let read = Workload {
            op: Op::Read,
            sync: SyncMode::Osync,
            cache: CacheMode::Keep,
            ..default_workload()
        };
        assert_eq!(SpeedKind::of(&read), SpeedKind::BufferedRead);
        let write = Workload {
            op: Op::Rewrite,
            ..read.clone()
        };
        assert_eq!(SpeedKind::of(&write), SpeedKind::WaitingWrite);
        let direct = Workload {
            direct: true,
            ..read
        };
        assert_eq!(SpeedKind::of(&direct), SpeedKind::WaitingRead);
        // From a cold cache, a buffered read comes from the device.
        let cold = Workload {
            cache: CacheMode::Cold,
            direct: false,
            ..direct
        };
        assert_eq!(SpeedKind::of(&cold), SpeedKind::WaitingRead);
    }

    /// A buffered write without sync leaves its bytes dirty: the cold read
    /// after it (seq-device's `cat` after its `dd`) first waits for them to
    /// reach the device, at the device's write speed; after an fsync at the
    /// end nothing is left to wait for.
    #[test]
    fn a_cold_read_after_unsynced_writes_waits_for_their_write_back() {
        let write = Workload {
            size: 512 << 20,
            bs: 8192,
            op: Op::Write,
            repeat: 1,
            ..default_workload()
        };
        let read = Workload {
            op: Op::Read,
            bs: 128 << 10,
            cache: CacheMode::Cold,
            ..write.clone()
        };
        let mut speeds = Speeds::default();
        speeds.learn_overhead(512 << 20, 0.0);
        speeds.run_overhead_s = Some(0.0);
        let device = Speed {
            bps: 256.0 * f64::from(1 << 20),
            iops: 256.0,
            bs: 1 << 20,
        };
        speeds.learn(SpeedKind::WaitingWrite, device);
        let points = |write: &Workload| {
            [
                PlannedPoint::alone(String::new(), write.clone()),
                PlannedPoint::alone(String::new(), read.clone()),
            ]
        };
        let unsynced = cost(&points(&write), &speeds, &|_| None).seconds();
        let synced = Workload {
            fsync_end: true,
            ..write.clone()
        };
        let synced = cost(&points(&synced), &speeds, &|_| None).seconds();
        // 512 MiB at 256 MiB/s: 2 s more.
        assert!(
            (unsynced - synced - 2.0).abs() < 1e-9,
            "{unsynced} {synced}"
        );
    }

    /// A speed learned again at a size moves the estimate half way (on the
    /// log scale): one run served by a cache below the machine, then one
    /// that was not, no longer swing the next estimate by the whole ratio.
    #[test]
    fn a_speed_learned_again_is_taken_with_the_one_before() {
        let read = Workload {
            size: 64 << 20,
            bs: 1 << 20,
            op: Op::Read,
            direct: true,
            repeat: 1,
            ..default_workload()
        };
        let point = [PlannedPoint::alone(String::new(), read)];
        let mut speeds = Speeds::default();
        speeds.learn_overhead(64 << 20, 0.0);
        speeds.run_overhead_s = Some(0.0);
        let at = |mib_per_s: f64| Speed {
            bps: mib_per_s * f64::from(1 << 20),
            iops: mib_per_s,
            bs: 1 << 20,
        };
        speeds.learn(SpeedKind::WaitingRead, at(1024.0));
        speeds.learn(SpeedKind::WaitingRead, at(256.0));
        // Between 1 GiB/s and 256 MiB/s: 512 MiB/s, 64 MiB in 0.125 s
        // (after its layout at the assumed buffered speed).
        let layout = f64::from(64 << 20) / ASSUMED_BPS;
        let seconds = cost(&point, &speeds, &|_| None).seconds() - layout;
        assert!((seconds - 0.125).abs() < 1e-9, "{seconds}");
        // A repetition's overhead measured at 0 s, then at 1 s: 0.5 s.
        speeds.learn_overhead(64 << 20, 1.0);
        let seconds = cost(&point, &speeds, &|_| None).seconds() - layout;
        assert!((seconds - 0.625).abs() < 1e-9, "{seconds}");
    }

    /// A trace point costs its trace's time at its speed and its file's
    /// layout per repetition, not the default workload's 256 MiB.
    #[test]
    fn a_trace_point_is_costed_by_its_trace() {
        let trace = "costed.iolog".parse().unwrap();
        let point = |speed: TraceSpeed| {
            let workload = Workload {
                trace: Some(trace),
                trace_speed: speed,
                repeat: 3,
                ..default_workload()
            };
            PlannedPoint::alone(String::new(), workload)
        };
        let figures = super::super::trace::TraceCost {
            bytes: 10 << 20,
            file_bytes: 100 << 20,
            duration_s: 60.0,
        };
        let traces = |t: TracePath| (t == trace).then_some(figures);
        let assumed = Speeds::default();
        let cost = cost(&[point(TraceSpeed::Times(2.0))], &assumed, &traces);
        assert_eq!(cost.largest_bytes, 100 << 20);
        assert_eq!(cost.one_pass_bytes, 3 * (10 << 20));
        assert_eq!(cost.moved_bytes, 3 * (110 << 20));
        // Three repetitions of 30 s and of a 1 s layout at 100 MiB/s.
        assert!((cost.seconds() - 3.0 * 31.0).abs() < 1e-6, "{cost:?}");
        // As fast as possible from a cold cache: its 2,560 reads of 4 KiB
        // wait for the device, at 10,000 a second, after the 1 s layout.
        let fast = super::cost(&[point(TraceSpeed::Afap)], &assumed, &traces);
        assert!((fast.seconds() - 3.0 * 1.256).abs() < 1e-6, "{fast:?}");
        // A trace group second in a point beside a reader: its file counts
        // among the point's files held at once, and its replays in the time.
        let reader = Workload {
            op: super::super::Op::Read,
            size: 8 << 20,
            repeat: 3,
            ..default_workload()
        };
        let grouped = PlannedPoint {
            label: String::new(),
            round: None,
            groups: vec![
                super::super::group::Group {
                    name: "reader".into(),
                    workload: reader.clone(),
                },
                super::super::group::Group {
                    name: "log".into(),
                    workload: point(TraceSpeed::Times(2.0)).groups[0].workload.clone(),
                },
            ],
            file: None,
        };
        let alone = PlannedPoint::alone(String::new(), reader);
        let with_trace = super::cost(std::slice::from_ref(&grouped), &assumed, &traces);
        let without = super::cost(std::slice::from_ref(&alone), &assumed, &traces);
        assert_eq!(with_trace.largest_bytes, (8 << 20) + (100 << 20));
        assert!(
            with_trace.seconds() >= without.seconds() + 3.0 * 31.0 - 1e-6,
            "{with_trace:?} against {without:?}"
        );
    }
}
