//! fio's command line as the job file it stands for (`iolab fio ARGS…`): options before the first `--name` the global section, each `--name` a job section, `--opt=value` and `--opt value` as fio's getopt reads them, job files named on it read after its own jobs, and fio's own options (output, its format, `--section`) kept apart.

/// What `fio ARGS…` says: the job file its job options stand for, and
/// what fio's own options ask of the output.
#[derive(Clone, Debug, PartialEq)]
pub struct FioCommand {
    /// The job file, one option per line; `arguments[n]` is the argument
    /// line `n + 1` came from (a job file's own lines follow, named by its
    /// path and line: `job.fio line 3`).
    pub text: String,
    pub arguments: Vec<String>,
    /// `--output FILE`: where fio's output goes instead of stdout.
    pub output: Option<String>,
    pub format: OutputFormat,
    /// `--section NAME`, each: only these job sections run (and `[global]`).
    pub sections: Vec<String>,
    /// `--parse-only`: the jobs read and planned, no I/O started (iolab
    /// prints the plan, as `iolab run --show-plan` does).
    pub parse_only: bool,
}

/// fio's `--output-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// fio's human output, made from fio's JSON (`report::fio_text`).
    Normal,
    Json,
    JsonPlus,
    /// fio's terse (`--minimal`) lines, version 3.
    Terse,
}

/// fio's job options that take no value on its command line (`FIO_OPT_BOOL`
/// and `FIO_OPT_STR_SET` in fio's options.c and engines, read at fio
/// f5344384): getopt gives them a value only after `=`, so the argument
/// after one is not its value.
const BARE: &[&str] = &[
    "allow_file_create",
    "allow_mounted_write",
    "allrandrepeat",
    "atomic",
    "block_error_percentiles",
    "blocksize_unaligned",
    "bs_is_seq_rand",
    "bs_unaligned",
    "buffered",
    "cgroup_nodelete",
    "clat_percentiles",
    "create_fsync",
    "create_on_open",
    "create_only",
    "create_serialize",
    "deac",
    "dedupe_global",
    "direct",
    "disable_bw",
    "disable_bw_measurement",
    "disable_clat",
    "disable_lat",
    "disable_slat",
    "disk_util",
    "do_verify",
    "end_fsync",
    "end_syncfs",
    "error_dump",
    "exitall",
    "exitall_on_error",
    "experimental_verify",
    "fdp",
    "file_append",
    "fill_device",
    "fill_fs",
    "fixedbufs",
    "fsync_on_close",
    "group_reporting",
    "gtod_reduce",
    "hipri",
    "ignore_zone_limits",
    "invalidate",
    "lat_percentiles",
    "latency_run",
    "libaio_vectored",
    "log_alternate_epoch",
    "log_issue_time",
    "log_offset",
    "log_prio",
    "log_store_compressed",
    "log_unix_epoch",
    "new_group",
    "norandommap",
    "nowait",
    "overwrite",
    "per_job_logs",
    "pi_act",
    "pre_read",
    "random_sequence_stride",
    "randrepeat",
    "rate_ignore_thinktime",
    "read_beyond_wp",
    "read_iolog_chunked",
    "readfua",
    "recover_zbd_write_error",
    "refill_buffers",
    "registerfiles",
    "replay_no_stall",
    "scramble_buffers",
    "serialize_overlap",
    "slat_percentiles",
    "softrandommap",
    "sprandom",
    "sqthread_poll",
    "stats",
    "stonewall",
    "thread",
    "time_based",
    "trim_verify_zero",
    "unique_filename",
    "unlink",
    "unlink_each_loop",
    "userspace_reap",
    "verify_dump",
    "verify_fatal",
    "verify_header_seed",
    "verify_only",
    "verify_state_load",
    "verify_state_save",
    "verify_write_sequence",
    "wait_for_previous",
    "write_zone_remainder",
    "writefua",
    "zero_buffers",
];

