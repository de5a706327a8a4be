//! `iolab fio ARGS…`: fio's command line run as it is typed — read as the job file it stands for (`import::jobfile::command_line`), run as `iolab run` runs a job file, and the answer written where and in the format fio's `--output` and `--output-format` ask.

use crate::app::error::{AppError, Ending};
use crate::cli::{Cli, Command, FioArgs};
use crate::import::jobfile::command_line;
use crate::usage;
use std::path::{Path, PathBuf};

/// `iolab fio ARGS…`.
pub fn fio(args: &FioArgs, arguments: Vec<String>) -> Result<Ending, AppError> {
    let mut command = command_line::read(&args.args, &|path| {
        crate::app::jobfile::read_job_text(Path::new(path))
    })
    .map_err(|why| usage!("{why}"))?;
    if !command.sections.is_empty() {
        command = command_line::only_sections(command).map_err(|why| usage!("{why}"))?;
    }
    // `iolab run` with nothing but its defaults: the job file says the rest.
    let mut run_words = vec!["iolab".to_string(), "run".to_string()];
    if let Some(device) = &args.destroy_data {
        run_words.extend(["--destroy-data".to_string(), device.clone()]);
    }
    if command.parse_only {
        run_words.push("--show-plan".to_string());
    }
    let Command::Run(run) = <Cli as clap::Parser>::try_parse_from(run_words)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .command
    else {
        return Err(anyhow::anyhow!("`iolab run` parsed as another command").into());
    };
    let answer = crate::app::output::FioAnswer {
        format: command.format,
        to: command.output.as_ref().map(PathBuf::from),
    };
    if let Some(to) = answer
        .to
        .as_deref()
        .filter(|to| !crate::app::output::discards(to))
    {
        crate::app::output::check_output(Some(to), 0)?;
    }
    super::run::run_job(&run, Some((&command, &answer)), arguments)
}
