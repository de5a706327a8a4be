//! The terminal table of a result: one row per point (and one per direction
//! under a mixed point), a sweep's axes as columns, narrow by default and
//! whole with `--detail`, fitted to the terminal, and the checks.

use super::screen::Screen;
use super::units::{count, latency, mb_per_s, mib_per_s, significant};
use crate::plan::sweep::Param;
use crate::record::{LatencySummary, Point, ResultFile, Severity, Stat, Status};

pub use super::checks_summary::{checks, checks_summarised};
use comfy_table::CellAlignment;

/// The words every label shares, in the first's order, and each label's
/// other words (`read random 4KiB qd8` and `… qd16`: `read random 4KiB`,
/// then `qd8` and `qd16`): rows, legends and curves named by what varies,
/// what they share said once. A name that would be left without a word,
/// or alike another's, stays whole.
pub fn split_by_what_varies(labels: &[&str]) -> (String, Vec<String>) {
    let words: Vec<Vec<&str>> = labels
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let shared: Vec<&str> = match words.as_slice() {
        [] | [_] => Vec::new(),
        [first, rest @ ..] => first
            .iter()
            .copied()
            .filter(|word| rest.iter().all(|other| other.contains(word)))
            .collect(),
    };
    let names: Vec<String> = words
        .iter()
        .map(|own| {
            own.iter()
                .copied()
                .filter(|w| !shared.contains(w))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let alike = |name: &String| name.is_empty() || names.iter().filter(|n| *n == name).count() > 1;
    let whole: Vec<bool> = names.iter().map(alike).collect();
    let names = names
        .into_iter()
        .zip(whole)
        .zip(labels)
        .map(|((name, whole), label)| if whole { (*label).to_string() } else { name })
        .collect();
    (shared.join(" "), names)
}

/// The parameters whose value differs between the points of `result`
/// (a sweep's axes), in the table's nesting order, outermost first.
pub fn varying_parameters(result: &ResultFile) -> Vec<Param> {
    let mut varying: Vec<Param> = Param::ALL
        .iter()
        .copied()
        .filter(|&param| {
            let mut values = result.points.iter().map(|p| shown(param, &p.workload));
            values
                .next()
                .is_some_and(|first| values.any(|other| other != first))
        })
        .collect();
    varying.reverse();
    varying
}

/// A parameter's value in `workload` as `run`'s flag takes it.
fn shown(param: Param, workload: &crate::plan::Workload) -> String {
    param
        .value_in(workload)
        .map_or_else(|| "-".to_string(), |value| param.format_value(value))
}

/// Renders the table of every point in `result` for `screen`: the point
/// (or one column per swept parameter), MiB/s, IOPS, p50, p99, the
/// repetitions and the worst check; `detail` adds MB/s, the maximum
/// latency, CPU and the cache at start.
pub fn render(result: &ResultFile, screen: Screen, detail: bool) -> String {
    let axes = varying_parameters(result);
    // The labels say something the axes do not: names of the user's, not
    // the description a sweep's labels start with.
    let labelled = result
        .points
        .iter()
        .any(|p| !p.label.starts_with(&p.workload.describe()));
    // Named points (quick's SEQ1M Q8) say their parameters in the name:
    // the axes' columns join them only with `detail`.
    let by_axes = result.points.len() > 1 && !axes.is_empty() && (!labelled || detail);
    let mut header: Vec<String> = Vec::new();
    if !by_axes || labelled {
        header.push("point".into());
    }
    if by_axes {
        header.extend(axes.iter().map(|p| p.name().to_string()));
    }
    let identity = header.len();
    // A metadata workload's I/Os are operations on files and directories.
    let metadata = !result.points.is_empty()
        && result
            .points
            .iter()
            .all(|p| p.workload.work() == crate::plan::Work::Tree);
    let figures: &[&str] = if detail {
        &[
            "MiB/s",
            "MB/s",
            "IOPS",
            "p50",
            "p99",
            "max",
            "CPU",
            "cached at start",
            "n ±CI",
            "checks",
        ]
    } else {
        &["MiB/s", "IOPS", "p50", "p99", "n ±CI", "checks"]
    };
    header.extend(figures.iter().map(|f| match *f {
        "IOPS" if metadata => "ops/s".to_string(),
        f => f.to_string(),
    }));
    // One point's long name goes above its table, whole, rather than wrapped
    // in its first cell when the table is wider than the screen; the cell
    // says the point's operation.
    let build = |named_above: &Option<String>| {
        let mut table = screen.table();
        table.set_header(header.clone());
        for point in &result.points {
            let mut identity_cells = Vec::new();
            if !by_axes || labelled {
                identity_cells.push(match &named_above {
                    Some(_) => point.workload.op.name().to_string(),
                    None => row_label(point),
                });
            }
            if by_axes {
                identity_cells.extend(axes.iter().map(|&p| shown(p, &point.workload)));
            }
            let mut cells = identity_cells;
            cells.extend(figures_of(point, detail));
            table.add_row(cells);
            // Items and I/Os together are no one figure, and groups of one
            // direction each are their directions already: the group rows say.
            let rows = if mixes_items_and_io(point) || split_by_direction(point) {
                Vec::new()
            } else {
                direction_rows(point, detail)
            };
            // With --detail, fio's per-job view: each job's rate, and how far apart.
            let jobs = if detail { job_rows(point) } else { Vec::new() };
            for (name, direction) in rows.into_iter().chain(jobs) {
                let mut cells = vec![name];
                cells.extend(std::iter::repeat_n(String::new(), identity - 1));
                cells.extend(direction);
                table.add_row(cells);
            }
            // A point of groups: each group's own row under the combined one.
            for group in &point.groups {
                let mut cells = vec![format!(
                    "  {}: {}{}",
                    group.label,
                    group.workload.describe(),
                    own_time(point, group)
                )];
                cells.extend(std::iter::repeat_n(String::new(), identity - 1));
                cells.extend(figures_of(group, detail));
                table.add_row(cells);
                for (name, direction) in direction_rows(group, detail) {
                    let mut cells = vec![format!("  {name}")];
                    cells.extend(std::iter::repeat_n(String::new(), identity - 1));
                    cells.extend(direction);
                    table.add_row(cells);
                }
            }
        }
        for column in identity..identity + figures.len() - 1 {
            if let Some(column) = table.column_mut(column) {
                column.set_cell_alignment(CellAlignment::Right);
            }
        }
        table
    };
    let long_name = match result.points.as_slice() {
        [only] if row_label(only).chars().count() > NAME_IN_CELL => Some(row_label(only)),
        _ => None,
    };
    let mut table = build(&None);
    let mut named_above = None;
    if long_name.is_some() && !screen.fits(&table) {
        named_above = long_name;
        table = build(&named_above);
    }
    let mut text = String::new();
    if let Some(name) = &named_above {
        text.push_str(&screen.wrap(&format!("point: {name}")));
        text.push('\n');
    }
    if by_axes {
        let fixed = fixed_parameters(result, &axes);
        if !fixed.is_empty() {
            text.push_str(&screen.wrap(&format!("every point: {fixed}")));
            text.push('\n');
        }
    }
    text.push_str(&screen.fit_keyed(&table, identity));
    text.push('\n');
    // The queued engines as the registry declares them, so a new one is named here too.
    let queued: Vec<&str> = crate::plan::EngineKind::ALL
        .iter()
        .filter(|engine| engine.capabilities().queued)
        .map(|engine| engine.name())
        .collect();
    text.push_str(&screen.wrap(&format!(
        "MiB/s = 2^20 bytes/s{}; p50, p99{} latency per I/O (queued engines — {} — from \
         submission to completion){}; n ±CI = repetitions and the half-width of the 95% interval of the mean.",
        match (detail, metadata) {
            (true, true) => ", MB/s = 10^6 bytes/s, - where no bytes moved; ops/s = operations on files or directories (directories listed, for readdir) per second",
            (false, true) => ", - where no bytes moved; ops/s = operations on files or directories (directories listed, for readdir) per second",
            (true, false) => ", MB/s = 10^6 bytes/s",
            (false, false) => "",
        },
        if detail { ", max" } else { "" },
        queued.join(", "),
        if detail {
            "; CPU = I/O threads' CPU time over wall time (100% = one core)"
        } else {
            "; --detail adds MB/s, max latency, CPU and the cache at start"
        }
    )));
    text.push('\n');
    if result
        .points
        .iter()
        .any(|p| p.summary.is_none() && cut_short(p).is_some())
    {
        text.push_str(&screen.wrap(
            "cut T = no repetition ran its course: the figures are of the T measured before the signal, and count in no summary",
        ));
        text.push('\n');
    }
    if detail {
        text.push_str(&super::percentiles::block(result));
    }
    text.push_str(&screen.wrap(&if detail {
        checks(result)
    } else {
        checks_summarised(result)
    }));
    text
}

/// The first cell of a point's row: its label; for a point of groups
/// labelled by its groups' workloads (which their own rows show), the
/// groups' names, as the figures beside it are theirs combined.
fn row_label(point: &Point) -> String {
    let by_groups = point
        .groups
        .iter()
        .map(|g| format!("{}: {}", g.label, g.workload.describe()))
        .collect::<Vec<_>>()
        .join(" + ");
    if point.groups.is_empty() || point.label != by_groups {
        return point.label.clone();
    }
    let names: Vec<&str> = point.groups.iter().map(|g| g.label.as_str()).collect();
    format!("all of {}", names.join(" + "))
}

/// The identifying parameters every point shares, where they are not the
/// default, as `engine uring, iodepth 32`: what the axes' columns leave out.
fn fixed_parameters(result: &ResultFile, axes: &[Param]) -> String {
    let Some(first) = result.points.first() else {
        return String::new();
    };
    let defaults = crate::plan::default_workload();
    let mut fixed: Vec<String> = Param::ALL
        .iter()
        .rev()
        .filter(|p| p.identifies() && !axes.contains(p))
        .filter(|&&p| shown(p, &first.workload) != shown(p, &defaults))
        .map(|&p| format!("{} {}", p.name(), shown(p, &first.workload)))
        .collect();
    if fixed.is_empty() {
        fixed.push("the defaults of the rest".into());
    }
    fixed.join(", ")
}

/// The figures of a point's row, the narrow set or with `detail` all.
fn figures_of(point: &Point, detail: bool) -> Vec<String> {
    let mut cells = row(point);
    // row() gives: label, workload, MiB/s, MB/s, IOPS, p50, p99, max, CPU, cached, n.
    let worst = worst_check(point);
    cells.drain(..2);
    if detail {
        cells.push(worst);
        cells
    } else {
        vec![
            cells[0].clone(),
            cells[2].clone(),
            cells[3].clone(),
            cells[4].clone(),
            cells[8].clone(),
            worst,
        ]
    }
}

/// The longest point name a one-point table keeps in its first cell.
const NAME_IN_CELL: usize = 24;

/// The most serious check of a point in a word, and how many there are.
fn worst_check(point: &Point) -> String {
    let Some(worst) = point.checks.iter().map(|c| c.severity).max() else {
        return String::new();
    };
    let not_the_answer = point
        .checks
        .iter()
        .filter(|c| c.severity >= Severity::Warning)
        .find_map(|c| crate::check::not_the_answer(&c.code));
    let word = match (not_the_answer, worst) {
        (Some(word), _) => word,
        (None, Severity::Error) => "error",
        (None, Severity::Warning) => "warning",
        (None, Severity::Info) => "note",
    };
    match point.checks.len() {
        1 => word.to_string(),
        n => format!("{word} +{}", n - 1),
    }
}

fn row(point: &Point) -> Vec<String> {
    let mut cells = vec![point.label.clone(), point.workload.describe()];
    let Some(summary) = &point.summary else {
        if let Some(figures) = cut_short(point) {
            cells.extend(figures);
            return cells;
        }
        let status = point
            .repetitions
            .iter()
            .map(|r| r.status)
            .find(|s| *s != Status::Ok)
            .map_or("no result", |s| {
                if s == Status::Failed {
                    "FAILED"
                } else {
                    "interrupted"
                }
            });
        cells.push(status.to_string());
        cells.extend(std::iter::repeat_n(String::new(), 8));
        return cells;
    };
    let throughput = &summary.throughput_bps;
    let lat = summary.latency_ns.as_ref();
    let measured: Vec<_> = point.measured().collect();
    let cpu = measured
        .iter()
        .filter_map(|r| r.cpu.as_ref())
        .map(|c| c.utilization)
        .sum::<f64>()
        / measured.len().max(1) as f64;
    let cached = measured
        .iter()
        .filter_map(|r| r.cache.as_ref())
        .map(|c| c.resident_fraction)
        .fold(None, |worst: Option<f64>, f| {
            Some(worst.map_or(f, |w| w.max(f)))
        });
    // A metadata workload's figure is its operations: no bytes, no MiB/s,
    // and the interval is of the operations per second.
    let tree = point.workload.work() == crate::plan::Work::Tree;
    // A tree's group beside files' groups: their operations and I/Os are
    // not added up, nor their latencies put in one histogram's percentiles.
    let per_group = |text: String| {
        if mixes_items_and_io(point) {
            "-".to_string()
        } else {
            text
        }
    };
    let moved = |text: String| {
        if tree && throughput.mean == 0.0 {
            "-".to_string()
        } else {
            text
        }
    };
    cells.extend([
        moved(significant(mib_per_s(throughput.mean))),
        moved(significant(mb_per_s(throughput.mean))),
        per_group(count(summary.iops.mean)),
        per_group(percentile(lat, 50.0)),
        per_group(percentile(lat, 99.0)),
        per_group(lat.map_or_else(|| "-".to_string(), |l| latency(l.max as f64))),
        if measured.iter().any(|r| r.cpu.is_some()) {
            format!("{:.0}%", cpu * 100.0)
        } else {
            "-".to_string()
        },
        cached.map_or_else(|| "-".to_string(), |f| format!("{:.1}%", f * 100.0)),
        interval(if tree { &summary.iops } else { throughput }),
    ]);
    cells
}

/// The figures of a point that has no summary but a repetition a signal
/// cut short after its timed region began (the last such): what it
/// measured until then, its interval cell saying how long that was.
fn cut_short(point: &Point) -> Option<Vec<String>> {
    let cut = point
        .repetitions
        .iter()
        .rev()
        .find(|r| r.status == Status::Interrupted && r.throughput_bps.is_some())?;
    let lat = cut.latency_ns.as_ref();
    let bps = cut.throughput_bps?;
    let tree = point.workload.work() == crate::plan::Work::Tree;
    let moved = |text: String| if tree { "-".to_string() } else { text };
    Some(vec![
        moved(significant(mib_per_s(bps))),
        moved(significant(mb_per_s(bps))),
        cut.iops.map_or_else(|| "-".to_string(), count),
        percentile(lat, 50.0),
        percentile(lat, 99.0),
        lat.map_or_else(|| "-".to_string(), |l| latency(l.max as f64)),
        cut.cpu.as_ref().map_or_else(
            || "-".to_string(),
            |c| format!("{:.0}%", c.utilization * 100.0),
        ),
        "-".to_string(),
        format!("cut {}", latency(cut.elapsed_ns.unwrap_or(0) as f64)),
    ])
}

/// A point cut short in one line, for a report: `interrupted after 3.81 s:
/// 5998 MiB/s, 1.54M IOPS, p99 3.03 µs (partial: counts in no summary)`;
/// `None` for a point not cut short or cut before its timed region.
pub fn cut_short_line(point: &Point) -> Option<String> {
    let cut = point
        .repetitions
        .iter()
        .rev()
        .find(|r| r.status == Status::Interrupted && r.iops.is_some())?;
    let mut text = format!(
        "interrupted after {}: ",
        latency(cut.elapsed_ns.unwrap_or(0) as f64)
    );
    let iops = count(cut.iops.unwrap_or(0.0));
    match (point.workload.items, cut.throughput_bps) {
        (None, Some(bps)) => text.push_str(&format!(
            "{} MiB/s, {iops} IOPS",
            significant(mib_per_s(bps))
        )),
        _ => text.push_str(&format!("{iops} ops/s")),
    }
    if let Some(p99) = cut.latency_ns.as_ref().and_then(|l| l.percentile(99.0)) {
        text.push_str(&format!(", p99 {}", latency(p99 as f64)));
    }
    text.push_str(" (partial: counts in no summary)");
    Some(text)
}

/// Whether a point's groups each move one direction, no two the same: its
/// direction rows would repeat the groups' rows.
fn split_by_direction(point: &Point) -> bool {
    let mut seen = Vec::new();
    !point.groups.is_empty()
        && point.groups.iter().all(|group| {
            let sole = group.workload.directions().sole();
            let new = sole.is_some_and(|direction| !seen.contains(&direction));
            seen.extend(sole);
            new
        })
}

/// ` (ran 131 ms of 2.00 s)` when a group's timed region was
/// shorter than its point's (a one-pass reader beside a paced logger): its
/// figures are over its own time, the point's over the whole. Medians of
/// the measured repetitions; nothing when they are within 10%.
fn own_time(point: &Point, group: &Point) -> String {
    let median = |p: &Point| {
        let mut times: Vec<u64> = p.measured().filter_map(|r| r.elapsed_ns).collect();
        times.sort_unstable();
        times.get(times.len() / 2).copied()
    };
    match (median(group), median(point)) {
        (Some(own), Some(whole)) if (own as f64) < 0.9 * whole as f64 => format!(
            " (ran {} of {})",
            latency(own as f64),
            latency(whole as f64)
        ),
        _ => String::new(),
    }
}

/// Whether a point of groups holds a tree's group beside files' groups:
/// its combined operations would add items to I/Os.
fn mixes_items_and_io(point: &Point) -> bool {
    point
        .groups
        .iter()
        .any(|g| g.workload.work() == crate::plan::Work::Tree)
        && point
            .groups
            .iter()
            .any(|g| g.workload.work() != crate::plan::Work::Tree)
}

/// A mixed point's rows under its own, one per direction: its name and
/// share, then that direction's throughput, IOPS, latency and interval in
/// the columns of [`figures_of`]; CPU and cache belong to the whole.
fn direction_rows(point: &Point, detail: bool) -> Vec<(String, Vec<String>)> {
    let Some(summary) = &point.summary else {
        return Vec::new();
    };
    let mix = point.workload.directions();
    summary
        .directions
        .iter()
        .map(|d| {
            let asked = mix.percent(d.direction);
            let lat = d.latency_ns.as_ref();
            let share = point.ops_share(d.direction).unwrap_or(0.0) * 100.0;
            // The groups' shares are what their paces made them, a trace's
            // what the trace holds: none was asked.
            let name =
                if point.groups.is_empty() && point.workload.work() != crate::plan::Work::Trace {
                    format!(
                        "  ↳ {} {share:.1}% of I/Os (asked {asked}%)",
                        d.direction.name()
                    )
                } else {
                    format!("  ↳ {} {share:.1}% of I/Os", d.direction.name())
                };
            let mib = significant(mib_per_s(d.throughput_bps.mean));
            let iops = count(d.iops.mean);
            let (p50, p99) = (percentile(lat, 50.0), percentile(lat, 99.0));
            let n = interval(&d.throughput_bps);
            let figures = if detail {
                vec![
                    mib,
                    significant(mb_per_s(d.throughput_bps.mean)),
                    iops,
                    p50,
                    p99,
                    lat.map_or_else(|| "-".to_string(), |l| latency(l.max as f64)),
                    String::new(),
                    String::new(),
                    n,
                    String::new(),
                ]
            } else {
                vec![mib, iops, p50, p99, n, String::new()]
            };
            (name, figures)
        })
        .collect()
}

/// Each job's row of a point of several jobs (`--detail`): its MiB/s, MB/s
/// and IOPS over its own timed region, the mean of the measured
/// repetitions, and a last row with the fastest over the slowest job
/// (fio's per-job view, where an imbalance between `--jobs` shows).
fn job_rows(point: &Point) -> Vec<(String, Vec<String>)> {
    if point.workload.jobs < 2 || !point.groups.is_empty() {
        return Vec::new();
    }
    // Job number → (bytes/s, I/Os a second) of each measured repetition.
    let mut rates: std::collections::BTreeMap<u32, Vec<(f64, f64)>> = Default::default();
    for repetition in point.measured() {
        for job in repetition.jobs.iter().filter(|j| j.elapsed_ns > 0) {
            let seconds = job.elapsed_ns as f64 / 1e9;
            rates
                .entry(job.job)
                .or_default()
                .push((job.bytes as f64 / seconds, job.ops as f64 / seconds));
        }
    }
    if rates.len() < 2 {
        return Vec::new();
    }
    let mean = |values: &[(f64, f64)], pick: fn(&(f64, f64)) -> f64| {
        values.iter().map(pick).sum::<f64>() / values.len() as f64
    };
    let mut rows = Vec::new();
    let mut throughputs = Vec::new();
    for (job, values) in &rates {
        let bps = mean(values, |v| v.0);
        throughputs.push(bps);
        let figures = vec![
            significant(mib_per_s(bps)),
            significant(mb_per_s(bps)),
            count(mean(values, |v| v.1)),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            String::new(),
            values.len().to_string(),
            String::new(),
        ];
        rows.push((format!("  ↳ job {job}"), figures));
    }
    let fastest = throughputs.iter().copied().fold(0.0f64, f64::max);
    let slowest = throughputs.iter().copied().fold(f64::INFINITY, f64::min);
    if slowest > 0.0 {
        rows.push((
            format!("  ↳ fastest/slowest job {:.2}×", fastest / slowest),
            vec![String::new(); 10],
        ));
    }
    rows
}

/// Percentile `p` of `lat`, or `-` without one.
fn percentile(lat: Option<&LatencySummary>, p: f64) -> String {
    lat.and_then(|l| l.percentile(p))
        .map_or_else(|| "-".to_string(), |ns| latency(ns as f64))
}

/// `n ±half-width%` of the 95% interval of the mean, or `n` without one.
fn interval(stat: &Stat) -> String {
    match (stat.ci95_low, stat.ci95_high) {
        (Some(low), Some(high)) if stat.mean > 0.0 => {
            format!("{} ±{:.1}%", stat.n, (high - low) / 2.0 / stat.mean * 100.0)
        }
        _ => stat.n.to_string(),
    }
}

#[cfg(test)]
mod tests {
    /// Names by what varies; one left empty, or alike another, stays whole.
    #[test]
    fn names_say_what_varies_or_stay_whole() {
        let (shared, names) = super::split_by_what_varies(&["read 4KiB qd1", "read 4KiB qd8"]);
        assert_eq!(
            (shared.as_str(), names),
            ("read 4KiB", vec!["qd1".into(), "qd8".into()])
        );
        let (_, names) = super::split_by_what_varies(&["a x", "a y", "a y"]);
        assert_eq!(names, ["x", "a y", "a y"]);
        let (_, names) = super::split_by_what_varies(&["a b", "a b c"]);
        assert_eq!(names, ["a b", "c"]);
    }

    /// One point's long name goes above a table too wide for the screen,
    /// whole; a screen wide enough keeps it in the row.
    #[test]
    fn one_points_long_name_goes_above_a_narrow_table() {
        use crate::report::screen::Screen;
        use crate::report::studies::testing::{file, point};
        let mut result = file(crate::plan::study::StudyTable::DdBlocksize);
        let mut measured = point(crate::plan::example_workload(), &[1.0]);
        measured.label = "read random 4KiB posixaio qd32 direct".into();
        measured.summary = crate::stats::summarize(&measured).unwrap();
        result.points.push(measured);
        let narrow = super::render(&result, Screen { width: Some(60) }, false);
        assert!(
            narrow.starts_with("point: read random 4KiB posixaio qd32 direct\n"),
            "{narrow}"
        );
        assert!(narrow.lines().all(|l| l.chars().count() <= 60), "{narrow}");
        let wide = super::render(&result, Screen::UNLIMITED, false);
        assert!(!wide.starts_with("point:"), "{wide}");
        assert!(
            wide.contains("│ read random 4KiB posixaio qd32 direct ┆"),
            "{wide}"
        );
    }

    fn finding(code: &str, severity: crate::record::Severity) -> crate::record::Check {
        crate::record::Check {
            code: code.into(),
            severity,
            message: String::new(),
            evidence: None,
        }
    }

    /// A row whose check says its figures are not the answer says so in its
    /// cell, not only "warning"; other warnings keep the severity word.
    #[test]
    fn a_row_that_is_not_the_answer_says_so() {
        use crate::report::studies::testing::point;
        let mut measured = point(crate::plan::example_workload(), &[1.0]);
        measured.checks = vec![
            finding("too-short", crate::record::Severity::Warning),
            finding("latency-target-unsettled", crate::record::Severity::Warning),
        ];
        assert_eq!(super::worst_check(&measured), "unsettled +1");
        measured.checks = vec![finding("too-short", crate::record::Severity::Warning)];
        assert_eq!(super::worst_check(&measured), "warning");
        measured.checks = vec![finding("cache-served", crate::record::Severity::Info)];
        assert_eq!(super::worst_check(&measured), "note");
    }
}
