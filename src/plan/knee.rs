//! The latency target of a knee search (`--knee p99<=2ms`) and the choice of the knee: the highest IOPS whose latency percentile stays under the target.
//!
//! A sweep over queue depth, rate or jobs traces a curve of IOPS against
//! tail latency: IOPS rise with the load until the device saturates, then
//! only latency does. The knee is the last point before the target is
//! crossed (fio's `latency_target` searches queue depth the same way;
//! vdbench's `iorate=curve` sweeps the rate).

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

#[cfg(test)]
mod tests {
    use super::*;

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
