//! What the written bytes look like (`--data`): unique per sector, zeros, compressible or partly deduplicable, and how each written block is made so.
//!
//! Storage that compresses or deduplicates (ZFS, a thin pool, a VM host's
//! disk image, an SSD controller) is faster on reducible data. The default
//! stays unique per 512-byte sector; the other shapes reproduce fio's
//! `zero_buffers`, `buffer_compress_percentage` (with its default 512-byte
//! `buffer_compress_chunk`) and `dedupe_percentage`, and vdbench's
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
    /// Each 512-byte chunk: (100 − PCT)% random bytes (the first 16 of
    /// them the sector's stamp) then PCT% zeros, so a compressor saves
    /// about PCT% (fio's `buffer_compress_percentage`).
    Compressible(u8),
    /// PCT% of the written blocks, drawn per write, carry the same bytes as
    /// one another (the job's unstamped buffer); the rest are unique
    /// (fio's `dedupe_percentage`).
    Dedupe(u8),
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
            DataPattern::Compressible(percent) => {
                let random = CHUNK * (100 - usize::from(percent)) / 100;
                for chunk in buffer.chunks_mut(CHUNK) {
                    let keep = random.min(chunk.len());
                    chunk[keep..].fill(0);
                }
            }
            DataPattern::Unique | DataPattern::Dedupe(_) => {}
        }
    }

    /// The per-write draws of this shape, seeded.
    pub fn draws(self, seed: u64) -> DataDraws {
        let (stamp, repeat_below) = match self {
            DataPattern::Zeros => (false, 0),
            DataPattern::Dedupe(percent) => (true, ((u128::from(percent) << 64) / 100) as u64),
            DataPattern::Unique | DataPattern::Compressible(_) => (true, 0),
        };
        let state = seed ^ 0xDA7A_5EED_0B5E_55ED;
        DataDraws {
            stamp,
            repeat_below,
            state: if state == 0 { 1 } else { state },
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
}

/// How each write is stamped: per write, one branch, and for `dedupe` one
/// xorshift64 draw against the repeated share.
#[derive(Clone, Copy, Debug)]
pub struct DataDraws {
    stamp: bool,
    repeat_below: u64,
    state: u64,
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
        if x < self.repeat_below {
            WriteStamp::Repeat
        } else {
            WriteStamp::Unique
        }
    }
}

impl fmt::Display for DataPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataPattern::Unique => f.write_str("unique"),
            DataPattern::Zeros => f.write_str("zeros"),
            DataPattern::Compressible(percent) => write!(f, "compressible:{percent}"),
            DataPattern::Dedupe(percent) => write!(f, "dedupe:{percent}"),
        }
    }
}

impl FromStr for DataPattern {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let percent = |value: &str| {
            value
                .trim()
                .trim_end_matches('%')
                .parse::<u8>()
                .ok()
                .filter(|p| (1..=99).contains(p))
                .ok_or_else(|| {
                    format!("'{text}': the percentage must be a whole number from 1 to 99")
                })
        };
        match text.trim().split_once(':') {
            None if text.trim() == "unique" => Ok(DataPattern::Unique),
            None if text.trim() == "zeros" => Ok(DataPattern::Zeros),
            Some(("compressible", value)) => percent(value).map(DataPattern::Compressible),
            Some(("dedupe", value)) => percent(value).map(DataPattern::Dedupe),
            _ => Err(format!(
                "'{text}' is not unique, zeros, compressible:PCT or dedupe:PCT"
            )),
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

    #[test]
    fn shapes_print_as_written_and_bad_ones_are_named() {
        for text in ["unique", "zeros", "compressible:50", "dedupe:30"] {
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
        ] {
            let error = bad.parse::<DataPattern>().unwrap_err();
            assert!(error.contains(&format!("'{bad}'")), "{error}");
        }
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
        let mut draws = DataPattern::Dedupe(30).draws(4);
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
            let mut draws = data.draws(4);
            assert!((0..1000).all(|_| draws.next() == always), "{data}");
        }
    }
}
