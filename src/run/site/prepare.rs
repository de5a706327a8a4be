//! Getting files ready before timing: O_DIRECT alignment and support, and layout.

use crate::plan::data::{DataPattern, DataShare};
use crate::run::io::buffer::{AlignedBuffer, mark};
use rustix::fd::BorrowedFd;
use rustix::fs::{AtFlags, StatxFlags};
use serde::{Deserialize, Serialize};
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The alignment O_DIRECT needs for buffers and for offsets and lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectAlignment {
    /// Required alignment of buffer addresses, bytes.
    pub memory: u32,
    /// Required alignment of file offsets and I/O lengths, bytes.
    pub offset: u32,
    /// Where the figures came from: `statx`, `logical_block_size` or `default`.
    pub source: &'static str,
}

/// Whether and how a file system takes O_DIRECT.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectCapability {
    /// O_DIRECT opens succeed and bypass the page cache with this alignment.
    Supported(DirectAlignment),
    /// The file system accepts O_DIRECT but keeps the data in memory anyway.
    AcceptedInMemory,
    /// The file system refuses O_DIRECT (open fails, or statx says so).
    Refused(i32),
}

/// Finds the direct-I/O alignment of an open file: statx's STATX_DIOALIGN
/// (Linux 6.1+), else the logical block size of the device under it, else 4096.
pub fn direct_alignment(fd: BorrowedFd<'_>) -> Result<DirectAlignment, i32> {
    if let Ok(statx) = rustix::fs::statx(fd, "", AtFlags::EMPTY_PATH, StatxFlags::DIOALIGN) {
        if StatxFlags::from_bits_retain(statx.stx_mask).contains(StatxFlags::DIOALIGN) {
            // Zero means the file system does not support direct I/O on this file.
            if statx.stx_dio_offset_align == 0 {
                return Err(libc::EINVAL);
            }
            return Ok(DirectAlignment {
                memory: statx.stx_dio_mem_align.max(1),
                offset: statx.stx_dio_offset_align,
                source: "statx",
            });
        }
    }
    if let Some(size) = logical_block_size(fd) {
        return Ok(DirectAlignment {
            memory: size,
            offset: size,
            source: "logical_block_size",
        });
    }
    Ok(DirectAlignment {
        memory: 4096,
        offset: 4096,
        source: "default",
    })
}

/// The logical block size of the block device holding the file, via sysfs.
fn logical_block_size(fd: BorrowedFd<'_>) -> Option<u32> {
    let stat = rustix::fs::fstat(fd).ok()?;
    // A block device's own number is st_rdev; a file's device is st_dev.
    let dev =
        if rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::BlockDevice {
            stat.st_rdev
        } else {
            stat.st_dev
        };
    let (major, minor) = (rustix::fs::major(dev), rustix::fs::minor(dev));
    let device = format!("/sys/dev/block/{major}:{minor}");
    // A partition has no queue/ of its own; its parent disk has.
    [
        format!("{device}/queue/logical_block_size"),
        format!("{device}/../queue/logical_block_size"),
    ]
    .iter()
    .find_map(|path| std::fs::read_to_string(path).ok()?.trim().parse().ok())
}

/// What a layout writes: seeded data in the workload's shape (`--data`),
/// drawn per block of `bs` bytes as the timed writes draw it.
#[derive(Clone, Copy, Debug)]
pub struct Fill {
    /// Seed of the random bytes and of the per-block draws.
    pub seed: u64,
    /// The shape of the data.
    pub data: DataPattern,
    /// The workload's block size: the unit a `dedupe` share is drawn in.
    pub bs: u64,
    /// Before a mix that verifies: the tag each block is sealed with
    /// ([`crate::run::io::verify::LAYOUT_TAG`]), so the check after the mix knows
    /// the blocks it did not write.
    pub seal: Option<u64>,
}

impl Fill {
    /// The fill of `workload`'s files.
    pub fn of(workload: &crate::plan::Workload) -> Fill {
        Fill {
            seed: workload.seed,
            data: workload.data,
            bs: workload.bs,
            seal: Fill::seals(workload).then_some(crate::run::io::verify::LAYOUT_TAG),
        }
    }

