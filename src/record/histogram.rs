//! Latency histograms in the result file: HdrHistogram's V2 compressed format, base64-encoded.
//!
//! This is the format HdrHistogram's own libraries (Java, C, Go, Rust) read
//! and write, so histograms from repetitions, jobs and hosts merge exactly.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

/// Encodes a histogram as base64 of its V2 deflate serialization.
pub fn encode(histogram: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(histogram, &mut bytes)
        .expect("serializing a histogram into memory cannot fail");
    STANDARD.encode(bytes)
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
        let decoded = decode(&encode(&histogram)).unwrap();
        assert_eq!(decoded, histogram);
        assert_eq!(
            decoded.value_at_quantile(0.5),
            histogram.value_at_quantile(0.5)
        );
    }

    #[test]
    fn garbage_is_refused() {
        assert!(decode("not base64!").is_err());
        assert!(decode("aGVsbG8=").is_err());
    }
}
