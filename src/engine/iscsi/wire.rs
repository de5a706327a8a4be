//! The iSCSI PDUs a connection carries, counted by opcode as libiscsi sends
//! and receives them: the "messages" of the NFS-vs-iSCSI study at the
//! protocol's level, beside TCP's own segments.
//!
//! libiscsi has no callback per PDU, so its calls to `recv`, `send`,
//! `readv` and `writev` go through wrappers (installed with [`crate::engine::got`]
//! when the library is loaded) that call the C library and then hand the
//! bytes that moved to the connection's parser. Only the thread that
//! registered a connection ([`Counting::start`]) and only that connection's
//! descriptor are counted; every other call passes straight through. The
//! parser reads each PDU's 48-byte basic header segment (opcode, AHS length,
//! data segment length, RFC 7143 §11.2) and skips the rest of the PDU:
//! nothing is copied, nothing is allocated, and the bytes on the wire are
//! exactly those libiscsi moved. Header and data digests are never
//! negotiated (the engine turns them off), so a PDU is its header, its
//! AHS and its data padded to 4 bytes. A header that is not one the
//! direction can carry means the parser lost its place: the counts are then
//! reported as lost rather than guessed.

use std::cell::Cell;
use std::ffi::{c_int, c_void};

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

thread_local! {
    /// The connection this thread counts: its descriptor and its counts.
    static COUNTING: Cell<Option<(c_int, *mut Wire)>> = const { Cell::new(None) };
}

/// Whether the wrappers are in libiscsi: without them nothing is counted.
static INSTALLED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();

/// Puts the wrappers in `library`'s GOT, once; a library they cannot be
/// put in is used uncounted, and [`counting_available`] says why.
pub(super) fn install(library: &str) {
    INSTALLED.get_or_init(|| {
        let replacements = [
            (c"recv", counted_recv as *const () as usize),
            (c"send", counted_send as *const () as usize),
            (c"readv", counted_readv as *const () as usize),
            (c"writev", counted_writev as *const () as usize),
        ];
        // SAFETY: each wrapper has the C signature of the function it
        // replaces, and no context exists yet.
        match unsafe { crate::engine::got::redirect(library, &replacements) } {
            Ok(0) => Err(format!(
                "{library} makes none of its socket calls through its GOT"
            )),
            Ok(_) => Ok(()),
            Err(why) => Err(why),
        }
    });
}

/// Why PDUs cannot be counted here, if they cannot.
pub fn counting_available() -> Result<(), String> {
    match INSTALLED.get() {
        Some(result) => result.clone(),
        None => Err("libiscsi is not loaded".to_string()),
    }
}

/// While alive, this thread's calls on one descriptor are counted into the [`Wire`] it owns.
pub struct Counting {
    wire: Box<Wire>,
}

impl Counting {
    /// Counts this thread's traffic on `fd` until dropped (a thread counts
    /// one connection at a time: a second start replaces the first).
    pub fn start(fd: c_int) -> Counting {
        let mut wire = Box::<Wire>::default();
        let at: *mut Wire = &mut *wire;
        COUNTING.with(|counting| counting.set(Some((fd, at))));
        Counting { wire }
    }

    /// What was counted so far.
    pub fn wire(&self) -> &Wire {
        &self.wire
    }
}

impl Drop for Counting {
    fn drop(&mut self) {
        let at: *mut Wire = &mut *self.wire;
        COUNTING.with(|counting| {
            if counting.get().is_some_and(|(_, wire)| wire == at) {
                counting.set(None);
            }
        });
    }
}

/// Hands the first `moved` bytes of `parts` to the counted connection when `fd` is it.
///
/// # Safety
/// Each part must be readable for its length.
unsafe fn account(
    fd: c_int,
    parts: impl IntoIterator<Item = (*const u8, usize)>,
    mut moved: usize,
    sent: bool,
) {
    let Some((counted, wire)) = COUNTING.with(Cell::get) else {
        return;
    };
    if counted != fd {
        return;
    }
    // SAFETY: `wire` outlives the registration that put it here, and
    // only this thread touches it.
    let wire = unsafe { &mut *wire };
    for (start, len) in parts {
        if moved == 0 {
            break;
        }
        let len = len.min(moved);
        // SAFETY: the caller's promise, and the C library moved these bytes.
        let bytes = unsafe { std::slice::from_raw_parts(start, len) };
        if sent {
            wire.sent_bytes(bytes);
        } else {
            wire.received_bytes(bytes);
        }
        moved -= len;
    }
}

/// The parts of an iovec array, for [`account`].
///
/// # Safety
/// `iov` must hold `count` entries.
unsafe fn parts<'a>(
    iov: *const libc::iovec,
    count: c_int,
) -> impl Iterator<Item = (*const u8, usize)> + 'a {
    let count = usize::try_from(count).unwrap_or(0);
    let entries = if iov.is_null() || count == 0 {
        &[][..]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(iov, count) }
    };
    entries
        .iter()
        .map(|entry| (entry.iov_base as *const u8, entry.iov_len))
}

unsafe extern "C" fn counted_recv(fd: c_int, buf: *mut c_void, len: usize, flags: c_int) -> isize {
    // SAFETY: libiscsi's arguments, passed on unchanged.
    let moved = unsafe { libc::recv(fd, buf, len, flags) };
    if moved > 0 && flags & libc::MSG_PEEK == 0 {
        // SAFETY: the C library wrote `moved` bytes at `buf`.
        unsafe { account(fd, [(buf as *const u8, len)], moved as usize, false) };
    }
    moved
}

unsafe extern "C" fn counted_send(
    fd: c_int,
    buf: *const c_void,
    len: usize,
    flags: c_int,
) -> isize {
    // SAFETY: libiscsi's arguments, passed on unchanged.
    let moved = unsafe { libc::send(fd, buf, len, flags) };
    if moved > 0 {
        // SAFETY: `buf` holds `len` bytes, of which the first `moved` were sent.
        unsafe { account(fd, [(buf as *const u8, len)], moved as usize, true) };
    }
    moved
}

unsafe extern "C" fn counted_readv(fd: c_int, iov: *const libc::iovec, count: c_int) -> isize {
    // SAFETY: libiscsi's arguments, passed on unchanged.
    let moved = unsafe { libc::readv(fd, iov, count) };
    if moved > 0 {
        // SAFETY: `iov` holds `count` entries, filled in order by readv.
        unsafe { account(fd, parts(iov, count), moved as usize, false) };
    }
    moved
}

unsafe extern "C" fn counted_writev(fd: c_int, iov: *const libc::iovec, count: c_int) -> isize {
    // SAFETY: libiscsi's arguments, passed on unchanged.
    let moved = unsafe { libc::writev(fd, iov, count) };
    if moved > 0 {
        // SAFETY: `iov` holds `count` entries, sent in order by writev.
        unsafe { account(fd, parts(iov, count), moved as usize, true) };
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

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
