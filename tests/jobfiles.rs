//! fio job files run as they are: `[global]` inherited, each section a group, stonewall phases as points in order, the study `--show-plan` prints running the same points, and every job file iolab cannot run refused by file, line and key with nothing made.

use crate::util::*;
use serde_json::Value;
use std::path::Path;

/// A reader and a paced O_DSYNC logger at once, then a whole-file read
/// after a stonewall; `DIR` is replaced with the scratch directory.
const DATABASE: &str = "\
; a database: random 8 KiB page reads beside a paced O_DSYNC log writer
[global]
directory=DIR
size=${DB_SIZE}
runtime=1
time_based
thread

[reader]
rw=randread
bs=8k
numjobs=2

[logger]
rw=write
bs=4k
rate_iops=400
sync=dsync

[scan]
stonewall
rw=read
bs=1m
";

pub(crate) fn write_job(out: &Path, name: &str, text: &str, dir: &Path) -> std::path::PathBuf {
    let path = out.join(name);
    std::fs::write(&path, text.replace("DIR", dir.to_str().unwrap())).unwrap();
    path
}

/// fio's jobs of section `group`: each one's (I/Os, bytes) in `direction`.
fn fio_per_job(fio: &Value, group: &str, direction: &str) -> Vec<(u64, u64)> {
    fio["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j["jobname"] == group)
        .map(|j| {
            let moved = &j[direction];
            (
                moved["total_ios"].as_u64().unwrap(),
                moved["io_bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// iolab's jobs of group `group` in `point`'s first repetition: each
/// one's (I/Os, bytes).
fn our_per_job(point: &Value, group: &str) -> Vec<(u64, u64)> {
    point["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["label"] == group)
        .unwrap()["repetitions"][0]["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["ops"].as_u64().unwrap(), j["bytes"].as_u64().unwrap()))
        .collect()
}

/// Each point's groups as (name, workload), for comparing plans.
fn groups_of(points: &[Value]) -> Vec<Vec<(String, Value)>> {
    points
        .iter()
        .map(|p| {
            p["groups"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| {
                    (
                        g["label"].as_str().unwrap().to_string(),
                        g["workload"].clone(),
                    )
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_job_file_runs_its_phases_in_order_and_its_study_runs_the_same_points() {
    let dir = scratch();
    let out = scratch();
    let job = write_job(out.path(), "db.fio", DATABASE, dir.path());
    let result_path = out.path().join("db.json");
    let ran = iolab()
        .arg("run")
        .arg(&job)
        .arg("-o")
        .arg(&result_path)
        .env("DB_SIZE", "4m")
        .output()
        .unwrap();
    assert!(ran.status.success(), "{ran:?}");
    // Quiet when nothing is wrong: the notes are in the result (and its
    // report), on stderr only with --verbose.
    assert!(ran.stderr.is_empty(), "{ran:?}");
    let result = read_result(&result_path);
    assert!(
        result["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("thread: no effect: iolab's jobs are threads")),
        "{result}"
    );
    let report = std::fs::read_to_string(result_path.with_extension("html")).unwrap();
    assert!(
        report.contains("thread: no effect: iolab&#39;s jobs are threads"),
        "the report shows the notes"
    );
    check_consistency(&result);
    let points = result["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "two phases");
    assert_eq!(points[0]["label"], "db phase 1: reader + logger");
    let phases = groups_of(points);
    let names: Vec<Vec<&str>> = phases
        .iter()
        .map(|p| p.iter().map(|(n, _)| n.as_str()).collect())
        .collect();
    assert_eq!(names, [vec!["reader", "logger"], vec!["scan"]]);
    let reader = &phases[0][0].1;
    assert_eq!(
        (reader["jobs"].as_u64(), reader["bs"].as_u64()),
        (Some(2), Some(8192))
    );
    assert_eq!(reader["size"], 4 << 20);
    assert_eq!(phases[0][1].1["sync"], "odsync");
    assert_eq!(phases[0][1].1["op"], "write");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

    // The study --show-plan prints plans the same points.
    let shown = iolab()
        .arg("run")
        .arg(&job)
        .arg("--show-plan")
        .env("DB_SIZE", "4m")
        .output()
        .unwrap();
    assert!(shown.status.success(), "{shown:?}");
    let study = String::from_utf8(shown.stdout).unwrap();
    assert!(
        study.contains("[[sweep.group]]\nname = \"logger\""),
        "{study}"
    );
    assert!(entries(dir.path()).is_empty(), "--show-plan runs nothing");
    let points = studied(dir.path(), out.path(), &study);
    assert_eq!(groups_of(&points), phases, "{study}");
}

#[test]
fn job_files_iolab_cannot_run_are_refused_by_file_line_and_key() {
    let dir = scratch();
    let out = scratch();
    for (text, named) in [
        (
            "[j]\nsize=1m\nverify=crc32c\n",
            "line 3: [j] verify=crc32c: rw=read verifies headers a fio write left",
        ),
        ("[j]\ninclude other.fio\n", "line 2: include"),
        (
            "[j]\nsize=${IOLAB_TEST_UNSET}\n",
            "line 2: size: ${IOLAB_TEST_UNSET} is not set",
        ),
        (
            "[j]\nsize=1m\nwait_for=nobody\n",
            "line 3: [j] wait_for=nobody names no job",
        ),
        (
            "[a]\nsize=1m\nwait_for=b\n[b]\nsize=1m\nwait_for=a\n",
            "line 3: [a] wait_for=b is a loop of wait_for",
        ),
        (
            "[j]\nsize=1m\nfilename=DIR/a:DIR/b\n",
            "names several files (fio's ':' list)",
        ),
        (
            "[a]\nsize=1m\nfilename=/etc/hostname\n[b]\nsize=1m\n",
            "line 4: [b] makes its own files, and the jobs before it work on /etc/hostname",
        ),
        ("[a]\nfilename=DIR/missing\n", "line 2: [a] filename="),
        // A device name with a typo is not made in /dev.
        (
            "[a]\nfilename=/dev/iolab-nosuch-disk\nsize=1m\n",
            "filename=/dev/iolab-nosuch-disk does not exist (iolab makes a missing filename= only outside /dev",
        ),
        (
            "[j]\nsize=1m\nbsrange=4k-64k\n",
            "line 3: [j] bsrange=4096-65536: fio draws 16 sizes from it",
        ),
        (
            "[j]\nsize=1m\nrw=randread\nbs=4k\nblockalign=8k\n",
            "line 5: [j] blockalign=8k with fio's random map: fio's map is kept in blocks of the smallest size (4096 bytes)",
        ),
        (
            "[j]\nsize=1m\nallow_file_create=0\n",
            "line 3: [j] allow_file_create=0 without filename=: iolab would make this job's files",
        ),
        (
            "[j]\nsize=1m\nio_submit_mode=later\n",
            "line 3: io_submit_mode=later: fio takes inline or offload, not later",
        ),
        (
            "[j]\nsize=1m\nioengine=splice\n",
            "line 3: [j] ioengine=splice has no iolab equivalent",
        ),
        (
            "[j]\nsize=1m\nbs=4q\n",
            "line 3: [j] bs=4q is not a size iolab reads",
        ),
        // fio 3.33 refuses a zone size without a zone mode.
        (
            "[j]\nsize=1m\nrw=read\nzonesize=256k\n",
            "line 4: [j] zonesize without zonemode=strided: fio refuses it",
        ),
        // Jobs at once on two files; phases in two directories.
        (
            "[a]\nsize=1m\nfilename=DIR/x\n[b]\nsize=1m\nfilename=DIR/y\n",
            "line 6: [b] filename=",
        ),
        (
            "[a]\nsize=1m\nfilename=DIR/x\n[b]\nstonewall\nsize=1m\nfilename=/tmp/iolab-no-such-dir/y\n",
            "are in two directories; iolab opens one directory",
        ),
        // The memory devices: /dev/null has nothing to read; other
        // character devices are not targets.
        (
            "[a]\nsize=1m\nfilename=/dev/null\nrw=randread\n",
            "line 3: filename=/dev/null: /dev/null has nothing to read",
        ),
        (
            "[a]\nsize=1m\nfilename=/dev/full\nrw=write\n",
            "line 3: filename=/dev/full is a character device",
        ),
        // The kernel's interfaces and directories are not files to measure.
        (
            "[a]\nsize=1m\nfilename=/proc/meminfo\n",
            "line 3: filename=/proc/meminfo is in /proc, the kernel's own tree",
        ),
        (
            "[a]\nsize=1m\nfilename=/sys/kernel/mm/transparent_hugepage/enabled\n",
            "is in /sys, the kernel's own tree",
        ),
        (
            "[a]\nsize=1m\nfilename=/tmp\n",
            "line 3: filename=/tmp is a directory",
        ),
    ] {
        let job = write_job(out.path(), "bad.fio", text, dir.path());
        let refused = iolab()
            .arg("run")
            .arg(&job)
            .arg("--dir")
            .arg(dir.path())
            .env_remove("IOLAB_TEST_UNSET")
            .output()
            .unwrap();
        assert_eq!(refused.status.code(), Some(2), "{text:?}: {refused:?}");
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            stderr.contains(&format!("{}", job.display())) && stderr.contains(named),
            "{text:?}: {stderr}"
        );
        assert_eq!(message_lines(&stderr), 1, "{stderr}");
        assert!(
            entries(dir.path()).is_empty(),
            "{text:?}: {:?}",
            entries(dir.path())
        );
    }
    // A directory given twice, differently.
    let job = write_job(
        out.path(),
        "dir.fio",
        "[global]\ndirectory=DIR\nsize=1m\n[j]\n",
        dir.path(),
    );
    let refused = iolab()
        .arg("run")
        .arg(&job)
        .args(["--dir", "/tmp"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("give the directory once"));
    // Workload flags fio's command line has no option for, beside a job
    // file: the file sets the workload.
    let job = write_job(out.path(), "ok.fio", "[j]\nsize=1m\n", dir.path());
    let refused = iolab()
        .arg("run")
        .arg(&job)
        .args(["--pattern", "random"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--pattern: "));
}

/// The job file both tools run for the agreement: a writer of new files
/// beside two random readers, all O_DIRECT through psync, one pass each.
const AGREEMENT: &str = "\
[global]
directory=DIR
ioengine=psync
direct=1
size=8m

[writer]
rw=write
bs=64k

[reader]
rw=randread
bs=8k
numjobs=2
";

/// Runs fio on `job` in `output`'s directory, its JSON output into `output`.
pub(crate) fn run_fio(job: &Path, output: &Path) {
    succeed(&mut assert_cmd::Command::from_std({
        let mut fio = std::process::Command::new("fio");
        // fio writes a verify job's state file (`NAME-0-verify.state`) in
        // its working directory: the output's, never the source tree.
        fio.current_dir(output.parent().expect("an output in a directory"))
            .arg(job)
            .arg("--output-format=json")
            .arg(format!("--output={}", output.display()));
        fio
    }));
}

/// fio's JSON output `output` (written by [`run_fio`]).
pub(crate) fn fio_json(output: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(output).unwrap()).unwrap()
}

/// Job `name`'s entry in fio's JSON output.
fn fio_job<'a>(fio: &'a Value, name: &str) -> &'a Value {
    fio["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["jobname"] == name)
        .unwrap_or_else(|| panic!("fio ran no job {name}"))
}

/// `/proc/diskstats`' reads, sectors read, writes and sectors written of `device`.
fn disk_counts(device: &str) -> [u64; 4] {
    let text = std::fs::read_to_string("/proc/diskstats").unwrap();
    let fields: Vec<u64> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.get(2) == Some(&device))
        .unwrap_or_else(|| panic!("{device} not in /proc/diskstats"))[3..]
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    [fields[0], fields[2], fields[4], fields[6]]
}

/// What `run` did to `device`: each counter's growth, after a sync.
fn counted(device: &str, run: impl FnOnce()) -> [u64; 4] {
    let before = disk_counts(device);
    run();
    assert!(
        std::process::Command::new("sync")
            .status()
            .unwrap()
            .success()
    );
    let after = disk_counts(device);
    std::array::from_fn(|i| after[i] - before[i])
}

#[test]
fn fio_and_iolab_run_one_job_file_with_the_same_device_counts_and_group_figures() {
    use crate::mounts::{LoopFs, root_or_skip};
    if !root_or_skip("a loop device") || !crate::fast::import::fio_available() {
        return;
    }
    let out = scratch();
    let fs = LoopFs::new(out.path(), "ext4", 128).expect("a loop ext4");
    let device = fs.device_name();
    let job = write_job(out.path(), "agree.fio", AGREEMENT, fs.path());
    let fio_output = out.path().join("fio.json");
    let by_fio = counted(&device, || run_fio(&job, &fio_output));
    // fio leaves its files; the test made the directory, and empties it.
    for name in entries(fs.path()) {
        if name != "lost+found" {
            std::fs::remove_file(fs.path().join(name)).unwrap();
        }
    }
    let result_path = out.path().join("iolab.json");
    let by_iolab = counted(&device, || {
        succeed(iolab().arg("run").arg(&job).arg("-o").arg(&result_path));
    });
    // The data each moved is the same to the sector: 16 MiB of random
    // 8 KiB O_DIRECT reads, and 8 MiB of writes plus the readers' 16 MiB
    // laid out. What differs is the file system's own: a few metadata
    // blocks read, the journal's writes, and how the buffered layout
    // writes were merged (docs/agreement.md).
    let [fio_reads, fio_read_sectors, fio_writes, fio_written] = by_fio;
    let [reads, read_sectors, writes, written] = by_iolab;
    assert!(
        reads.abs_diff(fio_reads) <= 16,
        "reads {by_iolab:?} {by_fio:?}"
    );
    assert!(
        reads >= 2048 && fio_reads >= 2048,
        "{by_iolab:?} {by_fio:?}"
    );
    assert!(
        read_sectors.abs_diff(fio_read_sectors) <= 256,
        "{by_iolab:?} {by_fio:?}"
    );
    assert!(
        written.abs_diff(fio_written) <= 4096,
        "{by_iolab:?} {by_fio:?}"
    );
    assert!(written >= 24 << 11, "{by_iolab:?}");
    assert!(writes.abs_diff(fio_writes) <= 64, "{by_iolab:?} {by_fio:?}");
    // Each group's figures are its fio job's (the reader's two clones added).
    let fio = fio_json(&fio_output);
    let of_job = |name: &str, direction: &str, key: &str| -> u64 {
        fio["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["jobname"] == name)
            .map(|j| j[direction][key].as_u64().unwrap())
            .sum()
    };
    let result = read_result(&result_path);
    let point = first_point(&result);
    for (group, direction) in [("writer", "write"), ("reader", "read")] {
        let ours = point["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["label"] == group)
            .unwrap();
        let repetition = &ours["repetitions"][0];
        assert_eq!(
            repetition["ops"].as_u64(),
            Some(of_job(group, direction, "total_ios"))
        );
        assert_eq!(
            repetition["bytes"].as_u64(),
            Some(of_job(group, direction, "io_bytes"))
        );
    }
}

#[test]
fn on_the_null_engine_each_group_does_what_its_fio_job_does() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let text = "[global]\nioengine=null\nsize=64m\n[big]\nrw=read\nbs=1m\n[small]\nrw=randwrite\nbs=4k\nnumjobs=3\n";
    let job = write_job(out.path(), "null.fio", text, dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&job, &fio_output);
    let fio = fio_json(&fio_output);
    let result = run_ok(
        &[
            "run",
            job.to_str().unwrap(),
            "--dir",
            dir.path().to_str().unwrap(),
        ],
        out.path(),
    );
    let point = first_point(&result);
    for (group, direction) in [("big", "read"), ("small", "write")] {
        let theirs: u64 = fio["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|j| j["jobname"] == group)
            .map(|j| j[direction]["total_ios"].as_u64().unwrap())
            .sum();
        let ours = point["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["label"] == group)
            .unwrap();
        assert_eq!(
            ours["repetitions"][0]["ops"].as_u64(),
            Some(theirs),
            "{group}"
        );
    }
}

/// Each job's I/Os and bytes per direction, as fio 3.33 ran `job` on its
/// null engine and as iolab ran it: the same, job for job (issue "fio's
/// job files as users have them": plans that differed from fio's without
/// a word). One job file per key the project writes itself.
#[test]
fn keys_fio_reads_its_own_way_plan_what_fio_runs() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let cases = [
        // rwmixread=100 is reads only (iolab wrote them all).
        (
            "mixread100",
            "[a]\nioengine=null\nsize=8m\nrw=randrw\nrwmixread=100\n",
        ),
        (
            "mixwrite0",
            "[a]\nioengine=null\nsize=8m\nrw=rw\nrwmixwrite=0\n",
        ),
        // fio's default kb_base reads IEC suffixes as powers of ten.
        ("units", "[a]\nioengine=null\nsize=1MiB\nbs=4KiB\nrw=read\n"),
        // A comment after a value, with or without blank before it.
        (
            "comments",
            "[a]\nioengine=null\nsize=8m\nnumjobs=2\t; two threads\nrw=read# reads\n",
        ),
        // A direction's own block size, for a one-direction job.
        (
            "bs-pair",
            "[a]\nioengine=null\nsize=8m\nbs=4k,64k\nrw=write\n",
        ),
        // runtime without time_based caps a size-bound job: one pass here.
        (
            "runtime-cap",
            "[a]\nioengine=null\nsize=8m\nrw=randread\nruntime=60\n",
        ),
        // A client joining later does the same I/O (fio's 1mbs_clients.fio).
        (
            "startdelay",
            "[a]\nioengine=null\nsize=4m\nrw=read\nstartdelay=1\n",
        ),
        // io_size wraps over the file; number_ios stops early.
        (
            "io-size",
            "[a]\nioengine=null\nsize=8m\nio_size=12m\nrw=randread\n",
        ),
        (
            "number-ios",
            "[a]\nioengine=null\nsize=8m\nbs=8k\nnumber_ios=100\nrw=write\n",
        ),
        (
            "number-ios-past-size",
            "[a]\nioengine=null\nsize=1m\nnumber_ios=100000\nrw=read\n",
        ),
        // time_based=0 is fio's default: no time base, the runtime a cap.
        (
            "time-based-0",
            "[a]\nioengine=null\nsize=8m\nruntime=2\ntime_based=0\nrw=read\n",
        ),
        // fio's default boundary, given (its sprandom.fio: blockalign=bs).
        (
            "blockalign",
            "[a]\nioengine=null\nsize=8m\nrw=randread\nbs=8k\nblockalign=8k\n",
        ),
        // Passes one after another, sequential and random.
        ("loops", "[a]\nioengine=null\nsize=8m\nrw=read\nloops=3\n"),
        // rw=…:N skips N bytes after each I/O, wrapping (iolab's stride),
        // or steps back (fio's backwards-read.fio: iolab's reverse).
        ("skip", "[a]\nioengine=null\nsize=8m\nrw=read:4k\n"),
        ("skip-write", "[a]\nioengine=null\nsize=8m\nrw=write:8k\n"),
        ("skip-back", "[a]\nioengine=null\nsize=8m\nrw=read:-8k\n"),
        // A range of one size is that size (fio's tiobench-example.fio).
        (
            "bsrange-one",
            "[a]\nioengine=null\nsize=8m\nrw=randread\nbsrange=4k-4k\n",
        ),
        // A range's sizes drawn with equal shares: the same bytes, and
        // I/Os within the draws' spread (about 1.6% each way at 1 sd).
        (
            "bsrange-draws",
            "[a]\nioengine=null\nsize=8m\nrw=read\nbsrange=4k-16k\n",
        ),
        // Mixed sizes under fio's random map: each block once, an I/O
        // stopped at the next covered block. The bytes are fio's; the
        // I/O count is a draw (fio 3.33 over seeds 1-6 on 64 MiB: 3,361
        // to 3,698, its default 3,134), here over 256 MiB for less spread.
        (
            "bssplit-map",
            "[a]\nioengine=null\nsize=256m\nrw=randread\nbssplit=4k/60:64k/30:256k/10\n",
        ),
        (
            "loops-random",
            "[a]\nioengine=null\nsize=8m\nbs=16k\nrw=randwrite\nloops=2\n",
        ),
        // fio's aliases, each the option it stands for.
        (
            "aliases",
            "[a]\nioengine=null\nsize=8m\nreadwrite=randread\nblocksize=8k\nba=8k\nio_limit=4m\n",
        ),
        (
            "blocksize-range",
            "[a]\nioengine=null\nsize=8m\nrw=read\nblocksize_range=16k-16k\n",
        ),
        // SI units: fio 3.33 with kb_base=1000 reads k as 1000, KiB as 1024.
        (
            "kb-base-1000",
            "[a]\nioengine=null\nkb_base=1000\nsize=1m\nbs=4KiB\nrw=read\n",
        ),
        // Without the random map a size-bound job still makes size / bs I/Os.
        (
            "norandommap",
            "[a]\nioengine=null\nsize=8m\nrw=randwrite\nnorandommap\n",
        ),
        // Keys that shape timing, queueing, data or placement, never the I/Os.
        (
            "batches",
            "[a]\nioengine=null\nsize=8m\nrw=randread\niodepth=8\niodepth_batch=4\niodepth_batch_submit=4\n",
        ),
        (
            "buffers",
            "[a]\nioengine=null\nsize=8m\nrw=write\nbuffer_compress_percentage=50\nbuffer_compress_chunk=512\n",
        ),
        (
            "dedupe",
            "[a]\nioengine=null\nsize=8m\nrw=randwrite\ndedupe_percentage=25\n",
        ),
        (
            "zero-buffers",
            "[a]\nioengine=null\nsize=8m\nrw=write\nzero_buffers\n",
        ),
        (
            "syncs",
            "[a]\nioengine=null\nsize=8m\nrw=write\nfsync=16\nend_fsync=1\n",
        ),
        (
            "placement",
            "[a]\nioengine=null\nsize=8m\nrw=read\nnumjobs=2\ninvalidate=0\ncpus_allowed=0\ncpus_allowed_policy=shared\n",
        ),
        // A zone range or skip without a zone mode: fio ignores them.
        (
            "zonerange-alone",
            "[a]\nioengine=null\nsize=8m\nrw=read\nzonerange=1m\nzoneskip=1m\n",
        ),
    ];
    for (name, text) in cases {
        let dir = scratch();
        let out = scratch();
        let job = write_job(out.path(), &format!("{name}.fio"), text, dir.path());
        let fio_output = out.path().join("fio.json");
        run_fio(&job, &fio_output);
        let fio = fio_json(&fio_output);
        let result = run_ok(
            &[
                "run",
                job.to_str().unwrap(),
                "--dir",
                dir.path().to_str().unwrap(),
            ],
            out.path(),
        );
        let point = first_point(&result);
        let group = &point["groups"][0];
        let repetition = &group["repetitions"][0];
        for direction in ["read", "write"] {
            let (ios, bytes) = fio["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|j| {
                    (
                        j[direction]["total_ios"].as_u64().unwrap(),
                        j[direction]["io_bytes"].as_u64().unwrap(),
                    )
                })
                .fold((0, 0), |(a, b), (c, d)| (a + c, b + d));
            let ours = repetition["directions"]
                .as_array()
                .and_then(|all| all.iter().find(|d| d["direction"] == direction));
            let (our_ios, our_bytes) = match ours {
                Some(d) => (d["ops"].as_u64().unwrap(), d["bytes"].as_u64().unwrap()),
                // A one-direction repetition keeps its totals only.
                None if (group["workload"]["op"] == "read") == (direction == "read") => (
                    repetition["ops"].as_u64().unwrap(),
                    repetition["bytes"].as_u64().unwrap(),
                ),
                None => (0, 0),
            };
            if name == "bsrange-draws" || name == "bssplit-map" {
                assert_eq!(our_bytes, bytes, "{name} {direction}: bytes");
                let ratio = our_ios as f64 / ios.max(1) as f64;
                // The map's I/O count spreads more: fio 3.33 over seeds
                // 1-8 made 13,109 to 13,995 here, its default seed 12,862;
                // iolab over seeds 1-8 12,900 to 13,838 (the code before
                // made three times as many).
                let spread = if name == "bssplit-map" { 0.10 } else { 0.07 };
                assert!(
                    ios == our_ios || (1.0 - spread..1.0 + spread).contains(&ratio),
                    "{name} {direction}: iolab {our_ios} I/Os against fio's {ios}"
                );
                continue;
            }
            assert_eq!(
                (our_ios, our_bytes),
                (ios, bytes),
                "{name} {direction}: iolab (I/Os, bytes) against fio's"
            );
        }
    }
}

/// What iolab cannot run as fio does is refused by line and key, never
/// run otherwise: a block size per direction of a mix drawn from a
/// distribution (each direction walks the file on its own, in order or in
/// random order), less than a pass of a file, a network engine without its
/// target.
#[test]
fn keys_iolab_cannot_follow_are_refused_not_changed() {
    let dir = scratch();
    let out = scratch();
    for (name, text, said) in [
        (
            "bs-mix",
            "[a]\nioengine=null\nsize=8m\nbs=4k,64k\nrw=randrw\nrandom_distribution=zipf:1.2\n",
            "--write-bs 64KiB with --pattern zipf:1.2: each direction walks the file on its own",
        ),
        (
            "less-than-a-file",
            "[a]\nioengine=null\nsize=2m\nfilesize=4m\nrw=read\n",
            "line 3: [a] size=2097152 below filesize=4194304",
        ),
        (
            "nfs-engine",
            "[a]\nioengine=nfs\nsize=8m\nrw=read\n",
            "line 2: [a] ioengine=nfs: no nfs_url= names its nfs:// target",
        ),
    ] {
        let job = write_job(out.path(), &format!("{name}.fio"), text, dir.path());
        let output = iolab()
            .args([
                "run",
                job.to_str().unwrap(),
                "--dir",
                dir.path().to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(said), "{name}: {stderr}");
        assert!(entries(dir.path()).is_empty(), "{name}");
    }
}

/// Several jobs on one file the user gives each go over all of it, as
/// fio's `filename=F numjobs=N` does: the same I/Os and bytes as fio
/// 3.33's on the same file (issue "fio's job files as users have them":
/// `--file F --jobs 2` was refused). With --verify, where the jobs would
/// overwrite each other's sealed blocks, one line says why.
#[test]
fn jobs_share_a_given_file_as_fios_numjobs_do() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let dir = scratch();
    let file = dir.path().join("given");
    std::fs::write(&file, vec![3u8; 8 << 20]).unwrap();
    let fio = std::process::Command::new("fio")
        .args([
            "--name=shared",
            "--rw=read",
            "--bs=64k",
            "--ioengine=psync",
            "--numjobs=2",
            "--group_reporting",
            "--output-format=json",
        ])
        .arg(format!("--filename={}", file.display()))
        .output()
        .unwrap();
    assert!(fio.status.success());
    let fio: Value = serde_json::from_slice(&fio.stdout).unwrap();
    let theirs = &fio["jobs"][0]["read"];
    let out = scratch();
    let result = run_ok(
        &[
            "run",
            "--file",
            file.to_str().unwrap(),
            "--jobs",
            "2",
            "--op",
            "read",
            "--bs",
            "64k",
        ],
        out.path(),
    );
    let repetition = &result["points"][0]["repetitions"][0];
    assert_eq!(repetition["ops"], theirs["total_ios"]);
    assert_eq!(repetition["bytes"], theirs["io_bytes"]);
    for job in repetition["jobs"].as_array().unwrap() {
        assert_eq!(job["bytes"], 8 << 20, "each job over the whole file: {job}");
    }
    let refused = iolab()
        .args([
            "run",
            "--file",
            file.to_str().unwrap(),
            "--jobs",
            "2",
            "--op",
            "rewrite",
            "--verify",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("overwrite each other's sealed blocks")
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        vec![3u8; 8 << 20],
        "nothing written"
    );
}

/// A job file's `filename=` is the user's file, shared by its jobs as
/// fio's jobs share it: each job over all of it, the whole file when no
/// size is given, the same I/Os per job as fio 3.33 on the same file; a
/// write to a file iolab did not make is refused and the file left as it
/// was; and `--file` on the command line is fio's `--filename`, for a job
/// file that names none (as kbench passes it) (issue "fio's job files as
/// users have them": `filename` blocked 54 of fio's 107 examples).
#[test]
fn a_job_files_filename_is_shared_by_its_jobs_as_fio_shares_it() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let file = dir.path().join("given.dat");
    let content: Vec<u8> = (0..8u32 << 20).map(|i| (i % 253) as u8).collect();
    std::fs::write(&file, &content).unwrap();
    let text = "[global]\nfilename=DIR/given.dat\nioengine=psync\nbs=64k\n\
                [seq]\nrw=read\nnumjobs=2\n[rand]\nrw=randread\nbs=4k\n[tail]\nrw=read\noffset=6m\n";
    let job = write_job(out.path(), "shared.fio", text, dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&job, &fio_output);
    let fio = fio_json(&fio_output);
    let result = run_ok(&["run", job.to_str().unwrap()], out.path());
    let point = first_point(&result);
    // `offset=6m` without a size: from there to the end, as fio sizes it.
    for (group, region) in [("seq", 8 << 20), ("rand", 8 << 20), ("tail", 2 << 20)] {
        let theirs = fio_per_job(&fio, group, "read");
        let ours = our_per_job(point, group);
        assert_eq!(ours, theirs, "{group}: per job (I/Os, bytes)");
        assert!(
            ours.iter().all(|(_, bytes)| *bytes == region),
            "{group}: its region of the file"
        );
    }
    assert_eq!(std::fs::read(&file).unwrap(), content);
    assert_eq!(entries(dir.path()), vec!["given.dat".to_string()]);
    // A write to the user's file: refused, nothing written.
    let job = write_job(
        out.path(),
        "write.fio",
        "[w]\nrw=randwrite\nsize=1m\nfilename=DIR/given.dat\n",
        dir.path(),
    );
    let refused = iolab().arg("run").arg(&job).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("was not created by iolab"), "{stderr}");
    assert_eq!(message_lines(&stderr), 1, "{stderr}");
    assert_eq!(std::fs::read(&file).unwrap(), content);
    // fio's --filename on the command line, for a job file without one.
    let job = write_job(out.path(), "bare.fio", "[r]\nrw=read\nbs=1m\n", dir.path());
    let result = run_ok(
        &[
            "run",
            job.to_str().unwrap(),
            "--file",
            file.to_str().unwrap(),
        ],
        out.path(),
    );
    let repetition = &first_point(&result)["repetitions"][0];
    assert_eq!(repetition["bytes"], 8 << 20, "{repetition}");
    assert_eq!(entries(dir.path()), vec!["given.dat".to_string()]);
}

/// A `filename=` that names no file yet is made, as fio makes it (fio's
/// own `fio-seq-read.fio` and its five siblings): every job over its
/// group's region, the same I/Os and bytes per job as fio 3.33's, and the
/// file removed at the end (kept with `--keep`, and then only read).
#[test]
fn a_filename_not_there_yet_is_made_as_fio_makes_it() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let text = "[global]\ndirectory=DIR\nfilename=made.dat\nioengine=psync\n\
                [reader]\nrw=randread\nbs=4k\nsize=4m\nnumjobs=2\n\
                [writer]\nrw=write\nbs=64k\nsize=4m\noffset=4m\n";
    let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
    let fio_job = write_job(out.path(), "fio.fio", text, fio_dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&fio_job, &fio_output);
    let fio = fio_json(&fio_output);
    let job = write_job(out.path(), "made.fio", text, dir.path());
    let result = run_ok(&["run", job.to_str().unwrap()], out.path());
    let point = first_point(&result);
    for (group, direction) in [("reader", "read"), ("writer", "write")] {
        let theirs = fio_per_job(&fio, group, direction);
        let ours = our_per_job(point, group);
        assert_eq!(ours, theirs, "{group}: per job (I/Os, bytes)");
    }
    assert!(
        entries(dir.path()).is_empty(),
        "made and removed: {:?}",
        entries(dir.path())
    );
    // Kept, it is iolab's file: a later run reads it as it is.
    run_ok(&["run", job.to_str().unwrap(), "--keep"], out.path());
    assert_eq!(entries(dir.path()), ["made.dat"]);
    assert_eq!(
        std::fs::metadata(dir.path().join("made.dat"))
            .unwrap()
            .len(),
        8 << 20
    );
    run_ok(&["run", job.to_str().unwrap()], out.path());
    assert_eq!(
        entries(dir.path()),
        ["made.dat"],
        "a file that was there stays"
    );
}

/// Each phase on its own file, as fio's sections with their own
/// `filename=`: the memory devices of fio's `steadystate.fio` (random reads
/// of `/dev/zero`, then writes to `/dev/null`), and a user's file read
/// before a new file is written. Per job the I/Os and bytes are fio
/// 3.33's; the user's file is left as it was, the new one removed, and each
/// point records its own file.
#[test]
fn each_phase_works_on_its_own_file_as_fios_sections_do() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let memory = "[global]\nioengine=psync\n\
                  [zero-read]\nfilename=/dev/zero\nrw=randread\nbs=4k\nsize=4m\nnumjobs=2\n\
                  [null-write]\nstonewall\nfilename=/dev/null\nrw=write\nbs=64k\nsize=8m\n";
    let files = "[global]\nioengine=psync\n\
                 [read-given]\nfilename=DIR/given.dat\nrw=read\nbs=64k\n\
                 [write-new]\nstonewall\nfilename=DIR/new.dat\nrw=write\nbs=64k\nsize=2m\n";
    for (name, text, phases) in [
        (
            "memory",
            memory,
            [("zero-read", "read"), ("null-write", "write")],
        ),
        (
            "files",
            files,
            [("read-given", "read"), ("write-new", "write")],
        ),
    ] {
        let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
        let given: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
        for place in [fio_dir.path(), dir.path()] {
            std::fs::write(place.join("given.dat"), &given).unwrap();
        }
        let fio_job = write_job(out.path(), "fio.fio", text, fio_dir.path());
        let fio_output = out.path().join("fio.json");
        run_fio(&fio_job, &fio_output);
        let fio = fio_json(&fio_output);
        let job = write_job(out.path(), &format!("{name}.fio"), text, dir.path());
        let result = run_ok(&["run", job.to_str().unwrap()], out.path());
        let points = result["points"].as_array().unwrap();
        assert_eq!(points.len(), 2, "{name}: one point per phase");
        for (point, (group, direction)) in points.iter().zip(phases) {
            let theirs = fio_per_job(&fio, group, direction);
            assert_eq!(
                our_per_job(point, group),
                theirs,
                "{name} {group}: per job (I/Os, bytes)"
            );
        }
        let files: Vec<&str> = points
            .iter()
            .map(|p| p["target"]["files"][0].as_str().unwrap())
            .collect();
        if name == "memory" {
            assert_eq!(files, ["/dev/zero", "/dev/null"]);
            for point in points {
                assert_eq!(point["target"]["filesystem"], "memory device");
                let codes: Vec<&str> = point["checks"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| c["code"].as_str().unwrap())
                    .collect();
                assert!(codes.contains(&"no-storage"), "{codes:?}");
                assert!(!codes.contains(&"writeback-pending"), "{codes:?}");
            }
        } else {
            assert!(
                files[0].ends_with("/given.dat") && files[1].ends_with("/new.dat"),
                "{files:?}"
            );
            assert_eq!(std::fs::read(dir.path().join("given.dat")).unwrap(), given);
            assert_eq!(
                entries(dir.path()),
                ["given.dat"],
                "the new file is removed"
            );
        }
    }
}

/// Job files whose size and file come from the command line and whose
/// common options come from an included file, as tools such as Longhorn's
/// kbench run fio (`fio JOB --filename=F --size=S`):
/// `iolab run JOB --file F --size S` runs what fio 3.33 runs, per job, and
/// a job's own key wins over the command line's, as in fio.
#[test]
fn options_after_a_job_file_are_every_jobs_default_as_fios_command_line() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let (dir, out) = (scratch(), scratch());
    let file = dir.path().join("target.dat");
    std::fs::write(&file, vec![7u8; 8 << 20]).unwrap();
    // The common options in a file of their own, included as kbench does,
    // relative to the job file.
    std::fs::create_dir(out.path().join("common")).unwrap();
    std::fs::write(
        out.path().join("common/base.fio"),
        "ioengine=psync\nbs=4k\n",
    )
    .unwrap();
    let text = "[global]\ninclude common/base.fio\n[reads]\nrw=randread\n[own]\nrw=read\nsize=1m\nbs=64k\n";
    let job = write_job(out.path(), "kbench.fio", text, dir.path());
    let fio_output = out.path().join("fio.json");
    succeed(&mut assert_cmd::Command::from_std({
        let mut fio = std::process::Command::new("fio");
        fio.current_dir(out.path())
            .arg(&job)
            .arg(format!("--filename={}", file.display()))
            .args(["--size=2m", "--bs=16k", "--output-format=json"])
            .arg(format!("--output={}", fio_output.display()));
        fio
    }));
    let fio = fio_json(&fio_output);
    let result = run_ok(
        &[
            "run",
            job.to_str().unwrap(),
            "--file",
            file.to_str().unwrap(),
            "--size",
            "2m",
            "--bs",
            "16k",
        ],
        out.path(),
    );
    let point = first_point(&result);
    for group in ["reads", "own"] {
        let theirs = fio_per_job(&fio, group, "read");
        let ours = our_per_job(point, group);
        assert_eq!(ours, theirs, "{group}: per job (I/Os, bytes)");
    }
    // The job file's [global] bs=4k is a job's own key: it wins over --bs
    // 16k for [reads] as in fio; [own] keeps its 1 MiB of 64 KiB reads.
    let workload = |group: &str| {
        point["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["label"] == group)
            .unwrap()["workload"]
            .clone()
    };
    assert_eq!(
        (
            workload("reads")["bs"].as_u64(),
            workload("reads")["size"].as_u64()
        ),
        (Some(4096), Some(2 << 20))
    );
    assert_eq!(
        (
            workload("own")["bs"].as_u64(),
            workload("own")["size"].as_u64()
        ),
        (Some(65536), Some(1 << 20))
    );
    // A flag fio's command line has no option for is refused, naming it.
    let refused = iolab()
        .args(["run", job.to_str().unwrap(), "--cache", "warm"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--cache: ") && stderr.contains("sets the workload"),
        "{stderr}"
    );
    // Two flags that are one fio option are not merged silently.
    let refused = iolab()
        .args([
            "run",
            job.to_str().unwrap(),
            "--runtime",
            "2s",
            "--time-limit",
            "3s",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--runtime and --time-limit are both fio's runtime"),
        "{stderr}"
    );
}

/// fio's `verify=crc32c` on a write job is iolab's `--verify`: the same
/// writes as fio 3.33's, each block checked from the device afterwards,
/// untimed, and a note says fio times its verify reads (issue "fio's job
/// files as users have them": `verify` blocked 19 of fio's examples).
#[test]
fn a_write_jobs_verify_seals_and_checks_every_block_as_fio_verifies() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let text = "[global]\ndirectory=DIR\nioengine=psync\nsize=4m\nbs=64k\n[sealed]\nrw=randwrite\nverify=crc32c\n";
    let job = write_job(out.path(), "verify.fio", text, dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&job, &fio_output);
    let fio = fio_json(&fio_output);
    let theirs = &fio["jobs"][0];
    let ran = succeed(iolab().args(["-v", "run", job.to_str().unwrap(), "--json"]));
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(
        stderr.contains("verify=crc32c: each block written is sealed"),
        "{stderr}"
    );
    let result: Value = serde_json::from_slice(&ran.stdout).unwrap();
    let repetition = &first_point(&result)["repetitions"][0];
    assert_eq!(
        repetition["ops"], theirs["write"]["total_ios"],
        "{repetition}"
    );
    assert_eq!(repetition["bytes"], theirs["write"]["io_bytes"]);
    assert_eq!(repetition["verify"]["bad_blocks"], 0, "{repetition}");
    assert_eq!(
        repetition["verify"]["blocks"].as_u64().unwrap() * 65536,
        4 << 20,
        "every block checked: {}",
        repetition["verify"]
    );
    // fio's own file stays; iolab's is gone.
    let left = entries(dir.path());
    assert!(
        left.iter().all(|name| name.starts_with("sealed")),
        "{left:?}"
    );
}

/// fio's file engines run as iolab's metadata ops (issue "fio's job files
/// as users have them", item 4): each job creates, stats or deletes its
/// `nrfiles` files, the same operations per job as fio 3.33 on the same
/// file, sections of the same op joined into one group on one tree (a
/// point holds one tree), nothing left behind; a filecreate job without
/// `create_on_open`, which fio times as opens of laid-out files, is
/// refused by line. `dirstat` (fio 3.34's: directories made at setup,
/// each stat'ed once) runs on iolab alone, fio 3.33 having no such engine.
#[test]
fn fios_file_engines_run_as_metadata_ops_with_fios_counts() {
    if !crate::fast::import::fio_available() {
        return;
    }
    for (engine, extra) in [
        ("filecreate", "create_on_open=1\n"),
        ("filestat", ""),
        ("filedelete", ""),
    ] {
        let text = format!(
            "[global]\nioengine={engine}\n{extra}filesize=4k\nnrfiles=40\ndirectory=DIR\n\
             [t0]\n[t1]\nnumjobs=2\n"
        );
        let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
        let fio_job = write_job(out.path(), "fio.fio", &text, fio_dir.path());
        let fio_output = out.path().join("fio.json");
        run_fio(&fio_job, &fio_output);
        let fio = fio_json(&fio_output);
        let mut theirs: Vec<u64> = ["t0", "t1"]
            .iter()
            .flat_map(|section| fio_per_job(&fio, section, "read"))
            .map(|(ios, _)| ios)
            .collect();
        let job = write_job(out.path(), "files.fio", &text, dir.path());
        let result = run_ok(&["run", job.to_str().unwrap()], out.path());
        let point = first_point(&result);
        let mut ours: Vec<u64> = our_per_job(point, "t0")
            .into_iter()
            .map(|(ops, _)| ops)
            .collect();
        theirs.sort_unstable();
        ours.sort_unstable();
        assert_eq!(ours, theirs, "{engine}: operations per job");
        assert_eq!(ours, vec![40, 40, 40], "{engine}");
        assert!(entries(dir.path()).is_empty(), "{engine}: nothing left");
    }
    let (dir, out) = (scratch(), scratch());
    let text = "[global]\nioengine=dirstat\nfilesize=4k\nnrfiles=40\ndirectory=DIR\n[t0]\n[t1]\nnumjobs=2\n";
    let job = write_job(out.path(), "dirs.fio", text, dir.path());
    let result = run_ok(&["run", job.to_str().unwrap()], out.path());
    let point = first_point(&result);
    assert_eq!(point["workload"]["op"], "dirstat");
    let ours: Vec<u64> = our_per_job(point, "t0")
        .into_iter()
        .map(|(ops, _)| ops)
        .collect();
    assert_eq!(ours, vec![40, 40, 40], "dirstat");
    let calls = &point["repetitions"][0]["tree"]["system_calls"];
    assert_eq!(calls["newfstatat"], 120, "{calls}");
    assert!(entries(dir.path()).is_empty(), "dirstat: nothing left");
    let out = scratch();
    for (text, words) in [
        (
            "[j]\nioengine=filecreate\nnrfiles=4\n",
            "line 2: [j] ioengine=filecreate without create_on_open=1",
        ),
        (
            "[j]\nioengine=filestat\nnrfiles=4\nbs=8k\n",
            "line 4: [j] bs: ioengine=filestat times one stat per file",
        ),
        (
            "[j]\nsize=1m\nnrfiles=4\n",
            "line 3: [j] nrfiles=4: an iolab job works on one file",
        ),
    ] {
        let job = write_job(out.path(), "bad.fio", text, out.path());
        let refused = iolab()
            .current_dir(out.path())
            .arg("run")
            .arg(&job)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(words), "{text}: {stderr}");
        assert_eq!(entries(out.path()), vec!["bad.fio".to_string()]);
    }
}

/// `offset_increment` splits a given file between a job's clones as fio's
/// does: job k reads from offset + k × increment, the same I/Os and bytes
/// per job as fio 3.33, and strace sees each thread's reads in its own
/// region, every block of it once (issue "fio's job files as users have
/// them": `offset_increment`, as kbench and fio's device examples use it).
#[test]
fn offset_increment_gives_each_job_its_own_region_as_fio_does() {
    if !fio_and_strace() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let file = dir.path().join("given.dat");
    let content: Vec<u8> = (0..8u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &content).unwrap();
    let text = "[global]\nfilename=DIR/given.dat\nioengine=psync\nbs=64k\nsize=2m\n\
                offset_increment=2m\n[r]\nrw=read\nnumjobs=4\n";
    let job = write_job(out.path(), "split.fio", text, dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&job, &fio_output);
    let fio = fio_json(&fio_output);
    let trace = out.path().join("trace");
    let result_path = out.path().join("r.json");
    let mut command = assert_cmd::Command::from_std(std::process::Command::new("strace"));
    command
        // A file per thread (`-ff`): no call is cut by another thread's;
        // no data shown (`-s 0`), which could hold ", " and split the args.
        .args(["-ff", "-qq", "-s", "0", "-e", "trace=pread64", "-o"])
        .arg(&trace)
        .arg(assert_cmd::cargo::cargo_bin("iolab"))
        .arg("run")
        .arg(&job)
        .arg("--output")
        .arg(&result_path);
    succeed(&mut command);
    let result = read_result(&result_path);
    let ours = our_per_job(first_point(&result), "r");
    assert_eq!(
        ours,
        fio_per_job(&fio, "r", "read"),
        "per job (I/Os, bytes)"
    );
    // Each thread's 64 KiB reads: one region of 2 MiB per thread, in order.
    let mut by_thread: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
    for entry in std::fs::read_dir(out.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix("trace.") else {
            continue;
        };
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            if let Some(args) = line.strip_prefix("pread64(") {
                let fields: Vec<&str> = args.split(", ").collect();
                if fields.len() >= 4 && fields[2] == "65536" {
                    let offset = fields[3].split(')').next().unwrap().parse().unwrap();
                    by_thread.entry(pid.to_string()).or_default().push(offset);
                }
            }
        }
    }
    let mut regions: Vec<u64> = by_thread
        .values()
        .map(|offsets| {
            let start = offsets.iter().min().copied().unwrap();
            let mut sorted = offsets.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 32, "every block of the region once");
            assert!(
                sorted
                    .iter()
                    .all(|o| (start..start + (2 << 20)).contains(o))
            );
            start
        })
        .collect();
    regions.sort_unstable();
    assert_eq!(regions, [0, 2 << 20, 4 << 20, 6 << 20], "{by_thread:?}");
    assert_eq!(std::fs::read(&file).unwrap(), content);
}

/// A log's lines as (time ms, value, direction), each checked to have the
/// five fields of fio 3.33's logs.
fn log_lines(path: &Path) -> Vec<(u64, u64, u64)> {
    log_fields(path, 5)
        .into_iter()
        .map(|fields| (fields[0], fields[1], fields[2]))
        .collect()
}

/// A log's lines, each checked to have `count` fields.
fn log_fields(path: &Path, count: usize) -> Vec<Vec<u64>> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|line| {
            let fields: Vec<u64> = line.split(", ").map(|f| f.parse().unwrap()).collect();
            assert_eq!(fields.len(), count, "fio's {count} fields: {line}");
            fields
        })
        .collect()
}

/// Runs fio on `job` in `dir`, where it writes its logs, terse output.
fn fio_in(dir: &Path, job: &Path) {
    succeed(&mut assert_cmd::Command::from_std({
        let mut fio = std::process::Command::new("fio");
        fio.current_dir(dir).arg(job).arg("--output-format=terse");
        fio
    }));
}

/// `write_bw_log` and `write_iops_log` with `log_avg_msec` give logs in
/// fio's format beside the result — a line per window and direction, in the
/// columns fio 3.33 writes for the same job file — whose windows add up to
/// what the result counted.
#[test]
fn log_keys_write_fio_format_logs_beside_the_result() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let text = "[mixed]\nioengine=null\nsize=64m\nrw=randrw\ntime_based\nruntime=1\n\
                write_bw_log=m\nwrite_iops_log=m\nlog_avg_msec=200\n";
    let (fio_dir, out) = (scratch(), scratch());
    let job = write_job(out.path(), "logs.fio", text, out.path());
    // fio writes its logs in its working directory.
    fio_in(fio_dir.path(), &job);
    let fio_log = log_lines(&fio_dir.path().join("m_iops.1.log"));
    let result = run_ok(&["run", job.to_str().unwrap()], out.path());
    let repetition = &first_point(&result)["repetitions"][0];
    for (suffix, total) in [("bw", "bytes"), ("iops", "ops")] {
        let ours = log_lines(&out.path().join(format!("result-0.m_{suffix}.1.r1.log")));
        // Both directions in every window, as fio logs them.
        let directions = |log: &[(u64, u64, u64)]| {
            let mut seen: Vec<u64> = log.iter().map(|l| l.2).collect();
            seen.dedup();
            seen.sort_unstable();
            seen.dedup();
            seen
        };
        assert_eq!(directions(&ours), directions(&fio_log), "{suffix}");
        let windows: Vec<u64> = ours.iter().map(|l| l.0).collect();
        assert_eq!(windows[..2], [200, 200], "{windows:?}");
        assert!((8..=10).contains(&ours.len()), "{ours:?}");
        // A window's rate times its 0.2 s is what it counted.
        let unit = if suffix == "bw" { 1024.0 } else { 1.0 };
        let logged: f64 = ours.iter().map(|l| l.1 as f64 * 0.2 * unit).sum();
        let counted = repetition[total].as_u64().unwrap() as f64;
        assert!(
            (logged / counted - 1.0).abs() < 0.01,
            "{suffix}: the log's windows hold {logged}, the result {counted}"
        );
    }
    // A second run never writes over the first's logs: its own names.
    run_ok(&["run", job.to_str().unwrap()], out.path());
    assert!(out.path().join("result-1.m_bw.1.r1.log").exists());
    // log_offset adds the offset column, 0 for a window: fio 3.33's
    // averaged log holds `time, value, direction, 0, 0, 0` too.
    let offsets = write_job(
        out.path(),
        "offsets.fio",
        &format!("{text}log_offset=1\n"),
        out.path(),
    );
    fio_in(fio_dir.path(), &offsets);
    run_ok(&["run", offsets.to_str().unwrap()], out.path());
    for path in [
        fio_dir.path().join("m_bw.1.log"),
        out.path().join("result-2.m_bw.1.r1.log"),
    ] {
        let lines = log_fields(&path, 6);
        assert!(lines.iter().all(|f| f[3..] == [0, 0, 0]), "{lines:?}");
    }
}

/// Without `log_avg_msec` fio's logs have a line per I/O, and `write_iolog`
/// lists each I/O as issued: for one sequential writer, iolab's logs hold
/// fio 3.33's lines (direction, bytes, offset, in order) and its iolog
/// fio's I/Os, and fio replays iolab's iolog with the same count and
/// bytes. `--log-ios` keeps the same I/Os in iolab's CSV.
#[test]
fn per_io_logs_and_the_iolog_hold_fios_ios_and_replay_in_fio() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let text = "[w]\ndirectory=DIR\nfilename=w.dat\nioengine=psync\nrw=write\nbs=4k\nsize=256k\n\
                write_bw_log=w\nwrite_lat_log=w\nlog_offset=1\nwrite_iolog=w.iolog\n";
    let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
    let fio_job = write_job(out.path(), "fio.fio", text, fio_dir.path());
    fio_in(fio_dir.path(), &fio_job);
    let job = write_job(out.path(), "w.fio", text, dir.path());
    run_ok(&["run", job.to_str().unwrap(), "--log-ios"], out.path());
    // (direction, bytes, offset) of each line, as fio logs them.
    let columns = |path: &Path| -> Vec<Vec<u64>> {
        log_fields(path, 6)
            .into_iter()
            .map(|f| f[2..5].to_vec())
            .collect()
    };
    for suffix in ["bw", "lat", "clat"] {
        let theirs = columns(&fio_dir.path().join(format!("w_{suffix}.1.log")));
        let ours = columns(&out.path().join(format!("result-0.w_{suffix}.1.r1.log")));
        assert_eq!(theirs.len(), 64, "{suffix}");
        assert_eq!(ours, theirs, "{suffix}");
    }
    // The iolog's I/O lines, without fio's times.
    let ios = |path: &Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .skip(1)
            .filter_map(|line| {
                let fields: Vec<&str> = line.split(' ').collect();
                (fields.len() == 5).then(|| fields[2..].join(" "))
            })
            .collect()
    };
    let ours_path = out.path().join("result-0.w.iolog.1.r1.log");
    let ours = ios(&ours_path);
    assert_eq!(ours.len(), 64);
    assert_eq!(ours, ios(&fio_dir.path().join("w.iolog")));
    let replayed = out.path().join("replay.json");
    succeed(&mut assert_cmd::Command::from_std({
        let mut fio = std::process::Command::new("fio");
        fio.current_dir(fio_dir.path())
            .arg("--name=replay")
            .arg(format!("--read_iolog={}", ours_path.display()))
            .arg("--output-format=json")
            .arg(format!("--output={}", replayed.display()));
        fio
    }));
    let replay = fio_json(&replayed);
    assert_eq!(replay["jobs"][0]["write"]["total_ios"], 64);
    assert_eq!(replay["jobs"][0]["write"]["io_bytes"], 256 << 10);
    // And in iolab: the same writes, counted against the trace's.
    let record = out.path().join("replay-record.json");
    succeed(
        iolab()
            .current_dir(out.path())
            .arg("replay")
            .arg(&ours_path)
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(&record),
    );
    let record: Value = serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    let writes = &record["fidelity"]["counts"][0];
    assert_eq!(writes["kind"], "write", "{record}");
    for (field, count) in [
        ("trace_ios", 64),
        ("replay_ios", 64),
        ("replay_bytes", 256 << 10),
    ] {
        assert_eq!(writes[field], count, "{field}: {writes}");
    }
    // iolab's own CSV: the same I/Os.
    let csv = std::fs::read_to_string(out.path().join("result-0.ios.1.1.r1.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "issued_ns,latency_ns,direction,offset,bytes");
    let offsets: Vec<u64> = lines[1..]
        .iter()
        .map(|l| l.split(',').nth(3).unwrap().parse().unwrap())
        .collect();
    assert_eq!(offsets, (0..64).map(|k| k * 4096).collect::<Vec<u64>>());
}

/// fio's `verify_backlog` reads back each run of N writes as it goes: for
/// the same job file fio 3.33 reads 64 blocks in its write job (its verify
/// reads) and iolab checks the same 64 in the loop (`backlog_blocks`), and
/// again after it; the file is opened for reading and writing, as fio's.
#[test]
fn verify_backlog_reads_back_the_writes_fio_reads_back() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let text = "[w]\ndirectory=DIR\nfilename=v.dat\nrw=write\nbs=16k\nsize=1m\n\
                verify=crc32c\nverify_backlog=4\n";
    let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
    let fio_job = write_job(out.path(), "fio.fio", text, fio_dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&fio_job, &fio_output);
    let fio = fio_json(&fio_output);
    let job = &fio["jobs"][0];
    assert_eq!(job["write"]["total_ios"], 64);
    assert_eq!(job["read"]["total_ios"], 64, "fio's verify reads");
    let ours = write_job(out.path(), "v.fio", text, dir.path());
    let result = run_ok(&["run", ours.to_str().unwrap()], out.path());
    let point = first_point(&result);
    let repetition = &point["repetitions"][0];
    assert_eq!(repetition["ops"], 64);
    assert_eq!(repetition["verify"]["backlog_blocks"], 64);
    assert_eq!(repetition["verify"]["bad_blocks"], 0);
    assert!(
        point["target"]["open_flags"]
            .as_str()
            .unwrap()
            .starts_with("O_RDWR"),
        "{}",
        point["target"]
    );
}

/// fio's loops with io_size move io_size per loop, each going on where the
/// last stopped, and offset_increment without size runs each job to the
/// file's end: on one 4 MiB file, per job the I/Os and bytes of fio 3.33.
#[test]
fn loops_of_io_size_and_increments_to_the_end_move_fios_ios() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let text = "[global]\ndirectory=DIR\nfilename=given.dat\nbs=64k\n\
                [looped]\nrw=randread\nsize=1m\nio_size=256k\nloops=3\n\
                [spread]\nstonewall\nrw=read\nnumjobs=2\noffset_increment=1m\nio_size=256k\n";
    let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
    for made in [&fio_dir, &dir] {
        std::fs::write(made.path().join("given.dat"), vec![1u8; 4 << 20]).unwrap();
    }
    let fio_job = write_job(out.path(), "fio.fio", text, fio_dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&fio_job, &fio_output);
    let fio = fio_json(&fio_output);
    let job = write_job(out.path(), "l.fio", text, dir.path());
    let result = run_ok(&["run", job.to_str().unwrap()], out.path());
    let points = result["points"].as_array().unwrap();
    assert_eq!(fio_per_job(&fio, "looped", "read"), [(12, 768 << 10)]);
    assert_eq!(fio_per_job(&fio, "spread", "read"), [(4, 256 << 10); 2]);
    for (point, group) in points.iter().zip(["looped", "spread"]) {
        let ours = match point["groups"].as_array() {
            Some(_) => our_per_job(point, group),
            None => Vec::new(),
        };
        assert_eq!(ours, fio_per_job(&fio, group, "read"), "{group}");
    }
    // Past the file, fio's count is its own: refused with why.
    let over = write_job(
        out.path(),
        "over.fio",
        "[o]\ndirectory=DIR\nfilename=given.dat\nrw=read\nsize=256k\nio_size=384k\nloops=2\n",
        dir.path(),
    );
    let refused = run_refused(dir.path(), &[over.to_str().unwrap()], "io_size");
    assert!(refused.contains("moves size per loop"), "{refused}");
}

/// A paced job whose submission fio offloads (fio's
/// poisson-rate-submission.fio, smaller) runs with its note and the I/Os
/// of its size. Not run beside fio: fio 3.33's offload mode on the null
/// engine hung here (2 of 3 runs, 2026-11-27), so the count is checked
/// against the job's own arithmetic (256 KiB / 4 KiB).
#[test]
fn an_offloaded_paced_job_runs_its_ios_with_a_note() {
    let out = scratch();
    let job = write_job(
        out.path(),
        "offload.fio",
        "[a]\nioengine=null\nsize=256k\nrw=randread\niodepth=8\nio_submit_mode=offload\nrate_iops=400\nrate_process=poisson\n",
        out.path(),
    );
    let output = out.path().join("offload.json");
    let run = succeed(
        iolab()
            .arg("run")
            .arg(&job)
            .arg("--no-report")
            .arg("-o")
            .arg(&output),
    );
    assert!(run.stderr.is_empty(), "the note is in the result: {run:?}");
    let result = read_result(&output);
    assert!(
        result["notes"][0]
            .as_str()
            .unwrap()
            .contains("io_submit_mode=offload: iolab's job thread issues each I/O at its due time"),
        "{result}"
    );
    let repetition = &first_point(&result)["repetitions"][0];
    assert_eq!(repetition["ops"], 64, "{repetition}");
}

/// fio's `exitall`: each job's end stops the jobs its `exit_what` names —
/// its fio group (the sections since the last `new_group` or `stonewall`),
/// the phase, or every job, the phases not started included. The same
/// job file run by fio 3.33 and by iolab on the null engine: the jobs that
/// end by themselves make the same I/Os, a 20 s job stopped by its
/// group's end stops within a second in both, one in a group of its own
/// runs its 2 s, and a phase after `exit_what=all` runs in neither.
#[test]
fn exitall_stops_the_jobs_fio_stops_when_one_ends() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let job = write_job(
        out.path(),
        "exits.fio",
        "[global]\nioengine=null\nexitall\nsize=1m\nrw=read\n\
         [short]\nthinktime=1000\n\
         [apart]\nnew_group\ntime_based\nruntime=2\n\
         [short2]\nstonewall\nthinktime=1000\n\
         [long]\ntime_based\nruntime=20\n\
         [later]\nstonewall\nexit_what=all\n\
         [never]\nstonewall\n",
        dir.path(),
    );
    let fio_output = out.path().join("fio.json");
    run_fio(&job, &fio_output);
    let fio = fio_json(&fio_output);
    let fio_job = |name: &str| -> (u64, f64) {
        let job = fio_job(&fio, name);
        (
            job["read"]["total_ios"].as_u64().unwrap(),
            job["job_runtime"].as_f64().unwrap() / 1e3,
        )
    };
    let result = run_ok(&["run", job.to_str().unwrap(), "--no-report"], out.path());
    let ours: Vec<(String, u64, f64)> = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|point| point["groups"].as_array().unwrap())
        .map(|group| {
            let repetition = &group["repetitions"][0];
            (
                group["label"].as_str().unwrap().to_string(),
                repetition["ops"].as_u64().unwrap(),
                repetition["elapsed_ns"].as_f64().unwrap() / 1e9,
            )
        })
        .collect();
    let iolab_job = |name: &str| {
        ours.iter()
            .find(|(label, ..)| label == name)
            .map(|(_, ops, seconds)| (*ops, *seconds))
    };
    for name in ["short", "short2", "later"] {
        assert_eq!(
            iolab_job(name).map(|(ops, _)| ops),
            Some(fio_job(name).0),
            "{name}: {ours:?}"
        );
    }
    for (tool, (_, seconds)) in [
        ("fio", fio_job("long")),
        ("iolab", iolab_job("long").unwrap()),
    ] {
        assert!(seconds < 5.0, "{tool}: [long] ran {seconds} s");
    }
    for (tool, (_, seconds)) in [
        ("fio", fio_job("apart")),
        ("iolab", iolab_job("apart").unwrap()),
    ] {
        assert!(seconds > 1.9, "{tool}: [apart] ran {seconds} s");
    }
    assert_eq!(fio_job("never").0, 0);
    assert_eq!(iolab_job("never"), None, "{ours:?}");
}

/// Whether fio and strace are here (each missing one counted as a skip).
fn fio_and_strace() -> bool {
    if !crate::fast::import::fio_available() {
        return false;
    }
    if !crate::mounts::have("strace") {
        crate::skip!("strace is not installed (scripts/test installs it)");
        return false;
    }
    true
}

/// The reads fio 3.33 makes running job `text` (`DIR` replaced with
/// `dir`), as (offset, length) in issue order from its `write_iolog`
/// (v3: `TIME FILE read OFFSET LENGTH`), and its JSON output.
fn fio_reads(text: &str, out: &Path, dir: &Path) -> (Vec<(u64, u64)>, Value) {
    let iolog = out.join("fio.iolog");
    let logged = write_job(
        out,
        "logged.fio",
        &format!("{text}write_iolog={}\n", iolog.display()),
        dir,
    );
    let output = out.join("fio.json");
    run_fio(&logged, &output);
    let reads = std::fs::read_to_string(&iolog)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields.len() == 5 && fields[2] == "read")
                .then(|| (fields[3].parse().unwrap(), fields[4].parse().unwrap()))
        })
        .collect();
    let fio = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    (reads, fio)
}

