//! The report's content as tables without charts: Markdown (per file environment, points and checks; the comparisons) and CSV (one row per point).

use super::units::{count, latency, mb_per_s, mib_per_s, significant};
use super::view::ReportView;
use crate::record::ResultFile;
use std::fmt::Write;

/// The report's tables as Markdown: per file its environment, checks and points;
/// across files, the comparisons with the first.
pub fn markdown(view: &ReportView<'_>) -> String {
    let files = &view.files;
    let mut text = String::from(
        "# iolab report\n\nMiB/s = 2^20 bytes/s, MB/s = 10^6 bytes/s; ± is the 95% confidence interval of the mean.\n",
    );
    let cell = |t: &str| t.replace('|', "\\|");
    if !view.study_tables.is_empty() {
        text.push_str("\n## The study's own tables\n");
        for table in &view.study_tables {
            text.push('\n');
            text.push_str(&table.markdown());
        }
    }
    for (name, result) in files {
        let env = &result.environment;
        let _ = write!(
            text,
            "\n## {}\n\nCommand: `{}`\n\nHost {}, kernel {}, {} × {}, virtualization {}{}\n\n",
            cell(name),
            result.command.join(" "),
            cell(&env.hostname),
            cell(&env.kernel),
            env.logical_cpus
                .map_or_else(|| "unknown".to_string(), |n| n.to_string()),
            cell(env.cpu_model.as_deref().unwrap_or("unknown CPU")),
            cell(
                env.virtualization
                    .hypervisor
                    .as_deref()
                    .unwrap_or("none found")
            ),
            env.storage.as_ref().map_or_else(String::new, |s| format!(
                ", {} on {} (stack {})",
                s.filesystem, s.source, s.stack
            ))
        );
        text.push_str("| point | MiB/s | MB/s | IOPS | lat p50 | lat p99 | n | ± CI95 |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for point in &result.points {
            let Some(summary) = &point.summary else {
                let _ = writeln!(
                    text,
                    "| {} | no completed repetition | | | | | | |",
                    cell(&point.label)
                );
                continue;
            };
            markdown_row(
                &mut text,
                &cell(&point.label),
                &summary.throughput_bps,
                summary.iops.mean,
                summary.latency_ns.as_ref(),
            );
            // A mix: a row per direction under the point's.
            let mix = point.workload.directions();
            for d in &summary.directions {
                let share = point.ops_share(d.direction).unwrap_or(0.0) * 100.0;
                let label = match point.workload.trace {
                    Some(_) => format!("↳ {} {share:.1}% of I/Os", d.direction.name()),
                    None => format!(
                        "↳ {} {share:.1}% of I/Os (asked {}%)",
                        d.direction.name(),
                        mix.percent(d.direction)
                    ),
                };
                markdown_row(
                    &mut text,
                    &label,
                    &d.throughput_bps,
                    d.iops.mean,
                    d.latency_ns.as_ref(),
                );
            }
            // A point of groups: a row per group under the combined one.
            for group in &point.groups {
                let label = format!(
                    "↳ group {}: {}",
                    cell(&group.label),
                    cell(&group.workload.describe())
                );
                match &group.summary {
                    Some(summary) => markdown_row(
                        &mut text,
                        &label,
                        &summary.throughput_bps,
                        summary.iops.mean,
                        summary.latency_ns.as_ref(),
                    ),
                    None => {
                        let _ = writeln!(text, "| {label} | no completed repetition | | | | | | |");
                    }
                }
            }
        }
        let checks: Vec<String> = result
            .points
            .iter()
            .flat_map(|p| {
                p.checks.iter().map(move |c| {
                    format!(
                        "- {:?} [{}] {}: {}",
                        c.severity,
                        c.code,
                        cell(&p.label),
                        c.message
                    )
                })
            })
            .collect();
        if !checks.is_empty() {
            let _ = write!(text, "\nChecks:\n\n{}\n", checks.join("\n"));
        }
        if let Some(table) = super::activity::client_network_table(result) {
            text.push('\n');
            text.push_str(&table.markdown());
        }
        if let Some(table) = super::pacing::pacing_table(result) {
            text.push('\n');
            text.push_str(&table.markdown());
        }
        if let Some(table) = super::replay::fidelity_table(result) {
            text.push('\n');
            text.push_str(&table.markdown());
        }
        if let Some(knee) = &result.knee {
            markdown_knee(&mut text, knee);
        }
    }
    if let Some(comparison) = &view.comparison {
        text.push('\n');
        text.push_str(&super::compare::render(
            comparison,
            super::compare::Style::Markdown,
        ));
    }
    text
}

