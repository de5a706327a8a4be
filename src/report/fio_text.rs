//! fio's text outputs written from the fio JSON iolab makes ([`super::fio_json`]): the human one (`--output-format=normal`, laid out as fio 3.33's `stat.c` prints it: each job's block, then each group's run status; a figure the JSON lacks is left out, never printed as a zero) and the terse one (`--minimal`, version 3: a figure the JSON lacks is an empty field).
//!
//! Scripts read fio's normal output by its words (`IOPS=`, `BW=`,
//! `clat percentiles`, `READ: bw=`), so each line keeps fio's words,
//! number formats (`num2str`'s four significant figures, `KiB`/`kB` side by
//! side) and order. Percentiles are fio's default list, read from the
//! JSON's latency bins as fio reads its own (the value of the first bin at
//! which the count reaches the percentile).

use serde_json::Value;
use std::fmt::Write;

/// fio's default `percentile_list`.
const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// fio's `num2str`: `num` (times `base`) in at most `max_len` characters
/// of digits, with a unit prefix (powers of 1024 with `pow2`, else 1000)
/// and `unit` after it; the dropped digits round the last one kept.
pub fn num2str(num: u64, max_len: usize, base: u64, pow2: bool, unit: &str) -> String {
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    let prefixes = if pow2 { IEC } else { SI };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let mut post = 0;
    let mut base = base;
    while base > 1 {
        base /= thousand;
        post += 1;
    }
    let mut num = num;
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post < prefixes.len() {
        if num.to_string().len() <= max_len {
            break;
        }
        let m = num % thousand;
        modulo = Some(m);
        num /= thousand;
        carry = m >= thousand / 2;
        post += 1;
    }
    if post >= prefixes.len() {
        post = 0;
    }
    let Some(modulo) = modulo else {
        return format!("{num}{}{unit}", prefixes[post]);
    };
    let digits = num.to_string().len();
    if max_len.saturating_sub(digits) <= 1 {
        return format!("{}{}{unit}", num + u64::from(carry), prefixes[post]);
    }
    let decimals = max_len - digits - 1;
    let fraction = format!("{:.*}", decimals, modulo as f64 / thousand as f64);
    if fraction.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{}{unit}", &fraction[2..], prefixes[post])
}

fn number(value: &Value, key: &str) -> Option<f64> {
    value.get(key)?.as_f64()
}

fn whole(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// fio's `display_lat`: one latency's min, max, mean and deviation, in
/// the unit fio chooses for them; `None` without samples.
fn display_lat(name: &str, stats: &Value) -> Option<String> {
    if whole(stats, "N") == 0 {
        return None;
    }
    let (mut min, mut max) = (whole(stats, "min"), whole(stats, "max"));
    let (mut mean, mut dev) = (number(stats, "mean")?, number(stats, "stddev")?);
    let unit = if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        (min, max, mean, dev) = (min / 1_000_000, max / 1_000_000, mean / 1e6, dev / 1e6);
        "(msec)"
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        (min, max, mean, dev) = (min / 1000, max / 1000, mean / 1e3, dev / 1e3);
        "(usec)"
    } else {
        "(nsec)"
    };
    Some(format!(
        "    {name} {unit}: min={}, max={}, avg={mean:5.02}, stdev={dev:5.02}\n",
        num2str(min, 6, 1, false, ""),
        num2str(max, 6, 1, false, "")
    ))
}

/// fio's default percentiles of a latency's bins (`bins`: value in ns to
/// count), ns: the value of the first bin at which the count reaches each,
/// as fio's `calc_clat_percentiles`.
fn percentile_values(stats: &Value) -> Option<Vec<u64>> {
    let total = whole(stats, "N");
    let bins = stats.get("bins")?.as_object()?;
    if total == 0 || bins.is_empty() {
        return None;
    }
    let mut sorted: Vec<(u64, u64)> = bins
        .iter()
        .filter_map(|(value, count)| Some((value.parse().ok()?, count.as_u64()?)))
        .collect();
    sorted.sort_unstable();
    let mut values = Vec::with_capacity(PERCENTILES.len());
    let (mut sum, mut next) = (0u64, 0);
    for (value, count) in sorted {
        sum += count;
        while next < PERCENTILES.len() && sum as f64 >= PERCENTILES[next] / 100.0 * total as f64 {
            values.push(value);
            next += 1;
        }
    }
    Some(values)
}

