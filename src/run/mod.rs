//! The runner: the [`Session`] that measures points, in rooms by concern —
//! `point` (a point's repetitions), `given` (the targets a user gives it),
//! `site` (a group's files or tree, layout, cache), `io` (the hot path),
//! `target` (targets and their safety).
//!
//! A [`Session`] owns one scratch directory and the files laid out in it; it
//! measures points one after another and keeps a laid-out file set between
//! points of the same size and job count, so a sweep or the quick suite lays
//! out once. Everything is removed when the session is dropped.

mod given;
pub mod io;
pub mod peers;
mod point;
pub mod signals;
pub mod site;
pub mod target;

use crate::plan::data::DataPattern;
use crate::plan::{
    EngineKind, Pattern, UsageError, Workload,
    units::{format_size, human_size},
};
use crate::probe::sampler::{Samples, Watch};
use crate::usage;
use io::recorder::JobOutcome;
use peers::{Peers, RankOutcome};
pub use point::GroupOutcome;
use signals::Interrupt;
use site::cache::Residency;
use site::prepare::{DirectAlignment, DirectCapability};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use target::Target;
use target::scratch::ScratchDir;
use target::space::Space;

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
    /// The flags the jobs' files are opened with (`O_RDONLY|O_DIRECT`),
    /// for an engine that opens a local file.
    pub open_flags: Option<String>,
    /// A metadata workload's tree.
    pub tree: Option<site::tree::TreeInfo>,
}

impl TargetInfo {
    /// Where `workload` is about to run, before its files are prepared: the
    /// directory and its file system, and the flags its files are opened
    /// with (for an engine that opens a local file).
    fn before(dir: &Path, filesystem: String, workload: &Workload) -> TargetInfo {
        TargetInfo {
            dir: dir.to_path_buf(),
            filesystem,
            direct_alignment: None,
            direct_in_memory: false,
            files: Vec::new(),
            file_given: false,
            open_flags: workload
                .engine
                .capabilities()
                .local_fd
                .then(|| io::open::describe_open(workload)),
            tree: None,
        }
    }
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
    pub verified: Vec<io::verify::Verified>,
    /// In a distributed run, on rank 0: what each rank contributed (its jobs
    /// are in `jobs`, on rank 0's clock). Empty otherwise.
    pub ranks: Vec<RankOutcome>,
    /// The seed its jobs drew their random offsets, sizes, directions and
    /// data from ([`Workload::draw_seed`]); `None` when it failed before.
    pub draw_seed: Option<u64>,
    /// With [`Session::count_write_back`]: how long the untimed write-back
    /// after the timed region took, ns (the samples' window includes it).
    pub write_back_ns: Option<u64>,
    /// When its jobs were started: the wall clock (UTC), for the executed
    /// order in the record.
    pub started_at: Option<jiff::Timestamp>,
}

impl RepetitionOutcome {
    /// A repetition that failed before its jobs started.
    pub fn failed_early(index: u32, warmup: bool, message: String) -> RepetitionOutcome {
        RepetitionOutcome {
            index,
            warmup,
            status: RepetitionStatus::Failed(message),
            jobs: Vec::new(),
            residency: None,
            samples: None,
            steady_at: None,
            verified: Vec::new(),
            ranks: Vec::new(),
            draw_seed: None,
            write_back_ns: None,
            started_at: None,
        }
    }

    /// Bytes per second from the common start to the last end, when it
    /// completed; for a metadata workload, whose figure is its operations,
    /// operations per second: what adaptive repetitions converge on.
    pub fn throughput(&self) -> Option<f64> {
        if !matches!(self.status, RepetitionStatus::Ok) || self.jobs.is_empty() {
            return None;
        }
        let start = self.jobs.iter().map(|j| j.start).min()?;
        let end = self.jobs.iter().map(|j| j.end).max()?;
        let done: u64 = if self.jobs.iter().any(|j| j.tree.is_some()) {
            self.jobs.iter().map(|j| j.ops).sum()
        } else {
            self.jobs.iter().map(|j| j.bytes).sum()
        };
        Some(done as f64 / (end.saturating_sub(start).max(1) as f64 * 1e-9))
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
    pub workload: Workload,
    /// Where it ran.
    pub target: TargetInfo,
    /// Its repetitions, in the order run.
    pub repetitions: Vec<RepetitionOutcome>,
    /// A point of groups: each group, whose jobs are the repetitions'
    /// in this order; empty for a point of one workload.
    pub groups: Vec<GroupOutcome>,
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
    files: Vec<Box<dyn Target>>,
    /// What the files hold, which decides whether a point that reads them
    /// lays them out first.
    laid_out: Laid,
    /// Created for this point and not yet written by a timed repetition.
    fresh: bool,
    /// A file the user gave: used as it is, never created, laid out or removed.
    given: bool,
    /// A given file iolab made for a job file's `filename=` that named no
    /// file yet: its write jobs write it first, as fio's do.
    made: bool,
    /// `files` is the one file all ranks share (`--shared-file`).
    shared: bool,
    /// Under `--reorder`, the files of another rank that reads go to.
    others: Vec<Box<dyn Target>>,
    /// The whole read pass that was the last thing done to these files, if
    /// any: a reread right after it reads them for the second time, as
    /// IOzone's reread does, with no untimed read of its own.
    read_pass: Option<ReadPass>,
}

/// What a file set holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Laid {
    /// Nothing known to be whole: a point that reads lays the files out.
    No,
    /// Every block of `bytes` (each file's, or of a given target's region),
    /// written in this shape of data (`--data`): a point that reads data of
    /// another shape, or other bytes, lays them out again.
    With {
        data: DataPattern,
        bytes: (u64, u64),
    },
    /// Data that is not iolab's to replace (a given file, a LUN without
    /// consent): read as it is.
    AsGiven,
}

