//! I/O engines: one file per interface, each moving one block per call.
//!
//! Engines know only the descriptor they are given; they do not time,
//! count or check anything. The timing loop in `run` is generic over
//! [`BlockIo`] so each engine is compiled into its own loop with no dynamic
//! dispatch on the hot path. Engines that keep requests in flight (io_uring,
//! libaio, the NFS and iSCSI clients) implement [`QueuedIo`], over which the queue-depth loop is generic the
//! same way.

mod callbacks;
pub mod got;
pub mod iscsi;
pub mod kind;
pub mod libaio;
pub(crate) mod library;
pub mod mmap;
pub mod nfs;
pub mod null;
pub mod posixaio;
pub mod psync;
mod slots;
pub mod stdio;
pub mod sync;
pub mod tap;
pub mod trim;
pub mod uring;
pub mod url;

use serde::{Deserialize, Serialize};
use std::io;

/// Whether one I/O reads, writes or trims (discards a range, which then
/// reads back as zeros).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Moves data from the target.
    Read = 0,
    /// Moves data to the target.
    Write = 1,
    /// Discards a range of the target: a hole punched in a file
    /// (`fallocate(PUNCH_HOLE)`), a discard on a block device (`BLKDISCARD`).
    Trim = 2,
}

impl Direction {
    /// Every direction, in index order.
    pub const ALL: [Direction; 3] = [Direction::Read, Direction::Write, Direction::Trim];

    /// Its position in per-direction arrays (read 0, write 1, trim 2).
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// "read", "write" or "trim".
    pub const fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
            Direction::Trim => "trim",
        }
    }
}

/// [`QueuedIo`] behind a trait object, for a loop handed its engine by a
/// target it cannot name (a network client's, through
/// `run::io::client::ClientJob::with_queue`): one virtual call per
/// request, where a network round trip dwarfs it. Every `QueuedIo` is one,
/// and `dyn DynQueuedIo` is a `QueuedIo` again.
pub trait DynQueuedIo {
    fn queue(
        &mut self,
        slot: u32,
        offset: u64,
        len: u32,
        direction: Direction,
        ioprio: u16,
    ) -> bool;
    fn slot_buffer(&mut self, slot: u32) -> &mut [u8];
    fn submit(&mut self) -> io::Result<usize>;
    fn wait(&mut self, count: usize) -> io::Result<()>;
    fn has_completions(&mut self) -> bool;
    fn reap(&mut self, each: &mut dyn FnMut(u32, i32));
    fn failure(&mut self, slot: u32, result: i32) -> io::Error;
    fn sync_all(&self) -> io::Result<()>;
    fn sync_data(&self) -> io::Result<()>;
    fn queues_flushes(&self) -> bool;
    fn queue_flush(&mut self, slot: u32) -> bool;
    fn wait_for(&mut self, timeout: std::time::Duration) -> io::Result<()>;
}

impl<Q: QueuedIo> DynQueuedIo for Q {
    fn queue(
        &mut self,
        slot: u32,
        offset: u64,
        len: u32,
        direction: Direction,
        ioprio: u16,
    ) -> bool {
        QueuedIo::queue(self, slot, offset, len, direction, ioprio)
    }
    fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
        QueuedIo::slot_buffer(self, slot)
    }
    fn submit(&mut self) -> io::Result<usize> {
        QueuedIo::submit(self)
    }
    fn wait(&mut self, count: usize) -> io::Result<()> {
        QueuedIo::wait(self, count)
    }
    fn has_completions(&mut self) -> bool {
        QueuedIo::has_completions(self)
    }
    fn reap(&mut self, each: &mut dyn FnMut(u32, i32)) {
        QueuedIo::reap(self, each)
    }
    fn failure(&mut self, slot: u32, result: i32) -> io::Error {
        QueuedIo::failure(self, slot, result)
    }
    fn sync_all(&self) -> io::Result<()> {
        QueuedIo::sync_all(self)
    }
    fn sync_data(&self) -> io::Result<()> {
        QueuedIo::sync_data(self)
    }
    fn queues_flushes(&self) -> bool {
        QueuedIo::queues_flushes(self)
    }
    fn queue_flush(&mut self, slot: u32) -> bool {
        QueuedIo::queue_flush(self, slot)
    }
    fn wait_for(&mut self, timeout: std::time::Duration) -> io::Result<()> {
        QueuedIo::wait_for(self, timeout)
    }
}

impl QueuedIo for dyn DynQueuedIo + '_ {
    fn queue(
        &mut self,
        slot: u32,
        offset: u64,
        len: u32,
        direction: Direction,
        ioprio: u16,
    ) -> bool {
        DynQueuedIo::queue(self, slot, offset, len, direction, ioprio)
    }
    fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
        DynQueuedIo::slot_buffer(self, slot)
    }
    fn submit(&mut self) -> io::Result<usize> {
        DynQueuedIo::submit(self)
    }
    fn wait(&mut self, count: usize) -> io::Result<()> {
        DynQueuedIo::wait(self, count)
    }
    fn has_completions(&mut self) -> bool {
        DynQueuedIo::has_completions(self)
    }
    fn reap(&mut self, mut each: impl FnMut(u32, i32)) {
        DynQueuedIo::reap(self, &mut each)
    }
    fn failure(&mut self, slot: u32, result: i32) -> io::Error {
        DynQueuedIo::failure(self, slot, result)
    }
    fn sync_all(&self) -> io::Result<()> {
        DynQueuedIo::sync_all(self)
    }
    fn sync_data(&self) -> io::Result<()> {
        DynQueuedIo::sync_data(self)
    }
    fn queues_flushes(&self) -> bool {
        DynQueuedIo::queues_flushes(self)
    }
    fn queue_flush(&mut self, slot: u32) -> bool {
        DynQueuedIo::queue_flush(self, slot)
    }
    fn wait_for(&mut self, timeout: std::time::Duration) -> io::Result<()> {
        DynQueuedIo::wait_for(self, timeout)
    }
}

