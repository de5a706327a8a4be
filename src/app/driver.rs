//! The one per-point driver of `run`, `quick`, `sweep`, `study` and `preset`: measures the planned points in order, records each, and tells its listeners (announcements, progress bar, journal, result writer, and the presenter that shows the result at the end).

use super::distributed::Ranks;
use super::error::{AppError, Ending};
use super::guest::GuestSide;
pub(crate) use super::listener::Listener;
use super::session::{keep_point, record_point};
use crate::plan::Machine;
use crate::plan::{PlannedPoint, RunPlan};
use crate::record::write::Replace;
use crate::record::{Point, ResultFile, Severity, Status};
use crate::run::signals::Interrupt;
use crate::run::{RunError, Session};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Hands the final `result` to every listener in order ([`Listener::finished`]):
/// the writer writes it, then the presenter shows it.
pub(crate) fn finish(
    listeners: &mut [&mut dyn Listener],
    result: &ResultFile,
) -> Result<(), AppError> {
    for listener in listeners.iter_mut() {
        listener.finished(result)?;
    }
    Ok(())
}

/// What the points came to.
pub(crate) struct Driven {
    /// How the run ends so far: failed, interrupted or a success.
    pub ending: Ending,
    /// Points measured to the end, without failure, this time.
    pub finished: usize,
    /// Points not run because the search they serve had its answer (a knee
    /// search past its knee), in plan order.
    pub not_run: Vec<usize>,
}

/// A rule that ends a grid before its last point, asked on rank 0 (which
/// holds the result) before each point: true when the points measured so
/// far make the rest needless.
pub(crate) type Enough<'a> = &'a dyn Fn(&ResultFile) -> bool;

/// What a plan's points are measured with, besides the session: which
/// points are done already and when the rest is needless ([`drive`]), and
/// how they are shown where no live status line is drawn.
pub(crate) struct Measuring<'a> {
    pub done: &'a HashSet<usize>,
    pub enough: Option<Enough<'a>>,
    /// Bad input at the first point is returned as such (nothing kept yet).
    pub refuse_at_first: bool,
    /// A grid's progress bar; without one each point is named as it starts.
    pub bar: Option<&'a mut Progress>,
}

/// The one set-up of `run`, `quick`, `sweep`, `study` and `preset` around
/// [`drive`]: the plan's leftover temporary results removed, the live
/// status line (or, without it, the bar or the announcements), the
/// caller's `listeners` after them, and the plan's guests started.
pub(crate) fn measure(
    plan: &RunPlan,
    measuring: Measuring<'_>,
    (session, interrupt, ranks): (&mut Session, &Interrupt, &Ranks),
    result: &mut ResultFile,
    listeners: &mut [&mut dyn Listener],
) -> Result<Driven, AppError> {
    let speaks = ranks.speaks();
    if let (true, Some(output)) = (speaks, &plan.output) {
        super::output::remove_dead_temporaries(output);
    }
    let Measuring {
        done,
        enough,
        refuse_at_first,
        bar,
    } = measuring;
    let mut status = speaks
        .then(|| {
            super::status::Status::start(
                plan.progress,
                plan.json,
                &plan.points,
                bar.as_deref().map(|b| &b.0),
            )
        })
        .flatten();
    let mut announcer = Announcer;
    // Without the live line or a bar, each point is named as it starts.
    let announced =
        status.is_none() && bar.is_none() && speaks && !plan.json && plan.points.len() > 1;
    // The status line stops drawing before the bar it writes on is cleared.
    let mut all: Vec<&mut dyn Listener> = Vec::new();
    if let Some(status) = status.as_mut() {
        all.push(status);
    }
    if let Some(bar) = bar {
        all.push(bar);
    }
    if announced {
        all.push(&mut announcer);
    }
    for listener in listeners.iter_mut() {
        all.push(&mut **listener);
    }
    let mut guests = GuestSide::start(session, &plan.guests, &plan.points, ranks, interrupt)?;
    drive(
        (&plan.points, done, enough),
        refuse_at_first,
        (session, guests.as_mut(), interrupt, ranks),
        result,
        &mut all,
    )
}

