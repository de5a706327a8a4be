//! Result files (`iolab report`, `compare`, `--resume`) and their latency
//! histograms: any text is loaded or refused, and what loads can be shown.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = iolab::record::histogram::decode(text);
    if let Ok(result) = iolab::record::write::parse(text, "fuzz.json") {
        let _ = iolab::report::table::render(&result);
        let _ = iolab::report::table::checks(&result);
        let files = [("fuzz.json".to_string(), result)];
        let _ = iolab::report::html::render(&files);
        let _ = iolab::report::export::markdown(&files);
        let _ = iolab::report::export::csv(&files);
    }
});
