//! The text formats' lines, bounded in length, and the two CSV formats: MSR Cambridge (Windows ticks) and SPC (seconds, 512-byte LBAs).

use super::{IoKind, TraceIo};
use std::io::{BufRead, Read};

/// The longest line a text trace may have: far beyond any record's, so
/// a binary file read as text is refused instead of read into memory.
const LONGEST_LINE: u64 = 4096;

/// A text trace's lines with their numbers (from 1), blank lines and
/// comments (`#`) skipped.
pub(super) struct Lines {
    reader: Box<dyn BufRead>,
    buffer: Vec<u8>,
    number: u64,
}

impl Lines {
    pub(super) fn new(reader: Box<dyn BufRead>) -> Lines {
        Lines {
            reader,
            buffer: Vec::with_capacity(256),
            number: 0,
        }
    }

    /// The next line that holds something, with its number.
    pub(super) fn next_line(&mut self) -> Result<Option<(u64, &str)>, String> {
        loop {
            self.buffer.clear();
            let read = (&mut self.reader)
                .take(LONGEST_LINE + 1)
                .read_until(b'\n', &mut self.buffer)
                .map_err(|e| e.to_string())?;
            if read == 0 {
                return Ok(None);
            }
            self.number += 1;
            if self.buffer.len() as u64 > LONGEST_LINE {
                return Err(format!(
                    "line {} is longer than {LONGEST_LINE} bytes: not a text trace",
                    self.number
                ));
            }
            let text = std::str::from_utf8(&self.buffer)
                .map_err(|_| format!("line {} is not text (UTF-8)", self.number))?
                .trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            let number = self.number;
            // Re-borrow the trimmed text from the buffer.
            let text = std::str::from_utf8(&self.buffer).expect("checked").trim();
            return Ok(Some((number, text)));
        }
    }
}

/// A field parsed as `T`, or why not.
fn field<T: std::str::FromStr>(fields: &[&str], index: usize, name: &str) -> Result<T, String> {
    let text = fields
        .get(index)
        .ok_or_else(|| format!("no {name} (field {})", index + 1))?;
    text.trim()
        .parse()
        .map_err(|_| format!("{name} {:?} is not a number", text.trim()))
}

/// MSR Cambridge's state: the first timestamp (the trace's zero) and the
/// one disk the trace may hold.
#[derive(Default)]
pub(super) struct MsrState {
    first: Option<u64>,
    disk: Option<(String, String)>,
}

/// Windows ticks (100 ns) in a nanosecond count.
const TICK_NS: u64 = 100;

impl MsrState {
    /// `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
    pub(super) fn line(&mut self, line: &str) -> Result<Option<TraceIo>, String> {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != 7 {
            return Err(format!(
                "{} fields where MSR's format has 7 (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)",
                fields.len()
            ));
        }
        let timestamp: u64 = field(&fields, 0, "Timestamp")?;
        let disk = (fields[1].trim().to_string(), fields[2].trim().to_string());
        match &self.disk {
            None => self.disk = Some(disk),
            Some(first) if *first != disk => {
                return Err(format!(
                    "disk {} of host {} after disk {} of host {}: replay one disk's lines (e.g. grep ',{},{},')",
                    disk.1, disk.0, first.1, first.0, first.0, first.1
                ));
            }
            Some(_) => {}
        }
        let kind = match fields[3].trim() {
            t if t.eq_ignore_ascii_case("read") => IoKind::Read,
            t if t.eq_ignore_ascii_case("write") => IoKind::Write,
            other => return Err(format!("Type {other:?} is neither Read nor Write")),
        };
        let offset: u64 = field(&fields, 4, "Offset")?;
        let len: u64 = field(&fields, 5, "Size")?;
        let response: u64 = field(&fields, 6, "ResponseTime")?;
        let first = *self.first.get_or_insert(timestamp);
        let since = timestamp.checked_sub(first).ok_or_else(|| {
            format!("Timestamp {timestamp} is before the trace's first ({first})")
        })?;
        Ok(Some(TraceIo {
            at_ns: since.saturating_mul(TICK_NS),
            offset,
            len,
            kind,
            response_ns: Some(response.saturating_mul(TICK_NS)),
        }))
    }
}

/// SPC's state: the first timestamp, the trace's zero, ns.
#[derive(Default)]
pub(super) struct SpcState {
    first: Option<u64>,
}

impl SpcState {
    /// SPC's `ASU,LBA,Size,Opcode,Timestamp` (fields after these ignored):
    /// one ASU only (each is a volume of its own).
    pub(super) fn line(&mut self, line: &str) -> Result<Option<TraceIo>, String> {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() < 5 {
            return Err(format!(
                "{} fields where SPC's format has 5 (ASU,LBA,Size,Opcode,Timestamp)",
                fields.len()
            ));
        }
        let asu: u64 = field(&fields, 0, "ASU")?;
        if asu != 0 {
            // Several ASUs are several volumes: replaying them onto one target
            // would overlay them.
            return Err(format!(
                "ASU {asu}: iolab replays ASU 0 (one volume); keep one ASU's lines and renumber it 0"
            ));
        }
        let lba: u64 = field(&fields, 1, "LBA")?;
        let len: u64 = field(&fields, 2, "Size")?;
        let kind = match fields[3].trim() {
            "r" | "R" => IoKind::Read,
            "w" | "W" => IoKind::Write,
            other => return Err(format!("Opcode {other:?} is neither r nor w")),
        };
        let seconds: f64 = field(&fields, 4, "Timestamp")?;
        if !(seconds.is_finite() && seconds >= 0.0) {
            return Err(format!("Timestamp {seconds} is not a time in seconds"));
        }
        let at = (seconds * 1e9).round() as u64;
        let first = *self.first.get_or_insert(at);
        let since = at
            .checked_sub(first)
            .ok_or_else(|| format!("Timestamp {seconds} is before the trace's first"))?;
        Ok(Some(TraceIo {
            at_ns: since,
            offset: lba.checked_mul(512).ok_or("LBA beyond any disk")?,
            len,
            kind,
            response_ns: None,
        }))
    }
}
