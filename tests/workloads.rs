//! Workload shapes beyond one op: a read/write mix drawn per I/O, from the
//! command line, a sweep, a study file and fio's `randrw`, with each
//! direction's figures kept apart and compared.

use crate::fast::import::{fio_json, imported_workload};
use crate::util::*;
use serde_json::Value;

/// The repetition's ops in each direction, read then write.
fn direction_ops(repetition: &Value) -> (u64, u64) {
    let shares = repetition["directions"].as_array().expect("directions");
    assert_eq!(shares.len(), 2, "{shares:?}");
    assert_eq!(shares[0]["direction"], "read");
    assert_eq!(shares[1]["direction"], "write");
    (
        shares[0]["ops"].as_u64().unwrap(),
        shares[1]["ops"].as_u64().unwrap(),
    )
}

/// Whether `writes` of `n` draws at share `p` lie within 5 standard
/// deviations of the binomial mean (false about once in 3.5 million).
fn within_binomial(writes: u64, n: u64, p: f64) -> bool {
    let mean = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    (writes as f64 - mean).abs() <= 5.0 * sd
}

#[test]
fn a_mix_draws_its_shares_per_io_within_binomial_bounds() {
    let dir = scratch();
    for seed in ["0", "1", "2"] {
        let output = iolab()
            .args(["run", "--engine", "null", "--mix", "read=70,write=30"])
            .args(["--size", "1g", "--bs", "4k", "--json", "--seed", seed])
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let result: Value = serde_json::from_slice(&output.stdout).unwrap();
        validate_schema(&result);
        let repetition = &first_point(&result)["repetitions"][0];
        let (reads, writes) = direction_ops(repetition);
        let n = repetition["ops"].as_u64().unwrap();
        assert_eq!(n, 1 << 18);
        assert_eq!(reads + writes, n);
        assert!(
            within_binomial(writes, n, 0.3),
            "seed {seed}: {writes} writes of {n}"
        );
    }
}

