//! Convergence along a size axis: the smallest data size from which results stop moving.
//!
//! Seed 000 picks its data size by eye: "the obtained values tend to converge
//! at bigger amounts of data". Here the reference is the mean of the largest
//! sizes (the top quarter, at least two); a size is stable when its mean
//! throughput is within ± `tolerance` of the reference and its coefficient of
//! variation is at most `max_cv`. The answer is the smallest size from which
//! every larger size is stable too.

/// One size's figures: size in bytes, mean throughput, coefficient of variation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SizePoint {
    /// Data size, bytes.
    pub size: u64,
    /// Mean throughput, bytes/s.
    pub mean: f64,
    /// Coefficient of variation over repetitions (0 with one repetition).
    pub cv: f64,
}

/// The verdict over a size axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Convergence {
    /// Mean of the largest sizes' means, bytes/s.
    pub reference: f64,
    /// How many of the largest sizes make the reference.
    pub reference_sizes: usize,
    /// The smallest size from which all are stable; None when even the largest is not.
    pub stable_from: Option<u64>,
}

/// Finds where `points` (any order) converge; None with fewer than 3 sizes.
pub fn converge(points: &[SizePoint], tolerance: f64, max_cv: f64) -> Option<Convergence> {
    if points.len() < 3 {
        return None;
    }
    let mut sorted = points.to_vec();
    sorted.sort_by_key(|p| p.size);
    let reference_sizes = (sorted.len() / 4).max(2);
    let top = &sorted[sorted.len() - reference_sizes..];
    let reference = top.iter().map(|p| p.mean).sum::<f64>() / reference_sizes as f64;
    let stable =
        |p: &SizePoint| (p.mean - reference).abs() <= tolerance * reference && p.cv <= max_cv;
    let mut stable_from = None;
    for point in sorted.iter().rev() {
        if !stable(point) {
            break;
        }
        stable_from = Some(point.size);
    }
    Some(Convergence {
        reference,
        reference_sizes,
        stable_from,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 000's Table 2, "Read 1MiB block with O_DIRECT" (MiB/s), 1 MiB to 16 GiB.
    const SEED_000_READ: [f64; 15] = [
        26.8, 83.5, 109.6, 106.0, 102.6, 106.4, 105.5, 101.4, 101.9, 102.2, 102.3, 102.2, 102.3,
        102.2, 101.5,
    ];
    /// The same table's "Write 1MiB block" column.
    const SEED_000_WRITE: [f64; 15] = [
        37.3, 67.7, 62.0, 73.3, 76.9, 76.4, 78.9, 81.6, 90.0, 94.1, 97.3, 99.6, 100.9, 101.2, 100.6,
    ];

    fn table(column: &[f64]) -> Vec<SizePoint> {
        column
            .iter()
            .enumerate()
            .map(|(i, mib)| SizePoint {
                size: (1u64 << 20) << i,
                mean: mib * 1048576.0,
                cv: 0.0,
            })
            .collect()
    }

    #[test]
    fn seed_000s_tables_converge_where_the_authors_saw_it() {
        // Reads settle at 128 MiB within ±1% of the largest sizes (4 of 15 sizes).
        let read = converge(&table(&SEED_000_READ), 0.01, 0.05).unwrap();
        assert_eq!(read.reference_sizes, 3);
        assert_eq!(read.stable_from, Some(128 << 20));
        // Buffered writes climb for longer: within ±5% only from 1 GiB, the size the authors chose.
        let write = converge(&table(&SEED_000_WRITE), 0.05, 0.05).unwrap();
        assert_eq!(write.stable_from, Some(1 << 30));
    }

    #[test]
    fn noise_or_too_few_sizes() {
        let mut noisy = table(&SEED_000_READ);
        noisy.last_mut().unwrap().cv = 0.2;
        assert_eq!(converge(&noisy, 0.05, 0.05).unwrap().stable_from, None);
        assert!(converge(&table(&SEED_000_READ[..2]), 0.05, 0.05).is_none());
    }
}
