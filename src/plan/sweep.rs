//! Sweeps: parameter axes (lists and ranges), their cross product in IOzone's order, and the constraints that drop points.
//!
//! An axis is written as on the command line: `4k,64k,1m`, a doubling range
//! `512..1m`, or a range with a step, `0..99/+1` (add) or `1..1000/*10`
//! (multiply). Points are ordered so the ops of one file run together, write
//! before rewrite before read before reread (IOzone's order), with the file
//! size outside the record size.

pub mod groups;

use super::constraint::Constraint;
pub use super::param::{Operand, Param, Value};
use super::units::format_size;
use super::{PlannedPoint, UsageError, Workload};
use crate::usage;
use std::collections::HashSet;

/// The most points one axis may expand to; beyond it the spec is surely a mistake.
pub const MAX_AXIS_VALUES: usize = 100_000;
/// The most points a sweep may have.
pub const MAX_POINTS: usize = 100_000;

/// The values one parameter takes in a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub param: Param,
    /// Its values, in the order they run.
    pub values: Vec<Value>,
}

/// The values of an axis as written, split at its commas; the shares of a
/// mix (`read=70,write=30`) hold commas of their own, so consecutive shares
/// are one value until they make a whole mix, or name every direction (then
/// the value's parse says what is wrong with it); so may a zoned pattern's
/// zones (`zoned:60/10,40/90`): a zone joins the value before it; and a
/// block-size split's sizes (`4k=60,64k=40`) are one value until they
/// add up to a whole split.
fn axis_items(param: Param, spec: &str) -> Vec<String> {
    let items = spec.split(',').map(str::to_string);
    if param.kind() == super::param::Kind::Pattern {
        let mut values: Vec<String> = Vec::new();
        for item in items {
            match values.last_mut() {
                Some(last)
                    if last.trim_start().starts_with("zoned:")
                        && item.contains('/')
                        && !item.contains(':') =>
                {
                    last.push(',');
                    last.push_str(&item);
                }
                _ => values.push(item),
            }
        }
        return values;
    }
    let kind = param.kind();
    if matches!(kind, super::param::Kind::Rate | super::param::Kind::Iops) {
        return rate_items(items);
    }
    if kind != super::param::Kind::Mix && kind != super::param::Kind::Split {
        return items.collect();
    }
    let mut values = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for item in items {
        pending.push(item);
        let joined = pending.join(",");
        if joined.trim().is_empty()
            || param.parse_value(&joined).is_ok()
            || (kind == super::param::Kind::Mix
                && pending.len() == super::direction::Direction::ALL.len())
        {
            values.push(joined);
            pending.clear();
        }
    }
    if !pending.is_empty() {
        values.push(pending.join(","));
    }
    values
}

/// A rate axis's values: rates per direction (`read=700,write=300`) are
/// one value until a direction comes again, which starts the next.
fn rate_items(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    for item in items {
        let name = item
            .split_once('=')
            .map(|(name, _)| name.trim().to_ascii_lowercase());
        match (name, values.last_mut()) {
            (Some(name), Some(last)) if !named.is_empty() && !named.contains(&name) => {
                last.push(',');
                last.push_str(&item);
                named.push(name);
            }
            (Some(name), _) => {
                values.push(item);
                named = vec![name];
            }
            (None, _) => {
                values.push(item);
                named.clear();
            }
        }
    }
    values
}

/// Parses an axis specification such as `4k,64k`, `512..1m` or `0..9/+1`.
pub fn parse_axis(param: Param, spec: &str) -> Result<Axis, UsageError> {
    let flag = param.name();
    let mut values = Vec::new();
    for item in axis_items(param, spec) {
        let item = item.trim();
        if item.is_empty() {
            return Err(usage!(
                "--{flag} '{spec}': an axis needs a value between every comma"
            ));
        }
        match item.split_once("..") {
            Some((low, high)) if param.ranged() => expand_range(param, low, high, &mut values)
                .map_err(|e| usage!("--{flag} '{item}': {e}"))?,
            Some(_) => {
                return Err(usage!(
                    "--{flag} '{item}': ranges apply to sizes, counts and durations"
                ));
            }
            None => values.push(
                param
                    .parse_value(item)
                    .map_err(|e| usage!("--{flag} {item}: {e}"))?,
            ),
        }
        if values.len() > MAX_AXIS_VALUES {
            return Err(usage!(
                "--{flag} '{spec}' has more than {MAX_AXIS_VALUES} values"
            ));
        }
    }
    if param == Param::Op {
        // IOzone's order whatever the order given, and mdtest's for a
        // tree's ops ([`Op::sequence_rank`]).
        let rank = |v: &Value| match v {
            Value::Op(op) => op.sequence_rank(),
            _ => None,
        };
        values.sort_by_key(rank);
    }
    let mut unique = Vec::new();
    for value in values {
        if !unique.contains(&value) {
            unique.push(value);
        }
    }
    Ok(Axis {
        param,
        values: unique,
    })
}

