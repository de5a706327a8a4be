//! The report's answer in one line under its title (hyperfine's summary line, a desktop benchmark's tile) and, for two files or a host against its guest, the ratio chart with its intervals that the line summarises.

use super::super::escape::escape;
use super::super::units::{count, latency, mib_per_s, significant};
use super::ReportView;
use crate::compare::{Comparison, Verdict};
use crate::plan::Machine;
use crate::record::{Point, ResultFile};
use crate::report::svg;

/// The headline: what the report answers, in one line of text.
pub(super) fn headline(view: &ReportView<'_>) -> String {
    let line = match (view.files.as_slice(), &view.comparison) {
        (_, Some(comparison)) => compared(comparison),
        ([(_, result)], None) => one_file(result),
        _ => None,
    };
    line.map_or_else(String::new, |line| {
        format!("<p class=\"headline\">{}</p>", escape(&line))
    })
}

/// How many warnings' lines the trust paragraph shows before "and N more".
const TRUST_LINES: usize = 6;

/// Whether to trust the answer, under it: the checks' warnings and errors
/// summarised as the terminal summarises them (a kind several points
/// raised on one line, with what to do), most serious first; or that none
/// was raised, and how many checks ran.
pub(super) fn trust(view: &ReportView<'_>) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut ran = 0;
    for (name, result) in &view.files {
        ran += result.points.iter().map(|p| p.checks.len()).sum::<usize>();
        let summary = crate::report::table::checks_summarised(result);
        for line in summary.lines() {
            if !(line.starts_with("warning [") || line.starts_with("error [")) {
                continue;
            }
            lines.push(match view.files.len() {
                1 => line.to_string(),
                _ => format!("{name}: {line}"),
            });
        }
    }
    if lines.is_empty() {
        return format!(
            "<p class=\"trust\">Trust: no check raised a warning or an error ({ran} note{}: Checks, below).</p>",
            if ran == 1 { "" } else { "s" }
        );
    }
    let mut html = format!(
        "<div class=\"trust\"><p><strong>Trust: {} kind{} of warning</strong>, each with what removes it (each point's checks: Checks, below):</p><ul>",
        lines.len(),
        if lines.len() == 1 { "" } else { "s" }
    );
    for line in lines.iter().take(TRUST_LINES) {
        let class = if line.contains("error [") {
            "check-error"
        } else {
            "check-warning"
        };
        html.push_str(&format!("<li class=\"{class}\">{}</li>", escape(line)));
    }
    if lines.len() > TRUST_LINES {
        html.push_str(&format!(
            "<li>and {} more kinds (Checks, below)</li>",
            lines.len() - TRUST_LINES
        ));
    }
    html.push_str("</ul></div>");
    html
}

