//! Presets: each runs end to end at the tiny test scale, and its result holds exactly the points of its plan.

use crate::util::*;

#[test]
fn every_preset_runs_at_the_test_scale() {
    let dir = scratch();
    let out = scratch();
    let list = iolab().args(["preset", "list"]).output().unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    let names: Vec<String> = list
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split(':').next().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 7, "{list}");
    for name in &names {
        if name == "quick" && !(direct_io_works(dir.path()) && uring_works()) {
            continue;
        }
        let output = out.path().join(format!("{name}.json"));
        let run = iolab()
            .args([
                "preset",
                "run",
                name,
                "--scale",
                "test",
                "--no-report",
                "--dir",
            ])
            .arg(dir.path())
            .arg("-o")
            .arg(&output)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        // Each study prints its own table, named by its publication.
        let stdout = String::from_utf8_lossy(&run.stdout);
        let title = match name.as_str() {
            "dd-blocksize" => "CLOSER 2011, Table 1",
            "dd-datasize" => "CLOSER 2011, Table 2",
            "seq-device" => "Varlyakov 2013, atop per layer",
            "netfs-micro" => "Radkov et al., FAST 2004, Table 4",
            "iozone-auto" => "\"Re-writer report\" in KiB/s",
            "direct-vs-buffered" => "I/O Measurements 2017: write time",
            "quick" => "",
            other => panic!("a preset without its expected table: {other}"),
        };
        assert!(stdout.contains(title), "{name}: {stdout}");
        let result = read_result(&output);
        // The table the result file names is the one printed (quick has none).
        assert_eq!(
            result["plan"]["table"].is_null(),
            title.is_empty(),
            "{name}: {}",
            result["plan"]
        );
        check_consistency(&result);
        let points = result["points"].as_array().unwrap();
        // The studies' setups: no fsync where dd and IOzone had none, the
        // O_DIRECT study's O_SYNC on reads and writes, IOzone's order on one file.
        let all = |field: &str, value: serde_json::Value| {
            points.iter().all(|p| p["workload"][field] == value)
        };
        match name.as_str() {
            "dd-blocksize" | "dd-datasize" | "seq-device" | "netfs-micro" => {
                assert!(
                    all("fsync_end", false.into()) && all("sync", "none".into()),
                    "{name}"
                );
            }
            "iozone-auto" => {
                assert!(
                    all("fsync_end", false.into()) && all("cache", "keep".into()),
                    "{name}"
                );
                let ops: Vec<&str> = points[..4]
                    .iter()
                    .map(|p| p["workload"]["op"].as_str().unwrap())
                    .collect();
                assert_eq!(ops, ["write", "rewrite", "read", "reread"]);
            }
            "direct-vs-buffered" => {
                assert!(
                    all("sync", "osync".into()) && all("cache", "keep".into()),
                    "{name}"
                );
            }
            _ => {}
        }
        assert_eq!(
            points.len() as u64,
            result["plan"]["points"].as_u64().unwrap(),
            "{name}"
        );
        assert_eq!(result["plan"]["name"], format!("{name}-test").as_str());
        assert!(
            points.iter().all(|p| p["repetitions"]
                .as_array()
                .unwrap()
                .iter()
                .all(|r| r["status"] == "ok")),
            "{name}"
        );
    }
    let shown = iolab()
        .args(["preset", "show", "iozone-auto", "--scale", "full"])
        .output()
        .unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert!(
        shown.contains("size = \"64k..128m\"") && shown.contains("engine = \"stdio\""),
        "{shown}"
    );
    let unknown = iolab().args(["preset", "run", "nope"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
}
