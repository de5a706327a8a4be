//! A guest as a real second host of a distributed run: `iolab guest up` boots a TCG guest on netlab's tap, mpirun starts its daemon there through `iolab guest exec` as its remote agent, and the rank in the guest measures the guest's own disk under its own kernel, host name and boot id. Counts are asserted, never times.

use crate::lab::NetLab;
use crate::mounts::have;
use crate::util::scratch;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const IOLAB: &str = env!("CARGO_BIN_EXE_iolab");
/// Small and emulated (this host's KVM cannot run a stock kernel).
const GUEST: &str = "accel=tcg,memory=512";
/// The guest's address on netlab's tap (the tap's own is 10.211.0.1).
const GUEST_ADDRESS: &str = "10.211.0.2";

/// `iolab guest up` for the length of a test: stopped (SIGTERM) when dropped.
struct GuestHost {
    up: Child,
    /// What `guest up` said (on its standard error, as iolab says all but results) so far.
    said: String,
}

impl GuestHost {
    /// Boots the guest in `lab`'s namespace on its tap, its own disk at
    /// `dir`, and waits (at most 5 minutes) until it says it is up.
    fn up(lab: &NetLab, cache: &Path, dir: &Path) -> GuestHost {
        GuestHost::up_with(lab, cache, dir, &[&format!("{GUEST},tap={}", lab.tap)])
    }

    /// As [`GuestHost::up`], with `--guest` and more of `guest up`'s flags in `args`.
    fn up_with(lab: &NetLab, cache: &Path, dir: &Path, args: &[&str]) -> GuestHost {
        let mut up = lab
            .command(IOLAB)
            .env("IOLAB_CACHE", cache)
            .args(["guest", "up", "--size", "96m", "--guest"])
            .args(args)
            .arg("--dir")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("iolab guest up starts");
        let stderr = up.stderr.take().expect("piped");
        let (lines, said) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let mut host = GuestHost {
            up,
            said: String::new(),
        };
        let started = Instant::now();
        while !host.said.contains(" up at ") {
            match said.recv_timeout(Duration::from_secs(1)) {
                Ok(line) => {
                    host.said.push_str(&line);
                    host.said.push('\n');
                }
                Err(_) if started.elapsed() > Duration::from_secs(300) => {
                    panic!("the guest did not come up in 5 minutes: {}", host.said)
                }
                Err(_) => {
                    if let Some(status) = host.up.try_wait().unwrap() {
                        // What it said last arrives after its end.
                        while let Ok(line) = said.recv_timeout(Duration::from_millis(200)) {
                            host.said.push_str(&line);
                            host.said.push('\n');
                        }
                        panic!("iolab guest up ended ({status}): {}", host.said);
                    }
                }
            }
        }
        host
    }
}

