//! The HTML report's per-file tables: points with their rates and intervals, directions, devices, and a distributed run's ranks — sortable, every string escaped.

use super::super::escape::escape;
use super::super::units::{count, latency, mb_per_s, mib_per_s, significant};
use super::cell_number;
use crate::record::{LatencySummary, ResultFile, Stat};
use std::fmt::Write;

pub(super) fn points_table(result: &ResultFile) -> String {
    let mut html = String::from(
        "<h3>Points</h3><table class=\"sortable points\"><thead><tr><th>point</th><th>MiB/s</th><th>MB/s</th><th>IOPS</th>\
         <th>lat p50</th><th>lat p99</th><th>n</th><th>± CI95</th><th>top device busy</th></tr></thead><tbody>",
    );
    for point in &result.points {
        let _ = write!(html, "<tr><td>{}</td>", escape(&point.label));
        match &point.summary {
            Some(summary) => {
                let t = &summary.throughput_bps;
                html.push_str(&rate_cells(t, &summary.iops, summary.latency_ns.as_ref()));
                html.push_str(&cell_number(f64::from(t.n), t.n.to_string()));
                html.push_str(&interval_cell(t));
                let busy = point
                    .repetitions
                    .iter()
                    .filter_map(|r| {
                        r.activity
                            .as_ref()?
                            .devices
                            .first()
                            .and_then(|d| d.busy_fraction)
                    })
                    .fold(None, |m: Option<f64>, b| Some(m.map_or(b, |m| m.max(b))));
                html.push_str(&busy.map_or_else(
                    || "<td>-</td>".to_string(),
                    |b| cell_number(b, format!("{:.0}%", b * 100.0)),
                ));
            }
            None => {
                let text = crate::report::table::cut_short_line(point)
                    .unwrap_or_else(|| "no completed repetition".to_string());
                let _ = write!(html, "<td colspan=\"8\">{}</td>", escape(&text));
            }
        }
        html.push_str("</tr>");
    }
    html.push_str("</tbody></table>");
    html
}

/// Each group's figures of the points of groups, when there are any: the
/// point, the group, its workload, its rates and interval.
pub(super) fn groups_table(result: &ResultFile) -> String {
    let grouped: Vec<_> = result
        .points
        .iter()
        .filter(|p| !p.groups.is_empty())
        .collect();
    if grouped.is_empty() {
        return String::new();
    }
    let mut html = String::from(
        "<h3>Job groups, each group's own figures</h3><table class=\"sortable groups\"><thead><tr>\
         <th>point</th><th>group</th><th>workload</th><th>MiB/s</th><th>MB/s</th><th>IOPS</th>\
         <th>lat p50</th><th>lat p99</th><th>n</th><th>± CI95</th></tr></thead><tbody>",
    );
    for point in grouped {
        for group in &point.groups {
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td>",
                escape(&point.label),
                escape(&group.label),
                escape(&group.workload.describe())
            );
            match &group.summary {
                Some(summary) => {
                    let t = &summary.throughput_bps;
                    html.push_str(&rate_cells(t, &summary.iops, summary.latency_ns.as_ref()));
                    html.push_str(&cell_number(f64::from(t.n), t.n.to_string()));
                    html.push_str(&interval_cell(t));
                }
                None => html.push_str("<td colspan=\"7\">no completed repetition</td>"),
            }
            html.push_str("</tr>");
        }
    }
    html.push_str("</tbody></table>");
    html
}

/// The MiB/s, MB/s, IOPS, latency p50 and p99 cells of a point or of one
/// of its directions.
pub(super) fn rate_cells(throughput: &Stat, iops: &Stat, lat: Option<&LatencySummary>) -> String {
    let mut html = cell_number(throughput.mean, significant(mib_per_s(throughput.mean)));
    html.push_str(&cell_number(
        throughput.mean,
        significant(mb_per_s(throughput.mean)),
    ));
    html.push_str(&cell_number(iops.mean, count(iops.mean)));
    for p in [50.0, 99.0] {
        html.push_str(&match lat.and_then(|l| l.percentile(p)) {
            Some(ns) => cell_number(ns as f64, latency(ns as f64)),
            None => "<td>-</td>".to_string(),
        });
    }
    html
}

/// The ± half-width of the 95% interval of the mean, percent of it.
pub(super) fn interval_cell(t: &Stat) -> String {
    let half = t
        .ci95_high
        .zip(t.ci95_low)
        .map(|(h, l)| (h - l) / 2.0 / t.mean * 100.0);
    half.map_or_else(
        || "<td>-</td>".to_string(),
        |h| cell_number(h, format!("±{h:.1}%")),
    )
}

/// Each direction's figures of the mixed points (`op mix`), when there are any.
pub(super) fn directions_table(result: &ResultFile) -> String {
    let mixed: Vec<_> = result
        .points
        .iter()
        .filter_map(|p| Some((p, p.summary.as_ref()?)))
        .filter(|(_, s)| !s.directions.is_empty())
        .collect();
    if mixed.is_empty() {
        return String::new();
    }
    let mut html = String::from(
        "<h3>Read/write mixes, per direction</h3><table class=\"sortable directions\"><thead><tr>\
         <th>point</th><th>direction</th><th>share of I/Os</th><th>MiB/s</th><th>MB/s</th><th>IOPS</th>\
         <th>lat p50</th><th>lat p99</th><th>± CI95</th></tr></thead><tbody>",
    );
    for (point, summary) in mixed {
        for d in &summary.directions {
            let share = point.ops_share(d.direction).unwrap_or(0.0) * 100.0;
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td>",
                escape(&point.label),
                d.direction.name()
            );
            html.push_str(&cell_number(share, format!("{share:.1}%")));
            html.push_str(&rate_cells(
                &d.throughput_bps,
                &d.iops,
                d.latency_ns.as_ref(),
            ));
            html.push_str(&interval_cell(&d.throughput_bps));
            html.push_str("</tr>");
        }
    }
    html.push_str("</tbody></table>");
    html
}

