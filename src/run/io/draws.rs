//! What a job's I/Os are, one after the other: each one's first block, length and direction drawn from its loop spec (the pattern's order, a size split, a direction mix), within its passes and its byte budget, and which blocks they touched where that is kept.

use super::coverage::Touched;
use super::depth_search::DepthSearch;
use super::spec::LoopSpec;
use crate::plan::data::DataDraws;
use crate::plan::direction::{Direction, DirectionDraws};
use crate::plan::pattern::BlockSequence;
use crate::plan::split::SizeDraws;

/// Where, how long and which way a job's I/Os go, one after the other,
/// and which blocks they went to when the pattern may leave some untouched.
pub(in crate::run) struct Draws {
    pub(in crate::run::io) blocks: BlockSequence,
    directions: DirectionDraws,
    sizes: Option<SizeDraws>,
    pub(in crate::run::io) touched: Option<Touched>,
    /// With `--verify` on a mix: the blocks written (ramp included), so the
    /// check afterwards knows which blocks must name this run's writes and
    /// which the layout.
    pub(in crate::run::io) written: Option<Touched>,
    /// How each write is stamped (`--data`).
    pub(in crate::run::io) data: DataDraws,
    /// Passes still to start after this one (`--loops`), checked only at
    /// a pass's end.
    pub(in crate::run::io) passes_after: u64,
    /// Whether passes repeat until a deadline (the ramp, a runtime).
    pub(in crate::run::io) endless: bool,
    /// Blocks (of `bs`) still to move in the timed region (`--io-size`);
    /// `u64::MAX`: no such budget.
    pub(in crate::run::io) blocks_left: u64,
    /// With a latency target: how many I/Os may be in flight, which the
    /// search moves window by window.
    pub(in crate::run) search: Option<DepthSearch>,
}

/// One I/O as drawn: where, how long, which way.
#[derive(Clone, Copy, Debug)]
pub(in crate::run) struct Io {
    /// Its first block (of `bs` bytes).
    pub(in crate::run) block: u64,
    /// Its length in blocks: 1 unless a block-size split drew more.
    pub(in crate::run) blocks: u64,
    pub(in crate::run) direction: Direction,
}

impl Draws {
    /// A job's draws as its loop spec says: its blocks in the pattern's
    /// order, its directions, sizes and data from the spec's seed, and the
    /// maps of the blocks it touches where it needs them.
    pub(in crate::run::io) fn new(spec: &LoopSpec<'_>) -> Draws {
        Draws {
            blocks: match spec.sizes {
                // Without its map of covered blocks (no memory for it), a split's
                // random pass may overlap its own I/Os.
                Some(_) => {
                    let sequence = BlockSequence::new(spec.pattern, spec.blocks, spec.seed)
                        .aligned(spec.align_blocks);
                    sequence.clone().for_extents().unwrap_or(sequence)
                }
                None => BlockSequence::new(spec.pattern, spec.blocks, spec.seed)
                    .aligned(spec.align_blocks),
            },
            directions: spec.directions.draws(spec.seed),
            sizes: spec.sizes.map(|split| split.draws(spec.seed)),
            touched: Touched::for_pattern(spec.pattern, spec.blocks),
            written: spec
                .verify
                .filter(|_| spec.directions.mixed())
                .and_then(|_| Touched::new(spec.blocks)),
            data: spec.data.draws(spec.seed, spec.data_share()),
            passes_after: spec.passes.saturating_sub(1),
            endless: true,
            blocks_left: u64::MAX,
            search: spec
                .latency_target
                .map(|target| DepthSearch::new(target, spec.iodepth)),
        }
    }

    /// The next I/O; `None` at the end of the last pass, where a
    /// time-based phase starts the next one (`endless`).
    #[inline(always)]
    pub(in crate::run) fn next(&mut self) -> Option<Io> {
        let (block, blocks) = match self.extent() {
            Some(extent) => extent,
            None if self.endless => {
                self.blocks.start_next_pass();
                self.extent()?
            }
            None if self.passes_after > 0 => {
                self.passes_after -= 1;
                self.blocks.start_next_pass();
                self.extent()?
            }
            None => return None,
        };
        // One subtraction per I/O; a split's last I/O may be longer than
        // the budget left: cut to it.
        let blocks = match self.blocks_left.checked_sub(blocks) {
            Some(left) => {
                self.blocks_left = left;
                blocks
            }
            None if self.blocks_left > 0 => std::mem::take(&mut self.blocks_left),
            None => return None,
        };
        if let Some(touched) = &mut self.touched {
            for block in block..block + blocks {
                touched.mark(block);
            }
        }
        Some(Io {
            block,
            blocks,
            direction: self.directions.next(),
        })
    }

    /// A timed region that starts again (a latency target's final window):
    /// a new pass, and the bytes of `--io-size` counted afresh.
    pub(in crate::run::io) fn restart_budget(&mut self, spec: &LoopSpec<'_>) {
        self.blocks.start_next_pass();
        if let Some(touched) = &mut self.touched {
            touched.clear();
        }
        if let Some(budget) = spec.io_blocks {
            self.blocks_left = budget;
        }
    }

    /// The next I/O's first block and length in blocks, in this pass.
    #[inline(always)]
    fn extent(&mut self) -> Option<(u64, u64)> {
        match &mut self.sizes {
            None => self.blocks.next_block().map(|block| (block, 1)),
            Some(sizes) => {
                let want = sizes.next();
                self.blocks.next_extent(want, |room| sizes.fit(room))
            }
        }
    }
}
