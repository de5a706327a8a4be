//! `iolab fio ARGS…`: fio's command line as users type it, run with fio's
//! counts — each line run by iolab and by fio itself, their JSON compared.

use crate::mounts::have;
use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// `words` as owned strings, as a command line's.
fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// `fio`, or `iolab fio` for `iolab`, ready for fio's words.
fn fio_command(program: &str) -> assert_cmd::Command {
    match program {
        "iolab" => {
            let mut iolab = iolab();
            iolab.arg("fio");
            iolab
        }
        _ => assert_cmd::Command::new(program),
    }
}

/// `fio`, or `iolab fio` for `iolab`, under strace: the calls `calls`
/// names (strace's `trace=` list) of every thread written to `log`.
fn traced(program: &str, calls: &str, log: &Path) -> assert_cmd::Command {
    let mut command = assert_cmd::Command::new("strace");
    command
        .args(["-f", "-e", &format!("trace={calls}"), "-o"])
        .arg(log);
    match program {
        "iolab" => command.arg(env!("CARGO_BIN_EXE_iolab")).arg("fio"),
        _ => command.arg("fio"),
    };
    command
}

/// fio's JSON from `program` (`iolab fio` or `fio`) given `words`, run in
/// `dir`, its output in `dir/NAME.json`.
pub(crate) fn json_of(program: &str, dir: &Path, name: &str, words: &[String]) -> Value {
    let output = dir.join(format!("{name}.json"));
    let mut command = fio_command(program);
    command
        .current_dir(dir)
        .args(words)
        .arg("--output-format=json")
        .arg(format!("--output={}", output.display()));
    succeed(&mut command);
    serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap()
}

/// Per direction, the I/Os and bytes of every job of fio's JSON `document`.
fn counts(document: &Value) -> Vec<(u64, u64)> {
    ["read", "write", "trim"]
        .iter()
        .map(|direction| {
            document["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|job| {
                    (
                        job[direction]["total_ios"].as_u64().unwrap_or(0),
                        job[direction]["io_bytes"].as_u64().unwrap_or(0),
                    )
                })
                .fold((0, 0), |(ios, bytes), (i, b)| (ios + i, bytes + b))
        })
        .collect()
}

/// Command lines of the kinds public scripts and docs give (the first is
/// the commonest random mix; the second Brendan Gregg's sequential write
/// with end_fsync and loops; io_uring with registerfiles; randrepeat=0 with
/// gtod_reduce), each shrunk to a few MiB: iolab runs each as typed, with
/// fio's I/O counts and bytes per direction.
#[test]
fn fio_command_lines_run_as_typed_with_fios_counts() {
    if !have("fio") {
        return;
    }
    let lines = [
        "--name=test --ioengine=libaio --rw=randrw --rwmixread=75 --bs=4k --iodepth=16 --size=4m --filename=FILE",
        "--name=seqwrite --rw=write --bs=128k --size=4m --end_fsync=1 --loops=4 --filename=FILE",
        "--name=uring --ioengine=io_uring --registerfiles --rw=randread --bs=4k --iodepth 8 --size 2m --filename FILE",
        "--randrepeat=0 --gtod_reduce=1 --name=t --rw=read --bs=64k --size=2m --filename=FILE",
    ];
    for (index, line) in lines.iter().enumerate() {
        let dir = scratch();
        let file = dir.path().join("data");
        let words: Vec<String> = line
            .split_whitespace()
            .map(|w| w.replace("FILE", file.to_str().unwrap()))
            .collect();
        let theirs = json_of("fio", dir.path(), "fio", &words);
        std::fs::remove_file(&file).unwrap();
        let ours = json_of("iolab", dir.path(), "iolab", &words);
        let (ours, theirs) = (counts(&ours), counts(&theirs));
        let total = |counts: &[(u64, u64)]| {
            counts
                .iter()
                .fold((0, 0), |(ios, bytes), (i, b)| (ios + i, bytes + b))
        };
        assert_eq!(total(&ours), total(&theirs), "line {index}: {line}");
        assert!(total(&ours).0 > 0, "line {index}: no I/O");
        // A mix draws each I/O's direction: fio's generator and iolab's
        // differ, within a few standard deviations of the shares
        // (at 75% of 1024 I/Os, 14 I/Os).
        for (direction, (mine, fios)) in ours.iter().zip(&theirs).enumerate() {
            assert!(
                mine.0.abs_diff(fios.0) * 20 <= total(&theirs).0,
                "line {index}, direction {direction}: {ours:?} against fio's {theirs:?}"
            );
        }
        // iolab made the file as fio does, and removed what it made.
        assert!(!file.exists(), "line {index}");
    }
}

