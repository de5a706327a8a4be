//! `run --group NAME …`: the command line split into the point's arguments and each group's, and each group's workload parameters applied over the point's.
//!
//! `iolab run --dir D --size 1g --group reader --op read --pattern random
//! --bs 8k --group logger --op write --bs 4k --rate-iops 2000 --sync odsync`:
//! what comes before the first `--group` is every group's (as fio's
//! `[global]`), and each `--group NAME` is followed by its own workload
//! parameters only. clap cannot parse one flag per group, so the segments
//! are taken out before it parses the rest.

use super::params::ParamFlags;
use crate::plan::group::Group;
use crate::plan::steady::SteadyCriterion;
use crate::plan::sweep::groups::GroupSweep;
use crate::plan::sweep::{Param, parse_axis};
use crate::plan::{UsageError, Workload};
use crate::usage;
use clap::{Args, FromArgMatches};
use std::ffi::OsString;

/// One `--group NAME …` of the command line, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupArgs {
    /// The name after `--group`.
    pub name: String,
    /// The arguments after it, up to the next `--group`.
    pub args: Vec<OsString>,
    /// `--verify` in its segment: this group's writes are sealed and checked.
    pub verify: bool,
    /// `--steady CRITERION` in its segment, as written: the pass may end
    /// once this group's jobs meet it.
    pub steady: Option<OsString>,
}

/// `raw` (the whole command line) with each `--group NAME …` segment of a
/// `run` or a `sweep` taken out, and the segments. In a segment, workload parameters
/// (and their values) are the group's; any other option of `run` (with
/// its value) goes back to the point's, so `-o r.json` may come last. A
/// `--group` with no name after it is left for clap to refuse.
/// `--set NAME.PARAM=VALUE`, anywhere after the subcommand, is
/// `--PARAM VALUE` given in group NAME's segment (a list in a sweep);
/// naming no group given is an error.
pub fn split_groups(raw: &[OsString]) -> Result<(Vec<OsString>, Vec<GroupArgs>), String> {
    let Some(subcommand @ ("run" | "sweep")) = raw.get(1).and_then(|a| a.to_str()) else {
        return Ok((raw.to_vec(), Vec::new()));
    };
    let mut command = <super::Cli as clap::CommandFactory>::command();
    command.build();
    let run = command
        .find_subcommand(subcommand)
        .expect("run and sweep are subcommands")
        .clone();
    let mut main = Vec::new();
    let mut groups: Vec<GroupArgs> = Vec::new();
    let mut sets: Vec<String> = Vec::new();
    let mut args = raw.iter().peekable();
    while let Some(arg) = args.next() {
        let text = arg.to_str().unwrap_or("");
        if text == "--set" {
            match args.next() {
                Some(value) => sets.push(value.to_string_lossy().into_owned()),
                None => return Err("--set needs NAME.PARAM=VALUE".to_string()),
            }
            continue;
        }
        if let Some(value) = text.strip_prefix("--set=") {
            sets.push(value.to_string());
            continue;
        }
        let name = match text.strip_prefix("--group") {
            Some("") => match args.peek().and_then(|n| n.to_str()) {
                Some(name) if !name.starts_with('-') => {
                    let name = name.to_string();
                    args.next();
                    Some(name)
                }
                _ => None,
            },
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        if let Some(name) = name {
            groups.push(GroupArgs {
                name,
                args: Vec::new(),
                verify: false,
                steady: None,
            });
            continue;
        }
        let Some(group) = groups.last_mut() else {
            main.push(arg.clone());
            continue;
        };
        // A check of what the group wrote is the group's, not the point's.
        if text == "--verify" {
            group.verify = true;
            continue;
        }
        // So is a steady-state stop: the pass ends when its jobs settle.
        if let Some(value) = text.strip_prefix("--steady=") {
            group.steady = Some(OsString::from(value));
            continue;
        }
        if text == "--steady" {
            group.steady = Some(args.next().cloned().unwrap_or_default());
            continue;
        }
        match option_of(&run, text) {
            // Not a workload parameter: the point's, with its value.
            Some((false, takes_value, joined)) => {
                main.push(arg.clone());
                if takes_value && !joined {
                    main.extend(args.next().cloned());
                }
            }
            // A parameter's flag, its value, or what clap will refuse.
            _ => group.args.push(arg.clone()),
        }
    }
    for set in sets {
        let parsed = set
            .split_once('=')
            .and_then(|(key, value)| Some((key.split_once('.')?, value)));
        let Some(((name, param), value)) =
            parsed.filter(|((n, p), _)| !n.is_empty() && !p.is_empty())
        else {
            return Err(format!("--set {set}: give NAME.PARAM=VALUE (logger.bs=4k)"));
        };
        let Some(group) = groups.iter_mut().find(|g| g.name == name) else {
            return Err(format!("--set {set}: there is no --group {name}"));
        };
        group.args.push(OsString::from(format!("--{param}")));
        group.args.push(OsString::from(value));
    }
    Ok((main, groups))
}

/// The option of `run` that `text` names (`--dir`, `--dir=D`, `-o`,
/// `-oFILE`): whether it is a workload parameter, whether it takes a
/// value, and whether the value is joined to it. `None` for what is not
/// an option `run` knows.
fn option_of(run: &clap::Command, text: &str) -> Option<(bool, bool, bool)> {
    let (arg, joined) = if let Some(long) = text.strip_prefix("--") {
        let (name, joined) = match long.split_once('=') {
            Some((name, _)) => (name, true),
            None => (long, false),
        };
        let arg = run.get_arguments().find(|a| {
            a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|all| all.contains(&name))
        })?;
        (arg, joined)
    } else {
        let mut chars = text.strip_prefix('-')?.chars();
        let short = chars.next()?;
        let arg = run.get_arguments().find(|a| a.get_short() == Some(short))?;
        (arg, chars.next().is_some())
    };
    let parameter = Param::ALL.iter().any(|p| arg.get_id() == p.name());
    let takes_value = arg.get_action().takes_values()
        && arg
            .get_num_args()
            .is_none_or(|range| range.min_values() > 0);
    Some((parameter, takes_value, joined))
}

