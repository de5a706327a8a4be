//! fio's JSON document read as a stream: its version, global options and
//! jobs, each job converted as soon as it is read and then dropped, so that
//! importing a file takes memory for its points, not for its text (a 193 MB
//! file of 23,000 jobs: docs/performance.md).

use super::{Imported, convert_job};
use crate::plan::UsageError;
use crate::record::build::tool;
use crate::record::environment::{Environment, Virtualization};
use crate::record::{Point, ResultFile, SCHEMA};
use crate::usage;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::RefCell;
use std::fmt;

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
}

impl Reading<'_> {
    /// Converts one job of `list`.
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
        match convert_job(&job, &self.global, self.shown) {
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
    });
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let parsed = Top(&reading)
        .deserialize(&mut deserializer)
        .and_then(|()| deserializer.end());
    let mut reading = reading.into_inner();
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
        source: Some(crate::record::Source {
            tool: "fio".to_string(),
            version,
            file: shown.to_string(),
            skipped: list.skipped.clone(),
        }),
        distributed: None,
    };
    Ok(Imported {
        result,
        skipped: list.skipped,
    })
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
        logical_cpus: 1,
        physical_cores: None,
        memory_bytes: 0,
        memcpy_bps: None,
        clocksource: None,
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
