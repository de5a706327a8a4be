//! `iolab run`: one plan (points from the flags, or a fio job's translation) measured point by point; the `--file` or device it may be given checked before anything is created; `execute`, the plan's drive shared with `quick`.

use crate::app::distributed::Ranks;
use crate::app::driver;
use crate::app::error::{AppError, Ending, strict_ending};
use crate::app::network::{self, network_target, open_network_session};
use crate::app::output::{self, FioAnswer, check_output, expected_result_bytes};
use crate::app::session::{note_single_repetition, open_session};
use crate::cli::RunArgs;
use crate::gather::build;
use crate::import::jobfile::command_line::FioCommand;
use crate::input::describe_io;
use crate::plan::{RunPlan, Workload};
use crate::record::write::Replace;
use crate::run::Session;
use crate::run::signals::Interrupt;
use crate::usage;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `iolab run`.
pub fn run(args: &RunArgs, command: Vec<String>) -> Result<Ending, AppError> {
    run_job(args, None, command)
}

/// `iolab run`, or (with `fio`) the job file fio's command line stands for
/// run with `args`' defaults, answered as fio's `--output` options ask.
pub(crate) fn run_job(
    args: &RunArgs,
    fio: Option<(&FioCommand, &FioAnswer)>,
    command: Vec<String>,
) -> Result<Ending, AppError> {
    let ranks = Ranks::join(&args.distributed, &command)?;
    let mut target = None;
    // The files or devices the run works on: `--file`, or each phase's
    // `filename=` (several when a job file's phases name different ones).
    let mut files: Vec<GivenFile> = Vec::new();
    // A job file's network target (fio's `nfs_url=`, `filename=iscsi://…`).
    let mut job_target: Option<String> = None;
    // The logs in fio's format a job file asks for, written beside the result.
    let mut fio_logs = Vec::new();
    let planned = (|| -> Result<RunPlan, AppError> {
        let source = match (fio, &args.job_file) {
            (Some((fio, _)), _) => Some((
                PathBuf::from("fio"),
                crate::app::jobfile::read_fio_command(args, fio)?,
            )),
            (None, Some(path)) => Some((path.clone(), crate::app::jobfile::read(args, path)?)),
            (None, None) => None,
        };
        let job = match source {
            Some((path, job)) => {
                for named in &job.files {
                    if files.iter().all(|f| f.path != Path::new(&named.path)) {
                        files.push(GivenFile::probe(
                            PathBuf::from(&named.path),
                            named.named_at.clone(),
                            Some(&path),
                        )?);
                    }
                }
                job_target.clone_from(&job.target);
                Some((path, job))
            }
            None => {
                if let Some(file) = &args.file {
                    files.push(GivenFile::probe(file.clone(), None, None)?);
                }
                None
            }
        };
        let mut plan = match job {
            Some((path, job)) => {
                let (plan, placed) = crate::app::jobfile::plan(args, &path, job)?;
                fio_logs = placed;
                plan
            }
            None => args.plan(files.first().and_then(|f| f.length))?,
        };
        plan.report = !args.no_report;
        if ranks.speaks() {
            args.params
                .warnings()
                .iter()
                .for_each(|line| crate::say!("{line}"));
        }
        target = network_target(
            args.target.as_deref().or(job_target.as_deref()),
            files.first().map(|f| f.path.as_path()),
            &files
                .iter()
                .filter(|f| f.new)
                .map(|f| f.path.as_path())
                .collect::<Vec<_>>(),
            args.destroy_data.as_deref(),
            &plan.points,
            &ranks,
        )?;
        let consented = network::guest_mount_consent(&plan.guests, args.destroy_data.as_deref())?;
        if target.is_none() && !consented {
            check_device_use(args, &files, &mut plan)?;
        }
        ranks.check_points(&plan.points)?;
        crate::app::trace_point::check(&plan.points)?;
        if ranks.speaks() {
            check_output(plan.output.as_deref(), expected_result_bytes(&plan.points))?;
            if let Some(path) = &plan.output {
                crate::import::jobfile::logs::check_names(&fio_logs, path)
                    .map_err(|why| usage!("{why}"))?;
            }
        }
        Ok(plan)
    })();
    let plan = ranks.agreed(planned)?;
    if args.show_plan {
        let name = args
            .job_file
            .as_deref()
            .and_then(Path::file_stem)
            .map_or_else(|| "run".to_string(), |s| s.to_string_lossy().into_owned());
        let mut text = crate::app::jobfile::study_text(&plan, &name);
        if let Some(url) = args.target.as_deref().or(job_target.as_deref()) {
            // A study file names no target: the command line gives it.
            text = format!("# Its points work on {url}: iolab study FILE --target {url}\n{text}");
        } else if !files.is_empty() {
            // A study makes its own files in `dir`: it cannot name these.
            let names: Vec<String> = files.iter().map(|f| f.path.display().to_string()).collect();
            text = format!(
                "# Its points work on {}, which a study file cannot name: `iolab study` would make scratch files in dir instead; run it with `iolab run`\n{text}",
                names.join(" and ")
            );
        }
        crate::console::stdout(&text).map_err(anyhow::Error::from)?;
        return Ok(Ending::Success);
    }
    if let (true, true, Some(path)) = (ranks.speaks(), plan.report, &plan.output) {
        output::check_report_beside(path)?;
    }
    let interrupt = Interrupt::install().map_err(anyhow::Error::from)?;
    let opened = match &target {
        Some(remote) => open_network_session(
            remote.as_ref(),
            args.destroy_data.is_some(),
            &interrupt,
            &ranks,
        ),
        None => open_session(&plan.dir, !files.is_empty(), &interrupt, &ranks),
    };
    let mut session = ranks.agreed(opened.map_err(AppError::from))?;
    for given in &files {
        // Whether a point on this file writes (every point, for one file).
        let write = given.workloads(&plan).any(|workload| workload.op.writes());
        given.use_in(&mut session, write, &plan, (ranks.speaks(), args.keep))?;
        if files.len() > 1 {
            session.shelve_given(given.path.clone());
        }
    }
    if args.keep {
        session.keep_files();
    }
    if files.is_empty() {
        session.remove_dead_runs();
    }
    execute(
        &plan,
        &mut session,
        &interrupt,
        command,
        &ranks,
        (&fio_logs, fio.map(|(_, answer)| answer), args.log_ios),
    )
}

