//! A zoned block device as fio emulates one (`--zbd`, fio's `zonemode=zbd` on a file or a device that is not zoned): its zone size and capacity, the open-zone limit and the reset policy, as written and read.
//!
//! What the zones do to each I/O is the runner's (`run/io/zones.rs`).

use super::units::{format_size, parse_size};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

/// fio's zoned mode on a target that is not zoned (`--zbd 256m,open=32`):
/// the target cut in zones of `zone_size`, each written only at its write
/// pointer, which starts at the zone's start (every zone empty, as fio's
/// emulated zones start) and which only a reset moves back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Zbd {
    /// Bytes per zone (fio's `zonesize`).
    pub zone_size: u64,
    /// Bytes of each zone that can be written (fio's `zonecapacity`);
    /// `zone_size` unless given.
    pub capacity: u64,
    /// The most zones written at once, every job together (fio's
    /// `max_open_zones`); 0: no limit.
    pub max_open: u32,
    /// fio's `zone_reset_threshold`, in thousandths: once the zones hold
    /// this share of the jobs' range in written data, ...
    pub reset_threshold: u16,
    /// ... one write in 1/frequency resets its zone first (fio's
    /// `zone_reset_frequency`, in thousandths; 0: never).
    pub reset_frequency: u16,
    /// Reads go anywhere (fio's `read_beyond_wp`); else only below a
    /// zone's write pointer, and a job with nothing written to read ends.
    pub read_beyond_wp: bool,
}

/// The most zones fio tracks as open (`ZBD_MAX_WRITE_ZONES`).
pub const MAX_OPEN_ZONES: u32 = 4096;

impl Zbd {
    /// Zones of `zone_size`, every option at fio's default.
    pub fn new(zone_size: u64) -> Zbd {
        Zbd {
            zone_size,
            capacity: zone_size,
            max_open: 0,
            reset_threshold: 0,
            reset_frequency: 0,
            read_beyond_wp: false,
        }
    }
}

/// A fraction of 0 to 1 in thousandths, as fio's float options give it.
fn thousandths(text: &str, what: &str) -> Result<u16, String> {
    text.parse::<f64>()
        .ok()
        .filter(|f| (0.0..=1.0).contains(f))
        .map(|f| (f * 1000.0).round() as u16)
        .ok_or_else(|| format!("zbd {what} '{text}' is not a fraction from 0 to 1"))
}

impl fmt::Display for Zbd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", format_size(self.zone_size))?;
        if self.capacity != self.zone_size {
            write!(f, ",capacity={}", format_size(self.capacity))?;
        }
        if self.max_open != 0 {
            write!(f, ",open={}", self.max_open)?;
        }
        if self.reset_frequency != 0 {
            write!(
                f,
                ",reset={}/{}",
                f64::from(self.reset_threshold) / 1000.0,
                f64::from(self.reset_frequency) / 1000.0
            )?;
        }
        if self.read_beyond_wp {
            write!(f, ",read-beyond-wp")?;
        }
        Ok(())
    }
}

impl FromStr for Zbd {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parts = text.split(',').map(str::trim);
        let shape = "SIZE[,capacity=SIZE][,open=N][,reset=THRESHOLD/FREQUENCY][,read-beyond-wp]";
        let zone_size = parts
            .next()
            .and_then(|size| parse_size(size).ok())
            .filter(|&size| size >= 4096 && size % 4096 == 0)
            .ok_or_else(|| {
                format!("zbd '{text}' is not {shape}, the zone size a multiple of 4 KiB")
            })?;
        let mut zbd = Zbd::new(zone_size);
        for part in parts {
            if let Some(size) = part.strip_prefix("capacity=") {
                zbd.capacity = parse_size(size)
                    .ok()
                    .filter(|&c| c > 0 && c <= zone_size && c % 4096 == 0)
                    .ok_or_else(|| {
                        format!(
                            "zbd capacity '{size}' is not a multiple of 4 KiB up to the zone size ({})",
                            format_size(zone_size)
                        )
                    })?;
            } else if let Some(open) = part.strip_prefix("open=") {
                zbd.max_open = open
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_OPEN_ZONES).contains(n))
                    .ok_or_else(|| {
                        format!("zbd open '{open}' is not a count from 1 to {MAX_OPEN_ZONES}")
                    })?;
            } else if let Some(reset) = part.strip_prefix("reset=") {
                let (threshold, frequency) = reset.split_once('/').ok_or_else(|| {
                    format!("zbd reset '{reset}' is not THRESHOLD/FREQUENCY (fractions: 0.7/0.125)")
                })?;
                zbd.reset_threshold = thousandths(threshold, "reset threshold")?;
                zbd.reset_frequency = thousandths(frequency, "reset frequency")?;
            } else if part == "read-beyond-wp" {
                zbd.read_beyond_wp = true;
            } else {
                return Err(format!("zbd '{text}': '{part}' is not part of {shape}"));
            }
        }
        Ok(zbd)
    }
}

impl Serialize for Zbd {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Zbd {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_written_and_read_back() {
        for text in [
            "256MiB",
            "1MiB,open=4",
            "256MiB,capacity=200MiB,open=32,reset=0.7/0.125,read-beyond-wp",
        ] {
            let zbd: Zbd = text.parse().unwrap();
            assert_eq!(zbd.to_string(), text);
        }
        let zbd: Zbd = "256m,reset=0.7/0.125".parse().unwrap();
        assert_eq!((zbd.reset_threshold, zbd.reset_frequency), (700, 125));
        for bad in [
            "",
            "1000",
            "1m,open=0",
            "1m,capacity=2m",
            "1m,reset=2/1",
            "1m,reset=0.5",
            "1m,wide",
        ] {
            assert!(bad.parse::<Zbd>().is_err(), "{bad}");
        }
    }
}
