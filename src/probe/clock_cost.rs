//! What one read of the hot path's clock costs on this machine: iolab reads it around every I/O, so a slow clock source (a guest's HPET, a VM without a stable TSC) is part of every latency it prints.

/// Reads per batch: enough to dwarf the two reads that time the batch.
const READS: u32 = 20_000;

/// The cost of one `clock::now_ns()`, ns: the least of five batches (the
/// others met a preemption or a cold cache). About 5 ms on a TSC at 20 ns
/// a read, 75 ms on an HPET at 0.74 µs.
pub fn read_cost_ns() -> f64 {
    (0..5)
        .map(|_| {
            let start = crate::clock::now_ns();
            for _ in 0..READS {
                std::hint::black_box(crate::clock::now_ns());
            }
            crate::clock::now_ns().saturating_sub(start) as f64 / f64::from(READS)
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_clock_read_costs_some_nanoseconds_and_under_a_millisecond() {
        let cost = super::read_cost_ns();
        assert!(cost > 0.0 && cost < 1e6, "{cost} ns");
    }
}
