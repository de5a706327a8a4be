//! Command-line arguments, and their conversion into a validated [`RunPlan`](crate::plan::RunPlan).
//!
//! Nothing here does I/O: arguments become workloads, and workloads are
//! validated before any file is touched.

pub use crate::plan::ProgressMode;
use crate::plan::quick::QuickSettings;
use crate::plan::units::{format_size, parse_positive_duration, parse_size};
use crate::plan::{Op, UsageError};
use crate::usage;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

pub mod fio_words;
pub mod groups;
mod guest;
pub use guest::{
    GuestCheckArgs, GuestCommand, GuestDownArgs, GuestExecArgs, GuestFetchArgs, GuestUpArgs,
};
mod param_list;
pub use param_list::ParamList;
use param_list::ParamListParser;
pub mod params;
pub mod refusal;
mod run_plan;
pub use run_plan::given_dir;
pub mod sweep;
mod trace;
pub use trace::{CharacterizeArgs, ReplayArgs, TraceArgs, TraceSelectArgs};

pub use params::ParamFlags;
pub use sweep::{RepeatArgs, StudyArgs, SweepArgs};

/// The headings options are grouped under in `--help`, in the order shown.
pub mod heading {
    /// Where the I/O goes and what iolab may write.
    pub const TARGET: &str = "Target and safety";
    /// What each I/O does.
    pub const WORKLOAD: &str = "Workload";
    /// The tree of a metadata workload.
    pub const TREE: &str = "Metadata tree (with --items)";
    /// How I/Os are issued.
    pub const ENGINE: &str = "Engine and queue";
    /// How long, how fast, when.
    pub const TIMING: &str = "Timing and pacing";
    /// How often, and the statistics over repetitions.
    pub const REPEAT: &str = "Repetitions and statistics";
    /// Guests, and the order compared configurations alternate in.
    pub const PLACE: &str = "Host and guest";
    /// Where results go and how they are shown.
    pub const OUTPUT: &str = "Output";
    /// Distributed runs.
    pub const MPI: &str = "MPI (distributed runs)";
}

/// `--version`: the crate's version, the commit it was built from, and
/// whether the MPI feature is in.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("IOLAB_GIT_SHORT"),
    ", ",
    env!("IOLAB_TARGET"),
    ", ",
    env!("IOLAB_RUSTC_VERSION"),
    ", mpi ",
    mpi_state!(),
    ")"
);

/// `on` in a build with the `mpi` feature, else `off`.
#[cfg(feature = "mpi")]
macro_rules! mpi_state {
    () => {
        "on"
    };
}
#[cfg(not(feature = "mpi"))]
macro_rules! mpi_state {
    () => {
        "off"
    };
}
use mpi_state;

/// iolab: a laboratory for storage I/O experiments on Linux.
#[derive(Debug, Parser)]
#[command(
    name = "iolab",
    version = VERSION,
    about,
    long_about = None,
    max_term_width = 100,
    args_override_self = true,
    after_help = "Start with `iolab quick --dir DIR` (the eight tests of a desktop benchmark) or \
                  `iolab run --help` (one workload, with examples). docs/guide.md has every flag."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Notes on stderr too (the result and its report hold them).
    ///
    /// Where the report went, how a job file was read, what one repetition
    /// cannot show: without it stderr holds only warnings and errors.
    /// Before `fio` in `iolab -v fio …` (fio's own -v is its version).
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
}

impl Cli {
    /// Parses the whole command line: `run`'s `--group NAME …` segments
    /// are taken out first ([`groups::split_groups`]) and given to its
    /// arguments, clap parses the rest.
    pub fn parse_line(raw: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
        Cli::parse_line_at(raw, None)
    }

