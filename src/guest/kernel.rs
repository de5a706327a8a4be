//! The guest's kernel and busybox: Debian's packages fetched with `apt-get download` into iolab's cache and unpacked with `dpkg-deb -x` (never installed), the kernel's uncompressed vmlinux taken out of its bzImage once so QEMU boots it by PVH, and the modules the guest loads found with their dependencies.

use super::GuestError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Debian package whose dependency names the current kernel.
const KERNEL_METAPACKAGE: &str = "linux-image-amd64";
/// The Debian package of a statically linked busybox: the initramfs's shell.
const BUSYBOX_PACKAGE: &str = "busybox-static";
/// The start of an xz stream (the bzImage's compressed payload).
const XZ_MAGIC: &[u8] = b"\xfd7zXZ\x00";
/// Written last in an unpacked package's directory: what lacks it is redone.
const COMPLETE: &str = ".iolab-complete";
/// Written first in a directory iolab made to unpack into: only a directory
/// holding it (or [`COMPLETE`]) is ever removed to be redone.
const MADE: &str = ".iolab-made";
/// The package and version an unpacked directory holds, as dpkg-deb said.
const IDENTITY: &str = ".iolab-package";

/// A kernel ready to boot.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The Debian package it came from (`linux-image-6.1.0-56-amd64`), or the file given.
    pub package: String,
    /// Its release, as `uname -r` will say in the guest.
    pub release: String,
    /// The uncompressed ELF image QEMU boots by PVH.
    pub vmlinux: PathBuf,
    /// `lib/modules/RELEASE/kernel` of the unpacked package.
    pub modules: PathBuf,
    /// The static busybox the initramfs runs.
    pub busybox: PathBuf,
}

/// The kernel named by `choice` (`debian`, or the path of a linux-image
/// `.deb`), fetched and unpacked into the cache the first time. Several
/// processes may ask at once: one prepares under the cache's lock while
/// the others wait, and each package is unpacked aside and moved into
/// place whole, so no process ever sees half of one. `ending` is asked
/// while waiting for another process's unpack: iolab's stop ends the wait.
pub fn obtain(choice: &str, ending: &dyn Fn() -> bool) -> Result<Kernel, GuestError> {
    let guest_cache = crate::cache::dir().join("guest");
    std::fs::create_dir_all(&guest_cache)
        .map_err(|e| GuestError::Setup(format!("{}: {e}", guest_cache.display())))?;
    let deb_given = if choice == "debian" {
        None
    } else {
        let deb = PathBuf::from(choice);
        if deb.extension().is_none_or(|e| e != "deb") {
            return Err(GuestError::Usage(format!(
                "--guest kernel={choice}: give `debian` or the path of a linux-image .deb"
            )));
        }
        if !deb.is_file() {
            return Err(GuestError::Usage(format!(
                "--guest kernel={choice}: no such file"
            )));
        }
        // Validated before anything in the cache is touched; the directory
        // is named by the package's own fields, never by the file's name.
        let (name, version) = package_of(&deb)?;
        has_modules(&deb, choice)?;
        Some((deb, name, version))
    };
    let _lock = CacheLock::take(&guest_cache, ending)?;
    remove_dead_stagings(&guest_cache);
    let (package, unpacked) = match deb_given {
        None => {
            let package = current_kernel_package()?;
            let unpacked = guest_cache.join(cache_name(&package, None)?);
            if !is_complete(&unpacked) {
                crate::note!(
                    "iolab: fetching and unpacking {package} for the guest (once; later runs reuse {})",
                    guest_cache.display()
                );
                let deb = download(&guest_cache, &package)?;
                let prepared = package_of(&deb)
                    .and_then(|(name, version)| unpack(&deb, &unpacked, Some((&name, &version))));
                let _ = std::fs::remove_file(&deb);
                prepared?;
            }
            let identity = std::fs::read_to_string(unpacked.join(IDENTITY))
                .map(|text| text.trim().to_string())
                .unwrap_or(package);
            (identity, unpacked)
        }
        Some((deb, name, version)) => {
            let unpacked = guest_cache.join(cache_name(&name, Some(&version))?);
            if !is_complete(&unpacked) {
                crate::note!(
                    "iolab: unpacking {} for the guest (once; later runs reuse it)",
                    deb.display()
                );
                unpack(&deb, &unpacked, Some((&name, &version)))?;
            }
            (
                format!("{name} {version} (from {})", deb.display()),
                unpacked,
            )
        }
    };
    let (release, modules) = modules_dir(&unpacked)?;
    let vmlinux = unpacked.join("vmlinux");
    Ok(Kernel {
        package,
        release,
        vmlinux,
        modules,
        busybox: busybox(&guest_cache)?,
    })
}

