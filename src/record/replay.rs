//! A trace's replay as results record it (`iolab.replay/1`'s `fidelity`, a trace point's repetitions): issue lag, depth, reordering, counts against the trace's, and who fell behind.

use serde::{Deserialize, Serialize};

/// Issue lag: how late each I/O was issued after its intended time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LagFigures {
    pub p50_ns: Option<u64>,
    pub p99_ns: Option<u64>,
    pub max_ns: Option<u64>,
    /// The least-squares slope of lag against the trace's time, µs per s:
    /// a replay that drifts grows it. `None` as fast as possible or over
    /// less than a second of intended time.
    pub drift_us_per_s: Option<f64>,
}

/// One kind's count in the trace and in the replay.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KindCount {
    /// read, write, flush or trim.
    pub kind: String,
    pub trace_ios: u64,
    pub replay_ios: u64,
    pub trace_bytes: u64,
    pub replay_bytes: u64,
}

/// One interval: the trace's I/Os and bytes by intended time, the replay's
/// by actual issue time.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Interval {
    pub trace_ios: u64,
    pub trace_bytes: u64,
    pub replay_ios: u64,
    pub replay_bytes: u64,
}

/// Who fell behind, if anyone.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    pub kept_up: bool,
    /// `storage` or `replayer` when it did not keep up.
    pub behind: Option<String>,
    pub why: String,
}

/// The fidelity of one replay.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Fidelity {
    /// I/Os completed.
    pub ios: u64,
    /// From the first issue to the last completion, ns.
    pub elapsed_ns: u64,
    /// The trace's duration at the replay's speed, ns (`None` as fast as possible).
    pub intended_ns: Option<u64>,
    pub lag: LagFigures,
    pub latency_p50_ns: Option<u64>,
    pub latency_p99_ns: Option<u64>,
    /// In flight as the trace recorded it (time-weighted), when it did.
    pub recorded_depth: Option<f64>,
    /// In flight in the replay, time-weighted.
    pub achieved_depth: Option<f64>,
    pub depth_cap: u64,
    /// The share of the replay's time with the cap reached.
    pub at_cap_fraction: f64,
    /// Completions after a later I/O of the trace had completed (RFC 4737
    /// Type-P-Reordered over the completion order), percent. Issues are in
    /// the trace's order by construction: one thread issues them in turn.
    pub completions_reordered_pct: f64,
    pub counts: Vec<KindCount>,
    pub interval_ns: u64,
    /// The interval whose I/O count differs most from the trace's (among
    /// those with 10 I/Os or more): its index and the difference, percent.
    pub worst_interval: Option<(u64, f64)>,
    pub intervals: Vec<Interval>,
    pub verdict: Verdict,
}