    /// [`Cli::parse_line`] with `--help` and clap's messages laid out for
    /// `width` columns (the caller's: a terminal's, or 80 in a pipe).
    pub fn parse_line_at(
        raw: &[std::ffi::OsString],
        width: Option<u16>,
    ) -> Result<Cli, clap::Error> {
        use clap::{CommandFactory, FromArgMatches};
        let (main, groups) = groups::split_groups(raw).map_err(|message| {
            clap::Error::raw(clap::error::ErrorKind::ValueValidation, message)
        })?;
        let command = match width {
            // Help reads best at no more than 100 columns, as before.
            Some(width) => Cli::command().term_width(usize::from(width.min(100))),
            None => Cli::command(),
        };
        let mut cli = Cli::from_arg_matches(&command.try_get_matches_from(&main)?)?;
        match &mut cli.command {
            Command::Run(args) => args.groups = groups,
            Command::Sweep(args) => args.groups = groups,
            _ => {}
        }
        Ok(cli)
    }
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure one workload in a directory.
    #[command(
        after_help = "Examples and every option: iolab run --help",
        after_long_help = "Examples:\n  # random 4 KiB reads for 30 s (fio: --rw randread --bs 4k --runtime 30\n  # --time_based)\n  iolab run --dir /mnt/data --op read --pattern random --bs 4k \\\n      --runtime 30s\n\n  # io_uring at queue depth 32, O_DIRECT, three repetitions kept in a\n  # file\n  iolab run --dir /mnt/data --engine uring --iodepth 32 --direct \\\n      --pattern random --repeat 3 -o a.json\n\n  # read a block device as it is (writing it needs --destroy-data)\n  iolab run --file /dev/nvme0n1 --direct --bs 1m --runtime 10s\n\n  # an NFS export through iolab's own client, no mount\n  iolab run --target nfs://server/export/dir --engine nfs --op write \\\n      --bs 1m --size 1g\n\n  # mdtest's phases over one tree: 2 jobs x 1000 files in each of 1 + 10\n  # directories\n  iolab run --dir /mnt/data --ops create,stat,read,delete --items 1000 \\\n      --depth 1 --fanout 10 --jobs 2\n\n  # a reader beside a paced O_DSYNC logger, each group with its own\n  # figures\n  iolab run --dir /mnt/data --runtime 30s --group reader --op read \\\n      --pattern random --bs 8k --group logger --op write --bs 4k \\\n      --rate-iops 2000 --sync odsync\n\n  # a fio job file as it is (each section a group, each stonewall a\n  # point)\n  iolab run job.fio -o job.json\n"
    )]
    Run(Box<RunArgs>),
    /// Run fio's command line as it is typed (`iolab fio --name=a --rw=randread --bs=4k …`,
    /// job files among its words): fio's answer where --output and
    /// --output-format say, iolab's result and report in iolab-results/.
    #[command(
        after_help = "Examples: iolab fio --help",
        after_long_help = "Examples:\n  # a fio one-liner, prefixed with iolab\n  iolab fio --name=test --ioengine=libaio --rw=randrw --rwmixread=75 \\\n      --bs=4k --iodepth=64 --size=64m --direct=1 \\\n      --filename=/mnt/data/test\n\n  # fio's JSON to a file, iolab's checks on stderr\n  iolab fio --output-format=json --output=out.json job.fio\n"
    )]
    Fio(FioArgs),
    /// Measure a grid: every flag of `run` takes a list (4k,64k) or a range
    /// (512..1m doubles; 0..9/+1 adds; 1..1000/*10 multiplies).
    #[command(
        after_help = "Examples and every option: iolab sweep --help",
        after_long_help = "Examples:\n  # block sizes from 4 KiB to 1 MiB (doubling), writes then reads\n  iolab sweep --dir /mnt/data --bs 4k..1m --op write,read\n\n  # the knee: the most IOPS with p99 under 2 ms\n  iolab sweep --dir /mnt/data --engine uring --direct --pattern random \\\n      --iodepth 1..256 --knee 'p99<=2ms'\n\n  # O_DIRECT against buffered, then the verdict\n  iolab sweep --dir /mnt/data --direct off,on --repeat 3 -o d.json \\\n      && iolab compare d.json --by direct\n"
    )]
    Sweep(Box<SweepArgs>),
    /// Run a study file: named sweeps with their axes, fixed parameters and
    /// repetition policy (see docs/study-files.md).
    #[command(
        after_help = "Examples and every option: iolab study --help",
        after_long_help = "Examples:\n  # what a study will do, then do it\n  iolab study my-study.toml --dry-run && iolab study my-study.toml\n\n  # a published study as a file to edit\n  iolab preset show dd-blocksize > mine.toml\n"
    )]
    Study(StudyArgs),
    /// Run the short default suite: sequential 1 MiB and random 4 KiB, read and write, at two queue depths.
    #[command(
        after_help = "Examples and every option: iolab quick --help",
        after_long_help = "Examples:\n  # the eight tests of a desktop benchmark\n  iolab quick --dir /mnt/data\n\n  # a larger file, longer tests\n  iolab quick --dir /mnt/data --size 4g --runtime 10s\n"
    )]
    Quick(QuickArgs),
    /// The published studies iolab reproduces, ready to run: list, show as a study file, run.
    #[command(subcommand)]
    Preset(PresetCommand),
    /// Compare result files point by point: ratios with 95% intervals,
    /// Welch's test, verdicts, grid matrices and what differs in the environment.
    #[command(
        after_help = "Examples and every option: iolab compare --help",
        after_long_help = "Examples:\n  # two runs, point by point\n  iolab compare a.json b.json\n\n  # p99 latency, and whether they are equivalent within 5%\n  iolab compare a.json b.json --metric p99 --margin 5%\n\n  # inside one sweep: O_DIRECT against buffered\n  iolab compare d.json --by direct\n"
    )]
    Compare(CompareArgs),
    /// Write a self-contained HTML report (charts, sortable tables,
    /// environments, checks; ratio heatmaps across files).
    #[command(
        after_help = "Examples and every option: iolab report --help",
        after_long_help = "Examples:\n  # one HTML file comparing two results\n  iolab report a.json b.json -o ab.html\n\n  # the same tables as Markdown, on stdout\n  iolab report a.json --format markdown -o -\n"
    )]
    Report(ReportArgs),
    /// Convert fio's --output-format=json or json+ output into an iolab
    /// result file, to compare and report it like iolab's own.
    Import(ImportArgs),
    /// Describe this machine and the storage under a path: kernel, CPU, memory,
    /// virtualization, file system, mount options and the block-device stack.
    Env(EnvArgs),
    /// Guest virtual machines: `iolab guest check` says whether a guest
    /// boots here, how, and how fast.
    #[command(subcommand)]
    Guest(GuestCommand),
    /// Shell completions: `iolab completions bash > /etc/bash_completion.d/iolab`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Man pages, one per subcommand, from the same definitions as `--help`:
    /// `iolab manpages --dir /usr/local/share/man/man1`, then `man iolab-run`.
    Manpages {
        /// Where to write iolab.1, iolab-run.1 …; existing pages of iolab's are replaced.
        #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
        dir: PathBuf,
    },
    /// Run any command and record its wall time with what the block devices
    /// under --path, the network and the CPUs did meanwhile.
    ///
    /// Example: iolab measure --path /data -- dd if=/dev/zero of=/data/f bs=8k count=100000
    Measure(MeasureArgs),
    /// Replay a block trace — fio's iolog (v2, v3), MSR Cambridge or SPC
    /// CSV, blktrace — each I/O at its time, and say how faithful it was.
    #[command(
        after_help = "Examples and every option: iolab replay --help",
        after_long_help = "Examples:\n  # a recorded blktrace onto a file iolab creates in /mnt/data,\n  # O_DIRECT, at most 32 in flight\n  blkparse -i sda -d sda.bin && iolab replay sda.bin --dir /mnt/data\n\n  # fio's iolog twice as fast, through pread/pwrite\n  iolab replay job.iolog --dir /mnt/data --speed 2 --engine psync\n\n  # an MSR Cambridge volume as fast as possible, its offsets wrapped\n  # into 1 GiB\n  iolab replay hm_1.csv --dir /mnt/data --afap --wrap 1g -o hm.json\n\n  # onto an NFS export through iolab's own client (no mount), a flush a\n  # COMMIT\n  iolab replay job.iolog --target nfs://server/export/dir --engine nfs\n\n  # onto an iSCSI LUN through iolab's own initiator; a trace that writes\n  # needs the URL repeated\n  iolab replay job.iolog --target iscsi://server/IQN/1 \\\n      --destroy-data=iscsi://server/IQN/1\n"
    )]
    Replay(ReplayArgs),
    /// What a trace is like — its mix, sizes, sequentiality, arrivals and
    /// depth — and the `iolab run` workload of the same shape.
    Characterize(CharacterizeArgs),
}