/// fio's own options (init.c's `l_opts`) and what iolab does with each:
/// `Some(why)` refuses it, naming why; `None` takes it.
fn program_option(name: &str) -> Option<Result<(), &'static str>> {
    let taken = match name {
        "output" | "output-format" | "section" | "parse-only" | "minimal" => Ok(()),
        "terse-version" => Ok(()),
        // fio's progress display: iolab's live line is on stderr and off
        // when stderr is not a terminal, as fio's ETA is.
        "eta" | "eta-newline" | "eta-interval" | "status-interval" => Ok(()),
        // Limits of fio's own process, nothing iolab's plan depends on.
        "max-jobs" | "alloc-size" => Ok(()),
        "append-terse" => Err(
            "iolab writes one format: --output-format=terse (or --minimal) for fio's terse lines",
        ),
        "latency-log" | "bandwidth-log" => {
            Err("give write_lat_log= or write_bw_log= as a job option (iolab writes fio's logs)")
        }
        "client" | "server" | "server-internal" | "daemonize" | "remote-config" => {
            Err("iolab runs on this host (over MPI for many hosts: iolab run --mpi)")
        }
        "readonly" => Err("iolab has no read-only mode; leave out the writing jobs"),
        "version"
        | "help"
        | "cmdhelp"
        | "enghelp"
        | "showcmd"
        | "debug"
        | "profile"
        | "inflate-log"
        | "idle-prof"
        | "cpuclock-test"
        | "crctest"
        | "memcpytest"
        | "warnings-fatal"
        | "trigger-file"
        | "trigger-timeout"
        | "trigger"
        | "trigger-remote"
        | "aux-path"
        | "merge-blktrace-only" => Err("a fio tool option, not a workload: run fio itself for it"),
        _ => return None,
    };
    Some(taken)
}

/// fio's own options (init.c's `l_opts`) that take no value, or one only
/// after `=` (`no_argument`, `optional_argument`).
const PROGRAM_BARE: &[&str] = &[
    "minimal",
    "version",
    "help",
    "showcmd",
    "readonly",
    "parse-only",
    "warnings-fatal",
    "cpuclock-test",
    "merge-blktrace-only",
    "bandwidth-log",
    "append-terse",
    "cmdhelp",
    "enghelp",
    "server",
    "crctest",
    "memcpytest",
];

/// Whether fio's option `name` (its own or a job's) takes no value unless
/// one follows `=`.
fn bare(name: &str) -> bool {
    PROGRAM_BARE.contains(&name) || BARE.contains(&name)
}

/// Reads `args` (fio's arguments, without `fio` itself) as fio does; one
/// line naming the argument for what fio would not take either or iolab
/// does not do. `read_file` gives a job file's text by its path.
pub fn read(
    args: &[String],
    read_file: &dyn Fn(&str) -> Result<String, String>,
) -> Result<FioCommand, String> {
    let mut command = FioCommand {
        text: String::new(),
        arguments: Vec::new(),
        output: None,
        format: OutputFormat::Normal,
        sections: Vec::new(),
        parse_only: false,
    };
    let line = |command: &mut FioCommand, text: String, argument: &str| {
        command.text.push_str(&text);
        command.text.push('\n');
        command.arguments.push(argument.to_string());
    };
    let mut job_files = Vec::new();
    let mut in_job = false;
    let mut index = 0;
    while index < args.len() {
        let argument = &args[index];
        index += 1;
        // getopt_long_only: one dash or two before a long name.
        let Some(word) = argument
            .strip_prefix("--")
            .or_else(|| argument.strip_prefix('-').filter(|w| w.len() > 1))
        else {
            if argument == "-" {
                return Err("-: iolab reads a job file from a path, not stdin".to_string());
            }
            job_files.push(argument.clone());
            continue;
        };
        let (name, attached) = match word.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (word, None),
        };
        if name.is_empty() {
            return Err(format!("{argument}: not a fio option"));
        }
        let value = match attached {
            Some(value) => Some(value),
            None if bare(name) => None,
            None => match args.get(index) {
                Some(next) => {
                    index += 1;
                    Some(next.clone())
                }
                None => return Err(format!("{argument}: fio's option {name} needs a value")),
            },
        };
        if let Some(taken) = program_option(name) {
            taken.map_err(|why| format!("{argument}: {why}"))?;
            let value = value.unwrap_or_default();
            match name {
                "output" => command.output = Some(value),
                "output-format" => command.format = output_format(&value, argument)?,
                "section" => command.sections.push(value),
                "parse-only" => command.parse_only = true,
                "minimal" => command.format = OutputFormat::Terse,
                "terse-version" if value != "3" => {
                    return Err(format!(
                        "{argument}: iolab writes fio's terse version 3 (its default)"
                    ));
                }
                _ => {}
            }
            continue;
        }
        if name == "name" {
            let value = value.unwrap_or_default();
            if value.contains(['[', ']', '\n']) {
                return Err(format!("{argument}: a job name without brackets"));
            }
            line(&mut command, format!("[{value}]"), argument);
            in_job = true;
            continue;
        }
        if !in_job && command.text.is_empty() {
            line(&mut command, "[global]".to_string(), argument);
        }
        if name.contains(['[', ']', '\n', '#', ';']) {
            return Err(format!("{argument}: not a fio option"));
        }
        let text = match value {
            Some(value) if value.contains('\n') => {
                return Err(format!("{argument}: a value on one line"));
            }
            Some(value) => format!("{name}={value}"),
            None => name.to_string(),
        };
        line(&mut command, text, argument);
    }
    // fio parses the command line's jobs first, then each job file, whose
    // jobs start from the command line's global options.
    for path in job_files {
        let text = read_file(&path).map_err(|why| format!("{path}: {why}"))?;
        // A refusal names the file and its line, as `iolab run FILE` does.
        for (index, file_line) in text.lines().enumerate() {
            let argument = format!("{path} line {}", index + 1);
            line(&mut command, file_line.to_string(), &argument);
        }
    }
    if !command
        .text
        .lines()
        .any(|l| l.starts_with('[') && l != "[global]")
    {
        return Err(
            "no job: give --name=NAME before a job's options, or a job file (fio's rule)"
                .to_string(),
        );
    }
    Ok(command)
}

