//! Block-device counters from /proc/diskstats, their differences, and the figures iostat and atop derive from them.
//!
//! The line format is documented in the kernel's
//! Documentation/admin-guide/iostats.rst: 11 counters after the name, 4 more
//! for discards since Linux 4.18 and 2 for flushes since 5.5. Older and newer
//! column counts both parse; missing columns read as zero.

use std::collections::HashMap;

/// Bytes per sector in diskstats: always 512, whatever the device's block size.
pub const SECTOR_BYTES: u64 = 512;

/// One device's cumulative counters at an instant, or a difference of two.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DiskCounters {
    /// Reads completed.
    pub reads: u64,
    /// Adjacent reads merged into one before reaching the device.
    pub reads_merged: u64,
    /// 512-byte sectors read.
    pub sectors_read: u64,
    /// Milliseconds spent by all reads (from issue to completion).
    pub read_ms: u64,
    /// Writes completed.
    pub writes: u64,
    /// Adjacent writes merged.
    pub writes_merged: u64,
    /// 512-byte sectors written.
    pub sectors_written: u64,
    /// Milliseconds spent by all writes.
    pub write_ms: u64,
    /// I/Os in flight at the instant (a gauge, not a counter).
    pub in_flight: u64,
    /// Milliseconds during which at least one I/O was in flight.
    pub io_ms: u64,
    /// In-flight time weighted by the number of I/Os in flight, ms.
    pub weighted_io_ms: u64,
    /// Discards completed (Linux 4.18+).
    pub discards: u64,
    /// 512-byte sectors discarded.
    pub sectors_discarded: u64,
    /// Flush requests completed (Linux 5.5+).
    pub flushes: u64,
}

impl DiskCounters {
    /// The change from `earlier` to `self`; counters that went backwards
    /// (device re-attached) count as zero.
    pub fn since(&self, earlier: &DiskCounters) -> DiskCounters {
        let d = |now: u64, then: u64| now.saturating_sub(then);
        DiskCounters {
            reads: d(self.reads, earlier.reads),
            reads_merged: d(self.reads_merged, earlier.reads_merged),
            sectors_read: d(self.sectors_read, earlier.sectors_read),
            read_ms: d(self.read_ms, earlier.read_ms),
            writes: d(self.writes, earlier.writes),
            writes_merged: d(self.writes_merged, earlier.writes_merged),
            sectors_written: d(self.sectors_written, earlier.sectors_written),
            write_ms: d(self.write_ms, earlier.write_ms),
            in_flight: self.in_flight,
            io_ms: d(self.io_ms, earlier.io_ms),
            weighted_io_ms: d(self.weighted_io_ms, earlier.weighted_io_ms),
            discards: d(self.discards, earlier.discards),
            sectors_discarded: d(self.sectors_discarded, earlier.sectors_discarded),
            flushes: d(self.flushes, earlier.flushes),
        }
    }

    /// Reads plus writes completed.
    pub fn ios(&self) -> u64 {
        self.reads + self.writes
    }

    /// Bytes read plus bytes written.
    pub fn bytes(&self) -> u64 {
        (self.sectors_read + self.sectors_written) * SECTOR_BYTES
    }
}

/// The counters of every device in /proc/diskstats, by kernel name
/// (`sda`, `dm-0`, `cciss/c0d0`: diskstats keeps the slash that sysfs turns into `!`).
pub type DiskTable = HashMap<String, DiskCounters>;

