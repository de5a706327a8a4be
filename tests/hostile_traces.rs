//! Traces and replay targets as a careless or hostile user gives them (issue "Nothing lost, nothing harmed, round 5"): a FIFO named as a trace, due times that overflow, a fit smaller than an I/O, a trace point's file swapped under it, each refused or said as the docs promise.

use crate::util::{entries, message_lines, scratch};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `command`'s output, killing it (and failing) when it runs past `limit`.
fn within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().unwrap();
            panic!(
                "{command:?} still running after {limit:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// An MSR trace of two 4 KiB reads, the second `gap_ticks` (100 ns each)
/// after the first and at byte `second_at`.
fn two_reads(path: &Path, gap_ticks: u64, second_at: u64) {
    let first = 128_166_372_003_061_629u64;
    std::fs::write(
        path,
        format!(
            "{first},hm,1,Read,0,4096,10\n{},hm,1,Read,{second_at},4096,10\n",
            first + gap_ticks
        ),
    )
    .unwrap();
}

/// `iolab ARGS` started, its output piped.
fn spawned<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_iolab"))
        .current_dir(crate::util::working_dir())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The first scratch file (`*.dat`) iolab makes in `dir`, once it is there.
fn scratch_file_in(dir: &Path) -> std::path::PathBuf {
    let start = Instant::now();
    loop {
        if let Some(name) = entries(dir).into_iter().find(|n| n.ends_with(".dat")) {
            return dir.join(name);
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no file made in {}",
            dir.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Refused in one line naming `named`, exit 2, within 20 s, nothing in `dir`.
fn refused_in_one_line(args: &[&std::ffi::OsStr], named: &str, dir: &Path) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_iolab"));
    command.current_dir(crate::util::working_dir()).args(args);
    let output = within(&mut command, Duration::from_secs(20));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(stderr.contains(named), "{args:?}: {stderr}");
    assert_eq!(message_lines(&stderr), 1, "{args:?}: {stderr}");
    assert!(entries(dir).is_empty(), "{args:?}: {:?}", entries(dir));
}

/// A FIFO given as a trace — to run, sweep, replay, characterize and a job
/// file's read_iolog — is refused at once, where it used to wait for a
/// writer past SIGTERM.
#[test]
fn a_fifo_as_a_trace_is_refused_at_once() {
    let (work, dir) = (scratch(), scratch());
    let fifo = work.path().join("trace.iolog");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let job = work.path().join("r.fio");
    std::fs::write(
        &job,
        format!(
            "[replay]\nread_iolog={}\nioengine=psync\ndirectory={}\n",
            fifo.display(),
            dir.path().display()
        ),
    )
    .unwrap();
    let (f, d) = (fifo.as_os_str(), dir.path().as_os_str());
    for args in [
        vec!["run".as_ref(), "--trace".as_ref(), f, "--dir".as_ref(), d],
        vec!["sweep".as_ref(), "--trace".as_ref(), f, "--dir".as_ref(), d],
        vec!["replay".as_ref(), f, "--dir".as_ref(), d],
        vec!["characterize".as_ref(), f],
        vec!["run".as_ref(), job.as_os_str()],
    ] {
        refused_in_one_line(&args, "a FIFO", dir.path());
    }
}

/// Due times that do not fit the replayer's clock — an iolog v3 time of
/// 2^64−1 µs, MSR stamps 2^63 ticks apart, a speed that stretches a trace
/// past it — are refused by file and line, where they used to be issued at
/// once and reported as kept up.
#[test]
fn due_times_that_overflow_are_refused_by_file_and_line() {
    let (work, dir) = (scratch(), scratch());
    let v3 = work.path().join("late.iolog");
    std::fs::write(
        &v3,
        format!(
            "fio version 3 iolog\n0 /f add\n0 /f open\n0 /f read 0 4096\n{} /f read 4096 4096\n",
            u64::MAX
        ),
    )
    .unwrap();
    let msr = work.path().join("late.csv");
    let first = 128_166_372_003_061_629u64;
    std::fs::write(
        &msr,
        format!(
            "{first},hm,1,Read,0,4096,10\n{},hm,1,Read,4096,4096,10\n",
            first + (1u64 << 63)
        ),
    )
    .unwrap();
    let ok = work.path().join("ok.csv");
    std::fs::write(
        &ok,
        format!(
            "{first},hm,1,Read,0,4096,10\n{},hm,1,Read,4096,4096,10\n",
            first + 10_000_000
        ),
    )
    .unwrap();
    let (d, v3, msr, ok) = (
        dir.path().to_str().unwrap(),
        v3.to_str().unwrap(),
        msr.to_str().unwrap(),
        ok.to_str().unwrap(),
    );
    for (args, named) in [
        (
            vec!["replay", v3, "--dir", d],
            "late.iolog line 5: the I/O is issued beyond 2^64 ns",
        ),
        (
            vec!["run", "--trace", msr, "--dir", d],
            "late.csv line 2: the I/O is issued",
        ),
        (
            vec!["replay", ok, "--dir", d, "--speed", "1e-30"],
            "--speed 1e-30: the trace's last I/O",
        ),
        // A negative speed: iolab's one line, not clap's three.
        (
            vec!["replay", ok, "--dir", d, "--speed", "-1"],
            "'-1' is not a speed",
        ),
    ] {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
        refused_in_one_line(&args, named, dir.path());
    }
}

/// `--scale` or `--wrap` smaller than the trace's largest I/O is refused
/// before anything is laid out (it used to fail after the layout, or replay
/// every I/O at 0).
#[test]
fn a_fit_smaller_than_an_io_is_refused_before_the_layout() {
    let (work, dir) = (scratch(), scratch());
    let trace = work.path().join("t.csv");
    std::fs::write(
        &trace,
        "128166372003061629,hm,1,Write,0,65536,10\n128166372003161629,hm,1,Read,1048576,4096,10\n",
    )
    .unwrap();
    for (flag, value) in [("--scale", "1"), ("--wrap", "4k")] {
        refused_in_one_line(
            &[
                "replay".as_ref(),
                trace.as_os_str(),
                "--dir".as_ref(),
                dir.path().as_os_str(),
                flag.as_ref(),
                value.as_ref(),
            ],
            &format!(
                "{flag} {}: smaller than the trace's largest I/O (65536 bytes)",
                if value == "1" { "1" } else { "4096" }
            ),
            dir.path(),
        );
    }
}

/// A trace point's file moved away and another put in its place during
/// the replay: the run exits 1, the stranger is left in place, and the
/// warning names where iolab's own file went.
#[test]
fn a_trace_points_file_swapped_during_the_replay_exits_1_and_names_both() {
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("slow.csv");
    // Two reads 3 s apart as recorded.
    two_reads(&trace, 30_000_000, 4096);
    let result = out.path().join("r.json");
    let child = spawned(&[
        "run".as_ref(),
        "--progress".as_ref(),
        "never".as_ref(),
        "--trace".as_ref(),
        trace.as_os_str(),
        "--dir".as_ref(),
        dir.path().as_os_str(),
        "-o".as_ref(),
        result.as_os_str(),
    ]);
    let made = scratch_file_in(dir.path());
    std::thread::sleep(Duration::from_millis(500));
    let moved = work.path().join("moved-away.dat");
    std::fs::rename(&made, &moved).unwrap();
    std::fs::write(&made, b"someone else's").unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("is no longer the file iolab created; left in place"),
        "{stderr}"
    );
    assert!(stderr.contains(&moved.display().to_string()), "{stderr}");
    assert_eq!(std::fs::read(&made).unwrap(), b"someone else's");
    let _ = std::fs::remove_file(&made);
}

/// SIGTERM while a replay's file is laid out ends it between two MiB with
/// 143 and nothing left in --dir, for `replay --scale` and a trace point
/// (it used to wait for the whole layout: 42 s for 20 GiB).
#[test]
fn sigterm_during_a_layout_ends_it_with_143() {
    let (work, dir) = (scratch(), scratch());
    let trace = work.path().join("far.csv");
    // One read 16 GiB in: its file is laid out to there.
    two_reads(&trace, 10, 16 << 30);
    let free = rustix::fs::statvfs(dir.path()).unwrap();
    if free.f_bavail * free.f_frsize < 20 << 30 {
        crate::skip!("under 20 GiB free in {}", dir.path().display());
        return;
    }
    let t = trace.to_str().unwrap();
    let d = dir.path().to_str().unwrap();
    for args in [
        vec!["replay", t, "--dir", d, "--buffered"],
        vec!["run", "--progress", "never", "--trace", t, "--dir", d],
    ] {
        let child = spawned(&args);
        scratch_file_in(dir.path());
        std::thread::sleep(Duration::from_millis(300));
        let sent = Instant::now();
        rustix::process::kill_process(
            rustix::process::Pid::from_child(&child),
            rustix::process::Signal::TERM,
        )
        .unwrap();
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(143), "{args:?}: {stderr}");
        assert!(
            sent.elapsed() < Duration::from_secs(5),
            "{args:?}: {:?} after SIGTERM",
            sent.elapsed()
        );
        let left: Vec<String> = entries(dir.path())
            .into_iter()
            .filter(|n| n.ends_with(".dat"))
            .collect();
        assert!(left.is_empty(), "{args:?}: {left:?}");
    }
}

/// A read, write or trim of no bytes, or one ending past the largest file
/// offset, is refused by file and line in every format, as fio's iolog v3
/// reader already refused the first (MSR and SPC replayed it).
#[test]
fn zero_byte_ios_are_refused_in_every_format() {
    let (work, dir) = (scratch(), scratch());
    let msr = work.path().join("zero.csv");
    std::fs::write(
        &msr,
        "128166372003061629,hm,1,Read,0,4096,10\n128166372003071629,hm,1,Write,4096,0,10\n",
    )
    .unwrap();
    let far = work.path().join("far.iolog");
    std::fs::write(
        &far,
        "fio version 3 iolog\n0 /f add\n0 /f open\n0 /f read 18446744073709547520 4096\n",
    )
    .unwrap();
    let spc = work.path().join("zero.spc");
    std::fs::write(&spc, "0,0,4096,r,0.000000\n0,8,0,w,0.001000\n").unwrap();
    for (trace, named) in [
        (&msr, "zero.csv line 2: a write of 0 bytes"),
        (&spc, "zero.spc line 2: a write of 0 bytes"),
        // An extent past 2^64 (it panicked on overflow in a debug build).
        (
            &far,
            "far.iolog line 4: a read of 4096 bytes at byte 18446744073709547520 ends beyond",
        ),
    ] {
        refused_in_one_line(
            &[
                "replay".as_ref(),
                trace.as_os_str(),
                "--dir".as_ref(),
                dir.path().as_os_str(),
            ],
            named,
            dir.path(),
        );
    }
}

/// A trace replaced between two points of a sweep is not replayed as it
/// then is: every point replays the trace its check read, and the point
/// after the swap fails naming the change, exit 1 (each point used to read
/// the trace anew).
#[test]
fn a_trace_replaced_between_points_is_refused_not_replayed() {
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("t.csv");
    // Two reads 2 s apart as recorded.
    two_reads(&trace, 20_000_000, 4096);
    let result = out.path().join("s.json");
    let child = spawned(&[
        "sweep".as_ref(),
        "--progress".as_ref(),
        "never".as_ref(),
        "--trace".as_ref(),
        trace.as_os_str(),
        "--trace-speed".as_ref(),
        "1,afap".as_ref(),
        "--dir".as_ref(),
        dir.path().as_os_str(),
        "-o".as_ref(),
        result.as_os_str(),
    ]);
    let start = Instant::now();
    scratch_file_in(dir.path());
    // The first point's replay holds the trace open while it replays (the
    // checks before it closed theirs): swapped only then.
    let fds = format!("/proc/{}/fd", child.id());
    let holds_trace = || {
        std::fs::read_dir(&fds)
            .into_iter()
            .flatten()
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|to| to == trace))
    };
    while !holds_trace() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the trace never opened"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // While the first point replays: another trace, far larger, in its place.
    let other = work.path().join("other.csv");
    let far: String = (0..4000)
        .map(|i| {
            format!(
                "{},hm,1,Write,{},4096,10\n",
                128_166_372_003_061_629u64 + i,
                (1u64 << 30) + i * 4096
            )
        })
        .collect();
    std::fs::write(&other, far).unwrap();
    std::fs::rename(&other, &trace).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let value = crate::util::read_result(&result);
    let statuses: Vec<String> = value["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["repetitions"][0]["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(statuses, ["ok", "failed"], "{stderr}");
    let error = value["points"][1]["repetitions"][0]["error"]
        .as_str()
        .unwrap();
    assert!(error.contains("changed since iolab checked it"), "{error}");
    assert!(entries(dir.path()).iter().all(|n| !n.ends_with(".dat")));
}
