//! fio job files read as they are (`iolab run JOB.fio`): fio's ini format — `[global]` inheritance, bare flags, `${VAR}` from the environment, `$ncpus`/`$mb_memory`/`$pagesize` and arithmetic, fio's units and `kb_base` — each job section one group, phases by `stonewall` and `wait_for`, every option mapped through the table `iolab import` uses or refused by name and line.
//!
//! The sections between two phase boundaries run at once, as fio runs
//! them: one point of groups per phase, in file order.

mod checks;
pub mod command_line;
mod exits;
pub(in crate::import) mod latency;
pub mod logs;
mod options;
pub(in crate::import) mod priority;
mod steady;
mod text;

use super::units::fio_size;
use super::{option, workload};
use crate::plan::UsageError;
use crate::plan::group::{Group, name_problem};
use crate::usage;
use checks::{
    blockalign_note, check_files, check_wait_for, first_refusal, network_target, one_tree,
    random_map_note, rw_base, rw_writes, verification,
};
use options::ALIASES;
use serde_json::{Map, Value};
pub use text::Facts;
use text::{Line, Section, parse};

/// A job file translated: its phases, in order, each the groups that run
/// at once, and the directory its files go in (`directory=`).
#[derive(Clone, Debug)]
pub struct JobFile {
    /// Each phase's groups.
    pub phases: Vec<Vec<Group>>,
    /// Where the files go, when the job file says.
    pub directory: Option<String>,
    /// The file or device each phase works on (`filename=`, or the command
    /// line's `--file`), one per phase, in order — every job of a phase
    /// over all of it, as fio's jobs sharing a `filename=`; empty when the
    /// jobs work on files iolab makes.
    pub files: Vec<NamedFile>,
    /// The network target every job works on, for a job file of a network
    /// engine (fio's `nfs_url=`, or `filename=iscsi://…`): iolab's
    /// `--target`.
    pub target: Option<String>,
    /// What was read and has no effect, one line each (`thread`, …).
    pub notes: Vec<String>,
    /// The logs in fio's format its sections ask for (`write_bw_log` …).
    pub logs: Vec<logs::FioLog>,
    /// fio's steady-state check interval, seconds, when the file gives one
    /// (one for the whole file, as fio requires): the interval of the
    /// points with a criterion.
    pub steady_interval_s: Option<f64>,
}

/// A file or device a phase of a job file works on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedFile {
    /// Its path (joined to `directory=` when the job file gives a relative name).
    pub path: String,
    /// Where the job file names it (`JOB.fio line 12: filename=…`) for
    /// messages about it; `None` when it came from `--file`.
    pub named_at: Option<String>,
}

/// The file the command line gives a job file (`--file`, fio's
/// `--filename`), and how long a named file or device is (its size when
/// a job gives none, as fio takes it).
#[derive(Clone, Copy)]
pub struct Given<'a> {
    /// `--file`: every job's file, unless the job file names another.
    pub file: Option<&'a str>,
    /// The length of a file or device, bytes; `None` when it cannot be
    /// read (it does not exist).
    pub length: &'a dyn Fn(&str) -> Option<u64>,
    /// Options the command line gives after the job file (`--size 64m` as
    /// fio's `--size=64m`), in fio's form: every job's default, which a
    /// job's own key (or its `[global]`'s) overrides, as fio takes them.
    pub options: &'a [(&'static str, String)],
    /// The text of a file an `include` line names (its path joined to the
    /// including file's directory).
    pub include: &'a dyn Fn(&std::path::Path) -> Result<String, String>,
    /// The capacity of the iSCSI LUN a URL names, bytes (read at a login),
    /// for a job on it that gives no size; the error says why not.
    pub capacity: &'a dyn Fn(&str) -> Result<u64, String>,
    /// The CPUs of this machine's NUMA node N (its `cpulist`, `0-3,8`);
    /// `None` when there is no such node.
    pub node_cpus: &'a dyn Fn(usize) -> Option<String>,
    /// For a job file made from fio's command line, the argument each of
    /// its lines came from, which names the line in a refusal.
    pub arguments: Option<&'a [String]>,
}

