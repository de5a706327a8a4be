//! What the runner asks of the other ranks of a distributed run, how the
//! ranks split the files between them, and [`Alone`], the one rank of a
//! single-host run.
//!
//! The runner only knows this trait; `cluster` implements it over MPI, and
//! a run without `--mpi` goes through the same calls to [`Alone`]. Every
//! method is collective: every rank calls it the same number of times in the
//! same order, which is why the runner calls them at fixed places (once per
//! phase of a point, a few times per repetition) and never on an error path
//! that only one rank takes.

use super::RepetitionOutcome;

/// The other ranks of a distributed run.
pub trait Peers {
    /// This process's rank, 0-based.
    fn rank(&self) -> u32;
    /// The number of ranks.
    fn size(&self) -> u32;
    /// How the ranks divide the files.
    fn spread(&self) -> Spread;
    /// Every rank's `local` result: `Ok` when all are `Ok`, otherwise the
    /// failure of the lowest failing rank (naming the rank and its host), on
    /// every rank.
    fn agree(&self, local: Result<(), Disagreement>) -> Result<(), Disagreement>;
    /// Waits until every rank is ready to start the timed region; called by
    /// the thread that then releases the local jobs.
    fn start_together(&self);
    /// Exchanges a finished repetition. Rank 0 gets the merge of every rank's
    /// repetition (its jobs, per-rank and per-host parts); the others get
    /// their own back with the merged status, so every rank stops alike.
    fn gather(&self, local: RepetitionOutcome) -> RepetitionOutcome;
    /// Rank 0's `decision`, on every rank.
    fn decide(&self, decision: bool) -> bool;
    /// Whether `local` is true on any rank.
    fn any(&self, local: bool) -> bool;
    /// The signal that stopped the lowest rank a signal stopped, given
    /// this rank's `own`, on every rank: the run's status is 128 + that
    /// signal wherever it came.
    fn first_signal(&self, own: Option<i32>) -> Option<i32> {
        own
    }
    /// Whether this rank samples its host's counters: the lowest rank on each
    /// host does, so each host's devices are counted once, not once per rank.
    fn samples_host(&self) -> bool;
    /// Whether this is a run without an MPI job ([`Alone`]): nobody waits
    /// for it, so a failure it meets ends the point with its own error, and
    /// its jobs need no common start. An MPI job of one rank is not alone:
    /// its collectives keep their bookkeeping (the release time a
    /// repetition's figures are measured from).
    fn alone(&self) -> bool {
        false
    }
    /// Relays the ending signals between the ranks, called while the jobs
    /// run (and at each common start): this rank's signal told to the
    /// others, theirs raised here. Not collective: each rank calls it as
    /// often as it likes.
    fn watch_stop(&self) {}
}

/// A rank's failure as the others are told it: its message, and whether
/// it is bad input (so every rank ends with exit status 2, as one host
/// would, rather than 1).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Disagreement {
    pub message: String,
    #[serde(default)]
    pub bad_input: bool,
}

/// Every rank's `local` result, agreed (see [`Peers::agree`]): `Ok` when
/// every rank's is; a rank that failed keeps its own error, of its own kind;
/// the others get the first failing rank's (`describe` makes an error a
/// [`Disagreement`]), made an error of the same kind by `theirs`. The one
/// rule of agreement, for the runner's steps and the pipeline's checks.
pub fn agree_on<T, E>(
    peers: &dyn Peers,
    local: Result<T, E>,
    describe: impl FnOnce(&E) -> Disagreement,
    theirs: impl FnOnce(Disagreement) -> E,
) -> Result<T, E> {
    let shared = local.as_ref().map(|_| ()).map_err(describe);
    match (peers.agree(shared), local) {
        (Ok(()), local) => local,
        (Err(_), Err(own)) => Err(own),
        (Err(message), Ok(_)) => Err(theirs(message)),
    }
}

/// Relays the ending signals between the ranks ([`Peers::watch_stop`])
/// every 20 ms until `finished` says the local jobs are done, then once
/// more: called by the thread that released them.
pub fn relay_stops_until(peers: &dyn Peers, finished: impl Fn() -> bool) {
    while !finished() {
        peers.watch_stop();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    peers.watch_stop();
}

/// The one rank of a single-host run: every collective returns what it is given.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone;

impl Peers for Alone {
    fn rank(&self) -> u32 {
        0
    }
    fn size(&self) -> u32 {
        1
    }
    fn spread(&self) -> Spread {
        Spread::default()
    }
    fn agree(&self, local: Result<(), Disagreement>) -> Result<(), Disagreement> {
        local
    }
    fn start_together(&self) {}
    fn gather(&self, local: RepetitionOutcome) -> RepetitionOutcome {
        local
    }
    fn decide(&self, decision: bool) -> bool {
        decision
    }
    fn any(&self, local: bool) -> bool {
        local
    }
    fn samples_host(&self) -> bool {
        true
    }
    fn alone(&self) -> bool {
        true
    }
}

/// How the ranks of a distributed run divide the files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spread {
    /// One file for all ranks (`--shared-file`), created by rank 0; job `g`
    /// of all ranks' jobs uses the region `[g × size, (g + 1) × size)`.
    pub shared_file: bool,
    /// Reads go to the files (or regions) of the rank this many ranks on
    /// (`--reorder`, IOR's `-C`); 0 when reads stay on the rank's own.
    pub reorder_shift: u32,
}

/// What one rank contributed to a merged repetition (rank 0 only).
#[derive(Debug)]
pub struct RankOutcome {
    pub rank: u32,
    pub host: String,
    /// Its jobs' positions in the merged repetition's job list (a point
    /// of groups lists them group by group: not one run of positions).
    pub jobs: Vec<usize>,
    /// Its own error, when its repetition failed.
    pub error: Option<String>,
    /// Whether a signal cut its repetition short.
    pub interrupted: bool,
    /// Its host's counters, from the lowest rank on each host only.
    pub samples: Option<crate::probe::sampler::Samples>,
}
