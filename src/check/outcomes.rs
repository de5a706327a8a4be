//! What each repetition's outcome says of the point: failures, signals and blocks that did not verify; timed regions too short to mean much, and repetitions that disagree.

use super::{Findings, NOISY_CI, NOISY_CV, STEAL_LIMIT, TOO_SHORT_NS};
use crate::record::{Point, Severity, Status};

/// Failed, interrupted and unverified repetitions.
pub(super) fn checks(point: &Point, found: &mut Findings) {
    for repetition in &point.repetitions {
        if let Some(verify) = repetition.verify.as_ref().filter(|v| v.bad_blocks > 0) {
            found.act(
                "data-mismatch",
                Severity::Error,
                format!(
                    "repetition {}: {} of {} blocks did not verify: the data read back is not the data written",
                    repetition.index, verify.bad_blocks, verify.blocks
                ),
                "find what else writes the file, then test the device (a failing device or a misdirected write)",
                verify.first_mismatches.join("; "),
            );
        }
        match repetition.status {
            Status::Failed => found.act(
                "io-errors",
                Severity::Error,
                format!(
                    "repetition {} (index {}) failed and was not timed",
                    repetition.index + 1,
                    repetition.index
                ),
                "fix the cause its error names, then run it again",
                repetition
                    .error
                    .clone()
                    .unwrap_or_else(|| "unknown error".to_string()),
            ),
            Status::Interrupted => found.act(
                "interrupted",
                Severity::Warning,
                match repetition.elapsed_ns {
                    Some(ns) => format!(
                        "repetition {} was interrupted by a signal after {}: its figures cover that time and count in no summary",
                        repetition.index,
                        seconds_text(ns)
                    ),
                    None => format!(
                        "repetition {} was interrupted by a signal before its timed region and was not timed",
                        repetition.index
                    ),
                },
                "run it again (a sweep: the same command with --resume)",
                String::new(),
            ),
            Status::Ok => {}
        }
    }
}

/// `3.92 s` or `412 ms`: how long a cut-short repetition ran.
fn seconds_text(ns: u64) -> String {
    if ns >= 1_000_000_000 {
        format!("{:.2} s", ns as f64 * 1e-9)
    } else {
        format!("{:.0} ms", (ns as f64 * 1e-6).max(1.0))
    }
}

/// Timed regions too short to time, and repetitions that disagree.
pub(super) fn timing_checks(point: &Point, found: &mut Findings) {
    let workload = &point.workload;
    let shortest = point.measured().filter_map(|r| r.elapsed_ns).min();
    if let Some(shortest) =
        shortest.filter(|&ns| ns < TOO_SHORT_NS && workload.engine.capabilities().moves_data)
    {
        found.act(
            "too-short",
            Severity::Warning,
            format!(
                "a timed region lasted under {} ms: timer and scheduler noise weigh heavily",
                TOO_SHORT_NS / 1_000_000,
            ),
            if workload.work() == crate::plan::Work::Tree {
                "give the tree more items (--items, --depth, --fanout)"
            } else if workload.work() == crate::plan::Work::Trace {
                "replay a longer trace, or slow it with --trace-speed"
            } else {
                "use a larger --size or --runtime"
            },
            format!("shortest timed region {:.1} ms", shortest as f64 / 1e6),
        );
    }
    let steal = point
        .measured()
        .filter_map(|r| r.activity.as_ref()?.cpu.as_ref().map(|c| c.steal))
        .fold(0.0f64, f64::max);
    if steal > STEAL_LIMIT {
        found.act(
            "throttled",
            Severity::Warning,
            "the hypervisor took CPU time from this machine during the run (steal): \
             the figure also measures the neighbours"
                .to_string(),
            "measure when the host is quieter, or on a host of your own",
            format!("CPU steal up to {:.1}% of all CPUs' time", steal * 100.0),
        );
    }
    let unsteady: Vec<String> = point
        .measured()
        .filter(|r| r.steady.as_ref().is_some_and(|s| !s.reached))
        .map(|r| r.index.to_string())
        .collect();
    if !unsteady.is_empty() {
        found.act(
            "not-steady",
            Severity::Warning,
            "steady state was not reached before --runtime ran out: the figure may still include a transient"
                .to_string(),
            "a longer --runtime, or a looser --steady criterion",
            format!(
                "criterion {}, not met in repetition(s) {}",
                workload.steady.map(|s| s.to_string()).unwrap_or_default(),
                unsteady.join(", ")
            ),
        );
    }
    let Some(summary) = &point.summary else {
        return;
    };
    if summary.ci_target_met == Some(false) {
        let most = workload.max_repeat.unwrap_or(workload.repeat) as usize;
        // Fewer than --max-repeat: the run was stopped (a signal, a failed
        // repetition), not out of repetitions; say which.
        let message = if (summary.throughput_bps.n as usize) < most {
            format!(
                "the run was stopped (interrupted, or a repetition failed) after {} of at most {most} repetitions, before the 95% interval was as narrow as --until-ci asked",
                summary.throughput_bps.n
            )
        } else {
            "the 95% interval is still wider than --until-ci asked after --max-repeat repetitions"
                .to_string()
        };
        found.act(
            "ci-target-missed",
            Severity::Warning,
            message,
            "a higher --max-repeat, a longer --runtime, or a quieter machine",
            format!(
                "{} repetitions, target ±{}%",
                summary.throughput_bps.n,
                summary.ci_target.unwrap_or_default() * 100.0
            ),
        );
    }
    if summary.outliers > 0 {
        found.add(
            "outliers",
            Severity::Info,
            "some repetitions are outliers by the median absolute deviation (marked, still counted)".to_string(),
            format!("{} of {} repetitions", summary.outliers, summary.throughput_bps.n),
        );
    }
    let stat = &summary.throughput_bps;
    let half = match (stat.ci95_low, stat.ci95_high) {
        (Some(low), Some(high)) if stat.mean > 0.0 => Some((high - low) / 2.0 / stat.mean),
        _ => None,
    };
    if stat.n >= 2 && (stat.cv > NOISY_CV || half.is_some_and(|h| h > NOISY_CI)) {
        found.act(
            "noisy",
            Severity::Warning,
            "the repetitions disagree".to_string(),
            "more repetitions (--until-ci) or a longer --runtime would narrow it",
            format!(
                "cv {:.1}%, 95% interval ±{:.1}% over {} repetitions",
                stat.cv * 100.0,
                half.unwrap_or(0.0) * 100.0,
                stat.n
            ),
        );
    }
}