/// Whether an unpacked package is whole: marked complete, which is
/// written last, with its vmlinux where the package is a kernel.
fn is_complete(unpacked: &Path) -> bool {
    unpacked.join(COMPLETE).is_file()
        && (!unpacked.join("boot").is_dir() || unpacked.join("vmlinux").is_file())
}

/// The static busybox, fetched and unpacked the first time (under the
/// cache's lock, which the caller holds).
fn busybox(guest_cache: &Path) -> Result<PathBuf, GuestError> {
    let unpacked = guest_cache.join(BUSYBOX_PACKAGE);
    if !is_complete(&unpacked) {
        let deb = download(guest_cache, BUSYBOX_PACKAGE)?;
        let prepared = unpack(&deb, &unpacked, None);
        let _ = std::fs::remove_file(&deb);
        prepared?;
    }
    Ok(unpacked.join("bin").join("busybox"))
}

/// The guest cache's lock (`flock` on its `.lock`), held while packages
/// are fetched and unpacked: a second process waits for the first, saying
/// so once, rather than unpacking into the same directory.
struct CacheLock {
    _held: std::fs::File,
}

impl CacheLock {
    fn take(guest_cache: &Path, ending: &dyn Fn() -> bool) -> Result<CacheLock, GuestError> {
        let path = guest_cache.join(".lock");
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| GuestError::Setup(format!("{}: {e}", path.display())))?;
        let mut said = false;
        loop {
            match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(CacheLock { _held: file }),
                Err(rustix::io::Errno::WOULDBLOCK) | Err(rustix::io::Errno::INTR) => {
                    if ending() {
                        return Err(GuestError::Interrupted);
                    }
                    if !said {
                        crate::say!(
                            "iolab: waiting for another iolab preparing the guest's kernel in {}",
                            guest_cache.display()
                        );
                        said = true;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                Err(e) => {
                    return Err(GuestError::Setup(format!(
                        "locking {}: {e}",
                        path.display()
                    )));
                }
            }
        }
    }
}

