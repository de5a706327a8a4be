//! The kernel's memory devices `/dev/null` and `/dev/zero` as a target (fio's `filename=/dev/null` jobs, which measure the I/O path without storage): nothing is stored, so they are read and written freely, with no cache to treat, no layout and no blocks to verify.

pub use super::device::{Memory, memory_device, memory_metadata};
use super::scratch::{Ownership, TargetFile};
use super::{Target, TargetKind, direct_on};
use crate::plan::CacheMode;
use crate::run::io::verify::{self, Verified};
use crate::run::site::cache::Residency;
use crate::run::site::prepare::{DirectCapability, Fill};
use std::io;
use std::path::Path;
use std::sync::atomic::AtomicUsize;

/// A memory device opened as a given file.
#[derive(Debug)]
pub struct MemoryDevice(TargetFile);

impl MemoryDevice {
    /// The target of `file`, a memory device ([`memory_device`]).
    pub fn new(file: TargetFile) -> MemoryDevice {
        MemoryDevice(file)
    }
}

impl Target for MemoryDevice {
    fn path(&self) -> &Path {
        self.0.path()
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Memory
    }

    fn ownership(&self) -> Ownership {
        self.0.ownership()
    }

    /// Unbounded: every offset reads zeros (or nothing) and takes writes,
    /// so a job's `size` alone bounds it.
    fn length(&self) -> io::Result<u64> {
        Ok(u64::MAX)
    }

    fn direct_capability(&self) -> DirectCapability {
        direct_on(&self.0)
    }

    fn local(&self) -> Option<&TargetFile> {
        Some(&self.0)
    }

    fn release(self: Box<Self>, _keep: bool) {
        // The kernel's device: nothing to remove or keep.
    }

    fn lay_out(
        &self,
        _base: u64,
        _len: u64,
        _fill: Fill,
        _interrupt: &AtomicUsize,
    ) -> io::Result<()> {
        Ok(())
    }

    /// No page cache stands before it: every cache state is its own.
    fn treat_cache(
        &self,
        _mode: CacheMode,
        _base: u64,
        _len: u64,
        _interrupt: &AtomicUsize,
    ) -> io::Result<()> {
        Ok(())
    }

    /// Nothing of it is cached, and nothing can be.
    fn residency(&self, _base: u64, _len: u64) -> io::Result<Option<Residency>> {
        Ok(Some(Residency {
            resident_pages: 0,
            total_pages: 0,
        }))
    }

    fn verify(&self, _check: &verify::BlockCheck<'_>) -> io::Result<Verified> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "{} stores nothing: there are no written blocks to verify",
                self.0.path().display()
            ),
        ))
    }

    fn why_trims_fail(&self) -> Option<String> {
        Some(format!(
            "{} is a memory device, which discards nothing",
            self.0.path().display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_null_and_zero_are_memory_devices() {
        let of = |path: &str| memory_metadata(&std::fs::metadata(path).unwrap());
        assert_eq!(of("/dev/null"), Some(Memory::Null));
        assert_eq!(of("/dev/zero"), Some(Memory::Zero));
        assert_eq!(of("/dev/full"), None);
        assert_eq!(of("/dev/urandom"), None);
        let file = tempfile::NamedTempFile::new().unwrap();
        assert_eq!(of(file.path().to_str().unwrap()), None);
    }
}
