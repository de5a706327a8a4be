//! NFSv3 procedures on file handles (LOOKUP, CREATE, REMOVE, …) through
//! libnfs's RPC layer, each sent and waited for on a context's connection:
//! a tree walked one name at a time from a directory's handle, so no
//! symbolic link is ever followed.
//!
//! libnfs's path calls (`nfs_create`, `nfs_unlink`, …) resolve every path
//! from the export's root and follow a link met on the way, and libnfs 4.0
//! has no `*at` call. Here a directory is looked up once, its handle kept,
//! and every item is one procedure on `(directory handle, name)`: what
//! `openat2(RESOLVE_NO_SYMLINKS)` and the `*at` calls give a local tree.
//! A link is only ever seen as a link (LOOKUP does not follow one).
//!
//! The structures the calls and replies are laid out in are `xdr`'s.

use super::libnfs::{Context, Procedure, Procedures};
pub use super::xdr::{Attributes, Kind};
use super::xdr::{
    CreateArgs, DirOp, Fh3, GetattrReply, LookupReply, MadeReply, MkdirArgs, RangeArgs, ReadReply,
    ReaddirplusArgs, ReaddirplusReply, RenameArgs, Sattr3, WriteArgs, WriteReply, nfs_error,
};
use crate::engine::callbacks::wait_for_socket;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::io;

/// The largest NFSv3 file handle, bytes (`NFS3_FHSIZE`).
pub const HANDLE_SIZE: usize = 64;

/// An NFSv3 file handle, copied out of a reply.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Handle {
    len: u32,
    data: [u8; HANDLE_SIZE],
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Handle({} bytes)", self.len)
    }
}

impl Handle {
    fn from_raw(len: u32, data: *const u8) -> Handle {
        let mut handle = Handle {
            len: len.min(HANDLE_SIZE as u32),
            data: [0; HANDLE_SIZE],
        };
        if !data.is_null() {
            // SAFETY: libnfs's handle holds `len` bytes at `data`; at most HANDLE_SIZE copied.
            unsafe {
                std::ptr::copy_nonoverlapping(data, handle.data.as_mut_ptr(), handle.len as usize)
            };
        }
        handle
    }

    fn raw(&self) -> Fh3 {
        Fh3 {
            len: self.len,
            data: self.data.as_ptr(),
        }
    }
}

/// `stable_how` of a WRITE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stable {
    /// UNSTABLE: the server may keep it in memory until a COMMIT.
    Unstable = 0,
    /// FILE_SYNC: on stable storage, data and metadata, when the reply comes.
    FileSync = 2,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Status,
    Lookup,
    Made,
    Getattr,
    Write,
    Read,
    Readdirplus,
}

/// A name handed to a listing's caller: what READDIRPLUS said of it.
type EachEntry<'e> = dyn FnMut(&CStr, Option<Kind>) + 'e;

/// Where the callback leaves a reply: one per [`Handles`], reused by
/// every call (no allocation per call).
struct Slot {
    expect: Expect,
    done: bool,
    /// The RPC layer's status: 0 success, 1 error, 2 cancelled, 3 timed out.
    rpc_status: c_int,
    /// The RPC layer's message for a failed call.
    message: Option<String>,
    /// `nfsstat3` of the reply.
    nfs_status: u32,
    handle: Option<Handle>,
    attributes: Option<Attributes>,
    count: u32,
    eof: bool,
    /// A READ's destination and its length; null once the call is left.
    read_into: *mut u8,
    read_len: usize,
    /// A listing's caller, for the call's duration only.
    each: Option<*mut EachEntry<'static>>,
    cookie: u64,
    verifier: [u8; 8],
}

impl Slot {
    fn new() -> Slot {
        Slot {
            expect: Expect::Status,
            done: false,
            rpc_status: 0,
            message: None,
            nfs_status: 0,
            handle: None,
            attributes: None,
            count: 0,
            eof: false,
            read_into: std::ptr::null_mut(),
            read_len: 0,
            each: None,
            cookie: 0,
            verifier: [0; 8],
        }
    }
}

