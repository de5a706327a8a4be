//! What a report shows, computed once from result files: the [`ReportView`] every format renders (files, their comparison at the user's level, the studies' tables). A leaf of `report`'s formats: they name it, it names none of them.

use super::text_table::TextTable;
use crate::compare::{self, Comparison, Figure, Metric, Orientation};
use crate::record::ResultFile;

/// Result files as they are shown, with what is derived from them computed once.
pub struct ReportView<'a> {
    /// (name, result) of each file; the first is the base of the comparison.
    pub files: Vec<(&'a str, &'a ResultFile)>,
    /// Every other file compared with the first (throughput, other / base), at the user's level.
    pub comparison: Option<Comparison>,
    /// The publications' own tables built from the files, at the user's level.
    pub study_tables: Vec<TextTable>,
    /// Show per repetition what the devices, the network and the CPUs did (`--detail`).
    pub detail: bool,
    /// The parameters (result-file fields) points are matched without
    /// (`report --ignore engine,iodepth`).
    pub ignored: Vec<String>,
}

impl<'a> ReportView<'a> {
    /// The view of `files` with comparisons and study verdicts at level `alpha`.
    pub fn new(files: Vec<(&'a str, &'a ResultFile)>, alpha: f64, detail: bool) -> ReportView<'a> {
        ReportView::ignoring(files, alpha, detail, Vec::new())
    }

    /// [`ReportView::new`] with points matched across files without the
    /// parameters `ignored` (result-file fields), as `compare --ignore`.
    pub fn ignoring(
        files: Vec<(&'a str, &'a ResultFile)>,
        alpha: f64,
        detail: bool,
        ignored: Vec<String>,
    ) -> ReportView<'a> {
        let key = |w: &crate::plan::Workload| compare::key_without(w, &ignored);
        let comparison = (files.len() > 1).then(|| {
            let (base_name, base) = files[0];
            Comparison {
                metric: Metric::from(Figure::Throughput),
                alpha,
                orientation: Orientation::OtherOverBase,
                base: base_name.to_string(),
                pairings: files[1..]
                    .iter()
                    .map(|(name, other)| {
                        compare::pair_by(
                            base,
                            other,
                            name,
                            Metric::from(Figure::Throughput),
                            alpha,
                            Orientation::OtherOverBase,
                            &key,
                        )
                    })
                    .collect(),
            }
        });
        ReportView {
            study_tables: super::studies::tables(&files, alpha),
            files,
            comparison,
            detail,
            ignored,
        }
    }

    /// What matches a point of one file with another's: its workload
    /// without the ignored parameters.
    pub fn key(&self, workload: &crate::plan::Workload) -> String {
        compare::key_without(workload, &self.ignored)
    }
}
