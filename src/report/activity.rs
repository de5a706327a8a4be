//! The detail view: what each device of the stack, the network, the CPUs and NFS did, per repetition or measured run.

use super::screen::Screen;
use super::text_table::{Cell, TextTable};
use super::units::{bytes, count, latency, mb_per_s, mib_per_s, significant};
use crate::record::activity::{Activity, DeviceActivity};
use crate::record::{ClientNetwork, ResultFile, Status};
use comfy_table::CellAlignment;

/// The detail of every measured repetition of every point.
pub fn render_points(result: &ResultFile, screen: Screen) -> String {
    let mut text = String::new();
    for point in &result.points {
        for repetition in &point.repetitions {
            if repetition.warmup || repetition.status != Status::Ok {
                continue;
            }
            let Some(activity) = &repetition.activity else {
                continue;
            };
            text.push_str(&format!(
                "\n{} — repetition {}: {} I/Os, {} by the application\n",
                point.label,
                repetition.index,
                repetition.ops,
                bytes(repetition.bytes)
            ));
            text.push_str(&render(activity, stack_of(result), screen));
            if let Some(network) = &repetition.client_network {
                text.push_str(&render_client_network(network));
            }
        }
    }
    text
}

/// A network client engine's requests, (iSCSI) PDUs, and its connections' TCP counters.
pub fn render_client_network(network: &ClientNetwork) -> String {
    // The protocol says what its requests are; an older record did not.
    let kind = match network.requests_are.as_str() {
        "" => "requests",
        said => said,
    };
    let requests: Vec<String> = network
        .requests
        .iter()
        .map(|request| match request.bytes {
            0 => format!("{} {}", request.name, request.count),
            moved => format!("{} {} ({})", request.name, request.count, bytes(moved)),
        })
        .collect();
    let mut text = format!(
        "  client {} {kind}: {}\n",
        network.protocol,
        if requests.is_empty() {
            "none".to_string()
        } else {
            requests.join(", ")
        }
    );
    let total_requests: u64 = network.requests.iter().map(|r| r.count).sum();
    for direction in ["sent", "received"] {
        let pdus: Vec<String> = network
            .pdus
            .iter()
            .filter(|pdu| pdu.direction == direction)
            .map(|pdu| format!("{} {} ({})", pdu.name, pdu.count, bytes(pdu.bytes)))
            .collect();
        if !pdus.is_empty() {
            text.push_str(&format!(
                "  client iSCSI PDUs {direction}: {}\n",
                pdus.join(", ")
            ));
        }
    }
    if network.status_in_data > 0 {
        text.push_str(&format!(
            "  client iSCSI: {} Data-In PDUs carried their command's status (no SCSI Response followed)\n",
            network.status_in_data
        ));
    }
    if let Some(why) = &network.pdus_not_counted {
        text.push_str(&format!("  client iSCSI PDUs: not counted ({why})\n"));
    }
    match &network.tcp {
        Some(tcp) => {
            text.push_str(&format!(
                "  client TCP: sent {} segments ({} with data, {} acknowledged), received {} ({} with data, {}), {} retransmitted",
                tcp.segs_out,
                tcp.data_segs_out,
                bytes(tcp.bytes_acked),
                tcp.segs_in,
                tcp.data_segs_in,
                bytes(tcp.bytes_received),
                tcp.retransmits,
            ));
            if total_requests > 0 {
                let per_request = (tcp.segs_out + tcp.segs_in) as f64 / total_requests as f64;
                let unit = if kind == "RPCs" { "call" } else { "command" };
                text.push_str(&format!(
                    "; {} segments per {unit}",
                    significant(per_request)
                ));
            }
            text.push('\n');
        }
        None => {
            text.push_str("  client TCP: counters not available (TCP_INFO could not be read)\n")
        }
    }
    text
}