pub(crate) fn duration(text: &str) -> Result<Duration, String> {
    crate::plan::units::parse_duration(text)
}

pub(crate) fn positive_duration(text: &str) -> Result<Duration, String> {
    parse_positive_duration(text)
}

pub(crate) fn interval(text: &str) -> Result<Duration, String> {
    crate::plan::units::parse_interval(text)
}

fn size(text: &str) -> Result<u64, String> {
    parse_size(text)
}

/// Where results go and how they are shown.
#[derive(Debug, Args)]
#[command(next_help_heading = heading::OUTPUT)]
pub struct OutputArgs {
    /// Write the result file (JSON, schema iolab.result/1) here; refused if it exists.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print the result as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Below the table, show per repetition what each device of the stack,
    /// the network and the CPUs did (iostat's and atop's figures).
    #[arg(long, hide_short_help = true)]
    pub detail: bool,
    /// Exit with status 3 when a check raised a warning or an error (for scripts).
    #[arg(long, hide_short_help = true)]
    pub strict: bool,
    /// The live status line on stderr while measuring: phase, point k/n,
    /// ETA and the last interval's MiB/s, IOPS and p99 per direction
    /// (auto: on a terminal, not with --json).
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto, value_name = "WHEN", hide_short_help = true)]
    pub progress: ProgressMode,
}

