//! The buffer region of a kernel-queued engine (io_uring, libaio): one slot of `bs` bytes per request in flight, in memory the caller owns and the kernel uses between submission and completion.

/// `depth` consecutive buffers of `bs` bytes at `base`. The memory is the
/// caller's (it must outlive every request); this only hands out slots.
pub(super) struct SlotRegion {
    base: *mut u8,
    depth: usize,
    bs: usize,
}

impl SlotRegion {
    /// The region of `depth` slots of `bs` bytes at `base`.
    ///
    /// # Safety
    /// `base` must be valid for `depth * bs` bytes for as long as the region
    /// or any request using its slots lives.
    pub(super) unsafe fn new(base: *mut u8, depth: usize, bs: usize) -> SlotRegion {
        SlotRegion { base, depth, bs }
    }

    /// Slots in the region.
    pub(super) fn depth(&self) -> usize {
        self.depth
    }

    /// Bytes per slot.
    pub(super) fn bs(&self) -> usize {
        self.bs
    }

    /// The start of slot `slot`, for a request's buffer address.
    #[inline]
    pub(super) fn pointer(&self, slot: usize) -> *mut u8 {
        assert!(slot < self.depth, "slot {slot} out of range");
        // SAFETY: within the region `new`'s caller vouched for.
        unsafe { self.base.add(slot * self.bs) }
    }

    /// Slot `slot`'s bytes, to fill before queueing a write; the caller
    /// only asks for free slots, which no request uses.
    #[inline]
    pub(super) fn slot(&mut self, slot: usize) -> &mut [u8] {
        let start = self.pointer(slot);
        // SAFETY: the slot lies within the region (checked by `pointer`) and
        // no request in flight uses it.
        unsafe { std::slice::from_raw_parts_mut(start, self.bs) }
    }
}
