//! fio's iologs: version 2 (`wait` lines, µs since the last wait) and version 3 (a timestamp in µs on every line), one data file per trace.

use super::{IoKind, TraceIo};

/// What the lines so far have set: the one file, and the time.
pub(super) struct State {
    version: u8,
    header_seen: bool,
    file: Option<String>,
    /// Version 2: the sum of the waits so far, µs.
    waited_us: u64,
    /// Version 3: the first I/O's timestamp, the trace's zero, µs.
    first_us: Option<u64>,
}

impl State {
    pub(super) fn new(version: u8) -> State {
        State {
            version,
            header_seen: false,
            file: None,
            waited_us: 0,
            first_us: None,
        }
    }

    /// One line: an I/O, nothing (file management, a wait), or why not.
    pub(super) fn line(&mut self, _number: u64, line: &str) -> Result<Option<TraceIo>, String> {
        if !self.header_seen {
            let header = format!("fio version {} iolog", self.version);
            if line != header {
                return Err(format!("the first line must be {header:?}"));
            }
            self.header_seen = true;
            return Ok(None);
        }
        let mut words = line.split_whitespace();
        let timestamp_us = if self.version == 3 {
            let word = words.next().ok_or("an empty line")?;
            Some(
                word.parse::<u64>()
                    .map_err(|_| format!("timestamp {word:?} is not a count of µs"))?,
            )
        } else {
            None
        };
        let file = words.next().ok_or("no file name")?;
        let action = words.next().ok_or("no action")?;
        let numbers: Vec<&str> = words.collect();
        match action {
            "add" | "open" | "close" => {
                if action == "add" {
                    match &self.file {
                        Some(first) if first != file => {
                            return Err(format!(
                                "a second file {file:?} after {first:?}: iolab replays one file's I/O onto its target"
                            ));
                        }
                        _ => self.file = Some(file.to_string()),
                    }
                }
                return Ok(None);
            }
            "wait" => {
                if self.version == 3 {
                    return Err(
                        "wait is not allowed in version 3 (its times are on each line)".into(),
                    );
                }
                let us: u64 = numbers
                    .first()
                    .ok_or("wait without its µs")?
                    .parse()
                    .map_err(|_| "wait's µs is not a number".to_string())?;
                // fio discards waits under 100 µs.
                if us >= 100 {
                    self.waited_us = self.waited_us.saturating_add(us);
                }
                return Ok(None);
            }
            _ => {}
        }
        if self.file.as_deref().is_some_and(|f| f != file) {
            return Err(format!("I/O on {file:?}, which was not added"));
        }
        let kind = match action {
            "read" => IoKind::Read,
            "write" => IoKind::Write,
            "sync" | "datasync" => IoKind::Flush,
            "trim" => IoKind::Trim,
            other => return Err(format!("unknown action {other:?}")),
        };
        let (offset, len) = if kind == IoKind::Flush {
            (0, 0)
        } else {
            let [offset, len] = numbers[..] else {
                return Err(format!("{action} needs an offset and a length"));
            };
            let offset: u64 = offset
                .parse()
                .map_err(|_| format!("offset {offset:?} is not a number"))?;
            let len: u64 = len
                .parse()
                .map_err(|_| format!("length {len:?} is not a number"))?;
            if len == 0 {
                return Err(format!("{action} of 0 bytes"));
            }
            (offset, len)
        };
        let at_us = match timestamp_us {
            Some(t) => {
                let first = *self.first_us.get_or_insert(t);
                t.checked_sub(first).ok_or_else(|| {
                    format!("timestamp {t} µs is before the first I/O's ({first} µs)")
                })?
            }
            None => self.waited_us,
        };
        Ok(Some(TraceIo {
            at_ns: at_us.saturating_mul(1000),
            offset,
            len,
            kind,
            response_ns: None,
        }))
    }
}
