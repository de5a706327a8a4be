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
        let narrow = iolab::report::screen::Screen { width: Some(40) };
        let _ = iolab::report::table::render(&result, narrow, false);
        let _ = iolab::report::table::render(&result, narrow, true);
        let _ = iolab::report::table::checks(&result);
        use iolab::report::render::*;
        use iolab::report::view::ReportView;
        let view = ReportView::new(vec![("fuzz.json", &result)], 0.05, true);
        let _ = Terminal { screen: narrow }.render(&view);
        let _ = Json.render(&view);
        let _ = Markdown.render(&view);
        let _ = Csv.render(&view);
        let _ = StudyCsv.render(&view);
        let _ = Html.render(&view);
    }
});
