//! `iolab replay` and `iolab characterize`: a trace checked whole, replayed onto its target with its fidelity printed and recorded, or described with the workload of its shape.

use crate::app::error::{AppError, Ending};
use crate::app::output::check_output;
use crate::cli::{CharacterizeArgs, ReplayArgs};
use crate::plan::EngineKind;
use crate::plan::units::{format_size, human_size};
use crate::replay::fidelity::Fidelity;
use crate::replay::{ReplayOptions, Target, TargetChoice, TargetError};
use crate::report::units::{latency, significant};
use crate::trace::characterize::{Character, characterize as describe};
use crate::trace::{IoKind, Selection};
use crate::usage;
use std::fmt::Write as _;

/// The record's format name.
const RECORD_FORMAT: &str = "iolab.replay/1";

/// `engine`, when it replays a trace.
fn replay_engine(engine: EngineKind) -> Result<EngineKind, AppError> {
    if engine.capabilities().replays_trace {
        return Ok(engine);
    }
    let replaying: Vec<&str> = EngineKind::ALL
        .into_iter()
        .filter(|e| e.capabilities().replays_trace)
        .map(EngineKind::name)
        .collect();
    Err(usage!(
        "--engine {} does not replay a trace (it issues by file position, a mapping or a stream): give {}",
        engine.name(),
        replaying.join(", ")
    )
    .into())
}

/// The I/Os the flags select.
fn selection(args: &crate::cli::TraceSelectArgs) -> Result<Selection, AppError> {
    let selection = Selection {
        from_ns: args.from.map_or(0, |d| d.as_nanos() as u64),
        to_ns: args.to.map(|d| d.as_nanos() as u64),
        kinds: (!args.only.is_empty()).then(|| {
            IoKind::ALL
                .into_iter()
                .filter(|k| args.only.iter().any(|o| o == k.name()))
                .collect()
        }),
    };
    if let Some(to) = selection.to_ns.filter(|&to| to <= selection.from_ns) {
        return Err(usage!(
            "--to {} is not after --from {}",
            crate::plan::units::format_duration_ns(to),
            crate::plan::units::format_duration_ns(selection.from_ns)
        )
        .into());
    }
    Ok(selection)
}

/// The trace `source` names, read whole: the selection its flags make and
/// what the selected I/Os are like; a refusal is one line, exit 2.
fn read(source: &crate::cli::TraceArgs) -> Result<(Selection, Character), AppError> {
    let selection = selection(&source.select)?;
    let character = describe(&source.trace, source.format, &selection).map_err(refused)?;
    Ok((selection, character))
}

/// A trace's refusal: one line, exit 2, nothing done.
fn refused(error: crate::trace::TraceError) -> AppError {
    AppError::Usage(usage!("{}", error.0))
}

/// `iolab characterize TRACE`.
pub fn characterize(args: &CharacterizeArgs) -> Result<Ending, AppError> {
    let (_, character) = read(&args.source)?;
    let text = if args.json {
        serde_json::to_string_pretty(&character).map_err(anyhow::Error::from)?
    } else {
        let text = character_text(&args.source.trace.display().to_string(), &character);
        crate::app::output::terminal().screen.wrap(&text)
    };
    crate::console::stdout(&format!("{text}\n")).map_err(anyhow::Error::from)?;
    Ok(Ending::Success)
}

