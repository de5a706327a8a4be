//! The journal of a sweep: one JSON line per finished point beside the result file, so a killed sweep resumes where it stopped.
//!
//! Format `iolab.journal/1`, JSON Lines: the first line is the header (the
//! plan's hash and size and the result file without points), each further line
//! one finished point with its index in the plan. A line is written with one
//! write(2) call on an O_APPEND file, so kill -9 leaves at most one partial
//! last line, which resuming cuts off. The kernel keeps written data when the
//! process dies; an fsync every few seconds bounds what a power cut can take.

use super::{Point, ResultFile};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The journal format identifier.
pub const JOURNAL: &str = "iolab.journal/1";

/// How often the journal is fsynced while points are appended.
const SYNC_EVERY: Duration = Duration::from_secs(5);

/// The first line.
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
}

/// One line after the header.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Line {
    Point(Box<Entry>),
    Start(RunStart),
}

/// A finished point.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Its position in the plan.
    pub index: usize,
    /// Its record.
    pub point: Point,
}

/// An open journal.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    synced: Instant,
}

/// The journal path for a result file: `RESULT.journal`.
pub fn path_for(result: &Path) -> PathBuf {
    let mut name = result.as_os_str().to_owned();
    name.push(".journal");
    PathBuf::from(name)
}

impl Journal {
    /// Starts a new journal (refused if one exists) with its header.
    pub fn create(path: &Path, header: &Header) -> io::Result<Journal> {
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(path)?;
        let mut journal = Journal {
            path: path.to_path_buf(),
            file,
            synced: Instant::now(),
        };
        journal.write_line(&serde_json::to_string(header).map_err(io::Error::other)?)?;
        journal.file.sync_all()?;
        Ok(journal)
    }

    /// Opens an existing journal to continue it: returns its header, the
    /// finished points and the ids of the runs that wrote them, after cutting
    /// off a partial last line.
    pub fn resume(path: &Path) -> io::Result<(Journal, Header, Vec<Entry>, Vec<String>)> {
        let text = std::fs::read_to_string(path)?;
        let mut lines = text.split_inclusive('\n');
        let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
        let first = lines
            .next()
            .ok_or_else(|| bad("empty journal".to_string()))?;
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
        let file = OpenOptions::new().append(true).open(path)?;
        file.set_len(complete as u64)?;
        Ok((
            Journal {
                path: path.to_path_buf(),
                file,
                synced: Instant::now(),
            },
            header,
            entries,
            runs,
        ))
    }

    /// Records that a run with id `run_id` starts appending.
    pub fn start_run(&mut self, run_id: &str) -> io::Result<()> {
        let line = RunStart {
            run_id: run_id.to_string(),
        };
        self.write_line(&serde_json::to_string(&line).map_err(io::Error::other)?)?;
        self.file.sync_data()
    }

    /// Appends one finished point.
    pub fn append(&mut self, entry: &Entry) -> io::Result<()> {
        self.write_line(&serde_json::to_string(entry).map_err(io::Error::other)?)?;
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

    /// Removes the journal once the result file holds every point.
    pub fn finish(self) -> io::Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path)
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

    #[test]
    fn journal_paths() {
        assert_eq!(
            path_for(Path::new("out/r.json")),
            Path::new("out/r.json.journal")
        );
    }
}
