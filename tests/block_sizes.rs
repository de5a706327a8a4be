//! Mixed block sizes (`--bssplit`, fio's `bssplit`): drawn per I/O in their
//! shares, exact bytes per pass on every engine, written data that
//! verifies, a sweep axis, a study key, fio's option imported, and bad
//! splits refused.

use crate::fast::import::{fio_available, fio_json, imported_workload};
use crate::util::*;
use serde_json::Value;

/// The first repetition's ops and bytes.
fn ops_and_bytes(result: &Value) -> (u64, u64) {
    let repetition = &first_point(result)["repetitions"][0];
    (
        repetition["ops"].as_u64().unwrap(),
        repetition["bytes"].as_u64().unwrap(),
    )
}

#[test]
fn a_split_draws_each_ios_length_in_its_shares_and_a_pass_moves_the_file() {
    let dir = scratch();
    for seed in ["0", "1"] {
        let output = iolab()
            .args(["run", "--engine", "null", "--bs", "4k=50,8k=50"])
            .args([
                "--size",
                "64m",
                "--pattern",
                "seq",
                "--json",
                "--seed",
                seed,
            ])
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let result: Value = serde_json::from_slice(&output.stdout).unwrap();
        validate_schema(&result);
        assert_eq!(
            first_point(&result)["workload"]["bssplit"],
            "4KiB=50,8KiB=50"
        );
        assert_eq!(first_point(&result)["workload"]["bs"], 4096);
        let (ops, bytes) = ops_and_bytes(&result);
        assert_eq!(bytes, 64 << 20, "a pass moves the file's size");
        // The 8 KiB share among n I/Os: within 5 standard deviations of
        // half (the last I/O of a sequential pass may be fitted down to 4 KiB).
        let eights = (bytes - ops * 4096) / 4096;
        let sd = (ops as f64 * 0.25).sqrt();
        assert!(
            (eights as f64 - ops as f64 / 2.0).abs() < 5.0 * sd + 8.0,
            "seed {seed}: {eights} of {ops} I/Os were 8 KiB"
        );
    }
}

#[test]
fn every_engine_moves_exactly_the_files_bytes_in_mixed_sizes() {
    let dir = scratch();
    let direct = direct_io_works(dir.path());
    let mut runs: Vec<Vec<&str>> = vec![
        vec!["--engine", "psync", "--op", "write", "--pattern", "seq"],
        vec!["--engine", "sync", "--op", "read", "--pattern", "reverse"],
        vec!["--engine", "mmap", "--op", "read", "--pattern", "random"],
        vec!["--engine", "stdio", "--op", "write", "--pattern", "seq"],
        vec![
            "--engine",
            "libaio",
            "--op",
            "read",
            "--pattern",
            "random",
            "--iodepth",
            "8",
        ],
        vec![
            "--engine",
            "posixaio",
            "--op",
            "write",
            "--pattern",
            "random",
            "--iodepth",
            "8",
        ],
    ];
    if uring_works() {
        runs.push(vec![
            "--engine",
            "uring",
            "--op",
            "write",
            "--pattern",
            "random",
            "--iodepth",
            "8",
        ]);
    }
    for mut args in runs {
        if direct && !args.contains(&"mmap") && !args.contains(&"stdio") {
            args.push("--direct");
        }
        let out = scratch();
        let mut full = vec!["run", "--size", "8m", "--bssplit", "4k=60,64k=30,1m=10"];
        full.extend(&args);
        let result = run_ok(&full, out.path());
        let (ops, bytes) = ops_and_bytes(&result);
        assert_eq!(bytes, 8 << 20, "{args:?}: bytes of one pass");
        assert!(
            ops > 8 && ops < 2048,
            "{args:?}: {ops} I/Os are neither all 1 MiB nor all 4 KiB"
        );
    }
}

#[test]
fn mixed_size_writes_verify_block_by_block() {
    let dir = scratch();
    let out = scratch();
    let result = Cli::new([
        "run",
        "--op",
        "write",
        "--pattern",
        "random",
        "--size",
        "4m",
        "--bs",
        "4k=50,16k=30,64k=20",
        "--verify",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let point = first_point(&result);
    assert_eq!(point["repetitions"][0]["bytes"], 4 << 20);
    // Every 4 KiB block of the file checked, each sealed on its own.
    let verify = &point["repetitions"][0]["verify"];
    assert_eq!(verify["blocks"], 1024, "{verify}");
    assert_eq!(verify["bad_blocks"], 0, "{verify}");
}

#[test]
fn splits_are_a_sweep_axis_and_a_study_key_and_bad_ones_are_refused() {
    let dir = scratch();
    let out = scratch();
    let splits = swept(
        dir.path(),
        out.path(),
        &[
            "--engine",
            "null",
            "--size",
            "1m",
            "--bs",
            "4k=50,8k=50,4k=90+64k=10",
        ],
        "bssplit",
        "-",
    );
    assert_eq!(splits, ["4KiB=50,8KiB=50", "4KiB=90,64KiB=10"]);
    // The point's description shows the split; its label does not repeat it.
    let swept = read_result(&out.path().join("sweep.json"));
    let label = swept["points"][0]["label"].as_str().unwrap();
    assert_eq!(label.matches("4KiB=50,8KiB=50").count(), 1, "{label}");

    let points = studied(
        dir.path(),
        out.path(),
        "name = \"sizes\"\n[defaults]\nengine = \"null\"\nsize = \"1m\"\n\
         [[sweep]]\nlabel = \"mixed\"\nbssplit = [\"4k=60,64k=40\", \"8k=100\"]\n",
    );
    assert_eq!(points.len(), 2);
    assert_eq!(points[0]["workload"]["bssplit"], "4KiB=60,64KiB=40");
    assert_eq!(points[1]["workload"]["bs"], 8192);

    for (args, named) in [
        (vec!["--bs", "4k=50,6k=50"], "6KiB is not a multiple"),
        (vec!["--bssplit", "4k=50,8k=40"], "add up to 90%"),
        (
            vec!["--bssplit", "4k=50,2m=50", "--size", "1m"],
            "larger than --size",
        ),
        (vec!["--bs", "8k", "--bssplit", "4k=50,8k=50"], "--bssplit"),
    ] {
        let mut args = args;
        args.extend(["--engine", "null"]);
        run_refused(dir.path(), &args, named);
    }
    assert!(entries(dir.path()).is_empty(), "a refusal creates nothing");
}

#[test]
fn fios_bssplit_imports_as_the_same_split() {
    let out = scratch();
    if !fio_available() {
        return;
    }
    let file = out.path().join("fio.data");
    let fio_output = fio_json(
        out.path(),
        "mixed",
        &[
            "--rw=randread",
            "--bssplit=4k/60:64k/30:1m/",
            "--size=8m",
            "--ioengine=psync",
            &format!("--filename={}", file.display()),
        ],
    );
    let workload = imported_workload(&fio_output, out.path());
    assert_eq!(
        workload["bssplit"], "4KiB=60,64KiB=30,1MiB=10",
        "{workload}"
    );
    assert_eq!(workload["bs"], 4096);
}
