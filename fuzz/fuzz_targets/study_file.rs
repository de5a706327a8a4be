//! Study files (`iolab study`): any text is planned or refused with a message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = Path::new("fuzz.toml");
    if let Ok((study, text)) = iolab::plan::study::Study::parse(text, source) {
        let _ = study.plan(&iolab::plan::default_workload(), &text, source);
    }
});
