//! `scripts/netlab`: the NFSv3 server and iSCSI target the network engines are tested against, in a namespace of their own.

use crate::mounts::NetLab;

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
