// The bodies of the fuzz targets, one function each: `include!`d by each
// target's binary (fuzz_targets/NAME.rs) and by the test build
// (tests/fuzz_seeds.rs), which replays the saved inputs through them without
// the fuzzing build.

/// A target's body: any bytes in, a panic the only failure.
#[allow(dead_code)]
pub type Body = fn(&[u8]);

/// Every target by the name of its binary (fuzz/Cargo.toml), for the test
/// that replays the saved inputs (tests/fuzz_seeds.rs).
#[allow(dead_code)]
pub const TARGETS: &[(&str, Body)] = &[
    ("fio_json", fio_json),
    ("result_file", result_file),
    ("study_file", study_file),
    ("proc_formats", proc_formats),
    ("fio_job_file", fio_job_file),
    ("trace", trace),
];

/// fio's JSON output (`iolab import`): any text is imported or refused, never a panic.
#[allow(dead_code)]
pub fn fio_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(imported) = iolab::import::fio(text, std::path::Path::new("fuzz.json"), Vec::new()) {
        // What an import produces must also survive being shown.
        use iolab::report::render::{Html, Render};
        use iolab::report::view::ReportView;
        let _ = iolab::report::table::render(
            &imported.result,
            iolab::report::screen::Screen::UNLIMITED,
            true,
        );
        let view = ReportView::new(vec![("fuzz.json", &imported.result)], 0.05, true);
        let _ = Html.render(&view);
    }
}

/// Result files (`iolab report`, `compare`, `--resume`) and their latency
/// histograms: any text is loaded or refused, and what loads can be shown.
#[allow(dead_code)]
pub fn result_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = iolab::record::histogram::decode(text);
    if let Ok(result) = iolab::record::write::parse(text, "fuzz.json") {
        let narrow = iolab::report::screen::Screen { width: Some(40) };
        let _ = iolab::report::table::render(&result, narrow, false);
        let _ = iolab::report::table::render(&result, narrow, true);
        let _ = iolab::report::table::checks(&result);
        use iolab::report::render::*;
        use iolab::report::view::ReportView;
        let view = ReportView::new(vec![("fuzz.json", &result)], 0.05, true);
        let _ = Terminal { screen: narrow }.render(&view);
        let _ = Json.render(&view);
        let _ = Markdown.render(&view);
        let _ = Csv.render(&view);
        let _ = StudyCsv.render(&view);
        let _ = Html.render(&view);
    }
}

/// Study files (`iolab study`): any text is planned or refused with a message.
#[allow(dead_code)]
pub fn study_file(data: &[u8]) {
    use std::path::Path;
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = Path::new("fuzz.toml");
    if let Ok((study, text)) = iolab::plan::study::Study::parse(text, source) {
        let _ = study.plan(&iolab::plan::default_workload(), &text, source);
    }
}

/// The kernel's text files iolab reads (/proc/diskstats, mountinfo,
/// /proc/net/dev, /proc/stat, mountstats, cgroup io.max and blkio throttle,
/// a queue's scheduler): the first byte picks the parser, the rest is the file.
#[allow(dead_code)]
pub fn proc_formats(data: &[u8]) {
    use iolab::probe::{cgroup, diskstats, environment, mounts, netdev, nfs, procstat};
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let devices = [(7, 0), (8, 16), (253, 1)];
    match which % 8 {
        0 => drop(diskstats::parse(text)),
        1 => drop(mounts::parse(text)),
        2 => drop(netdev::parse(text)),
        3 => {
            let _ = procstat::parse(text);
        }
        4 => drop(nfs::parse(text, std::path::Path::new("/mnt/nfs"))),
        5 => drop(cgroup::parse_io_max(text, &devices)),
        6 => drop(cgroup::parse_throttle(text, "rbps", &devices)),
        _ => drop(environment::selected_scheduler(text)),
    }
}

/// fio job files (`iolab run JOB.fio`): any text is translated into phases of groups or refused with a message, and what is translated prints as a study file that plans.
#[allow(dead_code)]
pub fn fio_job_file(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let facts = iolab::import::jobfile::Facts {
        ncpus: 2,
        mb_memory: 4096,
        pagesize: 4096,
    };
    let env = |name: &str| (name == "SIZE").then(|| "1m".to_string());
    // An included file is a fixed set of options, or itself again (a cycle).
    let given = iolab::import::jobfile::Given {
        arguments: None,
        file: None,
        length: &|_| Some(1 << 20),
        capacity: &|_| Ok(1 << 20),
        node_cpus: &|node| (node == 0).then(|| "0-1".to_string()),
        options: &[("size", "1048576".to_string())],
        include: &|path| match path.file_name().and_then(|n| n.to_str()) {
            Some("common.fio") => Ok("bs=64k\nrw=randread\n".to_string()),
            Some("self.fio") => Ok("include self.fio\n".to_string()),
            _ => Err("does not exist".to_string()),
        },
    };
    let _ = iolab::import::jobfile::translate(text, "fuzz.fio", facts, &env, given);
}

/// Block traces (`iolab replay`, `iolab characterize`): any bytes, read as each format iolab knows, are I/Os or one refusal, never a panic.
#[allow(dead_code)]
pub fn trace(data: &[u8]) {
    for &format in iolab::trace::Format::all() {
        let _ = iolab::trace::parse_bytes(data, format);
    }
    let _ = iolab::trace::detect(data);
}
