//! The runner: scratch files and their safety, layout, cache control, worker
//! threads behind a barrier, and the timing loops.
//!
//! A [`Session`] owns one scratch directory and the files laid out in it; it
//! measures points one after another and keeps a laid-out file set between
//! points of the same size and job count, so a sweep or the quick suite lays
//! out once. Everything is removed when the session is dropped.

pub mod buffer;
pub mod cache;
pub mod clock;
pub mod command;
pub mod prepare;
pub mod scratch;
pub mod signals;
pub mod timing;
pub mod verify;

use crate::engine::{
    mmap::MappedIo, null::NullIo, psync::PositionalIo, stdio::StreamIo, sync::PositionIo,
    uring::UringIo,
};
use crate::plan::{
    CacheMode, EngineKind, Op, Pattern, SyncMode, UsageError, Workload, units::format_size,
};
use crate::probe::sampler::{Samples, Watch};
use crate::usage;
use buffer::AlignedBuffer;
use cache::Residency;
use prepare::{DirectAlignment, DirectCapability};
use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::OFlags;
use scratch::{ScratchDir, TargetFile};
use signals::Interrupt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Barrier, mpsc};
use std::time::Duration;
use timing::{IoFailure, JobOutcome, LoopSpec};

/// Free space kept in reserve beyond the scratch files themselves.
pub const FREE_SPACE_MARGIN: u64 = 64 << 20;

/// Why a point could not be measured at all.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The request cannot work on this target (alignment, O_DIRECT refused, no space).
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// Setting up failed (layout I/O error, io_uring unavailable…).
    #[error("{0}")]
    Setup(String),
    /// A signal arrived before measuring started.
    #[error("interrupted by signal {0}")]
    Interrupted(i32),
}

/// The target a point ran on.
#[derive(Clone, Debug)]
pub struct TargetInfo {
    /// The scratch directory.
    pub dir: PathBuf,
    /// Its file system type.
    pub filesystem: String,
    /// O_DIRECT alignment, when the point used O_DIRECT.
    pub direct_alignment: Option<DirectAlignment>,
    /// The file system took O_DIRECT but keeps data in memory (tmpfs).
    pub direct_in_memory: bool,
    /// The files measured (empty for the null engine).
    pub files: Vec<PathBuf>,
    /// The file was given with `--file` rather than created by iolab.
    pub file_given: bool,
}

/// How a repetition ended.
#[derive(Debug)]
pub enum RepetitionStatus {
    /// Every I/O completed in full.
    Ok,
    /// An I/O failed or was short; the message names file, offset, size and errno.
    Failed(String),
    /// SIGINT or SIGTERM arrived during the repetition.
    Interrupted,
}

/// What one repetition measured, before any summarising.
#[derive(Debug)]
pub struct RepetitionOutcome {
    /// 0-based index among all repetitions of the point, warm-ups first.
    pub index: u32,
    /// Whether this is an unmeasured warm-up repetition.
    pub warmup: bool,
    /// How it ended.
    pub status: RepetitionStatus,
    /// Per-job outcomes, in job order.
    pub jobs: Vec<JobOutcome>,
    /// Page-cache residency of the files just before the timed region.
    pub residency: Option<Residency>,
    /// Counters of the stack, network and CPUs around the timed region.
    pub samples: Option<Samples>,
    /// With a steady-state criterion: when every job met it (CLOCK_MONOTONIC ns).
    pub steady_at: Option<u64>,
    /// With `--verify`: the untimed check of every block, per file.
    pub verified: Vec<verify::Verified>,
}

impl RepetitionOutcome {
    /// Bytes per second from the common start to the last end, when it completed.
    pub fn throughput(&self) -> Option<f64> {
        if !matches!(self.status, RepetitionStatus::Ok) || self.jobs.is_empty() {
            return None;
        }
        let start = self.jobs.iter().map(|j| j.start).min()?;
        let end = self.jobs.iter().map(|j| j.end).max()?;
        let bytes: u64 = self.jobs.iter().map(|j| j.bytes).sum();
        Some(bytes as f64 / (end.saturating_sub(start).max(1) as f64 * 1e-9))
    }
}

