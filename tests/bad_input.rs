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
    // Control characters in values are shown escaped, not dropped or raw.
    (
        &["--steady", "bw:slope<1%\u{1b}/10s"],
        "'bw:slope<1%\\u{1b}/10s'",
    ),
    (&["--until-ci", "2\u{7}%"], "'2\\u{7}%'"),
    (&["--runtime", "0s"], "0s"),
    (&["--runtime", "10x"], "10x"),
    (&["--ramp", "-1s"], "-1s"),
    (&["--interval", "0ms"], "0ms"),
    (&["--interval", "1ns"], "'1ns' is below the 1ms floor"),
    (&["--interval", "10ns"], "'10ns' is below the 1ms floor"),
    (&["--interval", "999us"], "'999us' is below the 1ms floor"),
    (&["--pattern", "stride:0"], "stride:0"),
    (&["--pattern", "sideways"], "sideways"),
    (&["--pattern", "zipf:0"], "zipf:0"),
    (&["--data", "compressible:0"], "compressible:0"),
    (&["--data", "sparse"], "'sparse'"),
    (
        &["--data", "zeros", "--verify"],
        "--verify with --data zeros",
    ),
    (&["--rate", "0"], "'0'"),
    (&["--rate", "fast/s"], "fast/s"),
    (&["--rate-iops", "0"], "rate-iops"),
    (
        &["--rate", "1m", "--rate-iops", "10"],
        "--rate 1MiB/s and --rate-iops 10 both set the pace",
    ),
    (
        &["--arrivals", "poisson"],
        "--arrivals poisson draws the gaps of a rate",
    ),
    (&["--arrivals", "bursty"], "bursty"),
    (&["--think", "0s"], "'0s'"),
    (&["--think", "1ms:every=0"], "every=0"),
    (&["--think", "1ms:often"], "1ms:often"),
    (&["--pattern", "pareto:1"], "pareto:1"),
    (&["--pattern", "normal:101"], "normal:101"),
    (&["--pattern", "zoned:60/10:30/20"], "zoned:60/10:30/20"),
    (&["--direct", "--engine", "mmap"], "engine mmap"),
    (&["--direct", "--engine", "stdio"], "engine stdio"),
    (
        &["--op", "read", "--fsync-every", "4"],
        "--fsync-every 4 applies to writes; op read",
    ),
    (&["--fsync-every", "-1"], "--fsync-every -1"),
    (&["--jobs", "4294967297"], "--jobs 4294967297"),
    (&["--cpus", "0,1"], "--cpus '0,1': run measures one point"),
    (&["--cpus", "2-1"], "--cpus 2-1"),
    (&["--cpus", "cpu0"], "--cpus cpu0"),
    (
        &["--cpus", "1023"],
        "CPU 1023 is not one this process may run on",
    ),
    (&["--mix", "read=70"], "add up to 70%, not 100%"),
    (&["--mix", "read=70,write=40"], "add up to 110%"),
    (&["--mix", "read=x,write=30"], "'read=x'"),
    (&["--mix", "erase=50,read=50"], "'erase' is not a direction"),
    (
        &["--op", "trim", "--fsync-every", "4"],
        "op trim does not write",
    ),
    (
        &["--mix", "read=90,trim=10", "--engine", "stdio"],
        "engine stdio cannot",
    ),
    (&["--mix", "read=50,read=50"], "gives the read share twice"),
    (&["--mix", "read=100"], "--mix read=100 is one direction"),
    (&["--op", "mix"], "--op mix needs its shares"),
    (
        &["--op", "read", "--mix", "read=70,write=30"],
        "op read is one direction",
    ),
    (
        &["--verify", "--verify-backlog", "4", "--engine", "uring"],
        "--verify-backlog with engine uring",
    ),
    (&["--sync", "always"], "always"),
    (&["--repeat", "0"], "--repeat 0"),
    (&["--jobs", "0"], "--jobs 0"),
    (&["--cache", "hot"], "hot"),
    (&["--label", " "], "--label"),
    (&["--no-such-flag"], "--no-such-flag"),
    (&["--shared-file"], "--mpi"),
    (&["--reorder"], "--mpi"),
    // Refused before the create phase, not after it (issue "Nothing lost,
    // nothing harmed, round 4", items 6 and 8).
    (
        &[
            "--ops",
            "create,stat",
            "--items",
            "200",
            "--stride",
            "2",
            "--jobs",
            "2",
        ],
        "--stride 2 with 2 jobs",
    ),
    (
        &["--machine", "host", "--guest", "accel=tcg"],
        "--machine names none",
    ),
    (
        &["--guest", "memory=1024,memory=2048"],
        "--guest memory= is given twice",
    ),
    (&["--guest", "kernel="], "--guest kernel=: give `debian`"),
    (&["--guest", "accel=tc\ng"], "accel=tc\\ng"),
    (
        &["--guest", "name=host"],
        "--guest name=host: `host` is a word of the machine axis",
    ),
    (
        &["--order", "abba"],
        "the rounds alternate the machine axis (--order abba, its axis machine by default)",
    ),
    (&["--group", "a", "--set", "a.bs=4\nk"], "4\\nk"),
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
        crate::util::message_lines(&stderr),
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
    let assert = Cli::new(["run"]).path("--dir", &file).command().assert();
    assert_eq!(assert.get_output().status.code(), Some(2));
    assert!(String::from_utf8_lossy(&assert.get_output().stderr).contains("not a directory"));
    assert_eq!(
        entries(dir.path()),
        vec!["a-file".to_string()],
        "nothing created beside it"
    );
    // The kernel's trees (a device job file's --show-plan names dir /dev,
    // memory-backed): refused, and nothing of iolab's made there (other
    // tests make loop devices and processes meanwhile, so only iolab's
    // names are counted).
    let ours = |system: &str| {
        entries(std::path::Path::new(system))
            .into_iter()
            .filter(|name| name.starts_with("iolab"))
            .count()
    };
    for system in ["/dev", "/proc", "/sys/kernel"] {
        let before = ours(system);
        let assert = iolab()
            .args(["run", "--dir", system, "--size", "64k", "--op", "write"])
            .assert();
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert_eq!(
            assert.get_output().status.code(),
            Some(2),
            "{system}: {stderr}"
        );
        assert!(
            stderr.contains("the kernel's own tree"),
            "{system}: {stderr}"
        );
        assert_eq!(ours(system), before, "nothing of iolab's made in {system}");
    }
    // Also with a result path given, nothing written there either.
    let result = dir.path().join("r.json");
    assert_refused(
        &[
            "run",
            "--dir",
            "/dev",
            "--op",
            "write",
            "-o",
            result.to_str().unwrap(),
        ],
        "--dir /dev is in /dev",
        dir.path(),
    );
    // A dry run plans what the run would refuse: it refuses it too (a
    // study file from a device job file's --show-plan names dir /dev).
    let study = dir.path().join("dev.toml");
    std::fs::write(
        &study,
        "name = \"dev\"\ndir = \"/dev\"\n[[sweep]]\nlabel = \"r\"\nop = \"read\"\nsize = \"64KiB\"\n",
    )
    .unwrap();
    assert_refused(
        &["study", study.to_str().unwrap(), "--dry-run"],
        "--dir /dev is in /dev",
        dir.path(),
    );
    assert_refused(
        &["sweep", "--dir", "/proc", "--bs", "4k,8k", "--dry-run"],
        "--dir /proc is in /proc",
        dir.path(),
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
            "--size 16384 ends past the end of --file",
        ),
        (
            &["--file", path, "--jobs", "2", "--op", "read", "--verify"],
            "2 jobs over it would overwrite each other's sealed blocks",
        ),
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

