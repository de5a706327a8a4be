//! A trace as a workload (`--trace`, `--trace-speed`): its path and speed as parameter values, and what a point that replays a trace may combine.

use super::{CacheMode, EngineKind, Workload, default_workload, param::Param};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// The path of a trace a point replays, as written. Interned so that a
/// parameter value stays `Copy`: each distinct path is kept once for the
/// life of the process (a plan names few).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TracePath(&'static str);

impl TracePath {
    /// The path as written.
    pub fn as_str(self) -> &'static str {
        self.0
    }

    /// The same path, interned.
    fn intern(text: &str) -> TracePath {
        static PATHS: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
        let mut paths = PATHS
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&kept) = paths.get(text) {
            return TracePath(kept);
        }
        let kept: &'static str = Box::leak(text.to_string().into_boxed_str());
        paths.insert(kept);
        TracePath(kept)
    }
}

impl std::str::FromStr for TracePath {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.is_empty() {
            return Err("a trace's path is empty".to_string());
        }
        if text.contains(['\0', '\n']) {
            return Err(format!("{text:?} is not a path"));
        }
        Ok(TracePath::intern(text))
    }
}

impl std::fmt::Display for TracePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for TracePath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

impl<'de> Deserialize<'de> for TracePath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// How fast a trace is replayed: its times divided by a factor (1: as
/// recorded), or as fast as possible (each I/O as soon as the depth cap
/// allows, in the trace's order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TraceSpeed {
    Times(f64),
    Afap,
}

impl Default for TraceSpeed {
    fn default() -> Self {
        TraceSpeed::Times(1.0)
    }
}

impl TraceSpeed {
    /// The most a trace's times are divided by.
    pub const MOST: f64 = 1e6;

    /// As recorded, for fields recorded only when set.
    pub fn is_one(&self) -> bool {
        *self == TraceSpeed::Times(1.0)
    }

    /// The factor the trace's times are divided by; `None` as fast as possible.
    pub fn factor(self) -> Option<f64> {
        match self {
            TraceSpeed::Times(factor) => Some(factor),
            TraceSpeed::Afap => None,
        }
    }
}

impl std::str::FromStr for TraceSpeed {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.eq_ignore_ascii_case("afap") {
            return Ok(TraceSpeed::Afap);
        }
        match text.parse::<f64>() {
            Ok(factor) if factor.is_finite() && factor > 0.0 && factor <= Self::MOST => {
                Ok(TraceSpeed::Times(factor))
            }
            _ => Err(format!(
                "'{text}' is not a speed above 0 and at most 1000000 (1 = as recorded, 2 = twice as fast) or afap"
            )),
        }
    }
}

impl std::fmt::Display for TraceSpeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceSpeed::Times(factor) => write!(f, "{factor}"),
            TraceSpeed::Afap => f.write_str("afap"),
        }
    }
}

impl Serialize for TraceSpeed {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            TraceSpeed::Times(factor) => serializer.serialize_f64(*factor),
            TraceSpeed::Afap => serializer.serialize_str("afap"),
        }
    }
}

impl<'de> Deserialize<'de> for TraceSpeed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Factor(f64),
            Word(String),
        }
        let text = match Written::deserialize(deserializer)? {
            Written::Factor(factor) => factor.to_string(),
            Written::Word(word) => word,
        };
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// What one replay of a trace costs, as read from the trace (`app` reads
/// it: `plan` does no I/O).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceCost {
    /// The bytes its reads, writes and trims move.
    pub bytes: u64,
    /// The file made for it (laid out before every replay), bytes.
    pub file_bytes: u64,
    /// Its duration as recorded, seconds.
    pub duration_s: f64,
}

/// The parameters a trace point takes besides its trace: the replay's
/// engine, depth cap and O_DIRECT, and how its repetitions are taken. Each
/// other one is the trace's to say (sizes, offsets, directions, times) and
/// refused when given.
pub const TAKEN: [Param; 6] = [
    Param::Trace,
    Param::TraceSpeed,
    Param::Engine,
    Param::Iodepth,
    Param::Direct,
    Param::Cache,
];

