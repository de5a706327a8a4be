//! A study measured on a host and in its guest: the file split by `machine` so each study table is shown for the host and the guest side by side, then the guest/host ratio of every pair with its per-round interval and equivalence verdict — CLOSER 2011's native against paravirtualized, Pinilla's Table 4 speedups (host/guest).

use super::{INTERVAL_NOTE, mean_pm, throughputs};
use crate::compare::equivalence::{self, EquivalenceVerdict};
use crate::compare::{Figure, Metric, Orientation, compare_point};
use crate::plan::Machine;
use crate::plan::guest::Accelerator;
use crate::record::{Point, ResultFile};
use crate::report::text_table::{Cell, TextTable};
use crate::report::units::digits3;

/// The margin the ratio table judges equivalence within.
pub const MARGIN: f64 = 0.05;

/// The host's and the guest's points as two files, when it has both.
pub fn split(file: &ResultFile) -> Option<(ResultFile, ResultFile)> {
    let on = |machine: Machine| ResultFile {
        points: file
            .points
            .iter()
            .filter(|p| p.workload.machine == machine)
            .cloned()
            .collect(),
        // The guest's side is described by the guest's own environment.
        environment: match (
            machine,
            file.guest.as_ref().and_then(|g| g.environment.as_deref()),
        ) {
            (Machine::Guest, Some(environment)) => environment.clone(),
            _ => file.environment.clone(),
        },
        ..file.clone()
    };
    let (host, guest) = (on(Machine::Host), on(Machine::Guest));
    (!host.points.is_empty() && !guest.points.is_empty()).then_some((host, guest))
}

/// How the guest's side is named: `guest (TCG: emulated CPU)` under TCG.
pub fn guest_name(name: &str, file: &ResultFile) -> String {
    match file.guest.as_ref().map(|g| g.accelerator) {
        Some(Accelerator::Tcg) => format!("{name}, guest (TCG: emulated CPU)"),
        Some(Accelerator::Kvm) => format!("{name}, guest (KVM)"),
        _ => format!("{name}, guest"),
    }
}

/// Each host point with the guest point of the same workload, in the file's order.
pub fn pairs(file: &ResultFile) -> Vec<(&Point, &Point)> {
    file.points
        .iter()
        .filter(|p| p.workload.machine == Machine::Host)
        .filter_map(|host| {
            // Of several configurations' file, one configuration's points
            // are there (studies split it): its guest_config is the twin's.
            let guest = file.points.iter().find(|g| {
                g.workload
                    == crate::plan::Workload {
                        machine: Machine::Guest,
                        guest_config: g.workload.guest_config,
                        ..host.workload.clone()
                    }
            })?;
            Some((host, guest))
        })
        .collect()
}

