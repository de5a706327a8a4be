//! Machine-wide CPU time by state (user, system, iowait, steal…) from the first line of /proc/stat.

/// Cumulative ticks of all CPUs by state, or a difference of two readings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CpuTicks {
    /// Normal user mode.
    pub user: u64,
    /// User mode at low priority.
    pub nice: u64,
    /// Kernel mode.
    pub system: u64,
    /// Idle with no I/O outstanding.
    pub idle: u64,
    /// Idle while I/O was outstanding.
    pub iowait: u64,
    /// Serving hardware interrupts.
    pub irq: u64,
    /// Serving softirqs.
    pub softirq: u64,
    /// Taken by the hypervisor for other guests.
    pub steal: u64,
}

impl CpuTicks {
    /// The change from `earlier`.
    pub fn since(&self, earlier: &CpuTicks) -> CpuTicks {
        let d = |a: u64, b: u64| a.saturating_sub(b);
        CpuTicks {
            user: d(self.user, earlier.user),
            nice: d(self.nice, earlier.nice),
            system: d(self.system, earlier.system),
            idle: d(self.idle, earlier.idle),
            iowait: d(self.iowait, earlier.iowait),
            irq: d(self.irq, earlier.irq),
            softirq: d(self.softirq, earlier.softirq),
            steal: d(self.steal, earlier.steal),
        }
    }

    /// All ticks (guest time is already inside user and nice).
    pub fn total(&self) -> u64 {
        self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal
    }
}

/// Parses the aggregate `cpu` line of /proc/stat; None when absent.
/// Missing trailing columns (kernels before 2.6.11 had no steal) read as zero.
pub fn parse(text: &str) -> Option<CpuTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let numbers: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    let at = |i: usize| numbers.get(i).copied().unwrap_or(0);
    (numbers.len() >= 4).then(|| CpuTicks {
        user: at(0),
        nice: at(1),
        system: at(2),
        idle: at(3),
        iowait: at(4),
        irq: at(5),
        softirq: at(6),
        steal: at(7),
    })
}

/// Reads /proc/stat now.
pub fn read() -> Option<CpuTicks> {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|text| parse(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "\
cpu  10132153 290696 3084719 46828483 16683 0 25195 175628 0 0
cpu0 1393280 32966 572056 13343292 6130 0 17875 0 0 0
intr 1462898 0 0
ctxt 28012\n";

    #[test]
    fn aggregate_line_parses() {
        let ticks = parse(STAT).unwrap();
        assert_eq!(ticks.user, 10_132_153);
        assert_eq!(ticks.iowait, 16_683);
        assert_eq!(ticks.steal, 175_628);
        assert_eq!(
            ticks.total(),
            10_132_153 + 290_696 + 3_084_719 + 46_828_483 + 16_683 + 25_195 + 175_628
        );
    }

    #[test]
    fn old_kernels_without_steal_parse() {
        let ticks = parse("cpu 1 2 3 4 5\n").unwrap();
        assert_eq!((ticks.iowait, ticks.steal), (5, 0));
        assert!(parse("cpu0 1 2 3 4\n").is_none());
    }
}
