//! The timing loops: the hot path that issues I/O, checks every result and records latency.
//!
//! Per I/O: one clock read (the completion of one synchronous I/O is the start
//! of the next), one histogram record (into the current interval, which joins
//! the total when it closes), a relaxed load of the interrupt flag, no
//! allocation, no lock and no system call beyond the I/O itself. Interval figures are accumulated and
//! closed only when a completion crosses an interval boundary.

use super::buffer::stamp;
use super::signals::STEADY_STOP;
use crate::clock::now_ns;
use crate::engine::BlockIo;
use crate::engine::QueuedIo;
use crate::plan::Pattern;
use crate::plan::pattern::BlockSequence;
use crate::plan::steady::{SteadyCriterion, SteadyMetric};
use crate::probe::cpu::CpuUsage;
use crate::record::histogram::{MAX_TRACKED_NS, new_histogram};
use hdrhistogram::Histogram;
use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// The histogram an interval's latencies are kept in once it closes: 2
/// significant digits (1% resolution), about a tenth of the (value, count)
/// pairs of [`new_histogram`], so a long series stays small. The totals are
/// still recorded at 3 digits.
fn new_interval_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKED_NS, 2).expect("valid histogram bounds")
}

/// The histograms a job's loop records into, allocated before its thread
/// starts: a machine out of memory (an address-space limit, say) then
/// refuses the run with a message, instead of Rust ending the process on an
/// allocation failure inside a running job, with its files left behind.
#[derive(Debug)]
pub struct JobMemory {
    latency: Histogram<u64>,
    interval_latency: Histogram<u64>,
    kept_latency: Histogram<u64>,
    submit: Option<Histogram<u64>>,
}

impl JobMemory {
    /// The memory of one job (`uring`: with the submission histogram), or
    /// `None` when it cannot be had. Histograms allocate infallibly, so the
    /// same bytes are first reserved fallibly and given back.
    pub fn try_new(uring: bool) -> Option<JobMemory> {
        static BUCKETS: std::sync::OnceLock<(usize, usize)> = std::sync::OnceLock::new();
        let (fine, coarse) = *BUCKETS.get_or_init(|| {
            (
                new_histogram().distinct_values(),
                new_interval_histogram().distinct_values(),
            )
        });
        let counts = fine * (2 + usize::from(uring)) + coarse;
        Vec::<u64>::new().try_reserve_exact(counts).ok()?;
        Some(JobMemory {
            latency: new_histogram(),
            interval_latency: new_histogram(),
            kept_latency: new_interval_histogram(),
            submit: uring.then(new_histogram),
        })
    }
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

/// What one job's loop does.
#[derive(Clone, Copy, Debug)]
pub struct LoopSpec<'a> {
    /// Whether the I/O writes.
    pub write: bool,
    /// Bytes per I/O.
    pub bs: u64,
    /// Blocks in the file.
    pub blocks: u64,
    /// Byte offset of block 0: 0, or the job's region of a shared file.
    pub base: u64,
    /// Visiting order.
    pub pattern: Pattern,
    /// Seed of the pattern.
    pub seed: u64,
    /// Time-based length; `None` = one pass.
    pub runtime: Option<Duration>,
    /// Unmeasured lead-in.
    pub ramp: Duration,
    /// io_uring: requests per submitting system call.
    pub batch: u32,
    /// fsync after this many writes; 0 = never.
    pub fsync_every: u64,
    /// fsync at the end, inside the timed region.
    pub fsync_end: bool,
    /// Time-series interval.
    pub interval: Duration,
    /// The most intervals kept before neighbours are merged and the interval
    /// doubles (even; see [`intervals_kept_per_job`]).
    pub max_intervals: usize,
    /// Set by SIGINT/SIGTERM, or to [`STEADY_STOP`] when every job is steady.
    pub interrupt: &'a AtomicUsize,
    /// The file, for error messages.
    pub file: &'a str,
    /// The steady-state criterion shared by the jobs, with this job's index.
    pub steady: Option<(Steady<'a>, usize)>,
    /// With `--verify`: the run's tag, sealed into every written block.
    pub verify: Option<u64>,
}

/// Prepares a block for writing: sealed with a verification header, or
/// stamped so that no two writes carry the same bytes.
#[inline]
fn prepare_write(block: &mut [u8], spec: &LoopSpec<'_>, offset: u64, generation: u64) {
    match spec.verify {
        Some(run) => super::verify::seal(
            block,
            &super::verify::Header {
                offset,
                run,
                sequence: generation,
                seed: spec.seed,
                block_size: spec.bs,
            },
        ),
        None => stamp(block, offset, generation),
    }
}

/// What the jobs of a repetition share to stop together at steady state.
#[derive(Clone, Copy, Debug)]
pub struct Steady<'a> {
    /// The criterion each job applies to its own interval series.
    pub criterion: SteadyCriterion,
    /// Per job: whether its last closed intervals meet the criterion.
    pub met: &'a [AtomicBool],
    /// When all jobs first met it (CLOCK_MONOTONIC ns), 0 until then.
    pub reached_at: &'a AtomicU64,
}

