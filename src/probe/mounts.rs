//! The mount a path lives on, from /proc/self/mountinfo: file system type, source and options.

use std::path::{Path, PathBuf};

/// One line of mountinfo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// Where it is mounted (octal escapes such as `\040` decoded).
    pub mount_point: PathBuf,
    /// The device number the kernel reports for the file system.
    pub dev: (u32, u32),
    /// File system type (`ext4`, `nfs4`, `fuse.sshfs`…).
    pub fstype: String,
    /// The mount source (`/dev/vda`, `server:/export`, `user@host:dir`).
    pub source: String,
    /// Per-mount options (`rw,relatime`).
    pub options: String,
    /// Per-superblock options (`rw,discard`, NFS: `vers=4.2,rsize=…`).
    pub super_options: String,
}

impl Mount {
    /// The `dev_t` of the mount source when it is a block device node.
    pub fn source_device(&self) -> Option<u64> {
        if !self.source.starts_with("/dev/") {
            return None;
        }
        let stat = rustix::fs::stat(self.source.as_str()).ok()?;
        (rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::BlockDevice)
            .then_some(stat.st_rdev)
    }

    /// Whether the file system is a network one whose traffic /proc/net/dev counts.
    pub fn is_network(&self) -> bool {
        let fstype = self.fstype.as_str();
        matches!(
            fstype,
            "nfs" | "nfs4" | "cifs" | "smb3" | "ceph" | "9p" | "glusterfs" | "fuse.sshfs"
        ) || fstype.starts_with("fuse.s3")
    }

    /// Whether it is NFS, whose RPC counters /proc/self/mountstats has.
    pub fn is_nfs(&self) -> bool {
        self.fstype == "nfs" || self.fstype == "nfs4"
    }
}

/// Decodes mountinfo's octal escapes (`\040` space, `\011` tab, `\012` newline, `\134` backslash).
pub(crate) fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|digits| bytes[i] == b'\\' && digits.iter().all(|d| (b'0'..=b'7').contains(d)));
        match octal {
            Some(digits) => {
                let value = digits.iter().fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
                out.push(value as u8);
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses one mountinfo line; None when it is malformed.
pub fn parse_line(line: &str) -> Option<Mount> {
    let (before, after) = line.split_once(" - ")?;
    let fields: Vec<&str> = before.split(' ').collect();
    let (major, minor) = fields.get(2)?.split_once(':')?;
    let mut tail = after.split(' ');
    Some(Mount {
        mount_point: PathBuf::from(unescape(fields.get(4)?)),
        dev: (major.parse().ok()?, minor.parse().ok()?),
        options: fields.get(5)?.to_string(),
        fstype: tail.next()?.to_string(),
        source: unescape(tail.next()?),
        super_options: tail.next().unwrap_or("").to_string(),
    })
}

/// Parses the whole of mountinfo, skipping malformed lines.
pub fn parse(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_line).collect()
}

/// The mount holding `path` among `mounts`: the longest mount point that is a
/// prefix of it, the last such when mounts are stacked on one point.
pub fn find<'a>(mounts: &'a [Mount], path: &Path) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .fold(None, |best: Option<&Mount>, m| match best {
            Some(b) if b.mount_point.components().count() > m.mount_point.components().count() => {
                Some(b)
            }
            _ => Some(m),
        })
}

/// The mount holding `path` on this machine.
pub fn mount_of(path: &Path) -> Option<Mount> {
    let path = std::fs::canonicalize(path).ok()?;
    find(&this_machine(), &path).cloned()
}

/// Every mount this process sees (/proc/self/mountinfo); none when it
/// cannot be read.
pub fn this_machine() -> Vec<Mount> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|text| parse(&text))
        .unwrap_or_default()
}

/// The text of /proc/swaps: the swap areas in use; empty when it cannot be read.
pub fn swaps_text() -> String {
    std::fs::read_to_string("/proc/swaps").unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard
25 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
40 22 0:34 / /mnt/my\\040disk rw,relatime shared:20 - xfs /dev/mapper/vg-data rw,attr2,inode64
41 40 0:35 / /mnt/my\\040disk/nfs rw,relatime - nfs4 server:/export\\040x rw,vers=4.2,rsize=1048576,wsize=1048576,proto=tcp,nconnect=4
42 22 0:36 / /tmp rw shared:3 - tmpfs tmpfs rw,size=65536k
43 22 0:37 / /tmp rw - tmpfs other rw
44 22 0:38 / /srv/ssh rw,nosuid,nodev,relatime - fuse.sshfs root@127.0.0.1:/data rw,user_id=0,group_id=0
";

    #[test]
    fn fields_and_escapes() {
        let mounts = parse(MOUNTINFO);
        assert_eq!(mounts.len(), 7);
        let disk = &mounts[2];
        assert_eq!(disk.mount_point, Path::new("/mnt/my disk"));
        assert_eq!(disk.fstype, "xfs");
        assert_eq!(disk.source, "/dev/mapper/vg-data");
        assert_eq!(disk.dev, (0, 34));
        assert_eq!(disk.super_options, "rw,attr2,inode64");
        assert_eq!(mounts[3].source, "server:/export x");
    }

    #[test]
    fn the_deepest_mount_wins_and_the_last_of_stacked_mounts() {
        let mounts = parse(MOUNTINFO);
        let at = |p: &str| find(&mounts, Path::new(p)).unwrap().fstype.clone();
        assert_eq!(at("/mnt/my disk/nfs/a/b"), "nfs4");
        assert_eq!(at("/mnt/my disk/f"), "xfs");
        assert_eq!(at("/home"), "ext4");
        assert_eq!(find(&mounts, Path::new("/tmp/x")).unwrap().source, "other");
        // A prefix of a name is not a parent directory.
        assert_eq!(at("/mnt/my diskette"), "ext4");
    }

    #[test]
    fn network_file_systems_are_recognised() {
        let mounts = parse(MOUNTINFO);
        assert!(mounts[3].is_nfs() && mounts[3].is_network());
        assert!(mounts[6].is_network() && !mounts[6].is_nfs());
        assert!(!mounts[0].is_network());
    }

    #[test]
    fn malformed_lines_are_skipped() {
        assert!(parse("nonsense\n1 2 x / / rw - ext4\n").is_empty());
    }
}
