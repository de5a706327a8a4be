//! libiscsi, the userspace iSCSI initiator fio's `libiscsi` engine and
//! QEMU use, loaded at run time (Debian package libiscsi7), and a
//! [`Context`] that owns one logged-in session to one LUN.
//!
//! Loaded with dlopen rather than linked, so building iolab needs nothing
//! but Rust and a machine without it gets one line naming the package. A
//! context is one TCP connection and is not thread-safe: every job makes
//! its own, as fio's engine does. The untimed work (capacity, layout,
//! verification, the signature check) uses the synchronous calls; the
//! engine ([`super::IscsiIo`]) the asynchronous ones.

use super::url::IscsiUrl;
use libloading::Library;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::io;
use std::sync::OnceLock;

/// The library's file name, as the package installs it.
pub const LIBRARY: &str = "libiscsi.so.7";

/// libiscsi's completion callback: context, SCSI status, the task, the caller's pointer.
pub type Callback = unsafe extern "C" fn(*mut c_void, c_int, *mut c_void, *mut c_void);

/// `SCSI_STATUS_GOOD`.
pub const STATUS_GOOD: c_int = 0;
/// `SCSI_STATUS_CHECK_CONDITION`.
pub const STATUS_CHECK_CONDITION: c_int = 2;
/// The sense key of a target's report of a change (SPC-4, 4.5.6).
const SENSE_UNIT_ATTENTION: c_int = 6;
/// `SCSI_STATUS_BUSY`.
pub const STATUS_BUSY: c_int = 8;
/// `SCSI_STATUS_CANCELLED`: the task was abandoned (connection lost, context destroyed).
pub const STATUS_CANCELLED: c_int = 0x0f00_0000;
/// `SCSI_STATUS_ERROR`: the transport failed.
pub const STATUS_ERROR: c_int = 0x0f00_0001;
/// `SCSI_STATUS_TIMEOUT`: no reply within the context's timeout.
pub const STATUS_TIMEOUT: c_int = 0x0f00_0002;

/// `struct scsi_iovec`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ScsiIovec {
    /// Where the bytes are.
    pub base: *mut c_void,
    /// How many.
    pub len: usize,
}

/// The head of `struct scsi_task` (scsi-lowlevel.h), the fields iolab
/// reads; its layout has not changed from libiscsi 1.9 to 1.20.
#[repr(C)]
struct TaskHead {
    status: c_int,
    cdb_size: c_int,
    xfer_dir: c_int,
    expxferlen: c_int,
    cdb: [u8; 16],
    residual_status: c_int,
    residual: usize,
    sense_error_type: u8,
    sense_key: c_int,
    sense_ascq: c_int,
}

/// `SCSI_RESIDUAL_UNDERFLOW`: fewer bytes moved than the command asked for.
const RESIDUAL_UNDERFLOW: c_int = 1;

/// `struct scsi_readcapacity16`.
#[repr(C)]
struct ReadCapacity16 {
    returned_lba: u64,
    block_length: u32,
    prot_en: u8,
    p_type: u8,
    p_i_exp: u8,
    lbppbe: u8,
    /// Logical block provisioning management enabled: the LUN takes UNMAP.
    lbpme: u8,
    lbprz: u8,
    lalba: u16,
}

/// `struct unmap_list`: one range of logical blocks an UNMAP frees.
#[repr(C)]
pub struct UnmapList {
    /// The first logical block.
    pub lba: u64,
    /// How many blocks.
    pub num: u32,
}

/// A task libiscsi returned, freed on drop.
pub struct Task {
    functions: &'static Functions,
    raw: *mut c_void,
}

impl Task {
    /// Its SCSI status.
    fn head(&self) -> &TaskHead {
        // SAFETY: a live task, whose head has this layout.
        unsafe { &*(self.raw as *const TaskHead) }
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        // SAFETY: a task libiscsi made, freed once.
        unsafe { (self.functions.free_task)(self.raw) };
    }
}

