//! fio's log keys in a job file (`write_bw_log`, `write_iops_log`,
//! `log_avg_msec` …) read into the logs iolab writes in fio's format from
//! its own per-interval series once the run is done (`report::fio_log`).

use crate::record::{Point, ResultFile};
use serde_json::{Map, Value};
use std::io::Write;
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
}

impl LogKind {
    /// The part of the file name fio gives it.
    pub fn suffix(self) -> &'static str {
        match self {
            LogKind::Bandwidth => "bw",
            LogKind::Iops => "iops",
        }
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
    ] {
        let Some(value) = text(key) else { continue };
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

/// The note a section's `logs` leave: what is written, where, and how it
/// differs from fio's; `None` without logs.
pub fn note(logs: &[FioLog]) -> Option<String> {
    let window_ms = logs.first()?.window_ms;
    Some(format!(
        "{}: written beside the result in fio's format from iolab's series: one line per {} window for each direction, all of a section's jobs together (fio writes one log per job{}), named RESULT.PREFIX_bw.J.rN.log for repetition N, J being fio's number of the section's first job",
        logs.iter()
            .map(|l| format!("write_{}_log", l.kind.suffix()))
            .collect::<Vec<_>>()
            .join(", "),
        window_ms.map_or("--interval".to_string(), |ms| format!("{ms} ms")),
        match (window_ms, logs.iter().any(|l| l.offset)) {
            (None, true) =>
                ", and one line per I/O without log_avg_msec, with the I/O's offset where iolab's log_offset column holds 0, as in fio's averaged logs; iolab keeps no per-I/O record, so a profile of bandwidth by offset is fio's to draw",
            (None, false) => ", and one line per I/O without log_avg_msec",
            (Some(_), _) => "",
        }
    ))
}

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
    /// `RESULT.PREFIX_bw.J.r` (the repetition and `.log` follow).
    fn name_start(&self, result_path: &Path) -> std::ffi::OsString {
        let mut name = result_path.with_extension("").into_os_string();
        name.push(format!(
            ".{}_{}.{}.r",
            self.prefix,
            self.kind.suffix(),
            self.job
        ));
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
            let Some(text) = lines(group, repetition, placed.log.kind, placed.log.offset) else {
                continue;
            };
            let mut name = placed.log.name_start(result_path);
            name.push(format!("{}.log", number + 1));
            let path = PathBuf::from(name);
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
                .and_then(|mut file| file.write_all(text.as_bytes()))
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            written.push(path);
        }
    }
    Ok(written)
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
    fn an_offset_column_without_a_window_is_kept_at_0_and_said() {
        let logs = read(
            &options(&[("write_bw_log", "1"), ("log_offset", "1")]),
            "zones",
            1,
        )
        .unwrap();
        assert!(logs[0].offset);
        assert!(note(&logs).unwrap().contains("log_offset column holds 0"));
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
        assert!(note(&logs).unwrap().contains("500 ms window"));
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
