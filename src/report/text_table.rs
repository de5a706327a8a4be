//! A table built once and shown four ways: terminal text, Markdown, CSV and HTML.
//!
//! The studies' own tables are built as rows of cells here, so that the
//! terminal, `report --format markdown|csv` and the HTML report show the
//! same rows and columns from one place.

use super::escape::escape;
use super::screen::Screen;
use comfy_table::CellAlignment;
use std::fmt::Write;

/// One cell: its text, and the number behind it when it has one (numeric
/// cells are right-aligned, and sort by that number in the HTML report).
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// What is shown.
    pub text: String,
    /// The value sorted by.
    pub value: Option<f64>,
}

impl Cell {
    /// A cell of text.
    pub fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            value: None,
        }
    }

    /// A numeric cell shown as `text`.
    pub fn number(value: f64, text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            value: Some(value),
        }
    }

    /// An empty cell (no such figure).
    pub fn empty() -> Cell {
        Cell::text("")
    }
}

/// A titled table with notes below it.
#[derive(Clone, Debug, PartialEq)]
pub struct TextTable {
    /// What the table is, as its publication titled it.
    pub title: String,
    /// Column headings.
    pub header: Vec<String>,
    /// The rows, each as long as the header.
    pub rows: Vec<Vec<Cell>>,
    /// Lines said under the table: units, definitions, what differs.
    pub notes: Vec<String>,
    /// How many leading columns name a row: a narrow terminal's folds
    /// repeat them.
    pub keys: usize,
}

impl TextTable {
    /// A table with a title and header, no rows yet.
    pub fn new(title: impl Into<String>, header: &[&str]) -> TextTable {
        TextTable {
            title: title.into(),
            header: header.iter().map(|h| (*h).to_string()).collect(),
            rows: Vec::new(),
            notes: Vec::new(),
            keys: 1,
        }
    }

    fn numeric_column(&self, column: usize) -> bool {
        self.rows
            .iter()
            .any(|row| row.get(column).is_some_and(|c| c.value.is_some()))
    }

    /// Box-drawn text at its natural width, title above, notes below.
    pub fn terminal(&self) -> String {
        self.terminal_at(Screen::UNLIMITED)
    }

    /// Box-drawn text fitted to `screen`, title above, notes below. A
    /// table too wide for the screen whose rows are all of one point names
    /// it once in its title rather than in a column of each row.
    pub fn terminal_at(&self, screen: Screen) -> String {
        let table = self.comfy(screen);
        match self.one_point() {
            Some(point) if !screen.fits(&table) => {
                let mut named = self.clone();
                named.title = format!("{}; point: {point}", self.title);
                named.header.remove(0);
                for row in &mut named.rows {
                    row.remove(0);
                }
                named.keys = self.keys.saturating_sub(1).max(1);
                named.shown(screen, &named.comfy(screen))
            }
            _ => self.shown(screen, &table),
        }
    }

    /// The one point every row names in a first column headed `point`.
    fn one_point(&self) -> Option<&str> {
        let (first, rest) = self.rows.split_first()?;
        let point = &first.first()?.text;
        (self.header.first().map(String::as_str) == Some("point")
            && self.header.len() > 1
            && !point.is_empty()
            && rest
                .iter()
                .all(|row| row.first().map(|c| &c.text) == Some(point)))
        .then_some(point.as_str())
    }

    fn comfy(&self, screen: Screen) -> comfy_table::Table {
        let mut table = screen.table();
        table.set_header(self.header.clone());
        for row in &self.rows {
            table.add_row(row.iter().map(|c| c.text.clone()).collect::<Vec<_>>());
        }
        for column in 0..self.header.len() {
            if self.numeric_column(column) {
                if let Some(column) = table.column_mut(column) {
                    column.set_cell_alignment(CellAlignment::Right);
                }
            }
        }
        table
    }

    fn shown(&self, screen: Screen, table: &comfy_table::Table) -> String {
        let mut text = format!(
            "{}\n{}\n",
            screen.wrap(&self.title),
            screen.fit_keyed(table, self.keys)
        );
        for note in &self.notes {
            text.push_str(&screen.wrap(note));
            text.push('\n');
        }
        text
    }

    /// A Markdown pipe table with its title as a heading.
    pub fn markdown(&self) -> String {
        let cell = |text: &str| text.replace('|', "\\|");
        let mut text = format!("### {}\n\n|", cell(&self.title));
        for heading in &self.header {
            let _ = write!(text, " {} |", cell(heading));
        }
        text.push_str("\n|");
        for column in 0..self.header.len() {
            text.push_str(if self.numeric_column(column) {
                "---:|"
            } else {
                "---|"
            });
        }
        text.push('\n');
        for row in &self.rows {
            text.push('|');
            for c in row {
                let _ = write!(text, " {} |", cell(&c.text));
            }
            text.push('\n');
        }
        for note in &self.notes {
            let _ = write!(text, "\n{}\n", cell(note));
        }
        text
    }

