//! What a job's loop records: totals and histograms per direction, the time
//! series of closed intervals (bounded, coarsened as it grows), the steady-state
//! check at each interval's close, and the memory for all of it, allocated
//! before the job starts.
//!
//! Per I/O, `Recorder::record` does one histogram record (into the open
//! interval of the I/O's direction) and four additions; everything else
//! happens when an interval closes.

use super::spec::{IoFailure, LoopSpec};
use super::steady_stop::Steady;
use crate::clock::now_ns;
use crate::plan::direction::{Direction, DirectionMix};
use crate::plan::steady::SteadyMetric;
use crate::probe::cpu::CpuUsage;
use crate::record::histogram::{MAX_TRACKED_NS, new_histogram};
use crate::record::ios::{KeptIo, KeptIos};
use hdrhistogram::Histogram;

/// The histogram an interval's latencies are kept in once it closes: 2
/// significant digits (1% resolution), about a tenth of the (value, count)
/// pairs of [`new_histogram`], so a long series stays small. The totals are
/// still recorded at 3 digits.
fn new_interval_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKED_NS, 2).expect("valid histogram bounds")
}

/// Directions an I/O can take: the length of per-direction arrays.
const DIRECTIONS: usize = Direction::ALL.len();

/// The histograms a job's loop records into, allocated before its thread
/// starts: a machine out of memory (an address-space limit, say) then
/// refuses the run with a message, instead of Rust ending the process on an
/// allocation failure inside a running job, with its files left behind.
#[derive(Debug)]
pub struct JobMemory {
    /// Per direction (see [`Direction::index`]): the totals.
    latency: [Histogram<u64>; DIRECTIONS],
    /// Per direction: the open interval's.
    interval_latency: [Histogram<u64>; DIRECTIONS],
    kept_latency: Histogram<u64>,
    /// A queued engine, per direction: the submitting calls' times.
    pub(in crate::run) submit: Option<[Histogram<u64>; DIRECTIONS]>,
    /// A queued engine, per direction: each I/O's time from the submitting
    /// call's return to its completion.
    pub(in crate::run) completion: Option<[Histogram<u64>; DIRECTIONS]>,
    /// A paced job: latency from each I/O's intended issue time.
    pub(in crate::run) from_intended: Option<Histogram<u64>>,
    directions: DirectionMix,
    /// The steady-state criterion the job shares with the others, with its index.
    steady: Option<(Steady, usize)>,
    /// The job's share of its flow (`--flow`), for its pacer.
    pub(in crate::run) flow: Option<super::flow::FlowShare>,
    /// With `--zbd`: the zones of the target, which the job's I/Os share
    /// with every other job of the repetition on it.
    pub(in crate::run) zones: Option<(std::sync::Arc<super::zones::Zones>, crate::plan::zbd::Zbd)>,
    /// With `--log-ios`: where each timed I/O is kept.
    pub(in crate::run) ios: Option<KeptIos>,
}

impl JobMemory {
    /// The same memory, its recorder told the steady-state criterion the
    /// job shares with the others and its index among them.
    pub fn with_steady(self, steady: Option<(Steady, usize)>) -> JobMemory {
        JobMemory { steady, ..self }
    }

    /// The memory of one job whose I/Os go in `directions` (`queued`: with
    /// the submission and completion histograms), or `None` when it cannot
    /// be had.
    /// Histograms allocate infallibly, so the same bytes are first reserved
    /// fallibly and given back. A direction the job never takes gets an
    /// empty, self-sizing histogram of a few KiB instead of two full ones.
    pub fn try_new(queued: bool, directions: DirectionMix) -> Option<JobMemory> {
        static BUCKETS: std::sync::OnceLock<(usize, usize)> = std::sync::OnceLock::new();
        let (fine, coarse) = *BUCKETS.get_or_init(|| {
            (
                new_histogram().distinct_values(),
                new_interval_histogram().distinct_values(),
            )
        });
        let taken = directions.taken();
        let counts = fine * ((2 + 2 * usize::from(queued)) * taken) + coarse;
        Vec::<u64>::new().try_reserve_exact(counts).ok()?;
        let taken = |direction: Direction| match directions.takes(direction) {
            false => unused_histogram(),
            true => new_histogram(),
        };
        Some(JobMemory {
            latency: Direction::ALL.map(taken),
            interval_latency: Direction::ALL.map(taken),
            kept_latency: new_interval_histogram(),
            submit: queued.then(|| Direction::ALL.map(taken)),
            completion: queued.then(|| Direction::ALL.map(taken)),
            from_intended: None,
            directions,
            steady: None,
            flow: None,
            zones: None,
            ios: None,
        })
    }

