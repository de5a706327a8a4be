//! Aligned I/O buffers, as O_DIRECT requires, filled with seeded incompressible data.

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ptr::NonNull;

/// A heap buffer whose start is aligned to a power of two.
#[derive(Debug)]
pub struct AlignedBuffer {
    data: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the buffer owns its memory exclusively, like a Vec<u8>.
unsafe impl Send for AlignedBuffer {}

impl AlignedBuffer {
    /// Allocates `len` zeroed bytes aligned to `align` (a power of two).
    pub fn new(len: usize, align: usize) -> Self {
        let layout = Layout::from_size_align(len.max(1), align.max(1))
            .expect("buffer alignment must be a power of two");
        // SAFETY: the layout has a non-zero size.
        let data = unsafe { alloc_zeroed(layout) };
        let data = NonNull::new(data).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        AlignedBuffer { data, layout }
    }

    /// Allocates like [`AlignedBuffer::new`] and fills with [`AlignedBuffer::fill`].
    pub fn with_data(len: usize, align: usize, seed: u64) -> Self {
        let mut buffer = Self::new(len, align);
        buffer.fill(seed);
        buffer
    }

    /// Like [`AlignedBuffer::with_data`], but `None` when the memory cannot
    /// be had (an address-space limit), instead of ending the process.
    pub fn try_with_data(len: usize, align: usize, seed: u64) -> Option<Self> {
        let layout = Layout::from_size_align(len.max(1), align.max(1)).ok()?;
        // SAFETY: the layout has a non-zero size.
        let data = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        let mut buffer = AlignedBuffer { data, layout };
        buffer.fill(seed);
        Some(buffer)
    }

    /// Fills the buffer with pseudo-random bytes from `seed`, so that devices
    /// and file systems that compress or deduplicate zeros see real data.
    pub fn fill(&mut self, seed: u64) {
        fill_random(self.as_mut_slice(), seed);
    }

    /// The buffer's length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Whether the buffer is empty (never: at least one byte is allocated).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The bytes, read-only.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `data` is valid for `len` initialized bytes owned by self.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr(), self.len()) }
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` guarantees exclusivity.
        unsafe { std::slice::from_raw_parts_mut(self.data.as_ptr(), self.len()) }
    }

    /// The start address, for interfaces that keep the memory across calls (io_uring).
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.data.as_ptr()
    }
}

/// Bytes between stamps: one stamp per 512-byte sector, the smallest unit a
/// device or a deduplicating layer can compare.
pub const STAMP_EVERY: usize = 512;

/// Makes a write buffer unlike every earlier one: writes the sector's file
/// offset and `generation` (any value that changes per I/O, such as the
/// clock) into the first 16 bytes of each 512-byte sector.
///
/// Without it every write carries the same bytes, and a layer that
/// deduplicates or compresses (a thin pool, ZFS, a VM host's storage) sees
/// the same block again and again: writes then look faster than they are.
/// fio does the same by default (`scramble_buffers`). A few stores per
/// sector: no system call or allocation.
#[inline]
pub fn stamp(block: &mut [u8], offset: u64, generation: u64) {
    for (index, sector) in block.chunks_exact_mut(STAMP_EVERY).enumerate() {
        let sector_offset = offset + (index * STAMP_EVERY) as u64;
        sector[..8].copy_from_slice(&sector_offset.to_le_bytes());
        sector[8..16].copy_from_slice(&generation.to_le_bytes());
    }
}

/// Fills `bytes` with pseudo-random bytes from `seed` (xorshift64*: fast,
/// and plenty for incompressible filler).
fn fill_random(bytes: &mut [u8], seed: u64) {
    let mut state = seed ^ 0x6A09_E667_F3BC_C908;
    if state == 0 {
        state = 1;
    }
    for chunk in bytes.chunks_mut(8) {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        let word = state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
}

/// Makes `block` the working-set page `key` (a job and its unique write's
/// number): random bytes from the key alone, so the page is the same
/// wherever and by whichever job it is written, then shaped as `data`
/// shapes a buffer. Whole blocks, as fio refills each buffer of a dedupe
/// working set from its seed: a compressor sees no filler shared between
/// blocks. One pass over the block's bytes per write.
pub fn fill_page(block: &mut [u8], key: u64, data: crate::plan::data::DataPattern) {
    fill_random(block, crate::plan::draw::mix(key));
    data.shape(block);
}

/// Marks a block about to be written as `stamp` says: stamped with its
/// `offset` and `generation`, the repeated stamp, a working-set page, or
/// left alone.
#[inline]
pub fn mark(
    block: &mut [u8],
    stamp_as: crate::plan::data::WriteStamp,
    (offset, generation): (u64, u64),
    data: crate::plan::data::DataPattern,
) {
    use crate::plan::data::WriteStamp;
    match stamp_as {
        WriteStamp::Unique => stamp(block, offset, generation),
        WriteStamp::Repeat => stamp(block, 0, 0),
        WriteStamp::Page(key) => fill_page(block, key, data),
        WriteStamp::None => {}
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { dealloc(self.data.as_ptr(), self.layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_make_every_sector_and_every_write_different() {
        let mut buffer = AlignedBuffer::with_data(4096, 4096, 7);
        let original = buffer.as_slice().to_vec();
        stamp(buffer.as_mut_slice(), 8192, 1);
        let first = buffer.as_slice().to_vec();
        let sectors: std::collections::HashSet<&[u8]> = first.chunks(512).collect();
        assert_eq!(sectors.len(), 8, "no two sectors alike");
        assert_eq!(&first[512..520], &(8192u64 + 512).to_le_bytes());
        assert_eq!(&first[16..512], &original[16..512], "the rest stays random");
        stamp(buffer.as_mut_slice(), 8192, 2);
        assert_ne!(
            buffer.as_slice(),
            &first[..],
            "a rewrite of the same offset differs"
        );
    }

    #[test]
    fn buffers_are_aligned_and_filled() {
        for align in [512, 4096, 65536] {
            let buffer = AlignedBuffer::with_data(12288, align, 3);
            assert_eq!(buffer.as_slice().as_ptr() as usize % align, 0);
            assert_eq!(buffer.len(), 12288);
            let zeros = buffer.as_slice().iter().filter(|&&b| b == 0).count();
            assert!(zeros < 200, "{zeros} zero bytes in filler");
        }
        let a = AlignedBuffer::with_data(64, 64, 1);
        let b = AlignedBuffer::with_data(64, 64, 2);
        assert_ne!(a.as_slice(), b.as_slice());
    }
}