/// The workload parameters one `--group` gives, as written; any other
/// flag is refused, naming the group.
fn flags_of(group: &GroupArgs) -> Result<ParamFlags, UsageError> {
    let name = &group.name;
    let command = ParamFlags::augment_args(clap::Command::new("group").no_binary_name(true));
    let matches = command.try_get_matches_from(&group.args).map_err(|error| {
        let text = error.to_string();
        let first = text
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ");
        usage!(
            "--group {name}: {first} (a group takes workload parameters only: \
             give the others before the first --group)"
        )
    })?;
    ParamFlags::from_arg_matches(&matches).map_err(|e| usage!("--group {name}: {e}"))
}

/// The `--steady` of a group's segment, parsed; its error names the group.
fn steady_of(group: &GroupArgs) -> Result<Option<SteadyCriterion>, UsageError> {
    let Some(text) = &group.steady else {
        return Ok(None);
    };
    let text = text.to_string_lossy();
    text.parse()
        .map(Some)
        .map_err(|e| usage!("--group {}: --steady {text}: {e}", group.name))
}

/// A sweep's groups (`iolab sweep … --group logger --bs 4k,16k`): each
/// group's one values fixed over the sweep's base, its lists and ranges
/// its own axes, varied while the other groups stay.
pub fn group_sweeps(given: &[GroupArgs]) -> Result<Vec<GroupSweep>, UsageError> {
    let mut sweeps = Vec::new();
    for group in given {
        let name = &group.name;
        if let Some(problem) = crate::plan::group::name_problem(name) {
            return Err(usage!("group name '{name}' {problem}"));
        }
        if given.iter().filter(|g| g.name == *name).count() > 1 {
            return Err(usage!("group name '{name}' is given twice"));
        }
        let mut sweep = GroupSweep {
            name: name.clone(),
            fixed: Vec::new(),
            axes: Vec::new(),
            verify: group.verify,
            steady: steady_of(group)?,
            latency_target: None,
            priority: None,
        };
        for (param, text) in &flags_of(group)?.given {
            let axis = parse_axis(*param, text).map_err(|e| usage!("--group {name}: {e}"))?;
            match axis.values.as_slice() {
                [single] => sweep.fixed.push((*param, *single)),
                _ => sweep.axes.push(axis),
            }
        }
        sweeps.push(sweep);
    }
    Ok(sweeps)
}

