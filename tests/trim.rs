//! Trims (`--op trim`, `trim` in a mix): holes punched in a file, discards on
//! a loop device only with `--destroy-data`, engines that cannot trim
//! refused, and fio's `randtrim` imported.

use crate::fast::import::{fio_available, fio_json, imported_workload};
use crate::mounts::{LoopDevice, SshfsMount};
use crate::util::*;
use std::os::unix::fs::MetadataExt;

/// Whether `path`'s file system can punch holes (tmpfs, ext4, xfs can).
fn punches_holes(path: &std::path::Path) -> bool {
    let probe = path.join("hole-probe");
    std::fs::write(&probe, vec![1u8; 65536]).unwrap();
    let punched = std::process::Command::new("fallocate")
        .args(["--punch-hole", "--offset", "0", "--length", "4096"])
        .arg(&probe)
        .status()
        .is_ok_and(|s| s.success());
    std::fs::remove_file(&probe).unwrap();
    if !punched {
        crate::not_here!("{} cannot punch holes", path.display());
    }
    punched
}

/// Every engine that trims, blocking and queued: io_uring queues its
/// trims (IORING_OP_FALLOCATE), libaio trims at once beside its queue.
const TRIMMING_ENGINES: [&[&str]; 3] = [
    &["--engine", "psync"],
    &["--engine", "uring", "--iodepth", "8"],
    &["--engine", "libaio", "--iodepth", "8"],
];

#[test]
fn a_trim_punches_every_block_and_keeps_the_files_length() {
    let dir = scratch();
    if !punches_holes(dir.path()) {
        return;
    }
    for engine in TRIMMING_ENGINES {
        let out = scratch();
        let (file, _) = write_and_keep(dir.path(), &["--bs", "1m", "--size", "16m", "--fsync-end"]);
        let before = std::fs::metadata(&file).unwrap().blocks();
        let mut args = vec![
            "run",
            "--op",
            "trim",
            "--pattern",
            "random",
            "--bs",
            "64k",
            "--file",
            file.to_str().unwrap(),
        ];
        args.extend_from_slice(engine);
        let result = run_ok(&args, out.path());
        let point = first_point(&result);
        assert_eq!(point["workload"]["op"], "trim", "{engine:?}");
        let repetition = &point["repetitions"][0];
        assert_eq!(
            (repetition["ops"].as_u64(), repetition["bytes"].as_u64()),
            (Some(256), Some(16 << 20)),
            "{engine:?}"
        );
        assert_eq!(
            repetition["latency_ns"]["count"].as_u64(),
            Some(256),
            "{engine:?}: every trim timed"
        );
        assert!(
            !check_codes(point).contains(&"writeback-pending".to_string()),
            "a trim leaves no buffered data"
        );
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(meta.len(), 16 << 20, "the length is kept");
        assert!(
            meta.blocks() * 512 < 1 << 20,
            "{engine:?}: {} of {before} blocks left",
            meta.blocks()
        );
        let data = std::fs::read(&file).unwrap();
        assert!(data.iter().all(|&b| b == 0), "a hole reads as zeros");
        std::fs::remove_file(&file).unwrap();
    }
}

