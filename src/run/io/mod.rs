//! The hot path: one repetition's jobs on their threads, released together,
//! the loops that issue and check every I/O, and what they record.

pub mod affinity;
pub mod buffer;
pub mod calls;
pub mod client;
pub mod coverage;
pub(crate) mod depth_search;
mod draws;
pub(crate) mod flow;
pub mod gate;
pub(crate) mod jobs;
pub mod kept;
pub mod live;
pub mod open;
pub(crate) mod pacer;
pub mod priority;
pub mod queued;
pub mod recorder;
pub mod replay;
pub mod spec;
pub mod steady_stop;
pub(crate) mod stops;
pub mod timing;
pub mod traffic;
pub mod verify;
pub(crate) mod zones;
