//! Presets: each runs end to end at the tiny test scale, and its result holds exactly the points of its plan.

use crate::util::*;

#[test]
fn every_preset_runs_at_the_test_scale() {
    let dir = scratch();
    let out = scratch();
    let list = iolab().args(["preset", "list"]).output().unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    let names: Vec<String> = list
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 8, "{list}");
    for name in &names {
        if name == "quick" && !(direct_io_works(dir.path()) && uring_works()) {
            continue;
        }
        let output = out.path().join(format!("{name}.json"));
        let run = iolab()
            .args([
                "preset",
                "run",
                name,
                "--scale",
                "test",
                "--no-report",
                "--dir",
            ])
            .arg(dir.path())
            .arg("-o")
            .arg(&output)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        // Each study prints its own table, named by its publication.
        let stdout = String::from_utf8_lossy(&run.stdout);
        let title = match name.as_str() {
            "dd-blocksize" => "CLOSER 2011, Table 1",
            "dd-datasize" => "CLOSER 2011, Table 2",
            "seq-device" => "Varlyakov 2013, atop per layer",
            "netfs-micro" => "Radkov et al., FAST 2004, Table 4",
            "netfs-meta" => "Radkov et al., FAST 2004, the metadata half",
            "iozone-auto" => "\"Re-writer report\" in KiB/s",
            "direct-vs-buffered" => "I/O Measurements 2017: write time",
            "quick" => "",
            other => panic!("a preset without its expected table: {other}"),
        };
        assert!(stdout.contains(title), "{name}: {stdout}");
        let result = read_result(&output);
        // The table the result file names is the one printed (quick has none).
        assert_eq!(
            result["plan"]["table"].is_null(),
            title.is_empty(),
            "{name}: {}",
            result["plan"]
        );
        check_consistency(&result);
        let points = result["points"].as_array().unwrap();
        // The studies' setups: no fsync where dd and IOzone had none, the
        // O_DIRECT study's O_SYNC on reads and writes, IOzone's order on one file.
        let all = |field: &str, value: serde_json::Value| {
            points.iter().all(|p| p["workload"][field] == value)
        };
        match name.as_str() {
            "dd-blocksize" | "dd-datasize" | "seq-device" | "netfs-micro" => {
                assert!(
                    all("fsync_end", false.into()) && all("sync", "none".into()),
                    "{name}"
                );
            }
            "iozone-auto" => {
                assert!(
                    all("fsync_end", false.into()) && all("cache", "clean".into()),
                    "{name}"
                );
                let ops: Vec<&str> = points[..4]
                    .iter()
                    .map(|p| p["workload"]["op"].as_str().unwrap())
                    .collect();
                assert_eq!(ops, ["write", "rewrite", "read", "reread"]);
            }
            "direct-vs-buffered" => {
                assert!(
                    all("sync", "osync".into()) && all("cache", "keep".into()),
                    "{name}"
                );
            }
            _ => {}
        }
        assert_eq!(
            points.len() as u64,
            result["plan"]["points"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(result["plan"]["name"], format!("{name}-test").as_str());
        assert!(
            points.iter().all(|p| p["repetitions"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["status"] == "ok")),
            "{name}"
        );
    }
    let shown = iolab()
        .args(["preset", "show", "iozone-auto", "--scale", "full"])
        .output()
        .unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert!(
        shown.contains("size = \"64k..128m\"") && shown.contains("engine = \"stdio\""),
        "{shown}"
    );
    let unknown = iolab().args(["preset", "run", "nope"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn table_4_on_sshfs_counts_the_messages_and_bytes_on_the_wire() {
    use crate::mounts::{SshfsMount, have, root_or_skip};
    if !root_or_skip("mounting sshfs") || !have("sshd") || !have("sshfs") || !have("fusermount3") {
        return;
    }
    if !std::path::Path::new("/dev/fuse").exists() {
        crate::skip!("/dev/fuse is missing (no FUSE in this kernel or container)");
        return;
    }
    // Radkov et al.'s Table 4 on a network file system here: sshfs over
    // loopback. Every row must have moved messages and bytes on the wire.
    let dir = scratch();
    let mount = SshfsMount::new(dir.path()).expect("sshfs over loopback");
    let out = scratch();
    let output = out.path().join("table4.json");
    succeed(
        iolab()
            .args([
                "preset",
                "run",
                "netfs-micro",
                "--scale",
                "test",
                "--no-report",
            ])
            .arg("--dir")
            .arg(mount.path())
            .arg("-o")
            .arg(&output),
    );
    let csv_path = out.path().join("table4.csv");
    succeed(
        iolab()
            .arg("report")
            .arg(&output)
            .args(["--format", "study-csv", "-o"])
            .arg(&csv_path),
    );
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut lines = text.lines();
    // The first cell names the table (quoted: it holds commas); rows start
    // with the medium's cell, empty here, then the row's name.
    let first = lines.next().unwrap();
    let after_title = first.rsplit_once("\",").map_or(first, |(_, rest)| rest);
    let header: Vec<&str> = std::iter::once("title")
        .chain(after_title.split(','))
        .collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h.contains(name))
            .unwrap_or_else(|| panic!("no {name} column: {header:?}"))
    };
    let (messages, bytes) = (column("messages"), column("bytes on the wire"));
    let rows: Vec<Vec<&str>> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(
        names,
        [
            "sequential read",
            "random read",
            "sequential write",
            "random write"
        ],
        "{text}"
    );
    for row in &rows {
        let count: f64 = row[messages].parse().unwrap_or(0.0);
        let wire: f64 = row[bytes].parse().unwrap_or(0.0);
        assert!(count > 0.0 && wire > 0.0, "{}: {text}", row[1]);
    }
}

/// The O_DIRECT study's table says what strace shows: reads open
/// `O_RDONLY|…O_SYNC`, writes `O_WRONLY|…O_SYNC`, with `O_DIRECT` for the
/// direct runs — each job's openat, and each repetition its own draw of
/// offsets (issue "Nothing lost, nothing harmed, round 3", items 7 and 8).
#[test]
fn the_direct_study_opens_files_as_its_table_says_strace_shows() {
    if !crate::mounts::have("strace") {
        return;
    }
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("direct.json");
    let trace = out.path().join("trace");
    let run = std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=openat,pread64,pwrite64", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "preset",
            "run",
            "direct-vs-buffered",
            "--scale",
            "test",
            "--no-report",
        ])
        .arg("--dir")
        .arg(dir.path())
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let trace = std::fs::read_to_string(&trace).unwrap();
    // The jobs' opens: by name in the directory, not the creating O_EXCL one.
    let mut opened: Vec<String> = trace
        .lines()
        .filter(|l| l.contains("openat(") && l.contains(".dat\"") && !l.contains("O_EXCL"))
        .filter(|l| l.contains("O_SYNC"))
        .map(|l| {
            let flags = l.split(", ").nth(2).unwrap();
            // `O_CLOEXEC)` or, split by another thread, `O_CLOEXEC <unfinished ...>`.
            let flags = flags.split([')', ' ']).next().unwrap();
            flags
                .split('|')
                .filter(|f| *f != "O_LARGEFILE")
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    opened.sort();
    opened.dedup();
    let result = read_result(&output);
    let mut recorded: Vec<String> = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["target"]["open_flags"].as_str().unwrap().to_string())
        .collect();
    for flags in &recorded {
        // The table leaves out the two flags every reopen adds, and says so.
        let shown = flags.replace("|O_NOFOLLOW|O_CLOEXEC", "");
        assert!(
            stdout.contains(shown.as_str()),
            "the table prints {shown}: {stdout}"
        );
    }
    let normalize = |flags: &str| {
        let mut parts: Vec<&str> = flags.split('|').collect();
        parts.sort();
        parts.join("|")
    };
    recorded.sort();
    recorded.dedup();
    let (mut seen, mut said): (Vec<String>, Vec<String>) = (
        opened.iter().map(|f| normalize(f)).collect(),
        recorded.iter().map(|f| normalize(f)).collect(),
    );
    seen.sort();
    said.sort();
    assert_eq!(
        seen, said,
        "strace saw {opened:?}, the result says {recorded:?}"
    );
    assert!(
        recorded.iter().any(|f| f.starts_with("O_RDONLY|O_SYNC")),
        "{recorded:?}"
    );
    assert!(
        recorded
            .iter()
            .any(|f| f.starts_with("O_WRONLY|O_DIRECT|O_SYNC")),
        "{recorded:?}"
    );
}

/// A plan's estimate starts from an assumed disk and, once a one-pass
/// point ran on the directory's device, uses what that device did: the
/// dry run says which, and the speeds are kept in iolab's cache.
#[test]
fn estimates_use_the_speeds_measured_on_the_device() {
    let dir = scratch();
    let cache = scratch();
    let dry_run = || {
        let output = iolab()
            .env("IOLAB_CACHE", cache.path())
            .args(["sweep", "--op", "write", "--bs", "64k,1m", "--size", "8m"])
            .args(["--dry-run", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let before = dry_run();
    assert!(
        before.contains("at 100 MiB/s") && before.contains("nothing measured on this device"),
        "{before}"
    );
    let run = iolab()
        .env("IOLAB_CACHE", cache.path())
        .args(["run", "--op", "write", "--bs", "64k", "--size", "8m"])
        .args(["--progress", "never", "-o"])
        .arg(dir.path().join("r.json"))
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(entries(&cache.path().join("speeds")).len(), 1);
    let after = dry_run();
    assert!(
        after.contains("at the speeds last measured on this device"),
        "{after}"
    );
}

/// The O_DIRECT study's "% direct faster" and `compare --by direct
/// --metric time` print one figure for the same cell, and it is the one a
/// reader recomputes from the JSON: the geometric mean of the rounds'
/// ratios T_direct / T_normal (the preset alternates the sides by round).
#[test]
fn the_direct_studys_figure_is_compares_and_the_json_gives_it_again() {
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("direct.json");
    let run = succeed(
        iolab()
            .args(["preset", "run", "direct-vs-buffered", "--scale", "test"])
            .args(["--no-report", "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&output),
    );
    let table = String::from_utf8_lossy(&run.stdout).into_owned();
    let compared = iolab()
        .arg("compare")
        .arg(&output)
        .args(["--by", "direct", "--metric", "time"])
        .output()
        .unwrap();
    let compared = String::from_utf8_lossy(&compared.stdout).into_owned();
    let result = read_result(&output);
    for (op, flags) in [
        ("read", "O_RDONLY|O_SYNC against"),
        ("rewrite", "O_WRONLY|O_SYNC against"),
    ] {
        // Per round, each side's mean time; their ratio; the geometric mean.
        let times = |direct: bool| -> std::collections::BTreeMap<u64, f64> {
            let point = result["points"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["workload"]["op"] == op && p["workload"]["direct"] == direct)
                .unwrap();
            let mut by_round = std::collections::BTreeMap::<u64, Vec<f64>>::new();
            for r in point["repetitions"].as_array().unwrap() {
                if r["warmup"] == true {
                    continue;
                }
                by_round
                    .entry(r["round"].as_u64().unwrap())
                    .or_default()
                    .push(r["elapsed_ns"].as_f64().unwrap());
            }
            by_round
                .into_iter()
                .map(|(round, t)| (round, t.iter().sum::<f64>() / t.len() as f64))
                .collect()
        };
        let (normal, direct) = (times(false), times(true));
        assert_eq!(normal.len(), 2, "two rounds, A B | B A");
        let logs: Vec<f64> = normal
            .keys()
            .map(|r| (direct[r] / normal[r]).ln())
            .collect();
        let ratio = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        let faster = (1.0 - ratio) * 100.0;
        // The study's table: the first figure of "% direct I/O faster".
        let row = table
            .lines()
            .find(|l| l.contains(flags))
            .unwrap_or_else(|| panic!("{op}: {table}"));
        let cells: Vec<&str> = row.split(['┆', '│']).map(str::trim).collect();
        let printed: f64 = cells[4].split(' ').next().unwrap().parse().unwrap();
        assert!(
            (printed - faster).abs() <= faster.abs() * 0.01 + 0.01,
            "{op}: table {printed}, JSON {faster}: {row}"
        );
        // compare: the ratio and its Δ%.
        let line = compared
            .lines()
            .find(|l| l.starts_with('│') && l.contains(&format!("normal: {op} uniform")))
            .unwrap_or_else(|| panic!("{op}: {compared}"));
        let cells: Vec<&str> = line.split(['┆', '│']).map(str::trim).collect();
        let shown: f64 = cells[4].split(' ').next().unwrap().parse().unwrap();
        let delta: f64 = cells[5].parse().unwrap();
        assert!(
            (shown - ratio).abs() <= 0.0005 + ratio * 1e-3,
            "{op}: {shown} against {ratio}: {line}"
        );
        assert!(
            (delta - faster).abs() <= 0.05 + faster.abs() * 1e-3,
            "{op}: Δ% {delta} against {faster}"
        );
    }
}

/// `preset run --strict` ends with exit status 3 when a check raised a
/// warning, as `run` and `sweep` do: the loop over media must not turn it
/// into a success.
#[test]
fn a_strict_preset_run_with_warnings_exits_3() {
    let (dir, out) = (scratch(), scratch());
    let output = out.path().join("strict.json");
    let run = iolab()
        .args(["preset", "run", "direct-vs-buffered", "--scale", "test"])
        .args(["--strict", "--no-report", "--dir"])
        .arg(dir.path())
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    let result = read_result(&output);
    let warned = result["points"].as_array().unwrap().iter().any(|p| {
        p["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["severity"] == "warning" || c["severity"] == "error")
    });
    assert!(warned, "O_SYNC on reads is always a warning here");
    assert_eq!(run.status.code(), Some(3));
}
