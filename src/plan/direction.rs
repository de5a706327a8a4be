//! The direction of each I/O, read, write or trim: which directions a workload
//! issues, in what shares, and the per-I/O draw the timing loop takes them from.
//!
//! Every op but `mix` issues one direction; `--op mix --mix read=70,write=30`
//! (fio's `randrw` with `rwmixread=70`) draws each I/O's direction from its
//! share, and the loop and the record keep each direction's figures apart.

use serde::{Deserialize, Serialize};

pub use crate::engine::Direction;

/// The shares of a job's I/Os by direction, in whole percents adding up to
/// 100: one direction at 100, or a mix drawn per I/O. Written
/// `read=70,write=30` or `read=60,write=30,trim=10` (or with `+` between the
/// shares, as a sweep's values are separated by commas).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DirectionMix {
    /// Percent of the I/Os in each direction, by [`Direction::index`].
    shares: [u8; 3],
}

impl Default for DirectionMix {
    fn default() -> Self {
        DirectionMix::only(Direction::Read)
    }
}

impl DirectionMix {
    /// `op trimwrite`'s: half the I/Os trims, half writes, each write
    /// following the trim of its range.
    pub const TRIM_THEN_WRITE: DirectionMix = DirectionMix {
        shares: [0, 50, 50],
    };

    /// Every I/O in `direction`.
    pub const fn only(direction: Direction) -> DirectionMix {
        let mut shares = [0; 3];
        shares[direction.index()] = 100;
        DirectionMix { shares }
    }

    /// `percent` of the I/Os write, the rest read; `None` above 100.
    pub const fn with_write_percent(percent: u8) -> Option<DirectionMix> {
        if percent > 100 {
            None
        } else {
            Some(DirectionMix {
                shares: [100 - percent, percent, 0],
            })
        }
    }

    /// The percent of I/Os in `direction`.
    pub const fn percent(self, direction: Direction) -> u8 {
        self.shares[direction.index()]
    }

    /// The percent of I/Os that write.
    pub const fn write_percent(self) -> u8 {
        self.percent(Direction::Write)
    }

    /// The percent of I/Os that read.
    pub const fn read_percent(self) -> u8 {
        self.percent(Direction::Read)
    }

    /// The directions `self` or `other` takes, in even shares: which
    /// directions several workloads take together (a point of groups),
    /// not in what proportion, which their counts tell.
    pub fn either(self, other: DirectionMix) -> DirectionMix {
        let taken: Vec<usize> = (0..3)
            .filter(|&i| self.shares[i] > 0 || other.shares[i] > 0)
            .collect();
        let mut shares = [0u8; 3];
        let each = 100 / taken.len().max(1) as u8;
        for (n, &i) in taken.iter().enumerate() {
            shares[i] = each
                + if n == 0 {
                    100 - each * taken.len() as u8
                } else {
                    0
                };
        }
        DirectionMix { shares }
    }

    /// Whether any I/O goes in `direction`.
    pub const fn takes(self, direction: Direction) -> bool {
        self.percent(direction) > 0
    }

    /// Whether any I/O writes.
    pub const fn writes(self) -> bool {
        self.takes(Direction::Write)
    }

    /// Whether any I/O reads.
    pub const fn reads(self) -> bool {
        self.takes(Direction::Read)
    }

    /// Whether any I/O trims.
    pub const fn trims(self) -> bool {
        self.takes(Direction::Trim)
    }

    /// Whether any I/O changes the target (writes or trims): what a final
    /// flush and `--fsync-end` make durable.
    pub const fn modifies(self) -> bool {
        self.writes() || self.trims()
    }

    /// How many directions its I/Os take.
    pub const fn taken(self) -> usize {
        self.reads() as usize + self.writes() as usize + self.trims() as usize
    }

    /// Whether more than one direction occurs.
    pub const fn mixed(self) -> bool {
        self.taken() > 1
    }

    /// The one direction of an unmixed share.
    pub const fn sole(self) -> Option<Direction> {
        match self.shares {
            [100, _, _] => Some(Direction::Read),
            [_, 100, _] => Some(Direction::Write),
            [_, _, 100] => Some(Direction::Trim),
            _ => None,
        }
    }

