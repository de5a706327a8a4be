//! The files of a point: creating them (one per job, or the shared file),
//! checking O_DIRECT on them, laying them out, renewing them for each
//! repetition of a write, and where each job's region is.

use super::prepare::{DirectCapability, Fill};
use crate::plan::{Op, Workload};
use crate::run::peers::Peers;
use crate::run::target::space::Space;
use crate::run::target::{Target, TargetKind};
use crate::run::{FileSet, JobTarget, Laid, Layout, RunError, Session, TargetInfo, together};
use crate::usage;

/// The number the first file of the group in place `group` is named by:
/// each group has a range of 2^24 numbers (its jobs on every rank: 4096
/// jobs on as many ranks), so a set kept from the point before never holds
/// a name another group's new set needs.
pub(in crate::run) fn first_job(group: usize) -> u32 {
    const _: () = assert!(crate::plan::group::MAX_GROUPS as u64 * (1 << 24) <= u32::MAX as u64);
    (group as u32) << 24
}

impl Session {
    /// Makes (or keeps from the point before) the files of the group in
    /// place `group`, or checks the given target for it; checks O_DIRECT and
    /// trims on them, and lays them out when its op reads existing data.
    pub(in crate::run) fn prepare_files(
        &mut self,
        group: usize,
        workload: &Workload,
        target: &mut TargetInfo,
    ) -> Result<(), RunError> {
        if let Some(set) = self.given.as_ref() {
            let given = given_flag(set.files[0].as_ref());
            // A LUN or a block device is written in place, as dd writes a
            // partition: its region is the "new file" (written only with
            // consent, which opening it for writing already checked).
            let in_place = matches!(
                set.files[0].kind(),
                TargetKind::Lun | TargetKind::BlockDevice
            );
            if workload.op == Op::Write && !in_place && !set.made {
                return Err(usage!(
                    "{given} is one existing file: --op write creates a new one; use --op rewrite"
                )
                .into());
            }
            let end = workload.region_end();
            if end > set.size {
                let region = match (workload.offset, workload.offset_increment) {
                    (0, 0) => format!("--size {}", workload.size),
                    (offset, 0) => format!("--offset {offset} with --size {}", workload.size),
                    (offset, step) => format!(
                        "--offset {offset} with --offset-increment {step} for {} jobs of --size {}",
                        workload.jobs, workload.size
                    ),
                };
                return Err(
                    usage!("{region} ends past the end of {given} ({} bytes)", set.size).into(),
                );
            }
            if let Some(unit) = set.files[0].io_unit() {
                let flag = [
                    ("--bs", workload.grid()),
                    ("--size", workload.size),
                    ("--offset", workload.offset),
                    ("--offset-increment", workload.offset_increment),
                ]
                .into_iter()
                .find(|(_, value)| value % unit != 0);
                if let Some((flag, value)) = flag {
                    return Err(usage!(
                        "{flag} {value} is not a whole number of the LUN's {unit}-byte blocks ({given})"
                    )
                    .into());
                }
            }
            target.file_given = true;
        }
        let shared = self.shared();
        let wanted_files = if shared { 1 } else { workload.jobs as usize };
        let reusable = self.set(group).is_some_and(|set| {
            set.given || (set.size == workload.size && set.files.len() == wanted_files)
        });
        // Ranks agree, so they all create (or all keep) their files together.
        let reusable = !self.peers.any(!reusable);
        let layout = self.layout(group, workload);
        if !reusable {
            self.release_made(group);
            let created = self.create_files(group, workload, layout, shared);
            self.together(created)?;
            if shared {
                // Rank 0 created the file above; the others open it now.
                let opened = self.open_shared(group);
                self.together(opened)?;
            }
        }
        let checked = self
            .check_direct(group, workload, target)
            .and_then(|()| self.check_trims(group, workload, target));
        let laid_out = checked.and_then(|()| self.lay_out(group, workload, layout));
        self.together(laid_out)?;
        if layout.reordered_first_job.is_some() && !shared {
            // After every rank laid out: the files this rank reads.
            let opened = self.open_others(group, workload, layout);
            self.together(opened)?;
            let set = self.set(group).expect("files were prepared");
            target.files = set.others.iter().map(|f| f.path().to_path_buf()).collect();
        }
        Ok(())
    }

