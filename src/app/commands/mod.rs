//! One file per `iolab` subcommand that is not a grid (`app::grid`) or a guest's (`app::guest`): each parses nothing (clap did), checks what it was given, and drives the measurement or the output through the modules beside `commands/`.

pub mod compare;
pub mod env;
pub mod fio;
pub mod import;
pub mod measure;
pub mod preset;
pub mod quick;
pub mod replay;
pub mod report;
pub mod run;
