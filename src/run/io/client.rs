//! A network client's job as the runner sees it: the [`ClientJob`] a
//! protocol's target runs (its own connection, then the queued loop over
//! it, with the connection's TCP counters read around it). What the job
//! carried is its [`super::traffic::ClientTraffic`].
//!
//! The protocols themselves live in `net/`, one module each; the runner
//! names none of them.

use super::buffer::AlignedBuffer;
use super::queued::run_queued;
use super::recorder::{JobMemory, JobOutcome};
use super::spec::LoopSpec;
use crate::plan::Workload;
use crate::probe::tcp::TcpTraffic;
use std::io;

/// The job of a target reached by a network client of iolab's own: it
/// connects on its own, runs the queued loop over its connection with
/// [`run_on_connection`], and sets `JobOutcome::network`. An error is a
/// setup failure (connect, log in, open), recorded as the job's failure.
pub trait ClientJob {
    /// Runs one job of `workload` as `spec` says, with `buffer` holding
    /// `iodepth` × the largest I/O; `ready` waits at the start gate.
    fn run_job(
        &self,
        workload: &Workload,
        spec: &LoopSpec<'_>,
        memory: JobMemory,
        buffer: &mut AlignedBuffer,
        ready: &mut dyn FnMut() -> bool,
    ) -> io::Result<JobOutcome>;

    /// Opens a connection and an engine of `depth` slots of `len` bytes
    /// over `buffers` (writing when `write`), and hands the engine to `body`
    /// (a trace replay's loop); returns what the connection carried. An
    /// error is a setup failure; a protocol whose engine no loop but the
    /// runner's drives says so.
    ///
    /// # Safety
    /// `buffers` must hold `depth * len` bytes and outlive the call, and
    /// `body` must reap every request it queues.
    unsafe fn with_queue(
        &self,
        depth: u32,
        buffers: *mut u8,
        len: usize,
        write: bool,
        body: &mut dyn FnMut(&mut dyn crate::engine::DynQueuedIo),
    ) -> io::Result<super::traffic::ClientTraffic> {
        let _ = (depth, buffers, len, write, body);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this target's client runs only iolab's own jobs",
        ))
    }
}

/// The queued loop of a network engine whose connection is `socket`, with
/// the connection's TCP counters read around it (after the open, so only
/// the loop's own traffic, its ramp's included, is between them) and at
/// every interval's close.
pub fn run_on_connection<Q: crate::engine::QueuedIo>(
    io: &mut Q,
    socket: Option<rustix::fd::BorrowedFd<'_>>,
    workload: &Workload,
    spec: &LoopSpec<'_>,
    memory: JobMemory,
    ready: &mut dyn FnMut() -> bool,
) -> (JobOutcome, Option<TcpTraffic>) {
    let spec = &LoopSpec { socket, ..*spec };
    tcp_around(socket, || {
        run_queued(io, workload.iodepth, spec, memory, ready)
    })
}

/// `work`'s result, and what the connection `socket` carried while it ran
/// (`None` when TCP_INFO could not be read).
pub fn tcp_around<T>(
    socket: Option<rustix::fd::BorrowedFd<'_>>,
    work: impl FnOnce() -> T,
) -> (T, Option<TcpTraffic>) {
    let snapshot = || socket.and_then(|fd| crate::probe::tcp::TcpSnapshot::of(fd).ok());
    let before = snapshot();
    let done = work();
    let tcp = before
        .zip(snapshot())
        .map(|(before, after)| after.since(before));
    (done, tcp)
}
