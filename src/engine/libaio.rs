//! The libaio engine: Linux native asynchronous I/O (`io_submit`,
//! `io_getevents`) through the raw system calls, behind [`QueuedIo`].
//!
//! fio's `libaio` links the libaio library, a thin wrapper of the same four
//! system calls; calling them directly needs no library at build or run
//! time. The kernel's AIO is asynchronous only with O_DIRECT: a buffered
//! request completes inside `io_submit`, so the queue never holds more than
//! one (the capability `queues_buffered` says so, and a check tells the
//! user).
//!
//! AIO has no trim: a trim is done at once, in the queueing call
//! (`fallocate(PUNCH_HOLE)` or `BLKDISCARD`, after handing the kernel what
//! was queued before it), and its completion waits in the ready list for
//! the next reap, as fio's libaio engine does. The thread waits out the
//! trim, so completions of requests in flight are seen after it.

use super::slots::SlotRegion;
use super::trim::Trimmer;
use super::{Direction, QueuedIo};
use rustix::fd::{AsRawFd, BorrowedFd};
use std::io;

/// `IOCB_CMD_PREAD` and `IOCB_CMD_PWRITE` from <linux/aio_abi.h>.
const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
/// `IOCB_CMD_FDSYNC` from <linux/aio_abi.h>: an fdatasync through the
/// queue (every file system from Linux 4.18; older kernels refuse it with
/// EINVAL in its completion).
const IOCB_CMD_FDSYNC: u16 = 3;
/// `IOCB_FLAG_IOPRIO`: the request carries `aio_reqprio` as its I/O priority.
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;
/// `AIO_RING_MAGIC` from fs/aio.c: the completion ring the kernel maps at
/// the context's address starts with it.
const AIO_RING_MAGIC: u32 = 0xa10a_10a1;

/// `struct iocb` from <linux/aio_abi.h> (64 bytes; `aio_key` and
/// `aio_rw_flags` swap places on big-endian machines).
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Iocb {
    data: u64,
    #[cfg(target_endian = "little")]
    key: u32,
    rw_flags: i32,
    #[cfg(target_endian = "big")]
    key: u32,
    lio_opcode: u16,
    reqprio: i16,
    fildes: u32,
    buf: u64,
    nbytes: u64,
    offset: i64,
    reserved2: u64,
    flags: u32,
    resfd: u32,
}

/// `struct io_event` from <linux/aio_abi.h>.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

/// The head of the completion ring the kernel maps at the context's
/// address (`struct aio_ring` in fs/aio.c), read only to see whether
/// completions wait, as libaio's and fio's user-space reaping do.
#[repr(C)]
struct AioRing {
    id: u32,
    nr: u32,
    head: u32,
    tail: u32,
    magic: u32,
    compat_features: u32,
    incompat_features: u32,
    header_length: u32,
}

/// An AIO context for one file with one buffer slot per request in flight.
///
/// As for io_uring, the buffer memory is a raw region the kernel uses
/// between submission and completion: the caller keeps it alive and reaps
/// every submitted request before freeing it or dropping this value.
pub struct LibaioIo {
    context: libc::c_ulong,
    iocbs: Vec<Iocb>,
    /// Queued requests not yet taken by the kernel, in queue order.
    pending: Vec<*mut Iocb>,
    /// Completions fetched from the kernel (or failed submissions), not yet reaped.
    events: Vec<IoEvent>,
    ready: usize,
    /// Requests the kernel took and has not completed to us yet.
    in_kernel: usize,
    slots: SlotRegion,
    raw_fd: i32,
    trimmer: Trimmer,
    /// The most completions one `io_getevents` fetches (fio's
    /// `iodepth_batch_complete_max`): the depth unless
    /// [`LibaioIo::reaping_at_most`] says fewer.
    fetch_at_most: usize,
}