/// A synchronous engine: one call moves one block and returns the bytes moved.
pub trait BlockIo {
    /// Reads `buf.len()` bytes at `offset`; returns how many were read.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    /// Writes `buf` at `offset`; returns how many bytes were written.
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize>;
    /// Discards `len` bytes at `offset` (engines whose capabilities say
    /// they trim: a punched hole in a file, a discard on a block device).
    fn trim_at(&mut self, offset: u64, len: u64) -> io::Result<()> {
        let _ = (offset, len);
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
    /// Makes everything written so far durable (fsync, or msync for a mapping).
    fn sync_all(&mut self) -> io::Result<()>;
    /// Makes the data written so far durable, and of the metadata only what
    /// reading it back needs (fdatasync); [`BlockIo::sync_all`] where the
    /// engine has no such call (a mapping's msync).
    fn sync_data(&mut self) -> io::Result<()> {
        self.sync_all()
    }
    /// Hands buffered data to the kernel (fflush for stdio); a no-op elsewhere.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An engine that keeps several requests in flight (io_uring, libaio, the
/// network clients). Each in-flight request owns a slot: its buffer,
/// and the tag its completion comes back with. The timing loop fills a
/// slot, queues it, submits, and reaps completions; it never waits on one
/// request.
pub trait QueuedIo {
    /// Queues one I/O of `len` bytes of slot `slot`'s buffer (at most the
    /// slot's size) at `offset` in `direction`, tagged with the slot; false
    /// when the submission queue is full. `ioprio` is the kernel's I/O
    /// priority value the request carries (0: none, the thread's); the
    /// plan gives one only to engines whose requests carry it (libaio,
    /// io_uring), and the others ignore it.
    fn queue(
        &mut self,
        slot: u32,
        offset: u64,
        len: u32,
        direction: Direction,
        ioprio: u16,
    ) -> bool;
    /// Slot `slot`'s buffer, to fill before queueing a write; the slot must
    /// not be in flight.
    fn slot_buffer(&mut self, slot: u32) -> &mut [u8];
    /// Hands every queued request to the kernel without waiting; returns how many it took.
    fn submit(&mut self) -> io::Result<usize>;
    /// Waits until at least `count` completions are ready.
    fn wait(&mut self, count: usize) -> io::Result<()>;
    /// Whether completions are waiting to be reaped.
    fn has_completions(&mut self) -> bool;
    /// Calls `each(slot, result)` for every ready completion; `result` is
    /// the byte count (0 for a trim) or a negated errno.
    fn reap(&mut self, each: impl FnMut(u32, i32));
    /// The error of slot `slot`'s failed request (`result` below 0), in the
    /// engine's own words when it kept them (a SCSI sense key, an NFS
    /// status); called once per failure, after its reap.
    fn failure(&mut self, slot: u32, result: i32) -> io::Error {
        let _ = slot;
        io::Error::from_raw_os_error(-result)
    }
    /// Makes everything written so far durable, outside the queue.
    fn sync_all(&self) -> io::Result<()>;
    /// Makes the data written so far durable (fdatasync), outside the
    /// queue; [`QueuedIo::sync_all`] where the engine has one sync (NFS's
    /// COMMIT, SCSI's SYNCHRONIZE CACHE).
    fn sync_data(&self) -> io::Result<()> {
        self.sync_all()
    }
    /// Whether [`QueuedIo::queue_flush`] queues a data sync; when not, a
    /// caller waits for what is in flight and calls [`QueuedIo::sync_all`].
    fn queues_flushes(&self) -> bool {
        false
    }
    /// Queues a data sync of the file (fdatasync) tagged with slot `slot`,
    /// completing with 0 or a negated errno; false when the queue is full
    /// or the engine queues none ([`QueuedIo::queues_flushes`]).
    fn queue_flush(&mut self, slot: u32) -> bool {
        let _ = slot;
        false
    }
    /// Waits until a completion is ready or `timeout` passes, for a paced
    /// loop whose next I/O is due then. The default polls
    /// [`QueuedIo::has_completions`], right for engines whose completions
    /// appear without entering the kernel (libaio's ring) or whose check
    /// enters it (the network engines' poll); an engine whose completions
    /// wait for a system call overrides it.
    fn wait_for(&mut self, timeout: std::time::Duration) -> io::Result<()> {
        let start = std::time::Instant::now();
        while !self.has_completions() && start.elapsed() < timeout {
            std::hint::spin_loop();
        }
        Ok(())
    }
}
