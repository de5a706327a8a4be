//! Where results go: the output checked before anything is measured, result
//! files and reports written, results shown on stdout (or, for fio's command
//! line, fio's JSON where `--output` says), and a result that
//! cannot be written where asked kept in a fallback file named in the error.
//!
//! A measurement is never thrown away: when `--output` fails at the end (a
//! disk filled during the run) or stdout fails (`> /dev/full`, a full disk,
//! a closed descriptor), the result is written to the first place that takes
//! it ([`keep_unsaved`]) and the one-line error says where.

use super::error::AppError;
use crate::plan::units::human_size;
use crate::plan::{PlannedPoint, UsageError};
use crate::record::ResultFile;
use crate::record::write::{self, Replace};
use crate::usage;
use std::path::{Path, PathBuf};

/// Bytes a result file takes beyond its points (tool, environment, plan).
const RESULT_HEAD_BYTES: u64 = 64 << 10;
/// Bytes per repetition beyond its series (summary figures, histogram, jobs,
/// activity): about 3 KiB measured, rounded up.
const REPETITION_BYTES: u64 = 4 << 10;
/// Bytes per series interval (figures and per-device activity,
/// pretty-printed): about 430 bytes measured with one device, rounded up.
const INTERVAL_BYTES: u64 = 512;
/// Longest suffix iolab adds to an output's name: `.NAME.tmp-<pid>` for the
/// atomic rename, `NAME.journal`, `NAME.html`.
const DERIVED_NAME_BYTES: usize = 16;

/// About how large the result file of `points` grows: every repetition
/// (adaptive ones at their maximum) with its series, at most 1024 intervals.
pub(crate) fn expected_result_bytes(points: &[PlannedPoint]) -> u64 {
    points.iter().fold(RESULT_HEAD_BYTES, |total, point| {
        let workload = point.workload();
        let repetitions = u64::from(workload.warmup)
            + u64::from(
                workload
                    .max_repeat
                    .unwrap_or(workload.repeat)
                    .max(workload.repeat),
            );
        // A one-pass run's length is unknown before it runs: take 10 s.
        let seconds = workload.runtime_s.unwrap_or(10.0) + 1.0;
        let intervals = (seconds / workload.interval_s).ceil().min(1024.0) as u64;
        total.saturating_add(
            repetitions.saturating_mul(REPETITION_BYTES + intervals * INTERVAL_BYTES),
        )
    })
}

/// Whether `path` is `/dev/null` (the device 1:3, whatever its name),
/// where fio's users send an output they do not want: iolab writes nothing
/// there, as the device keeps nothing.
pub(crate) fn discards(path: &Path) -> bool {
    rustix::fs::stat(path).is_ok_and(|stat| {
        crate::run::target::device::memory_device(
            rustix::fs::FileType::from_raw_mode(stat.st_mode),
            stat.st_rdev,
        ) == Some(crate::run::target::device::Memory::Null)
    })
}

/// Refuses, before anything is measured, an output that cannot be written:
/// a path that exists, a missing or unwritable directory, a name too long
/// for its file system, a file system that takes no new files (read-only,
/// sysfs, procfs), or too little free space for a result of about
/// `expected` bytes (twice that: the atomic rewrite holds two copies).
pub(crate) fn check_output(output: Option<&Path>, expected: u64) -> Result<(), UsageError> {
    let Some(path) = output else { return Ok(()) };
    let shown = path.display();
    if path.symlink_metadata().is_ok() {
        return Err(usage!(
            "--output {shown} already exists; iolab does not overwrite files"
        ));
    }
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(usage!(
            "--output {shown}: directory {} does not exist",
            dir.display()
        ));
    }
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).map_err(|_| {
        usage!(
            "--output {shown}: directory {} is not writable",
            dir.display()
        )
    })?;
    let name = path.file_name().unwrap_or(path.as_os_str());
    let stat = rustix::fs::statvfs(dir)
        .map_err(|e| usage!("--output {shown}: cannot inspect {}: {e}", dir.display()))?;
    let longest = stat.f_namemax as usize;
    if name.len() + DERIVED_NAME_BYTES > longest {
        return Err(usage!(
            "--output {shown}: the name is {} bytes; this file system takes names of at most {longest}, \
             and iolab adds up to {DERIVED_NAME_BYTES} (.NAME.tmp-PID, NAME.journal)",
            name.len()
        ));
    }
    if stat.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) {
        return Err(usage!(
            "--output {shown}: directory {} is on a read-only file system",
            dir.display()
        ));
    }
    can_create_in(dir).map_err(|e| {
        usage!(
            "--output {shown}: cannot create a file in {}: {e}",
            dir.display()
        )
    })?;
    let free = stat.f_bavail.saturating_mul(stat.f_frsize);
    let needed = expected.saturating_mul(2);
    if free < needed {
        return Err(usage!(
            "--output {shown}: {} has {} free; a result of this plan needs about {} \
             (two copies of about {} while it is rewritten)",
            dir.display(),
            human_size(free),
            human_size(needed),
            human_size(expected)
        ));
    }
    Ok(())
}

