//! fio's option names on iolab's command line: hidden aliases for those that mean the same, and one line naming iolab's spelling for those that do not.
//!
//! A fio user types `--numjobs 4 --blocksize 4k --rw randread`. Where an
//! option of fio's means exactly an iolab flag, it is a hidden alias of it
//! (clap's `alias`: accepted, never shown in help). Where it does not (its
//! value is written differently, or iolab has no such switch), clap refuses
//! it as unknown and [`translate`] turns that refusal into one line with the
//! iolab spelling.

use crate::plan::param::fio_rw_spelling;
use crate::plan::sweep::Param;

/// fio's names for a parameter's flag that mean exactly what iolab's does.
pub fn aliases(param: Param) -> &'static [&'static str] {
    match param {
        Param::Jobs => &["numjobs"],
        Param::Bs => &["blocksize"],
        Param::Ramp => &["ramp_time"],
        Param::Engine => &["ioengine"],
        Param::Batch => &["iodepth_batch_submit", "iodepth_batch"],
        Param::SqPoll => &["sqthread_poll"],
        Param::SerializeOverlap => &["serialize_overlap"],
        Param::Reap => &["iodepth_batch_complete_max"],
        Param::FsyncEnd => &["end_fsync"],
        Param::FsyncEvery => &["fsync"],
        Param::RateIops => &["rate_iops"],
        Param::Arrivals => &["rate_process"],
        Param::Exit => &["exitall", "exit_what"],
        Param::Cpus => &["cpus_allowed"],
        Param::MemPolicy => &["numa_mem_policy"],
        Param::Bssplit => &["blocksize_split"],
        Param::Align => &["blockalign", "ba"],
        _ => &[],
    }
}

/// fio's names for `--dir`.
pub const DIR_ALIASES: &[&str] = &["directory"];

/// One line for an option clap did not know (`--rw`, given as `--rw=randread`
/// or `--rw randread` in `args`) when it is fio's: what iolab writes instead.
pub fn translate(unknown: &str, args: &[String]) -> Option<String> {
    let name = unknown.trim_start_matches('-');
    let name = name.split_once('=').map_or(name, |(name, _)| name);
    let value = || value_of(unknown, args).unwrap_or_default();
    let iolab = match name {
        "rw" | "readwrite" => {
            let word = value();
            match fio_rw_spelling(&word) {
                Some(spelling) => spelling.to_string(),
                None if word.is_empty() => {
                    "--op read|write|rewrite|mix|trim with --pattern seq|random".to_string()
                }
                None => format!("--op {word}"),
            }
        }
        "time_based" => {
            "--runtime DURATION alone: iolab's runtime is always time-based (drop --time_based)"
                .to_string()
        }
        "rwmixread" | "rwmixwrite" => match value().trim_end_matches('%').parse::<u8>() {
            Ok(share) if share <= 100 => {
                let (read, write) = if name == "rwmixread" {
                    (share, 100 - share)
                } else {
                    (100 - share, share)
                };
                format!("--mix read={read},write={write}")
            }
            _ => "--mix read=PERCENT,write=PERCENT".to_string(),
        },
        "filename" => {
            "--file PATH for an existing file or device, or --dir DIR where iolab creates its files"
                .to_string()
        }
        "name" => "--label TEXT".to_string(),
        "loops" => "--repeat N".to_string(),
        "output-format" => "--json (or --output FILE for the result file)".to_string(),
        "random_distribution" => {
            "--pattern zipf:THETA, pareto:H, normal:SIGMA, zoned:… or sequence:B:B… (see `iolab run --help`)"
                .to_string()
        }
        "norandommap" => "--pattern uniform (independent draws, no random map)".to_string(),
        "thinktime" => "--think DURATION[:every=N]".to_string(),
        "status-interval" | "eta" | "eta-newline" => {
            "--progress always|never|auto: one status line on stderr, the last interval's MiB/s, IOPS and p99 (auto: on a terminal)".to_string()
        }
        "write_bw_log" | "write_iops_log" | "write_lat_log" | "write_hist_log" | "log_avg_msec" => {
            "--interval DURATION: every repetition's series per interval (throughput, IOPS, latency histogram) is in the result file, charted by `iolab report`".to_string()
        }
        "percentile_list" | "clat_percentiles" | "lat_percentiles" => {
            "--detail for more percentiles: the result file keeps each repetition's whole latency histogram".to_string()
        }
        "group_reporting" => {
            "nothing: iolab reports each group's totals, and its jobs in the result file".to_string()
        }
        "output" => "--output FILE (the result file, JSON)".to_string(),
        "invalidate" => {
            "--cache cold (iolab's default: the file's pages are evicted before each repetition)"
                .to_string()
        }
        _ => return None,
    };
    Some(format!("--{name} is fio's; iolab writes {iolab}"))
}

/// The value given to `unknown`: after its `=`, or the next argument.
fn value_of(unknown: &str, args: &[String]) -> Option<String> {
    if let Some((_, value)) = unknown.split_once('=') {
        return Some(value.to_string());
    }
    let at = args
        .iter()
        .position(|a| a == unknown || a.starts_with(&format!("{unknown}=")))?;
    let given = &args[at];
    if let Some((_, value)) = given.split_once('=') {
        return Some(value.to_string());
    }
    args.get(at + 1)
        .filter(|next| !next.starts_with("--"))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn fio_options_name_their_iolab_spelling() {
        let cases = [
            (
                "--rw",
                "iolab run --rw randread",
                "--op read --pattern random",
            ),
            (
                "--rw",
                "iolab run --rw=randrw",
                "--op mix --pattern random --mix read=50,write=50",
            ),
            (
                "--readwrite",
                "iolab run --readwrite readwrite",
                "--op mix --mix read=50,write=50",
            ),
            ("--rw", "iolab run --rw write", "--op write"),
            (
                "--status-interval",
                "iolab run --status-interval 1",
                "--progress always|never|auto",
            ),
            (
                "--write_bw_log",
                "iolab run --write_bw_log=x",
                "--interval DURATION",
            ),
            (
                "--percentile_list",
                "iolab run --percentile_list=99.9",
                "--detail for more percentiles",
            ),
            (
                "--time_based",
                "iolab run --time_based",
                "always time-based",
            ),
            (
                "--rwmixread",
                "iolab run --rwmixread 70",
                "--mix read=70,write=30",
            ),
            (
                "--rwmixwrite",
                "iolab run --rwmixwrite=20",
                "--mix read=80,write=20",
            ),
        ];
        for (unknown, line, expected) in cases {
            let unknown = if line.contains(&format!("{unknown}=")) {
                line.split(' ').find(|a| a.starts_with(unknown)).unwrap()
            } else {
                unknown
            };
            let said = translate(unknown, &args(line)).unwrap();
            assert!(said.contains(expected), "{line}: {said}");
            assert!(said.starts_with("--") && !said.contains('\n'), "{said}");
        }
        assert_eq!(
            translate("--frobnicate", &args("iolab run --frobnicate")),
            None
        );
    }

    #[test]
    fn aliases_are_fio_names_iolab_does_not_use() {
        for &param in Param::ALL {
            for alias in aliases(param) {
                assert!(
                    Param::ALL.iter().all(|p| p.name() != *alias),
                    "{alias} is already an iolab flag"
                );
                assert_eq!(translate(&format!("--{alias}"), &[]), None, "{alias}");
            }
        }
    }
}
