//! What the written bytes look like (`--data`): unique per sector, zeros, a pattern of the user's, compressible or partly deduplicable (repeating one block or a working set, per job or shared), and how each written block is made so.
//!
//! Storage that compresses or deduplicates (ZFS, a thin pool, a VM host's
//! disk image, an SSD controller) is faster on reducible data. The default
//! stays unique per 512-byte sector; the other shapes reproduce fio's
//! `zero_buffers`, `buffer_pattern`/`verify_pattern`, `buffer_compress_percentage` (with its default 512-byte
//! `buffer_compress_chunk`), `dedupe_percentage` with its `dedupe_mode`,
//! `dedupe_working_set_percentage` and `dedupe_global`, and vdbench's
//! `compratio`/`dedupratio` as percentages.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// Bytes per compressible chunk: each starts with its random share and
/// ends with zeros (fio's default `buffer_compress_chunk`).
pub const CHUNK: usize = 512;

/// The shape of the data a workload writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DataPattern {
    /// Random bytes, each 512-byte sector stamped with its offset and the
    /// write's generation, so no two sectors ever carry the same bytes.
    #[default]
    Unique,
    /// Every byte zero, as fio's `zero_buffers` (no stamp).
    Zeros,
    /// A pattern of the user's repeated from the start of every buffer
    /// (no stamp), as fio's `buffer_pattern` and `verify_pattern` fill them.
    Fill(FillPattern),
    /// Each 512-byte chunk: (100 − PCT)% random bytes (the first 16 of
    /// them the sector's stamp) then PCT% zeros, so a compressor saves
    /// about PCT% (fio's `buffer_compress_percentage`).
    Compressible(u8),
    /// A share of the written blocks, drawn per write, repeat others
    /// (fio's `dedupe_percentage`).
    Dedupe(Dedupe),
}

/// The bytes of `--data pattern:0x…`: 1 to 32 of them, their count a
/// divisor of 512, so every sector (and so every block and buffer) starts
/// at the pattern's first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FillPattern {
    bytes: [u8; 32],
    len: u8,
}

impl FillPattern {
    /// The pattern of `bytes`, or why it cannot be one.
    pub fn new(bytes: &[u8]) -> Result<FillPattern, String> {
        if bytes.is_empty() || bytes.len() > 32 || 512 % bytes.len() != 0 {
            return Err(format!(
                "a pattern of {} bytes: iolab repeats 1, 2, 4, 8, 16 or 32 bytes (a length that divides a 512-byte sector)",
                bytes.len()
            ));
        }
        let mut pattern = FillPattern {
            bytes: [0; 32],
            len: bytes.len() as u8,
        };
        pattern.bytes[..bytes.len()].copy_from_slice(bytes);
        Ok(pattern)
    }

    /// Its bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

impl fmt::Display for FillPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0x")?;
        self.as_bytes()
            .iter()
            .try_for_each(|byte| write!(f, "{byte:02x}"))
    }
}

impl FromStr for FillPattern {
    type Err = String;

    /// Hex digits after `0x`, the first byte first (fio's `0xaa555aa5`
    /// writes aa 55 5a a5).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let digits = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))
            .filter(|d| !d.is_empty() && d.len() % 2 == 0)
            .ok_or_else(|| format!("'{text}' is not 0x and an even count of hex digits"))?;
        let bytes: Vec<u8> = (0..digits.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(&digits[at..at + 2], 16))
            .collect::<Result<_, _>>()
            .map_err(|_| format!("'{text}' is not 0x and an even count of hex digits"))?;
        FillPattern::new(&bytes).map_err(|why| format!("'{text}': {why}"))
    }
}

/// How a deduplicable shape repeats blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dedupe {
    /// The percent of written blocks that repeat another (1 to 99).
    pub percent: u8,
    /// The percent of each 512-byte chunk that is zeros as well, as
    /// `Compressible` (0: none; fio's `buffer_compress_percentage` beside
    /// `dedupe_percentage`).
    pub compress: u8,
    /// `None`: a repeated block carries the job's one repeated bytes (fio's
    /// `dedupe_mode=repeat` repeats the last unique write: the same share
    /// of repeats). `Some(P)`: it repeats one of a working set of P% of the
    /// job's blocks, its first unique writes, drawn uniformly (fio's
    /// `dedupe_mode=working_set` with `dedupe_working_set_percentage`).
    pub working_set: Option<u8>,
    /// With a working set: every job's set spans all jobs' first unique
    /// writes, an equal share of each, so jobs repeat one another's blocks
    /// (fio's `dedupe_global`).
    pub global: bool,
}

impl Dedupe {
    /// PCT% of the writes repeating the job's one repeated block.
    pub fn repeat(percent: u8) -> Dedupe {
        Dedupe {
            percent,
            compress: 0,
            working_set: None,
            global: false,
        }
    }
}

