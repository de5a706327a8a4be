//! `--verify`: sealed blocks verify clean, and a block corrupted between the write and the read is reported at its offset.

use crate::util::*;
use std::os::unix::fs::FileExt;

#[test]
fn a_clean_write_verifies_every_block() {
    let dir = scratch();
    let out = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    for (op, pattern) in [("write", "seq"), ("rewrite", "random")] {
        let result = run_ok(
            &[
                "run",
                "--dir",
                dir_arg,
                "--op",
                op,
                "--pattern",
                pattern,
                "--bs",
                "64k",
                "--size",
                "8m",
                "--verify",
                "--fsync-end",
            ],
            out.path(),
        );
        let verify = &first_point(&result)["repetitions"][0]["verify"];
        assert_eq!(verify["blocks"], 128, "{op}: {verify}");
        assert_eq!(verify["bad_blocks"], 0, "{op}: {verify}");
        assert!(!check_codes(first_point(&result)).contains(&"data-mismatch".to_string()));
    }
}

#[test]
fn a_corrupted_block_is_reported_at_its_offset() {
    let dir = scratch();
    let out = scratch();
    let (path, result) = write_and_keep(dir.path(), &["--bs", "64k", "--size", "8m", "--verify"]);
    assert_eq!(
        result["points"][0]["repetitions"][0]["verify"]["bad_blocks"],
        0
    );

    // The test's own write into the middle of block 37.
    let corrupt_at = 37 * 65536 + 1000;
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.write_all_at(b"not iolab's data", corrupt_at).unwrap();
    file.sync_all().unwrap();
    drop(file);

    let output = out.path().join("read.json");
    let read = iolab()
        .args(["run", "--op", "read", "--bs", "64k", "--verify", "--file"])
        .arg(&path)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert_eq!(read.status.code(), Some(1), "a data mismatch fails the run");
    let result = read_result(&output);
    let verify = &first_point(&result)["repetitions"][0]["verify"];
    assert_eq!(verify["bad_blocks"], 1, "{verify}");
    let repetition = &first_point(&result)["repetitions"][0];
    assert_eq!(
        repetition["status"], "failed",
        "wrong data is never a timed result"
    );
    assert!(repetition.get("throughput_bps").is_none());
    let first = verify["first_mismatches"][0].as_str().unwrap();
    assert!(
        first.starts_with(&format!("offset {}: checksum mismatch", 37 * 65536)),
        "{first}"
    );
    let check = first_point(&result)["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == "data-mismatch")
        .cloned();
    assert_eq!(check.expect("data-mismatch raised")["severity"], "error");
    let stdout = String::from_utf8(read.stdout).unwrap();
    assert!(stdout.contains("data-mismatch"), "{stdout}");
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn verify_needs_a_file_that_can_be_checked() {
    let dir = scratch();
    for (args, needle) in [
        (vec!["--op", "read", "--verify"], "--file"),
        (
            vec!["--op", "write", "--verify", "--pattern", "uniform"],
            "uniform",
        ),
        (
            vec!["--op", "write", "--verify", "--runtime", "1s"],
            "--runtime",
        ),
        (vec!["--op", "write", "--verify", "--bs", "32"], "header"),
    ] {
        let run = iolab()
            .arg("run")
            .args(&args)
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(run.stderr).unwrap();
        assert!(
            stderr.contains(needle) && stderr.lines().count() == 1,
            "{args:?}: {stderr}"
        );
        assert!(entries(dir.path()).is_empty());
    }
}
