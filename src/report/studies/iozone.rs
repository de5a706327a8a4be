//! IOzone's `-R` report shape (the UPC study ran `iozone -a`): one matrix per op, file size down, record size across, in KiB/s as IOzone prints and in MiB/s.

use super::throughputs;
use crate::compare::equivalence::{self, EquivalenceVerdict};
use crate::compare::{Figure, Metric, Orientation};
use crate::plan::{EngineKind, Machine, Op, Workload};
use crate::record::{Point, ResultFile};
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
        (Op::Trimwrite, _) => "Trim-then-write",
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
        let (sizes, records, header) = matrix_axes(points.iter().map(|p| &p.workload));
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        for (unit, scale) in [("KiB/s", 1.0 / 1024.0), ("MiB/s", 1.0 / 1048576.0)] {
            let mut table = TextTable::new(
                format!("\"{}\" in {unit} — {name}", report_name(engine, op)),
                &header,
            );
            for size in &sizes {
                let mut row = vec![kib_cell(*size)];
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

/// A matrix's file sizes (rows) and record sizes (columns), ascending, and
/// its header: the corner, then each record size in KiB.
fn matrix_axes<'a>(
    workloads: impl Iterator<Item = &'a Workload> + Clone,
) -> (Vec<u64>, Vec<u64>, Vec<String>) {
    let mut sizes: Vec<u64> = workloads.clone().map(|w| w.size).collect();
    let mut records: Vec<u64> = workloads.map(|w| w.bs).collect();
    for axis in [&mut sizes, &mut records] {
        axis.sort_unstable();
        axis.dedup();
    }
    let mut header = vec!["file KiB \\ record KiB".to_string()];
    header.extend(records.iter().map(|r| (r / 1024).to_string()));
    (sizes, records, header)
}

/// A file size in KiB, as a matrix's row heading.
fn kib_cell(bytes: u64) -> Cell {
    Cell::number((bytes / 1024) as f64, (bytes / 1024).to_string())
}

/// The margin a speedup is judged equivalent within.
const MARGIN: f64 = 0.05;

/// Pinilla's Table 4 (and Figure 3) from a run on a host and in its guest:
/// per engine, for the write and read ops, the speedup base/guest (the
/// host's throughput over the guest's: above 1 the base OS is faster), file
/// size down and record size across, each cell marked with its verdict from
/// the per-boot ratios (`*` different, `=` within ±5%, none inconclusive).
pub fn speedup_tables(name: &str, file: &ResultFile) -> Vec<TextTable> {
    let guest_of = |host: &Point| {
        let twin = Workload {
            machine: Machine::Guest,
            ..host.workload.clone()
        };
        file.points.iter().find(|g| g.workload == twin)
    };
    let mut tables = Vec::new();
    let mut groups: Vec<(EngineKind, Op)> = Vec::new();
    for point in file
        .points
        .iter()
        .filter(|p| p.workload.machine == Machine::Host)
    {
        let key = (point.workload.engine, point.workload.op);
        if matches!(key.1, Op::Write | Op::Read) && !groups.contains(&key) {
            groups.push(key);
        }
    }
    for (engine, op) in groups {
        let pairs: Vec<(&Point, &Point)> = file
            .points
            .iter()
            .filter(|p| {
                p.workload.machine == Machine::Host
                    && p.workload.engine == engine
                    && p.workload.op == op
            })
            .filter_map(|host| Some((host, guest_of(host)?)))
            .collect();
        if pairs.is_empty() {
            continue;
        }
        let (sizes, records, header) = matrix_axes(pairs.iter().map(|(p, _)| &p.workload));
        let header: Vec<&str> = header.iter().map(String::as_str).collect();
        let mut table = TextTable::new(
            format!(
                "Speedup base/guest, \"{}\" — {name} (Pinilla's {})",
                report_name(engine, op),
                if op == Op::Write {
                    "Table 4"
                } else {
                    "Figure 3"
                }
            ),
            &header,
        );
        let mut counts = [0usize; 3];
        for size in &sizes {
            let mut row = vec![kib_cell(*size)];
            for record in &records {
                let pair = pairs
                    .iter()
                    .find(|(h, _)| h.workload.size == *size && h.workload.bs == *record);
                row.push(match pair {
                    Some((host, guest)) => speedup_cell(host, guest, &mut counts),
                    None => Cell::empty(),
                });
            }
            table.rows.push(row);
        }
        table.notes.push(format!(
            "base/guest: the host's (base OS's) throughput over the guest's on the same workload; above 1 the base OS is faster, as in the study. Marks: * different ({}), = within ±5% ({}), none inconclusive ({}); {}.",
            counts[0],
            counts[1],
            counts[2],
            equivalence::rule(MARGIN)
        ));
        tables.push(table);
    }
    tables
}

/// One cell of a speedup matrix: base/guest with its verdict's mark,
/// counted in `counts` (different, equivalent, inconclusive).
fn speedup_cell(host: &Point, guest: &Point, counts: &mut [usize; 3]) -> Cell {
    let judged = equivalence::judge(
        guest,
        host,
        &Metric::from(Figure::Throughput),
        Orientation::OtherOverBase,
        MARGIN,
    );
    let mean = |point: &Point| {
        let rates = throughputs(point);
        (!rates.is_empty()).then(|| rates.iter().sum::<f64>() / rates.len() as f64)
    };
    let (Some(base), Some(in_guest)) = (mean(host), mean(guest)) else {
        return Cell::empty();
    };
    let speedup = base / in_guest;
    let mark = match judged.verdict {
        EquivalenceVerdict::Different => {
            counts[0] += 1;
            "*"
        }
        EquivalenceVerdict::Equivalent => {
            counts[1] += 1;
            "="
        }
        EquivalenceVerdict::Inconclusive => {
            counts[2] += 1;
            ""
        }
    };
    Cell::number(speedup, format!("{speedup:.2}{mark}"))
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

    #[test]
    fn pinillas_table_4_is_a_speedup_matrix_with_a_verdict_per_cell() {
        let mut result = file(StudyTable::IozoneReport);
        // (size, record, host seconds, guest seconds) per repetition.
        for (size, bs, host, in_guest) in [
            (
                64u64 << 10,
                4u64 << 10,
                [0.50, 0.50, 0.51],
                [1.00, 1.01, 1.00],
            ),
            (64 << 10, 8 << 10, [0.50, 0.50, 0.50], [0.50, 0.50, 0.501]),
            (128 << 10, 4 << 10, [0.3, 0.9, 0.5], [0.5, 0.2, 0.9]),
        ] {
            for (machine, seconds) in [(Machine::Host, host), (Machine::Guest, in_guest)] {
                let workload = Workload {
                    op: Op::Write,
                    size,
                    bs,
                    machine,
                    ..example_workload()
                };
                result.points.push(point(workload, &seconds));
            }
        }
        let tables = speedup_tables("f", &result);
        assert_eq!(tables.len(), 1, "the write op only");
        let table = &tables[0];
        assert!(table.title.contains("Pinilla's Table 4"), "{}", table.title);
        // Twice as fast on the base OS: 2.0, different.
        assert_eq!(table.rows[0][1].text, "1.99*");
        assert_eq!(table.rows[0][2].text, "1.00=");
        let noisy = &table.rows[1][1].text;
        assert!(!noisy.ends_with('*') && !noisy.ends_with('='), "{noisy}");
        assert_eq!(table.rows[1][2].text, "", "128 KiB × 8 KiB was not run");
        assert!(
            table.notes[0].contains("* different (1), = within ±5% (1), none inconclusive (1)")
        );
    }
}
