//! blktrace's binary events (`struct blk_io_trace`, 48 bytes and a payload): the queue events of reads, writes, flushes and discards, in either byte order.

use super::{AnyRead, IoKind, TraceIo};
use std::io::Read;

/// `BLK_IO_TRACE_MAGIC` in the top 24 bits, the format's version below.
const MAGIC: u32 = 0x6561_7400;
/// The version blktrace 1.x writes.
const VERSION: u32 = 0x07;
/// The fixed part of each event.
const HEADER: usize = 48;
/// `__BLK_TA_QUEUE`: the I/O as the block layer first saw it (what fio's
/// own blktrace replay takes).
const TA_QUEUE: u32 = 1;
/// `__BLK_TA_ISSUE` (`D`) and `__BLK_TA_COMPLETE` (`C`): the device's queue.
const TA_ISSUE: u32 = 7;
const TA_COMPLETE: u32 = 8;
/// The category bits above the action (`BLK_TC_SHIFT`).
const TC_SHIFT: u32 = 16;
const TC_WRITE: u32 = 1 << 1;
const TC_FLUSH: u32 = 1 << 2;
const TC_NOTIFY: u32 = 1 << 10;
const TC_DISCARD: u32 = 1 << 13;

/// Whether `head` starts with a blktrace event, in either byte order.
pub(super) fn is_blktrace(head: &[u8]) -> bool {
    head.len() >= 4 && order_of(head[..4].try_into().expect("4 bytes")).is_some()
}

/// The byte order the magic `word` is written in: true for little-endian.
fn order_of(word: [u8; 4]) -> Option<bool> {
    let little = u32::from_le_bytes(word);
    let big = u32::from_be_bytes(word);
    if little & 0xffff_ff00 == MAGIC && little & 0xff == VERSION {
        Some(true)
    } else if big & 0xffff_ff00 == MAGIC && big & 0xff == VERSION {
        Some(false)
    } else {
        None
    }
}

/// The events of one trace, read one at a time.
pub(super) struct Events {
    reader: AnyRead,
    little: Option<bool>,
    record: u64,
    at: u64,
    first_ns: Option<u64>,
    payload: Vec<u8>,
    /// The device's queue, from the dispatch and completion events.
    pub(super) depth: super::depth::DeviceDepth,
}

impl Events {
    pub(super) fn new(reader: AnyRead) -> Events {
        Events {
            reader,
            little: None,
            record: 0,
            at: 0,
            first_ns: None,
            payload: Vec::new(),
            depth: super::depth::DeviceDepth::default(),
        }
    }

