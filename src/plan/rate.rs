//! The rate asked of a job (`--rate`, `--rate-iops`): one figure for all its I/Os, or one per direction, as fio's `rate=R,W` gives.
//!
//! One figure paces the job as a whole: its I/Os arrive on one schedule and
//! a mix's draw decides each one's direction. One figure per direction
//! (`read=700+write=300`) makes each direction its own stream of arrivals,
//! as fio does: the rates then set the shares of the mix, so the mix they
//! imply is the job's (and a `--mix` given beside them must agree).

use super::direction::{Direction, DirectionMix};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A rate for each direction of a job, in bytes per second (`--rate`) or
/// I/Os per second (`--rate-iops`); each direction named is paced on its
/// own schedule. Written `read=50m+write=10m` (or with commas between the
/// directions, where no sweep separates values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionRates {
    /// Reads' rate; absent: the job does not read.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub read: Option<u64>,
    /// Writes' rate; absent: the job does not write.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub write: Option<u64>,
    /// Trims' rate; absent: the job does not trim.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub trim: Option<u64>,
}

impl DirectionRates {
    /// The rate of `direction`, when it has one.
    pub fn of(self, direction: Direction) -> Option<u64> {
        match direction {
            Direction::Read => self.read,
            Direction::Write => self.write,
            Direction::Trim => self.trim,
        }
    }

    /// Sets the rate of `direction`; returns the one it replaces.
    pub fn set(&mut self, direction: Direction, rate: u64) -> Option<u64> {
        let slot = match direction {
            Direction::Read => &mut self.read,
            Direction::Write => &mut self.write,
            Direction::Trim => &mut self.trim,
        };
        slot.replace(rate)
    }

    /// The directions with a rate, in index order, with their rates.
    pub fn named(self) -> impl Iterator<Item = (Direction, u64)> {
        Direction::ALL
            .into_iter()
            .filter_map(move |direction| self.of(direction).map(|rate| (direction, rate)))
    }

    /// The rates added up: the job's rate in all.
    pub fn total(self) -> u64 {
        self.named()
            .fold(0u64, |sum, (_, rate)| sum.saturating_add(rate))
    }

    /// The shares of the job's I/Os these rates give each direction, in
    /// whole percents adding up to 100 (largest remainders), each direction
    /// named at least 1%: the mix the job runs. `None` when a rate is zero
    /// or no direction is named.
    pub fn implied_mix(self) -> Option<DirectionMix> {
        let total = self.total() as f64;
        if total == 0.0 || self.named().any(|(_, rate)| rate == 0) {
            return None;
        }
        let exact: Vec<(Direction, f64)> = self
            .named()
            .map(|(direction, rate)| (direction, rate as f64 * 100.0 / total))
            .collect();
        let mut shares: Vec<(Direction, u8)> = exact
            .iter()
            .map(|&(direction, share)| (direction, (share.floor() as u8).max(1)))
            .collect();
        // Largest remainders take what the floors left; a direction raised
        // to 1% is paid for by the largest share.
        let mut order: Vec<usize> = (0..exact.len()).collect();
        order.sort_by(|&a, &b| {
            let remainder = |i: usize| exact[i].1 - exact[i].1.floor();
            remainder(b).total_cmp(&remainder(a))
        });
        let mut sum: u32 = shares.iter().map(|s| u32::from(s.1)).sum();
        // The floors lose less than 1% each: fewer than one per direction.
        for &i in order.iter().take(100u32.saturating_sub(sum) as usize) {
            shares[i].1 += 1;
            sum += 1;
        }
        while sum > 100 {
            let largest = (0..shares.len()).max_by_key(|&i| shares[i].1)?;
            shares[largest].1 -= 1;
            sum -= 1;
        }
        let text: Vec<String> = shares
            .iter()
            .map(|(direction, share)| format!("{}={share}", direction.name()))
            .collect();
        text.join(",").parse().ok()
    }

