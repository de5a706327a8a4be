//! Redirecting a loaded library's calls to C library functions: the slots
//! of its global offset table (GOT) that hold them are pointed at
//! replacements, so every call the library makes goes through them and
//! nobody else's does.
//!
//! This is how the PDU accounting sees the bytes libiscsi sends and
//! receives without a relay on the wire (`iscsi::wire`), and the RPC
//! accounting libnfs's (`nfs::wire`): neither library has a hook of its own. The technique is plthook's (kubo/plthook): find
//! the library among the loaded objects (`dl_iterate_phdr`), read its
//! dynamic section's relocation tables, and rewrite the `JUMP_SLOT` and
//! `GLOB_DAT` entries of the named symbols, making the page writable for
//! the moment it takes when RELRO sealed it. It is our own rather than the
//! `plthook` crate's because that crate compiles plthook's C at build time,
//! and the default build needs nothing but Rust. Every address is checked
//! to lie in one of the library's loaded segments before it is read or
//! written; x86_64 and aarch64 only.

use std::ffi::{CStr, c_int, c_void};

/// `Elf64_Dyn`.
#[repr(C)]
struct Dyn {
    tag: i64,
    value: u64,
}

const DT_NULL: i64 = 0;
const DT_PLTRELSZ: i64 = 2;
const DT_STRTAB: i64 = 5;
const DT_SYMTAB: i64 = 6;
const DT_RELA: i64 = 7;
const DT_RELASZ: i64 = 8;
const DT_STRSZ: i64 = 10;
const DT_PLTREL: i64 = 20;
const DT_JMPREL: i64 = 23;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_GNU_RELRO: u32 = 0x6474_e552;

/// The relocation types that fill a GOT slot with a function's address.
#[cfg(target_arch = "x86_64")]
const SLOT_TYPES: [u32; 2] = [6, 7]; // R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT
#[cfg(target_arch = "aarch64")]
const SLOT_TYPES: [u32; 2] = [1025, 1026]; // R_AARCH64_GLOB_DAT, R_AARCH64_JUMP_SLOT
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const SLOT_TYPES: [u32; 0] = [];

/// Where one loaded object lies.
struct Object {
    base: u64,
    dynamic: u64,
    loaded: Vec<(u64, u64)>,
    relro: Option<(u64, u64)>,
}

impl Object {
    /// Whether `len` bytes at `address` lie in one loaded segment.
    fn holds(&self, address: u64, len: u64) -> bool {
        self.loaded.iter().any(|&(start, end)| {
            address >= start && address.checked_add(len).is_some_and(|last| last <= end)
        })
    }

    /// A pointer the dynamic section gives, as an address: glibc rebases
    /// most of them in place, some architectures leave them relative.
    fn address(&self, pointer: u64) -> u64 {
        if pointer < self.base {
            pointer.wrapping_add(self.base)
        } else {
            pointer
        }
    }
}

/// Points the GOT slots of each `(symbol, replacement)` in the loaded
/// library whose file name is `library` at the replacement; returns how
/// many slots were rewritten.
///
/// # Safety
/// Each replacement must be a function with the C signature of the symbol
/// it replaces, and no thread may be calling into the library meanwhile.
pub unsafe fn redirect(library: &str, replacements: &[(&CStr, usize)]) -> Result<usize, String> {
    if SLOT_TYPES.is_empty() {
        return Err("redirecting calls is done on x86_64 and aarch64 only".to_string());
    }
    let object = find(library).ok_or_else(|| format!("{library} is not loaded"))?;
    // SAFETY: the caller's promise; every address is checked against the segments.
    unsafe { rewrite(&object, replacements) }
}

