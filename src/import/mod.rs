//! Importing fio's `--output-format=json` and `json+` output into `iolab.result/1`, so fio results can be compared and reported like iolab's.
//!
//! One point per job and direction that moved data (one for a read/write
//! mix, its directions as shares). Units are converted
//! exactly: fio's `io_bytes` and `bw_bytes` are bytes and bytes/s, `runtime`
//! is in ms, latencies in ns. What fio does not report (the machine, the
//! per-interval series, page-cache residency, the split of context switches)
//! is left absent, never zero. Latency comes from the `json+` histogram bins
//! (`clat_ns.bins`); plain `json` has only percentiles, so its points carry no
//! latency and a `latency-not-imported` check says why.

use crate::check;
use crate::plan::param::Param;
use crate::plan::{Op, UsageError, Workload, default_workload};
use crate::record::{Check, Point, ResultFile, Severity, Target};
use crate::stats;
use crate::usage;
use serde_json::{Map, Value};
use std::path::Path;

mod document;
mod figures;
mod file_engine;
mod fio_data;
mod fio_job;
mod fio_pattern;
pub mod jobfile;
mod units;

use figures::{figures_agree, mixed_repetition, repetition};
use fio_job::FioJob;

/// What an import produced, and the jobs it could not represent.
#[derive(Debug)]
pub struct Imported {
    pub result: ResultFile,
    /// One line per job or direction left out, with the reason.
    pub skipped: Vec<String>,
}

fn option<'a>(options: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    options.get(key).and_then(Value::as_str)
}

/// Whether fio's flag `key` is set: given bare (an empty value, as fio's
/// JSON writes it) or with any value but 0.
fn truthy(options: &Map<String, Value>, key: &str) -> bool {
    option(options, key).is_some_and(|v| v.trim() != "0")
}

/// The workload a job's options describe for one direction; Err names what
/// iolab cannot represent. Every parameter of the table is taken from fio's
/// options or left at iolab's default.
fn workload(
    options: &Map<String, Value>,
    writes: bool,
    group_reporting: bool,
) -> Result<Workload, String> {
    let job = FioJob {
        options,
        writes,
        group_reporting,
        kb_base: option(options, "kb_base")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1024),
    };
    let mut workload = default_workload();
    for &param in Param::ALL {
        // A replayed log gives its I/Os' kinds, offsets, sizes and times,
        // and fio ignores the options that would (rw, bs, size …) for them.
        if workload.work() == crate::plan::Work::Trace
            && !crate::plan::combine::TRACE_TAKES.contains(&param)
        {
            continue;
        }
        if let Some(value) = job.value(param, &workload)? {
            let value = param
                .check(value)
                .map_err(|e| format!("{} ({}): {e}", param.fio_options(), param.name()))?;
            param.apply(&mut workload, value);
        }
    }
    // A latency target: the figures fio reports are one window at the
    // depth it found, which the point must say.
    jobfile::latency::apply(&mut workload, options).map_err(|(_, why)| why)?;
    // I/O priorities: the point says which its I/Os went at.
    jobfile::priority::apply(&mut workload, options).map_err(|(_, why)| why)?;
    // What import writes must load: `report` and `compare` read it back.
    serde_json::to_value(&workload)
        .ok()
        .and_then(|value| serde_json::from_value::<Workload>(value).ok())
        .ok_or_else(|| "its settings would make a result iolab cannot read back".to_string())?;
    if workload.directions().trims() && !workload.engine.capabilities().trims {
        return Err(format!(
            "ioengine {} cannot trim in iolab (engine {})",
            option(options, "ioengine").unwrap_or("psync"),
            workload.engine.name()
        ));
    }
    Ok(workload)
}

/// Converts the text of fio's JSON output; `source` names it in errors and in the record.
pub fn fio(text: &str, source: &Path, command: Vec<String>) -> Result<Imported, UsageError> {
    document::read(text.as_bytes(), &source.display().to_string(), command)
}

/// Converts fio's JSON output in the file `path`, read as a stream.
pub fn fio_file(path: &Path, command: Vec<String>) -> Result<Imported, UsageError> {
    let shown = path.display().to_string();
    let file = crate::input::open_regular(path)
        .map_err(|e| usage!("{shown}: {}", crate::input::describe_io(&e)))?;
    document::read(
        std::io::BufReader::with_capacity(1 << 20, file),
        &shown,
        command,
    )
}

