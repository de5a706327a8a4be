//! Removing a tree: only names of iolab's forms, depth first, through the descriptors of the directories themselves; a killed run's tree found by its name and owner file and removed by the next run.

use super::OWNER_FILE;
use rustix::fd::{AsFd, BorrowedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use std::io;
use std::path::Path;

/// Deeper than any tree iolab makes (`--depth` 64, a job's top and an item
/// directory): a deeper directory is not iolab's.
const MAX_LEVELS: usize = 68;

/// Whether `name` is one iolab gives in a tree: `t.<K>`, `job.<J>`,
/// `shared`, `f.<J>.<I>`, `r.<J>.<I>`, `m.<J>.<I>`.
pub fn is_iolab_name(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let pair = |s: &str| {
        s.split_once('.')
            .is_some_and(|(a, b)| digits(a) && digits(b))
    };
    if let Some(rest) = name.strip_prefix("t.") {
        return digits(rest);
    }
    if let Some(rest) = name.strip_prefix("job.") {
        return digits(rest);
    }
    if name == "shared" {
        return true;
    }
    ["f.", "r.", "m."]
        .iter()
        .any(|prefix| name.strip_prefix(prefix).is_some_and(pair))
}

/// Removes iolab's entries in the directory `fd` (shown as `path`) and
/// below; a name of another form is added to `foreign` and left, with the
/// directories above it.
pub(super) fn empty_directory(
    fd: BorrowedFd<'_>,
    path: &Path,
    level: usize,
    foreign: &mut Vec<String>,
) -> io::Result<()> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(fd)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != "." && name != ".." && !(level == 0 && name == OWNER_FILE) {
            names.push(name);
        }
    }
    for name in names {
        if !is_iolab_name(&name) {
            foreign.push(path.join(&name).display().to_string());
            continue;
        }
        let stat = match rustix::fs::statat(fd, name.as_str(), AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(rustix::io::Errno::NOENT) => continue,
            Err(error) => return Err(error.into()),
        };
        if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
            if level >= MAX_LEVELS || name.starts_with("f.") || name.starts_with("r.") {
                foreign.push(path.join(&name).display().to_string());
                continue;
            }
            let below = rustix::fs::openat(
                fd,
                name.as_str(),
                OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            let before = foreign.len();
            empty_directory(below.as_fd(), &path.join(&name), level + 1, foreign)?;
            if foreign.len() == before {
                rustix::fs::unlinkat(fd, name.as_str(), AtFlags::REMOVEDIR)?;
            }
        } else {
            rustix::fs::unlinkat(fd, name.as_str(), AtFlags::empty())?;
        }
    }
    Ok(())
}

/// Empties the tree whose root is open as `root`, removes its owner file,
/// then the root named `name` in `dir` while it still is the directory
/// `identity`. Returns what was left because it is not iolab's.
pub(super) fn remove_root(
    dir: BorrowedFd<'_>,
    name: &str,
    root: BorrowedFd<'_>,
    identity: (u64, u64),
    path: &Path,
) -> io::Result<Vec<String>> {
    let mut foreign = Vec::new();
    empty_directory(root, path, 0, &mut foreign)?;
    if !foreign.is_empty() {
        return Ok(foreign);
    }
    match rustix::fs::unlinkat(root, OWNER_FILE, AtFlags::empty()) {
        Ok(()) | Err(rustix::io::Errno::NOENT) => {}
        Err(error) => return Err(error.into()),
    }
    let now = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    if (now.st_dev, now.st_ino) == identity {
        rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR)?;
    } else {
        foreign.push(format!(
            "{} (another directory now has its name)",
            path.display()
        ));
    }
    Ok(foreign)
}

/// The owner tag and run id in a tree's owner file, when the root open as
/// `root` has one that is a small regular file.
pub(super) fn owner_of(root: BorrowedFd<'_>) -> Option<(String, String)> {
    let fd = rustix::fs::openat(
        root,
        OWNER_FILE,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
        Mode::empty(),
    )
    .ok()?;
    let stat = rustix::fs::fstat(&fd).ok()?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile || stat.st_size > 4096 {
        return None;
    }
    let mut text = Vec::new();
    io::Read::read_to_end(&mut std::fs::File::from(fd), &mut text).ok()?;
    let text = String::from_utf8_lossy(&text);
    let mut lines = text.lines();
    let tag = lines.next()?.to_string();
    let run = lines.next()?.strip_prefix("run ")?.to_string();
    Some((tag, run))
}

/// Removes the trees in the directory `dir` (at `dir_path`) of the runs
/// `remove` names, given a run id and its owner tag: a directory
/// `iolab-<run id>.tree` whose owner file names that run. Returns the
/// names removed; a tree holding something not iolab's is left, and named
/// on stderr.
pub(crate) fn remove_dead_trees(
    dir: BorrowedFd<'_>,
    dir_path: &Path,
    remove: &dyn Fn(&str, Option<&str>) -> bool,
) -> io::Result<Vec<String>> {
    let mut removed = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let Some(run_id) = super::run_of_tree(&name) else {
            continue;
        };
        let Ok(root) = rustix::fs::openat(
            dir,
            name.as_str(),
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        ) else {
            continue;
        };
        let Some((tag, owner_run)) = owner_of(root.as_fd()) else {
            continue;
        };
        if owner_run != run_id || !remove(run_id, Some(&tag)) {
            continue;
        }
        let stat = rustix::fs::fstat(&root)?;
        let path = dir_path.join(&name);
        let left = remove_root(dir, &name, root.as_fd(), (stat.st_dev, stat.st_ino), &path)?;
        if left.is_empty() {
            removed.push(name);
        } else {
            crate::say!(
                "iolab: left {} of a dead run: it holds what iolab did not make: {}",
                path.display(),
                left.join(", ")
            );
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trees_name_gives_its_run_whatever_its_serial() {
        use crate::run::site::tree::{run_of_tree, tree_name};
        assert_eq!(run_of_tree(&tree_name("1a2b3c4d", 0)), Some("1a2b3c4d"));
        assert_eq!(run_of_tree(&tree_name("1a2b3c4d", 7)), Some("1a2b3c4d"));
        for other in [
            "iolab-.tree",
            "iolab-x.y.tree",
            "iolab-x..tree",
            "x.tree",
            "iolab-x",
        ] {
            assert_eq!(run_of_tree(other), None, "{other}");
        }
    }

    #[test]
    fn only_iolab_names_are_removed() {
        for name in ["t.0", "job.12", "shared", "f.0.1", "r.3.44", "m.1.0"] {
            assert!(is_iolab_name(name), "{name}");
        }
        for name in [
            "t.",
            "f.0",
            "f.0.1.2",
            "file",
            "f.a.1",
            "..",
            "job.x",
            "iolab.owner",
        ] {
            assert!(!is_iolab_name(name), "{name}");
        }
    }
}
