//! Owner tags: which process on which host created a file (scratch files,
//! result files' temporaries), and whether that process is gone, so that a
//! later run removes a killed run's leftovers and never a live run's.

use crate::probe::process;
use rustix::fd::{AsFd, BorrowedFd};
use rustix::fs::XattrFlags;
use std::sync::OnceLock;

/// The host's processes as a guest's agent is told them: which ran when
/// the host-side iolab prepared the guest, and the host's clock then.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HostProcesses {
    /// `(pid, start time in clock ticks)` of every process running then.
    pub live: Vec<(u32, u64)>,
    /// The host's time since boot then, in clock ticks: a process that
    /// started later is not in `live` and is never judged by it.
    pub taken_at_ticks: u64,
}

/// Every process of this host (its pid namespace) and the time now.
pub fn host_processes() -> HostProcesses {
    // Taken first: a process started while /proc is read may be missing
    // from `live`, but its start time is then after this.
    let taken_at_ticks = process::uptime_ticks().unwrap_or(0);
    let live = process::pids()
        .into_iter()
        .filter_map(|pid| {
            let stat = process::stat_of(pid)?;
            (!matches!(stat.state.as_str(), "Z" | "X" | "x")).then_some((pid, stat.start_ticks))
        })
        .collect();
    HostProcesses {
        live,
        taken_at_ticks,
    }
}

/// In a guest's agent: the owner tag of the host-side iolab that booted
/// the guest, that run's id, and the host's processes it was told of.
/// Inside a guest, hostname, pid namespace (the initial one's inode, the
/// same on every Linux system) and process table say nothing about other
/// guests' runs, so the agent's files carry the host process's tag, and a
/// marker is judged only by the host's processes ([`judged_in_guest`]).
struct Hosted {
    tag: String,
    processes: HostProcesses,
}

static HOSTED: OnceLock<Hosted> = OnceLock::new();

/// Makes this process (a guest's agent) tag what it creates as the
/// host-side run's, and judge owners by the host's processes (see [`Hosted`]).
pub(crate) fn act_for_host(host_tag: &str, run_id: &str, processes: HostProcesses) {
    let _ = HOSTED.set(Hosted {
        tag: hosted_tag(host_tag, run_id),
        processes,
    });
}

/// Whether the owner `tag` is dead as a guest's agent judges it: only a
/// process of the host that booted the guest (`hosted`, the agent's own
/// tag), started before the host listed its processes and not among them.
fn judged_in_guest(tag: &str, hosted: &str, processes: &HostProcesses) -> bool {
    let (Some(owner), Some(host)) = (parse_owner(tag), parse_owner(hosted)) else {
        return false;
    };
    (owner.host, owner.namespace, owner.boot) == (host.host, host.namespace, host.boot)
        && owner.start < processes.taken_at_ticks
        && !processes.live.contains(&(owner.pid, owner.start))
}

/// The owner tag of a guest's agent serving run `run_id` for the host-side
/// process whose tag is `host_tag`.
fn hosted_tag(host_tag: &str, run_id: &str) -> String {
    let host = parse_owner(host_tag).map_or_else(
        || "(unknown host) - - 0 0".to_string(),
        |o| {
            format!(
                "{} {} {} {} {}",
                o.host, o.namespace, o.boot, o.pid, o.start
            )
        },
    );
    format!("{host} guest-run:{run_id}")
}

/// The extended attribute naming the process that created a file:
/// `<hostname> <pid namespace> <boot id> <pid> <start time in clock ticks>`,
/// so a later run can tell a dead run's leftovers from a live run's files.
/// Only a run that sees the same pids (same host, boot and pid namespace)
/// judges; a run in another container leaves the files alone.
pub const OWNER_XATTR: &str = "user.iolab.owner";

/// This process's owner tag (see [`OWNER_XATTR`]); in a guest's agent, the
/// host-side run's with the guest run's id after it.
pub(crate) fn owner_tag() -> String {
    if let Some(hosted) = HOSTED.get() {
        return hosted.tag.clone();
    }
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    let boot = process::boot_id();
    let namespace = process::pid_namespace();
    let pid = std::process::id();
    let start = process::stat_of(pid).map_or(0, |stat| stat.start_ticks);
    format!("{host} {namespace} {boot} {pid} {start}")
}

/// Whether the owner tag on `fd` names a process of this host (`here` is
/// this process's tag) that is gone: another boot, or no process with that
/// pid and start time. Unknown or foreign-host owners are not dead.
pub(crate) fn owner_is_dead(fd: BorrowedFd<'_>, here: &str) -> bool {
    tag_of(fd).is_some_and(|tag| tag_is_dead(&tag, here))
}

/// The owner tag on `fd`, when it carries one.
pub(crate) fn tag_of(fd: BorrowedFd<'_>) -> Option<String> {
    let mut value = [0u8; 256];
    let len = rustix::fs::fgetxattr(fd, OWNER_XATTR, &mut value[..]).ok()?;
    Some(String::from_utf8_lossy(&value[..len]).into_owned())
}