/// The loaded object whose file name ends with `/library`.
fn find(library: &str) -> Option<Object> {
    struct Search<'a> {
        name: &'a str,
        found: Option<Object>,
    }
    unsafe extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: dl_iterate_phdr passes a valid info and our `Search`.
        let (info, search) = unsafe { (&*info, &mut *(data as *mut Search<'_>)) };
        if info.dlpi_name.is_null() {
            return 0;
        }
        // SAFETY: a NUL-terminated path the loader owns.
        let name = unsafe { CStr::from_ptr(info.dlpi_name) }.to_string_lossy();
        let matches = name.rsplit('/').next() == Some(search.name);
        if !matches || info.dlpi_phdr.is_null() {
            return 0;
        }
        // SAFETY: the loader's program headers of this object.
        let headers =
            unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) };
        let base = info.dlpi_addr;
        let range = |h: &libc::Elf64_Phdr| (base + h.p_vaddr, base + h.p_vaddr + h.p_memsz);
        let dynamic = headers.iter().find(|h| h.p_type == PT_DYNAMIC);
        if let Some(dynamic) = dynamic {
            search.found = Some(Object {
                base,
                dynamic: base + dynamic.p_vaddr,
                loaded: headers
                    .iter()
                    .filter(|h| h.p_type == PT_LOAD)
                    .map(range)
                    .collect(),
                relro: headers.iter().find(|h| h.p_type == PT_GNU_RELRO).map(range),
            });
        }
        1
    }
    let mut search = Search {
        name: library,
        found: None,
    };
    // SAFETY: `visit` only reads what the loader passes and writes `search`.
    unsafe { libc::dl_iterate_phdr(Some(visit), (&mut search as *mut Search<'_>).cast()) };
    search.found
}

/// Reads the object's dynamic section and rewrites the named slots.
///
/// # Safety
/// As [`redirect`].
unsafe fn rewrite(object: &Object, replacements: &[(&CStr, usize)]) -> Result<usize, String> {
    let mut table = [0u64; 24];
    let mut entry = object.dynamic;
    loop {
        if !object.holds(entry, size_of::<Dyn>() as u64) {
            return Err("the dynamic section runs outside the library".to_string());
        }
        // SAFETY: inside a loaded segment, checked above.
        let Dyn { tag, value } = unsafe { std::ptr::read(entry as *const Dyn) };
        if tag == DT_NULL {
            break;
        }
        if let Some(slot) = usize::try_from(tag).ok().filter(|&t| t < table.len()) {
            table[slot] = value;
        }
        entry += size_of::<Dyn>() as u64;
    }
    let pointer =
        |tag: i64| (table[tag as usize] != 0).then(|| object.address(table[tag as usize]));
    let (Some(symbols), Some(strings)) = (pointer(DT_SYMTAB), pointer(DT_STRTAB)) else {
        return Err("the library has no symbol table".to_string());
    };
    let strings_len = table[DT_STRSZ as usize];
    if table[DT_PLTREL as usize] != 0 && table[DT_PLTREL as usize] != DT_RELA as u64 {
        return Err("the library's PLT relocations are not RELA".to_string());
    }
    let tables = [
        (pointer(DT_JMPREL), table[DT_PLTRELSZ as usize]),
        (pointer(DT_RELA), table[DT_RELASZ as usize]),
    ];
    let page = rustix::param::page_size() as u64;
    let mut rewritten = 0;
    for (start, len) in tables {
        let Some(start) = start else { continue };
        if !object.holds(start, len) {
            return Err("a relocation table lies outside the library".to_string());
        }
        let count = len / size_of::<libc::Elf64_Rela>() as u64;
        for index in 0..count {
            let at = start + index * size_of::<libc::Elf64_Rela>() as u64;
            // SAFETY: inside the table, which lies in a loaded segment.
            let rela = unsafe { std::ptr::read(at as *const libc::Elf64_Rela) };
            let (kind, symbol) = ((rela.r_info & 0xffff_ffff) as u32, rela.r_info >> 32);
            if !SLOT_TYPES.contains(&kind) || symbol == 0 {
                continue;
            }
            let entry = symbols + symbol * size_of::<libc::Elf64_Sym>() as u64;
            if !object.holds(entry, size_of::<libc::Elf64_Sym>() as u64) {
                return Err("a symbol lies outside the library".to_string());
            }
            // SAFETY: inside a loaded segment, checked above.
            let name_offset =
                u64::from(unsafe { std::ptr::read(entry as *const libc::Elf64_Sym) }.st_name);
            if name_offset >= strings_len || !object.holds(strings + name_offset, 1) {
                continue;
            }
            // SAFETY: a NUL-terminated name in the string table, which the
            // loader keeps mapped; its start is checked to be loaded.
            let name =
                unsafe { CStr::from_ptr((strings + name_offset) as *const std::ffi::c_char) };
            let Some(&(_, replacement)) = replacements.iter().find(|(wanted, _)| *wanted == name)
            else {
                continue;
            };
            let slot = object.base.wrapping_add(rela.r_offset);
            if !object.holds(slot, 8) || slot % 8 != 0 {
                return Err(format!(
                    "the slot of {} lies outside the library",
                    name.to_string_lossy()
                ));
            }
            // SAFETY: an aligned slot in the library's data; the page is
            // made writable around the write and sealed again if RELRO sealed it.
            unsafe { write_slot(slot, replacement as u64, page, object.relro)? };
            rewritten += 1;
        }
    }
    Ok(rewritten)
}

/// Writes `value` into the GOT slot at `slot`, through a writable mapping.
///
/// # Safety
/// `slot` must be an aligned word of a loaded object's data.
unsafe fn write_slot(
    slot: u64,
    value: u64,
    page: u64,
    relro: Option<(u64, u64)>,
) -> Result<(), String> {
    let start = slot & !(page - 1);
    let sealed = relro.is_some_and(|(from, to)| slot >= from && slot < to);
    let protect = |flags: c_int| {
        // SAFETY: one page of the object's own mapping.
        let status = unsafe { libc::mprotect(start as *mut c_void, page as usize, flags) };
        (status == 0)
            .then_some(())
            .ok_or_else(|| format!("mprotect of the GOT: {}", std::io::Error::last_os_error()))
    };
    if sealed {
        protect(libc::PROT_READ | libc::PROT_WRITE)?;
    }
    // SAFETY: the caller's promise; the page is writable now.
    unsafe { std::ptr::write_volatile(slot as *mut u64, value) };
    if sealed {
        protect(libc::PROT_READ)?;
    }
    Ok(())
}
