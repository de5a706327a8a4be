//! The host's name and kernel, recorded in every result file, the text of /proc/cpuinfo and /proc/meminfo the environment's CPU and memory are read from, and the CPUs of each NUMA node.

/// The value of `key` in a `key : value` text such as /proc/cpuinfo or /proc/meminfo.
pub(crate) fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        (name.trim() == key).then(|| value.trim())
    })
}

/// The CPUs of NUMA node `node` as sysfs lists them (`0-3,8-11`); `None`
/// when the machine has no such node.
pub fn numa_node_cpus(node: usize) -> Option<String> {
    std::fs::read_to_string(format!("/sys/devices/system/node/node{node}/cpulist")).ok()
}

/// The text of /proc/cpuinfo; empty when it cannot be read.
pub fn cpuinfo_text() -> String {
    std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default()
}

/// The text of /proc/meminfo; empty when it cannot be read.
pub fn meminfo_text() -> String {
    std::fs::read_to_string("/proc/meminfo").unwrap_or_default()
}

/// The page cache's dirty bytes and those under write-back, machine-wide
/// (/proc/meminfo `Dirty` and `Writeback`); `None` when unreadable.
pub fn dirty_pages() -> Option<DirtyPages> {
    dirty_pages_in(&meminfo_text())
}

/// The page cache's dirty and under-write-back bytes at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DirtyPages {
    /// Dirty bytes.
    pub dirty_bytes: u64,
    /// Bytes being written back.
    pub writeback_bytes: u64,
}

/// [`dirty_pages`] from /proc/meminfo's text.
fn dirty_pages_in(meminfo: &str) -> Option<DirtyPages> {
    let kib = |key: &str| -> Option<u64> {
        let value = field(meminfo, key)?;
        value
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .ok()
    };
    Some(DirtyPages {
        dirty_bytes: kib("Dirty")? * 1024,
        writeback_bytes: kib("Writeback")? * 1024,
    })
}

/// Identity of the machine a result was measured on.
#[derive(Clone, Debug)]
pub struct HostIdentity {
    /// The node name (uname -n).
    pub hostname: String,
    /// Kernel release (uname -r).
    pub kernel: String,
    /// Kernel version string (uname -v).
    pub version: String,
    /// Machine architecture (uname -m).
    pub arch: String,
}

impl HostIdentity {
    /// Reads uname(2).
    pub fn read() -> HostIdentity {
        let uname = rustix::system::uname();
        let text = |s: &std::ffi::CStr| s.to_string_lossy().into_owned();
        HostIdentity {
            hostname: text(uname.nodename()),
            kernel: text(uname.release()),
            version: text(uname.version()),
            arch: text(uname.machine()),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn dirty_and_writeback_are_read_in_bytes() {
        let text = "MemTotal:       16384000 kB\nDirty:              1234 kB\nWriteback:            8 kB\n";
        let pages = super::dirty_pages_in(text).unwrap();
        assert_eq!(
            (pages.dirty_bytes, pages.writeback_bytes),
            (1234 * 1024, 8 * 1024)
        );
        assert!(super::dirty_pages_in("MemTotal: 1 kB\n").is_none());
    }
}
