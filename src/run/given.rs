//! The targets a user gives a session — a file, a block device, `/dev/null` or `/dev/zero`, an iSCSI LUN — and the shelf that holds them when a run's points work on different ones (a job file's phases).

use super::target::{self, DeviceTarget, LocalFile, Target, TargetKind};
use super::{FileSet, Laid, Session};
use crate::plan::UsageError;
use crate::run::site::files::given_flag;
use crate::run::target::scratch::Ownership;
use crate::usage;
use std::path::{Path, PathBuf};

impl Session {
    /// Measures the existing file `name` in the session's directory instead of
    /// creating one; `write` asks to overwrite it, which only a file carrying
    /// iolab's marker allows.
    pub fn use_file(&mut self, name: &std::ffi::OsStr, write: bool) -> Result<(), UsageError> {
        self.release_files();
        let file = self.local_dir()?.adopt(name, write)?;
        self.use_given(Box::new(LocalFile::new(file)))
    }

    /// Makes `name` in the session's directory, `length` bytes long and
    /// sparse, and measures it as a given file every job shares: a job
    /// file's `filename=` naming a file not there yet, which fio makes.
    /// It is iolab's: written freely, laid out for reads, removed at the
    /// end unless kept.
    pub fn make_file(&mut self, name: &str, length: u64) -> Result<(), UsageError> {
        self.release_files();
        let file = self
            .local_dir()?
            .create_named(name)
            .map_err(|e| usage!("filename={name}: {e}"))?;
        let file = LocalFile::new(file);
        file.set_length(length)
            .map_err(|e| usage!("filename={name}: {e}"))?;
        self.use_given(Box::new(file))?;
        if let Some(set) = self.given.as_mut() {
            set.laid_out = Laid::No;
            set.made = true;
        }
        Ok(())
    }

    /// Measures the block device `device`, whose node is in the session's
    /// directory; `write` only after [`target::device::check_writable`] passed. Its
    /// own counters are the ones watched.
    pub fn use_device(
        &mut self,
        device: &target::device::BlockDevice,
        write: bool,
    ) -> Result<(), UsageError> {
        self.release_files();
        let file = self
            .local_dir()?
            .adopt_device(&device.name, device, write)?;
        self.watch = crate::probe::environment::watch(&device.path);
        self.use_given(Box::new(DeviceTarget::new(file, device.clone())))
    }

    /// Measures `/dev/null` or `/dev/zero` (`name` in the session's
    /// directory, `/dev`): read and written freely, since they store nothing.
    pub fn use_memory_device(&mut self, name: &std::ffi::OsStr) -> Result<(), UsageError> {
        self.release_files();
        let file = self.local_dir()?.adopt(name, true)?;
        self.use_given(Box::new(target::memory::MemoryDevice::new(file)))
    }

    /// Sets the given target aside under `key`, the path a plan's points
    /// name it by, for [`Session::use_shelved`] to take back: a run whose
    /// points work on different files or devices (a job file's phases) is
    /// given each before its first point, so a refusal comes before any I/O.
    pub fn shelve_given(&mut self, key: PathBuf) {
        if let Some(set) = self.given.take() {
            let dir_watch = crate::probe::environment::watch(self.dir.path());
            let watch = std::mem::replace(&mut self.watch, dir_watch);
            self.shelf.push((key, set, watch));
        }
    }

    /// Works on the target shelved under `key`, the current one going back
    /// to the shelf.
    pub fn use_shelved(&mut self, key: &Path) -> Result<(), UsageError> {
        if self.given_key.as_deref() == Some(key) {
            return Ok(());
        }
        let index = self
            .shelf
            .iter()
            .position(|(shelved, ..)| shelved == key)
            .ok_or_else(|| usage!("{} is not among the run's given files", key.display()))?;
        if let Some(current) = self.given_key.take() {
            self.shelve_given(current);
        }
        let (key, set, watch) = self.shelf.swap_remove(index);
        self.given = Some(set);
        self.watch = watch;
        self.given_key = Some(key);
        Ok(())
    }

    /// The path whose storage the result describes: the device or LUN
    /// under test, or the directory.
    pub fn measured_path(&self) -> &Path {
        match &self.given {
            Some(set) if set.files[0].kind() != TargetKind::File => set.files[0].path(),
            _ => self.dir.path(),
        }
    }

    /// The LUN this session measures (`--target iscsi://…`), when it has one.
    pub fn lun(&self) -> Option<&dyn Target> {
        let set = self.given.as_ref()?;
        (set.files[0].kind() == TargetKind::Lun).then(|| set.files[0].as_ref())
    }

    /// Measures the LUN `lun` (`--target iscsi://…`). When it may be
    /// written, the first point that reads lays its region out first (the
    /// study's reads read data it wrote); otherwise it is read as it is.
    pub fn use_lun(&mut self, lun: Box<dyn Target>) -> Result<(), UsageError> {
        self.release_files();
        let writable = matches!(lun.ownership(), Ownership::Given { writable: true });
        self.use_given(lun)?;
        if let Some(set) = self.given.as_mut() {
            set.laid_out = if writable { Laid::No } else { Laid::AsGiven };
        }
        Ok(())
    }

    fn use_given(&mut self, file: Box<dyn Target>) -> Result<(), UsageError> {
        let size = file
            .length()
            .map_err(|e| usage!("{}: {e}", given_flag(file.as_ref())))?;
        self.given = Some(FileSet {
            size,
            files: vec![file],
            laid_out: Laid::AsGiven,
            fresh: false,
            given: true,
            made: false,
            shared: false,
            others: Vec::new(),
            read_pass: None,
        });
        Ok(())
    }
}
