//! The result file `iolab.result/1`: these serde structs are the file format.
//!
//! Every field is documented here and in docs/result-schema.md; the JSON
//! Schema in schema/iolab.result-1.schema.json is checked against real output
//! by the tests. Units inside the file are bytes, bytes/s, ns and s only.

pub mod activity;
mod client;
pub mod distributed;
pub mod environment;
mod findings;
pub mod guest;
pub mod histogram;
#[cfg(test)]
pub(crate) mod hostile;
pub mod ios;
mod issue;
pub mod journal;
pub mod measurement;
pub mod replay;
pub mod series;
pub mod tree;
pub mod write;

pub use client::{ClientNetwork, PduCount, RequestCount, TcpCounts};
pub use findings::{Check, DirectionSummary, Severity, Stat, Summary};

use crate::plan::{CacheMode, Workload};
use activity::{Activity, DeviceActivity};
use environment::Environment;
pub use issue::{DirectionPacing, Pacing, PriorityLatency, QueueDepths};
use measurement::Measurement;
use serde::{Deserialize, Serialize};

/// The schema identifier written in every result file.
pub const SCHEMA: &str = "iolab.result/1";

/// A whole result file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultFile {
    /// Always `iolab.result/1`.
    pub schema: String,
    /// The program that wrote the file.
    pub tool: Tool,
    /// When the file was written, RFC 3339 in UTC.
    pub created: String,
    /// The machine and storage the points were measured on.
    pub environment: Environment,
    /// The command line that produced the file, program name first.
    pub command: Vec<String>,
    /// The measured points, in the order they ran.
    pub points: Vec<Point>,
    /// Commands measured with `iolab measure`, in the order they ran.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub measurements: Vec<Measurement>,
    /// For a sweep or study: the plan the points come from.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub plan: Option<PlanInfo>,
    /// For a sweep over sizes: where the results stop changing with the size.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub convergence: Vec<ConvergenceRecord>,
    /// For a sweep with `--knee`: IOPS against the target's latency
    /// percentile per point, and the knee chosen.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub knee: Option<KneeRecord>,
    /// For a file made by `iolab import`: the other tool's output it came from.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub source: Option<Source>,
    /// For a distributed run (`--mpi`): its ranks, hosts and options.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub distributed: Option<distributed::Distributed>,
    /// When points ran in a guest (`machine` = `guest`): the guest.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub guest: Option<guest::GuestRecord>,
    /// When points ran in several guest configurations: each, in
    /// `guest_config`'s order (the first is `guest_config` 1), in place of `guest`.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub guests: Vec<guest::GuestRecord>,
    /// What iolab said about its plan as it read it: a fio option read
    /// another way or left out, a default that differs from fio's. Shown in
    /// the report; on stderr only with `--verbose`.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
}

/// The output an imported result file was converted from.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// `fio`.
    pub tool: String,
    /// Its version string (`fio-3.33`).
    pub version: String,
    pub file: String,
    /// Jobs or directions left out, with the reason.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub skipped: Vec<String>,
}

/// The plan of a sweep or study.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanInfo {
    /// `sweep` or `study`.
    pub kind: String,
    /// The study's name.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub name: Option<String>,
    /// The study's description.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub description: Option<String>,
    /// The table of the study's publication, printed for the result in
    /// the same shape: `dd-blocksize`, `dd-datasize`, `atop-layers`,
    /// `table4`, `iozone-report` or `direct-vs-normal`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub table: Option<crate::plan::study::StudyTable>,
    /// Fingerprint (FNV-1a 64) of every planned point's label and workload and
    /// the directory: a resume must match it.
    pub hash: String,
    /// Points in the plan; fewer in `points` means the run is unfinished.
    pub points: u32,
}

/// A knee search's outcome: the curve of IOPS against a latency
/// percentile over a sweep's points, and the point with the most IOPS
/// within the target.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KneeRecord {
    /// The target, as given: `p99<=2ms`.
    pub target: crate::plan::knee::KneeTarget,
    /// Every point with a summary, in the sweep's order.
    pub curve: Vec<KneeStep>,
    /// The chosen point's label; absent when every point is over the target.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub chosen: Option<String>,
    /// The points the search did not run because it was past its knee (two
    /// points in a row over the target along a rising load), by label.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub not_run: Vec<String>,
}

