//! `iolab report`: result files shown in the format asked, with their comparison and the studies' tables, or written as one HTML file.

use crate::app::error::{AppError, Ending};
use crate::app::output::{self, check_output, create_results_dir};
use crate::cli::{ReportArgs, ReportFormat};
use crate::record::write;
use crate::record::write::Replace;
use crate::report::render::{Csv, FioJson, Html, Markdown, Render, StudyCsv};
use crate::report::view::ReportView;
use crate::usage;
use std::path::Path;

/// What each `--format` is: its file's extension, its renderer, and whether
/// it escapes control characters itself (HTML and JSON do; text read in a
/// terminal or a spreadsheet is neutralized) — the one place a report
/// format is described.
struct FormatOf {
    extension: &'static str,
    renderer: &'static dyn for<'a> Render<ReportView<'a>>,
    escapes_itself: bool,
}

fn format_of(format: ReportFormat) -> FormatOf {
    let (extension, renderer, escapes_itself): (_, &'static dyn for<'a> Render<ReportView<'a>>, _) =
        match format {
            ReportFormat::Html => ("html", &Html, true),
            ReportFormat::Markdown => ("md", &Markdown, false),
            ReportFormat::Csv => ("csv", &Csv, false),
            ReportFormat::StudyCsv => ("csv", &StudyCsv, false),
            ReportFormat::FioJson => ("json", &FioJson, true),
        };
    FormatOf {
        extension,
        renderer,
        escapes_itself,
    }
}

/// `iolab report RESULTS... -o report.html`.
pub fn report(args: &ReportArgs) -> Result<Ending, AppError> {
    let format = format_of(args.format);
    let to_stdout = args.output.as_deref() == Some(Path::new("-"));
    let output = match &args.output {
        Some(path) => path.clone(),
        None => output::default_output("report").with_extension(format.extension),
    };
    // An HTML report iolab wrote there (`run -o x.json` keeps x.html) is
    // replaced; anything else is kept.
    let replace = if args.format == ReportFormat::Html && output::is_iolab_report(&output) {
        Replace::Own
    } else {
        Replace::Never
    };
    if !to_stdout && replace == Replace::Never {
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
    let ignored = args
        .ignore
        .as_ref()
        .map_or_else(Vec::new, |list| list.fields.clone());
    let view = ReportView::ignoring(
        files.iter().map(|(n, r)| (n.as_str(), r)).collect(),
        args.alpha,
        false,
        ignored.clone(),
    );
    // Files whose points match none of the base's are drawn side by side
    // without a comparison: say which parameters would match them.
    if let Some(comparison) = &view.comparison {
        for (pairing, (path, (_, other))) in comparison
            .pairings
            .iter()
            .zip(args.files.iter().zip(&files).skip(1))
        {
            if pairing.matched.is_empty() {
                crate::say!(
                    "warning: {} has no point in common with {} (points match by their workload parameters), so the report compares nothing; {}",
                    path.display(),
                    args.files[0].display(),
                    super::compare::nearest_pair(
                        &files[0].1,
                        other,
                        (&args.files, &ignored),
                        "report"
                    )
                );
            }
        }
    }
    let text = format.renderer.render(&view).map_err(anyhow::Error::from)?;
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
    let text = if format.escapes_itself {
        text
    } else {
        crate::console::neutralize(&text).into_owned()
    };
    if to_stdout {
        output::print(&text)?;
        return Ok(Ending::Success);
    }
    write::write_file(&output, replace, |out| {
        std::io::Write::write_all(out, text.as_bytes())
    })
    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", output.display()))?;
    output::print(&format!("report: {}\n", output.display()))?;
    Ok(Ending::Success)
}
