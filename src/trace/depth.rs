//! The device's queue as a block trace records it: dispatches (`D`) and completions (`C`) by sector, integrated over time into the mean I/Os in flight and the most at once.

use std::collections::HashMap;

/// The most dispatches held waiting for their completions: a trace whose
/// completions are missing (a tracer that dropped events) stops counting
/// instead of growing without bound.
const MOST_IN_FLIGHT: usize = 1 << 20;

/// Dispatched and not yet completed I/Os, and the integral of their count.
#[derive(Default)]
pub(super) struct DeviceDepth {
    /// Dispatches by sector: how many are out at it.
    out: HashMap<u64, u32>,
    in_flight: u64,
    most: u64,
    area: u128,
    first: Option<u64>,
    last: u64,
    gave_up: bool,
}

impl DeviceDepth {
    fn advance(&mut self, time_ns: u64) {
        let first = *self.first.get_or_insert(time_ns);
        let now = time_ns.max(first).max(self.last);
        self.area += u128::from(now - self.last.max(first)) * u128::from(self.in_flight);
        self.last = now;
    }

    /// An I/O dispatched to the device at `time_ns`, starting at `sector`.
    pub(super) fn dispatched(&mut self, time_ns: u64, sector: u64) {
        if self.gave_up {
            return;
        }
        self.advance(time_ns);
        *self.out.entry(sector).or_default() += 1;
        self.in_flight += 1;
        self.most = self.most.max(self.in_flight);
        if self.out.len() > MOST_IN_FLIGHT {
            self.gave_up = true;
            self.out.clear();
        }
    }

    /// An I/O completed at `time_ns` at `sector` (one dispatched before the
    /// trace began is not counted).
    pub(super) fn completed(&mut self, time_ns: u64, sector: u64) {
        if self.gave_up {
            return;
        }
        if !self.out.contains_key(&sector) {
            return;
        }
        self.advance(time_ns);
        let count = self.out.get_mut(&sector).expect("checked");
        *count -= 1;
        if *count == 0 {
            self.out.remove(&sector);
        }
        self.in_flight -= 1;
    }

    /// The time-weighted mean in flight and the most at once, when any
    /// dispatch was seen.
    pub(super) fn figures(&self) -> Option<(f64, u64)> {
        let first = self.first?;
        (!self.gave_up && self.last > first)
            .then(|| (self.area as f64 / (self.last - first) as f64, self.most))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_overlapping_ios_average_over_the_span() {
        let mut depth = DeviceDepth::default();
        depth.dispatched(0, 8);
        depth.dispatched(10, 16);
        depth.completed(20, 8);
        depth.completed(30, 16);
        depth.completed(40, 99); // dispatched before the trace: ignored
        // 1 in flight for 10, 2 for 10, 1 for 10: 40 / 30.
        let (mean, most) = depth.figures().unwrap();
        assert!((mean - 4.0 / 3.0).abs() < 1e-9, "{mean}");
        assert_eq!(most, 2);
    }
}