impl Drop for GuestHost {
    fn drop(&mut self) {
        if self.up.try_wait().ok().flatten().is_none() {
            let _ = Command::new("kill")
                .args(["-TERM", &self.up.id().to_string()])
                .status();
            let _ = self.up.wait();
        }
    }
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn prerequisites_or_skip() -> bool {
    for (program, package) in [
        ("qemu-system-x86_64", "qemu-system-x86"),
        ("mpirun", "openmpi-bin"),
    ] {
        if !have(program) {
            crate::skip!(
                "{program} is not installed (Debian package {package}; scripts/test installs it)"
            );
            return false;
        }
    }
    true
}

/// Bad input to `guest up`, `exec` and `down` is one line and exit 2, with
/// nothing booted or created.
#[test]
fn guest_host_commands_refuse_bad_input_in_one_line() {
    let dir = scratch();
    for (args, named) in [
        (vec!["guest", "up", "--guest", "accel=tcg"], "tap=TAP"),
        (
            vec!["guest", "up", "--guest", "tap=iolab-nosuch0"],
            "iolab-nosuch0",
        ),
        (
            vec!["guest", "up", "--guest", "tap=x", "--hostname", "a_b"],
            "--hostname a_b",
        ),
        (
            vec!["guest", "up", "--guest", "tap=x", "--size", "1m"],
            "--size",
        ),
        (
            vec!["guest", "exec", "10.211.0.250", "true"],
            "10.211.0.250",
        ),
        (vec!["guest", "down", "10.211.0.250"], "10.211.0.250"),
    ] {
        let mut command = Command::new(IOLAB);
        command
            .env("IOLAB_CACHE", dir.path().join("cache"))
            .args(&args);
        // exec's words take everything after its address: only up has a --dir.
        if args[1] == "up" {
            command.arg("--dir").arg(dir.path());
        }
        let output = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert_eq!(crate::util::message_lines(&stderr), 1, "{args:?}: {stderr}");
        assert!(crate::util::entries(dir.path()).is_empty(), "{args:?}");
    }
}

/// Another user's process bound to a guest's control socket name (a
/// squatter, here perl as uid 65534) is not trusted: `guest exec` sends
/// it nothing and refuses in one line naming its pid and uid, exit 2.
/// Fails on d001db4, where the command reached the squatter.
#[test]
fn a_guest_socket_held_by_another_user_is_not_trusted() {
    if !have("setpriv") || !have("perl") {
        crate::skip!("setpriv or perl is missing (Debian util-linux, perl-base)");
        return;
    }
    let dir = scratch();
    let heard = dir.path().join("heard");
    let listening = dir.path().join("listening");
    // The squatter writes whatever a caller sends it into `heard`.
    rustix::fs::chmod(dir.path(), rustix::fs::Mode::from_raw_mode(0o777)).unwrap();
    let address = "10.211.0.249";
    let script = format!(
        r#"use Socket; socket(my $s, PF_UNIX, SOCK_STREAM, 0) or die; bind($s, pack_sockaddr_un("\0iolab-guest/{address}")) or die "bind: $!"; listen($s, 5) or die; open(my $l, ">", "{listening}"); close $l; while (accept(my $c, $s)) {{ my $line = <$c>; open(my $o, ">>", "{heard}"); print $o $line; close $o; print $c "{{\"Command\":{{\"Exited\":{{\"code\":0,\"signal\":null}}}}}}\n"; close $c; }}"#,
        listening = listening.display(),
        heard = heard.display()
    );
    let mut squatter = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "perl",
            "-e",
        ])
        .arg(&script)
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !listening.exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = Command::new(IOLAB)
        .args(["guest", "exec", address, "echo secret-token-123"])
        .output()
        .unwrap();
    let _ = squatter.kill();
    let _ = squatter.wait();
    assert!(listening.exists(), "the squatter never listened");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("uid 65534"), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", squatter.id())),
        "{stderr}"
    );
    assert_eq!(crate::util::message_lines(&stderr), 1, "{stderr}");
    let said = std::fs::read_to_string(&heard).unwrap_or_default();
    assert!(
        !said.contains("secret-token-123"),
        "the squatter heard: {said}"
    );
}

