//! The activity part of the file format — what the stack's devices, the network, the CPUs and NFS did during a timed region — and its computation from probe samples.

use crate::probe::diskstats::{DiskCounters, DiskRates, SECTOR_BYTES};
use crate::probe::nfs::NfsCounters;
use crate::probe::procstat::CpuTicks;
use crate::probe::sampler::{Samples, Snapshot};
use serde::{Deserialize, Serialize};

/// What the machine did over a timed region (or a measured command).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Activity {
    /// The sampled window, ns: the rates below are over this time.
    pub elapsed_ns: u64,
    /// Each device of the stack, top first.
    pub devices: Vec<DeviceActivity>,
    /// Each network interface that moved packets.
    pub network: Vec<InterfaceActivity>,
    /// Machine-wide CPU time by state (all CPUs, /proc/stat).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cpu: Option<SystemCpu>,
    /// NFS client counters of the target's mount, when it is NFS.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nfs: Option<NfsActivity>,
}

/// One block device over a window: counts from /proc/diskstats and the figures derived from them.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceActivity {
    /// Kernel name (`vda`, `loop0`, `dm-0`).
    pub name: String,
    /// Reads completed.
    pub reads: u64,
    /// Writes completed.
    pub writes: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// Reads merged into others before reaching the device.
    pub reads_merged: u64,
    /// Writes merged into others.
    pub writes_merged: u64,
    /// Discards completed.
    pub discards: u64,
    /// Flushes (cache flush requests) completed.
    pub flushes: u64,
    /// Reads completed per second.
    pub reads_per_s: f64,
    /// Writes completed per second.
    pub writes_per_s: f64,
    /// Bytes read per second.
    pub read_bps: f64,
    /// Bytes written per second.
    pub write_bps: f64,
    /// Mean bytes per device I/O; absent without I/O.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub avg_io_bytes: Option<f64>,
    /// Mean issue-to-completion time per I/O (iostat's await), ns; absent
    /// without I/O, or when below resolution (see `below_resolution`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub await_ns: Option<f64>,
    /// When await is below resolution: the bound it is under, ns (the read
    /// and write time counters count whole ms, and moved less than one).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub await_below_ns: Option<f64>,
    /// Busy time per I/O (atop's avio), ns; absent without I/O, or below resolution.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub avio_ns: Option<f64>,
    /// Fraction of the window with I/O in flight, 0 to 1 (busy %); absent
    /// when below resolution.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub busy_fraction: Option<f64>,
    /// The figures whose counters moved less than their resolution while
    /// the device completed I/O (`await_ns`, `avio_ns`, `busy_fraction`):
    /// too small to measure in this window, which is not zero.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub below_resolution: Vec<String>,
    /// Application I/Os per device I/O in the same direction (writes for a
    /// writing workload, else reads): above 1, merged; below 1, split or extra
    /// I/O such as metadata and journal; absent without such device I/O.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub app_ops_per_device_op: Option<f64>,
    /// Application bytes per device byte in the same direction: above 1,
    /// served from cache or not yet written back; absent without such bytes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub app_bytes_per_device_byte: Option<f64>,
}

/// One network interface over a window (/proc/net/dev).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InterfaceActivity {
    /// Interface name (`lo`, `eth0`).
    pub name: String,
    /// Bytes received.
    pub rx_bytes: u64,
    /// Packets received.
    pub rx_packets: u64,
    /// Bytes sent.
    pub tx_bytes: u64,
    /// Packets sent.
    pub tx_packets: u64,
    /// Receive and send errors.
    pub errors: u64,
    /// Packets dropped.
    pub dropped: u64,
}

/// Machine-wide CPU time over a window, as fractions of all CPUs' time (0 to 1).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemCpu {
    /// User mode, nice included.
    pub user: f64,
    /// Kernel mode, interrupts included.
    pub system: f64,
    /// Idle while I/O was outstanding.
    pub iowait: f64,
    /// Taken by the hypervisor for others.
    pub steal: f64,
    /// Idle.
    pub idle: f64,
}

/// NFS client counters of one mount over a window (/proc/self/mountstats).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NfsActivity {
    /// The mount point.
    pub mount_point: String,
    /// Bytes applications read through the page cache.
    pub normal_read_bytes: u64,
    /// Bytes applications wrote through the page cache.
    pub normal_write_bytes: u64,
    /// Bytes read with O_DIRECT.
    pub direct_read_bytes: u64,
    /// Bytes written with O_DIRECT.
    pub direct_write_bytes: u64,
    /// Bytes read from the server.
    pub server_read_bytes: u64,
    /// Bytes written to the server.
    pub server_write_bytes: u64,
    /// RPC operations that ran, by name.
    pub operations: Vec<NfsOperation>,
    /// Per transport (several with nconnect).
    pub transports: Vec<NfsTransport>,
}

