//! One repetition's jobs: each on its own thread with its memory allocated first, the engine it runs, pinned when asked, released together (with the sampler and the other ranks), and what they brought back.

use super::flow::Flows;
use super::gate::StartGate;
use super::open::{open_access, open_flags};
use super::recorder::{self, JobOutcome};
use super::spec::{IoFailure, LoopSpec};
use super::stops::Stops;
use super::timing;
use super::zones::Zones;
use super::{affinity, buffer::AlignedBuffer, priority, steady_stop, verify};
use crate::engine::{
    libaio::LibaioIo, mmap::MappedIo, null::NullIo, psync::PositionalIo, stdio::StreamIo,
    sync::PositionIo, uring::UringIo,
};
use crate::plan::data::DataPattern;
use crate::plan::{EngineKind, ExitScope, SyncMode, Workload};
use crate::probe::sampler::{Samples, Watch};
use crate::run::peers::Peers;
use crate::run::signals::Interrupt;
use crate::run::{JobTarget, RepetitionStatus, TargetInfo};
use rustix::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

pub(in crate::run) fn status_of(jobs: &[JobOutcome]) -> RepetitionStatus {
    if let Some(failure) = jobs.iter().find_map(|job| job.failure.as_ref()) {
        RepetitionStatus::Failed(failure.to_string())
    } else if jobs.iter().any(|job| job.interrupted) {
        RepetitionStatus::Interrupted
    } else {
        RepetitionStatus::Ok
    }
}

/// What the threads of one repetition brought back.
pub(in crate::run) struct JobsRun {
    /// Each started job's outcome, in job order.
    pub(in crate::run) outcomes: Vec<JobOutcome>,
    /// The sampler's counters, when it sampled.
    pub(in crate::run) samples: Option<Samples>,
    /// When every job met the steady-state criterion.
    pub(in crate::run) steady_at: Option<u64>,
    /// Why the jobs could not all be started (the kernel refused a thread):
    /// the started ones were sent home without doing any I/O; or why the
    /// write-back after them failed.
    start_failure: Option<String>,
    /// How long the untimed write-back after the timed region took, ns
    /// (inside the sampler's window), when [`Pass::write_back`] asked for it.
    pub(in crate::run) write_back_ns: Option<u64>,
}

impl JobsRun {
    /// The repetition's status: a start failure first, then the jobs' own.
    pub(in crate::run) fn status(&self) -> RepetitionStatus {
        match &self.start_failure {
            Some(message) => RepetitionStatus::Failed(message.clone()),
            None => status_of(&self.outcomes),
        }
    }
}

/// What the jobs of one pass over the files share: the run (whose tag
/// `--verify` seals into blocks), the workload, the signal flag, and
/// whether the pass is timed (false for the untimed first read of a reread).
#[derive(Clone, Copy)]
pub(in crate::run) struct Pass<'a> {
    pub(in crate::run) run_id: &'a str,
    pub(in crate::run) workload: &'a Workload,
    pub(in crate::run) interrupt: &'a Interrupt,
    pub(in crate::run) timed: bool,
    /// Whether a timed pass that wrote through the page cache writes its
    /// dirty pages back (fsync of each file, untimed) before the sampler's
    /// last snapshot, so the window counts what the writes put on the
    /// devices and the wire ([`crate::run::Session::count_write_back`]).
    pub(in crate::run) write_back: bool,
    /// With `--zbd`: the target's emulated zones, which the session keeps.
    pub(in crate::run) zones: Option<&'a std::sync::Arc<Zones>>,
}

/// Runs every job of `workload` on its own thread (`iolab-job-N`), released
/// together: [`run_crews`] with one crew.
pub(in crate::run) fn run_jobs(
    pass: Pass<'_>,
    work: Work<'_>,
    target: &TargetInfo,
    watch: Option<&Watch>,
    peers: &dyn Peers,
) -> JobsRun {
    run_crews(&[Crew { pass, work }], target, watch, peers)
}

