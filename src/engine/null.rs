//! The null engine: no system call, no copy; what remains is iolab's own cost per I/O.

use super::BlockIo;
use std::hint::black_box;
use std::io;

/// Completes every I/O at once without touching memory or the kernel.
#[derive(Debug, Default)]
pub struct NullIo;

impl BlockIo for NullIo {
    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        black_box(offset);
        Ok(buf.len())
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        black_box(offset);
        Ok(buf.len())
    }

    #[inline]
    fn trim_at(&mut self, offset: u64, len: u64) -> io::Result<()> {
        black_box((offset, len));
        Ok(())
    }

    fn sync_all(&mut self) -> io::Result<()> {
        Ok(())
    }
}
