//! fio's JSON document read as a stream: its version, global options and
//! jobs, each job converted as soon as it is read and then dropped, so that
//! importing a file takes memory for its points, not for its text (a 193 MB
//! file of 23,000 jobs: docs/performance.md).

use super::{Imported, convert_job};
use crate::gather::build::tool;
use crate::plan::UsageError;
use crate::record::environment::{Environment, Virtualization};
use crate::record::{Point, ResultFile, SCHEMA};
use crate::usage;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

/// The most text read before fio's JSON begins (its own `note:` lines).
const PREAMBLE_BYTES: usize = 1 << 20;

/// The jobs of one list (`jobs`, or `client_stats` of client/server
/// output), converted.
#[derive(Default)]
struct Converted {
    /// Whether the list was in the document.
    present: bool,
    points: Vec<Point>,
    skipped: Vec<String>,
    /// The first job's host name.
    hostname: Option<String>,
}

/// The entries of one fio job run with `numjobs` > 1 and no group_reporting
/// among its options: fio writes one entry per clone, with the same name and
/// options, or one entry in all when group_reporting was given on its
/// command line.
struct Clones {
    /// The name and options that make an entry one of these clones.
    key: String,
    /// The entries merged so far, as group_reporting would have reported them.
    merged: Value,
    /// Entries merged.
    count: u64,
    /// `numjobs`.
    expected: u64,
    /// In `jobs` (rather than `client_stats`).
    in_jobs: bool,
}

/// Everything read so far.
struct Reading<'a> {
    shown: &'a str,
    version: Option<String>,
    /// The global options; fio writes them before the jobs, which are
    /// converted with what is known when they are read.
    global: Map<String, Value>,
    /// Whether a job list was read (global options after it are refused).
    jobs_read: bool,
    jobs: Converted,
    client_stats: Converted,
    /// A job that could not be converted: the import stops with it.
    failure: Option<UsageError>,
    /// Clones of a `numjobs` job still being gathered.
    clones: Option<Clones>,
}

impl Reading<'_> {
    /// Takes one job entry of `list`: converted at once, or, as one of the
    /// clones of a `numjobs` job without group_reporting, merged with its
    /// siblings into the one point `iolab run --jobs N` would give.
    fn job(&mut self, job: Value, in_jobs: bool) -> Result<(), ()> {
        let list = if in_jobs {
            &mut self.jobs
        } else {
            &mut self.client_stats
        };
        if list.hostname.is_none() {
            list.hostname = job
                .get("hostname")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let Some((key, expected)) = clone_key(&job, &self.global) else {
            self.flush()?;
            return self.convert(&job, in_jobs);
        };
        match &mut self.clones {
            Some(clones) if clones.key == key && clones.in_jobs == in_jobs => {
                merge_clone(&mut clones.merged, &job);
                clones.count += 1;
            }
            _ => {
                self.flush()?;
                let mut job = job;
                record_clone(&mut job, None);
                self.clones = Some(Clones {
                    key,
                    merged: job,
                    count: 1,
                    expected,
                    in_jobs,
                });
            }
        }
        if self.clones.as_ref().is_some_and(|c| c.count >= c.expected) {
            self.flush()?;
        }
        Ok(())
    }

    /// Converts the clones gathered so far (all of them, or what a cut-short
    /// file holds) as one job.
    fn flush(&mut self) -> Result<(), ()> {
        let Some(clones) = self.clones.take() else {
            return Ok(());
        };
        let mut merged = clones.merged;
        // A lone entry of a `numjobs` job is fio's group_reporting total of
        // all its threads: `--group_reporting` on fio's command line is not
        // listed among the job's options. Its threads' own figures are not
        // in the file.
        let threads = if clones.count == 1 {
            for direction in ["read", "write", "trim"] {
                if let Some(data) = merged.get_mut(direction).and_then(Value::as_object_mut) {
                    data.remove("iolab_clones");
                }
            }
            clones.expected
        } else {
            clones.count
        };
        // Reported as group_reporting reports them: one job of `threads` threads.
        if let Some(options) = merged.get_mut("job options").and_then(Value::as_object_mut) {
            options.insert("group_reporting".to_string(), Value::String(String::new()));
            options.insert("numjobs".to_string(), Value::String(threads.to_string()));
        }
        self.convert(&merged, clones.in_jobs)
    }

    /// Converts one (possibly merged) job entry into its points.
    fn convert(&mut self, job: &Value, in_jobs: bool) -> Result<(), ()> {
        let list = if in_jobs {
            &mut self.jobs
        } else {
            &mut self.client_stats
        };
        match convert_job(job, &self.global, self.shown) {
            Ok((points, skipped)) => {
                list.points.extend(points);
                list.skipped.extend(skipped);
                Ok(())
            }
            Err(error) => {
                self.failure = Some(error);
                Err(())
            }
        }
    }
}

