//! Computing each rank's share of a distributed repetition, and the stonewall, from the ranks' job outcomes.

use crate::gather::activity;
use crate::record::Status;
use crate::record::activity::AppWork;
use crate::record::distributed::*;
use crate::run::io::recorder::JobOutcome;
use crate::run::{PointOutcome, RepetitionOutcome};

/// The distributed parts of one merged repetition, whose jobs started at
/// `start` and took `elapsed_ns` in all.
pub struct Shares {
    /// Per rank.
    pub ranks: Vec<RankShare>,
    /// Per host.
    pub hosts: Vec<HostShare>,
    /// Slowest and fastest rank, when every rank measured.
    pub spread: Option<RankSpread>,
    /// The stonewall figures, when every rank measured.
    pub stonewall: Option<Stonewall>,
}

/// Each rank's and host's share of `outcome` (rank 0's merge of all ranks).
pub fn shares(point: &PointOutcome, outcome: &RepetitionOutcome, start: u64) -> Shares {
    let jobs = &outcome.jobs;
    let ok = outcome.throughput().is_some();
    let ranks: Vec<RankShare> = outcome
        .ranks
        .iter()
        .map(|rank| {
            let own: Vec<_> = rank.jobs.iter().map(|&j| &jobs[j]).collect();
            let first = own.iter().map(|j| j.start).min().unwrap_or(start);
            let last = own.iter().map(|j| j.end).max().unwrap_or(first);
            let bytes = own.iter().map(|j| j.bytes).sum();
            let elapsed_ns = last.saturating_sub(first);
            let status = match (&rank.error, rank.interrupted) {
                (Some(_), _) => Status::Failed,
                (None, true) => Status::Interrupted,
                (None, false) => Status::Ok,
            };
            RankShare {
                rank: rank.rank,
                host: rank.host.clone(),
                jobs: rank.jobs.iter().map(|&j| j as u32).collect(),
                bytes,
                ops: own.iter().map(|j| j.ops).sum(),
                start_ns: first.saturating_sub(start),
                elapsed_ns,
                throughput_bps: (status == Status::Ok && !own.is_empty())
                    .then(|| bytes as f64 / (elapsed_ns.max(1) as f64 * 1e-9)),
                status,
                error: rank.error.clone(),
            }
        })
        .collect();
    let mut hosts: Vec<HostShare> = Vec::new();
    for share in &ranks {
        let index = match hosts.iter().position(|h| h.host == share.host) {
            Some(index) => index,
            None => {
                hosts.push(HostShare {
                    host: share.host.clone(),
                    ranks: Vec::new(),
                    bytes: 0,
                    throughput_bps: None,
                    activity: None,
                });
                hosts.len() - 1
            }
        };
        let host = &mut hosts[index];
        host.ranks.push(share.rank);
        host.bytes += share.bytes;
    }
    for host in &mut hosts {
        let own: Vec<&RankShare> = ranks.iter().filter(|r| r.host == host.host).collect();
        let leader = outcome
            .ranks
            .iter()
            .find(|r| r.host == host.host && r.samples.is_some());
        if let Some(samples) = leader.and_then(|r| r.samples.as_ref()) {
            let app = AppWork {
                ops: own.iter().map(|r| r.ops).sum(),
                bytes: host.bytes,
                directions: point.workload.directions(),
            };
            host.activity = Some(activity::activity(samples, app));
        }
        // Its own rate: its bytes over its ranks' own span (the first's
        // start to the last's end), not its share of the whole wall time.
        let span_ns = own
            .iter()
            .map(|r| r.start_ns + r.elapsed_ns)
            .max()
            .unwrap_or(0)
            .saturating_sub(own.iter().map(|r| r.start_ns).min().unwrap_or(0));
        host.throughput_bps =
            (ok && span_ns > 0).then(|| host.bytes as f64 / (span_ns as f64 * 1e-9));
    }
    let measured: Vec<&RankShare> = ranks
        .iter()
        .filter(|r| r.throughput_bps.is_some())
        .collect();
    let spread = (ok && !measured.is_empty()).then(|| {
        let by = |r: &&&RankShare| r.throughput_bps.unwrap_or(0.0);
        let slowest = measured
            .iter()
            .min_by(|a, b| by(a).total_cmp(&by(b)))
            .expect("not empty");
        let fastest = measured
            .iter()
            .max_by(|a, b| by(a).total_cmp(&by(b)))
            .expect("not empty");
        let (slow, fast) = (by(&slowest), by(&fastest));
        RankSpread {
            slowest_rank: slowest.rank,
            slowest_bps: slow,
            fastest_rank: fastest.rank,
            fastest_bps: fast,
            ratio: if slow > 0.0 { fast / slow } else { 1.0 },
        }
    });
    let stonewall = ok.then(|| stonewall(outcome, start)).flatten();
    Shares {
        ranks,
        hosts,
        spread,
        stonewall,
    }
}

