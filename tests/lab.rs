//! `scripts/netlab` for the tests: the NFSv3 server and iSCSI target in a
//! network namespace of their own, either one lab per test (for tests that
//! kill, stop or reconfigure a server, or boot a guest on its tap) or a
//! lease on the one lab this test process shares: an export directory and a
//! LUN of the test's own, so tests run side by side without a lab each.

use crate::mounts::{have, root_or_skip};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// The NFSv3 server and iSCSI target of `scripts/netlab`, in a network
/// namespace of their own, stopped (by the pids netlab recorded) and removed
/// when dropped, also when a test panics.
pub struct NetLab {
    /// The namespace: clients run inside it (`ip netns exec`).
    pub netns: String,
    /// `nfs://127.0.0.1/export?version=3`.
    pub nfs: String,
    /// `iscsi://127.0.0.1:3260/IQN/1`.
    pub iscsi: String,
    /// The tap device guests boot on (`iolab-tap0`).
    pub tap: String,
    /// The export as a guest on the tap reaches it (`nfs://10.211.0.1/export?version=3`).
    pub guest_nfs: String,
    /// The LUN as a guest on the tap reaches it (`iscsi://10.211.0.1:3260/IQN/1`).
    pub guest_iscsi: String,
    /// The exported directory, as the server sees it.
    pub export: PathBuf,
    /// The LUN's backing file, as the target sees it.
    pub lun: PathBuf,
    dir: PathBuf,
    /// On the shared lab: the lease (its export directory and LUN go back
    /// when it drops; the lab stays). `None`: the lab is this test's.
    lease: Option<Lease>,
}

/// What a test holds of the shared lab.
struct Lease {
    /// The LUN it was lent, if it asked for one.
    lun: Option<u32>,
}

/// The LUNs the shared lab serves besides netlab's own (LUN 1), by size, as
/// the tests ask for them. All are made before the first test logs in: a LUN
/// added or removed later would greet every session with a UNIT ATTENTION
/// (REPORTED LUNS DATA HAS CHANGED), which iolab's synchronous commands send
/// again but its timed, queued I/O reports as the repetition's failure.
const LUN_POOL: [&str; 7] = ["16M", "16M", "32M", "32M", "32M", "64M", "64M"];

/// The lab this test process shares, started by the first lease and stopped
/// when the process exits (`atexit`: a static is never dropped).
struct Shared {
    lab: NetLab,
    /// LUN numbers not lent, by their index in [`LUN_POOL`] (number - 2).
    free: std::sync::Mutex<Vec<u32>>,
    returned: std::sync::Condvar,
}

static SHARED: OnceLock<Shared> = OnceLock::new();

extern "C" fn stop_shared() {
    if let Some(shared) = SHARED.get() {
        shared.lab.stop();
    }
}

impl Shared {
    /// The shared lab, started (with its LUN pool) on first use; `None`
    /// (the skip counted) where the lab cannot run here.
    fn get() -> Option<&'static Shared> {
        if !NetLab::can_start() {
            return None;
        }
        Some(SHARED.get_or_init(|| {
            let lab = NetLab::start("16M").expect("the prerequisites were checked");
            // SAFETY: registers a plain function to run at exit.
            assert_eq!(unsafe { libc::atexit(stop_shared) }, 0, "atexit");
            let numbers: Vec<u32> = (2..).take(LUN_POOL.len()).collect();
            for (&number, size) in numbers.iter().zip(LUN_POOL) {
                let file = Shared::lun_file(&lab.dir, number);
                let made = Command::new("truncate")
                    .args(["-s", size])
                    .arg(&file)
                    .status();
                assert!(made.is_ok_and(|s| s.success()), "truncate -s {size}");
                let number = number.to_string();
                lab.tgtadm(&[
                    "--op",
                    "new",
                    "--mode",
                    "logicalunit",
                    "--tid",
                    "1",
                    "--lun",
                    &number,
                    "-b",
                    file.to_str().expect("a UTF-8 path"),
                    "--bsoflags",
                    "direct",
                ]);
                assert!(lab.thin_provisioning(&number, true), "LUN {number} thin");
            }
            Shared {
                lab,
                free: std::sync::Mutex::new(numbers),
                returned: std::sync::Condvar::new(),
            }
        }))
    }

    fn lun_file(dir: &Path, number: u32) -> PathBuf {
        dir.join(format!("lun-{number}.img"))
    }

    /// A free LUN of `size` from the pool, waiting for one to come back.
    fn take_lun(&self, size: &str) -> u32 {
        let size_of = |number: u32| LUN_POOL[number as usize - 2];
        assert!(LUN_POOL.contains(&size), "no LUN of {size} in the pool");
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(at) = free.iter().position(|&n| size_of(n) == size) {
                return free.swap_remove(at);
            }
            free = self.returned.wait(free).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A lease of the export directory `name` and, when given, LUN `lun`.
    fn lease(&self, name: &str, lun: Option<u32>) -> NetLab {
        let lab = &self.lab;
        let export = lab.export.join(name);
        assert!(
            std::fs::create_dir(&export).is_ok(),
            "a second lease named {name} on the shared lab"
        );
        NetLab {
            netns: lab.netns.clone(),
            nfs: lab.nfs.replace("/export?", &format!("/export/{name}?")),
            iscsi: String::new(),
            tap: lab.tap.clone(),
            guest_nfs: lab.guest_nfs.clone(),
            guest_iscsi: lab.guest_iscsi.clone(),
            export,
            lun: PathBuf::new(),
            dir: lab.dir.clone(),
            lease: Some(Lease { lun }),
        }
    }

    /// Takes LUN `number` back, emptied and thin-provisioned again, as the
    /// next lease expects it.
    fn give_back(&self, number: u32) {
        let lab = &self.lab;
        let file = Shared::lun_file(&lab.dir, number);
        let size = std::fs::metadata(&file).map(|m| m.len()).unwrap_or(0);
        // Emptied in place: the target keeps its descriptor of the file.
        let emptied = std::fs::OpenOptions::new()
            .write(true)
            .open(&file)
            .and_then(|f| f.set_len(0).and_then(|()| f.set_len(size)));
        let number_text = number.to_string();
        let provisioned = lab.thin_provisioning(&number_text, true);
        if emptied.is_err() || !provisioned {
            // Not lent again: a test would find someone else's data.
            eprintln!("LUN {number} of the shared lab could not be emptied; not lent again");
            return;
        }
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(number);
        self.returned.notify_all();
    }
}

