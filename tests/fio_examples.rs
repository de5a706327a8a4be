//! fio's own example job files (fio 3.33's, Debian's fio-examples), each
//! run by fio and by `iolab fio` as fio's users run them, with the I/Os of
//! each compared; and every example iolab cannot run refused by file, line
//! and key.

use crate::fast::fio_command_line::json_of;
use crate::mounts::have;
use crate::util::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where fio-examples puts them.
const EXAMPLES: &str = "/usr/share/doc/fio/examples";

/// The size-bound examples that name no device, each with the arguments
/// fio's users give it (kbench's `--size` where the file leaves it open).
const RUN: &[(&str, &[&str])] = &[
    ("backwards-read", &[]),
    ("dedupe-global", &[]),
    ("filestat-ioengine", &["--size=2m"]),
    ("filedelete-ioengine", &["--size=2m"]),
    ("filecreate-ioengine", &["--size=2m"]),
];

fn example(name: &str) -> PathBuf {
    Path::new(EXAMPLES).join(format!("{name}.fio"))
}

/// Per direction (read, write, trim), the I/Os and bytes of every job of
/// fio's JSON `document`.
fn totals(document: &Value) -> [(u64, u64); 3] {
    let mut totals = [(0, 0); 3];
    for job in document["jobs"].as_array().unwrap() {
        for (index, direction) in ["read", "write", "trim"].iter().enumerate() {
            totals[index].0 += job[direction]["total_ios"].as_u64().unwrap_or(0);
            totals[index].1 += job[direction]["io_bytes"].as_u64().unwrap_or(0);
        }
    }
    totals
}

/// Each runnable example moves, under iolab fio, the I/Os and bytes per
/// direction fio moves, each tool in a directory of its own.
#[test]
fn fios_examples_move_what_fio_moves() {
    if !have("fio") {
        return;
    }
    if !Path::new(EXAMPLES).is_dir() {
        crate::skip!("{EXAMPLES} is missing (scripts/test installs fio-examples)");
        return;
    }
    let mut differ = Vec::new();
    for &(name, arguments) in RUN {
        let words: Vec<String> = std::iter::once(example(name).display().to_string())
            .chain(arguments.iter().map(|a| a.to_string()))
            .collect();
        let [fio, ours] = ["fio", "iolab"].map(|program| {
            let dir = scratch();
            totals(&json_of(program, dir.path(), name, &words))
        });
        assert!(fio.iter().any(|t| t.0 > 0), "{name}: fio moved nothing");
        if fio != ours {
            differ.push(format!("{name}: fio {fio:?}, iolab {ours:?}"));
        }
    }
    assert!(differ.is_empty(), "{differ:#?}");
}

/// Every example iolab does not run is refused in one line that names the
/// file and what stops it (an engine, a key, a device), exit status 2;
/// the ones it plans are at least the ones run above.
#[test]
fn every_example_is_planned_or_refused_by_name() {
    if !Path::new(EXAMPLES).is_dir() {
        crate::skip!("{EXAMPLES} is missing (scripts/test installs fio-examples)");
        return;
    }
    let dir = scratch();
    let mut planned = Vec::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(EXAMPLES)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "fio"))
        .collect();
    names.sort();
    assert!(names.len() >= 80, "{} examples", names.len());
    for path in &names {
        let output = iolab()
            .current_dir(dir.path())
            .arg("run")
            .arg(path)
            .arg("--show-plan")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        match output.status.code() {
            Some(0) => planned.push(name),
            Some(2) => {
                assert_eq!(message_lines(&stderr), 1, "{name}: {stderr}");
                assert!(stderr.contains(&format!("{name}.fio")), "{name}: {stderr}");
            }
            other => panic!("{name}: exit {other:?}: {stderr}"),
        }
    }
    for (name, _) in RUN {
        assert!(planned.iter().any(|p| p == name), "{name} is not planned");
    }
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "a plan made nothing"
    );
}
