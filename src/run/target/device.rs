//! Block devices as targets: read freely, written only when the user repeats
//! the device with `--destroy-data` and nothing lives on it; and which
//! character devices are the memory devices (`memory`'s targets).
//!
//! What counts as "something lives on it": the device, a partition of it, or
//! a device stacked on it (device-mapper, md, a loop device it backs) is
//! mounted or is an active swap area, or the device or a partition holds a
//! signature libblkid knows (the authority `wipefs` and `blkid -p` use:
//! every file system, RAID, LVM, LUKS, swap and partition table it
//! recognises; see [`crate::probe::blkid`]), or one of iolab's own list,
//! kept as a second layer. Without libblkid nothing is written. The rest is
//! read from /proc/self/mountinfo, /proc/swaps and sysfs. Mounts in other
//! mount namespaces are invisible there, so the device is also opened with
//! O_EXCL for writing, which the kernel refuses while any file system (or
//! dm/md) holds it. A read-only device (`losetup -r`, a write-protected
//! disk) is refused as such.

use crate::plan::UsageError;
use crate::usage;
use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

/// A block device named with `--file`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockDevice {
    /// Kernel name (`loop3`, `sdb`, `nvme0n1p2`, `dm-0`).
    pub name: String,
    /// `/dev/<name>`, the path `--destroy-data` must repeat.
    pub path: PathBuf,
    /// Device number.
    pub dev: (u32, u32),
    /// Capacity in bytes.
    pub size: u64,
}

/// The block device `path` names (following links such as
/// `/dev/disk/by-id/…`), or None when it is not a block device.
pub fn identify(path: &Path) -> io::Result<Option<BlockDevice>> {
    let stat = rustix::fs::stat(path)?;
    if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::BlockDevice {
        return Ok(None);
    }
    let dev = crate::probe::stack::split_dev(stat.st_rdev);
    let sys = PathBuf::from(format!("/sys/dev/block/{}:{}", dev.0, dev.1));
    let name = std::fs::read_link(&sys)?
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| io::Error::other(format!("{} has no kernel name", sys.display())))?;
    Ok(Some(BlockDevice {
        path: PathBuf::from("/dev").join(&name),
        size: size_of(dev)?,
        name,
        dev,
    }))
}

/// A block device's capacity in bytes (sysfs counts 512-byte sectors whatever the block size).
pub fn size_of(dev: (u32, u32)) -> io::Result<u64> {
    let path = format!("/sys/dev/block/{}:{}/size", dev.0, dev.1);
    let text = std::fs::read_to_string(&path)?;
    let sectors: u64 = text
        .trim()
        .parse()
        .map_err(|_| io::Error::other(format!("{path}: '{}' is not a number", text.trim())))?;
    Ok(sectors.saturating_mul(512))
}

/// Refuses a write test on `device` unless `confirmation` (`--destroy-data`)
/// repeats its `/dev/NAME` exactly and nothing lives on it; the refusal
/// names what was found, and where the device was named (`named`:
/// `--file /dev/sdb`, or a job file's line).
pub fn check_writable(
    device: &BlockDevice,
    confirmation: Option<&Path>,
    named: &str,
) -> Result<(), UsageError> {
    let shown = device.path.display();
    match confirmation {
        None => {
            return Err(usage!(
                "{named} is a block device and a write test destroys its data; \
                 add --destroy-data={shown} to confirm"
            ));
        }
        // Compared as text: Path equality would let `/dev/sdb/` pass for `/dev/sdb`.
        Some(given) if given.as_os_str() != device.path.as_os_str() => {
            return Err(usage!(
                "--destroy-data {} does not repeat the device under test; \
                 it must be exactly --destroy-data={shown}",
                given.display()
            ));
        }
        Some(_) => {}
    }
    if read_only(Path::new("/sys"), &device.name) {
        return Err(usage!(
            "refusing to write {shown}: the device is read-only \
             (/sys/class/block/{}/ro is 1); a write test needs a writable device",
            device.name
        ));
    }
    let found = in_use(Path::new("/sys"), device);
    if !found.is_empty() {
        return Err(usage!(
            "refusing to write {shown}: {}; nothing was written",
            found.join("; ")
        ));
    }
    Ok(())
}

