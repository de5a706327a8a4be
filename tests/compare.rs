//! `iolab compare`: matching by workload, ratios with intervals and verdicts, grid matrices, environment differences, formats and refusals.

use crate::util::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn null_sweep(dir: &Path, out: &Path, name: &str, bs: &str) -> PathBuf {
    let output = out.join(name);
    crate::util::null_sweep(dir, &output, bs, &["--no-report"]);
    output
}

fn compare(files: &[&Path], extra: &[&str]) -> std::process::Output {
    iolab()
        .arg("compare")
        .args(files)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn two_sweeps_give_a_matrix_with_intervals_and_verdicts() {
    let dir = scratch();
    let out = scratch();
    let base = null_sweep(dir.path(), out.path(), "a.json", "4k..16k");
    let other = null_sweep(dir.path(), out.path(), "b.json", "4k..16k");
    let run = compare(&[&base, &other], &[]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(text.contains("environments: identical"), "{text}");
    assert!(text.contains("file \\ record"), "a grid matrix: {text}");
    assert!(text.contains("write seq null (ratio"), "{text}");
    assert!(
        text.contains("ratio [95% CI]") && text.contains("base MiB/s"),
        "{text}"
    );

    let json: Value =
        serde_json::from_slice(&compare(&[&base, &other], &["--format", "json"]).stdout).unwrap();
    let matched = json["pairings"][0]["matched"].as_array().unwrap();
    assert_eq!(
        matched.len(),
        18,
        "3 files × 3 records × 2 ops, all matched"
    );
    for m in matched {
        // Fieller's interval is unbounded (both ends absent) when the base's
        // mean is not known to differ from zero: a noisy null run can do that.
        match (m["ratio_low"].as_f64(), m["ratio_high"].as_f64()) {
            (Some(low), Some(high)) => assert!(low <= high, "{m}"),
            (None, None) => assert_eq!(m["ratio_unbounded"], true, "{m}"),
            _ => panic!("one end of an interval: {m}"),
        }
        assert!(m["base"]["n"] == 3 && m["p_value"].is_number(), "{m}");
        // Throughput: Δ% is how much faster the other is.
        let expected = (m["other"]["mean"].as_f64().unwrap() - m["base"]["mean"].as_f64().unwrap())
            / m["base"]["mean"].as_f64().unwrap()
            * 100.0;
        assert!((m["delta_percent"].as_f64().unwrap() - expected).abs() < 1e-9);
        assert!(m["verdict"].is_string());
    }
    let flipped: Value = serde_json::from_slice(
        &compare(
            &[&base, &other],
            &["--format", "json", "--orientation", "base/other"],
        )
        .stdout,
    )
    .unwrap();
    let (a, b) = (
        matched[0]["ratio"].as_f64().unwrap(),
        flipped["pairings"][0]["matched"][0]["ratio"]
            .as_f64()
            .unwrap(),
    );
    assert!(
        (a * b - 1.0).abs() < 1e-9,
        "base/other is the inverse: {a} {b}"
    );

    let csv = String::from_utf8(compare(&[&base, &other], &["--format", "csv"]).stdout).unwrap();
    assert_eq!(csv.lines().count(), 19, "a header and one row per point");
    assert!(csv.starts_with("base,other,point,op,"));
    let markdown =
        String::from_utf8(compare(&[&base, &other], &["--format", "markdown"]).stdout).unwrap();
    assert!(
        markdown.contains("## ") && markdown.contains("| point"),
        "{markdown}"
    );
}

#[test]
fn unmatched_points_are_listed_and_environment_differences_shown() {
    let dir = scratch();
    let out = scratch();
    let base = null_sweep(dir.path(), out.path(), "a.json", "4k..16k");
    let other = null_sweep(dir.path(), out.path(), "b.json", "8k..32k");
    // The other file claims another kernel: the difference is shown above the tables.
    let mut edited: Value =
        serde_json::from_str(&std::fs::read_to_string(&other).unwrap()).unwrap();
    edited["environment"]["kernel"] = Value::from("9.9.9-test");
    std::fs::write(&other, serde_json::to_string(&edited).unwrap()).unwrap();
    let run = compare(&[&base, &other], &[]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(
        text.contains("environment.kernel") && text.contains("9.9.9-test"),
        "{text}"
    );
    assert!(
        text.contains("only in") && text.contains("write seq 4KiB null file 64KiB"),
        "{text}"
    );
    assert!(text.contains("write seq 32KiB null file 64KiB"), "{text}");
}

#[test]
fn bad_files_are_refused_naming_them() {
    let dir = scratch();
    let out = scratch();
    let good = null_sweep(dir.path(), out.path(), "a.json", "4k");
    let disjoint = null_sweep(dir.path(), out.path(), "b.json", "64k");
    let truncated = out.path().join("truncated.json");
    let text = std::fs::read_to_string(&good).unwrap();
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    let foreign = out.path().join("foreign.json");
    std::fs::write(&foreign, r#"{"schema": "fio.result/3", "points": []}"#).unwrap();
    for (other, needle) in [
        (truncated.as_path(), "not valid JSON"),
        (foreign.as_path(), "schema 'fio.result/3'"),
        (disjoint.as_path(), "no point in common"),
        (Path::new("/no/such.json"), "/no/such.json"),
    ] {
        let run = compare(&[&good, other], &[]);
        assert_eq!(run.status.code(), Some(2), "{other:?}");
        let stderr = String::from_utf8(run.stderr).unwrap();
        assert!(
            stderr.contains(needle) && crate::util::message_lines(&stderr) == 1,
            "{other:?}: {stderr}"
        );
    }
    assert_eq!(
        compare(&[&good], &[]).status.code(),
        Some(2),
        "one file is not a comparison"
    );
    assert_eq!(
        compare(&[&good, &good], &["--alpha", "2"]).status.code(),
        Some(2)
    );
}

#[test]
fn inside_one_file_by_a_parameter() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("d.json");
    null_sweep_direct(dir.path(), &output);
    let run = compare(&[&output], &["--by", "direct", "--format", "json"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: Value = serde_json::from_slice(&run.stdout).unwrap();
    let matched = json["pairings"][0]["matched"].as_array().unwrap();
    assert_eq!(
        matched.len(),
        2,
        "read and write, buffered against direct: {json}"
    );
    // Named as the flag takes the setting (`--direct on`).
    assert!(
        json["base"].as_str().unwrap().ends_with("[direct=on]"),
        "the first setting found is the base: {}",
        json["base"]
    );
    let refused = compare(&[&output], &["--by", "colour"]);
    assert_eq!(refused.status.code(), Some(2));
    let lonely = compare(&[&output], &[]);
    assert_eq!(lonely.status.code(), Some(2), "one file needs --by");
}

fn null_sweep_direct(dir: &Path, output: &Path) {
    let run = iolab()
        .args([
            "sweep",
            "--op",
            "write,read",
            "--size",
            "4m",
            "--bs",
            "64k",
            "--direct",
            "on,off",
            "--repeat",
            "2",
        ])
        .args(["--no-report", "--dir"])
        .arg(dir)
        .arg("-o")
        .arg(output)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn loading_a_result_file_takes_memory_for_its_points_not_its_bytes() {
    // One point whose series has 60,000 intervals (what iolab wrote before
    // it bounded its series): about 40 MB of JSON. Loaded whole it took five
    // times that; streamed, with the series coarsened while read, a few MB.
    let dir = scratch();
    let small = dir.path().join("small.json");
    iolab()
        .args([
            "run",
            "--engine",
            "null",
            "--runtime",
            "200ms",
            "--interval",
            "10ms",
            "--dir",
        ])
        .arg(dir.path())
        .arg("-o")
        .arg(&small)
        .assert()
        .success();
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&small).unwrap()).unwrap();
    let repetition = &mut value["points"][0]["repetitions"][0];
    let interval = repetition["series"][0].clone();
    let long: Vec<Value> = (0..60_000)
        .map(|i| {
            let mut copy = interval.clone();
            copy["start_s"] = (f64::from(i) * 0.01).into();
            copy
        })
        .collect();
    repetition["series"] = long.into();
    let big = dir.path().join("big.json");
    std::fs::write(&big, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    let bytes = std::fs::metadata(&big).unwrap().len();
    // What the file costs: the peak over the same command on the small
    // file (a debug build's own peak is about 21 MB, half of the bound).
    let peak_of = |args: &[&std::ffi::OsStr]| {
        let (output, peak) = iolab_peak_rss(args)?;
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        Some(peak)
    };
    let Some(base) = peak_of(&["compare".as_ref(), small.as_os_str(), small.as_os_str()]) else {
        return;
    };
    let peak = peak_of(&["compare".as_ref(), big.as_os_str(), big.as_os_str()]).unwrap();
    assert!(
        peak.saturating_sub(base) < bytes / 4,
        "compare of a {bytes}-byte file with itself peaked {} bytes above the small file's {base}",
        peak.saturating_sub(base)
    );
    let report_of = |file: &std::path::Path, name: &str| {
        let report = dir.path().join(name);
        peak_of(&[
            "report".as_ref(),
            file.as_os_str(),
            "-o".as_ref(),
            report.as_os_str(),
        ])
        .unwrap()
    };
    let (base, peak) = (report_of(&small, "s.html"), report_of(&big, "r.html"));
    assert!(
        peak.saturating_sub(base) < bytes / 4,
        "report peaked {} bytes above the small file's {base} for {bytes}",
        peak.saturating_sub(base)
    );
}

#[test]
fn files_whose_points_differ_in_a_parameter_compare_with_ignore() {
    let dir = scratch();
    let out = scratch();
    let run = |engine: &str| {
        let path = out.path().join(format!("{engine}.json"));
        iolab()
            .args([
                "run", "--op", "write", "--size", "1m", "--bs", "64k", "--repeat", "2",
            ])
            .args(["--engine", engine, "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&path)
            .assert()
            .success();
        path
    };
    let (psync, stdio) = (run("psync"), run("stdio"));
    let refused = compare(&[&psync, &stdio], &[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no point in common") && stderr.contains("--ignore"),
        "{stderr}"
    );
    assert!(
        stderr.contains("differ in engine (psync vs stdio)"),
        "the nearest pair and what differs: {stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "to compare them as one: iolab compare {} {} --ignore engine",
            psync.display(),
            stdio.display()
        )),
        "the command that works: {stderr}"
    );
    let matched = compare(
        &[&psync, &stdio],
        &["--ignore", "engine", "--format", "json"],
    );
    assert!(
        matched.status.success(),
        "{}",
        String::from_utf8_lossy(&matched.stderr)
    );
    let json: Value = serde_json::from_slice(&matched.stdout).unwrap();
    assert_eq!(
        json["pairings"][0]["matched"].as_array().unwrap().len(),
        1,
        "{json}"
    );
    // The row says what was let differ: the base's label alone hid it.
    assert_eq!(
        json["pairings"][0]["matched"][0]["differs"],
        serde_json::json!(["engine psync → stdio"]),
        "{json}"
    );
    // Every point let differ alike: said once, above the table.
    let shown = compare(&[&psync, &stdio], &["--ignore", "engine"]);
    assert!(
        String::from_utf8_lossy(&shown.stdout)
            .contains("every point matched its twin differing in engine psync → stdio"),
        "{}",
        String::from_utf8_lossy(&shown.stdout)
    );
    let text = String::from_utf8_lossy(&shown.stdout);
    // The answer first, in one line; then the method.
    let mut lines = text.lines();
    let answer = lines.next().unwrap();
    assert!(
        answer.contains("stdio.json: ")
            && answer.contains("× ")
            && answer.contains("psync.json's throughput [")
            && answer.ends_with("(n = 2/2)"),
        "the answer first: {text}"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .contains(": throughput, ratio = other/base")
            && !text.contains("Metric {"),
        "the metric in words: {text}"
    );
    let bad = compare(&[&psync, &stdio], &["--ignore", "colour"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn time_is_compared_with_the_studys_formula_and_an_interval_that_agrees_with_the_verdict() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("d.json");
    null_sweep_direct(dir.path(), &output);
    let run = compare(
        &[&output],
        &["--by", "direct", "--metric", "time", "--format", "json"],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json: Value = serde_json::from_slice(&run.stdout).unwrap();
    for m in json["pairings"][0]["matched"].as_array().unwrap() {
        let (base, other) = (
            m["base"]["mean"].as_f64().unwrap(),
            m["other"]["mean"].as_f64().unwrap(),
        );
        let delta = m["delta_percent"].as_f64().unwrap();
        assert!((delta - (base - other) / base * 100.0).abs() < 1e-9, "{m}");
        if let (Some(low), Some(high), Some(p)) = (
            m["ratio_low"].as_f64(),
            m["ratio_high"].as_f64(),
            m["p_value"].as_f64(),
        ) {
            let significant = m["verdict"] == "better" || m["verdict"] == "worse";
            assert_eq!(!(low..=high).contains(&1.0), significant, "{m}");
            assert_eq!(significant, p < 0.05, "{m}");
        }
    }
    for format in ["terminal", "markdown"] {
        let text = compare(
            &[&output],
            &["--by", "direct", "--metric", "time", "--format", format],
        );
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.contains("Δ% = (base − other) / base × 100 of the time")
                && text.contains("Fieller"),
            "{format}: {text}"
        );
    }
}

/// Rounds run A B | B A (`--order abba:bs`): compare says the order that
/// ran, round by round, from the repetitions' sequence numbers, in its
/// text and its JSON.
#[test]
fn the_order_that_ran_is_shown_round_by_round() {
    let (dir, out) = (scratch(), scratch());
    let output = out.path().join("ab.json");
    let run = iolab()
        .args([
            "sweep", "--engine", "null", "--op", "read", "--bs", "4k,64k", "--size", "4m",
        ])
        .args([
            "--rounds",
            "3",
            "--order",
            "abba:bs",
            "--no-report",
            "--dir",
        ])
        .arg(dir.path())
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = compare(&[&output], &["--by", "bs"]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.status.success(),
        "{}",
        String::from_utf8_lossy(&text.stderr)
    );
    assert!(stdout.contains("order that ran, by round"), "{stdout}");
    assert!(stdout.contains(": 1 A B | 2 B A | 3 A B"), "{stdout}");
    let json = compare(&[&output], &["--by", "bs", "--format", "json"]);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        json["pairings"][0]["matched"][0]["executed_order"],
        serde_json::json!(["AB", "BA", "AB"])
    );
}
