//! Access patterns: the order in which a workload visits the blocks of a file.
//!
//! Generation is allocation-free and O(1) per block so that it can sit on the
//! hot path and so memory does not grow with the file size: `random` is a
//! keyed pseudo-random permutation (a Feistel network with cycle walking, the
//! construction of format-preserving encryption, see Black & Rogaway,
//! "Ciphers with Arbitrary Finite Domains", CT-RSA 2002) rather than a shuffled
//! table. The skewed distributions (zipf, pareto, normal, zoned) draw
//! blocks independently, as `uniform` does; their draws live in `plan::skew`.

use super::draw::{Permutation, SplitMix64, mix};
use super::sequence::BlockList;
pub use super::skew::Skew;
use super::skew::SkewedDraws;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The order in which blocks are visited within one pass over the file.
///
/// `Copy`, so a job's sequence holds its own; a listed pattern makes it 264
/// bytes, copied once per job, never per I/O.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Pattern {
    /// Blocks 0, 1, 2, … in order.
    Seq,
    /// Blocks n-1, n-2, …, 0.
    Reverse,
    /// Every block exactly once per pass, in a seeded shuffled order.
    Random,
    /// Independent uniformly distributed blocks; some repeat, some are missed.
    Uniform,
    /// Every N-th block, wrapping around so that a pass still covers every block.
    Stride(u64),
    /// Independent draws skewed towards hot blocks: zipf:θ, pareto:h,
    /// normal:σ%, zoned:A/S:A/S… (fio's `random_distribution`).
    Skewed(Skew),
    /// `bands:R/S`: R blocks in order, then S skipped, to the end of the
    /// file, a pass visiting only the bands (fio's `zonemode=strided`:
    /// `zonesize` read, `zoneskip` skipped), as a disk's zone profile
    /// samples its surface.
    Bands {
        /// Blocks visited in a row.
        read: u64,
        /// Blocks skipped after them.
        skip: u64,
    },
    /// `sequence:2:0:1`: the listed blocks in turn, repeated; or
    /// `sequence-stride:2:0:1`, each round one list's length further on,
    /// the pass ending at the first block past the file's end (fio 3.42's
    /// `random_distribution=sequence`, with `random_sequence_stride`).
    Listed(BlockList),
}

impl Pattern {
    /// Whether a pass visits every block exactly once; `uniform` and the
    /// skewed patterns draw each block independently, so some repeat and
    /// some are never touched.
    pub fn covers_every_block(self) -> bool {
        match self {
            Pattern::Uniform | Pattern::Skewed(_) | Pattern::Listed(_) => false,
            Pattern::Bands { skip, .. } => skip == 0,
            _ => true,
        }
    }

    /// Whether it walks the file in order (seq, reverse, stride, bands):
    /// fio's `rw=read`, not `randread`.
    pub fn in_order(self) -> bool {
        matches!(
            self,
            Pattern::Seq | Pattern::Reverse | Pattern::Stride(_) | Pattern::Bands { .. }
        )
    }

    /// The blocks one pass over `blocks` visits: all of them, but for bands.
    pub fn pass_blocks(self, blocks: u64) -> u64 {
        match self {
            Pattern::Bands { read, skip } => {
                let period = read.saturating_add(skip).max(1);
                (blocks / period) * read + (blocks % period).min(read)
            }
            Pattern::Listed(list) => list.pass_len(blocks),
            _ => blocks,
        }
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Seq => f.write_str("seq"),
            Pattern::Reverse => f.write_str("reverse"),
            Pattern::Random => f.write_str("random"),
            Pattern::Uniform => f.write_str("uniform"),
            Pattern::Stride(n) => write!(f, "stride:{n}"),
            Pattern::Skewed(skew) => skew.fmt(f),
            Pattern::Bands { read, skip } => write!(f, "bands:{read}/{skip}"),
            Pattern::Listed(list) => list.fmt(f),
        }
    }
}

