//! Presets: the studies of ../shared/seeds/ as study files, at a full scale (the study's own sizes), a quick one (minutes here) or a tiny test one.
//!
//! Each preset is plain study-file text, so `iolab preset show` prints
//! something a user can copy, edit and run with `iolab study`.

/// How large a preset runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Scale {
    /// A few minutes on a small machine, the same shape.
    Quick,
    /// The study's own sizes.
    Full,
    /// Seconds: for the test suite.
    #[value(hide = true)]
    Test,
}

impl Scale {
    fn pick<'a>(self, full: &'a str, quick: &'a str, test: &'a str) -> &'a str {
        match self {
            Scale::Full => full,
            Scale::Quick => quick,
            Scale::Test => test,
        }
    }

    /// The name used in output files.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Full => "full",
            Scale::Quick => "quick",
            Scale::Test => "test",
        }
    }
}

/// One preset.
pub struct Preset {
    /// Its name.
    pub name: &'static str,
    /// The study it reproduces, in a line.
    pub description: &'static str,
    /// The study file at a scale.
    pub study: fn(Scale) -> String,
}

/// The largest power-of-two size up to `limit` (at least 1 MiB): where a
/// data-size axis stops when the disk has less room than the study used.
pub fn cap_to(limit: u64) -> u64 {
    let limit = limit.max(1 << 20);
    1u64 << (63 - limit.leading_zeros())
}

/// `text` with dd-datasize's size axis `1m..16g` cut at `free` bytes
/// (what the directory holds beyond iolab's margin); the note says so.
pub fn capped(text: &str, free: u64) -> (String, Option<String>) {
    const FULL: &str = "1m..16g";
    if !text.contains(FULL) || free >= 16 << 30 {
        return (text.to_string(), None);
    }
    let top = cap_to(free);
    let axis = format!("1m..{}m", top >> 20);
    let note = format!(
        "the directory has room for {} MiB, so data sizes stop at {} MiB instead of 16 GiB",
        free >> 20,
        top >> 20
    );
    (text.replace(FULL, &axis), Some(note))
}

fn dd_blocksize(scale: Scale) -> String {
    let size = scale.pick("1g", "256m", "1m");
    // At the quick scale O_DIRECT points run for a second each (passes
    // repeat): one pass of 512-byte O_DIRECT writes would take minutes.
    // Buffered points make one pass, as dd does: a time-based buffered run
    // would reread cached data, and the checks would rightly say so.
    let runtime = scale.pick("", "runtime = \"1s\"\n", "");
    format!(
        r#"name = "dd-blocksize-{s}"
description = "Seed 000, experiment 1: write and read a fixed volume with block sizes 512 B to 1 MiB, buffered and O_DIRECT"

[repeat]
count = {r}

[defaults]
op = ["write", "read"]
size = "{size}"
bs = "512..1m"
fsync-end = true

[[sweep]]
label = "buffered"

[[sweep]]
label = "direct"
direct = true
{runtime}"#,
        s = scale.name(),
        r = scale.pick("3", "2", "1")
    )
}

fn dd_datasize(scale: Scale) -> String {
    let sizes = scale.pick("1m..16g", "1m..256m", "1m..4m");
    format!(
        r#"name = "dd-datasize-{s}"
description = "Seed 000, experiment 2: 1 MiB blocks, data size {sizes}; buffered write, O_DIRECT write and read; where the results converge"

[repeat]
count = {r}

[defaults]
bs = "1m"
size = "{sizes}"

[[sweep]]
label = "buffered"
op = "write"
fsync-end = true

[[sweep]]
label = "direct"
op = ["write", "read"]
direct = true
"#,
        s = scale.name(),
        r = scale.pick("3", "3", "1")
    )
}

fn seq_device(scale: Scale) -> String {
    format!(
        r#"name = "seq-device-{s}"
description = "Seed 001: dd-like 8 KiB sequential write of a large file, then a sequential read, with the device-stack view (IOPS, MB/s, average I/O size, avio, busy, logical to physical I/O ratio per layer)"

[defaults]
bs = "8k"
size = "{size}"
fsync-end = true

[[sweep]]
label = "dd"
op = ["write", "read"]
"#,
        s = scale.name(),
        size = scale.pick("4g", "512m", "4m")
    )
}

fn netfs_micro(scale: Scale) -> String {
    format!(
        r#"name = "netfs-micro-{s}"
description = "Seed 002: a file in 4 KiB chunks, sequential and random reads with a cold cache, then sequential and random writes to a new file; time, network messages and bytes"

[defaults]
bs = "4k"
size = "{size}"
pattern = ["seq", "random"]

[[sweep]]
label = "read"
op = "read"

[[sweep]]
label = "write"
op = "write"
fsync-end = true
"#,
        s = scale.name(),
        size = scale.pick("128m", "32m", "1m")
    )
}

