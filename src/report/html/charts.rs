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

/// A point's block size (`blank_bs`) or file size.
fn size_of(point: &Point, blank_bs: bool) -> u64 {
    if blank_bs {
        point.workload.bs
    } else {
        point.workload.size
    }
}

/// A file's points by configuration over block size (`blank_bs`) or file
/// size, each named by its label without the size and in size order: the
/// configurations with at least two sizes.
fn size_groups(result: &ResultFile, blank_bs: bool) -> Vec<(String, Vec<&Point>)> {
    let mut groups: BTreeMap<String, (String, Vec<&Point>)> = BTreeMap::new();
    // A metadata workload has no file or block size to draw against.
    let charted = |p: &&Point| p.summary.is_some() && p.workload.work() != crate::plan::Work::Tree;
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
            points.sort_by_key(|p| size_of(p, blank_bs));
            // What all of a chart's series share is taken out after
            // (`name_by_what_varies`).
            let swept = format_size(size_of(points[0], blank_bs));
            let words: Vec<&str> = points[0]
                .label
                .split_whitespace()
                .filter(|word| *word != swept)
                .collect();
            let name = if words.is_empty() {
                name
            } else {
                words.join(" ")
            };
            (name, points)
        })
        .collect()
}

/// A file's throughput series over block size (`blank_bs`) or file size:
/// one per configuration with at least two sizes.
pub(super) fn size_series(result: &ResultFile, blank_bs: bool) -> Vec<Series> {
    size_groups(result, blank_bs)
        .into_iter()
        .map(|(name, points)| Series {
            name,
            marks: Vec::new(),
            style: None,
            points: points
                .iter()
                .map(|p| {
                    let t = &p.summary.as_ref().expect("charted").throughput_bps;
                    (
                        size_of(p, blank_bs) as f64,
                        mib_per_s(t.mean),
                        t.ci95_low.map(mib_per_s),
                        t.ci95_high.map(mib_per_s),
                    )
                })
                .collect(),
        })
        .collect()
}

/// p50 and p99 latency over the swept size, a colour per configuration
/// (p50 dashed): what a curve per point said, on the axis that answers.
fn latency_by_size(result: &ResultFile, blank_bs: bool, axis: &str) -> String {
    let groups = size_groups(result, blank_bs);
    let mut names: Vec<Series> = groups
        .iter()
        .map(|(name, _)| Series {
            name: name.clone(),
            ..Series::default()
        })
        .collect();
    name_by_what_varies(&mut names);
    let mut series = Vec::new();
    for (index, ((_, points), named)) in groups.iter().zip(&names).enumerate() {
        for (dash, percentile) in [(0, 99.0), (1, 50.0)] {
            let at: Vec<_> = points
                .iter()
                .filter_map(|p| {
                    let ns = p
                        .summary
                        .as_ref()?
                        .latency_ns
                        .as_ref()?
                        .percentile(percentile)?;
                    Some((size_of(p, blank_bs) as f64, ns as f64 / 1e3, None, None))
                })
                .collect();
            if at.len() >= 2 {
                series.push(Series {
                    name: format!("{} p{percentile}", named.name),
                    points: at,
                    marks: Vec::new(),
                    style: Some((index, dash)),
                });
            }
        }
    }
    if series.is_empty() {
        return String::new();
    }
    let scale = svg::XScale::measured_sizes(
        series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0 as u64)),
    );
    let mut html = String::new();
    for chunk in series.chunks(SERIES_PER_CHART) {
        html.push_str(&svg::line_chart(
            &format!("Latency p50 and p99 by {axis}"),
            axis,
            "µs",
            &scale,
            svg::YAxis::LatencyLog10,
            chunk,
        ));
    }
    html
}

