//! Measuring one point (`Session::run_point`). A point is a non-empty list of groups — one workload is one group — run at once: each group's site prepared (its files made or kept, the given file, device or LUN, or the point's one tree), then the repetitions in order — each group's files renewed or sealed, its cache treated and checked, every group's jobs released together on one clock with the sampler beside them, each group's writes verified and what its files hold kept — until the repetitions asked for are done, the interval is tight enough, or a signal ends it.

use super::io::replay::job::TracePass;
use super::io::replay::{Fit, ReplayOptions, created_length};
use super::io::{jobs, live, verify};
use super::peers;
use super::site::cache::Residency;
use super::site::files::{first_job, given_flag, job_targets, renew_files};
use super::site::prepare;
use super::target::TargetKind;
use super::{
    EnoughRule, JobTarget, Laid, Layout, PointOutcome, ReadPass, RepetitionOutcome,
    RepetitionStatus, RunError, Session, TargetInfo, together, treat_cache, verify_targets,
};
use crate::plan::ItemOp;
use crate::plan::combine::{Site, check_groups, check_site};
use crate::plan::direction::{Direction, DirectionMix};
use crate::plan::group::{Group, named};
use crate::plan::{CacheMode, Op, Workload};
use crate::usage;

/// One group of a measured point: its name, workload, where its jobs ran,
/// and how many of the repetition's jobs (in order, after the groups
/// before it) are its own.
#[derive(Clone, Debug)]
pub struct GroupOutcome {
    /// The group's name.
    pub name: String,
    pub workload: Workload,
    /// Its files, open flags and O_DIRECT alignment.
    pub target: TargetInfo,
    /// Its jobs: `jobs` outcomes of each repetition, after the earlier groups'.
    pub jobs: u32,
}

/// What a group's jobs work with besides its workload: the workload its
/// files are made, treated and opened by — a trace group's one file, the
/// trace's extent long, read and written, and evicted as the trace point
/// asks (cold) — and a trace group's replay.
struct GroupWork {
    files: Workload,
    replay: Option<ReplayOptions>,
}