/// The bytes a workload's jobs work on in each of its files, or in a
/// given target (from `--offset`).
fn region_of(workload: &Workload) -> (u64, u64) {
    (workload.offset, workload.region_end())
}

impl Laid {
    /// Whether a point of `workload` finds the files as it needs them.
    fn holds(self, workload: &Workload) -> bool {
        let (start, end) = region_of(workload);
        match self {
            Laid::No => false,
            Laid::With { data, bytes } => {
                data == workload.data && bytes.0 <= start && end <= bytes.1
            }
            Laid::AsGiven => true,
        }
    }

    /// What is known after `workload` laid out its region: joined to what
    /// was laid out before when the two touch and hold the same data.
    fn laid(self, workload: &Workload) -> Laid {
        let (start, end) = region_of(workload);
        let bytes = match self {
            Laid::With { data, bytes }
                if data == workload.data && bytes.0 <= end && start <= bytes.1 =>
            {
                (bytes.0.min(start), bytes.1.max(end))
            }
            _ => (start, end),
        };
        Laid::With {
            data: workload.data,
            bytes,
        }
    }

    /// What is known after `workload` overwrote (or trimmed) its region:
    /// unchanged where it wrote other bytes or the same data again.
    fn overwritten(self, workload: &Workload) -> Laid {
        let (start, end) = region_of(workload);
        match self {
            Laid::With { bytes, .. } if end <= bytes.0 || bytes.1 <= start => self,
            Laid::With { .. } if !workload.directions().trims() && self.holds(workload) => self,
            Laid::AsGiven => Laid::AsGiven,
            _ => Laid::No,
        }
    }
}

/// How a whole read pass read the files: a reread inherits its cache state
/// only when it reads them the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ReadPass {
    engine: EngineKind,
    pattern: Pattern,
    bs: u64,
    jobs: u32,
    /// An O_DIRECT read leaves the page cache as it found it.
    direct: bool,
}

impl ReadPass {
    /// The pass `workload` makes: every block once (no time limit, a
    /// pattern that visits each block once), else none.
    fn of(workload: &Workload) -> Option<ReadPass> {
        // Every block once: several passes read the file more than once.
        let whole = workload.runtime_s.is_none()
            && workload.time_limit_s.is_none()
            && workload.io_size.is_none_or(|bytes| bytes == workload.size)
            && workload.loops == 1
            && workload.pattern.covers_every_block();
        whole.then_some(ReadPass {
            engine: workload.engine,
            pattern: workload.pattern,
            bs: workload.bs,
            jobs: workload.jobs,
            direct: workload.direct,
        })
    }
}

impl FileSet {
    /// Removes the files iolab made (a given target is only closed), or
    /// under `keep` leaves them and says where.
    fn release(self, keep: bool) {
        for file in self.files {
            file.release(keep);
        }
    }
}

/// Where one job does its I/O: a file and the offset of its region.
#[derive(Clone, Copy)]
struct JobTarget<'a> {
    file: &'a dyn Target,
    base: u64,
}

/// Runs points in one scratch directory and cleans up after them.
/// A given target's emulated zones (`--zbd`), by the shelf key it was
/// given under and the zones' size and capacity.
type KeptZones = (
    Option<PathBuf>,
    (u64, u64),
    std::sync::Arc<io::zones::Zones>,
);

