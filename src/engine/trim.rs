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

impl Trimmer {
    /// Discards `len` bytes at `offset` of `fd`.
    pub fn trim(&mut self, fd: BorrowedFd<'_>, offset: u64, len: u64) -> io::Result<()> {
        let block_device = match self.block_device {
            Some(known) => known,
            None => {
                let stat = rustix::fs::fstat(fd)?;
                let known = FileType::from_raw_mode(stat.st_mode) == FileType::BlockDevice;
                *self.block_device.insert(known)
            }
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
            let flags = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
            Ok(rustix::fs::fallocate(fd, flags, offset, len)?)
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
