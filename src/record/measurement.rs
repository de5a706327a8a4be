//! The measured-command part of the file format (`iolab measure`): a command's runs, wall times, exit statuses and the activity around them.

use super::Stat;
use super::activity::{Activity, DeviceActivity};
use serde::{Deserialize, Serialize};

/// One command measured one or more times.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    /// A label naming it in tables and charts (`--label`, else the command line).
    pub label: String,
    /// The command and its arguments.
    pub command: Vec<String>,
    /// The path whose storage stack was watched.
    pub path: String,
    /// Each run, in order.
    pub runs: Vec<CommandRun>,
    /// Wall time over the runs that exited with status 0, s; absent when none did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub wall_s: Option<Stat>,
}

/// One run of the command.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandRun {
    /// 0-based run number.
    pub index: u32,
    /// The exit status, when it exited.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub exit_code: Option<i32>,
    /// The signal that killed it, when one did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub signal: Option<i32>,
    /// From start to exit, ns.
    pub wall_ns: u64,
    /// CPU seconds the command and its waited-for children spent in user mode.
    pub user_s: f64,
    /// CPU seconds they spent in the kernel.
    pub system_s: f64,
    /// Largest resident set of the command or one of its children, bytes.
    pub max_rss_bytes: u64,
    /// What the command and the descendants it waited for asked of the
    /// kernel (`/proc/PID/io`); absent without task I/O accounting.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub process_io: Option<ProcessIo>,
    /// What the devices, network and CPUs did while it ran; each device's
    /// application ratios use `process_io` in the direction the top layer
    /// moved more bytes.
    pub activity: Activity,
    /// Device figures per interval while it ran.
    pub series: Vec<CommandInterval>,
}

/// A process's I/O accounting, `/proc/PID/io`: calls and bytes asked for,
/// and bytes that went to or came from storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessIo {
    /// Bytes read by read-like calls, from any file, pipe or device (`rchar`).
    pub read_chars: u64,
    /// Bytes written by write-like calls (`wchar`).
    pub write_chars: u64,
    /// Read-like system calls (`syscr`).
    pub read_calls: u64,
    /// Write-like system calls (`syscw`).
    pub write_calls: u64,
    /// Bytes fetched from storage for it (`read_bytes`).
    pub read_bytes: u64,
    /// Bytes it caused to be sent to storage, including dirtied page cache (`write_bytes`).
    pub write_bytes: u64,
}

impl ProcessIo {
    /// Reads the text of `/proc/PID/io`; `None` when a field is missing.
    pub fn parse(text: &str) -> Option<ProcessIo> {
        let field = |name: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
                .and_then(|value| value.trim().parse().ok())
        };
        Some(ProcessIo {
            read_chars: field("rchar")?,
            write_chars: field("wchar")?,
            read_calls: field("syscr")?,
            write_calls: field("syscw")?,
            read_bytes: field("read_bytes")?,
            write_bytes: field("write_bytes")?,
        })
    }

    /// The application's work in one direction, for the device ratios.
    pub fn work(&self, writes: bool) -> super::activity::AppWork {
        super::activity::AppWork {
            ops: if writes {
                self.write_calls
            } else {
                self.read_calls
            },
            bytes: if writes {
                self.write_chars
            } else {
                self.read_chars
            },
            directions: crate::plan::direction::DirectionMix::only(if writes {
                crate::plan::direction::Direction::Write
            } else {
                crate::plan::direction::Direction::Read
            }),
        }
    }
}

/// One interval of a measured command's run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandInterval {
    /// Interval start, seconds after the run started.
    pub start_s: f64,
    /// The stack's devices over the interval.
    pub devices: Vec<DeviceActivity>,
}