/// Job files among the words follow the command line's jobs, its options
/// before the first --name are every job's, --section picks a job, and
/// what iolab cannot do is one line naming the argument, nothing made.
#[test]
fn a_job_file_on_the_command_line_and_refusals_name_the_argument() {
    let dir = scratch();
    std::fs::write(
        dir.path().join("two.fio"),
        "[first]\nrw=read\n\n[second]\nrw=write\n",
    )
    .unwrap();
    let words = |extra: &[&str]| -> Vec<String> {
        ["--size=1m", "--bs=64k", "two.fio"]
            .iter()
            .chain(extra)
            .map(|w| w.to_string())
            .collect()
    };
    let ours = json_of("iolab", dir.path(), "second", &words(&["--section=second"]));
    assert_eq!(counts(&ours)[0], (0, 0), "{ours}");
    assert_eq!(counts(&ours)[1], (16, 1 << 20), "{ours}");
    // fio's --parse-only: the jobs read and planned, nothing run or made.
    let planned = succeed(
        iolab()
            .current_dir(dir.path())
            .arg("fio")
            .args(words(&["--parse-only", "--output=never.json"])),
    );
    let planned = String::from_utf8_lossy(&planned.stdout);
    assert!(
        planned.contains("first") && planned.contains("second"),
        "{planned}"
    );
    for (args, needle) in [
        (
            vec!["--name=a", "--terse-version=2"],
            "--terse-version=2: iolab writes fio's terse version 3",
        ),
        (
            vec!["--name=a", "--rw"],
            "--rw: fio's option rw needs a value",
        ),
        (vec!["--bs=4k"], "no job"),
        (
            vec!["--name=a", "--size=1m", "--fill_device=1"],
            "--fill_device=1",
        ),
    ] {
        let refused = iolab()
            .current_dir(dir.path())
            .arg("fio")
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert_eq!(message_lines(&stderr), 1, "{args:?}: {stderr}");
    }
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "iolab-results")
        .collect();
    left.sort();
    assert_eq!(left, ["second.json", "two.fio"]);
}

/// A write job on a `filename=` that names no file yet writes it once, as
/// fio does (which makes it and writes each block once): strace counts
/// the job's size in writes, where iolab once laid the file out untimed
/// and then timed its overwrites (twice the writes).
#[test]
fn a_new_files_write_job_writes_each_block_once_as_strace_shows() {
    if !have("strace") {
        return;
    }
    let dir = scratch();
    let file = dir.path().join("new");
    let trace = dir.path().join("strace.log");
    let output = dir.path().join("out.json");
    succeed(
        assert_cmd::Command::new("strace")
            .current_dir(dir.path())
            .args(["-f", "-e", "trace=pwrite64,pwritev,pwritev2,write", "-o"])
            .arg(&trace)
            .arg(env!("CARGO_BIN_EXE_iolab"))
            .args(["fio", "--name=w", "--rw=write", "--bs=256k", "--size=4m"])
            .arg(format!("--filename={}", file.display()))
            .arg("--output-format=json")
            .arg(format!("--output={}", output.display())),
    );
    // The data written at offsets (the result goes out with write(2)),
    // laid out or timed alike: each write's returned count, summed.
    let log = std::fs::read_to_string(&trace).unwrap();
    let written: u64 = log
        .lines()
        .filter(|line| line.contains("pwrite64(") || line.contains("pwritev"))
        .filter_map(|line| line.rsplit_once(" = ")?.1.trim().parse::<u64>().ok())
        .sum();
    assert_eq!(written, 4 << 20, "{log}");
    let document: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    assert_eq!(document["jobs"][0]["write"]["io_bytes"], 4 << 20);
    assert!(!file.exists());
}

