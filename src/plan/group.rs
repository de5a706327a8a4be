//! Job groups: several different workloads in one point (`Group`), each with its own jobs, run at once on one clock; their names, and what identifies a point of them (`describe_groups`). What groups may combine is `combine.rs`'s.
//!
//! A point of one workload run by N identical jobs is what iolab measured
//! before groups; it stays so, with no groups. A point of groups holds two
//! or more (or one named) workloads — a reader beside a paced logger — whose
//! jobs are released together, each group's timed region starting after
//! its own ramp. The repetition, warm-up, interval and machine settings are
//! the point's, so every group shares them.

use super::Workload;

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

/// The label of a point of groups: each group's name and workload.
pub fn describe_groups(groups: &[Group]) -> String {
    groups
        .iter()
        .map(|g| format!("{}: {}", g.name, g.workload.describe()))
        .collect::<Vec<_>>()
        .join(" + ")
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
    fn the_label_names_every_group() {
        let label = describe_groups(&[group("reader", Op::Read), group("logger", Op::Write)]);
        assert!(label.starts_with("reader: read"), "{label}");
        assert!(label.contains(" + logger: write"), "{label}");
    }
}