/// One point of a knee curve.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KneeStep {
    /// The point's label.
    pub label: String,
    /// Its mean IOPS over the measured repetitions.
    pub iops: f64,
    /// The target's percentile of its latency (all measured repetitions
    /// merged), ns: from each I/O's intended issue time when the point was
    /// paced (`from_intended`), else from its issue.
    pub latency_ns: u64,
    /// Whether `latency_ns` is from intended issue (coordinated omission
    /// corrected): a paced point, whose backlog the latency then includes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_intended: bool,
}

/// Where one series of a size sweep converges (see `stats::convergence`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConvergenceRecord {
    /// The series: the points' common label with the file size left out.
    pub series: String,
    /// Sizes in the series, bytes, smallest first.
    pub sizes: Vec<u64>,
    /// Mean throughput of the largest sizes, bytes/s.
    pub reference_bps: f64,
    /// Tolerance around the reference, as a fraction (0.05 = ±5%).
    pub tolerance: f64,
    /// Largest coefficient of variation a stable size may have.
    pub max_cv: f64,
    /// The smallest size from which every size is stable; absent when none is.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stable_from_bytes: Option<u64>,
}

/// The program that wrote a result file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// `iolab`.
    pub name: String,
    pub version: String,
    /// The git commit it was built from, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub git_commit: Option<String>,
    /// How it was built: profile, target and compiler (`release x86_64-unknown-linux-gnu rustc 1.95.0`).
    pub build: String,
}

/// One measured point: a workload and its repetitions.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// A label naming the point in tables and charts.
    pub label: String,
    /// Every parameter of the workload, defaults applied.
    pub workload: Workload,
    /// Where the point ran.
    pub target: Target,
    /// Every repetition run, warm-ups included, in order.
    pub repetitions: Vec<Repetition>,
    /// Figures over the measured (non-warm-up) repetitions that completed;
    /// absent when none did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub summary: Option<Summary>,
    /// Plausibility findings about this point.
    pub checks: Vec<Check>,
    /// A point of job groups (several workloads at once): each group's
    /// own figures, as a point whose label is the group's name, whose
    /// workload and target are the group's, and whose repetitions count
    /// its jobs alone (no device or network activity: the devices serve
    /// every group at once, and the point's own figures hold it). The
    /// point's `workload` is then its first group's, and its
    /// `repetitions` all groups' jobs combined. Absent for a point of one
    /// workload.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub groups: Vec<Point>,
}

impl Point {
    /// The repetitions that count: measured (not warm-up) and completed.
    pub fn measured(&self) -> impl Iterator<Item = &Repetition> + Clone {
        self.repetitions
            .iter()
            .filter(|r| !r.warmup && r.status == Status::Ok)
    }

    /// The share of the measured repetitions' I/Os that went in `direction`
    /// (0 to 1), from their counts; `None` when none kept direction shares.
    pub fn ops_share(&self, direction: crate::plan::direction::Direction) -> Option<f64> {
        let (mut own, mut all) = (0u64, 0u64);
        for repetition in self.measured().filter(|r| !r.directions.is_empty()) {
            all = all.saturating_add(repetition.ops);
            let shares = repetition.directions.iter();
            own = own.saturating_add(
                shares
                    .filter(|d| d.direction == direction)
                    .map(|d| d.ops)
                    .sum(),
            );
        }
        (all > 0).then(|| own as f64 / all as f64)
    }
}

/// [`Target::filesystem`] of a point on `/dev/null` or `/dev/zero`, which
/// store nothing.
pub const MEMORY_DEVICE: &str = "memory device";