/// The refusal of a file iolab did not make gives advice that works: the
/// command it names keeps a file iolab may then rewrite through --file (it
/// said "create one with --op write --keep", which refuses a new path).
#[test]
fn the_advice_for_a_foreign_file_works_as_given() {
    let dir = scratch();
    let file = dir.path().join("data");
    std::fs::write(&file, vec![1u8; 1 << 20]).unwrap();
    let refused = iolab()
        .args(["run", "--op", "rewrite", "--file"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    let advice = stderr
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("no command in: {stderr}"))
        .replace("SIZE", "1m");
    let words: Vec<&str> = advice.split_whitespace().skip(1).collect();
    let kept = iolab().args(&words).output().unwrap();
    let said = String::from_utf8_lossy(&kept.stderr);
    assert!(kept.status.success(), "{advice}: {said}");
    let kept_file = said
        .lines()
        .find_map(|l| l.strip_prefix("iolab: kept "))
        .unwrap_or_else(|| panic!("{said}"))
        .trim()
        .to_string();
    let rewrite = iolab()
        .args([
            "run", "--op", "rewrite", "--size", "1m", "--file", &kept_file,
        ])
        .output()
        .unwrap();
    assert!(
        rewrite.status.success(),
        "{}",
        String::from_utf8_lossy(&rewrite.stderr)
    );
    assert_eq!(std::fs::read(&file).unwrap(), vec![1u8; 1 << 20]);
}

#[test]
fn an_existing_output_file_is_never_overwritten() {
    let dir = scratch();
    let out = scratch();
    let existing = out.path().join("keep.json");
    std::fs::write(&existing, b"precious").unwrap();
    let assert = Cli::new(["run", "--size", "64k"])
        .path("--dir", dir.path())
        .path("--output", &existing)
        .command()
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
        "run", "--dir", dir_arg, "--direct", "--bs", "1000", "--size", "10000",
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
fn an_output_without_room_for_the_result_is_refused_before_measuring() {
    let dir = scratch();
    let out = scratch();
    let Some(mount) = TmpfsMount::new(out.path(), "tiny", "size=64k") else {
        return;
    };
    let result = mount.path().join("r.json");
    let args = [
        "run",
        "--dir",
        dir.path().to_str().unwrap(),
        "--engine",
        "null",
        "--repeat",
        "20",
        "--output",
        result.to_str().unwrap(),
    ];
    assert_refused(
        &args,
        "free; a result of this plan needs about",
        mount.path(),
    );
    assert!(entries(dir.path()).is_empty());
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
            && stderr.contains(" is free"),
        "{stderr}"
    );
    assert!(entries(mount.path()).is_empty(), "nothing created");
}

/// Bad input to every subcommand: (command line, text the one-line error
/// must contain). `{dir}` is an empty scratch directory, `{fix}` a directory
/// of fixture files (see [`fixtures`]) and the working directory; neither may
/// change.
const BAD_INPUTS: &[(&str, &str)] = &[
    // guest: a host without a link, a guest that is not up
    ("guest up --guest accel=tcg --dir {dir}", "tap=TAP"),
    (
        "guest exec 10.211.0.250 true",
        "no guest is up at 10.211.0.250",
    ),
    ("guest down 10.211.0.250", "no guest is up at 10.211.0.250"),
    // sweep: sizes, ranges, ops, engines, durations, grid size, MPI flags
    ("sweep --dir {dir} --bs 4k,0", "size '0' is zero"),
    ("sweep --dir {dir} --bs 8k..4k", "8k is above 4k"),
    ("sweep --dir {dir} --op write,remove", "'remove'"),
    ("sweep --dir {dir} --op write,delete", "give --items"),
    ("sweep --dir {dir} --engine psync,aio", "'aio'"),
    ("sweep --dir {dir} --runtime 1s,0s", "--runtime 0s"),
    (
        "sweep --dir {dir} --seed 0..200000/+1",
        "more than 100000 values",
    ),
    (
        "sweep --dir {dir} --bs 512..1m --size 64k..1m --seed 0..9999/+1",
        "600000 points, more than 100000",
    ),
    ("sweep --dir {dir} --bs 4k,,8k", "'4k,,8k'"),
    ("sweep --dir {dir} --pattern seq,stride:0", "stride:0"),
    ("sweep --dir {dir} --shared-file", "--mpi"),
    ("sweep --dir {dir} --stonewall", "--mpi"),
    ("run --target nfs://a/b\nc", "--target nfs://a/b\\nc:"),
    (
        "sweep --dir {dir} --knee p99<=2\u{1b}ms",
        "'p99<=2\\u{1b}ms'",
    ),
    (
        "compare {fix}/good.json {fix}/good.json --metric read.p9\u{1b}9",
        "'read.p9\\u{1b}9'",
    ),
    // study files
    ("study {fix}/syntax.toml", "syntax.toml line 5"),
    (
        "study {fix}/bssplit.toml",
        "bssplit.toml line 5: bs (line 4) with bssplit: give one",
    ),
    ("study {fix}/kneeall.toml", "knee_all = true needs a knee"),
    (
        "study {fix}/think.toml",
        "think = 5: give a duration with its unit",
    ),
    (
        "study {fix}/float.toml",
        "float.toml line 4: a parameter takes a string",
    ),
    ("study {fix}/unknown.toml", "`colour`"),
    ("study {fix}/axis.toml", "'12q'"),
    ("study {fix}/nosweeps.toml", "no [[sweep]]"),
    ("study {fix}/dup.toml", "sweep label 'a'"),
    ("study {fix}/interval.toml", "'10ns' is below the 1ms floor"),
    ("study {fix}/nul.toml", "control character '\\0'"),
    ("study {fix}/long.toml", "is 300 bytes long, more than 200"),
    ("study {fix}/escape.toml", "control character '\\u{1b}'"),
    (
        "run --dir {dir} --label a\u{1b}]52;c;x\u{7}",
        "control character '\\u{1b}'",
    ),
    ("measure --label a\u{1b}[2J -- true", "control character"),
    ("study {fix}/missing.toml", "missing.toml: does not exist"),
    ("study {fix}/ok.toml --reorder", "--mpi"),
    // presets
    ("preset show nope", "no preset 'nope'"),
    ("preset run nope", "no preset 'nope'"),
    ("preset run dd-blocksize --scale huge", "'huge'"),
    ("preset run dd-blocksize --stonewall", "--mpi"),
    // compare sets and result files
    ("compare {fix}/good.json", "needs two result files"),
    (
        "compare {fix}/good.json {fix}/torn.json",
        "torn.json is not valid JSON",
    ),
    (
        "compare {fix}/good.json {fix}/notiolab.json",
        "no \"schema\" field",
    ),
    (
        "compare {fix}/good.json {fix}/other.json",
        "schema 'other/9'",
    ),
    ("compare {fix}/good.json --by nosuch", "'nosuch'"),
    ("compare {fix}/missing.json {fix}/good.json", "missing.json"),
    // report
    (
        "report {fix}/torn.json -o {fix}/r.html",
        "a truncated file?",
    ),
    (
        "report {fix}/good.json -o {fix}/good.json",
        "good.json already exists",
    ),
    (
        "report {fix}/good.json -o {fix}/no/r.html",
        "directory {fix}/no does not exist",
    ),
    (
        "report {fix}/good.json --format pdf -o {fix}/r.pdf",
        "'pdf'",
    ),
    // import
    (
        "import {fix}/notiolab.json -o {fix}/i.json",
        "not fio JSON output",
    ),
    (
        "import {fix}/torn.json -o {fix}/i.json",
        "torn.json is not valid JSON",
    ),
    (
        "import {fix}/missing.json -o {fix}/i.json",
        "missing.json: does not exist",
    ),
    (
        "import {fix}/bins.json -o {fix}/i.json",
        "job huge: clat_ns bin 1000 counts 9223372036854775808 I/Os",
    ),
    // env and measure
    ("env --path /no/such", "/no/such: does not exist"),
    ("measure --interval 0s -- true", "'0s'"),
    (
        "measure --interval 100us -- true",
        "'100us' is below the 1ms floor",
    ),
    (
        "sweep --dir {dir} --interval 1ns",
        "'1ns' is below the 1ms floor",
    ),
    ("measure --repeat 0 -- true", "'0'"),
    ("measure --path {fix}", "<COMMAND>"),
    // quick and run: sizes, engines against flags, paths
    ("quick --dir {dir} --size 0", "'0'"),
    ("run --dir {dir} --pattern stride:-1", "stride:-1"),
    ("run --dir {dir} --engine uring --iodepth 0", "--iodepth 0"),
    (
        "run --dir {dir} --engine uring --iodepth 40000",
        "engine uring's queue holds at most 32768 I/Os",
    ),
    ("run --dir {dir} --size 1t", "1TiB"),
    ("run --dir {dir} --seed x", "'x'"),
    ("run --dir {dir}/missing", "{dir}/missing: does not exist"),
    ("run --file {dir}/missing", "{dir}/missing: does not exist"),
    (
        "run --file {fix}/good.json --op rewrite",
        "not created by iolab",
    ),
    (
        "run --dir {dir} --output {fix}/good.json",
        "good.json already exists",
    ),
    ("run --destroy-data /dev/null", "--file"),
    // repetitions: bounded, and named by the flag given
    (
        "run --dir {dir} --engine null --repeat 4294967295",
        "--repeat 4294967295: at most 1000 repetitions",
    ),
    (
        "run --dir {dir} --engine null --until-ci 1% --max-repeat 1000000",
        "--max-repeat 1000000: at most 1000",
    ),
    (
        "run --dir {dir} --engine null --until-ci 1% --min-repeat 0",
        "--min-repeat 0: at least one",
    ),
    (
        "sweep --dir {dir} --engine null --warmup 600 --repeat 600",
        "at most 1000 repetitions of a point in all",
    ),
    // outputs that cannot be written, found before anything is measured
    (
        "run --dir {dir} --output /sys/kernel/r.json",
        "cannot create a file in /sys/kernel",
    ),
    (
        "run --dir {dir} --output /proc/r.json",
        "cannot create a file in /proc",
    ),
    (
        "run --dir {dir} --output {dir}/LONGNAME.json",
        "this file system takes names of at most 255",
    ),
    // a report beside the result would replace someone's file
    (
        "sweep --dir {dir} --engine null --size 64k -o {fix}/notes.json",
        "notes.html exists and is not an iolab report",
    ),
    (
        "quick --dir {dir} -o {fix}/notes.json",
        "notes.html exists and is not an iolab report",
    ),
];

/// Writes the fixture files [`BAD_INPUTS`] refer to into `fix`.
fn fixtures(fix: &std::path::Path, dir: &std::path::Path) {
    let good = fix.join("good.json");
    iolab()
        .args(["run", "--engine", "null", "--size", "64k", "--dir"])
        .arg(dir)
        .arg("-o")
        .arg(&good)
        .assert()
        .success();
    let text = std::fs::read_to_string(&good).unwrap();
    let files: &[(&str, &str)] = &[
        ("torn.json", &text[..text.len() / 2]),
        ("notiolab.json", "{\"a\": 1}\n"),
        ("other.json", "{\"schema\": \"other/9\"}\n"),
        (
            "bssplit.toml",
            "name = \"s\"\n[[sweep]]\nlabel = \"a\"\nbs = \"4k\"\nbssplit = \"4k=50,8k=50\"\n",
        ),
        (
            "kneeall.toml",
            "name = \"s\"\nknee_all = true\n[[sweep]]\nlabel = \"a\"\nbs = \"4k\"\n",
        ),
        (
            "think.toml",
            "name = \"s\"\n[[sweep]]\nlabel = \"a\"\nthink = 5\n",
        ),
        (
            "float.toml",
            "name = \"s\"\n[[sweep]]\nlabel = \"a\"\nbs = 4.5\n",
        ),
        (
            "syntax.toml",
            "name = \"s\"\n[[sweep]]\nlabel = \"a\"\nbs = \"4k\"\nsize = ",
        ),
        (
            "unknown.toml",
            "name = \"s\"\ncolour = \"red\"\n[[sweep]]\nlabel = \"a\"\n",
        ),
        (
            "axis.toml",
            "name = \"s\"\n[[sweep]]\nlabel = \"a\"\nbs = \"4k,12q\"\n",
        ),
        ("nosweeps.toml", "name = \"s\"\n"),
        (
            "bins.json",
            r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "huge", "error": 0,
                "job options": {"rw": "read", "bs": "4k", "size": "1m"},
                "read": {"io_bytes": 4096, "bw_bytes": 4096, "iops": 1.0, "runtime": 1000,
                         "total_ios": 1, "clat_ns": {"bins": {"1000": 9223372036854775808}}}}]}"#,
        ),
        (
            "nul.toml",
            "name = \"a\\u0000b\"\n[[sweep]]\nlabel = \"a\"\n",
        ),
        (
            "long.toml",
            &format!("name = \"{}\"\n[[sweep]]\nlabel = \"a\"\n", "n".repeat(300)),
        ),
        (
            "escape.toml",
            "name = \"s\"\n[[sweep]]\nlabel = \"a\\u001b[2J\"\n",
        ),
        (
            "interval.toml",
            "name = \"s\"\n[defaults]\ninterval = \"10ns\"\n[[sweep]]\nlabel = \"a\"\n",
        ),
        ("notes.html", "<p>my notes</p>\n"),
        (
            "dup.toml",
            "name = \"s\"\n[[sweep]]\nlabel = \"a\"\n[[sweep]]\nlabel = \"a\"\n",
        ),
        (
            "ok.toml",
            "name = \"s\"\n[[sweep]]\nlabel = \"a\"\nsize = \"64k\"\nengine = \"null\"\n",
        ),
    ];
    for (name, content) in files {
        std::fs::write(fix.join(name), content).unwrap();
    }
}