/// What a finished task moved, or why it failed: the bytes moved, or the
/// status with the sense key and code when there was one.
///
/// # Safety
/// `task` must be a live task whose command asked for `asked` bytes.
pub unsafe fn outcome(status: c_int, task: *mut c_void, asked: usize) -> Result<usize, String> {
    // SAFETY: the caller's promise.
    let head = unsafe { &*(task as *const TaskHead) };
    match status {
        STATUS_GOOD if head.residual_status == RESIDUAL_UNDERFLOW => {
            Ok(asked.saturating_sub(head.residual))
        }
        STATUS_GOOD => Ok(asked),
        STATUS_CHECK_CONDITION => Err(format!(
            "CHECK CONDITION, sense key {} ({}), additional sense 0x{:04x}",
            head.sense_key,
            sense_key_name(head.sense_key),
            head.sense_ascq
        )),
        other => Err(status_name(other)),
    }
}

/// A SCSI sense key's name (SPC-4, 4.5.6).
fn sense_key_name(key: c_int) -> &'static str {
    match key {
        0 => "NO SENSE",
        1 => "RECOVERED ERROR",
        2 => "NOT READY",
        3 => "MEDIUM ERROR",
        4 => "HARDWARE ERROR",
        5 => "ILLEGAL REQUEST",
        6 => "UNIT ATTENTION",
        7 => "DATA PROTECT",
        8 => "BLANK CHECK",
        0xb => "ABORTED COMMAND",
        0xd => "VOLUME OVERFLOW",
        0xe => "MISCOMPARE",
        _ => "unknown",
    }
}

/// A status other than GOOD and CHECK CONDITION, in words.
pub fn status_name(status: c_int) -> String {
    match status {
        STATUS_BUSY => "the target is BUSY".to_string(),
        0x18 => "RESERVATION CONFLICT".to_string(),
        0x28 => "TASK SET FULL".to_string(),
        0x40 => "TASK ABORTED".to_string(),
        STATUS_CANCELLED => "cancelled: the connection to the target was lost".to_string(),
        STATUS_ERROR => "the connection to the target failed".to_string(),
        STATUS_TIMEOUT => "no reply from the target within the timeout".to_string(),
        other => format!("SCSI status 0x{other:x}"),
    }
}

/// The functions iolab calls, resolved once.
pub(super) struct Functions {
    _library: Library,
    create_context: unsafe extern "C" fn(*const c_char) -> *mut c_void,
    destroy_context: unsafe extern "C" fn(*mut c_void) -> c_int,
    get_error: unsafe extern "C" fn(*mut c_void) -> *const c_char,
    set_targetname: unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int,
    set_session_type: unsafe extern "C" fn(*mut c_void, c_int) -> c_int,
    set_header_digest: unsafe extern "C" fn(*mut c_void, c_int) -> c_int,
    set_username_pwd: unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> c_int,
    set_timeout: unsafe extern "C" fn(*mut c_void, c_int) -> c_int,
    set_noautoreconnect: unsafe extern "C" fn(*mut c_void, c_int),
    set_tcp_user_timeout: unsafe extern "C" fn(*mut c_void, c_int),
    full_connect_sync: unsafe extern "C" fn(*mut c_void, *const c_char, c_int) -> c_int,
    logout_sync: unsafe extern "C" fn(*mut c_void) -> c_int,
    readcapacity16_sync: unsafe extern "C" fn(*mut c_void, c_int) -> *mut c_void,
    synchronizecache16_sync:
        unsafe extern "C" fn(*mut c_void, c_int, u64, u32, c_int, c_int) -> *mut c_void,
    read16_iov_sync: unsafe extern "C" fn(
        *mut c_void,
        c_int,
        u64,
        u32,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *mut ScsiIovec,
        c_int,
    ) -> *mut c_void,
    write16_iov_sync: unsafe extern "C" fn(
        *mut c_void,
        c_int,
        u64,
        *mut u8,
        u32,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *mut ScsiIovec,
        c_int,
    ) -> *mut c_void,
    datain_unmarshall: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    pub(super) free_task: unsafe extern "C" fn(*mut c_void),
    pub(super) read16_iov_task: unsafe extern "C" fn(
        *mut c_void,
        c_int,
        u64,
        u32,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        Callback,
        *mut c_void,
        *mut ScsiIovec,
        c_int,
    ) -> *mut c_void,
    pub(super) write16_iov_task: unsafe extern "C" fn(
        *mut c_void,
        c_int,
        u64,
        *mut u8,
        u32,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        Callback,
        *mut c_void,
        *mut ScsiIovec,
        c_int,
    ) -> *mut c_void,
    pub(super) unmap_task: unsafe extern "C" fn(
        *mut c_void,
        c_int,
        c_int,
        c_int,
        *mut UnmapList,
        c_int,
        Callback,
        *mut c_void,
    ) -> *mut c_void,
    pub(super) get_fd: unsafe extern "C" fn(*mut c_void) -> c_int,
    pub(super) which_events: unsafe extern "C" fn(*mut c_void) -> c_int,
    pub(super) service: unsafe extern "C" fn(*mut c_void, c_int) -> c_int,
}

