//! The paced points' view: the rate asked and kept, and latency from issue beside latency from intended issue.

use super::text_table::{Cell, TextTable};
use super::units::latency;
use crate::record::{LatencySummary, ResultFile};

/// One row per paced point (its measured repetitions' worst kept share,
/// and the first measured repetition's latencies); `None` when no point
/// was paced.
pub fn pacing_table(result: &ResultFile) -> Option<TextTable> {
    let mut table = TextTable::new(
        "Paced points: latency from issue and from intended issue",
        &[
            "point",
            "asked I/O/s",
            "achieved (worst repetition)",
            "p50 from issue",
            "p99 from issue",
            "p50 from intended",
            "p99 from intended",
            "max from intended",
        ],
    );
    for point in &result.points {
        let paced: Vec<_> = point
            .measured()
            .filter_map(|r| r.pacing.as_ref().map(|p| (r, p)))
            .collect();
        let Some(&(repetition, first)) = paced.first() else {
            continue;
        };
        let worst = paced
            .iter()
            .map(|(_, p)| p.kept_fraction())
            .fold(f64::INFINITY, f64::min);
        let at = |summary: Option<&LatencySummary>, p: f64| match summary.and_then(|s| {
            if p == 100.0 {
                Some(s.max)
            } else {
                s.percentile(p)
            }
        }) {
            Some(ns) => Cell::number(ns as f64, latency(ns as f64)),
            None => Cell::text("-"),
        };
        let from_intended = first.latency_from_intended_ns.as_ref();
        table.rows.push(vec![
            Cell::text(point.label.clone()),
            Cell::number(first.target_iops, first.asked()),
            Cell::number(worst, format!("{:.2}%", worst * 100.0)),
            at(repetition.latency_ns.as_ref(), 50.0),
            at(repetition.latency_ns.as_ref(), 99.0),
            at(from_intended, 50.0),
            at(from_intended, 99.0),
            at(from_intended, 100.0),
        ]);
    }
    if table.rows.is_empty() {
        return None;
    }
    table.notes.push(
        "from issue: completion − the I/O's actual start; from intended: completion − the time the \
         rate's schedule meant it to start (coordinated omission corrected: an I/O issued late \
         because the job was behind counts its wait). A rate kept within 1% with far apart p99s \
         means the device stalled and the job caught up; with a rate per direction, achieved is \
         the worst direction's share"
            .into(),
    );
    Some(table)
}
