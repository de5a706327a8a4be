//! Writing result files atomically, and reading them back with their schema checked.

use super::{ResultFile, SCHEMA};
use rustix::fs::{Mode, OFlags};
use std::io::Write;
use std::os::fd::AsFd;
use std::path::Path;

/// Writes `result` as pretty JSON to `path` atomically: a new temporary file
/// in the same directory (O_EXCL), fsync, rename over `path`, fsync of the
/// directory. A crash leaves either the old file or the new one, never a torn one.
pub fn write_atomic(path: &Path, result: &ResultFile) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other(format!("{} is not a file name", path.display())))?;
    let temporary = dir.join(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let fd = rustix::fs::open(
        &temporary,
        OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )?;
    // Buffered: serde writes token by token, and each unbuffered token would
    // be a system call (thousands per point of a large sweep's file).
    let mut file = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::from(fd));
    let written = serde_json::to_writer_pretty(&mut file, result)
        .map_err(std::io::Error::other)
        .and_then(|()| file.write_all(b"\n"))
        .and_then(|()| file.into_inner().map_err(|e| e.into_error()))
        .and_then(|file| file.sync_all());
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    if let Err(error) = std::fs::rename(&temporary, path) {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    let directory = std::fs::File::open(dir)?;
    rustix::fs::fsync(directory.as_fd())?;
    Ok(())
}

/// Reads a result file, refusing other schemas and malformed content with a
/// message naming the file.
pub fn read(path: &Path) -> Result<ResultFile, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|error| format!("{shown}: {error}"))?;
    parse(&text, &shown.to_string())
}

/// Parses the text of a result file; `shown` names it in messages. Never
/// panics: anything but a whole `iolab.result/1` document is an error.
pub fn parse(text: &str, shown: &str) -> Result<ResultFile, String> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|error| format!("{shown} is not valid JSON ({error}); a truncated file?"))?;
    match value.get("schema").and_then(|s| s.as_str()) {
        Some(SCHEMA) => {}
        Some(other) => {
            return Err(format!(
                "{shown} has schema '{other}'; this iolab reads '{SCHEMA}'"
            ));
        }
        None => {
            return Err(format!(
                "{shown} is not an iolab result file (no \"schema\" field)"
            ));
        }
    }
    serde_json::from_value(value)
        .map_err(|error| format!("{shown} does not match {SCHEMA}: {error}"))
}

#[cfg(test)]
mod hostile_input {
    //! A result file is loaded whole or refused: torn, edited or foreign text
    //! never panics, and what loads can be shown. (Fuzzed further by
    //! fuzz/fuzz_targets/result_file.rs.)
    use super::*;
    use proptest::prelude::*;

    const REAL: &str = include_str!("../../fuzz/seeds/result_file/run.json");

    fn show(result: ResultFile) {
        drop(crate::report::table::render(&result));
        drop(crate::report::table::checks(&result));
        let files = [("r.json".to_string(), result)];
        drop(crate::report::html::render(&files));
        drop(crate::report::export::csv(&files));
    }

    #[test]
    fn the_real_file_loads_and_shows() {
        show(parse(REAL, "run.json").unwrap());
    }

    proptest! {
        #[test]
        fn a_torn_file_is_refused(cut in 0..REAL.len()) {
            prop_assume!(REAL.is_char_boundary(cut));
            let torn = &REAL[..cut];
            // Cut anywhere before the closing brace, the document is incomplete.
            prop_assume!(torn.trim_end().len() < REAL.trim_end().len());
            let error = parse(torn, "torn.json").unwrap_err();
            prop_assert!(error.contains("torn.json"));
        }

        #[test]
        fn an_edited_number_is_loaded_or_refused(
            nth in 0usize..400,
            with in prop_oneof![
                Just("-1".to_string()),
                Just("1e308".to_string()),
                Just("18446744073709551616".to_string()),
                Just("0".to_string()),
                Just("null".to_string()),
                Just("\"x\"".to_string()),
                "[0-9]{1,25}",
            ],
        ) {
            // Replace the nth number in the file.
            let bytes = REAL.as_bytes();
            let mut starts = (1..bytes.len()).filter(|&i| {
                bytes[i].is_ascii_digit() && matches!(bytes[i - 1], b' ' | b'[' | b':')
            });
            let Some(start) = starts.nth(nth) else { return Ok(()) };
            let end = (start..bytes.len())
                .find(|&i| !matches!(bytes[i], b'0'..=b'9' | b'.' | b'e' | b'E' | b'-' | b'+'))
                .unwrap_or(bytes.len());
            let edited = format!("{}{with}{}", &REAL[..start], &REAL[end..]);
            if let Ok(result) = parse(&edited, "edited.json") {
                show(result);
            }
        }

        #[test]
        fn foreign_text_is_refused(text in "\\PC{0,300}") {
            prop_assert!(parse(&text, "x.json").is_err());
        }
    }
}
