//! A mix of block sizes (`--bssplit 4k=60,64k=30,1m=10`, fio's `bssplit`): the sizes, their shares, and the per-I/O draw the timing loop takes each I/O's length from.
//!
//! The smallest size is the grid every I/O starts on (it becomes the
//! workload's `bs`), so every size must be a whole multiple of it; near the
//! end of the file an I/O that would run past it takes the largest size
//! of the split that still fits (as fio picks a size that fits). A pass
//! moves the file's size in bytes, as with one block size.

use super::units::{format_size, parse_size};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The most sizes a split holds.
pub const MAX_SIZES: usize = 16;

/// Block sizes and the whole-percent share of I/Os each takes, ascending by
/// size, the shares adding up to 100.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BlockSplit {
    sizes: [(u64, u8); MAX_SIZES],
    len: u8,
}

impl BlockSplit {
    /// The sizes and their shares, ascending by size.
    pub fn entries(&self) -> &[(u64, u8)] {
        &self.sizes[..usize::from(self.len)]
    }

    /// The smallest size: the grid I/Os start on, and the workload's `bs`.
    pub fn smallest(&self) -> u64 {
        self.entries()[0].0
    }

    /// The largest size: what each I/O buffer must hold.
    pub fn largest(&self) -> u64 {
        self.entries()[usize::from(self.len) - 1].0
    }

    /// The mean bytes per I/O the shares draw (before the end-of-file fit).
    pub fn mean(&self) -> f64 {
        self.entries()
            .iter()
            .map(|&(size, percent)| size as f64 * f64::from(percent) / 100.0)
            .sum()
    }

    /// One size for every I/O.
    pub fn single(size: u64) -> BlockSplit {
        let mut split = BlockSplit {
            sizes: [(0, 0); MAX_SIZES],
            len: 1,
        };
        split.sizes[0] = (size, 100);
        split
    }

    /// The per-I/O draws of a job whose data seed is `seed`, in multiples
    /// of the smallest size.
    pub fn draws(&self, seed: u64) -> SizeDraws {
        let unit = self.smallest();
        let mut draws = SizeDraws {
            units: [1; MAX_SIZES],
            below: [u64::MAX; MAX_SIZES],
            len: usize::from(self.len),
            // Apart from the seed's other uses; xorshift needs a nonzero state.
            state: (seed ^ 0xB5AD_4ECE_DA1C_E2A9).max(1),
        };
        let mut cumulative = 0u128;
        for (i, &(size, percent)) in self.entries().iter().enumerate() {
            draws.units[i] = size / unit;
            cumulative += u128::from(percent);
            draws.below[i] = if cumulative >= 100 {
                u64::MAX
            } else {
                ((cumulative << 64) / 100) as u64
            };
        }
        draws
    }
}

impl FromStr for BlockSplit {
    type Err = String;

    /// `4k=60,64k=30,1m=10`, with `+` or `:` between the entries (a sweep's
    /// values are separated by commas) and `=` or fio's `/` before each
    /// share: whole percents adding up to 100, each size once, every size
    /// a multiple of the smallest.
    fn from_str(text: &str) -> Result<BlockSplit, String> {
        let mut split = BlockSplit {
            sizes: [(0, 0); MAX_SIZES],
            len: 0,
        };
        // One size alone (`64k`): every I/O of it.
        if !text.contains(['=', '/', ',', '+', ':']) {
            let size = parse_size(text.trim())?;
            return Ok(BlockSplit::single(size));
        }
        let mut total = 0u32;
        for item in text.split([',', '+', ':']) {
            let item = item.trim();
            let Some((size, percent)) = item.split_once(['=', '/']) else {
                return Err(format!(
                    "'{item}' is not a share: write SIZE=PERCENT, as 4k=60,64k=40"
                ));
            };
            let size = parse_size(size.trim()).map_err(|e| format!("'{item}': {e}"))?;
            let percent = percent
                .trim()
                .trim_end_matches('%')
                .parse::<u8>()
                .ok()
                .filter(|p| (1..=100).contains(p))
                .ok_or_else(|| format!("'{item}': a share is a whole percent from 1 to 100"))?;
            if size == 0 {
                return Err(format!("'{item}': a block size of 0"));
            }
            if split.entries().iter().any(|&(s, _)| s == size) {
                return Err(format!("'{text}' gives {} twice", format_size(size)));
            }
            if usize::from(split.len) == MAX_SIZES {
                return Err(format!("'{text}' has more than {MAX_SIZES} sizes"));
            }
            split.sizes[usize::from(split.len)] = (size, percent);
            split.len += 1;
            total += u32::from(percent);
        }
        if total != 100 {
            return Err(format!(
                "the shares of '{text}' add up to {total}%, not 100%"
            ));
        }
        let len = usize::from(split.len);
        split.sizes[..len].sort_unstable();
        let unit = split.smallest();
        if let Some(&(size, _)) = split.entries().iter().find(|(size, _)| size % unit != 0) {
            return Err(format!(
                "{} is not a multiple of the smallest size {}: I/Os start on its grid",
                format_size(size),
                format_size(unit)
            ));
        }
        Ok(split)
    }
}

