//! The workload parameters: one table, from which the command-line flags, sweep axes, study-file keys, defaults, the result's workload fields and compare's matching are derived.
//!
//! [`for_each_parameter!`](crate::for_each_parameter) (`param/table.rs`) holds the table. Each entry gives a parameter's
//! help (its doc comment: the flag's help and the result field's doc), the
//! variant of [`Param`], the [`Workload`] field and its type, the flag
//! name, how values are written ([`Kind`]), the default, whether it
//! identifies a point when results are compared, the fio options it
//! comes from, and another spelling study files may use for its key.
//! Macros elsewhere expand the same table: the [`Workload`] struct
//! (`plan`), the study file's keys (`plan::study`). The flags of
//! `run` and `sweep` are built from [`Param::ALL`] (`cli::params`), and
//! `import` maps fio's options with one exhaustive `match` over [`Param`].
//! docs/ARCHITECTURE.md has the recipe for a new parameter.

use super::cpus::CpuSet;
use super::data::DataPattern;
use super::direction::DirectionMix;
use super::group::ExitScope;
use super::guest::Machine;
use super::numa::MemPolicy;
use super::pace::{Arrivals, Flow, MAX_RATE_IOPS, ThinkTime};
use super::rate::{DirectionRates, Rate};
use super::split::BlockSplit;
use super::trace::{TracePath, TraceSpeed};
use super::units::{format_rate, format_size, parse_duration, parse_rate, parse_size};
use super::zbd::Zbd;
use super::{CacheMode, EngineKind, Op, Pattern, SyncMode, Workload};

/// The schema's pattern of a [`Zbd`](super::zbd::Zbd), as its `Display` writes it.
const ZBD_PATTERN: &str = "^[0-9]+(\\.[0-9]+)?[KMGT]iB(,capacity=[0-9]+(\\.[0-9]+)?[KMGT]iB)?(,open=[1-9][0-9]*)?(,reset=[0-9.]+/[0-9.]+)?(,read-beyond-wp)?$";

/// The schema's pattern of a [`Flow`] share, as its `Display` writes it.
const FLOW_PATTERN: &str = "^[1-9][0-9]*(:id=[0-9]+)?(:sleep=[0-9]+(ns|us|ms|s))?$";

mod table;
mod value;

pub use value::{Kind, Operand, Stored, Value};

macro_rules! param_enum {
    (
        [$($args:tt)*]
        $(
            $(#[doc = $help:literal])+
            $variant:ident $field:ident : $ty:ty = $flag:literal {
                kind: $kind:expr, default: $default:expr, identifies: $identifies:expr, fio: $fio:literal,
            }
            $(serde($($serde:tt)*))?
            $(study_alias($alias:literal))?
        )*
    ) => {
        /// A workload parameter: a flag of `run` and `sweep`, a sweep axis, a
        /// study-file key and a field of the result's workload.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Param {
            $($(#[doc = $help])+ $variant,)*
        }

        impl Param {
            /// Every parameter, outermost sweep axis first.
            pub const ALL: &'static [Param] = &[$(Param::$variant,)*];

            /// The flag name without dashes (`fsync-every`), also the study-file key.
            pub fn name(self) -> &'static str {
                match self { $(Param::$variant => $flag,)* }
            }

            /// The name of the [`Workload`] field in the result file (`runtime_s`).
            pub fn field(self) -> &'static str {
                match self { $(Param::$variant => stringify!($field),)* }
            }

            /// The help: what the parameter means, one paragraph.
            pub fn help(self) -> String {
                let lines: &[&str] = match self { $(Param::$variant => &[$($help),+],)* };
                lines.iter().map(|line| line.trim()).collect::<Vec<_>>().join(" ")
            }

            /// How its values are written.
            pub fn kind(self) -> Kind {
                use Kind::*;
                match self { $(Param::$variant => $kind,)* }
            }

            /// Its default as written on the command line; `None`: absent by default.
            pub fn default_text(self) -> Option<&'static str> {
                match self { $(Param::$variant => $default,)* }
            }

            /// Whether two points differing in it are different workloads
            /// (compare matches points on these); how long a point was
            /// measured does not identify it.
            pub fn identifies(self) -> bool {
                match self { $(Param::$variant => $identifies,)* }
            }

            /// The fio job options it is imported from.
            pub fn fio_options(self) -> &'static str {
                match self { $(Param::$variant => $fio,)* }
            }

            /// Sets this parameter of `workload` to `value`, a value of its kind.
            pub fn apply(self, workload: &mut Workload, value: Value) {
                match self {
                    $(Param::$variant => {
                        workload.$field = Stored::store(value).unwrap_or_else(|| {
                            unreachable!("{value:?} is not a value of {}", $flag)
                        });
                    })*
                }
                self.imply(workload);
            }

            /// Puts this parameter of `workload` back to its default.
            pub fn reset(self, workload: &mut Workload) {
                match self {
                    $(Param::$variant => {
                        workload.$field = default_of::<$ty>(self);
                    })*
                }
            }

            /// The value this parameter has in `workload`; `None` when absent.
            pub fn value_in(self, workload: &Workload) -> Option<Value> {
                match self { $(Param::$variant => workload.$field.load(),)* }
            }
        }
    };
}

