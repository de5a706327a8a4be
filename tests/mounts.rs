//! Real file systems for tests that need root: loop-device ext4/xfs and an sshfs mount over loopback, torn down when dropped (also when a test panics).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether the tests run as root; prints why the calling test skips when not.
pub fn root_or_skip(what: &str) -> bool {
    let root = rustix::process::geteuid().is_root();
    if !root {
        crate::skip!("{what} needs root");
    }
    root
}

/// Whether `program` can be found (sbin included); prints why the test skips when not.
pub fn have(program: &str) -> bool {
    let found = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        .iter()
        .any(|dir| Path::new(dir).join(program).exists());
    if !found {
        crate::skip!("{program} is not installed (scripts/test installs it)");
    }
    found
}

/// Runs a system command; its stdout, or an error with its stderr.
pub fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("{program}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{program} {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// A file system made on a loop device over an image file in `parent`.
pub struct LoopFs {
    mount_point: PathBuf,
    device: Option<String>,
    mounted: bool,
    image: PathBuf,
}

impl LoopFs {
    /// Makes a `size_mib` MiB image in `parent`, attaches it, makes `fstype`
    /// on it and mounts it; whatever was set up is undone on failure.
    pub fn new(parent: &Path, fstype: &str, size_mib: u64) -> Result<LoopFs, String> {
        LoopFs::with_options(parent, fstype, size_mib, false)
    }

    /// As [`LoopFs::new`]; with `direct_io` the loop device reads and writes
    /// its backing file with O_DIRECT (`losetup --direct-io=on`), so the disk
    /// below sees the I/O when it happens rather than through the page cache.
    pub fn with_options(
        parent: &Path,
        fstype: &str,
        size_mib: u64,
        direct_io: bool,
    ) -> Result<LoopFs, String> {
        LoopFs::made(parent, fstype, size_mib, direct_io, &[])
    }

    /// An ext4 of `size_mib` MiB with room for only `inodes` inodes
    /// (`mkfs.ext4 -N`): a table a metadata workload can fill.
    pub fn ext4_with_inodes(parent: &Path, size_mib: u64, inodes: u64) -> Result<LoopFs, String> {
        LoopFs::made(
            parent,
            "ext4",
            size_mib,
            false,
            &["-N", &inodes.to_string()],
        )
    }

    fn made(
        parent: &Path,
        fstype: &str,
        size_mib: u64,
        direct_io: bool,
        mkfs_options: &[&str],
    ) -> Result<LoopFs, String> {
        let image = parent.join(format!("{fstype}.img"));
        let mount_point = parent.join(format!("{fstype}-mnt"));
        std::fs::create_dir(&mount_point).map_err(|e| e.to_string())?;
        let file = std::fs::File::create(&image).map_err(|e| e.to_string())?;
        file.set_len(size_mib << 20).map_err(|e| e.to_string())?;
        let mut fs = LoopFs {
            mount_point,
            device: None,
            mounted: false,
            image,
        };
        let image = fs.image.to_str().unwrap().to_string();
        let direct = if direct_io {
            "--direct-io=on"
        } else {
            "--direct-io=off"
        };
        fs.device = Some(run("losetup", &["--find", "--show", direct, &image])?);
        let device = fs.device.clone().unwrap();
        match fstype {
            // Without lazy init, ext4 writes no inode tables in the background
            // after mounting, which would add to the device's counters.
            "ext4" => {
                let mut args = vec!["-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0"];
                args.extend_from_slice(mkfs_options);
                args.push(&device);
                run("mkfs.ext4", &args)?
            }
            "xfs" => run("mkfs.xfs", &["-q", "-f", &device])?,
            other => return Err(format!("no mkfs for {other}")),
        };
        run("mount", &[&device, fs.mount_point.to_str().unwrap()])?;
        fs.mounted = true;
        Ok(fs)
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        &self.mount_point
    }

    /// The loop device's kernel name (`loop3`).
    pub fn device_name(&self) -> String {
        self.device
            .as_deref()
            .and_then(|d| d.strip_prefix("/dev/"))
            .unwrap_or_default()
            .to_string()
    }
}

impl LoopFs {
    /// Mounts the file system again with `options` (`ro`, `rw`).
    pub fn remount(&self, options: &str) -> Result<(), String> {
        run(
            "mount",
            &[
                "-o",
                &format!("remount,{options}"),
                self.mount_point.to_str().unwrap(),
            ],
        )
        .map(drop)
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        if self.mounted {
            let mount_point = self.mount_point.to_str().unwrap();
            if run("umount", &[mount_point]).is_err() {
                let _ = run("umount", &["--lazy", mount_point]);
            }
        }
        if let Some(device) = &self.device {
            let _ = run("losetup", &["--detach", device]);
        }
        let _ = std::fs::remove_file(&self.image);
    }
}

/// An sshd bound to 127.0.0.1 on a free port, and an sshfs mount of a
/// directory it serves: a real network file system whose traffic crosses `lo`.
pub struct SshfsMount {
    mount_point: PathBuf,
    sshd: Option<Child>,
    mounted: bool,
}

impl SshfsMount {
    /// Starts sshd with keys made in `parent` and mounts `parent/remote` on `parent/mnt`.
    pub fn new(parent: &Path) -> Result<SshfsMount, String> {
        SshfsMount::with_options(parent, "")
    }

    /// As [`SshfsMount::new`], or `None` with the reason printed when the
    /// tests do not run as root, a program is missing or the mount fails.
    pub fn or_skip(parent: &Path) -> Option<SshfsMount> {
        if !root_or_skip("mounting sshfs")
            || !["sshd", "sshfs", "fusermount3"].iter().all(|p| have(p))
        {
            return None;
        }
        SshfsMount::new(parent)
            .map_err(|error| crate::skip!("cannot mount sshfs here: {error}"))
            .ok()
    }

    /// As [`SshfsMount::new`], with sshfs `-o` options added (`kernel_cache`
    /// keeps file pages cached in this kernel across opens).
    pub fn with_options(parent: &Path, extra: &str) -> Result<SshfsMount, String> {
        let at = |name: &str| parent.join(name).to_str().unwrap().to_string();
        let mut fixture = SshfsMount {
            mount_point: parent.join("mnt"),
            sshd: None,
            mounted: false,
        };
        for dir in ["remote", "mnt"] {
            std::fs::create_dir(parent.join(dir)).map_err(|e| e.to_string())?;
        }
        // sshd refuses to start without its privilege-separation directory.
        std::fs::create_dir_all("/run/sshd").map_err(|e| e.to_string())?;
        for key in ["host_key", "client_key"] {
            run(
                "ssh-keygen",
                &["-q", "-t", "ed25519", "-N", "", "-f", &at(key)],
            )?;
        }
        std::fs::copy(at("client_key.pub"), at("authorized_keys")).map_err(|e| e.to_string())?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nAuthorizedKeysFile {}\n\
             PermitRootLogin prohibit-password\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n\
             PidFile {}\nSubsystem sftp internal-sftp\n",
            at("host_key"),
            at("authorized_keys"),
            at("sshd.pid")
        );
        std::fs::write(at("sshd_config"), config).map_err(|e| e.to_string())?;
        let sshd = Command::new("/usr/sbin/sshd")
            .args(["-D", "-f", &at("sshd_config"), "-E", &at("sshd.log")])
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| format!("sshd: {e}"))?;
        fixture.sshd = Some(sshd);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                let log = std::fs::read_to_string(at("sshd.log")).unwrap_or_default();
                return Err(format!("sshd did not listen on port {port}: {log}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let mut options = format!(
            "IdentityFile={},StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,port={port},BatchMode=yes",
            at("client_key")
        );
        if !extra.is_empty() {
            options = format!("{options},{extra}");
        }
        run(
            "sshfs",
            &[
                "-o",
                &options,
                &format!("root@127.0.0.1:{}", at("remote")),
                &at("mnt"),
            ],
        )?;
        fixture.mounted = true;
        Ok(fixture)
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        &self.mount_point
    }

    /// The pid of the sshfs daemon serving the mount (to stop it on purpose).
    pub fn daemon_pid(&self) -> Option<u32> {
        let pattern = format!("^sshfs .*{}$", self.mount_point.display());
        run("pgrep", &["-f", &pattern])
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for SshfsMount {
    fn drop(&mut self) {
        if self.mounted {
            let mount_point = self.mount_point.to_str().unwrap();
            if run("fusermount3", &["-u", mount_point]).is_err() {
                let _ = run("umount", &["--lazy", mount_point]);
            }
        }
        if let Some(mut sshd) = self.sshd.take() {
            let _ = sshd.kill();
            let _ = sshd.wait();
        }
    }
}

/// A tmpfs mounted for one test, unmounted when dropped (also when the test panics).
pub struct TmpfsMount(PathBuf);

impl TmpfsMount {
    /// Mounts a tmpfs with `options` on a new directory `name` inside `parent`;
    /// `None` (with the reason printed) when not root or mounting fails.
    pub fn new(parent: &Path, name: &str, options: &str) -> Option<TmpfsMount> {
        let target = parent.join(name);
        std::fs::create_dir(&target).unwrap();
        if !root_or_skip("mounting a tmpfs") {
            return None;
        }
        if run(
            "mount",
            &[
                "-t",
                "tmpfs",
                "-o",
                options,
                "iolab-test",
                target.to_str().unwrap(),
            ],
        )
        .is_err()
        {
            crate::skip!("cannot mount a tmpfs ({options}) here");
            return None;
        }
        Some(TmpfsMount(target))
    }

    /// The mount point.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TmpfsMount {
    fn drop(&mut self) {
        let _ = run("umount", &[self.0.to_str().unwrap()]);
    }
}

/// A loop device over an image file with no file system on it: a block
/// device whose every byte the test controls. Detached when dropped.
pub struct LoopDevice {
    device: String,
    image: PathBuf,
    /// Partition nodes this fixture made (no udev in a container).
    nodes: Vec<PathBuf>,
}

impl LoopDevice {
    /// A `size_mib` MiB device filled with `fill` (with a partition table
    /// when asked), or `None` after saying why it cannot be had here (not
    /// root, no losetup or sfdisk, no loop devices in this container).
    pub fn or_skip(
        parent: &Path,
        size_mib: u64,
        fill: u8,
        partition_table: bool,
    ) -> Option<LoopDevice> {
        if !root_or_skip("a loop device")
            || !have("losetup")
            || (partition_table && !have("sfdisk"))
        {
            return None;
        }
        match LoopDevice::new(parent, size_mib, fill, partition_table) {
            Ok(device) => Some(device),
            Err(error) => {
                crate::skip!("cannot attach a loop device here: {error}");
                None
            }
        }
    }

    /// Attaches a `size_mib` MiB image in `parent` filled with `fill`; with
    /// `partition_table`, a GPT with two partitions is written first and the
    /// device is attached with partition scanning.
    pub fn new(
        parent: &Path,
        size_mib: u64,
        fill: u8,
        partition_table: bool,
    ) -> Result<LoopDevice, String> {
        let image = parent.join("device.img");
        std::fs::write(&image, vec![fill; (size_mib << 20) as usize]).map_err(|e| e.to_string())?;
        let image_arg = image.to_str().unwrap().to_string();
        if partition_table {
            let mut sfdisk = Command::new("sfdisk")
                .args(["-q", &image_arg])
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .map_err(|e| format!("sfdisk: {e}"))?;
            use std::io::Write;
            sfdisk
                .stdin
                .take()
                .unwrap()
                .write_all(b"label: gpt\n,16M\n,\n")
                .map_err(|e| e.to_string())?;
            if !sfdisk.wait().map_err(|e| e.to_string())?.success() {
                return Err("sfdisk failed".to_string());
            }
        }
        let mut args = vec!["--find", "--show", &image_arg];
        if partition_table {
            args.push("--partscan");
        }
        let device = run("losetup", &args)?;
        if partition_table {
            // The kernel's scan at attach time does not always register the
            // partitions (seen in containers); partx adds them from the table.
            let first = format!("/sys/class/block/{}p1", device.trim_start_matches("/dev/"));
            if !Path::new(&first).exists() {
                let _ = run("partx", &["--add", &device]);
            }
        }
        Ok(LoopDevice {
            device,
            image,
            nodes: Vec::new(),
        })
    }

    /// `/dev/loopN`.
    pub fn path(&self) -> &str {
        &self.device
    }

    /// The backing image, to check what reached the device.
    pub fn image(&self) -> &Path {
        &self.image
    }

    /// `/dev/loopNpM`, making the node from sysfs when no udev made it.
    pub fn partition(&mut self, number: u32) -> Result<String, String> {
        let name = format!("{}p{number}", self.device.trim_start_matches("/dev/"));
        let node = PathBuf::from("/dev").join(&name);
        if !node.exists() {
            let deadline = Instant::now() + Duration::from_secs(5);
            let dev = loop {
                match std::fs::read_to_string(format!("/sys/class/block/{name}/dev")) {
                    Ok(dev) => break dev,
                    Err(_) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(50))
                    }
                    Err(e) => return Err(format!("{name} did not appear in sysfs: {e}")),
                }
            };
            let (major, minor) = dev.trim().split_once(':').ok_or("bad dev")?;
            run("mknod", &[node.to_str().unwrap(), "b", major, minor])?;
            self.nodes.push(node.clone());
        }
        Ok(node.to_str().unwrap().to_string())
    }
}

impl Drop for LoopDevice {
    fn drop(&mut self) {
        for node in &self.nodes {
            let _ = std::fs::remove_file(node);
        }
        let _ = run("losetup", &["--detach", &self.device]);
        let _ = std::fs::remove_file(&self.image);
    }
}
