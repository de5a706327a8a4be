//! `iolab replay --guest`: a trace replayed inside a QEMU guest iolab boots — by iolab itself in the guest, started through the agent as a command — onto a file in the guest's own disk (an image made in `--dir`) or in what the guest's kernel mounts; the guest's record brought back with what the guest was.

use super::distributed::new_run_id;
use super::error::AppError;
use super::guest_image::{guest_error, make_image};
use crate::cli::ReplayArgs;
use crate::guest::{GuestError, Guests};
use crate::plan::EngineKind;
use crate::plan::guest::{Accelerator, GuestSpec};
use crate::run::Session;
use crate::trace::characterize::Character;
use crate::usage;
use std::path::Path;

/// Where the guest's iolab writes its record: the guest's overlay (its
/// memory), never the host's files.
const GUEST_RECORD: &str = "/tmp/iolab-replay.json";
/// Room the guest's file system takes beyond the trace's file.
const IMAGE_SLACK: u64 = 64 << 20;

/// How a replay in a guest ended.
pub(crate) enum InGuest {
    /// The guest's record (`iolab.replay/1`), with `guest`: what it was.
    Replayed(serde_json::Value),
    /// A signal ended it: the guest was stopped, its image removed.
    Interrupted(i32),
}

/// `iolab replay TRACE --guest KEYS`: the trace was read whole and checked
/// on the host (`character`); `engine` is a local one.
pub(crate) fn replay(
    args: &ReplayArgs,
    (guest, character, engine): (&str, &Character, EngineKind),
) -> Result<InGuest, AppError> {
    let spec = GuestSpec::parse(guest)?;
    if let Some(lun) = spec.destroys() {
        return Err(usage!(
            "--guest mount={lun}: iolab replay makes no file system on a LUN; replay onto it with --target and --destroy-data"
        )
        .into());
    }
    // The guest sees the host's root: the trace by its absolute path.
    let trace = std::fs::canonicalize(&args.source.trace)
        .map_err(|e| usage!("{}: {e}", args.source.trace.display()))?;
    let Some(trace_text) = trace.to_str().map(str::to_string) else {
        return Err(usage!("{}: not a UTF-8 path", trace.display()).into());
    };
    let needed = args
        .fitted_length()
        .unwrap_or(character.summary.end)
        .next_multiple_of(1 << 20);
    let size = (needed + needed / 8 + IMAGE_SLACK).next_multiple_of(1 << 20);
    let dir = args.dir.clone().unwrap_or_else(|| ".".into());
    crate::guest::qemu::version().map_err(guest_error)?;
    if let Some(tap) = &spec.tap {
        crate::guest::network::guest_address(tap).map_err(guest_error)?;
    }
    let interrupt = crate::run::signals::Interrupt::install().map_err(anyhow::Error::from)?;
    let run_id = new_run_id();
    let session = Session::open(&dir, &run_id, interrupt.clone())?;
    session.remove_dead_runs();
    let iolab = std::env::current_exe()
        .map_err(|e| anyhow::anyhow!("cannot find iolab's own binary for the guest: {e}"))?;
    let image = if spec.has_image() {
        Some(make_image(&session, 0, size, spec.format)?)
    } else {
        None
    };
    let line = guest_command(args, &iolab, &trace_text, engine);
    let ending = || interrupt.is_set();
    let replayed = in_guest(
        &spec,
        image.as_ref().map(|image| image.path()),
        (&iolab, &run_id, args.buffered),
        line,
        &ending,
    );
    if let Some(image) = image {
        image.release(false);
    }
    match replayed {
        Ok((mut record, guest)) => {
            record["guest"] = guest;
            Ok(InGuest::Replayed(record))
        }
        Err(GuestError::Interrupted) => Ok(InGuest::Interrupted(interrupt.signal().unwrap_or(2))),
        Err(error) => Err(guest_error(error)),
    }
}

