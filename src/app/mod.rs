//! The pipeline driver: plan → run → record → analyse → output, for each subcommand (grids in `grid`).
//!
//! Measuring a point, building its record, summarising, checking and writing
//! the result file happen here in that order, point by point, so a result file
//! on disk always holds every point finished so far.

use crate::check;
use crate::cli::{
    CompareArgs, CompareFormat, EnvArgs, ImportArgs, MeasureArgs, QuickArgs, ReportArgs, RunArgs,
};
use crate::gather::build;
use crate::input::describe_io;
use crate::plan::quick::{DirectSupport, quick_points};
use crate::plan::{RunPlan, UsageError};
use crate::record::write::Replace;
use crate::record::{ResultFile, write};
use crate::run::prepare::DirectCapability;
use crate::run::signals::Interrupt;
use crate::run::{RunError, Session};
use crate::stats;
use crate::usage;
use distributed::Ranks;
use network::{network_target, open_network_session};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod agent;
pub(crate) mod distributed;
mod driver;
pub mod grid;
pub mod guest;
pub mod help;
mod network;
pub(crate) mod output;
mod status;

use output::{
    check_output, check_report_beside, create_results_dir, expected_result_bytes, present,
    write_result,
};

/// How a command ended, mapped to the exit status by `main`.
#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    /// Everything measured and written: exit 0.
    Success,
    /// A repetition failed or setup failed: exit 1.
    Failed,
    /// SIGINT or SIGTERM: exit 128 + signal.
    Interrupted(i32),
    /// A measured command failed: iolab exits with the command's status
    /// (128 + N when signal N killed it).
    CommandFailed(u8),
    /// Everything was measured, but under `--strict` a check raised a
    /// warning or an error: exit 3.
    Warnings,
}

/// `--strict`: a successful ending becomes [`Ending::Warnings`] when any
/// point has a check of warning severity or worse.
pub(crate) fn strict_ending(ending: Ending, strict: bool, result: &ResultFile) -> Ending {
    let warned = result
        .points
        .iter()
        .flat_map(|p| &p.checks)
        .any(|c| c.severity >= crate::record::Severity::Warning);
    if strict && warned && ending == Ending::Success {
        Ending::Warnings
    } else {
        ending
    }
}

