//! `command-priority`: what a point with command priorities measured per priority (the share's I/Os and the rest, per direction), and whether the devices' schedulers could tell them apart.

use super::Findings;
use crate::plan::direction::Direction;
use crate::plan::units::format_size;
use crate::record::environment::Storage;
use crate::record::{LatencySummary, Point, Severity, Status};

/// Adds `command-priority` (info): per direction with a share, how many
/// I/Os carried its priority and the median and 99th percentile of each
/// side, over the measured repetitions; a warning instead when every
/// device below the file has no scheduler (`none`), which serves every
/// priority alike.
pub fn checks(point: &Point, storage: Option<&Storage>, found: &mut Findings) {
    let Some(priority) = point.workload.priority.as_ref().filter(|p| p.per_command()) else {
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
        let side = |carried: Option<&str>| -> Option<LatencySummary> {
            let latencies: Vec<_> = parts
                .iter()
                .filter(|p| p.direction == direction)
                .filter(|p| match carried {
                    Some(carried) => p.per_command && p.priority.as_deref() == Some(carried),
                    None => !p.per_command,
                })
                .map(|p| &p.latency_ns)
                .collect();
            crate::record::histogram::merged_latency(&latencies)
                .ok()
                .flatten()
        };
        let shares = &priority.command[direction.index()];
        if shares.is_empty() {
            continue;
        }
        let count = |side: &Option<LatencySummary>| side.as_ref().map_or(0, |l| l.count);
        let figures = |side: &Option<LatencySummary>| match side {
            Some(l) => format!("p50 {}, p99 {}", at(l, 50.0), at(l, 99.0)),
            None => "none".to_string(),
        };
        // Each priority the shares give once, with what was asked of it.
        let mut carried: Vec<(String, Vec<String>)> = Vec::new();
        for share in shares {
            let asked = match share.size {
                Some(size) => format!(
                    "{}% of {} {}s",
                    share.percent,
                    format_size(size),
                    direction.name()
                ),
                None => format!("{}%", share.percent),
            };
            let name = share.priority.to_string();
            match carried.iter_mut().find(|(kept, _)| *kept == name) {
                Some((_, asks)) => asks.push(asked),
                None => carried.push((name, vec![asked])),
            }
        }
        let rest = side(None);
        let carried: Vec<_> = carried
            .into_iter()
            .map(|(name, asks)| {
                let latency = side(Some(&name));
                (name, asks, latency)
            })
            .collect();
        let total = count(&rest) + carried.iter().map(|(_, _, l)| count(l)).sum::<u64>();
        if total == 0 {
            continue;
        }
        let each: Vec<String> = carried
            .iter()
            .map(|(name, asks, latency)| {
                format!(
                    "{} ({:.1}%, asked {}) carried {name}: {}",
                    count(latency),
                    100.0 * count(latency) as f64 / total as f64,
                    asks.join(" + "),
                    figures(latency),
                )
            })
            .collect();
        said.push(format!(
            "{}s: of {total}, {}; the rest at {}: {}",
            direction.name(),
            each.join(", "),
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
        found.act(
            "command-priority-unscheduled",
            Severity::Warning,
            format!(
                "{}; but every device below the file has I/O scheduler none, which serves every priority alike: a difference between them is not the priorities' doing",
                said.join("; ")
            ),
            "set mq-deadline or bfq in /sys/block/DEV/queue/scheduler, which honour them",
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
        .map_or("-".to_string(), |ns| crate::plan::units::latency(ns as f64))
}
