//! The `iscsi` engine: SCSI READ(16), WRITE(16) and UNMAP (a trim) commands
//! to an iSCSI LUN through libiscsi's asynchronous calls, `iodepth` in
//! flight on one session per job, every status checked, and the commands
//! and the PDUs that carried them counted as they go.
//!
//! One I/O is one command (the block size is whole logical blocks), so its
//! latency is the command's round trip as this initiator sees it; libiscsi
//! reads Data-In straight into the slot's buffer and sends Data-Out from
//! it. [`QueuedIo::sync_all`] sends SYNCHRONIZE CACHE(16).

pub mod libiscsi;
pub mod url;
pub mod wire;

use super::callbacks::{CompletionList, Completions, Serviced, wait_for_socket};
use super::{Direction, QueuedIo};
use libiscsi::{Callback, Context, ScsiIovec, UnmapList};
use std::cell::{Cell, UnsafeCell};
use std::ffi::{c_int, c_void};
use std::io;

/// Commands and payload bytes of one SCSI operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommandCount {
    /// Commands that completed (successfully or not).
    pub commands: u64,
    /// Payload bytes moved by the successful ones.
    pub bytes: u64,
}

/// The commands a job's engine sent, by operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CommandCounts {
    /// READ(16).
    pub read: CommandCount,
    /// WRITE(16).
    pub write: CommandCount,
    /// UNMAP (trims), which move no data: their bytes stay 0.
    pub unmap: CommandCount,
    /// SYNCHRONIZE CACHE(16).
    pub synchronize: CommandCount,
}

/// One slot's request: where its completion goes, its buffer as an
/// iovec, and the message of its last failure.
struct Tag {
    done: *const CompletionList,
    slot: u32,
    iov: UnsafeCell<ScsiIovec>,
    failure: UnsafeCell<Option<String>>,
}

/// One job's initiator: a logged-in context, `depth` slots of `len` bytes,
/// and the completions libiscsi's callbacks left.
pub struct IscsiIo<'c> {
    context: &'c Context,
    buffers: *mut u8,
    len: usize,
    tags: Box<[Tag]>,
    completions: Completions,
    counts: CommandCounts,
    synchronizations: Cell<u64>,
    /// Whether every WRITE(16) has Force Unit Access set.
    fua: bool,
}

impl<'c> IscsiIo<'c> {
    /// The engine for `context` with `depth` slots of `len` bytes from `buffers`.
    ///
    /// # Safety
    /// `buffers` must hold `depth * len` bytes and outlive the context's
    /// last service call (its logout and destruction included), and every
    /// queued request must be reaped before the engine is dropped unless
    /// the connection failed (the timing loop does both).
    pub unsafe fn new(
        context: &'c Context,
        depth: u32,
        buffers: *mut u8,
        len: usize,
    ) -> io::Result<IscsiIo<'c>> {
        let block = context.block_size as usize;
        if len == 0 || len % block != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("--bs {len} is not a whole number of the LUN's {block}-byte blocks"),
            ));
        }
        let completions = Completions::new(depth);
        let tags = (0..depth)
            .map(|slot| Tag {
                done: completions.list(),
                slot,
                iov: UnsafeCell::new(ScsiIovec {
                    // SAFETY: within `buffers`, by the caller's promise.
                    base: unsafe { buffers.add(slot as usize * len) }.cast(),
                    len,
                }),
                failure: UnsafeCell::new(None),
            })
            .collect();
        Ok(IscsiIo {
            context,
            buffers,
            len,
            tags,
            completions,
            counts: CommandCounts::default(),
            synchronizations: Cell::new(0),
            fua: false,
        })
    }

    /// Sets Force Unit Access on every WRITE(16): each completes only once
    /// it is on stable storage (O_SYNC's promise, per command).
    pub fn force_unit_access(&mut self, fua: bool) {
        self.fua = fua;
    }

    /// The commands completed so far, by operation.
    pub fn counts(&self) -> CommandCounts {
        CommandCounts {
            synchronize: CommandCount {
                commands: self.synchronizations.get(),
                bytes: 0,
            },
            ..self.counts
        }
    }
}

impl Serviced for IscsiIo<'_> {
    fn completions(&mut self) -> &mut Completions {
        &mut self.completions
    }

    /// Sends what can be sent and handles the replies that arrived, waiting
    /// at most `timeout_ms` for the socket.
    fn service(&mut self, timeout_ms: c_int) -> io::Result<()> {
        let context = self.context;
        let functions = context.functions;
        // SAFETY: live context.
        let (fd, events) = unsafe {
            (
                (functions.get_fd)(context.raw),
                (functions.which_events)(context.raw),
            )
        };
        if fd < 0 {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                format!(
                    "the connection to the target is gone: {}",
                    context.last_error()
                ),
            ));
        }
        let revents = wait_for_socket(fd, events, timeout_ms)?;
        // Serviced also when nothing is ready: libiscsi times out commands there.
        // SAFETY: live context; the callbacks it runs only touch the tags and the list.
        let status = unsafe { (functions.service)(context.raw, revents) };
        if status < 0 {
            return Err(context.error("the connection to the target"));
        }
        Ok(())
    }
}

