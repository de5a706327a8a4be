//! What a point may combine, refused in one place, each refusal one line: its groups with each other ([`check_groups`]), with where they run ([`check_site`]), with MPI and a network target ([`check_point`], [`check_reach`], which the plan asks before anything is made), an engine with its queue ([`check_queued`]), `--ops` phases ([`check_phases`]), and what a trace takes ([`check_trace`]).

use super::group::{Group, MAX_GROUP_JOBS, MAX_GROUPS, name_problem};
use super::param::Param;
use super::{CacheMode, EngineKind, Machine, Op, UsageError, Work, Workload, default_workload};
use crate::usage;

/// The parameters a trace point takes besides its trace: the replay's
/// engine, depth cap and O_DIRECT, and how its repetitions are taken. Each
/// other one is the trace's to say (sizes, offsets, directions, times) and
/// refused when given.
pub const TRACE_TAKES: [Param; 6] = [
    Param::Trace,
    Param::TraceSpeed,
    Param::Engine,
    Param::Iodepth,
    Param::Direct,
    Param::Cache,
];

/// Refuses what a trace point cannot do: a parameter the trace decides, an
/// engine the replayer does not drive, a cache treatment other than cold
/// (the file is laid out, synced and evicted before every replay), and
/// what changes drawn I/O, which a trace does not draw.
pub fn check_trace(workload: &Workload) -> Result<(), String> {
    let Some(trace) = workload.trace else {
        if !workload.trace_speed.is_one() {
            return Err(format!(
                "--trace-speed {} needs --trace: it scales a trace's times",
                workload.trace_speed
            ));
        }
        return Ok(());
    };
    if workload.machine == super::Machine::Guest {
        return Err(format!(
            "--trace {trace} with --machine guest: iolab replay {trace} --guest KEYS replays a trace in a guest"
        ));
    }
    let defaults = default_workload();
    if let Some(param) = Param::ALL
        .iter()
        .filter(|p| !TRACE_TAKES.contains(p))
        .find(|p| p.value_in(workload) != p.value_in(&defaults))
    {
        return Err(format!(
            "--{} does nothing with --trace {trace}: the trace gives each I/O's kind, offset, size and time (a trace point takes --trace-speed, --engine, --iodepth and --direct)",
            param.name()
        ));
    }
    // A trace point replays onto a file it makes: no network client.
    let engine = workload.engine.capabilities();
    if !engine.replays_trace || engine.network.is_some() {
        return Err(format!(
            "--engine {} does not replay a trace: give uring or libaio (up to --iodepth in flight), psync or null; iolab replay --target reaches NFS and iSCSI",
            workload.engine.name()
        ));
    }
    if workload.cache != CacheMode::Cold {
        return Err(format!(
            "--cache {} with --trace: the trace's file is laid out and evicted before every replay (cold)",
            format!("{:?}", workload.cache).to_lowercase()
        ));
    }
    if workload.verify
        || workload.steady.is_some()
        || workload.latency_target.is_some()
        || workload.priority.is_some()
    {
        return Err(format!(
            "--trace {trace} replays the trace as it is: --verify, --steady, --latency-target and --priority are for drawn I/O (--repeat and --until-ci take replays)"
        ));
    }
    Ok(())
}

/// Refuses `--iodepth` or `--batch` given (`given` answers with the text
/// given for a parameter) to an engine that keeps no queue, and `--sqpoll`
/// to any but io_uring's.
pub fn check_queued(
    workload: &Workload,
    given: impl Fn(Param) -> Option<String>,
) -> Result<(), String> {
    if workload.sq_poll && !workload.engine.capabilities().polled_submission {
        return Err(format!(
            "--sqpoll: a kernel thread polls io_uring's submission queue; engine {} has none (--engine uring)",
            workload.engine.name()
        ));
    }
    if workload.engine.capabilities().queued {
        return Ok(());
    }
    match [Param::Iodepth, Param::Batch, Param::Reap]
        .into_iter()
        .find_map(|param| Some((param, given(param)?)))
    {
        Some((param, text)) => Err(format!(
            "--{} {text} needs a queued engine (uring); engine {} is synchronous",
            param.name(),
            workload.engine.name()
        )),
        None => Ok(()),
    }
}

