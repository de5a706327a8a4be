//! The runner's [`Peers`] over the ranks of an MPI job: agreement, the common start, each repetition gathered on rank 0 as the ranks report it (the ranks that do not, named once a signal stopped the run), and a signal one rank receives relayed to every other.

use super::wire::{self, WireRepetition, WireStatus};
use super::{Cluster, PLACE};
use crate::clock;
use crate::run::peers::{Disagreement, Peers, Spread};
use crate::run::{RepetitionOutcome, RepetitionStatus};
use std::cell::Cell;

/// How long rank 0 waits for the other ranks' repetitions once a signal
/// of its own (not one another rank relayed) stopped it: an MPI launcher
/// that lost a rank sends the others SIGTERM and kills them a second later
/// (Open MPI), so rank 0 keeps what it has before then, naming the ranks
/// that did not report.
const REPORT_GRACE: std::time::Duration = std::time::Duration::from_millis(600);

impl Peers for Cluster {
    fn rank(&self) -> u32 {
        self.transport.rank()
    }

    fn size(&self) -> u32 {
        self.transport.size()
    }

    fn spread(&self) -> Spread {
        self.spread
    }

    fn agree(&self, local: Result<(), Disagreement>) -> Result<(), Disagreement> {
        if !self.live() {
            return local;
        }
        let bytes = serde_json::to_vec(&local.err()).expect("a message serializes");
        let everyone = self.transport.all_gather(&bytes);
        PLACE.with(|p| p.set((self.rank(), false)));
        for (rank, bytes) in everyone.iter().enumerate() {
            let failure: Option<Disagreement> = serde_json::from_slice(bytes).unwrap_or_else(|e| {
                Some(Disagreement {
                    message: format!("an unreadable reply: {e}"),
                    bad_input: false,
                })
            });
            if let Some(failure) = failure {
                PLACE.with(|p| p.set((self.rank(), true)));
                let host = &self.rank_hosts[rank].name;
                return Err(if self.transport.size() > 1 {
                    Disagreement {
                        message: format!("rank {rank} on {host}: {}", failure.message),
                        ..failure
                    }
                } else {
                    failure
                });
            }
        }
        Ok(())
    }

    fn start_together(&self) {
        // A stop another rank sent after this one's last repetition ended
        // is raised here, before the jobs start.
        self.watch_stop();
        if self.live() {
            self.transport.barrier();
        }
        self.released_at.set(clock::now_ns());
        self.started.set(true);
    }

    fn gather(&self, local: RepetitionOutcome) -> RepetitionOutcome {
        if !self.started.get() {
            // This rank failed before its jobs started: the others are at
            // the common start, waiting for it.
            self.start_together();
        }
        self.started.set(false);
        let (index, warmup) = (local.index, local.warmup);
        let report = WireRepetition::of(self.rank(), self.released_at.get(), &local);
        let bytes = serde_json::to_vec(&report).expect("a repetition serializes");
        if !self.live() {
            return local;
        }
        let signalled_at: Cell<Option<std::time::Instant>> = Cell::new(None);
        let give_up = || {
            self.watch_stop();
            let interrupt = crate::run::signals::Interrupt::install().ok();
            if self.stop_relayed.get() || !interrupt.is_some_and(|i| i.is_set()) {
                return false;
            }
            let since = *signalled_at
                .get()
                .get_or_insert_with(std::time::Instant::now);
            signalled_at.set(Some(since));
            since.elapsed() > REPORT_GRACE
        };
        let mut outcome = match self.transport.gather_until(&bytes, &give_up) {
            Some(all) => {
                let missing: Vec<u32> = (0..all.len() as u32)
                    .filter(|&rank| all[rank as usize].is_none())
                    .collect();
                let reports: Result<Vec<WireRepetition>, String> = all
                    .iter()
                    .flatten()
                    .map(|b| serde_json::from_slice(b).map_err(|e| e.to_string()))
                    .collect();
                let merged = match reports.and_then(|r| wire::merge(local, r, &self.rank_hosts)) {
                    Ok(merged) => merged,
                    Err(error) => RepetitionOutcome::failed_early(
                        index,
                        warmup,
                        format!("cannot merge the ranks' measurements: {error}"),
                    ),
                };
                if missing.is_empty() {
                    merged
                } else {
                    let named: Vec<String> = missing
                        .iter()
                        .map(|&rank| {
                            format!("rank {rank} on {}", self.rank_hosts[rank as usize].name)
                        })
                        .collect();
                    *self.lost.borrow_mut() = missing;
                    RepetitionOutcome {
                        status: RepetitionStatus::Failed(format!(
                            "{} did not report this repetition within {:.1} s of the signal that stopped the run (lost: its process or host ended, or the launcher stopped it); the repetitions before it are kept",
                            named.join(", "),
                            REPORT_GRACE.as_secs_f64()
                        )),
                        ..merged
                    }
                }
            }
            None => local,
        };
        if !self.live() {
            return outcome;
        }
        // Rank 0's status, which names the failing rank, is everyone's.
        let bytes =
            serde_json::to_vec(&WireStatus::of(&outcome.status)).expect("a status serializes");
        let shared = self.transport.broadcast(&bytes);
        outcome.status = serde_json::from_slice::<WireStatus>(&shared)
            .unwrap_or_else(|e| WireStatus::Failed(format!("an unreadable status: {e}")))
            .status();
        outcome
    }

    fn decide(&self, decision: bool) -> bool {
        if !self.live() {
            return decision;
        }
        self.transport.broadcast(&[u8::from(decision)]) == [1]
    }

    fn any(&self, local: bool) -> bool {
        if !self.live() {
            return local;
        }
        self.transport
            .all_gather(&[u8::from(local)])
            .iter()
            .any(|b| b == &[1])
    }

    fn samples_host(&self) -> bool {
        let rank = self.rank();
        self.hosts.iter().any(|h| h.ranks.first() == Some(&rank))
    }

    fn first_signal(&self, own: Option<i32>) -> Option<i32> {
        if !self.live() {
            return own;
        }
        self.transport
            .all_gather(&own.unwrap_or(0).to_le_bytes())
            .iter()
            .filter_map(|b| Some(i32::from_le_bytes(b.as_slice().try_into().ok()?)))
            .find(|&signal| signal != 0)
    }

    /// A signal one rank receives stops every rank: this rank's is told to
    /// the others once, and one another rank told of is raised here as if
    /// it had come, so every rank's repetition ends alike and the run ends
    /// with one status.
    fn watch_stop(&self) {
        if !self.live() {
            return;
        }
        let Ok(interrupt) = crate::run::signals::Interrupt::install() else {
            return;
        };
        if let Some(signal) = self.transport.take_stop() {
            if !interrupt.is_set() {
                self.stop_relayed.set(true);
                // SAFETY: raise(3) runs the handlers iolab installed.
                unsafe { libc::raise(signal) };
            }
        }
        if let (Some(signal), false) = (interrupt.signal(), self.told_stop.get()) {
            self.told_stop.set(true);
            if !self.stop_relayed.get() {
                self.transport.send_stop(signal);
            }
        }
    }
}

impl Cluster {
    /// Whether every rank still answers (no rank was lost).
    fn live(&self) -> bool {
        self.lost.borrow().is_empty()
    }
}
