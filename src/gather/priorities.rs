//! The latencies of a repetition's I/Os per I/O priority: those that carried their direction's command share and the rest, at their thread's (fio's `prios`).

use crate::plan::Workload;
use crate::plan::direction::Direction;
use crate::record::PriorityLatency;
use crate::record::histogram::{latency_summary, new_histogram};
use crate::run::io::recorder::JobOutcome;
use hdrhistogram::Histogram;

/// Per direction with a command share in `workload`, the latencies of the
/// I/Os of `jobs` that carried it, then of the rest; empty without a share.
/// The rest is each direction's histogram less the share's: both recorded
/// the same latencies at the same precision, so the subtraction is exact.
pub fn priorities(workload: &Workload, jobs: &[JobOutcome]) -> Vec<PriorityLatency> {
    let Some(priority) = workload.priority.filter(|p| p.per_command()) else {
        return Vec::new();
    };
    let mix = workload.directions();
    let mut kept = Vec::new();
    for direction in [Direction::Read, Direction::Write] {
        let Some(share) = priority.command[direction.index()] else {
            continue;
        };
        if !mix.takes(direction) {
            continue;
        }
        let mut carried = new_histogram();
        let mut all = new_histogram();
        for job in jobs {
            let shares = job.prioritized.iter().flatten();
            for (_, latency) in shares.filter(|(d, _)| *d == direction) {
                // Same bounds: both made by new_histogram.
                let _ = carried.add(&*latency.histogram());
            }
            let taken = match job.directions.iter().find(|d| d.direction == direction) {
                Some(part) => part.latency.histogram(),
                None if job.directions.is_empty() && mix.taken() == 1 => job.latency.histogram(),
                None => continue,
            };
            let _ = all.add(&*taken);
        }
        let mut rest: Histogram<u64> = all;
        if rest.subtract(&carried).is_err() {
            // Never expected: every carried latency was recorded in both.
            continue;
        }
        let parts = [
            (Some(share.priority.to_string()), true, carried),
            (priority.job.map(|job| job.to_string()), false, rest),
        ];
        for (priority, per_command, histogram) in parts {
            if histogram.is_empty() {
                continue;
            }
            if let Ok(latency_ns) = latency_summary(&histogram) {
                kept.push(PriorityLatency {
                    direction,
                    priority,
                    per_command,
                    latency_ns,
                });
            }
        }
    }
    kept
}
