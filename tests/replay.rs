//! `iolab replay` and `iolab characterize`: traces fio and blktrace recorded here and ones in MSR's format replay with every I/O counted and their fidelity recorded; bad traces are refused before anything is created.

use crate::lab::NetLab;
use crate::util::{entries, iolab, scratch};
use serde_json::Value;
use std::path::Path;

/// Replays `trace` with `extra` flags: its record parsed, and what it printed.
fn replayed(trace: &Path, extra: &[&str], out: &Path) -> (Value, String) {
    let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"));
    command.current_dir(crate::util::working_dir());
    replayed_by(command, trace, extra, out)
}

/// As [`replayed`], inside `lab`'s namespace (its servers' addresses).
fn replayed_in(lab: &NetLab, trace: &Path, extra: &[&str], out: &Path) -> (Value, String) {
    let mut command = lab.command(env!("CARGO_BIN_EXE_iolab"));
    command.current_dir(crate::util::working_dir());
    replayed_by(command, trace, extra, out)
}

/// `command` (iolab, however started) replaying `trace` with `extra` flags.
fn replayed_by(
    mut command: std::process::Command,
    trace: &Path,
    extra: &[&str],
    out: &Path,
) -> (Value, String) {
    let record = out.join(format!("replay-{}.json", entries(out).len()));
    let output = command
        .arg("replay")
        .arg(trace)
        .args(extra)
        .arg("-o")
        .arg(&record)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    crate::util::validate_against(&value, "iolab.replay-1.schema.json");
    (value, String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Each kind's (replayed I/Os, bytes) as counted, after checking that they
/// equal the trace's.
fn exact_counts(record: &Value) -> Vec<(String, u64, u64)> {
    record["fidelity"]["counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(c["replay_ios"], c["trace_ios"], "{c}");
            assert_eq!(c["replay_bytes"], c["trace_bytes"], "{c}");
            (
                c["kind"].as_str().unwrap().to_string(),
                c["replay_ios"].as_u64().unwrap(),
                c["replay_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Without `-o` a replay keeps its record in `iolab-results/`, as `run`
/// keeps its result, and its last line names it (it kept nothing before).
#[test]
fn a_replay_without_output_keeps_its_record_and_names_it() {
    let (work, dir) = (scratch(), scratch());
    let trace = work.path().join("t.iolog");
    std::fs::write(
        &trace,
        "fio version 3 iolog\n0 f add\n0 f open\n0 f write 0 4096\n100 f read 0 4096\n200 f close\n",
    )
    .unwrap();
    let output = iolab()
        .current_dir(work.path())
        .arg("replay")
        .arg(&trace)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{output:?}");
    let kept = stdout
        .lines()
        .last()
        .and_then(|line| line.strip_prefix("results: "))
        .unwrap_or_else(|| panic!("the record named last: {stdout}"));
    assert!(kept.starts_with("iolab-results/replay-"), "{kept}");
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(work.path().join(kept)).unwrap()).unwrap();
    crate::util::validate_against(&record, "iolab.replay-1.schema.json");
    assert_eq!(exact_counts(&record).len(), 2);
}

/// An iolog fio 3.33 wrote (version 3, µs timestamps) of a paced random
/// read/write job: iolab replays each I/O, exactly as many per direction as
/// fio's own `read_iolog` replay of the same log, onto a file it creates
/// and removes; the record holds the fidelity. A job file naming the log
/// in `read_iolog` runs as a trace point with the same counts.
#[test]
fn an_iolog_fio_wrote_replays_as_fios_own_replay_does() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let data = work.path().join("data");
    let log = work.path().join("job.iolog");
    let recorded = std::process::Command::new("fio")
        .args([
            "--name=t",
            "--size=2m",
            "--bs=16k",
            "--rw=randrw",
            "--thinktime=1ms",
            "--output=/dev/null",
        ])
        .arg(format!("--filename={}", data.display()))
        .arg(format!("--write_iolog={}", log.display()))
        .output()
        .unwrap();
    assert!(
        recorded.status.success(),
        "{}",
        String::from_utf8_lossy(&recorded.stderr)
    );
    let (record, stdout) = replayed(
        &log,
        &["--dir", dir.path().to_str().unwrap(), "--buffered"],
        out.path(),
    );
    assert!(stdout.contains("fidelity: "), "{stdout}");
    assert_eq!(record["format"], "iolab.replay/1");
    assert_eq!(record["trace"]["format"], "iolog-v3");
    let ours = exact_counts(&record);
    let total: u64 = ours.iter().map(|(_, n, _)| n).sum();
    assert_eq!(total, 128, "2 MiB in 16 KiB I/Os: {ours:?}");
    let fidelity = &record["fidelity"];
    assert!(fidelity["lag"]["p99_ns"].as_u64().is_some(), "{fidelity}");
    assert!(
        fidelity["intended_ns"].as_u64().unwrap() > 100_000_000,
        "paced by 1 ms thinktimes"
    );
    assert!(
        entries(dir.path()).is_empty(),
        "the created file is removed"
    );

    // fio's replay of the same log, on the file the log names.
    let replay = std::process::Command::new("fio")
        .args(["--name=r", "--output-format=json"])
        .arg(format!("--read_iolog={}", log.display()))
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    let text = String::from_utf8_lossy(&replay.stdout);
    let fio: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    for (kind, ios, bytes) in &ours {
        let job = &fio["jobs"][0][kind.as_str()];
        assert_eq!(job["total_ios"].as_u64(), Some(*ios), "{kind}");
        assert_eq!(job["io_bytes"].as_u64(), Some(*bytes), "{kind}");
    }

    // The same log as a fio job file's read_iolog: `iolab run` replays it
    // as a trace point, with fio's counts in each direction.
    let job = work.path().join("replay.fio");
    std::fs::write(&job, format!("[r]\nread_iolog={}\n", log.display())).unwrap();
    let result = crate::util::run_ok(
        &[
            "run".to_string(),
            job.display().to_string(),
            "--dir".to_string(),
            dir.path().display().to_string(),
        ],
        out.path(),
    );
    let point = &result["points"][0];
    assert_eq!(point["workload"]["trace"], log.display().to_string());
    let directions = point["repetitions"][0]["directions"].as_array().unwrap();
    for (kind, ios, bytes) in ours.iter().filter(|(_, ios, _)| *ios > 0) {
        let share = directions
            .iter()
            .find(|d| d["direction"] == kind.as_str())
            .unwrap_or_else(|| panic!("{kind} in {directions:?}"));
        assert_eq!(share["ops"].as_u64(), Some(*ios), "{kind}");
        assert_eq!(share["bytes"].as_u64(), Some(*bytes), "{kind}");
        let job = &fio["jobs"][0][kind.as_str()];
        assert_eq!(job["total_ios"].as_u64(), Some(*ios), "{kind}");
    }
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// Writes an MSR Cambridge trace: `n` I/Os `gap_ticks` apart (100 ns
/// ticks), alternating 8 KiB reads and 4 KiB writes, each answered in 50 µs.
fn msr_trace(path: &Path, n: u64, gap_ticks: u64) {
    let mut text = String::new();
    for i in 0..n {
        let (kind, size) = if i % 2 == 0 {
            ("Read", 8192)
        } else {
            ("Write", 4096)
        };
        text.push_str(&format!(
            "{},hm,1,{kind},{},{size},500\n",
            128_166_372_003_061_629 + i * gap_ticks,
            (i * 7919 % 256) * 8192
        ));
    }
    std::fs::write(path, text).unwrap();
}

/// An MSR trace replays through pread/pwrite and through io_uring with its
/// recorded depth beside the achieved one, every I/O counted, the time-scaled
/// replay shorter, and characterize names the workload of its shape.
#[test]
fn an_msr_trace_replays_with_its_recorded_depth_and_characterize_describes_it() {
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("hm_1.csv");
    msr_trace(&trace, 400, 5_000); // 400 I/Os, 0.5 ms apart: 0.2 s
    for engine in ["psync", "uring"] {
        let (record, _) = replayed(
            &trace,
            &[
                "--dir",
                dir.path().to_str().unwrap(),
                "--buffered",
                "--engine",
                engine,
                "--speed",
                "2",
            ],
            out.path(),
        );
        assert_eq!(record["trace"]["format"], "msr");
        let counts = exact_counts(&record);
        assert_eq!(
            counts,
            vec![
                ("read".into(), 200, 200 * 8192),
                ("write".into(), 200, 200 * 4096)
            ]
        );
        let fidelity = &record["fidelity"];
        // 50 µs responses 500 µs apart: 0.1 in flight as recorded.
        let recorded = fidelity["recorded_depth"].as_f64().unwrap();
        assert!((recorded - 0.1).abs() < 0.01, "{recorded}");
        assert_eq!(
            fidelity["intended_ns"], 99_750_000,
            "0.1995 s at twice the speed"
        );
        assert!(entries(dir.path()).is_empty());
    }
    let described = iolab().arg("characterize").arg(&trace).output().unwrap();
    let text = String::from_utf8_lossy(&described.stdout);
    assert!(
        described.status.success(),
        "{}",
        String::from_utf8_lossy(&described.stderr)
    );
    assert!(text.contains("msr trace, 400 I/Os"), "{text}");
    assert!(
        text.contains("iolab run --dir DIR --mix read=50,write=50 --bssplit 4KiB=50,8KiB=50"),
        "{text}"
    );
    assert!(text.contains("in flight 0.10"), "{text}");
}

/// The null engine replays a 100,000-I/O trace as fast as possible: every
/// I/O counted, nothing created.
#[test]
fn the_null_engine_replays_a_large_trace_with_nothing_created() {
    let (work, out) = (scratch(), scratch());
    let trace = work.path().join("big.csv");
    msr_trace(&trace, 100_000, 100);
    let (record, _) = replayed(&trace, &["--engine", "null", "--afap"], out.path());
    let counts = exact_counts(&record);
    assert_eq!(counts.iter().map(|c| c.1).sum::<u64>(), 100_000);
    // As fast as possible: no intended times, so no duration to miss; the
    // null engine completes each I/O as it is issued, so none out of order
    // and never more than one in flight.
    let fidelity = &record["fidelity"];
    assert!(fidelity["intended_ns"].is_null(), "{fidelity}");
    assert_eq!(fidelity["completions_reordered_pct"], 0.0);
    assert_eq!(fidelity["at_cap_fraction"], 0.0);
    assert!(
        fidelity["achieved_depth"].as_f64().unwrap() <= 1.0,
        "{fidelity}"
    );
    assert_eq!(record["target"]["path"], "null");
}

/// blktrace records a loop device here (where the kernel lets it: lockdown
/// forbids it on some hosts); the merged events replay with every queued
/// I/O counted.
#[test]
fn a_blktrace_recorded_on_a_loop_device_replays() {
    if !rustix::process::geteuid().is_root() {
        crate::skip!("blktrace needs root");
        return;
    }
    for tool in ["blktrace", "blkparse", "losetup"] {
        if std::process::Command::new("sh")
            .args([
                "-c",
                &format!("command -v {tool} || test -x /usr/sbin/{tool}"),
            ])
            .output()
            .map(|o| !o.status.success())
            .unwrap_or(true)
        {
            crate::skip!("{tool} is not installed (scripts/test installs blktrace)");
            return;
        }
    }
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let device = loop_device(work.path(), 32 << 20);
    let script = format!(
        "mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug; \
         cd {work} && (blktrace -d {device} -o bt -w 4 > bt.log 2>&1 &) && sleep 1 && \
         dd if=/dev/zero of={device} bs=64k count=16 oflag=direct status=none && \
         dd if={device} of=/dev/null bs=4k count=32 iflag=direct status=none; sleep 4; \
         blkparse -i bt -d merged.bin > /dev/null 2>&1; cat bt.log",
        work = work.path().display()
    );
    let traced = std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .unwrap();
    let _ = std::process::Command::new("losetup")
        .args(["-d", &device])
        .output();
    let log = String::from_utf8_lossy(&traced.stdout);
    let merged = work.path().join("merged.bin");
    if log.contains("Operation not permitted")
        || !merged.exists()
        || std::fs::metadata(&merged).unwrap().len() == 0
    {
        crate::not_here!(
            "blktrace cannot trace here (the kernel's lockdown restricts debugfs): {}",
            log.trim()
        );
        return;
    }
    let (record, _) = replayed(
        &merged,
        &["--dir", dir.path().to_str().unwrap()],
        out.path(),
    );
    assert_eq!(record["trace"]["format"], "blktrace");
    let counts = exact_counts(&record);
    let writes = counts.iter().find(|c| c.0 == "write").unwrap();
    assert_eq!(
        writes.2,
        16 << 16,
        "16 writes of 64 KiB (the block layer may split them): {counts:?}"
    );
}

/// Bad traces and targets: one line naming the file and where, exit 2,
/// nothing created.
#[test]
fn bad_traces_are_refused_in_one_line_before_anything_is_created() {
    let (work, dir) = (scratch(), scratch());
    let at = |name: &str, text: &[u8]| {
        let path = work.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let backwards = at(
        "back.csv",
        b"100,hm,1,Read,0,4096,10\n300,hm,1,Read,0,4096,10\n200,hm,1,Read,4096,4096,10\n",
    );
    let same_instant: Vec<u8> = (0..2000)
        .flat_map(|i| format!("1,hm,1,Read,{},4096,1\n", i * 4096).into_bytes())
        .collect();
    let too_fast = at("fast.csv", &same_instant);
    let garbage = at("garbage.bin", b"\x00\x01\x02 not a trace at all");
    let two_disks = at(
        "disks.csv",
        b"100,hm,1,Read,0,4096,10\n200,hm,2,Read,0,4096,10\n",
    );
    let bad_field = at("field.csv", b"100,hm,1,Read,zero,4096,10\n");
    let v3 = at(
        "v3.iolog",
        b"fio version 3 iolog\n0 /f add\n0 /f open\n0 /f write 0 4096\n10 /f read 0 4096\n5 /f read 0 4096\n",
    );
    let user_file = at("user.dat", &[7u8; 8192]);
    let reads_far = at("far.csv", b"100,hm,1,Read,1048576,4096,10\n");
    let writes = at("writes.csv", b"100,hm,1,Write,0,4096,10\n");
    let huge = at("huge.csv", b"100,hm,1,Read,0,33554432,10\n");
    let d = dir.path().to_str().unwrap();
    let u = user_file.to_str().unwrap();
    for (trace, extra, words) in [
        (
            &backwards,
            vec!["--dir", d],
            "back.csv: I/O 3 is issued at 0.00001 s, before the I/O ahead of it (0.00002 s): times go backwards",
        ),
        (&too_fast, vec!["--dir", d], "fast.csv: 2000 I/Os in 0 µs"),
        (
            &garbage,
            vec!["--dir", d],
            "garbage.bin: not a trace format iolab knows",
        ),
        (
            &two_disks,
            vec!["--dir", d],
            "disks.csv line 2: disk 2 of host hm after disk 1",
        ),
        (
            &bad_field,
            vec!["--dir", d],
            "field.csv line 1: Offset \"zero\" is not a number",
        ),
        (&v3, vec!["--dir", d], "v3.iolog: I/O 3 is issued at"),
        (
            &reads_far,
            vec!["--file", u],
            "the trace reaches byte 1052672 and the file has 8192",
        ),
        (
            &writes,
            vec!["--file", u],
            "the trace writes or trims (1 I/Os)",
        ),
        (
            &huge,
            vec!["--dir", d],
            "huge.csv: an I/O of 33554432 bytes, more than the 16777216",
        ),
        (
            &v3,
            vec!["--dir", d, "--destroy-data", "/dev/sda"],
            "--destroy-data names the device of --file or the LUN of --target",
        ),
        (
            &v3,
            vec!["--dir", d, "--engine", "nfs"],
            "--engine nfs replays onto a --target URL",
        ),
        (
            &v3,
            vec!["--target", "nfs://127.0.0.1/x", "--engine", "libaio"],
            "--engine libaio does not reach --target nfs://127.0.0.1/x: its engine is nfs",
        ),
        (
            &v3,
            vec!["--target", "smb://host/share"],
            "--target smb://host/share",
        ),
    ] {
        let output = iolab()
            .arg("replay")
            .arg(trace)
            .args(&extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{words}: {stderr}");
        assert!(stderr.contains(words), "{words}: {stderr}");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
        assert!(entries(dir.path()).is_empty(), "{words}: nothing created");
    }
    assert_eq!(
        std::fs::read(&user_file).unwrap(),
        vec![7u8; 8192],
        "the user's file untouched"
    );
}

/// Reads and writes completed, and sectors of each, in /proc/diskstats for `name`.
fn diskstats(name: &str) -> [u64; 4] {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    let fields: Vec<u64> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f[2] == name)
        .unwrap()[3..]
        .iter()
        .map(|f| f.parse().unwrap())
        .collect();
    [fields[0], fields[2], fields[4], fields[6]]
}

/// A trace replayed onto a loop device: the device's own counts
/// (/proc/diskstats) equal the trace's, for iolab and for fio's
/// `read_iolog` on the same trace; a trace that writes is refused without
/// `--destroy-data` naming the device, and with it writes exactly its I/Os.
#[test]
fn a_device_counts_the_traces_ios_for_iolab_and_for_fio() {
    if !rustix::process::geteuid().is_root() {
        crate::skip!("a loop device needs root");
        return;
    }
    if !crate::fast::import::fio_available() {
        return;
    }
    let work = scratch();
    let device = loop_device(work.path(), 16 << 20);
    let name = device.trim_start_matches("/dev/").to_string();
    let detach = scopeguard(&device);
    std::thread::sleep(std::time::Duration::from_millis(500)); // udev's probe
    let write_trace = |path: &Path, kind: &str| {
        let mut text = format!("fio version 3 iolog\n0 {device} add\n0 {device} open\n");
        for i in 0..200u64 {
            text.push_str(&format!(
                "{} {device} {kind} {} 4096\n",
                i * 100,
                (i * 7919 % 4096) * 4096
            ));
        }
        text.push_str(&format!("20000 {device} close\n"));
        std::fs::write(path, text).unwrap();
    };
    let reads = work.path().join("reads.iolog");
    write_trace(&reads, "read");
    let out = scratch();
    let before = diskstats(&name);
    let (record, _) = replayed(
        &reads,
        &["--file", &device, "--engine", "psync"],
        out.path(),
    );
    let after = diskstats(&name);
    assert_eq!(
        exact_counts(&record),
        vec![("read".into(), 200, 200 * 4096)]
    );
    assert_eq!(
        [after[0] - before[0], after[1] - before[1]],
        [200, 1600],
        "iolab: reads and sectors"
    );
    let before = diskstats(&name);
    let fio = std::process::Command::new("fio")
        .args([
            "--name=r",
            "--ioengine=psync",
            "--direct=1",
            "--output=/dev/null",
        ])
        .arg(format!("--read_iolog={}", reads.display()))
        .output()
        .unwrap();
    assert!(
        fio.status.success(),
        "{}",
        String::from_utf8_lossy(&fio.stderr)
    );
    let after = diskstats(&name);
    assert_eq!(
        [after[0] - before[0], after[1] - before[1]],
        [200, 1600],
        "fio: reads and sectors"
    );

    let writes = work.path().join("writes.iolog");
    write_trace(&writes, "write");
    let refused = iolab()
        .args(["replay"])
        .arg(&writes)
        .args(["--file", &device])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("add --destroy-data={device}")),
        "{stderr}"
    );
    let before = diskstats(&name);
    let confirm = format!("--destroy-data={device}");
    let (record, _) = replayed(&writes, &["--file", &device, &confirm], out.path());
    let after = diskstats(&name);
    assert_eq!(
        exact_counts(&record),
        vec![("write".into(), 200, 200 * 4096)]
    );
    assert_eq!(
        [after[2] - before[2], after[3] - before[3]],
        [200, 1600],
        "iolab: writes and sectors"
    );
    drop(detach);
}

/// A loop device over a sparse image of `size` bytes made in `dir`: its
/// `/dev/loopN`.
fn loop_device(dir: &Path, size: u64) -> String {
    let image = dir.join("disk.img");
    std::fs::File::create(&image)
        .unwrap()
        .set_len(size)
        .unwrap();
    let attached = std::process::Command::new("losetup")
        .args(["-f", "--show"])
        .arg(&image)
        .output()
        .unwrap();
    let device = String::from_utf8_lossy(&attached.stdout).trim().to_string();
    assert!(
        attached.status.success() && !device.is_empty(),
        "{attached:?}"
    );
    device
}

/// Detaches the loop device when dropped, whatever the test's end.
fn scopeguard(device: &str) -> impl Drop + '_ {
    struct Detach<'a>(&'a str);
    impl Drop for Detach<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("losetup")
                .args(["-d", self.0])
                .output();
        }
    }
    Detach(device)
}

