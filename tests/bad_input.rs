//! Bad input: a one-line error naming the offending value, exit status 2, nothing created.

use crate::mounts::TmpfsMount;
use crate::util::*;

/// (arguments after `run --dir DIR`, text the error must contain)
const BAD_RUN_INPUTS: &[(&[&str], &str)] = &[
    (&["--op", "delete"], "delete"),
    (&["--engine", "aio"], "aio"),
    (&["--bs", "0"], "'0'"),
    (&["--size", "-4k"], "-4k"),
    (&["--size", "0k"], "0k"),
    (&["--bs", "4q"], "4q"),
    (
        &["--bs", "8k", "--size", "4k"],
        "--bs 8KiB is larger than --size 4KiB",
    ),
    (
        &["--bs", "8k", "--size", "12k"],
        "12288 is not a multiple of --bs 8192",
    ),
    (&["--iodepth", "4"], "--iodepth 4"),
    (&["--iodepth", "4", "--engine", "mmap"], "engine mmap"),
    (&["--batch", "2"], "--batch 2"),
    (
        &["--batch", "8", "--engine", "uring", "--iodepth", "4"],
        "--batch 8 must be between 1 and --iodepth 4",
    ),
    (&["--batch", "0", "--engine", "uring"], "--batch 0"),
    (&["--runtime", "abc"], "abc"),
    (&["--runtime", "0s"], "0s"),
    (&["--runtime", "10x"], "10x"),
    (&["--ramp", "-1s"], "-1s"),
    (&["--interval", "0ms"], "0ms"),
    (&["--pattern", "stride:0"], "stride:0"),
    (&["--pattern", "sideways"], "sideways"),
    (&["--direct", "--engine", "mmap"], "engine mmap"),
    (&["--direct", "--engine", "stdio"], "engine stdio"),
    (&["--op", "read", "--fsync-every", "4"], "op read"),
    (&["--fsync-every", "0"], "'0'"),
    (&["--sync", "always"], "always"),
    (&["--repeat", "0"], "--repeat 0"),
    (&["--jobs", "0"], "--jobs 0"),
    (&["--cache", "hot"], "hot"),
    (&["--label", " "], "--label"),
    (&["--no-such-flag"], "--no-such-flag"),
    (&["--shared-file"], "--mpi"),
    (&["--reorder"], "--mpi"),
    (&["--mpi", "--file", "x"], "--file"),
    // Refused by the feature build (each rank would stop on its own) and by
    // the default build (no MPI): either way before anything is created.
    (
        &["--mpi", "--steady", "bw:slope<1%/10s", "--runtime", "1m"],
        "--mpi",
    ),
];

/// Runs iolab with `args` and asserts a one-line refusal naming `expected`,
/// exit status 2, nothing on stdout, and `dir` exactly as it was.
fn assert_refused(args: &[&str], expected: &str, dir: &std::path::Path) {
    let before = entries(dir);
    let assert = iolab().args(args).assert();
    let output = assert.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{args:?} must exit 2; stderr: {stderr}"
    );
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "{args:?}: one line, got:\n{stderr}"
    );
    assert!(
        stderr.contains(expected),
        "{args:?}: the error must name {expected:?}: {stderr}"
    );
    assert!(output.stdout.is_empty(), "{args:?}: nothing on stdout");
    assert_eq!(
        entries(dir),
        before,
        "{args:?}: nothing created in {}",
        dir.display()
    );
}

#[test]
fn bad_run_arguments_are_refused() {
    let dir = scratch();
    let dir_arg = dir.path().to_str().unwrap().to_string();
    for (extra, expected) in BAD_RUN_INPUTS {
        let mut args = vec!["run", "--dir", &dir_arg, "--size", "64k"];
        args.extend_from_slice(extra);
        assert_refused(&args, expected, dir.path());
    }
}

#[test]
fn bad_directories_are_refused() {
    let dir = scratch();
    let missing = dir.path().join("missing");
    assert_refused(
        &["run", "--dir", missing.to_str().unwrap()],
        "does not exist",
        dir.path(),
    );
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let assert = iolab()
        .args(["run", "--dir", file.to_str().unwrap()])
        .assert();
    assert_eq!(assert.get_output().status.code(), Some(2));
    assert!(String::from_utf8_lossy(&assert.get_output().stderr).contains("not a directory"));
    assert_eq!(
        entries(dir.path()),
        vec!["a-file".to_string()],
        "nothing created beside it"
    );
}