/// One workload's jobs in a pass: a point of one workload has one crew, a
/// point of groups one per group.
#[derive(Clone, Copy)]
pub(in crate::run) struct Crew<'a> {
    /// The workload its jobs run, and how the pass is run.
    pub(in crate::run) pass: Pass<'a>,
    /// What they work on.
    pub(in crate::run) work: Work<'a>,
}

/// Runs every job of every crew on its own thread (`iolab-job-N`, numbered
/// across crews), released together, outcomes in crew then job order.
/// With `watch`, a sampler thread (`iolab-sampler`) beside the jobs
/// snapshots the watched counters at the start of the timed region (after
/// the shortest ramp of any crew, so it covers every crew's), every
/// interval, and at the end. With `peers`, this thread waits for the other
/// ranks before the jobs are released. When a thread cannot be started, the
/// start is called off: the threads already started return without I/O and
/// are joined, and the failure is reported.
pub(in crate::run) fn run_crews(
    crews: &[Crew<'_>],
    target: &TargetInfo,
    watch: Option<&Watch>,
    peers: &dyn Peers,
) -> JobsRun {
    let lead = crews[0].pass;
    let (interrupt, timed) = (lead.interrupt, lead.timed);
    let total_jobs: u32 = crews.iter().map(|c| c.pass.workload.jobs).sum();
    // A steady-state stop ends the pass once every job of every group
    // with a criterion meets its group's; a group without one does not
    // hold the stop back (its jobs count as met from the start).
    let met: std::sync::Arc<[AtomicBool]> = crews
        .iter()
        .flat_map(|crew| {
            let free = crew.pass.workload.steady.is_none();
            (0..crew.pass.workload.jobs).map(move |_| AtomicBool::new(free))
        })
        .collect();
    let reached_at = std::sync::Arc::new(AtomicU64::new(0));
    // Each crew's stop flag; a job's end stops what its exit scope takes
    // in only in a timed pass (laying out and warming are not fio's jobs).
    let scopes = crews
        .iter()
        .map(|crew| match timed {
            true => crew.pass.workload.exit,
            false => ExitScope::None,
        })
        .collect();
    let stops = match Stops::new(scopes, interrupt) {
        Ok(stops) => stops,
        Err(error) => {
            return JobsRun {
                outcomes: Vec::new(),
                samples: None,
                steady_at: None,
                start_failure: Some(format!(
                    "cannot relay the ending signals to the jobs' stop flags: {error}; the repetition was called off before any I/O"
                )),
                write_back_ns: None,
            };
        }
    };
    // A `:sum` criterion's group series, made once per crew: `first` is
    // the number of the crew's first job.
    let steady_of = |workload: &Workload, first: u32| {
        workload
            .steady
            .filter(|_| timed)
            .map(|criterion| steady_stop::Steady {
                criterion,
                met: met.clone(),
                reached_at: reached_at.clone(),
                stops: stops.all(),
                group: criterion.summed.then(|| {
                    std::sync::Arc::new(steady_stop::GroupSeries::new(
                        first as usize,
                        workload.jobs as usize,
                    ))
                }),
            })
    };
    let gate = StartGate::new(
        total_jobs as usize + usize::from(watch.is_some()) + usize::from(!peers.alone()),
    );
    let alignment = target
        .direct_alignment
        .map_or(4096, |a| (a.memory as usize).max(4096));
    let (jobs_done, done) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let gate = &gate;
        let refused = |what: String, error: std::io::Error| {
            gate.call_off();
            format!(
                "cannot start {what}: {error} (a limit on threads or memory, such as ulimit -u or -v?); \
                 the repetition was called off before any I/O"
            )
        };
        // Every job's memory first, in this thread and fallibly: a run that
        // cannot have it is refused before any thread starts.
        let mut start_failure = None;
        let mut memories = Vec::new();
        // Flow shares join here, every job's weight counted before any starts.
        let mut flows = Flows::default();
        // The jobs sharing a dedupe working set, over every group, as
        // fio's dedupe_global spans every job that sets it.
        let sharing = |crew: &Crew<'_>| crew.pass.workload.data.shared_between_jobs();
        let sharers: u32 = crews
            .iter()
            .filter(|crew| sharing(crew))
            .map(|crew| crew.pass.workload.jobs)
            .sum();
        let mut sharer = 0;
        'crews: for crew in crews {
            let workload = crew.pass.workload;
            for job in 0..workload.jobs {
                match JobResources::allocate(workload, job, alignment) {
                    Some(mut resources) => {
                        if sharing(crew) {
                            resources.data_share = (sharer, sharers);
                            sharer += 1;
                        }
                        let flow = workload.flow.filter(|_| timed);
                        resources.memory.flow = flow.map(|flow| flows.join(flow));
                        resources.memory.zones = workload
                            .zbd
                            .zip(crew.pass.zones)
                            .map(|(zbd, zones)| (zones.clone(), zbd));
                        resources.memory.ios =
                            (workload.log_ios && timed).then(crate::record::ios::KeptIos::default);
                        memories.push(resources)
                    }
                    None => {
                        gate.call_off();
                        start_failure = Some(format!(
                            "cannot allocate the buffers and histograms of job {} of {} \
                             (a limit on memory, such as ulimit -v?); the repetition was called off before any I/O",
                            memories.len() + 1,
                            total_jobs
                        ));
                        break 'crews;
                    }
                }
            }
        }
        let sampler = watch.filter(|_| start_failure.is_none()).and_then(|watch| {
            let shortest_ramp = crews
                .iter()
                .map(|c| c.pass.workload.ramp_s)
                .fold(f64::INFINITY, f64::min);
            let ramp = Duration::from_secs_f64(shortest_ramp);
            let interval = Duration::from_secs_f64(lead.workload.interval_s);
            std::thread::Builder::new()
                .name("iolab-sampler".to_string())
                .spawn_scoped(scope, move || {
                    let kept = recorder::intervals_kept_per_job(total_jobs);
                    watch.sample_region(ramp, interval, kept, || gate.wait(), &done)
                })
                .map_err(|error| start_failure = Some(refused("the sampler thread".into(), error)))
                .ok()
        });
        let mut handles = Vec::new();
        let mut memories = memories.into_iter();
        let mut number = 0u32;
        let stops = &stops;
        'spawn: for (crew, &Crew { pass, work }) in crews.iter().enumerate() {
            let crew_steady = steady_of(pass.workload, number);
            for job in 0..pass.workload.jobs {
                let Some(memory) = memories.next().filter(|_| start_failure.is_none()) else {
                    break 'spawn;
                };
                let steady = crew_steady.clone().map(|s| (s, number as usize));
                let spawned = std::thread::Builder::new()
                    .name(format!("iolab-job-{number}"))
                    .spawn_scoped(scope, move || {
                        let stop = stops.flag(crew);
                        let outcome = match work {
                            Work::Files(targets) => {
                                let place = targets.map(|targets| targets[job as usize]);
                                run_job(pass, stop, place, job, memory, gate, steady)
                            }
                            Work::Tree(tree) => run_tree(pass, stop, &tree, job, memory, gate),
                            Work::Trace(trace) => {
                                super::replay::job::run_trace(pass.workload, stop, &trace, gate)
                            }
                        };
                        stops.finished(crew, outcome.interrupted);
                        outcome
                    });
                number += 1;
                match spawned {
                    Ok(handle) => handles.push(handle),
                    Err(error) => {
                        start_failure = Some(refused(
                            format!("the thread of job {number} of {total_jobs}"),
                            error,
                        ));
                    }
                }
            }
        }
        // Called on every path: the other ranks wait at the common start.
        gate.start_with(peers, || handles.iter().all(|h| h.is_finished()));
        // A job thread that panicked is a bug; its message is already on
        // stderr, and the repetition fails rather than iolab hanging or dying.
        let mut outcomes = Vec::new();
        for (job, handle) in handles.into_iter().enumerate() {
            match handle.join() {
                Ok(outcome) => outcomes.push(outcome),
                Err(_) => {
                    start_failure.get_or_insert_with(|| {
                        format!("job {} stopped on an internal error", job + 1)
                    });
                }
            }
        }
        let mut write_back_ns = None;
        for &Crew { pass, work } in crews {
            let workload = pass.workload;
            let files: Vec<&dyn crate::run::target::Target> = match work {
                Work::Files(Some(targets)) => targets.iter().map(|job| job.file).collect(),
                Work::Trace(trace) => trace.file.into_iter().collect(),
                Work::Files(None) | Work::Tree(_) => continue,
            };
            let written_through_cache = pass.write_back
                && timed
                && start_failure.is_none()
                && workload.directions().writes()
                && !workload.direct;
            if !written_through_cache {
                continue;
            }
            let started = std::time::Instant::now();
            for file in files {
                let written = file.local().map_or(Ok(()), |local| {
                    crate::run::site::cache::write_back(local.fd())
                });
                if let Err(error) = written {
                    start_failure = Some(format!(
                        "writing {} back after the timed region: {error}",
                        file.path().display()
                    ));
                    break;
                }
            }
            *write_back_ns.get_or_insert(0) += started.elapsed().as_nanos() as u64;
        }
        drop(jobs_done);
        let samples = sampler.and_then(|h| h.join().ok());
        interrupt.clear_steady_stop();
        let steady_at = Some(reached_at.load(Ordering::Relaxed)).filter(|&t| t > 0);
        JobsRun {
            outcomes,
            samples,
            steady_at,
            start_failure,
            write_back_ns,
        }
    })
}

