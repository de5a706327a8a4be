//! How faithful a replay was: each I/O's issue lag behind its intended time and its drift, the depth achieved against the trace's, reordering (RFC 4737), per-interval rates against the trace's, exact counts — and who fell behind.

use crate::plan::direction::Direction;
use crate::record::histogram::new_histogram;
pub use crate::record::replay::{Fidelity, Interval, KindCount, LagFigures, Verdict};
use crate::trace::{IoKind, TraceSummary};

/// The most intervals a replay keeps; a longer trace widens its interval
/// (so a 2-I/O trace a year long writes a record of at most about 1 MB).
pub const MOST_INTERVALS: u64 = 10_000;

/// About how many bytes the intervals of a replay of `duration_ns` at
/// `interval_ns` take in its record (each about 100 bytes of JSON), for
/// the room `-o` asks.
pub fn intervals_record_bytes(duration_ns: u64, interval_ns: u64) -> u64 {
    let interval_ns = interval_ns.max(duration_ns / MOST_INTERVALS + 1).max(1);
    (duration_ns / interval_ns + 1) * 100
}

/// What the replay loop tells the fidelity as it goes (cold enough: a few
/// adds per I/O, no allocation after the start).
pub struct Tally {
    lag: hdrhistogram::Histogram<u64>,
    latency: hdrhistogram::Histogram<u64>,
    /// The latency of the reads, writes and trims alone, each apart (a
    /// flush moves no data: fio keeps its syncs' latency apart too), in the
    /// layout of every job's histogram ([`new_histogram`]).
    data_latency: [hdrhistogram::Histogram<u64>; 3],
    /// What the live status line has not been told yet: the interval of
    /// the series it was last told about, and each data kind's I/Os and
    /// bytes completed since.
    live_at: u64,
    live_pending: [(u64, u64); 3],
    /// Least-squares sums of lag (µs) against the intended time (s).
    sums: [f64; 5],
    /// I/Os and bytes of each kind done.
    pub ios: [u64; 4],
    pub bytes: [u64; 4],
    /// Time-weighted in-flight area, I/O·ns, and the time at the cap, ns.
    area: u128,
    at_cap_ns: u64,
    in_flight: u64,
    last_change: u64,
    cap: u64,
    /// RFC 4737 Type-P-Reordered over the completion order: the next
    /// sequence number expected, and the count that arrived below it.
    next_expected: u64,
    reordered: u64,
    /// Per interval of the trace's time: the trace's I/Os and bytes, and
    /// the replay's by its actual issue time.
    interval_ns: u64,
    trace_intervals: Vec<(u64, u64)>,
    replay_intervals: Vec<(u64, u64)>,
    /// The reads, writes and trims completed per interval of the replay,
    /// by completion time: the time series `run` keeps of a trace point.
    pub series: CompletionSeries,
}

/// The most intervals a [`CompletionSeries`] keeps, as `run`'s recorder
/// keeps per job: a longer replay doubles its interval, merging neighbours.
pub const MOST_SERIES_INTERVALS: usize = 1024;

/// I/Os and bytes completed per interval, in memory fixed at the start.
#[derive(Clone, Debug)]
pub struct CompletionSeries {
    /// The interval, ns: the one asked, doubled as often as the replay's
    /// length needed.
    pub interval_ns: u64,
    /// Per interval: I/Os and bytes completed.
    pub intervals: Vec<(u64, u64)>,
    /// One past the last interval with a completion.
    used: usize,
}

impl CompletionSeries {
    fn new(interval_ns: u64) -> CompletionSeries {
        CompletionSeries {
            interval_ns: interval_ns.max(1),
            intervals: vec![(0, 0); MOST_SERIES_INTERVALS],
            used: 0,
        }
    }

