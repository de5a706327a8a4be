//! Runs an external command under the sampler (`iolab measure`): its wall time, exit status and resource usage, and the counters around it.

pub mod spawn;

use crate::probe::sampler::{Samples, Watch};
use crate::run::signals::Interrupt;
use spawn::Report;
use std::io::{self, Read};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// How one run of the command went.
#[derive(Debug)]
pub struct CommandOutcome {
    /// Exit status, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// From just before the start to just after the exit, ns.
    pub wall_ns: u64,
    /// User CPU seconds of the command and the children it waited for.
    pub user_s: f64,
    /// System CPU seconds of the same.
    pub system_s: f64,
    /// Largest resident set among them, bytes.
    pub max_rss_bytes: u64,
    /// Counters at the start, every interval, and the end.
    pub samples: Samples,
    /// Its I/O accounting with that of the descendants it waited for.
    pub process_io: Option<spawn::ProcessIo>,
}

impl CommandOutcome {
    /// Whether it exited with status 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// Runs `command` with inherited standard streams while `watch` is sampled
/// every `interval`, through the spawn helper ([`spawn`]) so that its
/// peak RSS is its own. A signal that ends a run, received by iolab, is
/// passed on to it. Fails only when the command cannot be started.
pub fn run(
    command: &[std::ffi::OsString],
    watch: &Watch,
    interval: Duration,
    interrupt: &Interrupt,
) -> io::Result<CommandOutcome> {
    if command.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "no command given",
        ));
    }
    let (report_read, report_write) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)?;
    // The helper's copy of the write end must survive its exec.
    let inherited = rustix::io::dup(&report_write)?;
    drop(report_write);
    let start = watch.snapshot(true);
    let spawned = Command::new(spawn::helper_program())
        .arg0(spawn::HELPER_NAME)
        .args(command)
        .env(
            spawn::HELPER_VARIABLE,
            std::os::fd::AsRawFd::as_raw_fd(&inherited).to_string(),
        )
        .spawn();
    drop(inherited);
    let helper =
        spawned.map_err(|e| io::Error::new(e.kind(), format!("the measuring helper: {e}")))?;
    let pid = helper.id() as libc::pid_t;
    let (finished, done) = mpsc::channel::<()>();
    let (stop_forwarding, forwarding_done) = mpsc::channel::<()>();
    let (line, status, samples) = std::thread::scope(|scope| {
        let kept = crate::run::io::recorder::intervals_kept_per_job(1);
        let sampler = scope.spawn(move || watch.sample_until(start, interval, kept, &done));
        let forwarder = scope.spawn(move || forward_signals(pid, interrupt, &forwarding_done));
        // The helper writes its one line just before it exits.
        let mut line = String::new();
        let _ = std::fs::File::from(report_read).read_to_string(&mut line);
        drop(finished);
        drop(stop_forwarding);
        forwarder.join().expect("the signal forwarder panicked");
        let (status, _) = reap(pid);
        let samples = sampler.join().expect("the sampler thread panicked");
        (line, status, samples)
    });
    // The helper was reaped by wait4 above; std's handle must not wait again.
    drop(helper);
    let report = match Report::parse(&line) {
        Some(Report::NotStarted(errno)) => return Err(io::Error::from_raw_os_error(errno)),
        Some(report) => report,
        None => {
            return Err(io::Error::other(format!(
                "the measuring helper ended without a report (wait status {status})"
            )));
        }
    };
    let Report::Ran {
        started_ns,
        ended_ns,
        status,
        user_us,
        system_us,
        maxrss_kib,
        io,
    } = report
    else {
        unreachable!("NotStarted returned above");
    };
    Ok(CommandOutcome {
        exit_code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        wall_ns: ended_ns.saturating_sub(started_ns),
        user_s: user_us as f64 * 1e-6,
        system_s: system_us as f64 * 1e-6,
        max_rss_bytes: maxrss_kib.saturating_mul(1024),
        samples,
        process_io: io,
    })
}

/// Reaps `pid` with wait4, which also returns its resource usage (std's
/// Child::wait does not).
fn reap(pid: libc::pid_t) -> (i32, libc::rusage) {
    let mut status = 0;
    // SAFETY: rusage is plain data; zero is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: valid out-pointers; pid is our own child.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            return (status, usage);
        }
        if reaped < 0 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            // Cannot happen for our own unreaped child; report it as killed.
            return (libc::SIGKILL, usage);
        }
    }
}

/// Passes the first signal that reached iolab on to the helper (which passes
/// it on to the command), once.
fn forward_signals(pid: libc::pid_t, interrupt: &Interrupt, stop: &mpsc::Receiver<()>) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(Duration::from_millis(50)) {
        if let Some(signal) = interrupt.signal() {
            // SAFETY: kill with our own child's pid; it is not yet reaped, so the pid is still ours.
            unsafe { libc::kill(pid, signal) };
            return;
        }
    }
}