impl FromStr for Pattern {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "seq" | "sequential" => Ok(Pattern::Seq),
            "reverse" | "backward" => Ok(Pattern::Reverse),
            "random" | "rand" => Ok(Pattern::Random),
            "uniform" => Ok(Pattern::Uniform),
            other => {
                if let Some((name, parameter)) = other.split_once(':') {
                    if let Some(skew) = Skew::parse(name, parameter) {
                        return skew.map(Pattern::Skewed);
                    }
                }
                for (name, advancing) in [("sequence:", false), ("sequence-stride:", true)] {
                    if let Some(list) = other.strip_prefix(name) {
                        return BlockList::parse(list, advancing)
                            .map(Pattern::Listed)
                            .map_err(|why| format!("pattern '{text}': {why}"));
                    }
                }
                if let Some(bands) = other.strip_prefix("bands:") {
                    let parsed = bands
                        .split_once('/')
                        .and_then(|(r, s)| Some((r.parse::<u64>().ok()?, s.parse::<u64>().ok()?)));
                    return match parsed {
                        Some((read, skip)) if read >= 1 => Ok(Pattern::Bands { read, skip }),
                        _ => Err(format!(
                            "pattern '{text}': bands:R/S takes R >= 1 blocks in order, then S skipped"
                        )),
                    };
                }
                let stride = other.strip_prefix("stride:").ok_or_else(|| {
                    format!(
                        "unknown pattern '{text}' (use seq, reverse, random, uniform, stride:N, \
                         bands:R/S, sequence:B:B…, sequence-stride:B:B…, zipf:θ, pareto:h, normal:σ% or zoned:A/S:A/S…)"
                    )
                })?;
                match stride.parse::<u64>() {
                    Ok(n) if n >= 1 => Ok(Pattern::Stride(n)),
                    _ => Err(format!(
                        "pattern '{text}': the stride must be a whole number of blocks >= 1"
                    )),
                }
            }
        }
    }
}

impl TryFrom<String> for Pattern {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<Pattern> for String {
    fn from(pattern: Pattern) -> String {
        pattern.to_string()
    }
}

/// Yields block indices for successive passes of a pattern over `blocks` blocks.
#[derive(Clone, Debug)]
pub struct BlockSequence {
    pattern: Pattern,
    blocks: u64,
    seed: u64,
    position: u64,
    pass: u64,
    permutation: Permutation,
    rng: SplitMix64,
    skewed: Option<SkewedDraws>,
    /// With mixed I/O lengths on a pattern that visits each block once per
    /// pass (random, stride): the blocks this pass's I/Os covered, one bit
    /// each, so that no two of its I/Os overlap (as fio's random map).
    covered: Option<CoverMap>,
    /// Independent draws land on multiples of this many blocks (1: any).
    align: u64,
    /// The boundaries independent draws choose among: `blocks / align`,
    /// kept so that a draw costs no division.
    boundaries: u64,
    /// The blocks a pass visits ([`Pattern::pass_blocks`]).
    pass_len: u64,
}

/// The blocks a pass's I/Os covered, one bit each, and how many.
#[derive(Clone, Debug)]
struct CoverMap {
    words: Vec<u64>,
    count: u64,
    blocks: u64,
}

impl CoverMap {
    /// An empty map of `blocks` blocks; `None` when the memory cannot be had.
    fn new(blocks: u64) -> Option<CoverMap> {
        let words = usize::try_from(blocks.div_ceil(64)).ok()?;
        let mut map = CoverMap {
            words: Vec::new(),
            count: 0,
            blocks,
        };
        map.words.try_reserve_exact(words).ok()?;
        map.words.resize(words, 0);
        map.clear();
        Some(map)
    }

    fn is_covered(&self, block: u64) -> bool {
        self.words[(block / 64) as usize] & (1 << (block % 64)) != 0
    }

