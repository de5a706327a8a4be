//! The timing loops: the hot path that issues I/O, checks every result and records latency.
//!
//! Per I/O: its block and its direction from the plan's draws, one clock
//! read (the completion of one synchronous I/O is the start of the next),
//! one record into the job's recorder (`run/io/recorder.rs`), a relaxed load
//! of the interrupt flag, no allocation, no lock and no system call beyond
//! the I/O itself.

use super::buffer::mark;
use super::coverage::Touched;
use super::depth_search::Verdict;
pub(in crate::run) use super::draws::Draws;
use super::pacer::{Pacer, Unpaced, pacer_of, wait_until};
use super::recorder::Recorder;
use super::recorder::{JobMemory, JobOutcome};
use super::spec::{IoFailure, LoopSpec, fsync_failure, latency_failure, transfer_failure};
use crate::clock::now_ns;
use crate::engine::BlockIo;
use crate::plan::direction::Direction;
use crate::probe::cpu::CpuUsage;
use crate::run::signals::STEADY_STOP;
use std::sync::atomic::Ordering;

/// Prepares an I/O's bytes for writing: each of its blocks sealed with a
/// verification header (the check reads the file back block by block, and
/// after a mix learns from `draws` which blocks were written), or stamped
/// as `--data` draws it (so that no two unique writes carry the same bytes).
#[inline]
pub(in crate::run) fn prepare_write(
    block: &mut [u8],
    spec: &LoopSpec<'_>,
    draws: &mut Draws,
    offset: u64,
    generation: u64,
) {
    match spec.verify {
        Some(run) => {
            if let Some(written) = &mut draws.written {
                let first = (offset - spec.base) / spec.bs;
                for block in first..first + block.len() as u64 / spec.bs {
                    written.mark(block);
                }
            }
            for (index, sealed) in block.chunks_exact_mut(spec.bs as usize).enumerate() {
                super::verify::seal(
                    sealed,
                    &super::verify::Header {
                        offset: offset + index as u64 * spec.bs,
                        run,
                        sequence: generation,
                        seed: spec.seed,
                        block_size: spec.bs,
                    },
                );
            }
        }
        None => mark(block, draws.data.next(), (offset, generation), spec.data),
    }
}

/// Why the loops saw a nonzero flag: a signal, or steady state (a normal end).
#[inline]
pub(in crate::run) fn stop_for(flag: usize) -> Stop {
    if flag == STEADY_STOP {
        Stop::Done
    } else {
        Stop::Interrupted
    }
}

/// The stages of one job's repetition that differ between engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::run) enum Phase {
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
pub(in crate::run) fn ramp_then_time(
    spec: &LoopSpec<'_>,
    mut memory: JobMemory,
    ready: impl FnOnce() -> bool,
    mut step: impl FnMut(
        Phase,
        &mut Draws,
        Option<&mut Recorder>,
        Option<u64>,
    ) -> Result<Stop, IoFailure>,
) -> JobOutcome {
    let mut blocks = Draws::new(spec);
    if let Some((zones, zbd)) = memory.zones.take() {
        blocks.place_in(super::zones::ZoneUse::new(
            zones,
            zbd,
            spec.base,
            spec.blocks,
            spec.bs,
            !spec.pattern.in_order(),
        ));
    }
    let mut recorder = Recorder::new(spec, memory);
    if !ready() {
        return recorder.finish(now_ns(), CpuUsage::default(), None, true);
    }
    if !spec.start_delay.is_zero() {
        let due = now_ns() + spec.start_delay.as_nanos() as u64;
        let (woke, waited) = super::pacer::wait_until(due, None, spec.interrupt);
        if !waited {
            return recorder.finish(woke, CpuUsage::default(), None, true);
        }
    }
    if !spec.ramp.is_zero() {
        super::live::set_phase(super::live::Phase::Ramp);
        let ramp_end = now_ns() + spec.ramp.as_nanos() as u64;
        if let Err(failure) = step(Phase::Ramp, &mut blocks, None, Some(ramp_end)) {
            return recorder.finish(now_ns(), CpuUsage::default(), Some(failure), false);
        }
        blocks.blocks.start_next_pass();
        if let Some(touched) = &mut blocks.touched {
            touched.clear();
        }
        if let Some(zones) = blocks.zones() {
            zones.clear_resets();
        }
    }
    let mut cpu_before = CpuUsage::of_this_thread();
    let mut start = now_ns();
    recorder.begin(start);
    super::live::set_phase(super::live::Phase::Measuring);
    // A runtime's passes repeat until it is up; a time limit ends the
    // passes early when they take longer.
    blocks.endless = spec.runtime.is_some();
    if let Some(budget) = spec.io_blocks {
        // As many passes as the bytes take; the budget ends the last.
        blocks.blocks_left = budget;
        blocks.passes_after = u64::MAX;
    }
    let deadline_from = |start: u64| {
        spec.runtime
            .or(spec.time_limit)
            .map(|limit| start + limit.as_nanos() as u64)
    };
    let mut result = step(
        Phase::Timed,
        &mut blocks,
        Some(&mut recorder),
        deadline_from(start),
    );
    while matches!(result, Ok(Stop::Restart)) {
        // A latency target's depth held: what was recorded is discarded
        // and the job measures again from here, its runtime and its bytes
        // counted afresh, as fio resets its statistics for the final run.
        start = now_ns();
        cpu_before = CpuUsage::of_this_thread();
        recorder.restart(start);
        blocks.restart_budget(spec);
        result = step(
            Phase::Timed,
            &mut blocks,
            Some(&mut recorder),
            deadline_from(start),
        );
    }
    let interrupted = matches!(result, Ok(Stop::Interrupted));
    if result.is_ok() && !interrupted {
        result = step(Phase::Finish, &mut blocks, None, None);
    }
    let end = now_ns();
    let cpu = CpuUsage::of_this_thread() - cpu_before;
    let mut outcome = recorder.finish(end, cpu, result.err(), interrupted);
    outcome.coverage = blocks.touched.as_ref().map(Touched::count);
    // As fio counts them: for a job that writes or trims.
    outcome.zone_resets = blocks
        .zones()
        .filter(|_| spec.directions.writes() || spec.directions.takes(Direction::Trim))
        .map(super::zones::ZoneUse::resets);
    outcome.latency_depth = blocks
        .search
        .as_ref()
        .map(|search| (search.depth(), search.settled()));
    outcome.written = blocks.written;
    outcome.backlog_checked = blocks.backlog.map_or(0, |backlog| backlog.checked);
    outcome
}

