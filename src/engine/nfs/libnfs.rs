//! libnfs, the userspace NFS client fio's `nfs` engine and IOR use, loaded
//! at run time (Debian package libnfs13; libnfs 4.0's interface), and a
//! [`Context`] that owns one client connection.
//!
//! Loaded with dlopen rather than linked, so building iolab needs nothing
//! but Rust and a machine without it gets one line naming the package. A
//! context is one TCP connection to the server and is not thread-safe:
//! every job makes its own, as fio's engine does.

use libloading::Library;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::io;
use std::sync::OnceLock;

/// The library's file name, as the package installs it.
pub const LIBRARY: &str = "libnfs.so.13";

/// libnfs's completion callback: status, context, data, the caller's pointer.
pub type Callback = unsafe extern "C" fn(c_int, *mut c_void, *mut c_void, *mut c_void);

/// `struct nfs_stat_64`, all fields 64-bit.
#[repr(C)]
#[derive(Default)]
struct Stat64 {
    dev: u64,
    ino: u64,
    mode: u64,
    nlink: u64,
    uid: u64,
    gid: u64,
    rdev: u64,
    size: u64,
    blksize: u64,
    blocks: u64,
    atime: u64,
    mtime: u64,
    ctime: u64,
    atime_nsec: u64,
    mtime_nsec: u64,
    ctime_nsec: u64,
    used: u64,
}

/// `struct nfs_statvfs_64`.
#[repr(C)]
#[derive(Default)]
struct StatVfs64 {
    bsize: u64,
    frsize: u64,
    blocks: u64,
    bfree: u64,
    bavail: u64,
    files: u64,
    ffree: u64,
    favail: u64,
    fsid: u64,
    flag: u64,
    namemax: u64,
}

/// The head of `struct nfsdirent` (the fields iolab reads).
#[repr(C)]
struct DirEntry {
    next: *mut DirEntry,
    name: *mut c_char,
}

/// `struct nfs_url`.
#[repr(C)]
struct Url {
    server: *mut c_char,
    path: *mut c_char,
    file: *mut c_char,
}

/// libnfs's `rpc_cb`: context, status, the reply (or a message), the caller's pointer.
pub(super) type RpcCallback = unsafe extern "C" fn(*mut c_void, c_int, *mut c_void, *mut c_void);

/// `rpc_nfs3_<procedure>_async(rpc, cb, args, private)`.
pub(super) type Procedure =
    unsafe extern "C" fn(*mut c_void, RpcCallback, *mut c_void, *mut c_void) -> c_int;

/// The raw procedures iolab sends, resolved with the rest of libnfs.
pub(super) struct Procedures {
    pub(super) lookup: Procedure,
    pub(super) getattr: Procedure,
    pub(super) create: Procedure,
    pub(super) mkdir: Procedure,
    pub(super) write: Procedure,
    pub(super) commit: Procedure,
    pub(super) read: Procedure,
    pub(super) remove: Procedure,
    pub(super) rmdir: Procedure,
    pub(super) rename: Procedure,
    pub(super) readdirplus: Procedure,
}

/// libnfs's `struct nfs_fh`, the export root's handle.
#[repr(C)]
pub(super) struct RootHandle {
    pub(super) len: c_int,
    pub(super) data: *const u8,
}

