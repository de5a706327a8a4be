//! Plausibility checks: findings about a point's figures, with stable codes.
//!
//! A check never changes a number; it says when a number may not mean what it
//! seems. Codes are stable so scripts can rely on them (see docs/result-schema.md).

use crate::plan::{CacheMode, EngineKind, Op, SyncMode};
use crate::record::{Check, Point, Severity, Status};

/// A timed region shorter than this is dominated by timer and scheduler noise.
pub const TOO_SHORT_NS: u64 = 200_000_000;
/// A cold read whose file was more than this fraction resident at start may be served from memory.
pub const RESIDENT_TOLERANCE: f64 = 0.01;
/// Coefficient of variation above which repetitions disagree too much.
pub const NOISY_CV: f64 = 0.10;

/// Runs every check on a point.
pub fn check(point: &Point) -> Vec<Check> {
    let mut checks = Vec::new();
    let workload = &point.workload;
    let mut add = |code: &str, severity, message: String| {
        checks.push(Check {
            code: code.to_string(),
            severity,
            message,
        })
    };
    for repetition in &point.repetitions {
        match repetition.status {
            Status::Failed => add(
                "io-errors",
                Severity::Error,
                format!(
                    "repetition {} failed and was not timed: {}",
                    repetition.index,
                    repetition.error.as_deref().unwrap_or("unknown error")
                ),
            ),
            Status::Interrupted => add(
                "interrupted",
                Severity::Warning,
                format!(
                    "repetition {} was interrupted by a signal and was not timed",
                    repetition.index
                ),
            ),
            Status::Ok => {}
        }
    }
    let measured = point
        .repetitions
        .iter()
        .filter(|r| !r.warmup && r.status == Status::Ok);
    let cold_read = workload.op == Op::Read && workload.cache == CacheMode::Cold;
    let worst_residency = measured
        .clone()
        .filter_map(|r| r.cache.as_ref().map(|c| c.resident_fraction))
        .fold(0.0f64, f64::max);
    if cold_read && worst_residency > RESIDENT_TOLERANCE {
        add(
            "cache-not-cold",
            Severity::Warning,
            format!(
                "eviction left {:.1}% of the file in the page cache at the start of a cold read; \
                 part of the figure may be memory speed",
                worst_residency * 100.0
            ),
        );
    }
    if workload.direct && point.target.direct_in_memory {
        add(
            "direct-not-honoured",
            Severity::Warning,
            format!(
                "the {} file system accepted O_DIRECT but keeps data in memory: these are memory figures, not a device's",
                point.target.filesystem
            ),
        );
    }
    // Only a figure that exists can be misleading.
    let unsynced = point.summary.is_some()
        && workload.op.writes()
        && workload.engine != EngineKind::Null
        && !workload.direct
        && workload.sync == SyncMode::None
        && !workload.fsync_end
        && workload.fsync_every == 0;
    if unsynced {
        add(
            "writeback-pending",
            Severity::Warning,
            "buffered writes without any sync: the figure is the speed of copying into memory; \
             add --fsync-end (or --direct) to include reaching the device"
                .to_string(),
        );
    }
    let shortest = measured.clone().filter_map(|r| r.elapsed_ns).min();
    if let Some(shortest) =
        shortest.filter(|&ns| ns < TOO_SHORT_NS && workload.engine != EngineKind::Null)
    {
        add(
            "too-short",
            Severity::Warning,
            format!(
                "a timed region lasted {:.1} ms (< {} ms): timer and scheduler noise weigh heavily; use a larger --size or --runtime",
                shortest as f64 / 1e6,
                TOO_SHORT_NS / 1_000_000
            ),
        );
    }
    let unsteady: Vec<String> = measured
        .clone()
        .filter(|r| r.steady.as_ref().is_some_and(|s| !s.reached))
        .map(|r| r.index.to_string())
        .collect();
    if !unsteady.is_empty() {
        add(
            "not-steady",
            Severity::Warning,
            format!(
                "repetition(s) {} did not reach steady state ({}) before --runtime ran out:                  the figure may still include a transient",
                unsteady.join(", "),
                workload.steady.map(|s| s.to_string()).unwrap_or_default()
            ),
        );
    }
    if let Some(summary) = &point.summary {
        if summary.ci_target_met == Some(false) {
            add(
                "ci-target-missed",
                Severity::Warning,
                format!(
                    "after {} repetitions the 95% interval is still wider than ±{}% of the mean",
                    summary.throughput_bps.n,
                    summary.ci_target.unwrap_or_default() * 100.0
                ),
            );
        }
        if summary.outliers > 0 {
            add(
                "outliers",
                Severity::Info,
                format!(
                    "{} of {} repetitions are outliers by the median absolute deviation (marked, still counted)",
                    summary.outliers, summary.throughput_bps.n
                ),
            );
        }
        let stat = &summary.throughput_bps;
        if stat.n >= 2 && stat.cv > NOISY_CV {
            add(
                "noisy",
                Severity::Warning,
                format!(
                    "throughput varies by {:.1}% (cv) over {} repetitions",
                    stat.cv * 100.0,
                    stat.n
                ),
            );
        }
    }
    checks
}