/// Whether a regular file can be created in `dir`, found by creating one
/// that leaves no trace: an unnamed O_TMPFILE, or where the file system has
/// none, a named probe removed at once. sysfs and procfs refuse both.
fn can_create_in(dir: &Path) -> std::io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    let dir_fd = rustix::fs::open(
        dir,
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    match rustix::fs::openat(
        &dir_fd,
        ".",
        OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::RUSR | Mode::WUSR,
    ) {
        Ok(_) => return Ok(()),
        Err(rustix::io::Errno::OPNOTSUPP | rustix::io::Errno::ISDIR | rustix::io::Errno::INVAL) => {
        }
        Err(error) => return Err(error.into()),
    }
    let probe = format!(".iolab-probe-{}", std::process::id());
    rustix::fs::openat(
        &dir_fd,
        probe.as_str(),
        OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::WRONLY | OFlags::CLOEXEC,
        Mode::RUSR | Mode::WUSR,
    )?;
    rustix::fs::unlinkat(&dir_fd, probe.as_str(), rustix::fs::AtFlags::empty())?;
    Ok(())
}

/// Writes `result` to `path` (atomically); when that fails, keeps it in a
/// fallback file and fails with one line naming both.
pub(crate) fn write_result(
    path: &Path,
    result: &ResultFile,
    replace: Replace,
) -> Result<(), AppError> {
    write::write_atomic(path, result, replace).map_err(|error| {
        let reason = format!("cannot write {}: {error}", path.display());
        anyhow::anyhow!(kept_because(&reason, result)).into()
    })
}

/// `reason`, followed by where the result was kept instead.
fn kept_because(reason: &str, result: &ResultFile) -> String {
    match keep_unsaved(result) {
        Ok(kept) => format!("{reason}; the result is kept in {}", kept.display()),
        Err(errors) => {
            format!("{reason}; the result could not be kept anywhere else either ({errors})")
        }
    }
}

/// Writes `result` to the first place that takes it: `iolab-results/` in
/// the working directory, then the temporary directory, then /dev/shm, as
/// `unsaved-<timestamp>-<pid>.json`. Returns its path, or every failure.
pub(crate) fn keep_unsaved(result: &ResultFile) -> Result<PathBuf, String> {
    let stamp = jiff::Zoned::now().strftime("%Y%m%d-%H%M%S").to_string();
    let name = format!("unsaved-{stamp}-{}.json", std::process::id());
    let mut places = vec![PathBuf::from("iolab-results"), std::env::temp_dir()];
    places.push(PathBuf::from("/dev/shm"));
    let mut errors = Vec::new();
    for place in places {
        if place == Path::new("iolab-results") && !place.exists() {
            let _ = std::fs::create_dir(&place);
        }
        let path = place.join(&name);
        match write::write_atomic(&path, result, Replace::Never) {
            Ok(()) => return Ok(path),
            Err(error) => errors.push(format!("{}: {error}", place.display())),
        }
    }
    Err(errors.join("; "))
}

/// Prints `result` on stdout (the table, or JSON), followed by where its
/// file is. Stdout failing for any reason but a closed pipe fails the
/// command; the result is then in `output`, or kept in a fallback file.
pub(crate) fn present(
    result: &ResultFile,
    json: bool,
    detail: bool,
    output: Option<&Path>,
) -> Result<(), AppError> {
    use crate::report::render::{Json, Render};
    use crate::report::view::ReportView;
    let name = output
        .and_then(|p| p.file_name())
        .map_or_else(|| "this run".into(), |n| n.to_string_lossy());
    // The study's own table follows iolab's, as the publication printed it.
    let view = ReportView::new(vec![(&name, result)], crate::compare::DEFAULT_ALPHA, detail);
    let mut text = if json {
        Json.render(&view)
    } else {
        terminal().render(&view)
    }
    .map_err(anyhow::Error::from)?;
    if !json && !result.notes.is_empty() && !crate::console::verbose() {
        text.push_str(&format!(
            "notes: {} on how the plan was read, in the result and its report (-v prints them)\n",
            result.notes.len()
        ));
    }
    if let (Some(path), false) = (output, json) {
        text.push_str(&format!("results: {}\n", path.display()));
    }
    show_result(&text, result, output)?;
    if let (Some(path), true) = (output, json) {
        crate::note!("iolab: results written to {}", path.display());
    }
    Ok(())
}

