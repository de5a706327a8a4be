//! Rates, arrivals and think time: the rate kept and recorded, think time
//! that bounds the I/Os, and latency from intended issue that shows a
//! file system stalled on purpose (sshfs with its daemon stopped mid-run),
//! where latency from issue hides it.

use crate::fast::import::{fio_available, fio_json, imported_point, imported_workload};
use crate::mounts::{SshfsMount, have, root_or_skip};
use crate::util::*;
use serde_json::Value;

/// The measured repetitions' `pacing` objects.
fn pacings(point: &Value) -> Vec<&Value> {
    point["repetitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["warmup"] == false)
        .map(|r| &r["pacing"])
        .collect()
}

/// A percentile of a latency summary, ns.
fn percentile(latency: &Value, p: f64) -> u64 {
    latency["percentiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["percentile"].as_f64() == Some(p))
        .and_then(|q| q["value"].as_u64())
        .unwrap_or_else(|| panic!("no p{p} in {latency}"))
}

/// 5000 I/Os per second on the null engine, uniform and Poisson: the
/// schedule is absolute, so the achieved rate is the asked one to within
/// 1% (the best of three repetitions, so one preempted at its end on a
/// busy machine does not decide), never above it by more than one I/O —
/// with even gaps; Poisson arrivals draw their count (each repetition its
/// own draw), within three standard deviations (√5000 of 5000).
#[test]
fn a_rate_is_kept_and_recorded_with_latency_from_intended_issue() {
    let out = scratch();
    for arrivals in ["uniform", "poisson"] {
        let result = run_ok(
            &[
                "run",
                "--engine",
                "null",
                "--rate-iops",
                "5000",
                "--arrivals",
                arrivals,
                "--runtime",
                "1",
                "--repeat",
                "3",
            ],
            out.path(),
        );
        validate_schema(&result);
        let point = first_point(&result);
        assert_eq!(point["workload"]["rate_iops"], 5000);
        let pacings = pacings(point);
        assert_eq!(pacings.len(), 3);
        let best = pacings
            .iter()
            .map(|p| p["achieved_fraction"].as_f64().unwrap())
            .min_by(|a, b| (a - 1.0).abs().total_cmp(&(b - 1.0).abs()))
            .unwrap();
        let within = if arrivals == "poisson" {
            3.0 / 5000f64.sqrt()
        } else {
            0.01
        };
        assert!(
            (1.0 - within..=1.0 + within).contains(&best),
            "{arrivals}: achieved {best}"
        );
        for pacing in &pacings {
            assert_eq!(pacing["target_iops"], 5000.0);
            let fraction = pacing["achieved_fraction"].as_f64().unwrap();
            let above = if arrivals == "poisson" {
                3.0 / 5000f64.sqrt()
            } else {
                1.0 / 4000.0
            };
            assert!(fraction <= 1.0 + above, "{arrivals}: {fraction}");
            let from_intended = &pacing["latency_from_intended_ns"];
            assert!(from_intended["count"].as_u64().unwrap() > 4000);
        }
        let codes = check_codes(point);
        assert!(
            codes
                .iter()
                .any(|c| c == "rate-kept" || c == "rate-not-kept"),
            "{codes:?}"
        );
    }
}

/// A byte rate is the I/O rate times the block size; a sweep of rates is
/// points; think time caps the I/Os a second can hold.
#[test]
fn byte_rates_sweep_and_think_time_bounds_the_ios() {
    let out = scratch();
    let sweep = out.path().join("rates.json");
    succeed(
        iolab()
            .args([
                "sweep",
                "--engine",
                "null",
                "--bs",
                "64k",
                "--runtime",
                "0.5",
            ])
            .args(["--rate", "64m,128MiB/s", "--no-report", "-o"])
            .arg(&sweep),
    );
    let result = read_result(&sweep);
    validate_schema(&result);
    let targets: Vec<f64> = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["repetitions"][0]["pacing"]["target_iops"]
                .as_f64()
                .unwrap()
        })
        .collect();
    assert_eq!(targets, [1024.0, 2048.0]);

    // 2 ms after every 2 I/Os: at most one pause per 2 I/Os fits.
    let result = run_ok(
        &[
            "run",
            "--engine",
            "null",
            "--think",
            "2ms:every=2",
            "--runtime",
            "1",
        ],
        out.path(),
    );
    validate_schema(&result);
    let point = first_point(&result);
    assert_eq!(point["workload"]["think"], "2ms:every=2");
    let repetition = &point["repetitions"][0];
    let ops = repetition["ops"].as_u64().unwrap();
    assert!((2..=1002).contains(&ops), "{ops} I/Os in 1 s");
    assert!(repetition.get("pacing").is_none(), "think time is no rate");
}

