//! QEMU's command line for a guest: the PVH kernel and initramfs, the host's root over virtio-9p (read-only), the image on the bus, cache and aio asked for, the user's tap device as the only network (never user-mode networking), the agent's virtio-serial port, the panic device that turns a guest panic into a failure; and the process started so that it dies with iolab.

use super::GuestError;
use super::channel::PORT_NAME;
use super::initramfs::HOST_ROOT_TAG;
use crate::plan::guest::{Accelerator, Bus, GuestSpec};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// QEMU's x86-64 system emulator.
pub const QEMU: &str = "qemu-system-x86_64";
/// Its Debian package.
pub const QEMU_PACKAGE: &str = "qemu-system-x86";
/// The machine type: PCI Express, where every bus iolab offers plugs in.
pub const MACHINE_TYPE: &str = "q35";

/// The paths one boot uses.
pub struct Launch<'a> {
    /// The guest's definition.
    pub spec: &'a GuestSpec,
    /// The kernel QEMU boots by PVH.
    pub vmlinux: &'a Path,
    /// The initramfs iolab built.
    pub initramfs: &'a Path,
    /// The disk under test's image (none when the guest measures a mount).
    pub image: Option<&'a Path>,
    /// The agent's socket.
    pub socket: &'a Path,
    /// Where the guest's console goes.
    pub console: &'a Path,
    /// `Kvm` or `Tcg` (never `Auto`: the caller decided).
    pub accelerator: Accelerator,
}

/// QEMU's version line (`QEMU emulator version 7.2.22 (…)`), or the package to install.
pub fn version() -> Result<String, GuestError> {
    let output = Command::new(QEMU).arg("--version").output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            GuestError::Missing(format!(
                "{QEMU} is not installed (Debian package {QEMU_PACKAGE})"
            ))
        } else {
            GuestError::Setup(format!("{QEMU}: {e}"))
        }
    })?;
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string())
}

/// Whether this process may open `/dev/kvm` (KVM may still refuse the guest).
pub fn kvm_present() -> Result<(), String> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
        .map(drop)
        .map_err(|e| format!("/dev/kvm: {e}"))
}

/// The arguments of one boot.
pub fn arguments(launch: &Launch) -> Vec<String> {
    let spec = launch.spec;
    let mut args: Vec<String> = vec![
        "-machine".into(),
        MACHINE_TYPE.into(),
        "-nodefaults".into(),
        "-no-user-config".into(),
        "-display".into(),
        "none".into(),
        "-m".into(),
        spec.memory_mib.to_string(),
        "-smp".into(),
        spec.cpus.to_string(),
    ];
    match launch.accelerator {
        Accelerator::Kvm => args.extend(["-accel", "kvm", "-cpu", "host"].map(String::from)),
        _ => args.extend(["-accel", "tcg"].map(String::from)),
    }
    args.extend([
        "-kernel".into(),
        path(launch.vmlinux),
        "-initrd".into(),
        path(launch.initramfs),
        "-append".into(),
        "console=ttyS0 quiet panic=-1 iolab.guest=1".into(),
        "-chardev".into(),
        format!("file,id=console,path={}", option_path(launch.console)),
        "-serial".into(),
        "chardev:console".into(),
        "-virtfs".into(),
        format!(
            "local,path=/,mount_tag={HOST_ROOT_TAG},security_model=none,readonly=on,multidevs=remap"
        ),
    ]);
    if let Some(image) = launch.image {
        args.extend(disk(spec, image));
    }
    if let Some(tap) = &spec.tap {
        // The user's tap device, opened as it is: no script runs, and
        // nothing else of the host's network is reachable (no user-mode
        // networking, no bridge).
        args.extend([
            "-netdev".into(),
            format!("tap,id=net,ifname={tap},script=no,downscript=no"),
            "-device".into(),
            // No checksum offload either way, so no TSO, GSO or large
            // receives: the card counts frames of the link's MTU, the
            // messages a network carries.
            format!("virtio-net-pci,netdev=net,mac={GUEST_MAC},csum=off,guest_csum=off"),
        ]);
    }
    args.extend([
        "-device".into(),
        "virtio-serial-pci".into(),
        "-chardev".into(),
        format!(
            "socket,id=agent,path={},server=on,wait=off",
            option_path(launch.socket)
        ),
        "-device".into(),
        format!("virtserialport,chardev=agent,name={PORT_NAME}"),
        // A guest panic exits QEMU with status 1, not 0.
        "-device".into(),
        "pvpanic-pci".into(),
        "-action".into(),
        "panic=exit-failure".into(),
    ]);
    args
}

