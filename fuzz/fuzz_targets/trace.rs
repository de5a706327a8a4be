//! Block traces (`iolab replay`, `iolab characterize`): any bytes, read as each format iolab knows, are I/Os or one refusal, never a panic.
#![no_main]

include!("../bodies.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| trace(data));