impl LibaioIo {
    /// Sets up a context for `depth` requests over `depth` consecutive
    /// buffers of `bs` bytes starting at `buffers`.
    ///
    /// # Safety
    /// `buffers` must be valid for `depth * bs` bytes and outlive every
    /// request submitted through the returned value.
    pub unsafe fn new(
        fd: BorrowedFd<'_>,
        depth: u32,
        buffers: *mut u8,
        bs: usize,
    ) -> io::Result<Self> {
        let mut context: libc::c_ulong = 0;
        // SAFETY: io_setup writes the new context's id to `context`.
        let set_up = unsafe {
            libc::syscall(
                libc::SYS_io_setup,
                depth as libc::c_long,
                &mut context as *mut libc::c_ulong,
            )
        };
        if set_up < 0 {
            let error = io::Error::last_os_error();
            return Err(match error.raw_os_error() {
                Some(libc::EAGAIN) => io::Error::new(
                    error.kind(),
                    format!(
                        "io_setup({depth}): the system's AIO requests are used up \
                         (fs.aio-max-nr in /proc/sys/fs/aio-max-nr): {error}"
                    ),
                ),
                Some(libc::ENOSYS) => io::Error::new(
                    error.kind(),
                    "this kernel was built without native AIO (CONFIG_AIO)",
                ),
                _ => error,
            });
        }
        let raw_fd = fd.as_raw_fd();
        // SAFETY: the caller vouches for the region.
        let slots = unsafe { SlotRegion::new(buffers, depth as usize, bs) };
        let iocbs = (0..slots.depth())
            .map(|slot| Iocb {
                data: slot as u64,
                fildes: raw_fd as u32,
                buf: slots.pointer(slot) as u64,
                nbytes: bs as u64,
                ..Iocb::default()
            })
            .collect();
        Ok(LibaioIo {
            context,
            iocbs,
            pending: Vec::with_capacity(depth as usize),
            events: vec![IoEvent::default(); depth as usize],
            ready: 0,
            in_kernel: 0,
            slots,
            raw_fd,
            trimmer: Trimmer::default(),
            fetch_at_most: depth as usize,
        })
    }

