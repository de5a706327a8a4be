//! When a grid ends early and what it found: the knee search's stop past the knee, the knee chosen under a latency target, and convergence over a size axis — each recorded in the result and rendered below the grid.

use super::{CONVERGENCE_MAX_CV, CONVERGENCE_TOLERANCE, Grid};
use crate::plan::knee::KneeTarget;
use crate::plan::units::format_size;
use crate::record::{ConvergenceRecord, KneeRecord, KneeStep, ResultFile};
use crate::report::units::{latency, significant};
use crate::stats::convergence::{SizePoint, converge};
use std::collections::BTreeMap;

/// A knee search's early stop: when the points differ only in a load that
/// rises from point to point (and `--knee-all` is not given), the rest of
/// the search is skipped once two points in a row are over the target.
pub(super) fn knee_search_stop(grid: &Grid) -> Option<impl Fn(&ResultFile) -> bool + use<>> {
    let target = grid.knee.filter(|_| !grid.knee_all)?;
    let workloads: Vec<&crate::plan::Workload> =
        grid.plan.points.iter().map(|p| p.workload()).collect();
    crate::plan::knee::load_axis(&workloads)?;
    Some(move |result: &ResultFile| {
        let curve = knee(result, target).curve;
        let steps: Vec<(f64, u64)> = curve.iter().map(|s| (s.iops, s.latency_ns)).collect();
        crate::plan::knee::past_the_knee(&steps, target)
    })
}

/// The knee of the points measured: each one's mean IOPS and the target's
/// percentile of its merged latency — from intended issue when the point was
/// paced, so that a rate the device falls behind counts its backlog — and
/// the one with the most IOPS within the target.
pub(super) fn knee(result: &ResultFile, target: KneeTarget) -> KneeRecord {
    let curve: Vec<KneeStep> = result
        .points
        .iter()
        .filter_map(|point| {
            let summary = point.summary.as_ref()?;
            let from_intended: Vec<_> = point
                .measured()
                .filter_map(|r| r.pacing.as_ref()?.latency_from_intended_ns.as_ref())
                .collect();
            let (latency, paced) = match crate::stats::merged_latency(&from_intended) {
                Ok(Some(merged)) => (merged, true),
                _ => (summary.latency_ns.clone()?, false),
            };
            Some(KneeStep {
                label: point.label.clone(),
                iops: summary.iops.mean,
                latency_ns: latency.percentile(target.percentile)?,
                from_intended: paced,
            })
        })
        .collect();
    let steps: Vec<(f64, u64)> = curve.iter().map(|s| (s.iops, s.latency_ns)).collect();
    let chosen = crate::plan::knee::choose(&steps, target).map(|i| curve[i].label.clone());
    KneeRecord {
        target,
        curve,
        chosen,
        not_run: Vec::new(),
    }
}

/// The knee's curve, one line per point named by what varies along it
/// (`qd8`), what they share said once above it, and the choice.
pub(super) fn render_knee(knee: &KneeRecord) -> String {
    let percentile = format!("p{}", knee.target.percentile);
    let labels: Vec<&str> = knee.curve.iter().map(|s| s.label.as_str()).collect();
    let (shared, names) = crate::report::table::split_by_what_varies(&labels);
    let mut text = match shared.is_empty() {
        true => format!("\nknee ({}): ", knee.target),
        false => format!("\nknee ({}) of {shared}: ", knee.target),
    };
    let chosen = knee
        .chosen
        .as_deref()
        .and_then(|label| knee.curve.iter().position(|step| step.label == label));
    match chosen {
        Some(index) => text.push_str(&format!(
            "{} — {} IOPS at {percentile} {}\n",
            names[index],
            significant(knee.curve[index].iops),
            latency(knee.curve[index].latency_ns as f64)
        )),
        None => text.push_str("every point is over the target\n"),
    }
    if !knee.not_run.is_empty() {
        text.push_str(&format!(
            "  (stopped past the knee: two points in a row over the target; not run: {})\n",
            knee.not_run.join(", ")
        ));
    }
    for (index, step) in knee.curve.iter().enumerate() {
        let over = if step.latency_ns > knee.target.limit_ns {
            "  over"
        } else {
            ""
        };
        let mark = if chosen == Some(index) {
            "  ← knee"
        } else {
            over
        };
        let near = if near_the_target(step.latency_ns, knee.target.limit_ns) {
            " (within 10% of the target)"
        } else {
            ""
        };
        // A paced point's latency counts from when each I/O was due.
        let from = if step.from_intended {
            " from intended issue"
        } else {
            ""
        };
        text.push_str(&format!(
            "  {:>10} IOPS  {percentile} {:>9}  {}{from}{mark}{near}\n",
            significant(step.iops),
            latency(step.latency_ns as f64),
            names[index]
        ));
    }
    if knee
        .curve
        .iter()
        .any(|step| near_the_target(step.latency_ns, knee.target.limit_ns))
    {
        text.push_str(
            "  a point within 10% of the target decides the knee: a tail percentile moves more than that between runs; \
             --repeat 3 merges three runs' latencies before the call\n",
        );
    }
    text
}

