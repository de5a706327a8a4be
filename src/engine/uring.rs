//! The io_uring engine: a ring with a registered file and registered buffers,
//! behind [`QueuedIo`], driven by the queue-depth loop in `run`.
//!
//! Trims are asynchronous too: a hole punched in a file is
//! `IORING_OP_FALLOCATE` (run by the kernel's io-wq workers), a discard of a
//! block device is `BLOCK_URING_CMD_DISCARD` (Linux 6.12). fio's io_uring
//! engine does the same, falling back to a synchronous trim on older kernels;
//! here an older kernel's refusal fails the run, naming the kernel it needs.

use super::slots::SlotRegion;
use super::trim::{PUNCH_HOLE, is_block_device};
use super::{Direction, QueuedIo};
use io_uring::{IoUring, opcode, squeue, types};
use rustix::fd::{AsRawFd, BorrowedFd};
use std::io;

/// `IORING_ENTER_GETEVENTS` from <linux/io_uring.h> (kernel ABI; the crate keeps its copy private).
const IORING_ENTER_GETEVENTS: u32 = 1 << 0;
/// `BLOCK_URING_CMD_DISCARD`, `_IO(0x12, 0)` in <linux/fs.h> (Linux 6.12):
/// discards `addr3` bytes at `addr` of a block device.
const BLOCK_URING_CMD_DISCARD: u32 = 0x1200;

/// An io_uring instance for one file, with one buffer slot per request in flight.
///
/// The buffer memory is passed in as a raw region because the kernel keeps
/// using it between submission and completion: the caller must keep it alive
/// and must reap every submitted request ([`QueuedIo::wait`] + [`QueuedIo::reap`])
/// before freeing it or dropping this value.
pub struct UringIo {
    ring: IoUring,
    slots: SlotRegion,
    fixed_buffers: bool,
    raw_fd: i32,
    /// Whether the file is a block device, trimmed by a discard command.
    block_device: bool,
    /// Whether a kernel thread polls the submission queue (SQPOLL): a
    /// submission then enters the kernel only to wake it.
    sq_poll: bool,
}

impl UringIo {
    /// Creates a ring for `depth` requests over `depth` consecutive buffers of
    /// `bs` bytes starting at `buffers`; with `sq_poll`, a kernel thread
    /// polls its submission queue (fio's `sqthread_poll`).
    ///
    /// # Safety
    /// `buffers` must be valid for `depth * bs` bytes and outlive every
    /// request submitted through the returned value.
    pub unsafe fn new(
        fd: BorrowedFd<'_>,
        depth: u32,
        buffers: *mut u8,
        bs: usize,
        sq_poll: bool,
    ) -> io::Result<Self> {
        let entries = depth.next_power_of_two();
        let ring = if sq_poll {
            build_polled_ring(entries)?
        } else {
            build_ring(entries)?
        };
        ring.submitter().register_files(&[fd.as_raw_fd()])?;
        // Saves a file-table lookup in every io_uring_enter; optional (Linux 6.3+).
        let _ = ring.submitter().register_ring_fd();
        // SAFETY: the caller vouches for the region.
        let slots = unsafe { SlotRegion::new(buffers, depth as usize, bs) };
        let iovecs: Vec<libc::iovec> = (0..slots.depth())
            .map(|slot| libc::iovec {
                iov_base: slots.pointer(slot).cast(),
                iov_len: bs,
            })
            .collect();
        // SAFETY: the caller keeps the buffers alive while the ring exists.
        // Registration can fail under a small RLIMIT_MEMLOCK; plain reads and
        // writes then do the same work with one more page pin per request.
        let fixed_buffers = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        Ok(UringIo {
            ring,
            slots,
            fixed_buffers,
            raw_fd: fd.as_raw_fd(),
            block_device: is_block_device(fd)?,
            sq_poll,
        })
    }

