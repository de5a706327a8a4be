//! Comparing result files: points matched by workload, ratios with intervals and verdicts from one rule (Welch's test, Fieller's interval at its level), grids and the environment difference.
//!
//! The comparison reads only result files; it is the analysis stage for
//! several runs, as `stats` is for one.

use crate::plan::Workload;
use crate::plan::param::Param;
use crate::record::{Point, ResultFile};
use serde::Serialize;
use std::collections::BTreeMap;

pub mod equivalence;
pub mod metric;
mod ratio;
pub use metric::{Figure, Metric};
pub use ratio::compare_point;

/// The significance level when none is given (`--alpha`): 5%, a 95% interval.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// Which way ratios are expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
pub enum Orientation {
    /// other / base: above 1 means the other file's value is larger.
    #[value(name = "other/base")]
    #[serde(rename = "other/base")]
    OtherOverBase,
    /// base / other, as the UPC IOzone study divides the base OS's figure by the VM's.
    #[value(name = "base/other")]
    #[serde(rename = "base/other")]
    BaseOverOther,
}

/// The outcome of one matched point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The other file is better, significantly (faster, or less latency or CPU).
    Better,
    /// The other file is worse, significantly.
    Worse,
    /// No significant difference at the chosen level.
    NoSignificantDifference,
    /// Fewer than two repetitions on a side: no test possible.
    TooFewRepetitions,
}

/// One side of a matched point.
#[derive(Clone, Debug, Serialize)]
pub struct Side {
    /// Repetitions with a value.
    pub n: usize,
    /// Their mean.
    pub mean: f64,
}

/// One matched point.
#[derive(Clone, Debug, Serialize)]
pub struct Matched {
    /// The base file's label of the point.
    pub label: String,
    /// The base's workload.
    pub workload: Workload,
    /// The base file's figures.
    pub base: Side,
    /// The other file's figures.
    pub other: Side,
    /// The ratio in the chosen orientation.
    pub ratio: f64,
    /// Its interval at confidence 1 − α: Fieller's, with Welch's degrees of
    /// freedom, so that it excludes 1 exactly when the verdict is a
    /// significant difference; absent with n < 2 or when unbounded.
    pub ratio_low: Option<f64>,
    /// Upper end.
    pub ratio_high: Option<f64>,
    /// The interval is unbounded: the denominator's mean is not known to
    /// differ from zero at this level.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ratio_unbounded: bool,
    /// The test's two-sided p-value (Welch's, or paired by round); absent
    /// with n < 2.
    pub p_value: Option<f64>,
    /// When both points were measured in the same rounds (two or more: a
    /// guest's boots, A B | B A), the number of rounds: the ratio is then
    /// the geometric mean of the per-round ratios, its interval a t
    /// interval of their logarithms (never below zero) and the verdict
    /// that interval's test, since each round pairs the two sides.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paired_rounds: Option<usize>,
    /// The order the two sides ran in, round by round, from each
    /// repetition's sequence number (`"AB"`: the base's first measured
    /// repetition of the round ran before the other's); absent when either
    /// side has no rounds or no sequence numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub executed_order: Option<Vec<String>>,
    /// How much better the other file is, percent of the base (see
    /// [`Metric::delta_definition`]), from `ratio` itself (so paired, from
    /// the geometric mean of the rounds' ratios): (other/base − 1) × 100
    /// for throughput and IOPS; (1 − other/base) × 100 for time, latency
    /// and CPU — for time, the "% faster" of the O_DIRECT study, never
    /// above 100.
    pub delta_percent: f64,
    /// The verdict at the chosen level.
    pub verdict: Verdict,
    /// The identifying parameters the other point differs in (`engine
    /// uring → psync`): those `--ignore` or `--by` let differ.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub differs: Vec<String>,
    /// With `--margin`: whether the two are equivalent within it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub equivalence: Option<equivalence::Equivalence>,
}

