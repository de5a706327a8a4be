//! I/O engines: one file per interface, each moving one block per call.
//!
//! Engines know only the descriptor they are given; they do not time,
//! count or check anything. The timing loop in `run` is generic over
//! [`BlockIo`] so each engine is compiled into its own loop with no dynamic
//! dispatch on the hot path. io_uring, being asynchronous, has its own
//! queue-shaped interface in [`uring`].

pub mod kind;
pub mod mmap;
pub mod null;
pub mod psync;
pub mod stdio;
pub mod sync;
pub mod uring;

use std::io;

/// A synchronous engine: one call moves one block and returns the bytes moved.
pub trait BlockIo {
    /// Reads `buf.len()` bytes at `offset`; returns how many were read.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    /// Writes `buf` at `offset`; returns how many bytes were written.
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize>;
    /// Makes everything written so far durable (fsync, or msync for a mapping).
    fn sync_all(&mut self) -> io::Result<()>;
    /// Hands buffered data to the kernel (fflush for stdio); a no-op elsewhere.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