/// A rank on this machine and a rank in a guest: each recorded under its
/// own host name with its own kernel and boot, the guest's bytes written to
/// the guest's own disk, and everything removed when the guest goes down.
#[cfg(feature = "mpi")]
#[test]
fn a_guest_on_the_tap_is_a_second_host_of_a_distributed_run() {
    if !prerequisites_or_skip() {
        return;
    }
    let Some(lab) = NetLab::start("16M") else {
        return;
    };
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let guest = GuestHost::up(&lab, &cache, &work);
    assert!(
        guest.said.contains("guest iolab-guest up at 10.211.0.2"),
        "{}",
        guest.said
    );

    // A second guest at the same address is refused while the first is up.
    let second = lab
        .command(IOLAB)
        .env("IOLAB_CACHE", &cache)
        .args(["guest", "up", "--guest"])
        .arg(format!("{GUEST},tap={}", lab.tap))
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(2), "{}", text(&second));
    assert!(text(&second).contains("up already"), "{}", text(&second));

    // exec runs as ssh would: words joined for sh, output relayed, status kept.
    let exec = lab
        .command(IOLAB)
        .args(["guest", "exec", GUEST_ADDRESS, "hostname;", "cat"])
        .args([
            "/proc/sys/kernel/random/boot_id;",
            "echo",
            "to-stderr",
            ">&2;",
            "exit",
            "3",
        ])
        .output()
        .unwrap();
    assert_eq!(exec.status.code(), Some(3), "{}", text(&exec));
    let stdout = String::from_utf8_lossy(&exec.stdout);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("iolab-guest"), "{stdout}");
    let guest_boot = lines.next().unwrap_or_default().to_string();
    let host_boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    assert_eq!(guest_boot.len(), 36, "{stdout}");
    assert_ne!(guest_boot, host_boot.trim(), "the guest has its own boot");
    assert_eq!(String::from_utf8_lossy(&exec.stderr), "to-stderr\n");

    // Rank 0 here (10.211.0.1 is this namespace's own address: forked
    // directly), rank 1 in the guest through `iolab guest exec`.
    let output = dir.path().join("hosts.json");
    let agent = format!("{IOLAB} guest exec");
    let run = lab
        .command("timeout")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args(["300", "mpirun", "--bind-to", "none", "-np", "2", "--host"])
        .arg(format!("10.211.0.1,{GUEST_ADDRESS}"))
        .args(["--mca", "plm_rsh_agent", &agent])
        .args(["--mca", "plm_rsh_no_tree_spawn", "1"])
        .args(["--mca", "oob_tcp_if_include", "10.211.0.0/24"])
        .args(["--mca", "btl_tcp_if_include", "10.211.0.0/24"])
        .args(["--mca", "btl", "tcp,self"])
        .args([IOLAB, "run", "--mpi", "--op", "write", "--size", "8m"])
        .args(["--fsync-end", "--no-report", "--dir"])
        .arg(&work)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run));
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("2 ranks on 2 hosts"),
        "{}",
        text(&run)
    );
    let result = crate::util::read_result(&output);
    crate::util::check_consistency(&result);
    let hosts = result["distributed"]["hosts"].as_array().unwrap();
    let names: Vec<&str> = hosts.iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "{hosts:?}");
    assert_eq!(names[1], "iolab-guest", "{hosts:?}");
    // Two boots, two clocks: the guest's measured against rank 0's (it
    // booted seconds ago, this machine long before: its clock reads less).
    assert!(hosts[0].get("clock").is_none(), "{}", hosts[0]);
    let clock = &hosts[1]["clock"];
    assert_eq!(clock["rounds"], 9, "{}", hosts[1]);
    assert!(clock["offset_ns"].as_i64().unwrap() < 0, "{clock}");
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("another boot: clock -"),
        "{}",
        text(&run)
    );
    let kernel = |host: &Value| host["environment"]["kernel"].as_str().unwrap().to_string();
    assert_ne!(
        kernel(&hosts[0]),
        kernel(&hosts[1]),
        "the guest's own kernel"
    );
    let repetition = &result["points"][0]["repetitions"][0];
    assert_eq!(repetition["status"], "ok", "{repetition}");
    let per_host = repetition["hosts"].as_array().unwrap();
    for host in per_host {
        assert_eq!(host["bytes"], 8 << 20, "{host}");
    }
    // The guest's 8 MiB reached its own disk, as its kernel counted.
    let guest_disk: u64 = per_host[1]["activity"]["devices"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", per_host[1]))
        .iter()
        .map(|d| d["write_bytes"].as_u64().unwrap_or(0))
        .sum();
    assert!(guest_disk >= 8 << 20, "{}", per_host[1]);

    let down = lab
        .command(IOLAB)
        .args(["guest", "down", GUEST_ADDRESS])
        .output()
        .unwrap();
    assert!(down.status.success(), "{}", text(&down));
    let mut guest = guest;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = guest.up.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "guest up did not end"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "guest up: {status}");
    // The ranks' files and the guest's image are gone.
    assert!(
        crate::util::entries(&work).is_empty(),
        "{:?}",
        crate::util::entries(&work)
    );
    // Nothing answers at the address any more.
    let gone = lab
        .command(IOLAB)
        .args(["guest", "exec", GUEST_ADDRESS, "true"])
        .output()
        .unwrap();
    assert_eq!(gone.status.code(), Some(2), "{}", text(&gone));
}

