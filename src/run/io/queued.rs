//! The queue-depth loop: keeps a queued engine's slots full, submits in batches, reaps completions, checks and records each one.
//!
//! The shape of a job (ramp, timed region, finish) and the per-I/O draws are
//! `timing`'s; this loop adds what a queue needs: free slots, each slot's
//! request (offset, length, direction, submission and intended times), a
//! drawn I/O kept when the submission queue is full, and a drain of every
//! request before returning, because the kernel or the library uses the
//! buffers until completion.

use super::depth_search::Verdict;
use super::pacer::{Pacer, Unpaced, pacer_of, wait_until};
use super::priority::CommandPriorities;
use super::recorder::{JobMemory, JobOutcome, Recorder};
use super::spec::{
    IoFailure, LoopSpec, fsync_failure, latency_failure, transfer_failure, wait_failure,
};
use super::timing::{Draws, Phase, Stop, prepare_write, ramp_then_time, stop_for};
use crate::clock::now_ns;
use crate::engine::QueuedIo;
use crate::plan::direction::Direction;
use crate::record::QueueDepths;
use crate::record::histogram::new_histogram;
use hdrhistogram::Histogram;
use std::io;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Runs one job on io_uring with `depth` requests in flight: ramp, then the timed region.
pub fn run_queued<Q: QueuedIo>(
    ring: &mut Q,
    depth: u32,
    spec: &LoopSpec<'_>,
    mut memory: JobMemory,
    ready: impl FnOnce() -> bool,
) -> JobOutcome {
    match pacer_of(spec, &mut memory) {
        None => queued_with(ring, depth, spec, memory, ready, Unpaced),
        Some(pacer) => queued_with(ring, depth, spec, memory, ready, pacer),
    }
}

fn queued_with<Q: QueuedIo, P: Pacer>(
    ring: &mut Q,
    depth: u32,
    spec: &LoopSpec<'_>,
    mut memory: JobMemory,
    ready: impl FnOnce() -> bool,
    mut pacer: P,
) -> JobOutcome {
    let mut submit = memory
        .submit
        .take()
        .unwrap_or_else(|| Direction::ALL.map(|_| new_histogram()));
    let mut depths = QueueDepths::default();
    let mut completion = memory
        .completion
        .take()
        .unwrap_or_else(|| Direction::ALL.map(|_| new_histogram()));
    let mut queue = SlotQueue::new(depth);
    let mut commands = CommandPriorities::new(spec.priority, spec.seed);
    let mut outcome =
        ramp_then_time(
            spec,
            memory,
            ready,
            |phase, blocks, recorder, deadline| match phase {
                Phase::Ramp => queued_phase(
                    ring,
                    &mut queue,
                    spec,
                    blocks,
                    (None, None, commands.as_mut()),
                    deadline,
                    &mut pacer,
                ),
                Phase::Timed => {
                    let stop = queued_phase(
                        ring,
                        &mut queue,
                        spec,
                        blocks,
                        (
                            recorder,
                            Some(TimedQueue {
                                submit: &mut submit,
                                completion: &mut completion,
                                depths: &mut depths,
                            }),
                            commands.as_mut(),
                        ),
                        deadline,
                        &mut pacer,
                    );
                    if matches!(stop, Ok(Stop::Restart)) {
                        submit.iter_mut().for_each(Histogram::reset);
                        completion.iter_mut().for_each(Histogram::reset);
                        depths = QueueDepths::default();
                        commands.iter_mut().for_each(CommandPriorities::reset);
                    }
                    stop
                }
                Phase::Finish if spec.directions.writes() && spec.fsync_end => ring
                    .sync_all()
                    .map(|()| Stop::Done)
                    .map_err(|error| fsync_failure(spec, error, "fsync")),
                Phase::Finish => Ok(Stop::Done),
            },
        );
    // Each direction the job takes, with its histogram.
    let taken = |histograms: [Histogram<u64>; 3]| {
        Direction::ALL
            .into_iter()
            .zip(histograms)
            .filter(|(direction, _)| spec.directions.takes(*direction))
            .map(|(direction, histogram)| (direction, super::kept::Latencies::new(histogram)))
            .collect()
    };
    outcome.submit = Some(taken(submit));
    outcome.queue_depths = Some(depths);
    outcome.completion = Some(taken(completion));
    outcome.from_intended = pacer.into_histogram().map(super::kept::Latencies::new);
    outcome.prioritized = commands.map(CommandPriorities::into_latencies);
    outcome
}

