//! Data verification (`--verify`): a self-describing header and a CRC-32C in every written block, and the untimed pass that checks them.
//!
//! Header, at the start of each block, little-endian:
//! `IOLABVF1` magic (8 bytes), offset (8), run tag (8), sequence (8), seed (8),
//! block size (8), CRC-32C (4), zero padding (4). The CRC covers the whole
//! block with its own field zeroed; the rest of the block is the job's seeded
//! pattern. `crc32c` uses the SSE 4.2 / ARMv8 instruction where the CPU has it.

use super::buffer::AlignedBuffer;
use rustix::fd::BorrowedFd;
use std::io;

/// The header's length, bytes.
pub const HEADER_BYTES: usize = crate::plan::VERIFY_HEADER_BYTES;
const MAGIC: &[u8; 8] = b"IOLABVF1";
const CRC_AT: usize = 48;
const SIZE_AT: usize = 40;

/// What identifies a block's writer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The block's offset in the file.
    pub offset: u64,
    /// A tag of the run that wrote it (FNV-1a of its run id).
    pub run: u64,
    /// The writing job's count of writes so far.
    pub sequence: u64,
    /// The job's data seed.
    pub seed: u64,
    /// Bytes in the block.
    pub block_size: u64,
}

/// The tag of a run id.
pub fn run_tag(run_id: &str) -> u64 {
    run_id.bytes().fold(0xcbf2_9ce4_8422_2325, |h: u64, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The tag a layout seals into each block before a mix that verifies
/// (`run_tag("layout")`), so the check afterwards tells a block the mix
/// wrote from one it left as laid out.
pub const LAYOUT_TAG: u64 = 0x9c4f_784a_a5ce_135f;

/// Which blocks a mix wrote, and so which writer each block must name: the
/// mix's writes (`run`) or the layout before it ([`LAYOUT_TAG`]). A write
/// the device lost leaves a block that is whole but names the layout.
#[derive(Clone, Copy)]
pub struct Writers<'a> {
    /// One bit per block of the region, set for the blocks written.
    pub written: &'a super::coverage::Touched,
    /// The tag the writes carry.
    pub run: u64,
    /// What the blocks not written hold: a mix's, the layout's seal; a
    /// write that skips blocks (a strided or drawn pattern, a runtime, an
    /// io_size) on a file laid out without seals, nothing to check, so they
    /// are not read (fio verifies what it wrote).
    pub unwritten: Unwritten,
}

/// What a verified region's blocks that were not written hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unwritten {
    /// The layout's seal, checked.
    Layout,
    /// Nothing known: not read.
    Unchecked,
}

/// What a verification pass checks: `len` bytes from `base` in blocks of
/// `bs`, read into buffers aligned to `alignment`; after a mix, which
/// writer each block must name.
#[derive(Clone, Copy)]
pub struct BlockCheck<'a> {
    /// Where the region starts, bytes.
    pub base: u64,
    /// Its length, bytes.
    pub len: u64,
    /// The block size the writes sealed.
    pub bs: u64,
    /// The alignment of the read buffers (O_DIRECT's).
    pub alignment: usize,
    /// After a mix: the blocks it wrote.
    pub writers: Option<Writers<'a>>,
}

fn crc(block: &[u8]) -> u32 {
    let head = crc32c::crc32c(&block[..CRC_AT]);
    let zero = crc32c::crc32c_append(head, &[0u8; 4]);
    crc32c::crc32c_append(zero, &block[CRC_AT + 4..])
}

/// Writes `header` and the block's CRC into `block` (at least [`HEADER_BYTES`] long).
#[inline]
pub fn seal(block: &mut [u8], header: &Header) {
    block[..8].copy_from_slice(MAGIC);
    for (index, value) in [header.offset, header.run, header.sequence, header.seed]
        .iter()
        .enumerate()
    {
        block[8 + index * 8..16 + index * 8].copy_from_slice(&value.to_le_bytes());
    }
    block[SIZE_AT..SIZE_AT + 8].copy_from_slice(&header.block_size.to_le_bytes());
    let sum = crc(block);
    block[CRC_AT..CRC_AT + 4].copy_from_slice(&sum.to_le_bytes());
}

