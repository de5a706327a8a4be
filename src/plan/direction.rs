//! The direction of each I/O, read or write: which directions a workload
//! issues, in what shares, and the per-I/O draw the timing loop takes them from.
//!
//! Today every op issues one direction (reads, or writes); the loop already
//! asks for the direction of every I/O, so a read/write mix is a new share
//! here, not a change to the loop or the record.

use serde::{Deserialize, Serialize};

/// Whether one I/O reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Moves data from the target.
    Read = 0,
    /// Moves data to the target.
    Write = 1,
}

impl Direction {
    /// Both directions, in index order.
    pub const ALL: [Direction; 2] = [Direction::Read, Direction::Write];

    /// Its position in per-direction arrays (read 0, write 1).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// "read" or "write".
    pub const fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }
}

/// The share of writes among a job's I/Os, in whole percent: 0 reads only,
/// 100 writes only, anything between a mix drawn per I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirectionMix {
    write_percent: u8,
}

impl DirectionMix {
    /// Every I/O in `direction`.
    pub const fn only(direction: Direction) -> DirectionMix {
        DirectionMix {
            write_percent: match direction {
                Direction::Read => 0,
                Direction::Write => 100,
            },
        }
    }

    /// `percent` of the I/Os write, the rest read; `None` above 100.
    pub const fn with_write_percent(percent: u8) -> Option<DirectionMix> {
        if percent > 100 {
            None
        } else {
            Some(DirectionMix {
                write_percent: percent,
            })
        }
    }

    /// Whether any I/O writes.
    pub const fn writes(self) -> bool {
        self.write_percent > 0
    }

    /// Whether any I/O reads.
    pub const fn reads(self) -> bool {
        self.write_percent < 100
    }

    /// Whether both directions occur.
    pub const fn mixed(self) -> bool {
        self.reads() && self.writes()
    }

    /// The one direction of an unmixed share.
    pub const fn sole(self) -> Option<Direction> {
        match self.write_percent {
            0 => Some(Direction::Read),
            100 => Some(Direction::Write),
            _ => None,
        }
    }

    /// The per-I/O draw of a job whose data seed is `seed`.
    pub const fn draws(self, seed: u64) -> DirectionDraws {
        DirectionDraws {
            write_percent: self.write_percent as u64,
            // Apart from the seed's use for offsets and data.
            state: seed ^ 0xD1B5_4A32_D192_ED03,
        }
    }
}

/// The directions of one job's I/Os, one per call to [`DirectionDraws::next`]:
/// a constant for an unmixed share (no draw at all), otherwise a SplitMix64
/// draw against the write share.
#[derive(Clone, Debug)]
pub struct DirectionDraws {
    write_percent: u64,
    state: u64,
}

impl DirectionDraws {
    /// The direction of the next I/O.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)] // an endless draw, not an Iterator
    pub fn next(&mut self) -> Direction {
        match self.write_percent {
            0 => Direction::Read,
            100 => Direction::Write,
            share => {
                self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = self.state;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                // The high bits, scaled to 0..100 without a division.
                if ((z >> 32) * 100) >> 32 < share {
                    Direction::Write
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
