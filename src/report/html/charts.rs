//! The HTML report's charts: curves over a size axis, latency curves and histograms, the knee, per-interval time series — each an inline SVG from `report::svg`, with its figures as text beside it.

use super::super::svg::Series;
use super::super::units::{count, latency, mib_per_s, significant};
use super::SERIES_PER_CHART;
use crate::compare;
use crate::plan::Workload;
use crate::plan::units::format_size;
use crate::record::{Point, ResultFile};
use crate::report::svg;
use std::collections::BTreeMap;

/// The workload with one parameter blanked: the key of a chart series.
pub(super) fn series_key(workload: &Workload, blank_bs: bool) -> (String, String) {
    let mut w = workload.clone();
    if blank_bs {
        w.bs = 0;
    } else {
        w.size = 0;
    }
    let name = if blank_bs {
        format!(
            "{} {} file {}",
            w.op.name(),
            w.engine.name(),
            format_size(workload.size)
        ) + if w.direct { " direct" } else { "" }
    } else {
        format!(
            "{} {} {}",
            w.op.name(),
            w.engine.name(),
            format_size(workload.bs)
        ) + if w.direct { " direct" } else { "" }
    };
    (compare::match_key(&w), name)
}

/// The throughput-by-size charts' axes: (blank the block size, title, axis name).
pub(super) const SIZE_CHARTS: [(bool, &str, &str); 2] = [
    (true, "Throughput by block size", "block size"),
    (false, "Throughput by file size", "file size"),
];

/// A file's throughput series over block size (`blank_bs`) or file size:
/// one per configuration with at least two sizes.
pub(super) fn size_series(result: &ResultFile, blank_bs: bool) -> Vec<Series> {
    let mut groups: BTreeMap<String, (String, Vec<&Point>)> = BTreeMap::new();
    // A metadata workload has no file or block size to draw against.
    let charted = |p: &&Point| p.summary.is_some() && p.workload.items.is_none();
    for point in result.points.iter().filter(charted) {
        let (key, name) = series_key(&point.workload, blank_bs);
        groups
            .entry(key)
            .or_insert_with(|| (name, Vec::new()))
            .1
            .push(point);
    }
    groups
        .into_values()
        .filter(|(_, points)| points.len() >= 2)
        .map(|(name, mut points)| {
            let size_of = |p: &Point| {
                if blank_bs {
                    p.workload.bs
                } else {
                    p.workload.size
                }
            };
            points.sort_by_key(|p| size_of(p));
            Series {
                name,
                marks: Vec::new(),
                points: points
                    .iter()
                    .map(|p| {
                        let t = &p.summary.as_ref().expect("filtered").throughput_bps;
                        (
                            size_of(p) as f64,
                            mib_per_s(t.mean),
                            t.ci95_low.map(mib_per_s),
                            t.ci95_high.map(mib_per_s),
                        )
                    })
                    .collect(),
            }
        })
        .collect()
}

/// Line charts of `series` over a size axis, at most [`SERIES_PER_CHART`] each.
pub(super) fn size_charts(series: &[Series], title: &str, axis: &str) -> String {
    let mut html = String::new();
    for (part, chunk) in series.chunks(SERIES_PER_CHART).enumerate() {
        let title = if series.len() > SERIES_PER_CHART {
            format!("{title} ({})", part + 1)
        } else {
            title.to_string()
        };
        let xs = chunk
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0 as u64));
        let (min, max) = xs.fold((u64::MAX, 0), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let scale = svg::XScale::sizes(min, max);
        html.push_str(&svg::line_chart(
            &title,
            axis,
            "MiB/s",
            &scale,
            svg::YAxis::Linear,
            chunk,
        ));
    }
    html
}

pub(super) fn charts(result: &ResultFile) -> String {
    let mut html = String::new();
    for (blank_bs, title, axis) in SIZE_CHARTS {
        html.push_str(&size_charts(&size_series(result, blank_bs), title, axis));
    }
    html.push_str(&knee_chart(result));
    html.push_str(&latency_curves(result));
    html.push_str(&latency_histograms(result));
    html.push_str(&time_series(result));
    if !html.is_empty() {
        html.insert_str(0, "<h3>Charts</h3>");
    }
    html
}

