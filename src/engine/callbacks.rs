//! What the engines over a C library that calls back on completion (libnfs,
//! libiscsi) share: the requests queued until the next submission, the
//! list the callbacks push `(slot, result)` to, each slot's direction,
//! how many requests the library still holds, and the `poll` that waits
//! for its socket.
//!
//! The engine keeps its own per-slot tag (what its library's callback
//! needs) pointing at [`Completions::list`]. When the engine is dropped
//! with requests still in the library (the loop stopped on a dead
//! connection), the library calls them back later, when its file or
//! context is closed: [`Completions::abandon`] then leaves the list
//! allocated, and the engine its tags, rather than free what a callback
//! will write to.

use super::Direction;
use std::cell::UnsafeCell;
use std::ffi::c_int;
use std::io;

/// The list a library's callbacks push `(slot, result)` to: a byte count,
/// or a negated errno.
pub(super) type CompletionList = UnsafeCell<Vec<(u32, i32)>>;

/// The bookkeeping of `depth` slots.
pub(super) struct Completions {
    list: Box<CompletionList>,
    queued: Vec<(u32, u64, u32, Direction)>,
    depth: usize,
    directions: Vec<Direction>,
    /// Requests the library took and has not called back for, as of the last reap.
    outstanding: usize,
    /// Entries of the list that were never sent (no callback will come for them).
    unsent: usize,
}

impl Completions {
    /// The bookkeeping of `depth` slots, none in flight.
    pub(super) fn new(depth: u32) -> Completions {
        let depth = depth as usize;
        Completions {
            list: Box::new(UnsafeCell::new(Vec::with_capacity(depth))),
            queued: Vec::with_capacity(depth),
            depth,
            directions: vec![Direction::Read; depth],
            outstanding: 0,
            unsent: 0,
        }
    }

    /// The list the callbacks push to; it stays where it is for the life
    /// of `self` (and after, when abandoned).
    pub(super) fn list(&self) -> *const CompletionList {
        &*self.list
    }

    /// Queues slot `slot`'s request until the next submission; false when
    /// `depth` requests are already queued.
    pub(super) fn queue(&mut self, slot: u32, offset: u64, len: u32, direction: Direction) -> bool {
        if self.queued.len() == self.depth {
            return false;
        }
        self.queued.push((slot, offset, len, direction));
        true
    }

    /// The queued requests, each handed to `send(slot, offset, len,
    /// direction)`, which returns whether the library took it; one it did
    /// not take is completed at once with `-EIO`, so the loop reaps it like
    /// any other. Returns how many were handed over.
    pub(super) fn submit(
        &mut self,
        mut send: impl FnMut(u32, u64, u32, Direction) -> bool,
    ) -> usize {
        let taken = self.queued.len();
        for index in 0..taken {
            let (slot, offset, len, direction) = self.queued[index];
            self.directions[slot as usize] = direction;
            if send(slot, offset, len, direction) {
                self.outstanding += 1;
            } else {
                self.list.get_mut().push((slot, -libc::EIO));
                self.unsent += 1;
            }
        }
        self.queued.clear();
        taken
    }

    /// Completions waiting to be reaped.
    pub(super) fn ready(&mut self) -> usize {
        self.list.get_mut().len()
    }

    /// The direction of slot `slot`'s last request.
    pub(super) fn direction_of(&self, slot: u32) -> Direction {
        self.directions
            .get(slot as usize)
            .copied()
            .unwrap_or(Direction::Read)
    }

    /// Calls `each(slot, result, direction)` for every completion, in the
    /// order the callbacks came; the list keeps its capacity.
    pub(super) fn reap(&mut self, mut each: impl FnMut(u32, i32, Direction)) {
        let done = std::mem::take(self.list.get_mut());
        self.outstanding -= done.len() - self.unsent;
        self.unsent = 0;
        for &(slot, result) in &done {
            each(slot, result, self.directions[slot as usize]);
        }
        let mut done = done;
        done.clear();
        *self.list.get_mut() = done;
    }

