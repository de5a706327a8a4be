//! `iolab guest agent`: iolab inside the guest it booted. It sets up what it measures in (a file system on the disk under test, or a kernel stack: `stack`), then measures the points the host sends over the virtio-serial port with the same session, record and checks as on the host, saying it is alive while it measures, and answers each with the point's record; for a guest serving as a host (`iolab guest up`), it also runs the command lines `guest exec` sends, one at a time, relaying their output and end.

use super::error::{AppError, Ending};
use super::session::record_point;
use crate::guest::channel::{self, CommandEvent, FromGuest, HEARTBEAT, PORT_NAME, Ready, ToGuest};
use crate::guest::stack::{DISK_MOUNT, Stack, StackError};
use crate::run::signals::Interrupt;
use crate::run::{RunError, Session};
use std::fs::File;
use std::io::{BufReader, Read};
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
    let commands = Commands::default();
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
                host,
            } => {
                let started = Instant::now();
                // Alive before the stack is set up (it may take a while).
                let _ = say(&FromGuest::Alive);
                crate::owner::act_for_host(&owner, &run_id, host_processes);
                let made = Stack::set_up(&spec, address.as_deref(), make_filesystem)
                    .and_then(|mut stack| match &host {
                        Some(host) => stack.serve_as_host(host).map(|()| stack),
                        None => Ok(stack),
                    })
                    .and_then(|stack| {
                        let serves = host.is_some();
                        open(stack, &run_id, (page_cache, serves, started), &interrupt)
                    });
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
            ToGuest::Exec { command } => commands.start(&command, &writer),
            ToGuest::Kill => commands.kill(),
            ToGuest::Stop => {
                // The command, the files, then the stack under them.
                commands.kill();
                commands.wait();
                drop(prepared.take());
                drop(stacked.take());
                say(&FromGuest::Stopped)?;
                return Ok(Ending::Success);
            }
        }
    }
}

/// The command a guest serving as a host runs for `iolab guest exec`: at
/// most one at a time, in a process group of its own so that all it started
/// can be ended together.
#[derive(Default)]
struct Commands {
    /// The running command's process (and process group) id.
    running: Arc<Mutex<Option<rustix::process::Pid>>>,
}