    fn cover(&mut self, first: u64, len: u64) {
        for block in first..first + len {
            self.words[(block / 64) as usize] |= 1 << (block % 64);
        }
        self.count += len;
    }

    /// `from` if it is free, else the next free block after it, wrapping
    /// to the start; the map must have a free block.
    fn next_free(&self, from: u64) -> u64 {
        if !self.is_covered(from) {
            return from;
        }
        let words = self.words.len();
        let first = (from / 64) as usize;
        // The bits after `from` in its word, then whole words, wrapping.
        let after = self.words[first] | (u64::MAX >> (63 - from % 64));
        if after != u64::MAX {
            return first as u64 * 64 + u64::from(after.trailing_ones());
        }
        (1..=words)
            .map(|step| (first + step) % words)
            .find(|&word| self.words[word] != u64::MAX)
            .map(|word| word as u64 * 64 + u64::from(self.words[word].trailing_ones()))
            .expect("a free block while the pass is not complete")
    }

    fn clear(&mut self) {
        self.words.fill(0);
        self.count = 0;
        // The bits past the last block count as covered, so that the search
        // for a free block never lands there.
        if self.blocks % 64 != 0 {
            if let Some(last) = self.words.last_mut() {
                *last = !((1u64 << (self.blocks % 64)) - 1);
            }
        }
    }
}

impl BlockSequence {
    /// A sequence over `blocks` blocks (at least one), seeded by `seed`.
    pub fn new(pattern: Pattern, blocks: u64, seed: u64) -> Self {
        assert!(blocks > 0, "a pattern needs at least one block");
        BlockSequence {
            pattern,
            blocks,
            seed,
            position: 0,
            pass: 0,
            permutation: Permutation::new(blocks, mix(seed)),
            rng: SplitMix64(mix(seed ^ 0x5EED)),
            skewed: match pattern {
                Pattern::Skewed(skew) => Some(SkewedDraws::new(skew, blocks, seed)),
                _ => None,
            },
            covered: None,
            align: 1,
            boundaries: blocks,
            pass_len: pattern.pass_blocks(blocks),
        }
    }

    /// The same sequence with its independent draws (uniform, skewed) on
    /// multiples of `align` blocks (fio's `blockalign`), over the file's
    /// whole boundaries; other patterns keep every block.
    pub fn aligned(mut self, align: u64) -> Self {
        let align = align.clamp(1, self.blocks);
        if align > 1 {
            self.align = align;
            self.boundaries = self.blocks / align;
            if let Pattern::Skewed(skew) = self.pattern {
                self.skewed = Some(SkewedDraws::new(skew, self.blocks / align, self.seed));
            }
        }
        self
    }

    /// Prepares the sequence for [`BlockSequence::next_extent`]: a pattern
    /// that visits each block once per pass in a scattered order (random,
    /// stride) gets its map of covered blocks, so that a pass still writes
    /// every block exactly once. `None` when the map's memory (one bit per
    /// block) cannot be had.
    pub fn for_extents(mut self) -> Option<Self> {
        if matches!(self.pattern, Pattern::Random | Pattern::Stride(_)) {
            self.covered = Some(CoverMap::new(self.blocks)?);
        }
        Some(self)
    }

    /// The next block of the current pass, or `None` when the pass is complete.
    #[inline]
    pub fn next_block(&mut self) -> Option<u64> {
        if self.position >= self.pass_len {
            return None;
        }
        let i = self.position;
        self.position += 1;
        Some(match self.pattern {
            Pattern::Seq => i,
            Pattern::Reverse => self.blocks - 1 - i,
            Pattern::Random => self.permutation.apply(i),
            Pattern::Uniform => self.rng.below(self.boundaries) * self.align,
            Pattern::Stride(stride) => stride_block(i, stride, self.blocks),
            Pattern::Skewed(_) => match &mut self.skewed {
                Some(draws) => draws.next_block() * self.align,
                None => unreachable!("a skewed sequence has its draws"),
            },
            Pattern::Bands { read, skip } => (i / read) * (read + skip) + i % read,
            Pattern::Listed(list) => list.block(i),
        })
    }