/// One fact of the environment that differs.
#[derive(Clone, Debug, Serialize)]
pub struct Difference {
    /// Where it is, such as `environment.kernel`.
    pub field: String,
    /// In the base file.
    pub base: String,
    /// In the other file.
    pub other: String,
}

/// The base file against one other file.
#[derive(Clone, Debug, Serialize)]
pub struct Pairing {
    pub file: String,
    /// What differs in tool and environment.
    pub environment: Vec<Difference>,
    /// Matched points, in the base file's order.
    pub matched: Vec<Matched>,
    /// Base points the other file lacks.
    pub only_in_base: Vec<String>,
    /// Other points the base file lacks.
    pub only_in_other: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub metric: Metric,
    pub alpha: f64,
    /// The ratio's orientation.
    pub orientation: Orientation,
    pub base: String,
    /// One entry per other file.
    pub pairings: Vec<Pairing>,
}

/// The parameters that identify a workload: those of how long and how often
/// it was measured (runtime, ramp, repetitions, interval, steady-state rule)
/// do not, so a one-pass fio job matches a time-based iolab run of the same I/O.
pub fn match_key(workload: &Workload) -> String {
    let mut key = workload.clone();
    for param in Param::ALL.iter().filter(|p| !p.identifies()) {
        param.reset(&mut key);
    }
    key.repeat = 1;
    key.warmup = 0;
    key.until_ci = None;
    key.max_repeat = None;
    key.interval_s = 1.0;
    key.steady = None;
    key.same_draws = false;
    serde_json::to_string(&key).expect("a workload serializes")
}

/// Compares `base` with `other` point by point.
pub fn pair(
    base: &ResultFile,
    other: &ResultFile,
    other_name: &str,
    metric: Metric,
    alpha: f64,
    orientation: Orientation,
) -> Pairing {
    pair_by(
        base,
        other,
        other_name,
        metric,
        alpha,
        orientation,
        &match_key,
    )
}

/// [`match_key`] without the parameters in `ignored` (serde field names): the
/// key that matches, inside one file, the points that differ only in them.
pub fn key_without(workload: &Workload, ignored: &[String]) -> String {
    let mut value =
        serde_json::from_str::<serde_json::Value>(&match_key(workload)).expect("a key is JSON");
    if let Some(map) = value.as_object_mut() {
        for field in ignored {
            map.remove(field);
        }
    }
    value.to_string()
}

/// Adds the equivalence within `margin` to every matched point of
/// `pairing` (made from `base` and `other` by `key`).
pub fn judge_equivalence(
    pairing: &mut Pairing,
    (base, other): (&ResultFile, &ResultFile),
    key: &dyn Fn(&Workload) -> String,
    (metric, orientation, margin): (Metric, Orientation, f64),
) {
    for matched in &mut pairing.matched {
        let wanted = key(&matched.workload);
        let b = base
            .points
            .iter()
            .find(|p| p.label == matched.label && key(&p.workload) == wanted);
        let o = b.and_then(|b| {
            let wanted = point_key(key, b);
            other.points.iter().find(|p| point_key(key, p) == wanted)
        });
        if let (Some(b), Some(o)) = (b, o) {
            matched.equivalence = Some(equivalence::judge(b, o, &metric, orientation, margin));
        }
    }
}

/// What matches a point with its counterpart: `key` of its workload, and
/// for a point of groups each group's name and `key` of its workload.
fn point_key(key: &dyn Fn(&Workload) -> String, point: &Point) -> String {
    let mut text = key(&point.workload);
    for group in &point.groups {
        text.push_str(&format!("|{}={}", group.label, key(&group.workload)));
    }
    text
}

