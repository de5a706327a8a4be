//! The system tier: root's loop devices and mounts, netlab's servers, MPI, fault injection and timed runs.

#[path = "checks.rs"]
mod checks;
#[path = "devices.rs"]
mod devices;
#[path = "distributed.rs"]
mod distributed;
#[path = "faults.rs"]
mod faults;
#[path = "fio_examples.rs"]
mod fio_examples;
#[path = "iscsi.rs"]
mod iscsi;
#[path = "metadata.rs"]
mod metadata;
#[path = "netlab.rs"]
mod netlab;
#[path = "pacing.rs"]
mod pacing;
#[path = "presets.rs"]
mod presets;
#[path = "priority.rs"]
mod priority;
#[path = "probes.rs"]
mod probes;
#[path = "protocols.rs"]
mod protocols;
#[path = "replay.rs"]
mod replay;
#[path = "trim.rs"]
mod trim;
#[path = "zbd.rs"]
mod zbd;
