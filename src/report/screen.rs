//! The terminal a text is laid out for: its width, and the tables and paragraphs fitted to it.
//!
//! The width comes from the caller (`console::width`: `COLUMNS`, the
//! terminal's, or 80 columns in a pipe); `None` is no limit, for the tests
//! and files that want whole rows. A table wider than the screen wraps its
//! long text at spaces, never a short cell (a number with its interval, a
//! verdict, a size); then, if need be, names too but never a figure: when
//! even so it does not fit, it is folded into several tables that each
//! repeat its key columns (the first, or a sweep's axes), and when one
//! column beside the keys does not fit either, each row becomes a list.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ColumnConstraint, ContentArrangement, Table, Width};

/// Cells up to this many characters are never wrapped: they are figures,
/// intervals, verdicts and names that read wrong in pieces.
const WHOLE_CELL: usize = 24;

/// Where terminal text goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Screen {
    /// Columns to fit, or `None` for no limit.
    pub width: Option<u16>,
}

impl Screen {
    /// No width limit (a file, a test).
    pub const UNLIMITED: Screen = Screen { width: None };

    /// An empty box-drawn table in iolab's style, to fill and then lay out
    /// with [`Screen::fit`].
    pub fn table(self) -> Table {
        let mut table = Table::new();
        table.load_style(UTF8_FULL_CONDENSED);
        // Styling and width are iolab's decisions, not comfy-table's guess
        // from whatever stdout is.
        table.force_no_tty();
        table.set_content_arrangement(ContentArrangement::Disabled);
        table
    }

    /// Whether `table` fits the screen at its natural width.
    pub fn fits(self, table: &Table) -> bool {
        self.width.is_none_or(|width| {
            outer_width(table.column_max_content_widths().into_iter()) <= usize::from(width)
        })
    }

    /// `table` laid out for the screen, without a final newline: at its
    /// natural width when that fits; else with long text wrapped at spaces
    /// and short cells whole; else folded (see the module's comment).
    pub fn fit(self, table: &Table) -> String {
        self.fit_keyed(table, 1)
    }

    /// [`Screen::fit`] for a table whose first `keys` columns name a row
    /// (a sweep's axes, a point and its round): each fold repeats them.
    pub fn fit_keyed(self, table: &Table, keys: usize) -> String {
        let Some(width) = self.width else {
            return table.to_string();
        };
        let natural = table.column_max_content_widths();
        if outer_width(natural.iter().copied()) <= usize::from(width) {
            return table.to_string();
        }
        // Short cells whole; else only figures whole, names wrapped at
        // spaces; else folded with short cells whole.
        let narrowest = narrowest_widths(table, short);
        let all: Vec<usize> = (0..narrowest.len()).collect();
        for bounds in [&narrowest, &narrowest_widths(table, figure)] {
            if outer_width(bounds.iter().copied()) <= usize::from(width) {
                return self.wrapped(table, bounds, &all);
            }
        }
        // Folded: the key columns, then as many of the rest as fit.
        let keys = keys.clamp(1, narrowest.len().max(1));
        if narrowest.len() <= keys {
            return self.listed(table);
        }
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for column in keys..narrowest.len() {
            let fits = |group: &Vec<usize>| {
                let widths = (0..keys).chain(group.iter().copied()).chain([column]);
                outer_width(widths.map(|c| narrowest[c])) <= usize::from(width)
            };
            match groups.last_mut() {
                Some(group) if fits(group) => group.push(column),
                _ if fits(&Vec::new()) => groups.push(vec![column]),
                _ => return self.listed(table),
            }
        }
        let parts: Vec<String> = groups
            .into_iter()
            .map(|group| {
                let shown: Vec<usize> = (0..keys).chain(group).collect();
                self.wrapped(table, &narrowest, &shown)
            })
            .collect();
        parts.join("\n")
    }

    /// `table` with only the columns `shown`, each at least its narrowest
    /// width, wrapped to the screen.
    fn wrapped(self, table: &Table, narrowest: &[u16], shown: &[usize]) -> String {
        let mut table = table.clone();
        for (index, &least) in narrowest.iter().enumerate() {
            if let Some(column) = table.column_mut(index) {
                // comfy-table's boundaries count the padding either side.
                let padded = least.saturating_add(column.padding_width());
                column.set_constraint(if shown.contains(&index) {
                    ColumnConstraint::LowerBoundary(Width::Fixed(padded))
                } else {
                    ColumnConstraint::Hidden
                });
            }
        }
        table.set_content_arrangement(ContentArrangement::Dynamic);
        if let Some(width) = self.width {
            table.set_width(width);
        }
        table.to_string()
    }

    /// Each row as a list: its first cell, then each other heading with
    /// its cell, indented; long text wrapped at spaces.
    fn listed(self, table: &Table) -> String {
        let header: Vec<String> = table
            .header()
            .map(|row| row.cell_iter().map(|c| c.content()).collect())
            .unwrap_or_default();
        let mut lines = Vec::new();
        for row in table.row_iter() {
            let cells: Vec<String> = row.cell_iter().map(|c| c.content()).collect();
            let Some((first, rest)) = cells.split_first() else {
                continue;
            };
            lines.push(self.wrap(first));
            for (index, cell) in rest.iter().enumerate() {
                if cell.trim().is_empty() {
                    continue;
                }
                let heading = header.get(index + 1).map_or("", String::as_str);
                let line = format!("  {heading}: {cell}");
                match self.width {
                    Some(width) if line.chars().count() > usize::from(width) => {
                        lines.push(format!("  {heading}:"));
                        lines.push(self.wrap(&format!("    {cell}")));
                    }
                    _ => lines.push(line),
                }
            }
        }
        lines.join("\n")
    }

