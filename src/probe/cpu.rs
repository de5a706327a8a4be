//! CPU time, context switches and page faults of the calling thread (getrusage RUSAGE_THREAD).

use std::ops::{Add, Sub};

/// A thread's resource usage counters at one instant, or a difference of two.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CpuUsage {
    /// CPU seconds of the thread, exact (CLOCK_THREAD_CPUTIME_ID); the user and
    /// system split below comes from getrusage and is sampled at scheduler ticks.
    pub total_s: f64,
    /// Seconds spent in user mode.
    pub user_s: f64,
    /// Seconds spent in the kernel.
    pub system_s: f64,
    /// Voluntary context switches (mostly waits for I/O).
    pub voluntary_switches: u64,
    /// Involuntary context switches (preemptions).
    pub involuntary_switches: u64,
    /// Page faults served without I/O.
    pub minor_faults: u64,
    /// Page faults that needed I/O.
    pub major_faults: u64,
}

impl CpuUsage {
    /// The calling thread's counters now.
    pub fn of_this_thread() -> CpuUsage {
        // SAFETY: getrusage writes a plain struct; RUSAGE_THREAD is missing from rustix.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `usage` is a valid out-pointer.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) } != 0 {
            return CpuUsage::default();
        }
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        // libc's clock_gettime rather than rustix's: rustix finds the vDSO by
        // parsing the auxiliary vector itself, which crashes under valgrind.
        // SAFETY: a plain out-pointer for clock_gettime.
        let mut cputime: libc::timespec = unsafe { std::mem::zeroed() };
        // SAFETY: `cputime` is a valid out-pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut cputime) };
        CpuUsage {
            total_s: cputime.tv_sec as f64 + cputime.tv_nsec as f64 * 1e-9,
            user_s: seconds(usage.ru_utime),
            system_s: seconds(usage.ru_stime),
            voluntary_switches: usage.ru_nvcsw as u64,
            involuntary_switches: usage.ru_nivcsw as u64,
            minor_faults: usage.ru_minflt as u64,
            major_faults: usage.ru_majflt as u64,
        }
    }
}

impl Sub for CpuUsage {
    type Output = CpuUsage;
    fn sub(self, earlier: CpuUsage) -> CpuUsage {
        CpuUsage {
            total_s: (self.total_s - earlier.total_s).max(0.0),
            user_s: (self.user_s - earlier.user_s).max(0.0),
            system_s: (self.system_s - earlier.system_s).max(0.0),
            voluntary_switches: self
                .voluntary_switches
                .saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self
                .involuntary_switches
                .saturating_sub(earlier.involuntary_switches),
            minor_faults: self.minor_faults.saturating_sub(earlier.minor_faults),
            major_faults: self.major_faults.saturating_sub(earlier.major_faults),
        }
    }
}

impl Add for CpuUsage {
    type Output = CpuUsage;
    fn add(self, other: CpuUsage) -> CpuUsage {
        CpuUsage {
            total_s: self.total_s + other.total_s,
            user_s: self.user_s + other.user_s,
            system_s: self.system_s + other.system_s,
            voluntary_switches: self.voluntary_switches + other.voluntary_switches,
            involuntary_switches: self.involuntary_switches + other.involuntary_switches,
            minor_faults: self.minor_faults + other.minor_faults,
            major_faults: self.major_faults + other.major_faults,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // No timing thresholds: a loaded machine may preempt the thread at any
    // moment. What must hold: CPU time grows while computing, never exceeds
    // wall time, and does not grow while sleeping.
    #[test]
    fn computing_counts_and_sleeping_does_not() {
        let before = CpuUsage::of_this_thread();
        let start = std::time::Instant::now();
        let mut x = 1u64;
        while (CpuUsage::of_this_thread() - before).total_s < 0.03 {
            x = std::hint::black_box(x.wrapping_mul(3).wrapping_add(1));
            assert!(start.elapsed().as_secs() < 60, "CPU time never grew");
        }
        let used = CpuUsage::of_this_thread() - before;
        assert!(
            used.total_s <= start.elapsed().as_secs_f64() + 1e-3,
            "{used:?}"
        );

        let before = CpuUsage::of_this_thread();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let slept = CpuUsage::of_this_thread() - before;
        assert!(slept.total_s < 0.01, "{slept:?}");
        assert!(
            slept.voluntary_switches >= 1,
            "sleeping gives up the CPU: {slept:?}"
        );
    }
}