/// The guest's network card's address: a locally administered one in QEMU's range.
pub const GUEST_MAC: &str = "52:54:00:10:1a:b0";

/// The image on the bus `spec` asks for.
fn disk(spec: &GuestSpec, image: &Path) -> Vec<String> {
    let mut args = vec![
        "-drive".to_string(),
        format!(
            "file={},if=none,id=disk,format={},cache={},aio={}",
            option_path(image),
            spec.format.name(),
            spec.cache.name(),
            spec.aio.name()
        ),
    ];
    let disk: &[&str] = match spec.bus {
        Bus::VirtioBlk => &["-device", "virtio-blk-pci,drive=disk,serial=iolab-disk"],
        Bus::VirtioScsi => &[
            "-device",
            "virtio-scsi-pci,id=scsi",
            "-device",
            "scsi-hd,drive=disk,bus=scsi.0,serial=iolab-disk",
        ],
        Bus::Nvme => &["-device", "nvme,drive=disk,serial=iolab-disk"],
        Bus::Sata => &[
            "-device",
            "ahci,id=ahci",
            "-device",
            "ide-hd,drive=disk,bus=ahci.0,serial=iolab-disk",
        ],
    };
    args.extend(disk.iter().map(|s| s.to_string()));
    args
}

fn path(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// A path inside a QEMU option, where a comma is written twice.
fn option_path(path: &Path) -> String {
    path.to_string_lossy().replace(',', ",,")
}

/// Starts QEMU, its output to `log`; it is killed when this thread's
/// process ends, however it ends (`PR_SET_PDEATHSIG`).
pub fn spawn(launch: &Launch, log: &Path) -> Result<Child, GuestError> {
    let log_file = std::fs::File::create(log)
        .map_err(|e| GuestError::Setup(format!("{}: {e}", log.display())))?;
    let log_err = log_file
        .try_clone()
        .map_err(|e| GuestError::Setup(format!("{}: {e}", log.display())))?;
    let parent = std::process::id();
    let mut command = Command::new(QEMU);
    command
        .args(arguments(launch))
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err);
    // SAFETY: only async-signal-safe system calls run between fork and exec.
    unsafe {
        command.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
            // Its own process group: a terminal's Ctrl-C reaches iolab, which
            // ends the guest itself, not QEMU behind its back.
            rustix::process::setsid()?;
            // The parent may have died before the line above took effect.
            if rustix::process::getppid().map(|p| p.as_raw_nonzero().get() as u32) != Some(parent) {
                return Err(std::io::Error::other("iolab ended before QEMU started"));
            }
            Ok(())
        });
    }
    command.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            GuestError::Missing(format!(
                "{QEMU} is not installed (Debian package {QEMU_PACKAGE})"
            ))
        } else {
            GuestError::Setup(format!("{QEMU}: {e}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_has_no_network_but_a_tap_and_quotes_commas() {
        let spec = GuestSpec::default();
        let launch = Launch {
            spec: &spec,
            vmlinux: Path::new("/c/vmlinux"),
            initramfs: Path::new("/c/initrd"),
            image: Some(Path::new("/data/a,b.img")),
            socket: Path::new("/r/agent.sock"),
            console: Path::new("/r/console.log"),
            accelerator: Accelerator::Tcg,
        };
        let args = arguments(&launch).join(" ");
        assert!(args.contains("file=/data/a,,b.img,if=none"), "{args}");
        assert!(args.contains("cache=none,aio=native"), "{args}");
        assert!(args.contains("-nodefaults"), "{args}");
        assert!(
            !args.contains("-netdev") && !args.contains("-nic"),
            "{args}"
        );
        assert!(args.contains("-accel tcg"), "{args}");
        assert!(args.contains("panic=exit-failure"), "{args}");
        // A tap, and no disk with a mount: the tap is the only network.
        let spec = GuestSpec::parse("tap=t0,mount=nfs://10.0.0.1/export").unwrap();
        let args = arguments(&Launch {
            spec: &spec,
            image: None,
            ..launch
        })
        .join(" ");
        assert!(
            args.contains("-netdev tap,id=net,ifname=t0,script=no,downscript=no"),
            "{args}"
        );
        assert!(
            !args.contains("-drive") && !args.contains("-netdev user"),
            "{args}"
        );
    }
}