/// A file or device the user gives a run (`--file`, a phase's `filename=`),
/// as found before anything is made.
struct GivenFile {
    path: PathBuf,
    /// Where a job file names it, for messages about it; `None` for `--file`.
    named_at: Option<String>,
    device: Option<crate::run::target::device::BlockDevice>,
    /// `/dev/null` or `/dev/zero`: nothing stored, read and written freely.
    memory: Option<crate::run::target::memory::Memory>,
    /// A job file's `filename=` that names no file yet: iolab makes it, as
    /// fio does.
    new: bool,
    /// Its length, bytes (a device's capacity); `None` for a new file or a
    /// memory device.
    length: Option<u64>,
}

impl GivenFile {
    /// Looks at `path` (named in `job_file` when one names it): refuses what
    /// is neither a regular file, a block device, `/dev/null` nor `/dev/zero`,
    /// and a missing name in /dev, /proc or /sys.
    fn probe(
        path: PathBuf,
        named_at: Option<String>,
        job_file: Option<&Path>,
    ) -> Result<GivenFile, AppError> {
        let mut given = GivenFile {
            path,
            named_at,
            device: None,
            memory: None,
            new: false,
            length: None,
        };
        let path = &given.path;
        // A job file's file (its filename=, or --file beside it) is made when
        // missing, as fio makes it; a plain --file must exist.
        let from_job_file = job_file.is_some();
        if from_job_file
            && std::fs::symlink_metadata(path)
                .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            // A device name with a typo is not a file to make in /dev.
            if path.starts_with("/dev") || path.starts_with("/proc") || path.starts_with("/sys") {
                return Err(usage!(
                    "{}: filename={} does not exist (iolab makes a missing filename= only outside /dev, /proc and /sys)",
                    job_file.unwrap_or(Path::new("the job file")).display(),
                    path.display()
                )
                .into());
            }
            given.new = true;
            return Ok(given);
        }
        let shown = given.shown();
        let metadata =
            std::fs::metadata(path).map_err(|e| usage!("{shown}: {}", describe_io(&e)))?;
        given.device = crate::run::target::device::identify(path)
            .map_err(|e| usage!("{shown}: {}", describe_io(&e)))?;
        given.memory = crate::run::target::memory::memory_metadata(&metadata);
        if given.device.is_none() && given.memory.is_none() && !metadata.is_file() {
            let kind = rustix::fs::FileType::from_raw_mode(std::os::unix::fs::MetadataExt::mode(
                &metadata,
            ));
            return Err(usage!(
                "{shown} is {}, not a regular file, a block device, /dev/null or /dev/zero",
                crate::input::describe(kind)
            )
            .into());
        }
        if given.device.is_none() && given.memory.is_none() {
            // /proc and /sys hold the kernel's interfaces, not data.
            let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
            if let Some(tree) = crate::run::target::scratch::system_tree::system_tree(&canonical) {
                return Err(usage!(
                    "{shown} is in {tree}, the kernel's own tree: iolab measures files and block devices (and /dev/null, /dev/zero), not the kernel's interfaces"
                )
                .into());
            }
        }
        given.length = match (&given.device, given.memory) {
            (Some(device), _) => Some(device.size),
            (None, Some(_)) => None,
            (None, None) => Some(metadata.len()),
        };
        Ok(given)
    }

    /// The workloads of `plan`'s points on it: every point's when the plan
    /// works on one file.
    fn workloads<'a>(&'a self, plan: &'a RunPlan) -> impl Iterator<Item = &'a Workload> {
        plan.points
            .iter()
            .filter(|point| point.file.as_ref().is_none_or(|f| *f == self.path))
            .flat_map(|point| point.workloads())
    }

    /// How messages name it: where the job file names it, else `--file PATH`.
    fn shown(&self) -> String {
        self.named_at
            .clone()
            .unwrap_or_else(|| format!("--file {}", self.path.display()))
    }

    /// Makes `session` work on it; `write` when a point writes it. A file
    /// made for it is announced when this rank `speaks`, with whether it is
    /// kept (`--keep`).
    fn use_in(
        &self,
        session: &mut Session,
        write: bool,
        plan: &RunPlan,
        (speaks, keep): (bool, bool),
    ) -> Result<(), AppError> {
        let path = &self.path;
        let name = || {
            path.file_name()
                .ok_or_else(|| usage!("{} does not name a file", self.shown()))
        };
        match &self.device {
            Some(device) => session.use_device(device, write)?,
            None if self.memory.is_some() => session.use_memory_device(name()?)?,
            None if self.new => {
                let name = name()?
                    .to_str()
                    .ok_or_else(|| usage!("filename={} does not name a file", path.display()))?;
                // Long enough for every group's region on it.
                let length = self
                    .workloads(plan)
                    .map(Workload::region_end)
                    .max()
                    .unwrap_or(0);
                session.make_file(name, length)?;
                if speaks {
                    crate::note!(
                        "iolab: made {} for the job file's filename= (fio makes it too); {}",
                        path.display(),
                        if keep {
                            "kept (--keep)"
                        } else {
                            "removed at the end (--keep keeps it)"
                        }
                    );
                }
            }
            None => session.use_file(name()?, write)?,
        }
        Ok(())
    }
}

