//! `scripts/netlab`: the NFSv3 server and iSCSI target the network engines are tested against, in a namespace of their own.

use crate::lab::NetLab;

#[test]
fn netlab_serves_nfs_v3_and_iscsi_inside_its_namespace_and_leaves_nothing() {
    let Some(lab) = NetLab::start("64M") else {
        return;
    };
    let source = tempfile::NamedTempFile::new().unwrap();
    let data: Vec<u8> = (0..1u32 << 20)
        .map(|i| i.wrapping_mul(2_654_435_761) as u8)
        .collect();
    std::fs::write(source.path(), &data).unwrap();
    // libnfs's own client writes a file through the export, over NFSv3.
    let url = lab.nfs.replace("/export?", "/export/copied.bin?");
    let copied = lab
        .command("nfs-cp")
        .arg(source.path())
        .arg(&url)
        .output()
        .unwrap();
    assert!(
        copied.status.success(),
        "{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    assert_eq!(std::fs::read(lab.export.join("copied.bin")).unwrap(), data);
    // libiscsi's own client reads the LUN's capacity: 64 MiB of 512-byte blocks.
    let capacity = lab
        .command("iscsi-readcapacity16")
        .arg(&lab.iscsi)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&capacity.stdout);
    assert!(text.contains("LOGICAL BLOCK ADDRESS:131071"), "{text}");
    // Nothing listens outside the namespace.
    let outside = std::net::TcpStream::connect(("127.0.0.1", 3260));
    assert!(outside.is_err(), "port 3260 answers outside the namespace");
    let (pids, netns, export) = (lab.pids(), lab.netns.clone(), lab.export.clone());
    assert_eq!(pids.len(), 3, "rpcbind, ganesha and tgtd");
    drop(lab);
    for pid in pids {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Gone, or a zombie waiting for its reaper.
        assert!(
            state.is_empty() || state.contains(") Z "),
            "server {pid} still runs: {state}"
        );
    }
    let namespaces = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&namespaces.stdout).contains(&netns));
    assert!(
        export.parent().is_some_and(|dir| !dir.exists()),
        "its directory is removed"
    );
}

/// Runs `body` on a thread that entered `lab`'s network namespace (setns
/// moves only the calling thread), so a client library in this process
/// reaches the servers there.
fn inside<T: Send>(lab: &NetLab, body: impl FnOnce() -> T + Send) -> T {
    let path = format!("/var/run/netns/{}", lab.netns);
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let namespace = std::fs::File::open(&path).unwrap();
                use std::os::fd::AsRawFd;
                // SAFETY: a valid namespace descriptor; only this thread moves.
                let status = unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) };
                assert_eq!(
                    status,
                    0,
                    "setns {path}: {}",
                    std::io::Error::last_os_error()
                );
                body()
            })
            .join()
            .unwrap()
    })
}

/// The timing loop's spec of one pass over `blocks` 4 KiB blocks.
fn pass(
    directions: iolab::plan::direction::DirectionMix,
    pattern: iolab::plan::Pattern,
    blocks: u64,
    interrupt: &std::sync::atomic::AtomicUsize,
) -> iolab::run::io::spec::LoopSpec<'_> {
    iolab::run::io::spec::LoopSpec {
        directions,
        bs: 4096,
        sizes: None,
        write_sizes: None,
        trim_then_write: false,
        serialize_overlap: false,
        blocks,
        base: 0,
        pattern,
        data: iolab::plan::DataPattern::Unique,
        pace: iolab::plan::pace::Pace::NONE,
        seed: 11,
        job: (0, 1),
        runtime: None,
        passes: 1,
        io_blocks: None,
        align_blocks: 1,
        time_limit: None,
        start_delay: std::time::Duration::ZERO,
        ramp: std::time::Duration::ZERO,
        batch: 4,
        fsync_every: 0,
        fsync_data: false,
        fsync_end: true,
        interval: std::time::Duration::from_secs(1),
        iodepth: 1,
        reap: 0,
        latency_target: None,
        priority: None,
        max_intervals: 16,
        interrupt,
        file: "nfs",
        verify: Some(iolab::run::io::verify::run_tag("netlab")),
        verify_backlog: 0,
        verify_tracks_writes: false,
        socket: None,
    }
}