/// The stopping rule of adaptive repetitions: given the measured throughputs
/// so far and the target (a fraction of the mean), whether they are enough.
pub type EnoughRule = fn(&[f64], f64) -> bool;

/// Everything measured for one point.
#[derive(Debug)]
pub struct PointOutcome {
    /// The point's label.
    pub label: String,
    /// Its workload.
    pub workload: Workload,
    /// Where it ran.
    pub target: TargetInfo,
    /// Its repetitions, in the order run.
    pub repetitions: Vec<RepetitionOutcome>,
}

impl PointOutcome {
    /// Whether any repetition failed.
    pub fn failed(&self) -> bool {
        self.repetitions
            .iter()
            .any(|r| matches!(r.status, RepetitionStatus::Failed(_)))
    }

    /// Whether a repetition was cut short by a signal.
    pub fn interrupted(&self) -> bool {
        self.repetitions
            .iter()
            .any(|r| matches!(r.status, RepetitionStatus::Interrupted))
    }
}

/// The files of the current point, kept while points share size and job count.
#[derive(Debug)]
struct FileSet {
    size: u64,
    files: Vec<TargetFile>,
    laid_out: bool,
    /// Created for this point and not yet written by a timed repetition.
    fresh: bool,
    /// A file the user gave: used as it is, never created, laid out or removed.
    given: bool,
}

/// Runs points in one scratch directory and cleans up after them.
#[derive(Debug)]
pub struct Session {
    dir: ScratchDir,
    interrupt: Interrupt,
    files: Option<FileSet>,
    keep: bool,
    watch: Watch,
    enough: EnoughRule,
}

impl Session {
    /// Opens `dir` for scratch files of run `run_id`; refuses a missing or
    /// unwritable directory without creating anything.
    pub fn open(dir: &Path, run_id: &str, interrupt: Interrupt) -> Result<Self, UsageError> {
        let dir = ScratchDir::open(dir, run_id)?;
        let watch = crate::probe::environment::watch(dir.path());
        Ok(Session {
            dir,
            interrupt,
            files: None,
            keep: false,
            watch,
            enough: |_, _| false,
        })
    }

    /// Sets the rule that ends adaptive repetitions (`--until-ci`); without
    /// one, they run to `max_repeat`. The rule lives with the statistics,
    /// which the runner does not import.
    pub fn set_enough_rule(&mut self, rule: EnoughRule) {
        self.enough = rule;
    }

    /// Leaves the files of the last point in place at the end, and says where.
    pub fn keep_files(&mut self) {
        self.keep = true;
    }

    /// Measures the existing file `name` in the session's directory instead of
    /// creating one; `write` asks to overwrite it, which only a file carrying
    /// iolab's marker allows.
    pub fn use_file(&mut self, name: &str, write: bool) -> Result<(), UsageError> {
        self.release_files();
        let file = self.dir.adopt(name, write)?;
        let size = file
            .length()
            .map_err(|e| usage!("--file {}: {e}", file.path().display()))?;
        self.files = Some(FileSet {
            size,
            files: vec![file],
            laid_out: true,
            fresh: false,
            given: true,
        });
        Ok(())
    }

    /// Removes what a killed earlier run `run_id` left in this directory
    /// (see [`ScratchDir::remove_leftovers`]) and says so.
    pub fn remove_leftovers(&self, run_id: &str) {
        match self.dir.remove_leftovers(run_id) {
            Ok(removed) => {
                for name in removed {
                    eprintln!("iolab: removed {name}, left by the interrupted run {run_id}");
                }
            }
            Err(error) => eprintln!(
                "iolab: could not look for files of run {run_id} in {}: {error}",
                self.dir.path().display()
            ),
        }
    }

    /// The scratch directory.
    pub fn dir(&self) -> &ScratchDir {
        &self.dir
    }

    /// Finds out whether O_DIRECT works here by creating (then removing) one scratch file.
    pub fn probe_direct(&mut self) -> Result<DirectCapability, RunError> {
        self.release_files();
        let file = self
            .dir
            .create(u32::MAX)
            .map_err(|e| RunError::Setup(e.to_string()))?;
        let capability = direct_capability(&self.dir, &file);
        remove_file(&self.dir, file);
        Ok(capability)
    }

