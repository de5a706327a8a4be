//! Turning what the runner measured into the record's repetitions.
//!
//! Per repetition only: totals over jobs, elapsed from the common start to the
//! last end, merged histograms and series. Figures over repetitions are the
//! business of `stats`.

use crate::gather::activity;
use crate::gather::environment::environment_of;
use crate::gather::series::{add_interval_devices, series, tcp_sum};
use crate::plan::Workload;
use crate::plan::direction::{Direction, DirectionMix};
use crate::probe::cpu::CpuUsage;
use crate::record::activity::AppWork;
use crate::record::histogram::{latency_summary, new_histogram};
use crate::record::tree::{TreeRepetition, TreeTarget};
use crate::record::{
    CacheState, ClientNetwork, Coverage, Cpu, DirectAlignment, DirectionPacing, DirectionShare,
    Job, Pacing, PduCount, Point, Repetition, RequestCount, ResultFile, SCHEMA, Status, Target,
    Tool,
};
use crate::run::io::kept::Latencies;
use crate::run::io::recorder::JobOutcome;
use crate::run::{PointOutcome, RepetitionOutcome, RepetitionStatus};
use hdrhistogram::Histogram;
use std::path::Path;

/// This program: version, commit and build.
pub fn tool() -> Tool {
    let commit = env!("IOLAB_GIT_COMMIT");
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    Tool {
        name: "iolab".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: (!commit.is_empty()).then(|| commit.to_string()),
        build: format!(
            "{profile} {} {}",
            env!("IOLAB_TARGET"),
            env!("IOLAB_RUSTC_VERSION")
        ),
    }
}

/// An empty result file for this program, with the environment of this
/// machine and of the storage under `dir`; `page_cache` when some of the work
/// goes through the page cache, which needs the memory-copy ceiling.
pub fn new_result_file(command: Vec<String>, dir: Option<&Path>, page_cache: bool) -> ResultFile {
    ResultFile {
        schema: SCHEMA.to_string(),
        tool: tool(),
        created: jiff::Timestamp::now().to_string(),
        environment: environment_of(dir, page_cache),
        command,
        points: Vec::new(),
        measurements: Vec::new(),
        plan: None,
        convergence: Vec::new(),
        knee: None,
        source: None,
        distributed: None,
        guest: None,
        guests: Vec::new(),
        notes: Vec::new(),
    }
}

/// The record of one point, with no summary or checks yet; a point of
/// groups with each group's own record (also without summary or checks).
pub fn point(outcome: &PointOutcome) -> Point {
    let whole = Part {
        outcome,
        workload: &outcome.workload,
        target: &outcome.target,
        jobs: 0..usize::MAX,
        group: None,
        directions: outcome
            .groups
            .iter()
            .map(|g| g.workload.directions())
            .reduce(DirectionMix::either)
            .unwrap_or_else(|| outcome.workload.directions()),
    };
    let mut point = record_of(outcome, &outcome.label, &whole);
    let mut first = 0;
    for group in &outcome.groups {
        let jobs = group.jobs as usize;
        let part = Part {
            outcome,
            workload: &group.workload,
            target: &group.target,
            jobs: first..first + jobs,
            group: Some(&group.name),
            directions: group.workload.directions(),
        };
        point.groups.push(record_of(outcome, &group.name, &part));
        first += jobs;
    }
    point
}

/// What one record is built from: the whole point, or one group of it
/// (its workload, target, and its jobs' range in each repetition).
struct Part<'a> {
    outcome: &'a PointOutcome,
    workload: &'a Workload,
    target: &'a crate::run::TargetInfo,
    /// The jobs this part counts on one rank (all of them: `0..MAX`); over
    /// MPI a group's are that many on every rank, listed group by group.
    jobs: std::ops::Range<usize>,
    /// The group's name, for a group.
    group: Option<&'a str>,
    /// The directions its I/Os take (a point of groups: every group's).
    directions: DirectionMix,
}

