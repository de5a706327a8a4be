//! The one estimator of a ratio between two points, which every output that compares uses (`compare`, the studies' tables, the report): the geometric mean of the rounds' ratios with a t interval of their logarithms where both sides ran in the same rounds, else the ratio of the means with Fieller's interval; Δ% from that ratio, and the verdict of the interval printed.

use super::{Matched, Metric, Orientation, Side, Verdict, equivalence, parameters_differing};
use crate::record::Point;
use crate::stats::fieller::{self, RatioInterval};
use crate::stats::welch;

/// Compares one point with its counterpart: the one estimator of a ratio
/// every output uses (the studies' tables, `compare`, the report) — the
/// geometric mean of the rounds' ratios where both sides ran in the same
/// rounds, else the ratio of the means with Fieller's interval — with its
/// Δ% and the verdict of the interval printed. `None` when a side has no
/// value.
pub fn compare_point(
    base: &Point,
    other: &Point,
    metric: &Metric,
    alpha: f64,
    orientation: Orientation,
) -> Option<Matched> {
    let (a, b) = (metric.values(base), metric.values(other));
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (base_mean, other_mean) = (mean(&a), mean(&b));
    // Paired by round when both sides ran in the same rounds, else one
    // rule for independent repetitions: Welch's test at α, Fieller's
    // interval at 1 − α with the test's degrees of freedom.
    let (ratio, (low, high), unbounded, p_value, paired_rounds, better) =
        match paired_by_round(base, other, metric, alpha, orientation) {
            Some(paired) => {
                let other_higher =
                    (paired.ratio > 1.0) == (orientation == Orientation::OtherOverBase);
                (
                    paired.ratio,
                    (Some(paired.low), Some(paired.high)),
                    false,
                    Some(paired.p),
                    Some(paired.rounds),
                    other_higher == metric.higher_is_better(),
                )
            }
            None => {
                let interval = match orientation {
                    Orientation::OtherOverBase => fieller::positive_ratio_interval(&a, &b, alpha),
                    Orientation::BaseOverOther => fieller::positive_ratio_interval(&b, &a, alpha),
                };
                let ratio = match orientation {
                    Orientation::OtherOverBase => other_mean / base_mean,
                    Orientation::BaseOverOther => base_mean / other_mean,
                };
                let bounds = match interval {
                    Some(RatioInterval::Bounded(low, high)) => (Some(low), Some(high)),
                    _ => (None, None),
                };
                (
                    ratio,
                    bounds,
                    interval == Some(RatioInterval::Unbounded),
                    welch::test(&a, &b).map(|t| t.p),
                    None,
                    (other_mean > base_mean) == metric.higher_is_better(),
                )
            }
        };
    // The verdict is the printed interval's: a difference only where the
    // interval is bounded and leaves out 1 (it then agrees with the test's
    // p-value by construction; an unbounded one decides nothing).
    let excludes_one = matches!((low, high), (Some(l), Some(h)) if l > 1.0 || h < 1.0);
    let verdict = match p_value {
        None => Verdict::TooFewRepetitions,
        Some(_) if unbounded || !excludes_one => Verdict::NoSignificantDifference,
        Some(_) if better => Verdict::Better,
        Some(_) => Verdict::Worse,
    };
    // Δ% from the ratio itself, so the two never tell different stories (a
    // paired geometric mean of 1.256 beside a Δ% of the means of −60.4).
    let other_over_base = match orientation {
        Orientation::OtherOverBase => ratio,
        Orientation::BaseOverOther => 1.0 / ratio,
    };
    Some(Matched {
        label: base.label.clone(),
        workload: base.workload.clone(),
        base: Side {
            n: a.len(),
            mean: base_mean,
        },
        other: Side {
            n: b.len(),
            mean: other_mean,
        },
        ratio,
        ratio_low: low,
        ratio_high: high,
        ratio_unbounded: unbounded,
        p_value,
        paired_rounds,
        executed_order: executed_order(base, other),
        delta_percent: metric.delta_percent(1.0, other_over_base),
        verdict,
        differs: parameters_differing(&base.workload, &other.workload)
            .into_iter()
            .map(|(name, from, to)| format!("{name} {from} → {to}"))
            .collect(),
        equivalence: None,
    })
}

/// Round by round, which side ran first (`"AB"` or `"BA"`), from the first
/// sequence number of each side's measured repetitions in the round.
fn executed_order(base: &Point, other: &Point) -> Option<Vec<String>> {
    let rounds = equivalence::common_rounds(base, other);
    if rounds.is_empty() {
        return None;
    }
    let first = |point: &Point, round: u32| {
        point
            .measured()
            .filter(|r| r.round == Some(round))
            .filter_map(|r| r.sequence)
            .min()
    };
    rounds
        .iter()
        .map(|&round| {
            let (a, b) = (first(base, round)?, first(other, round)?);
            Some(if a <= b { "AB" } else { "BA" }.to_string())
        })
        .collect()
}

/// A ratio from rounds that pair the two sides.
struct PairedRatio {
    rounds: usize,
    /// The geometric mean of the per-round ratios.
    ratio: f64,
    low: f64,
    high: f64,
    /// The paired t-test's two-sided p-value on the log ratios.
    p: f64,
}

