//! The checks of a point measured in a guest: `emulated-cpu` when QEMU emulated the CPU (its timings measure the emulator), `host-cache-under-guest` when the image's cache mode lets the host's page cache serve a guest's cold reads, `slow-clock` by the guest's own clock.

use super::Findings;
use crate::plan::Machine;
use crate::plan::guest::{Accelerator, DiskCache};
use crate::record::guest::GuestRecord;
use crate::record::{Point, Severity};

/// Adds the guest's checks to a guest point's.
pub fn checks(point: &mut Point, guest: &GuestRecord) {
    if point.workload.machine != Machine::Guest {
        return;
    }
    let mut found = Findings(Vec::new());
    if guest.accelerator == Accelerator::Tcg {
        found.act(
            "emulated-cpu",
            Severity::Warning,
            "the guest ran under TCG, QEMU's CPU emulation: its times and rates measure the emulator, not the cost of virtualization; its counts of requests and bytes hold".to_string(),
            "on a machine whose /dev/kvm runs the guest (iolab guest check says) the same plan measures the paravirtualized disk",
            format!(
                "accelerator tcg{}",
                guest
                    .why_tcg
                    .as_deref()
                    .map(|why| format!(" ({why})"))
                    .unwrap_or_default()
            ),
        );
    }
    let host_cached = matches!(
        guest.spec.cache,
        DiskCache::Writeback | DiskCache::Writethrough | DiskCache::Unsafe
    );
    if host_cached
        && point.workload.op.reads()
        && point.workload.cache == crate::plan::CacheMode::Cold
    {
        found.act(
            "host-cache-under-guest",
            Severity::Warning,
            "the guest evicted its own cache before reading, but the image goes through the host's page cache: a cold read in the guest may be served from the host's memory, not the device".to_string(),
            "--guest cache=none (the default) reads the device",
            format!("--guest cache={}", guest.spec.cache.name()),
        );
    }
    if let Some(environment) = guest.environment.as_deref() {
        super::clock::checks(point, environment, &mut found);
    }
    point.checks.extend(found.0);
}
