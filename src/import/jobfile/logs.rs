//! fio's log keys in a job file (`write_bw_log`, `write_iops_log`,
//! `write_lat_log`, `write_iolog`, `log_avg_msec` …) read into the logs
//! iolab writes in fio's format once the run is done: a window's lines from
//! its own per-interval series, per-I/O lines and iologs from the I/Os its
//! jobs kept (`record::ios`).

use crate::record::{Point, ResultFile};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// A log a job file's section asks for, written from iolab's series.
#[derive(Clone, Debug, PartialEq)]
pub struct FioLog {
    /// The section's group, as the plan names it.
    pub group: String,
    /// fio's prefix, its last path component: the log is `PREFIX_bw.N.log`.
    pub prefix: String,
    /// fio's number of the section's first job (1 on, in file order, each
    /// section's `numjobs` counted): fio's `N` in `PREFIX_bw.N.log`, so
    /// two sections under one `[global]` prefix write apart, as in fio.
    pub job: u32,
    /// Which figure each line holds.
    pub kind: LogKind,
    /// `log_avg_msec`: the width of each line's window, ms (iolab's
    /// interval for the group); `None`: iolab's `--interval`.
    pub window_ms: Option<u64>,
    /// `log_offset`: each line holds an offset column, 0 for a window as
    /// in fio's averaged logs.
    pub offset: bool,
}

/// The figure of a log's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    /// KiB/s over the window (`write_bw_log`, `_bw.log`).
    Bandwidth,
    /// I/Os per second over the window (`write_iops_log`, `_iops.log`).
    Iops,
    /// Each I/O's latency, ns (`write_lat_log` without `log_avg_msec`,
    /// `_lat.log`).
    Latency,
    /// Each I/O's time from its submitting call to its completion, ns,
    /// for a synchronous engine, whose I/O is the call (`write_lat_log`
    /// without `log_avg_msec`, `_clat.log`); nothing for a queued engine,
    /// whose I/Os iolab times from before the call, fio's lat.
    CompletionLatency,
    /// Each I/O as issued, fio's iolog version 3 (`write_iolog`).
    IoLog,
}

impl LogKind {
    /// The part of the file name fio gives it.
    pub fn suffix(self) -> &'static str {
        match self {
            LogKind::Bandwidth => "bw",
            LogKind::Iops => "iops",
            LogKind::Latency => "lat",
            LogKind::CompletionLatency => "clat",
            LogKind::IoLog => "iolog",
        }
    }
}

impl FioLog {
    /// Whether its lines are one per I/O, from the I/Os its jobs keep
    /// (`--log-ios`), rather than one per window of iolab's series.
    pub fn per_io(&self) -> bool {
        self.kind == LogKind::IoLog || self.window_ms.is_none()
    }
}

/// The logs section `group` asks for (its options with `[global]`'s); the
/// error names the key and why.
pub fn read(
    options: &Map<String, Value>,
    group: &str,
    job: u32,
) -> Result<Vec<FioLog>, (&'static str, String)> {
    let text = |key: &str| options.get(key).and_then(Value::as_str);
    let window_ms = match text("log_avg_msec") {
        None | Some("0") => None,
        Some(ms) => match ms.parse::<u64>() {
            Ok(ms) if ms >= 10 => Some(ms),
            _ => {
                return Err((
                    "log_avg_msec",
                    format!("log_avg_msec={ms}: iolab's series take whole milliseconds from 10 on"),
                ));
            }
        },
    };
    let offset = text("log_offset").is_some_and(|v| v.trim() != "0");
    let mut logs = Vec::new();
    for (key, kind) in [
        ("write_bw_log", LogKind::Bandwidth),
        ("write_iops_log", LogKind::Iops),
        ("write_lat_log", LogKind::Latency),
        ("write_lat_log", LogKind::CompletionLatency),
        ("write_iolog", LogKind::IoLog),
    ] {
        let Some(value) = text(key) else { continue };
        // fio's averaged latency is a mean per window, which iolab's
        // series do not keep (the note says so).
        if matches!(kind, LogKind::Latency | LogKind::CompletionLatency) && window_ms.is_some() {
            continue;
        }
        // A key without a value (read as "1") is named after the job, as fio does.
        let prefix = match value {
            "1" | "" => group,
            value => value.rsplit('/').next().unwrap_or(value),
        };
        if prefix.is_empty() || prefix.starts_with('.') || prefix.chars().any(char::is_control) {
            return Err((key, format!("{key}={value}: not a file name iolab writes")));
        }
        logs.push(FioLog {
            group: group.to_string(),
            prefix: prefix.to_string(),
            job,
            kind,
            window_ms,
            offset,
        });
    }
    Ok(logs)
}