/// Reads fio's JSON output from `reader`; `source` names it in messages and
/// in the record.
pub fn read(
    reader: impl std::io::Read,
    shown: &str,
    command: Vec<String>,
) -> Result<Imported, UsageError> {
    let reading = RefCell::new(Reading {
        shown,
        version: None,
        global: Map::new(),
        jobs_read: false,
        jobs: Converted::default(),
        client_stats: Converted::default(),
        failure: None,
        clones: None,
    });
    // fio prints its own lines (`note: …`, warnings) before the JSON on
    // stdout: they are skipped up to the first line that opens an object,
    // and said (a few, shortened).
    let mut reader = std::io::BufReader::new(reader);
    let (mut before, mut lines_before, mut bytes_before) = (Vec::new(), 0usize, 0usize);
    let mut first = Vec::new();
    loop {
        first.clear();
        // At most what is left of 1 MiB of lines before the JSON.
        let limit = (PREAMBLE_BYTES - bytes_before) as u64;
        let read = std::io::BufRead::read_until(
            &mut std::io::Read::take(&mut reader, limit),
            b'\n',
            &mut first,
        )
        .map_err(|e| usage!("{shown}: {}", crate::input::describe_io(&e)))?;
        if read == 0 || first.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
            break;
        }
        bytes_before += read;
        if bytes_before >= PREAMBLE_BYTES {
            return Err(usage!(
                "{shown} is not fio JSON output: no object begins in its first {} of text",
                crate::plan::units::format_size(PREAMBLE_BYTES as u64)
            ));
        }
        if !first.iter().all(u8::is_ascii_whitespace) {
            lines_before += 1;
            if before.len() < 3 {
                before.push(first.clone());
            }
        }
    }
    let reader = std::io::Read::chain(std::io::Cursor::new(first), reader);
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let parsed = Top(&reading)
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end());
    let mut reading = reading.into_inner();
    if parsed.is_ok() {
        let _ = reading.flush();
    }
    if let Some(failure) = reading.failure.take() {
        return Err(failure);
    }
    parsed.map_err(|e| {
        usage!(
            "{shown} is not valid JSON ({e}); fio's --output-format=json or json+ output is needed"
        )
    })?;
    let version = reading
        .version
        .clone()
        .ok_or_else(|| usage!("{shown} is not fio JSON output (no \"fio version\")"))?;
    let list = match (reading.jobs.present, reading.client_stats.present) {
        (true, _) => reading.jobs,
        (false, true) => reading.client_stats,
        (false, false) => {
            return Err(usage!(
                "{shown}: fio output without \"jobs\" or \"client_stats\""
            ));
        }
    };
    if list.points.is_empty() {
        return Err(usage!(
            "{shown}: no job could be imported{}",
            if list.skipped.is_empty() {
                String::new()
            } else {
                format!(" ({})", list.skipped.join("; "))
            }
        ));
    }
    let result = ResultFile {
        schema: SCHEMA.to_string(),
        tool: tool(),
        created: jiff::Timestamp::now().to_string(),
        environment: unknown_machine(&version, shown, list.hostname.as_deref()),
        command,
        points: list.points,
        measurements: Vec::new(),
        plan: None,
        convergence: Vec::new(),
        knee: None,
        source: Some(crate::record::Source {
            tool: "fio".to_string(),
            version,
            file: shown.to_string(),
            skipped: list.skipped.clone(),
        }),
        distributed: None,
        guest: None,
        guests: Vec::new(),
        notes: Vec::new(),
    };
    let mut skipped = list.skipped;
    if !before.is_empty() {
        let shown_lines: Vec<String> = before
            .iter()
            .map(|line| {
                let text = String::from_utf8_lossy(line);
                let text = text.trim();
                match text.char_indices().nth(120) {
                    Some((end, _)) => format!("{}…", &text[..end]),
                    None => text.to_string(),
                }
            })
            .collect();
        skipped.push(format!(
            "{lines_before} line(s) fio printed before its JSON: {}",
            shown_lines.join(" | ")
        ));
    }
    Ok(Imported { result, skipped })
}

