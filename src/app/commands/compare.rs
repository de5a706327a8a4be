//! `iolab compare`: two or more result files matched point by point (or one file split `--by` parameters), their ratios with intervals and verdicts, and the nearest pair named when nothing matches.

use crate::app::error::{AppError, Ending};
use crate::app::output::{self};
use crate::cli::{CompareArgs, CompareFormat, ParamList};
use crate::record::{ResultFile, write};
use crate::usage;
use std::path::PathBuf;

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
        Some(list) => list.fields.clone(),
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
                nearest_pair(&base, &other, (&args.files, &ignored), "compare")
            )
            .into());
        }
        pairings.push(pairing);
    }
    let comparison = crate::compare::Comparison {
        metric: args.metric.clone(),
        alpha: args.alpha,
        orientation: args.orientation,
        base: args.files[0].display().to_string(),
        pairings,
    };
    print_comparison(&comparison, args.format, None)
}

/// `iolab compare FILE --by direct,sync`: the points of one file that differ
/// only in those parameters, the first setting found as the base.
fn compare_within(
    args: &CompareArgs,
    by: &ParamList,
    result: ResultFile,
) -> Result<Ending, AppError> {
    if args.files.len() != 1 {
        let names: Vec<String> = args
            .files
            .iter()
            .map(|f| crate::console::neutralize(&f.display().to_string()).into_owned())
            .collect();
        let last = names.last().cloned().unwrap_or_default();
        return Err(usage!(
            "--by compares inside one result file; {} were given ({}): iolab compare {last} --by {} compares the last one's points, iolab compare {} without --by compares the files",
            names.len(),
            names.join(", "),
            by.text,
            names.join(" ")
        )
        .into());
    }
    let fields = &by.fields;
    // The first parameter splits base from other; all of them are ignored
    // when matching (direct-vs-buffered's O_DIRECT writes also use O_SYNC).
    let setting = |w: &crate::plan::Workload| {
        let value = serde_json::to_value(w).expect("a workload serializes");
        value
            .get(&fields[0])
            .map_or_else(|| "-".to_string(), |v| v.to_string())
    };
    let split = &by.names[0];
    let first = setting(&result.points[0].workload);
    // The other settings in the order first found, each compared with the first.
    let mut settings: Vec<String> = Vec::new();
    for point in &result.points {
        let value = setting(&point.workload);
        if value != first && !settings.contains(&value) {
            settings.push(value);
        }
    }
    if settings.is_empty() {
        return Err(usage!(
            "--by {}: {} has one setting of {split}; nothing to compare",
            by.text,
            args.files[0].display(),
        )
        .into());
    }
    // Each side named by its setting as a flag takes it (`machine=host`,
    // not the file's `-` for a default it leaves out, nor `"guest"`), a
    // guest configuration by its name.
    let param = crate::plan::sweep::Param::from_name(split);
    let shown = |point: &crate::record::Point| match param {
        Some(crate::plan::sweep::Param::GuestConfig) if !result.guests.is_empty() => result
            .guest_of(&point.workload)
            .map_or_else(|| "host".to_string(), |g| g.spec.label()),
        Some(param) => param
            .value_in(&point.workload)
            .map_or_else(|| "none".to_string(), |v| param.format_value(v)),
        None => setting(&point.workload),
    };
    let points_of = |value: &str| -> Vec<crate::record::Point> {
        result
            .points
            .iter()
            .filter(|p| setting(&p.workload) == value)
            .cloned()
            .collect()
    };
    let base_points = points_of(&first);
    // Both sides are of the one file, named once above the comparison.
    let base_name = format!("[{split}={}]", shown(&base_points[0]));
    let base = on_its_machine(base_points, &result);
    let key = |w: &crate::plan::Workload| crate::compare::key_without(w, fields);
    let mut pairings = Vec::with_capacity(settings.len());
    for value in &settings {
        let other_points = points_of(value);
        let other_name = format!("[{split}={}]", shown(&other_points[0]));
        let other = on_its_machine(other_points, &result);
        let pairing = paired(args, (&base, &other), &other_name, &key);
        if pairing.matched.is_empty() {
            return Err(usage!(
                "--by {}: no two points of {} differ only in {}",
                by.text,
                args.files[0].display(),
                by.text
            )
            .into());
        }
        pairings.push(pairing);
    }
    let comparison = crate::compare::Comparison {
        metric: args.metric.clone(),
        alpha: args.alpha,
        orientation: args.orientation,
        base: base_name,
        pairings,
    };
    let file = crate::console::neutralize(&args.files[0].display().to_string()).into_owned();
    print_comparison(
        &comparison,
        args.format,
        Some(&format!("{file}, by {}:", by.text)),
    )
}

