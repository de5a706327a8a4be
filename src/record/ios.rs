//! Every timed I/O of a job, kept when asked (`--log-ios`, fio's `write_iolog` and per-I/O logs), and the files they are written as: iolab's CSV, fio's per-I/O log lines and fio's iolog version 3.
//!
//! The recorder appends one entry per completed I/O, out of the loop's
//! inlined path, into a chunk allocated before (a new chunk, of [`CHUNK`]
//! entries, is taken on the cold path once the last is full): a call, a
//! bounds check and a store per I/O, and one test of an `Option` when
//! nothing is kept. The chunks come from a process-wide budget of [`BUDGET`] entries
//! (about 512 MiB): once spent, or when memory cannot be had, the I/Os are
//! counted in `unkept` instead and the logs say how many are missing. The
//! entries live in memory only, never in the result file, and are written
//! beside it in the formats asked once the run is done.

use crate::plan::direction::Direction;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Entries per chunk (128 KiB of entries).
pub const CHUNK: usize = 4096;

/// Entries kept at most by the whole process, over every job and point.
pub const BUDGET: u64 = 1 << 24;

/// Entries still to be had from [`BUDGET`].
static LEFT: AtomicU64 = AtomicU64::new(BUDGET);

/// One completed I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeptIo {
    /// When it was issued (before its submitting call), ns after the job's
    /// timed region started.
    pub issued_ns: u64,
    /// From then to its completion, ns (the figure the job's latency
    /// histogram recorded).
    pub latency_ns: u64,
    /// Its first byte on the target.
    pub offset: u64,
    /// Its length, bytes.
    pub bytes: u32,
    /// Read, write or trim.
    pub direction: Direction,
}

/// A job's kept I/Os in the order they completed.
#[derive(Default)]
pub struct KeptIos {
    chunks: Vec<Vec<KeptIo>>,
    /// Completed I/Os not kept: the budget was spent, or memory refused.
    pub unkept: u64,
}

impl std::fmt::Debug for KeptIos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeptIos({} kept, {} not)", self.len(), self.unkept)
    }
}

impl KeptIos {
    /// Keeps `io`.
    #[inline(always)]
    pub fn push(&mut self, io: KeptIo) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < chunk.capacity() => chunk.push(io),
            _ => self.push_in_new_chunk(io),
        }
    }

    #[cold]
    #[inline(never)]
    fn push_in_new_chunk(&mut self, io: KeptIo) {
        let mut chunk = Vec::new();
        let granted = LEFT
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(CHUNK as u64)
            })
            .is_ok();
        if !granted || chunk.try_reserve_exact(CHUNK).is_err() {
            if granted {
                LEFT.fetch_add(CHUNK as u64, Ordering::Relaxed);
            }
            self.unkept += 1;
            return;
        }
        chunk.push(io);
        self.chunks.push(chunk);
    }

    /// Forgets every entry (the timed region started again), giving their
    /// chunks back to the budget but the first, kept for reuse.
    pub fn clear(&mut self) {
        let spare = self.chunks.len().saturating_sub(1);
        self.chunks.truncate(1);
        if let Some(first) = self.chunks.first_mut() {
            first.clear();
        }
        LEFT.fetch_add((spare * CHUNK) as u64, Ordering::Relaxed);
        self.unkept = 0;
    }

    /// The entries kept.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries in the order they were kept.
    pub fn iter(&self) -> impl Iterator<Item = &KeptIo> {
        self.chunks.iter().flatten()
    }
}

impl Drop for KeptIos {
    fn drop(&mut self) {
        LEFT.fetch_add((self.chunks.len() * CHUNK) as u64, Ordering::Relaxed);
    }
}

/// The CSV's first line.
pub const CSV_HEADER: &str = "issued_ns,latency_ns,direction,offset,bytes";

