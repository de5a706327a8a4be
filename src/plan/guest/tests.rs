//! `--guest`'s parsing, naming and refusals.

use super::*;

/// Every key is parsed, written back and helped from the one table:
/// a key's default as `describe` writes it parses to the default, and
/// the help and the key list name every key.
#[test]
fn every_key_comes_from_the_table() {
    let defaults = GuestSpec::default();
    let help = help();
    for key in KEYS {
        assert!(
            help.contains(&format!("{}={}", key.name, key.takes)),
            "{}",
            key.name
        );
        assert!(key_names().contains(key.name));
        if let Some(value) = (key.get)(&defaults) {
            let parsed = GuestSpec::parse(&format!("{}={value}", key.name)).unwrap();
            assert_eq!(parsed, defaults, "{}", key.name);
        }
    }
    let error = GuestSpec::parse("speed=9").unwrap_err().to_string();
    assert!(error.contains(&key_names()), "{error}");
}

#[test]
fn keys_parse_over_the_defaults_and_read_back() {
    let spec = GuestSpec::parse(
        "accel=tcg, memory=2g,cpus=1,bus=nvme,cache=writeback,aio=threads,format=qcow2",
    )
    .unwrap();
    assert_eq!(spec.accel, Accelerator::Tcg);
    assert_eq!(spec.memory_mib, 2048);
    assert_eq!(spec.bus, Bus::Nvme);
    assert_eq!(GuestSpec::parse(&spec.describe()).unwrap(), spec);
    assert_eq!(GuestSpec::parse("").unwrap(), GuestSpec::default());
    assert_eq!(GuestSpec::parse("memory=512").unwrap().memory_mib, 512);
}

#[test]
fn a_mount_needs_a_tap_a_reachable_server_and_keys_that_go_with_it() {
    let spec =
        GuestSpec::parse("tap=t0,mount=iscsi://10.0.0.1:3260/iqn.2026-11.org.iolab:x/1").unwrap();
    assert!(matches!(spec.mount(), Some(GuestMount::Iscsi(_))));
    assert_eq!(spec.filesystem(), GuestFilesystem::Ext3, "the study's");
    assert!(!spec.has_image());
    assert_eq!(GuestSpec::parse(&spec.describe()).unwrap(), spec);
    let nfs = GuestSpec::parse("tap=t0,mount=nfs://10.0.0.1/export,nfs=sync").unwrap();
    assert_eq!(nfs.nfs, Some(NfsMountMode::Sync));
    assert_eq!(
        GuestSpec::parse("lvm=on").unwrap().filesystem(),
        GuestFilesystem::Ext4
    );
    for (text, named) in [
        ("mount=nfs://10.0.0.1/export", "add tap=NAME"),
        (
            "tap=t0,mount=nfs://127.0.0.1/export",
            "127.0.0.1 is the guest itself",
        ),
        (
            "tap=t0,mount=nfs://localhost/export",
            "localhost is the guest itself",
        ),
        (
            "tap=t0,mount=smb://10.0.0.1/x",
            "--guest mount=smb://10.0.0.1/x",
        ),
        ("tap=t0,mount=nfs://", "--guest mount=nfs://"),
        ("nfs=sync", "goes with mount=nfs://"),
        (
            "tap=t0,mount=nfs://10.0.0.1/e,fs=ext3",
            "the server's file system",
        ),
        ("tap=t0,mount=nfs://10.0.0.1/e,lvm=on", "lvm=on"),
        ("tap=a/b", "tap=a/b"),
        ("tap=sixteen-letters0", "tap=sixteen-letters0"),
        ("fs=xfs", "fs=xfs"),
        ("delay=0", "delay=0"),
        ("delay=1.5ms", "delay=1.5ms"),
        ("delay=5,lvm=on", "delay=5ms"),
        ("lvm=maybe", "lvm=maybe"),
        (
            "raw=on,tap=t0,mount=nfs://10.0.0.1/e",
            "not on mount=nfs://10.0.0.1/e",
        ),
        ("raw=on,fs=ext3", "a raw disk has no file system"),
        ("raw=sometimes", "raw=sometimes"),
    ] {
        let error = GuestSpec::parse(text).unwrap_err().to_string();
        assert!(error.contains(named), "{text}: {error}");
    }
}

#[test]
fn bad_keys_and_values_are_named() {
    for (text, named) in [
        ("accel=xen", "accel=xen"),
        ("speed=1", "speed=1"),
        ("cpus=0", "cpus=0"),
        ("memory=1k", "memory=1k"),
        ("bus", "--guest bus"),
        ("cache=writeback", "aio=native"),
    ] {
        let error = GuestSpec::parse(text).unwrap_err().to_string();
        assert!(error.contains(named), "{text}: {error}");
    }
}

/// Several `--guest`s are named by what they measure, told apart where
/// two would read alike, and a name given twice is refused.
#[test]
fn several_guests_are_named_and_told_apart() {
    let nfs = "tap=t0,mount=nfs://10.0.0.1/export";
    let texts = [
        nfs.to_string(),
        format!("{nfs},nfs=sync"),
        "tap=t0,mount=iscsi://10.0.0.1:3260/iqn.2026-11.org.iolab:x/1".to_string(),
        String::new(),
        "cache=writeback,aio=threads".to_string(),
        "lvm=on,name=layers".to_string(),
    ];
    let names: Vec<String> = GuestSpec::parse_all(&texts)
        .unwrap()
        .iter()
        .map(|spec| spec.name.clone().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "nfs-async",
            "nfs-sync",
            "iscsi-ext3",
            "guest4",
            "guest5",
            "layers"
        ]
    );
    // One guest keeps no name: its result is written as before.
    assert_eq!(
        GuestSpec::parse_all(&[String::new()]).unwrap()[0].name,
        None
    );
    let twice = ["name=a".to_string(), "name=a".to_string()];
    let error = GuestSpec::parse_all(&twice).unwrap_err().to_string();
    assert!(error.contains("name=a is given to two"), "{error}");
    let many = vec![String::new(); MAX_GUESTS as usize + 1];
    assert!(GuestSpec::parse_all(&many).is_err());
    assert!(GuestSpec::parse("name=Bad Name").is_err());
}
