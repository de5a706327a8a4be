//! Job groups: several different workloads in one point (`Group`), each with its own jobs, run at once on one clock; the rules a point of groups keeps (`check_groups`), and what identifies it (`describe_groups`).
//!
//! A point of one workload run by N identical jobs is what iolab measured
//! before groups; it stays so, with no groups. A point of groups holds two
//! or more (or one named) workloads — a reader beside a paced logger — whose
//! jobs are released together, each group's timed region starting after
//! its own ramp. The repetition, warm-up, interval and machine settings are
//! the point's, so every group shares them.

use super::{UsageError, Workload};
use crate::usage;

/// The most groups one point holds.
pub const MAX_GROUPS: usize = 64;

/// The most jobs all groups of a point hold together.
pub const MAX_GROUP_JOBS: u32 = 4096;

/// The longest group name, in bytes.
pub const MAX_NAME_BYTES: usize = 64;

/// Which jobs stop when one of a group's jobs finishes (fio's `exitall`
/// and `exit_what`): by default none, the others go on to their own end.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum ExitScope {
    /// The others go on.
    #[default]
    None,
    /// The group's other jobs stop (fio's `exitall`, its jobs one group).
    Group,
    /// Every job of the point stops (fio's `exit_what=stonewall`).
    Point,
}

impl ExitScope {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            ExitScope::None => "none",
            ExitScope::Group => "group",
            ExitScope::Point => "point",
        }
    }

    /// Whether this is the default.
    pub fn is_none(&self) -> bool {
        *self == ExitScope::None
    }
}

/// One group of a point: its name and the workload its jobs run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Group {
    /// Names the group in tables, records and `--metric NAME.…`.
    pub name: String,
    /// What each of its `jobs` jobs does.
    pub workload: Workload,
}

impl Group {
    /// A point of one workload: one group without a name.
    pub fn alone(workload: Workload) -> Group {
        Group {
            name: String::new(),
            workload,
        }
    }
}

/// Whether a point's `groups` are shown, recorded and named in messages
/// as groups: several, or one the user named (a job file's one section).
pub fn named(groups: &[Group]) -> bool {
    groups.len() > 1 || groups.iter().any(|group| !group.name.is_empty())
}

/// What is wrong with a group name: names are printed, become keys of
/// `--metric` and `--set` (`NAME.PARAM`) and of study-file tables, so they
/// are letters, digits, `-` and `_`, start with a letter, and are not `all`
/// (the groups combined).
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".to_string());
    }
    if name.len() > MAX_NAME_BYTES {
        return Some(format!("is longer than {MAX_NAME_BYTES} bytes"));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic())
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Some(
            "must start with a letter and hold only letters, digits, '-' and '_'".to_string(),
        );
    }
    if name == "all" {
        return Some("is the groups combined; name a group otherwise".to_string());
    }
    if matches!(name, "read" | "write" | "trim") {
        // `--metric read.p99` is the reads' p99: a group of that name could
        // not be told from the direction.
        return Some(
            "is a direction's name (--metric read.p99); name the group otherwise".to_string(),
        );
    }
    None
}

