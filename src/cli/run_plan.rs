//! `run`'s arguments turned into a validated plan: the workload (its size from `--file`'s length), and the points (one workload, `--ops` phases, or groups) placed on the host or a guest.

use super::{RunArgs, groups};
use crate::plan::sweep::Param;
use crate::plan::{PlannedPoint, RunPlan, UsageError, Workload};
use crate::usage;
use std::path::PathBuf;

impl RunArgs {
    /// The workload these arguments describe, validated; `file_len` is the
    /// length of `--file`, which is the default size when one is given.
    pub fn workload(&self, file_len: Option<u64>) -> Result<Workload, UsageError> {
        let mut workload = crate::plan::base_workload(self.target.as_deref());
        self.params.apply_single(&mut workload)?;
        if let (None, Some(_), true) = (
            self.params.get(Param::Size),
            file_len,
            workload.offset_increment > 0,
        ) {
            return Err(usage!(
                "--offset-increment {} splits --file into regions one after another: give each job's --size",
                workload.offset_increment
            ));
        }
        if let (None, Some(len)) = (self.params.get(Param::Size), file_len) {
            // The region from --offset to the end, in whole blocks.
            let region = len.saturating_sub(workload.offset);
            if region < workload.bs {
                let from = match workload.offset {
                    0 => String::new(),
                    offset => format!(" from --offset {offset}"),
                };
                return Err(usage!(
                    "--file holds {len} bytes{from}, less than one --bs {} block",
                    workload.bs
                ));
            }
            workload.size = region - region % workload.bs;
        }
        crate::plan::combine::check_queued(&workload, |param| {
            self.params.get(param).map(str::to_string)
        })
        .map_err(|why| usage!("{why}"))?;
        self.repetitions.policy().apply(&mut workload);
        workload.interval_s = self.interval.as_secs_f64();
        workload.steady = self.steady;
        workload.latency_target = self.latency_target;
        workload.priority = self.priority.clone();
        workload.verify = self.verify;
        workload.log_ios = self.log_ios;
        workload.verify_backlog = self.verify_backlog;
        workload.validate()?;
        Ok(workload)
    }

    /// The plan these arguments describe (`file_len` as for [`RunArgs::workload`]).
    pub fn plan(&self, file_len: Option<u64>) -> Result<RunPlan, UsageError> {
        let workload = self.workload(file_len)?;
        let dir = match &self.file {
            Some(file) => given_dir(file),
            None => self.dir.clone(),
        };
        if let Some(label) = &self.label {
            crate::plan::check_label(label)?;
        }
        let mut ops = self.ops.clone();
        ops.sort_by_key(|op| op.sequence_rank());
        ops.dedup();
        let planned = if !self.groups.is_empty() {
            if !ops.is_empty() {
                crate::plan::combine::check_phases(&workload, true)?;
            }
            let groups = groups::groups(&workload, &self.groups)?;
            vec![PlannedPoint {
                label: self
                    .label
                    .clone()
                    .unwrap_or_else(|| crate::plan::group::describe_groups(&groups)),
                round: None,
                groups,
                file: None,
            }]
        } else if ops.is_empty() {
            vec![PlannedPoint::alone(
                self.label.clone().unwrap_or_else(|| workload.describe()),
                workload,
            )]
        } else {
            crate::plan::combine::check_phases(&workload, false)?;
            let mut planned = Vec::new();
            for op in ops {
                let phase = Workload {
                    op,
                    fsync_end: workload.fsync_end && op.writes(),
                    ..workload.clone()
                };
                phase.validate()?;
                let described = phase.describe();
                planned.push(PlannedPoint::alone(
                    match &self.label {
                        Some(label) => format!("{label}: {described}"),
                        None => described,
                    },
                    phase,
                ));
            }
            planned
        };
        self.plan_points(dir, planned)
    }

    /// The plan of `planned` in `dir`, from the command line or a job
    /// file alike: the points placed on the host or a guest, with the
    /// output options (what they combine with their site is checked once
    /// the site is known: `plan::combine::check_point`).
    pub fn plan_points(
        &self,
        dir: PathBuf,
        planned: Vec<PlannedPoint>,
    ) -> Result<RunPlan, UsageError> {
        let (points, guests) = self
            .place
            .arrange(planned, self.params.get(Param::Machine).is_some())?;
        Ok(RunPlan {
            dir,
            points,
            guests,
            output: self.out.output.clone(),
            json: self.out.json,
            detail: self.out.detail,
            report: false,
            strict: self.out.strict,
            progress: self.out.progress,
            notes: Vec::new(),
        })
    }
}

/// The directory of a given file, which the session opens: its parent, or
/// the current directory for a bare name.
pub fn given_dir(file: &std::path::Path) -> PathBuf {
    match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