fn expand_range(
    param: Param,
    low: &str,
    high: &str,
    values: &mut Vec<Value>,
) -> Result<(), String> {
    let (high, step) = match high.split_once('/') {
        Some((high, step)) => (high, Some(step.trim())),
        None => (high, None),
    };
    let number = |v: Value| match v {
        Value::Number(n) => n as f64,
        Value::Seconds(s) => s,
        _ => unreachable!("ranged parameters are numeric"),
    };
    let start = number(param.parse_value(low)?);
    let end = number(param.parse_value(high)?);
    if start > end {
        return Err(format!("the range runs backwards ({low} is above {high})"));
    }
    let (add, factor) = match step {
        None => (0.0, 2.0),
        Some(step) => match (step.strip_prefix('+'), step.strip_prefix('*')) {
            (Some(n), _) => (step_size(param, n)?, 1.0),
            (_, Some(n)) => (
                0.0,
                n.trim()
                    .parse::<f64>()
                    .map_err(|_| format!("'{step}' is not a step"))?,
            ),
            _ => return Err(format!("step '{step}' must be +N or *N")),
        },
    };
    if add <= 0.0 && factor <= 1.0 {
        return Err("the step does not advance".to_string());
    }
    if add == 0.0 && start <= 0.0 {
        return Err("a multiplying range cannot start at 0".to_string());
    }
    let mut value = start;
    while value <= end * (1.0 + 1e-12) {
        let text = match param.kind() {
            super::param::Kind::Duration { .. } => format!("{value}s"),
            _ => format!("{}", value.round() as u64),
        };
        // Each value is checked as if given alone: a range may not step
        // outside what the parameter accepts.
        values.push(param.parse_value(&text)?);
        if values.len() > MAX_AXIS_VALUES {
            return Err(format!("more than {MAX_AXIS_VALUES} values"));
        }
        value = value * factor + add;
    }
    Ok(())
}

/// The amount an adding step (`+4k`, `+1`, `+500ms`) adds, in the
/// parameter's unit; zero is let through to be refused as not advancing.
fn step_size(param: Param, text: &str) -> Result<f64, String> {
    use super::param::Kind;
    let text = text.trim();
    match param.kind() {
        Kind::Size | Kind::Offset | Kind::Rate => super::units::parse_size(text).map(|n| n as f64),
        Kind::Duration { .. } => super::units::parse_duration(text).map(|d| d.as_secs_f64()),
        _ => text
            .parse::<u64>()
            .map(|n| n as f64)
            .map_err(|_| format!("'{text}' is not a whole number")),
    }
}

/// A grid: fixed parameters in `base`, varying ones in `axes`.
#[derive(Clone, Debug)]
pub struct Sweep {
    /// Every parameter that does not vary, defaults applied.
    pub base: Workload,
    /// The parameters that vary, in any order (expansion nests them in [`Param::ALL`]'s order).
    pub axes: Vec<Axis>,
    /// Conditions every point must meet.
    pub constraints: Vec<Constraint>,
    /// Put before every point's label (a study's sweep label).
    pub label: Option<String>,
    /// A sweep of points of job groups: each group's own values and axes
    /// over `base` and `axes` (a study's `[[sweep.group]]`); empty for
    /// points of one workload.
    pub groups: Vec<groups::GroupSweep>,
}

