//! `slow-clock`: the clock iolab times every I/O with costs more than a TSC's tens of nanoseconds per read (a guest's HPET, a VM without a stable TSC), so part of each latency printed is the clock itself.

use super::Findings;
use crate::record::environment::Environment;
use crate::record::{Point, Severity};

/// A read above this is slow: a TSC reads in 20–50 ns through the vDSO;
/// HPET and acpi_pm take 0.5–3 µs, a system call each.
const SLOW_READ_NS: f64 = 200.0;

/// The share of the mean latency the clock may take before the finding is
/// a warning rather than information.
const WARN_SHARE: f64 = 0.05;

/// Adds `slow-clock` when `environment`'s clock, where `point` was timed,
/// costs more than [`SLOW_READ_NS`] a read: its cost per I/O (two reads)
/// and its share of the point's mean latency.
pub fn checks(point: &Point, environment: &Environment, found: &mut Findings) {
    let Some(cost) = environment.clock_read_ns.filter(|&ns| ns > SLOW_READ_NS) else {
        return;
    };
    let per_io = 2.0 * cost;
    let mean = point
        .summary
        .as_ref()
        .and_then(|s| s.latency_ns.as_ref())
        .map(|l| l.mean)
        .filter(|&mean| mean > 0.0);
    let share = mean.map(|mean| per_io / mean);
    let severity = if share.is_some_and(|s| s >= WARN_SHARE) {
        Severity::Warning
    } else {
        Severity::Info
    };
    found.act(
        "slow-clock",
        severity,
        // The share differs from point to point, so it is evidence: the
        // same message on every point is summarised as one line.
        format!(
            "reading the clock costs {:.2} µs here (clock source {}): iolab reads it twice per I/O, so {:.2} µs of each latency is the clock",
            cost / 1000.0,
            environment.clocksource.as_deref().unwrap_or("unknown"),
            per_io / 1000.0,
        ),
        "compare latencies only between machines of one clock source, or give the guest a TSC (KVM with an invariant TSC)",
        match share {
            Some(share) => format!(
                "{:.1}% of this point's mean latency; clock read {cost:.0} ns (least of five batches of 20,000 reads)",
                share * 100.0
            ),
            None => format!("clock read {cost:.0} ns (least of five batches of 20,000 reads)"),
        },
    );
}
