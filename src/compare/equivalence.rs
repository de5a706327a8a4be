//! Equivalence within a margin (`compare --margin 5%`): two one-sided tests on the ratio of two configurations. From per-round figures when both were measured in the same rounds (pairs of a plan's rounds, each round a guest boot: the level the variance is at), else from pooled repetitions — each with the estimator `compare` prints (a t interval of the rounds' log ratios, or Fieller's of the ratio of the means); "equivalent" when the 90% interval lies inside the margin, "different" when the 95% interval excludes 1, "inconclusive" otherwise.

use super::{Metric, Orientation};
use crate::record::Point;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The verdict of one pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EquivalenceVerdict {
    /// The ratio's 90% interval lies inside 1 ± margin.
    Equivalent,
    /// The ratio's 95% interval excludes 1 (and it is not equivalent).
    Different,
    /// Neither: more rounds would tell.
    Inconclusive,
}

/// What the figures came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// One ratio per round both sides ran in; the interval from their spread.
    Rounds,
    /// Every repetition of each side pooled (no common rounds).
    Repetitions,
}

/// The equivalence of one matched pair.
#[derive(Clone, Debug, Serialize)]
pub struct Equivalence {
    /// The margin, a fraction (0.05 = ±5%).
    pub margin: f64,
    pub verdict: EquivalenceVerdict,
    /// What the interval came from.
    pub level: Level,
    /// Rounds (or, pooled, the smaller side's repetitions) it rests on.
    pub n: usize,
    /// The ratio's 90% interval (the two one-sided tests at 5%); absent with n < 2.
    pub interval_90: Option<(f64, f64)>,
    /// The ratio's 95% interval; absent with n < 2.
    pub interval_95: Option<(f64, f64)>,
}

/// The rule, as printed with the verdicts.
pub fn rule(margin: f64) -> String {
    let percent = margin * 100.0;
    format!(
        "equivalent: the ratio's 90% interval lies within 1 ± {percent}% (two one-sided tests at 5%); different: its 95% interval excludes 1; inconclusive: neither. Intervals from per-round ratios when both sides ran in the same rounds (each a guest boot), else from the repetitions pooled"
    )
}

/// Judges `other` against `base` on `metric`, the ratio oriented as asked.
pub fn judge(
    base: &Point,
    other: &Point,
    metric: &Metric,
    orientation: Orientation,
    margin: f64,
) -> Equivalence {
    let ratio_of = |b: f64, o: f64| match orientation {
        Orientation::OtherOverBase => o / b,
        Orientation::BaseOverOther => b / o,
    };
    let rounds = common_rounds(base, other);
    let (level, logs) = if rounds.len() >= 2 {
        let logs = rounds
            .iter()
            .filter_map(|&round| {
                let b = mean(&metric.values(&in_round(base, round)))?;
                let o = mean(&metric.values(&in_round(other, round)))?;
                let ratio = ratio_of(b, o);
                (ratio.is_finite() && ratio > 0.0).then(|| ratio.ln())
            })
            .collect::<Vec<f64>>();
        (Level::Rounds, LogRatios::Paired(logs))
    } else {
        let a = metric.values(base);
        let b = metric.values(other);
        let (denominator, numerator) = match orientation {
            Orientation::OtherOverBase => (a, b),
            Orientation::BaseOverOther => (b, a),
        };
        (
            Level::Repetitions,
            LogRatios::Pooled(denominator, numerator),
        )
    };
    let n = logs.n();
    let interval = |confidence: f64| logs.interval(confidence);
    let (interval_90, interval_95) = (interval(0.90), interval(0.95));
    let verdict = match (interval_90, interval_95) {
        (Some((low, high)), _) if low >= 1.0 - margin && high <= 1.0 + margin => {
            EquivalenceVerdict::Equivalent
        }
        (_, Some((low, high))) if low > 1.0 || high < 1.0 => EquivalenceVerdict::Different,
        _ => EquivalenceVerdict::Inconclusive,
    };
    Equivalence {
        margin,
        verdict,
        level,
        n,
        interval_90,
        interval_95,
    }
}

/// What an interval of the ratio is built from: the one estimator
/// `compare` uses for the same pair.
enum LogRatios {
    /// One log ratio per round: a t interval of their mean.
    Paired(Vec<f64>),
    /// Two independent samples (the ratio's denominator's, then its
    /// numerator's): Fieller's interval of the ratio of their means.
    Pooled(Vec<f64>, Vec<f64>),
}

