//! The replay loop (a trace job's work, and `iolab replay`'s): one thread issues the trace's I/Os in order at their times and reaps their completions through an engine's queue (io_uring or libaio up to the depth cap), `pread`/`pwrite` one at a time, or no I/O at all.

pub mod fidelity;
pub(in crate::run) mod job;

use super::buffer::AlignedBuffer;
use crate::clock::now_ns;
use crate::engine::kind::EngineKind;
use crate::engine::libaio::LibaioIo;
use crate::engine::uring::UringIo;
use crate::engine::{Direction, QueuedIo};
use crate::trace::{Format, IoKind, TraceIo, TraceReader, TraceSummary};
use fidelity::{Fidelity, Tally};
use std::os::fd::BorrowedFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The largest I/O a replay issues, bytes: blktrace's events carry up to
/// 4 GiB, and each slot under the depth cap holds a buffer of the trace's
/// largest I/O.
pub const LARGEST_IO: u64 = 16 << 20;

/// Where a replay's I/O goes: a descriptor, a network client's queue, or
/// neither (the null engine); the length its offsets fit into, and the
/// name its messages show.
#[derive(Clone, Copy)]
pub struct Site<'a> {
    pub fd: Option<BorrowedFd<'a>>,
    pub client: Option<&'a dyn super::client::ClientJob>,
    pub length: u64,
    pub shown: &'a str,
}

/// The bytes a created file gets for a trace: its extent rounded up to
/// 1 MiB, or the wrap.
pub fn created_length(summary: &TraceSummary, wrap: Option<u64>) -> u64 {
    wrap.unwrap_or_else(|| summary.end.div_ceil(1 << 20).max(1) << 20)
}

/// What to replay and how.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    pub trace: PathBuf,
    pub format: Format,
    pub selection: crate::trace::Selection,
    pub summary: TraceSummary,
    /// The trace's time divided by this; `None`: as fast as possible.
    pub speed: Option<f64>,
    /// An engine that replays a trace (`capabilities().replays_trace`).
    pub engine: EngineKind,
    /// The most I/Os in flight.
    pub depth: u64,
    /// How the trace's offsets meet the target's length.
    pub fit: Fit,
    /// The interval of the per-interval comparison, ns.
    pub interval_ns: u64,
    pub recorded_depth: Option<f64>,
}

/// What a replay did.
pub struct Replayed {
    pub fidelity: Fidelity,
    /// When its first I/O was due, ns on CLOCK_MONOTONIC; the fidelity's
    /// elapsed time runs from here to the last completion.
    pub started_ns: u64,
    /// Each completed read's, write's and trim's issue to completion, ns,
    /// all together and by direction (read, write, trim), in the layout of
    /// every job's histogram (the fidelity's latency counts flushes too).
    pub latency: hdrhistogram::Histogram<u64>,
    pub by_direction: [hdrhistogram::Histogram<u64>; 3],
    /// The reads, writes and trims completed per interval since the start.
    pub series: fidelity::CompletionSeries,
    /// On a network target: what its client's connection carried.
    pub network: Option<super::traffic::ClientTraffic>,
    /// Set when a signal stopped it: what ran is in the figures.
    pub interrupted: bool,
}

/// An I/O in flight: its trace sequence, kind, length, offset and issue time.
#[derive(Clone, Copy, Default)]
struct Slot {
    sequence: u64,
    kind: Option<IoKind>,
    len: u64,
    offset: u64,
    issued: u64,
}

/// How a trace's offsets meet a target of another length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// As recorded (the target holds the trace's furthest byte).
    AsRecorded,
    /// Those beyond the target wrapped into it (`--wrap`).
    Wrapped,
    /// Every one scaled by the target's length over the trace's extent
    /// (`--scale`), keeping each I/O's place relative to the whole.
    Scaled {
        /// The trace's furthest byte.
        extent: u64,
    },
}

/// The offset an I/O goes to: wrapped into the target, or scaled to it
/// (the I/O kept whole inside it, a sector-aligned offset kept aligned).
fn place(io: &TraceIo, length: u64, fit: Fit) -> u64 {
    let align = if io.offset % 512 == 0 { 512 } else { 1 };
    let room = length.saturating_sub(io.len);
    let placed = match fit {
        Fit::AsRecorded => return io.offset,
        Fit::Wrapped if io.offset.saturating_add(io.len) <= length => return io.offset,
        Fit::Wrapped => io.offset % (room + 1),
        Fit::Scaled { extent } => {
            let scaled = u128::from(io.offset) * u128::from(length) / u128::from(extent.max(1));
            (scaled as u64).min(room)
        }
    };
    placed - placed % align
}