/// Parses the text of /proc/diskstats; lines that do not parse are skipped
/// (a device vanishing mid-read must not lose the others).
pub fn parse(text: &str) -> DiskTable {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<(String, DiskCounters)> {
    let mut fields = line.split_whitespace();
    let _major = fields.next()?;
    let _minor = fields.next()?;
    let name = fields.next()?.to_string();
    let numbers: Vec<u64> = fields.map(|f| f.parse().ok()).collect::<Option<_>>()?;
    if numbers.len() < 11 {
        return None;
    }
    let at = |i: usize| numbers.get(i).copied().unwrap_or(0);
    Some((
        name,
        DiskCounters {
            reads: at(0),
            reads_merged: at(1),
            sectors_read: at(2),
            read_ms: at(3),
            writes: at(4),
            writes_merged: at(5),
            sectors_written: at(6),
            write_ms: at(7),
            in_flight: at(8),
            io_ms: at(9),
            weighted_io_ms: at(10),
            discards: at(11),
            sectors_discarded: at(13),
            flushes: at(15),
        },
    ))
}

/// Reads /proc/diskstats now; empty when it cannot be read (no block layer in a container).
pub fn read() -> DiskTable {
    std::fs::read_to_string("/proc/diskstats")
        .map(|text| parse(&text))
        .unwrap_or_default()
}

/// The name diskstats uses for a sysfs block device name (`cciss!c0d0` → `cciss/c0d0`).
pub fn diskstats_name(sysfs_name: &str) -> String {
    sysfs_name.replace('!', "/")
}

/// What a device did over an elapsed time: iostat's and atop's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DiskRates {
    /// Reads completed per second.
    pub reads_per_s: f64,
    /// Writes completed per second.
    pub writes_per_s: f64,
    /// Bytes read per second.
    pub read_bps: f64,
    /// Bytes written per second.
    pub write_bps: f64,
    /// Mean bytes per device I/O (reads and writes); None without I/O.
    pub avg_io_bytes: Option<f64>,
    /// Mean time from issue to completion per I/O (iostat's await), ns;
    /// None without I/O, or below the counter's resolution.
    pub await_ns: Option<f64>,
    /// When I/O completed but the read and write time counters did not move
    /// (they count whole milliseconds): await is below this bound, ns.
    pub await_below_ns: Option<f64>,
    /// Busy time per I/O (atop's avio): io_ms / ios, ns; None without I/O or
    /// below resolution.
    pub avio_ns: Option<f64>,
    /// Fraction of the elapsed time with I/O in flight (0 to 1); None when
    /// I/O completed but the busy-time counter (whole jiffies, shown in ms)
    /// did not move: too small to measure, which is not zero.
    pub busy_fraction: Option<f64>,
}

impl DiskRates {
    /// The figures that are below the resolution of their counter: named as
    /// in the result file (`await_ns`, `avio_ns`, `busy_fraction`).
    pub fn below_resolution(&self, ios: u64) -> Vec<&'static str> {
        let mut below = Vec::new();
        if self.await_below_ns.is_some() {
            below.push("await_ns");
        }
        if ios > 0 && self.avio_ns.is_none() {
            below.push("avio_ns");
        }
        if self.busy_fraction.is_none() {
            below.push("busy_fraction");
        }
        below
    }
}

