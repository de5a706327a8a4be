//! Owner tags: which process on which host created a file (scratch files,
//! result files' temporaries), and whether that process is gone, so that a
//! later run removes a killed run's leftovers and never a live run's.

use crate::probe::process;
use rustix::fd::{AsFd, BorrowedFd};
use rustix::fs::XattrFlags;

/// The extended attribute naming the process that created a file:
/// `<hostname> <pid namespace> <boot id> <pid> <start time in clock ticks>`,
/// so a later run can tell a dead run's leftovers from a live run's files.
/// Only a run that sees the same pids (same host, boot and pid namespace)
/// judges; a run in another container leaves the files alone.
pub const OWNER_XATTR: &str = "user.iolab.owner";

/// This process's owner tag (see [`OWNER_XATTR`]).
pub(crate) fn owner_tag() -> String {
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
    let (Some(owner), Some(this)) = (parse_owner(tag), parse_owner(here)) else {
        return false;
    };
    if (owner.host, owner.namespace) != (this.host, this.namespace) {
        return false;
    }
    owner.boot != this.boot || !running(owner.pid, owner.start)
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
}
