//! How a job's file is opened: the access mode its workload needs and the flags it asks (O_DIRECT, O_SYNC, O_DSYNC), as open(2) gets them and as the record names them.

use crate::plan::{SyncMode, Workload};
use rustix::fs::OFlags;

/// The access mode a job opens its file with: as the workload uses it —
/// read-only for reads, write-only for writes (the programs the studies
/// ran opened so, and the table says so), read-write for a mix, and for
/// the engines that need both to write (a shared mapping, a C stream
/// opened `r+`), and writes read back as they go (`--verify-backlog`).
pub fn open_access(workload: &Workload) -> OFlags {
    let directions = workload.directions();
    let writes = directions.writes() || directions.trims() || workload.op.writes();
    let reads = directions.reads() || workload.verify_backlog.is_some();
    let caps = workload.engine.capabilities();
    match (reads, writes) {
        (_, false) => OFlags::RDONLY,
        (false, true) if !caps.maps_file && !caps.library_stream => OFlags::WRONLY,
        _ => OFlags::RDWR,
    }
}

/// The flags a job's file is opened with, as open(2) names them.
pub fn describe_open(workload: &Workload) -> String {
    let access = open_access(workload);
    let mut names = vec![if access == OFlags::WRONLY {
        "O_WRONLY"
    } else if access == OFlags::RDWR {
        "O_RDWR"
    } else {
        "O_RDONLY"
    }];
    if workload.direct {
        names.push("O_DIRECT");
    }
    match workload.sync {
        SyncMode::None => {}
        SyncMode::Osync => names.push("O_SYNC"),
        SyncMode::Odsync => names.push("O_DSYNC"),
    }
    // What every reopen adds: a link planted in its place is not followed,
    // and the descriptor does not leak into a command `measure` runs.
    names.extend(["O_NOFOLLOW", "O_CLOEXEC"]);
    names.join("|")
}

/// The flags a job's file is opened with beside its access mode.
pub fn open_flags(workload: &Workload) -> OFlags {
    let mut flags = OFlags::empty();
    if workload.direct {
        flags |= OFlags::DIRECT;
    }
    match workload.sync {
        SyncMode::None => {}
        SyncMode::Osync => flags |= OFlags::SYNC,
        // rustix's DSYNC carries O_SYNC's bits (0x101000): O_DSYNC's own
        // (0x1000) are given, so `--sync odsync` is what open(2) gets.
        SyncMode::Odsync => flags |= OFlags::from_bits_retain(libc::O_DSYNC as u32),
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_open_as_the_workload_uses_them_and_say_so() {
        let mut workload = crate::plan::default_workload();
        workload.sync = SyncMode::Osync;
        workload.direct = true;
        assert_eq!(
            describe_open(&workload),
            "O_RDONLY|O_DIRECT|O_SYNC|O_NOFOLLOW|O_CLOEXEC"
        );
        assert_eq!(
            open_flags(&workload).bits(),
            (libc::O_DIRECT | libc::O_SYNC) as u32
        );
        workload.op = crate::plan::Op::Write;
        workload.sync = SyncMode::Odsync;
        workload.direct = false;
        assert_eq!(open_access(&workload), OFlags::WRONLY);
        assert_eq!(open_flags(&workload).bits(), libc::O_DSYNC as u32);
        assert_eq!(
            describe_open(&workload),
            "O_WRONLY|O_DSYNC|O_NOFOLLOW|O_CLOEXEC"
        );
        workload.engine = crate::plan::EngineKind::Mmap;
        assert_eq!(
            open_access(&workload),
            OFlags::RDWR,
            "a shared mapping needs both"
        );
    }
}
