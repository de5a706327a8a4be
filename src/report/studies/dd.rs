//! CLOSER 2011's Tables 1 and 2 (dd in native and paravirtualized hosts): per block size or data size, each mode's time (s) and speed.

use super::{INTERVAL_NOTE, UNITS_NOTE, mean_pm, seconds, throughputs};
use crate::plan::study::StudyTable;
use crate::plan::units::format_size;
use crate::plan::{Op, Workload};
use crate::record::ResultFile;
use crate::report::text_table::{Cell, TextTable};
use crate::report::units::{mb_per_s, significant};

/// The study's modes, in its columns' order: a name, the op and O_DIRECT.
const MODES: [(&str, Op, bool); 4] = [
    ("write", Op::Write, false),
    ("O_DIRECT write", Op::Write, true),
    ("O_DIRECT read", Op::Read, true),
    ("read", Op::Read, false),
];

/// Table 1 (rows: block size) or Table 2 (rows: data size) of one file.
pub fn table(kind: StudyTable, name: &str, file: &ResultFile) -> Option<TextTable> {
    let by_size = kind == StudyTable::DdDatasize;
    let row_key = |w: &Workload| if by_size { w.size } else { w.bs };
    let mut keys: Vec<u64> = file.points.iter().map(|p| row_key(&p.workload)).collect();
    keys.sort_unstable();
    keys.dedup();
    let modes: Vec<_> = MODES
        .iter()
        .filter(|(_, op, direct)| {
            file.points
                .iter()
                .any(|p| p.workload.op == *op && p.workload.direct == *direct)
        })
        .collect();
    if keys.is_empty() || modes.is_empty() {
        return None;
    }
    let mut header = vec![if by_size { "data size" } else { "block size" }.to_string()];
    for (mode, ..) in &modes {
        header.push(format!("{mode} time (s)"));
        header.push(format!("{mode} MiB/s (MB/s)"));
    }
    let fixed = file.points.first().map(|p| {
        if by_size {
            format!("{} blocks", format_size(p.workload.bs))
        } else {
            format!("{} of data", format_size(p.workload.size))
        }
    });
    let title = format!(
        "CLOSER 2011, Table {}: dd's read and write with and without O_DIRECT against {}{} — {name}",
        if by_size { 2 } else { 1 },
        if by_size { "data size" } else { "block size" },
        fixed.map_or_else(String::new, |f| format!(", {f}")),
    );
    let mut table = TextTable {
        title,
        header,
        rows: Vec::new(),
        notes: Vec::new(),
        keys: 1,
    };
    for key in keys {
        let mut row = vec![Cell::number(key as f64, format_size(key))];
        for (_, op, direct) in &modes {
            let point = file.points.iter().find(|p| {
                p.workload.op == *op && p.workload.direct == *direct && row_key(&p.workload) == key
            });
            let Some(point) = point else {
                row.extend([Cell::empty(), Cell::empty()]);
                continue;
            };
            let (time, time_text) = mean_pm(&seconds(point), 1.0);
            let rates = throughputs(point);
            let (mib, mib_text) = mean_pm(&rates, 1.0 / 1048576.0);
            let mean_bps = rates.iter().sum::<f64>() / rates.len().max(1) as f64;
            row.push(time.map_or_else(Cell::empty, |t| Cell::number(t, time_text)));
            row.push(mib.map_or_else(Cell::empty, |m| {
                Cell::number(
                    m,
                    format!("{mib_text} ({})", significant(mb_per_s(mean_bps))),
                )
            }));
        }
        table.rows.push(row);
    }
    table.notes.push(UNITS_NOTE.into());
    table.notes.push(INTERVAL_NOTE.into());
    if modes
        .iter()
        .any(|(_, op, direct)| *op == Op::Write && !direct)
    {
        table.notes.push(
            "write: as dd times it, until the last write(2) returns, with no fsync; the data may \
             still be in the page cache then (each point's writeback check says how much)."
                .into(),
        );
    }
    for record in &file.convergence {
        table.notes.push(match record.stable_from_bytes {
            Some(size) => format!(
                "converged: {} is stable from {} (within ±{:.0}% of the largest sizes' mean, \
                 cv ≤ {:.0}%; reference {} MiB/s, {} MB/s)",
                record.series,
                format_size(size),
                record.tolerance * 100.0,
                record.max_cv * 100.0,
                significant(record.reference_bps / 1048576.0),
                significant(mb_per_s(record.reference_bps))
            ),
            None => format!(
                "not converged: {} is not stable even at the largest size",
                record.series
            ),
        });
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{file, point};
    use super::*;
    use crate::plan::example_workload;

    #[test]
    fn table_2_has_a_row_per_data_size_and_time_and_speed_per_mode() {
        let mut result = file(StudyTable::DdDatasize);
        for (size, op, direct, seconds) in [
            (1u64 << 20, Op::Write, false, [0.03, 0.03]),
            (2 << 20, Op::Write, false, [0.03, 0.03]),
            (1 << 20, Op::Read, true, [0.04, 0.04]),
            (2 << 20, Op::Read, true, [0.02, 0.02]),
        ] {
            let workload = Workload {
                op,
                direct,
                size,
                bs: 1 << 20,
                ..example_workload()
            };
            result.points.push(point(workload, &seconds));
        }
        let table = table(StudyTable::DdDatasize, "f", &result).expect("a table");
        assert_eq!(
            table.header,
            [
                "data size",
                "write time (s)",
                "write MiB/s (MB/s)",
                "O_DIRECT read time (s)",
                "O_DIRECT read MiB/s (MB/s)"
            ]
        );
        assert_eq!(table.rows.len(), 2);
        let row = &table.rows[1];
        assert_eq!(row[0].text, "2MiB");
        // 2 MiB in 0.03 s = 66.7 MiB/s = 69.9 MB/s; no spread, so ± 0.
        assert_eq!(row[1].text, "0.0300 ±0.0000");
        assert_eq!(row[2].text, "66.7 ±0.0 (69.9)");
        assert_eq!(row[4].value, Some(100.0));
        assert!(table.title.starts_with("CLOSER 2011, Table 2"));
    }
}