    /// The same memory with the histogram of a paced job's latency from
    /// intended issue; `None` when it cannot be had.
    pub fn with_pacing(mut self) -> Option<JobMemory> {
        let fine = new_histogram().distinct_values();
        Vec::<u64>::new().try_reserve_exact(fine).ok()?;
        self.from_intended = Some(new_histogram());
        Some(self)
    }
}

/// The histogram of a direction a job never takes: never recorded into.
fn unused_histogram() -> Histogram<u64> {
    Histogram::new(3).expect("valid histogram precision")
}

/// Time-series intervals all of a repetition's jobs may keep together, and
/// the most one job keeps: beyond it, neighbouring intervals are merged in
/// pairs and the interval doubles ([`intervals_kept_per_job`]), so memory is
/// bounded whatever the runtime (a day at 1 s intervals, or at the 1 ms
/// floor, ends with at most this many intervals).
pub const MAX_INTERVALS_PER_REPETITION: usize = 8192;

/// The most intervals one job keeps before its series is coarsened: an even
/// number between 16 and 1024, the jobs sharing
/// [`MAX_INTERVALS_PER_REPETITION`]. The sampler keeps as many, so the
/// device series coarsens with the jobs'.
pub fn intervals_kept_per_job(jobs: u32) -> usize {
    let share = MAX_INTERVALS_PER_REPETITION / (jobs.max(1) as usize);
    share.clamp(16, 1024) & !1
}

impl JobOutcome {
    /// Keeps its latency histograms as their non-empty buckets (exact; see
    /// [`super::kept`]) and its series trimmed to what it holds: a finished
    /// repetition is kept until its point is recorded.
    pub fn compact(&mut self) {
        let histograms = std::iter::once(&mut self.latency)
            .chain(self.submit.iter_mut().flatten().map(|(_, l)| l))
            .chain(self.completion.iter_mut().flatten().map(|(_, l)| l))
            .chain(self.from_intended.as_mut())
            .chain(self.prioritized.iter_mut().flatten().map(|(_, _, l)| l))
            .chain(self.directions.iter_mut().map(|d| &mut d.latency));
        for histogram in histograms {
            histogram.keep_buckets();
        }
        // The series was allocated for its bound before the thread started.
        self.intervals.shrink_to_fit();
        for interval in &mut self.intervals {
            interval.latency_counts.shrink_to_fit();
            interval.directions.shrink_to_fit();
        }
    }
}

/// The values of `intervals` a steady-state criterion on `metric` judges.
fn series(
    intervals: &[IntervalSample],
    metric: SteadyMetric,
) -> impl DoubleEndedIterator<Item = f64> + Clone + '_ {
    intervals.iter().map(move |i| match metric {
        SteadyMetric::Bandwidth => i.bytes as f64,
        SteadyMetric::Iops => i.ops as f64,
        // Each latency at its bucket's top, within 1% (2 significant
        // digits); an interval without I/O has no latency to judge.
        SteadyMetric::Latency => {
            let (sum, count) = i
                .latency_counts
                .iter()
                .fold((0.0, 0u64), |(s, n), &(v, c)| {
                    (s + v as f64 * c as f64, n + c)
                });
            if count == 0 { 0.0 } else { sum / count as f64 }
        }
    })
}

/// One closed time-series interval of one job.
#[derive(Clone, Debug, Default)]
pub struct IntervalSample {
    /// Bytes completed in the interval.
    pub bytes: u64,
    /// I/Os completed in the interval.
    pub ops: u64,
    /// The interval's latency histogram as (value, count) pairs, so jobs can be
    /// merged exactly without keeping one full histogram per interval.
    pub latency_counts: Vec<(u64, u64)>,
    /// A network engine's connection: what TCP carried in the interval.
    pub tcp: Option<crate::probe::tcp::TcpTraffic>,
    /// A job whose I/Os take more than one direction: each direction's part of the
    /// interval, read then write; empty for an unmixed job.
    pub directions: Vec<DirectionSample>,
}

