//! Statistics over repetitions: descriptive figures, confidence intervals, outliers, Welch's test and convergence.
//!
//! The confidence interval of the mean is the classical Student t interval,
//! mean ± t(0.975, n−1) · s/√n (Student, "The probable error of a mean",
//! Biometrika 6, 1908), with the t quantile from statrs.

use crate::plan::direction::Direction;
use crate::record::{DirectionSummary, Point, Repetition, Stat, Status, Summary};
use statrs::distribution::{ContinuousCDF, StudentsT};

pub mod convergence;
pub mod fieller;
pub mod outliers;
pub mod welch;

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom.
pub fn t_quantile_95(df: u32) -> f64 {
    StudentsT::new(0.0, 1.0, f64::from(df))
        .expect("degrees of freedom are positive")
        .inverse_cdf(0.975)
}

/// Descriptive statistics of `samples`; `None` when there are none.
pub fn describe(samples: &[f64]) -> Option<Stat> {
    let n = samples.len();
    if n == 0 {
        return None;
    }
    let mean = samples.iter().sum::<f64>() / n as f64;
    let stdev = if n > 1 {
        (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let half_width = (n > 1).then(|| t_quantile_95(n as u32 - 1) * stdev / (n as f64).sqrt());
    Some(Stat {
        n: n as u32,
        mean,
        median,
        stdev,
        cv: if mean != 0.0 { stdev / mean } else { 0.0 },
        min: sorted[0],
        max: sorted[n - 1],
        ci95_low: half_width.map(|h| mean - h),
        ci95_high: half_width.map(|h| mean + h),
    })
}

/// Whether the 95% confidence interval of the mean of `values` lies within
/// ± `target` (a fraction) of the mean: the stopping rule of `--until-ci`.
pub fn ci_within(values: &[f64], target: f64) -> bool {
    describe(values).is_some_and(|stat| match (stat.ci95_low, stat.ci95_high) {
        (Some(low), Some(high)) if stat.mean > 0.0 => (high - low) / 2.0 <= target * stat.mean,
        _ => false,
    })
}

/// Marks the measured repetitions whose throughput is an outlier by the
/// median absolute deviation ([`outliers::flag`]); they stay in every figure.
pub fn mark_outliers(point: &mut Point) {
    let measured: Vec<usize> = point
        .repetitions
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.warmup && r.status == Status::Ok && main_figure(point, r).is_some())
        .map(|(i, _)| i)
        .collect();
    let values: Vec<f64> = measured
        .iter()
        .filter_map(|&i| main_figure(point, &point.repetitions[i]))
        .collect();
    for (&i, outlier) in measured.iter().zip(outliers::flag(&values)) {
        point.repetitions[i].outlier = outlier;
    }
}

/// The figure a point's repetitions are judged by (outliers, `--until-ci`):
/// throughput, or for a metadata workload its operations per second.
fn main_figure(point: &Point, repetition: &Repetition) -> Option<f64> {
    if point.workload.work() == crate::plan::Work::Tree {
        repetition.iops
    } else {
        repetition.throughput_bps
    }
}

/// The summary of a point over its measured repetitions that completed:
/// throughput and IOPS described, latency from the exactly merged histograms.
pub fn summarize(point: &Point) -> Result<Option<Summary>, String> {
    let measured: Vec<_> = point.measured().collect();
    let throughput: Vec<f64> = measured.iter().filter_map(|r| r.throughput_bps).collect();
    let iops: Vec<f64> = measured.iter().filter_map(|r| r.iops).collect();
    let (Some(throughput_bps), Some(iops)) = (describe(&throughput), describe(&iops)) else {
        return Ok(None);
    };
    let latencies: Vec<_> = measured
        .iter()
        .filter_map(|r| r.latency_ns.as_ref())
        .collect();
    let ci_target = point.workload.until_ci;
    let main: Vec<f64> = measured
        .iter()
        .filter_map(|r| main_figure(point, r))
        .collect();
    Ok(Some(Summary {
        ci_target_met: ci_target.map(|target| ci_within(&main, target)),
        ci_target,
        outliers: measured.iter().filter(|r| r.outlier).count() as u32,
        throughput_bps,
        iops,
        latency_ns: merged_latency(&latencies)?,
        directions: Direction::ALL
            .into_iter()
            .map(|direction| summarize_direction(&measured, direction))
            .filter_map(Result::transpose)
            .collect::<Result<_, _>>()?,
    }))
}

/// One direction's summary over the repetitions that kept its share; `None`
/// when none did (an unmixed workload, whose totals are its one direction's).
fn summarize_direction(
    measured: &[&Repetition],
    direction: Direction,
) -> Result<Option<DirectionSummary>, String> {
    let shares: Vec<_> = measured
        .iter()
        .filter_map(|r| r.directions.iter().find(|d| d.direction == direction))
        .collect();
    let throughput: Vec<f64> = shares.iter().filter_map(|d| d.throughput_bps).collect();
    let iops: Vec<f64> = shares.iter().filter_map(|d| d.iops).collect();
    let (Some(throughput_bps), Some(iops)) = (describe(&throughput), describe(&iops)) else {
        return Ok(None);
    };
    let latencies: Vec<_> = shares
        .iter()
        .filter_map(|d| d.latency_ns.as_ref())
        .collect();
    Ok(Some(DirectionSummary {
        direction,
        throughput_bps,
        iops,
        latency_ns: merged_latency(&latencies)?,
    }))
}

pub use crate::record::histogram::merged_latency;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn t_quantiles_match_the_tables() {
        // Two-sided 95% critical values of Student's t.
        for (df, expected) in [
            (1, 12.706),
            (2, 4.303),
            (4, 2.776),
            (9, 2.262),
            (29, 2.045),
            (1000, 1.962),
        ] {
            assert!(
                close(t_quantile_95(df), expected, 0.001),
                "df {df}: {}",
                t_quantile_95(df)
            );
        }
    }

    #[test]
    fn a_known_sample() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample stdev sqrt(32/7).
        let stat = describe(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(stat.n, 8);
        assert!(close(stat.mean, 5.0, 1e-12));
        assert!(close(stat.median, 4.5, 1e-12));
        assert!(close(stat.stdev, (32.0f64 / 7.0).sqrt(), 1e-12));
        let half = 2.364624 * (32.0f64 / 7.0).sqrt() / 8f64.sqrt();
        assert!(close(stat.ci95_high.unwrap() - 5.0, half, 1e-5));
        assert_eq!((stat.min, stat.max), (2.0, 9.0));
    }

    #[test]
    fn one_sample_has_no_interval() {
        let stat = describe(&[3.0]).unwrap();
        assert_eq!((stat.stdev, stat.cv), (0.0, 0.0));
        assert!(stat.ci95_low.is_none());
        assert!(describe(&[]).is_none());
    }

    #[test]
    fn the_until_ci_rule() {
        // mean 100, s = 1, n = 5: half-width 2.776 / √5 = 1.24, so ±1.3% holds and ±1.2% does not.
        let values = [
            99.0,
            100.0,
            101.0,
            100.0 - 2f64.sqrt() / 2.0 * 1.0,
            100.0 + 2f64.sqrt() / 2.0 * 1.0,
        ];
        let stat = describe(&values).unwrap();
        let half = (stat.ci95_high.unwrap() - stat.ci95_low.unwrap()) / 2.0;
        assert!(ci_within(&values, half / 100.0 + 1e-9));
        assert!(!ci_within(&values, half / 100.0 - 1e-9));
        assert!(!ci_within(&[100.0], 0.5), "one value has no interval");
    }

    proptest! {
        #[test]
        fn the_interval_contains_the_mean_and_the_range_the_median(
            samples in proptest::collection::vec(1.0f64..1e12, 1..40)
        ) {
            let stat = describe(&samples).unwrap();
            prop_assert!(stat.min <= stat.median && stat.median <= stat.max);
            prop_assert!(stat.min <= stat.mean * (1.0 + 1e-12) && stat.mean <= stat.max * (1.0 + 1e-12));
            if let (Some(low), Some(high)) = (stat.ci95_low, stat.ci95_high) {
                prop_assert!(low <= stat.mean && stat.mean <= high);
            }
            prop_assert!(stat.stdev >= 0.0);
        }
    }
}
