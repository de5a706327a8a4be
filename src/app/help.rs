//! `iolab completions` and `iolab manpages`: shell completions and man pages generated from the clap definitions `--help` shows, so nothing is written twice.

use super::error::{AppError, Ending};
use crate::cli::Cli;
use crate::usage;
use clap::CommandFactory;
use std::path::Path;

/// `iolab completions SHELL`: the completion script on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<Ending, AppError> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "iolab", &mut script);
    super::output::print(&String::from_utf8_lossy(&script))?;
    Ok(Ending::Success)
}

/// `iolab manpages --dir DIR`: `iolab.1` and a page per subcommand
/// (`iolab-run.1`, `iolab-preset-run.1` …). A file of that name is replaced
/// only when it is an iolab page already. A directory not there yet is
/// made (`/usr/local/share/man/man1` is missing on a fresh machine), said
/// on stderr; a path that is something else is refused.
pub fn manpages(dir: &Path) -> Result<Ending, AppError> {
    if dir.exists() && !dir.is_dir() {
        return Err(usage!("--dir {}: not a directory", dir.display()).into());
    }
    let mut pages = Vec::new();
    collect(
        Cli::command().version(env!("CARGO_PKG_VERSION")),
        "iolab",
        &mut pages,
    )?;
    for (name, _) in &pages {
        let path = dir.join(name);
        match std::fs::read(&path) {
            Ok(text) if !is_iolab_page(&text) => {
                return Err(usage!(
                    "{} exists and is not an iolab man page; it is left as it is",
                    path.display()
                )
                .into());
            }
            _ => {}
        }
    }
    if !dir.exists() {
        std::fs::create_dir_all(dir)
            .map_err(|e| usage!("--dir {}: cannot make it: {e}", dir.display()))?;
        crate::say!("iolab: made {}", dir.display());
    }
    for (name, page) in &pages {
        let path = dir.join(name);
        crate::record::write::write_file(&path, crate::record::write::Replace::Own, |out| {
            std::io::Write::write_all(out, page)
        })
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    super::output::print(&format!(
        "{} man pages in {}: man iolab, man iolab-run …\n",
        pages.len(),
        dir.display()
    ))?;
    Ok(Ending::Success)
}

/// The pages of `command` and its visible subcommands, named as `man` finds
/// them (`iolab-preset-run.1`).
fn collect(
    command: clap::Command,
    name: &str,
    pages: &mut Vec<(String, Vec<u8>)>,
) -> Result<(), AppError> {
    // A page shows every option, not only those `-h` picks; it is named
    // `iolab-run` and its synopsis says `iolab run`.
    let command = command
        .display_name(name.to_string())
        .bin_name(name.replace('-', " "))
        .mut_args(|arg| arg.hide_short_help(false));
    let page = page(&command).map_err(|e| anyhow::anyhow!("man page of {name}: {e}"))?;
    pages.push((format!("{name}.1"), page));
    for sub in command.get_subcommands().filter(|c| !c.is_hide_set()) {
        let sub_name = format!("{name}-{}", sub.get_name());
        collect(sub.clone(), &sub_name, pages)?;
    }
    Ok(())
}

/// `command`'s page as clap_mangen renders it, but for two sections: the
/// synopsis names each option's value (`[--dir DIR]`, not `[--dir]`), and
/// the examples are set as written, unfilled (`.nf`), so that a command
/// continued with ` \\` stays one a shell takes when pasted.
fn page(command: &clap::Command) -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(command.clone().override_usage(synopsis(command)));
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    // No hyphens inserted into flags and values (`--start-de‐lay`).
    page.extend_from_slice(b".nh\n");
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    if command.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut page)?;
    }
    if command.has_subcommands() {
        man.render_subcommands_section(&mut page)?;
    }
    let extra = command
        .get_after_long_help()
        .or_else(|| command.get_after_help())
        .map(ToString::to_string);
    match extra.as_deref().map(|e| e.strip_prefix("Examples:\n")) {
        Some(Some(examples)) => {
            page.extend_from_slice(b".SH EXAMPLES\n.nf\n");
            for line in examples.lines() {
                page.extend_from_slice(roff_line(line).as_bytes());
                page.push(b'\n');
            }
            page.extend_from_slice(b".fi\n");
        }
        Some(None) => man.render_extra_section(&mut page)?,
        None => {}
    }
    if command.get_version().is_some() {
        man.render_version_section(&mut page)?;
    }
    Ok(page)
}

/// `iolab run [--dir DIR] [--op OP] … [JOB.fio]`: each visible option with
/// the value name `--help` shows.
fn synopsis(command: &clap::Command) -> String {
    let mut words = vec![
        command
            .get_bin_name()
            .unwrap_or_else(|| command.get_name())
            .to_string(),
    ];
    let mut args: Vec<&clap::Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set())
        .collect();
    // Options first, then the positional arguments, as `--help`'s usage.
    args.sort_by_key(|a| a.is_positional());
    for arg in args {
        let value = match arg.get_action().takes_values() {
            true => arg
                .get_value_names()
                .map(|names| names.iter().map(|n| format!(" {n}")).collect::<String>())
                .unwrap_or_else(|| format!(" {}", arg.get_id().as_str().to_uppercase())),
            false => String::new(),
        };
        let word = match (arg.get_long(), arg.get_short()) {
            (Some(long), Some(short)) => format!("-{short}|--{long}{value}"),
            (Some(long), None) => format!("--{long}{value}"),
            (None, Some(short)) => format!("-{short}{value}"),
            (None, None) => value.trim().to_string(),
        };
        words.push(match arg.is_required_set() {
            true => word,
            false => format!("[{word}]"),
        });
    }
    if command.has_subcommands() {
        words.push("<COMMAND>".to_string());
    }
    words.join(" ")
}

/// A line of text as roff shows it literally: backslashes doubled, and a
/// line that would start with a control character (`.` or `'`) guarded.
fn roff_line(line: &str) -> String {
    let escaped = line.replace('\\', "\\e").replace('-', "\\-");
    match escaped.starts_with(['.', '\'']) {
        true => format!("\\&{escaped}"),
        false => escaped,
    }
}

/// Whether a file is a page `iolab manpages` wrote (its title line names iolab).
fn is_iolab_page(text: &[u8]) -> bool {
    String::from_utf8_lossy(text)
        .lines()
        .any(|line| line.starts_with(".TH iolab"))
}
