//! Which blocks a job's timed I/Os touched: a bitmap kept for the patterns that draw blocks independently (uniform, zipf, pareto, normal, zoned), whose share of the file touched is known only by counting.
//!
//! One bit per block, set as each I/O is drawn: one load and one store on
//! the hot path, no allocation (the bitmap is made before the clock starts).

use crate::plan::Pattern;

/// The most blocks a bitmap is kept for (32 MiB of bits); a larger file's
/// coverage is not recorded rather than slowing the job's start.
pub const MAX_TRACKED_BLOCKS: u64 = 1 << 28;

/// How many of a job's blocks its I/Os touched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockCoverage {
    /// Distinct blocks at least one I/O went to.
    pub touched: u64,
    /// Blocks in the job's file or region.
    pub blocks: u64,
}

/// The blocks touched so far, one bit each.
#[derive(Clone, Debug)]
pub struct Touched {
    words: Vec<u64>,
    blocks: u64,
}

impl Touched {
    /// A bitmap over `blocks` blocks when `pattern` may leave some untouched
    /// and the file is not too large to track; `None` otherwise, and when
    /// memory cannot be had (the coverage is then not recorded: the
    /// measurement does not depend on it).
    pub fn for_pattern(pattern: Pattern, blocks: u64) -> Option<Touched> {
        if pattern.covers_every_block() {
            return None;
        }
        Touched::new(blocks)
    }

    /// A bitmap over `blocks` blocks, all unmarked; `None` when the file is
    /// too large to track or memory cannot be had.
    pub fn new(blocks: u64) -> Option<Touched> {
        if blocks > MAX_TRACKED_BLOCKS {
            return None;
        }
        let len = blocks.div_ceil(64) as usize;
        let mut words = Vec::new();
        words.try_reserve_exact(len).ok()?;
        words.resize(len, 0);
        Some(Touched { words, blocks })
    }

    /// Notes that an I/O went to `block`.
    #[inline(always)]
    pub fn mark(&mut self, block: u64) {
        if let Some(word) = self.words.get_mut((block / 64) as usize) {
            *word |= 1 << (block % 64);
        }
    }

    /// Whether an I/O went to `block`.
    pub fn contains(&self, block: u64) -> bool {
        self.words
            .get((block / 64) as usize)
            .is_some_and(|word| word & (1 << (block % 64)) != 0)
    }

    /// Forgets every block (the ramp's I/Os are not counted).
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// The blocks touched and the blocks there are.
    pub fn count(&self) -> BlockCoverage {
        BlockCoverage {
            touched: self.words.iter().map(|w| u64::from(w.count_ones())).sum(),
            blocks: self.blocks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_distinct_blocks_and_forgets_on_clear() {
        assert!(Touched::for_pattern(Pattern::Random, 10).is_none());
        assert!(Touched::for_pattern(Pattern::Uniform, MAX_TRACKED_BLOCKS + 1).is_none());
        let mut touched = Touched::for_pattern(Pattern::Uniform, 130).unwrap();
        for block in [0, 63, 64, 129, 64, 0] {
            touched.mark(block);
        }
        assert_eq!(
            touched.count(),
            BlockCoverage {
                touched: 4,
                blocks: 130
            }
        );
        touched.clear();
        assert_eq!(touched.count().touched, 0);
    }
}