/// A trace's character as a person reads it.
fn character_text(shown: &str, c: &Character) -> String {
    let s = &c.summary;
    let mut out = String::new();
    let total = s.total_ios();
    let _ = writeln!(
        out,
        "{shown}: {} trace, {total} I/Os over {:.3} s, {} reached",
        c.format,
        s.duration_ns as f64 / 1e9,
        human_size(s.end)
    );
    let kinds = crate::report::units::shares_to_tenths(&s.ios);
    for (kind, share) in IoKind::ALL.into_iter().zip(&kinds) {
        let n = s.ios[kind.index()];
        if n > 0 {
            let _ = writeln!(
                out,
                "  {:<6} {n} I/Os ({share}), {}",
                kind.name(),
                human_size(s.bytes[kind.index()])
            );
        }
    }
    let data: u64 = c.sizes.iter().map(|(_, n)| n).sum();
    if data > 0 {
        let counts: Vec<u64> = c.sizes.iter().map(|(_, n)| *n).collect();
        let shares = crate::report::units::shares_to_tenths(&counts);
        let sizes: Vec<String> = c
            .sizes
            .iter()
            .zip(&shares)
            .filter(|((_, n), _)| *n > 0)
            .map(|((size, _), share)| format!("≤{} {share}", format_size(*size)))
            .collect();
        let _ = writeln!(out, "  sizes  {}", sizes.join(", "));
        let _ = writeln!(
            out,
            "  sequential {:.1}% of reads and writes (starting where the one before ended)",
            c.sequential_pct
        );
    }
    match c.interarrival_ns {
        Some([mean, p50, p99, max]) => {
            let _ = writeln!(
                out,
                "  arrivals {} I/Os per second; gaps mean {}, p50 {}, p99 {}, max {}",
                significant(c.mean_iops),
                latency(mean as f64),
                latency(p50 as f64),
                latency(p99 as f64),
                latency(max as f64)
            );
        }
        None => {
            let _ = writeln!(out, "  arrivals: one I/O, no gaps");
        }
    }
    match c.recorded_depth {
        Some((mean, most)) => {
            let _ = writeln!(
                out,
                "  in flight {mean:.2} (time-weighted, from the trace's response times or the device's dispatches and completions), at most {most}"
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  in flight: not in the trace (no response times, no dispatches and completions)"
            );
        }
    }
    if !c.iolab_flags.is_empty() {
        let _ = writeln!(
            out,
            "the same shape as a workload:\n  iolab run --dir DIR {}",
            c.iolab_flags.join(" ")
        );
    }
    out.trim_end().to_string()
}