/// One Markdown row of the points table: throughput in both units, IOPS,
/// p50 and p99, n and the interval's half-width.
fn markdown_row(
    text: &mut String,
    label: &str,
    t: &crate::record::Stat,
    iops: f64,
    lat: Option<&crate::record::LatencySummary>,
) {
    let percentile = |p: f64| {
        lat.and_then(|l| l.percentile(p))
            .map_or_else(|| "-".to_string(), |ns| latency(ns as f64))
    };
    let half = t.ci95_high.zip(t.ci95_low).map_or_else(
        || "-".to_string(),
        |(h, l)| format!("±{:.1}%", (h - l) / 2.0 / t.mean * 100.0),
    );
    let _ = writeln!(
        text,
        "| {label} | {} | {} | {} | {} | {} | {} | {half} |",
        significant(mib_per_s(t.mean)),
        significant(mb_per_s(t.mean)),
        count(iops),
        percentile(50.0),
        percentile(99.0),
        t.n
    );
}

/// A knee search's curve and choice as a Markdown table.
fn markdown_knee(text: &mut String, knee: &crate::record::KneeRecord) {
    let percentile = format!("p{}", knee.target.percentile);
    let _ = write!(
        text,
        "\nKnee search ({}): {}\n\n| point | IOPS | {percentile} | |\n|---|---:|---:|---|\n",
        knee.target,
        knee.chosen
            .as_deref()
            .unwrap_or("every point is over the target")
    );
    for step in &knee.curve {
        let note = match (
            knee.chosen.as_deref() == Some(step.label.as_str()),
            step.latency_ns > knee.target.limit_ns,
        ) {
            (true, _) => "knee",
            (false, true) => "over",
            (false, false) => "",
        };
        let from = if step.from_intended {
            " (from intended issue)"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "| {} | {} | {}{from} | {note} |",
            step.label.replace('|', "\\|"),
            count(step.iops),
            latency(step.latency_ns as f64)
        );
    }
}

/// One CSV row per point of every file, and under a mixed point one per
/// direction (`direction` names it; empty on the point's own row).
pub fn csv(files: &[(&str, &ResultFile)]) -> String {
    let mut text = String::from(
        "file,point,op,pattern,engine,bs,size,iodepth,jobs,direct,n,throughput_bps_mean,throughput_bps_ci95_low,\
         throughput_bps_ci95_high,iops_mean,latency_p50_ns,latency_p99_ns,direction,group\n",
    );
    let field = |t: &str| {
        if t.contains([',', '"', '\n']) {
            format!("\"{}\"", t.replace('"', "\"\""))
        } else {
            t.to_string()
        }
    };
    for (name, result) in files {
        for point in &result.points {
            // A point of groups: its combined rows, then each group's, its
            // name in the last column.
            let parts = std::iter::once((point, "")).chain(
                point
                    .groups
                    .iter()
                    .map(|group| (group, group.label.as_str())),
            );
            for (part, group) in parts {
                let Some(summary) = &part.summary else {
                    continue;
                };
                let w = &part.workload;
                let optional = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
                let rows = std::iter::once((
                    "",
                    &summary.throughput_bps,
                    summary.iops.mean,
                    summary.latency_ns.as_ref(),
                ))
                .chain(summary.directions.iter().map(|d| {
                    (
                        d.direction.name(),
                        &d.throughput_bps,
                        d.iops.mean,
                        d.latency_ns.as_ref(),
                    )
                }));
                for (direction, t, iops, lat) in rows {
                    let percentile = |p: f64| {
                        lat.and_then(|l| l.percentile(p))
                            .map_or_else(String::new, |ns| ns.to_string())
                    };
                    let _ = writeln!(
                        text,
                        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{direction},{}",
                        field(name),
                        field(&point.label),
                        w.op.name(),
                        w.pattern,
                        w.engine.name(),
                        w.bs,
                        w.size,
                        w.iodepth,
                        w.jobs,
                        w.direct,
                        t.n,
                        t.mean,
                        optional(t.ci95_low),
                        optional(t.ci95_high),
                        iops,
                        percentile(50.0),
                        percentile(99.0),
                        field(group)
                    );
                }
            }
        }
    }
    text
}
