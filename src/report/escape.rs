//! Escaping text for HTML and SVG: the one place every string from a result file, a host or a user passes on its way into a report.

/// Escapes text for HTML and SVG content and attribute values. Control
/// characters other than newline and tab (an escape sequence or a bell in a
/// recorded command line) and bidirectional overrides are written as their
/// visible `\u{1b}` form: a report opened in a terminal (or copied from a
/// browser into one) carries no command.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
            {
                out.extend(c.escape_unicode());
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(
            escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(
            escape("run --label a\u{1b}]52;c;x\u{7}\u{202e}"),
            "run --label a\\u{1b}]52;c;x\\u{7}\\u{202e}"
        );
    }
}
