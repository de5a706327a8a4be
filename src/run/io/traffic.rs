//! What a network client's job carried over its timed region (with a ramp, the ramp's too): the protocol's requests by kind, counted by the engine; its PDUs by direction and opcode when the protocol has its own; the connection's TCP counters. Data only: the protocols in `net/` fill it, the recorder keeps it.

use crate::probe::tcp::TcpTraffic;

/// One kind of request: its name as the protocol gives it, how many
/// completed (successfully or not), and the payload bytes of those that succeeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestTally {
    /// `READ`, `WRITE`, `COMMIT` (NFS); `READ(16)`, `WRITE(16)`,
    /// `SYNCHRONIZE CACHE(16)` (SCSI).
    pub name: &'static str,
    /// Requests completed.
    pub count: u64,
    /// Payload bytes of the successful ones; for calls counted from the
    /// wire (a metadata workload's NFS calls), the calls' and replies'
    /// bytes on the wire, record marks included.
    pub bytes: u64,
    /// For calls counted from the wire: their round trips added up, ns.
    pub round_trip_ns: Option<u64>,
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
    /// What its requests are, in words for a table (`RPCs`, `SCSI commands`).
    pub requests_are: &'static str,
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