/// What each device of the stack did during each point's first measured
/// repetition, when the result recorded it.
pub(super) fn devices_table(result: &ResultFile) -> String {
    let mut rows = String::new();
    let mut below_resolution = false;
    for point in &result.points {
        let Some(activity) = point
            .repetitions
            .iter()
            .find(|r| !r.warmup && r.status == crate::record::Status::Ok)
            .and_then(|r| r.activity.as_ref())
        else {
            continue;
        };
        for device in &activity.devices {
            below_resolution |= !device.below_resolution.is_empty();
            let optional = |v: Option<f64>, f: &dyn Fn(f64) -> String| {
                v.map_or_else(|| "<td>-</td>".to_string(), |v| cell_number(v, f(v)))
            };
            let _ = write!(
                rows,
                "<tr><td>{}</td><td>{}</td>{}{}{}{}{}{}{}</tr>",
                escape(&point.label),
                escape(&device.name),
                cell_number(device.read_bps, significant(mib_per_s(device.read_bps))),
                cell_number(device.write_bps, significant(mib_per_s(device.write_bps))),
                optional(device.avg_io_bytes, &|b| crate::report::units::bytes(
                    b.round() as u64
                )),
                match device.await_ns {
                    Some(value) => cell_number(value, latency(value)),
                    None => format!(
                        "<td>{}</td>",
                        escape(&crate::report::activity::await_text(device))
                    ),
                },
                match device.busy_fraction {
                    Some(busy) => cell_number(busy, format!("{:.0}%", busy * 100.0)),
                    None => format!("<td>{}</td>", crate::report::activity::busy_text(device)),
                },
                optional(device.app_ops_per_device_op, &significant),
                optional(device.app_bytes_per_device_byte, &significant),
            );
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "<h3>Devices</h3><table class=\"sortable devices\"><thead><tr><th>point</th><th>device</th><th>read MiB/s</th>\
         <th>write MiB/s</th><th>avg I/O</th><th>await</th><th>busy</th><th>app I/Os per dev I/O</th>\
         <th>app bytes per dev byte</th></tr></thead><tbody>{rows}</tbody></table>{}",
        if below_resolution {
            format!(
                "<p class=\"note\">{}</p>",
                escape(crate::report::activity::BELOW_RESOLUTION_NOTE)
            )
        } else {
            String::new()
        }
    )
}

/// A distributed run: each rank's share per measured repetition, with the
/// spread and the stonewall figures of the repetition.
pub(super) fn ranks_table(result: &ResultFile) -> String {
    let Some(run) = &result.distributed else {
        return String::new();
    };
    let mut rows = String::new();
    for point in &result.points {
        for repetition in point
            .repetitions
            .iter()
            .filter(|r| !r.warmup && !r.ranks.is_empty())
        {
            for rank in &repetition.ranks {
                let speed = rank.throughput_bps.map_or_else(
                    || "<td>-</td><td>-</td>".to_string(),
                    |s| {
                        cell_number(s, significant(mib_per_s(s)))
                            + &cell_number(s, significant(crate::report::units::mb_per_s(s)))
                    },
                );
                let _ = write!(
                    rows,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{speed}{}{}<td>{}</td></tr>",
                    escape(&point.label),
                    repetition.index,
                    rank.rank,
                    escape(&rank.host),
                    cell_number(rank.start_ns as f64, latency(rank.start_ns as f64)),
                    cell_number(rank.elapsed_ns as f64, latency(rank.elapsed_ns as f64)),
                    escape(rank.error.as_deref().unwrap_or("ok")),
                );
            }
            let spread = repetition
                .rank_spread
                .as_ref()
                .map_or_else(String::new, |s| {
                    format!("fastest / slowest rank {:.2}×", s.ratio)
                });
            let stonewall = repetition.stonewall.as_ref().map_or_else(String::new, |w| {
                format!(
                    "; stonewall {} MiB/s ({} MB/s) at {} (rank {} first done, resolution {})",
                    significant(mib_per_s(w.throughput_bps)),
                    significant(crate::report::units::mb_per_s(w.throughput_bps)),
                    latency(w.elapsed_ns as f64),
                    w.first_rank,
                    latency(w.resolution_ns as f64)
                )
            });
            let _ = write!(
                rows,
                "<tr class=\"note\"><td colspan=\"9\">{} repetition {}: {spread}{stonewall}</td></tr>",
                escape(&point.label),
                repetition.index
            );
        }
    }
    let hosts: Vec<String> = run
        .hosts
        .iter()
        .map(|h| format!("{} (ranks {:?})", escape(&h.name), h.ranks))
        .collect();
    format!(
        "<h3>Ranks</h3><p>{} ranks on {}, launched by {}{}</p><table class=\"ranks\"><thead><tr><th>point</th>\
         <th>repetition</th><th>rank</th><th>host</th><th>MiB/s</th><th>MB/s</th><th>start</th><th>elapsed</th>\
         <th>status</th></tr></thead><tbody>{rows}</tbody></table>",
        run.ranks,
        hosts.join(", "),
        escape(&run.launcher),
        if run.shared_file {
            "; one shared file"
        } else {
            ""
        }
    )
}