/// One direction's part of an interval (also as the distributed layer
/// carries it between ranks).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DirectionSample {
    /// Bytes completed in this direction in the interval.
    pub bytes: u64,
    /// I/Os completed in this direction in the interval.
    pub ops: u64,
    /// Their latencies as (value, count) pairs at 2 significant digits.
    pub latency_counts: Vec<(u64, u64)>,
}

/// What one job measured in one direction, when it took more than one.
#[derive(Debug)]
pub struct DirectionOutcome {
    /// Which direction.
    pub direction: Direction,
    /// Bytes it completed in that direction.
    pub bytes: u64,
    /// I/Os it completed in that direction.
    pub ops: u64,
    /// Their latencies, ns.
    pub latency: super::kept::Latencies,
}

/// What one job measured in one repetition.
#[derive(Debug)]
pub struct JobOutcome {
    /// Bytes completed in the timed region.
    pub bytes: u64,
    /// I/Os completed in the timed region.
    pub ops: u64,
    /// Start of the timed region (after the ramp), ns on CLOCK_MONOTONIC.
    pub start: u64,
    /// End of the timed region, after the final flush and fsync, ns on CLOCK_MONOTONIC.
    pub end: u64,
    /// Latency of every I/O, ns (queued engines: submission to completion).
    pub latency: super::kept::Latencies,
    /// Queued engines, per direction taken: time spent in each submitting
    /// system call, ns, once per I/O of that direction submitted (fio's slat).
    pub submit: Option<Vec<(Direction, super::kept::Latencies)>>,
    /// Queued engines, per direction taken: each I/O's time from the
    /// submitting call's return to its completion, ns (fio's clat;
    /// `latency` is fio's lat, from before that call).
    pub completion: Option<Vec<(Direction, super::kept::Latencies)>>,
    /// Queued engines: the queue's depths in fio's bins.
    pub queue_depths: Option<crate::record::QueueDepths>,
    /// With a rate: each I/O's latency from the time it was meant to be
    /// issued (coordinated omission corrected), ns.
    pub from_intended: Option<super::kept::Latencies>,
    pub intervals: Vec<IntervalSample>,
    /// The length of its intervals, ns: the asked interval, doubled each time
    /// the series reached its bound and was coarsened.
    pub interval_ns: u64,
    /// CPU used by the job's thread over the timed region.
    pub cpu: CpuUsage,
    /// The first failed or short I/O, which ended the loop.
    pub failure: Option<IoFailure>,
    /// Whether a signal ended the loop early.
    pub interrupted: bool,
    /// When its I/Os took more than one direction: the share of each (read, then
    /// write); empty when they all went one way, which the totals then are.
    pub directions: Vec<DirectionOutcome>,
    /// A network client engine's calls and TCP traffic; `None` for local engines.
    pub network: Option<super::traffic::ClientTraffic>,
    /// The blocks its timed I/Os touched, for patterns that may leave some
    /// untouched (and files small enough to track).
    pub coverage: Option<super::coverage::BlockCoverage>,
    /// With `--zbd`, of a job that writes or trims: the zones it reset in
    /// the timed region (fio's `zone_resets`).
    pub zone_resets: Option<u64>,
    /// With `--verify` on a mix: the blocks it wrote, for the check after it.
    pub written: Option<super::coverage::Touched>,
    /// With `--verify-backlog`: the blocks it read back and checked during
    /// its writes.
    pub backlog_checked: u64,
    /// A metadata workload's job: its items and the system calls it made.
    pub tree: Option<super::calls::TreeJob>,
    /// With a latency target: the depth its search ended at, and whether
    /// it held there (the figures then that final window's alone).
    pub latency_depth: Option<(u32, bool)>,
    /// With command priorities: per direction and priority value its
    /// shares carry, the latencies of its I/Os that carried it.
    pub prioritized: Option<Vec<(Direction, u16, super::kept::Latencies)>>,
    /// A trace job's: how faithful its replay was.
    pub replay: Option<crate::record::replay::Fidelity>,
    /// With `--log-ios`: each of its timed I/Os.
    pub ios: Option<std::sync::Arc<KeptIos>>,
}

