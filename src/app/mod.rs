//! The commands: each `iolab` subcommand in its own file under `commands/` (grids in `grid`, guests in `guest`), and what they share — how a command ends (`error`), the session and a point's record (`session`), the per-point driver and its listeners (`driver`), where results go (`output`).
//!
//! Measuring a point, building its record, summarising, checking and writing
//! the result file happen in that order, point by point, so a result file
//! on disk always holds every point finished so far. This file only
//! declares the modules and names the commands for `main`: nothing below
//! it names anything back up here.

pub mod agent;
pub mod commands;
pub(crate) mod distributed;
mod driver;
pub mod error;
pub mod grid;
pub mod guest;
mod guest_host;
mod guest_image;
pub mod help;
mod jobfile;
mod listener;
mod network;
pub(crate) mod output;
mod replay_guest;
pub(crate) mod session;
pub(crate) mod speeds;
mod status;
mod trace_point;

pub use commands::compare::compare;
pub use commands::env::env;
pub use commands::fio::fio;
pub use commands::import::import;
pub use commands::measure::measure;
pub use commands::preset::preset;
pub use commands::quick::quick;
pub use commands::replay::{characterize, replay};
pub use commands::report::report;
pub use commands::run::run;
pub use error::{AppError, Ending};