/// For an entry of a job run with `numjobs` > 1 and without group_reporting:
/// what makes its clones one (name and options), and how many there are.
fn clone_key(job: &Value, global: &Map<String, Value>) -> Option<(String, u64)> {
    let own = job.get("job options").and_then(Value::as_object);
    let option = |key: &str| {
        own.and_then(|o| o.get(key))
            .or_else(|| global.get(key))
            .and_then(Value::as_str)
    };
    let numjobs: u64 = option("numjobs")?.trim().parse().ok()?;
    if numjobs < 2 || option("group_reporting").is_some() {
        return None;
    }
    let name = job.get("jobname").and_then(Value::as_str).unwrap_or("?");
    let options = own
        .map(|o| Value::Object(o.clone()).to_string())
        .unwrap_or_default();
    Some((format!("{name}\u{0}{options}"), numjobs))
}

/// Notes one clone's own figures under each direction's `iolab_clones` of
/// `merged` (`clone` itself when None), so each stays a job of its own.
fn record_clone(merged: &mut Value, clone: Option<&Value>) {
    for direction in ["read", "write", "trim"] {
        let own = clone.unwrap_or(merged).get(direction).map(|d| {
            serde_json::json!({
                "io_bytes": d.get("io_bytes").and_then(Value::as_u64).unwrap_or(0),
                "total_ios": d.get("total_ios").and_then(Value::as_u64).unwrap_or(0),
                "runtime": d.get("runtime").and_then(Value::as_u64).unwrap_or(0),
            })
        });
        let (Some(own), Some(into)) = (
            own,
            merged.get_mut(direction).and_then(Value::as_object_mut),
        ) else {
            continue;
        };
        match into.get_mut("iolab_clones").and_then(Value::as_array_mut) {
            Some(list) => list.push(own),
            None => {
                into.insert("iolab_clones".into(), Value::Array(vec![own]));
            }
        }
    }
}

