//! One fio job's figures as iolab's repetition: its totals, its latency from json+'s bins, its per-job records, a mix's directions as shares, and the check that the figures fio wrote agree with each other.

use crate::plan::direction::Direction;
use crate::record::histogram::{latency_summary, new_histogram};
use crate::record::{DirectionShare, Job, Repetition, Status};
use serde_json::Value;

/// The per-job records of one direction: one per clone of a `numjobs` job
/// (gathered by the import, `iolab_clones`), else one for the whole entry
/// (fio's group_reporting gives only totals).
fn jobs_of(
    direction: &Value,
    file: Option<String>,
    bytes: u64,
    ops: u64,
    elapsed_ns: u64,
) -> Vec<Job> {
    let clones = direction.get("iolab_clones").and_then(Value::as_array);
    match clones {
        Some(clones) if !clones.is_empty() => clones
            .iter()
            .enumerate()
            .map(|(index, clone)| {
                let number = |key: &str| clone.get(key).and_then(Value::as_u64).unwrap_or(0);
                Job {
                    job: index as u32,
                    file: file.clone(),
                    bytes: number("io_bytes"),
                    ops: number("total_ios"),
                    elapsed_ns: number("runtime").saturating_mul(1_000_000),
                    latency_depth: None,
                    latency_settled: None,
                    ios: None,
                }
            })
            .collect(),
        _ => vec![Job {
            job: 0,
            file,
            bytes,
            ops,
            elapsed_ns,
            latency_depth: None,
            latency_settled: None,
            ios: None,
        }],
    }
}

/// The repetition fio measured for one direction of `job` (`name`), and
/// whether it carried json+ latency bins; refused when a bin counts more
/// I/Os than a histogram holds.
pub(super) fn repetition(
    direction: &Value,
    job: &Value,
    file: Option<String>,
    name: &str,
) -> Result<(Repetition, bool), String> {
    let number = |value: &Value, key: &str| value.get(key).and_then(Value::as_f64);
    let bytes = direction
        .get("io_bytes")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let ops = direction
        .get("total_ios")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let error = job.get("error").and_then(Value::as_i64).unwrap_or(0);
    let runtime_ms = direction
        .get("runtime")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    // A runtime beyond 64-bit nanoseconds (584 years) is a damaged file, not a run.
    let elapsed_ns = runtime_ms.checked_mul(1_000_000);
    let ok = error == 0 && runtime_ms > 0 && elapsed_ns.is_some();
    let mut histogram = new_histogram();
    // iolab's latency is fio's total, `lat_ns`, whose bins fio writes with
    // `lat_percentiles=1` (and iolab's export always); else fio's default,
    // `clat_ns`, which for a queued engine leaves out the submission.
    let binned = ["lat_ns", "clat_ns"].into_iter().find_map(|key| {
        let bins = direction.get(key)?.get("bins")?.as_object()?;
        Some((key, bins))
    });
    let (key, bins) = (
        binned.map_or("clat_ns", |(key, _)| key),
        binned.map(|(_, bins)| bins),
    );
    let mut total: u64 = 0;
    for (value, count) in bins.into_iter().flatten() {
        if let (Ok(value), Some(count)) = (value.parse::<u64>(), count.as_u64()) {
            total = total
                .checked_add(count)
                .filter(|&t| t <= crate::record::histogram::MAX_COUNT)
                .ok_or_else(|| {
                    format!(
                        "job {name}: {key} bin {value} counts {count} I/Os, which brings the \
                         bins past 2^63 - 1, more than any run has done (a damaged file?)"
                    )
                })?;
            histogram.saturating_record_n(value.max(1), count);
        }
    }
    let has_latency = ok && !histogram.is_empty();
    let latency_ns = match has_latency {
        true => Some(latency_summary(&histogram).map_err(|e| format!("job {name}: {e}"))?),
        false => None,
    };
    let elapsed_ns = elapsed_ns.unwrap_or(0);
    Ok((
        Repetition {
            error: (!ok).then(|| {
                if error == 0 && runtime_ms > 0 {
                    format!("fio reported a runtime of {runtime_ms} ms, too long to be true")
                } else {
                    format!("fio reported error {error} (runtime {runtime_ms} ms)")
                }
            }),
            elapsed_ns: ok.then_some(elapsed_ns),
            throughput_bps: if ok {
                number(direction, "bw_bytes")
            } else {
                None
            },
            iops: if ok { number(direction, "iops") } else { None },
            latency_ns,
            jobs: jobs_of(direction, file, bytes, ops, if ok { elapsed_ns } else { 0 })
                .into_iter()
                .map(|each| Job {
                    // fio reports the depth its latency_target search ended
                    // at; whether it held there, it does not say.
                    latency_depth: job
                        .get("latency_target")
                        .and_then(Value::as_u64)
                        .filter(|&target| target > 0)
                        .and_then(|_| job.get("latency_depth")?.as_u64())
                        .and_then(|depth| u32::try_from(depth).ok()),
                    ..each
                })
                .collect(),
            ..Repetition::new(0, if ok { Status::Ok } else { Status::Failed }, bytes, ops)
        },
        bins.is_some(),
    ))
}

