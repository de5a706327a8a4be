//! `iolab import`: another tool's result (fio's JSON) turned into an iolab result file.

use crate::app::error::{AppError, Ending};
use crate::app::output::{check_output, present, write_result};
use crate::cli::ImportArgs;
use crate::record::write::Replace;

/// `iolab import FIO.json`.
pub fn import(args: &ImportArgs, command: Vec<String>) -> Result<Ending, AppError> {
    check_output(args.out.output.as_deref(), 1 << 20)?;
    let imported = crate::import::fio_file(&args.file, command)?;
    for line in &imported.skipped {
        crate::say!("iolab: not imported: {line}");
    }
    if let Some(path) = &args.out.output {
        write_result(path, &imported.result, Replace::Never)?;
    }
    present(
        &imported.result,
        args.out.json,
        args.out.detail,
        args.out.output.as_deref(),
    )?;
    Ok(Ending::Success)
}