    /// Measures one point: prepares files, then runs warm-ups and repetitions.
    pub fn run_point(
        &mut self,
        label: &str,
        workload: &Workload,
    ) -> Result<PointOutcome, RunError> {
        workload.validate()?;
        let mut target = TargetInfo {
            dir: self.dir.path().to_path_buf(),
            filesystem: self.dir.filesystem(),
            direct_alignment: None,
            direct_in_memory: false,
            files: Vec::new(),
            file_given: false,
        };
        if workload.engine == EngineKind::Uring {
            check_uring_available()?;
        }
        if workload.uses_files() {
            self.prepare_files(workload, &mut target)?;
        }
        let mut repetitions = Vec::new();
        let measured_at_most = match workload.until_ci {
            Some(_) => workload
                .max_repeat
                .unwrap_or(workload.repeat)
                .max(workload.repeat),
            None => workload.repeat,
        };
        let mut throughputs = Vec::new();
        for index in 0..workload.warmup + measured_at_most {
            if self.interrupt.is_set() {
                break;
            }
            let repetition = self.run_repetition(workload, &target, index)?;
            let stop = !matches!(repetition.status, RepetitionStatus::Ok);
            if !repetition.warmup {
                throughputs.extend(repetition.throughput());
            }
            repetitions.push(repetition);
            if stop {
                break;
            }
            if let Some(target) = workload.until_ci {
                if throughputs.len() >= workload.repeat as usize
                    && (self.enough)(&throughputs, target)
                {
                    break;
                }
            }
        }
        if let (Some(signal), true) = (self.interrupt.signal(), repetitions.is_empty()) {
            return Err(RunError::Interrupted(signal));
        }
        Ok(PointOutcome {
            label: label.to_string(),
            workload: workload.clone(),
            target,
            repetitions,
        })
    }

    fn prepare_files(
        &mut self,
        workload: &Workload,
        target: &mut TargetInfo,
    ) -> Result<(), RunError> {
        if let Some(set) = self.files.as_ref().filter(|set| set.given) {
            let file = set.files[0].path().display();
            if workload.op == Op::Write || workload.jobs != 1 {
                return Err(usage!(
                    "--file {file} is one existing file: it serves one job and no --op write"
                )
                .into());
            }
            if workload.size > set.size {
                return Err(usage!(
                    "--size {} is larger than --file {file} ({} bytes)",
                    workload.size,
                    set.size
                )
                .into());
            }
            target.file_given = true;
        }
        let reusable = self.files.as_ref().is_some_and(|set| {
            set.given || (set.size == workload.size && set.files.len() == workload.jobs as usize)
        });
        if !reusable {
            self.release_files();
            self.check_free_space(workload.size, workload.jobs)?;
            let mut files = Vec::new();
            for job in 0..workload.jobs {
                let created = self
                    .dir
                    .create(job)
                    .map_err(|e| RunError::Setup(e.to_string()));
                match created {
                    Ok(file) => files.push(file),
                    Err(error) => {
                        files.into_iter().for_each(|f| remove_file(&self.dir, f));
                        return Err(error);
                    }
                }
            }
            self.files = Some(FileSet {
                size: workload.size,
                files,
                laid_out: false,
                fresh: true,
                given: false,
            });
        }
        let set = self.files.as_mut().expect("files were just prepared");
        target.files = set.files.iter().map(|f| f.path().to_path_buf()).collect();
        if workload.direct {
            match direct_capability(&self.dir, &set.files[0]) {
                DirectCapability::Refused(errno) => {
                    let filesystem = &target.filesystem;
                    self.discard_files();
                    return Err(usage!(
                        "the {filesystem} file system at {} refuses O_DIRECT ({}); run without --direct",
                        target.dir.display(),
                        timing::errno_name(errno)
                    )
                    .into());
                }
                DirectCapability::AcceptedInMemory => target.direct_in_memory = true,
                DirectCapability::Supported(alignment) => {
                    let align = u64::from(alignment.offset);
                    if workload.bs % align != 0 {
                        self.discard_files();
                        return Err(usage!(
                            "--bs {} is not a multiple of the O_DIRECT alignment of {} ({} bytes, from {})",
                            workload.bs,
                            target.dir.display(),
                            align,
                            alignment.source
                        )
                        .into());
                    }
                    target.direct_alignment = Some(alignment);
                }
            }
        }
        if workload.op.needs_layout() && !set.laid_out {
            for file in &set.files {
                prepare::lay_out(
                    file.fd(),
                    workload.size,
                    workload.seed,
                    self.interrupt.flag(),
                )
                .map_err(|error| match self.interrupt.signal() {
                    Some(signal) => RunError::Interrupted(signal),
                    None => {
                        RunError::Setup(format!("laying out {}: {error}", file.path().display()))
                    }
                })?;
            }
            set.laid_out = true;
            set.fresh = false;
        }
        Ok(())
    }

