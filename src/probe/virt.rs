//! Virtualization detection: the hypervisor (cpuid, DMI, device tree) and container markers, each with the evidence that named it.
//!
//! Written here rather than taken from a crate: what matters is saying *how*
//! each conclusion was reached, which the crates that exist do not report.

use std::path::Path;

/// What runs this machine, and why iolab thinks so.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detection {
    /// The hypervisor, when the machine is a virtual one (`KVM`, `Hyper-V`, `VMware`…).
    pub hypervisor: Option<String>,
    /// The container runtime, when inside one (`docker`, `podman`, `lxc`…).
    pub container: Option<String>,
    /// One line per observation, such as `cpuid leaf 0x40000000: "KVMKVMKVM"`.
    pub evidence: Vec<String>,
}

/// Names a hypervisor from its cpuid vendor signature (leaf 0x40000000).
pub fn hypervisor_of_signature(signature: &str) -> Option<&'static str> {
    let known = [
        ("KVMKVMKVM", "KVM"),
        ("Linux KVM Hv", "KVM"),
        ("Microsoft Hv", "Hyper-V"),
        ("VMwareVMware", "VMware"),
        ("XenVMMXenVMM", "Xen"),
        ("TCGTCGTCGTCG", "QEMU (TCG)"),
        ("bhyve bhyve", "bhyve"),
        ("VBoxVBoxVBox", "VirtualBox"),
        (" lrpepyh  vr", "Parallels"),
        ("ACRNACRNACRN", "ACRN"),
        ("QNXQVMBSQG", "QNX"),
        ("Apple VZ", "Apple Virtualization"),
    ];
    let trimmed = signature.trim_end_matches('\0');
    known
        .iter()
        .find(|(sig, _)| trimmed.starts_with(sig.trim_end()))
        .map(|(_, name)| *name)
}

/// Names a virtual platform from DMI vendor and product strings.
pub fn hypervisor_of_dmi(vendor: &str, product: &str) -> Option<&'static str> {
    let text = format!("{vendor} {product}").to_lowercase();
    let known = [
        ("amazon ec2", "Amazon EC2"),
        ("google compute engine", "Google Compute Engine"),
        ("qemu", "QEMU"),
        ("kvm", "KVM"),
        ("vmware", "VMware"),
        ("virtualbox", "VirtualBox"),
        ("innotek", "VirtualBox"),
        ("microsoft corporation virtual machine", "Hyper-V"),
        ("xen", "Xen"),
        ("parallels", "Parallels"),
        ("bochs", "Bochs"),
        ("openstack", "OpenStack"),
        ("cloud hypervisor", "Cloud Hypervisor"),
    ];
    known
        .iter()
        .find(|(needle, _)| text.contains(needle))
        .map(|(_, name)| *name)
}

/// Names a container runtime from PID 1's cgroup path text.
pub fn container_of_cgroup(cgroup: &str) -> Option<&'static str> {
    let known = [
        ("/docker", "docker"),
        ("/kubepods", "kubernetes"),
        ("/libpod", "podman"),
        ("/lxc", "lxc"),
        ("/machine.slice/machine-", "systemd-nspawn"),
    ];
    known
        .iter()
        .find(|(needle, _)| cgroup.contains(needle))
        .map(|(_, name)| *name)
}

