//! The report's content as tables without charts: Markdown (per file environment, points and checks; the comparisons) and CSV (one row per point).

use super::render::ReportView;
use super::units::{count, latency, mb_per_s, mib_per_s, significant};
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
            env.logical_cpus,
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
            let t = &summary.throughput_bps;
            let percentile = |p: f64| {
                summary
                    .latency_ns
                    .as_ref()
                    .and_then(|l| l.percentile(p))
                    .map_or_else(|| "-".to_string(), |ns| latency(ns as f64))
            };
            let half = t.ci95_high.zip(t.ci95_low).map_or_else(
                || "-".to_string(),
                |(h, l)| format!("±{:.1}%", (h - l) / 2.0 / t.mean * 100.0),
            );
            let _ = writeln!(
                text,
                "| {} | {} | {} | {} | {} | {} | {} | {half} |",
                cell(&point.label),
                significant(mib_per_s(t.mean)),
                significant(mb_per_s(t.mean)),
                count(summary.iops.mean),
                percentile(50.0),
                percentile(99.0),
                t.n
            );
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

/// One CSV row per point of every file.
pub fn csv(files: &[(&str, &ResultFile)]) -> String {
    let mut text = String::from(
        "file,point,op,pattern,engine,bs,size,iodepth,jobs,direct,n,throughput_bps_mean,throughput_bps_ci95_low,\
         throughput_bps_ci95_high,iops_mean,latency_p50_ns,latency_p99_ns\n",
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
            let Some(summary) = &point.summary else {
                continue;
            };
            let w = &point.workload;
            let t = &summary.throughput_bps;
            let optional = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
            let percentile = |p: f64| {
                summary
                    .latency_ns
                    .as_ref()
                    .and_then(|l| l.percentile(p))
                    .map_or_else(String::new, |ns| ns.to_string())
            };
            let _ = writeln!(
                text,
                "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
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
                summary.iops.mean,
                percentile(50.0),
                percentile(99.0)
            );
        }
    }
    text
}
