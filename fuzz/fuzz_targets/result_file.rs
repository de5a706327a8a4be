//! Result files (`iolab report`, `compare`, `--resume`) and their latency
//! histograms: any text is loaded or refused, and what loads can be shown.
#![no_main]

include!("../bodies.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| result_file(data));