    /// An I/O of `len` bytes completed at `now` (ns since the start).
    fn completed(&mut self, now: u64, len: u64) {
        let mut at = (now / self.interval_ns) as usize;
        while at >= MOST_SERIES_INTERVALS {
            for i in 0..MOST_SERIES_INTERVALS / 2 {
                let (a, b) = (self.intervals[2 * i], self.intervals[2 * i + 1]);
                self.intervals[i] = (a.0 + b.0, a.1 + b.1);
            }
            self.intervals[MOST_SERIES_INTERVALS / 2..].fill((0, 0));
            self.used = self.used.div_ceil(2);
            self.interval_ns *= 2;
            at = (now / self.interval_ns) as usize;
        }
        self.intervals[at].0 += 1;
        self.intervals[at].1 += len;
        self.used = self.used.max(at + 1);
    }

    /// The intervals up to the last with a completion.
    pub fn used(&self) -> &[(u64, u64)] {
        &self.intervals[..self.used]
    }
}

/// The direction a trace's I/O of `kind` moves data in; `None` for a flush.
pub fn data_direction(kind: IoKind) -> Option<Direction> {
    match kind {
        IoKind::Read => Some(Direction::Read),
        IoKind::Write => Some(Direction::Write),
        IoKind::Trim => Some(Direction::Trim),
        IoKind::Flush => None,
    }
}

impl Tally {
    /// A tally for a replay whose trace lasts `duration_ns` (in replay
    /// time), of at most `cap` I/Os in flight.
    pub fn new(duration_ns: u64, cap: u64, interval_ns: u64) -> Tally {
        let series_interval_ns = interval_ns;
        let interval_ns = interval_ns.max(duration_ns / MOST_INTERVALS + 1).max(1);
        let intervals = (duration_ns / interval_ns + 1) as usize;
        Tally {
            lag: hdrhistogram::Histogram::new_with_bounds(1, 1 << 45, 3)
                .expect("1 ns to 9.7 h, 3 digits"),
            latency: hdrhistogram::Histogram::new_with_bounds(1, 1 << 45, 3)
                .expect("1 ns to 9.7 h, 3 digits"),
            data_latency: [new_histogram(), new_histogram(), new_histogram()],
            live_at: 0,
            live_pending: [(0, 0); 3],
            sums: [0.0; 5],
            ios: [0; 4],
            bytes: [0; 4],
            area: 0,
            at_cap_ns: 0,
            in_flight: 0,
            last_change: 0,
            cap,
            next_expected: 0,
            reordered: 0,
            interval_ns,
            trace_intervals: vec![(0, 0); intervals],
            replay_intervals: vec![(0, 0); intervals],
            series: CompletionSeries::new(series_interval_ns),
        }
    }

    /// The in-flight count changes at `now` (ns since the replay's start).
    fn flight(&mut self, now: u64, delta: i64) {
        let span = now.saturating_sub(self.last_change);
        self.area += u128::from(span) * u128::from(self.in_flight);
        if self.in_flight >= self.cap {
            self.at_cap_ns += span;
        }
        self.last_change = now.max(self.last_change);
        self.in_flight = self.in_flight.saturating_add_signed(delta);
    }

    /// An I/O issued: due at `intended` and issued at `actual` (ns since
    /// the replay's start).
    pub fn issued(&mut self, intended: u64, actual: u64, len: u64) {
        let lag = actual.saturating_sub(intended);
        self.lag.saturating_record(lag);
        let (x, y) = (intended as f64 / 1e9, lag as f64 / 1e3);
        for (sum, value) in self.sums.iter_mut().zip([1.0, x, y, x * x, x * y]) {
            *sum += value;
        }
        let last = self.trace_intervals.len() - 1;
        let i = ((intended / self.interval_ns) as usize).min(last);
        self.trace_intervals[i].0 += 1;
        self.trace_intervals[i].1 += len;
        let j = ((actual / self.interval_ns) as usize).min(last);
        self.replay_intervals[j].0 += 1;
        self.replay_intervals[j].1 += len;
        self.flight(actual, 1);
    }

