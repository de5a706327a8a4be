//! What a user sees: help grouped with examples, shell completions, man pages, the version, tables that fit the terminal, live status on a terminal.

use crate::util::*;
use std::process::Command;

#[test]
fn short_help_is_short_and_long_help_is_grouped_with_examples() {
    let short = iolab().args(["run", "-h"]).output().unwrap();
    let short = String::from_utf8_lossy(&short.stdout);
    let long = iolab().args(["run", "--help"]).output().unwrap();
    let long = String::from_utf8_lossy(&long.stdout);
    assert!(
        short.lines().count() < 50,
        "-h: {} lines\n{short}",
        short.lines().count()
    );
    for heading in [
        "Target and safety:",
        "Workload:",
        "Engine and queue:",
        "Timing and pacing:",
        "Repetitions and statistics:",
        "Output:",
    ] {
        assert!(long.contains(heading), "{heading}: {long}");
    }
    assert!(long.contains("Examples:") && long.matches("\n  iolab run ").count() >= 3);
    assert!(
        short.contains("iolab run --help"),
        "-h points at --help: {short}"
    );
    assert!(
        long.contains("libaio") && long.contains("iscsi"),
        "--engine's help names every engine"
    );
    // MPI's flags show only in a build that can run them.
    assert_eq!(long.contains("--shared-file"), cfg!(feature = "mpi"));
}

#[test]
fn version_names_the_commit_and_the_features() {
    let out = iolab().arg("--version").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        text.starts_with("iolab 0.") && text.contains("commit ") && text.contains("mpi "),
        "{text}"
    );
}

