//! Output for people: terminal tables with labelled units, the checks beneath them, the detail view of device, network and CPU activity, and the environment.

pub mod activity;
pub mod checks_summary;
pub mod compare;
pub mod distributed;
pub mod environment;
pub mod escape;
pub mod export;
pub mod fio_json;
pub mod fio_text;
pub mod html;
pub mod measurement;
pub mod pacing;
pub mod percentiles;
pub mod render;
pub mod replay;
pub mod screen;
pub mod studies;
pub mod svg;
pub mod table;
pub mod text_table;
pub mod units;
pub mod view;
