//! The iSCSI PDUs a connection carries, counted by opcode as libiscsi sends
//! and receives them: the "messages" of the NFS-vs-iSCSI study at the
//! protocol's level, beside TCP's own segments.
//!
//! libiscsi has no callback per PDU, so its calls to `recv`, `send`,
//! `readv` and `writev` go through `engine::tap`'s wrappers, which hand
//! the bytes that moved to the registered connection's parser (this
//! module's [`Wire`]); every other call passes straight through. The
//! parser reads each PDU's 48-byte basic header segment (opcode, AHS length,
//! data segment length, RFC 7143 §11.2) and skips the rest of the PDU:
//! nothing is copied, nothing is allocated, and the bytes on the wire are
//! exactly those libiscsi moved. Header and data digests are never
//! negotiated (the engine turns them off), so a PDU is its header, its
//! AHS and its data padded to 4 bytes. A header that is not one the
//! direction can carry means the parser lost its place: the counts are then
//! reported as lost rather than guessed.

use crate::engine::tap::{Feed, Tap};

/// The counts of one direction of one connection, by opcode.
#[derive(Clone, Debug)]
pub struct DirectionCounts {
    /// PDUs by opcode (the low 6 bits of the first byte).
    pub pdus: [u64; 64],
    /// Bytes of those PDUs on the wire, headers included.
    pub bytes: [u64; 64],
    /// Data-In PDUs that also carried the command's status (the S bit).
    pub status_in_data: u64,
}

impl Default for DirectionCounts {
    fn default() -> Self {
        DirectionCounts {
            pdus: [0; 64],
            bytes: [0; 64],
            status_in_data: 0,
        }
    }
}

/// Where one direction's parser is within the stream.
#[derive(Clone, Debug)]
struct Stream {
    header: [u8; 48],
    /// Header bytes collected so far.
    have: usize,
    /// Bytes of the current PDU after its header still to come.
    rest: u64,
}

impl Default for Stream {
    fn default() -> Self {
        Stream {
            header: [0; 48],
            have: 0,
            rest: 0,
        }
    }
}

/// One connection's PDU counts in both directions.
#[derive(Clone, Debug, Default)]
pub struct Wire {
    /// What the initiator sent.
    pub sent: DirectionCounts,
    /// What the target sent.
    pub received: DirectionCounts,
    sending: Stream,
    receiving: Stream,
    /// Set when a header made no sense: the counts stopped there.
    pub lost: bool,
}

/// The opcodes an initiator sends (RFC 7143 §11.1.1).
const INITIATOR_OPCODES: [u8; 8] = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x10];
/// The opcodes a target sends.
const TARGET_OPCODES: [u8; 10] = [0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x31, 0x32, 0x3f];
/// The Data-In opcode, whose S bit says it carries the status.
const DATA_IN: u8 = 0x25;

/// An opcode's name as RFC 7143 gives it.
pub fn opcode_name(opcode: u8) -> &'static str {
    match opcode {
        0x00 => "NOP-Out",
        0x01 => "SCSI Command",
        0x02 => "Task Management Request",
        0x03 => "Login Request",
        0x04 => "Text Request",
        0x05 => "SCSI Data-Out",
        0x06 => "Logout Request",
        0x10 => "SNACK Request",
        0x20 => "NOP-In",
        0x21 => "SCSI Response",
        0x22 => "Task Management Response",
        0x23 => "Login Response",
        0x24 => "Text Response",
        0x25 => "SCSI Data-In",
        0x26 => "Logout Response",
        0x31 => "Ready To Transfer (R2T)",
        0x32 => "Asynchronous Message",
        0x3f => "Reject",
        _ => "unknown",
    }
}

impl Wire {
    /// Counts `bytes` the initiator sent.
    fn sent_bytes(&mut self, bytes: &[u8]) {
        if !self.lost {
            self.lost = !feed(&mut self.sending, &mut self.sent, &INITIATOR_OPCODES, bytes);
        }
    }

    /// Counts `bytes` the initiator received.
    fn received_bytes(&mut self, bytes: &[u8]) {
        if !self.lost {
            self.lost = !feed(
                &mut self.receiving,
                &mut self.received,
                &TARGET_OPCODES,
                bytes,
            );
        }
    }
}

/// Feeds `bytes` of one direction to its parser; false when a header is
/// not one of `opcodes`.
fn feed(
    stream: &mut Stream,
    counts: &mut DirectionCounts,
    opcodes: &[u8],
    mut bytes: &[u8],
) -> bool {
    while !bytes.is_empty() {
        if stream.rest > 0 {
            let skip = stream.rest.min(bytes.len() as u64);
            stream.rest -= skip;
            bytes = &bytes[skip as usize..];
            continue;
        }
        let take = (48 - stream.have).min(bytes.len());
        stream.header[stream.have..stream.have + take].copy_from_slice(&bytes[..take]);
        stream.have += take;
        bytes = &bytes[take..];
        if stream.have < 48 {
            break;
        }
        stream.have = 0;
        let header = &stream.header;
        let opcode = header[0] & 0x3f;
        if !opcodes.contains(&opcode) {
            return false;
        }
        let ahs = u64::from(header[4]) * 4;
        let data = u64::from(header[5]) << 16 | u64::from(header[6]) << 8 | u64::from(header[7]);
        let rest = ahs + data.div_ceil(4) * 4;
        counts.pdus[usize::from(opcode)] += 1;
        counts.bytes[usize::from(opcode)] += 48 + rest;
        if opcode == DATA_IN && header[1] & 0x01 != 0 {
            counts.status_in_data += 1;
        }
        stream.rest = rest;
    }
    true
}