/// The `pread64` calls of `iolab run JOB --output RESULT` under strace, as
/// (offset, length) in the order made (one job: one thread's order).
fn straced_reads(job: &Path, result: &Path, out: &Path) -> Vec<(u64, u64)> {
    let trace = out.join("trace");
    let mut command = assert_cmd::Command::from_std(std::process::Command::new("strace"));
    command
        .args(["-f", "-qq", "-s", "0", "-e", "trace=pread64", "-o"])
        .arg(&trace)
        .arg(assert_cmd::cargo::cargo_bin("iolab"))
        .arg("run")
        .arg(job)
        .arg("--output")
        .arg(result);
    succeed(&mut command);
    std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_once("pread64(")?.1.split(", ").collect();
            let offset = fields.get(3)?.split(')').next()?.parse().ok()?;
            Some((offset, fields.get(2)?.parse().ok()?))
        })
        .collect()
}

/// fio's `blockalign` on random draws (JESD219's `blockalign=4k` beside
/// sizes from 512 bytes, zoned, `norandommap`): every I/O starts on the
/// boundary. The same job file run by fio 3.33 (its `write_iolog` holds
/// each offset) and by iolab on a file of its own under strace: both
/// only on 4 KiB multiples, both with I/Os of 512 bytes, the same bytes.
#[test]
fn blockalign_puts_every_random_offset_on_the_boundary_as_fio_does() {
    if !fio_and_strace() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let file = dir.path().join("aligned.dat");
    std::fs::write(&file, vec![7u8; 4 << 20]).unwrap();
    let text = "[j]\nfilename=DIR/aligned.dat\nioengine=psync\nsize=4m\nrw=randread\n\
                norandommap\nbssplit=512/20:1k/10:4k/50:8k/20\nblockalign=4k\n\
                random_distribution=zoned:50/5:30/15:20/80\n";
    let job = write_job(out.path(), "aligned.fio", text, dir.path());
    let (fio_ios, fio) = fio_reads(text, out.path(), dir.path());
    let result_path = out.path().join("r.json");
    // The timed reads of the given file: iolab's own reads (of /proc,
    // say) are not of these lengths at these offsets only.
    let ours: Vec<(u64, u64)> = straced_reads(&job, &result_path, out.path())
        .into_iter()
        .filter(|(offset, len)| *offset < 4 << 20 && [512, 1024, 4096, 8192].contains(len))
        .collect();
    for (tool, ios) in [("fio", &fio_ios), ("iolab", &ours)] {
        assert!(ios.len() > 500, "{tool}: {} I/Os", ios.len());
        assert!(
            ios.iter().all(|(offset, _)| offset % 4096 == 0),
            "{tool}: an offset off the 4 KiB boundary: {:?}",
            ios.iter().find(|(offset, _)| offset % 4096 != 0)
        );
        assert!(ios.iter().any(|(_, len)| *len == 512), "{tool}");
    }
    let result = read_result(&result_path);
    let repetition = &first_point(&result)["groups"][0]["repetitions"][0];
    assert_eq!(
        repetition["bytes"].as_u64(),
        fio["jobs"][0]["read"]["io_bytes"].as_u64()
    );
}

