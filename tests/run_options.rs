//! Repetitions, jobs, patterns, time-based runs, cache modes and JSON output.

use crate::util::*;
use serde_json::Value;

#[test]
fn repetitions_after_warmups_are_summarised_with_an_interval() {
    let dir = scratch();
    let out = scratch();
    let result = Cli::new(["run", "--size", "2m", "--repeat", "3", "--warmup", "1"])
        .path("--dir", dir.path())
        .ok(out.path());
    let point = first_point(&result);
    let reps = point["repetitions"].as_array().unwrap();
    assert_eq!(reps.len(), 4);
    assert_eq!(reps[0]["warmup"], true);
    assert!(reps[1..].iter().all(|r| r["warmup"] == false));
    let stat = &point["summary"]["throughput_bps"];
    assert_eq!(stat["n"], 3);
    let (low, mean, high) = (
        stat["ci95_low"].as_f64().unwrap(),
        stat["mean"].as_f64().unwrap(),
        stat["ci95_high"].as_f64().unwrap(),
    );
    assert!(low <= mean && mean <= high);
    let merged = point["summary"]["latency_ns"]["count"].as_u64().unwrap();
    assert_eq!(
        merged,
        3 * 512,
        "latency merged over the measured repetitions only"
    );
}

#[test]
fn jobs_each_get_their_own_file_and_add_up() {
    let dir = scratch();
    let out = scratch();
    let result = Cli::new([
        "run",
        "--size",
        "1m",
        "--jobs",
        "3",
        "--op",
        "write",
        "--fsync-end",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let point = first_point(&result);
    let files = point["target"]["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    let names: std::collections::BTreeSet<_> = files.iter().map(|f| f.as_str().unwrap()).collect();
    assert_eq!(names.len(), 3, "distinct files");
    assert!(
        names
            .iter()
            .all(|n| n.contains("iolab-") && n.ends_with(".dat"))
    );
    assert_eq!(point["repetitions"][0]["bytes"], 3 << 20);
}

#[test]
fn every_pattern_runs() {
    let dir = scratch();
    let out = scratch();
    for pattern in ["seq", "reverse", "random", "uniform", "stride:3"] {
        let result = Cli::new([
            "run",
            "--size",
            "1m",
            "--pattern",
            pattern,
            "--engine",
            "sync",
        ])
        .path("--dir", dir.path())
        .ok(out.path());
        assert_eq!(first_point(&result)["workload"]["pattern"], pattern);
    }
}

#[test]
fn time_based_runs_repeat_passes_and_exclude_the_ramp() {
    let dir = scratch();
    let out = scratch();
    let result = Cli::new([
        "run",
        "--size",
        "1m",
        "--runtime",
        "600ms",
        "--ramp",
        "200ms",
        "--interval",
        "100ms",
        "--cache",
        "keep",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let rep = &first_point(&result)["repetitions"][0];
    let elapsed = rep["elapsed_ns"].as_f64().unwrap() * 1e-9;
    assert!(
        elapsed >= 0.6,
        "the timed region lasts the runtime: {elapsed}s"
    );
    assert!(
        rep["bytes"].as_u64().unwrap() > 1 << 20,
        "passes repeat until the time is up"
    );
    // At least the runtime's six intervals, at most one per 100 ms that
    // passed (a loaded machine may stretch the run; the ramp's I/O is not
    // counted: see the timing loop's unit tests).
    let series = rep["series"].as_array().unwrap();
    let most = (elapsed / 0.1).floor() as usize + 1;
    assert!(
        (6..=most).contains(&series.len()),
        "{} intervals of 100 ms in {elapsed}s",
        series.len()
    );
    assert!(
        series
            .iter()
            .take(5)
            .all(|i| i["latency_p99_ns"].as_u64().is_some())
    );
}

fn residency(result: &Value) -> f64 {
    first_point(result)["repetitions"][0]["cache"]["resident_fraction"]
        .as_f64()
        .unwrap()
}

#[test]
fn cache_modes_are_applied_and_verified() {
    let dir = scratch();
    let out = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    let cold = run_ok(
        &["run", "--dir", dir_arg, "--size", "8m", "--cache", "cold"],
        out.path(),
    );
    assert!(residency(&cold) < 0.01, "cold: {}", residency(&cold));
    assert!(!check_codes(first_point(&cold)).contains(&"cache-served".to_string()));
    let warm = run_ok(
        &["run", "--dir", dir_arg, "--size", "8m", "--cache", "warm"],
        out.path(),
    );
    assert!(residency(&warm) > 0.99, "warm: {}", residency(&warm));
    let keep = run_ok(
        &["run", "--dir", dir_arg, "--size", "8m", "--cache", "keep"],
        out.path(),
    );
    assert_eq!(
        first_point(&keep)["repetitions"][0]["cache"]["treatment"],
        "keep"
    );
    // The layout just wrote the file through the page cache, and keep leaves it there.
    assert!(
        residency(&keep) > 0.9,
        "keep after layout: {}",
        residency(&keep)
    );
}

#[test]
fn json_on_stdout_is_the_result_file() {
    let dir = scratch();
    let assert = Cli::new(["run", "--size", "1m", "--json", "--label", "my point"])
        .path("--dir", dir.path())
        .command()
        .assert()
        .success();
    let value: Value =
        serde_json::from_slice(&assert.get_output().stdout).expect("stdout is only JSON");
    validate_schema(&value);
    check_consistency(&value);
    assert_eq!(first_point(&value)["label"], "my point");
    assert_eq!(value["schema"], "iolab.result/1");
}

#[test]
fn the_table_labels_both_units() {
    let dir = scratch();
    let table = |extra: &[&str]| {
        let assert = Cli::new(["run", "--size", "1m"])
            .path("--dir", dir.path())
            .command()
            .args(extra)
            .assert()
            .success();
        String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
    };
    // The narrow default: what fits 80 columns.
    let narrow = table(&[]);
    for heading in ["MiB/s", "IOPS", "p50", "p99", "n ±CI", "checks"] {
        assert!(narrow.contains(heading), "missing {heading} in\n{narrow}");
    }
    assert!(!narrow.contains("MB/s ") && narrow.contains("MiB/s = 2^20 bytes/s;"));
    assert!(narrow.contains("--detail adds MB/s"), "{narrow}");
    // --detail: both units and the rest.
    let detail = table(&["--detail"]);
    for heading in [
        "MiB/s",
        "MB/s",
        "IOPS",
        "p50",
        "p99",
        "max",
        "CPU",
        "cached at start",
        "n ±CI",
    ] {
        assert!(detail.contains(heading), "missing {heading} in\n{detail}");
    }
    assert!(detail.contains("MiB/s = 2^20 bytes/s, MB/s = 10^6 bytes/s"));
}

#[test]
fn tmpfs_accepting_direct_is_flagged() {
    let shm = std::path::Path::new("/dev/shm");
    if !shm.is_dir() {
        crate::not_here!("no /dev/shm tmpfs here");
        return;
    }
    let dir = tempfile::tempdir_in(shm).unwrap();
    let out = scratch();
    let assert = Cli::new(["run", "--size", "1m", "--direct"])
        .path("--dir", dir.path())
        .path("--output", out.path().join("r.json"))
        .command()
        .assert();
    let output = assert.get_output();
    if output.status.code() == Some(2) {
        // Kernels before 6.6 refuse O_DIRECT on tmpfs: that must be said plainly.
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("refuses O_DIRECT"), "{stderr}");
        return;
    }
    assert!(output.status.success());
    let result = read_result(&out.path().join("r.json"));
    let point = first_point(&result);
    assert_eq!(point["target"]["direct_in_memory"], true);
    assert!(check_codes(point).contains(&"direct-not-honoured".to_string()));
}

#[test]
fn the_schema_rejects_what_iolab_must_never_write() {
    let dir = scratch();
    let out = scratch();
    let valid = Cli::new(["run", "--size", "1m"])
        .path("--dir", dir.path())
        .ok(out.path());
    let tampered = |edit: &dyn Fn(&mut Value)| {
        let mut value = valid.clone();
        edit(&mut value);
        std::panic::catch_unwind(|| validate_schema(&value)).is_err()
    };
    assert!(
        tampered(&|v| v["points"][0]["repetitions"][0]["status"] = "failed".into()),
        "a timed failure"
    );
    assert!(
        tampered(&|v| v["schema"] = "iolab.result/2".into()),
        "another schema"
    );
    assert!(
        tampered(&|v| v["points"][0]["workload"]["bs"] = 0.into()),
        "a zero block size"
    );
    assert!(
        tampered(&|v| v["points"][0]["workload"]["engine"] = "aio".into()),
        "an unknown engine"
    );
    assert!(
        tampered(&|v| v["points"][0]["surprise"] = 1.into()),
        "an undocumented field"
    );
}

#[test]
fn a_kept_file_can_be_measured_again_and_a_users_file_is_only_read() {
    let dir = scratch();
    let out = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    let assert = iolab()
        .args([
            "run",
            "--dir",
            dir_arg,
            "--op",
            "write",
            "--size",
            "2m",
            "--bs",
            "64k",
            "--fsync-end",
            "--keep",
        ])
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    let kept = entries(dir.path());
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        stderr.contains(&format!("kept {}", dir.path().join(&kept[0]).display())),
        "{stderr}"
    );
    let kept_path = dir.path().join(&kept[0]);
    // A later run in the same directory does not take a kept file for a
    // dead run's leftover.
    run_ok(
        &["run", "--engine", "null", "--size", "64k", "--dir", dir_arg],
        out.path(),
    );
    assert!(kept_path.exists(), "a kept file stays");
    let result = Cli::new(["run", "--op", "rewrite", "--bs", "64k"])
        .path("--file", &kept_path)
        .ok(out.path());
    let point = first_point(&result);
    assert_eq!(point["target"]["file_given"], true);
    assert_eq!(
        point["workload"]["size"],
        2 << 20,
        "the size defaults to the file's length"
    );
    assert!(kept_path.exists(), "a given file is never removed");

    let users = dir.path().join("users-data.bin");
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&users, &data).unwrap();
    for engine in ["psync", "sync", "stdio", "mmap"] {
        let result = Cli::new(["run", "--engine", engine, "--pattern", "random"])
            .path("--file", &users)
            .ok(out.path());
        assert_eq!(
            first_point(&result)["repetitions"][0]["ops"],
            256,
            "{engine}"
        );
    }
    let assert = iolab()
        .args(["run", "--op", "rewrite", "--file"])
        .arg(&users)
        .assert();
    assert_eq!(assert.get_output().status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains("not created by iolab") && crate::util::message_lines(&stderr) == 1,
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(&users).unwrap(),
        data,
        "the user's file is unchanged"
    );
}

#[test]
fn a_long_series_is_kept_to_its_bound_with_every_io() {
    let dir = scratch();
    let out = scratch();
    // 2 s at the 1 ms floor: 2000 intervals, more than the 1024 one job keeps.
    let result = Cli::new([
        "run",
        "--engine",
        "null",
        "--runtime",
        "2s",
        "--interval",
        "1ms",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let rep = &first_point(&result)["repetitions"][0];
    let series = rep["series"].as_array().unwrap();
    assert!(series.len() <= 1024, "{} intervals", series.len());
    let interval = rep["series_interval_s"].as_f64().expect("coarsened");
    assert!(interval >= 0.002, "{interval}");
    assert!(
        (series[1]["start_s"].as_f64().unwrap() - interval).abs() < 1e-9,
        "start_s steps by the recorded interval"
    );
    // check_consistency (in run_ok) checked that the series holds every I/O.
}

#[test]
fn reads_may_be_opened_with_o_sync_as_a_study_did() {
    // O_RDONLY|O_SYNC: accepted, recorded, and the check says what it means.
    let dir = scratch();
    let out = scratch();
    let result = run_ok(
        &[
            "run", "--op", "read", "--sync", "osync", "--size", "1m", "--bs", "128k", "--dir",
        ]
        .into_iter()
        .chain([dir.path().to_str().unwrap()])
        .collect::<Vec<_>>(),
        out.path(),
    );
    let point = first_point(&result);
    assert_eq!(point["workload"]["sync"], "osync");
    assert!(check_codes(point).contains(&"sync-on-read".to_string()));
}

/// The CPUs this process may run on, from /proc/self/status.
fn offered_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap()
        .trim()
        .to_string();
    list.split(',')
        .flat_map(|part| match part.split_once('-') {
            Some((a, b)) => (a.parse().unwrap()..=b.parse().unwrap()).collect::<Vec<usize>>(),
            None => vec![part.parse().unwrap()],
        })
        .collect()
}

/// `--cpus` pins the I/O threads: two CPU-bound jobs pinned to one CPU
/// cannot use more than that CPU's time, whatever else runs.
#[test]
fn cpus_pin_the_io_threads_and_are_recorded() {
    let offered = offered_cpus();
    if offered.len() < 2 {
        crate::not_here!("this process may run on one CPU only, so pinning cannot be told apart");
        return;
    }
    let cpu = offered[offered.len() - 1].to_string();
    let dir = scratch();
    let out = scratch();
    let result = Cli::new([
        "run",
        "--engine",
        "null",
        "--jobs",
        "2",
        "--runtime",
        "1s",
        "--cpus",
        &cpu,
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    validate_schema(&result);
    let point = first_point(&result);
    assert_eq!(point["workload"]["cpus"], cpu.as_str());
    let label = point["label"].as_str().unwrap();
    assert!(label.contains(&format!(" cpus={cpu}")), "{label}");
    let utilization = point["repetitions"][0]["cpu"]["utilization"]
        .as_f64()
        .unwrap();
    assert!(
        utilization <= 1.1,
        "two busy threads on CPU {cpu} used {utilization} CPUs"
    );
}

/// The parameter table carries `--cpus` through every path: a sweep axis
/// with its labels, a study-file key, `compare --by`.
#[test]
fn cpus_is_a_sweep_axis_a_study_key_and_a_comparison() {
    let offered = offered_cpus();
    let (first, last) = (offered[0], offered[offered.len() - 1]);
    let dir = scratch();
    let out = scratch();
    let sweep = out.path().join("sweep.json");
    let axis = format!("{first},{first}-{last}");
    succeed(
        iolab()
            .args(["sweep", "--engine", "null", "--size", "1m", "--repeat", "3"])
            .args(["--cpus", &axis, "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&sweep)
            .arg("--no-report"),
    );
    let result = read_result(&sweep);
    let labels: Vec<&str> = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    let whole = if first == last {
        format!("{first}")
    } else {
        format!("{first}-{last}")
    };
    assert_eq!(
        labels.len(),
        if first == last { 1 } else { 2 },
        "{labels:?}"
    );
    assert!(labels[0].contains(&format!(" cpus={first} ")), "{labels:?}");
    assert!(labels.last().unwrap().contains(&format!(" cpus={whole} ")));
    if first != last {
        let compared = succeed(
            iolab()
                .args(["compare", "--by", "cpus", "--format", "json"])
                .arg(&sweep),
        );
        let comparison: Value = serde_json::from_slice(&compared.stdout).unwrap();
        assert_eq!(
            comparison["pairings"][0]["matched"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }
    let study = out.path().join("study.toml");
    std::fs::write(
        &study,
        format!(
            "name = \"pinned\"\n[defaults]\nengine = \"null\"\nsize = \"1m\"\n\
             [[sweep]]\nlabel = \"pinned\"\ncpus = [\"{first}\"]\n"
        ),
    )
    .unwrap();
    let studied = out.path().join("study.json");
    succeed(
        iolab()
            .arg("study")
            .arg(&study)
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(&studied)
            .arg("--no-report"),
    );
    let result = read_result(&studied);
    assert_eq!(
        first_point(&result)["workload"]["cpus"],
        first.to_string().as_str()
    );
}

/// Each repetition draws its own random offsets from the seed and its
/// index, recorded as `draw_seed`; `--same-draws` repeats the first draw
/// on purpose (issue "Nothing lost, nothing harmed, round 3", item 8).
#[test]
fn repetitions_draw_their_own_offsets_unless_asked_to_repeat_one() {
    let dir = scratch();
    let out = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    let touched = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--dir",
            dir_arg,
            "--size",
            "1m",
            "--bs",
            "4k",
            "--pattern",
            "uniform",
            "--repeat",
            "3",
        ];
        args.extend_from_slice(extra);
        let result = run_ok(&args, out.path());
        validate_schema(&result);
        first_point(&result)["repetitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["draw_seed"].as_u64().unwrap(),
                    r["coverage"]["blocks_touched"].as_u64().unwrap(),
                )
            })
            .collect::<Vec<_>>()
    };
    let own = touched(&[]);
    assert_eq!(own[0].0, 0, "the first repetition draws from --seed itself");
    assert!(own[1].0 != own[0].0 && own[2].0 != own[1].0, "{own:?}");
    assert!(
        own.iter().any(|r| r.1 != own[0].1),
        "different draws touch different blocks: {own:?}"
    );
    let same = touched(&["--same-draws"]);
    assert!(same.iter().all(|r| *r == same[0]), "{same:?}");
    assert_eq!(same[0], own[0]);
}

/// Rounds are repetitions: the note that `compare` cannot test one
/// repetition per point is not printed under `--rounds 3` (issue "Nothing
/// lost, nothing harmed, round 4", item 8), and is under one round.
#[test]
fn the_single_repetition_note_counts_rounds() {
    let dir = scratch();
    let noted = |extra: &[&str]| {
        let output = iolab()
            .args([
                "--verbose",
                "run",
                "--engine",
                "null",
                "--size",
                "64k",
                "--dir",
            ])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(output.status.success(), "{stderr}");
        stderr.contains("one repetition per point")
    };
    assert!(noted(&[]));
    assert!(!noted(&["--rounds", "3"]));
    // Without --verbose, a run where nothing is wrong leaves stderr empty.
    let quiet = iolab()
        .args(["run", "--engine", "null", "--size", "64k", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        quiet.status.success() && quiet.stderr.is_empty(),
        "{quiet:?}"
    );
}
