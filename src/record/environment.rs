//! The environment part of the file format — the machine and the storage stack a result was measured on — and its assembly from the probes.

use crate::probe::environment::{
    cpu_model, distribution, memory_bytes, physical_cores, selected_scheduler,
};
use crate::probe::stack::{self, DeviceKind, StackDevice, read_attribute};
use crate::probe::{cgroup, host::HostIdentity, memcopy, mounts, reclaim, virt};
use serde::{Deserialize, Serialize};
use std::path::Path;

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
    /// Logical CPUs available to iolab.
    pub logical_cpus: u32,
    /// Physical cores (distinct physical id and core id pairs in
    /// /proc/cpuinfo); absent when cpuinfo does not say (many VMs and non-x86).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub physical_cores: Option<u32>,
    /// Physical memory, bytes (MemTotal).
    pub memory_bytes: u64,
    /// Memory-copy bandwidth, bytes/s: the best of three copies of 64 MiB,
    /// the ceiling for work served from the page cache; measured only when
    /// some point goes through the page cache (and by `env` and `measure`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub memcpy_bps: Option<f64>,
    /// The kernel's clock source (`tsc`, `kvm-clock`, `hpet`…).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub clocksource: Option<String>,
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

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Everything about this machine, and about the storage under `path` when given.
pub fn environment(path: Option<&Path>) -> Environment {
    environment_of(path, true)
}

/// As [`environment`]; the memory-copy bandwidth (a probe that holds 128 MiB
/// for about 30 ms) is measured only with `measure_memcpy`, for work that
/// goes through the page cache, whose ceiling it is.
pub fn environment_of(path: Option<&Path>, measure_memcpy: bool) -> Environment {
    let host = HostIdentity::read();
    let detection = virt::detect();
    let cpuinfo = read("/proc/cpuinfo");
    let os_release = std::fs::read_to_string("/etc/os-release")
        .or_else(|_| std::fs::read_to_string("/usr/lib/os-release"))
        .unwrap_or_default();
    Environment {
        hostname: host.hostname,
        kernel: host.kernel,
        kernel_version: host.version,
        arch: host.arch,
        distribution: distribution(&os_release),
        cpu_model: cpu_model(&cpuinfo),
        logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        physical_cores: physical_cores(&cpuinfo),
        memory_bytes: memory_bytes(&read("/proc/meminfo")).unwrap_or(0),
        memcpy_bps: measure_memcpy.then(memcopy::bandwidth).flatten(),
        clocksource: read_attribute(Path::new(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )),
        proactive_reclaim: reclaim::damon_pageout(Path::new("/sys")),
        virtualization: Virtualization {
            hypervisor: detection.hypervisor,
            container: detection.container,
            evidence: detection.evidence,
        },
        storage: path.and_then(storage),
    }
}

/// The file system and device stack under `path`; None when its mount cannot be found.
pub fn storage(path: &Path) -> Option<Storage> {
    let canonical = std::fs::canonicalize(path).ok()?;
    if let Some(dev) = crate::probe::environment::block_device(&canonical) {
        // A raw device: no file system, no mount; the stack starts at it.
        let stack = stack::resolve(Path::new("/sys"), dev);
        return Some(Storage {
            path: canonical.display().to_string(),
            mount_point: String::new(),
            filesystem: "none (block device)".to_string(),
            source: canonical.display().to_string(),
            mount_options: String::new(),
            super_options: String::new(),
            network: false,
            stack: stack.describe(),
            io_limits: cgroup::io_limits(&stack.devices.iter().map(|d| d.dev).collect::<Vec<_>>()),
            devices: stack.devices.iter().map(block_device).collect(),
        });
    }
    let mount = mounts::mount_of(&canonical)?;
    let stack = stack::of_path(&canonical);
    Some(Storage {
        path: canonical.display().to_string(),
        mount_point: mount.mount_point.display().to_string(),
        filesystem: mount.fstype.clone(),
        source: mount.source.clone(),
        mount_options: mount.options.clone(),
        super_options: mount.super_options.clone(),
        network: mount.is_network(),
        stack: stack.describe(),
        io_limits: cgroup::io_limits(&stack.devices.iter().map(|d| d.dev).collect::<Vec<_>>()),
        devices: stack.devices.iter().map(block_device).collect(),
    })
}

fn block_device(device: &StackDevice) -> BlockDevice {
    // A partition has no queue of its own: its disk's settings apply.
    let queue_owner = if device.kind == DeviceKind::Partition {
        device.sysfs.parent().unwrap_or(&device.sysfs)
    } else {
        &device.sysfs
    };
    let attribute = |rel: &str| read_attribute(&queue_owner.join(rel));
    let number = |rel: &str| attribute(rel).and_then(|v| v.parse::<u64>().ok());
    let model = match device.kind {
        DeviceKind::DeviceMapper => read_attribute(&device.sysfs.join("dm/name")),
        _ => attribute("device/model").filter(|m| !m.is_empty()),
    };
    let driver = std::fs::read_link(queue_owner.join("device/driver"))
        .ok()
        .and_then(|link| link.file_name().map(|n| n.to_string_lossy().into_owned()));
    BlockDevice {
        name: device.name.clone(),
        kind: device.kind.as_str().to_string(),
        major: device.dev.0,
        minor: device.dev.1,
        depth: device.depth,
        below: device.below.clone(),
        backing_file: device
            .backing_file
            .as_ref()
            .map(|f| f.display().to_string()),
        model,
        driver,
        size_bytes: read_attribute(&device.sysfs.join("size"))
            .and_then(|v| v.parse::<u64>().ok())
            .map(|sectors| sectors * 512),
        rotational: number("queue/rotational").map(|r| r == 1),
        scheduler: attribute("queue/scheduler").map(|s| selected_scheduler(&s)),
        nr_requests: number("queue/nr_requests"),
        queue_depth: number("device/queue_depth"),
        read_ahead_bytes: number("queue/read_ahead_kb").map(|kb| kb * 1024),
        logical_block_bytes: number("queue/logical_block_size"),
        physical_block_bytes: number("queue/physical_block_size"),
        write_cache: attribute("queue/write_cache"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_has_cpus_memory_and_a_kernel() {
        let env = environment(Some(Path::new(".")));
        assert!(env.logical_cpus >= 1 && env.memory_bytes > 0 && !env.kernel.is_empty());
        let storage = env.storage.expect("the current directory is on some mount");
        assert!(!storage.filesystem.is_empty());
    }
}
