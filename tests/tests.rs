//! Integration tests: they drive the `iolab` binary as a user would.
//! All modules compile into this one test binary; helpers live in `util`.

mod util;

mod bad_input;
mod engines;
mod faults;
mod quick;
mod run_options;
