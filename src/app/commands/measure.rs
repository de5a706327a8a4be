//! `iolab measure`: an external command run under the sampler, its I/O and the devices' counted, and the path it works on checked first.

use crate::app::error::{AppError, Ending};
use crate::app::output::{self, check_output, present, write_result};
use crate::cli::MeasureArgs;
use crate::gather::build;
use crate::input::describe_io;
use crate::plan::UsageError;
use crate::record::write::Replace;
use crate::run::signals::Interrupt;
use crate::stats;
use crate::usage;
use std::path::Path;

/// `iolab measure -- COMMAND...`.
pub fn measure(args: &MeasureArgs, command: Vec<String>) -> Result<Ending, AppError> {
    require_path(&args.path)?;
    if let Some(label) = &args.label {
        crate::plan::check_label(label)?;
    }
    let output = args.out.output.as_deref();
    check_output(output, u64::from(args.repeat) * (64 << 10))?;
    let interrupt = Interrupt::install().map_err(anyhow::Error::from)?;
    let watch = crate::probe::environment::watch(&args.path);
    let mut result = build::new_result_file(command, Some(&args.path), true);
    // As text for the record (bytes that are not UTF-8 show as U+FFFD); the
    // command itself is run with its arguments byte for byte.
    let command_text: Vec<String> = args
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut measurement = crate::record::measurement::Measurement {
        label: args.label.clone().unwrap_or_else(|| command_text.join(" ")),
        command: command_text.clone(),
        path: std::fs::canonicalize(&args.path)
            .unwrap_or_else(|_| args.path.clone())
            .display()
            .to_string(),
        runs: Vec::new(),
        wall_s: None,
    };
    let mut ending = Ending::Success;
    for index in 0..args.repeat {
        let outcome = match crate::command::run(&args.command, &watch, args.interval, &interrupt) {
            Ok(outcome) => outcome,
            Err(error) if index == 0 => {
                return Err(usage!(
                    "cannot start {:?}: {}",
                    command_text[0],
                    describe_io(&error)
                )
                .into());
            }
            Err(error) => {
                crate::say!(
                    "iolab: cannot start {:?}: {}",
                    command_text[0],
                    describe_io(&error)
                );
                ending = Ending::Failed;
                break;
            }
        };
        if !outcome.succeeded() {
            let status = match (outcome.exit_code, outcome.signal) {
                (Some(code), _) => {
                    crate::say!(
                        "iolab: {:?} exited with status {code} (run {index})",
                        command_text[0]
                    );
                    code
                }
                (None, Some(signal)) => {
                    crate::say!(
                        "iolab: {:?} was killed by signal {signal} (run {index})",
                        command_text[0]
                    );
                    128 + signal
                }
                (None, None) => 1,
            };
            ending = Ending::CommandFailed(status.clamp(1, 255) as u8);
        }
        measurement
            .runs
            .push(crate::gather::measurement::command_run(index, &outcome));
        if ending != Ending::Success || interrupt.is_set() {
            break;
        }
    }
    let walls: Vec<f64> = measurement
        .runs
        .iter()
        .filter(|r| r.exit_code == Some(0))
        .map(|r| r.wall_ns as f64 / 1e9)
        .collect();
    measurement.wall_s = stats::describe(&walls);
    result.measurements.push(measurement);
    if let Some(path) = output {
        write_result(path, &result, Replace::Never)?;
    }
    if args.out.json {
        present(&result, true, false, output)?;
    } else {
        let mut text = crate::report::measurement::render(&result, output::terminal().screen);
        if let Some(path) = output {
            text.push_str(&format!("results: {}\n", path.display()));
        }
        output::show_result(&text, &result, output)?;
    }
    if let Some(signal) = interrupt.signal() {
        return Ok(Ending::Interrupted(signal));
    }
    Ok(ending)
}

pub(crate) fn require_path(path: &Path) -> Result<(), UsageError> {
    std::fs::metadata(path)
        .map(drop)
        .map_err(|e| usage!("--path {}: {}", path.display(), describe_io(&e)))
}