/// Whether the owner tag `tag` names a process of this host (`here` is this
/// process's tag) that is gone; a tag that does not parse, or names another
/// host or pid namespace, is not dead.
pub(crate) fn tag_is_dead(tag: &str, here: &str) -> bool {
    // A guest's agent sees no process of the host that owns a marker.
    if let Some(hosted) = HOSTED.get() {
        return judged_in_guest(tag, &hosted.tag, &hosted.processes);
    }
    if is_hosted(here) {
        return false;
    }
    let (Some(owner), Some(this)) = (parse_owner(tag), parse_owner(here)) else {
        return false;
    };
    if (owner.host, owner.namespace) != (this.host, this.namespace) {
        return false;
    }
    owner.boot != this.boot || !running(owner.pid, owner.start)
}

/// Whether `tag` is a guest agent's (the host-side run's tag and the guest run).
fn is_hosted(tag: &str) -> bool {
    tag.split(' ')
        .nth(5)
        .is_some_and(|f| f.starts_with("guest-run:"))
}

/// Whether process `pid`, started at `start` ticks, still runs: a zombie
/// (exited, not yet reaped — as the ranks mpirun ends are for a moment)
/// runs no more and will write nothing.
fn running(pid: u32, start: u64) -> bool {
    process::stat_of(pid).is_some_and(|stat| {
        stat.start_ticks == start && !matches!(stat.state.as_str(), "Z" | "X" | "x")
    })
}

/// The fields of an owner tag.
pub(crate) struct Owner<'a> {
    pub(crate) host: &'a str,
    pub(crate) namespace: &'a str,
    pub(crate) boot: &'a str,
    pub(crate) pid: u32,
    pub(crate) start: u64,
}

pub(crate) fn parse_owner(tag: &str) -> Option<Owner<'_>> {
    let mut fields = tag.split(' ');
    let host = fields.next()?;
    let namespace = fields.next()?;
    let boot = fields.next()?;
    let pid = fields.next()?.parse().ok()?;
    let start = fields.next()?.parse().ok()?;
    Some(Owner {
        host,
        namespace,
        boot,
        pid,
        start,
    })
}

/// Tags the open file `fd` with this process's owner tag; a file system
/// without user xattrs leaves it untagged, and such a file is never judged
/// dead (kept rather than removed).
pub(crate) fn tag(fd: impl AsFd) {
    let _ = rustix::fs::fsetxattr(fd, OWNER_XATTR, owner_tag().as_bytes(), XattrFlags::CREATE);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zombie_owns_nothing_and_a_live_process_keeps_its_files() {
        let here = owner_tag();
        assert!(!tag_is_dead(&here, &here), "this process runs");
        // A child that exited and is not reaped yet: a zombie.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = process::stat_of(pid).unwrap().start_ticks;
        let fields: Vec<&str> = here.split(' ').collect();
        let tag = format!("{} {} {} {pid} {start}", fields[0], fields[1], fields[2]);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while running(pid, start) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(tag_is_dead(&tag, &here), "a zombie is gone for its files");
        child.wait().unwrap();
        assert!(tag_is_dead(&tag, &here), "and so is a reaped process");
    }

    #[test]
    fn a_guest_judges_only_by_the_host_processes_it_was_told() {
        let here = owner_tag();
        let fields: Vec<&str> = here.split(' ').collect();
        let processes = host_processes();
        assert!(processes.live.len() > 1 && processes.taken_at_ticks > 0);
        let in_a_guest = hosted_tag(&here, "run-b");
        // What another guest's agent wrote before owners were the host's:
        // every guest has this pid namespace, and its boot is another.
        let other_guest = "(none) pid:[4026531836] 0b5e-old-boot 212 900";
        assert!(!judged_in_guest(other_guest, &in_a_guest, &processes));
        // Another live run on the host (this process): its guest's files stay.
        let live_runs_guest = hosted_tag(&here, "run-a");
        assert!(live_runs_guest.starts_with(&here), "{live_runs_guest}");
        assert!(!judged_in_guest(&live_runs_guest, &in_a_guest, &processes));
        assert!(
            !tag_is_dead(&live_runs_guest, &here),
            "the host judges it live"
        );
        // A host process gone before the list was taken: dead, for both.
        let gone = format!("{} {} {} 4194304 1", fields[0], fields[1], fields[2]);
        assert!(judged_in_guest(
            &hosted_tag(&gone, "run-a"),
            &in_a_guest,
            &processes
        ));
        assert!(tag_is_dead(&hosted_tag(&gone, "run-a"), &here));
        // One that started after the list was taken is never judged by it.
        let later = format!(
            "{} {} {} 4194304 {}",
            fields[0],
            fields[1],
            fields[2],
            processes.taken_at_ticks + 100
        );
        assert!(!judged_in_guest(&later, &in_a_guest, &processes));
        // Another host's: never.
        let elsewhere = format!("other-host {} {} 4194304 1", fields[1], fields[2]);
        assert!(!judged_in_guest(&elsewhere, &in_a_guest, &processes));
    }
}
