//! A latency target (`--latency-target 500ms,window=5s,percentile=99.9`): the deepest queue whose I/Os keep within a latency, searched for as fio's `latency_target` does.
//!
//! Each job starts at depth 1 and looks at its I/Os window by window: when
//! the share of them within the target reaches the percentile, the depth
//! doubles (or moves halfway up to the last depth that failed); when not, it
//! moves halfway down. When a success leaves the depth where it was, the
//! figures recorded so far are discarded and one more window is measured at
//! that depth: the figures of the point are that window's, as fio reports
//! them. With `run`, the depth keeps adjusting to the end and nothing is
//! discarded (fio's `latency_run`). The search itself runs in
//! `run/io/depth_search.rs`.

use super::units::{format_duration_ns, parse_duration};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A latency target and how it is judged.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct LatencyTarget {
    /// The latency an I/O may take, from its submission to its completion, ns.
    pub target_ns: u64,
    /// How long each depth is judged, ns.
    pub window_ns: u64,
    /// The share of a window's I/Os, percent, that must be within the
    /// target; at 100 the first I/O over it lowers the depth at once.
    pub percentile: f64,
    /// Keep adjusting the depth to the end (fio's `latency_run`) rather
    /// than measuring one window at the depth found.
    pub keep_adjusting: bool,
}

impl FromStr for LatencyTarget {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parts = text.split(',').map(str::trim);
        let target = parts.next().unwrap_or_default();
        let target_ns = nanoseconds(target)?;
        if target_ns == 0 {
            return Err(format!("'{text}': the target latency must be positive"));
        }
        let mut chosen = LatencyTarget {
            target_ns,
            window_ns: 0,
            percentile: 100.0,
            keep_adjusting: false,
        };
        for part in parts {
            match part.split_once('=') {
                Some(("window", value)) => chosen.window_ns = nanoseconds(value)?,
                Some(("percentile", value)) => {
                    chosen.percentile = value
                        .trim_end_matches('%')
                        .parse::<f64>()
                        .ok()
                        .filter(|p| *p > 0.0 && *p <= 100.0)
                        .ok_or_else(|| {
                            format!("'{text}': percentile={value} is not a number above 0 and at most 100")
                        })?;
                }
                None if part == "run" => chosen.keep_adjusting = true,
                _ => {
                    return Err(format!(
                        "'{text}': '{part}' is not window=DURATION, percentile=P or run"
                    ));
                }
            }
        }
        if chosen.window_ns == 0 {
            return Err(format!(
                "'{text}' needs window=DURATION, how long each depth is judged (fio's latency_window)"
            ));
        }
        Ok(chosen)
    }
}

/// A duration as nanoseconds, refusing what does not fit.
fn nanoseconds(text: &str) -> Result<u64, String> {
    let duration = parse_duration(text)?;
    u64::try_from(duration.as_nanos()).map_err(|_| format!("duration '{text}' is too large"))
}

impl fmt::Display for LatencyTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{},window={},percentile={}",
            format_duration_ns(self.target_ns),
            format_duration_ns(self.window_ns),
            self.percentile
        )?;
        if self.keep_adjusting {
            f.write_str(",run")?;
        }
        Ok(())
    }
}

impl TryFrom<String> for LatencyTarget {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<LatencyTarget> for String {
    fn from(target: LatencyTarget) -> String {
        target.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_reads_back_as_written_and_bad_ones_are_named() {
        let target: LatencyTarget = "500ms,window=5s,percentile=99.9".parse().unwrap();
        assert_eq!(
            target,
            LatencyTarget {
                target_ns: 500_000_000,
                window_ns: 5_000_000_000,
                percentile: 99.9,
                keep_adjusting: false,
            }
        );
        assert_eq!(target.to_string().parse::<LatencyTarget>(), Ok(target));
        let odd: LatencyTarget = "1234567ns,window=3ms,run".parse().unwrap();
        assert_eq!(odd.percentile, 100.0);
        assert!(odd.keep_adjusting);
        assert_eq!(odd.to_string().parse::<LatencyTarget>(), Ok(odd));
        let json = serde_json::to_string(&target).unwrap();
        assert_eq!(
            serde_json::from_str::<LatencyTarget>(&json).unwrap(),
            target
        );
        for bad in [
            "",
            "0ms,window=1s",
            "1ms",
            "1ms,window=0s",
            "1ms,window=1s,percentile=0",
            "1ms,window=1s,percentile=101",
            "1ms,window=1s,depth=4",
        ] {
            let error = bad.parse::<LatencyTarget>().unwrap_err();
            assert!(!error.is_empty(), "{bad}");
        }
    }
}