/// Errors a command can end with before or instead of measuring.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Bad input: exit 2, nothing created.
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// Anything else: exit 1.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// `iolab run`.
pub fn run(args: &RunArgs, command: Vec<String>) -> Result<Ending, AppError> {
    let ranks = Ranks::join(&args.distributed, &command)?;
    let mut device = None;
    let mut target = None;
    let planned = (|| -> Result<RunPlan, AppError> {
        let file_len = match &args.file {
            Some(path) => {
                let shown = path.display();
                let metadata = std::fs::metadata(path)
                    .map_err(|e| usage!("--file {shown}: {}", describe_io(&e)))?;
                device = crate::run::device::identify(path)
                    .map_err(|e| usage!("--file {shown}: {}", describe_io(&e)))?;
                if device.is_none() && !metadata.is_file() && !metadata.is_dir() {
                    let kind = rustix::fs::FileType::from_raw_mode(
                        std::os::unix::fs::MetadataExt::mode(&metadata),
                    );
                    return Err(usage!(
                        "--file {shown} is {}, not a regular file or a block device",
                        crate::input::describe(kind)
                    )
                    .into());
                }
                Some(device.as_ref().map_or(metadata.len(), |d| d.size))
            }
            None => None,
        };
        let mut plan = args.plan(file_len)?;
        if ranks.speaks() {
            args.params
                .warnings()
                .iter()
                .for_each(|line| crate::say!("{line}"));
        }
        target = network_target(
            args.target.as_deref(),
            args.destroy_data.as_deref(),
            &plan.points,
        )?;
        let consented =
            network::guest_mount_consent(plan.guest.as_ref(), args.destroy_data.as_deref())?;
        if target.is_none() && !consented {
            check_device_use(args, device.as_ref(), &mut plan)?;
        }
        ranks.check_points(&plan.points)?;
        if ranks.speaks() {
            check_output(plan.output.as_deref(), expected_result_bytes(&plan.points))?;
        }
        Ok(plan)
    })();
    let plan = ranks.agreed(planned)?;
    let interrupt = Interrupt::install().map_err(anyhow::Error::from)?;
    let opened = match &target {
        Some(remote) => open_network_session(
            remote.as_ref(),
            args.destroy_data.is_some(),
            &interrupt,
            &ranks,
        ),
        None => open_session(&plan.dir, args.file.is_some(), &interrupt, &ranks),
    };
    let mut session = ranks.agreed(opened.map_err(AppError::from))?;
    if let Some(path) = &args.file {
        let write = plan.points[0].workload.op.writes();
        match &device {
            Some(device) => session.use_device(device, write)?,
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
    if args.file.is_none() {
        session.remove_dead_runs();
    }
    execute(&plan, &mut session, &interrupt, command, &ranks)
}

/// Checks `--destroy-data` against what `--file` names: a write test on a
/// block device needs it and a device free to overwrite; anything else must
/// not give it. A device is then used through its `/dev/NAME` node.
fn check_device_use(
    args: &RunArgs,
    device: Option<&crate::run::device::BlockDevice>,
    plan: &mut RunPlan,
) -> Result<(), AppError> {
    let op = plan.points[0].workload.op;
    let file = args.file.as_deref().unwrap_or(Path::new("")).display();
    match (device, &args.destroy_data) {
        (Some(device), confirmation) if op.writes() => {
            crate::run::device::check_writable(device, confirmation.as_deref())?;
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
        if crate::run::device::identify(&device.path)
            .ok()
            .flatten()
            .as_ref()
            != Some(device)
        {
            return Err(usage!(
                "--file {file}: {} is not the same device",
                device.path.display()
            )
            .into());
        }
        plan.dir = PathBuf::from("/dev");
    }
    Ok(())
}

/// `iolab quick`.
pub fn quick(args: &QuickArgs, command: Vec<String>) -> Result<Ending, AppError> {
    let settings = args.settings()?;
    let output = match &args.output {
        Some(path) => path.clone(),
        None => default_quick_output(),
    };
    let interrupt = Interrupt::install().map_err(anyhow::Error::from)?;
    let ranks = Ranks::alone();
    let mut session = open_session(&args.dir, false, &interrupt, &ranks)?;
    // A dead run's leftovers would count against the free space.
    session.remove_dead_runs();
    // Before iolab-results/ is created: a refusal must leave nothing behind.
    session
        .check_free_space(settings.size, 1)
        .map_err(run_error)?;
    create_results_dir(&output)?;
    let expected = expected_result_bytes(&quick_points(settings, DirectSupport::Honoured));
    check_output(Some(&output), expected)?;
    if !args.no_report {
        check_report_beside(&output)?;
    }
    let filesystem = session.dir().filesystem();
    let direct = match session.probe_direct().map_err(run_error)? {
        DirectCapability::Supported(_) => DirectSupport::Honoured,
        DirectCapability::AcceptedInMemory | DirectCapability::Refused(_) => {
            crate::say!(
                "iolab: the {filesystem} file system at {} cannot bypass the page cache with O_DIRECT; \
                 running buffered, with an fsync inside the timed region of every write test. \
                 Reads are from a cold cache where eviction works.",
                args.dir.display()
            );
            DirectSupport::Unavailable
        }
    };
    let plan = RunPlan {
        dir: args.dir.clone(),
        points: quick_points(settings, direct),
        guest: None,
        output: Some(output),
        json: args.json,
        detail: args.detail,
        report: !args.no_report,
        strict: args.strict,
        progress: args.progress,
    };
    execute(&plan, &mut session, &interrupt, command, &ranks)
}

/// `iolab env`.
pub fn env(args: &EnvArgs) -> Result<Ending, AppError> {
    require_path(&args.path)?;
    let environment = crate::gather::environment::environment(Some(&args.path));
    let tool = build::tool();
    let text = if args.json {
        // A struct rather than json!: fields stay in the result file's order.
        #[derive(serde::Serialize)]
        struct EnvReport<'a> {
            tool: &'a crate::record::Tool,
            environment: &'a crate::record::environment::Environment,
        }
        let report = EnvReport {
            tool: &tool,
            environment: &environment,
        };
        serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)? + "\n"
    } else {
        crate::report::environment::render(&tool, &environment)
    };
    output::print(&text)?;
    Ok(Ending::Success)
}

/// `iolab report RESULTS... -o report.html`.
pub fn report(args: &ReportArgs) -> Result<Ending, AppError> {
    use crate::cli::ReportFormat;
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    let output = match &args.output {
        Some(path) => path.clone(),
        None => output::default_output("report").with_extension(match args.format {
            ReportFormat::Html => "html",
            ReportFormat::Markdown => "md",
            ReportFormat::Csv | ReportFormat::StudyCsv => "csv",
        }),
    };
    if !to_stdout {
        if args.output.is_none() {
            create_results_dir(&output)?;
        }
        check_output(Some(&output), 1 << 20)?;
    }
    let mut files = Vec::new();
    for path in &args.files {
        let result = write::read_to_show(path).map_err(|e| usage!("{e}"))?;
        if result.points.is_empty() {
            return Err(usage!("{} has no measured point to report", path.display()).into());
        }
        files.push((path.display().to_string(), result));
    }
    use crate::report::render::{Csv, Html, Markdown, Render, StudyCsv};
    use crate::report::view::ReportView;
    let view = ReportView::new(
        files.iter().map(|(n, r)| (n.as_str(), r)).collect(),
        args.alpha,
        false,
    );
    let renderer: &dyn for<'a> Render<ReportView<'a>> = match args.format {
        ReportFormat::Html => &Html,
        ReportFormat::Markdown => &Markdown,
        ReportFormat::Csv => &Csv,
        ReportFormat::StudyCsv => &StudyCsv,
    };
    let text = renderer.render(&view).map_err(anyhow::Error::from)?;
    if args.format == ReportFormat::StudyCsv && text.is_empty() {
        return Err(usage!(
            "--format study-csv: no file given was run from a study with a table \
             (its plan.table is empty); use --format csv"
        )
        .into());
    }
    // HTML escapes what it shows; text read in a terminal or a spreadsheet
    // gets no control character from a file.
    let text = match args.format {
        ReportFormat::Html => text,
        _ => crate::console::neutralize(&text).into_owned(),
    };
    if to_stdout {
        output::print(&text)?;
        return Ok(Ending::Success);
    }
    write::write_file(&output, Replace::Never, |out| {
        std::io::Write::write_all(out, text.as_bytes())
    })
    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", output.display()))?;
    output::print(&format!("report: {}\n", output.display()))?;
    Ok(Ending::Success)
}

/// `iolab import FIO.json`.
pub fn import(args: &ImportArgs, command: Vec<String>) -> Result<Ending, AppError> {
    check_output(args.out.output.as_deref(), 1 << 20)?;
    let imported = crate::import::fio_file(&args.file, command)?;
    for line in &imported.skipped {
        crate::say!("iolab: not imported: {line}");
    }
    if let Some(path) = &args.out.output {
        write_result(path, &imported.result, Replace::Never)?;
    }
    present(
        &imported.result,
        args.out.json,
        args.out.detail,
        args.out.output.as_deref(),
    )?;
    Ok(Ending::Success)
}

/// `iolab preset list|show|run`.
pub fn preset(
    command: &crate::cli::PresetCommand,
    arguments: Vec<String>,
) -> Result<Ending, AppError> {
    use crate::cli::PresetCommand;
    use crate::preset::{PRESETS, Scale, find};
    let named = |name: &str| {
        find(name).ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
            usage!("no preset '{name}'; the presets are {}", names.join(", "))
        })
    };
    match command {
        PresetCommand::List => {
            let mut text = String::new();
            for preset in &PRESETS {
                text.push_str(&format!("{}: {}\n", preset.name, preset.description));
                for scale in [Scale::Quick, Scale::Full] {
                    let study = (preset.study)(scale);
                    let (parsed, study) =
                        crate::plan::study::Study::parse(&study, Path::new(preset.name))?;
                    let points = parsed.plan(
                        &crate::plan::default_workload(),
                        &study,
                        Path::new(preset.name),
                    )?;
                    let cost = crate::plan::cost(&points);
                    text.push_str(&format!(
                        "  --scale {:<5} {:>4} points, moves {:>9}, files up to {:>9}, about {}\n",
                        scale.name(),
                        points.len(),
                        crate::report::units::bytes(
                            cost.moved_bytes.min(u128::from(u64::MAX)) as u64
                        ),
                        crate::report::units::bytes(cost.largest_bytes),
                        crate::report::units::duration(cost.seconds())
                    ));
                }
            }
            text.push_str(
                "\nTimes assume 100 MiB/s, and 10,000 I/Os a second for O_DIRECT or synced I/O \
                 (each waits for the device); this machine's device is not measured for them.\n",
            );
            text.push_str("\niolab preset show NAME prints one as a study file; iolab preset run NAME --dry-run gives its plan, data volume and time.\n");
            output::print(&text)?;
            Ok(Ending::Success)
        }
        PresetCommand::Show { name, scale } => {
            output::print(&(named(name)?.study)(*scale))?;
            Ok(Ending::Success)
        }
        PresetCommand::Run { name, scale, study } => {
            let preset = named(name)?;
            let args = crate::cli::StudyArgs {
                file: PathBuf::from(format!("preset {name}")),
                dir: Some(study.dir.clone()),
                target: study.target.clone(),
                destroy_data: study.destroy_data.clone(),
                dry_run: study.dry_run,
                resume: true,
                no_report: study.no_report,
                place: study.place.clone(),
                distributed: study.distributed,
                out: crate::cli::OutputArgs {
                    output: Some(study.out.output.clone().unwrap_or_else(|| {
                        PathBuf::from("iolab-results").join(format!(
                            "{}-{}.json",
                            preset.name,
                            scale.name()
                        ))
                    })),
                    json: study.out.json,
                    detail: study.out.detail,
                    strict: study.out.strict,
                    progress: study.out.progress,
                },
            };
            let free = rustix::fs::statvfs(&study.dir)
                .map(|s| (s.f_bavail * s.f_frsize).saturating_sub(crate::run::FREE_SPACE_MARGIN))
                .unwrap_or(u64::MAX);
            let (text, note) = crate::preset::capped(&(preset.study)(*scale), free);
            if let Some(note) = note {
                crate::say!("iolab: {name}: {note}");
            }
            grid::study_text(&text, &args, arguments)
        }
    }
}