/// What a timed phase keeps of its queue beside each I/O's latency.
struct TimedQueue<'a> {
    /// Per direction: the submitting calls' times, once per I/O of that
    /// direction submitted.
    submit: &'a mut [Histogram<u64>; 3],
    /// Per direction: each I/O's time from the submitting call's return to
    /// its completion.
    completion: &'a mut [Histogram<u64>; 3],
    /// The depth each I/O was submitted at, the I/Os each submitting call
    /// took and each reaping pass found, in fio's bins.
    depths: &'a mut QueueDepths,
}

/// Hands `handle` the completions stashed before, then those the engine
/// has ready, `most` in all (0: every one); the rest are stashed, their
/// slots still in flight, for the next pass (fio's
/// `iodepth_batch_complete_max`).
#[inline(always)]
fn handle_reaped<Q: QueuedIo>(
    ring: &mut Q,
    stash: &mut Vec<(u32, i32)>,
    most: u32,
    mut handle: impl FnMut(u32, i32),
) {
    let mut budget = if most == 0 { usize::MAX } else { most as usize };
    let earlier = budget.min(stash.len());
    for (slot, result) in stash.drain(..earlier) {
        handle(slot, result);
    }
    budget -= earlier;
    if budget > 0 {
        ring.reap(|slot, result| {
            if budget > 0 {
                budget -= 1;
                handle(slot, result);
            } else {
                stash.push((slot, result));
            }
        });
    }
}

