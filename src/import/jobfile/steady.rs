//! fio's steady-state options (`steadystate`/`ss`, `steadystate_duration`/`ss_dur`, `steadystate_ramp_time`/`ss_ramp`, `steadystate_check_interval`/`ss_interval`) read as iolab's steady-state criterion — the same test on the same measure over the same window, fio's per-sample slope limit turned into iolab's across the window — where iolab's stop is fio's: one job, a phase of its own.
//!
//! fio (steadystate.c) samples a job's IOPS, bandwidth or (fio 3.42) mean
//! completion latency once a check interval (1 s by default; iolab's
//! interval for the point) from one interval after `ss_ramp`; over the
//! last `ss_dur` seconds it takes either the
//! largest deviation from the mean (`iops`, `bw`, `lat`) or the least-squares
//! slope per sample (`iops_slope`, `bw_slope`, `lat_slope`), as a percent
//! of the mean when the limit has `%`, and ends the job once it is below
//! the limit. iolab's `range` is the first; its `slope` is the line's
//! change across the window, so fio's per-sample limit L% over n samples
//! is L × (n − 1)%.

use crate::import::option;
use crate::import::units::fio_seconds;
use crate::plan::steady::{SteadyCriterion, SteadyMetric, SteadyTest};
use serde_json::{Map, Value};

/// A criterion read, the note saying how, and fio's check interval (s).
type Read = (SteadyCriterion, String, f64);

/// fio's default criterion, when `ss_dur` comes without `ss`.
const FIO_DEFAULT: &str = "iops_slope:0.01%";

/// What a section's steady-state options say: `Ok(None)` without them;
/// the criterion, the note saying how it was read and fio's check
/// interval (seconds); or the key and why it cannot be followed.
pub(super) fn criterion(
    options: &Map<String, Value>,
) -> Result<Option<Read>, (&'static str, String)> {
    let given = option(options, "steadystate");
    let duration = option(options, "steadystate_duration");
    if given.is_none() && duration.is_none() {
        return Ok(None);
    }
    let seconds = |key: &'static str, text: &str| {
        fio_seconds(text).ok_or((key, format!("{key}={text} is not a time iolab reads")))
    };
    let window_s = match duration {
        Some(text) => seconds("steadystate_duration", text)?,
        None => 0.0,
    };
    let text = given.unwrap_or(FIO_DEFAULT);
    if window_s == 0.0 {
        // fio judges nothing without a duration (td_steadystate_init).
        return Err((
            "steadystate",
            format!(
                "steadystate={text} without ss_dur: fio judges steady state only over ss_dur seconds, and ignores it (remove it, or give ss_dur)"
            ),
        ));
    }
    // fio samples once a check interval (1 s unless given; at least 1 s,
    // dividing ss_dur, init.c): iolab's interval for the point.
    let every_s = match option(options, "steadystate_check_interval") {
        Some(text) => seconds("steadystate_check_interval", text)?,
        None => 1.0,
    };
    if every_s < 1.0 {
        return Err((
            "steadystate_check_interval",
            format!("steadystate_check_interval={every_s} s: fio takes at least 1 s"),
        ));
    }
    let samples = window_s / every_s;
    if samples.fract() != 0.0 || samples < 2.0 {
        return Err((
            "steadystate_duration",
            format!(
                "steadystate_duration={window_s} s is not a multiple of the check interval {every_s} s above it (fio refuses it too)"
            ),
        ));
    }
    // fio begins its samples one check interval after ss_ramp
    // (steadystate_check: "one check interval after ss->ramp_time").
    let ramp_s = match option(options, "steadystate_ramp_time") {
        Some(text) => seconds("steadystate_ramp_time", text)?,
        None => 0.0,
    };
    let after_s = if ramp_s > 0.0 { ramp_s + every_s } else { 0.0 };
    let refuse = |why: &str| ("steadystate", format!("steadystate={text}: {why}"));
    let (name, limit) = text
        .split_once(':')
        .ok_or_else(|| refuse("fio takes CRITERION:LIMIT, such as iops:10% or bw_slope:1%"))?;
    let (metric, test) = match name.trim() {
        "iops" => (SteadyMetric::Iops, SteadyTest::Range),
        "iops_slope" => (SteadyMetric::Iops, SteadyTest::Slope),
        "bw" => (SteadyMetric::Bandwidth, SteadyTest::Range),
        "bw_slope" => (SteadyMetric::Bandwidth, SteadyTest::Slope),
        "lat" => (SteadyMetric::Latency, SteadyTest::Range),
        "lat_slope" => (SteadyMetric::Latency, SteadyTest::Slope),
        other => return Err(refuse(&format!("{other} is not one of fio's criteria"))),
    };
    let percent: f64 = limit
        .trim()
        .strip_suffix('%')
        .ok_or_else(|| {
            refuse("an absolute limit (I/Os or bytes a second): iolab's limits are a percent of the window's mean; give LIMIT%")
        })?
        .trim()
        .parse()
        .ok()
        .filter(|p: &f64| *p > 0.0)
        .ok_or_else(|| refuse("the limit is not a positive percent"))?;
    let across = match test {
        SteadyTest::Range => percent,
        SteadyTest::Slope => percent * (samples - 1.0),
    };
    let criterion: SteadyCriterion = format!(
        "{}:{}<{across}%/{window_s}s{}",
        match metric {
            SteadyMetric::Iops => "iops",
            SteadyMetric::Bandwidth => "bw",
            SteadyMetric::Latency => "lat",
        },
        match test {
            SteadyTest::Range => "range",
            SteadyTest::Slope => "slope",
        },
        if after_s > 0.0 {
            format!(":after={after_s}s")
        } else {
            String::new()
        }
    )
    .parse()
    .map_err(|why: String| refuse(&why))?;
    let note = format!(
        "steadystate={text} over {window_s} s{}: iolab's steady-state criterion {criterion}{}; the job ends once it is met, at its runtime otherwise, as fio's",
        if ramp_s > 0.0 {
            format!(" after {ramp_s} s of ramp (fio's samples start one check interval later)")
        } else {
            String::new()
        },
        match test {
            SteadyTest::Slope => format!(
                " (fio's limit on the slope per {every_s} s sample, {percent}% of the mean, across the window's {} steps from sample to sample)",
                samples - 1.0
            ),
            SteadyTest::Range => String::new(),
        }
    );
    let note = if every_s == 1.0 {
        note
    } else {
        format!("{note}; judged on {every_s} s intervals, fio's check interval")
    };
    Ok(Some((criterion, note, every_s)))
}

