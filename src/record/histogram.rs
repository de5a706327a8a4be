//! Latency histograms in the result file: HdrHistogram's V2 compressed format, base64-encoded.
//!
//! This is the format HdrHistogram's own libraries (Java, C, Go, Rust) read
//! and write, so histograms from repetitions, jobs and hosts merge exactly.

use super::{LatencySummary, Percentile};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};

/// The largest latency the histograms hold exactly: one hour, in ns; longer
/// values are clamped to it.
pub const MAX_TRACKED_NS: u64 = 3_600_000_000_000;

/// A latency histogram in ns with 3 significant digits (0.1% resolution).
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKED_NS, 3).expect("valid histogram bounds")
}

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
    let mut rest = bytes.as_slice();
    let histogram = Deserializer::new()
        .deserialize(&mut rest)
        .map_err(|error| format!("histogram cannot be decoded: {error:?}"))?;
    // One encoded histogram, nothing after it: bytes left over mean the
    // field was pasted together or cut from something else.
    if !rest.is_empty() {
        return Err(format!(
            "histogram has {} bytes after its end: not one encoded histogram",
            rest.len()
        ));
    }
    Ok(histogram)
}

/// The percentiles recorded for every latency distribution.
pub const PERCENTILES: [f64; 11] = [
    1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 99.99,
];

/// Summary figures and the encoded histogram of a latency distribution;
/// refused only for a bucket beyond the format (see [`encode`]).
pub fn latency_summary(histogram: &Histogram<u64>) -> Result<LatencySummary, String> {
    let empty = histogram.is_empty();
    Ok(LatencySummary {
        count: histogram.len(),
        min: if empty { 0 } else { histogram.min() },
        max: histogram.max(),
        mean: if empty { 0.0 } else { histogram.mean() },
        stdev: if empty { 0.0 } else { histogram.stdev() },
        percentiles: PERCENTILES
            .iter()
            .map(|&percentile| Percentile {
                percentile,
                value: histogram.value_at_percentile(percentile),
            })
            .collect(),
        histogram: encode(histogram)?,
    })
}

/// The latency of every I/O behind `latencies`, merged exactly from their
/// histograms; `None` when there are none (imported fio json).
pub fn merged_latency(latencies: &[&LatencySummary]) -> Result<Option<LatencySummary>, String> {
    if latencies.is_empty() {
        return Ok(None);
    }
    let mut merged = new_histogram();
    for latency in latencies {
        let decoded = decode(&latency.histogram)?;
        merged
            .add(decoded)
            .map_err(|error| format!("cannot merge histograms: {error:?}"))?;
    }
    latency_summary(&merged).map(Some)
}

#[cfg(test)]
mod tests {
    use super::new_histogram;
    use super::*;

    #[test]
    fn a_knee_target_may_name_every_recorded_percentile_and_no_other() {
        assert_eq!(crate::plan::knee::PERCENTILES, PERCENTILES);
    }

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
        // A whole histogram with bytes after it.
        let mut histogram = new_histogram();
        histogram.record(1000).unwrap();
        let mut bytes = STANDARD.decode(encode(&histogram).unwrap()).unwrap();
        bytes.extend_from_slice(b"garbage");
        let error = decode(&STANDARD.encode(&bytes)).unwrap_err();
        assert!(error.contains("7 bytes after its end"), "{error}");
    }
}
