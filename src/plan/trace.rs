//! A trace as a workload (`--trace`, `--trace-speed`): its path and speed as parameter values, and what one replay costs.

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
}
