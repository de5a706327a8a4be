//! Real failures and signals: failed or short I/O is reported and never timed;
//! Ctrl-C and SIGTERM keep finished work and remove scratch files.

use crate::util::*;
use std::process::Stdio;
use std::time::Duration;

/// Runs iolab under bash's `ulimit -f` (KiB) so writes past the limit fail for real.
fn run_with_file_size_limit(
    limit_kib: u64,
    iolab_args: &str,
    out: &std::path::Path,
) -> std::process::Output {
    let binary = assert_cmd::cargo::cargo_bin("iolab");
    let script = format!(
        "ulimit -f {limit_kib} && exec {} {iolab_args} --output {}",
        binary.display(),
        out.display()
    );
    std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .expect("sh runs")
}

#[test]
fn a_failed_write_names_file_offset_and_errno_and_is_not_timed() {
    let dir = scratch();
    let out = scratch();
    let result_path = out.path().join("r.json");
    // RLIMIT_FSIZE of 1 MiB, 64 KiB blocks: the write at offset 1 MiB fails with EFBIG.
    let output = run_with_file_size_limit(
        1024,
        &format!(
            "run --dir {} --op write --size 2m --bs 64k",
            dir.path().display()
        ),
        &result_path,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("at offset 1048576")
            && stderr.contains("EFBIG")
            && stderr.contains("iolab-"),
        "{stderr}"
    );
    let result = read_result(&result_path);
    check_consistency(&result);
    let point = first_point(&result);
    let rep = &point["repetitions"][0];
    assert_eq!(rep["status"], "failed");
    assert_eq!(rep["ops"], 16, "the 16 writes before the limit completed");
    assert!(rep.get("throughput_bps").is_none() && rep.get("elapsed_ns").is_none());
    assert!(
        point.get("summary").is_none(),
        "no figure from a failed repetition"
    );
    let codes = check_codes(point);
    assert!(codes.contains(&"io-errors".to_string()), "{codes:?}");
    assert!(
        !codes.contains(&"writeback-pending".to_string()),
        "no figure, nothing to mislead: {codes:?}"
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("FAILED"));
    assert!(
        entries(dir.path()).is_empty(),
        "scratch removed after a failure"
    );
}

#[test]
fn a_short_write_is_reported_as_short() {
    let dir = scratch();
    let out = scratch();
    // 1000 KiB is not a multiple of 64 KiB: the 16th write moves only 40960 bytes.
    let output = run_with_file_size_limit(
        1000,
        &format!(
            "run --dir {} --op write --size 2m --bs 64k",
            dir.path().display()
        ),
        &out.path().join("r.json"),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("short write: 40960 of 65536 bytes at offset 983040"),
        "{stderr}"
    );
}

#[test]
fn a_failed_layout_is_a_clear_error() {
    let dir = scratch();
    let out = scratch();
    let output = run_with_file_size_limit(
        512,
        &format!("run --dir {} --op read --size 2m", dir.path().display()),
        &out.path().join("r.json"),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("laying out") && stderr.contains("offset"),
        "{stderr}"
    );
    assert!(entries(dir.path()).is_empty(), "scratch removed");
}

fn interrupt_with(signal: i32, expected_status: i32) {
    let dir = scratch();
    let out = scratch();
    let result_path = out.path().join("r.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run",
            "--size",
            "4m",
            "--runtime",
            "30s",
            "--repeat",
            "3",
            "--cache",
            "keep",
            "--dir",
        ])
        .arg(dir.path())
        .arg("--output")
        .arg(&result_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The first repetition is under way once its job thread exists.
    wait_for_thread(child.id(), "iolab-job", Duration::from_secs(120));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::from_named_raw(signal).unwrap(),
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(expected_status),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        entries(dir.path()).is_empty(),
        "scratch file removed after the signal"
    );
    let result = read_result(&result_path);
    check_consistency(&result);
    let reps = first_point(&result)["repetitions"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(reps.len(), 1, "no new repetition starts after the signal");
    assert_eq!(reps[0]["status"], "interrupted");
    assert!(check_codes(first_point(&result)).contains(&"interrupted".to_string()));
}

/// SIGINT to `child` a second after its first job thread appears (within
/// `limit`), then its output once it has ended.
fn ctrl_c_once_measuring(child: std::process::Child, limit: Duration) -> std::process::Output {
    wait_for_thread(child.id(), "iolab-job", limit);
    std::thread::sleep(Duration::from_secs(1));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    child.wait_with_output().unwrap()
}