impl Part<'_> {
    /// The one direction the `index`th of this part's jobs takes, when its
    /// workload takes one (in a point of groups, its group's).
    fn sole_direction(&self, index: usize, ranks: usize) -> Option<Direction> {
        if self.group.is_some() || self.outcome.groups.is_empty() {
            return self.workload.directions().sole();
        }
        let mut first = 0;
        for group in &self.outcome.groups {
            first += group.jobs as usize * ranks;
            if index < first {
                return group.workload.directions().sole();
            }
        }
        None
    }

    fn jobs<'j>(&self, outcome: &'j RepetitionOutcome) -> &'j [JobOutcome] {
        let ranks = ranks_measured(outcome);
        let end = self.jobs.end.saturating_mul(ranks).min(outcome.jobs.len());
        &outcome.jobs[self.jobs.start.saturating_mul(ranks).min(end)..end]
    }
}

/// How many ranks' jobs a repetition holds (1 on one host): over MPI a
/// point of groups lists each group's jobs of every such rank together
/// (`run::point`'s regrouping).
fn ranks_measured(outcome: &RepetitionOutcome) -> usize {
    match outcome.ranks.as_slice() {
        [] => 1,
        ranks => ranks
            .iter()
            .filter(|rank| !rank.jobs.is_empty())
            .count()
            .max(1),
    }
}

/// The record of `part` of `outcome`, labelled `label`.
fn record_of(outcome: &PointOutcome, label: &str, part: &Part<'_>) -> Point {
    let target = part.target;
    Point {
        label: label.to_string(),
        workload: part.workload.clone(),
        target: Target {
            dir: target.dir.display().to_string(),
            filesystem: target.filesystem.clone(),
            files: target
                .files
                .iter()
                .map(|f| f.display().to_string())
                .collect(),
            direct_alignment: target.direct_alignment.map(|a| DirectAlignment {
                memory_bytes: a.memory,
                offset_bytes: a.offset,
                source: a.source.to_string(),
            }),
            direct_in_memory: target.direct_in_memory,
            file_given: target.file_given,
            open_flags: target.open_flags.clone(),
            tree: target.tree.as_ref().map(|tree| TreeTarget {
                root: tree.root.display().to_string(),
                trees: tree.shape.trees(),
                directories: tree.shape.directories(),
                item_directories: tree.shape.item_directories(),
                items_per_job: tree.shape.items_per_job(),
                jobs: tree.shape.jobs,
                inodes: tree.shape.inodes(),
                cache: tree.cache.clone(),
            }),
        },
        repetitions: outcome
            .repetitions
            .iter()
            .map(|r| repetition(part, r))
            .collect(),
        summary: None,
        checks: Vec::new(),
        groups: Vec::new(),
    }
}

/// What a metadata repetition's jobs did to the tree, summed; `None` for
/// a data workload.
fn tree_repetition(point: &Part<'_>, jobs: &[JobOutcome]) -> Option<TreeRepetition> {
    let shape = point.target.tree.as_ref()?.shape;
    let done: Vec<_> = jobs.iter().filter_map(|job| job.tree.as_ref()).collect();
    if done.is_empty() {
        return None;
    }
    let mut calls = std::collections::BTreeMap::new();
    for job in &done {
        for (name, count) in job.calls.named() {
            *calls.entry(name.to_string()).or_insert(0) += count;
        }
    }
    let makes = point.workload.op.items() == crate::plan::Items::Makes;
    Some(TreeRepetition {
        items: done.iter().map(|job| job.items).sum(),
        items_per_job: done.iter().map(|job| job.items).collect(),
        stonewalled: makes && done.iter().any(|job| job.items < shape.items_per_job()),
        entries: (point.workload.op == crate::plan::Op::Readdir)
            .then(|| done.iter().map(|job| job.entries).sum()),
        system_calls: calls,
    })
}

