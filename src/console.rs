//! What iolab writes to its standard streams: each stderr line in one system
//! call, stdout written whole with every error but a closed pipe reported,
//! and never a control character that came from a file.
//!
//! Labels, host names, file names and fio job names come from result files
//! and fio output, which anyone can write: `\x1b]52;c;…\x07` in a label would
//! set the terminal's clipboard, `\x1b[2J` clear the screen. Every text iolab
//! prints, and every Markdown or CSV report it writes, goes through
//! [`neutralize`], which shows such characters as escapes instead.
//!
//! Rust's `eprintln!` writes a line in several `write(2)` calls (one per
//! formatted piece), so another writer to the same pipe — mpirun forwarding
//! a banner, a second rank, a progress bar — could land between `iolab:
//! error:` and the message. [`say!`](crate::say) formats first and writes once:
//! a line up to PIPE_BUF (4 KiB) reaches a pipe whole.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set when stdout was closed at start (`iolab … >&-`).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Asks whether descriptor 1 is open as the program starts, before Rust's
/// runtime holds a closed one with /dev/null (which it opens read-write, as
/// a caller's `subprocess.DEVNULL` or `1<>/dev/null` is opened: afterwards
/// the two cannot be told apart).
extern "C" fn note_closed_stdout_at_exec() {
    // SAFETY: F_GETFD only asks whether the descriptor is open.
    let closed = unsafe { libc::fcntl(1, libc::F_GETFD) } == -1;
    if closed {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// Runs [`note_closed_stdout_at_exec`] with the C library's constructors,
/// before `main`.
#[used]
#[unsafe(link_section = ".init_array")]
static NOTE_CLOSED_STDOUT: extern "C" fn() = note_closed_stdout_at_exec;

/// Set by `--verbose`: notes (where a report went, how a job file was
/// read, what one repetition cannot show) reach stderr as well as the
/// result file and its report.
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Lets [`note!`](crate::note) lines through to stderr from now on.
pub fn set_verbose(verbose: bool) {
    VERBOSE.store(verbose, Ordering::Relaxed);
}

/// Whether `--verbose` was given.
pub fn verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
}

/// Who this process is among the ranks of a distributed run, when it is
/// not rank 0 (`rank 1 on vm`): its lines say so after `iolab: `, since a
/// launcher mixes every rank's stderr.
static SPEAKER: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Names this process in each `iolab: ` line it writes from now on.
pub fn speak_as(who: String) {
    let _ = SPEAKER.set(who);
}

/// Makes sure descriptors 0, 1 and 2 are open, before anything else is:
/// a closed one is held by /dev/null, so that no file iolab opens later
/// (a scratch file, a result) gets its number and receives what was meant
/// for the terminal. A closed stdout is remembered, because its output
/// would vanish: [`stdout`] reports it.
///
/// Rust's runtime already did the same before `main`; that stdout was
/// closed is known from `NOTE_CLOSED_STDOUT`, which asked before it.
pub fn guard_standard_streams() {
    for fd in 0..=2 {
        // SAFETY: F_GETFD on any number only asks whether it is open.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        if !closed {
            continue;
        }
        if fd == 1 {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
        }
        // SAFETY: a valid C string; the lowest free descriptor is `fd`.
        unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
    }
}

/// Writes `text` and a newline to stderr in one `write(2)` call; an error
/// writing to stderr has nowhere to be reported and is ignored.
pub fn line(text: &str) {
    let named;
    let text = match (SPEAKER.get(), text.strip_prefix("iolab: ")) {
        (Some(who), Some(rest)) => {
            named = format!("iolab: {who}: {rest}");
            named.as_str()
        }
        _ => text,
    };
    let text = neutralize(text);
    // In a terminal a long message wraps at spaces, not inside a word; to a
    // file or a pipe it stays one line, for grep.
    let text = match stderr_width() {
        Some(width) => std::borrow::Cow::Owned(wrap(&text, width)),
        None => text,
    };
    let text = match colour(rustix::stdio::stderr()) {
        true => std::borrow::Cow::Owned(paint(&text)),
        false => text,
    };
    let mut bytes = Vec::with_capacity(text.len() + 1);
    bytes.extend_from_slice(text.as_bytes());
    bytes.push(b'\n');
    let _ = io::stderr().lock().write_all(&bytes);
}

/// Formats a line and writes it to stderr in one system call (see [`line()`]).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => { $crate::console::line(&format!($($arg)*)) };
}

