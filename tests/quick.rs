//! `iolab quick`: the eight tests, the table, and the result file at its default place.

use crate::util::*;

#[test]
fn quick_runs_the_suite_and_writes_its_result_file() {
    let dir = scratch();
    let cwd = scratch();
    let assert = iolab()
        .current_dir(cwd.path())
        .args(TINY_QUICK)
        .arg("--dir")
        .arg(dir.path())
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    for label in [
        "SEQ1M Q8 read",
        "SEQ1M Q1 read",
        "RND4K Q32 read",
        "RND4K Q1 read",
        "SEQ1M Q8 write",
        "RND4K Q1 write",
    ] {
        assert!(stdout.contains(label), "{label} missing from\n{stdout}");
    }
    let results = entries(&cwd.path().join("iolab-results"));
    assert_eq!(results.len(), 2, "the result and its report: {results:?}");
    assert!(results[1].starts_with("quick-") && results[1].ends_with(".json"));
    assert_eq!(results[0], results[1].replace(".json", ".html"));
    let results = &results[1..];
    assert!(
        stdout.contains(&format!("results: iolab-results/{}", results[0])),
        "{stdout}"
    );
    let result = read_result(&cwd.path().join("iolab-results").join(&results[0]));
    check_consistency(&result);
    let points = result["points"].as_array().unwrap();
    assert_eq!(points.len(), 8);
    let direct = direct_io_works(dir.path());
    for point in points {
        assert_eq!(point["workload"]["direct"], direct, "{}", point["label"]);
        assert_eq!(point["repetitions"][0]["status"], "ok");
    }
    assert!(entries(dir.path()).is_empty(), "test file removed");
}

#[test]
fn quick_without_room_refuses_before_creating_anything() {
    let dir = scratch();
    let cwd = scratch();
    // Far more than any test machine has free: refused with the numbers.
    let assert = iolab()
        .current_dir(cwd.path())
        .args(["quick", "--size", "1048576g", "--dir"])
        .arg(dir.path())
        .assert();
    let output = assert.get_output();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("not enough free space") && stderr.contains(" is free"),
        "{stderr}"
    );
    assert!(
        entries(cwd.path()).is_empty(),
        "no iolab-results/ left behind"
    );
    assert!(entries(dir.path()).is_empty());
}
