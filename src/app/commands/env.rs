//! `iolab env`: the machine and the storage under a directory, as iolab records them.

use super::measure::require_path;
use crate::app::error::{AppError, Ending};
use crate::app::output::{self};
use crate::cli::EnvArgs;
use crate::gather::build;

/// `iolab env`.
pub fn env(args: &EnvArgs) -> Result<Ending, AppError> {
    require_path(&args.path)?;
    let environment = crate::gather::environment::environment(Some(&args.path));
    let tool = build::tool();
    let text = if args.json {
        // A struct rather than json!: fields stay in the result file's order.
        #[derive(serde::Serialize)]
        struct EnvReport<'a> {
            tool: &'a crate::record::Tool,
            environment: &'a crate::record::environment::Environment,
        }
        let report = EnvReport {
            tool: &tool,
            environment: &environment,
        };
        serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)? + "\n"
    } else {
        output::terminal()
            .screen
            .wrap(&crate::report::environment::render(&tool, &environment))
    };
    output::print(&text)?;
    Ok(Ending::Success)
}