/// Distributed runs under an MPI launcher (docs/distributed.md).
#[derive(Clone, Copy, Debug, Default, Args)]
#[command(next_help_heading = heading::MPI)]
pub struct DistributedArgs {
    /// Run as one rank of an MPI job (mpirun -np N iolab … --mpi).
    ///
    /// Every rank measures its own files in --dir, all start each repetition
    /// together, rank 0 writes one result file (needs a build with
    /// --features mpi).
    #[arg(long, hide = !cfg!(feature = "mpi"))]
    pub mpi: bool,
    /// With --mpi: one file for all ranks, each job of each rank in its own
    /// region of --size bytes.
    #[arg(long, requires = "mpi", hide = !cfg!(feature = "mpi"), hide_short_help = true)]
    pub shared_file: bool,
    /// With --mpi: reads go to another rank's file (IOR's -C: the rank a
    /// host's worth of ranks on), so no rank reads what it wrote from its own cache.
    #[arg(long, requires = "mpi", hide = !cfg!(feature = "mpi"), hide_short_help = true)]
    pub reorder: bool,
    /// With --mpi: show IOR-style stonewall throughput, all ranks' bytes up
    /// to the moment the first rank finished (always recorded).
    #[arg(long, requires = "mpi", hide = !cfg!(feature = "mpi"), hide_short_help = true)]
    pub stonewall: bool,
}

/// Arguments of `iolab fio`.
#[derive(Debug, Args)]
pub struct FioArgs {
    /// iolab's consent to write a block device the job names (fio writes
    /// it without asking): as `iolab run --destroy-data`, before fio's
    /// arguments (`iolab fio --destroy-data /dev/sdb job.fio …`).
    #[arg(long, value_name = "DEVICE|URL")]
    pub destroy_data: Option<String>,
    /// fio's arguments as fio takes them: options before the first --name
    /// are global, each --name starts a job, --opt=value or --opt value,
    /// job files by path; fio's own --output, --output-format and --section.
    #[arg(value_name = "FIO-ARGS", num_args = 1.., required = true, allow_hyphen_values = true, trailing_var_arg = true)]
    pub args: Vec<String>,
}

