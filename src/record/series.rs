//! Reading a repetition's time series with bounded memory: a series longer
//! than [`MAX_READ_INTERVALS`] (written before iolab bounded its series, or
//! by hand) is coarsened while it is read, so a file's size never decides
//! how much memory loading it takes.
//!
//! Merged intervals add their bytes and I/Os exactly and keep the largest
//! latency; percentiles and per-interval device figures cannot be merged
//! from the file's figures and are left out. [`mark_coarsened`] then records
//! the series' interval in `series_interval_s`.
//!
//! Reading only to show (`compare`, `report`, [`Lean`]), the per-interval
//! device figures, which nothing shown uses and which are most of a long
//! series' bytes, are skipped as they are read.

use super::{Interval, ResultFile};
use serde::Deserializer;
use serde::de::{IgnoredAny, SeqAccess, Visitor};
use std::cell::Cell;

thread_local! {
    /// Set while a file is read only to be shown.
    static LEAN: Cell<bool> = const { Cell::new(false) };
}

/// While alive, result files read on this thread skip per-interval device
/// figures (a reading for `compare` and `report`, never one that is written
/// back, as a resumed sweep's is).
pub struct Lean(bool);

impl Lean {
    /// Starts lean reading on this thread.
    pub fn start() -> Lean {
        Lean(LEAN.with(|lean| lean.replace(true)))
    }
}

impl Drop for Lean {
    fn drop(&mut self) {
        LEAN.with(|lean| lean.set(self.0));
    }
}

/// An interval as read leanly: its device figures passed over.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LeanInterval {
    start_s: f64,
    bytes: u64,
    ops: u64,
    #[serde(default)]
    latency_p50_ns: Option<u64>,
    #[serde(default)]
    latency_p99_ns: Option<u64>,
    #[serde(default)]
    latency_max_ns: Option<u64>,
    #[serde(default)]
    #[allow(dead_code)]
    devices: IgnoredAny,
    #[serde(default)]
    client_tcp: Option<super::TcpCounts>,
    #[serde(default)]
    directions: Vec<super::IntervalDirection>,
}

/// The most intervals a repetition's series keeps when read: twice what
/// iolab writes (1024 per job), so a file iolab wrote is read exactly.
pub const MAX_READ_INTERVALS: usize = 2048;

/// `deserialize_with` for `Repetition::series`: the intervals, merged in
/// neighbouring groups (2, 4, 8… at a time) as needed to stay within
/// [`MAX_READ_INTERVALS`].
pub fn bounded<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Interval>, D::Error> {
    struct Bounded;
    impl<'de> Visitor<'de> for Bounded {
        type Value = Vec<Interval>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list of intervals")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut kept: Vec<Interval> = Vec::new();
            // Each kept interval stands for `group` read ones; the last may be partial.
            let mut group = 1usize;
            let mut in_last = 0usize;
            let lean = LEAN.with(Cell::get);
            while let Some(mut interval) = next(&mut seq, lean)? {
                if let Some(last) = kept.last_mut().filter(|_| in_last < group) {
                    merge_into(last, &interval);
                    in_last += 1;
                    continue;
                }
                // The last kept interval is full: this one starts the next,
                // after halving the kept ones when there is no room. Every
                // kept interval is full then, so the pairs are even.
                if kept.len() == MAX_READ_INTERVALS {
                    kept = kept.chunks(2).map(merged).collect();
                    group *= 2;
                }
                if group > 1 {
                    strip(&mut interval);
                }
                kept.push(interval);
                in_last = 1;
            }
            Ok(kept)
        }
    }
    deserializer.deserialize_seq(Bounded)
}

/// The next interval of the list, its device figures skipped when `lean`.
fn next<'de, A: SeqAccess<'de>>(seq: &mut A, lean: bool) -> Result<Option<Interval>, A::Error> {
    if !lean {
        return seq.next_element::<Interval>();
    }
    Ok(seq.next_element::<LeanInterval>()?.map(|i| Interval {
        start_s: i.start_s,
        bytes: i.bytes,
        ops: i.ops,
        latency_p50_ns: i.latency_p50_ns,
        latency_p99_ns: i.latency_p99_ns,
        latency_max_ns: i.latency_max_ns,
        devices: Vec::new(),
        client_tcp: i.client_tcp,
        directions: i.directions,
    }))
}