fn repetition(point: &Part<'_>, outcome: &RepetitionOutcome) -> Repetition {
    let jobs = point.jobs(outcome);
    let whole = point.group.is_none();
    let bytes = jobs.iter().map(|j| j.bytes).sum();
    let ops = jobs.iter().map(|j| j.ops).sum();
    // A group's own failure is its own; another group's failure ends the
    // repetition for every group, and is said so.
    let own_failure = jobs.iter().find_map(|job| job.failure.as_ref());
    let (status, error) = match (&outcome.status, own_failure) {
        (RepetitionStatus::Ok, _) => (Status::Ok, None),
        (RepetitionStatus::Failed(_), Some(failure)) if !whole => {
            (Status::Failed, Some(failure.to_string()))
        }
        (RepetitionStatus::Failed(message), None) if !whole => (
            Status::Failed,
            Some(format!("the repetition failed in another group: {message}")),
        ),
        (RepetitionStatus::Failed(message), _) => (Status::Failed, Some(message.clone())),
        (RepetitionStatus::Interrupted, _) => (Status::Interrupted, None),
    };
    let residency = outcome.residency.filter(|_| whole);
    let cache = residency.map(|residency| CacheState {
        treatment: point.workload.cache,
        resident_pages: residency.resident_pages,
        total_pages: residency.total_pages,
        resident_fraction: residency.fraction(),
    });
    let mut record = Repetition {
        warmup: outcome.warmup,
        error,
        cache,
        draw_seed: outcome.draw_seed,
        verify: (whole && !outcome.verified.is_empty()).then(|| crate::record::Verification {
            blocks: outcome.verified.iter().map(|v| v.blocks).sum(),
            bad_blocks: outcome.verified.iter().map(|v| v.bad_blocks).sum(),
            first_mismatches: outcome
                .verified
                .iter()
                .flat_map(|v| v.first_mismatches.iter().cloned())
                .take(10)
                .collect(),
            elapsed_ns: outcome.verified.iter().map(|v| v.elapsed_ns).sum(),
            backlog_blocks: jobs.iter().map(|job| job.backlog_checked).sum(),
        }),
        jobs: jobs
            .iter()
            .enumerate()
            .map(|(index, job)| Job {
                job: index as u32,
                file: point
                    .target
                    .files
                    .get(index)
                    .map(|f| f.display().to_string()),
                bytes: job.bytes,
                ops: job.ops,
                elapsed_ns: job.end.saturating_sub(job.start),
                latency_depth: job.latency_depth.map(|(depth, _)| depth),
                latency_settled: job.latency_depth.map(|(_, settled)| settled),
                ios: job.ios.clone(),
            })
            .collect(),
        tree: tree_repetition(point, jobs),
        replay: sole_replay(jobs),
        started_at: outcome
            .started_at
            .map(|at| at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()),
        ..Repetition::new(outcome.index, status, bytes, ops)
    };
    let asked_ns = (point.workload.interval_s * 1e9).round().max(1.0) as u64;
    // Jobs (and the sampler) coarsen their series on their own; all are
    // brought to the coarsest interval any of them reached.
    // The samples (devices, network, CPUs) are the whole point's: every
    // group's I/O reaches the same devices at once.
    let samples = outcome.samples.as_ref().filter(|_| whole);
    let interval_ns = jobs
        .iter()
        .map(|j| j.interval_ns)
        .chain(outcome.samples.as_ref().map(|s| s.interval_ns))
        .fold(asked_ns, u64::max);
    record.series = series(jobs, interval_ns);
    if interval_ns != asked_ns {
        record.series_interval_s = Some(interval_ns as f64 * 1e-9);
    }
    // An interrupted repetition that reached its timed region keeps the
    // figures of the time until the signal: marked so, and counted in no
    // summary (they end early, where the others ran their course).
    let timed = match status {
        Status::Ok => true,
        Status::Interrupted => ops > 0,
        Status::Failed => false,
    };
    if timed && !jobs.is_empty() {
        let start = jobs
            .iter()
            .map(|j| j.start)
            .min()
            .expect("at least one job");
        let end = jobs.iter().map(|j| j.end).max().expect("at least one job");
        let elapsed_ns = end.saturating_sub(start).max(1);
        let seconds = elapsed_ns as f64 * 1e-9;
        let cpu = jobs
            .iter()
            .fold(CpuUsage::default(), |sum, job: &JobOutcome| sum + job.cpu);
        record.elapsed_ns = Some(elapsed_ns);
        record.throughput_bps = Some(bytes as f64 / seconds);
        record.iops = Some(ops as f64 / seconds);
        // A measurement's buckets count at most its I/Os, far below 2^63.
        record.latency_ns = latency_summary(&merge(jobs.iter().map(|j| &j.latency))).ok();
        let ranks = ranks_measured(outcome);
        record.directions = direction_shares(jobs, |job| point.sole_direction(job, ranks), seconds);
        record.client_network = client_network(jobs);
        record.coverage = coverage(jobs);
        record.zone_resets = jobs
            .iter()
            .filter_map(|job| job.zone_resets)
            .reduce(|a, b| a + b);
        // The groups' paces are each group's own, not the point's.
        let one_workload = !whole || point.directions == point.workload.directions();
        record.pacing = pacing(
            point.workload,
            jobs,
            ops as f64 / seconds,
            &record.directions,
        )
        .filter(|_| one_workload);
        if one_workload {
            record.priorities = super::priorities::priorities(point.workload, jobs);
        }
        let submits: Vec<_> = jobs.iter().filter_map(|j| j.submit.as_ref()).collect();
        if !submits.is_empty() {
            record.submit_ns = merged_in(&submits, None);
            for share in &mut record.directions {
                share.submit_ns = merged_in(&submits, Some(share.direction));
            }
        }
        let mut depths = jobs
            .iter()
            .filter_map(|j| j.queue_depths.as_ref())
            .peekable();
        if depths.peek().is_some() {
            let mut all = crate::record::QueueDepths::default();
            depths.for_each(|d| all.add(d));
            record.queue_depths = Some(all);
        }
        let completions: Vec<_> = jobs.iter().filter_map(|j| j.completion.as_ref()).collect();
        if !completions.is_empty() {
            record.completion_ns = merged_in(&completions, None);
            for share in &mut record.directions {
                share.completion_ns = merged_in(&completions, Some(share.direction));
            }
        }
        record.cpu = Some(cpu_record(&cpu, seconds));
        if let Some(criterion) = point.workload.steady {
            record.steady = Some(crate::record::SteadyState {
                criterion: criterion.to_string(),
                reached: outcome.steady_at.is_some(),
                at_s: outcome
                    .steady_at
                    .map(|at| at.saturating_sub(start) as f64 * 1e-9),
            });
        }
        if let Some(samples) = samples {
            let app = AppWork {
                ops,
                bytes,
                directions: point.directions,
            };
            record.activity = Some(crate::record::activity::Activity {
                write_back_ns: outcome.write_back_ns,
                ..activity::activity(samples, app)
            });
            add_interval_devices(&mut record.series, samples, interval_ns, app.directions);
        }
    }
    if whole && !outcome.ranks.is_empty() {
        let start = jobs.iter().map(|j| j.start).min().unwrap_or(0);
        let shares = crate::gather::distributed::shares(point.outcome, outcome, start);
        if shares.hosts.len() > 1 {
            // The samples are rank 0's host's: compare them with that
            // host's work only, and leave per-interval device figures out.
            record.activity = shares.hosts[0].activity.clone();
            record.series.iter_mut().for_each(|i| i.devices.clear());
        }
        record.ranks = shares.ranks;
        record.hosts = shares.hosts;
        record.rank_spread = shares.spread;
        record.stonewall = shares.stonewall;
    }
    record
}

