//! A guest serving as a host (`iolab guest up`): the control socket `iolab guest exec` and `guest down` reach it by — an abstract Unix socket named by the guest's address, so it belongs to this network namespace and leaves no file behind — open only to the user who started the guest and trusted by a caller only when an `iolab guest up` of the caller's own user holds it, and each command line relayed to the agent with its output and exit status, as ssh would run it.

use super::channel::{self, CommandEvent, FromGuest, ToGuest};
use super::{GuestError, Guests};
use serde::{Deserialize, Serialize};
use std::io::{BufReader, Write};
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::time::Duration;

/// What a caller asks of a guest that serves as a host.
#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    /// Run this command line in the guest with `sh -c`.
    Exec(String),
    /// Stop the guest (`iolab guest down`).
    Down,
}

/// What the caller is answered.
#[derive(Debug, Serialize, Deserialize)]
pub enum Reply {
    /// What the command did.
    Command(CommandEvent),
    /// The request was not carried out, and why.
    Refused(String),
    /// The guest is being stopped; the connection closes once it is.
    Stopping,
}

/// The control socket's name for the guest at `address` (no prefix length).
fn socket_name(address: &str) -> std::io::Result<SocketAddr> {
    use std::os::linux::net::SocketAddrExt;
    SocketAddr::from_abstract_name(format!("iolab-guest/{address}"))
}

/// The control socket of the guest at `address`, refused when a guest at
/// that address is up already in this network namespace, or when another
/// process holds its name (named by pid and uid).
pub fn listen(address: &str) -> Result<UnixListener, GuestError> {
    let name = socket_name(address).map_err(|e| GuestError::Setup(e.to_string()))?;
    let listener = UnixListener::bind_addr(&name).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AddrInUse {
            match UnixStream::connect_addr(&name).map(|held| trust(address, &held)) {
                Ok(Err(untrusted)) => untrusted,
                _ => GuestError::Usage(format!(
                    "a guest at {address} is up already in this network namespace (iolab guest down {address} stops it)"
                )),
            }
        } else {
            GuestError::Setup(format!("the guest's control socket: {e}"))
        }
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| GuestError::Setup(format!("the guest's control socket: {e}")))?;
    Ok(listener)
}

/// Whether the process listening on `stream`'s other end may answer for
/// the guest at `address`: it must run as this process's effective user
/// (root trusts only root: a listener of any other user could read the
/// command and answer with any output and exit status), and, where its
/// pid is seen from here, be an `iolab guest up`. Refused in one line
/// naming its pid and uid.
fn trust(address: &str, stream: &UnixStream) -> Result<(), GuestError> {
    let (pid, uid) = peer_credentials(stream).map_err(|e| {
        GuestError::Usage(format!(
            "the control socket of {address}: its listener cannot be identified ({e}); not trusted"
        ))
    })?;
    let own = rustix::process::geteuid();
    let untrusted = |what: &str| {
        GuestError::Usage(format!(
            "the control socket of {address} (@iolab-guest/{address}) is held by {what} (pid {pid}, uid {uid}), not by an iolab guest of uid {}: not trusted; stop that process",
            own.as_raw()
        ))
    };
    if uid != own.as_raw() {
        return Err(untrusted("another user's process"));
    }
    // pid 0: the listener's pid namespace is not visible from this one.
    if pid != 0 {
        let serves = crate::probe::process::command_line(pid).is_some_and(|words| {
            let named_iolab = words.first().is_some_and(|first| {
                std::path::Path::new(first)
                    .file_name()
                    .is_some_and(|name| name.to_string_lossy().starts_with("iolab"))
            });
            named_iolab
                && words
                    .windows(2)
                    .any(|pair| pair[0] == "guest" && pair[1] == "up")
        });
        if !serves {
            return Err(untrusted("a process that is not `iolab guest up`"));
        }
    }
    Ok(())
}

