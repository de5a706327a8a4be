//! Writing result files atomically, and reading them back with their schema checked.

use super::{ResultFile, SCHEMA};
use rustix::fs::{Mode, OFlags};
use std::io::Write;
use std::os::fd::AsFd;
use std::path::Path;

/// Whether a write may replace the file already at its path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replace {
    /// The path must still be free: a file that appeared there since the
    /// command checked is not iolab's, and is kept.
    Never,
    /// The file there is this command's own earlier version (a result file
    /// rewritten point by point, a resumed sweep's, an earlier iolab report).
    Own,
}

/// Writes `result` as pretty JSON to `path` atomically (see [`write_file`]).
pub fn write_atomic(path: &Path, result: &ResultFile, replace: Replace) -> std::io::Result<()> {
    write_file(path, replace, |out| {
        serde_json::to_writer_pretty(&mut *out, result).map_err(std::io::Error::other)?;
        out.write_all(b"\n")
    })
}

/// Writes a file atomically: `fill` writes a new temporary file in the same
/// directory (O_CREAT|O_EXCL|O_NOFOLLOW), which is fsynced and renamed onto
/// `path`, then the directory is fsynced. A crash leaves the old file or the
/// new one, never a torn one. With [`Replace::Never`] the rename refuses an
/// existing file (RENAME_NOREPLACE, or link(2) where that is unsupported), and
/// the temporary file is kept and named in the error, so nothing is lost.
pub fn write_file(
    path: &Path,
    replace: Replace,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if path.file_name().is_none() {
        return Err(std::io::Error::other(format!(
            "{} is not a file name",
            path.display()
        )));
    }
    let temporary = temporary_for(path);
    let fd = rustix::fs::open(
        &temporary,
        OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )?;
    // Should iolab die before the rename, a later run can tell the file is
    // a dead process's leftover ([`remove_dead_temporaries`]).
    crate::owner::tag(&fd);
    // Buffered: serde writes token by token, and each unbuffered token would
    // be a system call (thousands per point of a large sweep's file).
    let mut file = std::io::BufWriter::with_capacity(1 << 16, std::fs::File::from(fd));
    let written = fill(&mut file)
        .and_then(|()| file.into_inner().map_err(|e| e.into_error()))
        .and_then(|file| file.sync_all());
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    let moved = match replace {
        Replace::Own => std::fs::rename(&temporary, path),
        Replace::Never => rename_without_replacing(&temporary, path),
    };
    match moved {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(std::io::Error::new(
                error.kind(),
                format!(
                    "{} appeared while iolab ran and is not iolab's to replace; \
                     the output is kept in {}",
                    path.display(),
                    temporary.display()
                ),
            ));
        }
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            return Err(error);
        }
    }
    let directory = std::fs::File::open(dir)?;
    rustix::fs::fsync(directory.as_fd())?;
    Ok(())
}

/// The temporary file [`write_file`] fills before renaming it onto `path`:
/// `.NAME.tmp-<pid>` in the same directory.
pub fn temporary_for(path: &Path) -> std::path::PathBuf {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".tmp-{}", std::process::id()));
    dir.join(name)
}

/// What became of a dead process's temporary file beside an output.
#[derive(Debug, PartialEq, Eq)]
pub enum Leftover {
    /// Half written: removed.
    Removed(std::path::PathBuf),
    /// Written whole and synced, its rename not done (its process was
    /// killed between the two): kept under a visible name, never lost.
    Recovered {
        from: std::path::PathBuf,
        to: std::path::PathBuf,
    },
}