    /// The I/O of sequence number `sequence` (its place in the trace)
    /// completed at `now` after `latency` ns, having moved `len` bytes.
    pub fn completed(&mut self, sequence: u64, kind: IoKind, len: u64, now: u64, latency: u64) {
        self.latency.saturating_record(latency);
        if let Some(direction) = data_direction(kind) {
            self.data_latency[direction.index()].saturating_record(latency);
            self.series.completed(now, len);
            let at = now / self.series.interval_ns;
            if at != self.live_at {
                self.tell_live();
                self.live_at = at;
            }
            let pending = &mut self.live_pending[direction.index()];
            *pending = (pending.0 + 1, pending.1 + len);
        }
        self.ios[kind.index()] += 1;
        self.bytes[kind.index()] += len;
        if sequence >= self.next_expected {
            self.next_expected = sequence + 1;
        } else {
            self.reordered += 1;
        }
        self.flight(now, -1);
    }

    /// Tells the live status line what completed since it was last told.
    fn tell_live(&mut self) {
        for (direction, pending) in Direction::ALL.iter().zip(&mut self.live_pending) {
            if pending.0 > 0 {
                crate::run::io::live::interval_closed(*direction, pending.1, pending.0, 0);
            }
            *pending = (0, 0);
        }
    }

    /// Each completed read's, write's and trim's issue to completion, ns,
    /// by direction (read, write, trim), and their completions per interval.
    pub fn into_data(mut self) -> ([hdrhistogram::Histogram<u64>; 3], CompletionSeries) {
        self.tell_live();
        (self.data_latency, self.series)
    }

    /// The fidelity, with the trace's own figures.
    pub fn fidelity(
        &self,
        trace: &TraceSummary,
        speed: Option<f64>,
        recorded_depth: Option<f64>,
        elapsed_ns: u64,
    ) -> Fidelity {
        let done: u64 = self.ios.iter().sum();
        let [n, sx, sy, sxx, sxy] = self.sums;
        let intended_ns = speed.map(|s| (trace.duration_ns as f64 / s) as u64);
        // A slope per second over less than a second of intended time
        // would extrapolate a start-up's jitter (a 0.4 ms trace gave
        // -342,062 µs/s): withheld.
        let long_enough = intended_ns.is_some_and(|ns| ns >= MIN_DRIFT_SPAN_NS);
        let drift = if long_enough && n >= 2.0 && (n * sxx - sx * sx).abs() > f64::EPSILON {
            Some((n * sxy - sx * sy) / (n * sxx - sx * sx))
        } else {
            None
        };
        let counts = IoKind::ALL
            .iter()
            .map(|&kind| KindCount {
                kind: kind.name().to_string(),
                trace_ios: trace.ios[kind.index()],
                replay_ios: self.ios[kind.index()],
                trace_bytes: trace.bytes[kind.index()],
                replay_bytes: self.bytes[kind.index()],
            })
            .filter(|c| c.trace_ios > 0 || c.replay_ios > 0)
            .collect();
        let achieved_depth = (elapsed_ns > 0).then(|| self.area as f64 / elapsed_ns as f64);
        let intervals = self
            .trace_intervals
            .iter()
            .zip(&self.replay_intervals)
            .map(
                |(&(trace_ios, trace_bytes), &(replay_ios, replay_bytes))| Interval {
                    trace_ios,
                    trace_bytes,
                    replay_ios,
                    replay_bytes,
                },
            )
            .collect::<Vec<_>>();
        let worst_interval = intervals
            .iter()
            .enumerate()
            .filter(|(_, i)| i.trace_ios >= 10)
            .map(|(at, i)| {
                (
                    at,
                    (i.replay_ios as f64 - i.trace_ios as f64) / i.trace_ios as f64,
                )
            })
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()));
        let at_cap = if elapsed_ns > 0 {
            self.at_cap_ns as f64 / elapsed_ns as f64
        } else {
            0.0
        };
        let quantile = |q: f64| (!self.lag.is_empty()).then(|| self.lag.value_at_quantile(q));
        let lag = LagFigures {
            p50_ns: quantile(0.5),
            p99_ns: quantile(0.99),
            max_ns: (!self.lag.is_empty()).then(|| self.lag.max()),
            drift_us_per_s: drift,
        };
        let verdict = verdict(&lag, at_cap, intended_ns, elapsed_ns);
        Fidelity {
            ios: done,
            elapsed_ns,
            intended_ns,
            lag,
            latency_p50_ns: (!self.latency.is_empty()).then(|| self.latency.value_at_quantile(0.5)),
            latency_p99_ns: (!self.latency.is_empty())
                .then(|| self.latency.value_at_quantile(0.99)),
            recorded_depth,
            achieved_depth,
            depth_cap: self.cap,
            at_cap_fraction: at_cap,
            completions_reordered_pct: if done == 0 {
                0.0
            } else {
                100.0 * self.reordered as f64 / done as f64
            },
            counts,
            interval_ns: self.interval_ns,
            worst_interval: worst_interval.map(|(at, deviation)| (at as u64, deviation * 100.0)),
            intervals,
            verdict,
        }
    }
}