/// Arguments of `iolab run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A fio job file to run as it is: each job section a group, the
    /// sections between stonewalls run at once as one point (see
    /// docs/fio-job-files.md for the options read).
    #[arg(value_name = "JOB.fio", hide_short_help = true)]
    pub job_file: Option<PathBuf>,
    /// Print the plan as the study file that runs the same points, and
    /// run nothing.
    #[arg(long, help_heading = heading::OUTPUT, hide_short_help = true)]
    pub show_plan: bool,
    /// Directory for the scratch files.
    #[arg(long, default_value = ".", value_name = "DIR", value_hint = clap::ValueHint::DirPath, conflicts_with = "file", aliases = fio_words::DIR_ALIASES, help_heading = heading::TARGET)]
    pub dir: PathBuf,
    /// Measure this existing file or block device instead of creating a file.
    ///
    /// It is only read, except with --op rewrite on a file iolab created (see
    /// --keep) or on a device confirmed with --destroy-data; never removed.
    /// /dev/zero (read) and /dev/null (written) measure the I/O path without
    /// storage, as fio's filename=/dev/null jobs do.
    #[arg(long, value_name = "PATH", conflicts_with = "mpi", help_heading = heading::TARGET)]
    pub file: Option<PathBuf>,
    /// Measure over the network with iolab's own clients, no mount or
    /// kernel initiator needed: a directory on an NFS export,
    /// nfs://HOST/EXPORT/DIR (--engine nfs, libnfs; files are created there
    /// and removed at the end, as in --dir; DIR is optional; version=3,
    /// mountport=N, timeout=MS may follow a '?'), or an iSCSI LUN,
    /// iscsi://HOST/IQN/LUN (--engine iscsi, libiscsi; read as it is,
    /// written only with --destroy-data; initiator=IQN, timeout=MS may
    /// follow a '?'). A :PORT may follow HOST; with server_path=PATH (the
    /// export's directory, or the LUN's backing file, on this machine) a
    /// cold read evicts and counts the server's cached pages.
    #[arg(long, value_name = "URL", conflicts_with_all = ["file", "dir", "mpi"], help_heading = heading::TARGET, hide_short_help = true)]
    pub target: Option<String>,
    /// Allow writing the block device given with --file (a write test) or
    /// the iSCSI LUN given with --target (a write test, or laying out what
    /// its reads read), destroying its data: repeat it as /dev/NAME or as
    /// its URL. Refused while anything is mounted, swapped or stacked on
    /// it, or it holds a file system or partition table.
    #[arg(long, value_name = "DEVICE|URL", help_heading = heading::TARGET, hide_short_help = true)]
    pub destroy_data: Option<PathBuf>,
    /// Leave the scratch file in place at the end and print its path.
    #[arg(long, help_heading = heading::TARGET, hide_short_help = true)]
    pub keep: bool,
    /// The workload's parameters.
    #[command(flatten)]
    pub params: ParamFlags,
    /// Phases over one tree, each measured as a point, in mdtest's order
    /// whatever the order given: --ops create,stat,read,delete (with
    /// --items; --op names one).
    #[arg(long, value_name = "OP,OP…", value_delimiter = ',', conflicts_with = "op", help_heading = heading::TREE, hide_short_help = true, hide_possible_values = true)]
    pub ops: Vec<Op>,
    /// Repetitions.
    #[command(flatten)]
    pub repetitions: RepeatArgs,
    /// Guests, order and rounds.
    #[command(flatten)]
    pub place: sweep::PlaceArgs,
    /// Time-series interval.
    #[arg(long, value_parser = interval, allow_hyphen_values = true, default_value = "1s", value_name = "DURATION", help_heading = heading::TIMING, hide_short_help = true)]
    pub interval: Duration,
    /// Writes: seal every block with a header (offset, run, sequence, seed)
    /// and a CRC-32C, and check every block in an untimed pass after each
    /// repetition. Reads: check every block of a file written that way
    /// (such as one kept with --keep). Mismatches are reported by offset.
    #[arg(long, help_heading = heading::WORKLOAD, hide_short_help = true)]
    pub verify: bool,
    /// With --verify: every N writes of a job are read back and checked
    /// right after they are written, inside the timed region (fio's
    /// verify_backlog); the first bad block ends the repetition. A
    /// synchronous engine; N up to 1048576.
    #[arg(long, value_name = "N", requires = "verify", value_parser = clap::value_parser!(u64).range(1..=crate::plan::MAX_VERIFY_BACKLOG), help_heading = heading::WORKLOAD, hide_short_help = true)]
    pub verify_backlog: Option<u64>,
    /// Keep every timed I/O of each job (when issued, its latency, offset,
    /// length and direction) and write them beside the result, one CSV per
    /// job and repetition: RESULT.ios.P.J.rN.csv for point P's job J. At
    /// most 16 Mi I/Os are kept in all (512 MiB); the files say how many
    /// were not.
    #[arg(long, help_heading = heading::TIMING, hide_short_help = true)]
    pub log_ios: bool,
    /// With --runtime: stop once every job's throughput is steady, e.g.
    /// bw:slope<1%/10s (the fitted line moves < 1% of the mean over 10 s),
    /// iops:range<2%/30s (all intervals within ±2% of their mean) or
    /// lat:range<5%/300s (each interval's mean latency within ±5%).
    #[arg(long, value_name = "CRITERION", help_heading = heading::TIMING, hide_short_help = true)]
    pub steady: Option<crate::plan::steady::SteadyCriterion>,
    /// Search each job's queue depth (up to --iodepth) for the deepest whose
    /// I/Os keep within a latency, as fio's latency_target does:
    /// 500us,window=5s,percentile=99.9 doubles the depth from 1 while 99.9%
    /// of a 5 s window's I/Os take at most 500 us, bisects after a miss, and
    /// when the depth holds measures one more window there: the figures are
    /// that window's, and each job's depth is recorded. Add ,run to keep
    /// adjusting to the end instead (fio's latency_run).
    #[arg(long, value_name = "LATENCY,window=DURATION[,percentile=P][,run]", help_heading = heading::TIMING, hide_short_help = true)]
    pub latency_target: Option<crate::plan::latency_target::LatencyTarget>,
    /// I/O priorities, as fio's prioclass/prio and cmdprio_percentage:
    /// idle runs each job's thread at the idle class (rt/LEVEL, be/LEVEL:
    /// the real-time or best-effort class at level 0 to 7); 20%:rt/0 gives
    /// a fifth of the I/Os, drawn one by one, real-time level 0 in the
    /// request itself (libaio, io_uring), and latency is kept per priority.
    /// read=…,write=… gives each direction its own share.
    #[arg(long, value_name = "[CLASS[/LEVEL]][,PCT%:CLASS[/LEVEL]]", help_heading = heading::TIMING, hide_short_help = true)]
    pub priority: Option<crate::plan::priority::Priority>,
    /// Label of the point in tables and the result file.
    #[arg(long, value_name = "TEXT", help_heading = heading::OUTPUT, hide_short_help = true)]
    pub label: Option<String>,
    /// Several workloads at once in one point: each `--group NAME` is
    /// followed by that group's own workload parameters (--op, --bs,
    /// --jobs, --rate-iops …); what comes before the first --group is
    /// every group's. The groups' jobs start together; each group's
    /// figures are kept apart and combined.
    #[arg(long = "group", value_name = "NAME", help_heading = heading::WORKLOAD, hide_short_help = true)]
    pub group: Option<String>,
    /// One group's parameter by name, anywhere on the line:
    /// `--set logger.bs=16k` is `--bs 16k` after `--group logger`.
    #[arg(long = "set", value_name = "NAME.PARAM=VALUE", help_heading = heading::WORKLOAD, hide_short_help = true)]
    pub set: Option<String>,
    /// The `--group` segments, taken out of the command line before clap
    /// parses it ([`Cli::parse_line`]).
    #[arg(skip)]
    pub groups: Vec<groups::GroupArgs>,
    /// Do not write the HTML report next to the result file.
    #[arg(long, help_heading = heading::OUTPUT, hide_short_help = true)]
    pub no_report: bool,
    /// Distributed runs.
    #[command(flatten)]
    pub distributed: DistributedArgs,
    /// Output options.
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Arguments of `iolab quick`.
#[derive(Debug, Args)]
pub struct QuickArgs {
    /// Directory for the test file.
    #[arg(long, default_value = ".", value_name = "DIR", value_hint = clap::ValueHint::DirPath, aliases = fio_words::DIR_ALIASES, help_heading = heading::TARGET)]
    pub dir: PathBuf,
    /// Test file size.
    #[arg(long, value_parser = size, allow_hyphen_values = true, default_value = "1g", value_name = "SIZE", help_heading = heading::WORKLOAD)]
    pub size: u64,
    /// Measured time of each test.
    #[arg(long, value_parser = positive_duration, allow_hyphen_values = true, default_value = "5s", value_name = "DURATION", help_heading = heading::TIMING)]
    pub runtime: Duration,
    /// Unmeasured lead-in of each test.
    #[arg(long, value_parser = duration, allow_hyphen_values = true, default_value = "1s", value_name = "DURATION", help_heading = heading::TIMING, hide_short_help = true)]
    pub ramp: Duration,
    /// Seed of random offsets and data.
    #[arg(long, default_value_t = 0, help_heading = heading::WORKLOAD, hide_short_help = true)]
    pub seed: u64,
    /// Result file; default `iolab-results/quick-<timestamp>.json`.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = heading::OUTPUT)]
    pub output: Option<PathBuf>,
    /// Print the result as JSON on stdout instead of the table.
    #[arg(long, help_heading = heading::OUTPUT)]
    pub json: bool,
    /// Below the table, show what the devices, the network and the CPUs did.
    #[arg(long, help_heading = heading::OUTPUT, hide_short_help = true)]
    pub detail: bool,
    /// Do not write the HTML report next to the result file.
    #[arg(long, help_heading = heading::OUTPUT, hide_short_help = true)]
    pub no_report: bool,
    /// Exit with status 3 when a check raised a warning or an error (for scripts).
    #[arg(long, help_heading = heading::OUTPUT, hide_short_help = true)]
    pub strict: bool,
    /// The live status line on stderr while measuring (auto: on a terminal, not with --json).
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto, value_name = "WHEN", help_heading = heading::OUTPUT, hide_short_help = true)]
    pub progress: ProgressMode,
}

