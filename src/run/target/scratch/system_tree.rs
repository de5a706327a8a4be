//! The kernel's own trees (`/dev` but `/dev/shm`, `/proc`, `/sys`), where iolab makes no scratch file: /dev is memory-backed and holds the device nodes, /proc and /sys are the kernel's interfaces.

use std::path::Path;

/// The kernel's tree `dir` (canonical) lies in; `None` outside them.
/// `/dev/shm`, a tmpfs made for files, is not counted.
pub(super) fn system_tree(dir: &Path) -> Option<&'static str> {
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