/// Sets `workload`'s criterion from its section's `options`; the note
/// saying how it was read and fio's check interval (seconds), `None`
/// without steady-state options, or the key and why it cannot be followed.
pub(super) fn apply(
    workload: &mut crate::plan::Workload,
    options: &Map<String, Value>,
) -> Result<Option<(String, f64)>, (&'static str, String)> {
    let Some((mut criterion, mut note, every_s)) = criterion(options)? else {
        return Ok(None);
    };
    // fio judges a group's sum (group_reporting), as iolab's `:sum`, or
    // ends each job on its own, which iolab's stop does not.
    if workload.jobs > 1 || option(options, "numjobs").is_some_and(|n| n.trim() != "1") {
        if !crate::import::truthy(options, "group_reporting") {
            return Err((
                "steadystate",
                "steadystate with numjobs above 1 and no group_reporting: fio ends each job on its own once it is steady, iolab's stop ends the point (give group_reporting, where fio judges the jobs' sum as iolab's :sum, or numjobs=1)".to_string(),
            ));
        }
        if criterion.metric == SteadyMetric::Latency {
            return Err((
                "steadystate",
                "a latency criterion on numjobs above 1: fio judges the mean latency of all the group's I/Os, iolab's :sum adds the jobs' series (give numjobs=1)".to_string(),
            ));
        }
        criterion.summed = true;
        note = format!(
            "{note}; with group_reporting fio judges the sum of the group's jobs, as iolab's :sum"
        );
    }
    if workload.runtime_s.is_none() {
        return Err((
            "steadystate",
            "steadystate on a job without time_based and runtime: iolab judges steady state within a runtime (add time_based and runtime=, the longest it may take)".to_string(),
        ));
    }
    workload.steady = Some(criterion);
    Ok(Some((note, every_s)))
}