pub struct Session {
    dir: Box<dyn Space>,
    interrupt: Interrupt,
    /// The file, device or LUN the user gave (`--file`, `--target
    /// iscsi://…`): every group of every point works on it.
    given: Option<FileSet>,
    /// The files iolab made for each group of the current point, by the
    /// group's place (`None` for a group without files), kept between
    /// points whose group in that place has the same size and job count.
    made: Vec<Option<FileSet>>,
    /// The tree of the point's metadata group, kept between points of the
    /// same shape.
    tree: Option<site::tree::Held>,
    /// Trees this session made and released: the next one's name is new, so
    /// a tree left for safety (it held what iolab did not make) never
    /// stands in the way of the next point's.
    tree_serial: u32,
    keep: bool,
    watch: Watch,
    /// Whether repetitions sample the watched counters (in a distributed
    /// run, only the lowest rank on each host does).
    sample: bool,
    enough: EnoughRule,
    peers: Rc<dyn Peers>,
    /// Whether writes through the page cache are written back before the
    /// samples end ([`Session::count_write_back`]).
    count_write_back: bool,
    /// Given targets set aside for the points that name them
    /// ([`Session::shelve_given`]): the path a plan names each by, the
    /// target and its watched counters.
    shelf: Vec<(PathBuf, FileSet, Watch)>,
    /// The path the current given target was taken from the shelf by.
    given_key: Option<PathBuf>,
    /// The emulated zones (`--zbd`) of each given target, by its shelf
    /// key and the zones' size and capacity: kept from point to point, as
    /// a zoned device keeps its write pointers.
    zones: Vec<KeptZones>,
}

impl Session {
    /// The given target's emulated zones cut as `zbd` says: the ones kept
    /// from an earlier point on it, else empty ones; refused on a device
    /// the kernel reports zoned (its own pointers, which iolab does not
    /// read).
    fn zones_of(
        &mut self,
        zbd: crate::plan::zbd::Zbd,
    ) -> Result<std::sync::Arc<io::zones::Zones>, RunError> {
        let key = (self.given_key.clone(), (zbd.zone_size, zbd.capacity));
        if let Some((_, _, zones)) = self
            .zones
            .iter()
            .find(|(k, g, _)| (k, g) == (&key.0, &key.1))
        {
            return Ok(zones.clone());
        }
        let given = self.given.as_ref().and_then(|set| set.files.first());
        if let Some(path) = given.map(|file| file.path()) {
            let block = rustix::fs::stat(path).ok().filter(|s| {
                rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::BlockDevice
            });
            if let Some(stat) = block {
                let device = (
                    rustix::fs::major(stat.st_rdev),
                    rustix::fs::minor(stat.st_rdev),
                );
                let model = std::fs::read_to_string(format!(
                    "/sys/dev/block/{}:{}/queue/zoned",
                    device.0, device.1
                ))
                .unwrap_or_default();
                if !matches!(model.trim(), "" | "none") {
                    return Err(RunError::Setup(format!(
                        "--zbd on {}: the kernel reports it zoned ({}); iolab emulates zones only on a device that is not zoned, and does not read a zoned device's own write pointers",
                        path.display(),
                        model.trim()
                    )));
                }
            }
        }
        let zones = std::sync::Arc::default();
        self.zones
            .push((key.0, key.1, std::sync::Arc::clone(&zones)));
        Ok(zones)
    }

    /// Makes every timed repetition that writes through the page cache
    /// write its files back (fsync, untimed) before the sampler's last
    /// snapshot: the time stays the application's, while the devices' and
    /// the network's counts include what the writes caused, as a study that
    /// counted every message of a write (Radkov et al.'s Table 4) needs when
    /// a client kernel's cache holds the writes.
    pub fn count_write_back(&mut self) {
        self.count_write_back = true;
    }

    /// Opens `dir` for scratch files of run `run_id`; refuses a missing or
    /// unwritable directory without creating anything.
    pub fn open(dir: &Path, run_id: &str, interrupt: Interrupt) -> Result<Self, UsageError> {
        let dir = ScratchDir::open(dir, run_id)?;
        let watch = crate::probe::environment::watch(dir.path());
        Ok(Session::in_space(Box::new(dir), watch, interrupt))
    }

    /// Opens the directory of a file or device the user gives with `--file`
    /// ([`Session::use_file`], [`Session::use_device`]); it need not be writable.
    pub fn open_given(dir: &Path, run_id: &str, interrupt: Interrupt) -> Result<Self, UsageError> {
        let dir = ScratchDir::open_given(dir, run_id)?;
        let watch = crate::probe::environment::watch(dir.path());
        Ok(Session::in_space(Box::new(dir), watch, interrupt))
    }

