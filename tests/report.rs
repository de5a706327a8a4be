//! `iolab report`: a self-contained HTML file, rendered in a real headless Chromium that must find every chart, a working sort and no script error.

use crate::util::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        crate::skip!("chromium is not installed (scripts/test installs it)");
    }
    found
}

/// Headless Chromium as the issue asks: a fresh profile, nothing in the background.
fn headless(browser: &Path, profile: &Path) -> Command {
    let mut command = Command::new(browser);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=5000",
        "--window-size=1400,900",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

/// The DOM of `report` after its scripts ran with `#selftest` (sorting and
/// the layout measurements), and what the browser printed on stderr; None
/// when Chromium is not installed.
pub(crate) fn selftest_dom(report: &Path) -> Option<(String, String)> {
    let browser = chromium()?;
    let profile = tempfile::tempdir().unwrap();
    let mut command = headless(&browser, profile.path());
    command
        .arg("--dump-dom")
        .arg(format!("file://{}#selftest", report.display()));
    let dumped = succeed(&mut assert_cmd::Command::from_std(command));
    Some((
        String::from_utf8_lossy(&dumped.stdout).into_owned(),
        String::from_utf8_lossy(&dumped.stderr).into_owned(),
    ))
}

/// Asserts the layout measured in the browser (see the report's script):
/// no two tick labels overlap, no text is cut at a chart's edge.
pub(crate) fn assert_layout_ok(dom: &str) {
    assert!(
        dom.contains(r#"data-layout="ok""#),
        "{}",
        dom.split("data-layout=")
            .nth(1)
            .map_or("no layout check ran".to_string(), |v| v
                .chars()
                .take(120)
                .collect())
    );
}

fn sweep(dir: &Path, output: &Path, extra: &[&str]) {
    null_sweep(dir, output, "4k..16k", extra);
}

#[test]
fn the_report_renders_in_chromium_with_charts_sorting_and_no_errors() {
    let dir = scratch();
    let out = scratch();
    let (a, b) = (out.path().join("a.json"), out.path().join("b.json"));
    sweep(dir.path(), &a, &[]);
    sweep(dir.path(), &b, &["--no-report"]);
    assert!(
        out.path().join("a.html").exists(),
        "a sweep writes its report beside the result"
    );
    assert!(!out.path().join("b.html").exists(), "--no-report");
    // A label with markup must come out as text.
    let mut edited: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&b).unwrap()).unwrap();
    // Every string that came from a file, a host or a user: the command,
    // a point's label and the host name.
    edited["command"] = serde_json::json!(["iolab", "<script>alert(1)</script>"]);
    edited["points"][0]["label"] = serde_json::json!("<script>alert(1)</script>");
    edited["environment"]["hostname"] = serde_json::json!("<b onmouseover=alert(2)>host</b>");
    std::fs::write(&b, serde_json::to_string(&edited).unwrap()).unwrap();
    let report = out.path().join("report.html");
    let run = iolab()
        .arg("report")
        .arg(&a)
        .arg(&b)
        .arg("-o")
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(!html.contains("<script>alert(1)</script>") && html.contains("&lt;script&gt;alert(1)"));
    // The only URL is the SVG namespace name, which is never fetched.
    assert_eq!(
        html.matches("http").count(),
        html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
    assert!(
        !html.contains("<link") && !html.contains(" src="),
        "nothing is fetched"
    );

    let Some((dom, stderr)) = selftest_dom(&report) else {
        return;
    };
    assert!(!stderr.contains("Uncaught"), "a script error: {stderr}");
    // The browser shows the markup as text: it is escaped in the DOM and
    // no element was made of it.
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;")
            && !dom.contains("<script>alert(1)")
            && dom.contains("&lt;b onmouseover=alert(2)&gt;host&lt;/b&gt;")
            && !dom.contains("<b onmouseover"),
        "markup from a result file must render as text"
    );
    assert!(
        dom.contains(r#"data-selftest="sorted""#),
        "sorting by a header click works"
    );
    // Measured by the browser: no tick labels overlap, no text is cut.
    assert_layout_ok(&dom);
    // First the answer: both files' curves on the same axes (12 series by
    // block size, 12 by file size), before the comparison and the files.
    let charts = |title: &str| dom.matches(&format!(r#"aria-label="{title}""#)).count();
    assert_eq!(charts("Throughput by block size, file by file"), 1);
    assert_eq!(charts("Throughput by file size, file by file"), 1);
    let answer = dom.find(r#"<section class="answer">"#).unwrap();
    let compared = dom.find("Compared with").unwrap();
    let first_file = dom.find(r#"<section class="result""#).unwrap();
    assert!(answer < compared && compared < first_file);
    // The answer's first line and its ratio chart, intervals drawn, come first.
    let headline = dom
        .split(r#"<p class="headline">"#)
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .expect("a headline");
    assert!(
        headline.contains("b.json / ")
            && headline.contains("a.json, throughput: median ratio")
            && headline.contains("over 18 points"),
        "{headline}"
    );
    assert_eq!(dom.matches(r#"aria-label="Ratio to "#).count(), 1);
    // Legends name what varies between the series, not what they share:
    // in a.json's charts by block size the operation and the file size
    // (b.json's edited label shares nothing, so its names stay whole).
    let legends: Vec<&str> = dom
        .split(r#"class="legend"><title>"#)
        .skip(1)
        .filter_map(|rest| rest.split('<').next())
        .collect();
    assert!(
        legends.contains(&"read 64KiB") && legends.contains(&"write 4KiB"),
        "{legends:?}"
    );
    // Per file: throughput by block size (6 series: 2 ops × 3 file sizes)
    // and its p50 and p99 (12), by file size (6: 2 ops × 3 blocks) and its
    // p50 and p99 (12), the latency distribution of its 18 points, one
    // chart each: past eight colours the series are dashed, not split. A
    // swept size draws no curve per point by percentile. The null engine's
    // runs are too short for a time series.
    assert_eq!(charts("Throughput by block size"), 2);
    assert_eq!(charts("Throughput by file size"), 2);
    assert_eq!(charts("Latency p50 and p99 by block size"), 2);
    assert_eq!(charts("Latency p50 and p99 by file size"), 2);
    assert_eq!(charts("Latency by percentile"), 0);
    assert_eq!(
        charts("Latency distribution (share of I/Os per power-of-two band)"),
        2
    );
    assert_eq!(dom.matches(r#"data-kind="line""#).count(), 12);
    assert!(
        dom.contains(r#"stroke-dasharray="6 3""#),
        "series 9–16 dashed"
    );
    assert_eq!(
        dom.matches(r#"data-kind="heatmap""#).count(),
        2,
        "one heatmap per op"
    );
    assert_eq!(dom.matches(r#"class="axis x-axis""#).count(), 13);
    assert_eq!(dom.matches(r#"class="axis y-axis""#).count(), 13);
    assert_eq!(
        dom.matches(r#"class="series""#).count(),
        2 * 12 + 2 * (6 + 12 + 6 + 12 + 18)
    );
    assert!(dom.contains("environment.kernel") || dom.contains("Compared with"));
}

#[test]
fn chromium_draws_a_19_tick_axis_without_overlapping_labels() {
    // File sizes 4 KiB to 1 GiB: 19 powers of two, about 34 px apart, where
    // a label such as "256KiB" is wider than that.
    let dir = scratch();
    let out = scratch();
    let output = out.path().join("wide.json");
    succeed(
        iolab()
            .args(["sweep", "--engine", "null", "--op", "read", "--bs", "4k"])
            .args(["--size", "4k..1g", "--dir"])
            .arg(dir.path())
            .arg("-o")
            .arg(&output),
    );
    let report = out.path().join("wide.html");
    let Some((dom, _)) = selftest_dom(&report) else {
        return;
    };
    assert!(dom.contains(r#"aria-label="Throughput by file size""#));
    assert_layout_ok(&dom);
}

#[test]
fn report_refuses_bad_input() {
    let out = scratch();
    let bad = out.path().join("bad.json");
    std::fs::write(&bad, "{").unwrap();
    let report = out.path().join("r.html");
    let run = iolab()
        .arg("report")
        .arg(&bad)
        .arg("-o")
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("bad.json"));
    assert!(!report.exists());
}

/// `iolab report x.json -o x.html` after `run -o x.json` (which wrote
/// x.html) replaces iolab's own report; a file iolab did not write there is
/// kept and the command refused (both were refused before).
#[test]
fn a_report_replaces_iolabs_own_report_and_nothing_else() {
    let out = scratch();
    run_ok(&["run", "--engine", "null", "--size", "1m"], out.path());
    let result = out.path().join("result-0.json");
    let html = out.path().join("result-0.html");
    assert!(html.exists());
    let again = iolab()
        .arg("report")
        .arg(&result)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert!(again.status.success(), "{again:?}");
    let theirs = out.path().join("theirs.html");
    std::fs::write(&theirs, "<html>mine</html>").unwrap();
    let refused = iolab()
        .arg("report")
        .arg(&result)
        .arg("-o")
        .arg(&theirs)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    assert_eq!(
        std::fs::read_to_string(&theirs).unwrap(),
        "<html>mine</html>"
    );
}

#[test]
fn markdown_and_csv_carry_the_same_tables() {
    let dir = scratch();
    let out = scratch();
    let (a, b) = (out.path().join("a.json"), out.path().join("b.json"));
    sweep(dir.path(), &a, &["--no-report"]);
    sweep(dir.path(), &b, &["--no-report"]);
    let markdown = out.path().join("r.md");
    let run = iolab()
        .arg("report")
        .arg(&a)
        .arg(&b)
        .args(["--format", "markdown", "-o"])
        .arg(&markdown)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(&markdown).unwrap();
    assert!(text.starts_with("# iolab report"));
    assert_eq!(
        text.matches("| point | MiB/s | MB/s |").count(),
        2,
        "a points table per file"
    );
    assert!(text.contains("ratio [95% CI]"), "the comparison");
    // The user's level reaches the comparison, in Markdown and in HTML.
    for (format, name, needle) in [
        ("markdown", "r80.md", "ratio [80% CI]"),
        ("html", "r80.html", "80% interval"),
    ] {
        let path = out.path().join(name);
        succeed(
            iolab()
                .arg("report")
                .arg(&a)
                .arg(&b)
                .args(["--alpha", "0.2", "--format", format, "-o"])
                .arg(&path),
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(needle) && text.contains("α = 0.2"),
            "{format}: {text}"
        );
    }
    let csv = out.path().join("r.csv");
    let run = iolab()
        .arg("report")
        .arg(&a)
        .args(["--format", "csv", "-o"])
        .arg(&csv)
        .output()
        .unwrap();
    assert!(run.status.success());
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 1 + 18, "a header and a row per point");
    // `-o -` writes to stdout, the same bytes; no -o picks a name in
    // iolab-results/ as sweep does.
    let piped = iolab()
        .arg("report")
        .arg(&a)
        .args(["--format", "csv", "-o", "-"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&piped.stdout), text);
    let named = iolab()
        .arg("report")
        .arg(&a)
        .current_dir(out.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&named.stdout);
    let path = said.trim().strip_prefix("report: ").unwrap();
    assert!(
        path.starts_with("iolab-results/report-") && path.ends_with(".html"),
        "{said}"
    );
    assert!(out.path().join(path).is_file());
    // Reports made one after another in the same second each get a name
    // of their own (issue "Nothing lost, nothing harmed, round 4", item 9).
    let mut names = std::collections::HashSet::new();
    for _ in 0..3 {
        let again = iolab()
            .arg("report")
            .arg(&a)
            .current_dir(out.path())
            .output()
            .unwrap();
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
        names.insert(String::from_utf8_lossy(&again.stdout).trim().to_string());
    }
    assert_eq!(names.len(), 3, "{names:?}");
}

/// fio's JSON has no job for a metadata point: it is left out and named,
/// and a data point beside it is written and reads back (issue "Nothing
/// lost, nothing harmed, round 4", item 7).
#[test]
fn fio_json_leaves_metadata_points_out_and_says_so() {
    let dir = scratch();
    let tree = dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    let metadata = dir.path().join("m.json");
    let data = dir.path().join("d.json");
    for (args, output) in [
        (&["--ops", "create,stat", "--items", "20"][..], &metadata),
        (&["--engine", "null", "--size", "64k"][..], &data),
    ] {
        let run = iolab()
            .arg("run")
            .args(args)
            .arg("--dir")
            .arg(&tree)
            .arg("-o")
            .arg(output)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
    let fio = dir.path().join("fio.json");
    let report = iolab()
        .arg("report")
        .arg(&metadata)
        .arg(&data)
        .args(["--format", "fio-json", "-o"])
        .arg(&fio)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&report.stderr);
    assert!(report.status.success(), "{stderr}");
    assert!(
        stderr.contains("2 metadata points are left out of the fio JSON"),
        "{stderr}"
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&fio).unwrap()).unwrap();
    let jobs = written["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    assert!(jobs.iter().all(|j| j["job options"]["rw"] != "create"));
    let imported = iolab()
        .arg("import")
        .arg(&fio)
        .arg("-o")
        .arg(dir.path().join("back.json"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&imported.stderr);
    assert!(imported.status.success(), "{stderr}");
    assert!(!stderr.contains("trim"), "{stderr}");
    // Metadata points alone: refused, nothing written (it used to write a
    // fio JSON of no job, exit 0).
    let empty = dir.path().join("empty.json");
    let refused = iolab()
        .arg("report")
        .arg(&metadata)
        .args(["--format", "fio-json", "-o"])
        .arg(&empty)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("every point given is a metadata point"),
        "{stderr}"
    );
    assert!(!empty.exists());
}

#[test]
fn escape_sequences_in_a_result_file_never_reach_a_terminal_or_a_report_raw() {
    let dir = crate::util::scratch();
    let clean = dir.path().join("clean.json");
    crate::util::iolab()
        .args(["run", "--engine", "null", "--size", "64k", "--dir"])
        .arg(dir.path())
        .arg("-o")
        .arg(&clean)
        .assert()
        .success();
    // Someone edits the file: the label sets the clipboard, the host name
    // clears the screen (both valid JSON strings).
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&clean).unwrap()).unwrap();
    value["points"][0]["label"] = "x\u{1b}]52;c;ZXZpbA==\u{7}y".into();
    value["environment"]["hostname"] = "h\u{1b}[2J\u{9b}31m".into();
    let hostile = dir.path().join("hostile.json");
    std::fs::write(&hostile, serde_json::to_string(&value).unwrap()).unwrap();
    let raw = |bytes: &[u8]| {
        bytes.iter().any(|&b| b == 0x1b || b == 0x07)
            || String::from_utf8_lossy(bytes).contains('\u{9b}')
    };
    for format in ["terminal", "markdown", "csv"] {
        let out = crate::util::iolab()
            .arg("compare")
            .arg(&clean)
            .arg(&hostile)
            .args(["--format", format])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            !raw(&out.stdout) && !raw(&out.stderr),
            "compare --format {format}"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            format == "csv" || text.contains("\\u{1b}") || text.contains("\\u001b"),
            "shown as an escape: {text}"
        );
    }
    for format in ["markdown", "csv"] {
        let path = dir.path().join(format!("r.{format}"));
        crate::util::iolab()
            .arg("report")
            .arg(&hostile)
            .args(["--format", format, "-o"])
            .arg(&path)
            .assert()
            .success();
        assert!(
            !raw(&std::fs::read(&path).unwrap()),
            "report --format {format}"
        );
    }
}

#[test]
fn the_studys_own_table_is_in_every_report_format() {
    let (first, second, out) = (scratch(), scratch(), scratch());
    // The O_DIRECT study over two media in one command: a result file
    // each, and one table with a row per medium, as the study's.
    let output = out.path().join("media.json");
    let run = succeed(
        iolab()
            .args(["preset", "run", "direct-vs-buffered", "--scale", "test"])
            .args(["--no-report", "--dir"])
            .arg(first.path())
            .arg("--dir")
            .arg(second.path())
            .arg("-o")
            .arg(&output),
    );
    let files: Vec<PathBuf> = ["media-1.json", "media-2.json"]
        .iter()
        .map(|name| out.path().join(name))
        .collect();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let gathered = &stdout[stdout
        .find("The study over 2 media")
        .expect("the gathered table")..];
    let verdicts = ["O_DIRECT faster", "O_DIRECT slower", "inconclusive"];
    for table in ["read time", "write time"] {
        let rows: Vec<&str> = gathered
            .lines()
            .skip_while(|l| !l.contains(table))
            .take_while(|l| !l.starts_with('└'))
            .filter(|l| l.contains(" at uniform offsets"))
            .collect();
        assert_eq!(rows.len(), 2, "{table}: a row per medium: {gathered}");
        for row in rows {
            assert!(verdicts.iter().any(|v| row.contains(v)), "{row}");
        }
    }
    // The same medium twice is refused before anything runs.
    let again = out.path().join("again.json");
    let refused = iolab()
        .args([
            "preset",
            "run",
            "direct-vs-buffered",
            "--scale",
            "test",
            "--dir",
        ])
        .arg(first.path())
        .arg("--dir")
        .arg(first.path().join("."))
        .arg("-o")
        .arg(&again)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("give each medium once"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert!(!out.path().join("again-1.json").exists());
    let report = |format: &str, name: &str| {
        let path = out.path().join(name);
        succeed(
            iolab()
                .arg("report")
                .args(&files)
                .args(["--format", format, "-o"])
                .arg(&path),
        );
        std::fs::read_to_string(path).unwrap()
    };
    let markdown = report("markdown", "r.md");
    assert!(markdown.contains("## The study's own tables"), "{markdown}");
    assert!(
        markdown.contains("| Storage medium | Read | Direct R. | % direct I/O faster | verdict |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| Storage medium | Write | Direct W. | % direct I/O faster | verdict |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("O_RDONLY|O_SYNC against O_RDONLY|O_DIRECT|O_SYNC")
            || markdown.contains("O_RDONLY\\|O_SYNC against O_RDONLY\\|O_DIRECT\\|O_SYNC"),
        "{markdown}"
    );
    let csv = report("study-csv", "r.csv");
    let blocks: Vec<&str> = csv.split("\n\n").collect();
    assert_eq!(blocks.len(), 2, "the read table and the write table: {csv}");
    for block in blocks {
        // A header, then a row per file; the figures are plain numbers.
        let lines: Vec<&str> = block.lines().collect();
        assert_eq!(lines.len(), 3, "{block}");
        let percent: f64 = lines[1].rsplit(',').nth(1).unwrap().parse().unwrap();
        assert!(percent.is_finite(), "{block}");
    }
    let html = report("html", "r.html");
    assert!(
        html.contains("<h2>The study's own tables</h2>")
            && html.contains("<table class=\"study\">")
    );
    // Drawn by a browser: the study's tables come before everything else,
    // and nothing in the charts overlaps or is cut.
    if let Some((dom, _)) = selftest_dom(&out.path().join("r.html")) {
        let study = dom
            .find("<table class=\"study\">")
            .expect("study table in the DOM");
        let first_section = dom.find("<h2>").expect("a heading");
        assert!(dom[first_section..].starts_with("<h2>The study's own tables</h2>"));
        assert!(study < dom.find("Environment").unwrap_or(usize::MAX));
        assert_layout_ok(&dom);
    }
    // A file not run from a study has no such table: refused, nothing written.
    let plain = out.path().join("plain.json");
    sweep(first.path(), &plain, &["--no-report"]);
    let refused = out.path().join("refused.csv");
    let run = iolab()
        .arg("report")
        .arg(&plain)
        .args(["--format", "study-csv", "-o"])
        .arg(&refused)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("study-csv"));
    assert!(!refused.exists());
}

/// quick's report opens with its eight bars, each with its figure, and the
/// whole chart is on the first screen (1400×900) as Chromium lays it out.
#[test]
fn quicks_report_leads_with_eight_bars_on_the_first_screen() {
    let dir = scratch();
    let out = scratch();
    let result = out.path().join("quick.json");
    succeed(
        iolab()
            .args(TINY_QUICK)
            .arg("--dir")
            .arg(dir.path())
            .arg("-o")
            .arg(&result),
    );
    let report = out.path().join("quick.html");
    let html = std::fs::read_to_string(&report).unwrap();
    let answer = html.find(r#"<section class="answer">"#).unwrap();
    assert!(
        answer < html.find("<table").unwrap(),
        "the picture before any table"
    );
    assert_eq!(html.matches(r#"class="bar""#).count(), 8);
    for test in ["SEQ1M Q8", "SEQ1M Q1", "RND4K Q32", "RND4K Q1"] {
        assert!(html.contains(&format!(">{test}<")), "{test}");
    }
    let Some((dom, _)) = selftest_dom(&report) else {
        return;
    };
    assert_layout_ok(&dom);
    let bottom: i64 = dom
        .split(r#"data-answer-bottom=""#)
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|v| v.parse().ok())
        .expect("the self-test measured the answer");
    assert!((1..=900).contains(&bottom), "the bars end at {bottom} px");
}

/// A number the report's self-test wrote on `<body>` as `data-NAME`.
pub(crate) fn measured(dom: &str, name: &str) -> i64 {
    dom.split(&format!(r#"data-{name}=""#))
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("the self-test measured {name}"))
}

/// README's A/B pair, a psync run against a queued engine at depth 4: the
/// report draws both files' bars even unmatched, names the `--ignore` that
/// compares them, and with it compares them; the verdict on trusting the
/// answer is on the first screen (1400×900) as Chromium lays it out.
#[test]
fn an_ab_report_draws_both_files_and_its_trust_line_on_the_first_screen() {
    let dir = scratch();
    let out = scratch();
    let run = |name: &str, engine: &[&str]| {
        let path = out.path().join(name);
        succeed(
            iolab()
                .args(["run", "--op", "read", "--pattern", "random", "--bs", "4k"])
                .args(["--size", "1m", "--repeat", "2", "--no-report", "--dir"])
                .arg(dir.path())
                .args(engine)
                .arg("-o")
                .arg(&path),
        );
        path
    };
    let a = run("a.json", &["--engine", "psync"]);
    let b = run("b.json", &["--engine", "posixaio", "--iodepth", "4"]);
    let unmatched = out.path().join("unmatched.html");
    let shown = succeed(
        iolab()
            .arg("report")
            .arg(&a)
            .arg(&b)
            .arg("-o")
            .arg(&unmatched),
    );
    let stderr = String::from_utf8_lossy(&shown.stderr);
    assert!(
        stderr.contains("no point in common") && stderr.contains("--ignore engine,iodepth"),
        "{stderr}"
    );
    let html = std::fs::read_to_string(&unmatched).unwrap();
    assert!(
        html.contains("--ignore engine,iodepth draws them"),
        "{html}"
    );
    let colours = |html: &str| {
        let mut fills: Vec<&str> = html
            .split(r#"<rect class="bar""#)
            .skip(1)
            .filter_map(|rect| rect.split(r#"fill=""#).nth(1)?.split('"').next())
            .collect();
        fills.sort_unstable();
        fills.dedup();
        fills.len()
    };
    assert_eq!(colours(&html), 2, "each file's bar, matched or not");
    let compared = out.path().join("ab.html");
    succeed(
        iolab()
            .arg("report")
            .arg(&a)
            .arg(&b)
            .args(["--ignore", "engine,iodepth", "-o"])
            .arg(&compared),
    );
    let html = std::fs::read_to_string(&compared).unwrap();
    assert!(html.contains("Ratio to "), "the ratio chart: {html}");
    assert!(!html.contains("Not matched"), "{html}");
    let trust = html.find(r#"class="trust""#).expect("the trust line");
    assert!(trust < html.find(r#"<section class="answer">"#).unwrap());
    let Some((dom, _)) = selftest_dom(&compared) else {
        return;
    };
    assert_layout_ok(&dom);
    assert!(measured(&dom, "bar-colours") >= 2, "both files' bars drawn");
    let bottom = measured(&dom, "trust-bottom");
    assert!(
        (1..=900).contains(&bottom),
        "the trust line ends at {bottom} px"
    );
}
