//! Human-readable figures, always with their unit.

/// Plan's, where the checks format their figures too: one home.
pub use crate::plan::units::{latency, significant};

/// Bytes per second as MiB/s (2^20 bytes per second).
pub fn mib_per_s(bytes_per_s: f64) -> f64 {
    bytes_per_s / (1u64 << 20) as f64
}

/// Bytes per second as MB/s (10^6 bytes per second).
pub fn mb_per_s(bytes_per_s: f64) -> f64 {
    bytes_per_s / 1e6
}

/// Each count's share of their sum as a percent with one decimal, the
/// tenths handed out by largest remainder so the shares add to exactly
/// 100.0% (rounding each alone can give 100.1%); empty when they sum to 0.
pub fn shares_to_tenths(counts: &[u64]) -> Vec<String> {
    let total: u128 = counts.iter().map(|&n| u128::from(n)).sum();
    if total == 0 {
        return Vec::new();
    }
    let exact: Vec<(u128, u128)> = counts
        .iter()
        .map(|&n| (u128::from(n) * 1000 / total, u128::from(n) * 1000 % total))
        .collect();
    let mut tenths: Vec<u128> = exact.iter().map(|(whole, _)| *whole).collect();
    let short = 1000 - tenths.iter().sum::<u128>();
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(exact[i].1));
    for &i in order.iter().take(short as usize) {
        tenths[i] += 1;
    }
    tenths
        .iter()
        .map(|t| format!("{}.{}%", t / 10, t % 10))
        .collect()
}

/// Decimals that give `value` about three significant digits (none at 100
/// and above, at most nine).
pub fn decimals_for(value: f64) -> usize {
    let magnitude = value.abs();
    if magnitude >= 100.0 || magnitude == 0.0 || !magnitude.is_finite() {
        0
    } else {
        (2 - magnitude.log10().floor() as i64).clamp(0, 9) as usize
    }
}

/// A figure with three significant digits at every magnitude (`0.00123`,
/// `4.56`, `789`): for times in seconds, which can be far below one.
pub fn digits3(value: f64) -> String {
    format!("{value:.*}", decimals_for(value))
}

/// A byte count in binary units (`512 B`, `4.00 KiB`, `1.50 GiB`).
pub fn bytes(value: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut scaled = value as f64;
    let mut unit = 0;
    while scaled >= 1024.0 && unit < UNITS.len() - 1 {
        scaled /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value} B")
    } else {
        format!("{} {}", significant(scaled), UNITS[unit])
    }
}

/// A length of time for people: `45 s`, `12 min`, `3.5 h`.
pub fn duration(seconds: f64) -> String {
    if seconds < 9.5 {
        // Three significant digits under ten seconds: 0.4 s is not "1 s".
        format!("{} s", significant(seconds.max(0.01)))
    } else if seconds < 90.0 {
        format!("{:.0} s", seconds)
    } else if seconds < 90.0 * 60.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{} h", significant(seconds / 3600.0))
    }
}

/// A count such as IOPS with a k or M suffix.
pub fn count(value: f64) -> String {
    if value >= 1e6 {
        format!("{}M", significant(value / 1e6))
    } else if value >= 1e4 {
        format!("{}k", significant(value / 1e3))
    } else {
        significant(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three equal thirds round to 33.3% each, 99.9% together: one gets
    /// the tenth left over.
    #[test]
    fn shares_add_to_a_hundred_percent() {
        assert_eq!(shares_to_tenths(&[1, 1, 1]), ["33.4%", "33.3%", "33.3%"]);
        assert_eq!(
            shares_to_tenths(&[2, 2, 2, 1]),
            ["28.6%", "28.6%", "28.5%", "14.3%"]
        );
        assert_eq!(shares_to_tenths(&[5]), ["100.0%"]);
        assert!(shares_to_tenths(&[0, 0]).is_empty());
    }

    #[test]
    fn units_are_labelled_and_scaled() {
        assert_eq!(latency(812.0), "812 ns");
        assert_eq!(latency(52_300.0), "52.3 µs");
        assert_eq!(latency(1_200_000.0), "1.20 ms");
        assert_eq!(latency(2.5e9), "2.50 s");
        assert_eq!(count(19_000.0), "19.0k");
        assert_eq!(count(2_500_000.0), "2.50M");
        assert_eq!(count(950.0), "950");
        assert_eq!(duration(0.2), "0.20 s");
        assert_eq!(duration(4.0), "4.00 s");
        assert_eq!(duration(45.0), "45 s");
        assert_eq!(duration(720.0), "12 min");
        assert_eq!(duration(12600.0), "3.50 h");
        assert_eq!(digits3(0.001234), "0.00123");
        assert_eq!(digits3(0.262), "0.262");
        assert_eq!(digits3(10.07), "10.1");
        assert_eq!(digits3(925.0), "925");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(4096), "4.00 KiB");
        assert_eq!(bytes(3 << 29), "1.50 GiB");
        assert!((mib_per_s(1048576.0) - 1.0).abs() < 1e-12);
        assert!((mb_per_s(1e6) - 1.0).abs() < 1e-12);
    }
}