/// `mpirun` in `lab`'s namespace over `hosts` (each through `iolab guest
/// exec`, none forked here), running `iolab run --mpi ARGS`.
#[cfg(feature = "mpi")]
fn mpirun_on(lab: &NetLab, hosts: &str, subnets: &str, args: &[&str]) -> Output {
    let agent = format!("{IOLAB} guest exec");
    lab.command("timeout")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .args([
            "300",
            "mpirun",
            "--bind-to",
            "none",
            "-np",
            "2",
            "--host",
            hosts,
        ])
        .args(["--mca", "plm_rsh_agent", &agent])
        .args(["--mca", "plm_rsh_no_tree_spawn", "1"])
        .args(["--mca", "oob_tcp_if_include", subnets])
        .args(["--mca", "btl_tcp_if_include", subnets])
        .args(["--mca", "btl", "tcp,self", IOLAB, "run", "--mpi"])
        .args(args)
        .output()
        .unwrap()
}

/// Two guests, each a host with its own kernel client and page cache, on
/// one NFS export (the lab's, mounted by each guest's kernel at the same
/// directory): a read of a rank's own file, left cached, moves almost
/// nothing over the reader's link; with `--reorder` each rank reads the
/// file the other host wrote, which its page cache never held, so the whole
/// file crosses its link — IOR's `-C` across real caches. Counts of bytes
/// on each guest's network card, never times.
#[cfg(feature = "mpi")]
#[test]
fn reordered_reads_across_two_guests_on_one_export_miss_each_readers_cache() {
    if !prerequisites_or_skip() || !have("mount.nfs") {
        if !have("mount.nfs") {
            crate::skip!(
                "mount.nfs is not installed (Debian package nfs-common; scripts/test installs it)"
            );
        }
        return;
    }
    let Some(lab) = NetLab::start("16M") else {
        return;
    };
    // A second tap in the lab's namespace, and forwarding between the two
    // (the namespace's own setting: nothing of this machine's changes).
    for args in [
        &["tuntap", "add", "dev", "iolab-tap1", "mode", "tap"][..],
        &["addr", "add", "10.212.0.1/24", "dev", "iolab-tap1"],
        &["link", "set", "iolab-tap1", "up"],
    ] {
        let made = Command::new("ip")
            .args(["-n", &lab.netns])
            .args(args)
            .status();
        assert!(made.is_ok_and(|s| s.success()), "ip {args:?}");
    }
    let forwarding = lab
        .command("sysctl")
        .args(["-qw", "net.ipv4.ip_forward=1"])
        .status();
    assert!(forwarding.is_ok_and(|s| s.success()));
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let shared = |tap: &str| format!("{GUEST},tap={tap},mount={}", lab.guest_nfs);
    let a = shared(&lab.tap);
    let b = shared("iolab-tap1");
    let _a = GuestHost::up_with(&lab, &cache, &work, &[&a, "--hostname", "guest-a"]);
    let _b = GuestHost::up_with(&lab, &cache, &work, &[&b, "--hostname", "guest-b"]);

    // Rank 0 is in guest-a: its result goes to the export, seen here.
    let received = |name: &str, reorder: bool| {
        let output = work.join(name);
        let mut args = vec![
            "--op", "read", "--size", "32m", "--bs", "1m", "--cache", "keep",
        ];
        if reorder {
            args.push("--reorder");
        }
        args.extend(["--no-report", "--dir", work.to_str().unwrap(), "-o"]);
        args.push(output.to_str().unwrap());
        let run = mpirun_on(
            &lab,
            "10.211.0.2,10.212.0.2",
            "10.211.0.0/24,10.212.0.0/24",
            &args,
        );
        assert!(run.status.success(), "{}", text(&run));
        let result = crate::util::read_result(&lab.export.join(name));
        let point = &result["points"][0];
        let repetition = &point["repetitions"][0];
        assert_eq!(repetition["status"], "ok", "{repetition}");
        let codes = crate::util::check_codes(point);
        let per_host: Vec<(String, u64)> = repetition["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|host| {
                let received: u64 = host["activity"]["network"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{host}"))
                    .iter()
                    .filter(|card| card["name"] != "lo")
                    .map(|card| card["rx_bytes"].as_u64().unwrap())
                    .sum();
                (host["host"].as_str().unwrap().to_string(), received)
            })
            .collect();
        (per_host, codes)
    };
    let (own, own_codes) = received("own.json", false);
    let (reordered, reordered_codes) = received("reordered.json", true);
    let names: Vec<&str> = own.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["guest-a", "guest-b"]);
    for (host, bytes) in &own {
        assert!(*bytes < 8 << 20, "{host} read its own cached file: {own:?}");
    }
    for (host, bytes) in &reordered {
        assert!(
            *bytes >= 32 << 20,
            "{host} read the other's file over NFS: {reordered:?}"
        );
    }
    // Served from memory without --reorder, and said so; not with it.
    assert!(
        own_codes.contains(&"working-set-in-ram".to_string()),
        "{own_codes:?}"
    );
    assert!(
        !reordered_codes.contains(&"working-set-in-ram".to_string()),
        "{reordered_codes:?}"
    );
}

