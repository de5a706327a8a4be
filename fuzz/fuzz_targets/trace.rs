//! Block traces (`iolab replay`, `iolab characterize`): any bytes, read as each format iolab knows, are I/Os or one refusal, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use iolab::trace::Format;
    for format in [
        Format::IologV2,
        Format::IologV3,
        Format::Msr,
        Format::Spc,
        Format::Blktrace,
        Format::Blkparse,
    ] {
        let _ = iolab::trace::parse_bytes(data, format);
    }
    let _ = iolab::trace::detect(data);
});
