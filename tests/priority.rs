//! `--priority` and fio's `prioclass`/`prio`/`cmdprio_*`: the same job file run by fio 3.33 and by iolab tags the same share of each direction's I/Os with the same priorities, and keeps latency per priority as fio's `prios` do.

use crate::fast::jobfiles::{fio_json, run_fio, write_job};
use crate::mounts::have;
use crate::util::*;
use serde_json::Value;

/// A mixed job at the idle class with a fifth of its reads real-time 0 and
/// half its writes best-effort 3, O_DIRECT on a 8 MiB file: 2048 I/Os.
const MIXED: &str = "[j]\ndirectory=DIR\nsize=8m\nbs=4k\nrw=randrw\nrwmixread=50\ndirect=1\nioengine=libaio\niodepth=4\nprioclass=3\ncmdprio_percentage=20,50\ncmdprio_class=1,2\ncmdprio=0,3\n";

/// fio's `prios` of `direction`: (class, level, I/Os) of each.
fn fio_prios(fio: &Value, direction: &str) -> Vec<(u64, u64, u64)> {
    let mut prios: Vec<_> = fio["jobs"][0][direction]["prios"]
        .as_array()
        .unwrap_or_else(|| panic!("fio keeps {direction} prios: {}", fio["jobs"][0]))
        .iter()
        .map(|p| {
            let latency = if p["clat_ns"].is_object() {
                &p["clat_ns"]
            } else {
                &p["lat_ns"]
            };
            (
                p["prioclass"].as_u64().unwrap(),
                p["prio"].as_u64().unwrap(),
                latency["N"].as_u64().unwrap(),
            )
        })
        .collect();
    prios.sort();
    prios
}

