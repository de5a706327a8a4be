//! Counters read around a run: CPU usage of the I/O threads and the host's identity.
//!
//! Device, network and environment probes (issue 4) will live here too; the
//! runner only calls into this module at repetition boundaries, never per I/O.

pub mod cpu;
pub mod host;
