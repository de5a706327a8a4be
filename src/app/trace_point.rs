//! A trace as a point of `run`, `sweep` and study files: the traces checked whole before any point runs, and each repetition one replay onto a file made in the session's directory, recorded as a point whose repetitions carry their fidelity.

use super::distributed::Ranks;
use super::error::AppError;
use crate::plan::trace::TraceCost;
use crate::plan::{PlannedPoint, TracePath};
use crate::record::histogram::latency_summary;
use crate::record::{DirectionShare, Point, Repetition, Status};
use crate::replay::{ReplayOptions, Replayed, Target, TargetChoice, TargetError};
use crate::run::Session;
use crate::run::signals::Interrupt;
use crate::trace::characterize::{Character, characterize};
use crate::trace::{IoKind, Selection};
use crate::usage;
use std::collections::HashMap;
use std::path::Path;

/// Refuses, before any point runs, what the plan's trace points cannot
/// do here: a trace that does not read through (one line naming its file
/// and record), an I/O larger than the replayer's, I/Os O_DIRECT cannot
/// issue, a site other than a local directory, and MPI.
pub(crate) fn check(
    points: &[PlannedPoint],
    session: &Session,
    ranks: &Ranks,
) -> Result<(), AppError> {
    let traces = read_all(points)?;
    for planned in points {
        let workload = planned.workload();
        let Some(trace) = workload.trace else {
            continue;
        };
        if ranks.is_distributed() {
            return Err(usage!(
                "--trace {trace}: a trace is replayed by one thread on one host; it is not run over MPI"
            )
            .into());
        }
        if workload.engine.capabilities().moves_data && session.local_scratch().is_none() {
            return Err(usage!(
                "--trace {trace} replays onto a file iolab makes in a local --dir; iolab replay {trace} --file or --target takes yours"
            )
            .into());
        }
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
    for trace in points.iter().filter_map(|p| p.workload().trace) {
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

/// The traces this process has read whole, each as it was then (its
/// identity in the summary): every later point replays the trace its check
/// read, and a repetition refuses one changed since.
static READ: std::sync::Mutex<Vec<(TracePath, Character)>> = std::sync::Mutex::new(Vec::new());

/// The trace read whole, once per process: its summary and character; a
/// refusal is one line.
fn read_trace(trace: TracePath) -> Result<Character, AppError> {
    let mut read = READ
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, character)) = read.iter().find(|(path, _)| *path == trace) {
        return Ok(character.clone());
    }
    let character = characterize(Path::new(trace.as_str()), None, &Selection::default())
        .map_err(|error| AppError::Usage(usage!("{}", error.0)))?;
    read.push((trace, character.clone()));
    Ok(character)
}

/// Measures the trace point `planned`: its warm-ups and repetitions, each
/// a replay onto a new file in the session's directory (laid out, synced
/// and evicted first, removed after by identity), not yet summarised;
/// `None` when a signal stopped it before any replay began.
pub(crate) fn measure(
    planned: &PlannedPoint,
    session: &Session,
    interrupt: &Interrupt,
) -> Result<Option<Point>, AppError> {
    let workload = planned.workload();
    let trace = workload
        .trace
        .ok_or_else(|| anyhow::anyhow!("a trace point without a trace"))?;
    let character = read_trace(trace)?;
    // plan/combine.rs refused the engines that do not replay a trace.
    let engine = workload.engine;
    let moves_data = engine.capabilities().moves_data;
    let (choice, dir) = match (moves_data, session.local_scratch()) {
        (false, _) => (TargetChoice::Nothing, None),
        (true, Some(dir)) => (TargetChoice::Dir(dir.to_path_buf()), Some(dir)),
        (true, None) => return Err(usage!("--trace {trace} replays onto a local --dir").into()),
    };
    let direct = workload.direct && moves_data;
    let options = ReplayOptions {
        trace: trace.as_str().into(),
        format: character.format,
        selection: Selection::default(),
        summary: character.summary.clone(),
        speed: workload.trace_speed.factor(),
        engine,
        depth: u64::from(workload.iodepth),
        fit: crate::replay::Fit::AsRecorded,
        interval_ns: (workload.interval_s * 1e9) as u64,
        recorded_depth: character.recorded_depth.map(|(mean, _)| mean),
    };
    let mut repetitions = Vec::new();
    let mut files = Vec::new();
    for index in 0..workload.warmup + workload.repeat {
        if interrupt.signal().is_some() {
            break;
        }
        let target = match Target::open(
            &choice,
            &character.summary,
            None,
            &super::distributed::new_run_id(),
            direct,
            interrupt.flag(),
        ) {
            Ok(target) => target,
            Err(TargetError::Refused(why)) => return Err(AppError::Usage(usage!("{why}"))),
            Err(TargetError::Failed(why)) => return Err(AppError::Other(anyhow::anyhow!(why))),
            // Stopped while laying out: the replays done so far are kept.
            Err(TargetError::Interrupted) => break,
        };
        files.push(target.shown.clone());
        // Laid out, synced and evicted: what stayed cached is said, not assumed.
        let residency = target
            .fd()
            .map(|fd| crate::run::site::cache::residency(fd, 0, target.length));
        let cache = match residency {
            Some(Ok(residency)) => Some(crate::record::CacheState {
                treatment: crate::plan::CacheMode::Cold,
                resident_pages: residency.resident_pages,
                total_pages: residency.total_pages,
                resident_fraction: residency.resident_pages as f64
                    / residency.total_pages.max(1) as f64,
            }),
            Some(Err(error)) => {
                crate::say!(
                    "iolab: warning: mincore {}: {error}: the cache at the start is not known",
                    target.shown
                );
                None
            }
            None => None,
        };
        let started_at = jiff::Timestamp::now().to_string();
        let before = crate::probe::cpu::CpuUsage::of_this_thread();
        let outcome = crate::replay::replay(&options, &target, interrupt.flag());
        let cpu = crate::probe::cpu::CpuUsage::of_this_thread() - before;
        let shown = target.shown.clone();
        let released = target.release(false).map_err(|e| anyhow::anyhow!(e))?;
        if let Some(warning) = released.warning(&shown) {
            crate::say!("iolab: warning: {warning}");
        }
        let mut repetition = match outcome {
            Ok(replayed) => repetition_of(index, replayed, cpu, options.interval_ns)?,
            Err(error) => Repetition {
                error: Some(format!("replay of {trace}: {error}")),
                ..Repetition::new(index, Status::Failed, 0, 0)
            },
        };
        repetition.warmup = index < workload.warmup;
        repetition.cache = cache;
        repetition.started_at = Some(started_at);
        let failed = repetition.status == Status::Failed;
        repetitions.push(repetition);
        if failed {
            break;
        }
    }
    if repetitions.is_empty() {
        return Ok(None);
    }
    files.dedup();
    let point = Point {
        label: planned.label.clone(),
        workload: workload.clone(),
        target: crate::record::Target {
            dir: dir.map_or("-".to_string(), |d| d.display().to_string()),
            filesystem: session
                .dir()
                .local()
                .filter(|_| dir.is_some())
                .map_or("none".to_string(), |d| d.filesystem()),
            files: if dir.is_some() { files } else { Vec::new() },
            direct_alignment: None,
            direct_in_memory: false,
            file_given: false,
            open_flags: dir.map(|_| if direct { "O_RDWR|O_DIRECT" } else { "O_RDWR" }.to_string()),
            tree: None,
        },
        repetitions,
        summary: None,
        checks: Vec::new(),
        groups: Vec::new(),
    };
    Ok(Some(point))
}

/// One replay as a repetition: its data I/Os and bytes over the time from
/// its first issue to its last completion, each I/O's latency, the shares
/// of each direction, their completions per interval (the series, without
/// per-interval latency), the issuing thread's CPU (over the whole replay:
/// the one thread issues and reaps), and its fidelity (without the
/// per-interval counts).
fn repetition_of(
    index: u32,
    replayed: Replayed,
    cpu: crate::probe::cpu::CpuUsage,
    interval_ns: u64,
) -> Result<Repetition, AppError> {
    let mut fidelity = replayed.fidelity;
    let count = |kind: IoKind| {
        fidelity
            .counts
            .iter()
            .find(|c| c.kind == kind.name())
            .map_or((0, 0), |c| (c.replay_ios, c.replay_bytes))
    };
    let kinds = [
        (IoKind::Read, crate::plan::direction::Direction::Read),
        (IoKind::Write, crate::plan::direction::Direction::Write),
        (IoKind::Trim, crate::plan::direction::Direction::Trim),
    ];
    let shares: Vec<_> = kinds
        .iter()
        .map(|&(kind, direction)| (direction, count(kind)))
        .filter(|(_, (ios, _))| *ios > 0)
        .collect();
    let ops: u64 = shares.iter().map(|(_, (ios, _))| ios).sum();
    let bytes: u64 = shares.iter().map(|(_, (_, bytes))| bytes).sum();
    let seconds = fidelity.elapsed_ns as f64 / 1e9;
    let timed = fidelity.elapsed_ns > 0;
    let per_second = |n: u64| timed.then(|| n as f64 / seconds);
    let directions = if shares.len() > 1 {
        shares
            .iter()
            .map(|&(direction, (ios, bytes))| DirectionShare {
                direction,
                bytes,
                ops: ios,
                throughput_bps: per_second(bytes),
                iops: per_second(ios),
                latency_ns: None,
            })
            .collect()
    } else {
        Vec::new()
    };
    let status = if replayed.interrupted {
        Status::Interrupted
    } else {
        Status::Ok
    };
    let latency = latency_summary(&replayed.latency).map_err(anyhow::Error::msg)?;
    let step_s = replayed.series.interval_ns as f64 / 1e9;
    let series = replayed
        .series
        .used()
        .iter()
        .enumerate()
        .map(|(at, &(ops, bytes))| crate::record::Interval {
            start_s: at as f64 * step_s,
            bytes,
            ops,
            latency_p50_ns: None,
            latency_p99_ns: None,
            latency_max_ns: None,
            devices: Vec::new(),
            client_tcp: None,
            directions: Vec::new(),
        })
        .collect();
    fidelity.intervals.clear();
    Ok(Repetition {
        elapsed_ns: timed.then_some(fidelity.elapsed_ns),
        throughput_bps: per_second(bytes),
        iops: per_second(ops),
        latency_ns: (timed && latency.count > 0).then_some(latency),
        directions,
        series,
        series_interval_s: (replayed.series.interval_ns != interval_ns).then_some(step_s),
        cpu: timed.then(|| crate::gather::build::cpu_record(&cpu, seconds)),
        replay: Some(fidelity),
        ..Repetition::new(index, status, bytes, ops)
    })
}