/// `iolab compare FILE --by direct,sync`: the points of one file that differ
/// only in those parameters, the first setting found as the base.
fn compare_within(args: &CompareArgs, by: &str, result: ResultFile) -> Result<Ending, AppError> {
    if args.files.len() != 1 {
        return Err(usage!(
            "--by compares inside one result file; {} were given",
            args.files.len()
        )
        .into());
    }
    let fields = workload_fields("--by", by)?;
    // The first parameter splits base from other; all of them are ignored
    // when matching (direct-vs-buffered's O_DIRECT writes also use O_SYNC).
    let setting = |w: &crate::plan::Workload| {
        let value = serde_json::to_value(w).expect("a workload serializes");
        value
            .get(&fields[0])
            .map_or_else(|| "-".to_string(), |v| v.to_string())
    };
    let split = by.split(',').next().unwrap_or(by).trim().to_string();
    let first = setting(&result.points[0].workload);
    let (base_points, other_points): (Vec<_>, Vec<_>) = result
        .points
        .iter()
        .cloned()
        .partition(|p| setting(&p.workload) == first);
    let settings: std::collections::BTreeSet<String> =
        other_points.iter().map(|p| setting(&p.workload)).collect();
    if settings.len() != 1 {
        return Err(usage!(
            "--by {by}: {} needs exactly two settings of {split} to compare, found {}",
            args.files[0].display(),
            settings.len() + 1
        )
        .into());
    }
    let other_setting = settings.into_iter().next().expect("one setting");
    let base = ResultFile {
        points: base_points,
        ..result.clone()
    };
    let other = ResultFile {
        points: other_points,
        ..result
    };
    let key = |w: &crate::plan::Workload| crate::compare::key_without(w, &fields);
    let base_name = format!("{} [{split}={first}]", args.files[0].display());
    let other_name = format!("{} [{split}={other_setting}]", args.files[0].display());
    let pairing = paired(args, (&base, &other), &other_name, &key);
    if pairing.matched.is_empty() {
        return Err(usage!(
            "--by {by}: no two points of {} differ only in {by}",
            args.files[0].display()
        )
        .into());
    }
    let comparison = crate::compare::Comparison {
        metric: args.metric,
        alpha: args.alpha,
        orientation: args.orientation,
        base: base_name,
        pairings: vec![pairing],
    };
    print_comparison(&comparison, args.format)
}

