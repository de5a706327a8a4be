//! What a job's I/Os are, one after the other: each one's first block, length and direction drawn from its loop spec (the pattern's order, a size split, a direction mix), within its passes and its byte budget, and which blocks they touched where that is kept.
//!
//! A sequential mix walks the file once per direction, as fio keeps a
//! position per direction (`last_pos[ddir]`): reads from the start, writes
//! from the start, each on from where its last I/O ended. A pass ends when
//! the two together moved the file's size (fio's `io_size`), and each
//! starts again from the start on the next; a time-based run wraps each
//! at the file's end on its own.

use super::coverage::Touched;
use super::depth_search::DepthSearch;
use super::spec::{Io, LoopSpec};
use crate::plan::data::DataDraws;
use crate::plan::direction::{Direction, DirectionDraws};
use crate::plan::pattern::{BlockSequence, Pattern};
use crate::plan::split::{BlockSplit, SizeDraws};

/// Where, how long and which way a job's I/Os go, one after the other,
/// and which blocks they went to when the pattern may leave some untouched.
pub(in crate::run) struct Draws {
    /// The order of the job's blocks; a sequential mix's (or a mix with
    /// `--write-bs`) reads' alone, on the reads' grid.
    pub(in crate::run::io) blocks: BlockSequence,
    /// A sequential mix, or a mix whose writes have sizes of their own:
    /// the writes' walk beside the reads'.
    writes: Option<OwnWalks>,
    directions: DirectionDraws,
    /// `op trimwrite`: `Some` (the range just trimmed, its write next, or
    /// `None`: a new range and its trim next).
    trimmed: Option<Option<(u64, u64)>>,
    sizes: Option<SizeDraws>,
    /// With `--zbd`: the zones each I/O is placed in.
    zones: Option<super::zones::ZoneUse>,
    /// Whether `trimmed` or `zones` is set: the I/Os are placed apart
    /// from the plain draw (`next_apart`).
    apart: bool,
    pub(in crate::run::io) touched: Option<Touched>,
    /// With `--verify` on a mix: the blocks written (ramp included), so the
    /// check afterwards knows which blocks must name this run's writes and
    /// which the layout.
    pub(in crate::run::io) written: Option<Touched>,
    /// With `--verify-backlog`: the writes since the last check.
    pub(in crate::run::io) backlog: Option<super::verify::Backlog>,
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

/// A mix whose directions walk the file each on its own (as fio keeps a
/// position, and a block alignment, per direction).
struct OwnWalks {
    /// The writes' walk, on the writes' grid.
    walk: BlockSequence,
    /// The writes' own sizes (`--write-bs`); `None`: the reads' draws.
    sizes: Option<SizeDraws>,
    /// Per direction (read, write): the blocks of the job's grid in one
    /// block of the direction's walk.
    scale: [u64; 2],
    /// Blocks of the job's grid the pass still has to move, both
    /// directions together, of `pass`.
    left: u64,
    pass: u64,
}

impl Draws {
    /// A job's draws as its loop spec says: its blocks in the pattern's
    /// order, its directions, sizes and data from the spec's seed, and the
    /// maps of the blocks it touches where it needs them.
    pub(in crate::run::io) fn new(spec: &LoopSpec<'_>) -> Draws {
        // Each direction's grid, in blocks of the job's: its smallest size.
        let scale =
            |split: Option<BlockSplit>| split.map_or(1, |s| (s.smallest() / spec.bs).max(1));
        let own_sizes = spec.write_sizes.filter(|_| spec.directions.mixed());
        let read_scale = if own_sizes.is_some() {
            scale(spec.sizes)
        } else {
            1
        };
        let walk = |blocks: u64, seed: u64, split: bool| {
            let sequence =
                BlockSequence::new(spec.pattern, blocks.max(1), seed).aligned(spec.align_blocks);
            match split {
                // Without its map of covered blocks (no memory for it), a split's
                // random pass may overlap its own I/Os.
                true => sequence.clone().for_extents().unwrap_or(sequence),
                false => sequence,
            }
        };
        let writes = match own_sizes {
            Some(writes) => {
                let write_scale = scale(Some(writes));
                Some(OwnWalks {
                    walk: walk(spec.blocks / write_scale, spec.seed ^ 0x57A1_7E5E, true),
                    sizes: Some(writes.draws(spec.seed ^ 0x57A1_7E5E)),
                    scale: [read_scale, write_scale],
                    left: spec.blocks,
                    pass: spec.blocks,
                })
            }
            // A trimwrite's writes follow its trims: one walk.
            None => {
                (spec.pattern == Pattern::Seq && spec.directions.mixed() && !spec.trim_then_write)
                    .then(|| OwnWalks {
                        walk: BlockSequence::new(spec.pattern, spec.blocks, spec.seed),
                        sizes: None,
                        scale: [1, 1],
                        left: spec.blocks,
                        pass: spec.blocks,
                    })
            }
        };
        Draws {
            blocks: walk(spec.blocks / read_scale, spec.seed, spec.sizes.is_some()),
            writes,
            directions: spec.directions.draws(spec.seed),
            trimmed: spec.trim_then_write.then_some(None),
            zones: None,
            apart: spec.trim_then_write,
            sizes: spec.sizes.map(|split| split.draws(spec.seed)),
            touched: Touched::for_pattern(spec.pattern, spec.blocks),
            written: spec
                .verify
                .filter(|_| spec.verify_tracks_writes)
                .and_then(|_| Touched::new(spec.blocks)),
            backlog: spec
                .verify
                .filter(|_| spec.verify_backlog > 0)
                .map(|_| super::verify::Backlog::new(spec.verify_backlog)),
            data: spec.data.draws(spec.seed, spec.data_share()),
            passes_after: spec.passes.saturating_sub(1),
            endless: true,
            blocks_left: u64::MAX,
            search: spec
                .latency_target
                .map(|target| DepthSearch::new(target, spec.iodepth)),
        }
    }

