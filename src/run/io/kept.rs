//! A latency histogram as a job's outcome holds it: whole while its
//! repetition runs, and as its non-empty buckets once the repetition is
//! kept until its point is recorded.
//!
//! A histogram that tracks up to an hour at three significant digits is a
//! dense array of about 260 KB, nearly all zeros; a repetition keeps one
//! per direction and per job, and a point may keep a thousand repetitions.
//! The non-empty buckets, as (highest equivalent value, count) pairs, are a
//! few hundred: recorded again into a histogram of the same lowest value
//! and precision, each count lands in the bucket it came from, so the
//! histogram rebuilt for gathering is the one recorded.

use crate::record::histogram::new_histogram;
use hdrhistogram::Histogram;
use std::borrow::Cow;

/// A job's latency histogram, whole or kept as its buckets.
#[derive(Clone, Debug)]
pub struct Latencies(Form);

#[derive(Clone, Debug)]
enum Form {
    Whole(Histogram<u64>),
    /// (highest equivalent value, count) of each non-empty bucket of a
    /// histogram made by [`new_histogram`].
    Buckets(Vec<(u64, u64)>),
}

impl Latencies {
    /// The histogram a loop recorded into ([`new_histogram`]'s layout).
    pub fn new(histogram: Histogram<u64>) -> Latencies {
        Latencies(Form::Whole(histogram))
    }

    /// The histogram, rebuilt from its buckets when kept.
    pub fn histogram(&self) -> Cow<'_, Histogram<u64>> {
        match &self.0 {
            Form::Whole(histogram) => Cow::Borrowed(histogram),
            Form::Buckets(buckets) => {
                let mut histogram = new_histogram();
                for &(value, count) in buckets {
                    // In range: every value came from a histogram of these bounds.
                    let _ = histogram.record_n(value, count);
                }
                Cow::Owned(histogram)
            }
        }
    }

    /// Keeps only the non-empty buckets (see the module documentation).
    pub fn keep_buckets(&mut self) {
        if let Form::Whole(histogram) = &self.0 {
            let buckets = histogram
                .iter_recorded()
                .map(|bucket| (bucket.value_iterated_to(), bucket.count_at_value()))
                .collect();
            self.0 = Form::Buckets(buckets);
        }
    }

    /// How many latencies it holds.
    pub fn len(&self) -> u64 {
        match &self.0 {
            Form::Whole(histogram) => histogram.len(),
            Form::Buckets(buckets) => buckets.iter().map(|&(_, count)| count).sum(),
        }
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_buckets_give_back_the_histogram_recorded() {
        let mut histogram = new_histogram();
        for value in [1u64, 7, 999, 1_001, 12_345, 7_000_001, 3_000_000_000] {
            histogram.record_n(value, value % 5 + 1).unwrap();
        }
        let mut kept = Latencies::new(histogram.clone());
        kept.keep_buckets();
        assert_eq!(*kept.histogram(), histogram);
        assert_eq!(kept.len(), histogram.len());
        let mut empty = Latencies::new(new_histogram());
        empty.keep_buckets();
        assert!(empty.is_empty());
    }
}