/// A line that is advice or information, not a warning or an error: written
/// as [`say!`](crate::say) writes it with `--verbose`, else not at all
/// (stderr stays empty when nothing is wrong, as scripts expect of fio).
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {
        if $crate::console::verbose() {
            $crate::console::line(&format!($($arg)*))
        }
    };
}

/// Writes `text` to stdout and flushes it. A closed pipe (`iolab … | head`)
/// is not an error; anything else (a full disk behind `> file`, `>&-`,
/// /dev/full) is returned, so that no result is lost silently.
pub fn stdout(text: &str) -> io::Result<()> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return Err(io::Error::other("standard output is closed (EBADF)"));
    }
    let text = neutralize(text);
    // JSON stays JSON even on a terminal.
    let json = text.starts_with(['{', '[']);
    let text = match !json && colour(rustix::stdio::stdout()) {
        true => std::borrow::Cow::Owned(paint(&text)),
        false => text,
    };
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// The width text is laid out to: `COLUMNS` when set to a number (as
/// shells and `COLUMNS=80 iolab …` set it), else the terminal's on stdout,
/// else 80 columns (a pipe, a file: what a person later reads in a pager or
/// a mail is as wide as a terminal; a script reads `--json`).
pub fn width() -> u16 {
    if let Some(columns) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&c| c >= 20)
    {
        return columns;
    }
    let out = rustix::stdio::stdout();
    if !rustix::termios::isatty(out) {
        return PIPE_WIDTH;
    }
    rustix::termios::tcgetwinsize(out)
        .ok()
        .map(|size| size.ws_col)
        .filter(|&columns| columns >= 20)
        .unwrap_or(PIPE_WIDTH)
}

/// The width of stderr when it is a terminal (`COLUMNS` or the terminal's).
fn stderr_width() -> Option<usize> {
    let err = rustix::stdio::stderr();
    if !rustix::termios::isatty(err) {
        return None;
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .or_else(|| rustix::termios::tcgetwinsize(err).ok().map(|s| s.ws_col))
        .filter(|&columns| columns >= 20)
        .map(usize::from)
}

/// `text` with each line wrapped at spaces to `width` columns, a
/// continuation indented as its line was, or under the value of a
/// `label:   value` line; a word longer than the width stays whole.
pub fn wrap(text: &str, width: usize) -> String {
    let mut wrapped = String::with_capacity(text.len() + 16);
    for (index, line) in text.split('\n').enumerate() {
        if index > 0 {
            wrapped.push('\n');
        }
        if line.chars().count() <= width {
            wrapped.push_str(line);
            continue;
        }
        let words = line.trim_start_matches(' ');
        let indent = line.len() - words.len();
        let hang = hanging_indent(words).map_or(indent, |value| indent + value);
        let hang = if hang * 2 > width { indent } else { hang };
        wrapped.push_str(&line[..indent]);
        let mut column = indent;
        let mut line_has_word = false;
        for word in words.split(' ') {
            let length = word.chars().count();
            if line_has_word && column + 1 + length > width {
                wrapped.push('\n');
                wrapped.push_str(&" ".repeat(hang));
                column = hang;
                line_has_word = false;
            }
            if line_has_word {
                wrapped.push(' ');
                column += 1;
            } else if word.is_empty() {
                // Spaces where a continuation starts.
                continue;
            }
            wrapped.push_str(word);
            column += length;
            line_has_word = true;
        }
    }
    wrapped
}

/// Where the value of a `label:   value` line starts (two spaces or more
/// after a one-word label ending in a colon), from the line's first word.
fn hanging_indent(words: &str) -> Option<usize> {
    let (label, rest) = words.split_once(' ')?;
    let value = rest.trim_start_matches(' ');
    let spaces = rest.len() - value.len();
    (label.ends_with(':') && spaces >= 1 && !value.is_empty())
        .then(|| label.chars().count() + 1 + spaces)
}

/// The width of what does not go to a terminal.
pub const PIPE_WIDTH: u16 = 80;

/// Whether what goes to `stream` is coloured: a terminal, `NO_COLOR` unset
/// or empty (no-color.org), and a `TERM` that is not `dumb`.
pub fn colour(stream: rustix::fd::BorrowedFd<'_>) -> bool {
    rustix::termios::isatty(stream)
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

/// The words iolab itself uses for outcomes, coloured (ANSI SGR) where
/// they stand as words: errors and worse verdicts red, warnings and
/// undecided ones yellow, better and equivalent green. Applied after
/// [`neutralize`], so no colour ever comes from a file; a label holding
/// one of these words is coloured too, which shows nothing but colour.
pub fn paint(text: &str) -> String {
    const RED: &str = "\x1b[31m";
    const YELLOW: &str = "\x1b[33m";
    const GREEN: &str = "\x1b[32m";
    const DIM: &str = "\x1b[2m";
    const WORDS: &[(&str, &str)] = &[
        ("iolab: error:", RED),
        ("iolab: warning:", YELLOW),
        ("iolab: note:", DIM),
        ("error [", RED),
        ("warning [", YELLOW),
        ("FAILED", RED),
        ("interrupted", YELLOW),
        ("slower", RED),
        ("more CPU", RED),
        ("different", RED),
        ("faster", GREEN),
        ("less CPU", GREEN),
        ("equivalent", GREEN),
        ("inconclusive", YELLOW),
        ("not significant", DIM),
        ("not tested", DIM),
    ];
    let mut painted = String::with_capacity(text.len() + 64);
    let mut rest = text;
    'outer: while !rest.is_empty() {
        let at_word_start = painted
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        if at_word_start {
            for (word, colour) in WORDS {
                let Some(after) = rest.strip_prefix(word) else {
                    continue;
                };
                let ends_word = word.ends_with([':', '['])
                    || after.chars().next().is_none_or(|c| !c.is_alphanumeric());
                if ends_word {
                    let shown = word.trim_end_matches([' ', '[']);
                    painted.push_str(colour);
                    painted.push_str(shown);
                    painted.push_str("\x1b[0m");
                    painted.push_str(&word[shown.len()..]);
                    rest = after;
                    continue 'outer;
                }
            }
        }
        let c = rest.chars().next().expect("not empty");
        painted.push(c);
        rest = &rest[c.len_utf8()..];
    }
    painted
}

/// `text` with every control character but newline and tab, and every
/// bidirectional override, replaced by its escape (`\u{1b}`): what a file
/// put in a label reaches a terminal or a report as text, never as a command.
pub fn neutralize(text: &str) -> std::borrow::Cow<'_, str> {
    let harmful = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(harmful) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut clean = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if harmful(c) {
            clean.extend(c.escape_unicode());
        } else {
            clean.push(c);
        }
    }
    std::borrow::Cow::Owned(clean)
}

