//! Files on an NFS export reached through libnfs, with no local mount: the
//! [`NfsSpace`] a session creates its files in, and [`NfsFile`], their target.
//!
//! The session's own context does the untimed work (create, lay out, verify,
//! remove); each job connects on its own (`engine::nfs`). libnfs keeps no
//! cache here, so what a cold run could leave cached is on the server: when
//! it runs on this machine its page cache is not evicted by iolab, and the
//! residency of the files is recorded as unknown rather than guessed.

use crate::engine::nfs::libnfs::{Context, File};
use crate::engine::nfs::url::NfsUrl;
use crate::net::server::{self, ServerSide, lock};
use crate::plan::CacheMode;
use crate::run::io::client::ClientJob;
use crate::run::io::verify::{self, Verified};
use crate::run::site::cache::Residency;
use crate::run::site::prepare::{DirectCapability, Fill};
use crate::run::target::owner_marker::{
    MarkerContent, file_line, first_line, is_run_file, marker_name, marker_of_key,
    parse_marker_name,
};
use crate::run::target::scratch::{Ownership, TargetFile};
use crate::run::target::space::Space;
use crate::run::target::{Target, TargetKind};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A directory on an NFS export, mounted by libnfs.
pub struct NfsSpace {
    url: NfsUrl,
    shown: PathBuf,
    run_id: String,
    context: Arc<Mutex<Context>>,
    /// Whether this run's owner marker is on the export.
    marked: std::sync::atomic::AtomicBool,
}

impl NfsSpace {
    /// Connects to `url`'s server and mounts its export for run `run_id`;
    /// the error names the URL and what failed.
    pub fn connect(url: NfsUrl, run_id: &str) -> Result<NfsSpace, String> {
        if let Some(dir) = &url.server_path {
            if !dir.is_dir() {
                return Err(format!(
                    "--target {}: server_path={} is not a directory here",
                    url.text,
                    dir.display()
                ));
            }
        }
        let context = Context::connect(&url).map_err(|e| format!("--target {}: {e}", url.text))?;
        // The directory is checked before anything is created or laid out:
        // one that is missing or a file, or a server_path that is not it,
        // is bad input.
        let shown_dir = match context.dir.as_str() {
            "" => context.export.clone(),
            dir => format!("{}/{dir}", context.export),
        };
        let (dir_id, is_dir) = context.directory().map_err(|e| {
            format!(
                "--target {}: {shown_dir} is not a directory on the export ({e})",
                url.text
            )
        })?;
        if !is_dir {
            return Err(format!(
                "--target {}: {shown_dir} on the export is a file, not a directory",
                url.text
            ));
        }
        if let Some(dir) = &url.server_path {
            let here = std::fs::metadata(dir).map(|m| std::os::unix::fs::MetadataExt::ino(&m));
            if here.as_ref().ok() != Some(&dir_id) {
                return Err(format!(
                    "--target {}: server_path={} is not the directory the export serves \
                     (inode {} here, file id {dir_id} there)",
                    url.text,
                    dir.display(),
                    here.map_or_else(|e| e.to_string(), |ino| ino.to_string())
                ));
            }
        }
        Ok(NfsSpace {
            shown: PathBuf::from(&url.text),
            url,
            run_id: run_id.to_string(),
            context: Arc::new(Mutex::new(context)),
            marked: std::sync::atomic::AtomicBool::new(false),
        })
    }

    fn file(&self, job: u32, ownership: Ownership, file_id: u64) -> NfsFile {
        let name = format!("iolab-{}-{job}.dat", self.run_id);
        let path = lock(&self.context).path_of(&name);
        NfsFile {
            file_id,
            url: self.url.clone(),
            shown: self.shown_path(&name),
            path,
            context: self.context.clone(),
            ownership,
        }
    }

    /// Puts this run's owner marker on the export before its first file.
    fn mark(&self) -> Result<(), String> {
        if self.marked.load(Ordering::Relaxed) {
            return Ok(());
        }
        let context = lock(&self.context);
        let path = context.path_of(&marker_name(&self.run_id));
        let tag = first_line(&crate::owner::owner_tag());
        let file = context
            .create_new(&path)
            .map_err(|e| format!("cannot create {path} on {}: {e}", self.url.text))?;
        file.write_at(tag.as_bytes(), 0)
            .and_then(|_| file.commit())
            .map_err(|e| format!("cannot write {path} on {}: {e}", self.url.text))?;
        self.marked.store(true, Ordering::Relaxed);
        Ok(())
    }