/// Whether libiscsi can be loaded here; the error names the package to install.
pub fn available() -> Result<(), String> {
    functions().map(drop)
}

/// libiscsi, loaded once per process (with its socket calls counted, see
/// [`super::wire`]), or why it cannot be.
pub(super) fn functions() -> Result<&'static Functions, String> {
    static LOADED: OnceLock<Result<Functions, String>> = OnceLock::new();
    LOADED.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> Result<Functions, String> {
    let library = crate::engine::library::open(LIBRARY, "libiscsi7")?;
    macro_rules! symbol {
        ($name:literal) => {
            // SAFETY: the type is the one libiscsi 1.19's header declares.
            unsafe {
                crate::engine::library::symbol(&library, LIBRARY, $name, "libiscsi 1.19 or later")
            }?
        };
    }
    let functions = Functions {
        create_context: symbol!("iscsi_create_context"),
        destroy_context: symbol!("iscsi_destroy_context"),
        get_error: symbol!("iscsi_get_error"),
        set_targetname: symbol!("iscsi_set_targetname"),
        set_session_type: symbol!("iscsi_set_session_type"),
        set_header_digest: symbol!("iscsi_set_header_digest"),
        set_username_pwd: symbol!("iscsi_set_initiator_username_pwd"),
        set_timeout: symbol!("iscsi_set_timeout"),
        set_noautoreconnect: symbol!("iscsi_set_noautoreconnect"),
        set_tcp_user_timeout: symbol!("iscsi_set_tcp_user_timeout"),
        full_connect_sync: symbol!("iscsi_full_connect_sync"),
        logout_sync: symbol!("iscsi_logout_sync"),
        readcapacity16_sync: symbol!("iscsi_readcapacity16_sync"),
        synchronizecache16_sync: symbol!("iscsi_synchronizecache16_sync"),
        read16_iov_sync: symbol!("iscsi_read16_iov_sync"),
        write16_iov_sync: symbol!("iscsi_write16_iov_sync"),
        datain_unmarshall: symbol!("scsi_datain_unmarshall"),
        free_task: symbol!("scsi_free_scsi_task"),
        read16_iov_task: symbol!("iscsi_read16_iov_task"),
        write16_iov_task: symbol!("iscsi_write16_iov_task"),
        unmap_task: symbol!("iscsi_unmap_task"),
        get_fd: symbol!("iscsi_get_fd"),
        which_events: symbol!("iscsi_which_events"),
        service: symbol!("iscsi_service"),
        _library: library,
    };
    // The PDU accounting's hooks go in before any context exists; a
    // library they cannot be put in still serves, uncounted.
    super::wire::install(LIBRARY);
    Ok(functions)
}

/// One logged-in session to one LUN: libiscsi's `iscsi_context`.
pub struct Context {
    pub(super) functions: &'static Functions,
    pub(super) raw: *mut c_void,
    /// The LUN.
    pub lun: c_int,
    /// The LUN's logical block size, bytes.
    pub block_size: u32,
    /// The LUN's capacity, bytes.
    pub capacity: u64,
    /// Whether the LUN takes UNMAP (READ CAPACITY(16)'s LBPME: logical
    /// block provisioning management enabled).
    pub unmaps: bool,
}

// SAFETY: a context is used by one thread at a time (it moves into a job's
// thread, or is shared behind a mutex); libiscsi keeps no thread-local state.
unsafe impl Send for Context {}

