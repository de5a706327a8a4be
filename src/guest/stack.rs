//! The kernel stacks the agent sets up in the guest before measuring and takes down after: the network link on the tap, an export mounted by the kernel's NFS v3 client, an iSCSI LUN logged in to through open-iscsi with ext3 or ext4 made on it, a logical volume or a delay target over the guest's disk; each step undone in reverse order, also when a later one fails.

use crate::plan::guest::{GuestFilesystem, GuestMount, GuestSpec, NfsMountMode};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Where the file system under test is mounted in the guest.
pub(crate) const DISK_MOUNT: &str = "/iolab-disk";
/// The label of every file system iolab makes on an iSCSI LUN: a later run
/// may make one again over it (a killed guest's), and over nothing else.
pub(crate) const SCRATCH_LABEL: &str = "iolab-scratch";
/// The initiator name the guest logs in with: the same at every boot, so a
/// login replaces the session a killed guest left on the target (session
/// reinstatement) instead of adding one.
const INITIATOR: &str = "iqn.2026-11.org.iolab:guest";
/// The volume group and logical volume of `lvm=on`.
const VOLUME_GROUP: &str = "iolab";
const LOGICAL_VOLUME: &str = "disk";
/// The device-mapper name of `delay=`'s target.
const DELAY_TARGET: &str = "iolab-delay";
/// LVM without udev (the guest runs none): device nodes made by LVM
/// itself, no monitoring daemons, no metadata backups in the overlay.
const LVM_CONFIG: &str = "activation { udev_sync = 0 udev_rules = 0 monitoring = 0 } \
     devices { obtain_device_list_from_udev = 0 } global { use_lvmpolld = 0 } \
     backup { backup = 0 archive = 0 }";

/// Why a stack could not be set up.
#[derive(Debug)]
pub(crate) enum StackError {
    /// Bad input (an unreachable server, a failed login or mount, a LUN
    /// holding someone's file system): said in one line, exit status 2.
    Refused(String),
    /// Something else failed.
    Failed(String),
}

/// A step to undo at the end.
enum Undo {
    Unmount,
    /// The disk's second mount point, when the guest serves as a host.
    UnmountBind(PathBuf),
    Logout {
        target: String,
        portal: String,
    },
    StopIscsid,
    /// Wipes the signature of the file system iolab made on this device.
    Wipe(PathBuf),
    Deactivate,
    RemoveDelay,
}

/// What the agent measures in, and how to take it down.
pub(crate) struct Stack {
    /// The device under the file system (`/dev/vda`, `/dev/dm-0`,
    /// `/dev/sda`) or the export mounted (`10.211.0.1:/export`).
    pub device: String,
    /// The file system measured in (`ext4`, `ext3`, `nfs`).
    pub filesystem: String,
    /// Whether it goes through a client kernel's cache that holds writes
    /// (a network mount or a logical volume): timed repetitions then write
    /// back before their counts end.
    pub counts_write_back: bool,
    /// With `raw=on`: the device the points write and read themselves,
    /// with no file system on it (the top of the stack: the disk, or the
    /// delay target or logical volume over it).
    pub raw_device: Option<PathBuf>,
    undo: Vec<Undo>,
}

impl Stack {
    /// Sets up what `spec` asks for: the link on `address`, then the mount
    /// or the disk (`make_filesystem`: the agent makes the image's file
    /// system), mounted at [`DISK_MOUNT`].
    pub(crate) fn set_up(
        spec: &GuestSpec,
        address: Option<&str>,
        make_filesystem: bool,
    ) -> Result<Stack, StackError> {
        let mut stack = Stack {
            device: String::new(),
            filesystem: spec.filesystem().name(),
            counts_write_back: spec.mount.is_some() || spec.lvm,
            raw_device: None,
            undo: Vec::new(),
        };
        std::fs::create_dir_all(DISK_MOUNT)
            .map_err(|e| StackError::Failed(format!("{DISK_MOUNT}: {e}")))?;
        if let Some(address) = address {
            link_up(address)?;
        }
        let set_up = match spec.mount() {
            Some(GuestMount::Nfs(url)) => stack.mount_nfs(&url, spec.nfs.unwrap_or_default()),
            Some(GuestMount::Iscsi(url)) => stack.log_in(&url, spec.filesystem()),
            None => stack.local_disk(spec, make_filesystem),
        };
        // A failure takes down what was set up (Drop does).
        set_up.map(|()| stack)
    }

