//! Turning a measured command's outcome into its record: wall time, resources, /proc/PID/io and what the stack did.

use crate::record::measurement::*;

/// What the command did in the direction its storage moved more bytes
/// ([`crate::record::activity::top_layer_writes`]).
fn app_work(
    samples: &crate::probe::sampler::Samples,
    io: Option<ProcessIo>,
) -> crate::record::activity::AppWork {
    use crate::gather::activity::devices;
    use crate::record::activity::{AppWork, top_layer_writes};
    let Some(io) = io else {
        return AppWork::default();
    };
    let plain = devices(
        &samples.disks,
        &samples.start,
        &samples.end,
        AppWork::default(),
    );
    io.work(top_layer_writes(&plain))
}

/// The record of one run from what the runner measured.
pub fn command_run(index: u32, outcome: &crate::command::CommandOutcome) -> CommandRun {
    use crate::gather::activity::{activity, devices};
    use crate::record::activity::AppWork;
    let samples = &outcome.samples;
    // The sampler's interval, doubled if a long run's series was coarsened.
    let interval_s = samples.interval_ns as f64 * 1e-9;
    CommandRun {
        index,
        exit_code: outcome.exit_code,
        signal: outcome.signal,
        wall_ns: outcome.wall_ns,
        user_s: outcome.user_s,
        system_s: outcome.system_s,
        max_rss_bytes: outcome.max_rss_bytes,
        process_io: outcome.process_io,
        activity: activity(samples, app_work(samples, outcome.process_io)),
        series: samples
            .intervals()
            .into_iter()
            .enumerate()
            .map(|(i, (from, to))| CommandInterval {
                start_s: i as f64 * interval_s,
                devices: devices(&samples.disks, from, to, AppWork::default()),
            })
            .collect(),
    }
}