/// fio's default percentiles of a latency, as fio's
/// `show_clat_percentiles` prints them.
fn percentiles(name: &str, stats: &Value) -> Option<String> {
    let values = percentile_values(stats)?;
    let (&least, &most) = (values.iter().min()?, values.iter().max()?);
    let (scale, unit) = if least > 2_000_000 && most > 99_999_999 {
        (2, "msec")
    } else if least > 2000 && most > 99_999 {
        (1, "usec")
    } else {
        (0, "nsec")
    };
    let scaled: Vec<u64> = values
        .iter()
        .map(|&v| (0..scale).fold(v, |v, _| v.div_ceil(1000)))
        .collect();
    let divisor = 1000u64.pow(scale);
    let width = 5.max(((most / divisor).max(1) as f64).log10() as usize + 1);
    let per_line = (80 - 7) / (2 + 10 + width);
    let mut text = format!("    {name} percentiles ({unit}):\n     |");
    for (index, (percent, value)) in PERCENTILES.iter().zip(&scaled).enumerate() {
        if index != 0 && index % per_line == 0 {
            text.push_str("     |");
        }
        let last = index == scaled.len() - 1;
        let _ = write!(
            text,
            " {percent:5.2}th=[{value:width$}]{}",
            if last { '\n' } else { ',' }
        );
        if last {
            break;
        }
        if index % per_line == per_line - 1 {
            text.push('\n');
        }
    }
    Some(text)
}

/// fio's line for a direction of a job, with its latencies.
fn direction(label: &str, figures: &Value) -> String {
    let runtime = whole(figures, "runtime").max(1);
    let bytes = whole(figures, "io_bytes");
    let bw = 1000 * bytes / runtime;
    let iops = 1000 * whole(figures, "total_ios") / runtime;
    let mut text = format!(
        "  {label}: IOPS={}, BW={} ({})({}/{runtime}msec)\n",
        num2str(iops, 4, 1, false, ""),
        num2str(bw, 4, 1, true, "B/s"),
        num2str(bw, 4, 1, false, "B/s"),
        num2str(bytes, 4, 1, true, "B"),
    );
    for (name, key) in [("slat", "slat_ns"), ("clat", "clat_ns"), (" lat", "lat_ns")] {
        if let Some(line) = figures.get(key).and_then(|stats| display_lat(name, stats)) {
            text.push_str(&line);
        }
    }
    // Per priority (the JSON has them when two or more have I/Os), as
    // fio names them: `lat prio CLASS/LEVEL/HINT`, then their percentiles.
    let prios: Vec<(String, &Value)> = figures
        .get("prios")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|prio| {
            let number = |key: &str| prio.get(key).and_then(Value::as_u64).unwrap_or(0);
            let name = format!(
                "lat prio {}/{}/{}",
                number("prioclass"),
                number("prio"),
                number("priohint")
            );
            Some((name, prio.get("lat_ns")?))
        })
        .collect();
    for (name, stats) in &prios {
        if let Some(line) = display_lat(name, stats) {
            text.push_str(&line);
        }
    }
    if let Some(lines) = figures.get("clat_ns").and_then(|s| percentiles("clat", s)) {
        text.push_str(&lines);
    }
    let all = whole(figures, "total_ios").max(1);
    for (name, stats) in &prios {
        let share = 100.0 * whole(stats, "N") as f64 / all as f64;
        if let Some(lines) = percentiles(&format!("{name} ({share:.2}% of IOs)"), stats) {
            text.push_str(&lines);
        }
    }
    text.push_str(&interval_samples(figures));
    text
}

