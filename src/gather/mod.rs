//! Gathering: turning what `run` measured and `probe` sampled into the result file's records (`record`).
//!
//! `record` is the file format alone, serde structs and the journal; the
//! computation of each record from outcomes and samples lives here, so the
//! format depends on nothing that measures.

pub mod activity;
pub mod build;
pub mod distributed;
pub mod environment;
pub mod measurement;
pub mod priorities;
pub mod series;
