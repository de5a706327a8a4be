//! fio job files read as they are (`iolab run JOB.fio`): fio's ini format — `[global]` inheritance, bare flags, `${VAR}` from the environment, `$ncpus`/`$mb_memory`/`$pagesize` and arithmetic, fio's units and `kb_base` — each job section one group, phases by `stonewall` and `wait_for`, every option mapped through the table `iolab import` uses or refused by name and line.
//!
//! The sections between two phase boundaries run at once, as fio runs
//! them: one point of groups per phase, in file order.

use super::units::fio_size;
use super::{option, workload};
use crate::plan::UsageError;
use crate::plan::group::{Group, name_problem};
use crate::usage;
use serde_json::{Map, Value};

/// How iolab takes each option a job file may hold.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Taken {
    /// A workload parameter, through the import's table (`FioJob::value`).
    Mapped,
    /// The job file's structure: phases, names, where files go.
    Structure,
    /// Read and without effect in iolab, for the reason given.
    NoEffect(&'static str),
}

/// Every option iolab reads in a job file; anything else is refused by name.
const OPTIONS: &[(&str, Taken)] = &[
    ("rw", Taken::Mapped),
    ("readwrite", Taken::Mapped),
    ("bs", Taken::Mapped),
    ("blocksize", Taken::Mapped),
    ("bssplit", Taken::Mapped),
    ("size", Taken::Mapped),
    ("filesize", Taken::Mapped),
    ("ioengine", Taken::Mapped),
    ("iodepth", Taken::Mapped),
    ("iodepth_batch", Taken::Mapped),
    ("iodepth_batch_submit", Taken::Mapped),
    ("direct", Taken::Mapped),
    ("sync", Taken::Mapped),
    ("fsync", Taken::Mapped),
    ("end_fsync", Taken::Mapped),
    ("numjobs", Taken::Mapped),
    ("runtime", Taken::Mapped),
    ("time_based", Taken::Mapped),
    ("ramp_time", Taken::Mapped),
    ("rate", Taken::Mapped),
    ("rate_iops", Taken::Mapped),
    ("rate_process", Taken::Mapped),
    ("rwmixread", Taken::Mapped),
    ("rwmixwrite", Taken::Mapped),
    ("random_distribution", Taken::Mapped),
    ("norandommap", Taken::Mapped),
    ("thinktime", Taken::Mapped),
    ("thinktime_blocks", Taken::Mapped),
    ("thinktime_spin", Taken::Mapped),
    ("thinktime_iotime", Taken::Mapped),
    ("zero_buffers", Taken::Mapped),
    ("buffer_compress_percentage", Taken::Mapped),
    ("buffer_compress_chunk", Taken::Mapped),
    ("dedupe_percentage", Taken::Mapped),
    ("invalidate", Taken::Mapped),
    ("cpus_allowed", Taken::Mapped),
    ("cpus_allowed_policy", Taken::Mapped),
    ("kb_base", Taken::Mapped),
    ("name", Taken::Structure),
    ("stonewall", Taken::Structure),
    ("wait_for", Taken::Structure),
    ("directory", Taken::Structure),
    ("filename", Taken::Structure),
    (
        "description",
        Taken::NoEffect("a description is not measured"),
    ),
    (
        "group_reporting",
        Taken::NoEffect("iolab reports every group's totals and each of its jobs"),
    ),
    (
        "new_group",
        Taken::NoEffect("every section is its own group in iolab's figures already"),
    ),
    ("thread", Taken::NoEffect("iolab's jobs are threads")),
];

/// The options fio takes as aliases of another, and which.
const ALIASES: &[(&str, &str)] = &[
    ("readwrite", "rw"),
    ("blocksize", "bs"),
    ("iodepth_batch", "iodepth_batch_submit"),
];

/// Options whose value fio evaluates as arithmetic (`size=2*$mb_memory`).
const ARITHMETIC: &[&str] = &[
    "size",
    "filesize",
    "bs",
    "blocksize",
    "iodepth",
    "iodepth_batch",
    "iodepth_batch_submit",
    "numjobs",
    "rate",
    "rate_iops",
    "rwmixread",
    "rwmixwrite",
    "fsync",
    "thinktime_blocks",
];

/// What the machine tells a job file: fio's reserved words.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// `$ncpus`: the CPUs online.
    pub ncpus: u64,
    /// `$mb_memory`: the memory, MiB.
    pub mb_memory: u64,
    /// `$pagesize`: the page size, bytes.
    pub pagesize: u64,
}

