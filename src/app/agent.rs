//! `iolab guest agent`: iolab inside the guest it booted. It makes a file system on the disk under test, then measures the points the host sends over the virtio-serial port with the same session, record and checks as on the host, saying it is alive while it measures, and answers each with the point's record.

use super::{AppError, Ending, record_point};
use crate::guest::channel::{self, FromGuest, HEARTBEAT, PORT_NAME, Ready, ToGuest};
use crate::run::signals::Interrupt;
use crate::run::{RunError, Session};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Where the disk under test is mounted in the guest.
const DISK_MOUNT: &str = "/iolab-disk";
/// The file system on it (made on the host for a raw image, here for qcow2).
const DISK_FILESYSTEM: &str = crate::guest::FILESYSTEM;

/// Serves the host until it says stop (or the port closes).
pub fn agent() -> Result<Ending, AppError> {
    let port = find_port().map_err(|e| anyhow::anyhow!("iolab guest agent: {e}"))?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&port)
        .map_err(|e| anyhow::anyhow!("{}: {e}", port.display()))?;
    let mut reader = BufReader::new(
        file.try_clone()
            .map_err(|e| anyhow::anyhow!("{}: {e}", port.display()))?,
    );
    let writer = Arc::new(Mutex::new(file));
    let say = |message: &FromGuest| -> Result<(), AppError> {
        let mut port = writer.lock().unwrap_or_else(|p| p.into_inner());
        channel::send(&mut *port, message)
            .map_err(|e| anyhow::anyhow!("the agent's port: {e}").into())
    };
    let interrupt = Interrupt::install().map_err(anyhow::Error::from)?;
    let mut pending = Vec::new();
    let mut prepared: Option<(Session, Ready)> = None;
    loop {
        let message = match channel::receive::<ToGuest>(&mut reader, &mut pending) {
            Ok(Some(message)) => message,
            Ok(None) => return Ok(Ending::Success),
            // The host is not connected yet, or went away and came back.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                pending.clear();
                std::thread::sleep(std::time::Duration::from_millis(50));
                continue;
            }
            Err(e) => return Err(anyhow::anyhow!("the agent's port: {e}").into()),
        };
        match message {
            ToGuest::Prepare {
                run_id,
                page_cache,
                make_filesystem,
            } => match prepare(&run_id, (page_cache, make_filesystem), &interrupt) {
                Ok((session, ready)) => {
                    say(&FromGuest::Ready(Box::new(ready.clone())))?;
                    prepared = Some((session, ready));
                }
                Err(why) => say(&FromGuest::Failed(why))?,
            },
            ToGuest::Point { label, workload } => {
                let Some((session, ready)) = prepared.as_mut() else {
                    say(&FromGuest::Failed("the disk was not prepared".into()))?;
                    continue;
                };
                // On the guest's console (a file on the host): what it is doing now.
                let _ = std::fs::write("/dev/console", format!("iolab-agent: measuring {label}\n"));
                let answer = measure(session, ready, &label, &workload, &writer);
                say(&answer)?;
            }
            ToGuest::Stop => {
                if let Some((session, _)) = prepared.take() {
                    drop(session);
                    let _ = std::process::Command::new("umount")
                        .arg(DISK_MOUNT)
                        .status();
                }
                say(&FromGuest::Stopped)?;
                return Ok(Ending::Success);
            }
        }
    }
}

/// Measures one point while a thread says the agent is alive.
fn measure(
    session: &mut Session,
    ready: &Ready,
    label: &str,
    workload: &crate::plan::Workload,
    writer: &Arc<Mutex<File>>,
) -> FromGuest {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut slept = std::time::Duration::ZERO;
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(100));
                slept += std::time::Duration::from_millis(100);
                if slept >= HEARTBEAT {
                    slept = std::time::Duration::ZERO;
                    let mut port = writer.lock().unwrap_or_else(|p| p.into_inner());
                    let _ = channel::send(&mut *port, &FromGuest::Alive);
                }
            }
        });
        let disk = ready.device.trim_start_matches("/dev/").to_string();
        let before = crate::probe::diskstats::read();
        let outcome = session.run_point(label, workload);
        let after = crate::probe::diskstats::read();
        let answer = match outcome {
            Ok(outcome) => match record_point(&outcome, Some(&ready.environment)) {
                Ok(point) => FromGuest::Point {
                    point: Box::new(point),
                    disk: super::guest::device_bytes(&[disk], &before, &after),
                },
                Err(error) => FromGuest::Failed(error.to_string()),
            },
            Err(RunError::Usage(error)) => FromGuest::Refused(error.to_string()),
            Err(error) => FromGuest::Failed(error.to_string()),
        };
        done.store(true, Ordering::Relaxed);
        answer
    })
}