/// Refuses groups that cannot run as one point, naming the group: a bad or
/// repeated name, a second group on a tree (a point holds one tree), a guest,
/// settings that are the point's but differ, too many groups or jobs.
pub fn check_groups(groups: &[Group]) -> Result<(), UsageError> {
    match groups {
        [] => return Err(usage!("a point needs at least one group")),
        // One workload: nothing to name, nothing it is combined with.
        [alone] if alone.name.is_empty() => return alone.workload.validate(),
        _ => {}
    }
    if groups.len() > MAX_GROUPS {
        return Err(usage!(
            "{} groups: a point holds at most {MAX_GROUPS}",
            groups.len()
        ));
    }
    let total: u64 = groups.iter().map(|g| u64::from(g.workload.jobs)).sum();
    if total > u64::from(MAX_GROUP_JOBS) {
        return Err(usage!(
            "the groups hold {total} jobs together; a point runs at most {MAX_GROUP_JOBS}"
        ));
    }
    let first = &groups[0].workload;
    for (index, group) in groups.iter().enumerate() {
        let name = &group.name;
        if let Some(problem) = name_problem(name) {
            return Err(usage!("group name '{name}' {problem}"));
        }
        if groups[..index].iter().any(|g| g.name == *name) {
            return Err(usage!("group name '{name}' is given twice"));
        }
        let w = &group.workload;
        let tree_before = groups[..index]
            .iter()
            .find(|g| g.workload.items.is_some() && w.items.is_some());
        if let Some(other) = tree_before {
            return Err(usage!(
                "group {name}: a point holds one tree, and group {} works on it already (give one group --items)",
                other.name
            ));
        }
        let refused = if w.verify && (w.items.is_some() || !w.op.writes()) {
            Some(
                "--verify checks the blocks a group's writes sealed; this group writes none (its files are new to the point, and a tree has no blocks)",
            )
        } else {
            None
        };
        if let Some(why) = refused {
            return Err(usage!("group {name}: {why}"));
        }
        let differs = [
            ("repeat", w.repeat != first.repeat),
            ("warmup", w.warmup != first.warmup),
            ("until-ci", w.until_ci != first.until_ci),
            ("max-repeat", w.max_repeat != first.max_repeat),
            ("interval", w.interval_s != first.interval_s),
            ("same-draws", w.same_draws != first.same_draws),
            ("machine", w.machine != first.machine),
        ];
        if let Some((setting, _)) = differs.iter().find(|(_, differs)| *differs) {
            return Err(usage!(
                "group {name}: --{setting} is the point's and must be the same in every group \
                 (group {} has another)",
                groups[0].name
            ));
        }
        w.validate()
            .map_err(|e| usage!("group {name}: {}", e.to_string()))?;
    }
    Ok(())
}