/// Clears the temporary files of [`write_file`] for `path` (`.NAME.tmp-<pid>`)
/// that iolab processes left when they died: regular files whose owner tag
/// names a process of this host that is gone. One written whole (JSON that
/// parses, HTML that ends) is kept as `STEM.recovered-<pid>.EXT` beside
/// `path`, never over a file; a partial one is removed.
pub fn remove_dead_temporaries(path: &Path) -> std::io::Result<Vec<Leftover>> {
    use std::os::unix::ffi::OsStrExt;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut prefix = b".".to_vec();
    prefix.extend_from_slice(path.file_name().unwrap_or_default().as_bytes());
    prefix.extend_from_slice(b".tmp-");
    let here = crate::owner::owner_tag();
    let mut cleared = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(pid) = name.as_bytes().strip_prefix(prefix.as_slice()) else {
            continue;
        };
        if pid.is_empty() || !pid.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let pid = String::from_utf8_lossy(pid).into_owned();
        let candidate = dir.join(&name);
        let Ok(fd) = rustix::fs::open(
            &candidate,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        ) else {
            continue;
        };
        let stat = rustix::fs::fstat(&fd)?;
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile
            || !crate::owner::owner_is_dead(fd.as_fd(), &here)
        {
            continue;
        }
        // Only while the name still refers to the file examined.
        let now = rustix::fs::lstat(&candidate)?;
        if (now.st_dev, now.st_ino) != (stat.st_dev, stat.st_ino) {
            continue;
        }
        if is_whole(path, std::fs::File::from(fd)) {
            let mut to = path.with_extension("").into_os_string();
            to.push(format!(".recovered-{pid}"));
            if let Some(extension) = path.extension() {
                to.push(".");
                to.push(extension);
            }
            let to = std::path::PathBuf::from(to);
            if rename_without_replacing(&candidate, &to).is_ok() {
                cleared.push(Leftover::Recovered {
                    from: candidate,
                    to,
                });
                continue;
            }
        }
        std::fs::remove_file(&candidate)?;
        cleared.push(Leftover::Removed(candidate));
    }
    Ok(cleared)
}

/// Whether a temporary file for `path` holds a whole output: JSON that
/// parses (a result, a journal), HTML that reaches its end.
fn is_whole(path: &Path, file: std::fs::File) -> bool {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::BufReader::new(file), &mut text).is_ok()
                && text.trim_end().ends_with("</html>")
        }
        Some("json") => {
            serde_json::from_reader::<_, serde::de::IgnoredAny>(std::io::BufReader::new(file))
                .is_ok()
        }
        _ => false,
    }
}

/// Renames `from` to `to` only if `to` does not exist, atomically.
fn rename_without_replacing(from: &Path, to: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags};
    match rustix::fs::renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        // Some file systems (older NFS, FUSE) lack RENAME_NOREPLACE; link(2)
        // also refuses an existing name.
        Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
            std::fs::hard_link(from, to)?;
            std::fs::remove_file(from)
        }
        Err(error) => Err(error.into()),
    }
}

/// Reads a result file, refusing other schemas and malformed content with a
/// message naming the file. Streamed: the file is never held whole in
/// memory, and a series longer than iolab writes is coarsened as it is read
/// ([`super::series`]), so memory grows with the points, not with the file
/// (a 537 MB file of 222 points compares with itself in a tenth of the
/// memory it took when loaded whole; docs/performance.md).
pub fn read(path: &Path) -> Result<ResultFile, String> {
    use std::io::{BufReader, Seek};
    let shown = path.display().to_string();
    let mut file = crate::input::open_regular(path).map_err(|error| format!("{shown}: {error}"))?;
    // Two passes: the schema first (it may come last in a hand-edited
    // file), so that another format is named as such, not by a field.
    let schema = {
        let mut reader =
            serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 20, &mut file));
        schema_of(&mut reader, &shown)?
    };
    check_schema(schema.as_deref(), &shown)?;
    file.rewind().map_err(|error| format!("{shown}: {error}"))?;
    let mut reader = serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 20, file));
    document(&mut reader, &shown)
}

/// Reads a result file to show it (`compare`, `report`): as [`read`], but
/// the per-interval device figures, which no view shows, are skipped.
pub fn read_to_show(path: &Path) -> Result<ResultFile, String> {
    let _lean = super::series::Lean::start();
    read(path)
}

/// Parses the text of a result file; `shown` names it in messages. Never
/// panics: anything but a whole `iolab.result/1` document is an error.
pub fn parse(text: &str, shown: &str) -> Result<ResultFile, String> {
    let schema = schema_of(&mut serde_json::Deserializer::from_str(text), shown)?;
    check_schema(schema.as_deref(), shown)?;
    document(&mut serde_json::Deserializer::from_str(text), shown)
}

