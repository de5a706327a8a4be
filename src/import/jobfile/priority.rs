//! fio's `prioclass`, `prio`, `cmdprio_percentage`, `cmdprio_class` and `cmdprio` read as iolab's I/O priorities (`--priority`), with fio's defaults: a job class of 0 or none is best effort, a command class of none real-time, levels 0.

use crate::import::option;
use crate::plan::direction::Direction;
use crate::plan::priority::{CommandShare, IoClass, IoPriority, Priority};
use serde_json::{Map, Value};

/// Sets the section's priorities: `Ok(None)` without any, else the note
/// saying how they were read; or the key and why they cannot be followed.
pub(in crate::import) fn apply(
    workload: &mut crate::plan::Workload,
    options: &Map<String, Value>,
) -> Result<Option<String>, (&'static str, String)> {
    let mut priority = Priority::default();
    if options.contains_key("prioclass") || options.contains_key("prio") {
        let class = match number(options, "prioclass", 0, 3)?[0] {
            0 => IoClass::BestEffort,
            class => IoClass::from_number(class).unwrap_or(IoClass::BestEffort),
        };
        let level = number(options, "prio", 0, 7)?[0] as u8;
        priority.job = Some(IoPriority {
            class,
            level: if class == IoClass::Idle { 0 } else { level },
        });
    }
    let percent = number(options, "cmdprio_percentage", 0, 100)?;
    let class = number(options, "cmdprio_class", 0, 3)?;
    let level = number(options, "cmdprio", 0, 7)?;
    let mix = workload.directions();
    for (index, direction) in [Direction::Read, Direction::Write].into_iter().enumerate() {
        // fio keeps no share for a direction the job does not take.
        if percent[index] == 0 || !mix.takes(direction) {
            continue;
        }
        // fio's cmdprio_class defaults to real-time.
        let class = IoClass::from_number(class[index]).unwrap_or(IoClass::RealTime);
        priority.command[index] = Some(CommandShare {
            percent: percent[index] as u8,
            priority: IoPriority {
                class,
                level: if class == IoClass::Idle {
                    0
                } else {
                    level[index] as u8
                },
            },
        });
    }
    if priority.per_command() && !workload.engine.capabilities().priority_per_io {
        return Err((
            "cmdprio_percentage",
            format!(
                "cmdprio_percentage: a priority per I/O travels in libaio's and io_uring's requests only (fio has the option for those engines alone), not {}'s",
                workload.engine.name()
            ),
        ));
    }
    if priority == Priority::default() {
        return Ok(None);
    }
    workload.priority = Some(priority);
    Ok(Some(format!(
        "prioclass/prio/cmdprio_*: iolab's --priority {priority}: {}, latency kept per priority (fio's prios)",
        match priority.job {
            Some(job) => format!("each job's thread at {job} (ioprio_set)"),
            None => "each job's thread at its own priority".to_string(),
        }
    )))
}

/// fio's integer option `key` for reads and writes (`20` for both,
/// `20,5` each its own), each from `min` to `max`; 0 when absent.
fn number(
    options: &Map<String, Value>,
    key: &'static str,
    min: u64,
    max: u64,
) -> Result<[u64; 2], (&'static str, String)> {
    let Some(text) = option(options, key) else {
        return Ok([0, 0]);
    };
    let parse = |part: &str| {
        part.trim()
            .parse::<u64>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or((
                key,
                format!("{key}={text}: each value is a whole number from {min} to {max}"),
            ))
    };
    let mut parts = text.split(',');
    let read = parse(parts.next().unwrap_or_default())?;
    let write = match parts.next() {
        Some(part) if !part.trim().is_empty() => parse(part)?,
        _ => read,
    };
    if parts.next().is_some() {
        return Err((
            key,
            format!("{key}={text}: one value, or one for reads and one for writes"),
        ));
    }
    Ok([read, write])
}
