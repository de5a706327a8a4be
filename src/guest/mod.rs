//! Guest virtual machines: a QEMU guest booted from Debian's kernel with the host's root under an overlay, its disk under test an image iolab made, and iolab itself inside as an agent that measures points sent over a virtio-serial port; booted again after a fault, and never outliving iolab.
//!
//! `kernel` fetches and unpacks the kernel and busybox, `initramfs` builds
//! the guest's first root, `qemu` its command line, `channel` the messages
//! both sides exchange. [`Guests`] holds what every boot shares and the
//! guest running now; the agent's side lives in `app::agent`.

pub mod channel;
pub mod exec;
pub mod initramfs;
pub mod kernel;
pub mod network;
pub mod qemu;
pub mod stack;
pub mod verdict;

use crate::plan::guest::{Accelerator, GuestFilesystem, GuestSpec, ImageFormat};
use crate::record::Point;
use channel::{FromGuest, Ready, ToGuest};
use std::io::BufReader;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

/// How long a guest may take from QEMU's start to its agent's `Ready`
/// (TCG boots in 6–15 s here; a file system on a large image takes longer).
const BOOT_DEADLINE: Duration = Duration::from_secs(300);
/// How long the agent may say nothing while measuring: several heartbeats.
const SILENCE_DEADLINE: Duration = Duration::from_secs(30);
/// How long a stopping guest may take to power off before it is killed.
const STOP_DEADLINE: Duration = Duration::from_secs(20);
/// How long KVM is given to show a sign of life (the agent's first word;
/// 1–3 s where KVM runs guests): then `accel=auto` boots with TCG, and
/// `accel=kvm` is refused (it waited BOOT_DEADLINE, 300 s, before).
const KVM_PROBE: Duration = Duration::from_secs(20);

/// Why a guest could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum GuestError {
    /// Bad input: a key, a value, or a kernel KVM cannot run.
    #[error("{0}")]
    Usage(String),
    /// A program or package the guest needs is missing (the line names it).
    #[error("{0}")]
    Missing(String),
    /// Preparing the guest failed.
    #[error("{0}")]
    Setup(String),
    /// QEMU ended, or the agent fell silent, before answering.
    #[error("{0}")]
    Died(String),
    /// The agent refused the point as bad input.
    #[error("{0}")]
    Refused(String),
    /// The agent could not measure the point; the guest is still up.
    #[error("{0}")]
    Failed(String),
    /// iolab was asked to end while the guest measured: the guest was stopped.
    #[error("interrupted")]
    Interrupted,
}

/// A directory of this run in iolab's cache (sockets, console logs, the
/// initramfs), tagged with its owner so a later run removes it when this
/// one was killed.
struct RunDir(PathBuf);