/// The file system target of a point.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    pub dir: String,
    /// Its file system type, from statfs ("block device" for a device,
    /// [`MEMORY_DEVICE`] for `/dev/null` and `/dev/zero`).
    pub filesystem: String,
    /// The scratch files used (none for the null engine).
    pub files: Vec<String>,
    /// O_DIRECT alignment, when the point used O_DIRECT and the file system bypasses memory.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub direct_alignment: Option<DirectAlignment>,
    /// True when O_DIRECT was accepted but the data stays in memory (tmpfs).
    pub direct_in_memory: bool,
    /// True when the file was given with --file instead of created by iolab.
    pub file_given: bool,
    /// The flags each job's file was opened with for the timed I/O, as
    /// open(2) names them (`O_RDONLY|O_DIRECT|O_SYNC`): the access mode
    /// follows the workload (reads read-only, writes write-only, a mix read
    /// and write). Absent for engines that open no local file (null, the
    /// network clients) and in imported and older results.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub open_flags: Option<String>,
    /// A metadata workload's tree (`workload.items` given).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tree: Option<tree::TreeTarget>,
}

/// The alignment O_DIRECT required.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectAlignment {
    /// Buffer address alignment, bytes.
    pub memory_bytes: u32,
    /// Offset and length alignment, bytes.
    pub offset_bytes: u32,
    /// `statx`, `logical_block_size` or `default`.
    pub source: String,
}

/// How a repetition ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Every I/O completed in full.
    Ok,
    /// An I/O failed or was short; nothing of it is timed.
    Failed,
    /// A signal cut it short: its figures, when it reached its timed
    /// region, cover the time until the signal and count in no summary.
    Interrupted,
}

