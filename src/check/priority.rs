//! `command-priority`: what a point with command priorities measured per priority (the share's I/Os and the rest, per direction), and whether the devices' schedulers could tell them apart.

use super::Findings;
use crate::plan::direction::Direction;
use crate::record::environment::Storage;
use crate::record::{LatencySummary, Point, Severity, Status};

/// Adds `command-priority` (info): per direction with a share, how many
/// I/Os carried its priority and the median and 99th percentile of each
/// side, over the measured repetitions; a warning instead when every
/// device below the file has no scheduler (`none`), which serves every
/// priority alike.
pub fn checks(point: &Point, storage: Option<&Storage>, found: &mut Findings) {
    let Some(priority) = point.workload.priority.filter(|p| p.per_command()) else {
        return;
    };
    let parts: Vec<_> = point
        .repetitions
        .iter()
        .filter(|r| !r.warmup && r.status == Status::Ok)
        .flat_map(|r| &r.priorities)
        .collect();
    let mut said = Vec::new();
    for direction in [Direction::Read, Direction::Write] {
        let side = |per_command: bool| -> Option<LatencySummary> {
            let latencies: Vec<_> = parts
                .iter()
                .filter(|p| p.direction == direction && p.per_command == per_command)
                .map(|p| &p.latency_ns)
                .collect();
            crate::record::histogram::merged_latency(&latencies)
                .ok()
                .flatten()
        };
        let Some(share) = priority.command[direction.index()] else {
            continue;
        };
        let (carried, rest) = (side(true), side(false));
        let count = |side: &Option<LatencySummary>| side.as_ref().map_or(0, |l| l.count);
        let total = count(&carried) + count(&rest);
        if total == 0 {
            continue;
        }
        let figures = |side: &Option<LatencySummary>| match side {
            Some(l) => format!("p50 {}, p99 {}", at(l, 50.0), at(l, 99.0)),
            None => "none".to_string(),
        };
        said.push(format!(
            "{}s: {} of {} ({:.1}%, asked {}%) carried {}: {}; the rest at {}: {}",
            direction.name(),
            count(&carried),
            total,
            100.0 * count(&carried) as f64 / total as f64,
            share.percent,
            share.priority,
            figures(&carried),
            priority
                .job
                .map_or("the thread's own priority".to_string(), |p| p.to_string()),
            figures(&rest),
        ));
    }
    if said.is_empty() {
        return;
    }
    let schedulers: Vec<&str> = storage
        .map(|s| {
            s.devices
                .iter()
                .filter_map(|d| d.scheduler.as_deref())
                .collect()
        })
        .unwrap_or_default();
    if !schedulers.is_empty() && schedulers.iter().all(|s| *s == "none") {
        found.add(
            "command-priority-unscheduled",
            Severity::Warning,
            format!(
                "{}; but every device below the file has I/O scheduler none, which serves every priority alike: a difference between them is not the priorities' doing (mq-deadline or bfq honour them)",
                said.join("; ")
            ),
            "schedulers: none".to_string(),
        );
        return;
    }
    found.add(
        "command-priority",
        Severity::Info,
        said.join("; "),
        format!("per-command priority on {}", priority),
    );
}

/// Percentile `p` of `latency`, or "-" when it was not kept.
fn at(latency: &LatencySummary, p: f64) -> String {
    latency
        .percentile(p)
        .map_or("-".to_string(), |ns| format!("{:.1} µs", ns as f64 / 1e3))
}