#[test]
fn the_nfs_engine_writes_and_reads_through_the_export_with_every_rpc_counted() {
    use iolab::engine::nfs::{NfsIo, libnfs::Context, url::NfsUrl};
    use iolab::plan::Pattern;
    use iolab::plan::direction::{Direction, DirectionMix};
    use iolab::run::io::queued::run_queued;
    use iolab::run::io::recorder::JobMemory;
    let Some(lab) = NetLab::shared_export("engine") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    const BLOCKS: u64 = 256;
    let url = NfsUrl::parse(&lab.nfs).unwrap();
    let (writes, reads, commits) = inside(&lab, || {
        let context = Context::connect(&url).unwrap();
        // ganesha lets a directory inside its export be mounted itself.
        assert_eq!(
            (context.export.as_str(), context.dir.as_str()),
            ("/export/engine", "")
        );
        let path = context.path_of("engine.dat");
        let file = context.create_new(&path).unwrap();
        assert!(
            context.create_new(&path).is_err(),
            "an existing file is never created over"
        );
        let interrupt = std::sync::atomic::AtomicUsize::new(0);
        let mut buffers = vec![0u8; 8 * 4096];
        let mut run = |directions: DirectionMix, pattern| {
            // SAFETY: 8 slots of 4 KiB, reaped by run_queued before it returns.
            let mut io = unsafe { NfsIo::new(&file, 8, buffers.as_mut_ptr(), 4096) }.unwrap();
            let spec = pass(directions, pattern, BLOCKS, &interrupt);
            let memory = JobMemory::try_new(true, directions).unwrap();
            let outcome = run_queued(&mut io, 8, &spec, memory, || true);
            assert!(outcome.failure.is_none(), "{:?}", outcome.failure);
            assert_eq!(outcome.ops, BLOCKS);
            io.counts()
        };
        let writes = run(DirectionMix::only(Direction::Write), Pattern::Seq);
        let reads = run(DirectionMix::only(Direction::Read), Pattern::Random);
        assert_eq!(file.length().unwrap(), BLOCKS * 4096);
        // Every block the engine wrote is on the server, sealed for its own
        // offset, and a READ through the client brings the same bytes.
        let stored = std::fs::read(lab.export.join("engine.dat")).unwrap();
        let mut block = vec![0u8; 4096];
        for (index, expected) in stored.chunks(4096).enumerate() {
            let offset = index as u64 * 4096;
            iolab::run::io::verify::check_block(expected, offset).unwrap();
            assert_eq!(file.read_at(&mut block, offset).unwrap(), 4096);
            assert_eq!(block, expected, "block {index} read back");
        }
        (writes, reads, context.unlink(&path))
    });
    assert_eq!(
        (writes.write.calls, writes.write.bytes),
        (BLOCKS, BLOCKS * 4096)
    );
    assert_eq!(writes.commit.calls, 1, "--fsync-end is one COMMIT");
    assert_eq!(
        (reads.read.calls, reads.read.bytes, reads.write.calls),
        (BLOCKS, BLOCKS * 4096, 0)
    );
    commits.unwrap();
    assert!(
        !lab.export.join("engine.dat").exists(),
        "removed through the export"
    );
}

/// `iolab run ARGS` inside `lab`'s namespace.
fn iolab_inside(lab: &NetLab, args: &[&str]) -> std::process::Output {
    lab.command(env!("CARGO_BIN_EXE_iolab"))
        .args(args)
        .output()
        .expect("iolab runs")
}

