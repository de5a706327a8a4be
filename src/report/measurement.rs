//! The terminal view of measured commands: wall time, exit status and resource use per run, with the activity beneath.

use super::activity;
use super::units::{bytes, latency, significant};
use crate::record::ResultFile;

/// Renders every measurement of `result`.
pub fn render(result: &ResultFile) -> String {
    let stack = result
        .environment
        .storage
        .as_ref()
        .map_or("", |s| s.stack.as_str());
    let mut text = String::new();
    for measurement in &result.measurements {
        text.push_str(&format!(
            "{} (devices under {})\n",
            measurement.label, measurement.path
        ));
        for run in &measurement.runs {
            let ending = match (run.exit_code, run.signal) {
                (Some(code), _) => format!("exit status {code}"),
                (None, Some(signal)) => format!("killed by signal {signal}"),
                (None, None) => "ended".to_string(),
            };
            text.push_str(&format!(
                "run {}: {} wall, {}; CPU user {} s, system {} s; max RSS {}\n",
                run.index,
                latency(run.wall_ns as f64),
                ending,
                significant(run.user_s),
                significant(run.system_s),
                bytes(run.max_rss_bytes)
            ));
            text.push_str(&activity::render(&run.activity, stack));
        }
        if let Some(wall) = &measurement.wall_s {
            let interval = match (wall.ci95_low, wall.ci95_high) {
                (Some(low), Some(high)) => {
                    format!(", 95% CI {}–{} s", significant(low), significant(high))
                }
                _ => String::new(),
            };
            text.push_str(&format!(
                "wall time over {} successful run(s): mean {} s, median {} s{}\n",
                wall.n,
                significant(wall.mean),
                significant(wall.median),
                interval
            ));
        }
    }
    text
}
