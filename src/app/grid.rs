//! Sweeps and studies: plan a grid, show it (`--dry-run`), run it point by point with a progress bar and a journal, resume it, and find where a size axis converges.

use super::distributed::Ranks;
use super::driver;
use super::error::{AppError, Ending, strict_ending};
use super::network::{network_target, open_network_session};
use super::output::{
    check_output, check_report_beside, create_results_dir, default_output, expected_result_bytes,
};
use super::session::{keep_point, note_single_repetition, open_session};
use crate::cli::{StudyArgs, SweepArgs};
use crate::gather::build;
use crate::plan::knee::KneeTarget;
use crate::plan::study::{Study, StudyTable};
use crate::plan::{PlannedPoint, UsageError};
use crate::record::journal::{self, Entry, Header, JOURNAL, Journal};
use crate::record::write::Replace;
use crate::record::{KneeRecord, PlanInfo, ResultFile, write};
use crate::run::signals::Interrupt;
use crate::usage;
use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod dry_run;
mod ends;

use dry_run::dry_run;
use ends::{convergence, knee, knee_search_stop, render_convergence, render_knee};

/// How often the result file is rewritten while a grid runs (the journal
/// keeps every point in between).
const REWRITE_EVERY: Duration = Duration::from_secs(1);
/// Convergence: a size is stable within ±5% of the largest sizes' mean…
const CONVERGENCE_TOLERANCE: f64 = 0.05;
/// …with a coefficient of variation of at most 5%.
const CONVERGENCE_MAX_CV: f64 = 0.05;

/// Whether an existing journal or result may be continued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resume {
    /// Refuse an existing output (a sweep without --resume).
    Never,
    /// Continue it when the plan matches (--resume, or a study's own output).
    WhenSamePlan,
}

/// A planned grid and how to run it: the plan `run` runs too (its output
/// always given: a grid resumes from it), and what a grid adds.
struct Grid {
    plan: crate::plan::RunPlan,
    /// The network target (`--target`), instead of a local directory; the
    /// plan's `dir` is then its URL.
    target: Option<Box<dyn crate::net::Remote>>,
    /// `--destroy-data` repeated the target (an iSCSI LUN) to allow writing it.
    destroy_data: bool,
    info: PlanInfo,
    resume: Resume,
    /// `--knee`: the latency target a knee is chosen under.
    knee: Option<KneeTarget>,
    /// `--knee-all`: run every point of a knee search, also past the knee.
    knee_all: bool,
}

impl Grid {
    /// Where the result (and beside it the journal) goes.
    fn output(&self) -> &Path {
        // Every grid is built with its output (`sweep`, `study_text`).
        self.plan
            .output
            .as_deref()
            .expect("a grid's plan names its output")
    }
}

/// `iolab sweep`.
pub fn sweep(args: &SweepArgs, command: Vec<String>) -> Result<Ending, AppError> {
    let ranks = Ranks::join(&args.distributed, &command)?;
    let expanded = args.sweep().and_then(|s| s.expand()).and_then(|points| {
        args.place.arrange(
            points,
            args.params
                .get(crate::plan::sweep::Param::Machine)
                .is_some(),
        )
    });
    let (points, guests) = ranks.agreed(expanded.map_err(AppError::from))?;
    if ranks.speaks() {
        args.params
            .warnings()
            .iter()
            .for_each(|line| crate::say!("{line}"));
    }
    let target = ranks.agreed(network_target(
        args.target.as_deref(),
        None,
        &[],
        args.destroy_data.as_deref(),
        &points,
        &ranks,
    ))?;
    super::network::grid_consent(target.as_deref(), &guests, args.destroy_data.as_deref())?;
    let dir = place(&args.dir, target.as_deref());
    let output = args
        .out
        .output
        .clone()
        .unwrap_or_else(|| default_output("sweep"));
    let grid = Grid {
        info: plan_info("sweep", None, None, &points, &dir, args.knee),
        plan: grid_plan(points, guests, dir, output, &args.out, !args.no_report),
        target,
        destroy_data: args.destroy_data.is_some(),
        resume: if args.resume {
            Resume::WhenSamePlan
        } else {
            Resume::Never
        },
        knee: args.knee,
        knee_all: args.knee_all,
    };
    if args.dry_run {
        return if ranks.speaks() {
            dry_run(&grid)
        } else {
            Ok(Ending::Success)
        };
    }
    run_grid(grid, command, &ranks)
}

