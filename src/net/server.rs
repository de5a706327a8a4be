//! What every remote target does the same way, whatever its protocol: the untimed cache treatment through the server (evict the server's own copy, read through, flush), residency seen on the server's copy, and the one lock on the session's connection.
//!
//! A client of iolab's own keeps no cache, so what a cold run could leave
//! cached is the server's: when the server runs on this machine and the URL
//! says where its storage is (`server_path=`), its copy's pages are evicted
//! and counted; otherwise residency is recorded as not seen.

use crate::plan::CacheMode;
use crate::run::site::cache::Residency;
use rustix::fd::{AsFd, OwnedFd};
use std::io;
use std::sync::atomic::AtomicUsize;
use std::sync::{Mutex, MutexGuard};

/// A remote target's server side, as its protocol reaches it.
pub(crate) trait ServerSide {
    /// The server's own copy of the target on this machine, once proven to
    /// be it; `None` when there is none to see.
    fn server_copy(&self) -> io::Result<Option<OwnedFd>>;

    /// Reads the `len` bytes from `base` through the server, in its largest
    /// requests, which puts them in whatever cache the server has.
    fn read_through(&self, base: u64, len: u64, interrupt: &AtomicUsize) -> io::Result<()>;

    /// Makes what was written durable on the server (COMMIT, SYNCHRONIZE
    /// CACHE); nothing when this session may not write.
    fn flush(&self) -> io::Result<()>;
}

/// Puts the `len` bytes from `base` in the cache state `mode` asks for.
pub(crate) fn treat_cache(
    side: &impl ServerSide,
    mode: CacheMode,
    base: u64,
    len: u64,
    interrupt: &AtomicUsize,
) -> io::Result<()> {
    match mode {
        // Nothing is cached on this side; a server on this machine has its
        // cached pages of the copy evicted, as a local file would.
        CacheMode::Cold | CacheMode::Drop => match side.server_copy()? {
            Some(fd) => crate::run::site::cache::evict(fd.as_fd()),
            None => Ok(()),
        },
        CacheMode::Keep => Ok(()),
        CacheMode::Warm => side.read_through(base, len, interrupt),
        CacheMode::Clean => side.flush(),
    }
}

/// How much of the `len` bytes from `base` the server's copy holds in this
/// host's page cache, or `None` when it cannot be seen.
pub(crate) fn residency(
    side: &impl ServerSide,
    base: u64,
    len: u64,
) -> io::Result<Option<Residency>> {
    match side.server_copy()? {
        Some(fd) => crate::run::site::cache::residency(fd.as_fd(), base, len).map(Some),
        None => Ok(None),
    }
}

/// The session's connection; a job that panicked holding it does not make
/// it unusable.
pub(crate) fn lock<T>(connection: &Mutex<T>) -> MutexGuard<'_, T> {
    connection
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
