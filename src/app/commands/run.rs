//! `iolab run`: one plan (points from the flags, or a fio job's translation) measured point by point; the `--file` or device it may be given checked before anything is created; `execute`, the plan's drive shared with `quick`.

use crate::app::distributed::Ranks;
use crate::app::error::{AppError, Ending, strict_ending};
use crate::app::network::{self, network_target, open_network_session};
use crate::app::output::{self, check_output, expected_result_bytes};
use crate::app::session::{note_single_repetition, open_session};
use crate::app::{driver, guest, status};
use crate::cli::RunArgs;
use crate::gather::build;
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
    let ranks = Ranks::join(&args.distributed, &command)?;
    let mut device = None;
    let mut target = None;
    // The file or device the run works on: `--file`, or a job file's `filename=`.
    let mut file: Option<PathBuf> = args.file.clone();
    // A job file's `filename=` that names no file yet: iolab makes it, as fio does.
    let mut new_file = false;
    // A job file's network target (fio's `nfs_url=`, `filename=iscsi://…`).
    let mut job_target: Option<String> = None;
    // Where a job file names its `filename=`, for messages about it.
    let mut filename_named_at: Option<String> = None;
    // The logs in fio's format a job file asks for, written beside the result.
    let mut fio_logs = Vec::new();
    let planned = (|| -> Result<RunPlan, AppError> {
        let job = match &args.job_file {
            Some(path) => {
                let job = crate::app::jobfile::read(args, path)?;
                file = job.filename.as_ref().map(PathBuf::from);
                filename_named_at.clone_from(&job.filename_named_at);
                job_target.clone_from(&job.target);
                Some((path, job))
            }
            None => None,
        };
        let from_job_file = job.as_ref().is_some_and(|(_, job)| job.filename.is_some());
        let file_len = match &file {
            Some(path)
                if from_job_file
                    && std::fs::symlink_metadata(path)
                        .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) =>
            {
                // A device name with a typo is not a file to make in /dev.
                if path.starts_with("/dev") || path.starts_with("/proc") || path.starts_with("/sys")
                {
                    let job = args
                        .job_file
                        .as_deref()
                        .unwrap_or(Path::new("the job file"));
                    return Err(usage!(
                        "{}: filename={} does not exist (iolab makes a missing filename= only outside /dev, /proc and /sys)",
                        job.display(),
                        path.display()
                    )
                    .into());
                }
                new_file = true;
                None
            }
            Some(path) => {
                let shown = named(filename_named_at.as_deref(), path);
                let metadata =
                    std::fs::metadata(path).map_err(|e| usage!("{shown}: {}", describe_io(&e)))?;
                device = crate::run::target::device::identify(path)
                    .map_err(|e| usage!("{shown}: {}", describe_io(&e)))?;
                if device.is_none() && !metadata.is_file() && !metadata.is_dir() {
                    let kind = rustix::fs::FileType::from_raw_mode(
                        std::os::unix::fs::MetadataExt::mode(&metadata),
                    );
                    return Err(usage!(
                        "{shown} is {}, not a regular file or a block device",
                        crate::input::describe(kind)
                    )
                    .into());
                }
                Some(device.as_ref().map_or(metadata.len(), |d| d.size))
            }
            None => None,
        };
        let mut plan = match job {
            Some((path, job)) => {
                let (plan, placed) = crate::app::jobfile::plan(args, path, job, file.as_deref())?;
                fio_logs = placed;
                plan
            }
            None => args.plan(file_len)?,
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
            file.as_deref(),
            args.destroy_data.as_deref(),
            &plan.points,
        )?;
        let consented =
            network::guest_mount_consent(plan.guest.as_ref(), args.destroy_data.as_deref())?;
        if target.is_none() && !consented {
            check_device_use(
                args,
                file.as_deref(),
                filename_named_at.as_deref(),
                device.as_ref(),
                &mut plan,
            )?;
        }
        ranks.check_points(&plan.points)?;
        if ranks.speaks() {
            check_output(plan.output.as_deref(), expected_result_bytes(&plan.points))?;
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
        } else if let Some(path) = &file {
            // A study makes its own files in `dir`: it cannot name this one.
            text = format!(
                "# Its points work on {}, which a study file cannot name: `iolab study` would make scratch files in dir instead; run it with `iolab run`\n{text}",
                path.display()
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
        None => open_session(&plan.dir, file.is_some(), &interrupt, &ranks),
    };
    let mut session = ranks.agreed(opened.map_err(AppError::from))?;
    if let Some(path) = &file {
        let write = plan.writes();
        match &device {
            Some(device) => session.use_device(device, write)?,
            None if new_file => {
                let name = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .ok_or_else(|| usage!("filename={} does not name a file", path.display()))?;
                // Long enough for every group's region.
                let length = plan
                    .points
                    .iter()
                    .flat_map(|point| point.workloads())
                    .map(Workload::region_end)
                    .max()
                    .unwrap_or(0);
                session.make_file(name, length)?;
                if ranks.speaks() {
                    crate::say!(
                        "iolab: made {} for the job file's filename= (fio makes it too); {}",
                        path.display(),
                        if args.keep {
                            "kept (--keep)"
                        } else {
                            "removed at the end (--keep keeps it)"
                        }
                    );
                }
            }
            None => {
                let name = path
                    .file_name()
                    .ok_or_else(|| usage!("--file {} does not name a file", path.display()))?;
                session.use_file(name, write)?;
            }
        }
    }
    if args.keep {
        session.keep_files();
    }
    if file.is_none() {
        session.remove_dead_runs();
    }
    execute(&plan, &mut session, &interrupt, command, &ranks, &fio_logs)
}

/// How messages name the run's file: where the job file names it, else
/// `--file PATH`.
fn named(named_at: Option<&str>, path: &Path) -> String {
    named_at.map_or_else(|| format!("--file {}", path.display()), str::to_string)
}

/// Checks `--destroy-data` against what `--file` names: a write test on a
/// block device needs it and a device free to overwrite; anything else must
/// not give it. A device is then used through its `/dev/NAME` node.
/// `named_at` is where a job file names the file, when it does.
fn check_device_use(
    args: &RunArgs,
    file: Option<&Path>,
    named_at: Option<&str>,
    device: Option<&crate::run::target::device::BlockDevice>,
    plan: &mut RunPlan,
) -> Result<(), AppError> {
    // The op a refusal names: the first that writes, else the first.
    let op = plan
        .points
        .iter()
        .flat_map(|point| point.workloads())
        .map(|workload| workload.op)
        .find(|op| op.writes())
        .unwrap_or(plan.points[0].workload().op);
    let shown = named(named_at, file.unwrap_or(Path::new("")));
    let file = file.unwrap_or(Path::new("")).display();
    match (device, &args.destroy_data) {
        (Some(device), confirmation) if op.writes() => {
            crate::run::target::device::check_writable(device, confirmation.as_deref(), &shown)?;
        }
        (Some(device), Some(_)) => {
            return Err(usage!(
                "--destroy-data is for write tests; --op {} only reads {}",
                op.name(),
                device.path.display()
            )
            .into());
        }
        (None, Some(given)) => {
            return Err(usage!(
                "--destroy-data {} is for a block device given with --file or an iSCSI LUN given with --target; {file} is not one",
                given.display()
            )
            .into());
        }
        (None, None) | (Some(_), None) => {}
    }
    if let Some(device) = device {
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
    fio_logs: &[crate::import::jobfile::logs::Placed],
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
    if let (true, Some(output)) = (speaks, &plan.output) {
        output::remove_dead_temporaries(output);
    }
    let mut announcer = driver::Announcer;
    let mut writer = plan
        .output
        .clone()
        .map(|path| driver::ResultWriter::new(path, Replace::Never, Duration::ZERO));
    let mut status = speaks
        .then(|| status::Status::start(plan.progress, plan.json, &plan.points, None))
        .flatten();
    let mut listeners: Vec<&mut dyn driver::Listener> = Vec::new();
    match status.as_mut() {
        Some(status) => listeners.push(status),
        // Without the live line, each point is named as it starts.
        None if speaks && !plan.json && plan.points.len() > 1 => listeners.push(&mut announcer),
        None => {}
    }
    if let Some(writer) = writer.as_mut() {
        listeners.push(writer);
    }
    let mut guests =
        guest::GuestSide::start(session, plan.guest.as_ref(), &plan.points, ranks, interrupt)?;
    let driven = driver::drive(
        (&plan.points, &HashSet::new(), None),
        true,
        (session, guests.as_mut(), interrupt, ranks),
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
    let measured = result.points.iter().any(|p| p.measured().next().is_some());
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
    if let (false, Some(path)) = (fio_logs.is_empty(), &output) {
        for log in crate::import::jobfile::logs::write(&result, fio_logs, path)
            .map_err(anyhow::Error::from)?
        {
            crate::say!("iolab: fio log {}", log.display());
        }
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
    if !plan.json && matches!(driven.ending, Ending::Success | Ending::Warnings) {
        note_single_repetition(&plan.points);
    }
    Ok(strict_ending(driven.ending, plan.strict, &result))
}
