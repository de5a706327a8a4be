//! Fieller's confidence interval for the ratio of two independent means,
//! at the level and degrees of freedom of Welch's test, so that the interval
//! and the test can never disagree.
//!
//! E. C. Fieller, "Some problems in interval estimation", Journal of the
//! Royal Statistical Society B 16 (1954). For ρ = μ_o / μ_b with sample means
//! m_o, m_b and squared standard errors v_o = s_o²/n_o, v_b = s_b²/n_b, the
//! interval is every ρ with (m_o − ρ·m_b)² ≤ t²·(v_o + ρ²·v_b). Taking t at
//! Welch's degrees of freedom and level, ρ = 1 is inside exactly when
//! Welch's test finds no difference: a verdict and its interval agree by
//! construction. (A percentile bootstrap of three values per side does not:
//! its interval excluded 1 where Welch's p was 0.2.)

use super::welch;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The interval of mean(`other`) / mean(`base`) at confidence 1 − `alpha`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RatioInterval {
    Bounded(f64, f64),
    /// The base mean is not known to differ from zero at this level: no
    /// finite interval exists (Fieller's unbounded case).
    Unbounded,
}

fn mean_and_squared_error(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, variance / n)
}

/// Fieller's interval of mean(`other`) / mean(`base`) at 1 − `alpha`, with
/// Welch's degrees of freedom; `None` with fewer than two values on a side.
pub fn ratio_interval(base: &[f64], other: &[f64], alpha: f64) -> Option<RatioInterval> {
    let test = welch::test(other, base)?;
    let (mb, vb) = mean_and_squared_error(base);
    let (mo, vo) = mean_and_squared_error(other);
    if vb == 0.0 && vo == 0.0 {
        // No spread on either side: the ratio is known exactly.
        return (mb != 0.0).then(|| RatioInterval::Bounded(mo / mb, mo / mb));
    }
    let t = StudentsT::new(0.0, 1.0, test.df)
        .ok()?
        .inverse_cdf(1.0 - alpha / 2.0);
    let t2 = t * t;
    // a·ρ² − 2·m_o·m_b·ρ + c ≤ 0
    let a = mb * mb - t2 * vb;
    let c = mo * mo - t2 * vo;
    if a <= 0.0 {
        return Some(RatioInterval::Unbounded);
    }
    let half = ((mo * mb).powi(2) - a * c).max(0.0).sqrt();
    Some(RatioInterval::Bounded(
        (mo * mb - half) / a,
        (mo * mb + half) / a,
    ))
}

/// [`ratio_interval`] of figures that are positive by nature (times,
/// throughputs, latencies): a bound at or below zero, which their ratio
/// cannot have, says the data do not bound it (the other mean is not known
/// to differ from zero), so the interval is [`RatioInterval::Unbounded`] —
/// never printed as a negative ratio, and never a verdict.
pub fn positive_ratio_interval(base: &[f64], other: &[f64], alpha: f64) -> Option<RatioInterval> {
    match ratio_interval(base, other, alpha)? {
        RatioInterval::Bounded(low, _) if low <= 0.0 => Some(RatioInterval::Unbounded),
        interval => Some(interval),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded(interval: Option<RatioInterval>) -> (f64, f64) {
        match interval {
            Some(RatioInterval::Bounded(low, high)) => (low, high),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_interval_holds_one_exactly_when_welch_finds_no_difference() {
        // A case where the bootstrap said otherwise: three values a side,
        // ratio 1.77, Welch's p above 0.05.
        let base = [100.0, 160.0, 130.0];
        let other = [240.0, 200.0, 250.0];
        for alpha in [0.01, 0.05, 0.2] {
            let (low, high) = bounded(ratio_interval(&base, &other, alpha));
            let p = welch::test(&other, &base).unwrap().p;
            assert_eq!(
                (low..=high).contains(&1.0),
                p >= alpha,
                "alpha {alpha}: [{low}, {high}] against p {p}"
            );
            let ratio = (690.0 / 3.0) / (390.0 / 3.0);
            assert!(low < ratio && ratio < high);
        }
    }

    #[test]
    fn many_cases_agree_with_the_test() {
        // Shifted and scaled samples around the decision boundary.
        for shift in 0..40 {
            let base = [10.0, 11.0, 12.0, 10.5];
            let other: Vec<f64> = base
                .iter()
                .map(|v| v * (1.0 + shift as f64 * 0.01))
                .collect();
            let (low, high) = bounded(ratio_interval(&base, &other, 0.05));
            let p = welch::test(&other, &base).unwrap().p;
            assert_eq!((low..=high).contains(&1.0), p >= 0.05, "shift {shift}");
        }
    }

    /// A ratio of times whose other side is not known to differ from zero
    /// had a negative lower bound (`3.893 [-40.741–52.844]`): for positive
    /// figures it is unbounded instead.
    #[test]
    fn a_positive_ratio_never_has_a_bound_at_or_below_zero() {
        let base = [1.0, 1.1, 0.9];
        let other = [0.1, 8.0, 3.5];
        let (low, _) = bounded(ratio_interval(&base, &other, 0.05));
        assert!(low < 0.0, "the general interval goes below zero: {low}");
        assert_eq!(
            positive_ratio_interval(&base, &other, 0.05),
            Some(RatioInterval::Unbounded)
        );
        let (low, high) = bounded(positive_ratio_interval(
            &[10.0, 11.0, 12.0],
            &[20.0, 21.0, 23.0],
            0.05,
        ));
        assert!(0.0 < low && low < high);
    }

    #[test]
    fn degenerate_cases() {
        assert_eq!(ratio_interval(&[1.0], &[2.0, 3.0], 0.05), None);
        assert_eq!(
            ratio_interval(&[2.0, 2.0], &[4.0, 4.0], 0.05),
            Some(RatioInterval::Bounded(2.0, 2.0))
        );
        // A base mean indistinguishable from zero: no finite interval.
        assert_eq!(
            ratio_interval(&[-1.0, 1.0, 0.5], &[5.0, 6.0, 7.0], 0.05),
            Some(RatioInterval::Unbounded)
        );
    }
}