    /// The next I/O of a block-size split: its first block and its length
    /// in blocks, `want` or, where that would run past the end of the file
    /// (past its start, walking in reverse) or the pass, `fit(room)` blocks. The I/O
    /// takes the place of that many blocks in the pass, so a pass moves
    /// the file's size and a sequential one stays contiguous. `None` when
    /// the pass is complete.
    #[inline]
    pub fn next_extent(&mut self, want: u64, fit: impl FnOnce(u64) -> u64) -> Option<(u64, u64)> {
        if self.covered.is_some() {
            return self.next_uncovered_extent(want, fit);
        }
        let block = self.next_block()?;
        let reverse = self.pattern == Pattern::Reverse;
        // Walking in reverse, `block` is the last block of the I/O; and the
        // pass has `left` blocks' worth of I/O still to move, this one's
        // included.
        let left = self.blocks.saturating_sub(self.position - 1).max(1);
        let room = left.min(if reverse {
            block + 1
        } else {
            self.blocks - block
        });
        let len = if want <= room { want } else { fit(room) }.clamp(1, room);
        self.position = self.position.saturating_add(len - 1);
        Some((if reverse { block + 1 - len } else { block }, len))
    }

    /// [`BlockSequence::next_extent`] on a covering pattern: the order's
    /// next block starts the I/O or, when an earlier I/O of the pass
    /// covered it, the next block none did (fio's `axmap_next_free`); the
    /// I/O runs at most to the next covered block (fio's `axmap_set_nr`
    /// trims it the same way). Each I/O covers at least one new block, so
    /// the pass ends when every block is covered, each once.
    fn next_uncovered_extent(
        &mut self,
        want: u64,
        fit: impl FnOnce(u64) -> u64,
    ) -> Option<(u64, u64)> {
        if self.covered.as_ref()?.count == self.blocks {
            self.position = self.blocks;
            return None;
        }
        // A random pass draws its next offset anywhere, covered or not, as
        // fio does (`__get_next_rand_offset`: a uniform draw, then the next
        // free block): a covered draw then starts the I/O at the start of
        // a free run.
        let drawn = match self.pattern {
            Pattern::Random => {
                self.position += 1;
                self.rng.below(self.blocks)
            }
            _ => self.next_block()?,
        };
        let map = self.covered.as_mut()?;
        let block = map.next_free(drawn);
        // A length that would run past the file's end is drawn again as
        // one that fits (fio's `io_u_fits`); then the I/O stops at the
        // next covered block whatever its drawn length (`axmap_set_nr`),
        // so its length is any multiple of the smallest size. Keeping to
        // the split's sizes instead (the largest that fits the free run)
        // made three times fio's I/Os (issue "fio's job files as users
        // have them": 9,781 against fio 3.33's 3,134).
        let to_end = self.blocks - block;
        let want = if want <= to_end { want } else { fit(to_end) };
        let mut len = 1;
        while len < want && !map.is_covered(block + len) {
            len += 1;
        }
        map.cover(block, len);
        Some((block, len))
    }

    /// The blocks a pass visits.
    pub fn pass_len(&self) -> u64 {
        self.pass_len
    }

