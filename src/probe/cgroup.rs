//! I/O limits a cgroup puts on this process's devices: cgroup v2 `io.max`, or v1 `blkio.throttle.*_device`.

use std::path::{Path, PathBuf};

/// The limits in `io.max` text (v2) that apply to `devices` and are not `max`,
/// as `MAJ:MIN rbps=1048576`.
pub fn parse_io_max(text: &str, devices: &[(u32, u32)]) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let dev = fields.next()?;
            let limits: Vec<&str> = fields.filter(|f| !f.ends_with("=max")).collect();
            (applies(dev, devices) && !limits.is_empty())
                .then(|| format!("{dev} {}", limits.join(" ")))
        })
        .collect()
}

/// The limits in a v1 `blkio.throttle.<kind>_device` file that apply to `devices`.
pub fn parse_throttle(text: &str, kind: &str, devices: &[(u32, u32)]) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let (dev, value) = line.split_once(char::is_whitespace)?;
            applies(dev, devices).then(|| format!("{dev} {kind}={}", value.trim()))
        })
        .collect()
}

fn applies(dev: &str, devices: &[(u32, u32)]) -> bool {
    let Some((major, minor)) = dev.split_once(':') else {
        return false;
    };
    let (Ok(major), Ok(minor)) = (major.parse::<u32>(), minor.parse::<u32>()) else {
        return false;
    };
    devices.contains(&(major, minor))
}

/// The cgroup directories of this process that may hold I/O limits.
fn cgroup_dirs() -> Vec<(PathBuf, bool)> {
    let text = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let root = Path::new("/sys/fs/cgroup");
    let mut dirs = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let relative = path.trim_start_matches('/');
        if controllers.is_empty() {
            dirs.push((root.join(relative), true));
            dirs.push((root.join("unified").join(relative), true));
        } else if controllers.split(',').any(|c| c == "blkio") {
            dirs.push((root.join("blkio").join(relative), false));
        }
    }
    dirs
}

/// The I/O limits on `devices` in this process's cgroups, v2 or v1.
pub fn io_limits(devices: &[(u32, u32)]) -> Vec<String> {
    let mut limits = Vec::new();
    for (dir, v2) in cgroup_dirs() {
        if v2 {
            if let Ok(text) = std::fs::read_to_string(dir.join("io.max")) {
                limits.extend(parse_io_max(&text, devices));
            }
        } else {
            for kind in ["read_bps", "write_bps", "read_iops", "write_iops"] {
                if let Ok(text) =
                    std::fs::read_to_string(dir.join(format!("blkio.throttle.{kind}_device")))
                {
                    limits.extend(parse_throttle(&text, kind, devices));
                }
            }
        }
    }
    limits.sort();
    limits.dedup();
    limits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_io_max_keeps_real_limits_on_our_devices() {
        let text = "254:0 rbps=1048576 wbps=max riops=max wiops=200\n8:0 rbps=max wbps=max riops=max wiops=max\n7:0 rbps=5 wbps=max riops=max wiops=max\n";
        assert_eq!(
            parse_io_max(text, &[(254, 0), (8, 0)]),
            ["254:0 rbps=1048576 wiops=200"]
        );
    }

    #[test]
    fn v1_throttle_files() {
        assert_eq!(
            parse_throttle("254:0 1048576\n8:16 10\n", "write_bps", &[(254, 0)]),
            ["254:0 write_bps=1048576"]
        );
        assert!(parse_throttle("", "read_iops", &[(254, 0)]).is_empty());
    }
}
