//! Varlyakov 2013's atop view: per layer of the device stack (dm/LVM, loop, disk), busy, rates, avio and I/O size, with the logical:physical I/O ratios between layers and from the application.

use crate::record::ResultFile;
use crate::record::activity::{Activity, DeviceActivity};
use crate::report::activity::{BELOW_RESOLUTION_NOTE, avio_text, busy_text};
use crate::report::text_table::{Cell, TextTable};
use crate::report::units::{bytes, count, latency, mb_per_s, mib_per_s, significant};

/// One table per point of the file: the first measured repetition's window.
pub fn tables(name: &str, file: &ResultFile) -> Vec<TextTable> {
    let stack = file
        .environment
        .storage
        .as_ref()
        .map_or("", |s| s.stack.as_str());
    file.points
        .iter()
        .filter_map(|point| {
            let repetition = point.measured().find(|r| r.activity.is_some())?;
            let activity = repetition.activity.as_ref()?;
            let title = format!(
                "Varlyakov 2013, atop per layer: {} (repetition {}) — {name}, stack {}",
                point.label,
                repetition.index,
                if stack.is_empty() { "none" } else { stack }
            );
            // Another process's I/O in the counts: the application's ratios
            // would divide its calls by someone else's requests.
            let foreign = point.checks.iter().any(|c| c.code == "foreign-io");
            let mut own = activity.clone();
            if foreign {
                for device in &mut own.devices {
                    device.app_ops_per_device_op = None;
                    device.app_bytes_per_device_byte = None;
                }
            }
            let mut table = layer_table(title, &own, point.workload.op.writes(), true);
            if foreign {
                table.notes.insert(
                    0,
                    "foreign-io: a layer counted I/O this point's jobs cannot have made (another \
                     process used the device); its figures are not the point's, and the \
                     application : this ratios are withheld."
                        .into(),
                );
            }
            Some(table)
        })
        .collect()
}

/// A logical:physical ratio as the study wrote it (`24:1`), `-` without one.
fn ratio(value: Option<f64>) -> Cell {
    value.map_or_else(
        || Cell::text("-"),
        |value| Cell::number(value, format!("{}:1", significant(value))),
    )
}

/// The atop-shaped table of one window. `writes` is the direction the
/// layer-to-layer ratios compare; the application's ratios are those
/// recorded with each device (`app_counted`: the application's calls were
/// counted at all).
pub fn layer_table(
    title: String,
    activity: &Activity,
    writes: bool,
    app_counted: bool,
) -> TextTable {
    let mut table = TextTable::new(
        title,
        &[
            "layer",
            "busy",
            "reads/s",
            "writes/s",
            "MBr/s: MiB/s (MB/s)",
            "MBw/s: MiB/s (MB/s)",
            "avio",
            "avg I/O",
            "layer above : this",
            "application : this",
        ],
    );
    let ios = |d: &DeviceActivity| if writes { d.writes } else { d.reads };
    let rate = |bps: f64| {
        format!(
            "{} ({})",
            significant(mib_per_s(bps)),
            significant(mb_per_s(bps))
        )
    };
    let mut above: Option<u64> = None;
    for device in &activity.devices {
        table.rows.push(vec![
            Cell::text(&device.name),
            match device.busy_fraction {
                Some(busy) => Cell::number(busy * 100.0, busy_text(device)),
                None => Cell::text(busy_text(device)),
            },
            Cell::number(device.reads_per_s, count(device.reads_per_s)),
            Cell::number(device.writes_per_s, count(device.writes_per_s)),
            Cell::number(mib_per_s(device.read_bps), rate(device.read_bps)),
            Cell::number(mib_per_s(device.write_bps), rate(device.write_bps)),
            match device.avio_ns {
                Some(ns) => Cell::number(ns / 1e6, avio_text(device)),
                None => Cell::text(avio_text(device)),
            },
            device.avg_io_bytes.map_or_else(
                || Cell::text("-"),
                |b| Cell::number(b, bytes(b.round() as u64)),
            ),
            ratio(above.and_then(|upper: u64| {
                let this = ios(device);
                (upper > 0 && this > 0).then(|| upper as f64 / this as f64)
            })),
            ratio(device.app_ops_per_device_op),
        ]);
        above = Some(ios(device));
    }
    let direction = if writes { "writes" } else { "reads" };
    table.notes.push(format!(
        "ratios: {direction} at the layer above (or the application's {} calls) per {direction} \
         at this layer: the study's logical:physical ratio (24:1 and 127:1 for dd's writes).",
        if writes { "write" } else { "read" }
    ));
    if writes && app_counted && activity.devices.iter().all(|d| d.writes == 0) {
        table.notes.push(
            "no layer saw a write while the application wrote: the page cache held all of it \
             (buffered, no sync); the study's 8 GiB outgrew the dirty limits, so writeback ran \
             during its dd."
                .into(),
        );
    }
    table.notes.push(format!(
        "over {} of sampling; busy = the share of that time the layer had I/O in flight, \
         avio = busy time per I/O (atop's avio); avg I/O = bytes per request.",
        latency(activity.elapsed_ns as f64)
    ));
    if !app_counted {
        table.notes.push(
            "application : this is `-`: the measured command's own I/O calls were not counted."
                .into(),
        );
    }
    if activity.devices.is_empty() {
        table.notes.push(
            "no block device under this path (tmpfs, network or FUSE file system): no layers."
                .into(),
        );
    }
    if activity
        .devices
        .iter()
        .any(|d| !d.below_resolution.is_empty())
    {
        table.notes.push(BELOW_RESOLUTION_NOTE.into());
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gather::activity::activity;
    use crate::probe::diskstats::DiskCounters;
    use crate::probe::sampler::{Samples, Snapshot};
    use crate::record::activity::AppWork;

    #[test]
    fn ratios_between_layers_and_from_the_application() {
        // The study's Hyper-V write: LVM 1,179,003 writes, the disk 47,864.
        let at = |ns: u64, disks: Vec<DiskCounters>| Snapshot {
            at_ns: ns,
            disks,
            ..Snapshot::default()
        };
        let layer = |writes: u64, sectors: u64| DiskCounters {
            writes,
            sectors_written: sectors,
            write_ms: writes / 10,
            io_ms: 700,
            ..DiskCounters::default()
        };
        let samples = Samples {
            disks: vec!["dm-0".into(), "sdb".into()],
            start: at(0, vec![DiskCounters::default(); 2]),
            ticks: Vec::new(),
            interval_ns: 1_000_000_000,
            end: at(
                1_000_000_000,
                vec![layer(1_179_003, 943_600), layer(47_864, 943_800)],
            ),
        };
        // dd bs=8k count=1M: 1 Mi write calls of 8 KiB.
        let app = AppWork {
            ops: 1 << 20,
            bytes: 8 << 30,
            directions: crate::plan::direction::DirectionMix::only(
                crate::plan::direction::Direction::Write,
            ),
        };
        let window = activity(&samples, app);
        let table = layer_table("t".into(), &window, true, true);
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.rows[0][8].text, "-", "nothing above the top layer");
        assert_eq!(table.rows[1][8].text, "24.6:1");
        assert_eq!(table.rows[1][9].text, "21.9:1");
        assert_eq!(table.rows[0][9].text, "0.89:1");
        assert_eq!(table.rows[1][1].text, "70%");
    }
}
