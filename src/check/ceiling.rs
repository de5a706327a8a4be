//! Figures faster than the machine can move data (memory copy, a memory device), and the cgroup's I/O limits that capped a run.

use super::{CACHE_RESIDENT_LIMIT, Findings, cache};
use crate::record::{Point, Severity};

/// Faster than memory can copy; I/O limits from the cgroup.
pub(super) fn checks(
    point: &Point,
    environment: &crate::record::environment::Environment,
    found: &mut Findings,
) {
    let workload = &point.workload;
    if point.target.filesystem == crate::record::MEMORY_DEVICE {
        found.add(
            "no-storage",
            Severity::Info,
            "/dev/null and /dev/zero store nothing: the figure is the cost of the system calls and iolab's loop, as fio's filename=/dev/null jobs measure it, not storage".to_string(),
            format!("target {}", point.target.files.join(", ")),
        );
        return;
    }
    // Files that fit in the CPU's caches are copied faster than DRAM allows:
    // the ceiling applies only to working sets well beyond them.
    let page_cache = !workload.direct
        && workload.engine.capabilities().moves_data
        && workload.size.saturating_mul(u64::from(workload.jobs)) >= CACHE_RESIDENT_LIMIT;
    if let (true, Some(ceiling), Some(summary)) =
        (page_cache, environment.memcpy_bps, &point.summary)
    {
        // A little above the ceiling is measurement spread; far above is impossible.
        if summary.throughput_bps.mean > ceiling * 1.25 {
            found.act(
                "faster-than-device",
                Severity::Warning,
                "faster than this machine copies memory: the figure cannot be the data actually moved".to_string(),
                "say so with the figure, or measure below the cache that acknowledged it (--direct, --fsync-end)",
                format!(
                    "{:.0} MB/s against a memory-copy ceiling of {:.0} MB/s",
                    summary.throughput_bps.mean / 1e6,
                    ceiling / 1e6
                ),
            );
        }
    }
    if cache::meant_for_page_cache(workload) && !environment.proactive_reclaim.is_empty() {
        found.add(
            "proactive-reclaim",
            Severity::Info,
            "the kernel pages out file data it judges cold, with memory to spare: \
             cached pages of the file can be evicted before or during the run"
                .to_string(),
            environment.proactive_reclaim.join("; "),
        );
    }
    if let Some(storage) = environment
        .storage
        .as_ref()
        .filter(|s| !s.io_limits.is_empty())
    {
        found.act(
            "throttled",
            Severity::Warning,
            "a cgroup limits I/O to the devices under the target: the figure may be the limit, not the device".to_string(),
            "measure outside the limited cgroup, or report the limit with the figure",
            storage.io_limits.join("; "),
        );
    }
}