    /// Adds a file this run created, by name and file id, to its marker.
    fn note_in_marker(&self, context: &Context, name: &str, id: u64) -> io::Result<()> {
        let marker = context.open(&context.path_of(&marker_name(&self.run_id)), true)?;
        let line = file_line(name, id);
        marker.write_at(line.as_bytes(), marker.length()?)?;
        marker.commit()
    }

    /// Run `run_id`'s marker, when it can be read (up to 1 MiB: a tag and
    /// 4,096 jobs' lines of about 40 bytes fit), read to its end in as many
    /// READs as the server's size allows.
    fn marker_of(context: &Context, key: &str) -> Option<MarkerContent> {
        let file = context
            .open(&context.path_of(&marker_of_key(key)), false)
            .ok()?;
        let mut text = vec![0u8; 1 << 20];
        let mut len = 0;
        while len < text.len() {
            match file.read_at(&mut text[len..], len as u64).ok()? {
                0 => break,
                read => len += read,
            }
        }
        Some(MarkerContent::parse(&String::from_utf8_lossy(&text[..len])))
    }

    /// Removes the data files `marker` names for run `run_id` whose names
    /// still hold those very files (regular, same file id), then the marker
    /// when none of its files is left; goes on past a failure, naming it.
    fn remove_marked(
        &self,
        context: &Context,
        (key, run_id): (&str, &str),
        marker: &MarkerContent,
        removed: &mut Vec<String>,
    ) {
        let mut failed = false;
        for (name, id) in marker
            .files
            .iter()
            .filter(|(name, _)| is_run_file(name, run_id))
        {
            let path = context.path_of(name);
            let shown = self.shown_path(name);
            let current = context.open(&path, false).and_then(|file| {
                let (current, _) = file.identity()?;
                Ok((current, file.is_regular()?))
            });
            match current {
                Ok((current, true)) if current == *id => match context.unlink(&path) {
                    Ok(()) => removed.push(name.clone()),
                    Err(error) => {
                        failed = true;
                        crate::say!("iolab: could not remove {}: {error}", shown.display());
                    }
                },
                Ok(_) => crate::say!(
                    "iolab: left {}: not the file run {run_id} created (file id {id})",
                    shown.display()
                ),
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => {
                    failed = true;
                    crate::say!("iolab: could not look at {}: {error}", shown.display());
                }
            }
        }
        if !failed {
            let name = marker_of_key(key);
            match context.unlink(&context.path_of(&name)) {
                Ok(()) => removed.push(name),
                Err(error) => crate::say!(
                    "iolab: could not remove {}: {error}",
                    self.shown_path(&name).display()
                ),
            }
        }
    }

    /// The URL's directory as shown under the names in it: without its query.
    fn shown_dir(&self) -> PathBuf {
        PathBuf::from(
            self.url
                .text
                .split('?')
                .next()
                .unwrap_or("")
                .trim_end_matches('/'),
        )
    }

    /// Where `name` in the URL's directory is shown: the URL without its query.
    fn shown_path(&self, name: &str) -> PathBuf {
        self.shown_dir().join(name)
    }
}

impl Drop for NfsSpace {
    /// The marker goes when the run's files have gone (or were kept on
    /// purpose); a server that is no longer there keeps both, for the next
    /// run on this host to remove.
    fn drop(&mut self) {
        if self.marked.load(Ordering::Relaxed) {
            let context = lock(&self.context);
            let _ = context.unlink(&context.path_of(&marker_name(&self.run_id)));
        }
    }
}

impl Space for NfsSpace {
    fn path(&self) -> &Path {
        &self.shown
    }

    fn run_id(&self) -> &str {
        &self.run_id
    }

    fn filesystem(&self) -> String {
        "nfs3 (libnfs)".to_string()
    }

    fn available_bytes(&self) -> io::Result<u64> {
        lock(&self.context).available_bytes()
    }

    fn create(&self, job: u32) -> Result<Box<dyn Target>, String> {
        self.mark()?;
        let mut file = self.file(job, Ownership::Created, 0);
        let context = lock(&self.context);
        file.file_id = context
            .create_new(&file.path)
            .and_then(|created| created.identity())
            .map_err(|e| format!("cannot create {}: {e}", file.shown.display()))?
            .0;
        let name = format!("iolab-{}-{job}.dat", self.run_id);
        if let Err(error) = self.note_in_marker(&context, &name, file.file_id) {
            drop(context);
            // Not named in the marker, a later run could not remove it: gone now.
            Box::new(file).release(false);
            return Err(format!(
                "cannot note {name} in the run's owner marker on {}: {error}",
                self.url.text
            ));
        }
        drop(context);
        Ok(Box::new(file))
    }