/// The functions iolab calls, resolved once.
pub(super) struct Functions {
    _library: Library,
    init_context: unsafe extern "C" fn() -> *mut c_void,
    destroy_context: unsafe extern "C" fn(*mut c_void),
    get_error: unsafe extern "C" fn(*mut c_void) -> *mut c_char,
    set_version: unsafe extern "C" fn(*mut c_void, c_int) -> c_int,
    set_pagecache: unsafe extern "C" fn(*mut c_void, u32),
    set_readahead: unsafe extern "C" fn(*mut c_void, u32),
    set_timeout: unsafe extern "C" fn(*mut c_void, c_int),
    parse_url_dir: unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut Url,
    destroy_url: unsafe extern "C" fn(*mut Url),
    mount: unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int,
    get_readmax: unsafe extern "C" fn(*mut c_void) -> u64,
    get_writemax: unsafe extern "C" fn(*mut c_void) -> u64,
    create:
        unsafe extern "C" fn(*mut c_void, *const c_char, c_int, c_int, *mut *mut c_void) -> c_int,
    open: unsafe extern "C" fn(*mut c_void, *const c_char, c_int, *mut *mut c_void) -> c_int,
    close: unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int,
    pread: unsafe extern "C" fn(*mut c_void, *mut c_void, u64, u64, *mut c_void) -> c_int,
    pwrite: unsafe extern "C" fn(*mut c_void, *mut c_void, u64, u64, *const c_void) -> c_int,
    fsync: unsafe extern "C" fn(*mut c_void, *mut c_void) -> c_int,
    fstat64: unsafe extern "C" fn(*mut c_void, *mut c_void, *mut Stat64) -> c_int,
    stat64: unsafe extern "C" fn(*mut c_void, *const c_char, *mut Stat64) -> c_int,
    unlink: unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int,
    statvfs64: unsafe extern "C" fn(*mut c_void, *const c_char, *mut StatVfs64) -> c_int,
    opendir: unsafe extern "C" fn(*mut c_void, *const c_char, *mut *mut c_void) -> c_int,
    readdir: unsafe extern "C" fn(*mut c_void, *mut c_void) -> *mut DirEntry,
    closedir: unsafe extern "C" fn(*mut c_void, *mut c_void),
    ftruncate: unsafe extern "C" fn(*mut c_void, *mut c_void, u64) -> c_int,
    set_dircache: unsafe extern "C" fn(*mut c_void, c_int),
    pub(super) pread_async:
        unsafe extern "C" fn(*mut c_void, *mut c_void, u64, u64, Callback, *mut c_void) -> c_int,
    pub(super) pwrite_async: unsafe extern "C" fn(
        *mut c_void,
        *mut c_void,
        u64,
        u64,
        *const c_void,
        Callback,
        *mut c_void,
    ) -> c_int,
    pub(super) get_fd: unsafe extern "C" fn(*mut c_void) -> c_int,
    pub(super) which_events: unsafe extern "C" fn(*mut c_void) -> c_int,
    pub(super) service: unsafe extern "C" fn(*mut c_void, c_int) -> c_int,
    pub(super) get_rpc_context: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    /// Returns libnfs's own `struct nfs_fh` (`int len; char *val`) of the export's root.
    pub(super) get_rootfh: unsafe extern "C" fn(*mut c_void) -> *const RootHandle,
    pub(super) nfs3: Procedures,
}

/// Whether libnfs can be loaded here; the error names the package to install.
pub fn available() -> Result<(), String> {
    functions().map(drop)
}

