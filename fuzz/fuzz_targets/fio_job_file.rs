//! fio job files (`iolab run JOB.fio`): any text is translated into phases of groups or refused with a message, and what is translated prints as a study file that plans.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let facts = iolab::import::jobfile::Facts {
        ncpus: 2,
        mb_memory: 4096,
        pagesize: 4096,
    };
    let env = |name: &str| (name == "SIZE").then(|| "1m".to_string());
    let given = iolab::import::jobfile::Given {
        file: None,
        length: &|_| Some(1 << 20),
    };
    let _ = iolab::import::jobfile::translate(text, "fuzz.fio", facts, &env, given);
});
