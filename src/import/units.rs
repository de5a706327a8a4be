//! fio's notations for sizes (with `kb_base`), block-size splits and times, read exactly as fio 3.33 reads them.

use crate::plan::split::BlockSplit;

/// A size in fio's notation under `kb_base`: `4k` = 4096 and `4KiB` =
/// 4000 under fio's default 1024, the other way round under 1000.
pub fn fio_size(text: &str, kb_base: u64) -> Option<u64> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits);
    let number: u64 = number.parse().ok()?;
    let suffix = suffix.to_ascii_lowercase();
    // fio 3.33 (measured, `size=1MiB` against `size=1MB`): a suffix in
    // `ib` takes the other base than `kb_base` — with the default 1024,
    // `KiB` and `MiB` are 1000 and 1000², fio's compatibility mode — and
    // every other suffix (`k`, `KB`, `Ki`) takes `kb_base` itself.
    let binary = suffix.ends_with("ib");
    let base = match (binary, kb_base) {
        (true, 1000) => 1024,
        (true, _) => 1000,
        (false, _) => kb_base,
    };
    let power = match suffix.chars().next() {
        None => 0,
        Some('b') if suffix == "b" => 0,
        Some('k') => 1,
        Some('m') => 2,
        Some('g') => 3,
        Some('t') => 4,
        _ => return None,
    };
    number.checked_mul(base.checked_pow(power)?)
}

/// fio's bssplit for one direction, `4k/60:64k/30:1m/`: sizes in fio's
/// notation, a share left blank taking an equal part of what the others
/// leave (fio's rule).
pub(super) fn fio_split(text: &str, kb_base: u64) -> Result<BlockSplit, String> {
    let refused = || format!("bssplit={text} is not a split iolab reads");
    let mut entries = Vec::new();
    for item in text.split(':') {
        let (size, percent) = item.split_once('/').unwrap_or((item, ""));
        let size = fio_size(size, kb_base).ok_or_else(refused)?;
        let percent = match percent.trim() {
            "" => None,
            p => Some(p.parse::<u32>().map_err(|_| refused())?),
        };
        entries.push((size, percent));
    }
    let given: u32 = entries.iter().filter_map(|(_, p)| *p).sum();
    let blanks = entries.iter().filter(|(_, p)| p.is_none()).count() as u32;
    let left = 100u32.checked_sub(given).ok_or_else(refused)?;
    let mut shares = Vec::new();
    for (i, (size, percent)) in entries.iter().enumerate() {
        let percent = percent.unwrap_or_else(|| {
            // The first blank takes the remainder of an uneven division.
            let first_blank = entries.iter().position(|(_, p)| p.is_none()) == Some(i);
            left / blanks + if first_blank { left % blanks } else { 0 }
        });
        if percent > 0 {
            shares.push(format!("{size}={percent}"));
        }
    }
    shares
        .join(",")
        .parse()
        .map_err(|e| format!("bssplit={text}: {e}"))
}

/// fio's time notation for runtime and ramp_time: seconds unless suffixed.
pub(super) fn fio_seconds(text: &str) -> Option<f64> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: f64 = number.parse().ok()?;
    Some(match unit {
        "" | "s" => number,
        "ms" => number / 1e3,
        "us" => number / 1e6,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        _ => return None,
    })
}

/// fio's time notation for thinktime: microseconds unless suffixed.
pub(super) fn fio_micros(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.ends_with(|c: char| c.is_ascii_digit()) {
        return text.parse::<f64>().ok().map(|us| us / 1e6);
    }
    fio_seconds(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fio_sizes() {
        assert_eq!(fio_size("4k", 1024), Some(4096));
        assert_eq!(fio_size("4KiB", 1000), Some(4096));
        // fio's default kb_base reads the IEC suffixes as powers of ten.
        assert_eq!(fio_size("4KiB", 1024), Some(4000));
        assert_eq!(fio_size("1MiB", 1024), Some(1_000_000));
        assert_eq!(fio_size("1Mi", 1024), Some(1 << 20));
        assert_eq!(fio_size("1MB", 1000), Some(1_000_000));
        assert_eq!(fio_size("4k", 1000), Some(4000));
        assert_eq!(fio_size("1m", 1024), Some(1 << 20));
        assert_eq!(fio_size("2G", 1024), Some(2 << 30));
        assert_eq!(fio_size("512", 1024), Some(512));
        assert_eq!(fio_size("lots", 1024), None);
        assert_eq!(fio_seconds("5"), Some(5.0));
        assert_eq!(fio_seconds("500ms"), Some(0.5));
        assert_eq!(fio_seconds("2m"), Some(120.0));
    }
}
