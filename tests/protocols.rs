//! Every protocol of iolab's registry (`net::PROTOCOLS`) through one body of checks, against one netlab for the whole file: a protocol added to the registry is tested here as soon as netlab serves it (as ripgrep's `rgtest!` runs one body per configuration).
//!
//! What each protocol must do alike: refuse a write it was not allowed,
//! write and read through its own client with every block verified, count
//! the payload it carried in its own requests and TCP's, name the URL of a
//! server that does not answer and the engine a URL needs, and leave
//! nothing behind. What only one protocol does (NFS's RPCs, iSCSI's PDUs,
//! a LUN's signature check) stays in `netlab.rs` and `iscsi.rs`.

use crate::lab::NetLab;
use crate::util::{check_consistency, entries, first_point, read_result, scratch, validate_schema};
use iolab::net::{PROTOCOLS, Protocol};
use iolab::plan::EngineKind;
use serde_json::Value;
use std::path::Path;

/// The URL a client inside `lab`'s namespace reaches `protocol`'s server
/// by. A protocol netlab does not serve fails the test: a new protocol
/// brings its server to `scripts/netlab` and its URL here.
fn served<'a>(lab: &'a NetLab, protocol: &Protocol) -> &'a str {
    match protocol.engine {
        EngineKind::Nfs => &lab.nfs,
        EngineKind::Iscsi => &lab.iscsi,
        other => panic!(
            "netlab serves no {} server: add one to scripts/netlab and its URL to tests/protocols.rs",
            other.name()
        ),
    }
}

/// `url` with its port replaced by 9 (discard: nothing answers there).
fn unanswered(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").expect("a URL");
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = authority.split(':').next().unwrap_or(authority);
    format!("{scheme}://{host}:9/{path}")
}

