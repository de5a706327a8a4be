//! The checks of a point's cache state: what the page cache held at the start against what the workload meant (a cold read served from memory, a warm one that was not), and the sync flags a read does not use.

use super::{Findings, RESIDENT_TOLERANCE};
use crate::plan::{CacheMode, Op, SyncMode};
use crate::record::{Point, Severity};

pub(super) fn cache_checks(point: &Point, found: &mut Findings) {
    let workload = &point.workload;
    if !workload.op.writes() && workload.sync != crate::plan::SyncMode::None {
        found.add(
            "sync-on-read",
            Severity::Info,
            "reads opened with O_SYNC or O_DSYNC: Linux accepts the flag (O_RSYNC is O_SYNC) \
             but makes reads wait for nothing more, so the figure is that of a plain read"
                .to_string(),
            format!(
                "--sync {} on op {}",
                workload.sync.name(),
                workload.op.name()
            ),
        );
    }
    let capabilities = workload.engine.capabilities();
    if capabilities.queued
        && !capabilities.queues_buffered
        && !workload.direct
        && workload.iodepth > 1
    {
        found.act(
            "queue-not-kept",
            Severity::Warning,
            format!(
                "the {} engine completes buffered requests inside the submitting call: \
                 the queue never held more than one, so this is a queue depth of 1",
                workload.engine.name()
            ),
            "add --direct, or use --engine uring, which queues buffered I/O",
            format!(
                "--engine {} --iodepth {} without --direct",
                workload.engine.name(),
                workload.iodepth
            ),
        );
    }
    let meant_for_device =
        workload.op == Op::Read && (workload.cache == CacheMode::Cold || workload.direct);
    let worst_residency = point
        .measured()
        .filter_map(|r| r.cache.as_ref().map(|c| c.resident_fraction))
        .fold(0.0f64, f64::max);
    if meant_for_device && worst_residency > RESIDENT_TOLERANCE {
        found.act(
            "cache-served",
            Severity::Warning,
            "the file was in the page cache when a read meant to reach the device started; \
             part of the figure may be memory speed"
                .to_string(),
            "--direct reads the device (docs/checks.md: on tmpfs nothing can be evicted)",
            format!(
                "{:.1}% of the file resident at the start (mincore)",
                worst_residency * 100.0
            ),
        );
    }
    if workload.direct && point.target.direct_in_memory {
        found.act(
            "direct-not-honoured",
            Severity::Warning,
            format!(
                "the {} file system accepted O_DIRECT but keeps data in memory: these are memory figures, not a device's",
                point.target.filesystem
            ),
            "measure with --dir on a file system and device that honour O_DIRECT (a loop device needs --direct-io=on)",
            format!("file system {} (O_DIRECT accepted, data in memory)", point.target.filesystem),
        );
    }
    // Only a figure that exists can be misleading.
    // Trims punch holes (file system metadata, not buffered data): only
    // writes leave data in the page cache.
    // A metadata workload's changes have their own check (`tree`).
    // `/dev/null` holds nothing to write back.
    let unsynced = point.summary.is_some()
        && point.target.filesystem != crate::record::MEMORY_DEVICE
        && workload.work() != crate::plan::Work::Tree
        && workload.directions().writes()
        && workload.engine.capabilities().moves_data
        && !workload.direct
        && workload.sync == SyncMode::None
        && !workload.fsync_end
        && workload.fsync_every == 0;
    let network = workload.engine.capabilities().network;
    if unsynced && network == Some("nfs") {
        found.act(
            "writeback-pending",
            Severity::Warning,
            "NFS writes sent UNSTABLE and not committed in the timed region: the figure is the server \
             accepting them, not their reaching stable storage (libnfs commits them when the file is closed, \
             after the clock stopped)"
                .to_string(),
            "add --fsync-end (a COMMIT in the timed region) or --sync osync (FILE_SYNC writes)",
            "no --sync, --fsync-end or --fsync-every".to_string(),
        );
    } else if unsynced && network.is_some() {
        found.act(
            "writeback-pending",
            Severity::Warning,
            "iSCSI writes acknowledged without Force Unit Access and never followed by SYNCHRONIZE CACHE: \
             the target may hold them in a volatile cache"
                .to_string(),
            "add --fsync-end (SYNCHRONIZE CACHE in the timed region) or --sync osync (FUA on every WRITE)",
            "no --sync, --fsync-end or --fsync-every".to_string(),
        );
    } else if unsynced {
        found.act(
            "writeback-pending",
            Severity::Warning,
            "buffered writes without any sync: the figure is the speed of copying into memory"
                .to_string(),
            "add --fsync-end (or --direct) to include reaching the device",
            "no --direct, --sync, --fsync-end or --fsync-every".to_string(),
        );
    }
    // With the server's storage on this machine (`server_path=`) its cache
    // was evicted and counted, as the repetitions' cache state says.
    if network.is_some()
        && !workload.op.writes()
        && workload.cache == CacheMode::Cold
        && point.summary.is_some()
        && point.measured().all(|r| r.cache.is_none())
    {
        found.add(
            "cache-uncontrolled",
            Severity::Info,
            "a cold read through a network client: the client keeps no cache, but the server's was not \
             evicted by iolab, so reads may come from the server's memory (on a server running on this \
             machine, server_path= in the URL lets iolab evict and count it)"
                .to_string(),
            format!("engine {}, cache cold, server cache not controlled", workload.engine.name()),
        );
    }
    if meant_for_page_cache(workload) && point.summary.is_some() {
        found.add(
            "working-set-in-ram",
            Severity::Info,
            "a buffered read of a file left in the page cache: this is page-cache speed, not the device's; \
             use --cache cold (the default) or --direct for the device"
                .to_string(),
            format!(
                "op {}, cache {:?}, {} bytes per job",
                workload.op.name(),
                workload.cache,
                workload.size
            )
            .to_lowercase(),
        );
    }
}

/// A buffered read of a file left in the page cache (`--op reread`, `--cache
/// warm` or `keep`): meant to be served from memory.
pub(super) fn meant_for_page_cache(workload: &crate::plan::Workload) -> bool {
    !workload.direct
        && !workload.op.writes()
        && workload.engine.capabilities().moves_data
        && (workload.op == Op::Reread || workload.cache != CacheMode::Cold)
}