/// `ios` as iolab's CSV: a header, then one line per I/O in the order they
/// completed, times in ns after the job's timed region started.
pub fn csv(ios: &KeptIos) -> String {
    let mut text = String::with_capacity(CSV_HEADER.len() + 1 + ios.len() * 40);
    text.push_str(CSV_HEADER);
    text.push('\n');
    for io in ios.iter() {
        text.push_str(&format!(
            "{},{},{},{},{}\n",
            io.issued_ns,
            io.latency_ns,
            io.direction.name(),
            io.offset,
            io.bytes
        ));
    }
    text
}

/// The figure of one of fio's per-I/O logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerIo {
    /// `_bw.log`: the I/O's bytes over its latency, as fio computes it
    /// (bytes × 10^6 / ns: bytes per ms).
    Bandwidth,
    /// `_iops.log`: 1 per I/O.
    Iops,
    /// `_lat.log`: the I/O's latency, ns.
    Latency,
}

/// `ios` as fio's per-I/O log lines (fio 3.33's `flush_samples`): `time,
/// value, direction, bytes, [offset,] 0`, the time in whole ms after the
/// job's start at the I/O's completion.
pub fn fio_lines(ios: &KeptIos, figure: PerIo, offset: bool) -> String {
    let mut text = String::with_capacity(ios.len() * 32);
    for io in ios.iter() {
        let value = match figure {
            PerIo::Bandwidth => u128::from(io.bytes) * 1_000_000 / u128::from(io.latency_ns.max(1)),
            PerIo::Iops => 1,
            PerIo::Latency => u128::from(io.latency_ns),
        };
        let completed_ms = (io.issued_ns + io.latency_ns) / 1_000_000;
        let offset = if offset {
            format!("{}, ", io.offset)
        } else {
            String::new()
        };
        text.push_str(&format!(
            "{completed_ms}, {value}, {}, {}, {offset}0\n",
            io.direction.index(),
            io.bytes
        ));
    }
    text
}

/// `ios`, issued on `file`, as fio's iolog version 3 (`write_iolog`): the
/// file added and opened at 0, each I/O at its issue time in µs in the
/// order issued, the file closed after the last completion. fio's replay
/// (`read_iolog`) and `iolab replay` take it back.
pub fn iolog_v3(ios: &KeptIos, file: &str) -> String {
    let mut issued: Vec<&KeptIo> = ios.iter().collect();
    issued.sort_by_key(|io| io.issued_ns);
    let mut text = format!("fio version 3 iolog\n0 {file} add\n0 {file} open\n");
    for io in &issued {
        text.push_str(&format!(
            "{} {file} {} {} {}\n",
            io.issued_ns / 1000,
            match io.direction {
                Direction::Read => "read",
                Direction::Write => "write",
                Direction::Trim => "trim",
            },
            io.offset,
            io.bytes
        ));
    }
    let end_us = ios
        .iter()
        .map(|io| (io.issued_ns + io.latency_ns) / 1000)
        .max()
        .unwrap_or(0);
    text.push_str(&format!("{end_us} {file} close\n"));
    text
}

/// Writes the kept I/Os of `result`'s measured repetitions beside
/// `result_path`, one CSV per job and repetition,
/// `RESULT.ios.P.J.rN.csv` (point P, its job J, both from 1, over all its
/// groups), never over a file that is there; the paths written, and a
/// line for each job whose I/Os were not all kept.
pub fn write_csvs(
    result: &super::ResultFile,
    result_path: &Path,
) -> std::io::Result<(Vec<PathBuf>, Vec<String>)> {
    let (mut written, mut missing) = (Vec::new(), Vec::new());
    for (p, point) in result.points.iter().enumerate() {
        if !point.workload.log_ios && point.groups.iter().all(|g| !g.workload.log_ios) {
            continue;
        }
        for (n, repetition) in point.measured().enumerate() {
            for (j, job) in repetition.jobs.iter().enumerate() {
                let Some(ios) = &job.ios else {
                    missing.push(format!(
                        "{} repetition {}, job {}: no I/Os kept (a trace's replay, a tree's items and another rank's jobs keep none)",
                        point.label,
                        n + 1,
                        j + 1
                    ));
                    continue;
                };
                if ios.unkept > 0 {
                    missing.push(format!(
                        "{} repetition {}, job {}: {} of its I/Os not kept, past the {} kept in all",
                        point.label,
                        n + 1,
                        j + 1,
                        ios.unkept,
                        BUDGET
                    ));
                }
                let mut name = result_path.with_extension("").into_os_string();
                name.push(format!(".ios.{}.{}.r{}.csv", p + 1, j + 1, n + 1));
                let path = PathBuf::from(name);
                create_new(&path, csv(ios).as_bytes())?;
                written.push(path);
            }
        }
    }
    Ok((written, missing))
}

