//! The live status line on a terminal while points are measured, figures first so that a narrow terminal cuts the label rather than them: point k of n and the share done, the last interval's MiB/s, IOPS and p99 per direction, the whole run's ETA, the phase and repetition, then the label; read from `run::live` once a second.
//!
//! fio's `Jobs: 1 (f=1): [r(1)][45.0%][r=270MiB/s][r=69.1k IOPS][eta 00m:33s]`
//! is the model. The line is drawn by indicatif on stderr (a grid's
//! progress bar carries it as its message); `--progress never` draws
//! nothing, `auto` (the default) only on a terminal and not with `--json`,
//! `always` also in a pipe, as one plain line per second. The figures come
//! from the jobs' closed intervals (`run::live`), so the line costs the I/O
//! loop nothing and lags by at most one `--interval`.

use super::error::AppError;
use super::listener::Listener;
use crate::cli::ProgressMode;
use crate::plan::PlannedPoint;
use crate::plan::direction::Direction;
use crate::record::ResultFile;
use crate::report::units::{count, latency, mib_per_s, significant};
use crate::run::io::live::{self, Phase, Reading};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the line is redrawn.
const TICK: Duration = Duration::from_secs(1);

/// The point under way, as the listener last heard of it.
#[derive(Clone, Debug, Default)]
struct Under {
    label: String,
    /// Point k of n, from 1.
    number: usize,
    points: usize,
    /// Measured and warm-up repetitions the point asks for (the fewest with --until-ci).
    repetitions: u64,
    /// Ramp plus runtime of one repetition, when it is time-based.
    repetition_time: Option<Duration>,
    /// Bytes its layout writes (size × jobs).
    layout_bytes: u64,
    /// The board's laid-out count when the point started.
    laid_out_before: u64,
    /// Counts the points started: the drawing thread takes a new baseline
    /// when it changes, so no point's figures carry another's I/Os.
    generation: u64,
    /// The time-based points after this one, together, and how many later
    /// points' time is unknown (one pass: it ends when its bytes do).
    later: (Duration, usize),
    /// The mean time of the one-pass points finished so far: the estimate
    /// of each one-pass point still to come.
    pass_estimate: Option<Duration>,
}

/// State shared with the drawing thread.
struct Shared {
    under: Mutex<Under>,
    stop: AtomicBool,
}

/// Where the line goes.
#[derive(Clone)]
enum Target {
    /// An indicatif bar on stderr: the grid's, or a spinner of its own.
    Bar(indicatif::ProgressBar),
    /// A plain line per tick (`--progress always` without a terminal).
    Lines,
}

/// The status line's listener: tells the drawing thread which point is
/// under way, and stops it when the points are over.
pub(crate) struct Status {
    shared: Arc<Shared>,
    target: Target,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Each point's timed work (ramps and runtimes of all its
    /// repetitions), when it is time-based.
    times: Vec<Option<Duration>>,
    /// The point under way and when it started.
    current: Option<(usize, Instant)>,
    /// How long each finished one-pass point took.
    passes: Vec<Duration>,
}

/// A point's timed work: its repetitions' ramps and runtimes, when it is
/// time-based (`None`: a pass ends when its bytes do).
fn timed_work(point: &PlannedPoint) -> Option<Duration> {
    let workload = point.workload();
    let each = Duration::from_secs_f64(workload.runtime_s? + workload.ramp_s);
    Some(each.saturating_mul(workload.repeat + workload.warmup))
}

impl Status {
    /// A status line for `points` points, drawn as `mode` and `json` say
    /// (`None`: nothing is drawn). `bar` is a grid's progress bar, which then
    /// carries the line as its message.
    pub(crate) fn start(
        mode: ProgressMode,
        json: bool,
        points: &[PlannedPoint],
        bar: Option<&indicatif::ProgressBar>,
    ) -> Option<Status> {
        let terminal = std::io::stderr().is_terminal();
        let target = match mode {
            ProgressMode::Never => return None,
            ProgressMode::Auto if json || !terminal => return None,
            ProgressMode::Always if !terminal => Target::Lines,
            _ => Target::Bar(bar.cloned().unwrap_or_else(spinner)),
        };
        let shared = Arc::new(Shared {
            under: Mutex::new(Under::default()),
            stop: AtomicBool::new(false),
        });
        let thread = {
            let (shared, target) = (shared.clone(), target.clone());
            std::thread::Builder::new()
                .name("iolab-status".into())
                .spawn(move || draw_until_stopped(&shared, &target))
                .ok()?
        };
        Some(Status {
            shared,
            target,
            thread: Some(thread),
            times: points.iter().map(timed_work).collect(),
            current: None,
            passes: Vec::new(),
        })
    }