    fn open_peer(&self, job: u32, write: bool) -> Result<Box<dyn Target>, String> {
        let mut file = self.file(job, Ownership::Peer { writable: write }, 0);
        file.file_id = lock(&self.context)
            .open(&file.path, write)
            .and_then(|opened| opened.identity())
            .map_err(|e| {
                format!(
                    "cannot open {}, another rank's file: {e}",
                    file.shown.display()
                )
            })?
            .0;
        Ok(Box::new(file))
    }

    fn remove_leftovers(&self, run_id: &str) -> io::Result<Vec<String>> {
        // The journal names the run; its marker names its files by file id.
        let context = lock(&self.context);
        let mut removed = Vec::new();
        if let Some(marker) = Self::marker_of(&context, run_id) {
            self.remove_marked(&context, (run_id, run_id), &marker, &mut removed);
        }
        Ok(removed)
    }

    fn remove_dead_runs(&self) -> io::Result<Vec<String>> {
        // A run's marker holds its owner tag: only a run of this host whose
        // process is gone is removed; another client's files are its own.
        // Names that are not markers (a directory named like one included)
        // are never opened for removal: only the files a marker lists.
        let context = lock(&self.context);
        let here = crate::owner::owner_tag();
        let mut removed = Vec::new();
        for marker in context.list()? {
            // A run's marker, or one of a run's processes' (a distributed
            // run's ranks on a kernel mount of this export keep one each).
            let Some((key, run_id)) =
                parse_marker_name(&marker).filter(|(key, _)| *key != self.run_id)
            else {
                continue;
            };
            let Some(content) = Self::marker_of(&context, key) else {
                continue;
            };
            if crate::owner::tag_is_dead(&content.tag, &here) {
                self.remove_marked(&context, (key, run_id), &content, &mut removed);
            }
        }
        // A metadata workload's trees, by their owner files.
        removed.extend(super::tree::remove_dead_trees(
            &context,
            &self.shown_dir(),
            &here,
            &self.run_id,
        )?);
        Ok(removed)
    }

    fn shown_path(&self, name: &str) -> PathBuf {
        NfsSpace::shown_path(self, name)
    }

    fn tree(
        &self,
        shape: crate::plan::tree::TreeShape,
        open: bool,
        serial: u32,
    ) -> Result<Box<dyn crate::run::site::tree::TreeSite>, String> {
        let tree = super::tree::NfsTree::new(
            &self.url,
            self.context.clone(),
            &self.shown_dir(),
            (&self.run_id, serial),
            shape,
            open,
        )
        .map_err(|e| e.to_string())?;
        Ok(Box::new(tree))
    }

    fn tree_room(&self) -> io::Result<(u64, u64, u64)> {
        lock(&self.context).free()
    }

    fn local(&self) -> Option<&crate::run::target::scratch::ScratchDir> {
        None
    }
}

/// A file on the export: created by this run, or another rank's.
pub struct NfsFile {
    /// The server's file id of the file created (or, for a peer's, first
    /// opened) under this name: a file put in its place later has another,
    /// and is never written or removed. NFSv3 gives no generation number,
    /// and the run's own writes move the ctime, so the file id is the identity.
    file_id: u64,
    url: NfsUrl,
    shown: PathBuf,
    path: String,
    context: Arc<Mutex<Context>>,
    ownership: Ownership,
}

impl std::fmt::Debug for NfsFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NfsFile({})", self.shown.display())
    }
}

impl NfsFile {
    /// The URL of the export, for a job's own connection.
    pub fn url(&self) -> &NfsUrl {
        &self.url
    }

    /// The file's path inside the export, as libnfs takes it.
    pub fn nfs_path(&self) -> &str {
        &self.path
    }

    /// Opens the file by name, for writing too when `write`, refusing a
    /// file that is not the one this run created or first opened.
    fn open_own<'c>(&self, context: &'c Context, write: bool) -> io::Result<File<'c>> {
        let file = context.open(&self.path, write)?;
        self.check_identity(&file)?;
        Ok(file)
    }

    /// Whether `file`, opened by this file's name, is still the file this
    /// run created (or first opened); an error naming both ids when not.
    pub fn check_identity(&self, file: &File<'_>) -> io::Result<()> {
        let (id, _) = file.identity()?;
        if id == self.file_id {
            return Ok(());
        }
        Err(io::Error::other(format!(
            "{} was replaced by another file during the run (file id {id}, created as {}); not touching it",
            self.shown.display(),
            self.file_id
        )))
    }

    fn writable(&self) -> bool {
        self.ownership.writable()
    }
}