/// libnfs's callback for every call sent here: copies what the reply
/// says into the slot while the reply is alive (it is freed on return).
unsafe extern "C" fn replied(
    _rpc: *mut c_void,
    status: c_int,
    data: *mut c_void,
    slot: *mut c_void,
) {
    // SAFETY: `slot` is the Handles' slot, alive until after the context
    // is destroyed when a call was left (see Handles's Drop).
    let slot = unsafe { &mut *(slot as *mut Slot) };
    slot.done = true;
    slot.rpc_status = status;
    if status != 0 {
        if status == 1 && !data.is_null() {
            // SAFETY: on RPC_STATUS_ERROR libnfs passes a NUL-terminated message.
            let text = unsafe { CStr::from_ptr(data as *const c_char) };
            slot.message = Some(text.to_string_lossy().into_owned());
        }
        return;
    }
    if data.is_null() {
        slot.rpc_status = 1;
        return;
    }
    // SAFETY: every reply begins with its nfsstat3.
    slot.nfs_status = unsafe { *(data as *const u32) };
    if slot.nfs_status != 0 {
        return;
    }
    // SAFETY: for NFS3_OK the data is the `expect`ed procedure's reply,
    // laid out as declared above, alive for the callback.
    unsafe {
        match slot.expect {
            Expect::Status => {}
            Expect::Lookup => {
                let reply = &*(data as *const LookupReply);
                slot.handle = Some(Handle::from_raw(reply.object.len, reply.object.data));
                slot.attributes = reply.attributes.get();
            }
            Expect::Made => {
                let reply = &*(data as *const MadeReply);
                slot.handle = (reply.handle.follows != 0)
                    .then(|| Handle::from_raw(reply.handle.handle.len, reply.handle.handle.data));
                slot.attributes = reply.attributes.get();
            }
            Expect::Getattr => {
                let reply = &*(data as *const GetattrReply);
                slot.attributes = Some(Attributes {
                    kind: Kind::of(reply.attributes.ftype),
                    size: reply.attributes.size,
                });
            }
            Expect::Write => slot.count = (*(data as *const WriteReply)).count,
            Expect::Read => {
                let reply = &*(data as *const ReadReply);
                let copied = (reply.data.len as usize).min(slot.read_len);
                if !slot.read_into.is_null() && !reply.data.data.is_null() {
                    std::ptr::copy_nonoverlapping(reply.data.data, slot.read_into, copied);
                }
                slot.count = copied as u32;
                slot.eof = reply.eof != 0;
            }
            Expect::Readdirplus => {
                let reply = &*(data as *const ReaddirplusReply);
                slot.verifier = reply.verifier;
                slot.eof = reply.eof != 0;
                let mut entry = reply.entries;
                while let Some(current) = entry.as_ref() {
                    slot.cookie = current.cookie;
                    if let (Some(each), false) = (slot.each, current.name.is_null()) {
                        let name = CStr::from_ptr(current.name);
                        if name.to_bytes() != b"." && name.to_bytes() != b".." {
                            (*each)(name, current.attributes.get().map(|a| a.kind));
                        }
                    }
                    entry = current.next;
                }
            }
        }
    }
}

/// NFSv3 procedures by handle on `context`'s connection, one at a time.
pub struct Handles<'a> {
    context: &'a Context,
    rpc: *mut c_void,
    slot: Box<Slot>,
    /// A call was left unanswered (the connection failed): libnfs may
    /// still call back into the slot, up to the context's destruction.
    left: bool,
}

