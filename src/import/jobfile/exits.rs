//! fio's `exitall` and `exit_what` read as iolab's exit scopes: which groups stop when one of a group's jobs ends, and the phases that `exit_what=all` leaves unrun.
//!
//! fio (backend.c, libfio.c `fio_terminate_threads`): once any job has
//! `exitall`, every job's end — whatever ended it — terminates, by the
//! ending job's `exit_what`, the jobs of its group (`group`, the default:
//! the sections since the last `stonewall` or `new_group`), every running
//! job (`stonewall`), or every job, those not started included (`all`).
//! A phase waits for the one before it, so `all` ends every later phase
//! before it starts: those phases are dropped here, with a note.

use crate::plan::ExitScope;
use crate::plan::group::Group;

/// What one group's section says about its end.
pub(super) struct ExitMark {
    /// Its fio group: sections since the last `stonewall` or `new_group`.
    pub fio_group: usize,
    /// Its `exit_what`, fio's default `group` when absent.
    pub what: String,
    /// Where `exit_what` (or the section) is, for messages.
    pub at: String,
}

/// Sets each group's exit scope from `marks` (one per group of `phases`,
/// in order) when the job file has `exitall`; returns the notes to print.
pub(super) fn apply(
    phases: &mut Vec<Vec<Group>>,
    marks: &[ExitMark],
) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    let mut marks = marks.iter();
    let mut last_phase = None;
    for (index, phase) in phases.iter_mut().enumerate() {
        let phase_marks: Vec<&ExitMark> = marks.by_ref().take(phase.len()).collect();
        for (position, mark) in phase_marks.iter().enumerate() {
            let scope = match mark.what.as_str() {
                "stonewall" => ExitScope::Point,
                "all" => {
                    last_phase.get_or_insert(index);
                    ExitScope::Point
                }
                "group" => {
                    let together: Vec<usize> = phase_marks
                        .iter()
                        .enumerate()
                        .filter(|(_, other)| other.fio_group == mark.fio_group)
                        .map(|(i, _)| i)
                        .collect();
                    match together.len() {
                        1 => ExitScope::Group,
                        n if n == phase.len() => ExitScope::Point,
                        _ => {
                            let names: Vec<String> = together
                                .iter()
                                .map(|&i| format!("[{}]", phase[i].name))
                                .collect();
                            return Err(format!(
                                "{}: [{}] exitall: fio stops {} together when one of their jobs ends (one fio group: no new_group between them), not the whole phase; iolab stops one group or every group of a phase (give each new_group=1, or none of the phase's sections)",
                                mark.at,
                                phase[position].name,
                                names.join(", ")
                            ));
                        }
                    }
                }
                other => {
                    return Err(format!(
                        "{}: [{}] exit_what={other}: fio takes group, stonewall or all",
                        mark.at, phase[position].name
                    ));
                }
            };
            phase[position].workload.exit = scope;
        }
    }
    if let Some(last) = last_phase.filter(|&last| last + 1 < phases.len()) {
        let dropped: Vec<String> = phases[last + 1..]
            .iter()
            .flatten()
            .map(|group| format!("[{}]", group.name))
            .collect();
        phases.truncate(last + 1);
        notes.push(format!(
            "exit_what=all: {} never run: a job of the phase before ends every job when it finishes, the ones not started too (fio runs none of them)",
            dropped.join(", ")
        ));
    }
    let scopes: Vec<String> = phases
        .iter()
        .flatten()
        .filter(|group| !group.workload.exit.is_none())
        .map(|group| format!("[{}] {}", group.name, group.workload.exit.name()))
        .collect();
    notes.push(format!(
        "exitall: each job's end stops the jobs fio stops then (iolab's exit scopes: {})",
        scopes.join(", ")
    ));
    Ok(notes)
}
