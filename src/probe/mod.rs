//! Counters and facts read around a run, never inside its timing loops: CPU usage of the I/O threads, the device stack, diskstats, network, NFS and machine-wide CPU counters, proactive reclaim, and the environment record.
//!
//! Parsers take text so tests can feed them fixtures; `read` functions read the live files.

pub mod blkid;
pub mod cgroup;
pub mod clock_cost;
pub mod cpu;
pub mod diskstats;
pub mod environment;
pub mod host;
pub mod memcopy;
pub mod mounts;
pub mod netdev;
pub mod nfs;
pub mod process;
pub mod procstat;
pub mod reclaim;
pub mod sampler;
pub mod stack;
pub mod tcp;
pub mod virt;

#[cfg(test)]
mod hostile_input {
    //! The kernel's text files parsed from any text never panic: a changed
    //! kernel format, a truncated read or garbage is skipped, not a crash.
    //! (Fuzzed further by fuzz/fuzz_targets/proc_formats.rs.)
    use super::*;
    use proptest::prelude::*;

    /// Real lines of each format, to mutate.
    const SAMPLES: &[&str] = &[
        "   7       0 loop0 1047 0 74360 202 118 0 9232 56 0 640 259 0 0 0 0 0 0",
        "36 25 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard",
        "  eth0: 1234 10 0 0 0 0 0 0 5678 20 0 0 0 0 0 0",
        "cpu  10132153 290696 3084719 46828483 16683 0 25195 0 0 0",
        "device srv:/export mounted on /mnt/nfs with fstype nfs4 statvers=1.1",
        "\tREAD: 10 10 0 1200 80000 5 6 12 0",
        "8:16 rbps=1048576 wbps=max riops=max wiops=100",
        "none [mq-deadline] kyber",
    ];

    fn parse_all(text: &str) {
        let devices = [(7, 0), (8, 16), (254, 0)];
        drop(diskstats::parse(text));
        drop(mounts::parse(text));
        drop(netdev::parse(text));
        let _ = procstat::parse(text);
        drop(nfs::parse(text, std::path::Path::new("/mnt/nfs")));
        drop(cgroup::parse_io_max(text, &devices));
        drop(cgroup::parse_throttle(text, "rbps", &devices));
        drop(environment::selected_scheduler(text));
    }

    /// A sample line with one whitespace-separated field replaced.
    fn mutated() -> impl Strategy<Value = String> {
        let replacement = prop_oneof![
            Just("18446744073709551616".to_string()),
            Just("-1".to_string()),
            Just(String::new()),
            Just("\\".to_string()),
            Just(":".to_string()),
            "\\PC{0,12}",
        ];
        (0..SAMPLES.len(), 0usize..24, replacement).prop_map(|(sample, field, with)| {
            let mut fields: Vec<String> = SAMPLES[sample].split(' ').map(str::to_string).collect();
            let at = field % fields.len();
            fields[at] = with;
            fields.join(" ")
        })
    }

    proptest! {
        #[test]
        fn any_text_is_parsed_or_skipped(
            lines in proptest::collection::vec("[0-9a-z:/ \\t\\[\\]=.,-]{0,60}", 0..12),
            noise in "\\PC{0,200}",
        ) {
            parse_all(&lines.join("\n"));
            parse_all(&noise);
        }

        #[test]
        fn real_lines_with_a_field_changed_are_parsed_or_skipped(lines in proptest::collection::vec(mutated(), 1..6)) {
            let text = lines.join("\n");
            parse_all(&text);
            // mountstats: a device line followed by the changed lines.
            parse_all(&format!("{}\nper-op statistics\n{text}", SAMPLES[4]));
        }
    }
}
