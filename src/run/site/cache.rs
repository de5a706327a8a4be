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

/// Drops the kernel's clean caches of every file system (`echo 3 >
/// /proc/sys/vm/drop_caches`: pages, dentries and inodes), as root only:
/// `--cache drop`, the one way to make a metadata tree's dentries and
/// inodes cold without unmounting. Dirty data is written back first by the caller.
pub fn drop_caches() -> io::Result<()> {
    std::fs::write("/proc/sys/vm/drop_caches", b"3\n")
}

/// Reads the `len` bytes from `base` through `read(buffer, offset)` (which
/// returns the bytes read, 0 at the end) in chunks of at most `chunk`
/// bytes, untimed: warming a network target's server cache. Stops early
/// with `Interrupted` when `interrupt` is set.
pub fn read_through(
    mut read: impl FnMut(&mut [u8], u64) -> io::Result<usize>,
    base: u64,
    len: u64,
    chunk: u64,
    interrupt: &AtomicUsize,
) -> io::Result<()> {
    let mut buffer = vec![0u8; len.min(chunk).max(1) as usize];
    let mut offset = base;
    while offset < base + len {
        if interrupt.load(Ordering::Relaxed) != 0 {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let want = (base + len - offset).min(buffer.len() as u64) as usize;
        match read(&mut buffer[..want], offset)? {
            0 => break,
            got => offset += got as u64,
        }
    }
    Ok(())
}

/// Opens a server's own copy of a network target's data on this machine
/// (`server_path=`) read-only, to evict and count its cached pages: never
/// written, and never a link followed.
pub fn open_server_copy(path: &std::path::Path) -> io::Result<rustix::fd::OwnedFd> {
    rustix::fs::open(
        path,
        rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::CLOEXEC
            | rustix::fs::OFlags::NONBLOCK,
        rustix::fs::Mode::empty(),
    )
    .map_err(|e| io::Error::new(e.kind(), format!("server_path: {}: {e}", path.display())))
}

/// Writes the file's dirty pages back and leaves them cached (`--cache clean`).
pub fn write_back(fd: BorrowedFd<'_>) -> io::Result<()> {
    rustix::fs::fsync(fd)?;
    Ok(())
}

/// Rereads of pages still missing after warming; see [`warm`].
const WARM_REPAIRS: usize = 3;

/// Reads `len` bytes from `base` (a multiple of the page size) sequentially
/// (buffered, untimed) so they are cached, then rereads the pages mincore(2)
/// still finds missing, up to three times: with memory to spare,
/// proactive reclaim (DAMON `pageout`) can evict pages moments after they
/// were read, and a warm run should start warm. What stays missing is
/// measured by [`residency`] and recorded, not assumed away.
pub fn warm(fd: BorrowedFd<'_>, base: u64, len: u64, interrupt: &AtomicUsize) -> io::Result<()> {
    read_range(fd, base, len, interrupt)?;
    for _ in 0..WARM_REPAIRS {
        if !reread_missing(fd, base, len, interrupt)? {
            break;
        }
    }
    Ok(())
}

/// Rereads each run of pages of the range that mincore(2) finds missing;
/// returns whether any was.
fn reread_missing(
    fd: BorrowedFd<'_>,
    base: u64,
    len: u64,
    interrupt: &AtomicUsize,
) -> io::Result<bool> {
    let page = rustix::param::page_size() as u64;
    let resident = resident_pages(fd, base, len)?;
    let mut missing = resident.iter().enumerate().filter(|(_, r)| !**r);
    let Some((first, _)) = missing.next() else {
        return Ok(false);
    };
    let mut run = (first, first);
    // A sentinel index that cannot continue a run flushes the last one.
    for (index, _) in missing.chain(std::iter::once((usize::MAX, &false))) {
        if index == run.1 + 1 {
            run.1 = index;
            continue;
        }
        let start = base + run.0 as u64 * page;
        let end = (base + (run.1 as u64 + 1) * page).min(base + len);
        read_range(fd, start, end - start, interrupt)?;
        run = (index, index);
    }
    Ok(true)
}

/// Reads `len` bytes from `base` through the page cache in 1 MiB calls.
fn read_range(fd: BorrowedFd<'_>, base: u64, len: u64, interrupt: &AtomicUsize) -> io::Result<()> {
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
    let resident = resident_pages(fd, base, len)?;
    Ok(Residency {
        resident_pages: resident.iter().filter(|&&r| r).count() as u64,
        total_pages: resident.len() as u64,
    })
}

/// Per page of the `len` bytes from `base`, whether it is in the page cache.
fn resident_pages(fd: BorrowedFd<'_>, base: u64, len: u64) -> io::Result<Vec<bool>> {
    let page = rustix::param::page_size() as u64;
    let total_pages = len.div_ceil(page);
    if len == 0 {
        return Ok(Vec::new());
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
    Ok(vector.iter().map(|&byte| byte & 1 != 0).collect())
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

    #[test]
    fn warming_rereads_the_pages_found_missing() {
        let mut file = tempfile::tempfile().unwrap();
        let page = rustix::param::page_size() as u64;
        let pages = 1024;
        let len = pages * page;
        file.write_all(&vec![3u8; len as usize]).unwrap();
        let fd = file.as_fd();
        evict(fd).unwrap();
        // Pages 0 and 500-509 cached (with whatever read-ahead adds), the rest missing.
        let interrupt = AtomicUsize::new(0);
        read_range(fd, 0, page, &interrupt).unwrap();
        read_range(fd, 500 * page, 10 * page, &interrupt).unwrap();
        let before = residency(fd, 0, len).unwrap().resident_pages;
        if before == pages {
            crate::say!(
                "skipped: the file stayed cached after POSIX_FADV_DONTNEED, nothing to reread"
            );
            return;
        }
        assert!(reread_missing(fd, 0, len, &interrupt).unwrap());
        assert_eq!(residency(fd, 0, len).unwrap().resident_pages, pages);
        assert!(
            !reread_missing(fd, 0, len, &interrupt).unwrap(),
            "nothing left to reread"
        );
    }
}
