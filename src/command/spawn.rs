//! The spawn helper of `iolab measure`: a small process that starts the
//! command, waits for it and reports its times and resource usage, so that
//! the command's peak RSS is its own.
//!
//! Linux charges a process's peak RSS with the memory image it had before
//! exec: a child forked (or vforked) from iolab starts with iolab's resident
//! pages, 130 MiB once the memory-copy probe has run, and `wait4` reported
//! that for `true`. GNU time reports about 1 MiB because `time` itself is
//! small. So iolab starts a helper that is small in the same way, the
//! `iolab-spawn` binary built beside it (about 130 KiB of its own memory
//! against the iolab binary's 600 KiB), which forks the command and writes
//! one line back through a pipe:
//! `started_ns ended_ns wait_status user_us system_us maxrss_kib`, or
//! `exec errno` when the command could not be started.

use crate::clock::now_ns;
use crate::run::signals::ENDING_SIGNALS;
use std::ffi::{CString, OsString, c_int};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicI32, Ordering};

/// The environment variable that makes the iolab binary the helper; its
/// value is the descriptor to report on.
pub const HELPER_VARIABLE: &str = "IOLAB_MEASURE_HELPER";

/// The command's pid, for the signal handler that passes signals on.
static CHILD: AtomicI32 = AtomicI32::new(0);
/// A signal that came before the command existed, passed on once it does.
static PENDING: AtomicI32 = AtomicI32::new(0);

/// The helper to start: `iolab-spawn` beside this executable, or where it
/// is missing (a binary copied alone), this executable itself, whose larger
/// image raises the peak of commands smaller than about 1 MiB.
pub fn helper_program() -> std::path::PathBuf {
    std::env::current_exe()
        .map(|exe| exe.with_file_name("iolab-spawn"))
        .ok()
        .filter(|helper| helper.is_file())
        .unwrap_or_else(|| std::path::PathBuf::from("/proc/self/exe"))
}

/// What the helper reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    Ran {
        /// Just before the fork, CLOCK_MONOTONIC ns.
        started_ns: u64,
        /// When it had exited (before it was reaped).
        ended_ns: u64,
        status: i32,
        /// User CPU of it and the children it waited for, µs.
        user_us: u64,
        /// System CPU of the same, µs.
        system_us: u64,
        /// Largest resident set among them, KiB (wait4's ru_maxrss).
        maxrss_kib: u64,
        /// Its I/O calls and bytes, with those of the descendants it waited
        /// for, read from `/proc/PID/io` before reaping; absent when the
        /// kernel has no task I/O accounting.
        io: Option<ProcessIo>,
    },
    /// The command could not be started: exec failed with this errno.
    NotStarted(i32),
}

impl Report {
    /// Parses the helper's line.
    pub fn parse(line: &str) -> Option<Report> {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let number = |text: &str| text.parse::<u64>().ok();
        match fields.as_slice() {
            ["exec", errno] => Some(Report::NotStarted(errno.parse().ok()?)),
            [started, ended, status, user, system, maxrss, io @ ..] => Some(Report::Ran {
                started_ns: number(started)?,
                ended_ns: number(ended)?,
                status: status.parse().ok()?,
                user_us: number(user)?,
                system_us: number(system)?,
                maxrss_kib: number(maxrss)?,
                io: match io {
                    [] => None,
                    [rchar, wchar, syscr, syscw, read_bytes, write_bytes] => Some(ProcessIo {
                        read_chars: number(rchar)?,
                        write_chars: number(wchar)?,
                        read_calls: number(syscr)?,
                        write_calls: number(syscw)?,
                        read_bytes: number(read_bytes)?,
                        write_bytes: number(write_bytes)?,
                    }),
                    _ => return None,
                },
            }),
            _ => None,
        }
    }
}

pub use crate::record::measurement::ProcessIo;

/// The name iolab gives the helper process (its `argv[0]`).
pub const HELPER_NAME: &str = "iolab-spawn";

/// When this process was started as the helper (named [`HELPER_NAME`], with
/// [`HELPER_VARIABLE`] set: a stray variable alone never turns iolab into
/// one), runs the command given as its arguments and returns the exit
/// status for `main`; `None` otherwise. Must be the first thing `main`
/// does, before anything grows the process.
pub fn run_if_helper() -> Option<u8> {
    let name = std::env::args_os().next()?;
    if std::path::Path::new(&name).file_name()? != HELPER_NAME {
        return None;
    }
    let fd: c_int = std::env::var(HELPER_VARIABLE).ok()?.parse().ok()?;
    // SAFETY: single-threaded here (the first thing main does), so no other
    // thread reads the environment meanwhile.
    unsafe { std::env::remove_var(HELPER_VARIABLE) };
    // The command must not inherit the report pipe: iolab reads it to its end.
    // SAFETY: fcntl on a descriptor number; a bad one fails harmlessly.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    let command: Vec<OsString> = std::env::args_os().skip(1).collect();
    let line = match run_command(&command) {
        Ok(report) => report,
        Err(errno) => format!("exec {errno}"),
    };
    // SAFETY: the descriptor was handed over by iolab for this one write.
    let mut report = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    let _ = report.write_all(format!("{line}\n").as_bytes());
    Some(0)
}

