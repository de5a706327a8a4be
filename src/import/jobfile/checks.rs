//! What a job asks that iolab may not follow, said by key: its engine (and what iolab offers instead), its verification, its files (fio's file engines, `nrfiles`, `create_on_open`, `fallocate`), fio's random map with several sizes, and `wait_for` in file order; and sections of one file engine op joined on one tree.

use super::options::{OPTIONS, Taken};
use super::text::{Line, Section};
use crate::import::file_engine::FILE_ENGINE_OPTIONS;
use crate::import::{option, truthy};
use crate::plan::group::Group;
use serde_json::{Map, Value};

/// fio's `verify=METHOD` on a job that `rw` describes: iolab's check of
/// every block written (`--verify`: blocks sealed with their offset and
/// writer, read back from the device after the pass) is what fio's
/// checksum methods check, a write's data read back intact; `do_verify=0`
/// writes checksums fio never reads. A read job's verify checks headers a
/// fio write left, which iolab does not read.
pub(super) fn verification(
    method: &str,
    rw: &str,
    options: &Map<String, Value>,
) -> Result<bool, String> {
    const METHODS: &[&str] = &[
        "md5",
        "crc64",
        "crc32c",
        "crc32c-intel",
        "crc32",
        "crc16",
        "crc7",
        "xxhash",
        "sha512",
        "sha256",
        "sha1",
        "sha3-224",
        "sha3-256",
        "sha3-384",
        "sha3-512",
        "meta",
    ];
    // fio's pattern check: the pattern written, iolab's seal over it.
    let pattern = method == "pattern" && option(options, "verify_pattern").is_some();
    if !METHODS.contains(&method) && !pattern {
        return Err(format!(
            "iolab checks a write's data by checksum-like seals; {method} has no iolab form"
        ));
    }
    if option(options, "do_verify") == Some("0") {
        return Ok(false);
    }
    if !rw_writes(rw) {
        return Err(format!(
            "rw={rw} verifies headers a fio write left, which iolab does not read; verify a job that writes"
        ));
    }
    Ok(true)
}

/// What iolab offers in place of fio's engine `name`, for the refusal.
fn instead_of_engine(name: &str) -> String {
    let engines: Vec<&str> = crate::plan::EngineKind::ALL
        .into_iter()
        .flat_map(|engine| engine.fio_names().iter().copied())
        .collect();
    let offer = match name {
        "io_uring_cmd" | "sg" | "libzbc" | "xnvme" | "spdk" | "libblkio" => {
            "iolab reaches a block device through io_uring, libaio or psync (--file /dev/NAME, --direct)"
        }
        "net" | "netsplice" | "rdma" | "http" | "nbd" | "rbd" | "rados" | "gfapi" | "dfs" => {
            "iolab's network clients are NFS and iSCSI (--target nfs://…, iscsi://…)"
        }
        "cpuio" | "exec" | "page_fault" | "e4defrag" | "ftruncate" | "falloc" => {
            "iolab measures reads, writes and trims of files and devices"
        }
        _ => "",
    };
    match offer {
        "" => format!("iolab's engines are {}", engines.join(", ")),
        offer => format!("{offer}; its engines are {}", engines.join(", ")),
    }
}