    /// Refuses, with the numbers, when the directory lacks room for `jobs`
    /// files of `size` bytes plus [`FREE_SPACE_MARGIN`].
    pub fn check_free_space(&self, size: u64, jobs: u32) -> Result<(), RunError> {
        let needed = size
            .saturating_mul(u64::from(jobs))
            .saturating_add(FREE_SPACE_MARGIN);
        let available = self
            .dir
            .available_bytes()
            .map_err(|e| RunError::Setup(format!("statvfs {}: {e}", self.dir.path().display())))?;
        if available < needed {
            return Err(usage!(
                "not enough free space in {}: {} files of {} need {} bytes with a {} margin, {} bytes are free",
                self.dir.path().display(),
                jobs,
                format_size(size),
                needed,
                format_size(FREE_SPACE_MARGIN),
                available
            )
            .into());
        }
        Ok(())
    }

    fn run_repetition(
        &mut self,
        workload: &Workload,
        target: &TargetInfo,
        index: u32,
    ) -> Result<RepetitionOutcome, RunError> {
        let warmup = index < workload.warmup;
        let interrupt = self.interrupt.clone();
        let mut residency = None;
        let mut samples = None;
        let mut steady_at = None;
        let mut verified = Vec::new();
        let mut jobs = Vec::new();
        let mut status = RepetitionStatus::Ok;
        if let Some(set) = self.files.as_mut() {
            if workload.op == Op::Write {
                prepare_new_files(&self.dir, set, workload).map_err(RunError::Setup)?;
            }
            if let Err(message) = treat_cache(set, workload, &interrupt) {
                // Warming reads the whole file and stops early on a signal.
                status = if interrupt.is_set() {
                    RepetitionStatus::Interrupted
                } else {
                    RepetitionStatus::Failed(message)
                };
            }
            if workload.op == Op::Reread && matches!(status, RepetitionStatus::Ok) {
                // The read whose cache the timed reread inherits: same engine and pattern, one pass.
                let first_read = Workload {
                    runtime_s: None,
                    ramp_s: 0.0,
                    ..workload.clone()
                };
                let (outcomes, _, _) =
                    run_jobs(&self.dir, Some(set), &first_read, target, &interrupt, None);
                status = status_of(&outcomes);
            }
            if matches!(status, RepetitionStatus::Ok) {
                let mut total = Residency::default();
                for file in &set.files {
                    let counted = cache::residency(file.fd(), workload.size).map_err(|e| {
                        RunError::Setup(format!("mincore {}: {e}", file.path().display()))
                    })?;
                    total = total + counted;
                }
                residency = Some(total);
                (jobs, samples, steady_at) = run_jobs(
                    &self.dir,
                    Some(set),
                    workload,
                    target,
                    &interrupt,
                    Some(&self.watch),
                );
                status = status_of(&jobs);
                if workload.op == Op::Write {
                    // A time-based write of a new file may stop before its
                    // end: only a file written to its full length is laid out.
                    set.laid_out = matches!(status, RepetitionStatus::Ok)
                        && workload.pattern != Pattern::Uniform
                        && set
                            .files
                            .iter()
                            .all(|f| f.length().is_ok_and(|len| len >= workload.size));
                }
                if workload.verify && matches!(status, RepetitionStatus::Ok) {
                    let alignment = target.direct_alignment.map_or(4096, |a| a.memory as usize);
                    for file in &set.files {
                        // From the device, not the page cache: written data is
                        // flushed and evicted first (untimed).
                        let checked = cache::evict(file.fd()).and_then(|()| {
                            verify::verify_file(file.fd(), workload.size, workload.bs, alignment)
                        });
                        match checked {
                            // Wrong data is a failed I/O: its speed is no result.
                            Ok(result) if result.bad_blocks > 0 => {
                                status = RepetitionStatus::Failed(format!(
                                    "{} of {} blocks of {} did not verify; first: {}",
                                    result.bad_blocks,
                                    result.blocks,
                                    file.path().display(),
                                    result.first_mismatches.first().cloned().unwrap_or_default()
                                ));
                                verified.push(result);
                            }
                            Ok(result) => verified.push(result),
                            Err(error) => {
                                status = RepetitionStatus::Failed(format!(
                                    "verifying {}: {error}",
                                    file.path().display()
                                ));
                                break;
                            }
                        }
                    }
                }
            }
        } else {
            (jobs, samples, steady_at) = run_jobs(
                &self.dir,
                None,
                workload,
                target,
                &interrupt,
                Some(&self.watch),
            );
            status = status_of(&jobs);
        }
        Ok(RepetitionOutcome {
            index,
            warmup,
            status,
            jobs,
            residency,
            samples,
            steady_at,
            verified,
        })
    }

