//! What a network client's jobs carried, as the result file keeps it: requests by kind, PDUs by opcode, the connection's TCP counters (`client_network` of a repetition).

use serde::{Deserialize, Serialize};

/// What a network client engine's jobs sent and received over the timed
/// region, all jobs together: the requests and (iSCSI) the PDUs the engine
/// counted, and what TCP counted on the same connections.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientNetwork {
    /// The protocol: `NFSv3` or `iSCSI`.
    pub protocol: String,
    /// What its requests are, in words (`RPCs`, `SCSI commands`); empty in
    /// records written before it was kept.
    #[serde(skip_serializing_if = "String::is_empty", default)]
    pub requests_are: String,
    /// The requests the engine completed, by kind: NFS calls by procedure
    /// (`READ`, `WRITE`, `COMMIT`), SCSI commands by operation
    /// (`READ(16)`, `WRITE(16)`, `SYNCHRONIZE CACHE(16)`); kinds never made
    /// are left out.
    pub requests: Vec<RequestCount>,
    /// iSCSI: the PDUs on the wire by direction and opcode, as libiscsi
    /// sent and received them; empty for NFS, or when not counted.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub pdus: Vec<PduCount>,
    /// iSCSI: why the PDUs were not counted, when they were not.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub pdus_not_counted: Option<String>,
    /// iSCSI: Data-In PDUs that also carried their command's status, so no
    /// SCSI Response PDU followed them (RFC 7143 §11.7.3, the S bit).
    #[serde(skip_serializing_if = "is_zero", default)]
    pub status_in_data: u64,
    /// The connections' own counters (TCP_INFO); absent when they could not be read.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tcp: Option<TcpCounts>,
}

pub(super) fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// Requests of one kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestCount {
    /// The procedure or operation: `READ`, `WRITE`, `COMMIT`; `READ(16)`…
    pub name: String,
    /// Requests completed, failed ones included.
    pub count: u64,
    /// Payload bytes of the successful ones; for calls counted from the
    /// wire (a metadata workload's NFS calls), the calls' and replies'
    /// bytes on the wire, record marks included.
    pub bytes: u64,
    /// For calls counted from the wire: their mean round trip, ns, from the
    /// call handed to the socket to its reply's first bytes read.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mean_round_trip_ns: Option<f64>,
}

/// PDUs of one opcode in one direction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PduCount {
    /// `sent` (initiator to target) or `received`.
    pub direction: String,
    /// The opcode (RFC 7143 §11.1.1), e.g. 1 for SCSI Command, 37 for SCSI Data-In.
    pub opcode: u8,
    /// The opcode's name: `SCSI Command`, `SCSI Data-Out`, `SCSI Data-In`,
    /// `SCSI Response`, `Ready To Transfer (R2T)`, `NOP-Out`, `NOP-In`…
    pub name: String,
    /// PDUs.
    pub count: u64,
    /// Their bytes on the wire: the 48-byte header, any AHS, and the data
    /// segment padded to 4 bytes (no digests are negotiated).
    pub bytes: u64,
}

/// TCP's account of connections, from TCP_INFO around the loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpCounts {
    /// Segments sent, acknowledgements and retransmissions included.
    pub segs_out: u64,
    /// Segments received.
    pub segs_in: u64,
    /// Segments sent that carried data.
    pub data_segs_out: u64,
    /// Segments received that carried data.
    pub data_segs_in: u64,
    /// Bytes sent that the server acknowledged.
    pub bytes_acked: u64,
    /// Bytes received in order.
    pub bytes_received: u64,
    /// Segments retransmitted.
    pub retransmits: u64,
}
