//! Study files: a named set of sweeps in TOML, each with its label, axes, fixed parameters and constraints, and the repetition policy.
//!
//! The format is documented in docs/study-files.md. Unknown keys and wrong
//! types are refused with the line they are on; the same file always expands
//! to the same plan.

use super::sweep::{Param, Sweep};
use super::{PlannedPoint, UsageError, Workload};
use crate::usage;
use serde::Deserialize;
use std::path::Path;
use toml::Spanned;

/// One scalar in a study file.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    /// `"4k"`, `"64k..1m"`, `"write,read"`.
    Text(String),
    /// `4096`.
    Integer(i64),
    /// `true`.
    Bool(bool),
}

/// A parameter's value: one scalar or an array of them.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// One value, list or range.
    One(Scalar),
    /// `["write", "read"]`, `[4096, "64k"]`.
    Many(Vec<Scalar>),
}

impl Scalar {
    fn spec(&self) -> String {
        match self {
            Scalar::Text(text) => text.clone(),
            Scalar::Integer(n) => n.to_string(),
            Scalar::Bool(b) => if *b { "on" } else { "off" }.to_string(),
        }
    }
}

impl ParamValue {
    /// The axis specification it stands for (`write,read`).
    pub fn spec(&self) -> String {
        match self {
            ParamValue::One(scalar) => scalar.spec(),
            ParamValue::Many(list) => list.iter().map(Scalar::spec).collect::<Vec<_>>().join(","),
        }
    }
}

/// The repetition policy of a study or of one sweep.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepeatSpec {
    /// Fixed number of measured repetitions.
    pub count: Option<Spanned<u32>>,
    /// Adaptive: target half-width of the 95% interval, `"2%"`.
    pub until_ci: Option<Spanned<String>>,
    /// Adaptive: fewest repetitions (default 3).
    pub min: Option<u32>,
    /// Adaptive: most repetitions (default 20).
    pub max: Option<u32>,
    /// Unmeasured repetitions first.
    pub warmup: Option<u32>,
    /// Every repetition draws the same random offsets, sizes, directions
    /// and data as the first (`--same-draws`).
    #[serde(default)]
    pub same_draws: bool,
    /// Rounds of the whole study (`--rounds`; with a guest, each boots it anew).
    pub rounds: Option<u32>,
    /// The order compared configurations alternate in (`--order`: `abba`,
    /// `random`, `as-given`, or `abba:AXIS`).
    pub order: Option<String>,
}

