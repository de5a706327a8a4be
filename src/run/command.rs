//! Runs an external command under the sampler (`iolab measure`): its wall time, exit status and resource usage, and the counters around it.

use super::clock::now_ns;
use super::signals::Interrupt;
use crate::probe::sampler::{Samples, Watch};
use std::io;
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
}

impl CommandOutcome {
    /// Whether it exited with status 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// Runs `command` with inherited standard streams while `watch` is sampled
/// every `interval`. A SIGINT or SIGTERM that iolab receives is passed on to
/// the command. Fails only when the command cannot be started.
pub fn run(
    command: &[std::ffi::OsString],
    watch: &Watch,
    interval: Duration,
    interrupt: &Interrupt,
) -> io::Result<CommandOutcome> {
    let (program, arguments) = command
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no command given"))?;
    let start = watch.snapshot(true);
    let started = now_ns();
    let child = Command::new(program).args(arguments).spawn()?;
    let pid = child.id() as libc::pid_t;
    let (finished, done) = mpsc::channel::<()>();
    let (stop_forwarding, forwarding_done) = mpsc::channel::<()>();
    let (status, usage, ended, samples) = std::thread::scope(|scope| {
        let kept = super::timing::intervals_kept_per_job(1);
        let sampler = scope.spawn(move || watch.sample_until(start, interval, kept, &done));
        let forwarder = scope.spawn(move || forward_signals(pid, interrupt, &forwarding_done));
        wait_for_exit(pid);
        let ended = now_ns();
        drop(finished);
        // Still a zombie, so the pid cannot have been reused while the forwarder might use it.
        drop(stop_forwarding);
        forwarder.join().expect("the signal forwarder panicked");
        let (status, usage) = reap(pid);
        let samples = sampler.join().expect("the sampler thread panicked");
        (status, usage, ended, samples)
    });
    // The child was reaped by wait4 above; std's handle must not wait again.
    drop(child);
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    Ok(CommandOutcome {
        exit_code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        wall_ns: ended.saturating_sub(started),
        user_s: seconds(usage.ru_utime),
        system_s: seconds(usage.ru_stime),
        max_rss_bytes: usage.ru_maxrss.max(0) as u64 * 1024,
        samples,
    })
}

/// Waits until `pid` has exited without reaping it (waitid with WNOWAIT).
fn wait_for_exit(pid: libc::pid_t) {
    loop {
        // SAFETY: siginfo_t is plain data; zero is a valid value.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: a valid out-pointer; pid is our own child.
        let result = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if result == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
    }
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

/// Passes a SIGINT or SIGTERM that reached iolab on to the command, once.
fn forward_signals(pid: libc::pid_t, interrupt: &Interrupt, stop: &mpsc::Receiver<()>) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(Duration::from_millis(50)) {
        if let Some(signal) = interrupt.signal() {
            // SAFETY: kill with our own child's pid; it is not yet reaped, so the pid is still ours.
            unsafe { libc::kill(pid, signal) };
            return;
        }
    }
}
