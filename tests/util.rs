//! Shared helpers: a scratch directory per test, running iolab, and checking its result files.

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A command running the iolab binary built for these tests, in a working
/// directory of this test process's own: what a command keeps without
/// `--output` (`iolab-results/`) goes there, never into the source tree.
/// A test that needs another sets its own. Its stdout is laid out for
/// 10,000 columns, so that a test of what a row says reads whole rows; a
/// test of the layout sets `COLUMNS` (80) or removes it (a pipe's 80).
pub fn iolab() -> Command {
    let mut command = Command::cargo_bin("iolab").expect("the iolab binary is built");
    command.current_dir(working_dir());
    command.env("COLUMNS", "10000");
    command
}

/// `target/tmp/iolab-cwd-<pid>`, made on first use and made this test
/// process's own working directory too, so that the programs tests start
/// themselves (through bash, strace, a lab's namespace) keep nothing in
/// the source tree either. Tests name files by absolute paths.
pub fn working_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("iolab-cwd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a working directory for the tests");
        std::env::set_current_dir(&dir).expect("the tests' working directory");
        dir
    })
}

/// Writes one file in `dir` with `iolab run --op write --keep` and the
/// `extra` options, and returns its path and the run's result (from stdout).
pub fn write_and_keep(dir: &Path, extra: &[&str]) -> (PathBuf, Value) {
    let kept = iolab()
        .args(["run", "--op", "write", "--keep", "--json", "--dir"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        kept.status.success(),
        "{}",
        String::from_utf8_lossy(&kept.stderr)
    );
    let result: Value = serde_json::from_slice(&kept.stdout).unwrap();
    let path = PathBuf::from(result["points"][0]["target"]["files"][0].as_str().unwrap());
    (path, result)
}

/// A fresh directory on the project's disk (not /tmp, which may be tmpfs).
pub fn scratch() -> tempfile::TempDir {
    working_dir();
    tempfile::Builder::new()
        .prefix("iolab-test-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a temporary directory")
}

/// The entries of a directory, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("readable directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// An iolab command line built from words and paths, so no test turns a
/// path into text (`to_str().unwrap()`): `Cli::new(["run", "--op",
/// "read"]).path("--dir", dir).ok(out)`.
#[derive(Clone, Debug, Default)]
pub struct Cli {
    args: Vec<std::ffi::OsString>,
}

impl Cli {
    /// The command line `words`.
    pub fn new<S: AsRef<std::ffi::OsStr>>(words: impl IntoIterator<Item = S>) -> Cli {
        Cli::default().args(words)
    }

    /// `words` added at the end.
    pub fn args<S: AsRef<std::ffi::OsStr>>(mut self, words: impl IntoIterator<Item = S>) -> Cli {
        self.args
            .extend(words.into_iter().map(|w| w.as_ref().to_os_string()));
        self
    }

    /// `flag` and `path` added at the end (`--dir DIR`).
    pub fn path(mut self, flag: &str, path: impl AsRef<Path>) -> Cli {
        self.args.push(flag.into());
        self.args.push(path.as_ref().as_os_str().to_os_string());
        self
    }

    /// The iolab command to run.
    pub fn command(&self) -> Command {
        let mut command = iolab();
        command.args(&self.args);
        command
    }

    /// Runs it with `--output` into `out_dir` as [`run_ok`] does.
    pub fn ok(&self, out_dir: &Path) -> Value {
        run_ok(&self.args, out_dir)
    }
}

/// The engines this machine offers that `keep` accepts by their
/// capabilities (io_uring may be disabled here), by name: the tests iterate
/// engines so, and a new engine is tested without a test naming it.
pub fn engines_that(
    keep: impl Fn(iolab::engine::kind::Capabilities) -> bool,
) -> Vec<iolab::plan::EngineKind> {
    iolab::plan::EngineKind::ALL
        .into_iter()
        .filter(|engine| keep(engine.capabilities()) && engine.available().is_ok())
        .collect()
}

/// Runs iolab with `args` plus `--output` into `out_dir`, expects success,
/// and returns the validated, consistency-checked result file.
pub fn run_ok<S: AsRef<std::ffi::OsStr> + std::fmt::Debug>(args: &[S], out_dir: &Path) -> Value {
    // Numbered by the results already there (a run's report lies beside each).
    let results = entries(out_dir)
        .iter()
        .filter(|name| name.ends_with(".json"))
        .count();
    let output = out_dir.join(format!("result-{results}.json"));
    let assert = iolab().args(args).arg("--output").arg(&output).assert();
    let out = assert.get_output();
    assert!(
        out.status.success(),
        "iolab {args:?} failed with {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let result = read_result(&output);
    check_consistency(&result);
    result
}

/// Runs `command` (`iolab()`, or another program through
/// `Command::from_std`) and expects it to succeed, showing its stderr when
/// it does not.
pub fn succeed(command: &mut Command) -> std::process::Output {
    let output = command.output().expect("the program starts");
    assert!(
        output.status.success(),
        "{command:?} failed with {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Reads a result file and validates it against the shipped JSON Schema.
pub fn read_result(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).expect("result file written");
    let value: Value = serde_json::from_str(&text).expect("result file is JSON");
    validate_schema(&value);
    value
}

/// Validates against schema/iolab.result-1.schema.json, listing every violation.
pub fn validate_schema(value: &Value) {
    validate_against(value, "iolab.result-1.schema.json");
}

/// Validates against `schema/NAME`, listing every violation.
pub fn validate_against(value: &Value, name: &str) {
    let schema_path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(name);
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "schema violations:\n{}",
        errors.join("\n")
    );
}

/// The internal arithmetic every completed repetition must satisfy.
pub fn check_consistency(result: &Value) {
    // fio's output has no time series nor cache state to check.
    let imported = result.get("source").is_some();
    // A distributed run records the jobs of every rank.
    let ranks = result["distributed"]["ranks"].as_u64().unwrap_or(1);
    for point in result["points"].as_array().unwrap() {
        match point["groups"].as_array() {
            None => check_point(point, imported, ranks, false),
            Some(groups) => {
                for group in groups {
                    check_point(group, imported, ranks, true);
                }
                check_groups_add_up(point, groups);
            }
        }
    }
}

/// A point of groups: each repetition's counts are its groups' added up,
/// and its figures are those counts over its elapsed time.
fn check_groups_add_up(point: &Value, groups: &[Value]) {
    for (index, rep) in point["repetitions"].as_array().unwrap().iter().enumerate() {
        let label = format!("{} rep {index}", point["label"]);
        let sum = |key: &str| -> u64 {
            groups
                .iter()
                .map(|g| g["repetitions"][index][key].as_u64().unwrap())
                .sum()
        };
        assert_eq!(rep["ops"].as_u64().unwrap(), sum("ops"), "{label}: ops");
        assert_eq!(
            rep["bytes"].as_u64().unwrap(),
            sum("bytes"),
            "{label}: bytes"
        );
        let jobs: usize = groups
            .iter()
            .map(|g| g["repetitions"][index]["jobs"].as_array().unwrap().len())
            .sum();
        assert_eq!(rep["jobs"].as_array().unwrap().len(), jobs, "{label}: jobs");
        if rep["status"] == "failed" {
            assert!(
                rep.get("throughput_bps").is_none(),
                "{label}: failure timed"
            );
            continue;
        }
        // A repetition cut short before its timed region has no figures;
        // after, its figures are of the time until the signal.
        if rep["status"] == "interrupted" && rep.get("throughput_bps").is_none() {
            continue;
        }
        let ops = rep["ops"].as_u64().unwrap();
        assert_eq!(
            rep["latency_ns"]["count"].as_u64().unwrap(),
            ops,
            "{label}: latencies"
        );
        let series_ops = series_ops(rep);
        assert_eq!(
            series_ops, ops,
            "{label}: the series accounts for every I/O"
        );
        let elapsed_s = rep["elapsed_ns"].as_f64().unwrap() * 1e-9;
        let iops = rep["iops"].as_f64().unwrap();
        assert!(
            (iops - ops as f64 / elapsed_s).abs() <= iops * 1e-9,
            "{label}: iops"
        );
        for group in groups {
            let own = group["repetitions"][index]["elapsed_ns"].as_f64().unwrap();
            assert!(
                own <= rep["elapsed_ns"].as_f64().unwrap(),
                "{label}: a group within the point"
            );
        }
    }
}

/// One point's (or one group's) repetitions: counts, figures, latencies,
/// series and cache state that agree with each other.
fn check_point(point: &Value, imported: bool, ranks: u64, group: bool) {
    {
        let workload = &point["workload"];
        let bs = workload["bs"].as_u64().unwrap();
        let uses_files = workload["engine"] != "null";
        for rep in point["repetitions"].as_array().unwrap() {
            let label = format!("{} rep {}", point["label"], rep["index"]);
            let bytes = rep["bytes"].as_u64().unwrap();
            let ops = rep["ops"].as_u64().unwrap();
            if workload.get("trace").is_some() {
                // A group's cache is its point's.
                check_trace_repetition(rep, &label, uses_files && !group);
                continue;
            }
            if let Some(items) = workload.get("items") {
                // A metadata workload moves a file's bytes per create or read.
                assert!(items.as_u64().unwrap() >= 1, "{label}: items");
                let file_size = workload["file_size"].as_u64().unwrap_or(0);
                let moves = ["create", "read"].contains(&workload["op"].as_str().unwrap());
                let per_op = if moves { file_size } else { 0 };
                assert_eq!(bytes, ops * per_op, "{label}: bytes = ops x file size");
                assert_eq!(
                    rep["tree"]["items"].as_u64().unwrap_or(ops),
                    ops,
                    "{label}: one operation per item"
                );
            } else if workload.get("bssplit").is_some() {
                // Mixed sizes: each I/O a whole number of the smallest.
                assert!(bytes >= ops * bs, "{label}: bytes >= ops x smallest bs");
                assert_eq!(bytes % bs, 0, "{label}: whole blocks");
            } else {
                assert_eq!(bytes, ops * bs, "{label}: bytes = ops x bs");
            }
            let jobs = rep["jobs"].as_array().unwrap();
            // fio's group_reporting gives one entry for all its threads.
            let totals_only = imported && jobs.len() == 1;
            if !totals_only {
                assert_eq!(
                    jobs.len() as u64,
                    workload["jobs"].as_u64().unwrap() * ranks,
                    "{label}: one record per job"
                );
            }
            let job_bytes: u64 = jobs.iter().map(|j| j["bytes"].as_u64().unwrap()).sum();
            assert_eq!(job_bytes, bytes, "{label}: jobs add up");
            if rep["status"] == "failed" {
                assert!(
                    rep.get("throughput_bps").is_none(),
                    "{label}: a failure is never timed"
                );
                continue;
            }
            if rep["status"] == "interrupted" && rep.get("throughput_bps").is_none() {
                continue;
            }
            let elapsed_ns = rep["elapsed_ns"].as_f64().unwrap();
            let throughput = rep["throughput_bps"].as_f64().unwrap();
            let expected = bytes as f64 / (elapsed_ns * 1e-9);
            // fio writes its bandwidth in whole bytes per second.
            let rounding = if imported { 1.0 } else { 0.0 };
            assert!(
                (throughput - expected).abs() <= expected * 1e-9 + rounding,
                "{label}: throughput = bytes / elapsed ({throughput} against {expected})"
            );
            let iops = rep["iops"].as_f64().unwrap();
            assert!(
                (iops - ops as f64 / (elapsed_ns * 1e-9)).abs() <= iops * 1e-9,
                "{label}: iops"
            );
            assert_eq!(
                rep["latency_ns"]["count"].as_u64().unwrap(),
                ops,
                "{label}: one latency per I/O"
            );
            if imported {
                continue;
            }
            let series_ops = series_ops(rep);
            assert_eq!(
                series_ops, ops,
                "{label}: the series accounts for every I/O"
            );
            // A network client's cache cannot be seen; no residency is
            // claimed for it. A group's is its point's.
            if uses_files
                && !group
                && workload.get("items").is_none()
                && !["nfs", "iscsi"].contains(&workload["engine"].as_str().unwrap_or(""))
            {
                let fraction = rep["cache"]["resident_fraction"].as_f64();
                assert!(
                    fraction.is_some(),
                    "{label}: residency at start is recorded"
                );
            }
            if workload["runtime_s"].is_null() && uses_files && workload.get("items").is_none() {
                // The bytes of --io-size, else of --loops passes.
                let loops = workload["loops"].as_u64().unwrap_or(1);
                let size = workload["io_size"]
                    .as_u64()
                    .unwrap_or(workload["size"].as_u64().unwrap() * loops);
                let files = workload["jobs"].as_u64().unwrap() * ranks;
                assert_eq!(bytes, size * files, "{label}: its passes move the file");
                if workload.get("bssplit").is_none() {
                    assert_eq!(ops, size / bs * files, "{label}: its passes cover the file");
                }
            }
        }
        if let Some(summary) = point.get("summary") {
            let measured = point["repetitions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["warmup"] == false && r["status"] == "ok")
                .count();
            assert_eq!(
                summary["throughput_bps"]["n"].as_u64().unwrap(),
                measured as u64
            );
        }
    }
}

/// A trace point's repetition: its counts are its replay's reads, writes
/// and trims (a flush moves nothing), one latency each, its figures those
/// counts over its elapsed time, its series accounting for every one, and
/// its file's residency at the start recorded. It has no job records: one
/// thread replays the trace.
fn check_trace_repetition(rep: &Value, label: &str, uses_files: bool) {
    let data = |key: &str| -> u64 {
        rep["replay"]["counts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"] != "flush")
            .map(|c| c[key].as_u64().unwrap())
            .sum()
    };
    assert_eq!(
        rep["ops"].as_u64().unwrap(),
        data("replay_ios"),
        "{label}: ops"
    );
    assert_eq!(
        rep["bytes"].as_u64().unwrap(),
        data("replay_bytes"),
        "{label}: bytes"
    );
    if rep["status"] != "ok" {
        return;
    }
    let seconds = rep["elapsed_ns"].as_f64().unwrap() * 1e-9;
    assert_eq!(
        rep["elapsed_ns"], rep["replay"]["elapsed_ns"],
        "{label}: the replay's time"
    );
    let iops = rep["iops"].as_f64().unwrap();
    let expected = rep["ops"].as_f64().unwrap() / seconds;
    assert!((iops - expected).abs() <= expected * 1e-9, "{label}: iops");
    assert_eq!(
        rep["latency_ns"]["count"], rep["ops"],
        "{label}: one latency per I/O"
    );
    let series_ops = series_ops(rep);
    assert_eq!(
        series_ops,
        rep["ops"].as_u64().unwrap(),
        "{label}: the series"
    );
    if uses_files {
        assert_eq!(rep["cache"]["treatment"], "cold", "{label}");
        assert!(
            rep["cache"]["resident_fraction"].as_f64().is_some(),
            "{label}"
        );
    }
}

/// The I/Os a repetition's series counts, all intervals together.
fn series_ops(rep: &Value) -> u64 {
    rep["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["ops"].as_u64().unwrap())
        .sum()
}

/// The first point of a result.
pub fn first_point(result: &Value) -> &Value {
    &result["points"][0]
}

/// The codes of the checks raised on a point.
pub fn check_codes(point: &Value) -> Vec<String> {
    point["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap().to_string())
        .collect()
}

/// The check `code` a point raised; the test fails naming the point's checks when it did not.
pub fn raised_check<'a>(point: &'a Value, code: &str) -> &'a Value {
    point["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == code)
        .unwrap_or_else(|| panic!("{code} not raised: {}", point["checks"]))
}

/// Whether O_DIRECT opens succeed in `dir`; prints why a test skips when not.
pub fn direct_io_works(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let probe = dir.join("direct-probe");
    let result = std::fs::OpenOptions::new()
        .create_new(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(&probe);
    let _ = std::fs::remove_file(&probe);
    if let Err(error) = &result {
        crate::not_here!("O_DIRECT is refused in {}: {error}", dir.display());
    }
    result.is_ok()
}

/// Whether this kernel lets us create an io_uring; prints why a test skips when not.
pub fn uring_works() -> bool {
    match io_uring::IoUring::new(2) {
        Ok(_) => true,
        Err(error) => {
            crate::not_here!("io_uring is unavailable: {error}");
            false
        }
    }
}

/// Runs a quick null-engine sweep (write and read, files 64k..256k, records
/// `bs`, 3 repetitions) into `output`, with `extra` flags, and expects success.
pub fn null_sweep(dir: &Path, output: &Path, bs: &str, extra: &[&str]) {
    let run = iolab()
        .args([
            "sweep",
            "--engine",
            "null",
            "--op",
            "write,read",
            "--size",
            "64k..256k",
            "--bs",
            bs,
        ])
        .args(["--repeat", "3"])
        .args(extra)
        .arg("--dir")
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

/// Waits until process `pid` has a thread whose name starts with `prefix`
/// (iolab names its threads `iolab-job-N` and `iolab-sampler`): a job thread
/// exists only while a repetition runs, so this is the moment a repetition
/// is under way, whatever the machine's speed. Panics after `limit`.
pub fn wait_for_thread(pid: u32, prefix: &str, limit: std::time::Duration) {
    let started = std::time::Instant::now();
    loop {
        let named = std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .any(|task| {
                std::fs::read_to_string(task.path().join("comm"))
                    .is_ok_and(|name| name.starts_with(prefix))
            });
        if named {
            return;
        }
        assert!(
            started.elapsed() < limit,
            "no thread {prefix}* in process {pid} after {limit:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Waits until `signal` is no longer pending for process `pid` (its handler
/// has run), so that a second one is delivered as a second signal rather
/// than merged into the first.
pub fn wait_until_delivered(pid: u32, signal: i32) {
    let bit = 1u64 << (signal - 1);
    let started = std::time::Instant::now();
    loop {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let pending = status
            .lines()
            .filter(|l| l.starts_with("ShdPnd:") || l.starts_with("SigPnd:"))
            .filter_map(|l| u64::from_str_radix(l.split_whitespace().nth(1)?, 16).ok())
            .any(|mask| mask & bit != 0);
        if !pending {
            return;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Runs iolab with `args` under GNU time and returns its output and peak
/// RSS in bytes; `None` (with the reason printed) without /usr/bin/time.
pub fn iolab_peak_rss(args: &[&std::ffi::OsStr]) -> Option<(std::process::Output, u64)> {
    if !Path::new("/usr/bin/time").exists() {
        crate::skip!("/usr/bin/time is not installed (scripts/test installs the time package)");
        return None;
    }
    let report = tempfile::NamedTempFile::new().unwrap();
    let output = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(report.path())
        .arg(assert_cmd::cargo::cargo_bin("iolab"))
        .args(args)
        .output()
        .unwrap();
    let kib: u64 = std::fs::read_to_string(report.path())
        .unwrap()
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    Some((output, kib * 1024))
}

/// Runs `iolab sweep ARGS --dir DIR` (its result in `out`, no report) and
/// returns its points' `workload[field]`, `absent` where a point leaves the
/// field out (a default that is not written).
pub fn swept(dir: &Path, out: &Path, args: &[&str], field: &str, absent: &str) -> Vec<String> {
    let sweep = out.join("sweep.json");
    succeed(
        iolab()
            .arg("sweep")
            .args(args)
            .arg("--dir")
            .arg(dir)
            .arg("-o")
            .arg(&sweep)
            .arg("--no-report"),
    );
    read_result(&sweep)["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["workload"][field].as_str().unwrap_or(absent).to_string())
        .collect()
}

/// Runs `iolab import FIO_OUTPUT` expecting a refusal: exit status 2 and no
/// result created; returns the error it printed.
pub fn import_refused(fio_output: &Path, out: &Path) -> String {
    let refused_result = out.join("refused.iolab.json");
    let refused = iolab()
        .arg("import")
        .arg(fio_output)
        .arg("-o")
        .arg(&refused_result)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(!refused_result.exists());
    String::from_utf8_lossy(&refused.stderr).into_owned()
}

/// Runs `iolab run ARGS --dir DIR` expecting a refusal: exit status 2 with
/// `named` in its message; returns the message.
pub fn run_refused(dir: &Path, args: &[&str], named: &str) -> String {
    let refused = iolab()
        .arg("run")
        .args(args)
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{args:?}: {refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr).into_owned();
    assert!(stderr.contains(named), "{args:?}: {stderr}");
    stderr
}

/// Runs the study `toml` (written into `out`, its result there too, no
/// report) with scratch directory `dir`; returns its points.
pub fn studied(dir: &Path, out: &Path, toml: &str) -> Vec<Value> {
    let study = out.join("study.toml");
    std::fs::write(&study, toml).unwrap();
    let result = out.join("study.json");
    succeed(
        iolab()
            .arg("study")
            .arg(&study)
            .arg("--dir")
            .arg(dir)
            .arg("-o")
            .arg(&result)
            .arg("--no-report"),
    );
    read_result(&result)["points"].as_array().unwrap().clone()
}

/// A 70/30 mix of random 4 KiB reads and overwrites, as fio's wrappers run
/// `randrw` (`rwmixread=70`).
pub const MIX_70_30: [&str; 6] = [
    "--mix",
    "read=70,write=30",
    "--pattern",
    "random",
    "--bs",
    "4k",
];

/// Checks a 70/30 read/write mix of `ops` I/Os of `bs` bytes on a network
/// engine: the shares within binomial bounds (5 standard deviations), and
/// each direction's I/Os are the engine's own requests named `names`
/// (reads', writes'), counted and sized the same.
pub fn check_mixed_requests(repetition: &Value, ops: u64, bs: u64, names: [&str; 2]) {
    assert_eq!(repetition["status"], "ok", "{repetition}");
    assert_eq!(repetition["ops"].as_u64(), Some(ops), "{repetition}");
    let directions = repetition["directions"].as_array().expect("directions");
    let ops_of = |name: &str| {
        directions
            .iter()
            .find(|d| d["direction"] == name)
            .and_then(|d| d["ops"].as_u64())
            .unwrap_or_else(|| panic!("no {name} in {directions:?}"))
    };
    let (reads, writes) = (ops_of("read"), ops_of("write"));
    assert_eq!(reads + writes, ops);
    let sd = (ops as f64 * 0.7 * 0.3).sqrt();
    assert!(
        (reads as f64 - 0.7 * ops as f64).abs() < 5.0 * sd,
        "{reads} reads of {ops}"
    );
    let requests = repetition["client_network"]["requests"]
        .as_array()
        .expect("requests");
    for (name, count) in names.into_iter().zip([reads, writes]) {
        let request = requests
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {requests:?}"));
        assert_eq!(
            (request["count"].as_u64(), request["bytes"].as_u64()),
            (Some(count), Some(count * bs)),
            "{name}"
        );
    }
}

/// The lines of an error on stderr that say what is wrong: clap's tips and
/// usage line, which follow a refused argument on lines of their own, are
/// advice and not counted (a refusal is one such line), nor is where the
/// report of a run that failed was written.
pub fn message_lines(stderr: &str) -> usize {
    stderr
        .trim_end()
        .lines()
        .filter(|line| !line.starts_with("  tip: ") && !line.starts_with("  Usage: "))
        // Where a run that failed kept its result's report is no message.
        .filter(|line| !line.starts_with("iolab: report "))
        .count()
}

/// `iolab quick` at the smallest size and shortest tests that still run all
/// eight: the suite's shape in a second or two.
pub const TINY_QUICK: &[&str] = &[
    "quick",
    "--size",
    "8m",
    "--runtime",
    "200ms",
    "--ramp",
    "0s",
];

/// The metadata tree a running iolab is making in `dir`, once its shared
/// top holds more than `files` entries (the test fails after a minute).
pub fn wait_for_tree(dir: &Path, files: usize) -> PathBuf {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let found = entries(dir)
            .into_iter()
            .find(|n| n.ends_with(".tree"))
            .map(|n| dir.join(n));
        if let Some(tree) =
            found.filter(|t| t.join("shared").exists() && entries(&t.join("shared")).len() > files)
        {
            return tree;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no tree appeared in {}",
            dir.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Where skips are counted: the file `IOLAB_SKIP_LOG` names (scripts/test
/// sets it and prints the `N passed, N failed, N skipped` line from it).
fn note_skip(kind: &str, reason: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("(unnamed)")
        .to_string();
    eprintln!("{kind}: {reason}");
    if let Some(path) = std::env::var_os("IOLAB_SKIP_LOG") {
        use std::io::Write;
        // One short line per append (O_APPEND): lines of parallel tests do not mix.
        let line = format!("{test}\t{kind}\t{}\n", reason.replace(['\n', '\t'], " "));
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut file| file.write_all(line.as_bytes()));
        if let Err(error) = appended {
            panic!(
                "cannot count the skip in {}: {error}",
                Path::new(&path).display()
            );
        }
    }
}

/// The running test skips (all or the part the caller returns from)
/// because a prerequisite is missing: root, a package, QEMU, the lab. Under
/// `CI=true`, where scripts/test installed everything, the test fails instead.
pub fn skipped(reason: String) {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!(
            "a prerequisite is missing under CI=true (scripts/test installs the packages; CI runs as root): {reason}"
        );
    }
    note_skip("skip", &reason);
}

/// The running test skips because this machine cannot show what it checks
/// (a kernel feature, one CPU, a container's limits): counted as skipped,
/// under `CI=true` too, and named in scripts/test's summary.
pub fn not_here(reason: String) {
    note_skip("not here", &reason);
}

/// `skip!("…{x}…")`: see [`skipped`].
#[macro_export]
macro_rules! skip {
    ($($arg:tt)*) => { $crate::util::skipped(format!($($arg)*)) };
}

/// `not_here!("…{x}…")`: see [`not_here`].
#[macro_export]
macro_rules! not_here {
    ($($arg:tt)*) => { $crate::util::not_here(format!($($arg)*)) };
}

/// A fresh iolab cache in `dir` for one guest test (its own runs and QEMU
/// processes, found by its path) that already holds the guest's kernel
/// and busybox: `iolab guest fetch` runs once per test process, into a
/// seed cache, and each test's cache gets hard links to what it unpacked
/// (`cp -al`), so no test fetches and unpacks 465 MB again. A seed left by
/// a test process that is gone is removed first.
pub fn guest_cache(dir: &Path) -> PathBuf {
    static SEED: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    let seed = SEED.get_or_init(|| {
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        for entry in std::fs::read_dir(tmp).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let gone = name
                .strip_prefix("guest-seed-")
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists());
            if gone {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
        let seed = tmp.join(format!("guest-seed-{}", std::process::id()));
        let fetched = iolab()
            .env("IOLAB_CACHE", &seed)
            .args(["guest", "fetch"])
            .output()
            .ok()?;
        if !fetched.status.success() {
            // The test's own boot then says why, as it did before.
            eprintln!(
                "note: no guest seed cache: {}",
                String::from_utf8_lossy(&fetched.stderr).trim()
            );
            return None;
        }
        Some(seed)
    });
    let cache = dir.join("cache");
    let Some(seed) = seed else { return cache };
    std::fs::create_dir_all(cache.join("guest")).unwrap();
    for entry in std::fs::read_dir(seed.join("guest")).unwrap().flatten() {
        if entry.path().join(".iolab-complete").exists() {
            let linked = std::process::Command::new("cp")
                .arg("-al")
                .arg(entry.path())
                .arg(cache.join("guest"))
                .status()
                .unwrap();
            assert!(linked.success(), "cp -al {}", entry.path().display());
        }
    }
    cache
}
