//! The guests a result's guest points ran in: each one's definition, what QEMU and the accelerator were, its kernel and environment, the image under its disk, and each boot's time; which guest a point ran in, and a file of several split per guest.

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

impl super::ResultFile {
    /// The guest a point of `workload` ran in: its configuration among
    /// several, else the one guest; `None` for a host point.
    pub fn guest_of(&self, workload: &crate::plan::Workload) -> Option<&GuestRecord> {
        if workload.machine != crate::plan::Machine::Guest {
            return None;
        }
        match workload.guest_config {
            // A file is input: a configuration 0 (never written) finds no guest.
            Some(config) => (config as usize)
                .checked_sub(1)
                .and_then(|index| self.guests.get(index)),
            None => self.guest.as_ref(),
        }
    }

    /// A file of several guest configurations as one file per
    /// configuration, named by it (`nfs-sync`), each with its guest as
    /// `guest` and the host's points, if any; `None` with one guest or none.
    pub fn per_guest_configuration(&self) -> Option<Vec<(String, super::ResultFile)>> {
        if self.guests.is_empty() {
            return None;
        }
        let files = self
            .guests
            .iter()
            .enumerate()
            .map(|(index, record)| {
                let config = Some(index as u32 + 1);
                let points = self
                    .points
                    .iter()
                    .filter(|p| {
                        p.workload.machine == crate::plan::Machine::Host
                            || p.workload.guest_config == config
                    })
                    .cloned()
                    .collect();
                let file = super::ResultFile {
                    points,
                    guest: Some(record.clone()),
                    guests: Vec::new(),
                    ..self.clone()
                };
                (record.spec.label(), file)
            })
            .collect();
        Some(files)
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::{Machine, Workload, default_workload};

    /// A result file is input: a guest configuration it names that is not
    /// among its guests (0, or past the list) finds none instead of panicking.
    #[test]
    fn a_configuration_not_among_the_guests_finds_none() {
        let file = crate::report::studies::testing::file(crate::plan::study::StudyTable::Table4);
        for config in [0, 1, 9] {
            let workload = Workload {
                machine: Machine::Guest,
                guest_config: Some(config),
                ..default_workload()
            };
            assert!(file.guest_of(&workload).is_none(), "guest_config {config}");
        }
    }
}