/// Why a block does not verify.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// No iolab header: never written with --verify (or overwritten by something else).
    NoHeader,
    /// The header names another offset (a misdirected write, or a read of the wrong place).
    WrongOffset(Header),
    /// The CRC does not match the content.
    BadChecksum(Header),
    /// A whole block by the wrong writer: the layout's where the mix wrote
    /// (a lost write), or a write's where it did not.
    WrongWriter {
        /// The block's header.
        header: Header,
        /// Whether the mix wrote this block.
        written: bool,
    },
    /// A block read back right after its write (`--verify-backlog`) holds
    /// another write's: the write was lost, or landed late.
    Stale {
        /// The block's header.
        header: Header,
        /// The sequence the write sealed.
        expected: u64,
    },
}

fn field(block: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(block[at..at + 8].try_into().expect("eight bytes"))
}

/// Checks one block read from `offset`.
pub fn check_block(block: &[u8], offset: u64) -> Result<Header, Mismatch> {
    if block.len() < HEADER_BYTES || &block[..8] != MAGIC {
        return Err(Mismatch::NoHeader);
    }
    let header = Header {
        offset: field(block, 8),
        run: field(block, 16),
        sequence: field(block, 24),
        seed: field(block, 32),
        block_size: field(block, SIZE_AT),
    };
    let stored = u32::from_le_bytes(block[CRC_AT..CRC_AT + 4].try_into().expect("four bytes"));
    if stored != crc(block) {
        return Err(Mismatch::BadChecksum(header));
    }
    if header.offset != offset {
        return Err(Mismatch::WrongOffset(header));
    }
    Ok(header)
}

/// The outcome of a verification pass over one file.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Verified {
    /// Blocks checked.
    pub blocks: u64,
    /// Blocks that failed.
    pub bad_blocks: u64,
    /// The first failures, as `offset N: …` lines (at most 10).
    pub first_mismatches: Vec<String>,
    /// How long the pass took, ns (never part of any throughput).
    pub elapsed_ns: u64,
}

/// Reads the region `check` names of `fd` and checks every block.
pub fn verify_file(fd: BorrowedFd<'_>, check: &BlockCheck<'_>) -> io::Result<Verified> {
    verify_blocks(
        |block, offset| Ok(rustix::io::pread(fd, block, offset)?),
        check,
    )
}

/// Checks every block of the region `check` names, each read with
/// `read(buffer, offset)` (which returns the bytes read, 0 at the end).
pub fn verify_blocks(
    mut read: impl FnMut(&mut [u8], u64) -> io::Result<usize>,
    check: &BlockCheck<'_>,
) -> io::Result<Verified> {
    let (base, size, bs) = (check.base, check.len, check.bs);
    let start = crate::clock::now_ns();
    let mut buffer = AlignedBuffer::new(bs as usize, check.alignment.max(4096));
    let mut verified = Verified::default();
    let mut offset = base;
    while offset + bs <= base + size {
        let index = (offset - base) / bs;
        if let Some(writers) = check.writers
            && writers.unwritten == Unwritten::Unchecked
            && !writers.written.contains(index)
        {
            offset += bs;
            continue;
        }
        let block = buffer.as_mut_slice();
        let mut done = 0;
        while done < block.len() {
            let n = read(&mut block[done..], offset + done as u64)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("file ends at {}", offset + done as u64),
                ));
            }
            done += n;
        }
        verified.blocks += 1;
        if let Err(mismatch) =
            check_block(block, offset).and_then(|header| check_writer(header, index, check.writers))
        {
            verified.bad_blocks += 1;
            if verified.first_mismatches.len() < 10 {
                verified.first_mismatches.push(describe(offset, &mismatch));
            }
        }
        offset += bs;
    }
    verified.elapsed_ns = crate::clock::now_ns().saturating_sub(start);
    Ok(verified)
}

