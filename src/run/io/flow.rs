//! fio's flow control between jobs (`--flow`): the counter the jobs of one flow id share, each job's share of it, and the test that holds a job back while it is ahead of its weight.
//!
//! fio (flow.c) keeps per flow id a count of the I/Os its jobs issued
//! (starting at 1) and the sum of their weights; before each I/O a job
//! whose part of the count is above its part of the weights waits
//! (`flow_sleep`, or looks again at once). A job that ends takes its I/Os
//! and its weight out, so the others run free. Only flow jobs pay for it:
//! one relaxed atomic add per I/O, in the paced form of the loops.

use crate::plan::Flow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What the jobs of one flow id share.
#[derive(Debug)]
struct Counter {
    /// I/Os its jobs issued, plus 1 (fio's start value: no division by 0).
    issued: AtomicU64,
    /// The weights of its jobs still running.
    total_weight: AtomicU64,
}

/// The counters of one repetition's flows, one per flow id.
#[derive(Debug, Default)]
pub(in crate::run) struct Flows {
    counters: Vec<(u32, Arc<Counter>)>,
}

impl Flows {
    /// A job's share of its flow, its weight counted in until the share
    /// is dropped (the job's end, or its thread's failure to start).
    pub(in crate::run) fn join(&mut self, flow: Flow) -> FlowShare {
        let counter = match self.counters.iter().find(|(id, _)| *id == flow.id) {
            Some((_, counter)) => counter.clone(),
            None => {
                let counter = Arc::new(Counter {
                    issued: AtomicU64::new(1),
                    total_weight: AtomicU64::new(0),
                });
                self.counters.push((flow.id, counter.clone()));
                counter
            }
        };
        counter
            .total_weight
            .fetch_add(u64::from(flow.weight), Ordering::Relaxed);
        FlowShare {
            counter,
            own: 0,
            weight: u64::from(flow.weight),
            sleep_ns: flow.sleep_ns,
        }
    }
}

/// One job's part in its flow.
#[derive(Debug)]
pub(in crate::run) struct FlowShare {
    counter: Arc<Counter>,
    /// I/Os this job issued.
    own: u64,
    weight: u64,
    /// How long a held-back job waits before it looks again, ns.
    pub(in crate::run) sleep_ns: u64,
}

impl FlowShare {
    /// Whether the job is ahead of its weight: its part of the flow's I/Os
    /// above its part of the weights (fio's `flow_threshold_exceeded`).
    #[inline]
    pub(in crate::run) fn held_back(&self) -> bool {
        let issued = self.counter.issued.load(Ordering::Relaxed);
        let total = self.counter.total_weight.load(Ordering::Relaxed);
        u128::from(self.own) * u128::from(total) > u128::from(self.weight) * u128::from(issued)
    }

    /// The job issues an I/O.
    #[inline]
    pub(in crate::run) fn issue(&mut self) {
        self.counter.issued.fetch_add(1, Ordering::Relaxed);
        self.own += 1;
    }
}

impl Drop for FlowShare {
    fn drop(&mut self) {
        self.counter.issued.fetch_sub(self.own, Ordering::Relaxed);
        self.counter
            .total_weight
            .fetch_sub(self.weight, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(weight: u32, id: u32) -> Flow {
        Flow {
            weight,
            id,
            sleep_ns: 0,
        }
    }

    /// Issues from whichever share is not held back, `n` times; the counts.
    fn run(shares: &mut [FlowShare], n: usize) -> Vec<u64> {
        for _ in 0..n {
            let free = shares
                .iter()
                .position(|s| !s.held_back())
                .expect("one may go");
            shares[free].issue();
        }
        shares.iter().map(|s| s.own).collect()
    }

    #[test]
    fn jobs_of_a_flow_issue_in_the_ratio_of_their_weights() {
        let mut flows = Flows::default();
        let mut shares = vec![flows.join(flow(1, 0)), flows.join(flow(8, 0))];
        let counts = run(&mut shares, 9000);
        assert!((990..=1010).contains(&counts[0]), "{counts:?}");
        assert!((7990..=8010).contains(&counts[1]), "{counts:?}");
    }

    #[test]
    fn a_job_that_ends_leaves_the_others_free_and_ids_apart() {
        let mut flows = Flows::default();
        let mut first = flows.join(flow(1, 0));
        let ended = flows.join(flow(1, 0));
        let other_id = flows.join(flow(1, 7));
        for _ in 0..3 {
            first.issue();
        }
        // Equal weights, one job 3 I/Os ahead: held back.
        assert!(first.held_back());
        assert!(!other_id.held_back());
        drop(ended);
        assert!(!first.held_back());
        assert_eq!(flows.counters[0].1.issued.load(Ordering::Relaxed), 4);
    }
}
