//! How a command ends: the [`Ending`] `main` maps to an exit status, `--strict`'s rule, and the [`AppError`] a command fails with before or instead of measuring.

use crate::plan::UsageError;
use crate::record::ResultFile;
use crate::run::RunError;

/// How a command ended, mapped to the exit status by `main`.
#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    /// Everything measured and written: exit 0.
    Success,
    /// A repetition failed or setup failed: exit 1.
    Failed,
    /// SIGINT or SIGTERM: exit 128 + signal.
    Interrupted(i32),
    /// A measured command failed: iolab exits with the command's status
    /// (128 + N when signal N killed it).
    CommandFailed(u8),
    /// Everything was measured, but under `--strict` a check raised a
    /// warning or an error: exit 3.
    Warnings,
}

/// `--strict`: a successful ending becomes [`Ending::Warnings`] when any
/// point has a check of warning severity or worse.
pub(crate) fn strict_ending(ending: Ending, strict: bool, result: &ResultFile) -> Ending {
    let warned = result
        .points
        .iter()
        .flat_map(|p| &p.checks)
        .any(|c| c.severity >= crate::record::Severity::Warning);
    if strict && warned && ending == Ending::Success {
        Ending::Warnings
    } else {
        ending
    }
}

/// Errors a command can end with before or instead of measuring.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// Bad input: exit 2, nothing created.
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// Anything else: exit 1.
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

pub(crate) fn run_error(error: RunError) -> AppError {
    match error {
        RunError::Usage(usage) => AppError::Usage(usage),
        other => AppError::Other(anyhow::anyhow!(other)),
    }
}
