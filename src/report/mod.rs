//! Output for people: terminal tables with labelled units, and the checks beneath them.

pub mod table;
pub mod units;