    /// Creates this rank's files: one per job, or the shared file on rank 0.
    fn create_files(
        &mut self,
        group: usize,
        workload: &Workload,
        layout: Layout,
        shared: bool,
    ) -> Result<(), RunError> {
        // Each rank checks room for its own share (its files, or its regions
        // of the shared file); ranks on one file system share the free space.
        self.check_free_space(workload.size, workload.jobs)?;
        let first = layout.numbers + layout.first_job;
        let numbers: Vec<u32> = match (shared, layout.first_job) {
            (true, 0) => vec![layout.numbers],
            (true, _) => Vec::new(),
            (false, _) => (first..first + workload.jobs).collect(),
        };
        let mut files = Vec::new();
        for job in numbers {
            match self.dir.create(job) {
                Ok(file) => files.push(file),
                Err(error) => {
                    files.into_iter().for_each(|f| f.release(false));
                    return Err(RunError::Setup(error));
                }
            }
        }
        if self.made.len() <= group {
            self.made.resize_with(group + 1, || None);
        }
        self.made[group] = Some(FileSet {
            size: workload.size,
            files,
            laid_out: Laid::No,
            fresh: true,
            given: false,
            made: false,
            shared,
            others: Vec::new(),
            read_pass: None,
        });
        Ok(())
    }

    /// On ranks other than 0: opens the shared file rank 0 created.
    fn open_shared(&mut self, group: usize) -> Result<(), RunError> {
        let number = first_job(group);
        let file = match self.set(group) {
            Some(set) if set.files.is_empty() => {
                self.dir.open_peer(number, true).map_err(RunError::Setup)?
            }
            _ => return Ok(()),
        };
        self.set_mut(group)
            .expect("files were just prepared")
            .files
            .push(file);
        Ok(())
    }

    /// Under `--reorder`: opens the files of the rank whose data this one reads.
    fn open_others(
        &mut self,
        group: usize,
        workload: &Workload,
        layout: Layout,
    ) -> Result<(), RunError> {
        let first = layout
            .reordered_first_job
            .expect("only called when reordering");
        let mut others = Vec::new();
        for job in first..first + workload.jobs {
            let number = layout.numbers + job;
            others.push(self.dir.open_peer(number, false).map_err(RunError::Setup)?);
        }
        self.set_mut(group).expect("files were prepared").others = others;
        Ok(())
    }

    /// Checks O_DIRECT on the files and notes the alignment in `target`.
    fn check_direct(
        &mut self,
        group: usize,
        workload: &Workload,
        target: &mut TargetInfo,
    ) -> Result<(), RunError> {
        let set = self.set(group).expect("files were just prepared");
        target.files = set.files.iter().map(|f| f.path().to_path_buf()).collect();
        if !workload.direct {
            return Ok(());
        }
        match set.files[0].direct_capability() {
            DirectCapability::Refused(errno) => {
                let filesystem = &target.filesystem;
                self.discard_files();
                Err(usage!(
                    "the {filesystem} file system at {} refuses O_DIRECT ({}); run without --direct",
                    target.dir.display(),
                    crate::run::io::spec::errno_name(errno)
                )
                .into())
            }
            DirectCapability::AcceptedInMemory => {
                target.direct_in_memory = true;
                Ok(())
            }
            DirectCapability::Supported(alignment) => {
                let align = u64::from(alignment.offset);
                if workload.grid() % align != 0 {
                    self.discard_files();
                    return Err(usage!(
                        "--bs {} is not a multiple of the O_DIRECT alignment of {} ({} bytes, from {})",
                        workload.grid(),
                        target.dir.display(),
                        align,
                        alignment.source
                    )
                    .into());
                }
                target.direct_alignment = Some(alignment);
                Ok(())
            }
        }
    }

    /// Refuses trims the target cannot take (a file system that cannot
    /// punch holes, a device that cannot discard) before any I/O, rather
    /// than failing the first timed trim.
    fn check_trims(
        &mut self,
        group: usize,
        workload: &Workload,
        target: &TargetInfo,
    ) -> Result<(), RunError> {
        if !workload.directions().trims() {
            return Ok(());
        }
        let set = self.set(group).expect("files were just prepared");
        let Some(why) = set.files[0].why_trims_fail() else {
            return Ok(());
        };
        let (path, filesystem) = (
            set.files[0].path().display().to_string(),
            &target.filesystem,
        );
        self.discard_files();
        Err(usage!("trims of {path} ({filesystem}): {why}; run without trims").into())
    }

