//! The `iolab quick` suite: the four classic desktop-benchmark tests at two queue depths.

use super::{EngineKind, Op, Pattern, PlannedPoint, Workload};

/// How the quick suite may bypass the page cache on the target file system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DirectSupport {
    /// O_DIRECT is accepted and reaches the device.
    Honoured,
    /// O_DIRECT is refused, or accepted without bypassing memory (tmpfs):
    /// the suite runs buffered with an fsync inside the timed region.
    Unavailable,
}

/// Settings of the quick suite a user may change.
#[derive(Clone, Copy, Debug)]
pub struct QuickSettings {
    /// File size, bytes.
    pub size: u64,
    /// Seconds each test runs.
    pub runtime_s: f64,
    /// Seconds of unmeasured I/O before each test.
    pub ramp_s: f64,
    /// Seed of random offsets and data.
    pub seed: u64,
}

/// The quick suite's four tests, in the order a desktop benchmark shows them.
pub const TESTS: [&str; 4] = ["SEQ1M Q8", "SEQ1M Q1", "RND4K Q32", "RND4K Q1"];

/// A quick point's test and direction (`SEQ1M Q8 read` → (`SEQ1M Q8`,
/// `read`)), or `None` for a label of another kind.
pub fn test_of(label: &str) -> Option<(&'static str, &str)> {
    let (test, verb) = label.rsplit_once(' ')?;
    let test = TESTS.iter().find(|t| **t == test)?;
    matches!(verb, "read" | "write").then_some((test, verb))
}

/// The eight quick tests: sequential 1 MiB and random 4 KiB, read and write,
/// each at io_uring depth (8 for sequential, 32 for random) and at psync QD1.
pub fn quick_points(settings: QuickSettings, direct: DirectSupport) -> Vec<PlannedPoint> {
    let tests = [
        ("SEQ1M Q8", Pattern::Seq, 1 << 20, EngineKind::Uring, 8),
        ("SEQ1M Q1", Pattern::Seq, 1 << 20, EngineKind::Psync, 1),
        ("RND4K Q32", Pattern::Random, 4096, EngineKind::Uring, 32),
        ("RND4K Q1", Pattern::Random, 4096, EngineKind::Psync, 1),
    ];
    let buffered = direct == DirectSupport::Unavailable;
    let mut points = Vec::new();
    for op in [Op::Read, Op::Rewrite] {
        for (name, pattern, bs, engine, iodepth) in tests {
            let workload = Workload {
                op,
                pattern,
                bs,
                size: settings.size,
                engine,
                iodepth,
                direct: !buffered,
                fsync_end: buffered && op.writes(),
                runtime_s: Some(settings.runtime_s),
                ramp_s: settings.ramp_s,
                seed: settings.seed,
                ..super::default_workload()
            };
            let verb = if op.writes() { "write" } else { "read" };
            points.push(PlannedPoint::alone(format!("{name} {verb}"), workload));
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> QuickSettings {
        QuickSettings {
            size: 64 << 20,
            runtime_s: 5.0,
            ramp_s: 0.5,
            seed: 1,
        }
    }

    #[test]
    fn the_suite_has_eight_valid_points() {
        let points = quick_points(settings(), DirectSupport::Honoured);
        assert_eq!(points.len(), 8);
        for point in &points {
            point.workload().validate().unwrap();
            assert!(point.workload().direct);
            assert!(!point.workload().fsync_end);
        }
    }

    #[test]
    fn without_direct_writes_end_with_fsync() {
        for point in quick_points(settings(), DirectSupport::Unavailable) {
            assert!(!point.workload().direct);
            assert_eq!(point.workload().fsync_end, point.workload().op.writes());
        }
    }
}