#[test]
fn a_mix_with_trims_keeps_the_trims_apart() {
    let dir = scratch();
    if !punches_holes(dir.path()) {
        return;
    }
    for engine in TRIMMING_ENGINES {
        let out = scratch();
        let mut args = vec![
            "run",
            "--mix",
            "read=60,write=30,trim=10",
            "--pattern",
            "random",
            "--size",
            "16m",
            "--dir",
            dir.path().to_str().unwrap(),
        ];
        args.extend_from_slice(engine);
        let result = run_ok(&args, out.path());
        let point = first_point(&result);
        assert_eq!(point["workload"]["mix"], "read=60,write=30,trim=10");
        let repetition = &point["repetitions"][0];
        let shares = repetition["directions"].as_array().unwrap();
        let names: Vec<&str> = shares
            .iter()
            .map(|s| s["direction"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["read", "write", "trim"], "{engine:?}");
        let n = repetition["ops"].as_u64().unwrap();
        let trims = shares[2]["ops"].as_u64().unwrap();
        let sd = (n as f64 * 0.1 * 0.9).sqrt();
        assert!(
            (trims as f64 - 0.1 * n as f64).abs() < 5.0 * sd,
            "{engine:?}: {trims} trims of {n}"
        );
        assert_eq!(shares[2]["latency_ns"]["count"], shares[2]["ops"]);
        let summary = &point["summary"]["directions"];
        assert_eq!(summary.as_array().unwrap().len(), 3, "{summary}");
        let compared = succeed(
            iolab()
                .args(["compare", "--format", "json", "--metric", "trim.iops"])
                .arg(out.path().join("result-0.json"))
                .arg(out.path().join("result-0.json")),
        );
        let comparison: serde_json::Value = serde_json::from_slice(&compared.stdout).unwrap();
        let matched = &comparison["pairings"][0]["matched"][0];
        let trim_iops = summary[2]["iops"]["mean"].as_f64().unwrap();
        assert_eq!(
            matched["base"]["mean"].as_f64(),
            Some(trim_iops),
            "{comparison}"
        );
    }
}

#[test]
fn engines_that_cannot_trim_and_trims_with_verify_are_refused() {
    let dir = scratch();
    for (args, named) in [
        (
            vec!["--op", "trim", "--engine", "stdio"],
            "engine stdio cannot",
        ),
        (
            vec!["--mix", "read=90,trim=10", "--engine", "mmap"],
            "engine mmap cannot",
        ),
        (vec!["--op", "trim", "--verify"], "--verify with trims"),
        (vec!["--mix", "trim=100"], "--op trim"),
    ] {
        run_refused(dir.path(), &args, named);
    }
    assert!(entries(dir.path()).is_empty(), "a refusal creates nothing");
}

#[test]
fn a_loop_device_is_discarded_only_with_consent_and_only_in_its_region() {
    const FILL: u8 = 0xab;
    for engine in TRIMMING_ENGINES {
        let temp = scratch();
        let Some(device) = LoopDevice::or_skip(temp.path(), 32, FILL, false) else {
            return;
        };
        let dev = device.path();
        let refused = iolab()
            .args(["run", "--op", "trim", "--file", dev])
            .args(engine)
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(2), "{refused:?}");
        assert!(String::from_utf8_lossy(&refused.stderr).contains("--destroy-data"));
        let allocated = std::fs::metadata(device.image()).unwrap().blocks();

        let out = scratch();
        let mut args = vec![
            "run",
            "--op",
            "trim",
            "--file",
            dev,
            "--destroy-data",
            dev,
            "--bs",
            "1m",
            "--size",
            "8m",
            "--pattern",
            "random",
        ];
        // io_uring discards through BLOCK_URING_CMD_DISCARD, libaio and
        // psync through BLKDISCARD.
        args.extend_from_slice(engine);
        let result = run_ok(&args, out.path());
        let repetition = &first_point(&result)["repetitions"][0];
        assert_eq!(repetition["bytes"], 8 << 20, "{engine:?}");
        // The loop driver passes discards to its backing file as punched holes.
        let image = std::fs::read(device.image()).unwrap();
        assert!(
            image[..8 << 20].iter().all(|&b| b == 0),
            "{engine:?}: the region reads as zeros"
        );
        assert!(
            image[8 << 20..].iter().all(|&b| b == FILL),
            "{engine:?}: nothing past it changed"
        );
        let left = std::fs::metadata(device.image()).unwrap().blocks();
        assert!(
            left < allocated,
            "{engine:?}: {left} blocks of the image allocated, {allocated} before"
        );
    }
}

/// fio 3.33 trims block devices only (its psync trim is `BLKDISCARD`,
/// refused on a file with ENOTTY): its output comes from a loop device.
#[test]
fn fios_randtrim_imports_as_a_trim() {
    let out = scratch();
    if !fio_available() {
        return;
    }
    let Some(device) = LoopDevice::or_skip(out.path(), 16, 7, false) else {
        return;
    };
    let fio_output = fio_json(
        out.path(),
        "trims",
        &[
            "--rw=randtrim",
            "--bs=4k,4k,64k",
            "--size=8m",
            "--ioengine=psync",
            &format!("--filename={}", device.path()),
        ],
    );
    let workload = imported_workload(&fio_output, out.path());
    assert_eq!(workload["op"], "trim", "{workload}");
    assert_eq!(workload["pattern"], "random");
    assert_eq!(workload["bs"], 65536, "the third bs= value is the trims'");
}

/// A trim leaves holes: a read after it in a sweep lays the file out again
/// rather than timing reads of holes (the device shows the read).
#[test]
fn a_read_after_a_trim_reads_a_file_laid_out_again() {
    let dir = scratch();
    let out = scratch();
    if !punches_holes(dir.path()) {
        return;
    }
    let sweep = out.path().join("sweep.json");
    succeed(
        iolab()
            .args(["sweep", "--op", "trim,read", "--size", "16m", "--bs", "64k"])
            .args(["--pattern", "random", "--no-report", "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&sweep),
    );
    let result = read_result(&sweep);
    let read = &result["points"][1];
    assert_eq!(read["workload"]["op"], "read");
    let devices = read["repetitions"][0]["activity"]["devices"].as_array();
    let Some(device_read) = devices
        .and_then(|d| d.first())
        .and_then(|d| d["read_bytes"].as_u64())
    else {
        crate::not_here!("no block device under {}", dir.path().display());
        return;
    };
    assert!(
        device_read >= 8 << 20,
        "the cold read came from the device: {device_read} bytes"
    );
}

/// Trims where holes cannot be punched — sshfs, a FUSE file system without
/// fallocate — are refused before any I/O, for every engine that trims,
/// naming the file and why, and leave nothing behind.
#[test]
fn trims_where_holes_cannot_be_punched_are_refused_before_any_io() {
    let temp = scratch();
    let Some(mount) = SshfsMount::or_skip(temp.path()) else {
        return;
    };
    for engine in TRIMMING_ENGINES {
        let mut args = vec!["--op", "trim", "--size", "4m"];
        args.extend_from_slice(engine);
        let stderr = run_refused(mount.path(), &args, "cannot punch holes");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
        assert!(stderr.contains("iolab-"), "names the file: {stderr}");
        let mixed = ["--mix", "read=90,trim=10", "--size", "4m"];
        run_refused(mount.path(), &mixed, "cannot punch holes");
    }
    assert!(entries(mount.path()).is_empty(), "nothing is left");
}

/// The discards (`BLKDISCARD`) and writes (`pwrite64`) strace logged, in
/// order: (is a write, offset, length).
fn discards_and_writes(log: &std::path::Path) -> Vec<(bool, u64, u64)> {
    let numbers = |text: &str| -> Vec<u64> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter(|n| !n.is_empty())
            .filter_map(|n| n.parse().ok())
            .collect()
    };
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|line| line.ends_with(" = 0") || line.contains("pwrite64("))
        .filter_map(|line| {
            if let Some((_, rest)) = line.split_once("BLKDISCARD, [") {
                let n = numbers(rest.split(']').next()?);
                return Some((false, n[0], n[1]));
            }
            // `pwrite64(FD, "data"..., LENGTH, OFFSET) = MOVED`
            let (call, _) = line.split_once("pwrite64(")?.1.rsplit_once(") =")?;
            let mut last = call.rsplitn(3, ", ");
            let offset = last.next()?.parse().ok()?;
            let length = last.next()?.parse().ok()?;
            Some((true, offset, length))
        })
        .collect()
}

