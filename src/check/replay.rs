//! Whether a trace point's replays were faithful: each measured repetition kept up with the trace's times and replayed exactly its I/Os.

use super::Findings;
use crate::record::{Point, Severity};

/// A repetition that did not keep up with the trace (its verdict names
/// who fell behind: the storage at the depth cap, or the replayer) is a
/// warning: its figures are the storage's under a slower arrival than the
/// trace's. One whose counts differ from the trace's replayed other I/Os
/// than the trace holds, an error.
pub(super) fn checks(point: &Point, found: &mut Findings) {
    let replays: Vec<_> = point
        .measured()
        .filter_map(|r| r.replay.as_ref().map(|f| (r.index, f)))
        .collect();
    let behind: Vec<_> = replays.iter().filter(|(_, f)| !f.verdict.kept_up).collect();
    if let Some((index, fidelity)) = behind.first() {
        let who = fidelity
            .verdict
            .behind
            .as_deref()
            .map_or("the replay".to_string(), |who| format!("the {who}"));
        found.act(
            "replay-fell-behind",
            Severity::Warning,
            format!(
                "{} of {} replays did not keep up with the trace ({who} fell behind): their I/Os arrived later than the trace's, so the figures are of a gentler load",
                behind.len(),
                replays.len()
            ),
            "a deeper --iodepth, a quieter machine, or a slower --trace-speed measures at a pace both keep",
            format!("repetition {index}: {}", fidelity.verdict.why),
        );
    }
    let differing = replays.iter().find_map(|(index, f)| {
        f.counts
            .iter()
            .find(|c| c.trace_ios != c.replay_ios || c.trace_bytes != c.replay_bytes)
            .map(|c| (index, c))
    });
    if let Some((index, count)) = differing {
        found.act(
            "replay-counts-differ",
            Severity::Error,
            "a replay did other I/O than its trace holds".to_string(),
            "report it with the trace: the replay is not the trace",
            format!(
                "repetition {index}: {} {} I/Os and {} bytes against the trace's {} and {}",
                count.kind,
                count.replay_ios,
                count.replay_bytes,
                count.trace_ios,
                count.trace_bytes
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::check::check;
    use serde_json::json;

    /// A trace point's repetition whose replay kept up or not, its writes
    /// counted as `replayed` of the trace's 4.
    fn replayed(kept_up: bool, replayed: u64) -> crate::record::Point {
        let fidelity = json!({
            "ios": replayed, "elapsed_ns": 5_000_000_000u64, "intended_ns": 4_000_000_000u64,
            "lag": {"p50_ns": 10, "p99_ns": 2_000_000, "max_ns": 3_000_000, "drift_us_per_s": 250.0},
            "latency_p50_ns": 100, "latency_p99_ns": 200, "recorded_depth": null,
            "achieved_depth": 1.0, "depth_cap": 8, "at_cap_fraction": 0.0,
            "completions_reordered_pct": 0.0,
            "counts": [{"kind": "write", "trace_ios": 4, "replay_ios": replayed,
                        "trace_bytes": 16384, "replay_bytes": replayed * 4096}],
            "interval_ns": 1_000_000_000u64, "worst_interval": null, "intervals": [],
            "verdict": {"kept_up": kept_up, "behind": (!kept_up).then_some("replayer"),
                        "why": "the replayer fell behind: the lag grew"}
        });
        crate::check::tests::point(
            json!({"trace": "t.iolog"}),
            json!({"replay": fidelity}),
            json!({}),
        )
    }

    #[test]
    fn a_replay_behind_its_trace_or_off_its_counts_is_named() {
        let codes = |point| -> Vec<(String, crate::record::Severity)> {
            check(&point, None)
                .into_iter()
                .filter(|c| c.code.starts_with("replay-"))
                .map(|c| (c.code, c.severity))
                .collect()
        };
        assert_eq!(codes(replayed(true, 4)), vec![]);
        let behind = check(&replayed(false, 4), None);
        let found = behind
            .iter()
            .find(|c| c.code == "replay-fell-behind")
            .expect("raised");
        assert!(
            found.message.contains("(the replayer fell behind)"),
            "{}",
            found.message
        );
        assert_eq!(found.severity, crate::record::Severity::Warning);
        assert_eq!(
            codes(replayed(true, 3)),
            vec![(
                "replay-counts-differ".to_string(),
                crate::record::Severity::Error
            )]
        );
    }
}