    fn mount_nfs(
        &mut self,
        url: &crate::engine::nfs::url::NfsUrl,
        mode: NfsMountMode,
    ) -> Result<(), StackError> {
        // No lock manager (netlab's server runs none) and one try: an
        // unreachable server fails the mount instead of retrying for minutes.
        let mut options = "vers=3,proto=tcp,nolock,retry=0".to_string();
        if mode == NfsMountMode::Sync {
            options.push_str(",sync");
        }
        if let Some(port) = url.nfs_port {
            options.push_str(&format!(",port={port}"));
        }
        if let Some(port) = url.mount_port {
            options.push_str(&format!(",mountport={port}"));
        }
        let source = format!("{}:{}", url.host, url.path);
        run(Command::new("mount").args(["-t", "nfs", "-o", &options, &source, DISK_MOUNT]))
            .map_err(|why| {
                StackError::Refused(format!(
                    "--guest mount={}: the guest's kernel could not mount it: {why}",
                    url.text
                ))
            })?;
        self.undo.push(Undo::Unmount);
        self.device = source;
        self.filesystem = "nfs".to_string();
        Ok(())
    }

    fn log_in(
        &mut self,
        url: &crate::engine::iscsi::url::IscsiUrl,
        filesystem: GuestFilesystem,
    ) -> Result<(), StackError> {
        let refused =
            |why: String| StackError::Refused(format!("--guest mount={}: {why}", url.text));
        // iscsid's lock directory and the initiator's name live in the
        // guest's overlay, never in the host's files.
        std::fs::create_dir_all("/run/lock/iscsi")
            .and_then(|()| {
                std::fs::write(
                    "/etc/iscsi/initiatorname.iscsi",
                    format!("InitiatorName={INITIATOR}\n"),
                )
            })
            .map_err(|e| {
                StackError::Failed(format!(
                    "open-iscsi's files in the guest: {e} (Debian package open-iscsi on the host)"
                ))
            })?;
        run(&mut Command::new("iscsid")).map_err(|why| {
            StackError::Failed(format!(
                "iscsid: {why} (Debian package open-iscsi on the host)"
            ))
        })?;
        self.undo.push(Undo::StopIscsid);
        let portal = format!("{}:{}", url.host, url.port);
        let node = ["-m", "node", "-T", &url.target, "-p", &portal];
        run(Command::new("iscsiadm").args(node).args(["-o", "new"]))
            .map_err(|why| refused(format!("iscsiadm: {why}")))?;
        run(Command::new("iscsiadm").args(node).arg("--login"))
            .map_err(|why| refused(format!("the guest's initiator could not log in: {why}")))?;
        self.undo.push(Undo::Logout {
            target: url.target.clone(),
            portal,
        });
        let device = wait_for_lun(url.lun).ok_or_else(|| {
            refused(format!(
                "no disk of LUN {} appeared after the login",
                url.lun
            ))
        })?;
        if let Some(found) = foreign_signature(&device) {
            return Err(refused(format!(
                "refusing to make a file system on it: it holds {found}; nothing was written"
            )));
        }
        make(&device, filesystem)?;
        self.undo.push(Undo::Wipe(device.clone()));
        mount(&device, filesystem)?;
        self.undo.push(Undo::Unmount);
        self.device = device.display().to_string();
        Ok(())
    }