    /// Whether requests are still with the library; if so the list is
    /// leaked, for the callbacks the library will make when its file or
    /// context is closed, and the caller must leak its tags the same way.
    pub(super) fn abandon(&mut self) -> bool {
        let called_back = self.list.get_mut().len() - self.unsent;
        let pending = self.outstanding > called_back;
        if pending {
            let empty = Box::new(UnsafeCell::new(Vec::new()));
            std::mem::forget(std::mem::replace(&mut self.list, empty));
        }
        pending
    }
}

/// A library that calls back on completion from inside its service call:
/// the queued loop's `wait` and `has_completions` for every such engine.
pub(super) trait Serviced {
    /// The completions the callbacks left, not yet reaped.
    fn completions(&mut self) -> &mut Completions;

    /// Waits at most `timeout_ms` for the socket, then lets the library
    /// read, write and call back; an error when the connection failed.
    fn service(&mut self, timeout_ms: c_int) -> io::Result<()>;

    /// Services the library until `count` completions are ready.
    fn serviced_until(&mut self, count: usize) -> io::Result<()> {
        while self.completions().ready() < count {
            self.service(100)?;
        }
        Ok(())
    }

    /// Whether a completion is ready, servicing once without waiting when
    /// none is; a failed connection shows in `serviced_until`, called next.
    fn any_ready(&mut self) -> bool {
        if self.completions().ready() == 0 {
            let _ = self.service(0);
        }
        self.completions().ready() > 0
    }
}

/// Waits at most `timeout_ms` for the library's socket `fd` to be ready for
/// `events` (POLLIN, POLLOUT as the library asks); returns what happened,
/// to hand to the library's service call (0 when nothing did, or a signal
/// cut the wait short).
pub(super) fn wait_for_socket(fd: c_int, events: c_int, timeout_ms: c_int) -> io::Result<c_int> {
    let mut poll = libc::pollfd {
        fd,
        events: events as libc::c_short,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    if unsafe { libc::poll(&mut poll, 1, timeout_ms) } < 0 {
        let error = io::Error::last_os_error();
        return match error.kind() {
            io::ErrorKind::Interrupted => Ok(0),
            _ => Err(error),
        };
    }
    Ok(c_int::from(poll.revents))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_is_reaped_once_and_unsent_ones_fail_at_once() {
        let mut completions = Completions::new(4);
        assert!(
            completions.queue(0, 0, 4096, Direction::Write)
                && completions.queue(1, 4096, 4096, Direction::Read)
        );
        assert!(
            completions.queue(2, 8192, 4096, Direction::Read)
                && completions.queue(3, 12288, 8192, Direction::Read)
        );
        assert!(
            !completions.queue(0, 0, 4096, Direction::Read),
            "four slots"
        );
        // The library takes all but slot 2, each with its own length.
        let mut lens = Vec::new();
        let taken = completions.submit(|slot, _, len, _| {
            lens.push(len);
            slot != 2
        });
        assert_eq!(lens, [4096, 4096, 4096, 8192]);
        assert_eq!((taken, completions.ready()), (4, 1));
        // Two callbacks come.
        let list = completions.list();
        // SAFETY: no other reference to the list is live.
        unsafe { (*(*list).get()).extend([(0, 4096), (1, 4096)]) };
        let mut reaped = Vec::new();
        completions.reap(|slot, result, write| reaped.push((slot, result, write)));
        assert_eq!(
            reaped,
            [
                (2, -libc::EIO, Direction::Read),
                (0, 4096, Direction::Write),
                (1, 4096, Direction::Read)
            ]
        );
        // Slot 3 is still with the library: the list must outlive the engine.
        assert!(completions.abandon());
        let mut quiet = Completions::new(1);
        assert!(!quiet.abandon(), "nothing in flight, nothing leaked");
    }
}