crate::for_each_parameter!(param_enum);

/// Whether a duration is 0, for fields recorded only when set (`start_delay_s`).
pub fn is_zero_seconds(value: &f64) -> bool {
    *value == 0.0
}

/// Whether a byte count is 0, for fields recorded only when set (`offset`).
pub fn is_zero_bytes(value: &u64) -> bool {
    *value == 0
}

/// A field's default: the parameter's default text parsed, or absent.
pub fn default_of<T: Stored>(param: Param) -> T {
    let stored = match param.default_text() {
        Some(text) => param.parse_value(text).ok().and_then(T::store),
        None => T::absent(),
    };
    stored.unwrap_or_else(|| unreachable!("the default of {} is of its kind", param.name()))
}

impl Param {
    /// What setting this parameter says of another: shares of a mix make
    /// the op `mix`, wherever they come from (a flag, a sweep axis, a study
    /// file, an import). An op given beside them is applied after (the op
    /// is the table's last entry) and, when it is not `mix`, refused by
    /// [`Workload::validate`].
    fn imply(self, workload: &mut Workload) {
        if self == Param::Mix && workload.mix.is_some() {
            workload.op = Op::Mix;
        }
        if let (Param::Bssplit, Some(split)) = (self, workload.bssplit) {
            workload.bs = split.smallest();
        }
        // Rates for more than one direction draw the directions themselves,
        // in their proportion (a --mix beside them must agree: validate).
        let rate = match self {
            Param::Rate => workload.rate,
            Param::RateIops => workload.rate_iops,
            _ => None,
        };
        if let Some(Rate::Directions(rates)) = rate
            && rates.named().count() > 1
            && let Some(mix) = rates.implied_mix()
        {
            workload.mix = Some(mix);
            workload.op = Op::Mix;
        }
    }

    /// The parameter named `name` (`fsync-every` or `fsync_every`, or the
    /// result field's name, `runtime_s`).
    pub fn from_name(name: &str) -> Option<Param> {
        let dashed = name.replace('_', "-");
        Param::ALL
            .iter()
            .copied()
            .find(|p| p.name() == dashed || p.field() == name)
    }

    /// Whether sweep axes of it may be ranges (`512..1m`).
    pub fn ranged(self) -> bool {
        matches!(
            self.kind(),
            Kind::Count { .. }
                | Kind::Size
                | Kind::Offset
                | Kind::Rate
                | Kind::Iops
                | Kind::Duration { .. }
        )
    }