/// As [`pair`], matching points by `key`.
pub fn pair_by(
    base: &ResultFile,
    other: &ResultFile,
    other_name: &str,
    metric: Metric,
    alpha: f64,
    orientation: Orientation,
    key: &dyn Fn(&Workload) -> String,
) -> Pairing {
    let others: BTreeMap<String, &Point> = other
        .points
        .iter()
        .map(|p| (point_key(key, p), p))
        .collect();
    let bases: BTreeMap<String, &Point> =
        base.points.iter().map(|p| (point_key(key, p), p)).collect();
    let mut matched = Vec::new();
    let mut only_in_base = Vec::new();
    for point in &base.points {
        match others.get(&point_key(key, point)) {
            Some(counterpart) => {
                if let Some(m) = compare_point(point, counterpart, &metric, alpha, orientation) {
                    matched.push(m);
                } else {
                    only_in_base.push(format!(
                        "{} (no completed repetition on one side)",
                        point.label
                    ));
                }
            }
            None => only_in_base.push(point.label.clone()),
        }
    }
    let only_in_other = other
        .points
        .iter()
        .filter(|p| !bases.contains_key(&point_key(key, p)))
        .map(|p| p.label.clone())
        .collect();
    Pairing {
        file: other_name.to_string(),
        environment: environment_difference(base, other),
        matched,
        only_in_base,
        only_in_other,
    }
}

fn flatten(prefix: &str, value: &serde_json::Value, out: &mut BTreeMap<String, String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                flatten(&format!("{prefix}.{key}"), inner, out);
            }
        }
        serde_json::Value::Array(items) => {
            let scalars = items.iter().all(|i| !i.is_object() && !i.is_array());
            if scalars {
                let text: Vec<String> = items.iter().map(scalar_text).collect();
                out.insert(prefix.to_string(), text.join(", "));
            } else {
                for (index, inner) in items.iter().enumerate() {
                    flatten(&format!("{prefix}[{index}]"), inner, out);
                }
            }
        }
        scalar => {
            out.insert(prefix.to_string(), scalar_text(scalar));
        }
    }
}

/// A scalar as a person reads it: a string as it is (its own quotes and
/// backslashes kept, not JSON's escapes), a number or a boolean as JSON writes it.
fn scalar_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// What an environment difference shows for a fact one file does not hold.
pub const ABSENT: &str = "(absent)";

/// What would match two files' nearest points: the points, what they
/// differ in (`engine (psync vs uring), iodepth (1 vs 4)`) and the
/// parameters to ignore, those already ignored (`ignored`, result-file
/// fields) first (`engine,iodepth`); `None` when no two points differ
/// only in workload parameters.
pub fn ignore_to_match<'a>(
    base: &'a ResultFile,
    other: &'a ResultFile,
    ignored: &[String],
) -> Option<(&'a Point, &'a Point, String, String)> {
    let (a, b, differing) = nearest_points(base, other)?;
    if differing.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = ignored
        .iter()
        .filter_map(|field| {
            Param::ALL
                .iter()
                .find(|p| p.field() == field)
                .map(|p| p.name())
        })
        .collect();
    for (name, _, _) in &differing {
        if !names.contains(name) {
            names.push(name);
        }
    }
    let said = differing
        .iter()
        .map(|(name, x, y)| format!("{name} ({x} vs {y})"))
        .collect::<Vec<_>>()
        .join(", ");
    Some((a, b, said, names.join(",")))
}

/// A workload parameter two points differ in: its name, the base's value
/// and the other's.
pub type Differing = (&'static str, String, String);

/// The point of `base` and the point of `other` that differ in the fewest
/// workload parameters, with those parameters (name, base's, other's):
/// what a comparison that matched nothing would match with `--ignore`.
fn nearest_points<'a>(
    base: &'a ResultFile,
    other: &'a ResultFile,
) -> Option<(&'a Point, &'a Point, Vec<Differing>)> {
    base.points
        .iter()
        .flat_map(|a| other.points.iter().map(move |b| (a, b)))
        .map(|(a, b)| (a, b, parameters_differing(&a.workload, &b.workload)))
        .min_by_key(|(_, _, differing)| differing.len())
}

