//! Comparison output: a table per file pair, ratio matrices for grids (the UPC IOzone study's Table 4), the environment difference; as terminal text, Markdown or CSV.

use super::screen::Screen;
use super::units::{count, digits3, latency, mib_per_s, significant};
use crate::compare::{Comparison, Figure, Matched, Metric, Orientation, Pairing, Verdict, grids};
use crate::plan::units::format_size;
use comfy_table::presets::ASCII_MARKDOWN;
use comfy_table::{CellAlignment, Table};
use std::collections::BTreeSet;

/// Terminal tables, or the same as Markdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Box-drawing tables fitted to a screen.
    Terminal(Screen),
    /// Pipe tables.
    Markdown,
}

/// A mean in a table cell: throughput in the header's unit (MiB/s), other
/// figures with their own.
fn value(metric: &Metric, v: f64) -> String {
    match metric.figure {
        Figure::Throughput => significant(mib_per_s(v)),
        Figure::Iops => count(v),
        Figure::P50 | Figure::P99 => latency(v),
        Figure::Cpu => format!("{:.0}%", v * 100.0),
        // Three significant digits at any size: a 0.3 ms run is not "0.00 s".
        Figure::Time => format!("{} s", digits3(v)),
        Figure::Messages => count(v),
        Figure::WireBytes => crate::report::units::bytes(v.round() as u64),
    }
}

fn ratio_text(m: &Matched) -> String {
    match interval_text(m) {
        Some(interval) => format!("{:.3} [{interval}]", m.ratio),
        None => format!("{:.3}", m.ratio),
    }
}

/// A ratio's interval (`0.912–1.044`, `0.00213–14.4`, or `unbounded`),
/// each bound to three significant digits so that none above zero reads as
/// `0.000`; `None` without one (n < 2).
pub fn interval_text(m: &Matched) -> Option<String> {
    match (m.ratio_low, m.ratio_high) {
        (Some(low), Some(high)) => Some(format!("{}–{}", digits3(low), digits3(high))),
        _ if m.ratio_unbounded => Some("unbounded".into()),
        _ => None,
    }
}

/// The inference rule and Δ%, said wherever a comparison is shown.
pub fn rule_text(metric: &Metric, alpha: f64) -> String {
    format!("{}. {}", metric.delta_definition(), inference_rule(alpha))
}

/// The one inference rule of every comparison.
fn inference_rule(alpha: f64) -> String {
    format!(
        "Ratio: the ratio of the means, its interval Fieller's at {:.0}% with Welch's degrees of \
         freedom; Δ% from that ratio. Verdict: that interval's — faster/slower, less/more CPU when it \
         excludes 1, which is when Welch's test at α = {alpha} finds a difference (p in --format csv \
         or json); an interval that cannot bound a ratio of positive figures above zero is \
         unbounded and decides nothing.",
        (1.0 - alpha) * 100.0
    )
}

/// How points measured in the same rounds are compared.
const PAIRED_RULE: &str = "Points both sides measured in the same rounds (a guest's boots, A B | B A) are paired by round instead: the ratio is the geometric mean of the per-round ratios, its interval a t interval of their logarithms (never below zero), Δ% from that ratio, and the verdict that interval's.";

/// A verdict in the words every comparison shows.
pub fn verdict_text(verdict: Verdict, metric: &Metric) -> &'static str {
    let cpu = metric.figure == Figure::Cpu;
    match verdict {
        Verdict::Better if cpu => "less CPU",
        Verdict::Worse if cpu => "more CPU",
        Verdict::Better => "faster",
        Verdict::Worse => "slower",
        Verdict::NoSignificantDifference => "not significant",
        Verdict::TooFewRepetitions => "not tested: n < 2 (--repeat 3)",
    }
}

/// `table` laid out for `style`: fitted to a terminal's screen, or as it is.
fn shown(table: &Table, style: Style) -> String {
    match style {
        Style::Terminal(screen) => screen.fit(table),
        Style::Markdown => table.to_string(),
    }
}