/// Forks and execs `command`, passes on the signals iolab sends, waits for
/// it; returns the report line, or exec's errno.
fn run_command(command: &[OsString]) -> Result<String, i32> {
    let arguments: Vec<CString> = command
        .iter()
        .map(|a| CString::new(a.as_bytes()).map_err(|_| libc::EINVAL))
        .collect::<Result<_, _>>()?;
    let Some(program) = arguments.first() else {
        return Err(libc::EINVAL);
    };
    let mut argv: Vec<*const libc::c_char> = arguments.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    pass_signals_on();
    // exec's failure comes back through a pipe closed on a successful exec.
    let (read_end, write_end) =
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| e.raw_os_error())?;
    let started_ns = now_ns();
    // SAFETY: this process is single-threaded, so the child may do anything
    // until exec; it only calls execvp, write and _exit.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EAGAIN));
    }
    if pid == 0 {
        // SAFETY: argv is a null-terminated array of C strings that outlive exec.
        unsafe {
            libc::execvp(program.as_ptr(), argv.as_ptr());
            let errno = *libc::__errno_location();
            libc::write(
                std::os::fd::AsRawFd::as_raw_fd(&write_end),
                (&raw const errno).cast(),
                4,
            );
            libc::_exit(127);
        }
    }
    CHILD.store(pid, Ordering::SeqCst);
    let early = PENDING.swap(0, Ordering::SeqCst);
    if early > 0 {
        // SAFETY: pid is our own unreaped child.
        unsafe { libc::kill(pid, early) };
    }
    drop(write_end);
    let mut errno = [0u8; 4];
    if rustix::io::read(&read_end, &mut errno) == Ok(4) {
        let mut status = 0;
        // SAFETY: reaping our own child, which failed to exec.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        return Err(i32::from_ne_bytes(errno));
    }
    // Exited, not yet reaped: the time stops here, not after the reaping.
    loop {
        // SAFETY: siginfo_t is plain data, zero is valid; pid is our child.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let waited = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if waited == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            break;
        }
    }
    let ended_ns = now_ns();
    // Exited but not reaped: its /proc entry still holds its I/O accounting,
    // with that of every descendant it reaped (`sh -c "dd …"` counts dd's).
    let io = crate::probe::process::io_text(pid as u32)
        .and_then(|text| ProcessIo::parse(&text))
        .map_or_else(String::new, |io| {
            format!(
                " {} {} {} {} {} {}",
                io.read_chars,
                io.write_chars,
                io.read_calls,
                io.write_calls,
                io.read_bytes,
                io.write_bytes
            )
        });
    let mut status = 0;
    // SAFETY: rusage is plain data; zero is valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid out-pointers; pid is our own child.
    while unsafe { libc::wait4(pid, &mut status, 0, &mut usage) } < 0
        && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
    {}
    let micros = |t: libc::timeval| t.tv_sec.max(0) as u64 * 1_000_000 + t.tv_usec.max(0) as u64;
    Ok(format!(
        "{started_ns} {ended_ns} {status} {} {} {}{io}",
        micros(usage.ru_utime),
        micros(usage.ru_stime),
        usage.ru_maxrss.max(0)
    ))
}

/// Passes the signals that end a run on to the command, when another
/// process sent them (iolab, or a user's kill). A terminal's Ctrl-C reaches
/// the command itself (same process group) and is not sent twice; either
/// way the helper stays to report how the command ended.
fn pass_signals_on() {
    extern "C" fn pass_on(signal: c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
        let from_a_process = unsafe { (*info).si_code } <= 0;
        if !from_a_process {
            return;
        }
        PENDING.store(signal, Ordering::SeqCst);
        let child = CHILD.load(Ordering::SeqCst);
        if child > 0 && PENDING.swap(0, Ordering::SeqCst) > 0 {
            // SAFETY: kill is async-signal-safe; child is our unreaped child.
            unsafe { libc::kill(child, signal) };
        }
    }
    for signal in ENDING_SIGNALS {
        // SAFETY: a zeroed sigaction with a valid SA_SIGINFO handler.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = pass_on as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_parse() {
        assert_eq!(
            Report::parse("10 20 0 5 6 1080\n"),
            Some(Report::Ran {
                started_ns: 10,
                ended_ns: 20,
                status: 0,
                user_us: 5,
                system_us: 6,
                maxrss_kib: 1080,
                io: None,
            })
        );
        let Some(Report::Ran { io: Some(io), .. }) =
            Report::parse("10 20 0 5 6 1080 100 200 3 4 4096 8192")
        else {
            panic!("the I/O fields are read");
        };
        assert_eq!((io.read_calls, io.write_calls, io.write_chars), (3, 4, 200));
        assert_eq!(Report::parse("10 20 0 5 6 1080 100 200"), None);
        assert_eq!(Report::parse("exec 2"), Some(Report::NotStarted(2)));
        assert_eq!(Report::parse("garbage"), None);
        assert_eq!(Report::parse(""), None);
    }
}
