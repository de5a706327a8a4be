//! What every measuring command shares: the session opened on the directory (or handed over by the ranks), the note on single repetitions, and a point's record built and kept — joined with an earlier round's when a point is measured in several.

use crate::app::distributed::Ranks;
use crate::app::error::AppError;
use crate::check;
use crate::gather::build;
use crate::plan::UsageError;
use crate::run::Session;
use crate::run::signals::Interrupt;
use crate::stats;
use std::path::Path;

/// A session in `dir` whose adaptive repetitions stop by the statistics' rule.
/// In a distributed run, the session is one rank's, with the run's id.
/// `given` when the run measures a file or device the user named, whose
/// directory need not be writable.
pub(crate) fn open_session(
    dir: &Path,
    given: bool,
    interrupt: &Interrupt,
    ranks: &Ranks,
) -> Result<Session, UsageError> {
    let run_id = ranks.run_id();
    let mut session = if given {
        Session::open_given(dir, &run_id, interrupt.clone())?
    } else {
        Session::open(dir, &run_id, interrupt.clone())?
    };
    session.set_enough_rule(stats::ci_within);
    session.distribute(ranks.peers());
    Ok(session)
}

/// A plan measuring each point once cannot be compared with a test: say so
/// below its result, with the flag that can (docs/guide.md says why one
/// repetition stays the default).
pub(crate) fn note_single_repetition(points: &[crate::plan::PlannedPoint]) {
    // Rounds are repetitions too: a point of round 1 was measured in round 0 as well.
    let rounds = points.iter().any(|p| p.round.is_some_and(|r| r > 0));
    let once =
        |p: &crate::plan::PlannedPoint| p.workload().repeat < 2 && p.workload().until_ci.is_none();
    if !points.is_empty() && !rounds && points.iter().all(once) {
        crate::note!(
            "iolab: note: one repetition per point: `iolab compare` will show differences but cannot test them; --repeat 3 measures three"
        );
    }
}

/// The record of a measured point: built, outliers marked, summarised and
/// checked; failed repetitions are reported on stderr.
pub(crate) fn record_point(
    outcome: &crate::run::PointOutcome,
    environment: Option<&crate::record::environment::Environment>,
) -> Result<crate::record::Point, AppError> {
    let mut point = build::point(outcome);
    summarize_and_check(&mut point, environment)?;
    for repetition in &point.repetitions {
        if let Some(error) = &repetition.error {
            crate::say!(
                "iolab: {} repetition {} (index {}) failed: {error}",
                point.label,
                repetition.index + 1,
                repetition.index
            );
        }
    }
    Ok(point)
}

/// Keeps `point` in `points`: a new point is appended; a later round of a
/// point already there (same label and workload) joins its repetitions,
/// which are summarised and checked again (against `environment`, the
/// machine it ran on), keeping the checks only the guest adds.
pub(crate) fn keep_point(
    points: &mut Vec<crate::record::Point>,
    mut point: crate::record::Point,
    environment: Option<&crate::record::environment::Environment>,
) -> Result<(), AppError> {
    let in_rounds = point.repetitions.iter().any(|r| r.round.is_some());
    number_in_order(points, &mut point);
    let Some(existing) = points
        .iter_mut()
        .find(|p| in_rounds && p.label == point.label && p.workload == point.workload)
    else {
        points.push(point);
        return Ok(());
    };
    let offset = u32::try_from(existing.repetitions.len()).unwrap_or(u32::MAX);
    for mut repetition in point.repetitions {
        repetition.index = repetition.index.saturating_add(offset);
        existing.repetitions.push(repetition);
    }
    // A point of groups: each group's later round joins that group.
    for group in point.groups {
        if let Some(kept) = existing.groups.iter_mut().find(|g| g.label == group.label) {
            for mut repetition in group.repetitions {
                repetition.index = repetition.index.saturating_add(offset);
                kept.repetitions.push(repetition);
            }
        }
    }
    // Checked again below against the host's environment; the guest's
    // own findings (check/guest.rs) are kept.
    let in_guest = point.workload.machine == crate::plan::Machine::Guest;
    let guest_checks: Vec<_> = point
        .checks
        .into_iter()
        .filter(|c| {
            in_guest
                && ["emulated-cpu", "host-cache-under-guest", "slow-clock"]
                    .contains(&c.code.as_str())
        })
        .collect();
    summarize_and_check(existing, environment)?;
    existing.checks.extend(guest_checks);
    Ok(())
}

/// Marks outliers, summarises and checks `point` against `environment`; a
/// point of groups each group as the workload it is, the point carrying
/// its groups' findings, each naming its group, and those of its devices
/// (the point's other checks reason from one workload).
pub(crate) fn summarize_and_check(
    point: &mut crate::record::Point,
    environment: Option<&crate::record::environment::Environment>,
) -> Result<(), AppError> {
    stats::mark_outliers(point);
    point.summary = stats::summarize(point).map_err(anyhow::Error::msg)?;
    point.checks = check::check(point, environment);
    if crate::cluster::reads_across_hosts() {
        // Each rank read what another host wrote: its own page cache held
        // none of it, whatever the cache mode meant.
        point.checks.retain(|c| c.code != "working-set-in-ram");
    }
    if !point.groups.is_empty() {
        point.checks = check::group_point_checks(point, environment);
        for group in &mut point.groups {
            stats::mark_outliers(group);
            group.summary = stats::summarize(group).map_err(anyhow::Error::msg)?;
            group.checks = check::check(group, environment);
            point
                .checks
                .extend(group.checks.iter().map(|c| crate::record::Check {
                    message: format!("group {}: {}", group.label, c.message),
                    ..c.clone()
                }));
        }
    }
    Ok(())
}

/// Gives each repetition of `point` its place in the order the result's
/// repetitions ran (after every one kept before it, a resumed session's
/// included); a group's repetition shares its point's.
fn number_in_order(points: &[crate::record::Point], point: &mut crate::record::Point) {
    let next = points
        .iter()
        .flat_map(|p| {
            p.repetitions
                .iter()
                .chain(p.groups.iter().flat_map(|g| &g.repetitions))
        })
        .filter_map(|r| r.sequence)
        .max()
        .map_or(0, |last| last + 1);
    let numbered: Vec<(u32, u64)> = point
        .repetitions
        .iter_mut()
        .zip(next..)
        .map(|(repetition, sequence)| {
            repetition.sequence = Some(sequence);
            (repetition.index, sequence)
        })
        .collect();
    for group in &mut point.groups {
        for repetition in &mut group.repetitions {
            repetition.sequence = numbered
                .iter()
                .find(|(index, _)| *index == repetition.index)
                .map(|(_, sequence)| *sequence);
        }
    }
}