    /// Fills `buffer` whole: false at a clean end before its first byte.
    fn fill(&mut self, buffer: &mut [u8]) -> Result<bool, (u64, u64, String)> {
        let mut filled = 0;
        while filled < buffer.len() {
            match self.reader.read(&mut buffer[filled..]) {
                Ok(0) if filled == 0 => return Ok(false),
                Ok(0) => {
                    return Err((
                        self.record,
                        self.at,
                        format!("truncated: {filled} of {} bytes", buffer.len()),
                    ));
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err((self.record, self.at, e.to_string())),
            }
        }
        Ok(true)
    }

    /// The next queued I/O: (record number, byte offset, why) on a refusal.
    pub(super) fn next_io(&mut self) -> Result<Option<TraceIo>, (u64, u64, String)> {
        loop {
            let mut header = [0u8; HEADER];
            self.record += 1;
            if !self.fill(&mut header)? {
                return Ok(None);
            }
            let word = |at: usize| -> [u8; 4] { header[at..at + 4].try_into().expect("4 bytes") };
            let little = match (self.little, order_of(word(0))) {
                (_, None) => {
                    return Err((
                        self.record,
                        self.at,
                        "not a blktrace event (its magic is wrong)".into(),
                    ));
                }
                (None, Some(order)) => {
                    self.little = Some(order);
                    order
                }
                (Some(known), Some(order)) if known != order => {
                    return Err((self.record, self.at, "byte order changes mid-trace".into()));
                }
                (Some(known), Some(_)) => known,
            };
            let u32_at = |at: usize| {
                if little {
                    u32::from_le_bytes(word(at))
                } else {
                    u32::from_be_bytes(word(at))
                }
            };
            let u64_at = |at: usize| {
                let bytes: [u8; 8] = header[at..at + 8].try_into().expect("8 bytes");
                if little {
                    u64::from_le_bytes(bytes)
                } else {
                    u64::from_be_bytes(bytes)
                }
            };
            let time = u64_at(8);
            let sector = u64_at(16);
            let bytes = u64::from(u32_at(24));
            let action = u32_at(28);
            let pdu_len = usize::from(if little {
                u16::from_le_bytes([header[46], header[47]])
            } else {
                u16::from_be_bytes([header[46], header[47]])
            });
            let start = self.at;
            self.at += HEADER as u64;
            self.payload.resize(pdu_len, 0);
            let mut payload = std::mem::take(&mut self.payload);
            let whole = self.fill(&mut payload);
            self.payload = payload;
            if !whole.map_err(|(r, _, why)| (r, start, format!("its payload is {why}")))?
                && pdu_len > 0
            {
                return Err((
                    self.record,
                    start,
                    format!("truncated: its payload of {pdu_len} bytes is missing"),
                ));
            }
            self.at += pdu_len as u64;
            let category = action >> TC_SHIFT;
            if category & TC_NOTIFY == 0 {
                match action & 0xffff {
                    TA_ISSUE => self.depth.dispatched(time, sector),
                    TA_COMPLETE => self.depth.completed(time, sector),
                    _ => {}
                }
            }
            if action & 0xffff != TA_QUEUE || category & TC_NOTIFY != 0 {
                continue;
            }
            let kind = if category & TC_DISCARD != 0 {
                IoKind::Trim
            } else if category & TC_FLUSH != 0 && bytes == 0 {
                IoKind::Flush
            } else if category & TC_WRITE != 0 {
                IoKind::Write
            } else {
                IoKind::Read
            };
            let first = *self.first_ns.get_or_insert(time);
            let Some(at_ns) = time.checked_sub(first) else {
                return Err((
                    self.record,
                    start,
                    format!(
                        "time {time} ns is before the first I/O's ({first} ns): merge the CPUs' files with blkparse -d"
                    ),
                ));
            };
            let io = TraceIo {
                at_ns,
                offset: if kind == IoKind::Flush {
                    0
                } else {
                    sector.saturating_mul(512)
                },
                len: if kind == IoKind::Flush { 0 } else { bytes },
                kind,
                response_ns: None,
            };
            if let Some(why) = super::refusal(&io) {
                return Err((self.record, start, why));
            }
            return Ok(Some(io));
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// One event as blktrace writes it on this (little-endian) host.
    pub(crate) fn event(time: u64, sector: u64, bytes: u32, action: u32, pdu: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend((MAGIC | VERSION).to_le_bytes());
        out.extend(1u32.to_le_bytes()); // sequence
        out.extend(time.to_le_bytes());
        out.extend(sector.to_le_bytes());
        out.extend(bytes.to_le_bytes());
        out.extend(action.to_le_bytes());
        out.extend(7u32.to_le_bytes()); // pid
        out.extend(0x0070_0000u32.to_le_bytes()); // device
        out.extend(0u32.to_le_bytes()); // cpu
        out.extend(0u16.to_le_bytes()); // error
        out.extend((pdu.len() as u16).to_le_bytes());
        out.extend(pdu);
        out
    }

    /// An action word: `action` with the categories `categories`.
    pub(crate) fn action(action: u32, categories: u32) -> u32 {
        action | (categories << TC_SHIFT)
    }

    #[test]
    fn queue_events_become_ios_and_the_rest_is_skipped() {
        let mut bytes = event(1_000, 8, 4096, action(TA_QUEUE, TC_WRITE), &[]);
        bytes.extend(event(1_500, 8, 4096, action(7, TC_WRITE), &[1, 2, 3])); // issue
        bytes.extend(event(2_000, 16, 8192, action(TA_QUEUE, 1), &[]));
        bytes.extend(event(
            3_000,
            0,
            0,
            action(TA_QUEUE, TC_WRITE | TC_FLUSH),
            &[],
        ));
        bytes.extend(event(
            4_000,
            32,
            4096,
            action(TA_QUEUE, TC_WRITE | TC_DISCARD),
            &[],
        ));
        let ios = crate::trace::parse_bytes(&bytes, crate::trace::Format::Blktrace).unwrap();
        let kinds: Vec<_> = ios
            .iter()
            .map(|io| (io.at_ns, io.offset, io.len, io.kind))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (0, 4096, 4096, IoKind::Write),
                (1_000, 8192, 8192, IoKind::Read),
                (2_000, 0, 0, IoKind::Flush),
                (3_000, 16384, 4096, IoKind::Trim),
            ]
        );
    }

    #[test]
    fn a_truncated_event_names_its_record_and_byte() {
        let mut bytes = event(1_000, 8, 4096, action(TA_QUEUE, TC_WRITE), &[]);
        bytes.extend(&event(2_000, 8, 4096, action(TA_QUEUE, TC_WRITE), &[])[..30]);
        let error = crate::trace::parse_bytes(&bytes, crate::trace::Format::Blktrace).unwrap_err();
        assert!(
            error
                .0
                .contains("record 2 (byte 48): truncated: 30 of 48 bytes"),
            "{error}"
        );
        let mut bytes = event(1_000, 8, 4096, action(TA_QUEUE, TC_WRITE), &[]);
        bytes[0] ^= 0xff;
        let error = crate::trace::parse_bytes(&bytes, crate::trace::Format::Blktrace).unwrap_err();
        assert!(
            error.0.contains("record 1 (byte 0): not a blktrace event"),
            "{error}"
        );
    }
}
