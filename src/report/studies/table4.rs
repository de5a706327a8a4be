//! Table 4 of Radkov et al., FAST 2004 (NFS against iSCSI): sequential and random reads and writes, with completion time, network messages and bytes on the wire.

use super::{INTERVAL_NOTE, mean_pm, medium, seconds};
use crate::compare::{Figure, Metric, Orientation, Verdict, compare_point};
use crate::plan::Op;
use crate::plan::pattern::Pattern;
use crate::record::activity::Activity;
use crate::record::{Point, ResultFile};
use crate::report::text_table::{Cell, TextTable};
use crate::report::units::{bytes, count, digits3};

/// The study's rows: a name, the op's direction and the pattern.
const ROWS: [(&str, bool, Pattern); 4] = [
    ("sequential read", false, Pattern::Seq),
    ("random read", false, Pattern::Random),
    ("sequential write", true, Pattern::Seq),
    ("random write", true, Pattern::Random),
];

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / f64::from(n))
}

/// A kernel client's data requests in the row's direction over a window,
/// and the bytes they carried: the NFS client's READ or WRITE calls (bytes
/// on the wire from mountstats, RPC headers included: received for READ,
/// sent for WRITE), else the reads or writes of the stack's lowest device
/// (the disk that carries the commands). `None` when neither was counted.
pub(crate) fn kernel_requests(activity: &Activity, writes: bool) -> Option<(u64, u64)> {
    if let Some(nfs) = &activity.nfs {
        let name = if writes { "WRITE" } else { "READ" };
        return nfs.operations.iter().find(|o| o.name == name).map(|o| {
            (
                o.ops,
                if writes {
                    o.bytes_sent
                } else {
                    o.bytes_received
                },
            )
        });
    }
    let disk = activity.devices.last()?;
    Some(if writes {
        (disk.writes, disk.write_bytes)
    } else {
        (disk.reads, disk.read_bytes)
    })
}

