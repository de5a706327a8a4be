//! The ONC RPC calls a libnfs connection carries, counted by program and procedure as libnfs sends them, with their replies' bytes and each call's round-trip time: what a path-based call (`nfs_stat64`, `nfs_creat`) really sends — its LOOKUPs, GETATTRs, CREATE — which libnfs does not say.
//!
//! libnfs's calls to `send` and `recv` go through `engine::tap`'s wrappers,
//! which hand the bytes that moved to the registered connection's parser
//! (this module's [`RpcWire`]); every other thread's and descriptor's
//! calls pass straight through. The parser follows RFC 5531's record marking: each record is
//! fragments of a 4-byte mark (last-fragment bit, length) and its bytes; a
//! call's first 24 bytes are its xid, message type 0, RPC version 2,
//! program, version and procedure; a reply's first 8 its xid and type 1.
//! The call's send time is kept by xid in a small fixed table, so each
//! reply's round trip is timed without an allocation. Bytes that do not
//! parse as that stop the counts, reported as lost rather than guessed.

use crate::engine::tap::{Feed, Tap};

/// NFS's program number.
pub const NFS_PROGRAM: u32 = 100_003;
/// MOUNT's program number.
pub const MOUNT_PROGRAM: u32 = 100_005;

/// NFSv3's procedures by number (RFC 1813).
pub const NFS3_PROCEDURES: [&str; 22] = [
    "NULL",
    "GETATTR",
    "SETATTR",
    "LOOKUP",
    "ACCESS",
    "READLINK",
    "READ",
    "WRITE",
    "CREATE",
    "MKDIR",
    "SYMLINK",
    "MKNOD",
    "REMOVE",
    "RMDIR",
    "RENAME",
    "LINK",
    "READDIR",
    "READDIRPLUS",
    "FSSTAT",
    "FSINFO",
    "PATHCONF",
    "COMMIT",
];

/// One procedure's calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcedureWire {
    /// Calls sent.
    pub calls: u64,
    /// Replies received.
    pub replies: u64,
    /// Bytes of the calls on the wire, record marks included.
    pub call_bytes: u64,
    /// Bytes of the replies on the wire, record marks included.
    pub reply_bytes: u64,
    /// The replies' round trips added up, ns: from the call's last byte
    /// handed to the socket to the reply's first byte read.
    pub round_trip_ns: u64,
}

/// How many calls may await their replies at once; a synchronous libnfs
/// call has one or two in flight.
const IN_FLIGHT: usize = 64;

/// Where one direction's parser is within the stream.
#[derive(Clone, Copy, Debug, Default)]
struct Stream {
    /// The record mark collected so far.
    mark: [u8; 4],
    mark_have: usize,
    /// The message header collected so far.
    header: [u8; 24],
    have: usize,
    /// The xid of the call under way.
    xid: u32,
    /// Whether `header` is collecting a record mark (else a message's start).
    in_mark: bool,
    /// Bytes of the current fragment still to come.
    rest: u64,
    /// Whether the current fragment is the first of its record (its start
    /// is the message header).
    record_start: bool,
    /// Whether the current fragment is its record's last.
    last: bool,
    /// The message under way: its procedure slot and bytes so far.
    slot: Option<usize>,
    bytes: u64,
}

/// One connection's RPC counts.
#[derive(Clone, Debug)]
pub struct RpcWire {
    /// NFSv3 procedures, by number.
    pub nfs: [ProcedureWire; 22],
    /// MOUNT calls (the connection's own mount).
    pub mount: ProcedureWire,
    /// Calls of any other program or version.
    pub other: ProcedureWire,
    /// Set when bytes did not parse: the counts stopped there.
    pub lost: bool,
    sending: Stream,
    receiving: Stream,
    /// Calls awaiting replies: xid, procedure slot, send time (ns).
    waiting: [(u32, usize, u64); IN_FLIGHT],
    waiting_len: usize,
}

impl Default for RpcWire {
    fn default() -> RpcWire {
        RpcWire {
            nfs: [ProcedureWire::default(); 22],
            mount: ProcedureWire::default(),
            other: ProcedureWire::default(),
            lost: false,
            sending: Stream {
                in_mark: true,
                record_start: true,
                ..Stream::default()
            },
            receiving: Stream {
                in_mark: true,
                record_start: true,
                ..Stream::default()
            },
            waiting: [(0, 0, 0); IN_FLIGHT],
            waiting_len: 0,
        }
    }
}