fn print_comparison(
    comparison: &crate::compare::Comparison,
    format: CompareFormat,
) -> Result<Ending, AppError> {
    use crate::report::render::{Csv, Json, Markdown, Render};
    let text = match format {
        CompareFormat::Terminal => output::terminal().render(comparison),
        CompareFormat::Markdown => Markdown.render(comparison),
        CompareFormat::Csv => Csv.render(comparison),
        CompareFormat::Json => Json.render(comparison),
    }
    .map_err(anyhow::Error::from)?;
    output::print(&text)?;
    Ok(Ending::Success)
}

/// The result-file field names of the workload parameters listed in `list`
/// (`engine,direct`), refused by name when one is not a parameter.
fn workload_fields(flag: &str, list: &str) -> Result<Vec<String>, UsageError> {
    list.split(',')
        .map(|name| {
            crate::plan::sweep::Param::from_name(name.trim())
                .map(|param| param.field().to_string())
                .ok_or_else(|| usage!("{flag} {list}: '{}' is not a parameter", name.trim()))
        })
        .collect()
}

/// `other` against `base` as `args` asks: matched by `key`, and judged
/// for equivalence when `--margin` is given.
fn paired(
    args: &CompareArgs,
    (base, other): (&ResultFile, &ResultFile),
    other_name: &str,
    key: &dyn Fn(&crate::plan::Workload) -> String,
) -> crate::compare::Pairing {
    let mut pairing = crate::compare::pair_by(
        base,
        other,
        other_name,
        args.metric,
        args.alpha,
        args.orientation,
        key,
    );
    if let Some(margin) = args.margin {
        crate::compare::judge_equivalence(
            &mut pairing,
            (base, other),
            key,
            (args.metric, args.orientation, margin),
        );
    }
    pairing
}

