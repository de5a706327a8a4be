//! iolab's cache directory: where what is kept between runs lives (the guest's kernel and verdicts, the speeds measured per device).

use std::path::PathBuf;

/// `$IOLAB_CACHE`, else `$XDG_CACHE_HOME/iolab`, else `~/.cache/iolab`.
pub fn dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("IOLAB_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("iolab");
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
    PathBuf::from(home).join(".cache").join("iolab")
}
