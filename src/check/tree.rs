//! The checks of a metadata workload: whether its lookups found the tree's dentries and inodes in memory, whether a dropped cache still left the device idle, and that its changes were made in memory unless synced.

use super::Findings;
use crate::plan::direction::Direction;
use crate::plan::{CacheMode, Op};
use crate::record::environment::Storage;
use crate::record::{Point, Severity};

/// Device reads below this after a drop count as none.
const NO_READS: u64 = 4096;

/// The checks of a point whose workload works on a tree (`items` given).
pub(super) fn checks(point: &Point, storage: Option<&Storage>, found: &mut Findings) {
    let workload = &point.workload;
    if workload.work() != crate::plan::Work::Tree || point.summary.is_none() {
        return;
    }
    // iolab's own network client keeps no cache and its server commits
    // NFSv3's metadata before replying: these checks are the kernel's.
    if workload.engine.capabilities().network.is_some() {
        return;
    }
    let looks_up = workload.op.looks_up();
    if looks_up && workload.cache != CacheMode::Drop {
        // Nothing short of a system-wide drop or an unmount evicts a
        // tree's dentries and inodes; cold evicts only file pages.
        found.act(
            "metadata-in-memory",
            if workload.cache == CacheMode::Cold {
                Severity::Warning
            } else {
                Severity::Info
            },
            "the tree's dentries and inodes were in memory: its lookups were served by the kernel's caches, \
             not read from the file system"
                .to_string(),
            "--cache drop (root, system-wide) makes them cold",
            format!(
                "op {}, cache {}, file system {}",
                workload.op.name(),
                format!("{:?}", workload.cache).to_lowercase(),
                point.target.filesystem
            ),
        );
    }
    if looks_up && workload.cache == CacheMode::Drop {
        // The file system had to read its directories and inodes back.
        if let Some((_, device, name)) = super::device::totals(point, storage, &[Direction::Read])
            && device < NO_READS
        {
            found.act(
                "metadata-cache-served",
                Severity::Warning,
                "after every cache was dropped the device read nothing: the tree's metadata still came from memory"
                    .to_string(),
                "measure on a device of its own (a loop device's backing file sits in the page cache)",
                format!("{name} read {device} bytes in the timed regions"),
            );
        }
    }
    let changes = workload.op.writes();
    if changes && !(workload.op == Op::Create && workload.fsync_end) {
        found.add(
            "metadata-unsynced",
            Severity::Info,
            "the tree's changes were made in the kernel's memory and reach the device when the file system \
             commits them: the figure is the speed of changing its caches (as mdtest's without -y); \
             --fsync-end syncs each file a create makes"
                .to_string(),
            format!("op {}, no sync in the timed region", workload.op.name()),
        );
    }
}
