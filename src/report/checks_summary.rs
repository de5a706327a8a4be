//! The checks under a result's table: each kind of finding once with its count, the range of its evidence and its action (the terminal's summary, the report's trust line), or each point's.

use crate::record::{ResultFile, Severity};

/// The checks of every point, one line per kind several points raised
/// with the same message (its count, the range of its figure when the
/// evidence differs only in one number, and the fix the message gives),
/// most serious first; a kind one point raised keeps its own line.
/// `--detail` and the report list each point's.
pub fn checks_summarised(result: &ResultFile) -> String {
    let mut kinds: Vec<(Severity, &str, Raised<'_>)> = Vec::new();
    for point in &result.points {
        for check in &point.checks {
            // The same message too: one that names a point's own group or
            // figures is not another point's.
            match kinds.iter_mut().find(|(severity, code, raised)| {
                *severity == check.severity
                    && *code == check.code
                    && raised[0].1.message == check.message
            }) {
                Some((_, _, raised)) => raised.push((&point.label, check)),
                None => kinds.push((check.severity, &check.code, vec![(&point.label, check)])),
            }
        }
    }
    if kinds.iter().all(|(_, _, raised)| raised.len() == 1) {
        return checks(result);
    }
    kinds.sort_by_key(|(severity, _, _)| std::cmp::Reverse(*severity));
    let mut text = String::new();
    for (severity, code, raised) in &kinds {
        let (label, first) = raised[0];
        let evidence = match raised.len() {
            1 => first.evidence.clone(),
            _ => evidence_range(raised.iter().map(|(_, check)| check.evidence.as_deref())),
        };
        // A long evidence (a QEMU error) is cut in the summary: --detail
        // and the report hold it whole.
        let evidence = evidence.map_or_else(String::new, |e| format!(" ({})", cut(&e, 120)));
        let severity = severity_word(*severity);
        match raised.len() {
            1 => text.push_str(&format!(
                "{severity} [{code}] {label}: {}{evidence}\n",
                first.message
            )),
            n => text.push_str(&format!(
                "{severity} [{code}] {n} of {} points: {}{evidence}\n",
                result.points.len(),
                first.message
            )),
        }
    }
    text.push_str("each point's checks: --detail, or the report\n");
    text
}

/// The points (by label) that raised one kind of check, each with its check.
type Raised<'a> = Vec<(&'a str, &'a crate::record::Check)>;

/// The evidence of several checks of one kind as one: the same text with
/// its one number as a range (`shortest timed region 4.0–11.5 ms`),
/// or `None` when the texts differ otherwise.
fn evidence_range<'a>(evidences: impl Iterator<Item = Option<&'a str>> + Clone) -> Option<String> {
    let mut all = evidences.clone();
    let first = all.next()??;
    if all.all(|evidence| evidence == Some(first)) {
        return Some(first.to_string());
    }
    let mut shape: Option<(String, String)> = None;
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut low_text, mut high_text) = (String::new(), String::new());
    for evidence in evidences {
        let evidence = evidence?;
        let start = evidence.find(|c: char| c.is_ascii_digit())?;
        let end = evidence[start..]
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .map_or(evidence.len(), |end| start + end);
        let number: f64 = evidence[start..end].parse().ok()?;
        let (before, after) = (&evidence[..start], &evidence[end..]);
        if after.contains(|c: char| c.is_ascii_digit()) {
            return None;
        }
        match &shape {
            Some((b, a)) if b != before || a != after => return None,
            Some(_) => {}
            None => shape = Some((before.to_string(), after.to_string())),
        }
        if number < low {
            low = number;
            low_text = evidence[start..end].to_string();
        }
        if number > high {
            high = number;
            high_text = evidence[start..end].to_string();
        }
    }
    let (before, after) = shape?;
    Some(if low_text == high_text {
        format!("{before}{low_text}{after}")
    } else {
        format!("{before}{low_text}–{high_text}{after}")
    })
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// `text` cut at a space to at most about `most` characters, `…` marking
/// the cut.
fn cut(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_string();
    }
    let mut kept = String::new();
    for word in text.split(' ') {
        if kept.chars().count() + word.chars().count() + 1 > most {
            break;
        }
        if !kept.is_empty() {
            kept.push(' ');
        }
        kept.push_str(word);
    }
    format!("{kept} …")
}

/// The checks of every point, one line each, most serious first.
pub fn checks(result: &ResultFile) -> String {
    let mut lines: Vec<(Severity, String)> = result
        .points
        .iter()
        .flat_map(|point| {
            point.checks.iter().map(move |check| {
                let severity = severity_word(check.severity);
                (
                    check.severity,
                    format!(
                        "{severity} [{}] {}: {}{}\n",
                        check.code,
                        point.label,
                        check.message,
                        check
                            .evidence
                            .as_deref()
                            .map_or_else(String::new, |e| format!(" ({e})"))
                    ),
                )
            })
        })
        .collect();
    lines.sort_by_key(|line| std::cmp::Reverse(line.0));
    lines.into_iter().map(|(_, line)| line).collect()
}

#[cfg(test)]
mod tests {
    use super::{cut, evidence_range};

    #[test]
    fn a_long_evidence_is_cut_at_a_space() {
        assert_eq!(cut("short", 120), "short");
        assert_eq!(cut("one two three four", 10), "one two …");
    }

    #[test]
    fn evidence_of_one_kind_is_one_range_or_left_out() {
        let range = |texts: &[Option<&str>]| evidence_range(texts.iter().copied());
        assert_eq!(
            range(&[
                Some("shortest timed region 11.5 ms"),
                Some("shortest timed region 4.0 ms"),
            ])
            .as_deref(),
            Some("shortest timed region 4.0–11.5 ms")
        );
        assert_eq!(
            range(&[Some("no --direct"), Some("no --direct")]).as_deref(),
            Some("no --direct")
        );
        // Texts that differ in more than one number, or in words, or a
        // check without evidence: no range is made up.
        assert_eq!(
            range(&[Some("vda read 3 in 4"), Some("vda read 5 in 6")]),
            None
        );
        assert_eq!(range(&[Some("vda read 3"), Some("sda read 5")]), None);
        assert_eq!(range(&[Some("read 3"), None]), None);
    }
}
