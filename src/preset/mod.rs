//! Presets: the published studies iolab reproduces, as study files, at a full scale (the study's own sizes), a quick one (minutes here) or a tiny test one.
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
    /// Seconds: a check that the study runs here (its figures too small
    /// to mean much), as the test suite and docs/studies.md use it.
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
    format!(
        r#"name = "dd-blocksize-{s}"
description = "CLOSER 2011 (dd in native and paravirtualized hosts), experiment 1, Table 1: a fixed volume written and read with dd at block sizes 512 B to 1 MiB; dd's buffered write (no sync), oflag=direct write (no sync), iflag=direct read and buffered read"
table = "dd-blocksize"

[repeat]
count = {r}

# In its VMs the study ran dd on an empty partition (/dev/xvda2): a --guest
# without raw= measures the guest's disk itself, no file system on it.
[guest_defaults]
raw = "on"

[defaults]
size = "{size}"
bs = "512..1m"

# dd if=/dev/zero of=F bs=X count=N: a new file, no fsync; the writeback
# check says what such a figure means.
[[sweep]]
label = "write"
op = "write"

# dd ... oflag=direct: a new file, no fsync.
[[sweep]]
label = "O_DIRECT write"
op = "write"
direct = true

# dd if=F of=/dev/null bs=X iflag=direct
[[sweep]]
label = "O_DIRECT read"
op = "read"
direct = true

# dd if=F of=/dev/null bs=X, after the file's pages were evicted
[[sweep]]
label = "read"
op = "read"
"#,
        s = scale.name(),
        size = scale.pick("1g", "64m", "1m"),
        r = scale.pick("3", "2", "1")
    )
}

fn dd_datasize(scale: Scale) -> String {
    let sizes = scale.pick("1m..16g", "1m..256m", "1m..4m");
    format!(
        r#"name = "dd-datasize-{s}"
description = "CLOSER 2011 (dd in native and paravirtualized hosts), experiment 2, Table 2: 1 MiB blocks, data size {sizes}; dd's buffered write (no sync), oflag=direct write and iflag=direct read; where the results converge"
table = "dd-datasize"

[repeat]
count = {r}

# dd on the VM's empty partition, as in dd-blocksize.
[guest_defaults]
raw = "on"

[defaults]
bs = "1m"
size = "{sizes}"

[[sweep]]
label = "write"
op = "write"

[[sweep]]
label = "O_DIRECT write"
op = "write"
direct = true

[[sweep]]
label = "O_DIRECT read"
op = "read"
direct = true
"#,
        s = scale.name(),
        r = scale.pick("3", "3", "1")
    )
}

fn seq_device(scale: Scale) -> String {
    format!(
        r#"name = "seq-device-{s}"
description = "Varlyakov 2013 (CentOS 6.3 on Hyper-V, storage performance): dd if=/dev/zero bs=8k without sync, then cat of the file (sequential reads in cat's 128 KiB buffer), seen as atop sees each layer of the device stack, with the logical to physical I/O ratios"
table = "atop-layers"

[defaults]
size = "{size}"

# time sh -c "dd if=/dev/zero of=ddfile bs=8k count=1M": no sync
[[sweep]]
label = "dd bs=8k"
op = "write"
bs = "8k"

# time sh -c "cat ddfile > /dev/null": coreutils' cat reads 128 KiB at a time
[[sweep]]
label = "cat"
op = "read"
bs = "128k"
"#,
        s = scale.name(),
        size = scale.pick("8g", "512m", "4m")
    )
}

fn netfs_micro(scale: Scale) -> String {
    format!(
        r#"name = "netfs-micro-{s}"
description = "Radkov, Yin, Goyal, Sarkar, Shenoy, A Performance Comparison of NFS and iSCSI for IP-Networked Storage, USENIX FAST 2004, Table 4: a {size} file in 4 KiB chunks, read sequentially and in a random permutation of its blocks from a cold cache, then written to a new file sequentially and in a random permutation; completion time, network messages and bytes"
table = "table4"

[defaults]
bs = "4k"
size = "{size}"
pattern = ["seq", "random"]

[[sweep]]
label = "read"
op = "read"

# A new file each time; the completion time is the application's (no sync),
# as the study measured it.
[[sweep]]
label = "write"
op = "write"
"#,
        s = scale.name(),
        size = scale.pick("128m", "32m", "1m")
    )
}