/// `iolab preset …`.
#[derive(Debug, Subcommand)]
pub enum PresetCommand {
    /// Every preset with what it reproduces and its size at the quick scale.
    List,
    /// Print a preset as a study file, to copy and edit.
    Show {
        /// The preset.
        name: String,
        /// Its scale.
        #[arg(long, value_enum, default_value_t = crate::preset::Scale::Quick)]
        scale: crate::preset::Scale,
    },
    /// Run a preset (a study; re-running continues it).
    Run {
        /// The preset.
        name: String,
        /// quick: minutes here, the same shape; full: the study's own sizes; test: seconds, to check it runs.
        #[arg(long, value_enum, default_value_t = crate::preset::Scale::Quick)]
        scale: crate::preset::Scale,
        /// Study options: --dir, --dry-run, --no-report, --output…
        #[command(flatten)]
        study: PresetRunArgs,
    },
}

/// The study options of `iolab preset run`.
#[derive(Debug, Args)]
pub struct PresetRunArgs {
    /// Scratch directory; given more than once, one storage medium each:
    /// the study runs on each in turn, into a result file each
    /// (`NAME-SCALE-1.json`, …), and its table gets a row or column group
    /// per medium, as the O_DIRECT study's five devices.
    #[arg(long, default_value = ".", value_name = "DIR", value_hint = clap::ValueHint::DirPath, aliases = fio_words::DIR_ALIASES, help_heading = heading::TARGET)]
    pub dir: Vec<PathBuf>,
    /// Measure an NFS export's directory or an iSCSI LUN instead of --dir
    /// (see `iolab run --help`).
    #[arg(long, value_name = "URL", conflicts_with_all = ["dir", "mpi"], help_heading = heading::TARGET)]
    pub target: Option<String>,
    /// Allow writing the iSCSI LUN given with --target or --guest
    /// mount=, destroying its data: repeat its URL (see `iolab run --help`).
    #[arg(long, value_name = "URL", help_heading = heading::TARGET)]
    pub destroy_data: Option<PathBuf>,
    /// Print the plan, data volume, space and time; run nothing.
    #[arg(long, help_heading = heading::OUTPUT)]
    pub dry_run: bool,
    /// Do not write the HTML report next to the result file.
    #[arg(long, help_heading = heading::OUTPUT)]
    pub no_report: bool,
    /// Guests, order and rounds.
    #[command(flatten)]
    pub place: sweep::PlaceArgs,
    /// Distributed runs.
    #[command(flatten)]
    pub distributed: DistributedArgs,
    /// Output options; the output defaults to `iolab-results/<preset>-<scale>.json`.
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Arguments of `iolab report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Result files; the first is the base of the comparisons.
    #[arg(required = true, num_args = 1.., value_name = "RESULT.json")]
    pub files: Vec<PathBuf>,
    /// The file to write, refused if it exists; `-` writes to stdout
    /// [default: iolab-results/report-TIME.html, .md or .csv].
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// HTML with charts, or the same content as Markdown or CSV tables.
    #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
    pub format: ReportFormat,
    /// Significance level of the comparisons' Welch tests and of the
    /// studies' verdicts; their intervals are at 1 − LEVEL.
    #[arg(long, default_value_t = crate::compare::DEFAULT_ALPHA, value_parser = alpha, value_name = "LEVEL")]
    pub alpha: f64,
    /// Match points across files ignoring these parameters, as `compare
    /// --ignore`: `engine,iodepth` to set a psync run beside a uring run.
    #[arg(long, value_name = "PARAMS", value_parser = ParamListParser)]
    pub ignore: Option<ParamList>,
}

