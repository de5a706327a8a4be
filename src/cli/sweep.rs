//! Arguments of `iolab sweep` and `iolab study`, the repetition policy shared with `run`, and their conversion into a sweep.

use super::{OutputArgs, interval};
use crate::plan::constraint::Constraint;
use crate::plan::sweep::{Axis, Param, Sweep, parse_axis};
use crate::plan::{DEFAULT_MAX_REPEAT, DEFAULT_MIN_REPEAT, UsageError, Workload};
use crate::usage;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

pub(crate) fn percent(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%');
    match number.parse::<f64>() {
        Ok(p) if p > 0.0 && p < 100.0 => Ok(p / 100.0),
        _ => Err(format!("'{text}' is not a percentage between 0% and 100%")),
    }
}

/// How many repetitions: fixed, or until the confidence interval is narrow enough.
#[derive(Clone, Debug, Args)]
#[command(next_help_heading = super::heading::REPEAT)]
pub struct RepeatArgs {
    /// Measured repetitions [default: 1].
    #[arg(long, value_name = "N", conflicts_with = "until_ci")]
    pub repeat: Option<u32>,
    /// Repeat until the 95% confidence interval of the mean throughput is
    /// within ± this share of the mean, e.g. 2%.
    #[arg(long, value_parser = percent, value_name = "PERCENT", hide_short_help = true)]
    pub until_ci: Option<f64>,
    /// With --until-ci: the fewest repetitions [default: 3].
    #[arg(long, value_name = "N", requires = "until_ci", hide_short_help = true)]
    pub min_repeat: Option<u32>,
    /// With --until-ci: the most repetitions [default: 20].
    #[arg(long, value_name = "N", requires = "until_ci", hide_short_help = true)]
    pub max_repeat: Option<u32>,
    /// Unmeasured repetitions before the measured ones.
    #[arg(long, default_value_t = 0, value_name = "N", hide_short_help = true)]
    pub warmup: u32,
    /// Every repetition draws the same random offsets, sizes, directions
    /// and data; by default each repetition draws its own from the seed.
    #[arg(long, hide_short_help = true)]
    pub same_draws: bool,
}

/// The repetition fields of a workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RepeatPolicy {
    /// Measured repetitions, or the fewest with `until_ci`.
    pub repeat: u32,
    /// Target half-width as a fraction of the mean.
    pub until_ci: Option<f64>,
    /// The most repetitions with `until_ci`.
    pub max_repeat: Option<u32>,
    /// Warm-up repetitions.
    pub warmup: u32,
    /// Whether every repetition repeats the first one's draws.
    pub same_draws: bool,
}

impl RepeatArgs {
    /// The policy, defaults applied.
    pub fn policy(&self) -> RepeatPolicy {
        match self.until_ci {
            Some(target) => RepeatPolicy {
                repeat: self.min_repeat.unwrap_or(DEFAULT_MIN_REPEAT),
                until_ci: Some(target),
                max_repeat: Some(self.max_repeat.unwrap_or(DEFAULT_MAX_REPEAT)),
                warmup: self.warmup,
                same_draws: self.same_draws,
            },
            None => RepeatPolicy {
                repeat: self.repeat.unwrap_or(1),
                until_ci: None,
                max_repeat: None,
                warmup: self.warmup,
                same_draws: self.same_draws,
            },
        }
    }
}

impl RepeatPolicy {
    /// Sets these fields of `workload`.
    pub fn apply(&self, workload: &mut Workload) {
        workload.repeat = self.repeat;
        workload.until_ci = self.until_ci;
        workload.max_repeat = self.max_repeat;
        workload.warmup = self.warmup;
        workload.same_draws = self.same_draws;
    }
}