/// Every NFS procedure a window's kernel client called, by name (`WRITE
/// 2, COMMIT 1, GETATTR 3`), the most called first; `None` without NFS.
fn procedures(activity: &Activity) -> Option<String> {
    let nfs = activity.nfs.as_ref()?;
    let mut called: Vec<_> = nfs.operations.iter().filter(|o| o.ops > 0).collect();
    called.sort_by(|a, b| b.ops.cmp(&a.ops).then(a.name.cmp(&b.name)));
    Some(
        called
            .iter()
            .map(|o| format!("{} {}", o.name, o.ops))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// The columns of each file.
const COLUMNS: usize = 6;

/// One file's figures for one row: time, messages, bytes, bytes per
/// message, requests, payload bytes per request.
fn cells(point: &Point, writes: bool) -> [Cell; COLUMNS] {
    let (time, time_text) = mean_pm(&seconds(point), 1.0);
    // iolab's own network client counts its connections' TCP segments and
    // its calls; a kernel client's traffic is read off the interfaces and
    // its RPCs off mountstats.
    let clients: Vec<_> = point
        .measured()
        .filter_map(|r| r.client_network.as_ref())
        .collect();
    let windows: Vec<&Activity> = point
        .measured()
        .filter_map(|r| r.activity.as_ref())
        .collect();
    let traffic: Vec<(u64, u64)> = point.measured().filter_map(|r| r.on_the_wire()).collect();
    let messages = mean(traffic.iter().map(|&(m, _)| m as f64));
    let on_wire = mean(traffic.iter().map(|&(_, b)| b as f64));
    let (requests, payload) = if clients.is_empty() {
        // A kernel client: the NFS client's READ or WRITE calls, else the
        // commands of the device at the bottom of the stack (an iSCSI disk's
        // SCSI commands, a local disk's).
        let data: Vec<(u64, u64)> = windows
            .iter()
            .filter_map(|a| kernel_requests(a, writes))
            .collect();
        (
            mean(data.iter().map(|&(n, _)| n as f64)),
            mean(data.iter().map(|&(_, b)| b as f64)),
        )
    } else {
        (
            mean(
                clients
                    .iter()
                    .map(|c| c.requests.iter().map(|r| r.count).sum::<u64>() as f64),
            ),
            mean(
                clients
                    .iter()
                    .map(|c| c.requests.iter().map(|r| r.bytes).sum::<u64>() as f64),
            ),
        )
    };
    let per_request = requests
        .zip(payload)
        .and_then(|(n, b)| (n > 0.0).then(|| b / n));
    let per_message = messages
        .zip(on_wire)
        .and_then(|(m, b)| (m > 0.0).then(|| b / m));
    [
        time.map_or_else(Cell::empty, |t| Cell::number(t, time_text)),
        messages.map_or_else(|| Cell::text("-"), |m| Cell::number(m, whole_count(m))),
        on_wire.map_or_else(
            || Cell::text("-"),
            |b| Cell::number(b, bytes(b.round() as u64)),
        ),
        per_message.map_or_else(
            || Cell::text("-"),
            |b| Cell::number(b, bytes(b.round() as u64)),
        ),
        requests.map_or_else(|| Cell::text("-"), |r| Cell::number(r, whole_count(r))),
        per_request.map_or_else(
            || Cell::text("-"),
            |b| Cell::number(b, bytes(b.round() as u64)),
        ),
    ]
}

/// Table 4, with a column group per file (the study had NFS v3 and iSCSI).
pub fn table(files: &[(&str, &ResultFile)]) -> Option<TextTable> {
    let size = files
        .iter()
        .flat_map(|(_, f)| f.points.first())
        .map(|p| (p.workload.size, p.workload.bs))
        .next()?;
    let mut header = vec!["".to_string()];
    for (name, file) in files {
        let what = if files.len() > 1 {
            format!("{}: ", medium(name, file))
        } else {
            String::new()
        };
        for column in [
            "completion time (s)",
            "network messages",
            "bytes on the wire",
            "bytes per message",
            "requests (NFS RPCs or SCSI commands)",
            "payload per request",
        ] {
            header.push(format!("{what}{column}"));
        }
    }
    let single = files
        .first()
        .filter(|_| files.len() == 1)
        .map(|(name, file)| format!(" — {}", medium(name, file)));
    let mut table = TextTable {
        title: format!(
            "Radkov et al., FAST 2004, Table 4: sequential and random reads and writes of a {} file in {} chunks{}",
            crate::plan::units::format_size(size.0),
            crate::plan::units::format_size(size.1),
            single.unwrap_or_default()
        ),
        header,
        rows: Vec::new(),
        notes: Vec::new(),
        keys: 1,
    };
    for (row_name, writes, pattern) in ROWS {
        let mut row = vec![Cell::text(row_name)];
        let mut any = false;
        for (_, file) in files {
            match row_point(file, writes, pattern) {
                Some(point) => {
                    any = true;
                    row.extend(cells(point, writes));
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
    let written_back = files.iter().any(|(_, file)| {
        file.points.iter().flat_map(|p| p.measured()).any(|r| {
            r.activity
                .as_ref()
                .is_some_and(|a| a.write_back_ns.is_some())
        })
    });
    table.notes.push(
        "completion time: the application's, from the first I/O to the last (no sync after writes, \
         as the study timed them); random = a permutation of the file's blocks; reads from a cold cache, \
         writes to a new file (on an iSCSI LUN, to the same region of the LUN)."
            .into(),
    );
    table.notes.push(format!(
        "network messages and bytes: with iolab's own clients (--engine nfs, iscsi), the TCP segments \
         both ways and the payload bytes of their connections (TCP_INFO); otherwise packets and bytes \
         on every interface during the timed I/O{}, a loopback packet counted once, including any other \
         traffic of the machine in that window.",
        if written_back {
            " and, in a guest measuring through its kernel's stacks, the untimed write-back of what \
             the writes left in its cache (an fsync after the timed region: the study's byte counts \
             include every byte written)"
        } else {
            ""
        }
    ));
    table.notes.push(
        "requests: the NFS calls or SCSI commands iolab's client made (--engine nfs, iscsi; its PDUs \
         are in --detail); with a kernel client, its NFS READ or WRITE calls (/proc/self/mountstats; \
         payload per request is then their bytes on the wire, RPC headers included), else the reads or \
         writes of the lowest device under the file system (an iSCSI disk's SCSI commands); payload per \
         request is the data they moved over their number (the study's \"mean request size\"); `-` \
         where it is not known (sshfs's SFTP requests are not counted)."
            .into(),
    );
    // The kernel NFS client's other calls, which the requests column leaves out.
    for (name, file) in files {
        let mut rows = Vec::new();
        for (row_name, writes, pattern) in ROWS {
            let called = row_point(file, writes, pattern)
                .and_then(|p| p.measured().find_map(|r| r.activity.as_ref()))
                .and_then(procedures);
            if let Some(called) = called.filter(|c| !c.is_empty()) {
                rows.push(format!("{row_name}: {called}"));
            }
        }
        if !rows.is_empty() {
            table.notes.push(format!(
                "NFS calls of {} (first repetition): {}.",
                medium(name, file),
                rows.join("; ")
            ));
        }
    }
    table.notes.push(INTERVAL_NOTE.into());
    Some(table)
}

/// The point of one of the study's rows: its direction and pattern (a
/// write to a new file, not a rewrite).
fn row_point(file: &ResultFile, writes: bool, pattern: Pattern) -> Option<&Point> {
    file.points.iter().find(|p| {
        p.workload.op.writes() == writes
            && p.workload.pattern == pattern
            && (p.workload.op == Op::Write || !writes)
    })
}

/// What a column group measured, as the study's comparison sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Stack {
    /// NFS mounted `sync` (a WRITE per page, as the 2004 client wrote through).
    NfsSync,
    /// NFS otherwise: a kernel client mounted async, or iolab's own client.
    Nfs,
    /// iSCSI, through a kernel initiator with a file system or iolab's client.
    Iscsi,
    /// Anything else (a local file system, sshfs).
    Other,
}

fn stack(name: &str, file: &ResultFile) -> Stack {
    let in_guest = file
        .points
        .iter()
        .all(|p| p.workload.machine == crate::plan::Machine::Guest);
    let mount = file
        .guest
        .as_ref()
        .filter(|_| in_guest)
        .and_then(|g| Some((g.spec.mount.as_deref()?, g.spec.nfs)));
    let (iscsi, nfs, sync) = match mount {
        Some((url, mode)) => (
            url.starts_with("iscsi:"),
            url.starts_with("nfs:"),
            mode == Some(crate::plan::guest::NfsMountMode::Sync),
        ),
        None => {
            let words = medium(name, file).to_lowercase();
            (
                words.contains("iscsi"),
                words.contains("nfs"),
                words.contains("mounted sync"),
            )
        }
    };
    match (iscsi, nfs, sync) {
        (true, _, _) => Stack::Iscsi,
        (false, true, true) => Stack::NfsSync,
        (false, true, false) => Stack::Nfs,
        _ => Stack::Other,
    }
}

/// The study's comparisons: every pair of column groups, iSCSI against NFS
/// first (against NFS mounted `sync` first of all: the study's own pair),
/// each as other / base with NFS the base where one side is NFS.
fn pairs(files: &[(&str, &ResultFile)]) -> Vec<(usize, usize)> {
    let stacks: Vec<Stack> = files.iter().map(|(n, f)| stack(n, f)).collect();
    let mut pairs = Vec::new();
    for a in 0..files.len() {
        for b in a + 1..files.len() {
            // NFS is the base, as the study set iSCSI against it.
            let (base, other) = if stacks[b] < stacks[a] {
                (b, a)
            } else {
                (a, b)
            };
            pairs.push((base, other));
        }
    }
    let rank = |&(base, other): &(usize, usize)| {
        let study_pair =
            stacks[other] == Stack::Iscsi && matches!(stacks[base], Stack::NfsSync | Stack::Nfs);
        (!study_pair, stacks[base], stacks[other], base, other)
    };
    pairs.sort_by_key(rank);
    pairs
}

/// A ratio, its interval and the interval's verdict in words: `0.0432
/// [0.0101–0.185] faster`.
fn judged(matched: &Option<crate::compare::Matched>, figure: Figure) -> Cell {
    let Some(m) = matched else {
        return Cell::text("-");
    };
    let verdict = match (m.verdict, figure) {
        (Verdict::TooFewRepetitions, _) => "one repetition: no verdict",
        (Verdict::NoSignificantDifference, _) => "inconclusive",
        (Verdict::Better, Figure::Time) => "faster",
        (Verdict::Worse, Figure::Time) => "slower",
        (Verdict::Better, _) => "fewer",
        (Verdict::Worse, _) => "more",
    };
    let interval =
        crate::report::compare::interval_text(m).map_or_else(String::new, |i| format!(" [{i}]"));
    Cell::number(m.ratio, format!("{}{interval} {verdict}", digits3(m.ratio)))
}

/// Table 4's comparisons, a row per pair of stacks and study row: the
/// ratio other / base of the completion time, the messages and the bytes,
/// each with its interval and verdict — the one estimator `iolab compare`
/// uses (paired by round where the stacks alternated). `None` with one stack.
pub fn verdicts(files: &[(&str, &ResultFile)], alpha: f64) -> Option<TextTable> {
    let pairs = pairs(files);
    let mut table = TextTable::new(
        "Radkov et al., FAST 2004, Table 4: each pair of stacks, other / base".to_string(),
        &[
            "other / base",
            "",
            "completion time",
            "network messages",
            "bytes on the wire",
        ],
    );
    let mut paired_rounds = None;
    for (base, other) in pairs {
        let pair = format!(
            "{} / {}",
            medium(files[other].0, files[other].1),
            medium(files[base].0, files[base].1)
        );
        for (row_name, writes, pattern) in ROWS {
            let (Some(a), Some(b)) = (
                row_point(files[base].1, writes, pattern),
                row_point(files[other].1, writes, pattern),
            ) else {
                continue;
            };
            let mut row = vec![Cell::text(pair.clone()), Cell::text(row_name)];
            for figure in [Figure::Time, Figure::Messages, Figure::WireBytes] {
                let matched = compare_point(
                    a,
                    b,
                    &Metric::from(figure),
                    alpha,
                    Orientation::OtherOverBase,
                );
                paired_rounds = paired_rounds.or(matched.as_ref().and_then(|m| m.paired_rounds));
                row.push(judged(&matched, figure));
            }
            table.rows.push(row);
        }
    }
    if table.rows.is_empty() {
        return None;
    }
    table.notes.push(format!(
        "other / base of each figure, with its {:.0}% interval and the verdict \
         that interval gives (faster or slower, fewer or more; inconclusive where it holds 1 or is \
         unbounded): {}. iSCSI is set against NFS first, against NFS mounted sync above all, as the \
         study compared them; then every other pair.",
        (1.0 - alpha) * 100.0,
        match paired_rounds {
            Some(rounds) => format!(
                "the geometric mean of the {rounds} rounds' ratios with a t interval of their \
                 logarithms, the stacks having alternated by round"
            ),
            None => "the ratio of the means with Fieller's interval (no two rounds in which both \
                     stacks ran, to pair)"
                .to_string(),
        }
    ));
    table.notes.push(
        "The same figures as `iolab compare FILE --by guest-config --metric time` (or `messages`, \
         `wire-bytes`) for the same pair."
            .into(),
    );
    Some(table)
}

/// A count as printed: a whole one (a mean of equal counts, or of one
/// window) as such, since the counters are exact and `32.0` beside `259`
/// reads as a measurement of another kind; a mean between counts with
/// three significant digits.
fn whole_count(n: f64) -> String {
    if n.fract() == 0.0 && n < 1e4 {
        format!("{n:.0}")
    } else {
        count(n)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{file, point};

    #[test]
    fn whole_counts_print_as_counts() {
        assert_eq!(whole_count(32.0), "32");
        assert_eq!(whole_count(259.0), "259");
        assert_eq!(whole_count(32.5), "32.5");
        assert_eq!(whole_count(22_061.0), "22.1k");
    }
    use super::*;
    use crate::plan::study::StudyTable;
    use crate::plan::{Workload, example_workload};
    use crate::record::activity::InterfaceActivity;

    fn interface(name: &str, packets: u64, bytes: u64) -> InterfaceActivity {
        InterfaceActivity {
            name: name.into(),
            rx_bytes: bytes,
            rx_packets: packets,
            tx_bytes: bytes,
            tx_packets: packets,
            errors: 0,
            dropped: 0,
        }
    }

    #[test]
    fn rows_are_the_studys_and_loopback_packets_count_once() {
        let mut result = file(StudyTable::Table4);
        for (op, pattern) in [
            (Op::Read, Pattern::Seq),
            (Op::Read, Pattern::Random),
            (Op::Write, Pattern::Seq),
            (Op::Write, Pattern::Random),
        ] {
            let workload = Workload {
                op,
                pattern,
                bs: 4096,
                size: 128 << 20,
                ..example_workload()
            };
            let mut point = point(workload, &[2.0]);
            point.repetitions[0].activity = Some(Activity {
                elapsed_ns: 2_000_000_000,
                devices: Vec::new(),
                network: vec![interface("lo", 1000, 1_000_000), interface("eth0", 10, 500)],
                cpu: None,
                nfs: None,
                write_back_ns: None,
                dirty: None,
            });
            result.points.push(point);
        }
        let table = table(&[("sshfs", &result)]).expect("a table");
        let names: Vec<&str> = table.rows.iter().map(|r| r[0].text.as_str()).collect();
        assert_eq!(
            names,
            [
                "sequential read",
                "random read",
                "sequential write",
                "random write"
            ]
        );
        let row = &table.rows[1];
        assert_eq!(row[1].value, Some(2.0));
        // lo: 1000 once; eth0: 10 received + 10 sent.
        assert_eq!(row[2].value, Some(1020.0));
        assert_eq!(row[3].value, Some(1_001_000.0));
        assert_eq!(row[5].text, "-");
        assert!(
            table.title.contains("128MiB file in 4KiB chunks"),
            "{}",
            table.title
        );
    }

    /// A Table 4 file of one stack whose every row took `seconds` per
    /// round and sent `messages` packets on eth0 each time.
    fn stack_file(filesystem: &str, seconds: &[f64], messages: u64) -> ResultFile {
        let mut result = file(StudyTable::Table4);
        for (op, pattern) in [(Op::Read, Pattern::Seq), (Op::Write, Pattern::Random)] {
            let workload = Workload {
                op,
                pattern,
                ..example_workload()
            };
            let mut point = point(workload, seconds);
            point.target.filesystem = filesystem.into();
            for (round, repetition) in point.repetitions.iter_mut().enumerate() {
                repetition.round = Some(round as u32 + 1);
                repetition.activity = Some(Activity {
                    elapsed_ns: 1,
                    devices: Vec::new(),
                    network: vec![interface("eth0", messages / 2, messages * 100)],
                    cpu: None,
                    nfs: None,
                    write_back_ns: None,
                    dirty: None,
                });
            }
            result.points.push(point);
        }
        result
    }

    /// The study's pair comes first, NFS the base, and each figure has the
    /// verdict of its own interval: iSCSI faster and with fewer messages
    /// than NFS mounted sync; a pair whose rounds disagree is inconclusive.
    #[test]
    fn verdicts_set_iscsi_against_nfs_sync_first_in_time_messages_and_bytes() {
        let local = stack_file("ext4", &[1.0, 3.0, 0.5], 40);
        let sync = stack_file("NFS v3, mounted sync", &[4.0, 4.1, 3.9], 200);
        let iscsi = stack_file("iSCSI (libiscsi)", &[1.0, 1.02, 0.98], 100);
        let files = [("local", &local), ("sync", &sync), ("iscsi", &iscsi)];
        let table = verdicts(&files, 0.05).expect("three stacks, three pairs");
        assert_eq!(table.rows.len(), 3 * 2, "a row per pair and study row");
        let first = &table.rows[0];
        assert!(
            first[0].text.starts_with("iSCSI") && first[0].text.ends_with("mounted sync"),
            "{first:?}"
        );
        assert!((first[2].value.unwrap() - 0.25).abs() < 0.01, "{first:?}");
        assert!(first[2].text.ends_with("faster"), "{first:?}");
        assert!(first[3].text.starts_with("0.5") && first[3].text.ends_with("fewer"));
        assert!(first[4].text.ends_with("fewer"), "{first:?}");
        // ext4's rounds took 1, 3 and 0.5 s: against it nothing is decided in time.
        let local_pair = table
            .rows
            .iter()
            .find(|r| r[0].text == "ext4 / iSCSI (libiscsi)")
            .expect("ext4 against iSCSI");
        assert!(
            local_pair[2].text.ends_with("inconclusive"),
            "{local_pair:?}"
        );
        assert!(table.notes[0].contains("3 rounds"), "{}", table.notes[0]);
        assert!(verdicts(&files[..1], 0.05).is_none(), "one stack, no pair");
    }

    #[test]
    fn a_kernel_clients_requests_are_its_data_calls_or_its_disks_commands() {
        use crate::record::activity::{NfsActivity, NfsOperation};
        let call = |name: &str, ops: u64, sent: u64, received: u64| NfsOperation {
            name: name.into(),
            ops,
            transmissions: ops,
            timeouts: 0,
            bytes_sent: sent,
            bytes_received: received,
            rtt_mean_ns: None,
            execute_mean_ns: None,
            errors: 0,
        };
        let nfs = Activity {
            elapsed_ns: 1,
            devices: Vec::new(),
            network: Vec::new(),
            cpu: None,
            nfs: Some(NfsActivity {
                mount_point: "/iolab-disk".into(),
                normal_read_bytes: 0,
                normal_write_bytes: 0,
                direct_read_bytes: 0,
                direct_write_bytes: 0,
                server_read_bytes: 0,
                server_write_bytes: 0,
                operations: vec![
                    call("GETATTR", 3, 300, 300),
                    call("WRITE", 256, 256 * 4216, 256 * 160),
                    call("READ", 11, 11 * 120, 1 << 20),
                ],
                transports: Vec::new(),
            }),
            write_back_ns: Some(5),
            dirty: None,
        };
        // A WRITE's bytes are those sent, a READ's those received; GETATTR is left out.
        assert_eq!(kernel_requests(&nfs, true), Some((256, 256 * 4216)));
        assert_eq!(kernel_requests(&nfs, false), Some((11, 1 << 20)));
        assert_eq!(procedures(&nfs).unwrap(), "WRITE 256, READ 11, GETATTR 3");
        let none = Activity { nfs: None, ..nfs };
        assert_eq!(kernel_requests(&none, true), None, "no device, no NFS");
    }
}
