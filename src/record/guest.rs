//! The guest a result's guest points ran in: its definition, what QEMU and the accelerator were, its kernel and environment, the image under its disk, and each boot's time.

use super::environment::Environment;
use crate::plan::guest::{Accelerator, GuestSpec};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The guest of the points whose `machine` is `guest`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuestRecord {
    /// Its definition, as `--guest` gave it with defaults applied.
    pub spec: GuestSpec,
    /// The accelerator it ran under: `kvm` or `tcg` (`auto` when no guest booted).
    pub accelerator: Accelerator,
    /// Why `accel=auto` fell back to TCG.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub why_tcg: Option<String>,
    /// QEMU's version line.
    pub qemu: String,
    /// QEMU's machine type.
    pub machine_type: String,
    /// The Debian package (or .deb file) of the guest's kernel.
    pub kernel_package: String,
    /// The disk under test's image on the host (an iolab scratch file,
    /// removed at the end); none when the guest measured a mount.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub image: Option<PathBuf>,
    /// The disk's device in the guest (`/dev/vda`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub device: Option<String>,
    /// The file system the guest made on it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub filesystem: Option<String>,
    /// The guest's machine and storage as its agent saw them at the last boot.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub environment: Option<Box<Environment>>,
    /// Every boot, in order.
    pub boots: Vec<GuestBoot>,
    /// Per guest point and round: what the guest's disk and the host's
    /// devices under the image did over the whole point (its layout, cache
    /// treatment and repetitions), the stack across the hypervisor.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub crossings: Vec<Crossing>,
}

/// One guest point's I/O on both sides of the hypervisor, over the same
/// interval: from the point's sending to its record's arrival on the host
/// (which holds the guest's interval, from its receipt to its answer).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crossing {
    /// The point's label.
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub round: Option<u32>,
    /// Seconds the host waited for the point.
    pub wall_s: f64,
    /// Each layer of the guest's stack under its file system, top first
    /// (`vda`; `dm-0` then `vda` on a logical volume; none on an NFS mount).
    pub guest: Vec<DeviceBytes>,
    /// The host's devices under the image (`vda`, or `dm-0` and its disks).
    pub host: Vec<DeviceBytes>,
}

/// What one block device completed over an interval.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceBytes {
    pub device: String,
    /// Reads completed.
    pub reads: u64,
    /// Bytes read.
    pub read_bytes: u64,
    /// Writes completed.
    pub writes: u64,
    /// Bytes written.
    pub write_bytes: u64,
}

/// One boot of the guest.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuestBoot {
    /// Seconds from QEMU's start to the agent ready (its disk's file system made and mounted).
    pub boot_s: f64,
}