/// How faithful the replay of the one trace job among `jobs` was; `None`
/// when none (or several) replayed a trace, each then in its group's record.
fn sole_replay(jobs: &[JobOutcome]) -> Option<crate::record::replay::Fidelity> {
    let mut replays = jobs.iter().filter_map(|job| job.replay.as_ref());
    match (replays.next(), replays.next()) {
        (Some(replay), None) => Some(replay.clone()),
        _ => None,
    }
}

/// The network client engine's requests, PDUs and TCP traffic, all jobs
/// together; `None` when no job had any (local engines).
fn client_network(jobs: &[JobOutcome]) -> Option<ClientNetwork> {
    let traffic: Vec<_> = jobs.iter().filter_map(|job| job.network.as_ref()).collect();
    client_network_of(&traffic)
}

/// What some connections of a network client carried, together, as the
/// record keeps it (a repetition's jobs, or a replay's one connection);
/// `None` for none.
pub fn client_network_of(
    traffic: &[&crate::run::io::traffic::ClientTraffic],
) -> Option<ClientNetwork> {
    let first = traffic.first()?;
    let mut requests: Vec<RequestCount> = Vec::new();
    let mut pdus: Vec<PduCount> = Vec::new();
    let mut pdus_not_counted = None;
    // Each request's round trips added up, beside `requests`.
    let mut round_trips: Vec<Option<u64>> = Vec::new();
    for job in traffic {
        for tally in job.requests.iter().filter(|t| t.count > 0) {
            match requests.iter().position(|r| r.name == tally.name) {
                Some(at) => {
                    let sum = &mut requests[at];
                    (sum.count, sum.bytes) = (sum.count + tally.count, sum.bytes + tally.bytes);
                    round_trips[at] = round_trips[at].zip(tally.round_trip_ns).map(|(a, b)| a + b);
                }
                None => {
                    requests.push(RequestCount {
                        name: tally.name.to_string(),
                        count: tally.count,
                        bytes: tally.bytes,
                        mean_round_trip_ns: None,
                    });
                    round_trips.push(tally.round_trip_ns);
                }
            }
        }
        match &job.pdus {
            Some(Ok(tallies)) => {
                for tally in tallies {
                    let direction = if tally.sent { "sent" } else { "received" };
                    match pdus
                        .iter_mut()
                        .find(|p| p.opcode == tally.opcode && p.direction == direction)
                    {
                        Some(sum) => {
                            (sum.count, sum.bytes) =
                                (sum.count + tally.count, sum.bytes + tally.bytes)
                        }
                        None => pdus.push(PduCount {
                            direction: direction.to_string(),
                            opcode: tally.opcode,
                            name: tally.name.to_string(),
                            count: tally.count,
                            bytes: tally.bytes,
                        }),
                    }
                }
            }
            Some(Err(why)) => pdus_not_counted = pdus_not_counted.or_else(|| Some(why.clone())),
            None => {}
        }
    }
    // Counts of some jobs only would mislead: all or none.
    if pdus_not_counted.is_some() {
        pdus.clear();
    }
    pdus.sort_by_key(|p| (p.direction != "sent", p.opcode));
    for (request, total) in requests.iter_mut().zip(round_trips) {
        request.mean_round_trip_ns = total.map(|total| total as f64 / request.count.max(1) as f64);
    }
    let tcp = tcp_sum(traffic.iter().map(|t| t.tcp));
    Some(ClientNetwork {
        protocol: first.protocol.to_string(),
        requests_are: first.requests_are.to_string(),
        requests,
        pdus,
        pdus_not_counted,
        status_in_data: traffic.iter().map(|t| t.status_in_data).sum(),
        tcp,
    })
}