    /// The next I/O, in `direction` when a rate per direction says which
    /// is due (else drawn); `None` at the end of the last pass, where a
    /// time-based phase starts the next one (`endless`).
    #[inline(always)]
    pub(in crate::run) fn next(&mut self, due: Option<Direction>) -> Option<Io> {
        // One test per I/O for the kinds of work that place I/Os apart.
        if self.apart {
            return self.next_apart(due);
        }
        self.next_drawn(due)
    }

    /// With `--zbd` or `op trimwrite`, the draws settle these zones'
    /// places and pairs: its write after each trim, on its range; each
    /// I/O where the zones send it.
    #[inline(never)]
    fn next_apart(&mut self, due: Option<Direction>) -> Option<Io> {
        if let Some(trimmed) = &mut self.trimmed {
            // The write of the range just trimmed: counted with its trim.
            if let Some((block, blocks)) = trimmed.take() {
                self.directions.next();
                return Some(Io {
                    block,
                    blocks,
                    direction: Direction::Write,
                    zone_reset: false,
                });
            }
            let trim = self.next_drawn(Some(Direction::Trim))?;
            self.trimmed = Some(Some((trim.block, trim.blocks)));
            return Some(trim);
        }
        let io = self.next_drawn(due)?;
        match &self.zones {
            Some(zones) => zones.place(io),
            None => Some(io),
        }
    }

    /// The next I/O as the loop spec draws it.
    #[inline(always)]
    fn next_drawn(&mut self, due: Option<Direction>) -> Option<Io> {
        // Drawn whether or not a rate chooses, so the draws stay the same.
        let drawn = self.directions.next();
        let direction = due.unwrap_or(drawn);
        let (block, blocks) = match self.extent(direction) {
            Some(extent) => extent,
            None if self.endless => {
                self.start_next_pass();
                self.extent(direction)?
            }
            None if self.passes_after > 0 => {
                self.passes_after -= 1;
                self.start_next_pass();
                self.extent(direction)?
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
            direction,
            zone_reset: false,
        })
    }

    /// With `--zbd`: the zones this job's I/Os are placed in.
    pub(in crate::run::io) fn zones(&self) -> Option<&super::zones::ZoneUse> {
        self.zones.as_ref()
    }

    /// Places every I/O in `zones` (`--zbd`).
    pub(in crate::run::io) fn place_in(&mut self, zones: super::zones::ZoneUse) {
        self.zones = Some(zones);
        self.apart = true;
        // The blocks drawn are not the ones the zones send the I/Os to: no
        // coverage is counted rather than the draws'.
        self.touched = None;
    }

    /// Starts every walk's next pass.
    fn start_next_pass(&mut self) {
        self.blocks.start_next_pass();
        if let Some(own) = &mut self.writes {
            own.walk.start_next_pass();
            own.left = own.pass;
        }
    }

    /// A timed region that starts again (a latency target's final window):
    /// a new pass, and the bytes of `--io-size` counted afresh.
    pub(in crate::run::io) fn restart_budget(&mut self, spec: &LoopSpec<'_>) {
        self.start_next_pass();
        if let Some(touched) = &mut self.touched {
            touched.clear();
        }
        if let Some(budget) = spec.io_blocks {
            self.blocks_left = budget;
        }
    }

