//! Skewed offsets: the zipf, pareto, normal and zoned distributions of fio's `random_distribution`, drawn per I/O over a file's blocks.
//!
//! Each draw is independent, as with `uniform`: some blocks repeat, some
//! are never touched. Zipf, pareto and normal draw a *rank* (0 the hottest)
//! that a keyed permutation of the blocks (the one `random` walks) turns
//! into a block, so the hot blocks lie scattered over the file as fio's
//! hash scatters them, but with no two ranks on one block. Zoned keeps its
//! zones where they are, in file order, as fio does.
//!
//! The zipf draw is rand_distr's exact rejection sampler: fio's (Gray et
//! al.'s approximation) strays from Zipf's law above θ = 1, where the tests
//! of this module hold the top 1%'s share to the law's own sum.

use super::draw::{Permutation, SplitMix64, mix};
use rand_distr::{Distribution, StandardNormal, Zipf};
use std::fmt;

/// A parameter of a distribution in thousandths (`1.2` is 1200): exact,
/// so that patterns compare equal and print as they were written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Milli(u32);

impl Milli {
    /// The value as a number.
    pub fn get(self) -> f64 {
        f64::from(self.0) / 1000.0
    }

    /// Parses a decimal with at most three decimals, inside `low..=high`
    /// (`low` excluded when `open_low`, `high` when `open_high`).
    fn parse(text: &str, low: u32, high: u32, open: (bool, bool)) -> Option<Milli> {
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() && fraction.is_empty()
            || !digits(whole)
            || !digits(fraction)
            || fraction.len() > 3
            || whole.len() > 6
        {
            return None;
        }
        let whole: u32 = if whole.is_empty() {
            0
        } else {
            whole.parse().ok()?
        };
        let fraction: u32 = format!("{fraction:0<3}").parse().ok()?;
        let value = whole * 1000 + fraction;
        let above = if open.0 { value > low } else { value >= low };
        let below = if open.1 { value < high } else { value <= high };
        (above && below).then_some(Milli(value))
    }
}

impl fmt::Display for Milli {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, fraction) = (self.0 / 1000, self.0 % 1000);
        if fraction == 0 {
            write!(f, "{whole}")
        } else {
            let digits = format!("{fraction:03}");
            write!(f, "{whole}.{}", digits.trim_end_matches('0'))
        }
    }
}

/// The most zones a zoned distribution may have.
pub const MAX_ZONES: usize = 16;

/// Zones of the file in order, each with its share of the I/Os and of the
/// file, whole percents each adding up to 100 (fio's `zoned:60/10:30/20:10/70`:
/// 60% of the I/Os to the first 10% of the file …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Zones {
    count: u8,
    access: [u8; MAX_ZONES],
    size: [u8; MAX_ZONES],
}

impl Zones {
    /// The zones as (share of I/Os, share of file), whole percents.
    pub fn iter(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        (0..usize::from(self.count)).map(|i| (self.access[i], self.size[i]))
    }

    fn parse(text: &str) -> Result<Zones, String> {
        let mut zones = Zones {
            count: 0,
            access: [0; MAX_ZONES],
            size: [0; MAX_ZONES],
        };
        for zone in text.split([':', ',', '+']) {
            let Some((access, size)) = zone.split_once('/') else {
                return Err(format!("zone '{zone}' is not ACCESS%/SIZE%"));
            };
            let percent = |s: &str| s.trim().trim_end_matches('%').parse::<u8>().ok();
            let (Some(access), Some(size)) = (percent(access), percent(size)) else {
                return Err(format!("zone '{zone}' is not two whole percents"));
            };
            if access > 100 || !(1..=100).contains(&size) {
                return Err(format!(
                    "zone '{zone}': a zone takes 0-100% of the I/Os and 1-100% of the file"
                ));
            }
            let index = usize::from(zones.count);
            if index == MAX_ZONES {
                return Err(format!("more than {MAX_ZONES} zones"));
            }
            (zones.access[index], zones.size[index]) = (access, size);
            zones.count += 1;
        }
        let sum = |shares: &[u8]| shares.iter().map(|&s| u32::from(s)).sum::<u32>();
        let (access, size) = (sum(&zones.access), sum(&zones.size));
        if access != 100 || size != 100 {
            return Err(format!(
                "the zones' I/O shares add up to {access}% and their file shares to {size}%: both must be 100%"
            ));
        }
        Ok(zones)
    }
}

