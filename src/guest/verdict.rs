//! Whether KVM runs a guest on this host, as the last `accel=auto` boot found: remembered in iolab's cache for this host's kernel and this QEMU, so that a host whose `/dev/kvm` opens but never runs a guest costs its probe once, not at every run.

use std::path::PathBuf;

/// The file the verdict is kept in.
pub fn path() -> PathBuf {
    super::kernel::cache_dir().join("guest").join("kvm-verdict")
}

/// What the verdict is kept for: this host's kernel release and QEMU's
/// version line; `None` when either cannot be read (nothing is kept then).
fn key() -> Option<String> {
    let release = rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned();
    let qemu = super::qemu::version().ok()?;
    Some(format!("host {release}\nqemu {qemu}\n"))
}

/// Why KVM did not run a guest here the last time, when that was on this
/// kernel with this QEMU.
pub fn failed_before() -> Option<String> {
    let text = std::fs::read_to_string(path()).ok()?;
    let rest = text.strip_prefix(&key()?)?;
    rest.strip_prefix("fails ")
        .map(|why| why.trim().to_string())
        .filter(|why| !why.is_empty())
}

/// Remembers that KVM could not run a guest (`why`), for the next runs.
pub fn remember_failure(why: &str) {
    let Some(key) = key() else { return };
    let why = why.replace('\n', " ");
    let path = path();
    // Written whole under another name, then renamed: a reader never sees half.
    let partial = path.with_extension(format!("partial-{}", std::process::id()));
    if std::fs::write(&partial, format!("{key}fails {why}\n")).is_ok() {
        let _ = std::fs::rename(&partial, &path);
    }
}

/// Forgets a failure: KVM ran a guest.
pub fn forget() {
    let _ = std::fs::remove_file(path());
}