#[cfg(test)]
mod tests {
    use super::{neutralize, wrap};

    /// Lines wrap at spaces; a continuation is indented as its line, or
    /// under a `label:  value` line's value; runs of spaces inside stay.
    #[test]
    fn wrap_keeps_words_whole_and_hangs_under_a_value() {
        assert_eq!(
            wrap("kernel:  one two three four five six", 30),
            "kernel:  one two three four\n         five six"
        );
        assert_eq!(wrap("  a  b   c", 80), "  a  b   c");
        assert_eq!(
            wrap("  issue lag  p50 1 ms, p99 2 ms", 20),
            "  issue lag  p50 1\n  ms, p99 2 ms"
        );
        assert_eq!(wrap(&"x".repeat(30), 20), "x".repeat(30));
    }

    #[test]
    fn outcomes_are_painted_as_words_only() {
        let painted = super::paint("warning [x] p: slower than faster-ish; slowerish\n");
        assert_eq!(
            painted,
            "\x1b[33mwarning\x1b[0m [x] p: \x1b[31mslower\x1b[0m than \x1b[32mfaster\x1b[0m-ish; slowerish\n"
        );
        assert_eq!(super::paint("unfaster"), "unfaster");
    }

    #[test]
    fn escape_sequences_become_visible_text() {
        let clipboard = "label\u{1b}]52;c;ZXZpbA==\u{7}end";
        assert_eq!(neutralize(clipboard), "label\\u{1b}]52;c;ZXZpbA==\\u{7}end");
        assert_eq!(
            neutralize("a\u{1b}[2Jb\r\u{9b}c"),
            "a\\u{1b}[2Jb\\u{d}\\u{9b}c"
        );
        assert_eq!(neutralize("rtl\u{202e}x"), "rtl\\u{202e}x");
        assert_eq!(
            neutralize("table │ 1.5 MiB/s\n\tok"),
            "table │ 1.5 MiB/s\n\tok"
        );
    }
}
