//! The activity part of the file format — what the stack's devices, the network, the CPUs and NFS did during a timed region; computed from probe samples by `gather::activity`.

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
    /// When the window went on past the timed region while the written
    /// files were written back (an untimed fsync, so the counts include what
    /// a client kernel's cache held): how long that took, ns.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub write_back_ns: Option<u64>,
    /// The page cache's dirty bytes, machine-wide, at the window's start
    /// and end: what buffered writes left in memory rather than on a device.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub dirty: Option<DirtyChange>,
}

impl Activity {
    /// Messages and bytes the window put on the network. A loopback packet
    /// is counted as sent and as received by `lo`; it is one message, so
    /// `lo` counts once (its sends); other interfaces count both directions.
    pub fn wire(&self) -> (u64, u64) {
        self.network
            .iter()
            .fold((0, 0), |(messages, total), interface| {
                if interface.name == "lo" {
                    (messages + interface.tx_packets, total + interface.tx_bytes)
                } else {
                    (
                        messages + interface.rx_packets + interface.tx_packets,
                        total + interface.rx_bytes + interface.tx_bytes,
                    )
                }
            })
    }
}

/// The page cache's dirty and under-write-back bytes at one instant
/// (/proc/meminfo `Dirty` and `Writeback`, machine-wide).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirtyPages {
    /// Dirty bytes.
    pub dirty_bytes: u64,
    /// Bytes being written back.
    pub writeback_bytes: u64,
}

impl DirtyPages {
    /// Bytes not yet on a device: dirty or under write-back.
    pub fn pending(self) -> u64 {
        self.dirty_bytes + self.writeback_bytes
    }
}

/// [`DirtyPages`] at the start and the end of a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirtyChange {
    /// At the start.
    pub start: DirtyPages,
    /// At the end.
    pub end: DirtyPages,
}

impl DirtyChange {
    /// How many bytes more were pending write-back at the end than at the start.
    pub fn growth(self) -> u64 {
        self.end.pending().saturating_sub(self.start.pending())
    }
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
    /// The directions they took: the ratios compare with the device's
    /// writes, its reads, or (a read/write mix) both.
    pub directions: crate::plan::direction::DirectionMix,
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
