//! fio's JSON output (`iolab import`): any text is imported or refused, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(imported) = iolab::import::fio(text, std::path::Path::new("fuzz.json"), Vec::new()) {
        // What an import produces must also survive being shown.
        use iolab::report::render::{Html, Render};
        use iolab::report::view::ReportView;
        let _ = iolab::report::table::render(
            &imported.result,
            iolab::report::screen::Screen::UNLIMITED,
            true,
        );
        let view = ReportView::new(vec![("fuzz.json", &imported.result)], 0.05, true);
        let _ = Html.render(&view);
    }
});
