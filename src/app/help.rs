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
    let mut page = Vec::new();
    clap_mangen::Man::new(command.clone())
        .render(&mut page)
        .map_err(|e| anyhow::anyhow!("man page of {name}: {e}"))?;
    pages.push((format!("{name}.1"), page));
    for sub in command.get_subcommands().filter(|c| !c.is_hide_set()) {
        let sub_name = format!("{name}-{}", sub.get_name());
        collect(sub.clone(), &sub_name, pages)?;
    }
    Ok(())
}

/// Whether a file is a page `iolab manpages` wrote (its title line names iolab).
fn is_iolab_page(text: &[u8]) -> bool {
    String::from_utf8_lossy(text)
        .lines()
        .any(|line| line.starts_with(".TH iolab"))
}