#[test]
fn bash_loads_the_completions_and_completes_a_subcommand() {
    let script = iolab().args(["completions", "bash"]).output().unwrap();
    assert!(script.status.success());
    let dir = scratch();
    let path = dir.path().join("iolab.bash");
    std::fs::write(&path, &script.stdout).unwrap();
    // What bash offers after `iolab ru<TAB>`, from the loaded function.
    let shell = format!(
        "source {} && COMP_WORDS=(iolab ru) && COMP_CWORD=1 && _iolab iolab ru iolab && echo \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let out = Command::new("bash").args(["-c", &shell]).output().unwrap();
    let offered = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(offered.split_whitespace().any(|w| w == "run"), "{offered}");
    // A flag's values from the parameter table: `iolab run --engine u<TAB>`.
    let shell = format!(
        "source {} && COMP_WORDS=(iolab run --engine u) && COMP_CWORD=3 && _iolab iolab u --engine && echo \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let out = Command::new("bash").args(["-c", &shell]).output().unwrap();
    let offered = String::from_utf8_lossy(&out.stdout);
    assert_eq!(offered.trim(), "uring", "{offered}");
    // `compare --by di<TAB>` offers parameters, not file names; `--dir`
    // offers directories only (a file beside them is not offered).
    std::fs::create_dir(dir.path().join("data-dir")).unwrap();
    std::fs::write(dir.path().join("data-file"), "").unwrap();
    let offered = |words: &str, cword: usize, current: &str, previous: &str| {
        let shell = format!(
            "cd {} && source {} && COMP_WORDS=({words}) && COMP_CWORD={cword} && _iolab iolab {current} {previous} && echo \"${{COMPREPLY[@]}}\"",
            dir.path().display(),
            path.display()
        );
        let out = Command::new("bash").args(["-c", &shell]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let by = offered("iolab compare --by di", 3, "di", "--by");
    assert_eq!(by, "direct", "{by}");
    let dirs = offered("iolab run --dir data", 3, "data", "--dir");
    assert!(!dirs.contains("data-file"), "{dirs}");
}

#[test]
fn man_pages_are_written_and_never_over_another_file() {
    let dir = scratch();
    let out = iolab()
        .arg("manpages")
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run_page = std::fs::read_to_string(dir.path().join("iolab-run.1")).unwrap();
    assert!(run_page.contains(".TH iolab-run 1") && run_page.contains(".SH EXAMPLES"));
    assert!(
        dir.path().join("iolab.1").is_file() && dir.path().join("iolab-preset-run.1").is_file()
    );
    // Again: its own pages are replaced.
    let again = iolab()
        .arg("manpages")
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(again.status.success());
    // A page of that name that is not iolab's is left, and nothing is written.
    std::fs::write(dir.path().join("iolab-sweep.1"), "someone else's").unwrap();
    std::fs::remove_file(dir.path().join("iolab-run.1")).unwrap();
    let refused = iolab()
        .arg("manpages")
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("iolab-sweep.1 exists and is not an iolab man page"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("iolab-sweep.1")).unwrap(),
        "someone else's"
    );
    assert!(!dir.path().join("iolab-run.1").exists());
    // A directory not there yet is made (the README's man1 may be missing);
    // a file in its place is refused.
    let nested = dir.path().join("share/man/man1");
    let made = iolab()
        .arg("manpages")
        .arg("--dir")
        .arg(&nested)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(nested.join("iolab-run.1").is_file());
    let refused = iolab()
        .arg("manpages")
        .arg("--dir")
        .arg(dir.path().join("iolab-sweep.1"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    if Command::new("man").arg("--version").output().is_ok() {
        let shown = Command::new("man")
            .args(["-l", "-P", "cat"])
            .arg(dir.path().join("iolab.1"))
            .env("MANWIDTH", "80")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&shown.stdout);
        assert!(text.contains("iolab-run(1)"), "{text}");
        // At 80 columns every page fits, its synopsis names each option's
        // value, and its examples stay as written, continued with ` \`.
        for page in std::fs::read_dir(&nested).unwrap() {
            let page = page.unwrap().path();
            let shown = Command::new("man")
                .args(["-l", "-P", "cat"])
                .arg(&page)
                .env("MANWIDTH", "80")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&shown.stdout);
            for line in text.lines() {
                assert!(line.chars().count() <= 80, "{}: {line}", page.display());
            }
            if page.ends_with("iolab-run.1") {
                let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(words.contains("[--dir DIR] [--file PATH]"), "{text}");
                assert!(
                    text.contains("--engine uring --iodepth 32 --direct \\\n"),
                    "{text}"
                );
            }
        }
    } else {
        crate::skip!("man is not installed here (the page's text was checked above)");
    }
}

/// A 4 s run under tmux shows the live line — its phase and the last
/// interval's figures — while it measures; in a pipe the same run prints
/// only its result and the closing note.
#[test]
fn live_status_on_a_terminal_and_nothing_extra_in_a_pipe() {
    let dir = scratch();
    // Where the runs keep their results: not the source tree.
    let cwd = scratch();
    let binary = assert_cmd::cargo::cargo_bin("iolab");
    let run = format!(
        "cd {} && {} run --dir {} --engine null --size 16m --runtime 4s --label live",
        cwd.path().display(),
        binary.display(),
        dir.path().display()
    );
    if Command::new("tmux").arg("-V").output().is_err() {
        crate::skip!("tmux is not installed (scripts/test installs it)");
    } else {
        let session = format!("iolab-ui-{}", std::process::id());
        let started = Command::new("tmux")
            .args(["new-session", "-d", "-s", &session, "-x", "120", "-y", "30"])
            .arg(format!("{run}; sleep 20"))
            .status()
            .unwrap();
        assert!(started.success());
        let mut seen = String::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(300));
            let pane = Command::new("tmux")
                .args(["capture-pane", "-p", "-t", &session])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&pane.stdout).into_owned();
            if text.lines().any(|l| {
                l.contains("measuring · live") && l.contains("MiB/s") && l.contains("IOPS")
            }) {
                seen = text;
                break;
            }
        }
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &session])
            .status();
        assert!(!seen.is_empty(), "no live line with figures within 15 s");
    }
    let piped = Command::new("sh").args(["-c", &run]).output().unwrap();
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(piped.status.success(), "{stderr}");
    assert!(
        stderr.is_empty(),
        "nothing on stderr in a pipe when nothing is wrong: {stderr}"
    );
    assert!(!stderr.contains('\r') && !stderr.contains('\u{1b}'));
}

