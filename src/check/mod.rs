//! Plausibility checks: findings about a point's figures, with stable codes and the evidence behind them.
//!
//! A check never changes a number; it says when a number may not mean what it
//! seems, and shows the figures that made it say so. Codes are stable so
//! scripts can rely on them; docs/checks.md explains each and what to do.

mod across;
mod cache;
mod ceiling;
mod clock;
mod device;
pub mod guest;
mod hot_set;
mod latency_target;
mod outcomes;
mod pacing;
mod priority;
mod replay;
mod tree;

pub use across::{CACHE_BELOW, CACHE_BELOW_MARGIN, across};

use crate::record::{Check, Point, Severity};

/// A timed region shorter than this is dominated by timer and scheduler noise.
pub const TOO_SHORT_NS: u64 = 200_000_000;
/// A cold read whose file was more than this fraction resident at start may be served from memory.
pub const RESIDENT_TOLERANCE: f64 = 0.01;
/// Coefficient of variation above which repetitions disagree too much.
pub const NOISY_CV: f64 = 0.10;
/// Half-width of the 95% interval, as a share of the mean, above which a figure is too uncertain.
pub const NOISY_CI: f64 = 0.05;
/// Working sets below this may sit in the CPU's caches, which copy faster than memory.
pub const CACHE_RESIDENT_LIMIT: u64 = 64 << 20;
/// CPU steal (all CPUs) above which the hypervisor visibly took time from the run.
pub const STEAL_LIMIT: f64 = 0.05;

/// The word a table's checks cell shows for a finding that says the figures
/// are not the answer to what was asked (a cell otherwise shows the worst
/// severity): a row that reads as an answer must not look like one when a
/// check says it is not.
pub fn not_the_answer(code: &str) -> Option<&'static str> {
    match code {
        "latency-target-unsettled" => Some("unsettled"),
        "cache-served" => Some("from cache"),
        "direct-not-honoured" => Some("not direct"),
        _ => None,
    }
}

/// The checks of a point of groups that only the point can make: those of
/// its devices' activity, which is the point's (each group is checked as
/// its own workload by [`check`]).
pub fn group_point_checks(
    point: &Point,
    environment: Option<&crate::record::environment::Environment>,
) -> Vec<Check> {
    let mut found = Findings(Vec::new());
    let storage = environment.and_then(|e| e.storage.as_ref());
    device::group_checks(point, storage, &mut found);
    found.0
}

/// Collects the findings of one point.
struct Findings(Vec<Check>);

impl Findings {
    /// A finding that is information: nothing to remove. A warning or an
    /// error goes through [`Findings::act`], which names what removes it.
    fn add(&mut self, code: &str, severity: Severity, message: String, evidence: String) {
        debug_assert!(
            severity == Severity::Info,
            "{code}: a warning names the action that removes it (Findings::act)"
        );
        self.push(code, severity, message, evidence);
    }

    /// A finding with what to do about it, said after the message as
    /// "MESSAGE; ACTION" — every warning and error is one (the terminal,
    /// the report's trust line and the result's `message` all carry it).
    fn act(
        &mut self,
        code: &str,
        severity: Severity,
        message: String,
        action: &str,
        evidence: String,
    ) {
        debug_assert!(!action.is_empty(), "{code}: an empty action");
        self.push(code, severity, format!("{message}; {action}"), evidence);
    }

    fn push(&mut self, code: &str, severity: Severity, message: String, evidence: String) {
        self.0.push(Check {
            code: code.to_string(),
            severity,
            message,
            evidence: (!evidence.is_empty()).then_some(evidence),
        });
    }
}