/// fio's `bw (KiB/s)` and `iops` lines of a direction's interval samples,
/// when it has any (fio prints none without). The JSON has no `bw_agg`
/// (a group's aggregate iolab does not make): its `per=` is left out.
fn interval_samples(figures: &Value) -> String {
    let samples = whole(figures, "bw_samples");
    if samples == 0 {
        return String::new();
    }
    let figure = |key: &str| number(figures, key).unwrap_or(0.0);
    // As fio: KiB/s, or MiB/s when the mean is over 1 GiB/s (its minimum
    // and maximum then whole MiB/s, rounded down).
    let (unit, scale) = match figure("bw_mean") > 1024.0 * 1024.0 {
        true => ("MiB", 1024.0),
        false => ("KiB", 1.0),
    };
    format!(
        "   bw ({unit:>5}/s): min={:5}, max={:5}, avg={:5.02}, stdev={:5.02}, samples={samples}\n   iops        : min={:5}, max={:5}, avg={:5.02}, stdev={:5.02}, samples={}\n",
        (figure("bw_min") / scale) as u64,
        (figure("bw_max") / scale) as u64,
        figure("bw_mean") / scale,
        figure("bw_dev") / scale,
        figure("iops_min") as u64,
        figure("iops_max") as u64,
        figure("iops_mean"),
        figure("iops_stddev"),
        whole(figures, "iops_samples"),
    )
}

/// fio's `lat (unit)` lines: the shares of I/Os per latency bin, five to
/// a line, the empty bins left out.
fn latency_shares(job: &Value) -> String {
    let mut text = String::new();
    for (key, unit, bins) in [
        ("latency_ns", "nsec", &LATENCY_BINS[..10]),
        ("latency_us", "usec", &LATENCY_BINS[..10]),
        ("latency_ms", "msec", &LATENCY_BINS[..]),
    ] {
        let Some(shares) = job.get(key) else {
            continue;
        };
        let shown: Vec<String> = bins
            .iter()
            .filter_map(|bin| {
                let share = shares.get(*bin)?.as_f64().filter(|s| *s > 0.0)?;
                let share = if share < 0.01 { 0.01 } else { share };
                Some(format!("{bin}={share:3.2}%"))
            })
            .collect();
        for line in shown.chunks(5) {
            let _ = writeln!(text, "  lat ({unit})   : {}", line.join(", "));
        }
    }
    text
}

/// fio's latency bins, as its JSON names them.
const LATENCY_BINS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

/// fio's `IO depths`, `submit` and `complete` lines, where the JSON has
/// them (iolab measures them for synchronous engines alone).
fn depths(job: &Value) -> String {
    let mut text = String::new();
    let line = |key: &str, keys: &[&str]| -> Option<String> {
        let shares = job.get(key)?;
        let parts: Option<Vec<String>> = keys
            .iter()
            .map(|k| Some(format!("{k}={:3.1}%", shares.get(*k)?.as_f64()?)))
            .collect();
        Some(parts?.join(", "))
    };
    let levels = ["1", "2", "4", "8", "16", "32", ">=64"];
    let calls = ["0", "4", "8", "16", "32", "64", ">=64"];
    if let Some(l) = line("iodepth_level", &levels) {
        let _ = writeln!(text, "  IO depths    : {l}");
    }
    if let Some(l) = line("iodepth_submit", &calls) {
        let _ = writeln!(text, "     submit    : {l}");
    }
    if let Some(l) = line("iodepth_complete", &calls) {
        let _ = writeln!(text, "     complete  : {l}");
    }
    text
}

const DIRECTIONS: [(&str, &str, &str); 3] = [
    ("read", "   READ", "R"),
    ("write", "  WRITE", "W"),
    ("trim", "   TRIM", "T"),
];

