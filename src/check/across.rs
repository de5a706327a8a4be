//! Checks that hold one point against the other points of the same result: a cold buffered read faster than the device delivers to O_DIRECT.
//!
//! A per-point check sees only the stack this machine can count. A cache
//! below it (a VM host's page cache, a controller's or a file server's)
//! serves a cold read without any visible layer noticing: mincore says 0%
//! cached and every device counted every byte. What gives it away is the
//! speed: the same run's O_DIRECT reads show what the device delivers when
//! nothing caches in this machine, and a cold buffered read well above that
//! was served by something faster than the device.

use crate::plan::{CacheMode, Op};
use crate::record::{Check, Point, Severity};

/// The stable code of this check.
pub const CACHE_BELOW: &str = "cache-below-machine";
/// A cold buffered read this many times faster than the fastest O_DIRECT read
/// was served by a cache: read-ahead overlaps a device's requests, but does
/// not make it half again as fast as large O_DIRECT requests.
pub const CACHE_BELOW_MARGIN: f64 = 1.5;
/// O_DIRECT reads with less than this in flight (block × depth × jobs) are
/// latency-bound and say nothing of what the device can deliver; 128 KiB is
/// Linux's default read-ahead window.
pub const DIRECT_IN_FLIGHT: u64 = 128 << 10;

/// Re-runs the checks across `points` (one result file, in order of
/// measurement), replacing what an earlier call found: called after every
/// point, so a resumed run judges the points of both sessions together.
pub fn across(points: &mut [Point]) {
    for point in points.iter_mut() {
        point.checks.retain(|c| c.code != CACHE_BELOW);
    }
    let found: Vec<(usize, Check)> = points
        .iter()
        .enumerate()
        .filter_map(|(index, point)| cache_below(point, points).map(|c| (index, c)))
        .collect();
    for (index, check) in found {
        points[index].checks.push(check);
    }
}

/// The finding for `point` when it is a cold buffered read that no visible
/// layer explains and that beats the fastest O_DIRECT read in `points` on the
/// same file system by [`CACHE_BELOW_MARGIN`].
fn cache_below(point: &Point, points: &[Point]) -> Option<Check> {
    let workload = &point.workload;
    let cold_buffered = workload.op == Op::Read
        && workload.cache == CacheMode::Cold
        && !workload.direct
        && workload.engine.capabilities().moves_data;
    // Page-cache residency or a visible layer already explains a fast read.
    let explained = point
        .checks
        .iter()
        .any(|c| c.code == "cache-served" || c.code == "direct-not-honoured");
    if !cold_buffered || explained || point.target.direct_in_memory {
        return None;
    }
    let buffered = point.summary.as_ref()?.throughput_bps.mean;
    let resident = point
        .measured()
        .filter_map(|r| r.cache.as_ref().map(|c| c.resident_fraction))
        .fold(0.0f64, f64::max);
    let (device, direct) = points
        .iter()
        .filter(|other| device_bound_direct_read(other, point))
        .filter_map(|other| Some((other.summary.as_ref()?.throughput_bps.mean, other)))
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    if device <= 0.0 || buffered < CACHE_BELOW_MARGIN * device {
        return None;
    }
    Some(Check {
        code: CACHE_BELOW.to_string(),
        severity: Severity::Warning,
        message: "a cold buffered read ran faster than the device delivers to O_DIRECT in the same run, \
                  with nothing of the file in the page cache: a cache below this machine \
                  (a VM host's page cache, a controller, a file server) served it, so the figure is that cache's; \
                  say so with the figure, or read with --direct for the device's"
            .to_string(),
        evidence: Some(format!(
            "{:.0} MB/s with {:.1}% of the file resident at the start (mincore), {:.1}× the {:.0} MB/s of \
             the fastest O_DIRECT read on this file system, point '{}'",
            buffered / 1e6,
            resident * 100.0,
            buffered / device,
            device / 1e6,
            direct.label
        )),
    })
}