/// Removes the staging directories (`.unpack-NAME-PID`) of processes that
/// are gone: an unpack killed half-way (the caller holds the lock).
fn remove_dead_stagings(guest_cache: &Path) {
    for entry in std::fs::read_dir(guest_cache)
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(".unpack-")
            .and_then(|rest| rest.rsplit_once('-'))
            .and_then(|(_, pid)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let marked = entry.path().join(MADE).is_file();
        if marked && crate::probe::process::stat_of(pid).is_none() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Refuses, before anything is unpacked, a package without kernel modules
/// (the guest loads its stacks' modules from the package).
fn has_modules(deb: &Path, choice: &str) -> Result<(), GuestError> {
    let listing = tool_output(
        Command::new("dpkg-deb").arg("-c").arg(deb),
        "dpkg-deb",
        "dpkg",
    )?;
    if !listing.lines().any(|line| line.contains("/lib/modules/")) {
        return Err(GuestError::Usage(format!(
            "--guest kernel={choice}: the package holds no kernel modules (lib/modules/), which the guest loads"
        )));
    }
    Ok(())
}

/// The versioned package `linux-image-amd64` depends on now.
fn current_kernel_package() -> Result<String, GuestError> {
    let text = tool_output(
        Command::new("apt-cache").args(["depends", KERNEL_METAPACKAGE]),
        "apt-cache",
        "apt",
    )?;
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("Depends: "))
        .find(|name| name.starts_with("linux-image-") && name.as_bytes()[12].is_ascii_digit())
        .map(str::to_string)
        .ok_or_else(|| {
            GuestError::Setup(format!(
                "apt-cache depends {KERNEL_METAPACKAGE} names no kernel package (is the package list fetched? apt-get update)"
            ))
        })
}

/// Downloads `package`'s .deb into `dir` (as apt-get does: without installing it).
fn download(dir: &Path, package: &str) -> Result<PathBuf, GuestError> {
    let staging = dir.join(format!(".download-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)
        .map_err(|e| GuestError::Setup(format!("{}: {e}", staging.display())))?;
    tool_output(
        Command::new("apt-get")
            .args(["download", "-q", package])
            .current_dir(&staging),
        "apt-get",
        "apt",
    )
    .map_err(|error| match error {
        // Inside a network namespace of its own (scripts/netlab's) there is
        // no way out: the kernel is fetched beforehand, outside it.
        GuestError::Setup(why) => GuestError::Setup(format!(
            "{why} (no network here? run `iolab guest fetch` where there is, e.g. outside scripts/netlab's namespace)"
        )),
        other => other,
    })?;
    let deb = std::fs::read_dir(&staging)
        .map_err(|e| GuestError::Setup(format!("{}: {e}", staging.display())))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|e| e == "deb"))
        .ok_or_else(|| GuestError::Setup(format!("apt-get download {package} left no .deb")))?;
    let kept = dir.join(format!("{package}.deb"));
    std::fs::rename(&deb, &kept)
        .map_err(|e| GuestError::Setup(format!("{}: {e}", kept.display())))?;
    let _ = std::fs::remove_dir_all(&staging);
    Ok(kept)
}

/// Unpacks `deb` into `into`: into a staging directory beside it first
/// (marked as iolab's before anything else), with the kernel's vmlinux
/// taken out and the package's identity and completeness written, then
/// moved into place whole. What is at `into` already is replaced only if
/// iolab made it: marked, or an unpacked package of an earlier iolab
/// (nothing in it but what a linux-image or busybox package unpacks and
/// iolab's own files); anything else is refused, never removed. The
/// caller holds the cache's lock.
fn unpack(deb: &Path, into: &Path, identity: Option<(&str, &str)>) -> Result<(), GuestError> {
    let setup = |e: std::io::Error, at: &Path| GuestError::Setup(format!("{}: {e}", at.display()));
    if into.symlink_metadata().is_ok() && !made_by_iolab(into) {
        return Err(GuestError::Setup(format!(
            "{} is in iolab's cache but was not made by iolab; it is left alone (remove it to unpack the kernel there)",
            into.display()
        )));
    }
    let name = into
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let staging = into.with_file_name(format!(".unpack-{name}-{}", std::process::id()));
    if staging.symlink_metadata().is_ok() {
        std::fs::remove_dir_all(&staging).map_err(|e| setup(e, &staging))?;
    }
    std::fs::create_dir(&staging).map_err(|e| setup(e, &staging))?;
    let prepared = (|| {
        std::fs::write(staging.join(MADE), b"").map_err(|e| setup(e, &staging))?;
        tool_output(
            Command::new("dpkg-deb").arg("-x").arg(deb).arg(&staging),
            "dpkg-deb",
            "dpkg",
        )?;
        if staging.join("boot").is_dir() {
            let (release, _) = modules_dir(&staging)?;
            extract_vmlinux(
                &staging.join("boot").join(format!("vmlinuz-{release}")),
                &staging.join("vmlinux"),
            )?;
        }
        if let Some((name, version)) = identity {
            std::fs::write(staging.join(IDENTITY), format!("{name} {version}\n"))
                .map_err(|e| setup(e, &staging))?;
        }
        std::fs::write(staging.join(COMPLETE), b"").map_err(|e| setup(e, &staging))?;
        if into.symlink_metadata().is_ok() {
            std::fs::remove_dir_all(into).map_err(|e| setup(e, into))?;
        }
        std::fs::rename(&staging, into).map_err(|e| setup(e, into))
    })();
    if prepared.is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    prepared
}

/// Whether the directory `at` in iolab's cache is iolab's own: marked by
/// this iolab, or left by an earlier one that marked nothing (every name
/// in it one a kernel or busybox package unpacks, or iolab's vmlinux).
fn made_by_iolab(at: &Path) -> bool {
    let Ok(metadata) = at.symlink_metadata() else {
        return false;
    };
    if !metadata.is_dir() {
        return false;
    }
    if at.join(MADE).is_file() || at.join(COMPLETE).is_file() {
        return true;
    }
    const UNPACKED: [&str; 8] = [
        "boot",
        "lib",
        "usr",
        "etc",
        "bin",
        "vmlinux",
        "vmlinux.partial",
        IDENTITY,
    ];
    let Ok(entries) = std::fs::read_dir(at) else {
        return false;
    };
    let names: Vec<String> = entries
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    !names.is_empty() && names.iter().all(|name| UNPACKED.contains(&name.as_str()))
}

/// The package name and version of the Debian archive `deb`
/// (`dpkg-deb -f`); bad input unless it is a linux-image package.
fn package_of(deb: &Path) -> Result<(String, String), GuestError> {
    let shown = deb.display();
    let output = Command::new("dpkg-deb")
        .arg("-f")
        .arg(deb)
        .args(["Package", "Version"])
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                GuestError::Missing("dpkg-deb is not installed (Debian package dpkg)".into())
            } else {
                GuestError::Setup(format!("dpkg-deb: {e}"))
            }
        })?;
    let not_a_kernel = |why: &str| {
        GuestError::Usage(format!(
            "--guest kernel={shown}: {why}; give `debian` or the path of a linux-image .deb"
        ))
    };
    if !output.status.success() {
        return Err(not_a_kernel(
            "not a Debian package (dpkg-deb -f cannot read it)",
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let field = |name: &str| {
        text.lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
            .map(|value| value.trim().to_string())
            .filter(|value| !value.is_empty())
    };
    let (Some(package), Some(version)) = (field("Package"), field("Version")) else {
        return Err(not_a_kernel("the package names no Package and Version"));
    };
    if !package.starts_with("linux-image-") {
        return Err(not_a_kernel(&format!(
            "package {} is not a linux-image package",
            package.escape_debug()
        )));
    }
    Ok((package, version))
}

/// The cache directory's name for `package` (at `version`, for a file the
/// user gave): only the characters Debian allows in both, so no name from
/// outside becomes a path component of another meaning (`..`, `/`, `runs`).
fn cache_name(package: &str, version: Option<&str>) -> Result<String, GuestError> {
    let allowed = |text: &str, extra: &str| {
        !text.is_empty()
            && text
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
    };
    if !allowed(package, "+-.") || !version.is_none_or(|v| allowed(v, "+-.~:")) {
        return Err(GuestError::Usage(format!(
            "--guest kernel: package {} version {} is not a Debian package name and version",
            package.escape_debug(),
            version.unwrap_or("").escape_debug()
        )));
    }
    Ok(match version {
        Some(version) => format!("{package}_{}", version.replace(':', "%3a")),
        None => package.to_string(),
    })
}

/// The release and module tree of an unpacked kernel package.
fn modules_dir(unpacked: &Path) -> Result<(String, PathBuf), GuestError> {
    let lib = unpacked.join("lib").join("modules");
    let release = std::fs::read_dir(&lib)
        .ok()
        .and_then(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .next()
        })
        .ok_or_else(|| {
            GuestError::Setup(format!(
                "{}: no kernel modules (not a linux-image package?)",
                lib.display()
            ))
        })?;
    Ok((release.clone(), lib.join(release).join("kernel")))
}

/// Writes the ELF kernel inside `bzimage` (its xz payload) to `vmlinux`.
fn extract_vmlinux(bzimage: &Path, vmlinux: &Path) -> Result<(), GuestError> {
    let image = std::fs::read(bzimage)
        .map_err(|e| GuestError::Setup(format!("{}: {e}", bzimage.display())))?;
    let start = image
        .windows(XZ_MAGIC.len())
        .position(|w| w == XZ_MAGIC)
        .ok_or_else(|| {
            GuestError::Setup(format!(
                "{}: no xz payload (only xz-compressed kernels boot by PVH here)",
                bzimage.display()
            ))
        })?;
    let mut elf = Vec::with_capacity(image.len() * 8);
    // The payload is followed by the bzImage's trailer, which the decoder
    // does not read: it stops at the end of the first stream. (Its x86 BCJ
    // filter is why this is liblzma, not a pure-Rust decoder without it.)
    std::io::Read::read_to_end(
        &mut liblzma::read::XzDecoder::new(&image[start..]),
        &mut elf,
    )
    .map_err(|e| GuestError::Setup(format!("{}: xz payload: {e}", bzimage.display())))?;
    if !elf.starts_with(b"\x7fELF") {
        return Err(GuestError::Setup(format!(
            "{}: its payload is not an ELF kernel",
            bzimage.display()
        )));
    }
    let partial = vmlinux.with_extension("partial");
    std::fs::write(&partial, &elf)
        .and_then(|()| std::fs::rename(&partial, vmlinux))
        .map_err(|e| GuestError::Setup(format!("{}: {e}", vmlinux.display())))
}

/// Runs a Debian tool, its output on success; a missing tool names its package.
fn tool_output(command: &mut Command, tool: &str, package: &str) -> Result<String, GuestError> {
    let output = command.output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            GuestError::Missing(format!(
                "{tool} is not installed (Debian package {package})"
            ))
        } else {
            GuestError::Setup(format!("{tool}: {e}"))
        }
    })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(GuestError::Setup(format!(
            "{tool} failed ({}): {line}",
            output.status
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The modules in `tree` by name (dashes as underscores, as the kernel names them).
fn module_index(tree: &Path) -> HashMap<String, PathBuf> {
    let mut index = HashMap::new();
    let mut pending = vec![tree.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(path);
            } else if let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".ko"))
            {
                index.insert(name.replace('-', "_"), path);
            }
        }
    }
    index
}