/// Formats of `iolab report`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// One self-contained HTML file with SVG charts.
    Html,
    /// Markdown tables.
    Markdown,
    /// One CSV row per point.
    Csv,
    /// The studies' own tables (of files run from a study with `table`) as CSV.
    StudyCsv,
    /// fio's `--output-format=json+` shape (fio-plot and fio's tooling read
    /// it; `iolab import` reads it back): one job per measured repetition
    /// and group.
    FioJson,
}

/// Arguments of `iolab import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// fio's JSON output.
    #[arg(value_name = "FIO.json")]
    pub file: PathBuf,
    /// Output options (the result file is written only with --output).
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Arguments of `iolab compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The base result file, then the files compared with it (one file with --by).
    #[arg(required = true, num_args = 1.., value_name = "RESULT.json")]
    pub files: Vec<PathBuf>,
    /// Inside one file: compare the points that differ in these parameters,
    /// e.g. `direct` or `direct,sync`. The first splits base (its first
    /// setting found) from each other setting (`guest-config`: each guest
    /// against the first); all are ignored when matching points.
    #[arg(long, value_name = "PARAMS", value_parser = ParamListParser)]
    pub by: Option<ParamList>,
    /// Across files: match points ignoring these parameters, e.g. `engine`
    /// to compare a psync run with a stdio run of the same I/O.
    #[arg(long, value_name = "PARAMS", conflicts_with = "by", value_parser = ParamListParser)]
    pub ignore: Option<ParamList>,
    /// What to compare: throughput, iops, p50, p99, cpu, time, or messages
    /// and wire-bytes (network traffic, as Radkov's Table 4); for one
    /// direction of a mixed workload, read.FIGURE, write.FIGURE or trim.FIGURE
    /// (throughput, iops, p50, p99), e.g. `read.p99`; for one group of a
    /// point of groups, its name first: `logger.p99`, `logger.write.p99`.
    #[arg(long, default_value = "throughput", value_name = "METRIC")]
    pub metric: crate::compare::Metric,
    /// Significance level of Welch's test.
    #[arg(long, default_value_t = crate::compare::DEFAULT_ALPHA, value_parser = alpha, value_name = "LEVEL")]
    pub alpha: f64,
    /// Which way ratios are expressed.
    #[arg(long, value_enum, default_value_t = crate::compare::Orientation::OtherOverBase)]
    pub orientation: crate::compare::Orientation,
    /// Also judge equivalence within ± this share (5%): "equivalent" when
    /// the ratio's 90% interval lies inside it (two one-sided tests),
    /// "different" when its 95% interval excludes 1, else "inconclusive";
    /// from per-round ratios when both sides ran in the same rounds.
    #[arg(long, value_parser = sweep::percent, value_name = "PERCENT")]
    pub margin: Option<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CompareFormat::Terminal)]
    pub format: CompareFormat,
}

/// Output formats of `iolab compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CompareFormat {
    /// Tables for a terminal.
    Terminal,
    /// Markdown pipe tables.
    Markdown,
    /// One CSV row per matched point.
    Csv,
    /// The whole comparison as JSON.
    Json,
}

