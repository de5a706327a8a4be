//! Metadata workloads end to end: the phases over one tree with their exact item and system-call counts, the stonewall, the inode check on a real ext4, what strace sees, bad input, a killed run's tree and a full inode table mid-phase.

use crate::mounts::{LoopFs, TmpfsMount, have, root_or_skip};
use crate::util::{Cli, entries, iolab, scratch};
use serde_json::Value;
use std::path::Path;

/// The point of `result` whose op is `op`.
fn phase<'a>(result: &'a Value, op: &str) -> &'a Value {
    result["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["workload"]["op"] == op)
        .unwrap_or_else(|| panic!("no {op} point"))
}

/// Repetition 0's tree record of a point.
fn tree(point: &Value) -> &Value {
    let repetition = &point["repetitions"][0];
    assert_eq!(repetition["status"], "ok", "{}", repetition["error"]);
    &repetition["tree"]
}

/// The count of system call `name` in a tree record (0 when absent).
fn calls(tree: &Value, name: &str) -> u64 {
    tree["system_calls"][name].as_u64().unwrap_or(0)
}

/// Free inodes of the file system holding `dir` (statfs f_ffree).
fn free_inodes(dir: &Path) -> u64 {
    rustix::fs::statvfs(dir).unwrap().f_ffree
}

