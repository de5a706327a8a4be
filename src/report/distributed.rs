//! The terminal view of a distributed run: per point, each rank's and each
//! host's share, the spread between ranks and, with `--stonewall`, the
//! stonewall throughput (medians over the measured repetitions).

use super::screen::Screen;
use super::units::{bytes, mb_per_s, mib_per_s, significant};
use crate::record::{Point, Repetition, ResultFile, Status};
use comfy_table::CellAlignment;

/// The distributed part of `result`; empty for a run of one process.
pub fn render(result: &ResultFile, screen: Screen) -> String {
    let Some(run) = &result.distributed else {
        return String::new();
    };
    let hosts: Vec<String> = run
        .hosts
        .iter()
        .map(|h| {
            let ranks: Vec<String> = h.ranks.iter().map(u32::to_string).collect();
            // A time namespace makes a host of its own: its clock differs.
            let clock = match (h.monotonic_offset_ns, h.clock) {
                (_, Some(clock)) => format!(
                    ", another boot: clock {:+.6} s ± {} against rank 0's",
                    clock.offset_ns as f64 / 1e9,
                    super::units::latency(clock.spread_ns as f64 / 2.0)
                ),
                (0, None) => String::new(),
                (ns, None) => format!(", clock {:+.3} s in a time namespace", ns as f64 / 1e9),
            };
            format!("{} (ranks {}{clock})", h.name, ranks.join(","))
        })
        .collect();
    let mut text = format!(
        "\ndistributed: {} ranks on {} host{} [{}], launched by {}{}{}\n",
        run.ranks,
        run.hosts.len(),
        if run.hosts.len() == 1 { "" } else { "s" },
        hosts.join("; "),
        run.launcher,
        if run.shared_file {
            ", one shared file"
        } else {
            ", a file per job"
        },
        if run.reorder_shift > 0 {
            format!(", reads from the rank {} on", run.reorder_shift)
        } else {
            String::new()
        },
    );
    for point in &result.points {
        text.push_str(&point_view(point, run.stonewall, screen));
    }
    text
}

fn measured(point: &Point) -> Vec<&Repetition> {
    point
        .repetitions
        .iter()
        .filter(|r| !r.warmup && r.status == Status::Ok && !r.ranks.is_empty())
        .collect()
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    Some(if values.len() % 2 == 0 {
        (values[middle - 1] + values[middle]) / 2.0
    } else {
        values[middle]
    })
}

