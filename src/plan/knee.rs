//! The latency target of a knee search (`--knee p99<=2ms`) and the choice of the knee: the highest IOPS whose latency percentile stays under the target.
//!
//! A sweep over queue depth, rate or jobs traces a curve of IOPS against
//! tail latency: IOPS rise with the load until the device saturates, then
//! only latency does. The knee is the last point before the target is
//! crossed (fio's `latency_target` searches queue depth the same way;
//! vdbench's `iorate=curve` sweeps the rate).

use super::Workload;
use super::param::{Operand, Param};
use super::units::{format_duration_ns, parse_duration};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The percentiles a target may name: those every latency summary records
/// (`record::histogram::PERCENTILES`, which a test there holds equal).
pub const PERCENTILES: [f64; 11] = [
    1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99,
];

/// A latency percentile and its upper bound.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct KneeTarget {
    /// The percentile, one of [`PERCENTILES`].
    pub percentile: f64,
    /// Its largest acceptable value, ns.
    pub limit_ns: u64,
}

impl FromStr for KneeTarget {
    type Err = String;

    /// `p99<=2ms`, `p99.9<=500us` (`<` and `=` are read as `<=`).
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("'{text}' is not a latency target such as p99<=2ms or p99.9<=500us");
        let rest = text.trim().strip_prefix('p').ok_or_else(bad)?;
        let at = rest.find(['<', '=']).ok_or_else(bad)?;
        let (percentile, limit) = rest.split_at(at);
        let limit = limit.trim_start_matches(['<', '=']);
        let percentile: f64 = percentile.parse().map_err(|_| bad())?;
        if !PERCENTILES.contains(&percentile) {
            return Err(format!(
                "'{text}': p{percentile} is not recorded; use p50, p90, p95, p99, p99.9 or p99.99"
            ));
        }
        let limit_ns = parse_duration(limit)?.as_nanos();
        if limit_ns == 0 || limit_ns > u128::from(u64::MAX) {
            return Err(format!("'{text}': the limit must be longer than zero"));
        }
        Ok(KneeTarget {
            percentile,
            limit_ns: limit_ns as u64,
        })
    }
}

impl fmt::Display for KneeTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "p{}<={}",
            self.percentile,
            format_duration_ns(self.limit_ns)
        )
    }
}

impl TryFrom<String> for KneeTarget {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<KneeTarget> for String {
    fn from(target: KneeTarget) -> String {
        target.to_string()
    }
}

/// The knee of a curve of `(iops, latency_ns)` steps: the index of the
/// step with the highest IOPS whose latency is within the target; `None`
/// when every step is over it.
pub fn choose(steps: &[(f64, u64)], target: KneeTarget) -> Option<usize> {
    steps
        .iter()
        .enumerate()
        .filter(|(_, (_, latency))| *latency <= target.limit_ns)
        .max_by(|a, b| a.1.0.total_cmp(&b.1.0))
        .map(|(index, _)| index)
}

/// The parameters that load a device more as they grow: a knee search may
/// stop early along one of them.
pub const LOAD_PARAMETERS: [Param; 4] = [Param::Iodepth, Param::Jobs, Param::Rate, Param::RateIops];

/// The axis a knee search may stop early along: the one parameter the
/// points differ in, when it is a load ([`LOAD_PARAMETERS`]) whose values
/// rise from each point to the next. `None` otherwise (a grid of several
/// axes, or a load in no order): then every point runs.
pub fn load_axis(workloads: &[&Workload]) -> Option<Param> {
    let differs = |param: &Param| {
        workloads
            .windows(2)
            .any(|pair| param.read(pair[0]) != param.read(pair[1]))
    };
    let varying: Vec<Param> = Param::ALL.iter().copied().filter(differs).collect();
    let [param] = varying[..] else {
        return None;
    };
    let number = |workload: &Workload| match param.read(workload) {
        Operand::Number(value) => value,
        Operand::Text(_) => f64::NAN,
    };
    let rising = workloads
        .windows(2)
        .all(|pair| number(pair[0]) < number(pair[1]));
    (LOAD_PARAMETERS.contains(&param) && rising).then_some(param)
}

/// Whether a knee search along a load axis is past its knee: the last two
/// steps of the curve (`(iops, latency_ns)`, in the axis's order) are both
/// over the target. One step over may be noise; two in a row, with the load
/// still rising, mean the points after them would be over it too.
pub fn past_the_knee(steps: &[(f64, u64)], target: KneeTarget) -> bool {
    steps.len() >= 2
        && steps[steps.len() - 2..]
            .iter()
            .all(|(_, latency)| *latency > target.limit_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_stops_along_one_rising_load_after_two_points_over() {
        let base = super::super::default_workload();
        let depth = |iodepth: u32| Workload {
            iodepth,
            ..base.clone()
        };
        let (one, two, four) = (depth(1), depth(2), depth(4));
        assert_eq!(load_axis(&[&one, &two, &four]), Some(Param::Iodepth));
        assert_eq!(load_axis(&[&four, &two, &one]), None, "falling");
        let bigger = Workload {
            bs: 65536,
            ..two.clone()
        };
        assert_eq!(load_axis(&[&one, &bigger]), None, "two axes");
        let sized = Workload {
            bs: 65536,
            ..base.clone()
        };
        assert_eq!(load_axis(&[&base, &sized]), None, "not a load");
        let target = KneeTarget {
            percentile: 99.0,
            limit_ns: 1_000_000,
        };
        let over = (1.0, 2_000_000);
        let under = (1.0, 500_000);
        assert!(!past_the_knee(&[under, over], target));
        assert!(!past_the_knee(&[over], target));
        assert!(past_the_knee(&[under, over, over], target));
        assert!(!past_the_knee(&[over, under], target), "back under");
    }

    #[test]
    fn targets_read_back_and_refuse_what_is_not_recorded() {
        let target: KneeTarget = "p99<=2ms".parse().unwrap();
        assert_eq!(
            target,
            KneeTarget {
                percentile: 99.0,
                limit_ns: 2_000_000
            }
        );
        assert_eq!(target.to_string(), "p99<=2ms");
        assert_eq!(
            "p99.9<500us".parse::<KneeTarget>().unwrap().to_string(),
            "p99.9<=500us"
        );
        for bad in ["p98<=1ms", "99<=1ms", "p99<=0s", "p99", "p99<=fast"] {
            assert!(bad.parse::<KneeTarget>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_knee_is_the_most_iops_under_the_target() {
        let target = KneeTarget {
            percentile: 99.0,
            limit_ns: 1_000_000,
        };
        // Queue depths 1, 2, 4, 8, 16: saturating at 8, over the target from 8.
        let steps = [
            (10_000.0, 200_000),
            (19_000.0, 300_000),
            (35_000.0, 600_000),
            (40_000.0, 1_200_000),
            (40_500.0, 2_400_000),
        ];
        assert_eq!(choose(&steps, target), Some(2));
        assert_eq!(choose(&steps[3..], target), None);
    }
}
