//! The mmap engine: memcpy from and to a shared mapping of the whole file.

use super::BlockIo;
use rustix::fd::BorrowedFd;
use rustix::mm::{MapFlags, MsyncFlags, ProtFlags};
use std::io;
use std::ptr::NonNull;

/// A shared mapping of the file; reads and writes are memory copies, and
/// synchronous modes become msync(2) of the written range inside the timed region.
#[derive(Debug)]
pub struct MappedIo {
    base: NonNull<u8>,
    len: usize,
    sync_each_write: bool,
}

impl MappedIo {
    /// Maps `len` bytes of `fd`, writable when `writable`; with
    /// `sync_each_write` every write is msync'ed (the file was opened with
    /// O_SYNC or O_DSYNC, which a mapping does not honour by itself). The
    /// file must already be at least `len` bytes long.
    pub fn new(
        fd: BorrowedFd<'_>,
        len: u64,
        writable: bool,
        sync_each_write: bool,
    ) -> io::Result<Self> {
        let len = usize::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::FileTooLarge))?;
        let mut protection = ProtFlags::READ;
        if writable {
            protection |= ProtFlags::WRITE;
        }
        // SAFETY: a fresh mapping chosen by the kernel aliases nothing of ours.
        let base = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                len,
                protection,
                MapFlags::SHARED,
                fd,
                0,
            )?
        };
        Ok(MappedIo {
            base: NonNull::new(base.cast()).expect("mmap returned a null mapping"),
            len,
            sync_each_write,
        })
    }

    #[inline]
    fn range(&self, offset: u64, len: usize) -> io::Result<*mut u8> {
        match usize::try_from(offset) {
            Ok(start) if start.checked_add(len).is_some_and(|end| end <= self.len) => {
                // SAFETY: start + len lies within the mapping.
                Ok(unsafe { self.base.as_ptr().add(start) })
            }
            _ => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "I/O beyond the end of the mapping",
            )),
        }
    }

    fn msync(&self, start: *mut u8, len: usize) -> io::Result<()> {
        // msync needs a page-aligned address.
        let page = rustix::param::page_size();
        let misalignment = start as usize % page;
        // SAFETY: the range lies within our mapping, widened down to its page start.
        unsafe {
            rustix::mm::msync(
                start.sub(misalignment).cast(),
                len + misalignment,
                MsyncFlags::SYNC,
            )?
        };
        Ok(())
    }
}

impl BlockIo for MappedIo {
    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let source = self.range(offset, buf.len())?;
        // SAFETY: `source` is valid for buf.len() bytes; the regions cannot overlap.
        unsafe { std::ptr::copy_nonoverlapping(source, buf.as_mut_ptr(), buf.len()) };
        Ok(buf.len())
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let target = self.range(offset, buf.len())?;
        // SAFETY: `target` is valid for buf.len() bytes of a writable mapping.
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), target, buf.len()) };
        if self.sync_each_write {
            self.msync(target, buf.len())?;
        }
        Ok(buf.len())
    }

    fn sync_all(&mut self) -> io::Result<()> {
        self.msync(self.base.as_ptr(), self.len)
    }
}

impl Drop for MappedIo {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by us with this length and is no longer used.
        let _ = unsafe { rustix::mm::munmap(self.base.as_ptr().cast(), self.len) };
    }
}