/// Ctrl-C a second into a 30 s run without `--output`: the run keeps the
/// figures of the time measured, marked interrupted (fio prints the
/// figures of what ran), in its default result file and its table, and
/// counts them in no summary.
#[test]
fn an_interrupted_run_keeps_what_it_measured_marked_interrupted() {
    let dir = scratch();
    let cwd = scratch();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run",
            "--size",
            "4m",
            "--runtime",
            "30s",
            "--progress",
            "never",
        ])
        .args(["--cache", "keep", "--dir"])
        .arg(dir.path())
        .current_dir(cwd.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = ctrl_c_once_measuring(child, Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(entries(dir.path()).is_empty(), "scratch removed");
    let kept = entries(&cwd.path().join("iolab-results"));
    let json = kept
        .iter()
        .find(|name| name.starts_with("run-") && name.ends_with(".json"))
        .unwrap_or_else(|| panic!("a result kept: {kept:?}\n{stdout}{stderr}"));
    let result = read_result(&cwd.path().join("iolab-results").join(json));
    check_consistency(&result);
    let point = first_point(&result);
    let repetition = &point["repetitions"][0];
    assert_eq!(repetition["status"], "interrupted", "{repetition}");
    let elapsed_s = repetition["elapsed_ns"].as_f64().unwrap() * 1e-9;
    assert!((0.5..30.0).contains(&elapsed_s), "{elapsed_s}");
    assert!(repetition["throughput_bps"].as_f64().unwrap() > 0.0);
    assert!(point.get("summary").is_none(), "{point}");
    assert!(stdout.contains("cut "), "{stdout}");
    assert!(stdout.contains("count in no summary"), "{stdout}");
}

#[test]
fn sigterm_stops_cleanly_with_status_143() {
    interrupt_with(libc::SIGTERM, 143);
}

#[test]
fn ctrl_c_stops_cleanly_with_status_130() {
    interrupt_with(libc::SIGINT, 130);
}

#[test]
fn a_dropped_ssh_session_stops_cleanly_with_status_129() {
    interrupt_with(libc::SIGHUP, 129);
}

#[test]
fn sigusr1_and_sigalrm_stop_cleanly_instead_of_killing_silently() {
    interrupt_with(libc::SIGUSR1, 128 + libc::SIGUSR1);
    interrupt_with(libc::SIGALRM, 128 + libc::SIGALRM);
}

/// Ctrl-\ (SIGQUIT) stops a run as SIGTERM does, cleanly, with 131
/// (issue "Nothing lost, nothing harmed, round 3", item 18).
#[test]
fn sigquit_stops_cleanly_with_status_131() {
    interrupt_with(libc::SIGQUIT, 128 + libc::SIGQUIT);
}

#[test]
fn a_second_signal_ends_iolab_at_once_even_while_it_waits() {
    // `measure` waits for its command; this one ignores SIGTERM, so the
    // first SIGTERM (passed on to it) cannot end the wait. The second must.
    let dir = scratch();
    let pid_file = dir.path().join("pid");
    let script = format!(
        "echo $$ > {}; trap '' TERM; sleep 60 & wait",
        pid_file.display()
    );
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["measure", "--path"])
        .arg(dir.path())
        .args(["--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&pid_file).map_or(true, |t| t.trim().is_empty()) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let term = || {
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&child),
            rustix::process::Signal::TERM,
        )
        .unwrap()
    };
    term();
    wait_until_delivered(child.id(), libc::SIGTERM);
    term();
    let ended = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if ended.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("iolab still waits for its command after a second SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // The command's shell is left to the test to end.
    let shell = std::fs::read_to_string(&pid_file).unwrap();
    let _ = std::process::Command::new("pkill")
        .args(["-KILL", "-P", shell.trim()])
        .status();
    let _ = std::process::Command::new("kill")
        .args(["-KILL", shell.trim()])
        .status();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
}