/// `into` with `next` added: bytes and I/Os summed, the largest latency
/// kept, what cannot be merged left out.
fn merge_into(into: &mut Interval, next: &Interval) {
    strip(into);
    into.bytes = into.bytes.saturating_add(next.bytes);
    into.ops = into.ops.saturating_add(next.ops);
    into.latency_max_ns = larger(into.latency_max_ns, next.latency_max_ns);
    // Per direction when both kept them, matched by direction.
    if into.directions.len() == next.directions.len() {
        for (into, next) in into.directions.iter_mut().zip(&next.directions) {
            if into.direction == next.direction {
                into.bytes = into.bytes.saturating_add(next.bytes);
                into.ops = into.ops.saturating_add(next.ops);
                into.latency_max_ns = larger(into.latency_max_ns, next.latency_max_ns);
            }
        }
    } else {
        into.directions.clear();
    }
    // TCP counts add up; an interval without them makes the sum unknown.
    into.client_tcp = into
        .client_tcp
        .zip(next.client_tcp)
        .map(|(a, b)| super::TcpCounts {
            segs_out: a.segs_out.saturating_add(b.segs_out),
            segs_in: a.segs_in.saturating_add(b.segs_in),
            data_segs_out: a.data_segs_out.saturating_add(b.data_segs_out),
            data_segs_in: a.data_segs_in.saturating_add(b.data_segs_in),
            bytes_acked: a.bytes_acked.saturating_add(b.bytes_acked),
            bytes_received: a.bytes_received.saturating_add(b.bytes_received),
            retransmits: a.retransmits.saturating_add(b.retransmits),
        });
}

fn larger(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Neighbouring intervals as one.
fn merged(pair: &[Interval]) -> Interval {
    let mut first = pair[0].clone();
    for next in &pair[1..] {
        merge_into(&mut first, next);
    }
    first
}

/// Leaves out what a merged interval cannot carry.
fn strip(interval: &mut Interval) {
    interval.latency_p50_ns = None;
    interval.latency_p99_ns = None;
    interval.devices.clear();
    for direction in &mut interval.directions {
        direction.latency_p50_ns = None;
        direction.latency_p99_ns = None;
    }
}

/// Records in `series_interval_s` the interval of every series that was
/// coarsened while read (its steps are longer than the workload's interval).
pub fn mark_coarsened(result: &mut ResultFile) {
    for point in &mut result.points {
        let asked = point.workload.interval_s;
        for repetition in &mut point.repetitions {
            if repetition.series_interval_s.is_some() || repetition.series.len() < 2 {
                continue;
            }
            let step = repetition.series[1].start_s - repetition.series[0].start_s;
            if step > asked * 1.5 {
                repetition.series_interval_s = Some(step);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Series {
        #[serde(deserialize_with = "bounded")]
        series: Vec<Interval>,
    }

    fn series(count: usize) -> String {
        let intervals: Vec<String> = (0..count)
            .map(|i| {
                format!(
                    r#"{{"start_s": {}, "bytes": 10, "ops": 1, "latency_p50_ns": 5, "latency_max_ns": {}}}"#,
                    i as f64 * 0.001,
                    i
                )
            })
            .collect();
        format!(r#"{{"series": [{}]}}"#, intervals.join(","))
    }

    #[test]
    fn a_series_iolab_writes_is_read_as_it_is() {
        let read: Series = serde_json::from_str(&series(MAX_READ_INTERVALS)).unwrap();
        assert_eq!(read.series.len(), MAX_READ_INTERVALS);
        assert_eq!(read.series[7].latency_p50_ns, Some(5));
    }

    #[test]
    fn a_long_series_is_coarsened_exactly_in_bytes_and_ops() {
        for count in [MAX_READ_INTERVALS + 1, 10_000, 100_001] {
            let read: Series = serde_json::from_str(&series(count)).unwrap();
            assert!(read.series.len() <= MAX_READ_INTERVALS, "{count}");
            assert_eq!(read.series.iter().map(|i| i.ops).sum::<u64>(), count as u64);
            assert_eq!(
                read.series.iter().map(|i| i.bytes).sum::<u64>(),
                10 * count as u64
            );
            // Groups of a power of two, in order: the steps are even.
            let step = read.series[1].start_s - read.series[0].start_s;
            assert!(
                read.series
                    .windows(2)
                    .all(|w| (w[1].start_s - w[0].start_s - step).abs() < 1e-9)
            );
            let group = read.series[0].ops;
            assert!(group.is_power_of_two() && group > 1, "{group}");
            assert_eq!(read.series[0].latency_max_ns, Some(group - 1));
            assert_eq!(read.series[0].latency_p50_ns, None, "not mergeable");
        }
    }
}
