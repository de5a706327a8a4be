//! Measuring a point of job groups (`Session::run_groups`): each group's files made and laid out in the session's space under job numbers of its own, then every repetition's jobs of all groups released together on one clock with one sampler, their outcomes kept in group order.

use super::cache::Residency;
use super::files::{given_flag, job_targets, renew_files};
use super::{
    FileSet, JobTarget, Laid, Layout, PointOutcome, RepetitionOutcome, RepetitionStatus, RunError,
    Session, TargetInfo, treat_cache, verify_targets,
};
use super::{jobs, live, peers, verify};
use crate::plan::group::{Group, check_groups};
use crate::plan::tree::ItemOp;
use crate::plan::{Op, Workload};
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

/// A group's seed for repetition `index`: groups of the same workload draw
/// other offsets, sizes and data, as fio's jobs do.
fn group_draw_seed(workload: &Workload, group: usize, index: u32) -> u64 {
    workload.draw_seed(index) ^ (group as u64).wrapping_mul(0xD1B5_4A32_D192_ED03)
}

impl Session {
    /// Measures one point of `groups` (checked with [`check_groups`]): their
    /// files prepared one group after the other, then each repetition's
    /// jobs of every group run at once. The point's repetition policy is
    /// the first group's (all groups share it). A distributed run, a file
    /// given with `--file` and a LUN are refused: groups make their files.
    pub fn run_groups(&mut self, label: &str, groups: &[Group]) -> Result<PointOutcome, RunError> {
        check_groups(groups)?;
        if !self.peers.alone() {
            return Err(
                usage!("groups run on one machine; MPI runs one workload per point").into(),
            );
        }
        if let Some(set) = self.files.as_ref().filter(|set| set.given) {
            return Err(usage!(
                "groups make their files in --dir or on an NFS target; {} is one workload's",
                given_flag(set.files[0].as_ref())
            )
            .into());
        }
        for group in groups {
            group
                .workload
                .engine
                .available()
                .map_err(|e| RunError::Setup(format!("group {}: {e}", group.name)))?;
        }
        // A point of one workload's files are not a group's, nor its tree
        // unless a group works on a tree of the same shape.
        self.release_data_files();
        if !groups.iter().any(|group| group.workload.items.is_some()) {
            self.release_tree();
        }
        // Sets beyond this point's groups are released, not dropped: a
        // dropped set would leave its files behind.
        let keep = groups.len().min(self.group_files.len());
        for set in self.group_files.drain(keep..).flatten() {
            for file in set.files {
                file.release(self.keep);
            }
        }
        self.group_files.resize_with(groups.len(), || None);
        let mut outcomes = Vec::new();
        for (index, group) in groups.iter().enumerate() {
            let workload = &group.workload;
            // Each group's files are numbered in a range of its own, so a
            // set kept from the point before never holds a name another
            // group's new set needs.
            let offset = first_job(index);
            let mut target = TargetInfo::before(self.dir.path(), self.dir.filesystem(), workload);
            if workload.items.is_some() {
                if let Some(set) = self.group_files[index].take() {
                    for file in set.files {
                        file.release(self.keep);
                    }
                }
                target.open_flags = None;
                self.prepare_tree(workload, &mut target)
                    .map_err(|error| named(&group.name, error))?;
            } else if workload.uses_files() {
                self.in_group(index, offset, |session| {
                    session.prepare_files(workload, &mut target)
                })
                .map_err(|error| named(&group.name, error))?;
                let set = self.group_files[index].as_ref().expect("just prepared");
                target.files = set.files.iter().map(|f| f.path().to_path_buf()).collect();
            } else if let Some(set) = self.group_files[index].take() {
                for file in set.files {
                    file.release(self.keep);
                }
            }
            outcomes.push(GroupOutcome {
                name: group.name.clone(),
                workload: workload.clone(),
                target,
                jobs: workload.jobs,
            });
        }
        let lead = &groups[0].workload;
        let combined = TargetInfo {
            files: outcomes
                .iter()
                .flat_map(|g| g.target.files.iter().cloned())
                .collect(),
            open_flags: None,
            tree: outcomes.iter().find_map(|g| g.target.tree.clone()),
            ..outcomes[0].target.clone()
        };
        let mut repetitions = super::point::Repetitions::new(lead, self.enough);
        for index in 0..repetitions.most() {
            if self.interrupt.is_set() {
                break;
            }
            let repetition = self.groups_repetition(&outcomes, &combined, index)?;
            if repetitions.add(repetition) {
                break;
            }
        }
        let mut outcome = repetitions.outcome(self.interrupt.signal(), label, combined)?;
        outcome.groups = outcomes;
        Ok(outcome)
    }