/// The points of one fio job (one per direction that moved data, or one
/// for a mix of both), and what
/// of it could not be imported, with the reason; `global` is the document's
/// global options.
fn convert_job(
    job: &Value,
    global: &Map<String, Value>,
    shown: &str,
) -> Result<(Vec<Point>, Vec<String>), UsageError> {
    let mut points = Vec::new();
    let mut skipped = Vec::new();
    let name = job.get("jobname").and_then(Value::as_str).unwrap_or("?");
    if name == "All clients" {
        // The client/server aggregate of the entries already imported.
        return Ok((points, skipped));
    }
    let mut options = global.clone();
    if let Some(own) = job.get("job options").and_then(Value::as_object) {
        options.extend(own.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let group_reporting = options.contains_key("group_reporting");
    let file = option(&options, "filename").map(str::to_string);
    let moved = |direction: &str| {
        job.get(direction)
            .filter(|data| data.get("io_bytes").and_then(Value::as_u64).unwrap_or(0) > 0)
    };
    // Figures that cannot be a run's are not imported, each named.
    for direction in ["read", "write", "trim"] {
        if let Some(data) = job.get(direction) {
            if let Err(why) = figures_agree(data) {
                skipped.push(format!("job {name} {direction}: {why}; not imported"));
                return Ok((points, skipped));
            }
        }
    }
    let mut measured = Vec::new();
    let mixed = matches!(
        option(&options, "rw").or_else(|| option(&options, "readwrite")),
        Some("randrw" | "rw" | "readwrite")
    );
    if let (true, Some(read), Some(write)) = (mixed, moved("read"), moved("write")) {
        // One point: both directions' figures are shares of one repetition.
        match workload(&options, true, group_reporting) {
            Ok(workload) => {
                let repetition = mixed_repetition(read, write, job, file.clone(), name)
                    .map_err(|e| usage!("{shown}: {e}"))?;
                measured.push((workload, repetition));
            }
            Err(why) => skipped.push(format!("job {name}: {why}")),
        }
    } else {
        for (direction, writes) in [("read", false), ("write", true), ("trim", true)] {
            let Some(data) = moved(direction) else {
                continue;
            };
            match workload(&options, writes, group_reporting) {
                Ok(workload) if workload.op == Op::Mix => skipped.push(format!(
                    "job {name}: rw={} moved data in one direction only; a mix needs both",
                    option(&options, "rw").unwrap_or("readwrite")
                )),
                Ok(workload) => {
                    let repetition = repetition(data, job, file.clone(), name)
                        .map_err(|e| usage!("{shown}: {e}"))?;
                    measured.push((workload, repetition));
                }
                Err(why) => skipped.push(format!("job {name} {direction}: {why}")),
            }
        }
    }
    for (workload, (repetition, had_bins)) in measured {
        let dir = file
            .as_deref()
            .and_then(|f| Path::new(f).parent())
            .map_or_else(String::new, |p| p.display().to_string());
        let mut point = Point {
            label: format!("fio {name}: {}", workload.describe()),
            workload,
            target: Target {
                dir,
                filesystem: "unknown (imported from fio)".to_string(),
                files: file.clone().into_iter().collect(),
                direct_alignment: None,
                direct_in_memory: false,
                file_given: true,
                open_flags: None,
                tree: None,
            },
            repetitions: vec![repetition],
            summary: None,
            checks: Vec::new(),
            groups: Vec::new(),
        };
        point.summary = stats::summarize(&point).map_err(|e| usage!("{shown}: {e}"))?;
        point.checks = check::check(&point, None);
        if !had_bins {
            point.checks.push(Check {
                code: "latency-not-imported".to_string(),
                severity: Severity::Info,
                message:
                    "fio's json output has latency percentiles but no histogram; run fio with \
                          --output-format=json+ to import latency"
                        .to_string(),
                evidence: Some(format!("no clat_ns.bins in {shown}")),
            });
        }
        points.push(point);
    }
    Ok((points, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{EngineKind, Pattern};

    /// Shaped after fio 3.x plain json output: percentiles but no bins, a mixed job without shares (50/50), a solarisaio job.
    const FIO_JSON: &str = r#"{
  "fio version" : "fio-3.28",
  "global options" : { "size" : "64m", "direct" : "1" },
  "jobs" : [
    { "jobname" : "seqread", "error" : 0, "job options" : { "rw" : "read", "bs" : "1m", "ioengine" : "psync" },
      "read" : { "io_bytes" : 67108864, "bw_bytes" : 1048576000, "bw" : 1024000, "iops" : 1000.0, "runtime" : 64,
                 "total_ios" : 64, "clat_ns" : { "percentile" : { "50.000000" : 1000000 } } },
      "write" : { "io_bytes" : 0, "runtime" : 0, "total_ios" : 0 },
      "usr_cpu" : 1.5, "sys_cpu" : 20.0, "job_runtime" : 64 },
    { "jobname" : "mixed", "error" : 0, "job options" : { "rw" : "randrw" },
      "read" : { "io_bytes" : 4096, "runtime" : 1, "total_ios" : 1 } },
    { "jobname" : "aio", "error" : 0, "job options" : { "rw" : "randread", "ioengine" : "solarisaio" },
      "read" : { "io_bytes" : 4096, "runtime" : 1, "total_ios" : 1 } }
  ]
}"#;

    /// fio's zoned-device options (as `report --format fio-json` writes
    /// them) import as `--zbd`, sizes in zones read as bytes.
    #[test]
    fn zoned_devices_import_as_zbd() {
        let text = r#"{ "fio version" : "fio-3.33", "jobs" : [ { "jobname" : "z", "error" : 0,
          "job options" : { "rw" : "randwrite", "bs" : "256k", "size" : "8m", "zonemode" : "zbd",
            "zonesize" : "1048576", "zonecapacity" : "786432", "max_open_zones" : "4",
            "zone_reset_threshold" : "0.7", "zone_reset_frequency" : "0.125" },
          "write" : { "io_bytes" : 8388608, "runtime" : 10, "total_ios" : 32 } } ] }"#;
        let imported = fio(text, Path::new("z.json"), vec!["iolab".into()]).unwrap();
        assert_eq!(imported.skipped, Vec::<String>::new());
        let zbd = imported.result.points[0].workload.zbd;
        assert_eq!(
            zbd.map(|z| z.to_string()).as_deref(),
            Some("1MiB,capacity=768KiB,open=4,reset=0.7/0.125")
        );
    }

    #[test]
    fn plain_json_with_units_converted_and_the_rest_skipped_with_reasons() {
        let imported = fio(FIO_JSON, Path::new("f.json"), vec!["iolab".into()]).unwrap();
        assert_eq!(imported.result.points.len(), 1);
        let point = &imported.result.points[0];
        assert_eq!(point.label, "fio seqread: read seq 1MiB psync direct");
        assert_eq!(point.workload.size, 64 << 20);
        let repetition = &point.repetitions[0];
        assert_eq!(repetition.elapsed_ns, Some(64_000_000));
        assert_eq!(repetition.throughput_bps, Some(1_048_576_000.0));
        assert!(repetition.latency_ns.is_none() && repetition.cpu.is_none());
        assert!(
            point
                .checks
                .iter()
                .any(|c| c.code == "latency-not-imported")
        );
        assert_eq!(imported.skipped.len(), 2);
        assert!(
            imported.skipped[0].contains("randrw") && imported.skipped[1].contains("solarisaio")
        );
    }

    /// Shaped after fio 3.x client/server output (`fio --client=host job.fio
    /// --output-format=json+`): per-client entries with a hostname, then the
    /// "All clients" aggregate, and json+ bins.
    const FIO_CLIENTS: &str = r#"{
  "fio version" : "fio-3.35",
  "client_stats" : [
    { "jobname" : "randwrite", "hostname" : "node1", "error" : 0,
      "job options" : { "rw" : "randwrite", "bs" : "4k", "size" : "1g", "ioengine" : "io_uring", "iodepth" : "32",
                        "direct" : "1", "time_based" : "", "runtime" : "30", "ramp_time" : "2s" },
      "read" : { "io_bytes" : 0, "runtime" : 0, "total_ios" : 0 },
      "write" : { "io_bytes" : 40960, "bw_bytes" : 4096000, "iops" : 1000.0, "runtime" : 10, "total_ios" : 10,
                  "clat_ns" : { "bins" : { "100000" : 6, "150000" : 3, "900000" : 1 } } } },
    { "jobname" : "All clients", "error" : 0, "job options" : { "rw" : "randwrite" },
      "write" : { "io_bytes" : 40960, "runtime" : 10, "total_ios" : 10 } }
  ]
}"#;

    #[test]
    fn client_server_output_with_json_plus_bins() {
        let imported = fio(FIO_CLIENTS, Path::new("c.json"), vec![]).unwrap();
        assert_eq!(
            imported.result.points.len(),
            1,
            "the aggregate is not a job"
        );
        assert_eq!(imported.result.environment.hostname, "node1");
        let point = &imported.result.points[0];
        let w = &point.workload;
        assert_eq!(
            (w.op, w.pattern, w.engine, w.iodepth, w.direct),
            (Op::Rewrite, Pattern::Random, EngineKind::Uring, 32, true)
        );
        assert_eq!((w.runtime_s, w.ramp_s, w.size), (Some(30.0), 2.0, 1 << 30));
        let latency = point.repetitions[0].latency_ns.as_ref().unwrap();
        assert_eq!(latency.count, 10);
        assert!(
            (latency.max as f64 - 900_000.0).abs() / 900_000.0 < 0.001,
            "{}",
            latency.max
        );
        let p50 = latency
            .percentiles
            .iter()
            .find(|p| p.percentile == 50.0)
            .unwrap()
            .value;
        assert!((p50 as f64 - 100_000.0).abs() / 100_000.0 < 0.001, "{p50}");
        assert!(
            point
                .checks
                .iter()
                .all(|c| c.code != "latency-not-imported")
        );
    }

    #[test]
    fn figures_no_run_can_have_are_not_imported_and_named() {
        for (from, to, named) in [
            // Beyond 64-bit nanoseconds, and far from io_bytes over it.
            (
                "\"runtime\" : 64",
                "\"runtime\" : 20000000000000",
                "disagrees with",
            ),
            ("\"runtime\" : 64", "\"runtime\" : 0", "runtime = 0 ms"),
            ("\"runtime\" : 64", "\"runtime\" : -1", "runtime = -1"),
            ("\"iops\" : 1000.0", "\"iops\" : -5", "iops = -5"),
            ("\"iops\" : 1000.0", "\"iops\" : 1e308", "iops = 1e+308"),
            (
                "\"bw_bytes\" : 1048576000",
                "\"bw_bytes\" : 1000000000000000",
                "bw_bytes",
            ),
        ] {
            let damaged = FIO_JSON.replacen(from, to, 1);
            assert_ne!(damaged, FIO_JSON, "the sample has {from}");
            let refused = fio(&damaged, Path::new("f.json"), vec![])
                .map(|i| i.skipped.join("; "))
                .unwrap_or_else(|e| e.to_string());
            assert!(
                refused.contains(named) && refused.contains("not imported"),
                "{to}: {refused}"
            );
        }
    }

    /// fio's options as its JSON gives them: each a string.
    fn options(pairs: &[(&str, &str)]) -> Map<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect()
    }

    /// A replayed log is a trace point: its speed from replay_time_scale
    /// or replay_no_stall, and the options the log decides left out.
    #[test]
    fn a_read_iolog_job_is_a_trace_point() {
        let job = options(&[
            ("read_iolog", "sda.iolog"),
            ("replay_time_scale", "50"),
            ("rw", "randwrite"),
            ("bs", "64k"),
            ("ioengine", "libaio"),
            ("iodepth", "16"),
        ]);
        let imported = workload(&job, false, false).unwrap();
        assert_eq!(imported.trace.map(|t| t.as_str()), Some("sda.iolog"));
        assert_eq!(imported.trace_speed, crate::plan::TraceSpeed::Times(2.0));
        assert_eq!(imported.iodepth, 16);
        assert_eq!((imported.op, imported.bs), (Op::Read, 4096));
        assert_eq!(crate::plan::combine::check_trace(&imported), Ok(()));
        let stalls = options(&[("read_iolog", "sda.iolog"), ("replay_no_stall", "1")]);
        let imported = workload(&stalls, false, false).unwrap();
        assert_eq!(imported.trace_speed, crate::plan::TraceSpeed::Afap);
        let bad = options(&[("read_iolog", "x"), ("replay_time_scale", "0")]);
        assert!(
            workload(&bad, false, false)
                .unwrap_err()
                .contains("replay_time_scale=0")
        );
    }

    #[test]
    fn each_parameter_comes_from_its_fio_options() {
        let job = options(&[
            ("rw", "randwrite"),
            ("size", "1m"),
            ("cpus_allowed", "0-1,3"),
            ("numjobs", "2"),
            ("ioengine", "io_uring"),
            ("iodepth", "8"),
        ]);
        let imported = workload(&job, true, true).unwrap();
        assert_eq!(
            imported.cpus.map(|c| c.to_string()).as_deref(),
            Some("0-1+3")
        );
        assert_eq!((imported.jobs, imported.iodepth), (2, 8));
        assert_eq!(
            (imported.op, imported.pattern),
            (Op::Rewrite, Pattern::Random)
        );
        for (key, value, needle) in [
            ("cpus_allowed_policy", "split", "cpus_allowed_policy=split"),
            (
                "numjobs",
                "100000",
                "numjobs (jobs): 100000 must be between 1 and 4096",
            ),
            ("iodepth", "99999999999", "iodepth (iodepth)"),
            // Refused by name, never taken for the default or saturated
            // into a value iolab then cannot read back.
            ("numjobs", "0", "numjobs=0"),
            ("numjobs", "-1", "numjobs=-1 is not a whole number"),
            (
                "thinktime",
                "99999999999999999999",
                "thinktime=99999999999999999999 is more than an hour",
            ),
            (
                "thinktime_blocks",
                "-1",
                "thinktime_blocks=-1 is not a whole number",
            ),
            (
                "thinktime_blocks",
                "1.5",
                "thinktime_blocks=1.5 is not a whole number",
            ),
            (
                "thinktime_blocks",
                "73786976294838206464",
                "thinktime_blocks=73786976294838206464",
            ),
        ] {
            let mut refused = job.clone();
            if key == "thinktime_blocks" {
                refused.insert("thinktime".to_string(), Value::String("10".to_string()));
            }
            refused.insert(key.to_string(), Value::String(value.to_string()));
            let error = workload(&refused, true, true).unwrap_err();
            assert!(error.contains(needle), "{error}");
        }
    }

    #[test]
    fn a_trim_an_engine_cannot_make_is_not_imported() {
        let job: Map<String, Value> = [("rw", "randtrim"), ("ioengine", "mmap"), ("size", "1m")]
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect();
        let error = workload(&job, true, false).unwrap_err();
        assert!(error.contains("ioengine mmap cannot trim"), "{error}");
    }

    #[test]
    fn not_fio_output() {
        assert!(
            fio("{}", Path::new("x.json"), vec![])
                .unwrap_err()
                .to_string()
                .contains("not fio JSON")
        );
        assert!(
            fio("{\"fio", Path::new("x.json"), vec![])
                .unwrap_err()
                .to_string()
                .contains("not valid JSON")
        );
    }
}