/// libiscsi's completion of a command: the slot's result (bytes moved, or
/// -EIO with the reason kept in its tag), then the task is freed.
unsafe extern "C" fn completed(
    _iscsi: *mut c_void,
    status: c_int,
    task: *mut c_void,
    tag: *mut c_void,
) {
    // SAFETY: `tag` is the slot's Tag given at submission, alive until
    // reaped (or leaked with its engine); `task` is the command's task,
    // which libiscsi hands over to be freed here.
    unsafe {
        let tag = &*(tag as *const Tag);
        let asked = (*tag.iov.get()).len;
        let result = match libiscsi::outcome(status, task, asked) {
            Ok(moved) => moved as i32,
            Err(why) => {
                *tag.failure.get() = Some(why);
                -libc::EIO
            }
        };
        if let Ok(functions) = libiscsi::functions() {
            (functions.free_task)(task);
        }
        (*(*tag.done).get()).push((tag.slot, result));
    }
}

impl Drop for IscsiIo<'_> {
    /// Requests still with libiscsi (the loop stopped on a dead connection)
    /// are called back, cancelled, when the context logs out or is
    /// destroyed: their tags are left allocated for that (see
    /// `Completions::abandon`), and their iovecs emptied so no reply
    /// lands in a buffer.
    fn drop(&mut self) {
        if self.completions.abandon() {
            for tag in self.tags.iter_mut() {
                tag.iov.get_mut().len = 0;
            }
            std::mem::forget(std::mem::take(&mut self.tags));
        }
    }
}

impl QueuedIo for IscsiIo<'_> {
    fn queue(&mut self, slot: u32, offset: u64, len: u32, direction: Direction, _: u16) -> bool {
        debug_assert!(len as usize <= self.len);
        self.completions.queue(slot, offset, len, direction)
    }

    fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
        // SAFETY: within `buffers`; the slot is not in flight (the caller's contract).
        unsafe {
            std::slice::from_raw_parts_mut(self.buffers.add(slot as usize * self.len), self.len)
        }
    }

    fn submit(&mut self) -> io::Result<usize> {
        let context = self.context;
        let functions = context.functions;
        let block = u64::from(context.block_size);
        let fua = c_int::from(self.fua);
        let tags = &self.tags;
        // libiscsi writes the commands to the socket when it is next
        // serviced for POLLOUT: in `has_completions`, which the loop calls next.
        Ok(self.completions.submit(|slot, offset, len, direction| {
            let tag = &tags[slot as usize];
            // An UNMAP moves no data into or out of the slot: its result is 0.
            let moved = if direction == Direction::Trim { 0 } else { len };
            // SAFETY: the slot is not in flight; nothing else reads its iovec.
            unsafe { (*tag.iov.get()).len = moved as _ };
            let private = tag as *const Tag as *mut c_void;
            // SAFETY: live context; the slot's iovec, buffer and tag stay
            // valid until its completion is reaped.
            let task = unsafe {
                if direction == Direction::Trim {
                    // libiscsi copies the range into the command's parameter
                    // list, so it may live on the stack.
                    let mut range = UnmapList {
                        lba: offset / block,
                        num: (u64::from(len) / block) as u32,
                    };
                    (functions.unmap_task)(
                        context.raw,
                        context.lun,
                        0,
                        0,
                        &mut range,
                        1,
                        completed as Callback,
                        private,
                    )
                } else if direction == Direction::Write {
                    (functions.write16_iov_task)(
                        context.raw,
                        context.lun,
                        offset / block,
                        std::ptr::null_mut(),
                        len,
                        block as c_int,
                        0,
                        0,
                        fua,
                        0,
                        0,
                        completed as Callback,
                        private,
                        tag.iov.get(),
                        1,
                    )
                } else {
                    (functions.read16_iov_task)(
                        context.raw,
                        context.lun,
                        offset / block,
                        len,
                        block as c_int,
                        0,
                        0,
                        0,
                        0,
                        0,
                        completed as Callback,
                        private,
                        tag.iov.get(),
                        1,
                    )
                }
            };
            if task.is_null() {
                // SAFETY: the slot is not in flight; nothing else reads its tag.
                unsafe { *tag.failure.get() = Some(context.last_error()) };
            }
            !task.is_null()
        }))
    }

    fn wait(&mut self, count: usize) -> io::Result<()> {
        self.serviced_until(count)
    }

    fn has_completions(&mut self) -> bool {
        self.any_ready()
    }

    fn reap(&mut self, mut each: impl FnMut(u32, i32)) {
        let counts = &mut self.counts;
        self.completions.reap(|slot, result, direction| {
            let operation = match direction {
                Direction::Read => &mut counts.read,
                Direction::Write => &mut counts.write,
                Direction::Trim => &mut counts.unmap,
            };
            operation.commands += 1;
            operation.bytes += result.max(0) as u64;
            each(slot, result);
        });
    }

    fn failure(&mut self, slot: u32, result: i32) -> io::Error {
        let why = self
            .tags
            .get_mut(slot as usize)
            .and_then(|tag| tag.failure.get_mut().take());
        let command = match self.completions.direction_of(slot) {
            Direction::Read => "READ(16)",
            Direction::Write => "WRITE(16)",
            Direction::Trim => "UNMAP",
        };
        match why {
            Some(why) => io::Error::other(format!("{command}: {why}")),
            None => io::Error::from_raw_os_error(-result),
        }
    }

    fn sync_all(&self) -> io::Result<()> {
        self.synchronizations.set(self.synchronizations.get() + 1);
        self.context.synchronize_cache()
    }
}
