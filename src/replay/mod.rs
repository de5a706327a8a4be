//! `iolab replay`'s side of trace replay: the target a trace is replayed onto — a file iolab creates (locally or in a network session's space), the user's file or device, or a session's LUN — which the runner's replay loop (`run::io::replay`, also a trace job's work) issues onto.
//!
//! One thread issues every I/O in the trace's order (so no I/O is issued
//! out of order) and reaps completions: through io_uring or libaio up to
//! the depth cap, with `pread`/`pwrite` one at a time, or on the null
//! engine (no I/O: the replayer's own timing). The trace is streamed
//! twice — checked whole first, then replayed — so nothing is written
//! before a bad trace is refused.

mod target;

pub use crate::run::io::replay::{
    Fit, LARGEST_IO, ReplayOptions, Replayed, check_speed, created_length, fidelity, replay,
};
pub use target::{Released, Target, TargetChoice, TargetError};
