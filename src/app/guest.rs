//! The host's side of guest points: each `--guest` configuration's disk image made in the directory under test (an iolab scratch file) and its guest, booted per configuration and round, each guest point sent to the agent and its record taken back, a guest that died recorded as a failed point (nothing timed) and booted again, and `iolab guest check`.

use super::distributed::new_run_id;
use super::error::{AppError, Ending};
use super::guest_image::{guest_error, make_image};
use super::session::record_point;
use crate::cli::{GuestCheckArgs, GuestCommand};
use crate::guest::{GuestError, Guests};
use crate::plan::guest::{Accelerator, GuestSpec, ImageFormat};
use crate::plan::{Machine, PlannedPoint, Workload};
use crate::record::Point;
use crate::record::guest::{Crossing, GuestBoot, GuestRecord};
use crate::run::target::Target;
use crate::run::{PointOutcome, RepetitionOutcome, Session, TargetInfo};
use std::path::PathBuf;
use std::time::Instant;

/// Room the guest's file system takes beyond the points' files.
const IMAGE_SLACK: u64 = 256 << 20;

/// `iolab guest …`.
pub fn command(command: &GuestCommand) -> Result<Ending, AppError> {
    match command {
        GuestCommand::Check(args) => check(args),
        GuestCommand::Fetch(args) => {
            let started = Instant::now();
            let interrupt =
                crate::run::signals::Interrupt::install().map_err(anyhow::Error::from)?;
            let kernel = crate::guest::kernel::obtain(&args.kernel, &|| interrupt.is_set())
                .map_err(guest_error)?;
            crate::say!(
                "kernel:      {} ({}), ready in {:.1} s in {}",
                kernel.package,
                kernel.release,
                started.elapsed().as_secs_f64(),
                kernel
                    .vmlinux
                    .parent()
                    .map_or_else(String::new, |d| d.display().to_string())
            );
            Ok(Ending::Success)
        }
        GuestCommand::Up(args) => super::guest_host::up(args),
        GuestCommand::Exec(args) => super::guest_host::exec(args),
        GuestCommand::Down(args) => super::guest_host::down(args),
        GuestCommand::Agent => super::agent::agent(),
    }
}

/// The guests of one run: one configuration per `--guest`, each with its image.
pub(crate) struct GuestSide {
    configurations: Vec<Configuration>,
    /// The configuration (index) and round the running guest was booted for.
    running: Option<(usize, Option<u32>)>,
    /// The host's devices under the images, by their diskstats names.
    host_disks: Vec<String>,
}

/// One `--guest`: its boots, its image, what its points did across the hypervisor.
struct Configuration {
    guests: Guests,
    image: Option<Box<dyn Target>>,
    crossings: Vec<Crossing>,
}

