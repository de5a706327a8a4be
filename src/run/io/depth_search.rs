//! A latency target's search for the deepest queue that keeps within it (`--latency-target`), decision for decision as fio's `lat_target_*` in its `io_u.c`.
//!
//! The loops ask [`DepthSearch::depth`] how many I/Os may be in flight, tell
//! it each completion's latency and, after each completion, whether a
//! window has closed; it answers what to do next ([`Verdict`]). A job whose
//! engine has one I/O in flight (psync, sync, mmap, null) still walks the
//! depths up to its `iodepth`, as fio does, though only one I/O is ever in
//! flight: the windows it spends are the same.

use crate::plan::latency_target::LatencyTarget;

/// What the loop does after a completion or a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::run) enum Verdict {
    /// Go on at [`DepthSearch::depth`].
    Keep,
    /// The depth went down: issue nothing until every I/O in flight has
    /// completed, then [`DepthSearch::start_cycle`] (fio's quiesce).
    Drain,
    /// The depth held: drain, discard everything recorded, and measure from
    /// [`DepthSearch::start_cycle`] on (fio's final run, after which it
    /// resets its statistics).
    Restart,
    /// The final window held too: the job is done.
    Done,
    /// An I/O took longer than the target at depth 1 with a percentile of
    /// 100: fio ends the job with "max latency exceeded"; the latency, ns.
    Over(u64),
}

/// One job's search: its depth, the bounds found so far and the open window.
#[derive(Debug)]
pub(in crate::run) struct DepthSearch {
    target: LatencyTarget,
    /// The job's `iodepth`, the deepest the search goes.
    most: u32,
    depth: u32,
    /// The deepest depth that held.
    low: u32,
    /// The shallowest depth that failed, or `most`.
    high: u32,
    /// Windows in a row that held one below `high`.
    stable: u32,
    final_run: bool,
    /// Whether windows are judged: not during a ramp, where fio keeps depth 1.
    armed: bool,
    window_start: u64,
    ios: u64,
    late: u64,
}

impl DepthSearch {
    /// A search up to depth `most`, at depth 1 and not yet judging.
    pub(in crate::run) fn new(target: LatencyTarget, most: u32) -> Self {
        DepthSearch {
            target,
            most: most.max(1),
            depth: 1,
            low: 1,
            high: most.max(1),
            stable: 0,
            final_run: false,
            armed: false,
            window_start: 0,
            ios: 0,
            late: 0,
        }
    }

    /// Whether the depth held and the final window began: the figures are
    /// then that window's alone.
    pub(in crate::run) fn settled(&self) -> bool {
        self.final_run
    }

    /// I/Os that may be in flight now.
    #[inline(always)]
    pub(in crate::run) fn depth(&self) -> u32 {
        self.depth
    }

    /// Opens a window at `now` (fio's `lat_new_cycle`); the first one also
    /// starts the judging.
    pub(in crate::run) fn start_cycle(&mut self, now: u64) {
        self.armed = true;
        self.window_start = now;
        self.ios = 0;
        self.late = 0;
    }

    /// One completed I/O that took `latency_ns`.
    #[inline(always)]
    pub(in crate::run) fn completed(&mut self, latency_ns: u64) -> Verdict {
        if !self.armed {
            return Verdict::Keep;
        }
        self.ios += 1;
        if latency_ns <= self.target.target_ns {
            return Verdict::Keep;
        }
        if self.target.percentile < 100.0 {
            self.late += 1;
            return Verdict::Keep;
        }
        match self.lower() {
            true => Verdict::Drain,
            false => Verdict::Over(latency_ns),
        }
    }

    /// After a completion at `now`: judges the window once it has lasted
    /// its length (fio's `lat_target_check`).
    #[inline(always)]
    pub(in crate::run) fn window_check(&mut self, now: u64) -> Verdict {
        if !self.armed || now.saturating_sub(self.window_start) < self.target.window_ns {
            return Verdict::Keep;
        }
        self.judge(now)
    }

    #[cold]
    #[inline(never)]
    fn judge(&mut self, now: u64) -> Verdict {
        // No I/O in a window is no success (fio's 0/0 compares false).
        let within = match self.ios {
            0 => f64::NAN,
            ios => (ios - self.late) as f64 / ios as f64 * 100.0,
        };
        if within >= self.target.percentile {
            return self.held(now);
        }
        match self.lower() {
            true => Verdict::Drain,
            // At depth 1 fio keeps its window open and judges again after
            // the next completion, over the longer window.
            false => Verdict::Keep,
        }
    }

    /// A window held at `now` (fio's `lat_target_success`); the next opens
    /// at once unless the loop must drain first.
    fn held(&mut self, now: u64) -> Verdict {
        let before = self.depth;
        self.low = self.depth;
        if self.depth + 1 == self.high {
            // One below a depth that failed holds: after three such windows
            // in a row, try that depth again.
            self.stable += 1;
            if self.stable >= 3 {
                self.high += 1;
                self.stable = 0;
            }
        }
        self.depth = match self.high != self.most {
            true => (self.depth + self.high) / 2,
            false => self.depth.saturating_mul(2),
        }
        .min(self.most);
        let verdict = if !self.target.keep_adjusting && self.depth == before {
            if self.final_run {
                return Verdict::Done;
            }
            self.final_run = true;
            Verdict::Restart
        } else {
            Verdict::Keep
        };
        self.start_cycle(now);
        verdict
    }

