//! Snapshots of the machine's counters (stack devices, network, CPU states, NFS) taken by a side thread at the start, every interval and the end of a timed region.
//!
//! The sampler runs beside the I/O threads, never inside them: the timing
//! loops do no extra work for it.

use super::diskstats::{self, DiskCounters};
use super::netdev::{self, NetTable};
use super::nfs::{self, NfsCounters};
use super::procstat::{self, CpuTicks};
use crate::clock;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

/// An interval in whole ns, at least 1.
fn interval_ns(interval: Duration) -> u64 {
    (interval.as_nanos().min(u128::from(u64::MAX)) as u64).max(1)
}

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
    /// The page cache's dirty and under-write-back bytes (start and end only).
    #[serde(default)]
    pub dirty: Option<super::host::DirtyPages>,
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
    /// The interval between ticks, ns: the asked interval, doubled each time
    /// the ticks reached their bound and every other one was dropped.
    #[serde(default)]
    pub interval_ns: u64,
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
            dirty: if full {
                super::host::dirty_pages()
            } else {
                None
            },
        }
    }

    /// The sampler thread's body for a timed region that starts `ramp` after
    /// the jobs are released (`ready` waits for that with them; false when
    /// the start was called off), with a device snapshot every `interval`,
    /// until `done` is dropped.
    pub fn sample_region(
        &self,
        ramp: Duration,
        interval: Duration,
        max_ticks: usize,
        ready: impl FnOnce() -> bool,
        done: &Receiver<()>,
    ) -> Samples {
        let interval_ns = interval_ns(interval);
        let start = if ramp.is_zero() {
            // Before the release: the region's first I/O must not be missed.
            let start = self.snapshot(true);
            if !ready() {
                return self.finish(start.clone(), Vec::new(), interval_ns, start);
            }
            start
        } else {
            if !ready() {
                let now = self.snapshot(true);
                return self.finish(now.clone(), Vec::new(), interval_ns, now);
            }
            if let Err(RecvTimeoutError::Disconnected) = done.recv_timeout(ramp) {
                // Everything ended during the ramp.
                let now = self.snapshot(true);
                return self.finish(now.clone(), Vec::new(), interval_ns, now);
            }
            self.snapshot(true)
        };
        self.sample_until(start, interval, max_ticks, done)
    }

    /// Takes interval snapshots after `start` until `done` is dropped, then
    /// the end snapshot. At `max_ticks` (made even) every other tick is
    /// dropped and the interval doubles, as the jobs' series coarsen: the
    /// counters are cumulative, so the remaining ticks bound exact intervals.
    pub fn sample_until(
        &self,
        start: Snapshot,
        interval: Duration,
        max_ticks: usize,
        done: &Receiver<()>,
    ) -> Samples {
        let max_ticks = max_ticks.max(2) & !1;
        let mut ticks: Vec<Snapshot> = Vec::new();
        let mut interval_ns = interval_ns(interval);
        loop {
            if ticks.len() >= max_ticks {
                // Ticks 2, 4, 6… (1-based) stay: the boundaries of the doubled interval.
                ticks = ticks.into_iter().skip(1).step_by(2).collect();
                interval_ns = interval_ns.saturating_mul(2);
            }
            let next = start
                .at_ns
                .saturating_add(interval_ns.saturating_mul(ticks.len() as u64 + 1));
            let wait = Duration::from_nanos(next.saturating_sub(clock::now_ns()));
            match done.recv_timeout(wait) {
                Err(RecvTimeoutError::Timeout) => ticks.push(self.snapshot(false)),
                _ => break,
            }
        }
        let end = self.snapshot(true);
        self.finish(start, ticks, interval_ns, end)
    }

    fn finish(
        &self,
        start: Snapshot,
        ticks: Vec<Snapshot>,
        interval_ns: u64,
        end: Snapshot,
    ) -> Samples {
        Samples {
            disks: self.disks.clone(),
            start,
            ticks,
            interval_ns,
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
        let (stop, done) = mpsc::channel::<()>();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(stop);
        });
        let samples = watch.sample_region(
            Duration::ZERO,
            Duration::from_millis(10),
            64,
            || true,
            &done,
        );
        stopper.join().unwrap();
        // 300 ms with 10 ms intervals: at least one tick even on a loaded machine.
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

    #[test]
    fn ticks_are_thinned_to_their_bound_and_the_interval_doubles() {
        let watch = Watch::default();
        let (stop, done) = mpsc::channel::<()>();
        let stopper = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(stop);
        });
        // A 1 ns interval: every turn of the loop is a tick, thousands of them.
        let start = watch.snapshot(true);
        let samples = watch.sample_until(start, Duration::from_nanos(1), 8, &done);
        stopper.join().unwrap();
        assert!(samples.ticks.len() <= 8, "{}", samples.ticks.len());
        assert!(
            samples.interval_ns >= 2,
            "coarsened: {}",
            samples.interval_ns
        );
        assert!(samples.interval_ns.is_power_of_two());
        let times: Vec<u64> = samples.intervals().iter().map(|(a, _)| a.at_ns).collect();
        assert!(times.windows(2).all(|w| w[0] < w[1]));
    }
}