/// Accumulates completions into the totals and the current interval.
pub(in crate::run) struct Recorder<'a> {
    steady: Option<(Steady, usize)>,
    /// Per direction: the totals of the closed intervals.
    latency: [Histogram<u64>; DIRECTIONS],
    /// Per direction: the open interval's.
    interval_latency: [Histogram<u64>; DIRECTIONS],
    /// Scratch space for an interval's 2-digit histogram when it closes.
    kept_latency: Histogram<u64>,
    interval_bytes: u64,
    interval_ops: u64,
    /// The open interval's index; every interval before it is in `intervals`.
    interval_index: u64,
    next_boundary: u64,
    interval_ns: u64,
    /// The interval asked for, before any coarsening doubled it.
    asked_interval_ns: u64,
    max_intervals: usize,
    start: u64,
    pub(in crate::run) intervals: Vec<IntervalSample>,
    /// Per direction.
    bytes: [u64; DIRECTIONS],
    /// Per direction.
    ops: [u64; DIRECTIONS],
    /// Per direction: `bytes` and `ops` when the last interval closed.
    closed: [(u64, u64); DIRECTIONS],
    /// Per direction: `bytes` and `ops` the live board has been told of.
    published: [(u64, u64); DIRECTIONS],
    directions: DirectionMix,
    /// A network engine's connection, and its counters at the open interval's start.
    socket: Option<(
        rustix::fd::BorrowedFd<'a>,
        Option<crate::probe::tcp::TcpSnapshot>,
    )>,
    /// With `--log-ios`: each timed I/O.
    ios: Option<KeptIos>,
}

impl<'a> Recorder<'a> {
    pub(in crate::run) fn new(spec: &LoopSpec<'a>, memory: JobMemory) -> Self {
        let now = now_ns();
        let interval_ns = (spec.interval.as_nanos().min(u128::from(u64::MAX)) as u64).max(1);
        Recorder {
            steady: memory.steady,
            latency: memory.latency,
            interval_latency: memory.interval_latency,
            kept_latency: memory.kept_latency,
            interval_bytes: 0,
            interval_ops: 0,
            interval_index: 0,
            next_boundary: now.saturating_add(interval_ns),
            interval_ns,
            asked_interval_ns: interval_ns,
            max_intervals: spec.max_intervals.max(2) & !1,
            start: now,
            intervals: Vec::with_capacity(64),
            bytes: [0; DIRECTIONS],
            ops: [0; DIRECTIONS],
            closed: [(0, 0); DIRECTIONS],
            published: [(0, 0); DIRECTIONS],
            directions: memory.directions,
            socket: spec.socket.map(|fd| (fd, None)),
            ios: memory.ios,
        }
    }

    /// Discards everything recorded and starts the timed region again at
    /// `start` (a latency target's final window, all fio then reports).
    pub(in crate::run) fn restart(&mut self, start: u64) {
        for histogram in self.latency.iter_mut().chain(&mut self.interval_latency) {
            histogram.reset();
        }
        self.intervals.clear();
        if let Some(ios) = &mut self.ios {
            ios.clear();
        }
        (self.interval_bytes, self.interval_ops, self.interval_index) = (0, 0, 0);
        (self.interval_ns, self.bytes, self.ops) =
            (self.asked_interval_ns, [0; DIRECTIONS], [0; DIRECTIONS]);
        (self.closed, self.published) = ([(0, 0); DIRECTIONS], [(0, 0); DIRECTIONS]);
        self.begin(start);
    }

    /// Starts the timed region at `start`.
    pub(in crate::run) fn begin(&mut self, start: u64) {
        self.start = start;
        self.next_boundary = start.saturating_add(self.interval_ns);
        if let Some((fd, at_start)) = &mut self.socket {
            *at_start = crate::probe::tcp::TcpSnapshot::of(*fd).ok();
        }
    }

    /// What the connection carried since the open interval started, and
    /// the counters the next one starts from.
    fn tcp_since_boundary(&mut self) -> Option<crate::probe::tcp::TcpTraffic> {
        let (fd, at_start) = self.socket.as_mut()?;
        let now = crate::probe::tcp::TcpSnapshot::of(*fd).ok();
        let carried = at_start.zip(now).map(|(before, after)| after.since(before));
        *at_start = now;
        carried
    }

