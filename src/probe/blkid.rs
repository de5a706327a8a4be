//! Signatures on a block device as libblkid finds them: the library `wipefs`
//! and `blkid -p` use, loaded at run time (Debian package libblkid1).
//!
//! libblkid knows far more on-disk formats than any list iolab could keep
//! (minix, erofs, bcache, ZFS, VMFS, every partition table, …), and it is
//! the standard for "is anything on this device": before iolab overwrites a
//! device, every signature it reports refuses the write. It is loaded with
//! dlopen, not linked, so building iolab needs nothing but Rust, and a
//! machine without it gets one line naming the package.

use libloading::{Library, Symbol};
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

/// The library's file name, as the package installs it.
pub const LIBRARY: &str = "libblkid.so.1";

/// `BLKID_SUBLKS_LABEL | UUID | TYPE | USAGE | MAGIC | BADCSUM`: what wipefs asks
/// (a superblock with a bad checksum is still someone's data).
const SUPERBLOCK_FLAGS: c_int = (1 << 1) | (1 << 3) | (1 << 5) | (1 << 7) | (1 << 9) | (1 << 10);
/// `BLKID_PARTS_MAGIC`: partition tables with their magic's offset.
const PARTITION_FLAGS: c_int = 1 << 3;

/// One signature libblkid found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// Its type: `ext4`, `minix`, `erofs`, `gpt`, `LVM2_member`…
    pub kind: String,
    /// What it is used for: `filesystem`, `raid`, `crypto`, `other`, or
    /// `partition table`.
    pub usage: String,
    /// The byte offset of its magic, when libblkid gives it.
    pub offset: Option<u64>,
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.usage.as_str() {
            _ if self.kind == "swap" => "area",
            "filesystem" => "file system",
            "raid" => "RAID member",
            "crypto" => "encrypted volume",
            "partition table" => "partition table",
            _ => "signature",
        };
        let article = if self
            .kind
            .starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U'])
        {
            "an"
        } else {
            "a"
        };
        write!(f, "{article} {} {what} (libblkid", self.kind)?;
        match self.offset {
            Some(offset) => write!(f, ": signature at byte {offset})"),
            None => write!(f, ")"),
        }
    }
}

type NewProbe = unsafe extern "C" fn(*const c_char) -> *mut c_void;
type FreeProbe = unsafe extern "C" fn(*mut c_void);
type SetInt = unsafe extern "C" fn(*mut c_void, c_int) -> c_int;
type DoProbe = unsafe extern "C" fn(*mut c_void) -> c_int;
type Lookup =
    unsafe extern "C" fn(*mut c_void, *const c_char, *mut *const c_char, *mut usize) -> c_int;

/// The library, loaded once per process.
fn library() -> Result<&'static Library, String> {
    static LOADED: OnceLock<Result<Library, String>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            // SAFETY: libblkid's initialisers have no preconditions.
            unsafe { Library::new(LIBRARY) }.map_err(|error| {
                format!(
                    "{LIBRARY} cannot be loaded ({error}); install the Debian package libblkid1"
                )
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The library's function `name` (NUL-terminated), of type `T`.
///
/// # Safety
/// `T` must be the function's C signature.
unsafe fn symbol<'l, T>(library: &'l Library, name: &[u8]) -> Result<Symbol<'l, T>, String> {
    // SAFETY: the caller names the symbol's true type.
    unsafe { library.get(name) }.map_err(|e| format!("{LIBRARY}: {e}"))
}

