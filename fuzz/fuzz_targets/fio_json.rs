//! fio's JSON output (`iolab import`): any text is imported or refused, never a panic.
#![no_main]

include!("../bodies.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| fio_json(data));