    /// Writes the files (or this rank's regions of the shared file) when the
    /// op reads existing data.
    pub(in crate::run) fn lay_out(
        &mut self,
        group: usize,
        workload: &Workload,
        layout: Layout,
    ) -> Result<(), RunError> {
        let interrupt = self.interrupt.clone();
        let set = self.set_mut(group).expect("files were just prepared");
        // A read that verifies checks what an earlier --verify write left:
        // laying the files out would replace it.
        let verifying_read = workload.verify && !workload.op.writes();
        if Fill::seals(workload) && matches!(set.laid_out, Laid::AsGiven) {
            let flag = given_flag(set.files[0].as_ref());
            return Err(usage!(
                "--verify with a mix on {flag}: the check needs a layout iolab seals first, and \
                 the data there is not iolab's to replace; verify a mix on files iolab makes (--dir)"
            )
            .into());
        }
        // A mix that verifies starts from a sealed layout every repetition:
        // the check afterwards tells its writes from the layout's blocks.
        let laid_out = set.laid_out.holds(workload) && !Fill::seals(workload);
        if !workload.op.needs_layout() || laid_out || verifying_read {
            return Ok(());
        }
        let own = Layout {
            reordered_first_job: None,
            ..layout
        };
        crate::run::io::live::set_phase(crate::run::io::live::Phase::LayingOut);
        let mut targets = job_targets(set, workload, own);
        if set.given {
            // Every job of the group shares its region: laid out once.
            targets.truncate(1);
        }
        for job in targets {
            let (file, base) = (job.file, job.base);
            file.lay_out(base, workload.size, Fill::of(workload), interrupt.flag())
                .map_err(|error| match interrupt.signal() {
                    Some(signal) => RunError::Interrupted(signal),
                    None => {
                        RunError::Setup(format!("laying out {}: {error}", file.path().display()))
                    }
                })?;
        }
        set.laid_out = set.laid_out.laid(workload);
        set.fresh = false;
        set.read_pass = None;
        Ok(())
    }
}

/// The flag that named a given target, for messages: `--file PATH` or `--target URL`.
pub(in crate::run) fn given_flag(target: &dyn Target) -> String {
    match target.kind() {
        TargetKind::Lun => format!("--target {}", target.path().display()),
        _ => format!("--file {}", target.path().display()),
    }
}

/// Where each local job does its I/O: its own file, its region of the shared
/// file, or under `--reorder` another rank's file or region.
pub(in crate::run) fn job_targets<'a>(
    set: &'a FileSet,
    workload: &Workload,
    layout: Layout,
) -> Vec<JobTarget<'a>> {
    let first = layout.reordered_first_job.unwrap_or(layout.first_job);
    (0..workload.jobs as usize)
        .map(|job| match (set.shared, layout.reordered_first_job) {
            // A file or device the user gave, on one host: every job of a
            // group over the group's region (over MPI the ranks share it
            // by regions, below).
            (false, _) if set.given => JobTarget {
                file: set.files[0].as_ref(),
                base: workload.job_offset(job as u32),
            },
            (true, _) => JobTarget {
                file: set.files[0].as_ref(),
                base: (u64::from(first) + job as u64) * set.size,
            },
            (false, Some(_)) => JobTarget {
                file: set.others[job].as_ref(),
                base: 0,
            },
            (false, None) => JobTarget {
                file: set.files[job].as_ref(),
                base: 0,
            },
        })
        .collect()
}

/// Gives a write op new, empty files before a repetition: `write` measures
/// writing a new file. The shared file is made anew by rank 0 and opened
/// again by the others once it exists.
pub(in crate::run) fn renew_files(
    dir: &dyn Space,
    set: &mut FileSet,
    workload: &Workload,
    layout: Layout,
    peers: &dyn Peers,
) -> Result<(), RunError> {
    let follower = set.shared && layout.first_job != 0;
    let reopen = follower && !set.fresh;
    let renewed = if follower {
        set.laid_out = Laid::No;
        set.fresh = false;
        Ok(())
    } else {
        let first = layout.numbers + layout.first_job;
        prepare_new_files(dir, set, workload, first).map_err(RunError::Setup)
    };
    together(peers, renewed)?;
    if set.shared {
        let reopened = if reopen {
            dir.open_peer(layout.numbers, true)
                .map(|file| set.files = vec![file])
                .map_err(RunError::Setup)
        } else {
            Ok(())
        };
        together(peers, reopened)?;
    }
    Ok(())
}

/// Replaces the files of a write op with new, empty ones: `write` measures
/// writing a new file, so every repetition after the first gets a fresh one.
fn prepare_new_files(
    dir: &dyn Space,
    set: &mut FileSet,
    workload: &Workload,
    first_job: u32,
) -> Result<(), String> {
    if !set.fresh {
        let jobs = set.files.len() as u32;
        for file in std::mem::take(&mut set.files) {
            file.release(false);
        }
        for job in first_job..first_job + jobs {
            set.files.push(dir.create(job)?);
        }
    }
    if workload.engine.capabilities().maps_file {
        // A mapping cannot grow a file; give it its length (sparse), untimed.
        for file in &set.files {
            file.set_length(workload.size)
                .map_err(|e| format!("ftruncate {}: {e}", file.path().display()))?;
        }
    }
    set.laid_out = Laid::No;
    set.fresh = false;
    Ok(())
}
