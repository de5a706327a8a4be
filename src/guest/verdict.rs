//! Whether KVM runs a guest on this host, as the last `accel=auto` boot found: remembered in iolab's cache for this host's kernel and this QEMU, so that a host whose `/dev/kvm` opens but never runs a guest costs its probe once, not at every run.

use std::path::PathBuf;

/// The file the verdict is kept in.
pub fn path() -> PathBuf {
    crate::cache::dir().join("guest").join("kvm-verdict")
}

/// [`path`] as a person types it: `~/…` under the home directory.
pub fn shown_path() -> String {
    let path = path();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match home
        .as_deref()
        .and_then(|home| path.strip_prefix(home).ok())
    {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// The start of QEMU's reason, at most 40 characters, for a line that
/// must fit a terminal.
pub fn brief(why: &str) -> String {
    let first = why.lines().next().unwrap_or("").trim();
    let first = first.strip_prefix("qemu-system-x86_64: ").unwrap_or(first);
    match first.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &first[..cut]),
        None => first.to_string(),
    }
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_reason_is_cut_to_fit_a_line() {
        assert_eq!(super::brief("short"), "short");
        let long = "qemu-system-x86_64: KVM internal error. Suberror: 1 emulation failure RAX=0";
        assert_eq!(
            super::brief(long),
            "KVM internal error. Suberror: 1 emulatio…"
        );
    }
}
