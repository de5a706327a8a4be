//! The environment part of the file format — the machine and the storage stack a result was measured on ; gathered from the probes by `gather::environment`.

use serde::{Deserialize, Serialize};

/// The machine and storage of a result file, recorded once per file.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// Node name (uname -n).
    pub hostname: String,
    /// Kernel release (uname -r).
    pub kernel: String,
    /// Kernel version string (uname -v): build number and date.
    pub kernel_version: String,
    /// Machine architecture (uname -m), such as `x86_64`.
    pub arch: String,
    /// The distribution's PRETTY_NAME from /etc/os-release.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub distribution: Option<String>,
    /// CPU model name from /proc/cpuinfo.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cpu_model: Option<String>,
    /// Logical CPUs available to iolab; absent when not known (an
    /// import of fio's output, which records no machine).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub logical_cpus: Option<u32>,
    /// Physical cores (distinct physical id and core id pairs in
    /// /proc/cpuinfo); absent when cpuinfo does not say (many VMs and non-x86).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub physical_cores: Option<u32>,
    /// Physical memory, bytes (MemTotal); absent when not known
    /// (/proc/meminfo unreadable, an import of fio's output).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub memory_bytes: Option<u64>,
    /// Memory-copy bandwidth, bytes/s: the best of three copies of 64 MiB,
    /// the ceiling for work served from the page cache; measured only when
    /// some point goes through the page cache (and by `env` and `measure`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub memcpy_bps: Option<f64>,
    /// The kernel's clock source (`tsc`, `kvm-clock`, `hpet`…).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub clocksource: Option<String>,
    /// What one read of the clock iolab times I/Os with costs, ns (the
    /// least of five batches of reads); it is read twice per I/O.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub clock_read_ns: Option<f64>,
    /// Agents that page out memory the kernel judges cold (DAMON `pageout`
    /// schemes), in words; empty when none is active. They evict cached file
    /// data with memory to spare, so page-cache figures may include device reads.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub proactive_reclaim: Vec<String>,
    /// Whether this is a virtual machine or a container, and how that was found.
    pub virtualization: Virtualization,
    /// The file system and block devices under the measured directory;
    /// absent when the result measured no directory.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub storage: Option<Storage>,
}

/// What runs the machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Virtualization {
    /// The hypervisor (`KVM`, `Hyper-V`, `VMware`…); absent on bare metal.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub hypervisor: Option<String>,
    /// The container runtime (`docker`, `podman`…); absent outside containers.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub container: Option<String>,
    /// Each observation behind the two fields above, in words.
    pub evidence: Vec<String>,
}

/// The file system holding the measured directory and the devices under it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Storage {
    /// The measured directory (or the path given to `iolab measure`).
    pub path: String,
    /// The mount point of its file system.
    pub mount_point: String,
    /// File system type from mountinfo (`ext4`, `xfs`, `nfs4`, `fuse.sshfs`…).
    pub filesystem: String,
    /// Mount source (`/dev/vda`, `server:/export`, `user@host:dir`).
    pub source: String,
    /// Per-mount options (`rw,relatime`).
    pub mount_options: String,
    /// File system (superblock) options.
    pub super_options: String,
    /// True for network file systems, whose traffic the network counters show.
    pub network: bool,
    /// The device stack in one line, top first (`loop0 → vda`); empty without block devices.
    pub stack: String,
    /// I/O limits this process's cgroup puts on those devices (v2 `io.max`
    /// or v1 `blkio.throttle`), as `MAJ:MIN rbps=1048576`.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub io_limits: Vec<String>,
    /// Each device of the stack, top first.
    pub devices: Vec<BlockDevice>,
}

/// One block device of the stack and its queue settings (sysfs).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockDevice {
    /// Kernel name (`vda`, `sda2`, `dm-0`, `loop3`).
    pub name: String,
    /// `disk`, `partition`, `dm`, `md` or `loop`.
    pub kind: String,
    /// Major device number.
    pub major: u32,
    /// Minor device number.
    pub minor: u32,
    /// Layer: 0 for the device the file system is on.
    pub depth: u32,
    /// The devices right below this one.
    pub below: Vec<String>,
    /// For a loop device, its backing file.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub backing_file: Option<String>,
    /// Device-mapper name (`vg-root`) or the model string the device reports.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub model: Option<String>,
    /// The driver behind it (`virtio_blk`, `sd`, `nvme`), when sysfs names one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub driver: Option<String>,
    /// Capacity, bytes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub size_bytes: Option<u64>,
    /// Whether the device says it spins.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub rotational: Option<bool>,
    /// The I/O scheduler in use (`mq-deadline`, `none`…).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub scheduler: Option<String>,
    /// Requests the block layer queues per hardware queue (nr_requests).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nr_requests: Option<u64>,
    /// The device's own queue depth (SCSI `device/queue_depth`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub queue_depth: Option<u64>,
    /// Read-ahead, bytes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub read_ahead_bytes: Option<u64>,
    /// Logical block size, bytes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub logical_block_bytes: Option<u64>,
    /// Physical block size, bytes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub physical_block_bytes: Option<u64>,
    /// Write cache mode (`write back` or `write through`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub write_cache: Option<String>,
}
