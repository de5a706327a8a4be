//! `iolab report --format fio-json`: results written in the shape of fio's `--output-format=json+`, so fio-plot and other fio tooling read them, and `iolab import` reads them back with the same figures.
//!
//! Each measured repetition that completed becomes one fio job (a point of
//! groups: one job per group and repetition), its `groupid` the point's
//! index. Per direction: `io_bytes`, `total_ios`, `bw_bytes` and `iops` as
//! iolab measured them (not rounded, unlike fio's integers), `bw` in KiB/s,
//! `runtime` in whole ms (fio's unit; at least 1), and `lat_ns` and
//! `clat_ns` with iolab's percentiles and its histograms' buckets as json+'s
//! `bins` (as fio writes them with `lat_percentiles=1`), so the import
//! rebuilds the same histogram from `lat_ns`.
//!
//! What each engine gives, in fio's terms (fio's `lat` = `slat` + `clat`):
//! iolab times each I/O from just before the call that submits it to its
//! completion, which is fio's total latency, `lat_ns`. A synchronous engine
//! has no submission apart from the call: fio writes its `slat_ns` with no
//! samples (`N` 0) and its `clat_ns` equal to `lat_ns`, and so does iolab.
//! A queued engine's time in the submitting call, per request (iolab's
//! `submit_ns`, and a mix's per direction), is fio's `slat_ns`. Its
//! `clat_ns` is each I/O's time from that call's return to its
//! completion (iolab's `completion_ns`, per direction), as fio's clat.
//! With command priorities, each direction's `prios` as fio's (class,
//! level, hint and `lat_ns`), when two or more priorities have I/Os.
//!
//! `latency_ns`, `latency_us` and `latency_ms` are fio's shares of all I/Os
//! by total latency, in fio's bins (`"4"` in `latency_us`: 2 to 3 µs), read
//! from the histogram's buckets (a bucket is binned by its highest value:
//! within the histogram's 0.1% resolution of fio's edges). `elapsed` is the
//! timed region in whole seconds; `iodepth_level`, `iodepth_submit` and
//! `iodepth_complete` are fio's: a synchronous engine's one in flight, one
//! per call, always; a queued engine's as it measured them (each I/O's
//! depth at its submission, the I/Os per submitting call and per reaping
//! pass). `bw_min` … `iops_samples` are fio's per-interval samples, from
//! the repetition's series (`samples`); `zone_resets` (with `--zbd`) the
//! zones its jobs reset in the timed region. What fio reports and iolab does
//! not measure (disk utilisation) is left out, never zero.

use crate::plan::direction::Direction;
use crate::plan::priority::IoPriority;
use crate::plan::{Op, Pattern, Workload};
use crate::record::histogram::decode;
use crate::record::{LatencySummary, Point, QueueDepths, Repetition, ResultFile, Status};
use serde_json::{Map, Value, json};

/// How the jobs of a fio JSON document are named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobNames {
    /// iolab's point label, with `/GROUP` for a point of groups: every
    /// job of several result files told apart (`iolab report`).
    Points,
    /// The job's own name, as fio names it: the group's (a job file's
    /// section), or the point's label when it has no groups (`iolab fio`).
    Sections,
}

