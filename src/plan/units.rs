//! Parsing and formatting of sizes (binary and decimal) and durations.
//!
//! Sizes follow the convention users of dd and fio expect to be unambiguous:
//! a bare or binary suffix (`4k`, `4K`, `4KiB`) is a power of 1024, and a
//! suffix ending in `B` without `i` (`4kB`, `4KB`) is a power of 1000.

use std::time::Duration;

/// Parses a size such as `512`, `4k`, `4KiB` (4096) or `4kB` (4000) into bytes.
///
/// Zero and negative values are refused: every size iolab takes is a positive
/// amount of data.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (digits, suffix) = trimmed.split_at(split);
    if trimmed.starts_with('-') {
        return Err(format!("size '{text}' is negative; sizes must be positive"));
    }
    if digits.is_empty() {
        return Err(format!(
            "size '{text}' is not a number (examples: 512, 4k, 4KiB, 1m, 4kB)"
        ));
    }
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("size '{text}' is too large"))?;
    let multiplier = size_multiplier(suffix).ok_or_else(|| {
        format!("size '{text}' has an unknown unit '{suffix}' (use k, m, g, t, KiB..., or kB... for decimal)")
    })?;
    let bytes = number
        .checked_mul(multiplier)
        .ok_or_else(|| format!("size '{text}' is too large"))?;
    if bytes == 0 {
        return Err(format!("size '{text}' is zero; sizes must be positive"));
    }
    Ok(bytes)
}

fn size_multiplier(suffix: &str) -> Option<u64> {
    if suffix.is_empty() || suffix == "B" || suffix == "b" {
        return Some(1);
    }
    let mut chars = suffix.chars();
    let prefix = chars.next()?;
    let exponent = match prefix.to_ascii_lowercase() {
        'k' => 1,
        'm' => 2,
        'g' => 3,
        't' => 4,
        _ => return None,
    };
    let rest: String = chars.collect();
    let base: u64 = match rest.as_str() {
        "" | "i" | "iB" | "ib" => 1024,
        "B" => 1000,
        _ => return None,
    };
    Some(base.pow(exponent))
}

/// Parses a duration such as `500ms`, `10s`, `2m`, `1h` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    if trimmed.starts_with('-') {
        return Err(format!("duration '{text}' is negative"));
    }
    let value: f64 = number.parse().map_err(|_| {
        format!("duration '{text}' is not a number with a unit (examples: 500ms, 10s, 2m)")
    })?;
    let seconds_per_unit = match unit {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => {
            return Err(format!(
                "duration '{text}' has an unknown unit '{unit}' (use ms, s, m or h)"
            ));
        }
    };
    let seconds = value * seconds_per_unit;
    if !seconds.is_finite() || seconds > 1e9 {
        return Err(format!("duration '{text}' is too large"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Like [`parse_duration`], but refuses zero.
pub fn parse_positive_duration(text: &str) -> Result<Duration, String> {
    let duration = parse_duration(text)?;
    if duration.is_zero() {
        return Err(format!("duration '{text}' is zero; it must be positive"));
    }
    Ok(duration)
}

/// The shortest time-series interval: 1 ms. /proc/diskstats counts device
/// time in milliseconds, so a shorter interval cannot carry device figures,
/// and closing intervals faster would spend the CPU the I/O threads need
/// (each close sorts a histogram and the sampler reads the counters).
pub const MIN_INTERVAL: Duration = Duration::from_millis(1);

/// Parses a time-series interval: a duration of at least [`MIN_INTERVAL`].
pub fn parse_interval(text: &str) -> Result<Duration, String> {
    let interval = parse_positive_duration(text)?;
    if interval < MIN_INTERVAL {
        return Err(format!(
            "interval '{text}' is below the 1ms floor: the device counters \
             (/proc/diskstats) count time in milliseconds, and shorter intervals \
             would take CPU time from the I/O"
        ));
    }
    Ok(interval)
}

/// Formats a byte count with the largest binary unit that divides it exactly
/// (`4KiB`, `1MiB`), or plain bytes (`1000B`): labels must round-trip.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes;
    let mut unit = 0;
    while unit + 1 < UNITS.len() && value >= 1024 && value % 1024 == 0 {
        value /= 1024;
        unit += 1;
    }
    format!("{value}{}", UNITS[unit])
}

/// A byte count for a person to read: three significant digits in the
/// largest binary unit it reaches (`9.31 GiB`, `512 B`), not to be parsed back.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while unit + 1 < UNITS.len() && value >= 1024.0 {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ if value >= 100.0 => format!("{value:.0} {}", UNITS[unit]),
        _ if value >= 10.0 => format!("{value:.1} {}", UNITS[unit]),
        _ => format!("{value:.2} {}", UNITS[unit]),
    }
}

