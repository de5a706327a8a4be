//! Removing what earlier runs left in a scratch directory: a killed run's files by its id, and every dead run's (an earlier boot, a process gone) by its owner tag — only regular files iolab marked, only while the name still refers to the file examined, and an owner marker once its files are gone.

use super::super::owner_marker::{MarkerContent, is_run_file, marker_of_key, parse_marker_name};
use super::{MARKER_XATTR, ScratchDir};
use crate::owner::owner_tag;
use rustix::fd::AsFd;
use rustix::fs::{AtFlags, Mode, OFlags};
use std::io;

impl ScratchDir {
    /// Removes the scratch files an earlier, killed run `run_id` left here:
    /// regular files named `iolab-<run_id>-<job>.dat` whose marker holds that
    /// run id, so only files iolab itself created are touched. Returns their names.
    pub fn remove_leftovers(&self, run_id: &str) -> io::Result<Vec<String>> {
        self.remove_scratch_where(|id, _| id == run_id)
    }

    /// Removes the scratch files of other runs on this host that are dead:
    /// their owner tag ([`OWNER_XATTR`](crate::owner::OWNER_XATTR)) names this host and either an
    /// earlier boot or a process that no longer runs. A live run's files, and
    /// files of runs on other hosts (a shared directory), are left alone.
    pub fn remove_dead_runs(&self) -> io::Result<Vec<String>> {
        let here = owner_tag();
        self.remove_scratch_where(|id, tag| {
            id != self.run_id && tag.is_some_and(|tag| crate::owner::tag_is_dead(tag, &here))
        })
    }

    /// Removes every regular file named `iolab-<run id>-<job>.dat` that
    /// carries its run id as marker (an xattr, or where there are none a
    /// line of the run's owner marker naming the file by inode) and for which
    /// `remove` says yes given its owner tag, by name without following
    /// links and only while the name still refers to the file examined. An
    /// owner marker whose files are all gone goes too.
    fn remove_scratch_where(
        &self,
        remove: impl Fn(&str, Option<&str>) -> bool,
    ) -> io::Result<Vec<String>> {
        let mut removed = Vec::new();
        // Every marker first (a run's ranks on one file system keep one
        // each), by key, with its run's id.
        let mut markers: Vec<(String, String, Option<MarkerContent>)> = Vec::new();
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.path)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            match parse_marker_name(&name) {
                Some((key, run_id)) => {
                    markers.push((key.to_string(), run_id.to_string(), self.marker_of(key)))
                }
                None => names.push(name),
            }
        }
        for name in names {
            let Some((run_id, job)) = name
                .strip_prefix("iolab-")
                .and_then(|n| n.strip_suffix(".dat"))
                .and_then(|n| n.rsplit_once('-'))
            else {
                continue;
            };
            if run_id.is_empty() || job.is_empty() || !job.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let opened = rustix::fs::openat(
                self.fd(),
                name.as_str(),
                OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK,
                Mode::empty(),
            );
            let Ok(fd) = opened else { continue };
            let stat = rustix::fs::fstat(&fd)?;
            let mut value = [0u8; 64];
            let by_xattr = rustix::fs::fgetxattr(&fd, MARKER_XATTR, &mut value[..])
                .is_ok_and(|len| &value[..len] == run_id.as_bytes());
            let tag = if by_xattr {
                Some(crate::owner::tag_of(fd.as_fd()))
            } else {
                // No xattrs here: one of the run's owner markers must name this very file.
                markers
                    .iter()
                    .filter(|(_, marker_run, _)| marker_run == run_id)
                    .filter_map(|(_, _, marker)| marker.as_ref())
                    .find(|m| m.files.iter().any(|f| f.0 == name && f.1 == stat.st_ino))
                    .map(|m| Some(m.tag.clone()))
            };
            let Some(tag) = tag else { continue };
            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                != rustix::fs::FileType::RegularFile
                || !remove(run_id, tag.as_deref())
            {
                continue;
            }
            let now = rustix::fs::statat(self.fd(), name.as_str(), AtFlags::SYMLINK_NOFOLLOW)?;
            if (now.st_dev, now.st_ino) == (stat.st_dev, stat.st_ino) {
                rustix::fs::unlinkat(self.fd(), name.as_str(), AtFlags::empty())?;
                removed.push(name);
            }
        }
        // A metadata workload's trees, by their owner files.
        removed.extend(crate::run::site::tree::remove_dead_trees(
            self.fd(),
            &self.path,
            &remove,
        )?);
        // A removable run's marker whose files are all gone goes with them.
        for (key, run_id, marker) in &markers {
            let Some(marker) = marker else { continue };
            let left = marker.files.iter().any(|(name, _)| {
                is_run_file(name, run_id)
                    && rustix::fs::statat(self.fd(), name.as_str(), AtFlags::SYMLINK_NOFOLLOW)
                        .is_ok()
            });
            if !left && remove(run_id, Some(&marker.tag)) {
                let name = marker_of_key(key);
                if rustix::fs::unlinkat(self.fd(), name.as_str(), AtFlags::empty()).is_ok() {
                    removed.push(name);
                }
            }
        }
        Ok(removed)
    }
}