/// Each other file against the base: how many points faster, slower, not
/// told apart, and the middle ratio.
fn compared(comparison: &Comparison) -> Option<String> {
    let lines: Vec<String> = comparison
        .pairings
        .iter()
        .filter(|pairing| !pairing.matched.is_empty())
        .map(|pairing| {
            let verdicts = |wanted: Verdict| {
                pairing
                    .matched
                    .iter()
                    .filter(|m| m.verdict == wanted)
                    .count()
            };
            let ratios: Vec<f64> = pairing.matched.iter().map(|m| m.ratio).collect();
            let untested = verdicts(Verdict::TooFewRepetitions);
            let mut line = format!(
                "{} / {}, {}: median ratio {}",
                pairing.file,
                comparison.base,
                comparison.metric.words(),
                ratio_summary(&ratios)
            );
            if untested == pairing.matched.len() {
                line.push_str(" — one repetition a side: not tested (--repeat 3)");
            } else {
                line.push_str(&format!(
                    " — {} better, {} worse, {} not significantly different, {} untested",
                    verdicts(Verdict::Better),
                    verdicts(Verdict::Worse),
                    verdicts(Verdict::NoSignificantDifference),
                    untested
                ));
            }
            line
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("; "))
}

/// `0.91 (0.45–1.02 over 8 points)`, or the one ratio.
fn ratio_summary(ratios: &[f64]) -> String {
    let mut sorted: Vec<f64> = ratios.iter().copied().filter(|r| r.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    match sorted.as_slice() {
        [] => "-".to_string(),
        [only] => format!("{only:.3}"),
        all => {
            let middle = all.len() / 2;
            let median = if all.len() % 2 == 0 {
                (all[middle - 1] + all[middle]) / 2.0
            } else {
                all[middle]
            };
            format!(
                "{median:.3} ({:.3}–{:.3} over {} points)",
                all[0],
                all[all.len() - 1],
                all.len()
            )
        }
    }
}

/// One file's answer: its guest against its host, its knee, its one point,
/// quick's tests, or its fastest and slowest points.
fn one_file(result: &ResultFile) -> Option<String> {
    if let Some(line) = guest_against_host(result) {
        return Some(line);
    }
    if let Some(knee) = &result.knee {
        let chosen = knee
            .chosen
            .as_deref()
            .and_then(|label| knee.curve.iter().find(|s| s.label == label));
        return Some(match chosen {
            Some(step) => format!(
                "knee for {}: {} at {} IOPS, p{} {}",
                knee.target,
                step.label,
                count(step.iops),
                knee.target.percentile,
                latency(step.latency_ns as f64)
            ),
            None => format!("no point met {}", knee.target),
        });
    }
    let measured: Vec<&Point> = result
        .points
        .iter()
        .filter(|p| p.summary.is_some())
        .collect();
    match measured.as_slice() {
        [] => result.points.iter().find_map(|point| {
            let cut = crate::report::table::cut_short_line(point)?;
            Some(format!("{}: {cut}", point.label))
        }),
        [only] => Some(format!("{}: {}", only.label, figures(only))),
        all => {
            // Metadata points by their operations a second, data by bytes.
            let throughput = |p: &&Point| {
                p.summary.as_ref().map_or(0.0, |s| match p.workload.items {
                    Some(_) => s.iops.mean,
                    None => s.throughput_bps.mean,
                })
            };
            let fastest = all
                .iter()
                .max_by(|a, b| throughput(a).total_cmp(&throughput(b)))?;
            let slowest = all
                .iter()
                .min_by(|a, b| throughput(a).total_cmp(&throughput(b)))?;
            Some(format!(
                "{} points; fastest {}: {}; slowest {}: {}",
                all.len(),
                fastest.label,
                figures(fastest),
                slowest.label,
                figures(slowest)
            ))
        }
    }
}

/// `237 MiB/s, 60.6k IOPS, p99 4.23 ms, n = 3`.
fn figures(point: &Point) -> String {
    let Some(summary) = &point.summary else {
        return "not measured".to_string();
    };
    // A metadata workload's operations are on files, not bytes.
    let mut text = match point.workload.items {
        Some(_) => format!("{} ops/s", count(summary.iops.mean)),
        None => format!(
            "{} MiB/s, {} IOPS",
            significant(mib_per_s(summary.throughput_bps.mean)),
            count(summary.iops.mean)
        ),
    };
    if let Some(p99) = summary.latency_ns.as_ref().and_then(|l| l.percentile(99.0)) {
        text.push_str(&format!(", p99 {}", latency(p99 as f64)));
    }
    text.push_str(&format!(", n = {}", summary.throughput_bps.n));
    text
}

/// A point's name, a ratio, and its 90% interval when there are rounds.
type Ratio = (String, f64, Option<(f64, f64)>);

/// The guest/host throughput ratio of each point measured on both.
fn guest_ratios(result: &ResultFile) -> Vec<Ratio> {
    let host_only = ResultFile {
        points: result
            .points
            .iter()
            .filter(|p| p.workload.machine == Machine::Host)
            .cloned()
            .collect(),
        ..result.clone()
    };
    crate::report::studies::guest::pairs(result)
        .into_iter()
        .filter_map(|(host, guest)| {
            let judged = crate::compare::equivalence::judge(
                host,
                guest,
                &crate::compare::Metric::from(crate::compare::Figure::Throughput),
                crate::compare::Orientation::OtherOverBase,
                crate::report::studies::guest::MARGIN,
            );
            // compare's one estimator, as the "Guest against host" table
            // gives it: the geometric mean of the rounds' ratios where both
            // sides ran in the same rounds, else the ratio of the means.
            let matched = crate::compare::compare_point(
                host,
                guest,
                &crate::compare::Metric::from(crate::compare::Figure::Throughput),
                0.05,
                crate::compare::Orientation::OtherOverBase,
            )?;
            Some((
                short_label(
                    &host_only,
                    &host.workload,
                    host.label.trim_end_matches(" machine=host"),
                    "machine",
                ),
                matched.ratio,
                judged.interval_90,
            ))
        })
        .collect()
}

/// A file of host and guest points: the guest/host throughput ratio over
/// its points, and what makes it not the cost of virtualization (TCG, the
/// host's page cache). The report's headline, and the terminal's first
/// line, above the tables that give each point's.
pub(in crate::report) fn guest_against_host(result: &ResultFile) -> Option<String> {
    let ratios = guest_ratios(result);
    if ratios.is_empty() {
        return None;
    }
    let values: Vec<f64> = ratios.iter().map(|r| r.1).collect();
    let emulated =
        result.guest.as_ref().map(|g| g.accelerator) == Some(crate::plan::guest::Accelerator::Tcg);
    let mut line = format!("guest / host throughput: median {}", ratio_summary(&values));
    if emulated {
        line.push_str(" — TCG, an emulated CPU: the guest's times measure QEMU's emulation");
    }
    // A host figure that is its page cache's makes the ratio one of memory
    // against a device: said here, not only in the checks below.
    let host: Vec<&Point> = result
        .points
        .iter()
        .filter(|p| p.workload.machine == Machine::Host)
        .collect();
    let cached = host
        .iter()
        .filter(|p| {
            p.checks
                .iter()
                .any(|c| MEMORY_CODES.contains(&c.code.as_str()))
        })
        .count();
    if cached > 0 {
        line.push_str(&format!(
            " — on {cached} of {} points the host's figure is its page cache's (cache-served, writeback-pending), not its device's: --direct compares the devices",
            host.len()
        ));
    }
    Some(line)
}

/// The checks that say a figure is memory's, not a device's.
const MEMORY_CODES: &[&str] = &["cache-served", "writeback-pending", "direct-not-honoured"];

/// A point named by the values of the parameters that vary among
/// `result`'s points (`4KiB qd1`), less `leave_out`; its label when none do.
/// A bare number says which parameter it is (`qd8`, `jobs 4`).
pub(super) fn short_label(
    result: &ResultFile,
    workload: &crate::plan::Workload,
    label: &str,
    leave_out: &str,
) -> String {
    let axes: Vec<_> = super::super::table::varying_parameters(result)
        .into_iter()
        .filter(|param| param.name() != leave_out)
        .collect();
    if axes.is_empty() {
        return label.to_string();
    }
    axes.iter()
        .filter_map(|param| {
            let value = param.format_value(param.value_in(workload)?);
            Some(match (param.name(), value.parse::<f64>().is_ok()) {
                ("iodepth", true) => format!("qd{value}"),
                (name, true) => format!("{name} {value}"),
                (_, false) => value,
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The ratio chart that answers a comparison, intervals drawn: each other
/// file over the base per point, or the guest over its host per point.
pub(super) fn ratio_chart(view: &ReportView<'_>) -> String {
    match (view.files.as_slice(), &view.comparison) {
        (_, Some(comparison)) => {
            let Some(first) = comparison.pairings.first() else {
                return String::new();
            };
            let groups: Vec<svg::BarGroup> = first
                .matched
                .iter()
                .take(super::POINTS_WITH_CURVES)
                .map(|m| svg::BarGroup {
                    label: short_label(view.files[0].1, &m.workload, &m.label, ""),
                    bars: comparison
                        .pairings
                        .iter()
                        .map(|pairing| {
                            pairing
                                .matched
                                .iter()
                                .find(|other| other.label == m.label)
                                .map(|other| (other.ratio, other.ratio_low.zip(other.ratio_high)))
                        })
                        .collect(),
                    notes: Vec::new(),
                })
                .collect();
            let names: Vec<String> = comparison
                .pairings
                .iter()
                .map(|p| format!("{} / {}", p.file, comparison.base))
                .collect();
            svg::bar_chart(
                &format!(
                    "Ratio to {} ({}, {:.0}% intervals; 1 = the same)",
                    comparison.base,
                    comparison.metric.words(),
                    (1.0 - comparison.alpha) * 100.0
                ),
                "ratio",
                &names,
                &groups,
            )
        }
        ([(_, result)], None)
            if result
                .points
                .iter()
                .any(|p| p.workload.machine == Machine::Guest) =>
        {
            let ratios = guest_ratios(result);
            if ratios.is_empty() {
                return String::new();
            }
            let groups: Vec<svg::BarGroup> = ratios
                .into_iter()
                .take(super::POINTS_WITH_CURVES)
                .map(|(label, ratio, interval)| svg::BarGroup {
                    label,
                    bars: vec![Some((ratio, interval))],
                    notes: Vec::new(),
                })
                .collect();
            svg::bar_chart(
                "Guest / host throughput (90% intervals over rounds; 1 = the same)",
                "ratio",
                &["guest / host".to_string()],
                &groups,
            )
        }
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::study::StudyTable;
    use crate::report::studies::testing::{file, point};

    /// A chart's label says which parameter a bare number is: `4KiB qd1`,
    /// not `4KiB 1`.
    #[test]
    fn a_bare_number_in_a_label_names_its_parameter() {
        let mut result = file(StudyTable::DdBlocksize);
        for (bs, iodepth) in [(4096, 1), (65536, 8)] {
            let workload = crate::plan::Workload {
                bs,
                iodepth,
                size: 1 << 20,
                ..crate::plan::example_workload()
            };
            result.points.push(point(workload, &[1.0]));
        }
        let workload = &result.points[1].workload;
        assert_eq!(short_label(&result, workload, "p", ""), "64KiB qd8");
    }

    /// A host's buffered read served by its page cache beside its guest:
    /// the headline says the host's figure is memory's, and what compares
    /// the devices.
    #[test]
    fn a_cache_served_host_is_named_in_the_guest_headline() {
        let mut result = file(StudyTable::DdBlocksize);
        for (machine, seconds) in [(Machine::Host, [0.1, 0.1]), (Machine::Guest, [1.0, 1.1])] {
            let mut measured = point(
                crate::plan::Workload {
                    machine,
                    size: 1 << 20,
                    bs: 4096,
                    ..crate::plan::example_workload()
                },
                &seconds,
            );
            measured.label = format!("p machine={}", machine.name());
            for (round, repetition) in measured.repetitions.iter_mut().enumerate() {
                repetition.round = Some(round as u32);
            }
            measured.summary = crate::stats::summarize(&measured).unwrap();
            result.points.push(measured);
        }
        let plain = guest_against_host(&result).expect("a guest against its host");
        assert!(!plain.contains("page cache"), "{plain}");
        result.points[0].checks.push(crate::record::Check {
            code: "cache-served".into(),
            severity: crate::record::Severity::Warning,
            message: "served from memory".into(),
            evidence: None,
        });
        let line = guest_against_host(&result).unwrap();
        assert!(
            line.contains("on 1 of 1 points the host's figure is its page cache's")
                && line.contains("--direct compares the devices"),
            "{line}"
        );
    }

    #[test]
    fn ratios_are_summarised_by_their_median_and_range() {
        assert_eq!(ratio_summary(&[]), "-");
        assert_eq!(ratio_summary(&[0.5]), "0.500");
        assert_eq!(
            ratio_summary(&[2.0, 0.5, 1.0, f64::NAN]),
            "1.000 (0.500–2.000 over 3 points)"
        );
        assert_eq!(
            ratio_summary(&[1.0, 2.0, 3.0, 4.0]),
            "2.500 (1.000–4.000 over 4 points)"
        );
    }
}
