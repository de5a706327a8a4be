//! The `iolab` binary: parse arguments, run the subcommand, map the ending to an exit status.
//!
//! Exit status: 0 success; 1 a measurement or setup failed; 2 bad input
//! (nothing was created); 128 + N when stopped by signal N (130 Ctrl-C, 143 SIGTERM);
//! for `iolab measure`, a failing command's own status; 3 when `--strict`
//! and a check raised a warning or an error.

use clap::Parser;
use clap::error::ErrorKind;
use iolab::app::{self, AppError, Ending};
use iolab::cli::{Cli, Command};
use iolab::cluster;
use std::ffi::OsString;
use std::process::ExitCode;

/// One glibc malloc arena for every thread. iolab's threads allocate only
/// while they set up (never per I/O), so arenas would buy nothing, while each
/// one glibc makes for a new thread reserves 64 MiB of address space that is
/// never given back: with 64 jobs under `ulimit -v` the arenas took the
/// room the result's writing then needed, and Rust aborts on a failed
/// allocation (tests/faults.rs, `a_thread_the_kernel_refuses_…`).
fn one_allocator_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt with a valid parameter, before any thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

fn main() -> ExitCode {
    one_allocator_arena();
    // `iolab measure` runs its command through this binary as a small helper.
    if let Some(status) = iolab::command::spawn::run_if_helper() {
        return ExitCode::from(status);
    }
    iolab::console::guard_standard_streams();
    // Arguments as the kernel gave them: a path need not be UTF-8. The
    // command line is recorded in result files as text, where bytes that are
    // not UTF-8 show as U+FFFD.
    let raw: Vec<OsString> = std::env::args_os().collect();
    let cli = match Cli::parse_line_at(&raw, Some(iolab::console::width())) {
        Ok(cli) => cli,
        Err(error) => return argument_error(error, &raw),
    };
    iolab::console::set_verbose(cli.verbose);
    let arguments: Vec<String> = raw
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let ending = match &cli.command {
        Command::Run(args) => app::run(args, arguments),
        Command::Fio(args) => app::fio(args, arguments),
        Command::Quick(args) => app::quick(args, arguments),
        Command::Sweep(args) => app::grid::sweep(args, arguments),
        Command::Study(args) => app::grid::study(args, arguments),
        Command::Env(args) => app::env(args),
        Command::Compare(args) => app::compare(args),
        Command::Preset(command) => app::preset(command, arguments),
        Command::Report(args) => app::report(args),
        Command::Import(args) => app::import(args, arguments),
        Command::Measure(args) => app::measure(args, arguments),
        Command::Completions { shell } => app::help::completions(*shell),
        Command::Manpages { dir } => app::help::manpages(dir),
        Command::Guest(command) => app::guest::command(command),
        Command::Replay(args) => app::replay(args, arguments),
        Command::Characterize(args) => app::characterize(args),
    };
    let failed_alone = ending.is_err();
    let code = match ending {
        Ok(Ending::Success) => 0,
        Ok(Ending::Failed) => 1,
        Ok(Ending::Interrupted(signal)) => (128 + signal).clamp(0, 255) as u8,
        Ok(Ending::CommandFailed(status)) => status,
        Ok(Ending::Warnings) => 3,
        Err(AppError::Usage(error)) => {
            // One line, whatever the offending value held.
            report_error(&error.to_string().replace('\n', "\\n").replace('\r', "\\r"));
            2
        }
        Err(AppError::Other(error)) => {
            report_error(&format!("{error:#}"));
            // A step a signal cut short (a wait for another process, a
            // layout) ends as the signal asked: 128 + its number.
            iolab::run::signals::Interrupt::received()
                .map_or(1, |signal| (128 + signal).clamp(0, 255) as u8)
        }
    };
    // A file iolab created was replaced during the run and left in place:
    // something else wrote where it measured, so the run did not succeed.
    let code = if matches!(code, 0 | 3) && iolab::run::target::any_left_in_place() {
        1
    } else {
        code
    };
    // In a distributed run: every rank exits with rank 0's status, or the
    // job is aborted when this rank stopped on an error of its own.
    ExitCode::from(cluster::finish(code, failed_alone))
}

/// Prints an error; in a distributed run, rank 0 speaks for errors every
/// rank shares, and another rank prints only its own, with its rank.
fn report_error(message: &str) {
    if !cluster::is_secondary() {
        iolab::say!("iolab: error: {message}");
    } else if !cluster::failure_is_shared() {
        // The line names the rank and its host ([`iolab::console::speak_as`]).
        iolab::say!("iolab: error: {message}");
    }
}

/// Help and version go to stdout with status 0; any other argument error is
/// folded into one line on stderr with status 2. clap's own message for an
/// argument that is not UTF-8 names no value, so the argument is named here.
fn argument_error(error: clap::Error, raw: &[OsString]) -> ExitCode {
    // Under an MPI launcher every rank parses the same arguments: rank 0
    // says what is wrong once; the others exit 2 without repeating it.
    let speaks = cluster::launcher_rank().is_none_or(|rank| rank == 0);
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {}
        _ if !speaks => {
            // A launcher ends the whole job when one rank exits with an
            // error, possibly before rank 0's line is out: the silent ranks
            // leave it two seconds to say it (measured: rank 0 said
            // nothing in 1 of 10 runs when every rank exited at once).
            std::thread::sleep(std::time::Duration::from_secs(2));
            return ExitCode::from(2);
        }
        _ => {}
    }
    match error.kind() {
        ErrorKind::InvalidUtf8 => {
            // The argument clap refused is the one whose UTF-8 stand-in
            // makes that error go away (paths may hold other bytes).
            let offending = (1..raw.len())
                .filter(|&i| raw[i].to_str().is_none())
                .find(|&i| {
                    let mut tried = raw.to_vec();
                    tried[i] = tried[i].to_string_lossy().into_owned().into();
                    Cli::try_parse_from(&tried)
                        .err()
                        .is_none_or(|e| e.kind() != ErrorKind::InvalidUtf8)
                })
                .map_or_else(String::new, |i| format!("{:?}", raw[i]));
            iolab::say!(
                "iolab: error: the argument {offending} is not valid UTF-8, which this option needs \
                 (only paths may hold other bytes)"
            );
            ExitCode::from(2)
        }
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        _ => {
            // clap strips what looks like a terminal escape from the value it
            // names, and a newline would split the line: the message is made
            // again from the arguments with their control characters escaped
            // (`\u{1b}`), as iolab's own checks show them.
            let escaped: Vec<OsString> = raw
                .iter()
                .map(|a| match a.to_str() {
                    Some(text) if text.chars().any(char::is_control) => {
                        OsString::from(text.escape_debug().to_string())
                    }
                    _ => a.clone(),
                })
                .collect();
            let error = match Cli::try_parse_from(&escaped) {
                Err(again) if escaped != raw && again.kind() == error.kind() => again,
                _ => error,
            };
            let arguments: Vec<String> = raw
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let line = iolab::cli::refusal::explain(&error, &arguments);
            iolab::say!("iolab: error: {line}");
            ExitCode::from(2)
        }
    }
}
