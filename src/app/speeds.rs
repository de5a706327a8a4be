//! The speeds each local device ran at, kept between runs in iolab's cache (`speeds/MAJOR-MINOR.json`), and a guest's pace under each accelerator (`guest/pace-ACCEL.json`), so that a plan's time is estimated from this machine rather than from an assumed disk.

use crate::plan::{PlannedPoint, Speed, SpeedKind, Speeds};
use crate::record::ResultFile;
use std::path::{Path, PathBuf};

/// The file that keeps the speeds of the device holding `dir` (or its
/// nearest existing ancestor, for a directory not made yet).
fn file_for(dir: &Path) -> Option<PathBuf> {
    let stat = dir
        .ancestors()
        .find_map(|place| rustix::fs::stat(place).ok())?;
    let (major, minor) = (
        rustix::fs::major(stat.st_dev),
        rustix::fs::minor(stat.st_dev),
    );
    Some(
        crate::cache::dir()
            .join("speeds")
            .join(format!("{major}-{minor}.json")),
    )
}

/// The speeds last measured on the device holding `dir`; none measured
/// (every kind at the assumed speed) when nothing was kept or it cannot be
/// read.
pub(crate) fn load(dir: &Path) -> Speeds {
    file_for(dir)
        .and_then(|file| std::fs::read_to_string(file).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

/// Keeps what the one-pass points of `result` just measured in `dir` ran
/// at, one speed per kind of I/O and block size, and what a repetition
/// cost beyond its timed I/O (from `walls`, each point's wall time in the
/// session). Points of several groups, time-based points (their time is
/// asked, not measured), points without a summary and points measured
/// while something else used the device teach nothing: a shared device's
/// pace is not its own. A cache that cannot be written is
/// left as it was: estimates are a convenience.
pub(crate) fn learn(
    dir: &Path,
    planned: &[PlannedPoint],
    result: &ResultFile,
    walls: &std::collections::HashMap<&str, f64>,
) {
    let Some(file) = file_for(dir) else { return };
    let mut speeds = load(dir);
    let mut learned = false;
    let mut overheads = Vec::new();
    for point in &result.points {
        // A point of one workload, on the host, in the scratch directory.
        let one_pass = planned.iter().any(|p| {
            p.label == point.label
                && p.groups.len() == 1
                && p.file.is_none()
                && p.workload().machine == crate::plan::Machine::Host
        });
        let workload = &point.workload;
        let Some(summary) = point.summary.as_ref() else {
            continue;
        };
        // A trace's figures are its own times' and mix's, not the device's
        // pace; nor are a paced point's, a verified one's, or one's that
        // kept several I/Os in flight (estimates take every point at one).
        if !one_pass
            || workload.runtime_s.is_some()
            || workload.work() == crate::plan::Work::Tree
            || workload.work() == crate::plan::Work::Trace
            || workload.pace() != crate::plan::pace::Pace::NONE
            || workload.verify
            || workload.iodepth > 1
            || shared(point)
        {
            continue;
        }
        if let Some(wall) = walls.get(point.label.as_str())
            && !workload.op.needs_layout()
        {
            let timed: f64 = point
                .repetitions
                .iter()
                .filter_map(|r| r.elapsed_ns)
                .map(|ns| ns as f64 * 1e-9)
                .sum();
            let repetitions = point.repetitions.len().max(1) as f64;
            let files = workload.size.saturating_mul(u64::from(workload.jobs));
            overheads.push((files, ((wall - timed) / repetitions).max(0.0)));
        }
        speeds.learn(
            SpeedKind::of(workload),
            Speed {
                bps: summary.throughput_bps.mean,
                iops: summary.iops.mean,
                bs: workload.bs,
            },
        );
        learned = true;
    }
    // The run's own cost: the process's age less its points' time, where
    // every point ran on the host (a guest's boots are estimated apart).
    let on_host = result
        .points
        .iter()
        .all(|p| p.workload.machine == crate::plan::Machine::Host);
    if let (true, Some(age)) = (on_host && learned, crate::probe::process::own_age_s()) {
        let points: f64 = walls.values().sum();
        speeds.run_overhead_s = Some(crate::plan::blend_cost(
            speeds.run_overhead_s,
            (age - points).max(0.0),
        ));
    }
    // The median at each size this run measured.
    overheads.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    for same in overheads.chunk_by(|a, b| a.0 == b.0) {
        speeds.learn_overhead(same[0].0, same[same.len() / 2].1);
    }
    if !learned {
        return;
    }
    let Some(parent) = file.parent() else { return };
    let Ok(text) = serde_json::to_string(&speeds) else {
        return;
    };
    // Written beside and renamed, so that a reader never sees half a file.
    let partial = parent.join(format!(".{}.partial", std::process::id()));
    let written = std::fs::create_dir_all(parent)
        .and_then(|()| std::fs::write(&partial, text))
        .and_then(|()| std::fs::rename(&partial, &file));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
}

/// Whether something besides the point used its device while it ran (a
/// `foreign-io` finding: a layer of the stack counted I/O the jobs cannot
/// have done): the pace measured then is not the device's own.
fn shared(point: &crate::record::Point) -> bool {
    point.checks.iter().any(|c| c.code == "foreign-io")
}

/// How a plan's one-pass time was estimated, for the dry run and the
/// preset list: from this device's speeds, or at the assumed ones.
pub(crate) fn basis(measured: bool) -> &'static str {
    if measured {
        "at the speeds last measured on this device (kinds not measured there: 100 MiB/s, and 10,000 I/Os a second for O_DIRECT or synced I/O)"
    } else {
        "at 100 MiB/s, and 10,000 I/Os a second for O_DIRECT or synced I/O (nothing measured on this device yet)"
    }
}

/// How a guest's points ran against the host's under one accelerator:
/// what a guest repetition cost beyond its timed I/O (the host's wait, the
/// agent's files and caches under emulation), and its timed I/O against
/// the host twin's.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct GuestPace {
    pub overhead_s: f64,
    /// Guest timed I/O over the host twin's, the median over the points
    /// measured on both; 1 where none was.
    pub io_factor: f64,
}

