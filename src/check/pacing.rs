//! Whether a paced run kept the rate it was asked for, and what falling behind did to latency from intended issue.

use super::Findings;
use crate::record::{Point, Severity};

/// How far from the asked rate a repetition may be and still have kept
/// it: 1% either way for even gaps; for Poisson arrivals, whose count in a
/// fixed time is itself random (standard deviation √N of N expected),
/// three standard deviations when that is wider.
fn tolerance(point: &Point, gaps: f64) -> f64 {
    match point.workload.arrivals {
        crate::plan::pace::Arrivals::Poisson => (3.0 / gaps.max(1.0).sqrt()).max(0.01),
        crate::plan::pace::Arrivals::Uniform => 0.01,
    }
}

/// The fewest gaps of the asked rate a timed region must hold before the
/// rate kept can be judged: the first I/O goes at once, so a region a few
/// gaps long achieves more than asked by construction.
const FEWEST_GAPS: f64 = 10.0;

/// Judges whether every measured repetition of a paced point kept the rate
/// it was asked for, within 1% either way: below (the device, or the engine
/// at this queue depth, could not sustain it, so every later I/O was issued
/// late, which latency from intended issue counts and latency from issue
/// hides), above (more I/Os than the rate allows), or too short to tell
/// (fewer than [`FEWEST_GAPS`] gaps between intended issues). The evidence
/// gives the asked rate in the unit it was asked in.
pub(super) fn checks(point: &Point, found: &mut Findings) {
    let paced: Vec<_> = point
        .measured()
        .filter_map(|r| r.pacing.as_ref().map(|p| (r, p)))
        .collect();
    if paced.is_empty() {
        return;
    }
    let p99 = |latency: Option<&crate::record::LatencySummary>| match latency
        .and_then(|l| l.percentile(99.0))
    {
        Some(ns) => format!("{:.1} µs", ns as f64 / 1e3),
        None => "-".to_string(),
    };
    let asked = asked_rate(point, paced[0].1);
    let shortest = paced
        .iter()
        .filter_map(|(r, p)| Some(r.elapsed_ns? as f64 / 1e9 * lowest_target(p)))
        .fold(f64::INFINITY, f64::min);
    if shortest < FEWEST_GAPS {
        found.act(
            "rate-unjudged",
            Severity::Warning,
            format!(
                "a timed region held only {shortest:.1} gaps of the asked rate (fewer than {FEWEST_GAPS:.0}): \
                 the first I/O goes at once, so whether the rate was kept cannot be told"
            ),
            "lengthen --runtime or raise the rate",
            format!("asked {asked}"),
        );
        return;
    }
    let evidence = |repetition: &crate::record::Repetition,
                    pacing: &crate::record::Pacing,
                    share: f64| {
        format!(
            "asked {asked}, achieved {:.2}%{} in repetition {}; p99 from issue {}, from intended issue {}",
            share * 100.0,
            if pacing.directions.is_empty() {
                ""
            } else {
                " (worst direction)"
            },
            repetition.index,
            p99(repetition.latency_ns.as_ref()),
            p99(pacing.latency_from_intended_ns.as_ref()),
        )
    };
    let (behind, behind_pacing) = *paced
        .iter()
        .min_by(|a, b| a.1.kept_fraction().total_cmp(&b.1.kept_fraction()))
        .expect("at least one paced repetition");
    let (ahead, ahead_pacing) = *paced
        .iter()
        .max_by(|a, b| highest_fraction(a.1).total_cmp(&highest_fraction(b.1)))
        .expect("at least one paced repetition");
    let within = tolerance(point, shortest);
    if behind_pacing.kept_fraction() < 1.0 - within {
        let share = behind_pacing.kept_fraction();
        found.act(
            "rate-not-kept",
            Severity::Warning,
            format!(
                "the rate was not kept ({:.1}% of it): the I/Os fell behind schedule, so latency \
                 from intended issue, not from issue, is what a client at this rate would see",
                share * 100.0
            ),
            "lower the rate or raise --iodepth to measure at a rate the target keeps",
            evidence(behind, behind_pacing, share),
        );
    } else if highest_fraction(ahead_pacing) > 1.0 + within {
        let share = highest_fraction(ahead_pacing);
        found.act(
            "rate-exceeded",
            Severity::Warning,
            format!(
                "more I/Os ran than the rate allows ({:.1}% of it): the figures are not those of the asked rate",
                share * 100.0
            ),
            "check the rate's unit (--rate is bytes/s, --rate-iops I/Os a second)",
            evidence(ahead, ahead_pacing, share),
        );
    } else {
        let share = behind_pacing.kept_fraction();
        found.add(
            "rate-kept",
            Severity::Info,
            format!(
                "every measured repetition kept the rate within {:.1}% either way",
                within * 100.0
            ),
            evidence(behind, behind_pacing, share),
        );
    }
}

/// The greatest share of an asked rate achieved: the job's, or its
/// fastest direction's when each direction had a rate of its own.
fn highest_fraction(pacing: &crate::record::Pacing) -> f64 {
    pacing
        .directions
        .iter()
        .map(|d| d.achieved_fraction)
        .fold(pacing.achieved_fraction, f64::max)
}

/// The lowest rate asked, I/O/s: the job's, or its slowest direction's.
fn lowest_target(pacing: &crate::record::Pacing) -> f64 {
    pacing
        .directions
        .iter()
        .map(|d| d.target_iops)
        .fold(pacing.target_iops, f64::min)
}

/// The rate as it was asked: bytes per second (`--rate`, with the I/O/s
/// it makes at the block size) or I/O/s (`--rate-iops`), all jobs together.
fn asked_rate(point: &Point, pacing: &crate::record::Pacing) -> String {
    let iops = if pacing.target_iops < 10.0 {
        // Three significant digits, however small: 0.25, 0.000244.
        let magnitude = pacing.target_iops.log10().floor();
        let decimals = if magnitude.is_finite() {
            (2.0 - magnitude).clamp(0.0, 12.0) as usize
        } else {
            0
        };
        format!("{:.decimals$} I/O/s", pacing.target_iops)
    } else {
        format!("{} I/O/s", pacing.asked())
    };
    match point.workload.rate {
        Some(rate) => format!(
            "{} B/s ({iops} of {} B)",
            u64::from(point.workload.jobs).saturating_mul(rate.total()),
            point.workload.bs
        ),
        None => iops,
    }
}
