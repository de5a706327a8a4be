//! What follows a plan's points as the driver measures them (the status line, the bar, the journal, the result writer, the presenter): a leaf, so that the driver and each listener name it and not each other.

use super::error::AppError;
use crate::plan::PlannedPoint;
use crate::record::{Point, ResultFile};

/// Something that follows the points as they are measured. Listeners are
/// called in the order given, on rank 0 only for `recorded` and `kept`.
pub(crate) trait Listener {
    /// Before point `index` is measured.
    fn starting(&mut self, _index: usize, _planned: &PlannedPoint) {}
    /// Runs `show`, which writes to stderr, so that it does not tear what
    /// this listener draws (the progress bar hides itself meanwhile).
    fn around(&self, show: &mut dyn FnMut()) {
        show()
    }
    /// Point `index` was measured and recorded, before it joins the result;
    /// `finished` is false when it failed or was interrupted.
    fn recorded(&mut self, _index: usize, _point: &Point, _finished: bool) -> Result<(), AppError> {
        Ok(())
    }
    /// The result holds the point now (and the checks across points ran).
    fn kept(&mut self, _result: &ResultFile) -> Result<(), AppError> {
        Ok(())
    }
    /// The points are over, measured or not.
    fn stopped(&mut self) {}
    /// The result is final (on the rank that speaks): [`finish`] passes it
    /// to every listener in order, after the caller completed it.
    fn finished(&mut self, _result: &ResultFile) -> Result<(), AppError> {
        Ok(())
    }
}