    /// The next I/O's first block and length in blocks, in this pass, on
    /// `direction`'s walk.
    #[inline(always)]
    fn extent(&mut self, direction: Direction) -> Option<(u64, u64)> {
        let Some(own) = &mut self.writes else {
            return next_extent(&mut self.blocks, &mut self.sizes);
        };
        // Walks of their own: the pass ends on the two directions' total.
        if own.left == 0 && !self.endless {
            return None;
        }
        let (walk, sizes, scale) = match direction {
            Direction::Write => (
                &mut own.walk,
                match &mut own.sizes {
                    Some(sizes) => sizes,
                    None => match &mut self.sizes {
                        Some(sizes) => sizes,
                        None => {
                            return one_block(
                                &mut own.walk,
                                own.scale[1],
                                &mut own.left,
                                self.endless,
                                own.pass,
                            );
                        }
                    },
                },
                own.scale[1],
            ),
            _ => match &mut self.sizes {
                Some(sizes) => (&mut self.blocks, sizes, own.scale[0]),
                None => {
                    return one_block(
                        &mut self.blocks,
                        own.scale[0],
                        &mut own.left,
                        self.endless,
                        own.pass,
                    );
                }
            },
        };
        let (block, blocks) = match walk.next_extent(sizes.next(), |room| sizes.fit(room)) {
            Some(extent) => extent,
            // This direction's walk reached the file's end: it wraps.
            None => {
                walk.start_next_pass();
                walk.next_extent(sizes.next(), |room| sizes.fit(room))?
            }
        };
        let (block, blocks) = (block * scale, blocks * scale);
        own.left = own.left.saturating_sub(blocks);
        if own.left == 0 && self.endless {
            own.left = own.pass;
        }
        Some((block, blocks))
    }
}

/// The next block of `walk` (wrapping at its end), in blocks of the job's
/// grid (`scale` to a block of the walk's), counted off `left`, which
/// starts again at `pass` when `endless`.
#[inline(always)]
fn one_block(
    walk: &mut BlockSequence,
    scale: u64,
    left: &mut u64,
    endless: bool,
    pass: u64,
) -> Option<(u64, u64)> {
    let block = match walk.next_block() {
        Some(block) => block,
        None => {
            walk.start_next_pass();
            walk.next_block()?
        }
    };
    *left = left.saturating_sub(scale);
    if *left == 0 && endless {
        *left = pass;
    }
    Some((block * scale, scale))
}

/// `walk`'s next I/O: one block, or a length `sizes` draws.
#[inline(always)]
fn next_extent(walk: &mut BlockSequence, sizes: &mut Option<SizeDraws>) -> Option<(u64, u64)> {
    match sizes {
        None => walk.next_block().map(|block| (block, 1)),
        Some(sizes) => {
            let want = sizes.next();
            walk.next_extent(want, |room| sizes.fit(room))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::direction::DirectionMix;
    use std::sync::atomic::AtomicUsize;

    /// `op trimwrite`: each range trimmed, then written, the pair counted
    /// once against `--io-size`, in order and at random, with a split.
    #[test]
    fn a_trimwrite_writes_each_range_it_trimmed_next() {
        let interrupt = AtomicUsize::new(0);
        for pattern in [Pattern::Seq, Pattern::Random] {
            for sizes in [None, Some("4k/50:16k/50".parse::<BlockSplit>().unwrap())] {
                let spec = LoopSpec {
                    directions: DirectionMix::TRIM_THEN_WRITE,
                    trim_then_write: true,
                    blocks: 64,
                    pattern,
                    sizes,
                    ..crate::run::io::timing::tests::spec(&interrupt)
                };
                let mut draws = Draws::new(&spec);
                draws.endless = false;
                draws.blocks_left = 32;
                let mut trimmed = 0;
                while let Some(trim) = draws.next(None) {
                    assert_eq!(trim.direction, Direction::Trim, "{pattern:?}");
                    let write = draws.next(None).expect("a trim's write");
                    assert_eq!(write.direction, Direction::Write);
                    assert_eq!((write.block, write.blocks), (trim.block, trim.blocks));
                    trimmed += trim.blocks;
                }
                assert_eq!(
                    trimmed, 32,
                    "{pattern:?} {sizes:?}: the budget, trims alone"
                );
            }
        }
    }
}