/// Refuses `--ops` phases where there is no one tree to run them over:
/// with groups, or without `--items`.
pub fn check_phases(workload: &Workload, grouped: bool) -> Result<(), UsageError> {
    if grouped {
        return Err(usage!(
            "--ops runs phases of one tree; it cannot go with --group"
        ));
    }
    if workload.work() != Work::Tree {
        return Err(usage!(
            "--ops runs phases over a tree: give --items N (items per directory, mdtest -I)"
        ));
    }
    Ok(())
}

/// A network target as far as what a point may combine goes: the engine
/// that reaches it and the URL as given.
#[derive(Clone, Copy, Debug)]
pub struct Reach<'a> {
    pub engine: EngineKind,
    pub text: &'a str,
}

/// Refuses, naming the group, an engine that does not reach where the
/// point works: a target reached with another engine, or a network engine
/// without a target (`form`: the URL form its target takes).
pub fn check_reach(
    group: &Group,
    reach: Option<Reach<'_>>,
    form: Option<&str>,
) -> Result<(), UsageError> {
    let named = in_group(group);
    let engine = group.workload.engine;
    match (reach, form) {
        (Some(reach), _) if reach.engine != engine => Err(usage!(
            "{named}--target {} is reached with --engine {}, not --engine {}",
            reach.text,
            reach.engine.name(),
            engine.name()
        )),
        (None, Some(form)) => Err(usage!(
            "{named}--engine {} needs --target {form}",
            engine.name()
        )),
        _ => Ok(()),
    }
}

/// Where a plan's points run, as far as what they may combine goes.
#[derive(Clone, Copy, Debug)]
pub struct Where<'a> {
    pub site: Site<'a>,
    /// Whether the files iolab makes lie in a local directory (not in a
    /// network target's space).
    pub local: bool,
    /// Whether each point runs on every rank of an MPI job (`--mpi`, even
    /// of one rank).
    pub distributed: bool,
    /// Over MPI, whether every rank works on one file (`--shared-file`).
    pub shared_file: bool,
}

/// Refuses, in one line naming the group, what a point cannot combine:
/// its groups with each other ([`check_groups`]) and with their site
/// ([`check_site`]), a new file's write on the user's file, a trace or a
/// guest with MPI or a network target, a guest with a given file or LUN, and what a distributed run cannot
/// measure (`--steady`, `--offset-increment`, a stonewalled tree; with
/// `--shared-file` the mmap engine and sizes off a page). Asked for every point before
/// anything is made.
pub fn check_point(groups: &[Group], at: &Where<'_>) -> Result<(), UsageError> {
    check_groups(groups)?;
    check_site(groups, at.site)?;
    for group in groups {
        let named = in_group(group);
        let w = &group.workload;
        // The user's file: a guest's raw disk, which the runner is given in
        // the guest, is written in place as dd writes it.
        if let (Site::Given { flag, made: false }, Op::Write) = (at.site, w.op) {
            return Err(usage!(
                "{named}--op write creates a new file; with {flag} use --op rewrite, read or reread"
            ));
        }
        if let Some(trace) = w.trace {
            if at.distributed {
                return Err(usage!(
                    "{named}--trace {trace}: a trace is replayed by one thread on one host; it is not run over MPI"
                ));
            }
            if w.uses_files() && !at.local {
                return Err(usage!(
                    "{named}--trace {trace} replays onto a file iolab makes in a local --dir; iolab replay {trace} --file or --target takes yours"
                ));
            }
        }
        if w.machine == Machine::Guest {
            let refused = match at.site {
                Site::Given { flag, .. } | Site::Lun { flag } => Some(flag),
                Site::Made if at.distributed => Some("--mpi"),
                Site::Made if !at.local => Some("--target"),
                Site::Made => None,
            };
            if let Some(flag) = refused {
                return Err(usage!(
                    "{named}--guest cannot be used with {flag}: a guest point runs on one host, its disk an image in a local --dir (a guest joins a distributed run as a host of its own: iolab guest up, docs/distributed.md)"
                ));
            }
        }
        if at.distributed {
            check_distributed(w, at.shared_file).map_err(|why| usage!("{named}{why}"))?;
        }
    }
    Ok(())
}

