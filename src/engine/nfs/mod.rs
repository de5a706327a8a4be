//! The `nfs` engine: NFSv3 through libnfs's asynchronous calls, `iodepth`
//! requests in flight on one TCP connection per job, every reply checked,
//! and the RPCs counted by procedure as they complete.
//!
//! Each request is one READ or WRITE RPC (the block size is refused above
//! the server's rsize or wsize, so libnfs never splits one), so the I/O's
//! latency is the RPC's round trip as this client sees it. Writes are
//! UNSTABLE; [`QueuedIo::sync_all`] sends a COMMIT.

pub mod handle;
pub mod libnfs;
pub mod url;
pub mod wire;
mod xdr;

use super::callbacks::{CompletionList, Completions, Serviced, wait_for_socket};
use super::{Direction, QueuedIo};
use libnfs::{Callback, File};
use std::cell::{Cell, UnsafeCell};
use std::ffi::{c_int, c_void};
use std::io;

/// Calls and payload bytes of one NFS procedure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcedureCount {
    /// Calls that completed (successfully or not).
    pub calls: u64,
    /// Payload bytes moved by the successful ones.
    pub bytes: u64,
}

/// The RPCs a job's engine sent, by procedure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RpcCounts {
    /// READ.
    pub read: ProcedureCount,
    /// WRITE.
    pub write: ProcedureCount,
    /// COMMIT.
    pub commit: ProcedureCount,
}

/// What a completion callback needs: where the reply goes, and where the
/// message of a failed call is kept.
struct Tag {
    done: *const CompletionList,
    slot: u32,
    destination: *mut u8,
    len: usize,
    failure: UnsafeCell<Option<String>>,
}

/// One job's NFS client: a mounted context's open file, `depth` slots of
/// `len` bytes, and the completions libnfs's callbacks left.
pub struct NfsIo<'f> {
    file: &'f File<'f>,
    buffers: *mut u8,
    len: usize,
    tags: Box<[Tag]>,
    completions: Completions,
    counts: RpcCounts,
    commits: Cell<u64>,
}

impl<'f> NfsIo<'f> {
    /// The engine for `file` with `depth` slots of `len` bytes from `buffers`.
    ///
    /// # Safety
    /// `buffers` must hold `depth * len` bytes and outlive the engine, and
    /// every queued request must be reaped before the engine is dropped
    /// (the timing loop does both).
    pub unsafe fn new(
        file: &'f File<'f>,
        depth: u32,
        buffers: *mut u8,
        len: usize,
    ) -> io::Result<NfsIo<'f>> {
        let context = file.context;
        let most = context.read_max().min(context.write_max());
        if len as u64 > most {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "--bs {len} is larger than the server's rsize/wsize ({most} bytes): one I/O must be one RPC"
                ),
            ));
        }
        let completions = Completions::new(depth);
        let tags = (0..depth)
            .map(|slot| Tag {
                done: completions.list(),
                slot,
                // SAFETY: within `buffers`, by the caller's promise.
                destination: unsafe { buffers.add(slot as usize * len) },
                len,
                failure: UnsafeCell::new(None),
            })
            .collect();
        Ok(NfsIo {
            file,
            buffers,
            len,
            tags,
            completions,
            counts: RpcCounts::default(),
            commits: Cell::new(0),
        })
    }

    /// The RPCs completed so far, by procedure.
    pub fn counts(&self) -> RpcCounts {
        RpcCounts {
            commit: ProcedureCount {
                calls: self.commits.get(),
                bytes: 0,
            },
            ..self.counts
        }
    }
}

impl Serviced for NfsIo<'_> {
    fn completions(&mut self) -> &mut Completions {
        &mut self.completions
    }

    /// Sends what can be sent and handles the replies that arrived, waiting
    /// at most `timeout_ms` for the socket.
    fn service(&mut self, timeout_ms: c_int) -> io::Result<()> {
        let context = self.file.context;
        let functions = context.functions;
        // SAFETY: live context.
        let (fd, events) = unsafe {
            (
                (functions.get_fd)(context.raw),
                (functions.which_events)(context.raw),
            )
        };
        let revents = wait_for_socket(fd, events, timeout_ms)?;
        // Serviced also when nothing is ready: libnfs times out calls there.
        // SAFETY: live context; the callbacks it runs only push to the list.
        let status = unsafe { (functions.service)(context.raw, revents) };
        if status < 0 {
            return Err(context.error(status, "the connection to the server"));
        }
        Ok(())
    }
}