/// Slots past the NFS procedures: MOUNT's and the rest's.
const MOUNT_SLOT: usize = 22;
const OTHER_SLOT: usize = 23;

fn now_ns() -> u64 {
    let time = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    time.tv_sec as u64 * 1_000_000_000 + time.tv_nsec as u64
}

impl RpcWire {
    /// Sets every count back to zero, keeping the parser's place: the
    /// timed region starts here.
    pub fn restart(&mut self) {
        self.nfs = [ProcedureWire::default(); 22];
        self.mount = ProcedureWire::default();
        self.other = ProcedureWire::default();
    }

    fn tally(&mut self, slot: usize) -> &mut ProcedureWire {
        match slot {
            MOUNT_SLOT => &mut self.mount,
            OTHER_SLOT => &mut self.other,
            nfs => &mut self.nfs[nfs],
        }
    }

    /// Counts `bytes` libnfs sent (`sent`) or received.
    pub fn feed(&mut self, mut bytes: &[u8], sent: bool) {
        while !bytes.is_empty() && !self.lost {
            let mut stream = if sent { self.sending } else { self.receiving };
            let used = self.step(&mut stream, bytes, sent);
            if sent {
                self.sending = stream;
            } else {
                self.receiving = stream;
            }
            bytes = &bytes[used..];
        }
    }

    /// Parses what it can of `bytes` into `stream`; returns the bytes used.
    fn step(&mut self, stream: &mut Stream, bytes: &[u8], sent: bool) -> usize {
        if stream.in_mark {
            let take = (4 - stream.mark_have).min(bytes.len());
            stream.mark[stream.mark_have..stream.mark_have + take].copy_from_slice(&bytes[..take]);
            stream.mark_have += take;
            if stream.mark_have == 4 {
                let mark = u32::from_be_bytes(stream.mark);
                stream.mark_have = 0;
                stream.in_mark = false;
                stream.last = mark & 0x8000_0000 != 0;
                stream.rest = u64::from(mark & 0x7fff_ffff);
                stream.bytes += 4;
            }
            return take;
        }
        // The message's start: collect its header first.
        let wanted = if sent { 24 } else { 8 };
        if stream.record_start && stream.have < wanted {
            let take = (wanted - stream.have)
                .min(bytes.len())
                .min(stream.rest as usize);
            stream.header[stream.have..stream.have + take].copy_from_slice(&bytes[..take]);
            stream.have += take;
            stream.rest -= take as u64;
            stream.bytes += take as u64;
            if stream.have == wanted {
                self.header(stream, sent);
            } else if stream.rest == 0 {
                // A record shorter than a header.
                self.lost = true;
            }
            if stream.rest == 0 && !self.lost {
                self.end_fragment(stream, sent);
            }
            return take;
        }
        let skip = stream.rest.min(bytes.len() as u64) as usize;
        stream.rest -= skip as u64;
        stream.bytes += skip as u64;
        if stream.rest == 0 {
            self.end_fragment(stream, sent);
        }
        skip
    }

    /// A message header is complete: a call's procedure, or a reply's call.
    fn header(&mut self, stream: &mut Stream, sent: bool) {
        let word = |i: usize| {
            u32::from_be_bytes([
                stream.header[i * 4],
                stream.header[i * 4 + 1],
                stream.header[i * 4 + 2],
                stream.header[i * 4 + 3],
            ])
        };
        let (xid, kind) = (word(0), word(1));
        if sent {
            if kind != 0 || word(2) != 2 {
                self.lost = true;
                return;
            }
            let slot = match (word(3), word(4), word(5) as usize) {
                (NFS_PROGRAM, 3, procedure) if procedure < 22 => procedure,
                (MOUNT_PROGRAM, _, _) => MOUNT_SLOT,
                _ => OTHER_SLOT,
            };
            stream.slot = Some(slot);
            stream.xid = xid;
            if self.waiting_len < IN_FLIGHT {
                self.waiting[self.waiting_len] = (xid, slot, 0);
                self.waiting_len += 1;
            }
        } else {
            if kind != 1 {
                self.lost = true;
                return;
            }
            let found = self.waiting[..self.waiting_len]
                .iter()
                .position(|&(waiting, _, _)| waiting == xid);
            stream.slot = found.map(|index| {
                let (_, slot, sent_at) = self.waiting[index];
                self.waiting[index] = self.waiting[self.waiting_len - 1];
                self.waiting_len -= 1;
                let tally = self.tally(slot);
                tally.round_trip_ns += now_ns().saturating_sub(sent_at);
                slot
            });
        }
    }