#[test]
fn every_phase_works_on_exactly_the_items_of_one_tree() {
    let dir = scratch();
    let out = scratch();
    // 3 directories (depth 1, fanout 2) × 40 items × 2 jobs = 240 files.
    let result = Cli::new([
        "run",
        "--ops",
        "delete,rename,read,stat,create,readdir",
        "--items",
        "40",
        "--depth",
        "1",
        "--fanout",
        "2",
        "--jobs",
        "2",
        "--file-size",
        "3901",
        "--fsync-end",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let ops: Vec<&str> = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["workload"]["op"].as_str().unwrap())
        .collect();
    assert_eq!(
        ops,
        ["create", "stat", "read", "readdir", "rename", "delete"],
        "mdtest's order whatever the order given"
    );
    let target = &phase(&result, "create")["target"]["tree"];
    assert_eq!(target["directories"], 3);
    assert_eq!(target["items_per_job"], 120);
    let create = tree(phase(&result, "create"));
    assert_eq!(create["items"], 240);
    assert_eq!(create["items_per_job"], serde_json::json!([120, 120]));
    assert_eq!(create["stonewalled"], false);
    // Each file: openat, one write of its 3901 bytes, fsync, close; each
    // job opens its 3 directories beneath the root (and closes them).
    assert_eq!(calls(create, "openat"), 240);
    assert_eq!(calls(create, "write"), 240);
    assert_eq!(calls(create, "fsync"), 240);
    assert_eq!(calls(create, "openat2"), 6);
    assert_eq!(calls(create, "close"), 240 + 6);
    assert_eq!(
        phase(&result, "create")["repetitions"][0]["bytes"],
        240 * 3901
    );
    let stat = tree(phase(&result, "stat"));
    assert_eq!(calls(stat, "newfstatat"), 240);
    assert_eq!(calls(stat, "openat"), 0);
    let read = tree(phase(&result, "read"));
    assert_eq!(calls(read, "read"), 240);
    assert_eq!(
        phase(&result, "read")["repetitions"][0]["bytes"],
        240 * 3901
    );
    // readdir: each job lists the 3 directories of the shared tree, and
    // finds both jobs' files there.
    let readdir = tree(phase(&result, "readdir"));
    assert_eq!(readdir["items"], 6);
    assert_eq!(
        readdir["entries"],
        2 * 240 + 2 * 2,
        "files and subdirectories"
    );
    assert_eq!(calls(tree(phase(&result, "rename")), "renameat2"), 240);
    assert_eq!(calls(tree(phase(&result, "delete")), "unlinkat"), 240);
    // The metadata checks say what the figures are.
    let stat_checks = crate::util::check_codes(phase(&result, "stat"));
    assert!(
        stat_checks.contains(&"metadata-in-memory".to_string()),
        "{stat_checks:?}"
    );
    assert!(
        entries(dir.path()).is_empty(),
        "the tree is removed: {:?}",
        entries(dir.path())
    );
}

#[test]
fn a_phase_finds_the_tree_as_it_needs_it_and_repeats() {
    let dir = scratch();
    let out = scratch();
    // A stat alone makes the files first (untimed); a create repeated
    // removes the last repetition's files first; mkdir and rmdir work on
    // directory items, and dirstat looks them up between the two.
    let result = Cli::new([
        "run",
        "--ops",
        "stat,create,mkdir,dirstat,rmdir",
        "--items",
        "25",
        "--jobs",
        "3",
        "--repeat",
        "2",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    for op in ["create", "stat", "mkdir", "dirstat", "rmdir"] {
        for repetition in phase(&result, op)["repetitions"].as_array().unwrap() {
            assert_eq!(repetition["status"], "ok", "{op}: {}", repetition["error"]);
            assert_eq!(repetition["tree"]["items"], 75, "{op}");
        }
    }
    assert_eq!(calls(tree(phase(&result, "mkdir")), "mkdirat"), 75);
    assert_eq!(calls(tree(phase(&result, "dirstat")), "newfstatat"), 75);
    assert_eq!(calls(tree(phase(&result, "rmdir")), "unlinkat"), 75);
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn a_stride_sends_each_job_to_its_neighbours_items_in_its_own_tree() {
    let dir = scratch();
    let out = scratch();
    let result = Cli::new([
        "run",
        "--ops",
        "create,stat,delete",
        "--items",
        "10",
        "--jobs",
        "3",
        "--unique-dir",
        "--stride",
        "1",
        "--depth",
        "2",
        "--fanout",
        "2",
        "--leaf-only",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    // Leaf-only: the 4 leaves of each job's tree hold 10 items each.
    let target = &phase(&result, "create")["target"]["tree"];
    assert_eq!(target["trees"], 3);
    assert_eq!(target["item_directories"], 4);
    for op in ["create", "stat", "delete"] {
        assert_eq!(tree(phase(&result, op))["items"], 120, "{op}");
    }
}

#[test]
fn a_stonewalled_create_is_followed_by_phases_on_exactly_the_items_reached() {
    let dir = scratch();
    let out = scratch();
    // Far more items than 0.2 s can make: each job stops at the stonewall.
    let result = Cli::new([
        "run",
        "--ops",
        "create,stat,delete",
        "--items",
        "2000000",
        "--jobs",
        "2",
        "--runtime",
        "200ms",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let create = tree(phase(&result, "create"));
    assert_eq!(create["stonewalled"], true);
    let reached = create["items_per_job"].clone();
    let made: u64 = reached
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert!(made > 0 && made < 4_000_000, "{reached}");
    for op in ["stat", "delete"] {
        let used = tree(phase(&result, op));
        assert_eq!(
            used["items_per_job"], reached,
            "{op} works on what create reached"
        );
        assert_eq!(used["stonewalled"], false);
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn creating_files_takes_exactly_their_inodes_on_a_real_ext4() {
    if !root_or_skip("an ext4 on a loop device") || !have("mkfs.ext4") {
        return;
    }
    let parent = scratch();
    let out = scratch();
    let fs = LoopFs::new(parent.path(), "ext4", 64).unwrap();
    let before = free_inodes(fs.path());
    let result = Cli::new([
        "run", "--op", "create", "--items", "100", "--jobs", "3", "--depth", "1", "--fanout", "3",
        "--keep",
    ])
    .path("--dir", fs.path())
    .ok(out.path());
    let after = free_inodes(fs.path());
    // 4 directories × 100 items × 3 jobs, the 4 directories, the root and its owner file.
    assert_eq!(tree(&result["points"][0])["items"], 1200);
    assert_eq!(before - after, 1200 + 4 + 1 + 1, "statfs's inode delta");
    assert_eq!(
        result["points"][0]["target"]["tree"]["inodes"]
            .as_u64()
            .unwrap(),
        before - after,
        "what was checked against f_ffree is what was taken"
    );
}

#[test]
fn a_tree_larger_than_the_free_inodes_is_refused_before_anything_is_made() {
    if !root_or_skip("an ext4 on a loop device") || !have("mkfs.ext4") {
        return;
    }
    let parent = scratch();
    let fs = LoopFs::ext4_with_inodes(parent.path(), 64, 4096).unwrap();
    let output = iolab()
        .args(["run", "--op", "create", "--items", "5000", "--dir"])
        .arg(fs.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("statfs f_ffree"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    let left: Vec<String> = entries(fs.path())
        .into_iter()
        .filter(|n| n != "lost+found")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn strace_counts_the_system_calls_the_record_counts() {
    if !have("strace") {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let trace = out.path().join("trace");
    let record = out.path().join("result.json");
    let status = std::process::Command::new("strace")
        .args(["-f", "-qq", "-c", "-o"])
        .arg(&trace)
        .arg(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run", "--op", "rename", "--items", "300", "--jobs", "2", "--output",
        ])
        .arg(&record)
        .arg("--dir")
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let result = crate::util::read_result(&record);
    let counted = tree(&result["points"][0]);
    let summary = std::fs::read_to_string(&trace).unwrap();
    // strace -c's table: the calls are the fourth column, the name the last.
    let traced = |name: &str| -> u64 {
        summary
            .lines()
            .find(|line| line.split_whitespace().last() == Some(name))
            .and_then(|line| line.split_whitespace().nth(3)?.parse().ok())
            .unwrap_or(0)
    };
    assert_eq!(calls(counted, "renameat2"), 600);
    // Only the timed renames and the result file's atomic replacement
    // (once per write of the file) rename anything in the whole process.
    let extra = traced("renameat2") - calls(counted, "renameat2");
    assert!((1..=2).contains(&extra), "{summary}");
    // The directories worked in, opened only by the tree's passes: the
    // timed renames' and the untimed create's before them, alike.
    assert_eq!(
        traced("openat2"),
        2 * calls(counted, "openat2"),
        "{summary}"
    );
}

#[test]
fn metadata_bad_input_is_refused_in_one_line_with_nothing_made() {
    let dir = scratch();
    for (args, words) in [
        (vec!["--op", "create"], "give --items"),
        (
            vec!["--op", "write", "--items", "10"],
            "op write moves blocks",
        ),
        (
            vec!["--op", "stat", "--items", "10", "--direct"],
            "--direct does not apply",
        ),
        (
            vec!["--op", "create", "--items", "10", "--engine", "uring"],
            "--engine uring",
        ),
        (
            vec!["--op", "mkdir", "--items", "10", "--file-size", "4k"],
            "hold no bytes",
        ),
        (
            vec!["--op", "create", "--items", "4000000", "--jobs", "4"],
            "at most 10000000",
        ),
        (
            vec![
                "--op", "stat", "--items", "10", "--jobs", "2", "--stride", "2",
            ],
            "--stride 2",
        ),
        (
            vec![
                "--op", "create", "--items", "1", "--depth", "30", "--fanout", "10",
            ],
            "directories per tree",
        ),
        (vec!["--ops", "create,stat"], "give --items"),
        (vec!["--op", "read", "--cache", "drop"], "--cache drop"),
        (
            vec!["--op", "create", "--items", "10", "--file-size", "1g"],
            "--file-size",
        ),
        (
            vec!["--op", "create", "--items", "10", "--engine", "nfs"],
            "--target",
        ),
    ] {
        let output = iolab()
            .arg("run")
            .args(&args)
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            entries(dir.path()).is_empty(),
            "{args:?} made {:?}",
            entries(dir.path())
        );
    }
}

#[test]
fn a_killed_runs_tree_is_removed_by_the_next_run_and_only_iolab_names_go() {
    let dir = scratch();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "run",
            "--op",
            "create",
            "--items",
            "3000000",
            "--runtime",
            "60s",
            "--dir",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the tree holds files, then kill without warning.
    let tree_dir = crate::util::wait_for_tree(dir.path(), 100);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(tree_dir.exists());
    // A file that is not iolab's, planted in a copy of a tree, keeps that tree.
    let planted_tree = dir.path().join("iolab-ffffffff.tree");
    std::fs::create_dir(&planted_tree).unwrap();
    std::fs::copy(
        tree_dir.join("iolab.owner"),
        planted_tree.join("iolab.owner"),
    )
    .unwrap();
    let owner = std::fs::read_to_string(planted_tree.join("iolab.owner")).unwrap();
    let run_line = owner.lines().nth(1).unwrap().to_string();
    std::fs::write(
        planted_tree.join("iolab.owner"),
        owner.replace(&run_line, "run ffffffff"),
    )
    .unwrap();
    std::fs::write(planted_tree.join("precious"), b"not iolab's").unwrap();
    let output = iolab()
        .args(["run", "--op", "create", "--items", "5", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let name = tree_dir.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        stderr.contains(&format!("removed {}", dir.path().join(&name).display()))
            || stderr.contains(&name),
        "{stderr}"
    );
    assert!(!tree_dir.exists(), "the dead run's tree is gone");
    assert!(
        planted_tree.join("precious").exists(),
        "what is not iolab's stays"
    );
    assert!(stderr.contains("precious"), "and is named: {stderr}");
}

#[test]
fn a_full_inode_table_mid_phase_fails_the_phase_with_the_count_reached() {
    if !root_or_skip("a tmpfs with few inodes") {
        return;
    }
    let parent = scratch();
    let Some(fs) = TmpfsMount::new(parent.path(), "inodes", "size=64m,nr_inodes=60000") else {
        return;
    };
    let out = scratch();
    let record = out.path().join("result.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["run", "--op", "create", "--items", "50000", "--output"])
        .arg(&record)
        .arg("--dir")
        .arg(fs.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the run is making its files, fill the rest of the inode table.
    let tree_dir = crate::util::wait_for_tree(fs.path(), 500);
    let filler = fs.path().join("filler");
    std::fs::create_dir(&filler).unwrap();
    for n in 0.. {
        if std::fs::File::create(filler.join(n.to_string())).is_err() {
            break;
        }
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let result = crate::util::read_result(&record);
    let repetition = &result["points"][0]["repetitions"][0];
    assert_eq!(repetition["status"], "failed");
    let error = repetition["error"].as_str().unwrap();
    assert!(
        error.contains("ENOSPC") && error.contains("of its 50000 done"),
        "{error}"
    );
    assert!(
        repetition.get("throughput_bps").is_none(),
        "a failure is never timed"
    );
    assert!(!tree_dir.exists(), "the tree is removed after the failure");
}

#[test]
fn a_sweep_over_the_trees_shape_runs_each_phase_per_shape() {
    let dir = scratch();
    let out = scratch();
    let result = Cli::new([
        "sweep",
        "--op",
        "stat,create",
        "--items",
        "10",
        "--depth",
        "1",
        "--fanout",
        "1,3",
        "--jobs",
        "2",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let points: Vec<(String, u64, u64)> = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["workload"]["op"].as_str().unwrap().to_string(),
                p["workload"]["fanout"].as_u64().unwrap_or(1),
                tree(p)["items"].as_u64().unwrap(),
            )
        })
        .collect();
    // The shape outside, the op inside in mdtest's order; (1 + fanout)
    // directories × 10 items × 2 jobs.
    assert_eq!(
        points,
        [
            ("create".to_string(), 1, 40),
            ("stat".to_string(), 1, 40),
            ("create".to_string(), 3, 80),
            ("stat".to_string(), 3, 80),
        ]
    );
    assert!(entries(dir.path()).is_empty());
}

/// A tree left for safety (it holds what iolab did not make) does not
/// stop the run's later points: the next shape's tree takes the next name,
/// `iolab-<run>.1.tree` (issue "Nothing lost, nothing harmed, round 4",
/// item 8; before, every later point failed `File exists`).
#[test]
fn a_tree_left_for_safety_does_not_stop_the_next_points() {
    let dir = scratch();
    let out = scratch();
    let result_path = out.path().join("s.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args([
            "sweep", "--op", "create", "--items", "40000", "--depth", "1", "--fanout", "1,2",
            "--output",
        ])
        .arg(&result_path)
        .arg("--dir")
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // While the first shape's tree fills, another user's file lands in it.
    let first = crate::util::wait_for_tree(dir.path(), 100);
    std::fs::write(first.join("shared/precious"), b"not iolab's").unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("left {}", first.display())) && stderr.contains("precious"),
        "{stderr}"
    );
    let result = crate::util::read_result(&result_path);
    let points = result["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for point in points {
        assert_eq!(
            tree(point)["items"],
            point["workload"]["items"].as_u64().unwrap()
                * (1 + point["workload"]["fanout"].as_u64().unwrap_or(1))
        );
    }
    // The first tree stays with the file in it; the second was made beside
    // it under the next name, and removed.
    assert_eq!(
        entries(dir.path()),
        [first.file_name().unwrap().to_string_lossy()]
    );
    assert!(first.join("shared/precious").exists());
    let name = first.file_name().unwrap().to_string_lossy().into_owned();
    assert!(!name.contains(".1."), "{name}");
}