impl LogRatios {
    fn n(&self) -> usize {
        match self {
            LogRatios::Paired(logs) => logs.len(),
            LogRatios::Pooled(a, b) => a.len().min(b.len()),
        }
    }

    /// The ratio's two-sided interval at `confidence`: a t interval of the
    /// mean log ratio (paired), or Fieller's at Welch's degrees of freedom
    /// (pooled) — `None` where it is unbounded or n < 2.
    fn interval(&self, confidence: f64) -> Option<(f64, f64)> {
        match self {
            LogRatios::Paired(logs) => {
                let (m, v) = mean_var(logs)?;
                let (centre, se, df) = (m, (v / logs.len() as f64).sqrt(), logs.len() as f64 - 1.0);
                let t = StudentsT::new(0.0, 1.0, df.max(1.0))
                    .ok()?
                    .inverse_cdf(0.5 + confidence / 2.0);
                Some(((centre - t * se).exp(), (centre + t * se).exp()))
            }
            LogRatios::Pooled(denominator, numerator) => {
                match crate::stats::fieller::positive_ratio_interval(
                    denominator,
                    numerator,
                    1.0 - confidence,
                )? {
                    crate::stats::fieller::RatioInterval::Bounded(low, high) => Some((low, high)),
                    crate::stats::fieller::RatioInterval::Unbounded => None,
                }
            }
        }
    }
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Mean and sample variance; `None` below two values.
fn mean_var(values: &[f64]) -> Option<(f64, f64)> {
    if values.len() < 2 {
        return None;
    }
    let m = mean(values)?;
    let v = values.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (values.len() as f64 - 1.0);
    Some((m, v))
}

/// The rounds both points have measured repetitions in.
pub(super) fn common_rounds(base: &Point, other: &Point) -> Vec<u32> {
    let rounds = |p: &Point| {
        let mut r: Vec<u32> = p.measured().filter_map(|r| r.round).collect();
        r.sort_unstable();
        r.dedup();
        r
    };
    let theirs = rounds(other);
    rounds(base)
        .into_iter()
        .filter(|r| theirs.contains(r))
        .collect()
}

/// `point` with only its repetitions of `round`.
pub(super) fn in_round(point: &Point, round: u32) -> Point {
    Point {
        repetitions: point
            .repetitions
            .iter()
            .filter(|r| r.round == Some(round))
            .cloned()
            .collect(),
        ..point.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_rounds_give_the_three_verdicts() {
        let margin = 0.05;
        let verdict = |logs: Vec<f64>| {
            let logs = LogRatios::Paired(logs.into_iter().map(f64::ln).collect());
            let (i90, i95) = (logs.interval(0.90), logs.interval(0.95));
            match (i90, i95) {
                (Some((l, h)), _) if l >= 1.0 - margin && h <= 1.0 + margin => "equivalent",
                (_, Some((l, h))) if l > 1.0 || h < 1.0 => "different",
                _ => "inconclusive",
            }
        };
        assert_eq!(verdict(vec![1.0, 1.01, 0.99, 1.0]), "equivalent");
        assert_eq!(verdict(vec![0.5, 0.51, 0.49, 0.5]), "different");
        assert_eq!(verdict(vec![0.8, 1.3]), "inconclusive");
        assert!(LogRatios::Paired(vec![0.0]).interval(0.9).is_none());
    }

    /// Pooled repetitions take Fieller's interval of the ratio of the
    /// means, the one `compare` prints for the same pair, whichever side
    /// is the denominator.
    #[test]
    fn pooled_repetitions_take_compares_interval() {
        let base = vec![100.0, 101.0, 99.0];
        let other = vec![50.0, 50.5, 49.5];
        let (low, high) = LogRatios::Pooled(base.clone(), other.clone())
            .interval(0.95)
            .unwrap();
        assert!(low < 0.5 && high > 0.5 && high < 0.6, "{low} {high}");
        assert_eq!(
            crate::stats::fieller::positive_ratio_interval(&base, &other, 0.05),
            Some(crate::stats::fieller::RatioInterval::Bounded(low, high))
        );
        let (low, high) = LogRatios::Pooled(other, base).interval(0.95).unwrap();
        assert!(low < 2.0 && high > 2.0, "{low} {high}");
    }
}