    /// Parses `read=50m+write=10m` (or `,` between the directions), each
    /// rate read by `one`.
    pub fn parse(text: &str, one: impl Fn(&str) -> Result<u64, String>) -> Result<Self, String> {
        let mut rates = DirectionRates::default();
        for item in text.split([',', '+']) {
            let item = item.trim();
            let Some((name, value)) = item.split_once('=') else {
                return Err(format!(
                    "'{item}' is not a direction's rate: write read=RATE+write=RATE"
                ));
            };
            let direction = match name.trim().to_ascii_lowercase().as_str() {
                "read" => Direction::Read,
                "write" => Direction::Write,
                "trim" => Direction::Trim,
                other => {
                    return Err(format!("'{other}' is not a direction: read, write or trim"));
                }
            };
            let rate = one(value.trim())?;
            if rate == 0 {
                return Err(format!("'{item}': a rate of 0"));
            }
            if rates.set(direction, rate).is_some() {
                return Err(format!(
                    "'{text}' gives the {} rate twice",
                    direction.name()
                ));
            }
        }
        Ok(rates)
    }

    /// Writes them as [`DirectionRates::parse`] reads them, each rate by `one`.
    pub fn format(self, one: impl Fn(u64) -> String) -> String {
        let parts: Vec<String> = self
            .named()
            .map(|(direction, rate)| format!("{}={}", direction.name(), one(rate)))
            .collect();
        parts.join("+")
    }
}

/// The rate asked of each job: one figure, or one per direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Rate {
    /// One rate for all the job's I/Os, whatever their direction.
    Job(u64),
    /// A rate per direction, each direction on its own schedule.
    Directions(DirectionRates),
}

impl Rate {
    /// The job's rate in all (per-direction rates added up).
    pub fn total(self) -> u64 {
        match self {
            Rate::Job(rate) => rate,
            Rate::Directions(rates) => rates.total(),
        }
    }

    /// Writes it with `one` for each figure.
    pub fn format(self, one: impl Fn(u64) -> String) -> String {
        match self {
            Rate::Job(rate) => one(rate),
            Rate::Directions(rates) => rates.format(one),
        }
    }
}

impl fmt::Display for DirectionRates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.format(|rate| rate.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(text: &str) -> Result<u64, String> {
        text.parse().map_err(|_| format!("'{text}' is not a count"))
    }

    #[test]
    fn per_direction_rates_read_back_and_refuse_nonsense() {
        let rates = DirectionRates::parse("read=700,write=300", count).unwrap();
        assert_eq!(
            (rates.read, rates.write, rates.trim),
            (Some(700), Some(300), None)
        );
        assert_eq!(rates.to_string(), "read=700+write=300");
        assert_eq!(DirectionRates::parse(&rates.to_string(), count), Ok(rates));
        for bad in [
            "read=0",
            "read=1,read=2",
            "reads=5",
            "700",
            "read=fast",
            "read=5+",
        ] {
            assert!(DirectionRates::parse(bad, count).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_rates_imply_whole_shares_of_a_mix() {
        let mix = |text: &str| {
            DirectionRates::parse(text, count)
                .unwrap()
                .implied_mix()
                .map(|mix| mix.to_string())
        };
        assert_eq!(
            mix("read=700+write=300").as_deref(),
            Some("read=70,write=30")
        );
        assert_eq!(mix("read=1+write=2").as_deref(), Some("read=33,write=67"));
        assert_eq!(
            mix("read=1+write=1+trim=1").as_deref(),
            Some("read=34,write=33,trim=33")
        );
        // A direction named is never rounded away.
        assert_eq!(
            mix("read=100000+write=1").as_deref(),
            Some("read=99,write=1")
        );
        assert_eq!(mix("write=5").as_deref(), Some("write=100"));
    }

    #[test]
    fn a_job_rate_is_a_number_and_per_direction_rates_an_object_in_files() {
        assert_eq!(serde_json::to_string(&Rate::Job(5)).unwrap(), "5");
        let rates = Rate::Directions(DirectionRates::parse("read=7+trim=3", count).unwrap());
        let text = serde_json::to_string(&rates).unwrap();
        assert_eq!(text, r#"{"read":7,"trim":3}"#);
        assert_eq!(serde_json::from_str::<Rate>(&text).unwrap(), rates);
        assert!(serde_json::from_str::<Rate>(r#"{"reads":7}"#).is_err());
    }
}
