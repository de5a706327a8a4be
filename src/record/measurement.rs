//! The measured-command part of the file format (`iolab measure`): a command's runs, wall times, exit statuses and the activity around them.

use super::Stat;
use super::activity::{Activity, DeviceActivity};
use serde::{Deserialize, Serialize};

/// One command measured one or more times.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Measurement {
    /// A label naming it in tables and charts (`--label`, else the command line).
    pub label: String,
    /// The command and its arguments.
    pub command: Vec<String>,
    /// The path whose storage stack was watched.
    pub path: String,
    /// Each run, in order.
    pub runs: Vec<CommandRun>,
    /// Wall time over the runs that exited with status 0, s; absent when none did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub wall_s: Option<Stat>,
}

/// One run of the command.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandRun {
    /// 0-based run number.
    pub index: u32,
    /// The exit status, when it exited.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub exit_code: Option<i32>,
    /// The signal that killed it, when one did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub signal: Option<i32>,
    /// From start to exit, ns.
    pub wall_ns: u64,
    /// CPU seconds the command and its waited-for children spent in user mode.
    pub user_s: f64,
    /// CPU seconds they spent in the kernel.
    pub system_s: f64,
    /// Largest resident set of the command or one of its children, bytes.
    pub max_rss_bytes: u64,
    /// What the devices, network and CPUs did while it ran.
    pub activity: Activity,
    /// Device figures per interval while it ran.
    pub series: Vec<CommandInterval>,
}

/// One interval of a measured command's run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandInterval {
    /// Interval start, seconds after the run started.
    pub start_s: f64,
    /// The stack's devices over the interval.
    pub devices: Vec<DeviceActivity>,
}

/// The record of one run from what the runner measured.
pub fn command_run(index: u32, outcome: &crate::run::command::CommandOutcome) -> CommandRun {
    use super::activity::{AppWork, activity, devices};
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
        activity: activity(samples, AppWork::default()),
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