impl NetLab {
    /// Starts the servers, or `None` with the reason printed when the tests
    /// do not run as root or a package is missing (scripts/test installs them).
    pub fn start(lun_size: &str) -> Option<NetLab> {
        if !Self::can_start() {
            return None;
        }
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let netns = format!("iolab-t{}-{n}", std::process::id());
        let dir = std::env::temp_dir().join(&netns);
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/netlab");
        let output = Command::new(&script)
            .args(["start", "--name", &netns, "--lun-size", lun_size, "--dir"])
            .arg(&dir)
            .output()
            .expect("scripts/netlab runs");
        let mut lab = NetLab {
            netns,
            nfs: String::new(),
            iscsi: String::new(),
            tap: String::new(),
            guest_nfs: String::new(),
            guest_iscsi: String::new(),
            export: dir.join("export"),
            lun: dir.join("lun.img"),
            dir,
            lease: None,
        };
        // From here on, dropping `lab` stops whatever started.
        assert!(
            output.status.success(),
            "scripts/netlab start failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let value = |key: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(&format!("{key}=")))
                .unwrap_or_else(|| panic!("scripts/netlab printed no {key}=: {text}"))
                .to_string()
        };
        (lab.nfs, lab.iscsi) = (value("nfs"), value("iscsi"));
        (lab.tap, lab.guest_nfs, lab.guest_iscsi) =
            (value("tap"), value("guest_nfs"), value("guest_iscsi"));
        Some(lab)
    }

    /// A lease on the shared lab: the export's directory `name` (created
    /// empty; its URL is [`NetLab::nfs`]) and a LUN of `lun_size` of its own
    /// ([`NetLab::iscsi`], [`NetLab::lun`]; one of [`LUN_POOL`]'s, waited
    /// for when all of that size are leased), the directory removed and the
    /// LUN emptied when the lease drops. `None` (the skip counted) where the
    /// lab cannot run here.
    pub fn shared(name: &str, lun_size: &str) -> Option<NetLab> {
        let shared = Shared::get()?;
        let number = shared.take_lun(lun_size);
        let mut lab = shared.lease(name, Some(number));
        let (target, _) = shared
            .lab
            .iscsi
            .rsplit_once('/')
            .expect("netlab's LUN URL ends in /1");
        lab.iscsi = format!("{target}/{number}");
        lab.lun = Shared::lun_file(&shared.lab.dir, number);
        Some(lab)
    }

    /// A lease on the shared lab's export only: the directory `name`, as
    /// [`NetLab::shared`], without a LUN (`iscsi` is empty).
    pub fn shared_export(name: &str) -> Option<NetLab> {
        Some(Shared::get()?.lease(name, None))
    }

    /// Whether this machine can run the lab; the skip counted when not.
    fn can_start() -> bool {
        root_or_skip("the NFS and iSCSI servers")
            && ["rpcbind", "ganesha.nfsd", "tgtd", "ethtool"]
                .iter()
                .all(|program| have(program))
    }

    /// [`NetLab::nfs`] without its query: the directory's URL, as iolab
    /// names the files in it.
    pub fn nfs_dir(&self) -> &str {
        self.nfs.split('?').next().unwrap_or(&self.nfs)
    }

    /// This lab's LUN number in [`NetLab::iscsi`] (1 on a lab of its own).
    pub fn lun_number(&self) -> u32 {
        self.lease
            .as_ref()
            .map_or(Some(1), |lease| lease.lun)
            .expect("a lease with a LUN")
    }

