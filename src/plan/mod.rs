//! The plan: validated workloads, the values they are built from, and the quick suite.
//!
//! Nothing here does I/O. A [`Workload`] is the complete description of what
//! one point measures, with every default applied; it is stored verbatim in
//! the result file so that later stages (compare, report, sweeps) can match
//! points by their parameters.

pub mod combine;
pub mod constraint;
mod cost;
pub mod cpus;
pub mod data;
pub mod direction;
pub mod draw;
pub mod group;
pub mod guest;
pub mod knee;
pub mod latency_target;
pub mod numa;
mod op;
pub mod order;
pub mod pace;
pub mod param;
pub mod pattern;
pub mod priority;
pub mod quick;
pub mod rate;
pub mod sequence;
pub mod skew;
pub mod split;
pub mod steady;
pub mod study;
pub mod sweep;
pub mod trace;
pub mod tree;
pub mod units;
mod validate;
pub mod zbd;

pub use cost::{
    ASSUMED_BPS, ASSUMED_DEVICE_IOPS, Cost, Kind as SpeedKind, Speed, Speeds, blend as blend_cost,
    cost,
};

pub use cpus::CpuSet;
pub use data::DataPattern;
pub use direction::DirectionMix;
pub use group::ExitScope;
pub use guest::{GuestSpec, Machine};
pub use numa::MemPolicy;
pub use op::{ItemOp, Items, Op};
pub use pace::{Arrivals, Flow, ThinkTime};
pub use pattern::Pattern;
pub use rate::Rate;
pub use split::BlockSplit;
pub use trace::{TracePath, TraceSpeed};
pub use zbd::Zbd;

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// The length of the header `--verify` writes at the start of each block
/// (the runner's `verify::HEADER_BYTES` is defined from it).
pub const VERIFY_HEADER_BYTES: usize = 56;

/// The most writes `--verify-backlog` holds before its check.
pub const MAX_VERIFY_BACKLOG: u64 = 1 << 20;

/// A refusal of bad input: shown as one line, exit status 2, nothing created.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Builds a [`UsageError`] from format arguments.
#[macro_export]
macro_rules! usage {
    ($($arg:tt)*) => { $crate::plan::UsageError(format!($($arg)*)) };
}

/// The longest label of a point or sweep, in bytes.
pub const MAX_LABEL_BYTES: usize = 1024;

/// What is wrong with a text the user names something with (a label, a
/// study's name): a control character, which would reach terminals and file
/// names raw, or more than `max` bytes. `None` when it is fine.
pub fn text_problem(text: &str, max: usize) -> Option<String> {
    if let Some(control) = text.chars().find(|c| c.is_control()) {
        return Some(format!(
            "holds the control character {:?}; labels and names are printed and become file names",
            control
        ));
    }
    (text.len() > max).then(|| format!("is {} bytes long, more than {max}", text.len()))
}

/// Refuses a `--label` that is empty, holds a control character or is too long.
pub fn check_label(label: &str) -> Result<(), UsageError> {
    if label.trim().is_empty() {
        return Err(usage!("--label must not be empty"));
    }
    match text_problem(label, MAX_LABEL_BYTES) {
        Some(problem) => Err(usage!("--label {} {problem}", quoted(label))),
        None => Ok(()),
    }
}

/// `text` quoted for a one-line message: escapes shown, at most 60 characters.
pub fn quoted(text: &str) -> String {
    let shown: String = text.chars().take(60).collect();
    let more = if shown.len() < text.len() { "…" } else { "" };
    format!("{:?}{more}", shown)
}

pub use crate::engine::kind::EngineKind;

/// Synchronous-write flags the file is opened with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SyncMode {
    /// No synchronous flag.
    None,
    /// O_SYNC: every write waits for data and metadata.
    Osync,
    /// O_DSYNC: every write waits for data.
    Odsync,
}

impl SyncMode {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SyncMode::None => "none",
            SyncMode::Osync => "osync",
            SyncMode::Odsync => "odsync",
        }
    }
}