    /// Records one I/O of `bytes` at `offset` in `direction` that
    /// completed at `now`.
    #[inline(always)]
    pub(in crate::run) fn record(
        &mut self,
        now: u64,
        latency_ns: u64,
        (offset, bytes): (u64, u64),
        direction: Direction,
    ) {
        if now >= self.next_boundary {
            self.roll_over(now);
        }
        let d = direction.index();
        // Recorded once, into the interval; the interval is added to the
        // total when it closes (exact: histograms add bucket by bucket).
        self.interval_latency[d].saturating_record(latency_ns);
        self.interval_bytes += bytes;
        self.interval_ops += 1;
        self.bytes[d] += bytes;
        self.ops[d] += 1;
        if self.ios.is_some() {
            self.keep_io(now, latency_ns, (offset, bytes), direction);
        }
    }

    /// Keeps one I/O (`--log-ios`), out of the loop's inlined path.
    #[cold]
    #[inline(never)]
    fn keep_io(
        &mut self,
        now: u64,
        latency_ns: u64,
        (offset, bytes): (u64, u64),
        direction: Direction,
    ) {
        let issued_ns = (now - latency_ns).saturating_sub(self.start);
        if let Some(ios) = &mut self.ios {
            ios.push(KeptIo {
                issued_ns,
                latency_ns,
                offset,
                bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
                direction,
            });
        }
    }

    /// Closes the current interval and any empty ones up to the one `now` is
    /// in, coarsening the series whenever it reaches its bound.
    #[cold]
    #[inline(never)]
    fn roll_over(&mut self, now: u64) {
        self.close_interval();
        self.interval_index += 1;
        loop {
            self.coarsen_when_full();
            let target = now.saturating_sub(self.start) / self.interval_ns;
            if self.interval_index >= target {
                break;
            }
            self.intervals.push(IntervalSample::default());
            self.interval_index += 1;
        }
        self.next_boundary = self.start.saturating_add(
            self.interval_ns
                .saturating_mul(self.interval_index.saturating_add(1)),
        );
        if let Some((steady, job)) = &self.steady {
            let interval_s = self.interval_ns as f64 * 1e-9;
            let values = series(&self.intervals, steady.criterion.metric);
            steady.update(*job, values, interval_s, now);
        }
    }

    /// When the closed intervals reach the bound (an even number, checked
    /// after every interval closes, while the open one is still empty):
    /// merges them in pairs and doubles the interval. The open interval's
    /// index halves with them, so it starts where the merged pair ends.
    fn coarsen_when_full(&mut self) {
        if self.intervals.len() < self.max_intervals {
            return;
        }
        let fine = std::mem::take(&mut self.intervals);
        self.intervals = fine
            .chunks(2)
            .map(|pair| merge_samples(pair, &mut self.kept_latency))
            .collect();
        self.interval_ns = self.interval_ns.saturating_mul(2);
        self.interval_index = self.intervals.len() as u64;
    }

    fn close_interval(&mut self) {
        // The live status line: each direction's part of the interval and
        // its p99, from the open histograms before they are folded away.
        for direction in Direction::ALL {
            let d = direction.index();
            let (bytes, ops) = (
                self.bytes[d] - self.published[d].0,
                self.ops[d] - self.published[d].1,
            );
            if ops > 0 {
                let p99 = self.interval_latency[d].value_at_quantile(0.99);
                super::live::interval_closed(direction, bytes, ops, p99);
            }
            self.published[d] = (self.bytes[d], self.ops[d]);
        }
        // The interval keeps its latencies at 2 digits (see
        // new_interval_histogram); the total gets them at full resolution.
        for interval in self.interval_latency.iter().filter(|h| !h.is_empty()) {
            for value in interval.iter_recorded() {
                self.kept_latency
                    .saturating_record_n(value.value_iterated_to(), value.count_at_value());
            }
        }
        let latency_counts = pairs_of(&self.kept_latency);
        self.kept_latency.reset();
        let tcp = self.tcp_since_boundary();
        let directions = match self.directions.mixed() {
            true => Direction::ALL.map(|d| self.direction_sample(d)).into(),
            false => Vec::new(),
        };
        self.intervals.push(IntervalSample {
            bytes: self.interval_bytes,
            ops: self.interval_ops,
            latency_counts,
            tcp,
            directions,
        });
        for (total, interval) in self.latency.iter_mut().zip(&mut self.interval_latency) {
            if !interval.is_empty() {
                total
                    .add(&*interval)
                    .expect("the interval and total histograms share their bounds");
                interval.reset();
            }
        }
        self.interval_bytes = 0;
        self.interval_ops = 0;
    }

