//! Study files (`iolab study`): any text is planned or refused with a message.
#![no_main]

include!("../bodies.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| study_file(data));