/// The engines a trace replays through: the queued ones up to the depth
/// cap, psync one I/O at a time, null with no I/O.
const ENGINES: [EngineKind; 4] = [
    EngineKind::Uring,
    EngineKind::Libaio,
    EngineKind::Psync,
    EngineKind::Null,
];

/// Refuses what a trace point cannot do: a parameter the trace decides, an
/// engine the replayer does not drive, a cache treatment other than cold
/// (the file is laid out, synced and evicted before every replay), and the
/// repetition policies that need a throughput target the trace sets.
pub fn check(workload: &Workload) -> Result<(), String> {
    let Some(trace) = workload.trace else {
        if !workload.trace_speed.is_one() {
            return Err(format!(
                "--trace-speed {} needs --trace: it scales a trace's times",
                workload.trace_speed
            ));
        }
        return Ok(());
    };
    if workload.machine == super::Machine::Guest {
        return Err(format!(
            "--trace {trace} with --machine guest: iolab replay {trace} --guest KEYS replays a trace in a guest"
        ));
    }
    let defaults = default_workload();
    if let Some(param) = Param::ALL
        .iter()
        .filter(|p| !TAKEN.contains(p))
        .find(|p| p.value_in(workload) != p.value_in(&defaults))
    {
        return Err(format!(
            "--{} does nothing with --trace {trace}: the trace gives each I/O's kind, offset, size and time (a trace point takes --trace-speed, --engine, --iodepth and --direct)",
            param.name()
        ));
    }
    if !ENGINES.contains(&workload.engine) {
        return Err(format!(
            "--engine {} does not replay a trace: give uring or libaio (up to --iodepth in flight), psync or null; iolab replay --target reaches NFS and iSCSI",
            workload.engine.name()
        ));
    }
    if workload.cache != CacheMode::Cold {
        return Err(format!(
            "--cache {} with --trace: the trace's file is laid out and evicted before every replay (cold)",
            format!("{:?}", workload.cache).to_lowercase()
        ));
    }
    if workload.verify
        || workload.until_ci.is_some()
        || workload.steady.is_some()
        || workload.latency_target.is_some()
        || workload.priority.is_some()
    {
        return Err(format!(
            "--trace {trace} replays the trace as it is: --verify, --until-ci, --steady, --latency-target and --priority are for drawn I/O (--repeat takes replays)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_speed_reads_back_as_written_and_refuses_nonsense() {
        for text in ["1", "2.5", "0.5", "afap"] {
            let speed: TraceSpeed = text.parse().unwrap();
            assert_eq!(speed.to_string(), text);
            let json = serde_json::to_string(&speed).unwrap();
            assert_eq!(serde_json::from_str::<TraceSpeed>(&json).unwrap(), speed);
        }
        for bad in ["0", "-1", "nan", "inf", "2e6", "fast"] {
            assert!(bad.parse::<TraceSpeed>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_path_is_interned_once() {
        let a: TracePath = "/tmp/x.csv".parse().unwrap();
        let b: TracePath = "/tmp/x.csv".parse().unwrap();
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert!("".parse::<TracePath>().is_err());
    }

    #[test]
    fn a_trace_point_refuses_what_the_trace_decides() {
        let mut workload = default_workload();
        workload.trace = Some("t.iolog".parse().unwrap());
        workload.engine = EngineKind::Uring;
        workload.iodepth = 8;
        assert_eq!(check(&workload), Ok(()));
        workload.bs = 65536;
        let refused = check(&workload).unwrap_err();
        assert!(
            refused.starts_with("--bs does nothing with --trace"),
            "{refused}"
        );
        workload.bs = default_workload().bs;
        workload.engine = EngineKind::Mmap;
        assert!(check(&workload).unwrap_err().contains("--engine mmap"));
        let mut plain = default_workload();
        plain.trace_speed = TraceSpeed::Afap;
        assert!(check(&plain).unwrap_err().contains("needs --trace"));
    }
}
