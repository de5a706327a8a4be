//! A C library the network engines load at run time rather than link, so building iolab needs nothing but Rust: opened once, its symbols checked, and a machine without it told in one line which Debian package to install.

use libloading::Library;

/// Opens `file` (as its package installs it); the error names `package`.
pub(crate) fn open(file: &str, package: &str) -> Result<Library, String> {
    // SAFETY: the libraries iolab loads (libnfs, libiscsi) have initialisers
    // with no preconditions.
    unsafe { Library::new(file) }.map_err(|error| {
        format!("{file} cannot be loaded ({error}); install the Debian package {package}")
    })
}

/// The symbol `name` of `library` (opened from `file`), as a value of `T`;
/// the error says which version of the library has it (`needed`).
///
/// # Safety
/// `T` must be the type the library's header declares for `name`.
pub(crate) unsafe fn symbol<T: Copy>(
    library: &Library,
    file: &str,
    name: &str,
    needed: &str,
) -> Result<T, String> {
    let mut terminated = Vec::with_capacity(name.len() + 1);
    terminated.extend_from_slice(name.as_bytes());
    terminated.push(0);
    // SAFETY: the caller vouches for `T`.
    unsafe { library.get::<T>(&terminated) }
        .map(|symbol| *symbol)
        .map_err(|error| format!("{file} lacks {name} ({error}): {needed} is needed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_names_its_package() {
        let error = open("libiolab-none.so.0", "libiolab-none0").unwrap_err();
        assert!(
            error.starts_with("libiolab-none.so.0 cannot be loaded ("),
            "{error}"
        );
        assert!(
            error.ends_with("install the Debian package libiolab-none0"),
            "{error}"
        );
    }

    #[test]
    fn a_missing_symbol_names_the_version_needed() {
        let libc = open("libc.so.6", "libc6").unwrap();
        // SAFETY: getpid's type is `pid_t (void)`.
        let getpid: unsafe extern "C" fn() -> libc::pid_t =
            unsafe { symbol(&libc, "libc.so.6", "getpid", "any libc") }.unwrap();
        // SAFETY: getpid has no preconditions.
        assert_eq!(unsafe { getpid() }, std::process::id() as libc::pid_t);
        let missing =
            unsafe { symbol::<usize>(&libc, "libc.so.6", "iolab_none", "libc 9") }.unwrap_err();
        assert!(missing.contains("lacks iolab_none") && missing.ends_with("libc 9 is needed"));
    }
}