/// The terminal format fitted to stdout: `COLUMNS` or the terminal's width.
pub(crate) fn terminal() -> crate::report::render::Terminal {
    crate::report::render::Terminal {
        screen: crate::report::screen::Screen {
            width: Some(crate::console::width()),
        },
    }
}

/// Writes `text`, which shows `result`, to stdout (see [`present`]).
pub(crate) fn show_result(
    text: &str,
    result: &ResultFile,
    output: Option<&Path>,
) -> Result<(), AppError> {
    crate::console::stdout(text).map_err(|error| {
        let reason = format!("cannot write to standard output: {error}");
        let line = match output {
            Some(path) => format!("{reason}; the result is in {}", path.display()),
            None => kept_because(&reason, result),
        };
        anyhow::anyhow!(line).into()
    })
}

/// Writes `text` (no measurement: a comparison, a listing) to stdout; a
/// failure other than a closed pipe fails the command.
pub(crate) fn print(text: &str) -> Result<(), AppError> {
    crate::console::stdout(text)
        .map_err(|error| anyhow::anyhow!("cannot write to standard output: {error}").into())
}

/// Removes what iolab processes that died while writing `output` left
/// beside it (`.NAME.tmp-<pid>` of the result, its report and its journal),
/// and says so. Called once the input is accepted.
pub(crate) fn remove_dead_temporaries(output: &Path) {
    let paths = [
        output.to_path_buf(),
        output.with_extension("html"),
        crate::record::journal::path_for(output),
    ];
    for path in paths {
        match write::remove_dead_temporaries(&path) {
            Ok(cleared) => {
                for leftover in cleared {
                    match leftover {
                        write::Leftover::Removed(file) => crate::say!(
                            "iolab: removed {}, left half-written by an iolab that is no longer running",
                            file.display()
                        ),
                        write::Leftover::Recovered { from, to } => crate::say!(
                            "iolab: kept {} as {}: an iolab that is no longer running wrote it whole but was stopped before naming it",
                            from.display(),
                            to.display()
                        ),
                    }
                }
            }
            Err(error) => crate::say!(
                "iolab: could not look for leftovers beside {}: {error}",
                path.display()
            ),
        }
    }
}

/// `iolab-results/<kind>-<local timestamp>-<pid>.json`: the process id
/// keeps two commands started in the same second apart.
pub(crate) fn default_output(kind: &str) -> PathBuf {
    let stamp = jiff::Zoned::now().strftime("%Y%m%d-%H%M%S").to_string();
    PathBuf::from("iolab-results").join(format!("{kind}-{stamp}-{}.json", std::process::id()))
}

/// Creates `iolab-results/` when `output` is inside it and it is missing.
pub(crate) fn create_results_dir(output: &Path) -> Result<(), AppError> {
    if output
        .parent()
        .is_some_and(|p| p == Path::new("iolab-results"))
        && !Path::new("iolab-results").exists()
    {
        std::fs::create_dir("iolab-results")
            .map_err(|e| anyhow::anyhow!("cannot create iolab-results/: {e}"))?;
    }
    Ok(())
}

/// Writes `<result>.html` next to a result file, and says where; an earlier
/// iolab report there is replaced, anything else is kept.
pub(crate) fn report_beside(output: &Path, result: &ResultFile) -> Result<(), AppError> {
    let path = output.with_extension("html");
    check_report_beside(output)?;
    let replace = if path.symlink_metadata().is_ok() {
        Replace::Own
    } else {
        Replace::Never
    };
    let name = output.display().to_string();
    let view = crate::report::view::ReportView::new(
        vec![(&name, result)],
        crate::compare::DEFAULT_ALPHA,
        false,
    );
    write_report(&path, &view, replace)?;
    crate::note!("iolab: report {}", path.display());
    Ok(())
}

/// Writes the HTML report of several result files to `path`; an earlier
/// iolab report there is replaced, anything else is refused.
pub(crate) fn report_of(path: &Path, files: Vec<(&str, &ResultFile)>) -> Result<(), AppError> {
    check_report_beside(path)?;
    let replace = if path.symlink_metadata().is_ok() {
        Replace::Own
    } else {
        Replace::Never
    };
    let view = crate::report::view::ReportView::new(files, crate::compare::DEFAULT_ALPHA, false);
    write_report(path, &view, replace)?;
    crate::note!("iolab: report {}", path.display());
    Ok(())
}

