//! Owner markers: where a file system keeps no extended attributes (NFSv3, through libnfs or the kernel's client), a small file `iolab-<run id>.owner` beside a run's files holds its owner tag and names each file it created, so a later run removes a killed run's files, and only those.

/// The name of run `run_id`'s owner marker where one process holds the
/// run's files (iolab's NFS client): a small file beside the run's files
/// holding its owner tag (NFSv3 has no extended attributes to carry
/// it), so that a later run on this host removes what a run killed with
/// its server left behind, and never a live run's files.
pub fn marker_name(run_id: &str) -> String {
    format!("iolab-{run_id}.owner")
}

/// This process's owner marker for run `run_id` in a directory other
/// processes of the run may write in too (the ranks of a distributed run on
/// one shared file system, each its own marker):
/// `iolab-<run id>.<boot>-<pid>.owner`, by the first 8 characters of its
/// boot id and its process id.
pub fn process_marker_name(run_id: &str) -> String {
    let boot = crate::probe::process::boot_id();
    let boot: String = boot.chars().take(8).collect();
    format!("iolab-{run_id}.{boot}-{}.owner", std::process::id())
}

/// An owner marker's key (its name between `iolab-` and `.owner`) and its
/// run's id: `iolab-<run id>.owner` (a run's, as iolab's NFS client keeps
/// it) or `iolab-<run id>.<process>.owner` (one process's of a run).
pub fn parse_marker_name(name: &str) -> Option<(&str, &str)> {
    let key = name.strip_prefix("iolab-")?.strip_suffix(".owner")?;
    let run_id = key.split_once('.').map_or(key, |(run_id, _)| run_id);
    (!run_id.is_empty()).then_some((key, run_id))
}

/// The marker of key `key` ([`parse_marker_name`]).
pub fn marker_of_key(key: &str) -> String {
    format!("iolab-{key}.owner")
}

/// A marker's content: the owner tag on its first line, then one line
/// `file NAME FILEID` for each data file the run created, so that a later
/// run removes a file only while its name holds the very file the marker
/// names (a file named like a run's file is not enough).
pub struct MarkerContent {
    /// The owner tag of the run that wrote it.
    pub tag: String,
    /// Each data file it created: its name and file id (inode number).
    pub files: Vec<(String, u64)>,
}

impl MarkerContent {
    /// Reads a marker's text; lines that do not parse are left out.
    pub fn parse(text: &str) -> MarkerContent {
        let mut lines = text.lines();
        let tag = lines.next().unwrap_or_default().to_string();
        let files = lines
            .filter_map(|line| {
                let mut words = line.strip_prefix("file ")?.rsplitn(2, ' ');
                let id = words.next()?.parse().ok()?;
                Some((words.next()?.to_string(), id))
            })
            .collect();
        MarkerContent { tag, files }
    }
}

/// Whether `name` is one of run `run_id`'s data files (`iolab-<run id>-<job>.dat`).
pub fn is_run_file(name: &str, run_id: &str) -> bool {
    name.strip_prefix(&format!("iolab-{run_id}-"))
        .and_then(|n| n.strip_suffix(".dat"))
        .is_some_and(|job| !job.is_empty() && job.bytes().all(|b| b.is_ascii_digit()))
}

/// The text of a new marker: the owner tag on its first line.
pub fn first_line(tag: &str) -> String {
    format!("{tag}\n")
}

/// The line naming a created file in a marker.
pub fn file_line(name: &str, file_id: u64) -> String {
    format!("file {name} {file_id}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_marker_parses_to_its_run_and_a_runs_marker_too() {
        let name = process_marker_name("4cccf2f6");
        let (key, run_id) = parse_marker_name(&name).expect("a marker name");
        assert_eq!(run_id, "4cccf2f6");
        assert!(key.starts_with("4cccf2f6."), "{key}");
        assert!(key.ends_with(&format!("-{}", std::process::id())), "{key}");
        assert_eq!(marker_of_key(key), name);
        assert_eq!(
            parse_marker_name("iolab-4cccf2f6.owner"),
            Some(("4cccf2f6", "4cccf2f6"))
        );
        for not_a_marker in [
            "iolab-.owner",
            "iolab-4cccf2f6-0.dat",
            "notes.owner",
            "iolab-.x.owner",
        ] {
            assert_eq!(parse_marker_name(not_a_marker), None, "{not_a_marker}");
        }
        // A run's data file is never taken for a marker, nor a marker for its data.
        assert!(!is_run_file(&name, "4cccf2f6"));
    }
}