/// What is done to the page cache before each timed repetition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum CacheMode {
    /// Flush and evict the file's pages, then verify how much stayed resident.
    Cold,
    /// Read the whole file untimed first.
    Warm,
    /// Touch nothing.
    Keep,
    /// Write dirty pages back (fsync, untimed) and keep them cached:
    /// IOzone's state at the start of each phase, which ends every write
    /// pass and starts every read pass with an untimed fsync. Overwriting a
    /// clean cached page costs more than overwriting a dirty one.
    Clean,
    /// A metadata workload's tree made cold: written back, then the
    /// kernel's clean caches of every file system dropped (drop_caches=3:
    /// pages, dentries and inodes), system-wide and as root only — the one
    /// way to evict a tree's dentries and inodes without unmounting.
    Drop,
}

/// The fewest repetitions of `--until-ci` unless `--min-repeat` says otherwise.
pub const DEFAULT_MIN_REPEAT: u32 = 3;
/// The most repetitions of `--until-ci` unless `--max-repeat` says otherwise.
pub const DEFAULT_MAX_REPEAT: u32 = 20;
/// The most repetitions one point may run, warm-ups included: every finished
/// repetition is kept (about 15 KB each in memory, its latency histograms
/// as their non-empty buckets) until its point is recorded, and written to
/// the result file (about 4 KB each), so this bounds both.
pub const MAX_REPETITIONS: u32 = 1000;