/// Every file of `dir` with its bytes.
fn contents(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    entries(dir)
        .into_iter()
        .map(|name| {
            let content = std::fs::read(dir.join(&name)).unwrap();
            (name, content)
        })
        .collect()
}

#[test]
fn bad_input_to_every_subcommand_is_refused_in_one_line() {
    let dir = scratch();
    let fix = scratch();
    fixtures(fix.path(), dir.path());
    let dir_text = dir.path().to_str().unwrap();
    let fix_text = fix.path().to_str().unwrap();
    let long_name = "n".repeat(240);
    let fill = |text: &str| {
        text.replace("{dir}", dir_text)
            .replace("{fix}", fix_text)
            .replace("LONGNAME", &long_name)
    };
    let subcommands: std::collections::BTreeSet<&str> = BAD_INPUTS
        .iter()
        .map(|(line, _)| line.split(' ').next().unwrap())
        .collect();
    assert!(
        BAD_INPUTS.len() >= 40 && subcommands.len() == 11,
        "{subcommands:?}"
    );
    let fixtures_before = contents(fix.path());
    for (line, expected) in BAD_INPUTS {
        let line = fill(line);
        let args: Vec<&str> = line.split(' ').collect();
        let output = iolab()
            .args(&args)
            .current_dir(fix.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{line}: {stderr}");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{line}: {stderr}");
        assert!(stderr.starts_with("iolab: error: "), "{line}: {stderr}");
        let expected = fill(expected);
        assert!(
            stderr.contains(&expected),
            "{line}: must name {expected:?}: {stderr}"
        );
        assert!(output.stdout.is_empty(), "{line}: nothing on stdout");
        assert!(
            entries(dir.path()).is_empty(),
            "{line}: created something in {dir_text}"
        );
        assert!(
            contents(fix.path()) == fixtures_before,
            "{line}: changed {fix_text}"
        );
    }
}