/// What the jobs of a pass work on: files (or regions of one, or nothing
/// for the null engine), the items of a metadata workload's tree, or a
/// trace one job replays.
#[derive(Clone, Copy)]
pub(in crate::run) enum Work<'a> {
    /// Each job's file or region, in job order; `None` for the null engine.
    Files(Option<&'a [JobTarget<'a>]>),
    /// A tree's items.
    Tree(crate::run::site::tree::TreePass<'a>),
    /// A trace, replayed by the crew's one job.
    Trace(super::replay::job::TracePass<'a>),
}

/// Job `job` of a pass over a tree, with the loop spec its recorder reads.
fn run_tree(
    pass: Pass<'_>,
    stop: &AtomicUsize,
    tree: &crate::run::site::tree::TreePass<'_>,
    job: u32,
    resources: JobResources,
    gate: &StartGate,
) -> JobOutcome {
    let workload = pass.workload;
    let label = tree.site.path().display().to_string();
    let spec = LoopSpec {
        directions: workload.directions(),
        bs: workload.bs,
        sizes: None,
        write_sizes: None,
        trim_then_write: false,
        serialize_overlap: false,
        blocks: 0,
        align_blocks: 1,
        base: 0,
        pattern: workload.pattern,
        seed: job_seed(workload, job),
        job: (job, workload.jobs),
        runtime: None,
        passes: 1,
        io_blocks: None,
        time_limit: None,
        start_delay: Duration::ZERO,
        ramp: Duration::ZERO,
        batch: 1,
        fsync_every: 0,
        fsync_data: false,
        fsync_end: false,
        interval: Duration::from_secs_f64(workload.interval_s),
        iodepth: 1,
        reap: 0,
        latency_target: None,
        priority: None,
        max_intervals: recorder::intervals_kept_per_job(workload.jobs),
        interrupt: stop,
        file: &label,
        verify: None,
        verify_backlog: 0,
        verify_tracks_writes: false,
        data: workload.data,
        pace: crate::plan::pace::Pace::NONE,
        socket: None,
    };
    let JobResources {
        mut buffer, memory, ..
    } = resources;
    if let Err(error) = place_thread(workload, buffer.as_mut_slice()) {
        gate.wait();
        return JobOutcome::setup_failure(&label, error);
    }
    let mut ready = || gate.wait();
    let (mut outcome, done) =
        tree.site
            .run_job(tree, job, &spec, memory, buffer.as_mut_slice(), &mut ready);
    outcome.tree = Some(done);
    outcome
}

/// Sets up a job's thread as its workload says, before its gate: pinned to
/// its CPUs, its buffer on its NUMA nodes, its I/O priority.
fn place_thread(workload: &Workload, buffer: &mut [u8]) -> std::io::Result<()> {
    if let Some(cpus) = &workload.cpus {
        affinity::pin(cpus)?;
    }
    if let Some(policy) = workload.mem_policy {
        affinity::place(buffer, policy)?;
    }
    if let Some(job_priority) = workload.priority.as_ref().and_then(|p| p.job) {
        priority::set_thread_priority(job_priority)?;
    }
    Ok(())
}

/// What a job's thread is given: its I/O buffer and its histograms.
struct JobResources {
    buffer: AlignedBuffer,
    memory: recorder::JobMemory,
    /// The job's number among those whose data is shared (a global dedupe
    /// working set, over every group) and their number; else its own.
    data_share: (u32, u32),
}

impl JobResources {
    /// Job `job`'s buffer (`iodepth` of the largest I/O for a queued engine, filled from the
    /// job's seed) and histograms, or `None` when the memory cannot be had.
    fn allocate(workload: &Workload, job: u32, alignment: usize) -> Option<JobResources> {
        let queued = workload.engine.capabilities().queued;
        let slots = if queued { workload.iodepth as usize } else { 1 };
        let len = (workload.largest_io() as usize).checked_mul(slots)?;
        let mut buffer = AlignedBuffer::try_with_data(len, alignment, job_seed(workload, job))?;
        if let (DataPattern::Dedupe(_), Some(slot)) =
            (workload.data, usize::try_from(workload.largest_io()).ok())
        {
            // A repeated block carries the same bytes from whichever slot.
            let (first, rest) = buffer.as_mut_slice().split_at_mut(slot);
            for other in rest.chunks_mut(slot) {
                other.copy_from_slice(&first[..other.len()]);
            }
        }
        workload.data.shape(buffer.as_mut_slice());
        Some(JobResources {
            data_share: (job, workload.jobs),
            buffer,
            memory: match workload.pace().iops {
                Some(_) => {
                    recorder::JobMemory::try_new(queued, workload.directions())?.with_pacing()?
                }
                None => recorder::JobMemory::try_new(queued, workload.directions())?,
            },
        })
    }
}

/// The seed of job `job`'s pattern and data.
fn job_seed(workload: &Workload, job: u32) -> u64 {
    workload.seed ^ u64::from(job).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn run_job(
    pass: Pass<'_>,
    stop: &AtomicUsize,
    place: Option<JobTarget<'_>>,
    job: u32,
    resources: JobResources,
    gate: &StartGate,
    steady: Option<(steady_stop::Steady, usize)>,
) -> JobOutcome {
    let Pass {
        run_id,
        workload,
        timed,
        ..
    } = pass;
    let file = place.map(|p| p.file);
    let base = place.map_or(0, |p| p.base);
    let label = file.map_or_else(
        || "(null engine)".to_string(),
        |f| f.path().display().to_string(),
    );
    let spec = LoopSpec {
        directions: workload.directions(),
        bs: workload.grid(),
        sizes: match workload.write_bs {
            Some(_) => Some(
                workload
                    .bssplit
                    .unwrap_or(crate::plan::BlockSplit::single(workload.bs)),
            ),
            None => workload.bssplit,
        },
        write_sizes: workload.write_bs,
        trim_then_write: workload.op == crate::plan::Op::Trimwrite,
        serialize_overlap: workload.serialize_overlap,
        blocks: workload.size / workload.grid(),
        align_blocks: (workload.align / workload.grid()).max(1),
        base,
        pattern: workload.pattern,
        seed: job_seed(workload, job),
        job: resources.data_share,
        runtime: if timed {
            workload.runtime_s.map(Duration::from_secs_f64)
        } else {
            None
        },
        passes: if timed { u64::from(workload.loops) } else { 1 },
        io_blocks: workload
            .io_size
            .filter(|_| timed)
            .map(|bytes| bytes / workload.grid()),
        time_limit: workload
            .time_limit_s
            .filter(|_| timed)
            .map(Duration::from_secs_f64),
        start_delay: if timed {
            Duration::from_secs_f64(workload.start_delay_s)
        } else {
            Duration::ZERO
        },
        ramp: if timed {
            Duration::from_secs_f64(workload.ramp_s)
        } else {
            Duration::ZERO
        },
        batch: workload.batch,
        fsync_every: workload.fsync_every,
        fsync_data: workload.fsync_data,
        fsync_end: workload.fsync_end,
        interval: Duration::from_secs_f64(workload.interval_s),
        iodepth: workload.iodepth,
        reap: workload.reap,
        latency_target: workload.latency_target.filter(|_| timed),
        priority: workload.priority.as_ref(),
        max_intervals: recorder::intervals_kept_per_job(workload.jobs),
        interrupt: stop,
        file: &label,
        verify: workload.verify.then(|| verify::run_tag(run_id)),
        verify_backlog: workload.verify_backlog.unwrap_or(0),
        verify_tracks_writes: workload.directions().mixed() || workload.writes_may_skip_blocks(),
        data: workload.data,
        // Untimed passes (laying out, warming) run as fast as they go.
        pace: if timed {
            workload.pace()
        } else {
            crate::plan::pace::Pace::NONE
        },
        socket: None,
    };
    let JobResources {
        mut buffer, memory, ..
    } = resources;
    let memory = memory.with_steady(steady);
    let setup_failed = |error: std::io::Error| {
        gate.wait();
        JobOutcome::setup_failure(&label, error)
    };
    if let Err(error) = place_thread(workload, buffer.as_mut_slice()) {
        return setup_failed(error);
    }
    let fd: Option<OwnedFd> = match file {
        Some(file) if workload.engine.capabilities().local_fd => {
            match file.open(open_access(workload), open_flags(workload)) {
                Ok(fd) => Some(fd),
                Err(error) => return setup_failed(error),
            }
        }
        _ => None,
    };
    let ready = || gate.wait();
    let fd = fd.as_ref().map(|fd| fd.as_fd());
    let engine_fd = || fd.expect("engines other than null have a file");
    match workload.engine {
        EngineKind::Null => {
            timing::run_blocking(&mut NullIo, buffer.as_mut_slice(), &spec, memory, ready)
        }
        EngineKind::Psync => timing::run_blocking(
            &mut PositionalIo::new(engine_fd()),
            buffer.as_mut_slice(),
            &spec,
            memory,
            ready,
        ),
        EngineKind::Sync => timing::run_blocking(
            &mut PositionIo::new(engine_fd()),
            buffer.as_mut_slice(),
            &spec,
            memory,
            ready,
        ),
        EngineKind::Stdio => match StreamIo::new(engine_fd(), spec.directions.writes()) {
            Ok(mut engine) => {
                timing::run_blocking(&mut engine, buffer.as_mut_slice(), &spec, memory, ready)
            }
            Err(error) => setup_failed(error),
        },
        EngineKind::Mmap => {
            match MappedIo::new(
                engine_fd(),
                workload.size,
                spec.directions.writes(),
                workload.sync != SyncMode::None,
            ) {
                Ok(mut engine) => {
                    timing::run_blocking(&mut engine, buffer.as_mut_slice(), &spec, memory, ready)
                }
                Err(error) => setup_failed(error),
            }
        }
        EngineKind::Uring => {
            // SAFETY: `buffer` holds iodepth * largest_io bytes and outlives the ring,
            // and run_queued reaps every request before returning.
            match unsafe {
                UringIo::new(
                    engine_fd(),
                    workload.iodepth,
                    buffer.as_mut_ptr(),
                    workload.largest_io() as usize,
                    workload.sq_poll,
                )
            } {
                Ok(mut ring) => {
                    super::queued::run_queued(&mut ring, workload.iodepth, &spec, memory, ready)
                }
                Err(error) => setup_failed(error),
            }
        }
        EngineKind::Libaio => {
            // SAFETY: as for io_uring: `buffer` holds iodepth * largest_io bytes and
            // outlives the context, and run_queued reaps every request.
            match unsafe {
                LibaioIo::new(
                    engine_fd(),
                    workload.iodepth,
                    buffer.as_mut_ptr(),
                    workload.largest_io() as usize,
                )
            } {
                Ok(aio) => {
                    let mut aio = aio.reaping_at_most(spec.reap);
                    super::queued::run_queued(&mut aio, workload.iodepth, &spec, memory, ready)
                }
                Err(error) => setup_failed(error),
            }
        }
        EngineKind::Posixaio => {
            // SAFETY: as for io_uring: `buffer` holds iodepth * largest_io bytes
            // and outlives the engine, whose drop waits out every request.
            let mut aio = unsafe {
                crate::engine::posixaio::PosixAioIo::new(
                    engine_fd(),
                    workload.iodepth,
                    buffer.as_mut_ptr(),
                    workload.largest_io() as usize,
                )
            };
            super::queued::run_queued(&mut aio, workload.iodepth, &spec, memory, ready)
        }
        // A network client of iolab's own: its target runs the job.
        // (Every other engine has its arm above; the engine tests run each.)
        engine => {
            let Some(client) = file.and_then(|f| f.client()) else {
                let why = match engine.capabilities().network {
                    Some(scheme) => format!(
                        "the {} engine measures a network target: give --target {scheme}://…",
                        engine.name()
                    ),
                    // A local engine whose arm above is missing: a defect, said as one.
                    None => format!("the {} engine has no arm in run/io/jobs.rs", engine.name()),
                };
                return setup_failed(std::io::Error::other(why));
            };
            let mut ready = Some(ready);
            let mut ready_once = || ready.take().is_some_and(|wait| wait());
            client
                .run_job(workload, &spec, memory, &mut buffer, &mut ready_once)
                .unwrap_or_else(&setup_failed)
        }
    }
}

impl JobOutcome {
    /// An outcome for a job whose engine (or connection) could not be set
    /// up: nothing timed, the failure named.
    pub fn setup_failure(file: &str, error: std::io::Error) -> JobOutcome {
        let now = crate::clock::now_ns();
        JobOutcome {
            ios: None,
            backlog_checked: 0,
            bytes: 0,
            ops: 0,
            start: now,
            end: now,
            latency: super::kept::Latencies::new(crate::record::histogram::new_histogram()),
            submit: None,
            completion: None,
            queue_depths: None,
            from_intended: None,
            intervals: Vec::new(),
            interval_ns: 1,
            cpu: Default::default(),
            failure: Some(IoFailure {
                action: "engine setup",
                file: file.to_string(),
                offset: 0,
                bs: 0,
                moved: None,
                error: Some(error),
            }),
            interrupted: false,
            directions: Vec::new(),
            network: None,
            coverage: None,
            zone_resets: None,
            written: None,
            tree: None,
            latency_depth: None,
            prioritized: None,
            replay: None,
        }
    }
}