/// The lines fio prints as it starts: each job's description, its
/// version, the jobs started.
fn preamble(document: &Value, jobs: &[Value]) -> String {
    let mut text = String::new();
    for job in jobs {
        let options = &job["job options"];
        let option = |key: &str| options.get(key).and_then(Value::as_str);
        // Per direction (`R,W` as fio writes them, the last given for the
        // rest): a split's sizes (`4096/60:65536/40`) from its smallest to
        // its largest, or the one size.
        let part = |key: &str, index: usize| -> Option<String> {
            let parts: Vec<&str> = option(key)?.split(',').collect();
            parts.get(index).or(parts.last()).map(|p| p.to_string())
        };
        let sizes: Vec<String> = DIRECTIONS
            .iter()
            .enumerate()
            .map(|(index, (_, _, short))| {
                let split: Vec<u64> = part("bssplit", index)
                    .unwrap_or_default()
                    .split(':')
                    .filter_map(|entry| entry.split('/').next()?.parse().ok())
                    .collect();
                let one = part("bs", index).and_then(|bs| bs.parse::<u64>().ok());
                let shown = |size: Option<u64>| {
                    size.map(|s| num2str(s, 4, 1, true, "B"))
                        .unwrap_or_default()
                };
                let least = shown(split.iter().min().copied().or(one));
                let most = shown(split.iter().max().copied().or(one));
                format!("({short}) {least}-{most}")
            })
            .collect();
        let _ = writeln!(
            text,
            "{}: (g={}): rw={}, bs={}, ioengine={}, iodepth={}",
            job["jobname"].as_str().unwrap_or(""),
            whole(job, "groupid"),
            option("rw").unwrap_or("read"),
            sizes.join(", "),
            option("ioengine").unwrap_or("psync"),
            option("iodepth").unwrap_or("1"),
        );
    }
    let threads: u64 = jobs
        .iter()
        .map(|job| {
            job["job options"]
                .get("numjobs")
                .and_then(Value::as_str)
                .and_then(|n| n.parse().ok())
                .unwrap_or(1)
        })
        .sum();
    let _ = writeln!(
        text,
        "{}\nStarting {threads} thread{}\n",
        document["fio version"].as_str().unwrap_or("iolab"),
        if threads == 1 { "" } else { "s" }
    );
    text
}

/// fio's normal output of `document` (fio's JSON as iolab writes it);
/// `pid` and `when` (fio's `ctime` line) stand for the job's process and
/// the time it ended.
pub fn normal(document: &Value, pid: u32, when: &str) -> String {
    let jobs = document["jobs"].as_array().cloned().unwrap_or_default();
    let mut text = preamble(document, &jobs);
    for job in &jobs {
        let figures = |key: &str| job.get(key).filter(|f| whole(f, "io_bytes") > 0);
        if DIRECTIONS.iter().all(|(key, _, _)| figures(key).is_none()) {
            continue;
        }
        let members = job["job options"]
            .get("numjobs")
            .and_then(Value::as_str)
            .unwrap_or("1");
        let _ = writeln!(
            text,
            "{}: (groupid={}, jobs={members}): err={:2}: pid={pid}: {when}",
            job["jobname"].as_str().unwrap_or(""),
            whole(job, "groupid"),
            whole(job, "error"),
        );
        for (key, _, _) in DIRECTIONS {
            if let Some(f) = figures(key) {
                text.push_str(&direction(key, f));
            }
        }
        text.push_str(&latency_shares(job));
        if let (Some(usr), Some(sys)) = (number(job, "usr_cpu"), number(job, "sys_cpu")) {
            let _ = writeln!(
                text,
                "  cpu          : usr={usr:3.2}%, sys={sys:3.2}%, ctx={}, majf={}, minf={}",
                whole(job, "ctx"),
                whole(job, "majf"),
                whole(job, "minf")
            );
        }
        text.push_str(&depths(job));
        let counts = |key: &str| -> Vec<String> {
            DIRECTIONS
                .iter()
                .map(|(d, _, _)| whole(&job[*d], key).to_string())
                .collect()
        };
        let _ = writeln!(
            text,
            "     issued rwts: total={},0 short={},0 dropped={},0",
            counts("total_ios").join(","),
            counts("short_ios").join(","),
            counts("drop_ios").join(","),
        );
    }
    text.push_str(&run_status(&jobs));
    text
}

