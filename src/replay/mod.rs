//! Trace replay: each I/O of a trace issued at its time (scaled by a speed, or as fast as possible with the order kept) onto a file iolab creates or a user's file, the depth capped, each I/O's intended and actual issue time kept for its fidelity.
//!
//! One thread issues every I/O in the trace's order (so no I/O is issued
//! out of order) and reaps completions: through io_uring up to the depth
//! cap, with `pread`/`pwrite` one at a time, or on the null engine (no
//! I/O: the replayer's own timing). An I/O is due at its trace time
//! divided by the speed, from the replay's start; its lag is how late it
//! was issued. The trace is streamed twice — checked whole first, then
//! replayed — so nothing is written before a bad trace is refused.

pub mod fidelity;

/// The largest I/O a replay issues, bytes: blktrace's events carry up to
/// 4 GiB, and each slot under the depth cap holds a buffer of the trace's
/// largest I/O.
pub const LARGEST_IO: u64 = 16 << 20;

mod player;
mod target;

pub use player::{Fit, ReplayOptions, Replayed, check_speed, replay};
pub use target::{Released, Target, TargetChoice, TargetError, created_length};