impl Sweep {
    /// The points of the grid, in running order. Parameters that do not apply
    /// to a point (iodepth and batch without io_uring; sync and fsync for
    /// reads) are left at their defaults there, and the duplicates this makes
    /// are run once. Points with a record larger than the file are dropped
    /// (IOzone's rule); an empty result is an error.
    pub fn expand(&self) -> Result<Vec<PlannedPoint>, UsageError> {
        if !self.groups.is_empty() {
            return groups::expand(self);
        }
        let mut axes: Vec<&Axis> = self.axes.iter().collect();
        axes.sort_by_key(|axis| Param::ALL.iter().position(|p| *p == axis.param));
        for axis in &axes {
            if axis.values.is_empty() {
                return Err(usage!(
                    "--{}: an axis needs at least one value",
                    axis.param.name()
                ));
            }
        }
        // Saturating: a product of several large axes must be refused, not overflow.
        let total = axes.iter().fold(1usize, |total, axis| {
            total.saturating_mul(axis.values.len())
        });
        if total > MAX_POINTS {
            return Err(usage!(
                "the sweep has {total} points, more than {MAX_POINTS}"
            ));
        }
        let varying: Vec<Param> = axes.iter().map(|a| a.param).collect();
        let mut seen = HashSet::new();
        let mut points = Vec::new();
        let mut dropped_by_constraint = 0;
        let mut index = vec![0usize; axes.len()];
        for _ in 0..total {
            let mut workload = self.base.clone();
            for (axis, &i) in axes.iter().zip(&index) {
                axis.param.apply(&mut workload, axis.values[i]);
            }
            advance(&mut index, &axes);
            normalize(&mut workload, &self.base);
            if workload.largest_io() > workload.size {
                continue;
            }
            if !self.constraints.iter().all(|c| c.holds(&workload)) {
                dropped_by_constraint += 1;
                continue;
            }
            let key = serde_json::to_string(&workload).expect("a workload serializes");
            if !seen.insert(key) {
                continue;
            }
            let label = label(&workload, &varying, self.label.as_deref());
            workload
                .validate()
                .map_err(|e| usage!("point '{label}': {e}"))?;
            points.push(PlannedPoint::alone(label, workload));
        }
        if points.is_empty() {
            let why = if dropped_by_constraint > 0 {
                format!(
                    "the constraints {} remove every point",
                    self.constraints
                        .iter()
                        .map(|c| format!("'{}'", c.text()))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                "every point has a block size larger than its file".to_string()
            };
            return Err(usage!("the sweep is empty: {why}"));
        }
        Ok(points)
    }
}

/// Steps the odometer of axis indices, innermost (last) axis fastest.
pub(super) fn advance(index: &mut [usize], axes: &[&Axis]) {
    for position in (0..index.len()).rev() {
        index[position] += 1;
        if index[position] < axes[position].values.len() {
            return;
        }
        index[position] = 0;
    }
}

/// Puts parameters that mean nothing for this point back to their base values.
pub(super) fn normalize(workload: &mut Workload, base: &Workload) {
    if !workload.engine.capabilities().polled_submission {
        workload.sq_poll = false;
    }
    if !workload.engine.capabilities().queued {
        workload.iodepth = 1;
        workload.batch = 1;
        workload.reap = 0;
    } else if workload.batch > workload.iodepth {
        workload.batch = workload.iodepth.min(base.batch.max(1));
    }
    // Reads keep --sync: a study opened them O_RDONLY|O_SYNC (Linux gives
    // that no effect on reads, and the sync-on-read check says so).
    if !workload.op.writes() {
        workload.fsync_every = 0;
        workload.fsync_end = false;
    }
    if workload.fsync_every == 0 {
        workload.fsync_data = false;
    }
}

/// `write seq 4KiB psync file 64KiB` plus `name=value` for varying
/// parameters the description leaves out, after the sweep's own label.
fn label(workload: &Workload, varying: &[Param], prefix: Option<&str>) -> String {
    let mut text = workload.describe();
    // A metadata workload's files are its tree's, described already; a
    // trace's file is sized to the trace.
    if workload.items.is_none() && workload.trace.is_none() {
        text.push_str(&format!(" file {}", format_size(workload.size)));
    }
    for param in varying.iter().filter(|p| !p.described()) {
        if let Some(value) = param.value_in(workload) {
            text.push_str(&format!(" {}={}", param.name(), param.format_value(value)));
        }
    }
    match prefix {
        Some(prefix) => format!("{prefix}: {text}"),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Op, example_workload};

    fn sizes(axis: &Axis) -> Vec<u64> {
        axis.values
            .iter()
            .map(|v| match v {
                Value::Number(n) => *n,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn zoned_axes_keep_their_zones() {
        let axis = parse_axis(Param::Pattern, "random,zoned:60/10,40/90,zipf:1.2").unwrap();
        let names: Vec<String> = axis
            .values
            .iter()
            .map(|v| Param::Pattern.format_value(*v))
            .collect();
        assert_eq!(names, ["random", "zoned:60/10:40/90", "zipf:1.2"]);
    }

    #[test]
    fn rate_axes_keep_each_direction_set_whole() {
        let axis = parse_axis(
            Param::RateIops,
            "1000,read=700,write=300,read=1400,write=600,read=5+trim=5",
        )
        .unwrap();
        let shown: Vec<String> = axis
            .values
            .iter()
            .map(|v| Param::RateIops.format_value(*v))
            .collect();
        assert_eq!(
            shown,
            [
                "1000",
                "read=700+write=300",
                "read=1400+write=600",
                "read=5+trim=5"
            ]
        );
        let axis = parse_axis(Param::Rate, "read=40m,write=10m").unwrap();
        assert_eq!(
            Param::Rate.format_value(axis.values[0]),
            "read=40MiB/s+write=10MiB/s"
        );
        let error = parse_axis(Param::RateIops, "read=0,write=5")
            .unwrap_err()
            .to_string();
        assert!(error.contains("'0' is not"), "{error}");
    }

    #[test]
    fn mix_axes_keep_each_mix_whole() {
        let axis = parse_axis(Param::Mix, "read=100,read=70,write=30,write=50,read=50").unwrap();
        let shown: Vec<String> = axis
            .values
            .iter()
            .map(|v| Param::Mix.format_value(*v))
            .collect();
        assert_eq!(shown, ["read=100", "read=70,write=30", "read=50,write=50"]);
        let error = parse_axis(Param::Mix, "read=70,write=40")
            .unwrap_err()
            .to_string();
        assert!(error.contains("add up to 110%"), "{error}");
        let error = parse_axis(Param::Mix, "read=60").unwrap_err().to_string();
        assert!(error.contains("add up to 60%"), "{error}");
    }

    #[test]
    fn doubling_ranges_lists_and_steps() {
        assert_eq!(
            sizes(&parse_axis(Param::Bs, "512..4k").unwrap()),
            [512, 1024, 2048, 4096]
        );
        assert_eq!(
            sizes(&parse_axis(Param::Bs, "4k,64k,1m").unwrap()),
            [4096, 65536, 1 << 20]
        );
        assert_eq!(
            sizes(&parse_axis(Param::Seed, "0..3/+1").unwrap()),
            [0, 1, 2, 3]
        );
        assert_eq!(
            sizes(&parse_axis(Param::Jobs, "1..100/*10").unwrap()),
            [1, 10, 100]
        );
        assert_eq!(
            sizes(&parse_axis(Param::Iodepth, "1..32").unwrap()).len(),
            6
        );
        // An end that is not on the ladder stops below it.
        assert_eq!(
            sizes(&parse_axis(Param::Size, "1k..5k").unwrap()),
            [1024, 2048, 4096]
        );
    }

    #[test]
    fn ops_run_in_iozones_order_whatever_the_order_given() {
        let axis = parse_axis(Param::Op, "reread,read,write,rewrite").unwrap();
        assert_eq!(
            axis.values,
            [
                Value::Op(Op::Write),
                Value::Op(Op::Rewrite),
                Value::Op(Op::Read),
                Value::Op(Op::Reread)
            ]
        );
    }

    #[test]
    fn bad_axes_are_refused_naming_the_flag() {
        for (param, spec, needle) in [
            (Param::Bs, "", "needs a value"),
            (Param::Bs, "4k,,8k", "needs a value"),
            (Param::Bs, "1m..4k", "backwards"),
            (Param::Op, "write..read", "ranges apply"),
            (Param::Engine, "psync,fast", "'fast'"),
            (Param::Seed, "0..10/+0", "does not advance"),
            (Param::Seed, "0..2000000/+1", "more than"),
        ] {
            let error = parse_axis(param, spec).unwrap_err().to_string();
            assert!(
                error.contains(needle) && error.contains(param.name()),
                "{spec}: {error}"
            );
        }
    }

    fn sweep(axes: &[(Param, &str)], constraints: &str) -> Result<Vec<PlannedPoint>, UsageError> {
        Sweep {
            base: example_workload(),
            axes: axes
                .iter()
                .map(|(p, s)| parse_axis(*p, s).unwrap())
                .collect(),
            constraints: if constraints.is_empty() {
                Vec::new()
            } else {
                Constraint::parse_all(constraints)?
            },
            label: None,
            groups: Vec::new(),
        }
        .expand()
    }

    #[test]
    fn the_iozone_matrix_keeps_a_files_ops_together_and_drops_records_larger_than_files() {
        let points = sweep(
            &[
                (Param::Op, "write,rewrite,read,reread"),
                (Param::Size, "64k..1m"),
                (Param::Bs, "4k..16m"),
            ],
            "",
        )
        .unwrap();
        // Files 64k..1m (5 sizes) × records 4k..min(size) → 5+6+7+8+9 = 35 cells × 4 ops.
        assert_eq!(points.len(), 35 * 4);
        let first: Vec<&str> = points[..4].iter().map(|p| p.workload().op.name()).collect();
        assert_eq!(first, ["write", "rewrite", "read", "reread"]);
        assert!(points.iter().all(|p| p.workload().bs <= p.workload().size));
        assert_eq!(points[0].label, "write seq 4KiB psync file 64KiB");
        let sizes: Vec<u64> = points.iter().map(|p| p.workload().size).collect();
        assert!(
            sizes.windows(2).all(|w| w[0] <= w[1]),
            "file size is the outer loop"
        );
    }

    #[test]
    fn parameters_that_do_not_apply_collapse_instead_of_failing() {
        let points = sweep(
            &[(Param::Engine, "psync,uring"), (Param::Iodepth, "1,4,16")],
            "",
        )
        .unwrap();
        let labels: Vec<&str> = points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels.len(), 4, "{labels:?}");
        assert!(labels[0].contains("psync") && labels[3].contains("qd16"));
    }

    #[test]
    fn constraints_filter_and_refuse_an_empty_grid() {
        let points = sweep(
            &[(Param::Bs, "4k..64k"), (Param::Engine, "psync,uring")],
            "bs>=16k && engine==uring",
        )
        .unwrap();
        assert_eq!(points.len(), 3);
        // IOzone -a's rule: records under 64 KiB only for files up to 32 MiB.
        let points = sweep(
            &[(Param::Size, "16m..64m"), (Param::Bs, "32k..128k")],
            "size<=32m || bs>=64k",
        )
        .unwrap();
        let cells: Vec<(u64, u64)> = points
            .iter()
            .map(|p| (p.workload().size >> 20, p.workload().bs >> 10))
            .collect();
        assert_eq!(
            cells,
            [
                (16, 32),
                (16, 64),
                (16, 128),
                (32, 32),
                (32, 64),
                (32, 128),
                (64, 64),
                (64, 128)
            ]
        );
        let error = sweep(&[(Param::Bs, "4k..64k")], "bs>1m")
            .unwrap_err()
            .to_string();
        assert!(error.contains("'bs>1m' remove every point"), "{error}");
        assert!(
            Constraint::parse_all("bs~size")
                .unwrap_err()
                .to_string()
                .contains("no comparison")
        );
        assert!(
            Constraint::parse_all("4k<8k")
                .unwrap_err()
                .to_string()
                .contains("names no parameter")
        );
        assert!(
            Constraint::parse_all("engine==turbo")
                .unwrap_err()
                .to_string()
                .contains("turbo")
        );
    }

    proptest::proptest! {
        #[test]
        fn every_cell_once_records_within_files_ops_in_order(
            bs_exponents in proptest::collection::btree_set(9u32..25, 1..6),
            size_exponents in proptest::collection::btree_set(12u32..28, 1..6),
            ops in proptest::sample::subsequence(vec!["write", "rewrite", "read", "reread"], 1..=4),
        ) {
            let list = |exponents: &std::collections::BTreeSet<u32>| {
                exponents.iter().map(|e| (1u64 << e).to_string()).collect::<Vec<_>>().join(",")
            };
            let points = sweep(
                &[(Param::Op, &ops.join(",")), (Param::Size, &list(&size_exponents)), (Param::Bs, &list(&bs_exponents))],
                "",
            );
            let cells = size_exponents
                .iter()
                .map(|s| bs_exponents.iter().filter(|b| *b <= s).count())
                .sum::<usize>();
            match points {
                Ok(points) => {
                    proptest::prop_assert_eq!(points.len(), cells * ops.len());
                    proptest::prop_assert!(points.iter().all(|p| p.workload().bs <= p.workload().size));
                    let labels: HashSet<&str> = points.iter().map(|p| p.label.as_str()).collect();
                    proptest::prop_assert_eq!(labels.len(), points.len());
                    for cell in points.chunks(ops.len()) {
                        let names: Vec<&str> = cell.iter().map(|p| p.workload().op.name()).collect();
                        proptest::prop_assert_eq!(&names, &ops);
                        proptest::prop_assert!(cell.iter().all(|p| p.workload().size == cell[0].workload().size
                            && p.workload().bs == cell[0].workload().bs));
                    }
                }
                Err(error) => {
                    proptest::prop_assert_eq!(cells, 0);
                    proptest::prop_assert!(error.to_string().contains("larger than its file"));
                }
            }
        }
    }

    #[test]
    fn labels_name_the_parameters_the_description_leaves_out() {
        let points = sweep(&[(Param::Seed, "1,2"), (Param::Cache, "cold,warm")], "").unwrap();
        assert_eq!(
            points[0].label,
            "read seq 4KiB psync file 1MiB cache=cold seed=1"
        );
        let labels: HashSet<&str> = points.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(labels.len(), points.len(), "labels are unique");
    }
}
