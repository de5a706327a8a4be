//! fio job files read as they are (`iolab run JOB.fio`): fio's ini format — `[global]` inheritance, bare flags, `${VAR}` from the environment, `$ncpus`/`$mb_memory`/`$pagesize` and arithmetic, fio's units and `kb_base` — each job section one group, phases by `stonewall` and `wait_for`, every option mapped through the table `iolab import` uses or refused by name and line.
//!
//! The sections between two phase boundaries run at once, as fio runs
//! them: one point of groups per phase, in file order.

mod checks;
mod exits;
pub mod logs;
mod options;
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
    /// The one file or block device every job works on (`filename=`, or
    /// the command line's `--file`), when there is one: each job over all
    /// of it, as fio's jobs sharing a `filename=`.
    pub filename: Option<String>,
    /// Where the job file names `filename` (`JOB.fio line 12: filename=…`)
    /// for messages about it; `None` when it came from `--file`.
    pub filename_named_at: Option<String>,
    /// The network target every job works on, for a job file of a network
    /// engine (fio's `nfs_url=`, or `filename=iscsi://…`): iolab's
    /// `--target`.
    pub target: Option<String>,
    /// What was read and has no effect, one line each (`thread`, …).
    pub notes: Vec<String>,
    /// The logs in fio's format its sections ask for (`write_bw_log` …).
    pub logs: Vec<logs::FioLog>,
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
    let at = |line: usize| match line {
        0 => format!("{source} (the command line)"),
        line => format!("{source} line {line}"),
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
    // fio's exitall: one job's is every job's; each group's exit_what.
    let mut exitall = false;
    let mut exit_marks = Vec::new();
    let mut fio_group = 0;
    // The groups (by their number in file order) with a steady-state
    // criterion, and the line naming it.
    let mut steady_sections: Vec<(usize, usize)> = Vec::new();
    let mut fio_logs = Vec::new();
    let mut directory: Option<(String, usize)> = None;
    // The one given file: its path and where it was named (0: --file).
    let mut filename: Option<(String, usize)> = None;
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
                        "{}: [{shown}] filename={path}: iolab runs a job file's jobs on one file, and {} gives {first}",
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
                _ => filename = Some((path.clone(), name_line)),
            }
            // A job without a size works on the whole file, as fio's does.
            if !options.contains_key("size") && !options.contains_key("filesize") {
                if options.contains_key("offset_increment") {
                    return Err(usage!(
                        "{}: [{shown}] offset_increment without size=: fio runs each job from its offset to the end of the file; iolab's jobs move one size (give size=)",
                        at(line("offset_increment"))
                    ));
                }
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
                let size = length.saturating_sub(offset);
                options.insert("size".to_string(), Value::String(size.to_string()));
            }
        } else if filename.is_some() {
            return Err(usage!(
                "{}: [{shown}] makes its own files, and the jobs before it work on {}; iolab runs a job file's jobs all on one given file or all on files it makes",
                at(section.line),
                filename
                    .as_ref()
                    .map(|(path, _)| path.as_str())
                    .unwrap_or_default()
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
        if !options.contains_key("runtime") && super::truthy(&options, "time_based") {
            return Err(usage!(
                "{}: [{shown}] time_based without runtime: for how long?",
                at(line("time_based"))
            ));
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
        if matches!(rw_base(rw), "write" | "randwrite")
            && workload.op == crate::plan::Op::Rewrite
            && filename.is_none()
        {
            workload.op = crate::plan::Op::Write;
        }
        if let Some(note) = blockalign_note(&workload, &options).filter(|n| !notes.contains(n)) {
            notes.push(note);
        }
        if let Some(note) = random_map_note(&workload, &options).filter(|n| !notes.contains(n)) {
            notes.push(note);
        }
        if let Some(method) = option(&options, "verify") {
            workload.verify = verification(method, rw, &options).map_err(|why| {
                usage!("{}: [{shown}] verify={method}: {why}", at(line("verify")))
            })?;
            if workload.verify {
                let note = format!(
                    "verify={method}: each block written is sealed and checked from the device after the pass, untimed (fio times its verify reads as reads)"
                );
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
        }
        let steady = steady::apply(&mut workload, &options)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        if let Some(note) = steady {
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
        let new_phase = waits || options.contains_key("wait_for");
        if new_phase || phases.is_empty() {
            phases.push(Vec::new());
        }
        exitall |= super::truthy(&options, "exitall");
        if index > 0 && (waits || super::truthy(&options, "new_group")) {
            fio_group += 1;
        }
        exit_marks.push(exits::ExitMark {
            fio_group,
            what: option(&options, "exit_what").unwrap_or("group").to_string(),
            at: at(line("exit_what")),
        });
        let name = group_name(shown, &names);
        let asked = logs::read(&options, &name)
            .map_err(|(key, why)| usage!("{}: [{shown}] {why}", at(line(key))))?;
        if let Some(note) = logs::note(&asked).filter(|note| !notes.contains(note)) {
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
    Ok(JobFile {
        phases,
        directory: directory.map(|(dir, _)| dir),
        filename_named_at: filename
            .as_ref()
            .filter(|(_, line)| *line > 0)
            .map(|(path, line)| format!("{}: filename={path}", at(*line))),
        filename: filename.map(|(path, _)| path),
        target: target.and_then(|(url, _)| url),
        notes,
        logs: fio_logs,
    })
}

/// Whether a job's `filename=` (in `directory`, when relative) is `file`.
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
mod tests {
    use super::*;
    use crate::plan::{Op, Pattern};
    use text::{evaluate, is_expression};

    const FACTS: Facts = Facts {
        ncpus: 4,
        mb_memory: 2048,
        pagesize: 4096,
    };

    fn read(text: &str) -> Result<JobFile, String> {
        let env = |name: &str| (name == "SIZE").then(|| "16m".to_string());
        let given = Given {
            file: None,
            length: &|_| None,
            capacity: &|url| match url {
                "iscsi://h/iqn.x:y/2" => Ok(64 << 20),
                _ => Err("no route to host".to_string()),
            },
            options: &[],
            include: &|path| match path.to_str() {
                Some("common.fio") => Ok("bs=64k\n".to_string()),
                Some("loop.fio") => Ok("include loop.fio\n".to_string()),
                _ => Err("does not exist".to_string()),
            },
        };
        translate(text, "t.fio", FACTS, &env, given).map_err(|e| e.to_string())
    }

    #[test]
    fn global_is_inherited_and_each_section_is_a_group() {
        let file = read(
            "; a reader and a logger\n[global]\nsize=${SIZE}\ndirect\nruntime=2\ntime_based\n\
             \n[reader]\nrw=randread\nbs=8k\nnumjobs=2\n[logger]\nrw=write\nbs=4k\nrate_iops=500\nsync=dsync\n",
        )
        .unwrap();
        assert_eq!(file.phases.len(), 1);
        let groups = &file.phases[0];
        assert_eq!(groups[0].name, "reader");
        let reader = &groups[0].workload;
        assert_eq!(
            (reader.op, reader.pattern, reader.bs, reader.jobs),
            (Op::Read, Pattern::Random, 8192, 2)
        );
        assert_eq!((reader.size, reader.direct), (16 << 20, true));
        assert_eq!(reader.runtime_s, Some(2.0));
        let logger = &groups[1].workload;
        assert_eq!(logger.op, Op::Write, "new files, as fio makes them");
        assert_eq!(logger.target_iops(), Some(500.0));
    }

    #[test]
    fn stonewall_and_wait_for_make_phases() {
        let file = read(
            "[global]\nsize=1m\n[a]\nrw=write\n[b]\nrw=read\nstonewall\n[c]\nrw=read\n[d]\nrw=read\nwait_for=a\n",
        )
        .unwrap();
        let names: Vec<Vec<&str>> = file
            .phases
            .iter()
            .map(|p| p.iter().map(|g| g.name.as_str()).collect())
            .collect();
        assert_eq!(names, [vec!["a"], vec!["b", "c"], vec!["d"]]);
    }

    /// fio's aliases and inverses read as the options they stand for
    /// (fio 3.33's option table): `timeout` is `runtime`, `buffered=0` is
    /// `direct=1`, `wait_for_previous` is `stonewall`; `verify=0`, fio's
    /// default, runs nothing and says so.
    #[test]
    fn aliases_and_inverses_are_the_options_they_stand_for() {
        let file = read(
            "[a]\nsize=1m\nrw=read\ntimeout=3\ntime_based\nbuffered=0\nverify=0\n[b]\nsize=1m\nrw=read\nwait_for_previous\nbuffered\n",
        )
        .unwrap();
        let a = &file.phases[0][0].workload;
        assert_eq!((a.runtime_s, a.direct), (Some(3.0), true));
        assert_eq!(file.phases.len(), 2, "b waits for a");
        assert!(!file.phases[1][0].workload.direct, "buffered is direct=0");
        assert!(
            file.notes.iter().any(|n| n.starts_with("verify=0")),
            "{:?}",
            file.notes
        );
        assert!(
            read("[a]\nsize=1m\nverify=crc32c\n").is_err(),
            "a read's verify"
        );
        let sealed = read("[a]\nsize=1m\nrw=write\nverify=crc32c\n").unwrap();
        assert!(sealed.phases[0][0].workload.verify);
        let unchecked = read("[a]\nsize=1m\nrw=write\nverify=md5\ndo_verify=0\n").unwrap();
        assert!(!unchecked.phases[0][0].workload.verify);
        let mapped = read("[a]\nsize=1m\nrw=randread\nbssplit=4k/50:64k/50\n").unwrap();
        assert_eq!(mapped.phases[0][0].workload.pattern, Pattern::Random);
        assert!(mapped.notes.iter().any(|n| n.contains("random map")));
        let unmapped =
            read("[a]\nsize=1m\nrw=randread\nbssplit=4k/50:64k/50\nnorandommap\n").unwrap();
        assert_eq!(unmapped.phases[0][0].workload.pattern, Pattern::Uniform);
    }

    #[test]
    fn reserved_words_and_arithmetic() {
        let file =
            read("[j]\nsize=$mb_memory/512*1m\nbs=($pagesize*2)\nnumjobs=$ncpus-2\n").unwrap();
        let w = &file.phases[0][0].workload;
        assert_eq!((w.size, w.bs, w.jobs), (4 << 20, 8192, 2));
        assert_eq!(evaluate("(1+2)*3k"), Some(9216));
        assert_eq!(evaluate("1-2"), None);
        assert_eq!(evaluate("4/0"), None);
        // Found by the fuzz target: a value starting with a character of two bytes.
        assert!(!is_expression("ܗb"));
        assert!(read("[a]\nrate=ܗb_memory/yy\n").is_err());
        assert_eq!(
            evaluate(&format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000))),
            None
        );
    }

    #[test]
    fn what_cannot_be_run_is_refused_by_file_line_and_key() {
        for (text, words) in [
            (
                "[j]\nsize=1m\nverify=crc32c\n",
                "t.fio line 3: [j] verify=crc32c: rw=read verifies headers",
            ),
            (
                "[j]\nsize=1m\nrw=write\nverify=pattern\n",
                "t.fio line 4: [j] verify=pattern: iolab checks",
            ),
            (
                "[j]\ninclude other.fio\n",
                "t.fio line 2: include other.fio: does not exist",
            ),
            // The engine, not the options that come with it, and what
            // iolab offers instead.
            (
                "[global]\nhttp_verbose=1\nioengine=http\n[j]\nsize=1m\n",
                "t.fio line 3: [global] ioengine=http has no iolab equivalent; iolab's network clients are NFS and iSCSI",
            ),
            (
                "[j]\ninclude loop.fio\n",
                "loop.fio line 1: include loop.fio: it includes itself (a cycle)",
            ),
            (
                "[j]\nsize=${NOPE}\n",
                "t.fio line 2: size: ${NOPE} is not set",
            ),
            // An engine iolab lacks is said before an unset variable, as
            // it is before the engine's own options.
            (
                "[global]\nhttp_s3_key=${NOPE}\n[j]\nioengine=http\nsize=1m\n",
                "t.fio line 4: [j] ioengine=http has no iolab equivalent",
            ),
            (
                "[j]\nioengine=${NOPE}\nsize=1m\n",
                "t.fio line 2: ioengine: ${NOPE} is not set",
            ),
            (
                "[j]\nbs=${NOPE}\nsize=1m\n",
                "t.fio line 2: bs: ${NOPE} is not set",
            ),
            (
                "[j]\nsize=1m\nwait_for=x\n",
                "t.fio line 3: [j] wait_for=x names no job",
            ),
            (
                "[a]\nsize=1m\nwait_for=b\n[b]\nsize=1m\nwait_for=a\n",
                "loop of wait_for",
            ),
            ("[j]\nsize=1m\nwait_for=j\n", "waits for itself"),
            (
                "[j]\nsize=1m\nfilename=a:b\n",
                "line 3: [j] filename=a:b names several files",
            ),
            (
                "[j]\nfilename=/etc/passwd\n",
                "line 2: [j] filename=/etc/passwd: no size= and the file cannot be read",
            ),
            (
                "[a]\nsize=1m\n[b]\nsize=1m\nfilename=f\n",
                "line 5: [b] filename=f: [a] makes its own files",
            ),
            (
                "[a]\nsize=1m\nfilename=f\n[b]\nsize=1m\nfilename=g\n",
                "line 6: [b] filename=g: iolab runs a job file's jobs on one file, and line 3 gives f",
            ),
            ("[j]\nsize=50%\n", "line 2: [j] size=50% is not a size"),
            (
                "[j]\nsize=1m\nrw=randread:8\n",
                "line 3: [j] rw=randread:8: fio makes 8 I/Os in a row",
            ),
            (
                "[j]\nsize=1m\nrw=read:-12k\n",
                "line 3: [j] rw=read:-12k: each I/O 2 blocks before",
            ),
            (
                "[j]\nsize=1m\nrw=read:6k\n",
                "line 3: [j] rw=read:6k: a skip of 6144 bytes is not a whole number",
            ),
            (
                "[j]\nioengine=libiscsi\nfilename=iscsi\\://h/iqn.x\\:y/1\n",
                "line 3: [j] no size= and the LUN's capacity cannot be read (no route to host)",
            ),
            (
                "[j]\nioengine=nfs\nnfs_url=/export\nsize=1m\n",
                "line 2: [j] ioengine=nfs: nfs_url=/export is not a nfs:// URL",
            ),
            (
                "[a]\nsize=1m\n[b]\nioengine=nfs\nnfs_url=nfs://h/e\nsize=1m\n",
                "line 4: [b] nfs://h/e: [a] works on local files",
            ),
            (
                "[j]\nsize=1m\nrw=rw:4k\n",
                "line 3: [j] rw=rw:4k: a skip on a mix",
            ),
            (
                "[j]\nsize=1m\nioengine=splice\n",
                "line 3: [j] ioengine=splice has no iolab equivalent",
            ),
            // fio's exitall stops a fio group that is neither one group
            // nor the phase: iolab has no such scope.
            (
                "[global]\nexitall\nsize=1m\n[a]\n[b]\n[c]\nnew_group\n",
                "line 4: [a] exitall: fio stops [a], [b] together",
            ),
            (
                "[j]\nexitall\nexit_what=some\nsize=1m\n",
                "line 3: [j] exit_what=some: fio takes group, stonewall or all",
            ),
            (
                "[j]\nsize=1m\nrw=randread\nzonemode=strided\nzonesize=256k\n",
                "[j] zonemode=strided on rw=randread",
            ),
            (
                "[j]\nsize=1m\nzonemode=zbd\nmax_open_zones=4\n",
                "line 3: [j] zonemode=zbd: zoned block devices",
            ),
            ("size=1m\n", "line 1: an option before any [section]"),
            ("[global]\nsize=1m\n", "no job section"),
            ("[j\n", "line 1: a section header ends with ]"),
        ] {
            let error = read(text).unwrap_err();
            assert!(error.contains(words), "{text:?}: {error}");
        }
    }

    fn fragment() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            Just("[global]".to_string()),
            "\\[[a-z0-9.]{0,6}\\]",
            Just("stonewall".to_string()),
            "(rw|bs|size|numjobs|wait_for|runtime|iodepth|ioengine|rate_iops|exitall|exit_what|new_group)=[a-z0-9$(){}*/+.-]{0,10}",
            "\\PC{0,20}",
        ]
    }

    proptest::proptest! {
        #[test]
        fn any_job_file_is_translated_or_refused(lines in proptest::collection::vec(fragment(), 0..16)) {
            if let Ok(file) = read(&lines.join("\n")) {
                for group in file.phases.iter().flatten() {
                    proptest::prop_assert!(name_problem(&group.name).is_none(), "{}", group.name);
                }
            }
        }
    }

    #[test]
    fn a_skip_after_each_io_is_a_stride_and_a_step_back_a_reverse() {
        for (rw, pattern) in [
            ("read:4k", Pattern::Stride(2)),
            ("read:8k", Pattern::Stride(3)),
            ("write:0", Pattern::Seq),
            ("read:-8k", Pattern::Reverse),
        ] {
            let job = read(&format!("[j]\nsize=1m\nbs=4k\nrw={rw}\n")).unwrap();
            let workload = &job.phases[0][0].workload;
            assert_eq!(workload.pattern, pattern, "{rw}");
            assert_eq!(workload.op.writes(), rw.starts_with("write"), "{rw}");
            assert_eq!(
                job.notes.len(),
                usize::from(pattern != Pattern::Seq),
                "{rw}"
            );
        }
    }

    #[test]
    fn section_names_become_group_names() {
        assert_eq!(group_name("seq.read", &[]), "seq-read");
        assert_eq!(group_name("1", &[]), "job-1");
        assert_eq!(group_name("a", &["a".to_string()]), "a-2");
        assert_eq!(group_name("all", &[]), "job-all");
        assert_eq!(group_name("read", &[]), "job-read");
    }

    #[test]
    fn an_include_reads_its_options_in_place_as_fio_does() {
        let file = read("[global]\nbs=4k\ninclude common.fio\n[a]\nsize=1m\nrw=read\n").unwrap();
        assert_eq!(
            file.phases[0][0].workload.bs,
            64 << 10,
            "the include's bs=64k, after bs=4k"
        );
        let file = read("[global]\ninclude common.fio\nbs=4k\n[a]\nsize=1m\nrw=read\n").unwrap();
        assert_eq!(file.phases[0][0].workload.bs, 4 << 10, "a later bs=4k wins");
    }
}
