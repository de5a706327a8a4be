//! A guest virtual machine's definition (`--guest KEY=VALUE,…`, a study file's `[guest]` table) and the `machine` a point runs on: the keys, their defaults and the combinations QEMU refuses, checked before anything starts.

use super::UsageError;
use serde::{Deserialize, Serialize};

/// Where a point runs: on this machine, or in the guest iolab boots.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Machine {
    /// This machine.
    #[default]
    Host,
    /// The virtual machine of `--guest`, its disk an image in the directory under test.
    Guest,
}

impl Machine {
    /// Its name as written.
    pub fn name(self) -> &'static str {
        match self {
            Machine::Host => "host",
            Machine::Guest => "guest",
        }
    }

    /// Whether it is the default, for leaving it out of result files.
    pub fn is_host(&self) -> bool {
        *self == Machine::Host
    }
}

/// How the guest's CPU is provided.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Accelerator {
    /// KVM when it runs the guest's kernel here, else TCG (and why is said).
    #[default]
    Auto,
    /// The kernel's hypervisor; refused where it cannot run the kernel.
    Kvm,
    /// QEMU's CPU emulation: timings measure the emulator.
    Tcg,
}

/// The bus the disk under test is attached to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bus {
    /// virtio-blk (paravirtualized, the studies' disk).
    #[default]
    #[serde(rename = "virtio-blk")]
    VirtioBlk,
    /// virtio-scsi.
    #[serde(rename = "virtio-scsi")]
    VirtioScsi,
    /// An emulated NVMe controller.
    #[serde(rename = "nvme")]
    Nvme,
    /// An emulated AHCI (SATA) controller.
    #[serde(rename = "sata")]
    Sata,
}

/// QEMU's host-side cache mode for the image.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiskCache {
    /// O_DIRECT on the host, writes reported done when written.
    #[default]
    None,
    /// Through the host's page cache.
    Writeback,
    /// Through the host's page cache, every write synchronous.
    Writethrough,
    /// O_DIRECT and every write synchronous.
    Directsync,
    /// The host's page cache, flushes ignored.
    Unsafe,
}

/// How QEMU issues the image's I/O.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Aio {
    /// Linux native AIO (needs `cache=none` or `directsync`).
    #[default]
    Native,
    /// io_uring.
    IoUring,
    /// A pool of threads.
    Threads,
}

/// The image's format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageFormat {
    /// Every block of the disk at its own offset.
    #[default]
    Raw,
    /// QEMU's copy-on-write format, fully preallocated.
    Qcow2,
}

/// The most `--guest` configurations one plan compares.
pub const MAX_GUESTS: u32 = 8;

/// A guest's definition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuestSpec {
    /// `debian` (the kernel Debian's `linux-image-amd64` depends on now,
    /// fetched into iolab's cache, never installed) or the path of a
    /// linux-image `.deb`.
    pub kernel: String,
    /// Memory, MiB.
    pub memory_mib: u32,
    /// Virtual CPUs.
    pub cpus: u32,
    /// How the CPU is provided.
    pub accel: Accelerator,
    /// The disk under test's bus.
    pub bus: Bus,
    /// QEMU's cache mode for the image.
    pub cache: DiskCache,
    /// How QEMU issues the image's I/O.
    pub aio: Aio,
    /// The image's format.
    pub format: ImageFormat,
    /// A tap device in this network namespace: the guest's one network
    /// link (`scripts/netlab guest-link` makes one in netlab's namespace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tap: Option<String>,
    /// What the guest measures instead of its own disk: an NFS export
    /// mounted by its kernel client, or an iSCSI LUN its kernel initiator
    /// logs in to (with a file system made on it), as `--target` writes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount: Option<String>,
    /// The file system the guest measures in: on the image (made before
    /// each boot) or on an iSCSI LUN (`ext3` there unless given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fs: Option<GuestFilesystem>,
    /// How the kernel NFS client mounts the export: `async` (its default:
    /// writes gathered into wsize WRITEs) or `sync` (one WRITE per page).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nfs: Option<NfsMountMode>,
    /// The file system on an LVM logical volume over the whole disk, so a
    /// device-mapper layer sits between the file system and the disk.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lvm: bool,
    /// A device-mapper delay target over the disk adding this many
    /// milliseconds to every read and write: a device of known latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u32>,
    /// The points on the guest's disk itself, no file system made or
    /// mounted: its block device written and read as CLOSER 2011's dd wrote
    /// an empty partition (`/dev/xvda2`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub raw: bool,
    /// The configuration's name among several `--guest`s (`nfs-sync`):
    /// given with `name=`, else made from what it mounts ([`GuestSpec::label`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A file system the guest makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GuestFilesystem {
    /// ext3 (the NFS-against-iSCSI study's), run by the kernel's ext4 driver.
    Ext3,
    /// ext4.
    #[default]
    Ext4,
}