impl DiskRates {
    /// Rates of the difference `delta` over `elapsed_s` seconds.
    pub fn of(delta: &DiskCounters, elapsed_s: f64) -> DiskRates {
        let per_s = |n: u64| {
            if elapsed_s > 0.0 {
                n as f64 / elapsed_s
            } else {
                0.0
            }
        };
        let ios = delta.ios();
        let per_io = |total: f64| (ios > 0).then(|| total / ios as f64);
        // A counter of whole milliseconds (or jiffies) that did not move while
        // I/O completed: the time was real but below its resolution.
        let measured = |ms: u64| ios == 0 || ms > 0;
        let service_ms = delta.read_ms + delta.write_ms;
        DiskRates {
            reads_per_s: per_s(delta.reads),
            writes_per_s: per_s(delta.writes),
            read_bps: per_s(delta.sectors_read * SECTOR_BYTES),
            write_bps: per_s(delta.sectors_written * SECTOR_BYTES),
            avg_io_bytes: per_io(delta.bytes() as f64),
            await_ns: per_io(service_ms as f64 * 1e6).filter(|_| measured(service_ms)),
            // The counters accumulate nanoseconds and show whole milliseconds:
            // a delta of 0 means less than 1 ms in all.
            await_below_ns: (!measured(service_ms)).then(|| 1e6 / ios as f64),
            avio_ns: per_io(delta.io_ms as f64 * 1e6).filter(|_| measured(delta.io_ms)),
            busy_fraction: measured(delta.io_ms).then(|| {
                if elapsed_s > 0.0 {
                    (delta.io_ms as f64 / 1e3 / elapsed_s).min(1.0)
                } else {
                    0.0
                }
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux 6.x: 17 counters (discards and flushes).
    const NEW: &str = "\
 254       0 vda 15634 2110 1502890 6012 90211 40312 9453320 151003 0 71216 157740 1021 0 2093056 87 4012 725
 254       1 vda1 15000 2100 1500000 6000 90000 40300 9450000 151000 0 71000 157700 1021 0 2093056 87 0 0
   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 104       0 cciss/c0d0 10 0 80 3 0 0 0 0 0 3 3 0 0 0 0 0 0
";

    /// Linux 4.x before 4.18: 11 counters only.
    const OLD: &str = "   8       0 sda 4 1 40 2 8 3 64 9 1 11 12\n";

    #[test]
    fn seventeen_counters_parse() {
        let table = parse(NEW);
        let vda = table["vda"];
        assert_eq!(vda.reads, 15634);
        assert_eq!(vda.reads_merged, 2110);
        assert_eq!(vda.sectors_written, 9_453_320);
        assert_eq!(vda.io_ms, 71216);
        assert_eq!(vda.discards, 1021);
        assert_eq!(vda.sectors_discarded, 2_093_056);
        assert_eq!(vda.flushes, 4012);
        assert_eq!(table.len(), 4);
    }

    #[test]
    fn eleven_counters_parse_with_zero_discards() {
        let sda = parse(OLD)["sda"];
        assert_eq!(
            (sda.reads, sda.writes, sda.in_flight, sda.weighted_io_ms),
            (4, 8, 1, 12)
        );
        assert_eq!((sda.discards, sda.flushes), (0, 0));
    }

    #[test]
    fn slashed_names_match_their_sysfs_spelling() {
        let table = parse(NEW);
        assert!(table.contains_key(&diskstats_name("cciss!c0d0")));
    }

    #[test]
    fn broken_lines_are_skipped() {
        let table = parse("garbage\n 8 0 sdb 1 2 3\n 8 16 sdc 1 2 3 4 5 6 7 8 9 10 11\n");
        assert_eq!(table.keys().collect::<Vec<_>>(), ["sdc"]);
    }

    #[test]
    fn rates_follow_iostat() {
        let before = parse(OLD)["sda"];
        let after = DiskCounters {
            reads: 104,
            sectors_read: 40 + 100 * 8,
            read_ms: 2 + 50,
            writes: 8 + 100,
            sectors_written: 64 + 100 * 2048,
            write_ms: 9 + 150,
            io_ms: 11 + 500,
            ..before
        };
        let delta = after.since(&before);
        let rates = DiskRates::of(&delta, 2.0);
        assert_eq!(rates.reads_per_s, 50.0);
        assert_eq!(rates.write_bps, 100.0 * 2048.0 * 512.0 / 2.0);
        assert_eq!(
            rates.avg_io_bytes,
            Some((800.0 + 204_800.0) * 512.0 / 200.0)
        );
        assert_eq!(rates.await_ns, Some(200.0 / 200.0 * 1e6));
        assert_eq!(rates.avio_ns, Some(500.0 / 200.0 * 1e6));
        assert_eq!(rates.busy_fraction, Some(0.25));
        assert!(rates.below_resolution(delta.ios()).is_empty());
    }

    #[test]
    fn times_the_counters_could_not_resolve_are_bounds_not_zeros() {
        // A 1 MiB O_DIRECT write in 1.2 ms: 8 requests, no whole millisecond.
        let before = DiskCounters::default();
        let after = DiskCounters {
            writes: 8,
            sectors_written: 2048,
            ..before
        };
        let delta = after.since(&before);
        let rates = DiskRates::of(&delta, 0.0012);
        assert_eq!(rates.await_ns, None);
        assert_eq!(
            rates.await_below_ns,
            Some(125_000.0),
            "under 1 ms for 8 I/Os"
        );
        assert_eq!((rates.avio_ns, rates.busy_fraction), (None, None));
        assert_eq!(
            rates.below_resolution(delta.ios()),
            ["await_ns", "avio_ns", "busy_fraction"]
        );
        // An idle device is measured idle: 0% busy, nothing per I/O.
        let idle = before.since(&before);
        assert_eq!(DiskRates::of(&idle, 1.0).busy_fraction, Some(0.0));
    }

    #[test]
    fn no_io_gives_no_per_io_figures() {
        let idle = DiskCounters::default();
        let rates = DiskRates::of(&idle.since(&idle), 1.0);
        assert_eq!(
            (rates.avg_io_bytes, rates.await_ns, rates.avio_ns),
            (None, None, None)
        );
    }
}