/// `iolab study FILE.toml`.
pub fn study(args: &StudyArgs, command: Vec<String>) -> Result<Ending, AppError> {
    let text = crate::input::read_to_string(&args.file).map_err(|e| {
        usage!(
            "study {}: {}",
            args.file.display(),
            crate::input::describe_io(&e)
        )
    })?;
    study_text(&text, args, command)
}

/// Runs the study in `text` (named by `args.file` in messages): a study file's, or a preset's.
pub fn study_text(text: &str, args: &StudyArgs, command: Vec<String>) -> Result<Ending, AppError> {
    let ranks = Ranks::join(&args.distributed, &command)?;
    let planned = Study::parse(text, &args.file).and_then(|(study, text)| {
        let base = crate::plan::base_workload(args.target.as_deref());
        let points = study.plan(&base, &text, &args.file)?;
        // The command line's guest, order and rounds win over the study's.
        let place = crate::cli::sweep::PlaceArgs {
            guest: if args.place.guest.is_empty() {
                study.guest_text()?.into_iter().collect()
            } else {
                study.with_guest_defaults(&args.place.guest)?
            },
            order: match (&args.place.order, &study.repeat.order) {
                (Some(order), _) => Some(*order),
                (None, Some(text)) => Some(
                    text.parse()
                        .map_err(|e: String| usage!("[repeat] order = \"{text}\": {e}"))?,
                ),
                (None, None) => None,
            },
            rounds: args.place.rounds.or(study.repeat.rounds),
        };
        let (points, guests) = place.arrange(points, false)?;
        Ok((study, points, guests))
    });
    let (study, points, guests) = ranks.agreed(planned.map_err(AppError::from))?;
    let target = ranks.agreed(network_target(
        args.target.as_deref(),
        None,
        &[],
        args.destroy_data.as_deref(),
        &points,
        &ranks,
    ))?;
    super::network::grid_consent(target.as_deref(), &guests, args.destroy_data.as_deref())?;
    let dir = args
        .dir
        .clone()
        .or_else(|| study.dir.as_ref().map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = place(&dir, target.as_deref());
    let name = study.name.get_ref().trim().to_string();
    let output = args
        .out
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("iolab-results").join(format!("{name}.json")));
    let grid = Grid {
        info: PlanInfo {
            table: study.table,
            ..plan_info(
                "study",
                Some(name),
                study.description.clone(),
                &points,
                &dir,
                study.knee,
            )
        },
        plan: grid_plan(points, guests, dir, output, &args.out, !args.no_report),
        target,
        destroy_data: args.destroy_data.is_some(),
        // Re-running a study continues it: its output name is stable.
        resume: Resume::WhenSamePlan,
        knee: study.knee,
        knee_all: study.knee_all,
    };
    if args.dry_run {
        return if ranks.speaks() {
            dry_run(&grid)
        } else {
            Ok(Ending::Success)
        };
    }
    let _ = args.resume; // the same as the default for studies; accepted for symmetry with sweep
    run_grid(grid, command, &ranks)
}

/// A grid's plan: its points and guests in `dir`, written to `output`,
/// shown as the output options say.
fn grid_plan(
    points: Vec<PlannedPoint>,
    guests: Vec<crate::plan::GuestSpec>,
    dir: PathBuf,
    output: PathBuf,
    out: &crate::cli::OutputArgs,
    report: bool,
) -> crate::plan::RunPlan {
    crate::plan::RunPlan {
        dir,
        points,
        guests,
        output: Some(output),
        json: out.json,
        detail: out.detail,
        report,
        strict: out.strict,
        progress: out.progress,
        notes: Vec::new(),
    }
}

/// Where a grid's files go, as recorded and fingerprinted: the directory,
/// or the network target's URL.
fn place(dir: &Path, target: Option<&dyn crate::net::Remote>) -> PathBuf {
    target.map_or_else(|| dir.to_path_buf(), |url| PathBuf::from(url.text()))
}