    /// Starts another pass; `random` uses a fresh permutation for each pass.
    pub fn start_next_pass(&mut self) {
        self.pass += 1;
        self.position = 0;
        if let Some(map) = &mut self.covered {
            map.clear();
        }
        if self.pattern == Pattern::Random {
            self.permutation = Permutation::new(self.blocks, mix(self.seed ^ mix(self.pass)));
        }
    }
}

/// Block `i` of a stride walk: multiples of the stride modulo the block count,
/// shifted by one each time the walk returns to its start, so that a pass
/// visits every block exactly once even when the stride shares a factor with it.
fn stride_block(i: u64, stride: u64, blocks: u64) -> u64 {
    let cycle_length = blocks / gcd(stride % blocks, blocks).max(1);
    let cycle = i / cycle_length;
    let step = i % cycle_length;
    ((step as u128 * stride as u128 + cycle as u128) % blocks as u128) as u64
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bands_visit_their_blocks_in_order_and_nothing_else() {
        let bands: Pattern = "bands:2/3".parse().unwrap();
        assert_eq!(bands, Pattern::Bands { read: 2, skip: 3 });
        assert_eq!(bands.to_string(), "bands:2/3");
        assert!(!bands.covers_every_block() && bands.in_order());
        // 12 blocks: 0 1 | 5 6 | 10 11.
        assert_eq!(one_pass(bands, 12, 1), [0, 1, 5, 6, 10, 11]);
        // 11 blocks: the last band cut at the end.
        assert_eq!(one_pass(bands, 11, 1), [0, 1, 5, 6, 10]);
        assert!("bands:0/3".parse::<Pattern>().is_err());
        assert!("bands:2".parse::<Pattern>().is_err());
    }

    #[test]
    fn aligned_draws_land_on_the_boundary_and_reach_every_one() {
        let zoned = "zoned:50/5:30/15:20/80".parse::<Pattern>().unwrap();
        for pattern in [Pattern::Uniform, zoned] {
            // 1001 blocks of 512 bytes, a 4 KiB boundary: 125 whole ones.
            let mut sequence = BlockSequence::new(pattern, 1001, 7).aligned(8);
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..1001 {
                let block = sequence.next_block().unwrap();
                assert_eq!(block % 8, 0, "{pattern}: {block}");
                assert!(block < 1000, "{pattern}: {block}");
                seen.insert(block);
            }
            assert!(seen.len() > 60, "{pattern}: {}", seen.len());
        }
        // A pattern that keeps the grid is not moved.
        let mut seq = BlockSequence::new(Pattern::Seq, 16, 1).aligned(8);
        assert_eq!(seq.next_block(), Some(0));
        assert_eq!(seq.next_block(), Some(1));
    }

    fn one_pass(pattern: Pattern, blocks: u64, seed: u64) -> Vec<u64> {
        let mut sequence = BlockSequence::new(pattern, blocks, seed);
        std::iter::from_fn(|| sequence.next_block()).collect()
    }

    fn is_permutation(blocks: u64, visited: &[u64]) -> bool {
        let mut sorted = visited.to_vec();
        sorted.sort_unstable();
        sorted == (0..blocks).collect::<Vec<_>>()
    }

    #[test]
    fn seq_and_reverse_are_ordered() {
        assert_eq!(one_pass(Pattern::Seq, 4, 0), vec![0, 1, 2, 3]);
        assert_eq!(one_pass(Pattern::Reverse, 4, 0), vec![3, 2, 1, 0]);
    }

    /// One pass of extents wanting `want` blocks each, the largest that
    /// fits otherwise being the room itself.
    fn extents(pattern: Pattern, blocks: u64, want: u64) -> Vec<(u64, u64)> {
        let mut sequence = BlockSequence::new(pattern, blocks, 3)
            .for_extents()
            .unwrap();
        std::iter::from_fn(|| sequence.next_extent(want, |room| room)).collect()
    }

    #[test]
    fn extents_stay_contiguous_in_order_and_a_pass_moves_the_file() {
        assert_eq!(extents(Pattern::Seq, 10, 4), vec![(0, 4), (4, 4), (8, 2)]);
        assert_eq!(
            extents(Pattern::Reverse, 10, 4),
            vec![(6, 4), (2, 4), (0, 2)]
        );
        for pattern in [Pattern::Random, Pattern::Stride(3)] {
            let mut pass = extents(pattern, 1000, 7);
            assert!(pass.iter().any(|&(_, len)| len == 7), "{pattern}: {pass:?}");
            pass.sort_unstable();
            let mut next = 0;
            for (start, len) in pass {
                assert_eq!(start, next, "{pattern}: a gap or an overlap");
                next = start + len;
            }
            assert_eq!(next, 1000, "{pattern}: every block once");
        }
        for pattern in [
            Pattern::Random,
            Pattern::Uniform,
            Pattern::Stride(3),
            "zipf:1.2".parse().unwrap(),
        ] {
            let pass = extents(pattern, 1000, 7);
            let moved: u64 = pass.iter().map(|&(_, len)| len).sum();
            assert_eq!(moved, 1000, "{pattern}: a pass moves the file's blocks");
            assert!(
                pass.iter()
                    .all(|&(start, len)| len >= 1 && start + len <= 1000),
                "{pattern}: an extent past the end"
            );
        }
    }

    #[test]
    fn stride_wraps_and_covers_every_block() {
        assert_eq!(
            one_pass(Pattern::Stride(2), 8, 0),
            vec![0, 2, 4, 6, 1, 3, 5, 7]
        );
        assert_eq!(
            one_pass(Pattern::Stride(3), 8, 0),
            vec![0, 3, 6, 1, 4, 7, 2, 5]
        );
        assert_eq!(one_pass(Pattern::Stride(8), 4, 0), vec![0, 1, 2, 3]);
    }

    #[test]
    fn random_is_shuffled_and_differs_between_seeds_and_passes() {
        let a = one_pass(Pattern::Random, 1000, 1);
        let b = one_pass(Pattern::Random, 1000, 2);
        assert!(is_permutation(1000, &a));
        assert_ne!(a, b);
        assert_ne!(a, (0..1000).collect::<Vec<_>>());
        assert_eq!(
            a,
            one_pass(Pattern::Random, 1000, 1),
            "same seed, same order"
        );

        let mut sequence = BlockSequence::new(Pattern::Random, 1000, 1);
        let first: Vec<_> = std::iter::from_fn(|| sequence.next_block()).collect();
        sequence.start_next_pass();
        let second: Vec<_> = std::iter::from_fn(|| sequence.next_block()).collect();
        assert!(is_permutation(1000, &second));
        assert_ne!(first, second);
    }

    #[test]
    fn uniform_repeats_some_blocks() {
        let visited = one_pass(Pattern::Uniform, 1000, 7);
        assert_eq!(visited.len(), 1000);
        let mut distinct = visited.clone();
        distinct.sort_unstable();
        distinct.dedup();
        // Expected distinct count is 1000 * (1 - 1/e) ~ 632.
        assert!((550..720).contains(&distinct.len()), "{}", distinct.len());
    }

    #[test]
    fn pattern_names_round_trip() {
        for text in [
            "seq",
            "reverse",
            "random",
            "uniform",
            "stride:16",
            "zipf:1.2",
            "zoned:60/10:40/90",
        ] {
            assert_eq!(text.parse::<Pattern>().unwrap().to_string(), text);
        }
        for bad in ["stride:0", "stride:", "stride:x", "sideways"] {
            let error = bad.parse::<Pattern>().unwrap_err();
            assert!(error.contains(bad), "{error}");
        }
    }

    proptest! {
        #[test]
        fn random_is_a_permutation(blocks in 1u64..3000, seed in any::<u64>()) {
            prop_assert!(is_permutation(blocks, &one_pass(Pattern::Random, blocks, seed)));
        }

        #[test]
        fn stride_is_a_permutation(blocks in 1u64..500, stride in 1u64..600) {
            prop_assert!(is_permutation(blocks, &one_pass(Pattern::Stride(stride), blocks, 0)));
        }

        #[test]
        fn uniform_stays_in_range(blocks in 1u64..u64::MAX / 2, seed in any::<u64>()) {
            let mut sequence = BlockSequence::new(Pattern::Uniform, blocks, seed);
            for _ in 0..64 {
                prop_assert!(sequence.next_block().unwrap() < blocks);
            }
        }
    }
}
