//! An argument clap refused, said as iolab says it: the message on one line, then clap's tips and usage line each on a line of their own, fio's option names answered with iolab's spelling, and a tip where clap has none.

use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// What to print after `iolab: error: ` for `error`, which clap raised on
/// `args` (the command line as text).
pub fn explain(error: &clap::Error, args: &[String]) -> String {
    let (line, mut advice) = fold_clap_message(&error.render().to_string());
    let unknown = match (error.kind(), error.get(ContextKind::InvalidArg)) {
        (ErrorKind::UnknownArgument, Some(ContextValue::String(unknown))) => Some(unknown.as_str()),
        _ => None,
    };
    // fio's option names that are not iolab's: the iolab spelling alone.
    if let Some(translated) = unknown.and_then(|unknown| super::fio_words::translate(unknown, args))
    {
        return translated;
    }
    let tip = match (
        error.kind(),
        error.get(ContextKind::InvalidSubcommand),
        unknown,
    ) {
        // clap's measure of likeness misses swapped letters (`rnu`).
        (ErrorKind::InvalidSubcommand, Some(ContextValue::String(word)), _) => {
            similar_subcommand(word).map(|name| format!("a similar subcommand exists: '{name}'"))
        }
        (_, _, Some(unknown)) => {
            tip_for_unexpected(args.get(1).map_or("", String::as_str), unknown)
        }
        _ => None,
    };
    if let (Some(tip), false) = (tip, advice.contains("tip:")) {
        advice = format!("\n  tip: {tip}{advice}");
    }
    format!("{line}{advice}")
}

/// clap's rendered error as iolab's: the message on one line, then clap's
/// tips and its usage line each on a line of their own ("did you mean
/// `run`", "use `-- dd`"), without the pointer to `--help`.
fn fold_clap_message(rendered: &str) -> (String, String) {
    let mut message = Vec::new();
    let mut advice = String::new();
    for line in rendered
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
    {
        if line.starts_with("For more information") {
            continue;
        } else if line.starts_with("tip:") || line.starts_with("Usage:") {
            advice.push_str("\n  ");
            advice.push_str(line);
        } else if advice.is_empty() {
            message.push(line);
        }
    }
    let message = message.join(" ");
    let message = message
        .strip_prefix("error: ")
        .unwrap_or(&message)
        .to_string();
    (message, advice)
}

/// The subcommand `word` is a slip of (two letters swapped, one missing,
/// extra or wrong), for a refusal's tip where clap has none.
pub fn similar_subcommand(word: &str) -> Option<String> {
    super::Cli::command()
        .get_subcommands()
        .filter(|command| !command.is_hide_set())
        .map(|command| command.get_name().to_string())
        .find(|name| one_slip_apart(word, name))
}

/// A tip for a word clap did not expect where it has none: `measure`'s
/// command goes after `--`.
pub fn tip_for_unexpected(subcommand: &str, unknown: &str) -> Option<String> {
    (subcommand == "measure" && !unknown.starts_with('-'))
        .then(|| format!("to pass '{unknown}' as the measured command, use '-- {unknown}'"))
}

/// Whether `a` becomes `b` by one edit: a letter changed, added or
/// removed, or two neighbours swapped (Damerau's four slips of typing).
fn one_slip_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    match (a.len(), b.len()) {
        (0, 0) => false,
        (x, y) if x == y => {
            a[1..] == b[1..] || (x >= 2 && a[0] == b[1] && a[1] == b[0] && a[2..] == b[2..])
        }
        (x, y) if x + 1 == y => a == &b[1..],
        (x, y) if x == y + 1 => &a[1..] == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_of_a_subcommand_names_it() {
        assert_eq!(similar_subcommand("rnu").as_deref(), Some("run"));
        assert_eq!(similar_subcommand("qiuck").as_deref(), Some("quick"));
        assert_eq!(similar_subcommand("reprt").as_deref(), Some("report"));
        assert_eq!(similar_subcommand("compares").as_deref(), Some("compare"));
        assert_eq!(similar_subcommand("zzz"), None);
        assert_eq!(similar_subcommand("run"), None, "a subcommand is no slip");
    }
}