/// iolab's priorities of `direction` in its first repetition: (priority
/// as written, whether carried per request, I/Os) of each.
fn iolab_prios(result: &Value, direction: &str) -> Vec<(String, bool, u64)> {
    let repetition = &first_point(result)["groups"][0]["repetitions"][0];
    repetition["priorities"]
        .as_array()
        .unwrap_or_else(|| panic!("priorities recorded: {repetition}"))
        .iter()
        .filter(|p| p["direction"] == direction)
        .map(|p| {
            (
                p["priority"].as_str().unwrap_or("").to_string(),
                p["per_command"].as_bool().unwrap(),
                p["latency_ns"]["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_share_of_each_direction_carries_its_priority_as_in_fio() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
    if !direct_io_works(dir.path()) {
        return;
    }
    let fio_job = write_job(out.path(), "prio-fio.fio", MIXED, fio_dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&fio_job, &fio_output);
    let fio = fio_json(&fio_output);
    // Imported, fio's figures say which priorities their I/Os went at.
    let imported = crate::fast::import::imported_point(&fio_output, out.path());
    assert_eq!(
        imported["workload"]["priority"],
        "idle,read=20%:rt/0,write=50%:be/3"
    );
    let job = write_job(out.path(), "prio.fio", MIXED, dir.path());
    let result = run_ok(&["run", job.to_str().unwrap()], out.path());
    assert_eq!(
        first_point(&result)["groups"][0]["workload"]["priority"],
        "idle,read=20%:rt/0,write=50%:be/3"
    );
    // (direction, fio's class and level of the share, iolab's, percent)
    for (direction, (class, level), named, percent) in
        [("read", (1, 0), "rt/0", 20), ("write", (2, 3), "be/3", 50)]
    {
        let fio_prios = fio_prios(&fio, direction);
        let fio_total: u64 = fio_prios.iter().map(|p| p.2).sum();
        let fio_carried = fio_prios
            .iter()
            .find(|p| (p.0, p.1) == (class, level))
            .map_or(0, |p| p.2);
        // The rest at the job's class, idle (3), level 0.
        assert!(
            fio_prios
                .iter()
                .all(|p| (p.0, p.1) == (class, level) || (p.0, p.1) == (3, 0))
        );
        let ours = iolab_prios(&result, direction);
        assert_eq!(ours.len(), 2, "{ours:?}");
        assert_eq!((ours[0].0.as_str(), ours[0].1), (named, true));
        assert_eq!((ours[1].0.as_str(), ours[1].1), ("idle", false));
        let total = ours[0].2 + ours[1].2;
        let direction_ops = first_point(&result)["groups"][0]["repetitions"][0]["directions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["direction"] == direction)
            .unwrap()["ops"]
            .as_u64()
            .unwrap();
        assert_eq!(total, direction_ops, "the two sides hold every {direction}");
        // About half of 2048 I/Os each way: the share within 6 points
        // (over 3.5 standard deviations) of the asked percentage in both.
        for (tool, carried, all) in [("fio", fio_carried, fio_total), ("iolab", ours[0].2, total)] {
            let share = 100.0 * carried as f64 / all as f64;
            assert!(
                (share - percent as f64).abs() < 6.0,
                "{tool}: {carried} of {all} {direction}s carried {named}, asked {percent}%"
            );
        }
    }
    let point = first_point(&result);
    let checks = point["groups"][0]["checks"].to_string() + &point["checks"].to_string();
    assert!(checks.contains("command-priority"), "{checks}");
}

/// Sequential reads of two sizes (so neither tool's random map shortens
/// an I/O to a size no share names), half of the 4 KiB ones real-time 1,
/// half idle, a fifth of the 16 KiB ones best-effort 0: of all reads about
/// 25%, 25%, 10% and the rest (40%) at the thread's.
const SPLIT: &str = "[j]\ndirectory=DIR\nsize=16m\nrw=read\nbssplit=4k/50:16k/50\ndirect=1\nioengine=libaio\niodepth=4\ncmdprio_bssplit=4k/50/1/1:4k/50/3/0:16k/20/2/0\n";

/// `iolab fio JOB --output-format=json`'s answer.
fn answer_of(job: &std::path::Path, dir: &std::path::Path) -> Value {
    let words = [job.to_str().unwrap().to_string()];
    crate::fast::fio_command_line::json_of("iolab", dir, "answer", &words)
}

#[test]
fn shares_of_one_block_size_carry_their_priorities_as_in_fio() {
    if !crate::fast::import::fio_available() {
        return;
    }
    let (fio_dir, dir, out) = (scratch(), scratch(), scratch());
    if !direct_io_works(dir.path()) {
        return;
    }
    let fio_job = write_job(out.path(), "split-fio.fio", SPLIT, fio_dir.path());
    let fio_output = out.path().join("fio.json");
    run_fio(&fio_job, &fio_output);
    let fio = fio_json(&fio_output);
    let job = write_job(out.path(), "split.fio", SPLIT, dir.path());
    let result = run_ok(&["run", job.to_str().unwrap()], out.path());
    assert_eq!(
        first_point(&result)["groups"][0]["workload"]["priority"],
        "read=4KiB/50%:rt/1,read=4KiB/50%:idle,read=16KiB/20%:be/0"
    );
    let answered = fio_prios(&answer_of(&job, out.path()), "read");
    let fio_prios = fio_prios(&fio, "read");
    let fio_total: u64 = fio_prios.iter().map(|p| p.2).sum();
    // `iolab fio` writes them in fio's JSON as fio does: the same
    // priorities, every read in one of them.
    let classes = |prios: &[(u64, u64, u64)]| prios.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>();
    assert_eq!(classes(&answered), classes(&fio_prios), "{answered:?}");
    let answered_total: u64 = answered.iter().map(|p| p.2).sum();
    assert!(
        (1500..1900).contains(&answered_total),
        "{answered:?}: every read"
    );
    let ours = iolab_prios(&result, "read");
    let total: u64 = ours.iter().map(|p| p.2).sum();
    // (fio's class and level, iolab's name, percent of all reads)
    for ((class, level), named, percent) in [
        ((1, 1), "rt/1", 25.0),
        ((3, 0), "idle", 25.0),
        ((2, 0), "be/0", 10.0),
        ((0, 0), "", 40.0),
    ] {
        let fio_count = fio_prios
            .iter()
            .find(|p| (p.0, p.1) == (class, level))
            .map_or(0, |p| p.2);
        let our_count = ours
            .iter()
            .find(|p| p.0 == named && p.1 != named.is_empty())
            .map_or(0, |p| p.2);
        // About 1,650 reads: each within 6 points (over 4 standard
        // deviations) of the share asked, in both tools.
        for (tool, count, all) in [("fio", fio_count, fio_total), ("iolab", our_count, total)] {
            let share = 100.0 * count as f64 / all as f64;
            assert!(
                (share - percent).abs() < 6.0,
                "{tool}: {count} of {all} reads at '{named}', {percent}% expected: fio {fio_prios:?}, iolab {ours:?}"
            );
        }
    }
}

#[test]
fn a_priority_per_io_is_refused_where_requests_carry_none() {
    let (dir, out) = (scratch(), scratch());
    let said = run_refused(
        dir.path(),
        &[
            "--engine",
            "psync",
            "--size",
            "1m",
            "--priority",
            "idle,20%:rt/0",
        ],
        "libaio's and io_uring's requests only",
    );
    assert_eq!(message_lines(&said), 1, "{said}");
    run_refused(dir.path(), &["--priority", "be/8"], "'be/8'");
    assert!(entries(dir.path()).is_empty(), "nothing created");
    let job = write_job(
        out.path(),
        "psync.fio",
        "[j]\ndirectory=DIR\nsize=1m\nrw=randread\nioengine=psync\ncmdprio_percentage=20\n",
        dir.path(),
    );
    let said = run_refused(dir.path(), &[job.to_str().unwrap()], "psync.fio line 6");
    assert!(said.contains("cmdprio_percentage"), "{said}");
    for (options, says) in [
        ("cmdprio_bssplit=4k/60:4k/50", "more than 100%"),
        (
            "cmdprio_bssplit=4k/20\ncmdprio_percentage=10",
            "mutually exclusive",
        ),
        ("cmdprio_bssplit=4k/20/0/1", "class 0"),
        ("cmdprio_bssplit=4k/20/1", "BS/PERCENT/CLASS/LEVEL"),
    ] {
        let job = write_job(
            out.path(),
            "split.fio",
            &format!("[j]\ndirectory=DIR\nsize=1m\nrw=randread\nioengine=libaio\n{options}\n"),
            dir.path(),
        );
        let said = run_refused(dir.path(), &[job.to_str().unwrap()], says);
        assert!(said.contains("cmdprio_bssplit"), "{said}");
    }
    // The job's own priority goes with any engine: the thread's.
    let result = run_ok(
        &[
            "run",
            "--engine",
            "psync",
            "--size",
            "1m",
            "--priority",
            "be/7",
            "--dir",
            dir.path().to_str().unwrap(),
        ],
        out.path(),
    );
    assert_eq!(first_point(&result)["workload"]["priority"], "be/7");
}

#[test]
fn strace_sees_the_priorities_the_result_counts() {
    if !have("strace") {
        crate::skip!("strace is not installed (scripts/test installs it)");
        return;
    }
    let (dir, out) = (scratch(), scratch());
    if !direct_io_works(dir.path()) {
        return;
    }
    let trace = out.path().join("trace");
    let output = out.path().join("r.json");
    let mut command = assert_cmd::Command::from_std(std::process::Command::new("strace"));
    command
        .args(["-f", "-qq", "-e", "trace=io_submit,ioprio_set", "-o"])
        .arg(&trace)
        .arg(assert_cmd::cargo::cargo_bin("iolab"))
        .args(["run", "--dir"])
        .arg(dir.path())
        .args([
            "--engine",
            "libaio",
            "--direct",
            "--op",
            "read",
            "--pattern",
            "random",
            "--size",
            "4m",
            "--iodepth",
            "4",
            "--priority",
            "idle,25%:rt/0",
            "--output",
        ])
        .arg(&output);
    succeed(&mut command);
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        text.contains(
            "ioprio_set(IOPRIO_WHO_PROCESS, 0, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)) = 0"
        ),
        "{text}"
    );
    let tagged = text
        .matches("aio_reqprio=IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 0)")
        .count() as u64;
    let result = read_result(&output);
    let carried: u64 = first_point(&result)["repetitions"][0]["priorities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["per_command"] == true)
        .map(|p| p["latency_ns"]["count"].as_u64().unwrap())
        .sum();
    assert!(carried > 0);
    assert_eq!(
        tagged, carried,
        "the requests strace saw tagged are those counted"
    );
}