/// `iolab ARGS` inside the lab from `cwd`: its exit code and stderr.
fn iolab(lab: &NetLab, cwd: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = lab.iolab(cwd, args);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A refusal: exit 2, one line, naming `expected`.
fn assert_refused(name: &str, (code, stderr): (Option<i32>, String), expected: &str) {
    assert_eq!(code, Some(2), "{name}: {stderr}");
    assert_eq!(
        stderr.trim().lines().count(),
        1,
        "{name}: one line: {stderr}"
    );
    assert!(stderr.contains(expected), "{name}: {stderr}");
}

/// The payload bytes of a repetition's requests, and TCP's bytes sent (acknowledged) and
/// received on its connections.
fn carried(name: &str, repetition: &Value) -> (u64, u64, u64) {
    let network = &repetition["client_network"];
    assert!(
        network["protocol"].as_str().is_some_and(|p| !p.is_empty()),
        "{name}: the protocol is named: {network}"
    );
    let payload = network["requests"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: requests counted: {network}"))
        .iter()
        .map(|request| request["bytes"].as_u64().unwrap())
        .sum();
    let tcp = &network["tcp"];
    let count = |key: &str| {
        tcp[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{name}: tcp.{key}: {network}"))
    };
    (payload, count("bytes_acked"), count("bytes_received"))
}

/// The checks every protocol passes, on `url` inside `lab`.
fn check_protocol(lab: &NetLab, protocol: &Protocol, url: &str) {
    let name = protocol.engine.name();
    let cwd = scratch();
    const SIZE: u64 = 4 << 20;
    let size = SIZE.to_string();
    let write = [
        "run",
        "--target",
        url,
        "--op",
        "rewrite",
        "--size",
        &size,
        "--bs",
        "64k",
        "--verify",
        "--fsync-end",
        "--json",
        "--output",
        "write.json",
    ];
    // A write where the protocol's data is someone's (a LUN) asks for the
    // URL repeated first and writes nothing; where iolab makes its own
    // files (an export), it needs no consent.
    let (code, stderr) = iolab(lab, cwd.path(), &write);
    let consent = format!("--destroy-data={url}");
    if code != Some(0) {
        assert_refused(name, (code, stderr), &consent);
        assert!(entries(cwd.path()).is_empty(), "{name}: nothing written");
        let mut args = write.to_vec();
        args.push(&consent);
        let (code, stderr) = iolab(lab, cwd.path(), &args);
        assert_eq!(code, Some(0), "{name}: {stderr}");
    }
    // A read of the same bytes: a LUN's as the write left them, an
    // export's from a file laid out first (untimed, outside the counts).
    let read = [
        "run",
        "--target",
        url,
        "--op",
        "read",
        "--size",
        &size,
        "--bs",
        "64k",
        "--json",
        "--output",
        "read.json",
    ];
    let (code, stderr) = iolab(lab, cwd.path(), &read);
    assert_eq!(code, Some(0), "{name}: {stderr}");
    for (file, payload_way) in [("write.json", 1), ("read.json", 2)] {
        let result = read_result(&cwd.path().join(file));
        validate_schema(&result);
        check_consistency(&result);
        let point = first_point(&result);
        assert_eq!(
            point["workload"]["engine"], name,
            "{name}: the URL chose the engine"
        );
        let repetition = &point["repetitions"][0];
        assert_eq!(
            repetition["status"], "ok",
            "{name} {file}: {}",
            repetition["error"]
        );
        assert_eq!(repetition["bytes"], SIZE, "{name} {file}");
        if payload_way == 1 {
            let verify = &repetition["verify"];
            assert_eq!(
                (verify["blocks"].as_u64(), verify["bad_blocks"].as_u64()),
                (Some(64), Some(0)),
                "{name}: every block written checked through the server"
            );
        }
        // The jobs' own requests carried the payload once, and TCP carried
        // at least that much the same way.
        let (payload, sent, received) = carried(name, repetition);
        assert_eq!(payload, SIZE, "{name} {file}: request payload");
        let tcp = if payload_way == 1 { sent } else { received };
        assert!(tcp >= SIZE, "{name} {file}: TCP carried {tcp} bytes");
    }
    // A fio job file of the protocol's own fio engine runs on its target
    // as it is (fio's nfs.fio names it with nfs_url=, its libiscsi.fio
    // with filename=, colons escaped as fio's file lists need).
    let engine = protocol.engine.fio_names()[0];
    let key = protocol
        .engine
        .fio_target_option()
        .expect("a network engine names its fio option");
    let written = match key {
        "filename" => url.replace(':', "\\:"),
        _ => url.to_string(),
    };
    let jobs = scratch();
    let job = jobs.path().join("net.fio");
    // The job file `[read]` section `rest` runs on the target, its result.
    let run_job_file = |rest: &str, output: &str| -> Value {
        std::fs::write(
            &job,
            format!("[global]\nioengine={engine}\n{key}={written}\n[read]\nrw=read\n{rest}"),
        )
        .unwrap();
        let (code, stderr) = iolab(
            lab,
            cwd.path(),
            &["run", job.to_str().unwrap(), "--json", "--output", output],
        );
        assert_eq!(code, Some(0), "{name}: the job file ({rest:?}): {stderr}");
        read_result(&cwd.path().join(output))
    };
    let result = run_job_file(&format!("bs=64k\nsize={SIZE}\n"), "job.json");
    let point = first_point(&result);
    let group = &point["groups"][0];
    assert_eq!(
        group["workload"]["engine"], name,
        "{name}: the job file's engine"
    );
    assert_eq!(
        group["repetitions"][0]["bytes"], SIZE,
        "{name}: the job file's bytes"
    );
    // fio's libiscsi.fio gives no size: the LUN is read whole, its
    // capacity read at a login as fio's engine sizes it (the lab's 16 MiB).
    if protocol.engine == EngineKind::Iscsi {
        let result = run_job_file("bs=1m\n", "whole.json");
        assert_eq!(
            first_point(&result)["groups"][0]["repetitions"][0]["bytes"],
            16u64 << 20,
            "{name}: the whole LUN"
        );
    }
    // A server that does not answer is named by its URL; an engine the URL
    // does not take is named with the one it does.
    let nobody = unanswered(url);
    let refused = iolab(
        lab,
        cwd.path(),
        &["run", "--target", &nobody, "--size", "1m"],
    );
    assert_refused(name, refused, &format!("--target {nobody}"));
    let refused = iolab(
        lab,
        cwd.path(),
        &["run", "--target", url, "--engine", "psync", "--size", "1m"],
    );
    assert_refused(
        name,
        refused,
        &format!("is reached with --engine {name}, not --engine psync"),
    );
    let mut expected = vec!["job", "read", "write"];
    if protocol.engine == EngineKind::Iscsi {
        expected.push("whole");
    }
    let mut expected: Vec<String> = expected
        .iter()
        .flat_map(|run| [format!("{run}.html"), format!("{run}.json")])
        .collect();
    expected.sort();
    assert_eq!(
        entries(cwd.path()),
        expected,
        "{name}: only the results and their reports here"
    );
}

#[test]
fn every_protocol_in_the_registry_passes_the_same_checks() {
    let Some(lab) = NetLab::shared("protocols", "16M") else {
        return;
    };
    let mut checked = Vec::new();
    for protocol in PROTOCOLS {
        let url = served(&lab, protocol);
        if let Err(reason) = protocol.engine.available() {
            crate::skip!("{}: {reason}", protocol.engine.name());
            continue;
        }
        check_protocol(&lab, protocol, url);
        checked.push(protocol.engine.name());
    }
    // Nothing of any run stays on the export.
    assert!(
        entries(&lab.export).is_empty(),
        "{:?}",
        entries(&lab.export)
    );
    assert_eq!(checked.len(), PROTOCOLS.len(), "{checked:?}");
}
