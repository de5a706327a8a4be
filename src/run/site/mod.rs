//! A group's site: its files (made, kept or given) and their layout, the
//! cache treated and checked around them, or a metadata workload's tree.

pub mod cache;
pub(crate) mod files;
pub mod prepare;
pub mod tree;
