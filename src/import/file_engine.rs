//! fio's file engines as iolab's metadata ops: which engine is which op, the options that shape such a job, and its parameters from them.

use crate::plan::Op;
use crate::plan::param::Param;
use crate::plan::param::Value as ParamValue;

/// fio's file engines (its `engines/fileoperations.c`): each "I/O" one
/// operation on one of the job's `nrfiles` files or directories, timed
/// alone — iolab's metadata ops on a tree, one item per file.
pub(super) const FILE_ENGINES: &[(&str, Op)] = &[
    ("filecreate", Op::Create),
    ("filestat", Op::Stat),
    ("filedelete", Op::Delete),
    ("dircreate", Op::Mkdir),
    ("dirstat", Op::Dirstat),
    ("dirdelete", Op::Rmdir),
];

/// The options a job on a file engine is shaped by; any other option
/// that sets a workload parameter is refused with it, not dropped.
pub(super) const FILE_ENGINE_OPTIONS: &[&str] = &[
    "ioengine",
    "nrfiles",
    "filesize",
    "size",
    "numjobs",
    "kb_base",
    "cpus_allowed",
    "cpus_allowed_policy",
    "invalidate",
];

/// The metadata op of fio's engine `engine`, when it is a file engine.
pub(super) fn op_of(engine: &str) -> Option<Op> {
    FILE_ENGINES
        .iter()
        .find(|(name, _)| *name == engine)
        .map(|&(_, op)| op)
}

/// A parameter of a job on a file engine doing `op`: `files` (fio's
/// `nrfiles`) items per job, all jobs' items in one directory (fio's
/// `directory`, each file named by its job), files laid out with
/// `filesize` bytes (or `size / files`, as fio sizes them) before a stat
/// or delete (a dirstat's directories hold none: fio asks `filesize` only
/// to lay them out); the data parameters do not apply (`None`).
pub(super) fn value(
    param: Param,
    op: Op,
    files: u64,
    filesize: Option<u64>,
    size: Option<u64>,
) -> Result<Option<ParamValue>, String> {
    Ok(Some(match param {
        Param::Op => ParamValue::Op(op),
        Param::Items if files == 0 => return Err("nrfiles=0: no file to work on".to_string()),
        // A `size` below `nrfiles` files of `filesize` ends the job once
        // its files add up to it (fio 3.33: filecreate with nrfiles=31250,
        // filesize=4k and --size=2m creates 512 files per job).
        Param::Items => ParamValue::Number(match (filesize, size) {
            (Some(file), Some(size)) if file > 0 => files.min((size / file).max(1)),
            _ => files,
        }),
        Param::FileSize if matches!(op, Op::Stat | Op::Delete) => match (filesize, size) {
            (Some(file), _) => ParamValue::Number(file),
            (None, Some(size)) => ParamValue::Number(size / files.max(1)),
            (None, None) => return Ok(None),
        },
        _ => return Ok(None),
    }))
}