    /// Whether a point's description (`write seq 4KiB psync qd4 x2 direct`,
    /// then `file SIZE`) shows it; a sweep's labels add `name=value` for the
    /// varying parameters it does not.
    pub fn described(self) -> bool {
        matches!(
            self,
            Param::Trace
                | Param::TraceSpeed
                | Param::Op
                | Param::Pattern
                | Param::Bs
                | Param::Bssplit
                | Param::WriteBs
                | Param::Zbd
                | Param::Align
                | Param::Size
                | Param::Offset
                | Param::Engine
                | Param::Iodepth
                | Param::Batch
                | Param::Reap
                | Param::SqPoll
                | Param::Jobs
                | Param::Cpus
                | Param::MemPolicy
                | Param::Mix
                | Param::Direct
                | Param::Sync
                | Param::FsyncEnd
                | Param::Rate
                | Param::RateIops
                | Param::Arrivals
                | Param::Think
                | Param::Flow
                | Param::Exit
                | Param::Items
                | Param::Depth
                | Param::Fanout
                | Param::LeafOnly
                | Param::UniqueDir
                | Param::Stride
                | Param::FileSize
        )
    }

    /// What its values look like, for help texts: `SIZE`, `on|off`.
    pub fn value_name(self) -> String {
        match self.kind() {
            Kind::Flag => "on|off".to_string(),
            Kind::Count { .. } => "N".to_string(),
            Kind::Size | Kind::Offset => "SIZE".to_string(),
            Kind::Duration { .. } => "DURATION".to_string(),
            Kind::Pattern => "PATTERN".to_string(),
            Kind::Cpus => "CPUS".to_string(),
            Kind::MemPolicy => "POLICY[:NODES]".to_string(),
            Kind::Mix => "read=R,write=W".to_string(),
            Kind::Split => "SIZE=PCT,SIZE=PCT…".to_string(),
            Kind::Data => "unique|zeros|compressible:PCT|dedupe:PCT[:…]".to_string(),
            Kind::Rate => "BYTES/s|read=BYTES/s+write=…".to_string(),
            Kind::Iops => "N|read=N+write=N".to_string(),
            Kind::Think => "DURATION[:every=N]".to_string(),
            Kind::Flow => "WEIGHT[:id=N][:sleep=DURATION]".to_string(),
            Kind::Zbd => {
                "ZONE-SIZE[,open=N][,capacity=SIZE][,reset=T/F][,read-beyond-wp]".to_string()
            }
            Kind::Trace => "TRACE".to_string(),
            Kind::Speed => "FACTOR|afap".to_string(),
            // Fourteen ops would push the help's columns past the terminal:
            // its help and `[possible values]` list them.
            Kind::Op => "OP".to_string(),
            Kind::Engine
            | Kind::Sync
            | Kind::Cache
            | Kind::Arrivals
            | Kind::Machine
            | Kind::Exit => self.choices().join("|"),
        }
    }