/// The guest/host ratio of every point measured on both.
pub fn ratio_table(name: &str, file: &ResultFile) -> Option<TextTable> {
    let pairs = pairs(file);
    if pairs.is_empty() {
        return None;
    }
    let mut table = TextTable::new(
        format!("Guest against host — {}", guest_name(name, file)),
        &[
            "point",
            "host MiB/s",
            "guest MiB/s",
            "guest/host [95% CI]",
            "host/guest",
            "rounds",
            "within ±5%",
        ],
    );
    // Rows named by what varies among the points, what they share once.
    let labels: Vec<&str> = pairs
        .iter()
        .map(|(host, _)| host.label.trim_end_matches(" machine=host"))
        .collect();
    let (shared, names) = crate::report::table::split_by_what_varies(&labels);
    if !shared.is_empty() {
        table.title.push_str(&format!("; every point: {shared}"));
    }
    let metric = Metric::from(Figure::Throughput);
    for ((host, guest), name) in pairs.into_iter().zip(names) {
        let judged = equivalence::judge(host, guest, &metric, Orientation::OtherOverBase, MARGIN);
        // compare's one estimator, its interval the one "different" is
        // decided by (the 95% one); the 90% one decides equivalence.
        let matched = compare_point(host, guest, &metric, 0.05, Orientation::OtherOverBase);
        let (host_mib, host_text) = mean_pm(&throughputs(host), 1.0 / 1048576.0);
        let (guest_mib, guest_text) = mean_pm(&throughputs(guest), 1.0 / 1048576.0);
        let verdict = match judged.verdict {
            EquivalenceVerdict::Equivalent => "equivalent",
            EquivalenceVerdict::Different => "different",
            EquivalenceVerdict::Inconclusive => "inconclusive",
        };
        let range = |interval: Option<(f64, f64)>| {
            interval.map_or_else(
                || match judged.n {
                    0 | 1 => "n < 2".to_string(),
                    _ => "unbounded".to_string(),
                },
                |(l, h)| format!("{}–{}", digits3(l), digits3(h)),
            )
        };
        table.rows.push(vec![
            Cell::text(name),
            host_mib.map_or_else(Cell::empty, |m| Cell::number(m, host_text)),
            guest_mib.map_or_else(Cell::empty, |m| Cell::number(m, guest_text)),
            matched.as_ref().map_or_else(Cell::empty, |m| {
                let interval = range(m.ratio_low.zip(m.ratio_high));
                Cell::number(m.ratio, format!("{:.3} [{interval}]", m.ratio))
            }),
            matched.as_ref().map_or_else(Cell::empty, |m| {
                Cell::number(1.0 / m.ratio, format!("{:.2}", 1.0 / m.ratio))
            }),
            Cell::number(judged.n as f64, judged.n.to_string()),
            // "different" is decided by the 95% interval of the guest/host
            // column; equivalence by the 90% one, shown beside it.
            Cell::text(match judged.verdict {
                EquivalenceVerdict::Different => verdict.to_string(),
                _ => format!("{verdict} [90%: {}]", range(judged.interval_90)),
            }),
        ]);
    }
    table.notes.push(format!(
        "guest/host: the guest's throughput over the host's on the same workload, the same host file system under the guest's image, as `iolab compare` gives it (the geometric mean of the rounds' ratios where both ran in the same rounds, else the ratio of the means); host/guest is Pinilla's speedup. {}.",
        equivalence::rule(MARGIN)
    ));
    table.notes.push(INTERVAL_NOTE.into());
    if file.guest.as_ref().map(|g| g.accelerator) == Some(Accelerator::Tcg) {
        table.notes.push(
            "emulated CPU (TCG): the guest's times measure QEMU's CPU emulation, not the cost of virtualization; its counts of requests and bytes hold. With KVM the same plan measures the paravirtualized disk.".into(),
        );
    }
    Some(table)
}

