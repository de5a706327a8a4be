//! Page-cache control and verification: evict, warm, and count resident pages.

use rustix::fd::BorrowedFd;
use rustix::fs::Advice;
use rustix::mm::{MapFlags, ProtFlags};
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Resident and total pages of one or more files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Residency {
    /// Pages in the page cache.
    pub resident_pages: u64,
    /// Pages the files span.
    pub total_pages: u64,
}

impl std::ops::Add for Residency {
    type Output = Residency;
    /// Adds another file's counts.
    fn add(self, other: Residency) -> Residency {
        Residency {
            resident_pages: self.resident_pages + other.resident_pages,
            total_pages: self.total_pages + other.total_pages,
        }
    }
}

impl Residency {
    /// Resident pages over total pages, 0 for an empty file.
    pub fn fraction(self) -> f64 {
        if self.total_pages == 0 {
            0.0
        } else {
            self.resident_pages as f64 / self.total_pages as f64
        }
    }
}

/// Writes back the file's dirty pages, then asks the kernel to drop its cached pages.
///
/// DONTNEED skips dirty, locked and mapped pages, hence the fsync first; what
/// stays resident anyway is measured afterwards by [`residency`], not assumed.
pub fn evict(fd: BorrowedFd<'_>) -> io::Result<()> {
    rustix::fs::fsync(fd)?;
    rustix::fs::fadvise(fd, 0, None, Advice::DontNeed)?;
    Ok(())
}

/// Reads `len` bytes from `base` sequentially (buffered, untimed) so they are cached.
pub fn warm(fd: BorrowedFd<'_>, base: u64, len: u64, interrupt: &AtomicUsize) -> io::Result<()> {
    let mut buffer = vec![0u8; 1 << 20];
    let mut offset = base;
    let len = base + len;
    while offset < len {
        if interrupt.load(Ordering::Relaxed) != 0 {
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        let want = (len - offset).min(buffer.len() as u64) as usize;
        let got = rustix::io::pread(fd, &mut buffer[..want], offset)?;
        if got == 0 {
            break;
        }
        offset += got as u64;
    }
    Ok(())
}

/// Counts the pages of the `len` bytes from `base` (a multiple of the page
/// size) that are in the page cache, with mincore(2) on a fresh read-only
/// mapping (mapping does not fault pages in).
pub fn residency(fd: BorrowedFd<'_>, base: u64, len: u64) -> io::Result<Residency> {
    let page = rustix::param::page_size() as u64;
    let total_pages = len.div_ceil(page);
    if len == 0 {
        return Ok(Residency::default());
    }
    let map_len = usize::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::FileTooLarge))?;
    // SAFETY: a new read-only shared mapping chosen by the kernel; unmapped below.
    let base = unsafe {
        rustix::mm::mmap(
            std::ptr::null_mut(),
            map_len,
            ProtFlags::READ,
            MapFlags::SHARED,
            fd,
            base,
        )?
    };
    let mut vector = vec![0u8; total_pages as usize];
    // SAFETY: `vector` has one byte per page of the mapping; mincore is missing from rustix.
    let status = unsafe { libc::mincore(base, map_len, vector.as_mut_ptr()) };
    let error = io::Error::last_os_error();
    // SAFETY: the mapping was created above with this length.
    unsafe { rustix::mm::munmap(base, map_len)? };
    if status != 0 {
        return Err(error);
    }
    let resident_pages = vector.iter().filter(|&&byte| byte & 1 != 0).count() as u64;
    Ok(Residency {
        resident_pages,
        total_pages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::fd::AsFd;
    use std::io::Write;

    #[test]
    fn eviction_and_warming_are_visible_in_residency() {
        let mut file = tempfile::tempfile().unwrap();
        let len = 4u64 << 20;
        file.write_all(&vec![7u8; len as usize]).unwrap();
        let fd = file.as_fd();
        let written = residency(fd, 0, len).unwrap();
        assert_eq!(written.total_pages, len / rustix::param::page_size() as u64);
        assert!(written.fraction() > 0.9, "just written: {written:?}");

        evict(fd).unwrap();
        let cold = residency(fd, 0, len).unwrap();
        assert!(cold.fraction() < 0.1, "after eviction: {cold:?}");

        warm(fd, 0, len, &AtomicUsize::new(0)).unwrap();
        assert!(residency(fd, 0, len).unwrap().fraction() > 0.9);
    }
}