/// The kernel's block tracer read through tracefs (the events blktrace
/// records, where lockdown leaves tracefs open but not debugfs) records dd
/// on a loop device; the text replays with exactly dd's I/Os.
#[test]
fn a_trace_the_kernels_blk_tracer_recorded_on_a_loop_device_replays() {
    if !rustix::process::geteuid().is_root() {
        crate::skip!("the kernel's tracer needs root");
        return;
    }
    let tracing = Path::new("/sys/kernel/tracing");
    if !tracing.join("available_tracers").exists() {
        let _ = std::process::Command::new("mount")
            .args(["-t", "tracefs", "nodev", "/sys/kernel/tracing"])
            .output();
    }
    let tracers = std::fs::read_to_string(tracing.join("available_tracers")).unwrap_or_default();
    if !tracers.split_whitespace().any(|t| t == "blk") {
        crate::not_here!("the kernel has no blk tracer in tracefs (CONFIG_BLK_DEV_IO_TRACE)");
        return;
    }
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let device = loop_device(work.path(), 16 << 20);
    let detach = scopeguard(&device);
    let name = device.trim_start_matches("/dev/");
    let trace = work.path().join("loop.trace");
    let script = format!(
        "set -e; T=/sys/kernel/tracing; echo 1 > /sys/block/{name}/trace/enable; \
         echo blk > $T/current_tracer; echo > $T/trace; \
         dd if=/dev/zero of={device} bs=64k count=16 oflag=direct status=none; \
         dd if={device} of=/dev/null bs=4k count=32 iflag=direct status=none; \
         cat $T/trace > {trace}; echo nop > $T/current_tracer; echo 0 > /sys/block/{name}/trace/enable",
        trace = trace.display()
    );
    let traced = std::process::Command::new("bash")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(
        traced.status.success(),
        "{}",
        String::from_utf8_lossy(&traced.stderr)
    );
    drop(detach);
    let (record, stdout) = replayed(&trace, &["--dir", dir.path().to_str().unwrap()], out.path());
    assert_eq!(record["trace"]["format"], "blkparse");
    // dd waits for each I/O: the device held one at most, from its own
    // dispatch and completion events.
    let depth = &record["trace"]["character"]["recorded_depth"];
    assert_eq!(depth[1], 1, "{depth}");
    let mean = depth[0].as_f64().unwrap();
    assert!(mean > 0.0 && mean <= 1.0, "{mean}");
    assert_eq!(
        exact_counts(&record),
        vec![
            ("read".into(), 32, 32 * 4096),
            ("write".into(), 16, 16 * 65536)
        ],
        "{stdout}"
    );
    assert!(entries(dir.path()).is_empty());
}