#[test]
fn a_thread_the_kernel_refuses_ends_the_run_cleanly() {
    // 64 jobs under a 320 MB address-space limit (at 200 MB the debug build
    // sometimes failed an allocation inside a starting thread, which aborts;
    // at 320 MB the limit bites at a thread's creation): where it bites (a
    // thread's stack, a job's buffers) depends on the build and the machine,
    // so the run may also fit. Either way: no panic, no hang, no abort, no
    // file left; and when it does not fit, status 1 and one line saying why.
    let dir = scratch();
    // Where the run keeps its result: not the source tree.
    let cwd = scratch();
    std::fs::set_permissions(
        cwd.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let binary = assert_cmd::cargo::cargo_bin("iolab");
    let script = format!(
        "cd {} && ulimit -v 320000 && exec {} run --jobs 64 --size 1m --dir {}",
        cwd.path().display(),
        binary.display(),
        dir.path().display()
    );
    let output = iolab_under(&["bash", "-c", &script], Duration::from_secs(120));
    let stderr = String::from_utf8_lossy(&output.stderr);
    match output.status.code() {
        Some(0) => eprintln!("note: 64 jobs fit in 200 MB of address space here"),
        Some(1) => {
            assert!(stderr.contains("before any I/O"), "{stderr}");
            assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
        }
        other => panic!("status {other:?}: {stderr}"),
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    // A limit on processes (root is exempt: run as nobody) always bites at
    // the 20th thread: the started jobs are sent home and joined, the files
    // removed, and the run ends with status 1 instead of a panic and a hang.
    if !crate::mounts::have("setpriv") || !rustix::process::geteuid().is_root() {
        crate::skip!("the RLIMIT_NPROC case needs root and setpriv");
        return;
    }
    let open = scratch();
    std::fs::set_permissions(
        open.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let cwd = scratch();
    std::fs::set_permissions(
        cwd.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o777),
    )
    .unwrap();
    let script = format!(
        "cd {} && ulimit -u 20 && exec {} run --jobs 64 --size 64k --dir {}",
        cwd.path().display(),
        binary.display(),
        open.path().display()
    );
    let output = iolab_under(
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "bash",
            "-c",
            &script,
        ],
        Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot start the thread of job") && stderr.contains("before any I/O"),
        "{stderr}"
    );
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
    assert!(
        entries(open.path()).is_empty(),
        "{:?}",
        entries(open.path())
    );
}

/// Runs `command` and returns its output, failing the test when it does not
/// end within `limit` (a hang is what the test rules out).
fn iolab_under(command: &[&str], limit: Duration) -> std::process::Output {
    let child = std::process::Command::new(command[0])
        .args(&command[1..])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            while started.elapsed() < limit {
                if done.load(std::sync::atomic::Ordering::Relaxed) {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            true
        })
    };
    let output = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(!watchdog.join().unwrap(), "hung: killed after {limit:?}");
    output
}