/// The identifying parameters in which two workloads differ, as
/// `(flag, base value, other value)`, in the table's order.
pub fn parameters_differing(
    base: &Workload,
    other: &Workload,
) -> Vec<(&'static str, String, String)> {
    Param::ALL
        .iter()
        .filter(|param| param.identifies())
        .filter_map(|&param| {
            let shown = |w: &Workload| {
                param
                    .value_in(w)
                    .map_or_else(|| "none".to_string(), |v| param.format_value(v))
            };
            let (a, b) = (shown(base), shown(other));
            (a != b).then_some((param.name(), a, b))
        })
        .collect()
}

/// The tool and environment facts that differ between two files.
pub fn environment_difference(base: &ResultFile, other: &ResultFile) -> Vec<Difference> {
    let facts = |file: &ResultFile| {
        let mut map = BTreeMap::new();
        flatten(
            "tool",
            &serde_json::to_value(&file.tool).expect("serializes"),
            &mut map,
        );
        flatten(
            "environment",
            &serde_json::to_value(&file.environment).expect("serializes"),
            &mut map,
        );
        // The guest's definition and what it measured in: two guest files
        // differ there when they mounted other stacks (NFS sync or async, iSCSI).
        if let Some(guest) = &file.guest {
            flatten(
                "guest.spec",
                &serde_json::to_value(&guest.spec).expect("serializes"),
                &mut map,
            );
            for (field, value) in [
                ("guest.device", &guest.device),
                ("guest.filesystem", &guest.filesystem),
            ] {
                if let Some(value) = value {
                    map.insert(field.to_string(), value.clone());
                }
            }
        }
        map
    };
    let (a, b) = (facts(base), facts(other));
    let absent = ABSENT.to_string();
    let mut fields: Vec<&String> = a.keys().chain(b.keys()).collect();
    fields.sort();
    fields.dedup();
    fields
        .into_iter()
        .filter(|f| a.get(*f) != b.get(*f))
        .filter(|f| !measured_alike(f, a.get(*f), b.get(*f)))
        .map(|f| Difference {
            field: f.clone(),
            base: a.get(f).unwrap_or(&absent).clone(),
            other: b.get(f).unwrap_or(&absent).clone(),
        })
        .collect()
}

/// Measured facts vary from run to run with the machine's load: the
/// memory-copy bandwidth by a third on a busy VM, so it is left out of the
/// difference; a clock read's cost differs by far more between clock
/// sources (a TSC's 20–50 ns against an HPET's 0.5–1 µs) than between
/// runs, so it differs only beyond a factor of two.
fn measured_alike(field: &str, a: Option<&String>, b: Option<&String>) -> bool {
    let number = |side: Option<&String>| side.and_then(|text| text.parse::<f64>().ok());
    match field {
        "environment.memcpy_bps" => true,
        "environment.clock_read_ns" => match (number(a), number(b)) {
            (Some(a), Some(b)) if a > 0.0 && b > 0.0 => a.max(b) / a.min(b) < 2.0,
            _ => false,
        },
        _ => false,
    }
}

/// Matched points that form a grid of file size × record size, grouped by
/// everything else (one group per op and setting), when a group has at least
/// two sizes and two record sizes.
pub fn grids(matched: &[Matched]) -> Vec<(String, Vec<&Matched>)> {
    let mut groups: BTreeMap<String, Vec<&Matched>> = BTreeMap::new();
    let mut order = Vec::new();
    for m in matched {
        let mut rest = m.workload.clone();
        rest.size = 0;
        rest.bs = 0;
        let key = match_key(&rest);
        if !groups.contains_key(&key) {
            order.push((key.clone(), m.label.clone()));
        }
        groups.entry(key).or_default().push(m);
    }
    order
        .into_iter()
        .filter_map(|(key, label)| {
            let cells = groups.remove(&key)?;
            let sizes: std::collections::BTreeSet<u64> =
                cells.iter().map(|m| m.workload.size).collect();
            let blocks: std::collections::BTreeSet<u64> =
                cells.iter().map(|m| m.workload.bs).collect();
            (sizes.len() >= 2 && blocks.len() >= 2)
                .then(|| (grid_title(&label, &cells[0].workload), cells))
        })
        .collect()
}