impl<'a> Handles<'a> {
    /// Calls on `context`'s connection.
    pub fn new(context: &'a Context) -> Handles<'a> {
        // SAFETY: live context; its RPC context lives as long.
        let rpc = unsafe { (context.functions.get_rpc_context)(context.raw) };
        Handles {
            context,
            rpc,
            slot: Box::new(Slot::new()),
            left: false,
        }
    }

    /// The handle of the mounted export's root.
    pub fn export_root(&self) -> io::Result<Handle> {
        // SAFETY: live context; the handle is libnfs's, copied at once.
        let root = unsafe { (self.context.functions.get_rootfh)(self.context.raw).as_ref() };
        match root {
            Some(root) if root.len > 0 => Ok(Handle::from_raw(root.len as u32, root.data)),
            _ => Err(io::Error::other(
                "libnfs has no handle of the export's root",
            )),
        }
    }

    /// The directory at `path` (`a/b/c`, relative to `from`, which is
    /// shown as `shown`), one LOOKUP per component; a component that is not
    /// a directory (a link among them) is refused with an error of kind
    /// `NotADirectory` that names it.
    pub fn directory(
        &mut self,
        from: &Handle,
        path: &str,
        shown: &std::path::Path,
    ) -> io::Result<Handle> {
        let mut at = *from;
        let mut shown = shown.to_path_buf();
        let mut name = Vec::with_capacity(256);
        for component in path.split('/').filter(|c| !c.is_empty()) {
            shown.push(component);
            name.clear();
            name.extend_from_slice(component.as_bytes());
            name.push(0);
            let component = CStr::from_bytes_with_nul(&name)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a path"))?;
            let (handle, attributes) = self.lookup(&at, component).map_err(|error| {
                io::Error::new(error.kind(), format!("{}: {error}", shown.display()))
            })?;
            match attributes.kind {
                Kind::Directory => at = handle,
                kind => {
                    return Err(io::Error::new(
                        io::ErrorKind::NotADirectory,
                        format!(
                            "{} is {} where a directory was expected",
                            shown.display(),
                            match kind {
                                Kind::Link => "a symbolic link (not followed)",
                                _ => "not a directory",
                            }
                        ),
                    ));
                }
            }
        }
        Ok(at)
    }

    /// `name` in `dir`, not followed when it is a link (LOOKUP; a GETATTR
    /// too when the server sent no attributes with it).
    pub fn lookup(&mut self, dir: &Handle, name: &CStr) -> io::Result<(Handle, Attributes)> {
        let mut args = DirOp {
            dir: dir.raw(),
            name: name.as_ptr(),
        };
        self.call(
            self.procedures().lookup,
            Expect::Lookup,
            &mut args,
            "LOOKUP",
        )?;
        let handle = self
            .slot
            .handle
            .expect("a LOOKUP's reply carries the handle");
        let attributes = match self.slot.attributes {
            Some(attributes) => attributes,
            None => self.getattr(&handle)?,
        };
        Ok((handle, attributes))
    }

    /// The attributes of `handle` (GETATTR).
    pub fn getattr(&mut self, handle: &Handle) -> io::Result<Attributes> {
        let mut args = handle.raw();
        self.call(
            self.procedures().getattr,
            Expect::Getattr,
            &mut args,
            "GETATTR",
        )?;
        Ok(self
            .slot
            .attributes
            .expect("a GETATTR's reply carries them"))
    }

    /// Creates the file `name` in `dir` with `mode`, failing when the name
    /// exists (CREATE GUARDED); its handle (LOOKUP when the reply has none).
    pub fn create(&mut self, dir: &Handle, name: &CStr, mode: u32) -> io::Result<Handle> {
        let mut args = CreateArgs {
            place: DirOp {
                dir: dir.raw(),
                name: name.as_ptr(),
            },
            how: 1,
            attributes: Sattr3::mode(mode),
        };
        self.call(self.procedures().create, Expect::Made, &mut args, "CREATE")?;
        self.made(dir, name)
    }

    /// Makes the directory `name` in `dir` (MKDIR, mode 0755); its handle.
    pub fn mkdir(&mut self, dir: &Handle, name: &CStr) -> io::Result<Handle> {
        let mut args = MkdirArgs {
            place: DirOp {
                dir: dir.raw(),
                name: name.as_ptr(),
            },
            attributes: Sattr3::mode(0o755),
        };
        self.call(self.procedures().mkdir, Expect::Made, &mut args, "MKDIR")?;
        self.made(dir, name)
    }

    fn made(&mut self, dir: &Handle, name: &CStr) -> io::Result<Handle> {
        match self.slot.handle {
            Some(handle) => Ok(handle),
            None => Ok(self.lookup(dir, name)?.0),
        }
    }

    /// Writes `data` at `offset`; the bytes the server took.
    pub fn write(
        &mut self,
        file: &Handle,
        offset: u64,
        data: &[u8],
        stable: Stable,
    ) -> io::Result<u32> {
        let mut args = WriteArgs {
            file: file.raw(),
            offset,
            count: data.len() as u32,
            stable: stable as u32,
            data: Fh3 {
                len: data.len() as u32,
                data: data.as_ptr(),
            },
        };
        self.call(self.procedures().write, Expect::Write, &mut args, "WRITE")?;
        Ok(self.slot.count)
    }

    /// Commits everything written UNSTABLE to `file` (COMMIT of the whole file).
    pub fn commit(&mut self, file: &Handle) -> io::Result<()> {
        let mut args = RangeArgs {
            file: file.raw(),
            offset: 0,
            count: 0,
        };
        self.call(
            self.procedures().commit,
            Expect::Status,
            &mut args,
            "COMMIT",
        )
    }

    /// Reads into `buffer` at `offset`: the bytes read, and whether the
    /// file ends there.
    pub fn read(
        &mut self,
        file: &Handle,
        offset: u64,
        buffer: &mut [u8],
    ) -> io::Result<(usize, bool)> {
        let mut args = RangeArgs {
            file: file.raw(),
            offset,
            count: buffer.len() as u32,
        };
        self.slot.read_into = buffer.as_mut_ptr();
        self.slot.read_len = buffer.len();
        let result = self.call(self.procedures().read, Expect::Read, &mut args, "READ");
        self.slot.read_into = std::ptr::null_mut();
        result?;
        Ok((self.slot.count as usize, self.slot.eof))
    }

    /// Removes the file (or link) `name` in `dir` (REMOVE).
    pub fn remove(&mut self, dir: &Handle, name: &CStr) -> io::Result<()> {
        let mut args = DirOp {
            dir: dir.raw(),
            name: name.as_ptr(),
        };
        self.call(
            self.procedures().remove,
            Expect::Status,
            &mut args,
            "REMOVE",
        )
    }

    /// Removes the empty directory `name` in `dir` (RMDIR).
    pub fn rmdir(&mut self, dir: &Handle, name: &CStr) -> io::Result<()> {
        let mut args = DirOp {
            dir: dir.raw(),
            name: name.as_ptr(),
        };
        self.call(self.procedures().rmdir, Expect::Status, &mut args, "RMDIR")
    }

    /// Renames `from` in `dir` to `to` in the same directory (RENAME;
    /// NFSv3 has no "no replace": the caller knows `to` is absent).
    pub fn rename(&mut self, dir: &Handle, from: &CStr, to: &CStr) -> io::Result<()> {
        let mut args = RenameArgs {
            from: DirOp {
                dir: dir.raw(),
                name: from.as_ptr(),
            },
            to: DirOp {
                dir: dir.raw(),
                name: to.as_ptr(),
            },
        };
        self.call(
            self.procedures().rename,
            Expect::Status,
            &mut args,
            "RENAME",
        )
    }

    /// Lists `dir` to its end (READDIRPLUS, as many as it takes): each
    /// name but `.` and `..`, with its kind when the server said it.
    pub fn list(&mut self, dir: &Handle, each: &mut EachEntry<'_>) -> io::Result<()> {
        self.slot.cookie = 0;
        self.slot.verifier = [0; 8];
        // SAFETY: only the lifetime is erased; the pointer is cleared
        // before this returns, and the callback reads it only meanwhile.
        let each: *mut EachEntry<'static> = unsafe { std::mem::transmute(each) };
        self.slot.each = Some(each);
        let result = loop {
            let mut args = ReaddirplusArgs {
                dir: dir.raw(),
                cookie: self.slot.cookie,
                verifier: self.slot.verifier,
                dircount: 8192,
                maxcount: 32768,
            };
            let sent = self.call(
                self.procedures().readdirplus,
                Expect::Readdirplus,
                &mut args,
                "READDIRPLUS",
            );
            match sent {
                Ok(()) if self.slot.eof => break Ok(()),
                // No entry and no end: the same cookie would loop forever.
                Ok(()) if self.slot.cookie == args.cookie => {
                    break Err(io::Error::other(
                        "READDIRPLUS: the server sent no entry and no end of the directory",
                    ));
                }
                Ok(()) => {}
                Err(error) => break Err(error),
            }
        };
        self.slot.each = None;
        result
    }

    fn procedures(&self) -> &'static Procedures {
        &self.context.functions.nfs3
    }