/// Runs every check on a point; `environment` (the result's) tells the
/// device checks which layer of the stack each device is, and gives the
/// memory-copy ceiling and the cgroup's I/O limits.
pub fn check(
    point: &Point,
    environment: Option<&crate::record::environment::Environment>,
) -> Vec<Check> {
    let mut found = Findings(Vec::new());
    let storage = environment.and_then(|e| e.storage.as_ref());
    outcomes::checks(point, &mut found);
    cache::cache_checks(point, &mut found);
    device::checks(point, storage, &mut found);
    hot_set::checks(point, storage, &mut found);
    pacing::checks(point, &mut found);
    replay::checks(point, &mut found);
    latency_target::checks(point, &mut found);
    priority::checks(point, storage, &mut found);
    tree::checks(point, storage, &mut found);
    outcomes::timing_checks(point, &mut found);
    if let Some(environment) = environment {
        ceiling::checks(point, environment, &mut found);
        // A guest's I/O is timed by the guest's clock: check/guest.rs.
        if point.workload.machine != crate::plan::Machine::Guest {
            clock::checks(point, environment, &mut found);
        }
    }
    found.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A point of one completed repetition with `extra` fields merged into
    /// the workload, the repetition and the summary.
    pub(super) fn point(
        workload: serde_json::Value,
        repetition: serde_json::Value,
        summary: serde_json::Value,
    ) -> Point {
        let mut w = serde_json::to_value(crate::plan::example_workload()).unwrap();
        w.as_object_mut()
            .unwrap()
            .extend(workload.as_object().unwrap().clone());
        let mut r = json!({
            "index": 0, "warmup": false, "status": "ok", "bytes": 64u64 << 20, "ops": 16384,
            "elapsed_ns": 1_000_000_000u64, "throughput_bps": 67108864.0, "iops": 16384.0,
            "series": [], "jobs": []
        });
        r.as_object_mut()
            .unwrap()
            .extend(repetition.as_object().unwrap().clone());
        let stat = json!({"n": 1, "mean": 67108864.0, "median": 67108864.0, "stdev": 0.0, "cv": 0.0,
                          "min": 67108864.0, "max": 67108864.0});
        let mut s = json!({"throughput_bps": stat, "iops": stat, "outliers": 0});
        s.as_object_mut()
            .unwrap()
            .extend(summary.as_object().unwrap().clone());
        serde_json::from_value(json!({
            "label": "p", "workload": w,
            "target": {"dir": "/d", "filesystem": "ext4", "files": [], "direct_in_memory": false, "file_given": false},
            "repetitions": [r], "summary": s, "checks": []
        }))
        .unwrap()
    }

    fn device(read_bytes: u64, write_bytes: u64) -> serde_json::Value {
        json!({"name": "vda", "reads": 1, "writes": 1, "read_bytes": read_bytes, "write_bytes": write_bytes,
               "reads_merged": 0, "writes_merged": 0, "discards": 0, "flushes": 0, "reads_per_s": 1.0,
               "writes_per_s": 1.0, "read_bps": 1.0, "write_bps": 1.0, "busy_fraction": 0.5})
    }

    /// An environment of the fields every one has, with `extra` merged in.
    fn environment(extra: serde_json::Value) -> crate::record::environment::Environment {
        let mut e = json!({
            "hostname": "h", "kernel": "k", "kernel_version": "v", "arch": "x86_64", "logical_cpus": 2,
            "memory_bytes": 1, "virtualization": {"evidence": []}
        });
        e.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::from_value(e).unwrap()
    }

    /// Every warning and error names what removes it: no check file raises
    /// one through [`Findings::add`], which takes none (and refuses one in
    /// a debug build), only through [`Findings::act`].
    #[test]
    fn every_warning_and_error_names_its_action() {
        let sources = [
            ("across.rs", include_str!("across.rs")),
            ("cache.rs", include_str!("cache.rs")),
            ("ceiling.rs", include_str!("ceiling.rs")),
            ("clock.rs", include_str!("clock.rs")),
            ("device.rs", include_str!("device.rs")),
            ("guest.rs", include_str!("guest.rs")),
            ("hot_set.rs", include_str!("hot_set.rs")),
            ("latency_target.rs", include_str!("latency_target.rs")),
            ("outcomes.rs", include_str!("outcomes.rs")),
            ("pacing.rs", include_str!("pacing.rs")),
            ("priority.rs", include_str!("priority.rs")),
            ("replay.rs", include_str!("replay.rs")),
            ("tree.rs", include_str!("tree.rs")),
        ];
        let mut infos = 0;
        for (name, source) in sources {
            for call in source.split("found.add(").skip(1) {
                let arguments: String = call.chars().take(160).collect();
                let severity = arguments.split(',').nth(1).unwrap_or_default().trim();
                assert_eq!(severity, "Severity::Info", "{name}: found.add({arguments}");
                infos += 1;
            }
        }
        assert!(infos >= 10, "{infos} notes found: the scan reads the calls");
        let mut found = Findings(Vec::new());
        found.act(
            "x",
            Severity::Warning,
            "what".into(),
            "do this",
            String::new(),
        );
        assert_eq!(found.0[0].message, "what; do this");
    }

    #[test]
    fn a_slow_clock_is_named_with_its_share_of_the_latency() {
        let latency = |mean: f64| {
            json!({"latency_ns": {"count": 1, "min": 1, "max": 1, "mean": mean, "stdev": 0.0,
                                  "percentiles": [], "histogram": ""}})
        };
        let hpet = environment(json!({"clocksource": "hpet", "clock_read_ns": 740.0}));
        // 1.48 µs of a 10 µs mean: a warning, with the share.
        let found = check(&point(json!({}), json!({}), latency(10_000.0)), Some(&hpet));
        let slow = found
            .iter()
            .find(|c| c.code == "slow-clock")
            .expect("raised");
        assert_eq!(slow.severity, Severity::Warning);
        assert!(slow.message.contains("0.74 µs"), "{}", slow.message);
        assert!(
            slow.evidence
                .as_deref()
                .is_some_and(|e| e.starts_with("14.8% of this point's mean latency")),
            "{slow:?}"
        );
        assert!(slow.message.contains("hpet"), "{}", slow.message);
        // Of a 1 ms mean it is information.
        let found = check(
            &point(json!({}), json!({}), latency(1_000_000.0)),
            Some(&hpet),
        );
        assert_eq!(
            found
                .iter()
                .find(|c| c.code == "slow-clock")
                .unwrap()
                .severity,
            Severity::Info
        );
        // A TSC's read says nothing.
        let tsc = environment(json!({"clocksource": "tsc", "clock_read_ns": 22.0}));
        let found = check(&point(json!({}), json!({}), latency(10_000.0)), Some(&tsc));
        assert!(found.iter().all(|c| c.code != "slow-clock"), "{found:?}");
    }

    /// The evidence of the finding `code`, which must have been raised.
    fn evidence<'a>(found: &'a [Check], code: &str) -> &'a str {
        found
            .iter()
            .find(|c| c.code == code)
            .unwrap_or_else(|| panic!("{code} not raised: {found:?}"))
            .evidence
            .as_deref()
            .unwrap_or_default()
    }

    fn codes(point: &Point) -> Vec<String> {
        check(point, None).into_iter().map(|c| c.code).collect()
    }

    #[test]
    fn a_rate_is_judged_both_ways() {
        let paced = |achieved: f64| {
            point(
                json!({"rate_iops": 1000, "runtime_s": 10.0}),
                json!({"elapsed_ns": 10_000_000_000u64,
                       "pacing": {"target_iops": 1000.0, "achieved_fraction": achieved}}),
                json!({}),
            )
        };
        assert!(codes(&paced(1.0)).contains(&"rate-kept".to_string()));
        assert!(codes(&paced(0.9)).contains(&"rate-not-kept".to_string()));
        let over = check(&paced(1.05), None);
        assert_eq!(
            evidence(&over, "rate-exceeded"),
            "asked 1000 I/O/s, achieved 105.00% in repetition 0; p99 from issue -, from intended issue -"
        );
        assert!(!over.iter().any(|c| c.code == "rate-kept"));
    }

    #[test]
    fn a_device_doing_what_the_jobs_cannot_have_done_is_foreign() {
        let with = |op: &str, device: serde_json::Value| {
            let activity =
                json!({"elapsed_ns": 1_000_000_000u64, "devices": [device], "network": []});
            check(
                &point(json!({"op": op}), json!({"activity": activity}), json!({})),
                None,
            )
        };
        // 64 MiB written to a new file: 200 MiB read is someone else's.
        let found = with("write", device(200 << 20, 64 << 20));
        assert_eq!(
            evidence(&found, "foreign-io"),
            "vda read 200 MiB in repetition 0, 200 MiB more than the jobs explain (the jobs only wrote new files of 1.00 MiB)"
        );
        // The writes of 16,384 I/Os, a page each, and the data thrice: the run's own.
        let own = with("write", device(0, (3 << 26) + (16_384 << 12)));
        assert!(!own.iter().any(|c| c.code == "foreign-io"), "{own:?}");
    }

    /// Buffered writes, nothing synced, whose bytes all stayed dirty (the
    /// machine's dirty bytes grew by them): none of the device's writes in
    /// the window are theirs, so 48 MiB there is another writer's. Had
    /// nothing stayed dirty, three times the point's 64 MiB would be its own.
    #[test]
    fn writes_beside_buffered_writes_that_stayed_dirty_are_foreign() {
        let with = |dirty_growth: u64| {
            let pages = |bytes: u64| json!({"dirty_bytes": bytes, "writeback_bytes": 0});
            let activity = json!({
                "elapsed_ns": 1_000_000_000u64,
                "devices": [device(0, 48 << 20)],
                "network": [],
                "dirty": {"start": pages(1 << 20), "end": pages((1 << 20) + dirty_growth)},
            });
            check(
                &point(
                    json!({"op": "write", "cache": "keep"}),
                    json!({"activity": activity}),
                    json!({}),
                ),
                None,
            )
        };
        let stayed = with(64 << 20);
        assert!(
            evidence(&stayed, "foreign-io").starts_with("vda wrote 48.0 MiB in repetition 0"),
            "{stayed:?}"
        );
        let reached = with(0);
        assert!(
            !reached.iter().any(|c| c.code == "foreign-io"),
            "{reached:?}"
        );
    }

    #[test]
    fn synced_writes_the_device_never_saw_are_faster_than_the_device() {
        let activity =
            json!({"elapsed_ns": 1_000_000_000u64, "devices": [device(0, 1 << 20)], "network": []});
        let p = point(
            json!({"op": "write", "fsync_end": true, "size": 64u64 << 20}),
            json!({"activity": activity}),
            json!({}),
        );
        assert_eq!(
            evidence(&check(&p, None), "faster-than-device"),
            "the application wrote 64.0 MiB, vda wrote 1.00 MiB in the same window"
        );
        // The same with the device carrying it all: nothing.
        let activity = json!({"elapsed_ns": 1_000_000_000u64, "devices": [device(0, 64 << 20)], "network": []});
        let clean = point(
            json!({"op": "write", "fsync_end": true, "size": 64u64 << 20}),
            json!({"activity": activity}),
            json!({}),
        );
        assert!(!codes(&clean).contains(&"faster-than-device".to_string()));
        // Four passes over a 16 MiB file, synced at the end (fio's loops=4
        // with end_fsync): the device owes the 16 MiB left, once.
        let activity = json!({"elapsed_ns": 1_000_000_000u64, "devices": [device(0, 16 << 20)], "network": []});
        let passes = point(
            json!({"op": "write", "fsync_end": true, "size": 16u64 << 20}),
            json!({"activity": activity}),
            json!({}),
        );
        assert!(!codes(&passes).contains(&"faster-than-device".to_string()));
        // Synced at every write, each pass reaches the device.
        let activity = json!({"elapsed_ns": 1_000_000_000u64, "devices": [device(0, 16 << 20)], "network": []});
        let each = point(
            json!({"op": "write", "sync": "osync", "size": 16u64 << 20}),
            json!({"activity": activity}),
            json!({}),
        );
        assert_eq!(
            evidence(&check(&each, None), "faster-than-device"),
            "the application wrote 64.0 MiB, vda wrote 16.0 MiB in the same window"
        );
    }

    #[test]
    fn a_point_of_groups_holds_each_group_against_the_points_devices() {
        // An O_DIRECT reader and a synced logger, each 64 MiB; the devices'
        // activity is the point's.
        let grouped = |device_read: u64, device_written: u64| {
            let activity = json!({"elapsed_ns": 1_000_000_000u64,
                                  "devices": [device(device_read, device_written)], "network": []});
            let mut reader = point(json!({"direct": true}), json!({}), json!({}));
            reader.label = "reader".to_string();
            let mut logger = point(
                json!({"op": "write", "fsync_every": 1}),
                json!({}),
                json!({}),
            );
            logger.label = "logger".to_string();
            let mut combined = point(
                json!({"direct": true}),
                json!({"activity": activity, "bytes": 128u64 << 20}),
                json!({}),
            );
            combined.groups = vec![reader, logger];
            group_point_checks(&combined, None)
        };
        // Each group's I/O carried: nothing.
        assert!(grouped(64 << 20, 64 << 20).is_empty());
        // The reader's O_DIRECT reads never reached the device; the
        // logger's synced writes did.
        let found = grouped(0, 64 << 20);
        assert_eq!(
            evidence(&found, "direct-not-honoured"),
            "group reader read 64.0 MiB, vda read 0 B in the same window (every group's I/O counted)"
        );
        assert!(found[0].message.starts_with("group reader: O_DIRECT"));
        assert!(!found.iter().any(|c| c.code == "faster-than-device"));
        // The logger's synced writes the device did not receive.
        let found = grouped(64 << 20, 1 << 20);
        assert_eq!(
            evidence(&found, "faster-than-device"),
            "group logger wrote 64.0 MiB, vda wrote 1.00 MiB in the same window (every group's I/O counted)"
        );
        // More reads than the reader's 64 MiB can explain (the logger's new
        // file has none to read): someone else's.
        let found = grouped(200 << 20, 64 << 20);
        assert_eq!(
            evidence(&found, "foreign-io"),
            "vda read 200 MiB in repetition 0, 136 MiB more than the jobs explain (the jobs read 64.0 MiB)"
        );
    }

    #[test]
    fn a_mix_is_held_against_the_devices_reads_and_writes() {
        // 64 MiB in a 70/30 mix that drew 48 MiB of reads and 16 MiB of writes.
        let (read, written) = (48u64 << 20, 16u64 << 20);
        let shares = json!([
            {"direction": "read", "bytes": read, "ops": 12288},
            {"direction": "write", "bytes": written, "ops": 4096}
        ]);
        let mixed = |workload: serde_json::Value, device_read: u64, device_written: u64| {
            let activity = json!({"elapsed_ns": 1_000_000_000u64,
                                  "devices": [device(device_read, device_written)], "network": []});
            let mut w = json!({"op": "mix", "mix": "read=70,write=30"});
            w.as_object_mut()
                .unwrap()
                .extend(workload.as_object().unwrap().clone());
            point(
                w,
                json!({"activity": activity, "directions": shares}),
                json!({}),
            )
        };
        // O_DIRECT, the device carrying both directions: nothing.
        let direct = json!({"direct": true});
        assert!(
            !codes(&mixed(direct.clone(), read, written))
                .contains(&"direct-not-honoured".to_string())
        );
        // O_DIRECT whose reads a cache below served: the device wrote only.
        assert_eq!(
            evidence(
                &check(&mixed(direct, 0, written), None),
                "direct-not-honoured"
            ),
            "the application read and wrote 64.0 MiB, vda read and wrote 16.0 MiB in the same window"
        );
        // A synced buffered mix is judged by its writes: reads from the page cache are no fault.
        let synced = json!({"fsync_end": true, "size": 64u64 << 20});
        assert!(
            !codes(&mixed(synced.clone(), 0, written)).contains(&"faster-than-device".to_string())
        );
        assert_eq!(
            evidence(
                &check(&mixed(synced, 0, 1 << 20), None),
                "faster-than-device"
            ),
            "the application wrote 16.0 MiB, vda wrote 1.00 MiB in the same window"
        );
    }

    #[test]
    fn steal_is_throttling_and_a_wide_interval_is_noise() {
        let cpu = json!({"user": 0.2, "system": 0.1, "iowait": 0.0, "steal": 0.12, "idle": 0.58});
        let activity =
            json!({"elapsed_ns": 1_000_000_000u64, "devices": [], "network": [], "cpu": cpu});
        let stat = json!({"n": 4, "mean": 100.0, "median": 100.0, "stdev": 4.0, "cv": 0.04, "min": 95.0,
                          "max": 105.0, "ci95_low": 93.0, "ci95_high": 107.0});
        let p = point(
            json!({}),
            json!({"activity": activity}),
            json!({"throughput_bps": stat}),
        );
        let found = codes(&p);
        assert!(found.contains(&"throttled".to_string()), "{found:?}");
        assert!(
            found.contains(&"noisy".to_string()),
            "±7% is wider than ±5% even with cv 4%: {found:?}"
        );
    }

    #[test]
    fn faster_than_memory_and_cgroup_limits() {
        let environment = environment(json!({
            "memcpy_bps": 10e6,
            "storage": {"path": "/d", "mount_point": "/", "filesystem": "ext4", "source": "/dev/vda",
                        "mount_options": "rw", "super_options": "rw", "network": false, "stack": "vda",
                        "devices": [], "io_limits": ["254:0 wbps=1048576"]}
        }));
        // 67 MB/s buffered over 64 MiB against a 10 MB/s copy ceiling.
        let p = point(json!({"size": 64u64 << 20}), json!({}), json!({}));
        let found = check(&p, Some(&environment));
        let codes: Vec<&str> = found.iter().map(|c| c.code.as_str()).collect();
        assert!(
            codes.contains(&"faster-than-device") && codes.contains(&"throttled"),
            "{codes:?}"
        );
        assert_eq!(evidence(&found, "throttled"), "254:0 wbps=1048576");
        // With --direct, or for a file small enough for the CPU's caches, the ceiling does not apply.
        let direct = point(
            json!({"direct": true, "size": 64u64 << 20}),
            json!({}),
            json!({}),
        );
        assert!(!codes_in(&direct, &environment).contains(&"faster-than-device".to_string()));
        let small = point(json!({}), json!({}), json!({}));
        assert!(!codes_in(&small, &environment).contains(&"faster-than-device".to_string()));
    }

    fn codes_in(
        point: &Point,
        environment: &crate::record::environment::Environment,
    ) -> Vec<String> {
        check(point, Some(environment))
            .into_iter()
            .map(|c| c.code)
            .collect()
    }

    #[test]
    fn buffered_libaio_is_said_to_keep_no_queue() {
        let libaio = |direct: bool, iodepth: u32| {
            codes(&point(
                json!({"engine": "libaio", "direct": direct, "iodepth": iodepth}),
                json!({}),
                json!({}),
            ))
            .contains(&"queue-not-kept".to_string())
        };
        assert!(libaio(false, 32));
        assert!(!libaio(true, 32));
        assert!(!libaio(false, 1));
        let uring = codes(&point(
            json!({"engine": "uring", "iodepth": 32}),
            json!({}),
            json!({}),
        ));
        assert!(!uring.contains(&"queue-not-kept".to_string()));
    }

    #[test]
    fn a_skewed_cold_read_owes_the_device_its_hot_set_only() {
        // 64 MiB read from a 16 Ki-block file in 4 KiB blocks, touching 2048
        // distinct blocks (8 MiB): re-reads of them are rightly cache hits.
        let skewed = |device_read: u64| {
            let activity = json!({"elapsed_ns": 1_000_000_000u64,
                                  "devices": [device(device_read, 0)], "network": []});
            point(
                json!({"pattern": "zipf:1.2", "cache": "cold", "size": 64u64 << 20}),
                json!({"activity": activity,
                       "coverage": {"blocks_touched": 2048, "blocks": 16384, "fraction": 0.125}}),
                json!({}),
            )
        };
        let served = skewed(8 << 20);
        assert!(!codes(&served).contains(&"cache-served".to_string()));
        assert_eq!(
            check(&served, None)
                .into_iter()
                .find(|c| c.code == "hot-set")
                .map(|c| c.message),
            Some(
                "the I/Os touched 12.5% of the file's blocks: the working set is that hot set, \
                 not the file; the page cache served at least 87.5% of the bytes read"
                    .to_string()
            )
        );
        // The device read less than half the hot set: a cache below served it.
        assert_eq!(
            evidence(&check(&skewed(2 << 20), None), "cache-served"),
            "the application read 64.0 MiB, vda read 2.00 MiB in the same window"
        );
    }

    #[test]
    fn a_warm_read_the_device_served_is_evicted_cache() {
        let warm_read = |read_bytes: u64, busy: f64| {
            let mut vda = device(read_bytes, 0);
            vda["busy_fraction"] = json!(busy);
            let activity = json!({"elapsed_ns": 1_000_000_000u64, "devices": [vda], "network": []});
            point(
                json!({"cache": "warm"}),
                json!({"activity": activity}),
                json!({}),
            )
        };
        assert_eq!(
            evidence(&check(&warm_read(6 << 20, 0.015), None), "cache-evicted"),
            "the application read 64.0 MiB, vda read 6.00 MiB in the same window and was busy up to 1.5% of it"
        );
        assert!(
            !codes(&warm_read(6 << 20, 0.015)).contains(&"cache-served".to_string()),
            "a warm read is not judged as a cold one"
        );
        for (bytes, busy) in [(6 << 20, 0.005), (512 << 10, 0.5), (0, 0.0)] {
            assert!(
                !codes(&warm_read(bytes, busy)).contains(&"cache-evicted".to_string()),
                "{bytes} bytes, busy {busy}"
            );
        }
    }

    #[test]
    fn proactive_reclaim_is_named_for_page_cache_reads_only() {
        let environment = environment(json!({"proactive_reclaim": ["DAMON pageout (kdamond 0)"]}));
        let warm = point(json!({"cache": "warm"}), json!({}), json!({}));
        assert_eq!(
            evidence(&check(&warm, Some(&environment)), "proactive-reclaim"),
            "DAMON pageout (kdamond 0)"
        );
        let direct = point(json!({"direct": true}), json!({}), json!({}));
        assert!(!codes_in(&direct, &environment).contains(&"proactive-reclaim".to_string()));
    }

    #[test]
    fn a_clean_direct_read_raises_nothing() {
        let activity = json!({"elapsed_ns": 1_000_000_000u64, "devices": [device(64 << 20, 0)], "network": []});
        let cache = json!({"treatment": "cold", "resident_pages": 0, "total_pages": 16384, "resident_fraction": 0.0});
        let p = point(
            json!({"direct": true}),
            json!({"activity": activity, "cache": cache}),
            json!({}),
        );
        assert!(check(&p, None).is_empty(), "{:?}", check(&p, None));
    }
}
