//! When each I/O is meant to start (`--rate`, `--rate-iops`, `--arrivals`, `--think`): the arrival law, think time, and the seeded gaps between intended issue times.
//!
//! A rate turns a job from "as fast as it goes" into an open system: I/O k
//! is due at `start + gap₁ + … + gapₖ`, whatever happened to I/O k − 1.
//! Uniform arrivals space the gaps evenly (fio's `rate_process=linear`),
//! Poisson arrivals draw them from an exponential law of the same mean
//! (`rate_process=poisson`). Think time is the other way round: a pause
//! after every N completions (fio's `thinktime`, `thinktime_blocks`).

use super::units::{format_duration_ns, parse_duration};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// How the gaps between intended issue times are drawn.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Arrivals {
    /// Every gap the same: 1/rate (fio's `rate_process=linear`).
    #[default]
    Uniform,
    /// Exponential gaps of mean 1/rate: a Poisson process, as independent
    /// clients arrive (fio's `rate_process=poisson`).
    Poisson,
}

impl Arrivals {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Arrivals::Uniform => "uniform",
            Arrivals::Poisson => "poisson",
        }
    }

    /// Whether this is the default.
    pub fn is_uniform(&self) -> bool {
        *self == Arrivals::Uniform
    }
}

/// A pause after every `every` completed I/Os, outside every latency
/// (`--think 100us:every=8`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThinkTime {
    /// The pause, ns (1 ns to 1 hour).
    pub ns: u64,
    /// I/Os between pauses (fio's `thinktime_blocks`; 1 = after each).
    pub every: u32,
}

/// The longest think time taken: an hour.
const MAX_THINK_NS: u64 = 3_600_000_000_000;

impl fmt::Display for ThinkTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_duration_ns(self.ns))?;
        if self.every != 1 {
            write!(f, ":every={}", self.every)?;
        }
        Ok(())
    }
}

impl FromStr for ThinkTime {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (pause, every) = match text.split_once(':') {
            Some((pause, rest)) => {
                let count = rest.strip_prefix("every=").ok_or_else(|| {
                    format!("think time '{text}' is not DURATION or DURATION:every=N")
                })?;
                let every = count
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| format!("'every={count}' is not a count of 1 or more"))?;
                (pause, every)
            }
            None => (text, 1),
        };
        let ns = parse_duration(pause)?.as_nanos();
        if ns == 0 || ns > u128::from(MAX_THINK_NS) {
            return Err(format!(
                "think time '{pause}' is not between 1 ns and 1 hour"
            ));
        }
        Ok(ThinkTime {
            ns: ns as u64,
            every,
        })
    }
}

impl Serialize for ThinkTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ThinkTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A share of fio's flow control (`--flow 2`, `--flow 8:id=1:sleep=1ms`):
/// jobs of one flow id keep their I/O counts in the ratio of their
/// weights — before each I/O a job whose share of the flow's I/Os is above
/// its share of the weights waits, `sleep` or until the others catch up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Flow {
    /// The job's weight (fio's `flow`, 1 to [`MAX_FLOW_WEIGHT`]).
    pub weight: u32,
    /// Which flow the job counts in (fio's `flow_id`).
    pub id: u32,
    /// How long a held-back job waits before it looks again, ns (fio's
    /// `flow_sleep`); 0: it looks again at once.
    pub sleep_ns: u64,
}

/// fio's largest flow weight (`FLOW_MAX_WEIGHT`).
pub const MAX_FLOW_WEIGHT: u32 = 1000;

impl fmt::Display for Flow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.weight)?;
        if self.id != 0 {
            write!(f, ":id={}", self.id)?;
        }
        if self.sleep_ns != 0 {
            write!(f, ":sleep={}", format_duration_ns(self.sleep_ns))?;
        }
        Ok(())
    }
}

impl FromStr for Flow {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parts = text.split(':');
        let weight = parts
            .next()
            .and_then(|w| w.parse::<u32>().ok())
            .filter(|w| (1..=MAX_FLOW_WEIGHT).contains(w))
            .ok_or_else(|| {
                format!("flow '{text}' is not WEIGHT[:id=N][:sleep=DURATION], the weight 1 to {MAX_FLOW_WEIGHT}")
            })?;
        let mut flow = Flow {
            weight,
            id: 0,
            sleep_ns: 0,
        };
        for part in parts {
            if let Some(id) = part.strip_prefix("id=") {
                flow.id = id
                    .parse()
                    .map_err(|_| format!("flow id '{id}' is not a count"))?;
            } else if let Some(sleep) = part.strip_prefix("sleep=") {
                let ns = parse_duration(sleep)?.as_nanos();
                if ns > u128::from(MAX_THINK_NS) {
                    return Err(format!("flow sleep '{sleep}' is longer than an hour"));
                }
                flow.sleep_ns = ns as u64;
            } else {
                return Err(format!(
                    "flow '{text}': '{part}' is neither id=N nor sleep=DURATION"
                ));
            }
        }
        Ok(flow)
    }
}

