//! A fio job file's text: fio's ini format — sections and options by line, bare flags, comments after `#` or `;`, `${VAR}` from the environment, the reserved words `$ncpus`, `$mb_memory`, `$pagesize`, and arithmetic in the options fio evaluates. What the options mean is `jobfile`'s.

use super::super::units::fio_size;
use crate::plan::UsageError;
use crate::usage;

/// Options whose value fio evaluates as arithmetic (`size=2*$mb_memory`).
const ARITHMETIC: &[&str] = &[
    "size",
    "filesize",
    "bs",
    "blocksize",
    "iodepth",
    "iodepth_batch",
    "iodepth_batch_submit",
    "numjobs",
    "rate",
    "rate_iops",
    "rwmixread",
    "rwmixwrite",
    "fsync",
    "fdatasync",
    "thinktime_blocks",
];

/// What the machine tells a job file: fio's reserved words.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// `$ncpus`: the CPUs online.
    pub ncpus: u64,
    /// `$mb_memory`: the memory, MiB.
    pub mb_memory: u64,
    /// `$pagesize`: the page size, bytes.
    pub pagesize: u64,
}

impl Facts {
    /// This machine's, from sysconf(3) as fio reads them.
    pub fn here() -> Facts {
        // SAFETY: sysconf has no preconditions.
        let value = |name| u64::try_from(unsafe { libc::sysconf(name) }).unwrap_or(0);
        let pagesize = value(libc::_SC_PAGESIZE).max(1);
        Facts {
            ncpus: value(libc::_SC_NPROCESSORS_ONLN).max(1),
            mb_memory: value(libc::_SC_PHYS_PAGES).saturating_mul(pagesize) >> 20,
            pagesize,
        }
    }
}

/// One option as written: its key, value (a bare flag's is empty), and line.
#[derive(Clone, Debug)]
pub(super) struct Line {
    pub(super) key: String,
    pub(super) value: String,
    pub(super) line: usize,
}

/// One section: its name, the line of its header, its options in order.
#[derive(Clone, Debug)]
pub(super) struct Section {
    pub(super) name: String,
    pub(super) line: usize,
    pub(super) options: Vec<Line>,
}

/// The most files deep `include` goes (an include of an include …).
const MAX_INCLUDE_DEPTH: usize = 8;

/// How a job file's text is read: its variables and machine facts, and
/// the files its `include` lines name.
pub(super) struct Reading<'a> {
    pub(super) facts: Facts,
    pub(super) env: &'a dyn Fn(&str) -> Option<String>,
    /// The text of an included file, by its path (relative ones already
    /// joined to the including file's directory).
    pub(super) include: &'a dyn Fn(&std::path::Path) -> Result<String, String>,
    /// The first `${VAR}` the environment does not set, said only after
    /// every `ioengine=` was checked: an engine iolab lacks is the reason a
    /// file cannot run even where its variables are set (fio's http
    /// examples need `${S3_KEY}` and the http engine).
    pub(super) unset: std::cell::RefCell<Option<UsageError>>,
}

/// The sections of a job file, with variables and reserved words put in,
/// arithmetic done and `include FILE` lines read in their place (as fio
/// reads them: relative to the including file, its sections and options
/// as if written there; an included option is named by the `include`
/// line of `source`); a line that is neither a section, an option nor a
/// comment is refused with its number.
pub(super) fn parse(
    text: &str,
    source: &str,
    reading: &Reading<'_>,
) -> Result<Vec<Section>, UsageError> {
    let mut sections = Vec::new();
    let dir = std::path::Path::new(source)
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .to_path_buf();
    let mut stack = vec![std::path::PathBuf::from(source)];
    parse_into(&mut sections, text, source, &dir, None, reading, &mut stack)?;
    Ok(sections)
}