/// Names each series by the words of its name the others do not all
/// share (`read qd1`, `read qd32` of two sweeps over iodepth), so a legend
/// says what varies ([`split_by_what_varies`](crate::report::table::split_by_what_varies)).
pub(super) fn name_by_what_varies(series: &mut [Series]) {
    let labels: Vec<String> = series.iter().map(|s| s.name.clone()).collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    let (_, names) = crate::report::table::split_by_what_varies(&labels);
    for (s, name) in series.iter_mut().zip(names) {
        s.name = name;
    }
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
        let scale = svg::XScale::measured_sizes(
            chunk
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0 as u64)),
        );
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
    let mut swept = false;
    for (blank_bs, title, axis) in SIZE_CHARTS {
        let mut series = size_series(result, blank_bs);
        name_by_what_varies(&mut series);
        swept |= !series.is_empty();
        html.push_str(&size_charts(&series, title, axis));
        html.push_str(&latency_by_size(result, blank_bs, axis));
    }
    html.push_str(&knee_chart(result));
    // Over a swept size, p50 and p99 against it say more than a curve per point.
    if !swept {
        html.push_str(&latency_curves(result));
    }
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
            style: None,
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
            style: None,
        },
        Series {
            name: format!("target: {}", knee.target),
            points: vec![(low, limit_us, None, None), (high, limit_us, None, None)],
            marks: Vec::new(),
            style: None,
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
            style: None,
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

/// The load a knee point's label names (`iodepth=32` → `32`, `qd32` →
/// `qd32`), or its last word: never the whole label, which would overlap.
pub(super) fn load_of(label: &str) -> String {
    let words = || label.split_whitespace();
    words()
        .find_map(|word| {
            ["iodepth=", "jobs=", "rate=", "rate-iops="]
                .iter()
                .find_map(|key| word.strip_prefix(key))
        })
        .or_else(|| {
            words().find(|word| {
                word.strip_prefix("qd")
                    .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            })
        })
        .or_else(|| words().last())
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
                style: None,
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

/// Per interval, of every measured repetition of each point with several
/// intervals: throughput, IOPS and p99 (a metadata workload's operations
/// per second instead); a colour per point, a dash per repetition.
pub(super) fn time_series(result: &ResultFile) -> String {
    let mut html = String::new();
    for measure in [
        Measure::Throughput,
        Measure::Iops,
        Measure::P99,
        Measure::Operations,
    ] {
        html.push_str(&interval_charts(result, measure));
    }
    html
}

/// What an interval chart draws.
#[derive(Clone, Copy, PartialEq)]
enum Measure {
    Throughput,
    Iops,
    P99,
    /// A metadata workload's operations per second.
    Operations,
}

fn interval_charts(result: &ResultFile, measure: Measure) -> String {
    let metadata = measure == Measure::Operations;
    let mut series = Vec::new();
    let points = result
        .points
        .iter()
        .filter(|p| (p.workload.work() == crate::plan::Work::Tree) == metadata)
        .take(POINTS_WITH_CURVES);
    for (index, p) in points.enumerate() {
        let measured: Vec<_> = p
            .repetitions
            .iter()
            .filter(|r| !r.warmup && r.status == crate::record::Status::Ok)
            .collect();
        for (number, repetition) in measured.iter().enumerate() {
            let Some(elapsed_ns) = repetition.elapsed_ns else {
                continue;
            };
            let elapsed_s = elapsed_ns as f64 / 1e9;
            // A long run's series is merged to fewer, longer intervals.
            let interval_s = repetition
                .series_interval_s
                .unwrap_or(p.workload.interval_s);
            // The last interval is as long as what was left of the run; a
            // sliver of one would plot as a spurious drop, so it is left out.
            let at: Vec<_> = repetition
                .series
                .iter()
                .filter_map(|i| {
                    let length = (elapsed_s - i.start_s).min(interval_s);
                    let value = match measure {
                        Measure::Throughput => mib_per_s(i.bytes as f64 / length),
                        Measure::Iops | Measure::Operations => i.ops as f64 / length,
                        Measure::P99 => i.latency_p99_ns? as f64 / 1e3,
                    };
                    (length >= interval_s / 2.0).then_some((i.start_s, value, None, None))
                })
                .collect();
            if at.len() >= 2 {
                series.push(Series {
                    name: match measured.len() {
                        1 => p.label.clone(),
                        _ => format!("{} repetition {}", p.label, number + 1),
                    },
                    points: at,
                    marks: Vec::new(),
                    style: Some((index, number)),
                });
            }
        }
    }
    let (title, unit, y_axis) = match measure {
        Measure::Throughput => ("Throughput per interval", "MiB/s", svg::YAxis::Linear),
        Measure::Iops => ("IOPS per interval", "IOPS", svg::YAxis::Linear),
        Measure::P99 => ("p99 latency per interval", "µs", svg::YAxis::LatencyLog10),
        Measure::Operations => ("Operations per interval", "ops/s", svg::YAxis::Linear),
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
        html.push_str(&svg::line_chart(title, "time", unit, &scale, y_axis, chunk));
    }
    html
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<Series> {
        names
            .iter()
            .map(|name| Series {
                name: (*name).to_string(),
                ..Series::default()
            })
            .collect()
    }

    #[test]
    fn a_legend_names_what_varies_and_keeps_names_that_would_collide() {
        let mut series = named(&[
            "read random uring qd1 direct file 64MiB",
            "read random uring qd32 direct file 64MiB",
        ]);
        name_by_what_varies(&mut series);
        assert_eq!(series[0].name, "qd1");
        assert_eq!(series[1].name, "qd32");
        let mut series = named(&[
            "read psync direct machine=host",
            "read psync direct machine=guest",
            "write psync direct machine=host",
        ]);
        name_by_what_varies(&mut series);
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "read machine=host",
                "read machine=guest",
                "write machine=host"
            ]
        );
        // Alike after the shared words go: left whole; the others not.
        let mut series = named(&["read a b", "read b a", "read c"]);
        name_by_what_varies(&mut series);
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a b", "b a", "c"]);
        let mut series = named(&["read a b", "read a b c", "read b a"]);
        name_by_what_varies(&mut series);
        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["read a b", "c", "read b a"]);
        // One series names itself.
        let mut series = named(&["read psync"]);
        name_by_what_varies(&mut series);
        assert_eq!(series[0].name, "read psync");
    }

    #[test]
    fn a_knee_point_is_marked_by_its_load_never_its_whole_label() {
        assert_eq!(load_of("read random 4KiB iodepth=32"), "32");
        assert_eq!(load_of("read random 4KiB uring qd64 direct"), "qd64");
        assert_eq!(load_of("read random 4KiB uring direct"), "direct");
    }
}
