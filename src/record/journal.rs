//! The journal of a sweep: one JSON line per finished point beside the result file, so a killed sweep resumes where it stopped.
//!
//! Format `iolab.journal/1`, JSON Lines: the first line is the header (the
//! plan's hash and size and the result file without points), each further line
//! one finished point with its index in the plan. A line is written with one
//! write(2) call on an O_APPEND file, so kill -9 leaves at most one partial
//! last line, which resuming cuts off. The kernel keeps written data when the
//! process dies; an fsync every few seconds bounds what a power cut can take.
//!
//! A journal is created whole (header written to a temporary file, renamed
//! into place), so none is ever left empty; one found empty or with a torn
//! header (from a crash of an older iolab) is treated as no journal. The
//! process appending holds an exclusive `flock` on it: a second iolab on the
//! same sweep is refused, naming the first by pid and host.

use super::{Point, ResultFile};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The journal format identifier.
pub const JOURNAL: &str = "iolab.journal/1";

/// How often the journal is fsynced while points are appended.
const SYNC_EVERY: Duration = Duration::from_secs(5);

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// Always `iolab.journal/1`.
    pub journal: String,
    /// Hash of the plan (every point's label and workload, and the directory).
    pub plan_hash: String,
    /// Points in the plan.
    pub points: usize,
    /// The result file as it started, without points.
    pub result: ResultFile,
}

/// A run's start: its id names the scratch files it creates, so a later
/// resume can remove what a killed run left.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunStart {
    /// The run id (`iolab-<run id>-<job>.dat`).
    pub run_id: String,
    /// The process appending from here on, named when another is refused.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub pid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub host: Option<String>,
}

/// One line after the header.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Line {
    Point(Box<Entry>),
    Start(RunStart),
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Its position in the plan.
    pub index: usize,
    pub point: Point,
}

/// A journal opened to continue it.
#[derive(Debug)]
pub struct Resumed {
    /// The journal, locked and cut after its last whole line.
    pub journal: Journal,
    pub header: Header,
    pub entries: Vec<Entry>,
    /// The ids of the runs that appended to it.
    pub runs: Vec<String>,
}

/// An open journal, locked by this process while it lives.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    synced: Instant,
    /// A resumed journal's length up to its last whole line: the partial
    /// line after it is cut off once this run starts appending.
    cut_at: Option<u64>,
    /// Points this process appended.
    appended: usize,
}

/// The journal path for a result file: `RESULT.journal`.
pub fn path_for(result: &Path) -> PathBuf {
    let mut name = result.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

impl Journal {
    /// Starts a new journal (refused if one exists) with its header: written
    /// whole to a temporary file and renamed into place, so that a failure
    /// (a full disk) leaves no journal rather than an empty one.
    pub fn create(path: &Path, header: &Header) -> io::Result<Journal> {
        let line = serde_json::to_string(header).map_err(io::Error::other)? + "\n";
        super::write::write_file(path, super::write::Replace::Never, |out| {
            out.write_all(line.as_bytes())
        })
        .inspect_err(|error| {
            if error.kind() == io::ErrorKind::AlreadyExists {
                // Another journal appeared meanwhile; this header is not needed.
                let _ = std::fs::remove_file(super::write::temporary_for(path));
            }
        })?;
        let file = open_locked(path)?;
        Ok(Journal {
            path: path.to_path_buf(),
            file,
            synced: Instant::now(),
            cut_at: None,
            appended: 0,
        })
    }

    /// Opens an existing journal to continue it: returns its header, the
    /// finished points and the ids of the runs that wrote them (a partial
    /// last line is cut off when [`Journal::start_run`] is called). `Ok(None)` when it holds no complete header
    /// (empty, or torn by a crash while it was started): it is removed, and
    /// the sweep starts as if it had none.
    pub fn resume(path: &Path) -> io::Result<Option<Resumed>> {
        let mut file = open_locked(path)?;
        let mut text = String::new();
        file.read_to_string(&mut text)?;
        let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
        let mut lines = text.split_inclusive('\n');
        let first = match lines.next() {
            Some(first) if first.ends_with('\n') => first,
            torn => {
                let head = torn.unwrap_or_default();
                if !head.is_empty() && !head.starts_with("{\"journal\":\"iolab.journal/") {
                    return Err(bad(
                        "it is not an iolab journal (no header line); move it away".to_string(),
                    ));
                }
                std::fs::remove_file(path)?;
                return Ok(None);
            }
        };
        let header: Header =
            serde_json::from_str(first.trim_end()).map_err(|e| bad(format!("header: {e}")))?;
        if header.journal != JOURNAL {
            return Err(bad(format!("not an {JOURNAL} file")));
        }
        let mut entries = Vec::new();
        let mut runs = Vec::new();
        let mut complete = first.len();
        for (number, line) in lines.enumerate() {
            if !line.ends_with('\n') {
                break; // cut short by a kill: the point in flight
            }
            match serde_json::from_str(line.trim_end())
                .map_err(|e| bad(format!("line {}: {e}", number + 2)))?
            {
                Line::Point(entry) => entries.push(*entry),
                Line::Start(start) => runs.push(start.run_id),
            }
            complete += line.len();
        }
        Ok(Some(Resumed {
            journal: Journal {
                path: path.to_path_buf(),
                file,
                synced: Instant::now(),
                cut_at: Some(complete as u64),
                appended: 0,
            },
            header,
            entries,
            runs,
        }))
    }

    /// Records that a run with id `run_id` (this process) starts appending,
    /// after cutting off a partial last line.
    pub fn start_run(&mut self, run_id: &str) -> io::Result<()> {
        if let Some(length) = self.cut_at.take() {
            self.file.set_len(length)?;
        }
        let line = RunStart {
            run_id: run_id.to_string(),
            pid: Some(std::process::id()),
            host: Some(
                rustix::system::uname()
                    .nodename()
                    .to_string_lossy()
                    .into_owned(),
            ),
        };
        self.write_line(&serde_json::to_string(&line).map_err(io::Error::other)?)?;
        self.file.sync_data()
    }

    /// Appends one finished point.
    pub fn append(&mut self, entry: &Entry) -> io::Result<()> {
        self.write_line(&serde_json::to_string(entry).map_err(io::Error::other)?)?;
        self.appended += 1;
        if self.synced.elapsed() >= SYNC_EVERY {
            self.file.sync_data()?;
            self.synced = Instant::now();
        }
        Ok(())
    }

    fn write_line(&mut self, line: &str) -> io::Result<()> {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        // One write(2) on an O_APPEND file: a kill leaves this line whole or cut, never interleaved.
        self.file.write_all(&bytes)
    }

    /// How many points this process appended.
    pub fn appended(&self) -> usize {
        self.appended
    }

    /// The journal's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the journal once the result file holds every point.
    pub fn finish(self) -> io::Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path)
    }
}