/// Whether `latency_ns` is within 10% of the target's `limit_ns`, either side:
/// too near for one run's tail percentile to say which side it is on.
fn near_the_target(latency_ns: u64, limit_ns: u64) -> bool {
    (latency_ns as f64 - limit_ns as f64).abs() <= limit_ns as f64 * 0.1
}

/// Convergence of every series that varies only in file size, over 3 or more sizes.
pub(super) fn convergence(result: &ResultFile) -> Vec<ConvergenceRecord> {
    let mut series: BTreeMap<String, Vec<SizePoint>> = BTreeMap::new();
    for point in &result.points {
        let Some(summary) = &point.summary else {
            continue;
        };
        let size_part = format!(" file {}", format_size(point.workload.size));
        let name = point.label.replacen(&size_part, "", 1);
        series.entry(name).or_default().push(SizePoint {
            size: point.workload.size,
            mean: summary.throughput_bps.mean,
            cv: summary.throughput_bps.cv,
        });
    }
    series
        .into_iter()
        .filter_map(|(name, mut points)| {
            points.sort_by_key(|p| p.size);
            points.dedup_by_key(|p| p.size);
            let found = converge(&points, CONVERGENCE_TOLERANCE, CONVERGENCE_MAX_CV)?;
            Some(ConvergenceRecord {
                series: name,
                sizes: points.iter().map(|p| p.size).collect(),
                reference_bps: found.reference,
                tolerance: CONVERGENCE_TOLERANCE,
                max_cv: CONVERGENCE_MAX_CV,
                stable_from_bytes: found.stable_from,
            })
        })
        .collect()
}

pub(super) fn render_convergence(records: &[ConvergenceRecord]) -> String {
    let mut text = String::new();
    if records.is_empty() {
        return text;
    }
    text.push_str(
        "\nconvergence over file size (stable: within ±5% of the largest sizes' mean, cv ≤ 5%):\n",
    );
    for record in records {
        let verdict = match record.stable_from_bytes {
            Some(size) => format!("stable from {}", format_size(size)),
            None => "not stable even at the largest size".to_string(),
        };
        text.push_str(&format!(
            "  {}: {verdict} (reference {:.1} MiB/s, {:.1} MB/s)\n",
            record.series,
            record.reference_bps / 1048576.0,
            record.reference_bps / 1e6
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::KneeStep;

    #[test]
    fn a_knee_decided_within_the_noise_says_so() {
        let step = |label: &str, latency_ns: u64| KneeStep {
            label: label.into(),
            iops: 1000.0,
            latency_ns,
            from_intended: false,
        };
        let mut knee = KneeRecord {
            target: "p99<=2ms".parse().unwrap(),
            curve: vec![step("qd32", 1_500_000), step("qd64", 2_020_000)],
            chosen: Some("qd32".into()),
            not_run: Vec::new(),
        };
        let text = render_knee(&knee);
        assert!(
            text.contains("qd64  over (within 10% of the target)")
                && text.contains("--repeat 3 merges"),
            "{text}"
        );
        // Points named by what varies, what they share once.
        let split = crate::report::table::split_by_what_varies(&[
            "read 4KiB qd8 file 1MiB",
            "read 4KiB qd16 file 1MiB",
        ]);
        assert_eq!(split.0, "read 4KiB file 1MiB");
        assert_eq!(split.1, ["qd8", "qd16"]);
        // Far from the target either side: nothing to add.
        knee.curve[1].latency_ns = 4_000_000;
        let text = render_knee(&knee);
        assert!(!text.contains("within 10%"), "{text}");
    }
}