/// Adds a clone's figures to `merged` the way fio's group_reporting sums its
/// threads: bytes, I/Os and latency bins added, the longest runtime kept,
/// bandwidth and IOPS over that runtime, the first error kept.
fn merge_clone(merged: &mut Value, clone: &Value) {
    record_clone(merged, Some(clone));
    if merged.get("error").and_then(Value::as_i64).unwrap_or(0) == 0 {
        if let (Some(error), Some(slot)) = (clone.get("error"), merged.get_mut("error")) {
            *slot = error.clone();
        }
    }
    for direction in ["read", "write", "trim"] {
        let (Some(into), Some(from)) = (
            merged.get_mut(direction).and_then(Value::as_object_mut),
            clone.get(direction).and_then(Value::as_object),
        ) else {
            continue;
        };
        let number =
            |map: &Map<String, Value>, key: &str| map.get(key).and_then(Value::as_u64).unwrap_or(0);
        let bytes = number(into, "io_bytes").saturating_add(number(from, "io_bytes"));
        let ios = number(into, "total_ios").saturating_add(number(from, "total_ios"));
        let runtime = number(into, "runtime").max(number(from, "runtime"));
        into.insert("io_bytes".into(), bytes.into());
        into.insert("total_ios".into(), ios.into());
        into.insert("runtime".into(), runtime.into());
        if runtime > 0 {
            let seconds = runtime as f64 / 1e3;
            // Not truncated to whole bytes as fio's own: the merged rate is
            // exactly the merged bytes over the runtime the record keeps.
            into.insert("bw_bytes".into(), (bytes as f64 / seconds).into());
            into.insert("iops".into(), (ios as f64 / seconds).into());
        }
        // Latency bins: counts added per bin (exact, as HdrHistograms merge).
        for key in ["clat_ns", "lat_ns"] {
            let from_bins = from
                .get(key)
                .and_then(|c| c.get("bins"))
                .and_then(Value::as_object)
                .cloned();
            if let (Some(from_bins), Some(bins)) = (
                from_bins,
                into.get_mut(key)
                    .and_then(|c| c.get_mut("bins"))
                    .and_then(Value::as_object_mut),
            ) {
                for (value, count) in from_bins {
                    let add = count.as_u64().unwrap_or(0);
                    let slot = bins.entry(value).or_insert(Value::from(0u64));
                    *slot = slot.as_u64().unwrap_or(0).saturating_add(add).into();
                }
            }
        }
    }
}

/// The environment of an imported file: fio records no machine.
fn unknown_machine(version: &str, shown: &str, hostname: Option<&str>) -> Environment {
    Environment {
        hostname: hostname.unwrap_or("unknown").to_string(),
        kernel: "unknown".to_string(),
        kernel_version: "unknown".to_string(),
        arch: "unknown".to_string(),
        distribution: None,
        cpu_model: None,
        logical_cpus: None,
        physical_cores: None,
        memory_bytes: None,
        memcpy_bps: None,
        clocksource: None,
        clock_read_ns: None,
        proactive_reclaim: Vec::new(),
        virtualization: Virtualization {
            hypervisor: None,
            container: None,
            evidence: vec![format!(
                "imported from {version} output {shown}: fio does not record the machine"
            )],
        },
        storage: None,
    }
}

/// The document's top level: a map whose job lists are read element by element.
struct Top<'r, 'a>(&'r RefCell<Reading<'a>>);

impl<'de> DeserializeSeed<'de> for Top<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("fio's JSON output (an object)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "fio version" => {
                    let version: Value = map.next_value()?;
                    self.0.borrow_mut().version = version.as_str().map(str::to_string);
                }
                "global options" => {
                    let global: Value = map.next_value()?;
                    let mut reading = self.0.borrow_mut();
                    if reading.jobs_read {
                        reading.failure = Some(usage!(
                            "{}: \"global options\" come after the jobs, which fio never writes; \
                             the jobs were read without them",
                            reading.shown
                        ));
                        return Err(serde::de::Error::custom("global options after the jobs"));
                    }
                    reading.global = global.as_object().cloned().unwrap_or_default();
                }
                "jobs" | "client_stats" => {
                    let in_jobs = key == "jobs";
                    self.0.borrow_mut().jobs_read = true;
                    map.next_value_seed(Jobs {
                        reading: self.0,
                        in_jobs,
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// One job list, converted as it is read.
struct Jobs<'r, 'a> {
    reading: &'r RefCell<Reading<'a>>,
    in_jobs: bool,
}

impl<'de> DeserializeSeed<'de> for Jobs<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Jobs<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of jobs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        {
            let mut reading = self.reading.borrow_mut();
            let list = if self.in_jobs {
                &mut reading.jobs
            } else {
                &mut reading.client_stats
            };
            list.present = true;
        }
        while let Some(job) = seq.next_element::<Value>()? {
            if self.reading.borrow_mut().job(job, self.in_jobs).is_err() {
                return Err(serde::de::Error::custom("a job could not be imported"));
            }
        }
        Ok(())
    }

    /// Anything but a list is as if the list were missing.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}