fn pace_file(accelerator: crate::plan::guest::Accelerator) -> PathBuf {
    crate::cache::dir()
        .join("guest")
        .join(format!("pace-{}.json", accelerator.name()))
}

/// The pace last measured for guests under `accelerator`.
pub(crate) fn guest_pace(accelerator: crate::plan::guest::Accelerator) -> Option<GuestPace> {
    let text = std::fs::read_to_string(pace_file(accelerator)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Keeps the pace of the guests `result` measured in, one per accelerator.
pub(crate) fn learn_guests(result: &ResultFile) {
    let records: Vec<(Option<u32>, &crate::record::guest::GuestRecord)> = match &result.guest {
        Some(record) => vec![(None, record)],
        None => result
            .guests
            .iter()
            .enumerate()
            .map(|(index, record)| (Some(index as u32 + 1), record))
            .collect(),
    };
    let timed = |point: &crate::record::Point, round: Option<u32>| -> f64 {
        point
            .repetitions
            .iter()
            .filter(|r| r.round == round)
            .filter_map(|r| r.elapsed_ns)
            .map(|ns| ns as f64 * 1e-9)
            .sum()
    };
    for (config, record) in records {
        let (mut wall, mut io, mut repetitions) = (0.0, 0.0, 0usize);
        let mut factors = Vec::new();
        for crossing in &record.crossings {
            let Some(point) = result.points.iter().find(|p| {
                p.label == crossing.label
                    && p.workload.machine == crate::plan::Machine::Guest
                    && p.workload.guest_config == config
            }) else {
                continue;
            };
            let in_guest = timed(point, crossing.round);
            wall += crossing.wall_s;
            io += in_guest;
            repetitions += point
                .repetitions
                .iter()
                .filter(|r| r.round == crossing.round)
                .count();
            // The host twin: the same workload on the host.
            let twin = result.points.iter().find(|p| {
                p.workload.machine == crate::plan::Machine::Host
                    && crate::plan::Workload {
                        machine: crate::plan::Machine::Guest,
                        guest_config: config,
                        ..p.workload.clone()
                    } == point.workload
            });
            if let Some(on_host) = twin.map(|t| timed(t, crossing.round))
                && on_host > 0.0
                && in_guest > 0.0
            {
                factors.push(in_guest / on_host);
            }
        }
        if repetitions == 0 {
            continue;
        }
        factors.sort_by(f64::total_cmp);
        let pace = GuestPace {
            overhead_s: ((wall - io) / repetitions as f64).max(0.0),
            io_factor: factors.get(factors.len() / 2).copied().unwrap_or(1.0),
        };
        let file = pace_file(record.accelerator);
        if let (Some(parent), Ok(text)) = (file.parent(), serde_json::to_string(&pace)) {
            let _ = std::fs::create_dir_all(parent).and_then(|()| std::fs::write(&file, text));
        }
    }
}
