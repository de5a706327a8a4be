//! IOzone's `-R` report shape (the UPC study ran `iozone -a`): one matrix per op, file size down, record size across, in KiB/s as IOzone prints and in MiB/s.

use super::throughputs;
use crate::plan::{EngineKind, Op};
use crate::record::ResultFile;
use crate::report::text_table::{Cell, TextTable};
use crate::report::units::significant;

/// IOzone's report names for an engine's four ops, write(2)/read(2) or the C library's.
fn report_name(engine: EngineKind, op: Op) -> String {
    let stdio = engine.capabilities().library_stream;
    let name = match (op, stdio) {
        (Op::Write, false) => "Writer",
        (Op::Rewrite, false) => "Re-writer",
        (Op::Read, false) => "Reader",
        (Op::Reread, false) => "Re-Reader",
        (Op::Write, true) => "Fwrite",
        (Op::Rewrite, true) => "Re-Fwrite",
        (Op::Read, true) => "Fread",
        (Op::Reread, true) => "Re-Fread",
        // IOzone has no mixed op; a mix is reported under iolab's name.
        (Op::Mix, _) => "Mix",
        (Op::Trim, _) => "Trim",
        // IOzone has no metadata ops either: each under its own name.
        (op, _) => op.name(),
    };
    match engine {
        EngineKind::Sync | EngineKind::Stdio => format!("{name} report"),
        other => format!("{name} report (engine {})", other.name()),
    }
}

/// The matrices of one file: per engine and op, KiB/s then MiB/s.
pub fn tables(name: &str, file: &ResultFile) -> Vec<TextTable> {
    let mut groups: Vec<(EngineKind, Op)> = Vec::new();
    for point in &file.points {
        let key = (point.workload.engine, point.workload.op);
        if !groups.contains(&key) {
            groups.push(key);
        }
    }
    let mut tables = Vec::new();
    for (engine, op) in groups {
        let points: Vec<_> = file
            .points
            .iter()
            .filter(|p| p.workload.engine == engine && p.workload.op == op)
            .collect();
        let mut sizes: Vec<u64> = points.iter().map(|p| p.workload.size).collect();
        let mut records: Vec<u64> = points.iter().map(|p| p.workload.bs).collect();
        for axis in [&mut sizes, &mut records] {
            axis.sort_unstable();
            axis.dedup();
        }
        let mut header = vec!["file KiB \\ record KiB".to_string()];
        header.extend(records.iter().map(|r| (r / 1024).to_string()));
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        for (unit, scale) in [("KiB/s", 1.0 / 1024.0), ("MiB/s", 1.0 / 1048576.0)] {
            let mut table = TextTable::new(
                format!("\"{}\" in {unit} — {name}", report_name(engine, op)),
                &header,
            );
            for size in &sizes {
                let mut row = vec![Cell::number(
                    (size / 1024) as f64,
                    (size / 1024).to_string(),
                )];
                for record in &records {
                    let point = points
                        .iter()
                        .find(|p| p.workload.size == *size && p.workload.bs == *record);
                    let rates = point.map(|p| throughputs(p)).unwrap_or_default();
                    row.push(if rates.is_empty() {
                        Cell::empty()
                    } else {
                        let value = rates.iter().sum::<f64>() / rates.len() as f64 * scale;
                        let text = if unit == "KiB/s" {
                            format!("{value:.0}")
                        } else {
                            significant(value)
                        };
                        Cell::number(value, text)
                    });
                }
                table.rows.push(row);
            }
            table.notes.push(format!(
                "{unit}: the mean over repetitions (KiB = 1024 bytes, as IOzone's kB); rows file size, \
                 columns record size, both in KiB; empty where IOzone -a skips the pair."
            ));
            tables.push(table);
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::super::testing::{file, point};
    use super::*;
    use crate::plan::study::StudyTable;
    use crate::plan::{Workload, example_workload};

    #[test]
    fn one_matrix_per_op_in_iozones_names_and_units() {
        let mut result = file(StudyTable::IozoneReport);
        for (engine, op, size, bs) in [
            (EngineKind::Sync, Op::Write, 64u64 << 10, 4u64 << 10),
            (EngineKind::Sync, Op::Write, 128 << 10, 4 << 10),
            (EngineKind::Sync, Op::Write, 128 << 10, 8 << 10),
            (EngineKind::Stdio, Op::Reread, 64 << 10, 4 << 10),
        ] {
            let workload = Workload {
                engine,
                op,
                size,
                bs,
                ..example_workload()
            };
            // 1 MiB/s = 1024 KiB/s for each size.
            let seconds = size as f64 / 1048576.0;
            result.points.push(point(workload, &[seconds]));
        }
        let tables = tables("f", &result);
        assert_eq!(tables.len(), 4);
        assert!(tables[0].title.starts_with("\"Writer report\" in KiB/s"));
        assert!(tables[2].title.starts_with("\"Re-Fread report\" in KiB/s"));
        assert_eq!(tables[0].header, ["file KiB \\ record KiB", "4", "8"]);
        assert_eq!(tables[0].rows[0][0].text, "64");
        assert_eq!(tables[0].rows[0][1].text, "1024");
        assert_eq!(tables[0].rows[0][2].text, "", "64 KiB × 8 KiB was not run");
        assert_eq!(tables[1].rows[1][2].text, "1.00");
    }
}