/// The network client engines' traffic, one row per point (its first
/// measured repetition): requests, PDUs, and TCP's segments and bytes each
/// way; `None` when no point used a network client.
pub fn client_network_table(result: &ResultFile) -> Option<TextTable> {
    let mut table = TextTable::new(
        "What the network clients sent and received",
        &[
            "point",
            "requests",
            "PDUs sent",
            "PDUs received",
            "TCP segments out",
            "TCP segments in",
            "TCP bytes out",
            "TCP bytes in",
            "retransmits",
            "segments per request",
        ],
    );
    for point in &result.points {
        let Some(network) = point.measured().find_map(|r| r.client_network.as_ref()) else {
            continue;
        };
        let joined = |direction: &str| {
            let pdus: Vec<String> = network
                .pdus
                .iter()
                .filter(|pdu| pdu.direction == direction)
                .map(|pdu| format!("{} {}", pdu.name, pdu.count))
                .collect();
            match (&network.pdus_not_counted, pdus.is_empty()) {
                (Some(_), _) => "not counted".to_string(),
                (None, true) => "-".to_string(),
                (None, false) => pdus.join(", "),
            }
        };
        let requests: Vec<String> = network
            .requests
            .iter()
            .map(|r| format!("{} {}", r.name, r.count))
            .collect();
        let total: u64 = network.requests.iter().map(|r| r.count).sum();
        let mut row = vec![
            Cell::text(point.label.clone()),
            Cell::text(format!("{}: {}", network.protocol, requests.join(", "))),
            Cell::text(joined("sent")),
            Cell::text(joined("received")),
        ];
        match &network.tcp {
            Some(tcp) => {
                let number = |n: u64| Cell::number(n as f64, n.to_string());
                let size = |n: u64| Cell::number(n as f64, bytes(n));
                let segments = (tcp.segs_out + tcp.segs_in) as f64;
                row.extend([
                    number(tcp.segs_out),
                    number(tcp.segs_in),
                    size(tcp.bytes_acked),
                    size(tcp.bytes_received),
                    number(tcp.retransmits),
                    match total {
                        0 => Cell::text("-"),
                        n => Cell::number(segments / n as f64, significant(segments / n as f64)),
                    },
                ]);
            }
            None => row.extend(std::iter::repeat_with(|| Cell::text("-")).take(6)),
        }
        table.rows.push(row);
    }
    if table.rows.is_empty() {
        return None;
    }
    table.notes.push(
        "requests: NFS calls by procedure or SCSI commands by operation, as the engine completed them; \
         PDUs: iSCSI's, by opcode, as libiscsi sent and received them; TCP: the connections' own \
         counters (TCP_INFO), bytes out as acknowledged by the server, bytes in as received; \
         per interval in each repetition's series (client_tcp)"
            .into(),
    );
    Some(table)
}

fn stack_of(result: &ResultFile) -> &str {
    result
        .environment
        .storage
        .as_ref()
        .map_or("", |s| s.stack.as_str())
}

/// One window's activity: a device table, then network, CPU and NFS lines.
pub fn render(activity: &Activity, stack: &str, screen: Screen) -> String {
    render_devices(activity, stack, screen) + &render_beyond_devices(activity)
}

/// The device part of [`render`].
pub fn render_devices(activity: &Activity, stack: &str, screen: Screen) -> String {
    let mut text = String::new();
    if activity.devices.is_empty() {
        text.push_str("  devices: none under this path (no block device: tmpfs, network or FUSE file system)\n");
    } else {
        text.push_str(&format!(
            "  devices over {} sampled{}\n",
            latency(activity.elapsed_ns as f64),
            if stack.is_empty() {
                String::new()
            } else {
                format!(", stack {stack}")
            }
        ));
        text.push_str(&device_table(activity, screen));
        text.push('\n');
    }
    text
}

/// The network, CPU and NFS part of [`render`].
pub fn render_beyond_devices(activity: &Activity) -> String {
    let mut text = String::new();
    if activity.network.is_empty() {
        text.push_str("  network: no packets\n");
    }
    for interface in &activity.network {
        text.push_str(&format!(
            "  network {}: received {} in {} packets, sent {} in {} packets{}\n",
            interface.name,
            bytes(interface.rx_bytes),
            interface.rx_packets,
            bytes(interface.tx_bytes),
            interface.tx_packets,
            if interface.errors + interface.dropped > 0 {
                format!(
                    ", {} errors, {} dropped",
                    interface.errors, interface.dropped
                )
            } else {
                String::new()
            }
        ));
    }
    if let Some(cpu) = &activity.cpu {
        text.push_str(&format!(
            "  CPU, all cores: user {:.1}%, system {:.1}%, iowait {:.1}%, steal {:.1}%, idle {:.1}%\n",
            cpu.user * 100.0,
            cpu.system * 100.0,
            cpu.iowait * 100.0,
            cpu.steal * 100.0,
            cpu.idle * 100.0
        ));
    }
    if activity.cpu.is_none() {
        text.push_str("  CPU, all cores: not measured (the window is shorter than /proc/stat's accounting tick)\n");
    }
    if let Some(nfs) = &activity.nfs {
        text.push_str(&format!(
            "  NFS {}: read {} from the server, wrote {}\n",
            nfs.mount_point,
            bytes(nfs.server_read_bytes),
            bytes(nfs.server_write_bytes)
        ));
        for op in &nfs.operations {
            text.push_str(&format!(
                "    {}: {} ops, {} transmissions, sent {}, received {}, mean RTT {}, mean execute {}\n",
                op.name,
                op.ops,
                op.transmissions,
                bytes(op.bytes_sent),
                bytes(op.bytes_received),
                op.rtt_mean_ns.map_or_else(|| "-".into(), latency),
                op.execute_mean_ns.map_or_else(|| "-".into(), latency),
            ));
        }
    }
    text
}

