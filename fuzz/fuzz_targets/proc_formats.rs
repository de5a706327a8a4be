//! The kernel's text files iolab reads (/proc/diskstats, mountinfo,
//! /proc/net/dev, /proc/stat, mountstats, cgroup io.max and blkio throttle,
//! a queue's scheduler): the first byte picks the parser, the rest is the file.
#![no_main]

include!("../bodies.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| proc_formats(data));
