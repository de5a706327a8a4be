//! iolab: a command-line laboratory for storage I/O experiments on Linux.
//!
//! One pipeline, left to right: [`cli`] and [`plan`] describe what to
//! measure; [`run`] (with [`engine`] and [`probe`]) measures it; [`record`]
//! holds the result file format; [`stats`] and [`check`] analyse; [`report`]
//! presents. [`app`] drives that pipeline for each subcommand. Nothing on the
//! right is imported by anything on its left. See docs/ARCHITECTURE.md.

pub mod app;
pub mod cache;
pub mod check;
pub mod cli;
pub mod clock;
pub mod cluster;
pub mod command;
pub mod compare;
pub mod console;
pub mod engine;
pub mod gather;
pub mod guest;
pub mod import;
pub mod input;
pub mod net;
pub mod owner;
pub mod plan;
pub mod preset;
pub mod probe;
pub mod record;
pub mod replay;
pub mod report;
pub mod run;
pub mod stats;
pub mod trace;