/// The command line the guest runs: the same replay onto the guest's
/// disk, its record written in the guest and printed alone on stdout.
fn guest_command(args: &ReplayArgs, iolab: &Path, trace: &str, engine: EngineKind) -> String {
    let mut words: Vec<String> = vec![
        iolab.display().to_string(),
        "replay".into(),
        trace.into(),
        "--dir".into(),
        crate::guest::stack::DISK_MOUNT.into(),
        "--engine".into(),
        engine.name().into(),
        "--depth".into(),
        args.depth.to_string(),
        "--interval".into(),
        format!("{}ns", args.interval.as_nanos()),
    ];
    if args.afap {
        words.push("--afap".into());
    } else {
        words.extend(["--speed".into(), args.speed.to_string()]);
    }
    if args.buffered {
        words.push("--buffered".into());
    }
    if let Some(wrap) = args.wrap {
        words.extend(["--wrap".into(), wrap.to_string()]);
    }
    if let Some(scale) = args.scale {
        words.extend(["--scale".into(), scale.to_string()]);
    }
    if let Some(format) = &args.source.format {
        words.extend(["--format".into(), format.name().to_string()]);
    }
    let select = &args.source.select;
    if let Some(from) = select.from {
        words.extend(["--from".into(), format!("{}ns", from.as_nanos())]);
    }
    if let Some(to) = select.to {
        words.extend(["--to".into(), format!("{}ns", to.as_nanos())]);
    }
    if !select.only.is_empty() {
        words.extend(["--only".into(), select.only.join(",")]);
    }
    words.extend(["-o".into(), GUEST_RECORD.into()]);
    let quoted: Vec<String> = words.iter().map(|w| shell_word(w)).collect();
    // Its fidelity text is the host's to print (from the record); its
    // notes go to stderr, relayed; the record alone on stdout.
    format!(
        "rm -f {GUEST_RECORD}; {} >/dev/null && cat {GUEST_RECORD}",
        quoted.join(" ")
    )
}

/// `text` as one word for `sh`.
fn shell_word(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Boots the guest, runs `line` in it and stops it: the guest's record and
/// what the guest was. The guest's own notes are shown as they come.
fn in_guest(
    spec: &GuestSpec,
    image: Option<&Path>,
    (iolab, run_id, page_cache): (&Path, &str, bool),
    line: String,
    ending: &dyn Fn() -> bool,
) -> Result<(serde_json::Value, serde_json::Value), GuestError> {
    let mut guests = Guests::prepare(spec, image, iolab, (run_id, page_cache), ending)?;
    guests.on_phase = |booting| {
        if let Some(accelerator) = booting {
            crate::say!("iolab: booting the guest ({})", accelerator.name());
        }
    };
    guests.boot(ending)?;
    let ready = guests.ready.clone().expect("a booted guest is ready");
    let accelerator = guests.accelerator.unwrap_or(Accelerator::Tcg);
    crate::say!(
        "iolab: in the guest: {} ({}, booted in {:.1} s), onto {} {}",
        ready.environment.kernel,
        accelerator.name(),
        guests.boot_seconds.last().copied().unwrap_or(0.0),
        ready.device,
        ready.filesystem
    );
    if accelerator == Accelerator::Tcg {
        crate::say!(
            "iolab: note: under TCG the guest's timing is CPU emulation's: its lag and latency figures measure the emulator, its counts hold"
        );
    }
    let mut record = String::new();
    let mut notes = Notes::default();
    let ran = guests.run_command(
        line,
        &mut |stderr, text| {
            if stderr {
                notes.add(&text);
            } else {
                record.push_str(&text);
            }
        },
        &|| false,
        ending,
    );
    notes.add("\n");
    guests.stop();
    match ran? {
        (Some(0), _) => {}
        (Some(2), _) => {
            return Err(GuestError::Usage(format!(
                "in the guest: {}",
                notes.last.trim_start_matches("iolab: error: ")
            )));
        }
        (code, signal) => {
            return Err(GuestError::Failed(format!(
                "the replay in the guest ended with {}: {}",
                match (code, signal) {
                    (Some(code), _) => format!("status {code}"),
                    (None, Some(signal)) => format!("signal {signal}"),
                    _ => "no status".into(),
                },
                notes.last
            )));
        }
    }
    let record: serde_json::Value = serde_json::from_str(&record)
        .map_err(|e| GuestError::Failed(format!("the guest's replay record: {e}")))?;
    let guest = serde_json::json!({
        "spec": spec,
        "accelerator": accelerator.name(),
        "why_tcg": guests.why_tcg,
        "boot_s": guests.boot_seconds.last(),
        "device": ready.device,
        "filesystem": ready.filesystem,
        "environment": ready.environment,
    });
    Ok((record, guest))
}

/// The guest iolab's own lines, shown as `iolab (guest): …` as whole lines
/// arrive; the last kept for a failure's message.
#[derive(Default)]
struct Notes {
    partial: String,
    last: String,
}

impl Notes {
    fn add(&mut self, text: &str) {
        self.partial.push_str(text);
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            let line = line.trim_end();
            // The guest's record is brought back and written by the host;
            // its error is the host's to say, once.
            if line.is_empty() || line.contains("replay record:") {
                continue;
            }
            if line.starts_with("iolab: error: ") {
                self.last = line.to_string();
                continue;
            }
            crate::say!(
                "{}",
                match line.strip_prefix("iolab: ") {
                    Some(rest) => format!("iolab (guest): {rest}"),
                    None => format!("iolab (guest): {line}"),
                }
            );
            self.last = line.to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_reaches_sh_whole_whatever_it_holds() {
        for word in [
            "plain",
            "two words",
            "it's",
            "$(rm -rf /)",
            "a\"b",
            "; true",
            "",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", shell_word(word)))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout), word);
        }
    }
}
