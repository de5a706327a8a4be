//! Job groups: several workloads at once in one point from the command line — a reader beside a paced O_DSYNC logger — with each group's figures apart and combined, the flags strace sees, the files made and removed, and bad input refused.

use crate::mounts::have;
use crate::util::*;
use serde_json::Value;

/// The `--group` arguments of a reader (2 jobs, random 8 KiB) beside a
/// logger (sequential 4 KiB O_DSYNC writes paced at 400 I/O/s).
const READER_AND_LOGGER: &[&str] = &[
    "--size",
    "4m",
    "--runtime",
    "1s",
    "--group",
    "reader",
    "--op",
    "read",
    "--pattern",
    "random",
    "--bs",
    "8k",
    "--jobs",
    "2",
    "--group",
    "logger",
    "--op",
    "rewrite",
    "--bs",
    "4k",
    "--rate-iops",
    "400",
    "--sync",
    "odsync",
];

/// `run --dir DIR --repeat 2` with the reader and the logger.
fn twice_in(dir: &std::path::Path) -> Vec<&str> {
    let mut args = vec!["run", "--dir", dir.to_str().unwrap(), "--repeat", "2"];
    args.extend(READER_AND_LOGGER);
    args
}

/// The record of `point`'s group `name`.
pub(crate) fn group<'a>(point: &'a Value, name: &str) -> &'a Value {
    point["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["label"] == name)
        .unwrap_or_else(|| panic!("no group {name} in {point}"))
}

#[test]
fn a_reader_and_a_paced_logger_run_at_once_with_their_figures_apart_and_combined() {
    let dir = scratch();
    let out = scratch();
    let mut args = twice_in(dir.path());
    // The point's own options may follow the groups.
    args.extend(["--label", "db"]);
    let result = run_ok(&args, out.path());
    validate_schema(&result);
    let point = first_point(&result);
    assert_eq!(point["label"], "db");
    let (reader, logger) = (group(point, "reader"), group(point, "logger"));
    assert_eq!(reader["workload"]["jobs"], 2);
    assert_eq!(reader["workload"]["bs"], 8192);
    assert_eq!(logger["workload"]["sync"], "odsync");
    assert_eq!(
        reader["target"]["open_flags"],
        "O_RDONLY|O_NOFOLLOW|O_CLOEXEC"
    );
    assert_eq!(
        logger["target"]["open_flags"],
        "O_WRONLY|O_DSYNC|O_NOFOLLOW|O_CLOEXEC"
    );
    // Each group its own files: two for the reader, one for the logger.
    let files = |g: &Value| g["target"]["files"].as_array().unwrap().len();
    assert_eq!((files(reader), files(logger)), (2, 1));
    assert_eq!(point["target"]["files"].as_array().unwrap().len(), 3);
    for index in 0..2 {
        let whole = &point["repetitions"][index];
        assert_eq!(whole["status"], "ok");
        // The combined figures hold both directions, each from its group.
        let directions = whole["directions"].as_array().unwrap();
        let ops_of = |name: &str| {
            directions.iter().find(|d| d["direction"] == name).unwrap()["ops"]
                .as_u64()
                .unwrap()
        };
        assert_eq!(ops_of("read"), reader["repetitions"][index]["ops"]);
        assert_eq!(ops_of("write"), logger["repetitions"][index]["ops"]);
        // Activity belongs to the point, not to a group.
        assert!(reader["repetitions"][index].get("activity").is_none());
        assert!(logger["repetitions"][index]["pacing"].is_object());
    }
    assert!(reader["summary"].is_object() && logger["summary"].is_object());
    assert!(
        entries(dir.path()).is_empty(),
        "every group's files are removed: {:?}",
        entries(dir.path())
    );
}

#[test]
fn strace_sees_each_groups_own_open_flags() {
    if !have("strace") {
        crate::skip!("strace is not installed (scripts/test installs it)");
        return;
    }
    let dir = scratch();
    let out = scratch();
    let trace = out.path().join("trace");
    let mut command = assert_cmd::Command::from_std(std::process::Command::new("strace"));
    command
        .args(["-f", "-qq", "-e", "trace=openat", "-o"])
        .arg(&trace)
        .arg(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["run", "--dir"])
        .arg(dir.path())
        .args(READER_AND_LOGGER)
        .arg("--output")
        .arg(out.path().join("r.json"));
    succeed(&mut command);
    let text = std::fs::read_to_string(&trace).unwrap();
    let opens = |job: u32| -> Vec<&str> {
        let name = format!("-{job}.dat\"");
        text.lines().filter(|l| l.contains(&name)).collect()
    };
    // Files 0 and 1 are the reader's, 16777216 (2^24, the second group's
    // range) the logger's; the timed open is the last of each file.
    for job in [0, 1] {
        let last = opens(job).last().copied().unwrap_or_default();
        assert!(
            last.contains("O_RDONLY") && !last.contains("O_DSYNC"),
            "{last}"
        );
    }
    let last = opens(1 << 24).last().copied().unwrap_or_default();
    assert!(
        last.contains("O_WRONLY") && last.contains("O_DSYNC"),
        "{last}"
    );
}