/// Every signature on `device` (superblocks of file systems, RAID, LVM,
/// LUKS, swap…, and partition tables), as `wipefs --no-act` lists them.
/// An error when libblkid is missing or cannot read the device: the caller
/// must then assume the device holds data.
pub fn signatures(device: &Path) -> Result<Vec<Signature>, String> {
    let library = library()?;
    let shown = device.display();
    // SAFETY: the symbols have the C signatures of libblkid's public API
    // (blkid.h), and the probe is used only between its creation and free.
    unsafe {
        let new_probe: Symbol<NewProbe> = symbol(library, b"blkid_new_probe_from_filename\0")?;
        let free_probe: Symbol<FreeProbe> = symbol(library, b"blkid_free_probe\0")?;
        let enable_superblocks: Symbol<SetInt> =
            symbol(library, b"blkid_probe_enable_superblocks\0")?;
        let superblock_flags: Symbol<SetInt> =
            symbol(library, b"blkid_probe_set_superblocks_flags\0")?;
        let enable_partitions: Symbol<SetInt> =
            symbol(library, b"blkid_probe_enable_partitions\0")?;
        let partition_flags: Symbol<SetInt> =
            symbol(library, b"blkid_probe_set_partitions_flags\0")?;
        let do_probe: Symbol<DoProbe> = symbol(library, b"blkid_do_probe\0")?;
        let lookup: Symbol<Lookup> = symbol(library, b"blkid_probe_lookup_value\0")?;
        let path = CString::new(device.as_os_str().as_bytes())
            .map_err(|_| format!("{shown}: the path holds a NUL byte"))?;
        let probe = new_probe(path.as_ptr());
        if probe.is_null() {
            return Err(format!(
                "libblkid cannot open {shown}: {}",
                std::io::Error::last_os_error()
            ));
        }
        let value = |name: &CStr| -> Option<String> {
            let mut data: *const c_char = std::ptr::null();
            let mut len = 0usize;
            (lookup(probe, name.as_ptr(), &mut data, &mut len) == 0 && !data.is_null())
                .then(|| CStr::from_ptr(data).to_string_lossy().into_owned())
        };
        let mut found = Vec::new();
        let mut failure = None;
        if enable_superblocks(probe, 1) != 0
            || superblock_flags(probe, SUPERBLOCK_FLAGS) != 0
            || enable_partitions(probe, 1) != 0
            || partition_flags(probe, PARTITION_FLAGS) != 0
        {
            failure = Some(format!("libblkid refused to set up a probe of {shown}"));
        }
        // As wipefs does: one signature per call, until there are no more.
        while failure.is_none() {
            match do_probe(probe) {
                0 => {}
                1 => break,
                _ => {
                    failure = Some(format!("libblkid cannot read {shown}"));
                    break;
                }
            }
            let (kind, usage, offset) = match value(c"TYPE") {
                Some(kind) => (
                    kind,
                    value(c"USAGE").unwrap_or_else(|| "other".to_string()),
                    value(c"SBMAGIC_OFFSET"),
                ),
                None => match value(c"PTTYPE") {
                    Some(kind) => (
                        kind,
                        "partition table".to_string(),
                        value(c"PTMAGIC_OFFSET"),
                    ),
                    None => continue,
                },
            };
            found.push(Signature {
                kind,
                usage,
                offset: offset.and_then(|o| o.parse().ok()),
            });
        }
        free_probe(probe);
        match failure {
            Some(message) => Err(message),
            None => Ok(found),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_described_by_use() {
        let ext4 = Signature {
            kind: "ext4".into(),
            usage: "filesystem".into(),
            offset: Some(1080),
        };
        assert_eq!(
            ext4.to_string(),
            "an ext4 file system (libblkid: signature at byte 1080)"
        );
        let gpt = Signature {
            kind: "gpt".into(),
            usage: "partition table".into(),
            offset: None,
        };
        assert_eq!(gpt.to_string(), "a gpt partition table (libblkid)");
    }

    #[test]
    fn a_file_of_zeros_holds_nothing_and_a_swap_header_is_found_where_wipefs_finds_it() {
        let Ok(_) = library() else {
            eprintln!("skip: {LIBRARY} is not installed");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("image");
        std::fs::write(&image, vec![0u8; 1 << 20]).unwrap();
        assert_eq!(signatures(&image).unwrap(), []);
        // libblkid probes regular files too: a swap signature is enough.
        // A swap header: its magic, version 1, and a last page.
        let mut bytes = vec![0u8; 1 << 20];
        bytes[4086..4096].copy_from_slice(b"SWAPSPACE2");
        bytes[1024..1028].copy_from_slice(&1u32.to_le_bytes());
        bytes[1028..1032].copy_from_slice(&255u32.to_le_bytes());
        std::fs::write(&image, &bytes).unwrap();
        let found = signatures(&image).unwrap();
        assert_eq!(
            found,
            [Signature {
                kind: "swap".into(),
                usage: "other".into(),
                offset: Some(4086)
            }]
        );
    }
}
