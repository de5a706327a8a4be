//! Sweeps and studies: the IOzone matrix in one command, kill -9 and resume, study files, adaptive repetitions, and refusals.

use crate::util::*;
use serde_json::Value;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn labels(result: &Value) -> Vec<String> {
    result["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap().to_string())
        .collect()
}

/// Runs the sweep `command` (which writes `output`) and stops it with
/// SIGTERM in the middle of its third point: once two points are journaled
/// and a job thread exists again, that point's repetition is under way.
/// Returns what it printed, having checked it ended by the signal.
fn stopped_in_third_point(
    mut command: std::process::Command,
    output: &Path,
) -> std::process::Output {
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    // header + run start + 2 points.
    while std::fs::read_to_string(journal(output)).map_or(0, |t| t.lines().count()) < 4 {
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(10));
    }
    wait_for_thread(child.id(), "iolab-job", Duration::from_secs(60));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(stopped.status.code(), Some(143), "{stopped:?}");
    stopped
}

fn journal(output: &Path) -> std::path::PathBuf {
    let mut name = output.as_os_str().to_owned();
    name.push(".journal");
    name.into()
}

#[test]
fn the_iozone_matrix_runs_as_one_command() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("matrix.json");
    let run = iolab()
        .args([
            "sweep",
            "--op",
            "write,rewrite,read,reread",
            "--size",
            "64k..256k",
            "--bs",
            "4k..16m",
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
    let result = read_result(&output);
    check_consistency(&result);
    // Files 64k, 128k, 256k × records 4k up to the file size: 5 + 6 + 7 cells, 4 ops each.
    let labels = labels(&result);
    assert_eq!(labels.len(), 72);
    assert_eq!(
        &labels[..4],
        [
            "write seq 4KiB psync file 64KiB",
            "rewrite seq 4KiB psync file 64KiB",
            "read seq 4KiB psync file 64KiB",
            "reread seq 4KiB psync file 64KiB"
        ]
    );
    assert_eq!(result["plan"]["points"], 72);
    assert_eq!(result["plan"]["kind"], "sweep");
    assert!(
        !journal(&output).exists(),
        "the journal goes once every point is in the result"
    );
    assert!(entries(dir.path()).is_empty(), "scratch files removed");
    let stdout = String::from_utf8(run.stdout).unwrap();
    // The table's rows reach the largest record sizes (keyed by the axes).
    assert!(
        stdout
            .lines()
            .any(|l| l.contains("reread") && (l.contains("1MiB") || l.contains("256KiB"))),
        "{stdout}"
    );
}

fn sweep_command(dir: &Path, output: &Path, bs: &str) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
    command
        .args([
            "sweep",
            "--op",
            "write,read",
            "--size",
            "1m",
            "--bs",
            bs,
            "--seed",
            "0..29/+1",
        ])
        .args(["--runtime", "100ms", "--dir"])
        .arg(dir)
        .arg("-o")
        .arg(output);
    command
}

