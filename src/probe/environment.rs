//! The environment record: kernel, distribution, CPU, memory, clock source, virtualization, and the storage stack under a path.

use super::stack::{self, DeviceKind, DeviceStack, StackDevice, read_attribute};
use super::{host::HostIdentity, mounts, sampler::Watch, virt};
use crate::record::environment::{BlockDevice, Environment, Storage, Virtualization};
use std::path::Path;

/// The value of `key` in a `key : value` text such as /proc/cpuinfo or /proc/meminfo.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        (name.trim() == key).then(|| value.trim())
    })
}

/// The CPU model in /proc/cpuinfo text (`model name` on x86, `Model` or `cpu` elsewhere).
pub fn cpu_model(cpuinfo: &str) -> Option<String> {
    ["model name", "Model", "cpu model", "cpu"]
        .iter()
        .find_map(|key| field(cpuinfo, key))
        .map(str::to_string)
}

/// Distinct (physical id, core id) pairs in /proc/cpuinfo text; None without them.
pub fn physical_cores(cpuinfo: &str) -> Option<u32> {
    let mut cores = std::collections::BTreeSet::new();
    for processor in cpuinfo.split("\n\n") {
        if let (Some(package), Some(core)) =
            (field(processor, "physical id"), field(processor, "core id"))
        {
            cores.insert((package.to_string(), core.to_string()));
        }
    }
    (!cores.is_empty()).then_some(cores.len() as u32)
}

/// MemTotal in /proc/meminfo text, bytes.
pub fn memory_bytes(meminfo: &str) -> Option<u64> {
    let value = field(meminfo, "MemTotal")?;
    let kib: u64 = value.trim_end_matches("kB").trim().parse().ok()?;
    Some(kib * 1024)
}

/// PRETTY_NAME in /etc/os-release text, unquoted.
pub fn distribution(os_release: &str) -> Option<String> {
    os_release.lines().find_map(|line| {
        let value = line.strip_prefix("PRETTY_NAME=")?;
        Some(
            value
                .trim()
                .trim_matches('"')
                .trim_matches('\'')
                .to_string(),
        )
    })
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Everything about this machine, and about the storage under `path` when given.
pub fn environment(path: Option<&Path>) -> Environment {
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
        memcpy_bps: Some(super::memcopy::bandwidth()),
        clocksource: read_attribute(Path::new(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource",
        )),
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
        io_limits: super::cgroup::io_limits(
            &stack.devices.iter().map(|d| d.dev).collect::<Vec<_>>(),
        ),
        devices: stack.devices.iter().map(block_device).collect(),
    })
}

/// What to sample for a target at `path`: its stack's devices, and its mount when NFS.
pub fn watch(path: &Path) -> Watch {
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let stack: DeviceStack = stack::of_path(&canonical);
    Watch {
        disks: stack
            .devices
            .iter()
            .map(|d| super::diskstats::diskstats_name(&d.name))
            .collect(),
        nfs_mount: mounts::mount_of(&canonical)
            .filter(mounts::Mount::is_nfs)
            .map(|m| m.mount_point),
    }
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

/// The scheduler in brackets (`none [mq-deadline] kyber` → `mq-deadline`), or the whole text.
pub fn selected_scheduler(text: &str) -> String {
    text.split_whitespace()
        .find_map(|s| s.strip_prefix('[').and_then(|s| s.strip_suffix(']')))
        .unwrap_or(text)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuinfo_of_x86_and_arm() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\nflags\t\t: fpu\n";
        assert_eq!(cpu_model(x86).as_deref(), Some("AMD EPYC 7B13"));
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(
            cpu_model(arm).as_deref(),
            Some("Raspberry Pi 4 Model B Rev 1.4")
        );
        assert_eq!(cpu_model("processor : 0\n"), None);
        // Two packages of one core with two threads each: 2 cores, 4 processors.
        let smt: String = [(0, 0), (0, 0), (1, 0), (1, 0)]
            .iter()
            .enumerate()
            .map(|(n, (package, core))| {
                format!("processor\t: {n}\nphysical id\t: {package}\ncore id\t\t: {core}\n\n")
            })
            .collect();
        assert_eq!(physical_cores(&smt), Some(2));
        assert_eq!(physical_cores(arm), None);
    }

    #[test]
    fn meminfo_and_os_release() {
        assert_eq!(
            memory_bytes("MemTotal:        8137324 kB\nMemFree: 1 kB\n"),
            Some(8_137_324 * 1024)
        );
        let os =
            "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 13 (trixie)\"\nID=debian\n";
        assert_eq!(
            distribution(os).as_deref(),
            Some("Debian GNU/Linux 13 (trixie)")
        );
    }

    #[test]
    fn the_bracketed_scheduler_is_the_one_in_use() {
        assert_eq!(
            selected_scheduler("none [mq-deadline] kyber bfq"),
            "mq-deadline"
        );
        assert_eq!(selected_scheduler("[none]"), "none");
        assert_eq!(selected_scheduler("none"), "none");
    }

    #[test]
    fn this_machine_has_cpus_memory_and_a_kernel() {
        let env = environment(Some(Path::new(".")));
        assert!(env.logical_cpus >= 1 && env.memory_bytes > 0 && !env.kernel.is_empty());
        let storage = env.storage.expect("the current directory is on some mount");
        assert!(!storage.filesystem.is_empty());
    }
}
