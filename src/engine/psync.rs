//! The psync engine: pread(2) and pwrite(2), one system call per I/O.

use super::BlockIo;
use super::trim::Trimmer;
use rustix::fd::BorrowedFd;
use std::io;

/// Positional reads and writes on a borrowed descriptor.
#[derive(Debug)]
pub struct PositionalIo<'fd> {
    fd: BorrowedFd<'fd>,
    trimmer: Trimmer,
}

impl<'fd> PositionalIo<'fd> {
    /// Uses `fd` for every I/O.
    pub fn new(fd: BorrowedFd<'fd>) -> Self {
        PositionalIo {
            fd,
            trimmer: Trimmer::default(),
        }
    }
}

impl BlockIo for PositionalIo<'_> {
    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        Ok(rustix::io::pread(self.fd, buf, offset)?)
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        Ok(rustix::io::pwrite(self.fd, buf, offset)?)
    }

    fn trim_at(&mut self, offset: u64, len: u64) -> io::Result<()> {
        self.trimmer.trim(self.fd, offset, len)
    }

    fn sync_all(&mut self) -> io::Result<()> {
        Ok(rustix::fs::fsync(self.fd)?)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        Ok(rustix::fs::fdatasync(self.fd)?)
    }
}
