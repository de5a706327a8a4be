//! The traces of `run`, `sweep` and study files, checked whole before any point runs, and what one replay of each costs for the estimate; each is replayed as a job's work inside the runner's one repetition path (`run::io::replay::job`).

use super::error::AppError;
use crate::plan::trace::TraceCost;
use crate::plan::{PlannedPoint, TracePath};
use crate::trace::IoKind;
use crate::trace::characterize::Character;
use crate::usage;
use std::collections::HashMap;
use std::path::Path;

/// Refuses, before anything is made, what the plan's traces cannot do:
/// a trace that does not read through (one line naming its file and
/// record), an I/O larger than the replayer's, a speed past the replayer's
/// clock, and I/Os O_DIRECT cannot issue. What a trace may combine with
/// its site is `plan::combine::check_point`'s.
pub(crate) fn check(points: &[PlannedPoint]) -> Result<(), AppError> {
    let traces = read_all(points)?;
    for workload in points.iter().flat_map(PlannedPoint::workloads) {
        let Some(trace) = workload.trace else {
            continue;
        };
        let summary = &traces[&trace].summary;
        crate::replay::check_speed(summary, workload.trace_speed.factor())
            .map_err(|why| usage!("{}", why.replacen("--speed", "--trace-speed", 1)))?;
        if workload.direct && workload.engine.capabilities().moves_data && !summary.sector_aligned {
            return Err(usage!(
                "{trace}: some of its I/Os are not aligned to 512 bytes, which --direct cannot issue"
            )
            .into());
        }
    }
    Ok(())
}

/// Every trace the plan's points replay, read whole once; a trace that
/// does not read through, or holds an I/O larger than the replayer's, is
/// refused in one line.
fn read_all(points: &[PlannedPoint]) -> Result<HashMap<TracePath, Character>, AppError> {
    let mut traces = HashMap::new();
    for trace in points
        .iter()
        .flat_map(PlannedPoint::workloads)
        .filter_map(|w| w.trace)
    {
        if traces.contains_key(&trace) {
            continue;
        }
        let character = read_trace(trace)?;
        if character.summary.largest > crate::replay::LARGEST_IO {
            return Err(usage!(
                "{trace}: an I/O of {} bytes, more than the {} iolab replays in one I/O",
                character.summary.largest,
                crate::replay::LARGEST_IO
            )
            .into());
        }
        traces.insert(trace, character);
    }
    Ok(traces)
}

/// What one replay of each of the plan's traces costs, for its estimate.
pub(crate) fn costs(points: &[PlannedPoint]) -> Result<HashMap<TracePath, TraceCost>, AppError> {
    Ok(read_all(points)?
        .into_iter()
        .map(|(trace, character)| {
            let summary = &character.summary;
            let cost = TraceCost {
                bytes: [IoKind::Read, IoKind::Write, IoKind::Trim]
                    .iter()
                    .map(|kind| summary.bytes[kind.index()])
                    .sum(),
                file_bytes: crate::replay::created_length(summary, None),
                duration_s: summary.duration_ns as f64 / 1e9,
            };
            (trace, cost)
        })
        .collect())
}

/// The trace read whole, once per process: its summary and character; a
/// refusal is one line.
fn read_trace(trace: TracePath) -> Result<Character, AppError> {
    crate::trace::characterize::read_once(Path::new(trace.as_str()))
        .map_err(|error| AppError::Usage(usage!("{}", error.0)))
}