impl GuestSide {
    /// The guest side of `points` when any runs in a guest: QEMU found,
    /// each configuration's image made in `session`'s directory, the kernel
    /// fetched, the first point's guest booted.
    pub(crate) fn start(
        session: &Session,
        specs: &[GuestSpec],
        points: &[PlannedPoint],
        ranks: &super::distributed::Ranks,
        interrupt: &crate::run::signals::Interrupt,
    ) -> Result<Option<GuestSide>, AppError> {
        let guest_points: Vec<&Workload> = points
            .iter()
            .map(|p| p.workload())
            .filter(|w| w.machine == Machine::Guest)
            .collect();
        if guest_points.is_empty() {
            return Ok(None);
        }
        if ranks.is_distributed() || session.dir().local().is_none() {
            // plan::combine::check_point refused it before anything was made.
            return Err(anyhow::anyhow!(
                "guest points reached a distributed run or a network target"
            )
            .into());
        }
        let defaults = [GuestSpec::default()];
        let specs = if specs.is_empty() {
            &defaults[..]
        } else {
            specs
        };
        let needed = guest_points
            .iter()
            .filter(|w| w.uses_files())
            .map(|w| w.size.saturating_mul(u64::from(w.jobs)))
            .max()
            .unwrap_or(0);
        let size = (needed + needed / 8 + IMAGE_SLACK).next_multiple_of(1 << 20);
        // Checked before anything is created: a missing package is bad input.
        if specs
            .iter()
            .any(|spec| spec.format == ImageFormat::Qcow2 && spec.has_image())
            && std::process::Command::new("qemu-img")
                .arg("--version")
                .output()
                .is_err()
        {
            return Err(crate::usage!(
                "--guest format=qcow2 needs qemu-img, which is not installed (Debian package qemu-utils)"
            )
            .into());
        }
        let iolab = std::env::current_exe()
            .map_err(|e| anyhow::anyhow!("cannot find iolab's own binary for the guest: {e}"))?;
        let page_cache = guest_points.iter().any(|w| w.uses_page_cache());
        crate::guest::qemu::version().map_err(guest_error)?;
        for tap in specs.iter().filter_map(|spec| spec.tap.as_ref()) {
            // A tap that is not there is refused before an image is made.
            crate::guest::network::guest_address(tap).map_err(guest_error)?;
        }
        let mut side = GuestSide {
            configurations: Vec::with_capacity(specs.len()),
            running: None,
            host_disks: crate::probe::environment::watch(session.dir().path()).disks,
        };
        for (index, spec) in specs.iter().enumerate() {
            // With a mount the guest measures the server's storage: no image.
            // Dropping `side` releases the images made so far.
            let image = if spec.has_image() {
                Some(make_image(session, index as u32, size, spec.format)?)
            } else {
                None
            };
            let mut guests = match Guests::prepare(
                spec,
                image.as_ref().map(|image| image.path()),
                &iolab,
                (session.dir().run_id(), page_cache),
                &|| interrupt.is_set(),
            ) {
                Ok(guests) => guests,
                Err(error) => {
                    if let Some(image) = image {
                        image.release(false);
                    }
                    return Err(guest_error(error));
                }
            };
            guests.on_phase = show_guest_phase;
            side.configurations.push(Configuration {
                guests,
                image,
                crossings: Vec::new(),
            });
        }
        // The first point's guest is booted before it, so what cannot boot
        // (KVM that cannot run the kernel, a missing module) is said before
        // anything is measured; a guest that dies here is booted again at
        // its point. An interruption here leaves no guest running: the first
        // point's boot sees it at once and ends the run as interrupted.
        let first = points
            .iter()
            .find(|p| p.workload().machine == Machine::Guest)
            .expect("a guest point, checked above");
        let at = side.configuration_of(first);
        side.running = Some((at, first.round));
        match side.configurations[at].guests.boot(&|| interrupt.is_set()) {
            Err(GuestError::Usage(why)) | Err(GuestError::Missing(why)) => {
                return Err(AppError::Usage(crate::plan::UsageError(why)));
            }
            Err(GuestError::Interrupted) => {
                crate::say!("iolab: interrupted while the guest booted; QEMU was stopped");
            }
            Err(error) => crate::say!("iolab: the guest did not boot: {error}"),
            Ok(()) => {}
        }
        Ok(Some(side))
    }

    /// The index of the configuration `planned` runs in.
    fn configuration_of(&self, planned: &PlannedPoint) -> usize {
        let index = planned
            .workload()
            .guest_config
            .map_or(0, |config| (config as usize).saturating_sub(1));
        index.min(self.configurations.len() - 1)
    }