/// fio's `zonemode=strided` (its `disk-zone-profile.fio`: `zonesize` read,
/// `zoneskip` skipped, `size` bytes moved, wrapping over the zones) is
/// iolab's `bands:R/S` pattern with fio's `io_size`: the same job file run
/// by fio 3.33 (offsets from its `write_iolog`) and by iolab under strace
/// reads the same offsets in the same order.
#[test]
fn strided_zones_read_the_offsets_fio_reads() {
    if !fio_and_strace() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    std::fs::write(dir.path().join("disk.dat"), vec![3u8; 10 << 20]).unwrap();
    let text = "[profile]\nfilename=DIR/disk.dat\nioengine=psync\nrw=read\nbs=256k\n\
                size=10m\nzonemode=strided\nzonesize=1m\nzoneskip=3m\n";
    let job = write_job(out.path(), "zones.fio", text, dir.path());
    let (fio_reads, _) = fio_reads(text, out.path(), dir.path());
    let fio_offsets: Vec<u64> = fio_reads.iter().map(|(offset, _)| *offset).collect();
    let ours: Vec<u64> = straced_reads(&job, &out.path().join("r.json"), out.path())
        .into_iter()
        .filter(|(_, len)| *len == 256 << 10)
        .map(|(offset, _)| offset)
        .collect();
    // 10 MiB in zones of 1 MiB every 4 MiB: 0, 4 and 8 MiB, 4 reads each,
    // wrapping until 10 MiB were read: 40 reads.
    assert_eq!(fio_offsets.len(), 40, "{fio_offsets:?}");
    assert!(fio_offsets.iter().all(|o| (o >> 20) % 4 == 0));
    assert_eq!(ours, fio_offsets);
}

