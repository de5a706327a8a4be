//! The pipeline's side of distributed runs (`--mpi`): joining the MPI job,
//! agreeing on the checks made before measuring, refusing what a distributed
//! run cannot do, and the run's record.

use super::error::AppError;
use crate::cli::DistributedArgs;
use crate::cluster::{self, Cluster};
use crate::plan::PlannedPoint;
use crate::record::distributed::{Distributed, DistributedHost};
use crate::run::peers::{Alone, Peers, agree_on};
use crate::usage;
use std::path::Path;
use std::rc::Rc;

/// The ranks this process measures with: itself alone ([`Alone`]), or one
/// rank of an MPI job. Every step that involves the others goes through
/// [`Peers`], the same calls alone or not; only the run's record and the
/// checks of what a distributed run cannot do need the MPI job itself.
#[derive(Clone)]
pub(crate) struct Ranks {
    peers: Rc<dyn Peers>,
    cluster: Option<Rc<Cluster>>,
}

impl Ranks {
    /// Joins the MPI job when `--mpi` was given; alone otherwise.
    pub(crate) fn join(args: &DistributedArgs, command: &[String]) -> Result<Ranks, AppError> {
        let options = cluster::Options {
            shared_file: args.shared_file,
            reorder: args.reorder,
            stonewall: args.stonewall,
        };
        let cluster = cluster::join(args.mpi, options, command, &new_run_id())?;
        Ok(match cluster {
            Some(cluster) => Ranks {
                peers: cluster.clone(),
                cluster: Some(cluster),
            },
            None => Ranks::alone(),
        })
    }

    /// A single-host run.
    pub(crate) fn alone() -> Ranks {
        Ranks {
            peers: Rc::new(Alone),
            cluster: None,
        }
    }

    /// Whether this is one rank of an MPI job.
    pub(crate) fn is_distributed(&self) -> bool {
        self.cluster.is_some()
    }

    /// The other ranks, for the runner.
    pub(crate) fn peers(&self) -> Rc<dyn Peers> {
        self.peers.clone()
    }

    /// Whether this process prints and writes: rank 0 (alone, the only one).
    pub(crate) fn speaks(&self) -> bool {
        self.peers.rank() == 0
    }

    /// Every rank's `local` result of a check made before measuring: the
    /// first failure, on every rank, so all stop together. A rank keeps its
    /// own error; the others report the failing rank's, named, as bad input.
    pub(crate) fn agreed<T>(&self, local: Result<T, AppError>) -> Result<T, AppError> {
        agree_on(
            self.peers.as_ref(),
            local,
            |e| crate::run::peers::Disagreement {
                message: match e {
                    AppError::Usage(usage) => usage.to_string(),
                    AppError::Other(other) => format!("{other:#}"),
                },
                bad_input: matches!(e, AppError::Usage(_)),
            },
            |theirs| match theirs.bad_input {
                true => usage!("{}", theirs.message).into(),
                false => AppError::Other(anyhow::anyhow!(theirs.message)),
            },
        )
    }

    /// The signal that stopped this process or any rank (the lowest such
    /// rank's, on every rank): every rank stops at the same point, and the
    /// run's status is 128 + that signal.
    pub(crate) fn interrupted(&self, interrupt: &crate::run::signals::Interrupt) -> Option<i32> {
        self.peers.first_signal(interrupt.signal())
    }

    /// Whether this rank or any other says yes (every rank must ask at the
    /// same point): a decision rank 0 takes from the result only it holds,
    /// shared with the others.
    pub(crate) fn any(&self, local: bool) -> bool {
        self.peers.any(local)
    }

    /// The run's id: the MPI job's, the same on every rank, or a new one.
    pub(crate) fn run_id(&self) -> String {
        self.cluster
            .as_ref()
            .map_or_else(new_run_id, |c| c.run_id().to_string())
    }

    /// Rank 0's `indices` on every rank (the points a resumed grid has done).
    pub(crate) fn share_indices(&self, indices: &[usize]) -> Vec<usize> {
        match &self.cluster {
            Some(cluster) => cluster.share_indices(indices),
            None => indices.to_vec(),
        }
    }

    /// The record of a distributed run (collective: every host's environment
    /// is gathered to rank 0, which alone gets `Some`); `None` alone.
    pub(crate) fn record(&self, dir: &Path) -> Option<Distributed> {
        record(self.cluster.as_deref()?, dir)
    }

    /// Refuses, before anything is created, points this rank cannot
    /// measure: `--cpus` naming a CPU this process may not use, and a tree
    /// whose stride the ranks cannot share (what a distributed run cannot
    /// combine is `plan::combine::check_point`'s).
    pub(crate) fn check_points(&self, points: &[PlannedPoint]) -> Result<(), AppError> {
        crate::run::io::affinity::check_points(points)?;
        let ranks = self.cluster.as_deref().map_or(1, Cluster::size);
        for workload in points.iter().flat_map(PlannedPoint::workloads) {
            if let Some(shape) = workload.tree(ranks) {
                shape.check_stride()?;
            }
        }
        Ok(())
    }

    /// Whether the ranks share one file (`--shared-file`).
    pub(crate) fn shared_file(&self) -> bool {
        self.cluster
            .as_deref()
            .is_some_and(|c| c.spread().shared_file)
    }
}

fn record(cluster: &Cluster, dir: &Path) -> Option<Distributed> {
    cluster.announce();
    let environments = cluster.host_environments(dir)?;
    let hosts = cluster
        .hosts()
        .iter()
        .zip(
            environments
                .into_iter()
                .map(Some)
                .chain(std::iter::repeat(None)),
        )
        .map(|(host, environment)| DistributedHost {
            name: host.identity.name.clone(),
            ranks: host.ranks.clone(),
            environment,
            monotonic_offset_ns: host.identity.monotonic_offset_ns,
            clock: host.clock,
        })
        .collect();
    let options = cluster.options();
    Some(Distributed {
        launcher: cluster.launcher().to_string(),
        ranks: cluster.size(),
        hosts,
        shared_file: options.shared_file,
        reorder_shift: cluster.reorder_shift(),
        stonewall: options.stonewall,
    })
}
pub(crate) fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mixed = (nanos ^ (u64::from(std::process::id()) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    format!("{:08x}", mixed >> 32)
}