    /// Runs `f` with group `index`'s file set as the session's, its jobs'
    /// files numbered from `offset` (its range, [`first_job`]), so the
    /// preparation a point of one workload goes through serves each group.
    fn in_group<R>(&mut self, index: usize, offset: u32, f: impl FnOnce(&mut Session) -> R) -> R {
        std::mem::swap(&mut self.files, &mut self.group_files[index]);
        self.job_offset = offset;
        let result = f(self);
        self.job_offset = 0;
        std::mem::swap(&mut self.files, &mut self.group_files[index]);
        result
    }

    /// One repetition of a point of groups: each group's files renewed
    /// (a write's) and cache treated, the untimed first read of a reread,
    /// then every group's jobs released together.
    fn groups_repetition(
        &mut self,
        groups: &[GroupOutcome],
        target: &TargetInfo,
        index: u32,
    ) -> Result<RepetitionOutcome, RunError> {
        let lead = &groups[0].workload;
        let warmup = index < lead.warmup;
        live::set_repetition(u64::from(index) + 1);
        live::set_phase(live::Phase::Preparing);
        let drawn: Vec<Workload> = groups
            .iter()
            .enumerate()
            .map(|(g, group)| Workload {
                seed: group_draw_seed(&group.workload, g, index),
                ..group.workload.clone()
            })
            .collect();
        let layouts: Vec<Layout> = (0..groups.len())
            .map(|index| Layout {
                first_job: first_job(index),
                reordered_first_job: None,
            })
            .collect();
        let interrupt = self.interrupt.clone();
        let mut outcome = RepetitionOutcome::failed_early(index, warmup, String::new());
        outcome.status = RepetitionStatus::Ok;
        outcome.draw_seed = Some(drawn[0].seed);
        for (g, group) in groups.iter().enumerate() {
            if let (Op::Write, Some(set)) = (group.workload.op, self.group_files[g].as_mut()) {
                renew_files(
                    self.dir.as_ref(),
                    set,
                    &group.workload,
                    layouts[g],
                    &peers::Alone,
                )
                .map_err(|error| named(&group.name, error))?;
            }
        }
        let targets = group_targets(&self.group_files, &drawn, &layouts);
        let mut total = Some(Residency::default());
        for ((group, workload), targets) in groups.iter().zip(&drawn).zip(&targets) {
            let Some(targets) = targets else { continue };
            if let Err(message) = treat_cache(targets, workload, &interrupt) {
                outcome.status = if interrupt.is_set() {
                    RepetitionStatus::Interrupted
                } else {
                    RepetitionStatus::Failed(format!("group {}: {message}", group.name))
                };
                return Ok(outcome);
            }
            if workload.op == Op::Reread {
                // The read whose cache the timed reread inherits.
                let first_read = Workload {
                    runtime_s: None,
                    ramp_s: 0.0,
                    ..workload.clone()
                };
                let status = jobs::run_jobs(
                    jobs::Pass {
                        run_id: self.dir.run_id(),
                        workload: &first_read,
                        interrupt: &interrupt,
                        timed: false,
                        write_back: false,
                    },
                    jobs::Work::Files(Some(targets)),
                    target,
                    None,
                    &peers::Alone,
                )
                .status();
                if !matches!(status, RepetitionStatus::Ok) {
                    outcome.status = status;
                    return Ok(outcome);
                }
            }
            for job in targets {
                let counted = job.file.residency(job.base, workload.size).map_err(|e| {
                    RunError::Setup(format!("mincore {}: {e}", job.file.path().display()))
                })?;
                total = total.zip(counted).map(|(total, counted)| total + counted);
            }
        }
        outcome.residency = total;
        // The group on a tree (one at most): its items made as its op
        // needs and its cache treated, untimed, after the files' groups'.
        let tree_group = groups
            .iter()
            .position(|group| group.workload.items.is_some());
        let tree_op = match tree_group {
            Some(t) => Some((
                t,
                ItemOp::of(drawn[t].op).ok_or_else(|| {
                    RunError::Setup(format!(
                        "group {}: --op {} has no form on a tree's items",
                        groups[t].name,
                        drawn[t].op.name()
                    ))
                })?,
            )),
            None => None,
        };
        // The tree's preparation needs the session whole: the files'
        // targets are let go and taken again after it.
        let targets = match tree_op {
            Some((t, _)) => {
                drop(targets);
                if let Err(message) = self.tree_group_ready(&drawn[t]) {
                    self.release_tree();
                    outcome.status = if interrupt.is_set() {
                        RepetitionStatus::Interrupted
                    } else {
                        RepetitionStatus::Failed(format!("group {}: {message}", groups[t].name))
                    };
                    return Ok(outcome);
                }
                group_targets(&self.group_files, &drawn, &layouts)
            }
            None => targets,
        };
        let tree_counts = tree_op.map(|(_, op)| self.tree_counts(op));
        let run_id = self.dir.run_id();
        let crews: Vec<jobs::Crew<'_>> = drawn
            .iter()
            .zip(&targets)
            .enumerate()
            .map(|(g, (workload, targets))| jobs::Crew {
                pass: jobs::Pass {
                    run_id,
                    workload,
                    interrupt: &interrupt,
                    timed: true,
                    write_back: self.count_write_back,
                },
                work: match (tree_op, &tree_counts) {
                    (Some((t, op)), Some((counts, renamed))) if t == g => {
                        jobs::Work::Tree(self.tree_work(workload, op, (counts, *renamed), true))
                    }
                    _ => jobs::Work::Files(targets.as_deref()),
                },
            })
            .collect();
        let watch = self.sample.then_some(&self.watch);
        let run = jobs::run_crews(&crews, target, watch, &peers::Alone);
        outcome.status = run.status();
        live::set_phase(live::Phase::Checking);
        let ok = matches!(outcome.status, RepetitionStatus::Ok);
        // What each group's files hold now, decided while their targets are
        // at hand: a write to its full length lays them out, other writes
        // of another shape of data and trims leave them unusable for reads.
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
        drop(crews);
        (outcome.jobs, outcome.samples, outcome.steady_at) =
            (run.outcomes, run.samples, run.steady_at);
        outcome.write_back_ns = run.write_back_ns;
        // Each group that verifies checks its own files, untimed, from the
        // blocks its own jobs wrote.
        let mut first = 0;
        for (g, group) in groups.iter().enumerate() {
            let jobs = first..first + group.jobs as usize;
            first = jobs.end;
            let (true, true, Some(targets)) = (ok, drawn[g].verify, targets[g].as_ref()) else {
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
                &drawn[g],
                alignment,
            );
            outcome.verified.extend(verified);
            if let RepetitionStatus::Failed(message) = status {
                outcome.status =
                    RepetitionStatus::Failed(format!("group {}: {message}", group.name));
                break;
            }
        }
        drop(targets);
        if let Some((t, op)) = tree_op {
            let first: u32 = groups[..t].iter().map(|g| g.jobs).sum();
            let range = first as usize..(first + groups[t].jobs) as usize;
            let jobs = std::mem::take(&mut outcome.jobs);
            self.tree_group_done(op, jobs.get(range).unwrap_or_default(), ok);
            outcome.jobs = jobs;
        }
        for ((set, workload), whole) in self.group_files.iter_mut().zip(&drawn).zip(written_whole) {
            let Some(set) = set.as_mut() else { continue };
            set.read_pass = None;
            if workload.op == Op::Write {
                set.laid_out = if whole {
                    Laid::With(workload.data)
                } else {
                    Laid::No
                };
            } else if workload.directions().trims()
                || (workload.op.writes() && !set.laid_out.holds(workload.data))
            {
                set.laid_out = Laid::No;
            }
        }
        Ok(outcome)
    }