/// fio's `Run status group N (all jobs)`: per direction, the group's
/// bandwidth (its bytes over its longest runtime), its jobs' least and
/// most, its bytes and its runtimes.
fn run_status(jobs: &[Value]) -> String {
    let mut groups: Vec<u64> = jobs.iter().map(|job| whole(job, "groupid")).collect();
    groups.sort_unstable();
    groups.dedup();
    let mut text = String::new();
    for group in groups {
        let members: Vec<&Value> = jobs
            .iter()
            .filter(|job| whole(job, "groupid") == group)
            .collect();
        let _ = writeln!(text, "\nRun status group {group} (all jobs):");
        for (key, label, _) in DIRECTIONS {
            let ran: Vec<(u64, u64)> = members
                .iter()
                .map(|job| (whole(&job[key], "io_bytes"), whole(&job[key], "runtime")))
                .filter(|(_, runtime)| *runtime > 0)
                .collect();
            if ran.is_empty() {
                continue;
            }
            let bytes: u64 = ran.iter().map(|(b, _)| b).sum();
            let longest = ran.iter().map(|(_, r)| *r).max().unwrap_or(1);
            let shortest = ran.iter().map(|(_, r)| *r).min().unwrap_or(1);
            let rates: Vec<u64> = ran.iter().map(|(b, r)| 1000 * b / r).collect();
            let (least, most) = (
                rates.iter().copied().min().unwrap_or(0),
                rates.iter().copied().max().unwrap_or(0),
            );
            let aggregate = 1000 * bytes / longest;
            let rate = |n, pow2| num2str(n, 4, 1, pow2, "B/s");
            let _ = writeln!(
                text,
                "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={shortest}-{longest}msec",
                rate(aggregate, true),
                rate(aggregate, false),
                rate(least, true),
                rate(most, true),
                rate(least, false),
                rate(most, false),
                num2str(bytes, 4, 1, true, "B"),
                num2str(bytes, 4, 1, false, "B"),
            );
        }
    }
    text
}

/// fio's terse lines (version 3, its default): one per job, fields
/// apart by `;` in fio's order. A figure the JSON lacks (the per-interval
/// bandwidth samples, a queued engine's depths) is an empty field; one
/// fio prints as zeros for want of samples (a synchronous engine's slat)
/// is zeros, as in fio's.
pub fn terse(document: &Value) -> String {
    let version = document["fio version"].as_str().unwrap_or("iolab");
    let jobs = document["jobs"].as_array().cloned().unwrap_or_default();
    let mut text = String::new();
    for job in &jobs {
        let mut fields = vec![
            "3".to_string(),
            version.to_string(),
            job["jobname"].as_str().unwrap_or("").to_string(),
            whole(job, "groupid").to_string(),
            whole(job, "error").to_string(),
        ];
        for key in ["read", "write"] {
            fields.extend(terse_direction(&job[key]));
        }
        let cpu = |key: &str| number(job, key).map_or(String::new(), |v| format!("{v:.6}%"));
        fields.extend([cpu("usr_cpu"), cpu("sys_cpu")]);
        for key in ["ctx", "majf", "minf"] {
            fields.push(job.get(key).map_or(String::new(), |v| v.to_string()));
        }
        let levels = ["1", "2", "4", "8", "16", "32", ">=64"];
        fields.extend(levels.iter().map(|level| {
            job.get("iodepth_level")
                .and_then(|l| l.get(*level)?.as_f64())
                .map_or(String::new(), |share| format!("{share:3.1}%"))
        }));
        // fio adds the nanosecond bins to the first microsecond one.
        let nanoseconds: f64 = job
            .get("latency_ns")
            .and_then(Value::as_object)
            .map_or(0.0, |bins| bins.values().filter_map(Value::as_f64).sum());
        for (index, bin) in LATENCY_BINS[..10].iter().enumerate() {
            let share = job.get("latency_us").and_then(|l| l.get(*bin)?.as_f64());
            let share = share.map(|s| if index == 0 { s + nanoseconds } else { s });
            fields.push(share.map_or(String::new(), |s| format!("{s:3.2}%")));
        }
        for bin in LATENCY_BINS {
            let share = job.get("latency_ms").and_then(|l| l.get(bin)?.as_f64());
            fields.push(share.map_or(String::new(), |s| format!("{s:3.2}%")));
        }
        text.push_str(&fields.join(";"));
        text.push('\n');
    }
    text
}

