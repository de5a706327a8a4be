//! fio's `prioclass`, `prio`, `priohint`, `cmdprio_percentage`, `cmdprio_bssplit`, `cmdprio_class`, `cmdprio` and `cmdprio_hint` read as iolab's I/O priorities (`--priority`), with fio's defaults: a job class of 0 or none is best effort, a command class of none real-time, levels and hints 0.

use crate::import::option;
use crate::plan::direction::Direction;
use crate::plan::priority::{CommandShare, IoClass, IoPriority, MAX_HINT, Priority, overfull};
use serde_json::{Map, Value};

/// Sets the section's priorities: `Ok(None)` without any, else the note
/// saying how they were read; or the key and why they cannot be followed.
pub(in crate::import) fn apply(
    workload: &mut crate::plan::Workload,
    options: &Map<String, Value>,
) -> Result<Option<String>, (&'static str, String)> {
    let mut priority = Priority::default();
    if ["prioclass", "prio", "priohint"]
        .iter()
        .any(|key| options.contains_key(*key))
    {
        let class = match number(options, "prioclass", 0, 3)?[0] {
            0 => IoClass::BestEffort,
            class => IoClass::from_number(class).unwrap_or(IoClass::BestEffort),
        };
        let mut job = IoPriority::new(class, number(options, "prio", 0, 7)?[0] as u8);
        job.hint = number(options, "priohint", 0, u64::from(MAX_HINT))?[0] as u16;
        priority.job = Some(job);
    }
    let percent = number(options, "cmdprio_percentage", 0, 100)?;
    let class = number(options, "cmdprio_class", 0, 3)?;
    let level = number(options, "cmdprio", 0, 7)?;
    let hint = number(options, "cmdprio_hint", 0, u64::from(MAX_HINT))?;
    // A share's priority unless its entry gives one: fio's cmdprio_class
    // (real-time when unset), cmdprio and cmdprio_hint of its direction.
    let implicit = |index: usize| {
        let class = IoClass::from_number(class[index]).unwrap_or(IoClass::RealTime);
        let mut implicit = IoPriority::new(class, level[index] as u8);
        implicit.hint = hint[index] as u16;
        implicit
    };
    let split = match option(options, "cmdprio_bssplit") {
        Some(text) if percent != [0, 0] => {
            return Err((
                "cmdprio_bssplit",
                format!(
                    "cmdprio_bssplit={text}: cmdprio_percentage gives a share already (fio: the two are mutually exclusive)"
                ),
            ));
        }
        Some(text) => {
            let kb_base = option(options, "kb_base").and_then(|base| base.parse().ok());
            Some(bssplit(text, kb_base.unwrap_or(1024), &implicit)?)
        }
        None => None,
    };
    let mix = workload.directions();
    for (index, direction) in [Direction::Read, Direction::Write].into_iter().enumerate() {
        // fio keeps no share for a direction the job does not take.
        if !mix.takes(direction) {
            continue;
        }
        priority.command[index] = match &split {
            Some(split) => split[index].clone(),
            None if percent[index] == 0 => continue,
            None => vec![CommandShare {
                size: None,
                percent: percent[index] as u8,
                priority: implicit(index),
            }],
        };
    }
    if priority.per_command() && !workload.engine.capabilities().priority_per_io {
        let key = match split {
            Some(_) => "cmdprio_bssplit",
            None => "cmdprio_percentage",
        };
        return Err((
            key,
            format!(
                "{key}: a priority per I/O travels in libaio's and io_uring's requests only (fio has the option for those engines alone), not {}'s",
                workload.engine.name()
            ),
        ));
    }
    if priority == Priority::default() {
        return Ok(None);
    }
    let note = format!(
        "prioclass/prio/priohint/cmdprio_*: iolab's --priority {priority}: {}, latency kept per priority (fio's prios)",
        match priority.job {
            Some(job) => format!("each job's thread at {job} (ioprio_set)"),
            None => "each job's thread at its own priority".to_string(),
        }
    );
    workload.priority = Some(priority);
    Ok(Some(note))
}

/// fio's `cmdprio_bssplit`: per direction (`READS,WRITES`; one list for
/// both), `:`-separated entries `BS/PERCENT[/CLASS/LEVEL[/HINT]]`, the
/// priority of one without `CLASS/LEVEL` `implicit`'s for its direction;
/// entries of 0% dropped, as fio drops them; sizes under `kb_base`.
fn bssplit(
    text: &str,
    kb_base: u64,
    implicit: &dyn Fn(usize) -> IoPriority,
) -> Result<[Vec<CommandShare>; 2], (&'static str, String)> {
    let refuse = |why: String| ("cmdprio_bssplit", format!("cmdprio_bssplit={text}: {why}"));
    let lists: Vec<&str> = text.split(',').collect();
    let mut split: [Vec<CommandShare>; 2] = Default::default();
    for (index, shares) in split.iter_mut().enumerate() {
        let list = lists.get(index).or(lists.first()).copied().unwrap_or("");
        for entry in list.split(':').map(str::trim).filter(|e| !e.is_empty()) {
            let fields: Vec<&str> = entry.split('/').collect();
            let whole = |field: &str, max: u64| {
                field
                    .trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|n| *n <= max)
                    .ok_or_else(|| {
                        refuse(format!(
                            "'{entry}': {field} is no whole number from 0 to {max}"
                        ))
                    })
            };
            let size = crate::import::units::fio_size(fields[0], kb_base)
                .filter(|size| *size > 0)
                .ok_or_else(|| refuse(format!("'{entry}': {} is no block size", fields[0])))?;
            let percent = match fields.get(1) {
                Some(field) if !field.is_empty() => whole(field, 100)?,
                _ => 0,
            };
            let priority = match fields.len() {
                1 | 2 => implicit(index),
                4 | 5 => {
                    let class = IoClass::from_number(whole(fields[2], 3)?).ok_or_else(|| {
                        refuse(format!("'{entry}': class 0 is no priority of a request's own (1 real-time, 2 best effort, 3 idle)"))
                    })?;
                    let mut priority = IoPriority::new(class, whole(fields[3], 7)? as u8);
                    if let Some(hint) = fields.get(4) {
                        priority.hint = whole(hint, u64::from(MAX_HINT))? as u16;
                    }
                    priority
                }
                _ => {
                    return Err(refuse(format!(
                        "'{entry}' is not BS/PERCENT or BS/PERCENT/CLASS/LEVEL[/HINT]"
                    )));
                }
            };
            if percent > 0 {
                shares.push(CommandShare {
                    size: Some(size),
                    percent: percent as u8,
                    priority,
                });
            }
        }
        if let Some((size, total)) = overfull(shares) {
            return Err(refuse(format!(
                "the entries for {} add up to {total}%, more than 100% (fio refuses it too)",
                crate::plan::units::format_size(size.unwrap_or(0))
            )));
        }
    }
    Ok(split)
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