fn plan_info(
    kind: &str,
    name: Option<String>,
    description: Option<String>,
    points: &[PlannedPoint],
    dir: &Path,
    knee: Option<KneeTarget>,
) -> PlanInfo {
    let canonical: Vec<(&str, &crate::plan::Workload)> = points
        .iter()
        .map(|p| (p.label.as_str(), p.workload()))
        .collect();
    // A knee search's target decides which point is the knee and where
    // the search stops: it is part of the plan, so a resume under another
    // target is refused like any change (`--knee-all`, whether to stop at
    // all, may change). Without one the text is as before, so older
    // journals still resume.
    let mut text =
        serde_json::to_string(&(dir.display().to_string(), canonical)).expect("a plan serializes");
    if let Some(knee) = knee {
        text.push_str(&format!("\nknee {knee}"));
    }
    // Every group's workload is the plan too: a study whose logger changed
    // is another plan. Without groups the text is as before.
    for (index, point) in points.iter().enumerate().filter(|(_, p)| p.grouped()) {
        for group in &point.groups {
            let workload = serde_json::to_string(&group.workload).expect("a workload serializes");
            text.push_str(&format!("\ngroup {index} {} {workload}", group.name));
        }
    }
    PlanInfo {
        kind: kind.to_string(),
        name,
        description,
        table: None,
        hash: journal::fingerprint(text.as_bytes()),
        // A point run in several rounds is one point of the result.
        points: points
            .iter()
            .map(|p| p.label.as_str())
            .collect::<HashSet<_>>()
            .len() as u32,
    }
}

/// What was there before this run, and what remains to run.
struct Start {
    result: ResultFile,
    done: HashSet<usize>,
    journal: Option<Journal>,
    /// Whether this process made the journal, holding no point then.
    journal_new: bool,
    /// Runs that appended to the journal before, whose leftovers may be removed.
    earlier_runs: Vec<String>,
}

fn start(grid: &Grid, command: Vec<String>) -> Result<Start, AppError> {
    let journal_path = journal::path_for(grid.output());
    let refuse_existing = |what: &str| {
        usage!(
            "--output {} {what}; add --resume to continue it, or choose another --output",
            grid.output().display()
        )
    };
    let resumed = if journal_path.symlink_metadata().is_ok() {
        // Locked from here on; `None` when it held no header (then removed).
        Journal::resume(&journal_path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::WouldBlock {
                usage!("--output {}: {e}", grid.output().display())
            } else {
                usage!("cannot resume from {}: {e}", journal_path.display())
            }
        })?
    } else {
        None
    };
    if let Some(resumed) = resumed {
        if grid.resume == Resume::Never {
            return Err(refuse_existing("has an unfinished sweep").into());
        }
        let journal::Resumed {
            journal,
            header,
            entries,
            runs: earlier_runs,
        } = resumed;
        same_plan(&header.plan_hash, grid, &journal_path)?;
        let mut result = header.result;
        let mut done = HashSet::new();
        for entry in entries {
            if done.insert(entry.index) {
                // A later round joins the point's earlier ones, as when it ran.
                let environment = match entry.point.workload.machine {
                    crate::plan::Machine::Guest => result
                        .guest_of(&entry.point.workload)
                        .and_then(|g| g.environment.clone()),
                    crate::plan::Machine::Host => Some(Box::new(result.environment.clone())),
                };
                keep_point(&mut result.points, entry.point, environment.as_deref())?;
            }
        }
        crate::check::across(&mut result.points);
        return Ok(Start {
            result,
            done,
            journal: Some(journal),
            journal_new: false,
            earlier_runs,
        });
    }
    if grid.output().exists() {
        if grid.resume == Resume::Never {
            return Err(usage!(
                "--output {} already exists; iolab does not overwrite files",
                grid.output().display()
            )
            .into());
        }
        let result = write::read(grid.output())
            .map_err(|e| usage!("--output {}: {e}", grid.output().display()))?;
        let hash = result
            .plan
            .as_ref()
            .map(|p| p.hash.clone())
            .unwrap_or_default();
        same_plan(&hash, grid, grid.output())?;
        let done: HashSet<usize> = (0..result.points.len()).collect();
        if done.len() >= grid.plan.points.len() {
            return Ok(Start {
                result,
                done,
                journal: None,
                journal_new: false,
                earlier_runs: Vec::new(),
            });
        }
        // Unfinished and its journal gone: start a new one holding what the result has.
        let journal = new_journal(&journal_path, grid, &result)?;
        let mut journal = journal;
        for (index, point) in result.points.iter().enumerate() {
            journal
                .append(&Entry {
                    index,
                    point: point.clone(),
                })
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", journal_path.display()))?;
        }
        return Ok(Start {
            result,
            done,
            journal: Some(journal),
            journal_new: false,
            earlier_runs: Vec::new(),
        });
    }
    create_results_dir(grid.output())?;
    check_output(
        Some(grid.output()),
        expected_result_bytes(&grid.plan.points),
    )?;
    if grid.plan.report {
        check_report_beside(grid.output())?;
    }
    let mut result = build::new_result_file(
        command,
        Some(&grid.plan.dir),
        grid.plan
            .points
            .iter()
            .flat_map(crate::plan::PlannedPoint::workloads)
            .any(crate::plan::Workload::uses_page_cache),
    );
    result.plan = Some(grid.info.clone());
    let journal = new_journal(&journal_path, grid, &result)?;
    Ok(Start {
        result,
        done: HashSet::new(),
        journal: Some(journal),
        journal_new: true,
        earlier_runs: Vec::new(),
    })
}