/// The cells of a box-drawn table's lines: the header's names, or each
/// row's first cell.
fn cells(line: &str) -> Vec<String> {
    line.trim_matches(|c| c == '│')
        .split(['┆', '│'])
        .map(|cell| cell.trim().to_string())
        .collect()
}

/// The table README shows as quick's output has the columns and rows quick
/// prints now (the figures are this machine's, so only the shape is held).
#[test]
fn the_readmes_quick_table_is_what_quick_prints() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("<!-- quick-output")
        .nth(1)
        .and_then(|rest| rest.split("```").nth(1))
        .expect("README shows quick's output after its marker");
    let dir = scratch();
    let out = iolab()
        .args(TINY_QUICK)
        .arg("--no-report")
        .arg("--dir")
        .arg(dir.path())
        .arg("-o")
        .arg(dir.path().join("q.json"))
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8_lossy(&out.stdout);
    let table = |text: &str| -> (Vec<String>, Vec<String>) {
        let lines: Vec<&str> = text.lines().filter(|l| l.starts_with('│')).collect();
        let header = cells(lines[0]);
        let rows = lines[1..].iter().map(|l| cells(l)[0].clone()).collect();
        (header, rows)
    };
    let (shown_header, shown_rows) = table(block);
    let (header, rows) = table(&printed);
    assert_eq!(
        shown_header, header,
        "README's columns\n{block}\nquick's\n{printed}"
    );
    assert_eq!(shown_rows, rows);
    let prose = block
        .lines()
        .filter(|l| !l.starts_with(['│', '┌', '└', '╞', '$']) && !l.starts_with("results:"));
    for line in prose {
        if let Some(words) = line.split(';').next().filter(|w| !w.trim().is_empty()) {
            assert!(
                printed.contains(words),
                "README's line {line:?} is not what quick prints"
            );
        }
    }
}

