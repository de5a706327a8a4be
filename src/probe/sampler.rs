//! Snapshots of the machine's counters (stack devices, network, CPU states, NFS) taken by a side thread at the start, every interval and the end of a timed region.
//!
//! The sampler runs beside the I/O threads, never inside them: the timing
//! loops do no extra work for it.

use super::diskstats::{self, DiskCounters};
use super::netdev::{self, NetTable};
use super::nfs::{self, NfsCounters};
use super::procstat::{self, CpuTicks};
use crate::run::clock;
use std::path::PathBuf;
use std::sync::Barrier;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// What to sample: the devices of a stack and, for NFS, a mount point.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    /// diskstats names of the stack's devices, top first.
    pub disks: Vec<String>,
    /// The NFS mount whose mountstats to read.
    pub nfs_mount: Option<PathBuf>,
}

/// The counters at one instant.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    /// When it was taken (monotonic clock, ns).
    pub at_ns: u64,
    /// Counters of each watched device, in the watch's order (zeros when a
    /// device vanished from diskstats).
    pub disks: Vec<DiskCounters>,
    /// Every interface (start and end snapshots only).
    pub net: NetTable,
    /// CPU ticks by state (start and end only).
    pub cpu: Option<CpuTicks>,
    /// NFS counters (start and end only, NFS targets only).
    pub nfs: Option<NfsCounters>,
}

/// Snapshots over one timed region.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Samples {
    /// The watched devices' names.
    pub disks: Vec<String>,
    /// At the start of the timed region.
    pub start: Snapshot,
    /// At each interval boundary after the start.
    pub ticks: Vec<Snapshot>,
    /// At the end.
    pub end: Snapshot,
}

impl Samples {
    /// The snapshots bounding each interval: start..tick1, tick1..tick2, …, last..end.
    pub fn intervals(&self) -> Vec<(&Snapshot, &Snapshot)> {
        let mut bounds: Vec<&Snapshot> = vec![&self.start];
        bounds.extend(self.ticks.iter());
        bounds.push(&self.end);
        bounds.windows(2).map(|w| (w[0], w[1])).collect()
    }
}

impl Watch {
    /// Reads the counters now; `full` adds network, CPU and NFS to the devices.
    pub fn snapshot(&self, full: bool) -> Snapshot {
        let table = diskstats::read();
        let disks = self
            .disks
            .iter()
            .map(|name| table.get(name).copied().unwrap_or_default())
            .collect();
        Snapshot {
            at_ns: clock::now_ns(),
            disks,
            net: if full {
                netdev::read()
            } else {
                NetTable::new()
            },
            cpu: if full { procstat::read() } else { None },
            nfs: if full {
                self.nfs_mount.as_deref().and_then(nfs::read)
            } else {
                None
            },
        }
    }

    /// The sampler thread's body for a timed region that starts `ramp` after
    /// the barrier releases the jobs (this thread takes part in the barrier),
    /// with a device snapshot every `interval`, until `done` is dropped.
    pub fn sample_region(
        &self,
        ramp: Duration,
        interval: Duration,
        barrier: &Barrier,
        done: &Receiver<()>,
    ) -> Samples {
        let start = if ramp.is_zero() {
            // Before the release: the region's first I/O must not be missed.
            let start = self.snapshot(true);
            barrier.wait();
            start
        } else {
            barrier.wait();
            if let Err(RecvTimeoutError::Disconnected) = done.recv_timeout(ramp) {
                // Everything ended during the ramp.
                let now = self.snapshot(true);
                return self.finish(now.clone(), Vec::new(), now);
            }
            self.snapshot(true)
        };
        self.sample_until(start, interval, done)
    }

    /// Takes interval snapshots after `start` until `done` is dropped, then the end snapshot.
    pub fn sample_until(
        &self,
        start: Snapshot,
        interval: Duration,
        done: &Receiver<()>,
    ) -> Samples {
        let mut ticks = Vec::new();
        let interval_ns = interval.as_nanos().max(1) as u64;
        loop {
            let next = start.at_ns + interval_ns * (ticks.len() as u64 + 1);
            let wait = Duration::from_nanos(next.saturating_sub(clock::now_ns()));
            match done.recv_timeout(wait) {
                Err(RecvTimeoutError::Timeout) => ticks.push(self.snapshot(false)),
                _ => break,
            }
        }
        let end = self.snapshot(true);
        self.finish(start, ticks, end)
    }

    fn finish(&self, start: Snapshot, ticks: Vec<Snapshot>, end: Snapshot) -> Samples {
        Samples {
            disks: self.disks.clone(),
            start,
            ticks,
            end,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn ticks_arrive_each_interval_and_the_end_closes_the_last() {
        let watch = Watch::default();
        let barrier = Barrier::new(1);
        let (stop, done) = mpsc::channel::<()>();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(stop);
        });
        let samples =
            watch.sample_region(Duration::ZERO, Duration::from_millis(50), &barrier, &done);
        stopper.join().unwrap();
        // 300 ms with 50 ms intervals: at least one tick even on a loaded machine.
        assert!(!samples.ticks.is_empty());
        assert_eq!(samples.intervals().len(), samples.ticks.len() + 1);
        let times: Vec<u64> = samples.intervals().iter().map(|(a, _)| a.at_ns).collect();
        assert!(
            times.windows(2).all(|w| w[0] < w[1]),
            "snapshots in time order"
        );
        assert!(samples.end.at_ns > *times.last().unwrap());
        assert!(samples.start.cpu.is_some() && samples.end.cpu.is_some());
        assert!(samples.ticks.iter().all(|t| t.cpu.is_none()));
    }
}
