//! The replay loop: one thread issues the trace's I/Os in order at their times and reaps their completions, through io_uring up to the depth cap, `pread`/`pwrite` one at a time, or no I/O at all.

use super::fidelity::{Fidelity, Tally};
use super::target::Target;
use crate::clock::now_ns;
use crate::run::io::buffer::AlignedBuffer;
use crate::trace::{Format, IoKind, TraceIo, TraceReader, TraceSummary};
use io_uring::{IoUring, opcode, types};
use std::os::fd::{AsRawFd, BorrowedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How the I/O is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// io_uring, up to the depth cap in flight.
    Uring,
    /// `pread`/`pwrite`/`fdatasync`, one at a time (the cap is 1).
    Psync,
    /// No I/O: each I/O completes as it is issued (the replayer's own timing).
    Null,
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
    pub engine: Engine,
    /// The most I/Os in flight.
    pub depth: u64,
    /// Offsets wrapped into the target's length.
    pub wrap: bool,
    /// The interval of the per-interval comparison, ns.
    pub interval_ns: u64,
    pub recorded_depth: Option<f64>,
}

/// What a replay did.
pub struct Replayed {
    pub fidelity: Fidelity,
    /// Set when a signal stopped it: what ran is in the figures.
    pub interrupted: bool,
}

/// An I/O in flight: its trace sequence, kind, length and issue time.
#[derive(Clone, Copy, Default)]
struct Slot {
    sequence: u64,
    kind: Option<IoKind>,
    len: u64,
    issued: u64,
}

