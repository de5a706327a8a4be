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
                "\nTimes in the current directory, {}, with the layouts and each repetition's own work (files, caches, counters) as the last run here took; a guest's boots and emulated CPU come on top.\n",
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
            let media = distinct_media(&study.dir)?;
            let output = study.out.output.clone().unwrap_or_else(|| {
                PathBuf::from("iolab-results").join(format!(
                    "{}-{}.json",
                    preset.name,
                    scale.name()
                ))
            });
            if media.len() > 1 && !study.dry_run && study.target.is_none() {
                room_on_every_medium(&(preset.study)(*scale), &media)?;
            }
            let mut outputs = Vec::new();
            let mut ending = Ending::Success;
            for (index, dir) in media.iter().enumerate() {
                let output = if media.len() > 1 {
                    numbered(&output, index + 1)
                } else {
                    output.clone()
                };
                let args = crate::cli::StudyArgs {
                    file: PathBuf::from(format!("preset {name}")),
                    dir: Some(dir.to_path_buf()),
                    target: study.target.clone(),
                    destroy_data: study.destroy_data.clone(),
                    dry_run: study.dry_run,
                    resume: true,
                    no_report: study.no_report,
                    place: study.place.clone(),
                    distributed: study.distributed,
                    out: crate::cli::OutputArgs {
                        output: Some(output.clone()),
                        json: study.out.json,
                        detail: study.out.detail,
                        strict: study.out.strict,
                        progress: study.out.progress,
                    },
                };
                let free = rustix::fs::statvfs(*dir)
                    .map(|s| {
                        (s.f_bavail * s.f_frsize).saturating_sub(crate::run::FREE_SPACE_MARGIN)
                    })
                    .unwrap_or(u64::MAX);
                let (text, note) = crate::preset::capped(&(preset.study)(*scale), free);
                if let Some(note) = note {
                    crate::say!("iolab: {name}: {note}");
                }
                if media.len() > 1 {
                    crate::say!(
                        "iolab: {name}: medium {} of {}: {}, into {}",
                        index + 1,
                        media.len(),
                        dir.display(),
                        output.display()
                    );
                }
                match grid::study_text(&text, &args, arguments.clone())? {
                    Ending::Success => {}
                    // Under --strict: measured, with warnings (exit 3).
                    Ending::Warnings => ending = Ending::Warnings,
                    // A medium that failed or was stopped ends the study there.
                    other => return Ok(other),
                }
                outputs.push(output);
            }
            if media.len() > 1 && !study.dry_run {
                gathered(&outputs, &output, study.no_report)?;
            }
            Ok(ending)
        }
    }
}

/// The media of `--dir`, each once: the same directory twice (by device
/// and inode, however written) is refused, as two rows of one medium.
fn distinct_media(dirs: &[PathBuf]) -> Result<Vec<&Path>, AppError> {
    use std::os::unix::fs::MetadataExt;
    let mut seen: Vec<((u64, u64), &Path)> = Vec::new();
    for dir in dirs {
        if dirs.len() == 1 {
            break;
        }
        let metadata =
            std::fs::metadata(dir).map_err(|e| usage!("--dir {}: {e}", dir.display()))?;
        if !metadata.is_dir() {
            return Err(usage!("--dir {}: not a directory", dir.display()).into());
        }
        let identity = (metadata.dev(), metadata.ino());
        if let Some((_, first)) = seen.iter().find(|(id, _)| *id == identity) {
            return Err(usage!(
                "--dir {} is --dir {} again: give each medium once",
                dir.display(),
                first.display()
            )
            .into());
        }
        seen.push((identity, dir));
    }
    Ok(dirs.iter().map(PathBuf::as_path).collect())
}

/// Refuses several media before the first runs when one has no room for
/// the study's largest files (as each medium's own run would, later).
fn room_on_every_medium(text: &str, media: &[&Path]) -> Result<(), AppError> {
    use crate::plan::units::{format_size, human_size};
    for dir in media {
        let free = rustix::fs::statvfs(*dir)
            .map(|s| s.f_bavail * s.f_frsize)
            .map_err(|e| usage!("--dir {}: {e}", dir.display()))?;
        let (text, _) =
            crate::preset::capped(text, free.saturating_sub(crate::run::FREE_SPACE_MARGIN));
        let path = Path::new("preset");
        let (study, text) = crate::plan::study::Study::parse(&text, path)?;
        let points = study.plan(&crate::plan::default_workload(), &text, path)?;
        let largest = crate::plan::cost(&points, &Default::default(), &|_| None).largest_bytes;
        let needed = largest.saturating_add(crate::run::FREE_SPACE_MARGIN);
        if free < needed {
            return Err(usage!(
                "not enough free space in {}: the study's largest files ({}) need {} with a {} margin, {} is free; nothing ran",
                dir.display(),
                human_size(largest),
                human_size(needed),
                format_size(crate::run::FREE_SPACE_MARGIN),
                human_size(free)
            )
            .into());
        }
    }
    Ok(())
}

/// `out.json` as the result of medium `n`: `out-n.json`.
fn numbered(output: &Path, n: usize) -> PathBuf {
    let stem = output
        .file_stem()
        .map_or_else(|| "iolab".to_string(), |s| s.to_string_lossy().into_owned());
    let name = match output.extension() {
        Some(extension) => format!("{stem}-{n}.{}", extension.to_string_lossy()),
        None => format!("{stem}-{n}"),
    };
    output.with_file_name(name)
}

/// After every medium ran: the study's tables with a row (or column
/// group) per medium, printed and written as one report beside `output`.
fn gathered(outputs: &[PathBuf], output: &Path, no_report: bool) -> Result<(), AppError> {
    let mut files = Vec::new();
    for path in outputs {
        let result = crate::record::write::read_to_show(path).map_err(|e| usage!("{e}"))?;
        files.push((path.display().to_string(), result));
    }
    let named: Vec<(&str, &crate::record::ResultFile)> =
        files.iter().map(|(n, r)| (n.as_str(), r)).collect();
    let screen = output::terminal().screen;
    let mut text = format!("\nThe study over {} media:\n", files.len());
    for table in crate::report::studies::tables(&named, crate::compare::DEFAULT_ALPHA) {
        text.push('\n');
        text.push_str(&table.terminal_at(screen));
    }
    output::print(&text)?;
    if !no_report {
        output::report_of(&output.with_extension("html"), named)?;
    }
    Ok(())
}
