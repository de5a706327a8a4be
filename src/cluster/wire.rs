//! What ranks send each other: a repetition in a serializable form, and the
//! merge of every rank's repetition into one on rank 0.
//!
//! Histograms travel in HdrHistogram's V2 encoding, so the merged latency
//! distribution is exact, not an average of percentiles. Times travel on the
//! sender's CLOCK_MONOTONIC with the moment it left the common start, and are
//! moved onto rank 0's clock only when the sender is on another host.

use crate::plan::direction::Direction;
use crate::probe::cpu::CpuUsage;
use crate::probe::sampler::Samples;
use crate::record::histogram;
use crate::run::io::kept::Latencies;
use crate::run::io::recorder::{DirectionOutcome, DirectionSample, IntervalSample, JobOutcome};
use crate::run::io::verify::Verified;
use crate::run::peers::RankOutcome;
use crate::run::site::cache::Residency;
use crate::run::{RepetitionOutcome, RepetitionStatus};
use serde::{Deserialize, Serialize};

/// How a rank's repetition ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum WireStatus {
    /// Every I/O completed.
    Ok,
    /// An I/O or the set-up failed, with the message.
    Failed(String),
    /// A signal cut it short.
    Interrupted,
}

impl WireStatus {
    /// The wire form of a runner status.
    pub fn of(status: &RepetitionStatus) -> WireStatus {
        match status {
            RepetitionStatus::Ok => WireStatus::Ok,
            RepetitionStatus::Failed(message) => WireStatus::Failed(message.clone()),
            RepetitionStatus::Interrupted => WireStatus::Interrupted,
        }
    }

    /// The runner status of this wire form.
    pub fn status(&self) -> RepetitionStatus {
        match self {
            WireStatus::Ok => RepetitionStatus::Ok,
            WireStatus::Failed(message) => RepetitionStatus::Failed(message.clone()),
            WireStatus::Interrupted => RepetitionStatus::Interrupted,
        }
    }
}

/// One interval of a job's time series: bytes, I/Os, latency (value,
/// count) pairs, and a mixed job's part of each direction, in the order of
/// the job's `directions`.
pub type WireInterval = (u64, u64, Vec<(u64, u64)>, Vec<DirectionSample>);

/// One job of one rank.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireJob {
    /// Bytes completed in the timed region.
    pub bytes: u64,
    /// I/Os completed.
    pub ops: u64,
    /// Start of the timed region, sender's clock, ns.
    pub start: u64,
    /// End of the timed region, sender's clock, ns.
    pub end: u64,
    /// Latency histogram, V2 base64.
    pub latency: String,
    /// A queued engine's submission histograms per direction, V2 base64.
    #[serde(default)]
    pub submit: Option<Vec<(Direction, String)>>,
    /// A queued engine's, per direction: from the submitting call's return
    /// to completion, V2 base64.
    #[serde(default)]
    pub completion: Option<Vec<(Direction, String)>>,
    /// A queued engine's depths, in fio's bins.
    #[serde(default)]
    pub queue_depths: Option<crate::record::QueueDepths>,
    /// A paced job's latency from intended issue, V2 base64.
    #[serde(default)]
    pub from_intended: Option<String>,
    /// Per interval: bytes, I/Os, latency (value, count) pairs, each
    /// direction's part.
    pub intervals: Vec<WireInterval>,
    /// The intervals' length, ns (coarsened on long runs).
    pub interval_ns: u64,
    /// CPU of the job's thread.
    pub cpu: CpuUsage,
    /// Whether a signal ended it.
    pub interrupted: bool,
    /// When it took both directions: each one's bytes, I/Os and latency
    /// histogram (V2 base64).
    #[serde(default)]
    pub directions: Vec<(Direction, u64, u64, String)>,
    /// For patterns that may leave blocks untouched: blocks touched, blocks.
    #[serde(default)]
    pub coverage: Option<(u64, u64)>,
    /// With `--zbd`: the zones the job reset in the timed region.
    #[serde(default)]
    pub zone_resets: Option<u64>,
    /// A metadata workload's job: items and system calls.
    #[serde(default)]
    pub tree: Option<crate::run::io::calls::TreeJob>,
    /// With a latency target: the depth its search ended at, and whether it held there.
    #[serde(default)]
    pub latency_depth: Option<(u32, bool)>,
    /// With command priorities: per direction and priority value its
    /// shares carry, the latencies of the I/Os that carried it (V2 base64).
    #[serde(default)]
    pub prioritized: Option<Vec<(Direction, u16, String)>>,
}