/// A job's files as fio's file options describe them: on a file engine,
/// only the options that shape its metadata op, and files it creates
/// when it opens them; on a data engine, one file made before timing.
/// Refused with the key to blame.
pub(super) fn check_files(
    options: &Map<String, Value>,
    line_of: &std::collections::HashMap<String, usize>,
) -> Result<(), (&'static str, String)> {
    let engine = option(options, "ioengine").unwrap_or("psync");
    if let Some(op) = crate::import::file_engine::op_of(engine) {
        let shaped = |key: &str| {
            OPTIONS
                .iter()
                .any(|(known, taken)| *known == key && *taken == Taken::Mapped)
                && !FILE_ENGINE_OPTIONS.contains(&key)
        };
        // The first such key as written, for the line it names.
        let mut stray: Vec<(&String, usize)> = options
            .keys()
            .filter(|key| shaped(key) || *key == "filename")
            .map(|key| (key, line_of.get(key).copied().unwrap_or(0)))
            .collect();
        stray.sort_by_key(|(_, line)| *line);
        if let Some((key, _)) = stray.first() {
            let key: &'static str = OPTIONS
                .iter()
                .map(|(known, _)| *known)
                .find(|known| known == key)
                .unwrap_or("filename");
            return Err((
                key,
                format!(
                    "{key}: ioengine={engine} times one {} per file, iolab's --items N --op {}; {key} does not shape it",
                    op.name(),
                    op.name()
                ),
            ));
        }
        if engine == "filecreate" && !truthy(options, "create_on_open") {
            return Err((
                "ioengine",
                "ioengine=filecreate without create_on_open=1: fio lays the files out first and times opening them; iolab times creating them (give create_on_open=1)".to_string(),
            ));
        }
        if matches!(engine, "filestat" | "filedelete") && truthy(options, "create_on_open") {
            return Err((
                "create_on_open",
                format!(
                    "create_on_open=1 with ioengine={engine}: fio makes no files before its {}s, which fail (ENOENT, fio 3.33); iolab's need their items there",
                    op.name()
                ),
            ));
        }
        return Ok(());
    }
    if let Some(files) = option(options, "nrfiles").filter(|n| n.trim() != "1") {
        return Err((
            "nrfiles",
            format!(
                "nrfiles={files}: an iolab job works on one file (fio spreads the job over {files})"
            ),
        ));
    }
    if truthy(options, "create_on_open") {
        return Err((
            "create_on_open",
            "create_on_open=1: iolab makes a job's file before timing, never at its first I/O"
                .to_string(),
        ));
    }
    if let Some(how) = option(options, "fallocate").filter(|how| *how != "none") {
        return Err((
            "fallocate",
            format!(
                "fallocate={how}: iolab reserves no space before writing a new file (fio's fallocate=none)"
            ),
        ));
    }
    Ok(())
}

/// The URL a job of a network engine works on (`None` for a local
/// engine): fio's option for it (`nfs_url`, or `filename` for libiscsi),
/// of the engine's own scheme, with a size but on a LUN (moved whole
/// without one). Refused with the key to blame.
pub(super) fn network_target(
    options: &Map<String, Value>,
    file: Option<&str>,
) -> Result<Option<String>, (&'static str, String)> {
    let engine_name = option(options, "ioengine").unwrap_or("psync");
    let Some(engine) = crate::plan::EngineKind::ALL
        .into_iter()
        .find(|engine| engine.fio_names().contains(&engine_name))
    else {
        return Ok(None);
    };
    let (Some(scheme), Some(key)) = (engine.capabilities().network, engine.fio_target_option())
    else {
        return Ok(None);
    };
    if let Some(file) = file {
        return Err((
            "ioengine",
            format!(
                "ioengine={engine_name} works on a {scheme}:// URL; --file {file} names a local file"
            ),
        ));
    }
    // fio escapes a colon that is part of a name (`\:`), as in its own
    // libiscsi example's IQN.
    let Some(url) = option(options, key).map(|url| url.replace("\\:", ":")) else {
        return Err((
            "ioengine",
            format!("ioengine={engine_name}: no {key}= names its {scheme}:// target"),
        ));
    };
    if !url.starts_with(&format!("{scheme}://")) {
        return Err((
            "ioengine",
            format!("ioengine={engine_name}: {key}={url} is not a {scheme}:// URL"),
        ));
    }
    // A LUN without a size is moved whole, as fio's libiscsi engine does
    // (the caller reads its capacity); an NFS job makes its files.
    if option(options, "size").is_none() && scheme != "iscsi" {
        return Err((
            "ioengine",
            format!("ioengine={engine_name} on {url}: no size= (the bytes each job's file holds)"),
        ));
    }
    Ok(Some(url))
}

