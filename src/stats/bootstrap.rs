//! Percentile bootstrap interval of the ratio of two means (B. Efron and R. Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13).
//!
//! Each round resamples both groups with replacement and takes the ratio of
//! the resampled means; the interval is the 2.5th and 97.5th percentile of
//! the rounds. The generator is seeded, so the same data give the same
//! interval every time.

/// Rounds of resampling.
pub const ROUNDS: usize = 10_000;

/// SplitMix64: small, fast, and good enough to draw resampling indices.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next()) * n as u128) >> 64) as usize
    }
}

fn resampled_mean(values: &[f64], rng: &mut SplitMix) -> f64 {
    (0..values.len())
        .map(|_| values[rng.below(values.len())])
        .sum::<f64>()
        / values.len() as f64
}

/// The 95% percentile-bootstrap interval of mean(`other`) / mean(`base`);
/// None with fewer than two values on a side or a base mean of zero.
pub fn ratio_interval(base: &[f64], other: &[f64]) -> Option<(f64, f64)> {
    if base.len() < 2 || other.len() < 2 || base.iter().sum::<f64>() == 0.0 {
        return None;
    }
    let mut rng = SplitMix(0x1015_AB00_0000_0001);
    let mut ratios: Vec<f64> = (0..ROUNDS)
        .filter_map(|_| {
            let b = resampled_mean(base, &mut rng);
            (b != 0.0).then(|| resampled_mean(other, &mut rng) / b)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| ratios[((ratios.len() - 1) as f64 * q).round() as usize];
    Some((at(0.025), at(0.975)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_clear_speedup_and_no_difference() {
        let base = [100.0, 101.0, 99.0, 100.5, 99.5];
        let faster = [150.0, 151.0, 149.0, 150.5, 149.5];
        let (low, high) = ratio_interval(&base, &faster).unwrap();
        assert!(low > 1.48 && high < 1.52, "{low}-{high}");
        let (low, high) = ratio_interval(&base, &base).unwrap();
        assert!(low < 1.0 && high > 1.0 && high - low < 0.03, "{low}-{high}");
        assert!(ratio_interval(&[1.0], &faster).is_none());
    }

    proptest! {
        #[test]
        fn the_interval_lies_within_the_extreme_ratios_and_is_repeatable(
            base in proptest::collection::vec(1.0f64..1e6, 2..12),
            other in proptest::collection::vec(1.0f64..1e6, 2..12),
        ) {
            let (low, high) = ratio_interval(&base, &other).unwrap();
            let lowest = other.iter().cloned().fold(f64::MAX, f64::min) / base.iter().cloned().fold(0.0, f64::max);
            let highest = other.iter().cloned().fold(0.0, f64::max) / base.iter().cloned().fold(f64::MAX, f64::min);
            prop_assert!(low <= high);
            prop_assert!(lowest <= low * (1.0 + 1e-9) && high <= highest * (1.0 + 1e-9));
            prop_assert_eq!(ratio_interval(&base, &other), Some((low, high)));
        }
    }
}
