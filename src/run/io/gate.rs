//! The start line of a repetition's threads: all released together once every
//! one is ready (and, in a distributed run, once every rank is: the ranks'
//! stop relay then runs until the jobs end), or all sent home when one of
//! them could not be started.
//!
//! std's `Barrier` cannot be called off: when the kernel refuses the 40th of
//! 64 job threads (RLIMIT_NPROC, address space), the 39 already waiting would
//! wait forever. Here the thread that spawns them calls the start off instead.

use std::sync::{Condvar, Mutex, PoisonError};

/// Where the threads of one repetition wait for each other.
#[derive(Debug)]
pub struct StartGate {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Debug)]
struct State {
    /// Threads that have not arrived yet.
    missing: usize,
    /// The start was called off.
    called_off: bool,
}

impl StartGate {
    /// A gate for `parties` threads.
    pub fn new(parties: usize) -> Self {
        StartGate {
            state: Mutex::new(State {
                missing: parties,
                called_off: false,
            }),
            changed: Condvar::new(),
        }
    }

    /// In a distributed run, the spawning thread's part once every local
    /// job is ready (or failed to get ready, or the start was called off):
    /// waits for the other ranks, releases the jobs, then relays the ranks'
    /// ending signals until `finished` says the jobs are done — a signal
    /// here stops every rank, another rank's stops these jobs. Nothing
    /// alone.
    pub fn start_with(&self, peers: &dyn crate::run::peers::Peers, finished: impl Fn() -> bool) {
        if peers.alone() {
            return;
        }
        peers.start_together();
        self.wait();
        crate::run::peers::relay_stops_until(peers, finished);
    }

    /// Waits until every party has arrived (true: go) or the start is called
    /// off (false: return without doing any I/O).
    pub fn wait(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.missing = state.missing.saturating_sub(1);
        if state.missing == 0 {
            self.changed.notify_all();
        }
        while state.missing > 0 && !state.called_off {
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        !state.called_off
    }

    /// Sends every waiting thread, and every thread still to arrive, home.
    pub fn call_off(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.called_off = true;
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_parties_are_released_together() {
        let gate = StartGate::new(3);
        let released = std::thread::scope(|scope| {
            let waiting: Vec<_> = (0..2).map(|_| scope.spawn(|| gate.wait())).collect();
            let last = gate.wait();
            let mut all: Vec<bool> = waiting.into_iter().map(|h| h.join().unwrap()).collect();
            all.push(last);
            all
        });
        assert_eq!(released, [true, true, true]);
    }

    #[test]
    fn calling_off_sends_the_waiting_and_the_late_home() {
        let gate = StartGate::new(4);
        let released = std::thread::scope(|scope| {
            let waiting: Vec<_> = (0..2).map(|_| scope.spawn(|| gate.wait())).collect();
            // The fourth party never comes (its thread could not be started).
            gate.call_off();
            let late = gate.wait();
            let mut all: Vec<bool> = waiting.into_iter().map(|h| h.join().unwrap()).collect();
            all.push(late);
            all
        });
        assert_eq!(released, [false, false, false]);
    }
}