/// `iolab replay TRACE`.
pub fn replay(args: &ReplayArgs, command: Vec<String>) -> Result<Ending, AppError> {
    // Its room is checked once the trace says how long the record is.
    check_output(args.output.as_deref(), 0)?;
    if args.destroy_data.is_some() && args.file.is_none() && args.target.is_none() {
        return Err(usage!(
            "--destroy-data names the device of --file or the LUN of --target it lets a trace write"
        )
        .into());
    }
    // A network target checked before the trace is read through.
    let remote = match &args.target {
        Some(url) => Some(crate::net::parse(url).map_err(|why| AppError::Usage(usage!("{why}")))?),
        None => None,
    };
    let asked = match args.engine {
        Some(engine) => Some(replay_engine(engine)?),
        None => None,
    };
    let engine = match (asked, &remote) {
        (None, None) => EngineKind::Uring,
        (asked, Some(remote)) => {
            let own = remote.engine();
            if let Some(asked) = asked.filter(|&asked| asked != own) {
                return Err(usage!(
                    "--engine {} does not reach --target {}: its engine is {}",
                    asked.name(),
                    remote.text(),
                    own.name()
                )
                .into());
            }
            own
        }
        (Some(asked), None) if asked.capabilities().network.is_some() => {
            return Err(usage!("--engine {} replays onto a --target URL", asked.name()).into());
        }
        (Some(asked), None) => asked,
    };
    // The trace checked whole before anything is created.
    let (selection, character) = read(&args.source)?;
    let summary = character.summary.clone();
    check_output(
        args.output.as_deref(),
        (16 << 10)
            + crate::replay::fidelity::intervals_record_bytes(
                summary.duration_ns,
                args.interval.as_nanos() as u64,
            ),
    )?;
    if summary.largest > crate::replay::LARGEST_IO {
        return Err(usage!(
            "{}: an I/O of {} bytes, more than the {} iolab replays in one I/O",
            args.source.trace.display(),
            summary.largest,
            crate::replay::LARGEST_IO
        )
        .into());
    }
    if !engine.capabilities().trims && summary.ios[IoKind::Trim.index()] > 0 {
        return Err(usage!(
            "{}: it trims, and the {} engine cannot (NFSv3 has no request that frees a range): replay with --only read,write,flush",
            args.source.trace.display(),
            engine.name()
        )
        .into());
    }
    // iolab's NFS and iSCSI clients keep no cache: O_DIRECT is not theirs to ask.
    let direct = !args.buffered && engine.capabilities().direct;
    if direct && !summary.sector_aligned {
        return Err(usage!(
            "{}: some of its I/Os are not aligned to 512 bytes, which O_DIRECT cannot issue: replay with --buffered",
            args.source.trace.display()
        )
        .into());
    }
    crate::replay::check_speed(&summary, (!args.afap).then_some(args.speed))
        .map_err(|why| AppError::Usage(usage!("{why}")))?;
    if let Some(fitted) = args.fitted_length().filter(|&l| l < summary.largest.max(1)) {
        return Err(usage!(
            "--{} {fitted}: smaller than the trace's largest I/O ({} bytes), which must fit whole",
            if args.wrap.is_some() { "wrap" } else { "scale" },
            summary.largest
        )
        .into());
    }
    if let Some(guest) = &args.guest {
        use crate::app::replay_guest::{InGuest, replay};
        let mut record = match replay(args, (guest, &character, engine))? {
            InGuest::Replayed(record) => record,
            InGuest::Interrupted(signal) => return Ok(Ending::Interrupted(signal)),
        };
        let fidelity: Fidelity = serde_json::from_value(record["fidelity"].clone())
            .map_err(|e| anyhow::anyhow!("the guest's replay record: {e}"))?;
        let interrupted = record["interrupted"].as_bool().unwrap_or(false);
        let text = crate::app::output::terminal()
            .screen
            .wrap(&fidelity_text(&fidelity, interrupted));
        crate::console::stdout(&format!("{text}\n")).map_err(anyhow::Error::from)?;
        record["command"] = serde_json::json!(command);
        write_record(args.output.as_deref(), &record)?;
        return Ok(Ending::Success);
    }
    let choice = match (engine, &args.dir, &args.file) {
        (engine, None, None) if !engine.capabilities().moves_data => TargetChoice::Nothing,
        (_, Some(dir), _) => TargetChoice::Dir(dir.clone()),
        (_, None, Some(file)) => TargetChoice::File {
            path: file.clone(),
            destroy_data: args.destroy_data.clone(),
        },
        (_, None, None) => TargetChoice::Dir(".".into()),
    };
    let interrupt = crate::run::signals::Interrupt::install().map_err(anyhow::Error::from)?;
    let run_id = crate::app::distributed::new_run_id();
    let opened = match &remote {
        Some(remote) => {
            let writes = summary.ios[IoKind::Write.index()] + summary.ios[IoKind::Trim.index()] > 0;
            let consented = remote
                .consent(writes, args.destroy_data.as_deref())
                .map_err(|why| AppError::Usage(usage!("{why}")))?;
            let session = remote
                .open(consented, &run_id, &interrupt)
                .map_err(|why| AppError::Usage(usage!("{why}")))?;
            if remote.makes_files() {
                Target::on_session(session, &summary, args.fitted_length(), interrupt.flag())
            } else {
                Target::on_lun(session)
            }
        }
        None => Target::open(
            &choice,
            &summary,
            args.fitted_length(),
            &run_id,
            direct,
            interrupt.flag(),
        ),
    };
    let target = match opened {
        Ok(target) => target,
        Err(TargetError::Refused(why)) => return Err(AppError::Usage(usage!("{why}"))),
        Err(TargetError::Failed(why)) => return Err(AppError::Other(anyhow::anyhow!(why))),
        Err(TargetError::Interrupted) => {
            return Ok(Ending::Interrupted(
                interrupt.signal().unwrap_or(libc::SIGTERM),
            ));
        }
    };
    if args.fitted_length().is_none() && summary.end > target.length {
        return Err(usage!(
            "the trace reaches byte {} beyond the target's {}: give --wrap or --scale",
            summary.end,
            target.length
        )
        .into());
    }
    let speed = (!args.afap).then_some(args.speed);
    let options = ReplayOptions {
        trace: args.source.trace.clone(),
        format: character.format,
        selection: selection.clone(),
        summary: summary.clone(),
        speed,
        engine,
        depth: args.depth,
        fit: match (args.wrap, args.scale) {
            (Some(_), _) => crate::replay::Fit::Wrapped,
            (None, Some(_)) => crate::replay::Fit::Scaled {
                extent: summary.end,
            },
            (None, None) => crate::replay::Fit::AsRecorded,
        },
        interval_ns: args.interval.as_nanos() as u64,
        recorded_depth: character.recorded_depth.map(|(mean, _)| mean),
    };
    crate::say!(
        "iolab: replaying {} ({}, {} I/Os over {:.3} s) onto {}{}, {} at most {} in flight, {}",
        args.source.trace.display(),
        character.format,
        summary.total_ios(),
        summary.duration_ns as f64 / 1e9,
        target.shown,
        if target.created {
            format!(
                " (created, {} laid out and evicted)",
                human_size(target.length)
            )
        } else {
            String::new()
        },
        match engine.client_note() {
            Some(note) => format!("{} ({note})", engine.name()),
            None => engine.name().to_string(),
        },
        engine.in_flight(args.depth),
        match speed {
            Some(1.0) => "as recorded".to_string(),
            Some(s) => format!("{s}× as fast"),
            None => "as fast as possible".to_string(),
        }
    );
    let started_at = jiff::Timestamp::now().to_string();
    let outcome = crate::replay::replay(&options, target.site(), interrupt.flag());
    let kept = target.shown.clone();
    let target_created = target.created;
    let released = target.release(args.keep).map_err(|e| anyhow::anyhow!(e))?;
    if args.keep {
        crate::say!("iolab: kept {kept}");
    } else if let Some(warning) = released.warning(&kept) {
        crate::say!("iolab: warning: {warning}");
    }
    let replayed =
        outcome.map_err(|e| anyhow::anyhow!("replay of {}: {e}", args.source.trace.display()))?;
    let network = replayed
        .network
        .as_ref()
        .and_then(|carried| crate::gather::build::client_network_of(&[carried]));
    let mut text = fidelity_text(&replayed.fidelity, replayed.interrupted);
    if let Some(network) = &network {
        text.push('\n');
        text.push_str(crate::report::activity::render_client_network(network).trim_end());
    }
    let text = crate::app::output::terminal().screen.wrap(&text);
    crate::console::stdout(&format!("{text}\n")).map_err(anyhow::Error::from)?;
    {
        let record = serde_json::json!({
            "format": RECORD_FORMAT,
            "iolab_version": env!("CARGO_PKG_VERSION"),
            "command": command,
            "started_at": started_at,
            "trace": {
                "path": args.source.trace.display().to_string(),
                "format": character.format,
                "selection": selection,
                "summary": summary,
                "character": character,
            },
            "target": {
                "path": kept,
                "created": target_created,
                "engine": engine,
                "direct": direct,
                "depth_cap": replayed.fidelity.depth_cap,
                "speed": speed,
                "wrap": args.wrap,
                "scale": args.scale,
            },
            "interrupted": replayed.interrupted,
            "fidelity": replayed.fidelity,
            "network": network,
        });
        write_record(args.output.as_deref(), &record)?;
    }
    match interrupt.signal() {
        Some(signal) => Ok(Ending::Interrupted(signal)),
        None => Ok(Ending::Success),
    }
}

