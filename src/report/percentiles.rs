//! fio's latency percentile block in text, for `--detail`: each point's completion-latency percentiles from its measured repetitions' merged histogram (only those its I/O count can tell from the maximum), and io_uring's submission time (fio's slat).

use super::units::latency;
use crate::record::{LatencySummary, ResultFile};

/// One block per point that has a latency summary:
///
/// ```text
/// read seq 4KiB psync: latency percentiles of 2255 I/Os
///   p1 466 ns · p5 495 ns · p10 509 ns · p25 555 ns · p50 645 ns ·
///   p75 699 ns · p90 758 ns · p95 822 ns · p99 2.25 µs · max 74.6 µs
/// ```
///
/// A percentile whose tail holds less than one I/O (p99.99 of 2,255) is
/// the maximum by another name and is left out, as is the block of a
/// point of groups that mixes a tree's items with I/Os.
pub fn block(result: &ResultFile) -> String {
    let mut text = String::new();
    for point in &result.points {
        let Some(lat) = point.summary.as_ref().and_then(|s| s.latency_ns.as_ref()) else {
            continue;
        };
        let items = |tree: bool| {
            point
                .groups
                .iter()
                .any(|g| (g.workload.work() == crate::plan::Work::Tree) == tree)
        };
        if items(true) && items(false) {
            continue;
        }
        let what = if point.workload.work() == crate::plan::Work::Tree {
            "operations"
        } else {
            "I/Os"
        };
        text.push_str(&format!(
            "{}: latency percentiles of {} {what}\n",
            point.label, lat.count
        ));
        let shown = told_apart(lat);
        for line in shown.chunks(5) {
            text.push_str("  ");
            text.push_str(&line.join(" · "));
            text.push('\n');
        }
        if let Some(submit) = submission(point) {
            text.push_str(&format!(
                "  submission (fio's slat: io_uring_enter's time per I/O submitted): {}\n",
                told_apart(&submit)
                    .into_iter()
                    .filter(|q| q.starts_with("p50 ")
                        || q.starts_with("p99 ")
                        || q.starts_with("max "))
                    .collect::<Vec<_>>()
                    .join(" · ")
            ));
        }
    }
    text
}

/// The submission times of a point's measured repetitions, merged
/// (io_uring only); `None` when none kept them or they do not merge.
fn submission(point: &crate::record::Point) -> Option<LatencySummary> {
    let kept: Vec<&LatencySummary> = point
        .measured()
        .filter_map(|r| r.submit_ns.as_ref())
        .collect();
    if kept.is_empty() {
        return None;
    }
    crate::record::histogram::merged_latency(&kept)
        .ok()
        .flatten()
}

/// `p50 645 ns`, … for the percentiles whose tail holds at least one of
/// the `count` values, then the maximum.
fn told_apart(lat: &LatencySummary) -> Vec<String> {
    let mut shown: Vec<String> = lat
        .percentiles
        .iter()
        .filter(|q| lat.count as f64 * (100.0 - q.percentile) / 100.0 >= 1.0)
        .map(|q| format!("p{} {}", q.percentile, latency(q.value as f64)))
        .collect();
    shown.push(format!("max {}", latency(lat.max as f64)));
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Percentile;

    #[test]
    fn percentiles_beyond_the_count_are_left_to_the_maximum() {
        let lat = LatencySummary {
            count: 2255,
            min: 400,
            max: 74_600,
            mean: 700.0,
            stdev: 10.0,
            percentiles: [(50.0, 645), (99.0, 2250), (99.9, 7900), (99.99, 74_600)]
                .into_iter()
                .map(|(percentile, value)| Percentile { percentile, value })
                .collect(),
            histogram: String::new(),
        };
        assert_eq!(
            told_apart(&lat),
            ["p50 645 ns", "p99 2.25 µs", "p99.9 7.90 µs", "max 74.6 µs"]
        );
    }
}