/// The note a section's `logs` leave (with its `options`): what is
/// written, where, and how it differs from fio's; `None` without logs.
pub fn note(options: &Map<String, Value>, logs: &[FioLog]) -> Option<String> {
    let names = |per_io: bool, iolog: bool| {
        logs.iter()
            .filter(|l| l.per_io() == per_io && (l.kind == LogKind::IoLog) == iolog)
            // write_lat_log's second log.
            .filter(|l| l.kind != LogKind::CompletionLatency)
            .map(|l| match l.kind {
                LogKind::IoLog => "write_iolog".to_string(),
                kind => format!("write_{}_log", kind.suffix()),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    let windowed = names(false, false);
    if let Some(ms) = logs
        .iter()
        .find_map(|l| l.window_ms)
        .filter(|_| !windowed.is_empty())
    {
        parts.push(format!(
            "{windowed}: one line per {ms} ms window for each direction from iolab's series, all of a section's jobs together (fio writes one log per job), named RESULT.PREFIX_bw.J.rN.log for repetition N, J being fio's number of the section's first job{}",
            if logs.iter().any(|l| l.offset) {
                "; the offset column holds 0, as in fio's averaged logs"
            } else {
                ""
            }
        ));
    }
    let per_io = names(true, false);
    if !per_io.is_empty() {
        parts.push(format!(
            "{per_io}: one line per I/O, each job's own log as in fio, named RESULT.PREFIX_bw.J.rN.log for repetition N and fio's job number J; iolab times an I/O from its call (a synchronous engine: fio's clat, written as both _lat and _clat) or, on a queued engine, from before its submitting call (fio's lat, the bandwidth lines' time too; no _clat is written); no _slat is written"
        ));
    }
    if logs.iter().any(|l| l.kind == LogKind::IoLog) {
        parts.push("write_iolog: fio's iolog version 3, each job's I/Os as issued, named RESULT.NAME.J.rN.log; `iolab replay` and fio's read_iolog take it back".to_string());
    }
    let window = options.get("log_avg_msec").and_then(Value::as_str);
    if options.contains_key("write_lat_log") && window.is_some_and(|ms| ms != "0") {
        parts.push(format!("write_lat_log with log_avg_msec: not written; fio's averaged latency is a mean per window, and {OWN_LATENCY_KEPT}"));
    }
    (!parts.is_empty()).then(|| {
        format!(
            "written beside the result in fio's format: {}",
            parts.join("; ")
        )
    })
}

/// What iolab keeps of the latencies instead of a mean per window.
const OWN_LATENCY_KEPT: &str = "iolab's series keep each interval's median, 99th percentile and largest latency, and each repetition its whole histogram, in the result file";

/// A log as the plan places it: the point (by label) and which of its
/// groups the log's section became.
#[derive(Clone, Debug)]
pub struct Placed {
    /// The point's label.
    pub point: String,
    /// Its group's position in the point.
    pub group: usize,
    /// What the section asked for.
    pub log: FioLog,
}

impl FioLog {
    /// The start of its files' names beside `result_path`:
    /// `RESULT.PREFIX_bw.J.r`, an iolog `RESULT.NAME.J.r` (the repetition
    /// and `.log` follow).
    fn name_start(&self, result_path: &Path) -> std::ffi::OsString {
        let mut name = result_path.with_extension("").into_os_string();
        match self.kind {
            // write_iolog names a file, not a prefix.
            LogKind::IoLog => name.push(format!(".{}.{}.r", self.prefix, self.job)),
            kind => name.push(format!(".{}_{}.{}.r", self.prefix, kind.suffix(), self.job)),
        }
        name
    }
}

/// Refuses, before any I/O, logs whose files would collide: two sections
/// that would write the same name, or a file already there under a name
/// one of them writes (`RESULT.PREFIX_bw.J.rN.log` for any N).
pub fn check_names(placed: &[Placed], result_path: &Path) -> Result<(), String> {
    let mut starts: Vec<(std::ffi::OsString, &str)> = Vec::new();
    for placed in placed {
        let start = placed.log.name_start(result_path);
        if let Some((_, other)) = starts.iter().find(|(s, _)| *s == start) {
            return Err(format!(
                "[{}] and [{other}] would write the same fio log {}N.log",
                placed.log.group,
                Path::new(&start).display()
            ));
        }
        let start_path = Path::new(&start);
        let (dir, stem) = match (start_path.parent(), start_path.file_name()) {
            (Some(dir), Some(stem)) => (dir, stem.to_string_lossy().into_owned()),
            _ => continue,
        };
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with(&stem) && name.ends_with(".log") {
                return Err(format!(
                    "[{}]'s fio log would be written as {} (a file of that name is there), and iolab writes over nothing: choose another -o or remove it",
                    placed.log.group,
                    dir.join(&name).display()
                ));
            }
        }
        starts.push((start, &placed.log.group));
    }
    Ok(())
}

/// Writes each placed log of `result`'s measured repetitions beside
/// `result_path` (`RESULT.PREFIX_bw.J.rN.log`), never over a file that is
/// there; the paths written.
pub fn write(
    result: &ResultFile,
    placed: &[Placed],
    result_path: &Path,
) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for placed in placed {
        let Some(point) = result.points.iter().find(|p| p.label == placed.point) else {
            continue;
        };
        let group = match point.groups.get(placed.group) {
            Some(group) => group,
            None if placed.group == 0 => point,
            None => continue,
        };
        for (number, repetition) in group.measured().enumerate() {
            let texts = if placed.log.per_io() {
                per_io_lines(group, repetition, &placed.log)
            } else {
                lines(group, repetition, placed.log.kind, placed.log.offset)
                    .map(|text| (placed.log.job, text))
                    .into_iter()
                    .collect()
            };
            for (job, text) in texts {
                let log = FioLog {
                    job,
                    ..placed.log.clone()
                };
                let mut name = log.name_start(result_path);
                name.push(format!("{}.log", number + 1));
                let path = PathBuf::from(name);
                crate::record::ios::create_new(&path, text.as_bytes())?;
                written.push(path);
            }
        }
    }
    Ok(written)
}

/// Each of a repetition's jobs' log of `log`, from the I/Os it kept, with
/// fio's number of the job: a line per I/O, or fio's iolog.
fn per_io_lines(
    group: &Point,
    repetition: &crate::record::Repetition,
    log: &FioLog,
) -> Vec<(u32, String)> {
    use crate::record::ios::{PerIo, fio_lines, iolog_v3};
    let mut texts = Vec::new();
    for (k, job) in repetition.jobs.iter().enumerate() {
        let Some(ios) = &job.ios else { continue };
        let number = log.job.saturating_add(k as u32);
        let text = match log.kind {
            LogKind::Bandwidth => fio_lines(ios, PerIo::Bandwidth, log.offset),
            LogKind::Iops => fio_lines(ios, PerIo::Iops, log.offset),
            LogKind::Latency => fio_lines(ios, PerIo::Latency, log.offset),
            LogKind::CompletionLatency if group.workload.engine.capabilities().queued => continue,
            LogKind::CompletionLatency => fio_lines(ios, PerIo::Latency, log.offset),
            LogKind::IoLog => {
                let file = job
                    .file
                    .clone()
                    .or_else(|| group.target.files.first().cloned())
                    .unwrap_or_else(|| group.target.dir.clone());
                iolog_v3(ios, &file)
            }
        };
        texts.push((number, text));
    }
    texts
}

/// A repetition's series as fio's log lines (fio 3.33: `time, value,
/// direction, 0, 0`, time in ms at the window's end, block size 0 and
/// priority 0 as in fio's averaged samples; with `offset`, an offset 0
/// before the priority, as `log_offset` writes one): a line per interval
/// and direction, the last interval as long as the timed region lasted
/// when that is at least half a window;
/// `None` for a metadata op, whose I/Os have no direction.
fn lines(
    group: &Point,
    repetition: &crate::record::Repetition,
    kind: LogKind,
    offset: bool,
) -> Option<String> {
    if group.workload.op.is_metadata() {
        return None;
    }
    let width_s = repetition
        .series_interval_s
        .unwrap_or(group.workload.interval_s);
    let end_s = repetition
        .elapsed_ns
        .map_or(f64::INFINITY, |ns| ns as f64 / 1e9);
    let sole = group.workload.directions().sole();
    let mut text = String::new();
    for interval in &repetition.series {
        let end = (interval.start_s + width_s).min(end_s);
        let seconds = end - interval.start_s;
        // The sliver after the last whole window is no window (fio drops it).
        if seconds < width_s / 2.0 {
            continue;
        }
        let parts: Vec<(usize, u64, u64)> = match (interval.directions.is_empty(), sole) {
            (true, Some(direction)) => vec![(direction.index(), interval.bytes, interval.ops)],
            _ => interval
                .directions
                .iter()
                .map(|d| (d.direction.index(), d.bytes, d.ops))
                .collect(),
        };
        for (direction, bytes, ops) in parts {
            let value = match kind {
                LogKind::Bandwidth => bytes as f64 / 1024.0 / seconds,
                LogKind::Iops => ops as f64 / seconds,
                // Per I/O only (`FioLog::per_io`).
                LogKind::Latency | LogKind::CompletionLatency | LogKind::IoLog => continue,
            };
            text.push_str(&format!(
                "{}, {}, {direction}, 0, {}0\n",
                (end * 1000.0).round() as u64,
                value.round() as u64,
                if offset { "0, " } else { "" }
            ));
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect()
    }

    /// Two sections under one `[global]` prefix write apart, numbered as
    /// fio numbers their jobs; a file already there under a name a log
    /// would take is refused before any I/O (it used to fail after the
    /// run, with exit 1).
    #[test]
    fn logs_are_named_per_section_and_their_collisions_refused_up_front() {
        let dir = tempfile::tempdir().unwrap();
        let result = dir.path().join("r.json");
        let placed = |group: &str, job: u32| Placed {
            point: "p".into(),
            group: 0,
            log: read(&options(&[("write_iops_log", "PRE")]), group, job)
                .unwrap()
                .remove(0),
        };
        let two = [placed("a", 1), placed("b", 2)];
        assert_eq!(check_names(&two, &result), Ok(()));
        let twice = [placed("a", 1), placed("b", 1)];
        assert!(
            check_names(&twice, &result)
                .unwrap_err()
                .contains("[b] and [a]")
        );
        std::fs::write(dir.path().join("r.PRE_iops.2.r1.log"), "").unwrap();
        let taken = check_names(&two, &result).unwrap_err();
        assert!(taken.contains("r.PRE_iops.2.r1.log"), "{taken}");
    }

    #[test]
    fn a_log_without_a_window_has_a_line_per_io() {
        let logs = read(
            &options(&[("write_bw_log", "1"), ("log_offset", "1")]),
            "zones",
            1,
        )
        .unwrap();
        assert!(logs[0].offset);
        assert!(
            note(&Map::new(), &logs)
                .unwrap()
                .contains("one line per I/O")
        );
    }

    #[test]
    fn each_log_key_is_a_log_named_by_its_prefix_or_the_job() {
        let logs = read(
            &options(&[
                ("write_bw_log", "/tmp/x"),
                ("write_iops_log", "1"),
                ("log_avg_msec", "500"),
            ]),
            "seq",
            1,
        )
        .unwrap();
        assert_eq!(
            logs.iter()
                .map(|l| (l.prefix.as_str(), l.kind, l.window_ms))
                .collect::<Vec<_>>(),
            [
                ("x", LogKind::Bandwidth, Some(500)),
                ("seq", LogKind::Iops, Some(500))
            ]
        );
        assert!(note(&Map::new(), &logs).unwrap().contains("500 ms window"));
        assert!(read(&options(&[]), "seq", 1).unwrap().is_empty());
    }

    #[test]
    fn windows_and_prefixes_iolab_cannot_keep_are_refused() {
        for (pairs, key) in [
            (
                &[("write_bw_log", "x"), ("log_avg_msec", "5")][..],
                "log_avg_msec",
            ),
            (
                &[("write_bw_log", "x"), ("log_avg_msec", "often")][..],
                "log_avg_msec",
            ),
            (&[("write_bw_log", "/tmp/")][..], "write_bw_log"),
            (&[("write_iops_log", "..")][..], "write_iops_log"),
        ] {
            assert_eq!(
                read(&options(pairs), "j", 1).unwrap_err().0,
                key,
                "{pairs:?}"
            );
        }
    }
}