/// Writes a replay's record at `output` (never over an existing file) or,
/// without `-o`, in `iolab-results/` as `run` keeps its result, and says
/// where.
fn write_record(
    output: Option<&std::path::Path>,
    record: &serde_json::Value,
) -> Result<(), AppError> {
    let path = output.map_or_else(
        || crate::app::output::default_output("replay"),
        std::path::Path::to_path_buf,
    );
    crate::app::output::create_results_dir(&path)?;
    crate::record::write::write_file(&path, crate::record::write::Replace::Never, |out| {
        serde_json::to_writer_pretty(&mut *out, record).map_err(std::io::Error::other)
    })
    .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    crate::console::stdout(&format!("results: {}\n", path.display()))
        .map_err(anyhow::Error::from)?;
    Ok(())
}

/// The fidelity block: the answer (kept up, or who fell behind) first.
fn fidelity_text(f: &Fidelity, interrupted: bool) -> String {
    let mut out = String::new();
    let head = if interrupted {
        "interrupted: the figures hold the I/Os issued before the signal".to_string()
    } else {
        f.verdict.why.clone()
    };
    let _ = writeln!(out, "fidelity: {head}");
    let ms = |ns: u64| format!("{:.3} s", ns as f64 / 1e9);
    match f.intended_ns {
        Some(intended) if interrupted => {
            let _ = writeln!(
                out,
                "  duration     {} of the trace's {}, then interrupted",
                ms(f.elapsed_ns),
                ms(intended)
            );
        }
        Some(intended) => {
            let _ = writeln!(
                out,
                "  duration     {} against the trace's {} ({:+.2}%)",
                ms(f.elapsed_ns),
                ms(intended),
                100.0 * (f.elapsed_ns as f64 - intended as f64) / intended.max(1) as f64
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  duration     {} (as fast as possible)",
                ms(f.elapsed_ns)
            );
        }
    }
    let shown = |v: Option<u64>| v.map_or("-".to_string(), |v| latency(v as f64));
    let _ = writeln!(
        out,
        "  issue lag    p50 {} · p99 {} · max {} · drift {}",
        shown(f.lag.p50_ns),
        shown(f.lag.p99_ns),
        shown(f.lag.max_ns),
        match (f.lag.drift_us_per_s, f.intended_ns) {
            (Some(d), _) => format!("{d:+.2} µs/s"),
            (None, Some(_)) => "- (under 1 s of trace)".to_string(),
            (None, None) => "-".to_string(),
        }
    );
    let _ = writeln!(
        out,
        "  in flight    {} achieved (time-weighted), {}; cap {} reached {:.1}% of the time",
        f.achieved_depth.map_or("-".into(), |d| format!("{d:.2}")),
        f.recorded_depth
            .map_or("the trace records none".into(), |d| format!(
                "{d:.2} recorded"
            )),
        f.depth_cap,
        100.0 * f.at_cap_fraction
    );
    let _ = writeln!(
        out,
        "  order        issued in the trace's order (one issuing thread); {:.2}% completed after a later I/O (RFC 4737)",
        f.completions_reordered_pct
    );
    let _ = writeln!(
        out,
        "  latency      p50 {} · p99 {}",
        shown(f.latency_p50_ns),
        shown(f.latency_p99_ns)
    );
    for count in &f.counts {
        let same = count.trace_ios == count.replay_ios && count.trace_bytes == count.replay_bytes;
        let _ = writeln!(
            out,
            "  {:<12} {} I/Os, {} bytes against the trace's {} and {}{}",
            count.kind,
            count.replay_ios,
            count.replay_bytes,
            count.trace_ios,
            count.trace_bytes,
            match (same, interrupted) {
                (true, _) => " — exact",
                (false, true) => " — interrupted",
                (false, false) => " — DIFFERENT",
            }
        );
    }
    if let Some((at, deviation)) = f.worst_interval {
        let _ = writeln!(
            out,
            "  intervals    {} of {}: the furthest from the trace's I/O count is interval {} at {:+.1}%",
            f.intervals.len(),
            crate::plan::units::format_duration_ns(f.interval_ns),
            at,
            deviation
        );
    }
    out.trim_end().to_string()
}