/// A file on sshfs over loopback whose FUSE daemon is stopped (SIGSTOP)
/// for 500 ms in the middle of a 500 I/O/s cold random read: the reads due
/// meanwhile are issued late, so their latency from issue is short, and
/// only the read in flight sees the stall; latency from intended issue
/// sees all 250. (The kernel here has no device-mapper to suspend a block
/// device with; a stopped FUSE daemon stalls the file the same way.)
#[test]
fn latency_from_intended_issue_shows_a_stall_that_latency_from_issue_hides() {
    if !have("pgrep") {
        return;
    }
    let temp = scratch();
    let Some(mount) = SshfsMount::or_skip(temp.path()) else {
        return;
    };
    let daemon = mount.daemon_pid().expect("the sshfs daemon runs");
    // Written first, so that the read's only job thread is its timed one.
    let (file, _) = write_and_keep(mount.path(), &["--size", "32m", "--bs", "1m"]);
    let out = scratch();
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["run", "--file"])
        .arg(&file)
        .args(["--op", "read", "--pattern", "random", "--bs", "4k"])
        .args([
            "--rate-iops",
            "500",
            "--runtime",
            "4",
            "--cache",
            "cold",
            "--json",
        ])
        .current_dir(out.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_thread(child.id(), "iolab-job", std::time::Duration::from_secs(60));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let daemon = daemon as libc::pid_t;
    // SAFETY: kill(2) with a pid this test looked up and a stop/continue signal.
    assert_eq!(unsafe { libc::kill(daemon, libc::SIGSTOP) }, 0);
    std::thread::sleep(std::time::Duration::from_millis(500));
    // SAFETY: as above.
    assert_eq!(unsafe { libc::kill(daemon, libc::SIGCONT) }, 0);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    validate_schema(&result);
    let repetition = &first_point(&result)["repetitions"][0];
    let from_issue = percentile(&repetition["latency_ns"], 99.0);
    let pacing = &repetition["pacing"];
    let from_intended = percentile(&pacing["latency_from_intended_ns"], 99.0);
    eprintln!(
        "stalled 500 ms: p99 from issue {from_issue} ns, from intended issue {from_intended} ns"
    );
    assert!(
        from_intended >= 250_000_000,
        "p99 from intended issue {from_intended} ns after a 500 ms stall"
    );
    assert!(
        from_issue * 10 < from_intended,
        "p99 from issue {from_issue} ns, from intended issue {from_intended} ns"
    );
    assert!(repetition["latency_ns"]["max"].as_u64().unwrap() >= 400_000_000);
    std::fs::remove_file(&file).unwrap();
}