/// One direction's terse fields: KiB, KiB/s, IOPS, runtime; slat, clat
/// (µs); 20 percentiles; lat; the bandwidth samples' five.
fn terse_direction(figures: &Value) -> Vec<String> {
    let runtime = whole(figures, "runtime");
    let bytes = whole(figures, "io_bytes");
    let (bw, iops) = match runtime {
        0 => (0, 0),
        runtime => (
            1000 * bytes / runtime / 1024,
            1000 * whole(figures, "total_ios") / runtime,
        ),
    };
    let mut fields = vec![
        (bytes >> 10).to_string(),
        bw.to_string(),
        iops.to_string(),
        runtime.to_string(),
    ];
    let latency = |key: &str| -> Vec<String> {
        match figures.get(key).filter(|s| whole(s, "N") > 0) {
            Some(stats) => vec![
                (whole(stats, "min") / 1000).to_string(),
                (whole(stats, "max") / 1000).to_string(),
                format!("{:.6}", number(stats, "mean").unwrap_or(0.0) / 1000.0),
                format!("{:.6}", number(stats, "stddev").unwrap_or(0.0) / 1000.0),
            ],
            None => vec!["0".into(), "0".into(), "0.000000".into(), "0.000000".into()],
        }
    };
    fields.extend(latency("slat_ns"));
    fields.extend(latency("clat_ns"));
    let values = figures
        .get("clat_ns")
        .and_then(percentile_values)
        .unwrap_or_default();
    // fio lists its percentiles with 0 where a direction has no samples.
    for index in 0..20 {
        fields.push(match PERCENTILES.get(index) {
            Some(percent) => format!("{percent:.6}%={}", values.get(index).unwrap_or(&0) / 1000),
            None => "0%=0".to_string(),
        });
    }
    fields.extend(latency("lat_ns"));
    // The bandwidth samples' min, max, share of the group (which the JSON
    // lacks: empty), mean and deviation; all empty without samples.
    match whole(figures, "bw_samples") {
        0 => fields.extend(std::iter::repeat_n(String::new(), 5)),
        _ => {
            let figure = |key: &str| number(figures, key).unwrap_or(0.0);
            fields.extend([
                (figure("bw_min") as u64).to_string(),
                (figure("bw_max") as u64).to_string(),
                String::new(),
                format!("{:.6}", figure("bw_mean")),
                format!("{:.6}", figure("bw_dev")),
            ]);
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn num2str_writes_fios_figures() {
        // Figures from fio 3.33's output of the same numbers.
        assert_eq!(num2str(12_406, 4, 1, false, ""), "12.4k");
        assert_eq!(num2str(4243, 4, 1, false, ""), "4243");
        assert_eq!(num2str(50_817_040, 4, 1, true, "B/s"), "48.5MiB/s");
        assert_eq!(num2str(50_817_040, 4, 1, false, "B/s"), "50.8MB/s");
        assert_eq!(num2str(6_250_496, 4, 1, true, "B"), "6104KiB");
        assert_eq!(num2str(6_250_496, 4, 1, false, "B"), "6250kB");
        assert_eq!(num2str(4096, 4, 1, true, "B"), "4096B");
        assert_eq!(num2str(65536, 4, 1, true, "B"), "64.0KiB");
        assert_eq!(num2str(4_647_123, 6, 1, false, ""), "4647.1k");
    }

    #[test]
    fn a_split_of_sizes_is_described_by_its_smallest_and_largest() {
        // fio 3.33's line for bssplit=4k/50:16k/50.
        let job = serde_json::json!({
            "jobname": "j", "groupid": 0,
            "job options": {"rw": "read", "bs": "4096", "bssplit": "4096/50:16384/50",
                            "ioengine": "libaio", "iodepth": "4"}
        });
        let text = preamble(&serde_json::json!({"fio version": "iolab"}), &[job]);
        assert!(
            text.starts_with("j: (g=0): rw=read, bs=(R) 4096B-16.0KiB, (W) 4096B-16.0KiB, (T) 4096B-16.0KiB, ioengine=libaio, iodepth=4\n"),
            "{text}"
        );
    }

    #[test]
    fn percentiles_are_fios_list_from_the_bins() {
        let stats = serde_json::json!({
            "N": 100, "min": 1000, "max": 200_000, "mean": 5000.0, "stddev": 10.0,
            "bins": {"1000": 50, "3000": 49, "200000": 1}
        });
        let text = percentiles("clat", &stats).unwrap();
        assert!(
            text.starts_with("    clat percentiles (nsec):\n     |"),
            "{text}"
        );
        assert!(text.contains(" 50.00th=[  1000]"), "{text}");
        assert!(text.contains(" 60.00th=[  3000]"), "{text}");
        assert!(text.contains(" 99.99th=[200000]\n"), "{text}");
    }
}
