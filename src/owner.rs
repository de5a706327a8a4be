//! Owner tags: which process on which host created a file (scratch files,
//! result files' temporaries), and whether that process is gone, so that a
//! later run removes a killed run's leftovers and never a live run's.

use crate::probe::process;
use rustix::fd::{AsFd, BorrowedFd};
use rustix::fs::XattrFlags;
use std::sync::OnceLock;

/// In a guest's agent: the owner tag of the host-side iolab that booted
/// the guest, and that run's id. Inside a guest, hostname, pid namespace
/// (the initial one's inode, the same on every Linux system) and process
/// table say nothing about other guests' runs, so the agent's files carry
/// the host process's tag, and the agent judges no marker dead: only a
/// run that sees the host-side owner's process table does.
static HOSTED: OnceLock<String> = OnceLock::new();

/// Makes this process (a guest's agent) tag what it creates as the
/// host-side run's, and judge no owner dead (see [`HOSTED`]).
pub(crate) fn act_for_host(host_tag: &str, run_id: &str) {
    let _ = HOSTED.set(hosted_tag(host_tag, run_id));
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
        return hosted.clone();
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
    if HOSTED.get().is_some() || is_hosted(here) {
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
    fn a_guest_judges_no_marker_dead_and_its_own_live_as_long_as_the_host_run() {
        let here = owner_tag();
        let fields: Vec<&str> = here.split(' ').collect();
        // What another guest's agent wrote before owners were the host's:
        // every guest has this pid namespace, and its boot is another.
        let other_guest = "(none) pid:[4026531836] 0b5e-old-boot 212 900";
        let in_a_guest = hosted_tag("(none) pid:[4026531836] new-boot 1 1", "run-b");
        assert!(!tag_is_dead(other_guest, &in_a_guest));
        assert!(!tag_is_dead(&here, &in_a_guest));
        // A guest's file carries the host process's tag: live while it runs…
        let written_in_guest = hosted_tag(&here, "run-a");
        assert!(written_in_guest.starts_with(&here), "{written_in_guest}");
        assert!(!tag_is_dead(&written_in_guest, &here));
        // …and dead once that host process is gone.
        let gone = format!("{} {} {} 4194304 1", fields[0], fields[1], fields[2]);
        assert!(tag_is_dead(&hosted_tag(&gone, "run-a"), &here));
    }
}