/// The blocks the jobs touched, together; `None` unless every job counted.
/// How a paced repetition kept its rate; `None` when no rate was set.
fn pacing(
    workload: &Workload,
    jobs: &[JobOutcome],
    iops: f64,
    shares: &[DirectionShare],
) -> Option<Pacing> {
    let target_iops = workload.target_iops()? * jobs.len() as f64;
    let directions = workload
        .direction_iops()
        .into_iter()
        .flat_map(|per_direction| Direction::ALL.map(|d| (d, per_direction[d.index()])))
        .filter_map(|(direction, asked)| {
            let target_iops = asked? * jobs.len() as f64;
            // One direction alone keeps no shares: its figures are the job's.
            let achieved = match shares.iter().find(|s| s.direction == direction) {
                Some(share) => share.iops.unwrap_or(0.0),
                None if shares.is_empty() => iops,
                None => 0.0,
            };
            Some(DirectionPacing {
                direction,
                target_iops,
                achieved_fraction: achieved / target_iops,
            })
        })
        .collect();
    let histograms: Vec<_> = jobs
        .iter()
        .filter_map(|j| j.from_intended.as_ref())
        .collect();
    Some(Pacing {
        target_iops,
        achieved_fraction: iops / target_iops,
        latency_from_intended_ns: if histograms.is_empty() {
            None
        } else {
            latency_summary(&merge(histograms.into_iter())).ok()
        },
        directions,
    })
}