    /// Measures `planned` in the guest: a guest booted for its
    /// configuration and round (the one running for another is stopped
    /// first). A guest that dies gives a failed point with nothing timed,
    /// and the next point boots another. `Ok(None)` when `interrupt` ended
    /// the point: the guest is stopped, nothing recorded.
    pub(crate) fn measure(
        &mut self,
        planned: &PlannedPoint,
        interrupt: &crate::run::signals::Interrupt,
    ) -> Result<Option<Point>, AppError> {
        let at = self.configuration_of(planned);
        if self.running != Some((at, planned.round)) {
            if let Some((previous, _)) = self.running {
                self.configurations[previous].guests.stop();
            }
            self.running = Some((at, planned.round));
        }
        let configuration = &mut self.configurations[at];
        let before = crate::probe::diskstats::read();
        let sent = Instant::now();
        let measured = configuration
            .guests
            .measure(&planned.label, &planned.groups, &|| interrupt.is_set());
        let after = crate::probe::diskstats::read();
        match measured {
            // A mount has no image under it: nothing crosses the hypervisor to a disk.
            Ok((point, _)) if configuration.image.is_none() => Ok(Some(point)),
            Ok((point, guest)) => {
                configuration.crossings.push(Crossing {
                    label: planned.label.clone(),
                    round: planned.round,
                    wall_s: sent.elapsed().as_secs_f64(),
                    guest,
                    host: crate::gather::activity::device_bytes(&self.host_disks, &before, &after),
                });
                Ok(Some(point))
            }
            Err(GuestError::Interrupted) => {
                crate::say!(
                    "iolab: {}: interrupted; the guest was stopped",
                    planned.label
                );
                Ok(None)
            }
            Err(GuestError::Refused(why)) => Err(AppError::Usage(crate::plan::UsageError(
                format!("{why} (in the guest)"),
            ))),
            Err(GuestError::Missing(why)) | Err(GuestError::Usage(why)) => {
                Err(AppError::Usage(crate::plan::UsageError(why)))
            }
            Err(error) => {
                crate::say!("iolab: {} in the guest: {error}", planned.label);
                failed_point(planned, &error.to_string()).map(Some)
            }
        }
    }

    /// What the result records of the guests: the one guest, or each of
    /// several configurations in `guest_config`'s order.
    pub(crate) fn record(&self, result: &mut crate::record::ResultFile) {
        let mut records: Vec<GuestRecord> = self
            .configurations
            .iter()
            .map(Configuration::record)
            .collect();
        if records.len() == 1 {
            result.guest = records.pop();
        } else {
            result.guests = records;
        }
    }
}

impl Configuration {
    fn record(&self) -> GuestRecord {
        let guests = &self.guests;
        let ready = guests.ready.as_ref();
        GuestRecord {
            spec: guests.spec.clone(),
            accelerator: guests.accelerator.unwrap_or(Accelerator::Auto),
            why_tcg: guests.why_tcg.clone(),
            qemu: guests.qemu.clone(),
            machine_type: crate::guest::qemu::MACHINE_TYPE.to_string(),
            kernel_package: guests.kernel.package.clone(),
            image: guests.image.clone(),
            device: ready.map(|r| r.device.clone()),
            filesystem: ready.map(|r| r.filesystem.clone()),
            environment: ready.map(|r| r.environment.clone()),
            boots: guests
                .boot_seconds
                .iter()
                .map(|&boot_s| GuestBoot { boot_s })
                .collect(),
            crossings: self.crossings.clone(),
        }
    }
}

impl Drop for GuestSide {
    fn drop(&mut self) {
        for configuration in &mut self.configurations {
            configuration.guests.stop();
            if let Some(image) = configuration.image.take() {
                image.release(false);
            }
        }
    }
}

/// The record of a guest point that could not be measured: one failed repetition, nothing timed.
fn failed_point(planned: &PlannedPoint, why: &str) -> Result<Point, AppError> {
    let outcome = PointOutcome {
        label: planned.label.clone(),
        workload: planned.workload().clone(),
        target: TargetInfo {
            dir: PathBuf::from("(guest)"),
            filesystem: String::new(),
            direct_alignment: None,
            direct_in_memory: false,
            files: Vec::new(),
            file_given: false,
            open_flags: None,
            tree: None,
        },
        repetitions: vec![RepetitionOutcome::failed_early(
            0,
            false,
            format!("the guest: {why}"),
        )],
        groups: Vec::new(),
    };
    record_point(&outcome, None)
}

