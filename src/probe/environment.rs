//! Facts about the machine read from text (/proc/cpuinfo, /proc/meminfo, os-release, the scheduler list), and what to sample under a path.
//!
//! `record::environment` assembles the environment record from these and
//! the other probes; the runner never builds a record itself.

use super::host::field;
use super::stack::{self, DeviceStack};
use super::{mounts, sampler::Watch};
use std::path::Path;

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

/// What to sample for a target at `path`: its stack's devices, and its mount when NFS.
pub fn watch(path: &Path) -> Watch {
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let stack: DeviceStack = match block_device(&canonical) {
        Some(dev) => stack::resolve(Path::new("/sys"), dev),
        None => stack::of_path(&canonical),
    };
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

/// The device number of the block device node `path`; None for anything else.
pub fn block_device(path: &Path) -> Option<(u32, u32)> {
    let stat = rustix::fs::stat(path).ok()?;
    (rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::BlockDevice)
        .then(|| stack::split_dev(stat.st_rdev))
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
}
