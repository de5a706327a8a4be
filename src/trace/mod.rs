//! Block traces: fio iologs (v2, v3), MSR Cambridge and SPC CSV, blktrace binaries and blkparse's text (or the kernel's blk tracer), read as one stream of timed I/Os, checked whole before any I/O, and what a trace is like (`characterize`).
//!
//! A trace is streamed, never loaded whole: [`TraceReader`] yields one
//! [`TraceIo`] at a time, and [`scan`] reads the whole trace once to check
//! it (times never going backwards, a plausible rate, every record whole)
//! and to learn its extent before a replay starts. Each parser names the
//! file and the line (or the record and its byte offset) it refuses.

mod blkparse;
mod blktrace;
pub mod characterize;
mod csv;
mod depth;
mod iolog;

use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// What one I/O of a trace does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoKind {
    /// Reads `len` bytes at `offset`.
    Read,
    /// Writes `len` bytes at `offset`.
    Write,
    /// Makes earlier writes durable (fsync; blktrace's flush); no bytes.
    Flush,
    /// Discards `len` bytes at `offset`.
    Trim,
}

impl IoKind {
    /// The kind's name as the fidelity table and the record give it.
    pub fn name(self) -> &'static str {
        match self {
            IoKind::Read => "read",
            IoKind::Write => "write",
            IoKind::Flush => "flush",
            IoKind::Trim => "trim",
        }
    }

    /// Every kind, in the order tables list them.
    pub const ALL: [IoKind; 4] = [IoKind::Read, IoKind::Write, IoKind::Flush, IoKind::Trim];

    /// Its index in [`IoKind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One I/O of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceIo {
    /// When it was issued, ns after the trace's first I/O.
    pub at_ns: u64,
    /// Its first byte.
    pub offset: u64,
    /// Its bytes (0 for a flush).
    pub len: u64,
    /// What it does.
    pub kind: IoKind,
    /// How long it took where the trace says (MSR's response time,
    /// blktrace's issue to completion), ns.
    pub response_ns: Option<u64>,
}

/// The formats iolab reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// fio's `write_iolog`, version 2 (`wait` lines between I/Os, µs).
    IologV2,
    /// fio's `write_iolog`, version 3 (a timestamp per line, µs).
    IologV3,
    /// MSR Cambridge (SNIA IOTTA): Timestamp, Hostname, DiskNumber, Type, Offset, Size, ResponseTime,
    /// times in Windows ticks of 100 ns.
    Msr,
    /// SPC / UMass: `ASU,LBA,Size,Opcode,Timestamp`, LBAs of 512 bytes,
    /// timestamps in seconds.
    Spc,
    /// blktrace's binary events (one CPU's file, or `blkparse -d`'s merge).
    Blktrace,
    /// blkparse's text, or the kernel's `blk` tracer read through tracefs
    /// (`/sys/kernel/tracing/trace`): times in seconds, 512-byte sectors.
    Blkparse,
}

impl Format {
    /// Every format iolab reads (the command line's list).
    pub fn all() -> &'static [Format] {
        <Format as clap::ValueEnum>::value_variants()
    }

    /// The format's name on the command line and in the record.
    pub fn name(self) -> &'static str {
        match self {
            Format::IologV2 => "iolog-v2",
            Format::IologV3 => "iolog-v3",
            Format::Msr => "msr",
            Format::Spc => "spc",
            Format::Blktrace => "blktrace",
            Format::Blkparse => "blkparse",
        }
    }
}

