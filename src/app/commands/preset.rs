//! `iolab preset`: the published studies as study files, listed, shown, or run through the study path.

use crate::app::error::{AppError, Ending};
use crate::app::grid;
use crate::app::output::{self};
use crate::usage;
use std::path::{Path, PathBuf};

/// `iolab preset list|show|run`.
pub fn preset(
    command: &crate::cli::PresetCommand,
    arguments: Vec<String>,
) -> Result<Ending, AppError> {
    use crate::cli::PresetCommand;
    use crate::preset::{PRESETS, Scale, find};
    let named = |name: &str| {
        find(name).ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
            usage!("no preset '{name}'; the presets are {}", names.join(", "))
        })
    };
    match command {
        PresetCommand::List => {
            let mut text = String::new();
            // `preset run` works in the current directory unless told.
            let speeds = crate::app::speeds::load(Path::new("."));
            let mut measured = false;
            for preset in &PRESETS {
                text.push_str(&format!("{}: {}\n", preset.name, preset.description));
                for scale in [Scale::Quick, Scale::Full] {
                    let study = (preset.study)(scale);
                    let (parsed, study) =
                        crate::plan::study::Study::parse(&study, Path::new(preset.name))?;
                    let points = parsed.plan(
                        &crate::plan::default_workload(),
                        &study,
                        Path::new(preset.name),
                    )?;
                    let cost = crate::plan::cost(&points, &speeds, &|_| None);
                    measured |= cost.measured;
                    text.push_str(&format!(
                        "  --scale {:<5} {:>4} points, moves {:>9}, files up to {:>9}, about {}\n",
                        scale.name(),
                        points.len(),
                        crate::report::units::bytes(
                            cost.moved_bytes.min(u128::from(u64::MAX)) as u64
                        ),
                        crate::report::units::bytes(cost.largest_bytes),
                        crate::report::units::duration(cost.seconds())
                    ));
                }
            }
            text.push_str(&format!(
                "\nTimes of the I/O in the current directory, {}; layouts, cache drops and boots come on top.\n",
                crate::app::speeds::basis(measured)
            ));
            text.push_str("\niolab preset show NAME prints one as a study file; iolab preset run NAME --dry-run gives its plan, data volume and time.\n");
            output::print(&text)?;
            Ok(Ending::Success)
        }
        PresetCommand::Show { name, scale } => {
            output::print(&(named(name)?.study)(*scale))?;
            Ok(Ending::Success)
        }
        PresetCommand::Run { name, scale, study } => {
            let preset = named(name)?;
            let args = crate::cli::StudyArgs {
                file: PathBuf::from(format!("preset {name}")),
                dir: Some(study.dir.clone()),
                target: study.target.clone(),
                destroy_data: study.destroy_data.clone(),
                dry_run: study.dry_run,
                resume: true,
                no_report: study.no_report,
                place: study.place.clone(),
                distributed: study.distributed,
                out: crate::cli::OutputArgs {
                    output: Some(study.out.output.clone().unwrap_or_else(|| {
                        PathBuf::from("iolab-results").join(format!(
                            "{}-{}.json",
                            preset.name,
                            scale.name()
                        ))
                    })),
                    json: study.out.json,
                    detail: study.out.detail,
                    strict: study.out.strict,
                    progress: study.out.progress,
                },
            };
            let free = rustix::fs::statvfs(&study.dir)
                .map(|s| (s.f_bavail * s.f_frsize).saturating_sub(crate::run::FREE_SPACE_MARGIN))
                .unwrap_or(u64::MAX);
            let (text, note) = crate::preset::capped(&(preset.study)(*scale), free);
            if let Some(note) = note {
                crate::say!("iolab: {name}: {note}");
            }
            grid::study_text(&text, &args, arguments)
        }
    }
}