#[test]
fn bad_groups_are_refused_in_one_line_with_nothing_made() {
    let dir = scratch();
    for (args, named) in [
        (vec!["--group", "1st", "--op", "read"], "group name '1st'"),
        (
            vec!["--group", "a", "--op", "read", "--group", "a"],
            "given twice",
        ),
        (vec!["--group", "all"], "group name 'all'"),
        (
            vec![
                "--group", "t", "--op", "create", "--items", "10", "--group", "u", "--op",
                "create", "--items", "10",
            ],
            "group u: a point holds one tree",
        ),
        (
            vec![
                "--group", "w", "--op", "write", "--group", "r", "--op", "read", "--verify",
            ],
            "group r: --verify checks the blocks a group's writes sealed",
        ),
        (
            vec!["--group", "a", "--bs", "1q"],
            "--group a: --bs 1q: size '1q'",
        ),
        (
            vec!["--group", "a", "--iodepth", "4"],
            "--group a: --iodepth 4 needs a queued engine",
        ),
        (
            vec!["--group", "a", "--ops", "create,stat"],
            "--ops runs phases of one tree",
        ),
    ] {
        let stderr = run_refused(dir.path(), &args, named);
        assert_eq!(message_lines(&stderr), 1, "{args:?}: {stderr}");
    }
    // A later group's engine is checked as the first's is.
    run_refused(
        dir.path(),
        &["--group", "a", "--group", "b", "--engine", "nfs"],
        "group b: --engine nfs needs --target",
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    // Over NFS, what iolab's client cannot do is refused for any group,
    // named, before the server is asked anything (nothing listens on port
    // 9 here: a connection would fail with another message).
    let refused = iolab()
        .args([
            "run",
            "--target",
            "nfs://127.0.0.1:9/export",
            "--size",
            "1m",
        ])
        .args(["--group", "reader", "--op", "read"])
        .args(["--group", "logger", "--op", "write", "--sync", "odsync"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("group logger: --sync odsync"), "{stderr}");
    assert_eq!(message_lines(&stderr), 1, "{stderr}");
    // Groups share a LUN by regions: a writer's overlapping a reader's is
    // refused before the login (which, nothing listening on port 9, would
    // fail otherwise), with the offset that would part them.
    let refused = iolab()
        .args([
            "run",
            "--target",
            "iscsi://127.0.0.1:9/iqn.2026-11.org.iolab:x/1",
            "--size",
            "4m",
        ])
        .args([
            "--group", "a", "--op", "read", "--group", "b", "--op", "rewrite",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("group b's region of --target iscsi://127.0.0.1:9/iqn.2026-11.org.iolab:x/1 (bytes 0..4194304) overlaps group a's")
            && stderr.contains("--offset 4194304 for group b"),
        "{stderr}"
    );
    assert_eq!(message_lines(&stderr), 1, "{stderr}");
    // Files iolab makes start at 0: an offset is for a target you gave,
    // refused from the one place whichever command planned the point.
    run_refused(
        dir.path(),
        &["--group", "a", "--group", "b", "--offset", "1m"],
        "group b: --offset 1048576 places a region in a file or device you gave",
    );
    let refused = iolab()
        .args(["sweep", "--size", "1m", "--offset", "0,1m", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--offset 1048576 places a region"),
        "{stderr}"
    );
    assert_eq!(message_lines(&stderr), 1, "{stderr}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn fio_json_export_goes_back_through_import_with_the_same_figures() {
    let dir = scratch();
    let out = scratch();
    let args = twice_in(dir.path());
    let result = run_ok(&args, out.path());
    let source = out.path().join("result-0.json");
    assert!(source.exists());
    let exported = out.path().join("fio.json");
    succeed(
        iolab()
            .args(["report", "--format", "fio-json", "-o"])
            .arg(&exported)
            .arg(&source),
    );
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(&exported).unwrap()).unwrap();
    // fio's shape: one job per group and repetition, each direction's figures.
    let jobs = document["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 4);
    assert_eq!(jobs[0]["job options"]["rw"], "randread");
    assert!(jobs[0]["read"]["clat_ns"]["percentile"]["99.000000"].is_u64());
    let imported = out.path().join("imported.json");
    succeed(iolab().args(["import", "-o"]).arg(&imported).arg(&exported));
    let back = read_result(&imported);
    let back = back["points"].as_array().unwrap();
    assert_eq!(back.len(), 4);
    let point = first_point(&result);
    let mut index = 0;
    for group in point["groups"].as_array().unwrap() {
        for repetition in group["repetitions"].as_array().unwrap() {
            let again = &back[index]["repetitions"][0];
            index += 1;
            for key in ["bytes", "ops", "throughput_bps", "iops"] {
                assert_eq!(again[key], repetition[key], "{key} of {}", group["label"]);
            }
            for key in ["count", "min", "max", "percentiles"] {
                assert_eq!(
                    again["latency_ns"][key], repetition["latency_ns"][key],
                    "latency {key} of {}",
                    group["label"]
                );
            }
        }
    }
}

#[test]
fn compare_addresses_one_groups_figures() {
    let dir = scratch();
    let out = scratch();
    let args = twice_in(dir.path());
    run_ok(&args, out.path());
    run_ok(&args, out.path());
    let compared = succeed(
        iolab()
            .args([
                "compare",
                "--metric",
                "logger.write.iops",
                "--format",
                "json",
            ])
            .arg(out.path().join("result-0.json"))
            .arg(out.path().join("result-1.json")),
    );
    let comparison: Value = serde_json::from_slice(&compared.stdout).unwrap();
    let text = comparison.to_string();
    assert!(text.contains("logger.write.iops"), "{text}");
    let matched = comparison["pairings"][0]["matched"]
        .as_array()
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(matched.len(), 1, "{text}");
    // The logger's own rate, not the reader's: about 400 I/Os a second.
    let mean = matched[0]["base"]["mean"].as_f64().unwrap();
    assert!(mean < 1000.0, "{mean}");
    let refused = iolab()
        .args(["compare", "--metric", "1st.p99"])
        .arg(out.path().join("result-0.json"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn a_sweep_varies_one_groups_parameter_while_the_other_stays() {
    let dir = scratch();
    let out = scratch();
    let path = dir.path().to_str().unwrap();
    let groups = [
        "--group",
        "reader",
        "--op",
        "read",
        "--pattern",
        "random",
        "--group",
        "logger",
        "--op",
        "write",
    ];
    // The list in the group's own segment, or given by name with --set.
    for list in [&["--bs", "4k,16k"][..], &["--set", "logger.bs=4k,16k"][..]] {
        let mut args = vec!["sweep", "--dir", path, "--size", "2m", "--no-report"];
        args.extend(groups);
        args.extend(list);
        let result = run_ok(&args, out.path());
        let points = result["points"].as_array().unwrap();
        assert_eq!(points.len(), 2, "{list:?}");
        let logger_bs: Vec<u64> = points
            .iter()
            .map(|p| group(p, "logger")["workload"]["bs"].as_u64().unwrap())
            .collect();
        assert_eq!(logger_bs, [4096, 16384], "{list:?}");
        for point in points {
            assert_eq!(group(point, "reader")["workload"]["bs"], 4096);
            assert_eq!(group(point, "reader")["workload"]["pattern"], "random");
        }
        assert!(
            points[1]["label"]
                .as_str()
                .unwrap()
                .contains("logger.bs=16KiB")
        );
    }
    // A group --set does not name is refused, and nothing is made.
    let refused = iolab()
        .args([
            "run",
            "--dir",
            path,
            "--group",
            "reader",
            "--set",
            "logger.bs=4k",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.trim(),
        "iolab: error: --set logger.bs=4k: there is no --group logger"
    );
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn a_group_that_grows_between_points_never_takes_another_groups_file_name() {
    // The second point's reader needs three files while the logger keeps
    // its file from the first point: each group numbers its files in a
    // range of its own, so the reader's new files do not collide with it.
    let dir = scratch();
    let out = scratch();
    let points = studied(
        dir.path(),
        out.path(),
        "name = \"grow\"\n[[sweep]]\nlabel = \"g\"\nsize = \"1m\"\n\
         [[sweep.group]]\nname = \"reader\"\nop = \"read\"\njobs = [1, 3]\n\
         [[sweep.group]]\nname = \"logger\"\nop = \"rewrite\"\n",
    );
    assert_eq!(points.len(), 2);
    for point in &points {
        assert!(
            point["repetitions"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["status"] == "ok"),
            "{point}"
        );
    }
    let reader_files = group(&points[1], "reader")["target"]["files"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(reader_files, 3);
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// A create storm on a tree beside a streaming reader, as a file server
/// sees them (issue "One shape of point"): one point, each group with its
/// own figures — the storm's items, the reader's bytes — the combined row
/// adding no items to I/Os, and the tree and the files removed after.
#[test]
fn a_metadata_group_runs_beside_a_data_group_with_each_groups_figures() {
    let dir = scratch();
    let out = scratch();
    let args = [
        "run",
        "--dir",
        dir.path().to_str().unwrap(),
        "--size",
        "8m",
        "--repeat",
        "2",
        "--group",
        "storm",
        "--op",
        "create",
        "--items",
        "300",
        "--jobs",
        "2",
        "--group",
        "stream",
        "--op",
        "read",
        "--bs",
        "1m",
    ];
    let result = run_ok(&args, out.path());
    validate_schema(&result);
    let point = &result["points"][0];
    assert_eq!(point["target"]["tree"]["items_per_job"], 300, "{point}");
    let storm = group(point, "storm");
    let stream = group(point, "stream");
    assert_eq!(storm["workload"]["items"], 300);
    for repetition in point["repetitions"].as_array().unwrap() {
        assert_eq!(repetition["status"], "ok", "{}", repetition["error"]);
        // The storm's 2 jobs made their 300 items each, every repetition
        // (the second after the first's were removed, untimed).
        assert_eq!(repetition["tree"]["items"], 600, "{repetition}");
        assert_eq!(repetition["tree"]["system_calls"]["openat"], 600);
    }
    // Each group's figures are its own: items per second for the storm,
    // bytes for the reader (8 MiB a repetition).
    assert!(storm["summary"]["iops"]["mean"].as_f64().unwrap() > 0.0);
    let read_bytes: u64 = point["repetitions"][0]["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| job["bytes"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(read_bytes, 8 << 20, "the reader's bytes alone");
    assert!(
        stream["summary"]["throughput_bps"]["mean"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    let table = iolab()
        .args(["report", "--format", "markdown", "--output", "-"])
        .arg(out.path().join("result-0.json"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.status.success(),
        "{}",
        String::from_utf8_lossy(&table.stderr)
    );
    assert!(text.contains("storm") && text.contains("stream"), "{text}");
}

/// `--verify` in one group's segment seals that group's writes and checks
/// its files after each repetition, while the reader beside it does not
/// verify (issue "One shape of point": --verify per group).
#[test]
fn a_group_verifies_its_own_writes_beside_a_reader() {
    let dir = scratch();
    let out = scratch();
    let args = [
        "run",
        "--dir",
        dir.path().to_str().unwrap(),
        "--size",
        "8m",
        "--group",
        "w",
        "--op",
        "write",
        "--verify",
        "--jobs",
        "2",
        "--group",
        "r",
        "--op",
        "read",
        "--bs",
        "1m",
    ];
    let result = run_ok(&args, out.path());
    let point = &result["points"][0];
    assert_eq!(group(point, "w")["workload"]["verify"], true);
    assert!(
        group(point, "r")["workload"]
            .get("verify")
            .is_none_or(|v| v == false)
    );
    let verify = &point["repetitions"][0]["verify"];
    // 2 jobs × 8 MiB in 4 KiB blocks, every one sealed and found intact.
    assert_eq!(verify["blocks"], 4096, "{verify}");
    assert_eq!(verify["bad_blocks"], 0, "{verify}");
    assert!(entries(dir.path()).is_empty());
}

/// Groups on a file the user gives (`--file`, fio's jobs sharing one
/// `filename=`): every job of every group works over all of it, the file
/// is left as it was, and nothing else is made. On an iSCSI LUN (one
/// session, one job) and with `--verify` (one writer's check) a point of
/// several groups is refused in one line, from the one place that says
/// what a point may combine with its site (issue "One shape of point").
#[test]
fn groups_work_over_all_of_a_given_file_and_leave_it_as_it_was() {
    let dir = scratch();
    let out = scratch();
    let file = dir.path().join("data.bin");
    let content: Vec<u8> = (0..8u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&file, &content).unwrap();
    let args = [
        "run",
        "--file",
        file.to_str().unwrap(),
        "--size",
        "8m",
        "--group",
        "small",
        "--op",
        "read",
        "--bs",
        "4k",
        "--group",
        "large",
        "--op",
        "read",
        "--bs",
        "1m",
        "--jobs",
        "2",
    ];
    let result = run_ok(&args, out.path());
    let point = &result["points"][0];
    for (name, jobs) in [("small", 1), ("large", 2)] {
        let repetition = &group(point, name)["repetitions"][0];
        let read: u64 = repetition["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|job| job["bytes"].as_u64().unwrap())
            .sum();
        assert_eq!(read, jobs * (8 << 20), "group {name}: {repetition}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), content);
    assert_eq!(entries(dir.path()), vec!["data.bin".to_string()]);
    // A file iolab made and kept may be rewritten; with --verify, by one
    // group only.
    let kept_dir = scratch();
    let kept = succeed(iolab().args([
        "run",
        "--keep",
        "--json",
        "--dir",
        kept_dir.path().to_str().unwrap(),
        "--op",
        "write",
        "--size",
        "1m",
    ]));
    let kept: Value = serde_json::from_slice(&kept.stdout).unwrap();
    let kept_file = first_point(&kept)["target"]["files"][0]
        .as_str()
        .unwrap()
        .to_string();
    let before = std::fs::read(&kept_file).unwrap();
    let refused = iolab()
        .args(["run", "--file", &kept_file, "--size", "1m"])
        .args(["--group", "w", "--op", "rewrite", "--verify"])
        .args(["--group", "r", "--op", "read"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("overwrite each other's sealed blocks"),
        "{stderr}"
    );
    assert_eq!(message_lines(&stderr), 1, "{stderr}");
    assert_eq!(std::fs::read(&kept_file).unwrap(), before);
    assert_eq!(entries(dir.path()), vec!["data.bin".to_string()]);
}

/// `--steady` in one group's segment: the pass ends once that group's jobs
/// meet its criterion, the group beside it without one stopping with it,
/// and the group's record says when (issue "One shape of point": --steady
/// per group).
#[test]
fn a_steady_group_ends_the_pass_for_the_groups_beside_it() {
    let dir = scratch();
    let out = scratch();
    let args = [
        "run",
        "--dir",
        dir.path().to_str().unwrap(),
        "--engine",
        "null",
        "--size",
        "64m",
        "--runtime",
        "60s",
        "--interval",
        "100ms",
        "--group",
        "settles",
        "--steady",
        "bw:slope<50%/1s",
        "--group",
        "beside",
        "--bs",
        "64k",
    ];
    let result = run_ok(&args, out.path());
    let point = &result["points"][0];
    let steady = &group(point, "settles")["repetitions"][0]["steady"];
    assert_eq!(steady["reached"], true, "{steady}");
    let at = steady["at_s"].as_f64().unwrap();
    // Each group's elapsed time runs from its own jobs' start, which may
    // follow the point's by a fraction of a millisecond: both stopped at
    // the steady moment, within 50 ms, long before the 60 s runtime.
    for name in ["settles", "beside"] {
        let elapsed = group(point, name)["repetitions"][0]["elapsed_ns"]
            .as_f64()
            .unwrap()
            / 1e9;
        assert!(
            elapsed < 60.0 && (elapsed - at).abs() < 0.05,
            "group {name}: steady at {at} s, stopped at {elapsed} s"
        );
    }
    assert!(
        group(point, "beside")["repetitions"][0]
            .get("steady")
            .is_none_or(Value::is_null)
    );
}

/// The table reads groups honestly (first-afternoon issue): a group whose
/// pass ended early says how long it ran against the point (its figures
/// are over its own time, the combined row's over the point's), and no
/// direction rows repeat groups that are one direction each.
#[test]
fn a_group_that_ended_early_says_how_long_it_ran() {
    let dir = scratch();
    let out = scratch();
    // The reader does one pass of 4 MiB; the logger paces writes for 1 s.
    let args = [
        "run",
        "--dir",
        dir.path().to_str().unwrap(),
        "--size",
        "4m",
        "--group",
        "reader",
        "--op",
        "read",
        "--pattern",
        "random",
        "--bs",
        "8k",
        "--group",
        "logger",
        "--op",
        "rewrite",
        "--bs",
        "4k",
        "--rate-iops",
        "400",
        "--runtime",
        "1s",
    ];
    let shown = iolab()
        .current_dir(out.path())
        .args(args)
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    let reader = text
        .lines()
        .find(|line| line.contains("reader: read random"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        reader.contains(" (ran ") && reader.contains(" of "),
        "{text}"
    );
    assert!(
        !text.contains("↳ read") && !text.contains("↳ write"),
        "{text}"
    );
    // The run kept its result and report where run keeps them.
    let kept = entries(&out.path().join("iolab-results"));
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept[0].starts_with("run-") && kept[0].ends_with(".html"),
        "{kept:?}"
    );
}
