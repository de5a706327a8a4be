//! Trims on a local descriptor: a hole punched in a regular file, a discard on a block device.
//!
//! `fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)` frees a file's
//! blocks and leaves its length (fio's trim on files does the same);
//! `ioctl(BLKDISCARD)` tells a block device the range is unused. Both read
//! back as zeros. Which one a descriptor takes is learned once, from
//! fstat(2), at its first trim.

use rustix::fd::{AsRawFd, BorrowedFd};
use rustix::fs::{FallocateFlags, FileType};
use std::io;

/// `BLKDISCARD`, `_IO(0x12, 119)` in `<linux/fs.h>`.
const BLKDISCARD: libc::c_ulong = 0x1277;

/// Whether the descriptor it trims is a block device, once known.
#[derive(Clone, Copy, Debug, Default)]
pub struct Trimmer {
    block_device: Option<bool>,
}

/// The fallocate(2) mode of a trim on a file: free the range's blocks, keep
/// the file's length.
pub const PUNCH_HOLE: FallocateFlags = FallocateFlags::PUNCH_HOLE.union(FallocateFlags::KEEP_SIZE);

/// Whether `fd` is a block device (trimmed by a discard) rather than a file
/// (trimmed by a punched hole).
pub fn is_block_device(fd: BorrowedFd<'_>) -> io::Result<bool> {
    let stat = rustix::fs::fstat(fd)?;
    Ok(FileType::from_raw_mode(stat.st_mode) == FileType::BlockDevice)
}

/// Why trims of `fd` would fail, learned before any I/O: a block device
/// whose queue cannot discard (`queue/discard_max_bytes` is 0), or a file
/// system that cannot punch holes (a hole punched past the end of the file,
/// which changes nothing, is refused with EOPNOTSUPP). `None` when trims
/// can run, or when the probe could not tell (the trims then say).
pub fn why_trims_fail(fd: BorrowedFd<'_>) -> Option<String> {
    let stat = rustix::fs::fstat(fd).ok()?;
    if FileType::from_raw_mode(stat.st_mode) == FileType::BlockDevice {
        let (major, minor) = (
            rustix::fs::major(stat.st_rdev),
            rustix::fs::minor(stat.st_rdev),
        );
        // A partition's queue is its disk's, one directory up.
        let device = format!("/sys/dev/block/{major}:{minor}");
        let limit = ["queue", "../queue"].into_iter().find_map(|queue| {
            std::fs::read_to_string(format!("{device}/{queue}/discard_max_bytes")).ok()
        })?;
        return (limit.trim() == "0")
            .then(|| "the device cannot discard (its queue's discard_max_bytes is 0)".to_string());
    }
    let end = u64::try_from(stat.st_size).ok()?;
    match rustix::fs::fallocate(fd, PUNCH_HOLE, end.next_multiple_of(4096), 4096) {
        Err(rustix::io::Errno::OPNOTSUPP) => Some(
            "the file system cannot punch holes (fallocate PUNCH_HOLE: EOPNOTSUPP)".to_string(),
        ),
        _ => None,
    }
}

impl Trimmer {
    /// Discards `len` bytes at `offset` of `fd`.
    pub fn trim(&mut self, fd: BorrowedFd<'_>, offset: u64, len: u64) -> io::Result<()> {
        let block_device = match self.block_device {
            Some(known) => known,
            None => *self.block_device.insert(is_block_device(fd)?),
        };
        if block_device {
            let range: [u64; 2] = [offset, len];
            // SAFETY: BLKDISCARD reads two u64 (start, length) from the pointer.
            let status = unsafe { libc::ioctl(fd.as_raw_fd(), BLKDISCARD, range.as_ptr()) };
            if status < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        } else {
            Ok(rustix::fs::fallocate(fd, PUNCH_HOLE, offset, len)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{FileExt, MetadataExt};

    #[test]
    fn a_trimmed_range_of_a_file_is_a_hole_that_reads_as_zeros() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        file.write_all_at(&vec![0xAB; 1 << 20], 0).unwrap();
        file.sync_all().unwrap();
        let before = file.metadata().unwrap().blocks();
        let mut trimmer = Trimmer::default();
        use rustix::fd::AsFd;
        match trimmer.trim(file.as_fd(), 0, 512 << 10) {
            Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => {
                eprintln!("skip: this file system cannot punch holes");
                return;
            }
            other => other.unwrap(),
        }
        let meta = file.metadata().unwrap();
        assert_eq!(meta.len(), 1 << 20, "the length is kept");
        assert!(
            meta.blocks() < before,
            "{} blocks, {before} before",
            meta.blocks()
        );
        let mut back = vec![0xFF; 4096];
        file.read_exact_at(&mut back, 4096).unwrap();
        assert!(back.iter().all(|&b| b == 0));
        file.read_exact_at(&mut back, 600 << 10).unwrap();
        assert!(
            back.iter().all(|&b| b == 0xAB),
            "past the range is untouched"
        );
    }
}