#[test]
fn bad_file_arguments_are_refused() {
    let dir = scratch();
    let file = dir.path().join("data");
    std::fs::write(&file, vec![1u8; 8192]).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    let path = file.to_str().unwrap();
    let missing = dir.path().join("missing");
    let cases: &[(&[&str], &str)] = &[
        (
            &["--file", path, "--op", "write"],
            "--op write creates a new file",
        ),
        (&["--file", path, "--op", "rewrite"], "not created by iolab"),
        (
            &["--file", path, "--size", "16k"],
            "--size 16384 is larger than --file",
        ),
        (&["--file", path, "--jobs", "2"], "--jobs 2"),
        (&["--file", path, "--dir", "."], "--dir"),
        (
            &["--file", dir.path().to_str().unwrap()],
            "not a regular file",
        ),
        (&["--file", link.to_str().unwrap()], "symbolic link"),
        (&["--file", missing.to_str().unwrap()], "does not exist"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["run"];
        args.extend_from_slice(extra);
        assert_refused(&args, expected, dir.path());
    }
    assert_eq!(std::fs::read(&file).unwrap(), vec![1u8; 8192]);
}

#[test]
fn an_existing_output_file_is_never_overwritten() {
    let dir = scratch();
    let out = scratch();
    let existing = out.path().join("keep.json");
    std::fs::write(&existing, b"precious").unwrap();
    let assert = iolab()
        .args([
            "run",
            "--dir",
            dir.path().to_str().unwrap(),
            "--size",
            "64k",
            "--output",
        ])
        .arg(&existing)
        .assert();
    assert_eq!(assert.get_output().status.code(), Some(2));
    assert!(String::from_utf8_lossy(&assert.get_output().stderr).contains("already exists"));
    assert_eq!(std::fs::read(&existing).unwrap(), b"precious");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn an_unalignable_direct_block_size_is_refused_before_writing() {
    let dir = scratch();
    if !direct_io_works(dir.path()) {
        return;
    }
    let dir_arg = dir.path().to_str().unwrap();
    let unaligned = [
        "run", "--dir", dir_arg, "--direct", "--bs", "100", "--size", "1000",
    ];
    assert_refused(
        &unaligned,
        "not a multiple of the O_DIRECT alignment",
        dir.path(),
    );
    // --keep must not keep the file of a refused run.
    let kept = [&unaligned[..], &["--keep"]].concat();
    assert_refused(
        &kept,
        "not a multiple of the O_DIRECT alignment",
        dir.path(),
    );
}

#[test]
fn a_read_only_directory_is_refused() {
    // Root ignores permission bits, so the file system itself is made read-only.
    let dir = scratch();
    let Some(mount) = TmpfsMount::new(dir.path(), "ro", "ro,size=1m") else {
        return;
    };
    let assert = iolab()
        .args(["run", "--size", "64k", "--dir"])
        .arg(mount.path())
        .assert();
    let output = assert.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not writable") && stderr.contains("ro"),
        "{stderr}"
    );
}

#[test]
fn bad_quick_arguments_are_refused() {
    let dir = scratch();
    let dir_arg = dir.path().to_str().unwrap();
    assert_refused(
        &["quick", "--dir", dir_arg, "--size", "100k"],
        "--size 100KiB",
        dir.path(),
    );
    assert_refused(
        &["quick", "--dir", dir_arg, "--runtime", "0s"],
        "0s",
        dir.path(),
    );
    assert_refused(
        &["quick", "--dir", dir_arg, "--size", "1536k"],
        "--size 1536KiB",
        dir.path(),
    );
}

#[test]
fn too_little_free_space_is_refused_with_the_numbers() {
    let dir = scratch();
    let Some(mount) = TmpfsMount::new(dir.path(), "small", "size=32m") else {
        return;
    };
    let assert = iolab()
        .args(["run", "--size", "16m", "--dir"])
        .arg(mount.path())
        .assert();
    let output = assert.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not enough free space")
            && stderr.contains("16MiB")
            && stderr.contains("bytes are free"),
        "{stderr}"
    );
    assert!(entries(mount.path()).is_empty(), "nothing created");
}
