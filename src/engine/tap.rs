//! A loaded library's socket traffic seen as it moves: its `recv`, `send` (and `readv`, `writev`) redirected through its GOT ([`super::got`]) to wrappers that call the C library, then hand the bytes that moved to the parser the calling thread registered for that descriptor ([`Tap`]). libiscsi's PDUs and libnfs's RPCs are counted so, neither library having a hook of its own.
//!
//! Only the thread that registered a connection, and only that
//! connection's descriptor, is counted; every other call passes straight
//! through. A thread counts one connection at a time: a second start
//! replaces the first. Nothing is copied or allocated per call.

use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

/// A parser of one connection's bytes, both ways.
pub trait Feed: 'static {
    /// Takes `bytes` the library sent (`sent`) or received, in order.
    fn feed(&mut self, bytes: &[u8], sent: bool);
}

thread_local! {
    /// The connection this thread counts: its descriptor and its parser.
    static TAPPED: Cell<Option<(c_int, *mut dyn Feed)>> = const { Cell::new(None) };
}

/// While alive, this thread's calls on one descriptor go to the parser it owns.
pub struct Tap<W: Feed + Default> {
    wire: Box<W>,
}

impl<W: Feed + Default> Tap<W> {
    /// Counts this thread's traffic on `fd` until dropped.
    pub fn start(fd: c_int) -> Tap<W> {
        let mut wire = Box::<W>::default();
        let at: *mut dyn Feed = &mut *wire;
        TAPPED.with(|tapped| tapped.set(Some((fd, at))));
        Tap { wire }
    }

    /// What was counted so far.
    pub fn wire(&self) -> &W {
        &self.wire
    }

    /// The parser, to reset its counts (the timed region starts).
    pub fn wire_mut(&mut self) -> &mut W {
        &mut self.wire
    }
}

impl<W: Feed + Default> Drop for Tap<W> {
    fn drop(&mut self) {
        let at: *mut dyn Feed = &mut *self.wire;
        TAPPED.with(|tapped| {
            if tapped
                .get()
                .is_some_and(|(_, wire)| std::ptr::addr_eq(wire, at))
            {
                tapped.set(None);
            }
        });
    }
}

/// Puts the wrappers in `library`'s GOT once, recording in `installed`
/// whether they went in: `recv` and `send`, and with `vectors` `readv` and
/// `writev`. A library they cannot be put in is used uncounted.
pub fn install(library: &str, installed: &OnceLock<Result<(), String>>, vectors: bool) {
    installed.get_or_init(|| {
        let mut replacements = vec![
            (c"recv", tapped_recv as *const () as usize),
            (c"send", tapped_send as *const () as usize),
        ];
        if vectors {
            replacements.push((c"readv", tapped_readv as *const () as usize));
            replacements.push((c"writev", tapped_writev as *const () as usize));
        }
        // SAFETY: each wrapper has the C signature of the function it
        // replaces, and no context of the library exists yet.
        match unsafe { super::got::redirect(library, &replacements) } {
            Ok(0) => Err(format!(
                "{library} makes none of its socket calls through its GOT"
            )),
            Ok(_) => Ok(()),
            Err(why) => Err(why),
        }
    });
}

/// Whether `installed` says the wrappers are in `name`: why not, if not.
pub fn installed(installed: &OnceLock<Result<(), String>>, name: &str) -> Result<(), String> {
    match installed.get() {
        Some(result) => result.clone(),
        None => Err(format!("{name} is not loaded")),
    }
}

/// Hands the first `moved` bytes of `parts` to the tapped connection when `fd` is it.
///
/// # Safety
/// Each part must be readable for its length.
pub(super) unsafe fn account(
    fd: c_int,
    parts: impl IntoIterator<Item = (*const u8, usize)>,
    mut moved: usize,
    sent: bool,
) {
    let Some((tapped, wire)) = TAPPED.with(Cell::get) else {
        return;
    };
    if tapped != fd {
        return;
    }
    // SAFETY: `wire` outlives the registration that put it here, and
    // only this thread touches it.
    let wire = unsafe { &mut *wire };
    for (start, len) in parts {
        if moved == 0 {
            break;
        }
        let len = len.min(moved);
        // SAFETY: the caller's promise, and the C library moved these bytes.
        let bytes = unsafe { std::slice::from_raw_parts(start, len) };
        wire.feed(bytes, sent);
        moved -= len;
    }
}

/// The parts of an iovec array, for [`account`].
///
/// # Safety
/// `iov` must hold `count` entries.
unsafe fn parts<'a>(
    iov: *const libc::iovec,
    count: c_int,
) -> impl Iterator<Item = (*const u8, usize)> + 'a {
    let count = usize::try_from(count).unwrap_or(0);
    let entries = if iov.is_null() || count == 0 {
        &[][..]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(iov, count) }
    };
    entries
        .iter()
        .map(|entry| (entry.iov_base as *const u8, entry.iov_len))
}

unsafe extern "C" fn tapped_recv(fd: c_int, buf: *mut c_void, len: usize, flags: c_int) -> isize {
    // SAFETY: the library's arguments, passed on unchanged.
    let moved = unsafe { libc::recv(fd, buf, len, flags) };
    if moved > 0 && flags & libc::MSG_PEEK == 0 {
        // SAFETY: the C library wrote `moved` bytes at `buf`.
        unsafe { account(fd, [(buf as *const u8, len)], moved as usize, false) };
    }
    moved
}

unsafe extern "C" fn tapped_send(fd: c_int, buf: *const c_void, len: usize, flags: c_int) -> isize {
    // SAFETY: the library's arguments, passed on unchanged.
    let moved = unsafe { libc::send(fd, buf, len, flags) };
    if moved > 0 {
        // SAFETY: `buf` holds `len` bytes, of which the first `moved` were sent.
        unsafe { account(fd, [(buf as *const u8, len)], moved as usize, true) };
    }
    moved
}

unsafe extern "C" fn tapped_readv(fd: c_int, iov: *const libc::iovec, count: c_int) -> isize {
    // SAFETY: the library's arguments, passed on unchanged.
    let moved = unsafe { libc::readv(fd, iov, count) };
    if moved > 0 {
        // SAFETY: `iov` holds `count` entries, filled in order by readv.
        unsafe { account(fd, parts(iov, count), moved as usize, false) };
    }
    moved
}

unsafe extern "C" fn tapped_writev(fd: c_int, iov: *const libc::iovec, count: c_int) -> isize {
    // SAFETY: the library's arguments, passed on unchanged.
    let moved = unsafe { libc::writev(fd, iov, count) };
    if moved > 0 {
        // SAFETY: `iov` holds `count` entries, sent in order by writev.
        unsafe { account(fd, parts(iov, count), moved as usize, true) };
    }
    moved
}