/// Points with per-point charts: the first ones, so a large sweep's report stays small.
pub(super) const POINTS_WITH_CURVES: usize = 24;

/// Latency against percentile (x: 0, 90, 99, 99.9, 99.99 evenly spaced), per point.
pub(super) fn latency_curves(result: &ResultFile) -> String {
    let percentile_x = |p: f64| -(1.0 - p / 100.0).max(1e-6).log10();
    let series: Vec<Series> = result
        .points
        .iter()
        .filter_map(|p| Some((p, p.summary.as_ref()?.latency_ns.as_ref()?)))
        .take(POINTS_WITH_CURVES)
        .map(|(p, latency)| Series {
            name: p.label.clone(),
            marks: Vec::new(),
            points: latency
                .percentiles
                .iter()
                .map(|q| (percentile_x(q.percentile), q.value as f64 / 1e3, None, None))
                .collect(),
        })
        .collect();
    let scale = svg::XScale {
        log2: false,
        ticks: [0.0, 90.0, 99.0, 99.9, 99.99]
            .iter()
            .map(|p| (percentile_x(*p), format!("{p}%")))
            .collect(),
    };
    let mut html = String::new();
    for chunk in series.chunks(SERIES_PER_CHART) {
        html.push_str(&svg::line_chart(
            "Latency by percentile",
            "percentile",
            "µs",
            &scale,
            svg::YAxis::LatencyLog10,
            chunk,
        ));
    }
    html
}

/// A knee search's curve: the target's latency percentile against IOPS,
/// one mark per point in IOPS order, the target as a line and the knee as
/// a point of its own.
pub(super) fn knee_chart(result: &ResultFile) -> String {
    let Some(knee) = &result.knee else {
        return String::new();
    };
    // Each point marked with the load it ran at (iodepth=32 → "32").
    let mut steps: Vec<(f64, f64, String)> = knee
        .curve
        .iter()
        .map(|s| (s.iops, s.latency_ns as f64 / 1e3, load_of(&s.label)))
        .collect();
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (Some(first), Some(last)) = (steps.first(), steps.last()) else {
        return String::new();
    };
    let (low, high) = (first.0, last.0);
    let percentile = format!("p{}", knee.target.percentile);
    let limit_us = knee.target.limit_ns as f64 / 1e3;
    let mut series = vec![
        Series {
            name: format!("{percentile} of each point"),
            points: steps.iter().map(|&(x, y, _)| (x, y, None, None)).collect(),
            marks: steps.iter().map(|(_, _, load)| load.clone()).collect(),
        },
        Series {
            name: format!("target: {}", knee.target),
            points: vec![(low, limit_us, None, None), (high, limit_us, None, None)],
            marks: Vec::new(),
        },
    ];
    if let Some(step) = knee
        .chosen
        .as_deref()
        .and_then(|label| knee.curve.iter().find(|s| s.label == label))
    {
        series.push(Series {
            name: format!("knee: {}", step.label),
            points: vec![(step.iops, step.latency_ns as f64 / 1e3, None, None)],
            marks: Vec::new(),
        });
    }
    let ticks = svg::nice_ticks(low, high, 4)
        .into_iter()
        .map(|x| (x, count(x)))
        .collect();
    svg::line_chart(
        &format!("Knee search: {percentile} against IOPS"),
        "IOPS",
        "µs",
        &svg::XScale { log2: false, ticks },
        svg::YAxis::LatencyLog10,
        &series,
    )
}

/// The load a knee point's label names (`iodepth=32` → `32`), or the label.
pub(super) fn load_of(label: &str) -> String {
    label
        .split_whitespace()
        .find_map(|word| {
            ["iodepth=", "jobs=", "rate=", "rate-iops="]
                .iter()
                .find_map(|key| word.strip_prefix(key))
        })
        .unwrap_or(label)
        .to_string()
}