fn grid_title(label: &str, workload: &Workload) -> String {
    // The label without its record and file size: "write seq psync".
    let bs = crate::plan::units::format_size(workload.bs);
    let size = crate::plan::units::format_size(workload.size);
    label
        .replace(&format!(" file {size}"), "")
        .replace(&format!(" {bs} "), " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_with_quotes_reads_as_written_not_as_json() {
        let mut out = BTreeMap::new();
        let evidence = serde_json::json!({
            "evidence": ["cpuid leaf 0x40000000: \"KVMKVMKVM\"", "dmi: QEMU"],
            "cpus": 2,
        });
        flatten("virtualization", &evidence, &mut out);
        assert_eq!(
            out["virtualization.evidence"],
            "cpuid leaf 0x40000000: \"KVMKVMKVM\", dmi: QEMU"
        );
        assert_eq!(out["virtualization.cpus"], "2");
    }

    #[test]
    fn a_clock_reads_cost_differs_between_clock_sources_not_between_runs() {
        let alike = |a: &str, b: &str| {
            measured_alike(
                "environment.clock_read_ns",
                Some(&a.to_string()),
                Some(&b.to_string()),
            )
        };
        assert!(alike("26.8", "31.5"), "two runs on one TSC");
        assert!(!alike("26.8", "740"), "a TSC against a guest's HPET");
        assert!(!alike("26.8", "-"), "one side unknown");
    }

    #[test]
    fn delta_is_the_studys_percent_direct_faster_for_time() {
        // The O_DIRECT study's own rows: (normal, direct) → % direct faster.
        for (normal, direct, published) in [
            (0.262, 0.254, 3.05),
            (0.398, 0.376, 5.53),
            (0.429, 0.141, 67.13),
            (0.279, 0.296, -6.09),
            (1.838, 1.860, -1.2),
            (14.682, 14.610, 0.49),
        ] {
            let delta = Metric::from(Figure::Time).delta_percent(normal, direct);
            assert!(
                (delta - published).abs() < 0.01,
                "{normal} {direct}: {delta}"
            );
        }
        // Throughput: the same runs as rates give the same sign.
        let (normal, direct) = (1.0 / 0.429, 1.0 / 0.141);
        assert!(Metric::from(Figure::Throughput).delta_percent(normal, direct) > 0.0);
        assert!(
            Metric::from(Figure::P99).delta_percent(2.0, 1.0) > 0.0,
            "lower latency is better"
        );
    }

    #[test]
    fn the_time_metric_is_the_timed_regions_length() {
        let result = crate::record::write::parse(
            include_str!("../../fuzz/seeds/result_file/run.json"),
            "run.json",
        )
        .unwrap();
        let point = &result.points[0];
        let times = Metric::from(Figure::Time).values(point);
        let expected: Vec<f64> = point
            .measured()
            .filter_map(|r| r.elapsed_ns)
            .map(|ns| ns as f64 * 1e-9)
            .collect();
        assert!(!times.is_empty());
        assert_eq!(times, expected);
    }

    #[test]
    fn the_key_ignores_how_a_point_was_measured() {
        let mut a = crate::plan::example_workload();
        let mut b = a.clone();
        b.repeat = 5;
        b.interval_s = 0.1;
        b.until_ci = Some(0.02);
        assert_eq!(match_key(&a), match_key(&b));
        a.bs *= 2;
        assert_ne!(match_key(&a), match_key(&b));
    }
}