impl fmt::Display for Zones {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (access, size)) in self.iter().enumerate() {
            let separator = if i == 0 { "" } else { ":" };
            write!(f, "{separator}{access}/{size}")?;
        }
        Ok(())
    }
}

/// How offsets are skewed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Skew {
    /// Zipf's law with exponent θ: the k-th hottest block is drawn in
    /// proportion to 1/k^θ.
    Zipf(Milli),
    /// Pareto with h: a share h of the I/Os goes to the hottest 1−h of
    /// the blocks (pareto:0.8 is the 80/20 rule), fio's power-law draw.
    Pareto(Milli),
    /// Normal around the middle of the file with σ a percentage of the
    /// file, cut off at its ends.
    Normal(Milli),
    /// Fixed zones with their own shares, uniform within each.
    Zoned(Zones),
}

impl fmt::Display for Skew {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skew::Zipf(theta) => write!(f, "zipf:{theta}"),
            Skew::Pareto(h) => write!(f, "pareto:{h}"),
            Skew::Normal(sigma) => write!(f, "normal:{sigma}"),
            Skew::Zoned(zones) => write!(f, "zoned:{zones}"),
        }
    }
}

impl Skew {
    /// Parses `NAME:PARAMETER` for a skewed distribution's name; `None`
    /// when `name` is none of them.
    pub fn parse(name: &str, parameter: &str) -> Option<Result<Skew, String>> {
        let bounded = |low, high, open, what: &str| {
            Milli::parse(parameter.trim_end_matches('%'), low, high, open).ok_or_else(|| {
                format!("pattern '{name}:{parameter}': {what}, with at most 3 decimals")
            })
        };
        Some(match name {
            "zipf" => {
                bounded(0, 10_000, (true, false), "θ is a number above 0, up to 10").map(Skew::Zipf)
            }
            "pareto" => {
                bounded(0, 1000, (true, true), "h is a number between 0 and 1").map(Skew::Pareto)
            }
            "normal" | "gauss" => bounded(
                0,
                100_000,
                (true, false),
                "σ is a percentage of the file above 0, up to 100",
            )
            .map(Skew::Normal),
            "zoned" => Zones::parse(parameter)
                .map(Skew::Zoned)
                .map_err(|e| format!("pattern 'zoned:{parameter}': {e}")),
            _ => return None,
        })
    }
}

/// The random source of the draws, seen by rand_distr as an infallible generator.
impl rand_core::TryRng for SplitMix64 {
    type Error = std::convert::Infallible;
    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok((self.next() >> 32) as u32)
    }
    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.next())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            chunk.copy_from_slice(&self.next().to_le_bytes()[..chunk.len()]);
        }
        Ok(())
    }
}

/// What each draw computes, set up once per job.
#[derive(Clone, Debug)]
enum Law {
    Zipf(Zipf<f64>),
    /// The exponent log(h)/log(1−h) of fio's pareto draw.
    Pareto(f64),
    /// σ in blocks.
    Normal(f64),
    /// Per zone: the cumulative share of I/Os below which a uniform draw
    /// (scaled to 2^64) falls in it, and its first and last-plus-one block.
    /// Boxed: the tables are large beside the other laws, and built once per job.
    Zoned(Box<ZoneTable>),
}

/// The zoned law's tables.
#[derive(Clone, Debug)]
struct ZoneTable {
    count: usize,
    thresholds: [u64; MAX_ZONES],
    ranges: [(u64, u64); MAX_ZONES],
}

/// Independent draws of blocks from a skewed distribution over `blocks` blocks.
#[derive(Clone, Debug)]
pub struct SkewedDraws {
    law: Law,
    blocks: u64,
    rng: SplitMix64,
    scatter: Permutation,
}

