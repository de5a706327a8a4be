//! The O_DIRECT study's tables (I/O Measurements, 2017): per storage medium, the normal and the O_DIRECT time and the percentage O_DIRECT is faster.

use super::{INTERVAL_NOTE, mean_pm, medium, seconds};
use crate::compare::{Figure, Metric, Orientation, Verdict, compare_point};
use crate::plan::{Op, SyncMode};
use crate::record::{Point, ResultFile};
use crate::report::text_table::{Cell, TextTable};
use crate::report::units::significant;

/// The read table and the write table, a row per file (one medium each).
pub fn tables(files: &[(&str, &ResultFile)], alpha: f64) -> Vec<TextTable> {
    let mut tables = Vec::new();
    for (writes, normal, direct) in [(false, "Read", "Direct R."), (true, "Write", "Direct W.")] {
        let mut table = TextTable::new(
            format!(
                "I/O Measurements 2017: {} time, normal against O_DIRECT",
                normal.to_lowercase()
            ),
            &[
                "Storage medium",
                normal,
                direct,
                "% direct I/O faster",
                "verdict",
            ],
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
            // compare's one estimator of T_direct / T_normal (paired by
            // round where the sides alternated), and its Δ%: the study's
            // "% direct faster", never above 100.
            let matched = compare_point(
                plain,
                odirect,
                &Metric::from(Figure::Time),
                alpha,
                Orientation::OtherOverBase,
            );
            let faster = matched.as_ref().map(|m| m.delta_percent);
            let faster_text = match &matched {
                None => "-".to_string(),
                Some(m) => match (m.ratio_low, m.ratio_high) {
                    (Some(low), Some(high)) => format!(
                        "{} ({} to {})",
                        significant(m.delta_percent),
                        significant((1.0 - high) * 100.0),
                        significant((1.0 - low) * 100.0)
                    ),
                    _ if m.ratio_unbounded => {
                        format!("{} (interval unbounded)", significant(m.delta_percent))
                    }
                    _ => significant(m.delta_percent),
                },
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
                Cell::text(matched.as_ref().map_or("-", |m| verdict(m.verdict))),
            ]);
        }
        if table.rows.is_empty() {
            continue;
        }
        table.notes.push(
            "Read, Write, Direct R., Direct W.: the time of one run (s); \
             % direct I/O faster = (T_normal − T_direct) / T_normal × 100, as the study defined it, \
             = (1 − T_direct / T_normal) × 100 from the ratio `iolab compare --metric time` gives: \
             the geometric mean of the rounds' ratios where the two alternated by round, else the \
             ratio of the mean times; negative when O_DIRECT is slower, never above 100."
                .into(),
        );
        table.notes.push(INTERVAL_NOTE.into());
        table.notes.push(
            "flags: as each job opened its file (target.open_flags), besides O_NOFOLLOW|O_CLOEXEC, \
             which iolab adds to every open, and O_LARGEFILE, which the kernel adds."
                .into(),
        );
        table.notes.push(format!(
            "In parentheses: the {:.0}% interval of % direct faster, from the interval of \
             T_direct / T_normal that `iolab compare --metric time` prints and decides by (a t \
             interval of the rounds' log ratios where paired, else Fieller's at Welch's degrees of \
             freedom; unbounded where the data cannot bound a ratio of times above zero).",
            (1.0 - alpha) * 100.0
        ));
        tables.push(table);
    }
    tables
}

/// A row's verdict in the study's words, from the interval printed beside
/// it (T_direct / T_normal's: lower is better).
fn verdict(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Better => "O_DIRECT faster",
        Verdict::Worse => "O_DIRECT slower",
        Verdict::NoSignificantDifference => "inconclusive",
        Verdict::TooFewRepetitions => "one repetition: no verdict",
    }
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

    /// "% direct faster" is a share of the normal time: its interval never
    /// passes 100 (`-289 (-5184 to 4174)` meant a negative O_DIRECT time);
    /// where the times cannot bound the ratio it says so.
    #[test]
    fn percent_direct_faster_and_its_interval_never_pass_100() {
        let mut result = file(StudyTable::DirectVsNormal);
        for (direct, seconds) in [(false, [1.0, 1.1, 0.9]), (true, [0.01, 3.0, 0.02])] {
            let workload = Workload {
                op: Op::Rewrite,
                direct,
                ..example_workload()
            };
            result.points.push(point(workload, &seconds));
        }
        let tables = tables(&[("ssd", &result)], 0.05);
        let row = &tables[0].rows[0];
        assert!(row[3].value.unwrap() < 100.0, "{row:?}");
        let text = &row[3].text;
        let bounds: Vec<f64> = text
            .split(['(', ')', ' '])
            .filter_map(|word| word.parse().ok())
            .skip(1)
            .collect();
        assert!(
            text.contains("unbounded") || bounds.iter().all(|&b| b < 100.0),
            "{text}"
        );
    }

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
            [
                "Storage medium",
                "Read",
                "Direct R.",
                "% direct I/O faster",
                "verdict"
            ]
        );
        // The study's first row: 0.262 against 0.254 is 3.05% faster.
        let read = &tables[0].rows[0];
        assert!((read[3].value.unwrap() - 3.053).abs() < 0.01, "{read:?}");
        assert!(read[3].text.starts_with("3.05"), "{read:?}");
        // 1.838 against 1.860 is 1.2% slower: negative.
        let write = &tables[1].rows[0];
        assert!((write[3].value.unwrap() + 1.197).abs() < 0.01, "{write:?}");
        assert!(write[0].text.contains("O_WRONLY|O_DIRECT"), "{write:?}");
        // Identical rounds bound the ratio to a point: each row decided.
        assert_eq!(read[4].text, "O_DIRECT faster", "{read:?}");
        assert_eq!(write[4].text, "O_DIRECT slower", "{write:?}");
    }
}
