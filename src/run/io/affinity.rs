//! CPU affinity of the I/O threads (`--cpus`): the CPUs this process may use, and pinning the calling thread to a set.

use crate::plan::{CpuSet, PlannedPoint, UsageError};
use crate::usage;
use std::io;

/// The CPUs this process may run on (its affinity mask: taskset, cgroups'
/// cpusets and containers narrow it).
pub fn offered() -> io::Result<CpuSet> {
    let mask = rustix::thread::sched_getaffinity(None)?;
    let limit = crate::plan::cpus::MAX_CPUS.min(rustix::thread::CpuSet::MAX_CPU);
    CpuSet::from_cpus((0..limit).filter(|cpu| mask.is_set(*cpu)))
        .ok_or_else(|| io::Error::other("the process may run on no CPU"))
}

/// Restricts the calling thread to `cpus` (every thread of a job set may
/// use every CPU of it, as fio's cpus_allowed_policy=shared).
pub fn pin(cpus: &CpuSet) -> io::Result<()> {
    let mut mask = rustix::thread::CpuSet::new();
    for cpu in cpus.cpus() {
        if cpu >= rustix::thread::CpuSet::MAX_CPU {
            return Err(io::Error::other(format!(
                "CPU {cpu} is beyond the {} CPUs an affinity mask holds",
                rustix::thread::CpuSet::MAX_CPU
            )));
        }
        mask.set(cpu);
    }
    rustix::thread::sched_setaffinity(None, &mask)
        .map_err(|e| io::Error::other(format!("cannot pin the job to CPUs {cpus}: {e}")))
}

/// Refuses, before anything is created, a point whose `--cpus` names a CPU
/// this process may not run on.
pub fn check_points(points: &[PlannedPoint]) -> Result<(), UsageError> {
    let Some(asked) = points.iter().find_map(|p| p.workload().cpus) else {
        return Ok(());
    };
    let offered = offered().map_err(|e| usage!("--cpus {asked}: {e}"))?;
    for point in points {
        if let Some(cpus) = point.workload().cpus {
            if let Some(missing) = cpus.cpus().find(|cpu| !offered.contains(*cpu)) {
                return Err(usage!(
                    "--cpus {cpus}: CPU {missing} is not one this process may run on ({offered})"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_runs_on_its_set_alone_and_others_are_untouched() {
        let offered = offered().unwrap();
        let last = offered.cpus().last().unwrap();
        let one = CpuSet::from_cpus([last]).unwrap();
        let (mask, running_on) = std::thread::spawn(move || {
            pin(&one).unwrap();
            (super::offered().unwrap(), rustix::thread::sched_getcpu())
        })
        .join()
        .unwrap();
        assert_eq!((mask, running_on), (one, last));
        assert_eq!(super::offered().unwrap(), offered);
    }

    #[test]
    fn a_cpu_not_offered_is_refused_naming_it() {
        let beyond = crate::plan::cpus::MAX_CPUS - 1;
        let mut workload = crate::plan::default_workload();
        workload.cpus = CpuSet::from_cpus([beyond]);
        let points = [PlannedPoint::alone("p".to_string(), workload)];
        let error = check_points(&points).unwrap_err().to_string();
        assert!(
            error.contains(&format!("CPU {beyond} is not one")),
            "{error}"
        );
    }
}