/// The groups `given` describes, each `base` (the point's workload) with
/// its own parameters applied; every flag that is not a workload
/// parameter is refused, naming the group.
pub fn groups(base: &Workload, given: &[GroupArgs]) -> Result<Vec<Group>, UsageError> {
    let mut groups = Vec::new();
    for group in given {
        let name = &group.name;
        let flags = flags_of(group)?;
        let mut workload = base.clone();
        flags
            .apply_single(&mut workload)
            .map_err(|e| usage!("--group {name}: {e}"))?;
        workload.verify |= group.verify;
        if let Some(steady) = steady_of(group)? {
            workload.steady = Some(steady);
        }
        crate::plan::combine::check_queued(&workload, |param| flags.get(param).map(str::to_string))
            .map_err(|why| usage!("--group {name}: {why}"))?;
        groups.push(Group {
            name: name.clone(),
            workload,
        });
    }
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn segments_are_taken_out_of_run_only() {
        let (main, groups) = split_groups(&os(&[
            "iolab",
            "run",
            "--size",
            "1m",
            "--group",
            "a",
            "--op",
            "read",
            "--group=b",
            "--op",
            "write",
        ]))
        .unwrap();
        assert_eq!(main, os(&["iolab", "run", "--size", "1m"]));
        assert_eq!(groups.len(), 2);
        assert_eq!((groups[0].name.as_str(), groups[0].args.len()), ("a", 2));
        assert_eq!(groups[1].name, "b");
        // The point's options may come after the groups.
        let (main, groups) = split_groups(&os(&[
            "iolab", "run", "--group", "a", "--op", "read", "-o", "r.json", "--dir=/d", "--bs",
            "4k", "--keep",
        ]))
        .unwrap();
        assert_eq!(
            main,
            os(&["iolab", "run", "-o", "r.json", "--dir=/d", "--keep"])
        );
        assert_eq!(groups[0].args, os(&["--op", "read", "--bs", "4k"]));
        let other = os(&["iolab", "study", "--group", "a"]);
        assert_eq!(split_groups(&other).unwrap().0, other);
        // No name: clap says a value is missing.
        let (main, groups) =
            split_groups(&os(&["iolab", "run", "--group", "--op", "read"])).unwrap();
        assert!(groups.is_empty());
        assert_eq!(main.len(), 5);
    }

    #[test]
    fn set_gives_a_named_groups_parameter_wherever_it_stands() {
        let (main, groups) = split_groups(&os(&[
            "iolab",
            "sweep",
            "--set",
            "logger.bs=4k,16k",
            "--group",
            "reader",
            "--group",
            "logger",
            "--op",
            "write",
            "--set=reader.iodepth=1",
            "-o",
            "s.json",
        ]))
        .unwrap();
        assert_eq!(main, os(&["iolab", "sweep", "-o", "s.json"]));
        assert_eq!(groups[0].args, os(&["--iodepth", "1"]));
        assert_eq!(groups[1].args, os(&["--op", "write", "--bs", "4k,16k"]));
        for (set, said) in [
            (
                "nobody.bs=4k",
                "--set nobody.bs=4k: there is no --group nobody",
            ),
            (
                "logger=4k",
                "--set logger=4k: give NAME.PARAM=VALUE (logger.bs=4k)",
            ),
            (
                ".bs=4k",
                "--set .bs=4k: give NAME.PARAM=VALUE (logger.bs=4k)",
            ),
        ] {
            let refused = split_groups(&os(&["iolab", "run", "--group", "logger", "--set", set]));
            assert_eq!(refused.unwrap_err(), said);
        }
    }

    #[test]
    fn verify_in_a_segment_is_that_groups() {
        let raw = os(&[
            "iolab", "run", "--group", "w", "--op", "write", "--verify", "--group", "r",
        ]);
        let (main, groups) = split_groups(&raw).unwrap();
        assert_eq!(main, os(&["iolab", "run"]));
        assert!(groups[0].verify && !groups[1].verify);
        assert_eq!(groups[0].args, os(&["--op", "write"]));
    }

    #[test]
    fn a_group_overrides_the_points_parameters_and_takes_nothing_else() {
        let base = crate::plan::default_workload();
        let given = [
            GroupArgs {
                name: "reader".into(),
                args: os(&["--op", "read", "--bs", "8k"]),
                verify: false,
                steady: None,
            },
            GroupArgs {
                name: "logger".into(),
                args: os(&["--op", "write", "--rate-iops", "2000"]),
                verify: false,
                steady: None,
            },
        ];
        let made = groups(&base, &given).unwrap();
        assert_eq!(made[0].workload.bs, 8192);
        assert_eq!(made[1].workload.bs, base.bs);
        assert_eq!(made[1].workload.target_iops(), Some(2000.0));
        let refused = [GroupArgs {
            name: "x".into(),
            args: os(&["--dir", "/tmp"]),
            verify: false,
            steady: None,
        }];
        let error = groups(&base, &refused).unwrap_err().to_string();
        assert!(error.starts_with("--group x: "), "{error}");
        assert!(error.contains("--dir"), "{error}");
        let queued = [GroupArgs {
            name: "q".into(),
            args: os(&["--iodepth", "8"]),
            verify: false,
            steady: None,
        }];
        assert!(groups(&base, &queued).is_err());
    }
}