    #[inline]
    fn entry(
        &self,
        slot: u32,
        offset: u64,
        len: u32,
        direction: Direction,
        ioprio: u16,
    ) -> squeue::Entry {
        let buffer = self.slots.pointer(slot as usize);
        debug_assert!(len as usize <= self.slots.bs());
        let file = types::Fixed(0);
        let entry = match (direction, self.fixed_buffers) {
            (Direction::Read, true) => opcode::ReadFixed::new(file, buffer, len, slot as u16)
                .offset(offset)
                .ioprio(ioprio)
                .build(),
            (Direction::Write, true) => opcode::WriteFixed::new(file, buffer, len, slot as u16)
                .offset(offset)
                .ioprio(ioprio)
                .build(),
            (Direction::Read, false) => opcode::Read::new(file, buffer, len)
                .offset(offset)
                .ioprio(ioprio)
                .build(),
            (Direction::Write, false) => opcode::Write::new(file, buffer, len)
                .offset(offset)
                .ioprio(ioprio)
                .build(),
            (Direction::Trim, _) => self.trim_entry(offset, len),
        };
        entry.user_data(slot as u64)
    }

    /// A trim of `len` bytes at `offset`: a punched hole in a file, a
    /// discard of a block device (whose length goes in `addr3`, the first
    /// eight bytes of the command area).
    #[cold]
    fn trim_entry(&self, offset: u64, len: u32) -> squeue::Entry {
        let file = types::Fixed(0);
        if self.block_device {
            let mut length = [0u8; 16];
            length[..8].copy_from_slice(&u64::from(len).to_ne_bytes());
            opcode::UringCmd16::new(file, BLOCK_URING_CMD_DISCARD)
                .addr(Some(offset))
                .cmd(length)
                .build()
        } else {
            opcode::Fallocate::new(file, u64::from(len))
                .offset(offset)
                .mode(PUNCH_HOLE.bits() as i32)
                .build()
        }
    }
}

impl QueuedIo for UringIo {
    /// Queues one read or write of slot `slot`'s buffer at `offset` (or a
    /// trim of the range), tagged with the slot number; returns false when
    /// the submission queue is full.
    #[inline]
    fn queue(
        &mut self,
        slot: u32,
        offset: u64,
        len: u32,
        direction: Direction,
        ioprio: u16,
    ) -> bool {
        let entry = self.entry(slot, offset, len, direction, ioprio);
        // SAFETY: the entry points into the caller's buffer region, kept alive
        // until the request completes (see the type's contract).
        unsafe { self.ring.submission().push(&entry).is_ok() }
    }