/// An O_DIRECT read on the same directory and file system as `of`, honoured
/// end to end, with enough in flight to keep the device busy.
fn device_bound_direct_read(other: &Point, of: &Point) -> bool {
    let workload = &other.workload;
    let in_flight = workload
        .bs
        .saturating_mul(u64::from(workload.iodepth.max(1)))
        .saturating_mul(u64::from(workload.jobs.max(1)));
    workload.direct
        && matches!(workload.op, Op::Read | Op::Reread)
        && workload.engine.capabilities().moves_data
        && in_flight >= DIRECT_IN_FLIGHT
        && !other.target.direct_in_memory
        && other.target.dir == of.target.dir
        && other.target.filesystem == of.target.filesystem
        && !other.checks.iter().any(|c| c.code == "direct-not-honoured")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::tests::point;
    use serde_json::json;

    /// A read of `bs` bytes per I/O at `bps`, 0% resident at the start.
    fn read(direct: bool, bs: u64, bps: f64) -> Point {
        let stat = json!({"n": 1, "mean": bps, "median": bps, "stdev": 0.0, "cv": 0.0, "min": bps, "max": bps});
        let mut p = point(
            json!({"op": "read", "direct": direct, "cache": "cold", "bs": bs}),
            json!({"cache": {"treatment": "cold", "resident_pages": 0, "total_pages": 256, "resident_fraction": 0.0}}),
            json!({"throughput_bps": stat}),
        );
        p.label = format!("read {bs} direct={direct}");
        p
    }

    fn found(points: &mut [Point]) -> Vec<Vec<String>> {
        across(points);
        across(points); // twice: a second call replaces, never adds
        points
            .iter()
            .map(|p| p.checks.iter().map(|c| c.code.clone()).collect())
            .collect()
    }

    #[test]
    fn a_cold_read_faster_than_direct_reads_was_served_below_the_machine() {
        // Figures of a VM whose host caches the disk: 2.1 GB/s cold against 1.2 GB/s direct.
        let mut points = [read(true, 128 << 10, 1.2e9), read(false, 128 << 10, 2.1e9)];
        assert_eq!(found(&mut points), [vec![], vec![CACHE_BELOW.to_string()]]);
        let evidence = points[1].checks[0].evidence.as_deref().unwrap();
        assert!(evidence.contains("2100 MB/s"), "{evidence}");
        assert!(evidence.contains("1.8× the 1200 MB/s"), "{evidence}");
        assert!(evidence.contains("'read 131072 direct=true'"), "{evidence}");
        // The order of measurement does not matter: a resume may add the direct read last.
        points.reverse();
        assert_eq!(found(&mut points), [vec![CACHE_BELOW.to_string()], vec![]]);
    }

    #[test]
    fn read_ahead_latency_bound_direct_reads_and_visible_caches_raise_nothing() {
        // Within the margin: read-ahead overlapping the device.
        let mut close = [read(true, 1 << 20, 1.2e9), read(false, 1 << 20, 1.7e9)];
        assert_eq!(found(&mut close), [Vec::<String>::new(), vec![]]);
        // 4 KiB O_DIRECT reads at depth 1 measure latency, not the device's rate.
        let mut small = [read(true, 4 << 10, 0.1e9), read(false, 1 << 20, 2.0e9)];
        assert_eq!(found(&mut small), [Vec::<String>::new(), vec![]]);
        // Another file system's device says nothing of this one's.
        let mut elsewhere = [read(true, 1 << 20, 0.2e9), read(false, 1 << 20, 2.0e9)];
        elsewhere[0].target.dir = "/elsewhere".to_string();
        assert_eq!(found(&mut elsewhere), [Vec::<String>::new(), vec![]]);
        // A read the page cache served is cache-served already.
        let mut visible = [read(true, 1 << 20, 0.2e9), read(false, 1 << 20, 2.0e9)];
        visible[1].checks.push(Check {
            code: "cache-served".to_string(),
            severity: Severity::Warning,
            message: String::new(),
            evidence: None,
        });
        assert_eq!(
            found(&mut visible),
            [vec![], vec!["cache-served".to_string()]]
        );
    }
}