/// The latency distribution of each point: the share of its I/Os in each
/// power-of-two band of latency, from the merged histogram.
pub(super) fn latency_histograms(result: &ResultFile) -> String {
    let series: Vec<Series> = result
        .points
        .iter()
        .filter_map(|p| {
            let summary = p.summary.as_ref()?.latency_ns.as_ref()?;
            let histogram = crate::record::histogram::decode(&summary.histogram).ok()?;
            let total = histogram.len() as f64;
            let mut bands: BTreeMap<u32, u64> = BTreeMap::new();
            for value in histogram.iter_recorded() {
                let band = 63 - value.value_iterated_to().max(1).leading_zeros();
                *bands.entry(band).or_default() += value.count_at_value();
            }
            // Empty bands between the first and the last are drawn as 0, not skipped.
            let (first, last) = (*bands.keys().next()?, *bands.keys().last()?);
            (total > 0.0).then(|| Series {
                name: p.label.clone(),
                marks: Vec::new(),
                points: (first..=last)
                    .map(|band| {
                        let n = bands.get(&band).copied().unwrap_or(0);
                        ((1u64 << band) as f64, n as f64 / total * 100.0, None, None)
                    })
                    .collect(),
            })
        })
        .take(POINTS_WITH_CURVES)
        .collect();
    let mut html = String::new();
    for chunk in series.chunks(SERIES_PER_CHART) {
        let xs = chunk
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0 as u64));
        let (min, max) = xs.fold((u64::MAX, 0), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let ticks = svg::XScale::sizes(min, max)
            .ticks
            .into_iter()
            .map(|(x, _)| (x, latency(x)))
            .collect();
        let scale = svg::XScale { log2: true, ticks };
        html.push_str(&svg::line_chart(
            "Latency distribution (share of I/Os per power-of-two band)",
            "latency",
            "% of I/Os",
            &scale,
            svg::YAxis::Linear,
            chunk,
        ));
    }
    html
}

/// Throughput per interval of the first measured repetition, per point with several intervals.
pub(super) fn time_series(result: &ResultFile) -> String {
    // A metadata workload's series is of its operations, not its bytes.
    let mut html = interval_charts(result, false);
    html.push_str(&interval_charts(result, true));
    html
}

/// The per-interval charts of the data points (MiB/s), or with
/// `metadata` of the metadata points (operations per second).
fn interval_charts(result: &ResultFile, metadata: bool) -> String {
    let series: Vec<Series> = result
        .points
        .iter()
        .filter(|p| p.workload.items.is_some() == metadata)
        .filter_map(|p| {
            let repetition = p
                .repetitions
                .iter()
                .find(|r| !r.warmup && r.status == crate::record::Status::Ok)?;
            let elapsed_s = repetition.elapsed_ns? as f64 / 1e9;
            // A long run's series is merged to fewer, longer intervals.
            let interval_s = repetition
                .series_interval_s
                .unwrap_or(p.workload.interval_s);
            // The last interval is as long as what was left of the run; a
            // sliver of one would plot as a spurious drop, so it is left out.
            let points: Vec<_> = repetition
                .series
                .iter()
                .filter_map(|i| {
                    let length = (elapsed_s - i.start_s).min(interval_s);
                    let rate = if metadata {
                        i.ops as f64 / length
                    } else {
                        mib_per_s(i.bytes as f64 / length)
                    };
                    (length >= interval_s / 2.0).then_some((i.start_s, rate, None, None))
                })
                .collect();
            (points.len() >= 2).then(|| Series {
                name: p.label.clone(),
                points,
                marks: Vec::new(),
            })
        })
        .take(POINTS_WITH_CURVES)
        .collect();
    let (title, unit) = if metadata {
        ("Operations per interval (first repetition)", "ops/s")
    } else {
        ("Throughput per interval (first repetition)", "MiB/s")
    };
    let mut html = String::new();
    for chunk in series.chunks(SERIES_PER_CHART) {
        let end = chunk
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .fold(0.0f64, f64::max);
        let ticks = svg::nice_ticks(0.0, end.max(f64::MIN_POSITIVE), 5)
            .into_iter()
            .map(|t| (t, format!("{} s", significant(t))))
            .collect();
        let scale = svg::XScale { log2: false, ticks };
        html.push_str(&svg::line_chart(
            title,
            "time",
            unit,
            &scale,
            svg::YAxis::Linear,
            chunk,
        ));
    }
    html
}