/// Everything that lives on `device` (see the module documentation), one
/// phrase each; empty when it is free to overwrite.
pub fn in_use(sys: &Path, device: &BlockDevice) -> Vec<String> {
    let mut found = Vec::new();
    let mut own = vec![device.name.clone()];
    own.extend(partitions(sys, &device.name));
    let stacked = stacked_on(sys, &own);
    let mounts = crate::probe::mounts::this_machine();
    let swaps = crate::probe::mounts::swaps_text();
    for name in own.iter().chain(&stacked) {
        let Some(dev) = dev_of(sys, name) else {
            continue;
        };
        for mount in &mounts {
            let source_is_it = mount
                .source_device()
                .is_some_and(|rdev| crate::probe::stack::split_dev(rdev) == dev);
            if mount.dev == dev || source_is_it {
                found.push(format!(
                    "/dev/{name} is mounted on {}",
                    mount.mount_point.display()
                ));
            }
        }
        if swap_devices(&swaps).contains(&dev) {
            found.push(format!("/dev/{name} is an active swap area"));
        }
    }
    for name in &stacked {
        found.push(format!("/dev/{name} is stacked on it"));
    }
    for name in &own {
        let node = PathBuf::from("/dev").join(name);
        let authority: Vec<String> = match crate::probe::blkid::signatures(&node) {
            Ok(signatures) => signatures
                .iter()
                .map(|signature| format!("/dev/{name} holds {signature}"))
                .collect(),
            Err(error) => vec![format!(
                "/dev/{name} could not be checked for data: {error}"
            )],
        };
        // iolab's own list is the second layer: heard only when libblkid,
        // which knows every format on it, found nothing.
        if authority.is_empty() {
            found.extend(
                read_signature(&node).map(|signature| format!("/dev/{name} holds {signature}")),
            );
        }
        found.extend(authority);
    }
    found.dedup();
    found
}

/// Whether the kernel marks the block device `name` read-only.
fn read_only(sys: &Path, name: &str) -> bool {
    std::fs::read_to_string(sys.join("class/block").join(name).join("ro"))
        .is_ok_and(|text| text.trim() == "1")
}

/// The partitions of the disk `name` (sysfs subdirectories with a `partition` file).
fn partitions(sys: &Path, name: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(sys.join("class/block").join(name)) else {
        return Vec::new();
    };
    let mut found: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.path().join("partition").exists())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    found
}

/// Devices stacked on any of `names`, transitively: their sysfs holders
/// (device-mapper, md) and loop devices whose backing file is one of them.
fn stacked_on(sys: &Path, names: &[String]) -> Vec<String> {
    let mut seen: BTreeSet<String> = names.iter().cloned().collect();
    let mut stacked = Vec::new();
    let mut level: Vec<String> = names.to_vec();
    while !level.is_empty() {
        let devs: Vec<(u32, u32)> = level.iter().filter_map(|n| dev_of(sys, n)).collect();
        let mut next = Vec::new();
        for name in &level {
            next.extend(holders(sys, name));
        }
        next.extend(loops_backed_by(sys, &devs));
        level = next
            .into_iter()
            .filter(|name| seen.insert(name.clone()))
            .collect();
        stacked.extend(level.iter().cloned());
    }
    stacked
}

fn holders(sys: &Path, name: &str) -> Vec<String> {
    std::fs::read_dir(sys.join("class/block").join(name).join("holders"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Loop devices whose backing file is one of the block devices `devs`.
fn loops_backed_by(sys: &Path, devs: &[(u32, u32)]) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(sys.join("block")) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let backing = std::fs::read_to_string(entry.path().join("loop/backing_file")).ok()?;
            let stat = rustix::fs::stat(backing.trim()).ok()?;
            let is_device = rustix::fs::FileType::from_raw_mode(stat.st_mode)
                == rustix::fs::FileType::BlockDevice;
            (is_device && devs.contains(&crate::probe::stack::split_dev(stat.st_rdev)))
                .then(|| entry.file_name().to_string_lossy().into_owned())
        })
        .collect()
}

fn dev_of(sys: &Path, name: &str) -> Option<(u32, u32)> {
    let text = std::fs::read_to_string(sys.join("class/block").join(name).join("dev")).ok()?;
    let (major, minor) = text.trim().split_once(':')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The device numbers of the block devices in /proc/swaps (files are skipped).
fn swap_devices(text: &str) -> Vec<(u32, u32)> {
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let path = line.split_whitespace().next()?;
            // /proc/swaps escapes spaces in names as \040, as mountinfo does.
            let stat = rustix::fs::stat(crate::probe::mounts::unescape(path).as_str()).ok()?;
            (rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::BlockDevice)
                .then(|| crate::probe::stack::split_dev(stat.st_rdev))
        })
        .collect()
}

/// A known on-disk signature: what it is, its byte offset, and its bytes.
type Signature = (&'static str, usize, &'static [u8]);

const MD_MAGIC: &[u8] = &[0xfc, 0x4e, 0x2b, 0xa9];