macro_rules! workload_struct {
    (
        []
        $(
            $(#[doc = $help:literal])+
            $variant:ident $field:ident : $ty:ty = $flag:literal $info:tt
            $(serde($($serde:tt)*))?
            $(study_alias($alias:literal))?
        )*
    ) => {
        /// Everything one measured point does, with every default applied.
        ///
        /// Sizes are in bytes and durations in seconds, as everywhere in the
        /// result file. The parameters' fields come from the parameter table
        /// ([`param`]), in its order; the measurement policy's follow.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Workload {
            $(
                $(#[doc = $help])+
                $(#[serde($($serde)*)])?
                pub $field: $ty,
            )*
            /// Measured repetitions; with `until_ci`, the fewest.
            pub repeat: u32,
            /// Adaptive repetitions: after `repeat` of them, more run until the 95%
            /// confidence interval of the mean throughput is within ± this fraction of
            /// the mean (`--until-ci 2%` = 0.02), or `max_repeat` is reached.
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub until_ci: Option<f64>,
            /// With `until_ci`: the most measured repetitions.
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub max_repeat: Option<u32>,
            /// Unmeasured repetitions run before the measured ones.
            pub warmup: u32,
            /// Length of one time-series interval, seconds.
            pub interval_s: f64,
            /// Seal every written block with a header and a CRC-32C, and check every
            /// block in an untimed pass after each repetition.
            #[serde(skip_serializing_if = "std::ops::Not::not", default)]
            pub verify: bool,
            /// With `verify`: every this many writes of a job are read back
            /// and checked as soon as they are written, inside the timed
            /// region (`--verify-backlog`, fio's `verify_backlog`).
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub verify_backlog: Option<u64>,
            /// Keep every timed I/O of each job (issue time, latency, offset,
            /// length, direction) and write them beside the result once the
            /// run is done (`--log-ios`; fio's `write_iolog`, and its logs
            /// without `log_avg_msec`).
            #[serde(skip_serializing_if = "std::ops::Not::not", default)]
            pub log_ios: bool,
            /// Every repetition draws the same random offsets, sizes,
            /// directions and data (`--same-draws`); otherwise each draws
            /// its own from the seed and its index ([`Workload::draw_seed`]).
            #[serde(skip_serializing_if = "std::ops::Not::not", default)]
            pub same_draws: bool,
            /// Stop a time-based run early once every job's throughput is steady
            /// (`bw:slope<1%/10s`); `runtime_s` is then the upper bound.
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub steady: Option<steady::SteadyCriterion>,
            /// Search each job's queue depth for the deepest whose I/Os keep
            /// within a latency (`--latency-target`, fio's `latency_target`),
            /// the figures those of one window at the depth found.
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub latency_target: Option<latency_target::LatencyTarget>,
            /// The class and level each job's thread issues at, and the
            /// share of I/Os with a priority of their own (`--priority`,
            /// fio's `prioclass`, `prio`, `cmdprio_percentage`).
            #[serde(skip_serializing_if = "Option::is_none", default)]
            pub priority: Option<priority::Priority>,
        }

        /// The default values of every parameter, as `iolab run` has them,
        /// and one repetition of one pass, cold, with 1 s intervals.
        pub fn default_workload() -> Workload {
            Workload {
                $($field: param::default_of::<$ty>(param::Param::$variant),)*
                repeat: 1,
                until_ci: None,
                max_repeat: None,
                warmup: 0,
                interval_s: 1.0,
                steady: None,
                latency_target: None,
                priority: None,
                verify: false,
                verify_backlog: None,
                log_ios: false,
                same_draws: false,
            }
        }
    };
}

crate::for_each_parameter!(workload_struct);

/// The workload a plan starts from: the defaults, with the engine that
/// reaches the network target (`--target nfs://…` or `iscsi://…`), so that
/// a sweep, a study or a preset that names no engine reaches it. A URL no
/// engine reaches keeps the default, and is refused where it is checked.
pub fn base_workload(network_target: Option<&str>) -> Workload {
    let mut workload = default_workload();
    if let Some(engine) = network_target.and_then(EngineKind::for_url) {
        workload.engine = engine;
    }
    workload
}

/// What a workload's jobs work on — the one question the rest of iolab asks
/// of it, never the shape of its optional fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    /// Data files: made for the point, or the file, device or LUN given.
    Files,
    /// A tree of items (`--items`): files and directories made, stated,
    /// read and removed, as mdtest's phases.
    Tree,
    /// A recorded trace (`--trace`), replayed onto a file made for it.
    Trace,
}

impl Workload {
    /// Whether a write of this workload may leave blocks of its region
    /// unwritten: a pattern that skips or draws blocks, a runtime or time
    /// limit that may end a pass, an io_size other than the size. Its
    /// `--verify` then checks the blocks written only.
    pub fn writes_may_skip_blocks(&self) -> bool {
        !self.pattern.covers_every_block()
            || self.runtime_s.is_some()
            || self.time_limit_s.is_some()
            || self.io_size.is_some_and(|bytes| bytes != self.size)
    }

    /// What this workload's jobs work on.
    pub fn work(&self) -> Work {
        match (self.trace, self.items) {
            (Some(_), _) => Work::Trace,
            (None, Some(_)) => Work::Tree,
            (None, None) => Work::Files,
        }
    }

    /// Where job `job`'s region of a given file or LUN starts, bytes:
    /// `offset` plus `job` times `offset_increment`.
    pub fn job_offset(&self, job: u32) -> u64 {
        self.offset
            .saturating_add(u64::from(job).saturating_mul(self.offset_increment))
    }

    /// The end of every job's region of a given file or LUN together, bytes.
    pub fn region_end(&self) -> u64 {
        self.job_offset(self.jobs.saturating_sub(1))
            .saturating_add(self.size)
    }

    /// The seed repetition `index` (0-based, warm-ups first) draws its
    /// random offsets, block sizes, directions and data from: the workload's
    /// own for the first repetition and under `same_draws`, and for every
    /// other a SplitMix64 step of the seed and the index, so repetitions
    /// sample different draws (as a C program's `rand()` continues from run
    /// to run) and each is reproduced from the recorded seed and index.
    pub fn draw_seed(&self, index: u32) -> u64 {
        if self.same_draws || index == 0 {
            return self.seed;
        }
        let mut z = self
            .seed
            .wrapping_add(u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The number of blocks in one job's file.
    pub fn blocks(&self) -> u64 {
        self.size / self.bs
    }

    /// The bytes of its largest I/O: `bs`, or a block-size split's largest
    /// size, which every I/O buffer holds.
    pub fn largest_io(&self) -> u64 {
        let reads = self.bssplit.map_or(self.bs, |split| split.largest());
        self.write_bs
            .map_or(reads, |writes| reads.max(writes.largest()))
    }

    /// The mean bytes per I/O: `bs`, or a split's shares' mean (with
    /// `write_bs`, each direction's weighted by its share of the mix).
    pub fn mean_io(&self) -> f64 {
        let reads = self.bssplit.map_or(self.bs as f64, |split| split.mean());
        match (self.write_bs, self.mix) {
            (Some(writes), Some(mix)) => {
                let write_share = f64::from(mix.write_percent()) / 100.0;
                reads * (1.0 - write_share) + writes.mean() * write_share
            }
            _ => reads,
        }
    }

    /// The grid every I/O starts on: `bs` (a split's smallest), or with
    /// `write_bs` the smaller of the two directions' smallest sizes.
    pub fn grid(&self) -> u64 {
        self.write_bs
            .map_or(self.bs, |writes| self.bs.min(writes.smallest()))
    }

    /// Whether the workload's data goes through the page cache (buffered I/O
    /// or mmap on files), whose ceiling is the memory-copy bandwidth.
    pub fn uses_page_cache(&self) -> bool {
        self.uses_files() && !self.direct
    }

    /// The I/Os per second each job is paced to in all (`--rate` over the
    /// mean I/O size, or `--rate-iops`; per-direction rates added up);
    /// `None` when it runs as fast as it goes.
    pub fn target_iops(&self) -> Option<f64> {
        match (self.rate, self.rate_iops) {
            (_, Some(iops)) => Some(iops.total() as f64),
            (Some(rate), None) => Some(rate.total() as f64 / self.mean_io().max(1.0)),
            (None, None) => None,
        }
    }

    /// The I/Os per second each job is paced to in each direction, by
    /// [`direction::Direction::index`], when the rate is given per direction.
    pub fn direction_iops(&self) -> Option<[Option<f64>; 3]> {
        let (rates, per_io) = match (self.rate, self.rate_iops) {
            (_, Some(Rate::Directions(rates))) => (rates, 1.0),
            (Some(Rate::Directions(rates)), None) => (rates, self.mean_io().max(1.0)),
            _ => return None,
        };
        Some(direction::Direction::ALL.map(|d| rates.of(d).map(|rate| rate as f64 / per_io)))
    }

    /// How each job's I/Os are paced (`--rate`, `--rate-iops`,
    /// `--arrivals`, `--think`).
    pub fn pace(&self) -> pace::Pace {
        pace::Pace {
            iops: self.target_iops(),
            per_direction: self.direction_iops(),
            arrivals: self.arrivals,
            think: self.think,
            flow: self.flow,
        }
    }

    /// The directions its I/Os take: one per op, or the `--mix` shares of
    /// `op mix`, which the loop draws per I/O.
    pub fn directions(&self) -> direction::DirectionMix {
        match (self.op, self.mix) {
            (Op::Mix, Some(mix)) => mix,
            (Op::Trim, _) => direction::DirectionMix::only(direction::Direction::Trim),
            (Op::Trimwrite, _) => direction::DirectionMix::TRIM_THEN_WRITE,
            (op, _) => direction::DirectionMix::only(if op.writes() {
                direction::Direction::Write
            } else {
                direction::Direction::Read
            }),
        }
    }

    /// Whether the engine touches a file at all.
    pub fn uses_files(&self) -> bool {
        self.engine.capabilities().moves_data
    }

    /// A short human label: `read random 4KiB psync x2 cpus=0-1 direct`.
    pub fn describe(&self) -> String {
        if let Some(trace) = self.trace {
            // As given: two traces of one name in two folders stay apart.
            let name = trace.as_str();
            let mut text = match self.trace_speed {
                TraceSpeed::Times(1.0) => format!("replay {name}"),
                TraceSpeed::Times(factor) => format!("replay {name} {factor}x"),
                TraceSpeed::Afap => format!("replay {name} afap"),
            };
            text.push_str(&format!(" {}", self.engine.name()));
            if self.engine.capabilities().queued {
                text.push_str(&format!(" qd<={}", self.iodepth));
            }
            if self.direct {
                text.push_str(" direct");
            }
            return text;
        }
        let op = match (self.op, self.mix) {
            (Op::Mix, Some(mix)) => format!("mix {mix}"),
            (op, _) => op.name().to_string(),
        };
        let mut sizes = match self.bssplit {
            Some(split) => format!("bs={split}"),
            None => units::format_size(self.bs),
        };
        if let Some(writes) = self.write_bs {
            sizes = format!("reads {sizes} writes {writes}");
        }
        let mut text = match self.tree(1) {
            Some(tree) => format!("{op} {} {}", tree.describe(), self.engine.name()),
            None => format!("{op} {} {sizes} {}", self.pattern, self.engine.name()),
        };
        if let Some(target) = self.latency_target {
            // The depth is searched for, up to iodepth.
            text.push_str(&format!(
                " qd<={} lat<={}",
                self.iodepth,
                units::format_duration_ns(target.target_ns)
            ));
        } else if self.engine.capabilities().queued {
            text.push_str(&format!(" qd{}", self.iodepth));
            if self.batch > 1 {
                text.push_str(&format!(" batch{}", self.batch));
            }
            if self.reap > 0 {
                text.push_str(&format!(" reap{}", self.reap));
            }
        }
        if self.sq_poll {
            text.push_str(" sqpoll");
        }
        if self.jobs > 1 {
            text.push_str(&format!(" x{}", self.jobs));
        }
        if self.loops > 1 {
            text.push_str(&format!(" loops={}", self.loops));
        }
        if self.offset > 0 {
            text.push_str(&format!(" at {}", units::format_size(self.offset)));
        }
        if self.offset_increment > 0 {
            text.push_str(&format!(
                " +{} per job",
                units::format_size(self.offset_increment)
            ));
        }
        if let Some(cpus) = self.cpus {
            text.push_str(&format!(" cpus={cpus}"));
        }
        if let Some(policy) = self.mem_policy {
            text.push_str(&format!(" mem={policy}"));
        }
        if self.direct {
            text.push_str(" direct");
        }
        match self.sync {
            SyncMode::None => {}
            SyncMode::Osync => text.push_str(" osync"),
            SyncMode::Odsync => text.push_str(" odsync"),
        }
        if self.fsync_end {
            text.push_str(" fsync-end");
        }
        if let Some(rate) = self.rate {
            text.push_str(&format!(" rate={}", rate.format(units::format_rate)));
        }
        if let Some(iops) = self.rate_iops {
            text.push_str(&format!(" rate={}", iops.format(|n| format!("{n}iops"))));
        }
        if !self.arrivals.is_uniform() {
            text.push_str(&format!(" {}", self.arrivals.name()));
        }
        if let Some(think) = self.think {
            text.push_str(&format!(" think={think}"));
        }
        if let Some(priority) = &self.priority {
            text.push_str(&format!(" prio={priority}"));
        }
        text
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// A validated request to measure one or more workloads in one directory.
#[derive(Clone, Debug)]
pub struct RunPlan {
    /// Directory where scratch files are created.
    pub dir: PathBuf,
    /// The points to measure, with their labels, in order.
    pub points: Vec<PlannedPoint>,
    /// The guests the points whose `machine` is `guest` run in, in `guest_config`'s order.
    pub guests: Vec<GuestSpec>,
    /// Where the result file goes, if anywhere.
    pub output: Option<PathBuf>,
    /// Print the result as JSON on stdout instead of the table.
    pub json: bool,
    /// Show the device, network and CPU detail below the table.
    pub detail: bool,
    /// Write the HTML report next to the result file.
    pub report: bool,
    /// Turn warnings into exit status 3.
    pub strict: bool,
    /// When the live status line is drawn.
    pub progress: ProgressMode,
    /// What reading the plan's source (a fio job file or command line)
    /// noted, for the result file (see `ResultFile::notes`).
    pub notes: Vec<String>,
}

impl RunPlan {
    /// Whether any group of any point writes.
    pub fn writes(&self) -> bool {
        self.points
            .iter()
            .flat_map(PlannedPoint::workloads)
            .any(|workload| workload.op.writes())
    }
}

/// When the live status line is drawn on stderr (`--progress`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    /// Never.
    Never,
    /// On a terminal, and not with `--json`.
    #[default]
    Auto,
    /// Always: a plain line a second when stderr is not a terminal.
    Always,
}

/// One workload with its label.
#[derive(Clone, Debug)]
pub struct PlannedPoint {
    /// The label shown in tables and stored in the record.
    pub label: String,
    /// In a plan of rounds (`--rounds`; with a guest, each round boots it
    /// anew): the 0-based round this measurement of the point belongs to.
    pub round: Option<u32>,
    /// What runs at once, never empty: one workload is one group without a
    /// name ([`Group::alone`](group::Group::alone)); `--group`, a job
    /// file's sections and a study's `[sweep.group.NAME]` give several.
    pub groups: Vec<group::Group>,
    /// The file or device the point works on when a plan's points work on
    /// different ones (a job file's phases, each its `filename=`); `None`:
    /// the run's one site.
    pub file: Option<std::path::PathBuf>,
}

impl PlannedPoint {
    /// A point of one workload.
    pub fn alone(label: String, workload: Workload) -> Self {
        PlannedPoint {
            label,
            round: None,
            groups: vec![group::Group::alone(workload)],
            file: None,
        }
    }

    /// The first group's workload, whose repetition settings (repeat,
    /// warm-ups, interval, rounds) every group shares: a point of one
    /// workload's workload.
    pub fn workload(&self) -> &Workload {
        &self.groups[0].workload
    }

    /// [`PlannedPoint::workload`], to change.
    pub fn workload_mut(&mut self) -> &mut Workload {
        &mut self.groups[0].workload
    }

    /// Every workload the point runs, in group order.
    pub fn workloads(&self) -> impl Iterator<Item = &Workload> {
        self.groups.iter().map(|group| &group.workload)
    }

    /// Runs every group on `machine`.
    pub fn set_machine(&mut self, machine: Machine) {
        for group in &mut self.groups {
            group.workload.machine = machine;
        }
    }

    /// Places the point in the guest configuration `config` (1 for the first `--guest`).
    pub fn set_guest_config(&mut self, config: u32) {
        for group in &mut self.groups {
            group.workload.machine = Machine::Guest;
            group.workload.guest_config = Some(config);
        }
    }

    /// Whether the point is shown and recorded as groups: several, or one
    /// the user named (a job file's one section).
    pub fn grouped(&self) -> bool {
        group::named(&self.groups)
    }
}

/// The defaults on a 1 MiB file: small enough for unit tests to build on.
#[cfg(test)]
pub(crate) fn example_workload() -> Workload {
    Workload {
        size: 1 << 20,
        ..default_workload()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_is_valid() {
        example_workload().validate().unwrap();
    }

    #[test]
    fn impossible_combinations_are_refused() {
        type Mutation = Box<dyn Fn(&mut Workload)>;
        let cases: Vec<(Mutation, &str)> = vec![
            (Box::new(|w| w.bs = 2 << 20), "larger than --size"),
            (Box::new(|w| w.bs = 3000), "not a multiple"),
            (Box::new(|w| w.iodepth = 8), "needs --engine uring"),
            (Box::new(|w| w.jobs = 0), "--jobs 0"),
            (Box::new(|w| w.repeat = 0), "--repeat 0"),
            (
                Box::new(|w| {
                    w.engine = EngineKind::Mmap;
                    w.direct = true
                }),
                "page cache",
            ),
            (
                Box::new(|w| w.fsync_every = 4),
                "--fsync-every 4 applies to writes",
            ),
        ];
        for (mutate, expected) in cases {
            let mut workload = example_workload();
            mutate(&mut workload);
            let error = workload.validate().unwrap_err().to_string();
            assert!(
                error.contains(expected),
                "{error} should mention {expected}"
            );
        }
    }

    #[test]
    fn workload_round_trips_through_json() {
        let mut workload = example_workload();
        workload.pattern = Pattern::Stride(4);
        let json = serde_json::to_string(&workload).unwrap();
        assert!(json.contains("\"stride:4\""), "{json}");
        assert_eq!(serde_json::from_str::<Workload>(&json).unwrap(), workload);
    }

    #[test]
    fn a_trace_point_is_described_by_its_trace() {
        let mut workload = example_workload();
        workload.trace = Some("traces/hm_1.csv".parse().unwrap());
        workload.trace_speed = TraceSpeed::Times(2.0);
        workload.engine = EngineKind::Uring;
        workload.iodepth = 32;
        assert_eq!(
            workload.describe(),
            "replay traces/hm_1.csv 2x uring qd<=32"
        );
    }

    #[test]
    fn describe_names_what_differs_from_the_plain_case() {
        let mut workload = example_workload();
        workload.engine = EngineKind::Uring;
        workload.iodepth = 32;
        workload.direct = true;
        assert_eq!(workload.describe(), "read seq 4KiB uring qd32 direct");
        workload.jobs = 2;
        workload.cpus = "0-1+3".parse().ok();
        assert_eq!(
            workload.describe(),
            "read seq 4KiB uring qd32 x2 cpus=0-1+3 direct"
        );
    }
}
