//! `iolab report --format fio-json`: results written in the shape of fio's `--output-format=json+`, so fio-plot and other fio tooling read them, and `iolab import` reads them back with the same figures.
//!
//! Each measured repetition that completed becomes one fio job (a point of
//! groups: one job per group and repetition), its `groupid` the point's
//! index. Per direction: `io_bytes`, `total_ios`, `bw_bytes` and `iops` as
//! iolab measured them (not rounded, unlike fio's integers), `bw` in KiB/s,
//! `runtime` in whole ms (fio's unit; at least 1), and `clat_ns` with
//! iolab's percentiles and its histogram's buckets as json+'s `bins`, so
//! the import rebuilds the same histogram. `lat_ns` repeats `clat_ns`:
//! iolab times each I/O from its submission, which is what fio's total
//! latency is for the synchronous engines. `elapsed` is the timed region in
//! whole seconds, and `iodepth_level` is given for a synchronous engine (one
//! in flight, always). What fio reports and iolab does not measure
//! (`slat_ns`, a queued engine's depth at each submission, disk
//! utilisation) is left out, never zero.

use crate::plan::direction::Direction;
use crate::plan::{Op, Pattern, Workload};
use crate::record::histogram::decode;
use crate::record::{LatencySummary, Point, Repetition, ResultFile, Status};
use serde_json::{Map, Value, json};

/// The fio JSON document of `results`.
pub fn document(results: &[&ResultFile]) -> Value {
    let mut jobs = Vec::new();
    for result in results {
        for (index, point) in result.points.iter().enumerate() {
            // fio has no job for a metadata point ([`left_out`]).
            if is_metadata(point) {
                continue;
            }
            let parts: Vec<(&Point, String)> = if point.groups.is_empty() {
                vec![(point, point.label.clone())]
            } else {
                point
                    .groups
                    .iter()
                    .map(|g| (g, format!("{}/{}", point.label, g.label)))
                    .collect()
            };
            for (part, name) in parts {
                let measured: Vec<&Repetition> = part
                    .repetitions
                    .iter()
                    .filter(|r| !r.warmup && r.status == Status::Ok)
                    .collect();
                for repetition in &measured {
                    let name = match measured.len() {
                        1 => name.clone(),
                        _ => format!("{name} (repetition {})", repetition.index),
                    };
                    jobs.push(job(&name, index, &part.workload, repetition));
                }
            }
        }
    }
    let first = results.first();
    json!({
        "fio version": format!("iolab-{}", first.map_or("", |r| r.tool.version.as_str())),
        "iolab": "written by iolab report --format fio-json; figures are iolab's (docs/fio-job-files.md)",
        "time": first.map_or("", |r| r.created.as_str()),
        "global options": {},
        "jobs": jobs,
    })
}

/// Whether `point` works on a tree's items (or has a group that does):
/// fio moves blocks of files, and a create, stat or delete written as a
/// fio job would read as a write.
fn is_metadata(point: &Point) -> bool {
    std::iter::once(&point.workload)
        .chain(point.groups.iter().map(|g| &g.workload))
        .any(|w| w.work() == crate::plan::Work::Tree || w.op.is_metadata())
}

/// The labels of the points of `results` the fio JSON leaves out: metadata
/// points, which fio has no job for (mdtest measures them).
pub fn left_out(results: &[&ResultFile]) -> Vec<String> {
    results
        .iter()
        .flat_map(|r| &r.points)
        .filter(|p| is_metadata(p))
        .map(|p| p.label.clone())
        .collect()
}

