//! Computing the activity records (devices, network, CPUs, NFS over a window) from probe samples.

use crate::plan::direction::Direction;
use crate::probe::diskstats::{DiskCounters, DiskRates, SECTOR_BYTES};
use crate::probe::nfs::NfsCounters;
use crate::probe::procstat::CpuTicks;
use crate::probe::sampler::{Samples, Snapshot};
use crate::record::activity::*;

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
    // The device's counters of the directions the application took: a
    // trim is a discard there.
    let counters = |direction: Direction| match direction {
        Direction::Read => (delta.reads, delta.sectors_read),
        Direction::Write => (delta.writes, delta.sectors_written),
        Direction::Trim => (delta.discards, delta.sectors_discarded),
    };
    let (device_ops, device_sectors) = Direction::ALL
        .into_iter()
        .filter(|&direction| app.directions.takes(direction))
        .map(counters)
        .fold((0u64, 0u64), |(ops, sectors), (o, s)| {
            (ops.saturating_add(o), sectors.saturating_add(s))
        });
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
        write_back_ns: None,
        dirty: from.dirty.zip(to.dirty).map(|(start, end)| {
            let pages = |p: crate::probe::host::DirtyPages| crate::record::activity::DirtyPages {
                dirty_bytes: p.dirty_bytes,
                writeback_bytes: p.writeback_bytes,
            };
            crate::record::activity::DirtyChange {
                start: pages(start),
                end: pages(end),
            }
        }),
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

/// What `devices` completed between two readings of /proc/diskstats.
pub fn device_bytes(
    devices: &[String],
    before: &crate::probe::diskstats::DiskTable,
    after: &crate::probe::diskstats::DiskTable,
) -> Vec<crate::record::guest::DeviceBytes> {
    use crate::probe::diskstats::SECTOR_BYTES;
    devices
        .iter()
        .filter_map(|device| {
            let delta = after.get(device)?.since(before.get(device)?);
            Some(crate::record::guest::DeviceBytes {
                device: device.clone(),
                reads: delta.reads,
                read_bytes: delta.sectors_read * SECTOR_BYTES,
                writes: delta.writes,
                write_bytes: delta.sectors_written * SECTOR_BYTES,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::direction::DirectionMix;
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
            dirty: None,
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
                directions: DirectionMix::only(Direction::Write),
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
    fn a_mix_is_compared_with_the_devices_reads_and_writes_together() {
        // 700 reads and 300 writes of 4 KiB, one device I/O each.
        let before = DiskCounters::default();
        let after = DiskCounters {
            reads: 700,
            sectors_read: 700 * 8,
            writes: 300,
            sectors_written: 300 * 8,
            ..before
        };
        let samples = Samples {
            disks: vec!["vda".into()],
            start: snapshot(1, before, 0),
            ticks: vec![],
            interval_ns: 1_000_000_000,
            end: snapshot(2, after, 0),
        };
        let app = |directions| AppWork {
            ops: 1000,
            bytes: 1000 * 4096,
            directions,
        };
        let mixed = DirectionMix::with_write_percent(30).unwrap();
        let vda = &activity(&samples, app(mixed)).devices[0];
        assert_eq!(vda.app_ops_per_device_op, Some(1.0));
        assert_eq!(vda.app_bytes_per_device_byte, Some(1.0));
        // Compared with the writes alone, the same work looked 3.3 times larger.
        let writes = DirectionMix::only(Direction::Write);
        let vda = &activity(&samples, app(writes)).devices[0];
        assert_eq!(vda.app_ops_per_device_op, Some(1000.0 / 300.0));
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
                directions: DirectionMix::default(),
            },
        )
        .devices[0];
        assert_eq!(
            (vda.app_ops_per_device_op, vda.app_bytes_per_device_byte),
            (None, None)
        );
    }
}