/// The offset an I/O goes to: wrapped into the target when asked (the
/// I/O kept whole inside it, a sector-aligned offset kept aligned).
fn place(io: &TraceIo, length: u64, wrap: bool) -> u64 {
    if !wrap || io.offset.saturating_add(io.len) <= length {
        return io.offset;
    }
    let room = length.saturating_sub(io.len) + 1;
    let align = if io.offset % 512 == 0 { 512 } else { 1 };
    let wrapped = io.offset % room;
    wrapped - wrapped % align
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
    target: &Target,
    stop: &AtomicUsize,
) -> Result<Replayed, String> {
    let depth = if options.engine == Engine::Psync {
        1
    } else {
        options.depth.max(1)
    };
    let scaled = |at: u64| options.speed.map_or(0, |s| (at as f64 / s) as u64);
    let duration = scaled(options.summary.duration_ns);
    let mut tally = Tally::new(duration, depth, options.interval_ns);
    let mut reader = TraceReader::open(&options.trace, Some(options.format))
        .map_err(|e| e.0)?
        .selecting(&options.selection);
    // Each slot's buffer holds the trace's largest I/O, made before the
    // start: nothing is allocated while replaying.
    let each = options.summary.largest.max(4096).next_power_of_two() as usize;
    let mut buffers: Vec<AlignedBuffer> = Vec::new();
    for slot in 0..depth {
        buffers.push(
            AlignedBuffer::try_with_data(each, 4096, slot + 1)
                .ok_or_else(|| format!("cannot allocate {depth} buffers of {each} bytes"))?,
        );
    }
    let mut slots = vec![Slot::default(); depth as usize];
    let mut free: Vec<usize> = (0..depth as usize).rev().collect();
    let mut ring = match options.engine {
        Engine::Uring => Some(
            IoUring::new((depth as u32).next_power_of_two().max(8))
                .map_err(|e| format!("io_uring: {e}"))?,
        ),
        _ => None,
    };
    // Timer slack of 1 ns: the default 50 µs would be each wake-up's lag.
    // SAFETY: PR_SET_TIMERSLACK takes a value and touches no memory.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
    let fd = target.fd();
    let start = now_ns() + 1_000_000;
    let mut sequence = 0u64;
    let mut in_flight = 0u64;
    let mut next = reader.next_io().map_err(|e| e.0)?;
    let mut interrupted = false;
    let mut last_done = start;
    let mut failure: Option<String> = None;
    // An error of the ring or the trace mid-replay: the loop ends, and the
    // I/Os in flight are waited for before their buffers go.
    let mut fatal: Option<String> = None;
    macro_rules! fatal {
        ($message:expr) => {{
            fatal = Some($message);
            break;
        }};
    }
    loop {
        if stop.load(Ordering::Relaxed) != 0 && !interrupted {
            interrupted = true;
            next = None;
        }
        // Reap what completed.
        if let Some(ring) = ring.as_mut() {
            for cqe in ring.completion() {
                let index = cqe.user_data() as usize;
                let slot = slots[index];
                let now = now_ns();
                let kind = slot.kind.expect("in flight");
                let result = cqe.result();
                if result < 0
                    || (kind != IoKind::Flush && kind != IoKind::Trim && result as u64 != slot.len)
                {
                    failure.get_or_insert_with(|| {
                        if result < 0 {
                            format!(
                                "I/O {} of the trace ({} of {} bytes) failed: {} (not timed)",
                                slot.sequence + 1,
                                kind.name(),
                                slot.len,
                                std::io::Error::from_raw_os_error(-result)
                            )
                        } else {
                            format!(
                                "I/O {} of the trace ({} of {} bytes) moved {result} bytes (not timed)",
                                slot.sequence + 1,
                                kind.name(),
                                slot.len
                            )
                        }
                    });
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
            }
        }
        if failure.is_some() {
            next = None;
        }
        let Some(io) = next else {
            if in_flight == 0 {
                break;
            }
            let ring = ring.as_mut().expect("only io_uring leaves I/Os in flight");
            if let Err(e) = ring.submit_and_wait(1) {
                if e.raw_os_error() != Some(libc::EINTR) {
                    fatal!(format!("io_uring: {e}"));
                }
            }
            continue;
        };
        let due = start + scaled(io.at_ns);
        if in_flight >= depth {
            let ring = ring.as_mut().expect("only io_uring reaches the cap");
            if let Err(e) = ring.submit_and_wait(1) {
                if e.raw_os_error() != Some(libc::EINTR) {
                    fatal!(format!("io_uring: {e}"));
                }
            }
            continue;
        }
        let now = now_ns();
        if now < due {
            match ring.as_mut() {
                Some(ring) if in_flight > 0 => {
                    let left = due - now;
                    let ts = types::Timespec::new()
                        .sec(left / 1_000_000_000)
                        .nsec((left % 1_000_000_000) as u32);
                    let args = types::SubmitArgs::new().timespec(&ts);
                    match ring.submitter().submit_with_args(1, &args) {
                        Ok(_) => {}
                        Err(e) if e.raw_os_error() == Some(libc::ETIME) => {}
                        Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                        Err(e) => fatal!(format!("io_uring: {e}")),
                    }
                    continue;
                }
                _ => wait_until(due, stop),
            }
            if stop.load(Ordering::Relaxed) != 0 {
                continue;
            }
        }
        let offset = place(&io, target.length, options.wrap);
        let index = free.pop().expect("a free slot below the cap");
        let issued = now_ns();
        tally.issued(due - start, issued - start, io.len);
        slots[index] = Slot {
            sequence,
            kind: Some(io.kind),
            len: io.len,
            issued,
        };
        match (options.engine, fd) {
            (Engine::Null, _) | (_, None) => {
                let now = now_ns();
                tally.completed(sequence, io.kind, io.len, now - start, now - issued);
                last_done = now;
                free.push(index);
            }
            (Engine::Psync, Some(fd)) => {
                let done = sync_io(fd, &io, offset, &mut buffers[index]);
                let now = now_ns();
                match done {
                    Ok(()) => tally.completed(sequence, io.kind, io.len, now - start, now - issued),
                    Err(why) => {
                        failure = Some(format!(
                            "I/O {} of the trace ({} of {} bytes at {offset}): {why} (not timed)",
                            sequence + 1,
                            io.kind.name(),
                            io.len
                        ));
                    }
                }
                last_done = now;
                free.push(index);
            }
            (Engine::Uring, Some(fd)) => {
                let raw = types::Fd(fd.as_raw_fd());
                let buffer = buffers[index].as_mut_ptr();
                let entry = match io.kind {
                    IoKind::Read => opcode::Read::new(raw, buffer, io.len as u32)
                        .offset(offset)
                        .build(),
                    IoKind::Write => opcode::Write::new(raw, buffer, io.len as u32)
                        .offset(offset)
                        .build(),
                    IoKind::Flush => opcode::Fsync::new(raw)
                        .flags(types::FsyncFlags::DATASYNC)
                        .build(),
                    IoKind::Trim => opcode::Fallocate::new(raw, io.len)
                        .offset(offset)
                        .mode(libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE)
                        .build(),
                }
                .user_data(index as u64);
                let ring = ring.as_mut().expect("uring");
                // SAFETY: the buffer lives in `buffers` until its completion
                // is reaped (slots are reused only after), and the fd outlives the ring's use.
                if unsafe { ring.submission().push(&entry) }.is_err() {
                    fatal!("io_uring: submission queue full".to_string());
                }
                // In flight from here: a failed submit leaves it queued,
                // and the drain below submits and waits for it.
                in_flight += 1;
                if let Err(e) = ring.submit() {
                    fatal!(format!("io_uring: {e}"));
                }
            }
        }
        sequence += 1;
        next = match reader.next_io() {
            Ok(next) => next,
            Err(e) => fatal!(e.0),
        };
    }
    if let Some(ring) = ring.as_mut().filter(|_| in_flight > 0) {
        // After a fatal error: every request ends before its buffer is
        // freed; should the ring refuse to say so, the buffers are leaked
        // rather than freed under the kernel.
        let mut attempts = 0;
        while in_flight > 0 && attempts < 10_000 {
            let _ = ring.submit_and_wait(1);
            in_flight -= ring.completion().count().min(in_flight as usize) as u64;
            attempts += 1;
        }
        if in_flight > 0 {
            std::mem::forget(std::mem::take(&mut buffers));
        }
    }
    if let Some(error) = fatal.or(failure) {
        return Err(error);
    }
    let elapsed = last_done.saturating_sub(start.min(last_done));
    Ok(Replayed {
        fidelity: tally.fidelity(
            &options.summary,
            options.speed,
            options.recorded_depth,
            elapsed,
        ),
        interrupted,
    })
}

/// One I/O with a system call, checked whole.
fn sync_io(
    fd: BorrowedFd<'_>,
    io: &TraceIo,
    offset: u64,
    buffer: &mut AlignedBuffer,
) -> Result<(), String> {
    let len = io.len as usize;
    let moved = match io.kind {
        IoKind::Read => rustix::io::pread(fd, &mut buffer.as_mut_slice()[..len], offset)
            .map_err(|e| format!("pread: {e}"))?,
        IoKind::Write => rustix::io::pwrite(fd, &buffer.as_slice()[..len], offset)
            .map_err(|e| format!("pwrite: {e}"))?,
        IoKind::Flush => {
            rustix::fs::fdatasync(fd).map_err(|e| format!("fdatasync: {e}"))?;
            return Ok(());
        }
        IoKind::Trim => {
            rustix::fs::fallocate(
                fd,
                rustix::fs::FallocateFlags::PUNCH_HOLE | rustix::fs::FallocateFlags::KEEP_SIZE,
                offset,
                io.len,
            )
            .map_err(|e| format!("fallocate: {e}"))?;
            return Ok(());
        }
    };
    if moved != len {
        return Err(format!("moved {moved} of {len} bytes"));
    }
    Ok(())
}
