//! `iolab run JOB.fio`: a fio job file's translation (`import::jobfile`) made a plan — one point of groups per phase — with the command line's repetition, directory and output options; and `--show-plan`, any run's plan printed as the study file that runs it.

use crate::app::error::AppError;
use crate::cli::RunArgs;
use crate::import::jobfile::logs::Placed;
use crate::import::jobfile::{Facts, Given, JobFile, translate};
use crate::plan::group::Group;
use crate::plan::param::Value;
use crate::plan::sweep::Param;
use crate::plan::{PlannedPoint, RunPlan, UsageError, Workload, default_workload};
use crate::usage;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The longest job file read, in bytes: job files are a few KiB.
const MAX_JOB_FILE_BYTES: u64 = 1 << 20;

/// `iolab run JOB.fio` read: the job file translated, with `--file` (fio's
/// `--filename`) as every job's file unless the job file names it, the
/// length of a named file or device as the size of a job that gives none,
/// and the workload flags fio also takes on its command line (`--size`,
/// `--bs`, `--iodepth`, `--jobs`, `--direct`, `--runtime` …) as every job's
/// default, which the job file's own keys override, as fio's command line
/// does. Other workload flags, a target, groups and the flags a job file
/// has keys for are refused.
pub fn read(args: &RunArgs, path: &Path) -> Result<JobFile, AppError> {
    let shown = path.display().to_string();
    let mut defaults = Vec::new();
    let mut from: Vec<(&str, Param)> = Vec::new();
    for (param, text) in &args.params.given {
        for (key, value) in fio_default(*param, text, &shown)? {
            // --runtime and --time-limit are both fio's runtime.
            if let Some((_, other)) = from.iter().find(|(k, _)| *k == key) {
                return Err(usage!(
                    "--{} and --{} are both fio's {key}: give one",
                    other.name(),
                    param.name()
                )
                .into());
            }
            from.push((key, *param));
            defaults.push((key, value));
        }
    }
    let refused = [
        (args.target.is_some(), "--target"),
        (!args.groups.is_empty(), "--group"),
        (!args.ops.is_empty(), "--ops"),
        (args.verify, "--verify"),
        (args.steady.is_some(), "--steady"),
        (args.latency_target.is_some(), "--latency-target"),
        (args.priority.is_some(), "--priority"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        return Err(usage!("{flag} cannot go with a job file ({shown})").into());
    }
    let text = read_job_text(path).map_err(|why| usage!("{shown}: {why}"))?;
    translated(args, &text, &shown, defaults, None)
}

/// `iolab fio ARGS…` read: the job file fio's command line stands for,
/// translated as a job file given to `iolab run` is (a refusal names the
/// argument).
pub fn read_fio_command(
    args: &RunArgs,
    command: &crate::import::jobfile::command_line::FioCommand,
) -> Result<JobFile, AppError> {
    translated(
        args,
        &command.text,
        FIO_COMMAND_LINE,
        Vec::new(),
        Some(&command.arguments),
    )
}

/// How a refusal names fio's command line.
pub const FIO_COMMAND_LINE: &str = "fio's command line";

/// A job file's text, read whole; why not, in words.
pub fn read_job_text(path: &Path) -> Result<String, String> {
    let file = crate::input::open_regular(path).map_err(|e| crate::input::describe_io(&e))?;
    let mut text = String::new();
    file.take(MAX_JOB_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{} (a job file is text)", crate::input::describe_io(&e)))?;
    if text.len() as u64 > MAX_JOB_FILE_BYTES {
        return Err("larger than 1 MiB; a job file is a few KiB".to_string());
    }
    Ok(text)
}

/// Job file `text` (named `shown`) translated with the command line's
/// `defaults` and `--file`.
fn translated(
    args: &RunArgs,
    text: &str,
    shown: &str,
    defaults: Vec<(&'static str, String)>,
    arguments: Option<&[String]>,
) -> Result<JobFile, AppError> {
    let file = args
        .file
        .as_deref()
        .map(|f| f.to_string_lossy().into_owned());
    let given = Given {
        options: &defaults,
        include: &read_job_text,
        arguments,
        file: file.as_deref(),
        capacity: &crate::net::capacity,
        node_cpus: &crate::probe::host::numa_node_cpus,
        length: &|path| match crate::run::target::device::identify(Path::new(path)) {
            Ok(Some(device)) => Some(device.size),
            _ => std::fs::metadata(path)
                .ok()
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len()),
        },
    };
    Ok(translate(
        text,
        shown,
        Facts::here(),
        &|name| std::env::var(name).ok(),
        given,
    )?)
}

/// A workload flag given after a job file as the fio option(s) it stands
/// for, its value written as fio reads it (bytes, milliseconds); a flag
/// fio's command line has no option for is refused.
fn fio_default(
    param: Param,
    text: &str,
    shown: &str,
) -> Result<Vec<(&'static str, String)>, UsageError> {
    let value = param
        .parse_value(text)
        .map_err(|e| usage!("--{} {text}: {e}", param.name()))?;
    let number = |value: Value| match value {
        Value::Number(n) => n.to_string(),
        Value::Flag(on) => u8::from(on).to_string(),
        Value::Seconds(s) => format!("{}ms", (s * 1000.0).round() as u64),
        other => param.format_value(other),
    };
    const TAKEN: &[Param] = &[
        Param::Size,
        Param::Bs,
        Param::Offset,
        Param::IoSize,
        Param::Iodepth,
        Param::Jobs,
        Param::Direct,
        Param::Loops,
        Param::Ramp,
        Param::Runtime,
        Param::TimeLimit,
    ];
    if !TAKEN.contains(&param) {
        let flags: Vec<String> = TAKEN.iter().map(|p| format!("--{}", p.name())).collect();
        return Err(usage!(
            "--{}: {shown} sets the workload; give it there (fio's command line options iolab takes after a job file: {})",
            param.name(),
            flags.join(", ")
        ));
    }
    // The fio option it comes from, as the parameter table names it first.
    let key = param
        .fio_options()
        .split([',', ' '])
        .next()
        .unwrap_or_default();
    let mut options = vec![(key, number(value))];
    if param == Param::Runtime {
        options.push(("time_based", "1".to_string()));
    }
    Ok(options)
}

/// The plan of `iolab run JOB.fio` from its translation `job`: each phase
/// one point of its sections' groups, with the repetitions and interval of
/// the command line; on its phase's file (the job file's `filename=` or
/// `--file`) when it names them, each point naming its own when they
/// differ.
pub fn plan(args: &RunArgs, path: &Path, job: JobFile) -> Result<(RunPlan, Vec<Placed>), AppError> {
    let files: Vec<PathBuf> = job.files.iter().map(|f| PathBuf::from(&f.path)).collect();
    let several = files.iter().any(|f| *f != files[0]);
    // The session opens one directory, where every given file is named.
    if let Some(other) = files
        .iter()
        .find(|f| crate::cli::given_dir(f) != crate::cli::given_dir(&files[0]))
    {
        return Err(usage!(
            "{}: filename={} and filename={} are in two directories; iolab opens one directory for a run's given files",
            path.display(),
            files[0].display(),
            other.display()
        )
        .into());
    }
    let shown = path.display().to_string();
    let stem = path
        .file_stem()
        .map_or_else(|| "job".to_string(), |s| s.to_string_lossy().into_owned());
    let stem = crate::console::neutralize(&stem);
    let phases = job.phases.len();
    let mut points = Vec::new();
    let mut placed = Vec::new();
    for (index, phase) in job.phases.into_iter().enumerate() {
        // A log's window (fio's log_avg_msec) is its point's interval:
        // iolab's series have one interval per point.
        let mut windows = job.logs.iter().filter(|log| {
            log.window_ms.is_some() && phase.iter().any(|group| group.name == log.group)
        });
        let window = windows.next();
        if let (Some(first), Some(other)) = (
            window,
            windows.find(|log| log.window_ms != window.and_then(|w| w.window_ms)),
        ) {
            return Err(usage!(
                "{shown}: [{}] and [{}] run at once with log_avg_msec {} and {}: iolab's series have one interval for the jobs that run together",
                first.group,
                other.group,
                first.window_ms.unwrap_or_default(),
                other.window_ms.unwrap_or_default()
            )
            .into());
        }
        // fio's steady-state check interval is its samples' interval.
        let check = job
            .steady_interval_s
            .filter(|_| phase.iter().any(|group| group.workload.steady.is_some()));
        let log_s = window
            .and_then(|log| log.window_ms)
            .map(|ms| ms as f64 / 1000.0);
        if let (Some(check), Some(log_s), Some(log)) = (check, log_s, window) {
            if check != log_s {
                return Err(usage!(
                    "{shown}: [{}] log_avg_msec={} and steadystate_check_interval={check} s run at once: iolab's series have one interval for the jobs that run together",
                    log.group,
                    log.window_ms.unwrap_or_default()
                )
                .into());
            }
        }
        let interval_s = check.or(log_s).unwrap_or(args.interval.as_secs_f64());
        let groups: Vec<Group> = phase
            .into_iter()
            .map(|mut group| {
                args.repetitions.policy().apply(&mut group.workload);
                group.workload.interval_s = interval_s;
                // A log of a line per I/O is written from the I/Os kept.
                group.workload.log_ios = args.log_ios
                    || job
                        .logs
                        .iter()
                        .any(|log| log.group == group.name && log.per_io());
                group
            })
            .collect();
        let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
        let label = match (&args.label, phases) {
            (Some(label), 1) => label.clone(),
            (Some(label), _) => format!("{label} phase {}", index + 1),
            (None, 1) => format!("{stem}: {}", names.join(" + ")),
            (None, _) => format!("{stem} phase {}: {}", index + 1, names.join(" + ")),
        };
        for (position, group) in groups.iter().enumerate() {
            placed.extend(
                job.logs
                    .iter()
                    .filter(|log| log.group == group.name)
                    .map(|log| Placed {
                        point: label.clone(),
                        group: position,
                        log: log.clone(),
                    }),
            );
        }
        points.push(PlannedPoint {
            label,
            round: None,
            groups,
            file: files.get(index).filter(|_| several).cloned(),
        });
    }
    let notes: Vec<String> = job
        .notes
        .iter()
        .map(|note| format!("{shown}: {note}"))
        .collect();
    for note in &notes {
        crate::note!("iolab: {note}");
    }
    if let (Some(dir), false) = (&job.directory, args.dir == Path::new(".")) {
        if Path::new(dir) != args.dir {
            return Err(usage!(
                "--dir {} and {shown}'s directory={dir}: give the directory once",
                args.dir.display()
            )
            .into());
        }
    }
    let file = files.first();
    let dir = match file {
        Some(file) => crate::cli::given_dir(file),
        None => job
            .directory
            .map_or_else(|| args.dir.clone(), PathBuf::from),
    };
    let mut plan = args.plan_points(dir, points)?;
    plan.notes = notes;
    Ok((plan, placed))
}

/// `plan` as a study file `iolab study` runs the same points from: one
/// `[[sweep]]` per point, its groups as `[[sweep.group]]` tables, each
/// parameter that is not iolab's default, the repetition policy and the
/// interval of the first point.
pub fn study_text(plan: &RunPlan, name: &str) -> String {
    let mut text = format!(
        "# The study `iolab run --show-plan` wrote: `iolab study FILE` runs these points.\n\
         name = {}\ndir = {}\n",
        quoted(name),
        quoted(&plan.dir.display().to_string())
    );
    let Some(first) = plan.points.first() else {
        return text;
    };
    let lead = first.workload();
    let defaults = default_workload();
    text.push_str("\n[repeat]\n");
    match lead.until_ci {
        Some(target) => text.push_str(&format!(
            "until_ci = \"{}%\"\nmin = {}\nmax = {}\n",
            target * 100.0,
            lead.repeat,
            lead.max_repeat.unwrap_or(lead.repeat)
        )),
        None => text.push_str(&format!("count = {}\n", lead.repeat)),
    }
    if lead.warmup > 0 {
        text.push_str(&format!("warmup = {}\n", lead.warmup));
    }
    if lead.same_draws {
        text.push_str("same_draws = true\n");
    }
    text.push_str(&format!(
        "\n[defaults]\ninterval = \"{}s\"\n",
        lead.interval_s
    ));
    for point in &plan.points {
        text.push_str(&format!("\n[[sweep]]\nlabel = {}\n", quoted(&point.label)));
        // What a point has apart from the first's defaults: its own
        // interval (a log window, a steady-state check interval) and its
        // run keys.
        let workload = point.workload();
        if workload.interval_s != lead.interval_s {
            text.push_str(&format!("interval = \"{}s\"\n", workload.interval_s));
        }
        if !point.grouped() {
            text.push_str(&run_keys(workload));
            text.push_str(&parameters(point.workload(), &defaults));
            continue;
        }
        for group in &point.groups {
            text.push_str(&format!(
                "\n[[sweep.group]]\nname = {}\n{}{}",
                quoted(&group.name),
                run_keys(&group.workload),
                parameters(&group.workload, &defaults)
            ));
        }
    }
    text
}

/// The study keys of what shapes `workload`'s run and is no parameter:
/// its steady-state criterion, latency target and priority.
fn run_keys(workload: &Workload) -> String {
    let keys = [
        ("steady", workload.steady.map(|steady| steady.to_string())),
        (
            "latency_target",
            workload.latency_target.map(|target| target.to_string()),
        ),
        (
            "priority",
            workload
                .priority
                .as_ref()
                .map(|priority| priority.to_string()),
        ),
    ];
    keys.iter()
        .filter_map(|(key, value)| Some(format!("{key} = {}\n", quoted(value.as_deref()?))))
        .collect()
}

/// The lines `key = "value"` of each workload parameter of `workload` that
/// is not `defaults`'.
fn parameters(workload: &Workload, defaults: &Workload) -> String {
    Param::ALL
        .iter()
        .filter_map(|&param| {
            let value = param.value_in(workload)?;
            let shown = param.format_value(value);
            let default = param.value_in(defaults).map(|v| param.format_value(v));
            (default.as_deref() != Some(shown.as_str()))
                .then(|| format!("{} = {}\n", param.name(), quoted(&shown)))
        })
        .collect()
}

/// A TOML basic string.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}