/// fio's steady state (`ss`, `ss_dur`, `ss_ramp`) ends a paced job once
/// its IOPS (or bandwidth's slope) is steady, as fio 3.33 ends it: the
/// same job file run by both, each phase ends once its window is full, far
/// before its runtime, and both say the criterion was attained.
#[test]
fn steadystate_ends_a_steady_job_when_fio_ends_it() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let job = write_job(
        out.path(),
        "steady.fio",
        "[global]\nioengine=null\nsize=64m\nrw=randread\nrate_iops=2000\ntime_based\nruntime=30\n\
         [deviation]\nss=iops:5%\nss_dur=3\nss_ramp=1\n\
         [slope]\nstonewall\nss=bw_slope:1%\nss_dur=3\n\
         [summed]\nstonewall\nnumjobs=2\ngroup_reporting\nss=iops:5%\nss_dur=3\nss_ramp=1\n",
        dir.path(),
    );
    let fio_output = out.path().join("fio.json");
    run_fio(&job, &fio_output);
    let fio = fio_json(&fio_output);
    let result = run_ok(&["run", job.to_str().unwrap(), "--no-report"], out.path());
    let points = result["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    // With group_reporting fio judges the jobs' sum: iolab's `:sum`.
    assert!(
        points[2]["groups"][0]["workload"]["steady"]
            .as_str()
            .is_some_and(|s| s.ends_with(":sum")),
        "{}",
        points[2]["groups"][0]["workload"]
    );
    for (point, name) in points.iter().zip(["deviation", "slope", "summed"]) {
        let fio_job = fio_job(&fio, name);
        assert_eq!(fio_job["steadystate"]["attained"], 1, "fio {name}");
        // group_reporting sums the jobs' runtimes.
        let jobs = if name == "summed" { 2.0 } else { 1.0 };
        let fio_s = fio_job["job_runtime"].as_f64().unwrap() / 1e3 / jobs;
        let group = point["groups"].as_array().map_or(point, |g| &g[0]);
        let repetition = &group["repetitions"][0];
        assert_eq!(
            repetition["steady"]["reached"], true,
            "{name}: {repetition}"
        );
        // Both ended by the rule, not by the 30 s runtime: no sooner than
        // the window (ss_ramp + ss_dur, less fio's first one-second sample,
        // which can close it 0.2 s early), and well before the end.
        // How much later than that each attains it depends on the machine's
        // load (fio took 6.8 s against iolab's 5.0 s beside other tests):
        // times are not compared.
        let ours = repetition["elapsed_ns"].as_f64().unwrap() / 1e9;
        let window = if name == "slope" { 3.0 } else { 4.0 };
        for (tool, seconds) in [("iolab", ours), ("fio", fio_s)] {
            assert!(
                seconds >= window - 1.0 && seconds < 20.0,
                "{name}: {tool} ran {seconds} s (iolab {ours} s, fio {fio_s} s)"
            );
        }
    }
}