/// Reads job file `text` (named `source` in messages) with the machine's
/// `facts`, the environment's variables through `env` and what the command
/// line gives (`given`).
pub fn translate(
    text: &str,
    source: &str,
    facts: Facts,
    env: &dyn Fn(&str) -> Option<String>,
    given: Given<'_>,
) -> Result<JobFile, UsageError> {
    let reading = text::Reading {
        facts,
        env,
        include: given.include,
        unset: std::cell::RefCell::new(None),
    };
    let sections = parse(text, source, &reading)?;
    let at = |line: usize| match (line, given.arguments) {
        (0, _) => format!("{source} (the command line)"),
        (line, Some(arguments)) => match arguments.get(line - 1) {
            Some(argument) => format!("{source}: {argument}"),
            None => format!("{source} line {line}"),
        },
        (line, None) => format!("{source} line {line}"),
    };
    let mut global: Vec<Line> = Vec::new();
    let mut jobs: Vec<(Section, Vec<Line>)> = Vec::new();
    let mut notes = Vec::new();
    first_refusal(&sections, &at)?;
    if let Some(unset) = reading.unset.take() {
        return Err(unset);
    }
    for mut section in sections {
        options::take(&mut section, &at, &mut notes)?;
        if section.name == "global" {
            global.extend(section.options);
        } else {
            let inherited = global.clone();
            jobs.push((section, inherited));
        }
    }
    if jobs.is_empty() {
        return Err(usage!("{source}: no job section (only [global])"));
    }
    let mut phases: Vec<Vec<Group>> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    // The phase of each section placed so far, by its index in `jobs`.
    let mut section_phase: Vec<usize> = Vec::new();
    // fio's exitall: one job's is every job's; each group's exit_what.
    let mut exitall = false;
    let mut exit_marks = Vec::new();
    let mut fio_group = 0;
    // The groups (by their number in file order) with a steady-state
    // criterion, and the line naming it.
    let mut steady_sections: Vec<(usize, usize)> = Vec::new();
    // Each flow id and the phase its jobs run in.
    let mut flow_phases: Vec<(u32, usize)> = Vec::new();
    let mut fio_logs = Vec::new();
    // fio's number of the next section's first job (its logs' `N`).
    let mut next_job = 1u32;
    // fio's steady-state check interval (seconds) and the line giving it
    // (`None`: fio's default).
    let mut steady_interval: Option<(f64, Option<usize>)> = None;
    let mut directory: Option<(String, usize)> = None;
    // The current phase's given file: its path and where it was named
    // (0: --file).
    let mut filename: Option<(String, usize)> = None;
    // Each phase's given file, once its first section names it.
    let mut files: Vec<(String, usize)> = Vec::new();
    // A section that makes its files, when one does.
    let mut makes_files: Option<&str> = None;
    // The network target and the section that first named it; or, with
    // `None` beside a section, a section on local files.
    let mut target: Option<(Option<String>, &str)> = None;
    for (index, (section, inherited)) in jobs.iter().enumerate() {
        // The section's own options after [global]'s: a later one wins.
        let mut lines: Vec<Line> = inherited.clone();
        lines.extend(section.options.iter().cloned());
        let mut options = Map::new();
        let mut line_of = std::collections::HashMap::new();
        for line in &lines {
            let key = ALIASES
                .iter()
                .find(|(alias, _)| *alias == line.key)
                .map_or(line.key.as_str(), |(_, key)| key);
            let value = if line.value.is_empty() {
                "1".to_string()
            } else {
                line.value.clone()
            };
            options.insert(key.to_string(), Value::String(value));
            line_of.insert(key.to_string(), line.line);
        }
        for (key, value) in given.options {
            if !options.contains_key(*key) {
                options.insert(key.to_string(), Value::String(value.clone()));
                line_of.insert(key.to_string(), 0);
            }
        }
        let line = |key: &str| line_of.get(key).copied().unwrap_or(section.line);
        let shown = &section.name;
        let kb_base = kb_base_of(&options);
        zones_to_bytes(&mut options, kb_base)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        // fio runs the job on its nodes' CPUs (numa_run_on_node_mask):
        // iolab's --cpus, read from this machine's nodes.
        if let Some(nodes) = option(&options, "numa_cpu_nodes") {
            let cpus = checks::node_cpus(nodes, &options, given.node_cpus).map_err(|why| {
                usage!(
                    "{}: [{shown}] numa_cpu_nodes={nodes}: {why}",
                    at(line("numa_cpu_nodes"))
                )
            })?;
            notes.push(format!(
                "[{shown}] numa_cpu_nodes={nodes}: iolab's --cpus {}, the CPUs of those nodes here",
                cpus.replace(',', "+")
            ));
            options.insert("cpus_allowed".to_string(), Value::String(cpus));
        }
        // A network engine's job works on its URL, iolab's --target.
        let url = network_target(&options, given.file)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        // A LUN without a size is moved whole, its capacity read at a
        // login, as fio's libiscsi engine sizes it.
        if let Some(url) = url.as_deref().filter(|_| !options.contains_key("size")) {
            let capacity = (given.capacity)(url).map_err(|why| {
                usage!(
                    "{}: [{shown}] no size= and the LUN's capacity cannot be read ({why}); give the bytes to move",
                    at(line("filename"))
                )
            })?;
            options.insert("size".to_string(), Value::String(capacity.to_string()));
        }
        match (&target, &url) {
            (Some((first, by)), url) if first != url => {
                return Err(usage!(
                    "{}: [{shown}] {}: [{by}] works on {}: iolab runs a job file's jobs on one target",
                    at(line("ioengine")),
                    url.as_deref().unwrap_or("local files"),
                    first.as_deref().unwrap_or("local files")
                ));
            }
            (None, _) => target = Some((url.clone(), shown.as_str())),
            _ => {}
        }
        // A stonewall or wait_for starts a phase, which may work on its own file.
        let starts_phase = index == 0
            || (options.contains_key("stonewall") && option(&options, "stonewall") != Some("0"))
            || options.contains_key("wait_for");
        if starts_phase {
            filename = None;
        }
        // fio's allow_file_create=0: the job's files must be there.
        let no_file_create = options.contains_key("allow_file_create")
            && !super::truthy(&options, "allow_file_create");
        let named = match (option(&options, "filename"), given.file) {
            _ if url.is_some() => None,
            (Some(name), Some(file)) if !same_file(name, option(&options, "directory"), file) => {
                return Err(usage!(
                    "{}: [{shown}] filename={name} and --file {file}: give the file once",
                    at(line("filename"))
                ));
            }
            (Some(name), _) => Some((name, line("filename"))),
            (None, Some(file)) => Some((file, 0)),
            (None, None) => None,
        };
        if let Some((name, name_line)) = named {
            // fio's list of files, `a:b` (a colon it should take as part
            // of a name is escaped, `\:`).
            if name.replace("\\:", "").contains(':') {
                return Err(usage!(
                    "{}: [{shown}] filename={name} names several files (fio's ':' list); iolab runs a job file on one file or device",
                    at(name_line)
                ));
            }
            let name = name.replace("\\:", ":");
            let path = match (option(&options, "directory"), name_line) {
                (Some(dir), line) if line > 0 && !name.starts_with('/') => format!("{dir}/{name}"),
                _ => name,
            };
            if no_file_create && (given.length)(&path).is_none() {
                return Err(usage!(
                    "{}: [{shown}] filename={path} does not exist, and allow_file_create=0 forbids making it",
                    at(line("allow_file_create"))
                ));
            }
            match (&filename, makes_files) {
                (Some((first, first_line)), _) if *first != path => {
                    return Err(usage!(
                        "{}: [{shown}] filename={path}: iolab runs the jobs of one phase on one file, and {} gives {first} (a stonewall before [{shown}] runs it after them, on its own file)",
                        at(name_line),
                        match first_line {
                            0 => "--file".to_string(),
                            line => format!("line {line}"),
                        }
                    ));
                }
                (_, Some(other)) => {
                    return Err(usage!(
                        "{}: [{shown}] filename={path}: [{other}] makes its own files; iolab runs a job file's jobs all on one given file or all on files it makes",
                        at(name_line)
                    ));
                }
                _ => {
                    if starts_phase {
                        files.push((path.clone(), name_line));
                    }
                    filename = Some((path.clone(), name_line));
                }
            }
            // A job without a size works on the whole file, as fio's does.
            if !options.contains_key("size") && !options.contains_key("filesize") {
                let Some(length) = (given.length)(&path) else {
                    return Err(usage!(
                        "{}: [{shown}] filename={path}: no size= and the file cannot be read for its length (it must exist: iolab writes only files it makes or is given)",
                        at(name_line.max(section.line))
                    ));
                };
                // From `offset=` to the end, as fio sizes it.
                let kb_base = option(&options, "kb_base").and_then(|t| t.parse().ok());
                let offset = option(&options, "offset")
                    .and_then(|text| fio_size(text, kb_base.unwrap_or(1024)))
                    .unwrap_or(0);
                let mut size = length.saturating_sub(offset);
                if let Some(increment) = option(&options, "offset_increment") {
                    size = checks::last_jobs_region(
                        &options,
                        increment,
                        size,
                        kb_base.unwrap_or(1024),
                    )
                    .map_err(|why| {
                        usage!(
                            "{}: [{shown}] offset_increment={increment} without size=: {why}",
                            at(line("offset_increment"))
                        )
                    })?;
                    let note = "offset_increment without size=: fio runs each job from its offset to the end of the file; iolab gives every job the last job's region, where each job's io_size of sequential I/O lands as fio's".to_string();
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
                options.insert("size".to_string(), Value::String(size.to_string()));
            }
        } else if let Some((first, _)) = files.first() {
            return Err(usage!(
                "{}: [{shown}] makes its own files, and the jobs before it work on {first}; iolab runs a job file's jobs all on given files or all on files it makes",
                at(section.line)
            ));
        } else if no_file_create {
            return Err(usage!(
                "{}: [{shown}] allow_file_create=0 without filename=: iolab would make this job's files",
                at(line("allow_file_create"))
            ));
        } else {
            makes_files.get_or_insert(shown.as_str());
        }
        if let Some(dir) = option(&options, "directory") {
            match &directory {
                Some((first, first_line)) if first != dir => {
                    return Err(usage!(
                        "{}: [{shown}] directory={dir}: iolab runs every job in one directory, and line {first_line} gives {first}",
                        at(line("directory"))
                    ));
                }
                _ => directory = Some((dir.to_string(), line("directory"))),
            }
        }
        // `time_based=0` is fio's default, not a time-based job; a runtime
        // without it caps a size-bound job (`--time-limit`).
        // fio drops time_based without a runtime ("time_based requires a
        // runtime/timeout setting") and runs the job once through.
        if !options.contains_key("runtime") && super::truthy(&options, "time_based") {
            options.remove("time_based");
            let note = "time_based without runtime: dropped, as fio drops it (it needs a runtime): the job runs once through".to_string();
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        let kb_base = option(&options, "kb_base").unwrap_or("1024");
        if !matches!(kb_base, "1024" | "1000") {
            return Err(usage!(
                "{}: [{shown}] kb_base={kb_base}: fio takes 1024 or 1000",
                at(line("kb_base"))
            ));
        }
        for key in ["size", "filesize"] {
            if let Some(size) = option(&options, key) {
                if fio_size(size, kb_base.parse().unwrap_or(1024)).is_none() {
                    return Err(usage!(
                        "{}: [{shown}] {key}={size} is not a size iolab reads (a percentage or a range is not)",
                        at(line(key))
                    ));
                }
            }
        }
        check_files(&options, &line_of)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        let rw = option(&options, "rw").unwrap_or("read");
        let writes = rw_writes(rw);
        let mut workload = workload(&options, writes, true).map_err(|why| {
            let key = why
                .split(['=', ' ', ':'])
                .next()
                .filter(|k| line_of.contains_key(*k))
                .unwrap_or("");
            usage!("{}: [{shown}] {why}", at(line(key)))
        })?;
        if let Some(note) = whole_blocks(&mut workload, shown) {
            notes.push(note);
        }
        // fio's null engine queues up to iodepth; iolab's is synchronous.
        let depth = option(&options, "iodepth").and_then(|d| d.trim().parse::<u64>().ok());
        if let (crate::plan::EngineKind::Null, Some(depth @ 2..)) = (workload.engine, depth) {
            let note = format!(
                "iodepth={depth} on the null engine: iolab's null engine is synchronous (depth 1), where fio's queues up to iodepth; its figures are one I/O at a time"
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        // fio runs a job file's write jobs on files it makes for them, and
        // does not lay them out first (measured, fio 3.33 on ext4: it
        // preallocates with fallocate and writes each block once): iolab's
        // write of new files. An imported fio result could have overwritten
        // files that were there; a job file run here cannot.
        let note = match (rw.split_once(':'), workload.pattern) {
            (Some(_), crate::plan::Pattern::Stride(every)) => Some(format!(
                "rw={rw}: iolab's pattern stride:{every}, the same I/Os and bytes; past the file's end fio wraps to its start and visits blocks again, iolab's stride shifts one block so each pass visits every block once"
            )),
            (Some(_), crate::plan::Pattern::Reverse) => Some(format!(
                "rw={rw}: iolab's pattern reverse, the same I/Os and bytes; fio visits block 0 first and then walks back from the second-to-last block, iolab from the last"
            )),
            _ => None,
        };
        if let Some(note) = note.filter(|note| !notes.contains(note)) {
            notes.push(note);
        }
        // A filename= that names no file yet is made for the run, as fio
        // makes it: its write jobs write it first, not over a layout.
        // (A node in /dev has no length either: /dev/null and /dev/zero
        // are written in place.)
        let new_file = filename
            .as_ref()
            .is_some_and(|(path, _)| !path.starts_with("/dev/") && (given.length)(path).is_none());
        if matches!(rw_base(rw), "write" | "randwrite")
            && workload.op == crate::plan::Op::Rewrite
            && (filename.is_none() || new_file)
        {
            workload.op = crate::plan::Op::Write;
        }
        if let Some(note) = blockalign_note(&workload, &options).filter(|n| !notes.contains(n)) {
            notes.push(note);
        }
        if let Some(note) = random_map_note(&workload, &options).filter(|n| !notes.contains(n)) {
            notes.push(note);
        }
        // fio's verify_pattern alone verifies the pattern behind a header
        // (its verify=pattern writes the pattern alone).
        let method = option(&options, "verify")
            .map(|method| (method, "verify"))
            .or_else(|| option(&options, "verify_pattern").map(|_| ("pattern", "verify_pattern")));
        if let Some((method, key)) = method {
            let what = match key {
                "verify" => format!("verify={method}"),
                _ => format!("{key} (fio's verify=pattern)"),
            };
            workload.verify = verification(method, rw, &options)
                .map_err(|why| usage!("{}: [{shown}] {what}: {why}", at(line(key))))?;
            if workload.verify {
                let mut note = format!(
                    "{what}: each block written is sealed and checked from the device after the pass, untimed (fio times its verify reads as reads)"
                );
                if option(&options, "verify") == Some("pattern") {
                    note.push_str("; the pattern follows iolab's header in each block, where fio's verify=pattern writes it alone");
                }
                if !notes.contains(&note) {
                    notes.push(note);
                }
                if let Some(every) = option(&options, "verify_backlog") {
                    let parsed = every
                        .trim()
                        .parse::<u64>()
                        .ok()
                        .filter(|n| (1..=crate::plan::MAX_VERIFY_BACKLOG).contains(n));
                    let Some(every) = parsed else {
                        return Err(usage!(
                            "{}: [{shown}] verify_backlog={every}: iolab reads back from 1 to {} writes at a time",
                            at(line("verify_backlog")),
                            crate::plan::MAX_VERIFY_BACKLOG
                        ));
                    };
                    workload.verify_backlog = Some(every);
                    let note = "verify_backlog: the writes are read back and checked in the timed region, as fio's, but their reads are counted in the result's verify (backlog_blocks), not as the job's reads as fio counts them".to_string();
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
        }
        // fio's verify_interval defaults to the block size, iolab's one
        // header per block.
        if let Some(interval) = option(&options, "verify_interval") {
            let kb_base = option(&options, "kb_base").and_then(|t| t.parse().ok());
            if fio_size(interval, kb_base.unwrap_or(1024)) != Some(workload.bs) {
                return Err(usage!(
                    "{}: [{shown}] verify_interval={interval}: iolab seals one header per block of bs={}, not one per {interval}",
                    at(line("verify_interval")),
                    workload.bs
                ));
            }
        }
        let every_at = line_of.get("steadystate_check_interval").copied();
        let every = option(&options, "steadystate_check_interval").unwrap_or("1");
        let every_s = super::units::fio_seconds(every).ok_or_else(|| {
            usage!(
                "{}: [{shown}] steadystate_check_interval={every} is not a time iolab reads",
                at(line("steadystate_check_interval"))
            )
        })?;
        match steady_interval {
            Some((first, first_at)) if first != every_s => {
                return Err(usage!(
                    "{}: [{shown}] steadystate_check_interval={every}: {} {first} s; fio takes one check interval for every job (it refuses them as conflicting)",
                    at(line("steadystate_check_interval")),
                    match first_at {
                        Some(line) => format!("line {line} gives"),
                        None => "an earlier section has fio's default,".to_string(),
                    }
                ));
            }
            Some(_) => {}
            None => steady_interval = Some((every_s, every_at)),
        }
        let latency = latency::apply(&mut workload, &options)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        if let Some(note) = latency.filter(|note| !notes.contains(note)) {
            notes.push(note);
        }
        let priority = priority::apply(&mut workload, &options)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        if let Some(note) = priority.filter(|note| !notes.contains(note)) {
            notes.push(note);
        }
        let steady = steady::apply(&mut workload, &options)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        if let Some((note, _)) = steady {
            steady_sections.push((names.len(), line("steadystate")));
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        // A new phase: this job waits for the ones before it.
        let waits = options.contains_key("stonewall") && option(&options, "stonewall") != Some("0");
        if let Some(waited) = option(&options, "wait_for") {
            check_wait_for(waited, index, &jobs).map_err(|why| {
                usage!(
                    "{}: [{shown}] wait_for={waited} {why}",
                    at(line("wait_for"))
                )
            })?;
        }
        // A job that waits for one of an earlier phase joins the phase
        // running now, which started after that one ended (fio starts it
        // once its job ends: beside the jobs started then); one that
        // waits for a job of the phase running now starts the next.
        let waited_now = option(&options, "wait_for").is_some_and(|waited| {
            jobs.iter()
                .position(|(s, _)| s.name == waited.trim())
                .and_then(|at| section_phase.get(at))
                .is_none_or(|&phase| phase + 1 == phases.len())
        });
        let new_phase = waits || waited_now;
        if new_phase || phases.is_empty() {
            phases.push(Vec::new());
        }
        section_phase.push(phases.len() - 1);
        exitall |= super::truthy(&options, "exitall");
        if index > 0 && (waits || super::truthy(&options, "new_group")) {
            fio_group += 1;
        }
        exit_marks.push(exits::ExitMark {
            fio_group,
            what: option(&options, "exit_what").unwrap_or("group").to_string(),
            at: at(line("exit_what")),
        });
        if let Some(flow) = workload.flow {
            let phase = phases.len();
            if flow_phases
                .iter()
                .any(|&(id, p)| id == flow.id && p != phase)
            {
                return Err(usage!(
                    "{}: [{shown}] flow_id={}: a flow in two phases (stonewall): fio counts every job's weight from the start, so the earlier phase's jobs wait for this one's forever (fio hangs); give each phase its own flow_id",
                    at(line("flow")),
                    flow.id
                ));
            }
            flow_phases.push((flow.id, phase));
        }
        let name = group_name(shown, &names);
        let asked = logs::read(&options, &name, next_job)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        next_job = next_job.saturating_add(workload.jobs);
        if let Some(note) = logs::note(&options, &asked).filter(|note| !notes.contains(note)) {
            notes.push(note);
        }
        fio_logs.extend(asked);
        names.push(name.clone());
        phases
            .last_mut()
            .expect("a phase")
            .push(Group { name, workload });
    }
    // fio ends a steady group alone; iolab's steady stop ends the point.
    steady::alone_in_phase(&phases, &steady_sections)
        .map_err(|(line, why)| usage!("{}: {why}", at(line)))?;
    if exitall {
        notes.extend(exits::apply(&mut phases, &exit_marks).map_err(|why| usage!("{why}"))?);
    } else if jobs.iter().any(|(section, inherited)| {
        section
            .options
            .iter()
            .chain(inherited)
            .any(|o| o.key == "new_group")
    }) {
        notes.push(
            "new_group: no effect: every section is its own group in iolab's figures already"
                .to_string(),
        );
    }
    for phase in &mut phases {
        if let Some(note) = one_tree(phase) {
            notes.push(note);
        }
    }
    let files = files
        .into_iter()
        .take(phases.len())
        .map(|(path, line)| NamedFile {
            named_at: (line > 0).then(|| format!("{}: filename={path}", at(line))),
            path,
        })
        .collect();
    Ok(JobFile {
        phases,
        directory: directory.map(|(dir, _)| dir),
        files,
        target: target.and_then(|(url, _)| url),
        notes,
        logs: fio_logs,
        steady_interval_s: steady_interval
            .filter(|(_, at)| at.is_some())
            .map(|(seconds, _)| seconds),
    })
}

/// fio moves whole blocks: of a size that is not a whole number of one
/// block size (`size=1m` under `kb_base=1000` with `bs=4KiB`), it reads or
/// writes the whole blocks and leaves the rest (fio 3.33: 244 I/Os, 999,424
/// bytes). With mixed sizes (`bssplit`, `bsrange`) the grid is the smallest
/// size (fio's min_bs: `size=1051748` with `bsrange=1k:4k` moves 1,051,648
/// bytes). The workload's size becomes those blocks, with the note saying
/// so.
fn whole_blocks(workload: &mut crate::plan::Workload, section: &str) -> Option<String> {
    let bs = match &workload.bssplit {
        Some(split) => split.smallest().min(workload.bs),
        None => workload.bs,
    };
    let size = workload.size;
    if workload.work() == crate::plan::Work::Tree || bs == 0 || size <= bs {
        return None;
    }
    let rest = size % bs;
    if rest == 0 {
        return None;
    }
    workload.size = size - rest;
    Some(format!(
        "[{section}] size {size} bytes is not a whole number of {bs}-byte blocks{}: fio moves {} bytes and leaves the last {rest}, and so does iolab",
        if workload.bssplit.is_some() {
            " (the smallest of its sizes)"
        } else {
            ""
        },
        workload.size
    ))
}

/// Whether a job's `filename=` (in `directory`, when relative) is `file`.
/// `kb_base` of a section's options (fio's default 1024).
fn kb_base_of(options: &Map<String, Value>) -> u64 {
    option(options, "kb_base")
        .and_then(|base| base.trim().parse().ok())
        .unwrap_or(1024)
}

/// fio's zone units (`offset=524z`, `size=128z`: zones of `zonesize`) in
/// bytes, so every later reader of the size sees bytes; the error names
/// the key.
fn zones_to_bytes(
    options: &mut Map<String, Value>,
    kb_base: u64,
) -> Result<(), (&'static str, String)> {
    for key in ["size", "offset", "io_size", "offset_increment", "filesize"] {
        let Some(zones) = option(options, key).and_then(|v| v.trim().strip_suffix('z')) else {
            continue;
        };
        let zones: u64 = zones.trim().parse().map_err(|_| {
            (
                key,
                format!("{key}={zones}z is not a whole number of zones"),
            )
        })?;
        let zone = option(options, "zonesize")
            .and_then(|size| fio_size(size, kb_base))
            .filter(|&size| size > 0)
            .ok_or((key, format!("{key}={zones}z counts zones: give zonesize=")))?;
        let bytes = zones.checked_mul(zone).ok_or((
            key,
            format!("{key}={zones}z is more bytes than iolab counts"),
        ))?;
        options.insert(key.to_string(), Value::String(bytes.to_string()));
    }
    Ok(())
}

fn same_file(name: &str, directory: Option<&str>, file: &str) -> bool {
    let path = match directory {
        Some(dir) if !name.starts_with('/') => format!("{dir}/{name}"),
        _ => name.to_string(),
    };
    std::path::Path::new(&path) == std::path::Path::new(file)
}

/// A section's name as a group name: iolab's names are letters, digits,
/// `-` and `_` from a letter (fio's may hold anything), made unique.
fn group_name(section: &str, taken: &[String]) -> String {
    let mut name: String = section
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(crate::plan::group::MAX_NAME_BYTES - 8)
        .collect();
    if name_problem(&name).is_some() {
        name = format!("job-{name}");
    }
    let mut unique = name.clone();
    let mut n = 2;
    while taken.contains(&unique) {
        unique = format!("{name}-{n}");
        n += 1;
    }
    unique
}

#[cfg(test)]
mod tests;
