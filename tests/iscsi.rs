//! The iscsi engine against a real target: `scripts/netlab`'s tgtd, in a network namespace of its own.

use crate::lab::NetLab;
use crate::util::{
    MIX_70_30, check_codes, check_mixed_requests, first_point, read_result, scratch,
    validate_schema,
};
use serde_json::{Value, json};
use std::path::Path;

/// A lease named `name` on the shared lab with a LUN of `size`, or `None`
/// (and why) when it cannot run here.
fn lab(name: &str, size: &str) -> Option<NetLab> {
    let lab = NetLab::shared(name, size)?;
    if let Err(reason) = iolab::engine::iscsi::libiscsi::available() {
        crate::skip!("{reason}");
        return None;
    }
    Some(lab)
}

/// `iolab ARGS --json --output NAME` inside the lab, expected to succeed;
/// its result, checked against the schema and its own arithmetic.
fn measured(lab: &NetLab, cwd: &Path, name: &str, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--json", "--output", name]);
    let output = lab.iolab(cwd, &all);
    assert!(
        output.status.success(),
        "{all:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = read_result(&cwd.join(name));
    validate_schema(&result);
    crate::util::check_consistency(&result);
    result
}

/// The PDUs of one direction, as (name, count, bytes).
fn pdus(network: &Value, direction: &str) -> Vec<(String, u64, u64)> {
    network["pdus"]
        .as_array()
        .unwrap_or_else(|| panic!("PDUs counted: {network}"))
        .iter()
        .filter(|pdu| pdu["direction"] == direction)
        .map(|pdu| {
            (
                pdu["name"].as_str().unwrap().to_string(),
                pdu["count"].as_u64().unwrap(),
                pdu["bytes"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_iscsi_engine_writes_and_reads_a_lun_with_every_command_and_pdu_counted() {
    let Some(lab) = lab("engine", "64M") else {
        return;
    };
    let cwd = scratch();
    let lun = lab.iscsi.as_str();
    let consent = format!("--destroy-data={lun}");
    // Random writes queued 8 deep, sealed, made durable inside the timed
    // region, and every block checked through the target afterwards.
    let written = measured(
        &lab,
        cwd.path(),
        "write.json",
        &[
            "run",
            "--target",
            lun,
            &consent,
            "--op",
            "write",
            "--pattern",
            "random",
            "--bs",
            "4k",
            "--size",
            "8m",
            "--iodepth",
            "8",
            "--verify",
            "--fsync-end",
        ],
    );
    let point = first_point(&written);
    assert_eq!(
        point["workload"]["engine"], "iscsi",
        "the URL chose the engine"
    );
    assert_eq!(point["target"]["filesystem"], "iSCSI LUN (libiscsi)");
    let repetition = &point["repetitions"][0];
    assert_eq!(repetition["status"], "ok");
    assert_eq!(
        (
            repetition["verify"]["blocks"].as_u64(),
            repetition["verify"]["bad_blocks"].as_u64()
        ),
        (Some(2048), Some(0))
    );
    let network = &repetition["client_network"];
    assert_eq!(network["protocol"], "iSCSI");
    assert_eq!(
        network["requests"],
        json!([
            {"name": "WRITE(16)", "count": 2048, "bytes": 8 << 20},
            {"name": "SYNCHRONIZE CACHE(16)", "count": 1, "bytes": 0},
        ])
    );
    // One SCSI Command PDU per command, and one status per command back
    // (in a SCSI Response: writes move no Data-In).
    let sent = pdus(network, "sent");
    let received = pdus(network, "received");
    let command = sent
        .iter()
        .find(|p| p.0 == "SCSI Command")
        .expect("commands");
    assert_eq!(command.1, 2049, "{sent:?}");
    let responses = received
        .iter()
        .find(|p| p.0 == "SCSI Response")
        .expect("responses");
    assert_eq!(responses.1, 2049, "{received:?}");
    // Every byte the PDUs carried is a byte TCP carried, and the data is
    // there once: 48-byte headers plus 8 MiB, whether it went as immediate
    // data or as Data-Out after an R2T.
    let sent_bytes: u64 = sent.iter().map(|p| p.2).sum();
    let sent_pdus: u64 = sent.iter().map(|p| p.1).sum();
    assert_eq!(sent_bytes, (8 << 20) + 48 * sent_pdus, "{sent:?}");
    let tcp = &network["tcp"];
    assert_eq!(tcp["bytes_acked"].as_u64(), Some(sent_bytes), "{tcp}");
    let received_bytes: u64 = received.iter().map(|p| p.2).sum();
    assert_eq!(
        tcp["bytes_received"].as_u64(),
        Some(received_bytes),
        "{tcp}"
    );
    // The blocks are on the target's disk, each sealed for its own offset.
    let image = std::fs::read(&lab.lun).unwrap();
    for (index, block) in image[..8 << 20].chunks(4096).enumerate() {
        iolab::run::io::verify::check_block(block, index as u64 * 4096)
            .unwrap_or_else(|e| panic!("block {index}: {e:?}"));
    }
    // Reading it back with consent lays nothing out over what was written:
    // a read that verifies reads the region as it is.
    let consented = measured(
        &lab,
        cwd.path(),
        "reread.json",
        &[
            "run", "--target", lun, &consent, "--op", "read", "--bs", "4k", "--size", "8m",
            "--verify",
        ],
    );
    assert_eq!(
        first_point(&consented)["repetitions"][0]["verify"]["bad_blocks"],
        0
    );
    // Nor does it need consent: the LUN is only read, every block
    // checked, READ(16) after READ(16) queued 16 deep.
    let read = measured(
        &lab,
        cwd.path(),
        "read.json",
        &[
            "run",
            "--target",
            lun,
            "--op",
            "read",
            "--pattern",
            "random",
            "--bs",
            "4k",
            "--size",
            "8m",
            "--iodepth",
            "16",
            "--verify",
        ],
    );
    let repetition = &first_point(&read)["repetitions"][0];
    assert_eq!(repetition["verify"]["bad_blocks"], 0);
    let network = &repetition["client_network"];
    assert_eq!(
        network["requests"],
        json!([{"name": "READ(16)", "count": 2048, "bytes": 8 << 20}])
    );
    let data_in: u64 = pdus(network, "received")
        .iter()
        .filter(|p| p.0 == "SCSI Data-In")
        .map(|p| p.1)
        .sum();
    assert!(data_in >= 2048, "at least one Data-In per READ: {network}");
    // Per interval, the connection's own counters, which add up to the
    // repetition's (there is no ramp to leave out).
    for field in ["segs_out", "segs_in", "bytes_acked", "bytes_received"] {
        let per_interval: u64 = repetition["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|interval| interval["client_tcp"][field].as_u64().expect("client_tcp"))
            .sum();
        assert_eq!(
            Some(per_interval),
            network["tcp"][field].as_u64(),
            "{field}"
        );
    }
    // The target's cache is not iolab's to evict, and the result says so;
    // the initiator's state is not claimed either.
    assert!(repetition.get("cache").is_none(), "{repetition}");
    assert!(check_codes(first_point(&read)).contains(&"cache-uncontrolled".to_string()));
    // A 70/30 mix of random reads and overwrites queued 8 deep: each
    // direction's I/Os are the engine's own READ(16) and WRITE(16), and
    // each block names its writer afterwards.
    let mixed = measured(
        &lab,
        cwd.path(),
        "mix.json",
        &[
            &["run", "--target", lun, &consent][..],
            &MIX_70_30,
            &["--size", "8m", "--iodepth", "8", "--verify"],
        ]
        .concat(),
    );
    let repetition = &first_point(&mixed)["repetitions"][0];
    assert_eq!(repetition["verify"]["bad_blocks"], 0, "{repetition}");
    check_mixed_requests(repetition, 2048, 4096, ["READ(16)", "WRITE(16)"]);
    // FUA on every WRITE(16) is O_SYNC's promise: no writeback warning then.
    let synced = measured(
        &lab,
        cwd.path(),
        "fua.json",
        &[
            "run", "--target", lun, &consent, "--op", "rewrite", "--size", "1m", "--sync", "osync",
        ],
    );
    assert!(!check_codes(first_point(&synced)).contains(&"writeback-pending".to_string()));
    let unsynced = measured(
        &lab,
        cwd.path(),
        "unsynced.json",
        &[
            "run", "--target", lun, &consent, "--op", "rewrite", "--size", "1m",
        ],
    );
    let message = first_point(&unsynced)["checks"].to_string();
    assert!(message.contains("Force Unit Access"), "{message}");
}

#[test]
fn a_lun_is_written_only_with_consent_and_never_over_a_signature() {
    let Some(lab) = lab("consent", "32M") else {
        return;
    };
    let cwd = scratch();
    let lun = lab.iscsi.as_str();
    let write = ["run", "--target", lun, "--op", "rewrite", "--size", "1m"];
    let refused = |extra: &[&str], expected: &str| {
        let mut args = write.to_vec();
        args.extend_from_slice(extra);
        let output = lab.iolab(cwd.path(), &args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    };
    refused(&[], "add --destroy-data=iscsi://127.0.0.1:3260/");
    let almost = lun.replace(":3260", "");
    refused(
        &[&format!("--destroy-data={almost}")],
        "does not repeat the LUN under test",
    );
    // A file system on the LUN: found by libblkid, named, nothing written.
    let mkfs = std::process::Command::new("mkfs.ext4")
        .args(["-q", "-F"])
        .arg(&lab.lun)
        .status();
    if !mkfs.is_ok_and(|s| s.success()) {
        crate::skip!("the signature case: mkfs.ext4 is not installed");
        return;
    }
    let before = std::fs::read(&lab.lun).unwrap();
    refused(
        &[&format!("--destroy-data={lun}")],
        "it holds an ext4 file system (libblkid: signature at byte 1080); nothing was written",
    );
    // A GPT's backup header lives in the LUN's last sector: found too.
    assert_eq!(
        std::fs::read(&lab.lun).unwrap(),
        before,
        "the LUN is as it was"
    );
    assert!(
        crate::util::entries(cwd.path()).is_empty(),
        "nothing created here"
    );
}

#[test]
fn bad_iscsi_targets_are_refused_with_the_url_named() {
    let Some(lab) = lab("bad-iscsi-targets", "16M") else {
        return;
    };
    let cwd = scratch();
    let lun = lab.iscsi.as_str();
    // The lease's LUN is one of several on the shared target; LUN 250 none.
    let (target, number) = lun.rsplit_once('/').unwrap();
    let wrong_iqn = format!("{}/{number}", target.replace("netlab", "nosuch"));
    let wrong_lun = format!("{target}/250");
    let controller = format!("{target}/0");
    let no_lun = target.to_string();
    let wrong_iqn_refused = format!("log in to iqn.2026-11.org.iolab:nosuch LUN {number}");
    for (args, expected) in [
        (vec!["--target", &wrong_iqn], wrong_iqn_refused.as_str()),
        (vec!["--target", &wrong_lun], "LUN 250"),
        // tgtd's LUN 0 is the target's controller, not a disk.
        (
            vec!["--target", &controller],
            "LUN 0 answers READ CAPACITY(16) with a logical block of 655360 bytes: not a disk",
        ),
        (
            vec![
                "--target",
                "iscsi://10.9.9.9/iqn.2026-11.org.iolab:netlab/1",
            ],
            "--target iscsi://10.9.9.9/iqn.2026-11.org.iolab:netlab/1: log in",
        ),
        (vec!["--target", &no_lun], "no target and LUN named"),
        (
            vec!["--target", lun, "--direct"],
            "--direct cannot be honoured by engine iscsi",
        ),
        (
            vec!["--target", lun, "--engine", "mmap"],
            "is reached with --engine iscsi, not --engine mmap",
        ),
        (
            vec!["--engine", "iscsi"],
            "--engine iscsi needs --target iscsi://",
        ),
        (
            vec!["--target", lun, "--size", "32m"],
            "--size 33554432 ends past the end of --target",
        ),
        (
            vec!["--target", lun, "--offset", "16m"],
            "--offset 16777216 with --size 1048576 ends past the end of --target",
        ),
        (
            vec!["--target", lun, "--offset", "1000"],
            "--offset 1000 is not a whole number of the LUN's 512-byte blocks",
        ),
        (
            vec!["--target", lun, "--bs", "1000", "--size", "1000k"],
            "--bs 1000 is not a whole number of the LUN's 512-byte blocks",
        ),
        (
            vec!["--target", &lab.nfs, &format!("--destroy-data={}", lab.nfs)],
            "--destroy-data is for a block device or an iSCSI LUN",
        ),
    ] {
        let mut all = vec!["run", "--op", "read"];
        if !args.contains(&"--size") {
            all.extend(["--size", "1m"]);
        }
        all.extend(args.iter().copied());
        let output = lab.iolab(cwd.path(), &all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            matches!(output.status.code(), Some(1 | 2)),
            "{all:?}: {stderr}"
        );
        assert!(stderr.contains(expected), "{all:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    }
    assert!(
        crate::util::entries(cwd.path()).is_empty(),
        "nothing created here"
    );
}

#[test]
fn table_4_runs_on_nfs_and_iscsi_and_compare_sets_them_side_by_side() {
    let Some(lab) = lab("table-4", "64M") else {
        return;
    };
    let cwd = scratch();
    let lun = lab.iscsi.as_str();
    for (target, output, consent) in [
        (lab.nfs.as_str(), "nfs.json", None),
        (lun, "iscsi.json", Some(format!("--destroy-data={lun}"))),
    ] {
        let mut args = vec![
            "preset",
            "run",
            "netfs-micro",
            "--scale",
            "test",
            "--target",
            target,
            "--output",
            output,
            "--no-report",
        ];
        args.extend(consent.as_deref());
        let run = lab.iolab(cwd.path(), &args);
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(
            stdout.contains("Radkov et al., FAST 2004, Table 4"),
            "{stdout}"
        );
        let result = read_result(&cwd.path().join(output));
        validate_schema(&result);
        for point in result["points"].as_array().unwrap() {
            // One request per 4 KiB block, as the study's clients sent them
            // (here without a page cache to gather them).
            let blocks = point["workload"]["size"].as_u64().unwrap() / 4096;
            let requests: u64 = point["repetitions"][0]["client_network"]["requests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["count"].as_u64().unwrap())
                .sum();
            assert_eq!(requests, blocks, "{output}: {}", point["label"]);
        }
    }
    // The study's comparison: NFS against iSCSI, point by point, whatever
    // the engine that reached each.
    let compared = crate::util::succeed(crate::util::iolab().current_dir(cwd.path()).args([
        "compare",
        "nfs.json",
        "iscsi.json",
        "--ignore",
        "engine",
        "--metric",
        "time",
    ]));
    let text = String::from_utf8_lossy(&compared.stdout);
    assert!(text.matches("4KiB").count() >= 4, "{text}");
    // One report of both files: Table 4 with a column group per protocol.
    crate::util::succeed(crate::util::iolab().current_dir(cwd.path()).args([
        "report",
        "nfs.json",
        "iscsi.json",
        "--format",
        "markdown",
        "--output",
        "t4.md",
    ]));
    let markdown = std::fs::read_to_string(cwd.path().join("t4.md")).unwrap();
    let title = markdown
        .lines()
        .find(|line| line.contains("Table 4"))
        .unwrap_or_else(|| panic!("Table 4 in the report: {markdown}"));
    assert!(title.contains("4KiB chunks"), "{title}");
    let header = markdown
        .lines()
        .find(|line| line.contains("completion time (s)"))
        .expect("the table's header");
    assert_eq!(header.matches("completion time (s)").count(), 2, "{header}");
    // Each file's clients' traffic, with the PDUs of the iSCSI one.
    assert!(
        markdown.contains("What the network clients sent and received"),
        "{markdown}"
    );
    assert!(markdown.contains("SCSI Command 256"), "{markdown}");
    assert!(markdown.contains("NFSv3: READ 256"), "{markdown}");
    let left: Vec<_> = std::fs::read_dir(&lab.export).unwrap().collect();
    assert!(left.is_empty(), "nothing left on the export: {left:?}");
}

#[test]
fn with_the_servers_storage_on_this_machine_cold_reads_are_cold_and_counted() {
    let Some(lab) = lab("cold", "32M") else {
        return;
    };
    let cwd = scratch();
    let lun = format!("{}?server_path={}", lab.iscsi, lab.lun.display());
    let nfs = format!("{}&server_path={}", lab.nfs, lab.export.display());
    let consent = format!("--destroy-data={lun}");
    for (name, target, extra) in [
        ("lun.json", lun.as_str(), Some(consent.as_str())),
        ("nfs.json", nfs.as_str(), None),
    ] {
        let mut args = vec![
            "run", "--target", target, "--op", "read", "--size", "8m", "--repeat", "2",
        ];
        args.extend(extra);
        let result = measured(&lab, cwd.path(), name, &args);
        let point = first_point(&result);
        for repetition in point["repetitions"].as_array().unwrap() {
            // The server's cached pages of the data were evicted and counted.
            let cache = &repetition["cache"];
            assert_eq!(cache["treatment"], "cold", "{name}: {repetition}");
            assert_eq!(cache["total_pages"].as_u64(), Some(2048), "{name}: {cache}");
            assert!(
                cache["resident_pages"].as_u64().unwrap() <= 20,
                "{name}: {cache}"
            );
        }
        assert!(
            !check_codes(point).contains(&"cache-uncontrolled".to_string()),
            "{name}"
        );
    }
    // A server_path that is not the server's storage is refused by name.
    let elsewhere = scratch();
    for (target, expected) in [
        (
            format!(
                "{}?server_path={}",
                lab.iscsi,
                cwd.path().join("nfs.json").display()
            ),
            "not the LUN's backing file",
        ),
        (
            format!(
                "{}&server_path={}",
                lab.nfs,
                elsewhere.path().join("none").display()
            ),
            "is not a directory here",
        ),
    ] {
        let output = lab.iolab(
            cwd.path(),
            &["run", "--target", &target, "--op", "read", "--size", "1m"],
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
}

/// Trims of a LUN are UNMAP commands, queued like reads, one per I/O, and
/// only with consent; tgtd punches the ranges out of its backing file,
/// which then reads as zeros there. A LUN without logical block
/// provisioning (LBPME 0) is refused before any I/O.
#[test]
fn trims_of_a_lun_are_unmaps_with_consent_only() {
    let Some(lab) = lab("trims", "32M") else {
        return;
    };
    let cwd = scratch();
    let lun = lab.iscsi.as_str();
    let consent = format!("--destroy-data={lun}");
    let trim = [
        "--op",
        "trim",
        "--pattern",
        "random",
        "--bs",
        "64k",
        "--size",
        "8m",
    ];
    let refused = lab.iolab(cwd.path(), &[&["run", "--target", lun][..], &trim].concat());
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--destroy-data"));

    let args = [
        &["run", "--target", lun, &consent, "--iodepth", "4"][..],
        &trim,
    ]
    .concat();
    let trimmed = measured(&lab, cwd.path(), "trim.json", &args);
    let repetition = &first_point(&trimmed)["repetitions"][0];
    assert_eq!(
        (repetition["ops"].as_u64(), repetition["bytes"].as_u64()),
        (Some(128), Some(8 << 20))
    );
    let network = &repetition["client_network"];
    assert_eq!(
        network["requests"],
        json!([{"name": "UNMAP", "count": 128, "bytes": 0}]),
        "{network}"
    );
    let commands = pdus(network, "sent")
        .into_iter()
        .find(|p| p.0 == "SCSI Command")
        .expect("commands");
    assert_eq!(commands.1, 128, "one command per trim");
    // The region was laid out first (consent), then freed: zeros.
    let image = std::fs::read(&lab.lun).unwrap();
    assert!(
        image[..8 << 20].iter().all(|&b| b == 0),
        "the region reads as zeros"
    );

    // Without logical block provisioning, UNMAP is refused by the LUN:
    // iolab says so before any I/O.
    let number = lab.lun_number().to_string();
    assert!(
        lab.thin_provisioning(&number, false),
        "LUN {number} without UNMAP"
    );
    let refused = lab.iolab(cwd.path(), &args);
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("does not take UNMAP"), "{stderr}");
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
}

/// A file system made on a consented LUN while a sweep writes it stops the
/// sweep before the next point, named, and is not written over: the
/// signature check is made before every point and repetition (issue
/// "Nothing lost, nothing harmed, round 3", item 2).
#[test]
fn a_file_system_made_on_a_consented_lun_during_a_sweep_stops_it() {
    let Some(lab) = lab("mkfs", "64M") else {
        return;
    };
    if !crate::mounts::have("mkfs.ext4") {
        return;
    }
    let lun = lab.iscsi.clone();
    let consent = format!("--destroy-data={lun}");
    let cwd = scratch();
    // Reverse order with a pause after each write: the points write just
    // below 8 MiB, never the superblock at byte 1024.
    let child = lab.spawn_iolab(
        cwd.path(),
        &[
            "sweep",
            "--target",
            &lun,
            &consent,
            "--op",
            "write",
            "--bs",
            "64k,128k,256k",
            "--size",
            "8m",
            "--runtime",
            "2s",
            "--pattern",
            "reverse",
            "--think",
            "500ms",
        ],
    );
    crate::util::wait_for_thread(child.id(), "iolab-job-", std::time::Duration::from_secs(60));
    std::thread::sleep(std::time::Duration::from_secs(1));
    crate::mounts::run(
        "mkfs.ext4",
        &["-F", "-q", "-E", "nodiscard", lab.lun.to_str().unwrap()],
    )
    .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("ext4") && stderr.contains("nothing more was written"),
        "{stderr}"
    );
    let probe = crate::mounts::run(
        "blkid",
        &["-p", "-o", "value", "-s", "TYPE", lab.lun.to_str().unwrap()],
    );
    assert_eq!(probe.as_deref(), Ok("ext4"), "{stderr}");
}

/// `server_path=` must be proven to be the LUN's backing file before iolab
/// evicts or counts its cache: a foreign file of the LUN's size with other
/// data is refused by name, one whose compared blocks are all zeros is left
/// alone (its cached pages stay cached), and a key given twice is refused
/// (issue "Nothing lost, nothing harmed, round 3", item 3).
#[test]
fn a_server_path_that_is_not_the_luns_backing_file_is_never_touched() {
    let Some(lab) = lab("server-path", "16M") else {
        return;
    };
    let cwd = scratch();
    let foreign = cwd.path().join("foreign.bin");
    let data: Vec<u8> = (0..16u32 << 20).map(|i| (i % 251) as u8 | 1).collect();
    std::fs::write(&foreign, &data).unwrap();
    let zeros = cwd.path().join("zeros.bin");
    std::fs::write(&zeros, vec![0u8; 16 << 20]).unwrap();
    let with = |path: &Path| format!("{}?server_path={}", lab.iscsi, path.display());
    let refused = lab.iolab(
        cwd.path(),
        &["run", "--target", &with(&foreign), "--size", "1m"],
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
    assert!(
        stderr.contains("foreign.bin differs from the LUN")
            && stderr.contains("not the LUN's backing file"),
        "{stderr}"
    );
    // Cached before the run; a cold run must not evict a file it cannot prove is the LUN's.
    let cached = || {
        crate::mounts::run("fincore", &["-n", "-o", "PAGES", zeros.to_str().unwrap()])
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    std::fs::read(&zeros).unwrap();
    let before = cached();
    assert!(before > 0);
    let output = lab.iolab(
        cwd.path(),
        &[
            "run",
            "--target",
            &with(&zeros),
            "--size",
            "1m",
            "--cache",
            "cold",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("cannot be proven to be the LUN's backing file"),
        "{stderr}"
    );
    assert_eq!(cached(), before, "its cached pages are left: {stderr}");
    let twice = format!("{}&server_path={}", with(&lab.lun), zeros.display());
    let refused = lab.iolab(cwd.path(), &["run", "--target", &twice, "--size", "1m"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("'server_path' is given twice"), "{stderr}");
}

/// Groups share a LUN as partitions share a disk (issue "One shape of
/// point"): a reader of two jobs over the first 8 MiB and a writer over
/// the next 8 MiB (`--offset 8m`), each job on its own login, one point
/// with each group's bytes and the target's commands adding up — and on
/// the LUN, afterwards, the reader's region laid out in zeros, the writer's
/// sectors each stamped with its own offset, and the rest as it was.
#[test]
fn groups_share_a_lun_in_disjoint_regions() {
    let Some(lab) = lab("groups", "32M") else {
        return;
    };
    const MIB: usize = 1 << 20;
    std::fs::write(&lab.lun, vec![0xAB; 32 * MIB]).unwrap();
    let cwd = scratch();
    let lun = lab.iscsi.as_str();
    let consent = format!("--destroy-data={lun}");
    let result = measured(
        &lab,
        cwd.path(),
        "groups.json",
        &[
            "run", "--target", lun, &consent, "--size", "8m", "--bs", "64k", "--repeat", "2",
            "--group", "reader", "--op", "read", "--jobs", "2", "--data", "zeros", "--group",
            "writer", "--op", "rewrite", "--offset", "8m",
        ],
    );
    let point = first_point(&result);
    let groups = point["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{point}");
    assert_eq!(groups[1]["workload"]["offset"], 8 << 20);
    for repetition in point["repetitions"].as_array().unwrap() {
        assert_eq!(repetition["status"], "ok", "{}", repetition["error"]);
        let bytes: Vec<u64> = repetition["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|job| job["bytes"].as_u64().unwrap())
            .collect();
        assert_eq!(bytes, [8 << 20; 3], "each job over its group's 8 MiB");
        let requests = &repetition["client_network"]["requests"];
        assert!(
            requests
                .as_array()
                .unwrap()
                .contains(&json!({"name": "READ(16)", "count": 256, "bytes": 16 << 20}))
                && requests
                    .as_array()
                    .unwrap()
                    .contains(&json!({"name": "WRITE(16)", "count": 128, "bytes": 8 << 20})),
            "{requests}"
        );
    }
    let disk = std::fs::read(&lab.lun).unwrap();
    assert!(
        disk[..8 * MIB].iter().all(|&b| b == 0),
        "the reader's region, laid out in zeros"
    );
    for (index, sector) in disk[8 * MIB..16 * MIB].chunks(512).enumerate() {
        let stamped = u64::from_le_bytes(sector[..8].try_into().unwrap());
        assert_eq!(
            stamped,
            (8 * MIB + index * 512) as u64,
            "the writer's sector {index}"
        );
    }
    assert!(
        disk[16 * MIB..].iter().all(|&b| b == 0xAB),
        "the rest as it was"
    );
}
