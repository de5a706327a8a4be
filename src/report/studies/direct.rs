//! The O_DIRECT study's tables (I/O Measurements, 2017): per storage medium, the normal and the O_DIRECT time and the percentage O_DIRECT is faster.

use super::{INTERVAL_NOTE, mean_pm, medium, seconds};
use crate::plan::{Op, SyncMode};
use crate::record::{Point, ResultFile};
use crate::report::text_table::{Cell, TextTable};
use crate::report::units::significant;
use crate::stats::fieller::{RatioInterval, ratio_interval};

/// The read table and the write table, a row per file (one medium each).
pub fn tables(files: &[(&str, &ResultFile)], alpha: f64) -> Vec<TextTable> {
    let mut tables = Vec::new();
    for (writes, normal, direct) in [(false, "Read", "Direct R."), (true, "Write", "Direct W.")] {
        let mut table = TextTable::new(
            format!(
                "I/O Measurements 2017: {} time, normal against O_DIRECT",
                normal.to_lowercase()
            ),
            &["Storage medium", normal, direct, "% direct I/O faster"],
        );
        for (name, file) in files {
            let find = |is_direct: bool| {
                file.points
                    .iter()
                    .find(|p| p.workload.op.writes() == writes && p.workload.direct == is_direct)
            };
            let (Some(plain), Some(odirect)) = (find(false), find(true)) else {
                continue;
            };
            let (normal_s, direct_s) = (seconds(plain), seconds(odirect));
            let (normal_mean, normal_text) = mean_pm(&normal_s, 1.0);
            let (direct_mean, direct_text) = mean_pm(&direct_s, 1.0);
            let faster = normal_mean
                .zip(direct_mean)
                .map(|(n, d)| (n - d) / n * 100.0);
            let interval = ratio_interval(&normal_s, &direct_s, alpha);
            let faster_text = match (faster, interval) {
                (None, _) => "-".to_string(),
                (Some(f), Some(RatioInterval::Bounded(low, high))) => format!(
                    "{} ({} to {})",
                    significant(f),
                    significant((1.0 - high) * 100.0),
                    significant((1.0 - low) * 100.0)
                ),
                (Some(f), Some(RatioInterval::Unbounded)) => {
                    format!("{} (interval unbounded)", significant(f))
                }
                (Some(f), None) => significant(f),
            };
            table.rows.push(vec![
                Cell::text(format!(
                    "{} — {}",
                    medium(name, file),
                    setup(plain, odirect)
                )),
                normal_mean.map_or_else(Cell::empty, |v| Cell::number(v, normal_text)),
                direct_mean.map_or_else(Cell::empty, |v| Cell::number(v, direct_text)),
                faster.map_or_else(Cell::empty, |v| Cell::number(v, faster_text)),
            ]);
        }
        if table.rows.is_empty() {
            continue;
        }
        table.notes.push(
            "Read, Write, Direct R., Direct W.: the time of one run (s); \
             % direct I/O faster = (T_normal − T_direct) / T_normal × 100, as the study defined it, \
             from the mean times; negative when O_DIRECT is slower."
                .into(),
        );
        table.notes.push(INTERVAL_NOTE.into());
        table.notes.push(
            "flags: as each job opened its file (target.open_flags), besides O_NOFOLLOW|O_CLOEXEC, \
             which iolab adds to every open, and O_LARGEFILE, which the kernel adds."
                .into(),
        );
        table.notes.push(format!(
            "In parentheses: the {:.0}% interval of % direct faster, from Fieller's interval of \
             T_direct / T_normal at Welch's degrees of freedom (the rule `iolab compare --metric time` states).",
            (1.0 - alpha) * 100.0
        ));
        tables.push(table);
    }
    tables
}

/// What one row measured, in the study's terms: I/O count, size and flags.
fn setup(plain: &Point, direct: &Point) -> String {
    let w = &plain.workload;
    let count = w.size / w.bs.max(1);
    let flags = |p: &Point| {
        // What the jobs opened, as recorded (older files carry none),
        // without the two flags every reopen adds, which the note names.
        if let Some(opened) = &p.target.open_flags {
            return opened
                .split('|')
                .filter(|flag| !matches!(*flag, "O_NOFOLLOW" | "O_CLOEXEC"))
                .collect::<Vec<_>>()
                .join("|");
        }
        let w = &p.workload;
        let mut flags = vec![if w.op.writes() {
            "O_WRONLY"
        } else {
            "O_RDONLY"
        }];
        if w.op == Op::Write {
            flags.push("O_CREAT");
        }
        if w.direct {
            flags.push("O_DIRECT");
        }
        match w.sync {
            SyncMode::Osync => flags.push("O_SYNC"),
            SyncMode::Odsync => flags.push("O_DSYNC"),
            SyncMode::None => {}
        }
        flags.join("|")
    };
    format!(
        "{count} × {} at {} offsets, {} against {}",
        crate::plan::units::format_size(w.bs),
        w.pattern,
        flags(plain),
        flags(direct)
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::{file, point};
    use super::*;
    use crate::plan::study::StudyTable;
    use crate::plan::{Workload, example_workload};

    #[test]
    fn percent_direct_faster_is_the_studys_formula_on_times() {
        let mut result = file(StudyTable::DirectVsNormal);
        for (op, direct, seconds) in [
            (Op::Read, false, [0.262, 0.262]),
            (Op::Read, true, [0.254, 0.254]),
            (Op::Rewrite, false, [1.838, 1.838]),
            (Op::Rewrite, true, [1.860, 1.860]),
        ] {
            let workload = Workload {
                op,
                direct,
                ..example_workload()
            };
            result.points.push(point(workload, &seconds));
        }
        let tables = tables(&[("ssd", &result)], 0.05);
        assert_eq!(tables.len(), 2);
        assert_eq!(
            tables[0].header,
            ["Storage medium", "Read", "Direct R.", "% direct I/O faster"]
        );
        // The study's first row: 0.262 against 0.254 is 3.05% faster.
        let read = &tables[0].rows[0];
        assert!((read[3].value.unwrap() - 3.053).abs() < 0.01, "{read:?}");
        assert!(read[3].text.starts_with("3.05"), "{read:?}");
        // 1.838 against 1.860 is 1.2% slower: negative.
        let write = &tables[1].rows[0];
        assert!((write[3].value.unwrap() + 1.197).abs() < 0.01, "{write:?}");
        assert!(write[0].text.contains("O_WRONLY|O_DIRECT"), "{write:?}");
    }
}