    fn finish(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
        if let Target::Bar(bar) = &self.target {
            if bar.length().is_none() {
                bar.finish_and_clear();
            }
        }
    }
}

/// A bar of its own for `run` and `quick`: elapsed time and the line.
fn spinner() -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} {wide_msg}")
            .expect("a valid template"),
    );
    bar
}

impl Listener for Status {
    fn starting(&mut self, index: usize, planned: &PlannedPoint) {
        let workload = planned.workload();
        let mut under = self.shared.under.lock().unwrap_or_else(|e| e.into_inner());
        let generation = under.generation + 1;
        let later = self.times.get(index + 1..).unwrap_or_default();
        if let Some((previous, started)) = self.current.replace((index, Instant::now())) {
            if self.times.get(previous).is_some_and(Option::is_none) {
                self.passes.push(started.elapsed());
            }
        }
        let passes = self.passes.len() as u32;
        *under = Under {
            generation,
            later: (
                later.iter().flatten().sum(),
                later.iter().filter(|time| time.is_none()).count(),
            ),
            pass_estimate: (passes > 0).then(|| self.passes.iter().sum::<Duration>() / passes),
            label: planned.label.clone(),
            number: index + 1,
            points: self.times.len(),
            repetitions: u64::from(workload.repeat + workload.warmup),
            repetition_time: workload
                .runtime_s
                .map(|runtime| Duration::from_secs_f64(runtime + workload.ramp_s)),
            layout_bytes: workload.size.saturating_mul(u64::from(workload.jobs)),
            laid_out_before: live::read().laid_out,
        };
        live::set_phase(Phase::Idle);
    }

    fn around(&self, show: &mut dyn FnMut()) {
        // A grid's bar is hidden by its own listener (`driver::Progress`);
        // suspending it again from inside would wait on its lock forever.
        match &self.target {
            Target::Bar(bar) if bar.length().is_none() => bar.suspend(show),
            _ => show(),
        }
    }

    fn stopped(&mut self) {
        self.finish();
    }

    fn finished(&mut self, _result: &ResultFile) -> Result<(), AppError> {
        self.finish();
        Ok(())
    }
}

