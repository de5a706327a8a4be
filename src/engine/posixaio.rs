//! The posixaio engine: POSIX asynchronous I/O (`aio_read`, `aio_write`, `aio_suspend`, `aio_error`, `aio_return`) from the C library, behind [`QueuedIo`], as fio's `posixaio`.
//!
//! glibc carries each request out on threads of its own, so buffered
//! requests stay in flight too, unlike the kernel's AIO. The functions are
//! in libc itself from glibc 2.34 (librt before): nothing to install.
//! POSIX AIO has no trim; the engine takes none.

use super::slots::SlotRegion;
use super::{Direction, QueuedIo};
use rustix::fd::{AsRawFd, BorrowedFd};
use std::io;

/// POSIX AIO on one descriptor, `depth` requests in flight at most.
pub struct PosixAioIo {
    /// One control block per slot, never moved while its request is in
    /// flight (the vector is never resized).
    blocks: Vec<libc::aiocb>,
    /// Each slot's direction, for the submission.
    writes: Vec<bool>,
    /// Slots queued and not yet handed to the library.
    pending: Vec<u32>,
    /// Slots handed to the library and not yet seen complete.
    in_flight: Vec<u32>,
    /// Completions seen and not yet reaped: slot and result (bytes, or a
    /// negated errno).
    done: Vec<(u32, i32)>,
    /// The control blocks `aio_suspend` waits on (capacity `depth`).
    waiting: Vec<*const libc::aiocb>,
    slots: SlotRegion,
    raw_fd: i32,
}

impl PosixAioIo {
    /// POSIX AIO on `fd`, `depth` requests in flight at most, each slot's
    /// buffer `bs` bytes of the region at `buffers`.
    ///
    /// # Safety
    /// `buffers` must be valid for `depth * bs` bytes and outlive the value,
    /// and `fd` must stay open as long as it.
    pub unsafe fn new(fd: BorrowedFd<'_>, depth: u32, buffers: *mut u8, bs: usize) -> Self {
        let depth = depth.max(1) as usize;
        // SAFETY: the caller vouches for the region.
        let slots = unsafe { SlotRegion::new(buffers, depth, bs) };
        let raw_fd = fd.as_raw_fd();
        let blocks = (0..depth)
            .map(|_| {
                // SAFETY: an all-zero aiocb is valid (no signal: SIGEV_NONE is 1,
                // set below).
                let mut block: libc::aiocb = unsafe { std::mem::zeroed() };
                block.aio_fildes = raw_fd;
                block.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
                block
            })
            .collect();
        PosixAioIo {
            blocks,
            writes: vec![false; depth],
            pending: Vec::with_capacity(depth),
            in_flight: Vec::with_capacity(depth),
            done: Vec::with_capacity(depth),
            waiting: Vec::with_capacity(depth),
            slots,
            raw_fd,
        }
    }

    /// Moves the requests the library has ended from `in_flight` to `done`.
    fn collect(&mut self) {
        let mut index = 0;
        while index < self.in_flight.len() {
            let slot = self.in_flight[index];
            let block = &mut self.blocks[slot as usize];
            // SAFETY: the block was handed to aio_read/aio_write and is in place.
            let error = unsafe { libc::aio_error(block) };
            if error == libc::EINPROGRESS {
                index += 1;
                continue;
            }
            // SAFETY: the request has ended; aio_return reads its result once.
            let returned = unsafe { libc::aio_return(block) };
            let result = match error {
                0 => returned as i32,
                errno if errno > 0 => -errno,
                _ => -io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO),
            };
            self.done.push((slot, result));
            self.in_flight.swap_remove(index);
        }
    }

    /// Hands the pending requests to the library; one it refuses at once
    /// becomes a failed completion of its slot.
    fn submit_pending(&mut self) -> usize {
        let taken = self.pending.len();
        for slot in self.pending.drain(..) {
            let block = &mut self.blocks[slot as usize];
            // SAFETY: the block and its buffer stay in place until the
            // request is seen ended (collect, or the drop's wait).
            let queued = unsafe {
                if self.writes[slot as usize] {
                    libc::aio_write(block)
                } else {
                    libc::aio_read(block)
                }
            };
            if queued == 0 {
                self.in_flight.push(slot);
            } else {
                let errno = io::Error::last_os_error()
                    .raw_os_error()
                    .unwrap_or(libc::EIO);
                self.done.push((slot, -errno));
            }
        }
        taken
    }

    /// Waits until a request in flight ends (or a signal interrupts).
    fn suspend(&mut self) -> io::Result<()> {
        self.waiting.clear();
        for &slot in &self.in_flight {
            self.waiting.push(&self.blocks[slot as usize]);
        }
        // SAFETY: every pointer is to a block of a request in flight.
        let waited = unsafe {
            libc::aio_suspend(
                self.waiting.as_ptr(),
                self.waiting.len() as i32,
                std::ptr::null(),
            )
        };
        if waited != 0 {
            let error = io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::EINTR)
                && error.raw_os_error() != Some(libc::EAGAIN)
            {
                return Err(error);
            }
        }
        Ok(())
    }
}

impl QueuedIo for PosixAioIo {
    #[inline]
    fn queue(&mut self, slot: u32, offset: u64, len: u32, direction: Direction, _: u16) -> bool {
        debug_assert!(direction != Direction::Trim, "posixaio takes no trims");
        debug_assert!(len as usize <= self.slots.bs());
        let buffer = self.slots.pointer(slot as usize);
        let block = &mut self.blocks[slot as usize];
        block.aio_buf = buffer.cast();
        block.aio_nbytes = len as usize;
        block.aio_offset = offset as libc::off_t;
        self.writes[slot as usize] = direction == Direction::Write;
        self.pending.push(slot);
        true
    }

    #[inline]
    fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
        self.slots.slot(slot as usize)
    }

    #[inline]
    fn submit(&mut self) -> io::Result<usize> {
        Ok(self.submit_pending())
    }

    fn wait(&mut self, count: usize) -> io::Result<()> {
        self.submit_pending();
        self.collect();
        while self.done.len() < count {
            if self.in_flight.is_empty() {
                return Err(io::Error::other(
                    "waited for more completions than requests were queued",
                ));
            }
            self.suspend()?;
            self.collect();
        }
        Ok(())
    }

    #[inline]
    fn has_completions(&mut self) -> bool {
        if self.done.is_empty() {
            self.collect();
        }
        !self.done.is_empty()
    }

    #[inline]
    fn reap(&mut self, mut each: impl FnMut(u32, i32)) {
        self.collect();
        for (slot, result) in self.done.drain(..) {
            each(slot, result);
        }
    }

    fn sync_all(&self) -> io::Result<()> {
        // SAFETY: the descriptor outlives this value (the caller's promise).
        let fd = unsafe { BorrowedFd::borrow_raw(self.raw_fd) };
        Ok(rustix::fs::fsync(fd)?)
    }

    fn sync_data(&self) -> io::Result<()> {
        // SAFETY: as in `sync_all`.
        let fd = unsafe { BorrowedFd::borrow_raw(self.raw_fd) };
        Ok(rustix::fs::fdatasync(fd)?)
    }
}

impl Drop for PosixAioIo {
    /// The library's threads may still use a block or its buffer: every
    /// request in flight is waited out before the blocks go.
    fn drop(&mut self) {
        self.collect();
        while !self.in_flight.is_empty() {
            if self.suspend().is_err() {
                std::thread::yield_now();
            }
            self.collect();
        }
    }
}