    /// Slot `slot`'s buffer, to fill before queueing a write; the slot must
    /// not be in flight (the kernel may still read a queued one).
    #[inline]
    fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
        self.slots.slot(slot as usize)
    }

    /// Submits every queued request without waiting; returns how many were taken.
    ///
    /// The call carries IORING_ENTER_GETEVENTS (with no minimum), so deferred
    /// completion work runs in the same system call and completions that are
    /// already due can be reaped without another one.
    ///
    /// With SQPOLL the kernel's thread takes the queue itself, and the call
    /// is made only when that thread sleeps, to wake it (liburing's and
    /// fio's way).
    #[inline]
    fn submit(&mut self) -> io::Result<usize> {
        if self.sq_poll {
            return self.ring.submit();
        }
        let queued = self.ring.submission().len() as u32;
        // SAFETY: plain io_uring_enter with no argument struct.
        unsafe {
            self.ring
                .submitter()
                .enter::<libc::sigset_t>(queued, 0, IORING_ENTER_GETEVENTS, None)
        }
    }

    /// Waits until at least `count` completions are ready.
    #[inline]
    fn wait(&mut self, count: usize) -> io::Result<()> {
        self.ring.submit_and_wait(count).map(|_| ())
    }

    /// Waits in `io_uring_enter` with a timeout (IORING_ENTER_EXT_ARG,
    /// Linux 5.11): the kernel posts some completions only when the task
    /// enters it, so polling the completion queue from user space would see
    /// them late. ETIME is the timeout, not a failure.
    fn wait_for(&mut self, timeout: std::time::Duration) -> io::Result<()> {
        if timeout.is_zero() || self.has_completions() {
            return Ok(());
        }
        let timeout = types::Timespec::from(timeout);
        let args = types::SubmitArgs::new().timespec(&timeout);
        match self.ring.submitter().submit_with_args(1, &args) {
            Ok(_) => Ok(()),
            Err(error) if matches!(error.raw_os_error(), Some(libc::ETIME | libc::EINTR)) => Ok(()),
            Err(error) => Err(error),
        }
    }

    /// Whether completions are waiting to be reaped.
    #[inline]
    fn has_completions(&mut self) -> bool {
        !self.ring.completion().is_empty()
    }

    /// Calls `each(slot, result)` for every ready completion; `result` is the
    /// byte count or a negated errno.
    #[inline]
    fn reap(&mut self, mut each: impl FnMut(u32, i32)) {
        for completion in self.ring.completion() {
            each(completion.user_data() as u32, completion.result());
        }
    }

    /// The errno, and for a block device that refuses a command, the
    /// kernel a discard through the ring needs.
    fn failure(&mut self, _slot: u32, result: i32) -> io::Error {
        let error = io::Error::from_raw_os_error(-result);
        if self.block_device && -result == libc::EOPNOTSUPP {
            return io::Error::new(
                error.kind(),
                format!(
                    "{error} (io_uring discards a block device from Linux 6.12, \
                     BLOCK_URING_CMD_DISCARD; on older kernels trim with --engine libaio or psync)"
                ),
            );
        }
        error
    }

    /// `IORING_OP_FSYNC` with `IORING_FSYNC_DATASYNC`.
    fn queues_flushes(&self) -> bool {
        true
    }

    fn queue_flush(&mut self, slot: u32) -> bool {
        let entry = opcode::Fsync::new(types::Fixed(0))
            .flags(types::FsyncFlags::DATASYNC)
            .build()
            .user_data(u64::from(slot));
        // SAFETY: the entry points at no memory.
        unsafe { self.ring.submission().push(&entry).is_ok() }
    }

    /// fsync(2) of the file, outside the ring.
    fn sync_all(&self) -> io::Result<()> {
        // SAFETY: the descriptor outlives this value (it was borrowed for its lifetime).
        let fd = unsafe { BorrowedFd::borrow_raw(self.raw_fd) };
        Ok(rustix::fs::fsync(fd)?)
    }

    fn sync_data(&self) -> io::Result<()> {
        // SAFETY: as in `sync_all`.
        let fd = unsafe { BorrowedFd::borrow_raw(self.raw_fd) };
        Ok(rustix::fs::fdatasync(fd)?)
    }
}

/// Creates a ring whose submission queue a kernel thread polls (SQPOLL),
/// idle for the kernel's default second before it sleeps, as fio's
/// `sqthread_poll` makes it. SQPOLL takes none of [`build_ring`]'s task-run
/// flags (their work runs on the polling thread).
fn build_polled_ring(entries: u32) -> io::Result<IoUring> {
    IoUring::builder()
        .setup_sqpoll(0)
        .build(entries)
        .map_err(|error| {
            io::Error::new(
                error.kind(),
                format!("io_uring with a polling kernel thread (SQPOLL): {error}"),
            )
        })
}

/// Creates a ring for a single thread that submits and reaps itself, as fio
/// does: COOP_TASKRUN (no inter-processor interrupt per completion), and
/// SINGLE_ISSUER with DEFER_TASKRUN (completion work runs when the thread asks
/// for events). Kernels older than 6.1 (5.19 for COOP_TASKRUN) refuse these
/// flags with EINVAL, so the ring steps down to what the kernel offers.
fn build_ring(entries: u32) -> io::Result<IoUring> {
    let einval = |error: &io::Error| error.raw_os_error() == Some(libc::EINVAL);
    match IoUring::builder()
        .setup_coop_taskrun()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries)
    {
        Err(error) if einval(&error) => {
            match IoUring::builder().setup_coop_taskrun().build(entries) {
                Err(error) if einval(&error) => IoUring::builder().build(entries),
                other => other,
            }
        }
        other => other,
    }
}