fn netfs_meta(scale: Scale) -> String {
    format!(
        r#"name = "netfs-meta-{s}"
description = "Radkov, Yin, Goyal, Sarkar, Shenoy, A Performance Comparison of NFS and iSCSI for IP-Networked Storage, USENIX FAST 2004, the metadata half of its micro-benchmarks: iSCSI outperforms NFS by a factor of two or more on metadata-intensive work, since NFS sends a message for each operation and iSCSI's client file system keeps metadata local. Per operation, {items} items in one directory: run it with --target nfs://… (NFS v3 through iolab's client, every procedure counted) and with --dir on ext3 over a loop device or a kernel iSCSI disk, then iolab compare the two"
table = "metadata"

[defaults]
items = {items}
cache = "cold"

[[sweep]]
label = "directories"
op = ["mkdir", "rmdir"]

[[sweep]]
label = "files"
op = ["create", "stat", "readdir", "rename", "delete"]
"#,
        s = scale.name(),
        items = scale.pick("10000", "1000", "20")
    )
}

fn iozone_auto(scale: Scale) -> String {
    format!(
        r#"name = "iozone-auto-{s}"
description = "Pinilla, Study of file system performance varying the operating environment (UPC): IOzone -a, file 64 KiB to {max}, record 4 KiB to 16 MiB: write a new file, rewrite it, read it, reread it, with write(2)/read(2) and with the C library's fwrite/fread; no cache drop between them and no timed fsync, as IOzone without -e or -c; each phase starts from clean cached pages, as IOzone's untimed fsync after every write pass and before every read pass leaves them"
table = "iozone-report"

[defaults]
op = ["write", "rewrite", "read", "reread"]
size = "64k..{max}"
bs = "4k..16m"
# IOzone fsyncs untimed after each write pass and before each read pass:
# its rewrite overwrites clean cached pages, which costs more than dirty ones.
cache = "clean"

# The study's virtual machine had 256 MB: a --guest without memory= gets it.
[guest_defaults]
memory = 256

[[sweep]]
label = "syscalls"
engine = "sync"
# IOzone -a: records under 64 KiB only for files up to 32 MiB
where = ["size<=32m || bs>=64k"]

[[sweep]]
label = "stdio"
engine = "stdio"
where = ["size<=32m || bs>=64k"]
"#,
        s = scale.name(),
        max = scale.pick("128m", "16m", "128k")
    )
}

fn direct_vs_buffered(scale: Scale) -> String {
    format!(
        r#"name = "direct-vs-buffered-{s}"
description = "I/O Measurements, 2017 (O_DIRECT against normal random I/O): an existing {size} file, {n} blocks of 128 KiB at uniformly random offsets per run; reads open O_RDONLY|O_SYNC against O_RDONLY|O_DIRECT|O_SYNC, writes O_WRONLY|O_SYNC against O_WRONLY|O_DIRECT|O_SYNC; the time of each run and the percentage O_DIRECT is faster"
table = "direct-vs-normal"

# Paired: each round runs normal and O_DIRECT back to back, alternating
# which goes first (A B | B A), so every round's ratio compares the two
# under the same conditions; compare and the table pair them by round.
[repeat]
count = 1
rounds = {r}
order = "abba:direct"

# The study's program opens the file and runs; it does not drop caches.
[defaults]
bs = "128k"
size = "{size}"
pattern = "uniform"
op = ["read", "rewrite"]
sync = "osync"
cache = "keep"

[[sweep]]
label = "normal"

[[sweep]]
label = "direct"
direct = true
"#,
        s = scale.name(),
        // dd bs=1024 count=2000000: 2,048,000,000 bytes, 15,625 blocks of 128 KiB.
        size = scale.pick("2048000000", "256m", "1m"),
        n = scale.pick("15,625", "2,048", "8"),
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
pub const PRESETS: [Preset; 8] = [
    Preset {
        name: "dd-blocksize",
        description: "CLOSER 2011, Table 1: dd's speed against block size, buffered and O_DIRECT",
        study: dd_blocksize,
    },
    Preset {
        name: "dd-datasize",
        description: "CLOSER 2011, Table 2: dd's speed against data size, and where it converges",
        study: dd_datasize,
    },
    Preset {
        name: "seq-device",
        description: "Varlyakov 2013: dd bs=8k and cat, as atop sees each layer of the stack",
        study: seq_device,
    },
    Preset {
        name: "netfs-micro",
        description: "Radkov et al., FAST 2004, Table 4: 4 KiB sequential and random I/O on a network file system",
        study: netfs_micro,
    },
    Preset {
        name: "netfs-meta",
        description: "Radkov et al., FAST 2004, the metadata half: per operation, NFS v3's messages and time against a local file system's",
        study: netfs_meta,
    },
    Preset {
        name: "iozone-auto",
        description: "Pinilla (UPC): IOzone -a's file size × record size matrix, syscalls and stdio",
        study: iozone_auto,
    },
    Preset {
        name: "direct-vs-buffered",
        description: "I/O Measurements 2017: 128 KiB random I/O, O_SYNC against O_DIRECT|O_SYNC",
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
                        &crate::plan::default_workload(),
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