/// A study-file table's struct: its own fields, then one optional key per
/// workload parameter of the parameter table (`fsync-every`, also
/// `fsync_every`), each a value, a list or a range.
macro_rules! with_parameters {
    (
        [$(#[$meta:meta])* $name:ident { $($(#[$fmeta:meta])* $field:ident : $ty:ty,)* }]
        $(
            $(#[doc = $help:literal])+
            $variant:ident $pfield:ident : $pty:ty = $flag:literal $info:tt
            $(serde($($serde:tt)*))?
            $(study_alias($alias:literal))?
        )*
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: $ty,)*
            $(
                #[doc = concat!("`", $flag, "`:", $($help),+)]
                #[serde(rename = $flag $(, alias = $alias)?)]
                pub $pfield: Option<Spanned<ParamValue>>,
            )*
        }

        impl $name {
            /// The parameters set here with their values.
            pub fn parameters(&self) -> Vec<(Param, &Spanned<ParamValue>)> {
                [$((Param::$variant, &self.$pfield),)*]
                    .into_iter()
                    .filter_map(|(param, value)| value.as_ref().map(|v| (param, v)))
                    .collect()
            }
        }
    };
}

crate::for_each_parameter! {
    with_parameters,
    /// Parameters every sweep of the study starts from.
    #[derive(Default)]
    Defaults {
        /// Time-series interval, `"1s"`.
        interval: Option<Spanned<String>>,
        /// Steady-state criterion of time-based points, `"bw:slope<1%/10s"`.
        steady: Option<Spanned<String>>,
        /// Latency target of every point, `"500us,window=5s,percentile=99.9"`.
        latency_target: Option<Spanned<String>>,
        /// I/O priorities of every point, `"idle,20%:rt/0"`.
        priority: Option<Spanned<String>>,
    }
}

crate::for_each_parameter! {
    with_parameters,
    /// One sweep: a label, its parameters (values, lists or ranges) and constraints.
    SweepSpec {
        /// Names the sweep's points in tables (`"buffered: write seq 4KiB …"`).
        label: Spanned<String>,
        /// What the sweep is for.
        description: Option<String>,
        /// Constraints, such as `["bs<=size", "engine==uring"]`.
        #[serde(rename = "where")]
        constraints: Option<Vec<Spanned<String>>>,
        /// This sweep's own repetition policy.
        repeat: Option<RepeatSpec>,
        /// This sweep's own time-series interval, over `[defaults]`'s.
        interval: Option<Spanned<String>>,
        /// This sweep's own steady-state criterion, over `[defaults]`'s.
        steady: Option<Spanned<String>>,
        /// This sweep's own latency target, over `[defaults]`'s.
        latency_target: Option<Spanned<String>>,
        /// This sweep's own I/O priorities, over `[defaults]`'s.
        priority: Option<Spanned<String>>,
        /// Job groups: each point runs these workloads at once, each
        /// `[[sweep.group]]` its name and its own values over the sweep's
        /// (a list varies that group's parameter while the others stay).
        #[serde(default)]
        group: Vec<GroupSpec>,
    }
}

crate::for_each_parameter! {
    with_parameters,
    /// One group of a sweep's points: its name and its own parameters.
    GroupSpec {
        /// Names the group in tables, records and `--metric NAME.…`.
        name: Spanned<String>,
        /// The group's own steady-state criterion (`--steady` in its
        /// segment of `run`).
        steady: Option<Spanned<String>>,
        /// The group's own latency target.
        latency_target: Option<Spanned<String>>,
        /// The group's own I/O priorities.
        priority: Option<Spanned<String>>,
    }
}

/// A study file's `key = "…"` read as a `T` (a steady-state criterion, a
/// latency target); its line named when bad.
fn parsed<T: std::str::FromStr<Err = String>>(
    given: &Option<Spanned<String>>,
    key: &str,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Option<T>, UsageError> {
    given
        .as_ref()
        .map(|text| {
            text.get_ref()
                .parse()
                .map_err(|e| usage!("{}: {key}: {e}", at(text.span())))
        })
        .transpose()
}

/// The table a study's publication printed, which iolab prints for its
/// result in the same shape (`table = "…"` in a study file; every preset
/// sets it). The result file records it (`plan.table`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StudyTable {
    /// CLOSER 2011, Table 1: time and speed per block size, for dd's
    /// buffered and O_DIRECT writes and reads.
    DdBlocksize,
    /// CLOSER 2011, Table 2: time and speed per data size with 1 MiB blocks.
    DdDatasize,
    /// Varlyakov 2013: atop's line per layer of the device stack, and the
    /// logical to physical I/O ratios between layers.
    AtopLayers,
    /// Radkov et al., FAST 2004, Table 4: completion time, network messages
    /// and bytes of sequential and random 4 KiB reads and writes.
    Table4,
    /// Pinilla: IOzone's `-R` report, one file size × record size matrix per operation.
    IozoneReport,
    /// "I/O Measurements" 2017: normal against O_DIRECT time per run, and
    /// the percentage O_DIRECT is faster.
    DirectVsNormal,
    /// Radkov et al., FAST 2004, the metadata half: per operation, its time
    /// and the requests it cost, one column group per medium.
    Metadata,
}

/// A whole study file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Study {
    /// Names the study and its default output file.
    pub name: Spanned<String>,
    /// What the study is for.
    pub description: Option<String>,
    /// The publication's table to print for the result.
    pub table: Option<StudyTable>,
    /// Scratch directory (the command line's `--dir` wins).
    pub dir: Option<String>,
    /// The repetition policy of every sweep without its own.
    #[serde(default)]
    pub repeat: RepeatSpec,
    /// Parameters every sweep starts from.
    #[serde(default)]
    pub defaults: Defaults,
    /// The sweeps, run in order.
    #[serde(rename = "sweep", default)]
    pub sweeps: Vec<SweepSpec>,
    /// A knee search over every point (`knee = "p99<=2ms"`, as `sweep
    /// --knee`): the point with the most IOPS whose latency percentile
    /// stays within the limit, chosen after the study has run.
    pub knee: Option<super::knee::KneeTarget>,
    /// With `knee`: run every point (`knee_all = true`, as `sweep
    /// --knee-all`) instead of stopping once two points in a row along a
    /// rising load are over the target.
    #[serde(default)]
    pub knee_all: bool,
    /// A guest to measure every point in too (`--guest`): its keys as
    /// `--guest` takes them, `accel = "tcg"`, `memory = 2048`.
    pub guest: Option<toml::Table>,
    /// Keys every `--guest` given on the command line takes unless it gives
    /// them itself (`memory = 256`: the study's guest had 256 MB); no guest
    /// is booted for them alone.
    pub guest_defaults: Option<toml::Table>,
}