/// Serves callers one at a time until one asks the guest down (its
/// connection is returned, to be closed once the guest is stopped), `ending`
/// says so (`None`), or the guest dies.
pub fn serve(
    guests: &mut Guests,
    listener: &UnixListener,
    ending: &dyn Fn() -> bool,
) -> Result<Option<UnixStream>, GuestError> {
    let owner = rustix::process::geteuid();
    loop {
        if ending() {
            return Ok(None);
        }
        guests.check_alive()?;
        let mut caller = match listener.accept() {
            Ok((caller, _)) => caller,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
            Err(e) => {
                return Err(GuestError::Setup(format!(
                    "the guest's control socket: {e}"
                )));
            }
        };
        let _ = caller.set_nonblocking(false);
        let _ = caller.set_read_timeout(Some(Duration::from_secs(5)));
        let peer = rustix::net::sockopt::socket_peercred(&caller).map(|c| c.uid);
        if peer.is_err() || peer.is_ok_and(|uid| uid != owner && !uid.is_root()) {
            let _ = channel::send(
                &mut caller,
                &Reply::Refused(format!(
                    "only the user who started this guest (uid {}) may use it",
                    owner.as_raw()
                )),
            );
            continue;
        }
        let mut pending = Vec::new();
        let request = channel::receive::<Request>(
            &mut BufReader::new(
                caller
                    .try_clone()
                    .map_err(|e| GuestError::Setup(format!("the guest's control socket: {e}")))?,
            ),
            &mut pending,
        );
        match request {
            Ok(Some(Request::Exec(command))) => guests.relay(command, &mut caller, ending)?,
            Ok(Some(Request::Down)) => {
                let _ = channel::send(&mut caller, &Reply::Stopping);
                return Ok(Some(caller));
            }
            Ok(None) | Err(_) => {
                let _ = channel::send(&mut caller, &Reply::Refused("no request came".into()));
            }
        }
    }
}

/// Whether `caller` has closed its end (a read would return 0 bytes).
fn gone(caller: &UnixStream) -> bool {
    let mut byte = [0u8; 1];
    matches!(
        rustix::net::recv(
            caller,
            &mut byte,
            rustix::net::RecvFlags::PEEK | rustix::net::RecvFlags::DONTWAIT
        ),
        Ok((0, _))
    )
}

impl Guests {
    /// Fails when QEMU has ended.
    fn check_alive(&mut self) -> Result<(), GuestError> {
        let Some(guest) = self.running.as_mut() else {
            return Err(GuestError::Died("the guest is not running".into()));
        };
        match guest.child.try_wait() {
            Ok(Some(status)) => {
                let why = super::ended(status, &guest.log, &guest.console);
                self.running = None;
                Err(GuestError::Died(why))
            }
            _ => Ok(()),
        }
    }

    /// Runs `command` in the guest, handing its output to `output` as it
    /// comes (`true` for its standard error) and returning how it ended (exit
    /// status, signal). When `gone` says the one who asked went away the
    /// command is killed and its end still awaited; when `ending` says iolab
    /// ends, [`GuestError::Interrupted`] (the command goes with the guest).
    /// Any other error is the guest's, which is then gone.
    pub fn run_command(
        &mut self,
        command: String,
        output: &mut dyn FnMut(bool, String),
        gone: &dyn Fn() -> bool,
        ending: &dyn Fn() -> bool,
    ) -> Result<(Option<i32>, Option<i32>), GuestError> {
        let guest = self
            .running
            .as_mut()
            .ok_or_else(|| GuestError::Died("the guest is not running".into()))?;
        let mut answered = guest.send(&ToGuest::Exec { command });
        let mut killed = false;
        // A command may say nothing for as long as it likes (an MPI daemon
        // does until the job ends): only QEMU's end or iolab's ends the wait.
        let patience = Duration::from_secs(u64::from(u32::MAX));
        loop {
            let message = answered.and_then(|()| {
                let stop = || ending() || (!killed && gone());
                guest.receive_unless(patience, &stop, None)
            });
            answered = Ok(());
            match message {
                Ok(FromGuest::Command(CommandEvent::Output { stderr, text })) => {
                    output(stderr, text)
                }
                Ok(FromGuest::Command(CommandEvent::Exited { code, signal })) => {
                    return Ok((code, signal));
                }
                Ok(other) => {
                    self.running = None;
                    return Err(GuestError::Died(format!(
                        "the agent answered {other:?} to a command"
                    )));
                }
                Err(GuestError::Interrupted) if !ending() => {
                    killed = true;
                    answered = guest.send(&ToGuest::Kill);
                }
                Err(GuestError::Interrupted) => return Err(GuestError::Interrupted),
                Err(error) => {
                    self.running = None;
                    return Err(error);
                }
            }
        }
    }

    /// [`Guests::run_command`] for a caller of the control socket: its
    /// output and end relayed to `caller`, which going away kills it.
    fn relay(
        &mut self,
        command: String,
        caller: &mut UnixStream,
        ending: &dyn Fn() -> bool,
    ) -> Result<(), GuestError> {
        let watched = caller
            .try_clone()
            .map_err(|e| GuestError::Setup(format!("the guest's control socket: {e}")))?;
        let mut output = |stderr, text| {
            let _ = channel::send(
                caller,
                &Reply::Command(CommandEvent::Output { stderr, text }),
            );
        };
        let ran = self.run_command(command, &mut output, &|| gone(&watched), ending);
        let reply = match &ran {
            Ok((code, signal)) => Reply::Command(CommandEvent::Exited {
                code: *code,
                signal: *signal,
            }),
            Err(GuestError::Interrupted) => Reply::Refused("the guest is stopping".into()),
            Err(error) => Reply::Refused(error.to_string()),
        };
        let _ = channel::send(caller, &reply);
        match ran {
            Ok(_) | Err(GuestError::Interrupted) => Ok(()),
            Err(error) => Err(error),
        }
    }