/// fio's bin of a depth (`io_u_mark_depth`): 1, 2–3, 4–7, 8–15, 16–31,
/// 32–63, 64 and more.
#[inline(always)]
fn depth_bin(depth: usize) -> usize {
    match depth {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// fio's bin of a count per call (`__io_u_mark_map`): 0, 1–4, 5–8, 9–16,
/// 17–32, 33–64, more.
#[inline(always)]
fn count_bin(count: usize) -> usize {
    match count {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// Free buffer slots and, per slot, the offset, length, direction, I/O
/// priority, submission time (before the submitting call, and after it)
/// and (paced) intended issue time of its request.
struct SlotQueue {
    free: Vec<u32>,
    offsets: Vec<u64>,
    lens: Vec<u64>,
    directions: Vec<Direction>,
    priorities: Vec<u16>,
    started: Vec<u64>,
    issued: Vec<u64>,
    intended: Vec<u64>,
    just_queued: Vec<u32>,
    /// Which slots hold a request in flight (`--serialize-overlap` looks
    /// at their ranges).
    busy: Vec<bool>,
}

impl SlotQueue {
    /// Whether `len` bytes at `offset` overlap a request in flight (queued
    /// or submitted).
    fn overlaps(&self, offset: u64, len: u64) -> bool {
        self.busy.iter().enumerate().any(|(slot, &busy)| {
            busy && offset < self.offsets[slot] + self.lens[slot]
                && self.offsets[slot] < offset + len
        })
    }

    fn new(depth: u32) -> Self {
        let now = now_ns();
        SlotQueue {
            free: (0..depth).rev().collect(),
            offsets: vec![0; depth as usize],
            lens: vec![0; depth as usize],
            directions: vec![Direction::Read; depth as usize],
            priorities: vec![0; depth as usize],
            started: vec![now; depth as usize],
            issued: vec![now; depth as usize],
            intended: vec![now; depth as usize],
            just_queued: Vec::with_capacity(depth as usize),
            busy: vec![false; depth as usize],
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
fn queued_phase<Q: QueuedIo, P: Pacer>(
    ring: &mut Q,
    queue: &mut SlotQueue,
    spec: &LoopSpec<'_>,
    draws: &mut Draws,
    (mut recorder, mut submit, mut commands): (
        Option<&mut Recorder>,
        Option<TimedQueue<'_>>,
        Option<&mut CommandPriorities>,
    ),
    deadline: Option<u64>,
    pacer: &mut P,
) -> Result<Stop, IoFailure> {
    let bs = spec.bs;
    let mut failure: Option<IoFailure> = None;
    let mut stop = Stop::Done;
    let mut exhausted = false;
    let mut writes_since_fsync = 0u64;
    let mut pending = None;
    let mut now = now_ns();
    let batch = spec.batch.max(1) as usize;
    // Completions reaped beyond `spec.reap`, handled on the next passes.
    let mut stash: Vec<(u32, i32)> = Vec::with_capacity(queue.offsets.len());
    if P::PACED {
        pacer.start(now);
    }
    // With a latency target: the I/Os the search lets be in flight, and
    // whether it waits for every one in flight to complete (a lower depth,
    // or the final window) before it issues more and opens a window.
    let mut depth = queue.offsets.len();
    let mut draining = false;
    if let Some(search) = &mut draws.search {
        if recorder.is_some() {
            search.start_cycle(now);
        }
        depth = depth.min(search.depth() as usize);
    }
    loop {
        if draining && queue.in_flight() == 0 {
            draining = false;
            if let Some(search) = &mut draws.search {
                search.start_cycle(now);
                depth = queue.offsets.len().min(search.depth() as usize);
            }
        }
        // Queue: fill every free slot, `batch` requests per system call,
        // unless stopping or an fsync is due.
        let fsync_due = spec.fsync_every > 0 && writes_since_fsync >= spec.fsync_every;
        queue.just_queued.clear();
        while !exhausted && failure.is_none() && !fsync_due && !draining {
            let Some(&slot) = queue.free.last() else {
                break;
            };
            if queue.in_flight() >= depth {
                break;
            }
            if P::PACED && pending.is_none() && pacer.due() > now {
                break;
            }
            // Rates per direction: the direction whose I/O is due first.
            let due = pacer.direction().filter(|_| P::PACED);
            let Some(io) = pending.take().or_else(|| draws.next(due)) else {
                exhausted = true;
                break;
            };
            let (direction, offset, len) =
                (io.direction, spec.base + io.block * bs, io.blocks * bs);
            // fio's serialize_overlap: an I/O over a range in flight waits
            // for the completions that free it.
            if spec.serialize_overlap && queue.overlaps(offset, len) {
                pending = Some(io);
                break;
            }
            let write = direction == Direction::Write;
            if write {
                let data = &mut ring.slot_buffer(slot)[..len as usize];
                prepare_write(data, spec, draws, offset, now);
            }
            let ioprio = commands.as_mut().map_or(0, |c| c.draw(direction, len));
            if !ring.queue(slot, offset, len as u32, direction, ioprio) {
                // The submission queue is full: this I/O goes next.
                pending = Some(io);
                break;
            }
            queue.free.pop();
            queue.busy[slot as usize] = true;
            queue.offsets[slot as usize] = offset;
            queue.lens[slot as usize] = len;
            queue.directions[slot as usize] = direction;
            queue.priorities[slot as usize] = ioprio;
            if P::PACED {
                queue.intended[slot as usize] = pacer.issue(now);
            }
            queue.just_queued.push(slot);
            writes_since_fsync += u64::from(write);
            if queue.just_queued.len() == batch {
                now = submit_batch(ring, queue, spec, submit.as_mut(), now, &mut failure);
            }
        }
        if !queue.just_queued.is_empty() {
            now = submit_batch(ring, queue, spec, submit.as_mut(), now, &mut failure);
        }
        if queue.in_flight() == 0 {
            if fsync_due && failure.is_none() && !exhausted {
                let synced = if spec.fsync_data {
                    ring.sync_data()
                } else {
                    ring.sync_all()
                };
                synced.map_err(|error| fsync_failure(spec, error, spec.sync_call()))?;
                writes_since_fsync = 0;
                now = now_ns();
                continue;
            }
            if P::PACED && !exhausted && failure.is_none() {
                // Nothing in flight and the next I/O not yet due.
                let (woke, _) = wait_until(pacer.due(), deadline, spec.interrupt);
                now = woke;
                exhausted = stop_pacing(spec, deadline, now, &mut stop);
                continue;
            }
            break;
        }
        if P::PACED
            && !exhausted
            && failure.is_none()
            && !queue.free.is_empty()
            && stash.is_empty()
            && !ring.has_completions()
        {
            // Requests in flight, a slot free, the next I/O due later: wait
            // for a completion or the due time, whichever comes first (a
            // plain wait could oversleep the due time). With no slot free,
            // nothing can be issued before a completion: the wait below.
            let until = pacer.due().min(deadline.unwrap_or(u64::MAX));
            let timeout = Duration::from_nanos(until.saturating_sub(now_ns()));
            if let Err(error) = ring.wait_for(timeout) {
                return Err(wait_failure(spec, error));
            }
            now = now_ns();
            if !ring.has_completions() {
                exhausted = stop_pacing(spec, deadline, now, &mut stop);
                continue;
            }
        }
        if stash.is_empty() && !ring.has_completions() {
            if let Err(error) = ring.wait(1) {
                if error.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                // The ring cannot be waited on; the buffers stay allocated by the
                // caller, so report and stop rather than free memory in use.
                return Err(wait_failure(spec, error));
            }
        }
        now = now_ns();
        let mut failed = None;
        let mut verdict = Verdict::Keep;
        let search = &mut draws.search;
        let in_flight_before = queue.in_flight();
        let handle = |slot: u32, result: i32| {
            let slot_index = slot as usize;
            queue.free.push(slot);
            queue.busy[slot_index] = false;
            let (offset, len) = (queue.offsets[slot_index], queue.lens[slot_index]);
            let direction = queue.directions[slot_index];
            if result < 0 {
                if failure.is_none() && failed.is_none() {
                    failed = Some((slot, result));
                }
            } else if result as u64 != len && direction != Direction::Trim {
                // A trim completes with 0; a read or write with its length.
                failure.get_or_insert_with(|| {
                    transfer_failure(spec, (direction, offset, len), Some(result as u64), None)
                });
            } else {
                let latency = now.saturating_sub(queue.started[slot_index]);
                if let Some(recorder) = recorder.as_deref_mut() {
                    recorder.record(now, latency, (offset, len), direction);
                    if let Some(timed) = submit.as_mut() {
                        let from_issue = now.saturating_sub(queue.issued[slot_index]);
                        timed.completion[direction.index()].saturating_record(from_issue);
                    }
                    if queue.priorities[slot_index] != 0
                        && let Some(commands) = commands.as_deref_mut()
                    {
                        commands.record(direction, queue.priorities[slot_index], latency);
                    }
                }
                if P::PACED {
                    pacer.completed(now, queue.intended[slot_index], recorder.is_some());
                }
                if let Some(search) = search.as_mut()
                    && !draining
                    && verdict == Verdict::Keep
                {
                    verdict = search.completed(latency);
                    if let Verdict::Over(latency) = verdict {
                        failure.get_or_insert_with(|| {
                            latency_failure(spec, (direction, offset, len), latency)
                        });
                    }
                }
            }
        };
        handle_reaped(ring, &mut stash, spec.reap, handle);
        if let Some(timed) = submit.as_mut() {
            // fio counts each reaping pass by the completions it handled.
            let reaped = in_flight_before - queue.in_flight();
            timed.depths.per_reap[count_bin(reaped)] += 1;
        }
        if let Some(search) = search.as_mut()
            && !draining
        {
            if verdict == Verdict::Keep {
                verdict = search.window_check(now);
            }
            match verdict {
                Verdict::Keep => depth = queue.offsets.len().min(search.depth() as usize),
                Verdict::Drain => draining = true,
                Verdict::Restart => {
                    exhausted = true;
                    stop = Stop::Restart;
                }
                Verdict::Done => exhausted = true,
                // Recorded as the failure above.
                Verdict::Over(_) => {}
            }
        }
        if let Some((slot, result)) = failed {
            // The first failure is the one reported, in the engine's words.
            let slot = slot as usize;
            let io = (
                queue.directions[slot],
                queue.offsets[slot],
                queue.lens[slot],
            );
            let error = ring.failure(slot as u32, result);
            failure.get_or_insert_with(|| transfer_failure(spec, io, None, Some(error)));
        }
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

/// Whether a paced queued loop stops queueing at `now`: its deadline has
/// passed, or an interrupt came (then `stop` says which).
fn stop_pacing(spec: &LoopSpec<'_>, deadline: Option<u64>, now: u64, stop: &mut Stop) -> bool {
    let flag = spec.interrupt.load(Ordering::Relaxed);
    if flag != 0 {
        *stop = stop_for(flag);
        return true;
    }
    deadline.is_some_and(|deadline| now >= deadline)
}

/// Submits the requests queued since the last submission, stamps their start
/// (`submitted_at`, just before the system call) and records the time the call
/// took once per request; returns the time after the call.
#[inline]
fn submit_batch<Q: QueuedIo>(
    ring: &mut Q,
    queue: &mut SlotQueue,
    spec: &LoopSpec<'_>,
    timed: Option<&mut TimedQueue<'_>>,
    submitted_at: u64,
    failure: &mut Option<IoFailure>,
) -> u64 {
    if let Err(error) = ring.submit() {
        let slot = queue.just_queued[0] as usize;
        let io = (
            queue.directions[slot],
            queue.offsets[slot],
            queue.lens[slot],
        );
        failure.get_or_insert(transfer_failure(spec, io, None, Some(error)));
    }
    let after_submit = now_ns();
    let mut per_direction = [0u64; 3];
    for &slot in &queue.just_queued {
        queue.started[slot as usize] = submitted_at;
        queue.issued[slot as usize] = after_submit;
        per_direction[queue.directions[slot as usize].index()] += 1;
    }
    if let Some(timed) = timed {
        let count = queue.just_queued.len();
        let spent = after_submit.saturating_sub(submitted_at);
        for (histogram, submitted) in timed.submit.iter_mut().zip(per_direction) {
            if submitted > 0 {
                histogram.saturating_record_n(spent, submitted);
            }
        }
        // As fio counts at its commit: the batch at the depth in flight
        // with it, and the call by the I/Os it took.
        timed.depths.at_submission[depth_bin(queue.in_flight())] += count as u64;
        timed.depths.per_submit_call[count_bin(count)] += 1;
    }
    queue.just_queued.clear();
    after_submit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::direction::DirectionMix;
    use crate::run::io::timing::tests::{check_shares, mixed_memory, spec};
    use std::sync::atomic::AtomicUsize;

    /// A queue that completes every request at once, refuses every third
    /// one as if its submission queue were full, and counts what it took.
    struct InstantRing {
        buffers: Vec<Vec<u8>>,
        queued: Vec<(u32, bool, u64, u32)>,
        done: Vec<(u32, u32)>,
        calls: u64,
        reads: u64,
        writes: u64,
        offsets: std::collections::HashSet<u64>,
    }

    impl QueuedIo for InstantRing {
        fn queue(
            &mut self,
            slot: u32,
            offset: u64,
            len: u32,
            direction: Direction,
            _: u16,
        ) -> bool {
            self.calls += 1;
            if self.calls % 3 == 0 {
                return false;
            }
            self.queued
                .push((slot, direction == Direction::Write, offset, len));
            true
        }
        fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
            &mut self.buffers[slot as usize]
        }
        fn submit(&mut self) -> io::Result<usize> {
            let taken = self.queued.len();
            for (slot, write, offset, len) in self.queued.drain(..) {
                *if write {
                    &mut self.writes
                } else {
                    &mut self.reads
                } += 1;
                assert!(self.offsets.insert(offset), "block {offset} issued twice");
                self.done.push((slot, len));
            }
            Ok(taken)
        }
        fn wait(&mut self, _count: usize) -> io::Result<()> {
            Ok(())
        }
        fn has_completions(&mut self) -> bool {
            !self.done.is_empty()
        }
        fn reap(&mut self, mut each: impl FnMut(u32, i32)) {
            for (slot, len) in self.done.drain(..) {
                each(slot, len as i32);
            }
        }
        fn sync_all(&self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_queued_mixed_job_loses_no_block_when_the_queue_is_full() {
        let interrupt = AtomicUsize::new(0);
        let mix = DirectionMix::with_write_percent(30).unwrap();
        let mut spec = spec(&interrupt);
        (spec.directions, spec.blocks) = (mix, 10_000);
        let mut ring = InstantRing {
            buffers: vec![vec![0u8; 4096]; 8],
            queued: Vec::new(),
            done: Vec::new(),
            calls: 0,
            reads: 0,
            writes: 0,
            offsets: Default::default(),
        };
        let outcome = run_queued(&mut ring, 8, &spec, mixed_memory(mix, true), || true);
        assert_eq!(ring.offsets.len(), 10_000, "every block once");
        check_shares(&outcome, ring.reads, ring.writes);
    }

    /// A queue whose requests complete one at a time, oldest first, only
    /// when waited on: it counts the requests submitted over a range still
    /// in flight.
    struct SlowRing {
        buffers: Vec<Vec<u8>>,
        queued: Vec<(u32, u64, u32)>,
        in_flight: std::collections::VecDeque<(u32, u64, u32)>,
        done: Vec<(u32, u32)>,
        issued: u64,
        overlapping: u64,
    }

    impl QueuedIo for SlowRing {
        fn queue(&mut self, slot: u32, offset: u64, len: u32, _: Direction, _: u16) -> bool {
            self.queued.push((slot, offset, len));
            true
        }
        fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
            &mut self.buffers[slot as usize]
        }
        fn submit(&mut self) -> io::Result<usize> {
            let taken = self.queued.len();
            for (slot, offset, len) in self.queued.drain(..) {
                let end = offset + u64::from(len);
                if self
                    .in_flight
                    .iter()
                    .any(|&(_, o, l)| offset < o + u64::from(l) && o < end)
                {
                    self.overlapping += 1;
                }
                self.issued += 1;
                self.in_flight.push_back((slot, offset, len));
            }
            Ok(taken)
        }
        fn wait(&mut self, _count: usize) -> io::Result<()> {
            if let Some((slot, _, len)) = self.in_flight.pop_front() {
                self.done.push((slot, len));
            }
            Ok(())
        }
        fn has_completions(&mut self) -> bool {
            !self.done.is_empty()
        }
        fn reap(&mut self, mut each: impl FnMut(u32, i32)) {
            for (slot, len) in self.done.drain(..) {
                each(slot, len as i32);
            }
        }
        fn sync_all(&self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Random draws with replacement over 16 blocks at depth 8 overlap
    /// requests in flight; with `--serialize-overlap` none does, and every
    /// I/O is still issued.
    #[test]
    fn serialize_overlap_issues_no_request_over_one_in_flight() {
        let interrupt = AtomicUsize::new(0);
        for serialize in [false, true] {
            let mut spec = spec(&interrupt);
            (spec.pattern, spec.blocks, spec.passes) = (crate::plan::Pattern::Uniform, 16, 100);
            spec.serialize_overlap = serialize;
            let mut ring = SlowRing {
                buffers: vec![vec![0u8; 4096]; 8],
                queued: Vec::new(),
                in_flight: Default::default(),
                done: Vec::new(),
                issued: 0,
                overlapping: 0,
            };
            let outcome = run_queued(
                &mut ring,
                8,
                &spec,
                mixed_memory(spec.directions, true),
                || true,
            );
            assert_eq!((ring.issued, outcome.ops), (1600, 1600), "{serialize}");
            assert_eq!(ring.overlapping == 0, serialize, "{}", ring.overlapping);
        }
    }
}
