//! fio job files (`iolab run JOB.fio`): any text is translated into phases of groups or refused with a message, and what is translated prints as a study file that plans.
#![no_main]

include!("../bodies.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| fio_job_file(data));