    /// Sends one call and services the connection until its reply (or
    /// libnfs's timeout, or the connection's failure).
    fn call<A>(
        &mut self,
        procedure: Procedure,
        expect: Expect,
        args: &mut A,
        name: &'static str,
    ) -> io::Result<()> {
        if self.left {
            return Err(io::Error::other(format!(
                "{name}: the connection failed on an earlier call"
            )));
        }
        let slot = &mut *self.slot;
        slot.expect = expect;
        slot.done = false;
        slot.rpc_status = 0;
        slot.nfs_status = 0;
        slot.handle = None;
        slot.attributes = None;
        slot.count = 0;
        slot.eof = false;
        let slot_pointer = slot as *mut Slot as *mut c_void;
        // SAFETY: live RPC context; `args` is the procedure's argument
        // structure, encoded before this returns; the slot outlives the call.
        let sent = unsafe { procedure(self.rpc, replied, (args as *mut A).cast(), slot_pointer) };
        if sent != 0 {
            return Err(self.context.error(-libc::EIO, name));
        }
        let functions = self.context.functions;
        while !self.slot.done {
            // SAFETY: live context.
            let (fd, events) = unsafe {
                (
                    (functions.get_fd)(self.context.raw),
                    (functions.which_events)(self.context.raw),
                )
            };
            let revents = match wait_for_socket(fd, events, 100) {
                Ok(revents) => revents,
                Err(error) => {
                    self.left = true;
                    return Err(error);
                }
            };
            // Serviced also when nothing is ready: libnfs times out calls there.
            // SAFETY: live context; the callback writes only the slot.
            let status = unsafe { (functions.service)(self.context.raw, revents) };
            if status < 0 && !self.slot.done {
                self.left = true;
                return Err(self.context.error(status, name));
            }
        }
        let slot = &mut *self.slot;
        match slot.rpc_status {
            0 if slot.nfs_status == 0 => Ok(()),
            0 => {
                let (errno, text) = nfs_error(slot.nfs_status);
                let os = io::Error::from_raw_os_error(errno);
                Err(io::Error::new(os.kind(), format!("{name}: {text} ({os})")))
            }
            status => {
                let why = slot.message.take().unwrap_or_else(|| {
                    match status {
                        2 => "cancelled",
                        3 => "no reply within the timeout",
                        _ => "the RPC failed",
                    }
                    .to_string()
                });
                let kind = if status == 3 {
                    io::ErrorKind::TimedOut
                } else {
                    io::ErrorKind::Other
                };
                Err(io::Error::new(kind, format!("{name}: {why}")))
            }
        }
    }
}

impl Drop for Handles<'_> {
    fn drop(&mut self) {
        if self.left {
            // libnfs may still call back into the slot (when the context is
            // destroyed at the latest): it stays allocated for that, with
            // nowhere to copy to.
            self.slot.read_into = std::ptr::null_mut();
            self.slot.each = None;
            Box::leak(std::mem::replace(&mut self.slot, Box::new(Slot::new())));
        }
    }
}
