//! The terminal table of a result: one row per point (and one per direction
//! under a mixed point), both MiB/s and MB/s, and the checks.

use super::units::{count, latency, mb_per_s, mib_per_s, significant};
use crate::record::{LatencySummary, Point, ResultFile, Severity, Stat, Status};
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{CellAlignment, Table};

/// Renders the table of every point in `result`.
pub fn render(result: &ResultFile) -> String {
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED);
    // The workload column only when some label says something else.
    let labelled = result
        .points
        .iter()
        .any(|p| p.label != p.workload.describe());
    let mut header = vec![
        "point",
        "workload",
        "MiB/s",
        "MB/s",
        "IOPS",
        "lat p50",
        "lat p99",
        "lat max",
        "CPU",
        "cached at start",
        "n ±CI95",
    ];
    if !labelled {
        header.remove(1);
    }
    let first_figure = header.len() - 9;
    table.set_header(header);
    for point in &result.points {
        let mut rows = vec![row(point)];
        rows.extend(direction_rows(point));
        for mut cells in rows {
            if !labelled {
                cells.remove(1);
            }
            table.add_row(cells);
        }
    }
    for column in first_figure..first_figure + 9 {
        if let Some(column) = table.column_mut(column) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut text = table.to_string();
    text.push('\n');
    // The queued engines as the registry declares them, so a new one is named here too.
    let queued: Vec<&str> = crate::plan::EngineKind::ALL
        .iter()
        .filter(|engine| engine.capabilities().queued)
        .map(|engine| engine.name())
        .collect();
    text.push_str(&format!(
        "MiB/s = 2^20 bytes/s, MB/s = 10^6 bytes/s; latency per I/O (queued engines — {} — from \
         submission to completion); CPU = I/O threads' CPU time over wall time (100% = one core).\n",
        queued.join(", ")
    ));
    text.push_str(&checks(result));
    text
}

fn row(point: &Point) -> Vec<String> {
    let mut cells = vec![point.label.clone(), point.workload.describe()];
    let Some(summary) = &point.summary else {
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
    cells.extend([
        significant(mib_per_s(throughput.mean)),
        significant(mb_per_s(throughput.mean)),
        count(summary.iops.mean),
        percentile(lat, 50.0),
        percentile(lat, 99.0),
        lat.map_or_else(|| "-".to_string(), |l| latency(l.max as f64)),
        if measured.iter().any(|r| r.cpu.is_some()) {
            format!("{:.0}%", cpu * 100.0)
        } else {
            "-".to_string()
        },
        cached.map_or_else(|| "-".to_string(), |f| format!("{:.1}%", f * 100.0)),
        interval(throughput),
    ]);
    cells
}

/// A mixed point's rows under its own, one per direction: that direction's
/// throughput, IOPS, latency and interval; CPU and cache belong to the whole.
fn direction_rows(point: &Point) -> Vec<Vec<String>> {
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
            vec![
                format!(
                    "  ↳ {} {share:.1}% of I/Os (asked {asked}%)",
                    d.direction.name()
                ),
                String::new(),
                significant(mib_per_s(d.throughput_bps.mean)),
                significant(mb_per_s(d.throughput_bps.mean)),
                count(d.iops.mean),
                percentile(lat, 50.0),
                percentile(lat, 99.0),
                lat.map_or_else(|| "-".to_string(), |l| latency(l.max as f64)),
                String::new(),
                String::new(),
                interval(&d.throughput_bps),
            ]
        })
        .collect()
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

/// The checks of every point, one line each, most serious first.
pub fn checks(result: &ResultFile) -> String {
    let mut lines: Vec<(Severity, String)> = result
        .points
        .iter()
        .flat_map(|point| {
            point.checks.iter().map(move |check| {
                let severity = match check.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "note",
                };
                (
                    check.severity,
                    format!(
                        "{severity} [{}] {}: {}{}\n",
                        check.code,
                        point.label,
                        check.message,
                        check
                            .evidence
                            .as_deref()
                            .map_or_else(String::new, |e| format!(" ({e})"))
                    ),
                )
            })
        })
        .collect();
    lines.sort_by_key(|line| std::cmp::Reverse(line.0));
    lines.into_iter().map(|(_, line)| line).collect()
}