/// Checks `--destroy-data` against the files the run is given: a write
/// test on a block device needs it and a device free to overwrite; anything
/// else must not give it. A device is then used through its `/dev/NAME` node.
fn check_device_use(
    args: &RunArgs,
    files: &[GivenFile],
    plan: &mut RunPlan,
) -> Result<(), AppError> {
    if let (Some(given), false) = (&args.destroy_data, files.iter().any(|f| f.device.is_some())) {
        let file = files
            .first()
            .map_or_else(String::new, |f| f.path.display().to_string());
        return Err(usage!(
            "--destroy-data {} is for a block device given with --file or an iSCSI LUN given with --target; {file} is not one",
            given.display()
        )
        .into());
    }
    for given in files {
        if given.memory == Some(crate::run::target::memory::Memory::Null) {
            let reads = given.workloads(plan).any(|workload| workload.op.reads());
            if reads {
                return Err(usage!(
                    "{}: /dev/null has nothing to read (every read ends at once); read /dev/zero",
                    given.shown()
                )
                .into());
            }
        }
        let Some(device) = &given.device else {
            continue;
        };
        // The op a refusal names: the first that writes it, else the first.
        let ops: Vec<crate::plan::Op> = given.workloads(plan).map(|w| w.op).collect();
        let op = ops
            .iter()
            .copied()
            .find(|op| op.writes())
            .unwrap_or(ops.first().copied().unwrap_or(plan.points[0].workload().op));
        let shown = given.shown();
        match &args.destroy_data {
            confirmation if op.writes() => {
                crate::run::target::device::check_writable(
                    device,
                    confirmation.as_deref(),
                    &shown,
                )?;
            }
            Some(_) if files.len() == 1 => {
                return Err(usage!(
                    "--destroy-data is for write tests; --op {} only reads {}",
                    op.name(),
                    device.path.display()
                )
                .into());
            }
            _ => {}
        }
        // The node by its kernel name: a /dev/disk/by-id link would be
        // refused as a link when the node is opened without following links.
        if crate::run::target::device::identify(&device.path)
            .ok()
            .flatten()
            .as_ref()
            != Some(device)
        {
            return Err(usage!("{shown}: {} is not the same device", device.path.display()).into());
        }
        plan.dir = PathBuf::from("/dev");
    }
    Ok(())
}