    /// Hands the pending requests to the kernel. A request it refuses at
    /// submission (a bad offset, O_DIRECT alignment) becomes a failed
    /// completion of its slot, so the loop reaps it like any other;
    /// EAGAIN leaves the rest pending for the next call.
    fn submit_pending(&mut self) -> io::Result<usize> {
        let mut taken = 0;
        while taken < self.pending.len() {
            let rest = &self.pending[taken..];
            // SAFETY: every pointer is to one of `self.iocbs`, whose buffers
            // the caller keeps alive until the request is reaped.
            let submitted = unsafe {
                libc::syscall(
                    libc::SYS_io_submit,
                    self.context,
                    rest.len() as libc::c_long,
                    rest.as_ptr(),
                )
            };
            if submitted > 0 {
                taken += submitted as usize;
                self.in_kernel += submitted as usize;
                continue;
            }
            let error = io::Error::last_os_error();
            match error.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => break,
                Some(errno) if submitted < 0 => {
                    // The first of `rest` was refused: complete it as failed.
                    // SAFETY: the pointer is to one of `self.iocbs`.
                    let slot = unsafe { (*rest[0]).data };
                    self.events[self.ready] = IoEvent {
                        data: slot,
                        res: -i64::from(errno),
                        ..IoEvent::default()
                    };
                    self.ready += 1;
                    taken += 1;
                }
                _ => break,
            }
        }
        self.pending.drain(..taken);
        Ok(taken)
    }

    /// Fetches at most `most` completions per `io_getevents` (0: as
    /// many as fit), as fio's libaio asks for at most its
    /// `iodepth_batch_complete_max` (1 by default): the same calls per I/O
    /// as fio's, which strace shows.
    pub fn reaping_at_most(mut self, most: u32) -> Self {
        if most > 0 {
            self.fetch_at_most = (most as usize).min(self.slots.depth());
        }
        self
    }

    /// Fetches completions into `events` after the ready ones: at least
    /// `min` (0: only those already done), at most what fits and
    /// `fetch_at_most`.
    fn get_events(&mut self, min: usize) -> io::Result<()> {
        let room = (self.slots.depth() - self.ready).min(self.fetch_at_most.max(min));
        let timeout = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let timeout: *const libc::timespec = if min == 0 { &timeout } else { std::ptr::null() };
        // SAFETY: `events[ready..]` has room for `room` events.
        let got = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.context,
                min as libc::c_long,
                room as libc::c_long,
                self.events.as_mut_ptr().add(self.ready),
                timeout,
            )
        };
        if got < 0 {
            return Err(io::Error::last_os_error());
        }
        self.ready += got as usize;
        self.in_kernel -= got as usize;
        Ok(())
    }

    /// Trims at once, after handing the kernel the requests queued before,
    /// and readies the trim's completion for the next reap: 0, or the
    /// negated errno. A failed hand-over stays pending, for the next submit
    /// to report.
    #[cold]
    fn trim_now(&mut self, slot: u32, offset: u64, len: u32) {
        let _ = self.submit_pending();
        // SAFETY: the descriptor outlives this value (it was borrowed for its lifetime).
        let fd = unsafe { BorrowedFd::borrow_raw(self.raw_fd) };
        let res = match self.trimmer.trim(fd, offset, u64::from(len)) {
            Ok(()) => 0,
            Err(error) => -i64::from(error.raw_os_error().unwrap_or(libc::EIO)),
        };
        self.events[self.ready] = IoEvent {
            data: u64::from(slot),
            res,
            ..IoEvent::default()
        };
        self.ready += 1;
    }

    /// Whether the kernel's completion ring holds completions, read from
    /// user space without a system call; false when the ring's layout is
    /// not the one known (the caller then waits in io_getevents, which is
    /// as correct and one call slower).
    fn ring_has_events(&self) -> bool {
        let ring = self.context as *const AioRing;
        // SAFETY: the kernel maps the ring at the context's address for the
        // context's life; the fields are read with volatile loads because
        // the kernel writes them concurrently.
        unsafe {
            std::ptr::read_volatile(&(*ring).magic) == AIO_RING_MAGIC
                && std::ptr::read_volatile(&(*ring).incompat_features) == 0
                && std::ptr::read_volatile(&(*ring).head) != std::ptr::read_volatile(&(*ring).tail)
        }
    }
}

impl QueuedIo for LibaioIo {
    #[inline]
    fn queue(
        &mut self,
        slot: u32,
        offset: u64,
        len: u32,
        direction: Direction,
        ioprio: u16,
    ) -> bool {
        if direction == Direction::Trim {
            self.trim_now(slot, offset, len);
            return true;
        }
        if self.pending.len() == self.slots.depth() {
            return false;
        }
        debug_assert!(len as usize <= self.slots.bs());
        let iocb = &mut self.iocbs[slot as usize];
        // Set again each time: a sync queued in this slot cleared it.
        iocb.buf = self.slots.pointer(slot as usize) as u64;
        iocb.nbytes = u64::from(len);
        iocb.lio_opcode = if direction == Direction::Write {
            IOCB_CMD_PWRITE
        } else {
            IOCB_CMD_PREAD
        };
        iocb.offset = offset as i64;
        // The request's own priority, or the submitting thread's.
        iocb.reqprio = ioprio as i16;
        iocb.flags = if ioprio == 0 { 0 } else { IOCB_FLAG_IOPRIO };
        self.pending.push(iocb);
        true
    }