    /// A command that runs `program` inside the namespace.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new("ip");
        command.args(["netns", "exec", &self.netns]).arg(program);
        // iolab's tables whole, one row a line, as `util::iolab` lays them.
        command.env("COLUMNS", "10000");
        command
    }

    /// `lab`, when libnfs can be loaded too (the skip counted when not).
    pub fn with_nfs(lab: Option<NetLab>) -> Option<NetLab> {
        let lab = lab?;
        if let Err(reason) = iolab::engine::nfs::libnfs::available() {
            crate::skip!("{reason}");
            return None;
        }
        Some(lab)
    }

    /// `iolab ARGS` started inside the namespace from `cwd`, its stdout
    /// dropped and its stderr piped, for a test that acts while it runs.
    pub fn spawn_iolab(&self, cwd: &Path, args: &[&str]) -> std::process::Child {
        self.command(env!("CARGO_BIN_EXE_iolab"))
            .args(args)
            .current_dir(cwd)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("iolab starts")
    }

    /// `iolab ARGS` inside the namespace, from `cwd`.
    pub fn iolab(&self, cwd: &Path, args: &[&str]) -> std::process::Output {
        self.command(env!("CARGO_BIN_EXE_iolab"))
            .args(args)
            .current_dir(cwd)
            .output()
            .expect("iolab runs")
    }

    /// Runs tgtadm against this lab's tgtd, whose control socket is in the
    /// lab's private /run (entered through tgtd's mount namespace).
    pub fn tgtadm(&self, args: &[&str]) {
        self.tgtadm_output(args);
    }

    /// What tgtadm prints for `args` against this lab's tgtd.
    pub fn tgtadm_output(&self, args: &[&str]) -> String {
        let output = self.tgtadm_command(args).output().expect("nsenter runs");
        assert!(
            output.status.success(),
            "tgtadm {args:?}: {}",
            output.status
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Turns logical block provisioning of LUN `number` on or off (UNMAP
    /// taken or refused); whether tgtadm succeeded.
    pub fn thin_provisioning(&self, number: &str, on: bool) -> bool {
        let value = format!("thin_provisioning={}", u8::from(on));
        self.tgtadm_status(&[
            "--op",
            "update",
            "--mode",
            "logicalunit",
            "--tid",
            "1",
            "--lun",
            number,
            "--params",
            &value,
        ])
    }

    /// Whether tgtadm `args` succeeded against this lab's tgtd.
    fn tgtadm_status(&self, args: &[&str]) -> bool {
        self.tgtadm_command(args)
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    fn tgtadm_command(&self, args: &[&str]) -> Command {
        let pid = std::fs::read_to_string(self.dir.join("tgtd.pid")).unwrap_or_default();
        let mut command = Command::new("nsenter");
        command
            .args([
                "--target",
                pid.trim(),
                "--mount",
                "tgtadm",
                "--lld",
                "iscsi",
            ])
            .args(args);
        command
    }

    /// Kills `server` (`rpcbind`, `ganesha` or `tgtd`) at once, as a crash would.
    pub fn kill(&self, server: &str) {
        assert!(
            self.lease.is_none(),
            "a test that kills a server starts its own lab"
        );
        let pid = std::fs::read_to_string(self.dir.join(format!("{server}.pid")))
            .expect("netlab recorded the pid");
        let pid: i32 = pid.trim().parse().expect("a pid");
        // SAFETY: a plain kill(2) of the server this fixture started.
        assert_eq!(
            unsafe { libc::kill(pid, libc::SIGKILL) },
            0,
            "kill {server} ({pid})"
        );
    }

    /// The servers' pids (rpcbind, ganesha, tgtd), as netlab recorded them.
    pub fn pids(&self) -> Vec<u32> {
        ["rpcbind", "ganesha", "tgtd"]
            .iter()
            .filter_map(|server| {
                std::fs::read_to_string(self.dir.join(format!("{server}.pid"))).ok()
            })
            .filter_map(|pid| pid.trim().parse().ok())
            .collect()
    }
}

impl NetLab {
    /// Ends the servers and removes the namespace and the lab's directory.
    fn stop(&self) {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/netlab");
        let stopped = Command::new(script)
            .args(["stop", "--name", &self.netns, "--dir"])
            .arg(&self.dir)
            .status();
        if !stopped.is_ok_and(|s| s.success()) {
            eprintln!("scripts/netlab stop --name {} failed", self.netns);
        }
    }
}

impl Drop for NetLab {
    fn drop(&mut self) {
        let Some(lease) = &self.lease else {
            return self.stop();
        };
        // No panic in a drop (a failing test may be unwinding through it).
        if let (Some(number), Some(shared)) = (lease.lun, SHARED.get()) {
            shared.give_back(number);
        }
        let _ = std::fs::remove_dir_all(&self.export);
    }
}
