//! The pipeline's side of distributed runs (`--mpi`): joining the MPI job,
//! agreeing on the checks made before measuring, refusing what a distributed
//! run cannot do, and the run's record.

use super::AppError;
use crate::cli::DistributedArgs;
use crate::cluster::{self, Cluster};
use crate::plan::PlannedPoint;
use crate::record::distributed::{Distributed, DistributedHost};
use crate::run::peers::Peers;
use crate::usage;
use std::path::Path;
use std::rc::Rc;

/// Joins the MPI job when `--mpi` was given; `None` otherwise.
pub(crate) fn join(
    args: &DistributedArgs,
    command: &[String],
) -> Result<Option<Rc<Cluster>>, AppError> {
    Ok(cluster::join(
        args.mpi,
        args.options(),
        command,
        &super::new_run_id(),
    )?)
}

/// Whether this process prints and writes: alone, or rank 0.
pub(crate) fn speaks(cluster: Option<&Rc<Cluster>>) -> bool {
    cluster.is_none_or(|c| c.is_root())
}

/// Every rank's `local` result of a check made before measuring: the first
/// failure, on every rank, so all stop together. A rank keeps its own error;
/// the others report the failing rank's, named.
pub(crate) fn agreed<T>(
    cluster: Option<&Rc<Cluster>>,
    local: Result<T, AppError>,
) -> Result<T, AppError> {
    let Some(cluster) = cluster else {
        return local;
    };
    let message = local.as_ref().err().map(|e| match e {
        AppError::Usage(usage) => usage.to_string(),
        AppError::Other(other) => format!("{other:#}"),
    });
    match (cluster.agree(message.map_or(Ok(()), Err)), local) {
        (Ok(()), local) => local,
        (Err(_), Err(own)) => Err(own),
        (Err(theirs), Ok(_)) => Err(usage!("{theirs}").into()),
    }
}

/// Refuses what a distributed run cannot measure: `--steady` (each rank would
/// stop on its own), and with `--shared-file` the mmap engine (which maps the
/// file from 0) and sizes that are not a multiple of 4 KiB (regions start on
/// page boundaries).
pub(crate) fn check_points(
    cluster: Option<&Rc<Cluster>>,
    points: &[PlannedPoint],
) -> Result<(), AppError> {
    let Some(cluster) = cluster else {
        return Ok(());
    };
    for point in points {
        let workload = &point.workload;
        if let Some(steady) = workload.steady {
            return Err(usage!(
                "--steady {steady} cannot be used with --mpi: each rank would stop on its own"
            )
            .into());
        }
        if cluster.spread().shared_file {
            if workload.engine.capabilities().maps_file {
                return Err(usage!(
                    "--engine mmap cannot be used with --shared-file: it maps the file from offset 0"
                )
                .into());
            }
            if workload.size % 4096 != 0 {
                return Err(usage!(
                    "--size {} with --shared-file must be a multiple of 4096 bytes: each region starts on a page",
                    workload.size
                )
                .into());
            }
        }
    }
    Ok(())
}

/// The record of the run (collective: every host's environment is gathered
/// to rank 0, which alone gets `Some`).
pub(crate) fn record(cluster: &Cluster, dir: &Path) -> Option<Distributed> {
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