/// Where a point's groups do their I/O, as far as what they may combine
/// goes: files iolab makes (in a directory or on an NFS export), or one
/// target the user gave.
#[derive(Clone, Copy, Debug)]
pub enum Site<'a> {
    /// Files iolab makes, and trees.
    Made,
    /// A file or device given with `--file` (`flag` names it), every job
    /// over all of it, as fio's jobs sharing one `filename=`.
    Given { flag: &'a str },
    /// An iSCSI LUN (`flag` names it): each job logs in on its own.
    Lun { flag: &'a str },
}

/// Refuses, in one line, what a point's `groups` cannot combine with where
/// they run: `--offset` on files iolab makes, a tree on a given target,
/// groups whose regions of a LUN overlap while one writes, and `--verify`
/// where several jobs would overwrite each other's sealed blocks. The plan
/// asks as soon as it knows the site; the runner asks again for points
/// that reach it another way (a study's, a guest's).
pub fn check_site(groups: &[Group], site: Site<'_>) -> Result<(), UsageError> {
    let (Site::Given { flag } | Site::Lun { flag }) = site else {
        let placed = groups.iter().find_map(|group| {
            let w = &group.workload;
            [
                ("--offset", w.offset),
                ("--offset-increment", w.offset_increment),
            ]
            .into_iter()
            .find(|(_, value)| *value > 0)
            .map(|(flag, value)| (group, flag, value))
        });
        return match placed {
            Some((group, flag, value)) => Err(usage!(
                "{}{flag} {value} places a region in a file or device you gave (--file, --target iscsi://…); the files iolab makes start at 0",
                in_group(group)
            )),
            None => Ok(()),
        };
    };
    let jobs: u32 = groups.iter().map(|group| group.workload.jobs).sum();
    if let Some(trace) = groups.iter().find_map(|group| group.workload.trace) {
        return Err(usage!(
            "--trace {trace} replays onto a file iolab makes in --dir; it cannot go with {flag} (iolab replay TRACE --file or --target takes yours)"
        ));
    }
    if groups.iter().any(|group| group.workload.items.is_some()) {
        return Err(usage!(
            "--items makes a tree in --dir; it cannot go with {flag}"
        ));
    }
    if matches!(site, Site::Lun { .. }) {
        // A LUN is one disk shared by its groups: a writer's region is its
        // own, as partitions are, so no group reads or overwrites blocks
        // another group writes while it runs.
        for (index, group) in groups.iter().enumerate() {
            let overlapping = groups[..index].iter().find(|other| {
                (other.workload.op.writes() || group.workload.op.writes())
                    && region(other).start < region(group).end
                    && region(group).start < region(other).end
            });
            if let Some(other) = overlapping {
                return Err(usage!(
                    "group {}'s region of {flag} ({}) overlaps group {}'s ({}), and one of them writes: give each group its own region with --offset (e.g. --offset {} for group {})",
                    group.name,
                    describe_region(group),
                    other.name,
                    describe_region(other),
                    region(other).end,
                    group.name
                ));
            }
        }
    }
    if jobs > 1 && groups.iter().any(|group| group.workload.verify) {
        return Err(usage!(
            "--verify on {flag} checks one job's blocks: {jobs} jobs over it would overwrite each other's sealed blocks or check them twice; verify with one job"
        ));
    }
    Ok(())
}

/// The label of a point of groups: each group's name and workload.
pub fn describe_groups(groups: &[Group]) -> String {
    groups
        .iter()
        .map(|g| format!("{}: {}", g.name, g.workload.describe()))
        .collect::<Vec<_>>()
        .join(" + ")
}

/// `group NAME: ` for a named group, nothing for a point's one workload.
fn in_group(group: &Group) -> String {
    match group.name.as_str() {
        "" => String::new(),
        name => format!("group {name}: "),
    }
}

/// The bytes of a given target a group's jobs work on.
fn region(group: &Group) -> std::ops::Range<u64> {
    let workload = &group.workload;
    workload.offset..workload.region_end()
}

/// A group's region as `bytes START..END`.
fn describe_region(group: &Group) -> String {
    let region = region(group);
    format!("bytes {}..{}", region.start, region.end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Op, default_workload};

    fn group(name: &str, op: Op) -> Group {
        Group {
            name: name.to_string(),
            workload: crate::plan::Workload {
                op,
                ..default_workload()
            },
        }
    }

    #[test]
    fn names_are_words_and_unique() {
        assert!(check_groups(&[group("reader", Op::Read), group("logger", Op::Write)]).is_ok());
        for bad in ["", "all", "1st", "a b", "a.b", "x\u{7}", "read"] {
            let error =
                check_groups(&[group("first", Op::Read), group(bad, Op::Read)]).unwrap_err();
            assert!(error.to_string().contains("group name"), "{bad}: {error}");
        }
        let error = check_groups(&[group("a", Op::Read), group("a", Op::Write)]).unwrap_err();
        assert!(error.to_string().contains("given twice"), "{error}");
    }

    #[test]
    fn the_points_settings_must_agree_and_one_workloads_features_are_refused() {
        let mut second = group("b", Op::Write);
        second.workload.repeat = 5;
        let error = check_groups(&[group("a", Op::Read), second]).unwrap_err();
        assert!(error.to_string().contains("--repeat"), "{error}");
        // A tree beside files is a point; two trees are not.
        let mut tree = group("t", Op::Create);
        tree.workload.items = Some(10);
        assert!(check_groups(&[tree.clone(), group("r", Op::Read)]).is_ok());
        let mut other = tree.clone();
        other.name = "u".to_string();
        let error = check_groups(&[tree, other]).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("group u: a point holds one tree"),
            "{error}"
        );
        let mut verify = group("v", Op::Write);
        verify.workload.verify = true;
        assert!(check_groups(&[verify, group("r", Op::Read)]).is_ok());
    }

    #[test]
    fn the_label_names_every_group() {
        let label = describe_groups(&[group("reader", Op::Read), group("logger", Op::Write)]);
        assert!(label.starts_with("reader: read"), "{label}");
        assert!(label.contains(" + logger: write"), "{label}");
    }

    #[test]
    fn groups_share_a_lun_in_disjoint_regions_and_offsets_need_a_given_target() {
        let lun = Site::Lun {
            flag: "--target iscsi://h/iqn/1",
        };
        let mut reader = group("r", Op::Read);
        let mut writer = group("w", Op::Rewrite);
        (reader.workload.size, writer.workload.size) = (8 << 20, 8 << 20);
        reader.workload.jobs = 2;
        let error = check_site(&[reader.clone(), writer.clone()], lun).unwrap_err();
        assert!(
            error.to_string().contains("group w's region")
                && error.to_string().contains("--offset 8388608 for group w"),
            "{error}"
        );
        writer.workload.offset = 8 << 20;
        assert!(check_site(&[reader.clone(), writer.clone()], lun).is_ok());
        // Two readers may share blocks, as fio's jobs on one filename do.
        let other = group("s", Op::Read);
        assert!(check_site(&[reader.clone(), other], lun).is_ok());
        let error = check_site(&[writer], Site::Made).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("group w: --offset 8388608 places"),
            "{error}"
        );
    }
}
