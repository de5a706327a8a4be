//! `iolab report`: result files shown in the format asked, with their comparison and the studies' tables, or written as one HTML file.

use crate::app::error::{AppError, Ending};
use crate::app::output::{self, check_output, create_results_dir};
use crate::cli::ReportArgs;
use crate::record::write;
use crate::record::write::Replace;
use crate::usage;
use std::path::Path;

/// `iolab report RESULTS... -o report.html`.
pub fn report(args: &ReportArgs) -> Result<Ending, AppError> {
    use crate::cli::ReportFormat;
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    let output = match &args.output {
        Some(path) => path.clone(),
        None => output::default_output("report").with_extension(match args.format {
            ReportFormat::Html => "html",
            ReportFormat::Markdown => "md",
            ReportFormat::Csv | ReportFormat::StudyCsv => "csv",
            ReportFormat::FioJson => "json",
        }),
    };
    if !to_stdout {
        if args.output.is_none() {
            create_results_dir(&output)?;
        }
        check_output(Some(&output), 1 << 20)?;
    }
    let mut files = Vec::new();
    for path in &args.files {
        let result = write::read_to_show(path).map_err(|e| usage!("{e}"))?;
        if result.points.is_empty() {
            return Err(usage!("{} has no measured point to report", path.display()).into());
        }
        files.push((path.display().to_string(), result));
    }
    use crate::report::render::{Csv, FioJson, Html, Markdown, Render, StudyCsv};
    use crate::report::view::ReportView;
    let view = ReportView::new(
        files.iter().map(|(n, r)| (n.as_str(), r)).collect(),
        args.alpha,
        false,
    );
    let renderer: &dyn for<'a> Render<ReportView<'a>> = match args.format {
        ReportFormat::Html => &Html,
        ReportFormat::Markdown => &Markdown,
        ReportFormat::Csv => &Csv,
        ReportFormat::StudyCsv => &StudyCsv,
        ReportFormat::FioJson => &FioJson,
    };
    let text = renderer.render(&view).map_err(anyhow::Error::from)?;
    if args.format == ReportFormat::FioJson {
        let results: Vec<_> = files.iter().map(|(_, r)| r).collect();
        let left = crate::report::fio_json::left_out(&results);
        let points: usize = results.iter().map(|r| r.points.len()).sum();
        if left.len() == points {
            return Err(usage!(
                "--format fio-json: every point given is a metadata point, which fio has no job for, so its JSON would hold no job: use --format csv or markdown"
            )
            .into());
        }
        if !left.is_empty() {
            crate::say!(
                "iolab: {} metadata point{} left out of the fio JSON (fio has no job that creates, stats or deletes a tree's items): {}",
                left.len(),
                if left.len() == 1 { " is" } else { "s are" },
                left.join("; ")
            );
        }
    }
    if args.format == ReportFormat::StudyCsv && text.is_empty() {
        return Err(usage!(
            "--format study-csv: no file given was run from a study with a table \
             (its plan.table is empty); use --format csv"
        )
        .into());
    }
    // HTML escapes what it shows; text read in a terminal or a spreadsheet
    // gets no control character from a file.
    let text = match args.format {
        // JSON escapes every control character itself.
        ReportFormat::Html | ReportFormat::FioJson => text,
        _ => crate::console::neutralize(&text).into_owned(),
    };
    if to_stdout {
        output::print(&text)?;
        return Ok(Ending::Success);
    }
    write::write_file(&output, Replace::Never, |out| {
        std::io::Write::write_all(out, text.as_bytes())
    })
    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", output.display()))?;
    output::print(&format!("report: {}\n", output.display()))?;
    Ok(Ending::Success)
}