/// libnfs, loaded once per process, or why it cannot be.
pub(super) fn functions() -> Result<&'static Functions, String> {
    static LOADED: OnceLock<Result<Functions, String>> = OnceLock::new();
    LOADED.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Functions, String> {
    let library = crate::engine::library::open(LIBRARY, "libnfs13")?;
    macro_rules! symbol {
        ($name:literal) => {
            // SAFETY: the type is the one libnfs 4.0's header declares.
            unsafe {
                crate::engine::library::symbol(&library, LIBRARY, $name, "libnfs 4.0 or later")
            }?
        };
    }
    let functions = Functions {
        init_context: symbol!("nfs_init_context"),
        destroy_context: symbol!("nfs_destroy_context"),
        get_error: symbol!("nfs_get_error"),
        set_version: symbol!("nfs_set_version"),
        set_pagecache: symbol!("nfs_set_pagecache"),
        set_readahead: symbol!("nfs_set_readahead"),
        set_timeout: symbol!("nfs_set_timeout"),
        parse_url_dir: symbol!("nfs_parse_url_dir"),
        destroy_url: symbol!("nfs_destroy_url"),
        mount: symbol!("nfs_mount"),
        get_readmax: symbol!("nfs_get_readmax"),
        get_writemax: symbol!("nfs_get_writemax"),
        create: symbol!("nfs_create"),
        open: symbol!("nfs_open"),
        close: symbol!("nfs_close"),
        pread: symbol!("nfs_pread"),
        pwrite: symbol!("nfs_pwrite"),
        fsync: symbol!("nfs_fsync"),
        fstat64: symbol!("nfs_fstat64"),
        stat64: symbol!("nfs_stat64"),
        unlink: symbol!("nfs_unlink"),
        statvfs64: symbol!("nfs_statvfs64"),
        opendir: symbol!("nfs_opendir"),
        readdir: symbol!("nfs_readdir"),
        closedir: symbol!("nfs_closedir"),
        ftruncate: symbol!("nfs_ftruncate"),
        set_dircache: symbol!("nfs_set_dircache"),
        pread_async: symbol!("nfs_pread_async"),
        pwrite_async: symbol!("nfs_pwrite_async"),
        get_fd: symbol!("nfs_get_fd"),
        which_events: symbol!("nfs_which_events"),
        service: symbol!("nfs_service"),
        get_rpc_context: symbol!("nfs_get_rpc_context"),
        get_rootfh: symbol!("nfs_get_rootfh"),
        nfs3: Procedures {
            lookup: symbol!("rpc_nfs3_lookup_async"),
            getattr: symbol!("rpc_nfs3_getattr_async"),
            create: symbol!("rpc_nfs3_create_async"),
            mkdir: symbol!("rpc_nfs3_mkdir_async"),
            write: symbol!("rpc_nfs3_write_async"),
            commit: symbol!("rpc_nfs3_commit_async"),
            read: symbol!("rpc_nfs3_read_async"),
            remove: symbol!("rpc_nfs3_remove_async"),
            rmdir: symbol!("rpc_nfs3_rmdir_async"),
            rename: symbol!("rpc_nfs3_rename_async"),
            readdirplus: symbol!("rpc_nfs3_readdirplus_async"),
        },
        _library: library,
    };
    // The RPC accounting's hooks go in before any context exists; a
    // library they cannot be put in still serves, uncounted.
    super::wire::install(LIBRARY);
    Ok(functions)
}

/// One client connection, mounted: libnfs's `nfs_context`.
pub struct Context {
    pub(super) functions: &'static Functions,
    pub(super) raw: *mut c_void,
    pub export: String,
    /// The directory inside the export the URL named ("" for its root).
    pub dir: String,
}

// SAFETY: a context is used by one thread at a time (it moves into a job's
// thread, or is shared behind a mutex); libnfs keeps no thread-local state.
unsafe impl Send for Context {}

/// An open file on the export: libnfs's `nfsfh`, closed on drop.
pub struct File<'a> {
    pub(super) context: &'a Context,
    pub(super) raw: *mut c_void,
}

fn c_string(text: &str) -> io::Result<CString> {
    CString::new(text)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a path"))
}

