//! Outliers by the median absolute deviation: the modified z-score of Iglewicz and Hoaglin.
//!
//! M_i = 0.6745 (x_i − median) / MAD, and |M_i| > 3.5 flags an outlier
//! (B. Iglewicz and D. C. Hoaglin, "How to Detect and Handle Outliers", ASQC
//! Quality Press, 1993). Unlike a test on mean and standard deviation, one wild
//! value cannot hide itself by inflating the spread. Outliers are only marked;
//! they stay in every figure.

/// The modified z-score above which a value is an outlier.
pub const THRESHOLD: f64 = 3.5;

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The fewest values the test is applied to: with three or four, the MAD
/// rests on one or two deviations and flags ordinary spread.
pub const MIN_VALUES: usize = 5;

/// Which of `values` are outliers. Fewer than [`MIN_VALUES`] values, or a
/// MAD of zero (half or more of the values equal), flag nothing.
pub fn flag(values: &[f64]) -> Vec<bool> {
    if values.len() < MIN_VALUES {
        return vec![false; values.len()];
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let center = median(&sorted);
    let mut deviations: Vec<f64> = values.iter().map(|v| (v - center).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    let mad = median(&deviations);
    if mad == 0.0 {
        return vec![false; values.len()];
    }
    values
        .iter()
        .map(|v| (0.6745 * (v - center) / mad).abs() > THRESHOLD)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn one_wild_value_among_steady_ones() {
        // median 100, MAD 1: 130 scores 0.6745 × 30 = 20.2.
        let flags = flag(&[99.0, 100.0, 101.0, 100.0, 130.0, 99.0, 101.0]);
        assert_eq!(flags, [false, false, false, false, true, false, false]);
    }

    #[test]
    fn the_textbook_boundary() {
        // median 10, MAD 1: a value scores 0.6745·|x − 10|; 15.19 is just
        // below 3.5, 15.20 just above.
        let values = |x: f64| vec![9.0, 10.0, 11.0, 10.0, 9.0, 11.0, x];
        assert!(!flag(&values(15.18))[6]);
        assert!(flag(&values(15.20))[6]);
    }

    #[test]
    fn too_few_or_identical_values_flag_nothing() {
        assert_eq!(flag(&[1.0, 100.0]), [false, false]);
        assert_eq!(
            flag(&[100.0, 101.0, 500.0, 99.0]),
            [false; 4],
            "four values are too few"
        );
        assert_eq!(flag(&[5.0, 5.0, 5.0, 9.0, 5.0]), [false; 5]);
    }

    proptest! {
        #[test]
        fn at_most_half_are_outliers_and_scaling_changes_nothing(
            values in proptest::collection::vec(1.0f64..1e9, 5..30),
            scale in 0.001f64..1000.0,
        ) {
            let flags = flag(&values);
            prop_assert!(flags.iter().filter(|f| **f).count() * 2 <= values.len());
            let scaled: Vec<f64> = values.iter().map(|v| v * scale).collect();
            prop_assert_eq!(flag(&scaled), flags);
        }
    }
}