/// One RPC operation type over a window.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NfsOperation {
    /// `READ`, `WRITE`, `GETATTR`…
    pub name: String,
    /// Operations.
    pub ops: u64,
    /// Transmissions (retransmissions included).
    pub transmissions: u64,
    /// Major timeouts.
    pub timeouts: u64,
    /// Bytes sent, RPC headers included.
    pub bytes_sent: u64,
    /// Bytes received, RPC headers included.
    pub bytes_received: u64,
    /// Mean round-trip time, ns (the kernel counts in ms).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rtt_mean_ns: Option<f64>,
    /// Mean time from queueing to completion, ns.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub execute_mean_ns: Option<f64>,
    /// Operations that returned an error.
    pub errors: u64,
}

/// One RPC transport over a window.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NfsTransport {
    /// `tcp`, `udp` or `rdma`.
    pub protocol: String,
    /// RPC requests sent.
    pub sends: u64,
    /// RPC replies received.
    pub receives: u64,
}

/// The application's side of a window, for the per-layer ratios.
#[derive(Clone, Copy, Debug, Default)]
pub struct AppWork {
    /// I/Os the application completed.
    pub ops: u64,
    /// Bytes the application moved.
    pub bytes: u64,
    /// Whether they were writes: the ratios then compare with the device's
    /// writes, else with its reads.
    pub writes: bool,
}

/// Whether the stack's top layer wrote more bytes than it read in the
/// window: the direction its logical:physical ratios compare when the
/// application's own direction is not known (`dd if=/dev/zero of=F` reads
/// as much as it writes).
pub fn top_layer_writes(devices: &[DeviceActivity]) -> bool {
    devices
        .first()
        .is_some_and(|top| top.write_bytes > top.read_bytes)
}

/// Device figures for the window between two snapshots.
pub fn devices(
    names: &[String],
    from: &Snapshot,
    to: &Snapshot,
    app: AppWork,
) -> Vec<DeviceActivity> {
    let elapsed_s = to.at_ns.saturating_sub(from.at_ns) as f64 / 1e9;
    names
        .iter()
        .zip(from.disks.iter().zip(&to.disks))
        .map(|(name, (a, b))| device(name, &b.since(a), elapsed_s, app))
        .collect()
}

fn device(name: &str, delta: &DiskCounters, elapsed_s: f64, app: AppWork) -> DeviceActivity {
    let rates = DiskRates::of(delta, elapsed_s);
    // Without application figures (a measured command) there is no ratio to give.
    let ratio = |app: u64, device: u64| (device > 0 && app > 0).then(|| app as f64 / device as f64);
    let (device_ops, device_sectors) = if app.writes {
        (delta.writes, delta.sectors_written)
    } else {
        (delta.reads, delta.sectors_read)
    };
    DeviceActivity {
        name: name.to_string(),
        reads: delta.reads,
        writes: delta.writes,
        read_bytes: delta.sectors_read * SECTOR_BYTES,
        write_bytes: delta.sectors_written * SECTOR_BYTES,
        reads_merged: delta.reads_merged,
        writes_merged: delta.writes_merged,
        discards: delta.discards,
        flushes: delta.flushes,
        reads_per_s: rates.reads_per_s,
        writes_per_s: rates.writes_per_s,
        read_bps: rates.read_bps,
        write_bps: rates.write_bps,
        avg_io_bytes: rates.avg_io_bytes,
        await_ns: rates.await_ns,
        await_below_ns: rates.await_below_ns,
        avio_ns: rates.avio_ns,
        busy_fraction: rates.busy_fraction,
        below_resolution: rates
            .below_resolution(delta.ios())
            .into_iter()
            .map(str::to_string)
            .collect(),
        app_ops_per_device_op: ratio(app.ops, device_ops),
        app_bytes_per_device_byte: ratio(app.bytes, device_sectors * SECTOR_BYTES),
    }
}

/// The whole window's activity.
pub fn activity(samples: &Samples, app: AppWork) -> Activity {
    let (from, to) = (&samples.start, &samples.end);
    let network = to
        .net
        .iter()
        .filter_map(|(name, now)| {
            let delta = now.since(from.net.get(name)?);
            (!delta.is_idle()).then(|| InterfaceActivity {
                name: name.clone(),
                rx_bytes: delta.rx_bytes,
                rx_packets: delta.rx_packets,
                tx_bytes: delta.tx_bytes,
                tx_packets: delta.tx_packets,
                errors: delta.rx_errors + delta.tx_errors,
                dropped: delta.rx_dropped + delta.tx_dropped,
            })
        })
        .collect();
    Activity {
        elapsed_ns: to.at_ns.saturating_sub(from.at_ns),
        devices: devices(&samples.disks, from, to, app),
        network,
        cpu: from
            .cpu
            .zip(to.cpu)
            .and_then(|(a, b)| system_cpu(&b.since(&a))),
        nfs: from
            .nfs
            .as_ref()
            .zip(to.nfs.as_ref())
            .map(|(a, b)| nfs(&b.since(a))),
    }
}

