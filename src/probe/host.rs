//! The host's name and kernel, recorded in every result file, and the text of /proc/cpuinfo and /proc/meminfo the environment's CPU and memory are read from.

/// The text of /proc/cpuinfo; empty when it cannot be read.
pub fn cpuinfo_text() -> String {
    std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default()
}

/// The text of /proc/meminfo; empty when it cannot be read.
pub fn meminfo_text() -> String {
    std::fs::read_to_string("/proc/meminfo").unwrap_or_default()
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