    /// Moves the depth down after a failure (fio's `__lat_target_failed`);
    /// false at depth 1, where it cannot.
    fn lower(&mut self) -> bool {
        if self.depth == 1 {
            return false;
        }
        self.high = self.depth;
        if self.depth == self.low {
            self.low -= 1;
        }
        self.depth = (self.depth + self.low) / 2;
        self.stable = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(percentile: f64) -> LatencyTarget {
        LatencyTarget {
            target_ns: 1_000,
            window_ns: 100,
            percentile,
            keep_adjusting: false,
        }
    }

    /// Runs windows in which an I/O at depth d takes `latency(d)`, 10 I/Os
    /// per window, and returns the depths walked and how it ended.
    fn walk(search: &mut DepthSearch, latency: impl Fn(u32) -> u64) -> (Vec<u32>, Verdict) {
        let mut now = 0;
        search.start_cycle(now);
        let mut depths = vec![search.depth()];
        for _ in 0..200 {
            let mut verdict = Verdict::Keep;
            for _ in 0..10 {
                verdict = search.completed(latency(search.depth()));
                if verdict != Verdict::Keep {
                    break;
                }
            }
            if verdict == Verdict::Keep {
                now += 100;
                verdict = search.window_check(now);
            }
            match verdict {
                Verdict::Keep => {}
                Verdict::Drain | Verdict::Restart => search.start_cycle(now),
                Verdict::Done | Verdict::Over(_) => return (depths, verdict),
            }
            depths.push(search.depth());
        }
        (depths, Verdict::Keep)
    }

    #[test]
    fn a_device_that_never_misses_walks_up_by_doubling_then_measures_once() {
        let mut search = DepthSearch::new(target(99.9), 16);
        let (depths, end) = walk(&mut search, |_| 10);
        // fio 3.33 on the null engine: depths 1, 2, 4, 8, 16, then the
        // final window at 16 (latency_depth 16).
        assert_eq!(depths, [1, 2, 4, 8, 16, 16]);
        assert_eq!(end, Verdict::Done);
    }

    #[test]
    fn a_miss_bisects_between_the_depths_that_held_and_failed_as_fio_does() {
        // Over the target beyond depth 5.
        let mut search = DepthSearch::new(target(90.0), 64);
        let (depths, end) = walk(&mut search, |d| if d > 5 { 5_000 } else { 10 });
        // 8 fails: high 8, low 4 -> 6; 6 fails: high 6 -> 5; 5 holds, one
        // below high: stable 1, (5+6)/2 = 5 unchanged -> final run; holds
        // again -> done.
        assert_eq!(depths, [1, 2, 4, 8, 6, 5, 5]);
        assert_eq!(end, Verdict::Done);
        assert_eq!(search.depth(), 5);
    }

    #[test]
    fn at_a_percentile_of_100_the_first_late_io_lowers_the_depth_and_at_depth_1_ends_the_job() {
        let mut search = DepthSearch::new(target(100.0), 8);
        search.start_cycle(0);
        assert_eq!(search.completed(10), Verdict::Keep);
        assert_eq!(search.completed(5_000), Verdict::Over(5_000));
        let (depths, end) = walk(&mut DepthSearch::new(target(100.0), 8), |d| {
            if d > 2 { 5_000 } else { 10 }
        });
        assert_eq!(depths, [1, 2, 4, 3, 2, 2]);
        assert_eq!(end, Verdict::Done);
    }

    #[test]
    fn a_window_that_fails_at_depth_1_stays_open_and_an_unarmed_search_judges_nothing() {
        let mut search = DepthSearch::new(target(50.0), 4);
        assert_eq!(search.completed(5_000), Verdict::Keep);
        assert_eq!(search.window_check(1_000_000), Verdict::Keep);
        search.start_cycle(0);
        assert_eq!(search.completed(5_000), Verdict::Keep);
        assert_eq!(search.window_check(100), Verdict::Keep);
        assert_eq!(search.depth(), 1);
        // Two more within: 2 of 3 within the target is over 50%.
        search.completed(10);
        search.completed(10);
        assert_eq!(search.window_check(150), Verdict::Keep);
        assert_eq!(search.depth(), 2);
    }

    #[test]
    fn keep_adjusting_never_measures_a_final_window() {
        let mut search = DepthSearch::new(
            LatencyTarget {
                keep_adjusting: true,
                ..target(99.0)
            },
            4,
        );
        let (depths, end) = walk(&mut search, |_| 10);
        assert_eq!(end, Verdict::Keep, "runs to the end of the job");
        assert!(depths.iter().skip(3).all(|&d| d == 4), "{depths:?}");
    }
}