impl SkewedDraws {
    /// Draws over `blocks` blocks (at least one), seeded by `seed`.
    pub fn new(skew: Skew, blocks: u64, seed: u64) -> SkewedDraws {
        let law = match skew {
            Skew::Zipf(theta) => Law::Zipf(
                Zipf::new(blocks as f64, theta.get()).expect("θ > 0 and at least one block"),
            ),
            Skew::Pareto(h) => Law::Pareto(h.get().ln() / (1.0 - h.get()).ln()),
            Skew::Normal(sigma) => Law::Normal(sigma.get() / 100.0 * blocks as f64),
            Skew::Zoned(zones) => {
                let mut thresholds = [u64::MAX; MAX_ZONES];
                let mut ranges = [(0, blocks); MAX_ZONES];
                let (mut access, mut size) = (0u32, 0u32);
                for (i, (share, part)) in zones.iter().enumerate() {
                    access += u32::from(share);
                    let start = (u128::from(size) * u128::from(blocks) / 100) as u64;
                    size += u32::from(part);
                    let end = (u128::from(size) * u128::from(blocks) / 100) as u64;
                    // A zone smaller than a block keeps one, so its I/Os still land.
                    let start = start.min(blocks - 1);
                    ranges[i] = (start, end.max(start + 1));
                    thresholds[i] = if access >= 100 {
                        u64::MAX
                    } else {
                        ((u128::from(access) << 64) / 100) as u64
                    };
                }
                Law::Zoned(Box::new(ZoneTable {
                    count: zones.iter().count(),
                    thresholds,
                    ranges,
                }))
            }
        };
        SkewedDraws {
            law,
            blocks,
            rng: SplitMix64(mix(seed ^ 0x5CE3)),
            scatter: Permutation::new(blocks, mix(seed ^ 0x5CA7)),
        }
    }

    #[inline]
    pub fn next_block(&mut self) -> u64 {
        match &self.law {
            Law::Zoned(table) => {
                let draw = self.rng.next();
                let zone = table.thresholds[..table.count]
                    .iter()
                    .position(|&t| draw < t)
                    .unwrap_or(table.count - 1);
                let (start, end) = table.ranges[zone];
                start + self.rng.below(end - start)
            }
            _ => {
                let rank = self.next_rank();
                self.scatter.apply(rank)
            }
        }
    }

    /// The next rank, 0 the hottest, before scattering (zoned: the block).
    #[inline]
    fn next_rank(&mut self) -> u64 {
        let last = self.blocks - 1;
        match &self.law {
            Law::Zipf(zipf) => (zipf.sample(&mut self.rng) as u64).clamp(1, self.blocks) - 1,
            Law::Pareto(power) => {
                let u = unit(self.rng.next());
                ((self.blocks as f64 * (1.0 - u.powf(*power))) as u64).min(last)
            }
            Law::Normal(sigma) => loop {
                // Cut off at the file's ends: draw again outside it.
                let z: f64 = StandardNormal.sample(&mut self.rng);
                let at = self.blocks as f64 / 2.0 + z * sigma;
                if at >= 0.0 && at < self.blocks as f64 {
                    break (at as u64).min(last);
                }
            },
            Law::Zoned(_) => self.next_block(),
        }
    }
}