/// Sections of one phase that run the same file engine op on their own
/// files (fio's `filecreate` examples: `[t0]` … `[t15]`) as one group of
/// their jobs on one tree, each job's items its own: a point holds one
/// tree. The note says so; `None` when there is nothing to join.
pub(super) fn one_tree(phase: &mut Vec<Group>) -> Option<String> {
    if phase.len() < 2
        || phase
            .iter()
            .any(|group| group.workload.work() != crate::plan::Work::Tree)
    {
        return None;
    }
    let alike = |group: &Group| crate::plan::Workload {
        jobs: 1,
        ..group.workload.clone()
    };
    if phase.iter().any(|group| alike(group) != alike(&phase[0])) {
        return None;
    }
    let names: Vec<String> = phase
        .iter()
        .map(|group| format!("[{}]", group.name))
        .collect();
    let jobs: u32 = phase.iter().map(|group| group.workload.jobs).sum();
    phase.truncate(1);
    phase[0].workload.jobs = jobs;
    Some(format!(
        "{}: the same {} of their own items, run as one group '{}' of {jobs} jobs on one tree (a point holds one tree; each job's items are its own, as each section's files are in fio)",
        names.join(" "),
        phase[0].workload.op.name(),
        phase[0].name
    ))
}

/// What is said before anything else about a job file: an engine iolab
/// lacks — the options that come with it (an http engine's keys) are
/// refused because of it, not as options iolab does not read. An engine
/// named by an unset variable is said later, with the variable.
pub(super) fn first_refusal(
    sections: &[Section],
    at: &dyn Fn(usize) -> String,
) -> Result<(), crate::plan::UsageError> {
    for section in sections {
        for option in section.options.iter().filter(|o| o.key == "ioengine") {
            let name = option.value.trim();
            if name.contains("${") {
                continue;
            }
            let known = crate::plan::EngineKind::ALL
                .into_iter()
                .any(|engine| engine.fio_names().contains(&name))
                || crate::import::file_engine::op_of(name).is_some();
            if !known {
                return Err(crate::usage!(
                    "{}: [{}] ioengine={name} has no iolab equivalent; {}",
                    at(option.line),
                    section.name,
                    instead_of_engine(name)
                ));
            }
        }
    }
    Ok(())
}

/// fio's random map with several block sizes (`bssplit`, or a split
/// `bsrange` gives, on a random pattern with the map on): iolab's random
/// pass keeps the same map — a uniform draw, the next free block, the I/O
/// stopped at the next covered one — so the bytes are fio's and the I/O
/// count a draw of the same process; the note says so.
pub(super) fn random_map_note(
    workload: &crate::plan::Workload,
    options: &Map<String, Value>,
) -> Option<String> {
    let mapped = workload.pattern == crate::plan::Pattern::Random;
    if workload.bssplit.is_none() || !mapped {
        return None;
    }
    let key = if option(options, "bssplit").is_some() {
        "bssplit"
    } else {
        "bsrange"
    };
    Some(format!(
        "{key} on a random pattern with fio's random map: iolab keeps the map as fio does (each block once per pass, an I/O stopped at the next covered block), so the bytes are fio's and the number of I/Os a draw (within fio's own spread over seeds)"
    ))
}

/// The note fio's `blockalign` (`ba`) leaves when it changes nothing: at
/// its default, the job's smallest block size (iolab's grid too), or on a
/// sequential pattern, where fio ignores it. Another boundary on random
/// draws is iolab's `align` (`FioJob::value`).
pub(super) fn blockalign_note(
    workload: &crate::plan::Workload,
    options: &Map<String, Value>,
) -> Option<String> {
    let text = option(options, "blockalign")?;
    let sequential = workload.pattern.in_order();
    match (sequential, workload.align) {
        (true, _) => Some(format!(
            "blockalign={text}: no effect: fio ignores it on a sequential pattern"
        )),
        (false, 0) => Some(format!(
            "blockalign={text}: no effect: fio's default, the smallest block size, where iolab's random offsets lie too"
        )),
        (false, _) => None,
    }
}