#[test]
fn flow_keeps_the_share_of_ios_fio_keeps() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let dir = scratch();
    let out = scratch();
    // fio's butterfly (two size-bound jobs, one walking back) and its flow
    // example (a writer and a reader 1:8 over a time, with a sleep), in two
    // files: fio's `exitall` is every job's once one job has it
    // (`exitall_on_terminate`), so in one file the butterfly's first job
    // to end stops the other — at once in iolab, after fio's reaper's next
    // look in fio, so an I/O the flow held back was lost in iolab alone
    // (1023 of 1024, under load, in CI). The pair ends together
    // (`exitall`): the flow holds them 1:8 while both run, and a job whose
    // thread started late beside other tests would otherwise run free after
    // the other's time was up (it failed so, 1 CI run in 2, at 2 tests at once).
    let butterfly = write_job(
        out.path(),
        "butterfly.fio",
        "[global]\nioengine=null\nsize=4m\nbs=4k\n\
         [forward]\nrw=read\nflow=2\n\
         [backward]\nrw=read:-8k\nflow=2\n",
        dir.path(),
    );
    let pair = write_job(
        out.path(),
        "flow.fio",
        "[global]\nioengine=null\nsize=4m\nbs=4k\n\
         [writer]\nrw=write\nflow=1\nflow_id=1\nflow_sleep=100\ntime_based\nruntime=1\nexitall\n\
         [reader]\nrw=randread\nflow=8\nflow_id=1\nflow_sleep=100\ntime_based\nruntime=1\nexitall\n",
        dir.path(),
    );
    // Per job file: each section's I/Os, fio's and iolab's.
    let counts = |job: &std::path::Path, names: [&str; 2]| {
        let fio_output = out.path().join(format!(
            "fio-{}.json",
            job.file_stem().unwrap().to_string_lossy()
        ));
        run_fio(job, &fio_output);
        let fio = fio_json(&fio_output);
        let result = run_ok(&["run", job.to_str().unwrap(), "--no-report"], out.path());
        names.map(|name| {
            let fio_job = fio_job(&fio, name);
            let fio_ios: u64 = ["read", "write"]
                .iter()
                .map(|d| fio_job[d]["total_ios"].as_u64().unwrap())
                .sum();
            let ours = result["points"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|point| point["groups"].as_array().unwrap())
                .find(|group| group["label"] == name)
                .unwrap_or_else(|| panic!("no group {name}"))["repetitions"][0]["ops"]
                .as_u64()
                .unwrap();
            (fio_ios, ours)
        })
    };
    for (name, (fio, ours)) in ["forward", "backward"]
        .into_iter()
        .zip(counts(&butterfly, ["forward", "backward"]))
    {
        assert_eq!(ours, fio, "{name}");
        assert_eq!(ours, 1024, "{name}");
    }
    let [(fio_writer, our_writer), (fio_reader, our_reader)] = counts(&pair, ["writer", "reader"]);
    let fio_ratio = fio_reader as f64 / fio_writer as f64;
    let our_ratio = our_reader as f64 / our_writer as f64;
    for (tool, ratio) in [("fio", fio_ratio), ("iolab", our_ratio)] {
        assert!((ratio - 8.0).abs() < 0.4, "{tool}: reader/writer {ratio}");
    }
}

