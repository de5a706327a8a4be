//! The block-device stack under a path: partition → disk, device-mapper and md → their slaves, loop → its backing file's device.
//!
//! Everything comes from sysfs (`/sys/dev/block/MAJ:MIN` and the attributes
//! beside it); the sysfs root is a parameter so tests can build a fake tree.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What kind of block device a layer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// A whole disk (or anything else with a request queue and no slaves).
    Disk,
    /// A partition of a disk.
    Partition,
    /// A device-mapper target (LVM, dm-crypt…).
    DeviceMapper,
    /// A Linux software RAID (md) array.
    Md,
    /// A loop device backed by a file.
    Loop,
}

impl DeviceKind {
    /// The name used in result files.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Disk => "disk",
            DeviceKind::Partition => "partition",
            DeviceKind::DeviceMapper => "dm",
            DeviceKind::Md => "md",
            DeviceKind::Loop => "loop",
        }
    }
}

/// One block device of a stack.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackDevice {
    /// Kernel name as in sysfs (`sda1`, `dm-0`, `loop3`; `!` for `/`).
    pub name: String,
    /// Major and minor number.
    pub dev: (u32, u32),
    /// What kind of device it is.
    pub kind: DeviceKind,
    /// Its depth: 0 for the device the file system sits on, +1 per layer down.
    pub depth: u32,
    /// The sysfs directory of the device.
    pub sysfs: PathBuf,
    /// The devices directly below it.
    pub below: Vec<String>,
    /// For a loop device: the file behind it.
    pub backing_file: Option<PathBuf>,
}

/// The devices under a path, top (the file system's device) first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceStack {
    /// Every device once, in breadth-first order from the top.
    pub devices: Vec<StackDevice>,
}

impl DeviceStack {
    /// `loop0 → vda`, `dm-0 → sda2 → sda`, `md0 → sda1 + sdb1 → sda + sdb`;
    /// empty when the path has no block device (tmpfs, NFS, FUSE).
    pub fn describe(&self) -> String {
        let depth = self.devices.iter().map(|d| d.depth).max();
        let Some(depth) = depth else {
            return String::new();
        };
        (0..=depth)
            .map(|level| {
                self.devices
                    .iter()
                    .filter(|d| d.depth == level)
                    .map(|d| d.name.as_str())
                    .collect::<Vec<_>>()
                    .join(" + ")
            })
            .collect::<Vec<_>>()
            .join(" → ")
    }
}

/// Major and minor of a `dev_t`.
pub fn split_dev(dev: u64) -> (u32, u32) {
    (rustix::fs::major(dev), rustix::fs::minor(dev))
}

/// The stack under the block device `dev`, read from the sysfs tree at `sys`
/// (`/sys` on a real system). Loop devices are followed through their backing
/// file, whose own device is found with stat(2).
pub fn resolve(sys: &Path, dev: (u32, u32)) -> DeviceStack {
    let mut stack = DeviceStack::default();
    let mut seen = HashSet::new();
    let mut level = vec![dev];
    let mut depth = 0;
    while !level.is_empty() && depth < 16 {
        let mut next = Vec::new();
        for dev in level {
            if !seen.insert(dev) {
                continue;
            }
            let Some(device) = describe_device(sys, dev, depth) else {
                continue;
            };
            next.extend(devices_below(&device));
            stack.devices.push(device);
        }
        level = next;
        depth += 1;
    }
    link_names(&mut stack);
    stack
}

fn describe_device(sys: &Path, dev: (u32, u32), depth: u32) -> Option<StackDevice> {
    let link = sys.join(format!("dev/block/{}:{}", dev.0, dev.1));
    let sysfs = std::fs::canonicalize(&link).ok()?;
    let name = sysfs.file_name()?.to_string_lossy().into_owned();
    let kind = if sysfs.join("partition").exists() {
        DeviceKind::Partition
    } else if sysfs.join("loop").is_dir() {
        DeviceKind::Loop
    } else if sysfs.join("dm").is_dir() {
        DeviceKind::DeviceMapper
    } else if sysfs.join("md").is_dir() {
        DeviceKind::Md
    } else {
        DeviceKind::Disk
    };
    let backing_file = (kind == DeviceKind::Loop)
        .then(|| read_attribute(&sysfs.join("loop/backing_file")))
        .flatten()
        .map(PathBuf::from);
    Some(StackDevice {
        name,
        dev,
        kind,
        depth,
        sysfs,
        below: Vec::new(),
        backing_file,
    })
}