fn new_table(style: Style) -> Table {
    match style {
        Style::Terminal(screen) => screen.table(),
        Style::Markdown => {
            let mut table = Table::new();
            table.load_style(ASCII_MARKDOWN);
            table
        }
    }
}

/// Renders the whole comparison.
pub fn render(comparison: &Comparison, style: Style) -> String {
    let orientation = match comparison.orientation {
        Orientation::OtherOverBase => "other/base",
        Orientation::BaseOverOther => "base/other",
    };
    let mut text = String::new();
    for pairing in &comparison.pairings {
        let shortened = names_shortened(pairing, &comparison.metric, comparison.alpha, style);
        let answer = answer(comparison, pairing, shortened);
        text.push_str(&match style {
            Style::Terminal(screen) => format!("{}\n", screen.wrap(&answer)),
            Style::Markdown => format!("**{answer}**\n\n"),
        });
        let paired = pairing
            .matched
            .iter()
            .filter(|m| m.paired_rounds.is_some())
            .count();
        let test = match paired {
            0 => "Welch's test",
            n if n == pairing.matched.len() => "paired by round",
            _ => "Welch's test, paired by round where both were measured in rounds",
        };
        let heading = format!(
            "{} vs {}: {}, ratio = {orientation} with its {:.0}% interval, {test} at α = {}",
            comparison.base,
            pairing.file,
            match (comparison.metric.words(), comparison.metric.to_string()) {
                (words, name) if words == name => words,
                (words, name) => format!("{words} (--metric {name})"),
            },
            (1.0 - comparison.alpha) * 100.0,
            comparison.alpha
        );
        text.push_str(&match style {
            Style::Terminal(screen) => format!("{}\n", screen.wrap(&heading)),
            Style::Markdown => format!("## {heading}\n\n"),
        });
        if let Some(order) = executed_order(pairing, &comparison.base) {
            text.push_str(&format!("{}\n", wrapped(style, &order)));
        }
        text.push_str(&format!(
            "{}\n",
            wrapped(style, comparison.metric.delta_definition())
        ));
        text.push_str(&points(
            pairing,
            &comparison.metric,
            comparison.alpha,
            style,
            shortened,
        ));
        for (title, cells) in grids(&pairing.matched) {
            text.push_str(&matrix(&title, &cells, style));
        }
        for (list, name) in [
            (&pairing.only_in_base, &comparison.base),
            (&pairing.only_in_other, &pairing.file),
        ] {
            if !list.is_empty() {
                text.push_str(&format!(
                    "\nonly in {name} ({}): {}\n",
                    list.len(),
                    list.join("; ")
                ));
            }
        }
        // What differs in the machines, after the answer it qualifies.
        text.push('\n');
        text.push_str(&environment(pairing, style));
    }
    // Δ% was defined above each table; the rule closes the comparison.
    let mut rule = inference_rule(comparison.alpha);
    if comparison
        .pairings
        .iter()
        .flat_map(|p| &p.matched)
        .any(|m| m.paired_rounds.is_some())
    {
        rule.push(' ');
        rule.push_str(PAIRED_RULE);
    }
    text.push_str(&wrapped(style, &rule));
    text.push('\n');
    let margin = comparison
        .pairings
        .iter()
        .flat_map(|p| &p.matched)
        .find_map(|m| m.equivalence.as_ref().map(|e| e.margin));
    if let Some(margin) = margin {
        text.push_str(&wrapped(
            style,
            &format!(
                "Within the margin: {}.\n",
                crate::compare::equivalence::rule(margin)
            ),
        ));
    }
    text
}

/// The order the sides ran in, round by round, as one line (`A` = the
/// base); when the points' orders differ, the first point's, saying so.
fn executed_order(pairing: &Pairing, base: &str) -> Option<String> {
    let mut orders = pairing
        .matched
        .iter()
        .filter_map(|m| m.executed_order.as_ref());
    let first = orders.next()?;
    let alike = orders.all(|o| o == first);
    let rounds: Vec<String> = first
        .iter()
        .enumerate()
        .map(|(round, order)| {
            let sides: Vec<String> = order.chars().map(String::from).collect();
            format!("{} {}", round + 1, sides.join(" "))
        })
        .collect();
    Some(format!(
        "order that ran, by round (A = {base}, B = {}, from each repetition's sequence number): {}{}",
        pairing.file,
        rounds.join(" | "),
        if alike {
            ""
        } else {
            " (the first point's; other points ran in other orders)"
        }
    ))
}