    /// `direction`'s part of the interval closing now (before its histogram
    /// is added to the total), at the series' 2 digits.
    fn direction_sample(&mut self, direction: Direction) -> DirectionSample {
        let d = direction.index();
        let (bytes, ops) = self.closed[d];
        self.closed[d] = (self.bytes[d], self.ops[d]);
        for value in self.interval_latency[d].iter_recorded() {
            self.kept_latency
                .saturating_record_n(value.value_iterated_to(), value.count_at_value());
        }
        let latency_counts = pairs_of(&self.kept_latency);
        self.kept_latency.reset();
        DirectionSample {
            bytes: self.bytes[d] - bytes,
            ops: self.ops[d] - ops,
            latency_counts,
        }
    }

    pub(in crate::run) fn finish(
        mut self,
        end: u64,
        cpu: CpuUsage,
        failure: Option<IoFailure>,
        interrupted: bool,
    ) -> JobOutcome {
        if self.interval_ops > 0 || self.intervals.is_empty() {
            self.close_interval();
        }
        let [read, write, trim] = self.latency;
        let mut latencies = [Some(read), Some(write), Some(trim)];
        let (latency, directions) = match self.directions.sole() {
            Some(sole) => (
                latencies[sole.index()]
                    .take()
                    .expect("each direction's histogram"),
                Vec::new(),
            ),
            None => {
                let mut total = new_histogram();
                let mut directions = Vec::new();
                for direction in Direction::ALL {
                    let latency = latencies[direction.index()].take().expect("each once");
                    if !self.directions.takes(direction) {
                        continue;
                    }
                    total
                        .add(&latency)
                        .expect("the directions' histograms share their bounds");
                    directions.push(DirectionOutcome {
                        direction,
                        bytes: self.bytes[direction.index()],
                        ops: self.ops[direction.index()],
                        latency: super::kept::Latencies::new(latency),
                    });
                }
                (total, directions)
            }
        };
        JobOutcome {
            bytes: self.bytes.iter().sum(),
            ops: self.ops.iter().sum(),
            start: self.start,
            end,
            latency: super::kept::Latencies::new(latency),
            submit: None,
            completion: None,
            queue_depths: None,
            from_intended: None,
            intervals: self.intervals,
            interval_ns: self.interval_ns,
            cpu,
            failure,
            interrupted,
            directions,
            network: None,
            coverage: None,
            zone_resets: None,
            written: None,
            tree: None,
            latency_depth: None,
            prioritized: None,
            replay: None,
            ios: self.ios.map(std::sync::Arc::new),
            backlog_checked: 0,
        }
    }
}

/// A histogram's recorded values as (value, count) pairs.
fn pairs_of(histogram: &Histogram<u64>) -> Vec<(u64, u64)> {
    histogram
        .iter_recorded()
        .map(|value| (value.value_iterated_to(), value.count_at_value()))
        .collect()
}

/// Neighbouring intervals merged into one: bytes and I/Os added, latency
/// pairs re-binned through `scratch` (a 2-digit histogram, left empty).
pub fn merge_samples(samples: &[IntervalSample], scratch: &mut Histogram<u64>) -> IntervalSample {
    let mut merged = IntervalSample {
        // TCP figures for the merged interval only when every part has them.
        tcp: samples
            .iter()
            .try_fold(crate::probe::tcp::TcpTraffic::default(), |sum, s| {
                Some(sum + s.tcp?)
            }),
        ..IntervalSample::default()
    };
    let total = added(
        samples
            .iter()
            .map(|s| (s.bytes, s.ops, s.latency_counts.as_slice())),
        scratch,
    );
    merged.bytes = total.bytes;
    merged.ops = total.ops;
    merged.latency_counts = total.latency_counts;
    merged.directions = merge_directions(samples, scratch);
    merged
}