fn coverage(jobs: &[JobOutcome]) -> Option<Coverage> {
    let (touched, blocks) = jobs.iter().try_fold((0u64, 0u64), |(t, b), job| {
        let c = job.coverage?;
        Some((t + c.touched, b + c.blocks))
    })?;
    (blocks > 0).then(|| Coverage {
        blocks_touched: touched,
        blocks,
        fraction: touched as f64 / blocks as f64,
    })
}

/// Each direction's share of the jobs' I/O, over the repetition's
/// `seconds`, when any job took both directions; empty otherwise.
fn direction_shares(
    jobs: &[JobOutcome],
    sole: impl Fn(usize) -> Option<Direction>,
    seconds: f64,
) -> Vec<DirectionShare> {
    // Each job's parts by direction: a mixed job's own, or a job of one
    // direction's totals (one group of a point of groups).
    let parts: Vec<(Direction, u64, u64, &Latencies)> = jobs
        .iter()
        .enumerate()
        .flat_map(|(index, job)| {
            let own = job
                .directions
                .iter()
                .map(|share| (share.direction, share.bytes, share.ops, &share.latency));
            let whole = sole(index)
                .filter(|_| job.directions.is_empty())
                .map(|direction| (direction, job.bytes, job.ops, &job.latency));
            own.chain(whole).collect::<Vec<_>>()
        })
        .collect();
    let mixed = jobs.iter().any(|job| !job.directions.is_empty());
    let several = parts.iter().any(|part| part.0 != parts[0].0);
    if !mixed && !several {
        return Vec::new();
    }
    Direction::ALL
        .into_iter()
        .filter(|&direction| parts.iter().any(|part| part.0 == direction))
        .map(|direction| {
            let shares: Vec<_> = parts.iter().filter(|part| part.0 == direction).collect();
            let bytes = shares.iter().map(|share| share.1).sum::<u64>();
            let ops = shares.iter().map(|share| share.2).sum::<u64>();
            let latency = merge(shares.iter().map(|share| share.3));
            DirectionShare {
                direction,
                bytes,
                ops,
                throughput_bps: Some(bytes as f64 / seconds),
                iops: Some(ops as f64 / seconds),
                latency_ns: (ops > 0).then(|| latency_summary(&latency).ok()).flatten(),
                completion_ns: None,
                submit_ns: None,
            }
        })
        .collect()
}

/// The jobs' per-direction histograms (`submit`, `completion`) merged:
/// every direction's, or `direction`'s alone; `None` without an I/O.
fn merged_in(
    jobs: &[&Vec<(Direction, Latencies)>],
    direction: Option<Direction>,
) -> Option<crate::record::LatencySummary> {
    let kept = jobs.iter().flat_map(|job| {
        job.iter()
            .filter(move |(d, _)| direction.is_none_or(|wanted| *d == wanted))
            .map(|(_, latency)| latency)
    });
    latency_summary(&merge(kept)).ok().filter(|l| l.count > 0)
}

fn merge<'a>(histograms: impl Iterator<Item = &'a Latencies>) -> Histogram<u64> {
    let mut merged = new_histogram();
    for histogram in histograms {
        merged
            .add(&*histogram.histogram())
            .expect("histograms share their bounds");
    }
    merged
}