/// A group's seed for repetition `index`: groups of the same workload draw
/// other offsets, sizes and data, as fio's jobs do. The first group's is
/// the workload's own.
fn group_draw_seed(workload: &Workload, group: usize, index: u32) -> u64 {
    workload.draw_seed(index) ^ (group as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
}

/// On rank 0 of a distributed point of groups: the merged jobs, which
/// come rank by rank (each rank's group by group), put group by group
/// (each group's rank by rank), as the point's records take a group's jobs
/// (`gather::build`); each rank's positions follow them. A rank that holds
/// other than all its jobs (none, after failing early) keeps its own at the
/// end.
fn regroup(mut outcome: RepetitionOutcome, groups: &[Group]) -> RepetitionOutcome {
    if outcome.ranks.is_empty() || groups.len() < 2 {
        return outcome;
    }
    let local: usize = groups.iter().map(|g| g.workload.jobs as usize).sum();
    let whole = |jobs: &[usize]| jobs.len() == local;
    let mut order = Vec::with_capacity(outcome.jobs.len());
    let mut first = 0;
    for group in groups {
        let count = group.workload.jobs as usize;
        for rank in outcome.ranks.iter().filter(|rank| whole(&rank.jobs)) {
            order.extend_from_slice(&rank.jobs[first..first + count]);
        }
        first += count;
    }
    for rank in outcome.ranks.iter().filter(|rank| !whole(&rank.jobs)) {
        order.extend_from_slice(&rank.jobs);
    }
    let mut place = vec![0; outcome.jobs.len()];
    for (new, &old) in order.iter().enumerate() {
        place[old] = new;
    }
    let mut slots: Vec<Option<_>> = std::mem::take(&mut outcome.jobs)
        .into_iter()
        .map(Some)
        .collect();
    outcome.jobs = order.iter().filter_map(|&old| slots[old].take()).collect();
    for rank in &mut outcome.ranks {
        for job in &mut rank.jobs {
            *job = place[*job];
        }
    }
    outcome
}

impl Session {
    /// Measures one point of `groups` (one workload is one group): each
    /// group's files or tree prepared, then warm-ups and repetitions, each
    /// repetition's jobs of every group released together.
    ///
    /// In a distributed run every rank calls this with the same groups; the
    /// collective steps (agreement after each phase of preparation, the
    /// common start, the exchange and the decision after each repetition)
    /// are taken on every path, failures included, so no rank waits forever.
    pub fn run_point(&mut self, label: &str, groups: &[Group]) -> Result<PointOutcome, RunError> {
        check_groups(groups)?;
        self.check_site(groups)?;
        let naming = Naming(named(groups));
        let works = groups
            .iter()
            .map(|group| {
                self.group_work(&group.workload)
                    .map_err(|error| naming.name(&group.name, error))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let engines_ready = groups.iter().try_for_each(|group| {
            group
                .workload
                .engine
                .available()
                .map_err(|e| naming.name(&group.name, RunError::Setup(e)))
        });
        self.together(engines_ready)?;
        // Sites beyond this point's groups are not its own: files released
        // (a dropped set would leave its files behind), the tree unless a
        // group works on one.
        for place in groups.len()..self.made.len() {
            self.release_made(place);
        }
        self.made.truncate(groups.len());
        if groups
            .iter()
            .all(|group| group.workload.work() != crate::plan::Work::Tree)
        {
            self.release_tree();
        }
        let filesystem = match &self.given {
            Some(set) if set.files[0].kind() == TargetKind::BlockDevice => {
                "block device".to_string()
            }
            Some(set) if set.files[0].kind() == TargetKind::Memory => {
                crate::record::MEMORY_DEVICE.to_string()
            }
            _ => self.dir.filesystem(),
        };
        let mut sites = Vec::new();
        for (place, group) in groups.iter().enumerate() {
            let workload = &works[place].files;
            let mut target = TargetInfo::before(self.dir.path(), filesystem.clone(), workload);
            let prepared = if workload.work() == crate::plan::Work::Tree {
                self.release_made(place);
                target.open_flags = None;
                self.prepare_tree(workload, &mut target)
            } else if workload.uses_files() {
                self.prepare_files(place, workload, &mut target)
            } else {
                self.release_made(place);
                Ok(())
            };
            prepared.map_err(|error| naming.name(&group.name, error))?;
            sites.push(GroupOutcome {
                name: group.name.clone(),
                workload: group.workload.clone(),
                target,
                jobs: workload.jobs,
            });
        }
        let target = match sites.as_slice() {
            [alone] => alone.target.clone(),
            _ => TargetInfo {
                files: sites
                    .iter()
                    .flat_map(|g| g.target.files.iter().cloned())
                    .collect(),
                open_flags: None,
                tree: sites.iter().find_map(|g| g.target.tree.clone()),
                ..sites[0].target.clone()
            },
        };
        let lead = &groups[0].workload;
        let mut repetitions = Repetitions::new(lead, self.enough);
        let peers = self.peers.clone();
        for index in 0..repetitions.most() {
            let interrupted = self.interrupt.is_set();
            if peers.any(interrupted) {
                break;
            }
            // A device or LUN consented to be overwritten is written only
            // while nothing lives on it: something made on it since the
            // last check (a file system, between points or repetitions)
            // stops the run before it is written over.
            let in_use = self.together(match self.found_in_use() {
                Some(found) => Err(RunError::Setup(found)),
                None => Ok(()),
            });
            if let Err(error) = in_use {
                if repetitions.done.is_empty() {
                    return Err(error);
                }
                repetitions.done.push(RepetitionOutcome::failed_early(
                    index,
                    index < lead.warmup,
                    error.to_string(),
                ));
                break;
            }
            let repetition = match self.repetition(&sites, &works, &target, index, naming) {
                Ok(repetition) => regroup(peers.gather(repetition), groups),
                Err(error) if peers.alone() => return Err(error),
                // The other ranks are at the common start: meet them there.
                Err(error) => peers.gather(RepetitionOutcome::failed_early(
                    index,
                    index < lead.warmup,
                    error.to_string(),
                )),
            };
            let stop = repetitions.add(repetition);
            // Rank 0 holds every rank's throughput; its word is the rule.
            if peers.decide(stop) {
                break;
            }
        }
        let mut outcome = repetitions.outcome(self.interrupt.signal(), label, target)?;
        if naming.0 {
            outcome.groups = sites;
        }
        Ok(outcome)
    }

    /// What the group of `workload` works with ([`GroupWork`]): for a
    /// trace, the trace read whole (once per process), its replay, and the
    /// file it is replayed onto, made in this session's local directory.
    fn group_work(&self, workload: &Workload) -> Result<GroupWork, RunError> {
        let Some(trace) = workload.trace else {
            return Ok(GroupWork {
                files: workload.clone(),
                replay: None,
            });
        };
        let character = crate::trace::characterize::read_once(std::path::Path::new(trace.as_str()))
            .map_err(|error| RunError::Usage(usage!("{}", error.0)))?;
        if workload.uses_files() && self.local_scratch().is_none() {
            // plan::combine::check_point refuses it before anything is made.
            return Err(RunError::Setup(format!(
                "--trace {trace} reached a site other than a local directory"
            )));
        }
        let replay = ReplayOptions {
            trace: trace.as_str().into(),
            format: character.format,
            selection: Default::default(),
            summary: character.summary.clone(),
            speed: workload.trace_speed.factor(),
            engine: workload.engine,
            depth: u64::from(workload.iodepth),
            fit: Fit::AsRecorded,
            interval_ns: (workload.interval_s * 1e9) as u64,
            recorded_depth: character.recorded_depth.map(|(mean, _)| mean),
        };
        // Opened for what the trace does: read-only unless it writes or trims.
        let summary = &character.summary;
        let mix = [
            (crate::trace::IoKind::Read, Direction::Read),
            (crate::trace::IoKind::Write, Direction::Write),
            (crate::trace::IoKind::Trim, Direction::Trim),
        ]
        .into_iter()
        .filter(|(kind, _)| summary.ios[kind.index()] > 0)
        .map(|(_, direction)| DirectionMix::only(direction))
        .reduce(DirectionMix::either)
        .unwrap_or(DirectionMix::only(Direction::Read));
        let files = Workload {
            trace: None,
            op: Op::Mix,
            mix: Some(mix),
            size: created_length(&character.summary, None),
            jobs: 1,
            ..workload.clone()
        };
        Ok(GroupWork {
            files,
            replay: Some(replay),
        })
    }

    /// What a point's groups may combine with this session's site
    /// ([`check_site`]).
    fn check_site(&self, groups: &[Group]) -> Result<(), RunError> {
        let flag = self
            .given
            .as_ref()
            .map(|given| (given_flag(given.files[0].as_ref()), given.files[0].kind()));
        let site = match &flag {
            None => Site::Made,
            Some((flag, TargetKind::Lun)) => Site::Lun { flag },
            // What a new file's write may do was asked before it was made.
            Some((flag, _)) => Site::Given { flag, made: false },
        };
        Ok(check_site(groups, site)?)
    }

    /// What now lives on a given device or LUN this run was allowed to
    /// overwrite, named; `None` when nothing does, or nothing is written.
    pub(super) fn found_in_use(&self) -> Option<String> {
        let set = self.given.as_ref()?;
        set.files.iter().find_map(|file| file.found_in_use())
    }

    /// In a distributed run, every rank's `local` result (see [`Peers::agree`]);
    /// alone, `local` itself.
    pub(super) fn together<T>(&self, local: Result<T, RunError>) -> Result<T, RunError> {
        together(self.peers.as_ref(), local)
    }

    /// Where this rank's jobs of the group in place `group` do their I/O.
    pub(super) fn layout(&self, group: usize, workload: &Workload) -> Layout {
        let peers = &self.peers;
        let shift = peers.spread().reorder_shift;
        Layout {
            numbers: first_job(group),
            first_job: peers.rank() * workload.jobs,
            reordered_first_job: (shift > 0 && !workload.op.writes())
                .then(|| (peers.rank() + shift) % peers.size() * workload.jobs),
        }
    }

    /// Whether all ranks use one file.
    pub(super) fn shared(&self) -> bool {
        self.peers.spread().shared_file
    }

    /// One repetition of a point: each group's files renewed (a write's) or
    /// sealed again (a mix that verifies) and its cache treated, the untimed
    /// first read of a reread, the tree group's items made as its op needs;
    /// then every group's jobs released together, and afterwards each
    /// group's writes verified and what its files and the tree hold kept.
    fn repetition(
        &mut self,
        groups: &[GroupOutcome],
        works: &[GroupWork],
        target: &TargetInfo,
        index: u32,
        naming: Naming,
    ) -> Result<RepetitionOutcome, RunError> {
        let lead = &groups[0].workload;
        let warmup = index < lead.warmup;
        live::set_repetition(u64::from(index) + 1);
        live::set_phase(live::Phase::Preparing);
        // This repetition's own draws; the files, their layout and the
        // checks stay the workload's.
        let drawn: Vec<Workload> = works
            .iter()
            .enumerate()
            .map(|(place, work)| Workload {
                seed: group_draw_seed(&work.files, place, index),
                ..work.files.clone()
            })
            .collect();
        let layouts: Vec<Layout> = works
            .iter()
            .enumerate()
            .map(|(place, work)| self.layout(place, &work.files))
            .collect();
        let interrupt = self.interrupt.clone();
        let peers = self.peers.clone();
        let peers = peers.as_ref();
        let mut outcome = RepetitionOutcome::failed_early(index, warmup, String::new());
        outcome.status = RepetitionStatus::Ok;
        outcome.draw_seed = Some(drawn[0].seed);
        let failed = |message: String| {
            if interrupt.is_set() {
                RepetitionStatus::Interrupted
            } else {
                RepetitionStatus::Failed(message)
            }
        };
        let mut read_just_before = vec![false; groups.len()];
        for (place, group) in groups.iter().enumerate() {
            let workload = &works[place].files;
            let Some(set) = self.set(place) else { continue };
            let given = set.given;
            // A mix that verifies starts every repetition from a freshly
            // sealed layout: the check afterwards tells this repetition's
            // writes from the layout's blocks, and each draws other blocks.
            if index > 0 && prepare::Fill::seals(workload) {
                let sealed = self.lay_out(place, workload, layouts[place]);
                self.together(sealed)
                    .map_err(|error| naming.name(&group.name, error))?;
            }
            // The set by its field, beside the space it renews files in.
            let set = match self.given.as_mut() {
                Some(set) => set,
                None => self.made[place].as_mut().expect("the group has files"),
            };
            if workload.op == Op::Write && !given {
                renew_files(self.dir.as_ref(), set, workload, layouts[place], peers)
                    .map_err(|error| naming.name(&group.name, error))?;
            }
            // IOzone's reread is the read right after a read: when the last
            // thing done to these files was that read, made the same way,
            // and the cache is left as it was, it is not read again first.
            read_just_before[place] = matches!(workload.cache, CacheMode::Keep | CacheMode::Clean)
                && set.read_pass.is_some()
                && set.read_pass == ReadPass::of(workload);
            set.read_pass = None;
        }
        // The given target's emulated zones, as earlier points left them.
        let zone_tables: Vec<_> = drawn
            .iter()
            .map(|workload| workload.zbd.map(|zbd| self.zones_of(zbd)).transpose())
            .collect::<Result<_, _>>()?;
        let mut targets = self.targets(groups.len(), &drawn, &layouts);
        // Unknown when no group has files, or one target's cache cannot be seen.
        let mut residency = targets.iter().any(Option::is_some).then(Residency::default);
        for (place, group) in groups.iter().enumerate() {
            let Some(targets) = &targets[place] else {
                continue;
            };
            let workload = &drawn[place];
            // Warming reads the whole file and stops early on a signal.
            if let Err(message) = treat_cache(targets, workload, &interrupt) {
                outcome.status = failed(naming.message(&group.name, message));
                return Ok(outcome);
            }
            if workload.op == Op::Reread && !read_just_before[place] {
                // The read whose cache the timed reread inherits: same
                // engine and pattern, one pass; each rank's own, no common start.
                let first_read = Workload {
                    runtime_s: None,
                    ramp_s: 0.0,
                    ..workload.clone()
                };
                let pass = jobs::Pass {
                    run_id: self.dir.run_id(),
                    workload: &first_read,
                    interrupt: &interrupt,
                    timed: false,
                    write_back: false,
                    zones: None,
                };
                let work = jobs::Work::Files(Some(targets));
                let status = jobs::run_jobs(pass, work, target, None, &peers::Alone).status();
                if !matches!(status, RepetitionStatus::Ok) {
                    outcome.status = status;
                    return Ok(outcome);
                }
            }
            for job in targets {
                let counted = job.file.residency(job.base, workload.size).map_err(|e| {
                    RunError::Setup(format!("mincore {}: {e}", job.file.path().display()))
                })?;
                residency = residency
                    .zip(counted)
                    .map(|(total, counted)| total + counted);
            }
        }
        outcome.residency = residency;
        // The group on the point's tree (one at most): its items made as
        // its op needs and its cache treated, untimed, after the files'
        // groups' treatments, which would undo a warmed tree's.
        let tree_group = groups
            .iter()
            .position(|g| g.workload.work() == crate::plan::Work::Tree);
        let tree_op = match tree_group {
            Some(place) => Some((
                place,
                ItemOp::of(drawn[place].op).ok_or_else(|| {
                    let op = drawn[place].op.name();
                    naming.name(
                        &groups[place].name,
                        RunError::Setup(format!("--op {op} has no form on a tree's items")),
                    )
                })?,
            )),
            None => None,
        };
        if let Some((place, _)) = tree_op {
            // The tree's preparation needs the session whole: the files'
            // targets are let go and taken again after it.
            drop(targets);
            if let Err(error) = self.tree_ready(&drawn[place]) {
                outcome.status = failed(naming.message(&groups[place].name, error.to_string()));
                return Ok(outcome);
            }
            targets = self.targets(groups.len(), &drawn, &layouts);
        }
        let tree_counts = tree_op.map(|(_, op)| self.tree_counts(op));
        let run_id = self.dir.run_id();
        let crews: Vec<jobs::Crew<'_>> = drawn
            .iter()
            .zip(&targets)
            .enumerate()
            .map(|(place, (workload, targets))| jobs::Crew {
                pass: jobs::Pass {
                    run_id,
                    workload,
                    interrupt: &interrupt,
                    timed: true,
                    write_back: self.count_write_back,
                    zones: zone_tables[place].as_ref(),
                },
                work: match (tree_op, &tree_counts, &works[place].replay) {
                    (Some((t, op)), Some((counts, renamed)), _) if t == place => {
                        jobs::Work::Tree(self.tree_work(workload, op, (counts, *renamed), true))
                    }
                    (_, _, Some(options)) => jobs::Work::Trace(TracePass {
                        options,
                        file: targets
                            .as_deref()
                            .and_then(|t| t.first())
                            .map(|job| job.file),
                    }),
                    _ => jobs::Work::Files(targets.as_deref()),
                },
            })
            .collect();
        let watch = self.sample.then_some(&self.watch);
        outcome.started_at = Some(jiff::Timestamp::now());
        let run = jobs::run_crews(&crews, target, watch, peers);
        drop(crews);
        outcome.status = run.status();
        live::set_phase(live::Phase::Checking);
        let ok = matches!(outcome.status, RepetitionStatus::Ok);
        // What each group's files hold now, decided while their targets are
        // at hand: a time-based write of a new file may stop before its end,
        // so only a file written to its full length is laid out.
        let written_whole: Vec<bool> = drawn
            .iter()
            .zip(&targets)
            .map(|(workload, targets)| {
                ok && workload.pattern.covers_every_block()
                    && targets.iter().flatten().all(|job| {
                        job.file
                            .length()
                            .is_ok_and(|len| len >= job.base + workload.size)
                    })
            })
            .collect();
        (outcome.jobs, outcome.samples, outcome.steady_at) =
            (run.outcomes, run.samples, run.steady_at);
        outcome.write_back_ns = run.write_back_ns;
        // Each group that verifies checks its own files, untimed, from the
        // blocks its own jobs wrote.
        let mut first = 0;
        for (place, group) in groups.iter().enumerate() {
            let jobs = first..first + group.jobs as usize;
            first = jobs.end;
            let (true, true, Some(targets)) = (ok, drawn[place].verify, targets[place].as_ref())
            else {
                continue;
            };
            let written: Vec<_> = outcome.jobs[jobs]
                .iter_mut()
                .map(|job| job.written.take())
                .collect();
            let alignment = group
                .target
                .direct_alignment
                .map_or(4096, |a| a.memory as usize);
            let (status, verified) = verify_targets(
                targets,
                (&written, verify::run_tag(self.dir.run_id())),
                &drawn[place],
                alignment,
            );
            outcome.verified.extend(verified);
            if let RepetitionStatus::Failed(message) = status {
                outcome.status = RepetitionStatus::Failed(naming.message(&group.name, message));
                break;
            }
        }
        drop(targets);
        if let Some((place, op)) = tree_op {
            let first: u32 = groups[..place].iter().map(|g| g.jobs).sum();
            let range = first as usize..(first + groups[place].jobs) as usize;
            let jobs = std::mem::take(&mut outcome.jobs);
            self.tree_done(op, jobs.get(range).unwrap_or_default(), ok);
            outcome.jobs = jobs;
        }
        let ok = matches!(outcome.status, RepetitionStatus::Ok);
        for (place, whole) in written_whole.into_iter().enumerate() {
            let workload = &drawn[place];
            let Some(set) = self.set_mut(place) else {
                continue;
            };
            if workload.op == Op::Write {
                set.laid_out = if whole {
                    Laid::No.laid(workload)
                } else {
                    Laid::No
                };
            } else if workload.directions().trims() || workload.op.writes() {
                // Overwrites of another shape of data leave the files mixed;
                // trims leave holes, which a later read must not take for data.
                set.laid_out = set.laid_out.overwritten(workload);
            }
            // The reread's "read just before" is one workload's read: other
            // groups beside it may have changed the files or the cache.
            if ok && groups.len() == 1 && matches!(workload.op, Op::Read | Op::Reread) {
                set.read_pass = ReadPass::of(workload);
            }
        }
        Ok(outcome)
    }

    /// Each group's jobs' files and regions (`None` for a group without files).
    fn targets(
        &self,
        groups: usize,
        drawn: &[Workload],
        layouts: &[Layout],
    ) -> Vec<Option<Vec<JobTarget<'_>>>> {
        (0..groups)
            .map(|place| {
                self.set(place)
                    .map(|set| job_targets(set, &drawn[place], layouts[place]))
            })
            .collect()
    }
}

/// Whether a point's messages name the group they are about
/// ([`named`]): a point of one workload has no group to name.
#[derive(Clone, Copy)]
struct Naming(bool);

impl Naming {
    /// `message`, with the group named first when groups are named.
    fn message(self, group: &str, message: String) -> String {
        match self.0 {
            true => format!("group {group}: {message}"),
            false => message,
        }
    }

    /// `error`, with the group named first when groups are named.
    fn name(self, group: &str, error: RunError) -> RunError {
        match error {
            RunError::Usage(usage) if self.0 => RunError::Usage(usage!("group {group}: {usage}")),
            RunError::Setup(message) => RunError::Setup(self.message(group, message)),
            other => other,
        }
    }
}

/// A point's repetitions as they are run, and when to stop: after a
/// repetition that did not end well, or under `--until-ci` once the
/// measured throughputs are enough for the interval asked.
pub(super) struct Repetitions<'a> {
    /// Those run so far, warm-ups first.
    pub(super) done: Vec<RepetitionOutcome>,
    workload: &'a Workload,
    enough: EnoughRule,
    throughputs: Vec<f64>,
}

impl<'a> Repetitions<'a> {
    /// None yet of `workload`'s (for a point of groups, its first group's,
    /// whose repetition settings every group shares).
    pub(super) fn new(workload: &'a Workload, enough: EnoughRule) -> Self {
        Repetitions {
            done: Vec::new(),
            workload,
            enough,
            throughputs: Vec::new(),
        }
    }

    /// How many may run: the warm-ups and the measured repetitions, at
    /// most `--max-repeat` of them under `--until-ci`.
    pub(super) fn most(&self) -> u32 {
        let workload = self.workload;
        let measured = match workload.until_ci {
            Some(_) => workload
                .max_repeat
                .unwrap_or(workload.repeat)
                .max(workload.repeat),
            None => workload.repeat,
        };
        workload.warmup + measured
    }

    /// Keeps `repetition` (its histograms as their buckets until the point
    /// is recorded) and says whether to stop.
    pub(super) fn add(&mut self, mut repetition: RepetitionOutcome) -> bool {
        for job in &mut repetition.jobs {
            job.compact();
        }
        let mut stop = !matches!(repetition.status, RepetitionStatus::Ok);
        if !repetition.warmup {
            self.throughputs.extend(repetition.throughput());
        }
        self.done.push(repetition);
        if let Some(target) = self.workload.until_ci {
            stop |= self.throughputs.len() >= self.workload.repeat as usize
                && (self.enough)(&self.throughputs, target);
        }
        stop
    }

    /// The point measured (without groups): its repetitions, or the signal
    /// that came before any (`signal`, when one came).
    pub(super) fn outcome(
        self,
        signal: Option<i32>,
        label: &str,
        target: TargetInfo,
    ) -> Result<PointOutcome, RunError> {
        if let (Some(signal), true) = (signal, self.done.is_empty()) {
            return Err(RunError::Interrupted(signal));
        }
        Ok(PointOutcome {
            label: label.to_string(),
            workload: self.workload.clone(),
            target,
            repetitions: self.done,
            groups: Vec::new(),
        })
    }
}