/// One fio job entry for `repetition` of a workload.
fn job(name: &str, groupid: usize, workload: &Workload, repetition: &Repetition) -> Value {
    let elapsed_ns = repetition.elapsed_ns.unwrap_or(0);
    let runtime_ms = (elapsed_ns as f64 / 1e6).round().max(1.0) as u64;
    let mut entry = Map::new();
    entry.insert("jobname".into(), json!(name));
    entry.insert("groupid".into(), json!(groupid));
    entry.insert("error".into(), json!(0));
    entry.insert("job options".into(), Value::Object(options(workload)));
    let shares: Vec<Share<'_>> = if repetition.directions.is_empty() {
        vec![Share {
            direction: workload.directions().sole().unwrap_or(Direction::Read),
            bytes: repetition.bytes,
            ops: repetition.ops,
            bps: repetition.throughput_bps,
            iops: repetition.iops,
            latency: repetition.latency_ns.as_ref(),
        }]
    } else {
        repetition
            .directions
            .iter()
            .map(|d| Share {
                direction: d.direction,
                bytes: d.bytes,
                ops: d.ops,
                bps: d.throughput_bps,
                iops: d.iops,
                latency: d.latency_ns.as_ref(),
            })
            .collect()
    };
    for direction in Direction::ALL {
        let value = match shares.iter().find(|s| s.direction == direction) {
            Some(share) => json!({
                "io_bytes": share.bytes,
                "io_kbytes": share.bytes / 1024,
                "bw_bytes": share.bps.unwrap_or(0.0),
                "bw": share.bps.unwrap_or(0.0) / 1024.0,
                "iops": share.iops.unwrap_or(0.0),
                "runtime": runtime_ms,
                "total_ios": share.ops,
                "short_ios": 0,
                "drop_ios": 0,
                "clat_ns": share.latency.map_or_else(|| json!({}), clat),
                "lat_ns": share.latency.map_or_else(|| json!({}), clat),
            }),
            None => json!({
                "io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0,
                "runtime": 0, "total_ios": 0, "short_ios": 0, "drop_ios": 0,
            }),
        };
        entry.insert(direction.name().to_string(), value);
    }
    entry.insert("job_runtime".into(), json!(runtime_ms));
    // fio's whole seconds the job ran (its timed region here, at least 1).
    entry.insert(
        "elapsed".into(),
        json!((elapsed_ns as f64 / 1e9).ceil().max(1.0) as u64),
    );
    // A synchronous engine has one I/O in flight, always; a queued one's
    // depth at each submission is not recorded, so it is left out.
    if !workload.engine.capabilities().queued {
        entry.insert(
            "iodepth_level".into(),
            json!({"1": 100.0, "2": 0.0, "4": 0.0, "8": 0.0, "16": 0.0, "32": 0.0, ">=64": 0.0}),
        );
    }
    if let Some(cpu) = &repetition.cpu {
        let seconds = (elapsed_ns as f64 * 1e-9).max(1e-9);
        entry.insert("usr_cpu".into(), json!(cpu.user_s / seconds * 100.0));
        entry.insert("sys_cpu".into(), json!(cpu.system_s / seconds * 100.0));
        entry.insert(
            "ctx".into(),
            json!(cpu.voluntary_switches + cpu.involuntary_switches),
        );
        entry.insert("majf".into(), json!(cpu.major_faults));
        entry.insert("minf".into(), json!(cpu.minor_faults));
    }
    Value::Object(entry)
}

/// One direction's figures of a repetition.
struct Share<'a> {
    direction: Direction,
    bytes: u64,
    ops: u64,
    bps: Option<f64>,
    iops: Option<f64>,
    latency: Option<&'a LatencySummary>,
}