/// The birth times of the scratch files (`iolab-*.dat`) in `dir`: a new
/// one means a new file, even where the file system reuses the inode number.
fn scratch_births(dir: &std::path::Path) -> Vec<std::time::SystemTime> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().starts_with("iolab-"))
                .filter_map(|e| e.metadata().ok()?.created().ok())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_disk_that_fills_mid_run_fails_with_enospc_and_keeps_the_finished_repetitions() {
    use crate::mounts::{LoopFs, have, root_or_skip, run};
    let temp = scratch();
    if !root_or_skip("a loop-mounted file system") || !have("mkfs.ext4") || !have("fallocate") {
        return;
    }
    // The loop device writes its image with O_DIRECT too, so each write
    // waits for the disk and a repetition lasts long enough to watch.
    let fs = match LoopFs::with_options(temp.path(), "ext4", 100, true) {
        Ok(fs) => fs,
        Err(error) => {
            crate::skip!("cannot make a loop file system here: {error}");
            return;
        }
    };
    let result_path = temp.path().join("full.json");
    // --op write makes a new file for every repetition; O_DIRECT allocates
    // blocks as the writes happen, so the failure has an exact offset.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run", "--op", "write", "--size", "8m", "--bs", "64k", "--direct",
        ])
        .args(["--repeat", "30", "--dir"])
        .arg(fs.path())
        .arg("-o")
        .arg(&result_path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the first repetition's file is replaced, another program takes
    // every free block of the file system.
    let started = std::time::Instant::now();
    let mut first = None;
    loop {
        let now = scratch_births(fs.path());
        match (first, now.first()) {
            (None, Some(&born)) => first = Some(born),
            (Some(old), Some(&born)) if born != old => break,
            _ => {}
        }
        assert!(
            started.elapsed() < Duration::from_secs(60) && child.try_wait().unwrap().is_none(),
            "the second repetition never started"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let filler = fs.path().join("filler");
    let available = rustix::fs::statvfs(fs.path()).unwrap();
    let bytes = available.f_bavail * available.f_frsize;
    run(
        "fallocate",
        &["-l", &bytes.to_string(), filler.to_str().unwrap()],
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("No space left on device")
            && stderr.contains("ENOSPC")
            && stderr.contains("at offset"),
        "{stderr}"
    );
    let result = read_result(&result_path);
    check_consistency(&result);
    let repetitions = first_point(&result)["repetitions"]
        .as_array()
        .unwrap()
        .clone();
    let (last, finished) = repetitions.split_last().unwrap();
    assert_eq!(last["status"], "failed", "{last}");
    assert!(
        last.get("throughput_bps").is_none(),
        "a failed repetition is not timed"
    );
    assert!(
        !finished.is_empty(),
        "the repetitions before the disk filled are kept"
    );
    assert!(
        finished
            .iter()
            .all(|r| r["status"] == "ok" && r["bytes"] == 8 << 20)
    );
    assert_eq!(
        entries(fs.path()),
        vec!["filler".to_string(), "lost+found".to_string()],
        "scratch removed"
    );
    eprintln!("{}", stderr.trim_end());
}

fn interrupt_sweep_with(signal: rustix::process::Signal, expected_status: i32) {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("sweep.json");
    let journal = out.path().join("sweep.json.journal");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["sweep", "--op", "read", "--size", "4m", "--seed", "0..9/+1"])
        .args(["--runtime", "400ms", "--dir"])
        .arg(dir.path())
        .arg("-o")
        .arg(&output)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Header, run start and two points journaled; once a job thread exists
    // again, the third point's repetition is under way.
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 4 {
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(10));
    }
    wait_for_thread(child.id(), "iolab-job", Duration::from_secs(60));
    rustix::process::kill_process(rustix::process::Pid::from_child(&child), signal).unwrap();
    let stopped = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert_eq!(stopped.status.code(), Some(expected_status), "{stderr}");
    let result = read_result(&output);
    check_consistency(&result);
    let statuses: Vec<&str> = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["repetitions"][0]["status"].as_str().unwrap())
        .collect();
    let (last, finished) = statuses.split_last().unwrap();
    assert_eq!(*last, "interrupted", "{statuses:?}");
    assert!(
        finished.len() >= 2 && finished.iter().all(|s| *s == "ok"),
        "{statuses:?}"
    );
    assert!(
        entries(dir.path()).is_empty(),
        "scratch removed after the signal"
    );
    assert!(stderr.contains("--resume"), "{stderr}");
}

#[test]
fn ctrl_c_mid_sweep_keeps_finished_points_and_exits_130() {
    interrupt_sweep_with(rustix::process::Signal::INT, 130);
}

#[test]
fn sigterm_mid_sweep_keeps_finished_points_and_exits_143() {
    interrupt_sweep_with(rustix::process::Signal::TERM, 143);
}