impl ServerSide for NfsFile {
    /// Reads the `len` bytes from `base` through the server, in its largest READs.
    fn read_through(&self, base: u64, len: u64, interrupt: &AtomicUsize) -> io::Result<()> {
        let context = lock(&self.context);
        let file = context.open(&self.path, false)?;
        let chunk = context.read_max().clamp(4096, 1 << 20);
        crate::run::site::cache::read_through(
            |buffer, at| file.read_at(buffer, at),
            base,
            len,
            chunk,
            interrupt,
        )
    }

    fn flush(&self) -> io::Result<()> {
        let context = lock(&self.context);
        self.open_own(&context, self.writable())?.commit()
    }

    /// The server's own copy of the file, when the server runs on this
    /// machine and the URL says where its directory is (`server_path=`):
    /// opened read-only, and checked to be the very file the export serves
    /// (the same inode number as the NFS file id, the same length).
    fn server_copy(&self) -> io::Result<Option<rustix::fd::OwnedFd>> {
        let Some(dir) = &self.url.server_path else {
            return Ok(None);
        };
        let name = Path::new(&self.path).file_name().unwrap_or_default();
        let local = dir.join(name);
        let shown = local.display();
        let fd = crate::run::site::cache::open_server_copy(&local)?;
        let stat = rustix::fs::fstat(&fd)?;
        let (id, length) = {
            let context = lock(&self.context);
            context.open(&self.path, false)?.identity()?
        };
        if stat.st_ino != id || stat.st_size as u64 != length {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "server_path: {shown} is not the file the export serves (inode {} and {} bytes here, file id {id} and {length} bytes there)",
                    stat.st_ino, stat.st_size
                ),
            ));
        }
        Ok(Some(fd))
    }
}

impl Target for NfsFile {
    fn path(&self) -> &Path {
        &self.shown
    }

    fn kind(&self) -> TargetKind {
        TargetKind::File
    }

    fn ownership(&self) -> Ownership {
        self.ownership
    }

    fn length(&self) -> io::Result<u64> {
        let context = lock(&self.context);
        context.open(&self.path, false)?.length()
    }

    fn direct_capability(&self) -> DirectCapability {
        // libnfs keeps no cache to bypass; the engine refuses --direct.
        DirectCapability::Refused(libc::EINVAL)
    }

    fn local(&self) -> Option<&TargetFile> {
        None
    }

    fn client(&self) -> Option<&dyn ClientJob> {
        Some(self)
    }

    fn release(self: Box<Self>, keep: bool) {
        if self.ownership != Ownership::Created {
            return;
        }
        if keep {
            crate::say!("iolab: kept {}", self.shown.display());
            return;
        }
        let context = lock(&self.context);
        // The name is looked up once more just before REMOVE: a file moved
        // into its place on the server is left alone, named, and the run fails.
        // A server that caches directory entries answers LOOKUP from its
        // cache, blind to a file swapped behind its back; when the server
        // runs here (`server_path=`), its own directory is asked too.
        let on_server = self.url.server_path.as_ref().and_then(|dir| {
            let name = Path::new(&self.path).file_name()?;
            std::fs::symlink_metadata(dir.join(name)).ok()
        });
        let current = context
            .open(&self.path, false)
            .and_then(|file| file.identity())
            .map(|(id, _)| match &on_server {
                Some(local) if std::os::unix::fs::MetadataExt::ino(local) != self.file_id => {
                    std::os::unix::fs::MetadataExt::ino(local)
                }
                _ => id,
            });
        let removed = match current {
            Ok(id) if id != self.file_id => {
                crate::run::target::note_left_in_place();
                crate::say!(
                    "iolab: {} is no longer the file iolab created (file id {id}, created as {}); left in place",
                    self.shown.display(),
                    self.file_id
                );
                return;
            }
            Ok(_) => context.unlink(&self.path),
            Err(error) => Err(error),
        };
        if let Err(error) = removed {
            crate::say!(
                "iolab: could not remove {}: {error}; the next iolab run on this export from this host removes it",
                self.shown.display()
            );
        }
    }

    fn set_length(&self, len: u64) -> io::Result<()> {
        let context = lock(&self.context);
        self.open_own(&context, self.writable())?.set_length(len)
    }

    fn lay_out(&self, base: u64, len: u64, fill: Fill, interrupt: &AtomicUsize) -> io::Result<()> {
        let context = lock(&self.context);
        let file = self.open_own(&context, true)?;
        let chunk = context.write_max().clamp(4096, 1 << 20);
        let write = |block: &[u8], at| file.write_at(block, at);
        crate::run::site::prepare::write_seeded(write, base, len, fill, chunk, interrupt)?;
        file.commit()
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
        let file = context.open(&self.path, false)?;
        verify::verify_blocks(|block, offset| file.read_at(block, offset), check)
    }
}