/// Runs one job with a synchronous engine: ramp, then the timed region.
///
/// `ready` is called once everything is set up, just before the clock starts;
/// the runner uses it to release all jobs together (see [`super::gate`]).
pub fn run_blocking<E: BlockIo>(
    engine: &mut E,
    buffer: &mut [u8],
    spec: &LoopSpec<'_>,
    mut memory: JobMemory,
    ready: impl FnOnce() -> bool,
) -> JobOutcome {
    match pacer_of(spec, &mut memory) {
        None => blocking_with(engine, buffer, spec, memory, ready, Unpaced),
        Some(pacer) => blocking_with(engine, buffer, spec, memory, ready, pacer),
    }
}

fn blocking_with<E: BlockIo, P: Pacer>(
    engine: &mut E,
    buffer: &mut [u8],
    spec: &LoopSpec<'_>,
    memory: JobMemory,
    ready: impl FnOnce() -> bool,
    mut pacer: P,
) -> JobOutcome {
    let mut outcome =
        ramp_then_time(
            spec,
            memory,
            ready,
            |phase, blocks, recorder, deadline| match phase {
                Phase::Finish => finish_writes(engine, spec).map(|()| Stop::Done),
                Phase::Ramp | Phase::Timed => {
                    blocking_phase(engine, buffer, spec, blocks, recorder, deadline, &mut pacer)
                }
            },
        );
    outcome.from_intended = pacer.into_histogram().map(super::kept::Latencies::new);
    outcome
}

/// Why a phase ended without failure.
#[derive(Debug, PartialEq, Eq)]
pub(in crate::run) enum Stop {
    Done,
    Interrupted,
    /// A latency target's depth held: the timed region starts again, drained.
    Restart,
}

