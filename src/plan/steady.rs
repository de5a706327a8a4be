//! Steady-state criteria for time-based runs (`--steady bw:slope<1%/10s`), after fio's `steady_state` options.
//!
//! A criterion looks at the last `window` seconds of a job's per-interval
//! throughput, IOPS or mean latency:
//! - `slope<P%`: the least-squares line through those values changes by less
//!   than P% of their mean across the window (fio's `bw_slope`);
//! - `range<P%`: every value lies within ±P% of their mean (fio's `bw`).
//!
//! With `:sum` a group's jobs are judged on the sum of their intervals
//! (fio's `group_reporting`). The run stops once every job meets it (or at
//! `--runtime`, the upper bound), and records whether and when it was met.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// What is watched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SteadyMetric {
    /// Bytes per interval.
    Bandwidth,
    /// I/Os per interval.
    Iops,
    /// The mean latency of the interval's I/Os (fio 3.42's `lat`, the mean
    /// of its completion latencies), ns.
    Latency,
}

/// How steadiness is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SteadyTest {
    /// The fitted line's change across the window.
    Slope,
    /// The largest deviation from the window's mean.
    Range,
}

/// A steady-state criterion.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct SteadyCriterion {
    /// Bandwidth or IOPS.
    pub metric: SteadyMetric,
    /// Slope or range.
    pub test: SteadyTest,
    /// The limit as a fraction of the window's mean (1% = 0.01).
    pub limit: f64,
    /// The window, seconds.
    pub window_s: f64,
    /// Seconds from the start before a window may begin (fio's
    /// `ss_ramp`): the intervals before it are not judged. 0: none.
    pub after_s: f64,
    /// `:sum`: a group's jobs judged together, on the sum of their
    /// intervals (fio's steady state under `group_reporting`), rather than
    /// each job on its own.
    pub summed: bool,
}

impl FromStr for SteadyCriterion {
    type Err = String;

    /// `bw:slope<1%/10s`, `iops:range<2%/30s`, `lat:range<5%/300s`.
    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "'{text}' is not a steady-state criterion such as bw:slope<1%/10s or iops:range<2%/30s"
            )
        };
        let (metric, rest) = text.split_once(':').ok_or_else(bad)?;
        let metric = match metric.trim() {
            "bw" => SteadyMetric::Bandwidth,
            "iops" => SteadyMetric::Iops,
            "lat" => SteadyMetric::Latency,
            _ => return Err(bad()),
        };
        let (test, rest) = rest.split_once('<').ok_or_else(bad)?;
        let test = match test.trim() {
            "slope" => SteadyTest::Slope,
            "range" => SteadyTest::Range,
            _ => return Err(bad()),
        };
        let (rest, summed) = match rest.strip_suffix(":sum") {
            Some(rest) => (rest, true),
            None => (rest, false),
        };
        let (rest, after) = match rest.split_once(":after=") {
            Some((rest, after)) => (rest, Some(after)),
            None => (rest, None),
        };
        let after_s = match after {
            Some(after) => super::units::parse_duration(after.trim())
                .map_err(|e| format!("{}: {e}", bad()))?
                .as_secs_f64(),
            None => 0.0,
        };
        let (limit, window) = rest.split_once('/').ok_or_else(bad)?;
        let limit: f64 = limit
            .trim()
            .strip_suffix('%')
            .ok_or_else(bad)?
            .parse()
            .map_err(|_| bad())?;
        let window = super::units::parse_positive_duration(window.trim())
            .map_err(|e| format!("{}: {e}", bad()))?;
        // A range beyond the mean would pass anything; a slope across a
        // long window may exceed it (fio's 1% a second over 300 s).
        let most = match test {
            SteadyTest::Range => 100.0,
            SteadyTest::Slope => 10_000.0,
        };
        if summed && metric == SteadyMetric::Latency {
            return Err(format!(
                "'{text}': a group's latency is the mean of all its jobs' I/Os, not a sum (leave out :sum)"
            ));
        }
        if !(limit > 0.0 && limit < most) {
            return Err(format!(
                "'{text}': the limit must be between 0% and {most}%"
            ));
        }
        Ok(SteadyCriterion {
            metric,
            test,
            limit: limit / 100.0,
            window_s: window.as_secs_f64(),
            after_s,
            summed,
        })
    }
}

impl fmt::Display for SteadyCriterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let metric = match self.metric {
            SteadyMetric::Bandwidth => "bw",
            SteadyMetric::Iops => "iops",
            SteadyMetric::Latency => "lat",
        };
        let test = match self.test {
            SteadyTest::Slope => "slope",
            SteadyTest::Range => "range",
        };
        write!(
            f,
            "{metric}:{test}<{}%/{}s",
            // The percent as given, without the binary fraction's tail.
            (self.limit * 100.0 * 1e9).round() / 1e9,
            self.window_s
        )?;
        if self.after_s > 0.0 {
            write!(f, ":after={}s", self.after_s)?;
        }
        if self.summed {
            f.write_str(":sum")?;
        }
        Ok(())
    }
}