    /// The per-I/O draw of a job whose data seed is `seed`.
    pub fn draws(self, seed: u64) -> DirectionDraws {
        // Apart from the seed's use for offsets and data; xorshift needs a
        // nonzero state.
        let state = seed ^ 0xD1B5_4A32_D192_ED03;
        let [_, write, trim] = self.shares;
        // A write when the draw is below write/100 of the u64 range, a trim
        // below (write + trim)/100, else a read.
        // 100 percent is the whole range: every draw below u64::MAX, and
        // `reads` false makes the last value too not a read.
        let below =
            |percent: u8| (((percent as u128) << 64).div_ceil(100)).min(u64::MAX as u128) as u64;
        DirectionDraws {
            sole: match self.sole() {
                Some(direction) => direction.index() as u8,
                None => DRAWN,
            },
            write_below: below(write),
            trim_below: below(write + trim),
            reads: self.reads(),
            state: if state == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                state
            },
        }
    }
}

impl std::str::FromStr for DirectionMix {
    type Err = String;

    /// `read=70,write=30`, `read=70+write=20+trim=10`, `write=100`: each
    /// direction at most once, whole percents adding up to 100 (`rewrite`
    /// is accepted for `write`: a mix overwrites a laid-out file).
    fn from_str(text: &str) -> Result<DirectionMix, String> {
        let mut shares: [Option<u8>; 3] = [None; 3];
        for item in text.split([',', '+']) {
            let item = item.trim();
            let Some((name, percent)) = item.split_once('=') else {
                return Err(format!(
                    "'{item}' is not a share: write read=PERCENT,write=PERCENT[,trim=PERCENT]"
                ));
            };
            let direction = match name.trim().to_ascii_lowercase().as_str() {
                "read" => Direction::Read,
                "write" | "rewrite" => Direction::Write,
                "trim" => Direction::Trim,
                other => {
                    return Err(format!(
                        "'{other}' is not a direction of a mix: read, write or trim"
                    ));
                }
            };
            let percent = percent
                .trim()
                .trim_end_matches('%')
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= 100)
                .ok_or_else(|| format!("'{item}': a share is a whole percent from 0 to 100"))?;
            if shares[direction.index()].replace(percent).is_some() {
                return Err(format!(
                    "'{text}' gives the {} share twice",
                    direction.name()
                ));
            }
        }
        let shares = shares.map(|share| share.unwrap_or(0));
        let total: u32 = shares.iter().map(|&share| u32::from(share)).sum();
        if total != 100 {
            return Err(format!(
                "the shares of '{text}' add up to {total}%, not 100%"
            ));
        }
        Ok(DirectionMix { shares })
    }
}

impl std::fmt::Display for DirectionMix {
    /// `read=70,write=30`; a direction with no share is left out.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for direction in Direction::ALL {
            if self.takes(direction) {
                if !first {
                    f.write_str(",")?;
                }
                write!(f, "{}={}", direction.name(), self.percent(direction))?;
                first = false;
            }
        }
        Ok(())
    }
}

impl TryFrom<String> for DirectionMix {
    type Error = String;
    fn try_from(text: String) -> Result<DirectionMix, String> {
        text.parse()
    }
}

impl From<DirectionMix> for String {
    fn from(mix: DirectionMix) -> String {
        mix.to_string()
    }
}

/// [`DirectionDraws`]'s mark of a mix, whose directions are drawn.
const DRAWN: u8 = u8::MAX;

/// The directions of one job's I/Os, one per call to [`DirectionDraws::next`]:
/// a constant for an unmixed share (no draw at all), otherwise an xorshift64
/// draw (Marsaglia 2003: three shifts and three XORs, no multiply) compared
/// with the cumulative thresholds of the write and trim shares.
#[derive(Clone, Debug)]
pub struct DirectionDraws {
    sole: u8,
    write_below: u64,
    trim_below: u64,
    /// Whether any share reads: without, a draw at or past `trim_below`
    /// (only u64::MAX can be) is a trim.
    reads: bool,
    state: u64,
}