    fn local_disk(&mut self, spec: &GuestSpec, make_filesystem: bool) -> Result<(), StackError> {
        let disk = find_disk().map_err(StackError::Failed)?;
        let filesystem = spec.filesystem();
        self.device = disk.display().to_string();
        let mut device = disk.clone();
        if let Some(ms) = spec.delay_ms {
            device = self.delay(&disk, ms)?;
        }
        if spec.lvm {
            let lvm = |args: &[&str]| {
                run(Command::new("lvm")
                    .env("DM_DISABLE_UDEV", "1")
                    .arg(args[0])
                    .args(["--config", LVM_CONFIG])
                    .args(&args[1..]))
                .map_err(|why| {
                    StackError::Failed(format!(
                        "lvm {}: {why} (Debian package lvm2 on the host)",
                        args[0]
                    ))
                })
            };
            std::fs::create_dir_all("/run/lock/lvm")
                .map_err(|e| StackError::Failed(format!("/run/lock/lvm: {e}")))?;
            let disk_text = disk.display().to_string();
            // The image is iolab's: an earlier boot's volume group on it is overwritten.
            lvm(&["pvcreate", "-ff", "-y", &disk_text])?;
            lvm(&["vgcreate", VOLUME_GROUP, &disk_text])?;
            self.undo.push(Undo::Deactivate);
            lvm(&[
                "lvcreate",
                "-y",
                "-Wn",
                "-Zn",
                "-l",
                "100%FREE",
                "-n",
                LOGICAL_VOLUME,
                VOLUME_GROUP,
            ])?;
            device =
                mapper_device(&format!("{VOLUME_GROUP}-{LOGICAL_VOLUME}")).ok_or_else(|| {
                    StackError::Failed(format!(
                        "no device-mapper device for {VOLUME_GROUP}/{LOGICAL_VOLUME} after lvcreate"
                    ))
                })?;
        }
        if spec.raw {
            // The image is iolab's, made for this guest: written as it is,
            // an earlier boot's file system signature wiped first (another
            // configuration of the plan may have made one on it).
            run(Command::new("wipefs").args(["-a", "-q"]).arg(&device))
                .map_err(|why| StackError::Failed(format!("wipefs {}: {why}", device.display())))?;
            self.filesystem = "none (raw device)".to_string();
            self.raw_device = Some(device);
            return Ok(());
        }
        if make_filesystem {
            make(&device, filesystem)?;
        }
        mount(&device, filesystem)?;
        self.undo.push(Undo::Unmount);
        Ok(())
    }

    /// A device-mapper delay target over all of `disk`, adding `ms` to every
    /// read, write and flush: its `/dev/dm-N`.
    fn delay(&mut self, disk: &Path, ms: u32) -> Result<PathBuf, StackError> {
        let name = disk.file_name().map(|n| n.to_string_lossy().into_owned());
        let sectors = name
            .and_then(|name| {
                std::fs::read_to_string(Path::new("/sys/block").join(name).join("size")).ok()
            })
            .and_then(|text| text.trim().parse::<u64>().ok())
            .ok_or_else(|| StackError::Failed(format!("the size of {}", disk.display())))?;
        let table = format!("0 {sectors} delay {} 0 {ms}", disk.display());
        run(Command::new("dmsetup").env("DM_DISABLE_UDEV", "1").args([
            "create",
            DELAY_TARGET,
            "--noudevsync",
            "--table",
            &table,
        ]))
        .map_err(|why| {
            StackError::Failed(format!(
                "dmsetup: {why} (Debian package dmsetup on the host)"
            ))
        })?;
        self.undo.push(Undo::RemoveDelay);
        mapper_device(DELAY_TARGET).ok_or_else(|| {
            StackError::Failed(format!(
                "no device-mapper device {DELAY_TARGET} after dmsetup"
            ))
        })
    }