#[cfg(test)]
mod hostile_input {
    //! fio's JSON is imported or refused: torn, edited or foreign text never
    //! panics, and what imports can be shown. (Fuzzed further by
    //! fuzz/fuzz_targets/fio_json.rs.)
    use super::*;
    use proptest::prelude::*;

    const REAL: &str = include_str!("../../fuzz/seeds/fio_json/two-jobs.json");

    fn import(text: &str) -> Result<Imported, UsageError> {
        fio(text, Path::new("fio.json"), Vec::new())
    }

    #[test]
    fn the_real_output_imports() {
        let imported = import(REAL).unwrap();
        assert!(!imported.result.points.is_empty());
    }

    proptest! {
        #[test]
        fn torn_output_is_refused(cut in 0..REAL.len()) {
            prop_assume!(REAL.is_char_boundary(cut) && cut < REAL.trim_end().len());
            prop_assert!(import(&REAL[..cut]).is_err());
        }

        #[test]
        fn an_edited_value_is_imported_or_refused(
            nth in 0usize..600,
            with in crate::record::hostile::replacement(),
        ) {
            let Some(edited) = crate::record::hostile::replace_value(REAL, nth, &with) else {
                return Ok(());
            };
            if let Ok(imported) = import(&edited) {
                use crate::report::render::{Html, Render};
                use crate::report::view::ReportView;
                drop(crate::report::table::render(
                    &imported.result,
                    crate::report::screen::Screen::UNLIMITED,
                    true,
                ));
                let view = ReportView::new(vec![("fio.json", &imported.result)], 0.05, true);
                drop(Html.render(&view));
            }
        }

        #[test]
        fn foreign_text_is_refused(text in "\\PC{0,300}") {
            prop_assert!(import(&text).is_err());
        }
    }
}
