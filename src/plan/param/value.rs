//! How a parameter's values are written and held: its [`Kind`] (what the flag takes), a parsed [`Value`], an [`Operand`] a `--where` constraint compares, and [`Stored`], how each workload field's type becomes a value and back.

use crate::plan::cpus::CpuSet;
use crate::plan::data::DataPattern;
use crate::plan::direction::DirectionMix;
use crate::plan::group::ExitScope;
use crate::plan::guest::Machine;
use crate::plan::numa::MemPolicy;
use crate::plan::pace::{Arrivals, Flow, ThinkTime};
use crate::plan::rate::{DirectionRates, Rate};
use crate::plan::split::BlockSplit;
use crate::plan::trace::{TracePath, TraceSpeed};
use crate::plan::zbd::Zbd;
use crate::plan::{CacheMode, EngineKind, Op, Pattern, SyncMode};

/// How a parameter's values are written on the command line and stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// on/off (true/false, yes/no, 1/0); `--direct` alone is on.
    Flag,
    /// A whole number between `min` and `max`.
    Count { min: u64, max: u64 },
    /// A byte size: `4k`, `1m`.
    Size,
    /// A byte offset: a size, or 0.
    Offset,
    /// A duration: `500ms`, `10s`; `positive` refuses zero.
    Duration {
        /// Whether zero is refused.
        positive: bool,
    },
    /// An [`Op`].
    Op,
    /// An [`EngineKind`].
    Engine,
    /// A [`SyncMode`].
    Sync,
    /// A [`CacheMode`].
    Cache,
    /// A [`Pattern`].
    Pattern,
    /// A [`CpuSet`].
    Cpus,
    /// A [`MemPolicy`].
    MemPolicy,
    /// A [`DirectionMix`].
    Mix,
    /// A [`DataPattern`].
    Data,
    /// A [`BlockSplit`].
    Split,
    /// Bytes per second: `50MiB/s`, `50m`; or per direction, `read=50m+write=10m`.
    Rate,
    /// I/Os per second, 1 to [`MAX_RATE_IOPS`](crate::plan::pace::MAX_RATE_IOPS); or per direction, `read=700+write=300`.
    Iops,
    /// An [`Arrivals`] law.
    Arrivals,
    /// A [`ThinkTime`].
    Think,
    /// A [`Flow`] share.
    Flow,
    /// A [`Zbd`]: zones and their limits.
    Zbd,
    /// A [`Machine`].
    Machine,
    /// An [`ExitScope`].
    Exit,
    /// A trace's path ([`TracePath`]).
    Trace,
    /// A [`TraceSpeed`]: a factor, or `afap`.
    Speed,
}

/// One value of a parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    /// A byte size or a count.
    Number(u64),
    /// A duration, seconds.
    Seconds(f64),
    /// on/off.
    Flag(bool),
    Op(Op),
    Engine(EngineKind),
    Sync(SyncMode),
    Cache(CacheMode),
    Pattern(Pattern),
    /// A set of CPUs.
    Cpus(CpuSet),
    /// Where buffers live.
    MemPolicy(MemPolicy),
    /// The shares of a read/write mix.
    Mix(DirectionMix),
    /// The shape of the data written.
    Data(DataPattern),
    /// Mixed block sizes.
    Split(BlockSplit),
    Arrivals(Arrivals),
    Think(ThinkTime),
    Flow(Flow),
    /// Zones of an emulated zoned device.
    Zbd(Zbd),
    /// A rate per direction (a rate for the whole job is a `Number`).
    Rates(DirectionRates),
    /// Where a point runs.
    Machine(Machine),
    /// Which jobs stop when one finishes.
    Exit(ExitScope),
    /// A trace replayed.
    Trace(TracePath),
    /// How fast a trace is replayed.
    Speed(TraceSpeed),
}

/// One side of a comparison in a constraint.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// Sizes, counts, seconds, booleans as 0/1.
    Number(f64),
    /// Names of ops, engines, patterns, modes, CPU sets.
    Text(String),
}

/// A [`Workload`](crate::plan::Workload) field's type: how a [`Value`] is kept in it.
pub trait Stored: Sized {
    /// The field holding `value`; `None` when the value is of another kind.
    fn store(value: Value) -> Option<Self>;
    /// The value the field holds; `None` when it is absent.
    fn load(&self) -> Option<Value>;
    /// The field when the parameter is not set: `None` unless the type can be absent.
    fn absent() -> Option<Self> {
        None
    }
}

macro_rules! stored {
    ($($ty:ty => $variant:ident ($bind:ident) $into:expr, $from:expr;)*) => {$(
        impl Stored for $ty {
            fn store(value: Value) -> Option<Self> {
                match value {
                    Value::$variant($bind) => $into,
                    _ => None,
                }
            }
            fn load(&self) -> Option<Value> {
                let $bind = *self;
                Some(Value::$variant($from))
            }
        }
    )*};
}

stored! {
    bool => Flag(on) Some(on), on;
    u32 => Number(n) u32::try_from(n).ok(), u64::from(n);
    u64 => Number(n) Some(n), n;
    f64 => Seconds(s) Some(s), s;
    Op => Op(op) Some(op), op;
    EngineKind => Engine(engine) Some(engine), engine;
    SyncMode => Sync(mode) Some(mode), mode;
    CacheMode => Cache(mode) Some(mode), mode;
    Pattern => Pattern(pattern) Some(pattern), pattern;
    CpuSet => Cpus(set) Some(set), set;
    MemPolicy => MemPolicy(policy) Some(policy), policy;
    DirectionMix => Mix(mix) Some(mix), mix;
    DataPattern => Data(data) Some(data), data;
    BlockSplit => Split(split) Some(split), split;
    Arrivals => Arrivals(law) Some(law), law;
    ThinkTime => Think(think) Some(think), think;
    Flow => Flow(flow) Some(flow), flow;
    Zbd => Zbd(zbd) Some(zbd), zbd;
    Machine => Machine(machine) Some(machine), machine;
    ExitScope => Exit(scope) Some(scope), scope;
    TracePath => Trace(path) Some(path), path;
    TraceSpeed => Speed(speed) Some(speed), speed;
}

impl Stored for Rate {
    fn store(value: Value) -> Option<Self> {
        match value {
            Value::Number(rate) => Some(Rate::Job(rate)),
            Value::Rates(rates) => Some(Rate::Directions(rates)),
            _ => None,
        }
    }
    fn load(&self) -> Option<Value> {
        Some(match *self {
            Rate::Job(rate) => Value::Number(rate),
            Rate::Directions(rates) => Value::Rates(rates),
        })
    }
}

impl<T: Stored> Stored for Option<T> {
    fn store(value: Value) -> Option<Self> {
        T::store(value).map(Some)
    }
    fn load(&self) -> Option<Value> {
        self.as_ref().and_then(T::load)
    }
    fn absent() -> Option<Self> {
        Some(None)
    }
}