/// One rank's repetition.
#[derive(Debug, Serialize, Deserialize)]
pub struct WireRepetition {
    pub rank: u32,
    /// How it ended there.
    pub status: WireStatus,
    /// When the sender left the common start, its clock, ns.
    pub released_at: u64,
    pub jobs: Vec<WireJob>,
    /// Page-cache residency of its files before the timed region.
    pub residency: Option<Residency>,
    /// Its host's counters (from the lowest rank on the host only).
    pub samples: Option<Samples>,
    /// `--verify` passes.
    pub verified: Vec<Verified>,
}

impl WireRepetition {
    /// The wire form of a local repetition.
    pub fn of(rank: u32, released_at: u64, outcome: &RepetitionOutcome) -> WireRepetition {
        WireRepetition {
            rank,
            status: WireStatus::of(&outcome.status),
            released_at,
            jobs: outcome
                .jobs
                .iter()
                .map(|job| WireJob {
                    bytes: job.bytes,
                    ops: job.ops,
                    start: job.start,
                    end: job.end,
                    // A job's buckets count at most its I/Os, far below 2^63.
                    latency: histogram::encode(&job.latency.histogram()).unwrap_or_default(),
                    submit: job
                        .submit
                        .as_ref()
                        .map(|directions| per_direction(directions)),
                    queue_depths: job.queue_depths,
                    completion: job
                        .completion
                        .as_ref()
                        .map(|directions| per_direction(directions)),
                    from_intended: job
                        .from_intended
                        .as_ref()
                        .map(|h| histogram::encode(&h.histogram()).unwrap_or_default()),
                    intervals: job
                        .intervals
                        .iter()
                        .map(|i| {
                            let directions = i.directions.clone();
                            (i.bytes, i.ops, i.latency_counts.clone(), directions)
                        })
                        .collect(),
                    interval_ns: job.interval_ns,
                    cpu: job.cpu,
                    interrupted: job.interrupted,
                    directions: job
                        .directions
                        .iter()
                        .map(|d| {
                            let latency =
                                histogram::encode(&d.latency.histogram()).unwrap_or_default();
                            (d.direction, d.bytes, d.ops, latency)
                        })
                        .collect(),
                    coverage: job.coverage.map(|c| (c.touched, c.blocks)),
                    zone_resets: job.zone_resets,
                    tree: job.tree.clone(),
                    latency_depth: job.latency_depth,
                    prioritized: job.prioritized.as_ref().map(|shares| {
                        shares
                            .iter()
                            .map(|(direction, value, latency)| {
                                let text = histogram::encode(&latency.histogram());
                                (*direction, *value, text.unwrap_or_default())
                            })
                            .collect()
                    }),
                })
                .collect(),
            residency: outcome.residency,
            samples: outcome.samples.clone(),
            verified: outcome.verified.clone(),
        }
    }
}

/// A host of the run: its name and boot id (one clock), and its ranks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostIdentity {
    /// Host name (uname nodename).
    pub name: String,
    /// /proc/sys/kernel/random/boot_id: two ranks with the same one share
    /// their kernel's CLOCK_MONOTONIC, even in different network namespaces…
    pub boot_id: String,
    /// …but not necessarily their own: in a time namespace a process's
    /// CLOCK_MONOTONIC reads this many ns ahead of the kernel's
    /// (/proc/self/timens_offsets; 0 outside one).
    #[serde(default)]
    pub monotonic_offset_ns: i64,
}

