//! Measuring one point (`Session::run_point`): its repetitions in order, each with its files renewed or laid out, its cache treated and checked, its jobs run with the sampler beside them, and its outcome kept — until the repetitions asked for are done, the interval is tight enough, or a signal ends it.

use super::cache::Residency;
use super::files::{job_targets, renew_files};
use super::target::TargetKind;
use super::{
    EnoughRule, Laid, Layout, PointOutcome, ReadPass, RepetitionOutcome, RepetitionStatus,
    RunError, Session, TargetInfo, together, treat_cache, verify_targets,
};
use super::{jobs, live, peers, prepare, verify};
use crate::plan::{CacheMode, Op, Workload};

impl Session {
    /// Measures one point: prepares files, then runs warm-ups and repetitions.
    ///
    /// In a distributed run every rank calls this with the same workload; the
    /// collective steps (agreement after each phase of preparation, the
    /// common start, the exchange and the decision after each repetition)
    /// are taken on every path, failures included, so no rank waits forever.
    pub fn run_point(
        &mut self,
        label: &str,
        workload: &Workload,
    ) -> Result<PointOutcome, RunError> {
        workload.validate()?;
        // A point of groups' files are not this point's.
        self.release_group_files();
        let filesystem = match &self.files {
            Some(set) if set.given && set.files[0].kind() == TargetKind::BlockDevice => {
                "block device".to_string()
            }
            _ => self.dir.filesystem(),
        };
        let mut target = TargetInfo::before(self.dir.path(), filesystem, workload);
        let engine_ready = workload.engine.available().map_err(RunError::Setup);
        self.together(engine_ready)?;
        if workload.items.is_some() {
            if self.files.as_ref().is_some_and(|set| set.given) {
                return Err(crate::usage!(
                    "--items makes a tree in --dir; it cannot go with --file or a LUN"
                )
                .into());
            }
            self.release_data_files();
            target.open_flags = None;
            self.prepare_tree(workload, &mut target)?;
        } else if workload.uses_files() {
            // A tree kept from the points before is not this point's.
            self.release_tree();
            self.prepare_files(workload, &mut target)?;
        }
        let mut repetitions = Repetitions::new(workload, self.enough);
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
                    index < workload.warmup,
                    error.to_string(),
                ));
                break;
            }
            let repetition = match self.run_repetition(workload, &target, index) {
                Ok(repetition) => peers.gather(repetition),
                Err(error) if peers.alone() => return Err(error),
                // The other ranks are at the common start: meet them there.
                Err(error) => peers.gather(RepetitionOutcome::failed_early(
                    index,
                    index < workload.warmup,
                    error.to_string(),
                )),
            };
            let stop = repetitions.add(repetition);
            // Rank 0 holds every rank's throughput; its word is the rule.
            if peers.decide(stop) {
                break;
            }
        }
        repetitions.outcome(self.interrupt.signal(), label, target)
    }

    /// What now lives on a given device or LUN this run was allowed to
    /// overwrite, named; `None` when nothing does, or nothing is written.
    pub(super) fn found_in_use(&self) -> Option<String> {
        let set = self.files.as_ref().filter(|set| set.given)?;
        set.files.iter().find_map(|file| file.found_in_use())
    }

    /// In a distributed run, every rank's `local` result (see [`Peers::agree`]);
    /// alone, `local` itself.
    pub(super) fn together<T>(&self, local: Result<T, RunError>) -> Result<T, RunError> {
        together(self.peers.as_ref(), local)
    }

    /// Where this rank's jobs do their I/O for `workload`.
    pub(super) fn layout(&self, workload: &Workload) -> Layout {
        let peers = &self.peers;
        let shift = peers.spread().reorder_shift;
        Layout {
            first_job: self.job_offset + peers.rank() * workload.jobs,
            reordered_first_job: (shift > 0 && !workload.op.writes())
                .then(|| (peers.rank() + shift) % peers.size() * workload.jobs),
        }
    }

    /// Whether all ranks use one file.
    pub(super) fn shared(&self) -> bool {
        self.peers.spread().shared_file
    }

    pub(super) fn run_repetition(
        &mut self,
        workload: &Workload,
        target: &TargetInfo,
        index: u32,
    ) -> Result<RepetitionOutcome, RunError> {
        if workload.items.is_some() {
            return self.tree_repetition(workload, index);
        }
        let warmup = index < workload.warmup;
        live::set_repetition(u64::from(index) + 1);
        live::set_phase(live::Phase::Preparing);
        // This repetition's own draws; the files, their layout and the
        // checks stay the workload's.
        let drawn = Workload {
            seed: workload.draw_seed(index),
            ..workload.clone()
        };
        let interrupt = self.interrupt.clone();
        let peers = self.peers.clone();
        let peers = peers.as_ref();
        let layout = self.layout(workload);
        // A mix that verifies starts every repetition from a freshly sealed
        // layout: the check afterwards tells this repetition's writes from
        // the layout's blocks, and each repetition draws other blocks.
        if index > 0 && self.files.is_some() && prepare::Fill::seals(workload) {
            let sealed = self.lay_out(workload, layout);
            self.together(sealed)?;
        }
        let watch = self.sample.then_some(&self.watch);
        let mut outcome = RepetitionOutcome::failed_early(index, warmup, String::new());
        outcome.status = RepetitionStatus::Ok;
        outcome.draw_seed = Some(drawn.seed);
        let Some(set) = self.files.as_mut() else {
            let run = jobs::run_jobs(
                jobs::Pass {
                    run_id: self.dir.run_id(),
                    workload: &drawn,
                    interrupt: &interrupt,
                    timed: true,
                    write_back: false,
                },
                jobs::Work::Files(None),
                target,
                watch,
                peers,
            );
            outcome.status = run.status();
            (outcome.jobs, outcome.samples, outcome.steady_at) =
                (run.outcomes, run.samples, run.steady_at);
            return Ok(outcome);
        };
        if workload.op == Op::Write && !set.given {
            renew_files(self.dir.as_ref(), set, workload, layout, peers)?;
        }
        // IOzone's reread is the read right after a read: when the last
        // thing done to these files was that read, made the same way, and
        // the cache is left as it was, it is not read again first.
        let read_just_before = matches!(workload.cache, CacheMode::Keep | CacheMode::Clean)
            && set.read_pass.is_some()
            && set.read_pass == ReadPass::of(workload);
        set.read_pass = None;
        let targets = job_targets(set, workload, layout);
        if let Err(message) = treat_cache(&targets, workload, &interrupt) {
            // Warming reads the whole file and stops early on a signal.
            outcome.status = if interrupt.is_set() {
                RepetitionStatus::Interrupted
            } else {
                RepetitionStatus::Failed(message)
            };
        }
        if workload.op == Op::Reread
            && !read_just_before
            && matches!(outcome.status, RepetitionStatus::Ok)
        {
            // The read whose cache the timed reread inherits: same engine and pattern, one pass.
            let first_read = Workload {
                runtime_s: None,
                ramp_s: 0.0,
                ..drawn.clone()
            };
            outcome.status = jobs::run_jobs(
                jobs::Pass {
                    run_id: self.dir.run_id(),
                    workload: &first_read,
                    interrupt: &interrupt,
                    timed: false,
                    write_back: false,
                },
                jobs::Work::Files(Some(&targets)),
                target,
                None,
                // The untimed read is each rank's own: no common start.
                &peers::Alone,
            )
            .status();
        }
        if !matches!(outcome.status, RepetitionStatus::Ok) {
            return Ok(outcome);
        }
        let mut total = Some(Residency::default());
        for job in &targets {
            let counted = job.file.residency(job.base, workload.size).map_err(|e| {
                RunError::Setup(format!("mincore {}: {e}", job.file.path().display()))
            })?;
            // One target whose cache cannot be seen leaves the total unknown.
            total = total.zip(counted).map(|(total, counted)| total + counted);
        }
        outcome.residency = total;
        let run = jobs::run_jobs(
            jobs::Pass {
                run_id: self.dir.run_id(),
                workload: &drawn,
                interrupt: &interrupt,
                timed: true,
                write_back: self.count_write_back,
            },
            jobs::Work::Files(Some(&targets)),
            target,
            watch,
            peers,
        );
        outcome.status = run.status();
        live::set_phase(live::Phase::Checking);
        (outcome.jobs, outcome.samples, outcome.steady_at) =
            (run.outcomes, run.samples, run.steady_at);
        outcome.write_back_ns = run.write_back_ns;
        if workload.verify && matches!(outcome.status, RepetitionStatus::Ok) {
            let alignment = target.direct_alignment.map_or(4096, |a| a.memory as usize);
            // Each local job's written blocks, in the order of its target.
            let written: Vec<_> = outcome
                .jobs
                .iter_mut()
                .map(|job| job.written.take())
                .collect();
            (outcome.status, outcome.verified) = verify_targets(
                &targets,
                (&written, verify::run_tag(self.dir.run_id())),
                workload,
                alignment,
            );
        }
        if workload.op == Op::Write {
            // A time-based write of a new file may stop before its end: only
            // a file written to its full length is laid out.
            let written = matches!(outcome.status, RepetitionStatus::Ok)
                && workload.pattern.covers_every_block()
                && targets.iter().all(|job| {
                    job.file
                        .length()
                        .is_ok_and(|len| len >= job.base + workload.size)
                });
            set.laid_out = if written {
                Laid::With(workload.data)
            } else {
                Laid::No
            };
        } else if workload.directions().trims()
            || (workload.op.writes() && !set.laid_out.holds(workload.data))
        {
            // Overwrites of another shape of data leave the files mixed;
            // trims leave holes, which a later read must not take for data.
            set.laid_out = Laid::No;
        }
        if matches!(workload.op, Op::Read | Op::Reread)
            && matches!(outcome.status, RepetitionStatus::Ok)
        {
            set.read_pass = ReadPass::of(workload);
        }
        Ok(outcome)
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
