//! The guest's initramfs, built in memory: a static busybox, the kernel modules the guest needs before anything else, and an `/init` that mounts the host's root read-only over virtio-9p under an overlay with a tmpfs upper, then runs iolab's agent chrooted into it.

use super::GuestError;
use super::kernel::{self, Kernel};
use std::path::Path;

/// The modules `/init` loads, with their dependencies: PCI virtio, the 9p
/// root, the overlay over it, the disks of every bus a guest may use, the
/// agent's console port, ext4 for the disk under test (it also mounts
/// ext3), the panic device that makes QEMU exit with a failure; and the
/// kernel stacks the host may lack: the network card of a tap, the NFS v3
/// client, the iSCSI initiator's transport, device-mapper (LVM) and its
/// delay target.
pub const MODULES: &[&str] = &[
    "virtio_pci",
    "9pnet_virtio",
    "9p",
    "overlay",
    "virtio_blk",
    "virtio_scsi",
    "sd_mod",
    "nvme",
    "ahci",
    "virtio_console",
    "crc32c_generic",
    "ext4",
    "pvpanic_pci",
    "virtio_net",
    "nfsv3",
    "iscsi_tcp",
    "dm_mod",
    "dm_delay",
];

/// The 9p mount tag QEMU exports the host's root under.
pub const HOST_ROOT_TAG: &str = "hostroot";

/// The initramfs for `kernel` that runs `iolab` (a path on the host, seen
/// the same in the guest) as the agent.
pub fn build(kernel: &Kernel, iolab: &Path) -> Result<Vec<u8>, GuestError> {
    let modules = kernel::modules_in_load_order(&kernel.modules, MODULES)?;
    let mut archive = Cpio::default();
    archive.directory("bin");
    archive.directory("m");
    let busybox = std::fs::read(&kernel.busybox)
        .map_err(|e| GuestError::Setup(format!("{}: {e}", kernel.busybox.display())))?;
    archive.file("bin/busybox", 0o755, &busybox);
    let mut loads = String::new();
    for path in &modules {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(path)
            .map_err(|e| GuestError::Setup(format!("{}: {e}", path.display())))?;
        archive.file(&format!("m/{name}"), 0o644, &bytes);
        loads.push_str(&format!(
            "insmod /m/{name} || say \"module {name} did not load\"\n"
        ));
    }
    archive.file("init", 0o755, init_script(&loads, iolab)?.as_bytes());
    Ok(archive.finish())
}

/// `/init`: what runs as PID 1 until the agent ends, then powers off.
fn init_script(loads: &str, iolab: &Path) -> Result<String, GuestError> {
    let iolab = iolab
        .to_str()
        .filter(|p| !p.contains(['\'', '\n']))
        .ok_or_else(|| {
            GuestError::Setup(format!(
                "{}: the guest runs iolab by this path, which a shell cannot quote",
                iolab.display()
            ))
        })?;
    Ok(format!(
        r#"#!/bin/busybox sh
# iolab's guest init: the host's root, read-only, under a writable overlay.
/bin/busybox --install -s /bin
export PATH=/bin
say() {{ echo "iolab-init: $*" > /dev/console; }}
mkdir -p /proc /sys /dev /host /upper /root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
{loads}mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000 {HOST_ROOT_TAG} /host || say "the host's root did not mount over 9p"
mount -t tmpfs -o mode=0755 upper /upper
mkdir -p /upper/data /upper/work
mount -t overlay -o lowerdir=/host,upperdir=/upper/data,workdir=/upper/work root /root || say "the overlay did not mount"
# The host's container marker is not this machine's: hide it (a whiteout in the tmpfs).
rm -f /root/.dockerenv
mount -t proc proc /root/proc
mount -t sysfs sysfs /root/sys
mount -t devtmpfs devtmpfs /root/dev
# No tmpfs over /tmp or /run: the overlay is writable already, and iolab may
# live under either (a checkout in /tmp).
[ -x '/root{iolab}' ] || say 'iolab is not at {iolab} in the guest'
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root chroot /root '{iolab}' guest agent
say "the agent ended ($?)"
sync
poweroff -f
"#
    ))
}

/// A cpio archive in the "newc" format the kernel unpacks.
#[derive(Default)]
struct Cpio {
    bytes: Vec<u8>,
    inode: u32,
}

impl Cpio {
    fn directory(&mut self, name: &str) {
        self.entry(name, 0o040_755, &[]);
    }

    fn file(&mut self, name: &str, permissions: u32, data: &[u8]) {
        self.entry(name, 0o100_000 | permissions, data);
    }

    fn entry(&mut self, name: &str, mode: u32, data: &[u8]) {
        self.inode += 1;
        let nlink = if mode & 0o040_000 != 0 { 2 } else { 1 };
        let fields = [
            self.inode,
            mode,
            0,
            0,
            nlink,
            0,
            data.len() as u32,
            0,
            0,
            0,
            0,
            name.len() as u32 + 1,
            0,
        ];
        self.bytes.extend_from_slice(b"070701");
        for field in fields {
            self.bytes
                .extend_from_slice(format!("{field:08x}").as_bytes());
        }
        self.bytes.extend_from_slice(name.as_bytes());
        self.bytes.push(0);
        self.pad();
        self.bytes.extend_from_slice(data);
        self.pad();
    }

    fn pad(&mut self) {
        while self.bytes.len() % 4 != 0 {
            self.bytes.push(0);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        self.entry("TRAILER!!!", 0, &[]);
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newc_entries_are_aligned_and_end_with_the_trailer() {
        let mut archive = Cpio::default();
        archive.directory("m");
        archive.file("init", 0o755, b"#!/bin/sh\n");
        let bytes = archive.finish();
        assert_eq!(bytes.len() % 4, 0);
        assert!(bytes.starts_with(b"070701"));
        // The second entry: a regular file of 10 bytes, name "init" (5 with NUL).
        let second = &bytes[112..];
        assert_eq!(&second[..6], b"070701");
        assert_eq!(&second[14..22], b"000081ed");
        assert_eq!(&second[54..62], b"0000000a");
        assert_eq!(&second[94..102], b"00000005");
        assert_eq!(&second[110..114], b"init");
        let tail = String::from_utf8_lossy(&bytes[bytes.len() - 16..]).into_owned();
        assert!(tail.contains("TRAILER!!!"), "{tail}");
    }

    #[test]
    fn a_path_the_shell_cannot_quote_is_refused() {
        assert!(init_script("", Path::new("/bin/io'lab")).is_err());
        let script = init_script("insmod /m/a.ko\n", Path::new("/usr/bin/iolab")).unwrap();
        assert!(
            script.contains("chroot /root '/usr/bin/iolab' guest agent"),
            "{script}"
        );
        assert!(script.starts_with("#!/bin/busybox sh\n"));
        // A checkout under /tmp is reachable in the guest: nothing hides it.
        assert!(!script.contains("/root/tmp"), "{script}");
    }
}