impl fmt::Display for BlockSplit {
    /// `4KiB=60,64KiB=30,1MiB=10`, ascending by size; one size alone as it
    /// is (`64KiB`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let [(size, 100)] = self.entries() {
            return f.write_str(&format_size(*size));
        }
        for (i, &(size, percent)) in self.entries().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}={percent}", format_size(size))?;
        }
        Ok(())
    }
}

impl TryFrom<String> for BlockSplit {
    type Error = String;
    fn try_from(text: String) -> Result<BlockSplit, String> {
        text.parse()
    }
}

impl From<BlockSplit> for String {
    fn from(split: BlockSplit) -> String {
        split.to_string()
    }
}

/// The lengths of one job's I/Os in multiples of the split's smallest
/// size: an xorshift64 draw compared with each size's cumulative threshold.
#[derive(Clone, Debug)]
pub struct SizeDraws {
    units: [u64; MAX_SIZES],
    below: [u64; MAX_SIZES],
    len: usize,
    state: u64,
}

impl SizeDraws {
    /// The next I/O's length, in multiples of the smallest size.
    #[inline]
    #[allow(clippy::should_implement_trait)] // an endless draw, not an Iterator
    pub fn next(&mut self) -> u64 {
        let x = super::draw::xorshift64(&mut self.state);
        let mut i = 0;
        while i + 1 < self.len && x >= self.below[i] {
            i += 1;
        }
        self.units[i]
    }

    /// The largest length of the split (in multiples of the smallest) that
    /// fits in `room` of them; at least 1, the smallest size.
    #[inline]
    pub fn fit(&self, room: u64) -> u64 {
        self.units[..self.len]
            .iter()
            .rev()
            .copied()
            .find(|&units| units <= room)
            .unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_are_written_as_sizes_with_shares_adding_up_to_100() {
        let split: BlockSplit = "64k=30,4k=60,1m=10".parse().unwrap();
        assert_eq!(
            split.entries(),
            &[(4096, 60), (65536, 30), (1 << 20, 10)][..]
        );
        assert_eq!(split.to_string(), "4KiB=60,64KiB=30,1MiB=10");
        assert_eq!(split.to_string().parse::<BlockSplit>(), Ok(split));
        assert_eq!("4k/60:64k/30:1m/10".parse::<BlockSplit>(), Ok(split));
        assert_eq!("4k=60+64k=30+1m=10".parse::<BlockSplit>(), Ok(split));
        assert_eq!((split.smallest(), split.largest()), (4096, 1 << 20));
        let mean = 0.6 * 4096.0 + 0.3 * 65536.0 + 0.1 * 1048576.0;
        assert!((split.mean() - mean).abs() < 1e-6);
        for bad in [
            "4k=60",
            "4k=60,64k=50",
            "4k=60,4k=40",
            "4k=0,64k=100",
            "0=50,4k=50",
            "4k=50,6k=50",
            "4k,64k",
            "4x=50,64k=50",
            "",
        ] {
            assert!(bad.parse::<BlockSplit>().is_err(), "{bad} accepted");
        }
        let json = serde_json::to_string(&split).unwrap();
        assert_eq!(serde_json::from_str::<BlockSplit>(&json).unwrap(), split);
        assert!(serde_json::from_str::<BlockSplit>("\"4k=7\"").is_err());
    }

    #[test]
    fn each_size_is_drawn_within_binomial_bounds_and_repeats_by_seed() {
        let split: BlockSplit = "4k=60,64k=30,1m=10".parse().unwrap();
        let n = 300_000u64;
        let mut draws = split.draws(9);
        let mut counts = [0u64; 3];
        for _ in 0..n {
            match draws.next() {
                1 => counts[0] += 1,
                16 => counts[1] += 1,
                256 => counts[2] += 1,
                other => panic!("drew {other} units"),
            }
        }
        for (count, share) in counts.into_iter().zip([0.6, 0.3, 0.1]) {
            // 5 standard deviations of a binomial(n, share).
            let sd = (n as f64 * share * (1.0 - share)).sqrt();
            assert!(
                (count as f64 - share * n as f64).abs() < 5.0 * sd,
                "{counts:?}"
            );
        }
        let a: Vec<u64> = (0..64)
            .map({
                let mut d = split.draws(3);
                move |_| d.next()
            })
            .collect();
        let b: Vec<u64> = (0..64)
            .map({
                let mut d = split.draws(3);
                move |_| d.next()
            })
            .collect();
        assert_eq!(a, b);
    }

    #[test]
    fn near_the_end_the_largest_size_that_fits_is_taken() {
        let draws = "4k=60,64k=30,1m=10".parse::<BlockSplit>().unwrap().draws(1);
        assert_eq!(draws.fit(300), 256);
        assert_eq!(draws.fit(255), 16);
        assert_eq!(draws.fit(15), 1);
        assert_eq!(draws.fit(1), 1);
    }
}