/// Makes the file system on the disk under test, mounts it and opens a session there.
fn prepare(
    run_id: &str,
    (page_cache, make_filesystem): (bool, bool),
    interrupt: &Interrupt,
) -> Result<(Session, Ready), String> {
    let started = Instant::now();
    let device = find_disk()?;
    if make_filesystem {
        // Inode tables left unwritten (their groups are marked so) and the
        // mount told never to zero them later (`noinit_itable`), so no kernel
        // thread writes to the disk during the points.
        run(
            std::process::Command::new(format!("mkfs.{DISK_FILESYSTEM}"))
                .args(crate::guest::MKFS_OPTIONS)
                .arg(&device),
        )
        .map_err(|e| format!("{e} (mkfs.ext4 comes from the host's e2fsprogs)"))?;
    }
    std::fs::create_dir_all(DISK_MOUNT).map_err(|e| format!("{DISK_MOUNT}: {e}"))?;
    run(std::process::Command::new("mount")
        .args(["-t", DISK_FILESYSTEM, "-o", "noinit_itable"])
        .arg(&device)
        .arg(DISK_MOUNT))?;
    let mut session = Session::open(Path::new(DISK_MOUNT), run_id, interrupt.clone())
        .map_err(|e| e.to_string())?;
    session.set_enough_rule(crate::stats::ci_within);
    // The memory-copy probe takes seconds under TCG: measured, as on the
    // host, only when a point goes through the page cache, whose ceiling it is.
    let environment =
        crate::gather::environment::environment_of(Some(Path::new(DISK_MOUNT)), page_cache);
    Ok((
        session,
        Ready {
            environment: Box::new(environment),
            device: device.display().to_string(),
            filesystem: DISK_FILESYSTEM.to_string(),
            prepare_s: started.elapsed().as_secs_f64(),
        },
    ))
}

fn run(command: &mut std::process::Command) -> Result<(), String> {
    let shown = format!("{command:?}");
    let output = command.output().map_err(|e| format!("{shown}: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{shown}: {} {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ))
    }
}

/// The agent's virtio-serial port: the `/dev` node whose port is named [`PORT_NAME`].
fn find_port() -> Result<PathBuf, String> {
    let ports = std::fs::read_dir("/sys/class/virtio-ports")
        .map_err(|e| format!("/sys/class/virtio-ports: {e} (not in an iolab guest?)"))?;
    for entry in ports.filter_map(Result::ok) {
        let name = std::fs::read_to_string(entry.path().join("name")).unwrap_or_default();
        if name.trim() == PORT_NAME {
            return Ok(Path::new("/dev").join(entry.file_name()));
        }
    }
    Err(format!("no virtio port named {PORT_NAME}"))
}

/// The one disk QEMU attached: the first block device with a driver that is
/// not a loop, RAM, zram or optical device.
fn find_disk() -> Result<PathBuf, String> {
    let mut names: Vec<String> = std::fs::read_dir("/sys/block")
        .map_err(|e| format!("/sys/block: {e}"))?
        .filter_map(Result::ok)
        .filter(|entry| entry.path().join("device").exists())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| {
            !["loop", "ram", "zram", "sr"]
                .iter()
                .any(|p| name.starts_with(p))
        })
        .collect();
    names.sort();
    names
        .first()
        .map(|name| Path::new("/dev").join(name))
        .ok_or_else(|| {
            "no disk under test in the guest (its bus's driver did not load?)".to_string()
        })
}