fn new_journal(path: &Path, grid: &Grid, result: &ResultFile) -> Result<Journal, AppError> {
    let header = Header {
        journal: JOURNAL.to_string(),
        plan_hash: grid.info.hash.clone(),
        points: grid.plan.points.len(),
        result: ResultFile {
            points: Vec::new(),
            ..result.clone()
        },
    };
    Journal::create(path, &header)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", path.display()).into())
}

fn same_plan(found: &str, grid: &Grid, source: &Path) -> Result<(), UsageError> {
    if found == grid.info.hash {
        return Ok(());
    }
    Err(usage!(
        "cannot resume {}: it was started from another plan (plan {found}, this one is {}); \
         the parameters, the directory or the study changed, so use another --output",
        source.display(),
        grid.info.hash
    ))
}

fn progress_bar(grid: &Grid, done: usize, speaks: bool) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(grid.plan.points.len() as u64);
    if grid.plan.json
        || !speaks
        || grid.plan.progress == crate::plan::ProgressMode::Never
        || !std::io::stderr().is_terminal()
    {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    // The message says point k of n and the share done: no bar beside it,
    // whose columns the figures need at 80.
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise} {wide_msg}")
            .expect("a valid template"),
    );
    bar.set_position(done as u64);
    bar.reset_eta();
    bar
}

