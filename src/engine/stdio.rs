//! The stdio engine: fread(3)/fwrite(3) on a C library stream, as IOzone's fread/fwrite tests.

use super::BlockIo;
use rustix::fd::{AsRawFd, BorrowedFd, IntoRawFd};
use std::io;

/// A `FILE*` opened on a duplicate of the descriptor, with the C library's
/// default buffering; seeks with fseeko(3) only when not sequential.
#[derive(Debug)]
pub struct StreamIo {
    stream: *mut libc::FILE,
    position: u64,
}

impl StreamIo {
    /// Opens a stream on a duplicate of `fd` at position 0: mode `r+` for
    /// writing, `r` for reading (the descriptor may be read-only).
    pub fn new(fd: BorrowedFd<'_>, write: bool) -> io::Result<Self> {
        let duplicate = rustix::io::fcntl_dupfd_cloexec(fd, 0)?;
        let raw = duplicate.as_raw_fd();
        let mode = if write { c"r+" } else { c"r" };
        // SAFETY: `raw` is a valid descriptor we own; the mode string is NUL-terminated.
        let stream = unsafe { libc::fdopen(raw, mode.as_ptr()) };
        if stream.is_null() {
            return Err(io::Error::last_os_error());
        }
        // The stream now owns the descriptor and closes it in fclose.
        let _ = duplicate.into_raw_fd();
        Ok(StreamIo {
            stream,
            position: 0,
        })
    }

    #[inline]
    fn seek_to(&mut self, offset: u64) -> io::Result<()> {
        if offset != self.position {
            // SAFETY: `stream` is a valid open stream.
            if unsafe { libc::fseeko(self.stream, offset as libc::off_t, libc::SEEK_SET) } != 0 {
                return Err(io::Error::last_os_error());
            }
            self.position = offset;
        }
        Ok(())
    }

    fn stream_error(&self) -> io::Error {
        // SAFETY: `stream` is a valid open stream.
        if unsafe { libc::ferror(self.stream) } != 0 {
            io::Error::last_os_error()
        } else {
            io::Error::new(io::ErrorKind::UnexpectedEof, "end of file")
        }
    }
}

impl BlockIo for StreamIo {
    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.seek_to(offset)?;
        // SAFETY: `buf` is valid for `buf.len()` bytes; `stream` is open.
        let moved = unsafe { libc::fread(buf.as_mut_ptr().cast(), 1, buf.len(), self.stream) };
        self.position += moved as u64;
        if moved < buf.len() {
            return Err(self.stream_error());
        }
        Ok(moved)
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.seek_to(offset)?;
        // SAFETY: `buf` is valid for `buf.len()` bytes; `stream` is open.
        let moved = unsafe { libc::fwrite(buf.as_ptr().cast(), 1, buf.len(), self.stream) };
        self.position += moved as u64;
        if moved < buf.len() {
            return Err(self.stream_error());
        }
        Ok(moved)
    }

    fn sync_all(&mut self) -> io::Result<()> {
        self.flush()?;
        // SAFETY: `stream` is open; fileno returns its descriptor.
        let fd = unsafe { libc::fileno(self.stream) };
        // SAFETY: the descriptor stays open while the stream is.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        Ok(rustix::fs::fsync(fd)?)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.flush()?;
        // SAFETY: as in `sync_all`.
        let fd = unsafe { BorrowedFd::borrow_raw(libc::fileno(self.stream)) };
        Ok(rustix::fs::fdatasync(fd)?)
    }

    fn flush(&mut self) -> io::Result<()> {
        // SAFETY: `stream` is open.
        if unsafe { libc::fflush(self.stream) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl Drop for StreamIo {
    fn drop(&mut self) {
        // SAFETY: `stream` is open and is not used after this.
        unsafe { libc::fclose(self.stream) };
    }
}