    /// Makes the guest a host as `host` says: its host name set, and the
    /// disk also mounted at the host's directory under test.
    pub(crate) fn serve_as_host(
        &mut self,
        host: &crate::guest::channel::AsHost,
    ) -> Result<(), StackError> {
        rustix::system::sethostname(host.hostname.as_bytes())
            .map_err(|e| StackError::Failed(format!("the host name {}: {e}", host.hostname)))?;
        // In the guest's overlay: the host's directory itself is not touched.
        std::fs::create_dir_all(&host.dir)
            .map_err(|e| StackError::Failed(format!("{}: {e}", host.dir)))?;
        run(Command::new("mount").args(["--bind", DISK_MOUNT, &host.dir]))
            .map_err(StackError::Failed)?;
        self.undo.push(Undo::UnmountBind(PathBuf::from(&host.dir)));
        Ok(())
    }

    /// Undoes every step, last first; what fails is said on the console.
    pub(crate) fn take_down(&mut self) {
        while let Some(step) = self.undo.pop() {
            let result = match step {
                Undo::Unmount => run(Command::new("umount").arg(DISK_MOUNT)),
                Undo::UnmountBind(at) => run(Command::new("umount").arg(at)),
                Undo::Logout { target, portal } => {
                    let node = ["-m", "node", "-T", target.as_str(), "-p", portal.as_str()];
                    run(Command::new("iscsiadm").args(node).arg("--logout")).and_then(|()| {
                        run(Command::new("iscsiadm").args(node).args(["-o", "delete"]))
                    })
                }
                Undo::StopIscsid => run(Command::new("iscsiadm").args(["-k", "0"])),
                Undo::Wipe(device) => run(Command::new("wipefs").args(["-a", "-q"]).arg(&device)),
                Undo::RemoveDelay => run(Command::new("dmsetup")
                    .env("DM_DISABLE_UDEV", "1")
                    .args(["remove", "--noudevsync", DELAY_TARGET])),
                Undo::Deactivate => run(Command::new("lvm")
                    .env("DM_DISABLE_UDEV", "1")
                    .arg("vgchange")
                    .args(["--config", LVM_CONFIG, "-an", VOLUME_GROUP])),
            };
            if let Err(why) = result {
                let _ = std::fs::write("/dev/console", format!("iolab-agent: {why}\n"));
            }
        }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.take_down();
    }
}

/// The guest's side of the link: loopback up, the address on the one
/// network card, the tap's side its default route.
fn link_up(address: &str) -> Result<(), StackError> {
    let failed = |why: String| StackError::Failed(format!("the guest's network: {why}"));
    run(Command::new("ip").args(["link", "set", "lo", "up"])).map_err(failed)?;
    let card = std::fs::read_dir("/sys/class/net")
        .map_err(|e| failed(format!("/sys/class/net: {e}")))?
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "lo")
        .min()
        .ok_or_else(|| failed("no network card (virtio_net did not load?)".into()))?;
    run(Command::new("ip").args(["addr", "add", address, "dev", &card])).map_err(failed)?;
    run(Command::new("ip").args(["link", "set", &card, "up"])).map_err(failed)?;
    // The tap's own address, one below the guest's, is its way to every
    // other link of the host's namespace (another guest's tap, say).
    let gateway = address
        .split_once('/')
        .and_then(|(ip, _)| ip.parse::<std::net::Ipv4Addr>().ok())
        .map(|ip| std::net::Ipv4Addr::from(u32::from(ip).wrapping_sub(1)).to_string())
        .ok_or_else(|| failed(format!("{address} is not an IPv4 address with a prefix")))?;
    run(Command::new("ip").args(["route", "add", "default", "via", &gateway])).map_err(failed)
}

