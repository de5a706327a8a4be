//! The latencies of a repetition's I/Os per I/O priority: those that carried each priority of their direction's command shares and the rest, at their thread's (fio's `prios`).

use crate::plan::Workload;
use crate::plan::direction::Direction;
use crate::record::PriorityLatency;
use crate::record::histogram::{latency_summary, new_histogram};
use crate::run::io::recorder::JobOutcome;
use hdrhistogram::Histogram;

/// Per direction with command shares in `workload`, the latencies of the
/// I/Os of `jobs` that carried each priority the shares give (once per
/// priority, as fio keeps them), then of the rest; empty without a share.
/// The rest is each direction's histogram less the shares': all recorded
/// the same latencies at the same precision, so the subtraction is exact.
pub fn priorities(workload: &Workload, jobs: &[JobOutcome]) -> Vec<PriorityLatency> {
    let Some(priority) = workload.priority.as_ref().filter(|p| p.per_command()) else {
        return Vec::new();
    };
    let mix = workload.directions();
    let mut kept = Vec::new();
    for direction in [Direction::Read, Direction::Write] {
        let shares = &priority.command[direction.index()];
        if shares.is_empty() || !mix.takes(direction) {
            continue;
        }
        let mut carried: Vec<(crate::plan::priority::IoPriority, Histogram<u64>)> = Vec::new();
        for share in shares {
            if carried
                .iter()
                .all(|(kept, _)| kept.value() != share.priority.value())
            {
                carried.push((share.priority, new_histogram()));
            }
        }
        let mut all = new_histogram();
        for job in jobs {
            let recorded = job.prioritized.iter().flatten();
            for (_, value, latency) in recorded.filter(|(d, _, _)| *d == direction) {
                if let Some((_, histogram)) = carried.iter_mut().find(|(p, _)| p.value() == *value)
                {
                    // Same bounds: both made by new_histogram.
                    let _ = histogram.add(&*latency.histogram());
                }
            }
            let taken = match job.directions.iter().find(|d| d.direction == direction) {
                Some(part) => part.latency.histogram(),
                None if job.directions.is_empty() && mix.taken() == 1 => job.latency.histogram(),
                None => continue,
            };
            let _ = all.add(&*taken);
        }
        let mut rest: Histogram<u64> = all;
        if carried
            .iter()
            .any(|(_, histogram)| rest.subtract(histogram).is_err())
        {
            // Never expected: every carried latency was recorded in both.
            continue;
        }
        let parts = carried
            .into_iter()
            .map(|(share, histogram)| (Some(share.to_string()), true, histogram))
            .chain([(priority.job.map(|job| job.to_string()), false, rest)]);
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