#[test]
fn an_unwritable_output_directory_is_refused_before_any_io() {
    use crate::mounts::TmpfsMount;
    let dir = scratch();
    let out = scratch();
    let Some(read_only) = TmpfsMount::new(out.path(), "ro", "ro,size=1m") else {
        return;
    };
    for subcommand in [&["run"][..], &["sweep", "--bs", "4k,8k"]] {
        let output = iolab()
            .args(subcommand)
            .args(["--size", "1m", "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(read_only.path().join("r.json"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{subcommand:?}: {stderr}");
        assert!(stderr.contains("is not writable"), "{stderr}");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
        assert!(entries(dir.path()).is_empty(), "no scratch file was made");
        assert!(output.stdout.is_empty(), "nothing was measured");
    }
}

#[test]
fn a_killed_runs_scratch_file_is_removed_by_the_next_run_and_a_live_runs_is_not() {
    let dir = scratch();
    let out = scratch();
    let start = |size: &str, runtime: &str| {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
            .args(["run", "--size", size, "--bs", "1m", "--runtime", runtime])
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(
                out.path()
                    .join(format!("{}.json", entries(out.path()).len())),
            )
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Files that are being laid out: created, marked, and written to (a file
    // killed between creation and marking is, rightly, never removed).
    let wait_for_files = |count: usize| {
        let started = std::time::Instant::now();
        loop {
            let growing = entries(dir.path())
                .iter()
                .filter(|name| std::fs::metadata(dir.path().join(name)).is_ok_and(|m| m.len() > 0))
                .count();
            if growing >= count {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(60));
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    // A live run (long enough to outlast the test; stopped at the end), and
    // beside it a run killed with SIGKILL, which cannot clean up after itself.
    let mut live = start("8m", "120s");
    wait_for_files(1);
    let live_file = entries(dir.path());
    let mut killed = start("64m", "30s");
    wait_for_files(2);
    killed.kill().unwrap();
    killed.wait().unwrap();
    let leftover: Vec<String> = entries(dir.path())
        .into_iter()
        .filter(|name| !live_file.contains(name))
        .collect();
    assert_eq!(leftover.len(), 1, "{leftover:?}");
    // The next run removes the dead run's file, names it, and leaves the live one.
    let next = iolab()
        .args(["run", "--engine", "null", "--size", "64k", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{stderr}");
    assert!(
        stderr.contains(&leftover[0]) && stderr.contains("no longer running"),
        "{stderr}"
    );
    assert_eq!(
        entries(dir.path()),
        live_file,
        "only the dead run's file went"
    );
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&live),
        rustix::process::Signal::INT,
    )
    .unwrap();
    assert_eq!(
        live.wait().unwrap().code(),
        Some(130),
        "the live run was undisturbed until its Ctrl-C"
    );
    assert!(entries(dir.path()).is_empty());
}

/// The `unsaved-*.json` files in `dir/iolab-results`, where a result that
/// could not be written where asked is kept.
fn unsaved_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir.join("iolab-results"))
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .unwrap()
                        .to_string_lossy()
                        .starts_with("unsaved-")
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_result_stdout_cannot_take_is_kept_and_named_with_status_1() {
    let dir = scratch();
    // `--json > /dev/full`, the table to /dev/full, and `>&-`: no --output,
    // and a run keeps its result in iolab-results/ all the same: the line
    // says where (and nothing else is written there: the report comes
    // after the table).
    let bash = |shell: &str, cwd: &std::path::Path| {
        std::process::Command::new("bash")
            .args(["-c", shell])
            .current_dir(cwd)
            .output()
            .unwrap()
    };
    let binary = assert_cmd::cargo::cargo_bin("iolab");
    let run = format!(
        "{} run --engine null --size 1m --dir {}",
        binary.display(),
        dir.path().display()
    );
    for (shell, what) in [
        (
            format!("exec {run} --json > /dev/full"),
            "No space left on device",
        ),
        (format!("exec {run} > /dev/full"), "No space left on device"),
        (
            format!("exec {run} --json >&-"),
            "standard output is closed",
        ),
    ] {
        let cwd = scratch();
        let output = bash(&shell, cwd.path());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{shell}: {stderr}");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{shell}: {stderr}");
        assert!(
            stderr.contains(what) && stderr.contains("the result is in iolab-results/run-"),
            "{shell}: {stderr}"
        );
        let kept = entries(&cwd.path().join("iolab-results"));
        assert_eq!(kept.len(), 1, "{shell}: {kept:?}");
        check_consistency(&read_result(
            &cwd.path().join("iolab-results").join(&kept[0]),
        ));
    }
    // A stdout that is the null device opened read-write (Python's
    // `subprocess.DEVNULL`, `1<>/dev/null`) is open: the table goes there,
    // status 0, as with `> /dev/null`. (Before the check moved ahead of
    // Rust's runtime, this was taken for a closed stdout: status 1.)
    for redirect in ["1<>/dev/null", "> /dev/null"] {
        let cwd = scratch();
        let shell = format!("exec {run} {redirect}");
        let output = bash(&shell, cwd.path());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{shell}: {stderr}");
        assert!(stderr.is_empty(), "{shell}: {stderr}");
    }
    // With --output the file holds it: the line says so, and nothing else is written.
    let cwd = scratch();
    let path = cwd.path().join("r.json");
    let shell = format!("exec {run} -o {} > /dev/full", path.display());
    let output = bash(&shell, cwd.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("the result is in {}", path.display())),
        "{stderr}"
    );
    read_result(&path);
    assert!(unsaved_in(cwd.path()).is_empty());
    // Output that is no measurement fails just the same, and a closed pipe is no error.
    let compare = std::process::Command::new("bash")
        .args([
            "-c",
            &format!(
                "exec {} compare {p} {p} > /dev/full",
                binary.display(),
                p = path.display()
            ),
        ])
        .output()
        .unwrap();
    assert_eq!(compare.status.code(), Some(1));
    let piped = std::process::Command::new("bash")
        .args([
            "-c",
            &format!("set -o pipefail; {run} | head -c 1 > /dev/null"),
        ])
        .output()
        .unwrap();
    assert!(
        piped.status.success(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
}

#[test]
fn a_result_the_output_file_system_cannot_take_at_the_end_is_kept_and_named() {
    use crate::mounts::TmpfsMount;
    let cwd = scratch();
    let dir = scratch();
    let Some(small) = TmpfsMount::new(cwd.path(), "small", "size=1m") else {
        return;
    };
    let path = small.path().join("r.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["run", "--engine", "null", "--runtime", "3s", "--dir"])
        .arg(dir.path())
        .arg("-o")
        .arg(&path)
        .current_dir(cwd.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The output passed its checks; now another program fills the disk.
    wait_for_thread(child.id(), "iolab-job", Duration::from_secs(60));
    let mut filler = std::fs::File::create(small.path().join("filler")).unwrap();
    while std::io::Write::write_all(&mut filler, &[7u8; 4096]).is_ok() {}
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot write {}", path.display()))
            && stderr.contains("the result is kept in iolab-results/unsaved-"),
        "{stderr}"
    );
    let kept = unsaved_in(cwd.path());
    assert_eq!(kept.len(), 1);
    check_consistency(&read_result(&kept[0]));
    assert_eq!(entries(small.path()), ["filler"], "no temporary file left");
}

#[test]
fn an_nfs_server_killed_mid_run_fails_the_repetition_naming_the_url() {
    let Some(lab) = crate::lab::NetLab::start("16M") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let out = scratch();
    let result_path = out.path().join("r.json");
    // A short reply timeout, so the dead server is found in seconds.
    let url = lab.nfs.replace("version=3", "version=3&timeout=2000");
    let child = lab
        .command(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run", "--engine", "nfs", "--target", &url, "--size", "16m", "--bs", "4k",
        ])
        .args(["--iodepth", "4", "--runtime", "60s", "--output"])
        .arg(&result_path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("iolab starts");
    wait_for_thread(child.id(), "iolab-job-", Duration::from_secs(60));
    lab.kill("ganesha");
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("nfs://127.0.0.1/export/iolab-"),
        "the file's URL: {stderr}"
    );
    let result = read_result(&result_path);
    let repetition = &first_point(&result)["repetitions"][0];
    assert_eq!(repetition["status"], "failed");
    assert!(
        repetition.get("elapsed_ns").is_none(),
        "a failure is never timed"
    );
}

#[test]
fn an_iscsi_target_killed_mid_run_fails_the_repetition_naming_the_url() {
    let Some(lab) = crate::lab::NetLab::start("64M") else {
        return;
    };
    if let Err(reason) = iolab::engine::iscsi::libiscsi::available() {
        crate::skip!("{reason}");
        return;
    }
    let out = scratch();
    let result_path = out.path().join("r.json");
    // A short command timeout, so a target that stops answering is found in seconds.
    let url = format!("{}?timeout=2000", lab.iscsi);
    let child = lab
        .command(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["run", "--target", &url, "--op", "read", "--size", "32m"])
        .args([
            "--bs",
            "4k",
            "--iodepth",
            "4",
            "--runtime",
            "60s",
            "--output",
        ])
        .arg(&result_path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("iolab starts");
    wait_for_thread(child.id(), "iolab-job-", Duration::from_secs(60));
    lab.kill("tgtd");
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&lab.iscsi), "the LUN's URL: {stderr}");
    let result = read_result(&result_path);
    let repetition = &first_point(&result)["repetitions"][0];
    assert_eq!(repetition["status"], "failed");
    assert!(
        repetition.get("elapsed_ns").is_none(),
        "a failure is never timed"
    );
}

/// Peak resident memory of `iolab ARGS`, KiB, through GNU time.
fn peak_rss_kib(args: &[&str]) -> Option<u64> {
    if !std::path::Path::new("/usr/bin/time").exists() {
        crate::skip!("GNU time is not installed (scripts/test installs it)");
        return None;
    }
    let report = tempfile::NamedTempFile::new().unwrap();
    let status = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(report.path())
        .arg(env!("CARGO_BIN_EXE_iolab"))
        .args(args)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{args:?}");
    Some(
        std::fs::read_to_string(report.path())
            .unwrap()
            .trim()
            .parse()
            .unwrap(),
    )
}

/// A finished repetition is kept compacted until its point is recorded:
/// 200 more repetitions of a short run add ~15 KB each, where they held
/// ~280 KB with full-range histograms (and ~80 KB with histograms merely
/// sized to their largest value) (issue "Nothing lost, nothing
/// harmed, round 3", item 4); the count itself is bounded (bad_input).
#[test]
fn repetitions_are_kept_compacted_until_their_point_is_recorded() {
    let dir = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    let rss = |repeat: &str| {
        peak_rss_kib(&[
            "run",
            "--engine",
            "null",
            "--size",
            "1m",
            "--runtime",
            "10ms",
            "--repeat",
            repeat,
            "--json",
            "--dir",
            dir_arg,
        ])
    };
    let (Some(few), Some(many)) = (rss("20"), rss("220")) else {
        return;
    };
    let per_repetition = many.saturating_sub(few) / 200;
    assert!(
        per_repetition < 40,
        "{per_repetition} KiB per repetition ({few} KiB at 20, {many} KiB at 220)"
    );
}

/// Ctrl-C during `--until-ci` repetitions: the interval target is said to
/// be missed because the run was stopped, not after `--max-repeat`
/// repetitions (issue "Nothing lost, nothing harmed, round 3", item 4).
#[test]
fn an_interrupted_until_ci_run_says_it_was_stopped() {
    let dir = scratch();
    let out = scratch();
    let result_path = out.path().join("r.json");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "run",
            "--engine",
            "null",
            "--size",
            "1m",
            "--runtime",
            "10ms",
            "--until-ci",
            "0.001%",
            "--max-repeat",
            "1000",
        ])
        .arg("--dir")
        .arg(dir.path())
        .arg("--output")
        .arg(&result_path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = ctrl_c_once_measuring(child, Duration::from_secs(60));
    assert_eq!(output.status.code(), Some(130));
    let result = read_result(&result_path);
    let point = first_point(&result);
    let missed = raised_check(point, "ci-target-missed");
    let message = missed["message"].as_str().unwrap();
    assert!(
        message.contains("was stopped") && !message.contains("after --max-repeat"),
        "{message}"
    );
}

/// A resumed sweep whose output's file system is full keeps its journal
/// (issue "Nothing lost, nothing harmed, round 4", item 5): the points it
/// holds are measured once, and the error says --resume goes on from it.
#[test]
fn a_resumed_sweep_on_a_full_file_system_keeps_its_journal() {
    use crate::mounts::TmpfsMount;
    let dir = scratch();
    let out = scratch();
    let Some(fs) = TmpfsMount::new(out.path(), "small", "size=4m") else {
        return;
    };
    let output = fs.path().join("s.json");
    let journal = fs.path().join("s.json.journal");
    let sweep = |resume: bool| {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"));
        command
            .args(["sweep", "--engine", "null", "--op", "read", "--size", "1m"])
            .args(["--seed", "0..20/+1", "--runtime", "200ms", "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&output);
        if resume {
            command.arg("--resume");
        }
        command
    };
    let child = sweep(false)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count()) < 5 {
        assert!(started.elapsed() < Duration::from_secs(60));
        std::thread::sleep(Duration::from_millis(10));
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    child.wait_with_output().unwrap();
    let before = std::fs::read_to_string(&journal).unwrap();
    // Everything left on the file system taken by another program.
    let filler = fs.path().join("filler");
    let _ = std::process::Command::new("dd")
        .args(["if=/dev/zero", "bs=4k"])
        .arg(format!("of={}", filler.display()))
        .output()
        .unwrap();
    let resumed = sweep(true).output().unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    // The error, then in the same line what is kept to resume from.
    assert!(
        stderr.lines().any(|l| l.contains("error:")
            && l.contains("No space left on device")
            && l.contains(".journal is kept: run the same command with --resume")),
        "{stderr}"
    );
    let after = std::fs::read_to_string(&journal).expect("the journal is kept");
    assert!(
        after.starts_with(before.trim_end()),
        "nothing of it is lost"
    );
    std::fs::remove_file(&filler).unwrap();
    let finished = sweep(true).output().unwrap();
    let stderr = String::from_utf8_lossy(&finished.stderr);
    assert!(finished.status.success(), "{stderr}");
    assert!(stderr.contains("resuming"), "{stderr}");
    assert!(!journal.exists());
}