/// fio's rate_iops, rate, rate_process, thinktime and thinktime_blocks
/// import to the same pace; a rate per direction of a mix is listed as
/// not imported, by option and value.
#[test]
fn fios_rates_and_think_time_import_to_the_same_pace() {
    if !fio_available() {
        return;
    }
    let out = scratch();
    // fio's null engine: its jobs are paced, not stored.
    let null_job = |name: &str, options: &[&str]| {
        let common = [
            "--ioengine=null",
            "--bs=4k",
            "--size=1m",
            "--runtime=1",
            "--time_based",
        ];
        fio_json(out.path(), name, &[&common[..], options].concat())
    };
    let paced = null_job(
        "paced",
        &[
            "--rw=randread",
            "--rate_iops=500",
            "--rate_process=poisson",
            "--thinktime=100",
            "--thinktime_blocks=4",
        ],
    );
    let workload = imported_workload(&paced, out.path());
    assert_eq!(workload["rate_iops"], 500, "{workload}");
    assert_eq!(workload["arrivals"], "poisson");
    assert_eq!(workload["think"], "100us:every=4");

    let byte_rate = null_job("byterate", &["--rw=write", "--rate=1m"]);
    assert_eq!(imported_workload(&byte_rate, out.path())["rate"], 1 << 20);

    // fio paces each direction of a mix apart: the rates' proportion, not
    // rwmixread, is the mix it ran, and the one iolab imports.
    let split = null_job("split", &["--rw=randrw", "--rwmixread=70", "--rate=1m,2m"]);
    let workload = imported_workload(&split, out.path());
    assert_eq!(
        workload["rate"],
        serde_json::json!({ "read": 1 << 20, "write": 2 << 20 }),
        "{workload}"
    );
    assert_eq!(workload["mix"], "read=33,write=67", "{workload}");
    // One value applies to each direction: 500 reads and 500 writes a second.
    let both = null_job(
        "both",
        &["--rw=randrw", "--rwmixread=70", "--rate_iops=500"],
    );
    let point = imported_point(&both, out.path());
    assert_eq!(
        point["workload"]["rate_iops"],
        serde_json::json!({ "read": 500, "write": 500 })
    );
    let shares = point["repetitions"][0]["directions"].as_array().unwrap();
    for share in shares {
        let ops = share["ops"].as_f64().unwrap();
        assert!((450.0..=550.0).contains(&ops), "fio moved {share}");
    }
    let unpaced = null_job("unpaced", &["--rw=randrw", "--rate=1m,"]);
    let stderr = import_refused(&unpaced, out.path());
    assert!(
        stderr.contains("rate=1m,") && stderr.contains("write of a mix unpaced"),
        "{stderr}"
    );
}