/// Measures `points` (but those in `done`) into `result` with `session`,
/// telling `listeners`. Bad input found at the first point measured is
/// returned as such when `refuse_at_first` (nothing kept yet); every rank
/// stops at the same point on an interruption, and where `enough` says
/// the rest is needless (rank 0 decides; the others follow).
fn drive(
    (points, done, enough): (&[PlannedPoint], &HashSet<usize>, Option<Enough<'_>>),
    refuse_at_first: bool,
    (session, mut guests, interrupt, ranks): (
        &mut Session,
        Option<&mut GuestSide>,
        &Interrupt,
        &Ranks,
    ),
    result: &mut ResultFile,
    listeners: &mut [&mut dyn Listener],
) -> Result<Driven, AppError> {
    let speaks = ranks.speaks();
    let mut ending = Ending::Success;
    let mut finished = 0;
    let mut measured = 0;
    let mut not_run = Vec::new();
    // Each point's wall time in the session (its rounds summed): what its
    // repetitions cost beyond their timed I/O, for the next estimate.
    let mut walls: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    for (index, planned) in points.iter().enumerate() {
        if done.contains(&index) {
            continue;
        }
        if let Some(enough) = enough {
            // Asked before each point, so a resumed grid stops where the
            // points it already holds say so.
            if ranks.any(speaks && enough(result)) {
                not_run = (index..points.len())
                    .filter(|i| !done.contains(i))
                    .collect();
                break;
            }
        }
        for listener in listeners.iter_mut() {
            listener.starting(index, planned);
        }
        if planned.workload().machine == Machine::Guest {
            let Some(side) = guests.as_deref_mut() else {
                return Err(anyhow::anyhow!("a guest point without a guest").into());
            };
            let refuse = refuse_at_first && measured == 0;
            let Some(point) = taken(side.measure(planned, interrupt), refuse, listeners)? else {
                ending = Ending::Interrupted(interrupt.signal().unwrap_or(2));
                break;
            };
            measured += 1;
            let point = in_round(point, planned.round);
            let complete = point.repetitions.iter().all(|r| r.status == Status::Ok);
            if !complete {
                ending = Ending::Failed;
            }
            finished += usize::from(complete);
            side.record(result);
            let mut point = point;
            if let Some(guest) = result.guest_of(&point.workload) {
                crate::check::guest::checks(&mut point, guest);
            }
            if speaks {
                let environment = result
                    .guest_of(&point.workload)
                    .and_then(|g| g.environment.clone());
                keep(
                    index,
                    point,
                    complete,
                    environment.as_deref(),
                    result,
                    listeners,
                )?;
            }
            if let Some(signal) = ranks.interrupted(interrupt) {
                ending = Ending::Interrupted(signal);
                break;
            }
            continue;
        }
        // A point that names its own file works on it (a job file's phase).
        let measured_point = match &planned.file {
            Some(file) => session.use_shelved(file).map_err(RunError::from),
            None => Ok(()),
        }
        .and_then(|()| {
            let started = std::time::Instant::now();
            let outcome = session.run_point(&planned.label, &planned.groups);
            *walls.entry(planned.label.as_str()).or_default() += started.elapsed().as_secs_f64();
            outcome
        });
        let outcome = match measured_point {
            Ok(outcome) => outcome,
            Err(RunError::Interrupted(signal)) => {
                ending = Ending::Interrupted(signal);
                break;
            }
            Err(RunError::Usage(error)) if refuse_at_first && measured == 0 => {
                for listener in listeners.iter_mut() {
                    listener.stopped();
                }
                return Err(error.into());
            }
            Err(error) => {
                if speaks {
                    quietly(listeners, || {
                        crate::say!("iolab: {}: {error}", planned.label)
                    });
                }
                ending = Ending::Failed;
                break;
            }
        };
        measured += 1;
        let complete = !outcome.failed() && !outcome.interrupted();
        if outcome.failed() {
            ending = Ending::Failed;
        }
        finished += usize::from(complete);
        if speaks {
            let environment = &result.environment;
            let point = quietly(listeners, || record_point(&outcome, Some(environment)))?;
            if point.checks.iter().any(|c| c.severity == Severity::Error) {
                ending = Ending::Failed;
            }
            let point = in_round(point, planned.round);
            let environment = result.environment.clone();
            keep(
                index,
                point,
                complete,
                Some(&environment),
                result,
                listeners,
            )?;
        }
        if let Some(signal) = ranks.interrupted(interrupt) {
            ending = Ending::Interrupted(signal);
            break;
        }
    }
    for listener in listeners.iter_mut() {
        listener.stopped();
    }
    if let (true, Some(dir)) = (speaks, session.local_scratch()) {
        super::speeds::learn(dir, points, result, &walls);
    }
    if speaks {
        super::speeds::learn_guests(result);
    }
    if let Some(signal) = interrupt.signal() {
        ending = Ending::Interrupted(signal);
    }
    Ok(Driven {
        ending,
        finished,
        not_run,
    })
}

/// A point measured outside the session (a guest's, a trace's): the
/// point, or `None` when a signal stopped it first. Bad input found at the
/// first point measured (`refuse`) stops the listeners and is returned as
/// such.
fn taken(
    measured: Result<Option<Point>, AppError>,
    refuse: bool,
    listeners: &mut [&mut dyn Listener],
) -> Result<Option<Point>, AppError> {
    match measured {
        Err(AppError::Usage(error)) if refuse => {
            for listener in listeners.iter_mut() {
                listener.stopped();
            }
            Err(error.into())
        }
        other => other,
    }
}

/// `point` with its repetitions tagged with the plan's `round`.
fn in_round(mut point: Point, round: Option<u32>) -> Point {
    let groups = point
        .groups
        .iter_mut()
        .flat_map(|g| g.repetitions.iter_mut());
    for repetition in point.repetitions.iter_mut().chain(groups) {
        repetition.round = round;
    }
    point
}

/// Tells the listeners of `point` and keeps it in `result` (joined to the
/// same point's earlier rounds), then checks across points.
fn keep(
    index: usize,
    point: Point,
    complete: bool,
    environment: Option<&crate::record::environment::Environment>,
    result: &mut ResultFile,
    listeners: &mut [&mut dyn Listener],
) -> Result<(), AppError> {
    for listener in listeners.iter_mut() {
        listener.recorded(index, &point, complete)?;
    }
    keep_point(&mut result.points, point, environment)?;
    crate::check::across(&mut result.points);
    for listener in listeners.iter_mut() {
        listener.kept(result)?;
    }
    Ok(())
}

/// Runs `show` inside every listener's [`Listener::around`].
fn quietly<R>(listeners: &mut [&mut dyn Listener], show: impl FnOnce() -> R) -> R {
    let mut show = Some(show);
    let mut shown = None;
    nest(listeners, &mut || {
        if let Some(show) = show.take() {
            shown = Some(show());
        }
    });
    // A listener that did not run `show` breaks its contract; run it here.
    match (shown, show) {
        (Some(value), _) => value,
        (None, Some(show)) => show(),
        (None, None) => unreachable!("show ran but left no value"),
    }
}

fn nest(listeners: &mut [&mut dyn Listener], show: &mut dyn FnMut()) {
    match listeners.split_first_mut() {
        None => show(),
        Some((first, rest)) => first.around(&mut || nest(rest, show)),
    }
}

/// Announces each point on stderr before it is measured (`run` and
/// `quick` with several points, when the result is not JSON).
pub(crate) struct Announcer;

impl Listener for Announcer {
    fn starting(&mut self, _index: usize, planned: &PlannedPoint) {
        // A point of groups: every group's workload, not only the first's.
        let described = match planned.grouped() {
            true => crate::plan::group::describe_groups(&planned.groups),
            false => planned.workload().describe(),
        };
        crate::note!("iolab: measuring {} ({described})", planned.label);
    }
}

/// The progress bar of a grid: points done of all, the point under way.
pub(crate) struct Progress(pub indicatif::ProgressBar);

impl Listener for Progress {
    fn starting(&mut self, index: usize, planned: &PlannedPoint) {
        // The status line, when drawn, replaces this with its figures.
        let points = self.0.length().unwrap_or(0);
        self.0
            .set_message(format!("[{}/{points}] {}", index + 1, planned.label));
    }
    fn around(&self, show: &mut dyn FnMut()) {
        self.0.suspend(show)
    }
    fn kept(&mut self, _result: &ResultFile) -> Result<(), AppError> {
        self.0.inc(1);
        Ok(())
    }
    fn stopped(&mut self) {
        self.0.finish_and_clear();
    }
}

/// Rewrites the result file as points are kept: after every point
/// (`every` zero) or at most once per `every`, so that a long grid stays
/// linear; the caller writes the final one.
pub(crate) struct ResultWriter {
    pub path: PathBuf,
    /// Whether the file there is this run's own (from an earlier write or a resumed grid).
    pub replace: Replace,
    /// The least time between two rewrites.
    pub every: Duration,
    last: Option<Instant>,
}

impl ResultWriter {
    /// A writer of `path`, which replaces it only when `replace` says so.
    pub(crate) fn new(path: PathBuf, replace: Replace, every: Duration) -> ResultWriter {
        ResultWriter {
            path,
            replace,
            every,
            last: None,
        }
    }

    /// Writes `result` now.
    pub(crate) fn write(&mut self, result: &ResultFile) -> Result<(), AppError> {
        // `iolab-results/` is made with the first result it keeps, so a
        // run refused before measuring leaves nothing.
        super::output::create_results_dir(&self.path)?;
        super::output::write_result(&self.path, result, self.replace)?;
        // From now on the file there is this run's own.
        self.replace = Replace::Own;
        self.last = Some(Instant::now());
        Ok(())
    }
}

impl Listener for ResultWriter {
    fn kept(&mut self, result: &ResultFile) -> Result<(), AppError> {
        match self.last {
            Some(last) if last.elapsed() < self.every => Ok(()),
            _ => self.write(result),
        }
    }
    fn finished(&mut self, result: &ResultFile) -> Result<(), AppError> {
        self.write(result)
    }
}

/// Shows the final result: iolab's table (with the study's own after it)
/// or JSON on stdout, then `after_table` (a grid's convergence), then the
/// HTML report beside the result file when asked.
pub(crate) struct Presenter {
    /// JSON instead of the table.
    pub json: bool,
    /// The table with `--detail`'s figures.
    pub detail: bool,
    /// Where the result file is, named after the table.
    pub output: Option<PathBuf>,
    /// Write `<output>.html` too.
    pub report: bool,
    /// Text shown after the table (not with JSON).
    pub after_table: Option<String>,
}

impl Listener for Presenter {
    fn finished(&mut self, result: &ResultFile) -> Result<(), AppError> {
        let output = self.output.as_deref();
        super::output::present(result, self.json, self.detail, output)?;
        if let (Some(text), false) = (&self.after_table, self.json) {
            super::output::show_result(text, result, output)?;
        }
        if let (true, Some(output)) = (self.report, output) {
            super::output::report_beside(output, result)?;
        }
        Ok(())
    }
}
