//! What a trace is like — its mix, sizes, sequentiality, arrivals and depth — and the iolab workload of the same shape (as fio's `t/btrace2fio.c` derives a job from a trace).

use super::{Format, IoKind, Selection, TraceError, TraceReader, TraceSummary};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::Path;

/// The size classes of the histogram: powers of two from 512 bytes to 1 MiB,
/// the last holding every larger I/O.
pub const SIZE_CLASSES: [u64; 12] = [
    512,
    1 << 10,
    2 << 10,
    4 << 10,
    8 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    128 << 10,
    256 << 10,
    512 << 10,
    1 << 20,
];

/// What a trace is like.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Character {
    /// The trace's format.
    pub format: Format,
    /// Counts, bytes, extent, duration.
    pub summary: TraceSummary,
    /// Data I/Os (reads and writes) per size class: I/Os of at most
    /// [`SIZE_CLASSES`]`[i]` bytes and more than the class before.
    pub sizes: Vec<(u64, u64)>,
    /// Reads and writes that start where the data I/O before them ended, percent.
    pub sequential_pct: f64,
    /// Gaps between consecutive issues, ns: mean, median, 99th percentile, largest.
    pub interarrival_ns: Option<[u64; 4]>,
    /// The mean rate over the trace, I/Os per second.
    pub mean_iops: f64,
    /// I/Os in flight as recorded (from each I/O's response time), averaged
    /// over the trace's time, and the most at once; `None` when the trace
    /// records no response times.
    pub recorded_depth: Option<(f64, u64)>,
    /// The workload of the same shape, as `iolab run` flags.
    pub iolab_flags: Vec<String>,
}

/// The traces this process has read whole, each as it was then (its
/// identity in the summary): every later replay of one is of the trace
/// its first read saw, and a replay refuses one changed since.
static READ: std::sync::Mutex<Vec<(std::path::PathBuf, Character)>> =
    std::sync::Mutex::new(Vec::new());

/// The whole trace at `path` characterized, once per process (the
/// points of `run`, `sweep` and study files that replay it).
pub fn read_once(path: &Path) -> Result<Character, TraceError> {
    let mut read = READ
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, character)) = read.iter().find(|(seen, _)| seen == path) {
        return Ok(character.clone());
    }
    let character = characterize(path, None, &Selection::default())?;
    read.push((path.to_path_buf(), character.clone()));
    Ok(character)
}

/// Reads the trace at `path` (the part `selection` takes) and says what it is like.
pub fn characterize(
    path: &Path,
    format: Option<Format>,
    selection: &Selection,
) -> Result<Character, TraceError> {
    let (format, summary) = super::scan(path, format, selection)?;
    let mut reader =
        TraceReader::open_same(path, format, summary.identity.as_ref())?.selecting(selection);
    let mut sizes = vec![0u64; SIZE_CLASSES.len()];
    let (mut sequential, mut data_ios) = (0u64, 0u64);
    let mut last_end: Option<u64> = None;
    let mut gaps = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 1 << 50, 3)
        .expect("1 ns to 13 days, 3 digits");
    let mut last_at: Option<u64> = None;
    let (mut gap_sum, mut gaps_n) = (0u128, 0u64);
    // In flight as recorded: completion times of the I/Os still out.
    let mut out: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
    let (mut depth_area, mut depth_max, mut last_event) = (0u128, 0u64, 0u64);
    while let Some(io) = reader.next_io()? {
        if let Some(previous) = last_at {
            let gap = io.at_ns - previous;
            gaps.saturating_record(gap);
            gap_sum += u128::from(gap);
            gaps_n += 1;
        }
        last_at = Some(io.at_ns);
        if matches!(io.kind, IoKind::Read | IoKind::Write) {
            let class = SIZE_CLASSES
                .iter()
                .position(|&c| io.len <= c)
                .unwrap_or(SIZE_CLASSES.len() - 1);
            sizes[class] += 1;
            data_ios += 1;
            if last_end == Some(io.offset) {
                sequential += 1;
            }
            last_end = Some(io.offset + io.len);
        }
        if let (true, Some(response)) = (summary.has_response, io.response_ns) {
            while let Some(&Reverse(done)) = out.peek() {
                if done > io.at_ns {
                    break;
                }
                depth_area += u128::from(done - last_event) * out.len() as u128;
                last_event = done;
                out.pop();
            }
            depth_area += u128::from(io.at_ns - last_event) * out.len() as u128;
            last_event = io.at_ns;
            out.push(Reverse(io.at_ns + response));
            depth_max = depth_max.max(out.len() as u64);
        }
    }
    let mut end = last_event;
    while let Some(Reverse(done)) = out.pop() {
        depth_area += u128::from(done - end) * (out.len() as u128 + 1);
        end = done;
    }
    // From the response times, or the device's dispatches and completions
    // (a window of a block trace has no depth: its first completions'
    // dispatches lie outside it).
    let recorded_depth = (summary.has_response && end > 0)
        .then(|| (depth_area as f64 / end as f64, depth_max))
        .or_else(|| reader.device_depth().filter(|_| selection.is_all()));
    let interarrival_ns = (gaps_n > 0).then(|| {
        [
            (gap_sum / u128::from(gaps_n)) as u64,
            gaps.value_at_quantile(0.5),
            gaps.value_at_quantile(0.99),
            gaps.max(),
        ]
    });
    let total = summary.total_ios();
    let mean_iops = total as f64 / (summary.duration_ns.max(1) as f64 / 1e9);
    let sequential_pct = if data_ios == 0 {
        0.0
    } else {
        100.0 * sequential as f64 / data_ios as f64
    };
    let sizes: Vec<(u64, u64)> = SIZE_CLASSES.iter().copied().zip(sizes).collect();
    let iolab_flags = flags_of(&summary, &sizes, sequential_pct, mean_iops, recorded_depth);
    Ok(Character {
        format,
        summary,
        sizes,
        sequential_pct,
        interarrival_ns,
        mean_iops,
        recorded_depth,
        iolab_flags,
    })
}

