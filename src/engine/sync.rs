//! The sync engine: read(2) and write(2) on the file position, seeking only when needed.

use super::BlockIo;
use super::trim::Trimmer;
use rustix::fd::BorrowedFd;
use rustix::fs::SeekFrom;
use std::io;

/// Reads and writes at the file position; an lseek(2) precedes an I/O only
/// when the requested offset is not where the previous one ended, so
/// sequential access costs one system call per I/O, as with dd.
#[derive(Debug)]
pub struct PositionIo<'fd> {
    fd: BorrowedFd<'fd>,
    position: u64,
    trimmer: Trimmer,
}

impl<'fd> PositionIo<'fd> {
    /// Uses `fd`, whose file position must be 0.
    pub fn new(fd: BorrowedFd<'fd>) -> Self {
        PositionIo {
            fd,
            position: 0,
            trimmer: Trimmer::default(),
        }
    }

    #[inline]
    fn seek_to(&mut self, offset: u64) -> io::Result<()> {
        if offset != self.position {
            rustix::fs::seek(self.fd, SeekFrom::Start(offset))?;
            self.position = offset;
        }
        Ok(())
    }
}

impl BlockIo for PositionIo<'_> {
    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.seek_to(offset)?;
        let moved = rustix::io::read(self.fd, buf)?;
        self.position += moved as u64;
        Ok(moved)
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.seek_to(offset)?;
        let moved = rustix::io::write(self.fd, buf)?;
        self.position += moved as u64;
        Ok(moved)
    }

    /// A trim leaves the file position where it was.
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
