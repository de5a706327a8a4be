//! Which jobs stop when ([`Stops`]): each crew's stop flag, the one its jobs' loops poll — every ending signal raises all of them, steady state all of them, and a job that finishes those its group's exit scope takes in (fio's `exitall`, `exit_what`).

use crate::plan::ExitScope;
use crate::run::signals::{Interrupt, Relay, STEADY_STOP};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The stop flags of one pass's crews, in crew order.
pub(in crate::run) struct Stops {
    /// Each crew's flag, set by the signals as the process's is.
    relays: Vec<Relay>,
    /// The same flags, for the recorders' steady-state stop.
    flags: Arc<[Arc<AtomicUsize>]>,
    /// Each crew's exit scope; all `None` in an untimed pass.
    scopes: Vec<ExitScope>,
}

impl Stops {
    /// A flag per crew of `scopes` (each crew's exit scope), relayed from
    /// `interrupt`.
    pub(in crate::run) fn new(
        scopes: Vec<ExitScope>,
        interrupt: &Interrupt,
    ) -> std::io::Result<Stops> {
        let relays = scopes
            .iter()
            .map(|_| interrupt.relay())
            .collect::<std::io::Result<Vec<_>>>()?;
        let flags = relays.iter().map(Relay::shared).collect();
        Ok(Stops {
            relays,
            flags,
            scopes,
        })
    }

    /// Crew `crew`'s flag.
    pub(in crate::run) fn flag(&self, crew: usize) -> &AtomicUsize {
        self.relays[crew].flag()
    }

    /// Every crew's flag, to stop them all at once ([`stop_all`]).
    pub(in crate::run) fn all(&self) -> Arc<[Arc<AtomicUsize>]> {
        Arc::clone(&self.flags)
    }

    /// A job of crew `crew` ended, `interrupted` by a signal or not: the
    /// crews its exit scope takes in stop (fio's `exitall` on a job's end,
    /// whatever ended it, except a signal, which stops every crew anyway).
    pub(in crate::run) fn finished(&self, crew: usize, interrupted: bool) {
        if interrupted {
            return;
        }
        match self.scopes[crew] {
            ExitScope::None => {}
            ExitScope::Group => stop(self.relays[crew].flag()),
            ExitScope::Point => stop_all(&self.flags),
        }
    }
}

/// Stops every flag of `flags` early and normally, unless a signal already
/// set it.
pub(in crate::run) fn stop_all(flags: &[Arc<AtomicUsize>]) {
    flags.iter().for_each(|flag| stop(flag));
}

fn stop(flag: &AtomicUsize) {
    let _ = flag.compare_exchange(0, STEADY_STOP, Ordering::Relaxed, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_job_stops_what_its_scope_takes_in_and_no_more() {
        let interrupt = Interrupt::default();
        let scopes = vec![ExitScope::None, ExitScope::Group, ExitScope::Point];
        let raised = |stops: &Stops| -> Vec<bool> {
            (0..3)
                .map(|crew| stops.flag(crew).load(Ordering::Relaxed) == STEADY_STOP)
                .collect()
        };
        let stops = Stops::new(scopes.clone(), &interrupt).unwrap();
        stops.finished(0, false);
        assert_eq!(raised(&stops), [false, false, false]);
        stops.finished(1, false);
        assert_eq!(raised(&stops), [false, true, false]);
        stops.finished(2, true);
        assert_eq!(raised(&stops), [false, true, false], "a signal's end");
        stops.finished(2, false);
        assert_eq!(raised(&stops), [true, true, true]);
    }
}
