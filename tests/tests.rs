//! Integration tests: they drive the `iolab` binary as a user would.
//! All modules compile into this one test binary; helpers live in `util`,
//! real mounts for root tests in `mounts`, the NFS/iSCSI lab in `lab`.

mod lab;
mod mounts;
mod util;

mod bad_input;
mod block_sizes;
mod checks;
mod compare;
mod devices;
mod distributed;
mod distributed_guest;
mod engines;
mod faults;
mod fuzz_seeds;
mod groups;
mod guest_stacks;
mod guests;
mod hostile_traces;
mod import;
mod iscsi;
mod jobfiles;
mod latency_target;
mod layering;
mod metadata;
mod netlab;
mod pacing;
mod presets;
mod priority;
mod probes;
mod protocols;
mod quick;
mod replay;
mod report;
mod run_options;
mod sweeps;
mod trim;
mod ui;
mod verify;
mod workloads;