/// libnfs's completion of a WRITE (and the end of a READ's): notes the
/// slot and its status, and for a failed call libnfs's message, which it
/// passes as the data.
unsafe extern "C" fn completed(
    status: c_int,
    _nfs: *mut c_void,
    data: *mut c_void,
    tag: *mut c_void,
) {
    // SAFETY: `tag` is the slot's Tag given at submission, alive until reaped.
    let tag = unsafe { &*(tag as *const Tag) };
    if status < 0 && !data.is_null() {
        // SAFETY: on failure libnfs passes a NUL-terminated message, valid
        // for the callback; the tag is not read meanwhile.
        unsafe {
            let message = std::ffi::CStr::from_ptr(data as *const std::ffi::c_char);
            *tag.failure.get() = Some(message.to_string_lossy().into_owned());
        }
    }
    // SAFETY: the list outlives every request, and libnfs calls back on the
    // thread that services it, never during another access.
    unsafe { (*(*tag.done).get()).push((tag.slot, status)) };
}

/// libnfs's completion of a READ: the data is copied into the slot first.
unsafe extern "C" fn read_completed(
    status: c_int,
    nfs: *mut c_void,
    data: *mut c_void,
    tag: *mut c_void,
) {
    // SAFETY: as in `completed`; the reply holds `status` bytes at `data`.
    unsafe {
        let slot = &*(tag as *const Tag);
        // A request abandoned with its engine has no destination any more.
        if status > 0 && !data.is_null() && !slot.destination.is_null() {
            let copied = (status as usize).min(slot.len);
            std::ptr::copy_nonoverlapping(data as *const u8, slot.destination, copied);
        }
        completed(status, nfs, data, tag);
    }
}

impl Drop for NfsIo<'_> {
    /// Requests still with libnfs (the loop stopped on a dead connection)
    /// will be called back when the file is closed or the context destroyed:
    /// their tags are left allocated for that (see `Completions::abandon`),
    /// and no reply is copied into buffers that are about to be freed.
    fn drop(&mut self) {
        if self.completions.abandon() {
            for tag in self.tags.iter_mut() {
                tag.destination = std::ptr::null_mut();
            }
            std::mem::forget(std::mem::take(&mut self.tags));
        }
    }
}

impl QueuedIo for NfsIo<'_> {
    fn queue(&mut self, slot: u32, offset: u64, len: u32, direction: Direction, _: u16) -> bool {
        debug_assert!(len as usize <= self.len);
        // NFSv3 has no request that frees a range: the registry says so.
        debug_assert!(direction != Direction::Trim, "nfs does not trim");
        self.completions.queue(slot, offset, len, direction)
    }

    fn slot_buffer(&mut self, slot: u32) -> &mut [u8] {
        // SAFETY: within `buffers`; the slot is not in flight (the caller's contract).
        unsafe {
            std::slice::from_raw_parts_mut(self.buffers.add(slot as usize * self.len), self.len)
        }
    }

    fn submit(&mut self) -> io::Result<usize> {
        let context = self.file.context;
        let functions = context.functions;
        let (file, buffers, slot_len, tags) = (self.file, self.buffers, self.len, &self.tags);
        Ok(self.completions.submit(|slot, offset, len, direction| {
            let entry = &tags[slot as usize];
            let tag = entry as *const Tag as *mut c_void;
            // SAFETY: live context and handle; the slot's buffer and tag
            // stay valid until its completion is reaped.
            let status = unsafe {
                if direction == Direction::Write {
                    (functions.pwrite_async)(
                        context.raw,
                        file.raw,
                        offset,
                        len as u64,
                        buffers.add(slot as usize * slot_len).cast(),
                        completed as Callback,
                        tag,
                    )
                } else {
                    (functions.pread_async)(
                        context.raw,
                        file.raw,
                        offset,
                        len as u64,
                        read_completed as Callback,
                        tag,
                    )
                }
            };
            if status < 0 {
                // SAFETY: the slot is not in flight; nothing else reads its tag.
                unsafe {
                    *entry.failure.get() = Some(context.error(status, "not sent").to_string())
                };
            }
            status >= 0
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
        self.completions.reap(|slot, status, direction| {
            let procedure = if direction == Direction::Write {
                &mut counts.write
            } else {
                &mut counts.read
            };
            procedure.calls += 1;
            procedure.bytes += status.max(0) as u64;
            each(slot, status);
        });
    }

    fn failure(&mut self, slot: u32, result: i32) -> io::Error {
        let why = self
            .tags
            .get_mut(slot as usize)
            .and_then(|tag| tag.failure.get_mut().take());
        let procedure = if self.completions.direction_of(slot) == Direction::Write {
            "WRITE"
        } else {
            "READ"
        };
        let os = io::Error::from_raw_os_error(-result);
        match why {
            Some(why) => io::Error::new(os.kind(), format!("{procedure}: {why}")),
            None => os,
        }
    }

    fn sync_all(&self) -> io::Result<()> {
        self.commits.set(self.commits.get() + 1);
        self.file.commit()
    }
}
