//! Gathering the environment record: the machine, its virtualization, and the storage stack under a path, from the probes.

use crate::probe::environment::{
    cpu_model, distribution, memory_bytes, physical_cores, selected_scheduler,
};
use crate::probe::stack::{self, DeviceKind, StackDevice, read_attribute};
use crate::probe::{cgroup, host::HostIdentity, memcopy, mounts, reclaim, virt};
use crate::record::environment::*;
use std::path::Path;

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
    let cpuinfo = crate::probe::host::cpuinfo_text();
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
        logical_cpus: std::thread::available_parallelism()
            .ok()
            .map(|n| n.get() as u32),
        physical_cores: physical_cores(&cpuinfo),
        memory_bytes: memory_bytes(&crate::probe::host::meminfo_text()),
        memcpy_bps: measure_memcpy.then(memcopy::bandwidth).flatten(),
        clocksource: read_attribute(Path::new(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )),
        clock_read_ns: Some(crate::probe::clock_cost::read_cost_ns()),
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
        assert!(
            env.logical_cpus.is_some_and(|n| n >= 1)
                && env.memory_bytes.is_some_and(|m| m > 0)
                && !env.kernel.is_empty()
        );
        let storage = env.storage.expect("the current directory is on some mount");
        assert!(!storage.filesystem.is_empty());
    }
}
