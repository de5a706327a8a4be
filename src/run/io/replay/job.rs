//! A trace as the work of a job: one job (one issuing thread, the trace's order kept) replays its trace onto its group's file — or onto nothing, on the null engine — once the repetition's jobs are released, and brings back what it did as every job does, its fidelity beside.

use super::fidelity::data_direction;
use super::{ReplayOptions, Replayed, Site, replay};
use crate::probe::cpu::CpuUsage;
use crate::run::io::gate::StartGate;
use crate::run::io::kept::Latencies;
use crate::run::io::live;
use crate::run::io::open::{open_access, open_flags};
use crate::run::io::recorder::{DirectionOutcome, IntervalSample, JobOutcome};
use crate::run::target::Target;
use crate::trace::IoKind;
use std::sync::atomic::AtomicUsize;

/// What a trace group's job replays, and onto what.
#[derive(Clone, Copy)]
pub(in crate::run) struct TracePass<'a> {
    pub(in crate::run) options: &'a ReplayOptions,
    /// The group's file, laid out, synced and its cache treated; `None`
    /// on the null engine.
    pub(in crate::run) file: Option<&'a dyn Target>,
}

/// The trace job: its file opened as `workload` (its group's files') says (read-write
/// when the trace writes or trims, O_DIRECT when asked), then released with
/// the other jobs, the trace replayed once, and its outcome with the
/// replay's fidelity. A file that does not open fails the job untimed; a
/// start called off ends it at once, without I/O.
pub(in crate::run) fn run_trace(
    workload: &crate::plan::Workload,
    stop: &AtomicUsize,
    trace: &TracePass<'_>,
    gate: &StartGate,
) -> JobOutcome {
    let label = trace.file.map_or_else(
        || "(null engine)".to_string(),
        |f| f.path().display().to_string(),
    );
    let opened = trace
        .file
        .map(|file| file.open(open_access(workload), open_flags(workload)))
        .transpose();
    let fd = match opened {
        Ok(fd) => fd,
        Err(error) => {
            gate.wait();
            return JobOutcome::setup_failure(&label, error);
        }
    };
    let site = Site {
        fd: fd.as_ref().map(rustix::fd::AsFd::as_fd),
        client: None,
        // Offsets as recorded: the file was made to hold the furthest.
        length: trace.file.and_then(|f| f.length().ok()).unwrap_or(u64::MAX),
        shown: &label,
    };
    if !gate.wait() {
        // The start was called off (another job's thread did not start):
        // no I/O, as if interrupted.
        let mut outcome = JobOutcome::setup_failure(&label, std::io::Error::other("called off"));
        outcome.failure = None;
        outcome.interrupted = true;
        return outcome;
    }
    live::set_phase(live::Phase::Measuring);
    let before = CpuUsage::of_this_thread();
    let replayed = replay(trace.options, site, stop);
    let cpu = CpuUsage::of_this_thread() - before;
    match replayed {
        Ok(replayed) => outcome_of(replayed, cpu),
        Err(message) => {
            let mut outcome = JobOutcome::setup_failure(&label, std::io::Error::other(message));
            if let Some(failure) = outcome.failure.as_mut() {
                failure.action = "replay";
            }
            outcome.cpu = cpu;
            outcome
        }
    }
}

/// A replay as a job's outcome: its data I/Os and bytes from its first
/// issue to its last completion, each direction's latency, its completions
/// per interval (without per-interval latency), and its fidelity (without
/// the per-interval counts, which the series carries).
fn outcome_of(replayed: Replayed, cpu: CpuUsage) -> JobOutcome {
    let Replayed {
        mut fidelity,
        started_ns,
        latency,
        by_direction,
        series,
        network,
        interrupted,
    } = replayed;
    let counted = |kind: IoKind| {
        fidelity
            .counts
            .iter()
            .find(|c| c.kind == kind.name())
            .map_or((0, 0), |c| (c.replay_ios, c.replay_bytes))
    };
    let shares: Vec<_> = [IoKind::Read, IoKind::Write, IoKind::Trim]
        .into_iter()
        .filter_map(|kind| Some((data_direction(kind)?, counted(kind))))
        .filter(|(_, (ios, _))| *ios > 0)
        .collect();
    let directions = match shares.len() {
        0 | 1 => Vec::new(),
        _ => {
            let mut by_direction = by_direction.map(Some);
            shares
                .iter()
                .map(|&(direction, (ops, bytes))| DirectionOutcome {
                    direction,
                    bytes,
                    ops,
                    latency: Latencies::new(
                        by_direction[direction.index()]
                            .take()
                            .unwrap_or_else(crate::record::histogram::new_histogram),
                    ),
                })
                .collect()
        }
    };
    let intervals = series
        .used()
        .iter()
        .map(|&(ops, bytes)| IntervalSample {
            bytes,
            ops,
            latency_counts: Vec::new(),
            tcp: None,
            directions: Vec::new(),
        })
        .collect();
    let elapsed_ns = fidelity.elapsed_ns;
    fidelity.intervals.clear();
    JobOutcome {
        // A trace's I/Os are the trace's: its fidelity says how they ran.
        ios: None,
        backlog_checked: 0,
        bytes: shares.iter().map(|(_, (_, bytes))| bytes).sum(),
        ops: shares.iter().map(|(_, (ops, _))| ops).sum(),
        start: started_ns,
        end: started_ns + elapsed_ns,
        latency: Latencies::new(latency),
        submit: None,
        completion: None,
        queue_depths: None,
        from_intended: None,
        intervals,
        interval_ns: series.interval_ns,
        cpu,
        failure: None,
        interrupted,
        directions,
        network,
        coverage: None,
        zone_resets: None,
        written: None,
        tree: None,
        latency_depth: None,
        prioritized: None,
        replay: Some(fidelity),
    }
}