/// Ctrl-C mid-replay: it stops issuing, waits for what is in flight, prints
/// the figures of what ran marked interrupted, removes its file and exits
/// 130.
#[test]
fn an_interrupted_replay_keeps_its_figures_and_leaves_nothing() {
    let (work, dir) = (scratch(), scratch());
    let trace = work.path().join("long.csv");
    msr_trace(&trace, 4000, 10_000); // 4 s as recorded
    let binary = assert_cmd::cargo::cargo_bin("iolab");
    let mut child = std::process::Command::new(binary)
        .arg("replay")
        .arg(&trace)
        .args(["--buffered", "--dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut stderr, &mut line).unwrap();
    assert!(line.contains("iolab: replaying"), "{line}");
    std::thread::sleep(std::time::Duration::from_millis(700));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("fidelity: interrupted"), "{stdout}");
    assert!(stdout.contains("then interrupted"), "{stdout}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// Writes an iolog v3 of 8 writes, a data sync, 4 reads and (with `trim`)
/// a trim, 0.5 ms apart, all of 12 KiB: a size the layout of a created
/// file never writes.
fn writes_sync_reads(path: &Path, trim: bool) {
    let mut text = String::from("fio version 3 iolog\n0 /f add\n0 /f open\n");
    for i in 0..8u64 {
        text.push_str(&format!("{} /f write {} 12288\n", i * 500, i * 12288));
    }
    text.push_str("4000 /f datasync\n");
    for i in 0..4u64 {
        text.push_str(&format!("{} /f read {} 12288\n", 4500 + i * 500, i * 12288));
    }
    if trim {
        text.push_str("6500 /f trim 98304 12288\n");
    }
    text.push_str("6500 /f close\n");
    std::fs::write(path, text).unwrap();
}

/// Every engine replays a trace's writes, data syncs, reads and trims as
/// the trace has them, and strace sees them go through that engine's own
/// calls: pwrite64/fdatasync/pread64/fallocate one at a time, libaio's
/// io_submit with IOCB_CMD_PWRITE/FDSYNC/PREAD (its trim a fallocate, as
/// libaio has none), io_uring's io_uring_enter with no data call at all.
#[test]
fn each_engine_replays_writes_syncs_reads_and_trims_through_its_own_calls() {
    if !crate::mounts::have("strace") {
        crate::skip!("strace is not installed (scripts/test installs it)");
        return;
    }
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("job.iolog");
    writes_sync_reads(&trace, true);
    for engine in ["psync", "libaio", "uring"] {
        let calls = out.path().join(format!("{engine}.strace"));
        let record = out.path().join(format!("{engine}.json"));
        let output = std::process::Command::new("strace")
            .args(["-f", "-qq", "-o"])
            .arg(&calls)
            .args([
                "-e",
                "trace=pwrite64,pread64,fdatasync,fallocate,io_submit,io_uring_enter",
            ])
            .arg(assert_cmd::cargo::cargo_bin("iolab"))
            .arg("replay")
            .arg(&trace)
            .args(["--engine", engine, "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&record)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{engine}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let value: Value =
            serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
        crate::util::validate_against(&value, "iolab.replay-1.schema.json");
        assert_eq!(value["target"]["engine"], engine);
        assert_eq!(
            exact_counts(&value),
            vec![
                ("read".into(), 4, 4 * 12288),
                ("write".into(), 8, 8 * 12288),
                ("flush".into(), 1, 0),
                ("trim".into(), 1, 12288),
            ],
            "{engine}"
        );
        let seen = std::fs::read_to_string(&calls).unwrap();
        let count = |needle: &str| seen.lines().filter(|l| l.contains(needle)).count();
        let data_calls = (count(", 12288, "), count("fdatasync("), count("PUNCH_HOLE"));
        let queued = (
            count("IOCB_CMD_PWRITE"),
            count("IOCB_CMD_FDSYNC"),
            count("IOCB_CMD_PREAD"),
        );
        match engine {
            "psync" => {
                assert_eq!(data_calls, (12, 1, 1), "{seen}");
                assert_eq!(count("io_submit("), 0, "{seen}");
            }
            "libaio" => {
                assert_eq!(queued, (8, 1, 4), "{seen}");
                // The trim alone is a system call of its own.
                assert_eq!(data_calls, (0, 0, 1), "{seen}");
            }
            _ => {
                assert_eq!(data_calls, (0, 0, 0), "{seen}");
                assert_eq!(queued, (0, 0, 0), "{seen}");
                assert!(count("io_uring_enter(") >= 14, "{seen}");
            }
        }
        assert!(entries(dir.path()).is_empty(), "{engine}");
    }
}

/// A network replay's requests as its record keeps them: (name, count, payload bytes).
fn requests(record: &Value) -> Vec<(String, u64, u64)> {
    record["network"]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["count"].as_u64().unwrap(),
                r["bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// A trace replays onto an NFS export through iolab's own client, no
/// mount: a file created there, every I/O counted against the trace and
/// against the client's own RPCs (a flush one COMMIT), the file removed;
/// a trace that trims, or another engine, is refused before anything is
/// made.
#[test]
fn a_trace_replays_onto_an_nfs_export_with_its_rpcs_counted() {
    let Some(lab) = NetLab::with_nfs(NetLab::shared_export("replay")) else {
        return;
    };
    let (work, out) = (scratch(), scratch());
    let trace = work.path().join("job.iolog");
    writes_sync_reads(&trace, false);
    let (value, stdout) = replayed_in(&lab, &trace, &["--target", &lab.nfs], out.path());
    assert_eq!(value["target"]["engine"], "nfs");
    assert_eq!(value["target"]["created"], true);
    assert_eq!(
        exact_counts(&value),
        vec![
            ("read".into(), 4, 4 * 12288),
            ("write".into(), 8, 8 * 12288),
            ("flush".into(), 1, 0),
        ]
    );
    assert_eq!(
        requests(&value),
        vec![
            ("READ".into(), 4, 4 * 12288),
            ("WRITE".into(), 8, 8 * 12288),
            ("COMMIT".into(), 1, 0),
        ]
    );
    assert!(
        stdout.contains("client NFSv3 RPCs: READ 4 (48.0 KiB), WRITE 8 (96.0 KiB), COMMIT 1"),
        "{stdout}"
    );
    assert!(
        entries(&lab.export).is_empty(),
        "{:?}",
        entries(&lab.export)
    );

    // Refused in one line, exit 2, nothing made on the export.
    let trims = work.path().join("trims.iolog");
    writes_sync_reads(&trims, true);
    for (args, expected) in [
        (
            vec!["replay", trims.to_str().unwrap(), "--target", &lab.nfs],
            "NFSv3 has no request that frees a range",
        ),
        (
            vec![
                "replay",
                trace.to_str().unwrap(),
                "--target",
                &lab.nfs,
                "--engine",
                "uring",
            ],
            "--engine uring does not reach --target",
        ),
        // Laid out on the server only with room for it (it used to write
        // gigabytes into the export before failing).
        (
            vec![
                "replay",
                trace.to_str().unwrap(),
                "--target",
                &lab.nfs,
                "--scale",
                "1t",
            ],
            "not enough free space",
        ),
    ] {
        let output = lab.iolab(work.path(), &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(entries(&lab.export).is_empty());
    }
}

/// A trace replays onto an iSCSI LUN through iolab's own initiator, the
/// LUN as it is: a trace that writes is refused without --destroy-data
/// repeating the URL; with it, every I/O is counted against the trace and
/// against the initiator's own SCSI commands (a flush a SYNCHRONIZE
/// CACHE(16), a trim an UNMAP); reads alone need no consent.
#[test]
fn a_trace_replays_onto_an_iscsi_lun_with_its_commands_counted() {
    let Some(lab) = NetLab::shared("replay-lun", "16M") else {
        return;
    };
    if let Err(reason) = iolab::engine::iscsi::libiscsi::available() {
        crate::skip!("{reason}");
        return;
    }
    let (work, out) = (scratch(), scratch());
    let trace = work.path().join("job.iolog");
    writes_sync_reads(&trace, true);
    let refused = lab.iolab(
        work.path(),
        &["replay", trace.to_str().unwrap(), "--target", &lab.iscsi],
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("--destroy-data={}", lab.iscsi)),
        "{stderr}"
    );

    let consent = format!("--destroy-data={}", lab.iscsi);
    let (value, _) = replayed_in(
        &lab,
        &trace,
        &["--target", &lab.iscsi, &consent],
        out.path(),
    );
    assert_eq!(value["target"]["engine"], "iscsi");
    assert_eq!(value["target"]["created"], false);
    assert_eq!(value["target"]["direct"], false);
    assert_eq!(
        exact_counts(&value),
        vec![
            ("read".into(), 4, 4 * 12288),
            ("write".into(), 8, 8 * 12288),
            ("flush".into(), 1, 0),
            ("trim".into(), 1, 12288),
        ]
    );
    assert_eq!(
        requests(&value),
        vec![
            ("READ(16)".into(), 4, 4 * 12288),
            ("WRITE(16)".into(), 8, 8 * 12288),
            ("UNMAP".into(), 1, 0),
            ("SYNCHRONIZE CACHE(16)".into(), 1, 0),
        ]
    );
    // The replay's writes are on the LUN: its 12 KiB at 0 are no longer
    // the zeros of the emptied LUN.
    let lun = std::fs::read(&lab.lun).unwrap();
    assert!(lun[..12288].iter().any(|&b| b != 0));

    // Reads alone: no consent asked.
    let output = lab.iolab(
        work.path(),
        &[
            "replay",
            trace.to_str().unwrap(),
            "--target",
            &lab.iscsi,
            "--only",
            "read",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Inside a TCG guest iolab boots: the same replay by iolab in the guest,
/// onto a file in the guest's own disk (an image in --dir, gone after),
/// every I/O counted against the trace, the record saying what the guest
/// was; a guest on a LUN is refused before anything is made.
#[test]
fn a_trace_replays_inside_a_guest_onto_its_own_disk() {
    if !crate::mounts::have("qemu-system-x86_64") {
        crate::skip!(
            "qemu-system-x86_64 is not installed (Debian package qemu-system-x86; scripts/test installs it)"
        );
        return;
    }
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("wsr.iolog");
    writes_sync_reads(&trace, false);
    let cache = crate::util::guest_cache(work.path());
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
    command.env("IOLAB_CACHE", &cache);
    let guest = "accel=tcg,memory=512";
    let (record, printed) = replayed_by(
        command,
        &trace,
        &["--guest", guest, "--dir", dir.path().to_str().unwrap()],
        out.path(),
    );
    assert_eq!(
        exact_counts(&record),
        [
            ("read".to_string(), 4, 4 * 12288),
            ("write".to_string(), 8, 8 * 12288),
            ("flush".to_string(), 1, 0)
        ]
    );
    assert!(printed.starts_with("fidelity: "), "{printed}");
    let inside = &record["guest"];
    assert_eq!(inside["accelerator"], "tcg", "{inside}");
    assert_eq!(inside["device"], "/dev/vda", "{inside}");
    let host_kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_ne!(
        inside["environment"]["kernel"],
        host_kernel.trim(),
        "{inside}"
    );
    let path = record["target"]["path"].as_str().unwrap();
    assert!(path.starts_with("/iolab-disk/"), "{path}");
    assert_eq!(record["command"][3], "--guest", "the host's own command");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    let refused = iolab()
        .env("IOLAB_CACHE", &cache)
        .arg("replay")
        .arg(&trace)
        .args([
            "--guest",
            "tap=lo,mount=iscsi://10.211.0.1/iqn.2026-11.x:y/1",
            "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no file system on a LUN"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}

/// Each repetition's fidelity counts are the trace's, and its figures
/// are the trace's data I/Os (8 writes and 4 reads of 12 KiB; the flush
/// moves nothing).
fn check_trace_repetitions(point: &Value, repetitions: usize) {
    let measured = point["repetitions"].as_array().unwrap();
    assert_eq!(measured.len(), repetitions, "{point}");
    for repetition in measured {
        assert_eq!(repetition["status"], "ok", "{repetition}");
        assert_eq!(repetition["ops"], 12, "{repetition}");
        assert_eq!(repetition["bytes"], 12 * 12288, "{repetition}");
        let replay = &repetition["replay"];
        let counts: Vec<(String, u64, u64)> =
            exact_counts(&serde_json::json!({ "fidelity": replay }));
        assert!(
            counts.contains(&("write".into(), 8, 8 * 12288)),
            "{counts:?}"
        );
        assert!(
            counts.contains(&("read".into(), 4, 4 * 12288)),
            "{counts:?}"
        );
        assert!(counts.contains(&("flush".into(), 1, 0)), "{counts:?}");
        assert!(replay["verdict"]["why"].as_str().is_some(), "{replay}");
        assert_eq!(replay["intervals"], serde_json::json!([]));
    }
}

/// A trace is a workload of `run`, `sweep` and study files: each
/// repetition replays it onto a file made in --dir and removed after, its
/// figures the trace's data I/Os and its fidelity recorded (the result
/// valid against the schema); a sweep over engines and speeds labels each
/// point by its trace; the estimate is the trace's, not the default
/// workload's; and what the trace decides is refused beside it, before
/// anything is created.
#[test]
fn a_trace_is_a_workload_of_run_sweep_and_study_files() {
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("wsr.iolog");
    writes_sync_reads(&trace, false);
    let path = trace.to_str().unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    let result = crate::util::run_ok(
        &["run", "--trace", path, "--dir", dir_arg, "--repeat", "2"],
        out.path(),
    );
    let point = &result["points"][0];
    assert_eq!(point["workload"]["trace"], path);
    assert_eq!(point["label"], format!("replay {path} psync"));
    check_trace_repetitions(point, 2);
    let file = point["target"]["files"][0].as_str().unwrap();
    assert!(file.starts_with(dir_arg), "{file}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    // A sweep over engines and speeds: a point each, by its trace.
    let swept = crate::util::run_ok(
        &[
            "sweep",
            "--trace",
            path,
            "--engine",
            "psync,null",
            "--trace-speed",
            "1,afap",
            "--dir",
            dir_arg,
        ],
        out.path(),
    );
    let labels: Vec<String> = swept["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        labels,
        [
            format!("replay {path} psync"),
            format!("replay {path} null"),
            format!("replay {path} afap psync"),
            format!("replay {path} afap null")
        ]
    );
    for point in swept["points"].as_array().unwrap() {
        check_trace_repetitions(point, 1);
    }
    assert_eq!(swept["points"][2]["workload"]["trace_speed"], "afap");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    // A study file's keys, and its estimate from the trace: a 1 MiB file
    // laid out per replay, not the default 256 MiB.
    let toml = format!(
        "name = \"speeds\"\n[defaults]\ntrace = \"{path}\"\n[[sweep]]\nlabel = \"s\"\ntrace-speed = [1, 2]\n"
    );
    let study = out.path().join("speeds.toml");
    std::fs::write(&study, &toml).unwrap();
    let planned = crate::util::succeed(iolab().arg("study").arg(&study).args([
        "--dir",
        dir_arg,
        "--dry-run",
    ]));
    let plan = String::from_utf8_lossy(&planned.stdout);
    assert!(plan.contains("at most 1.00 MiB of scratch files"), "{plan}");
    let points = crate::util::studied(dir.path(), out.path(), &toml);
    assert_eq!(points.len(), 2);
    assert_eq!(points[1]["label"], format!("s: replay {path} 2x psync"));
    check_trace_repetitions(&points[1], 1);

    // Refused in one line naming what is wrong, nothing created.
    for (args, named) in [
        (
            vec!["--trace", path, "--bs", "64k"],
            "--bs does nothing with --trace",
        ),
        (
            vec!["--trace", path, "--engine", "mmap"],
            "--engine mmap does not replay a trace",
        ),
        (vec!["--trace-speed", "2"], "--trace-speed 2 needs --trace"),
        (
            vec!["--trace", path, "--trace-speed", "0"],
            "'0' is not a speed",
        ),
        (
            vec!["--trace", "/nonexistent/t.iolog"],
            "/nonexistent/t.iolog",
        ),
        (
            vec!["--trace", path, "--machine", "guest", "--guest", ""],
            "--guest",
        ),
    ] {
        crate::util::run_refused(dir.path(), &args, named);
    }
    let backwards = work.path().join("backwards.iolog");
    std::fs::write(
        &backwards,
        "fio version 3 iolog\n0 /f write 0 4096\n5 /f write 4096 4096\n3 /f read 0 4096\n",
    )
    .unwrap();
    crate::util::run_refused(
        dir.path(),
        &["--trace", backwards.to_str().unwrap()],
        "times go backwards",
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// A trace is the work of one group's job: replayed beside a data group
/// in one point, its jobs released with the reader's on one clock, each
/// group's figures apart (the trace group's its replay's counts and
/// fidelity), the point's device samples over both, and the live line
/// counting the replay's writes (the only writes); alone, `--until-ci`
/// takes replays until the interval is tight enough or the most are done.
#[test]
fn a_trace_is_a_groups_work_beside_a_data_group_in_one_point() {
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("paced.csv");
    msr_trace(&trace, 1500, 10_000); // 1.5 s as recorded
    let result_path = out.path().join("r.json");
    let run = iolab()
        .args(["run", "--dir"])
        .arg(dir.path())
        .args(["--repeat", "2", "--progress", "always", "--no-report", "-o"])
        .arg(&result_path)
        .args(["--group", "log", "--trace"])
        .arg(&trace)
        .args([
            "--group",
            "reader",
            "--op",
            "read",
            "--size",
            "4m",
            "--runtime",
            "1s",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|line| line.starts_with("iolab: read ") && line.contains(" · write ")),
        "the live line counts the replay's writes: {stderr}"
    );
    let result = crate::util::read_result(&result_path);
    crate::util::validate_schema(&result);
    crate::util::check_consistency(&result);
    let point = &result["points"][0];
    let group = |name| crate::fast::groups::group(point, name);
    let (log, reader) = (group("log"), group("reader"));
    assert_eq!(log["workload"]["trace"], trace.display().to_string());
    for (index, whole) in point["repetitions"].as_array().unwrap().iter().enumerate() {
        let replayed = &log["repetitions"][index];
        let read = &reader["repetitions"][index];
        assert_eq!(replayed["status"], "ok", "{replayed}");
        assert_eq!(replayed["ops"], 1500, "{replayed}");
        assert_eq!(replayed["bytes"], 750 * 8192 + 750 * 4096, "{replayed}");
        let counts = exact_counts(&serde_json::json!({ "fidelity": replayed["replay"] }));
        assert!(
            counts.contains(&("write".into(), 750, 750 * 4096)),
            "{counts:?}"
        );
        assert!(read["ops"].as_u64().unwrap() > 0, "{read}");
        assert_eq!(
            whole["ops"].as_u64(),
            Some(replayed["ops"].as_u64().unwrap() + read["ops"].as_u64().unwrap()),
            "the point counts both groups"
        );
        assert!(
            whole["activity"]["devices"].as_array().is_some(),
            "the devices sampled beside both: {whole}"
        );
    }
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    let alone = crate::util::run_ok(
        &[
            "run",
            "--dir",
            dir.path().to_str().unwrap(),
            "--trace",
            trace.to_str().unwrap(),
            "--trace-speed",
            "afap",
            "--until-ci",
            "50",
            "--max-repeat",
            "4",
        ],
        out.path(),
    );
    let repetitions = alone["points"][0]["repetitions"].as_array().unwrap();
    assert!(
        (3..=4).contains(&repetitions.len()),
        "{}",
        repetitions.len()
    );
    assert!(alone["points"][0]["summary"].is_object());
}

/// Ctrl-C during a trace point's replay: `run` keeps what the replay did,
/// marked interrupted (its counts below the trace's, in no summary),
/// exits 130 and leaves nothing in --dir.
#[test]
fn an_interrupted_trace_point_keeps_its_figures_and_leaves_nothing() {
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("long.csv");
    msr_trace(&trace, 4000, 10_000); // 4 s as recorded
    let result = out.path().join("r.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["run", "--progress", "never", "--trace"])
        .arg(&trace)
        .arg("--dir")
        .arg(dir.path())
        .arg("-o")
        .arg(&result)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The replay's file appears once the point starts.
    let start = std::time::Instant::now();
    while entries(dir.path()).is_empty() {
        assert!(start.elapsed().as_secs() < 60, "no file made in --dir");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(800));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    let result = crate::util::read_result(&result);
    crate::util::check_consistency(&result);
    let point = &result["points"][0];
    let repetition = &point["repetitions"][0];
    assert_eq!(repetition["status"], "interrupted", "{repetition}");
    let ops = repetition["ops"].as_u64().unwrap();
    assert!(0 < ops && ops < 4000, "{ops} of the trace's 4000");
    assert!(point.get("summary").is_none(), "{point}");
}

/// `--wrap` moves only the I/Os beyond the target into it; `--scale` puts
/// every I/O at its place relative to the trace's extent. strace sees each
/// pread/pwrite at the offset that says, onto a created file of that
/// length; the two together are refused.
#[test]
fn offsets_are_wrapped_or_scaled_into_a_smaller_target() {
    if !crate::mounts::have("strace") {
        crate::skip!("strace is not installed (scripts/test installs it)");
        return;
    }
    let (work, dir, out) = (scratch(), scratch(), scratch());
    let trace = work.path().join("wide.iolog");
    // Four 4 KiB writes at 0, 1, 2 and 3 MiB: the trace reaches 3 MiB + 4 KiB.
    let mut text = String::from("fio version 3 iolog\n");
    for i in 0..4u64 {
        text.push_str(&format!("{} /f write {} 4096\n", i * 100, i << 20));
    }
    std::fs::write(&trace, text).unwrap();
    let extent = (3u64 << 20) + 4096;
    let length = 1u64 << 20;
    for (flag, expected) in [
        (
            "--wrap",
            [0, 1, 2, 3].map(|i| (i << 20) % (length - 4096 + 1) / 512 * 512),
        ),
        // Scaled, each kept whole: the last ends at the file's end.
        (
            "--scale",
            [0, 1, 2, 3].map(|i| ((i << 20) * length / extent).min(length - 4096) / 512 * 512),
        ),
    ] {
        let calls = out.path().join(format!("{flag}.strace"));
        let record = out.path().join(format!("{flag}.json"));
        let output = std::process::Command::new("strace")
            .args(["-f", "-qq", "-e", "trace=pwrite64", "-o"])
            .arg(&calls)
            .arg(assert_cmd::cargo::cargo_bin("iolab"))
            .arg("replay")
            .arg(&trace)
            .args(["--engine", "psync", flag, "1m", "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&record)
            .output()
            .unwrap();
        assert!(output.status.success(), "{flag}: {output:?}");
        let value: Value =
            serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
        crate::util::validate_against(&value, "iolab.replay-1.schema.json");
        assert_eq!(exact_counts(&value), vec![("write".into(), 4, 4 * 4096)]);
        let offsets: Vec<u64> = std::fs::read_to_string(&calls)
            .unwrap()
            .lines()
            .filter(|l| l.contains("pwrite64(") && l.contains(", 4096, "))
            // pwrite64(FD, "…"..., 4096, OFFSET) = 4096
            .map(|l| l.split(") = ").next().unwrap().rsplit(", ").next().unwrap())
            .map(|offset| offset.parse().unwrap())
            .collect();
        // The layout writes the file in large blocks; the replay's are 4 KiB.
        assert_eq!(offsets, expected, "{flag}");
        assert!(
            offsets.iter().all(|o| o + 4096 <= length),
            "{flag}: {offsets:?}"
        );
        assert!(entries(dir.path()).is_empty(), "{flag}");
    }
    let refused = iolab()
        .arg("replay")
        .arg(&trace)
        .args(["--wrap", "1m", "--scale", "1m", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
}