#[test]
fn kill_9_loses_at_most_the_point_in_flight_and_resume_finishes() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("killed.json");
    let mut child = sweep_command(dir.path(), &output, "4k")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill once a few points are in the journal.
    let started = Instant::now();
    loop {
        let lines = std::fs::read_to_string(journal(&output)).map_or(0, |t| t.lines().count());
        if lines >= 6 || started.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let journaled = std::fs::read_to_string(journal(&output))
        .unwrap()
        .lines()
        .count()
        - 1;
    assert!(
        journaled >= 5,
        "{journaled} points journaled before the kill"
    );

    // A different plan may not continue it.
    let changed = sweep_command(dir.path(), &output, "8k")
        .arg("--resume")
        .output()
        .unwrap();
    assert_eq!(changed.status.code(), Some(2));
    let stderr = String::from_utf8(changed.stderr).unwrap();
    assert!(
        stderr.contains("another plan") && crate::util::message_lines(&stderr) == 1,
        "{stderr}"
    );
    // Without --resume, the output is not touched.
    let again = sweep_command(dir.path(), &output, "4k").output().unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--resume"));

    // Decoys named like the dead run's scratch files but not made by it:
    // a file without iolab's marker and a symlink to someone's data.
    let run_id = std::fs::read_to_string(journal(&output))
        .unwrap()
        .lines()
        .find_map(|line| {
            let value: serde_json::Value = serde_json::from_str(line).ok()?;
            Some(value.get("run_id")?.as_str()?.to_string())
        })
        .expect("the journal names the run");
    let decoy = dir.path().join(format!("iolab-{run_id}-98.dat"));
    std::fs::write(&decoy, b"not iolab's").unwrap();
    let victim = out.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let link = dir.path().join(format!("iolab-{run_id}-99.dat"));
    std::os::unix::fs::symlink(&victim, &link).unwrap();

    // A torn result file (as a power cut during a non-atomic write would
    // leave): loaders refuse it, and the journal rebuilds it.
    let whole = std::fs::read_to_string(&output).unwrap_or_else(|_| {
        "{\"schema\": \"iolab.result/1\", \"points\": [{\"label\": \"x\"}]}".to_string()
    });
    std::fs::write(&output, &whole[..whole.len() / 2]).unwrap();
    let refused = iolab()
        .arg("report")
        .arg(&output)
        .arg("-o")
        .arg(out.path().join("torn.html"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is not valid JSON") && stderr.contains("truncated"),
        "{stderr}"
    );

    // What a crash while the result was being rewritten leaves: a temporary
    // file tagged with its (dead: another boot) owner. Beside it, one of a
    // live iolab (this test's own tag) and an untagged one, which stay.
    let temporary = |pid: u32| out.path().join(format!(".killed.json.tmp-{pid}"));
    let tag = |path: &std::path::Path, owner: &str| {
        std::fs::write(path, b"{").unwrap();
        rustix::fs::setxattr(
            path,
            "user.iolab.owner",
            owner.as_bytes(),
            rustix::fs::XattrFlags::empty(),
        )
    };
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    let namespace = std::fs::read_link("/proc/self/ns/pid").unwrap();
    let namespace = namespace.to_string_lossy().replace(' ', "_");
    let xattrs = tag(
        &temporary(4_000_001),
        &format!("{host} {namespace} another-boot 77 1"),
    )
    .is_ok();
    // One written whole before its process died, its rename not done: kept.
    let _ = tag(
        &temporary(4_000_004),
        &format!("{host} {namespace} another-boot 78 1"),
    );
    std::fs::write(temporary(4_000_004), b"{\"whole\": true}").unwrap();
    let me = std::process::id();
    let stat = std::fs::read_to_string(format!("/proc/{me}/stat")).unwrap();
    let start = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .to_string();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let _ = tag(
        &temporary(4_000_002),
        &format!("{host} {namespace} {} {me} {start}", boot.trim()),
    );
    std::fs::write(temporary(4_000_003), b"{").unwrap();

    let resumed = sweep_command(dir.path(), &output, "4k")
        .arg("--resume")
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let stderr = String::from_utf8(resumed.stderr).unwrap();
    if xattrs {
        assert!(
            !temporary(4_000_001).exists(),
            "a dead iolab's temporary goes: {stderr}"
        );
        assert!(stderr.contains(".killed.json.tmp-4000001"), "{stderr}");
        let recovered = out.path().join("killed.recovered-4000004.json");
        assert_eq!(
            std::fs::read(&recovered).unwrap_or_default(),
            b"{\"whole\": true}",
            "a whole result is kept, named: {stderr}"
        );
        assert!(!temporary(4_000_004).exists());
        assert!(stderr.contains("killed.recovered-4000004.json"), "{stderr}");
        assert!(temporary(4_000_002).exists(), "a live iolab's stays");
    } else {
        crate::not_here!("no user xattrs here, so no owner tags to judge by");
    }
    assert!(temporary(4_000_003).exists(), "an untagged file stays");
    assert!(
        stderr.contains(&format!("{journaled} of 60 points done"))
            || stderr.contains("of 60 points done"),
        "{stderr}"
    );
    let result = read_result(&output);
    check_consistency(&result);
    let labels = labels(&result);
    assert_eq!(labels.len(), 60, "every point once");
    let unique: std::collections::HashSet<&String> = labels.iter().collect();
    assert_eq!(unique.len(), 60, "no point twice");
    assert_eq!(labels[0], "write seq 4KiB psync file 1MiB seed=0");
    assert_eq!(labels[59], "read seq 4KiB psync file 1MiB seed=29");
    assert!(!journal(&output).exists());
    let mut left = entries(dir.path());
    left.sort();
    assert_eq!(
        left,
        vec![
            format!("iolab-{run_id}-98.dat"),
            format!("iolab-{run_id}-99.dat")
        ],
        "the killed run's scratch files are gone; the decoys without its marker stay"
    );
    assert_eq!(std::fs::read(&decoy).unwrap(), b"not iolab's");
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
}

#[test]
fn bad_sweeps_are_refused_and_create_nothing() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("never.json");
    for (args, named) in [
        (vec!["--bs", ""], "--bs"),
        (vec!["--bs", "1m..4k"], "backwards"),
        (vec!["--bs", "4k,,8k"], "--bs"),
        (vec!["--engine", "psync,warp"], "warp"),
        (
            vec!["--bs", "4k..64k", "--where", "bs>1g"],
            "'bs>1g' remove every point",
        ),
        (vec!["--where", "colour==red"], "colour==red"),
        (
            vec!["--size", "4k", "--bs", "8k,16k"],
            "larger than its file",
        ),
    ] {
        let run = iolab()
            .arg("sweep")
            .args(&args)
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(&output)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(run.stderr).unwrap();
        assert_eq!(crate::util::message_lines(&stderr), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
    assert!(entries(dir.path()).is_empty() && entries(out.path()).is_empty());
}

#[test]
fn dry_run_shows_the_plan_and_runs_nothing() {
    let dir = scratch();
    let run = iolab()
        .args([
            "sweep",
            "--dry-run",
            "--op",
            "write,read",
            "--bs",
            "4k,1m",
            "--size",
            "1g",
            "--direct",
            "on,off",
            "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(run.status.success());
    let text = String::from_utf8(run.stdout).unwrap();
    assert!(text.starts_with("sweep: 8 points"), "{text}");
    assert!(text.contains("at most 1.00 GiB of scratch files"), "{text}");
    assert!(text.contains("one-pass points move 8.00 GiB"), "{text}");
    assert!(
        text.contains("write seq 4KiB psync direct file 1GiB"),
        "{text}"
    );
    assert!(entries(dir.path()).is_empty());
    assert!(!Path::new("iolab-results").join("x").exists());
}

const STUDY: &str = r#"
name = "tiny"
description = "two sweeps"

[repeat]
count = 2

[defaults]
size = "256k"
op = ["write", "read"]

[[sweep]]
label = "small blocks"
bs = "4k..16k"

[[sweep]]
label = "big block"
bs = "128k"
where = ["op==read"]
"#;

#[test]
fn a_study_runs_and_running_it_again_finds_it_done() {
    let dir = scratch();
    let out = scratch();
    let file = out.path().join("tiny.toml");
    std::fs::write(&file, STUDY).unwrap();
    let output = out.path().join("tiny.json");
    let run = || {
        iolab()
            .args(["study"])
            .arg(&file)
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(&output)
            .output()
            .unwrap()
    };
    let first = run();
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let result = read_result(&output);
    check_consistency(&result);
    let labels = labels(&result);
    assert_eq!(labels.len(), 3 * 2 + 1);
    assert_eq!(labels[6], "big block: read seq 128KiB psync file 256KiB");
    assert_eq!(result["plan"]["name"], "tiny");
    assert!(
        result["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["summary"]["throughput_bps"]["n"] == 2)
    );
    let second = run();
    assert!(second.status.success());
    assert!(String::from_utf8_lossy(&second.stderr).contains("all 7 points of this plan are in"));

    let broken = out.path().join("broken.toml");
    std::fs::write(
        &broken,
        STUDY.replace("bs = \"128k\"", "bs = \"128k\"\nblocksize = 1"),
    )
    .unwrap();
    let refused = iolab().arg("study").arg(&broken).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8(refused.stderr).unwrap();
    assert!(
        stderr.contains("line 19") && stderr.contains("blocksize"),
        "{stderr}"
    );
}

#[test]
fn until_ci_stops_early_or_says_it_did_not_reach_the_target() {
    let dir = scratch();
    let out = scratch();
    let loose = Cli::new([
        "run",
        "--engine",
        "null",
        "--size",
        "64m",
        "--until-ci",
        "99%",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let summary = &first_point(&loose)["summary"];
    // A ±99% interval needs only a few repetitions (3 unless one is far off): it stops early.
    let n = summary["throughput_bps"]["n"].as_u64().unwrap();
    assert!((3..20).contains(&n), "{n} repetitions");
    assert_eq!(summary["ci_target_met"], true);
    let stat = &summary["throughput_bps"];
    let half = (stat["ci95_high"].as_f64().unwrap() - stat["ci95_low"].as_f64().unwrap()) / 2.0;
    assert!(half <= 0.99 * stat["mean"].as_f64().unwrap());
    let tight = Cli::new([
        "run",
        "--engine",
        "null",
        "--size",
        "16m",
        "--until-ci",
        "0.0001%",
        "--max-repeat",
        "5",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let summary = &first_point(&tight)["summary"];
    assert_eq!(summary["throughput_bps"]["n"], 5, "ran to --max-repeat");
    assert_eq!(summary["ci_target_met"], false);
    assert_eq!(first_point(&tight)["workload"]["until_ci"], 0.000001);
}

#[test]
fn steady_state_stops_a_time_based_run_or_says_it_was_not_reached() {
    let dir = scratch();
    let out = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    let steady = run_ok(
        &[
            "run",
            "--engine",
            "null",
            "--size",
            "64m",
            "--runtime",
            "60s",
            "--interval",
            "100ms",
            "--steady",
            "bw:slope<50%/1s",
            "--dir",
            dir_arg,
        ],
        out.path(),
    );
    let repetition = &first_point(&steady)["repetitions"][0];
    assert_eq!(
        repetition["steady"]["reached"], true,
        "{}",
        repetition["steady"]
    );
    assert_eq!(repetition["steady"]["criterion"], "bw:slope<50%/1s");
    let at = repetition["steady"]["at_s"].as_f64().unwrap();
    let elapsed = repetition["elapsed_ns"].as_f64().unwrap() / 1e9;
    assert!(
        at >= 1.0 && elapsed < 60.0 && elapsed >= at,
        "steady at {at} s, stopped at {elapsed} s"
    );
    assert!(!check_codes(first_point(&steady)).contains(&"not-steady".to_string()));

    let never = run_ok(
        &[
            "run",
            "--engine",
            "null",
            "--size",
            "64m",
            "--runtime",
            "1s",
            "--interval",
            "100ms",
            "--steady",
            "bw:range<0.000001%/500ms",
            "--dir",
            dir_arg,
        ],
        out.path(),
    );
    let repetition = &first_point(&never)["repetitions"][0];
    assert_eq!(repetition["steady"]["reached"], false);
    assert!(
        repetition["elapsed_ns"].as_f64().unwrap() >= 1e9,
        "ran to --runtime"
    );
    assert!(check_codes(first_point(&never)).contains(&"not-steady".to_string()));

    let refused = iolab()
        .args(["run", "--steady", "bw:slope<1%/10s", "--dir", dir_arg])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("needs --runtime"));
}

#[test]
fn an_interrupted_point_is_measured_again_on_resume() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("term.json");
    let command = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
        command
            .args([
                "sweep",
                "--engine",
                "null",
                "--size",
                "1m",
                "--seed",
                "0..5/+1",
                "--runtime",
                "300ms",
            ])
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(&output);
        command
    };
    let stopped = stopped_in_third_point(command(), &output);
    assert!(String::from_utf8_lossy(&stopped.stderr).contains("--resume to measure the rest"));
    let partial = read_result(&output);
    let statuses: Vec<&str> = partial["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["repetitions"][0]["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses.last(), Some(&"interrupted"), "{statuses:?}");
    let journaled = std::fs::read_to_string(journal(&output))
        .unwrap()
        .lines()
        .count()
        - 2;
    assert_eq!(
        journaled,
        statuses.len() - 1,
        "the interrupted point is not journaled"
    );

    let resumed = command().arg("--resume").output().unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let result = read_result(&output);
    check_consistency(&result);
    let labels = labels(&result);
    assert_eq!(labels.len(), 6);
    assert_eq!(
        labels
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len(),
        6
    );
    assert!(
        result["points"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["repetitions"][0]["status"] == "ok")
    );
}

#[test]
fn an_empty_journal_is_no_journal_and_a_second_iolab_on_a_sweep_is_refused_by_name() {
    let dir = scratch();
    let out = scratch();
    // An empty journal (what a full disk left behind in earlier versions).
    let output = out.path().join("empty.json");
    std::fs::write(journal(&output), b"").unwrap();
    let run = iolab()
        .args([
            "sweep",
            "--engine",
            "null",
            "--size",
            "64k,128k",
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
    assert_eq!(labels(&read_result(&output)).len(), 2);
    assert!(!journal(&output).exists());

    // Two iolabs resuming one sweep: the second is refused, naming the first.
    let output = out.path().join("busy.json");
    let sweep = |resume: bool| {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"));
        command
            .args([
                "sweep",
                "--engine",
                "null",
                "--runtime",
                "1s",
                "--seed",
                "0..59/+1",
            ])
            .args(["--no-report", "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&output);
        if resume {
            command.arg("--resume");
        }
        command
    };
    let mut first = sweep(false)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Its run start is journaled once it holds the lock.
    let started = Instant::now();
    while std::fs::read_to_string(journal(&output)).map_or(0, |t| t.lines().count()) < 2 {
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = sweep(true).output().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("another iolab (pid {} on ", first.id()))
            && stderr.contains("is running this sweep"),
        "{stderr}"
    );
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&first),
        rustix::process::Signal::INT,
    )
    .unwrap();
    assert_eq!(first.wait().unwrap().code(), Some(130));
    let journal_text = std::fs::read_to_string(journal(&output)).unwrap();
    let starts = journal_text
        .lines()
        .filter(|l| l.contains("\"run_id\""))
        .count();
    assert_eq!(starts, 1, "the refused iolab wrote nothing: {journal_text}");
}

/// Bytes the command read through read(2) and its kin, as `iolab measure`
/// recorded them from /proc/PID/io.
fn bytes_read_by(args: &[&str], out: &Path, name: &str) -> u64 {
    let output = out.join(format!("{name}.json"));
    let binary = assert_cmd::cargo::cargo_bin("iolab");
    iolab()
        .args(["measure", "--path"])
        .arg(out)
        .arg("-o")
        .arg(&output)
        .arg("--")
        .arg(&binary)
        .args(args)
        .assert()
        .success();
    let result = read_result(&output);
    result["measurements"][0]["runs"][0]["process_io"]["read_chars"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_reread_right_after_a_read_is_the_second_read_as_iozones() {
    // IOzone's reread is the read right after its read pass. In a sweep in
    // IOzone's order with the cache kept, the read point is that read: the
    // reread must not read the file a third time first (the second read of
    // a file pays for moving its pages to the active list; a third does not).
    let dir = scratch();
    let out = scratch();
    let size = 16u64 << 20;
    let sweep = |cache: &str, name: &str| {
        let result = out.path().join(format!("{name}-sweep.json"));
        let args = [
            "sweep",
            "--op",
            "write,rewrite,read,reread",
            "--engine",
            "sync",
            "--bs",
            "64k",
            "--size",
            "16m",
            "--no-report",
            "--cache",
            cache,
            "--dir",
            dir.path().to_str().unwrap(),
            "-o",
            result.to_str().unwrap(),
        ];
        bytes_read_by(&args, out.path(), name)
    };
    // Two passes (read, reread), plus what iolab reads of /proc meanwhile.
    let clean = sweep("clean", "clean");
    assert!(
        (2 * size..2 * size + size / 2).contains(&clean),
        "{clean} bytes read for a read and a reread of {size}"
    );
    // A cold cache drops the pages: the reread reads once untimed, then once timed.
    let cold = sweep("cold", "cold");
    assert!(
        (3 * size..3 * size + size / 2).contains(&cold),
        "{cold} bytes read for a read, an untimed read and a reread of {size}"
    );
}

/// A knee search resumed after two points over the target stops before
/// measuring more: the rule is asked before each point, of the points the
/// result already holds. (The first run, told `--knee-all`, would have run
/// on; it is stopped with SIGTERM in its third point.)
#[test]
fn a_resumed_knee_search_stops_where_its_points_say() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("knee.json");
    let command = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
        command
            .args(["sweep", "--engine", "null", "--size", "1m"])
            .args(["--rate-iops", "1000,2000,4000,8000", "--runtime", "300ms"])
            .args(["--knee", "p99<=1ns", "--no-report"])
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(&output);
        command
    };
    let mut first = command();
    first.arg("--knee-all");
    stopped_in_third_point(first, &output);

    let resumed = command().arg("--resume").output().unwrap();
    assert!(resumed.status.success(), "{resumed:?}");
    let result = read_result(&output);
    validate_schema(&result);
    let not_run: Vec<&str> = result["knee"]["not_run"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", result["knee"]))
        .iter()
        .map(|label| label.as_str().unwrap())
        .collect();
    assert_eq!(not_run.len(), 2, "{not_run:?}");
    assert!(not_run[0].contains("4000"), "{not_run:?}");
    let measured = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["repetitions"][0]["status"] == "ok")
        .count();
    assert_eq!(measured, 2, "no point past the knee was measured");
    assert!(!journal(&output).exists(), "the search is complete");
}

/// The knee target is part of the plan: a sweep resumed under another
/// target is refused like any changed plan, and nothing is measured
/// (issue "Nothing lost, nothing harmed, round 3", item 10).
#[test]
fn a_knee_search_resumed_under_another_target_is_refused() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("knee.json");
    let command = |target: &str| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
        command
            .args(["sweep", "--engine", "null", "--size", "1m"])
            .args(["--rate-iops", "1000,2000,4000,8000", "--runtime", "300ms"])
            .args(["--knee", target, "--knee-all", "--no-report"])
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(&output);
        command
    };
    stopped_in_third_point(command("p99<=1ns"), &output);
    let before = std::fs::read(journal(&output)).unwrap();
    let resumed = command("p99<=10ms").arg("--resume").output().unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("plan"), "{stderr}");
    assert_eq!(
        std::fs::read(journal(&output)).unwrap(),
        before,
        "nothing measured"
    );
}

/// The order that ran is in the result (issue "Every study's comparison
/// from one command": repetitions carried `round` but no start or place):
/// `--order abba:bs` over two rounds ran A B | B A, and each
/// repetition's `sequence` and `started_at` say so.
#[test]
fn the_executed_order_is_recorded_with_each_repetition() {
    let dir = scratch();
    let out = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    let args = [
        "sweep", "--engine", "null", "--size", "1m", "--bs", "4k,8k", "--order", "abba:bs",
        "--rounds", "2", "--dir", dir_arg,
    ];
    let result = run_ok(&args, out.path());
    let mut ran: Vec<(u64, String, bool)> = Vec::new();
    for point in result["points"].as_array().unwrap() {
        let small = point["workload"]["bs"] == 4096;
        for repetition in point["repetitions"].as_array().unwrap() {
            let sequence = repetition["sequence"].as_u64().expect("a sequence number");
            let started = repetition["started_at"].as_str().expect("a start time");
            assert!(started.ends_with('Z') && started.contains('T'), "{started}");
            ran.push((sequence, started.to_string(), small));
        }
    }
    ran.sort();
    let order: Vec<bool> = ran.iter().map(|(_, _, small)| *small).collect();
    let sequences: Vec<u64> = ran.iter().map(|(sequence, _, _)| *sequence).collect();
    assert_eq!(sequences, [0, 1, 2, 3]);
    // A B | B A: the second round starts with what the first ended with.
    assert_eq!(order[0], order[3]);
    assert_eq!(order[1], order[2]);
    assert_ne!(order[0], order[1]);
    let times: Vec<&String> = ran.iter().map(|(_, at, _)| at).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
}