/// A metadata point's ranks: their operations per second and operations,
/// start and elapsed time (no bytes, which a metadata op mostly does not move).
fn metadata_view(point: &Point, repetitions: &[&Repetition], screen: Screen) -> String {
    let first = repetitions[0];
    let mut table = screen.table();
    table.set_header(vec![
        "rank",
        "host",
        "ops/s",
        "ops",
        "start +ms",
        "elapsed ms",
    ]);
    for (index, rank) in first.ranks.iter().enumerate() {
        let shares: Vec<_> = repetitions
            .iter()
            .filter_map(|r| r.ranks.get(index))
            .collect();
        let rate = median(
            shares
                .iter()
                .filter(|s| s.elapsed_ns > 0)
                .map(|s| s.ops as f64 / (s.elapsed_ns as f64 * 1e-9))
                .collect(),
        );
        let start = median(shares.iter().map(|s| s.start_ns as f64 / 1e6).collect());
        let elapsed = median(shares.iter().map(|s| s.elapsed_ns as f64 / 1e6).collect());
        table.add_row(vec![
            rank.rank.to_string(),
            rank.host.clone(),
            rate.map_or("-".into(), crate::report::units::count),
            rank.ops.to_string(),
            start.map_or("-".into(), significant),
            elapsed.map_or("-".into(), significant),
        ]);
    }
    for column in 2..6 {
        if let Some(column) = table.column_mut(column) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    format!(
        "\n{} — per rank, medians of {} repetition{}:\n{}\n",
        point.label,
        repetitions.len(),
        if repetitions.len() == 1 { "" } else { "s" },
        screen.fit(&table)
    )
}

fn point_view(point: &Point, stonewall: bool, screen: Screen) -> String {
    let repetitions = measured(point);
    let Some(first) = repetitions.first() else {
        return String::new();
    };
    if point.workload.work() == crate::plan::Work::Tree {
        return metadata_view(point, &repetitions, screen);
    }
    let mut table = screen.table();
    table.set_header(vec![
        "rank",
        "host",
        "MiB/s",
        "MB/s",
        "bytes",
        "start +ms",
        "elapsed ms",
    ]);
    for (index, rank) in first.ranks.iter().enumerate() {
        let shares: Vec<_> = repetitions
            .iter()
            .filter_map(|r| r.ranks.get(index))
            .collect();
        let speed = median(shares.iter().filter_map(|s| s.throughput_bps).collect());
        let start = median(shares.iter().map(|s| s.start_ns as f64 / 1e6).collect());
        let elapsed = median(shares.iter().map(|s| s.elapsed_ns as f64 / 1e6).collect());
        table.add_row(vec![
            rank.rank.to_string(),
            rank.host.clone(),
            speed.map_or("-".into(), |s| significant(mib_per_s(s))),
            speed.map_or("-".into(), |s| significant(mb_per_s(s))),
            bytes(rank.bytes),
            start.map_or("-".into(), significant),
            elapsed.map_or("-".into(), significant),
        ]);
    }
    for column in 2..7 {
        if let Some(column) = table.column_mut(column) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut text = format!(
        "\n{} — per rank, medians of {} repetition{}:\n{}\n",
        point.label,
        repetitions.len(),
        if repetitions.len() == 1 { "" } else { "s" },
        screen.fit(&table)
    );
    let ratios = median(
        repetitions
            .iter()
            .filter_map(|r| r.rank_spread.as_ref().map(|s| s.ratio))
            .collect(),
    );
    if let (Some(ratio), Some(spread)) = (ratios, first.rank_spread.as_ref()) {
        text.push_str(&format!(
            "spread: fastest over slowest rank {:.2}× (first repetition: rank {} {} MiB/s ({} MB/s), rank {} {} MiB/s ({} MB/s))\n",
            ratio,
            spread.fastest_rank,
            significant(mib_per_s(spread.fastest_bps)),
            significant(mb_per_s(spread.fastest_bps)),
            spread.slowest_rank,
            significant(mib_per_s(spread.slowest_bps)),
            significant(mb_per_s(spread.slowest_bps)),
        ));
    }
    if first.hosts.len() > 1 {
        for (index, host) in first.hosts.iter().enumerate() {
            let speed = median(
                repetitions
                    .iter()
                    .filter_map(|r| r.hosts.get(index).and_then(|h| h.throughput_bps))
                    .collect(),
            );
            text.push_str(&format!(
                "host {}: {} MiB/s ({} MB/s) from ranks {:?}\n",
                host.host,
                speed.map_or("-".into(), |s| significant(mib_per_s(s))),
                speed.map_or("-".into(), |s| significant(mb_per_s(s))),
                host.ranks
            ));
        }
    }
    if stonewall {
        let walls: Vec<_> = repetitions
            .iter()
            .filter_map(|r| r.stonewall.as_ref())
            .collect();
        let speed = median(walls.iter().map(|w| w.throughput_bps).collect());
        let at = median(walls.iter().map(|w| w.elapsed_ns as f64 / 1e6).collect());
        let wall = median(
            repetitions
                .iter()
                .filter_map(|r| r.elapsed_ns.map(|e| e as f64 / 1e6))
                .collect(),
        );
        if let (Some(speed), Some(at), Some(wall), Some(one)) = (speed, at, wall, walls.first()) {
            let coarse = one.resolution_ns as f64 / 1e6 > at / 10.0;
            text.push_str(&format!(
                "stonewall: {} MiB/s ({} MB/s): every rank's bytes when the first rank finished, at {} ms of {} ms{}\n",
                significant(mib_per_s(speed)),
                significant(mb_per_s(speed)),
                significant(at),
                significant(wall),
                if coarse {
                    format!(
                        "; counted from {} ms intervals, coarse for so short a run: lower --interval",
                        significant(one.resolution_ns as f64 / 1e6)
                    )
                } else {
                    String::new()
                }
            ));
        }
    }
    text
}