impl Serialize for Flow {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Flow {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// How one job's I/Os are paced: a rate (and its arrival law), think
/// time, both, or neither.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pace {
    /// I/Os per second in all; `None`: as fast as they go.
    pub iops: Option<f64>,
    /// I/Os per second of each direction (by [`Direction::index`](crate::engine::Direction::index))
    /// when each has its own schedule; `None`: one schedule for the job.
    pub per_direction: Option<[Option<f64>; 3]>,
    /// How the gaps of the rate are drawn.
    pub arrivals: Arrivals,
    /// The pause after every N completions.
    pub think: Option<ThinkTime>,
    /// The job's share of a flow.
    pub flow: Option<Flow>,
}

impl Pace {
    /// No pacing at all: the loops take their unpaced form.
    pub const NONE: Pace = Pace {
        iops: None,
        per_direction: None,
        arrivals: Arrivals::Uniform,
        think: None,
        flow: None,
    };

    /// Whether anything paces the I/Os.
    pub fn paces(&self) -> bool {
        self.iops.is_some() || self.think.is_some() || self.flow.is_some()
    }
}

/// The most I/Os per second a rate may ask of one job: one per nanosecond.
pub const MAX_RATE_IOPS: u64 = 1_000_000_000;

/// The intended issue times of one job's I/Os, ns after the schedule's
/// start: exact sums for uniform arrivals (no drift over any run), seeded
/// exponential draws for Poisson ones.
#[derive(Clone, Debug)]
pub struct Schedule {
    arrivals: Arrivals,
    /// Nanoseconds per I/O, times 2³² (a fixed-point mean gap).
    gap_fixed: u128,
    issued: u64,
    /// Poisson: the sum of the gaps drawn so far, ns.
    drawn: f64,
    state: u64,
}

impl Schedule {
    /// A schedule of `iops` I/Os per second (at least 1), seeded.
    pub fn new(iops_per_second: f64, arrivals: Arrivals, seed: u64) -> Schedule {
        let gap_ns = 1e9 / iops_per_second.max(1e-9);
        let state = seed ^ 0x9ACE_D0FF_5EED_1234;
        Schedule {
            arrivals,
            gap_fixed: (gap_ns * 4_294_967_296.0) as u128,
            issued: 0,
            drawn: 0.0,
            state: if state == 0 { 1 } else { state },
        }
    }

    /// When the next I/O is due, ns after the start; advances the schedule.
    #[inline]
    #[allow(clippy::should_implement_trait)] // an endless draw, not an Iterator
    pub fn next(&mut self) -> u64 {
        self.issued += 1;
        match self.arrivals {
            // I/O k (from 0) is due at k gaps: the first at once.
            Arrivals::Uniform => ((u128::from(self.issued - 1) * self.gap_fixed) >> 32) as u64,
            Arrivals::Poisson => {
                let due = self.drawn;
                let x = super::draw::xorshift64(&mut self.state);
                // An exponential gap by inversion; `unit` is in (0, 1].
                let unit = ((x >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64);
                self.drawn += -unit.ln() * (self.gap_fixed as f64 / 4_294_967_296.0);
                due as u64
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_times_read_back_and_refuse_nonsense() {
        for text in ["100us", "2ms:every=8", "1s"] {
            let think: ThinkTime = text.parse().unwrap();
            assert_eq!(think.to_string(), text);
        }
        assert_eq!(
            "100us:every=4".parse::<ThinkTime>(),
            Ok(ThinkTime {
                ns: 100_000,
                every: 4
            })
        );
        for bad in ["0s", "2h", "1ms:every=0", "1ms:each=2", "fast", "-1ms"] {
            assert!(bad.parse::<ThinkTime>().is_err(), "{bad}");
        }
    }

    #[test]
    fn uniform_arrivals_keep_the_rate_exactly() {
        let mut schedule = Schedule::new(3000.0, Arrivals::Uniform, 1);
        let due: Vec<u64> = (0..3001).map(|_| schedule.next()).collect();
        assert_eq!(due[0], 0);
        assert_eq!(due[1], 333_333);
        // The 3000th gap ends at one second, not 3000 rounded gaps.
        assert!(due[3000].abs_diff(1_000_000_000) <= 1, "{}", due[3000]);
    }

    /// Poisson gaps: mean 1/rate, and as many under the mean as an
    /// exponential law puts there (1 − 1/e of them).
    #[test]
    fn poisson_arrivals_have_exponential_gaps() {
        let mut schedule = Schedule::new(10_000.0, Arrivals::Poisson, 7);
        let n = 200_000u64;
        let due: Vec<u64> = (0..=n).map(|_| schedule.next()).collect();
        let mean = due[n as usize] as f64 / n as f64;
        assert!((mean - 100_000.0).abs() < 1_000.0, "mean gap {mean} ns");
        let short = due.windows(2).filter(|w| w[1] - w[0] < 100_000).count() as f64;
        let expected = 1.0 - (-1.0f64).exp();
        assert!(
            (short / n as f64 - expected).abs() < 0.005,
            "{}",
            short / n as f64
        );
    }
}
