//! `iolab quick`: the quick suite, its O_DIRECT rows chosen by what the directory supports, and its default result file.

use super::run::execute;
use crate::app::distributed::Ranks;
use crate::app::error::{AppError, Ending, run_error};
use crate::app::output::{
    self, check_output, check_report_beside, create_results_dir, expected_result_bytes,
};
use crate::app::session::open_session;
use crate::cli::QuickArgs;
use crate::plan::RunPlan;
use crate::plan::quick::{DirectSupport, quick_points};
use crate::run::signals::Interrupt;
use crate::run::site::prepare::DirectCapability;
use std::path::PathBuf;

/// `iolab quick`.
pub fn quick(args: &QuickArgs, command: Vec<String>) -> Result<Ending, AppError> {
    let settings = args.settings()?;
    let output = match &args.output {
        Some(path) => path.clone(),
        None => default_quick_output(),
    };
    let interrupt = Interrupt::install().map_err(anyhow::Error::from)?;
    let ranks = Ranks::alone();
    let mut session = open_session(&args.dir, false, &interrupt, &ranks)?;
    // A dead run's leftovers would count against the free space.
    session.remove_dead_runs();
    // Before iolab-results/ is created: a refusal must leave nothing behind.
    session
        .check_free_space(settings.size, 1)
        .map_err(run_error)?;
    create_results_dir(&output)?;
    let expected = expected_result_bytes(&quick_points(settings, DirectSupport::Honoured));
    check_output(Some(&output), expected)?;
    if !args.no_report {
        check_report_beside(&output)?;
    }
    let filesystem = session.dir().filesystem();
    let direct = match session.probe_direct().map_err(run_error)? {
        DirectCapability::Supported(_) => DirectSupport::Honoured,
        DirectCapability::AcceptedInMemory | DirectCapability::Refused(_) => {
            crate::say!(
                "iolab: the {filesystem} file system at {} cannot bypass the page cache with O_DIRECT; \
                 running buffered, with an fsync inside the timed region of every write test. \
                 Reads are from a cold cache where eviction works.",
                args.dir.display()
            );
            DirectSupport::Unavailable
        }
    };
    let plan = RunPlan {
        dir: args.dir.clone(),
        points: quick_points(settings, direct),
        guests: Vec::new(),
        output: Some(output),
        json: args.json,
        detail: args.detail,
        report: !args.no_report,
        strict: args.strict,
        progress: args.progress,
        notes: Vec::new(),
    };
    execute(
        &plan,
        &mut session,
        &interrupt,
        command,
        &ranks,
        (&[], None, false),
    )
}

fn default_quick_output() -> PathBuf {
    output::default_output("quick")
}