/// fio's `verify_backlog` (`--verify-backlog N`): the job's last N writes,
/// read back and checked once there are N, inside the timed region.
#[derive(Debug)]
pub(in crate::run) struct Backlog {
    every: usize,
    /// Each write since the last check: offset, length, and the sequence
    /// its blocks were sealed with.
    pending: Vec<(u64, u64, u64)>,
    /// Blocks checked so far.
    pub(in crate::run) checked: u64,
}

impl Backlog {
    /// A backlog of `every` writes (at most `plan::MAX_VERIFY_BACKLOG`,
    /// which the plan's check keeps), its memory taken now.
    pub(in crate::run) fn new(every: u64) -> Backlog {
        let every = (every as usize).max(1);
        Backlog {
            every,
            pending: Vec::with_capacity(every),
            checked: 0,
        }
    }

    /// Notes a write of `len` bytes at `offset` sealed with `sequence`;
    /// whether the backlog is full, its check due.
    #[inline]
    pub(in crate::run) fn wrote(&mut self, offset: u64, len: u64, sequence: u64) -> bool {
        self.pending.push((offset, len, sequence));
        self.pending.len() >= self.every
    }

    /// Reads back each write noted with `read` into `buffer` (as long as
    /// the longest write) and checks its blocks of `bs`: offset, run tag and
    /// sequence; the first failure as (offset, length, error) of the read.
    pub(in crate::run) fn check(
        &mut self,
        mut read: impl FnMut(&mut [u8], u64) -> io::Result<usize>,
        buffer: &mut [u8],
        bs: u64,
        run: u64,
    ) -> Result<(), (u64, u64, io::Error)> {
        for (offset, len, sequence) in self.pending.drain(..) {
            let data = &mut buffer[..len as usize];
            match read(data, offset) {
                Ok(n) if n as u64 == len => {}
                Ok(n) => {
                    let short = format!("read back {n} of {len} bytes");
                    return Err((
                        offset,
                        len,
                        io::Error::new(io::ErrorKind::UnexpectedEof, short),
                    ));
                }
                Err(error) => return Err((offset, len, error)),
            }
            for (index, block) in data.chunks_exact(bs as usize).enumerate() {
                let at = offset + index as u64 * bs;
                let checked = check_block(block, at).and_then(|header| {
                    if header.run != run || header.sequence != sequence {
                        Err(Mismatch::Stale {
                            header,
                            expected: sequence,
                        })
                    } else {
                        Ok(header)
                    }
                });
                if let Err(mismatch) = checked {
                    let error = io::Error::new(io::ErrorKind::InvalidData, describe(at, &mismatch));
                    return Err((at, bs, error));
                }
                self.checked += 1;
            }
        }
        Ok(())
    }
}

/// Whether a whole block names the writer it must: after a mix, this run's
/// writes for the blocks it wrote and the layout for the others.
fn check_writer(header: Header, index: u64, writers: Option<Writers<'_>>) -> Result<(), Mismatch> {
    let Some(writers) = writers else {
        return Ok(());
    };
    let written = writers.written.contains(index);
    // Only a written block is read when the others hold nothing known.
    let expected = if written || writers.unwritten == Unwritten::Unchecked {
        writers.run
    } else {
        LAYOUT_TAG
    };
    if header.run == expected {
        Ok(())
    } else {
        Err(Mismatch::WrongWriter { header, written })
    }
}

