//! `iolab-spawn`: the small process `iolab measure` starts its command from,
//! so that the command's peak RSS is its own (see `iolab::command::spawn`).
//! Not meant to be run by hand: it expects the report descriptor iolab gives it.

fn main() -> std::process::ExitCode {
    match iolab::command::spawn::run_if_helper() {
        Some(status) => std::process::ExitCode::from(status),
        None => {
            eprintln!("iolab-spawn: started by `iolab measure` only");
            std::process::ExitCode::from(2)
        }
    }
}
