//! The terminal a text is laid out for: its width, and the tables and paragraphs fitted to it.
//!
//! The width comes from the caller (`console::width`: `COLUMNS`, or the
//! terminal's); `None` is a pipe, where tables keep their natural width and
//! paragraphs are not wrapped, so a script reads whole lines.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

/// Where terminal text goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Screen {
    /// Columns to fit, or `None` for no limit.
    pub width: Option<u16>,
}

impl Screen {
    /// No width limit (a pipe, a file, a test).
    pub const UNLIMITED: Screen = Screen { width: None };

    /// A box-drawn table that wraps its cells to fit the width.
    pub fn table(self) -> Table {
        let mut table = Table::new();
        table.load_style(UTF8_FULL_CONDENSED);
        // Styling and width are iolab's decisions, not comfy-table's guess
        // from whatever stdout is.
        table.force_no_tty();
        match self.width {
            Some(width) => {
                table.set_content_arrangement(ContentArrangement::Dynamic);
                table.set_width(width);
            }
            None => {
                table.set_content_arrangement(ContentArrangement::Disabled);
            }
        }
        table
    }

    /// `text` with each line wrapped at spaces to the width; a word longer
    /// than the width stays whole on its own line.
    pub fn wrap(self, text: &str) -> String {
        let Some(width) = self.width.map(usize::from) else {
            return text.to_string();
        };
        let mut wrapped = String::with_capacity(text.len() + 16);
        for (index, line) in text.split('\n').enumerate() {
            if index > 0 {
                wrapped.push('\n');
            }
            let mut column = 0;
            for word in line.split(' ') {
                let length = word.chars().count();
                if column > 0 && column + 1 + length > width {
                    wrapped.push('\n');
                    column = 0;
                } else if column > 0 {
                    wrapped.push(' ');
                    column += 1;
                }
                wrapped.push_str(word);
                column += length;
            }
        }
        wrapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_wrap_at_spaces_and_tables_fit() {
        let narrow = Screen { width: Some(20) };
        assert_eq!(
            narrow.wrap("one two three four five six\nseven"),
            "one two three four\nfive six\nseven"
        );
        assert_eq!(Screen::UNLIMITED.wrap("a b"), "a b");
        let mut table = Screen { width: Some(40) }.table();
        table.set_header(vec!["point", "description"]);
        table.add_row(vec!["a", &"word ".repeat(30)]);
        let text = table.to_string();
        assert!(
            text.lines().all(|line| line.chars().count() <= 40),
            "{text}"
        );
    }
}
