//! blkparse's text (its default format) and the kernel's `blk` tracer read through tracefs (`/sys/kernel/tracing/trace`): the queue events of reads, writes, flushes and discards.
//!
//! Both print an event as `… TIME … ACTION RWBS SECTOR + COUNT [PROCESS]`:
//! blkparse as `DEV CPU SEQ TIME PID ACTION RWBS …`, the tracer as
//! `TASK-PID [CPU] FLAGS TIME: DEV ACTION RWBS …`; the time is two places
//! before the action either way, in seconds.

use super::{IoKind, TraceIo};

/// blkparse's and the tracer's summaries, headers and other events' lines
/// are not I/O: only a queue event (`Q`) is.
pub(super) struct State {
    first_ns: Option<u64>,
    /// The device's queue, from the dispatch and completion events.
    pub(super) depth: super::depth::DeviceDepth,
}

/// Where the action is, and the event's fields from it on.
fn event(words: &[&str]) -> Option<usize> {
    (2..words.len().saturating_sub(1)).find(|&i| {
        let action = words[i];
        action.len() == 1
            && action.chars().all(|c| c.is_ascii_uppercase())
            && words[i + 1].chars().all(|c| "FWRDNSMAEB".contains(c))
            && words[i - 1].contains(|c: char| c.is_ascii_digit())
            && seconds(words[i - 2]).is_some()
    })
}

/// A time in seconds (`0.000000000`, `71364.207820:`), as ns.
fn seconds(word: &str) -> Option<u64> {
    let text = word.strip_suffix(':').unwrap_or(word);
    if !text.contains('.') {
        return None;
    }
    let value: f64 = text.parse().ok()?;
    (value.is_finite() && value >= 0.0).then(|| (value * 1e9).round() as u64)
}

/// Whether `line` is an event line of either format.
pub(super) fn is_event(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    event(&words).is_some()
}

impl State {
    pub(super) fn new() -> State {
        State {
            first_ns: None,
            depth: super::depth::DeviceDepth::default(),
        }
    }

    /// One line: a queued I/O, nothing (another event, a header or a
    /// summary line), or why not.
    pub(super) fn line(&mut self, line: &str) -> Result<Option<TraceIo>, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = event(&words) else {
            return Ok(None);
        };
        let rwbs = words[at + 1];
        let time = seconds(words[at - 2]).expect("checked by event()");
        if let (action @ ("D" | "C"), Some(sector)) = (
            words[at],
            words.get(at + 2).and_then(|w| w.parse::<u64>().ok()),
        ) {
            match action {
                "D" => self.depth.dispatched(time, sector),
                _ => self.depth.completed(time, sector),
            }
        }
        if words[at] != "Q" {
            return Ok(None);
        }
        let extent = match words.get(at + 2..at + 5) {
            Some([sector, "+", count]) => {
                let sector: u64 = sector
                    .parse()
                    .map_err(|_| format!("sector {sector:?} is not a number"))?;
                let count: u64 = count
                    .parse()
                    .map_err(|_| format!("sector count {count:?} is not a number"))?;
                Some((sector, count))
            }
            _ => None,
        };
        let kind = if rwbs.contains('D') {
            IoKind::Trim
        } else if rwbs.contains('F') && extent.is_none_or(|(_, n)| n == 0) {
            IoKind::Flush
        } else if rwbs.contains('W') {
            IoKind::Write
        } else if rwbs.contains('R') {
            IoKind::Read
        } else {
            return Ok(None);
        };
        let (offset, len) = match (kind, extent) {
            (IoKind::Flush, _) => (0, 0),
            (_, Some((sector, count))) => (
                sector.checked_mul(512).ok_or("sector beyond any disk")?,
                count.checked_mul(512).ok_or("count beyond any disk")?,
            ),
            (_, None) => return Err(format!("a {} without SECTOR + COUNT", kind.name())),
        };
        if len == 0 && kind != IoKind::Flush {
            return Ok(None);
        }
        let first = *self.first_ns.get_or_insert(time);
        let at_ns = time
            .checked_sub(first)
            .ok_or_else(|| format!("time {} s is before the first I/O's", time as f64 / 1e9))?;
        Ok(Some(TraceIo {
            at_ns,
            offset,
            len,
            kind,
            response_ns: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Format, parse_bytes};

    #[test]
    fn blkparse_text_and_the_kernels_tracer_read_alike() {
        let blkparse = "  7,1    1        1     0.000000000 10603  Q  WS 0 + 128 [dd]\n\
                        \x20 7,1    1        2     0.000001319 10603  G  WS 0 + 128 [dd]\n\
                        \x20 7,1    0        3     0.000002000 10603  Q FWS [dd]\n\
                        \x20 7,1    0        4     0.001659000 10604  Q  RS 0 + 8 [dd]\n\
                        CPU0 (7,1):\n Reads Queued:           1,        4KiB\n";
        let tracer = "# tracer: blk\n#\n\
                      \x20             dd-10603   [001] d..1. 71364.207820:   7,1    Q  WS 0 + 128 [dd]\n\
                      \x20             dd-10603   [001] dN.1. 71364.209139:   7,1    G  WS 0 + 128 [dd]\n\
                      \x20             dd-10603   [001] d..1. 71364.207822:   7,1    Q FWS [dd]\n\
                      \x20             dd-10604   [000] d..1. 71364.209479:   7,1    Q  RS 0 + 8 [dd]\n";
        for (text, format) in [(blkparse, Format::Blkparse), (tracer, Format::Blkparse)] {
            assert_eq!(crate::trace::detect(text.as_bytes()), Some(format));
            let ios: Vec<_> = parse_bytes(text.as_bytes(), format)
                .unwrap()
                .into_iter()
                .map(|io| (io.offset, io.len, io.kind))
                .collect();
            assert_eq!(
                ios,
                vec![
                    (0, 65536, IoKind::Write),
                    (0, 0, IoKind::Flush),
                    (0, 4096, IoKind::Read)
                ]
            );
        }
    }
}
