//! The record of a distributed run (`--mpi`): its ranks and hosts, and per
//! repetition each rank's and each host's share, the spread between the
//! slowest and the fastest rank, and the IOR-style stonewall figures.

use super::Status;
use super::activity::Activity;
use super::environment::Environment;
use serde::{Deserialize, Serialize};

/// How a distributed run was made.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Distributed {
    /// The MPI launcher found from its environment variables.
    pub launcher: String,
    /// Number of ranks (processes).
    pub ranks: u32,
    /// The distinct hosts, in the order of their first rank.
    pub hosts: Vec<DistributedHost>,
    /// `--shared-file`: one file, each job of each rank in its own region.
    pub shared_file: bool,
    /// `--reorder`: reads went to the files of the rank this many ranks on
    /// (0: every rank read its own).
    pub reorder_shift: u32,
    /// `--stonewall`: the stonewall figures are shown with the results (they
    /// are recorded for every distributed repetition).
    pub stonewall: bool,
}

/// One host of a distributed run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DistributedHost {
    /// Host name.
    pub name: String,
    pub ranks: Vec<u32>,
    /// Its machine and the storage under the scratch directory, from its lowest rank.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub environment: Option<Environment>,
    /// In a time namespace: how far its CLOCK_MONOTONIC reads ahead of its
    /// kernel's, ns; its times were moved by it onto rank 0's clock.
    #[serde(skip_serializing_if = "is_zero", default)]
    pub monotonic_offset_ns: i64,
    /// On another boot than rank 0's (another machine, a guest): its
    /// clock measured against rank 0's at the start.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub clock: Option<ClockComparison>,
}

/// A host's CLOCK_MONOTONIC against rank 0's, measured over barrier exits:
/// after each barrier every rank reads its clock at once, and the
/// differences of the readings are its offset. A barrier releases its ranks
/// within the network's latency of each other, which the spread shows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockComparison {
    /// Its clock minus rank 0's, ns: the median over the rounds.
    pub offset_ns: i64,
    /// The largest minus the smallest difference over the rounds, ns: how
    /// far apart the barrier released the two ranks, at most.
    pub spread_ns: u64,
    /// Barrier exits compared.
    pub rounds: u32,
}

fn is_zero(offset: &i64) -> bool {
    *offset == 0
}

/// One rank's share of a repetition.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RankShare {
    pub rank: u32,
    pub host: String,
    /// Its jobs' positions in the repetition's `jobs`.
    pub jobs: Vec<u32>,
    /// Bytes its jobs completed.
    pub bytes: u64,
    /// I/Os its jobs completed.
    pub ops: u64,
    /// When its first job started, ns after the repetition's common start.
    pub start_ns: u64,
    /// From its first job's start to its last job's end, ns.
    pub elapsed_ns: u64,
    /// Its bytes over its own elapsed time, bytes/s.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub throughput_bps: Option<f64>,
    /// How its part ended.
    pub status: Status,
    /// Its own error, when it failed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub error: Option<String>,
}

/// One host's share of a repetition.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HostShare {
    /// Host name.
    pub host: String,
    pub ranks: Vec<u32>,
    /// Bytes its ranks completed.
    pub bytes: u64,
    /// Its bytes over its own ranks' span (the first one's start to the
    /// last one's end), bytes/s: the host's own rate.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub throughput_bps: Option<f64>,
    /// What its devices, network and CPUs did, sampled once per host.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub activity: Option<Activity>,
}

/// The slowest and the fastest rank of a repetition, by their own throughput.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RankSpread {
    pub slowest_rank: u32,
    /// Its throughput, bytes/s.
    pub slowest_bps: f64,
    pub fastest_rank: u32,
    /// Its throughput, bytes/s.
    pub fastest_bps: f64,
    /// Fastest over slowest (1 when they are even).
    pub ratio: f64,
}

/// IOR-style stonewall figures: the work of every rank up to the moment the
/// first rank finished, so that stragglers do not stretch the wall time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stonewall {
    /// The rank that finished first.
    pub first_rank: u32,
    /// From the common start to its end, ns (at most the wall time).
    pub elapsed_ns: u64,
    /// Bytes every rank had completed by then. Each job's bytes are counted
    /// from its time series: whole intervals, and the interval in progress
    /// in proportion to the part of it that had passed.
    pub bytes: u64,
    /// `bytes` over `elapsed_ns`, bytes/s.
    pub throughput_bps: f64,
    /// The time-series interval, ns: `bytes` is exact to within one
    /// interval's bytes per job (lower `--interval` for a finer figure).
    pub resolution_ns: u64,
}
