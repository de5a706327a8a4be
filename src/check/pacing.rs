//! Whether a paced run kept the rate it was asked for, and what falling behind did to latency from intended issue.

use super::Findings;
use crate::record::{Point, Severity};

/// Below this share of the asked rate, the rate was not kept.
const KEPT: f64 = 0.99;

/// Warns when a measured repetition achieved less than 99% of the asked
/// rate (the device, or the engine at this queue depth, could not sustain
/// it: every later I/O was issued late, which latency from intended issue
/// counts and latency from issue hides), and otherwise says the rate was
/// kept, with both p99s side by side.
pub(super) fn checks(point: &Point, found: &mut Findings) {
    let paced: Vec<_> = point
        .measured()
        .filter_map(|r| r.pacing.as_ref().map(|p| (r, p)))
        .collect();
    let Some(&(_, first)) = paced.first() else {
        return;
    };
    let p99 = |latency: Option<&crate::record::LatencySummary>| match latency
        .and_then(|l| l.percentile(99.0))
    {
        Some(ns) => format!("{:.1} µs", ns as f64 / 1e3),
        None => "-".to_string(),
    };
    let worst = paced
        .iter()
        .min_by(|a, b| a.1.kept_fraction().total_cmp(&b.1.kept_fraction()))
        .expect("at least one paced repetition");
    let (repetition, pacing) = *worst;
    let evidence = format!(
        "asked {} I/O/s, achieved {:.2}%{} in repetition {}; p99 from issue {}, from intended issue {}",
        first.asked(),
        pacing.kept_fraction() * 100.0,
        if pacing.directions.is_empty() {
            ""
        } else {
            " (worst direction)"
        },
        repetition.index,
        p99(repetition.latency_ns.as_ref()),
        p99(pacing.latency_from_intended_ns.as_ref()),
    );
    if pacing.kept_fraction() < KEPT {
        found.add(
            "rate-not-kept",
            Severity::Warning,
            format!(
                "the rate was not kept ({:.1}% of it): the I/Os fell behind schedule, so latency \
                 from intended issue, not from issue, is what a client at this rate would see",
                pacing.kept_fraction() * 100.0
            ),
            evidence,
        );
    } else {
        found.add(
            "rate-kept",
            Severity::Info,
            "every measured repetition kept the rate within 1%".to_string(),
            evidence,
        );
    }
}