/// One repetition of a point.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repetition {
    /// 0-based position among all repetitions, warm-ups first.
    pub index: u32,
    /// Whether it was an unmeasured warm-up.
    pub warmup: bool,
    /// In a plan of rounds (`--rounds`, each guest boot one): the 0-based
    /// round it ran in. Compare pairs the configurations compared round by
    /// round and takes its interval from the rounds' figures.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub round: Option<u32>,
    /// Its place in the order the repetitions of the result file ran,
    /// from 0, over all points (a point of groups: its groups' repetitions
    /// ran together and share it); with `round` and `started_at`, the
    /// executed order (A B | B A) is in the result, not only in the plan.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub sequence: Option<u64>,
    /// When its jobs were started, UTC (RFC 3339; the machine's wall
    /// clock, which a guest sets from the host's at boot).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub started_at: Option<String>,
    /// How it ended.
    pub status: Status,
    /// The failure, naming file, offset, size and errno, when failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
    /// Bytes completed in the timed region (for a failed repetition: before the failure).
    pub bytes: u64,
    /// I/Os completed in the timed region.
    pub ops: u64,
    /// Wall time from the common start of all jobs to the last job's end, ns.
    /// Absent when it failed (failures are never timed), or when a signal
    /// cut it before its timed region; an interrupted repetition's figures
    /// are of its time until the signal and count in no summary.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub elapsed_ns: Option<u64>,
    /// bytes / elapsed, bytes/s; only when timed (see `elapsed_ns`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub throughput_bps: Option<f64>,
    /// ops / elapsed, I/Os per second; only when timed (see `elapsed_ns`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub iops: Option<f64>,
    /// Per-I/O latency, ns (queued engines — uring, libaio, posixaio, nfs, iscsi — from submission to completion); only when timed (see `elapsed_ns`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_ns: Option<LatencySummary>,
    /// Queued engines: time in the submitting system call, per I/O submitted, ns (fio's slat).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub submit_ns: Option<LatencySummary>,
    /// Queued engines: each I/O's time from the submitting call's return
    /// to its completion, ns (fio's clat; `latency_ns`, from before the
    /// call, is fio's lat); only when timed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub completion_ns: Option<LatencySummary>,
    /// Queued engines: the queue's depth at each submission and the I/Os
    /// per submitting call and per reaping pass, in fio's bins; only when timed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub queue_depths: Option<QueueDepths>,
    /// When its I/Os took both directions: each direction's share (read,
    /// then write). Absent when they all went one way: the totals are then
    /// that direction's.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub directions: Vec<DirectionShare>,
    /// A network client engine's (`nfs`) calls and its connections' TCP
    /// traffic over the timed region; absent for local engines.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client_network: Option<ClientNetwork>,
    /// Which share of the blocks the timed I/Os touched, all jobs together:
    /// for patterns that draw blocks independently (uniform, zipf, pareto,
    /// normal, zoned), which may leave some untouched; absent for the others
    /// (a pass touches every block) and for jobs over 2^28 blocks.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub coverage: Option<Coverage>,
    /// With `--zbd`, of a point that writes or trims: the zones its jobs
    /// reset in the timed region (a full zone written again, the reset
    /// policy's, a trim): fio's `zone_resets`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub zone_resets: Option<u64>,
    /// With `--rate` or `--rate-iops`: the rate asked, the share of it
    /// achieved, and latency from each I/O's intended issue time.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub pacing: Option<Pacing>,
    /// With command priorities (`--priority …,20%:rt/0`): per direction
    /// with a share, the latencies of its I/Os at each priority (fio's
    /// `prios`).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub priorities: Vec<PriorityLatency>,
    /// Page-cache state of the files just before the timed region.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cache: Option<CacheState>,
    /// CPU used by the I/O threads over the timed region; only when timed (see `elapsed_ns`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cpu: Option<Cpu>,
    /// What the stack's devices, the network, the CPUs and NFS did over the
    /// timed region (sampled beside the I/O threads); only when timed (see `elapsed_ns`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub activity: Option<Activity>,
    /// Figures per interval of the timed region (all jobs together).
    #[serde(deserialize_with = "series::bounded")]
    pub series: Vec<Interval>,
    /// The length of the series' intervals, seconds, when it differs from the
    /// workload's `interval_s`: a long run's series is kept to a bounded
    /// number of intervals by merging neighbours, which doubles the interval.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub series_interval_s: Option<f64>,
    /// Per-job figures, one per job; an imported fio entry reported with
    /// group_reporting has only its threads' totals, recorded as one.
    pub jobs: Vec<Job>,
    /// With a steady-state criterion: whether and when it was met.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub steady: Option<SteadyState>,
    /// With `--verify`: the untimed check of every block after the timed region.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub verify: Option<Verification>,
    /// Its throughput is an outlier among the point's measured repetitions
    /// (modified z-score above 3.5, by the median absolute deviation); it is
    /// kept in every figure.
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub outlier: bool,
    /// Distributed runs: each rank's share.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub ranks: Vec<distributed::RankShare>,
    /// Distributed runs: each host's share, with its device activity.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub hosts: Vec<distributed::HostShare>,
    /// Distributed runs: the slowest and the fastest rank.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rank_spread: Option<distributed::RankSpread>,
    /// Distributed runs: the IOR-style stonewall figures.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub stonewall: Option<distributed::Stonewall>,
    /// The seed its random offsets, block sizes, directions and data were
    /// drawn from: the workload's `seed` for the first repetition and with
    /// `same_draws`, else derived from it and `index` (a SplitMix64 step), so
    /// repetitions sample different draws. Absent when it failed before its
    /// jobs started, and in imported results.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub draw_seed: Option<u64>,
    /// A metadata workload: the items worked on and the system calls made.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tree: Option<tree::TreeRepetition>,
    /// A trace point (`workload.trace`): how faithful its replay was —
    /// issue lag, depth, reordering, and its counts against the trace's
    /// (the per-interval counts are left out; the furthest is kept).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub replay: Option<replay::Fidelity>,
}

impl Repetition {
    /// The network messages and bytes of this repetition, as Radkov's
    /// Table 4 counts them: with iolab's own clients, the TCP segments both
    /// ways and the payload bytes of their connections (TCP_INFO); else the
    /// packets and bytes on every interface over its activity window.
    pub fn on_the_wire(&self) -> Option<(u64, u64)> {
        if let Some(tcp) = self.client_network.as_ref().and_then(|c| c.tcp) {
            return Some((
                tcp.segs_out + tcp.segs_in,
                tcp.bytes_acked + tcp.bytes_received,
            ));
        }
        self.activity.as_ref().map(activity::Activity::wire)
    }

