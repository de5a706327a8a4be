//! The published studies' own tables, built from result files: the rows, columns, units and derived figures each publication printed.
//!
//! A study file (and so a preset) names its table with `table = "…"`; the
//! result file records it in `plan.table`, and every view (terminal,
//! `report --format markdown|csv`, the HTML report) shows the tables built
//! here. Points are found by their workload (op, direct, pattern, sizes),
//! never by their labels, so a user's own study file with the same
//! workloads gets the same table.

pub mod atop;
mod dd;
mod direct;
pub(crate) mod guest;
mod iozone;
mod meta;
mod table4;

use super::text_table::TextTable;
use super::units::decimals_for;
use crate::plan::study::StudyTable;
use crate::record::{Point, ResultFile, Stat};
use crate::stats::describe;

/// The study tables of `files` (name, result), in the order given; files
/// of the direct-vs-normal and Table 4 kinds are gathered into one table
/// with one row (or column group) per file, as the studies compared media.
pub fn tables(files: &[(&str, &ResultFile)], alpha: f64) -> Vec<TextTable> {
    // Two hypervisor setups in one file of Varlyakov's table: their stacks
    // side by side, before each configuration's own tables.
    let side_by_side: Vec<TextTable> = files
        .iter()
        .filter(|(_, file)| {
            file.plan.as_ref().and_then(|p| p.table) == Some(StudyTable::AtopLayers)
        })
        .filter_map(|(name, file)| guest::stacks_side_by_side(name, file))
        .collect();
    // Several guest configurations in one file: one file each, as the
    // study compared them (Radkov's Table 4: a column group per stack).
    let split: Vec<(String, ResultFile)> = files
        .iter()
        .flat_map(|(name, file)| match file.per_guest_configuration() {
            Some(each) => each
                .into_iter()
                .map(|(config, file)| (format!("{name} {config}"), file))
                .collect(),
            None => vec![(name.to_string(), (*file).clone())],
        })
        .collect();
    let split: Vec<(&str, &ResultFile)> = split.iter().map(|(n, f)| (n.as_str(), f)).collect();
    let files = split.as_slice();
    let of_kind = |kind: StudyTable| -> Vec<(&str, &ResultFile)> {
        files
            .iter()
            .filter(|(_, file)| file.plan.as_ref().and_then(|p| p.table) == Some(kind))
            .copied()
            .collect()
    };
    let mut tables = side_by_side;
    let kind_of = |file: &ResultFile| file.plan.as_ref().and_then(|p| p.table);
    for (index, (name, file)) in files.iter().enumerate() {
        let Some(kind) = kind_of(file) else {
            // A run or sweep of host and guest: their ratios and the stack across.
            if guest::split(file).is_some() {
                tables.extend(guest::ratio_table(name, file));
                tables.extend(guest::crossing_table(name, file));
            }
            continue;
        };
        // Measured on a host and in its guest: each side's table, then their ratios.
        if let Some((host, in_guest)) = guest::split(file) {
            let sides = [
                (format!("{name}, host"), &host),
                (guest::guest_name(name, file), &in_guest),
            ];
            for (side, side_file) in sides {
                match kind {
                    StudyTable::DdBlocksize | StudyTable::DdDatasize => {
                        tables.extend(dd::table(kind, &side, side_file));
                    }
                    StudyTable::AtopLayers => {
                        tables.extend(atop::tables(&side, side_file));
                        if side_file
                            .points
                            .iter()
                            .all(|p| p.workload.machine == crate::plan::Machine::Guest)
                        {
                            tables.extend(guest::stack_tables(name, file));
                        }
                    }
                    StudyTable::IozoneReport => tables.extend(iozone::tables(&side, side_file)),
                    StudyTable::Table4 | StudyTable::DirectVsNormal | StudyTable::Metadata => {}
                }
            }
            // IOzone's hundreds of points: the study's matrix, not a row each.
            if kind == StudyTable::IozoneReport {
                tables.extend(iozone::speedup_tables(name, file));
            } else {
                tables.extend(guest::ratio_table(name, file));
            }
            tables.extend(guest::crossing_table(name, file));
            if !matches!(
                kind,
                StudyTable::Table4 | StudyTable::DirectVsNormal | StudyTable::Metadata
            ) {
                continue;
            }
        }
        match kind {
            StudyTable::DdBlocksize | StudyTable::DdDatasize => {
                tables.extend(dd::table(kind, name, file));
            }
            StudyTable::AtopLayers => {
                tables.extend(atop::tables(name, file));
                tables.extend(guest::stack_tables(name, file));
            }
            StudyTable::IozoneReport => tables.extend(iozone::tables(name, file)),
            // Gathered: built once, at the first file of the kind.
            StudyTable::Table4 | StudyTable::DirectVsNormal | StudyTable::Metadata => {
                if files[..index].iter().any(|(_, f)| kind_of(f) == Some(kind)) {
                    continue;
                }
                let group = of_kind(kind);
                tables.extend(match kind {
                    StudyTable::Table4 => table4::table(&group)
                        .into_iter()
                        .chain(table4::verdicts(&group, alpha))
                        .collect(),
                    StudyTable::Metadata => meta::table(&group).into_iter().collect(),
                    _ => direct::tables(&group, alpha),
                });
            }
        }
    }
    tables
}