fn c_string(text: &str) -> io::Result<CString> {
    CString::new(text)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a name"))
}

impl Context {
    /// Connects to `url`'s portal, logs in to its target (no header
    /// digest, no automatic reconnection: a lost connection fails the run)
    /// and reads the LUN's capacity. CHAP credentials come from
    /// `LIBISCSI_CHAP_USERNAME` and `LIBISCSI_CHAP_PASSWORD` when set.
    pub fn connect(url: &IscsiUrl) -> io::Result<Context> {
        let functions = functions().map_err(io::Error::other)?;
        let initiator = c_string(&url.initiator)?;
        // SAFETY: no preconditions; NULL is checked.
        let raw = unsafe { (functions.create_context)(initiator.as_ptr()) };
        if raw.is_null() {
            return Err(io::Error::other("libiscsi could not make a context"));
        }
        let mut context = Context {
            functions,
            raw,
            lun: c_int::from(url.lun),
            block_size: 0,
            capacity: 0,
            unmaps: false,
        };
        let target = c_string(&url.target)?;
        // SAFETY: `raw` is a live context for all the calls below, and the
        // strings outlive them (libiscsi copies what it keeps).
        unsafe {
            context.check(
                (functions.set_targetname)(raw, target.as_ptr()),
                "set the target name",
            )?;
            context.check((functions.set_session_type)(raw, 2), "set a normal session")?;
            context.check(
                (functions.set_header_digest)(raw, 0),
                "turn header digests off",
            )?;
            (functions.set_noautoreconnect)(raw, 1);
            (functions.set_tcp_user_timeout)(raw, url.timeout_ms);
            // libiscsi's command timeout is in whole seconds.
            let seconds = (url.timeout_ms + 999) / 1000;
            context.check((functions.set_timeout)(raw, seconds), "set the timeout")?;
            if let (Ok(user), Ok(password)) = (
                std::env::var("LIBISCSI_CHAP_USERNAME"),
                std::env::var("LIBISCSI_CHAP_PASSWORD"),
            ) {
                let (user, password) = (c_string(&user)?, c_string(&password)?);
                context.check(
                    (functions.set_username_pwd)(raw, user.as_ptr(), password.as_ptr()),
                    "set the CHAP credentials",
                )?;
            }
        }
        let portal = c_string(&url.portal())?;
        // SAFETY: live context, NUL-terminated portal.
        let status = unsafe { (functions.full_connect_sync)(raw, portal.as_ptr(), context.lun) };
        context.check(status, &format!("log in to {} LUN {}", url.target, url.lun))?;
        let (block_size, capacity, unmaps) = context.read_capacity()?;
        // A disk's logical block is a power of two from 512 bytes to 64 KiB;
        // anything else is not a disk's answer (tgtd's LUN 0 is the target's
        // controller, whose READ CAPACITY says 655360).
        if !(block_size.is_power_of_two() && (512..=65_536).contains(&block_size)) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "LUN {} answers READ CAPACITY(16) with a logical block of {block_size} bytes: \
                     not a disk (a target's LUN 0 is often its controller; its disks start at LUN 1)",
                    url.lun
                ),
            ));
        }
        (context.block_size, context.capacity, context.unmaps) = (block_size, capacity, unmaps);
        Ok(context)
    }

    /// The LUN's block size, capacity and whether it takes UNMAP (READ
    /// CAPACITY(16)).
    fn read_capacity(&self) -> io::Result<(u32, u64, bool)> {
        // SAFETY: live context.
        let task = self.task(
            unsafe { (self.functions.readcapacity16_sync)(self.raw, self.lun) },
            "READ CAPACITY(16)",
        )?;
        // SAFETY: a READ CAPACITY(16) task's data, unmarshalled into memory the task owns.
        let parsed = unsafe { (self.functions.datain_unmarshall)(task.raw) };
        if parsed.is_null() {
            return Err(io::Error::other("READ CAPACITY(16): no data in the reply"));
        }
        // SAFETY: the unmarshalled reply lives as long as the task.
        let capacity = unsafe { &*(parsed as *const ReadCapacity16) };
        let block = capacity.block_length;
        let blocks = capacity.returned_lba.saturating_add(1);
        let unmaps = capacity.lbpme != 0;
        Ok((block, blocks.saturating_mul(u64::from(block)), unmaps))
    }

    /// The connection's socket, while there is one.
    pub fn socket(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        // SAFETY: live context; the descriptor stays open as long as it.
        let fd = unsafe { (self.functions.get_fd)(self.raw) };
        // SAFETY: a descriptor libiscsi owns, borrowed no longer than the context.
        (fd >= 0).then(|| unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) })
    }

    /// Reads `buffer.len()` bytes at byte `offset` (READ(16)); both must be
    /// whole blocks.
    pub fn read_at(&self, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
        let (lba, blocks) = self.blocks_of(offset, buffer.len())?;
        let mut iov = ScsiIovec {
            base: buffer.as_mut_ptr().cast(),
            len: buffer.len(),
        };
        let bs = self.block_size as c_int;
        // SAFETY: live context; `iov` and the buffer outlive the synchronous call.
        let send = || unsafe {
            (self.functions.read16_iov_sync)(
                self.raw, self.lun, lba, blocks, bs, 0, 0, 0, 0, 0, &mut iov, 1,
            )
        };
        let task = self.task_past_unit_attention(send, &format!("READ(16) at byte {offset}"))?;
        // SAFETY: a live task of a command that asked for the buffer's length.
        unsafe { outcome(task.head().status, task.raw, buffer.len()) }
            .map_err(|why| io::Error::other(format!("READ(16) at byte {offset}: {why}")))
    }

    /// Writes `buffer` at byte `offset` (WRITE(16)); both must be whole blocks.
    pub fn write_at(&self, buffer: &[u8], offset: u64) -> io::Result<usize> {
        let (lba, blocks) = self.blocks_of(offset, buffer.len())?;
        let mut iov = ScsiIovec {
            base: buffer.as_ptr() as *mut c_void,
            len: buffer.len(),
        };
        let bs = self.block_size as c_int;
        // SAFETY: live context; libiscsi only reads the buffer, which with
        // `iov` outlives the synchronous call.
        let send = || unsafe {
            (self.functions.write16_iov_sync)(
                self.raw,
                self.lun,
                lba,
                std::ptr::null_mut(),
                blocks,
                bs,
                0,
                0,
                0,
                0,
                0,
                &mut iov,
                1,
            )
        };
        let task = self.task_past_unit_attention(send, &format!("WRITE(16) at byte {offset}"))?;
        // SAFETY: a live task of a command that asked for the buffer's length.
        unsafe { outcome(task.head().status, task.raw, buffer.len()) }
            .map_err(|why| io::Error::other(format!("WRITE(16) at byte {offset}: {why}")))
    }

    /// Makes every write the LUN accepted durable (SYNCHRONIZE CACHE(16) of
    /// the whole LUN, not immediate: it returns once the target's cache is written).
    pub fn synchronize_cache(&self) -> io::Result<()> {
        // SAFETY: live context.
        let send =
            || unsafe { (self.functions.synchronizecache16_sync)(self.raw, self.lun, 0, 0, 0, 0) };
        let task = self.task_past_unit_attention(send, "SYNCHRONIZE CACHE(16)")?;
        // SAFETY: a live task; the command moves no data.
        unsafe { outcome(task.head().status, task.raw, 0) }
            .map(drop)
            .map_err(|why| io::Error::other(format!("SYNCHRONIZE CACHE(16): {why}")))
    }

    /// Byte `offset` and `len` as a block address and a byte count, checked
    /// to be whole blocks inside the LUN.
    fn blocks_of(&self, offset: u64, len: usize) -> io::Result<(u64, u32)> {
        let block = u64::from(self.block_size);
        let whole = offset % block == 0 && len as u64 % block == 0;
        let inside = offset
            .checked_add(len as u64)
            .is_some_and(|end| end <= self.capacity);
        if !whole || !inside || len > u32::MAX as usize {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{len} bytes at byte {offset} are not whole {block}-byte blocks inside the LUN ({} bytes)",
                    self.capacity
                ),
            ));
        }
        Ok((offset / block, len as u32))
    }

    /// A synchronous command's task, sent again (twice at most) while the
    /// LUN answers UNIT ATTENTION: a target reports each change it made
    /// (LUNs added or removed, a reset, new capacity) once to every session,
    /// on its next command, which a SCSI initiator then repeats (Linux's sd
    /// does); the command was not carried out. The third is returned as
    /// it came.
    fn task_past_unit_attention(
        &self,
        mut send: impl FnMut() -> *mut c_void,
        what: &str,
    ) -> io::Result<Task> {
        let mut task = self.task(send(), what)?;
        for _ in 0..2 {
            let head = task.head();
            if head.status != STATUS_CHECK_CONDITION || head.sense_key != SENSE_UNIT_ATTENTION {
                break;
            }
            task = self.task(send(), what)?;
        }
        Ok(task)
    }

    /// A synchronous call's task, or the context's error when there is none.
    fn task(&self, raw: *mut c_void, what: &str) -> io::Result<Task> {
        if raw.is_null() {
            return Err(self.error(what));
        }
        Ok(Task {
            functions: self.functions,
            raw,
        })
    }

    /// `status` as a result: libiscsi returns a negative number and keeps its message.
    fn check(&self, status: c_int, what: &str) -> io::Result<()> {
        if status >= 0 {
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    /// The context's last error, with what was being done.
    pub(super) fn error(&self, what: &str) -> io::Error {
        io::Error::other(format!("{what}: {}", self.last_error()))
    }

    /// libiscsi's message for the last failure, or a plain one when it keeps none.
    pub(super) fn last_error(&self) -> String {
        // SAFETY: live context; the message is libiscsi's, copied at once.
        let text = unsafe { (self.functions.get_error)(self.raw) };
        let message = if text.is_null() {
            String::new()
        } else {
            // SAFETY: a NUL-terminated string the context owns.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .trim()
                .to_string()
        };
        if message.is_empty() {
            "the target did not answer as expected".to_string()
        } else {
            message
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: live context, not used after this. A logout lets the
        // target end the session at once; on a dead connection it fails
        // quickly, and destroying the context closes the socket either way.
        unsafe {
            if (self.functions.get_fd)(self.raw) >= 0 {
                // A target that stopped answering holds the logout for
                // the timeout: two seconds is enough for one that answers.
                (self.functions.set_timeout)(self.raw, 2);
                (self.functions.logout_sync)(self.raw);
            }
            (self.functions.destroy_context)(self.raw);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_task_head_matches_libiscsis_layout() {
        // scsi-lowlevel.h: four ints, a 16-byte CDB, the residual status
        // (int), the residual (size_t), then struct scsi_sense.
        assert_eq!(std::mem::offset_of!(TaskHead, residual_status), 32);
        assert_eq!(std::mem::offset_of!(TaskHead, residual), 40);
        assert_eq!(std::mem::offset_of!(TaskHead, sense_key), 52);
        assert_eq!(std::mem::offset_of!(TaskHead, sense_ascq), 56);
    }

    #[test]
    fn outcomes_say_what_moved_or_what_failed() {
        let mut head = TaskHead {
            status: 0,
            cdb_size: 16,
            xfer_dir: 1,
            expxferlen: 4096,
            cdb: [0; 16],
            residual_status: 0,
            residual: 0,
            sense_error_type: 0,
            sense_key: 0,
            sense_ascq: 0,
        };
        let head = &mut head as *mut TaskHead;
        let task = head.cast::<c_void>();
        // SAFETY: `head` and `task` point at a live head for each call.
        unsafe {
            assert_eq!(outcome(STATUS_GOOD, task, 4096), Ok(4096));
            (*head).residual_status = RESIDUAL_UNDERFLOW;
            (*head).residual = 512;
            assert_eq!(outcome(STATUS_GOOD, task, 4096), Ok(3584));
            (*head).sense_key = 5;
            (*head).sense_ascq = 0x2100;
            let error = outcome(STATUS_CHECK_CONDITION, task, 4096).unwrap_err();
            assert!(
                error.contains("ILLEGAL REQUEST") && error.contains("0x2100"),
                "{error}"
            );
            assert!(
                outcome(STATUS_TIMEOUT, task, 4096)
                    .unwrap_err()
                    .contains("timeout")
            );
        }
    }
}
