//! The wire between iolab and its agent in the guest: one JSON message per line, both ways, over a virtio-serial port (a Unix socket on the host's side), so no network is needed.

use crate::plan::group::Group;
use crate::plan::guest::GuestSpec;
use crate::record::Point;
use crate::record::environment::Environment;
use crate::record::guest::DeviceBytes;
use serde::{Deserialize, Serialize};
use std::io::{self, BufRead, Read, Write};

/// The name of the guest's port, as `/sys/class/virtio-ports/*/name` shows it.
pub const PORT_NAME: &str = "org.iolab.agent";

/// The longest message read (a point with its histograms and series is a few MB).
const LONGEST_MESSAGE: u64 = 256 << 20;

/// What the host asks of the agent.
#[derive(Debug, Serialize, Deserialize)]
pub enum ToGuest {
    /// Set up what the guest measures in (the disk's file system, an NFS
    /// mount, an iSCSI disk, a logical volume), mount it and answer `Ready`.
    Prepare {
        /// The host's run id: the guest's scratch files carry it too.
        run_id: String,
        /// The owner tag of the host-side iolab that booted the guest: the
        /// guest's files carry it (with the run id), so that only that
        /// process's end makes them a dead run's ([`crate::owner`]).
        #[serde(default)]
        owner: String,
        /// The host's processes, by which the agent judges which runs'
        /// files are a dead run's ([`crate::owner::HostProcesses`]).
        #[serde(default)]
        host_processes: crate::owner::HostProcesses,
        /// Whether a point goes through the guest's page cache (the
        /// memory-copy ceiling is measured then).
        page_cache: bool,
        /// Whether the agent makes the file system (a qcow2 image, or the
        /// logical volume of `lvm=on`); a raw image has it made on the host
        /// before each boot.
        make_filesystem: bool,
        /// The guest's definition: what it mounts, which file system, LVM.
        #[serde(default)]
        spec: Box<GuestSpec>,
        /// The guest's address on its tap's link (`10.211.0.2/24`), when it has one.
        #[serde(default)]
        address: Option<String>,
        /// When the guest serves as a host (`iolab guest up`): its host name
        /// and where its disk is mounted a second time.
        #[serde(default)]
        host: Option<AsHost>,
    },
    /// Measure one point and answer with its record.
    Point {
        /// The point's label.
        label: String,
        /// What runs at once (one workload is one group).
        groups: Vec<Group>,
    },
    /// Run a command line with `sh -c` (as ssh runs its words), answering
    /// with its output as it comes and `Exited` when it ends.
    Exec {
        /// The command line.
        command: String,
    },
    /// End the command `Exec` started (its process group is sent SIGTERM,
    /// SIGKILL after [`KILL_GRACE`]): the one who asked went away.
    Kill,
    /// Remove the files, unmount, answer `Stopped`, and power off.
    Stop,
}

/// What a command a guest runs for `iolab guest exec` does, as it happens:
/// told by the agent to the host, and by the host to the one who asked.
#[derive(Debug, Serialize, Deserialize)]
pub enum CommandEvent {
    /// Its output, as it came (invalid UTF-8 replaced).
    Output {
        /// From its standard error (else its standard output).
        stderr: bool,
        /// The bytes, as text.
        text: String,
    },
    /// It ended: its exit status, or the signal that ended it.
    Exited {
        /// Its exit status, when it exited.
        code: Option<i32>,
        /// The signal that ended it, when one did.
        signal: Option<i32>,
    },
}

/// What a guest serving as a host is besides its disk.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AsHost {
    /// The guest's host name (what MPI and iolab's per-host tables call it).
    pub hostname: String,
    /// The host's directory under test, where the guest's disk is also
    /// mounted, so that a command given the host's `--dir` measures the
    /// guest's own disk.
    pub dir: String,
}

/// How long a killed command has between SIGTERM and SIGKILL.
pub const KILL_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// What the agent answers.
#[derive(Debug, Serialize, Deserialize)]
pub enum FromGuest {
    /// The disk is ready: what the guest is.
    Ready(Box<Ready>),
    /// Still measuring (every [`HEARTBEAT`]): silence past the host's deadline means a hung guest.
    Alive,
    /// A point's record, built in the guest as on the host, with what the
    /// disk under test did over the whole point.
    Point {
        point: Box<Point>,
        /// The guest's disk under test, from the point's receipt to its answer.
        disk: Vec<DeviceBytes>,
        /// When the guest received the point, by its own clock (RFC 3339):
        /// the host moves the repetitions' start times onto its clock by
        /// the difference to when it sent the point.
        #[serde(default)]
        received_at: Option<String>,
    },
    /// The point was refused as bad input.
    Refused(String),
    /// The point could not run; nothing was measured.
    Failed(String),
    /// What the command `Exec` started did.
    Command(CommandEvent),
    /// Files removed, disk unmounted; the guest powers off.
    Stopped,
}

/// How often the agent says it is alive while measuring.
pub const HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(2);

/// What the agent reports once its disk is ready.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ready {
    /// The guest's machine and the storage under its scratch directory.
    pub environment: Box<Environment>,
    /// The guest's device of the disk under test (`/dev/vda`, the logical
    /// volume `/dev/dm-0` over it, an iSCSI disk `/dev/sda`), or the
    /// export the guest's kernel mounted (`10.211.0.1:/export`).
    pub device: String,
    /// The file system on it.
    pub filesystem: String,
    /// Seconds the stack took to set up (a file system made, a mount, a login).
    pub prepare_s: f64,
    /// What the agent removed of dead runs (a killed guest's files on a
    /// shared export), as shown in the guest: the host names each.
    #[serde(default)]
    pub removed: Vec<String>,
}

/// Writes `message` as one line and flushes it.
pub fn send<T: Serialize>(writer: &mut impl Write, message: &T) -> io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
    line.push(b'\n');
    writer.write_all(&line)?;
    writer.flush()
}

/// Reads one message into `pending` (which keeps a line cut by a read
/// timeout for the next call): `None` at the end of the stream.
pub fn receive<T: for<'de> Deserialize<'de>>(
    reader: &mut impl BufRead,
    pending: &mut Vec<u8>,
) -> io::Result<Option<T>> {
    let read = BufRead::read_until(
        &mut Read::take(&mut *reader, LONGEST_MESSAGE),
        b'\n',
        pending,
    )?;
    if read == 0 && pending.is_empty() {
        return Ok(None);
    }
    if pending.last() != Some(&b'\n') {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the stream ended inside a message",
        ));
    }
    let message =
        serde_json::from_slice(pending).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e));
    pending.clear();
    message.map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_survive_a_line_cut_by_a_timeout() {
        let mut wire = Vec::new();
        send(&mut wire, &FromGuest::Failed("disk".into())).unwrap();
        send(&mut wire, &FromGuest::Alive).unwrap();
        let (first, rest) = wire.split_at(5);
        let mut pending = Vec::new();
        // The first read stops mid-line (as a timeout would): an error, the bytes kept.
        let cut: io::Result<Option<FromGuest>> = receive(&mut &first[..], &mut pending);
        assert!(cut.is_err());
        assert_eq!(pending, first);
        let mut rest = io::BufReader::new(rest);
        assert!(matches!(
            receive(&mut rest, &mut pending).unwrap(),
            Some(FromGuest::Failed(text)) if text == "disk"
        ));
        assert!(matches!(
            receive(&mut rest, &mut pending).unwrap(),
            Some(FromGuest::Alive)
        ));
        assert!(
            receive::<FromGuest>(&mut rest, &mut pending)
                .unwrap()
                .is_none()
        );
    }
}