    /// CSV: a header row whose first field is the title, then the rows;
    /// numeric cells as plain numbers, so a spreadsheet computes with them.
    pub fn csv(&self) -> String {
        let field = |text: &str| {
            if text.contains([',', '"', '\n']) {
                format!("\"{}\"", text.replace('"', "\"\""))
            } else {
                text.to_string()
            }
        };
        let mut text = String::new();
        let mut header = vec![field(&self.title)];
        header.extend(self.header.iter().map(|h| field(h)));
        text.push_str(&header.join(","));
        text.push('\n');
        for row in &self.rows {
            let mut fields = vec![String::new()];
            fields.extend(row.iter().map(|c| match c.value {
                Some(value) => value.to_string(),
                None => field(&c.text),
            }));
            text.push_str(&fields.join(","));
            text.push('\n');
        }
        text
    }

    /// An HTML table in the publication's row order, its title as a heading and notes below.
    pub fn html(&self) -> String {
        let mut html = format!(
            "<h3>{}</h3><div class=\"wide\"><table class=\"study\"><thead><tr>",
            escape(&self.title)
        );
        for heading in &self.header {
            let _ = write!(html, "<th>{}</th>", escape(heading));
        }
        html.push_str("</tr></thead><tbody>");
        for row in &self.rows {
            html.push_str("<tr>");
            for c in row {
                match c.value {
                    Some(value) if value.is_finite() => {
                        let _ = write!(
                            html,
                            "<td class=\"num\" data-value=\"{value}\">{}</td>",
                            escape(&c.text)
                        );
                    }
                    _ => {
                        let _ = write!(html, "<td>{}</td>", escape(&c.text));
                    }
                }
            }
            html.push_str("</tr>");
        }
        html.push_str("</tbody></table></div>");
        for note in &self.notes {
            let _ = write!(html, "<p class=\"note\">{}</p>", escape(note));
        }
        html
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TextTable {
        let mut table = TextTable::new("Table 9: a, b", &["size", "MiB/s"]);
        table
            .rows
            .push(vec![Cell::text("1 MiB"), Cell::number(37.3, "37.3")]);
        table
            .rows
            .push(vec![Cell::text("2 MiB"), Cell::number(67.7, "67.7")]);
        table.notes.push("MiB/s = 2^20 bytes/s".into());
        table
    }

    /// Rows all of one point name it in the title when the table is too
    /// wide for the screen; a wide screen, or two points, keep the column.
    #[test]
    fn one_point_is_named_once_on_a_narrow_screen() {
        let mut table = TextTable::new("Across", &["point", "round", "written MiB"]);
        table.keys = 2;
        let name = "write seq 1MiB psync fsync-end file 8MiB";
        for round in ["1", "2"] {
            table.rows.push(vec![
                Cell::text(name),
                Cell::text(round),
                Cell::number(8.0, "8.0"),
            ]);
        }
        let narrow = table.terminal_at(Screen { width: Some(40) });
        assert!(narrow.starts_with("Across; point: write seq"), "{narrow}");
        assert_eq!(narrow.matches("fsync-end").count(), 1, "{narrow}");
        assert!(narrow.lines().all(|l| l.chars().count() <= 40), "{narrow}");
        let wide = table.terminal_at(Screen::UNLIMITED);
        assert_eq!(wide.matches(name).count(), 2, "{wide}");
        table.rows[1][0] = Cell::text("read seq 1MiB psync file 8MiB");
        let two = table.terminal_at(Screen { width: Some(40) });
        assert!(!two.contains("; point:"), "{two}");
    }

    #[test]
    fn one_table_four_ways() {
        let table = table();
        let text = table.terminal();
        assert!(
            text.starts_with("Table 9: a, b\n")
                && text.contains("37.3")
                && text.ends_with("MiB/s = 2^20 bytes/s\n")
        );
        let markdown = table.markdown();
        assert!(
            markdown.contains("| size | MiB/s |\n|---|---:|\n| 1 MiB | 37.3 |"),
            "{markdown}"
        );
        assert_eq!(
            table.csv(),
            "\"Table 9: a, b\",size,MiB/s\n,1 MiB,37.3\n,2 MiB,67.7\n"
        );
        let html = table.html();
        assert!(
            html.contains("<td class=\"num\" data-value=\"67.7\">67.7</td>"),
            "{html}"
        );
    }
}
