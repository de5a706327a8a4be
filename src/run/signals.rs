//! Ctrl-C and SIGTERM: turned into a flag the loops poll, so cleanup runs in normal code.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The flag's value when a steady-state criterion, not a signal, stops the
/// jobs: the loops already poll the flag, so stopping early costs no extra
/// check per I/O. No signal has this number.
pub const STEADY_STOP: usize = 1 << 20;

/// The number of the first SIGINT or SIGTERM received, or 0.
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Arc<AtomicUsize>);

impl Interrupt {
    /// Installs handlers for SIGINT and SIGTERM that set the flag, and ignores
    /// SIGXFSZ so that a write past RLIMIT_FSIZE fails with EFBIG (and is
    /// reported with its offset) instead of killing the process unannounced.
    pub fn install() -> std::io::Result<Self> {
        // SAFETY: setting a signal to SIG_IGN installs no handler code.
        unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
        let interrupt = Interrupt::default();
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register_usize(signal, Arc::clone(&interrupt.0), signal as usize)?;
        }
        Ok(interrupt)
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
}