/// The record of the I/O threads' CPU `cpu` over `seconds` of timed region.
pub fn cpu_record(cpu: &CpuUsage, seconds: f64) -> Cpu {
    Cpu {
        total_s: cpu.total_s,
        user_s: cpu.user_s,
        system_s: cpu.system_s,
        utilization: cpu.total_s / seconds,
        voluntary_switches: cpu.voluntary_switches,
        involuntary_switches: cpu.involuntary_switches,
        minor_faults: cpu.minor_faults,
        major_faults: cpu.major_faults,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::null::NullIo;
    use crate::plan::direction::DirectionMix;
    use crate::run::io::recorder::JobMemory;
    use crate::run::io::spec::LoopSpec;
    use crate::run::io::timing::run_blocking;
    use crate::run::io::timing::tests::spec;
    use std::sync::atomic::AtomicUsize;

    /// A real loop's outcome: 1000 null I/Os, 30% of them writes.
    fn mixed_job(seed: u64) -> JobOutcome {
        let interrupt = AtomicUsize::new(0);
        let mix = DirectionMix::with_write_percent(30).unwrap();
        let spec = LoopSpec {
            directions: mix,
            seed,
            ..spec(&interrupt)
        };
        let memory = JobMemory::try_new(false, mix).unwrap();
        run_blocking(&mut NullIo, &mut vec![0u8; 4096], &spec, memory, || true)
    }

    #[test]
    fn mixed_jobs_give_per_direction_shares_that_add_up_and_fit_the_schema() {
        let jobs = [mixed_job(1), mixed_job(2)];
        let shares = direction_shares(&jobs, |_| None, 2.0);
        let [read, write] = &shares[..] else {
            panic!("{shares:?}")
        };
        assert_eq!(
            (read.direction, write.direction),
            (Direction::Read, Direction::Write)
        );
        assert_eq!(read.ops + write.ops, 2000);
        assert_eq!(read.bytes + write.bytes, 2000 * 4096);
        assert_eq!(write.iops, Some(write.ops as f64 / 2.0));
        let job_writes: u64 = jobs.iter().map(|j| j.directions[1].ops).sum();
        assert_eq!(write.ops, job_writes);
        assert_eq!(write.latency_ns.as_ref().unwrap().count, write.ops);
        // The series keeps each direction's part of every interval, and the
        // parts add up to the interval and to the direction's total.
        let series = series(&jobs, jobs[0].interval_ns);
        assert!(!series.is_empty());
        for interval in &series {
            let [read, write] = &interval.directions[..] else {
                panic!("{interval:?}")
            };
            assert_eq!(read.ops + write.ops, interval.ops);
            assert_eq!(read.bytes + write.bytes, interval.bytes);
        }
        let series_writes: u64 = series.iter().map(|i| i.directions[1].ops).sum();
        assert_eq!(series_writes, write.ops);
        let record = Repetition {
            directions: shares,
            series,
            elapsed_ns: Some(2_000_000_000),
            throughput_bps: Some(2000.0 * 4096.0 / 2.0),
            iops: Some(1000.0),
            ..Repetition::new(0, Status::Ok, 2000 * 4096, 2000)
        };
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/schema/iolab.result-1.schema.json"
        );
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let repetition =
            serde_json::json!({"$defs": schema["$defs"], "$ref": "#/$defs/repetition"});
        let validator = jsonschema::validator_for(&repetition).unwrap();
        let value = serde_json::to_value(&record).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        // Unmixed jobs give no shares.
        let mut unmixed = mixed_job(3);
        unmixed.directions.clear();
        assert!(direction_shares(&[unmixed], |_| Some(Direction::Read), 1.0).is_empty());
    }

    #[test]
    fn a_job_that_started_later_fills_the_intervals_of_when_it_ran() {
        let early = mixed_job(1);
        let mut late = mixed_job(2);
        let interval = early.interval_ns;
        // Its group waited three intervals (a --start-delay) before its I/O.
        late.start = early.start + 3 * interval + interval / 2;
        let alone = series(std::slice::from_ref(&early), interval);
        let late_ops = late.ops;
        let both = series(&[early, late], interval);
        for (index, merged) in both.iter().enumerate().take(3) {
            let early_ops = alone.get(index).map_or(0, |i| i.ops);
            assert_eq!(
                merged.ops, early_ops,
                "interval {index} holds the early job's only"
            );
        }
        let total: u64 = both.iter().map(|i| i.ops).sum();
        let early_total: u64 = alone.iter().map(|i| i.ops).sum();
        assert_eq!(total, early_total + late_ops);
        assert!(both.len() >= 4, "{} intervals", both.len());
    }
}