    #[inline]
    fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
        self.slots.slot(slot as usize)
    }

    #[inline]
    fn submit(&mut self) -> io::Result<usize> {
        self.submit_pending()
    }

    /// Waits until at least `count` completions are ready, handing the
    /// kernel first what it could not take before.
    fn wait(&mut self, count: usize) -> io::Result<()> {
        self.submit_pending()?;
        while self.ready < count {
            if self.in_kernel == 0 {
                if self.pending.is_empty() {
                    return Err(io::Error::other(
                        "waited for more completions than requests were queued",
                    ));
                }
                // The kernel took none of them (EAGAIN): offer them again.
                std::thread::yield_now();
                self.submit_pending()?;
                continue;
            }
            self.get_events((count - self.ready).min(self.in_kernel))?;
        }
        Ok(())
    }

    #[inline]
    fn has_completions(&mut self) -> bool {
        self.ready > 0 || self.ring_has_events()
    }

    #[inline]
    fn reap(&mut self, mut each: impl FnMut(u32, i32)) {
        if self.ready == 0 && self.in_kernel > 0 && self.get_events(0).is_err() {
            return;
        }
        for event in &self.events[..self.ready] {
            // A read or write returns its byte count (at most one block),
            // a trim 0, a failure a negated errno: all within i32.
            each(event.data as u32, event.res as i32);
        }
        self.ready = 0;
    }

    fn queues_flushes(&self) -> bool {
        true
    }

    fn queue_flush(&mut self, slot: u32) -> bool {
        if self.pending.len() == self.slots.depth() {
            return false;
        }
        let iocb = &mut self.iocbs[slot as usize];
        // The kernel refuses a sync that names a buffer, a length or an offset.
        iocb.lio_opcode = IOCB_CMD_FDSYNC;
        iocb.buf = 0;
        iocb.nbytes = 0;
        iocb.offset = 0;
        iocb.reqprio = 0;
        iocb.flags = 0;
        self.pending.push(iocb);
        true
    }

    /// fsync(2) of the file, outside the queue.
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

impl Drop for LibaioIo {
    fn drop(&mut self) {
        // SAFETY: the context is ours; io_destroy waits for what is in flight.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.context) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_structs_have_the_abi_sizes() {
        assert_eq!(std::mem::size_of::<Iocb>(), 64);
        assert_eq!(std::mem::offset_of!(Iocb, lio_opcode), 16);
        assert_eq!(std::mem::offset_of!(Iocb, buf), 24);
        assert_eq!(std::mem::offset_of!(Iocb, offset), 40);
        assert_eq!(std::mem::size_of::<IoEvent>(), 32);
        assert_eq!(std::mem::size_of::<AioRing>(), 32);
    }

    /// Reads and writes a file through the queue, and a request the kernel
    /// refuses at submission (a negative offset) comes back as a failed
    /// completion of its slot.
    #[test]
    fn reads_writes_and_refusals_complete_by_slot() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 8192]).unwrap();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let mut memory = vec![0u8; 2 * 4096];
        // SAFETY: `memory` outlives the engine, and every request is reaped.
        let mut aio =
            unsafe { LibaioIo::new(rustix::fd::AsFd::as_fd(&file), 2, memory.as_mut_ptr(), 4096) }
                .unwrap();
        aio.slot_buffer(1).fill(9);
        assert!(aio.queue(0, 0, 4096, Direction::Read, 0));
        assert!(aio.queue(1, 4096, 4096, Direction::Write, 0));
        assert_eq!(aio.submit().unwrap(), 2);
        aio.wait(2).unwrap();
        let mut done = Vec::new();
        aio.reap(|slot, result| done.push((slot, result)));
        done.sort();
        assert_eq!(done, [(0, 4096), (1, 4096)]);
        assert_eq!(aio.slot_buffer(0)[0], 7);
        assert!(aio.queue(0, u64::MAX, 4096, Direction::Read, 0));
        aio.submit().unwrap();
        assert!(aio.has_completions());
        let mut refused = Vec::new();
        aio.reap(|slot, result| refused.push((slot, result)));
        assert_eq!(refused, [(0, -libc::EINVAL)]);
        // A data sync through the queue completes by its slot with 0.
        assert!(aio.queues_flushes());
        assert!(aio.queue_flush(1));
        assert_eq!(aio.submit().unwrap(), 1);
        aio.wait(1).unwrap();
        let mut synced = Vec::new();
        aio.reap(|slot, result| synced.push((slot, result)));
        assert_eq!(synced, [(1, 0)]);
        drop(aio);
        assert_eq!(std::fs::read(&path).unwrap()[4096], 9);
    }
}
