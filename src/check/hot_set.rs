//! The hot set a pattern that draws blocks independently really touched, and how much of the reading the page cache served meanwhile.

use super::Findings;
use super::device::totals;
use crate::plan::direction::Direction;
use crate::plan::units::human_size as bytes;
use crate::record::{Point, Severity};

/// From this share of the blocks on, the working set is the file.
const WHOLE_FILE: f64 = 0.99;

/// Says which share of the blocks the measured repetitions touched (their
/// mean), and for buffered reads the least share of the bytes read that
/// the page cache served: the application's reads the least-moving device
/// layer did not carry. Read-ahead only adds device reads, so this bounds
/// the hit ratio from below.
pub(super) fn checks(
    point: &Point,
    storage: Option<&crate::record::environment::Storage>,
    found: &mut Findings,
) {
    let touched: Vec<_> = point.measured().filter_map(|r| r.coverage).collect();
    let Some(first) = touched.first() else {
        return;
    };
    let mean = touched.iter().map(|c| c.fraction).sum::<f64>() / touched.len() as f64;
    let mut evidence = format!(
        "{:.1}% of the blocks ({} of {} in the first measured repetition)",
        mean * 100.0,
        first.blocks_touched,
        first.blocks
    );
    let workload = &point.workload;
    let mut message = format!("the I/Os touched {:.1}% of the file's blocks", mean * 100.0);
    if mean < WHOLE_FILE {
        message.push_str(": the working set is that hot set, not the file");
    }
    if !workload.direct && workload.op.reads() {
        if let Some((app, device, name)) = totals(point, storage, &[Direction::Read]) {
            if app > 0 {
                let served = 1.0 - (device as f64 / app as f64).min(1.0);
                message.push_str(&format!(
                    "; the page cache served at least {:.1}% of the bytes read",
                    served * 100.0
                ));
                evidence.push_str(&format!(
                    "; the application read {}, {name} read {}",
                    bytes(app),
                    bytes(device)
                ));
            }
        }
    }
    found.add("hot-set", Severity::Info, message, evidence);
}