fn alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("'{text}' is not a level between 0 and 1")),
    }
}

/// Arguments of `iolab env`.
#[derive(Debug, Args)]
pub struct EnvArgs {
    /// Describe the file system and devices under this path.
    #[arg(long, default_value = ".", value_name = "PATH")]
    pub path: PathBuf,
    /// Print JSON (`tool` and `environment`, as in result files) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `iolab measure`.
#[derive(Debug, Args)]
pub struct MeasureArgs {
    /// Watch the block devices under this path (and its NFS counters).
    #[arg(long, default_value = ".", value_name = "PATH")]
    pub path: PathBuf,
    /// Device time-series interval.
    #[arg(long, value_parser = interval, allow_hyphen_values = true, default_value = "1s", value_name = "DURATION")]
    pub interval: Duration,
    /// Run the command this many times (stops at the first failure).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..), value_name = "N")]
    pub repeat: u32,
    /// Label of the measurement in tables and the result file [default: the command line].
    #[arg(long, value_name = "TEXT")]
    pub label: Option<String>,
    /// Output options.
    #[command(flatten)]
    pub out: OutputArgs,
    /// The command and its arguments, after `--` (passed on byte for byte).
    #[arg(last = true, required = true, num_args = 1.., value_name = "COMMAND")]
    pub command: Vec<std::ffi::OsString>,
}

impl QuickArgs {
    /// The quick suite's settings.
    pub fn settings(&self) -> Result<QuickSettings, UsageError> {
        if self.size < (1 << 20) {
            return Err(usage!(
                "--size {} is below the 1 MiB the 1 MiB tests need",
                format_size(self.size)
            ));
        }
        if self.size % (1 << 20) != 0 {
            return Err(usage!(
                "--size {} is not a multiple of 1 MiB",
                format_size(self.size)
            ));
        }
        Ok(QuickSettings {
            size: self.size,
            runtime_s: self.runtime.as_secs_f64(),
            ramp_s: self.ramp.as_secs_f64(),
            seed: self.seed,
        })
    }
}

#[cfg(test)]
mod example_tests {
    use super::*;
    use clap::CommandFactory;

    /// Every example in a subcommand's `--help` parses and fits 72
    /// columns (80 in a man page, which indents it 7), a long one continued
    /// with ` \` as a shell takes it: the help never shows a command line
    /// iolab would refuse, nor one that a terminal breaks where a paste
    /// would fail.
    #[test]
    fn every_example_in_help_parses_and_fits_a_man_page_at_80_columns() {
        let mut seen = 0;
        for command in Cli::command().get_subcommands() {
            let Some(help) = command.get_after_long_help() else {
                continue;
            };
            let help = help.to_string();
            for line in help.lines() {
                assert!(line.chars().count() <= 72, "{}: {line}", command.get_name());
            }
            let joined = help.replace(" \\\n", " ");
            for line in joined.lines().map(str::trim) {
                let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
                let line = line.as_str();
                for example in line.split(" && ").filter(|l| l.starts_with("iolab ")) {
                    let example = example.split(" > ").next().unwrap();
                    let args: Vec<String> = example
                        .split(' ')
                        .map(|a| a.trim_matches('\'').to_string())
                        .collect();
                    let args: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
                    if let Err(error) = Cli::parse_line(&args) {
                        panic!("{example}: {error}");
                    }
                    seen += 1;
                }
            }
        }
        assert!(seen >= 15, "{seen} examples");
    }
}
