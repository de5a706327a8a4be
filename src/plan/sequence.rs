//! A fixed list of blocks visited in turn (`sequence:2:0:1`, fio 3.42's `random_distribution=sequence:2,0,1`): repeated as it is, or advanced by its length after each round (`random_sequence_stride=1`), as fio's `__get_next_rand_offset_sequence` walks it.

use std::fmt;

/// The most blocks a list holds (fio's `FIO_SEQ_MAX`).
pub const MAX_BLOCKS: usize = 64;

/// The blocks, in the order visited, and whether each round starts one
/// list's length further on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BlockList {
    count: u8,
    blocks: [u32; MAX_BLOCKS],
    /// fio's `random_sequence_stride`: round r visits `r * count + block`.
    advancing: bool,
}

impl BlockList {
    /// Parses `2:0:1` or fio's `2,0,1` (block numbers, whole and not
    /// negative, as fio's `parse_sequence_distribution` takes them; iolab
    /// writes `:`, since a comma separates a sweep's values).
    pub fn parse(list: &str, advancing: bool) -> Result<BlockList, String> {
        let mut parsed = BlockList {
            count: 0,
            blocks: [0; MAX_BLOCKS],
            advancing,
        };
        for element in list.split([',', ':']) {
            let element = element.trim();
            let block = element
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| element.parse::<u32>().ok())
                .flatten()
                .ok_or_else(|| format!("'{element}' is not a block number"))?;
            let slot = parsed
                .blocks
                .get_mut(usize::from(parsed.count))
                .ok_or_else(|| format!("a sequence holds at most {MAX_BLOCKS} blocks"))?;
            *slot = block;
            parsed.count += 1;
        }
        Ok(parsed)
    }

    fn blocks(&self) -> &[u32] {
        &self.blocks[..usize::from(self.count)]
    }

    /// The largest block the list names.
    pub fn largest(&self) -> u64 {
        self.blocks().iter().copied().max().map_or(0, u64::from)
    }

    /// The block of the `i`-th I/O.
    #[inline]
    pub fn block(&self, i: u64) -> u64 {
        let count = u64::from(self.count.max(1));
        let base = if self.advancing {
            (i / count) * count
        } else {
            0
        };
        base + u64::from(self.blocks[(i % count) as usize])
    }

    /// How many I/Os a pass over `blocks` blocks makes: as many as blocks
    /// for a repeated list (each pass moves the file's size, as fio's
    /// size-bound job does); an advancing list's pass ends at its first
    /// block past the file's end, where fio ends the job.
    pub fn pass_len(&self, blocks: u64) -> u64 {
        if !self.advancing {
            return blocks;
        }
        let count = u64::from(self.count.max(1));
        self.blocks()
            .iter()
            .enumerate()
            .map(|(index, &block)| {
                // The first round whose `round * count + block` lies past the end.
                let round = blocks.saturating_sub(u64::from(block)).div_ceil(count);
                round * count + index as u64
            })
            .min()
            .unwrap_or(0)
    }
}

impl fmt::Display for BlockList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.blocks().iter().map(u32::to_string).collect();
        let name = if self.advancing {
            "sequence-stride"
        } else {
            "sequence"
        };
        write!(f, "{name}:{}", list.join(":"))
    }
}

impl BlockList {
    /// Whether each round starts one list's length further on.
    pub fn advancing(&self) -> bool {
        self.advancing
    }

    /// The list as fio writes it, `2,0,1`.
    pub fn fio_list(&self) -> String {
        let list: Vec<String> = self.blocks().iter().map(u32::to_string).collect();
        list.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visits(list: &BlockList, blocks: u64) -> Vec<u64> {
        (0..list.pass_len(blocks)).map(|i| list.block(i)).collect()
    }

    /// fio's own example, `sequence:2,0,1` over 12 blocks: repeated, and
    /// advanced by three blocks a round until a block lies past the end.
    #[test]
    fn a_list_repeats_or_advances_as_fio_walks_it() {
        let repeated = BlockList::parse("2,0,1", false).unwrap();
        assert_eq!(&visits(&repeated, 6)[..], &[2, 0, 1, 2, 0, 1]);
        let advancing = BlockList::parse("2, 0 ,1", true).unwrap();
        assert_eq!(
            visits(&advancing, 12),
            vec![2, 0, 1, 5, 3, 4, 8, 6, 7, 11, 9, 10]
        );
        // 11 blocks: round 3's first block (11) is past the end.
        assert_eq!(visits(&advancing, 11), vec![2, 0, 1, 5, 3, 4, 8, 6, 7]);
        // A block beyond the list's length: round 1 gives 7 and 2, then 9 ≥ 8.
        let wide = BlockList::parse("5,0", true).unwrap();
        assert_eq!(visits(&wide, 8), vec![5, 0, 7, 2]);
        assert_eq!(advancing.to_string(), "sequence-stride:2:0:1");
        assert_eq!(BlockList::parse("2:0:1", true), Ok(advancing));
    }

    #[test]
    fn a_list_fio_refuses_is_refused() {
        assert!(BlockList::parse("2,-1", false).is_err());
        assert!(BlockList::parse("2,,1", false).is_err());
        assert!(BlockList::parse("", false).is_err());
        let long = vec!["1"; MAX_BLOCKS + 1].join(",");
        assert!(BlockList::parse(&long, false).is_err());
        assert!(BlockList::parse(&vec!["1"; MAX_BLOCKS].join(","), false).is_ok());
    }
}
