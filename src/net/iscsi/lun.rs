//! An iSCSI LUN reached through libiscsi, with no kernel initiator: the
//! [`IscsiLun`] target and the [`IscsiPortal`] a session stands in.
//!
//! A LUN is measured as a block device given with `--file` is: it is read
//! freely, written only when the user repeats its URL with
//! `--destroy-data` and nothing lives on it (libblkid finds no signature in
//! its first 8 MiB and its last 1 MiB), never created nor removed. The
//! session's own connection does the untimed work (layout, cache,
//! verification); each job logs in on its own (`engine::iscsi`). The
//! initiator keeps no cache, so what a cold run could leave cached is the
//! target's own and is recorded as not seen.

use crate::engine::iscsi::libiscsi::Context;
use crate::engine::iscsi::url::IscsiUrl;
use crate::net::server::{self, ServerSide, lock};
use crate::plan::CacheMode;
use crate::run::io::client::ClientJob;
use crate::run::io::verify::{self, Verified};
use crate::run::site::cache::Residency;
use crate::run::site::prepare::{DirectCapability, Fill};
use crate::run::target::scratch::{Ownership, ScratchDir, TargetFile};
use crate::run::target::space::Space;
use crate::run::target::{Target, TargetKind};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

/// The largest command the untimed passes send: small enough for any
/// target's MAXIMUM TRANSFER LENGTH we know, large enough to be quick.
const UNTIMED_CHUNK: u64 = 256 * 1024;

/// Where libblkid's probes look: the superblocks and partition tables it
/// knows start within the first 8 MiB (the farthest we know of is VMFS's
/// file-system magic, at 2 MiB) or lie in the last 1 MiB (GPT's backup,
/// md 0.90 and 1.0, ZFS's last labels, DRBD's internal metadata).
const PROBED_HEAD: u64 = 8 << 20;
const PROBED_TAIL: u64 = 1 << 20;

/// The portal of a session on a LUN: it holds no files, so it creates none;
/// the LUN itself is the session's given target.
pub struct IscsiPortal {
    shown: PathBuf,
    run_id: String,
}

impl IscsiPortal {
    /// The portal of `url` for run `run_id`.
    pub fn new(url: &IscsiUrl, run_id: &str) -> IscsiPortal {
        IscsiPortal {
            shown: PathBuf::from(&url.text),
            run_id: run_id.to_string(),
        }
    }
}

impl Space for IscsiPortal {
    fn path(&self) -> &Path {
        &self.shown
    }

    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn filesystem(&self) -> String {
        "iSCSI LUN (libiscsi)".to_string()
    }

    fn available_bytes(&self) -> io::Result<u64> {
        Ok(0)
    }

    fn create(&self, _job: u32) -> Result<Box<dyn Target>, String> {
        Err(format!(
            "{} is a LUN: iolab creates no files on it",
            self.shown.display()
        ))
    }

    fn open_peer(&self, job: u32, write: bool) -> Result<Box<dyn Target>, String> {
        let _ = (job, write);
        self.create(job)
    }

    fn remove_leftovers(&self, _run_id: &str) -> io::Result<Vec<String>> {
        Ok(Vec::new())
    }

    fn remove_dead_runs(&self) -> io::Result<Vec<String>> {
        Ok(Vec::new())
    }

    fn local(&self) -> Option<&ScratchDir> {
        None
    }
}

/// A LUN as a target: read freely, written with consent.
pub struct IscsiLun {
    url: IscsiUrl,
    shown: PathBuf,
    context: Arc<Mutex<Context>>,
    writable: bool,
    /// The (device, inode) of the `server_path=` file once proven to be
    /// the LUN's backing file.
    proven: Mutex<Option<(u64, u64)>>,
    /// Whether "cannot be proven yet" was said.
    unproven_said: std::sync::atomic::AtomicBool,
}

/// How many blocks the `server_path=` proof compares.
const PROOF_BLOCKS: u64 = 16;

/// What comparing the LUN with a file found.
enum Comparison {
    /// Every block compared is equal, and some hold data.
    Same,
    /// Every block compared is zeros on both sides: no proof either way.
    OnlyZeros,
    /// The 4 KiB at this offset differ.
    Differs(u64),
}

fn lock_proven(
    proven: &Mutex<Option<(u64, u64)>>,
) -> std::sync::MutexGuard<'_, Option<(u64, u64)>> {
    proven
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl std::fmt::Debug for IscsiLun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IscsiLun({})", self.url.text)
    }
}