impl DirectionDraws {
    /// The direction of the next I/O.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)] // an endless draw, not an Iterator
    pub fn next(&mut self) -> Direction {
        match self.sole {
            0 => Direction::Read,
            1 => Direction::Write,
            2 => Direction::Trim,
            _ => {
                let x = super::draw::xorshift64(&mut self.state);
                if x < self.write_below {
                    Direction::Write
                } else if x < self.trim_below || !self.reads {
                    Direction::Trim
                } else {
                    Direction::Read
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmixed_shares_give_one_direction() {
        let mut reads = DirectionMix::only(Direction::Read).draws(1);
        let mut writes = DirectionMix::only(Direction::Write).draws(1);
        assert!((0..1000).all(|_| reads.next() == Direction::Read));
        assert!((0..1000).all(|_| writes.next() == Direction::Write));
        assert_eq!(
            DirectionMix::only(Direction::Write).sole(),
            Some(Direction::Write)
        );
        assert!(!DirectionMix::only(Direction::Read).mixed());
        assert!(DirectionMix::with_write_percent(101).is_none());
    }

    /// A mix without reads draws none: its trims' threshold is the whole
    /// range (it wrapped to 0, and every draw past the writes' was a read).
    #[test]
    fn a_mix_of_writes_and_trims_draws_no_read() {
        for mix in ["write=50,trim=50", "write=1,trim=99", "read=1,trim=99"] {
            let shares: DirectionMix = mix.parse().unwrap();
            let mut draws = shares.draws(7);
            let mut counts = [0u32; 3];
            for _ in 0..10_000 {
                counts[draws.next().index()] += 1;
            }
            for direction in Direction::ALL {
                let expected = f64::from(shares.percent(direction)) * 100.0;
                let got = f64::from(counts[direction.index()]);
                assert!(
                    (got - expected).abs() <= 300.0,
                    "{mix}: {got} {direction:?}, {expected} expected"
                );
            }
        }
    }

    #[test]
    fn mixes_are_written_as_shares_adding_up_to_100() {
        let mix: DirectionMix = "read=70,write=30".parse().unwrap();
        assert_eq!((mix.read_percent(), mix.write_percent()), (70, 30));
        assert_eq!(mix.to_string(), "read=70,write=30");
        assert_eq!("write=30+read=70".parse::<DirectionMix>(), Ok(mix));
        assert_eq!("READ=70, rewrite=30%".parse::<DirectionMix>(), Ok(mix));
        assert_eq!(
            "read=100".parse::<DirectionMix>().unwrap().to_string(),
            "read=100"
        );
        for bad in [
            "read=70",
            "read=70,write=40",
            "read=70,read=30",
            "trim=10,read=80",
            "erase=10,read=90",
            "read=-1,write=101",
            "read70",
            "",
        ] {
            assert!(bad.parse::<DirectionMix>().is_err(), "{bad} accepted");
        }
        let json = serde_json::to_string(&mix).unwrap();
        assert_eq!(json, "\"read=70,write=30\"");
        assert_eq!(serde_json::from_str::<DirectionMix>(&json).unwrap(), mix);
        assert!(serde_json::from_str::<DirectionMix>("\"read=7\"").is_err());
    }

    #[test]
    fn a_three_way_mix_draws_each_share_within_binomial_bounds() {
        let mix: DirectionMix = "read=60,write=30,trim=10".parse().unwrap();
        assert_eq!(mix.to_string(), "read=60,write=30,trim=10");
        assert!(mix.mixed() && mix.modifies() && mix.taken() == 3);
        assert_eq!(
            "trim=100".parse::<DirectionMix>().unwrap().sole(),
            Some(Direction::Trim)
        );
        assert_eq!(
            "read=90,trim=10"
                .parse::<DirectionMix>()
                .unwrap()
                .to_string(),
            "read=90,trim=10"
        );
        let n = 300_000u64;
        let mut counts = [0u64; 3];
        let mut draws = mix.draws(5);
        for _ in 0..n {
            counts[draws.next().index()] += 1;
        }
        for (count, share) in counts.into_iter().zip([0.6, 0.3, 0.1]) {
            let sd = (n as f64 * share * (1.0 - share)).sqrt();
            assert!(
                (count as f64 - share * n as f64).abs() < 5.0 * sd,
                "{counts:?}"
            );
        }
    }

    #[test]
    fn a_mix_draws_its_share_within_binomial_bounds_and_repeats_by_seed() {
        let mix = DirectionMix::with_write_percent(30).unwrap();
        assert!(mix.mixed() && mix.sole().is_none());
        let n = 200_000u64;
        let mut draws = mix.draws(42);
        let writes = (0..n).filter(|_| draws.next() == Direction::Write).count() as f64;
        // 5 standard deviations of a binomial(n, 0.3).
        let sd = (n as f64 * 0.3 * 0.7).sqrt();
        assert!(
            (writes - 0.3 * n as f64).abs() < 5.0 * sd,
            "{writes} writes"
        );
        let first: Vec<_> = (0..64)
            .map({
                let mut d = mix.draws(7);
                move |_| d.next()
            })
            .collect();
        let again: Vec<_> = (0..64)
            .map({
                let mut d = mix.draws(7);
                move |_| d.next()
            })
            .collect();
        assert_eq!(first, again, "the same seed draws the same directions");
    }
}
