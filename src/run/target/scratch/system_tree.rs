//! The kernel's own trees (`/dev` but `/dev/shm`, `/proc`, `/sys`), where iolab makes no scratch file: /dev is memory-backed and holds the device nodes, /proc and /sys are the kernel's interfaces.

use crate::plan::UsageError;
use crate::usage;
use std::path::Path;

/// Refuses `dir` (canonical; named `shown` as the user gave it) when it
/// lies in a kernel's tree: a run's scratch files, and a dry run's plan of
/// them, name it before anything is made.
pub fn refuse(dir: &Path, shown: &str) -> Result<(), UsageError> {
    match system_tree(dir) {
        Some(system) => Err(usage!(
            "--dir {shown} is in {system}, the kernel's own tree: iolab makes its files only outside /dev (but /dev/shm), /proc and /sys"
        )),
        None => Ok(()),
    }
}

/// The kernel's tree `dir` (canonical) lies in; `None` outside them.
/// `/dev/shm`, a tmpfs made for files, is not counted.
pub fn system_tree(dir: &Path) -> Option<&'static str> {
    ["/dev", "/proc", "/sys"]
        .into_iter()
        .find(|tree| dir.starts_with(tree) && !(*tree == "/dev" && dir.starts_with("/dev/shm")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_trees_but_dev_shm() {
        for (dir, tree) in [
            ("/dev", Some("/dev")),
            ("/dev/mapper", Some("/dev")),
            ("/dev/shm", None),
            ("/dev/shm/x", None),
            ("/devices", None),
            ("/proc/1", Some("/proc")),
            ("/sys", Some("/sys")),
            ("/tmp", None),
        ] {
            assert_eq!(system_tree(Path::new(dir)), tree, "{dir}");
        }
    }
}
