//! Processes as /proc shows them: the boot's id, this process's pid namespace, a process's state and start time (/proc/PID/stat), its command line (/proc/PID/cmdline), this binary's GNU build id, its I/O accounting (/proc/PID/io), and where an open descriptor of this process now leads (/proc/self/fd/N). The rest of iolab asks here rather than reading /proc itself.

/// This boot's id (/proc/sys/kernel/random/boot_id), trimmed; empty when it
/// cannot be read.
pub fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|id| id.trim().to_string())
        .unwrap_or_default()
}

/// The inode of this process's network namespace (`/proc/self/ns/net`):
/// two processes of one boot with different ones reach different
/// networks, as two hosts do; 0 where it cannot be read.
pub fn net_namespace() -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self/ns/net").map_or(0, |m| m.ino())
}

/// How far this process's CLOCK_MONOTONIC reads ahead of its kernel's, ns:
/// the `monotonic` line of /proc/self/timens_offsets in a time namespace
/// (Linux 5.6 on; `unshare --time --monotonic=…`, CRIU's restored
/// containers), 0 without one or where the file cannot be read.
pub fn monotonic_offset_ns() -> i64 {
    std::fs::read_to_string("/proc/self/timens_offsets")
        .map(|text| parse_monotonic_offset(&text))
        .unwrap_or(0)
}

/// The monotonic offset of a timens_offsets text (`monotonic SECS NANOS`).
fn parse_monotonic_offset(text: &str) -> i64 {
    text.lines()
        .find_map(|line| {
            let mut fields = line.split_whitespace();
            if fields.next()? != "monotonic" {
                return None;
            }
            let seconds: i64 = fields.next()?.parse().ok()?;
            let nanos: i64 = fields.next()?.parse().ok()?;
            seconds.checked_mul(1_000_000_000)?.checked_add(nanos)
        })
        .unwrap_or(0)
}

/// This process's pid namespace (`pid:[4026531836]`), spaces made `_` so it
/// is one word; empty when it cannot be read.
pub fn pid_namespace() -> String {
    std::fs::read_link("/proc/self/ns/pid")
        .map(|link| link.to_string_lossy().replace(' ', "_"))
        .unwrap_or_default()
}

/// What /proc/PID/stat says of one process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessStat {
    /// Its state letter (field 3): `R`, `S`, `Z` for a zombie…
    pub state: String,
    /// Its start time in clock ticks since boot (field 22): with the pid,
    /// it names one process even after the pid is reused.
    pub start_ticks: u64,
}

/// Reads /proc/`pid`/stat; `None` when there is no such process.
pub fn stat_of(pid: u32) -> Option<ProcessStat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Parses a /proc/PID/stat line: the command name (field 2) is in
/// parentheses and may hold spaces and parentheses, so fields are counted
/// from the last `)`.
pub fn parse_stat(text: &str) -> Option<ProcessStat> {
    let after_name = &text[text.rfind(')')? + 1..];
    let mut fields = after_name.split_whitespace();
    let state = fields.next()?.to_string();
    let start_ticks = fields.nth(18)?.parse().ok()?;
    Some(ProcessStat { state, start_ticks })
}

/// The pids in /proc: every process of this pid namespace now.
pub fn pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// The time since boot in clock ticks (/proc/uptime, at its 10 ms
/// resolution), the unit of [`ProcessStat::start_ticks`]; `None` when it
/// cannot be read.
pub fn uptime_ticks() -> Option<u64> {
    let seconds: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then_some((seconds * per_second as f64) as u64)
}

/// How long this process has run, seconds, at the clock ticks' 10 ms
/// resolution; `None` when /proc cannot tell.
pub fn own_age_s() -> Option<f64> {
    let start = stat_of(std::process::id())?.start_ticks;
    let now = uptime_ticks()?;
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| now.saturating_sub(start) as f64 / per_second as f64)
}

/// The text of /proc/`pid`/io: the process's I/O accounting, with that of
/// every descendant it reaped; `None` when it cannot be read.
pub fn io_text(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/io")).ok()
}

/// The arguments of process `pid` (/proc/PID/cmdline), lossily as UTF-8;
/// `None` when there is no such process or it cannot be read.
pub fn command_line(pid: u32) -> Option<Vec<String>> {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(
        raw.split(|&b| b == 0)
            .filter(|word| !word.is_empty())
            .map(|word| String::from_utf8_lossy(word).into_owned())
            .collect(),
    )
}