    /// Removes the files iolab created even under `--keep`: for refusals,
    /// where bad input must leave nothing behind.
    fn discard_files(&mut self) {
        self.keep = false;
        self.release_files();
    }

    /// Removes the files iolab created, or under `--keep` leaves them and says where.
    fn release_files(&mut self) {
        if let Some(set) = self.files.take() {
            for file in set.files {
                if self.keep && file.ownership() == scratch::Ownership::Created {
                    eprintln!("iolab: kept {}", file.path().display());
                } else {
                    remove_file(&self.dir, file);
                }
            }
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.release_files();
    }
}

fn remove_file(dir: &ScratchDir, file: TargetFile) {
    if file.ownership() != scratch::Ownership::Created {
        return; // the user's file: never removed
    }
    let path = file.path().to_path_buf();
    match file.remove(dir) {
        Ok(true) => {}
        Ok(false) => eprintln!(
            "iolab: {} is no longer the file iolab created; left in place",
            path.display()
        ),
        Err(error) => eprintln!(
            "iolab: could not remove scratch file {}: {error}",
            path.display()
        ),
    }
}

/// Replaces the files of a write op with new, empty ones: `write` measures
/// writing a new file, so every repetition after the first gets a fresh one.
fn prepare_new_files(
    dir: &ScratchDir,
    set: &mut FileSet,
    workload: &Workload,
) -> Result<(), String> {
    if !set.fresh {
        let jobs = set.files.len() as u32;
        for file in std::mem::take(&mut set.files) {
            remove_file(dir, file);
        }
        for job in 0..jobs {
            set.files.push(dir.create(job).map_err(|e| e.to_string())?);
        }
    }
    if workload.engine == EngineKind::Mmap {
        // A mapping cannot grow a file; give it its length (sparse), untimed.
        for file in &set.files {
            rustix::fs::ftruncate(file.fd(), workload.size)
                .map_err(|e| format!("ftruncate {}: {e}", file.path().display()))?;
        }
    }
    set.laid_out = false;
    set.fresh = false;
    Ok(())
}

fn treat_cache(set: &FileSet, workload: &Workload, interrupt: &Interrupt) -> Result<(), String> {
    for file in &set.files {
        let result = match workload.cache {
            CacheMode::Cold => cache::evict(file.fd()),
            CacheMode::Warm => cache::warm(file.fd(), workload.size, interrupt.flag()),
            CacheMode::Keep => Ok(()),
        };
        result.map_err(|error| {
            format!(
                "cache {:?} of {}: {error}",
                workload.cache,
                file.path().display()
            )
        })?;
    }
    Ok(())
}

fn status_of(jobs: &[JobOutcome]) -> RepetitionStatus {
    if let Some(failure) = jobs.iter().find_map(|job| job.failure.as_ref()) {
        RepetitionStatus::Failed(failure.to_string())
    } else if jobs.iter().any(|job| job.interrupted) {
        RepetitionStatus::Interrupted
    } else {
        RepetitionStatus::Ok
    }
}

fn direct_capability(dir: &ScratchDir, file: &TargetFile) -> DirectCapability {
    if dir.filesystem() == "tmpfs" || dir.filesystem() == "ramfs" {
        // tmpfs takes O_DIRECT since Linux 6.6 but serves it from memory.
        return match file.reopen(dir, OFlags::DIRECT) {
            Ok(_) => DirectCapability::AcceptedInMemory,
            Err(error) => DirectCapability::Refused(error.raw_os_error().unwrap_or(libc::EINVAL)),
        };
    }
    match file.reopen(dir, OFlags::DIRECT) {
        Ok(fd) => match prepare::direct_alignment(fd.as_fd()) {
            Ok(alignment) => DirectCapability::Supported(alignment),
            Err(errno) => DirectCapability::Refused(errno),
        },
        Err(error) => DirectCapability::Refused(error.raw_os_error().unwrap_or(libc::EINVAL)),
    }
}

fn check_uring_available() -> Result<(), RunError> {
    io_uring::IoUring::new(1).map(drop).map_err(|error| {
        RunError::Setup(format!("io_uring is not available on this kernel: {error}"))
    })
}

fn open_flags(workload: &Workload) -> OFlags {
    let mut flags = OFlags::empty();
    if workload.direct {
        flags |= OFlags::DIRECT;
    }
    match workload.sync {
        SyncMode::None => {}
        SyncMode::Osync => flags |= OFlags::SYNC,
        SyncMode::Odsync => flags |= OFlags::DSYNC,
    }
    flags
}

/// Runs every job of `workload` on its own thread, released together. A
/// timed run (`watch` given) has a sampler thread beside the jobs, which
/// snapshots the watched counters at the start of the timed region, every
/// interval, and at the end.
fn run_jobs(
    dir: &ScratchDir,
    set: Option<&FileSet>,
    workload: &Workload,
    target: &TargetInfo,
    interrupt: &Interrupt,
    watch: Option<&Watch>,
) -> (Vec<JobOutcome>, Option<Samples>, Option<u64>) {
    let timed = watch.is_some();
    let met: Vec<AtomicBool> = (0..workload.jobs).map(|_| AtomicBool::new(false)).collect();
    let reached_at = AtomicU64::new(0);
    let steady = workload
        .steady
        .filter(|_| timed)
        .map(|criterion| timing::Steady {
            criterion,
            met: &met,
            reached_at: &reached_at,
        });
    let barrier = Barrier::new(workload.jobs as usize + usize::from(timed));
    let alignment = target
        .direct_alignment
        .map_or(4096, |a| (a.memory as usize).max(4096));
    let (jobs_done, done) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        let sampler = watch.map(|watch| {
            let barrier = &barrier;
            let ramp = Duration::from_secs_f64(workload.ramp_s);
            let interval = Duration::from_secs_f64(workload.interval_s);
            scope.spawn(move || watch.sample_region(ramp, interval, barrier, &done))
        });
        let handles: Vec<_> = (0..workload.jobs)
            .map(|job| {
                let file = set.map(|set| &set.files[job as usize]);
                let barrier = &barrier;
                let steady = steady.map(|s| (s, job as usize));
                scope.spawn(move || {
                    run_job(
                        dir, file, job, workload, alignment, interrupt, timed, barrier, steady,
                    )
                })
            })
            .collect();
        let outcomes = handles
            .into_iter()
            .map(|h| h.join().expect("a job thread panicked"))
            .collect();
        drop(jobs_done);
        let samples = sampler.map(|h| h.join().expect("the sampler thread panicked"));
        interrupt.clear_steady_stop();
        let steady_at = Some(reached_at.load(Ordering::Relaxed)).filter(|&t| t > 0);
        (outcomes, samples, steady_at)
    })
}