impl Dedupe {
    /// Itself, or why it cannot be made: a working set larger than the
    /// unique writes that make it, or `global` without a working set.
    pub fn checked(self) -> Result<Dedupe, String> {
        if let Some(set) = self.working_set.filter(|set| set + self.percent > 100) {
            return Err(format!(
                "a working set of {set}% is the job's first unique writes, and only {}% of its writes are unique (fio refuses the same)",
                100 - self.percent
            ));
        }
        if self.global && self.working_set.is_none() {
            return Err("global shares a working set between jobs: give working-set=PCT".into());
        }
        Ok(self)
    }
}

/// Where a job's blocks lie among those sharing a working set: the job's
/// number, the number of jobs and the blocks of one job's file.
#[derive(Clone, Copy, Debug)]
pub struct DataShare {
    /// This job's number, from 0.
    pub job: u32,
    /// The jobs writing the point's data.
    pub jobs: u32,
    /// Blocks (of the smallest size) in one job's file.
    pub blocks: u64,
}

impl DataPattern {
    /// Whether this is the default (written data unique per sector).
    pub fn is_unique(&self) -> bool {
        *self == DataPattern::Unique
    }

    /// Shapes a freshly filled random buffer once, before any write.
    pub fn shape(self, buffer: &mut [u8]) {
        match self {
            DataPattern::Zeros => buffer.fill(0),
            DataPattern::Fill(pattern) => {
                for piece in buffer.chunks_mut(pattern.as_bytes().len()) {
                    piece.copy_from_slice(&pattern.as_bytes()[..piece.len()]);
                }
            }
            DataPattern::Compressible(percent)
            | DataPattern::Dedupe(Dedupe {
                compress: percent @ 1..,
                ..
            }) => {
                let random = CHUNK * (100 - usize::from(percent)) / 100;
                for chunk in buffer.chunks_mut(CHUNK) {
                    let keep = random.min(chunk.len());
                    chunk[keep..].fill(0);
                }
            }
            DataPattern::Unique | DataPattern::Dedupe(_) => {}
        }
    }

    /// Whether jobs must share their filler bytes: a working set shared
    /// between them repeats one job's blocks in another's writes.
    pub fn shared_between_jobs(&self) -> bool {
        matches!(
            self,
            DataPattern::Dedupe(Dedupe {
                working_set: Some(_),
                global: true,
                ..
            })
        )
    }

    /// The per-write draws of this shape for the job `share` places, seeded.
    pub fn draws(self, seed: u64, share: DataShare) -> DataDraws {
        let (stamp, repeat_below) = match self {
            DataPattern::Zeros | DataPattern::Fill(_) => (false, 0),
            DataPattern::Dedupe(dedupe) => {
                (true, ((u128::from(dedupe.percent) << 64) / 100) as u64)
            }
            DataPattern::Unique | DataPattern::Compressible(_) => (true, 0),
        };
        let pages = match self {
            DataPattern::Dedupe(Dedupe {
                working_set: Some(percent),
                ..
            }) => (share.blocks * u64::from(percent) / 100).max(1),
            _ => 0,
        };
        let jobs = match self.shared_between_jobs() {
            true => u64::from(share.jobs.max(1)),
            false => 1,
        };
        let state = seed ^ 0xDA7A_5EED_0B5E_55ED;
        DataDraws {
            stamp,
            repeat_below,
            state: if state == 0 { 1 } else { state },
            pages,
            // fio's pages_per_seed: an equal run of each job's pages.
            pages_per_job: (pages / jobs).max(1),
            job: match jobs {
                1 => 0,
                _ => u64::from(share.job),
            },
            jobs,
            unique_written: 0,
        }
    }
}

/// How a block about to be written is stamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteStamp {
    /// With its offset and the write's generation: unlike any other.
    Unique,
    /// With offset 0 and generation 0: the same bytes as every other
    /// repeated block of the job (`dedupe`).
    Repeat,
    /// Not at all (`zeros`).
    None,
    /// As working-set page `key` (a job's number and its unique write's
    /// number): the same bytes wherever the page is written.
    Page(u64),
}

/// How each write is stamped: per write, one branch, and for `dedupe` one
/// xorshift64 draw against the repeated share (two with a working set).
#[derive(Clone, Copy, Debug)]
pub struct DataDraws {
    stamp: bool,
    repeat_below: u64,
    state: u64,
    /// Working-set pages (0: none, the one repeated block).
    pages: u64,
    pages_per_job: u64,
    job: u64,
    jobs: u64,
    /// This job's unique writes so far: the number of its next page.
    unique_written: u64,
}