    /// Whether `workload`'s layout is sealed: a mix that verifies, whose
    /// check afterwards tells the blocks it wrote from those it left.
    pub fn seals(workload: &crate::plan::Workload) -> bool {
        workload.verify && workload.directions().mixed()
    }
}

/// Writes `len` bytes of seeded data from `base` to `fd` and makes them
/// durable, untimed; stops early with `Interrupted` when `interrupt` is set.
pub fn lay_out(
    fd: BorrowedFd<'_>,
    base: u64,
    len: u64,
    fill: Fill,
    interrupt: &AtomicUsize,
) -> io::Result<()> {
    write_seeded(
        |block, offset| {
            rustix::io::pwrite(fd, block, offset).map_err(|error| {
                io::Error::new(
                    io::Error::from(error).kind(),
                    format!("layout write at offset {offset} failed: {error}"),
                )
            })
        },
        base,
        len,
        fill,
        1 << 20,
        interrupt,
    )?;
    rustix::fs::fsync(fd)?;
    Ok(())
}

/// Writes `len` bytes of seeded data from `base` through `write(block,
/// offset)` (which returns the bytes written) in chunks of at most `chunk`
/// bytes, untimed: the layout of a local file and of a network target alike.
/// Each block of `fill.bs` bytes is stamped as a timed write of the same
/// shape would be (unique per sector, or for `dedupe` the repeated bytes
/// by the same share), so no two sectors of a unique layout are alike.
/// Stops early with `Interrupted` when `interrupt` is set.
pub fn write_seeded(
    mut write: impl FnMut(&[u8], u64) -> io::Result<usize>,
    base: u64,
    len: u64,
    fill: Fill,
    chunk: u64,
    interrupt: &AtomicUsize,
) -> io::Result<()> {
    let bs = fill.bs.clamp(1, 1 << 20) as usize;
    // Whole blocks per chunk, so that each block is drawn once.
    let chunk = (len.min(chunk).max(1) as usize).div_ceil(bs) * bs;
    let mut buffer = AlignedBuffer::with_data(chunk, 4096, fill.seed);
    fill.data.shape(buffer.as_mut_slice());
    let mut draws = fill.data.draws(
        fill.seed,
        DataShare {
            job: 0,
            jobs: 1,
            blocks: len / bs as u64,
        },
    );
    let mut offset = base;
    let end = base + len;
    while offset < end {
        if interrupt.load(Ordering::Relaxed) != 0 {
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        let want = (end - offset).min(chunk as u64) as usize;
        for (index, block) in buffer.as_mut_slice()[..want].chunks_mut(bs).enumerate() {
            let at = offset + (index * bs) as u64;
            if let Some(run) = fill.seal {
                let header = crate::run::io::verify::Header {
                    offset: at,
                    run,
                    sequence: 0,
                    seed: fill.seed,
                    block_size: bs as u64,
                };
                crate::run::io::verify::seal(block, &header);
                continue;
            }
            mark(block, draws.next(), (at, fill.seed), fill.data);
        }
        let written = write(&buffer.as_slice()[..want], offset)?;
        if written == 0 {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("layout write at offset {offset} wrote nothing"),
            ));
        }
        offset += written as u64;
        crate::run::io::live::laid_out(written as u64);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::fd::AsFd;

    #[test]
    fn alignment_is_a_power_of_two_on_the_test_filesystem() {
        let file = tempfile::tempfile().unwrap();
        match direct_alignment(file.as_fd()) {
            Ok(alignment) => {
                assert!(alignment.offset.is_power_of_two(), "{alignment:?}");
                assert!(alignment.memory.is_power_of_two(), "{alignment:?}");
            }
            Err(errno) => eprintln!("skip: the temp file system refuses O_DIRECT (errno {errno})"),
        }
    }

    #[test]
    fn layout_writes_the_whole_length() {
        let file = tempfile::tempfile().unwrap();
        let fill = Fill {
            seed: 9,
            data: DataPattern::Unique,
            bs: 4096,
            seal: None,
        };
        lay_out(
            file.as_fd(),
            0,
            (3 << 20) + 4096,
            fill,
            &AtomicUsize::new(0),
        )
        .unwrap();
        assert_eq!(file.metadata().unwrap().len(), (3 << 20) + 4096);
    }
}
