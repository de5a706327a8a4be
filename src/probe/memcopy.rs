//! The memory-copy bandwidth of this machine: the ceiling for anything served from the page cache.

/// Bytes copied per round.
const BYTES: usize = 64 << 20;

/// Copies a 64 MiB buffer three times and returns the best rate, bytes/s.
/// About 30 ms and 128 MiB of memory, once per result file; `None` when the
/// memory cannot be had (an address-space limit), rather than an abort.
pub fn bandwidth() -> Option<f64> {
    let buffer = || {
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(BYTES).ok()?;
        bytes.resize(BYTES, 1u8);
        Some(bytes)
    };
    let source = buffer()?;
    let mut target = buffer()?;
    let mut best = 0.0f64;
    for _ in 0..3 {
        let start = std::time::Instant::now();
        target.copy_from_slice(std::hint::black_box(&source));
        std::hint::black_box(&target);
        best = best.max(BYTES as f64 / start.elapsed().as_secs_f64().max(1e-9));
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    #[test]
    fn copying_is_measurably_fast() {
        // Any machine copies faster than 100 MB/s; a broken timer would not.
        assert!(super::bandwidth().unwrap() > 1e8);
    }
}
