//! The arguments of `iolab replay` and `iolab characterize`: the trace, which of its I/Os, where they go and how.

use super::{duration, interval, positive_duration};
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// The trace both commands read, its format and which of its I/Os.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The trace: fio iolog v2/v3, MSR Cambridge CSV, SPC CSV, blktrace's
    /// binary events (one CPU's file, or `blkparse -d`'s merge), or
    /// blkparse's text (also the kernel's blk tracer in tracefs).
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,
    /// The trace's format, when its first bytes do not say.
    #[arg(long, value_enum)]
    pub format: Option<crate::trace::Format>,
    /// Which of the trace's I/Os.
    #[command(flatten)]
    pub select: TraceSelectArgs,
}

/// Arguments of `iolab replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The trace.
    #[command(flatten)]
    pub source: TraceArgs,
    /// A file iolab creates here, sized to the trace (its furthest byte,
    /// or --wrap), laid out and evicted before the replay, removed after.
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath, conflicts_with = "file")]
    pub dir: Option<PathBuf>,
    /// Your file or block device, read only: a trace that writes is
    /// replayed onto --dir, or onto a device with --destroy-data.
    #[arg(long, value_name = "FILE", conflicts_with = "target")]
    pub file: Option<PathBuf>,
    /// Through iolab's own clients, no mount nor kernel initiator: an NFS
    /// export's directory (nfs://HOST/EXPORT/DIR, libnfs), where a file is
    /// created, sized and laid out as with --dir and removed by identity
    /// after; or an iSCSI LUN (iscsi://HOST:PORT/IQN/LUN, the port optional, libiscsi), read
    /// as it is, written only with --destroy-data repeating the URL.
    #[arg(long, value_name = "URL", conflicts_with = "dir")]
    pub target: Option<String>,
    /// Let a trace that writes write the block device --file names, or the
    /// iSCSI LUN --target names: repeat its /dev/NAME or URL exactly
    /// (refused while anything lives on it).
    #[arg(long, value_name = "/dev/NAME or URL")]
    pub destroy_data: Option<PathBuf>,
    /// uring (the default) or libaio (up to --depth in flight), psync (one
    /// at a time), null (no I/O: the replayer's own timing), or a network
    /// client (with --target, its default); the engines that issue I/O by
    /// file position, a mapping or a stream do not replay a trace.
    #[arg(long, value_enum)]
    pub engine: Option<crate::plan::EngineKind>,
    /// The most I/Os in flight (the trace's order is kept whatever the cap).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub depth: u64,
    /// The trace's times divided by this: 2 replays it twice as fast.
    #[arg(long, default_value_t = 1.0, value_parser = speed, conflicts_with = "afap", allow_negative_numbers = true)]
    pub speed: f64,
    /// As fast as possible: each I/O as soon as the cap allows, in order.
    #[arg(long)]
    pub afap: bool,
    /// Through the page cache (the default is O_DIRECT: a block trace's
    /// I/Os went to the device).
    #[arg(long)]
    pub buffered: bool,
    /// Wrap the offsets into this many bytes (each I/O kept whole).
    #[arg(long, value_name = "SIZE", value_parser = positive_size, conflicts_with = "scale")]
    pub wrap: Option<u64>,
    /// Scale every offset into this many bytes: each at its place relative
    /// to the trace's furthest byte (each I/O kept whole).
    #[arg(long, value_name = "SIZE", value_parser = positive_size)]
    pub scale: Option<u64>,
    /// The interval of the per-interval comparison with the trace.
    #[arg(long, default_value = "1s", value_parser = interval)]
    pub interval: Duration,
    /// Keep the created file.
    #[arg(long)]
    pub keep: bool,
    /// Replay inside a QEMU guest iolab boots (KEY=VALUE,… as `--guest` of
    /// `run`; '' for the defaults): onto a file in its own disk, an image
    /// iolab makes in --dir, or in what `mount=` mounts through the guest's
    /// kernel; the guest's own page cache, scheduler and clock.
    #[arg(long, value_name = "KEY=VALUE,…", conflicts_with_all = ["file", "target", "keep"])]
    pub guest: Option<String>,
    /// Write the replay's record (iolab.replay/1 JSON) here; without it,
    /// the record is kept in iolab-results/ as run keeps its result.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Arguments of `iolab characterize`.
#[derive(Debug, Args)]
pub struct CharacterizeArgs {
    /// The trace.
    #[command(flatten)]
    pub source: TraceArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A window of a trace's time and the kinds of I/O taken from it.
#[derive(Debug, Args)]
pub struct TraceSelectArgs {
    /// Start this long after the trace's first I/O (times then count from here).
    #[arg(long, value_name = "DURATION", value_parser = duration)]
    pub from: Option<Duration>,
    /// End this long after the trace's first I/O.
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub to: Option<Duration>,
    /// Only these kinds: read, write, flush, trim (comma-separated).
    #[arg(long, value_name = "KINDS", value_delimiter = ',', value_parser = clap::builder::PossibleValuesParser::new(["read", "write", "flush", "trim"]))]
    pub only: Vec<String>,
}

fn speed(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(speed) if speed.is_finite() && speed > 0.0 && speed <= 1e6 => Ok(speed),
        _ => Err(format!(
            "'{text}' is not a speed above 0 (1 = as recorded, 2 = twice as fast)"
        )),
    }
}

fn positive_size(text: &str) -> Result<u64, String> {
    match crate::plan::units::parse_size(text)? {
        0 => Err("must be more than 0 bytes".to_string()),
        bytes => Ok(bytes),
    }
}

impl ReplayArgs {
    /// The length the trace's offsets are fitted into (`--wrap` or `--scale`).
    pub fn fitted_length(&self) -> Option<u64> {
        self.wrap.or(self.scale)
    }
}
