//! The workload parameters' flags, built from the parameter table: `--bs`, `--op`, `--cpus` … for `run` (one value each) and `sweep` (lists and ranges).

use crate::plan::sweep::{Param, parse_axis};
use crate::plan::{UsageError, Workload};
use crate::usage;
use clap::builder::PossibleValue;
use clap::{Arg, ArgAction, ArgMatches, Command};

/// The parameter flags given on a command line, as written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamFlags {
    /// `(parameter, text)` in the table's order.
    pub given: Vec<(Param, String)>,
}

impl ParamFlags {
    /// The text given for `param`.
    pub fn get(&self, param: Param) -> Option<&str> {
        self.given
            .iter()
            .find(|(p, _)| *p == param)
            .map(|(_, text)| text.as_str())
    }

    /// What looks like a slip in the sizes given: `--bs 4` is 4 bytes, as
    /// in fio, though 4 KiB was most likely meant. One line each, to warn.
    pub fn warnings(&self) -> Vec<String> {
        self.given
            .iter()
            .filter(|(param, _)| matches!(param, Param::Bs | Param::Size))
            .flat_map(|(param, text)| {
                text.split(',')
                    .flat_map(|item| item.split(".."))
                    .map(str::trim)
                    .filter(|item| item.parse::<u64>().is_ok_and(|bytes| bytes < 512))
                    .map(move |item| {
                        format!(
                            "iolab: warning: --{} {item} is {item} bytes (a number without a unit is bytes); {item}k is {item} KiB",
                            param.name()
                        )
                    })
            })
            .collect()
    }