impl TryFrom<String> for SteadyCriterion {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<SteadyCriterion> for String {
    fn from(criterion: SteadyCriterion) -> String {
        criterion.to_string()
    }
}

impl SteadyCriterion {
    /// How many intervals of `interval_s` the window spans (at least 2).
    pub fn samples(&self, interval_s: f64) -> usize {
        ((self.window_s / interval_s).round() as usize).max(2)
    }

    /// Whether the last values of `series` (one per interval, oldest first)
    /// meet the criterion; false until the window is full. Allocates nothing.
    pub fn met(
        &self,
        series: impl DoubleEndedIterator<Item = f64> + Clone,
        interval_s: f64,
    ) -> bool {
        let n = self.samples(interval_s);
        // The intervals before `after_s` are never in the window.
        let before = (self.after_s / interval_s).ceil() as usize;
        if series.clone().count() < n + before {
            return false;
        }
        let window = series.rev().take(n);
        let mean = window.clone().sum::<f64>() / n as f64;
        if mean <= 0.0 {
            return false;
        }
        match self.test {
            SteadyTest::Range => {
                window.map(|v| (v - mean).abs()).fold(0.0, f64::max) <= self.limit * mean
            }
            SteadyTest::Slope => {
                // Least squares of value against time; `window` runs newest first,
                // so time is (n - 1 - i) intervals.
                let t_mean = (n - 1) as f64 / 2.0;
                let (mut covariance, mut variance) = (0.0, 0.0);
                for (i, value) in window.enumerate() {
                    let t = (n - 1 - i) as f64 - t_mean;
                    covariance += t * (value - mean);
                    variance += t * t;
                }
                let slope_per_interval = covariance / variance;
                (slope_per_interval * (n - 1) as f64).abs() <= self.limit * mean
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_display_round_trip() {
        let criterion: SteadyCriterion = "bw:slope<1%/10s".parse().unwrap();
        assert_eq!(criterion.metric, SteadyMetric::Bandwidth);
        assert_eq!((criterion.limit, criterion.window_s), (0.01, 10.0));
        assert_eq!(criterion.to_string(), "bw:slope<1%/10s");
        assert_eq!(
            "iops:range<2.5%/500ms"
                .parse::<SteadyCriterion>()
                .unwrap()
                .to_string(),
            "iops:range<2.5%/0.5s"
        );
        for bad in [
            "bw",
            "bw:slope<1/10s",
            "lat:slope<1%/10s:sum",
            "bw:mean<1%/10s",
            "bw:slope<0%/10s",
            "bw:slope<1%/10s:after=x",
            "bw:slope<1%/0s",
        ] {
            assert!(bad.parse::<SteadyCriterion>().is_err(), "{bad}");
        }
    }

    #[test]
    fn slope_and_range_on_known_series() {
        let slope: SteadyCriterion = "bw:slope<1%/5s".parse().unwrap();
        let range: SteadyCriterion = "bw:range<1%/5s".parse().unwrap();
        let flat = [90.0, 100.0, 100.0, 100.5, 99.5, 100.0];
        assert!(slope.met(flat.iter().copied(), 1.0));
        assert!(range.met(flat.iter().copied(), 1.0));
        // Rising 0.5 per interval: 2.0 over the 5-value window, 2% of 101.
        let rising = [100.0, 100.5, 101.0, 101.5, 102.0];
        assert!(!slope.met(rising.iter().copied(), 1.0));
        let loose: SteadyCriterion = "bw:slope<2.5%/5s".parse().unwrap();
        assert!(loose.met(rising.iter().copied(), 1.0));
        // Noisy but level: the slope is flat, the range is not.
        let noisy = [100.0, 104.0, 96.0, 104.0, 96.0, 100.0];
        assert!(!range.met(noisy.iter().copied(), 1.0));
        assert!(
            "bw:slope<5%/5s"
                .parse::<SteadyCriterion>()
                .unwrap()
                .met(noisy.iter().copied(), 1.0)
        );
        // Not enough values yet.
        assert!(!range.met([100.0, 100.0].iter().copied(), 1.0));
        // With a ramp, the window starts after it: 6 flat values, 3 s of
        // ramp and a 5 s window need 8.
        let ramped: SteadyCriterion = "bw:range<1%/5s:after=3s".parse().unwrap();
        assert_eq!(ramped.to_string(), "bw:range<1%/5s:after=3s");
        let summed: SteadyCriterion = "iops:range<10%/30s:after=11s:sum".parse().unwrap();
        assert!(summed.summed && summed.after_s == 11.0);
        assert_eq!(summed.to_string(), "iops:range<10%/30s:after=11s:sum");
        assert!(!ramped.met([100.0; 6].iter().copied(), 1.0));
        assert!(ramped.met([100.0; 8].iter().copied(), 1.0));
        // A slope's limit across a long window may pass 100%.
        assert!("iops:slope<299%/300s".parse::<SteadyCriterion>().is_ok());
        assert!("iops:range<150%/30s".parse::<SteadyCriterion>().is_err());
    }
}