/// Writes `bytes` into a new file at `path` (never over one there).
pub fn create_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| file.write_all(bytes))
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io(k: u64) -> KeptIo {
        KeptIo {
            issued_ns: k,
            latency_ns: 1,
            offset: k * 4096,
            bytes: 4096,
            direction: Direction::Read,
        }
    }

    #[test]
    fn entries_span_chunks_in_order_and_clearing_keeps_one_chunk() {
        let mut ios = KeptIos::default();
        for k in 0..(CHUNK as u64 * 2 + 3) {
            ios.push(io(k));
        }
        assert_eq!(ios.len(), CHUNK * 2 + 3);
        assert!(
            ios.iter()
                .map(|i| i.issued_ns)
                .eq(0..(CHUNK as u64 * 2 + 3))
        );
        assert_eq!(ios.chunks.len(), 3);
        ios.clear();
        assert!(ios.is_empty());
        assert_eq!(ios.chunks.len(), 1);
        ios.push(io(7));
        assert_eq!(ios.iter().next().unwrap().issued_ns, 7);
        assert_eq!(ios.unkept, 0);
    }

    fn kept(entries: &[(u64, u64, u64, Direction)]) -> KeptIos {
        let mut ios = KeptIos::default();
        for &(issued_ns, latency_ns, offset, direction) in entries {
            ios.push(KeptIo {
                issued_ns,
                latency_ns,
                offset,
                bytes: 4096,
                direction,
            });
        }
        ios
    }

    #[test]
    fn per_io_lines_are_fios_figures_at_each_completion() {
        let ios = kept(&[
            (1_000_000, 2_000_000, 8192, Direction::Read),
            (2_500_000, 1_000_000, 0, Direction::Write),
        ]);
        assert_eq!(
            fio_lines(&ios, PerIo::Bandwidth, false),
            "3, 2048, 0, 4096, 0\n3, 4096, 1, 4096, 0\n"
        );
        assert_eq!(
            fio_lines(&ios, PerIo::Iops, true),
            "3, 1, 0, 4096, 8192, 0\n3, 1, 1, 4096, 0, 0\n"
        );
        assert_eq!(
            fio_lines(&ios, PerIo::Latency, false),
            "3, 2000000, 0, 4096, 0\n3, 1000000, 1, 4096, 0\n"
        );
    }

    /// The iolog lists I/Os as issued (the kept order is of completions);
    /// `tests/jobfiles.rs` replays one in fio and in iolab.
    #[test]
    fn an_iolog_is_in_issue_order_and_reads_back_as_the_same_ios() {
        let ios = kept(&[
            (5_000, 9_000, 4096, Direction::Write),
            (1_000, 20_000, 0, Direction::Read),
            (30_000, 1_000, 8192, Direction::Trim),
        ]);
        let text = iolog_v3(&ios, "/x/f");
        assert_eq!(
            text,
            "fio version 3 iolog\n0 /x/f add\n0 /x/f open\n1 /x/f read 0 4096\n5 /x/f write 4096 4096\n30 /x/f trim 8192 4096\n31 /x/f close\n"
        );
    }

    #[test]
    fn the_csv_has_its_header_and_a_line_per_io() {
        let ios = kept(&[(7, 3, 4096, Direction::Read)]);
        assert_eq!(csv(&ios), format!("{CSV_HEADER}\n7,3,read,4096,4096\n"));
    }
}
