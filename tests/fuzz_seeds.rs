//! The fuzz targets' saved inputs (`fuzz/seeds/NAME`, `fuzz/regressions/NAME`) replayed through the targets' own bodies (`fuzz/bodies.rs`) in the test build: an input that panics fails here, without the sanitizer build `scripts/fuzz` makes for fuzzing.

use std::path::Path;

#[allow(dead_code)]
mod bodies {
    include!("../fuzz/bodies.rs");
}

/// The most time one input may take, as `scripts/fuzz` gives libFuzzer
/// (`-timeout=10`).
const MOST_PER_INPUT: std::time::Duration = std::time::Duration::from_secs(10);

#[test]
fn every_saved_input_passes_its_fuzz_target() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut replayed = 0;
    for (name, body) in bodies::TARGETS {
        let mut inputs = 0;
        for kind in ["seeds", "regressions"] {
            let Ok(entries) = std::fs::read_dir(fuzz.join(kind).join(name)) else {
                continue;
            };
            for entry in entries.flatten() {
                let data = std::fs::read(entry.path()).unwrap();
                let started = std::time::Instant::now();
                body(&data);
                assert!(
                    started.elapsed() < MOST_PER_INPUT,
                    "{name}: {} took {:?}",
                    entry.path().display(),
                    started.elapsed()
                );
                inputs += 1;
            }
        }
        assert!(inputs > 0, "fuzz/seeds/{name} holds no input");
        replayed += inputs;
    }
    assert!(replayed >= bodies::TARGETS.len());
}

#[test]
fn every_fuzz_target_is_in_the_table_the_test_replays() {
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    let mut files: Vec<String> = std::fs::read_dir(targets)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".rs").map(str::to_string)
        })
        .collect();
    files.sort();
    let mut named: Vec<String> = bodies::TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    named.sort();
    assert_eq!(files, named);
}
