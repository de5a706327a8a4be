//! The kernel's text files iolab reads (/proc/diskstats, mountinfo,
//! /proc/net/dev, /proc/stat, mountstats, cgroup io.max and blkio throttle,
//! a queue's scheduler): the first byte picks the parser, the rest is the file.
#![no_main]

use iolab::probe::{cgroup, diskstats, environment, mounts, netdev, nfs, procstat};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let devices = [(7, 0), (8, 16), (253, 1)];
    match which % 8 {
        0 => drop(diskstats::parse(text)),
        1 => drop(mounts::parse(text)),
        2 => drop(netdev::parse(text)),
        3 => {
            let _ = procstat::parse(text);
        }
        4 => drop(nfs::parse(text, std::path::Path::new("/mnt/nfs"))),
        5 => drop(cgroup::parse_io_max(text, &devices)),
        6 => drop(cgroup::parse_throttle(text, "rbps", &devices)),
        _ => drop(environment::selected_scheduler(text)),
    }
});