#[allow(clippy::too_many_arguments)]
fn run_job(
    dir: &ScratchDir,
    file: Option<&TargetFile>,
    job: u32,
    workload: &Workload,
    alignment: usize,
    interrupt: &Interrupt,
    timed: bool,
    barrier: &Barrier,
    steady: Option<(timing::Steady<'_>, usize)>,
) -> JobOutcome {
    let label = file.map_or_else(
        || "(null engine)".to_string(),
        |f| f.path().display().to_string(),
    );
    let spec = LoopSpec {
        write: workload.op.writes(),
        bs: workload.bs,
        blocks: workload.blocks(),
        pattern: workload.pattern,
        seed: workload.seed ^ u64::from(job).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        runtime: if timed {
            workload.runtime_s.map(Duration::from_secs_f64)
        } else {
            None
        },
        ramp: if timed {
            Duration::from_secs_f64(workload.ramp_s)
        } else {
            Duration::ZERO
        },
        batch: workload.batch,
        fsync_every: workload.fsync_every,
        fsync_end: workload.fsync_end,
        interval: Duration::from_secs_f64(workload.interval_s),
        interrupt: interrupt.flag(),
        file: &label,
        steady,
        verify: workload.verify.then(|| verify::run_tag(dir.run_id())),
    };
    let slots = if workload.engine == EngineKind::Uring {
        workload.iodepth as usize
    } else {
        1
    };
    let mut buffer = AlignedBuffer::with_data(workload.bs as usize * slots, alignment, spec.seed);
    let setup_failed = |error: std::io::Error| {
        barrier.wait();
        JobOutcome::setup_failure(&label, error)
    };
    let fd: Option<OwnedFd> = match file {
        Some(file) => match file.reopen(dir, open_flags(workload)) {
            Ok(fd) => Some(fd),
            Err(error) => return setup_failed(error),
        },
        None => None,
    };
    let ready = || {
        barrier.wait();
    };
    let fd = fd.as_ref().map(|fd| fd.as_fd());
    let engine_fd = || fd.expect("engines other than null have a file");
    match workload.engine {
        EngineKind::Null => timing::run_blocking(&mut NullIo, buffer.as_mut_slice(), &spec, ready),
        EngineKind::Psync => timing::run_blocking(
            &mut PositionalIo::new(engine_fd()),
            buffer.as_mut_slice(),
            &spec,
            ready,
        ),
        EngineKind::Sync => timing::run_blocking(
            &mut PositionIo::new(engine_fd()),
            buffer.as_mut_slice(),
            &spec,
            ready,
        ),
        EngineKind::Stdio => match StreamIo::new(engine_fd(), spec.write) {
            Ok(mut engine) => {
                timing::run_blocking(&mut engine, buffer.as_mut_slice(), &spec, ready)
            }
            Err(error) => setup_failed(error),
        },
        EngineKind::Mmap => {
            match MappedIo::new(engine_fd(), workload.size, spec.write, workload.sync) {
                Ok(mut engine) => {
                    timing::run_blocking(&mut engine, buffer.as_mut_slice(), &spec, ready)
                }
                Err(error) => setup_failed(error),
            }
        }
        EngineKind::Uring => {
            // SAFETY: `buffer` holds iodepth * bs bytes and outlives the ring,
            // and run_uring reaps every request before returning.
            match unsafe {
                UringIo::new(
                    engine_fd(),
                    workload.iodepth,
                    buffer.as_mut_ptr(),
                    workload.bs as usize,
                )
            } {
                Ok(mut ring) => timing::run_uring(&mut ring, workload.iodepth, &spec, ready),
                Err(error) => setup_failed(error),
            }
        }
    }
}

impl JobOutcome {
    /// An outcome for a job whose engine could not be set up.
    fn setup_failure(file: &str, error: std::io::Error) -> JobOutcome {
        let now = clock::now_ns();
        JobOutcome {
            bytes: 0,
            ops: 0,
            start: now,
            end: now,
            latency: timing::new_histogram(),
            submit: None,
            intervals: Vec::new(),
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
        }
    }
}