#[test]
fn a_mix_keeps_each_direction_apart_in_every_figure_and_compares_by_direction() {
    let dir = scratch();
    let out = scratch();
    let args = [
        "run",
        "--mix",
        "read=70,write=30",
        "--pattern",
        "random",
        "--size",
        "8m",
        "--bs",
        "4k",
        "--repeat",
        "2",
        "--cache",
        "keep",
        "--dir",
        dir.path().to_str().unwrap(),
    ];
    let base = run_ok(&args, out.path());
    let point = first_point(&base);
    assert_eq!(point["workload"]["op"], "mix");
    assert_eq!(point["workload"]["mix"], "read=70,write=30");
    assert_eq!(point["label"], "mix read=70,write=30 random 4KiB psync");
    for repetition in point["repetitions"].as_array().unwrap() {
        let (reads, writes) = direction_ops(repetition);
        assert_eq!(reads + writes, 2048);
        assert!(within_binomial(writes, 2048, 0.3), "{writes} writes");
        let shares = repetition["directions"].as_array().unwrap();
        for share in shares {
            assert_eq!(
                share["bytes"].as_u64().unwrap(),
                share["ops"].as_u64().unwrap() * 4096
            );
            assert_eq!(share["latency_ns"]["count"], share["ops"]);
        }
        // Every interval splits its I/Os by direction, adding up.
        let mut series_writes = 0;
        for interval in repetition["series"].as_array().unwrap() {
            let parts = interval["directions"].as_array().expect("per direction");
            let ops: u64 = parts.iter().map(|p| p["ops"].as_u64().unwrap()).sum();
            assert_eq!(ops, interval["ops"].as_u64().unwrap());
            series_writes += parts[1]["ops"].as_u64().unwrap();
        }
        assert_eq!(series_writes, writes);
    }
    // The summary describes each direction over the repetitions.
    let summary = &point["summary"]["directions"];
    assert_eq!(summary[0]["direction"], "read");
    assert_eq!(summary[1]["iops"]["n"], 2);
    let total: u64 = point["repetitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| direction_ops(r).1)
        .sum();
    assert_eq!(summary[1]["latency_ns"]["count"], total);

    // The table prints a row per direction under the point.
    // Beside, not in, `out`: run_ok numbers its files by what `out` holds.
    let beside = scratch();
    let shown = beside.path().join("shown.json");
    let table = iolab().args(args).arg("-o").arg(&shown).output().unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("↳ read"), "{text}");
    // The share printed is the measured one: write I/Os over all I/Os.
    let shown = read_result(&shown);
    let repetitions = first_point(&shown)["repetitions"].as_array().unwrap();
    let (all, writes) = repetitions.iter().fold((0, 0), |(all, writes), r| {
        (
            all + r["ops"].as_u64().unwrap(),
            writes + direction_ops(r).1,
        )
    });
    let share = format!(
        "↳ write {:.1}% of I/Os (asked 30%)",
        writes as f64 / all as f64 * 100.0
    );
    assert!(text.contains(&share), "{share} in\n{text}");

    // compare: a direction's figure of the same workload in two files.
    let other = run_ok(&args, out.path());
    let files: Vec<_> = ["result-0.json", "result-1.json"]
        .iter()
        .map(|f| out.path().join(f))
        .collect();
    assert_eq!(first_point(&other)["workload"], point["workload"]);
    for metric in ["write.iops", "read.p99", "throughput"] {
        let compared = succeed(
            iolab()
                .args(["compare", "--format", "json", "--metric", metric])
                .args(&files),
        );
        let comparison: Value = serde_json::from_slice(&compared.stdout).unwrap();
        assert_eq!(comparison["metric"], metric);
        let matched = &comparison["pairings"][0]["matched"][0];
        assert_eq!(matched["base"]["n"], 2, "{metric}: {comparison}");
        if metric == "write.iops" {
            let mean = summary[1]["iops"]["mean"].as_f64().unwrap();
            let compared = matched["base"]["mean"].as_f64().unwrap();
            assert!((compared - mean).abs() <= mean * 1e-9, "{compared} {mean}");
        }
    }
    let report = out.path().join("report.html");
    succeed(iolab().arg("report").arg(&files[0]).arg("-o").arg(&report));
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(html.contains("Read/write mixes, per direction"));
    assert!(html.contains("<td>write</td>"));
    // The exports keep the directions apart too: a Markdown row and a CSV
    // row per direction under the point's.
    let markdown = out.path().join("report.md");
    succeed(
        iolab()
            .arg("report")
            .arg(&files[0])
            .args(["--format", "markdown", "-o"])
            .arg(&markdown),
    );
    let markdown = std::fs::read_to_string(&markdown).unwrap();
    assert!(markdown.contains("| ↳ write "), "{markdown}");
    let csv = out.path().join("report.csv");
    succeed(
        iolab()
            .arg("report")
            .arg(&files[0])
            .args(["--format", "csv", "-o"])
            .arg(&csv),
    );
    let csv = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert!(rows[0].ends_with(",direction,group"), "{csv}");
    assert_eq!(
        rows.len(),
        4,
        "a header, the point and its two directions: {csv}"
    );
    assert!(
        rows[2].ends_with(",read,") && rows[3].ends_with(",write,"),
        "{csv}"
    );
    let refused = iolab()
        .args(["compare", "--metric", "read.cpu"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn mixes_are_a_sweep_axis_and_a_study_key() {
    let dir = scratch();
    let out = scratch();
    let mixes = swept(
        dir.path(),
        out.path(),
        &[
            "--engine",
            "null",
            "--size",
            "1m",
            "--mix",
            "read=70,write=30,read=50+write=50",
        ],
        "mix",
        "-",
    );
    assert_eq!(mixes, ["read=70,write=30", "read=50,write=50"]);

    let points = studied(
        dir.path(),
        out.path(),
        "name = \"mixes\"\n[defaults]\nengine = \"null\"\nsize = \"1m\"\n\
         [[sweep]]\nlabel = \"oltp\"\nmix = [\"read=70,write=30\", \"read=90,write=10\"]\n",
    );
    assert_eq!(points.len(), 2);
    assert_eq!(points[1]["workload"]["mix"], "read=90,write=10");
    assert_eq!(points[1]["workload"]["op"], "mix");
}

#[test]
fn fios_randrw_imports_as_one_mixed_point_and_compares_by_direction() {
    let dir = scratch();
    let out = scratch();
    if !crate::fast::import::fio_available() || !direct_io_works(dir.path()) {
        return;
    }
    let (file, _) = write_and_keep(dir.path(), &["--bs", "1m", "--size", "8m"]);
    let fio_output = out.path().join("fio.json");
    succeed(&mut assert_cmd::Command::from_std({
        let mut fio = std::process::Command::new("fio");
        fio.args([
            "--name=oltp",
            "--rw=randrw",
            "--rwmixread=70",
            "--bs=4k",
            "--size=8m",
            "--ioengine=psync",
            "--direct=1",
            "--output-format=json+",
        ])
        .arg(format!("--filename={}", file.display()))
        .arg(format!("--output={}", fio_output.display()));
        fio
    }));
    let imported = out.path().join("fio.iolab.json");
    succeed(
        iolab()
            .arg("import")
            .arg(&fio_output)
            .arg("-o")
            .arg(&imported),
    );
    let value = read_result(&imported);
    let points = value["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "one point for both directions");
    let point = &points[0];
    assert_eq!(point["workload"]["op"], "mix");
    assert_eq!(point["workload"]["mix"], "read=70,write=30");
    assert_eq!(point["workload"]["pattern"], "random");
    let repetition = &point["repetitions"][0];
    let (reads, writes) = direction_ops(repetition);
    assert_eq!(
        reads + writes,
        2048,
        "fio's randommap visits each block once"
    );
    assert!(within_binomial(writes, 2048, 0.3), "{writes} writes");
    for share in repetition["directions"].as_array().unwrap() {
        assert_eq!(share["latency_ns"]["count"], share["ops"], "json+ bins");
    }

    let ours = out.path().join("iolab.json");
    succeed(
        iolab()
            .args(["run", "--mix", "read=70,write=30", "--pattern", "random"])
            .args(["--bs", "4k", "--direct", "--repeat", "2", "--file"])
            .arg(&file)
            .arg("-o")
            .arg(&ours),
    );
    let compared = succeed(
        iolab()
            .args(["compare", "--format", "json", "--metric", "read.p99"])
            .arg(&ours)
            .arg(&imported),
    );
    let comparison: Value = serde_json::from_slice(&compared.stdout).unwrap();
    let matched = comparison["pairings"][0]["matched"].as_array().unwrap();
    assert_eq!(matched.len(), 1, "{comparison}");
    assert_eq!(matched[0]["other"]["n"], 1);
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn a_skewed_pattern_records_the_hot_set_it_touched() {
    let dir = scratch();
    let run = |pattern: &str| -> Value {
        let output = succeed(
            iolab()
                .args(["run", "--pattern", pattern, "--size", "64m", "--bs", "4k"])
                .args(["--cache", "keep", "--json", "--dir"])
                .arg(dir.path()),
        );
        serde_json::from_slice(&output.stdout).unwrap()
    };
    // One pass: 16384 draws of zipf:1.2 over 16384 blocks come back to the hot ones.
    let result = run("zipf:1.2");
    validate_schema(&result);
    let point = first_point(&result);
    assert_eq!(point["workload"]["pattern"], "zipf:1.2");
    let repetition = &point["repetitions"][0];
    assert_eq!(repetition["ops"], 16384);
    let coverage = &repetition["coverage"];
    assert_eq!(coverage["blocks"], 16384, "{coverage}");
    let touched = coverage["blocks_touched"].as_u64().unwrap();
    assert!((100..8192).contains(&touched), "{coverage}");
    let fraction = coverage["fraction"].as_f64().unwrap();
    assert!((fraction - touched as f64 / 16384.0).abs() < 1e-9);
    let codes: Vec<&str> = point["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"hot-set"), "{codes:?}");
    // A permutation touches every block: nothing to measure, nothing recorded.
    let result = run("random");
    let repetition = &first_point(&result)["repetitions"][0];
    assert!(repetition.get("coverage").is_none(), "{repetition}");
}

#[test]
fn skewed_patterns_are_a_sweep_axis_and_import_from_fios_random_distribution() {
    let dir = scratch();
    let out = scratch();
    let patterns = swept(
        dir.path(),
        out.path(),
        &[
            "--engine",
            "null",
            "--size",
            "1m",
            "--pattern",
            "zipf:1.2,zoned:90/10:10/90,random",
        ],
        "pattern",
        "-",
    );
    assert_eq!(patterns, ["zipf:1.2", "zoned:90/10:10/90", "random"]);

    if !crate::fast::import::fio_available() {
        return;
    }
    let directory = format!("--directory={}", dir.path().display());
    let hot = |distribution: &str| {
        let option = format!("--random_distribution={distribution}");
        let args = ["--rw=randread", "--bs=4k", "--size=4m", "--ioengine=psync"];
        fio_json(
            out.path(),
            "hot",
            &[&args[..], &[&option, &directory]].concat(),
        )
    };
    for (fio, ours) in [
        ("zipf:1.2", "zipf:1.2"),
        ("pareto:0.9", "pareto:0.9"),
        ("normal:10:0.5", "normal:10"),
        ("zoned:60/10:30/20:10/70", "zoned:60/10:30/20:10/70"),
    ] {
        let workload = imported_workload(&hot(fio), out.path());
        assert_eq!(workload["pattern"], ours, "{fio}");
    }
    // A hot spot placed by hand has no iolab equivalent: named, refused.
    let fio_output = hot("zipf:1.2:0.25");
    let stderr = import_refused(&fio_output, out.path());
    assert!(
        stderr.contains("random_distribution=zipf:1.2:0.25"),
        "{stderr}"
    );
}

/// The bytes of a file iolab kept.
fn kept_bytes(path: &std::path::Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    std::fs::remove_file(path).unwrap();
    bytes
}

/// How many bytes gzip makes of `bytes`, over their length.
fn gzip_ratio(bytes: &[u8]) -> f64 {
    use std::io::Write;
    let mut gzip = std::process::Command::new("gzip")
        .args(["-c", "-6"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("gzip is on every Debian system");
    let mut stdin = gzip.stdin.take().unwrap();
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let output = gzip.wait_with_output().unwrap();
    writer.join().unwrap();
    output.stdout.len() as f64 / bytes.len() as f64
}

#[test]
fn written_data_takes_the_shape_asked_for_as_gzip_and_a_block_count_see_it() {
    let dir = scratch();
    // Unique: gzip saves at most the stamps, 16 low-entropy bytes of
    // every 512 (3.1%); the rest is random.
    let (path, result) = write_and_keep(dir.path(), &["--size", "4m", "--bs", "64k"]);
    assert!(first_point(&result)["workload"].get("data").is_none());
    let ratio = gzip_ratio(&kept_bytes(&path));
    assert!(ratio > 0.96, "unique data compressed to {ratio}");
    // compressible:75: a quarter of each 512-byte chunk random, the rest zeros.
    let (path, result) = write_and_keep(
        dir.path(),
        &["--size", "4m", "--bs", "64k", "--data", "compressible:75"],
    );
    validate_schema(&result);
    assert_eq!(first_point(&result)["workload"]["data"], "compressible:75");
    let ratio = gzip_ratio(&kept_bytes(&path));
    assert!(
        (0.22..0.32).contains(&ratio),
        "compressible:75 compressed to {ratio}"
    );
    // dedupe:40: 40% of the 4 KiB blocks written are one and the same.
    let (path, _) = write_and_keep(
        dir.path(),
        &["--size", "4m", "--bs", "4k", "--data", "dedupe:40"],
    );
    let bytes = kept_bytes(&path);
    let distinct: std::collections::HashSet<&[u8]> = bytes.chunks(4096).collect();
    let repeated = 1024 - (distinct.len() - 1);
    assert!(
        within_binomial(repeated as u64, 1024, 0.4),
        "{repeated} of 1024 blocks repeated"
    );
    // A read lays its file out in the same shape: zeros.
    let kept = succeed(
        iolab()
            .args(["run", "--op", "read", "--data", "zeros", "--size", "1m"])
            .args(["--keep", "--json", "--dir"])
            .arg(dir.path()),
    );
    let result: Value = serde_json::from_slice(&kept.stdout).unwrap();
    let path =
        std::path::PathBuf::from(result["points"][0]["target"]["files"][0].as_str().unwrap());
    assert!(kept_bytes(&path).iter().all(|&b| b == 0));
}

#[test]
fn data_shapes_are_a_sweep_axis_and_import_from_fios_buffer_options() {
    let dir = scratch();
    let out = scratch();
    let shapes = swept(
        dir.path(),
        out.path(),
        &[
            "--op",
            "read",
            "--size",
            "1m",
            "--data",
            "unique,zeros,dedupe:50",
        ],
        "data",
        "unique",
    );
    assert_eq!(shapes, ["unique", "zeros", "dedupe:50"]);

    if !crate::fast::import::fio_available() {
        return;
    }
    let directory = format!("--directory={}", dir.path().display());
    for (option, ours) in [
        ("--buffer_compress_percentage=50", "compressible:50"),
        ("--dedupe_percentage=30", "dedupe:30"),
        // fio 3.33's JSON drops a bare --zero_buffers from "job options";
        // only the spelled-out value reaches an import.
        ("--zero_buffers=1", "zeros"),
    ] {
        let args = ["--rw=write", "--bs=4k", "--size=1m", "--ioengine=psync"];
        let fio_output = fio_json(
            out.path(),
            "shaped",
            &[&args[..], &[option, &directory]].concat(),
        );
        let workload = imported_workload(&fio_output, out.path());
        assert_eq!(workload["data"], ours, "{option}");
    }
}

/// The 4 KiB blocks of every file in `dir` whose name starts with
/// `prefix`: how many, how many distinct, the most any one block is
/// repeated, and gzip's ratio over them all.
fn block_census(dir: &std::path::Path, prefix: &str) -> (usize, usize, usize, f64) {
    let mut bytes = Vec::new();
    let mut names: Vec<_> = entries(dir)
        .into_iter()
        .filter(|name| name.starts_with(prefix))
        .collect();
    names.sort();
    for name in names {
        bytes.extend(std::fs::read(dir.join(name)).unwrap());
    }
    let mut counts = std::collections::HashMap::<&[u8], usize>::new();
    for block in bytes.chunks(4096) {
        *counts.entry(block).or_default() += 1;
    }
    let most = counts.values().copied().max().unwrap_or(0);
    (bytes.len() / 4096, counts.len(), most, gzip_ratio(&bytes))
}

#[test]
fn a_dedupe_working_set_repeats_blocks_as_fios_does_per_job_and_shared() {
    if !crate::fast::import::fio_available() {
        return;
    }
    for (name, text) in [
        // 40% of the writes repeat one of the first 50% of blocks.
        (
            "working-set",
            "[global]\ndirectory=DIR\nsize=16m\nbs=4k\nrw=write\ndedupe_percentage=40\ndedupe_mode=working_set\ndedupe_working_set_percentage=50\n[w]\n",
        ),
        // fio's dedupe-global.fio in small: two jobs at once sharing one
        // working set, each block also half zeros.
        (
            "global",
            "[global]\ndirectory=DIR\nsize=16m\nbs=4k\nrw=write\nioengine=libaio\niodepth=16\ndedupe_mode=working_set\ndedupe_global=1\ndedupe_percentage=50\nbuffer_compress_percentage=50\ndedupe_working_set_percentage=50\n[a]\n[b]\n",
        ),
    ] {
        let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
        let job = |dir: &std::path::Path, file: &str| {
            let path = out.path().join(file);
            std::fs::write(&path, text.replace("DIR", dir.to_str().unwrap())).unwrap();
            path
        };
        let fio_job = job(fio_dir.path(), "fio.fio");
        succeed(
            assert_cmd::Command::new("fio")
                .arg(&fio_job)
                .arg("--output=/dev/null"),
        );
        let ours = job(dir.path(), "iolab.fio");
        succeed(
            iolab()
                .arg("run")
                .arg(&ours)
                .arg("--keep")
                .current_dir(out.path()),
        );
        let (fio_blocks, fio_distinct, fio_most, fio_gzip) = block_census(fio_dir.path(), "");
        let (blocks, distinct, most, gzip) = block_census(dir.path(), "iolab-");
        assert_eq!(blocks, fio_blocks, "{name}: blocks written");
        let share = |distinct: usize| distinct as f64 / blocks as f64;
        assert!(
            (share(distinct) - share(fio_distinct)).abs() < 0.03,
            "{name}: distinct blocks: iolab {distinct}, fio {fio_distinct} of {blocks}"
        );
        // Repeats spread over the working set, never one block again and
        // again (iolab's dedupe:PCT without a working set repeats one).
        assert!(
            most < 20 && fio_most < 20,
            "{name}: a block written {most} times (fio {fio_most})"
        );
        assert!(
            (gzip - fio_gzip).abs() < 0.05,
            "{name}: gzip ratio iolab {gzip:.3}, fio {fio_gzip:.3}"
        );
    }
    // The same shape from the command line, recorded as written.
    let (dir, out) = (scratch(), scratch());
    let shape = "compressible:50+dedupe:50:working-set=50:global";
    let dir_path = dir.path().to_str().unwrap();
    let args = [
        "run", "--dir", dir_path, "--op", "write", "--size", "1m", "--jobs", "2",
    ];
    let result = run_ok(&[&args[..], &["--data", shape]].concat(), out.path());
    validate_schema(&result);
    assert_eq!(first_point(&result)["workload"]["data"], shape);
}

/// `--detail` shows fio's per-job view: a row per job with its own rate,
/// the jobs' rates adding up to the point's, and how far apart they are.
#[test]
fn detail_shows_each_jobs_rate_and_the_spread_between_them() {
    let dir = scratch();
    let output = iolab()
        .args(["run", "--engine", "null", "--op", "read", "--bs", "4k"])
        .args([
            "--jobs",
            "3",
            "--size",
            "64m",
            "--runtime",
            "1s",
            "--repeat",
            "2",
        ])
        .args(["--detail", "--progress", "never", "--no-report"])
        .arg("--dir")
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("jobs.json"))
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    for job in ["↳ job 0 ", "↳ job 1 ", "↳ job 2 "] {
        assert!(text.contains(job), "{job} missing:\n{text}");
    }
    assert!(text.contains("↳ fastest/slowest job "), "{text}");
    // fio's percentile block, of every measured I/O's latency.
    let result = read_result(&dir.path().join("jobs.json"));
    let count = result["points"][0]["summary"]["latency_ns"]["count"]
        .as_u64()
        .unwrap();
    assert!(
        text.contains(&format!("latency percentiles of {count} I/Os")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("  p1 ") && l.contains(" · p50 ")),
        "{text}"
    );
    assert!(text.contains(" · max "), "{text}");
    // Without --detail the table stays one row a point.
    let plain = iolab()
        .args(["run", "--engine", "null", "--op", "read", "--bs", "4k"])
        .args(["--jobs", "3", "--size", "64m", "--runtime", "1s"])
        .args(["--progress", "never", "--no-report"])
        .arg("--dir")
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("plain.json"))
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    assert!(plain.status.success(), "{plain:?}");
    let plain_text = String::from_utf8_lossy(&plain.stdout);
    assert!(!plain_text.contains("↳ job"), "{plain:?}");
    assert!(!plain_text.contains("latency percentiles"), "{plain:?}");
}

/// With io_uring, `--detail`'s percentile block also gives the submission
/// time per I/O (fio's slat), merged over the measured repetitions.
#[test]
fn detail_gives_io_urings_submission_time_as_fios_slat() {
    if !uring_works() {
        crate::not_here!("io_uring is not available here");
        return;
    }
    let dir = scratch();
    let output = iolab()
        .args(["run", "--engine", "uring", "--iodepth", "4", "--op", "read"])
        .args(["--size", "4m", "--runtime", "300ms", "--repeat", "2"])
        .args(["--detail", "--progress", "never", "--no-report", "--dir"])
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("slat.json"))
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    let line = text
        .lines()
        .find(|l| l.starts_with("  submission (fio's slat"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("p50 ") && line.contains("p99 ") && line.contains("max "),
        "{line}"
    );
}