/// Merges every rank's repetition (in rank order; `reports[0]` is rank 0's)
/// into one: all jobs on rank 0's clock, the status of the lowest rank that
/// failed (named with its host), summed residency, rank 0's host counters as
/// the repetition's own, and each rank's part.
pub fn merge(
    local: RepetitionOutcome,
    reports: Vec<WireRepetition>,
    hosts: &[HostIdentity],
) -> Result<RepetitionOutcome, String> {
    let root_release = reports.first().map_or(0, |r| r.released_at);
    let mut merged = RepetitionOutcome {
        jobs: Vec::new(),
        residency: None,
        samples: local.samples,
        verified: Vec::new(),
        ranks: Vec::new(),
        status: RepetitionStatus::Ok,
        ..local
    };
    let mut failed: Option<String> = None;
    let mut interrupted = false;
    for report in reports {
        let rank = report.rank as usize;
        let host = hosts
            .get(rank)
            .ok_or_else(|| format!("a report from rank {rank}, which is not in the run"))?;
        // Same boot, one kernel clock: the times move by the difference of
        // the two time namespaces' offsets (none outside them).
        let shift = if host.boot_id == hosts[0].boot_id {
            i128::from(hosts[0].monotonic_offset_ns) - i128::from(host.monotonic_offset_ns)
        } else {
            i128::from(root_release) - i128::from(report.released_at)
        };
        let moved = |t: u64| (i128::from(t) + shift).clamp(0, i128::from(u64::MAX)) as u64;
        let first = merged.jobs.len();
        for job in report.jobs {
            merged.jobs.push(JobOutcome {
                // Another rank's I/Os, and its checks during writes, stay on its host.
                ios: None,
                backlog_checked: 0,
                bytes: job.bytes,
                ops: job.ops,
                start: moved(job.start),
                end: moved(job.end),
                latency: Latencies::new(histogram::decode(&job.latency)?),
                submit: job.submit.map(from_per_direction).transpose()?,
                queue_depths: job.queue_depths,
                completion: job.completion.map(from_per_direction).transpose()?,
                from_intended: job
                    .from_intended
                    .as_deref()
                    .map(|h| histogram::decode(h).map(Latencies::new))
                    .transpose()?,
                intervals: job
                    .intervals
                    .into_iter()
                    .map(|(bytes, ops, latency_counts, directions)| IntervalSample {
                        // Network targets are not distributed.
                        tcp: None,
                        directions,
                        bytes,
                        ops,
                        latency_counts,
                    })
                    .collect(),
                interval_ns: job.interval_ns,
                cpu: job.cpu,
                failure: None,
                interrupted: job.interrupted,
                directions: job
                    .directions
                    .into_iter()
                    .map(|(direction, bytes, ops, latency)| {
                        Ok(DirectionOutcome {
                            direction,
                            bytes,
                            ops,
                            latency: Latencies::new(histogram::decode(&latency)?),
                        })
                    })
                    .collect::<Result<_, String>>()?,
                // Network targets are refused with --mpi.
                network: None,
                zone_resets: job.zone_resets,
                coverage: job.coverage.map(|(touched, blocks)| {
                    crate::run::io::coverage::BlockCoverage {
                        touched: touched.min(blocks),
                        blocks,
                    }
                }),
                // Each rank checks its own blocks before the merge.
                written: None,
                tree: job.tree,
                latency_depth: job.latency_depth,
                prioritized: job
                    .prioritized
                    .map(|shares| {
                        shares
                            .into_iter()
                            .map(|(direction, value, latency)| {
                                let latency = Latencies::new(histogram::decode(&latency)?);
                                Ok((direction, value, latency))
                            })
                            .collect::<Result<Vec<_>, String>>()
                    })
                    .transpose()?,
                // A trace is replayed on one host, refused with --mpi.
                replay: None,
            });
        }
        let error = match &report.status {
            WireStatus::Failed(message) => Some(message.clone()),
            _ => None,
        };
        if let (None, Some(message)) = (&failed, &error) {
            failed = Some(format!("rank {rank} on {}: {message}", host.name));
        }
        interrupted |= report.status == WireStatus::Interrupted;
        merged.residency = match (merged.residency, report.residency) {
            (Some(sum), Some(more)) => Some(sum + more),
            (sum, more) => sum.or(more),
        };
        merged.verified.extend(report.verified);
        merged.ranks.push(RankOutcome {
            rank: report.rank,
            host: host.name.clone(),
            jobs: (first..merged.jobs.len()).collect(),
            error,
            interrupted: report.status == WireStatus::Interrupted,
            samples: report.samples,
        });
    }
    merged.status = match (failed, interrupted) {
        (Some(message), _) => RepetitionStatus::Failed(message),
        (None, true) => RepetitionStatus::Interrupted,
        (None, false) => RepetitionStatus::Ok,
    };
    Ok(merged)
}

