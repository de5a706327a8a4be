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
        found.add(
            "replay-fell-behind",
            Severity::Warning,
            format!(
                "{} of {} replays did not keep up with the trace ({who} fell behind): their I/Os arrived later than the trace's, so the figures are of a gentler load",
                behind.len(),
                replays.len()
            ),
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
        found.add(
            "replay-counts-differ",
            Severity::Error,
            "a replay did other I/O than its trace holds".to_string(),
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