/// Who fell behind, from the lag and the time at the depth cap.
fn verdict(lag: &LagFigures, at_cap: f64, intended_ns: Option<u64>, elapsed_ns: u64) -> Verdict {
    let Some(intended) = intended_ns else {
        return Verdict {
            kept_up: true,
            behind: None,
            why: "as fast as possible: no times to keep, the order and the depth cap kept".into(),
        };
    };
    // Behind: the replay outlasted the trace by more than 1% (and 1 ms),
    // or one I/O in a hundred was issued over a millisecond late.
    let overrun = elapsed_ns as f64 - intended as f64;
    // Shorter than the trace: I/Os were issued before their times, which a
    // replay that keeps them cannot do; never "kept up".
    if -overrun > (intended as f64 * 0.01).max(1e6) {
        return Verdict {
            kept_up: false,
            behind: Some("replayer".into()),
            why: format!(
                "the replay ran ahead of the trace: it took {:.2}% less time than the trace's {:.3} s, so its I/Os were not issued at their times",
                -overrun / intended as f64 * 100.0,
                intended as f64 / 1e9
            ),
        };
    }
    let long = overrun > (intended as f64 * 0.01).max(1e6);
    let late = lag.p99_ns.is_some_and(|p99| p99 > 1_000_000);
    if !long && !late {
        // Said as it was met: a trace under 100 ms is held to 1 ms, not 1%.
        let duration = if overrun <= intended as f64 * 0.01 {
            "the duration within 1% of the trace's"
        } else {
            "the duration at most 1 ms over the trace's (1% of one this short is less)"
        };
        return Verdict {
            kept_up: true,
            behind: None,
            why: format!("kept up: {duration} and 99% of I/Os issued under 1 ms late"),
        };
    }
    if at_cap >= 0.5 {
        Verdict {
            kept_up: false,
            behind: Some("storage".into()),
            why: format!(
                "the storage fell behind: the depth cap was reached {:.0}% of the time while the lag grew; raise --depth if the trace's own depth allows, or the target is slower than the traced one",
                at_cap * 100.0
            ),
        }
    } else {
        Verdict {
            kept_up: false,
            behind: Some("replayer".into()),
            why: format!(
                "the replayer fell behind: the lag grew while fewer I/Os than the cap were in flight (at the cap {:.0}% of the time): the issuing thread, its wake-ups or the CPU were too slow",
                at_cap * 100.0
            ),
        }
    }
}