/// Parts (bytes, I/Os, latency pairs) added up, the pairs re-binned
/// through `scratch` (left empty).
fn added<'a>(
    parts: impl Iterator<Item = (u64, u64, &'a [(u64, u64)])>,
    scratch: &mut Histogram<u64>,
) -> DirectionSample {
    let mut sum = DirectionSample::default();
    for (bytes, ops, latency_counts) in parts {
        sum.bytes += bytes;
        sum.ops += ops;
        for &(value, count) in latency_counts {
            scratch.saturating_record_n(value, count);
        }
    }
    sum.latency_counts = pairs_of(scratch);
    scratch.reset();
    sum
}

/// The per-direction parts of `samples` added up, when they were kept: every
/// sample that saw I/O kept every direction' (an empty interval has none to
/// keep); otherwise empty.
fn merge_directions(
    samples: &[IntervalSample],
    scratch: &mut Histogram<u64>,
) -> Vec<DirectionSample> {
    let kept = |s: &IntervalSample| s.directions.len() == Direction::ALL.len();
    if !samples.iter().any(kept) || !samples.iter().all(|s| kept(s) || s.ops == 0) {
        return Vec::new();
    }
    Direction::ALL
        .map(|direction| {
            let parts = samples.iter().filter(|s| kept(s)).map(|s| {
                let part = &s.directions[direction.index()];
                (part.bytes, part.ops, part.latency_counts.as_slice())
            });
            added(parts, scratch)
        })
        .into()
}

/// Brings a series kept at `interval_ns` to the coarser `target_ns` (a
/// power-of-two multiple, as coarsening makes them), merging each group of
/// neighbours; a series already at `target_ns` is returned as it is.
pub fn coarsen_series(
    series: &[IntervalSample],
    interval_ns: u64,
    target_ns: u64,
) -> Vec<IntervalSample> {
    let factor = (target_ns / interval_ns.max(1)).max(1) as usize;
    if factor == 1 {
        return series.to_vec();
    }
    let mut scratch = new_interval_histogram();
    series
        .chunks(factor)
        .map(|group| merge_samples(group, &mut scratch))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::io::timing::tests::{memory, spec};
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[test]
    fn a_long_series_is_coarsened_to_its_bound_and_keeps_every_io() {
        let interrupt = AtomicUsize::new(0);
        let mut spec = spec(&interrupt);
        spec.interval = Duration::from_nanos(10);
        spec.max_intervals = 8;
        let mut recorder = Recorder::new(&spec, memory());
        recorder.begin(1_000);
        // 100 I/Os, one in the middle of each 10 ns interval, latency k+1.
        for k in 0..100u64 {
            recorder.record(1_000 + k * 10 + 5, k + 1, (0, 4096), Direction::Read);
            assert!(recorder.intervals.len() <= 8, "bounded at every step");
        }
        let outcome = recorder.finish(2_000, CpuUsage::default(), None, false);
        // 8 → 4 at 20 ns, … → 160 ns: the 1000 ns span in 7 intervals.
        assert_eq!(outcome.interval_ns, 160);
        assert_eq!(outcome.intervals.len(), 7);
        assert_eq!(outcome.intervals.iter().map(|i| i.ops).sum::<u64>(), 100);
        assert!(outcome.intervals[..6].iter().all(|i| i.ops == 16));
        let counted: u64 = outcome.intervals[0]
            .latency_counts
            .iter()
            .map(|p| p.1)
            .sum();
        assert_eq!(counted, 16, "every latency stays in its merged interval");
        assert_eq!(outcome.latency.len(), 100, "the total keeps every I/O");
        // A finer job's series brought to the same interval matches it.
        let mut fine = Recorder::new(&spec, memory());
        fine.max_intervals = 1024;
        fine.begin(1_000);
        for k in 0..100u64 {
            fine.record(1_000 + k * 10 + 5, k + 1, (0, 4096), Direction::Read);
        }
        let fine = fine.finish(2_000, CpuUsage::default(), None, false);
        assert_eq!(fine.interval_ns, 10);
        let coarse = coarsen_series(&fine.intervals, fine.interval_ns, 160);
        let ops = |s: &[IntervalSample]| s.iter().map(|i| i.ops).collect::<Vec<_>>();
        assert_eq!(ops(&coarse), ops(&outcome.intervals));
    }
}