/// The axis a study-file parameter's value stands for (one value, or a
/// list or range); a duration without its unit is refused, as 5 could be
/// seconds or milliseconds.
fn parameter_axis(
    param: Param,
    value: &Spanned<ParamValue>,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<super::sweep::Axis, UsageError> {
    let bare = match value.get_ref() {
        ParamValue::One(Scalar::Integer(n)) => Some(*n),
        ParamValue::Many(list) => list.iter().find_map(|scalar| match scalar {
            Scalar::Integer(n) => Some(*n),
            _ => None,
        }),
        ParamValue::One(_) => None,
    };
    if let (crate::plan::param::Kind::Duration { .. } | crate::plan::param::Kind::Think, Some(n)) =
        (param.kind(), bare)
    {
        return Err(usage!(
            "{}: {} = {n}: give a duration with its unit, as a string (\"{n}s\", \"{n}ms\")",
            at(value.span()),
            param.name()
        ));
    }
    super::sweep::parse_axis(param, &value.get_ref().spec())
        .map_err(|e| usage!("{}: {e}", at(value.span())))
}

/// A `[guest]`-like table as `--guest` pairs (`memory=256`), checked
/// key by key; `name` is the table's, for messages.
fn guest_pairs(name: &str, table: &toml::Table) -> Result<Vec<String>, UsageError> {
    let mut pairs = Vec::new();
    for (key, value) in table {
        let text = match value {
            toml::Value::String(text) => text.clone(),
            toml::Value::Integer(n) => n.to_string(),
            toml::Value::Boolean(on) => if *on { "on" } else { "off" }.to_string(),
            other => {
                return Err(usage!(
                    "[{name}] {key} = {other}: give a string, a whole number or true/false"
                ));
            }
        };
        if text.contains(',') {
            return Err(usage!(
                "[{name}] {key} = \"{text}\": a value holds no comma"
            ));
        }
        pairs.push(format!("{key}={text}"));
    }
    // Checked here, so a bad key is named before anything runs.
    super::GuestSpec::parse(&pairs.join(","))?;
    Ok(pairs)
}

/// Where `text` has a byte offset, as `line N`.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The longest study name: `<name>.json` and the files beside it
/// (`.<name>.json.tmp-<pid>`, `<name>.json.journal`) must fit the 255 bytes
/// file systems allow.
const MAX_NAME_BYTES: usize = 200;

impl Study {
    /// The `[guest]` table as `--guest` text (`accel=tcg,memory=2048`); a
    /// value that is not a string or a whole number is refused by key.
    pub fn guest_text(&self) -> Result<Option<String>, UsageError> {
        self.guest
            .as_ref()
            .map(|table| guest_pairs("guest", table).map(|pairs| pairs.join(",")))
            .transpose()
    }

    /// Each `--guest` text with the `[guest_defaults]` keys it does not
    /// give itself put before its own.
    pub fn with_guest_defaults(&self, given: &[String]) -> Result<Vec<String>, UsageError> {
        let Some(table) = &self.guest_defaults else {
            return Ok(given.to_vec());
        };
        let defaults = guest_pairs("guest_defaults", table)?;
        Ok(given
            .iter()
            .map(|text| {
                let keys: Vec<&str> = text
                    .split(',')
                    .filter_map(|pair| pair.split_once('=').map(|(key, _)| key.trim()))
                    .collect();
                let mut pairs: Vec<&str> = defaults
                    .iter()
                    .filter(|pair| !keys.iter().any(|key| pair.starts_with(&format!("{key}="))))
                    .map(String::as_str)
                    .collect();
                pairs.extend(text.split(',').filter(|pair| !pair.trim().is_empty()));
                pairs.join(",")
            })
            .collect())
    }

    /// Parses a study file's text; `source` names it in errors.
    pub fn parse(text: &str, source: &Path) -> Result<(Study, String), UsageError> {
        let study: Study = toml::from_str(text).map_err(|error| {
            let line = error.span().map_or_else(String::new, |span| {
                format!(" line {}", line_of(text, span.start))
            });
            // serde's words for a value of the wrong type name its own
            // enum; say what a parameter takes instead.
            let message = error.message().replace('\n', " ");
            let message = if message.contains("untagged enum ParamValue") {
                "a parameter takes a string (\"4k\", \"64k..1m\", \"write,read\"), an integer, \
                 true or false, or an array of them"
                    .to_string()
            } else {
                message.trim_end().to_string()
            };
            usage!("study {}{line}: {message}", source.display())
        })?;
        if study.knee_all && study.knee.is_none() {
            return Err(usage!(
                "study {}: knee_all = true needs a knee = \"pNN<=DURATION\" to search with",
                source.display()
            ));
        }
        let name = study.name.get_ref().trim();
        // The name becomes the result file's (`<name>.json`, its journal and
        // report beside it), and is printed: a path part, a control character
        // or a name too long for a file system is refused here, not after
        // the study has run.
        let problem = if name.is_empty() || name.contains('/') || name == "." || name == ".." {
            Some("must be non-empty, not . or .., and contain no '/'".to_string())
        } else {
            super::text_problem(name, MAX_NAME_BYTES)
        };
        if let Some(problem) = problem {
            return Err(usage!(
                "study {} line {}: name {} {problem}",
                source.display(),
                line_of(text, study.name.span().start),
                super::quoted(name)
            ));
        }
        if study.sweeps.is_empty() {
            return Err(usage!("study {}: no [[sweep]] table", source.display()));
        }
        Ok((study, text.to_string()))
    }

    /// Every point of every sweep, in order; `text` is the file's text (for line numbers).
    pub fn plan(
        &self,
        base: &Workload,
        text: &str,
        source: &Path,
    ) -> Result<Vec<PlannedPoint>, UsageError> {
        let at = |span: std::ops::Range<usize>| {
            format!(
                "study {} line {}",
                source.display(),
                line_of(text, span.start)
            )
        };
        let mut start = base.clone();
        if let Some(interval) = &self.defaults.interval {
            let seconds = crate::plan::units::parse_interval(interval.get_ref())
                .map_err(|e| usage!("{}: interval: {e}", at(interval.span())))?;
            start.interval_s = seconds.as_secs_f64();
        }
        if let Some(steady) = parsed(&self.defaults.steady, "steady", &at)? {
            start.steady = Some(steady);
        }
        if let Some(target) = parsed(&self.defaults.latency_target, "latency_target", &at)? {
            start.latency_target = Some(target);
        }
        if let Some(priority) = parsed(&self.defaults.priority, "priority", &at)? {
            start.priority = Some(priority);
        }
        let mut points: Vec<PlannedPoint> = Vec::new();
        let mut labels = std::collections::HashSet::new();
        for sweep in &self.sweeps {
            let label = sweep.label.get_ref().trim().to_string();
            if let Some(problem) = super::text_problem(&label, super::MAX_LABEL_BYTES) {
                return Err(usage!(
                    "{}: sweep label {} {problem}",
                    at(sweep.label.span()),
                    super::quoted(&label)
                ));
            }
            if label.is_empty() || !labels.insert(label.clone()) {
                return Err(usage!(
                    "{}: sweep label '{label}' must be non-empty and unique",
                    at(sweep.label.span())
                ));
            }
            let mut workload = start.clone();
            if let Some(interval) = &sweep.interval {
                let seconds = crate::plan::units::parse_interval(interval.get_ref())
                    .map_err(|e| usage!("{}: interval: {e}", at(interval.span())))?;
                workload.interval_s = seconds.as_secs_f64();
            }
            if let Some(steady) = parsed(&sweep.steady, "steady", &at)? {
                workload.steady = Some(steady);
            }
            if let Some(target) = parsed(&sweep.latency_target, "latency_target", &at)? {
                workload.latency_target = Some(target);
            }
            if let Some(priority) = parsed(&sweep.priority, "priority", &at)? {
                workload.priority = Some(priority);
            }
            policy(
                sweep.repeat.as_ref().unwrap_or(&self.repeat),
                &mut workload,
                &at,
            )?;
            let mut grid = Sweep {
                base: workload,
                axes: Vec::new(),
                constraints: Vec::new(),
                label: Some(label),
                groups: Vec::new(),
            };
            // Defaults first, then the sweep's own values replace them.
            let mut parameters = self.defaults.parameters();
            for (param, value) in sweep.parameters() {
                parameters.retain(|(p, _)| *p != param);
                parameters.push((param, value));
            }
            let given = |wanted: Param| parameters.iter().find(|(p, _)| *p == wanted);
            if let (Some((_, bs)), Some((_, split))) = (given(Param::Bs), given(Param::Bssplit)) {
                return Err(usage!(
                    "{}: bs (line {}) with bssplit: give one; bssplit sets the block sizes",
                    at(split.span()),
                    line_of(text, bs.span().start)
                ));
            }
            for (param, value) in parameters {
                let axis = parameter_axis(param, value, &at)?;
                match axis.values.as_slice() {
                    [single] => param.apply(&mut grid.base, *single),
                    _ => grid.axes.push(axis),
                }
            }
            for group in &sweep.group {
                let mut spec = super::sweep::groups::GroupSweep {
                    name: group.name.get_ref().trim().to_string(),
                    fixed: Vec::new(),
                    axes: Vec::new(),
                    verify: false,
                    steady: parsed(&group.steady, "steady", &at)?,
                    latency_target: parsed(&group.latency_target, "latency_target", &at)?,
                    priority: parsed(&group.priority, "priority", &at)?,
                };
                if let Some(problem) = super::group::name_problem(&spec.name) {
                    return Err(usage!(
                        "{}: group name '{}' {problem}",
                        at(group.name.span()),
                        spec.name
                    ));
                }
                for (param, value) in group.parameters() {
                    let axis = parameter_axis(param, value, &at)?;
                    match axis.values.as_slice() {
                        [single] => spec.fixed.push((param, *single)),
                        _ => spec.axes.push(axis),
                    }
                }
                grid.groups.push(spec);
            }
            for constraint in sweep.constraints.iter().flatten() {
                grid.constraints.extend(
                    super::constraint::Constraint::parse_all(constraint.get_ref())
                        .map_err(|e| usage!("{}: {e}", at(constraint.span())))?,
                );
            }
            grid.base
                .validate()
                .or_else(|e| if grid.axes.is_empty() { Err(e) } else { Ok(()) })
                .map_err(|e| usage!("{}: {e}", at(sweep.label.span())))?;
            points.extend(
                grid.expand()
                    .map_err(|e| usage!("{}: {e}", at(sweep.label.span())))?,
            );
            if points.len() > super::sweep::MAX_POINTS {
                return Err(usage!(
                    "{}: the study has more than {} points",
                    at(sweep.label.span()),
                    super::sweep::MAX_POINTS
                ));
            }
        }
        Ok(points)
    }
}

fn policy(
    spec: &RepeatSpec,
    workload: &mut Workload,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<(), UsageError> {
    workload.warmup = spec.warmup.unwrap_or(0);
    workload.same_draws = spec.same_draws;
    match (&spec.count, &spec.until_ci) {
        (Some(count), Some(_)) => Err(usage!(
            "{}: give either count or until_ci",
            at(count.span())
        )),
        (Some(count), None) => {
            workload.repeat = *count.get_ref();
            Ok(())
        }
        (None, Some(target)) => {
            let text = target.get_ref().trim().trim_end_matches('%');
            let percent: f64 = text.parse().map_err(|_| {
                usage!(
                    "{}: until_ci '{}' is not a percentage",
                    at(target.span()),
                    target.get_ref()
                )
            })?;
            workload.until_ci = Some(percent / 100.0);
            workload.repeat = spec.min.unwrap_or(super::DEFAULT_MIN_REPEAT);
            workload.max_repeat = Some(spec.max.unwrap_or(super::DEFAULT_MAX_REPEAT));
            Ok(())
        }
        (None, None) => {
            workload.repeat = 1;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests;
