//! Every engine with every op produces a result file that passes the schema and the arithmetic.

use crate::util::*;

const OPS: [&str; 4] = ["write", "rewrite", "read", "reread"];

#[test]
fn every_engine_and_op_gives_a_consistent_valid_result() {
    let dir = scratch();
    let out = scratch();
    // Every engine that reaches a local file (or none: null); the network
    // engines have their own servers (tests/netlab.rs, tests/iscsi.rs).
    let engines = engines_that(|can| can.network.is_none());
    assert!(engines.len() >= 6, "{engines:?}");
    for engine in engines {
        let (name, can) = (engine.name(), engine.capabilities());
        for op in OPS {
            let mut cli = Cli::new(["run", "--op", op, "--engine", name])
                .args(["--size", "1m", "--bs", "4k"])
                .path("--dir", dir.path());
            if can.queued {
                cli = cli.args(["--iodepth", "4"]);
            }
            let result = cli.ok(out.path());
            let point = first_point(&result);
            assert_eq!(point["workload"]["engine"], name);
            assert_eq!(point["workload"]["op"], op);
            let rep = &point["repetitions"][0];
            assert_eq!(rep["status"], "ok", "{name} {op}");
            assert_eq!(rep["ops"], 256, "{name} {op}: 1 MiB in 4 KiB blocks");
            if can.queued {
                assert!(
                    rep["submit_ns"]["count"].as_u64().unwrap() >= 256,
                    "submission time per I/O"
                );
            }
            if op == "reread" && can.moves_data {
                let fraction = rep["cache"]["resident_fraction"].as_f64().unwrap();
                assert!(
                    fraction > 0.9,
                    "{name} reread starts from the cache its read left: {fraction}"
                );
            }
            assert!(
                entries(dir.path()).is_empty(),
                "{name} {op}: scratch files removed"
            );
        }
    }
}

#[test]
fn direct_io_with_every_engine_that_can_reaches_the_device_aligned() {
    let dir = scratch();
    let out = scratch();
    if !direct_io_works(dir.path()) {
        return;
    }
    // Every engine that opens a local file with O_DIRECT; a queued one
    // also with requests submitted in batches.
    let mut engines: Vec<Vec<&str>> = Vec::new();
    for engine in engines_that(|can| can.direct && can.local_fd) {
        let name = engine.name();
        if engine.capabilities().queued {
            engines.push(vec!["--engine", name, "--iodepth", "16"]);
            engines.push(vec!["--engine", name, "--iodepth", "16", "--batch", "8"]);
        } else {
            engines.push(vec!["--engine", name]);
        }
    }
    assert!(engines.len() >= 4, "{engines:?}");
    for engine in engines {
        for op in ["write", "read"] {
            let result = Cli::new(["run", "--op", op, "--size", "4m", "--bs", "64k"])
                .args(["--direct", "--pattern", "random"])
                .args(&engine)
                .path("--dir", dir.path())
                .ok(out.path());
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
    // Every engine that moves data one I/O at a time through a local file.
    let engines = engines_that(|can| can.local_fd && !can.queued);
    assert!(engines.len() >= 4, "{engines:?}");
    for extra in [
        vec!["--fsync-end"],
        vec!["--sync", "osync"],
        vec!["--sync", "odsync"],
        vec!["--fsync-every", "16"],
    ] {
        for engine in &engines {
            let engine = engine.name();
            let result = Cli::new(["run", "--op", "rewrite", "--engine", engine])
                .args(["--size", "512k", "--bs", "8k"])
                .args(&extra)
                .path("--dir", dir.path())
                .ok(out.path());
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
    let result = Cli::new(["run", "--op", "write", "--size", "1m"])
        .path("--dir", dir.path())
        .ok(out.path());
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

/// posixaio (glibc's POSIX AIO) keeps its queue buffered and with
/// O_DIRECT: its writes read back sealed (--verify), the depth held at 8
/// for nearly every I/O, and fio's `posixaio` command line moves fio's
/// I/Os and bytes under `iolab fio`.
#[test]
fn posixaio_verifies_keeps_its_queue_and_moves_what_fio_moves() {
    let dir = scratch();
    let out = scratch();
    let direct: &[&str] = if direct_io_works(dir.path()) {
        &["--direct"]
    } else {
        &[]
    };
    for flags in [&[][..], direct] {
        let result = Cli::new(["run", "--op", "write", "--verify", "--engine", "posixaio"])
            .args([
                "--iodepth",
                "8",
                "--bs",
                "4k",
                "--size",
                "4m",
                "--pattern",
                "random",
            ])
            .args(flags.iter().copied())
            .path("--dir", dir.path())
            .ok(out.path());
        let point = first_point(&result);
        let repetition = &point["repetitions"][0];
        assert_eq!(
            repetition["verify"]["bad_blocks"], 0,
            "{flags:?} {repetition}"
        );
        assert_eq!(repetition["latency_ns"]["count"], 1024, "{flags:?}");
        assert!(
            !check_codes(point).contains(&"queue-not-kept".to_string()),
            "{flags:?}"
        );
    }
    if !crate::mounts::have("fio") {
        return;
    }
    let words: Vec<String> = [
        "--name=p",
        "--ioengine=posixaio",
        "--iodepth=8",
        "--rw=randrw",
        "--bs=4k",
        "--size=4m",
        &format!("--directory={}", dir.path().display()),
    ]
    .iter()
    .map(|w| w.to_string())
    .collect();
    let counts = |document: &serde_json::Value| {
        ["read", "write"].map(|d| {
            let job = &document["jobs"][0][d];
            job["total_ios"].as_u64().unwrap() + job["io_bytes"].as_u64().unwrap()
        })
    };
    let fio = crate::fast::fio_command_line::json_of("fio", out.path(), "fio", &words);
    let ours = crate::fast::fio_command_line::json_of("iolab", out.path(), "iolab", &words);
    assert_eq!(
        counts(&ours).iter().sum::<u64>(),
        counts(&fio).iter().sum::<u64>(),
        "I/Os and bytes, both directions"
    );
    let depth_8 = ours["jobs"][0]["iodepth_level"]["8"].as_f64().unwrap();
    assert!(depth_8 > 90.0, "depth 8 for {depth_8}% of the I/Os");
}

/// libaio keeps a queue only with O_DIRECT: written and read back through
/// it with --verify, and buffered it is said to have kept none.
#[test]
fn libaio_verifies_with_o_direct_and_is_flagged_without_it() {
    let dir = scratch();
    let out = scratch();
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
        let result = Cli::new(["run", "--op", "write", "--direct", "--verify"])
            .args(libaio)
            .args(["--pattern", "random"])
            .path("--dir", dir.path())
            .ok(out.path());
        let point = first_point(&result);
        let repetition = &point["repetitions"][0];
        assert_eq!(repetition["verify"]["bad_blocks"], 0, "{repetition}");
        assert_eq!(repetition["latency_ns"]["count"], 1024);
        assert!(!check_codes(point).contains(&"queue-not-kept".to_string()));
    }
    let result = Cli::new(["run", "--op", "read"])
        .args(libaio)
        .path("--dir", dir.path())
        .ok(out.path());
    let codes = check_codes(first_point(&result));
    assert!(codes.contains(&"queue-not-kept".to_string()), "{codes:?}");
}
