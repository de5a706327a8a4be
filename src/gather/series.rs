//! A repetition's time series: the jobs' intervals brought to one length and summed (their connections' TCP counters too), each with its latency quantiles, and the sampler's device figures put beside the interval of the same index.

use super::activity;
use crate::plan::direction::{Direction, DirectionMix};
use crate::probe::sampler::Samples;
use crate::probe::tcp::TcpTraffic;
use crate::record::activity::AppWork;
use crate::record::histogram::new_histogram;
use crate::record::{Interval, IntervalDirection, TcpCounts};
use crate::run::io::recorder::{IntervalSample, JobOutcome, coarsen_series, merge_samples};
use hdrhistogram::Histogram;

/// Puts the sampler's device figures beside the series interval of the same
/// index. When the sampler saw one boundary more than the jobs (a region
/// ending right after a boundary), the remainder joins the last interval, so
/// the series still adds up to the repetition's activity. Ticks finer than
/// the series' `interval_ns` are thinned to its boundaries first.
pub(super) fn add_interval_devices(
    series: &mut [Interval],
    samples: &Samples,
    interval_ns: u64,
    directions: DirectionMix,
) {
    if series.is_empty() {
        return;
    }
    let factor = (interval_ns / samples.interval_ns.max(1)).max(1) as usize;
    let thinned;
    let samples = if factor > 1 {
        thinned = Samples {
            ticks: samples
                .ticks
                .iter()
                .skip(factor - 1)
                .step_by(factor)
                .cloned()
                .collect(),
            interval_ns,
            ..samples.clone()
        };
        &thinned
    } else {
        samples
    };
    let mut windows = samples.intervals();
    if windows.len() > series.len() {
        let last_start = windows[series.len() - 1].0;
        windows.truncate(series.len() - 1);
        windows.push((last_start, &samples.end));
    }
    for (interval, (from, to)) in series.iter_mut().zip(windows) {
        let app = AppWork {
            ops: interval.ops,
            bytes: interval.bytes,
            directions,
        };
        interval.devices = activity::devices(&samples.disks, from, to, app);
    }
}

/// Merges the jobs' interval samples by interval index into one series of
/// `interval_ns` intervals (each job's series coarsened to it first).
pub(super) fn series(jobs: &[JobOutcome], interval_ns: u64) -> Vec<Interval> {
    let interval_s = interval_ns as f64 * 1e-9;
    // A job that started later (its group's --start-delay or longer ramp)
    // has its intervals moved by the whole intervals it started after the
    // first job, so each interval holds what happened then.
    let first_start = jobs.iter().map(|j| j.start).min().unwrap_or(0);
    let coarsened: Vec<Vec<IntervalSample>> = jobs
        .iter()
        .map(|j| {
            let shift = (j.start.saturating_sub(first_start) / interval_ns.max(1)) as usize;
            let own = coarsen_series(&j.intervals, j.interval_ns, interval_ns);
            if shift == 0 || own.is_empty() {
                return own;
            }
            // Before it started, it moved nothing.
            let idle = IntervalSample {
                bytes: 0,
                ops: 0,
                latency_counts: Vec::new(),
                tcp: own[0].tcp.map(|_| TcpTraffic::default()),
                directions: vec![Default::default(); own[0].directions.len()],
            };
            std::iter::repeat_n(idle, shift).chain(own).collect()
        })
        .collect();
    let length = coarsened.iter().map(Vec::len).max().unwrap_or(0);
    let mut scratch = new_histogram();
    // The directions the jobs took: an interval keeps every direction's part.
    let taken: Vec<Direction> = jobs
        .iter()
        .flat_map(|job| job.directions.iter().map(|share| share.direction))
        .collect();
    (0..length)
        .map(|index| {
            // A job whose series ended early carried nothing in the interval.
            let client_tcp = tcp_sum(coarsened.iter().map(|j| match j.get(index) {
                Some(sample) => sample.tcp,
                None if j.first().is_some_and(|s| s.tcp.is_some()) => Some(TcpTraffic::default()),
                None => None,
            }));
            let samples: Vec<IntervalSample> = coarsened
                .iter()
                .filter_map(|j| j.get(index).cloned())
                .collect();
            let merged = merge_samples(&samples, &mut scratch);
            let [p50, p99, max] = quantiles(&merged.latency_counts, &mut scratch);
            let directions = merged
                .directions
                .iter()
                .zip(Direction::ALL)
                .filter(|(_, direction)| taken.contains(direction))
                .map(|(part, direction)| {
                    let [p50, p99, max] = quantiles(&part.latency_counts, &mut scratch);
                    IntervalDirection {
                        direction,
                        bytes: part.bytes,
                        ops: part.ops,
                        latency_p50_ns: p50,
                        latency_p99_ns: p99,
                        latency_max_ns: max,
                    }
                })
                .collect();
            Interval {
                start_s: index as f64 * interval_s,
                bytes: merged.bytes,
                ops: merged.ops,
                latency_p50_ns: p50,
                latency_p99_ns: p99,
                latency_max_ns: max,
                devices: Vec::new(),
                client_tcp,
                directions,
            }
        })
        .collect()
}

/// The median, 99th percentile and largest of latency pairs, through
/// `scratch` (left empty); none without a latency.
fn quantiles(pairs: &[(u64, u64)], scratch: &mut Histogram<u64>) -> [Option<u64>; 3] {
    for &(value, count) in pairs {
        scratch.saturating_record_n(value, count);
    }
    let recorded = !scratch.is_empty();
    let figures = [
        recorded.then(|| scratch.value_at_percentile(50.0)),
        recorded.then(|| scratch.value_at_percentile(99.0)),
        recorded.then(|| scratch.max()),
    ];
    scratch.reset();
    figures
}

/// Every connection's counters added up, or `None` when one is missing: a
/// partial sum would mislead.
pub(super) fn tcp_sum(mut parts: impl Iterator<Item = Option<TcpTraffic>>) -> Option<TcpCounts> {
    let mut any = false;
    let sum = parts.try_fold(TcpTraffic::default(), |sum, part| {
        any = true;
        Some(sum + part?)
    })?;
    any.then_some(TcpCounts {
        segs_out: sum.segs_out,
        segs_in: sum.segs_in,
        data_segs_out: sum.data_segs_out,
        data_segs_in: sum.data_segs_in,
        bytes_acked: sum.bytes_acked,
        bytes_received: sum.bytes_received,
        retransmits: sum.retransmits,
    })
}