pub(crate) fn execute(
    plan: &RunPlan,
    session: &mut Session,
    interrupt: &Interrupt,
    command: Vec<String>,
    ranks: &Ranks,
    (fio_logs, answer, log_ios): (
        &[crate::import::jobfile::logs::Placed],
        Option<&FioAnswer>,
        bool,
    ),
) -> Result<Ending, AppError> {
    let speaks = ranks.speaks();
    let mut result = build::new_result_file(
        command,
        Some(session.measured_path()),
        plan.points
            .iter()
            .flat_map(crate::plan::PlannedPoint::workloads)
            .any(crate::plan::Workload::uses_page_cache),
    );
    result.distributed = ranks.record(session.dir().path());
    result.notes.clone_from(&plan.notes);
    let mut writer = plan
        .output
        .clone()
        .map(|path| driver::ResultWriter::new(path, Replace::Never, Duration::ZERO));
    let mut listeners: Vec<&mut dyn driver::Listener> = Vec::new();
    if let Some(writer) = writer.as_mut() {
        listeners.push(writer);
    }
    let driven = driver::measure(
        plan,
        driver::Measuring {
            done: &HashSet::new(),
            enough: None,
            refuse_at_first: true,
            bar: None,
        },
        (session, interrupt, ranks),
        &mut result,
        &mut listeners,
    )?;
    if !speaks {
        return Ok(driven.ending);
    }
    // The writer wrote the result at every point kept: nothing is left for
    // it, and a run stopped before its first point leaves no file (nor
    // says it wrote one).
    // Without --output a run keeps its result as sweep and quick do, in
    // `iolab-results/` (made then), written once its points are done and
    // only when something was measured: nothing is prepared for it while
    // the points run, and a run called off before any I/O keeps nothing
    // there (it said why on stderr; --output records the failure).
    // A repetition a signal cut short keeps what it measured until then.
    let measured = result.points.iter().any(|p| {
        p.repetitions
            .iter()
            .any(|r| r.throughput_bps.is_some() || r.iops.is_some())
    });
    let output = match &plan.output {
        Some(path) => Some(path.clone()).filter(|_| !result.points.is_empty()),
        None if measured => {
            let path = output::default_output("run");
            driver::ResultWriter::new(path.clone(), Replace::Never, Duration::ZERO)
                .write(&result)?;
            Some(path)
        }
        None => None,
    };
    if let (true, Some(path)) = (log_ios, &output) {
        let (written, missing) =
            crate::record::ios::write_csvs(&result, path).map_err(anyhow::Error::from)?;
        for path in written {
            crate::note!("iolab: kept I/Os {}", path.display());
        }
        for line in missing {
            crate::say!("iolab: warning: {line}");
        }
    }
    if let (false, Some(path)) = (fio_logs.is_empty(), &output) {
        for log in crate::import::jobfile::logs::write(&result, fio_logs, path)
            .map_err(anyhow::Error::from)?
        {
            crate::note!("iolab: fio log {}", log.display());
        }
    }
    if let Some(answer) = answer {
        output::answer_as_fio(answer, &result, output.as_deref(), plan.report && measured)?;
        return Ok(strict_ending(driven.ending, plan.strict, &result));
    }
    let mut presenter = driver::Presenter {
        json: plan.json,
        detail: plan.detail,
        output,
        // A report of nothing measured has nothing to chart.
        report: plan.report && measured,
        after_table: None,
    };
    driver::finish(&mut [&mut presenter], &result)?;
    // quick measures each of its tests once by design: no note that it could do more.
    let quick = plan
        .points
        .iter()
        .all(|p| crate::plan::quick::test_of(&p.label).is_some());
    if !plan.json && !quick && matches!(driven.ending, Ending::Success | Ending::Warnings) {
        note_single_repetition(&plan.points);
    }
    Ok(strict_ending(driven.ending, plan.strict, &result))
}