/// The least intended time a drift is computed over, ns: a second.
pub const MIN_DRIFT_SPAN_NS: u64 = 1_000_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reordering_counts_completions_below_the_next_expected() {
        let mut tally = Tally::new(1_000, 4, 1_000_000_000);
        for s in 0..4 {
            tally.issued(s * 10, s * 10, 4096);
        }
        // RFC 4737's example shape: 0, 2, 1, 3 — one reordered (1).
        for (at, s) in [0u64, 2, 1, 3].iter().enumerate() {
            tally.completed(*s, IoKind::Read, 4096, 100 + at as u64, 50);
        }
        let trace = TraceSummary {
            ios: [4, 0, 0, 0],
            bytes: [16384, 0, 0, 0],
            duration_ns: 30,
            ..TraceSummary::default()
        };
        let fidelity = tally.fidelity(&trace, Some(1.0), None, 103);
        assert_eq!(fidelity.completions_reordered_pct, 25.0);
        assert_eq!(fidelity.counts[0].replay_ios, 4);
        // Four in flight from 30 to 100 at a cap of 4.
        assert!(
            fidelity.at_cap_fraction > 0.6,
            "{}",
            fidelity.at_cap_fraction
        );
    }

    /// Completions fill the series by their time; past its last interval
    /// the interval doubles, neighbours merged, nothing lost.
    #[test]
    fn the_series_counts_every_completion_in_bounded_memory() {
        let mut series = CompletionSeries::new(1_000);
        series.completed(10, 4096);
        series.completed(2_500, 512);
        assert_eq!(series.used(), &[(1, 4096), (0, 0), (1, 512)]);
        series.completed(1_500_000, 8192);
        assert_eq!(series.interval_ns, 2_000);
        assert_eq!(series.intervals.len(), MOST_SERIES_INTERVALS);
        assert_eq!(series.used()[..2], [(1, 4096), (1, 512)]);
        assert_eq!(series.used().len(), 751);
        let total: u64 = series.used().iter().map(|(n, _)| n).sum();
        assert_eq!(total, 3);
    }

    #[test]
    fn a_growing_lag_is_drift_and_the_verdict_names_who_was_behind() {
        let mut tally = Tally::new(10_000_000_000, 8, 1_000_000_000);
        for i in 0..100u64 {
            let intended = i * 100_000_000;
            // 20 µs later each second: lag grows 20 µs/s ... up to 2 ms.
            let actual = intended + i * 2_000 * 10;
            tally.issued(intended, actual, 4096);
            tally.completed(i, IoKind::Write, 4096, actual + 1_000, 1_000);
        }
        let trace = TraceSummary {
            ios: [0, 100, 0, 0],
            bytes: [0, 409_600, 0, 0],
            duration_ns: 9_900_000_000,
            ..TraceSummary::default()
        };
        let fidelity = tally.fidelity(&trace, Some(1.0), None, 9_900_000_000 + 2_000_000);
        let drift = fidelity.lag.drift_us_per_s.unwrap();
        assert!((drift - 200.0).abs() < 1.0, "{drift}");
        assert!(!fidelity.verdict.kept_up);
        assert_eq!(fidelity.verdict.behind.as_deref(), Some("replayer"));
        // The same lags over a tenth of the time: no slope per second.
        let short = TraceSummary {
            duration_ns: 990_000_000,
            ..trace
        };
        let fidelity = tally.fidelity(&short, Some(1.0), None, 992_000_000);
        assert_eq!(fidelity.lag.drift_us_per_s, None);
    }

    /// A verdict says the bound that was met: 1% of the trace, or 1 ms
    /// over one under 100 ms (where 1% would be below the last I/O's own
    /// latency), never "within 1%" of a replay 14% longer.
    #[test]
    fn the_verdict_names_the_bound_it_met() {
        let lag = LagFigures {
            p50_ns: Some(400),
            p99_ns: Some(120_000),
            max_ns: Some(120_000),
            drift_us_per_s: None,
        };
        let short = verdict(&lag, 0.0, Some(6_000_000), 6_800_000);
        assert!(short.kept_up);
        assert!(short.why.contains("at most 1 ms over"), "{}", short.why);
        let ahead = verdict(&lag, 0.0, Some(6_000_000_000), 1_000);
        assert!(!ahead.kept_up, "{}", ahead.why);
        assert!(ahead.why.contains("ran ahead"), "{}", ahead.why);
        let long = verdict(&lag, 0.0, Some(6_000_000_000), 6_050_000_000);
        assert!(
            long.why.contains("within 1% of the trace's"),
            "{}",
            long.why
        );
    }
}