fn iozone_auto(scale: Scale) -> String {
    format!(
        r#"name = "iozone-auto-{s}"
description = "Seed 003: IOzone -a: write, rewrite, read, reread with write(2)/read(2) and with the C library's fwrite/fread, file 64 KiB to {max}, record 4 KiB to 16 MiB"

[defaults]
op = ["write", "rewrite", "read", "reread"]
size = "64k..{max}"
bs = "4k..16m"
fsync-end = true

[[sweep]]
label = "syscalls"
engine = "sync"

[[sweep]]
label = "stdio"
engine = "stdio"
"#,
        s = scale.name(),
        max = scale.pick("128m", "16m", "128k")
    )
}

fn direct_vs_buffered(scale: Scale) -> String {
    format!(
        r#"name = "direct-vs-buffered-{s}"
description = "Seed 004: 128 KiB blocks at random offsets over a large file, read and write, normal against O_DIRECT with O_SYNC, several runs"

[repeat]
count = {r}

[defaults]
bs = "128k"
size = "{size}"
pattern = "uniform"
op = ["rewrite", "read"]

[[sweep]]
label = "normal"
fsync-end = true

[[sweep]]
label = "direct"
direct = true
sync = "osync"
"#,
        s = scale.name(),
        size = scale.pick("2g", "256m", "1m"),
        r = scale.pick("5", "3", "2")
    )
}

fn quick(scale: Scale) -> String {
    format!(
        r#"name = "quick-{s}"
description = "What iolab quick runs: sequential 1 MiB and random 4 KiB, read and write, at two queue depths, O_DIRECT"

[defaults]
size = "{size}"
runtime = "{runtime}"
ramp = "{ramp}"
direct = true
op = ["read", "rewrite"]

[[sweep]]
label = "SEQ1M Q8"
bs = "1m"
engine = "uring"
iodepth = 8

[[sweep]]
label = "SEQ1M Q1"
bs = "1m"

[[sweep]]
label = "RND4K Q32"
bs = "4k"
pattern = "random"
engine = "uring"
iodepth = 32

[[sweep]]
label = "RND4K Q1"
bs = "4k"
pattern = "random"
"#,
        s = scale.name(),
        size = scale.pick("1g", "1g", "4m"),
        runtime = scale.pick("5s", "5s", "100ms"),
        ramp = scale.pick("1s", "1s", "0s")
    )
}

/// Every preset.
pub const PRESETS: [Preset; 7] = [
    Preset {
        name: "dd-blocksize",
        description: "seed 000 exp. 1: speed against block size, buffered and O_DIRECT",
        study: dd_blocksize,
    },
    Preset {
        name: "dd-datasize",
        description: "seed 000 exp. 2: speed against data size, and where it converges",
        study: dd_datasize,
    },
    Preset {
        name: "seq-device",
        description: "seed 001: 8 KiB sequential write and read with the device-stack view",
        study: seq_device,
    },
    Preset {
        name: "netfs-micro",
        description: "seed 002: 4 KiB sequential and random reads and writes, with network counters",
        study: netfs_micro,
    },
    Preset {
        name: "iozone-auto",
        description: "seed 003: IOzone's file size × record size matrix, syscalls and stdio",
        study: iozone_auto,
    },
    Preset {
        name: "direct-vs-buffered",
        description: "seed 004: 128 KiB random I/O, normal against O_DIRECT + O_SYNC",
        study: direct_vs_buffered,
    },
    Preset {
        name: "quick",
        description: "the desktop-benchmark suite of iolab quick",
        study: quick,
    },
];

/// The preset named `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::study::Study;
    use std::path::Path;

    #[test]
    fn every_preset_parses_and_plans_at_every_scale() {
        for preset in &PRESETS {
            for scale in [Scale::Test, Scale::Quick, Scale::Full] {
                let text = (preset.study)(scale);
                let (study, text) = Study::parse(&text, Path::new(preset.name)).unwrap();
                let points = study
                    .plan(
                        &crate::cli::sweep::default_workload(),
                        &text,
                        Path::new(preset.name),
                    )
                    .unwrap_or_else(|e| panic!("{} {scale:?}: {e}", preset.name));
                assert!(!points.is_empty(), "{} {scale:?}", preset.name);
            }
        }
        assert!(find("iozone-auto").is_some() && find("nope").is_none());
    }

    #[test]
    fn a_full_data_size_axis_is_cut_to_the_free_space() {
        let full = dd_datasize(Scale::Full);
        let (text, note) = capped(&full, 3 << 30);
        assert!(text.contains("1m..2048m"), "{text}");
        assert!(note.unwrap().contains("stop at 2048 MiB"));
        assert_eq!(capped(&full, 64 << 30), (full.clone(), None));
        let quick = dd_datasize(Scale::Quick);
        assert_eq!(
            capped(&quick, 1 << 20).1,
            None,
            "the quick scale already fits"
        );
    }
}