/// A FIFO where iolab expects a file it reads (a result, a study, fio
/// output, a journal, the report beside a result, `--file`) is refused at
/// once, by type: opening one for reading would wait for a writer forever.
#[test]
fn fifos_are_refused_by_type_and_never_block() {
    let dir = scratch();
    let fifos = scratch();
    for name in ["r.json", "s.html", "x.json.journal", "study.toml"] {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            fifos.path().join(name),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
    }
    let fifo = fifos.path().to_str().unwrap();
    let dir_text = dir.path().to_str().unwrap();
    let lines = [
        format!("sweep --engine null --size 64k --dir {dir_text} -o {fifo}/s.json"),
        format!("sweep --engine null --size 64k --dir {dir_text} -o {fifo}/x.json --resume"),
        format!("compare {fifo}/r.json {fifo}/r.json"),
        format!("report {fifo}/r.json -o {dir_text}/r.html"),
        format!("import {fifo}/r.json"),
        format!("study {fifo}/study.toml"),
        format!("run --file {fifo}/r.json"),
    ];
    for line in &lines {
        let output = iolab()
            .args(line.split(' '))
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{line}: {stderr}");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{line}: {stderr}");
        assert!(stderr.contains("FIFO"), "{line}: {stderr}");
        assert!(entries(dir.path()).is_empty(), "{line}");
    }
}