impl IscsiLun {
    /// Logs in to `url`'s LUN; `writable` only once the user consented and
    /// [`IscsiLun::refuse_if_in_use`] found nothing on it. The error names
    /// the URL and what failed.
    pub fn connect(url: IscsiUrl) -> Result<IscsiLun, String> {
        let context = Context::connect(&url).map_err(|e| format!("--target {}: {e}", url.text))?;
        let lun = IscsiLun {
            shown: PathBuf::from(&url.text),
            url,
            context: Arc::new(Mutex::new(context)),
            writable: false,
            proven: Mutex::new(None),
            unproven_said: std::sync::atomic::AtomicBool::new(false),
        };
        lun.server_copy()
            .map_err(|e| format!("--target {}: {e}", lun.url.text))?;
        Ok(lun)
    }

    /// The URL, for a job's own login.
    pub fn url(&self) -> &IscsiUrl {
        &self.url
    }

    /// The LUN's logical block size, bytes.
    pub fn block_size(&self) -> u32 {
        lock(&self.context).block_size
    }

    /// Allows writing once nothing lives on the LUN: libblkid probes an
    /// image of its first 8 MiB and last 1 MiB (the rest left sparse), the
    /// regions its superblocks and partition tables live in. The refusal
    /// names what was found; without libblkid nothing is written.
    pub fn refuse_if_in_use(&mut self) -> Result<(), String> {
        let shown = &self.url.text;
        let signatures = self.probe_signatures().map_err(|why| {
            format!(
                "refusing to write {shown}: cannot check it for data ({why}); nothing was written"
            )
        })?;
        if !signatures.is_empty() {
            let found: Vec<String> = signatures.iter().map(ToString::to_string).collect();
            return Err(format!(
                "refusing to write {shown}: it holds {}; nothing was written",
                found.join(", ")
            ));
        }
        self.writable = true;
        Ok(())
    }

    /// The signatures libblkid finds in an image of the probed regions.
    fn probe_signatures(&self) -> Result<Vec<crate::probe::blkid::Signature>, String> {
        let context = lock(&self.context);
        let capacity = context.capacity;
        let image = rustix::fs::memfd_create("iolab-lun-probe", rustix::fs::MemfdFlags::CLOEXEC)
            .map_err(|e| format!("memfd_create: {e}"))?;
        rustix::fs::ftruncate(&image, capacity).map_err(|e| format!("a sparse image: {e}"))?;
        let tail_start = capacity.saturating_sub(PROBED_TAIL) / u64::from(context.block_size)
            * u64::from(context.block_size);
        let mut buffer = vec![0u8; UNTIMED_CHUNK as usize];
        for (start, end) in [(0, PROBED_HEAD.min(capacity)), (tail_start, capacity)] {
            let mut offset = start;
            while offset < end {
                let len = (end - offset).min(UNTIMED_CHUNK) as usize;
                let read = context
                    .read_at(&mut buffer[..len], offset)
                    .map_err(|e| e.to_string())?;
                rustix::io::pwrite(&image, &buffer[..read], offset)
                    .map_err(|e| format!("the image: {e}"))?;
                offset += len as u64;
            }
        }
        let path = PathBuf::from(format!(
            "/proc/self/fd/{}",
            rustix::fd::AsRawFd::as_raw_fd(&image)
        ));
        crate::probe::blkid::signatures(&path)
    }

    /// Reads [`PROOF_BLOCKS`] blocks of 4 KiB spread over the LUN, through
    /// the LUN and from `file`, and compares them.
    fn compare_with(&self, file: &rustix::fd::OwnedFd, capacity: u64) -> io::Result<Comparison> {
        const BLOCK: u64 = 4096;
        let context = lock(&self.context);
        let (mut through, mut local) = (vec![0u8; BLOCK as usize], vec![0u8; BLOCK as usize]);
        let mut any_data = false;
        let last = capacity.saturating_sub(BLOCK) / BLOCK * BLOCK;
        for i in 0..PROOF_BLOCKS {
            let offset = (last / (PROOF_BLOCKS - 1) * i) / BLOCK * BLOCK;
            let read = context.read_at(&mut through, offset)?;
            let got = rustix::io::pread(file, &mut local[..read], offset)?;
            if got != read || through[..read] != local[..read] {
                return Ok(Comparison::Differs(offset));
            }
            any_data |= through[..read].iter().any(|&b| b != 0);
        }
        Ok(if any_data {
            Comparison::Same
        } else {
            Comparison::OnlyZeros
        })
    }
}

