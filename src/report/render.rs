//! Every output format behind one trait, [`Render`]: a format renders a view computed once — the result files, their comparison at the user's metric and level, the studies' tables — and recomputes nothing.
//!
//! The formats are unit types (`Terminal`, `Json`, `Markdown`, `Csv`,
//! `StudyCsv`, `Html`); a view is either a [`ReportView`] (result files:
//! what `run`, `sweep`, `study` and `report` show) or a
//! [`Comparison`] (what `compare` shows). A new format is a type with an
//! `impl Render<…>` for each view it can show.

use super::view::ReportView;
use crate::compare::Comparison;
use crate::record::ResultFile;

/// A format that can show views of kind `V`.
pub trait Render<V: ?Sized> {
    /// The view as this format's text; JSON alone can fail to serialize.
    fn render(&self, view: &V) -> Result<String, serde_json::Error>;
}

/// Tables for a terminal.
pub struct Terminal {
    /// What the text is fitted to.
    pub screen: super::screen::Screen,
}
/// JSON: the result file itself, or the whole comparison.
pub struct Json;
/// Markdown pipe tables.
pub struct Markdown;
/// CSV: one row per point, or per matched point of a comparison.
pub struct Csv;
/// The studies' own tables as CSV.
pub struct StudyCsv;
/// The one-file HTML report with charts.
pub struct Html;
/// fio's `--output-format=json+` shape, for fio's tooling.
pub struct FioJson;

impl Render<ReportView<'_>> for FioJson {
    /// Every file's measured repetitions as fio jobs, in one document.
    fn render(&self, view: &ReportView<'_>) -> Result<String, serde_json::Error> {
        let results: Vec<&crate::record::ResultFile> = view.files.iter().map(|(_, r)| *r).collect();
        let mut text = serde_json::to_string_pretty(&super::fio_json::document(
            &results,
            super::fio_json::JobNames::Points,
        ))?;
        text.push('\n');
        Ok(text)
    }
}

impl Render<ReportView<'_>> for Terminal {
    /// Each file's table (and with `detail` its activity), then the studies' tables.
    fn render(&self, view: &ReportView<'_>) -> Result<String, serde_json::Error> {
        let mut text = String::new();
        // A host against its guest: the answer first, as the report's
        // headline gives it; the tables below give each point's.
        if let [(_, result)] = view.files.as_slice() {
            if let Some(answer) = super::html::headline::guest_against_host(result) {
                text.push_str(&self.screen.wrap(&format!(
                    "{answer} (each point's: Guest against host, below)"
                )));
                text.push_str("\n\n");
            }
        }
        for (_, result) in &view.files {
            text.push_str(&super::table::render(result, self.screen, view.detail));
            text.push_str(&super::distributed::render(result, self.screen));
            if let Some(table) = super::pacing::pacing_table(result) {
                text.push('\n');
                text.push_str(&table.terminal_at(self.screen));
            }
            if let Some(table) = super::replay::fidelity_table(result) {
                text.push('\n');
                text.push_str(&table.terminal_at(self.screen));
            }
            if view.detail {
                text.push_str(&super::activity::render_points(result, self.screen));
            }
        }
        for table in &view.study_tables {
            text.push('\n');
            text.push_str(&table.terminal_at(self.screen));
        }
        Ok(text)
    }
}

impl Render<ReportView<'_>> for Json {
    /// The result file as written (one file), or an array of them.
    fn render(&self, view: &ReportView<'_>) -> Result<String, serde_json::Error> {
        let text = match view.files.as_slice() {
            [(_, only)] => serde_json::to_string_pretty(only)?,
            files => {
                let all: Vec<&ResultFile> = files.iter().map(|(_, r)| *r).collect();
                serde_json::to_string_pretty(&all)?
            }
        };
        Ok(text + "\n")
    }
}

impl Render<ReportView<'_>> for Markdown {
    fn render(&self, view: &ReportView<'_>) -> Result<String, serde_json::Error> {
        Ok(super::export::markdown(view))
    }
}

impl Render<ReportView<'_>> for Csv {
    fn render(&self, view: &ReportView<'_>) -> Result<String, serde_json::Error> {
        Ok(super::export::csv(&view.files))
    }
}

impl Render<ReportView<'_>> for StudyCsv {
    /// Per table a header row whose first field is the table's title, then
    /// its rows; a blank line between tables. Empty when no file has a study table.
    fn render(&self, view: &ReportView<'_>) -> Result<String, serde_json::Error> {
        Ok(view
            .study_tables
            .iter()
            .map(|t| t.csv())
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

impl Render<ReportView<'_>> for Html {
    fn render(&self, view: &ReportView<'_>) -> Result<String, serde_json::Error> {
        Ok(super::html::render(view))
    }
}

impl Render<Comparison> for Terminal {
    fn render(&self, view: &Comparison) -> Result<String, serde_json::Error> {
        Ok(super::compare::render(
            view,
            super::compare::Style::Terminal(self.screen),
        ))
    }
}

impl Render<Comparison> for Markdown {
    fn render(&self, view: &Comparison) -> Result<String, serde_json::Error> {
        Ok(super::compare::render(
            view,
            super::compare::Style::Markdown,
        ))
    }
}

impl Render<Comparison> for Csv {
    fn render(&self, view: &Comparison) -> Result<String, serde_json::Error> {
        Ok(super::compare::csv(view))
    }
}

impl Render<Comparison> for Json {
    fn render(&self, view: &Comparison) -> Result<String, serde_json::Error> {
        Ok(serde_json::to_string_pretty(view)? + "\n")
    }
}