/// The stonewall figures of a completed repetition, resolved to the
/// coarsest of the jobs' intervals.
fn stonewall(outcome: &RepetitionOutcome, start: u64) -> Option<Stonewall> {
    let jobs = &outcome.jobs;
    let (first_rank, first_end) = outcome
        .ranks
        .iter()
        .filter(|r| !r.jobs.is_empty())
        .map(|r| {
            let end = r.jobs.iter().map(|&j| jobs[j].end).max().unwrap_or(0);
            (r.rank, end)
        })
        .min_by_key(|&(_, end)| end)?;
    let bytes: u64 = jobs.iter().map(|job| bytes_by(job, first_end)).sum();
    let interval_ns = jobs.iter().map(|j| j.interval_ns).max().unwrap_or(1);
    let elapsed_ns = first_end.saturating_sub(start).max(1);
    Some(Stonewall {
        first_rank,
        elapsed_ns,
        bytes,
        throughput_bps: bytes as f64 / (elapsed_ns as f64 * 1e-9),
        resolution_ns: interval_ns,
    })
}

/// Bytes `job` had completed by `at` (same clock), from its time series.
fn bytes_by(job: &JobOutcome, at: u64) -> u64 {
    let interval_ns = job.interval_ns.max(1);
    if at >= job.end {
        return job.bytes;
    }
    if at <= job.start {
        return 0;
    }
    let passed = at - job.start;
    let whole = (passed / interval_ns) as usize;
    let mut bytes: u64 = job.intervals.iter().take(whole).map(|i| i.bytes).sum();
    if let Some(current) = job.intervals.get(whole) {
        // The last interval ends at the job's end, not at a full interval.
        let from = job.start + whole as u64 * interval_ns;
        let length = (job.end.min(from + interval_ns))
            .saturating_sub(from)
            .max(1);
        let fraction = ((at - from) as f64 / length as f64).min(1.0);
        bytes += (current.bytes as f64 * fraction).round() as u64;
    }
    bytes.min(job.bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::cpu::CpuUsage;
    use crate::record::histogram::new_histogram;
    use crate::run::io::recorder::IntervalSample;

    fn job(start: u64, end: u64, per_interval: &[u64]) -> JobOutcome {
        JobOutcome {
            ios: None,
            backlog_checked: 0,
            bytes: per_interval.iter().sum(),
            ops: per_interval.len() as u64,
            start,
            end,
            latency: crate::run::io::kept::Latencies::new(new_histogram()),
            submit: None,
            completion: None,
            queue_depths: None,
            from_intended: None,
            intervals: per_interval
                .iter()
                .map(|&bytes| IntervalSample {
                    bytes,
                    ops: 1,
                    latency_counts: Vec::new(),
                    tcp: None,
                    directions: Vec::new(),
                })
                .collect(),
            interval_ns: 100,
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

    #[test]
    fn bytes_by_counts_whole_intervals_and_a_share_of_the_current_one() {
        // Intervals of 100 ns from 1000: [1000,1100) 10 B, [1100,1200) 20 B, [1200,1250] 40 B.
        let job = job(1_000, 1_250, &[10, 20, 40]);
        assert_eq!(bytes_by(&job, 1_000), 0);
        assert_eq!(bytes_by(&job, 1_050), 5);
        assert_eq!(bytes_by(&job, 1_100), 10);
        assert_eq!(bytes_by(&job, 1_150), 20);
        // The last interval is 50 ns long: half of it is half its bytes.
        assert_eq!(bytes_by(&job, 1_225), 50);
        assert_eq!(bytes_by(&job, 1_250), 70);
        assert_eq!(bytes_by(&job, 9_999), 70);
    }

    #[test]
    fn the_stonewall_is_the_first_rank_to_finish_and_never_after_the_wall_time() {
        use crate::run::peers::RankOutcome;
        let rank = |rank: u32, jobs: std::ops::Range<usize>| RankOutcome {
            rank,
            host: "h".to_string(),
            jobs: jobs.collect(),
            error: None,
            interrupted: false,
            samples: None,
        };
        let mut outcome = RepetitionOutcome::failed_early(0, false, String::new());
        outcome.status = crate::run::RepetitionStatus::Ok;
        // Rank 0 ends at 200, rank 1 (a straggler) at 400.
        outcome.jobs = vec![job(0, 200, &[100, 100]), job(0, 400, &[50, 50, 50, 50])];
        outcome.ranks = vec![rank(0, 0..1), rank(1, 1..2)];
        let wall = stonewall(&outcome, 0).unwrap();
        assert_eq!(wall.first_rank, 0);
        assert_eq!(wall.elapsed_ns, 200);
        assert_eq!(wall.bytes, 200 + 100);
        assert!(wall.elapsed_ns <= 400);
        assert!((wall.throughput_bps - 300.0 / 200e-9).abs() < 1.0);
    }
}