fn finish_writes<E: BlockIo>(engine: &mut E, spec: &LoopSpec<'_>) -> Result<(), IoFailure> {
    if !spec.directions.modifies() {
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

/// Notes a write of `(offset, len)` sealed with `sequence` in `backlog`
/// (`--verify-backlog`), and reads back and checks its writes once it is
/// full; whether it did.
#[cold]
#[inline(never)]
fn note_write<E: BlockIo>(
    backlog: &mut super::verify::Backlog,
    engine: &mut E,
    buffer: &mut [u8],
    spec: &LoopSpec<'_>,
    (offset, len, sequence): (u64, u64, u64),
) -> Result<bool, IoFailure> {
    if !backlog.wrote(offset, len, sequence) {
        return Ok(false);
    }
    // A backlog is made only with a run tag (`Draws::new`).
    let run = spec.verify.unwrap_or_default();
    backlog
        .check(|data, at| engine.read_at(data, at), buffer, spec.bs, run)
        .map_err(|(offset, bs, error)| IoFailure {
            action: "verify",
            file: spec.file.to_string(),
            offset,
            bs,
            moved: None,
            error: Some(error),
        })?;
    Ok(true)
}

/// Issues I/O until the pass ends (one-pass runs) or `deadline` passes;
/// records completions when a recorder is given (not during the ramp).
#[inline(never)]
fn blocking_phase<E: BlockIo, P: Pacer>(
    engine: &mut E,
    buffer: &mut [u8],
    spec: &LoopSpec<'_>,
    draws: &mut Draws,
    mut recorder: Option<&mut Recorder>,
    deadline: Option<u64>,
    pacer: &mut P,
) -> Result<Stop, IoFailure> {
    let bs = spec.bs;
    let mut last = now_ns();
    let mut writes_since_fsync = 0u64;
    if P::PACED {
        pacer.start(last);
    }
    if let (Some(search), true) = (&mut draws.search, recorder.is_some()) {
        search.start_cycle(last);
    }
    loop {
        // Rates per direction: the direction whose I/O is due first.
        let due = pacer.direction().filter(|_| P::PACED);
        let Some(io) = draws.next(due) else {
            return Ok(Stop::Done);
        };
        let direction = io.direction;
        // Unpaced, an I/O starts when the one before it completed; paced,
        // when it is due, or at once when the job is behind.
        let mut intended = last;
        if P::PACED {
            // Looked at again after each wait: a flow may still hold the
            // job back when its wait ends.
            loop {
                let due = pacer.due();
                if due <= last {
                    break;
                }
                let (woke, reached) = wait_until(due, deadline, spec.interrupt);
                if !reached {
                    return Ok(match spec.interrupt.load(Ordering::Relaxed) {
                        0 => Stop::Done,
                        flag => stop_for(flag),
                    });
                }
                last = woke;
            }
            intended = pacer.issue(last);
        }
        let offset = spec.base + io.block * bs;
        let len = io.blocks * bs;
        let data = &mut buffer[..len as usize];
        let moved = match direction {
            Direction::Write => {
                // The previous completion time serves as the generation: it
                // changes per I/O and costs no extra clock read.
                prepare_write(data, spec, draws, offset, last);
                engine.write_at(data, offset)
            }
            Direction::Read => engine.read_at(data, offset),
            // An emulated zone's reset is the zone table's alone.
            Direction::Trim if io.zone_reset => Ok(len as usize),
            Direction::Trim => engine.trim_at(offset, len).map(|()| len as usize),
        };
        let now = now_ns();
        match moved {
            Ok(moved) if moved as u64 == len => {}
            Ok(moved) => {
                return Err(transfer_failure(
                    spec,
                    (direction, offset, len),
                    Some(moved as u64),
                    None,
                ));
            }
            Err(error) => {
                return Err(transfer_failure(
                    spec,
                    (direction, offset, len),
                    None,
                    Some(error),
                ));
            }
        }
        if let Some(recorder) = recorder.as_deref_mut() {
            recorder.record(now, now - last, (offset, len), direction);
        }
        if P::PACED {
            pacer.completed(now, intended, recorder.is_some());
        }
        if let Some(search) = &mut draws.search {
            let verdict = match search.completed(now - last) {
                Verdict::Keep => search.window_check(now),
                verdict => verdict,
            };
            match verdict {
                // With one I/O in flight there is nothing to drain.
                Verdict::Keep => {}
                Verdict::Drain => search.start_cycle(now),
                Verdict::Restart => return Ok(Stop::Restart),
                Verdict::Done => return Ok(Stop::Done),
                Verdict::Over(latency) => {
                    return Err(latency_failure(spec, (direction, offset, len), latency));
                }
            }
        }
        let sequence = last;
        last = now;
        if let Some(backlog) = &mut draws.backlog {
            // fio's verify_backlog: the next I/O starts after the check.
            if direction == Direction::Write
                && note_write(backlog, engine, buffer, spec, (offset, len, sequence))?
            {
                last = now_ns();
            }
        }
        if spec.fsync_every > 0 && direction == Direction::Write {
            writes_since_fsync += 1;
            if writes_since_fsync == spec.fsync_every {
                writes_since_fsync = 0;
                let synced = if spec.fsync_data {
                    engine.sync_data()
                } else {
                    engine.sync_all()
                };
                synced.map_err(|error| fsync_failure(spec, error, spec.sync_call()))?;
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::engine::null::NullIo;
    use crate::plan::Pattern;
    use crate::plan::data::DataPattern;
    use crate::plan::direction::DirectionMix;
    use crate::plan::pace::Pace;
    use std::io;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    /// A read job's memory.
    pub(crate) fn memory() -> JobMemory {
        JobMemory::try_new(false, DirectionMix::only(Direction::Read)).expect("a few MiB are free")
    }

    /// One pass of random 4 KiB reads over 1000 blocks.
    pub(crate) fn spec(interrupt: &AtomicUsize) -> LoopSpec<'_> {
        LoopSpec {
            directions: DirectionMix::only(Direction::Read),
            bs: 4096,
            sizes: None,
            write_sizes: None,
            trim_then_write: false,
            serialize_overlap: false,
            blocks: 1000,
            align_blocks: 1,
            base: 0,
            pattern: Pattern::Random,
            seed: 1,
            job: (0, 1),
            runtime: None,
            passes: 1,
            io_blocks: None,
            time_limit: None,
            start_delay: Duration::ZERO,
            ramp: Duration::ZERO,
            batch: 1,
            fsync_every: 0,
            fsync_data: false,
            fsync_end: false,
            interval: Duration::from_secs(1),
            iodepth: 1,
            reap: 0,
            latency_target: None,
            priority: None,
            max_intervals: 1024,
            interrupt,
            file: "null",
            verify: None,
            verify_backlog: 0,
            verify_tracks_writes: false,
            data: DataPattern::Unique,
            pace: Pace::NONE,
            socket: None,
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

    /// A disk in memory that drops the writes to one offset after the first.
    struct LosingDisk(Vec<u8>, u64, u32);

    impl BlockIo for LosingDisk {
        fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            let at = offset as usize;
            buf.copy_from_slice(&self.0[at..at + buf.len()]);
            Ok(buf.len())
        }
        fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
            if offset == self.1 {
                self.2 += 1;
                if self.2 > 1 {
                    return Ok(buf.len());
                }
            }
            let at = offset as usize;
            self.0[at..at + buf.len()].copy_from_slice(buf);
            Ok(buf.len())
        }
        fn sync_all(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// `--verify-backlog 4` reads back every 4 writes in the loop: two
    /// clean passes check every block, and a write lost in the second
    /// pass ends it there, naming the block and the older write found.
    #[test]
    fn a_backlog_reads_back_each_write_and_a_lost_one_ends_the_job() {
        let interrupt = AtomicUsize::new(0);
        let mut spec = spec(&interrupt);
        (spec.directions, spec.pattern, spec.blocks) =
            (DirectionMix::only(Direction::Write), Pattern::Seq, 64);
        (spec.passes, spec.verify, spec.verify_backlog) = (2, Some(7), 4);
        let run = |lost: u64| {
            let mut disk = LosingDisk(vec![0; 64 * 4096], lost, 0);
            let mut buffer = vec![0u8; 4096];
            let memory = JobMemory::try_new(false, spec.directions).unwrap();
            run_blocking(&mut disk, &mut buffer, &spec, memory, || true)
        };
        let clean = run(u64::MAX);
        assert!(clean.failure.is_none());
        assert_eq!((clean.ops, clean.backlog_checked), (128, 128));
        let lost = run(10 * 4096);
        let failure = lost.failure.expect("the lost write is found").to_string();
        assert!(
            failure.starts_with("verify of 4096 bytes at offset 40960")
                && failure.contains("found an older one"),
            "{failure}"
        );
        // Found at the check after its write: the 4 writes up to it.
        assert_eq!(lost.ops, 64 + 12);
    }

    #[test]
    fn loops_make_that_many_passes_and_no_more() {
        let interrupt = AtomicUsize::new(0);
        let mut spec = spec(&interrupt);
        spec.passes = 3;
        let outcome = run_blocking(&mut NullIo, &mut vec![0; 4096], &spec, memory(), || true);
        assert_eq!(outcome.ops, 3 * 1000);
        assert_eq!(outcome.bytes, 3 * 1000 * 4096);
    }

    #[test]
    fn a_start_delay_waits_before_the_first_io_outside_the_timed_region() {
        let interrupt = AtomicUsize::new(0);
        let mut spec = spec(&interrupt);
        spec.start_delay = Duration::from_millis(50);
        let before = now_ns();
        let outcome = run_blocking(&mut NullIo, &mut vec![0; 4096], &spec, memory(), || true);
        assert_eq!(outcome.ops, 1000);
        assert!(
            outcome.start >= before + 50_000_000,
            "the timed region starts after it"
        );
        // Interrupted while waiting: no I/O, said so.
        interrupt.store(1, Ordering::Relaxed);
        let outcome = run_blocking(&mut NullIo, &mut vec![0; 4096], &spec, memory(), || true);
        assert_eq!(outcome.ops, 0);
        assert!(outcome.interrupted);
    }

    #[test]
    fn an_io_size_wraps_over_the_file_and_stops_at_its_bytes() {
        let interrupt = AtomicUsize::new(0);
        let mut spec = spec(&interrupt);
        spec.io_blocks = Some(2500);
        let outcome = run_blocking(&mut NullIo, &mut vec![0; 4096], &spec, memory(), || true);
        assert_eq!((outcome.ops, outcome.bytes), (2500, 2500 * 4096));
        spec.io_blocks = Some(10);
        let outcome = run_blocking(&mut NullIo, &mut vec![0; 4096], &spec, memory(), || true);
        assert_eq!(outcome.ops, 10);
    }

    #[test]
    fn a_time_limit_cuts_passes_short_and_never_adds_one() {
        let interrupt = AtomicUsize::new(0);
        let mut spec = spec(&interrupt);
        // Far more passes than 30 ms holds: the limit ends them.
        spec.passes = 1 << 40;
        spec.time_limit = Some(Duration::from_millis(30));
        let started = std::time::Instant::now();
        let outcome = run_blocking(&mut NullIo, &mut vec![0; 4096], &spec, memory(), || true);
        assert!(outcome.ops > 1000, "more than a pass: {}", outcome.ops);
        assert!(started.elapsed() < Duration::from_secs(10));
        // One pass done long before the limit: one pass, nothing more.
        spec.passes = 1;
        spec.time_limit = Some(Duration::from_secs(60));
        let outcome = run_blocking(&mut NullIo, &mut vec![0; 4096], &spec, memory(), || true);
        assert_eq!(outcome.ops, 1000);
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

    /// Counts what reaches it, by direction and block.
    #[derive(Default)]
    struct CountingIo {
        reads: u64,
        writes: u64,
    }

    impl BlockIo for CountingIo {
        fn read_at(&mut self, buf: &mut [u8], _offset: u64) -> io::Result<usize> {
            self.reads += 1;
            Ok(buf.len())
        }
        fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
            self.writes += 1;
            Ok(buf.len())
        }
        fn sync_all(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    pub(crate) fn mixed_memory(mix: DirectionMix, queued: bool) -> JobMemory {
        JobMemory::try_new(queued, mix).expect("a few MiB are free")
    }

    /// Checks a mixed job's outcome against what the engine saw.
    pub(crate) fn check_shares(outcome: &JobOutcome, reads: u64, writes: u64) {
        assert!(outcome.failure.is_none(), "{:?}", outcome.failure);
        assert_eq!(outcome.ops, 10_000);
        let [read, write] = &outcome.directions[..] else {
            panic!("a mixed job has both shares: {:?}", outcome.directions);
        };
        assert_eq!(
            (read.direction, write.direction),
            (Direction::Read, Direction::Write)
        );
        assert_eq!(
            (read.ops, write.ops),
            (reads, writes),
            "as the engine saw them"
        );
        assert_eq!(read.bytes + write.bytes, outcome.bytes);
        assert_eq!((read.latency.len(), write.latency.len()), (reads, writes));
        assert_eq!(outcome.latency.len(), 10_000, "the total holds both");
        // 30% writes, within 5 standard deviations of a binomial draw.
        let sd = (10_000.0f64 * 0.3 * 0.7).sqrt();
        assert!(
            (writes as f64 - 3_000.0).abs() < 5.0 * sd,
            "{writes} writes"
        );
    }

    #[test]
    fn a_mixed_job_draws_each_direction_and_records_both_shares() {
        let interrupt = AtomicUsize::new(0);
        let mix = DirectionMix::with_write_percent(30).unwrap();
        let mut spec = spec(&interrupt);
        (spec.directions, spec.blocks) = (mix, 10_000);
        let mut engine = CountingIo::default();
        let mut buffer = vec![0u8; 4096];
        let outcome = run_blocking(
            &mut engine,
            &mut buffer,
            &spec,
            mixed_memory(mix, false),
            || true,
        );
        check_shares(&outcome, engine.reads, engine.writes);
        // An unmixed job keeps no shares: its totals are its direction's.
        spec.directions = DirectionMix::only(Direction::Write);
        let outcome = run_blocking(
            &mut CountingIo::default(),
            &mut buffer,
            &spec,
            memory(),
            || true,
        );
        assert!(outcome.directions.is_empty() && outcome.ops == 10_000);
    }
}