/// Whether one direction's figures can be a run's: none negative or not
/// finite, a runtime where bytes moved, and `bw_bytes` and `iops` what
/// `io_bytes` and `total_ios` over `runtime` give, within its rounding to
/// whole milliseconds and 2%.
pub(super) fn figures_agree(direction: &Value) -> Result<(), String> {
    let Some(fields) = direction.as_object() else {
        return Ok(());
    };
    for key in ["io_bytes", "total_ios", "bw_bytes", "bw", "iops", "runtime"] {
        let Some(value) = fields.get(key) else {
            continue;
        };
        match value.as_f64() {
            Some(number) if number.is_finite() && number >= 0.0 => {}
            Some(number) => return Err(format!("{key} = {number} is not a measured figure")),
            None if value.is_number() => return Err(format!("{key} = {value} is out of range")),
            None => return Err(format!("{key} = {value} is not a number")),
        }
    }
    let number = |key: &str| fields.get(key).and_then(Value::as_f64).unwrap_or(0.0);
    let (bytes, ios, runtime_ms) = (number("io_bytes"), number("total_ios"), number("runtime"));
    if bytes == 0.0 && ios == 0.0 {
        return Ok(());
    }
    if runtime_ms <= 0.0 {
        return Err(format!(
            "runtime = {runtime_ms} ms beside io_bytes = {bytes}: a run that moved data took time"
        ));
    }
    // `runtime` is in whole milliseconds (iolab writes at least 1): the
    // time measured lies within a millisecond of it.
    for (rate, count, unit) in [("bw_bytes", bytes, "bytes"), ("iops", ios, "I/Os")] {
        let Some((written, given)) = fields.get(rate).and_then(|v| Some((v, v.as_f64()?))) else {
            continue;
        };
        let lowest = count * 1000.0 / (runtime_ms + 1.0) * 0.98 - 1.0;
        let highest = match runtime_ms > 1.0 {
            true => count * 1000.0 / (runtime_ms - 1.0) * 1.02 + 1.0,
            false => f64::INFINITY,
        };
        if !(lowest..=highest).contains(&given) {
            return Err(format!(
                "{rate} = {written} disagrees with {count} {unit} in {runtime_ms} ms ({:.0}/s)",
                count * 1000.0 / runtime_ms
            ));
        }
    }
    Ok(())
}

/// The one repetition of a mixed job (`rw=randrw`): fio reports each
/// direction on its own; iolab's totals add them (both ran over the same
/// time, so throughputs and IOPS add), the latency histograms merge, and
/// each direction's figures become its share.
pub(super) fn mixed_repetition(
    read: &Value,
    write: &Value,
    job: &Value,
    file: Option<String>,
    name: &str,
) -> Result<(Repetition, bool), String> {
    let (read_rep, read_bins) = repetition(read, job, file.clone(), name)?;
    let (write_rep, write_bins) = repetition(write, job, file, name)?;
    let ok = read_rep.status == Status::Ok && write_rep.status == Status::Ok;
    let add = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| a + b).filter(|_| ok);
    let latency_ns = match (&read_rep.latency_ns, &write_rep.latency_ns) {
        (Some(r), Some(w)) if ok => {
            let mut merged = crate::record::histogram::decode(&r.histogram)?;
            merged
                .add(crate::record::histogram::decode(&w.histogram)?)
                .map_err(|e| format!("job {name}: cannot merge the directions' bins: {e:?}"))?;
            Some(latency_summary(&merged).map_err(|e| format!("job {name}: {e}"))?)
        }
        _ => None,
    };
    let share = |direction, rep: &Repetition| DirectionShare {
        direction,
        bytes: rep.bytes,
        ops: rep.ops,
        throughput_bps: rep.throughput_bps.filter(|_| ok),
        iops: rep.iops.filter(|_| ok),
        latency_ns: rep.latency_ns.clone().filter(|_| ok),
        completion_ns: None,
        submit_ns: None,
    };
    let jobs = read_rep
        .jobs
        .iter()
        .zip(&write_rep.jobs)
        .map(|(r, w)| Job {
            bytes: r.bytes + w.bytes,
            ops: r.ops + w.ops,
            elapsed_ns: r.elapsed_ns.max(w.elapsed_ns),
            ..r.clone()
        })
        .collect();
    let status = if ok { Status::Ok } else { Status::Failed };
    Ok((
        Repetition {
            error: read_rep.error.clone().or_else(|| write_rep.error.clone()),
            elapsed_ns: read_rep
                .elapsed_ns
                .zip(write_rep.elapsed_ns)
                .map(|(r, w)| r.max(w)),
            throughput_bps: add(read_rep.throughput_bps, write_rep.throughput_bps),
            iops: add(read_rep.iops, write_rep.iops),
            latency_ns,
            directions: vec![
                share(Direction::Read, &read_rep),
                share(Direction::Write, &write_rep),
            ],
            jobs,
            ..Repetition::new(
                0,
                status,
                read_rep.bytes + write_rep.bytes,
                read_rep.ops + write_rep.ops,
            )
        },
        read_bins && write_bins,
    ))
}
