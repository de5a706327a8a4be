//! The terminal view of measured commands: wall time, exit status and resource use per run, with the activity beneath.

use super::activity;
use super::studies::atop::layer_table;
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
            if let Some(io) = &run.process_io {
                text.push_str(&format!(
                    "  the command's I/O calls: {} reads of {}, {} writes of {}; from storage {}, to storage {} (/proc/PID/io)\n",
                    io.read_calls,
                    bytes(io.read_chars),
                    io.write_calls,
                    bytes(io.write_chars),
                    bytes(io.read_bytes),
                    bytes(io.write_bytes)
                ));
            }
            if run.activity.devices.is_empty() {
                text.push_str(&activity::render_devices(&run.activity, stack));
            } else {
                // The device stack as atop shows it, with the logical:physical ratios.
                let writes = crate::record::activity::top_layer_writes(&run.activity.devices);
                let title = format!("  run {} per layer, stack {stack}", run.index);
                let counted = run.process_io.is_some();
                text.push_str(&layer_table(title, &run.activity, writes, counted).terminal());
            }
            text.push_str(&activity::render_beyond_devices(&run.activity));
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