    /// `text` with each line wrapped at spaces to the width, continuation
    /// lines indented as the line was; a word longer than the width stays
    /// whole on its own line.
    pub fn wrap(self, text: &str) -> String {
        match self.width {
            Some(width) => crate::console::wrap(text, usize::from(width)),
            None => text.to_string(),
        }
    }
}

/// The width a table with columns of these content widths takes: each
/// column's content, a space either side and a border after it, plus the
/// first border.
fn outer_width(contents: impl Iterator<Item = u16>) -> usize {
    1 + contents.map(|c| usize::from(c) + 3).sum::<usize>()
}

/// Whether a cell's line stays whole because it is short.
fn short(line: &str) -> bool {
    line.chars().count() <= WHOLE_CELL
}

/// Whether a cell's line stays whole because it is a figure (a number, an
/// interval, a bound: `0.156 [0.146–0.166]`, `<125 µs`, `2 ±1.2%`) or a
/// word or two; a name (`read random 4KiB psync`) may wrap at its spaces.
fn figure(line: &str) -> bool {
    short(line)
        && (line.split(' ').count() <= 2
            || line.starts_with(|c: char| c.is_ascii_digit() || "-+<>≥≤~±[".contains(c)))
}

/// Each column's narrowest width that splits nothing that must stay whole:
/// every line `whole` says whole, and the longest word of any other.
fn narrowest_widths(table: &Table, whole: fn(&str) -> bool) -> Vec<u16> {
    let columns = table.column_max_content_widths().len();
    let mut narrowest = vec![1u16; columns];
    let rows = table.header().into_iter().chain(table.row_iter());
    for row in rows {
        for (index, cell) in row.cell_iter().enumerate().take(columns) {
            for line in cell.content().lines() {
                let length = line.chars().count();
                let least = if whole(line) {
                    length
                } else {
                    line.split(' ')
                        .map(|w| w.chars().count())
                        .max()
                        .unwrap_or(0)
                };
                narrowest[index] = narrowest[index].max(u16::try_from(least).unwrap_or(u16::MAX));
            }
        }
    }
    narrowest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn paragraphs_wrap_at_spaces_and_tables_fit() {
        let narrow = Screen { width: Some(20) };
        assert_eq!(
            narrow.wrap("one two three four five six\nseven"),
            "one two three four\nfive six\nseven"
        );
        assert_eq!(Screen::UNLIMITED.wrap("a b"), "a b");
        assert_eq!(
            narrow.wrap("  indented words go on"),
            "  indented words go\n  on"
        );
        let screen = Screen { width: Some(40) };
        let mut table = screen.table();
        table.set_header(vec!["point", "description"]);
        table.add_row(vec!["a", &"word ".repeat(30)]);
        let text = screen.fit(&table);
        assert!(widest(&text) <= 40, "{text}");
    }

    /// Nine columns of figures at 80 columns: folded into tables that each
    /// repeat the point, every figure whole on one line.
    #[test]
    fn a_wide_table_folds_and_never_splits_a_figure() {
        let screen = Screen { width: Some(80) };
        let mut table = screen.table();
        let header: Vec<String> = (0..9).map(|c| format!("figure number {c}")).collect();
        table.set_header(
            std::iter::once("point".to_string())
                .chain(header)
                .collect::<Vec<_>>(),
        );
        let figure = "0.156 [0.146–0.166]";
        for point in ["write 4KiB", "read 1MiB"] {
            let row: Vec<String> = std::iter::once(point.to_string())
                .chain((0..9).map(|_| figure.to_string()))
                .collect();
            table.add_row(row);
        }
        let text = screen.fit(&table);
        assert!(widest(&text) <= 80, "{text}");
        assert_eq!(text.matches(figure).count(), 18, "{text}");
        // Each fold repeats the point.
        let folds = text.matches("write 4KiB").count();
        assert!(folds >= 3, "{text}");
        assert_eq!(folds, text.matches("read 1MiB").count(), "{text}");
    }

    /// Too narrow for the first column beside any other: a list per row.
    #[test]
    fn a_table_too_wide_to_fold_is_a_list() {
        let screen = Screen { width: Some(30) };
        let mut table = screen.table();
        table.set_header(vec!["point", "ratio and interval"]);
        table.add_row(vec!["sequential write 1MiB", "0.156 [0.146–0.166]"]);
        let text = screen.fit(&table);
        assert_eq!(
            text,
            "sequential write 1MiB\n  ratio and interval:\n    0.156 [0.146–0.166]"
        );
    }

    #[test]
    fn a_table_that_fits_keeps_its_natural_layout() {
        let screen = Screen { width: Some(80) };
        let mut table = screen.table();
        table.set_header(vec!["a", "b"]);
        table.add_row(vec!["1", "2"]);
        assert_eq!(screen.fit(&table), Screen::UNLIMITED.fit(&table));
    }
}
