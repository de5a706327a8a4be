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
    // An included file is a fixed set of options, or itself again (a cycle).
    let given = iolab::import::jobfile::Given {
        file: None,
        length: &|_| Some(1 << 20),
        capacity: &|_| Ok(1 << 20),
        node_cpus: &|node| (node == 0).then(|| "0-1".to_string()),
        options: &[("size", "1048576".to_string())],
        include: &|path| match path.file_name().and_then(|n| n.to_str()) {
            Some("common.fio") => Ok("bs=64k\nrw=randread\n".to_string()),
            Some("self.fio") => Ok("include self.fio\n".to_string()),
            _ => Err("does not exist".to_string()),
        },
    };
    let _ = iolab::import::jobfile::translate(text, "fuzz.fio", facts, &env, given);
});