fn system_cpu(delta: &CpuTicks) -> Option<SystemCpu> {
    let total = delta.total();
    let share = |ticks: u64| ticks as f64 / total as f64;
    (total > 0).then(|| SystemCpu {
        user: share(delta.user + delta.nice),
        system: share(delta.system + delta.irq + delta.softirq),
        iowait: share(delta.iowait),
        steal: share(delta.steal),
        idle: share(delta.idle),
    })
}

fn nfs(delta: &NfsCounters) -> NfsActivity {
    let mean_ns = |ms: u64, ops: u64| (ops > 0).then(|| ms as f64 * 1e6 / ops as f64);
    NfsActivity {
        mount_point: delta.mount_point.display().to_string(),
        normal_read_bytes: delta.bytes[0],
        normal_write_bytes: delta.bytes[1],
        direct_read_bytes: delta.bytes[2],
        direct_write_bytes: delta.bytes[3],
        server_read_bytes: delta.bytes[4],
        server_write_bytes: delta.bytes[5],
        operations: delta
            .ops
            .iter()
            .map(|(name, op)| NfsOperation {
                name: name.clone(),
                ops: op.ops,
                transmissions: op.transmissions,
                timeouts: op.timeouts,
                bytes_sent: op.bytes_sent,
                bytes_received: op.bytes_received,
                rtt_mean_ns: mean_ns(op.rtt_ms, op.ops),
                execute_mean_ns: mean_ns(op.execute_ms, op.ops),
                errors: op.errors,
            })
            .collect(),
        transports: delta
            .transports
            .iter()
            .map(|t| NfsTransport {
                protocol: t.protocol.clone(),
                sends: t.sends,
                receives: t.receives,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::netdev::NetCounters;

    fn snapshot(at_s: u64, disk: DiskCounters, lo_rx: u64) -> Snapshot {
        let mut net = crate::probe::netdev::NetTable::new();
        net.insert(
            "lo".into(),
            NetCounters {
                rx_bytes: lo_rx,
                rx_packets: lo_rx / 1000,
                ..Default::default()
            },
        );
        net.insert("eth0".into(), NetCounters::default());
        Snapshot {
            at_ns: at_s * 1_000_000_000,
            disks: vec![disk],
            net,
            cpu: Some(CpuTicks {
                user: 10 * at_s,
                system: 5 * at_s,
                idle: 80 * at_s,
                iowait: 5 * at_s,
                ..Default::default()
            }),
            nfs: None,
        }
    }

    #[test]
    fn a_window_of_merged_writes() {
        let before = DiskCounters::default();
        // 2 s: 256 app writes of 4 KiB merged into 8 device writes of 128 KiB.
        let after = DiskCounters {
            writes: 8,
            writes_merged: 248,
            sectors_written: 8 * 256,
            write_ms: 40,
            io_ms: 30,
            ..before
        };
        let samples = Samples {
            disks: vec!["vda".into()],
            start: snapshot(1, before, 10_000),
            ticks: vec![],
            interval_ns: 1_000_000_000,
            end: snapshot(3, after, 60_000),
        };
        let activity = activity(
            &samples,
            AppWork {
                ops: 256,
                bytes: 256 * 4096,
                writes: true,
            },
        );
        assert_eq!(activity.elapsed_ns, 2_000_000_000);
        let vda = &activity.devices[0];
        assert_eq!(
            (vda.writes, vda.write_bytes, vda.writes_merged),
            (8, 1 << 20, 248)
        );
        assert_eq!(vda.writes_per_s, 4.0);
        assert_eq!(vda.avg_io_bytes, Some(131_072.0));
        assert_eq!(vda.await_ns, Some(5e6));
        assert_eq!(vda.busy_fraction, Some(0.015));
        assert_eq!(vda.app_ops_per_device_op, Some(32.0));
        assert_eq!(vda.app_bytes_per_device_byte, Some(1.0));
        assert_eq!(activity.network.len(), 1, "idle eth0 is left out");
        assert_eq!(activity.network[0].rx_bytes, 50_000);
        let cpu = activity.cpu.unwrap();
        assert_eq!(
            (cpu.user, cpu.system, cpu.iowait, cpu.idle),
            (0.1, 0.05, 0.05, 0.8)
        );
    }

    #[test]
    fn no_device_io_gives_no_ratios() {
        let quiet = DiskCounters::default();
        let samples = Samples {
            disks: vec!["vda".into()],
            start: snapshot(1, quiet, 0),
            ticks: vec![],
            interval_ns: 1_000_000_000,
            end: snapshot(2, quiet, 0),
        };
        let vda = &activity(
            &samples,
            AppWork {
                ops: 5,
                bytes: 5,
                writes: false,
            },
        )
        .devices[0];
        assert_eq!(
            (vda.app_ops_per_device_op, vda.app_bytes_per_device_byte),
            (None, None)
        );
    }
}