/// How the guest's kernel NFS client mounts the export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NfsMountMode {
    /// Writes cached and sent later, gathered into WRITEs of up to wsize.
    #[default]
    Async,
    /// Every write sent at once, a WRITE per page (the study's 4.7 KB requests).
    Sync,
}

/// What the guest's kernel mounts in place of its own disk (`--guest mount=URL`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GuestMount {
    /// An NFS v3 export, mounted `vers=3,proto=tcp,nolock`.
    Nfs(crate::engine::nfs::url::NfsUrl),
    /// An iSCSI LUN reached through open-iscsi.
    Iscsi(crate::engine::iscsi::url::IscsiUrl),
}

impl GuestMount {
    /// The URL as written.
    pub fn text(&self) -> &str {
        match self {
            GuestMount::Nfs(url) => &url.text,
            GuestMount::Iscsi(url) => &url.text,
        }
    }
}

impl Default for GuestSpec {
    fn default() -> Self {
        GuestSpec {
            kernel: "debian".to_string(),
            memory_mib: 1024,
            cpus: 2,
            accel: Accelerator::Auto,
            bus: Bus::VirtioBlk,
            cache: DiskCache::None,
            aio: Aio::Native,
            format: ImageFormat::Raw,
            tap: None,
            mount: None,
            fs: None,
            nfs: None,
            lvm: false,
            delay_ms: None,
            raw: false,
            name: None,
        }
    }
}

/// One `--guest` key. The parser ([`GuestSpec::set`]), the record's text
/// ([`GuestSpec::describe`]), the key list in messages and `--guest`'s
/// help ([`help`]) all come from [`KEYS`]; the defaults are
/// [`GuestSpec::default`]'s, read back through each key.
pub struct GuestKey {
    pub name: &'static str,
    /// What it takes, for the help: `MiB`, `auto|kvm|tcg`.
    pub takes: &'static str,
    /// What it sets, in a few words.
    pub help: &'static str,
    set: fn(&mut GuestSpec, &str) -> Result<(), UsageError>,
    /// Its value as `--guest` writes it; `None` where it is not given.
    get: fn(&GuestSpec) -> Option<String>,
}