impl Commands {
    /// Starts `command` with `sh -c`; threads relay its output and its end.
    fn start(&self, command: &str, writer: &Arc<Mutex<File>>) {
        let say = |event: CommandEvent| {
            let mut port = writer.lock().unwrap_or_else(|p| p.into_inner());
            let _ = channel::send(&mut *port, &FromGuest::Command(event));
        };
        let mut running = self.running.lock().unwrap_or_else(|p| p.into_inner());
        if running.is_some() {
            say(CommandEvent::Output {
                stderr: true,
                text: "iolab guest agent: a command runs already; one at a time\n".into(),
            });
            say(CommandEvent::Exited {
                code: Some(1),
                signal: None,
            });
            return;
        }
        use std::os::unix::process::CommandExt;
        let spawned = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .current_dir("/")
            .process_group(0)
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(error) => {
                say(CommandEvent::Output {
                    stderr: true,
                    text: format!("iolab guest agent: sh: {error}\n"),
                });
                say(CommandEvent::Exited {
                    code: Some(127),
                    signal: None,
                });
                return;
            }
        };
        *running = rustix::process::Pid::from_raw(child.id() as i32);
        let relay = |stream: Option<Box<dyn std::io::Read + Send>>, stderr: bool| {
            let writer = Arc::clone(writer);
            std::thread::spawn(move || {
                let Some(mut stream) = stream else { return };
                let mut buffer = vec![0u8; 64 << 10];
                let mut carried = Vec::new();
                while let Ok(n) = stream.read(&mut buffer) {
                    if n == 0 {
                        break;
                    }
                    carried.extend_from_slice(&buffer[..n]);
                    let text = take_text(&mut carried);
                    let mut port = writer.lock().unwrap_or_else(|p| p.into_inner());
                    let _ = channel::send(
                        &mut *port,
                        &FromGuest::Command(CommandEvent::Output { stderr, text }),
                    );
                }
                if !carried.is_empty() {
                    let text = String::from_utf8_lossy(&carried).into_owned();
                    let mut port = writer.lock().unwrap_or_else(|p| p.into_inner());
                    let _ = channel::send(
                        &mut *port,
                        &FromGuest::Command(CommandEvent::Output { stderr, text }),
                    );
                }
            })
        };
        let out = relay(child.stdout.take().map(|s| Box::new(s) as _), false);
        let err = relay(child.stderr.take().map(|s| Box::new(s) as _), true);
        let writer = Arc::clone(writer);
        let running = Arc::clone(&self.running);
        std::thread::spawn(move || {
            let _ = out.join();
            let _ = err.join();
            use std::os::unix::process::ExitStatusExt;
            let status = child.wait();
            // Cleared before the end is said: the next command may start then.
            *running.lock().unwrap_or_else(|p| p.into_inner()) = None;
            let (code, signal) = status.map_or((Some(255), None), |s| (s.code(), s.signal()));
            let mut port = writer.lock().unwrap_or_else(|p| p.into_inner());
            let _ = channel::send(
                &mut *port,
                &FromGuest::Command(CommandEvent::Exited { code, signal }),
            );
        });
    }

    /// Ends the running command's process group: SIGTERM, then SIGKILL
    /// after [`channel::KILL_GRACE`] if it is still there.
    fn kill(&self) {
        let Some(group) = *self.running.lock().unwrap_or_else(|p| p.into_inner()) else {
            return;
        };
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::TERM);
        let running = Arc::clone(&self.running);
        std::thread::spawn(move || {
            std::thread::sleep(channel::KILL_GRACE);
            if *running.lock().unwrap_or_else(|p| p.into_inner()) == Some(group) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
        });
    }

    /// Waits (at most twice [`channel::KILL_GRACE`]) for the running command to end.
    fn wait(&self) {
        let deadline = Instant::now() + 2 * channel::KILL_GRACE;
        while self
            .running
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
            && Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// The text of `bytes` up to the last whole UTF-8 character (the rest is
/// kept for the next read; invalid bytes are replaced).
fn take_text(bytes: &mut Vec<u8>) -> String {
    let whole = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        // A character cut at the end waits; anything else is replaced.
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    };
    let text = String::from_utf8_lossy(&bytes[..whole]).into_owned();
    bytes.drain(..whole);
    text
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
        let disks = crate::probe::environment::watch(session.measured_path()).disks;
        let before = crate::probe::diskstats::read();
        let received_at = jiff::Timestamp::now().to_string();
        let outcome = session.run_point(label, groups);
        let after = crate::probe::diskstats::read();
        let answer = match outcome {
            Ok(outcome) => match record_point(&outcome, Some(&ready.environment)) {
                Ok(point) => FromGuest::Point {
                    point: Box::new(point),
                    disk: crate::gather::activity::device_bytes(&disks, &before, &after),
                    received_at: Some(received_at),
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
/// (`serves`: the guest serves as a host, whose commands have its raw disk;
/// `started`: when the stack's set-up began).
fn open(
    stack: Stack,
    run_id: &str,
    (page_cache, serves, started): (bool, bool, Instant),
    interrupt: &Interrupt,
) -> Result<(Session, Ready, Stack), StackError> {
    let measured = stack
        .raw_device
        .clone()
        .unwrap_or_else(|| PathBuf::from(DISK_MOUNT));
    let mut session = match &stack.raw_device {
        // `raw=on`: every point on the device itself, as `--file /dev/…`
        // on a host; the image under it is iolab's, so it may be written.
        // A guest serving as a host leaves it to the commands run in it.
        Some(device) if !serves => {
            let found = crate::run::target::device::identify(device)
                .ok()
                .flatten()
                .ok_or_else(|| {
                    StackError::Failed(format!("{}: not a block device", device.display()))
                })?;
            let mut session = Session::open_given(Path::new("/dev"), run_id, interrupt.clone())
                .map_err(|e| StackError::Failed(e.to_string()))?;
            session
                .use_device(&found, true)
                .map_err(|e| StackError::Failed(e.to_string()))?;
            session
        }
        Some(_) => Session::open_given(Path::new("/dev"), run_id, interrupt.clone())
            .map_err(|e| StackError::Failed(e.to_string()))?,
        None => Session::open(Path::new(DISK_MOUNT), run_id, interrupt.clone())
            .map_err(|e| StackError::Failed(e.to_string()))?,
    };
    session.set_enough_rule(crate::stats::ci_within);
    if stack.counts_write_back {
        session.count_write_back();
    }
    // A killed guest's files on a shared export or a reused LUN, named to the host.
    let removed = session.remove_dead_runs();
    // The memory-copy probe takes seconds under TCG: measured, as on the
    // host, only when a point goes through the page cache, whose ceiling it is.
    let environment = crate::gather::environment::environment_of(Some(&measured), page_cache);
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

#[cfg(test)]
mod tests {
    use super::take_text;

    #[test]
    fn a_character_cut_between_reads_waits_for_its_rest() {
        let euro = "€".as_bytes();
        let mut carried = b"ab".to_vec();
        carried.extend_from_slice(&euro[..2]);
        assert_eq!(take_text(&mut carried), "ab");
        assert_eq!(carried, &euro[..2]);
        carried.extend_from_slice(&euro[2..]);
        assert_eq!(take_text(&mut carried), "€");
        assert!(carried.is_empty());
        // An invalid byte is replaced, not kept forever.
        let mut bad = vec![b'x', 0xff, b'y'];
        assert_eq!(take_text(&mut bad), "x\u{fffd}y");
        assert!(bad.is_empty());
    }
}