fn run_grid(grid: Grid, command: Vec<String>, ranks: &Ranks) -> Result<Ending, AppError> {
    let speaks = ranks.speaks();
    let checked = ranks
        .check_points(&grid.plan.points)
        .and_then(|()| super::trace_point::check(&grid.plan.points));
    ranks.agreed(checked)?;
    let interrupt = Interrupt::install().map_err(anyhow::Error::from)?;
    // The directory is checked before anything is created.
    let opened = match &grid.target {
        Some(remote) => open_network_session(remote.as_ref(), grid.destroy_data, &interrupt, ranks),
        None => open_session(&grid.plan.dir, false, &interrupt, ranks),
    }
    .map_err(AppError::from);
    let mut session = ranks.agreed(opened)?;
    // Rank 0 alone keeps the journal and the result file.
    let started = if speaks {
        start(&grid, command)
    } else {
        Ok(Start {
            result: build::new_result_file(command, None, false),
            done: HashSet::new(),
            journal: None,
            journal_new: false,
            earlier_runs: Vec::new(),
        })
    };
    let Start {
        mut result,
        mut done,
        mut journal,
        journal_new,
        earlier_runs,
    } = ranks.agreed(started)?;
    // A result file already there belongs to the sweep being resumed.
    let replace = if grid.output().symlink_metadata().is_ok() {
        Replace::Own
    } else {
        Replace::Never
    };
    // Every rank resumes from rank 0's journal.
    let mut indices: Vec<usize> = done.iter().copied().collect();
    indices.sort_unstable();
    done = ranks.share_indices(&indices).into_iter().collect();
    let record = ranks.record(&grid.plan.dir);
    if speaks && result.distributed.is_none() {
        result.distributed = record;
    }
    let fresh = done.is_empty();
    if done.len() >= grid.plan.points.len() {
        if speaks {
            crate::say!(
                "iolab: all {} points of this plan are in {} already",
                grid.plan.points.len(),
                grid.output().display()
            );
            driver::finish(&mut [&mut presenter(&grid, None)], &result)?;
        }
        return Ok(Ending::Success);
    }
    for run_id in &earlier_runs {
        session.remove_leftovers(run_id);
    }
    session.remove_dead_runs();
    if let Some(journal) = journal.as_mut() {
        journal
            .start_run(session.dir().run_id())
            .map_err(|e| anyhow::anyhow!("cannot write the journal: {e}"))?;
    }
    if speaks && !done.is_empty() {
        crate::say!(
            "iolab: resuming {}: {} of {} points done",
            grid.output().display(),
            done.len(),
            grid.plan.points.len()
        );
    }
    let mut progress = driver::Progress(progress_bar(&grid, done.len(), speaks));
    let mut writer = driver::ResultWriter::new(grid.output().to_path_buf(), replace, REWRITE_EVERY);
    let mut journaled = journal.as_mut().map(JournalListener);
    let mut listeners: Vec<&mut dyn driver::Listener> = Vec::new();
    if let Some(journaled) = journaled.as_mut() {
        listeners.push(journaled);
    }
    listeners.push(&mut writer);
    let past_the_knee = knee_search_stop(&grid);
    let driven = driver::measure(
        &grid.plan,
        driver::Measuring {
            done: &done,
            enough: past_the_knee.as_ref().map(|f| f as driver::Enough<'_>),
            refuse_at_first: fresh,
            bar: Some(&mut progress),
        },
        (&mut session, &interrupt, ranks),
        &mut result,
        &mut listeners,
    );
    drop(listeners);
    let driven = match driven {
        Ok(driven) => driven,
        Err(error) => {
            // Bad input found at the first point of a new sweep: leave
            // nothing behind. A journal this process did not make, or one
            // holding a finished point, is what a resume continues from.
            if let Some(journal) = journal.take() {
                if journal_new && journal.appended() == 0 {
                    let _ = journal.finish();
                } else {
                    // Said after the error it answers, in its one line.
                    let kept = format!(
                        "{} is kept: run the same command with --resume to continue from it",
                        journal.path().display()
                    );
                    return Err(match error {
                        AppError::Usage(usage) => usage!("{usage}; {kept}").into(),
                        AppError::Other(other) => {
                            AppError::Other(anyhow::anyhow!("{other:#}; {kept}"))
                        }
                    });
                }
            }
            return Err(error);
        }
    };
    // Points a knee search did not need count as done: the search is.
    let completed = done.len() + driven.finished + driven.not_run.len();
    let ending = driven.ending;
    if !speaks {
        return Ok(ending);
    }
    result.convergence = convergence(&result);
    result.knee = grid.knee.map(|target| KneeRecord {
        not_run: driven
            .not_run
            .iter()
            .map(|&i| grid.plan.points[i].label.clone())
            .collect(),
        ..knee(&result, target)
    });
    let in_study_table = matches!(
        grid.info.table,
        Some(StudyTable::DdBlocksize | StudyTable::DdDatasize)
    );
    let after_table = (!in_study_table).then(|| {
        let mut text = render_convergence(&result.convergence);
        if let Some(knee) = &result.knee {
            text.push_str(&render_knee(knee));
        }
        super::output::terminal().screen.wrap(&text)
    });
    let mut presenter = presenter(&grid, after_table);
    // The result is written before the journal goes, so a failed write
    // leaves the journal to resume from.
    driver::finish(&mut [&mut writer], &result)?;
    if completed == grid.plan.points.len() {
        if let Some(journal) = journal {
            journal
                .finish()
                .map_err(|e| anyhow::anyhow!("cannot remove the journal: {e}"))?;
        }
    } else {
        crate::say!(
            "iolab: {} of {} points complete; run the same command{} to measure the rest",
            completed,
            grid.plan.points.len(),
            if grid.info.kind == "sweep" {
                " with --resume"
            } else {
                ""
            }
        );
    }
    driver::finish(&mut [&mut presenter], &result)?;
    if ranks.speaks() && !grid.plan.json && matches!(ending, Ending::Success | Ending::Warnings) {
        note_single_repetition(&grid.plan.points);
    }
    Ok(strict_ending(ending, grid.plan.strict, &result))
}

/// What shows a grid's result at the end.
fn presenter(grid: &Grid, after_table: Option<String>) -> driver::Presenter {
    driver::Presenter {
        json: grid.plan.json,
        detail: grid.plan.detail,
        output: Some(grid.output().to_path_buf()),
        report: grid.plan.report,
        after_table,
    }
}

/// Appends each point measured to the end to the journal, so a resume
/// skips it; a failed or interrupted point stays in the result file but not
/// in the journal, so a resume measures it again.
struct JournalListener<'a>(&'a mut Journal);

impl driver::Listener for JournalListener<'_> {
    fn recorded(
        &mut self,
        index: usize,
        point: &crate::record::Point,
        finished: bool,
    ) -> Result<(), AppError> {
        if finished {
            self.0
                .append(&Entry {
                    index,
                    point: point.clone(),
                })
                .map_err(|e| anyhow::anyhow!("cannot write the journal: {e}"))?;
        }
        Ok(())
    }
}