/// Histograms per direction as the wire carries them (V2 base64).
fn per_direction(directions: &[(Direction, Latencies)]) -> Vec<(Direction, String)> {
    directions
        .iter()
        .map(|(direction, latency)| {
            let text = histogram::encode(&latency.histogram());
            (*direction, text.unwrap_or_default())
        })
        .collect()
}

/// [`per_direction`]'s histograms back.
fn from_per_direction(
    directions: Vec<(Direction, String)>,
) -> Result<Vec<(Direction, Latencies)>, String> {
    directions
        .into_iter()
        .map(|(direction, latency)| Ok((direction, Latencies::new(histogram::decode(&latency)?))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::histogram::new_histogram;

    fn job(start: u64, end: u64, bytes: u64, latencies: &[u64]) -> JobOutcome {
        let mut latency = new_histogram();
        for &value in latencies {
            latency.record(value).unwrap();
        }
        JobOutcome {
            ios: None,
            backlog_checked: 0,
            bytes,
            ops: latencies.len() as u64,
            start,
            end,
            latency: Latencies::new(latency),
            submit: None,
            completion: None,
            queue_depths: None,
            from_intended: None,
            intervals: vec![IntervalSample {
                bytes,
                ops: latencies.len() as u64,
                latency_counts: Vec::new(),
                tcp: None,
                directions: Vec::new(),
            }],
            interval_ns: 1_000_000_000,
            cpu: CpuUsage::default(),
            failure: None,
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

    fn repetition(jobs: Vec<JobOutcome>, status: RepetitionStatus) -> RepetitionOutcome {
        RepetitionOutcome {
            jobs,
            status,
            ..RepetitionOutcome::failed_early(0, false, String::new())
        }
    }

    fn host(name: &str, boot: &str) -> HostIdentity {
        HostIdentity {
            name: name.to_string(),
            boot_id: boot.to_string(),
            monotonic_offset_ns: 0,
        }
    }

    #[test]
    fn a_rank_in_a_time_namespace_a_day_ahead_lands_on_rank_0s_clock() {
        const DAY_NS: u64 = 86_400_000_000_000;
        let r0 = repetition(vec![job(1_000, 2_000, 100, &[10])], RepetitionStatus::Ok);
        // Same kernel, same release; its clock reads a day ahead.
        let r1 = repetition(
            vec![job(DAY_NS + 1_050, DAY_NS + 2_050, 100, &[10])],
            RepetitionStatus::Ok,
        );
        let reports = vec![
            WireRepetition::of(0, 900, &r0),
            WireRepetition::of(1, DAY_NS + 900, &r1),
        ];
        let ahead = HostIdentity {
            monotonic_offset_ns: DAY_NS as i64,
            ..host("h2", "boot-a")
        };
        let merged = merge(r0, reports, &[host("h1", "boot-a"), ahead]).unwrap();
        assert_eq!((merged.jobs[1].start, merged.jobs[1].end), (1_050, 2_050));
    }

    #[test]
    fn jobs_of_all_ranks_merge_with_exact_histograms_and_moved_clocks() {
        let r0 = repetition(
            vec![job(1_000, 2_000, 100, &[10, 20])],
            RepetitionStatus::Ok,
        );
        // Rank 1's job mixed directions: its shares travel with it.
        let mut mixed = job(50_000, 52_000, 300, &[30]);
        let mut write_latency = new_histogram();
        write_latency.record(30).unwrap();
        mixed.directions = vec![
            DirectionOutcome {
                direction: Direction::Read,
                bytes: 0,
                ops: 0,
                latency: Latencies::new(new_histogram()),
            },
            DirectionOutcome {
                direction: Direction::Write,
                bytes: 300,
                ops: 1,
                latency: Latencies::new(write_latency),
            },
        ];
        let r1 = repetition(vec![mixed], RepetitionStatus::Ok);
        let r2 = repetition(vec![job(1_100, 2_500, 200, &[40])], RepetitionStatus::Ok);
        let reports = vec![
            WireRepetition::of(0, 900, &r0),
            // Another host: its release at 49 900 is rank 0's 900.
            WireRepetition::of(1, 49_900, &r1),
            // Same host as rank 0: its clock is rank 0's.
            WireRepetition::of(2, 905, &r2),
        ];
        let hosts = [
            host("a", "boot-a"),
            host("b", "boot-b"),
            host("a", "boot-a"),
        ];
        let merged = merge(r0, reports, &hosts).unwrap();
        assert!(matches!(merged.status, RepetitionStatus::Ok));
        let bytes: u64 = merged.jobs.iter().map(|j| j.bytes).sum();
        assert_eq!(bytes, 600);
        assert_eq!((merged.jobs[1].start, merged.jobs[1].end), (1_000, 3_000));
        assert_eq!((merged.jobs[2].start, merged.jobs[2].end), (1_100, 2_500));
        let count: u64 = merged.jobs.iter().map(|j| j.latency.len()).sum();
        assert_eq!(count, 4);
        assert_eq!(merged.jobs[0].latency.histogram().max(), 20);
        let shares = &merged.jobs[1].directions;
        assert_eq!(shares.len(), 2);
        assert_eq!(
            (shares[1].direction, shares[1].bytes, shares[1].ops),
            (Direction::Write, 300, 1)
        );
        assert_eq!(shares[1].latency.histogram().max(), 30);
        assert!(merged.jobs[0].directions.is_empty());
        assert_eq!(merged.ranks.len(), 3);
        assert_eq!(merged.ranks[1].host, "b");
        assert_eq!(merged.ranks[2].jobs, [2]);
    }

    #[test]
    fn the_lowest_failing_rank_is_named_with_its_host() {
        let ok = repetition(vec![job(0, 10, 1, &[1])], RepetitionStatus::Ok);
        let failed = |m: &str| repetition(Vec::new(), RepetitionStatus::Failed(m.to_string()));
        let reports = vec![
            WireRepetition::of(0, 0, &ok),
            WireRepetition::of(1, 0, &failed("write failed: EFBIG")),
            WireRepetition::of(2, 0, &failed("later")),
        ];
        let hosts = [host("a", "x"), host("b", "y"), host("c", "z")];
        let merged = merge(ok, reports, &hosts).unwrap();
        match merged.status {
            RepetitionStatus::Failed(message) => {
                assert_eq!(message, "rank 1 on b: write failed: EFBIG")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(merged.ranks[2].error.as_deref(), Some("later"));
    }

    #[test]
    fn a_report_from_an_unknown_rank_is_refused() {
        let ok = repetition(Vec::new(), RepetitionStatus::Ok);
        let mut report = WireRepetition::of(0, 0, &ok);
        report.rank = 7;
        assert!(merge(ok, vec![report], &[host("a", "x")]).is_err());
    }
}