/// Formats a nanosecond count with the largest unit that divides it
/// exactly (`100us`, `2ms`, `1s`), which [`parse_duration`] reads back.
pub fn format_duration_ns(ns: u64) -> String {
    match ns {
        0 => "0s".to_string(),
        _ if ns % 1_000_000_000 == 0 => format!("{}s", ns / 1_000_000_000),
        _ if ns % 1_000_000 == 0 => format!("{}ms", ns / 1_000_000),
        _ if ns % 1_000 == 0 => format!("{}us", ns / 1_000),
        _ => format!("{ns}ns"),
    }
}

/// Parses a rate in bytes per second: a size, optionally ending in `/s`
/// (`50MiB/s`, `50m`, `100MB/s`).
pub fn parse_rate(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let size = trimmed.strip_suffix("/s").unwrap_or(trimmed);
    parse_size(size).map_err(|error| format!("rate '{text}': {error}"))
}

/// Formats a rate in bytes per second as [`parse_rate`] reads it (`50MiB/s`).
pub fn format_rate(bytes_per_second: u64) -> String {
    format!("{}/s", format_size(bytes_per_second))
}

/// A figure with about three significant digits, without exponent.
pub fn significant(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 100.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

/// A duration in ns shown in ns, µs, ms or s.
pub fn latency(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{} µs", significant(ns / 1e3))
    } else if ns < 1e9 {
        format!("{} ms", significant(ns / 1e6))
    } else {
        format!("{} s", significant(ns / 1e9))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_suffixes_are_powers_of_1024() {
        for text in ["4k", "4K", "4KiB", "4kib", "4Ki"] {
            assert_eq!(parse_size(text), Ok(4096), "{text}");
        }
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_rate("50MiB/s"), Ok(50 << 20));
        assert_eq!(parse_rate("1MB/s"), Ok(1_000_000));
        assert_eq!(format_rate(50 << 20), "50MiB/s");
        assert!(parse_rate("0/s").is_err() && parse_rate("fast").is_err());
        for ns in [1, 1_500, 2_000_000, 3_000_000_000] {
            let text = format_duration_ns(ns);
            assert_eq!(
                parse_duration(&text).map(|d| d.as_nanos() as u64),
                Ok(ns),
                "{text}"
            );
        }
        assert_eq!(parse_size("512B"), Ok(512));
        assert_eq!(parse_size("1m"), Ok(1 << 20));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size("1TiB"), Ok(1 << 40));
    }

    #[test]
    fn decimal_suffixes_are_powers_of_1000() {
        assert_eq!(parse_size("4kB"), Ok(4000));
        assert_eq!(parse_size("4KB"), Ok(4000));
        assert_eq!(parse_size("1MB"), Ok(1_000_000));
        assert_eq!(parse_size("3GB"), Ok(3_000_000_000));
        assert_eq!(parse_size("1TB"), Ok(1_000_000_000_000));
    }

    #[test]
    fn bad_sizes_are_refused_with_the_value_named() {
        for text in [
            "0",
            "0k",
            "-4k",
            "",
            "k",
            "4x",
            "4kiB2",
            "99999999999999999999",
            "16777216T",
        ] {
            let error = parse_size(text).expect_err(text);
            assert!(error.contains(&format!("'{text}'")), "{error}");
        }
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
    }

    #[test]
    fn bad_durations_are_refused() {
        for text in ["", "abc", "10x", "-1s", "s", "1e999"] {
            assert!(parse_duration(text).is_err(), "{text}");
        }
        assert!(parse_positive_duration("0ms").is_err());
    }

    #[test]
    fn sizes_format_to_labels_that_parse_back() {
        for bytes in [512, 4096, 4000, 1 << 20, 3 << 30, 1000, 1536] {
            let label = format_size(bytes);
            assert_eq!(parse_size(&label), Ok(bytes), "{label}");
        }
        assert_eq!(format_size(4096), "4KiB");
        assert_eq!(format_size(1536), "1536B");
    }
}