impl Context {
    /// Connects to `url`'s server over NFSv3 and mounts its export: the
    /// longest leading part of the URL's path the server lets mount, the
    /// rest being a directory inside it. libnfs's own client cache and
    /// read-ahead are off: every read is a READ on the wire.
    pub fn connect(url: &super::url::NfsUrl) -> io::Result<Context> {
        let functions = functions().map_err(io::Error::other)?;
        // SAFETY: no preconditions; NULL is checked.
        let raw = unsafe { (functions.init_context)() };
        if raw.is_null() {
            return Err(io::Error::other("libnfs could not make a context"));
        }
        let mut context = Context {
            functions,
            raw,
            export: String::new(),
            dir: String::new(),
        };
        // SAFETY: `raw` is a live context for all the calls below.
        unsafe {
            (functions.set_pagecache)(raw, 0);
            (functions.set_readahead)(raw, 0);
            // Every directory listing goes to the server.
            (functions.set_dircache)(raw, 0);
            (functions.set_timeout)(raw, url.timeout_ms);
        }
        context.check(
            unsafe { (functions.set_version)(raw, 3) },
            "set NFS version 3",
        )?;
        // libnfs applies the URL's arguments (nfsport, mountport) to the context.
        let text = c_string(&url.for_libnfs())?;
        // SAFETY: live context, NUL-terminated URL; the result is freed below.
        let parsed = unsafe { (functions.parse_url_dir)(raw, text.as_ptr()) };
        if parsed.is_null() {
            return Err(context.error(-libc::EINVAL, "parse the URL"));
        }
        // SAFETY: `parsed` is the nfs_url libnfs returned, destroyed once.
        unsafe { (functions.destroy_url)(parsed) };
        let server = c_string(&url.host)?;
        let mut last = None;
        for (export, dir) in url.mount_candidates() {
            let path = c_string(&export)?;
            // SAFETY: live context, NUL-terminated strings.
            let status = unsafe { (functions.mount)(raw, server.as_ptr(), path.as_ptr()) };
            if status == 0 {
                (context.export, context.dir) = (export, dir);
                return Ok(context);
            }
            last = Some(context.error(status, &format!("mount {export}")));
        }
        Err(last.unwrap_or_else(|| io::Error::other("the URL names no export")))
    }