impl Drop for Status {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Redraws the line every [`TICK`] until told to stop.
fn draw_until_stopped(shared: &Shared, target: &Target) {
    let mut before = (live::read(), Instant::now());
    let mut generation = 0;
    // Time the point spent in its ramps and timed regions: what its ETA
    // counts down, leaving out layouts and cache preparation.
    let mut timed = Duration::ZERO;
    // The point's start, and the phase shown with when it began.
    let mut point_started = Instant::now();
    let mut phase_since = (None, Instant::now());
    while !shared.stop.load(Ordering::Relaxed) {
        std::thread::park_timeout(TICK);
        if shared.stop.load(Ordering::Relaxed) {
            break;
        }
        let now = (live::read(), Instant::now());
        let under = shared
            .under
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        // A new point: what completed since the last tick may be the last
        // one's, so this tick shows no figures and starts the count.
        let baseline = if under.generation == generation {
            &before.0
        } else {
            generation = under.generation;
            timed = Duration::ZERO;
            point_started = now.1;
            // The same phase again (two guest points in a row) starts anew.
            phase_since = (now.0.phase, now.1);
            &now.0
        };
        if now.0.phase != phase_since.0 {
            phase_since = (now.0.phase, now.1);
        }
        if matches!(now.0.phase, Some(Phase::Ramp | Phase::Measuring)) {
            timed += now.1 - before.1;
        }
        let phase = now.1 - phase_since.1;
        let booting = match now.0.phase {
            Some(Phase::BootingTcg) => Some(crate::plan::guest::Accelerator::Tcg),
            Some(Phase::BootingKvm) => Some(crate::plan::guest::Accelerator::Kvm),
            _ => None,
        };
        let times = Times {
            elapsed: now.1 - before.1,
            timed,
            point: now.1 - point_started,
            phase,
            boot_left: booting
                .and_then(crate::guest::last_boot_seconds)
                .map(|seconds| Duration::from_secs_f64(seconds.max(0.0)).saturating_sub(phase)),
        };
        let line = status_line(&under, baseline, &now.0, times);
        before = now;
        match target {
            Target::Bar(bar) => bar.set_message(line),
            Target::Lines => crate::say!("iolab: {line}"),
        }
    }
}

/// The times a line is drawn with.
#[derive(Clone, Copy, Debug)]
struct Times {
    /// Since the last reading.
    elapsed: Duration,
    /// The point's time in ramps and timed regions so far.
    timed: Duration,
    /// Since the point started.
    point: Duration,
    /// Since the phase shown began.
    phase: Duration,
    /// While a guest boots: what is left of a boot as long as the last
    /// ones here took (the timed time stands still meanwhile).
    boot_left: Option<Duration>,
}

/// The line: `[2/8 12%] · read 270 MiB/s 270 IOPS p99 1.23 ms · ETA 0:33
/// · measuring, repetition 1 of 3 · SEQ1M Q8 read` — figures first, the
/// label last, where a narrow terminal cuts it (indicatif truncates the
/// message to the terminal's width). The ETA is the whole run's: this
/// point's timed work left and the time-based points after it; `~` when a
/// one-pass point's time is estimated from those finished, `≥` when one's
/// is unknown. A phase without figures (a boot, a point in the guest, a
/// layout) says how long it has lasted.
fn status_line(under: &Under, before: &Reading, now: &Reading, times: Times) -> String {
    let mut parts = Vec::new();
    let mut figures = Vec::new();
    let phase = now.phase.unwrap_or(Phase::Idle);
    let mut doing = phase.name().to_string();
    if phase == Phase::LayingOut && under.layout_bytes > 0 {
        let done = now.laid_out.saturating_sub(under.laid_out_before);
        doing.push_str(&format!(
            " {:.0}% of {}",
            (done as f64 / under.layout_bytes as f64 * 100.0).min(100.0),
            crate::plan::units::human_size(under.layout_bytes)
        ));
    }
    if !matches!(phase, Phase::Ramp | Phase::Measuring) && times.phase >= Duration::from_secs(1) {
        doing.push_str(&format!(" {} s", times.phase.as_secs()));
    }
    if under.repetitions > 1 && now.repetition > 0 {
        doing.push_str(&format!(
            ", repetition {} of {}",
            now.repetition, under.repetitions
        ));
    }
    let seconds = times.elapsed.as_secs_f64().max(1e-3);
    for direction in Direction::ALL {
        let d = direction.index();
        let ops = now.ops[d].saturating_sub(before.ops[d]);
        if ops == 0 || !matches!(phase, Phase::Measuring | Phase::Checking) {
            continue;
        }
        let bps = now.bytes[d].saturating_sub(before.bytes[d]) as f64 / seconds;
        let mut these = format!(
            "{} {} MiB/s {} IOPS",
            direction.name(),
            significant(mib_per_s(bps)),
            count(ops as f64 / seconds)
        );
        if now.p99_ns[d] > 0 {
            these.push_str(&format!(" p99 {}", latency(now.p99_ns[d] as f64)));
        }
        figures.push(these);
    }
    if under.points > 1 {
        let done = (under.number - 1) as f64 / under.points as f64 * 100.0;
        parts.push(format!("[{}/{} {done:.0}%]", under.number, under.points));
    }
    parts.extend(figures);
    if let Some(eta) = eta(under, times) {
        parts.push(eta);
    }
    parts.push(doing);
    // Before the first point (a guest booting for it) there is no label yet.
    if !under.label.is_empty() {
        parts.push(under.label.clone());
    }
    parts.join(" · ")
}

/// `ETA m:ss` for the whole run, `~` when estimated from the one-pass
/// points finished, `≥` when a one-pass point's time is not known yet;
/// `None` when nothing is known.
fn eta(under: &Under, times: Times) -> Option<String> {
    let (later_timed, later_passes) = under.later;
    let mut left = later_timed;
    let mut bound = "";
    match under.repetition_time {
        Some(each) => {
            left += each
                .saturating_mul(under.repetitions.max(1) as u32)
                .saturating_sub(times.timed);
        }
        None => match under.pass_estimate {
            Some(estimate) => {
                left += estimate.saturating_sub(times.point);
                bound = "~";
            }
            None => bound = "≥",
        },
    }
    if later_passes > 0 {
        match under.pass_estimate {
            Some(estimate) => {
                left += estimate.saturating_mul(later_passes as u32);
                bound = if bound == "≥" { "≥" } else { "~" };
            }
            None => bound = "≥",
        }
    }
    left += times.boot_left.unwrap_or_default();
    if bound == "≥" && left.is_zero() {
        return None;
    }
    Some(format!(
        "ETA {bound}{}:{:02}",
        left.as_secs() / 60,
        left.as_secs() % 60
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_shows_the_phase_and_each_directions_figures_from_the_board() {
        let under = Under {
            label: "RND4K Q32 read".into(),
            number: 2,
            points: 8,
            repetitions: 3,
            repetition_time: Some(Duration::from_secs(10)),
            layout_bytes: 1 << 30,
            laid_out_before: 0,
            generation: 1,
            // Two time-based points after this one, 40 s in all.
            later: (Duration::from_secs(40), 0),
            pass_estimate: None,
        };
        let before = Reading::default();
        let mut now = Reading {
            phase: Some(Phase::Measuring),
            repetition: 2,
            ..Reading::default()
        };
        now.bytes[Direction::Read.index()] = 270 << 20;
        now.ops[Direction::Read.index()] = 69_100;
        now.p99_ns[Direction::Read.index()] = 1_230_000;
        let line = status_line(&under, &before, &now, times(12));
        assert!(
            line == "[2/8 12%] · read 270 MiB/s 69.1k IOPS p99 1.23 ms · ETA 0:58 · measuring, repetition 2 of 3 · RND4K Q32 read",
            "30 s of timed work, 12 s done, 40 s after it; figures first: {line}"
        );
        assert!(
            !line.contains("write"),
            "a direction that moved nothing is left out: {line}"
        );
        now.phase = Some(Phase::LayingOut);
        now.laid_out = 1 << 29;
        let line = status_line(&under, &before, &now, times(12));
        assert!(
            line.contains("laying out 50% of 1.00 GiB") && !line.contains("MiB/s"),
            "{line}"
        );
        // A later point of one pass: its time is unknown, the ETA a bound.
        let under = Under {
            later: (Duration::from_secs(40), 1),
            ..under
        };
        let line = status_line(&under, &before, &now, times(12));
        assert!(line.contains("ETA ≥0:58"), "{line}");
        // Once a one-pass point has finished, the others are estimated by it.
        let under = Under {
            pass_estimate: Some(Duration::from_secs(10)),
            ..under
        };
        let line = status_line(&under, &before, &now, times(12));
        assert!(line.contains("ETA ~1:08"), "{line}");
    }

    /// The times of a tick 1 s after the last, `timed` seconds into the point's timed work.
    fn times(timed: u64) -> Times {
        Times {
            elapsed: Duration::from_secs(1),
            timed: Duration::from_secs(timed),
            point: Duration::from_secs(timed),
            phase: Duration::from_secs(3),
            boot_left: None,
        }
    }

    /// A time-based point's ETA counts down while its guest boots: the
    /// boot's time left, as the last boots here took, is in it.
    #[test]
    fn a_booting_guest_counts_down_in_the_eta() {
        let under = Under {
            repetitions: 1,
            repetition_time: Some(Duration::from_secs(30)),
            ..Under::default()
        };
        let mut at = times(0);
        assert_eq!(eta(&under, at).as_deref(), Some("ETA 0:30"));
        at.boot_left = Some(Duration::from_secs(12));
        assert_eq!(eta(&under, at).as_deref(), Some("ETA 0:42"));
    }

    #[test]
    fn a_guest_phase_says_how_long_it_has_lasted_and_a_one_pass_point_is_estimated() {
        let under = Under {
            label: "write seq 4KiB psync direct machine=guest".into(),
            number: 2,
            points: 16,
            repetitions: 1,
            later: (Duration::ZERO, 14),
            pass_estimate: Some(Duration::from_secs(20)),
            ..Under::default()
        };
        let now = Reading {
            phase: Some(Phase::BootingTcg),
            ..Reading::default()
        };
        let mut at = times(0);
        at.point = Duration::from_secs(6);
        at.phase = Duration::from_secs(6);
        let line = status_line(&under, &Reading::default(), &now, at);
        assert_eq!(
            line,
            "[2/16 6%] · ETA ~4:54 · booting guest (tcg) 6 s · write seq 4KiB psync direct machine=guest",
            "14 s left of this point, 14 more of 20 s each"
        );
    }
}