/// Arguments of `iolab sweep`. Each parameter takes one value, a list or a range.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Directory for the scratch files.
    #[arg(long, default_value = ".", value_name = "DIR", value_hint = clap::ValueHint::DirPath, aliases = super::fio_words::DIR_ALIASES, help_heading = super::heading::TARGET)]
    pub dir: PathBuf,
    /// Measure an NFS export's directory or an iSCSI LUN instead of --dir
    /// (see `iolab run --help`).
    #[arg(long, value_name = "URL", conflicts_with_all = ["dir", "mpi"], help_heading = super::heading::TARGET, hide_short_help = true)]
    pub target: Option<String>,
    /// Allow writing the iSCSI LUN given with --target or --guest
    /// mount=, destroying its data: repeat its URL (see `iolab run --help`).
    #[arg(long, value_name = "URL", help_heading = super::heading::TARGET, hide_short_help = true)]
    pub destroy_data: Option<PathBuf>,
    /// The workload's parameters, each one value, a list (4k,64k) or a
    /// range of sizes, counts or durations (512..1m doubles; 0..9/+1 adds;
    /// 1..1000/*10 multiplies).
    #[command(flatten)]
    pub params: super::ParamFlags,
    /// Points of several workloads at once: each `--group NAME` is followed
    /// by that group's own parameters, lists and ranges among them
    /// (`--group logger --bs 4k,16k` varies the logger's block size while
    /// the other groups stay); what comes before the first --group is
    /// every group's.
    #[arg(long = "group", value_name = "NAME", help_heading = super::heading::WORKLOAD, hide_short_help = true)]
    pub group: Option<String>,
    /// One group's parameter by name, anywhere on the line:
    /// `--set logger.bs=4k,16k` is `--bs 4k,16k` after `--group logger`.
    #[arg(long = "set", value_name = "NAME.PARAM=VALUE", help_heading = super::heading::WORKLOAD, hide_short_help = true)]
    pub set: Option<String>,
    /// The `--group` segments, taken out of the command line before clap
    /// parses it.
    #[arg(skip)]
    pub groups: Vec<super::groups::GroupArgs>,
    /// Keep only points where this holds, e.g. 'bs>=16k' or 'engine==uring && iodepth<=8'; repeatable.
    /// Points whose block is larger than their file are always dropped.
    #[arg(long = "where", value_name = "EXPR", help_heading = super::heading::WORKLOAD)]
    pub constraints: Vec<String>,
    /// Repetitions of every point.
    #[command(flatten)]
    pub repetitions: RepeatArgs,
    /// Time-series interval.
    #[arg(long, value_parser = interval, allow_hyphen_values = true, default_value = "1s", value_name = "DURATION", help_heading = super::heading::TIMING, hide_short_help = true)]
    pub interval: Duration,
    /// With --runtime: stop each point once its throughput is steady (see `iolab run --help`).
    #[arg(long, value_name = "CRITERION", help_heading = super::heading::TIMING, hide_short_help = true)]
    pub steady: Option<crate::plan::steady::SteadyCriterion>,
    /// Search each point's queue depth for the deepest within a latency
    /// (see `iolab run --help`).
    #[arg(long, value_name = "LATENCY,window=DURATION[,percentile=P][,run]", help_heading = super::heading::TIMING, hide_short_help = true)]
    pub latency_target: Option<crate::plan::latency_target::LatencyTarget>,
    /// I/O priorities of each point's jobs and I/Os (see `iolab run --help`).
    #[arg(long, value_name = "[CLASS[/LEVEL]][,PCT%:CLASS[/LEVEL]]", help_heading = super::heading::TIMING, hide_short_help = true)]
    pub priority: Option<crate::plan::priority::Priority>,
    /// Search the knee: after the sweep, choose the point with the most IOPS
    /// whose latency percentile stays within the target (p99<=2ms), print
    /// the curve of IOPS against it, and draw it in the report. Sweep what
    /// loads the device: --iodepth 1..256, --rate-iops 1000..64000, --jobs.
    #[arg(long, value_name = "pNN<=DURATION", help_heading = super::heading::WORKLOAD)]
    pub knee: Option<crate::plan::knee::KneeTarget>,
    /// With --knee: run every point. By default a search along one rising
    /// load (--iodepth, --jobs, --rate, --rate-iops) stops once two points
    /// in a row are over the target, as fio's latency_target stops its
    /// queue-depth search; the points not run are named.
    #[arg(long, requires = "knee", help_heading = super::heading::WORKLOAD, hide_short_help = true)]
    pub knee_all: bool,
    /// Continue the sweep in --output where it stopped (the plan must be the same).
    #[arg(long, requires = "output", help_heading = super::heading::OUTPUT)]
    pub resume: bool,
    /// Print the points, data volume, space and time it would take; run nothing.
    #[arg(long, help_heading = super::heading::OUTPUT)]
    pub dry_run: bool,
    /// Do not write the HTML report next to the result file.
    #[arg(long, help_heading = super::heading::OUTPUT, hide_short_help = true)]
    pub no_report: bool,
    /// Guests, order and rounds.
    #[command(flatten)]
    pub place: PlaceArgs,
    /// Distributed runs.
    #[command(flatten)]
    pub distributed: super::DistributedArgs,
    /// Output options; the output defaults to `iolab-results/sweep-<timestamp>.json`.
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Arguments of `iolab study`.
#[derive(Debug, Args)]
pub struct StudyArgs {
    /// The study file (TOML; see docs/study-files.md).
    #[arg(value_name = "FILE.toml")]
    pub file: PathBuf,
    /// Scratch directory, instead of the study's `dir` (default `.`).
    #[arg(long, value_name = "DIR", value_hint = clap::ValueHint::DirPath, help_heading = super::heading::TARGET)]
    pub dir: Option<PathBuf>,
    /// Measure an NFS export's directory or an iSCSI LUN instead of --dir
    /// (see `iolab run --help`).
    #[arg(long, value_name = "URL", conflicts_with_all = ["dir", "mpi"], help_heading = super::heading::TARGET, hide_short_help = true)]
    pub target: Option<String>,
    /// Allow writing the iSCSI LUN given with --target or --guest
    /// mount=, destroying its data: repeat its URL (see `iolab run --help`).
    #[arg(long, value_name = "URL", help_heading = super::heading::TARGET, hide_short_help = true)]
    pub destroy_data: Option<PathBuf>,
    /// Print the plan, data volume, space and time it would take; run nothing.
    #[arg(long, help_heading = super::heading::OUTPUT)]
    pub dry_run: bool,
    /// Continue an interrupted run of the same study (also automatic when the
    /// output exists with the same plan).
    #[arg(long, help_heading = super::heading::OUTPUT)]
    pub resume: bool,
    /// Do not write the HTML report next to the result file.
    #[arg(long, help_heading = super::heading::OUTPUT, hide_short_help = true)]
    pub no_report: bool,
    /// Guests, order and rounds.
    #[command(flatten)]
    pub place: PlaceArgs,
    /// Distributed runs.
    #[command(flatten)]
    pub distributed: super::DistributedArgs,
    /// Output options; the output defaults to `iolab-results/<study name>.json`.
    #[command(flatten)]
    pub out: OutputArgs,
}

