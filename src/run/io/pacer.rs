//! Pacing inside the timing loops: waiting for each I/O's intended issue time, pausing for think time, and latency measured from the intended time (coordinated omission corrected).
//!
//! A paced job that falls behind (a device stall) issues its late I/Os at
//! once, so their latency from *issue* looks normal: the stall hides in
//! the few I/Os that spanned it. Their latency from the time they were
//! *meant* to start does not hide it — the correction of wrk2 and of
//! HdrHistogram's `record_correct`, done exactly rather than by
//! back-filling. Both are kept: the usual figures stay latency from issue.
//!
//! The loops are generic over [`Pacer`]: the unpaced form, [`Unpaced`], is
//! a type whose methods are constants, so a run without `--rate`,
//! `--think` or `--flow` costs the hot path nothing.

use super::flow::FlowShare;
use super::recorder::JobMemory;
use super::spec::LoopSpec;
use crate::clock::now_ns;
use crate::engine::Direction;
use crate::plan::pace::{Pace, Schedule};
use crate::record::histogram::new_histogram;
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The pacer of a paced job (its histogram taken from the job's memory);
/// `None` when nothing paces it and the loops take their unpaced form.
pub(in crate::run) fn pacer_of(spec: &LoopSpec<'_>, memory: &mut JobMemory) -> Option<Paced> {
    if !spec.pace.paces() {
        return None;
    }
    tighten_timer_slack();
    let histogram = memory.from_intended.take().unwrap_or_else(new_histogram);
    Some(Paced::new(
        spec.pace,
        spec.seed,
        histogram,
        memory.flow.take(),
    ))
}

/// What the timing loops ask of a pace.
pub(in crate::run) trait Pacer {
    /// Whether this pacer paces at all: the loops skip every call when not.
    const PACED: bool;
    /// A phase starts at `now`: the schedule begins again.
    fn start(&mut self, now: u64);
    /// When the next I/O may be issued, ns on CLOCK_MONOTONIC (0: at once).
    fn due(&self) -> u64;
    /// The direction of the next I/O when each direction has a schedule of
    /// its own (per-direction rates): the one due first. `None`: the draw's.
    fn direction(&self) -> Option<Direction>;
    /// The next I/O is being issued at `now`: returns the time it was meant
    /// to start (its latency from intended issue is measured from it) and
    /// advances the schedule.
    fn issue(&mut self, now: u64) -> u64;
    /// The I/O meant to start at `intended` completed at `now`: counts it
    /// toward think time and, when `recording`, records its latency from
    /// the intended issue time.
    fn completed(&mut self, now: u64, intended: u64, recording: bool);
    /// The histogram of latencies from intended issue, when a rate is set.
    fn into_histogram(self) -> Option<Histogram<u64>>;
}

/// No pacing: every method is a constant the compiler removes.
pub(in crate::run) struct Unpaced;

impl Pacer for Unpaced {
    const PACED: bool = false;
    #[inline(always)]
    fn start(&mut self, _now: u64) {}
    #[inline(always)]
    fn due(&self) -> u64 {
        0
    }
    #[inline(always)]
    fn direction(&self) -> Option<Direction> {
        None
    }
    #[inline(always)]
    fn issue(&mut self, now: u64) -> u64 {
        now
    }
    #[inline(always)]
    fn completed(&mut self, _now: u64, _intended: u64, _recording: bool) {}
    fn into_histogram(self) -> Option<Histogram<u64>> {
        None
    }
}

/// One schedule of arrivals: the job's, or one direction's.
#[derive(Clone, Debug)]
struct Lane {
    /// The direction its I/Os take; `None`: the draw's (one schedule for the job).
    direction: Option<Direction>,
    /// The schedule as it stands before the first I/O, restarted per phase.
    initial: Schedule,
    schedule: Schedule,
    /// When its next I/O is due, ns on CLOCK_MONOTONIC.
    upcoming: u64,
}

/// A rate (one schedule, or one per direction), think time, or both.
pub(in crate::run) struct Paced {
    lanes: Vec<Lane>,
    /// The lane whose I/O is due first.
    next: usize,
    /// The schedules' time zero, ns; shifted by each think pause so that
    /// thinking is not counted as falling behind.
    origin: u64,
    /// When the current think pause ends (0 when not thinking).
    resume_at: u64,
    think_ns: u64,
    think_every: u32,
    since_think: u32,
    from_intended: Histogram<u64>,
    /// The job's share of its flow (`--flow`).
    flow: Option<FlowShare>,
}

impl Paced {
    /// The pacer of `pace` (which paces), seeded like the job's other
    /// draws, recording into `histogram` (allocated with the job's memory).
    pub(in crate::run) fn new(
        pace: Pace,
        seed: u64,
        histogram: Histogram<u64>,
        flow: Option<FlowShare>,
    ) -> Paced {
        let lane = |direction: Option<Direction>, iops: f64, seed: u64| {
            let schedule = Schedule::new(iops, pace.arrivals, seed);
            Lane {
                direction,
                initial: schedule.clone(),
                schedule,
                upcoming: 0,
            }
        };
        let lanes = match (pace.per_direction, pace.iops) {
            // Each direction's arrivals drawn apart from the others'.
            (Some(per_direction), _) => Direction::ALL
                .into_iter()
                .filter_map(|d| {
                    let iops = per_direction[d.index()]?;
                    let seed = seed ^ (d.index() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    Some(lane(Some(d), iops, seed))
                })
                .collect(),
            (None, Some(iops)) => vec![lane(None, iops, seed)],
            (None, None) => Vec::new(),
        };
        Paced {
            lanes,
            next: 0,
            origin: 0,
            resume_at: 0,
            think_ns: pace.think.map_or(0, |think| think.ns),
            think_every: pace.think.map_or(0, |think| think.every),
            since_think: 0,
            from_intended: histogram,
            flow,
        }
    }

    /// Points `next` at the lane due first (the earlier direction on a tie).
    #[inline]
    fn find_next(&mut self) {
        let mut next = 0;
        for (i, lane) in self.lanes.iter().enumerate().skip(1) {
            if lane.upcoming < self.lanes[next].upcoming {
                next = i;
            }
        }
        self.next = next;
    }
}

impl Pacer for Paced {
    const PACED: bool = true;

    fn start(&mut self, now: u64) {
        self.origin = now;
        self.resume_at = 0;
        self.since_think = 0;
        for lane in &mut self.lanes {
            lane.schedule = lane.initial.clone();
            lane.upcoming = now + lane.schedule.next();
        }
        self.find_next();
    }

    #[inline]
    fn due(&self) -> u64 {
        let upcoming = self.lanes.get(self.next).map_or(0, |lane| lane.upcoming);
        let due = upcoming.max(self.resume_at);
        match &self.flow {
            // Held back: look again after the flow's sleep (at once
            // without one: a due time just past now).
            Some(flow) if flow.held_back() => due.max(now_ns() + flow.sleep_ns.max(1)),
            _ => due,
        }
    }

    #[inline]
    fn direction(&self) -> Option<Direction> {
        self.lanes.get(self.next).and_then(|lane| lane.direction)
    }

    #[inline]
    fn issue(&mut self, now: u64) -> u64 {
        if let Some(flow) = &mut self.flow {
            flow.issue();
        }
        let origin = self.origin;
        match self.lanes.get_mut(self.next) {
            Some(lane) => {
                let intended = lane.upcoming;
                lane.upcoming = origin + lane.schedule.next();
                if self.lanes.len() > 1 {
                    self.find_next();
                }
                intended
            }
            None => now,
        }
    }

    #[inline]
    fn completed(&mut self, now: u64, intended: u64, recording: bool) {
        if recording && !self.lanes.is_empty() {
            self.from_intended
                .saturating_record(now.saturating_sub(intended).max(1));
        }
        if self.think_every > 0 {
            self.since_think += 1;
            if self.since_think == self.think_every {
                self.since_think = 0;
                self.resume_at = now + self.think_ns;
                // The schedules wait out the pause with the job.
                self.origin += self.think_ns;
                for lane in &mut self.lanes {
                    lane.upcoming += self.think_ns;
                }
            }
        }
    }

    fn into_histogram(self) -> Option<Histogram<u64>> {
        (!self.lanes.is_empty()).then_some(self.from_intended)
    }
}

/// How close to a due time the wait stops sleeping and spins: the
/// scheduler wakes a sleeping thread tens of microseconds late, which
/// would count as the device's latency from intended issue.
const SPIN_NS: u64 = 50_000;

/// The longest single sleep, so that a slow rate still sees an interrupt.
const MAX_SLEEP_NS: u64 = 100_000_000;

/// Waits until `due` (ns on CLOCK_MONOTONIC) unless `deadline` comes first
/// or the interrupt flag is raised; returns the time it woke and whether it
/// reached `due` before the deadline (a thread preempted past both must not
/// issue an I/O after the run's end). Sleeps until shortly before, then spins.
pub(in crate::run) fn wait_until(
    due: u64,
    deadline: Option<u64>,
    interrupt: &AtomicUsize,
) -> (u64, bool) {
    let until = deadline.map_or(due, |deadline| due.min(deadline));
    let mut now = now_ns();
    while now < until {
        if interrupt.load(Ordering::Relaxed) != 0 {
            return (now, false);
        }
        let left = until - now;
        if left > SPIN_NS {
            let nap = (left - SPIN_NS).min(MAX_SLEEP_NS);
            let _ = rustix::thread::nanosleep(&rustix::time::Timespec {
                tv_sec: (nap / 1_000_000_000) as i64,
                tv_nsec: (nap % 1_000_000_000) as _,
            });
        } else {
            std::hint::spin_loop();
        }
        now = now_ns();
    }
    let in_time = deadline.is_none_or(|deadline| now < deadline);
    (now, now >= due && in_time)
}

/// Asks the kernel to wake this thread when its sleep ends, not up to
/// 50 µs later (the default timer slack): a paced loop's sleeps end just
/// before an I/O is due.
pub(in crate::run) fn tighten_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and touches
    // only the calling thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::pace::{Arrivals, ThinkTime};
    use crate::record::histogram::new_histogram;

    fn paced(pace: Pace) -> Paced {
        Paced::new(pace, 1, new_histogram(), None)
    }

    #[test]
    fn a_rate_sets_each_issue_time_and_latency_counts_from_it() {
        let mut pacer = paced(Pace {
            iops: Some(1000.0),
            ..Pace::NONE
        });
        pacer.start(10_000_000);
        assert_eq!(pacer.due(), 10_000_000);
        let first = pacer.issue(10_000_000);
        assert_eq!(first, 10_000_000);
        assert_eq!(pacer.due(), 11_000_000);
        // The device stalled 5 ms: the next I/O is late and issued at once,
        // yet its latency counts from when it was due.
        pacer.completed(15_000_000, first, true);
        let second = pacer.issue(15_000_000);
        assert_eq!(second, 11_000_000);
        pacer.completed(15_100_000, second, true);
        let histogram = pacer.into_histogram().unwrap();
        assert_eq!(histogram.len(), 2);
        assert!(histogram.max() >= 4_090_000, "{}", histogram.max());
    }

    #[test]
    fn think_time_pauses_every_n_and_shifts_the_schedule() {
        let mut pacer = paced(Pace {
            iops: Some(1000.0),
            per_direction: None,
            arrivals: Arrivals::Uniform,
            think: Some(ThinkTime {
                ns: 3_000_000,
                every: 2,
            }),
            flow: None,
        });
        pacer.start(0);
        for k in 0..2 {
            let intended = pacer.issue(k * 1_000_000);
            pacer.completed(k * 1_000_000 + 100, intended, false);
        }
        // After two I/Os: a 3 ms pause from the second's completion (to
        // 4.0001 ms), and the rate's third slot (2 ms) moved by it, later.
        assert_eq!(pacer.due(), 5_000_000);
        assert_eq!(pacer.issue(5_000_000), 5_000_000);
        assert_eq!(pacer.due(), 6_000_000);
        assert!(pacer.into_histogram().unwrap().is_empty());
    }

    /// Reads at 3000/s and writes at 1000/s: over a second of schedule,
    /// three reads to each write, each direction on its own even schedule,
    /// issued in the order they fall due.
    #[test]
    fn rates_per_direction_merge_their_schedules() {
        let mut pacer = paced(Pace {
            iops: Some(4000.0),
            per_direction: Some([Some(3000.0), Some(1000.0), None]),
            ..Pace::NONE
        });
        pacer.start(0);
        let mut issued = Vec::new();
        while pacer.due() < 999_999_000 {
            let direction = pacer.direction().expect("each direction has a schedule");
            let due = pacer.due();
            issued.push((direction, pacer.issue(due)));
        }
        let count = |d: Direction| issued.iter().filter(|(x, _)| *x == d).count();
        assert_eq!(
            (count(Direction::Read), count(Direction::Write)),
            (3000, 1000)
        );
        assert!(
            issued.windows(2).all(|w| w[0].1 <= w[1].1),
            "issued in time order"
        );
        let writes: Vec<u64> = issued
            .iter()
            .filter(|(d, _)| *d == Direction::Write)
            .map(|(_, at)| *at)
            .collect();
        assert_eq!(&writes[..3], [0, 1_000_000, 2_000_000]);
        // One schedule for the job leaves the direction to the draw.
        let mut pacer = paced(Pace {
            iops: Some(10.0),
            ..Pace::NONE
        });
        pacer.start(0);
        assert_eq!(pacer.direction(), None);
    }

    #[test]
    fn think_time_alone_records_no_intended_latency() {
        let mut pacer = paced(Pace {
            think: Some(ThinkTime { ns: 1000, every: 1 }),
            ..Pace::NONE
        });
        pacer.start(0);
        assert_eq!(pacer.issue(5), 5);
        pacer.completed(10, 5, true);
        assert_eq!(pacer.due(), 1010);
        assert!(pacer.into_histogram().is_none());
    }

    #[test]
    fn a_wait_ends_at_its_due_time_or_its_deadline() {
        let interrupt = AtomicUsize::new(0);
        let start = now_ns();
        let (woke, reached) = wait_until(start + 2_000_000, None, &interrupt);
        assert!(reached && woke >= start + 2_000_000);
        let (woke, reached) = wait_until(now_ns() + 1_000_000_000, Some(start), &interrupt);
        assert!(!reached && woke >= start);
    }
}
