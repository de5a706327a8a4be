//! A sweep of points of job groups (a study's `[[sweep.group]]` tables): each group's own values and axes over the sweep's, expanded into points in running order.

use super::{Axis, Param, Sweep, advance, normalize};
use crate::plan::group::{Group, describe_groups};
use crate::plan::{PlannedPoint, UsageError};
use crate::usage;
use std::collections::HashSet;

/// One group of a sweep of points of groups: its values over the sweep's
/// base, and the parameters it varies on its own (`bs = ["4k", "16k"]` in
/// its `[[sweep.group]]` table) while the other groups stay.
#[derive(Clone, Debug)]
pub struct GroupSweep {
    /// The group's name.
    pub name: String,
    /// Its own values of parameters, over the sweep's base.
    pub fixed: Vec<(Param, crate::plan::param::Value)>,
    pub axes: Vec<Axis>,
    /// Whether its jobs seal what they write and its files are checked
    /// after each repetition (`--verify` in its segment).
    pub verify: bool,
    /// Its own steady-state stop (`--steady` in its segment).
    pub steady: Option<crate::plan::steady::SteadyCriterion>,
    /// Its own latency target.
    pub latency_target: Option<crate::plan::latency_target::LatencyTarget>,
    /// Its own I/O priorities.
    pub priority: Option<crate::plan::priority::Priority>,
}

/// The points of a sweep of groups, in running order: the sweep's own axes
/// outermost, then each group's in the groups' order, each nested in the
/// parameter table's order. Every group's workload is the sweep's point
/// with the group's values and axes applied; a point where a group's block
/// is larger than its file is dropped, and constraints hold for every
/// group.
pub fn expand(sweep: &Sweep) -> Result<Vec<PlannedPoint>, UsageError> {
    let order = |axis: &&Axis| Param::ALL.iter().position(|p| *p == axis.param);
    let mut own: Vec<&Axis> = sweep.axes.iter().collect();
    own.sort_by_key(order);
    let mut axes: Vec<(Option<usize>, &Axis)> = own.into_iter().map(|a| (None, a)).collect();
    for (index, group) in sweep.groups.iter().enumerate() {
        let mut theirs: Vec<&Axis> = group.axes.iter().collect();
        theirs.sort_by_key(order);
        axes.extend(theirs.into_iter().map(|a| (Some(index), a)));
    }
    if let Some((_, axis)) = axes.iter().find(|(_, a)| a.values.is_empty()) {
        return Err(usage!(
            "--{}: an axis needs at least one value",
            axis.param.name()
        ));
    }
    let total = axes.iter().fold(1usize, |total, (_, axis)| {
        total.saturating_mul(axis.values.len())
    });
    if total > super::MAX_POINTS {
        return Err(usage!(
            "the sweep has {total} points, more than {}",
            super::MAX_POINTS
        ));
    }
    let plain: Vec<&Axis> = axes.iter().map(|(_, a)| *a).collect();
    let mut index = vec![0usize; axes.len()];
    let mut seen = HashSet::new();
    let mut points = Vec::new();
    for _ in 0..total {
        let mut base = sweep.base.clone();
        for ((group, axis), &i) in axes.iter().zip(&index) {
            if group.is_none() {
                axis.param.apply(&mut base, axis.values[i]);
            }
        }
        let mut groups = Vec::new();
        let mut tags = Vec::new();
        for (g, spec) in sweep.groups.iter().enumerate() {
            let mut workload = base.clone();
            for (param, value) in &spec.fixed {
                param.apply(&mut workload, *value);
            }
            workload.verify |= spec.verify;
            if let Some(steady) = spec.steady {
                workload.steady = Some(steady);
            }
            if let Some(target) = spec.latency_target {
                workload.latency_target = Some(target);
            }
            if let Some(priority) = &spec.priority {
                workload.priority = Some(priority.clone());
            }
            for ((group, axis), &i) in axes.iter().zip(&index) {
                if *group == Some(g) {
                    axis.param.apply(&mut workload, axis.values[i]);
                    tags.push(format!(
                        "{}.{}={}",
                        spec.name,
                        axis.param.name(),
                        axis.param.format_value(axis.values[i])
                    ));
                }
            }
            normalize(&mut workload, &sweep.base);
            groups.push(Group {
                name: spec.name.clone(),
                workload,
            });
        }
        for ((group, axis), &i) in axes.iter().zip(&index) {
            if group.is_none() {
                tags.insert(
                    0,
                    format!(
                        "{}={}",
                        axis.param.name(),
                        axis.param.format_value(axis.values[i])
                    ),
                );
            }
        }
        advance(&mut index, &plain);
        if groups
            .iter()
            .any(|g| g.workload.largest_io() > g.workload.size)
            || !sweep
                .constraints
                .iter()
                .all(|c| groups.iter().all(|g| c.holds(&g.workload)))
        {
            continue;
        }
        let key: Vec<String> = groups
            .iter()
            .map(|g| serde_json::to_string(&g.workload).expect("a workload serializes"))
            .collect();
        if !seen.insert(key) {
            continue;
        }
        let described = if tags.is_empty() {
            describe_groups(&groups)
        } else {
            tags.join(" ")
        };
        let label = match &sweep.label {
            Some(prefix) => format!("{prefix}: {described}"),
            None => described,
        };
        points.push(PlannedPoint {
            label,
            round: None,
            groups,
            file: None,
        });
    }
    if points.is_empty() {
        return Err(usage!(
            "the sweep of groups is empty: its constraints or block sizes larger than the files remove every point"
        ));
    }
    Ok(points)
}