/// The `iolab run` flags of a workload shaped like the trace: its op mix,
/// block sizes (whole percents, the rarest classes folded into the most
/// common), pattern, footprint, mean rate as Poisson arrivals, and depth.
fn flags_of(
    summary: &TraceSummary,
    sizes: &[(u64, u64)],
    sequential_pct: f64,
    mean_iops: f64,
    recorded_depth: Option<(f64, u64)>,
) -> Vec<String> {
    let (reads, writes) = (summary.ios[0], summary.ios[1]);
    let data = reads + writes;
    let mut flags = Vec::new();
    if data == 0 {
        return flags;
    }
    let read_pct = (100 * reads + data / 2) / data;
    match read_pct {
        100 => flags.extend(["--op".into(), "read".into()]),
        0 => flags.extend(["--op".into(), "rewrite".into()]),
        pct => flags.extend(["--mix".into(), format!("read={pct},write={}", 100 - pct)]),
    }
    let mut shares: Vec<(u64, u64)> = sizes
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|&(size, n)| (size, (100 * n + data / 2) / data))
        .filter(|(_, pct)| *pct > 0)
        .collect();
    let sum: u64 = shares.iter().map(|(_, p)| p).sum();
    if let Some(largest) = shares.iter_mut().max_by_key(|(_, p)| *p) {
        largest.1 = (largest.1 + 100).saturating_sub(sum);
    }
    match shares.as_slice() {
        [] => {}
        [(size, _)] => flags.extend(["--bs".into(), crate::plan::units::format_size(*size)]),
        several => flags.extend([
            "--bssplit".into(),
            several
                .iter()
                .map(|(size, pct)| format!("{}={pct}", crate::plan::units::format_size(*size)))
                .collect::<Vec<_>>()
                .join(","),
        ]),
    }
    let pattern = if sequential_pct >= 50.0 {
        "seq"
    } else {
        "random"
    };
    flags.extend(["--pattern".into(), pattern.into()]);
    let footprint = summary.end.div_ceil(1 << 20).max(1) << 20;
    flags.extend(["--size".into(), crate::plan::units::format_size(footprint)]);
    if summary.duration_ns > 0 {
        flags.extend([
            "--rate-iops".into(),
            format!("{}", mean_iops.round().max(1.0) as u64),
            "--arrivals".into(),
            "poisson".into(),
            "--runtime".into(),
            format!(
                "{}s",
                (summary.duration_ns as f64 / 1e9).ceil().max(1.0) as u64
            ),
        ]);
    }
    if let Some((mean, _)) = recorded_depth {
        let depth = mean.round().max(1.0) as u64;
        if depth > 1 {
            flags.extend([
                "--engine".into(),
                "uring".into(),
                "--iodepth".into(),
                depth.to_string(),
                "--direct".into(),
            ]);
        }
    }
    flags
}
