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
    /// The disk under test's image on the host (an iolab scratch file, removed at the end).
    pub image: PathBuf,
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
}

/// One boot of the guest.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuestBoot {
    /// Seconds from QEMU's start to the agent ready (its disk's file system made and mounted).
    pub boot_s: f64,
}