/// The keys, in the order `describe` writes them.
pub static KEYS: &[GuestKey] = &[
    GuestKey {
        name: "kernel",
        takes: "debian|FILE.deb",
        help: "the kernel: Debian's current one, fetched into iolab's cache, or a linux-image package",
        set: set_kernel,
        get: |spec| Some(spec.kernel.clone()),
    },
    GuestKey {
        name: "memory",
        takes: "MiB",
        help: "memory (a bare number is MiB, as QEMU's -m)",
        set: set_memory,
        get: |spec| Some(spec.memory_mib.to_string()),
    },
    GuestKey {
        name: "cpus",
        takes: "N",
        help: "virtual CPUs, 1 to 64",
        set: |spec, value| {
            spec.cpus = value
                .parse()
                .ok()
                .filter(|n| (1..=64).contains(n))
                .ok_or_else(|| crate::usage!("--guest cpus={value}: give 1 to 64"))?;
            Ok(())
        },
        get: |spec| Some(spec.cpus.to_string()),
    },
    GuestKey {
        name: "accel",
        takes: "auto|kvm|tcg",
        help: "how the CPU is provided (auto tries KVM, then TCG)",
        set: |spec, value| {
            spec.accel = choice("accel", value, "auto, kvm, tcg")?;
            Ok(())
        },
        get: |spec| Some(spec.accel.name()),
    },
    GuestKey {
        name: "bus",
        takes: "virtio-blk|virtio-scsi|nvme|sata",
        help: "the disk under test's bus",
        set: |spec, value| {
            spec.bus = choice("bus", value, "virtio-blk, virtio-scsi, nvme, sata")?;
            Ok(())
        },
        get: |spec| Some(spec.bus.name()),
    },
    GuestKey {
        name: "cache",
        takes: "none|writeback|writethrough|directsync|unsafe",
        help: "QEMU's cache mode for the image",
        set: |spec, value| {
            spec.cache = choice(
                "cache",
                value,
                "none, writeback, writethrough, directsync, unsafe",
            )?;
            Ok(())
        },
        get: |spec| Some(spec.cache.name()),
    },
    GuestKey {
        name: "aio",
        takes: "native|io_uring|threads",
        help: "how QEMU issues the image's I/O",
        set: |spec, value| {
            spec.aio = choice("aio", value, "native, io_uring, threads")?;
            Ok(())
        },
        get: |spec| Some(spec.aio.name()),
    },
    GuestKey {
        name: "format",
        takes: "raw|qcow2",
        help: "the image's format",
        set: |spec, value| {
            spec.format = choice("format", value, "raw, qcow2")?;
            Ok(())
        },
        get: |spec| Some(spec.format.name()),
    },
    GuestKey {
        name: "tap",
        takes: "NAME",
        help: "a tap device here, the guest's one network link (scripts/netlab guest-link makes one)",
        set: set_tap,
        get: |spec| spec.tap.clone(),
    },
    GuestKey {
        name: "mount",
        takes: "nfs://HOST/EXPORT|iscsi://HOST:PORT/IQN/LUN",
        help: "the guest's own kernel stack instead of its disk: its NFS v3 client, or its initiator with a file system made on the LUN (needs --destroy-data=URL); every point then runs in the guest only",
        set: |spec, value| {
            parse_mount(value)?;
            spec.mount = Some(value.to_string());
            Ok(())
        },
        get: |spec| spec.mount.clone(),
    },
    GuestKey {
        name: "fs",
        takes: "ext4|ext3",
        help: "the file system made on the image (or the LUN: ext3 there unless given)",
        set: |spec, value| {
            spec.fs = Some(choice("fs", value, "ext3, ext4")?);
            Ok(())
        },
        get: |spec| spec.fs.map(GuestFilesystem::name),
    },
    GuestKey {
        name: "nfs",
        takes: "async|sync",
        help: "how the kernel NFS client mounts the export",
        set: |spec, value| {
            spec.nfs = Some(choice("nfs", value, "async, sync")?);
            Ok(())
        },
        get: |spec| spec.nfs.map(NfsMountMode::name),
    },
    GuestKey {
        name: "lvm",
        takes: "on|off",
        help: "the file system on an LVM logical volume over the whole disk",
        set: |spec, value| {
            spec.lvm = on_off("lvm", value)?;
            Ok(())
        },
        get: |spec| spec.lvm.then(|| "on".to_string()),
    },
    GuestKey {
        name: "delay",
        takes: "MS",
        help: "a dm-delay target over the disk adding this many milliseconds to every I/O",
        set: set_delay,
        get: |spec| spec.delay_ms.map(|ms| format!("{ms}ms")),
    },
    GuestKey {
        name: "raw",
        takes: "on|off",
        help: "the points on the guest's disk itself, no file system (as dd on an empty partition)",
        set: |spec, value| {
            spec.raw = on_off("raw", value)?;
            Ok(())
        },
        get: |spec| spec.raw.then(|| "on".to_string()),
    },
    GuestKey {
        name: "name",
        takes: "NAME",
        help: "the configuration's name among several --guest (made from mount and nfs when not given)",
        set: set_name,
        get: |spec| spec.name.clone(),
    },
];

fn on_off(key: &str, value: &str) -> Result<bool, UsageError> {
    match value {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(crate::usage!("--guest {key}={value}: on or off")),
    }
}