impl Feed for Wire {
    fn feed(&mut self, bytes: &[u8], sent: bool) {
        if sent {
            self.sent_bytes(bytes);
        } else {
            self.received_bytes(bytes);
        }
    }
}

/// Whether the wrappers are in libiscsi: without them nothing is counted.
static INSTALLED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();

/// Puts the wrappers in `library`'s GOT, once (its `recv`, `send`,
/// `readv` and `writev`); a library they cannot be put in is used
/// uncounted, and [`counting_available`] says why.
pub(super) fn install(library: &str) {
    crate::engine::tap::install(library, &INSTALLED, true);
}

/// Why PDUs cannot be counted here, if they cannot.
pub fn counting_available() -> Result<(), String> {
    crate::engine::tap::installed(&INSTALLED, "libiscsi")
}

/// While alive, this thread's calls on one descriptor are counted into the [`Wire`] it owns.
pub type Counting = Tap<Wire>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::tap::account;

    /// A PDU with `opcode`, `flags` and `data` bytes of data segment.
    fn pdu(opcode: u8, flags: u8, data: usize) -> Vec<u8> {
        let mut bytes = vec![0u8; 48 + data.div_ceil(4) * 4];
        bytes[0] = opcode;
        bytes[1] = flags;
        bytes[5..8].copy_from_slice(&(data as u32).to_be_bytes()[1..]);
        bytes
    }

    #[test]
    fn pdus_are_counted_whatever_the_pieces_they_arrive_in() {
        let mut stream = pdu(0x25, 0x80, 4096); // Data-In, final
        stream.extend(pdu(0x21, 0x80, 0)); // SCSI Response
        stream.extend(pdu(0x25, 0x81, 4096)); // Data-In with status
        stream.extend(pdu(0x31, 0x80, 0)); // R2T
        stream.extend(pdu(0x20, 0x80, 6)); // NOP-In, 6 bytes padded to 8
        for piece in [1, 7, 48, 1000, stream.len()] {
            let mut wire = Wire::default();
            for chunk in stream.chunks(piece) {
                wire.received_bytes(chunk);
            }
            assert!(!wire.lost);
            let got = &wire.received;
            assert_eq!((got.pdus[0x25], got.bytes[0x25]), (2, 2 * (48 + 4096)));
            assert_eq!((got.pdus[0x21], got.pdus[0x31]), (1, 1));
            assert_eq!((got.pdus[0x20], got.bytes[0x20]), (1, 56));
            assert_eq!(got.status_in_data, 1);
            assert_eq!(got.bytes.iter().sum::<u64>(), stream.len() as u64);
        }
    }

    #[test]
    fn a_header_the_direction_cannot_carry_stops_the_count() {
        let mut wire = Wire::default();
        wire.sent_bytes(&pdu(0x01, 0x80, 0)); // SCSI Command
        wire.sent_bytes(&pdu(0x25, 0x80, 0)); // Data-In does not come from an initiator
        assert!(wire.lost);
        wire.sent_bytes(&pdu(0x01, 0x80, 0));
        assert_eq!(wire.sent.pdus[0x01], 1, "nothing is counted once lost");
    }

    #[test]
    fn only_the_registered_descriptor_on_this_thread_is_counted() {
        let header = pdu(0x21, 0x80, 0);
        let counting = Counting::start(7);
        {
            // SAFETY: `header` is readable for its length.
            unsafe {
                account(7, [(header.as_ptr(), header.len())], header.len(), false);
                account(8, [(header.as_ptr(), header.len())], header.len(), false);
            }
            std::thread::spawn(move || {
                // SAFETY: as above; another thread has nothing registered.
                let header = pdu(0x21, 0x80, 0);
                unsafe { account(7, [(header.as_ptr(), header.len())], header.len(), false) };
            })
            .join()
            .unwrap();
        }
        assert_eq!(counting.wire().received.pdus[0x21], 1);
        drop(counting);
        let later = Counting::start(9);
        // SAFETY: as above; descriptor 7 is no longer registered.
        unsafe { account(7, [(header.as_ptr(), header.len())], header.len(), false) };
        assert_eq!(later.wire().received.pdus[0x21], 0);
    }

    #[test]
    fn a_partial_send_counts_only_what_went() {
        let command = pdu(0x01, 0x80, 512);
        let counting = Counting::start(3);
        // SAFETY: `command` is readable for its length.
        unsafe {
            account(3, [(command.as_ptr(), command.len())], 30, true);
            account(
                3,
                [(command[30..].as_ptr(), command.len() - 30)],
                command.len() - 30,
                true,
            );
        }
        let wire = counting.wire();
        assert_eq!((wire.sent.pdus[1], wire.sent.bytes[1]), (1, 48 + 512));
    }
}