/// Opens the journal at `path` for appending and takes its exclusive lock;
/// refused (WouldBlock) while another process holds it, naming that process
/// from the journal's last run start.
fn open_locked(path: &Path) -> io::Result<File> {
    use rustix::fs::{FlockOperation, Mode, OFlags};
    let fd = rustix::fs::open(
        path,
        OFlags::RDWR | OFlags::APPEND | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let kind = rustix::fs::FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode);
    if kind != rustix::fs::FileType::RegularFile {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("is {}, not a regular file", crate::input::describe(kind)),
        ));
    }
    rustix::fs::fcntl_setfl(&fd, OFlags::APPEND)?;
    match rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(File::from(fd)),
        Err(rustix::io::Errno::WOULDBLOCK) => {
            let holder = crate::input::read_to_string(path)
                .ok()
                .and_then(|text| {
                    text.lines()
                        .rev()
                        .find_map(|line| serde_json::from_str::<RunStart>(line).ok())
                })
                .and_then(|start| Some(format!(" (pid {} on {})", start.pid?, start.host?)))
                .unwrap_or_default();
            Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!("another iolab{holder} is running this sweep"),
            ))
        }
        Err(error) => Err(error.into()),
    }
}

/// FNV-1a, 64 bits, of `bytes`, as 16 hex digits: a stable fingerprint of a
/// plan (std's hasher may change between Rust versions).
pub fn fingerprint(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_values() {
        assert_eq!(fingerprint(b""), "cbf29ce484222325");
        assert_eq!(fingerprint(b"a"), "af63dc4c8601ec8c");
        assert_eq!(fingerprint(b"foobar"), "85944171f73967e8");
    }

    fn header() -> Header {
        Header {
            journal: JOURNAL.to_string(),
            plan_hash: "0123456789abcdef".to_string(),
            points: 2,
            result: crate::gather::build::new_result_file(vec!["iolab".into()], None, false),
        }
    }

    #[test]
    fn an_empty_or_torn_journal_is_no_journal_and_a_foreign_file_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json.journal");
        std::fs::write(&path, b"").unwrap();
        assert!(Journal::resume(&path).unwrap().is_none());
        assert!(!path.exists(), "an empty journal is removed");
        std::fs::write(&path, b"{\"journal\":\"iolab.journal/1\",\"plan").unwrap();
        assert!(Journal::resume(&path).unwrap().is_none(), "a torn header");
        assert!(!path.exists());
        std::fs::write(&path, b"my notes").unwrap();
        let error = Journal::resume(&path).unwrap_err();
        assert!(
            error.to_string().contains("not an iolab journal"),
            "{error}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"my notes");
    }

    #[test]
    fn a_journal_is_created_whole_and_locked_while_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json.journal");
        let mut journal = Journal::create(&path, &header()).unwrap();
        journal.start_run("abcd0001").unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\"journal\""), "{text}");
        // A second opener (another iolab on the same sweep) is refused by name.
        let error = Journal::resume(&path).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        let me = std::process::id();
        assert!(
            error.to_string().contains(&format!("pid {me} on ")),
            "{error}"
        );
        assert!(Journal::create(&path, &header()).is_err(), "never replaced");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left: {leftovers:?}");
        drop(journal);
        let resumed = Journal::resume(&path).unwrap().expect("a header");
        assert_eq!(resumed.runs, ["abcd0001"]);
    }

    #[test]
    fn journal_paths() {
        assert_eq!(
            path_for(Path::new("out/r.json")),
            Path::new("out/r.json.journal")
        );
    }
}