impl Format {
    /// What reads `reader` in this format, one I/O at a time: the one
    /// place a format meets its reader.
    fn source(self, reader: impl BufRead + 'static) -> Source {
        let text = match self {
            Format::Blktrace => return Source::Binary(blktrace::Events::new(Box::new(reader))),
            Format::IologV2 => TextFormat::Iolog(iolog::State::new(2)),
            Format::IologV3 => TextFormat::Iolog(iolog::State::new(3)),
            Format::Msr => TextFormat::Msr(csv::MsrState::default()),
            Format::Spc => TextFormat::Spc(csv::SpcState::default()),
            Format::Blkparse => TextFormat::Blkparse(blkparse::State::new()),
        };
        Source::Text(csv::Lines::new(Box::new(reader) as Box<dyn BufRead>), text)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a trace was refused: one line naming the file and where in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceError(pub String);

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The format of `head` (the trace's first bytes), when it is one iolab reads.
pub fn detect(head: &[u8]) -> Option<Format> {
    if blktrace::is_blktrace(head) {
        return Some(Format::Blktrace);
    }
    let text = std::str::from_utf8(head).ok().or_else(|| {
        // A head cut in the middle of a character.
        std::str::from_utf8(&head[..head.len().saturating_sub(3)]).ok()
    })?;
    let first = text.lines().next()?.trim();
    if first == "# tracer: blk"
        || text
            .lines()
            .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .is_some_and(blkparse::is_event)
    {
        return Some(Format::Blkparse);
    }
    if first == "fio version 2 iolog" {
        return Some(Format::IologV2);
    }
    if first == "fio version 3 iolog" {
        return Some(Format::IologV3);
    }
    let fields: Vec<&str> = first.split(',').map(str::trim).collect();
    match fields.len() {
        7 if fields[3].eq_ignore_ascii_case("read") || fields[3].eq_ignore_ascii_case("write") => {
            Some(Format::Msr)
        }
        5.. if fields[0].parse::<u64>().is_ok()
            && fields[3].len() == 1
            && "rRwW".contains(fields[3]) =>
        {
            Some(Format::Spc)
        }
        _ => None,
    }
}

/// Which of a trace's I/Os are taken: a window of its time (from its first
/// I/O; times then count from the window's start) and the kinds kept.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Selection {
    /// The window's start, ns after the trace's first I/O.
    pub from_ns: u64,
    /// Its end (exclusive), ns; `None`: the trace's end.
    pub to_ns: Option<u64>,
    /// The kinds kept; `None`: all.
    pub kinds: Option<Vec<IoKind>>,
}

impl Selection {
    /// Whether it takes the whole trace.
    pub fn is_all(&self) -> bool {
        *self == Selection::default()
    }
}

/// The latest time an I/O may be issued at, ns after the trace's first:
/// 2^62 ns, about 146 years. A time beyond (one that overflowed its unit's
/// conversion, a stamp of another clock) is refused naming its record,
/// so every due time of a replay at any speed the replayer accepts fits
/// its clock.
pub const LATEST_TIME_NS: u64 = 1 << 62;

/// Why an I/O at `at_ns` is refused.
fn too_late(at_ns: u64) -> String {
    let shown = if at_ns == u64::MAX {
        "beyond 2^64 ns".to_string()
    } else {
        format!("{at_ns} ns")
    };
    format!(
        "the I/O is issued {shown} after the trace's first, more than the 2^62 ns (146 years) a replay can wait: a time in another unit, or of another clock?"
    )
}

/// Why an I/O a reader parsed is refused, in every format alike: a time
/// past [`LATEST_TIME_NS`], a read, write or trim of no bytes, an extent
/// past the largest file offset (2^63 - 1 bytes).
pub(super) fn refusal(io: &TraceIo) -> Option<String> {
    if io.at_ns > LATEST_TIME_NS {
        return Some(too_late(io.at_ns));
    }
    if io.len == 0 && io.kind != IoKind::Flush {
        return Some(format!(
            "a {} of 0 bytes: only a flush moves no data",
            io.kind.name()
        ));
    }
    if io
        .offset
        .checked_add(io.len)
        .is_none_or(|end| end > i64::MAX as u64)
    {
        return Some(format!(
            "a {} of {} bytes at byte {} ends beyond the largest file offset (2^63 - 1 bytes)",
            io.kind.name(),
            io.len,
            io.offset
        ));
    }
    None
}

/// A trace being read, one I/O at a time.
pub struct TraceReader {
    path: PathBuf,
    format: Format,
    source: Source,
    selection: Selection,
    identity: TraceIdentity,
}

/// Which file a trace was, and as it was when read: a trace replaced (a
/// new inode), grown, cut or written since (size, times) is another trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceIdentity {
    device: u64,
    inode: u64,
    size: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl TraceIdentity {
    fn of(file: &std::fs::File) -> std::io::Result<TraceIdentity> {
        use std::os::unix::fs::MetadataExt;
        let m = file.metadata()?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Ok(TraceIdentity {
            device: m.dev(),
            inode: m.ino(),
            size: m.size(),
            modified_ns: ns(m.mtime(), m.mtime_nsec()),
            changed_ns: ns(m.ctime(), m.ctime_nsec()),
        })
    }

    /// What differs from `now`, in words.
    fn change_to(&self, now: &TraceIdentity) -> String {
        if (self.device, self.inode) != (now.device, now.inode) {
            "another file now has its name".to_string()
        } else if self.size != now.size {
            format!("{} bytes then, {} now", self.size, now.size)
        } else {
            "written since".to_string()
        }
    }
}

enum Source {
    Text(csv::Lines, TextFormat),
    Binary(blktrace::Events),
}

enum TextFormat {
    Iolog(iolog::State),
    Msr(csv::MsrState),
    Spc(csv::SpcState),
    Blkparse(blkparse::State),
}

impl TraceReader {
    /// Opens `path`, its format `format` or detected from its first bytes:
    /// a regular file only, opened without blocking (a FIFO is refused at
    /// once, as every file iolab reads, `input.rs`).
    pub fn open(path: &Path, format: Option<Format>) -> Result<TraceReader, TraceError> {
        Self::open_as(path, format, None)
    }

    /// [`TraceReader::open`] of the trace that `identity` was taken of: one
    /// replaced, grown, cut or written since is refused, so what is
    /// replayed is what was checked.
    pub fn open_same(
        path: &Path,
        format: Format,
        identity: Option<&TraceIdentity>,
    ) -> Result<TraceReader, TraceError> {
        Self::open_as(path, Some(format), identity)
    }

    fn open_as(
        path: &Path,
        format: Option<Format>,
        expected: Option<&TraceIdentity>,
    ) -> Result<TraceReader, TraceError> {
        let shown = path.display();
        let file = crate::input::open_regular(path)
            .map_err(|e| TraceError(format!("{shown}: {}", crate::input::describe_io(&e))))?;
        let identity = TraceIdentity::of(&file).map_err(|e| TraceError(format!("{shown}: {e}")))?;
        if let Some(expected) = expected.filter(|expected| **expected != identity) {
            return Err(TraceError(format!(
                "{shown} changed since iolab checked it ({}): not replayed; replay it again to check it anew",
                expected.change_to(&identity)
            )));
        }
        let mut reader = BufReader::with_capacity(1 << 16, file);
        let head = reader
            .fill_buf()
            .map_err(|e| TraceError(format!("{shown}: {e}")))?
            .to_vec();
        if head.is_empty() {
            return Err(TraceError(format!("{shown} is empty: no I/O to replay")));
        }
        let format = match format.or_else(|| detect(&head)) {
            Some(format) => format,
            None => {
                return Err(TraceError(format!(
                    "{shown}: not a trace format iolab knows (fio iolog v2/v3, MSR or SPC CSV, blktrace); name one with --format"
                )));
            }
        };
        let source = format.source(reader);
        Ok(TraceReader {
            path: path.to_path_buf(),
            format,
            source,
            selection: Selection::default(),
            identity,
        })
    }

    /// The reader, taking only the I/Os `selection` takes.
    pub fn selecting(self, selection: &Selection) -> TraceReader {
        TraceReader {
            selection: selection.clone(),
            ..self
        }
    }

    /// The trace's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The device's time-weighted I/Os in flight (dispatch to completion)
    /// and the most at once, from the events read so far, where the format
    /// records dispatches and completions (blktrace, blkparse).
    pub fn device_depth(&self) -> Option<(f64, u64)> {
        match &self.source {
            Source::Binary(events) => events.depth.figures(),
            Source::Text(_, TextFormat::Blkparse(state)) => state.depth.figures(),
            Source::Text(..) => None,
        }
    }

    /// The next I/O the selection takes, `None` at the trace's (or the window's) end.
    pub fn next_io(&mut self) -> Result<Option<TraceIo>, TraceError> {
        loop {
            let Some(mut io) = self.next_raw()? else {
                return Ok(None);
            };
            let s = &self.selection;
            if io.at_ns < s.from_ns {
                continue;
            }
            if s.to_ns.is_some_and(|to| io.at_ns >= to) {
                return Ok(None);
            }
            if s.kinds
                .as_ref()
                .is_some_and(|kinds| !kinds.contains(&io.kind))
            {
                continue;
            }
            io.at_ns -= s.from_ns;
            return Ok(Some(io));
        }
    }

    /// The next I/O of the whole trace.
    fn next_raw(&mut self) -> Result<Option<TraceIo>, TraceError> {
        let shown = self.path.display().to_string();
        match &mut self.source {
            Source::Binary(events) => events.next_io().map_err(|(record, at, why)| {
                TraceError(format!("{shown}: record {record} (byte {at}): {why}"))
            }),
            Source::Text(lines, parser) => loop {
                let Some((number, line)) = lines
                    .next_line()
                    .map_err(|e| TraceError(format!("{shown}: {e}")))?
                else {
                    return Ok(None);
                };
                let parsed = match parser {
                    TextFormat::Iolog(state) => state.line(number, line),
                    TextFormat::Msr(state) => state.line(line),
                    TextFormat::Spc(state) => state.line(line),
                    TextFormat::Blkparse(state) => state.line(line),
                };
                match parsed {
                    Ok(Some(io)) => {
                        return match refusal(&io) {
                            Some(why) => Err(TraceError(format!("{shown} line {number}: {why}"))),
                            None => Ok(Some(io)),
                        };
                    }
                    Ok(None) => continue,
                    Err(why) => {
                        return Err(TraceError(format!("{shown} line {number}: {why}")));
                    }
                }
            },
        }
    }
}

/// What a whole pass over a trace found: its extent, counts, and the checks.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct TraceSummary {
    /// I/Os of each kind, in [`IoKind::ALL`]'s order.
    pub ios: [u64; 4],
    /// Bytes of each kind.
    pub bytes: [u64; 4],
    /// The last I/O's issue time, ns after the first.
    pub duration_ns: u64,
    /// The end of the furthest I/O, bytes.
    pub end: u64,
    /// The largest I/O, bytes.
    pub largest: u64,
    /// Whether every I/O carries its response time.
    pub has_response: bool,
    /// Whether every offset and length is a multiple of 512 (O_DIRECT can
    /// replay it).
    pub sector_aligned: bool,
    /// The file as it was read: a replay opens only the same.
    #[serde(skip)]
    pub identity: Option<TraceIdentity>,
}

impl TraceSummary {
    /// Every I/O of the trace.
    pub fn total_ios(&self) -> u64 {
        self.ios.iter().sum()
    }
}

/// The most I/Os per second a trace may claim before it is taken for a
/// unit mistake (ns read as µs: spdk/spdk#3909): ten million, beyond any
/// one device a trace is recorded on.
const MOST_PLAUSIBLE_IOPS: f64 = 10e6;

/// Reads the whole trace at `path` once (the part `selection` takes):
/// every record checked, times never going backwards, the rate plausible;
/// its summary.
pub fn scan(
    path: &Path,
    format: Option<Format>,
    selection: &Selection,
) -> Result<(Format, TraceSummary), TraceError> {
    let mut reader = TraceReader::open(path, format)?.selecting(selection);
    let mut summary = TraceSummary {
        has_response: true,
        sector_aligned: true,
        ..TraceSummary::default()
    };
    let mut last_at = 0u64;
    let mut count = 0u64;
    while let Some(io) = reader.next_io()? {
        count += 1;
        if io.at_ns < last_at {
            return Err(TraceError(format!(
                "{}: I/O {count} is issued at {} s, before the I/O ahead of it ({} s): times go backwards{}",
                path.display(),
                io.at_ns as f64 / 1e9,
                last_at as f64 / 1e9,
                if reader.format() == Format::Blktrace {
                    " (merge the CPUs' files with blkparse -i NAME -d merged.bin first)"
                } else {
                    ""
                }
            )));
        }
        last_at = io.at_ns;
        let k = io.kind.index();
        summary.ios[k] += 1;
        summary.bytes[k] += io.len;
        summary.end = summary.end.max(io.offset.saturating_add(io.len));
        summary.largest = summary.largest.max(io.len);
        summary.has_response &= io.response_ns.is_some();
        summary.sector_aligned &= io.offset % 512 == 0 && io.len % 512 == 0;
    }
    if count == 0 {
        return Err(TraceError(format!(
            "{}: no I/O in the trace",
            path.display()
        )));
    }
    summary.duration_ns = last_at;
    summary.identity = Some(reader.identity);
    if count >= 1000 {
        let rate = count as f64 / (last_at.max(1) as f64 / 1e9);
        if rate > MOST_PLAUSIBLE_IOPS {
            return Err(TraceError(format!(
                "{}: {count} I/Os in {} µs is {rate:.3e} I/Os per second, beyond any device: are its times in another unit (ns read as µs)? Name the format with --format",
                path.display(),
                last_at / 1000
            )));
        }
    }
    Ok((reader.format(), summary))
}

/// Reads a whole trace from any reader (for the fuzz target and tests):
/// its I/Os, or the first refusal.
pub fn parse_bytes(bytes: &[u8], format: Format) -> Result<Vec<TraceIo>, TraceError> {
    let mut out = Vec::new();
    let cursor = std::io::Cursor::new(bytes.to_vec());
    let mut reader = TraceReader {
        path: PathBuf::from("<bytes>"),
        format,
        selection: Selection::default(),
        identity: TraceIdentity::default(),
        source: format.source(BufReader::new(cursor)),
    };
    while let Some(io) = reader.next_io()? {
        out.push(io);
    }
    Ok(out)
}

/// A reader of any bytes, boxed (files, and the tests' and fuzz target's buffers).
type AnyRead = Box<dyn Read>;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a replay opens is the trace that was checked: one replaced,
    /// cut or rewritten between the check and a repetition is refused
    /// (a trace swapped between repetitions used to be replayed as it
    /// then was, beyond the file sized for the checked one).
    #[test]
    fn a_trace_changed_since_its_check_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        let line = "128166372003061629,hm,1,Read,0,4096,10\n";
        std::fs::write(&path, line).unwrap();
        let (format, summary) = scan(&path, None, &Selection::default()).unwrap();
        let identity = summary.identity.expect("kept by the scan");
        assert!(TraceReader::open_same(&path, format, Some(&identity)).is_ok());
        std::fs::write(&path, format!("{line}{line}")).unwrap();
        let grown = TraceReader::open_same(&path, format, Some(&identity))
            .err()
            .unwrap();
        assert!(
            grown.0.contains("changed since iolab checked it"),
            "{}",
            grown.0
        );
        let other = dir.path().join("other.csv");
        std::fs::write(&other, line).unwrap();
        std::fs::rename(&other, &path).unwrap();
        let replaced = TraceReader::open_same(&path, format, Some(&identity))
            .err()
            .unwrap();
        assert!(
            replaced.0.contains("another file now has its name"),
            "{}",
            replaced.0
        );
    }

    fn kind_of(n: u8) -> IoKind {
        if n % 2 == 0 {
            IoKind::Read
        } else {
            IoKind::Write
        }
    }

    proptest! {
        /// I/Os written in fio's iolog v3 and in MSR's format read back as
        /// they were (times in µs and in 100 ns ticks from the first I/O).
        #[test]
        fn written_traces_read_back(ios in proptest::collection::vec((0u64..1_000_000, 0u64..1 << 40, 1u64..1 << 20, 0u8..2), 1..50)) {
            let mut iolog = String::from("fio version 3 iolog\n0 /f add\n0 /f open\n");
            let mut msr = String::new();
            let mut at = 0u64;
            let mut expected = Vec::new();
            for &(gap, offset, len, kind) in &ios {
                at += gap;
                let kind = kind_of(kind);
                iolog.push_str(&format!("{at} /f {} {offset} {len}\n", kind.name()));
                let name = if kind == IoKind::Read { "Read" } else { "Write" };
                msr.push_str(&format!("{},h,0,{name},{offset},{len},3\n", 1_000 + at * 10));
                expected.push((at, offset, len, kind));
            }
            let first = expected[0].0;
            let from_iolog: Vec<_> = parse_bytes(iolog.as_bytes(), Format::IologV3).unwrap()
                .into_iter().map(|io| (io.at_ns, io.offset, io.len, io.kind)).collect();
            let want: Vec<_> = expected.iter().map(|&(at, o, l, k)| ((at - first) * 1000, o, l, k)).collect();
            prop_assert_eq!(&from_iolog, &want);
            let from_msr: Vec<_> = parse_bytes(msr.as_bytes(), Format::Msr).unwrap()
                .into_iter().map(|io| (io.at_ns, io.offset, io.len, io.kind)).collect();
            prop_assert_eq!(&from_msr, &want);
            prop_assert_eq!(detect(msr.as_bytes()), Some(Format::Msr));
            prop_assert_eq!(detect(iolog.as_bytes()), Some(Format::IologV3));
        }

        /// A selection keeps the I/Os of its window and kinds, timed from
        /// the window's start.
        #[test]
        fn a_selection_keeps_its_window_and_kinds(from in 0u64..40, span in 1u64..40, writes_only: bool) {
            let text: String = (0..40u64)
                .map(|i| format!("{},h,0,{},{},4096,1\n", 1_000 + i * 10_000, if i % 2 == 0 { "Read" } else { "Write" }, i * 4096))
                .collect();
            let path = std::env::temp_dir().join(format!("iolab-selection-{}.csv", std::process::id()));
            std::fs::write(&path, &text).unwrap();
            let selection = Selection {
                from_ns: from * 1_000_000,
                to_ns: Some((from + span) * 1_000_000),
                kinds: writes_only.then(|| vec![IoKind::Write]),
            };
            let mut reader = TraceReader::open(&path, None).unwrap().selecting(&selection);
            let mut got = Vec::new();
            while let Some(io) = reader.next_io().unwrap() {
                got.push((io.at_ns, io.offset));
            }
            std::fs::remove_file(&path).unwrap();
            let want: Vec<_> = (from..(from + span).min(40))
                .filter(|i| !writes_only || i % 2 == 1)
                .map(|i| ((i - from) * 1_000_000, i * 4096))
                .collect();
            prop_assert_eq!(got, want);
        }

        /// Any bytes, in any format: I/Os or a refusal, never a panic.
        #[test]
        fn any_bytes_are_read_or_refused(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            for format in [Format::IologV2, Format::IologV3, Format::Msr, Format::Spc, Format::Blktrace, Format::Blkparse] {
                let _ = parse_bytes(&bytes, format);
            }
            let _ = detect(&bytes);
        }
    }
}
