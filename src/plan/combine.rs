//! What a point may combine with what it works on: the parameters, engines and cache a trace point takes ([`check_trace`]); groups have theirs in `group.rs`.

use super::param::Param;
use super::{CacheMode, Workload, default_workload};

/// The parameters a trace point takes besides its trace: the replay's
/// engine, depth cap and O_DIRECT, and how its repetitions are taken. Each
/// other one is the trace's to say (sizes, offsets, directions, times) and
/// refused when given.
pub const TRACE_TAKES: [Param; 6] = [
    Param::Trace,
    Param::TraceSpeed,
    Param::Engine,
    Param::Iodepth,
    Param::Direct,
    Param::Cache,
];

/// Refuses what a trace point cannot do: a parameter the trace decides, an
/// engine the replayer does not drive, a cache treatment other than cold
/// (the file is laid out, synced and evicted before every replay), and
/// what changes drawn I/O, which a trace does not draw.
pub fn check_trace(workload: &Workload) -> Result<(), String> {
    let Some(trace) = workload.trace else {
        if !workload.trace_speed.is_one() {
            return Err(format!(
                "--trace-speed {} needs --trace: it scales a trace's times",
                workload.trace_speed
            ));
        }
        return Ok(());
    };
    if workload.machine == super::Machine::Guest {
        return Err(format!(
            "--trace {trace} with --machine guest: iolab replay {trace} --guest KEYS replays a trace in a guest"
        ));
    }
    let defaults = default_workload();
    if let Some(param) = Param::ALL
        .iter()
        .filter(|p| !TRACE_TAKES.contains(p))
        .find(|p| p.value_in(workload) != p.value_in(&defaults))
    {
        return Err(format!(
            "--{} does nothing with --trace {trace}: the trace gives each I/O's kind, offset, size and time (a trace point takes --trace-speed, --engine, --iodepth and --direct)",
            param.name()
        ));
    }
    // A trace point replays onto a file it makes: no network client.
    let engine = workload.engine.capabilities();
    if !engine.replays_trace || engine.network.is_some() {
        return Err(format!(
            "--engine {} does not replay a trace: give uring or libaio (up to --iodepth in flight), psync or null; iolab replay --target reaches NFS and iSCSI",
            workload.engine.name()
        ));
    }
    if workload.cache != CacheMode::Cold {
        return Err(format!(
            "--cache {} with --trace: the trace's file is laid out and evicted before every replay (cold)",
            format!("{:?}", workload.cache).to_lowercase()
        ));
    }
    if workload.verify
        || workload.steady.is_some()
        || workload.latency_target.is_some()
        || workload.priority.is_some()
    {
        return Err(format!(
            "--trace {trace} replays the trace as it is: --verify, --steady, --latency-target and --priority are for drawn I/O (--repeat and --until-ci take replays)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{EngineKind, TraceSpeed};
    use super::*;

    #[test]
    fn a_trace_point_refuses_what_the_trace_decides() {
        let mut workload = default_workload();
        workload.trace = Some("t.iolog".parse().unwrap());
        workload.engine = EngineKind::Uring;
        workload.iodepth = 8;
        assert_eq!(check_trace(&workload), Ok(()));
        workload.bs = 65536;
        let refused = check_trace(&workload).unwrap_err();
        assert!(
            refused.starts_with("--bs does nothing with --trace"),
            "{refused}"
        );
        workload.bs = default_workload().bs;
        workload.engine = EngineKind::Mmap;
        assert!(
            check_trace(&workload)
                .unwrap_err()
                .contains("--engine mmap")
        );
        let mut plain = default_workload();
        plain.trace_speed = TraceSpeed::Afap;
        assert!(check_trace(&plain).unwrap_err().contains("needs --trace"));
    }
}