    /// Sets every parameter given to its one value in `workload` (`run`):
    /// a list or a range is refused, naming the flag.
    pub fn apply_single(&self, workload: &mut Workload) -> Result<(), UsageError> {
        for (param, text) in &self.given {
            let axis = parse_axis(*param, text)?;
            match axis.values.as_slice() {
                [value] => param.apply(workload, *value),
                _ => {
                    return Err(usage!(
                        "--{} '{text}': run measures one point; give one value, or use iolab sweep{}",
                        param.name(),
                        if param.kind() == crate::plan::param::Kind::Cpus {
                            " (CPUs of one set are joined with +: 0+2)"
                        } else {
                            ""
                        }
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The `--help` heading a parameter's flag is listed under.
fn heading(param: Param) -> &'static str {
    use super::heading::{ENGINE, PLACE, TIMING, TREE, WORKLOAD};
    match param {
        Param::Op
        | Param::Pattern
        | Param::Bs
        | Param::Bssplit
        | Param::WriteBs
        | Param::Zbd
        | Param::Align
        | Param::Size
        | Param::Offset
        | Param::OffsetIncrement
        | Param::Mix
        | Param::Data
        | Param::Seed
        | Param::Trace
        | Param::TraceSpeed => WORKLOAD,
        Param::Engine
        | Param::Iodepth
        | Param::Batch
        | Param::Reap
        | Param::SqPoll
        | Param::SerializeOverlap
        | Param::Jobs
        | Param::Cpus
        | Param::MemPolicy
        | Param::Direct
        | Param::Sync
        | Param::Cache
        | Param::FsyncEnd
        | Param::FsyncEvery
        | Param::FsyncData => ENGINE,
        Param::Runtime
        | Param::StartDelay
        | Param::TimeLimit
        | Param::IoSize
        | Param::Loops
        | Param::Ramp
        | Param::Rate
        | Param::RateIops
        | Param::Arrivals
        | Param::Think
        | Param::Flow
        | Param::Exit => TIMING,
        Param::Machine | Param::GuestConfig => PLACE,
        Param::Items
        | Param::Depth
        | Param::Fanout
        | Param::LeafOnly
        | Param::UniqueDir
        | Param::Stride
        | Param::FileSize => TREE,
    }
}

/// Whether a flag is among the few `-h` shows (`--help` shows all).
fn common(param: Param) -> bool {
    matches!(
        param,
        Param::Op
            | Param::Pattern
            | Param::Bs
            | Param::Size
            | Param::Engine
            | Param::Iodepth
            | Param::Jobs
            | Param::Direct
            | Param::Runtime
    )
}

fn flag(param: Param) -> Arg {
    let help = param.help().trim_end_matches('.').to_string();
    // `-h` shows the help up to its first clause; `--help` all of it.
    let mut short = [": ", " (", ". ", "; ", ", or "]
        .iter()
        .filter_map(|stop| help.find(stop))
        .min()
        .map_or(help.as_str(), |end| &help[..end])
        .to_string();
    let mut help = help.clone();
    if let Some(default) = param.default_text() {
        help.push_str(&format!(" [default: {default}]"));
        short.push_str(&format!(" [default: {default}]"));
    }
    let arg = Arg::new(param.name())
        .long(param.name())
        .value_name(param.value_name())
        .help(short)
        .long_help(help)
        .aliases(super::fio_words::aliases(param))
        .help_heading(heading(param))
        .hide_short_help(!common(param))
        .action(ArgAction::Set);
    // A split sets the block sizes; --bs beside it would be overridden.
    let arg = match param {
        Param::Bssplit => arg.conflicts_with(Param::Bs.name()),
        _ => arg,
    };
    // Shell completion offers the words a value may be (help keeps its own
    // text: the list is not printed there).
    let offered = offered_values(param);
    let arg = if offered.is_empty() {
        arg
    } else {
        arg.value_parser(Offered(offered))
            .hide_possible_values(true)
    };
    match param.kind() {
        // `--direct` alone is on; the next flag is not its value.
        crate::plan::param::Kind::Flag => arg.num_args(0..=1).default_missing_value("on"),
        // `--bs -4k` reaches the parser, which refuses it naming the flag.
        _ => arg.num_args(1).allow_hyphen_values(true),
    }
}

/// The words a value of `param` may be, for shell completion: the named
/// values of its kind (ops, engines, cache modes …); none for numbers,
/// sizes and durations.
fn offered_values(param: Param) -> Vec<PossibleValue> {
    use crate::plan::param::Kind;
    use clap::ValueEnum;
    fn named<T: ValueEnum>() -> Vec<PossibleValue> {
        T::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value)
            .collect()
    }
    match param.kind() {
        Kind::Flag => vec![PossibleValue::new("on"), PossibleValue::new("off")],
        Kind::Op => named::<crate::plan::Op>(),
        Kind::Sync => named::<crate::plan::SyncMode>(),
        Kind::Cache => named::<crate::plan::CacheMode>(),
        Kind::Arrivals => named::<crate::plan::pace::Arrivals>(),
        Kind::Machine => named::<crate::plan::Machine>(),
        Kind::Exit => named::<crate::plan::ExitScope>(),
        Kind::Engine => crate::plan::EngineKind::ALL
            .iter()
            .map(|engine| PossibleValue::new(engine.name()))
            .collect(),
        Kind::Pattern => ["seq", "reverse", "random", "uniform"]
            .map(PossibleValue::new)
            .to_vec(),
        _ => Vec::new(),
    }
}

/// A flag's value as text, parsed later by the parameter table, with the
/// words shell completion offers for it: only completion reads them, so a
/// value outside them (`stride:4`, a list `read,write` for a sweep) is
/// still the parameter's to accept or refuse.
#[derive(Clone)]
struct Offered(Vec<PossibleValue>);

impl clap::builder::TypedValueParser for Offered {
    type Value = String;

    fn parse_ref(
        &self,
        _command: &Command,
        _arg: Option<&Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().cloned()))
    }
}

impl clap::FromArgMatches for ParamFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut flags = ParamFlags::default();
        flags.update_from_arg_matches(matches)?;
        Ok(flags)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        for &flag in Param::ALL {
            if let Some(text) = matches.get_one::<String>(flag.name()) {
                // `--bs 4k=60,64k=40` is a block-size split: fio users write
                // its sizes where the block size goes.
                let param = match flag {
                    Param::Bs if text.contains(['=', '/']) => Param::Bssplit,
                    other => other,
                };
                self.given.retain(|(p, _)| *p != param);
                self.given.push((param, text.clone()));
            }
        }
        self.given
            .sort_by_key(|(param, _)| Param::ALL.iter().position(|p| p == param));
        Ok(())
    }
}

impl clap::Args for ParamFlags {
    fn augment_args(command: Command) -> Command {
        // By heading (what, how, how long, where), the common flags first
        // in each, and innermost axis first (op, bs, size …) among the rest.
        use super::heading::{ENGINE, TIMING, WORKLOAD};
        let rank = |param: Param| {
            let heading = [WORKLOAD, ENGINE, TIMING]
                .iter()
                .position(|h| *h == heading(param))
                .unwrap_or(3);
            let innermost_first =
                Param::ALL.len() - Param::ALL.iter().position(|p| *p == param).unwrap_or(0);
            (heading, !common(param), innermost_first)
        };
        let mut ordered = Param::ALL.to_vec();
        ordered.sort_by_key(|&param| rank(param));
        ordered
            .into_iter()
            .fold(command, |command, param| command.arg(flag(param)))
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}