    /// Removes the files of a point of groups (or keeps them under `--keep`).
    pub(super) fn release_group_files(&mut self) {
        for set in self.group_files.drain(..).flatten() {
            for file in set.files {
                file.release(self.keep);
            }
        }
    }
}

/// Each group's jobs' files and regions (`None` for a group without files).
fn group_targets<'a>(
    sets: &'a [Option<FileSet>],
    drawn: &[Workload],
    layouts: &[Layout],
) -> Vec<Option<Vec<JobTarget<'a>>>> {
    sets.iter()
        .zip(drawn)
        .zip(layouts)
        .map(|((set, workload), layout)| {
            set.as_ref().map(|set| job_targets(set, workload, *layout))
        })
        .collect()
}

/// The number group `index`'s first file is named by: each group has a
/// range of [`MAX_GROUP_JOBS`](crate::plan::group::MAX_GROUP_JOBS) numbers.
fn first_job(index: usize) -> u32 {
    index as u32 * crate::plan::group::MAX_GROUP_JOBS
}

/// `error` with the group it happened in named first.
fn named(group: &str, error: RunError) -> RunError {
    match error {
        RunError::Usage(usage) => RunError::Usage(usage!("group {group}: {usage}")),
        RunError::Setup(message) => RunError::Setup(format!("group {group}: {message}")),
        other => other,
    }
}