/// Each counted repetition's elapsed time, in seconds.
pub(crate) fn seconds(point: &Point) -> Vec<f64> {
    point
        .measured()
        .filter_map(|r| r.elapsed_ns)
        .map(|ns| ns as f64 / 1e9)
        .collect()
}

/// Each counted repetition's throughput, in bytes per second.
pub(crate) fn throughputs(point: &Point) -> Vec<f64> {
    point.measured().filter_map(|r| r.throughput_bps).collect()
}

/// `mean ±half` of `values` scaled by `scale` (the half width of the 95%
/// interval of the mean), `mean` alone with one value, `-` with none.
pub(crate) fn mean_pm(values: &[f64], scale: f64) -> (Option<f64>, String) {
    match describe(values) {
        None => (None, "-".into()),
        Some(stat) => (Some(stat.mean * scale), pm_text(&stat, scale)),
    }
}

/// The mean with three significant digits, and ± to the same decimals.
fn pm_text(stat: &Stat, scale: f64) -> String {
    let mean = stat.mean * scale;
    let decimals = decimals_for(mean);
    match stat.ci95_low.zip(stat.ci95_high) {
        Some((low, high)) => {
            let half = (high - low) / 2.0 * scale;
            format!("{mean:.decimals$} ±{half:.decimals$}")
        }
        None => format!("{mean:.decimals$}"),
    }
}

/// A file's medium in a few words: its file system and what it is on.
pub(crate) fn medium(name: &str, file: &ResultFile) -> String {
    // Points measured only in the guest: its storage, as its agent saw it.
    let in_guest = !file.points.is_empty()
        && file
            .points
            .iter()
            .all(|p| p.workload.machine == crate::plan::Machine::Guest);
    let guest = file.guest.as_ref().filter(|_| in_guest);
    if let Some(guest) = guest {
        let environment = guest.environment.as_deref().unwrap_or(&file.environment);
        let mode = match guest.spec.nfs {
            Some(crate::plan::guest::NfsMountMode::Sync) => ", mounted sync",
            Some(crate::plan::guest::NfsMountMode::Async) => ", mounted async",
            None if guest
                .spec
                .mount
                .as_deref()
                .is_some_and(|m| m.starts_with("nfs:")) =>
            {
                ", mounted async"
            }
            None => "",
        };
        return format!(
            "{} in the guest{mode}",
            storage_words(environment, name, file)
        );
    }
    storage_words(&file.environment, name, file)
}

fn storage_words(
    environment: &crate::record::environment::Environment,
    name: &str,
    file: &ResultFile,
) -> String {
    match &environment.storage {
        Some(storage) if !storage.stack.is_empty() => {
            format!(
                "{} on {} ({})",
                storage.filesystem, storage.source, storage.stack
            )
        }
        Some(storage) => format!("{} on {}", storage.filesystem, storage.source),
        // A network target has no local storage to describe: its client
        // and protocol are what the points measured.
        None => match file.points.first() {
            Some(point) if !point.target.filesystem.is_empty() => point.target.filesystem.clone(),
            _ => name.to_string(),
        },
    }
}

/// The note on ± said under every table that has one.
pub(crate) const INTERVAL_NOTE: &str = "± = half the 95% confidence interval of the mean over the repetitions (Student t); none with one repetition.";

/// The note on units said under every table with throughputs.
pub(crate) const UNITS_NOTE: &str = "MiB/s = 2^20 bytes/s, MB/s = 10^6 bytes/s; time (s) = the wall time of the timed I/O of one repetition.";

#[cfg(test)]
pub(crate) mod testing {
    //! Result files made by hand for the tables' unit tests.
    use crate::plan::Workload;
    use crate::plan::study::StudyTable;
    use crate::record::{PlanInfo, Point, Repetition, ResultFile, Status, Target};

    /// A result file of `table` with no points.
    pub fn file(table: StudyTable) -> ResultFile {
        let mut file = crate::gather::build::new_result_file(vec!["iolab".into()], None, false);
        file.plan = Some(PlanInfo {
            kind: "study".into(),
            name: Some("t".into()),
            description: None,
            table: Some(table),
            hash: "0".into(),
            points: 0,
        });
        file
    }

    /// A point of `workload` whose repetitions took `seconds` each, moving
    /// `workload.size` bytes in `workload.size / workload.bs` I/Os.
    pub fn point(workload: Workload, seconds: &[f64]) -> Point {
        let repetitions = seconds
            .iter()
            .enumerate()
            .map(|(index, s)| Repetition {
                elapsed_ns: Some((s * 1e9) as u64),
                throughput_bps: Some(workload.size as f64 / s),
                iops: Some((workload.size / workload.bs) as f64 / s),
                ..Repetition::new(
                    index as u32,
                    Status::Ok,
                    workload.size,
                    workload.size / workload.bs,
                )
            })
            .collect();
        Point {
            label: "p".into(),
            workload,
            target: Target {
                dir: ".".into(),
                filesystem: "ext4".into(),
                files: Vec::new(),
                direct_alignment: None,
                direct_in_memory: false,
                file_given: false,
                open_flags: None,
                tree: None,
            },
            repetitions,
            summary: None,
            checks: Vec::new(),
            groups: Vec::new(),
        }
    }
}
