//! `latency-target`: what a point with a latency target measured: the depth each job's search ended at, and whether its figures are the one window at that depth or span the search.

use super::Findings;
use crate::record::{Point, Severity, Status};
use std::collections::BTreeSet;

/// Adds `latency-target` (info) when every job of every measured
/// repetition held a depth and measured one window there, or
/// `latency-target-unsettled` (warning) when some job ended first or kept
/// adjusting, so its figures span the depths it tried.
pub fn checks(point: &Point, found: &mut Findings) {
    let Some(target) = point.workload.latency_target else {
        return;
    };
    let jobs: Vec<_> = point
        .repetitions
        .iter()
        .filter(|r| !r.warmup && r.status == Status::Ok)
        .flat_map(|r| &r.jobs)
        .collect();
    let depths: BTreeSet<u32> = jobs.iter().filter_map(|job| job.latency_depth).collect();
    if depths.is_empty() {
        return;
    }
    let listed = depths
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let within = format!(
        "{}% of each {} window's I/Os within {}",
        target.percentile,
        crate::plan::units::format_duration_ns(target.window_ns),
        crate::plan::units::format_duration_ns(target.target_ns),
    );
    let unsettled = jobs
        .iter()
        .filter(|job| job.latency_settled == Some(false))
        .count();
    if unsettled == 0 {
        found.add(
            "latency-target",
            Severity::Info,
            format!(
                "the deepest queue (of iodepth {}) that kept {within} was {listed}: the figures are one window at that depth, the search before it left out, as fio reports a latency_target job",
                point.workload.iodepth
            ),
            format!("depth per job: {listed}"),
        );
        return;
    }
    let (why, action) = if target.keep_adjusting {
        (
            "kept adjusting its depth to the end (run)",
            "leave out `,run` for one depth's figures".to_string(),
        )
    } else {
        let windows = crate::plan::units::format_duration_ns(target.window_ns.saturating_mul(10));
        (
            "ended before its depth held (the pass or the runtime ran out)",
            match point.workload.runtime_s {
                None => format!("give it time to settle: --runtime {windows} or more"),
                Some(_) => format!("a longer --runtime ({windows} or more) lets it settle"),
            },
        )
    };
    found.act(
        "latency-target-unsettled",
        Severity::Warning,
        format!(
            "{unsettled} of {} jobs {why}: their figures span every depth they tried for {within}, not one depth; the last was {listed}",
            jobs.len()
        ),
        &action,
        format!("depths at the end: {listed}"),
    );
}