impl DataDraws {
    /// The stamp of the next block written.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)] // an endless draw, not an Iterator
    pub fn next(&mut self) -> WriteStamp {
        if self.repeat_below == 0 {
            return if self.stamp {
                WriteStamp::Unique
            } else {
                WriteStamp::None
            };
        }
        let x = super::draw::xorshift64(&mut self.state);
        let repeat = x < self.repeat_below;
        match (repeat, self.pages) {
            (true, 0) => WriteStamp::Repeat,
            (false, 0) => WriteStamp::Unique,
            (true, pages) => {
                // fio's draw of a page, then whose: runs of pages_per_job
                // pages, from this job's on.
                let x = super::draw::xorshift64(&mut self.state);
                let page = ((u128::from(x) * u128::from(pages)) >> 64) as u64;
                let (run, index) = (page / self.pages_per_job, page % self.pages_per_job);
                let owner = (self.job + run) % self.jobs;
                WriteStamp::Page(owner << 40 | index)
            }
            (false, _) => {
                let index = self.unique_written;
                self.unique_written += 1;
                WriteStamp::Page(self.job << 40 | index)
            }
        }
    }
}

impl fmt::Display for DataPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataPattern::Unique => f.write_str("unique"),
            DataPattern::Zeros => f.write_str("zeros"),
            DataPattern::Fill(pattern) => write!(f, "pattern:{pattern}"),
            DataPattern::Compressible(percent) => write!(f, "compressible:{percent}"),
            DataPattern::Dedupe(dedupe) => {
                if dedupe.compress > 0 {
                    write!(f, "compressible:{}+", dedupe.compress)?;
                }
                write!(f, "dedupe:{}", dedupe.percent)?;
                if let Some(percent) = dedupe.working_set {
                    write!(f, ":working-set={percent}")?;
                }
                if dedupe.global {
                    f.write_str(":global")?;
                }
                Ok(())
            }
        }
    }
}

impl FromStr for DataPattern {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let percent = |value: &str, range: std::ops::RangeInclusive<u8>| {
            value
                .trim()
                .trim_end_matches('%')
                .parse::<u8>()
                .ok()
                .filter(|p| range.contains(p))
                .ok_or_else(|| {
                    format!(
                        "'{text}': '{value}' is not a whole percentage from {} to {}",
                        range.start(),
                        range.end()
                    )
                })
        };
        let (compress, rest) = match text.trim().split_once('+') {
            Some((first, rest)) => match first.trim().split_once(':') {
                Some(("compressible", value)) => (percent(value, 1..=99)?, rest.trim()),
                _ => return Err(format!("'{text}': only compressible:PCT goes before '+'")),
            },
            None => (0, text.trim()),
        };
        let mut parts = rest.split(':');
        let shape = match (parts.next(), parts.next()) {
            (Some("unique"), None) if compress == 0 => DataPattern::Unique,
            (Some("zeros"), None) if compress == 0 => DataPattern::Zeros,
            (Some("pattern"), Some(bytes)) if compress == 0 => DataPattern::Fill(
                bytes
                    .trim()
                    .parse()
                    .map_err(|why| format!("'{text}': {why}"))?,
            ),
            (Some("compressible"), Some(value)) if compress == 0 => {
                DataPattern::Compressible(percent(value, 1..=99)?)
            }
            (Some("dedupe"), Some(value)) => {
                let mut dedupe = Dedupe {
                    compress,
                    ..Dedupe::repeat(percent(value, 1..=99)?)
                };
                for part in parts.by_ref() {
                    match part.split_once('=') {
                        Some(("working-set", value)) => {
                            dedupe.working_set = Some(percent(value, 1..=100)?);
                        }
                        None if part == "global" => dedupe.global = true,
                        _ => {
                            return Err(format!(
                                "'{text}': '{part}' is not working-set=PCT or global"
                            ));
                        }
                    }
                }
                DataPattern::Dedupe(dedupe.checked().map_err(|why| format!("'{text}': {why}"))?)
            }
            _ => {
                return Err(format!(
                    "'{text}' is not unique, zeros, pattern:0xHEX, compressible:PCT, dedupe:PCT[:working-set=PCT][:global] or compressible:PCT+dedupe:…"
                ));
            }
        };
        match parts.next() {
            None => Ok(shape),
            Some(extra) => Err(format!("'{text}': '{extra}' is not understood")),
        }
    }
}

