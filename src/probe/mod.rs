//! Counters and facts read around a run, never inside its timing loops: CPU usage of the I/O threads, the device stack, diskstats, network, NFS and machine-wide CPU counters, and the environment record.
//!
//! Parsers take text so tests can feed them fixtures; `read` functions read the live files.

pub mod cgroup;
pub mod cpu;
pub mod diskstats;
pub mod environment;
pub mod host;
pub mod memcopy;
pub mod mounts;
pub mod netdev;
pub mod nfs;
pub mod procstat;
pub mod sampler;
pub mod stack;
pub mod virt;