/// fio's `clat_ns`: min, max, mean, stddev, N, percentiles keyed as fio
/// keys them (`"99.000000"`), and the histogram's buckets as `bins`
/// (each bucket's highest value: the import records it into the same one).
fn clat(latency: &LatencySummary) -> Value {
    let percentiles: Map<String, Value> = latency
        .percentiles
        .iter()
        .map(|p| (format!("{:.6}", p.percentile), json!(p.value)))
        .collect();
    let bins: Map<String, Value> = decode(&latency.histogram)
        .map(|histogram| {
            histogram
                .iter_recorded()
                .map(|bucket| {
                    (
                        bucket.value_iterated_to().to_string(),
                        json!(bucket.count_at_value()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    json!({
        "min": latency.min,
        "max": latency.max,
        "mean": latency.mean,
        "stddev": latency.stdev,
        "N": latency.count,
        "percentile": percentiles,
        "bins": bins,
    })
}

/// The fio options that describe `workload` as far as fio's options can:
/// `rw` (with its `:N` skip for a stride or reverse), `bs`, `size`, `ioengine`, `iodepth`, `numjobs` (with
/// `group_reporting`: one entry for all of a group's jobs), `direct`,
/// `sync`, `fsync`, `end_fsync`, `runtime` with `time_based`, `ramp_time`,
/// `rwmixread`, `rate_iops`, and `norandommap` or `random_distribution`.
fn options(workload: &Workload) -> Map<String, Value> {
    let random = !workload.pattern.in_order();
    let rw = match (workload.op, random) {
        (Op::Read | Op::Reread, false) => "read",
        (Op::Read | Op::Reread, true) => "randread",
        (Op::Write | Op::Rewrite, false) => "write",
        (Op::Write | Op::Rewrite, true) => "randwrite",
        (Op::Mix, false) => "rw",
        (Op::Mix, true) => "randrw",
        (Op::Trim, false) => "trim",
        (Op::Trim, true) => "randtrim",
        // A metadata operation has no fio rw; fio's file engines are named so.
        (other, _) => other.name(),
    };
    let mut options = Map::new();
    let mut set = |key: &str, value: String| {
        options.insert(key.to_string(), Value::String(value));
    };
    // fio's `rw=…:N` skip: a stride of k blocks skips k - 1 after each
    // I/O, and iolab's reverse is fio's step back of two blocks (the
    // import reads them so).
    let rw = match workload.pattern {
        Pattern::Stride(k) => format!("{rw}:{}", (k - 1) * workload.bs),
        Pattern::Reverse => format!("{rw}:-{}", 2 * workload.bs),
        _ => rw.to_string(),
    };
    set("rw", rw);
    set("bs", workload.bs.to_string());
    // fio's bssplit, `4096/60:65536/40` (bytes, whole percents).
    if let Some(split) = &workload.bssplit {
        let parts: Vec<String> = split
            .entries()
            .iter()
            .map(|(size, share)| format!("{size}/{share}"))
            .collect();
        set("bssplit", parts.join(":"));
    }
    set("size", workload.size.to_string());
    if let Some(name) = workload.engine.fio_names().first() {
        set("ioengine", (*name).to_string());
    }
    if workload.engine.capabilities().queued {
        set("iodepth", workload.iodepth.to_string());
    }
    set("numjobs", workload.jobs.to_string());
    set("group_reporting", String::new());
    set("direct", u8::from(workload.direct).to_string());
    match workload.sync {
        crate::plan::SyncMode::None => {}
        crate::plan::SyncMode::Osync => set("sync", "sync".into()),
        crate::plan::SyncMode::Odsync => set("sync", "dsync".into()),
    }
    if workload.fsync_every > 0 {
        set("fsync", workload.fsync_every.to_string());
    }
    if workload.fsync_end {
        set("end_fsync", "1".into());
    }
    if let Some(runtime) = workload.runtime_s {
        set("runtime", format!("{}ms", (runtime * 1e3).round() as u64));
        set("time_based", String::new());
    }
    if workload.ramp_s > 0.0 {
        set(
            "ramp_time",
            format!("{}ms", (workload.ramp_s * 1e3).round() as u64),
        );
    }
    if workload.op == Op::Mix {
        set(
            "rwmixread",
            workload.directions().read_percent().to_string(),
        );
    }
    if let (Some(iops), None) = (workload.rate_iops, workload.direction_iops()) {
        set("rate_iops", iops.total().to_string());
    }
    match workload.pattern {
        Pattern::Uniform => set("norandommap", "1".into()),
        Pattern::Skewed(skew) => set("random_distribution", skew.to_string()),
        Pattern::Listed(list) => {
            set(
                "random_distribution",
                format!("sequence:{}", list.fio_list()),
            );
            if list.advancing() {
                set("random_sequence_stride", "1".into());
            }
        }
        Pattern::Bands { read, skip } => {
            set("zonemode", "strided".into());
            set("zonesize", (read * workload.bs).to_string());
            set("zoneskip", (skip * workload.bs).to_string());
        }
        _ => {}
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A split of block sizes is written as fio's `bssplit`, in bytes, so
    /// fio-plot and `iolab import` read the sizes the job moved.
    #[test]
    fn a_block_size_split_is_written_as_fios_bssplit() {
        let workload = Workload {
            bssplit: Some("4k=60,64k=40".parse().unwrap()),
            ..crate::plan::default_workload()
        };
        let written = options(&workload);
        assert_eq!(written["bssplit"], "4096/60:65536/40");
        assert!(
            options(&crate::plan::default_workload())
                .get("bssplit")
                .is_none()
        );
    }

    /// The patterns fio writes with `rw=…:N` (and strided zones) keep it,
    /// so the export reads back as the plan that ran.
    #[test]
    fn skips_and_zones_are_written_as_fio_reads_them() {
        let with = |pattern: &str| {
            options(&Workload {
                pattern: pattern.parse().unwrap(),
                ..crate::plan::default_workload()
            })
        };
        assert_eq!(with("stride:3")["rw"], "read:8192");
        assert_eq!(with("reverse")["rw"], "read:-8192");
        assert_eq!(with("seq")["rw"], "read");
        let zones = with("bands:4/12");
        assert_eq!(
            (
                &zones["rw"],
                &zones["zonemode"],
                &zones["zonesize"],
                &zones["zoneskip"]
            ),
            (
                &Value::from("read"),
                &Value::from("strided"),
                &Value::from("16384"),
                &Value::from("49152")
            )
        );
    }
}
