//! `--target`: the network target a run, sweep, study or preset measures
//! (an NFS export's directory, or an iSCSI LUN), checked against the
//! points' engines and the user's consent to write it, and the session
//! that reaches it; with it, every point's groups checked against their
//! site (made files, `--file`, a LUN) for every command.

use super::distributed::Ranks;
use super::error::AppError;
use crate::net::{self, Remote};
use crate::plan::combine::{Reach, Site, Where, check_point, check_reach, in_group};
use crate::plan::guest::GuestSpec;
use crate::plan::{PlannedPoint, UsageError};
use crate::run::Session;
use crate::run::signals::Interrupt;
use crate::stats;
use crate::usage;
use std::path::Path;

/// The `--target` URL, checked against the points' engines (a network
/// target needs the engine that reaches it at every point, and a network
/// engine a target), against what its protocol's client can do, and
/// against `--destroy-data` (a target whose data a write destroys is
/// written only when the flag repeats its URL exactly); and every point's
/// groups checked against where they run (`check_point`: the given `file`,
/// or the point's own, which iolab makes when it is among `made`,
/// the LUN, or files iolab makes; MPI), for `run`, `sweep` and `study` alike.
pub(crate) fn network_target(
    target: Option<&str>,
    file: Option<&Path>,
    made: &[&Path],
    destroy_data: Option<&Path>,
    points: &[PlannedPoint],
    ranks: &Ranks,
) -> Result<Option<Box<dyn Remote>>, AppError> {
    let remote = target
        .map(net::parse)
        .transpose()
        .map_err(|message| usage!("{message}"))?;
    // Every group of a point is checked, not only its first, and named: a
    // refusal comes before anything starts. What the protocol's own client
    // cannot do is its module's to say.
    let reach = remote.as_ref().map(|remote| Reach {
        engine: remote.engine(),
        text: remote.text(),
    });
    for group in points.iter().flat_map(|point| &point.groups) {
        check_reach(group, reach, net::form_for(group.workload.engine))?;
        if let Some(why) = remote
            .as_ref()
            .and_then(|r| r.refuse_workload(&group.workload))
        {
            return Err(usage!("{}{why}", in_group(group)).into());
        }
    }
    // What the groups combine with their site is refused before a file is
    // made or a server asked.
    let lun = remote.as_ref().filter(|r| !r.makes_files());
    for point in points {
        // A point on its own file (a job file's phase) is on that one.
        let file = point.file.as_deref().or(file);
        let flag = match (file, lun) {
            (Some(file), _) => Some(format!("--file {}", file.display())),
            (None, Some(lun)) => Some(format!("--target {}", lun.text())),
            (None, None) => None,
        };
        let site = match (&flag, file) {
            (Some(flag), Some(file)) => Site::Given {
                flag,
                made: made.contains(&file),
            },
            (Some(flag), None) => Site::Lun { flag },
            (None, _) => Site::Made,
        };
        let at = Where {
            site,
            local: remote.is_none(),
            distributed: ranks.is_distributed(),
            shared_file: ranks.shared_file(),
        };
        check_point(&point.groups, &at)?;
    }
    if let Some(remote) = &remote {
        let writes = points
            .iter()
            .flat_map(PlannedPoint::workloads)
            .any(|w| w.op.writes());
        remote
            .consent(writes, destroy_data)
            .map_err(|message| usage!("{message}"))?;
    }
    Ok(remote)
}

/// A session on `remote`, writable when `destroy_data` confirmed it (and
/// its protocol finds nothing living there). A server that cannot be
/// reached, mounted or logged in to is bad input, named with the URL.
pub(crate) fn open_network_session(
    remote: &dyn Remote,
    destroy_data: bool,
    interrupt: &Interrupt,
    ranks: &Ranks,
) -> Result<Session, UsageError> {
    remote
        .engine()
        .available()
        .map_err(|reason| usage!("--target {}: {reason}", remote.text()))?;
    let mut session = remote
        .open(destroy_data, &ranks.run_id(), interrupt)
        .map_err(|message| usage!("{message}"))?;
    session.set_enough_rule(stats::ci_within);
    session.distribute(ranks.peers());
    Ok(session)
}

/// `--guest mount=iscsi://…`: the guest makes a file system on the LUN,
/// which destroys what it holds, so `--destroy-data` must repeat the URL
/// (the guest still refuses a LUN holding a file system iolab did not
/// make). Whether `--destroy-data` was this consent.
pub(crate) fn guest_mount_consent(
    guests: &[GuestSpec],
    destroy_data: Option<&Path>,
) -> Result<bool, AppError> {
    let mut luns: Vec<&str> = guests.iter().filter_map(GuestSpec::destroys).collect();
    luns.sort_unstable();
    luns.dedup();
    let lun = match luns.as_slice() {
        [] => return Ok(false),
        [lun] => *lun,
        several => {
            return Err(usage!(
                "the guests mount {} LUNs ({}): --destroy-data consents for one; measure them in separate runs",
                several.len(),
                several.join(", ")
            )
            .into());
        }
    };
    match destroy_data {
        Some(given) if given.as_os_str() == lun => Ok(true),
        Some(given) => Err(usage!(
            "--destroy-data {} does not repeat the LUN the guest mounts; it must be exactly --destroy-data={}",
            given.display(),
            lun
        )
        .into()),
        None => Err(usage!(
            "--guest mount={lun} makes a file system on an iSCSI LUN, which destroys its data; add --destroy-data={lun} to confirm"
        )
        .into()),
    }
}

/// A sweep's or study's `--destroy-data`: the consent for a guest's iSCSI
/// mount, or for `--target`'s LUN (checked with it); given without either, refused.
pub(crate) fn grid_consent(
    target: Option<&dyn Remote>,
    guests: &[GuestSpec],
    destroy_data: Option<&Path>,
) -> Result<(), AppError> {
    let consented = guest_mount_consent(guests, destroy_data)?;
    if let (None, false, Some(given)) = (target, consented, destroy_data) {
        return Err(usage!(
            "--destroy-data {} is for an iSCSI LUN given with --target or --guest mount=iscsi://…",
            given.display()
        )
        .into());
    }
    Ok(())
}
