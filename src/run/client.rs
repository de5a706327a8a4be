//! A network client's job as the runner sees it: the [`ClientJob`] a
//! protocol's target runs (its own connection, then the queued loop), and
//! the [`ClientTraffic`] it carried over its timed region (with a ramp, the
//! ramp's too): the protocol's requests by kind, its PDUs when it has its
//! own, and the connection's TCP counters.
//!
//! The protocols themselves live in `net/`, one module each; the runner
//! names none of them.

use super::buffer::AlignedBuffer;
use super::timing::{self, JobMemory, JobOutcome, LoopSpec};
use crate::plan::Workload;
use crate::probe::tcp::TcpTraffic;
use std::io;

/// The job of a target reached by a network client of iolab's own: it
/// connects on its own, runs the queued loop over its connection with
/// [`run_on_connection`], and sets [`JobOutcome::network`]. An error is a
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
    let snapshot = || socket.and_then(|fd| crate::probe::tcp::TcpSnapshot::of(fd).ok());
    let before = snapshot();
    let outcome = timing::run_queued(io, workload.iodepth, spec, memory, ready);
    let tcp = before
        .zip(snapshot())
        .map(|(before, after)| after.since(before));
    (outcome, tcp)
}

/// One kind of request: its name as the protocol gives it, how many
/// completed (successfully or not), and the payload bytes of those that succeeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestTally {
    /// `READ`, `WRITE`, `COMMIT` (NFS); `READ(16)`, `WRITE(16)`,
    /// `SYNCHRONIZE CACHE(16)` (SCSI).
    pub name: &'static str,
    /// Requests completed.
    pub count: u64,
    /// Payload bytes of the successful ones.
    pub bytes: u64,
}

/// PDUs of one opcode in one direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PduTally {
    /// Sent by the initiator (true) or by the target.
    pub sent: bool,
    /// The opcode (RFC 7143 §11.1.1).
    pub opcode: u8,
    /// The opcode's name.
    pub name: &'static str,
    /// PDUs.
    pub count: u64,
    /// Their bytes on the wire, headers included.
    pub bytes: u64,
}

/// One job's traffic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientTraffic {
    /// `NFSv3` or `iSCSI`.
    pub protocol: &'static str,
    /// The requests, in the order the protocol's table lists them.
    pub requests: Vec<RequestTally>,
    /// iSCSI: the PDUs by direction and opcode, or why they were not
    /// counted; `None` for a protocol without PDUs of its own to count.
    pub pdus: Option<Result<Vec<PduTally>, String>>,
    /// iSCSI: Data-In PDUs that carried the command's status too.
    pub status_in_data: u64,
    /// The connection's segments and bytes, when TCP_INFO could be read.
    pub tcp: Option<TcpTraffic>,
}