/// A rate per direction: each direction on its own schedule, each kept
/// within 1% on the null engine and recorded apart; the rates set the
/// mix, and a --mix that disagrees, a rate for a direction the op does
/// not take, or a direction of the mix left unpaced are refused.
#[test]
fn rates_per_direction_are_kept_apart_and_set_the_mix() {
    let out = scratch();
    let result = run_ok(
        &[
            "run",
            "--engine",
            "null",
            "--pattern",
            "random",
            "--rate-iops",
            "read=3000,write=1000",
            "--runtime",
            "1",
            "--repeat",
            "3",
        ],
        out.path(),
    );
    validate_schema(&result);
    let point = first_point(&result);
    let workload = &point["workload"];
    assert_eq!(workload["op"], "mix");
    assert_eq!(workload["mix"], "read=75,write=25");
    assert_eq!(
        workload["rate_iops"],
        serde_json::json!({ "read": 3000, "write": 1000 })
    );
    let pacings = pacings(point);
    // Each direction on its own schedule issues its own count: after any
    // stretch, reads are 3 × writes to within one I/O of each schedule,
    // however late the machine ran them (a late schedule catches up in
    // order of intended time). Drawing the direction of one 4000/s
    // schedule would stray by ~110 reads (binomial, one second); 6 allows
    // one I/O each way at both ends of the timed stretch. Counts,
    // not rates, so a preempted repetition does not decide.
    for repetition in point["repetitions"].as_array().unwrap() {
        let ops = |direction: &str| {
            repetition["directions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|d| d["direction"] == direction)
                .and_then(|d| d["ops"].as_i64())
                .unwrap()
        };
        let (reads, writes) = (ops("read"), ops("write"));
        assert!(writes > 0, "{repetition}");
        assert!(
            (reads - 3 * writes).abs() <= 6,
            "{reads} reads, {writes} writes"
        );
    }
    let directions = pacings[0]["directions"].as_array().unwrap();
    let asked: Vec<(&str, f64)> = directions
        .iter()
        .map(|d| {
            (
                d["direction"].as_str().unwrap(),
                d["target_iops"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(asked, [("read", 3000.0), ("write", 1000.0)]);
    assert_eq!(pacings[0]["target_iops"], 4000.0);

    // A sweep of per-direction byte rates: each value one point.
    let sweep = out.path().join("directions.json");
    succeed(
        iolab()
            .args(["sweep", "--dir"])
            .arg(out.path())
            .args(["--engine", "null", "--runtime", "0.5"])
            .args(["--rate", "read=4m,write=4m,read=8m,write=2m"])
            .args(["--no-report", "-o"])
            .arg(&sweep),
    );
    let result = read_result(&sweep);
    validate_schema(&result);
    let mixes: Vec<&str> = result["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["workload"]["mix"].as_str().unwrap())
        .collect();
    assert_eq!(mixes, ["read=50,write=50", "read=80,write=20"]);

    // In a study file: the same per-direction form, and a list of them.
    let points = studied(
        out.path(),
        out.path(),
        "name = \"rates\"\n[defaults]\nengine = \"null\"\nruntime = \"0.5s\"\n\
         [[sweep]]\nlabel = \"paced\"\n\
         rate_iops = [\"read=700+write=300\", \"read=500+write=500\"]\n",
    );
    let asked: Vec<(&str, &Value)> = points
        .iter()
        .map(|p| {
            (
                p["workload"]["mix"].as_str().unwrap(),
                &p["workload"]["rate_iops"],
            )
        })
        .collect();
    assert_eq!(
        asked,
        [
            (
                "read=70,write=30",
                &serde_json::json!({"read": 700, "write": 300})
            ),
            (
                "read=50,write=50",
                &serde_json::json!({"read": 500, "write": 500})
            ),
        ]
    );

    for (args, says) in [
        (
            &[
                "--mix",
                "read=70,write=30",
                "--rate-iops",
                "read=500,write=500",
            ][..],
            "disagrees with --rate-iops read=500+write=500",
        ),
        (&["--rate-iops", "write=300"][..], "paces only write"),
        (
            &["--mix", "read=50,write=50", "--rate", "read=1m"][..],
            "paces only read",
        ),
        (
            &["--op", "read", "--rate-iops", "read=5,write=5"][..],
            "op read is one direction",
        ),
    ] {
        run_refused(
            out.path(),
            &[&["--engine", "null"][..], args].concat(),
            says,
        );
    }
}

/// A blkio cgroup (v1) whose read IOPS on one device are limited; removed
/// when dropped (after the processes in it have ended).
struct Throttle {
    dir: std::path::PathBuf,
}

impl Throttle {
    /// Limits reads of block device `name` (`loop3`) to `iops` for the
    /// processes put in the cgroup; `None` when this kernel has no cgroup v1
    /// blkio hierarchy.
    fn new(name: &str, iops: u32) -> Option<Throttle> {
        let root = std::path::Path::new("/sys/fs/cgroup/blkio");
        if !root.join("blkio.throttle.read_iops_device").exists() {
            return None;
        }
        let dir = root.join(format!("iolab-knee-{}", std::process::id()));
        std::fs::create_dir(&dir).ok()?;
        let throttle = Throttle { dir };
        let dev = std::fs::read_to_string(format!("/sys/class/block/{name}/dev")).ok()?;
        std::fs::write(
            throttle.dir.join("blkio.throttle.read_iops_device"),
            format!("{} {iops}\n", dev.trim()),
        )
        .ok()?;
        Some(throttle)
    }

    /// `iolab ARGS`, started inside the cgroup.
    fn iolab(&self, args: &[&str]) -> std::process::Output {
        let binary = assert_cmd::cargo::cargo_bin("iolab");
        std::process::Command::new("sh")
            .arg("-c")
            .arg(r#"echo $$ > "$0/cgroup.procs" && exec "$@""#)
            .arg(&self.dir)
            .arg(binary)
            .args(args)
            .output()
            .unwrap()
    }
}

impl Drop for Throttle {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// A knee search on a device slowed on purpose: an ext4 loop device whose
/// reads the block layer throttles to 200 I/O/s. The throttle releases
/// I/Os in bursts once per 100 ms slice, so every depth's p99 is about
/// 100 ms; the median shows the queue: at depth 16 most I/Os wait for the
/// next slice. Deeper queues add no IOPS, only wait, so the knee under
/// p50<=10ms is a shallow queue, and the curve, the choice and the
/// report's chart are recorded.
#[test]
fn a_knee_search_finds_where_a_throttled_device_stops_giving_iops() {
    if !root_or_skip("a throttled loop device") || !have("losetup") || !have("mkfs.ext4") {
        return;
    }
    let temp = scratch();
    let fs = match crate::mounts::LoopFs::new(temp.path(), "ext4", 128) {
        Ok(fs) => fs,
        Err(error) => {
            crate::skip!("cannot mount a loop device here: {error}");
            return;
        }
    };
    let Some(throttle) = Throttle::new(&fs.device_name(), 200) else {
        crate::not_here!("no cgroup v1 blkio throttle on this kernel");
        return;
    };
    let out = scratch();
    let output_file = out.path().join("knee.json");
    let output = throttle.iolab(&[
        "sweep",
        "--dir",
        fs.path().to_str().unwrap(),
        "--op",
        "read",
        "--pattern",
        "random",
        "--bs",
        "4k",
        "--size",
        "16m",
        "--direct",
        "on",
        "--engine",
        "uring",
        "--iodepth",
        "1,4,16",
        "--runtime",
        "2",
        "--knee",
        "p50<=10ms",
        "-o",
        output_file.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("knee (p50<=10ms)"), "{stdout}");
    let result = read_result(&output_file);
    validate_schema(&result);
    let knee = &result["knee"];
    let curve = knee["curve"].as_array().unwrap();
    assert_eq!(curve.len(), 3, "{knee}");
    let iops: Vec<f64> = curve.iter().map(|s| s["iops"].as_f64().unwrap()).collect();
    let p50: Vec<u64> = curve
        .iter()
        .map(|s| s["latency_ns"].as_u64().unwrap())
        .collect();
    // The throttle caps every depth near 200 I/O/s; the wait grows with it.
    assert!(iops.iter().all(|&x| x < 260.0), "{iops:?}");
    assert!(p50[2] > 10_000_000 && p50[2] > p50[0], "{p50:?}");
    let chosen = knee["chosen"]
        .as_str()
        .unwrap_or_else(|| panic!("no knee under 10 ms: {stdout}"));
    let index = curve.iter().position(|s| s["label"] == chosen).unwrap();
    assert!(index < 2 && p50[index] <= 10_000_000, "{p50:?}");
    assert!(
        (0..3).all(|i| p50[i] > 10_000_000 || iops[i] <= iops[index]),
        "the knee has the most IOPS within the target: {iops:?} {p50:?}"
    );
    let report = std::fs::read_to_string(out.path().join("knee.html")).unwrap();
    assert!(report.contains("Knee search: p50 against IOPS"));
}

/// A study's `knee` key runs the same search as `sweep --knee`, and judges
/// paced points by their latency from intended issue.
#[test]
fn a_study_searches_the_knee_of_paced_points_by_latency_from_intended_issue() {
    let dir = scratch();
    let out = scratch();
    let study = out.path().join("rates.toml");
    std::fs::write(
        &study,
        "name = \"rates\"\nknee = \"p99<=50ms\"\n[defaults]\nengine = \"null\"\n\
         size = \"64m\"\nruntime = \"1s\"\n[[sweep]]\nlabel = \"paced\"\n\
         rate_iops = [1000, 4000]\n",
    )
    .unwrap();
    let result_file = out.path().join("rates.json");
    let output = iolab()
        .arg("study")
        .arg(&study)
        .arg("--dir")
        .arg(dir.path())
        .arg("-o")
        .arg(&result_file)
        .arg("--no-report")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("knee (p99<=50ms)"), "{stdout}");
    assert!(stdout.contains("from intended issue"), "{stdout}");
    let result = read_result(&result_file);
    validate_schema(&result);
    let curve = result["knee"]["curve"].as_array().unwrap();
    assert_eq!(curve.len(), 2, "{}", result["knee"]);
    assert!(curve.iter().all(|step| step["from_intended"] == true));
    // The null engine keeps both rates: the faster one is the knee.
    assert_eq!(result["knee"]["chosen"], curve[1]["label"]);
    let markdown = out.path().join("rates.md");
    succeed(
        iolab()
            .arg("report")
            .arg(&result_file)
            .args(["--format", "markdown", "-o"])
            .arg(&markdown),
    );
    let markdown = std::fs::read_to_string(&markdown).unwrap();
    assert!(markdown.contains("Knee search (p99<=50ms)"), "{markdown}");
    assert!(
        markdown.contains("(from intended issue) | knee |"),
        "{markdown}"
    );
}

/// A knee search along one rising load stops once two points in a row are
/// over the target (a target no I/O can meet: p99<=1ns), names the points
/// it did not run and finishes its journal; `--knee-all` runs them, and a
/// grid of two axes runs every point.
#[test]
fn a_knee_search_stops_past_the_knee_unless_asked_for_every_point() {
    let dir = scratch();
    let out = scratch();
    let sweep = |name: &str, extra: &[&str]| {
        let output_file = out.path().join(name);
        let output = succeed(
            iolab()
                .args(["sweep", "--dir"])
                .arg(dir.path())
                .args(["--engine", "null", "--runtime", "0.2", "--knee", "p99<=1ns"])
                .args(extra)
                .args(["--no-report", "-o"])
                .arg(&output_file),
        );
        let result = read_result(&output_file);
        validate_schema(&result);
        (String::from_utf8_lossy(&output.stdout).into_owned(), result)
    };
    let rates = ["--rate-iops", "1000,2000,4000,8000"];
    let (stdout, result) = sweep("stopped.json", &rates);
    let knee = &result["knee"];
    assert_eq!(knee["curve"].as_array().unwrap().len(), 2, "{knee}");
    let not_run: Vec<&str> = knee["not_run"]
        .as_array()
        .unwrap()
        .iter()
        .map(|label| label.as_str().unwrap())
        .collect();
    assert_eq!(not_run.len(), 2, "{knee}");
    assert!(
        not_run[0].contains("4000") && not_run[1].contains("8000"),
        "{not_run:?}"
    );
    assert!(stdout.contains("stopped past the knee"), "{stdout}");
    assert!(
        knee.get("chosen").is_none(),
        "every point is over the target"
    );
    assert_eq!(result["points"].as_array().unwrap().len(), 2);
    assert!(
        !entries(out.path())
            .iter()
            .any(|name| name.contains("journal")),
        "the search is complete: {:?}",
        entries(out.path())
    );

    let (_, all) = sweep("all.json", &[&rates[..], &["--knee-all"]].concat());
    assert_eq!(all["knee"]["curve"].as_array().unwrap().len(), 4);
    assert!(all["knee"].get("not_run").is_none());
    let (_, grid) = sweep("grid.json", &["--rate-iops", "1000,2000", "--bs", "4k,8k"]);
    assert_eq!(
        grid["knee"]["curve"].as_array().unwrap().len(),
        4,
        "two axes: no stop"
    );
}

/// A rate whose gaps the run is too short to hold is not called kept, and
/// the rate is shown in the unit it was asked in (issue "Nothing lost,
/// nothing harmed, round 3", item 9: `--rate 1k` was "asked 0 I/O/s,
/// achieved 200.00%" and "kept").
#[test]
fn a_rate_the_run_is_too_short_to_judge_is_not_called_kept() {
    let out = scratch();
    let dir = scratch();
    let result = Cli::new([
        "run",
        "--engine",
        "null",
        "--size",
        "1m",
        "--rate",
        "1k",
        "--bs",
        "4k",
        "--runtime",
        "2s",
    ])
    .path("--dir", dir.path())
    .ok(out.path());
    let point = first_point(&result);
    let codes = check_codes(point);
    assert!(codes.contains(&"rate-unjudged".to_string()), "{codes:?}");
    assert!(!codes.contains(&"rate-kept".to_string()), "{codes:?}");
    let check = raised_check(point, "rate-unjudged");
    assert_eq!(check["evidence"], "asked 1024 B/s (0.250 I/O/s of 4096 B)");
}