/// Why `wait_for=waited` of job `index` cannot be run in file order: a job
/// missing, itself, or a later job that waits (in the end) for this one.
pub(super) fn check_wait_for(
    waited: &str,
    index: usize,
    jobs: &[(Section, Vec<Line>)],
) -> Result<(), String> {
    let position = |name: &str| jobs.iter().position(|(s, _)| s.name == name);
    let own = &jobs[index].0.name;
    let Some(at) = position(waited) else {
        return Err("names no job of the file".to_string());
    };
    if at < index {
        return Ok(());
    }
    if at == index {
        return Err("is a loop of wait_for: the job waits for itself".to_string());
    }
    // A job after this one: a loop when its own wait_for leads back here.
    // A job's own wait_for after [global]'s: its own wins.
    let wait_of = |job: usize| {
        jobs[job]
            .1
            .iter()
            .chain(&jobs[job].0.options)
            .rfind(|l| l.key == "wait_for")
            .map(|l| l.value.clone())
    };
    let mut seen = vec![at];
    let mut current = at;
    while let Some(next) = wait_of(current).and_then(|w| position(&w)) {
        if jobs[next].0.name == *own || seen.contains(&next) {
            return Err("is a loop of wait_for: the jobs wait for each other".to_string());
        }
        seen.push(next);
        current = next;
    }
    Err("names a job after it; iolab runs the phases in file order".to_string())
}

/// fio's `rw` without its `:N` modifier.
pub(super) fn rw_base(rw: &str) -> &str {
    rw.split_once(':').map_or(rw, |(base, _)| base)
}

/// Whether fio's `rw` writes (or trims).
pub(super) fn rw_writes(rw: &str) -> bool {
    !matches!(rw_base(rw), "read" | "randread")
}

/// The region every job gets when `offset_increment` comes without `size`
/// (`region` bytes from the first job's offset to the file's end): fio
/// runs job k from its own offset to the end, iolab's jobs move one size,
/// so they get the last job's — the same I/Os as fio's when each job moves
/// `io_size` sequentially within it; why not otherwise.
pub(super) fn last_jobs_region(
    options: &Map<String, Value>,
    increment: &str,
    region: u64,
    kb_base: u64,
) -> Result<u64, String> {
    let increment = super::fio_size(increment, kb_base).ok_or_else(|| "not a size".to_string())?;
    let jobs: u64 = option(options, "numjobs")
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(1);
    let last = region
        .checked_sub(increment.saturating_mul(jobs.saturating_sub(1)))
        .filter(|&size| size > 0)
        .ok_or_else(|| {
            format!("job {jobs} would start past the end of the file ({region} bytes from offset=)")
        })?;
    let rw = option(options, "rw")
        .or_else(|| option(options, "readwrite"))
        .unwrap_or("read");
    if !matches!(rw_base(rw), "read" | "write" | "rw" | "readwrite") {
        return Err(
            "fio draws each job's random offsets over its own region to the end of the file; iolab's jobs share one size (give size=)"
                .to_string(),
        );
    }
    // fio's loops each move io_size, going on where the last stopped.
    let loops: u64 = option(options, "loops")
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(1);
    let io_size = option(options, "io_size")
        .or_else(|| option(options, "io_limit"))
        .and_then(|text| super::fio_size(text, kb_base))
        .map(|bytes| bytes.saturating_mul(loops.max(1)));
    match io_size {
        Some(bytes) if bytes <= last => Ok(last),
        _ => Err(format!(
            "fio runs each job from its offset to the end of the file, the last job over {last} bytes; iolab's jobs move one size, so it needs io_size= (times loops=) of at most that (or size=)"
        )),
    }
}

/// The CPUs of fio's `numa_cpu_nodes` list (`0`, `0-1`, `0,2`) on this
/// machine, in fio's `cpus_allowed` form; why not when a node is not
/// here (fio refuses it too) or `cpus_allowed` is also given.
pub(super) fn node_cpus(
    nodes: &str,
    options: &Map<String, Value>,
    node_cpus: &dyn Fn(usize) -> Option<String>,
) -> Result<String, String> {
    if option(options, "cpus_allowed").is_some() {
        return Err("beside cpus_allowed: give the CPUs one way".to_string());
    }
    let set: crate::plan::CpuSet = nodes
        .replace(',', "+")
        .parse()
        .map_err(|_| "not a list of NUMA nodes such as 0-1".to_string())?;
    let mut cpus = Vec::new();
    for node in set.cpus() {
        let list = node_cpus(node).ok_or_else(|| {
            format!("this machine has no NUMA node {node} (fio refuses the job as well)")
        })?;
        if !list.trim().is_empty() {
            cpus.push(list.trim().to_string());
        }
    }
    if cpus.is_empty() {
        return Err("those nodes have no CPUs".to_string());
    }
    Ok(cpus.join(","))
}