    /// The guest's address on its tap's link, without the prefix length.
    pub fn address(&self) -> Option<&str> {
        self.address
            .as_deref()
            .map(|a| a.split_once('/').map_or(a, |(address, _)| address))
    }
}

/// The pid (0 where its pid namespace is not visible from here) and uid of
/// the process at `stream`'s other end, as the kernel recorded them when
/// it called `listen` (SO_PEERCRED).
fn peer_credentials(stream: &UnixStream) -> std::io::Result<(u32, u32)> {
    use std::os::fd::AsRawFd;
    let mut credentials = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut length = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: the kernel writes at most `length` bytes into `credentials`.
    let done = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut credentials).cast(),
            &mut length,
        )
    };
    if done != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((credentials.pid.max(0) as u32, credentials.uid))
}

/// Connects to the guest at `address`, checks that its listener may
/// answer for it ([`trust`]: nothing is sent otherwise) and asks `request`.
fn call(address: &str, request: &Request) -> Result<BufReader<UnixStream>, GuestError> {
    let name = socket_name(address).map_err(|e| GuestError::Setup(e.to_string()))?;
    let mut stream = UnixStream::connect_addr(&name).map_err(|_| {
        GuestError::Usage(format!(
            "no guest is up at {address} in this network namespace (iolab guest up starts one)"
        ))
    })?;
    trust(address, &stream)?;
    channel::send(&mut stream, request)
        .map_err(|e| GuestError::Died(format!("the guest at {address}: {e}")))?;
    Ok(BufReader::new(stream))
}

/// Runs `command` in the guest at `address` as ssh would: its output on
/// this process's, and its exit status (128 + N for signal N) returned.
pub fn exec(address: &str, command: String) -> Result<u8, GuestError> {
    let mut replies = call(address, &Request::Exec(command))?;
    let mut pending = Vec::new();
    loop {
        match channel::receive::<Reply>(&mut replies, &mut pending) {
            Ok(Some(Reply::Command(CommandEvent::Output { stderr, text }))) => {
                let written = if stderr {
                    std::io::stderr().lock().write_all(text.as_bytes())
                } else {
                    let mut out = std::io::stdout().lock();
                    out.write_all(text.as_bytes()).and_then(|()| out.flush())
                };
                // Nobody reads any more: the command is killed as we go.
                if written.is_err() {
                    return Ok(1);
                }
            }
            Ok(Some(Reply::Command(CommandEvent::Exited { code, signal }))) => {
                return Ok(match (code, signal) {
                    (Some(code), _) => code.clamp(0, 255) as u8,
                    (None, Some(signal)) => (128 + signal).clamp(0, 255) as u8,
                    (None, None) => 255,
                });
            }
            Ok(Some(Reply::Refused(why))) => {
                return Err(GuestError::Failed(format!("the guest at {address}: {why}")));
            }
            Ok(Some(Reply::Stopping)) | Ok(None) | Err(_) => {
                return Err(GuestError::Died(format!(
                    "the guest at {address} ended before the command did"
                )));
            }
        }
    }
}

/// Stops the guest at `address`, returning once it is stopped.
pub fn down(address: &str) -> Result<(), GuestError> {
    let mut replies = call(address, &Request::Down)?;
    let mut pending = Vec::new();
    match channel::receive::<Reply>(&mut replies, &mut pending) {
        Ok(Some(Reply::Stopping)) => {
            // The connection closes once the guest is stopped.
            let _ = replies.get_ref().set_read_timeout(None);
            let _ = channel::receive::<Reply>(&mut replies, &mut pending);
            Ok(())
        }
        Ok(Some(Reply::Refused(why))) => {
            Err(GuestError::Usage(format!("the guest at {address}: {why}")))
        }
        _ => Err(GuestError::Died(format!(
            "the guest at {address} did not answer"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_held_by_a_process_that_is_not_guest_up_is_refused_by_up_and_exec() {
        let address = "10.211.0.248";
        // This test process holds the name: the right user, but no guest.
        let squatter = UnixListener::bind_addr(&socket_name(address).unwrap()).unwrap();
        let pid = std::process::id();
        let up = listen(address).unwrap_err().to_string();
        assert!(
            up.contains("not `iolab guest up`") && up.contains(&format!("pid {pid}")),
            "{up}"
        );
        let exec = call(address, &Request::Down).err().unwrap().to_string();
        assert!(exec.contains("not trusted"), "{exec}");
        drop(squatter);
    }
}
