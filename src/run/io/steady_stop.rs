//! What the jobs of a repetition share to stop together once steady (`--steady`): each job's verdict on its own series, or its group's summed series (`:sum`), and the stop of every crew when all are met.

use crate::plan::steady::SteadyCriterion;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// What the jobs of a repetition share to stop together at steady state,
/// handed to each job's recorder with its memory ([`super::recorder::JobMemory::with_steady`]).
#[derive(Clone, Debug)]
pub struct Steady {
    /// The criterion each job applies to its own interval series.
    pub criterion: SteadyCriterion,
    /// Per job: whether its last closed intervals meet the criterion.
    pub met: std::sync::Arc<[AtomicBool]>,
    /// When all jobs first met it (CLOCK_MONOTONIC ns), 0 until then.
    pub reached_at: std::sync::Arc<AtomicU64>,
    /// Every crew's stop flag, raised when all jobs are steady.
    pub stops: std::sync::Arc<[std::sync::Arc<AtomicUsize>]>,
    /// A `:sum` criterion: the series of the job's group, judged together.
    pub group: Option<std::sync::Arc<GroupSeries>>,
}

/// The latest series of each job of a group whose criterion judges their
/// sum: each job's own written at each interval it closes, the sum judged
/// once every job has closed as many intervals of the same length.
#[derive(Debug)]
pub struct GroupSeries {
    /// The index of the group's first job among the repetition's.
    first: usize,
    /// Per job: its values (by the criterion's metric) and its interval, ns.
    jobs: std::sync::Mutex<Vec<(Vec<f64>, u64)>>,
}

impl GroupSeries {
    /// The series of `jobs` jobs, the first of them number `first`.
    pub fn new(first: usize, jobs: usize) -> GroupSeries {
        GroupSeries {
            first,
            jobs: std::sync::Mutex::new(vec![(Vec::new(), 0); jobs]),
        }
    }

    /// Job `job`'s series is now `values` at `interval_ns`: whether the
    /// group's sum meets `criterion`, `None` while some job has closed
    /// fewer intervals (or coarser ones) than it.
    fn judge(
        &self,
        job: usize,
        values: impl Iterator<Item = f64>,
        interval_ns: u64,
        criterion: &SteadyCriterion,
    ) -> Option<bool> {
        let mut jobs = self
            .jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let own = &mut jobs[job - self.first];
        own.0.clear();
        own.0.extend(values);
        own.1 = interval_ns;
        let (len, ns) = (own.0.len(), own.1);
        if jobs.iter().any(|(v, i)| v.len() != len || *i != ns) {
            return None;
        }
        let jobs = &*jobs;
        let sum = (0..len).map(|k| jobs.iter().map(|(v, _)| v[k]).sum::<f64>());
        Some(criterion.met(sum, ns as f64 / 1e9))
    }

    /// The indices of the group's jobs among the repetition's.
    fn members(&self) -> std::ops::Range<usize> {
        let count = self
            .jobs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len();
        self.first..self.first + count
    }
}

impl Steady {
    /// Called when a job closes an interval (cold path): updates its flag and,
    /// when every job is steady, stops them all through their crews' flags.
    pub(super) fn update(
        &self,
        job: usize,
        values: impl DoubleEndedIterator<Item = f64> + Clone,
        interval_s: f64,
        now: u64,
    ) {
        let met = match &self.group {
            None => {
                let met = self.criterion.met(values, interval_s);
                self.met[job].store(met, Ordering::Relaxed);
                met
            }
            Some(group) => {
                let interval_ns = (interval_s * 1e9).round() as u64;
                let Some(met) = group.judge(job, values, interval_ns, &self.criterion) else {
                    return;
                };
                for member in group.members() {
                    self.met[member].store(met, Ordering::Relaxed);
                }
                met
            }
        };
        if met && self.met.iter().all(|m| m.load(Ordering::Relaxed)) {
            let _ = self
                .reached_at
                .compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
            super::stops::stop_all(&self.stops);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summed_group_is_judged_on_its_jobs_sum_once_all_closed_as_many() {
        let criterion: SteadyCriterion = "iops:range<5%/3s:sum".parse().unwrap();
        let group = GroupSeries::new(4, 2);
        // Each job swings by half; their sum is flat.
        let a = [100.0, 50.0, 100.0, 50.0];
        let b = [50.0, 100.0, 50.0, 100.0];
        assert!(!criterion.met(a.iter().copied(), 1.0));
        let s = 1_000_000_000;
        assert_eq!(group.judge(4, a.iter().copied(), s, &criterion), None);
        assert_eq!(group.judge(5, b[..3].iter().copied(), s, &criterion), None);
        assert_eq!(group.judge(5, b.iter().copied(), s, &criterion), Some(true));
        assert_eq!(group.members(), 4..6);
        // A job whose series was coarsened waits for the other's.
        assert_eq!(
            group.judge(4, [150.0, 150.0].into_iter(), 2 * s, &criterion),
            None
        );
    }
}
