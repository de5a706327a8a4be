//! Latency histograms in the result file: HdrHistogram's V2 compressed format, base64-encoded.
//!
//! This is the format HdrHistogram's own libraries (Java, C, Go, Rust) read
//! and write, so histograms from repetitions, jobs and hosts merge exactly.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

/// The largest count one bucket may hold: the V2 format stores counts as
/// signed 64-bit numbers.
pub const MAX_COUNT: u64 = i64::MAX as u64;

/// Encodes a histogram as base64 of its V2 deflate serialization. Refused
/// when a bucket counts more than [`MAX_COUNT`] values, which the format
/// cannot hold (no measurement gets there; a damaged input can).
pub fn encode(histogram: &Histogram<u64>) -> Result<String, String> {
    if let Some(bucket) = histogram
        .iter_recorded()
        .find(|v| v.count_at_value() > MAX_COUNT)
    {
        return Err(format!(
            "a latency bucket ({} ns) counts {} I/Os, more than a histogram holds (2^63 - 1)",
            bucket.value_iterated_to(),
            bucket.count_at_value()
        ));
    }
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(histogram, &mut bytes)
        .map_err(|error| format!("a histogram cannot be encoded: {error:?}"))?;
    Ok(STANDARD.encode(bytes))
}

/// Decodes what [`encode`] produced.
pub fn decode(text: &str) -> Result<Histogram<u64>, String> {
    let bytes = STANDARD
        .decode(text)
        .map_err(|error| format!("histogram is not valid base64: {error}"))?;
    Deserializer::new()
        .deserialize(&mut bytes.as_slice())
        .map_err(|error| format!("histogram cannot be decoded: {error:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::timing::new_histogram;

    #[test]
    fn histograms_round_trip_exactly() {
        let mut histogram = new_histogram();
        for value in [1u64, 50, 999, 12_345, 7_000_000, 3_000_000_000] {
            histogram.record_n(value, value % 7 + 1).unwrap();
        }
        let decoded = decode(&encode(&histogram).unwrap()).unwrap();
        assert_eq!(decoded, histogram);
        assert_eq!(
            decoded.value_at_quantile(0.5),
            histogram.value_at_quantile(0.5)
        );
    }

    #[test]
    fn a_count_beyond_the_format_is_refused_not_a_panic() {
        let mut histogram = new_histogram();
        histogram.record_n(1000, MAX_COUNT + 1).unwrap();
        let error = encode(&histogram).unwrap_err();
        assert!(error.contains("9223372036854775808 I/Os"), "{error}");
    }

    #[test]
    fn garbage_is_refused() {
        assert!(decode("not base64!").is_err());
        assert!(decode("aGVsbG8=").is_err());
    }
}
