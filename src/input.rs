//! Opening the files a user names for reading (result files, study files,
//! fio output, journals, reports to be replaced): regular files only, and
//! never an open that can block.
//!
//! `open(2)` of a FIFO for reading waits for a writer, in a system call that
//! SA_RESTART resumes after every signal, so a FIFO planted where a result or
//! a report is expected used to hang iolab past Ctrl-C. Opening with
//! O_NONBLOCK returns at once for every file type; fstat then tells a regular
//! file from the rest, which is refused by name.

use rustix::fs::{FileType, Mode, OFlags};
use std::fs::File;
use std::io;
use std::path::Path;

/// Opens `path` for reading if it is a regular file (following symbolic
/// links); anything else is refused with an error naming its type.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let kind = FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode);
    if kind != FileType::RegularFile {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("is {}, not a regular file", describe(kind)),
        ));
    }
    // O_NONBLOCK means nothing to a regular file's reads; cleared all the same.
    rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
    Ok(File::from(fd))
}

/// Reads the whole regular file `path` as UTF-8 (see [`open_regular`]).
pub fn read_to_string(path: &Path) -> io::Result<String> {
    let mut text = String::new();
    io::Read::read_to_string(&mut open_regular(path)?, &mut text)?;
    Ok(text)
}

/// Whether `path` names something that is not a regular file (a FIFO, a
/// socket, a device, a directory), without opening it; false when nothing
/// is there.
pub fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

/// "a FIFO", "a directory"… for messages.
pub fn describe(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "a file of unknown type",
    }
}

/// Describes an I/O error in a few words with its errno name.
pub fn describe_io(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::NotFound => "does not exist".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_at_once_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // Without O_NONBLOCK this open would wait for a writer forever.
        let error = open_regular(&fifo).unwrap_err();
        assert!(error.to_string().contains("a FIFO"), "{error}");
        assert!(is_special(&fifo));
        let error = read_to_string(dir.path()).unwrap_err();
        assert!(error.to_string().contains("a directory"), "{error}");
    }

    #[test]
    fn a_regular_file_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "text").unwrap();
        assert_eq!(read_to_string(&file).unwrap(), "text");
        assert!(!is_special(&file));
        assert!(!is_special(&dir.path().join("missing")));
    }
}