/// Signatures in a device's first 68 KiB, most specific first: a file system
/// on a whole disk may also carry the 0x55AA boot-sector bytes.
const SIGNATURES: &[Signature] = &[
    ("an XFS file system", 0, b"XFSB"),
    ("a Btrfs file system", 65_600, b"_BHRfS_M"),
    ("an ext2/3/4 file system", 1080, &[0x53, 0xef]),
    ("an F2FS file system", 1024, &[0x10, 0x20, 0xf5, 0xf2]),
    ("a swap area", 4086, b"SWAPSPACE2"),
    ("a swap area", 4086, b"SWAP-SPACE"),
    ("a swap area", 65_526, b"SWAPSPACE2"),
    ("a LUKS encrypted volume", 0, b"LUKS\xba\xbe"),
    ("an LVM2 physical volume", 512, b"LABELONE"),
    ("an LVM2 physical volume", 0, b"LABELONE"),
    ("a Linux RAID (md) member", 4096, MD_MAGIC),
    ("a Linux RAID (md) member", 0, MD_MAGIC),
    ("a GPT partition table", 512, b"EFI PART"),
    ("a GPT partition table", 4096, b"EFI PART"),
    ("an NTFS file system", 3, b"NTFS    "),
    ("a SquashFS image", 0, b"hsqs"),
    ("an ISO 9660 image", 32_769, b"CD001"),
    (
        "a DOS/MBR boot sector (a partition table or a FAT file system)",
        510,
        &[0x55, 0xaa],
    ),
];

/// How much of a device the signatures need.
const PROBE_BYTES: usize = 68 << 10;

/// The first known signature in `head` (a device's first bytes), described
/// with where it was found.
pub fn find_signature(head: &[u8]) -> Option<String> {
    SIGNATURES.iter().find_map(|&(what, offset, magic)| {
        (head.get(offset..offset + magic.len()) == Some(magic))
            .then(|| format!("{what} (signature at byte {offset})"))
    })
}

/// Reads the device's first [`PROBE_BYTES`] and looks for a signature;
/// a device that cannot be read is reported as such rather than passed.
fn read_signature(path: &Path) -> Option<String> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) => return Some(format!("no readable start ({error}) to check for data")),
    };
    let mut head = vec![0u8; PROBE_BYTES];
    let mut filled = 0;
    while filled < head.len() {
        match std::os::unix::fs::FileExt::read_at(&file, &mut head[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Some(format!("no readable start ({error}) to check for data")),
        }
    }
    find_signature(&head[..filled])
}

/// Which memory device a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Memory {
    /// `/dev/null`: reads end at once (end of file), writes are discarded.
    Null,
    /// `/dev/zero`: reads give zeros, writes are discarded.
    Zero,
}

/// `/dev/null` and `/dev/zero`: the character devices 1:3 and 1:5 (the
/// kernel's `Documentation/admin-guide/devices.txt`), by number, so a node
/// of another name for them counts and a file named so does not.
pub fn memory_device(kind: rustix::fs::FileType, rdev: u64) -> Option<Memory> {
    if kind != rustix::fs::FileType::CharacterDevice || rustix::fs::major(rdev) != 1 {
        return None;
    }
    match rustix::fs::minor(rdev) {
        3 => Some(Memory::Null),
        5 => Some(Memory::Zero),
        _ => None,
    }
}

/// [`memory_device`] of what `metadata` describes.
pub fn memory_metadata(metadata: &std::fs::Metadata) -> Option<Memory> {
    use std::os::unix::fs::MetadataExt;
    memory_device(
        rustix::fs::FileType::from_raw_mode(metadata.mode()),
        metadata.rdev(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(offset: usize, magic: &[u8]) -> Vec<u8> {
        let mut head = vec![0u8; PROBE_BYTES];
        head[offset..offset + magic.len()].copy_from_slice(magic);
        head
    }

    #[test]
    fn zeros_hold_no_signature() {
        assert_eq!(find_signature(&vec![0u8; PROBE_BYTES]), None);
        assert_eq!(
            find_signature(&[]),
            None,
            "a tiny device is not out of bounds"
        );
    }

    #[test]
    fn each_signature_is_named_with_its_offset() {
        for &(what, offset, magic) in SIGNATURES {
            let found = find_signature(&with(offset, magic)).unwrap();
            assert!(found.contains(what), "{found}");
            assert!(found.contains(&format!("byte {offset}")), "{found}");
        }
    }

    #[test]
    fn a_file_system_wins_over_the_boot_sector_bytes() {
        let mut head = with(1080, &[0x53, 0xef]);
        head[510] = 0x55;
        head[511] = 0xaa;
        assert!(find_signature(&head).unwrap().contains("ext2/3/4"));
    }

    #[test]
    fn a_signature_cut_off_by_the_end_is_not_read_past_it() {
        let head = with(65_600, b"_BHRfS_M");
        assert_eq!(find_signature(&head[..65_604]), None);
    }

    #[test]
    fn swaps_lists_only_block_devices() {
        let text = "Filename\tType\tSize\tUsed\tPriority\n/no/such/file file 1 0 -2\n";
        assert!(swap_devices(text).is_empty());
    }
}
