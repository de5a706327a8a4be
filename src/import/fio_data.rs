//! How one fio job's buffer options (`zero_buffers`, `buffer_pattern`, `verify_pattern`, `buffer_compress_*`, `dedupe_*`) become iolab's `--data`: a third `impl` of [`FioJob`], beside `fio_job` and `fio_pattern`.

use super::FioJob;
use super::truthy;
use super::units::fio_size;
use crate::plan::data::{DataPattern, Dedupe, FillPattern};

impl FioJob<'_> {
    /// fio's `buffer_pattern` or `verify_pattern` (the same bytes when
    /// both are given): hex numbers (`0xaa555aa5`, its first byte first)
    /// and quoted strings, one after another (`0xdeadbeef"ab"`).
    fn fill_pattern(&self) -> Result<Option<FillPattern>, String> {
        let mut chosen: Option<(&str, Vec<u8>)> = None;
        for key in ["buffer_pattern", "verify_pattern"] {
            let Some(text) = self.option(key) else {
                continue;
            };
            let bytes =
                fio_pattern_bytes(text.trim()).map_err(|why| format!("{key}={text}: {why}"))?;
            match &chosen {
                Some((first, earlier)) if *earlier != bytes => {
                    return Err(format!(
                        "{key}={text} and {first}: two patterns; iolab's buffers hold one"
                    ));
                }
                _ => chosen = Some((key, bytes)),
            }
        }
        let Some((key, bytes)) = chosen else {
            return Ok(None);
        };
        FillPattern::new(&bytes)
            .map(Some)
            .map_err(|why| format!("{key}: {why}"))
    }

    pub(super) fn data(&self) -> Result<DataPattern, String> {
        let percent = |key: &str| -> Result<u8, String> {
            self.option(key).map_or(Ok(0), |text| {
                text.trim()
                    .parse::<u8>()
                    .ok()
                    .filter(|p| *p <= 100)
                    .ok_or_else(|| format!("{key}={text} is not a percent from 0 to 100"))
            })
        };
        let (compress, dedupe) = (
            percent("buffer_compress_percentage")?,
            percent("dedupe_percentage")?,
        );
        if let Some(chunk) = self.option("buffer_compress_chunk") {
            if compress > 0 && fio_size(chunk, self.kb_base) != Some(512) {
                return Err(format!(
                    "buffer_compress_chunk={chunk} has no iolab equivalent (its chunks are 512 bytes)"
                ));
            }
        }
        if let Some(pattern) = self.fill_pattern()? {
            let other = [
                "zero_buffers",
                "buffer_compress_percentage",
                "dedupe_percentage",
            ]
            .into_iter()
            .find(|key| self.option(key).is_some_and(|v| v.trim() != "0"));
            return match other {
                Some(key) => Err(format!(
                    "{key} with a pattern (buffer_pattern, verify_pattern): the buffers hold one or the other"
                )),
                None => Ok(DataPattern::Fill(pattern)),
            };
        }
        Ok(match (compress, dedupe) {
            _ if truthy(self.options, "zero_buffers") => DataPattern::Zeros,
            (0, 0) => DataPattern::Unique,
            (100, 0) => DataPattern::Zeros,
            (percent, 0) => DataPattern::Compressible(percent),
            (0, 100) => {
                return Err(
                    "dedupe_percentage=100 (every block alike) has no iolab equivalent".to_string(),
                );
            }
            (100, _) => {
                return Err(
                    "buffer_compress_percentage=100 with dedupe_percentage: every block zeros, none to repeat"
                        .to_string(),
                );
            }
            (compress, share) => DataPattern::Dedupe(
                Dedupe {
                    compress,
                    working_set: match self.option("dedupe_mode").map(str::trim) {
                        None | Some("repeat") => None,
                        // fio's default working set is 5% of the file.
                        Some("working_set") => match percent("dedupe_working_set_percentage")? {
                            0 if self.option("dedupe_working_set_percentage").is_none() => Some(5),
                            0 => {
                                return Err(
                                    "dedupe_working_set_percentage=0 leaves no working set"
                                        .to_string(),
                                );
                            }
                            working_set => Some(working_set),
                        },
                        Some(other) => {
                            return Err(format!(
                                "dedupe_mode={other} is not repeat or working_set"
                            ));
                        }
                    },
                    global: truthy(self.options, "dedupe_global")
                        && self.option("dedupe_mode").map(str::trim) == Some("working_set"),
                    ..Dedupe::repeat(share)
                }
                .checked()
                .map_err(|why| {
                    format!("dedupe_percentage={share} with dedupe_working_set_percentage: {why}")
                })?,
            ),
        })
    }
}

/// The bytes of a fio pattern (`verify_pattern`, `buffer_pattern`): hex
/// numbers after `0x` (the first byte first; an odd digit count gets a
/// leading zero, as fio pads it) and strings in double or single quotes,
/// one after another. fio's decimal numbers and `%o` (the block's offset)
/// are refused by name.
fn fio_pattern_bytes(text: &str) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(hex) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) {
            let end = hex
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(hex.len());
            let digits = &hex[..end];
            if digits.is_empty() {
                return Err("0x without hex digits".to_string());
            }
            let padded = if digits.len() % 2 == 1 {
                format!("0{digits}")
            } else {
                digits.to_string()
            };
            for at in (0..padded.len()).step_by(2) {
                bytes.push(u8::from_str_radix(&padded[at..at + 2], 16).expect("hex digits"));
            }
            rest = &hex[end..];
        } else if let Some(quote) = rest.chars().next().filter(|c| matches!(c, '"' | '\'')) {
            let inner = &rest[1..];
            let end = inner
                .find(quote)
                .ok_or_else(|| format!("a string opened with {quote} and not closed"))?;
            bytes.extend_from_slice(&inner.as_bytes()[..end]);
            rest = &inner[end + 1..];
        } else if rest.starts_with("%o") {
            return Err("%o (each block's offset in its pattern) has no iolab form".to_string());
        } else {
            return Err(format!(
                "'{rest}': iolab reads a pattern as 0x hex digits and quoted strings (a decimal number has no fixed width: give it in hex)"
            ));
        }
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::fio_pattern_bytes;

    #[test]
    fn fios_patterns_read_as_fio_writes_them() {
        assert_eq!(
            fio_pattern_bytes("0xaa555aa5").unwrap(),
            [0xaa, 0x55, 0x5a, 0xa5]
        );
        // An odd digit count gets a leading zero (fio 3.33 wrote 0a bc).
        assert_eq!(fio_pattern_bytes("0xabc").unwrap(), [0x0a, 0xbc]);
        assert_eq!(
            fio_pattern_bytes("0xdeadbeef\"AB\"0x0000").unwrap(),
            [0xde, 0xad, 0xbe, 0xef, b'A', b'B', 0, 0]
        );
        assert_eq!(fio_pattern_bytes("'ab'").unwrap(), b"ab");
        for (bad, says) in [
            ("1234", "in hex"),
            ("0x", "without hex digits"),
            ("\"ab", "not closed"),
            ("0xaa%o", "%o"),
        ] {
            let why = fio_pattern_bytes(bad).unwrap_err();
            assert!(why.contains(says), "{bad}: {why}");
        }
    }
}