/// The answer, in one line before the method: for one point, the ratio
/// with its interval and the verdict; for several, how many differ (the
/// first three named with their ratios) and how many do not.
pub fn answer(comparison: &Comparison, pairing: &Pairing, shortened: bool) -> String {
    let (over, under) = match comparison.orientation {
        Orientation::OtherOverBase => (&pairing.file, &comparison.base),
        Orientation::BaseOverOther => (&comparison.base, &pairing.file),
    };
    let metric = &comparison.metric;
    let words = metric.words();
    match pairing.matched.as_slice() {
        [] => format!(
            "{} against {}: no point in common",
            pairing.file, comparison.base
        ),
        [m] => {
            let interval = interval_text(m).map_or_else(String::new, |i| format!(" [{i}]"));
            let said = match m.verdict {
                Verdict::Better | Verdict::Worse => {
                    format!("{} is {}", pairing.file, verdict_text(m.verdict, metric))
                }
                Verdict::NoSignificantDifference => "no significant difference".to_string(),
                Verdict::TooFewRepetitions => verdict_text(m.verdict, metric).to_string(),
            };
            let n = match m.paired_rounds {
                Some(rounds) => format!("{rounds} rounds, paired"),
                None => format!("{}/{}", m.base.n, m.other.n),
            };
            format!(
                "{over}: {:.3}× {under}'s {words}{interval}; {said} (n = {n})",
                m.ratio
            )
        }
        all => {
            let differ: Vec<&Matched> = all
                .iter()
                .filter(|m| matches!(m.verdict, Verdict::Better | Verdict::Worse))
                .collect();
            let untested = all
                .iter()
                .filter(|m| m.verdict == Verdict::TooFewRepetitions)
                .count();
            let short = match shortened {
                true => short_names(pairing).1,
                false => Default::default(),
            };
            let named: Vec<String> = differ
                .iter()
                .take(3)
                .map(|m| {
                    format!(
                        "{}: {} {}",
                        short.get(&m.label).unwrap_or(&m.label),
                        ratio_text(m),
                        verdict_text(m.verdict, metric)
                    )
                })
                .collect();
            let more = match differ.len().saturating_sub(3) {
                0 => String::new(),
                more => format!("; {more} more"),
            };
            let mut text = format!(
                "{} against {}, {words} ({over}/{under}): {} of {} points {}",
                pairing.file,
                comparison.base,
                differ.len(),
                all.len(),
                if differ.len() == 1 {
                    "differs"
                } else {
                    "differ"
                }
            );
            if !named.is_empty() {
                text.push_str(&format!(" ({}{more})", named.join("; ")));
            }
            let quiet = all.len() - differ.len() - untested;
            if quiet > 0 {
                text.push_str(&format!("; {quiet} not significant"));
            }
            if untested > 0 {
                text.push_str(&format!("; {untested} not tested (n < 2)"));
            }
            text
        }
    }
}

/// The matched points named by what varies among them, and what they all
/// share (said once): `write 4KiB` rather than `write seq 4KiB psync
/// direct file 8MiB machine=host` in every row.
/// One point is named whole above the table, its row by its operation.
fn short_names(pairing: &Pairing) -> (String, std::collections::BTreeMap<String, String>) {
    if let [only] = pairing.matched.as_slice() {
        let op = only.workload.op.name().to_string();
        return (only.label.clone(), [(only.label.clone(), op)].into());
    }
    let labels: Vec<&str> = pairing.matched.iter().map(|m| m.label.as_str()).collect();
    let (shared, names) = super::table::split_by_what_varies(&labels);
    let by_label = labels.iter().map(|l| (*l).to_string()).zip(names).collect();
    (shared, by_label)
}