/// The document's `schema` field, read past everything else without keeping
/// it; a syntax error anywhere is reported as such.
fn schema_of<'de, R: serde_json::de::Read<'de>>(
    reader: &mut serde_json::Deserializer<R>,
    shown: &str,
) -> Result<Option<String>, String> {
    #[derive(serde::Deserialize)]
    struct SchemaOnly {
        schema: Option<serde_json::Value>,
    }
    let not_json = |error: serde_json::Error| {
        format!("{shown} is not valid JSON ({error}); a truncated file?")
    };
    let found = <SchemaOnly as serde::Deserialize>::deserialize(&mut *reader).map_err(|error| {
        if error.is_data() {
            format!("{shown} is not an iolab result file ({error})")
        } else {
            not_json(error)
        }
    })?;
    reader.end().map_err(not_json)?;
    Ok(found
        .schema
        .map(|s| s.as_str().map_or_else(|| s.to_string(), str::to_string)))
}

fn check_schema(schema: Option<&str>, shown: &str) -> Result<(), String> {
    match schema {
        Some(SCHEMA) => Ok(()),
        Some(other) => Err(format!(
            "{shown} has schema '{other}'; this iolab reads '{SCHEMA}'"
        )),
        None => Err(format!(
            "{shown} is not an iolab result file (no \"schema\" field)"
        )),
    }
}

/// The whole document, its schema already checked.
fn document<'de, R: serde_json::de::Read<'de>>(
    reader: &mut serde_json::Deserializer<R>,
    shown: &str,
) -> Result<ResultFile, String> {
    let mismatch = |error: serde_json::Error| format!("{shown} does not match {SCHEMA}: {error}");
    let mut result =
        <ResultFile as serde::Deserialize>::deserialize(&mut *reader).map_err(mismatch)?;
    reader.end().map_err(mismatch)?;
    super::series::mark_coarsened(&mut result);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(
        text: &'static str,
    ) -> impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()> {
        move |out| out.write_all(text.as_bytes())
    }

    #[test]
    fn a_new_file_never_replaces_one_that_appeared() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        std::fs::write(&path, b"someone's").unwrap();
        let error = write_file(&path, Replace::Never, fill("new")).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"someone's");
        // Nothing is lost: the output waits in the file the error names.
        let kept = dir
            .path()
            .join(format!(".r.json.tmp-{}", std::process::id()));
        assert!(
            error.to_string().contains(&kept.display().to_string()),
            "{error}"
        );
        assert_eq!(std::fs::read(&kept).unwrap(), b"new");
    }

    #[test]
    fn an_own_file_is_replaced_and_a_planted_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        write_file(&path, Replace::Never, fill("first")).unwrap();
        write_file(&path, Replace::Own, fill("second")).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        // A link planted at the temporary name makes the write fail, not follow it.
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let temporary = dir
            .path()
            .join(format!(".r.json.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &temporary).unwrap();
        assert!(write_file(&path, Replace::Own, fill("third")).is_err());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
    }
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
        for detail in [false, true] {
            let narrow = crate::report::screen::Screen { width: Some(40) };
            drop(crate::report::table::render(&result, narrow, detail));
        }
        drop(crate::report::table::checks(&result));
        use crate::report::render::*;
        use crate::report::view::ReportView;
        // Shown alone and compared with itself, in every format.
        for files in [vec![("r.json", &result)], vec![("r.json", &result); 2]] {
            let view = ReportView::new(files, 0.05, true);
            let terminal = Terminal {
                screen: crate::report::screen::Screen { width: Some(80) },
            };
            drop(terminal.render(&view));
            drop(Json.render(&view));
            drop(Markdown.render(&view));
            drop(Csv.render(&view));
            drop(StudyCsv.render(&view));
            drop(Html.render(&view));
            if let Some(comparison) = &view.comparison {
                drop(terminal.render(comparison));
                drop(Csv.render(comparison));
            }
        }
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
        fn an_edited_value_is_loaded_or_refused(
            nth in 0usize..400,
            with in crate::record::hostile::replacement(),
        ) {
            let Some(edited) = crate::record::hostile::replace_value(REAL, nth, &with) else {
                return Ok(());
            };
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