/// The fio JSON document of `results`, its jobs named as `names` says.
pub fn document(results: &[&ResultFile], names: JobNames) -> Value {
    let mut jobs = Vec::new();
    for result in results {
        for (index, point) in result.points.iter().enumerate() {
            // fio has no job for a metadata point ([`left_out`]), but for
            // one a fio file engine ran (`iolab fio`), written as fio writes it.
            let file_engine = is_metadata(point);
            if file_engine && names == JobNames::Points {
                continue;
            }
            let parts: Vec<(&Point, String)> = if point.groups.is_empty() {
                vec![(point, point.label.clone())]
            } else {
                point
                    .groups
                    .iter()
                    .map(|g| match names {
                        JobNames::Points => (g, format!("{}/{}", point.label, g.label)),
                        JobNames::Sections => (g, g.label.clone()),
                    })
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
                    jobs.push(job(&name, index, &part.workload, repetition, file_engine));
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

/// The bytes fio counts per operation of a file engine (`filecreate`,
/// `filestat`, …): its default block size, each operation a read.
const FILE_ENGINE_BYTES: u64 = 4096;

/// One fio job entry for `repetition` of a workload; with `file_engine`,
/// its metadata operations counted as fio's file engines count them (fio
/// 3.33: 1,200 filestat operations are 1,200 reads of 4,915,200 bytes).
fn job(
    name: &str,
    groupid: usize,
    workload: &Workload,
    repetition: &Repetition,
    file_engine: bool,
) -> Value {
    let elapsed_ns = repetition.elapsed_ns.unwrap_or(0);
    let runtime_ms = (elapsed_ns as f64 / 1e6).round().max(1.0) as u64;
    let mut entry = Map::new();
    entry.insert("jobname".into(), json!(name));
    entry.insert("groupid".into(), json!(groupid));
    entry.insert("error".into(), json!(0));
    entry.insert("job options".into(), Value::Object(options(workload)));
    let shares: Vec<Share<'_>> = if file_engine {
        vec![Share {
            direction: Direction::Read,
            bytes: repetition.ops * FILE_ENGINE_BYTES,
            ops: repetition.ops,
            bps: repetition.iops.map(|iops| iops * FILE_ENGINE_BYTES as f64),
            iops: repetition.iops,
            latency: repetition.latency_ns.as_ref(),
            completion: None,
            submit: None,
        }]
    } else if repetition.directions.is_empty() {
        vec![Share {
            direction: workload.directions().sole().unwrap_or(Direction::Read),
            bytes: repetition.bytes,
            ops: repetition.ops,
            bps: repetition.throughput_bps,
            iops: repetition.iops,
            latency: repetition.latency_ns.as_ref(),
            completion: repetition.completion_ns.as_ref(),
            submit: repetition.submit_ns.as_ref(),
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
                completion: d.completion_ns.as_ref(),
                submit: d.submit_ns.as_ref(),
            })
            .collect()
    };
    let engine = workload.engine;
    // A synchronous engine has no submission apart from its call: fio's
    // slat with no samples; a queued one's per direction, as measured.
    let queued = engine.capabilities().queued;
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
                "clat_ns": share.completion.or(share.latency).map_or_else(|| json!({}), clat),
                "lat_ns": share.latency.map_or_else(|| json!({}), clat),
            }),
            None => json!({
                "io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0,
                "runtime": 0, "total_ios": 0, "short_ios": 0, "drop_ios": 0,
            }),
        };
        let slat = match (queued, shares.iter().find(|s| s.direction == direction)) {
            (false, _) => Some(json!({"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0})),
            (true, share) => share.and_then(|s| s.submit).map(clat),
        };
        let mut value = match (value, slat) {
            (Value::Object(mut figures), Some(slat)) if figures.contains_key("clat_ns") => {
                figures.insert("slat_ns".into(), slat);
                Value::Object(figures)
            }
            (value, _) => value,
        };
        if let (Some(prios), Value::Object(figures)) = (prios(repetition, direction), &mut value) {
            figures.insert("prios".into(), prios);
        }
        if let Value::Object(figures) = &mut value {
            if figures.contains_key("clat_ns") {
                figures.extend(samples(workload, repetition, direction, shares.len() > 1));
            }
        }
        entry.insert(direction.name().to_string(), value);
    }
    if let Some(latency) = repetition
        .latency_ns
        .as_ref()
        .and_then(|l| decode(&l.histogram).ok())
    {
        for (unit, shares) in latency_bins(&latency) {
            entry.insert(unit.into(), shares);
        }
    }
    // As fio: only for a job on zones (zonemode=zbd).
    if let Some(resets) = repetition.zone_resets {
        entry.insert("zone_resets".into(), json!(resets));
    }
    entry.insert("job_runtime".into(), json!(runtime_ms));
    // fio's whole seconds the job ran (its timed region here, at least 1).
    entry.insert(
        "elapsed".into(),
        json!((elapsed_ns as f64 / 1e9).ceil().max(1.0) as u64),
    );
    // A synchronous engine has one I/O in flight, always, one per call
    // (fio counts it in its 1-to-4 bin); a queued one's as it measured.
    let depths = match (engine.capabilities().queued, &repetition.queue_depths) {
        (false, _) => Some(QueueDepths {
            at_submission: [1, 0, 0, 0, 0, 0, 0],
            per_submit_call: [0, 1, 0, 0, 0, 0, 0],
            per_reap: [0, 1, 0, 0, 0, 0, 0],
        }),
        (true, depths) => *depths,
    };
    if let Some(depths) = depths {
        const LEVELS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
        const CALLS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];
        entry.insert(
            "iodepth_level".into(),
            percent_of(&LEVELS, &depths.at_submission),
        );
        entry.insert(
            "iodepth_submit".into(),
            percent_of(&CALLS, &depths.per_submit_call),
        );
        entry.insert(
            "iodepth_complete".into(),
            percent_of(&CALLS, &depths.per_reap),
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
    /// A queued engine's from the submitting call's return (fio's clat);
    /// `None`: the same as `latency`.
    completion: Option<&'a LatencySummary>,
    /// A queued engine's time in the submitting calls (fio's slat).
    submit: Option<&'a LatencySummary>,
}

/// fio's bandwidth and IOPS samples of `direction` (`bw_min`, `bw_max`,
/// `bw_mean`, `bw_dev`, `bw_samples`, `iops_min` … `iops_samples`): one
/// sample per whole interval of the repetition's series (fio's
/// `bwavgtime`/`iopsavgtime`, iolab's `--interval`, 1 s unless set), a
/// partial last interval left out as fio leaves it; the deviations are
/// the samples' (n − 1), as fio's. With no whole interval, zeros and 0
/// samples, as fio writes a job shorter than its averaging time. Of a
/// `mixed` repetition, each direction's part of each interval. fio's
/// `bw_agg` (a share of its group's aggregate, which iolab's repetitions,
/// run one after another, do not make) is left out.
fn samples(
    workload: &Workload,
    repetition: &Repetition,
    direction: Direction,
    mixed: bool,
) -> Map<String, Value> {
    let length = repetition.series_interval_s.unwrap_or(workload.interval_s);
    let elapsed = repetition.elapsed_ns.unwrap_or(0) as f64 / 1e9;
    let whole: Vec<(u64, u64)> = repetition
        .series
        .iter()
        .filter(|interval| length > 0.0 && interval.start_s + length <= elapsed + 1e-6)
        .map(|interval| match mixed {
            false => (interval.bytes, interval.ops),
            true => interval
                .directions
                .iter()
                .find(|d| d.direction == direction)
                .map_or((0, 0), |d| (d.bytes, d.ops)),
        })
        .collect();
    let stats = |values: Vec<f64>| -> [f64; 4] {
        let n = values.len() as f64;
        if values.is_empty() {
            return [0.0; 4];
        }
        let mean = values.iter().sum::<f64>() / n;
        let deviation = match values.len() {
            1 => 0.0,
            _ => (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt(),
        };
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        [min, max, mean, deviation]
    };
    let [bw_min, bw_max, bw_mean, bw_dev] = stats(
        whole
            .iter()
            .map(|(bytes, _)| *bytes as f64 / length / 1024.0)
            .collect(),
    );
    let [iops_min, iops_max, iops_mean, iops_dev] =
        stats(whole.iter().map(|(_, ops)| *ops as f64 / length).collect());
    let n = whole.len();
    match json!({
        "bw_min": bw_min, "bw_max": bw_max, "bw_mean": bw_mean, "bw_dev": bw_dev,
        "bw_samples": n,
        "iops_min": iops_min, "iops_max": iops_max, "iops_mean": iops_mean,
        "iops_stddev": iops_dev, "iops_samples": n,
    }) {
        Value::Object(figures) => figures,
        _ => Map::new(),
    }
}

/// fio's percentages of `counts` under its bins' `names` (all 0 without any).
fn percent_of(names: &[&str; 7], counts: &[u64; 7]) -> Value {
    let total: u64 = counts.iter().sum();
    let share = |count: u64| match total {
        0 => 0.0,
        _ => 100.0 * count as f64 / total as f64,
    };
    Value::Object(
        names
            .iter()
            .zip(counts)
            .map(|(name, count)| (name.to_string(), json!(share(*count))))
            .collect(),
    )
}

/// fio's `prios` of `direction`: per priority its I/Os went at, its class,
/// level and hint (0, 0, 0: the thread's own, as iolab was started) and
/// their latencies as `lat_ns` (fio's name with `lat_percentiles=1`: iolab
/// keeps them from before the submitting call); as fio, only when two or
/// more priorities have I/Os.
fn prios(repetition: &Repetition, direction: Direction) -> Option<Value> {
    let kept: Vec<Value> = repetition
        .priorities
        .iter()
        .filter(|p| p.direction == direction && p.latency_ns.count > 0)
        .map(|p| {
            let priority = p
                .priority
                .as_deref()
                .and_then(|text| text.parse::<IoPriority>().ok());
            json!({
                "prioclass": priority.map_or(0, |p| p.class as u16),
                "prio": priority.map_or(0, |p| p.level),
                "priohint": priority.map_or(0, |p| p.hint),
                "lat_ns": clat(&p.latency_ns),
            })
        })
        .collect();
    (kept.len() >= 2).then_some(Value::Array(kept))
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

/// fio's latency distribution (`latency_ns`, `latency_us`, `latency_ms`):
/// the share of all I/Os, in percent, in each of fio's bins by total
/// latency — below 1 µs by nanoseconds, below 1 ms by whole microseconds,
/// then by whole milliseconds — each bin named by its upper edge, as fio's
/// `io_u_mark_latency` bins them.
fn latency_bins(histogram: &hdrhistogram::Histogram<u64>) -> [(&'static str, Value); 3] {
    const EDGES: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
    const MS_EDGES: [u64; 11] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000];
    let mut ns = [0u64; 10];
    let mut us = [0u64; 10];
    let mut ms = [0u64; 12];
    let bin = |edges: &[u64], value: u64| edges.iter().position(|&edge| value < edge);
    for bucket in histogram.iter_recorded() {
        let value = bucket.value_iterated_to();
        let count = bucket.count_at_value();
        if value < 1_000 {
            ns[bin(&EDGES, value).unwrap_or(9)] += count;
        } else if value < 1_000_000 {
            us[bin(&EDGES, value / 1_000).unwrap_or(9)] += count;
        } else {
            ms[bin(&MS_EDGES, value / 1_000_000).unwrap_or(11)] += count;
        }
    }
    let total = histogram.len().max(1) as f64;
    let shares = |counts: &[u64], names: &[String]| -> Value {
        names
            .iter()
            .zip(counts)
            .map(|(name, &count)| (name.clone(), json!(count as f64 / total * 100.0)))
            .collect::<Map<String, Value>>()
            .into()
    };
    let names: Vec<String> = EDGES.iter().map(u64::to_string).collect();
    let mut ms_names: Vec<String> = MS_EDGES.iter().map(u64::to_string).collect();
    ms_names.push(">=2000".into());
    [
        ("latency_ns", shares(&ns, &names)),
        ("latency_us", shares(&us, &names)),
        ("latency_ms", shares(&ms, &ms_names)),
    ]
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
        (Op::Trimwrite, false) => "trimwrite",
        (Op::Trimwrite, true) => "randtrimwrite",
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
    // fio's bssplit, `4096/60:65536/40` (bytes, whole percents).
    let fio_split = |split: &crate::plan::BlockSplit| {
        let parts: Vec<String> = split
            .entries()
            .iter()
            .map(|(size, share)| format!("{size}/{share}"))
            .collect();
        parts.join(":")
    };
    // A mix's writes' own sizes: fio's `bs=R,W` and `bssplit=R,W`.
    match workload.write_bs {
        None => set("bs", workload.bs.to_string()),
        Some(writes) => set("bs", format!("{},{}", workload.bs, writes.smallest())),
    }
    match (&workload.bssplit, &workload.write_bs) {
        (Some(split), None) => set("bssplit", fio_split(split)),
        (split, Some(writes)) if split.is_some() || writes.entries().len() > 1 => {
            let reads = split.unwrap_or(crate::plan::BlockSplit::single(workload.bs));
            set(
                "bssplit",
                format!("{},{}", fio_split(&reads), fio_split(writes)),
            );
        }
        _ => {}
    }
    set("size", workload.size.to_string());
    if let Some(name) = workload.engine.fio_names().first() {
        set("ioengine", (*name).to_string());
    }
    if workload.engine.capabilities().queued {
        set("iodepth", workload.iodepth.to_string());
    }
    if workload.sq_poll {
        set("sqthread_poll", "1".into());
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
        let key = if workload.fsync_data {
            "fdatasync"
        } else {
            "fsync"
        };
        set(key, workload.fsync_every.to_string());
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
    if workload.serialize_overlap {
        set("serialize_overlap", "1".into());
    }
    if let Some(zbd) = workload.zbd {
        set("zonemode", "zbd".into());
        set("zonesize", zbd.zone_size.to_string());
        if zbd.capacity != zbd.zone_size {
            set("zonecapacity", zbd.capacity.to_string());
        }
        if zbd.max_open > 0 {
            set("max_open_zones", zbd.max_open.to_string());
        }
        if zbd.reset_frequency > 0 {
            let fraction = |thousandths: u16| (f64::from(thousandths) / 1000.0).to_string();
            set("zone_reset_threshold", fraction(zbd.reset_threshold));
            set("zone_reset_frequency", fraction(zbd.reset_frequency));
        }
        if zbd.read_beyond_wp {
            set("read_beyond_wp", "1".into());
        }
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each latency lands in fio's bin by its unit's whole number, named
    /// by the bin's upper edge: 1.5 µs in `latency_us` "2", 2 µs in "4",
    /// 999 µs in "1000", 2.5 s in `latency_ms` ">=2000"; the shares are of
    /// every I/O.
    #[test]
    fn latencies_fall_in_fios_bins() {
        let mut histogram =
            hdrhistogram::Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        for ns in [500, 1_500, 2_000, 999_000, 1_500_000, 2_500_000_000] {
            histogram.record(ns).unwrap();
        }
        let [(_, ns), (_, us), (_, ms)] = latency_bins(&histogram);
        let one = |bins: &Value, name: &str| {
            let share = bins[name].as_f64().unwrap();
            assert!((share - 100.0 / 6.0).abs() < 1e-9, "{name}: {share}");
        };
        one(&ns, "750");
        one(&us, "2");
        one(&us, "4");
        one(&us, "1000");
        one(&ms, "2");
        one(&ms, ">=2000");
        let sum: f64 = [&ns, &us, &ms]
            .iter()
            .flat_map(|bins| bins.as_object().unwrap().values())
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert!((sum - 100.0).abs() < 1e-9, "{sum}");
    }

    /// Bandwidth and IOPS samples are one per whole interval of the
    /// series (the partial last one left out, as fio leaves it), their
    /// deviation the samples' (n − 1), in fio's units (KiB/s); a mix's
    /// are each direction's part; a repetition shorter than an interval
    /// has 0 samples.
    #[test]
    fn samples_are_the_series_whole_intervals() {
        let workload = crate::plan::default_workload();
        let mut repetition = Repetition::new(0, Status::Ok, 0, 0);
        repetition.elapsed_ns = Some(3_500_000_000);
        let interval = |start_s: f64, bytes: u64, write: u64| -> crate::record::Interval {
            serde_json::from_value(json!({
                "start_s": start_s, "bytes": bytes + write, "ops": (bytes + write) / 1024,
                "directions": [
                    {"direction": "read", "bytes": bytes, "ops": bytes / 1024},
                    {"direction": "write", "bytes": write, "ops": write / 1024},
                ],
            }))
            .unwrap()
        };
        repetition.series = vec![
            interval(0.0, 1 << 20, 0),
            interval(1.0, 2 << 20, 1 << 20),
            interval(2.0, 3 << 20, 0),
            interval(3.0, 9 << 20, 0),
        ];
        let read = samples(&workload, &repetition, Direction::Read, true);
        assert_eq!(read["bw_samples"], 3);
        assert_eq!(read["bw_min"], 1024.0);
        assert_eq!(read["bw_max"], 3072.0);
        assert_eq!(read["bw_mean"], 2048.0);
        assert_eq!(read["bw_dev"], 1024.0);
        assert_eq!(read["iops_mean"], 2048.0);
        let write = samples(&workload, &repetition, Direction::Write, true);
        assert_eq!(write["bw_max"], 1024.0);
        assert_eq!(write["bw_min"], 0.0);
        let all = samples(&workload, &repetition, Direction::Read, false);
        assert_eq!(all["bw_max"], 3072.0);
        repetition.elapsed_ns = Some(900_000_000);
        let short = samples(&workload, &repetition, Direction::Read, true);
        assert_eq!(short["bw_samples"], 0);
        assert_eq!(short["bw_mean"], 0.0);
    }

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

    /// A zoned device's options are written as fio's (`import`'s
    /// `zoned_devices_import_as_zbd` reads the same back).
    #[test]
    fn a_zoned_device_is_written_as_fios_zbd_options() {
        let zbd: crate::plan::Zbd = "1MiB,capacity=768KiB,open=4,reset=0.7/0.125"
            .parse()
            .unwrap();
        let written = options(&Workload {
            zbd: Some(zbd),
            ..crate::plan::default_workload()
        });
        for (key, value) in [
            ("zonemode", "zbd"),
            ("zonesize", "1048576"),
            ("zonecapacity", "786432"),
            ("max_open_zones", "4"),
            ("zone_reset_threshold", "0.7"),
            ("zone_reset_frequency", "0.125"),
        ] {
            assert_eq!(written[key], value, "{key}");
        }
    }
}
