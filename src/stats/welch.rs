//! Welch's unequal-variances t-test of two means.
//!
//! t = (m₁ − m₂) / √(s₁²/n₁ + s₂²/n₂), with the Welch–Satterthwaite degrees of
//! freedom ν = (s₁²/n₁ + s₂²/n₂)² / ((s₁²/n₁)²/(n₁−1) + (s₂²/n₂)²/(n₂−1))
//! (B. L. Welch, "The generalization of 'Student's' problem when several
//! different population variances are involved", Biometrika 34, 1947). The
//! p-value is two-sided, from Student's t with ν degrees of freedom (statrs).

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The outcome of the test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Welch {
    /// The t statistic (positive when the first mean is larger).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

fn mean_and_variance(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, variance)
}

/// Tests whether the means of `a` and `b` differ; None with fewer than two
/// values on a side. When both sides have no spread, the p-value is 1 for
/// equal means and 0 for different ones.
pub fn test(a: &[f64], b: &[f64]) -> Option<Welch> {
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let (mean_a, var_a) = mean_and_variance(a);
    let (mean_b, var_b) = mean_and_variance(b);
    let (se_a, se_b) = (var_a / a.len() as f64, var_b / b.len() as f64);
    let se = (se_a + se_b).sqrt();
    if se == 0.0 {
        let differ = mean_a != mean_b;
        let t = if differ {
            f64::INFINITY.copysign(mean_a - mean_b)
        } else {
            0.0
        };
        return Some(Welch {
            t,
            df: (a.len() + b.len() - 2) as f64,
            p: if differ { 0.0 } else { 1.0 },
        });
    }
    let t = (mean_a - mean_b) / se;
    let df = (se_a + se_b).powi(2)
        / (se_a.powi(2) / (a.len() as f64 - 1.0) + se_b.powi(2) / (b.len() as f64 - 1.0));
    let distribution = StudentsT::new(0.0, 1.0, df).ok()?;
    let p = 2.0 * (1.0 - distribution.cdf(t.abs()));
    Some(Welch { t, df, p })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_textbook_example() {
        // The first worked example of Wikipedia's "Welch's t-test" article:
        // t = −2.46, ν = 24.99, p = 0.021. The p-value's further digits
        // (0.02138) come from integrating the t density numerically.
        let a = [
            27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7,
            21.4,
        ];
        let b = [
            27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5,
            24.4,
        ];
        let result = test(&a, &b).unwrap();
        assert!((result.t - -2.46).abs() < 0.005, "{result:?}");
        assert!((result.df - 24.9885).abs() < 0.001, "{result:?}");
        assert!((result.p - 0.02138).abs() < 0.0001, "{result:?}");
    }

    #[test]
    fn symmetric_and_degenerate_cases() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [2.0, 3.0, 4.0, 5.0, 6.0];
        let ab = test(&a, &b).unwrap();
        let ba = test(&b, &a).unwrap();
        assert!((ab.t + ba.t).abs() < 1e-12 && (ab.p - ba.p).abs() < 1e-12);
        assert!(test(&[1.0], &b).is_none());
        assert_eq!(test(&[3.0, 3.0], &[3.0, 3.0]).unwrap().p, 1.0);
        assert_eq!(test(&[3.0, 3.0], &[4.0, 4.0]).unwrap().p, 0.0);
    }
}