#[test]
fn iolab_run_measures_an_nfs_export_and_leaves_nothing_there() {
    let Some(lab) = NetLab::shared_export("run") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let out = crate::util::scratch();
    let result_of = |name: &str, extra: &[&str]| {
        let path = out.path().join(name);
        let path_text = path.to_str().unwrap();
        let mut args = vec![
            "run", "--engine", "nfs", "--target", &lab.nfs, "--size", "8m",
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--json", "--output", path_text]);
        let output = iolab_inside(&lab, &args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let result = crate::util::read_result(&path);
        crate::util::validate_schema(&result);
        crate::util::check_consistency(&result);
        result
    };
    // Writes sealed and committed, every block checked afterwards through the server.
    let written = result_of(
        "write.json",
        &[
            "--op",
            "write",
            "--bs",
            "64k",
            "--iodepth",
            "4",
            "--verify",
            "--fsync-end",
        ],
    );
    let point = crate::util::first_point(&written);
    assert_eq!(point["target"]["filesystem"], "nfs3 (libnfs)");
    assert!(
        point["target"]["files"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!("{}/iolab-", lab.nfs_dir()))
    );
    let repetition = &point["repetitions"][0];
    assert_eq!(
        (repetition["status"].as_str(), repetition["bytes"].as_u64()),
        (Some("ok"), Some(8 << 20))
    );
    assert_eq!(repetition["verify"]["bad_blocks"], 0);
    assert_eq!(repetition["verify"]["blocks"], 128);
    // The engine's calls, and TCP's own account on an MTU-1500 loopback:
    // every payload byte acknowledged, in segments of at most 1448 bytes.
    let network = &repetition["client_network"];
    assert_eq!(network["protocol"], "NFSv3");
    assert_eq!(
        network["requests"],
        serde_json::json!([
            {"name": "WRITE", "count": 128, "bytes": 8 << 20},
            {"name": "COMMIT", "count": 1, "bytes": 0},
        ])
    );
    assert!(network.get("pdus").is_none(), "NFS has no PDUs: {network}");
    let tcp = &network["tcp"];
    assert!(tcp["bytes_acked"].as_u64().unwrap() > 8 << 20, "{tcp}");
    assert!(
        tcp["data_segs_out"].as_u64().unwrap() >= (8 << 20) / 1448,
        "{tcp}"
    );
    // Random reads of a laid-out file, queued 16 deep, twice.
    let read = result_of(
        "read.json",
        &[
            "--op",
            "read",
            "--pattern",
            "random",
            "--bs",
            "4k",
            "--iodepth",
            "16",
            "--repeat",
            "2",
        ],
    );
    for repetition in crate::util::first_point(&read)["repetitions"]
        .as_array()
        .unwrap()
    {
        assert_eq!(
            (repetition["status"].as_str(), repetition["ops"].as_u64()),
            (Some("ok"), Some(2048))
        );
        // The client's cache state cannot be seen: none is claimed.
        assert!(repetition.get("cache").is_none(), "{repetition}");
        let network = &repetition["client_network"];
        assert_eq!(
            network["requests"],
            serde_json::json!([{"name": "READ", "count": 2048, "bytes": 8 << 20}])
        );
        assert!(
            network["tcp"]["bytes_received"].as_u64().unwrap() > 8 << 20,
            "{network}"
        );
    }
    // A 70/30 mix of random reads and overwrites queued 8 deep: each
    // direction's I/Os are the engine's own READ and WRITE RPCs, and each
    // block names its writer afterwards.
    let mixed = result_of(
        "mix.json",
        &[&crate::util::MIX_70_30[..], &["--iodepth", "8", "--verify"]].concat(),
    );
    let repetition = &crate::util::first_point(&mixed)["repetitions"][0];
    assert_eq!(repetition["verify"]["bad_blocks"], 0, "{repetition}");
    let network = &repetition["client_network"];
    crate::util::check_mixed_requests(repetition, 2048, 4096, ["READ", "WRITE"]);
    assert!(
        network["tcp"]["bytes_acked"].as_u64().unwrap() > 600 * 4096,
        "{network}"
    );
    // The server's cache is not iolab's to evict, and the result says so.
    let codes = crate::util::check_codes(crate::util::first_point(&read));
    assert!(
        codes.contains(&"cache-uncontrolled".to_string()),
        "{codes:?}"
    );
    // UNSTABLE writes never committed are flagged; FILE_SYNC writes are not.
    let unstable = result_of("unstable.json", &["--op", "write", "--bs", "64k"]);
    let codes = crate::util::check_codes(crate::util::first_point(&unstable));
    assert!(
        codes.contains(&"writeback-pending".to_string()),
        "{codes:?}"
    );
    let message = crate::util::first_point(&unstable)["checks"].to_string();
    assert!(message.contains("UNSTABLE"), "{message}");
    let file_sync = result_of(
        "filesync.json",
        &["--op", "write", "--bs", "64k", "--sync", "osync"],
    );
    let codes = crate::util::check_codes(crate::util::first_point(&file_sync));
    assert!(
        !codes.contains(&"writeback-pending".to_string()),
        "{codes:?}"
    );
    let left: Vec<_> = std::fs::read_dir(&lab.export).unwrap().collect();
    assert!(
        left.is_empty(),
        "iolab removed its files from the export: {left:?}"
    );
}

#[test]
fn bad_nfs_targets_are_refused_with_the_url_named_and_nothing_created() {
    let Some(lab) = NetLab::shared_export("bad-nfs-targets") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let cwd = crate::util::scratch();
    std::fs::write(lab.export.join("afile"), "a file, not a directory").unwrap();
    let afile = format!("{}/afile", lab.nfs_dir());
    let long = format!("nfs://127.0.0.1/export/{}?version=3", "a".repeat(100_000));
    let etc = format!("{}&server_path=/etc", lab.nfs);
    for (args, expected) in [
        // Directories that are not there, or not directories, and a
        // server_path that is not the export's: found before any I/O.
        (
            vec!["--target", "nfs://127.0.0.1/export/nope"],
            "/export/nope is not a directory on the export",
        ),
        (
            vec!["--target", "nfs://127.0.0.1/export/%2e%2e"],
            "/export/%2e%2e is not a directory on the export",
        ),
        (
            vec!["--target", afile.as_str()],
            "/bad-nfs-targets/afile on the export is a file, not a directory",
        ),
        (
            vec!["--target", long.as_str()],
            "is not a directory on the export",
        ),
        (
            vec!["--target", etc.as_str()],
            "server_path=/etc is not the directory the export serves",
        ),
        (
            vec!["--target", "nfs://127.0.0.1/nosuch"],
            "--target nfs://127.0.0.1/nosuch: mount /nosuch",
        ),
        (
            vec!["--target", "nfs://10.9.9.9/export"],
            "--target nfs://10.9.9.9/export: mount /export",
        ),
        (vec!["--target", "nfs://127.0.0.1"], "no export named"),
        (
            vec!["--target", "nfs://127.0.0.1/export?version=4"],
            "speaks NFSv3",
        ),
        (
            vec!["--target", "nfs://127.0.0.1/export", "--direct"],
            "--direct cannot be honoured by engine nfs",
        ),
        (
            vec![
                "--target",
                "nfs://127.0.0.1/export",
                "--op",
                "write",
                "--sync",
                "odsync",
            ],
            "--sync odsync",
        ),
        // NFSv3 has no request that frees a range.
        (
            vec!["--target", "nfs://127.0.0.1/export", "--op", "trim"],
            "engine nfs cannot",
        ),
    ] {
        let mut all = vec!["run", "--engine", "nfs", "--size", "1m"];
        all.extend(args.iter().copied());
        let output = lab
            .command(env!("CARGO_BIN_EXE_iolab"))
            .args(&all)
            .current_dir(cwd.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{all:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(expected), "{all:?}: {stderr}");
    }
    for (engine, target, expected) in [
        (
            "mmap",
            Some(lab.nfs.as_str()),
            "is reached with --engine nfs, not --engine mmap",
        ),
        ("nfs", None, "--engine nfs needs --target nfs://"),
    ] {
        let mut all = vec!["run", "--engine", engine, "--size", "1m"];
        all.extend(target.iter().flat_map(|t| ["--target", *t]));
        let output = iolab_inside(&lab, &all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{all:?}: {stderr}");
        assert!(stderr.contains(expected), "{all:?}: {stderr}");
    }
    assert!(
        crate::util::entries(cwd.path()).is_empty(),
        "nothing created here"
    );
    assert_eq!(
        crate::util::entries(&lab.export),
        ["afile"],
        "nothing created on the export"
    );
}

#[test]
fn the_table_4_preset_runs_on_the_nfs_export_with_the_clients_own_counts() {
    let Some(lab) = NetLab::shared_export("table-4") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let cwd = crate::util::scratch();
    let output = lab
        .command(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "preset",
            "run",
            "netfs-micro",
            "--scale",
            "test",
            "--target",
            &lab.nfs,
        ])
        .args(["--output", "t4.json", "--no-report"])
        .current_dir(cwd.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("Radkov et al., FAST 2004, Table 4"),
        "{stdout}"
    );
    let result = crate::util::read_result(&cwd.path().join("t4.json"));
    crate::util::validate_schema(&result);
    for point in result["points"].as_array().unwrap() {
        assert_eq!(
            point["workload"]["engine"], "nfs",
            "the target chose the engine"
        );
        let repetition = &point["repetitions"][0];
        let blocks = point["workload"]["size"].as_u64().unwrap() / 4096;
        let calls: u64 = repetition["client_network"]["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|rpc| rpc["count"].as_u64().unwrap())
            .sum();
        assert_eq!(calls, blocks, "one RPC per 4 KiB block: {}", point["label"]);
    }
    // Each row's RPC count is the file's block count, shown in the table
    // with 4 KiB of payload per request.
    let blocks = result["points"][0]["workload"]["size"].as_u64().unwrap() / 4096;
    let rows = stdout.lines().filter(|line| {
        line.contains(&format!(" {blocks} ┆")) && line.trim_end().ends_with("4.00 KiB │")
    });
    assert_eq!(rows.count(), 4, "{stdout}");
    let left: Vec<_> = std::fs::read_dir(&lab.export).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_run_killed_on_the_export_is_cleaned_up_by_the_next_run_from_this_host() {
    let Some(lab) = NetLab::shared_export("killed-run") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let cwd = crate::util::scratch();
    let mut child = lab
        .command(env!("CARGO_BIN_EXE_iolab"))
        .args([
            "run",
            "--target",
            &lab.nfs,
            "--size",
            "8m",
            "--runtime",
            "60s",
        ])
        .current_dir(cwd.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    crate::util::wait_for_thread(child.id(), "iolab-job-", std::time::Duration::from_secs(60));
    child.kill().unwrap();
    child.wait().unwrap();
    let mut left: Vec<String> = crate::util::entries(&lab.export);
    left.sort();
    assert_eq!(left.len(), 2, "its file and its owner marker: {left:?}");
    assert!(
        left[0].ends_with("-0.dat") && left[1].ends_with(".owner"),
        "{left:?}"
    );
    // The next run finds the owner gone, removes both and says so.
    let next = lab.iolab(cwd.path(), &["run", "--target", &lab.nfs, "--size", "1m"]);
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    let stderr = String::from_utf8_lossy(&next.stderr);
    for name in &left {
        assert!(stderr.contains(name.as_str()), "{name} removed: {stderr}");
    }
    assert!(crate::util::entries(&lab.export).is_empty(), "nothing left");
}

/// A file moved into the place of the run's scratch file on the server
/// while the run reads is left there, named, and the run fails: the file id
/// is checked before REMOVE (issue "Nothing lost, nothing harmed, round 3", item 1).
#[test]
fn a_file_put_in_place_of_the_scratch_file_on_the_server_is_left_alone() {
    let Some(lab) = NetLab::with_nfs(NetLab::shared_export("planted-file")) else {
        return;
    };
    let cwd = crate::util::scratch();
    let child = lab.spawn_iolab(
        cwd.path(),
        &[
            "run",
            "--target",
            &lab.nfs,
            "--op",
            "read",
            "--bs",
            "64k",
            "--size",
            "16m",
            "--runtime",
            "4s",
        ],
    );
    crate::util::wait_for_thread(child.id(), "iolab-job-", std::time::Duration::from_secs(60));
    let scratch_name = crate::util::entries(&lab.export)
        .into_iter()
        .find(|name| name.ends_with("-0.dat"))
        .expect("the run's file is on the export");
    let victim = b"someone else's data, moved here during the run\n";
    let staged = lab.export.join(".t");
    std::fs::write(&staged, victim).unwrap();
    std::fs::rename(&staged, lab.export.join(&scratch_name)).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&scratch_name) && stderr.contains("left in place"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(lab.export.join(&scratch_name)).unwrap(),
        victim,
        "the file moved there is untouched"
    );
}

/// A file system mounted on the host before netlab starts is not kept
/// mounted in the servers' mount namespace: unmounted on the host, its loop
/// device can be detached while netlab runs (issue "Nothing lost, nothing
/// harmed, round 3", item 5).
#[test]
fn netlab_does_not_pin_the_hosts_mounts() {
    let temp = crate::util::scratch();
    let Some(fs) = crate::mounts::LoopFs::new(temp.path(), "ext4", 16)
        .map_err(|e| crate::skip!("cannot mount a loop file system here: {e}"))
        .ok()
    else {
        return;
    };
    let Some(lab) = NetLab::start("16M") else {
        return;
    };
    let mount_point = fs.path().to_str().unwrap().to_string();
    for pid in lab.pids() {
        let mounts = std::fs::read_to_string(format!("/proc/{pid}/mountinfo")).unwrap();
        assert!(
            !mounts.contains(&format!(" {mount_point} ")),
            "server {pid} keeps {mount_point} mounted:\n{mounts}"
        );
    }
    drop(fs);
}

/// This host's owner tag for a process that is gone (pid 4194303 with a
/// start time no process has), as iolab writes it in an owner marker.
fn dead_owner_tag() -> String {
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let namespace = std::fs::read_link("/proc/self/ns/pid")
        .unwrap()
        .to_string_lossy()
        .replace(' ', "_");
    format!("{host} {namespace} {} 4194303 1", boot.trim())
}

/// Dead runs' leftovers on an export: only the files a dead run's marker
/// names by file id are removed, each named; a directory or an unlisted
/// file named like a run's file stays, a marker naming files outside its
/// run's names removes nothing of them, and cleanup goes on past what it
/// leaves (issue "Nothing lost, nothing harmed, round 3", items 15 and 18).
#[test]
fn dead_runs_on_an_export_lose_only_the_files_their_markers_name() {
    use std::os::unix::fs::MetadataExt;
    let Some(lab) = NetLab::with_nfs(NetLab::shared_export("dead-runs")) else {
        return;
    };
    let export = &lab.export;
    let tag = dead_owner_tag();
    let write = |name: &str, text: &str| std::fs::write(export.join(name), text).unwrap();
    let inode = |name: &str| std::fs::metadata(export.join(name)).unwrap().ino();
    // Run aaaa1111: its file, a directory named like its second, an unlisted third.
    write("iolab-aaaa1111-0.dat", "a dead run's data");
    std::fs::create_dir(export.join("iolab-aaaa1111-1.dat")).unwrap();
    write(
        "iolab-aaaa1111-2.dat",
        "named like a run's file, listed nowhere",
    );
    write(
        "iolab-aaaa1111.owner",
        &format!(
            "{tag}\nfile iolab-aaaa1111-1.dat {}\nfile iolab-aaaa1111-0.dat {}\n",
            inode("iolab-aaaa1111-1.dat"),
            inode("iolab-aaaa1111-0.dat")
        ),
    );
    // Run bbbb2222, after it in the listing: cleaned up too.
    write("iolab-bbbb2222-0.dat", "another dead run's data");
    write(
        "iolab-bbbb2222.owner",
        &format!(
            "{tag}\nfile iolab-bbbb2222-0.dat {}\n",
            inode("iolab-bbbb2222-0.dat")
        ),
    );
    // A forged marker naming someone's file by its file id.
    write("notes.txt", "someone's notes");
    write(
        "iolab-cccc3333.owner",
        &format!("{tag}\nfile notes.txt {}\n", inode("notes.txt")),
    );
    let cwd = crate::util::scratch();
    let next = lab.iolab(cwd.path(), &["run", "--target", &lab.nfs, "--size", "1m"]);
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{stderr}");
    let mut left = crate::util::entries(export);
    left.sort();
    assert_eq!(
        left,
        ["iolab-aaaa1111-1.dat", "iolab-aaaa1111-2.dat", "notes.txt"],
        "{stderr}"
    );
    for name in [
        "iolab-aaaa1111-0.dat",
        "iolab-aaaa1111.owner",
        "iolab-bbbb2222-0.dat",
        "iolab-bbbb2222.owner",
    ] {
        let shown = format!("{}/{name},", lab.nfs_dir());
        assert!(stderr.contains(&shown), "{shown} named: {stderr}");
    }
    assert!(
        stderr.contains(&format!("left {}/iolab-aaaa1111-1.dat", lab.nfs_dir())),
        "{stderr}"
    );
}

/// A metadata workload through iolab's own NFS client: every item's
/// procedure counted from the wire (CREATE and REMOVE one per item, a
/// stat one LOOKUP by its directory's handle), nothing left on the export.
#[test]
fn a_metadata_tree_on_the_export_counts_each_procedure_and_leaves_nothing() {
    let Some(lab) = NetLab::shared_export("tree") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let out = crate::util::scratch();
    let path = out.path().join("tree.json");
    let output = iolab_inside(
        &lab,
        &[
            "run",
            "--target",
            &lab.nfs,
            "--ops",
            "create,stat,rename,delete",
            "--items",
            "20",
            "--depth",
            "1",
            "--fanout",
            "2",
            "--jobs",
            "2",
            "--stride",
            "1",
            "--file-size",
            "3901",
            "--fsync-end",
            "--output",
            path.to_str().unwrap(),
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = crate::util::read_result(&path);
    crate::util::check_consistency(&result);
    // The directory ops on the same shape (their items hold no bytes).
    let dirs_path = out.path().join("dirs.json");
    let dirs = iolab_inside(
        &lab,
        &[
            "run",
            "--target",
            &lab.nfs,
            "--ops",
            "mkdir,dirstat,rmdir",
            "--items",
            "20",
            "--depth",
            "1",
            "--fanout",
            "2",
            "--jobs",
            "2",
            "--stride",
            "1",
            "--output",
            dirs_path.to_str().unwrap(),
        ],
    );
    assert!(
        dirs.status.success(),
        "{}",
        String::from_utf8_lossy(&dirs.stderr)
    );
    let dirs = crate::util::read_result(&dirs_path);
    crate::util::check_consistency(&dirs);
    let requests = |op: &str| -> std::collections::BTreeMap<String, u64> {
        let result = if op.contains("dir") { &dirs } else { &result };
        let point = result["points"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["workload"]["op"] == op)
            .unwrap();
        let repetition = &point["repetitions"][0];
        assert_eq!(repetition["status"], "ok", "{op}: {}", repetition["error"]);
        assert_eq!(repetition["tree"]["items"], 120, "{op}");
        let network = &repetition["client_network"];
        assert!(network.get("pdus_not_counted").is_none(), "{network}");
        network["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert!(r["mean_round_trip_ns"].as_f64().unwrap() > 0.0, "{r}");
                (
                    r["name"].as_str().unwrap().to_string(),
                    r["count"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    // 3 directories × 20 items × 2 jobs = 120 items per phase.
    let create = requests("create");
    assert_eq!(create["CREATE"], 120, "{create:?}");
    assert_eq!(create["WRITE"], 120, "one WRITE of 3901 bytes: {create:?}");
    assert_eq!(
        create["COMMIT"], 120,
        "one per file, at its close: {create:?}"
    );
    // A stat is one LOOKUP by the directory's handle (its attributes come
    // with it); each job also looks up each directory it enters, once.
    let stat = requests("stat");
    assert!(!stat.contains_key("GETATTR"), "{stat:?}");
    assert!((120..=140).contains(&stat["LOOKUP"]), "{stat:?}");
    assert!(!stat.contains_key("CREATE"), "{stat:?}");
    assert_eq!(requests("rename")["RENAME"], 120);
    assert_eq!(requests("delete")["REMOVE"], 120);
    assert_eq!(requests("mkdir")["MKDIR"], 120);
    let dirstat = requests("dirstat");
    assert!((120..=140).contains(&dirstat["LOOKUP"]), "{dirstat:?}");
    assert!(!dirstat.contains_key("MKDIR"), "{dirstat:?}");
    assert_eq!(requests("rmdir")["RMDIR"], 120);
    let left: Vec<_> = std::fs::read_dir(&lab.export).unwrap().collect();
    assert!(left.is_empty(), "the export holds {left:?}");
    // The study's metadata half as a preset, on the export: its table
    // gives each operation's requests by procedure.
    let preset = out.path().join("meta.json");
    let output = iolab_inside(
        &lab,
        &[
            "preset",
            "run",
            "netfs-meta",
            "--scale",
            "test",
            "--target",
            &lab.nfs,
            "--no-report",
            "--output",
            preset.to_str().unwrap(),
        ],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("the metadata half"), "{stdout}");
    let meta = crate::util::read_result(&preset);
    let create = meta["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["workload"]["op"] == "create")
        .unwrap();
    let creates = create["repetitions"][0]["client_network"]["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "CREATE")
        .unwrap()["count"]
        .clone();
    assert_eq!(creates, 20, "one CREATE per create");
    // An iSCSI LUN has no files: refused in one line, before logging in.
    let lun = "iscsi://127.0.0.1:3260/iqn.2026-11.org.iolab:netlab/1";
    let refused = iolab_inside(
        &lab,
        &["run", "--target", lun, "--op", "create", "--items", "5"],
    );
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("no files to make a tree of"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
}

/// A metadata run killed mid-create on the export leaves its tree; the
/// next run from this host finds its owner gone and removes it, and says so.
/// The tree of a run killed (SIGKILL) while it creates items on `lab`'s
/// export, from `cwd`, with `extra` arguments.
fn killed_while_creating(
    lab: &NetLab,
    cwd: &std::path::Path,
    extra: &[&str],
) -> std::path::PathBuf {
    let mut args = vec![
        "run", "--target", &lab.nfs, "--op", "create", "--items", "1000000",
    ];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--runtime", "60s"]);
    let mut child = lab.spawn_iolab(cwd, &args);
    let tree = crate::util::wait_for_tree(&lab.export, 20);
    child.kill().unwrap();
    child.wait().unwrap();
    tree
}

#[test]
fn a_tree_killed_on_the_export_is_removed_by_the_next_run() {
    let Some(lab) = NetLab::shared_export("killed-tree") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let cwd = crate::util::scratch();
    let tree = killed_while_creating(&lab, cwd.path(), &[]);
    assert!(tree.exists());
    let next = lab.iolab(
        cwd.path(),
        &["run", "--target", &lab.nfs, "--op", "stat", "--items", "5"],
    );
    assert!(
        next.status.success(),
        "{}",
        String::from_utf8_lossy(&next.stderr)
    );
    let stderr = String::from_utf8_lossy(&next.stderr);
    let name = tree.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        stderr.contains("removed nfs://") && stderr.contains(&name),
        "{stderr}"
    );
    assert!(
        crate::util::entries(&lab.export).is_empty(),
        "{:?}",
        crate::util::entries(&lab.export)
    );
}

#[test]
fn groups_on_an_nfs_export_count_each_groups_rpcs_and_leave_nothing() {
    let Some(lab) = NetLab::shared_export("groups") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let out = crate::util::scratch();
    let path = out.path().join("groups.json");
    let output = iolab_inside(
        &lab,
        &[
            "run",
            "--target",
            &lab.nfs,
            "--size",
            "2m",
            "--runtime",
            "1s",
            "--output",
            path.to_str().unwrap(),
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
            "--bs",
            "64k",
            "--fsync-end",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = crate::util::read_result(&path);
    crate::util::check_consistency(&result);
    let point = crate::util::first_point(&result);
    // Each group's connection carried its own procedure, one RPC per I/O.
    for (name, procedure) in [("reader", "READ"), ("logger", "WRITE")] {
        let group = point["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["label"] == name)
            .unwrap();
        let repetition = &group["repetitions"][0];
        let requests = repetition["client_network"]["requests"].as_array().unwrap();
        let count = requests
            .iter()
            .find(|r| r["name"] == procedure)
            .and_then(|r| r["count"].as_u64());
        assert_eq!(count, repetition["ops"].as_u64(), "{name}: {requests:?}");
    }
    let left: Vec<_> = std::fs::read_dir(&lab.export).unwrap().collect();
    assert!(
        left.is_empty(),
        "iolab removed every group's files: {left:?}"
    );
}

/// A victim directory on the export beside iolab's: `f.0.0 … f.0.99`, the
/// names iolab's items have, and a file of its own.
fn plant_victim(export: &std::path::Path) -> std::path::PathBuf {
    let victim = export.join("vic");
    std::fs::create_dir(&victim).unwrap();
    for i in 0..100 {
        std::fs::write(victim.join(format!("f.0.{i}")), format!("precious {i}\n")).unwrap();
    }
    std::fs::write(victim.join("precious.txt"), "mine\n").unwrap();
    victim
}

/// Replaces the tree's directory `shared/t.0` with a symbolic link to the
/// victim, as another client of the export could.
fn link_into_victim(tree: &std::path::Path, export: &std::path::Path) {
    std::fs::rename(tree.join("shared/t.0"), export.join("moved")).unwrap();
    std::os::unix::fs::symlink("../../vic", tree.join("shared/t.0")).unwrap();
}

fn assert_victim_intact(victim: &std::path::Path) {
    let mut names = crate::util::entries(victim);
    names.sort();
    assert_eq!(names.len(), 101, "{names:?}");
    for i in 0..100 {
        assert_eq!(
            std::fs::read_to_string(victim.join(format!("f.0.{i}"))).unwrap(),
            format!("precious {i}\n")
        );
    }
}

/// A link planted in a tree on the export (issue "Nothing lost, nothing
/// harmed, round 4", item 1): mid-phase, every item goes by its
/// directory's handle and a job entering the link refuses it, and the tree
/// is removed without following it (on path calls the victim's `f.0.*`
/// were deleted through the link); in a killed run's tree,
/// the next run's cleanup removes the link and the tree, and the victim
/// keeps every file.
#[test]
fn a_link_planted_in_a_tree_on_the_export_is_removed_never_followed() {
    let Some(lab) = NetLab::shared_export("planted-link") else {
        return;
    };
    if let Err(reason) = iolab::engine::nfs::libnfs::available() {
        crate::skip!("{reason}");
        return;
    }
    let cwd = crate::util::scratch();
    let victim = plant_victim(&lab.export);
    // The reproduction, made harder: once the delete phase is
    // measuring, a link replaces one of the tree's directories. A job
    // inside it goes on by the directory's handle (its deletes land in the
    // moved directory); a job that enters it after refuses the link; the
    // tree is then removed without following it.
    let mut child = lab.spawn_iolab(
        cwd.path(),
        &[
            // Each phase named as it starts: the test waits for the delete.
            "-v",
            "run",
            "--target",
            &lab.nfs,
            "--ops",
            "create,stat,delete",
            "--items",
            "4000",
            "--depth",
            "1",
            "--fanout",
            "2",
        ],
    );
    let mut stderr_pipe = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut stderr = String::new();
    loop {
        let mut line = String::new();
        let read = std::io::BufRead::read_line(&mut stderr_pipe, &mut line).unwrap();
        assert!(read > 0, "iolab ended before the stat phase: {stderr}");
        stderr.push_str(&line);
        if line.contains("measuring delete") {
            break;
        }
    }
    let tree = crate::util::wait_for_tree(&lab.export, 20);
    link_into_victim(&tree, &lab.export);
    std::io::Read::read_to_string(&mut stderr_pipe, &mut stderr).unwrap();
    child.wait().unwrap();
    assert_victim_intact(&victim);
    assert!(
        stderr.contains("symbolic link"),
        "the link is named: {stderr}"
    );
    std::fs::remove_dir_all(lab.export.join("moved")).unwrap();
    assert!(!tree.exists(), "{stderr}");

    // A killed run's tree holding such a link: the next run removes the
    // link itself and the rest of the tree.
    let tree = killed_while_creating(&lab, cwd.path(), &["--depth", "1", "--fanout", "2"]);
    link_into_victim(&tree, &lab.export);
    let next = lab.iolab(
        cwd.path(),
        &["run", "--target", &lab.nfs, "--op", "stat", "--items", "5"],
    );
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{stderr}");
    assert_victim_intact(&victim);
    assert!(!tree.exists(), "{stderr}");
    std::fs::remove_dir_all(lab.export.join("moved")).unwrap();
    std::fs::remove_dir_all(&victim).unwrap();
    assert!(crate::util::entries(&lab.export).is_empty());
}