/// Where points run (`--guest`) and the order compared configurations
/// alternate in over rounds (`--order`, `--rounds`).
#[derive(Clone, Debug, Default, Args)]
#[command(next_help_heading = super::heading::PLACE)]
pub struct PlaceArgs {
    /// Boot a virtual machine and measure every point in it too, back to
    /// back with the host (KEY=VALUE,…; `--help` lists the keys); given
    /// several times, every point in each guest, compared with each other.
    #[arg(long, value_name = "KEY=VALUE,…", long_help = crate::plan::guest::help())]
    pub guest: Vec<String>,
    /// The order the configurations compared run in: abba (A B | B A from
    /// block to block and round to round), random (each block shuffled from
    /// the seed) or as-given; the axis alternated is machine, or the one
    /// named after a colon (abba:direct); several --guest alternate as wholes
    /// (guest-config) [default: abba with a guest].
    #[arg(
        long,
        value_name = "abba|random|as-given[:AXIS]",
        hide_short_help = true
    )]
    pub order: Option<crate::plan::order::Order>,
    /// Rounds of the whole plan: each point is measured once per round and
    /// compare's intervals come from the rounds' figures; with a guest, each
    /// round boots it anew [default: 2 with a guest or an --order, else 1].
    #[arg(
        long,
        visible_alias = "boots",
        value_name = "N",
        hide_short_help = true
    )]
    pub rounds: Option<u32>,
}

impl PlaceArgs {
    /// `points` with their guest twins (with `--guest`, unless `--machine`
    /// was given: `machine_given`), or in each of several guests, arranged
    /// in rounds, and each guest's definition (none when no point runs in one).
    pub fn arrange(
        &self,
        points: Vec<crate::plan::PlannedPoint>,
        machine_given: bool,
    ) -> Result<(Vec<crate::plan::PlannedPoint>, Vec<crate::plan::GuestSpec>), UsageError> {
        use crate::plan::order::{Arrangement, Order, add_guest_twins, arrange};
        // What a point may combine is said here, once for every builder
        // (command line, job file, sweep and study file).
        for point in &points {
            crate::plan::combine::check_groups(&point.groups).map_err(|e| {
                if crate::plan::group::named(&point.groups) {
                    crate::usage!("point '{}': {e}", point.label)
                } else {
                    e
                }
            })?;
        }
        let specs = crate::plan::GuestSpec::parse_all(&self.guest)?;
        let any_guest = points
            .iter()
            .any(|p| p.workload().machine == crate::plan::Machine::Guest);
        if !specs.is_empty() && machine_given && !any_guest {
            return Err(crate::usage!(
                "--guest describes the guest of the points given --machine guest, and --machine names none: drop --guest, or give --machine host,guest"
            ));
        }
        if specs.len() < 2
            && let Some(config) = points.iter().find_map(|p| p.workload().guest_config)
        {
            return Err(crate::usage!(
                "--guest-config {config} chooses among several --guest configurations; {} given",
                specs.len()
            ));
        }
        let points = match specs.as_slice() {
            [] => points,
            // What the guest mounts has no twin on the host: its points run in the guest only.
            [spec] if spec.mount.is_some() => crate::plan::order::all_in_guest(points),
            [_] => add_guest_twins(points),
            // Several guests are compared with each other and, where each
            // measures its own disk, with the host (CLOSER's native host,
            // centos1 and centos2); guests that mount a server's storage
            // are compared with each other only. --machine decides where given.
            several => {
                let names: Vec<String> =
                    several.iter().map(crate::plan::GuestSpec::label).collect();
                let points = if machine_given {
                    points
                } else if several.iter().any(|spec| spec.mount.is_some()) {
                    crate::plan::order::all_in_guest(points)
                } else {
                    add_guest_twins(points)
                };
                crate::plan::order::in_each_guest(points, &names)?
            }
        };
        let has_guest = points
            .iter()
            .any(|p| p.workload().machine == crate::plan::Machine::Guest);
        let both = has_guest
            && points
                .iter()
                .any(|p| p.workload().machine == crate::plan::Machine::Host);
        let order = self.order.unwrap_or(Order {
            arrangement: if both || specs.len() > 1 {
                Arrangement::Abba
            } else {
                Arrangement::AsGiven
            },
            axis: None,
        });
        let rounds =
            self.rounds
                .unwrap_or(if has_guest || order.arrangement != Arrangement::AsGiven {
                    2
                } else {
                    1
                });
        let points = arrange(points, order, rounds)?;
        let specs = if specs.is_empty() && has_guest {
            vec![crate::plan::GuestSpec::default()]
        } else {
            specs
        };
        Ok((points, specs))
    }
}