    /// A session whose files go in `dir`, sampling `watch` around each repetition.
    pub fn in_space(dir: Box<dyn Space>, watch: Watch, interrupt: Interrupt) -> Self {
        Session {
            dir,
            interrupt,
            given: None,
            made: Vec::new(),
            tree: None,
            tree_serial: 0,
            keep: false,
            watch,
            sample: true,
            enough: |_, _| false,
            peers: Rc::new(peers::Alone),
            count_write_back: false,
            shelf: Vec::new(),
            given_key: None,
            zones: Vec::new(),
        }
    }

    /// Makes this session one rank of a distributed run: its files are named
    /// by global job number, its repetitions start together with the other
    /// ranks', and rank 0 receives every rank's measurements.
    pub fn distribute(&mut self, peers: Rc<dyn Peers>) {
        // Another rank on this host may count its devices.
        self.sample = peers.samples_host();
        self.peers = peers;
    }

    /// Sets the rule that ends adaptive repetitions (`--until-ci`); without
    /// one, they run to `max_repeat`. The rule lives with the statistics,
    /// which the runner does not import.
    pub fn set_enough_rule(&mut self, rule: EnoughRule) {
        self.enough = rule;
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
                "not enough free space in {}: {} files of {} need {} with a {} margin, {} is free",
                self.dir.path().display(),
                jobs,
                format_size(size),
                human_size(needed),
                format_size(FREE_SPACE_MARGIN),
                human_size(available)
            )
            .into());
        }
        Ok(())
    }

    /// Leaves the files of the last point in place at the end, and says where.
    pub fn keep_files(&mut self) {
        self.keep = true;
    }

    /// Removes, and names, the scratch files that dead runs on this host left
    /// in this directory (see [`ScratchDir::remove_dead_runs`]). Called once
    /// the input is accepted: a refusal changes nothing.
    pub fn remove_dead_runs(&self) -> Vec<String> {
        match self.dir.remove_dead_runs() {
            Ok(removed) => removed
                .iter()
                .map(|name| {
                    let shown = self.dir.shown_path(name).display().to_string();
                    crate::say!("iolab: removed {shown}, left by a run that is no longer running");
                    shown
                })
                .collect(),
            Err(error) => {
                crate::say!(
                    "iolab: could not look for files of dead runs in {}: {error}",
                    self.dir.path().display()
                );
                Vec::new()
            }
        }
    }

    /// Removes what a killed earlier run `run_id` left in this directory
    /// (see [`ScratchDir::remove_leftovers`]) and says so.
    pub fn remove_leftovers(&self, run_id: &str) {
        match self.dir.remove_leftovers(run_id) {
            Ok(removed) => {
                for name in removed {
                    crate::say!(
                        "iolab: removed {}, left by the interrupted run {run_id}",
                        self.dir.shown_path(&name).display()
                    );
                }
            }
            Err(error) => crate::say!(
                "iolab: could not look for files of run {run_id} in {}: {error}",
                self.dir.path().display()
            ),
        }
    }

    /// Where the files go.
    pub fn dir(&self) -> &dyn Space {
        self.dir.as_ref()
    }

    /// The local directory its points' files are made in, when every point
    /// works there: `None` on a network target or with a given file.
    pub fn local_scratch(&self) -> Option<&Path> {
        let given = self.given.is_some() || !self.shelf.is_empty();
        self.dir.local().filter(|_| !given).map(|dir| dir.path())
    }

    /// The local directory, for what only one has (`--file`).
    fn local_dir(&self) -> Result<&ScratchDir, UsageError> {
        self.dir
            .local()
            .ok_or_else(|| usage!("--file names a local file; it cannot go with a network target"))
    }

    /// Finds out whether O_DIRECT works here by creating (then removing) one scratch file.
    pub fn probe_direct(&mut self) -> Result<DirectCapability, RunError> {
        self.release_files();
        let file = self.dir.create(u32::MAX).map_err(RunError::Setup)?;
        let capability = file.direct_capability();
        file.release(false);
        Ok(capability)
    }

    /// Removes the files iolab created even under `--keep`: for refusals,
    /// where bad input must leave nothing behind.
    fn discard_files(&mut self) {
        self.keep = false;
        self.release_files();
    }

    /// Removes the files iolab created, or under `--keep` leaves them and says where.
    fn release_files(&mut self) {
        self.release_data_files();
        self.release_tree();
    }

    /// Removes the data files iolab created (or keeps them under `--keep`),
    /// and lets go of a given target.
    fn release_data_files(&mut self) {
        for group in 0..self.made.len() {
            self.release_made(group);
        }
        self.made.clear();
        if let Some(set) = self.given.take() {
            set.release(self.keep);
        }
    }

    /// Removes the files iolab made for the group in place `group` (or
    /// keeps them under `--keep`).
    fn release_made(&mut self, group: usize) {
        if let Some(set) = self.made.get_mut(group).and_then(Option::take) {
            set.release(self.keep);
        }
    }

    /// The files the group in place `group` works on: the given target, or
    /// those made for it.
    fn set(&self, group: usize) -> Option<&FileSet> {
        self.given
            .as_ref()
            .or_else(|| self.made.get(group)?.as_ref())
    }

    /// [`Session::set`], to change.
    fn set_mut(&mut self, group: usize) -> Option<&mut FileSet> {
        match self.given.as_mut() {
            Some(set) => Some(set),
            None => self.made.get_mut(group)?.as_mut(),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.release_files();
        for (_, set, _) in self.shelf.drain(..) {
            set.release(self.keep);
        }
    }
}