/// The modules a module needs loaded first: its `.modinfo` `depends=` entry.
fn depends_of(module: &[u8]) -> Vec<String> {
    const KEY: &[u8] = b"\0depends=";
    let Some(at) = module.windows(KEY.len()).position(|w| w == KEY) else {
        return Vec::new();
    };
    let value = &module[at + KEY.len()..];
    let end = value.iter().position(|&b| b == 0).unwrap_or(value.len());
    String::from_utf8_lossy(&value[..end])
        .split(',')
        .filter(|name| !name.is_empty())
        .map(|name| name.replace('-', "_"))
        .collect()
}

/// The files of `wanted` and everything they depend on, each after its
/// dependencies (the order `insmod` needs); a wanted module the kernel
/// builds in (absent from the tree) is skipped.
pub fn modules_in_load_order(tree: &Path, wanted: &[&str]) -> Result<Vec<PathBuf>, GuestError> {
    let index = module_index(tree);
    let mut ordered: Vec<String> = Vec::new();
    let mut visiting: Vec<String> = Vec::new();
    fn visit(
        name: &str,
        index: &HashMap<String, PathBuf>,
        ordered: &mut Vec<String>,
        visiting: &mut Vec<String>,
    ) -> Result<(), GuestError> {
        if ordered.iter().any(|n| n == name) {
            return Ok(());
        }
        if visiting.iter().any(|n| n == name) {
            return Err(GuestError::Setup(format!(
                "module {name} depends on itself"
            )));
        }
        let Some(path) = index.get(name) else {
            // Built into the kernel.
            return Ok(());
        };
        let bytes = std::fs::read(path)
            .map_err(|e| GuestError::Setup(format!("{}: {e}", path.display())))?;
        visiting.push(name.to_string());
        for dependency in depends_of(&bytes) {
            visit(&dependency, index, ordered, visiting)?;
        }
        visiting.pop();
        ordered.push(name.to_string());
        Ok(())
    }
    for name in wanted {
        visit(&name.replace('-', "_"), &index, &mut ordered, &mut visiting)?;
    }
    Ok(ordered.iter().map(|name| index[name].clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depends_are_read_from_modinfo() {
        let module =
            b"\x7fELF....\0license=GPL\0depends=virtio,virtio_ring,pvpanic-x\0vermagic=6.1\0";
        assert_eq!(depends_of(module), ["virtio", "virtio_ring", "pvpanic_x"]);
        assert!(depends_of(b"\0depends=\0name=x\0").is_empty());
        assert!(depends_of(b"no modinfo").is_empty());
    }

    #[test]
    fn modules_load_after_their_dependencies() {
        let tree = std::env::temp_dir().join(format!("iolab-modules-{}", std::process::id()));
        std::fs::create_dir_all(tree.join("a/b")).unwrap();
        std::fs::write(tree.join("a/top.ko"), b"\0depends=mid,leaf\0").unwrap();
        std::fs::write(tree.join("a/b/mid.ko"), b"\0depends=leaf\0").unwrap();
        std::fs::write(tree.join("a/b/leaf.ko"), b"\0depends=\0").unwrap();
        std::fs::write(tree.join("dash-name.ko"), b"\0depends=top\0").unwrap();
        let order = modules_in_load_order(&tree, &["dash_name", "builtin"]).unwrap();
        let names: Vec<_> = order
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["leaf.ko", "mid.ko", "top.ko", "dash-name.ko"]);
        std::fs::remove_dir_all(&tree).unwrap();
    }
}