    /// A fragment ended: the next is a mark; a record's last ends its message.
    fn end_fragment(&mut self, stream: &mut Stream, sent: bool) {
        stream.in_mark = true;
        stream.record_start = stream.last;
        if !stream.last {
            return;
        }
        if let Some(slot) = stream.slot.take() {
            let bytes = stream.bytes;
            let tally = self.tally(slot);
            if sent {
                tally.calls += 1;
                tally.call_bytes += bytes;
                // The round trip starts when the whole call is handed over.
                let (now, xid) = (now_ns(), stream.xid);
                if let Some(entry) = self.waiting[..self.waiting_len]
                    .iter_mut()
                    .find(|entry| entry.0 == xid)
                {
                    entry.2 = now;
                }
            } else {
                tally.replies += 1;
                tally.reply_bytes += bytes;
            }
        }
        stream.bytes = 0;
        stream.have = 0;
    }
}

impl Feed for RpcWire {
    fn feed(&mut self, bytes: &[u8], sent: bool) {
        RpcWire::feed(self, bytes, sent);
    }
}

/// Whether the wrappers are in libnfs: without them nothing is counted.
static INSTALLED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();

/// Puts the wrappers in `library`'s GOT (its `send` and `recv`), once; a
/// library they cannot be put in is used uncounted, and
/// [`counting_available`] says why.
pub(super) fn install(library: &str) {
    crate::engine::tap::install(library, &INSTALLED, false);
}

/// Why RPCs cannot be counted here, if they cannot.
pub fn counting_available() -> Result<(), String> {
    crate::engine::tap::installed(&INSTALLED, "libnfs")
}

/// While alive, this thread's calls on one descriptor are counted into the [`RpcWire`] it owns.
pub type Counting = Tap<RpcWire>;

#[cfg(test)]
mod tests {
    use super::*;

    /// A record: its mark and a message starting with `words`, padded to `len`.
    fn record(words: &[u32], len: usize) -> Vec<u8> {
        let mut body: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        body.resize(len, 0);
        let mut bytes = (0x8000_0000u32 | len as u32).to_be_bytes().to_vec();
        bytes.extend(body);
        bytes
    }

    #[test]
    fn calls_and_replies_are_counted_by_procedure_in_any_pieces() {
        let mut wire = RpcWire::default();
        let create = record(&[7, 0, 2, NFS_PROGRAM, 3, 8], 120);
        let lookup = record(&[8, 0, 2, NFS_PROGRAM, 3, 3], 100);
        let mut sent = create.clone();
        sent.extend(&lookup);
        // Handed over a few bytes at a time, as a socket may take them.
        for piece in sent.chunks(5) {
            wire.feed(piece, true);
        }
        assert_eq!(wire.nfs[8].calls, 1);
        assert_eq!(wire.nfs[8].call_bytes, 124);
        assert_eq!(wire.nfs[3].calls, 1);
        let replies = [record(&[8, 1], 200), record(&[7, 1], 150)].concat();
        for piece in replies.chunks(3) {
            wire.feed(piece, false);
        }
        assert_eq!(wire.nfs[3].replies, 1);
        assert_eq!(wire.nfs[3].reply_bytes, 204);
        assert_eq!(wire.nfs[8].replies, 1);
        assert!(!wire.lost);
        assert_eq!(wire.waiting_len, 0);
    }

    #[test]
    fn a_record_in_two_fragments_is_one_call() {
        let mut wire = RpcWire::default();
        let header: Vec<u8> = [9u32, 0, 2, NFS_PROGRAM, 3, 7]
            .iter()
            .flat_map(|w| w.to_be_bytes())
            .collect();
        let mut bytes = 30u32.to_be_bytes().to_vec();
        bytes.extend(&header);
        bytes.extend([0u8; 6]);
        bytes.extend((0x8000_0000u32 | 10).to_be_bytes());
        bytes.extend([0u8; 10]);
        wire.feed(&bytes, true);
        assert_eq!(wire.nfs[7].calls, 1);
        assert_eq!(wire.nfs[7].call_bytes, 4 + 30 + 4 + 10);
    }

    #[test]
    fn bytes_that_are_no_rpc_stop_the_counts() {
        let mut wire = RpcWire::default();
        wire.feed(&record(&[1, 5, 2, NFS_PROGRAM, 3, 1], 40), true);
        assert!(wire.lost);
        assert_eq!(wire.nfs[1].calls, 0);
    }
}
