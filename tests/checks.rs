//! Checks planted for real: each condition is created on a real file system and its code must be raised; a clean run must raise no warning.

use crate::mounts::{LoopFs, TmpfsMount, have, root_or_skip};
use crate::util::*;
use serde_json::Value;

fn warnings(result: &Value) -> Vec<String> {
    first_point(result)["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["severity"] != "info")
        .map(|c| c["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_run_cut_to_10ms_is_too_short() {
    let dir = scratch();
    let out = scratch();
    let result = run_ok(
        &[
            "run",
            "--dir",
            dir.path().to_str().unwrap(),
            "--size",
            "8m",
            "--runtime",
            "10ms",
        ],
        out.path(),
    );
    let check = first_point(&result)["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == "too-short")
        .cloned();
    let check = check.expect("too-short raised");
    assert!(
        check["evidence"]
            .as_str()
            .unwrap()
            .starts_with("shortest timed region"),
        "{check}"
    );
}

#[test]
fn a_reread_is_page_cache_speed() {
    let dir = scratch();
    let out = scratch();
    let result = run_ok(
        &[
            "run",
            "--dir",
            dir.path().to_str().unwrap(),
            "--size",
            "8m",
            "--op",
            "reread",
        ],
        out.path(),
    );
    assert!(check_codes(first_point(&result)).contains(&"working-set-in-ram".to_string()));
}

#[test]
fn tmpfs_serves_cold_reads_from_memory_and_does_not_honour_direct() {
    let dir = scratch();
    let out = scratch();
    let Some(mount) = TmpfsMount::new(dir.path(), "tmp", "size=128m") else {
        return;
    };
    let target = mount.path().to_str().unwrap();
    let cold = run_ok(&["run", "--dir", target, "--size", "8m"], out.path());
    assert!(
        warnings(&cold).contains(&"cache-served".to_string()),
        "{:?}",
        warnings(&cold)
    );
    let direct = run_ok(
        &["run", "--dir", target, "--size", "8m", "--direct"],
        out.path(),
    );
    assert!(
        warnings(&direct).contains(&"direct-not-honoured".to_string()),
        "{:?}",
        warnings(&direct)
    );
}

#[test]
fn strict_turns_a_warning_into_exit_status_3() {
    let dir = scratch();
    let run = iolab()
        .args(["run", "--strict", "--op", "write", "--size", "1m", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(3),
        "writeback-pending and too-short are warnings"
    );
    let quiet = iolab()
        .args(["run", "--op", "write", "--size", "1m", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        quiet.status.code(),
        Some(0),
        "without --strict the same run succeeds"
    );
}

#[test]
fn a_clean_direct_run_on_a_loop_device_raises_nothing() {
    if !root_or_skip("a loop device") || !have("losetup") || !have("mkfs.ext4") {
        return;
    }
    let dir = scratch();
    // With direct I/O on the loop device, the disk below serves every I/O when it happens.
    let fs = LoopFs::with_options(dir.path(), "ext4", 1536, true).expect("loop file system");
    let out = scratch();
    let target = fs.path().to_str().unwrap();
    for op in ["write", "read"] {
        let result = run_ok(
            &[
                "run",
                "--dir",
                target,
                "--op",
                op,
                "--direct",
                "--bs",
                "1m",
                "--size",
                "256m",
                "--runtime",
                "1s",
            ],
            out.path(),
        );
        let checks = &first_point(&result)["checks"];
        assert_eq!(checks.as_array().unwrap().len(), 0, "{op}: {checks}");
    }
    // And a buffered cold read of a file evicted first, in one pass: the device
    // serves it. (A time-based cold read would reread cached data after its
    // first pass, and cache-served would rightly say so.)
    let cold = run_ok(
        &["run", "--dir", target, "--bs", "1m", "--size", "1g"],
        out.path(),
    );
    assert!(
        warnings(&cold).is_empty(),
        "{:?}",
        first_point(&cold)["checks"]
    );
}

#[test]
fn a_loop_device_over_a_cached_backing_file_is_caught_by_the_disk_below() {
    if !root_or_skip("a loop device") || !have("losetup") || !have("mkfs.ext4") {
        return;
    }
    let dir = scratch();
    // Without direct I/O a loop device goes through the page cache of its
    // backing file: it counts every I/O, the device below it sees none in
    // time. The device below is a second loop device of this test's own, so
    // no other process's I/O can blur its counters (the shared disk under
    // both could).
    let lower = LoopFs::new(dir.path(), "ext4", 1024).expect("lower loop file system");
    let fs = LoopFs::new(lower.path(), "ext4", 512).expect("upper loop file system");
    let out = scratch();
    let target = fs.path().to_str().unwrap();
    let write = run_ok(
        &[
            "run", "--dir", target, "--op", "write", "--direct", "--bs", "1m", "--size", "128m",
        ],
        out.path(),
    );
    let finding = first_point(&write)["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == "direct-not-honoured")
        .cloned()
        .unwrap_or_else(|| panic!("not raised: {}", first_point(&write)["checks"]));
    let evidence = finding["evidence"].as_str().unwrap();
    assert!(
        evidence.starts_with("the application wrote 128MiB,"),
        "{evidence}"
    );
    // The backing file was just written, so it is in the page cache: a cold
    // read of the file on the loop device never reaches the disk.
    let read = run_ok(
        &["run", "--dir", target, "--bs", "1m", "--size", "128m"],
        out.path(),
    );
    assert!(
        warnings(&read).contains(&"cache-served".to_string()),
        "{}",
        first_point(&read)["checks"]
    );
}
