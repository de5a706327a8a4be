//! What the statistics and the checks made of a point's repetitions: its summary figures (each with its interval) and its findings, each with a stable code.

use super::LatencySummary;
use serde::{Deserialize, Serialize};

/// Figures over the measured repetitions of a point.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// Throughput over repetitions, bytes/s.
    pub throughput_bps: Stat,
    /// IOPS over repetitions.
    pub iops: Stat,
    /// Latency of all measured repetitions' I/Os, from the merged histograms,
    /// ns; absent when no repetition has a latency histogram (imported fio json).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_ns: Option<LatencySummary>,
    /// When the I/Os took both directions (`op mix`): each direction's
    /// figures over the repetitions, read then write.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub directions: Vec<DirectionSummary>,
    /// Measured repetitions marked as outliers (still counted above).
    pub outliers: u32,
    /// With `--until-ci`: the target half-width of the throughput interval, as a fraction of the mean.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ci_target: Option<f64>,
    /// With `--until-ci`: whether the interval reached the target (false: `max_repeat` ran out first).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ci_target_met: Option<bool>,
}

/// One direction's figures over a point's repetitions.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionSummary {
    /// Which direction: `read` or `write`.
    pub direction: crate::plan::direction::Direction,
    /// This direction's throughput over repetitions, bytes/s.
    pub throughput_bps: Stat,
    /// This direction's IOPS over repetitions.
    pub iops: Stat,
    /// The latency of this direction's I/Os in all measured repetitions, from
    /// the merged histograms, ns.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_ns: Option<LatencySummary>,
}

/// Descriptive statistics of one figure over repetitions.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stat {
    /// Number of repetitions.
    pub n: u32,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Sample standard deviation (n - 1); 0 when n = 1.
    pub stdev: f64,
    /// Coefficient of variation, stdev / mean.
    pub cv: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Lower end of the 95% confidence interval of the mean (Student t); absent when n < 2.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ci95_low: Option<f64>,
    /// Upper end of that interval.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ci95_high: Option<f64>,
}

/// How serious a check's finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the figures stand.
    Info,
    /// The figures may not mean what they seem.
    Warning,
    /// The figures are missing or wrong.
    Error,
}

/// A plausibility finding with a stable code.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// Stable identifier, such as `cache-served` (docs/checks.md lists them).
    pub code: String,
    /// How serious it is.
    pub severity: Severity,
    /// What was found and what to do about it.
    pub message: String,
    /// The figures that raised it, such as `the application read 64 MiB, vda read 0 B`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub evidence: Option<String>,
}