/// Parses `text` (of `source`, in `dir`) onto `sections`; `included_at`:
/// the line of the top file's `include` it came through, which names its
/// options. `stack`: the files being read, to refuse a cycle.
fn parse_into(
    sections: &mut Vec<Section>,
    text: &str,
    source: &str,
    dir: &std::path::Path,
    included_at: Option<usize>,
    reading: &Reading<'_>,
    stack: &mut Vec<std::path::PathBuf>,
) -> Result<(), UsageError> {
    let (facts, env) = (reading.facts, reading.env);
    for (number, raw) in text.lines().enumerate() {
        let number = number + 1;
        let at = || format!("{source} line {number}");
        if let Some(name) = raw.trim().strip_prefix("include ").map(str::trim) {
            let path = dir.join(name);
            if stack.contains(&path) {
                return Err(usage!(
                    "{}: include {name}: it includes itself (a cycle)",
                    at()
                ));
            }
            if stack.len() > MAX_INCLUDE_DEPTH {
                return Err(usage!(
                    "{}: include {name}: more than {MAX_INCLUDE_DEPTH} files deep",
                    at()
                ));
            }
            let included = (reading.include)(&path)
                .map_err(|why| usage!("{}: include {name}: {why}", at()))?;
            let shown = path.display().to_string();
            let inner = path.parent().unwrap_or(dir).to_path_buf();
            stack.push(path);
            parse_into(
                sections,
                &included,
                &shown,
                &inner,
                Some(included_at.unwrap_or(number)),
                reading,
                stack,
            )?;
            stack.pop();
            continue;
        }
        let number = included_at.unwrap_or(number);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let Some(name) = rest.strip_suffix(']') else {
                return Err(usage!("{}: a section header ends with ]", at()));
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(usage!("{}: a section needs a name", at()));
            }
            sections.push(Section {
                name: name.to_string(),
                line: number,
                options: Vec::new(),
            });
            continue;
        }
        let Some(section) = sections.last_mut() else {
            return Err(usage!("{}: an option before any [section]: {line:?}", at()));
        };
        // fio ends an option's line at its first `#` or `;`, with or
        // without blank before it (`numjobs=4<TAB>; four threads`).
        let line = line.find(['#', ';']).map_or(line, |end| line[..end].trim());
        let (key, value) = match line.split_once('=') {
            Some((key, value)) => (key.trim(), value.trim()),
            None => (line, ""),
        };
        if key == "include" {
            return Err(usage!("{}: include names no file", at()));
        }
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(usage!("{}: {key:?} is not an option", at()));
        }
        let value = match substitute(value, facts, env) {
            Ok(value) => value,
            Err(why) if why.contains("is not set in the environment") => {
                let mut unset = reading.unset.borrow_mut();
                if unset.is_none() {
                    *unset = Some(usage!("{}: {key}: {why}", at()));
                }
                value.to_string()
            }
            Err(why) => return Err(usage!("{}: {key}: {why}", at())),
        };
        let value = if ARITHMETIC.contains(&key) && !value.contains("${") && is_expression(&value) {
            evaluate(&value)
                .map(|n| n.to_string())
                .ok_or_else(|| usage!("{}: {key}={value} is not arithmetic iolab reads", at()))?
        } else {
            value
        };
        // fio's aliases and inverses (its options.c), read as the option
        // they stand for: `buffered=1` is `direct=0`.
        let (key, value) = match key {
            "timeout" => ("runtime", value),
            "wait_for_previous" => ("stonewall", value),
            "buffered" => (
                "direct",
                if value.trim() == "0" { "1" } else { "0" }.to_string(),
            ),
            _ => (key, value),
        };
        section.options.push(Line {
            key: key.to_string(),
            value,
            line: number,
        });
    }
    Ok(())
}

/// `value` with `${VAR}` from the environment and fio's reserved words put in.
fn substitute(
    value: &str,
    facts: Facts,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("'{value}' opens ${{ without closing it"));
        };
        let name = &after[..end];
        let found =
            env(name).ok_or_else(|| format!("${{{name}}} is not set in the environment"))?;
        out.push_str(&found);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out
        .replace("$ncpus", &facts.ncpus.to_string())
        .replace("$mb_memory", &facts.mb_memory.to_string())
        .replace("$pagesize", &facts.pagesize.to_string()))
}

/// Whether a value is an expression: parentheses or an operator between
/// operands (a leading `-` is a sign, and refused as a size later).
pub(super) fn is_expression(value: &str) -> bool {
    value.starts_with('(')
        || value
            .chars()
            .skip(1)
            .any(|c| matches!(c, '+' | '-' | '*' | '/'))
}

/// An integer expression of `+ - * /` and parentheses over fio sizes
/// (`4k`, `1m`, plain numbers); `None` when it is not one, or overflows.
pub(super) fn evaluate(text: &str) -> Option<u64> {
    let tokens: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    // Nested parentheses deeper than a person writes are refused, before
    // they could exhaust the stack.
    let mut depth = 0usize;
    for c in &tokens {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NESTING {
            return None;
        }
    }
    let mut position = 0;
    let value = sum(&tokens, &mut position)?;
    (position == tokens.len()).then_some(value)
}

/// The deepest parentheses an expression may nest.
const MAX_NESTING: usize = 16;

fn sum(tokens: &[char], position: &mut usize) -> Option<u64> {
    let mut value = product(tokens, position)?;
    while let Some(&op) = tokens.get(*position).filter(|c| matches!(c, '+' | '-')) {
        *position += 1;
        let right = product(tokens, position)?;
        value = if op == '+' {
            value.checked_add(right)?
        } else {
            value.checked_sub(right)?
        };
    }
    Some(value)
}

fn product(tokens: &[char], position: &mut usize) -> Option<u64> {
    let mut value = operand(tokens, position)?;
    while let Some(&op) = tokens.get(*position).filter(|c| matches!(c, '*' | '/')) {
        *position += 1;
        let right = operand(tokens, position)?;
        value = if op == '*' {
            value.checked_mul(right)?
        } else {
            value.checked_div(right)?
        };
    }
    Some(value)
}

fn operand(tokens: &[char], position: &mut usize) -> Option<u64> {
    if tokens.get(*position) == Some(&'(') {
        *position += 1;
        let value = sum(tokens, position)?;
        (tokens.get(*position) == Some(&')')).then(|| *position += 1)?;
        return Some(value);
    }
    let start = *position;
    while tokens
        .get(*position)
        .is_some_and(|c| c.is_ascii_alphanumeric())
    {
        *position += 1;
    }
    let word: String = tokens[start..*position].iter().collect();
    fio_size(&word, 1024)
}