/// A plan measuring each point once cannot be compared with a test: say so
/// below its result, with the flag that can (docs/guide.md says why one
/// repetition stays the default).
pub(crate) fn note_single_repetition(points: &[crate::plan::PlannedPoint]) {
    let once =
        |p: &crate::plan::PlannedPoint| p.workload.repeat < 2 && p.workload.until_ci.is_none();
    if !points.is_empty() && points.iter().all(once) {
        crate::say!(
            "iolab: note: one repetition per point: `iolab compare` will show differences but cannot test them; --repeat 3 measures three"
        );
    }
}

/// The two points of two files that differ in the fewest parameters, and
/// those parameters, for a comparison that matched nothing.
fn nearest_pair(base: &ResultFile, other: &ResultFile) -> String {
    let nearest = base
        .points
        .iter()
        .flat_map(|a| other.points.iter().map(move |b| (a, b)))
        .map(|(a, b)| {
            (
                a,
                b,
                crate::compare::parameters_differing(&a.workload, &b.workload),
            )
        })
        .min_by_key(|(_, _, differing)| differing.len());
    match nearest {
        Some((a, b, differing)) if !differing.is_empty() => format!(
            "the nearest, '{}' and '{}', differ in {}",
            a.label,
            b.label,
            differing
                .iter()
                .map(|(name, x, y)| format!("{name} ({x} vs {y})"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => "their points differ in how they were measured".to_string(),
    }
}

/// `iolab compare BASE OTHER...`.
pub fn compare(args: &CompareArgs) -> Result<Ending, AppError> {
    let read = |path: &PathBuf| {
        let result = write::read_to_show(path).map_err(|e| usage!("{e}"))?;
        if result.points.is_empty() {
            return Err(usage!(
                "{} has no measured point to compare",
                path.display()
            ));
        }
        Ok(result)
    };
    if args.by.is_none() && args.files.len() < 2 {
        return Err(usage!("compare needs two result files, or one with --by PARAMS").into());
    }
    if let Some(by) = &args.by {
        return compare_within(args, by, read(&args.files[0])?);
    }
    let ignored = match &args.ignore {
        Some(list) => workload_fields("--ignore", list)?,
        None => Vec::new(),
    };
    let key = |w: &crate::plan::Workload| crate::compare::key_without(w, &ignored);
    let base = read(&args.files[0])?;
    let mut pairings = Vec::new();
    for path in &args.files[1..] {
        let other = read(path)?;
        let pairing = paired(args, (&base, &other), &path.display().to_string(), &key);
        if pairing.matched.is_empty() {
            let hint = if ignored.is_empty() {
                "; --ignore PARAMS matches points that differ in those parameters"
            } else {
                ""
            };
            return Err(usage!(
                "{} and {} have no point in common (points match by their workload parameters{hint}); {}",
                args.files[0].display(),
                path.display(),
                nearest_pair(&base, &other)
            )
            .into());
        }
        pairings.push(pairing);
    }
    let comparison = crate::compare::Comparison {
        metric: args.metric,
        alpha: args.alpha,
        orientation: args.orientation,
        base: args.files[0].display().to_string(),
        pairings,
    };
    print_comparison(&comparison, args.format)
}

fn require_path(path: &Path) -> Result<(), UsageError> {
    std::fs::metadata(path)
        .map(drop)
        .map_err(|e| usage!("--path {}: {}", path.display(), describe_io(&e)))
}

/// `iolab measure -- COMMAND...`.
pub fn measure(args: &MeasureArgs, command: Vec<String>) -> Result<Ending, AppError> {
    require_path(&args.path)?;
    if let Some(label) = &args.label {
        crate::plan::check_label(label)?;
    }
    let output = args.out.output.as_deref();
    check_output(output, u64::from(args.repeat) * (64 << 10))?;
    let interrupt = Interrupt::install().map_err(anyhow::Error::from)?;
    let watch = crate::probe::environment::watch(&args.path);
    let mut result = build::new_result_file(command, Some(&args.path), true);
    // As text for the record (bytes that are not UTF-8 show as U+FFFD); the
    // command itself is run with its arguments byte for byte.
    let command_text: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut measurement = crate::record::measurement::Measurement {
        label: args.label.clone().unwrap_or_else(|| command_text.join(" ")),
        command: command_text.clone(),
        path: std::fs::canonicalize(&args.path)
            .unwrap_or_else(|_| args.path.clone())
            .display()
            .to_string(),
        runs: Vec::new(),
        wall_s: None,
    };
    let mut ending = Ending::Success;
    for index in 0..args.repeat {
        let outcome =
            match crate::run::command::run(&args.command, &watch, args.interval, &interrupt) {
                Ok(outcome) => outcome,
                Err(error) if index == 0 => {
                    return Err(usage!(
                        "cannot start {:?}: {}",
                        command_text[0],
                        describe_io(&error)
                    )
                    .into());
                }
                Err(error) => {
                    crate::say!(
                        "iolab: cannot start {:?}: {}",
                        command_text[0],
                        describe_io(&error)
                    );
                    ending = Ending::Failed;
                    break;
                }
            };
        if !outcome.succeeded() {
            let status = match (outcome.exit_code, outcome.signal) {
                (Some(code), _) => {
                    crate::say!(
                        "iolab: {:?} exited with status {code} (run {index})",
                        command_text[0]
                    );
                    code
                }
                (None, Some(signal)) => {
                    crate::say!(
                        "iolab: {:?} was killed by signal {signal} (run {index})",
                        command_text[0]
                    );
                    128 + signal
                }
                (None, None) => 1,
            };
            ending = Ending::CommandFailed(status.clamp(1, 255) as u8);
        }
        measurement
            .runs
            .push(crate::gather::measurement::command_run(index, &outcome));
        if ending != Ending::Success || interrupt.is_set() {
            break;
        }
    }
    let walls: Vec<f64> = measurement
        .runs
        .iter()
        .filter(|r| r.exit_code == Some(0))
        .map(|r| r.wall_ns as f64 / 1e9)
        .collect();
    measurement.wall_s = stats::describe(&walls);
    result.measurements.push(measurement);
    if let Some(path) = output {
        write_result(path, &result, Replace::Never)?;
    }
    if args.out.json {
        present(&result, true, false, output)?;
    } else {
        let mut text = crate::report::measurement::render(&result);
        if let Some(path) = output {
            text.push_str(&format!("results: {}\n", path.display()));
        }
        output::show_result(&text, &result, output)?;
    }
    if let Some(signal) = interrupt.signal() {
        return Ok(Ending::Interrupted(signal));
    }
    Ok(ending)
}

fn execute(
    plan: &RunPlan,
    session: &mut Session,
    interrupt: &Interrupt,
    command: Vec<String>,
    ranks: &Ranks,
) -> Result<Ending, AppError> {
    let speaks = ranks.speaks();
    let mut result = build::new_result_file(
        command,
        Some(session.measured_path()),
        plan.points.iter().any(|p| p.workload.uses_page_cache()),
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
        .then(|| status::Status::start(plan.progress, plan.json, plan.points.len(), None))
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
    let mut guests = guest::GuestSide::start(session, plan.guest.as_ref(), &plan.points, ranks)?;
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
    let mut presenter = driver::Presenter {
        json: plan.json,
        detail: plan.detail,
        output: plan.output.clone().filter(|_| !result.points.is_empty()),
        report: plan.report,
        after_table: None,
    };
    driver::finish(&mut [&mut presenter], &result)?;
    if !plan.json && matches!(driven.ending, Ending::Success | Ending::Warnings) {
        note_single_repetition(&plan.points);
    }
    Ok(strict_ending(driven.ending, plan.strict, &result))
}

/// A session in `dir` whose adaptive repetitions stop by the statistics' rule.
/// In a distributed run, the session is one rank's, with the run's id.
/// `given` when the run measures a file or device the user named, whose
/// directory need not be writable.
pub(crate) fn open_session(
    dir: &Path,
    given: bool,
    interrupt: &Interrupt,
    ranks: &Ranks,
) -> Result<Session, UsageError> {
    let run_id = ranks.run_id();
    let mut session = if given {
        Session::open_given(dir, &run_id, interrupt.clone())?
    } else {
        Session::open(dir, &run_id, interrupt.clone())?
    };
    session.set_enough_rule(stats::ci_within);
    session.distribute(ranks.peers());
    Ok(session)
}

/// The record of a measured point: built, outliers marked, summarised and
/// checked; failed repetitions are reported on stderr.
pub(crate) fn record_point(
    outcome: &crate::run::PointOutcome,
    environment: Option<&crate::record::environment::Environment>,
) -> Result<crate::record::Point, AppError> {
    let mut point = build::point(outcome);
    stats::mark_outliers(&mut point);
    point.summary = stats::summarize(&point).map_err(anyhow::Error::msg)?;
    point.checks = check::check(&point, environment);
    for repetition in &point.repetitions {
        if let Some(error) = &repetition.error {
            crate::say!(
                "iolab: {} repetition {} (index {}) failed: {error}",
                point.label,
                repetition.index + 1,
                repetition.index
            );
        }
    }
    Ok(point)
}

/// Keeps `point` in `points`: a new point is appended; a later round of a
/// point already there (same label and workload) joins its repetitions,
/// which are summarised and checked again (against `environment`, the
/// machine it ran on), keeping the checks only the guest adds.
pub(crate) fn keep_point(
    points: &mut Vec<crate::record::Point>,
    point: crate::record::Point,
    environment: Option<&crate::record::environment::Environment>,
) -> Result<(), AppError> {
    let in_rounds = point.repetitions.iter().any(|r| r.round.is_some());
    let Some(existing) = points
        .iter_mut()
        .find(|p| in_rounds && p.label == point.label && p.workload == point.workload)
    else {
        points.push(point);
        return Ok(());
    };
    let offset = u32::try_from(existing.repetitions.len()).unwrap_or(u32::MAX);
    for mut repetition in point.repetitions {
        repetition.index = repetition.index.saturating_add(offset);
        existing.repetitions.push(repetition);
    }
    let guest_checks: Vec<_> = point
        .checks
        .into_iter()
        .filter(|c| matches!(c.code.as_str(), "emulated-cpu" | "host-cache-under-guest"))
        .collect();
    stats::mark_outliers(existing);
    existing.summary = stats::summarize(existing).map_err(anyhow::Error::msg)?;
    existing.checks = check::check(existing, environment);
    existing.checks.extend(guest_checks);
    Ok(())
}

fn default_quick_output() -> PathBuf {
    output::default_output("quick")
}

pub(crate) fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mixed = (nanos ^ (u64::from(std::process::id()) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("{:08x}", mixed >> 32)
}

pub(crate) fn run_error(error: RunError) -> AppError {
    match error {
        RunError::Usage(usage) => AppError::Usage(usage),
        other => AppError::Other(anyhow::anyhow!(other)),
    }
}