/// Checks that each group of `steady` (its number among all phases'
/// groups in file order, and the line of its criterion) has its phase to
/// itself: fio ends a steady group alone, iolab's steady stop ends the
/// point. The line and why otherwise.
pub(super) fn alone_in_phase(
    phases: &[Vec<crate::plan::group::Group>],
    steady: &[(usize, usize)],
) -> Result<(), (usize, String)> {
    let mut first = 0;
    for phase in phases {
        let range = first..first + phase.len();
        first = range.end;
        let found = steady.iter().find(|(group, _)| range.contains(group));
        if let (Some(&(group, line)), true) = (found, phase.len() > 1) {
            return Err((
                line,
                format!(
                    "[{}] steadystate beside other sections in its phase: fio ends the steady group alone, iolab's steady stop ends every group of the point (give it a phase of its own: stonewall)",
                    phase[group - range.start].name
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<Option<(SteadyCriterion, String)>, String> {
        let options: Map<String, Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect();
        criterion(&options)
            .map(|read| read.map(|(criterion, note, _)| (criterion, note)))
            .map_err(|(_, why)| why)
    }

    #[test]
    fn only_where_iolabs_stop_is_fios() {
        let options: Map<String, Value> =
            [("steadystate", "iops:5%"), ("steadystate_duration", "3")]
                .iter()
                .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
                .collect();
        let mut workload = crate::plan::default_workload();
        let (key, why) = apply(&mut workload, &options).unwrap_err();
        assert!(
            key == "steadystate" && why.contains("without time_based"),
            "{why}"
        );
        workload.runtime_s = Some(30.0);
        assert!(apply(&mut workload, &options).unwrap().is_some());
        assert!(workload.steady.is_some());
        workload.jobs = 2;
        assert!(
            apply(&mut workload, &options)
                .unwrap_err()
                .1
                .contains("numjobs above 1")
        );
        let group = |name: &str| crate::plan::group::Group {
            name: name.to_string(),
            workload: crate::plan::default_workload(),
        };
        let phases = vec![vec![group("a")], vec![group("b"), group("c")]];
        assert!(alone_in_phase(&phases, &[(0, 7)]).is_ok());
        let (line, why) = alone_in_phase(&phases, &[(2, 9)]).unwrap_err();
        assert_eq!(line, 9);
        assert!(
            why.starts_with("[c] steadystate beside other sections"),
            "{why}"
        );
    }

    #[test]
    fn fios_criteria_read_as_iolabs_over_the_same_window() {
        let (deviation, _) = read(&[
            ("steadystate", "iops:10%"),
            ("steadystate_duration", "30s"),
            ("steadystate_ramp_time", "10s"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(deviation.to_string(), "iops:range<10%/30s:after=11s");
        let (slope, note) = read(&[
            ("steadystate", "bw_slope:1%"),
            ("steadystate_duration", "10"),
        ])
        .unwrap()
        .unwrap();
        // 1% a second across 9 seconds of slope.
        assert_eq!(slope.to_string(), "bw:slope<9%/10s");
        assert!(note.contains("per 1 s sample"), "{note}");
        let (default, _) = read(&[("steadystate_duration", "60")]).unwrap().unwrap();
        assert_eq!(default.metric, SteadyMetric::Iops);
        assert!((default.limit - 0.0059).abs() < 1e-9, "{}", default.limit);
        assert!(read(&[]).unwrap().is_none());
        // fio 3.42's latency criterion, sampled every 10 s: fio's own
        // example_latency_steadystate.fio (its samples begin one check
        // interval after the ramp).
        let (latency, note) = read(&[
            ("steadystate", "lat:5%"),
            ("steadystate_duration", "300"),
            ("steadystate_ramp_time", "60"),
            ("steadystate_check_interval", "10"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(latency.to_string(), "lat:range<5%/300s:after=70s");
        assert!(note.contains("10 s intervals"), "{note}");
        // 2% per 10 s sample across 30 samples' 29 steps.
        let (slope, _) = read(&[
            ("steadystate", "lat_slope:2%"),
            ("steadystate_duration", "5m"),
            ("steadystate_check_interval", "10s"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(slope.to_string(), "lat:slope<58%/300s");
        for (pairs, said) in [
            (vec![("steadystate", "iops:10%")], "without ss_dur"),
            (
                vec![("steadystate", "iops:100"), ("steadystate_duration", "30")],
                "an absolute limit",
            ),
            (
                vec![
                    ("steadystate", "bw:1%"),
                    ("steadystate_duration", "35"),
                    ("steadystate_check_interval", "10"),
                ],
                "not a multiple of the check interval",
            ),
            (
                vec![
                    ("steadystate", "bw:1%"),
                    ("steadystate_duration", "3"),
                    ("steadystate_check_interval", "500ms"),
                ],
                "at least 1 s",
            ),
        ] {
            let why = read(&pairs).unwrap_err();
            assert!(why.contains(said), "{pairs:?}: {why}");
        }
    }
}
