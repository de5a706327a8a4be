//! Zoned block devices as fio emulates them (`--zbd`, fio's `zonemode=zbd`
//! on a device that is not zoned), on a loop device: each job file run by
//! fio 3.33 and by `iolab fio`, their counts, write pointers and reads
//! compared through their JSON and strace.

use crate::fast::import::fio_available;
use crate::mounts::{LoopDevice, have};
use crate::util::*;
use serde_json::Value;
use std::path::Path;

const BLOCK: u64 = 256 << 10;
const ZONE: u64 = 1 << 20;

/// `fio`, or `iolab fio` with consent to write `device`, on `job`, under
/// strace: its JSON and the (call, offset, length) of its preads, pwrites
/// and discards, in order.
fn traced_run(
    program: &str,
    job: &Path,
    device: &str,
    dir: &Path,
) -> (Value, Vec<(String, u64, u64)>) {
    let log = dir.join(format!("{program}.strace"));
    let output = dir.join(format!("{program}.json"));
    let _ = std::fs::remove_file(&output);
    let mut command = assert_cmd::Command::new("strace");
    command
        .current_dir(dir)
        .args(["-f", "-e", "trace=pread64,pwrite64,ioctl", "-o"])
        .arg(&log);
    match program {
        "iolab" => command
            .arg(env!("CARGO_BIN_EXE_iolab"))
            .args(["fio", "--destroy-data", device]),
        _ => command.arg("fio"),
    };
    command
        .arg(job)
        .arg("--output-format=json")
        .arg(format!("--output={}", output.display()));
    succeed(&mut command);
    let calls = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|line| {
            if line.contains("BLKDISCARD") {
                return Some(("discard".to_string(), 0, 0));
            }
            let call = ["pread64", "pwrite64"]
                .into_iter()
                .find(|c| line.contains(&format!("{c}(")))?;
            let (args, _) = line.split_once(&format!("{call}("))?.1.rsplit_once(") =")?;
            let mut last = args.rsplitn(3, ", ");
            let offset = last.next()?.parse().ok()?;
            let length = last.next()?.parse().ok()?;
            // fio reads its own files with read(2); a pread of the device is a job's.
            Some((call.to_string(), offset, length))
        })
        .collect();
    let json = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    (json, calls)
}

/// Per job of fio's JSON: (name, reads, writes, trims), each (I/Os, bytes).
fn per_job(document: &Value) -> Vec<(String, [(u64, u64); 3])> {
    document["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| {
            let figures = |d: &str| {
                (
                    job[d]["total_ios"].as_u64().unwrap(),
                    job[d]["io_bytes"].as_u64().unwrap(),
                )
            };
            (
                job["jobname"].as_str().unwrap().to_string(),
                [figures("read"), figures("write"), figures("trim")],
            )
        })
        .collect()
}

/// Every write at its zone's write pointer: each zone's writes follow one
/// another from its start, a write at the start again being a reset; and
/// at most `open` zones started and not yet full at any time.
fn check_pointers(program: &str, calls: &[(String, u64, u64)], open: usize) {
    let mut pointer = std::collections::HashMap::new();
    for (call, offset, length) in calls.iter().filter(|(c, _, _)| c == "pwrite64") {
        let zone = offset / ZONE;
        let at = pointer.entry(zone).or_insert(0);
        assert!(
            *offset == zone * ZONE + *at || offset % ZONE == 0,
            "{program}: {call} at {offset} in zone {zone}, whose pointer is at {at}"
        );
        *at = offset % ZONE + length;
        let started = pointer.values().filter(|&&p| p > 0 && p < ZONE).count();
        assert!(started <= open, "{program}: {started} zones open at once");
    }
}