    /// The names a value of an enumerated kind may take (empty for others).
    pub fn choices(self) -> Vec<String> {
        fn names<T: clap::ValueEnum>() -> Vec<String> {
            T::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value())
                .map(|v| v.get_name().to_string())
                .collect()
        }
        match self.kind() {
            Kind::Op => names::<Op>(),
            Kind::Engine => names::<EngineKind>(),
            Kind::Sync => names::<SyncMode>(),
            Kind::Cache => names::<CacheMode>(),
            Kind::Arrivals => names::<Arrivals>(),
            Kind::Machine => names::<Machine>(),
            Kind::Exit => names::<ExitScope>(),
            _ => Vec::new(),
        }
    }

    /// Parses one value.
    pub fn parse_value(self, text: &str) -> Result<Value, String> {
        let text = text.trim();
        // A refused name lists the valid ones; fio's rw words name their
        // iolab spelling.
        let refusal = |text: &str, what: &str| {
            let hint = match self.kind() {
                Kind::Op => {
                    fio_rw_spelling(text).map(|iolab| format!(": fio's rw={text} is {iolab}"))
                }
                _ => None,
            };
            format!(
                "'{text}' is not a valid {what}{}",
                hint.unwrap_or_else(|| format!(" (one of {})", self.choices().join(", ")))
            )
        };
        fn enum_value<T: clap::ValueEnum>(
            text: &str,
            refused: impl FnOnce() -> String,
        ) -> Result<T, String> {
            T::from_str(text, true).map_err(|_| refused())
        }
        Ok(match self.kind() {
            Kind::Flag => Value::Flag(match text.to_ascii_lowercase().as_str() {
                "on" | "true" | "yes" | "1" => true,
                "off" | "false" | "no" | "0" => false,
                _ => return Err(format!("'{text}' is not on or off")),
            }),
            Kind::Count { min, max } => {
                let n = text
                    .parse::<u64>()
                    .map_err(|_| format!("'{text}' is not a whole number"))?;
                if !(min..=max).contains(&n) {
                    return Err(format!("must be between {min} and {max}"));
                }
                Value::Number(n)
            }
            Kind::Size => Value::Number(parse_size(text)?),
            // 0, 0B, 0k: at the start (a size refuses zero).
            Kind::Offset
                if text.trim().starts_with('0')
                    && text
                        .trim()
                        .trim_start_matches('0')
                        .chars()
                        .all(|c| c.is_ascii_alphabetic()) =>
            {
                Value::Number(0)
            }
            Kind::Offset => Value::Number(parse_size(text)?),
            Kind::Duration { positive } => {
                let seconds = parse_duration(text)?.as_secs_f64();
                if positive && seconds == 0.0 {
                    return Err("must be longer than zero".to_string());
                }
                Value::Seconds(seconds)
            }
            Kind::Op => Value::Op(enum_value(text, || refusal(text, "op"))?),
            Kind::Engine => Value::Engine(enum_value(text, || refusal(text, "engine"))?),
            Kind::Sync => Value::Sync(enum_value(text, || refusal(text, "sync mode"))?),
            Kind::Cache => Value::Cache(enum_value(text, || refusal(text, "cache treatment"))?),
            Kind::Pattern => Value::Pattern(text.parse()?),
            Kind::Cpus => Value::Cpus(text.parse()?),
            Kind::MemPolicy => Value::MemPolicy(text.parse()?),
            Kind::Mix => Value::Mix(text.parse()?),
            Kind::Data => Value::Data(text.parse()?),
            Kind::Split => Value::Split(text.parse()?),
            Kind::Rate if text.contains('=') => {
                Value::Rates(DirectionRates::parse(text, parse_rate)?)
            }
            Kind::Rate => Value::Number(parse_rate(text)?),
            Kind::Iops => {
                let count = |text: &str| {
                    text.parse::<u64>()
                        .ok()
                        .filter(|n| (1..=MAX_RATE_IOPS).contains(n))
                        .ok_or_else(|| {
                            format!("'{text}' is not a whole number from 1 to {MAX_RATE_IOPS}")
                        })
                };
                if text.contains('=') {
                    Value::Rates(DirectionRates::parse(text, count)?)
                } else {
                    Value::Number(count(text)?)
                }
            }
            Kind::Arrivals => Value::Arrivals(enum_value(text, || refusal(text, "arrival law"))?),
            Kind::Exit => Value::Exit(enum_value(text, || {
                refusal(text, "exit scope (none, group or point)")
            })?),
            Kind::Think => Value::Think(text.parse()?),
            Kind::Flow => Value::Flow(text.parse::<Flow>()?),
            Kind::Zbd => Value::Zbd(text.parse::<super::zbd::Zbd>()?),
            Kind::Machine => Value::Machine(enum_value(text, || {
                refusal(text, "machine (host or guest)")
            })?),
            Kind::Trace => Value::Trace(text.parse::<TracePath>()?),
            Kind::Speed => Value::Speed(text.parse::<TraceSpeed>()?),
        })
    }

    /// Refuses a value its field cannot hold or the parameter does not
    /// accept (a count out of bounds, a negative duration), as
    /// [`Param::parse_value`] would: for values built from other sources,
    /// such as fio's options.
    pub fn check(self, value: Value) -> Result<Value, String> {
        match (self.kind(), value) {
            (Kind::Count { min, max }, Value::Number(n)) if !(min..=max).contains(&n) => {
                Err(format!("{n} must be between {min} and {max}"))
            }
            (Kind::Size, Value::Number(0)) => Err("a size of 0".to_string()),
            (Kind::Rate | Kind::Iops, Value::Number(0)) => Err("a rate of 0".to_string()),
            (Kind::Iops, Value::Number(n)) if n > MAX_RATE_IOPS => {
                Err(format!("{n} I/Os per second is above {MAX_RATE_IOPS}"))
            }
            (Kind::Rate | Kind::Iops, Value::Rates(rates))
                if rates.named().any(|(_, rate)| rate == 0)
                    || (self.kind() == Kind::Iops
                        && rates.named().any(|(_, rate)| rate > MAX_RATE_IOPS)) =>
            {
                Err(format!("a rate per direction out of range: {rates}"))
            }
            (Kind::Duration { positive }, Value::Seconds(s))
                if !s.is_finite() || s < 0.0 || (positive && s == 0.0) =>
            {
                Err(format!("{s} s is not a duration it takes"))
            }
            _ => Ok(value),
        }
    }

    /// A value as written on the command line, for labels (`4KiB`, `5s`, `on`).
    pub fn format_value(self, value: Value) -> String {
        match value {
            Value::Number(n) if matches!(self.kind(), Kind::Size | Kind::Offset) => format_size(n),
            Value::Number(n) if self.kind() == Kind::Rate => format_rate(n),
            Value::Number(n) => n.to_string(),
            Value::Seconds(s) => format!("{s}s"),
            Value::Flag(on) => if on { "on" } else { "off" }.to_string(),
            Value::Op(op) => op.name().to_string(),
            Value::Engine(engine) => engine.name().to_string(),
            Value::Sync(mode) => mode.name().to_string(),
            Value::Cache(mode) => format!("{mode:?}").to_lowercase(),
            Value::Pattern(pattern) => pattern.to_string(),
            Value::Cpus(set) => set.to_string(),
            Value::MemPolicy(policy) => policy.to_string(),
            Value::Mix(mix) => mix.to_string(),
            Value::Data(data) => data.to_string(),
            Value::Split(split) => split.to_string(),
            Value::Arrivals(law) => law.name().to_string(),
            Value::Think(think) => think.to_string(),
            Value::Flow(flow) => flow.to_string(),
            Value::Zbd(zbd) => zbd.to_string(),
            Value::Machine(machine) => machine.name().to_string(),
            Value::Exit(scope) => scope.name().to_string(),
            Value::Trace(path) => path.to_string(),
            Value::Speed(speed) => speed.to_string(),
            Value::Rates(rates) if self.kind() == Kind::Rate => rates.format(format_rate),
            Value::Rates(rates) => rates.to_string(),
        }
    }

    /// This parameter's value in `workload`, as a number for comparisons
    /// (booleans are 0 and 1; an absent duration 0) or as text for names
    /// (an absent CPU set is `all`).
    pub fn read(self, workload: &Workload) -> Operand {
        match self.value_in(workload) {
            Some(Value::Number(n)) => Operand::Number(n as f64),
            Some(Value::Seconds(s)) => Operand::Number(s),
            Some(Value::Flag(on)) => Operand::Number(f64::from(u8::from(on))),
            // A rate per direction compares as the job's rate in all.
            Some(Value::Rates(rates)) => Operand::Number(rates.total() as f64),
            Some(value) => Operand::Text(self.format_value(value)),
            None if self.kind() == Kind::Cpus => Operand::Text("all".to_string()),
            None => Operand::Number(0.0),
        }
    }

    /// The JSON Schema of its field in the result file's workload.
    pub fn schema(self) -> serde_json::Value {
        use serde_json::json;
        match self.kind() {
            Kind::Flag => json!({ "type": "boolean" }),
            Kind::Count { min: 0, .. } => json!({ "$ref": "#/$defs/count" }),
            Kind::Count { min, .. } => json!({ "type": "integer", "minimum": min }),
            Kind::Size => json!({ "type": "integer", "minimum": 1 }),
            Kind::Offset => json!({ "$ref": "#/$defs/count" }),
            Kind::Duration { positive: true } => {
                json!({ "type": ["number", "null"], "exclusiveMinimum": 0 })
            }
            Kind::Duration { positive: false } => json!({ "$ref": "#/$defs/nonneg" }),
            Kind::Pattern => json!({
                "type": "string",
                "pattern": "^(seq|reverse|random|uniform|stride:[1-9][0-9]*|bands:[1-9][0-9]*/[0-9]+|sequence(-stride)?:[0-9]+(:[0-9]+){0,63}|(zipf|pareto|normal):[0-9]*(\\.[0-9]{1,3})?|zoned:[0-9]+/[0-9]+(:[0-9]+/[0-9]+)*)$"
            }),
            Kind::Cpus => json!({
                "type": "string",
                "pattern": "^[0-9]+(-[0-9]+)?(\\+[0-9]+(-[0-9]+)?)*$"
            }),
            Kind::Mix => json!({
                "type": "string",
                "pattern": "^(read=[1-9][0-9]?(,write=[1-9][0-9]?)?(,trim=[1-9][0-9]?)?|write=[1-9][0-9]?(,trim=[1-9][0-9]?)?|read=100|write=100|trim=100)$"
            }),
            Kind::Data => json!({
                "type": "string",
                "pattern": "^(unique|zeros|pattern:0x([0-9a-f]{2}){1,32}|compressible:[1-9][0-9]?|(compressible:[1-9][0-9]?\\+)?dedupe:[1-9][0-9]?(:working-set=[1-9][0-9]{0,2}(:global)?)?)$"
            }),
            Kind::Split => json!({
                "type": "string",
                "pattern": "^([0-9]+(B|KiB|MiB|GiB|TiB)|[0-9]+(B|KiB|MiB|GiB|TiB)=[1-9][0-9]*(,[0-9]+(B|KiB|MiB|GiB|TiB)=[1-9][0-9]*)*)$"
            }),
            Kind::Rate | Kind::Iops => {
                let rate = json!({ "type": "integer", "minimum": 1 });
                json!({ "oneOf": [rate, {
                    "type": "object",
                    "properties": { "read": rate, "write": rate, "trim": rate },
                    "additionalProperties": false,
                    "minProperties": 1
                }] })
            }
            Kind::Think => json!({
                "type": "string",
                "pattern": "^[0-9]+(ns|us|ms|s)(:every=[1-9][0-9]*)?$"
            }),
            Kind::Flow => json!({
                "type": "string",
                "pattern": FLOW_PATTERN
            }),
            Kind::Zbd => json!({
                "type": "string",
                "pattern": ZBD_PATTERN
            }),
            Kind::Trace => json!({ "type": "string", "minLength": 1 }),
            Kind::Speed => json!({ "oneOf": [
                { "type": "number", "exclusiveMinimum": 0, "maximum": TraceSpeed::MOST },
                { "const": "afap" }
            ] }),
            Kind::MemPolicy => json!({
                "type": "string",
                "pattern": "^(default|local|prefer:[0-9]+|(bind|interleave):[0-9]+(-[0-9]+)?(\\+[0-9]+(-[0-9]+)?)*)$"
            }),
            Kind::Op
            | Kind::Engine
            | Kind::Sync
            | Kind::Cache
            | Kind::Arrivals
            | Kind::Machine
            | Kind::Exit => {
                json!({ "enum": self.choices() })
            }
        }
    }
}