/// The keys' names, for messages: `kernel, memory, …`.
pub fn key_names() -> String {
    KEYS.iter()
        .map(|key| key.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--guest`'s help, from [`KEYS`]: each key, what it takes and sets, and
/// the defaults.
pub fn help() -> String {
    let defaults = GuestSpec::default();
    let mut text = String::from(
        "Boot a virtual machine and measure every point in it too, back to back with the host \
         (or only the points given --machine guest). KEY=VALUE,… with:\n",
    );
    for key in KEYS {
        let default = (key.get)(&defaults).map_or(String::new(), |d| format!(" [{d}]"));
        text.push_str(&format!(
            "  {}={}{default}: {}\n",
            key.name, key.takes, key.help
        ));
    }
    text.push_str("'' takes the defaults; the guest's disk is an image iolab makes in the directory under test.");
    text
}

fn set_kernel(spec: &mut GuestSpec, value: &str) -> Result<(), UsageError> {
    if value.is_empty() {
        return Err(crate::usage!(
            "--guest kernel=: give `debian` or the path of a linux-image .deb"
        ));
    }
    spec.kernel = value.to_string();
    Ok(())
}

fn set_memory(spec: &mut GuestSpec, value: &str) -> Result<(), UsageError> {
    let bytes = super::units::parse_size(value)
        .map_err(|e| crate::usage!("--guest memory={value}: {e}"))?;
    // A bare number is MiB, as QEMU's -m takes it.
    let mib = if value.chars().all(|c| c.is_ascii_digit()) {
        bytes
    } else {
        bytes >> 20
    };
    spec.memory_mib = u32::try_from(mib)
        .ok()
        .filter(|m| (256..=65536).contains(m))
        .ok_or_else(|| crate::usage!("--guest memory={value}: give 256 MiB to 64 GiB"))?;
    Ok(())
}

fn set_tap(spec: &mut GuestSpec, value: &str) -> Result<(), UsageError> {
    // A Linux interface name: up to 15 bytes, no '/' or spaces.
    let valid = !value.is_empty()
        && value.len() <= 15
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !valid {
        return Err(crate::usage!(
            "--guest tap={value}: an interface name of 1 to 15 letters, digits, '-', '_' or '.'"
        ));
    }
    spec.tap = Some(value.to_string());
    Ok(())
}

fn set_name(spec: &mut GuestSpec, value: &str) -> Result<(), UsageError> {
    let valid = !value.is_empty()
        && value.len() <= 32
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !valid {
        return Err(crate::usage!(
            "--guest name={value}: 1 to 32 lowercase letters, digits or '-'"
        ));
    }
    // The machine axis's own words: a guest named so would read as one.
    if ["host", "guest", "all"].contains(&value) {
        return Err(crate::usage!(
            "--guest name={value}: `{value}` is a word of the machine axis (--machine host, guest); name the configuration otherwise"
        ));
    }
    spec.name = Some(value.to_string());
    Ok(())
}

fn set_delay(spec: &mut GuestSpec, value: &str) -> Result<(), UsageError> {
    // A bare number is milliseconds, as dm-delay takes it.
    let text = if value.chars().all(|c| c.is_ascii_digit()) {
        format!("{value}ms")
    } else {
        value.to_string()
    };
    let delay = super::units::parse_duration(&text)
        .map_err(|e| crate::usage!("--guest delay={value}: {e}"))?;
    let ms = delay.as_millis();
    if delay.as_nanos() % 1_000_000 != 0 || !(1..=10_000).contains(&ms) {
        return Err(crate::usage!(
            "--guest delay={value}: give whole milliseconds from 1ms to 10s (dm-delay's unit)"
        ));
    }
    spec.delay_ms = Some(ms as u32);
    Ok(())
}

fn choice<T: for<'de> Deserialize<'de>>(
    key: &str,
    value: &str,
    names: &str,
) -> Result<T, UsageError> {
    serde_json::from_value(serde_json::Value::String(value.to_string()))
        .map_err(|_| crate::usage!("--guest {key}={value}: not one of {names}"))
}

impl GuestSpec {
    /// Parses `KEY=VALUE,…` over the defaults; an empty text is the defaults.
    pub fn parse(text: &str) -> Result<GuestSpec, UsageError> {
        let mut spec = GuestSpec::default();
        let mut seen: Vec<&str> = Vec::new();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').ok_or_else(|| {
                crate::usage!("--guest {pair}: write KEY=VALUE (keys: {})", key_names())
            })?;
            let key = key.trim();
            if seen.contains(&key) {
                return Err(crate::usage!(
                    "--guest {key}= is given twice: give each key once"
                ));
            }
            seen.push(key);
            spec.set(key, value.trim())?;
        }
        spec.validate()?;
        Ok(spec)
    }

    /// Sets one key ([`KEYS`]).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), UsageError> {
        let Some(known) = KEYS.iter().find(|known| known.name == key) else {
            return Err(crate::usage!(
                "--guest {key}={value}: unknown key (keys: {})",
                key_names()
            ));
        };
        (known.set)(self, value)
    }

    /// The parsed `mount`, when one is given.
    pub fn mount(&self) -> Option<GuestMount> {
        self.mount
            .as_deref()
            .and_then(|text| parse_mount(text).ok())
    }

    /// The URL of the LUN whose data the guest destroys by making a file
    /// system on it (`mount=iscsi://…`), which needs the user's consent.
    pub fn destroys(&self) -> Option<&str> {
        match self.mount()? {
            GuestMount::Iscsi(_) => self.mount.as_deref(),
            GuestMount::Nfs(_) => None,
        }
    }

    /// The file system the guest makes (on the image or on an iSCSI LUN).
    pub fn filesystem(&self) -> GuestFilesystem {
        match (self.fs, self.mount()) {
            (Some(fs), _) => fs,
            (None, Some(GuestMount::Iscsi(_))) => GuestFilesystem::Ext3,
            (None, _) => GuestFilesystem::Ext4,
        }
    }

    /// Whether the guest has a disk image (not when it measures a mount).
    pub fn has_image(&self) -> bool {
        self.mount.is_none()
    }

    /// Refuses what QEMU would refuse after booting, and keys that do not go together.
    pub fn validate(&self) -> Result<(), UsageError> {
        let mount = self.mount.as_deref().map(parse_mount).transpose()?;
        if let (Some(mount), None) = (&mount, &self.tap) {
            return Err(crate::usage!(
                "--guest mount={}: the guest reaches the server through a tap device; add tap=NAME (scripts/netlab guest-link makes one)",
                mount.text()
            ));
        }
        if self.nfs.is_some() && !matches!(mount, Some(GuestMount::Nfs(_))) {
            return Err(crate::usage!(
                "--guest nfs=...: the NFS mount mode goes with mount=nfs://..."
            ));
        }
        if let (Some(GuestMount::Nfs(url)), Some(_)) = (&mount, self.fs) {
            return Err(crate::usage!(
                "--guest fs=...: the server's file system holds {}; fs is for the image or an iSCSI LUN",
                url.text
            ));
        }
        if let (Some(ms), true) = (self.delay_ms, self.lvm || mount.is_some()) {
            return Err(crate::usage!(
                "--guest delay={ms}ms: the delay target goes over the guest's own disk, without lvm=on or mount="
            ));
        }
        if self.lvm && mount.is_some() {
            return Err(crate::usage!(
                "--guest lvm=on: the logical volume is made on the guest's own disk, not on mount={}",
                self.mount.as_deref().unwrap_or_default()
            ));
        }
        if let (true, Some(mount)) = (self.raw, &mount) {
            return Err(crate::usage!(
                "--guest raw=on: the points go on the guest's own disk, not on mount={}",
                mount.text()
            ));
        }
        if let (true, Some(fs)) = (self.raw, self.fs) {
            return Err(crate::usage!(
                "--guest raw=on,fs={}: a raw disk has no file system; give one or the other",
                fs.name()
            ));
        }
        if self.aio == Aio::Native && !matches!(self.cache, DiskCache::None | DiskCache::Directsync)
        {
            return Err(crate::usage!(
                "--guest aio=native needs cache=none or cache=directsync (QEMU's rule); cache={} goes with aio=io_uring or aio=threads",
                self.cache.name()
            ));
        }
        Ok(())
    }

    /// The name among several configurations: `name=`, else what it
    /// measures (`nfs-async`, `nfs-sync`, `iscsi-ext3`, `lvm`, `delay-5ms`, `disk`).
    pub fn label(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        match self.mount() {
            Some(GuestMount::Nfs(_)) => format!("nfs-{}", self.nfs.unwrap_or_default().name()),
            Some(GuestMount::Iscsi(_)) => format!("iscsi-{}", self.filesystem().name()),
            None if self.raw => "raw".to_string(),
            None if self.lvm => "lvm".to_string(),
            None => match self.delay_ms {
                Some(ms) => format!("delay-{ms}ms"),
                None => "disk".to_string(),
            },
        }
    }

    /// Every `--guest` given, each parsed; with several, each named
    /// ([`GuestSpec::label`], `guestN` where two would read alike), the
    /// names given with `name=` told apart.
    pub fn parse_all(texts: &[String]) -> Result<Vec<GuestSpec>, UsageError> {
        if texts.len() > MAX_GUESTS as usize {
            return Err(crate::usage!(
                "--guest is given {} times: at most {MAX_GUESTS} configurations go in one plan",
                texts.len()
            ));
        }
        let mut specs = texts
            .iter()
            .map(|text| GuestSpec::parse(text))
            .collect::<Result<Vec<_>, _>>()?;
        if specs.len() < 2 {
            return Ok(specs);
        }
        for (index, spec) in specs.iter().enumerate() {
            if let Some(name) = &spec.name
                && specs[..index].iter().any(|s| s.name.as_ref() == Some(name))
            {
                return Err(crate::usage!(
                    "--guest name={name} is given to two configurations: give each its own"
                ));
            }
        }
        let labels: Vec<String> = specs.iter().map(GuestSpec::label).collect();
        for (index, spec) in specs.iter_mut().enumerate() {
            let alike = labels.iter().filter(|l| **l == labels[index]).count() > 1;
            spec.name = Some(if alike && spec.name.is_none() {
                format!("guest{}", index + 1)
            } else {
                labels[index].clone()
            });
        }
        Ok(specs)
    }

    /// The keys as `--guest` takes them ([`KEYS`], those given).
    pub fn describe(&self) -> String {
        KEYS.iter()
            .filter_map(|key| (key.get)(self).map(|value| format!("{}={value}", key.name)))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// `--guest mount=URL`: an `nfs://` or `iscsi://` URL as `--target` takes
/// them, whose server the guest can reach (not a loopback address, which
/// in the guest is the guest itself).
fn parse_mount(text: &str) -> Result<GuestMount, UsageError> {
    let rename =
        |message: String| crate::usage!("{}", message.replacen("--target ", "--guest mount=", 1));
    let mount = if text.starts_with("iscsi://") {
        GuestMount::Iscsi(crate::engine::iscsi::url::IscsiUrl::parse(text).map_err(rename)?)
    } else if text.starts_with("nfs://") {
        GuestMount::Nfs(crate::engine::nfs::url::NfsUrl::parse(text).map_err(rename)?)
    } else {
        return Err(crate::usage!(
            "--guest mount={text}: give nfs://HOST/EXPORT[/DIR] or iscsi://HOST[:PORT]/IQN/LUN"
        ));
    };
    let host = match &mount {
        GuestMount::Nfs(url) => &url.host,
        GuestMount::Iscsi(url) => &url.host,
    };
    let loopback = host == "localhost"
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::IpAddr>()
            .is_ok_and(|address| address.is_loopback());
    if loopback {
        return Err(crate::usage!(
            "--guest mount={text}: {host} is the guest itself there; give the server's address on the tap's link (scripts/netlab prints guest_nfs= and guest_iscsi=)"
        ));
    }
    Ok(mount)
}

macro_rules! serde_name {
    ($($ty:ty),*) => {$(
        impl $ty {
            /// Its name as written in `--guest`.
            pub fn name(self) -> String {
                serde_json::to_value(self)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            }
        }
    )*};
}
serde_name!(
    Accelerator,
    Bus,
    DiskCache,
    Aio,
    ImageFormat,
    GuestFilesystem,
    NfsMountMode
);

#[cfg(test)]
mod tests;
