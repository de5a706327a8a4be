//! The fast tier: no root lab, guest, MPI, loop device or mount, nor seconds of timed runs — the inner loop (`scripts/test fast`).

#[path = "bad_input.rs"]
mod bad_input;
#[path = "block_sizes.rs"]
mod block_sizes;
#[path = "compare.rs"]
mod compare;
#[path = "engines.rs"]
mod engines;
#[path = "fio_command_line.rs"]
pub(crate) mod fio_command_line;
#[path = "fuzz_seeds.rs"]
mod fuzz_seeds;
#[path = "groups.rs"]
pub(crate) mod groups;
#[path = "hostile_traces.rs"]
mod hostile_traces;
#[path = "import.rs"]
pub(crate) mod import;
#[path = "jobfiles.rs"]
pub(crate) mod jobfiles;
#[path = "latency_target.rs"]
mod latency_target;
#[path = "layering.rs"]
mod layering;
#[path = "quick.rs"]
mod quick;
#[path = "report.rs"]
pub(crate) mod report;
#[path = "run_options.rs"]
mod run_options;
#[path = "sweeps.rs"]
mod sweeps;
#[path = "ui.rs"]
pub(crate) mod ui;
#[path = "verify.rs"]
mod verify;
#[path = "workloads.rs"]
mod workloads;