impl Facts {
    /// This machine's, from sysconf(3) as fio reads them.
    pub fn here() -> Facts {
        // SAFETY: sysconf has no preconditions.
        let value = |name| u64::try_from(unsafe { libc::sysconf(name) }).unwrap_or(0);
        let pagesize = value(libc::_SC_PAGESIZE).max(1);
        Facts {
            ncpus: value(libc::_SC_NPROCESSORS_ONLN).max(1),
            mb_memory: value(libc::_SC_PHYS_PAGES).saturating_mul(pagesize) >> 20,
            pagesize,
        }
    }
}

/// One option as written: its key, value (a bare flag's is empty), and line.
#[derive(Clone, Debug)]
struct Line {
    key: String,
    value: String,
    line: usize,
}

/// One section: its name, the line of its header, its options in order.
#[derive(Clone, Debug)]
struct Section {
    name: String,
    line: usize,
    options: Vec<Line>,
}

/// A job file translated: its phases, in order, each the groups that run
/// at once, and the directory its files go in (`directory=`).
#[derive(Clone, Debug)]
pub struct JobFile {
    /// Each phase's groups.
    pub phases: Vec<Vec<Group>>,
    /// Where the files go, when the job file says.
    pub directory: Option<String>,
    /// What was read and has no effect, one line each (`thread`, …).
    pub notes: Vec<String>,
}