impl ServerSide for IscsiLun {
    /// The target's own backing file, when it runs on this machine and the
    /// URL says where it is (`server_path=`): opened read-only, and touched
    /// (evicted, counted) only once it is proven to be the LUN's backing
    /// file — as long as the LUN, and blocks read through the LUN equal to
    /// the file's, not all of them zeros. `None` while it cannot be proven
    /// (a LUN with nothing written yet), said once; an error when the file
    /// differs from the LUN, or is not the file proven before.
    fn server_copy(&self) -> io::Result<Option<rustix::fd::OwnedFd>> {
        let Some(path) = &self.url.server_path else {
            return Ok(None);
        };
        let shown = path.display();
        let fd = crate::run::site::cache::open_server_copy(path)?;
        let stat = rustix::fs::fstat(&fd)?;
        let length = stat.st_size as u64;
        let capacity = lock(&self.context).capacity;
        let not_it = |why: String| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("server_path: {shown} {why}: not the LUN's backing file"),
            )
        };
        if length != capacity {
            return Err(not_it(format!("holds {length} bytes, the LUN {capacity}")));
        }
        let identity = (stat.st_dev, stat.st_ino);
        let mut proven = lock_proven(&self.proven);
        match *proven {
            Some(known) if known == identity => return Ok(Some(fd)),
            Some(_) => return Err(not_it("is another file than the one proven earlier".into())),
            None => {}
        }
        match self.compare_with(&fd, capacity)? {
            Comparison::Differs(offset) => Err(not_it(format!(
                "differs from the LUN in the 4 KiB at byte {offset}"
            ))),
            Comparison::OnlyZeros => {
                if !self
                    .unproven_said
                    .swap(true, std::sync::atomic::Ordering::Relaxed)
                {
                    crate::say!(
                        "iolab: server_path: {shown} cannot be proven to be the LUN's backing file yet \
                         (the blocks compared hold only zeros on both); its cache is neither evicted nor counted until it is"
                    );
                }
                Ok(None)
            }
            Comparison::Same => {
                *proven = Some(identity);
                Ok(Some(fd))
            }
        }
    }

    /// Reads the `len` bytes from `base` through the target, in large commands.
    fn read_through(&self, base: u64, len: u64, interrupt: &AtomicUsize) -> io::Result<()> {
        let context = lock(&self.context);
        let read = |buffer: &mut [u8], at| context.read_at(buffer, at);
        crate::run::site::cache::read_through(read, base, len, UNTIMED_CHUNK, interrupt)
    }

    fn flush(&self) -> io::Result<()> {
        if self.writable {
            lock(&self.context).synchronize_cache()
        } else {
            Ok(())
        }
    }
}

impl Target for IscsiLun {
    fn path(&self) -> &Path {
        &self.shown
    }

    fn why_trims_fail(&self) -> Option<String> {
        (!lock(&self.context).unmaps).then(|| {
            "the LUN does not take UNMAP (READ CAPACITY(16) says logical block provisioning \
             is off, LBPME 0)"
                .to_string()
        })
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Lun
    }

    fn ownership(&self) -> Ownership {
        Ownership::Given {
            writable: self.writable,
        }
    }

    fn length(&self) -> io::Result<u64> {
        Ok(lock(&self.context).capacity)
    }

    fn direct_capability(&self) -> DirectCapability {
        // The initiator keeps no cache to bypass; the engine refuses --direct.
        DirectCapability::Refused(libc::EINVAL)
    }

    fn local(&self) -> Option<&TargetFile> {
        None
    }

    fn io_unit(&self) -> Option<u64> {
        Some(u64::from(self.block_size()))
    }

    fn client(&self) -> Option<&dyn ClientJob> {
        Some(self)
    }

    fn release(self: Box<Self>, _keep: bool) {
        // The user's LUN: never removed, nothing to keep.
    }

    fn found_in_use(&self) -> Option<String> {
        if !self.writable {
            return None;
        }
        let shown = &self.url.text;
        match self.probe_signatures() {
            Ok(signatures) if signatures.is_empty() => None,
            Ok(signatures) => {
                let found: Vec<String> = signatures.iter().map(ToString::to_string).collect();
                Some(format!(
                    "stopped before writing {shown} again: it holds {} (made since the run began); nothing more was written",
                    found.join(", ")
                ))
            }
            Err(why) => Some(format!(
                "stopped before writing {shown} again: cannot check it for data ({why})"
            )),
        }
    }

    fn set_length(&self, _len: u64) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "a LUN's length is its capacity",
        ))
    }

    fn lay_out(&self, base: u64, len: u64, fill: Fill, interrupt: &AtomicUsize) -> io::Result<()> {
        if !self.writable {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "{} may not be written without --destroy-data",
                    self.url.text
                ),
            ));
        }
        let context = lock(&self.context);
        let write = |block: &[u8], at| context.write_at(block, at);
        crate::run::site::prepare::write_seeded(write, base, len, fill, UNTIMED_CHUNK, interrupt)?;
        context.synchronize_cache()
    }

    fn treat_cache(
        &self,
        mode: CacheMode,
        base: u64,
        len: u64,
        interrupt: &AtomicUsize,
    ) -> io::Result<()> {
        server::treat_cache(self, mode, base, len, interrupt)
    }

    fn residency(&self, base: u64, len: u64) -> io::Result<Option<Residency>> {
        server::residency(self, base, len)
    }

    fn verify(&self, check: &verify::BlockCheck<'_>) -> io::Result<Verified> {
        let context = lock(&self.context);
        verify::verify_blocks(|block, offset| context.read_at(block, offset), check)
    }
}
