//! The one-file HTML report: per result file its command, environment, checks, a sortable table and SVG charts; across files, ratio heatmaps.
//!
//! Self-contained: styles and the few lines of sorting script are inline,
//! nothing is fetched. Every text that comes from a result file is escaped.

use super::escape::escape;
use super::svg::{self, Series};
use super::units::{mib_per_s, significant};
use super::view::ReportView;
use crate::compare::{self, Comparison, Verdict};
use crate::plan::units::format_size;
use crate::record::{Point, ResultFile};
use std::fmt::Write;

mod charts;
pub(super) mod headline;
mod tables;

use tables::{devices_table, directions_table, groups_table, points_table, ranks_table};

use charts::{POINTS_WITH_CURVES, SIZE_CHARTS, charts, size_charts, size_series};

/// Series per chart; more make another chart. Past the eight colours,
/// series are told apart by dashes.
const SERIES_PER_CHART: usize = 32;

/// The generator tag every iolab report carries in its head: iolab replaces
/// an existing report beside a result file only when it carries this.
pub const GENERATOR: &str = "iolab report";

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse;margin:1em 0;font-size:90%}th,td{border:1px solid #ccc;padding:3px 8px}\
th{background:#f3f3f3;cursor:pointer}td.num{text-align:right;white-space:nowrap}code{background:#f6f6f6;padding:2px 4px}\
svg.chart{width:100%;max-width:1000px;display:block;margin:1em 0}svg text{font-size:11px;fill:#222}\
svg .title{font-size:13px;font-weight:bold}div.wide{overflow-x:auto;max-width:100%}table.study{font-size:80%}svg .axis line{stroke:#444}svg .axis line.grid{stroke:#e4e4e4}.check-warning{color:#a60}p.note{color:#555;font-size:90%;margin:.2em 0;max-width:60em}.check-error{color:#c00}.verdict-better{color:#060;font-weight:bold}.verdict-worse{color:#c00;font-weight:bold}p.headline{font-size:120%;font-weight:bold;margin:.5em 0 .5em}.trust{margin:.3em 0 1em}.trust p{margin:.2em 0}.trust ul{margin:.2em 0}details{margin:1em 0}summary{cursor:pointer;font-weight:bold}";

/// Sorting by clicking a header; `#selftest` sorts the first table by its
/// second column and records the outcome in `body[data-selftest]` for the browser test.
const SCRIPT: &str = r##"
function sortTable(table, column) {
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const dir = table.dataset.sortColumn == column && table.dataset.sortDir == "asc" ? "desc" : "asc";
  const key = r => { const c = r.cells[column]; const v = c.dataset.value; return v !== undefined ? parseFloat(v) : c.textContent; };
  rows.sort((a, b) => { const x = key(a), y = key(b); const o = x < y ? -1 : x > y ? 1 : 0; return dir == "asc" ? o : -o; });
  rows.forEach(r => body.appendChild(r));
  table.dataset.sortColumn = column; table.dataset.sortDir = dir;
}
document.querySelectorAll("table.sortable th").forEach((th, i) => {
  th.addEventListener("click", () => sortTable(th.closest("table"), th.cellIndex));
});
if (location.hash == "#selftest") {
  const table = document.querySelector("table.sortable");
  let ok = "no-table";
  if (table) {
    sortTable(table, 1); sortTable(table, 1);
    const values = Array.from(table.tBodies[0].rows).map(r => parseFloat(r.cells[1].dataset.value));
    ok = values.every((v, i) => i == 0 || values[i - 1] >= v) ? "sorted" : "unsorted";
  }
  document.body.dataset.selftest = ok;
  // Layout as drawn: no two x-axis labels of a line chart overlap, and no
  // unrotated text reaches past its chart's edges.
  let layout = "ok";
  document.querySelectorAll("svg.chart[data-kind=line]").forEach(svg => {
    const name = svg.getAttribute("aria-label");
    const box = svg.viewBox.baseVal;
    const ticks = Array.from(svg.querySelectorAll(".x-axis text:not(.label)")).map(t => t.getBBox());
    ticks.sort((a, b) => a.x - b.x);
    for (let i = 1; i < ticks.length; i++) {
      if (ticks[i].x < ticks[i - 1].x + ticks[i - 1].width) layout = "overlap in " + name;
    }
    svg.querySelectorAll("text:not([transform])").forEach(t => {
      const b = t.getBBox();
      if (b.x < 0 || b.x + b.width > box.width + 0.5 || b.y + b.height > box.height + 0.5) {
        layout = "cut in " + name + ": " + t.textContent;
      }
    });
  });
  document.body.dataset.layout = layout;
  // Where the answer's first picture ends, in CSS pixels from the top:
  // within the first screen (900 px high) when the report leads with it.
  const first = document.querySelector("section.answer svg.chart");
  document.body.dataset.answerBottom = first ? Math.round(first.getBoundingClientRect().bottom) : -1;
  // Where the verdict on trusting it ends, and how many files' (or sides')
  // bars the answer draws: the distinct colours of bars with a height.
  const trust = document.querySelector(".trust");
  document.body.dataset.trustBottom = trust ? Math.round(trust.getBoundingClientRect().bottom) : -1;
  const drawn = Array.from(document.querySelectorAll("section.answer rect.bar")).filter(r => r.getBBox().height > 0);
  document.body.dataset.barColours = new Set(drawn.map(r => r.getAttribute("fill"))).size;
}
"##;

fn cell_number(value: f64, text: String) -> String {
    format!(
        r#"<td class="num" data-value="{value}">{}</td>"#,
        escape(&text)
    )
}

/// The report of a view's files, the first being the base of the comparisons.
pub fn render(view: &ReportView<'_>) -> String {
    let files = &view.files;
    let mut html = String::new();
    let _ = write!(
        html,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"generator\" content=\"{GENERATOR}\"><title>iolab report</title><style>{STYLE}</style></head><body>"
    );
    let _ = write!(
        html,
        "<h1>iolab report</h1><p>{}; MiB/s = 2<sup>20</sup> bytes/s, MB/s = 10<sup>6</sup> bytes/s; \
         error bars and ± are 95% confidence intervals of the mean over repetitions.</p>",
        match files.as_slice() {
            [(name, _)] => escape(name),
            _ => format!("{} result files, compared with the first", files.len()),
        }
    );
    html.push_str(&headline::headline(view));
    html.push_str(&headline::trust(view));
    // The answer first: a picture of the result (quick's bars, a sweep's
    // curves, several files side by side), the studies' own tables and the
    // comparison; then each file's tables; what the machine was, the
    // devices and the checks after, folded.
    html.push_str(&answer(view));
    html.push_str(&study_tables(&view.study_tables));
    if let Some(comparison) = &view.comparison {
        html.push_str(&comparisons(comparison, view));
    }
    let shared_environment = files.len() > 1
        && files
            .windows(2)
            .all(|pair| compare::environment_difference(pair[0].1, pair[1].1).is_empty());
    if shared_environment {
        let _ = write!(
            html,
            "<details class=\"environment\"><summary>Environment (the same in all {} files)</summary>{}</details>",
            files.len(),
            environment(files[0].1)
        );
    }
    // One file's curves are its answer, drawn at the top already.
    let charts_above = matches!(files.as_slice(), [(_, only)] if !is_quick(only));
    for (index, (name, result)) in files.iter().enumerate() {
        html.push_str(&section(
            index,
            name,
            result,
            !shared_environment,
            !charts_above,
        ));
    }
    let _ = writeln!(html, "<script>{SCRIPT}</script></body></html>");
    html
}

/// The studies' own tables first: what the publication printed, from these files.
fn study_tables(tables: &[super::text_table::TextTable]) -> String {
    if tables.is_empty() {
        return String::new();
    }
    let mut html = String::from("<section class=\"studies\"><h2>The study's own tables</h2>");
    for table in tables {
        html.push_str(&table.html());
    }
    html.push_str("</section>");
    html
}

/// The picture that answers: quick's eight bars; one file's curves over
/// its swept axis; several files' points overlaid, bar beside bar.
fn answer(view: &ReportView<'_>) -> String {
    let files = &view.files;
    let mut html = String::from("<section class=\"answer\">");
    html.push_str(&headline::ratio_chart(view));
    match files.as_slice() {
        [(_, result)] if is_quick(result) => html.push_str(&quick_bars(result)),
        [(_, result)] => {
            html.push_str(&host_and_guest_bars(result));
            html.push_str(&charts(result));
        }
        _ => html.push_str(&files_side_by_side(view)),
    }
    html.push_str("</section>");
    html
}

/// A host against its guest: each point's host and guest throughput, bar
/// beside bar, under the ratio chart that divides them (nothing without a
/// guest).
fn host_and_guest_bars(result: &ResultFile) -> String {
    let pairs = super::studies::guest::pairs(result);
    if pairs.is_empty() {
        return String::new();
    }
    let groups: Vec<svg::BarGroup> = pairs
        .iter()
        .take(POINTS_WITH_CURVES)
        .map(|(host, guest)| svg::BarGroup {
            label: host.label.trim_end_matches(" machine=host").to_string(),
            bars: vec![bar_of(host), bar_of(guest)],
            notes: Vec::new(),
        })
        .collect();
    svg::bar_chart(
        "Throughput on the host and in its guest (MiB/s, 95% intervals)",
        "MiB/s",
        &["host".to_string(), "guest".to_string()],
        &groups,
    )
}

/// Whether every point of `result` is one of quick's tests.
fn is_quick(result: &ResultFile) -> bool {
    !result.points.is_empty()
        && result
            .points
            .iter()
            .all(|p| crate::plan::quick::test_of(&p.label).is_some())
}

/// A point's mean MiB/s and its 95% interval.
fn bar_of(point: &Point) -> Option<svg::Bar> {
    let t = &point.summary.as_ref()?.throughput_bps;
    let interval = t
        .ci95_low
        .zip(t.ci95_high)
        .map(|(l, h)| (mib_per_s(l), mib_per_s(h)));
    Some((mib_per_s(t.mean), interval))
}

/// Quick's result as a desktop benchmark shows it: each test a group, its
/// read and write bars with their MiB/s, and the 4 KiB tests' IOPS above.
fn quick_bars(result: &ResultFile) -> String {
    let groups: Vec<svg::BarGroup> = crate::plan::quick::TESTS
        .iter()
        .map(|test| {
            let points: Vec<Option<&Point>> = ["read", "write"]
                .iter()
                .map(|verb| {
                    result
                        .points
                        .iter()
                        .find(|p| crate::plan::quick::test_of(&p.label) == Some((test, verb)))
                })
                .collect();
            svg::BarGroup {
                label: (*test).to_string(),
                bars: points.iter().map(|p| p.and_then(bar_of)).collect(),
                // Small blocks are judged by IOPS.
                notes: points
                    .iter()
                    .map(|p| match p.and_then(|p| p.summary.as_ref()) {
                        Some(summary) if test.starts_with("RND4K") => {
                            format!("{} IOPS", super::units::count(summary.iops.mean))
                        }
                        _ => String::new(),
                    })
                    .collect(),
            }
        })
        .collect();
    svg::bar_chart(
        "iolab quick: throughput of each test (MiB/s)",
        "MiB/s",
        &["read".into(), "write".into()],
        &groups,
    )
}

/// Several files on the same axes: the base's points in order, each with a
/// bar per file that measured it (matched as compare matches them).
fn files_side_by_side(view: &ReportView<'_>) -> String {
    let files = &view.files;
    let Some((_, base)) = files.first() else {
        return String::new();
    };
    // Sweeps over a size: each file's curves on the same axes.
    let mut html = String::new();
    for (blank_bs, title, axis) in SIZE_CHARTS {
        let mut series: Vec<Series> = Vec::new();
        let mut file_of = Vec::new();
        for (index, (_, file)) in files.iter().enumerate() {
            for s in size_series(file, blank_bs) {
                series.push(s);
                file_of.push(index);
            }
        }
        // Named by what varies among the configurations, a colour per
        // configuration and a dash per file, the file's name first.
        charts::name_by_what_varies(&mut series);
        let mut configurations: Vec<String> = Vec::new();
        for (s, &file) in series.iter_mut().zip(&file_of) {
            let colour = match configurations.iter().position(|c| *c == s.name) {
                Some(at) => at,
                None => {
                    configurations.push(s.name.clone());
                    configurations.len() - 1
                }
            };
            s.style = Some((colour, file));
            s.name = format!("{}: {}", files[file].0, s.name);
        }
        html.push_str(&size_charts(
            &series,
            &format!("{title}, file by file"),
            axis,
        ));
    }
    if !html.is_empty() {
        return html;
    }
    // Otherwise a bar per file at each of the base's points, named by what
    // varies between them.
    let short = |point: &Point| headline::short_label(base, &point.workload, &point.label, "");
    let mut groups: Vec<svg::BarGroup> = base
        .points
        .iter()
        .take(POINTS_WITH_CURVES)
        .map(|point| {
            let key = view.key(&point.workload);
            svg::BarGroup {
                label: short(point),
                bars: files
                    .iter()
                    .map(|(_, file)| {
                        file.points
                            .iter()
                            .find(|p| view.key(&p.workload) == key)
                            .and_then(bar_of)
                    })
                    .collect(),
                notes: Vec::new(),
            }
        })
        .collect();
    // A point of another file that matches none of the base's has a group
    // of its own, its bar in its file's place: every file's bars are drawn.
    let base_keys: Vec<String> = base.points.iter().map(|p| view.key(&p.workload)).collect();
    for (index, (_, file)) in files.iter().enumerate().skip(1) {
        for point in &file.points {
            if groups.len() >= 2 * POINTS_WITH_CURVES {
                break;
            }
            if base_keys.contains(&view.key(&point.workload)) {
                continue;
            }
            let mut bars = vec![None; files.len()];
            bars[index] = bar_of(point);
            groups.push(svg::BarGroup {
                label: point.label.clone(),
                bars,
                notes: Vec::new(),
            });
        }
    }
    let names: Vec<String> = files.iter().map(|(name, _)| (*name).to_string()).collect();
    svg::bar_chart(
        "Throughput of each point, file by file (MiB/s, 95% intervals)",
        "MiB/s",
        &names,
        &groups,
    )
}

/// For a file none of whose points matches the base's: which parameters
/// the nearest two differ in, and the command that sets them side by side.
fn unmatched_hint(view: &ReportView<'_>, other_name: &str) -> String {
    let (Some((base_name, base)), Some((_, other))) = (
        view.files.first(),
        view.files.iter().find(|(name, _)| *name == other_name),
    ) else {
        return String::new();
    };
    let Some((_, _, differing, names)) = compare::ignore_to_match(base, other, &view.ignored)
    else {
        return String::new();
    };
    format!(
        " Their nearest points differ in {differing}: iolab report {base_name} {other_name} --ignore {names} draws them bar beside bar and compares them."
    )
}

fn section(
    index: usize,
    name: &str,
    result: &ResultFile,
    own_environment: bool,
    with_charts: bool,
) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        r#"<section class="result" id="result-{index}"><h2>{}</h2>"#,
        escape(name)
    );
    let _ = write!(
        html,
        "<p>Command: <code>{}</code><br>Written {} by iolab {}{}</p>",
        escape(&result.command.join(" ")),
        escape(&result.created),
        escape(&result.tool.version),
        result.source.as_ref().map_or_else(String::new, |s| format!(
            ", imported from {} output {}",
            escape(&s.version),
            escape(&s.file)
        ))
    );
    if let Some(plan) = &result.plan {
        let _ = write!(
            html,
            "<p>{} {}: {} of {} planned points{}</p>",
            escape(&plan.kind),
            escape(plan.name.as_deref().unwrap_or("")),
            result.points.len(),
            plan.points,
            plan.description
                .as_deref()
                .map_or_else(String::new, |d| format!(" — {}", escape(d)))
        );
    }
    html.push_str(&points_table(result));
    html.push_str(&groups_table(result));
    html.push_str(&directions_table(result));
    if let Some(table) = super::pacing::pacing_table(result) {
        html.push_str(&table.html());
    }
    if let Some(table) = super::replay::fidelity_table(result) {
        html.push_str(&table.html());
    }
    html.push_str(&ranks_table(result));
    html.push_str(&checks(result));
    html.push_str(&notes(result));
    if with_charts {
        html.push_str(&charts(result));
    }
    html.push_str("<details class=\"machine\"><summary>Environment and devices</summary>");
    if own_environment {
        html.push_str(&environment(result));
    }
    html.push_str(&devices_table(result));
    if let Some(table) = super::activity::client_network_table(result) {
        html.push_str(&table.html());
    }
    html.push_str("</details></section>");
    html
}

fn environment(result: &ResultFile) -> String {
    let env = &result.environment;
    let mut rows = vec![
        ("host", env.hostname.clone()),
        ("kernel", format!("{} {}", env.kernel, env.kernel_version)),
        ("distribution", env.distribution.clone().unwrap_or_default()),
        (
            "CPU",
            format!(
                "{} × {}",
                env.logical_cpus
                    .map_or_else(|| "unknown".to_string(), |n| n.to_string()),
                env.cpu_model.clone().unwrap_or_default()
            ),
        ),
        (
            "memory",
            env.memory_bytes
                .map_or_else(|| "unknown".to_string(), super::units::bytes),
        ),
        (
            "virtualization",
            format!(
                "{} {} ({})",
                env.virtualization
                    .hypervisor
                    .clone()
                    .unwrap_or_else(|| "no hypervisor".into()),
                env.virtualization
                    .container
                    .clone()
                    .map_or_else(String::new, |c| format!("in {c}")),
                env.virtualization.evidence.join("; ")
            ),
        ),
    ];
    if let Some(storage) = &env.storage {
        rows.push((
            "file system",
            format!(
                "{} on {} at {} ({})",
                storage.filesystem, storage.source, storage.mount_point, storage.mount_options
            ),
        ));
        rows.push(("device stack", storage.stack.clone()));
        for device in &storage.devices {
            rows.push((
                "device",
                format!(
                    "{} ({}): {} {} scheduler {} write cache {}",
                    device.name,
                    device.kind,
                    device.model.clone().unwrap_or_default(),
                    device
                        .size_bytes
                        .map(super::units::bytes)
                        .unwrap_or_default(),
                    device.scheduler.clone().unwrap_or_default(),
                    device.write_cache.clone().unwrap_or_default()
                ),
            ));
        }
    }
    let mut html = String::from("<h3>Environment</h3><table class=\"environment\">");
    for (key, value) in rows {
        let _ = write!(
            html,
            "<tr><th>{}</th><td>{}</td></tr>",
            escape(key),
            escape(&value)
        );
    }
    html.push_str("</table>");
    html
}

fn checks(result: &ResultFile) -> String {
    let all: Vec<_> = result
        .points
        .iter()
        .flat_map(|p| p.checks.iter().map(move |c| (p, c)))
        .collect();
    let warnings = all
        .iter()
        .filter(|(_, c)| c.severity != crate::record::Severity::Info)
        .count();
    let mut html = format!(
        "<h3>Checks</h3><details{}><summary>{} checks, {warnings} warnings or errors</summary><ul class=\"checks\">",
        if all.len() <= 10 { " open" } else { "" },
        all.len()
    );
    let mut any = false;
    for point in &result.points {
        for check in &point.checks {
            any = true;
            let severity = format!("{:?}", check.severity).to_lowercase();
            let _ = write!(
                html,
                r#"<li class="check-{severity}">{severity} [{}] {}: {}</li>"#,
                escape(&check.code),
                escape(&point.label),
                escape(&check.message)
            );
        }
    }
    if !any {
        html.push_str("<li>none raised</li>");
    }
    html.push_str("</ul></details>");
    html
}

/// What iolab noted as it read the plan (a fio option read another way);
/// nothing when it noted nothing.
fn notes(result: &ResultFile) -> String {
    if result.notes.is_empty() {
        return String::new();
    }
    let mut html = String::from("<h3>Notes</h3><ul class=\"notes\">");
    for note in &result.notes {
        let _ = write!(html, "<li>{}</li>", escape(note));
    }
    html.push_str("</ul>");
    html
}

fn comparisons(comparison: &Comparison, view: &ReportView<'_>) -> String {
    let base_name = &comparison.base;
    let mut html = format!(
        "<section class=\"comparisons\"><h2>Compared with {}</h2>",
        escape(base_name)
    );
    for pairing in &comparison.pairings {
        let _ = write!(
            html,
            "<h3>{} / {}</h3>",
            escape(&pairing.file),
            escape(base_name)
        );
        if !pairing.environment.is_empty() {
            let _ = write!(
                html,
                "<details><summary>{} environment facts differ</summary>",
                pairing.environment.len()
            );
            html.push_str("<table class=\"environment-difference\"><tr><th>differs</th><th>base</th><th>other</th></tr>");
            for d in &pairing.environment {
                let _ = write!(
                    html,
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    escape(&d.field),
                    escape(&d.base),
                    escape(&d.other)
                );
            }
            html.push_str("</table></details>");
        }
        let _ = write!(
            html,
            "<table class=\"sortable ratios\"><thead><tr><th>point</th><th>base MiB/s</th><th>other MiB/s</th><th>ratio</th><th>{:.0}% interval</th>\
             <th>Δ%</th><th>n</th><th>verdict</th></tr></thead><tbody>",
            (1.0 - comparison.alpha) * 100.0
        );
        for m in &pairing.matched {
            let interval = super::compare::interval_text(m).unwrap_or_else(|| "-".into());
            let verdict = super::compare::verdict_text(m.verdict, &comparison.metric);
            let class = match m.verdict {
                Verdict::Better => "better",
                Verdict::Worse => "worse",
                _ => "neutral",
            };
            let _ = write!(
                html,
                "<tr><td>{}</td>{}{}{}<td>{}</td>{}<td>{}/{}</td><td class=\"verdict-{class}\">{verdict}</td></tr>",
                escape(&m.label),
                cell_number(mib_per_s(m.base.mean), significant(mib_per_s(m.base.mean))),
                cell_number(
                    mib_per_s(m.other.mean),
                    significant(mib_per_s(m.other.mean))
                ),
                cell_number(m.ratio, format!("{:.3}", m.ratio)),
                interval,
                cell_number(m.delta_percent, format!("{:+.1}", m.delta_percent)),
                m.base.n,
                m.other.n
            );
        }
        html.push_str("</tbody></table>");
        let _ = write!(
            html,
            "<p class=\"note\">{}</p>",
            escape(&super::compare::rule_text(
                &comparison.metric,
                comparison.alpha
            ))
        );
        for (title, cells) in compare::grids(&pairing.matched) {
            let sizes: std::collections::BTreeSet<u64> =
                cells.iter().map(|m| m.workload.size).collect();
            let blocks: std::collections::BTreeSet<u64> =
                cells.iter().map(|m| m.workload.bs).collect();
            let grid: Vec<Vec<Option<f64>>> = sizes
                .iter()
                .map(|s| {
                    blocks
                        .iter()
                        .map(|b| {
                            cells
                                .iter()
                                .find(|m| m.workload.size == *s && m.workload.bs == *b)
                                .map(|m| m.ratio)
                        })
                        .collect()
                })
                .collect();
            html.push_str(&svg::heatmap(
                &format!("{title}: throughput ratio, rows file size, columns record size"),
                &sizes.iter().map(|s| format_size(*s)).collect::<Vec<_>>(),
                &blocks.iter().map(|b| format_size(*b)).collect::<Vec<_>>(),
                &grid,
            ));
        }
        if !pairing.only_in_base.is_empty() || !pairing.only_in_other.is_empty() {
            let _ = write!(
                html,
                "<p>Not matched: {} only in the base, {} only in {}.{}</p>",
                pairing.only_in_base.len(),
                pairing.only_in_other.len(),
                escape(&pairing.file),
                if pairing.matched.is_empty() {
                    escape(&unmatched_hint(view, &pairing.file))
                } else {
                    String::new()
                }
            );
        }
    }
    html.push_str("</section>");
    html
}
