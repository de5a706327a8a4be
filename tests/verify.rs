//! `--verify`: sealed blocks verify clean, a mix's blocks each name their writer, and a block corrupted between the write and the read is reported at its offset.

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

/// A 70/30 mix that verifies starts from a sealed layout each repetition,
/// and afterwards every block names its writer: the mix's writes where it
/// wrote, the layout elsewhere (so a lost write, which leaves a whole
/// block of the layout, is found). Blocking and queued engines alike.
#[test]
fn a_mix_verifies_every_block_by_its_writer() {
    let dir = scratch();
    for engine in [
        &["--engine", "psync"][..],
        &["--engine", "uring", "--iodepth", "8"],
    ] {
        let dir_arg = dir.path().to_str().unwrap();
        let args = [
            &["run", "--keep", "--json", "--dir", dir_arg][..],
            &MIX_70_30,
            &["--size", "8m", "--verify", "--fsync-end", "--repeat", "2"],
            engine,
        ]
        .concat();
        let kept = succeed(iolab().args(&args));
        let result: serde_json::Value = serde_json::from_slice(&kept.stdout).unwrap();
        let point = first_point(&result);
        let path = point["target"]["files"][0].as_str().unwrap().to_string();
        let mut writes = 0;
        for repetition in point["repetitions"].as_array().unwrap() {
            assert_eq!(repetition["status"], "ok", "{engine:?}: {repetition}");
            let verify = &repetition["verify"];
            assert_eq!(
                (verify["blocks"].as_u64(), verify["bad_blocks"].as_u64()),
                (Some(2048), Some(0)),
                "{engine:?}: {verify}"
            );
            writes = repetition["directions"][1]["ops"].as_u64().unwrap();
        }
        // On disk, after the last repetition: its writes and the layout.
        let data = std::fs::read(&path).unwrap();
        let by_writer = data.chunks(4096).enumerate().fold(
            std::collections::BTreeMap::new(),
            |mut count, (index, block)| {
                let header = iolab::run::io::verify::check_block(block, index as u64 * 4096)
                    .unwrap_or_else(|e| panic!("block {index}: {e:?}"));
                *count.entry(header.run).or_insert(0u64) += 1;
                count
            },
        );
        assert_eq!(by_writer.len(), 2, "{by_writer:?}");
        assert_eq!(
            by_writer.get(&iolab::run::io::verify::LAYOUT_TAG),
            Some(&(2048 - writes)),
            "{engine:?}: {by_writer:?}"
        );
        std::fs::remove_file(&path).unwrap();
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

/// A write that leaves blocks unwritten — uniform draws (with repeats), a
/// runtime — is checked where it wrote, as fio verifies what it wrote: the
/// blocks checked are the distinct blocks written, none bad (both were
/// refused before).
#[test]
fn writes_that_skip_blocks_verify_the_blocks_they_wrote() {
    let dir = scratch();
    for extra in [
        &["--pattern", "uniform", "--size", "1m", "--bs", "4k"][..],
        &["--size", "64m", "--bs", "64k", "--runtime", "0.2s"][..],
    ] {
        let result = run_ok(
            &[
                &["run", "--op", "write", "--verify", "--dir"][..],
                &[dir.path().to_str().unwrap()],
                extra,
            ]
            .concat(),
            dir.path(),
        );
        let repetition = &first_point(&result)["repetitions"][0];
        let verify = &repetition["verify"];
        assert_eq!(verify["bad_blocks"], 0, "{extra:?}: {verify}");
        let checked = verify["blocks"].as_u64().unwrap();
        let written = match repetition["coverage"]["blocks_touched"].as_u64() {
            Some(touched) => touched,
            None => repetition["ops"].as_u64().unwrap(),
        };
        assert!(checked > 0, "{extra:?}: {verify}");
        if extra.contains(&"uniform") {
            assert_eq!(checked, written, "{extra:?}: {verify} {repetition}");
            assert!(checked < 256, "uniform draws repeat blocks: {checked}");
        } else {
            assert!(checked <= written, "{extra:?}: {verify}");
        }
    }
}

#[test]
fn verify_needs_a_file_that_can_be_checked() {
    let dir = scratch();
    for (args, needle) in [
        (vec!["--op", "read", "--verify"], "--file"),
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
            stderr.contains(needle) && crate::util::message_lines(&stderr) == 1,
            "{args:?}: {stderr}"
        );
        assert!(entries(dir.path()).is_empty());
    }
    // A mix's check needs a layout iolab seals first: a given file's data
    // is not iolab's to replace, so it is refused and left as it was.
    let (file, _) = write_and_keep(dir.path(), &["--size", "1m"]);
    let before = std::fs::read(&file).unwrap();
    let run = iolab()
        .args([
            "run",
            "--mix",
            "read=70,write=30",
            "--pattern",
            "random",
            "--verify",
        ])
        .arg("--file")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2), "{run:?}");
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert!(stderr.contains("not iolab's to replace"), "{stderr}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "the file is untouched"
    );
    std::fs::remove_file(&file).unwrap();
}