/// Builds a sweep from `(parameter, specification)` pairs over `base`: a
/// parameter with one value is fixed in the base, one with several is an axis.
pub fn build_sweep(
    base: Workload,
    specs: &[(Param, String)],
    constraints: &[String],
    label: Option<String>,
) -> Result<Sweep, UsageError> {
    let mut sweep = Sweep {
        base,
        axes: Vec::new(),
        constraints: Vec::new(),
        label,
        groups: Vec::new(),
    };
    for (param, spec) in specs {
        let Axis { param, values } = parse_axis(*param, spec)?;
        match values.as_slice() {
            [single] => param.apply(&mut sweep.base, *single),
            _ => sweep.axes.push(Axis { param, values }),
        }
    }
    for text in constraints {
        sweep.constraints.extend(Constraint::parse_all(text)?);
    }
    Ok(sweep)
}

impl SweepArgs {
    /// The `(parameter, specification)` pairs given on the command line.
    pub fn specs(&self) -> Vec<(Param, String)> {
        self.params.given.clone()
    }

    /// The sweep these arguments describe.
    pub fn sweep(&self) -> Result<Sweep, UsageError> {
        let mut base = crate::plan::base_workload(self.target.as_deref());
        self.repetitions.policy().apply(&mut base);
        base.interval_s = self.interval.as_secs_f64();
        base.steady = self.steady;
        base.latency_target = self.latency_target;
        base.priority = self.priority.clone();
        if base.until_ci.is_none() && base.repeat == 0 {
            return Err(usage!("--repeat 0: at least one repetition is needed"));
        }
        let mut sweep = build_sweep(base, &self.specs(), &self.constraints, None)?;
        sweep.groups = super::groups::group_sweeps(&self.groups)?;
        Ok(sweep)
    }
}

#[cfg(test)]
mod tests {
    use crate::cli::{Cli, Command};
    use clap::Parser;

    fn parse(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("iolab").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn run_defaults_are_the_sweep_defaults() {
        let Command::Run(run) = parse(&["run"]).command else {
            panic!()
        };
        assert_eq!(run.workload(None).unwrap(), crate::plan::default_workload());
    }

    #[test]
    fn a_sweep_from_flags() {
        let Command::Sweep(args) = parse(&[
            "sweep",
            "--op",
            "write,read",
            "--bs",
            "4k..16k",
            "--size",
            "64k",
            "--direct",
            "--where",
            "bs<=8k",
            "--until-ci",
            "2%",
        ])
        .command
        else {
            panic!()
        };
        let sweep = args.sweep().unwrap();
        assert!(sweep.base.direct && sweep.base.size == 65536);
        assert_eq!(sweep.base.until_ci, Some(0.02));
        assert_eq!((sweep.base.repeat, sweep.base.max_repeat), (3, Some(20)));
        let points = sweep.expand().unwrap();
        assert_eq!(
            points.len(),
            4,
            "2 ops × 2 block sizes after the constraint"
        );
    }

    #[test]
    fn repeat_and_until_ci_exclude_each_other() {
        let parsed = Cli::try_parse_from(["iolab", "run", "--repeat", "3", "--until-ci", "2%"]);
        assert!(parsed.is_err());
        assert!(Cli::try_parse_from(["iolab", "run", "--min-repeat", "3"]).is_err());
        assert!(Cli::try_parse_from(["iolab", "run", "--until-ci", "200%"]).is_err());
    }
}
