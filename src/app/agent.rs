//! `iolab guest agent`: iolab inside the guest it booted. It sets up what it measures in (a file system on the disk under test, or a kernel stack: `stack`), then measures the points the host sends over the virtio-serial port with the same session, record and checks as on the host, saying it is alive while it measures, and answers each with the point's record.

use super::error::{AppError, Ending};
use super::session::record_point;
use crate::guest::channel::{self, FromGuest, HEARTBEAT, PORT_NAME, Ready, ToGuest};
use crate::guest::stack::{DISK_MOUNT, Stack, StackError};
use crate::run::signals::Interrupt;
use crate::run::{RunError, Session};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

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
    // The first sign of life the host's KVM probe waits for.
    let _ = say(&FromGuest::Alive);
    let mut prepared: Option<(Session, Ready)> = None;
    let mut stacked: Option<Stack> = None;
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
                owner,
                host_processes,
                page_cache,
                make_filesystem,
                spec,
                address,
            } => {
                let started = Instant::now();
                // Alive before the stack is set up (it may take a while).
                let _ = say(&FromGuest::Alive);
                crate::owner::act_for_host(&owner, &run_id, host_processes);
                let made = Stack::set_up(&spec, address.as_deref(), make_filesystem)
                    .and_then(|stack| open(stack, &run_id, (page_cache, started), &interrupt));
                match made {
                    Ok((session, ready, stack)) => {
                        say(&FromGuest::Ready(Box::new(ready.clone())))?;
                        prepared = Some((session, ready));
                        stacked = Some(stack);
                    }
                    Err(StackError::Refused(why)) => say(&FromGuest::Refused(why))?,
                    Err(StackError::Failed(why)) => say(&FromGuest::Failed(why))?,
                }
            }
            ToGuest::Point { label, groups } => {
                let Some((session, ready)) = prepared.as_mut() else {
                    say(&FromGuest::Failed("the disk was not prepared".into()))?;
                    continue;
                };
                // On the guest's console (a file on the host): what it is doing now.
                let _ = std::fs::write("/dev/console", format!("iolab-agent: measuring {label}\n"));
                let answer = measure(session, ready, &label, &groups, &writer);
                say(&answer)?;
            }
            ToGuest::Stop => {
                // The files first, then the stack under them.
                drop(prepared.take());
                drop(stacked.take());
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
    groups: &[crate::plan::group::Group],
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
        // Every layer of the stack under the file system (a logical
        // volume and its disk; nothing for an NFS mount).
        let disks = crate::probe::environment::watch(Path::new(DISK_MOUNT)).disks;
        let before = crate::probe::diskstats::read();
        let outcome = session.run_point(label, groups);
        let after = crate::probe::diskstats::read();
        let answer = match outcome {
            Ok(outcome) => match record_point(&outcome, Some(&ready.environment)) {
                Ok(point) => FromGuest::Point {
                    point: Box::new(point),
                    disk: crate::gather::activity::device_bytes(&disks, &before, &after),
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

/// Opens a session in the stack's file system and says what the guest is
/// (`started`: when the stack's set-up began).
fn open(
    stack: Stack,
    run_id: &str,
    (page_cache, started): (bool, Instant),
    interrupt: &Interrupt,
) -> Result<(Session, Ready, Stack), StackError> {
    let mut session = Session::open(Path::new(DISK_MOUNT), run_id, interrupt.clone())
        .map_err(|e| StackError::Failed(e.to_string()))?;
    session.set_enough_rule(crate::stats::ci_within);
    if stack.counts_write_back {
        session.count_write_back();
    }
    // A killed guest's files on a shared export or a reused LUN, named to the host.
    let removed = session.remove_dead_runs();
    // The memory-copy probe takes seconds under TCG: measured, as on the
    // host, only when a point goes through the page cache, whose ceiling it is.
    let environment =
        crate::gather::environment::environment_of(Some(Path::new(DISK_MOUNT)), page_cache);
    let ready = Ready {
        environment: Box::new(environment),
        device: stack.device.clone(),
        filesystem: stack.filesystem.clone(),
        prepare_s: started.elapsed().as_secs_f64(),
        removed,
    };
    Ok((session, ready, stack))
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
