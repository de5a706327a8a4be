//! Every fio option a job file may hold and how iolab takes it (`take` checks a section against the table): mapped through the import's table, part of the file's structure, read without effect (with the note why), or refused (with why); and fio's aliases.

use super::text::Section;
use crate::plan::UsageError;

/// Checks every option of `section` against the table: refuses one iolab
/// does not read or cannot follow, naming its line (`at`), and adds the
/// note of each read without effect to `notes`, once. fio's default
/// `verify=0` is dropped here.
pub(super) fn take(
    section: &mut Section,
    at: &dyn Fn(usize) -> String,
    notes: &mut Vec<String>,
) -> Result<(), UsageError> {
    // `verify=0` is fio's default, no verification: nothing to run.
    section.options.retain(|option| {
        let default_verify = option.key == "verify" && option.value.trim() == "0";
        if default_verify {
            let note = "verify=0: no effect: fio's default, no verification".to_string();
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        !default_verify
    });
    for option in &section.options {
        let Some((_, taken)) = OPTIONS.iter().find(|(key, _)| *key == option.key) else {
            return Err(crate::usage!(
                "{}: {}: fio option not supported by iolab (iolab reads the options docs/fio-job-files.md lists)",
                at(option.line),
                option.key
            ));
        };
        if option.key == "io_submit_mode" {
            let note = submit_mode_note(option.value.trim()).map_err(|why| {
                crate::usage!(
                    "{}: io_submit_mode={}: {why}",
                    at(option.line),
                    option.value.trim()
                )
            })?;
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        if let Taken::Refused(why) = taken {
            return Err(crate::usage!("{}: {}: {why}", at(option.line), option.key));
        }
        if let Taken::NoEffect(why) = taken {
            let written = match option.value.as_str() {
                "" => option.key.clone(),
                value => format!("{}={value}", option.key),
            };
            let note = format!("{written}: no effect: {why}");
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    }
    Ok(())
}

/// How iolab takes each option a job file may hold.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Taken {
    /// A workload parameter, through the import's table (`FioJob::value`).
    Mapped,
    /// The job file's structure: phases, names, where files go.
    Structure,
    /// Read and without effect in iolab, for the reason given.
    NoEffect(&'static str),
    /// Understood, and refused: iolab would run something else, for the
    /// reason given.
    Refused(&'static str),
}

/// Why fio's switches that skip latency measurement change nothing here.
const EVERY_LATENCY: &str = "iolab measures every I/O's latency";
/// Why fio's percentile choices change nothing here.
const WHOLE_HISTOGRAM: &str = "iolab keeps the whole latency histogram";

/// Every option iolab reads in a job file; anything else is refused by name.
pub(super) const OPTIONS: &[(&str, Taken)] = &[
    ("rw", Taken::Mapped),
    ("blockalign", Taken::Mapped),
    ("ba", Taken::Mapped),
    ("allow_file_create", Taken::Mapped),
    ("readwrite", Taken::Mapped),
    ("bs", Taken::Mapped),
    ("blocksize", Taken::Mapped),
    ("bssplit", Taken::Mapped),
    ("bsrange", Taken::Mapped),
    ("blocksize_range", Taken::Mapped),
    ("size", Taken::Mapped),
    ("filesize", Taken::Mapped),
    ("offset", Taken::Mapped),
    ("ioengine", Taken::Mapped),
    ("iodepth", Taken::Mapped),
    ("iodepth_batch", Taken::Mapped),
    ("iodepth_batch_submit", Taken::Mapped),
    ("iodepth_batch_complete_max", Taken::Mapped),
    ("iodepth_batch_complete_min", Taken::Mapped),
    ("iodepth_batch_complete", Taken::Mapped),
    ("sqthread_poll", Taken::Mapped),
    ("serialize_overlap", Taken::Mapped),
    ("direct", Taken::Mapped),
    ("sync", Taken::Mapped),
    ("fsync", Taken::Mapped),
    ("fdatasync", Taken::Mapped),
    ("end_fsync", Taken::Mapped),
    ("numjobs", Taken::Mapped),
    ("runtime", Taken::Mapped),
    ("loops", Taken::Mapped),
    ("startdelay", Taken::Mapped),
    ("io_size", Taken::Mapped),
    ("io_limit", Taken::Mapped),
    ("number_ios", Taken::Mapped),
    ("time_based", Taken::Mapped),
    ("ramp_time", Taken::Mapped),
    ("rate", Taken::Mapped),
    ("rate_iops", Taken::Mapped),
    ("rate_process", Taken::Mapped),
    ("read_iolog", Taken::Mapped),
    ("replay_no_stall", Taken::Mapped),
    ("replay_time_scale", Taken::Mapped),
    ("rwmixread", Taken::Mapped),
    ("rwmixwrite", Taken::Mapped),
    ("random_distribution", Taken::Mapped),
    ("random_sequence_stride", Taken::Mapped),
    ("norandommap", Taken::Mapped),
    ("thinktime", Taken::Mapped),
    ("thinktime_blocks", Taken::Mapped),
    ("thinktime_spin", Taken::Mapped),
    ("thinktime_iotime", Taken::Mapped),
    ("flow", Taken::Mapped),
    ("flow_id", Taken::Mapped),
    ("flow_sleep", Taken::Mapped),
    ("zero_buffers", Taken::Mapped),
    ("buffer_compress_percentage", Taken::Mapped),
    ("buffer_compress_chunk", Taken::Mapped),
    ("dedupe_percentage", Taken::Mapped),
    ("invalidate", Taken::Mapped),
    ("cpus_allowed", Taken::Mapped),
    ("cpus_allowed_policy", Taken::Mapped),
    ("kb_base", Taken::Mapped),
    ("nrfiles", Taken::Mapped),
    ("offset_increment", Taken::Mapped),
    ("nfs_url", Taken::Structure),
    (
        "filename_format",
        Taken::NoEffect("iolab names each job's file itself, one per job as fio's default"),
    ),
    ("create_on_open", Taken::Structure),
    ("fallocate", Taken::Structure),
    (
        "openfiles",
        Taken::NoEffect("an iolab job holds one file open at a time"),
    ),
    (
        "unlink",
        Taken::NoEffect("iolab removes the files it made at the end (--keep keeps them)"),
    ),
    (
        "registerfiles",
        Taken::NoEffect("iolab's uring engine registers its file with the ring always"),
    ),
    (
        "fixedbufs",
        Taken::NoEffect("iolab's uring engine registers its buffers whenever the kernel allows"),
    ),
    ("name", Taken::Structure),
    ("stonewall", Taken::Structure),
    ("wait_for", Taken::Structure),
    ("directory", Taken::Structure),
    ("filename", Taken::Structure),
    ("verify", Taken::Structure),
    ("do_verify", Taken::Structure),
    (
        "description",
        Taken::NoEffect("a description is not measured"),
    ),
    (
        "group_reporting",
        Taken::NoEffect("iolab reports every group's totals and each of its jobs"),
    ),
    ("new_group", Taken::Structure),
    ("thread", Taken::NoEffect("iolab's jobs are threads")),
    ("io_submit_mode", Taken::Structure),
    (
        "threads",
        Taken::NoEffect(
            "not an option of fio's (fio 3.33 ignores it; `thread` makes its jobs threads, and iolab's are)",
        ),
    ),
    (
        "gtod_reduce",
        Taken::NoEffect(
            "iolab reads the clock around every I/O as always (fio drops its latency figures to save the calls)",
        ),
    ),
    (
        "randrepeat",
        Taken::NoEffect(
            "iolab's draws come from its --seed, each repetition its own (--same-draws repeats them); fio's generator is not iolab's",
        ),
    ),
    (
        "random_generator",
        Taken::NoEffect(
            "iolab draws with its own generator; the same I/Os and bytes, not fio's sequence of offsets (lfsr, which never repeats an offset, is iolab's random order without repeats even with norandommap)",
        ),
    ),
    ("disable_lat", Taken::NoEffect(EVERY_LATENCY)),
    ("disable_clat", Taken::NoEffect(EVERY_LATENCY)),
    ("disable_slat", Taken::NoEffect(EVERY_LATENCY)),
    (
        "disable_bw_measurement",
        Taken::NoEffect("iolab measures throughput per interval"),
    ),
    ("clat_percentiles", Taken::NoEffect(WHOLE_HISTOGRAM)),
    ("lat_percentiles", Taken::NoEffect(WHOLE_HISTOGRAM)),
    ("percentile_list", Taken::NoEffect(WHOLE_HISTOGRAM)),
    (
        "ratemin",
        Taken::NoEffect(
            "iolab does not end a job that runs below a rate (fio fails it); the figures show its rate",
        ),
    ),
    ("write_bw_log", Taken::Mapped),
    ("write_iops_log", Taken::Mapped),
    ("write_lat_log", Taken::Mapped),
    ("write_iolog", Taken::Mapped),
    (
        "write_hist_log",
        Taken::NoEffect(
            "iolab keeps each repetition's whole latency histogram in the result file; fio's log files are not written",
        ),
    ),
    ("log_avg_msec", Taken::Mapped),
    (
        "bwavgtime",
        Taken::NoEffect(
            "the JSON's bw_min … bw_samples are per interval of iolab's series (--interval, 1 s unless set; log_avg_msec sets it)",
        ),
    ),
    (
        "iopsavgtime",
        Taken::NoEffect(
            "the JSON's iops_min … iops_samples are per interval of iolab's series (--interval, 1 s unless set; log_avg_msec sets it)",
        ),
    ),
    ("log_offset", Taken::Mapped),
    (
        "per_job_logs",
        Taken::NoEffect(
            "iolab's per-I/O logs are each job's, its logs of a window each section's jobs together",
        ),
    ),
    ("zonemode", Taken::Mapped),
    ("zonecapacity", Taken::Mapped),
    ("max_open_zones", Taken::Mapped),
    ("zone_reset_threshold", Taken::Mapped),
    ("zone_reset_frequency", Taken::Mapped),
    ("read_beyond_wp", Taken::Mapped),
    (
        "job_max_open_zones",
        Taken::Refused(
            "iolab limits the zones written at once for every job together (max_open_zones), not per job",
        ),
    ),
    ("zonesize", Taken::Mapped),
    ("zoneskip", Taken::Mapped),
    ("zonerange", Taken::Mapped),
    ("exitall", Taken::Structure),
    ("exit_what", Taken::Structure),
    (
        "continue_on_error",
        Taken::Refused("iolab ends a job at its first failed I/O and says which"),
    ),
    ("prioclass", Taken::Structure),
    ("prio", Taken::Structure),
    ("cmdprio_percentage", Taken::Structure),
    ("cmdprio_class", Taken::Structure),
    ("cmdprio", Taken::Structure),
    (
        "log_prio",
        Taken::NoEffect(
            "iolab writes no latency log; the result keeps the latencies per priority (priorities)",
        ),
    ),
    ("cmdprio_bssplit", Taken::Structure),
    ("cmdprio_hint", Taken::Structure),
    ("priohint", Taken::Structure),
    ("latency_target", Taken::Structure),
    ("latency_window", Taken::Structure),
    ("latency_percentile", Taken::Structure),
    ("latency_run", Taken::Structure),
    ("steadystate", Taken::Structure),
    ("ss", Taken::Structure),
    ("steadystate_duration", Taken::Structure),
    ("ss_dur", Taken::Structure),
    ("steadystate_ramp_time", Taken::Structure),
    ("ss_ramp", Taken::Structure),
    ("steadystate_check_interval", Taken::Structure),
    ("ss_interval", Taken::Structure),
    ("numa_cpu_nodes", Taken::Structure),
    ("numa_mem_policy", Taken::Mapped),
    ("verify_backlog", Taken::Mapped),
    (
        "verify_dump",
        Taken::NoEffect(
            "iolab writes no dump files: a bad block is named in the result by its offset, with the header expected against the one found (the first ten)",
        ),
    ),
    ("verify_pattern", Taken::Mapped),
    ("verify_interval", Taken::Structure),
    (
        "verify_fatal",
        Taken::NoEffect(
            "iolab's check fails the repetition at any bad block, naming the first ten",
        ),
    ),
    (
        "verify_async",
        Taken::NoEffect("iolab checks in one untimed pass after the writes"),
    ),
    (
        "verify_state_save",
        Taken::NoEffect("iolab keeps no verify state: its check reads each block's seal back"),
    ),
    (
        "verify_header_seed",
        Taken::NoEffect("iolab's header check is of the block's offset, writer and CRC, no seed"),
    ),
    (
        "verify_write_sequence",
        Taken::NoEffect(
            "iolab's header check is of the block's offset, writer and CRC, no sequence",
        ),
    ),
    (
        "verify_state_load",
        Taken::Refused("iolab cannot resume a verification from fio's saved state"),
    ),
    ("buffer_pattern", Taken::Mapped),
    (
        "atomic",
        Taken::Refused("iolab issues no atomic (RWF_ATOMIC) writes"),
    ),
    ("dedupe_mode", Taken::Mapped),
    ("dedupe_working_set_percentage", Taken::Mapped),
    ("dedupe_global", Taken::Mapped),
];

/// The options fio takes as aliases of another, and which.
pub(super) const ALIASES: &[(&str, &str)] = &[
    ("readwrite", "rw"),
    ("blocksize", "bs"),
    ("blocksize_range", "bsrange"),
    ("iodepth_batch", "iodepth_batch_submit"),
    ("iodepth_batch_complete", "iodepth_batch_complete_min"),
    ("io_limit", "io_size"),
    ("ba", "blockalign"),
    ("ss", "steadystate"),
    ("ss_dur", "steadystate_duration"),
    ("ss_ramp", "steadystate_ramp_time"),
    ("ss_interval", "steadystate_check_interval"),
];

/// The note a job's `io_submit_mode` leaves, or why it cannot be followed.
/// fio submits inline by default; `offload` hands submission to worker
/// threads so that a paced job issues on schedule whatever completes, which
/// is how an iolab job paces anyway: each I/O is issued at its due time, up
/// to iodepth in flight, and its latency is also counted from that time.
pub(super) fn submit_mode_note(mode: &str) -> Result<String, String> {
    match mode {
        "inline" => Ok(
            "io_submit_mode=inline: no effect: fio's default; iolab's jobs submit their own I/O"
                .to_string(),
        ),
        "offload" => Ok(
            "io_submit_mode=offload: iolab's job thread issues each I/O at its due time itself, up to iodepth in flight (what fio's offload threads are for); the same I/Os, latency also counted from the intended issue".to_string(),
        ),
        other => Err(format!("fio takes inline or offload, not {other}")),
    }
}