fn describe(offset: u64, mismatch: &Mismatch) -> String {
    let show = |h: &Header| {
        format!(
            "offset {}, sequence {}, seed {}, run tag {:016x}, block size {}",
            h.offset, h.sequence, h.seed, h.run, h.block_size
        )
    };
    match mismatch {
        Mismatch::NoHeader => format!("offset {offset}: expected an iolab header, found none"),
        Mismatch::WrongOffset(h) => format!(
            "offset {offset}: expected a block for offset {offset}, found one for {}",
            show(h)
        ),
        Mismatch::BadChecksum(h) => format!(
            "offset {offset}: checksum mismatch in the block headed {}",
            show(h)
        ),
        Mismatch::Stale { header, expected } => format!(
            "offset {offset}: expected the write of sequence {expected}, found an older one (a lost write): {}",
            show(header)
        ),
        Mismatch::WrongWriter {
            header,
            written: true,
        } => format!(
            "offset {offset}: the mix wrote this block, but it holds the layout's (a lost write): {}",
            show(header)
        ),
        Mismatch::WrongWriter {
            header,
            written: false,
        } => format!(
            "offset {offset}: the mix did not write this block, but it holds a write's: {}",
            show(header)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed(offset: u64) -> Vec<u8> {
        let mut block = vec![7u8; 4096];
        seal(
            &mut block,
            &Header {
                offset,
                run: run_tag("abc"),
                sequence: 3,
                seed: 9,
                block_size: 4096,
            },
        );
        block
    }

    #[test]
    fn a_sealed_block_verifies_and_every_kind_of_damage_is_named() {
        let block = sealed(8192);
        assert_eq!(check_block(&block, 8192).unwrap().sequence, 3);
        assert!(
            matches!(check_block(&block, 4096), Err(Mismatch::WrongOffset(h)) if h.offset == 8192)
        );
        let mut flipped = block.clone();
        flipped[2000] ^= 1;
        assert!(matches!(
            check_block(&flipped, 8192),
            Err(Mismatch::BadChecksum(_))
        ));
        assert_eq!(check_block(&[0u8; 4096], 0), Err(Mismatch::NoHeader));
    }

    #[test]
    fn after_a_mix_each_block_must_name_its_writer() {
        assert_eq!(run_tag("layout"), LAYOUT_TAG);
        let mut written = crate::run::io::coverage::Touched::new(2).unwrap();
        written.mark(1);
        let writers = Some(Writers {
            written: &written,
            run: run_tag("abc"),
            unwritten: Unwritten::Layout,
        });
        let by_run = check_block(&sealed(0), 0).unwrap();
        assert!(matches!(
            check_writer(by_run, 0, writers),
            Err(Mismatch::WrongWriter { written: false, .. })
        ));
        assert_eq!(check_writer(by_run, 1, writers), Ok(()));
        let laid_out = Header {
            run: LAYOUT_TAG,
            ..by_run
        };
        assert_eq!(check_writer(laid_out, 0, writers), Ok(()));
        assert!(
            describe(4096, &check_writer(laid_out, 1, writers).unwrap_err()).contains("lost write")
        );
    }

    #[test]
    fn crc32c_known_value() {
        // The standard check value of CRC-32C (Castagnoli) for "123456789".
        assert_eq!(crc32c::crc32c(b"123456789"), 0xE306_9283);
    }

    /// A write that skips blocks (fio's `rw=write:112k`) is checked where
    /// it wrote: the blocks between are never read, and a written block
    /// holding another run's seal is named.
    #[test]
    fn blocks_a_write_skipped_are_not_read() {
        let mut written = crate::run::io::coverage::Touched::new(4).unwrap();
        written.mark(0);
        written.mark(2);
        let check = BlockCheck {
            base: 0,
            len: 4 * 4096,
            bs: 4096,
            alignment: 4096,
            writers: Some(Writers {
                written: &written,
                run: run_tag("abc"),
                unwritten: Unwritten::Unchecked,
            }),
        };
        let mut read_at = Vec::new();
        let verified = verify_blocks(
            |block, offset| {
                read_at.push(offset);
                block.copy_from_slice(&sealed(offset));
                Ok(block.len())
            },
            &check,
        )
        .unwrap();
        assert_eq!(read_at, [0, 8192]);
        assert_eq!((verified.blocks, verified.bad_blocks), (2, 0));
        let other = Writers {
            run: 1,
            ..check.writers.unwrap()
        };
        let by_other = BlockCheck {
            writers: Some(other),
            ..check
        };
        let verified = verify_blocks(
            |block, offset| {
                block.copy_from_slice(&sealed(offset));
                Ok(block.len())
            },
            &by_other,
        )
        .unwrap();
        assert_eq!(verified.bad_blocks, 2);
    }
}