/// Makes `filesystem` on `device`, labelled as iolab's.
fn make(device: &Path, filesystem: GuestFilesystem) -> Result<(), StackError> {
    let mkfs = format!("mkfs.{}", filesystem.name());
    run(Command::new(&mkfs)
        .args(super::MKFS_OPTIONS)
        .args(["-L", SCRATCH_LABEL])
        .arg(device))
    .map_err(|why| StackError::Failed(format!("{why} ({mkfs} comes from the host's e2fsprogs)")))
}

/// Mounts `device` at [`DISK_MOUNT`]; ext4's inode tables are never zeroed
/// later by a kernel thread (`noinit_itable`), so nothing else writes during the points.
fn mount(device: &Path, filesystem: GuestFilesystem) -> Result<(), StackError> {
    let mut command = Command::new("mount");
    command.args(["-t", &filesystem.name()]);
    if filesystem == GuestFilesystem::Ext4 {
        command.args(["-o", "noinit_itable"]);
    }
    run(command.arg(device).arg(DISK_MOUNT)).map_err(StackError::Failed)
}

/// The block device of LUN `lun` of an iSCSI session, once the kernel made it.
fn wait_for_lun(lun: u16) -> Option<PathBuf> {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let disks = std::fs::read_dir("/sys/class/scsi_disk")
            .into_iter()
            .flatten();
        for entry in disks.filter_map(Result::ok) {
            let address = entry.file_name().to_string_lossy().into_owned();
            let mut parts = address.split(':');
            let host = parts.next().unwrap_or_default();
            let on_iscsi = Path::new("/sys/class/iscsi_host")
                .join(format!("host{host}"))
                .exists();
            if !on_iscsi || parts.nth(2) != Some(&lun.to_string()) {
                continue;
            }
            let block = std::fs::read_dir(entry.path().join("device/block"))
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .next();
            if let Some(block) = block {
                let node = Path::new("/dev").join(block.file_name());
                if node.exists() {
                    return Some(node);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

/// What a signature on `device` says lives there, unless it is a file
/// system iolab made (its label [`SCRATCH_LABEL`]) or there is none.
fn foreign_signature(device: &Path) -> Option<String> {
    let output = Command::new("blkid")
        .args(["-p", "-o", "export"])
        .arg(device)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let value = |key: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_string)
    };
    let kind =
        value("TYPE").or_else(|| value("PTTYPE").map(|t| format!("a {t} partition table")))?;
    (value("LABEL").as_deref() != Some(SCRATCH_LABEL)).then_some(kind)
}

/// The node of device-mapper device `wanted`, by its kernel name (`/dev/dm-0`).
fn mapper_device(wanted: &str) -> Option<PathBuf> {
    std::fs::read_dir("/sys/block")
        .ok()?
        .filter_map(Result::ok)
        .find(|entry| {
            std::fs::read_to_string(entry.path().join("dm/name"))
                .is_ok_and(|name| name.trim() == wanted)
        })
        .map(|entry| Path::new("/dev").join(entry.file_name()))
}

/// Runs a command; its last line of error output when it fails.
fn run(command: &mut Command) -> Result<(), String> {
    let shown = std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|word| word.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let output = command.output().map_err(|e| format!("{shown}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        Err(format!("{shown}: {} {}", output.status, line.trim()))
    }
}

/// The one disk QEMU attached: the first block device with a driver that is
/// not a loop, RAM, zram or optical device (called only without a mount, so
/// no iSCSI disk is there to be taken for it).
fn find_disk() -> Result<PathBuf, String> {
    let mut names: Vec<String> = std::fs::read_dir("/sys/block")
        .map_err(|e| format!("/sys/block: {e}"))?
        .filter_map(Result::ok)
        .filter(|entry| entry.path().join("device").exists())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            !["loop", "ram", "zram", "sr"]
                .iter()
                .any(|p| name.starts_with(p))
        })
        .collect();
    names.sort();
    names
        .first()
        .map(|name| Path::new("/dev").join(name))
        .ok_or_else(|| {
            "no disk under test in the guest (its bus's driver did not load?)".to_string()
        })
}
