//! Host against guest: real QEMU guests (TCG here) booted by iolab, points measured in them by its agent, A B B A order over rounds, a guest killed mid-point and the sweep resumed, and the equivalence verdict on known answers.

use crate::mounts::have;
use crate::util::{iolab, raised_check, read_result, scratch};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// The guest every test boots: emulated CPU (this host's KVM cannot run a stock kernel), small.
const GUEST: &str = "accel=tcg,memory=512";

fn qemu_or_skip() -> bool {
    if have("qemu-system-x86_64") {
        return true;
    }
    crate::skip!(
        "qemu-system-x86_64 is not installed (Debian package qemu-system-x86; scripts/test installs it)"
    );
    false
}

/// Whether this process may open `/dev/kvm` (KVM may still not run a guest).
fn kvm_opens() -> bool {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
        .is_ok()
}

/// QEMU processes whose command line names `cache` (this test's own).
fn qemus_of(cache: &Path) -> Vec<u32> {
    let needle = cache.to_string_lossy().into_owned();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| {
                    String::from_utf8_lossy(&c).contains(&needle)
                        && String::from_utf8_lossy(&c).contains("qemu-system")
                })
                .unwrap_or(false)
        })
        .collect()
}

/// Waits until a guest of `cache` says it measures a point (its console is a file on the host).
fn wait_until_measuring(cache: &Path) {
    let started = Instant::now();
    loop {
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "the guest never started measuring"
        );
        let measuring = std::fs::read_dir(cache.join("guest/runs"))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .any(|run| {
                std::fs::read_to_string(run.path().join("console-000.log"))
                    .is_ok_and(|log| log.contains("iolab-agent: measuring"))
            });
        if measuring {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_host_guest_sweep_runs_abba_over_boots_and_says_the_cpu_was_emulated() {
    if !qemu_or_skip() {
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let output = dir.path().join("guest.json");
    let args = [
        "sweep",
        "--guest",
        GUEST,
        "--op",
        "write",
        "--size",
        "8m",
        "--bs",
        "1m",
        "--fsync-end",
        "on",
        "--dir",
    ];
    let planned = iolab()
        .env("IOLAB_CACHE", &cache)
        .args(args)
        .arg(dir.path())
        .arg("--output")
        .arg(&output)
        .arg("--dry-run")
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&planned.stdout);
    let order: Vec<&str> = listing
        .lines()
        .filter(|l| l.contains("machine="))
        .map(|l| if l.contains("machine=host") { "A" } else { "B" })
        .collect();
    assert_eq!(order, ["A", "B", "B", "A"], "{listing}");
    assert!(
        listing.contains("guest: 2 boots (one per round), no boot measured here yet"),
        "{listing}"
    );
    // As a pipe shows it: 80 columns, tables folded rather than split.
    let run = iolab()
        .env("IOLAB_CACHE", &cache)
        .env_remove("COLUMNS")
        .args(args)
        .arg(dir.path())
        .arg("--output")
        .arg(&output)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    crate::fast::ui::assert_fits(
        &String::from_utf8_lossy(&run.stdout),
        80,
        "a host/guest sweep in a pipe",
    );
    // Its report: the host's and the guest's bars, and whether to trust
    // them, on the first screen as Chromium lays it out.
    let report = output.with_extension("html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(
        html.contains("Throughput on the host and in its guest"),
        "{html}"
    );
    assert!(html.contains(r#"class="trust""#), "{html}");
    if let Some((dom, _)) = crate::fast::report::selftest_dom(&report) {
        crate::fast::report::assert_layout_ok(&dom);
        assert!(crate::fast::report::measured(&dom, "bar-colours") >= 2);
        let bottom = crate::fast::report::measured(&dom, "trust-bottom");
        assert!(
            (1..=900).contains(&bottom),
            "the trust line ends at {bottom} px"
        );
    }
    let result = read_result(&output);
    let guest = &result["guest"];
    assert_eq!(guest["accelerator"], "tcg");
    assert_eq!(
        guest["boots"].as_array().unwrap().len(),
        2,
        "one boot per round"
    );
    // The next plan estimates its boots from the last one measured.
    let replanned = iolab()
        .env("IOLAB_CACHE", &cache)
        .args(args)
        .arg(dir.path())
        .arg("--output")
        .arg(dir.path().join("again.json"))
        .arg("--dry-run")
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&replanned.stdout);
    assert!(
        listing.contains("guest: 2 boots (one per round), about ")
            && listing.contains(" s each as the last TCG boots here took (median)"),
        "{listing}"
    );
    assert_eq!(guest["spec"]["cache"], "none");
    let points = result["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "each point's rounds are joined");
    for point in points {
        let rounds: Vec<u64> = point["repetitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["round"].as_u64().unwrap())
            .collect();
        assert_eq!(rounds, [0, 1], "{}", point["label"]);
    }
    let in_guest = points
        .iter()
        .find(|p| p["workload"]["machine"] == "guest")
        .unwrap();
    raised_check(in_guest, "emulated-cpu");
    // The stack across the hypervisor: the guest's disk wrote each round's
    // 8 MiB (and its journal), and the image's host device at least as much.
    let crossings = guest["crossings"].as_array().unwrap();
    assert_eq!(crossings.len(), 2, "one per guest point and round");
    for crossing in crossings {
        let written = |side: &str| -> u64 {
            crossing[side]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["write_bytes"].as_u64().unwrap())
                .sum()
        };
        assert!(written("guest") >= 8 << 20, "{crossing}");
        if !crossing["host"].as_array().unwrap().is_empty() {
            assert!(
                written("host") as f64 >= written("guest") as f64 * 0.9,
                "{crossing}"
            );
        }
    }
    // Nothing is left: no QEMU, no image, no run directory.
    assert!(qemus_of(&cache).is_empty());
    assert!(
        crate::util::entries(dir.path())
            .iter()
            .all(|n| !n.ends_with(".dat")),
        "{:?}",
        crate::util::entries(dir.path())
    );
    let runs = cache.join("guest/runs");
    assert!(crate::util::entries(&runs).is_empty());
    // The guest against the host, round by round, with a margin.
    let compared = iolab()
        .env_remove("COLUMNS")
        .args(["compare", "--by", "machine", "--margin", "5%"])
        .arg(&output)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&compared.stdout);
    assert!(
        compared.status.success(),
        "{}",
        String::from_utf8_lossy(&compared.stderr)
    );
    crate::fast::ui::assert_fits(&text, 80, "compare --by machine in a pipe");
    assert!(
        text.contains("within ±5%") && text.contains("2 rounds"),
        "{text}"
    );
    // Each side named by its setting, and the guest's environment is the
    // guest's own: its kernel and clock are not the host's (issue "Every
    // study's comparison from one command": "environments: identical").
    assert!(
        text.contains("[machine=host]") && text.contains("[machine=guest]"),
        "{text}"
    );
    assert!(!text.contains("environments: identical"), "{text}");
    // On a terminal of 80×24, as a person runs the README's guest sweep:
    // its live lines, its tables and the comparison's answer fit.
    if std::process::Command::new("tmux")
        .arg("-V")
        .output()
        .is_err()
    {
        crate::skip!("tmux is not installed (scripts/test installs it)");
        return;
    }
    let binary = assert_cmd::cargo::cargo_bin("iolab");
    let words: Vec<String> = args.iter().map(|w| format!("'{w}'")).collect();
    let lines = [
        format!(
            "IOLAB_CACHE='{}' {} {} '{}' --output terminal.json",
            cache.display(),
            binary.display(),
            words.join(" "),
            dir.path().display()
        ),
        format!(
            "{} compare --by machine --margin 5% terminal.json",
            binary.display()
        ),
    ];
    let kept = crate::fast::ui::in_tmux_80x24(dir.path(), &lines, 300);
    assert!(
        kept.contains("Across the hypervisor") && kept.contains("within ±5%"),
        "{kept}"
    );
    crate::fast::ui::assert_fits(&kept, 80, "the guest sweep in tmux at 80×24");
}

#[test]
fn a_guest_killed_mid_point_fails_that_point_and_the_sweep_resumes() {
    if !qemu_or_skip() {
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let output = dir.path().join("killed.json");
    let sweep = |resume: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"));
        command
            .env("IOLAB_CACHE", &cache)
            .args([
                "sweep",
                "--machine",
                "guest",
                "--guest",
                GUEST,
                "--rounds",
                "2",
            ])
            .args([
                "--op",
                "write",
                "--size",
                "8m",
                "--bs",
                "1m",
                "--runtime",
                "20s",
                "--dir",
            ])
            .arg(dir.path())
            .arg("--output")
            .arg(&output)
            .stderr(std::process::Stdio::piped());
        if resume {
            command.arg("--resume");
        }
        command
    };
    let child = sweep(false).spawn().unwrap();
    // Wait until the agent says it measures, then kill QEMU by its pid.
    wait_until_measuring(&cache);
    let pids = qemus_of(&cache);
    assert_eq!(pids.len(), 1, "{pids:?}");
    let qemu = pids[0];
    std::thread::sleep(Duration::from_secs(2));
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(qemu as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    let ended = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("QEMU was killed by signal 9"), "{stderr}");
    let result = read_result(&output);
    let repetitions = result["points"][0]["repetitions"].as_array().unwrap();
    let failed = repetitions
        .iter()
        .find(|r| r["status"] == "failed")
        .unwrap();
    assert!(
        failed.get("elapsed_ns").is_none(),
        "a failure is never timed"
    );
    assert_eq!(failed["round"], 0);
    assert!(
        repetitions
            .iter()
            .any(|r| r["status"] == "ok" && r["round"] == 1),
        "the next round booted a new guest: {repetitions:?}"
    );
    assert!(qemus_of(&cache).is_empty());
    // --resume measures the failed round again and keeps the other.
    let resumed = sweep(true).output().unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let result: Value = read_result(&output);
    let rounds: Vec<u64> = result["points"][0]["repetitions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "ok")
        .map(|r| r["round"].as_u64().unwrap())
        .collect();
    assert_eq!(rounds.len(), 2, "{result}");
    assert!(rounds.contains(&0) && rounds.contains(&1));
    assert!(qemus_of(&cache).is_empty());
}

#[test]
fn equivalence_is_told_on_known_answers() {
    let dir = scratch();
    let output = dir.path().join("rates.json");
    // A point against itself, and against one paced to half its rate.
    let run = iolab()
        .args(["sweep", "--engine", "null", "--bs", "4k", "--runtime", "1s"])
        .args([
            "--rate-iops",
            "1000,2000",
            "--order",
            "abba:rate-iops",
            "--rounds",
            "3",
            "--dir",
        ])
        .arg(dir.path())
        .arg("--output")
        .arg(&output)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let compare = |args: &[&str]| {
        let out = iolab()
            .arg("compare")
            .args(args)
            .arg(&output)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let halved = compare(&["--by", "rate_iops", "--margin", "5%"]);
    assert!(halved.contains("different ["), "{halved}");
    assert!(halved.contains("3 rounds"), "{halved}");
    let same = iolab()
        .args(["compare", "--margin", "5%"])
        .arg(&output)
        .arg(&output)
        .output()
        .unwrap();
    let same = String::from_utf8_lossy(&same.stdout);
    assert_eq!(same.matches("equivalent [").count(), 2, "{same}");
    assert!(!same.contains("different ["), "{same}");
}

#[test]
fn kvm_that_cannot_run_the_kernel_is_refused_in_one_line() {
    if !qemu_or_skip() {
        return;
    }
    if !kvm_opens() {
        crate::not_here!("no /dev/kvm here; accel=kvm is refused before a boot (unit-tested)");
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let output = iolab()
        .env("IOLAB_CACHE", &cache)
        .args([
            "run",
            "--machine",
            "guest",
            "--guest",
            "accel=kvm",
            "--size",
            "1m",
            "--dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if output.status.success() {
        eprintln!("note: KVM runs a stock kernel here; nothing to refuse");
        return;
    }
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("accel=kvm") && stderr.contains("accel=auto falls back to TCG"),
        "{stderr}"
    );
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
    let left: Vec<String> = crate::util::entries(dir.path())
        .into_iter()
        .filter(|n| n != "cache")
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(qemus_of(&cache).is_empty());
}

#[test]
fn iolab_killed_takes_its_guest_with_it_and_the_next_run_removes_the_rest() {
    if !qemu_or_skip() {
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_CACHE", &cache)
        .args([
            "run",
            "--machine",
            "guest",
            "--guest",
            GUEST,
            "--size",
            "8m",
            "--runtime",
            "60s",
            "--dir",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while qemus_of(&cache).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "QEMU never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // PR_SET_PDEATHSIG: QEMU follows at once.
    let killed = Instant::now();
    while !qemus_of(&cache).is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(5),
            "QEMU outlived iolab"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let image_left = crate::util::entries(dir.path())
        .iter()
        .any(|n| n.ends_with(".dat"));
    assert!(
        image_left,
        "a killed run leaves its image until the next run"
    );
    // The next run in the directory removes the image; the next guest, the run directory.
    let next = iolab()
        .env("IOLAB_CACHE", &cache)
        .args(["guest", "check", "--guest", GUEST, "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{stderr}");
    assert!(
        stderr.contains("left by a run that is no longer running"),
        "{stderr}"
    );
    assert!(
        crate::util::entries(dir.path())
            .iter()
            .all(|n| !n.ends_with(".dat"))
    );
    assert!(crate::util::entries(&cache.join("guest/runs")).is_empty());
}

#[test]
fn an_interrupt_during_a_guest_point_stops_the_guest_and_records_nothing_of_it() {
    if !qemu_or_skip() {
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let output = dir.path().join("interrupted.json");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_CACHE", &cache)
        .args([
            "run",
            "--machine",
            "guest",
            "--guest",
            GUEST,
            "--size",
            "8m",
            "--runtime",
            "60s",
            "--dir",
        ])
        .arg(dir.path())
        .arg("--output")
        .arg(&output)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_until_measuring(&cache);
    let interrupted = Instant::now();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let ended = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(130), "{stderr}");
    assert!(
        interrupted.elapsed() < Duration::from_secs(20),
        "the 60 s point was not cut short"
    );
    assert!(
        stderr.contains("interrupted; the guest was stopped"),
        "{stderr}"
    );
    assert!(qemus_of(&cache).is_empty());
    assert!(!output.exists(), "nothing of the point is recorded");
    assert!(
        crate::util::entries(dir.path())
            .iter()
            .all(|n| n == "cache")
    );
}

#[test]
fn bad_guest_input_and_missing_packages_are_one_line_and_leave_nothing() {
    let dir = scratch();
    for (args, path, named) in [
        (vec!["--guest", "accel=xen"], None, "--guest accel=xen"),
        (vec!["--guest", "memory"], None, "--guest memory"),
        (vec!["--guest", "cache=writeback"], None, "aio=native"),
        (
            vec!["--machine", "guest", "--order", "abba:nonsense"],
            None,
            "nonsense",
        ),
        (
            vec!["--machine", "guest"],
            Some("/nonexistent"),
            "Debian package qemu-system-x86",
        ),
    ] {
        let mut command = iolab();
        if let Some(path) = path {
            command.env("PATH", path);
        }
        let output = command
            .env("IOLAB_CACHE", dir.path().join("cache"))
            .args(["run", "--size", "1m", "--dir"])
            .arg(dir.path())
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{args:?}: {stderr}");
        assert!(crate::util::entries(dir.path()).is_empty(), "{args:?}");
    }
}

/// A Debian package made with `dpkg-deb --build` from a control file.
fn build_deb(dir: &Path, package: &str, file: &str) -> std::path::PathBuf {
    let tree = dir.join(format!("{package}-tree"));
    std::fs::create_dir_all(tree.join("DEBIAN")).unwrap();
    std::fs::create_dir_all(tree.join("boot")).unwrap();
    std::fs::write(tree.join("boot/readme"), "not a kernel\n").unwrap();
    if package.ends_with("-modules") {
        std::fs::create_dir_all(tree.join("lib/modules/9.9-fake/kernel")).unwrap();
        std::fs::write(tree.join("lib/modules/9.9-fake/kernel/x.ko"), "x").unwrap();
    }
    std::fs::write(
        tree.join("DEBIAN/control"),
        format!(
            "Package: {package}\nVersion: 1.0-1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: test\n"
        ),
    )
    .unwrap();
    let deb = dir.join(file);
    let built = std::process::Command::new("dpkg-deb")
        .args(["--build", "--root-owner-group"])
        .arg(&tree)
        .arg(&deb)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    deb
}

/// `--guest kernel=FILE.deb` touches nothing in iolab's cache before the
/// file is known to be a linux-image package, unpacks into a directory
/// named by the package's own name and version, and never removes a
/// directory it did not make (issue "Nothing lost, nothing harmed, round
/// 4", item 2: `..deb` emptied the whole cache).
#[test]
fn a_kernel_file_never_empties_the_cache() {
    if !have("dpkg-deb") {
        return;
    }
    let dir = scratch();
    let cache = dir.path().join("cache");
    let kernels = dir.path().join("k");
    std::fs::create_dir_all(cache.join("guest/photos")).unwrap();
    std::fs::create_dir_all(&kernels).unwrap();
    std::fs::write(cache.join("guest/photos/p.jpg"), "a photo").unwrap();
    std::fs::write(cache.join("guest/notes.txt"), "notes").unwrap();
    std::fs::write(kernels.join("..deb"), "not a deb\n").unwrap();
    std::fs::write(kernels.join("runs.deb"), "not a deb\n").unwrap();
    let other = build_deb(dir.path(), "photos", "photos.deb");
    let bare = build_deb(dir.path(), "linux-image-fake", "linux-image-fake.deb");
    let fake = build_deb(
        dir.path(),
        "linux-image-fake-modules",
        "linux-image-fake-modules.deb",
    );
    // Someone's directory where the fake kernel would be unpacked.
    std::fs::create_dir_all(cache.join("guest/linux-image-fake-modules_1.0-1")).unwrap();
    std::fs::write(
        cache.join("guest/linux-image-fake-modules_1.0-1/mine"),
        "mine",
    )
    .unwrap();
    let fetch = |kernel: &Path| {
        iolab()
            .env("IOLAB_CACHE", &cache)
            .args(["guest", "fetch", "--kernel"])
            .arg(kernel)
            .output()
            .unwrap()
    };
    for (kernel, status, named) in [
        (kernels.join("..deb"), 2, "not a Debian package"),
        (kernels.join("runs.deb"), 2, "not a Debian package"),
        (other, 2, "package photos is not a linux-image package"),
        // Refused before anything is unpacked (it used to be unpacked,
        // then refused with exit 1).
        (bare, 2, "the package holds no kernel modules"),
        (fake, 1, "was not made by iolab"),
    ] {
        let output = fetch(&kernel);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(status), "{kernel:?}: {stderr}");
        assert!(stderr.contains(named), "{kernel:?}: {stderr}");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
        assert_eq!(
            std::fs::read_to_string(cache.join("guest/photos/p.jpg")).unwrap(),
            "a photo"
        );
        assert_eq!(
            std::fs::read_to_string(cache.join("guest/notes.txt")).unwrap(),
            "notes"
        );
        assert_eq!(
            std::fs::read_to_string(cache.join("guest/linux-image-fake-modules_1.0-1/mine"))
                .unwrap(),
            "mine"
        );
    }
    let left: Vec<String> = crate::util::entries(&cache.join("guest"))
        .into_iter()
        .filter(|n| n.starts_with("linux-image-fake_") || n.starts_with(".unpack-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A stop request during a guest's boot ends the run within seconds:
/// QEMU ended, image and run directory removed, nothing recorded (issue
/// "Nothing lost, nothing harmed, round 4", item 4: SIGTERM was ignored
/// until the boot's 300 s deadline).
#[test]
fn a_sigterm_during_the_guests_boot_ends_the_run_at_once() {
    if !qemu_or_skip() {
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let output = dir.path().join("r.json");
    // The kernel fetched beforehand, so the signal comes during the boot.
    let fetched = iolab()
        .env("IOLAB_CACHE", &cache)
        .args(["guest", "fetch"])
        .output()
        .unwrap();
    assert!(
        fetched.status.success(),
        "{}",
        String::from_utf8_lossy(&fetched.stderr)
    );
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .env("IOLAB_CACHE", &cache)
        .args([
            "run",
            "--machine",
            "guest",
            "--guest",
            GUEST,
            "--size",
            "1m",
            "--runtime",
            "200ms",
            "--dir",
        ])
        .arg(dir.path())
        .arg("-o")
        .arg(&output)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while qemus_of(&cache).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "QEMU never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let signalled = Instant::now();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let ended = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&ended.stderr);
    assert_eq!(ended.status.code(), Some(143), "{stderr}");
    assert!(
        signalled.elapsed() < Duration::from_secs(10),
        "took {:?}: {stderr}",
        signalled.elapsed()
    );
    assert!(qemus_of(&cache).is_empty());
    assert!(!output.exists(), "nothing recorded: {stderr}");
    assert!(
        crate::util::entries(dir.path())
            .iter()
            .all(|n| n == "cache"),
        "{:?}",
        crate::util::entries(dir.path())
    );
    assert!(crate::util::entries(&cache.join("guest/runs")).is_empty());
}

/// `accel=auto` on a host whose `/dev/kvm` opens but does not run the
/// guest: the probe gives up within its 20 s (or at once when QEMU dies),
/// one line says TCG is booted instead, the verdict is kept in the cache,
/// and the next run goes to TCG at once, saying why (issue "A first
/// afternoon without a stumble": the guest path waited 300 s in silence,
/// at every run).
#[test]
fn auto_falls_back_to_tcg_once_says_so_and_remembers() {
    if !qemu_or_skip() {
        return;
    }
    if !kvm_opens() {
        crate::not_here!("no /dev/kvm here: accel=auto boots TCG without a probe");
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let run = |output: &str| {
        let started = std::time::Instant::now();
        let run = iolab()
            .env("IOLAB_CACHE", &cache)
            .args([
                "run",
                "--machine",
                "guest",
                "--size",
                "1m",
                "--runtime",
                "200ms",
                "-o",
            ])
            .arg(dir.path().join(output))
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert!(run.status.success(), "{stderr}");
        (stderr, started.elapsed())
    };
    let (first, _) = run("first.json");
    let verdict = cache.join("guest/kvm-verdict");
    if !first.contains("TCG, an emulated CPU: KVM could not run it") {
        assert!(!verdict.exists(), "{first}");
        crate::not_here!("KVM runs guests here: nothing falls back");
        return;
    }
    assert!(first.contains("booting the guest with TCG"), "{first}");
    let kept = std::fs::read_to_string(&verdict).unwrap();
    assert!(
        kept.starts_with("host ") && kept.contains("\nfails "),
        "{kept}"
    );
    let (second, _) = run("second.json");
    assert!(
        second.contains("booting the guest with TCG, an emulated CPU: KVM failed here last time")
            && second.contains("kvm-verdict to retry"),
        "{second}"
    );
    let record = crate::util::read_result(&dir.path().join("second.json"));
    let why = record["guest"]["why_tcg"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.contains("when last tried"), "{}", record["guest"]);
}

/// A point of groups runs in the guest as on the host (issue "One shape of
/// point": groups in a guest): `run --guest` measures a writer beside a
/// reader on the host, then the same two groups in the guest, each group's
/// figures its own on both sides.
#[test]
fn groups_run_in_the_guest_beside_their_host_twin() {
    if !qemu_or_skip() {
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let output = dir.path().join("groups.json");
    let run = iolab()
        .env("IOLAB_CACHE", &cache)
        .args(["run", "--guest", GUEST, "--size", "4m", "--bs", "64k"])
        .args(["--group", "writer", "--op", "write"])
        .args(["--group", "reader", "--op", "read", "--jobs", "2"])
        .arg("--dir")
        .arg(dir.path())
        .arg("--output")
        .arg(&output)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let result = read_result(&output);
    let points = result["points"].as_array().unwrap();
    let machines: Vec<&str> = points
        .iter()
        .map(|p| p["workload"]["machine"].as_str().unwrap_or("host"))
        .collect();
    assert_eq!(machines, ["host", "guest"]);
    for point in points {
        let groups = point["groups"].as_array().unwrap();
        let names: Vec<&str> = groups
            .iter()
            .map(|g| g["label"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["writer", "reader"], "{}", point["label"]);
        for (group, bytes) in groups.iter().zip([4u64 << 20, 8 << 20]) {
            let repetition = &group["repetitions"][0];
            assert_eq!(repetition["status"], "ok", "{repetition}");
            let moved: u64 = repetition["jobs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|job| job["bytes"].as_u64().unwrap())
                .sum();
            assert_eq!(moved, bytes, "{}: {}", point["label"], group["label"]);
            assert_eq!(group["workload"]["machine"], point["workload"]["machine"]);
        }
    }
    assert!(qemus_of(&cache).is_empty());
}

/// Two guests started at once on one empty cache both boot: the second
/// waits for the first to fetch and unpack the kernel (they used to unpack
/// into one directory, failing with "Directory not empty" or leaving a
/// folder with only `vmlinux` that later runs booted from or refused). A
/// kernel folder without iolab's marks — half-unpacked by an earlier
/// iolab — is unpacked again, not refused.
#[test]
fn two_guests_on_one_empty_cache_both_boot_and_a_half_unpacked_kernel_heals() {
    if !qemu_or_skip() {
        return;
    }
    let dir = scratch();
    let cache = dir.path().join("empty-cache");
    let check = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
            .current_dir(crate::util::working_dir())
            .env("IOLAB_CACHE", &cache)
            .args(["guest", "check", "--guest", GUEST, "--dir"])
            .arg(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = check();
    std::thread::sleep(Duration::from_millis(300));
    let second = check();
    let said: Vec<String> = [first, second]
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            assert!(output.status.success(), "{text}");
            text
        })
        .collect();
    // Each long wait of a first run is said before it starts: the kernel's
    // fetch (or the wait for the other's), then the boot, then what it took.
    for text in &said {
        let at = |what: &str| text.find(what).unwrap_or(usize::MAX);
        let kernel = at("fetching and unpacking").min(at("waiting for another iolab"));
        assert!(
            kernel < at("booting the guest") && at("booting the guest") < at("boot: "),
            "{text}"
        );
    }
    assert!(
        said.iter()
            .any(|text| text.contains("waiting for another iolab")),
        "{said:?}"
    );
    let kernels: Vec<std::path::PathBuf> = std::fs::read_dir(cache.join("guest"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("linux-image-")
        })
        .collect();
    assert_eq!(kernels.len(), 1, "{kernels:?}");
    let kernel = &kernels[0];
    // As an earlier iolab left it: no marks, its vmlinux not yet taken out.
    for name in [".iolab-complete", ".iolab-made", "vmlinux"] {
        let _ = std::fs::remove_file(kernel.join(name));
    }
    let output = check().wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(kernel.join(".iolab-complete").is_file());
    assert!(kernel.join("vmlinux").is_file());
    let stagings: Vec<String> = crate::util::entries(&cache.join("guest"))
        .into_iter()
        .filter(|n| n.starts_with(".unpack-"))
        .collect();
    assert!(stagings.is_empty(), "{stagings:?}");
}

/// A wait for another process preparing the guest's kernel (its cache's
/// lock held) ends at SIGTERM with 143, saying what it waited for.
#[test]
fn sigterm_while_waiting_for_the_kernel_cache_ends_the_wait_with_143() {
    if !have("flock") {
        crate::skip!("flock is not installed (Debian util-linux)");
        return;
    }
    let dir = scratch();
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(cache.join("guest")).unwrap();
    let mut holder = std::process::Command::new("flock")
        .arg(cache.join("guest/.lock"))
        .args(["sleep", "60"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_iolab"))
        .current_dir(crate::util::working_dir())
        .env("IOLAB_CACHE", &cache)
        .args(["guest", "fetch"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let sent = std::time::Instant::now();
    let output = child.wait_with_output().unwrap();
    let _ = holder.kill();
    let _ = holder.wait();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(143), "{stderr}");
    assert!(sent.elapsed() < Duration::from_secs(10), "{stderr}");
    assert!(stderr.contains("waiting for another iolab"), "{stderr}");
}

/// CLOSER 2011's experiments 1, 3 and 4 from one command: dd on the native
/// host, then on the VMs centos1 and centos2 booted in turn, each VM's dd on
/// its empty disk itself (`raw=on`, the preset's default for a guest, as the
/// study's `/dev/xvda2`), nothing made or mounted on it.
#[test]
fn closer_2011_runs_dd_on_the_host_and_on_two_guests_raw_disks() {
    if !qemu_or_skip() {
        return;
    }
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let output = dir.path().join("closer.json");
    let run = iolab()
        .env("IOLAB_CACHE", &cache)
        .args(["preset", "run", "dd-blocksize", "--scale", "test"])
        .args(["--rounds", "1", "--no-report", "--guest"])
        .arg(format!("{GUEST},name=centos1"))
        .arg("--guest")
        .arg(format!("{GUEST},name=centos2"))
        .arg("--output")
        .arg(&output)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let result = read_result(&output);
    let guests = result["guests"].as_array().unwrap();
    let names: Vec<&str> = guests
        .iter()
        .map(|g| g["spec"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["centos1", "centos2"]);
    for guest in guests {
        assert_eq!(guest["spec"]["raw"], true, "{guest}");
        assert_eq!(guest["filesystem"], "none (raw device)", "{guest}");
    }
    let points = result["points"].as_array().unwrap();
    let on = |machine: &str| {
        points
            .iter()
            .filter(|p| p["workload"]["machine"].as_str().unwrap_or("host") == machine)
            .collect::<Vec<_>>()
    };
    let (host, guest) = (on("host"), on("guest"));
    assert_eq!(
        guest.len(),
        2 * host.len(),
        "each VM measures what the host did"
    );
    for point in &guest {
        // The disk itself, as dd's of=/dev/xvda2: no file, no file system.
        assert_eq!(
            point["target"]["files"][0], "/dev/vda",
            "{}",
            point["label"]
        );
        assert_eq!(point["target"]["filesystem"], "block device");
        assert!(
            point["repetitions"][0]["status"] == "ok",
            "{}",
            point["label"]
        );
    }
    for point in &host {
        assert_ne!(point["target"]["filesystem"], "block device");
    }
    // Each VM against the native host, paired by round (one round here:
    // the ratio without an interval, said so).
    for name in [
        "Guest against host — ",
        "closer.json centos1, guest",
        "closer.json centos2, guest",
    ] {
        assert!(stdout.contains(name), "{name}: {stdout}");
    }
    // The ratio printed is the JSON's: one round, so the guest's
    // throughput over its host twin's, for each VM.
    for (config, name) in [(1, "centos1"), (2, "centos2")] {
        let throughput = |machine: &str| {
            points
                .iter()
                .find(|p| {
                    p["workload"]["machine"].as_str().unwrap_or("host") == machine
                        && p["workload"]["direct"] == true
                        && p["workload"]["op"] == "write"
                        && p["workload"]["bs"] == 4096
                        && (machine == "host" || p["workload"]["guest_config"] == config)
                })
                .unwrap()["repetitions"][0]["throughput_bps"]
                .as_f64()
                .unwrap()
        };
        let ratio = throughput("guest") / throughput("host");
        let row = stdout
            .lines()
            .skip_while(|l| !l.starts_with(&format!("Guest against host — closer.json {name}")))
            // Rows are named by what varies among the points (the words
            // they share are in the title).
            .find(|l| l.contains("O_DIRECT write:") && l.contains(" 4KiB "))
            .unwrap_or_else(|| panic!("{name}: {stdout}"));
        let cells: Vec<&str> = row.split(['┆', '│']).map(str::trim).collect();
        let printed: f64 = cells[4].split(' ').next().unwrap().parse().unwrap();
        assert!(
            (printed - ratio).abs() <= 0.0005 + ratio * 1e-3,
            "{name}: printed {printed}, JSON {ratio}: {row}"
        );
    }
    for name in ["centos1, host", "centos1, guest", "centos2, guest"] {
        assert!(
            stdout.contains("CLOSER 2011, Table 1") && stdout.contains(name),
            "{name}: {stdout}"
        );
    }
}