/// Two sections under one `[global]` `write_iops_log=PRE` write apart, as
/// fio's `PRE_iops.1.log` and `PRE_iops.2.log` (they used to collide), and
/// a log name already taken beside `-o` is refused before any I/O, exit 2
/// (it used to fail after measuring, exit 1).
#[test]
fn logs_of_two_sections_write_apart_and_a_taken_name_is_refused_before_any_io() {
    let out = scratch();
    let text = "[global]\nioengine=null\nsize=16m\nrw=read\nwrite_iops_log=PRE\n[a]\n[b]\nnumjobs=2\n[c]\n";
    let job = write_job(out.path(), "two.fio", text, out.path());
    let result = out.path().join("r.json");
    let ran = iolab()
        .args(["run", job.to_str().unwrap(), "-o", result.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    // fio numbers jobs in file order: a is 1, b's two are 2 and 3, c is 4.
    for job_number in [1, 2, 4] {
        let log = out.path().join(format!("r.PRE_iops.{job_number}.r1.log"));
        assert!(log.exists(), "{}: {:?}", log.display(), entries(out.path()));
    }
    let taken = out.path().join("r2.PRE_iops.2.r1.log");
    std::fs::write(&taken, "mine").unwrap();
    let second = out.path().join("r2.json");
    let refused = iolab()
        .args(["run", job.to_str().unwrap(), "-o", second.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("r2.PRE_iops.2.r1.log"), "{stderr}");
    // The job file's note, then the refusal in one line.
    assert_eq!(stderr.matches("error:").count(), 1, "{stderr}");
    assert!(!second.exists());
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "mine");
}