/// The devices right below `device`.
fn devices_below(device: &StackDevice) -> Vec<(u32, u32)> {
    let mut below = Vec::new();
    match device.kind {
        DeviceKind::Partition => {
            if let Some(disk) = device.sysfs.parent() {
                below.extend(read_dev(&disk.join("dev")));
            }
        }
        DeviceKind::DeviceMapper | DeviceKind::Md | DeviceKind::Disk => {
            if let Ok(entries) = std::fs::read_dir(device.sysfs.join("slaves")) {
                let mut slaves: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
                slaves.sort();
                below.extend(
                    slaves
                        .iter()
                        .filter_map(|slave| read_dev(&slave.join("dev"))),
                );
            }
        }
        DeviceKind::Loop => {
            // The backing file's own device; "(deleted)" files cannot be followed.
            if let Some(file) = &device.backing_file {
                if let Ok(stat) = rustix::fs::stat(file) {
                    let dev = split_dev(stat.st_dev);
                    if dev.0 != 0 {
                        below.push(dev);
                    }
                }
            }
        }
    }
    below
}

/// Fills in the `below` names once every device of the stack is known.
fn link_names(stack: &mut DeviceStack) {
    let snapshot = stack.devices.clone();
    for device in &mut stack.devices {
        let below = devices_below(device);
        device.below = below
            .iter()
            .filter_map(|dev| snapshot.iter().find(|d| d.dev == *dev))
            .map(|d| d.name.clone())
            .collect();
    }
}

/// A sysfs attribute, trimmed; None when missing or unreadable.
pub fn read_attribute(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|text| text.trim().to_string())
}

fn read_dev(path: &Path) -> Option<(u32, u32)> {
    let text = read_attribute(path)?;
    let (major, minor) = text.split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The stack under the file system holding `path`; empty when that file
/// system has no block device of its own (tmpfs, NFS, FUSE, overlay).
pub fn of_path(path: &Path) -> DeviceStack {
    let sys = Path::new("/sys");
    let Ok(stat) = rustix::fs::stat(path) else {
        return DeviceStack::default();
    };
    let mut dev = split_dev(stat.st_dev);
    if dev.0 == 0 {
        // btrfs and similar report an anonymous device; the mount source names the real one.
        match super::mounts::mount_of(path)
            .and_then(|mount| mount.source_device())
            .map(split_dev)
        {
            Some(real) => dev = real,
            None => return DeviceStack::default(),
        }
    }
    resolve(sys, dev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A fake sysfs: dm-0 on sda2 (a partition of sda) and on sdb.
    fn fake_sys() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let sys = root.path();
        let write = |rel: &str, text: &str| {
            let path = sys.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("devices/pci0/block/sda/dev", "8:0\n");
        write("devices/pci0/block/sda/sda2/dev", "8:2\n");
        write("devices/pci0/block/sda/sda2/partition", "2\n");
        write("devices/pci1/block/sdb/dev", "8:16\n");
        write("devices/virtual/block/dm-0/dev", "253:0\n");
        write("devices/virtual/block/dm-0/dm/name", "vg-root\n");
        std::fs::create_dir_all(sys.join("devices/virtual/block/dm-0/slaves")).unwrap();
        std::fs::create_dir_all(sys.join("dev/block")).unwrap();
        let link = |target: &str, at: &str| symlink(sys.join(target), sys.join(at)).unwrap();
        link("devices/pci0/block/sda", "dev/block/8:0");
        link("devices/pci0/block/sda/sda2", "dev/block/8:2");
        link("devices/pci1/block/sdb", "dev/block/8:16");
        link("devices/virtual/block/dm-0", "dev/block/253:0");
        link(
            "devices/pci0/block/sda/sda2",
            "devices/virtual/block/dm-0/slaves/sda2",
        );
        link(
            "devices/pci1/block/sdb",
            "devices/virtual/block/dm-0/slaves/sdb",
        );
        root
    }

    #[test]
    fn device_mapper_over_a_partition_and_a_disk() {
        let sys = fake_sys();
        let stack = resolve(sys.path(), (253, 0));
        assert_eq!(stack.describe(), "dm-0 → sda2 + sdb → sda");
        let kinds: Vec<_> = stack.devices.iter().map(|d| d.kind).collect();
        assert_eq!(
            kinds,
            [
                DeviceKind::DeviceMapper,
                DeviceKind::Partition,
                DeviceKind::Disk,
                DeviceKind::Disk
            ]
        );
        assert_eq!(stack.devices[0].below, ["sda2", "sdb"]);
        assert_eq!(stack.devices[1].below, ["sda"]);
    }

    #[test]
    fn a_partition_leads_to_its_disk() {
        let sys = fake_sys();
        let stack = resolve(sys.path(), (8, 2));
        assert_eq!(stack.describe(), "sda2 → sda");
    }

    #[test]
    fn an_unknown_device_gives_an_empty_stack() {
        let sys = fake_sys();
        let stack = resolve(sys.path(), (9, 9));
        assert!(stack.devices.is_empty());
        assert_eq!(stack.describe(), "");
    }
}
