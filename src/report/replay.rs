//! The trace points' view: how faithful each point's replays were — kept up or who fell behind, duration against the trace's, issue lag, depth, reordering and counts.

use super::text_table::{Cell, TextTable};
use super::units::latency;
use crate::record::ResultFile;
use crate::record::replay::Fidelity;

/// One row per trace point, its measured replays' worst figures; `None`
/// when no point replayed a trace.
pub fn fidelity_table(result: &ResultFile) -> Option<TextTable> {
    let mut table = TextTable::new(
        "Trace points: how faithful the replays were",
        &[
            "point",
            "kept up",
            "duration vs trace (worst)",
            "issue lag p99 (worst)",
            "in flight achieved / recorded",
            "cap reached",
            "reordered",
            "counts",
        ],
    );
    for point in &result.points {
        let replays: Vec<&Fidelity> = point.measured().filter_map(|r| r.replay.as_ref()).collect();
        if replays.is_empty() {
            continue;
        }
        let kept = replays.iter().filter(|f| f.verdict.kept_up).count();
        let behind = replays
            .iter()
            .find_map(|f| f.verdict.behind.as_deref())
            .map_or(String::new(), |who| format!(" ({who} behind)"));
        let over = replays
            .iter()
            .filter_map(|f| {
                let intended = f.intended_ns?;
                Some(100.0 * (f.elapsed_ns as f64 - intended as f64) / intended.max(1) as f64)
            })
            .fold(None, |worst: Option<f64>, pct| {
                Some(worst.map_or(pct, |w| w.max(pct)))
            });
        let lag = replays.iter().filter_map(|f| f.lag.p99_ns).max();
        let achieved = replays
            .iter()
            .filter_map(|f| f.achieved_depth)
            .fold(f64::NAN, f64::min);
        let recorded = replays[0].recorded_depth;
        let at_cap = replays
            .iter()
            .map(|f| f.at_cap_fraction)
            .fold(0.0, f64::max);
        let reordered = replays
            .iter()
            .map(|f| f.completions_reordered_pct)
            .fold(0.0, f64::max);
        let exact = replays.iter().all(|f| {
            f.counts
                .iter()
                .all(|c| c.trace_ios == c.replay_ios && c.trace_bytes == c.replay_bytes)
        });
        table.rows.push(vec![
            Cell::text(point.label.clone()),
            Cell::number(kept as f64, format!("{kept} of {}{behind}", replays.len())),
            match over {
                Some(pct) => Cell::number(pct, format!("{pct:+.2}%")),
                None => Cell::text("- (as fast as possible)"),
            },
            match lag {
                Some(ns) => Cell::number(ns as f64, latency(ns as f64)),
                None => Cell::text("-"),
            },
            Cell::text(format!(
                "{} / {}",
                if achieved.is_nan() {
                    "-".to_string()
                } else {
                    format!("{achieved:.2}")
                },
                recorded.map_or("not in the trace".to_string(), |d| format!("{d:.2}"))
            )),
            Cell::number(at_cap, format!("{:.1}%", at_cap * 100.0)),
            Cell::number(reordered, format!("{reordered:.2}%")),
            Cell::text(if exact { "exact" } else { "DIFFERENT" }),
        ]);
    }
    if table.rows.is_empty() {
        return None;
    }
    table.notes.push(
        "kept up: duration within 1% of the trace's at its speed (1 ms for a trace under 100 ms) \
         and 99% of I/Os under 1 ms late; otherwise the storage (the depth cap reached half the \
         time or more) or the replayer fell behind. Issue lag: actual minus intended issue time; \
         in flight: time-weighted (achieved: the least of the replays); reordered: completions \
         after a later I/O of the trace had completed (RFC 4737); counts: every kind's I/Os and \
         bytes against the trace's"
            .into(),
    );
    Some(table)
}