/// What a distributed run cannot measure of `workload`.
fn check_distributed(workload: &Workload, shared_file: bool) -> Result<(), String> {
    if workload.items.is_some() && workload.runtime_s.is_some() {
        return Err(
            "--runtime stonewalls a metadata phase on one host; over --mpi every rank works on the whole tree (leave out --runtime)"
                .to_string(),
        );
    }
    if workload.offset_increment > 0 {
        return Err(format!(
            "--offset-increment {} cannot be used with --mpi: each rank numbers its jobs from 0, so ranks would take the same regions",
            workload.offset_increment
        ));
    }
    if let Some(steady) = workload.steady {
        return Err(format!(
            "--steady {steady} cannot be used with --mpi: each rank would stop on its own"
        ));
    }
    if shared_file && workload.engine.capabilities().maps_file {
        return Err(
            "--engine mmap cannot be used with --shared-file: it maps the file from offset 0"
                .to_string(),
        );
    }
    if shared_file && workload.size % 4096 != 0 {
        return Err(format!(
            "--size {} with --shared-file must be a multiple of 4096 bytes: each region starts on a page",
            workload.size
        ));
    }
    Ok(())
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
    /// over all of it, as fio's jobs sharing one `filename=`; `made` when
    /// iolab makes it for a job file's `filename=` that names no file yet
    /// (its write jobs write it first, as fio's do).
    Given { flag: &'a str, made: bool },
    /// An iSCSI LUN (`flag` names it): each job logs in on its own.
    Lun { flag: &'a str },
}

/// Refuses, in one line, what a point's `groups` cannot combine with where
/// they run: `--offset` or a verified read on files iolab makes (nothing
/// sealed them), a trace or a tree on a given
/// target,
/// groups whose regions of a LUN overlap while one writes, and `--verify`
/// where several jobs would overwrite each other's sealed blocks. The plan
/// asks as soon as it knows the site; the runner asks again for points
/// that reach it another way (a study's, a guest's).
pub fn check_site(groups: &[Group], site: Site<'_>) -> Result<(), UsageError> {
    if let (Some(group), false) = (
        groups.iter().find(|g| g.workload.zbd.is_some()),
        matches!(site, Site::Given { .. }),
    ) {
        return Err(usage!(
            "{}--zbd emulates zones on a file or device you gave (--file), which every job shares; the files iolab makes are one per job",
            in_group(group)
        ));
    }
    let (Site::Given { flag, .. } | Site::Lun { flag }) = site else {
        if let Some(group) = groups
            .iter()
            .find(|g| g.workload.verify && !g.workload.op.writes())
        {
            return Err(usage!(
                "{}--verify on a read checks a file written with --verify (and kept with --keep) or an iSCSI LUN's region; give it with --file or --target iscsi://…",
                in_group(group)
            ));
        }
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
    // Jobs each on a region of their own (fio's offset_increment at least
    // the size) check their own blocks.
    let apart = |group: &Group| {
        group.workload.jobs == 1 || group.workload.offset_increment >= group.workload.size
    };
    let own_regions = groups.len() == 1 && groups.iter().all(apart);
    if jobs > 1 && !own_regions && groups.iter().any(|group| group.workload.verify) {
        return Err(usage!(
            "--verify on {flag} checks one job's blocks: {jobs} jobs over it would overwrite each other's sealed blocks or check them twice; verify with one job, or give each job its own region (--offset-increment of at least --size)"
        ));
    }
    Ok(())
}

/// `group NAME: ` for a named group, nothing for a point's one workload.
pub fn in_group(group: &Group) -> String {
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
    use super::super::{EngineKind, TraceSpeed};
    use super::*;

    fn group(name: &str, op: Op) -> Group {
        Group {
            name: name.to_string(),
            workload: Workload {
                op,
                ..default_workload()
            },
        }
    }

    /// A trace or a guest cannot go over MPI or onto a network target;
    /// what a distributed run cannot measure is refused with --mpi alone,
    /// each naming its group.
    #[test]
    fn a_point_refuses_what_its_site_and_mpi_cannot_take() {
        let alone = Where {
            site: Site::Made,
            local: true,
            distributed: false,
            shared_file: false,
        };
        let over_mpi = Where {
            distributed: true,
            ..alone
        };
        let on_export = Where {
            local: false,
            ..alone
        };
        let mut trace = group("t", Op::Read);
        trace.workload.trace = Some("t.iolog".parse().unwrap());
        let reader = group("r", Op::Read);
        let both = [trace.clone(), reader.clone()];
        assert!(check_point(&both, &alone).is_ok());
        let refused = check_point(&both, &over_mpi).unwrap_err().to_string();
        assert!(
            refused.starts_with("group t: --trace t.iolog") && refused.contains("MPI"),
            "{refused}"
        );
        let refused = check_point(&both, &on_export).unwrap_err().to_string();
        assert!(refused.contains("a local --dir"), "{refused}");
        let mut guest = reader.clone();
        guest.workload.machine = Machine::Guest;
        let given = Where {
            site: Site::Given {
                flag: "--file f",
                made: false,
            },
            ..alone
        };
        for (at, flag) in [
            (&over_mpi, "--mpi"),
            (&on_export, "--target"),
            (&given, "--file f"),
        ] {
            let refused = check_point(std::slice::from_ref(&guest), at)
                .unwrap_err()
                .to_string();
            assert!(
                refused.starts_with(&format!("group r: --guest cannot be used with {flag}:")),
                "{refused}"
            );
        }
        // A new file's write on the user's file is refused; the runner,
        // given a guest's raw disk, writes it in place as dd does.
        let writer = group("w", Op::Write);
        let refused = check_point(std::slice::from_ref(&writer), &given)
            .unwrap_err()
            .to_string();
        assert!(
            refused.starts_with("group w: --op write creates a new file"),
            "{refused}"
        );
        assert!(check_site(std::slice::from_ref(&writer), given.site).is_ok());
        let mut steady = reader;
        steady.workload.steady = Some("iops:range<2%/30s".parse().unwrap());
        steady.workload.runtime_s = Some(60.0);
        check_point(std::slice::from_ref(&steady), &alone).unwrap();
        let refused = check_point(&[steady], &over_mpi).unwrap_err().to_string();
        assert!(refused.contains("--steady"), "{refused}");
    }

    #[test]
    fn a_trace_point_refuses_what_the_trace_decides() {
        let mut workload = default_workload();
        workload.trace = Some("t.iolog".parse().unwrap());
        workload.engine = EngineKind::Uring;
        workload.iodepth = 8;
        assert_eq!(check_trace(&workload), Ok(()));
        workload.bs = 65536;
        let refused = check_trace(&workload).unwrap_err();
        assert!(
            refused.starts_with("--bs does nothing with --trace"),
            "{refused}"
        );
        workload.bs = default_workload().bs;
        workload.engine = EngineKind::Mmap;
        assert!(
            check_trace(&workload)
                .unwrap_err()
                .contains("--engine mmap")
        );
        let mut plain = default_workload();
        plain.trace_speed = TraceSpeed::Afap;
        assert!(check_trace(&plain).unwrap_err().contains("needs --trace"));
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
