//! Placement of the I/O threads: their CPUs (`--cpus`: the CPUs this process may use, and pinning the calling thread to a set) and their buffers' NUMA nodes (`--mem-policy`, with `mbind(2)`).

use crate::plan::{CpuSet, MemPolicy, PlannedPoint, UsageError};
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

/// Places `buffer`'s pages by `policy` (moving those already touched), as
/// fio's numa_mem_policy places a job's buffers: called by the job's
/// thread before its first I/O.
pub fn place(buffer: &mut [u8], policy: MemPolicy) -> io::Result<()> {
    // <linux/mempolicy.h>
    const MPOL_DEFAULT: i32 = 0;
    const MPOL_PREFERRED: i32 = 1;
    const MPOL_BIND: i32 = 2;
    const MPOL_INTERLEAVE: i32 = 3;
    const MPOL_LOCAL: i32 = 4;
    const MPOL_MF_MOVE: u32 = 1 << 1;
    let mode = match policy {
        MemPolicy::Default => MPOL_DEFAULT,
        MemPolicy::Local => MPOL_LOCAL,
        MemPolicy::Prefer(_) => MPOL_PREFERRED,
        MemPolicy::Bind(_) => MPOL_BIND,
        MemPolicy::Interleave(_) => MPOL_INTERLEAVE,
    };
    let mut mask = [0u64; crate::plan::cpus::MAX_CPUS / 64];
    let nodes = policy.nodes();
    for node in nodes.iter().flat_map(CpuSet::cpus) {
        mask[node / 64] |= 1 << (node % 64);
    }
    // mbind takes whole pages: those the buffer lies on.
    let page = rustix::param::page_size();
    let start = buffer.as_mut_ptr() as usize;
    let first = start - start % page;
    let len = (start + buffer.len()).next_multiple_of(page) - first;
    let (mask_ptr, max_node) = match nodes {
        // The kernel reads one bit fewer than it is told (get_nodes).
        Some(_) => (mask.as_ptr(), (mask.len() * 64 + 1) as u64),
        None => (std::ptr::null(), 0),
    };
    // SAFETY: the range is the pages of memory this job owns; mbind only
    // changes where they live, never their contents.
    let status = unsafe {
        libc::syscall(
            libc::SYS_mbind,
            first,
            len,
            mode,
            mask_ptr,
            max_node,
            MPOL_MF_MOVE,
        )
    };
    if status != 0 {
        let error = io::Error::last_os_error();
        return Err(io::Error::new(
            error.kind(),
            format!("cannot place the job's buffers ({policy}): {error}"),
        ));
    }
    Ok(())
}

/// Refuses, before anything is created, a point on this machine whose
/// `--cpus` names a CPU this process may not run on, or whose
/// `--mem-policy` a NUMA node this machine does not have (a guest's points
/// are its own: the guest runs them on its CPUs and nodes).
pub fn check_points(points: &[PlannedPoint]) -> Result<(), UsageError> {
    // A guest's points run on its own CPUs and nodes, not this machine's.
    let here = || {
        points
            .iter()
            .flat_map(|p| p.workloads())
            .filter(|w| w.machine != crate::plan::Machine::Guest)
    };
    for policy in here().filter_map(|w| w.mem_policy) {
        if let Some(node) = policy.nodes().and_then(|nodes| {
            nodes
                .cpus()
                .find(|n| crate::probe::host::numa_node_cpus(*n).is_none())
        }) {
            return Err(usage!(
                "--mem-policy {policy}: this machine has no NUMA node {node}"
            ));
        }
    }
    let Some(asked) = here().find_map(|w| w.cpus) else {
        return Ok(());
    };
    let offered = offered().map_err(|e| usage!("--cpus {asked}: {e}"))?;
    for workload in here() {
        if let Some(cpus) = workload.cpus {
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
        // A guest's point runs on the guest's CPUs: not checked against these.
        let mut guest = points[0].clone();
        guest.set_machine(crate::plan::Machine::Guest);
        check_points(&[guest]).unwrap();
    }
}