/// Every rank's `local` result ([`peers::agree_on`]): the others' failure
/// is a setup failure here.
fn together<T>(peers: &dyn Peers, local: Result<T, RunError>) -> Result<T, RunError> {
    peers::agree_on(
        peers,
        local,
        |e| peers::Disagreement {
            message: match e {
                RunError::Usage(usage) => usage.to_string(),
                other => other.to_string(),
            },
            bad_input: matches!(e, RunError::Usage(_)),
        },
        |theirs| match theirs.bad_input {
            true => RunError::Usage(usage!("{}", theirs.message)),
            false => RunError::Setup(theirs.message),
        },
    )
}

/// Which jobs of a group's on all ranks this rank runs and reads.
#[derive(Clone, Copy, Debug, Default)]
struct Layout {
    /// The number the group's first file (its shared file) is named by.
    numbers: u32,
    /// This rank's first job among the group's jobs of all ranks.
    first_job: u32,
    /// Under `--reorder`, for reads: the first job whose file or region this
    /// rank reads instead of its own.
    reordered_first_job: Option<u32>,
}

fn treat_cache(
    targets: &[JobTarget<'_>],
    workload: &Workload,
    interrupt: &Interrupt,
) -> Result<(), String> {
    for job in targets {
        let result =
            job.file
                .treat_cache(workload.cache, job.base, workload.size, interrupt.flag());
        result.map_err(|error| {
            format!(
                "cache {:?} of {}: {error}",
                workload.cache,
                job.file.path().display()
            )
        })?;
    }
    Ok(())
}

/// `--verify`: checks every block of every job's file or region from the
/// device (flushed and evicted first, untimed). Wrong data fails the
/// repetition: a speed of writing wrong data is no result.
fn verify_targets(
    targets: &[JobTarget<'_>],
    (written, run): (&[Option<io::coverage::Touched>], u64),
    workload: &Workload,
    alignment: usize,
) -> (RepetitionStatus, Vec<io::verify::Verified>) {
    let mut verified = Vec::new();
    for (index, job) in targets.iter().enumerate() {
        let path = job.file.path().display();
        let mixed = workload.directions().mixed();
        let sparse = workload.op.writes() && workload.writes_may_skip_blocks();
        if (mixed || sparse) && written.get(index).is_none_or(Option::is_none) {
            // The check needs the blocks written (kept unless the file is
            // too large to track, or memory could not be had).
            let status = RepetitionStatus::Failed(format!(
                "verifying {path}: the blocks the job wrote were not tracked (over 2^28 blocks, or no memory), so the check cannot tell which to read"
            ));
            return (status, verified);
        }
        let check = io::verify::BlockCheck {
            base: job.base,
            len: workload.size,
            bs: workload.bs,
            alignment,
            writers: written.get(index).and_then(Option::as_ref).map(|written| {
                io::verify::Writers {
                    written,
                    run,
                    unwritten: if mixed {
                        io::verify::Unwritten::Layout
                    } else {
                        io::verify::Unwritten::Unchecked
                    },
                }
            }),
        };
        let checked = job.file.verify(&check);
        match checked {
            Ok(result) if result.bad_blocks > 0 => {
                let status = RepetitionStatus::Failed(format!(
                    "{} of {} blocks of {path} did not verify; first: {}",
                    result.bad_blocks,
                    result.blocks,
                    result.first_mismatches.first().cloned().unwrap_or_default()
                ));
                verified.push(result);
                return (status, verified);
            }
            Ok(result) => verified.push(result),
            Err(error) => {
                let status = RepetitionStatus::Failed(format!("verifying {path}: {error}"));
                return (status, verified);
            }
        }
    }
    (RepetitionStatus::Ok, verified)
}