impl Serialize for DataPattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for DataPattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_JOB: DataShare = DataShare {
        job: 0,
        jobs: 1,
        blocks: 1000,
    };

    #[test]
    fn shapes_print_as_written_and_bad_ones_are_named() {
        for text in [
            "unique",
            "zeros",
            "pattern:0xaa555aa5",
            "pattern:0x00",
            "compressible:50",
            "dedupe:30",
            "dedupe:30:working-set=5",
            "compressible:50+dedupe:50:working-set=50:global",
        ] {
            assert_eq!(text.parse::<DataPattern>().unwrap().to_string(), text);
        }
        assert_eq!(
            "compressible:25%".parse::<DataPattern>(),
            Ok(DataPattern::Compressible(25))
        );
        for bad in [
            "",
            "random",
            "compressible",
            "compressible:0",
            "dedupe:100",
            "dedupe:x",
            "dedupe:60:working-set=50",
            "dedupe:10:global",
            "dedupe:10:working-set=0",
            "compressible:50+zeros",
            "dedupe:10:working-set=5:again",
            "pattern:0xabc",
            "pattern:0x",
            "pattern:aa55",
            "pattern:0xaabbcc",
            "compressible:50+pattern:0xaa",
        ] {
            let error = bad.parse::<DataPattern>().unwrap_err();
            assert!(error.contains(&format!("'{bad}'")), "{error}");
        }
    }

    #[test]
    fn a_pattern_fills_every_sector_from_its_first_byte_and_stamps_nothing() {
        let mut buffer = vec![7u8; 4096];
        let pattern: DataPattern = "pattern:0xaa555aa5".parse().unwrap();
        pattern.shape(&mut buffer);
        for sector in buffer.chunks(512) {
            assert_eq!(&sector[..6], &[0xaa, 0x55, 0x5a, 0xa5, 0xaa, 0x55]);
        }
        assert_eq!(pattern.draws(1, ONE_JOB).next(), WriteStamp::None);
    }

    #[test]
    fn a_compressible_buffer_is_random_then_zeros_per_chunk() {
        let mut buffer = vec![0xA5u8; 4096];
        DataPattern::Compressible(75).shape(&mut buffer);
        for chunk in buffer.chunks(CHUNK) {
            assert!(chunk[..128].iter().all(|&b| b == 0xA5));
            assert!(chunk[128..].iter().all(|&b| b == 0));
        }
        let mut zeros = vec![1u8; 1000];
        DataPattern::Zeros.shape(&mut zeros);
        assert!(zeros.iter().all(|&b| b == 0));
    }

    #[test]
    fn dedupe_repeats_its_share_of_the_writes_within_binomial_bounds() {
        let n = 1_000_000u64;
        let mut draws = DataPattern::Dedupe(Dedupe::repeat(30)).draws(4, ONE_JOB);
        let repeated = (0..n)
            .filter(|_| draws.next() == WriteStamp::Repeat)
            .count() as f64;
        let sd = (n as f64 * 0.3 * 0.7).sqrt();
        assert!((repeated - 0.3 * n as f64).abs() < 5.0 * sd, "{repeated}");
        for (data, always) in [
            (DataPattern::Unique, WriteStamp::Unique),
            (DataPattern::Compressible(50), WriteStamp::Unique),
            (DataPattern::Zeros, WriteStamp::None),
        ] {
            let mut draws = data.draws(4, ONE_JOB);
            assert!((0..1000).all(|_| draws.next() == always), "{data}");
        }
    }

    #[test]
    fn a_working_set_repeats_the_first_unique_writes_and_a_global_one_every_jobs() {
        let data: DataPattern = "dedupe:40:working-set=10".parse().unwrap();
        let mut draws = data.draws(7, ONE_JOB);
        let stamps: Vec<WriteStamp> = (0..10_000).map(|_| draws.next()).collect();
        let pages = |stamps: &[WriteStamp]| -> Vec<u64> {
            stamps
                .iter()
                .map(|s| match s {
                    WriteStamp::Page(key) => *key,
                    other => panic!("{other:?}"),
                })
                .collect()
        };
        let keys = pages(&stamps);
        let distinct: std::collections::HashSet<u64> = keys.iter().copied().collect();
        // The unique writes number 0, 1, 2 …; every repeat is one of the
        // first 100 (10% of 1,000 blocks), which the unique writes made.
        assert!(distinct.iter().all(|&k| k < 6_500), "{distinct:?}");
        let unique = distinct.len() as f64 / 10_000.0;
        assert!((unique - 0.6).abs() < 0.03, "{unique}");
        // Shared by two jobs: job 1's repeats are runs of 50 pages of each.
        let shared: DataPattern = "dedupe:50:working-set=10:global".parse().unwrap();
        assert!(shared.shared_between_jobs());
        let mut draws = shared.draws(
            7,
            DataShare {
                job: 1,
                jobs: 2,
                ..ONE_JOB
            },
        );
        let keys = pages(&(0..10_000).map(|_| draws.next()).collect::<Vec<_>>());
        let owners: std::collections::HashSet<u64> = keys.iter().map(|k| k >> 40).collect();
        assert_eq!(owners.len(), 2, "job 1 repeats job 0's pages and its own");
        assert!(
            keys.iter()
                .filter(|k| *k >> 40 == 0)
                .all(|k| k & ((1 << 40) - 1) < 50)
        );
    }
}