/// Waits until `due` (CLOCK_MONOTONIC ns): sleeps to 60 µs before it, then spins.
fn wait_until(due: u64, stop: &AtomicUsize) {
    loop {
        let now = now_ns();
        if now >= due || stop.load(Ordering::Relaxed) != 0 {
            return;
        }
        let left = due - now;
        if left > 60_000 {
            let until = due - 50_000;
            let request = rustix::time::Timespec {
                tv_sec: (until / 1_000_000_000) as i64,
                tv_nsec: (until % 1_000_000_000) as i64,
            };
            let _ = rustix::thread::clock_nanosleep_absolute(
                rustix::thread::ClockId::Monotonic,
                &request,
            );
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Replays the trace onto `target`; `stop` is the interrupt flag (nonzero: stop issuing).
pub fn replay(
    options: &ReplayOptions,
    target: Site<'_>,
    stop: &AtomicUsize,
) -> Result<Replayed, String> {
    let depth = options.engine.in_flight(options.depth);
    // Each slot's buffer holds the trace's largest I/O, made before the
    // start: nothing is allocated while replaying.
    let each = options.summary.largest.max(4096).next_power_of_two() as usize;
    let mut buffers = AlignedBuffer::try_with_data(each * depth as usize, 4096, 1)
        .ok_or_else(|| format!("cannot allocate {depth} buffers of {each} bytes"))?;
    let opened = |e: std::io::Error| format!("{}: {e}", options.engine.name());
    if let Some(client) = target.client {
        let writes = options.summary.ios[IoKind::Write.index()] > 0;
        let mut outcome = (Err("the client's engine never ran".to_string()), 0);
        let buffer = buffers.as_mut_ptr();
        // SAFETY: `buffers` holds depth × each bytes and outlives the call;
        // `drive` reaps every request (or the buffers are leaked below).
        let carried = unsafe {
            client.with_queue(depth as u32, buffer, each, writes, &mut |queue| {
                outcome = drive(queue, depth, options, target, stop);
            })
        };
        if outcome.1 > 0 {
            std::mem::forget(buffers);
        }
        let carried = carried.map_err(|e| format!("{}: {e}", target.shown))?;
        return outcome.0.map(|replayed| Replayed {
            network: Some(carried),
            ..replayed
        });
    }
    let (outcome, left_in_flight) = match (options.engine, target.fd) {
        (EngineKind::Uring, Some(fd)) => {
            // SAFETY: `buffers` holds depth × each bytes and outlives the
            // ring; a request `drive` could not reap leaks them (below).
            let mut ring =
                unsafe { UringIo::new(fd, depth as u32, buffers.as_mut_ptr(), each, false) }
                    .map_err(opened)?;
            drive(&mut ring, depth, options, target, stop)
        }
        (EngineKind::Libaio, Some(fd)) => {
            // SAFETY: as for io_uring.
            let mut aio = unsafe { LibaioIo::new(fd, depth as u32, buffers.as_mut_ptr(), each) }
                .map_err(opened)?;
            drive(&mut aio, depth, options, target, stop)
        }
        (engine, fd) => {
            let mut at_once = AtOnce {
                fd: fd.filter(|_| engine.capabilities().moves_data),
                buffer: &mut buffers,
                done: None,
            };
            drive(&mut at_once, depth, options, target, stop)
        }
    };
    // The engine is gone; the kernel may still hold what it never ended.
    if left_in_flight > 0 {
        std::mem::forget(buffers);
    }
    outcome
}

/// Refuses a speed at which the trace's last I/O would be due later than
/// the replayer's clock can hold ([`crate::trace::LATEST_TIME_NS`]): each
/// due time is its trace time divided by the speed.
pub fn check_speed(summary: &TraceSummary, speed: Option<f64>) -> Result<(), String> {
    let Some(speed) = speed else {
        return Ok(());
    };
    let last_due = summary.duration_ns as f64 / speed;
    if last_due.is_nan() || last_due > crate::trace::LATEST_TIME_NS as f64 {
        let shown = if (1e-3..1e6).contains(&speed) {
            format!("{speed}")
        } else {
            format!("{speed:e}")
        };
        return Err(format!(
            "--speed {shown}: the trace's last I/O ({:.3} s in) would be due {:.3e} s after the start, beyond the 146 years a replay can wait",
            summary.duration_ns as f64 / 1e9,
            last_due / 1e9
        ));
    }
    Ok(())
}

/// The replay loop over any engine's queue. An I/O is due at its trace
/// time divided by the speed from the start; the loop sleeps (or, with
/// I/Os in flight, waits on the queue) until then, issues it, and reaps
/// what completed. A failed I/O ends the issuing; what is in flight is
/// reaped before the buffers go. Also returns the I/Os still in flight
/// when the engine would not end them (their buffers must then be leaked).
fn drive<Q: QueuedIo + ?Sized>(
    queue: &mut Q,
    depth: u64,
    options: &ReplayOptions,
    target: Site<'_>,
    stop: &AtomicUsize,
) -> (Result<Replayed, String>, u64) {
    let scaled = |at: u64| options.speed.map_or(0, |s| (at as f64 / s) as u64);
    let duration = scaled(options.summary.duration_ns);
    let mut tally = Tally::new(duration, depth, options.interval_ns);
    let mut reader = match TraceReader::open_same(
        &options.trace,
        options.format,
        options.summary.identity.as_ref(),
    ) {
        Ok(reader) => reader.selecting(&options.selection),
        Err(e) => return (Err(e.0), 0),
    };
    let mut slots = vec![Slot::default(); depth as usize];
    let mut free: Vec<u32> = (0..depth as u32).rev().collect();
    // Timer slack of 1 ns: the default 50 µs would be each wake-up's lag.
    // SAFETY: PR_SET_TIMERSLACK takes a value and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let start = now_ns() + 1_000_000;
    let mut sequence = 0u64;
    let mut in_flight = 0u64;
    let mut next = match reader.next_io() {
        Ok(next) => next,
        Err(e) => return (Err(e.0), 0),
    };
    let mut interrupted = false;
    let mut last_done = start;
    let mut failure: Option<String> = None;
    // An error of the engine or the trace mid-replay: the issuing ends,
    // and the I/Os in flight are waited for before their buffers go.
    let mut fatal: Option<String> = None;
    let engine = options.engine.name();
    // Reaps what completed; the first failure is kept, named by its place
    // in the trace, and not timed.
    macro_rules! reap {
        () => {{
            let mut failed: Option<(u32, i32)> = None;
            queue.reap(|index, result| {
                let slot = slots[index as usize];
                let now = now_ns();
                let kind = slot.kind.expect("in flight");
                let whole =
                    matches!(kind, IoKind::Flush | IoKind::Trim) || result as u64 == slot.len;
                if result < 0 || !whole {
                    failed.get_or_insert((index, result));
                } else {
                    tally.completed(
                        slot.sequence,
                        kind,
                        slot.len,
                        now - start,
                        now - slot.issued,
                    );
                }
                last_done = last_done.max(now);
                in_flight -= 1;
                free.push(index);
            });
            if let Some((index, result)) = failed.filter(|_| failure.is_none()) {
                let slot = slots[index as usize];
                let kind = slot.kind.expect("in flight").name();
                let what = if result < 0 {
                    format!("failed: {}", queue.failure(index, result))
                } else {
                    format!("moved {result} bytes")
                };
                failure = Some(format!(
                    "I/O {} of the trace ({kind} of {} bytes at {}) {what} (not timed)",
                    slot.sequence + 1,
                    slot.len,
                    slot.offset
                ));
            }
        }};
    }
    loop {
        if stop.load(Ordering::Relaxed) != 0 && !interrupted {
            interrupted = true;
            next = None;
        }
        reap!();
        if failure.is_some() || fatal.is_some() {
            next = None;
        }
        let Some(io) = next else {
            if in_flight == 0 {
                break;
            }
            if let Err(e) = queue.wait(1) {
                if e.raw_os_error() != Some(libc::EINTR) {
                    fatal.get_or_insert(format!("{engine}: {e}"));
                    break;
                }
            }
            continue;
        };
        if in_flight >= depth {
            if let Err(e) = queue.wait(1) {
                if e.raw_os_error() != Some(libc::EINTR) {
                    fatal = Some(format!("{engine}: {e}"));
                }
            }
            continue;
        }
        let due = start.saturating_add(scaled(io.at_ns));
        let now = now_ns();
        if now < due {
            if in_flight > 0 {
                // Completions are reaped while waiting: their times are
                // theirs, not the next issue's.
                if let Err(e) = queue.wait_for(Duration::from_nanos(due - now)) {
                    fatal = Some(format!("{engine}: {e}"));
                }
                continue;
            }
            wait_until(due, stop);
            if stop.load(Ordering::Relaxed) != 0 {
                continue;
            }
        }
        if io.kind == IoKind::Flush && in_flight > 0 && !queue.queues_flushes() {
            // An engine that queues no sync: the flush waits for what is
            // in flight, as the sync call would.
            if let Err(e) = queue.wait(in_flight as usize) {
                fatal = Some(format!("{engine}: {e}"));
            }
            continue;
        }
        let offset = place(&io, target.length, options.fit);
        let index = free.pop().expect("a free slot below the cap");
        let issued = now_ns();
        tally.issued(due - start, issued - start, io.len);
        slots[index as usize] = Slot {
            sequence,
            kind: Some(io.kind),
            len: io.len,
            offset,
            issued,
        };
        let queued = match io.kind {
            IoKind::Flush => match queue.queues_flushes() {
                true => queue.queue_flush(index),
                false => {
                    // Nothing in flight (see above): a sync call, timed as the flush.
                    let result = queue
                        .sync_all()
                        .map_or_else(|e| -e.raw_os_error().unwrap_or(libc::EIO), |()| 0);
                    let now = now_ns();
                    if result == 0 {
                        tally.completed(sequence, io.kind, 0, now - start, now - issued);
                    } else {
                        failure = Some(format!(
                            "I/O {} of the trace (flush) failed: {} (not timed)",
                            sequence + 1,
                            std::io::Error::from_raw_os_error(-result)
                        ));
                    }
                    last_done = now;
                    free.push(index);
                    sequence += 1;
                    next = next_or_fatal(&mut reader, &mut fatal);
                    continue;
                }
            },
            // A flush is matched above: every other kind moves data.
            kind => {
                let direction = fidelity::data_direction(kind).unwrap_or(Direction::Trim);
                queue.queue(index, offset, io.len as u32, direction, 0)
            }
        };
        if !queued {
            free.push(index);
            fatal = Some(format!("{engine}: the submission queue is full"));
            continue;
        }
        // In flight from here: a failed submit leaves it queued, and the
        // drain waits for it.
        in_flight += 1;
        if let Err(e) = queue.submit() {
            fatal = Some(format!("{engine}: {e}"));
            continue;
        }
        // At once: a psync I/O's latency ends here, not after the trace's
        // next line is read.
        reap!();
        sequence += 1;
        next = next_or_fatal(&mut reader, &mut fatal);
    }
    // After a fatal error: every request ends before its buffer is freed;
    // should the engine refuse to say so, the caller leaks the buffers
    // rather than free them under the kernel.
    let mut attempts = 0;
    while in_flight > 0 && attempts < 10_000 {
        let _ = queue.wait(1);
        queue.reap(|_, _| in_flight -= 1);
        attempts += 1;
    }
    if let Some(error) = fatal.or(failure) {
        return (Err(error), in_flight);
    }
    let elapsed = last_done.saturating_sub(start.min(last_done));
    let fidelity = tally.fidelity(
        &options.summary,
        options.speed,
        options.recorded_depth,
        elapsed,
    );
    let (by_direction, series) = tally.into_data();
    let mut latency = crate::record::histogram::new_histogram();
    for histogram in &by_direction {
        // Of the same layout: nothing to refuse.
        let _ = latency.add(histogram);
    }
    let replayed = Replayed {
        fidelity,
        by_direction,
        started_ns: start,
        latency,
        series,
        network: None,
        interrupted,
    };
    (Ok(replayed), 0)
}

/// The trace's next I/O; a trace that fails to read mid-replay is the
/// replay's fatal error, and ends the issuing.
fn next_or_fatal(reader: &mut TraceReader, fatal: &mut Option<String>) -> Option<TraceIo> {
    match reader.next_io() {
        Ok(next) => next,
        Err(e) => {
            fatal.get_or_insert(e.0);
            None
        }
    }
}

/// `pread`/`pwrite`/`fdatasync` behind the queue, or no I/O at all (no
/// file: the null engine): each I/O done as it is queued, its completion
/// ready for the next reap. One slot.
struct AtOnce<'a> {
    fd: Option<BorrowedFd<'a>>,
    buffer: &'a mut AlignedBuffer,
    /// The completion not yet reaped: slot and result.
    done: Option<(u32, i32)>,
}

impl AtOnce<'_> {
    fn result(moved: rustix::io::Result<usize>) -> i32 {
        match moved {
            Ok(n) => n.min(i32::MAX as usize) as i32,
            Err(e) => -e.raw_os_error(),
        }
    }
}

impl QueuedIo for AtOnce<'_> {
    fn queue(
        &mut self,
        slot: u32,
        offset: u64,
        len: u32,
        direction: Direction,
        _ioprio: u16,
    ) -> bool {
        let len = len as usize;
        let result = match (self.fd, direction) {
            (None, Direction::Trim) => 0,
            (None, _) => len as i32,
            (Some(fd), Direction::Read) => Self::result(rustix::io::pread(
                fd,
                &mut self.buffer.as_mut_slice()[..len],
                offset,
            )),
            (Some(fd), Direction::Write) => Self::result(rustix::io::pwrite(
                fd,
                &self.buffer.as_slice()[..len],
                offset,
            )),
            (Some(fd), Direction::Trim) => Self::result(
                rustix::fs::fallocate(
                    fd,
                    rustix::fs::FallocateFlags::PUNCH_HOLE | rustix::fs::FallocateFlags::KEEP_SIZE,
                    offset,
                    len as u64,
                )
                .map(|()| 0),
            ),
        };
        self.done = Some((slot, result));
        true
    }

    fn slot_buffer(&mut self, _slot: u32) -> &mut [u8] {
        self.buffer.as_mut_slice()
    }

    fn submit(&mut self) -> std::io::Result<usize> {
        Ok(0)
    }

    fn wait(&mut self, _count: usize) -> std::io::Result<()> {
        Ok(())
    }

    fn has_completions(&mut self) -> bool {
        self.done.is_some()
    }

    fn reap(&mut self, mut each: impl FnMut(u32, i32)) {
        if let Some((slot, result)) = self.done.take() {
            each(slot, result);
        }
    }

    fn sync_all(&self) -> std::io::Result<()> {
        match self.fd {
            Some(fd) => Ok(rustix::fs::fdatasync(fd)?),
            None => Ok(()),
        }
    }

    fn queues_flushes(&self) -> bool {
        true
    }

    fn queue_flush(&mut self, slot: u32) -> bool {
        let result = self
            .fd
            .map_or(0, |fd| Self::result(rustix::fs::fdatasync(fd).map(|()| 0)));
        self.done = Some((slot, result));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(offset: u64, len: u64) -> TraceIo {
        TraceIo {
            at_ns: 0,
            offset,
            len,
            kind: IoKind::Read,
            response_ns: None,
        }
    }

    /// Wrapped: only what lies beyond moves; scaled: every offset keeps
    /// its place relative to the trace's extent; both keep each I/O whole
    /// and a sector-aligned offset aligned.
    #[test]
    fn offsets_are_wrapped_or_scaled_into_the_target() {
        let length = 1 << 20;
        assert_eq!(place(&io(4096, 4096), length, Fit::Wrapped), 4096);
        // Modulo the room for a whole I/O (1 MiB - 4 KiB + 1), aligned down.
        assert_eq!(
            place(&io((1 << 20) + 4096, 4096), length, Fit::Wrapped),
            7680
        );
        let scaled = Fit::Scaled { extent: 4 << 20 };
        assert_eq!(place(&io(2 << 20, 4096), length, scaled), 512 << 10);
        assert_eq!(place(&io(1000 * 512, 4096), length, scaled), 250 * 512);
        assert_eq!(
            place(&io((4 << 20) - 4096, 4096), length, scaled),
            length - 4096
        );
        assert_eq!(place(&io(7, 4096), length, Fit::AsRecorded), 7);
    }
}
