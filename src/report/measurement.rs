//! The terminal view of measured commands: wall time, exit status and resource use per run, with the activity beneath.

use super::activity;
use super::screen::Screen;
use super::studies::atop::layer_table;
use super::units::{bytes, latency, significant};
use crate::record::ResultFile;

/// A warning when the CPUs were busier over `run` than its command's own
/// CPU time explains (by more than a tenth of all cores' time): the
/// all-core figures then hold other processes' load, which may also have
/// slowed the command; `None` otherwise, or when not measured.
fn others_load(run: &crate::record::measurement::CommandRun, cpus: Option<u32>) -> Option<String> {
    let cpu = run.activity.cpu.as_ref()?;
    let capacity = f64::from(cpus?) * run.wall_ns as f64 / 1e9;
    if capacity <= 0.0 {
        return None;
    }
    let busy = cpu.user + cpu.system + cpu.steal;
    let own = (run.user_s + run.system_s) / capacity;
    (busy - own > 0.10).then(|| {
        format!(
            "  warning [others-cpu-load]: the CPUs were {:.0}% busy and the command's own CPU time is {:.0}% of them: the all-core figures hold other processes' load, which may have slowed the command; measure on a quieter machine, or compare runs made alike\n",
            busy * 100.0,
            own * 100.0
        )
    })
}

/// Renders every measurement of `result`.
pub fn render(result: &ResultFile, screen: Screen) -> String {
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
                text.push_str(&activity::render_devices(&run.activity, stack, screen));
            } else {
                // The device stack as atop shows it, with the logical:physical ratios.
                let writes = crate::record::activity::top_layer_writes(&run.activity.devices);
                let title = format!("  run {} per layer, stack {stack}", run.index);
                let counted = run.process_io.is_some();
                text.push_str(
                    &layer_table(title, &run.activity, writes, counted).terminal_at(screen),
                );
            }
            text.push_str(&activity::render_beyond_devices(&run.activity));
            if let Some(line) = others_load(run, result.environment.logical_cpus) {
                text.push_str(&line);
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(user_s: f64, busy: f64) -> crate::record::measurement::CommandRun {
        serde_json::from_value(serde_json::json!({
            "index": 0, "exit_code": 0, "wall_ns": 1_000_000_000u64,
            "user_s": user_s, "system_s": 0.0, "max_rss_bytes": 1,
            "activity": {
                "elapsed_ns": 1_000_000_000u64, "devices": [], "network": [],
                "cpu": {"user": busy, "system": 0.0, "iowait": 0.0, "steal": 0.0, "idle": 1.0 - busy}
            },
            "series": []
        }))
        .unwrap()
    }

    /// Two cores busy all along while the command used one: the other's
    /// load is named, with what to do; a command that explains the load,
    /// or a machine of unknown size, gets no warning.
    #[test]
    fn load_the_command_does_not_explain_is_named() {
        let line = others_load(&run(1.0, 1.0), Some(2)).unwrap();
        assert!(
            line.contains("100% busy") && line.contains("50% of them"),
            "{line}"
        );
        assert!(line.contains("quieter machine"), "{line}");
        assert!(others_load(&run(1.9, 1.0), Some(2)).is_none());
        assert!(others_load(&run(1.0, 1.0), None).is_none());
    }
}