/// Reads job file `text` (named `source` in messages) with the machine's
/// `facts` and the environment's variables through `env`.
pub fn translate(
    text: &str,
    source: &str,
    facts: Facts,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<JobFile, UsageError> {
    let sections = parse(text, source, facts, env)?;
    let at = |line: usize| format!("{source} line {line}");
    let mut global: Vec<Line> = Vec::new();
    let mut jobs: Vec<(Section, Vec<Line>)> = Vec::new();
    let mut notes = Vec::new();
    for mut section in sections {
        // `verify=0` is fio's default, no verification: nothing to run.
        section.options.retain(|option| {
            let default_verify = option.key == "verify" && option.value.trim() == "0";
            if default_verify {
                let note = "verify=0: no effect: fio's default, no verification".to_string();
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
            !default_verify
        });
        for option in &section.options {
            let Some((_, taken)) = OPTIONS.iter().find(|(key, _)| *key == option.key) else {
                let hint = match option.key.as_str() {
                    "include" => " (an include is refused: give the job file whole)",
                    _ => " (iolab reads the options docs/fio-job-files.md lists)",
                };
                return Err(usage!(
                    "{}: {}: fio option not supported by iolab{hint}",
                    at(option.line),
                    option.key
                ));
            };
            if let Taken::NoEffect(why) = taken {
                let written = match option.value.as_str() {
                    "" => option.key.clone(),
                    value => format!("{}={value}", option.key),
                };
                let note = format!("{written}: no effect: {why}");
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
        }
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
    let mut directory: Option<(String, usize)> = None;
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
        let line = |key: &str| line_of.get(key).copied().unwrap_or(section.line);
        let shown = &section.name;
        if let Some(file) = option(&options, "filename") {
            let writes = rw_writes(option(&options, "rw").unwrap_or("read"));
            let why = if writes {
                "names a file iolab did not create, and this job writes; iolab writes only files it makes: give directory= instead"
            } else {
                "names a file; iolab makes each job's files in directory= (a given file is read with iolab run --file)"
            };
            return Err(usage!(
                "{}: [{shown}] filename={file} {why}",
                at(line("filename"))
            ));
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
        // `time_based=0` is fio's default, not a time-based job.
        match (
            options.contains_key("runtime"),
            super::truthy(&options, "time_based"),
        ) {
            (true, false) => {
                return Err(usage!(
                    "{}: [{shown}] runtime without time_based: fio stops at the runtime or after size, whichever comes first; iolab runs one pass (drop runtime) or for a time (add time_based)",
                    at(line("runtime"))
                ));
            }
            (false, true) => {
                return Err(usage!(
                    "{}: [{shown}] time_based without runtime: for how long?",
                    at(line("time_based"))
                ));
            }
            _ => {}
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
        if matches!(rw, "write" | "randwrite") && workload.op == crate::plan::Op::Rewrite {
            workload.op = crate::plan::Op::Write;
        }
        // A network client's engine works on a URL iolab takes on its own
        // command line, which a job file does not go with.
        if let Some(scheme) = workload.engine.capabilities().network {
            return Err(usage!(
                "{}: [{shown}] ioengine={}: iolab's {scheme} client works on a {scheme}:// target, and a job file runs on local files; run `iolab run --target {scheme}://… --engine {}` with the job's settings as flags",
                at(line("ioengine")),
                option(&options, "ioengine").unwrap_or_default(),
                workload.engine.name()
            ));
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
        let name = group_name(shown, &names);
        names.push(name.clone());
        phases
            .last_mut()
            .expect("a phase")
            .push(Group { name, workload });
    }
    Ok(JobFile {
        phases,
        directory: directory.map(|(dir, _)| dir),
        notes,
    })
}

/// Whether fio's `rw` writes (or trims).
fn rw_writes(rw: &str) -> bool {
    !matches!(rw, "read" | "randread")
}

/// Why `wait_for=waited` of job `index` cannot be run in file order: a job
/// missing, itself, or a later job that waits (in the end) for this one.
fn check_wait_for(waited: &str, index: usize, jobs: &[(Section, Vec<Line>)]) -> Result<(), String> {
    let position = |name: &str| jobs.iter().position(|(s, _)| s.name == name);
    let own = &jobs[index].0.name;
    let Some(at) = position(waited) else {
        return Err("names no job of the file".to_string());
    };
    if at < index {
        return Ok(());
    }
    if at == index {
        return Err("is a loop of wait_for: the job waits for itself".to_string());
    }
    // A job after this one: a loop when its own wait_for leads back here.
    // A job's own wait_for after [global]'s: its own wins.
    let wait_of = |job: usize| {
        jobs[job]
            .1
            .iter()
            .chain(&jobs[job].0.options)
            .rfind(|l| l.key == "wait_for")
            .map(|l| l.value.clone())
    };
    let mut seen = vec![at];
    let mut current = at;
    while let Some(next) = wait_of(current).and_then(|w| position(&w)) {
        if jobs[next].0.name == *own || seen.contains(&next) {
            return Err("is a loop of wait_for: the jobs wait for each other".to_string());
        }
        seen.push(next);
        current = next;
    }
    Err("names a job after it; iolab runs the phases in file order".to_string())
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

/// The sections of a job file, with variables and reserved words put in
/// and arithmetic done; a line that is neither a section, an option nor a
/// comment is refused with its number.
fn parse(
    text: &str,
    source: &str,
    facts: Facts,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Section>, UsageError> {
    let mut sections: Vec<Section> = Vec::new();
    for (number, raw) in text.lines().enumerate() {
        let number = number + 1;
        let at = || format!("{source} line {number}");
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let Some(name) = rest.strip_suffix(']') else {
                return Err(usage!("{}: a section header ends with ]", at()));
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(usage!("{}: a section needs a name", at()));
            }
            sections.push(Section {
                name: name.to_string(),
                line: number,
                options: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err(usage!("{}: an option before any [section]: {line:?}", at()));
        };
        // fio ends an option's line at its first `#` or `;`, with or
        // without blank before it (`numjobs=4<TAB>; four threads`).
        let line = line.find(['#', ';']).map_or(line, |end| line[..end].trim());
        let (key, value) = match line.split_once('=') {
            Some((key, value)) => (key.trim(), value.trim()),
            None => (line, ""),
        };
        if key == "include" || key.starts_with("include ") {
            return Err(usage!(
                "{}: include: an include is refused; give the job file whole",
                at()
            ));
        }
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(usage!("{}: {key:?} is not an option", at()));
        }
        let value =
            substitute(value, facts, env).map_err(|why| usage!("{}: {key}: {why}", at()))?;
        let value = if ARITHMETIC.contains(&key) && is_expression(&value) {
            evaluate(&value)
                .map(|n| n.to_string())
                .ok_or_else(|| usage!("{}: {key}={value} is not arithmetic iolab reads", at()))?
        } else {
            value
        };
        // fio's aliases and inverses (its options.c), read as the option
        // they stand for: `buffered=1` is `direct=0`.
        let (key, value) = match key {
            "timeout" => ("runtime", value),
            "wait_for_previous" => ("stonewall", value),
            "buffered" => (
                "direct",
                if value.trim() == "0" { "1" } else { "0" }.to_string(),
            ),
            _ => (key, value),
        };
        section.options.push(Line {
            key: key.to_string(),
            value,
            line: number,
        });
    }
    Ok(sections)
}

/// `value` with `${VAR}` from the environment and fio's reserved words put in.
fn substitute(
    value: &str,
    facts: Facts,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("'{value}' opens ${{ without closing it"));
        };
        let name = &after[..end];
        let found =
            env(name).ok_or_else(|| format!("${{{name}}} is not set in the environment"))?;
        out.push_str(&found);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out
        .replace("$ncpus", &facts.ncpus.to_string())
        .replace("$mb_memory", &facts.mb_memory.to_string())
        .replace("$pagesize", &facts.pagesize.to_string()))
}

/// Whether a value is an expression: parentheses or an operator between
/// operands (a leading `-` is a sign, and refused as a size later).
fn is_expression(value: &str) -> bool {
    value.starts_with('(')
        || value
            .chars()
            .skip(1)
            .any(|c| matches!(c, '+' | '-' | '*' | '/'))
}

/// An integer expression of `+ - * /` and parentheses over fio sizes
/// (`4k`, `1m`, plain numbers); `None` when it is not one, or overflows.
fn evaluate(text: &str) -> Option<u64> {
    let tokens: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    // Nested parentheses deeper than a person writes are refused, before
    // they could exhaust the stack.
    let mut depth = 0usize;
    for c in &tokens {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NESTING {
            return None;
        }
    }
    let mut position = 0;
    let value = sum(&tokens, &mut position)?;
    (position == tokens.len()).then_some(value)
}

/// The deepest parentheses an expression may nest.
const MAX_NESTING: usize = 16;

fn sum(tokens: &[char], position: &mut usize) -> Option<u64> {
    let mut value = product(tokens, position)?;
    while let Some(&op) = tokens.get(*position).filter(|c| matches!(c, '+' | '-')) {
        *position += 1;
        let right = product(tokens, position)?;
        value = if op == '+' {
            value.checked_add(right)?
        } else {
            value.checked_sub(right)?
        };
    }
    Some(value)
}

fn product(tokens: &[char], position: &mut usize) -> Option<u64> {
    let mut value = operand(tokens, position)?;
    while let Some(&op) = tokens.get(*position).filter(|c| matches!(c, '*' | '/')) {
        *position += 1;
        let right = operand(tokens, position)?;
        value = if op == '*' {
            value.checked_mul(right)?
        } else {
            value.checked_div(right)?
        };
    }
    Some(value)
}

fn operand(tokens: &[char], position: &mut usize) -> Option<u64> {
    if tokens.get(*position) == Some(&'(') {
        *position += 1;
        let value = sum(tokens, position)?;
        (tokens.get(*position) == Some(&')')).then(|| *position += 1)?;
        return Some(value);
    }
    let start = *position;
    while tokens
        .get(*position)
        .is_some_and(|c| c.is_ascii_alphanumeric())
    {
        *position += 1;
    }
    let word: String = tokens[start..*position].iter().collect();
    fio_size(&word, 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Op, Pattern};

    const FACTS: Facts = Facts {
        ncpus: 4,
        mb_memory: 2048,
        pagesize: 4096,
    };

    fn read(text: &str) -> Result<JobFile, String> {
        let env = |name: &str| (name == "SIZE").then(|| "16m".to_string());
        translate(text, "t.fio", FACTS, &env).map_err(|e| e.to_string())
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
        assert!(read("[a]\nsize=1m\nverify=crc32c\n").is_err());
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
                "t.fio line 3: verify: fio option not supported",
            ),
            ("[j]\ninclude other.fio\n", "t.fio line 2: include"),
            (
                "[j]\nsize=${NOPE}\n",
                "t.fio line 2: size: ${NOPE} is not set",
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
                "[j]\nsize=1m\nrw=write\nfilename=/etc/passwd\n",
                "line 4: [j] filename=/etc/passwd names a file iolab did not create",
            ),
            (
                "[j]\nsize=1m\nruntime=10\n",
                "line 3: [j] runtime without time_based",
            ),
            ("[j]\nsize=50%\n", "line 2: [j] size=50% is not a size"),
            (
                "[j]\nsize=1m\nioengine=splice\n",
                "line 3: [j] ioengine=splice has no iolab equivalent",
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
            "(rw|bs|size|numjobs|wait_for|runtime|iodepth|ioengine|rate_iops)=[a-z0-9$(){}*/+.-]{0,10}",
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
    fn section_names_become_group_names() {
        assert_eq!(group_name("seq.read", &[]), "seq-read");
        assert_eq!(group_name("1", &[]), "job-1");
        assert_eq!(group_name("a", &["a".to_string()]), "a-2");
        assert_eq!(group_name("all", &[]), "job-all");
        assert_eq!(group_name("read", &[]), "job-read");
    }
}
