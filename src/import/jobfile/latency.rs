//! fio's `latency_target`, `latency_window`, `latency_percentile` and `latency_run` read as iolab's latency target (`--latency-target`), with fio's units: microseconds unless a unit is given.

use crate::import::option;
use crate::import::units::fio_micros;
use crate::plan::latency_target::LatencyTarget;
use serde_json::{Map, Value};

/// The keys of a latency target, the first naming it.
const KEYS: [&str; 4] = [
    "latency_target",
    "latency_window",
    "latency_percentile",
    "latency_run",
];

/// Sets the section's latency target: `Ok(None)` without one, else the
/// note saying how it was read; or the key and why it cannot be followed.
pub(in crate::import) fn apply(
    workload: &mut crate::plan::Workload,
    options: &Map<String, Value>,
) -> Result<Option<String>, (&'static str, String)> {
    let nanoseconds = |key: &'static str| -> Result<u64, (&'static str, String)> {
        let text = option(options, key).unwrap_or("0");
        fio_micros(text)
            .map(|seconds| (seconds * 1e9).round() as u64)
            .ok_or((key, format!("{key}={text} is not a time iolab reads")))
    };
    let target_ns = nanoseconds("latency_target")?;
    if target_ns == 0 {
        let given = KEYS[1..].iter().find(|key| options.contains_key(**key));
        return Ok(given
            .map(|key| format!("{key}: no effect: without latency_target fio searches no depth")));
    }
    let window_ns = nanoseconds("latency_window")?;
    if window_ns == 0 {
        return Err((
            "latency_target",
            "latency_target without latency_window (fio's default 0 judges the depth after every batch of completions): give latency_window, how long each depth is judged".to_string(),
        ));
    }
    let percentile = match option(options, "latency_percentile") {
        None => 100.0,
        Some(text) => text
            .trim()
            .trim_end_matches('%')
            .parse::<f64>()
            .ok()
            .filter(|p| *p > 0.0 && *p <= 100.0)
            .ok_or((
                "latency_percentile",
                format!("latency_percentile={text} is not a percentage above 0 and at most 100"),
            ))?,
    };
    let target = LatencyTarget {
        target_ns,
        window_ns,
        percentile,
        keep_adjusting: crate::import::truthy(options, "latency_run"),
    };
    workload.latency_target = Some(target);
    let figures = match target.keep_adjusting {
        true => "with latency_run=1 it keeps adjusting and the figures span every depth",
        false => "the figures those of one window at the depth found",
    };
    Ok(Some(format!(
        "latency_target: iolab's --latency-target {target}: each job's depth searched for up to iodepth={} as fio searches it, {figures} (fio's latency_depth is each job's latency_depth)",
        workload.iodepth
    )))
}