/// fio's `trimwrite` and `randtrimwrite` as typed: each range trimmed and
/// then written, the write on the trim's range — strace sees each discard
/// followed by the write of its range, every block of the size once, as
/// in fio — and fio's counts per direction, on psync and libaio at depth 4.
#[test]
fn fios_trimwrite_trims_each_range_then_writes_it() {
    let dir = scratch();
    if !crate::fast::import::fio_available() || !crate::mounts::have("strace") {
        return;
    }
    let Some(device) = LoopDevice::or_skip(dir.path(), 8, 7, false) else {
        return;
    };
    let dev = device.path();
    for rw in ["trimwrite", "randtrimwrite"] {
        for engine in [
            &["--ioengine=psync"][..],
            &["--ioengine=libaio", "--iodepth=4"],
        ] {
            let mut words: Vec<String> = [
                "--name=tw",
                &format!("--rw={rw}"),
                "--bs=64k",
                "--size=1m",
                "--direct=1",
                &format!("--filename={dev}"),
            ]
            .iter()
            .map(|w| w.to_string())
            .collect();
            words.extend(engine.iter().map(|w| w.to_string()));
            let name = format!("{rw}-{}", engine.len());
            let fio = crate::fast::fio_command_line::json_of(
                "fio",
                dir.path(),
                &format!("fio-{name}"),
                &words,
            );
            let mut consented = vec!["--destroy-data".to_string(), dev.to_string()];
            consented.extend(words.clone());
            let ours = crate::fast::fio_command_line::json_of(
                "iolab",
                dir.path(),
                &format!("iolab-{name}"),
                &consented,
            );
            for direction in ["read", "write", "trim"] {
                let figures = |document: &serde_json::Value| {
                    let job = &document["jobs"][0][direction];
                    (job["total_ios"].as_u64(), job["io_bytes"].as_u64())
                };
                assert_eq!(figures(&ours), figures(&fio), "{rw} {engine:?} {direction}");
            }
            assert_eq!(ours["jobs"][0]["trim"]["total_ios"], 16, "{rw} {engine:?}");
            assert_eq!(ours["jobs"][0]["job options"]["rw"], rw);
            if engine.len() > 1 {
                continue;
            }
            // psync: each call in the order issued.
            for program in ["fio", "iolab"] {
                let log = dir.path().join(format!("{program}.strace"));
                let mut command = assert_cmd::Command::new("strace");
                command
                    .current_dir(dir.path())
                    .args(["-f", "-e", "trace=ioctl,pwrite64", "-o"])
                    .arg(&log);
                match program {
                    "iolab" => command.arg(env!("CARGO_BIN_EXE_iolab")).args([
                        "fio",
                        "--destroy-data",
                        dev,
                    ]),
                    _ => command.arg("fio"),
                };
                command
                    .args(&words)
                    .args(["--output-format=json", "--output=/dev/null"]);
                succeed(&mut command);
                let calls = discards_and_writes(&log);
                assert_eq!(calls.len(), 32, "{program} {rw}: {calls:?}");
                let mut trimmed = Vec::new();
                for pair in calls.chunks(2) {
                    let [(false, at, len), (true, written, wrote)] = pair else {
                        panic!("{program} {rw}: not a discard then a write: {pair:?}");
                    };
                    assert_eq!((at, len), (written, wrote), "{program} {rw}");
                    trimmed.push(*at);
                }
                trimmed.sort_unstable();
                let every: Vec<u64> = (0..16).map(|b| b * 65536).collect();
                assert_eq!(trimmed, every, "{program} {rw}: every block once");
            }
        }
    }
}