/// `text` wrapped to a terminal's width; as it is in Markdown.
fn wrapped(style: Style, text: &str) -> String {
    match style {
        Style::Terminal(screen) => screen.wrap(text),
        Style::Markdown => text.to_string(),
    }
}

fn environment(pairing: &Pairing, style: Style) -> String {
    if pairing.environment.is_empty() {
        return "environments: identical\n\n".to_string();
    }
    // Facts only one file holds (an imported fio file has no environment)
    // are one line each way, not a row each.
    let absent = |side: &str| side == crate::compare::ABSENT;
    let mut text = String::new();
    for (side, held) in [("base", true), ("other", false)] {
        let only: Vec<&str> = pairing
            .environment
            .iter()
            .filter(|d| {
                if held {
                    absent(&d.other)
                } else {
                    absent(&d.base)
                }
            })
            .map(|d| d.field.as_str())
            .collect();
        if !only.is_empty() {
            text.push_str(&wrapped(
                style,
                &format!(
                    "environment facts only in {side} ({}): {}\n",
                    only.len(),
                    abbreviated(&only, 6)
                ),
            ));
        }
    }
    let both: Vec<_> = pairing
        .environment
        .iter()
        .filter(|d| !absent(&d.base) && !absent(&d.other))
        .collect();
    if both.is_empty() {
        return format!("{text}\n");
    }
    let mut table = new_table(style);
    table.set_header(vec!["differs", "base", "other"]);
    // A terminal shows the first few; every one is in --format json|markdown.
    let rows = match style {
        Style::Terminal(_) => ENVIRONMENT_ROWS,
        Style::Markdown => usize::MAX,
    };
    for difference in both.iter().take(rows) {
        table.add_row(vec![
            difference.field.clone(),
            difference.base.clone(),
            difference.other.clone(),
        ]);
    }
    let more = match both.len().saturating_sub(rows) {
        0 => String::new(),
        n => format!("and {n} more differences (--format markdown or json lists each)\n"),
    };
    format!("{text}{}\n{more}\n", shown(&table, style))
}

/// How many environment differences a terminal shows.
const ENVIRONMENT_ROWS: usize = 8;

/// The first `shown` names and how many more.
fn abbreviated(names: &[&str], shown: usize) -> String {
    match names.len() {
        n if n <= shown => names.join(", "),
        n => format!("{} and {} more", names[..shown].join(", "), n - shown),
    }
}

/// Whether `pairing`'s points table, its points named in full, is wider
/// than `style`'s screen: then its points are named by what varies, there
/// and in the answer, what they share said once.
fn names_shortened(pairing: &Pairing, metric: &Metric, alpha: f64, style: Style) -> bool {
    let Style::Terminal(Screen { width: Some(width) }) = style else {
        return false;
    };
    let full = points(
        pairing,
        metric,
        alpha,
        Style::Terminal(Screen::UNLIMITED),
        false,
    );
    full.lines()
        .filter(|line| line.starts_with('┌'))
        .any(|line| line.chars().count() > usize::from(width))
}