/// The ratio of `base` and `other` paired by the rounds both were measured
/// in, at 1 − `alpha`: `None` below two common rounds (or with a round
/// whose figure is not positive), where the repetitions are independent.
fn paired_by_round(
    base: &Point,
    other: &Point,
    metric: &Metric,
    alpha: f64,
    orientation: Orientation,
) -> Option<PairedRatio> {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let rounds = equivalence::common_rounds(base, other);
    if rounds.len() < 2 {
        return None;
    }
    let round_mean = |point: &Point, round: u32| {
        let values = metric.values(&equivalence::in_round(point, round));
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let logs = rounds
        .iter()
        .map(|&round| {
            let (b, o) = (round_mean(base, round)?, round_mean(other, round)?);
            let ratio = match orientation {
                Orientation::OtherOverBase => o / b,
                Orientation::BaseOverOther => b / o,
            };
            (ratio.is_finite() && ratio > 0.0).then(|| ratio.ln())
        })
        .collect::<Option<Vec<f64>>>()?;
    let n = logs.len() as f64;
    let centre = logs.iter().sum::<f64>() / n;
    let variance = logs.iter().map(|l| (l - centre).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (variance / n).sqrt();
    let t_dist = StudentsT::new(0.0, 1.0, n - 1.0).ok()?;
    let t = t_dist.inverse_cdf(1.0 - alpha / 2.0);
    let p = if se > 0.0 {
        2.0 * (1.0 - t_dist.cdf((centre / se).abs()))
    } else if centre == 0.0 {
        1.0
    } else {
        0.0
    };
    Some(PairedRatio {
        rounds: logs.len(),
        ratio: centre.exp(),
        low: (centre - t * se).exp(),
        high: (centre + t * se).exp(),
        p,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Figure;

    /// `point` with its repetitions' rounds taken away: independent.
    fn without_rounds(point: &Point) -> Point {
        Point {
            repetitions: point
                .repetitions
                .iter()
                .map(|r| crate::record::Repetition {
                    round: None,
                    ..r.clone()
                })
                .collect(),
            ..point.clone()
        }
    }

    /// A point whose repetitions moved at `rates` (bytes/s), in `rounds`.
    fn in_rounds(rates: &[(u32, f64)]) -> Point {
        let repetitions: Vec<serde_json::Value> = rates
            .iter()
            .enumerate()
            .map(|(index, (round, rate))| {
                serde_json::json!({
                    "index": index, "warmup": false, "status": "ok", "bytes": 1u64 << 20,
                    "ops": 256, "elapsed_ns": 1_000_000_000u64, "throughput_bps": rate,
                    "iops": 256.0, "series": [], "jobs": [], "round": round
                })
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "label": "p", "workload": crate::plan::example_workload(),
            "target": {"dir": "/d", "filesystem": "ext4", "files": [], "direct_in_memory": false,
                       "file_given": false},
            "repetitions": repetitions, "checks": []
        }))
        .unwrap()
    }

    #[test]
    fn rounds_pair_the_sides_and_the_interval_stays_above_zero() {
        // Each boot slowed both sides alike: per round the guest did half
        // the host's rate, though pooled the rates overlap widely.
        let host = in_rounds(&[(0, 100.0), (1, 300.0), (2, 30.0)]);
        let guest = in_rounds(&[(0, 50.0), (1, 151.0), (2, 14.9)]);
        let metric = Metric::from(Figure::Throughput);
        let paired =
            compare_point(&host, &guest, &metric, 0.05, Orientation::OtherOverBase).unwrap();
        assert_eq!(paired.paired_rounds, Some(3));
        assert!((paired.ratio - 0.5).abs() < 0.01, "{}", paired.ratio);
        let (low, high) = (paired.ratio_low.unwrap(), paired.ratio_high.unwrap());
        assert!(low > 0.4 && high < 0.6, "{low}–{high}");
        assert_eq!(paired.verdict, Verdict::Worse);
        // The same figures without rounds: Welch and Fieller, not significant.
        let pooled = compare_point(
            &without_rounds(&host),
            &without_rounds(&guest),
            &metric,
            0.05,
            Orientation::OtherOverBase,
        )
        .unwrap();
        assert_eq!(pooled.paired_rounds, None);
        assert_eq!(pooled.verdict, Verdict::NoSignificantDifference);
        // A noisy pairing of two rounds: a wide interval, but above zero.
        let wide = compare_point(
            &in_rounds(&[(0, 100.0), (1, 100.0)]),
            &in_rounds(&[(0, 10.0), (1, 300.0)]),
            &metric,
            0.05,
            Orientation::BaseOverOther,
        )
        .unwrap();
        assert!(wide.ratio_low.unwrap() > 0.0, "{:?}", wide.ratio_low);
        assert_eq!(wide.verdict, Verdict::NoSignificantDifference);
        // One estimator: Δ% is the ratio's, not the means' (the means of
        // 100, 100 against 10, 300 say the other is 55% faster; the rounds'
        // geometric mean says its rate is 45% lower).
        let other_over_base = 1.0 / wide.ratio;
        assert!(
            (wide.delta_percent - (other_over_base - 1.0) * 100.0).abs() < 1e-9,
            "{} against ratio {}",
            wide.delta_percent,
            wide.ratio
        );
        assert!(wide.delta_percent < 0.0, "{}", wide.delta_percent);
    }

    /// The verdict is the printed interval's: an interval a positive ratio
    /// cannot have (a bound at or below zero) is unbounded and decides
    /// nothing, where Welch's p alone once said "slower" beside it.
    #[test]
    fn an_unbounded_interval_is_never_a_verdict_of_difference() {
        let base = in_rounds(&[(0, 100.0), (0, 110.0), (0, 90.0)]);
        let noisy = in_rounds(&[(0, 2.0), (0, 400.0), (0, 1.0)]);
        let metric = Metric::from(Figure::Throughput);
        let matched = compare_point(
            &without_rounds(&base),
            &without_rounds(&noisy),
            &metric,
            0.05,
            Orientation::OtherOverBase,
        )
        .unwrap();
        assert!(matched.ratio_unbounded, "{matched:?}");
        assert_eq!(matched.ratio_low, None);
        assert_eq!(matched.verdict, Verdict::NoSignificantDifference);
    }
}