/// A uniform draw in [0, 1) from 53 random bits.
#[inline]
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DRAWS: u64 = 1_000_000;

    /// Whether `observed` of [`DRAWS`] lies within five standard errors of
    /// a binomial share `expected`.
    fn within_binomial(observed: u64, expected: f64) -> bool {
        let n = DRAWS as f64;
        let error = (expected * (1.0 - expected) / n).sqrt();
        (observed as f64 / n - expected).abs() <= 5.0 * error
    }

    fn ranks(skew: Skew, blocks: u64, seed: u64) -> impl Iterator<Item = u64> {
        let mut draws = SkewedDraws::new(skew, blocks, seed);
        (0..DRAWS).map(move |_| draws.next_rank())
    }

    fn pattern(text: &str) -> Skew {
        let (name, parameter) = text.split_once(':').unwrap();
        Skew::parse(name, parameter).unwrap().unwrap()
    }

    #[test]
    fn a_zipf_draws_top_percent_has_the_laws_share() {
        let blocks = 10_000u64;
        for theta in [0.8, 1.0, 1.2] {
            let law = |k: u64| (k as f64).powf(-theta);
            let expected =
                (1..=blocks / 100).map(law).sum::<f64>() / (1..=blocks).map(law).sum::<f64>();
            let skew = pattern(&format!("zipf:{theta}"));
            let top = ranks(skew, blocks, 7)
                .filter(|&rank| rank < blocks / 100)
                .count() as u64;
            assert!(
                within_binomial(top, expected),
                "zipf:{theta}: top 1% drew {top} of {DRAWS}, the law says {:.4}",
                expected
            );
        }
    }

    #[test]
    fn pareto_h_sends_h_of_the_ios_to_the_hottest_one_minus_h() {
        let blocks = 100_000u64;
        for h in [0.8, 0.9] {
            let hot = ((1.0 - h) * blocks as f64) as u64;
            let hits = ranks(pattern(&format!("pareto:{h}")), blocks, 3)
                .filter(|&rank| rank < hot)
                .count() as u64;
            assert!(within_binomial(hits, h), "pareto:{h}: {hits} of {DRAWS}");
        }
    }

    #[test]
    fn normal_puts_68_percent_within_one_sigma_of_the_middle() {
        let blocks = 100_000u64;
        let sigma = blocks / 10;
        let inside = ranks(pattern("normal:10"), blocks, 5)
            .filter(|&at| at.abs_diff(blocks / 2) < sigma)
            .count() as u64;
        assert!(within_binomial(inside, 0.682_689), "{inside} of {DRAWS}");
    }

    #[test]
    fn zones_get_their_shares_and_stay_in_place() {
        let blocks = 1000u64;
        let mut draws = SkewedDraws::new(pattern("zoned:60/10:30/20:10/70"), blocks, 9);
        let mut per_zone = [0u64; 3];
        for _ in 0..DRAWS {
            let block = draws.next_block();
            per_zone[match block {
                0..100 => 0,
                100..300 => 1,
                _ => 2,
            }] += 1;
        }
        for (observed, expected) in per_zone.into_iter().zip([0.6, 0.3, 0.1]) {
            assert!(within_binomial(observed, expected), "{per_zone:?}");
        }
    }

    #[test]
    fn draws_stay_in_the_file_and_scatter_the_hot_blocks() {
        for text in ["zipf:1.2", "pareto:0.9", "normal:50", "zoned:90/1:10/99"] {
            for blocks in [1, 2, 3, 97, 4096] {
                let mut draws = SkewedDraws::new(pattern(text), blocks, 11);
                for _ in 0..2000 {
                    assert!(draws.next_block() < blocks, "{text} over {blocks}");
                }
            }
        }
        // The hottest zipf rank is not block 0: the permutation scatters it.
        let mut draws = SkewedDraws::new(pattern("zipf:3"), 1 << 20, 1);
        let hottest = draws.scatter.apply(0);
        assert_ne!(hottest, 0);
        assert!((0..100).filter(|_| draws.next_block() == hottest).count() > 50);
    }

    #[test]
    fn parameters_print_as_written_and_bad_ones_are_named() {
        for text in [
            "zipf:1.2",
            "zipf:0.005",
            "pareto:0.9",
            "normal:12.5",
            "zoned:60/10:30/20:10/70",
        ] {
            assert_eq!(pattern(text).to_string(), text);
        }
        assert_eq!(
            pattern("zoned:60/10,40/90").to_string(),
            "zoned:60/10:40/90"
        );
        assert_eq!(pattern("normal:10%").to_string(), "normal:10");
        for (name, bad) in [
            ("zipf", "0"),
            ("zipf", "1.2345"),
            ("zipf", "-1"),
            ("zipf", "11"),
            ("zipf", "nan"),
            ("pareto", "1"),
            ("pareto", "0"),
            ("normal", "0"),
            ("normal", "101"),
            ("zipf", ""),
            ("zipf", "."),
            ("zoned", "60/10:30/20"),
            ("zoned", "60/10:40/0:0/90"),
            ("zoned", "x"),
            ("zoned", "150/100"),
        ] {
            let error = Skew::parse(name, bad).unwrap().unwrap_err();
            assert!(error.contains(&format!("{name}:{bad}")), "{error}");
        }
        assert!(Skew::parse("sideways", "1").is_none());
    }
}