impl Steady<'_> {
    /// Called when a job closes an interval (cold path): updates its flag and,
    /// when every job is steady, stops them all through the interrupt flag.
    fn update(
        &self,
        job: usize,
        intervals: &[IntervalSample],
        interval_s: f64,
        now: u64,
        stop: &AtomicUsize,
    ) {
        let metric = self.criterion.metric;
        let values = intervals.iter().map(move |i| match metric {
            SteadyMetric::Bandwidth => i.bytes as f64,
            SteadyMetric::Iops => i.ops as f64,
        });
        let met = self.criterion.met(values, interval_s);
        self.met[job].store(met, Ordering::Relaxed);
        if met && self.met.iter().all(|m| m.load(Ordering::Relaxed)) {
            let _ = self
                .reached_at
                .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
            let _ = stop.compare_exchange(0, STEADY_STOP, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

/// Why the loops saw a nonzero flag: a signal, or steady state (a normal end).
#[inline]
fn stop_for(flag: usize) -> Stop {
    if flag == STEADY_STOP {
        Stop::Done
    } else {
        Stop::Interrupted
    }
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
            (Some(error), _) => write!(
                f,
                "{} of {} bytes at offset {} in {} failed: {} (errno {})",
                self.action,
                self.bs,
                self.offset,
                self.file,
                error,
                error.raw_os_error().map_or("?".to_string(), errno_name)
            ),
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
    /// Latency of every I/O, ns (for io_uring: submission to completion).
    pub latency: Histogram<u64>,
    /// io_uring only: time spent in each submitting system call, ns, once per I/O submitted.
    pub submit: Option<Histogram<u64>>,
    /// The time series.
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
}

/// Accumulates completions into the totals and the current interval.
struct Recorder<'a> {
    steady: Option<(Steady<'a>, usize)>,
    stop: &'a AtomicUsize,
    latency: Histogram<u64>,
    interval_latency: Histogram<u64>,
    /// Scratch space for an interval's 2-digit histogram when it closes.
    kept_latency: Histogram<u64>,
    interval_bytes: u64,
    interval_ops: u64,
    /// The open interval's index; every interval before it is in `intervals`.
    interval_index: u64,
    next_boundary: u64,
    interval_ns: u64,
    max_intervals: usize,
    start: u64,
    intervals: Vec<IntervalSample>,
    bytes: u64,
    ops: u64,
}

impl<'a> Recorder<'a> {
    fn new(spec: &LoopSpec<'a>, memory: JobMemory) -> Self {
        let now = now_ns();
        let interval_ns = (spec.interval.as_nanos().min(u128::from(u64::MAX)) as u64).max(1);
        Recorder {
            steady: spec.steady,
            stop: spec.interrupt,
            latency: memory.latency,
            interval_latency: memory.interval_latency,
            kept_latency: memory.kept_latency,
            interval_bytes: 0,
            interval_ops: 0,
            interval_index: 0,
            next_boundary: now.saturating_add(interval_ns),
            interval_ns,
            max_intervals: spec.max_intervals.max(2) & !1,
            start: now,
            intervals: Vec::with_capacity(64),
            bytes: 0,
            ops: 0,
        }
    }

    /// Starts the timed region at `start`.
    fn begin(&mut self, start: u64) {
        self.start = start;
        self.next_boundary = start.saturating_add(self.interval_ns);
    }

    #[inline(always)]
    fn record(&mut self, now: u64, latency_ns: u64, bytes: u64) {
        if now >= self.next_boundary {
            self.roll_over(now);
        }
        // Recorded once, into the interval; the interval is added to the
        // total when it closes (exact: histograms add bucket by bucket).
        self.interval_latency.saturating_record(latency_ns);
        self.interval_bytes += bytes;
        self.interval_ops += 1;
        self.bytes += bytes;
        self.ops += 1;
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
        if let Some((steady, job)) = self.steady {
            let interval_s = self.interval_ns as f64 * 1e-9;
            steady.update(job, &self.intervals, interval_s, now, self.stop);
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
        // The interval keeps its latencies at 2 digits (see
        // new_interval_histogram); the total gets them at full resolution.
        for value in self.interval_latency.iter_recorded() {
            self.kept_latency
                .saturating_record_n(value.value_iterated_to(), value.count_at_value());
        }
        let latency_counts = pairs_of(&self.kept_latency);
        self.kept_latency.reset();
        self.intervals.push(IntervalSample {
            bytes: self.interval_bytes,
            ops: self.interval_ops,
            latency_counts,
        });
        self.latency
            .add(&self.interval_latency)
            .expect("the interval and total histograms share their bounds");
        self.interval_latency.reset();
        self.interval_bytes = 0;
        self.interval_ops = 0;
    }

    fn finish(
        mut self,
        end: u64,
        cpu: CpuUsage,
        failure: Option<IoFailure>,
        interrupted: bool,
    ) -> JobOutcome {
        if self.interval_ops > 0 || self.intervals.is_empty() {
            self.close_interval();
        }
        JobOutcome {
            bytes: self.bytes,
            ops: self.ops,
            start: self.start,
            end,
            latency: self.latency,
            submit: None,
            intervals: self.intervals,
            interval_ns: self.interval_ns,
            cpu,
            failure,
            interrupted,
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
    let mut merged = IntervalSample::default();
    for sample in samples {
        merged.bytes += sample.bytes;
        merged.ops += sample.ops;
        for &(value, count) in &sample.latency_counts {
            scratch.saturating_record_n(value, count);
        }
    }
    merged.latency_counts = pairs_of(scratch);
    scratch.reset();
    merged
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

/// The stages of one job's repetition that differ between engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Unmeasured I/O until the ramp's deadline.
    Ramp,
    /// The measured I/O.
    Timed,
    /// Inside the timed region after the last I/O: flush, and fsync if asked.
    Finish,
}

/// The common shape of a job: set up, wait for the others (`ready`, false
/// when the start is called off: the job then ends at once, doing no I/O,
/// as if interrupted), ramp, then time the measured phase and its finish.
/// `step` performs one phase with the engine; it gets the recorder only for
/// the timed phase.
fn ramp_then_time(
    spec: &LoopSpec<'_>,
    memory: JobMemory,
    ready: impl FnOnce() -> bool,
    mut step: impl FnMut(
        Phase,
        &mut BlockSequence,
        Option<&mut Recorder>,
        Option<u64>,
    ) -> Result<Stop, IoFailure>,
) -> JobOutcome {
    let mut blocks = BlockSequence::new(spec.pattern, spec.blocks, spec.seed);
    let mut recorder = Recorder::new(spec, memory);
    if !ready() {
        return recorder.finish(now_ns(), CpuUsage::default(), None, true);
    }
    if !spec.ramp.is_zero() {
        let ramp_end = now_ns() + spec.ramp.as_nanos() as u64;
        if let Err(failure) = step(Phase::Ramp, &mut blocks, None, Some(ramp_end)) {
            return recorder.finish(now_ns(), CpuUsage::default(), Some(failure), false);
        }
        blocks.start_next_pass();
    }
    let cpu_before = CpuUsage::of_this_thread();
    let start = now_ns();
    recorder.begin(start);
    let deadline = spec
        .runtime
        .map(|runtime| start + runtime.as_nanos() as u64);
    let mut result = step(Phase::Timed, &mut blocks, Some(&mut recorder), deadline);
    let interrupted = matches!(result, Ok(Stop::Interrupted));
    if result.is_ok() && !interrupted {
        result = step(Phase::Finish, &mut blocks, None, None);
    }
    let end = now_ns();
    let cpu = CpuUsage::of_this_thread() - cpu_before;
    recorder.finish(end, cpu, result.err(), interrupted)
}

/// Runs one job with a synchronous engine: ramp, then the timed region.
///
/// `ready` is called once everything is set up, just before the clock starts;
/// the runner uses it to release all jobs together (see [`super::gate`]).
pub fn run_blocking<E: BlockIo>(
    engine: &mut E,
    buffer: &mut [u8],
    spec: &LoopSpec<'_>,
    memory: JobMemory,
    ready: impl FnOnce() -> bool,
) -> JobOutcome {
    ramp_then_time(
        spec,
        memory,
        ready,
        |phase, blocks, recorder, deadline| match phase {
            Phase::Finish => finish_writes(engine, spec).map(|()| Stop::Done),
            Phase::Ramp | Phase::Timed => {
                blocking_phase(engine, buffer, spec, blocks, recorder, deadline)
            }
        },
    )
}

/// Why a phase ended without failure.
#[derive(Debug, PartialEq, Eq)]
enum Stop {
    Done,
    Interrupted,
}

fn finish_writes<E: BlockIo>(engine: &mut E, spec: &LoopSpec<'_>) -> Result<(), IoFailure> {
    if !spec.write {
        return Ok(());
    }
    engine
        .flush()
        .map_err(|error| fsync_failure(spec, error, "flush"))?;
    if spec.fsync_end {
        engine
            .sync_all()
            .map_err(|error| fsync_failure(spec, error, "fsync"))?;
    }
    Ok(())
}

fn fsync_failure(spec: &LoopSpec<'_>, error: io::Error, action: &'static str) -> IoFailure {
    IoFailure {
        action,
        file: spec.file.to_string(),
        offset: 0,
        bs: 0,
        moved: None,
        error: Some(error),
    }
}

/// Issues I/O until the pass ends (one-pass runs) or `deadline` passes;
/// records completions when a recorder is given (not during the ramp).
#[inline(never)]
fn blocking_phase<E: BlockIo>(
    engine: &mut E,
    buffer: &mut [u8],
    spec: &LoopSpec<'_>,
    blocks: &mut BlockSequence,
    mut recorder: Option<&mut Recorder>,
    deadline: Option<u64>,
) -> Result<Stop, IoFailure> {
    let bs = spec.bs;
    let mut last = now_ns();
    let mut writes_since_fsync = 0u64;
    loop {
        let block = match blocks.next_block() {
            Some(block) => block,
            None if deadline.is_some() => {
                blocks.start_next_pass();
                continue;
            }
            None => return Ok(Stop::Done),
        };
        let offset = spec.base + block * bs;
        let moved = if spec.write {
            // The previous completion time serves as the generation: it
            // changes per I/O and costs no extra clock read.
            prepare_write(buffer, spec, offset, last);
            engine.write_at(buffer, offset)
        } else {
            engine.read_at(buffer, offset)
        };
        let now = now_ns();
        match moved {
            Ok(moved) if moved as u64 == bs => {}
            Ok(moved) => return Err(transfer_failure(spec, offset, Some(moved as u64), None)),
            Err(error) => return Err(transfer_failure(spec, offset, None, Some(error))),
        }
        if let Some(recorder) = recorder.as_deref_mut() {
            recorder.record(now, now - last, bs);
        }
        last = now;
        if spec.fsync_every > 0 {
            writes_since_fsync += 1;
            if writes_since_fsync == spec.fsync_every {
                writes_since_fsync = 0;
                engine
                    .sync_all()
                    .map_err(|error| fsync_failure(spec, error, "fsync"))?;
                last = now_ns();
            }
        }
        if deadline.is_some_and(|deadline| now >= deadline) {
            return Ok(Stop::Done);
        }
        let flag = spec.interrupt.load(Ordering::Relaxed);
        if flag != 0 {
            return Ok(stop_for(flag));
        }
    }
}

fn transfer_failure(
    spec: &LoopSpec<'_>,
    offset: u64,
    moved: Option<u64>,
    error: Option<io::Error>,
) -> IoFailure {
    IoFailure {
        action: if spec.write { "write" } else { "read" },
        file: spec.file.to_string(),
        offset,
        bs: spec.bs,
        moved,
        error,
    }
}

/// Runs one job on io_uring with `depth` requests in flight: ramp, then the timed region.
pub fn run_queued<Q: QueuedIo>(
    ring: &mut Q,
    depth: u32,
    spec: &LoopSpec<'_>,
    mut memory: JobMemory,
    ready: impl FnOnce() -> bool,
) -> JobOutcome {
    let mut submit = memory.submit.take().unwrap_or_else(new_histogram);
    let mut queue = SlotQueue::new(depth);
    let mut outcome =
        ramp_then_time(
            spec,
            memory,
            ready,
            |phase, blocks, recorder, deadline| match phase {
                Phase::Ramp => queued_phase(ring, &mut queue, spec, blocks, None, None, deadline),
                Phase::Timed => queued_phase(
                    ring,
                    &mut queue,
                    spec,
                    blocks,
                    recorder,
                    Some(&mut submit),
                    deadline,
                ),
                Phase::Finish if spec.write && spec.fsync_end => ring
                    .sync_all()
                    .map(|()| Stop::Done)
                    .map_err(|error| fsync_failure(spec, error, "fsync")),
                Phase::Finish => Ok(Stop::Done),
            },
        );
    outcome.submit = Some(submit);
    outcome
}

/// Free buffer slots and, per slot, the offset and submission time of its request.
struct SlotQueue {
    free: Vec<u32>,
    offsets: Vec<u64>,
    started: Vec<u64>,
    just_queued: Vec<u32>,
}

impl SlotQueue {
    fn new(depth: u32) -> Self {
        let now = now_ns();
        SlotQueue {
            free: (0..depth).rev().collect(),
            offsets: vec![0; depth as usize],
            started: vec![now; depth as usize],
            just_queued: Vec::with_capacity(depth as usize),
        }
    }

    fn in_flight(&self) -> usize {
        self.offsets.len() - self.free.len()
    }
}

/// Keeps the ring full until the pass ends or `deadline` passes, then drains
/// it: every submitted request is reaped before returning, also on failure,
/// because the kernel uses the buffers until completion.
#[inline(never)]
fn queued_phase<Q: QueuedIo>(
    ring: &mut Q,
    queue: &mut SlotQueue,
    spec: &LoopSpec<'_>,
    blocks: &mut BlockSequence,
    mut recorder: Option<&mut Recorder>,
    mut submit: Option<&mut Histogram<u64>>,
    deadline: Option<u64>,
) -> Result<Stop, IoFailure> {
    let bs = spec.bs;
    let mut failure: Option<IoFailure> = None;
    let mut stop = Stop::Done;
    let mut exhausted = false;
    let mut writes_since_fsync = 0u64;
    let mut now = now_ns();
    let batch = spec.batch.max(1) as usize;
    loop {
        // Queue: fill every free slot, `batch` requests per system call,
        // unless stopping or an fsync is due.
        let fsync_due = spec.fsync_every > 0 && writes_since_fsync >= spec.fsync_every;
        queue.just_queued.clear();
        while !exhausted && failure.is_none() && !fsync_due {
            let Some(&slot) = queue.free.last() else {
                break;
            };
            let block = match blocks.next_block() {
                Some(block) => block,
                None if deadline.is_some() => {
                    blocks.start_next_pass();
                    continue;
                }
                None => {
                    exhausted = true;
                    break;
                }
            };
            let offset = spec.base + block * bs;
            if spec.write {
                prepare_write(ring.slot_buffer(slot), spec, offset, now);
            }
            if !ring.queue(slot, offset, spec.write) {
                break;
            }
            queue.free.pop();
            queue.offsets[slot as usize] = offset;
            queue.just_queued.push(slot);
            writes_since_fsync += u64::from(spec.write);
            if queue.just_queued.len() == batch {
                now = submit_batch(ring, queue, spec, submit.as_deref_mut(), now, &mut failure);
            }
        }
        if !queue.just_queued.is_empty() {
            now = submit_batch(ring, queue, spec, submit.as_deref_mut(), now, &mut failure);
        }
        if queue.in_flight() == 0 {
            if fsync_due && failure.is_none() && !exhausted {
                ring.sync_all()
                    .map_err(|error| fsync_failure(spec, error, "fsync"))?;
                writes_since_fsync = 0;
                now = now_ns();
                continue;
            }
            break;
        }
        if !ring.has_completions() {
            if let Err(error) = ring.wait(1) {
                if error.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                // The ring cannot be waited on; the buffers stay allocated by the
                // caller, so report and stop rather than free memory in use.
                return Err(transfer_failure(spec, 0, None, Some(error)));
            }
        }
        now = now_ns();
        ring.reap(|slot, result| {
            let slot_index = slot as usize;
            queue.free.push(slot);
            let offset = queue.offsets[slot_index];
            if result < 0 {
                failure.get_or_insert_with(|| {
                    transfer_failure(
                        spec,
                        offset,
                        None,
                        Some(io::Error::from_raw_os_error(-result)),
                    )
                });
            } else if result as u64 != bs {
                failure.get_or_insert_with(|| {
                    transfer_failure(spec, offset, Some(result as u64), None)
                });
            } else if let Some(recorder) = recorder.as_deref_mut() {
                let latency = now.saturating_sub(queue.started[slot_index]);
                recorder.record(now, latency, bs);
            }
        });
        if deadline.is_some_and(|deadline| now >= deadline) {
            exhausted = true;
        }
        let flag = spec.interrupt.load(Ordering::Relaxed);
        if flag != 0 && !exhausted {
            exhausted = true;
            stop = stop_for(flag);
        }
    }
    match failure {
        Some(failure) => Err(failure),
        None => Ok(stop),
    }
}

/// Submits the requests queued since the last submission, stamps their start
/// (`submitted_at`, just before the system call) and records the time the call
/// took once per request; returns the time after the call.
#[inline]
fn submit_batch<Q: QueuedIo>(
    ring: &mut Q,
    queue: &mut SlotQueue,
    spec: &LoopSpec<'_>,
    submit: Option<&mut Histogram<u64>>,
    submitted_at: u64,
    failure: &mut Option<IoFailure>,
) -> u64 {
    if let Err(error) = ring.submit() {
        let offset = queue.offsets[queue.just_queued[0] as usize];
        failure.get_or_insert(transfer_failure(spec, offset, None, Some(error)));
    }
    let after_submit = now_ns();
    if let Some(submit) = submit {
        let count = queue.just_queued.len() as u64;
        submit.saturating_record_n(after_submit.saturating_sub(submitted_at), count);
    }
    for &slot in &queue.just_queued {
        queue.started[slot as usize] = submitted_at;
    }
    queue.just_queued.clear();
    after_submit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::null::NullIo;

    fn memory() -> JobMemory {
        JobMemory::try_new(false).expect("a few MiB are free")
    }

    fn spec(interrupt: &AtomicUsize) -> LoopSpec<'_> {
        LoopSpec {
            write: false,
            bs: 4096,
            blocks: 1000,
            base: 0,
            pattern: Pattern::Random,
            seed: 1,
            runtime: None,
            ramp: Duration::ZERO,
            batch: 1,
            fsync_every: 0,
            fsync_end: false,
            interval: Duration::from_secs(1),
            max_intervals: 1024,
            interrupt,
            file: "null",
            steady: None,
            verify: None,
        }
    }

    #[test]
    fn one_pass_counts_every_block_once() {
        let interrupt = AtomicUsize::new(0);
        let mut buffer = vec![0u8; 4096];
        let outcome = run_blocking(
            &mut NullIo,
            &mut buffer,
            &spec(&interrupt),
            memory(),
            || true,
        );
        assert_eq!(outcome.ops, 1000);
        assert_eq!(outcome.bytes, 4096 * 1000);
        assert_eq!(outcome.latency.len(), 1000);
        assert!(outcome.failure.is_none() && !outcome.interrupted);
        let series_ops: u64 = outcome.intervals.iter().map(|i| i.ops).sum();
        assert_eq!(series_ops, 1000);
    }

    #[test]
    fn time_based_runs_repeat_passes_and_fill_intervals() {
        let interrupt = AtomicUsize::new(0);
        let mut buffer = vec![0u8; 4096];
        let mut spec = spec(&interrupt);
        spec.runtime = Some(Duration::from_millis(120));
        spec.interval = Duration::from_millis(20);
        spec.ramp = Duration::from_millis(10);
        let outcome = run_blocking(&mut NullIo, &mut buffer, &spec, memory(), || true);
        assert!(outcome.ops > 1000, "several passes: {}", outcome.ops);
        let elapsed = outcome.end - outcome.start;
        assert!(elapsed >= 120_000_000, "{elapsed} ns");
        // At least the 120 ms runtime's six intervals, at most one per 20 ms
        // that passed (a loaded machine may stretch the run).
        let most = elapsed / 20_000_000 + 1;
        let kept = outcome.intervals.len() as u64;
        assert!(
            (6..=most).contains(&kept),
            "{kept} intervals in {elapsed} ns"
        );
        let series_ops: u64 = outcome.intervals.iter().map(|i| i.ops).sum();
        assert_eq!(series_ops, outcome.ops);
    }

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
            recorder.record(1_000 + k * 10 + 5, k + 1, 4096);
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
            fine.record(1_000 + k * 10 + 5, k + 1, 4096);
        }
        let fine = fine.finish(2_000, CpuUsage::default(), None, false);
        assert_eq!(fine.interval_ns, 10);
        let coarse = coarsen_series(&fine.intervals, fine.interval_ns, 160);
        let ops = |s: &[IntervalSample]| s.iter().map(|i| i.ops).collect::<Vec<_>>();
        assert_eq!(ops(&coarse), ops(&outcome.intervals));
    }

    #[test]
    fn an_interrupt_stops_the_loop() {
        let interrupt = AtomicUsize::new(15);
        let mut buffer = vec![0u8; 4096];
        let outcome = run_blocking(
            &mut NullIo,
            &mut buffer,
            &spec(&interrupt),
            memory(),
            || true,
        );
        assert!(outcome.interrupted);
        assert_eq!(outcome.ops, 1);
    }

    struct FailingIo {
        fail_at: u64,
        short: bool,
    }

    impl BlockIo for FailingIo {
        fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            match offset == self.fail_at {
                false => Ok(buf.len()),
                true if self.short => Ok(buf.len() / 2),
                true => Err(io::Error::from_raw_os_error(libc::EIO)),
            }
        }
        fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
            Ok(buf.len())
        }
        fn sync_all(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn errors_and_short_transfers_end_the_loop_with_the_offset() {
        let interrupt = AtomicUsize::new(0);
        let mut buffer = vec![0u8; 4096];
        let mut spec = spec(&interrupt);
        spec.pattern = Pattern::Seq;
        for short in [false, true] {
            let mut engine = FailingIo {
                fail_at: 4096 * 7,
                short,
            };
            let outcome = run_blocking(&mut engine, &mut buffer, &spec, memory(), || true);
            let failure = outcome.failure.expect("the failure is reported");
            assert_eq!(failure.offset, 4096 * 7);
            assert_eq!(outcome.ops, 7, "only I/Os before the failure count");
            let message = failure.to_string();
            assert!(
                message.contains("offset 28672") && message.contains("null"),
                "{message}"
            );
            assert!(
                message.contains(if short {
                    "short read: 2048 of 4096"
                } else {
                    "EIO"
                }),
                "{message}"
            );
        }
    }
}
