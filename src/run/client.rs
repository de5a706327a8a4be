//! What a network client engine's job carried over its timed region (with
//! a ramp, the ramp's too): the protocol's requests by kind, counted by the
//! engine; for iSCSI the PDUs by direction and opcode, counted as libiscsi
//! moved them; and the connection's own TCP counters.

use crate::engine::iscsi::wire::Wire;
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

impl ClientTraffic {
    /// An NFS job's calls by procedure.
    pub fn nfs(rpcs: crate::engine::nfs::RpcCounts, tcp: Option<TcpTraffic>) -> ClientTraffic {
        let tally = |name, count: crate::engine::nfs::ProcedureCount| RequestTally {
            name,
            count: count.calls,
            bytes: count.bytes,
        };
        ClientTraffic {
            protocol: "NFSv3",
            requests: vec![
                tally("READ", rpcs.read),
                tally("WRITE", rpcs.write),
                tally("COMMIT", rpcs.commit),
            ],
            pdus: None,
            status_in_data: 0,
            tcp,
        }
    }

    /// An iSCSI job's commands by operation and, when they could be
    /// counted, its PDUs (`wire`, or why there are none).
    pub fn iscsi(
        commands: crate::engine::iscsi::CommandCounts,
        wire: Result<&Wire, String>,
        tcp: Option<TcpTraffic>,
    ) -> ClientTraffic {
        let tally = |name, count: crate::engine::iscsi::CommandCount| RequestTally {
            name,
            count: count.commands,
            bytes: count.bytes,
        };
        let (pdus, status_in_data) = match wire {
            Ok(wire) if wire.lost => (
                Err("the PDU parser lost its place in the stream; counts withheld".to_string()),
                0,
            ),
            Ok(wire) => {
                let mut pdus = Vec::new();
                for (sent, counts) in [(true, &wire.sent), (false, &wire.received)] {
                    for opcode in 0..64u8 {
                        let count = counts.pdus[usize::from(opcode)];
                        if count > 0 {
                            pdus.push(PduTally {
                                sent,
                                opcode,
                                name: crate::engine::iscsi::wire::opcode_name(opcode),
                                count,
                                bytes: counts.bytes[usize::from(opcode)],
                            });
                        }
                    }
                }
                (Ok(pdus), wire.received.status_in_data)
            }
            Err(why) => (Err(why), 0),
        };
        ClientTraffic {
            protocol: "iSCSI",
            requests: vec![
                tally("READ(16)", commands.read),
                tally("WRITE(16)", commands.write),
                tally("UNMAP", commands.unmap),
                tally("SYNCHRONIZE CACHE(16)", commands.synchronize),
            ],
            pdus: Some(pdus),
            status_in_data,
            tcp,
        }
    }
}