/// Refuses, before anything is measured, a run whose report beside `output`
/// (`<output>.html`) would replace a file that is not an earlier iolab report.
pub(crate) fn check_report_beside(output: &Path) -> Result<(), UsageError> {
    let path = output.with_extension("html");
    let Ok(metadata) = path.symlink_metadata() else {
        return Ok(());
    };
    if is_iolab_report(&path) {
        return Ok(());
    }
    let what = if metadata.is_file() {
        "exists and is not an iolab report".to_string()
    } else {
        let kind =
            rustix::fs::FileType::from_raw_mode(std::os::unix::fs::MetadataExt::mode(&metadata));
        format!("is {}, not an iolab report", crate::input::describe(kind))
    };
    Err(usage!(
        "--output {}: {} {what}; iolab does not overwrite it \
         (use --no-report or another --output)",
        output.display(),
        path.display()
    ))
}

/// Whether `path` is a regular file (not a link) that iolab's report
/// renderer wrote: its head carries [`crate::report::html::GENERATOR`].
pub(crate) fn is_iolab_report(path: &Path) -> bool {
    use std::io::Read;
    // O_NONBLOCK: a FIFO planted there must not hang iolab in open(2).
    let Ok(fd) = rustix::fs::open(
        path,
        rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::NONBLOCK
            | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    ) else {
        return false;
    };
    if !rustix::fs::fstat(&fd).is_ok_and(|s| {
        rustix::fs::FileType::from_raw_mode(s.st_mode) == rustix::fs::FileType::RegularFile
    }) {
        return false;
    }
    let mut head = [0u8; 512];
    let mut file = std::fs::File::from(fd);
    let Ok(read) = file.read(&mut head) else {
        return false;
    };
    let tag = format!(
        "<meta name=\"generator\" content=\"{}\">",
        crate::report::html::GENERATOR
    );
    String::from_utf8_lossy(&head[..read]).contains(&tag)
}

/// Writes the HTML report of `files` to `path` (through a temporary file and a rename).
fn write_report(
    path: &Path,
    view: &crate::report::view::ReportView<'_>,
    replace: Replace,
) -> Result<(), AppError> {
    use crate::report::render::{Html, Render};
    let html = Html.render(view).map_err(anyhow::Error::from)?;
    write::write_file(path, replace, |out| {
        std::io::Write::write_all(out, html.as_bytes())
    })
    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()).into())
}

/// Where and how the answer of a run from fio's command line is written:
/// fio's JSON (`json`, `json+`: the `json+` shape, a superset of `json`)
/// or fio's `normal` text made from it, to `to` or stdout.
#[derive(Clone, Debug)]
pub(crate) struct FioAnswer {
    /// fio's `--output-format` (`--minimal`: terse).
    pub format: crate::import::jobfile::command_line::OutputFormat,
    pub to: Option<PathBuf>,
}

/// Writes the answer of a run from fio's command line: fio's JSON of
/// `result` or fio's normal text of it, to `--output` or stdout, then the report
/// beside iolab's result file (`kept`) when `report`.
pub(crate) fn answer_as_fio(
    answer: &FioAnswer,
    result: &crate::record::ResultFile,
    kept: Option<&Path>,
    report: bool,
) -> Result<(), AppError> {
    let document =
        crate::report::fio_json::document(&[result], crate::report::fio_json::JobNames::Sections);
    use crate::import::jobfile::command_line::OutputFormat;
    let text = match answer.format {
        OutputFormat::Terse => crate::report::fio_text::terse(&document),
        OutputFormat::Json | OutputFormat::JsonPlus => {
            let mut text = serde_json::to_string_pretty(&document).map_err(anyhow::Error::from)?;
            text.push('\n');
            text
        }
        OutputFormat::Normal => {
            // fio's ctime(3) line, in this machine's time zone.
            let when = result
                .created
                .parse::<jiff::Timestamp>()
                .map(|at| {
                    at.to_zoned(jiff::tz::TimeZone::system())
                        .strftime("%a %b %e %H:%M:%S %Y")
                        .to_string()
                })
                .unwrap_or_else(|_| result.created.clone());
            crate::report::fio_text::normal(&document, std::process::id(), &when)
        }
    };
    if let Some(kept) = kept {
        crate::note!("results: {}", kept.display());
    }
    // fio's output holds no checks: their warnings and errors go to
    // stderr, as fio's own warnings do.
    for line in crate::report::table::checks_summarised(result)
        .lines()
        .filter(|l| l.starts_with("warning") || l.starts_with("error"))
    {
        crate::say!("{line}");
    }
    match &answer.to {
        // fio's `--output=/dev/null`: nothing to keep.
        Some(path) if discards(path) => {}
        // A new file, as every file iolab writes (an existing one was
        // refused before the run: fio would overwrite it).
        Some(path) => {
            crate::record::write::write_file(path, crate::record::write::Replace::Never, |out| {
                std::io::Write::write_all(out, text.as_bytes())
            })
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?
        }
        None => crate::console::stdout(&text).map_err(anyhow::Error::from)?,
    }
    if let (true, Some(kept)) = (report, kept) {
        report_beside(kept, result)?;
    }
    Ok(())
}