    /// Repetition `index`, measured (not warm-up), that ended with `status`
    /// after moving `bytes` in `ops` I/Os, with nothing else recorded yet: no
    /// time, latency, cache state, activity, series, jobs or ranks. Callers
    /// fill in what they measured with struct update syntax.
    pub fn new(index: u32, status: Status, bytes: u64, ops: u64) -> Repetition {
        Repetition {
            index,
            warmup: false,
            round: None,
            sequence: None,
            started_at: None,
            status,
            error: None,
            bytes,
            ops,
            elapsed_ns: None,
            throughput_bps: None,
            iops: None,
            latency_ns: None,
            submit_ns: None,
            completion_ns: None,
            queue_depths: None,
            directions: Vec::new(),
            client_network: None,
            coverage: None,
            zone_resets: None,
            pacing: None,
            priorities: Vec::new(),
            cache: None,
            cpu: None,
            activity: None,
            series: Vec::new(),
            series_interval_s: None,
            jobs: Vec::new(),
            steady: None,
            verify: None,
            outlier: false,
            ranks: Vec::new(),
            hosts: Vec::new(),
            rank_spread: None,
            stonewall: None,
            draw_seed: None,
            tree: None,
            replay: None,
        }
    }
}

/// One direction's share of a repetition whose I/Os took both.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionShare {
    /// Which direction: `read` or `write`.
    pub direction: crate::plan::direction::Direction,
    /// Bytes completed in this direction in the timed region.
    pub bytes: u64,
    /// I/Os completed in this direction.
    pub ops: u64,
    /// `bytes` over the repetition's elapsed time, bytes/s; only when timed (see `elapsed_ns`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub throughput_bps: Option<f64>,
    /// `ops` over the repetition's elapsed time, I/Os per second; only when timed (see `elapsed_ns`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub iops: Option<f64>,
    /// The latency of this direction's I/Os, ns; only when timed (see `elapsed_ns`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_ns: Option<LatencySummary>,
    /// Queued engines: this direction's `completion_ns` (fio's clat).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub completion_ns: Option<LatencySummary>,
    /// Queued engines: this direction's `submit_ns` (fio's slat): the
    /// submitting calls' times, once per I/O of this direction they took.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub submit_ns: Option<LatencySummary>,
}

/// The blocks a repetition's I/Os touched: its hot set, as measured.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// Distinct blocks at least one timed I/O went to.
    pub blocks_touched: u64,
    /// Blocks in the jobs' files (or regions of a shared file).
    pub blocks: u64,
    /// `blocks_touched` / `blocks`.
    pub fraction: f64,
}

/// Page-cache residency at the start of a timed region, measured with mincore(2).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheState {
    /// The treatment applied beforehand (`cold`, `warm` or `keep`).
    pub treatment: CacheMode,
    /// Pages of the files in the page cache.
    pub resident_pages: u64,
    /// Pages the files span.
    pub total_pages: u64,
    /// resident_pages / total_pages (0 to 1).
    pub resident_fraction: f64,
}

/// CPU time and scheduling counters of the I/O threads (getrusage RUSAGE_THREAD, summed).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cpu {
    /// CPU seconds of the I/O threads, exact (CLOCK_THREAD_CPUTIME_ID).
    pub total_s: f64,
    /// User-mode seconds (getrusage; sampled at scheduler ticks).
    pub user_s: f64,
    /// Kernel-mode seconds (getrusage; sampled at scheduler ticks).
    pub system_s: f64,
    /// total_s / elapsed: 1.0 is one core fully busy.
    pub utilization: f64,
    /// Voluntary context switches.
    pub voluntary_switches: u64,
    /// Involuntary context switches.
    pub involuntary_switches: u64,
    /// Minor page faults.
    pub minor_faults: u64,
    /// Major page faults.
    pub major_faults: u64,
}