impl RunDir {
    fn create() -> Result<RunDir, GuestError> {
        let runs = crate::cache::dir().join("guest").join("runs");
        std::fs::create_dir_all(&runs)
            .map_err(|e| GuestError::Setup(format!("{}: {e}", runs.display())))?;
        remove_dead_runs(&runs);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = runs.join(format!("{}-{nanos:08x}", std::process::id()));
        std::fs::create_dir(&dir)
            .map_err(|e| GuestError::Setup(format!("{}: {e}", dir.display())))?;
        if let Ok(fd) = rustix::fs::open(
            &dir,
            rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::RDONLY,
            rustix::fs::Mode::empty(),
        ) {
            crate::owner::tag(&fd);
        }
        // A Unix socket's path has at most 107 bytes.
        if dir.join("agent-000.sock").as_os_str().len() > 107 {
            let _ = std::fs::remove_dir(&dir);
            return Err(GuestError::Setup(format!(
                "{}: too long a path for the agent's socket; set IOLAB_CACHE to a shorter directory",
                dir.display()
            )));
        }
        Ok(RunDir(dir))
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Removes the run directories whose owner is gone (a killed iolab's).
fn remove_dead_runs(runs: &Path) {
    let here = crate::owner::owner_tag();
    let Ok(entries) = std::fs::read_dir(runs) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Ok(fd) = rustix::fs::open(
            &path,
            rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::NOFOLLOW,
            rustix::fs::Mode::empty(),
        ) else {
            continue;
        };
        if crate::owner::owner_is_dead(std::os::fd::AsFd::as_fd(&fd), &here) {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// What every boot of one run shares, and the guest running now.
pub struct Guests {
    /// The guest's definition.
    pub spec: GuestSpec,
    pub kernel: kernel::Kernel,
    /// QEMU's version line.
    pub qemu: String,
    /// The accelerator in use once decided (`Kvm` or `Tcg`).
    pub accelerator: Option<Accelerator>,
    /// Why `accel=auto` fell back to TCG, when it did.
    pub why_tcg: Option<String>,
    /// The disk under test's image on the host (none when the guest measures a mount).
    pub image: Option<PathBuf>,
    /// What the agent reported at the last boot.
    pub ready: Option<Ready>,
    /// The seconds each boot took from QEMU's start to the agent's `Ready`.
    pub boot_seconds: Vec<f64>,
    run_id: String,
    page_cache: bool,
    /// The guest's address on the tap's link, when it has one.
    address: Option<String>,
    dir: RunDir,
    initramfs: PathBuf,
    running: Option<Guest>,
    /// Told what the guest does, for a status line: `Some` when a boot
    /// under that accelerator starts, `None` when a point is handed to the
    /// agent. Nothing by default.
    pub on_phase: fn(Option<Accelerator>),
    /// Set when the guest serves as a host (`iolab guest up`), before it boots.
    pub as_host: Option<channel::AsHost>,
}

/// One running guest.
struct Guest {
    child: Child,
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    pending: Vec<u8>,
    console: PathBuf,
    log: PathBuf,
}

/// Moves the start times of `point`'s repetitions (and its groups') from
/// the guest's clock onto the host's: by the difference between when the
/// host sent the point (`sent_at`) and when the guest, by its clock, got it
/// (`received_at`). A guest's clock, set from the host's at boot, fell up
/// to 0.54 s behind under TCG, and the executed order it recorded ran
/// backwards between host and guest points.
fn on_host_clock(point: &mut Point, sent_at: jiff::Timestamp, received_at: Option<&str>) {
    let Some(received) = received_at.and_then(|at| at.parse::<jiff::Timestamp>().ok()) else {
        return;
    };
    let shift = sent_at.duration_since(received);
    let moved = |at: &mut Option<String>| {
        if let Some(time) = at
            .as_deref()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        {
            if let Ok(time) = time.checked_add(shift) {
                *at = Some(time.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string());
            }
        }
    };
    for repetition in &mut point.repetitions {
        moved(&mut repetition.started_at);
    }
    for group in &mut point.groups {
        for repetition in &mut group.repetitions {
            moved(&mut repetition.started_at);
        }
    }
}

impl Guests {
    /// Everything needed to boot `spec` with `image` as its disk: QEMU
    /// present, the kernel and busybox fetched, the initramfs built to run
    /// `iolab`; `page_cache` when a point goes through the guest's page
    /// cache. Nothing is booted yet; `ending` ends a wait for another
    /// process preparing the kernel.
    pub fn prepare(
        spec: &GuestSpec,
        image: Option<&Path>,
        iolab: &Path,
        (run_id, page_cache): (&str, bool),
        ending: &dyn Fn() -> bool,
    ) -> Result<Guests, GuestError> {
        let qemu = qemu::version()?;
        if spec.accel == Accelerator::Kvm {
            qemu::kvm_present().map_err(|why| {
                GuestError::Usage(format!(
                    "--guest accel=kvm: {why}; accel=auto falls back to TCG"
                ))
            })?;
        }
        let address = match &spec.tap {
            Some(tap) => Some(network::guest_address(tap)?),
            None => None,
        };
        let kernel = kernel::obtain(&spec.kernel, ending)?;
        let dir = RunDir::create()?;
        let initramfs = dir.0.join("initramfs.cpio");
        std::fs::write(&initramfs, initramfs::build(&kernel, iolab)?)
            .map_err(|e| GuestError::Setup(format!("{}: {e}", initramfs.display())))?;
        Ok(Guests {
            spec: spec.clone(),
            kernel,
            qemu,
            accelerator: match spec.accel {
                Accelerator::Auto => None,
                chosen => Some(chosen),
            },
            why_tcg: None,
            image: image.map(Path::to_path_buf),
            ready: None,
            boot_seconds: Vec::new(),
            run_id: run_id.to_string(),
            page_cache,
            address,
            dir,
            initramfs,
            running: None,
            on_phase: |_| {},
            as_host: None,
        })
    }

    /// Whether the agent makes the image's file system (on a qcow2 image,
    /// or on the logical volume of `lvm=on`), not the host before the boot.
    fn agent_makes_filesystem(&self) -> bool {
        self.spec.format != ImageFormat::Raw || self.spec.lvm
    }

    /// Whether the host makes the image's file system before each boot:
    /// not where the agent does, nor on a raw disk (`raw=on`).
    fn host_makes_filesystem(&self) -> bool {
        !self.agent_makes_filesystem() && !self.spec.raw
    }

    /// A first boot with KVM, given [`KVM_PROBE`] to show a sign of life:
    /// whether KVM runs the kernel here is known only after a boot.
    fn probe_kvm(&mut self, ending: &dyn Fn() -> bool) -> Result<(), GuestError> {
        crate::note!(
            "iolab: booting the guest with KVM (up to {} s to tell whether it runs the kernel here)",
            KVM_PROBE.as_secs()
        );
        self.boot_with(Accelerator::Kvm, ending, Some(KVM_PROBE))
    }

    /// Boots a guest unless one runs; `accel=auto` tries KVM first and
    /// falls back to TCG (once per run) when KVM cannot run the kernel.
    /// `ending` is asked at every wait (twice a second at least): when it
    /// says iolab was asked to end, QEMU is killed and the boot given up
    /// ([`GuestError::Interrupted`]), the fallback not tried.
    pub fn boot(&mut self, ending: &dyn Fn() -> bool) -> Result<(), GuestError> {
        if self.running.is_some() {
            return Ok(());
        }
        if ending() {
            return Err(GuestError::Interrupted);
        }
        // A boot not announced below is announced here (with -v, and by
        // `guest check`): a TCG boot takes seconds to tens of seconds.
        let announce = |accelerator: Accelerator| {
            crate::note!(
                "iolab: booting the guest with {}",
                match accelerator {
                    Accelerator::Kvm => "KVM",
                    _ => "TCG, an emulated CPU",
                }
            );
        };
        let accelerator = match self.accelerator {
            Some(chosen) => {
                announce(chosen);
                chosen
            }
            None => match (qemu::kvm_present(), verdict::failed_before()) {
                (Err(why), _) => {
                    announce(Accelerator::Tcg);
                    self.why_tcg = Some(why);
                    Accelerator::Tcg
                }
                (Ok(()), Some(why)) => {
                    // Two lines at 80 columns: QEMU's reason can be a
                    // register dump; the whole of it is in the result.
                    crate::say!(
                        "iolab: booting the guest with TCG, an emulated CPU: KVM failed here last time\n  ({}; rm {} to retry)",
                        verdict::brief(&why),
                        verdict::shown_path()
                    );
                    self.why_tcg = Some(format!(
                        "KVM did not run a guest here when last tried: {why}"
                    ));
                    Accelerator::Tcg
                }
                (Ok(()), None) => match self.probe_kvm(ending) {
                    Ok(()) => {
                        verdict::forget();
                        self.accelerator = Some(Accelerator::Kvm);
                        return Ok(());
                    }
                    Err(GuestError::Died(why)) => {
                        verdict::remember_failure(&why);
                        crate::say!(
                            "iolab: booting the guest with TCG, an emulated CPU: KVM could not run it\n  ({}; remembered for the next runs here)",
                            verdict::brief(&why)
                        );
                        self.why_tcg = Some(format!("KVM could not run the guest: {why}"));
                        Accelerator::Tcg
                    }
                    Err(other) => return Err(other),
                },
            },
        };
        // KVM shows a sign of life in seconds or not at all: a KVM that
        // cannot run the kernel is told in KVM_PROBE, not BOOT_DEADLINE.
        let first_sign = (accelerator == Accelerator::Kvm).then_some(KVM_PROBE);
        match self.boot_with(accelerator, ending, first_sign) {
            Err(GuestError::Died(why))
                if accelerator == Accelerator::Kvm && self.spec.accel == Accelerator::Kvm =>
            {
                Err(GuestError::Usage(format!(
                    "--guest accel=kvm: KVM could not run the guest ({why}); accel=auto falls back to TCG"
                )))
            }
            result => {
                if result.is_ok() {
                    self.accelerator = Some(accelerator);
                }
                result
            }
        }
    }

    /// One boot with `accelerator`; with `first_sign`, the guest is taken
    /// for dead when its agent has said nothing by then (a probe).
    fn boot_with(
        &mut self,
        accelerator: Accelerator,
        ending: &dyn Fn() -> bool,
        first_sign: Option<Duration>,
    ) -> Result<(), GuestError> {
        let number = self.boot_seconds.len();
        let socket = self.dir.0.join(format!("agent-{number:03}.sock"));
        let console = self.dir.0.join(format!("console-{number:03}.log"));
        let log = self.dir.0.join(format!("qemu-{number:03}.log"));
        let launch = qemu::Launch {
            spec: &self.spec,
            vmlinux: &self.kernel.vmlinux,
            initramfs: &self.initramfs,
            image: self.image.as_deref(),
            socket: &socket,
            console: &console,
            accelerator,
        };
        let started = Instant::now();
        (self.on_phase)(Some(accelerator));
        if let Some(image) = self
            .image
            .as_deref()
            .filter(|_| self.host_makes_filesystem())
        {
            // A new file system each boot, made at the host's speed (under
            // TCG the guest took 5 s for what takes a fraction here).
            make_filesystem(image, self.spec.filesystem())?;
        }
        let mut child = qemu::spawn(&launch, &log)?;
        let stream = loop {
            if let Some(status) = child.try_wait().ok().flatten() {
                return Err(GuestError::Died(ended(status, &log, &console)));
            }
            if ending() {
                let _ = child.kill();
                let _ = child.wait();
                return Err(GuestError::Interrupted);
            }
            match UnixStream::connect(&socket) {
                Ok(stream) => break stream,
                Err(_) if started.elapsed() < Duration::from_secs(30) => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(error) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(GuestError::Died(format!(
                        "QEMU's agent socket {}: {error}",
                        socket.display()
                    )));
                }
            }
        };
        let writer = stream
            .try_clone()
            .map_err(|e| GuestError::Setup(format!("agent socket: {e}")))?;
        let mut guest = Guest {
            child,
            reader: BufReader::new(stream),
            writer,
            pending: Vec::new(),
            console,
            log,
        };
        let run_id = self.run_id.clone();
        guest.send(&ToGuest::Prepare {
            run_id,
            owner: crate::owner::owner_tag(),
            host_processes: crate::owner::host_processes(),
            page_cache: self.page_cache,
            make_filesystem: self.agent_makes_filesystem(),
            spec: Box::new(self.spec.clone()),
            address: self.address.clone(),
            host: self.as_host.clone(),
        })?;
        // Dropping `guest` on an interruption kills QEMU.
        match guest.receive_unless(BOOT_DEADLINE, ending, first_sign)? {
            FromGuest::Ready(ready) => {
                for removed in &ready.removed {
                    crate::say!(
                        "iolab: the guest removed {removed}, left by a run that is no longer running"
                    );
                }
                let seconds = started.elapsed().as_secs_f64();
                self.boot_seconds.push(seconds);
                remember_boot(accelerator, seconds);
                self.ready = Some(*ready);
                self.running = Some(guest);
                Ok(())
            }
            // Bad input found in the guest (a server that cannot be reached,
            // a LUN holding a file system): the guest is shut down cleanly
            // (what it set up taken down) and the run refused.
            FromGuest::Refused(why) => {
                guest.stop();
                Err(GuestError::Usage(why))
            }
            FromGuest::Failed(why) => {
                guest.stop();
                Err(GuestError::Setup(format!(
                    "the guest could not prepare its disk: {why}"
                )))
            }
            other => Err(GuestError::Died(format!(
                "the agent answered {other:?} before it was ready"
            ))),
        }
    }

    /// Measures one point in the guest (booting one first if none runs).
    /// A guest that dies or falls silent is killed; the next point boots another.
    /// `ending` says whether iolab was asked to end: the guest is then
    /// killed and the point given up (the agent cannot be signalled).
    pub fn measure(
        &mut self,
        label: &str,
        groups: &[crate::plan::group::Group],
        ending: &dyn Fn() -> bool,
    ) -> Result<(Point, Vec<crate::record::guest::DeviceBytes>), GuestError> {
        self.boot(ending)?;
        (self.on_phase)(None);
        let guest = self.running.as_mut().expect("booted above");
        let asked = ToGuest::Point {
            label: label.to_string(),
            groups: groups.to_vec(),
        };
        let sent_at = jiff::Timestamp::now();
        let answer = guest
            .send(&asked)
            .and_then(|()| guest.receive_unless(SILENCE_DEADLINE, ending, None));
        match answer {
            Ok(FromGuest::Point {
                mut point,
                disk,
                received_at,
            }) => {
                on_host_clock(&mut point, sent_at, received_at.as_deref());
                Ok((*point, disk))
            }
            Ok(FromGuest::Refused(why)) => Err(GuestError::Refused(why)),
            Ok(FromGuest::Failed(why)) => Err(GuestError::Failed(why)),
            Ok(other) => {
                self.running = None;
                Err(GuestError::Died(format!(
                    "the agent answered {other:?} to a point"
                )))
            }
            Err(error) => {
                // Dropping the guest kills QEMU.
                self.running = None;
                Err(error)
            }
        }
    }

    /// Stops the running guest, if any: files removed, disk unmounted,
    /// powered off; killed when it does not end in time.
    pub fn stop(&mut self) {
        if let Some(mut guest) = self.running.take() {
            guest.stop();
        }
    }
}

impl Drop for Guests {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Guest {
    /// Asks the agent to take its stack down and power off, and waits for
    /// QEMU to end (it is killed on drop when it does not in time).
    fn stop(&mut self) {
        if self.send(&ToGuest::Stop).is_ok() {
            let _ = self.receive(STOP_DEADLINE);
        }
        let deadline = Instant::now() + STOP_DEADLINE;
        while Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn send(&mut self, message: &ToGuest) -> Result<(), GuestError> {
        channel::send(&mut self.writer, message)
            .map_err(|e| self.died(&format!("writing to the agent: {e}")))
    }

    /// The next message other than a heartbeat; the guest is dead when the
    /// stream ends, QEMU exits, or nothing comes for `silence`.
    fn receive(&mut self, silence: Duration) -> Result<FromGuest, GuestError> {
        self.receive_unless(silence, &|| false, None)
    }

    /// As [`Guest::receive`], giving up when `ending` says so, and when
    /// nothing at all (not even a heartbeat) came within `first_sign`.
    fn receive_unless(
        &mut self,
        silence: Duration,
        ending: &dyn Fn() -> bool,
        first_sign: Option<Duration>,
    ) -> Result<FromGuest, GuestError> {
        let _ = self
            .reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(500)));
        let started = Instant::now();
        let mut last = started;
        let mut heard = false;
        loop {
            match channel::receive::<FromGuest>(&mut self.reader, &mut self.pending) {
                Ok(Some(FromGuest::Alive)) => {
                    last = Instant::now();
                    heard = true;
                }
                Ok(Some(message)) => return Ok(message),
                Ok(None) => return Err(self.died("the agent's channel closed")),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if ending() {
                        return Err(GuestError::Interrupted);
                    }
                    if let Some(status) = self.child.try_wait().ok().flatten() {
                        return Err(GuestError::Died(ended(status, &self.log, &self.console)));
                    }
                    if let Some(limit) = first_sign.filter(|l| !heard && started.elapsed() > *l) {
                        return Err(self.died(&format!(
                            "no sign of life from the guest in {} s",
                            limit.as_secs()
                        )));
                    }
                    if last.elapsed() > silence {
                        return Err(self.died(&format!(
                            "the agent said nothing for {} s",
                            silence.as_secs()
                        )));
                    }
                }
                Err(e) => return Err(self.died(&format!("reading from the agent: {e}"))),
            }
        }
    }

    /// Kills QEMU and says why the guest is gone.
    fn died(&mut self, what: &str) -> GuestError {
        // A moment for QEMU to exit by itself (a panic, a power-off) so its status tells.
        for _ in 0..20 {
            if let Some(status) = self.child.try_wait().ok().flatten() {
                return GuestError::Died(format!(
                    "{what}; {}",
                    ended(status, &self.log, &self.console)
                ));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        GuestError::Died(format!("{what}; QEMU was killed"))
    }
}

impl Drop for Guest {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `mkfs.ext4`'s (and `mkfs.ext3`'s) options for the guest's file system:
/// its inode tables left unwritten (the guest mounts it with
/// `noinit_itable`, so no kernel thread writes them during the points).
pub const MKFS_OPTIONS: [&str; 4] = [
    "-F",
    "-q",
    "-E",
    "lazy_itable_init=1,lazy_journal_init=1,nodiscard",
];

/// Makes the guest's file system on the raw image `image` (iolab's own file).
fn make_filesystem(image: &Path, filesystem: GuestFilesystem) -> Result<(), GuestError> {
    let mkfs = format!("mkfs.{}", filesystem.name());
    let output = std::process::Command::new(&mkfs)
        .args(MKFS_OPTIONS)
        .arg(image)
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                GuestError::Missing(format!(
                    "{mkfs} is not installed (Debian package e2fsprogs)"
                ))
            } else {
                GuestError::Setup(format!("{mkfs}: {e}"))
            }
        })?;
    if !output.status.success() {
        return Err(GuestError::Setup(format!(
            "{mkfs} {}: {} {}",
            image.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(())
}

/// How QEMU ended, with the last line its log or the guest's console has.
fn ended(status: std::process::ExitStatus, log: &Path, console: &Path) -> String {
    use std::os::unix::process::ExitStatusExt;
    let how = match (status.code(), status.signal()) {
        (Some(1), _) => "QEMU exited with status 1 (a guest panic, or QEMU refused)".to_string(),
        (Some(code), _) => format!("QEMU exited with status {code}"),
        (None, Some(signal)) => format!("QEMU was killed by signal {signal}"),
        _ => "QEMU ended".to_string(),
    };
    let last = |path: &Path| {
        std::fs::read_to_string(path).ok().and_then(|text| {
            text.lines()
                .rev()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .map(|l| crate::console::neutralize(l).into_owned())
        })
    };
    // What the guest's init said of itself, if anything, tells most.
    let init = std::fs::read_to_string(console).ok().and_then(|text| {
        text.lines()
            .rev()
            .find(|l| l.contains("iolab-init:"))
            .map(|l| crate::console::neutralize(l.trim()).into_owned())
    });
    match init.or_else(|| last(log)).or_else(|| last(console)) {
        Some(line) => format!("{how}: {line}"),
        None => how,
    }
}

/// Where the last boot's time under `accelerator` is kept, for plans to
/// estimate with (`--dry-run`).
fn last_boot_file(accelerator: Accelerator) -> std::path::PathBuf {
    let name = match accelerator {
        Accelerator::Kvm => "kvm",
        _ => "tcg",
    };
    crate::cache::dir()
        .join("guest")
        .join(format!("last-boot-{name}"))
}

/// The boots kept per accelerator for the estimate: one slow boot (a
/// busy host) does not set the next plan's time alone.
const BOOTS_KEPT: usize = 5;

/// Keeps how long this boot under `accelerator` took, with the few before
/// it, best effort: an estimate for the next plan, never needed to run one.
fn remember_boot(accelerator: Accelerator, seconds: f64) {
    let mut boots = recent_boots(accelerator);
    boots.push(seconds);
    let start = boots.len().saturating_sub(BOOTS_KEPT);
    let text: String = boots[start..].iter().map(|s| format!("{s:.1}\n")).collect();
    let _ = std::fs::write(last_boot_file(accelerator), text);
}

/// The boots kept under `accelerator`, oldest first.
fn recent_boots(accelerator: Accelerator) -> Vec<f64> {
    std::fs::read_to_string(last_boot_file(accelerator))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.trim().parse().ok())
        .filter(|s: &f64| s.is_finite() && *s > 0.0)
        .collect()
}

/// How long a boot here under `accelerator` takes, seconds: the median of
/// the last few measured, when any was.
pub fn last_boot_seconds(accelerator: Accelerator) -> Option<f64> {
    let mut boots = recent_boots(accelerator);
    if boots.is_empty() {
        return None;
    }
    boots.sort_by(f64::total_cmp);
    Some(boots[boots.len() / 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guest_points_start_times_move_onto_the_hosts_clock() {
        let mut point: Point = serde_json::from_value(serde_json::json!({
            "label": "p", "workload": crate::plan::example_workload(),
            "target": {"dir": "/d", "filesystem": "ext4", "files": [], "direct_in_memory": false,
                       "file_given": false},
            "repetitions": [{
                "index": 0, "warmup": false, "status": "ok", "bytes": 1, "ops": 1,
                "series": [], "jobs": [], "started_at": "2026-12-06T10:00:01.000Z"
            }],
            "checks": []
        }))
        .unwrap();
        // The guest got the point at 10:00:00.000 by its clock, 0.540 s
        // behind the host's, which sent it at 10:00:00.540.
        let sent: jiff::Timestamp = "2026-12-06T10:00:00.540Z".parse().unwrap();
        on_host_clock(&mut point, sent, Some("2026-12-06T10:00:00.000Z"));
        assert_eq!(
            point.repetitions[0].started_at.as_deref(),
            Some("2026-12-06T10:00:01.540Z")
        );
        // An older agent says nothing: the times stay.
        on_host_clock(&mut point, sent, None);
        assert_eq!(
            point.repetitions[0].started_at.as_deref(),
            Some("2026-12-06T10:00:01.540Z")
        );
    }
}
