//! The pseudo-random draws every per-I/O choice is made from, written once: SplitMix64 (offsets, skewed laws), its finalizer, a keyed permutation (random order without repeats), and xorshift64 (directions, sizes, data, arrival gaps). A leaf: it names nothing of the crate.

/// One step of Marsaglia's xorshift64 ("Xorshift RNGs", J. Stat. Softw.
/// 2003, shifts 13, 7, 17): the cheap draw the per-I/O choices that need
/// only a few bits of quality take. `state` must not be 0; returns the new
/// state, which is the draw.
#[inline(always)]
pub fn xorshift64(state: &mut u64) -> u64 {
    let mut x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    x
}

/// SplitMix64 finalizer (Steele, Lea & Flood, "Fast splittable pseudorandom
/// number generators", OOPSLA 2014): a strong 64-bit mixing function.
#[inline]
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct SplitMix64(
    /// The state: the seed, then advanced by each draw.
    pub u64,
);

impl SplitMix64 {
    /// The next draw, uniform over all 64-bit values.
    #[inline]
    #[allow(clippy::should_implement_trait)] // an endless draw, not an Iterator
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in `0..bound` without modulo bias (Lemire, "Fast random integer
    /// generation in an interval", ACM TOMACS 2019; the rare rejection step is
    /// omitted, leaving a bias below 2^-64 * bound).
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next() as u128 * bound as u128) >> 64) as u64
    }
}

/// A keyed bijection on `0..domain`: an alternating Feistel network on
/// the smallest power of two covering the domain (its high and low halves
/// differ by a bit at most), with cycle walking.
#[derive(Clone, Debug)]
pub struct Permutation {
    domain: u64,
    low_bits: u32,
    low_mask: u64,
    high_mask: u64,
    /// 64 − the bits a round changes: a round keeps the top bits of a hash.
    shifts: [u32; 2],
    keys: [u64; 4],
}

impl Permutation {
    /// The permutation of `0..domain` that `key` picks.
    pub fn new(domain: u64, key: u64) -> Self {
        let bits = (64 - (domain.max(2) - 1).leading_zeros()).max(2);
        let low_bits = bits / 2;
        let high_bits = bits - low_bits;
        Permutation {
            domain,
            low_bits,
            low_mask: (1u64 << low_bits) - 1,
            high_mask: (1u64 << high_bits) - 1,
            shifts: [64 - high_bits, 64 - low_bits],
            keys: [mix(key), mix(key ^ 1), mix(key ^ 2), mix(key ^ 3)],
        }
    }

    /// Where `index` goes: a value in `0..domain`, a different one for each index.
    #[inline]
    pub fn apply(&self, index: u64) -> u64 {
        // The network permutes 0..2^bits, less than twice the domain, so
        // cycle walking takes fewer than two rounds on average (one for a
        // power of two: a 512 MiB file of 4 KiB blocks).
        let mut value = index;
        loop {
            value = self.feistel(value);
            if value < self.domain {
                return value;
            }
        }
    }

    #[inline]
    fn feistel(&self, value: u64) -> u64 {
        let mut high = value >> self.low_bits;
        let mut low = value & self.low_mask;
        for (round, key) in self.keys.iter().enumerate() {
            // Each round changes one half by a hash of the other, in turn:
            // a bijection whatever the hash. The hash is the SplitMix64
            // finalizer's core (two multiplies): Fibonacci hashing alone
            // (one multiply) spread neighbours evenly, and 36 of 100 keys
            // failed a runs test at 256 blocks (tests below).
            if round % 2 == 0 {
                high ^= hash(low ^ key) >> self.shifts[0];
            } else {
                low ^= hash(high ^ key) >> self.shifts[1];
            }
        }
        ((high & self.high_mask) << self.low_bits) | (low & self.low_mask)
    }
}

/// A round's hash: a multiply, an xorshift and a multiply (the SplitMix64
/// finalizer less its last steps), whose top bits the round keeps.
#[inline(always)]
fn hash(value: u64) -> u64 {
    let mixed = value.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed ^ (mixed >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift64_follows_marsaglia() {
        let mut state = 1;
        // x=1: x ^= x<<13 → 0x2001; x ^= x>>7 → 0x2041; x ^= x<<17 → 0x40822041.
        assert_eq!(xorshift64(&mut state), 0x4082_2041);
        assert_eq!(state, 0x4082_2041);
    }

    #[test]
    fn a_permutation_visits_every_index_once() {
        // Odd bit counts too (5, 4097): the halves differ by a bit.
        for domain in [1u64, 2, 3, 5, 1000, 4097] {
            let permutation = Permutation::new(domain, 42);
            let mut seen: Vec<u64> = (0..domain).map(|i| permutation.apply(i)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..domain).collect::<Vec<_>>());
        }
        let mut rng = SplitMix64(mix(7));
        assert!((0..1000).all(|_| rng.below(10) < 10));
    }

    /// The two-sided p-value of the Wald–Wolfowitz runs test on `order`
    /// (a permutation of `0..order.len()`) split at its median: too few runs
    /// (neighbours in the same half) or too many say the order has structure.
    fn runs_test_p(order: &[u64]) -> f64 {
        use statrs::distribution::{ContinuousCDF, Normal};
        let n = order.len() as f64;
        let half = order.len() as u64 / 2;
        let low: Vec<bool> = order.iter().map(|&v| v < half).collect();
        let lows = low.iter().filter(|&&l| l).count() as f64;
        let highs = n - lows;
        let runs = 1 + low.windows(2).filter(|w| w[0] != w[1]).count();
        let mean = 2.0 * lows * highs / n + 1.0;
        let variance = (mean - 1.0) * (mean - 2.0) / (n - 1.0);
        let z = (runs as f64 - mean) / variance.sqrt();
        2.0 * (1.0 - Normal::standard().cdf(z.abs()))
    }

    /// The order a random pass takes passes the runs test as a random
    /// order does: over 100 keys about 5% fall under p = 0.05 (12 or more
    /// has a chance of 0.2% for a truly random order) and none is extreme.
    /// The multiplicative round function alone failed 36 of 100 keys at
    /// 256 blocks, the least at p < 1e-300; this one 10, 8, 4, 6, 5 and 4
    /// of 100 at the six sizes.
    #[test]
    fn a_permutations_order_passes_a_runs_test_over_many_keys() {
        for domain in [256u64, 1000, 4096, 65_536, 100_000, 131_072] {
            let p_values: Vec<f64> = (0..100u64)
                .map(|seed| {
                    let permutation = Permutation::new(domain, mix(seed));
                    let order: Vec<u64> = (0..domain).map(|i| permutation.apply(i)).collect();
                    runs_test_p(&order)
                })
                .collect();
            let rejected = p_values.iter().filter(|&&p| p < 0.05).count();
            let least = p_values.iter().copied().fold(1.0, f64::min);
            assert!(
                rejected < 12 && least > 1e-4,
                "{domain} blocks: {rejected} of 100 keys under p = 0.05, least p {least:.2e}"
            );
        }
    }
}