/// `iolab guest check`: boots one guest and says what works.
fn check(args: &GuestCheckArgs) -> Result<Ending, AppError> {
    let spec = GuestSpec::parse(&args.guest)?;
    if let Some(lun) = spec.destroys() {
        return Err(crate::usage!(
            "iolab guest check makes no file system on a LUN: --guest mount={lun} is for run, sweep and study with --destroy-data"
        )
        .into());
    }
    let interrupt = crate::run::signals::Interrupt::install().map_err(anyhow::Error::from)?;
    let run_id = new_run_id();
    let session = Session::open(&args.dir, &run_id, interrupt.clone())?;
    session.remove_dead_runs();
    // A check says what each wait is for: the kernel's first fetch, the
    // KVM probe (notes, which other commands print only with -v).
    crate::console::set_verbose(true);
    let qemu = crate::guest::qemu::version().map_err(guest_error)?;
    crate::say!("QEMU:        {qemu}");
    match crate::guest::qemu::kvm_present() {
        Ok(()) => {
            crate::say!("KVM:         /dev/kvm opens; a boot will tell whether it runs the kernel")
        }
        Err(why) => crate::say!("KVM:         {why}: TCG (CPU emulation)"),
    }
    let point = |label: &str| {
        let workload = Workload {
            machine: Machine::Guest,
            engine: crate::plan::EngineKind::Null,
            size: 1 << 20,
            ..crate::plan::default_workload()
        };
        PlannedPoint::alone(label.to_string(), workload)
    };
    let ranks = super::distributed::Ranks::alone();
    let mut side = GuestSide::start(
        &session,
        std::slice::from_ref(&spec),
        &[point("null")],
        &ranks,
        &interrupt,
    )?
    .expect("a guest point was planned");
    let guests = &mut side.configurations[0].guests;
    let kernel = &guests.kernel;
    crate::say!(
        "kernel:      {} ({}), unpacked in {}",
        kernel.package,
        kernel.release,
        kernel
            .vmlinux
            .parent()
            .map_or_else(String::new, |d| d.display().to_string())
    );
    // The side booted its guest already; a boot that failed is tried once more here.
    if let Err(error) = guests.boot(&|| interrupt.is_set()) {
        if let Some(signal) = interrupt.signal() {
            return Ok(Ending::Interrupted(signal));
        }
        crate::say!("boot:        failed: {error}");
        return Ok(Ending::Failed);
    }
    let boot_s = guests.boot_seconds.last().copied().unwrap_or(0.0);
    let accelerator = guests.accelerator.unwrap_or(Accelerator::Tcg).name();
    match &guests.why_tcg {
        Some(why) => crate::say!("accelerator: {accelerator} ({why})"),
        None => crate::say!("accelerator: {accelerator}"),
    }
    let ready = guests.ready.clone().expect("a booted guest is ready");
    crate::say!(
        "guest:       {} over 9p (the host's root, read-only, under an overlay); agent on virtio-serial",
        ready.environment.kernel
    );
    match &guests.image {
        Some(image) => crate::say!(
            "disk:        {} as {} in the guest, {}, ready in {:.1} s, {}",
            spec.bus.name(),
            ready.device,
            ready.filesystem,
            ready.prepare_s,
            image.display()
        ),
        None => crate::say!(
            "mount:       {} ({}) in the guest, ready in {:.1} s",
            ready.device,
            ready.filesystem,
            ready.prepare_s
        ),
    }
    crate::say!("boot:        {boot_s:.1} s from QEMU's start to the agent ready");
    let mut round_trips = Vec::new();
    for _ in 0..5 {
        let sent = Instant::now();
        let Some(measured) = side.measure(&point("null"), &interrupt)? else {
            return Ok(Ending::Interrupted(interrupt.signal().unwrap_or(2)));
        };
        round_trips.push(sent.elapsed().as_secs_f64() * 1e3);
        if measured.repetitions.iter().any(|r| r.error.is_some()) {
            crate::say!("round trip:  a null point failed in the guest");
            return Ok(Ending::Failed);
        }
    }
    round_trips.sort_by(f64::total_cmp);
    crate::say!(
        "round trip:  a null point in {:.0} ms (median of 5; the guest runs it as the host would)",
        round_trips[2]
    );
    if accelerator == "tcg" {
        crate::say!(
            "note:        under TCG a guest's timings measure CPU emulation, not virtualization; its counts of requests and bytes hold"
        );
    }
    drop(side);
    Ok(Ending::Success)
}

/// The status line's phase for what a guest does: booting under an
/// accelerator, or measuring a point the agent was handed.
fn show_guest_phase(booting: Option<Accelerator>) {
    use crate::run::io::live::{Phase, set_phase};
    set_phase(match booting {
        Some(Accelerator::Kvm) => Phase::BootingKvm,
        Some(_) => Phase::BootingTcg,
        None => Phase::InGuest,
    });
}