/// Arguments that are not UTF-8 (a path from an old file system, or typed
/// by mistake): a path reaches the file system byte for byte, text that
/// must be UTF-8 is refused in one line naming the bytes; never a panic.
#[test]
fn arguments_that_are_not_utf8_are_used_as_paths_or_refused_by_name() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch();
    let odd = dir.path().join(std::ffi::OsStr::from_bytes(b"x\xff"));
    // A directory that does not exist: refused as such, not a panic.
    let missing = iolab().arg("run").arg("--dir").arg(&odd).output().unwrap();
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("does not exist"), "{stderr}");
    std::fs::create_dir(&odd).unwrap();
    let result = odd.join(std::ffi::OsStr::from_bytes(b"r\xfe.json"));
    let sweep = odd.join(std::ffi::OsStr::from_bytes(b"s\xfe.json"));
    let report = odd.join(std::ffi::OsStr::from_bytes(b"r\xfe.html"));
    let study = odd.join(std::ffi::OsStr::from_bytes(b"st\xfe.toml"));
    std::fs::write(
        &study,
        "name = \"odd\"\n[[sweep]]\nlabel = \"a\"\nengine = \"null\"\nsize = \"64k\"\n",
    )
    .unwrap();
    let runs: [Vec<&std::ffi::OsStr>; 4] = [
        vec![
            "run".as_ref(),
            "--engine".as_ref(),
            "null".as_ref(),
            "--no-report".as_ref(),
            "--dir".as_ref(),
            odd.as_os_str(),
            "-o".as_ref(),
            result.as_os_str(),
        ],
        vec![
            "sweep".as_ref(),
            "--engine".as_ref(),
            "null".as_ref(),
            "--size".as_ref(),
            "64k".as_ref(),
            "--no-report".as_ref(),
            "--dir".as_ref(),
            odd.as_os_str(),
            "-o".as_ref(),
            sweep.as_os_str(),
        ],
        vec![
            "report".as_ref(),
            result.as_os_str(),
            "-o".as_ref(),
            report.as_os_str(),
        ],
        vec![
            "study".as_ref(),
            study.as_os_str(),
            "--dir".as_ref(),
            odd.as_os_str(),
            "--no-report".as_ref(),
            "-o".as_ref(),
            odd.join("study.json").into_os_string().leak(),
        ],
    ];
    for args in &runs {
        let out = iolab().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for path in [&result, &sweep, &report] {
        assert!(path.exists(), "{path:?} written under its own bytes");
    }
    // Text that must be UTF-8: one line naming the argument.
    let label = iolab()
        .args(["run", "--engine", "null", "--dir"])
        .arg(&odd)
        .arg("--label")
        .arg(std::ffi::OsStr::from_bytes(b"a\xffb"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&label.stderr);
    assert_eq!(label.status.code(), Some(2), "{stderr}");
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
    assert!(
        stderr.contains("\"a\\xFFb\" is not valid UTF-8"),
        "{stderr}"
    );
}

#[test]
fn network_targets_are_checked_before_anything_is_sent_or_created() {
    let dir = scratch();
    let lun = "iscsi://127.0.0.1/iqn.2026-11.org.iolab:x/1";
    let cases: &[(&[&str], &str)] = &[
        (&["--target", "smb://host/share"], "iolab reaches nfs://"),
        (&["--target", "nfs://host"], "no export named"),
        (&["--target", "nfs://host/e?version=4"], "speaks NFSv3"),
        (
            &["--target", "iscsi://host/iqn.2026-11.org.iolab:x"],
            "no target and LUN named",
        ),
        (&["--target", "iscsi://host/disk/1"], "not an iSCSI name"),
        (
            &[
                "--target",
                "iscsi://me%secret@host/iqn.2026-11.org.iolab:x/1",
            ],
            "LIBISCSI_CHAP_USERNAME",
        ),
        (&["--target", lun, "--op", "write"], "add --destroy-data="),
        (
            &["--target", lun, "--direct"],
            "--direct cannot be honoured by engine iscsi",
        ),
        (
            &["--target", lun, "--engine", "uring"],
            "not --engine uring",
        ),
        (
            &["--engine", "iscsi"],
            "--engine iscsi needs --target iscsi://",
        ),
        (
            &["--destroy-data", "/dev/null"],
            "is for a block device given with --file or an iSCSI LUN",
        ),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["run", "--size", "64k"];
        args.extend_from_slice(extra);
        assert_refused(&args, expected, dir.path());
    }
    for command in [&["sweep"][..], &["preset", "run", "netfs-micro"]] {
        let mut args = command.to_vec();
        args.extend(["--target", "iscsi://host/iqn.2026-11.org.iolab:x/0/1"]);
        assert_refused(&args, "nothing more", dir.path());
        let mut args = command.to_vec();
        args.extend(["--destroy-data", lun]);
        assert_refused(&args, "--target", dir.path());
    }
}

/// A fio user's words: fio's option names that mean what iolab's do are
/// accepted (the run measures), the others are refused in one line that
/// names iolab's spelling; clap's tips stay on a line of their own.
#[test]
fn fio_words_are_accepted_or_translated_in_one_line() {
    let dir = scratch();
    let dir_text = dir.path().to_str().unwrap();
    let accepted = format!(
        "run --directory {dir_text} --ioengine io_uring --numjobs 2 --blocksize 4k --ramp_time 0s --size 64k --runtime 100ms --rate_iops 1000 --json"
    );
    let output = iolab().args(accepted.split(' ')).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let workload = &result["points"][0]["workload"];
    assert_eq!(workload["engine"], "uring");
    assert_eq!(workload["jobs"], 2);
    assert_eq!(workload["bs"], 4096);
    let translated = [
        (
            "run --rw randread",
            "--rw is fio's; iolab writes --op read --pattern random",
        ),
        (
            "run --readwrite=randrw",
            "--op mix --pattern random --mix read=50,write=50",
        ),
        ("sweep --rw randwrite", "--op write --pattern random"),
        ("run --time_based", "always time-based"),
        ("run --rwmixread 70", "--mix read=70,write=30"),
        (
            "run --op randread",
            "'randread' is not a valid op: fio's rw=randread is --op read --pattern random",
        ),
        (
            "run --cache invalidate",
            "(one of cold, warm, keep, clean, drop)",
        ),
        (
            "run --engine solarisaio",
            "(one of sync, psync, stdio, mmap, uring, libaio, posixaio",
        ),
    ];
    for (line, expected) in translated {
        let line = format!("{line} --dir {dir_text}");
        let output = iolab().args(line.split(' ')).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{line}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{line}: {stderr}");
        assert!(stderr.contains(expected), "{line}: {stderr}");
    }
    for (line, tip) in [
        ("rnu", "  tip: a similar subcommand exists: 'run'"),
        (
            "measure dd if=/dev/zero",
            "  tip: to pass 'dd' as the measured command, use '-- dd'",
        ),
    ] {
        let output = iolab().args(line.split(' ')).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(output.status.code(), Some(2), "{line}: {stderr}");
        assert!(lines[0].starts_with("iolab: error: "), "{stderr}");
        assert!(lines.contains(&tip), "{line}: {stderr}");
        assert!(
            lines.last().unwrap().starts_with("  Usage: iolab"),
            "{stderr}"
        );
    }
    assert!(entries(dir.path()).is_empty());
}

/// A size without a unit below 512 is bytes, as in fio, and most likely a
/// slip: the run goes on, with a warning.
#[test]
fn a_block_size_without_a_unit_warns() {
    let dir = scratch();
    let output = iolab()
        .args([
            "run", "--engine", "null", "--bs", "4", "--size", "4k", "--json", "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("--bs 4 is 4 bytes") && stderr.contains("4k is 4 KiB"),
        "{stderr}"
    );
}
