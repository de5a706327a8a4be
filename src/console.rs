//! What iolab writes to its standard streams: each stderr line in one system
//! call, and stdout written whole with every error but a closed pipe reported.
//!
//! Rust's `eprintln!` writes a line in several `write(2)` calls (one per
//! formatted piece), so another writer to the same pipe — mpirun forwarding
//! a banner, a second rank, a progress bar — could land between `iolab:
//! error:` and the message. [`say!`](crate::say) formats first and writes once:
//! a line up to PIPE_BUF (4 KiB) reaches a pipe whole.

use std::io::{self, Write};

/// Writes `text` and a newline to stderr in one `write(2)` call; an error
/// writing to stderr has nowhere to be reported and is ignored.
pub fn line(text: &str) {
    let mut bytes = Vec::with_capacity(text.len() + 1);
    bytes.extend_from_slice(text.as_bytes());
    bytes.push(b'\n');
    let _ = io::stderr().lock().write_all(&bytes);
}

/// Formats a line and writes it to stderr in one system call (see [`line`]).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => { $crate::console::line(&format!($($arg)*)) };
}

/// Writes `text` to stdout and flushes it. A closed pipe (`iolab … | head`)
/// is not an error; anything else (a full disk behind `> file`, `>&-`,
/// /dev/full) is returned, so that no result is lost silently.
pub fn stdout(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