/// The GNU build id of this process's own executable (the linker's
/// `NT_GNU_BUILD_ID` note, hex), read from its program headers in memory:
/// two builds of other code differ in it even at one version and commit.
/// `None` where the binary carries none.
pub fn own_build_id() -> Option<String> {
    unsafe extern "C" fn first_object(
        info: *mut libc::dl_phdr_info,
        _size: libc::size_t,
        found: *mut libc::c_void,
    ) -> libc::c_int {
        // SAFETY: the loader hands a valid info for the main program first;
        // `found` is the Option<String> below.
        let (info, found) = unsafe { (&*info, &mut *found.cast::<Option<String>>()) };
        for index in 0..usize::from(info.dlpi_phnum) {
            // SAFETY: dlpi_phdr holds dlpi_phnum headers.
            let header = unsafe { &*info.dlpi_phdr.add(index) };
            if header.p_type != libc::PT_NOTE {
                continue;
            }
            let start = (info.dlpi_addr + header.p_vaddr) as *const u8;
            // SAFETY: a PT_NOTE segment is mapped for p_memsz bytes.
            let notes = unsafe { std::slice::from_raw_parts(start, header.p_memsz as usize) };
            if let Some(id) = build_id_in(notes) {
                *found = Some(id);
                break;
            }
        }
        1 // the main program only
    }
    let mut found: Option<String> = None;
    // SAFETY: the callback reads only what the loader passes.
    unsafe {
        libc::dl_iterate_phdr(Some(first_object), (&raw mut found).cast());
    }
    found
}

/// The GNU build id among ELF notes (4-byte aligned name and descriptor).
fn build_id_in(mut notes: &[u8]) -> Option<String> {
    let word = |bytes: &[u8], at: usize| -> Option<usize> {
        Some(u32::from_ne_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    while notes.len() >= 12 {
        let (name_size, desc_size, kind) = (word(notes, 0)?, word(notes, 4)?, word(notes, 8)?);
        let name_end = 12 + name_size.div_ceil(4) * 4;
        let desc_end = name_end.checked_add(desc_size.div_ceil(4) * 4)?;
        let name = notes.get(12..12 + name_size)?;
        let desc = notes.get(name_end..name_end + desc_size)?;
        if kind == 3 && name == b"GNU\0" {
            return Some(desc.iter().map(|b| format!("{b:02x}")).collect());
        }
        notes = notes.get(desc_end..)?;
    }
    None
}

/// The path an open descriptor of this process leads to now (after a
/// rename, its new name; ` (deleted)` when it has none): the readlink of
/// /proc/self/fd/N; `None` when it cannot be read.
pub fn path_of_descriptor(fd: std::os::fd::BorrowedFd<'_>) -> Option<std::path::PathBuf> {
    use std::os::fd::AsRawFd;
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_after_the_command_name() {
        let line = "42 (a (b) c) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 12345 1000 10";
        let stat = parse_stat(line).unwrap();
        assert_eq!((stat.state.as_str(), stat.start_ticks), ("S", 12345));
        assert_eq!(parse_stat("42 (x"), None);
        let own = stat_of(std::process::id()).unwrap();
        assert!(own.start_ticks > 0 && !own.state.is_empty());
        assert!(!boot_id().is_empty() && pid_namespace().starts_with("pid:"));
        let id = own_build_id().expect("Debian's linker gives every binary a build id");
        assert!(
            id.len() >= 16 && id.chars().all(|c| c.is_ascii_hexdigit()),
            "{id}"
        );
        // The same as binutils' readelf reads from the file, where it is.
        if let Ok(notes) = std::process::Command::new("readelf")
            .arg("-n")
            .arg(std::env::current_exe().unwrap())
            .output()
        {
            let text = String::from_utf8_lossy(&notes.stdout);
            assert!(text.contains(&format!("Build ID: {id}")), "{id}: {text}");
        }
        let own_words = command_line(std::process::id()).unwrap();
        assert!(!own_words.is_empty() && own_words.iter().all(|w| !w.contains('\0')));
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("a")).unwrap();
        std::fs::rename(dir.path().join("a"), dir.path().join("b")).unwrap();
        use std::os::fd::AsFd;
        assert_eq!(
            path_of_descriptor(file.as_fd()).unwrap(),
            dir.path().join("b")
        );
        assert_eq!(
            parse_monotonic_offset(
                "monotonic      86400         0\nboottime       86400         0\n"
            ),
            86_400_000_000_000
        );
        assert_eq!(parse_monotonic_offset("monotonic -5 250\n"), -4_999_999_750);
        assert_eq!(parse_monotonic_offset(""), 0);
    }
}