/// fio's own reader of `--output-format=json+` (`fio_jsonplus_clat2csv`,
/// shipped with fio) reads iolab's answer: its CSV counts every I/O the
/// JSON says was done.
#[test]
fn fios_own_json_plus_reader_reads_iolabs_answer() {
    if !have("fio_jsonplus_clat2csv") {
        return;
    }
    let dir = scratch();
    let file = dir.path().join("data");
    let words = owned(&[
        "--name=a",
        "--rw=randread",
        "--bs=4k",
        "--size=2m",
        &format!("--filename={}", file.display()),
    ]);
    let output = dir.path().join("plus.json");
    succeed(
        iolab()
            .current_dir(dir.path())
            .arg("fio")
            .args(&words)
            .arg("--output-format=json+")
            .arg(format!("--output={}", output.display())),
    );
    let document: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    let job = &document["jobs"][0];
    assert_eq!(job["read"]["total_ios"], 512, "{job}");
    assert!(job["elapsed"].as_u64().unwrap() >= 1, "{job}");
    assert_eq!(job["iodepth_level"]["1"], 100.0, "{job}");
    succeed(
        assert_cmd::Command::new("fio_jsonplus_clat2csv")
            .current_dir(dir.path())
            .arg(&output)
            .arg("clat.csv"),
    );
    let csv = std::fs::read_to_string(dir.path().join("clat_job0.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(", ").collect();
    let cumulative = header
        .iter()
        .position(|c| *c == "read_clat_ns_cumulative")
        .expect("a read clat column");
    let last: u64 = csv
        .lines()
        .skip(1)
        .filter_map(|line| line.split(", ").nth(cumulative)?.trim().parse().ok())
        .max()
        .unwrap();
    assert_eq!(last, 512, "{csv}");
}

/// fio's JSON as fio writes it for a synchronous engine, on the same
/// command line: every key of fio's job and of its read direction is in
/// iolab's answer but the figures iolab does not measure (fio's
/// per-interval bandwidth and IOPS samples, its latency target search and
/// its sync counts); the latency bins (`latency_us`, …) are fio's names and
/// hold every I/O; `slat_ns` has no samples, as fio's.
#[test]
fn fios_json_keys_are_all_in_iolabs_answer() {
    if !have("fio") {
        return;
    }
    let dir = scratch();
    let words = owned(&[
        "--name=a",
        "--ioengine=psync",
        "--rw=randread",
        "--bs=4k",
        "--size=2m",
        &format!("--filename={}", dir.path().join("data").display()),
    ]);
    let theirs = json_of("fio", dir.path(), "fio", &words);
    let ours = json_of("iolab", dir.path(), "iolab", &words);
    let keys = |value: &Value| -> std::collections::BTreeSet<String> {
        value.as_object().unwrap().keys().cloned().collect()
    };
    let (fio_job, iolab_job) = (&theirs["jobs"][0], &ours["jobs"][0]);
    let missing: Vec<String> = keys(fio_job)
        .difference(&keys(iolab_job))
        .cloned()
        .collect();
    let unmeasured = [
        "eta",
        "latency_depth",
        "latency_percentile",
        "latency_target",
        "latency_window",
        "sync",
    ];
    assert!(
        missing.iter().all(|k| unmeasured.contains(&k.as_str())),
        "{missing:?}"
    );
    let missing: Vec<String> = keys(&fio_job["read"])
        .difference(&keys(&iolab_job["read"]))
        .cloned()
        .collect();
    assert!(
        missing
            .iter()
            .all(|k| k.starts_with("bw_") || k.starts_with("iops_")),
        "{missing:?}"
    );
    for bins in ["latency_ns", "latency_us", "latency_ms"] {
        assert_eq!(keys(&fio_job[bins]), keys(&iolab_job[bins]), "{bins}");
    }
    let held: f64 = ["latency_ns", "latency_us", "latency_ms"]
        .iter()
        .flat_map(|bins| iolab_job[bins].as_object().unwrap().values())
        .map(|share| share.as_f64().unwrap())
        .sum();
    assert!((held - 100.0).abs() < 1e-6, "{held}");
    assert_eq!(iolab_job["read"]["slat_ns"]["N"], 0);
    assert_eq!(fio_job["read"]["slat_ns"]["N"], 0);
    assert_eq!(iolab_job["iodepth_submit"], fio_job["iodepth_submit"]);
    // The job is named as fio names it: its section (once `fio: a/a`).
    assert_eq!(iolab_job["jobname"], fio_job["jobname"]);
}

/// Under strace, `(direction, length, offset)` of each pread64 (0) and
/// pwrite64 (1) of `length` bytes or of `other` in `log`.
fn transfers(log: &Path, lengths: &[u64]) -> Vec<(usize, u64, u64)> {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .filter_map(|line| {
            let (call, rest) = line.split_once('(')?;
            let direction = match call.rsplit(' ').next()? {
                "pread64" => 0,
                "pwrite64" => 1,
                _ => return None,
            };
            let mut tail = rest.rsplitn(3, ", ");
            let offset = tail.next()?.split(')').next()?.parse::<u64>().ok()?;
            let length = tail.next()?.parse::<u64>().ok()?;
            lengths
                .contains(&length)
                .then_some((direction, length, offset))
        })
        .collect()
}

/// A mix walks the file once per direction, as fio keeps a position (and
/// a block alignment) per direction: `bs=4k`, and `bs=4k,16k` (reads of
/// 4 KiB, writes of 16 KiB). Sequential, in both tools under strace: each
/// direction's offsets run from 0 in its own size's steps, and the two
/// together move the file's size (the last I/O may go past it, in both;
/// fio's random pass may end a write short of it). Random: every read on
/// a 4 KiB boundary, every write on one of its own size.
#[test]
fn a_mix_walks_the_file_once_per_direction_each_on_its_grid_as_fio() {
    if !have("strace") || !have("fio") {
        return;
    }
    for (rw, bs, sizes) in [
        ("rw", "4k", [4096, 4096]),
        ("rw", "4k,16k", [4096, 16384]),
        ("randrw", "4k,16k", [4096, 16384]),
    ] {
        for program in ["fio", "iolab"] {
            let dir = scratch();
            let log = dir.path().join("strace.log");
            succeed(
                traced(program, "pread64,pwrite64", &log)
                    .current_dir(dir.path())
                    .args([
                        "--name=m",
                        &format!("--rw={rw}"),
                        &format!("--bs={bs}"),
                        "--size=256k",
                    ])
                    .arg("--ioengine=psync")
                    .arg(format!("--filename={}", dir.path().join("data").display()))
                    .arg(format!("--output={}", dir.path().join("out").display())),
            );
            let moved = transfers(&log, &sizes);
            for &(direction, length, offset) in &moved {
                assert_eq!(length, sizes[direction], "{program} {rw}: {moved:?}");
                assert_eq!(offset % length, 0, "{program} {rw}: on its own grid");
            }
            let bytes: u64 = moved.iter().map(|t| t.1).sum();
            // Within a write of the size: fio's shared random map ends its
            // random pass up to 16 KiB short (244 KiB here).
            assert!(
                ((256 - 16) << 10..(256 + 16) << 10).contains(&bytes),
                "{program} {rw}: {bytes}"
            );
            if rw == "rw" {
                for (direction, size) in sizes.iter().enumerate() {
                    let walk: Vec<u64> = moved
                        .iter()
                        .filter(|t| t.0 == direction)
                        .map(|t| t.2)
                        .collect();
                    let steps: Vec<u64> = (0..walk.len() as u64).map(|i| i * size).collect();
                    assert_eq!(walk, steps, "{program}: direction {direction} from 0 on");
                }
            }
        }
    }
}

/// `io_size` with a block size per direction counts bytes of both: reads
/// of 16 KiB and writes of 4 KiB over a 256 KiB file move 128 KiB in
/// iolab, and in fio within one I/O of it (it once moved a quarter: the
/// budget was counted in blocks of the reads' size).
#[test]
fn io_size_counts_the_bytes_of_both_directions_sizes() {
    if !have("fio") {
        return;
    }
    let dir = scratch();
    // Each tool its own file: iolab writes only a file it made.
    let words = |file: &str| {
        owned(&[
            "--name=m",
            "--rw=rw",
            "--bs=16k,4k",
            "--size=256k",
            "--io_size=128k",
            "--ioengine=psync",
            &format!("--filename={}", dir.path().join(file).display()),
        ])
    };
    let moved = |document: &Value| -> u64 {
        let job = &document["jobs"][0];
        job["read"]["io_bytes"].as_u64().unwrap() + job["write"]["io_bytes"].as_u64().unwrap()
    };
    let theirs = moved(&json_of("fio", dir.path(), "fio", &words("fio.data")));
    let ours = moved(&json_of("iolab", dir.path(), "iolab", &words("iolab.data")));
    assert_eq!(ours, 128 << 10, "iolab");
    assert!(theirs.abs_diff(128 << 10) <= 16 << 10, "fio: {theirs}");
}

/// A queued engine's `IO depths`, `submit` and `complete` as measured: at
/// depth 1 fio's own shares in both tools (every I/O at depth 1, one per
/// call); at depth 8, batches of 4, every I/O counted at some depth, and
/// as many submitting calls as strace saw `io_submit`s.
#[test]
fn a_queued_engines_depths_are_measured_as_fio_bins_them() {
    if !have("fio") || !have("strace") {
        return;
    }
    let dir = scratch();
    if !direct_io_works(dir.path()) {
        return;
    }
    let words = |depth: u32| -> Vec<String> {
        [
            "--name=q".to_string(),
            "--ioengine=libaio".to_string(),
            format!("--iodepth={depth}"),
            "--rw=randread".to_string(),
            "--size=4m".to_string(),
            "--direct=1".to_string(),
            format!("--filename={}", dir.path().join("data").display()),
        ]
        .to_vec()
    };
    let theirs = json_of("fio", dir.path(), "fio", &words(1));
    let ours = json_of("iolab", dir.path(), "iolab", &words(1));
    for key in ["iodepth_level", "iodepth_submit", "iodepth_complete"] {
        assert_eq!(ours["jobs"][0][key], theirs["jobs"][0][key], "{key}");
    }
    // At depth 8, fio reaps one completion per call and refills its slot
    // (iodepth_batch_complete_max defaults to 1), so its queue stays full;
    // so does iolab's with a job file's default, --reap 1.
    let theirs = json_of("fio", dir.path(), "fio8", &words(8));
    let ours = json_of("iolab", dir.path(), "iolab8", &words(8));
    for (tool, document) in [("fio", &theirs), ("iolab", &ours)] {
        let level = &document["jobs"][0]["iodepth_level"];
        assert!(level["8"].as_f64().unwrap() >= 99.0, "{tool}: {level}");
        let complete = &document["jobs"][0]["iodepth_complete"];
        assert!(
            complete["4"].as_f64().unwrap() >= 99.0,
            "{tool}: one to four per reaping call (more at the final drain): {complete}"
        );
    }
    // At depth 8 with a submission batch of 4: the result's counts against
    // strace's io_submit calls.
    let log = dir.path().join("strace.log");
    let output = dir.path().join("deep.json");
    succeed(
        assert_cmd::Command::new("strace")
            .args(["-f", "-e", "trace=io_submit", "-o"])
            .arg(&log)
            .arg(env!("CARGO_BIN_EXE_iolab"))
            .args([
                "run",
                "--engine",
                "libaio",
                "--iodepth",
                "8",
                "--batch",
                "4",
            ])
            .args([
                "--op",
                "read",
                "--pattern",
                "random",
                "--size",
                "4m",
                "--direct",
            ])
            .arg("--dir")
            .arg(dir.path())
            .arg("--output")
            .arg(&output),
    );
    let calls = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|line| line.contains("io_submit("))
        .count() as u64;
    let result = read_result(&output);
    let repetition = &first_point(&result)["repetitions"][0];
    let depths = &repetition["queue_depths"];
    let sum = |key: &str| -> u64 {
        depths[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum()
    };
    assert_eq!(
        sum("at_submission"),
        repetition["ops"].as_u64().unwrap(),
        "{depths}"
    );
    assert_eq!(
        sum("per_submit_call"),
        calls,
        "{depths}: strace saw {calls} io_submit calls"
    );
    assert!(sum("per_reap") > 0, "{depths}");
}

/// A queued engine's latencies as fio defines them, on the same command
/// line in both tools: `lat` = `slat` + `clat` I/O by I/O, so the means
/// add up (within the histograms' 0.1% precision), `clat` below `lat`; and
/// the result keeps the clat as `completion_ns`.
#[test]
fn a_queued_engines_slat_and_clat_add_up_to_its_lat_as_in_fio() {
    if !have("fio") {
        return;
    }
    let dir = scratch();
    if !direct_io_works(dir.path()) {
        return;
    }
    // One direction, then a mix: each direction's slat is its own I/Os'.
    for (rw, directions) in [
        ("randread", &["read"][..]),
        ("randrw", &["read", "write"][..]),
    ] {
        let dir = scratch();
        let words = owned(&[
            "--name=q",
            "--ioengine=io_uring",
            "--iodepth=8",
            &format!("--rw={rw}"),
            "--bs=4k",
            "--size=8m",
            "--direct=1",
            &format!("--filename={}", dir.path().join("data").display()),
        ]);
        // iolab first: it writes only a file it made (and removes it).
        let ours = json_of("iolab", dir.path(), "iolab", &words);
        let theirs = json_of("fio", dir.path(), "fio", &words);
        for (tool, document) in [("fio", &theirs), ("iolab", &ours)] {
            for direction in directions {
                let figures = &document["jobs"][0][direction];
                let mean = |key: &str| figures[key]["mean"].as_f64().unwrap();
                let count = |key: &str| figures[key]["N"].as_u64().unwrap();
                let total_ios = figures["total_ios"].as_u64().unwrap();
                for key in ["slat_ns", "clat_ns", "lat_ns"] {
                    assert_eq!(
                        count(key),
                        total_ios,
                        "{tool} {rw} {direction}: {key} counts every I/O"
                    );
                }
                let (slat, clat, lat) = (mean("slat_ns"), mean("clat_ns"), mean("lat_ns"));
                assert!(
                    (slat + clat - lat).abs() <= lat * 0.01,
                    "{tool} {rw} {direction}: slat {slat} + clat {clat} is not lat {lat}"
                );
                assert!(
                    clat < lat,
                    "{tool} {rw} {direction}: clat {clat} below lat {lat}"
                );
            }
        }
    }
}

/// etcd's disk check (`--fdatasync=1 --ioengine=sync --bs=2300`), as fio
/// and iolab fio run it: strace counts one fdatasync(2) per write in both,
/// and no fsync(2) from the job's file (`fdatasync=N` was refused; then
/// mapped onto fsync it would have synced the metadata as well).
#[test]
fn fdatasync_syncs_the_data_after_every_nth_write_as_fio_does() {
    if !have("strace") || !have("fio") {
        return;
    }
    let dir = scratch();
    let calls = |program: &str| {
        let trace = dir.path().join(format!("{program}.strace"));
        let mut command = traced(program, "fsync,fdatasync,write", &trace);
        command
            .current_dir(dir.path())
            .args([
                "--name=etcd",
                "--rw=write",
                "--bs=2300",
                "--size=512k",
                "--fdatasync=1",
                "--ioengine=sync",
                "--output-format=json",
            ])
            .arg(format!("--directory={}", dir.path().display()))
            .arg(format!(
                "--output={}",
                dir.path().join(format!("{program}.json")).display()
            ));
        succeed(&mut command);
        let log = std::fs::read_to_string(&trace).unwrap();
        let count = |call: &str| log.lines().filter(|l| l.contains(call)).count();
        // The job's writes are its 2300-byte ones.
        let writes = log
            .lines()
            .filter(|l| l.contains("write(") && l.ends_with("= 2300"))
            .count();
        (
            writes,
            count("fdatasync("),
            count(" fsync(") + count("]fsync("),
        )
    };
    let fio = calls("fio");
    let iolab = calls("iolab");
    // 512 KiB of 2300-byte blocks: 227 whole ones.
    assert_eq!(fio.0, 227, "{fio:?}");
    assert_eq!(
        (iolab.0, iolab.1),
        (fio.0, fio.1),
        "{iolab:?} against fio's {fio:?}"
    );
    assert_eq!(fio.1, 227);
}

/// `--sqthread_poll=1` on an io_uring line: fio and iolab both set their
/// ring up with a polling kernel thread (strace shows `IORING_SETUP_SQPOLL`
/// in each io_uring_setup), and move the same I/Os; without it iolab's ring
/// has none.
#[test]
fn sqthread_poll_sets_the_ring_up_polled_as_fios() {
    if !have("strace") || !have("fio") {
        return;
    }
    let dir = scratch();
    let file = dir.path().join("data");
    let setup = |program: &str, polled: bool| {
        let trace = dir.path().join(format!("{program}.strace"));
        let output = dir.path().join(format!("{program}.json"));
        let mut command = traced(program, "io_uring_setup", &trace);
        command
            .current_dir(dir.path())
            .args([
                "--name=p",
                "--ioengine=io_uring",
                "--rw=randread",
                "--bs=4k",
                "--iodepth=8",
                "--size=2m",
                "--output-format=json",
            ])
            .args(polled.then_some("--sqthread_poll=1"))
            .arg(format!("--filename={}", file.display()))
            .arg(format!("--output={}", output.display()));
        succeed(&mut command);
        let _ = std::fs::remove_file(&file);
        let log = std::fs::read_to_string(&trace).unwrap();
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
        std::fs::remove_file(&output).unwrap();
        (log, counts(&document))
    };
    let (fio_log, fios) = setup("fio", true);
    let (log, ours) = setup("iolab", true);
    assert!(fio_log.contains("IORING_SETUP_SQPOLL"), "{fio_log}");
    assert!(log.contains("IORING_SETUP_SQPOLL"), "{log}");
    assert_eq!(ours, fios);
    assert_eq!(ours[0], (512, 2 << 20));
    let (unpolled, _) = setup("iolab", false);
    assert!(unpolled.contains("io_uring_setup("), "{unpolled}");
    assert!(!unpolled.contains("IORING_SETUP_SQPOLL"), "{unpolled}");
}

/// `buffer_pattern` writes fio's bytes: fio and `iolab fio` write the same
/// 1 MiB of `0xaa555aa5` (each into its own file: iolab writes a file it
/// kept, as it writes only its own). `verify_pattern` alone verifies, as
/// fio's implies a verify: iolab's check reads back every block, sealed
/// with its header and the pattern after it.
#[test]
fn a_buffer_pattern_writes_fios_bytes_and_verify_pattern_verifies() {
    if !have("fio") {
        return;
    }
    let dir = scratch();
    let theirs = dir.path().join("fio.dat");
    let job = |file: &Path, pattern: &str| -> Vec<String> {
        [
            "--name=p",
            "--rw=write",
            "--bs=64k",
            "--size=1m",
            pattern,
            &format!("--filename={}", file.display()),
        ]
        .map(String::from)
        .to_vec()
    };
    json_of(
        "fio",
        dir.path(),
        "fio",
        &job(&theirs, "--buffer_pattern=0xaa555aa5"),
    );
    let kept_in = dir.path().join("kept");
    std::fs::create_dir(&kept_in).unwrap();
    succeed(
        iolab()
            .args(["run", "--op", "write", "--size", "1m", "--keep", "--dir"])
            .arg(&kept_in),
    );
    let ours = kept_in.join(&entries(&kept_in)[0]);
    let answer = json_of(
        "iolab",
        dir.path(),
        "iolab",
        &job(&ours, "--buffer_pattern=0xaa555aa5"),
    );
    assert_eq!(answer["jobs"][0]["write"]["io_bytes"], 1 << 20);
    let (fios, mine) = (
        std::fs::read(&theirs).unwrap(),
        std::fs::read(&ours).unwrap(),
    );
    assert_eq!(fios.len(), 1 << 20);
    assert!(fios == mine, "the files differ");
    assert_eq!(&mine[..4], &[0xaa, 0x55, 0x5a, 0xa5]);

    let results = dir.path().join("iolab-results");
    std::fs::remove_dir_all(&results).unwrap();
    json_of(
        "iolab",
        dir.path(),
        "verified",
        &job(&ours, "--verify_pattern=0xdeadbeef"),
    );
    let result = entries(&results)
        .into_iter()
        .find(|name| name.ends_with(".json"))
        .unwrap();
    let result = read_result(&results.join(result));
    let point = first_point(&result);
    assert_eq!(point["workload"]["data"], "pattern:0xdeadbeef");
    let verified = &point["repetitions"][0]["verify"];
    assert_eq!(verified["blocks"], 16, "{verified}");
    assert_eq!(verified["bad_blocks"], 0, "{verified}");
    let block = std::fs::read(&ours).unwrap();
    assert_eq!(&block[..8], b"IOLABVF1");
    assert_eq!(&block[56..60], &[0xde, 0xad, 0xbe, 0xef]);
}

/// fio's normal output (no `--output-format`): each line of iolab's is one
/// fio prints for the same command line (by its words before the
/// figures), the lines scripts read are there, and the bytes and I/Os
/// moved read the same (`io=8192KiB (8389kB)`, `total=0,128,0,0`).
#[test]
fn the_normal_output_has_fios_lines_and_figures() {
    if !have("fio") {
        return;
    }
    let dir = scratch();
    let file = dir.path().join("data");
    let normal = |program: &str| -> String {
        let mut command = fio_command(program);
        command
            .current_dir(dir.path())
            .args(["--name=w", "--rw=write", "--bs=64k", "--size=8m"])
            .arg(format!("--filename={}", file.display()));
        let output = succeed(&mut command);
        let _ = std::fs::remove_file(&file);
        String::from_utf8(output.stdout).unwrap()
    };
    // A line's kind: its words up to the first figure (fio's `Starting 1
    // process` and iolab's `Starting 1 thread`, as fio's `thread` says, alike).
    let kind = |line: &str| -> String {
        line.split(|c: char| matches!(c, '=' | ':' | '(') || c.is_ascii_digit())
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    };
    let fios = normal("fio");
    let ours = normal("iolab");
    let known: Vec<String> = fios.lines().map(kind).collect();
    for line in ours.lines().filter(|l| !l.trim().is_empty()) {
        if line.starts_with("iolab-") {
            continue; // fio's version line: iolab names itself
        }
        assert!(
            known.contains(&kind(line)),
            "{line:?} is no line fio prints:\n{fios}\n---\n{ours}"
        );
    }
    for words in [
        "  write: IOPS=",
        "    clat (",
        "    clat percentiles (",
        "  cpu          : usr=",
        "     issued rwts: total=0,128,0,0 short=0,0,0,0 dropped=0,0,0,0",
        "Run status group 0 (all jobs):",
        "io=8192KiB (8389kB), run=",
    ] {
        assert!(fios.contains(words), "fio: {words:?}\n{fios}");
        assert!(ours.contains(words), "iolab: {words:?}\n{ours}");
    }
}

/// fio's terse lines (`--minimal`, version 3) for the same command line:
/// iolab's has fio's fields in fio's places (its 121 before the disk's
/// nine, which fio adds where it has disk stats), the same KiB moved, and
/// the same percentile labels.
#[test]
fn minimal_writes_fios_terse_fields_in_fios_places() {
    if !have("fio") {
        return;
    }
    let dir = scratch();
    let file = dir.path().join("data");
    let terse = |program: &str| -> Vec<String> {
        let mut command = fio_command(program);
        command
            .current_dir(dir.path())
            .args([
                "--minimal",
                "--name=w",
                "--rw=write",
                "--bs=64k",
                "--size=8m",
            ])
            .arg(format!("--filename={}", file.display()));
        let output = succeed(&mut command);
        let _ = std::fs::remove_file(&file);
        let text = String::from_utf8(output.stdout).unwrap();
        assert_eq!(text.lines().count(), 1, "{program}: {text}");
        text.trim_end().split(';').map(String::from).collect()
    };
    let fios = terse("fio");
    let ours = terse("iolab");
    assert!(matches!(fios.len(), 121 | 130), "{fios:?}");
    assert_eq!(ours.len(), 121, "{ours:?}");
    assert_eq!((&ours[0], &ours[2]), (&fios[0], &fios[2]));
    // Write KiB (field 47), and the read direction's nothing (field 6).
    assert_eq!(ours[46], "8192");
    assert_eq!((&ours[46], &ours[5]), (&fios[46], &fios[5]));
    for field in (17..37).chain(58..78) {
        let label = |f: &str| f.split('=').next().unwrap().to_string();
        assert_eq!(
            label(&ours[field]),
            label(&fios[field]),
            "field {}",
            field + 1
        );
    }
    assert!(ours[49].parse::<u64>().unwrap() > 0, "write runtime");
}

/// fio's bandwidth and IOPS samples for the same time-based command line:
/// fio's normal output and iolab's both end a direction with the `bw (…)`
/// and `iops :` lines; iolab's JSON has one sample per whole second of its
/// series (fio's per 500 ms, its bwavgtime: written in docs), each figure
/// within the samples' range, and its terse line fills the bandwidth
/// fields fio fills (min, max, mean, deviation).
#[test]
fn bandwidth_and_iops_samples_are_fios_lines_and_fields() {
    if !have("fio") {
        crate::skip!("fio is not installed (scripts/test installs it)");
        return;
    }
    let dir = scratch();
    let file = dir.path().join("data");
    let run = |program: &str, format: &str| -> String {
        let mut command = fio_command(program);
        command
            .current_dir(dir.path())
            .args([
                "--name=r",
                "--rw=read",
                "--bs=64k",
                "--size=16m",
                "--time_based",
                "--runtime=2500ms",
                format,
            ])
            .arg(format!("--filename={}", file.display()));
        let output = succeed(&mut command);
        let _ = std::fs::remove_file(&file);
        String::from_utf8(output.stdout).unwrap()
    };
    for program in ["fio", "iolab"] {
        let normal = run(program, "--output-format=normal");
        assert!(
            normal.contains("   bw (") && normal.contains("   iops        : min="),
            "{program}:\n{normal}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&run("iolab", "--output-format=json")).unwrap();
    let read = &json["jobs"][0]["read"];
    assert_eq!(read["bw_samples"], 2, "{read}");
    assert_eq!(read["iops_samples"], 2, "{read}");
    let figure = |key: &str| read[key].as_f64().unwrap();
    assert!(figure("bw_min") <= figure("bw_mean") && figure("bw_mean") <= figure("bw_max"));
    assert!(figure("iops_min") <= figure("iops_mean") && figure("iops_mean") <= figure("iops_max"));
    // 64 KiB I/Os: a sample's IOPS are its KiB/s over 64.
    assert!((figure("bw_mean") / 64.0 - figure("iops_mean")).abs() < 1e-6 * figure("iops_mean"));
    let terse = run("iolab", "--minimal");
    let fields: Vec<&str> = terse.trim_end().split(';').collect();
    // Read's bandwidth samples: fields 42–46 (min, max, share, mean, dev).
    assert!(fields[41].parse::<u64>().unwrap() > 0, "{terse}");
    assert!(fields[42].parse::<u64>().unwrap() >= fields[41].parse::<u64>().unwrap());
    assert_eq!(fields[43], "", "iolab makes no group aggregate: {terse}");
    assert!(fields[44].parse::<f64>().unwrap() > 0.0, "{terse}");
}

/// fio's libaio asks the kernel for at most `iodepth_batch_complete_max`
/// completions per `io_getevents` (1 by default): at depth 16, one submit
/// and one reap per I/O, as strace counts them. iolab's `iolab fio` makes
/// the same calls (it took every completion the kernel had, one reap for
/// about 11 I/Os at depth 64, and handled one per pass); with
/// `--iodepth_batch_complete_max=8` both reap fewer times than they
/// submit.
#[test]
fn libaio_reaps_as_many_completions_per_call_as_fio() {
    if !have("strace") || !have("fio") {
        crate::skip!("strace or fio is not installed (scripts/test installs them)");
        return;
    }
    let dir = scratch();
    if !direct_io_works(dir.path()) {
        return;
    }
    let calls = |program: &str, extra: &[&str]| -> (usize, usize, u64) {
        let trace = dir.path().join(format!("{program}.strace"));
        let output = dir.path().join(format!("{program}.json"));
        let _ = std::fs::remove_file(&output);
        let mut command = traced(program, "io_submit,io_getevents", &trace);
        command
            .current_dir(dir.path())
            .args([
                "--name=aio",
                "--ioengine=libaio",
                "--iodepth=16",
                "--rw=randread",
                "--bs=4k",
                "--size=4m",
                "--direct=1",
                "--output-format=json",
            ])
            .args(extra)
            .arg(format!("--filename={}", dir.path().join("data").display()))
            .arg(format!("--output={}", output.display()));
        succeed(&mut command);
        let log = std::fs::read_to_string(&trace).unwrap();
        let count = |call: &str| log.lines().filter(|l| l.contains(call)).count();
        let json: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
        let ios = json["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
        (count("io_submit("), count("io_getevents("), ios)
    };
    // iolab first: the file it lays out is read by fio after it.
    let ours = calls("iolab", &[]);
    let theirs = calls("fio", &[]);
    for (tool, (submits, reaps, ios)) in [("fio", theirs), ("iolab", ours)] {
        assert_eq!(ios, 1024, "{tool}");
        // One of each per I/O, give or take the queue's fill and drain.
        assert!(
            submits as u64 >= ios && reaps as u64 >= ios - 16,
            "{tool}: {submits} io_submit and {reaps} io_getevents for {ios} I/Os"
        );
    }
    let (_, batched, ios) = calls("iolab", &["--iodepth_batch_complete_max=8"]);
    assert!(
        (batched as u64) < ios,
        "{batched} io_getevents for {ios} I/Os"
    );
}
