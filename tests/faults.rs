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
    // Wait until the scratch file exists and the timed loop is running.
    for _ in 0..100 {
        if !entries(dir.path()).is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
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

#[test]
fn sigterm_stops_cleanly_with_status_143() {
    interrupt_with(libc::SIGTERM, 143);
}

#[test]
fn ctrl_c_stops_cleanly_with_status_130() {
    interrupt_with(libc::SIGINT, 130);
}