    /// The connection's socket, while there is one.
    pub fn socket(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        // SAFETY: live context; the descriptor stays open as long as it.
        let fd = unsafe { (self.functions.get_fd)(self.raw) };
        // SAFETY: a descriptor libnfs owns, borrowed no longer than the context.
        (fd >= 0).then(|| unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) })
    }

    /// The largest READ the server takes, bytes.
    pub fn read_max(&self) -> u64 {
        // SAFETY: live context.
        unsafe { (self.functions.get_readmax)(self.raw) }
    }

    /// The largest WRITE the server takes, bytes.
    pub fn write_max(&self) -> u64 {
        // SAFETY: live context.
        unsafe { (self.functions.get_writemax)(self.raw) }
    }

    /// The path of `name` inside the export, as libnfs takes it.
    pub fn path_of(&self, name: &str) -> String {
        match self.dir.as_str() {
            "" => format!("/{name}"),
            dir => format!("/{dir}/{name}"),
        }
    }

    /// Creates `path` exclusively (`O_CREAT|O_EXCL`, mode 0600): an
    /// existing file is never opened for writing by mistake.
    pub fn create_new(&self, path: &str) -> io::Result<File<'_>> {
        let name = c_string(path)?;
        let mut raw = std::ptr::null_mut();
        let flags = libc::O_CREAT | libc::O_EXCL | libc::O_RDWR;
        // SAFETY: live context, NUL-terminated path, `raw` written on success.
        let status =
            unsafe { (self.functions.create)(self.raw, name.as_ptr(), flags, 0o600, &mut raw) };
        self.check(status, &format!("create {path}"))?;
        Ok(File { context: self, raw })
    }

    /// Opens the existing `path`, for writing too when `write`.
    pub fn open(&self, path: &str, write: bool) -> io::Result<File<'_>> {
        self.open_with(path, write, false)
    }

    /// Opens the existing `path`, for writing too when `write`; with
    /// `file_sync` every WRITE is FILE_SYNC (libnfs's O_SYNC) instead of UNSTABLE.
    pub fn open_with(&self, path: &str, write: bool, file_sync: bool) -> io::Result<File<'_>> {
        let name = c_string(path)?;
        let mut raw = std::ptr::null_mut();
        let mut flags = if write { libc::O_RDWR } else { libc::O_RDONLY };
        if file_sync {
            flags |= libc::O_SYNC;
        }
        // SAFETY: live context, NUL-terminated path, `raw` written on success.
        let status = unsafe { (self.functions.open)(self.raw, name.as_ptr(), flags, &mut raw) };
        self.check(status, &format!("open {path}"))?;
        Ok(File { context: self, raw })
    }

    /// The URL's directory on the export: its file id and whether it is a
    /// directory (LOOKUP and GETATTR); an error when it is not there.
    pub fn directory(&self) -> io::Result<(u64, bool)> {
        let path = match self.dir.as_str() {
            "" => "/".to_string(),
            dir => format!("/{dir}"),
        };
        let name = c_string(&path)?;
        let mut stat = Stat64::default();
        // SAFETY: live context, NUL-terminated path, `stat` is the struct libnfs fills.
        let status = unsafe { (self.functions.stat64)(self.raw, name.as_ptr(), &mut stat) };
        self.check(status, &format!("look up {path}"))?;
        let is_dir = stat.mode & u64::from(libc::S_IFMT) == u64::from(libc::S_IFDIR);
        Ok((stat.ino, is_dir))
    }

    /// Removes `path` (REMOVE).
    pub fn unlink(&self, path: &str) -> io::Result<()> {
        let name = c_string(path)?;
        // SAFETY: live context, NUL-terminated path.
        let status = unsafe { (self.functions.unlink)(self.raw, name.as_ptr()) };
        self.check(status, &format!("remove {path}"))
    }

    /// Bytes an unprivileged writer may still use in the export's directory (FSSTAT).
    pub fn available_bytes(&self) -> io::Result<u64> {
        let path = c_string(&self.path_of(""))?;
        let mut stat = StatVfs64::default();
        // SAFETY: live context, NUL-terminated path, `stat` is the struct libnfs fills.
        let status = unsafe { (self.functions.statvfs64)(self.raw, path.as_ptr(), &mut stat) };
        self.check(status, "FSSTAT")?;
        Ok(stat.bavail.saturating_mul(stat.frsize.max(stat.bsize)))
    }

    /// The names in the URL's directory (READDIRPLUS).
    pub fn list(&self) -> io::Result<Vec<String>> {
        let path = c_string(&self.path_of(""))?;
        let mut dir = std::ptr::null_mut();
        // SAFETY: live context, NUL-terminated path, `dir` written on success.
        let status = unsafe { (self.functions.opendir)(self.raw, path.as_ptr(), &mut dir) };
        self.check(status, "READDIR")?;
        let mut names = Vec::new();
        loop {
            // SAFETY: `dir` is open until closedir below; entries live as long.
            let entry = unsafe { (self.functions.readdir)(self.raw, dir) };
            if entry.is_null() {
                break;
            }
            // SAFETY: a live entry's NUL-terminated name, copied at once.
            let name = unsafe { (*entry).name };
            if !name.is_null() {
                names.push(
                    unsafe { CStr::from_ptr(name) }
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
        // SAFETY: `dir` is open and not used after this.
        unsafe { (self.functions.closedir)(self.raw, dir) };
        Ok(names)
    }

    /// The export's free inodes, inodes and free bytes (FSSTAT).
    pub fn free(&self) -> io::Result<(u64, u64, u64)> {
        let path = c_string(&self.path_of(""))?;
        let mut stat = StatVfs64::default();
        // SAFETY: live context, NUL-terminated path, `stat` is the struct libnfs fills.
        let status = unsafe { (self.functions.statvfs64)(self.raw, path.as_ptr(), &mut stat) };
        self.check(status, "FSSTAT")?;
        Ok((
            stat.ffree,
            stat.files,
            stat.bavail.saturating_mul(stat.frsize.max(stat.bsize)),
        ))
    }

    /// `status` as a result: libnfs returns a negated errno, with its own message.
    pub(super) fn check(&self, status: c_int, what: &str) -> io::Result<()> {
        if status >= 0 {
            Ok(())
        } else {
            Err(self.error(status, what))
        }
    }

    /// The error of a call that returned `status`, with libnfs's message.
    pub(super) fn error(&self, status: c_int, what: &str) -> io::Error {
        // SAFETY: live context; the message is libnfs's, copied at once.
        let message = unsafe {
            let text = (self.functions.get_error)(self.raw);
            if text.is_null() {
                String::new()
            } else {
                CStr::from_ptr(text).to_string_lossy().into_owned()
            }
        };
        let errno = if status < 0 { -status } else { libc::EIO };
        let os = io::Error::from_raw_os_error(errno);
        // libnfs's message says what failed; its status is often a bare -1.
        let message = match message.trim() {
            "" => os.to_string(),
            text => text.to_string(),
        };
        io::Error::new(os.kind(), format!("{what}: {message}"))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: the context is live and not used after this (its files
        // borrow it, so they are closed already).
        unsafe { (self.functions.destroy_context)(self.raw) };
    }
}

impl File<'_> {
    /// Closes the file, checking the result: libnfs commits a file written
    /// UNSTABLE when it is closed (COMMIT), and that can fail.
    pub fn close(self) -> io::Result<()> {
        let c = self.context;
        let raw = self.raw;
        std::mem::forget(self);
        // SAFETY: live context and handle, closed once (the drop is skipped).
        let status = unsafe { (c.functions.close)(c.raw, raw) };
        c.check(status, "close")
    }

    /// Reads into `buffer` at `offset`; returns the bytes read.
    pub fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
        let c = self.context;
        // SAFETY: live context and handle; `buffer` is writable for its length.
        let status = unsafe {
            (c.functions.pread)(
                c.raw,
                self.raw,
                offset,
                buffer.len() as u64,
                buffer.as_mut_ptr().cast(),
            )
        };
        c.check(status, &format!("READ at {offset}"))?;
        Ok(status as usize)
    }

    /// Writes `buffer` at `offset` (UNSTABLE until committed); returns the bytes written.
    pub fn write_at(&self, buffer: &[u8], offset: u64) -> io::Result<usize> {
        let c = self.context;
        // SAFETY: live context and handle; `buffer` is readable for its length.
        let status = unsafe {
            (c.functions.pwrite)(
                c.raw,
                self.raw,
                offset,
                buffer.len() as u64,
                buffer.as_ptr().cast(),
            )
        };
        c.check(status, &format!("WRITE at {offset}"))?;
        Ok(status as usize)
    }

    /// Commits everything written to stable storage (COMMIT).
    pub fn commit(&self) -> io::Result<()> {
        let c = self.context;
        // SAFETY: live context and handle.
        c.check(unsafe { (c.functions.fsync)(c.raw, self.raw) }, "COMMIT")
    }

    /// Sets the file's length (SETATTR).
    pub fn set_length(&self, length: u64) -> io::Result<()> {
        let c = self.context;
        // SAFETY: live context and handle.
        c.check(
            unsafe { (c.functions.ftruncate)(c.raw, self.raw, length) },
            "SETATTR size",
        )
    }

    /// The file's length (GETATTR).
    pub fn length(&self) -> io::Result<u64> {
        Ok(self.attributes()?.size)
    }

    /// The file's id on the server (its inode number, for a server that
    /// exports a local file system) and its length (GETATTR).
    pub fn identity(&self) -> io::Result<(u64, u64)> {
        let stat = self.attributes()?;
        Ok((stat.ino, stat.size))
    }

    /// Whether it is a regular file (GETATTR's type), not a directory, link or device.
    pub fn is_regular(&self) -> io::Result<bool> {
        Ok(self.attributes()?.mode & u64::from(libc::S_IFMT) == u64::from(libc::S_IFREG))
    }

    fn attributes(&self) -> io::Result<Stat64> {
        let c = self.context;
        let mut stat = Stat64::default();
        // SAFETY: live context and handle; `stat` is the struct libnfs fills.
        c.check(
            unsafe { (c.functions.fstat64)(c.raw, self.raw, &mut stat) },
            "GETATTR",
        )?;
        Ok(stat)
    }
}

impl Drop for File<'_> {
    fn drop(&mut self) {
        let c = self.context;
        // SAFETY: live context and handle, not used after this.
        unsafe { (c.functions.close)(c.raw, self.raw) };
    }
}