#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)] // __cpuid became safe in Rust 1.87; rust-version is older
fn cpuid_signature() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    // SAFETY: cpuid exists on every x86_64 CPU; leaves 1 and 0x40000000 only read.
    let features = unsafe { __cpuid(1) };
    if features.ecx & (1 << 31) == 0 {
        return None; // no hypervisor-present bit
    }
    // SAFETY: as above; with the hypervisor bit set, leaf 0x40000000 is the vendor leaf.
    let leaf = unsafe { __cpuid(0x4000_0000) };
    let bytes: Vec<u8> = [leaf.ebx, leaf.ecx, leaf.edx]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .collect();
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_signature() -> Option<String> {
    None
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// Looks at this machine.
pub fn detect() -> Detection {
    let mut found = Detection::default();
    match cpuid_signature() {
        Some(signature) => {
            let shown = signature.trim_end_matches('\0');
            found.evidence.push(format!(
                "cpuid: hypervisor bit set, leaf 0x40000000 vendor {shown:?}"
            ));
            found.hypervisor = Some(
                hypervisor_of_signature(&signature)
                    .map_or_else(|| format!("unknown ({shown})"), str::to_string),
            );
        }
        None if cfg!(target_arch = "x86_64") => found
            .evidence
            .push("cpuid: hypervisor bit clear".to_string()),
        None => {}
    }
    let vendor = read_trimmed("/sys/class/dmi/id/sys_vendor");
    let product = read_trimmed("/sys/class/dmi/id/product_name");
    if vendor.is_none() && product.is_none() {
        found.evidence.push(
            "DMI: no tables in /sys/class/dmi/id (no firmware to name the platform; usual for microVMs such as Firecracker)"
                .to_string(),
        );
    } else {
        let (vendor, product) = (vendor.unwrap_or_default(), product.unwrap_or_default());
        found
            .evidence
            .push(format!("DMI: vendor {vendor:?}, product {product:?}"));
        if let Some(platform) = hypervisor_of_dmi(&vendor, &product) {
            found.hypervisor = Some(match found.hypervisor.take() {
                Some(h) if h != platform => format!("{h} ({platform})"),
                _ => platform.to_string(),
            });
        }
    }
    if let Some(compatible) = read_trimmed("/proc/device-tree/hypervisor/compatible") {
        let compatible = compatible.trim_end_matches('\0').to_string();
        found
            .evidence
            .push(format!("device tree: hypervisor compatible {compatible:?}"));
        found.hypervisor.get_or_insert(compatible);
    }
    for (marker, runtime) in [
        ("/.dockerenv", "docker"),
        ("/run/.containerenv", "podman"),
        ("/proc/vz/veinfo", "openvz"),
    ] {
        if Path::new(marker).exists() {
            found
                .evidence
                .push(format!("container marker: {marker} exists"));
            found.container.get_or_insert(runtime.to_string());
        }
    }
    if let Some(cgroup) = read_trimmed("/proc/1/cgroup") {
        if let Some(runtime) = container_of_cgroup(&cgroup) {
            found
                .evidence
                .push(format!("/proc/1/cgroup names {runtime}"));
            found.container.get_or_insert(runtime.to_string());
        }
    }
    if let Some(release) = read_trimmed("/proc/sys/kernel/osrelease") {
        if release.to_lowercase().contains("microsoft") {
            found
                .evidence
                .push(format!("kernel release {release:?} is WSL's"));
            found.hypervisor.get_or_insert("Hyper-V (WSL2)".to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpuid_signatures() {
        assert_eq!(hypervisor_of_signature("KVMKVMKVM\0\0\0"), Some("KVM"));
        assert_eq!(hypervisor_of_signature("Microsoft Hv"), Some("Hyper-V"));
        assert_eq!(hypervisor_of_signature("VMwareVMware"), Some("VMware"));
        assert_eq!(hypervisor_of_signature("bhyve bhyve "), Some("bhyve"));
        assert_eq!(hypervisor_of_signature("NoSuchThing!"), None);
    }

    #[test]
    fn dmi_strings() {
        assert_eq!(
            hypervisor_of_dmi("QEMU", "Standard PC (Q35 + ICH9, 2009)"),
            Some("QEMU")
        );
        assert_eq!(
            hypervisor_of_dmi("Microsoft Corporation", "Virtual Machine"),
            Some("Hyper-V")
        );
        assert_eq!(
            hypervisor_of_dmi("Amazon EC2", "m5.large"),
            Some("Amazon EC2")
        );
        assert_eq!(
            hypervisor_of_dmi("innotek GmbH", "VirtualBox"),
            Some("VirtualBox")
        );
        assert_eq!(hypervisor_of_dmi("Dell Inc.", "PowerEdge R740"), None);
    }

    #[test]
    fn cgroup_paths() {
        assert_eq!(
            container_of_cgroup("0::/system.slice/docker-4f1e.scope"),
            Some("docker")
        );
        assert_eq!(
            container_of_cgroup("12:pids:/kubepods/burstable/pod1/abc"),
            Some("kubernetes")
        );
        assert_eq!(container_of_cgroup("0::/\n"), None);
    }

    #[test]
    fn this_machine_gives_evidence_for_what_it_names() {
        let found = detect();
        assert!(found.hypervisor.is_none() || !found.evidence.is_empty());
        assert!(found.container.is_none() || !found.evidence.is_empty());
    }
}