/// `command` with only the job sections its `--section` names (and every
/// `[global]`), as fio runs them; a name no section has is refused.
pub fn only_sections(command: FioCommand) -> Result<FioCommand, String> {
    let mut kept = FioCommand {
        text: String::new(),
        arguments: Vec::new(),
        ..command.clone()
    };
    let mut keeping = true;
    for (text, argument) in command.text.lines().zip(&command.arguments) {
        if let Some(name) = text
            .trim()
            .strip_prefix('[')
            .and_then(|t| t.strip_suffix(']'))
        {
            keeping = name == "global" || command.sections.iter().any(|s| s == name);
        }
        if keeping {
            kept.text.push_str(text);
            kept.text.push('\n');
            kept.arguments.push(argument.clone());
        }
    }
    match command
        .sections
        .iter()
        .find(|s| !command.text.lines().any(|l| l.trim() == format!("[{s}]")))
    {
        Some(missing) => Err(format!("--section={missing}: no job section of that name")),
        None => Ok(kept),
    }
}

fn output_format(value: &str, argument: &str) -> Result<OutputFormat, String> {
    // fio takes a comma-separated list; iolab writes one format.
    match value {
        "normal" => Ok(OutputFormat::Normal),
        "json" => Ok(OutputFormat::Json),
        "json+" => Ok(OutputFormat::JsonPlus),
        "terse" => Ok(OutputFormat::Terse),
        _ => Err(format!(
            "{argument}: iolab writes one of normal, json, json+ and terse"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn no_files(path: &str) -> Result<String, String> {
        Err(format!("no file {path}"))
    }

    #[test]
    fn options_before_the_first_name_are_global_and_each_name_a_job() {
        let command = read(
            &words("--direct=1 --bs 4k --name=a --rw=randread --time_based --runtime 10 --name b --rw write --output-format=json --output out.json"),
            &no_files,
        )
        .unwrap();
        assert_eq!(
            command.text,
            "[global]\ndirect=1\nbs=4k\n[a]\nrw=randread\ntime_based\nruntime=10\n[b]\nrw=write\n"
        );
        assert_eq!(command.arguments[2], "--bs");
        assert_eq!(command.format, OutputFormat::Json);
        assert_eq!(command.output.as_deref(), Some("out.json"));
    }

    #[test]
    fn job_files_follow_the_command_lines_jobs() {
        let command = read(&words("--size=1m job.fio"), &|path| {
            assert_eq!(path, "job.fio");
            Ok("[x]\nrw=read\n".to_string())
        })
        .unwrap();
        assert_eq!(command.text, "[global]\nsize=1m\n[x]\nrw=read\n");
        assert_eq!(command.arguments.last().unwrap(), "job.fio line 2");
    }

    #[test]
    fn a_section_runs_alone_with_the_global_options() {
        let command = read(
            &words("--bs=8k --name=a --rw=read --name=b --rw=write --section=b"),
            &no_files,
        )
        .unwrap();
        let only = only_sections(command).unwrap();
        assert_eq!(only.text, "[global]\nbs=8k\n[b]\nrw=write\n");
        assert_eq!(
            only.arguments,
            ["--bs=8k", "--bs=8k", "--name=b", "--rw=write"]
        );
        let command = read(&words("--name=a --rw=read --section=c"), &no_files).unwrap();
        assert!(only_sections(command).unwrap_err().contains("--section=c"));
    }

    #[test]
    fn what_is_not_a_job_is_refused_naming_the_argument() {
        for (line, needle) in [
            ("--bs=4k", "no job"),
            ("--name=a --bs", "--bs: fio's option bs needs a value"),
            ("--name=a --terse-version=4", "terse version 3"),
            ("--name=a --append-terse", "one format"),
            ("--name=a --output-format=xml", "terse"),
            ("--name=a --client=h", "on this host"),
            ("--name=a missing.fio", "missing.fio: no file"),
        ] {
            let refused = read(&words(line), &no_files).unwrap_err();
            assert!(refused.contains(needle), "{line}: {refused}");
        }
    }
}