/// The check of every block of the files after a repetition (`--verify`).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Verification {
    /// Blocks checked, over all files.
    pub blocks: u64,
    /// Blocks whose header or checksum did not match.
    pub bad_blocks: u64,
    /// The first mismatches, naming offset, expected and found headers.
    pub first_mismatches: Vec<String>,
    /// Time the check took, ns; never part of any throughput.
    pub elapsed_ns: u64,
    /// With `verify_backlog`: the blocks read back and checked during the
    /// writes, inside the timed region (on this host's jobs); their reads
    /// are in no figure, their time in the writes' elapsed.
    #[serde(skip_serializing_if = "client::is_zero", default)]
    pub backlog_blocks: u64,
}

/// Whether a time-based repetition reached steady state.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SteadyState {
    /// The criterion, as given (`bw:slope<1%/10s`).
    pub criterion: String,
    /// Whether every job met it before the runtime ran out (the run then stopped).
    pub reached: bool,
    /// When, seconds after the start of the timed region.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub at_s: Option<f64>,
}

/// One interval of the time series.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interval {
    /// Interval start, seconds after the start of the timed region.
    pub start_s: f64,
    /// Bytes completed in the interval.
    pub bytes: u64,
    /// I/Os completed in the interval.
    pub ops: u64,
    /// Median latency of the interval's I/Os, ns (absent when none completed).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_p50_ns: Option<u64>,
    /// 99th percentile latency, ns.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_p99_ns: Option<u64>,
    /// Largest latency, ns.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_max_ns: Option<u64>,
    /// The stack's devices over the same interval (as sampled beside the I/O threads).
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub devices: Vec<DeviceActivity>,
    /// A network client engine's connections over the interval (TCP_INFO
    /// read by each job when its interval closed), all jobs together;
    /// absent for local engines.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub client_tcp: Option<TcpCounts>,
    /// When the I/Os took both directions (`op mix`): each direction's part
    /// of the interval, read then write.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub directions: Vec<IntervalDirection>,
}

/// One direction's part of an interval.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntervalDirection {
    /// Which direction: `read` or `write`.
    pub direction: crate::plan::direction::Direction,
    /// Bytes completed in this direction in the interval.
    pub bytes: u64,
    /// I/Os completed in this direction in the interval.
    pub ops: u64,
    /// Median latency of this direction's I/Os in the interval, ns.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_p50_ns: Option<u64>,
    /// Their 99th percentile latency, ns.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_p99_ns: Option<u64>,
    /// Their largest latency, ns.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_max_ns: Option<u64>,
}

/// One job's share of a repetition.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// Job number.
    pub job: u32,
    /// Its file, when it had one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub file: Option<String>,
    /// Bytes it completed.
    pub bytes: u64,
    /// I/Os it completed.
    pub ops: u64,
    /// Its own timed region, ns.
    pub elapsed_ns: u64,
    /// With a latency target: the queue depth its search ended at (fio's
    /// `latency_depth`), the depth its figures were measured at.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_depth: Option<u32>,
    /// With a latency target: whether the depth held and its figures are
    /// one window at that depth alone; false when the job ended first, or
    /// kept adjusting (`run`), and its figures span the depths it tried.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_settled: Option<bool>,
    /// With `--log-ios`: each of its timed I/Os, in memory only (written
    /// beside the result, never in it).
    #[serde(skip)]
    pub ios: Option<std::sync::Arc<ios::KeptIos>>,
}

/// A latency distribution: summary figures and the exact histogram.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LatencySummary {
    /// Number of values.
    pub count: u64,
    /// Smallest value, ns.
    pub min: u64,
    /// Largest value, ns.
    pub max: u64,
    /// Mean, ns.
    pub mean: f64,
    /// Standard deviation, ns.
    pub stdev: f64,
    /// Percentiles 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9 and 99.99.
    pub percentiles: Vec<Percentile>,
    /// The HdrHistogram (1 ns to 1 h, 3 significant digits), V2 deflate, base64.
    pub histogram: String,
}

impl LatencySummary {
    /// The value of percentile `p` (one of those recorded), ns.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        self.percentiles
            .iter()
            .find(|q| q.percentile == p)
            .map(|q| q.value)
    }
}

/// One percentile of a latency distribution.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Percentile {
    /// The percentile, 0 to 100.
    pub percentile: f64,
    /// Its value, ns.
    pub value: u64,
}