/// `guest up --guest raw=on` leaves its raw disk to the commands run in it,
/// as the CLOSER study's dd had its guest's empty partition: `iolab run`
/// in the guest writes the device in place with consent and reads it back,
/// and dd reads what it wrote. (The agent held the device open exclusively,
/// and every write was refused.)
#[test]
fn a_raw_disk_guest_serving_as_a_host_gives_its_disk_to_its_commands() {
    if !have("qemu-system-x86_64") {
        crate::skip!(
            "qemu-system-x86_64 is not installed (Debian package qemu-system-x86; scripts/test installs it)"
        );
        return;
    }
    let Some(lab) = NetLab::start("16M") else {
        return;
    };
    let dir = scratch();
    let cache = crate::util::guest_cache(dir.path());
    let guest = GuestHost::up_with(
        &lab,
        &cache,
        dir.path(),
        &[&format!("{GUEST},tap={},raw=on", lab.tap)],
    );
    assert!(
        guest.said.contains("/dev/vda (none (raw device))"),
        "{}",
        guest.said
    );
    let in_guest = |command: &str| {
        lab.command(IOLAB)
            .args(["guest", "exec", GUEST_ADDRESS, command])
            .output()
            .unwrap()
    };
    let write = in_guest(&format!(
        "{IOLAB} run --file /dev/vda --destroy-data /dev/vda --op rewrite --direct --bs 1m --size 8m --verify --repeat 1 --no-report -o /tmp/w.json >/dev/null && cat /tmp/w.json"
    ));
    assert!(write.status.success(), "{}", text(&write));
    let result: Value = serde_json::from_slice(&write.stdout).unwrap();
    let point = &result["points"][0];
    assert_eq!(point["repetitions"][0]["bytes"], 8 << 20, "{point}");
    assert_eq!(point["target"]["files"][0], "/dev/vda", "{point}");
    assert_eq!(
        point["repetitions"][0]["verify"]["bad_blocks"], 0,
        "{point}"
    );
    // The device now holds iolab's sealed blocks, not zeros: dd sees them.
    let dd =
        in_guest("dd if=/dev/vda bs=1M count=8 iflag=direct 2>/dev/null | tr -d '\\0' | wc -c");
    assert!(dd.status.success(), "{}", text(&dd));
    let nonzero: u64 = String::from_utf8_lossy(&dd.stdout).trim().parse().unwrap();
    assert!(nonzero > 4 << 20, "{}", text(&dd));
    let read = in_guest(&format!(
        "{IOLAB} run --file /dev/vda --op read --direct --bs 1m --size 8m --verify --repeat 1 --no-report -o /tmp/r.json >/dev/null && cat /tmp/r.json"
    ));
    assert!(read.status.success(), "{}", text(&read));
    let result: Value = serde_json::from_slice(&read.stdout).unwrap();
    let verified = &result["points"][0]["repetitions"][0]["verify"];
    assert_eq!(verified["blocks"], 8, "{verified}");
    assert_eq!(verified["bad_blocks"], 0, "{verified}");
    drop(guest);
}