fn points(pairing: &Pairing, metric: &Metric, alpha: f64, style: Style, shortened: bool) -> String {
    let unit = match metric.figure {
        Figure::Throughput => " MiB/s",
        _ => "",
    };
    let margin = pairing
        .matched
        .iter()
        .find_map(|m| m.equivalence.as_ref().map(|e| e.margin));
    // The same repetitions everywhere are said once, above the table.
    let counts = |m: &Matched| match m.paired_rounds {
        Some(rounds) => format!("{rounds} rounds"),
        None => format!("{}/{}", m.base.n, m.other.n),
    };
    let same_n = pairing
        .matched
        .first()
        .map(counts)
        .filter(|first| pairing.matched.iter().all(|m| counts(m) == *first));
    // What was let differ, when every point differs alike, is said once
    // above the table rather than in each row.
    let same_differs = pairing
        .matched
        .first()
        .map(|m| m.differs.clone())
        .filter(|first| !first.is_empty() && pairing.matched.iter().all(|m| m.differs == *first));
    let per_row = same_differs.is_none();
    let (shared, short) = match shortened {
        true => short_names(pairing),
        false => Default::default(),
    };
    // Each column: heading, right-aligned, and its cell of a point (the
    // screen keeps short cells whole: "0.974 [0.700–1.501]" on one line).
    type Column<'a> = (String, bool, Box<dyn Fn(&Matched) -> String + 'a>);
    let mut columns: Vec<Column> = vec![
        (
            "point".into(),
            false,
            Box::new(move |m: &Matched| {
                let name = short.get(&m.label).unwrap_or(&m.label);
                match m.differs.as_slice() {
                    differs if per_row && !differs.is_empty() => {
                        format!("{name} ({})", differs.join(", "))
                    }
                    _ => name.clone(),
                }
            }),
        ),
        (
            format!("base{unit}"),
            true,
            Box::new(move |m: &Matched| value(metric, m.base.mean)),
        ),
        (
            format!("other{unit}"),
            true,
            Box::new(move |m: &Matched| value(metric, m.other.mean)),
        ),
        (
            format!("ratio [{:.0}% CI]", (1.0 - alpha) * 100.0),
            true,
            Box::new(ratio_text),
        ),
    ];
    // With a margin the ratio answers; Δ% would say it again.
    if margin.is_none() {
        columns.push((
            "Δ%".into(),
            true,
            Box::new(|m: &Matched| format!("{:+.1}", m.delta_percent)),
        ));
    }
    if same_n.is_none() {
        columns.push(("n".into(), true, Box::new(counts)));
    }
    columns.push((
        "verdict".into(),
        false,
        Box::new(move |m: &Matched| verdict_text(m.verdict, metric).to_string()),
    ));
    if let Some(margin) = margin {
        columns.push((
            format!("within ±{}% [90% CI]", margin * 100.0),
            false,
            Box::new(equivalence_text),
        ));
    }
    let mut table = new_table(style);
    table.set_header(columns.iter().map(|c| c.0.clone()).collect::<Vec<_>>());
    for m in &pairing.matched {
        table.add_row(columns.iter().map(|c| (c.2)(m)).collect::<Vec<_>>());
    }
    for (index, (_, right, _)) in columns.iter().enumerate() {
        if let Some(column) = table.column_mut(index) {
            if *right {
                column.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
    let table = shown(&table, style);
    let every = match shared.is_empty() {
        true => String::new(),
        false if pairing.matched.len() == 1 => wrapped(style, &format!("point: {shared}\n")),
        false => wrapped(style, &format!("every point: {shared}\n")),
    };
    let differs = same_differs.map_or_else(String::new, |differs| {
        wrapped(
            style,
            &format!(
                "every point matched its twin differing in {}\n",
                differs.join(", ")
            ),
        )
    });
    let differs = format!("{every}{differs}");
    match same_n {
        Some(n) if n.ends_with("rounds") => {
            format!("{differs}n = {n}, paired, at every point\n{table}\n")
        }
        Some(n) => format!("{differs}n = {n} repetitions (base/other) at every point\n{table}\n"),
        None => format!("{differs}{table}\n"),
    }
}

/// A point's equivalence within the margin: verdict, 90% interval and
/// what the interval came from.
fn equivalence_text(m: &Matched) -> String {
    let Some(e) = &m.equivalence else {
        return String::new();
    };
    let verdict = serde_json::to_value(e.verdict).expect("serializes");
    let interval = e
        .interval_90
        .map_or_else(|| "n < 2".to_string(), |(l, h)| format!("{l:.3}–{h:.3}"));
    let level = match e.level {
        crate::compare::equivalence::Level::Rounds => "rounds",
        crate::compare::equivalence::Level::Repetitions => "reps",
    };
    format!(
        "{} [{interval}] {} {level}",
        verdict.as_str().unwrap_or_default(),
        e.n
    )
}

/// Rows file size, columns record size: the ratio in each cell, marked + or −
/// when significantly better or worse.
fn matrix(title: &str, cells: &[&Matched], style: Style) -> String {
    let sizes: BTreeSet<u64> = cells.iter().map(|m| m.workload.size).collect();
    let blocks: BTreeSet<u64> = cells.iter().map(|m| m.workload.bs).collect();
    let mut table = new_table(style);
    let mut header = vec!["file \\ record".to_string()];
    header.extend(blocks.iter().map(|b| format_size(*b)));
    table.set_header(header);
    for size in &sizes {
        let mut row = vec![format_size(*size)];
        for bs in &blocks {
            let cell = cells
                .iter()
                .find(|m| m.workload.size == *size && m.workload.bs == *bs);
            row.push(cell.map_or_else(String::new, |m| {
                let mark = match m.verdict {
                    Verdict::Better => "+",
                    Verdict::Worse => "−",
                    _ => "",
                };
                match (m.ratio_low, m.ratio_high) {
                    (Some(low), Some(high)) => format!("{:.2} ({low:.2}–{high:.2}){mark}", m.ratio),
                    _ => format!("{:.2}{mark}", m.ratio),
                }
            }));
        }
        table.add_row(row);
    }
    format!(
        "\n{title} (ratio and its interval; + better, − worse, significant)\n{}\n",
        shown(&table, style)
    )
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// One CSV row per matched point of every pairing, with a header.
pub fn csv(comparison: &Comparison) -> String {
    let mut text = String::from(
        "base,other,point,op,pattern,engine,bs,size,iodepth,jobs,direct,metric,base_n,base_mean,other_n,other_mean,\
         ratio,ratio_low,ratio_high,p_value,delta_percent,verdict\n",
    );
    let metric = serde_json::to_value(comparison.metric.clone()).expect("serializes");
    for pairing in &comparison.pairings {
        for m in &pairing.matched {
            let w = &m.workload;
            let optional = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
            let verdict = serde_json::to_value(m.verdict).expect("serializes");
            let fields = [
                csv_field(&comparison.base),
                csv_field(&pairing.file),
                csv_field(&m.label),
                w.op.name().to_string(),
                w.pattern.to_string(),
                w.engine.name().to_string(),
                w.bs.to_string(),
                w.size.to_string(),
                w.iodepth.to_string(),
                w.jobs.to_string(),
                w.direct.to_string(),
                metric.as_str().unwrap_or_default().to_string(),
                m.base.n.to_string(),
                m.base.mean.to_string(),
                m.other.n.to_string(),
                m.other.mean.to_string(),
                m.ratio.to_string(),
                optional(m.ratio_low),
                optional(m.ratio_high),
                optional(m.p_value),
                m.delta_percent.to_string(),
                verdict.as_str().unwrap_or_default().to_string(),
            ];
            text.push_str(&fields.join(","));
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Side;

    fn matched(low: Option<f64>, high: Option<f64>, unbounded: bool) -> Matched {
        Matched {
            label: "p".into(),
            workload: crate::plan::example_workload(),
            base: Side { n: 3, mean: 2.0 },
            other: Side { n: 3, mean: 1.0 },
            ratio: 0.5,
            ratio_low: low,
            ratio_high: high,
            ratio_unbounded: unbounded,
            p_value: Some(0.01),
            paired_rounds: None,
            executed_order: None,
            delta_percent: 50.0,
            verdict: Verdict::Better,
            differs: Vec::new(),
            equivalence: None,
        }
    }

    #[test]
    fn intervals_say_when_they_are_unbounded_and_times_keep_their_digits() {
        assert_eq!(
            ratio_text(&matched(Some(0.4), Some(0.6), false)),
            "0.500 [0.400–0.600]"
        );
        assert_eq!(ratio_text(&matched(None, None, true)), "0.500 [unbounded]");
        assert_eq!(ratio_text(&matched(None, None, false)), "0.500");
        // A 0.32 ms run is not "0.00 s".
        assert_eq!(value(&Metric::from(Figure::Time), 0.000322), "0.000322 s");
        assert_eq!(value(&Metric::from(Figure::Time), 10.07), "10.1 s");
    }
}