/// A writer limited to 4 open zones, then (stonewall) a random reader of
/// the whole device: the same counts as fio, every write at its zone's
/// pointer, 4 zones at most open at once, and the reads only where the
/// writes went — the same offsets fio reads (fio's formula never reads a
/// zone's last block, iolab's neither).
#[test]
fn writes_go_to_the_zones_pointers_and_reads_stay_below_them_as_in_fio() {
    let dir = scratch();
    if !fio_available() || !have("strace") {
        return;
    }
    let Some(device) = LoopDevice::or_skip(dir.path(), 64, 0, false) else {
        return;
    };
    let dev = device.path();
    let job = dir.path().join("zones.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nzonemode=zbd\nzonesize=1M\ndirect=1\nbs=256k\nioengine=psync\nfilename={dev}\n\
             [w]\nrw=randwrite\nmax_open_zones=4\nsize=4z\n\
             [r]\nstonewall\nrw=randread\n"
        ),
    )
    .unwrap();
    let (fio, fio_calls) = traced_run("fio", &job, dev, dir.path());
    let (ours, our_calls) = traced_run("iolab", &job, dev, dir.path());
    assert_eq!(per_job(&ours), per_job(&fio));
    assert_eq!(per_job(&ours)[0].1[1], (16, 16 * BLOCK), "4 zones written");
    for (program, calls) in [("fio", &fio_calls), ("iolab", &our_calls)] {
        check_pointers(program, calls, 4);
    }
    let read_at = |calls: &[(String, u64, u64)]| -> std::collections::BTreeSet<u64> {
        calls
            .iter()
            .filter(|(c, _, l)| c == "pread64" && *l == BLOCK)
            .map(|(_, o, _)| *o)
            .collect()
    };
    let ours_read = read_at(&our_calls);
    assert!(ours_read.iter().all(|&o| o < 4 * ZONE), "{ours_read:?}");
    assert_eq!(ours_read, read_at(&fio_calls));
}

/// A trim in zoned mode resets its zone (bs the zone size): no discard
/// reaches the device, in fio as in iolab, and each trim finds a written
/// zone; the writer's zones reset when full (no open-zone limit).
#[test]
fn a_trim_resets_a_zone_without_a_discard_as_in_fio() {
    let dir = scratch();
    if !fio_available() || !have("strace") {
        return;
    }
    let Some(device) = LoopDevice::or_skip(dir.path(), 64, 0, false) else {
        return;
    };
    let dev = device.path();
    let job = dir.path().join("gc.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nzonemode=zbd\nzonesize=1M\ndirect=1\nioengine=psync\nfilename={dev}\noffset=8z\nsize=8z\n\
             [w]\nrw=randwrite\nbs=256k\n\
             [gc]\nstonewall\nrw=randtrim\nbs=1M\n"
        ),
    )
    .unwrap();
    let (fio, fio_calls) = traced_run("fio", &job, dev, dir.path());
    let (ours, our_calls) = traced_run("iolab", &job, dev, dir.path());
    assert_eq!(per_job(&ours), per_job(&fio));
    assert_eq!(per_job(&ours)[1].1[2], (8, 8 * ZONE), "8 zones reset");
    let resets = |document: &Value| -> Vec<Value> {
        document["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|job| job["zone_resets"].clone())
            .collect()
    };
    // Each trim reset a written zone; the writer filled each of its zones
    // once (32 writes of 256 KiB over 8 zones) and reset none. fio writes
    // `zone_resets` from a later version than this one (3.33 writes none):
    // where it does, the counts are the same.
    assert_eq!(resets(&ours), [0, 8]);
    if resets(&fio).iter().any(|r| !r.is_null()) {
        assert_eq!(resets(&ours), resets(&fio));
    }
    for (program, calls) in [("fio", &fio_calls), ("iolab", &our_calls)] {
        assert!(!calls.iter().any(|(c, _, _)| c == "discard"), "{program}");
        assert!(
            calls
                .iter()
                .filter(|(c, _, _)| c == "pwrite64")
                .all(|(_, o, _)| (8 * ZONE..16 * ZONE).contains(o)),
            "{program}: writes in the job's zones"
        );
        check_pointers(program, calls, 8);
    }
}
