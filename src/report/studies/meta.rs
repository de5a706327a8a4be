//! The metadata half of Radkov et al., FAST 2004 (NFS against iSCSI): per operation, its time and the messages it cost, one column group per medium (an NFS export through iolab's client, a local file system, a kernel iSCSI disk in a guest).

use super::{medium, table4::kernel_requests};
use crate::plan::Op;
use crate::record::{Point, ResultFile};
use crate::report::text_table::{Cell, TextTable};
use crate::report::units::{count, latency, significant};

/// The operations, in mdtest's order, as the table names them.
const ROWS: [(Op, &str); 7] = [
    (Op::Mkdir, "mkdir"),
    (Op::Rmdir, "rmdir"),
    (Op::Create, "create"),
    (Op::Stat, "stat"),
    (Op::Readdir, "readdir (per directory)"),
    (Op::Rename, "rename"),
    (Op::Delete, "delete"),
];

/// The columns of each file.
const COLUMNS: usize = 4;

/// The mean of `values`, when there are any.
fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

/// One file's figures for one operation: operations per second, mean
/// time per operation, messages per operation, and the procedures.
fn cells(point: &Point) -> [Cell; COLUMNS] {
    let Some(summary) = &point.summary else {
        return std::array::from_fn(|_| Cell::text("-"));
    };
    let ops = summary.iops.mean;
    let per_op = summary.latency_ns.as_ref().map(|l| l.mean);
    // iolab's NFS client: its calls by procedure, per operation; a kernel
    // client or a local disk: the lowest device's commands per operation.
    let items = mean(point.measured().map(|r| r.ops as f64)).unwrap_or(0.0);
    let clients: Vec<_> = point
        .measured()
        .filter_map(|r| r.client_network.as_ref())
        .collect();
    let (messages, procedures) = if clients.is_empty() {
        let commands = mean(point.measured().filter_map(|r| {
            let activity = r.activity.as_ref()?;
            let (reads, _) = kernel_requests(activity, false)?;
            let (writes, _) = kernel_requests(activity, true)?;
            Some((reads + writes) as f64)
        }));
        (
            commands.map(|c| c / items.max(1.0)),
            "device commands".to_string(),
        )
    } else {
        let mut named: Vec<(String, f64)> = Vec::new();
        for client in &clients {
            for request in &client.requests {
                match named.iter_mut().find(|(name, _)| *name == request.name) {
                    Some((_, sum)) => *sum += request.count as f64,
                    None => named.push((request.name.clone(), request.count as f64)),
                }
            }
        }
        let runs = clients.len() as f64;
        let total: f64 = named.iter().map(|(_, n)| n).sum::<f64>() / runs;
        named.sort_by(|a, b| b.1.total_cmp(&a.1));
        let text = named
            .iter()
            .map(|(name, n)| format!("{name} {}", significant(n / runs / items.max(1.0))))
            .collect::<Vec<_>>()
            .join(", ");
        (Some(total / items.max(1.0)), text)
    };
    [
        Cell::number(ops, count(ops)),
        per_op.map_or_else(|| Cell::text("-"), |ns| Cell::number(ns, latency(ns))),
        messages.map_or_else(|| Cell::text("-"), |m| Cell::number(m, significant(m))),
        Cell::text(procedures),
    ]
}

/// The table of `files` (name, result), one column group per file.
pub fn table(files: &[(&str, &ResultFile)]) -> Option<TextTable> {
    let mut header = vec!["operation".to_string()];
    for (name, file) in files {
        let what = if files.len() > 1 {
            format!("{}: ", medium(name, file))
        } else {
            String::new()
        };
        for column in [
            "ops/s",
            "time per op",
            "requests per op",
            "requests per op, by kind",
        ] {
            header.push(format!("{what}{column}"));
        }
    }
    let single = files
        .first()
        .filter(|_| files.len() == 1)
        .map(|(name, file)| format!(" — {}", medium(name, file)));
    let items = files
        .iter()
        .flat_map(|(_, f)| f.points.first())
        .find_map(|p| p.workload.items)?;
    let mut table = TextTable {
        title: format!(
            "Radkov et al., FAST 2004, the metadata half: per operation on {items} items per directory, its time and the requests it cost{}",
            single.unwrap_or_default()
        ),
        header,
        rows: Vec::new(),
        notes: Vec::new(),
        keys: 1,
    };
    for (op, row_name) in ROWS {
        let mut row = vec![Cell::text(row_name)];
        let mut any = false;
        for (_, file) in files {
            match file
                .points
                .iter()
                .find(|p| p.workload.op == op && p.workload.work() == crate::plan::Work::Tree)
            {
                Some(point) => {
                    any = true;
                    row.extend(cells(point));
                }
                None => row.extend(std::iter::repeat_with(Cell::empty).take(COLUMNS)),
            }
        }
        if any {
            table.rows.push(row);
        }
    }
    if table.rows.is_empty() {
        return None;
    }
    table.notes.push(
        "the study: NFS and iSCSI are comparable for data, while iSCSI outperforms NFS by a factor of two or \
         more on metadata-intensive work, since every NFS operation is a message to the server and iSCSI's \
         client file system keeps its metadata local, writing it back later."
            .into(),
    );
    table.notes.push(
        "requests per op: with iolab's NFS client (--target nfs://…), its calls per operation counted from \
         the wire by procedure (each item one procedure on its directory's file handle; each directory a job \
         enters looked up once); on a local file system or a kernel iSCSI disk, the commands of the lowest device under it \
         in the timed region per operation (0 where the changes stayed in memory); `-` where not counted."
            .into(),
    );
    Some(table)
}
