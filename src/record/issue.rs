//! How a repetition's I/Os were issued, beside what they measured: the queue's depths, the I/O priorities they went at, the pace a rate kept.

use super::LatencySummary;
use serde::{Deserialize, Serialize};

/// How deep a queued engine's queue was, in fio's bins (its `IO depths`,
/// `submit` and `complete` lines): counts, all jobs' added up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueDepths {
    /// I/Os by the depth in flight when they were submitted (themselves
    /// and the batch they went with included): 1, 2–3, 4–7, 8–15, 16–31,
    /// 32–63, 64 and more.
    pub at_submission: [u64; 7],
    /// Submitting calls by the I/Os each took: 0, 1–4, 5–8, 9–16, 17–32,
    /// 33–64, more.
    pub per_submit_call: [u64; 7],
    /// Reaping passes by the completions each found, in the same bins.
    pub per_reap: [u64; 7],
}

impl QueueDepths {
    /// The sum of both.
    pub fn add(&mut self, other: &QueueDepths) {
        for (mine, theirs) in [
            (&mut self.at_submission, &other.at_submission),
            (&mut self.per_submit_call, &other.per_submit_call),
            (&mut self.per_reap, &other.per_reap),
        ] {
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a = a.saturating_add(*b);
            }
        }
    }
}

/// The latencies of one direction's I/Os that went at one I/O priority.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriorityLatency {
    /// Which direction.
    pub direction: crate::plan::direction::Direction,
    /// The priority they went at (`rt/0`, `be/4`, `idle`); absent: the
    /// thread's own, as iolab was started.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub priority: Option<String>,
    /// Whether each request carried it (the command share) rather than
    /// taking its thread's.
    pub per_command: bool,
    /// Their latencies, ns, measured as the repetition's (`latency_ns`).
    pub latency_ns: LatencySummary,
}

/// How a paced repetition kept its rate.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pacing {
    /// I/Os per second asked of all jobs together (per job × jobs).
    pub target_iops: f64,
    /// The repetition's IOPS over `target_iops`: 1 when the rate was kept.
    pub achieved_fraction: f64,
    /// Each I/O's latency from the time the rate meant it to be issued, ns:
    /// coordinated omission corrected, so time spent behind schedule counts
    /// (`latency_ns` is from the actual issue).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub latency_from_intended_ns: Option<LatencySummary>,
    /// With a rate per direction, how each direction kept its own.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub directions: Vec<DirectionPacing>,
}

impl Pacing {
    /// The least share of an asked rate that was kept: the job's, or its
    /// worst direction's when each direction had a rate of its own.
    pub fn kept_fraction(&self) -> f64 {
        self.directions
            .iter()
            .map(|d| d.achieved_fraction)
            .fold(self.achieved_fraction, f64::min)
    }

    /// The rate asked, for people: `1000`, or `700 read + 300 write`.
    pub fn asked(&self) -> String {
        if self.directions.is_empty() {
            return format!("{:.0}", self.target_iops);
        }
        let parts: Vec<String> = self
            .directions
            .iter()
            .map(|d| format!("{:.0} {}", d.target_iops, d.direction.name()))
            .collect();
        parts.join(" + ")
    }
}

/// How one direction kept its rate, when each direction had one.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionPacing {
    /// Which direction.
    pub direction: crate::plan::direction::Direction,
    /// I/Os per second asked of this direction, all jobs together.
    pub target_iops: f64,
    /// This direction's IOPS over `target_iops`: 1 when its rate was kept.
    pub achieved_fraction: f64,
}