/// `points` of `result` as a file of their own, with the environment they
/// were measured in: the guest's (`guest.environment`) when every one ran
/// in the guest, so host and guest are not told "environments: identical".
fn on_its_machine(points: Vec<crate::record::Point>, result: &ResultFile) -> ResultFile {
    let in_guest = points
        .iter()
        .all(|p| p.workload.machine == crate::plan::Machine::Guest);
    // Of several guest configurations, the one these points ran in.
    let one_guest = points
        .first()
        .and_then(|p| result.guest_of(&p.workload))
        .filter(|_| {
            in_guest
                && points
                    .windows(2)
                    .all(|w| w[0].workload.guest_config == w[1].workload.guest_config)
        });
    let guest_environment = one_guest.and_then(|g| g.environment.as_deref());
    let environment = match (in_guest, guest_environment) {
        (true, Some(environment)) => environment.clone(),
        _ => result.environment.clone(),
    };
    let (guest, guests) = match one_guest {
        Some(guest) if !result.guests.is_empty() => (Some(guest.clone()), Vec::new()),
        _ => (result.guest.clone(), result.guests.clone()),
    };
    ResultFile {
        points,
        environment,
        guest,
        guests,
        ..result.clone()
    }
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
        args.metric.clone(),
        args.alpha,
        args.orientation,
        key,
    );
    if let Some(margin) = args.margin {
        crate::compare::judge_equivalence(
            &mut pairing,
            (base, other),
            key,
            (args.metric.clone(), args.orientation, margin),
        );
    }
    pairing
}

/// The two points of two files that differ in the fewest parameters, and
/// those parameters, for a comparison that matched nothing, with the
/// `iolab COMMAND` line that compares them (`files` as given, `ignored`
/// already).
pub(crate) fn nearest_pair(
    base: &ResultFile,
    other: &ResultFile,
    (files, ignored): (&[std::path::PathBuf], &[String]),
    command: &str,
) -> String {
    match crate::compare::ignore_to_match(base, other, ignored) {
        Some((a, b, differing, names)) => format!(
            "the nearest, '{}' and '{}', differ in {differing}; to compare them as one: iolab {command} {} --ignore {names}",
            a.label,
            b.label,
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        None => "their points differ in how they were measured".to_string(),
    }
}

/// Prints `comparison` in `format`, a text one under `heading` (the one
/// file a `--by` comparison splits).
fn print_comparison(
    comparison: &crate::compare::Comparison,
    format: CompareFormat,
    heading: Option<&str>,
) -> Result<Ending, AppError> {
    use crate::report::render::{Csv, Json, Markdown, Render};
    let text = match format {
        CompareFormat::Terminal => output::terminal().render(comparison),
        CompareFormat::Markdown => Markdown.render(comparison),
        CompareFormat::Csv => Csv.render(comparison),
        CompareFormat::Json => Json.render(comparison),
    }
    .map_err(anyhow::Error::from)?;
    let text = match (heading, format) {
        (Some(heading), CompareFormat::Terminal) => format!("{heading}\n{text}"),
        (Some(heading), CompareFormat::Markdown) => format!("# {heading}\n\n{text}"),
        _ => text,
    };
    output::print(&text)?;
    Ok(Ending::Success)
}
