//! `--target`: the network target a run, sweep, study or preset measures
//! (an NFS export's directory, or an iSCSI LUN), checked against the
//! points' engines and the user's consent to write it, and the session
//! that reaches it.

use super::AppError;
use super::distributed::Ranks;
use crate::engine::url::NetworkUrl;
use crate::plan::guest::{GuestMount, GuestSpec};
use crate::plan::{PlannedPoint, SyncMode, UsageError};
use crate::run::Session;
use crate::run::signals::Interrupt;
use crate::stats;
use crate::usage;
use std::path::Path;

/// The `--target` URL, checked against the points' engines (a network
/// target needs the engine that reaches it at every point, and a network
/// engine a target) and against `--destroy-data`: an iSCSI LUN is written
/// (by a write test, or the layout its reads need) only when the flag
/// repeats its URL exactly.
pub(crate) fn network_target(
    target: Option<&str>,
    destroy_data: Option<&Path>,
    points: &[PlannedPoint],
) -> Result<Option<NetworkUrl>, AppError> {
    let url = target
        .map(NetworkUrl::parse)
        .transpose()
        .map_err(|message| usage!("{message}"))?;
    for point in points {
        let engine = point.workload.engine;
        match (&url, engine.capabilities().network) {
            (Some(url), reached) if reached != Some(scheme(url)) => {
                return Err(usage!(
                    "--target {} is reached with --engine {}, not --engine {}",
                    url.text(),
                    url.engine().name(),
                    engine.name()
                )
                .into());
            }
            (None, Some(scheme)) => {
                let form = match scheme {
                    "nfs" => "nfs://HOST/EXPORT[/DIR]",
                    _ => "iscsi://HOST[:PORT]/IQN/LUN",
                };
                return Err(usage!("--engine {} needs --target {form}", engine.name()).into());
            }
            _ => {}
        }
        if matches!(url, Some(NetworkUrl::Nfs(_))) && point.workload.sync == SyncMode::Odsync {
            return Err(usage!(
                "--sync odsync: iolab's NFS client writes FILE_SYNC (--sync osync) or UNSTABLE, not DATA_SYNC"
            )
            .into());
        }
    }
    match (&url, destroy_data) {
        (Some(NetworkUrl::Iscsi(lun)), confirmation) => {
            let writes = points.iter().any(|p| p.workload.op.writes());
            match confirmation {
                None if writes => {
                    return Err(usage!(
                        "--target {} is an iSCSI LUN and a write test destroys its data; add --destroy-data={} to confirm",
                        lun.text,
                        lun.text
                    )
                    .into());
                }
                // Compared as text, as the device's path is.
                Some(given) if given.as_os_str() != lun.text.as_str() => {
                    return Err(usage!(
                        "--destroy-data {} does not repeat the LUN under test; it must be exactly --destroy-data={}",
                        given.display(),
                        lun.text
                    )
                    .into());
                }
                _ => {}
            }
        }
        (Some(NetworkUrl::Nfs(url)), Some(_)) => {
            return Err(usage!(
                "--destroy-data is for a block device or an iSCSI LUN; on {} iolab writes only the files it creates",
                url.text
            )
            .into());
        }
        _ => {}
    }
    Ok(url)
}

/// The scheme of `url`, as engines declare it.
fn scheme(url: &NetworkUrl) -> &'static str {
    match url {
        NetworkUrl::Nfs(_) => "nfs",
        NetworkUrl::Iscsi(_) => "iscsi",
    }
}

/// A session on `url`: the files go in a directory of an NFS export
/// (libnfs), or the session measures an iSCSI LUN (libiscsi), which may be
/// written when `destroy_data` confirmed it and nothing lives on it. A
/// server that cannot be reached, mounted or logged in to is bad input,
/// named with the URL.
pub(crate) fn open_network_session(
    url: &NetworkUrl,
    destroy_data: bool,
    interrupt: &Interrupt,
    ranks: &Ranks,
) -> Result<Session, UsageError> {
    url.engine()
        .available()
        .map_err(|reason| usage!("--target {}: {reason}", url.text()))?;
    let watch = crate::probe::sampler::Watch::default();
    let mut session = match url {
        NetworkUrl::Nfs(url) => {
            let space = crate::run::remote::NfsSpace::connect(url.clone(), &ranks.run_id())
                .map_err(|message| usage!("{message}"))?;
            Session::in_space(Box::new(space), watch, interrupt.clone())
        }
        NetworkUrl::Iscsi(url) => {
            let mut lun = crate::run::lun::IscsiLun::connect(url.clone())
                .map_err(|message| usage!("{message}"))?;
            if destroy_data {
                lun.refuse_if_in_use()
                    .map_err(|message| usage!("{message}"))?;
            }
            let portal = crate::run::lun::IscsiPortal::new(url, &ranks.run_id());
            let mut session = Session::in_space(Box::new(portal), watch, interrupt.clone());
            session.use_lun(Box::new(lun))?;
            session
        }
    };
    session.set_enough_rule(stats::ci_within);
    session.distribute(ranks.peers());
    Ok(session)
}

/// `--guest mount=iscsi://…`: the guest makes a file system on the LUN,
/// which destroys what it holds, so `--destroy-data` must repeat the URL
/// (the guest still refuses a LUN holding a file system iolab did not
/// make). Whether `--destroy-data` was this consent.
pub(crate) fn guest_mount_consent(
    guest: Option<&GuestSpec>,
    destroy_data: Option<&Path>,
) -> Result<bool, AppError> {
    let Some(GuestMount::Iscsi(lun)) = guest.and_then(GuestSpec::mount) else {
        return Ok(false);
    };
    match destroy_data {
        Some(given) if given.as_os_str() == lun.text.as_str() => Ok(true),
        Some(given) => Err(usage!(
            "--destroy-data {} does not repeat the LUN the guest mounts; it must be exactly --destroy-data={}",
            given.display(),
            lun.text
        )
        .into()),
        None => Err(usage!(
            "--guest mount={} makes a file system on an iSCSI LUN, which destroys its data; add --destroy-data={} to confirm",
            lun.text,
            lun.text
        )
        .into()),
    }
}

/// A sweep's or study's `--destroy-data`: the consent for a guest's iSCSI
/// mount, or for `--target`'s LUN (checked with it); given without either, refused.
pub(crate) fn grid_consent(
    target: Option<&NetworkUrl>,
    guest: Option<&GuestSpec>,
    destroy_data: Option<&Path>,
) -> Result<(), AppError> {
    let consented = guest_mount_consent(guest, destroy_data)?;
    if let (None, false, Some(given)) = (target, consented, destroy_data) {
        return Err(usage!(
            "--destroy-data {} is for an iSCSI LUN given with --target or --guest mount=iscsi://…",
            given.display()
        )
        .into());
    }
    Ok(())
}