fn device_table(activity: &Activity, screen: Screen) -> String {
    let mut table = screen.table();
    table.set_header(vec![
        "device",
        "r/s",
        "w/s",
        "read MiB/s (MB/s)",
        "write MiB/s (MB/s)",
        "avg I/O",
        "await",
        "avio",
        "busy",
        "merged r/w",
        "app I/Os per dev I/O",
        "app bytes per dev byte",
    ]);
    let rate = |bps: f64| {
        format!(
            "{} ({})",
            significant(mib_per_s(bps)),
            significant(mb_per_s(bps))
        )
    };
    let ratio = |value: Option<f64>| value.map_or_else(|| "-".to_string(), significant);
    for device in &activity.devices {
        table.add_row(vec![
            device.name.clone(),
            count(device.reads_per_s),
            count(device.writes_per_s),
            rate(device.read_bps),
            rate(device.write_bps),
            device
                .avg_io_bytes
                .map_or_else(|| "-".into(), |b| bytes(b.round() as u64)),
            await_text(device),
            avio_text(device),
            busy_text(device),
            format!("{}/{}", device.reads_merged, device.writes_merged),
            ratio(device.app_ops_per_device_op),
            ratio(device.app_bytes_per_device_byte),
        ]);
    }
    for column in 1..12 {
        if let Some(column) = table.column_mut(column) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut text = screen.fit(&table);
    if activity
        .devices
        .iter()
        .any(|d| !d.below_resolution.is_empty())
    {
        text.push('\n');
        text.push_str(BELOW_RESOLUTION_NOTE);
    }
    text
}

/// Said under a table with a figure below its counter's resolution.
pub const BELOW_RESOLUTION_NOTE: &str = "below res. = the device completed I/O, but the \
counter behind the figure moved less than its resolution in this window (/proc/diskstats \
counts I/O time in whole ms, busy time in jiffies): too short to measure, not zero; \
<X = under that bound. A longer run measures it.";

/// The await column: measured, a bound when below resolution, or `-` without I/O.
pub fn await_text(device: &DeviceActivity) -> String {
    match (device.await_ns, device.await_below_ns) {
        (Some(value), _) => latency(value),
        (None, Some(bound)) => format!("<{}", latency(bound)),
        (None, None) => "-".into(),
    }
}

/// The avio column: measured, `below res.`, or `-` without I/O.
pub fn avio_text(device: &DeviceActivity) -> String {
    match device.avio_ns {
        Some(value) => latency(value),
        None if device.below_resolution.iter().any(|f| f == "avio_ns") => "below res.".into(),
        None => "-".into(),
    }
}

/// The busy column: measured, or `below res.`.
pub fn busy_text(device: &DeviceActivity) -> String {
    match device.busy_fraction {
        Some(busy) => format!("{:.0}%", busy * 100.0),
        None => "below res.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gather::activity::activity;
    use crate::probe::diskstats::DiskCounters;
    use crate::probe::sampler::{Samples, Snapshot};
    use crate::record::activity::AppWork;

    #[test]
    fn figures_below_the_counters_resolution_are_never_shown_as_zeros() {
        // A 1 MiB O_DIRECT write over 1.2 ms: 8 requests, no whole millisecond.
        let before = DiskCounters::default();
        let after = DiskCounters {
            writes: 8,
            sectors_written: 2048,
            ..before
        };
        let at = |ns: u64, disks: DiskCounters| Snapshot {
            at_ns: ns,
            disks: vec![disks],
            ..Snapshot::default()
        };
        let samples = Samples {
            disks: vec!["vda".into()],
            start: at(0, before),
            ticks: Vec::new(),
            interval_ns: 1_000_000_000,
            end: at(1_200_000, after),
        };
        let text = render(
            &activity(&samples, AppWork::default()),
            "vda",
            Screen::UNLIMITED,
        );
        assert!(text.contains("<125 µs"), "{text}");
        assert!(text.contains("below res."), "{text}");
        assert!(text.contains(BELOW_RESOLUTION_NOTE), "{text}");
        assert!(!text.contains(" 0%") && !text.contains("0 ns"), "{text}");
    }
}