/// At 80 columns every line of run's, sweep's and compare's output fits,
/// tables and notes alike.
#[test]
fn every_table_fits_80_columns() {
    let dir = scratch();
    let out = scratch();
    let widest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    let shown = |args: &[&str]| {
        let output = iolab().args(args).env("COLUMNS", "80").output().unwrap();
        assert!(
            output.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let dir_text = dir.path().to_str().unwrap();
    let (a, b) = (out.path().join("a.json"), out.path().join("b.json"));
    for path in [&a, &b] {
        let text = shown(&[
            "run",
            "--dir",
            dir_text,
            "--engine",
            "null",
            "--size",
            "1m",
            "--op",
            "mix",
            "--mix",
            "read=70,write=30",
            "--repeat",
            "3",
            "-o",
            path.to_str().unwrap(),
        ]);
        assert!(widest(&text) <= 80, "run:\n{text}");
    }
    let sweep = out.path().join("s.json");
    let text = shown(&[
        "sweep",
        "--dir",
        dir_text,
        "--engine",
        "null",
        "--size",
        "1m",
        "--bs",
        "4k,64k",
        "--op",
        "read,write",
        "--no-report",
        "-o",
        sweep.to_str().unwrap(),
    ]);
    assert!(widest(&text) <= 80, "sweep:\n{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("┆ op ") || l.contains("│ op ")),
        "a column per swept parameter:\n{text}"
    );
    for extra in [
        &[][..],
        &["--margin", "5%"][..],
        &["--metric", "read.p99"][..],
    ] {
        let mut args = vec!["compare", a.to_str().unwrap(), b.to_str().unwrap()];
        args.extend_from_slice(extra);
        let text = shown(&args);
        assert!(widest(&text) <= 80, "compare {extra:?}:\n{text}");
    }
}

/// The live line puts its figures first and the label last (a narrow
/// terminal cuts the label, not them), with one ETA for the run and no
/// MB/s beside the MiB/s (first-afternoon issue); `--progress always`
/// draws it in a pipe as one line per second.
#[test]
fn the_live_line_shows_figures_first_and_one_eta() {
    let out = scratch();
    let run = iolab()
        .current_dir(out.path())
        .args([
            "run",
            "--dir",
            out.path().to_str().unwrap(),
            "--engine",
            "null",
            "--size",
            "1m",
            "--runtime",
            "3s",
            "--progress",
            "always",
            "--no-report",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|line| line.starts_with("iolab: read ") && line.contains(" MiB/s "))
        .unwrap_or_else(|| panic!("no line with figures first: {stderr}"));
    assert!(line.contains(" · ETA 0:0"), "{line}");
    assert!(line.ends_with("read seq 4KiB null"), "{line}");
    assert!(
        !line.contains("MB/s") && line.matches("ETA").count() == 1,
        "{line}"
    );
}

/// What fails [`assert_fits`]: a line wider than `width`, a figure split
/// between two lines of a table (`0.156 [0.` over `146–0.166]`), or a
/// warning or error that does not name what removes it (`MESSAGE; ACTION`).
pub(crate) fn unfit(text: &str, width: usize) -> Vec<String> {
    let mut found = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines {
        if line.chars().count() > width {
            found.push(format!("over {width} columns: {line}"));
        }
    }
    let cells = |line: &str| -> Vec<String> {
        line.trim_matches('│')
            .split(['┆', '│'])
            .map(|c| c.trim().to_string())
            .collect()
    };
    for pair in lines.windows(2) {
        let (upper, lower) = (pair[0], pair[1]);
        if !(upper.starts_with('│') && lower.starts_with('│')) {
            continue;
        }
        let (upper, lower) = (cells(upper), cells(lower));
        // A row's continuation: its first cell empty.
        if lower.first().is_none_or(|c| !c.is_empty()) {
            continue;
        }
        for (above, below) in upper.iter().zip(&lower).skip(1) {
            let ends = above.ends_with(|c: char| c.is_ascii_digit() || ".[±–".contains(c));
            let starts = below.starts_with(|c: char| c.is_ascii_digit() || ".–%]".contains(c));
            if ends && starts {
                found.push(format!("a figure split: {above:?} over {below:?}"));
            }
        }
    }
    // A warning's paragraph: its line and those continuing it (indented,
    // or not starting a new kind of line).
    let mut paragraphs: Vec<String> = Vec::new();
    for line in &lines {
        let starts = ["warning [", "error [", "iolab: warning", "warning:"]
            .iter()
            .any(|p| line.starts_with(p));
        let continues = paragraphs.last().is_some_and(|p| !p.is_empty())
            && !line.is_empty()
            && !line.starts_with(['│', '┌', '└', '╞'])
            && ![
                "note [",
                "warning",
                "error",
                "iolab:",
                "each point",
                "results:",
                "report:",
            ]
            .iter()
            .any(|p| line.starts_with(p));
        if starts {
            paragraphs.push((*line).to_string());
        } else if continues {
            let last = paragraphs.last_mut().unwrap();
            last.push(' ');
            last.push_str(line.trim());
        } else {
            paragraphs.push(String::new());
        }
    }
    for paragraph in paragraphs.iter().filter(|p| !p.is_empty()) {
        if !paragraph.contains("; ") {
            found.push(format!("a warning without what removes it: {paragraph}"));
        }
    }
    found
}

/// Fails naming every line of `text` that [`unfit`] finds.
pub(crate) fn assert_fits(text: &str, width: usize, what: &str) {
    let found = unfit(text, width);
    assert!(found.is_empty(), "{what}:\n{}\n\n{text}", found.join("\n"));
}

#[test]
fn the_fit_test_finds_what_it_guards_against() {
    assert!(unfit("short line", 80).is_empty());
    assert_eq!(unfit(&"x".repeat(81), 80).len(), 1);
    let split = "│ a ┆ 0.156 [0. │\n│   ┆ 146–0.166] │\n";
    assert_eq!(unfit(split, 80).len(), 1, "{split}");
    let wrapped = "│ a ┆ engine psync │\n│   ┆ → stdio │\n";
    assert!(unfit(wrapped, 80).is_empty());
    assert_eq!(
        unfit("warning [noisy] p: the repetitions disagree\n", 80).len(),
        1
    );
    assert!(
        unfit(
            "warning [noisy] p: they disagree;\n  --until-ci narrows it\n",
            80
        )
        .is_empty()
    );
}

/// The README's tasks as a new user types them (small sizes), in a pipe
/// (COLUMNS unset: 80 columns) and in tmux at 80×24: every line fits, no
/// figure is split, every warning names what removes it. The guest task is
/// the guest tier's (`a_host_guest_sweep_runs_abba…`, in a pipe).
#[test]
fn every_readme_task_fits_80_columns_in_a_pipe_and_in_tmux() {
    let dir = scratch();
    let out = scratch();
    let d = dir.path().display().to_string();
    let trace = out.path().join("t.iolog");
    std::fs::write(
        &trace,
        "fio version 2 iolog\nf add\nf open\nf write 0 4096\nf read 0 4096\nf write 8192 4096\nf close\n",
    )
    .unwrap();
    let tasks = [
        format!("quick --dir {d} --size 8m --runtime 200ms --ramp 0s"),
        format!("run --dir {d} --op read --pattern random --bs 4k --size 4m --runtime 300ms"),
        format!("sweep --dir {d} --op write,read --bs 4k..16k --size 1m --direct --repeat 2"),
        format!("run --dir {d} --op read --bs 4k --size 1m --repeat 3 -o a.json"),
        format!(
            "run --dir {d} --op read --bs 4k --size 1m --repeat 3 --engine posixaio --iodepth 4 -o b.json"
        ),
        "compare a.json b.json --margin 5% --ignore engine,iodepth".to_string(),
        "report a.json b.json --ignore engine,iodepth -o ab.html".to_string(),
        format!(
            "sweep --dir {d} --engine posixaio --pattern random --iodepth 1..8 --size 1m --runtime 200ms --knee p99<=2ms"
        ),
        format!(
            "run --dir {d} --engine posixaio --iodepth 8 --size 1m --runtime 300ms --latency-target 2ms,window=50ms,percentile=99"
        ),
        format!(
            "run --dir {d} --engine libaio --direct --op read --pattern random --iodepth 8 --size 1m --runtime 300ms --priority idle,20%:rt/0"
        ),
        format!(
            "run --dir {d} --ops create,stat,read,delete --items 100 --depth 1 --fanout 2 --jobs 2"
        ),
        format!(
            "run --dir {d} --size 1m --runtime 300ms --group reader --op read --pattern random --bs 8k --group logger --op write --bs 4k --rate-iops 200 --sync odsync"
        ),
        format!("replay {} --dir {d}", trace.display()),
        format!("characterize {}", trace.display()),
        format!(
            "fio --name=test --rw=randrw --rwmixread=75 --bs=4k --iodepth=4 --ioengine=posixaio --size=1m --filename={d}/fio-test"
        ),
        format!("env --path {d}"),
        "run --help".to_string(),
    ];
    let binary = assert_cmd::cargo::cargo_bin("iolab");
    // In a pipe: what a person reads later in a pager or a mail.
    for task in &tasks {
        let words: Vec<&str> = task.split(' ').collect();
        let shown = Command::new(&binary)
            .args(&words)
            .current_dir(out.path())
            .env_remove("COLUMNS")
            .output()
            .unwrap();
        assert!(
            shown.status.success() || shown.status.code() == Some(1),
            "iolab {task}: {}",
            String::from_utf8_lossy(&shown.stderr)
        );
        // `iolab fio` prints fio's own text, as fio lays it out (109
        // columns): its readers parse it. iolab's own lines go to stderr.
        let stdout = String::from_utf8_lossy(&shown.stdout);
        let own = if task.starts_with("fio ") {
            ""
        } else {
            &stdout
        };
        assert_fits(own, 80, &format!("iolab {task} | cat"));
    }
    if Command::new("tmux").arg("-V").output().is_err() {
        crate::skip!("tmux is not installed (scripts/test installs it)");
        return;
    }
    // In tmux at 80×24, stderr and stdout on the terminal; each task again
    // after the pipe's (their results are new files, -o names replaced).
    let _ = std::fs::remove_file(out.path().join("a.json"));
    let _ = std::fs::remove_file(out.path().join("b.json"));
    let _ = std::fs::remove_file(out.path().join("ab.html"));
    for name in ["a.html", "b.html"] {
        let _ = std::fs::remove_file(out.path().join(name));
    }
    let lines: Vec<String> = tasks
        .iter()
        .map(|task| {
            let quoted: Vec<String> = task.split(' ').map(|w| format!("'{w}'")).collect();
            // fio's text to a file: the terminal shows iolab's own lines.
            let fio_text = if task.starts_with("fio ") {
                " > fio.txt"
            } else {
                ""
            };
            format!("{} {}{fio_text}", binary.display(), quoted.join(" "))
        })
        .collect();
    let kept = in_tmux_80x24(out.path(), &lines, 240);
    for shown in ["SEQ1M Q8", "knee (", "fidelity", "Usage: iolab run"] {
        assert!(
            kept.contains(shown),
            "the pane holds every task's output: {shown}\n{kept}"
        );
    }
    assert_fits(&kept, 80, "the tasks in tmux at 80×24");
}

/// Runs `lines` as a shell script in a tmux session of 80×24 in `dir`, with
/// COLUMNS unset (the terminal's width is what iolab reads), and gives back
/// the pane's whole history with wrapped lines joined: a line the terminal
/// had to wrap comes back longer than 80 columns. The live status line is
/// redrawn in place and cleared, so it is not a line there. Fails when the
/// script does not end within `timeout_s`.
pub(crate) fn in_tmux_80x24(dir: &std::path::Path, lines: &[String], timeout_s: u64) -> String {
    let script = dir.join("in-tmux.sh");
    let done = dir.join("in-tmux.done");
    let _ = std::fs::remove_file(&done);
    let mut text = format!("cd {}\nunset COLUMNS\n", dir.display());
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!("touch {}\nsleep 60\n", done.display()));
    std::fs::write(&script, text).unwrap();
    let session = format!(
        "iolab-fit-{}-{}",
        std::process::id(),
        dir.file_name().unwrap_or_default().to_string_lossy()
    );
    let started = Command::new("tmux")
        .args(["new-session", "-d", "-s", &session, "-x", "80", "-y", "24"])
        .arg(format!("bash {}", script.display()))
        .status()
        .unwrap();
    assert!(started.success());
    let _ = Command::new("tmux")
        .args(["set-option", "-t", &session, "history-limit", "100000"])
        .status();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(timeout_s);
    while !done.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    let pane = Command::new("tmux")
        .args(["capture-pane", "-p", "-J", "-S", "-", "-t", &session])
        .output()
        .unwrap();
    let _ = Command::new("tmux")
        .args(["kill-session", "-t", &session])
        .status();
    assert!(
        done.exists(),
        "the commands in tmux ended within {timeout_s} s"
    );
    String::from_utf8_lossy(&pane.stdout)
        .lines()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}
