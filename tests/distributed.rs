//! Distributed runs (`--mpi`) under a real Open MPI `mpirun`: three ranks on
//! this machine (`--oversubscribe`), one result file, a rank that fails on
//! purpose, a rank killed, ranks with different arguments.
//!
//! The MPI tests exist in a build with `--features mpi` (scripts/test builds
//! with every feature and runs them with the others); the default build
//! (`scripts/test fast`) checks that `--mpi` is refused with how to build it.

use crate::util::{entries, iolab, scratch};

#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_in_a_build_without_the_feature_says_how_to_build_it() {
    let dir = scratch();
    let out = iolab()
        .args(["run", "--mpi", "--size", "1m", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
    assert!(stderr.contains("--features mpi"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn mpi_options_without_mpi_are_refused() {
    for flag in ["--shared-file", "--reorder", "--stonewall"] {
        let dir = scratch();
        let out = iolab()
            .args(["run", flag, "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--mpi"),
            "{flag}"
        );
        assert!(entries(dir.path()).is_empty());
    }
}

#[cfg(feature = "mpi")]
mod with_mpi {
    use crate::util::{check_consistency, entries, iolab, read_result, scratch};
    use serde_json::Value;
    use std::path::Path;
    use std::process::{Command, Output};
    use std::time::{Duration, Instant};

    const IOLAB: &str = env!("CARGO_BIN_EXE_iolab");

    /// `mpirun` with what running it as root in a container needs, or `None`
    /// (with the reason printed) when Open MPI is not installed.
    fn mpirun() -> Option<Command> {
        if Command::new("mpirun").arg("--version").output().is_err() {
            crate::skip!("mpirun not found (scripts/test installs openmpi-bin)");
            return None;
        }
        let mut command = Command::new("mpirun");
        command
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
            .args(["--oversubscribe", "--bind-to", "none"]);
        Some(command)
    }

    /// A scratch place and the arguments of a distributed write run with
    /// `extra`: its directory (`work`), its result and the argument line.
    fn writing_run(
        extra: &str,
    ) -> (
        tempfile::TempDir,
        std::path::PathBuf,
        std::path::PathBuf,
        String,
    ) {
        let dir = scratch();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let result = dir.path().join("r.json");
        let args = format!(
            "run --mpi --op write --bs 64k --size 8m {extra} --dir {} -o {}",
            work.display(),
            result.display()
        );
        (dir, work, result, args)
    }

    /// Adds to `mpirun` one rank that runs `iolab ARGS` under bash and, once
    /// `files` scratch files are in `work` and `after_s` seconds more have
    /// passed, sends it `signal` (`-9`, `-TERM`).
    fn signalled_rank(
        mpirun: &mut Command,
        args: &str,
        work: &Path,
        files: u32,
        after_s: u32,
        signal: &str,
    ) {
        mpirun.args([":", "-np", "1", "bash", "-c"]);
        mpirun.arg(format!(
            "{IOLAB} {args} & child=$!; \
             until [ $(ls {work}/*.dat 2>/dev/null | wc -l) -ge {files} ]; do sleep 0.1; done; \
             sleep {after_s}; kill {signal} $child; wait $child",
            work = work.display()
        ));
    }

    /// Runs `command` to its end, failing the test if it takes over `limit`
    /// (a hang is what these tests must rule out).
    fn within(mut command: Command, limit: Duration) -> Output {
        let started = Instant::now();
        let child = command
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let watchdog = std::thread::spawn(move || {
            while started.elapsed() < limit {
                std::thread::sleep(Duration::from_millis(100));
                if Path::new(&format!("/proc/{pid}")).exists() {
                    continue;
                }
                return;
            }
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        });
        let output = child.wait_with_output().unwrap();
        drop(watchdog);
        assert!(
            started.elapsed() < limit,
            "mpirun hung: killed after {limit:?}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Waits until no process's command line names `dir`: mpirun may
    /// return while a rank it ended is still dying (in an fsync, say), and
    /// iolab rightly leaves a live process's files alone.
    fn wait_for_processes_using(dir: &Path, limit: Duration) {
        let needle = dir.as_os_str().as_encoded_bytes().to_vec();
        let started = Instant::now();
        let mentions = |entry: std::fs::DirEntry| {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            cmdline
                .windows(needle.len())
                .any(|w| w == needle.as_slice())
        };
        while started.elapsed() < limit {
            let live = std::fs::read_dir("/proc")
                .unwrap()
                .filter_map(Result::ok)
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                })
                .any(mentions);
            if !live {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!(
            "processes naming {} still run after {limit:?}",
            dir.display()
        );
    }

    fn text(output: &Output) -> String {
        format!(
            "status {:?}\nstdout:\n{}\nstderr:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    }

    fn u64_at(value: &Value, key: &str) -> u64 {
        value[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key} in {value}"))
    }

    /// A rank in a time namespace whose CLOCK_MONOTONIC reads a day ahead
    /// (`unshare --time`, as CRIU's restored containers run) shares rank
    /// 0's boot id but not its clock: its jobs land on rank 0's timeline
    /// within a second, its host is recorded apart with its offset.
    #[test]
    fn a_rank_whose_clock_is_a_day_ahead_lands_on_rank_0s_timeline() {
        let Some(mut mpirun) = mpirun() else { return };
        if !crate::mounts::root_or_skip("a time namespace") {
            return;
        }
        let dir = scratch();
        let output = dir.path().join("clock.json");
        let run = [
            "run",
            "--mpi",
            "--op",
            "write",
            "--size",
            "8m",
            "--fsync-end",
            "--no-report",
        ];
        mpirun.args(["-np", "1", IOLAB]).args(run);
        mpirun.arg("--dir").arg(dir.path()).arg("-o").arg(&output);
        mpirun.args([
            ":",
            "-np",
            "1",
            "unshare",
            "--time",
            "--fork",
            "--monotonic=86400",
            "--boottime=86400",
            IOLAB,
        ]);
        mpirun.args(run);
        mpirun.arg("--dir").arg(dir.path()).arg("-o").arg(&output);
        let out = within(mpirun, Duration::from_secs(120));
        if String::from_utf8_lossy(&out.stderr).contains("unshare failed") {
            crate::not_here!("time namespaces (Linux 5.6 and on) cannot be made here");
            return;
        }
        assert!(out.status.success(), "{}", text(&out));
        let result = read_result(&output);
        let hosts = result["distributed"]["hosts"].as_array().unwrap();
        assert_eq!(hosts.len(), 2, "{hosts:?}");
        assert_eq!(hosts[1]["monotonic_offset_ns"], 86_400_000_000_000u64);
        assert!(hosts[0].get("monotonic_offset_ns").is_none(), "{hosts:?}");
        let ranks = result["points"][0]["repetitions"][0]["ranks"]
            .as_array()
            .unwrap();
        for rank in ranks {
            assert!(
                u64_at(rank, "start_ns") < 1_000_000_000,
                "rank {} started {} ns after the common start",
                rank["rank"],
                rank["start_ns"]
            );
        }
    }

    /// `scripts/hostlab` for the length of a test: down again when dropped.
    struct HostLab {
        name: String,
    }

    impl HostLab {
        /// Three hosts, the third's clocks a day ahead; `None` (skipped)
        /// without root.
        fn up() -> Option<HostLab> {
            HostLab::with(&["--hosts", "3", "--clock", "h3=86400"])
        }

        /// A lab made with `arguments` to `scripts/hostlab up`.
        fn with(arguments: &[&str]) -> Option<HostLab> {
            if !crate::mounts::root_or_skip("network namespaces") {
                return None;
            }
            // One lab per test, unique in this process and across the
            // processes on the machine (names and subnets by pid and count).
            static MADE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let count = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let pid = std::process::id();
            let lab = HostLab {
                name: format!("hl{}{count}", pid % 10_000),
            };
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/hostlab");
            let made = Command::new(script)
                .args(["up", "--name", &lab.name])
                .args(arguments)
                .arg("--subnet")
                .arg(format!("10.{}.{}", 100 + count, pid % 250))
                .output()
                .unwrap();
            assert!(
                made.status.success(),
                "{}",
                String::from_utf8_lossy(&made.stderr)
            );
            Some(lab)
        }

        /// mpirun's flags for the lab, `slots` ranks per host.
        fn mpirun_args(&self, slots: u32) -> Vec<String> {
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/hostlab");
            let out = Command::new(script)
                .args([
                    "mpirun-args",
                    "--name",
                    &self.name,
                    "--slots",
                    &slots.to_string(),
                ])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect()
        }
    }

    impl Drop for HostLab {
        fn drop(&mut self) {
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/hostlab");
            let _ = Command::new(script)
                .args(["down", "--name", &self.name])
                .output();
        }
    }

    /// Four ranks on three hosts of `scripts/hostlab` (network and UTS
    /// namespaces on a bridge, started through its agent): each rank is
    /// recorded under its host's name, the bytes add up per host and in
    /// all, and the third host's clocks, a day ahead in a time namespace,
    /// are measured and its jobs land on rank 0's timeline.
    #[test]
    fn ranks_on_three_namespaced_hosts_are_named_by_host_and_add_up() {
        let Some(mut mpirun) = mpirun() else { return };
        let Some(lab) = HostLab::up() else { return };
        let dir = scratch();
        let output = dir.path().join("hosts.json");
        mpirun
            .args(["-np", "4", "--map-by", "node"])
            .args(lab.mpirun_args(2));
        mpirun.args([
            IOLAB,
            "run",
            "--mpi",
            "--op",
            "write",
            "--size",
            "8m",
            "--fsync-end",
            "--no-report",
        ]);
        mpirun.arg("--dir").arg(dir.path()).arg("-o").arg(&output);
        let out = within(mpirun, Duration::from_secs(120));
        if String::from_utf8_lossy(&out.stderr).contains("unshare failed") {
            crate::not_here!("time namespaces (Linux 5.6 and on) cannot be made here");
            return;
        }
        assert!(out.status.success(), "{}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("4 ranks on 3 hosts"), "{stdout}");
        let result = read_result(&output);
        check_consistency(&result);
        let hosts = result["distributed"]["hosts"].as_array().unwrap();
        let names: Vec<&str> = hosts.iter().map(|h| h["name"].as_str().unwrap()).collect();
        let expected: Vec<String> = (1..=3).map(|k| format!("{}-h{k}", lab.name)).collect();
        assert_eq!(names, expected, "{hosts:?}");
        assert_eq!(
            hosts[0]["ranks"],
            serde_json::json!([0, 3]),
            "--map-by node"
        );
        assert_eq!(hosts[2]["monotonic_offset_ns"], 86_400_000_000_000u64);
        let repetition = &result["points"][0]["repetitions"][0];
        assert_eq!(repetition["status"], "ok");
        let ranks = repetition["ranks"].as_array().unwrap();
        let sum: u64 = ranks.iter().map(|r| u64_at(r, "bytes")).sum();
        assert_eq!(sum, 4 * (8 << 20));
        assert_eq!(sum, u64_at(repetition, "bytes"));
        for rank in ranks {
            let host = rank["host"].as_str().unwrap();
            let index = (rank["rank"].as_u64().unwrap() % 3) as usize;
            assert_eq!(host, expected[index], "{rank}");
            assert!(u64_at(rank, "start_ns") < 1_000_000_000, "{rank}");
        }
        let per_host = repetition["hosts"].as_array().unwrap();
        assert_eq!(per_host.len(), 3);
        // Each host's network is its own namespace's: its veth, eth0 —
        // never the bridge or the veths of the namespace that holds them
        // (`NAME-br`, `NAME-vK`). An interface idle in the window is left
        // out, and the MPI traffic of a 30 ms window does not always reach
        // every host's eth0 (1 run in 5 here), so eth0 is asked of one.
        let mut named_eth0 = 0;
        for host in per_host {
            let interfaces: Vec<&str> = host["activity"]["network"]
                .as_array()
                .unwrap_or_else(|| panic!("{host}"))
                .iter()
                .map(|n| n["name"].as_str().unwrap())
                .collect();
            assert!(
                interfaces.iter().all(|name| !name.starts_with(&lab.name)),
                "{host}"
            );
            named_eth0 += usize::from(interfaces.contains(&"eth0"));
        }
        assert!(named_eth0 >= 1, "{per_host:?}");
        assert_eq!(
            per_host.iter().map(|h| u64_at(h, "bytes")).sum::<u64>(),
            sum
        );
        let state = Path::new("/run/iolab-hostlab").join(&lab.name);
        drop(lab);
        assert!(!state.exists(), "hostlab down removed {}", state.display());
    }

    /// Two hosts given one name (cloned machines, containers named alike):
    /// their per-host figures could not be told apart, so the run is
    /// refused in one line naming the host, exit 2, before any file is made.
    #[test]
    fn two_hosts_of_one_name_are_refused_before_any_io() {
        let Some(mut mpirun) = mpirun() else { return };
        let Some(lab) = HostLab::with(&[
            "--hosts",
            "2",
            "--hostname",
            "h1=twin",
            "--hostname",
            "h2=twin",
        ]) else {
            return;
        };
        let dir = scratch();
        mpirun.args(["-np", "2"]).args(lab.mpirun_args(1));
        mpirun.args([IOLAB, "run", "--mpi", "--op", "write", "--size", "1m"]);
        mpirun.args(["--no-report", "--dir"]).arg(dir.path());
        let out = within(mpirun, Duration::from_secs(120));
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{all}");
        let said: Vec<&str> = all
            .lines()
            .filter(|l| l.contains("hosts are named twin"))
            .collect();
        assert_eq!(said.len(), 1, "said once: {all}");
        assert!(
            said[0].contains("2 hosts are named twin (rank 0 and rank 1")
                && said[0].contains("give each host its own name"),
            "{all}"
        );
        assert!(entries(dir.path()).is_empty(), "nothing made: {all}");
    }

    /// A host whose link goes down mid-run (the lab's second): mpirun,
    /// with the keepalive `scripts/hostlab mpirun-args` sets, ends the job
    /// naming the host, nothing hangs, and the next run removes every
    /// rank's file.
    #[test]
    fn a_host_lost_mid_run_ends_the_job_naming_it_and_nothing_is_left() {
        let Some(mut mpirun) = mpirun() else { return };
        let Some(lab) = HostLab::up() else { return };
        let dir = scratch();
        let args = lab.mpirun_args(1);
        let second = args[1]
            .split(',')
            .nth(1)
            .unwrap()
            .trim_end_matches(":1")
            .to_string();
        mpirun.args(["-np", "3", "--map-by", "node"]).args(&args);
        mpirun.args([
            IOLAB,
            "run",
            "--mpi",
            "--op",
            "read",
            "--size",
            "16m",
            "--runtime",
            "30s",
            "--no-report",
        ]);
        mpirun.arg("--dir").arg(dir.path());
        let name = lab.name.clone();
        let cut = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(4));
            let down = Command::new("ip")
                .args(["link", "set", &format!("{name}-v2"), "down"])
                .output()
                .unwrap();
            assert!(
                down.status.success(),
                "{}",
                String::from_utf8_lossy(&down.stderr)
            );
            Instant::now()
        });
        let out = within(mpirun, Duration::from_secs(60));
        let cut_at = cut.join().unwrap();
        let all = text(&out);
        assert!(!out.status.success(), "{all}");
        assert!(
            all.contains("lost communication with a remote daemon"),
            "{all}"
        );
        assert!(all.contains(&second), "the lost host {second} named: {all}");
        eprintln!(
            "the job ended {:?} after the link went down",
            cut_at.elapsed()
        );
        wait_for_processes_using(dir.path(), Duration::from_secs(10));
        // Each host removes its own dead runs' files (a file's owner tag
        // names its host): the next run over the same hosts, the link back.
        let up = Command::new("ip")
            .args(["link", "set", &format!("{}-v2", lab.name), "up"])
            .output()
            .unwrap();
        assert!(up.status.success());
        // Neighbours the namespaces marked failed while the link was down
        // would hold the next job's connections back.
        for k in 1..=3 {
            let _ = Command::new("ip")
                .args(["-n", &format!("{}-h{k}", lab.name), "neigh", "flush", "all"])
                .output();
        }
        std::thread::sleep(Duration::from_secs(1));
        let Some(mut next) = self::mpirun() else {
            return;
        };
        next.args(["-np", "3", "--map-by", "node"]).args(&args);
        next.args([
            IOLAB,
            "run",
            "--mpi",
            "--op",
            "write",
            "--size",
            "1m",
            "--no-report",
        ]);
        next.arg("--dir").arg(dir.path());
        let out = within(next, Duration::from_secs(60));
        assert!(out.status.success(), "{}", text(&out));
        assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
        drop(lab);
    }

    #[test]
    fn three_ranks_write_one_result_file_whose_aggregates_add_up() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let output = dir.path().join("sweep.json");
        let scratch_dir = dir.path().join("data");
        std::fs::create_dir(&scratch_dir).unwrap();
        mpirun.args([
            "-np",
            "3",
            IOLAB,
            "sweep",
            "--mpi",
            "--reorder",
            "--stonewall",
        ]);
        mpirun.args([
            "--op",
            "write,read",
            "--bs",
            "64k",
            "--size",
            "8m",
            "--repeat",
            "2",
        ]);
        mpirun.args([
            "--fsync-end",
            "--cache",
            "cold",
            "--interval",
            "5ms",
            "--no-report",
        ]);
        mpirun.arg("--dir").arg(&scratch_dir).arg("-o").arg(&output);
        let out = within(mpirun, Duration::from_secs(120));
        assert!(out.status.success(), "{}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        // Rank 0 alone prints: one table, one per-rank view per point.
        assert_eq!(
            stdout.matches("distributed: 3 ranks").count(),
            1,
            "{stdout}"
        );
        assert_eq!(stdout.matches("per rank, medians").count(), 2, "{stdout}");
        assert!(stdout.contains("stonewall:"), "{stdout}");
        assert!(
            entries(&scratch_dir).is_empty(),
            "{:?}",
            entries(&scratch_dir)
        );
        let files: Vec<String> = entries(dir.path());
        assert_eq!(
            files,
            ["data", "sweep.json"],
            "one result file, no journal left"
        );
        let result = read_result(&output);
        check_consistency(&result);
        let run = &result["distributed"];
        assert_eq!(run["ranks"], 3);
        assert_eq!(run["launcher"], "Open MPI mpirun");
        assert_eq!(run["reorder_shift"], 1);
        assert_eq!(run["hosts"].as_array().unwrap().len(), 1);
        assert!(run["hosts"][0]["environment"]["hostname"].is_string());
        for point in result["points"].as_array().unwrap() {
            for repetition in point["repetitions"].as_array().unwrap() {
                assert_eq!(repetition["status"], "ok");
                let ranks = repetition["ranks"].as_array().unwrap();
                assert_eq!(ranks.len(), 3);
                let sum: u64 = ranks.iter().map(|r| u64_at(r, "bytes")).sum();
                assert_eq!(sum, u64_at(repetition, "bytes"));
                assert_eq!(sum, 3 * (8 << 20));
                let jobs = repetition["jobs"].as_array().unwrap();
                assert_eq!(jobs.len(), 3);
                // The merged histogram holds every I/O of every rank.
                assert_eq!(u64_at(&repetition["latency_ns"], "count"), 3 * 128);
                let wall = u64_at(repetition, "elapsed_ns");
                for rank in ranks {
                    assert!(u64_at(rank, "start_ns") + u64_at(rank, "elapsed_ns") <= wall);
                }
                let stonewall = &repetition["stonewall"];
                assert!(u64_at(stonewall, "elapsed_ns") <= wall, "{stonewall}");
                assert!(u64_at(stonewall, "bytes") <= sum, "{stonewall}");
                let spread = &repetition["rank_spread"];
                assert!(spread["ratio"].as_f64().unwrap() >= 1.0);
                let hosts = repetition["hosts"].as_array().unwrap();
                assert_eq!(hosts.len(), 1);
                assert_eq!(u64_at(&hosts[0], "bytes"), sum);
                // Cold cache on every rank, reads from another rank's file.
                assert_eq!(repetition["cache"]["resident_pages"], 0);
            }
        }
        let read = &result["points"][1];
        assert!(read["label"].as_str().unwrap().starts_with("read"));
        let file = read["target"]["files"][0].as_str().unwrap();
        assert!(
            file.ends_with("-1.dat"),
            "rank 0 reads rank 1's file, not {file}"
        );
    }

    #[test]
    fn a_shared_file_is_cut_into_one_region_per_rank_and_verifies() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let output = dir.path().join("shared.json");
        mpirun.args([
            "-np",
            "3",
            IOLAB,
            "run",
            "--mpi",
            "--shared-file",
            "--op",
            "write",
        ]);
        mpirun.args(["--bs", "64k", "--size", "4m", "--repeat", "2", "--verify"]);
        mpirun.arg("--dir").arg(dir.path()).arg("-o").arg(&output);
        let out = within(mpirun, Duration::from_secs(120));
        assert!(out.status.success(), "{}", text(&out));
        let result = read_result(&output);
        assert_eq!(result["distributed"]["shared_file"], true);
        let repetition = &result["points"][0]["repetitions"][1];
        assert_eq!(u64_at(repetition, "bytes"), 3 * (4 << 20));
        // Each rank checked its own region: 64 blocks each, none bad.
        assert_eq!(u64_at(&repetition["verify"], "blocks"), 3 * 64);
        assert_eq!(u64_at(&repetition["verify"], "bad_blocks"), 0);
        // The result and its report: every rank removed its files.
        assert_eq!(entries(dir.path()), ["shared.html", "shared.json"]);
    }

    /// A point of groups over three ranks (issue "One shape of point"): a
    /// sealed logger and a two-job reader, each group with a shared file
    /// of its own cut into one region per rank. Each group's figures are
    /// its jobs' on every rank, each rank's share its own three jobs, and
    /// the logger's regions verify.
    #[test]
    fn groups_run_on_every_rank_with_each_groups_figures_from_all_ranks() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let output = dir.path().join("groups.json");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        mpirun.args([
            "-np",
            "3",
            IOLAB,
            "run",
            "--mpi",
            "--shared-file",
            "--repeat",
            "2",
        ]);
        mpirun.args([
            "--group", "logger", "--op", "write", "--bs", "64k", "--size", "1m", "--verify",
        ]);
        mpirun.args([
            "--group", "reader", "--op", "read", "--bs", "16k", "--size", "2m", "--jobs", "2",
        ]);
        mpirun.arg("--dir").arg(&data).arg("-o").arg(&output);
        let out = within(mpirun, Duration::from_secs(120));
        assert!(out.status.success(), "{}", text(&out));
        let result = read_result(&output);
        check_consistency(&result);
        let point = &result["points"][0];
        let groups = point["groups"].as_array().unwrap();
        for (group, jobs, size, ops) in [
            (&groups[0], 3, 1u64 << 20, 16),
            (&groups[1], 6, 2 << 20, 128),
        ] {
            for repetition in group["repetitions"].as_array().unwrap() {
                assert_eq!(repetition["status"], "ok", "{}", repetition["error"]);
                let per_job: Vec<(u64, u64)> = repetition["jobs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|job| (u64_at(job, "bytes"), u64_at(job, "ops")))
                    .collect();
                assert_eq!(per_job, vec![(size, ops); jobs], "{}", group["label"]);
            }
        }
        for repetition in point["repetitions"].as_array().unwrap() {
            assert_eq!(u64_at(repetition, "bytes"), 3 * ((1 << 20) + 2 * (2 << 20)));
            // The logger's 16 blocks on each rank, none bad.
            assert_eq!(u64_at(&repetition["verify"], "blocks"), 3 * 16);
            assert_eq!(u64_at(&repetition["verify"], "bad_blocks"), 0);
            let ranks = repetition["ranks"].as_array().unwrap();
            assert_eq!(ranks.len(), 3);
            for rank in ranks {
                assert_eq!(rank["jobs"].as_array().unwrap().len(), 3, "{rank}");
                assert_eq!(u64_at(rank, "bytes"), (1 << 20) + 2 * (2 << 20), "{rank}");
            }
        }
        assert!(entries(&data).is_empty(), "{:?}", entries(&data));
    }

    /// mdtest's main use: three ranks on one shared tree, each stat'ing,
    /// reading and removing its neighbour rank's files; every phase works
    /// on exactly items × ranks, and the tree is gone at the end.
    #[test]
    fn three_ranks_share_one_metadata_tree_with_a_neighbour_stride() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let output = dir.path().join("tree.json");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).unwrap();
        mpirun.args([
            "-np",
            "3",
            IOLAB,
            "run",
            "--mpi",
            "--ops",
            "create,stat,read,delete",
        ]);
        mpirun.args([
            "--items", "40", "--depth", "1", "--fanout", "2", "--stride", "1",
        ]);
        mpirun.args(["--file-size", "100", "--repeat", "2"]);
        mpirun.arg("--dir").arg(&data).arg("-o").arg(&output);
        let out = within(mpirun, Duration::from_secs(120));
        assert!(out.status.success(), "{}", text(&out));
        let result = read_result(&output);
        check_consistency(&result);
        for point in result["points"].as_array().unwrap() {
            let op = point["workload"]["op"].as_str().unwrap();
            for repetition in point["repetitions"].as_array().unwrap() {
                assert_eq!(repetition["status"], "ok", "{op}: {}", repetition["error"]);
                // 3 directories × 40 items for each of the 3 ranks' jobs.
                assert_eq!(u64_at(&repetition["tree"], "items"), 360, "{op}");
                assert_eq!(
                    repetition["tree"]["items_per_job"],
                    serde_json::json!([120, 120, 120])
                );
            }
        }
        assert!(entries(&data).is_empty(), "{:?}", entries(&data));
    }

    /// A 70/30 mix over three ranks of one shared file: every interval of
    /// the merged series keeps each direction's part (the ranks send them),
    /// and each rank's region verifies block by block, writer by writer.
    #[test]
    fn a_mix_over_three_ranks_keeps_each_direction_in_every_interval() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let output = dir.path().join("mix.json");
        mpirun.args(["-np", "3", IOLAB, "run", "--mpi", "--shared-file"]);
        mpirun.args(["--mix", "read=70,write=30", "--pattern", "random"]);
        mpirun.args([
            "--bs",
            "4k",
            "--size",
            "4m",
            "--verify",
            "--interval",
            "5ms",
        ]);
        mpirun.arg("--dir").arg(dir.path()).arg("-o").arg(&output);
        let out = within(mpirun, Duration::from_secs(120));
        assert!(out.status.success(), "{}", text(&out));
        let result = read_result(&output);
        check_consistency(&result);
        let repetition = &result["points"][0]["repetitions"][0];
        assert_eq!(u64_at(repetition, "ops"), 3 * 1024);
        let shares = repetition["directions"].as_array().unwrap();
        let writes = u64_at(&shares[1], "ops");
        assert_eq!(u64_at(&shares[0], "ops") + writes, 3 * 1024);
        let series = repetition["series"].as_array().unwrap();
        let mut series_writes = 0;
        for interval in series {
            // An interval in which no rank completed an I/O has no parts.
            let Some(parts) = interval["directions"].as_array() else {
                assert_eq!(u64_at(interval, "ops"), 0, "{interval}");
                continue;
            };
            let ops: u64 = parts.iter().map(|p| u64_at(p, "ops")).sum();
            assert_eq!(ops, u64_at(interval, "ops"), "{interval}");
            series_writes += u64_at(&parts[1], "ops");
        }
        assert_eq!(series_writes, writes, "every rank's writes in the series");
        assert_eq!(u64_at(&repetition["verify"], "blocks"), 3 * 1024);
        assert_eq!(u64_at(&repetition["verify"], "bad_blocks"), 0);
        assert_eq!(entries(dir.path()), ["mix.html", "mix.json"]);
    }

    /// A knee search past its knee stops on every rank at the same point:
    /// rank 0 decides from the result it holds and the others follow,
    /// with no rank left waiting.
    #[test]
    fn a_knee_search_stops_on_every_rank_at_the_same_point() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let output = dir.path().join("knee.json");
        mpirun.args(["-np", "2", IOLAB, "sweep", "--mpi", "--engine", "null"]);
        mpirun.args(["--runtime", "0.2", "--rate-iops", "1000,2000,4000,8000"]);
        mpirun.args(["--knee", "p99<=1ns", "--no-report"]);
        mpirun.arg("--dir").arg(dir.path()).arg("-o").arg(&output);
        let out = within(mpirun, Duration::from_secs(120));
        assert!(out.status.success(), "{}", text(&out));
        let result = read_result(&output);
        assert_eq!(result["points"].as_array().unwrap().len(), 2);
        assert_eq!(result["knee"]["not_run"].as_array().unwrap().len(), 2);
        assert_eq!(entries(dir.path()), ["knee.json"]);
    }

    #[test]
    fn a_rank_that_fails_fails_the_run_with_its_rank_host_and_error() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let output = dir.path().join("failed.json");
        let args = format!(
            "run --mpi --op write --bs 64k --size 16m --repeat 2 --dir {} -o {}",
            dir.path().display(),
            output.display()
        );
        // MPMD: ranks 0 and 1 as usual, rank 2 with a file-size limit of
        // 8 MiB, so its writes fail for real with EFBIG (MPI's own shared
        // memory files stay under it).
        mpirun.args(["-np", "2", IOLAB]).args(args.split(' '));
        mpirun.args([":", "-np", "1", "bash", "-c"]);
        mpirun.arg(format!("ulimit -f 8192; exec {IOLAB} {args}"));
        let out = within(mpirun, Duration::from_secs(120));
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("rank 2 on "), "{stderr}");
        assert!(stderr.contains("EFBIG"), "{stderr}");
        let result = read_result(&output);
        let repetitions = result["points"][0]["repetitions"].as_array().unwrap();
        assert_eq!(repetitions.len(), 1, "no repetition after the failure");
        assert_eq!(repetitions[0]["status"], "failed");
        assert!(
            repetitions[0].get("throughput_bps").is_none(),
            "failures are never timed"
        );
        let ranks = repetitions[0]["ranks"].as_array().unwrap();
        assert_eq!(ranks[2]["status"], "failed");
        assert_eq!(ranks[0]["status"], "ok");
        assert_eq!(
            entries(dir.path()),
            ["failed.json"],
            "every rank removed its file"
        );
    }

    #[test]
    fn a_rank_killed_mid_run_ends_the_job_without_a_hang() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let args = format!(
            "run --mpi --op write --bs 4k --runtime 600s --fsync-every 1 --dir {}",
            dir.path().display()
        );
        mpirun.args(["-np", "2", IOLAB]).args(args.split(' '));
        // Killed once every rank's file is there (and a second more).
        signalled_rank(&mut mpirun, &args, dir.path(), 3, 1, "-9");
        // The runtime is 600 s: ending within the 120 s limit, the job was
        // ended by the kill, whatever the machine's load.
        let out = within(mpirun, Duration::from_secs(120));
        assert!(!out.status.success(), "{}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("signal 9") || stderr.contains("exited"),
            "{stderr}"
        );
        // The launcher ends the other ranks, as a rule before they can clean
        // up: what they left is a dead run's, and the next run there removes
        // it, naming each file (issue "Nothing lost, nothing harmed, round
        // 3", item 16; docs/distributed.md says so). mpirun can return while
        // a rank it ended still runs (one did, in CI): its files are a live
        // run's until it is gone, so the next run starts after that.
        wait_for_processes_using(dir.path(), Duration::from_secs(60));
        let left: Vec<String> = entries(dir.path())
            .into_iter()
            .filter(|name| name.ends_with(".dat"))
            .collect();
        assert!(
            left.iter().any(|name| name.ends_with("-2.dat")),
            "the killed rank's file is left: {left:?}"
        );
        let next = Command::new(IOLAB)
            .args(["run", "--size", "1m", "--dir"])
            .arg(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&next.stderr);
        assert!(next.status.success(), "{stderr}");
        for name in &left {
            assert!(
                stderr.contains(name.as_str()),
                "{name} removed and named: {stderr}"
            );
        }
        assert!(
            !entries(dir.path())
                .iter()
                .any(|name| name.ends_with(".dat")),
            "nothing of the killed job left: {stderr}"
        );
    }

    /// A rank lost mid-run (SIGKILLed: mpirun then stops the others with
    /// SIGTERM and kills them a second later) loses only the repetition in
    /// flight: rank 0 keeps the ones finished before, names the lost rank
    /// and its host, and writes its result (it used to wait on the dead
    /// rank until killed, with no result file at all).
    #[test]
    fn a_rank_lost_mid_run_keeps_the_repetitions_finished_before_and_names_it() {
        let Some(mut mpirun) = mpirun() else { return };
        let (_dir, work, result, args) = writing_run("--runtime 1s --repeat 30");
        mpirun.args(["-np", "2", IOLAB]).args(args.split(' '));
        signalled_rank(&mut mpirun, &args, &work, 3, 6, "-9");
        let out = within(mpirun, Duration::from_secs(120));
        assert!(!out.status.success(), "{}", text(&out));
        let value = read_result(&result);
        let repetitions = value["points"][0]["repetitions"].as_array().unwrap();
        let ok = repetitions.iter().filter(|r| r["status"] == "ok").count();
        assert!(
            ok >= 1,
            "the finished repetitions are kept: {repetitions:?}"
        );
        let last = repetitions.last().unwrap();
        assert_eq!(last["status"], "failed", "{last}");
        let error = last["error"].as_str().unwrap();
        assert!(
            error.contains("rank 2 on ") && error.contains("did not report"),
            "{error}"
        );
        assert!(repetitions.len() < 30, "the run ended at the loss");
    }

    /// SIGTERM to one rank stops every rank (it used to stop that rank
    /// alone, the others running their whole runtime, and the point mixed
    /// a rank stopped early with full ones): one interrupted repetition,
    /// exit 143, nothing left.
    #[test]
    fn sigterm_to_one_rank_stops_every_rank() {
        let Some(mut mpirun) = mpirun() else { return };
        let (_dir, work, result, args) = writing_run("--runtime 300s");
        mpirun.args(["-np", "1", IOLAB]).args(args.split(' '));
        signalled_rank(&mut mpirun, &args, &work, 3, 2, "-TERM");
        mpirun.args([":", "-np", "1", IOLAB]).args(args.split(' '));
        // The runtime is 300 s: ending within the limit, every rank stopped.
        let out = within(mpirun, Duration::from_secs(120));
        assert_eq!(out.status.code(), Some(143), "{}", text(&out));
        let value = read_result(&result);
        let repetition = &value["points"][0]["repetitions"][0];
        assert_eq!(repetition["status"], "interrupted", "{repetition}");
        let elapsed_s = repetition["elapsed_ns"].as_f64().unwrap_or(0.0) / 1e9;
        assert!(elapsed_s < 100.0, "every rank stopped: {elapsed_s} s");
        wait_for_processes_using(&work, Duration::from_secs(60));
        assert!(entries(&work).is_empty(), "{:?}", entries(&work));
    }

    /// A file put in place of rank 1's scratch file during the run is left
    /// there, the rank and its host named, and the run's status is 1 (it
    /// was 0: only rank 0's own files counted).
    #[test]
    fn a_file_swapped_under_rank_1_is_named_by_rank_and_host_with_status_1() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let args = format!(
            "run --mpi --op write --bs 64k --size 8m --runtime 4s --dir {}",
            work.display()
        );
        mpirun.args(["-np", "2", IOLAB]).args(args.split(' '));
        let child = mpirun
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let theirs = loop {
            let files: Vec<String> = entries(&work)
                .into_iter()
                .filter(|n| n.ends_with("-1.dat"))
                .collect();
            if let Some(name) = files.first() {
                break work.join(name);
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no file of rank 1"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        std::thread::sleep(Duration::from_millis(1500));
        let moved = dir.path().join("moved.dat");
        std::fs::rename(&theirs, &moved).unwrap();
        std::fs::write(&theirs, b"someone else's").unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with("iolab: rank 1 on ") && l.contains("left in place")),
            "{stderr}"
        );
        assert_eq!(std::fs::read(&theirs).unwrap(), b"someone else's");
    }

    /// Bad input only one rank finds (its directory lacks room: here a
    /// 1 MiB tmpfs in rank 1's own mount namespace) ends the run with exit
    /// status 2 and one `error:` line naming the rank and its host, as on
    /// one host (it was 1, without `error:`).
    #[test]
    fn a_free_space_refusal_on_one_rank_is_bad_input_with_status_2() {
        let Some(mut mpirun) = mpirun() else { return };
        if !crate::mounts::root_or_skip("a tmpfs in a mount namespace")
            || !crate::mounts::have("unshare")
        {
            return;
        }
        let dir = scratch();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let args = format!(
            "run --mpi --op write --bs 64k --size 64m --dir {}",
            work.display()
        );
        mpirun.args(["-np", "1", IOLAB]).args(args.split(' '));
        mpirun.args([":", "-np", "1", "unshare", "-m", "bash", "-c"]);
        mpirun.arg(format!(
            "mount -t tmpfs -o size=1m tmpfs {work} && exec {IOLAB} {args}",
            work = work.display()
        ));
        let out = within(mpirun, Duration::from_secs(120));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let errors: Vec<&str> = stderr.lines().filter(|l| l.contains("error:")).collect();
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(
            errors[0].contains("rank 1 on ") && errors[0].contains("not enough free space"),
            "{stderr}"
        );
        assert!(entries(&work).is_empty(), "{:?}", entries(&work));
    }

    /// `--guest` with `--mpi` is refused once, by rank 0, before any rank
    /// starts (it came from every rank through MPI_Abort's banner).
    #[test]
    fn a_guest_with_mpi_is_refused_once_before_anything_starts() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        mpirun
            .args([
                "-np",
                "2",
                IOLAB,
                "run",
                "--mpi",
                "--guest",
                "accel=tcg",
                "--dir",
            ])
            .arg(dir.path());
        let out = within(mpirun, Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let ours: Vec<&str> = stderr.lines().filter(|l| l.starts_with("iolab")).collect();
        assert_eq!(ours.len(), 1, "{stderr}");
        assert!(
            ours[0].contains("--guest cannot be used with --mpi"),
            "{stderr}"
        );
        assert!(!stderr.contains("MPI_ABORT"), "{stderr}");
        assert!(entries(dir.path()).is_empty());
    }

    /// An argument error is said once by rank 0, not once per rank
    /// (issue "Nothing lost, nothing harmed, round 3", item 18).
    #[test]
    fn an_argument_error_under_mpirun_is_said_once() {
        let Some(mut mpirun) = mpirun() else { return };
        mpirun.args(["-np", "3", IOLAB, "run", "--mpi", "--bogus"]);
        let out = within(mpirun, Duration::from_secs(120));
        assert!(!out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            stderr
                .matches("iolab: error: unexpected argument '--bogus'")
                .count(),
            1,
            "{stderr}"
        );
    }

    #[test]
    fn ranks_with_different_arguments_are_refused_and_named() {
        let Some(mut mpirun) = mpirun() else { return };
        let dir = scratch();
        let common = ["run", "--mpi", "--op", "read", "--dir"];
        mpirun
            .args(["-np", "2", IOLAB])
            .args(common)
            .arg(dir.path());
        mpirun
            .args(["--size", "1m", ":", "-np", "1", IOLAB])
            .args(common)
            .arg(dir.path());
        mpirun.args(["--size", "2m"]);
        let out = within(mpirun, Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let ours: Vec<&str> = stderr.lines().filter(|l| l.starts_with("iolab")).collect();
        assert_eq!(ours.len(), 1, "rank 0 alone reports it: {stderr}");
        assert!(
            ours[0].contains("rank 2 on ") && ours[0].contains("--size 2m"),
            "{stderr}"
        );
        assert!(entries(dir.path()).is_empty());
    }

    /// A rebuilt iolab of other code at the same version and commit is
    /// told apart by its build id (here the same binary with its GNU build
    /// id changed): refused and named, where it used to be taken as the
    /// same iolab.
    #[test]
    fn ranks_of_other_builds_at_one_version_are_refused_and_named() {
        let Some(mut mpirun) = mpirun() else { return };
        let Ok(notes) = Command::new("readelf").args(["-n", IOLAB]).output() else {
            crate::skip!("readelf is not installed (Debian binutils)");
            return;
        };
        let notes = String::from_utf8_lossy(&notes.stdout).into_owned();
        let id = notes
            .lines()
            .find_map(|l| l.trim().strip_prefix("Build ID: "))
            .expect("the binary has a GNU build id")
            .to_string();
        let bytes: Vec<u8> = (0..id.len() / 2)
            .map(|i| u8::from_str_radix(&id[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let dir = scratch();
        let mut binary = std::fs::read(IOLAB).unwrap();
        let at = binary
            .windows(bytes.len())
            .position(|w| w == bytes.as_slice())
            .expect("the build id in the file");
        binary[at] ^= 0xff;
        let rebuilt = dir.path().join("iolab-rebuilt");
        std::fs::write(&rebuilt, &binary).unwrap();
        rustix::fs::chmod(&rebuilt, rustix::fs::Mode::from_raw_mode(0o755)).unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir(&work).unwrap();
        let common = ["run", "--mpi", "--op", "read", "--size", "1m", "--dir"];
        mpirun.args(["-np", "1", IOLAB]).args(common).arg(&work);
        mpirun
            .args([":", "-np", "1"])
            .arg(&rebuilt)
            .args(common)
            .arg(&work);
        let out = within(mpirun, Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("rank 1 on ") && stderr.contains("(build "),
            "{stderr}"
        );
        assert!(entries(&work).is_empty());
    }

    #[test]
    fn mpi_outside_a_launcher_runs_as_one_rank_and_says_so() {
        let dir = scratch();
        let output = dir.path().join("one.json");
        let out = iolab()
            .args(["run", "--mpi", "--op", "write", "--size", "2m", "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&output)
            .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        assert!(String::from_utf8_lossy(&out.stderr).contains("running as one rank"));
        let result = read_result(&output);
        assert_eq!(result["distributed"]["ranks"], 1);
        assert_eq!(result["distributed"]["launcher"], "none (one rank)");
    }
}