/// The stack across the hypervisor, per guest point and round: what the
/// guest's disk and the host's devices under the image moved over the whole
/// point, and their ratio (Varlyakov's logical:physical, now spanning both).
pub fn crossing_table(name: &str, file: &ResultFile) -> Option<TextTable> {
    let guest = file.guest.as_ref()?;
    if guest.crossings.is_empty() {
        return None;
    }
    let mib = |bytes: u64| bytes as f64 / 1048576.0;
    // The host's devices under the image are summed (a stack of them holds
    // the image once per layer only when they are layers of one another, so
    // only the lowest guest layer is taken: dm-0 over vda is counted once).
    let sum = |devices: &[crate::record::guest::DeviceBytes], write: bool| -> u64 {
        devices
            .iter()
            .map(|d| if write { d.write_bytes } else { d.read_bytes })
            .sum()
    };
    let lowest =
        |devices: &[crate::record::guest::DeviceBytes]| -> Vec<crate::record::guest::DeviceBytes> {
            devices.last().cloned().into_iter().collect()
        };
    let mut table = TextTable::new(
        format!("Across the hypervisor — {name}"),
        &[
            "point",
            "round",
            "guest disk",
            "guest read MiB",
            "guest written MiB",
            "host devices",
            "host read MiB",
            "host written MiB",
            "host:guest written",
        ],
    );
    // Rows named by what varies among the points, what they share once;
    // a narrow terminal's folds repeat the point and its round.
    table.keys = 2;
    let mut labels: Vec<&str> = Vec::new();
    for crossing in &guest.crossings {
        let label = crossing.label.trim_end_matches(" machine=guest");
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    let (shared, short) = crate::report::table::split_by_what_varies(&labels);
    if !shared.is_empty() {
        table.title.push_str(&format!("; every point: {shared}"));
    }
    let short_of = |label: &str| {
        let label = label.trim_end_matches(" machine=guest");
        labels
            .iter()
            .position(|l| *l == label)
            .map_or_else(|| label.to_string(), |at| short[at].clone())
    };
    for crossing in &guest.crossings {
        let names = |devices: &[crate::record::guest::DeviceBytes]| {
            devices
                .iter()
                .map(|d| d.device.clone())
                .collect::<Vec<_>>()
                .join("+")
        };
        let guest_disk = lowest(&crossing.guest);
        let (guest_written, host_written) = (sum(&guest_disk, true), sum(&crossing.host, true));
        // Below a MiB the ratio of two small counts says nothing.
        let ratio = (guest_written >= 1 << 20).then(|| host_written as f64 / guest_written as f64);
        table.rows.push(vec![
            Cell::text(short_of(&crossing.label)),
            Cell::text(
                crossing
                    .round
                    .map_or_else(|| "-".into(), |r| (r + 1).to_string()),
            ),
            Cell::text(names(&guest_disk)),
            Cell::number(
                mib(sum(&guest_disk, false)),
                format!("{:.1}", mib(sum(&guest_disk, false))),
            ),
            Cell::number(mib(guest_written), format!("{:.1}", mib(guest_written))),
            Cell::text(names(&crossing.host)),
            Cell::number(
                mib(sum(&crossing.host, false)),
                format!("{:.1}", mib(sum(&crossing.host, false))),
            ),
            Cell::number(mib(host_written), format!("{:.1}", mib(host_written))),
            ratio.map_or_else(Cell::empty, |r| {
                // Beyond three times and 8 MiB, as the foreign-io check judges a point.
                let foreign = host_written > guest_written.saturating_mul(3) + (8 << 20);
                let mark = if foreign { " (others' I/O?)" } else { "" };
                Cell::number(r, format!("{r:.2}{mark}"))
            }),
        ]);
    }
    table.notes.push(
        "over the whole point (layout, cache treatment and every repetition), from /proc/diskstats in the guest (its disk under test) and on the host (the devices under the image), read around the same exchange; the host's figures include any other process's I/O on those devices meanwhile, marked \"others' I/O?\" beyond three times the guest's writes and 8 MiB. MiB = 2^20 bytes.".into(),
    );
    Some(table)
}

/// A layer of a stack: its device (or `application`), where it is (`guest`
/// or `host`), and its requests and bytes in the point's direction.
type Layer = (String, &'static str, (u64, u64));

/// One crossing's layers, top first: the application (its calls and bytes
/// in the round), each layer in the guest, then the host's devices under
/// the image, each with its requests and bytes in the point's direction;
/// and whether the point writes. `None` when its point is not in `file`.
fn layers(
    file: &ResultFile,
    crossing: &crate::record::guest::Crossing,
) -> Option<(bool, Vec<Layer>)> {
    let point = file.points.iter().find(|p| p.label == crossing.label)?;
    let writes = point.workload.op.writes();
    let in_round: Vec<_> = point
        .repetitions
        .iter()
        .filter(|r| r.round == crossing.round)
        .collect();
    let app = (
        in_round.iter().map(|r| r.ops).sum::<u64>(),
        in_round.iter().map(|r| r.bytes).sum::<u64>(),
    );
    let counts = |d: &crate::record::guest::DeviceBytes| {
        if writes {
            (d.writes, d.write_bytes)
        } else {
            (d.reads, d.read_bytes)
        }
    };
    let mut rows: Vec<Layer> = vec![("application".into(), "guest", app)];
    rows.extend(
        crossing
            .guest
            .iter()
            .map(|d| (d.device.clone(), "guest", counts(d))),
    );
    rows.extend(
        crossing
            .host
            .iter()
            .map(|d| (d.device.clone(), "host", counts(d))),
    );
    Some((writes, rows))
}

/// A logical:physical ratio as the study printed it (`26.9:1`).
fn ratio_cell(above: u64, this: u64) -> Cell {
    (above > 0 && this > 0)
        .then(|| above as f64 / this as f64)
        .map_or_else(
            || Cell::text("-"),
            |r| Cell::number(r, format!("{}:1", crate::report::units::significant(r))),
        )
}

/// Per guest point and round, the stack across the hypervisor in the shape
/// of Varlyakov's atop view: the application, every layer in the guest (a
/// logical volume, its disk) and the host's devices under the image, each
/// with its requests and bytes in the point's direction over the whole
/// point, the ratio to the layer above and the application's to each layer.
pub fn stack_tables(name: &str, file: &ResultFile) -> Vec<TextTable> {
    let Some(guest) = file.guest.as_ref() else {
        return Vec::new();
    };
    let mut tables = Vec::new();
    for crossing in &guest.crossings {
        let Some((writes, rows)) = layers(file, crossing) else {
            continue;
        };
        let direction = if writes { "writes" } else { "reads" };
        let mut table = TextTable::new(
            format!(
                "The stack across the hypervisor, Varlyakov's atop ratios: {} (round {}) — {name}",
                crossing.label.trim_end_matches(" machine=guest"),
                crossing
                    .round
                    .map_or_else(|| "-".into(), |r| (r + 1).to_string())
            ),
            &[
                "layer",
                "where",
                direction,
                "MiB",
                "avg I/O",
                "layer above : this",
                "application : this",
            ],
        );
        let app = rows[0].2;
        let mut above: Option<u64> = None;
        for (layer, place, (requests, bytes)) in &rows {
            let is_app = above.is_none();
            table.rows.push(vec![
                Cell::text(layer.clone()),
                Cell::text(*place),
                Cell::number(*requests as f64, requests.to_string()),
                Cell::number(
                    *bytes as f64 / 1048576.0,
                    format!("{:.1}", *bytes as f64 / 1048576.0),
                ),
                bytes.checked_div(*requests).map_or_else(
                    || Cell::text("-"),
                    |mean| Cell::number(mean as f64, crate::report::units::bytes(mean)),
                ),
                above.map_or_else(|| Cell::text("-"), |a| ratio_cell(a, *requests)),
                if is_app {
                    Cell::text("-")
                } else {
                    ratio_cell(app.0, *requests)
                },
            ]);
            above = Some(*requests);
        }
        table.notes.push(format!(
            "over the whole point in this round (its layout, cache treatment and every repetition, \
             warm-ups included), the application's {direction} as iolab's jobs counted them and each \
             layer's from /proc/diskstats in the guest and on the host around the same exchange (the \
             host's include any other process's I/O on those devices); a ratio is the study's \
             logical:physical one, requests at the layer above (or the application's calls) per \
             request at this layer."
        ));
        tables.push(table);
    }
    tables
}

/// Several guest configurations (two hypervisor setups) set against each
/// other in Varlyakov's atop shape: per point, a row per layer position
/// (the application, the guest's layers top first, the host's devices)
/// and a column per configuration with that layer's requests, their mean
/// size and the application's ratio to it, from each configuration's
/// first round. `None` with fewer than two configurations.
pub fn stacks_side_by_side(name: &str, file: &ResultFile) -> Option<TextTable> {
    if file.guests.len() < 2 {
        return None;
    }
    let mut header = vec!["point".to_string(), "layer".to_string()];
    header.extend(file.guests.iter().map(|g| g.spec.label()));
    let mut table = TextTable {
        title: format!(
            "The stack across the hypervisor, configuration against configuration (Varlyakov's atop ratios) — {name}"
        ),
        header,
        rows: Vec::new(),
        notes: Vec::new(),
        keys: 1,
    };
    // The points in the first configuration's order, by their label
    // without the configuration's name.
    let base = |label: &str| {
        label
            .split(" guest=")
            .next()
            .unwrap_or(label)
            .trim_end_matches(" machine=guest")
            .to_string()
    };
    let mut points: Vec<String> = Vec::new();
    for crossing in file.guests.iter().flat_map(|g| &g.crossings) {
        let key = base(&crossing.label);
        if !points.contains(&key) {
            points.push(key);
        }
    }
    for point in points {
        // Each configuration's layers at its first round for this point.
        let stacks: Vec<Option<Vec<Layer>>> = file
            .guests
            .iter()
            .map(|g| {
                g.crossings
                    .iter()
                    .filter(|c| base(&c.label) == point)
                    .min_by_key(|c| c.round)
                    .and_then(|c| layers(file, c).map(|(_, rows)| rows))
            })
            .collect();
        let guest_depth = stacks
            .iter()
            .flatten()
            .map(|rows| rows.iter().filter(|r| r.1 == "guest").count())
            .max()
            .unwrap_or(0);
        let host_depth = stacks
            .iter()
            .flatten()
            .map(|rows| rows.iter().filter(|r| r.1 == "host").count())
            .max()
            .unwrap_or(0);
        let positions = (0..guest_depth)
            .map(|i| ("guest", i))
            .chain((0..host_depth).map(|i| ("host", i)));
        for (place, depth) in positions {
            let layer = match (place, depth) {
                ("guest", 0) => "application".to_string(),
                ("guest", n) => format!("guest layer {n}"),
                (_, n) => format!("host device {}", n + 1),
            };
            let mut row = vec![Cell::text(point.clone()), Cell::text(layer)];
            for stack in &stacks {
                let cell = stack.as_ref().and_then(|rows| {
                    let app = rows[0].2.0;
                    let (device, _, (requests, bytes)) =
                        rows.iter().filter(|r| r.1 == place).nth(depth)?;
                    let mean = bytes
                        .checked_div(*requests)
                        .map_or_else(|| "-".to_string(), crate::report::units::bytes);
                    let ratio = ratio_cell(app, *requests).text;
                    Some(Cell::number(
                        *requests as f64,
                        if place == "guest" && depth == 0 {
                            format!("{requests} × {mean}")
                        } else {
                            format!("{device}: {requests} × {mean}, {ratio}")
                        },
                    ))
                });
                row.push(cell.unwrap_or_else(|| Cell::text("-")));
            }
            table.rows.push(row);
        }
    }
    if table.rows.is_empty() {
        return None;
    }
    table.notes.push(
        "Each cell: the layer's device, its requests × their mean size in the point's direction \
         over the whole point (layout, cache treatment, every repetition) in the configuration's \
         first round, and the application's calls per request there (the study's logical:physical \
         ratio). Two hypervisor setups compare this way: the same plan, one --guest per setup \
         (bus, cache, aio, lvm…), booted in turn, A B | B A by round."
            .into(),
    );
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{file, point};
    use super::*;
    use crate::plan::study::StudyTable;
    use crate::plan::{Workload, example_workload};

    fn on(machine: Machine, seconds: &[f64]) -> Point {
        let mut point = point(
            Workload {
                machine,
                size: 1 << 20,
                bs: 4096,
                ..example_workload()
            },
            seconds,
        );
        point.label = format!("p machine={}", machine.name());
        for (round, repetition) in point.repetitions.iter_mut().enumerate() {
            repetition.round = Some(round as u32);
        }
        point
    }

    #[test]
    fn the_ratio_table_pairs_each_point_with_its_guest_twin_by_round() {
        let mut result = file(StudyTable::DdBlocksize);
        result.points.push(on(Machine::Host, &[1.0, 1.02, 0.98]));
        result.points.push(on(Machine::Guest, &[2.0, 2.04, 1.96]));
        let (host, guest) = split(&result).expect("both machines");
        assert_eq!((host.points.len(), guest.points.len()), (1, 1));
        let table = ratio_table("f", &result).expect("a pair");
        let row = &table.rows[0];
        assert_eq!(row[0].text, "p");
        // Each round the guest took twice the host's time: a ratio of 0.5.
        assert!(
            row[3].text.starts_with("0.500 [0.500–0.500]"),
            "{}",
            row[3].text
        );
        assert_eq!(row[4].text, "2.00");
        assert_eq!(row[5].text, "3");
        // The verdict with the interval it was decided by.
        assert_eq!(row[6].text, "different");
        // A file measured on one machine has no guest side.
        result.points.pop();
        assert!(split(&result).is_none());
    }
}