/// How iolab spells fio's `rw=WORD` (`randread` → `--op read --pattern
/// random`), for a fio user's word refused where iolab's is expected.
pub fn fio_rw_spelling(word: &str) -> Option<&'static str> {
    Some(match word.to_ascii_lowercase().as_str() {
        "randread" => "--op read --pattern random",
        "randwrite" => "--op write --pattern random (--op rewrite on a laid-out file, as fio does)",
        "randrw" => "--op mix --pattern random --mix read=50,write=50",
        "rw" | "readwrite" => "--op mix --mix read=50,write=50",
        "randtrim" => "--op trim --pattern random",
        "trimwrite" => "--op trimwrite",
        "randtrimwrite" => "--op trimwrite --pattern random",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::default_workload;

    #[test]
    fn every_default_is_of_its_kind_and_reads_back() {
        let defaults = default_workload();
        for &param in Param::ALL {
            let mut workload = defaults.clone();
            param.reset(&mut workload);
            assert_eq!(workload, defaults, "{}", param.name());
            if let Some(value) = param.value_in(&defaults) {
                let text = param.format_value(value);
                assert_eq!(param.parse_value(&text), Ok(value), "{}", param.name());
            }
            assert_eq!(Param::from_name(param.name()), Some(param));
            assert_eq!(Param::from_name(param.field()), Some(param));
            assert!(!param.help().is_empty() && !param.fio_options().is_empty());
            if let Kind::Count { min, max } = param.kind() {
                // The field holds every value the parameter accepts.
                for n in [min, max] {
                    let mut workload = defaults.clone();
                    param.apply(&mut workload, Value::Number(n));
                    assert_eq!(param.value_in(&workload), Some(Value::Number(n)));
                }
            }
        }
    }

    #[test]
    fn counts_refuse_what_their_field_cannot_hold() {
        assert!(Param::Jobs.parse_value("4294967297").is_err());
        assert!(Param::Jobs.parse_value("0").is_err());
        assert!(Param::Runtime.parse_value("0s").is_err());
        assert_eq!(Param::Ramp.parse_value("0s"), Ok(Value::Seconds(0.0)));
        assert_eq!(
            Param::Cpus
                .parse_value("0-1")
                .map(|v| Param::Cpus.format_value(v)),
            Ok("0-1".to_string())
        );
    }

    /// The result schema's workload: every parameter's field has the
    /// schema its kind gives, and is required exactly when it is always
    /// written; every other field is one of the measurement policy's.
    #[test]
    fn the_result_schema_holds_every_parameter_as_its_kind_says() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schema/iolab.result-1.schema.json");
        let schema: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let workload = &schema["$defs"]["workload"];
        let required: Vec<&str> = workload["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        let written = serde_json::to_value(default_workload()).unwrap();
        for &param in Param::ALL {
            let field = param.field();
            assert_eq!(
                workload["properties"][field],
                param.schema(),
                "schema of workload.{field}"
            );
            assert_eq!(
                required.contains(&field),
                written.get(field).is_some(),
                "workload.{field} is required exactly when always written"
            );
        }
        let policy = [
            "repeat",
            "warmup",
            "until_ci",
            "max_repeat",
            "interval_s",
            "steady",
            "latency_target",
            "priority",
            "verify",
            "verify_backlog",
            "log_ios",
            "same_draws",
        ];
        for (field, _) in workload["properties"].as_object().unwrap() {
            assert!(
                Param::from_name(field).is_some() || policy.contains(&field.as_str()),
                "workload.{field} in the schema is neither a parameter nor a policy field"
            );
        }
    }

    /// The guide's flag table, the study-file keys and the result-schema
    /// document name every parameter.
    #[test]
    fn the_documentation_names_every_parameter() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let guide = std::fs::read_to_string(root.join("docs/guide.md")).unwrap();
        let schema_doc = std::fs::read_to_string(root.join("docs/result-schema.md")).unwrap();
        let study_doc = std::fs::read_to_string(root.join("docs/study-files.md")).unwrap();
        for &param in Param::ALL {
            let flag = format!("`--{}", param.name());
            assert!(
                guide
                    .lines()
                    .any(|l| l.starts_with('|') && l.contains(&flag)),
                "docs/guide.md's flag table lacks {flag}`"
            );
            assert!(
                study_doc
                    .lines()
                    .any(|l| l.starts_with('|') && l.contains(&format!("`{}`", param.name()))),
                "docs/study-files.md's key table lacks `{}`",
                param.name()
            );
            assert!(
                schema_doc.contains(&format!("`{}`", param.field())),
                "docs/result-schema.md lacks workload.{}",
                param.field()
            );
        }
    }
}
