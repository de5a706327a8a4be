//! `iolab guest up`, `exec` and `down`: a guest that serves as a host of its own — kernel, page cache, boot id, clock and disk — on a tap, until stopped, and the commands (an MPI launcher's daemons) run in it as ssh would run them.

use super::distributed::new_run_id;
use super::error::{AppError, Ending};
use super::guest_image::{guest_error, make_image};
use crate::cli::{GuestDownArgs, GuestExecArgs, GuestUpArgs};
use crate::guest::channel::AsHost;
use crate::guest::{GuestError, Guests, exec};
use crate::plan::guest::{Accelerator, GuestSpec};
use crate::run::Session;

/// The smallest disk `guest up` makes: room for ext4's journal and a run's files.
const SMALLEST_DISK: u64 = 64 << 20;

/// `iolab guest up`: boots the guest, serves `guest exec` until `guest
/// down`, SIGINT or SIGTERM, then stops it and removes its image.
pub(super) fn up(args: &GuestUpArgs) -> Result<Ending, AppError> {
    let spec = GuestSpec::parse(&args.guest)?;
    if spec.tap.is_none() {
        return Err(crate::usage!(
            "--guest {}: a guest serving as a host needs tap=TAP, its link to the other hosts (scripts/netlab guest-link makes one)",
            args.guest
        )
        .into());
    }
    if let Some(lun) = spec.destroys() {
        return Err(crate::usage!(
            "--guest mount={lun}: a guest serving as a host makes no file system on a LUN; give it its own disk, or mount=nfs://… that several hosts share"
        )
        .into());
    }
    if args.size < SMALLEST_DISK {
        return Err(crate::usage!(
            "--size {}: the guest's disk needs 64 MiB at least",
            crate::plan::units::format_size(args.size)
        )
        .into());
    }
    let hostname = &args.hostname;
    if hostname.is_empty()
        || hostname.len() > 63
        || hostname.starts_with('-')
        || !hostname
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        return Err(crate::usage!(
            "--hostname {hostname}: 1 to 63 letters, digits and '-', not starting with '-'"
        )
        .into());
    }
    let dir = std::fs::canonicalize(&args.dir)
        .map_err(|e| crate::usage!("--dir {}: {e}", args.dir.display()))?;
    let Some(dir_text) = dir.to_str().map(str::to_string) else {
        return Err(crate::usage!("--dir {}: not UTF-8", dir.display()).into());
    };
    let address = crate::guest::network::guest_address(spec.tap.as_deref().unwrap_or(""))
        .map_err(guest_error)?;
    let address = address
        .split_once('/')
        .map_or(address.as_str(), |(a, _)| a)
        .to_string();
    crate::guest::qemu::version().map_err(guest_error)?;
    let interrupt = crate::run::signals::Interrupt::install().map_err(anyhow::Error::from)?;
    let run_id = new_run_id();
    let session = Session::open(&dir, &run_id, interrupt.clone())?;
    session.remove_dead_runs();
    // Bound before anything is made: a second guest at this address is refused.
    let listener = exec::listen(&address).map_err(guest_error)?;
    let iolab = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find iolab's own binary for the guest: {e}"))?;
    // With mount=nfs:// the guest's directory is the export: no image.
    let image = if spec.has_image() {
        Some(make_image(&session, 0, args.size, spec.format)?)
    } else {
        None
    };
    let served = serve(
        &spec,
        image.as_ref().map(|image| image.path()),
        &iolab,
        (&run_id, hostname, &dir_text),
        &listener,
        &interrupt,
    );
    if let Some(image) = image {
        image.release(false);
    }
    // The caller of `guest down` hears the connection close only now.
    match served.map(drop) {
        Ok(()) => match interrupt.signal() {
            Some(signal) => Ok(Ending::Interrupted(signal)),
            None => Ok(Ending::Success),
        },
        Err(GuestError::Interrupted) => Ok(Ending::Interrupted(interrupt.signal().unwrap_or(2))),
        Err(error) => Err(guest_error(error)),
    }
}

/// Boots the guest on `image` and serves its control socket until it is
/// asked down (the caller's connection returned) or iolab to end; the guest
/// is stopped before this returns.
fn serve(
    spec: &GuestSpec,
    image: Option<&std::path::Path>,
    iolab: &std::path::Path,
    (run_id, hostname, dir): (&str, &str, &str),
    listener: &std::os::unix::net::UnixListener,
    interrupt: &crate::run::signals::Interrupt,
) -> Result<Option<std::os::unix::net::UnixStream>, GuestError> {
    let mut guests = Guests::prepare(spec, image, iolab, (run_id, true), &|| interrupt.is_set())?;
    guests.as_host = Some(AsHost {
        hostname: hostname.to_string(),
        dir: dir.to_string(),
    });
    guests.on_phase = |booting| {
        if let Some(accelerator) = booting {
            crate::say!("iolab: booting the guest ({})", accelerator.name());
        }
    };
    let ending = || interrupt.is_set();
    guests.boot(&ending)?;
    let address = guests.address().unwrap_or_default().to_string();
    let ready = guests.ready.clone().expect("a booted guest is ready");
    crate::say!(
        "guest {hostname} up at {address}: {} ({}, booted in {:.1} s), {} ({}) at {dir}",
        ready.environment.kernel,
        guests.accelerator.unwrap_or(Accelerator::Tcg).name(),
        guests.boot_seconds.last().copied().unwrap_or(0.0),
        ready.device,
        ready.filesystem,
    );
    if let Some(why) = &guests.why_tcg {
        crate::say!("  TCG because {why}");
    }
    crate::say!(
        "  run a command in it: iolab guest exec {address} COMMAND…; stop it: iolab guest down {address} (or Ctrl-C here)"
    );
    let served = exec::serve(&mut guests, listener, &ending);
    guests.stop();
    crate::say!("guest {hostname} at {address} stopped");
    served
}

/// `iolab guest exec ADDRESS WORDS…`.
pub(super) fn exec(args: &GuestExecArgs) -> Result<Ending, AppError> {
    let status = exec::exec(&args.address, args.words.join(" ")).map_err(guest_error)?;
    Ok(match status {
        0 => Ending::Success,
        status => Ending::CommandFailed(status),
    })
}

/// `iolab guest down ADDRESS`.
pub(super) fn down(args: &GuestDownArgs) -> Result<Ending, AppError> {
    exec::down(&args.address).map_err(guest_error)?;
    crate::say!("guest at {} stopped", args.address);
    Ok(Ending::Success)
}
