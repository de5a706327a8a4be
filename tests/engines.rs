//! Every engine with every op produces a result file that passes the schema and the arithmetic.

use crate::util::*;

const ENGINES: [&str; 7] = ["sync", "psync", "stdio", "mmap", "uring", "libaio", "null"];
const OPS: [&str; 4] = ["write", "rewrite", "read", "reread"];

#[test]
fn every_engine_and_op_gives_a_consistent_valid_result() {
    let dir = scratch();
    let out = scratch();
    let uring = uring_works();
    for engine in ENGINES {
        if engine == "uring" && !uring {
            continue;
        }
        for op in OPS {
            let dir_arg = dir.path().to_str().unwrap();
            let mut args = vec![
                "run", "--dir", dir_arg, "--op", op, "--engine", engine, "--size", "1m", "--bs",
                "4k",
            ];
            let queued = engine == "uring" || engine == "libaio";
            if queued {
                args.extend(["--iodepth", "4"]);
            }
            let result = run_ok(&args, out.path());
            let point = first_point(&result);
            assert_eq!(point["workload"]["engine"], engine);
            assert_eq!(point["workload"]["op"], op);
            let rep = &point["repetitions"][0];
            assert_eq!(rep["status"], "ok", "{engine} {op}");
            assert_eq!(rep["ops"], 256, "{engine} {op}: 1 MiB in 4 KiB blocks");
            if queued {
                assert!(
                    rep["submit_ns"]["count"].as_u64().unwrap() >= 256,
                    "submission time per I/O"
                );
            }
            if op == "reread" && engine != "null" {
                let fraction = rep["cache"]["resident_fraction"].as_f64().unwrap();
                assert!(
                    fraction > 0.9,
                    "{engine} reread starts from the cache its read left: {fraction}"
                );
            }
            assert!(
                entries(dir.path()).is_empty(),
                "{engine} {op}: scratch files removed"
            );
        }
    }
}

#[test]
fn direct_io_with_psync_uring_and_libaio_reaches_the_device_aligned() {
    let dir = scratch();
    let out = scratch();
    if !direct_io_works(dir.path()) {
        return;
    }
    let dir_arg = dir.path().to_str().unwrap();
    let mut engines = vec![vec!["--engine", "psync"], vec!["--engine", "sync"]];
    engines.push(vec!["--engine", "libaio", "--iodepth", "16"]);
    engines.push(vec![
        "--engine",
        "libaio",
        "--iodepth",
        "16",
        "--batch",
        "8",
    ]);
    if uring_works() {
        engines.push(vec!["--engine", "uring", "--iodepth", "16"]);
        engines.push(vec![
            "--engine",
            "uring",
            "--iodepth",
            "16",
            "--batch",
            "16",
        ]);
    }
    for engine in engines {
        for op in ["write", "read"] {
            let mut args = vec![
                "run",
                "--dir",
                dir_arg,
                "--op",
                op,
                "--size",
                "4m",
                "--bs",
                "64k",
                "--direct",
                "--pattern",
                "random",
            ];
            args.extend(&engine);
            let result = run_ok(&args, out.path());
            let point = first_point(&result);
            let alignment = &point["target"]["direct_alignment"];
            assert!(
                alignment["offset_bytes"]
                    .as_u64()
                    .unwrap()
                    .is_power_of_two(),
                "{alignment}"
            );
            assert_eq!(point["target"]["direct_in_memory"], false);
            let codes = check_codes(point);
            assert!(
                !codes.contains(&"writeback-pending".to_string()),
                "O_DIRECT writes are not writeback: {codes:?}"
            );
        }
    }
}

#[test]
fn stdio_and_sync_writes_with_fsync_and_osync_complete() {
    let dir = scratch();
    let out = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    for extra in [
        vec!["--fsync-end"],
        vec!["--sync", "osync"],
        vec!["--sync", "odsync"],
        vec!["--fsync-every", "16"],
    ] {
        for engine in ["stdio", "sync", "mmap", "psync"] {
            let mut args = vec![
                "run", "--dir", dir_arg, "--op", "rewrite", "--engine", engine, "--size", "512k",
                "--bs", "8k",
            ];
            args.extend(&extra);
            let result = run_ok(&args, out.path());
            let codes = check_codes(first_point(&result));
            assert!(
                !codes.contains(&"writeback-pending".to_string()),
                "{engine} {extra:?} syncs: {codes:?}"
            );
        }
    }
}

#[test]
fn unsynced_buffered_writes_are_flagged_as_memory_speed() {
    let dir = scratch();
    let out = scratch();
    let result = run_ok(
        &[
            "run",
            "--dir",
            dir.path().to_str().unwrap(),
            "--op",
            "write",
            "--size",
            "1m",
        ],
        out.path(),
    );
    let codes = check_codes(first_point(&result));
    assert!(
        codes.contains(&"writeback-pending".to_string()),
        "{codes:?}"
    );
    assert!(
        codes.contains(&"too-short".to_string()),
        "a 1 MiB write is over in milliseconds: {codes:?}"
    );
}

/// libaio keeps a queue only with O_DIRECT: written and read back through
/// it with --verify, and buffered it is said to have kept none.
#[test]
fn libaio_verifies_with_o_direct_and_is_flagged_without_it() {
    let dir = scratch();
    let out = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    let libaio = [
        "--engine",
        "libaio",
        "--iodepth",
        "8",
        "--bs",
        "4k",
        "--size",
        "4m",
    ];
    if direct_io_works(dir.path()) {
        let mut args = vec![
            "run", "--dir", dir_arg, "--op", "write", "--direct", "--verify",
        ];
        args.extend(libaio);
        args.extend(["--pattern", "random"]);
        let result = run_ok(&args, out.path());
        let point = first_point(&result);
        let repetition = &point["repetitions"][0];
        assert_eq!(repetition["verify"]["bad_blocks"], 0, "{repetition}");
        assert_eq!(repetition["latency_ns"]["count"], 1024);
        assert!(!check_codes(point).contains(&"queue-not-kept".to_string()));
    }
    let mut args = vec!["run", "--dir", dir_arg, "--op", "read"];
    args.extend(libaio);
    let result = run_ok(&args, out.path());
    let codes = check_codes(first_point(&result));
    assert!(codes.contains(&"queue-not-kept".to_string()), "{codes:?}");
}
