//! Signals that end a run: turned into a flag the loops poll, so cleanup runs in normal code.
//!
//! Every signal whose default action ends the process and that someone may
//! send to a benchmark ([`ENDING_SIGNALS`]: Ctrl-C, `kill`, a dropped SSH
//! session's SIGHUP, Ctrl-\\'s SIGQUIT, a stray SIGUSR1 or SIGALRM, the CPU-time limit) sets the
//! flag: the repetition is recorded as interrupted, scratch files are
//! removed, and iolab exits with 128 + the signal. A second such signal ends
//! iolab at once, with the signal's default action: it stays stoppable even
//! in a system call that does not return (a hung NFS server, say), at the
//! price of the cleanup.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// A stop flag's value when the jobs end early and normally, not for a
/// signal: a steady-state criterion was met, or a job whose exit scope
/// takes them in finished (fio's `exitall`). The loops already poll the
/// flag, so stopping early costs no extra check per I/O. No signal has
/// this number.
pub const STEADY_STOP: usize = 1 << 20;

/// The signals handled as a request to stop (SIGKILL and SIGSTOP cannot be
/// caught). SIGQUIT (Ctrl-\\) is one: a user who sends it wants the run to
/// stop, and a core dump of a benchmark would leave its scratch files.
pub const ENDING_SIGNALS: [i32; 8] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGQUIT,
    libc::SIGHUP,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGXCPU,
];

/// The number of the first ending signal received, or 0.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Arc<AtomicUsize>);

/// The process's one interrupt flag (handlers are process-wide).
static INSTALLED: OnceLock<Interrupt> = OnceLock::new();

impl Interrupt {
    /// Installs, once per process, handlers for [`ENDING_SIGNALS`] that set
    /// the flag, and ignores SIGXFSZ so that a write past RLIMIT_FSIZE fails
    /// with EFBIG (and is reported with its offset) instead of killing the
    /// process unannounced. Later calls return the same flag.
    pub fn install() -> std::io::Result<Self> {
        if let Some(installed) = INSTALLED.get() {
            return Ok(installed.clone());
        }
        // SAFETY: setting a signal to SIG_IGN installs no handler code.
        unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
        let interrupt = Interrupt::default();
        let signalled = Arc::new(AtomicBool::new(false));
        for signal in ENDING_SIGNALS {
            // In registration order: a second signal finds `signalled` set and
            // takes the default action; the first only sets the flags.
            signal_hook::flag::register_conditional_default(signal, Arc::clone(&signalled))?;
            signal_hook::flag::register_usize(signal, Arc::clone(&interrupt.0), signal as usize)?;
            signal_hook::flag::register(signal, Arc::clone(&signalled))?;
        }
        Ok(INSTALLED.get_or_init(|| interrupt).clone())
    }

    /// The ending signal this process received, if its handlers were
    /// installed and one came; installs nothing.
    pub fn received() -> Option<i32> {
        INSTALLED.get().and_then(Interrupt::signal)
    }

    /// The flag itself, for the hot loops (a relaxed load per I/O).
    pub fn flag(&self) -> &AtomicUsize {
        &self.0
    }

    /// The signal received, if any.
    pub fn signal(&self) -> Option<i32> {
        match self.0.load(Ordering::Relaxed) {
            0 | STEADY_STOP => None,
            signal => Some(signal as i32),
        }
    }

    /// Clears a steady-state stop after its repetition (a signal that came
    /// meanwhile stays).
    pub fn clear_steady_stop(&self) {
        let _ = self
            .0
            .compare_exchange(STEADY_STOP, 0, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// Whether a signal was received.
    pub fn is_set(&self) -> bool {
        self.signal().is_some()
    }

    /// A flag of its own that every ending signal also sets, as it sets
    /// this one, from now until the relay is dropped; a signal already
    /// received is copied into it. On a flag that is not the process's
    /// installed one (a test's), nothing is relayed: handlers registered
    /// without [`Interrupt::install`]'s would leave the signals caught and
    /// without their default action once the relay is gone.
    pub fn relay(&self) -> std::io::Result<Relay> {
        let flag = Arc::new(AtomicUsize::new(0));
        let mut ids = Vec::with_capacity(ENDING_SIGNALS.len());
        let installed = INSTALLED
            .get()
            .is_some_and(|installed| Arc::ptr_eq(&installed.0, &self.0));
        if !installed {
            flag.store(self.0.load(Ordering::Relaxed), Ordering::Relaxed);
            return Ok(Relay { flag, ids });
        }
        let relay = |ids: &mut Vec<_>| -> std::io::Result<()> {
            for signal in ENDING_SIGNALS {
                ids.push(signal_hook::flag::register_usize(
                    signal,
                    Arc::clone(&flag),
                    signal as usize,
                )?);
            }
            Ok(())
        };
        if let Err(error) = relay(&mut ids) {
            ids.into_iter().for_each(|id| {
                signal_hook::low_level::unregister(id);
            });
            return Err(error);
        }
        if let Some(signal) = self.signal() {
            flag.store(signal as usize, Ordering::Relaxed);
        }
        Ok(Relay { flag, ids })
    }
}

/// A flag that the ending signals set beside the process's
/// ([`Interrupt::relay`]); dropping it stops the relay.
#[derive(Debug)]
pub struct Relay {
    flag: Arc<AtomicUsize>,
    ids: Vec<signal_hook::SigId>,
}

impl Relay {
    /// The flag.
    pub fn flag(&self) -> &AtomicUsize {
        &self.flag
    }

    /// The flag, to keep beside the relay.
    pub fn shared(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.flag)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
