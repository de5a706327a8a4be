//! SVG charts for the HTML report: lines over a log₂ size axis with error bars, and ratio heatmaps.
//!
//! Written by hand rather than with plotters: plotters measures text with
//! system fonts or a bundled font file, while plain SVG `<text>` leaves text
//! layout to the browser and keeps the report and the binary small. All text
//! is escaped.

use super::escape::escape;
use crate::plan::units::format_size;
use std::fmt::Write;

const WIDTH: f64 = 720.0;
/// Height of the plotting area of a line chart.
const PLOT_HEIGHT: f64 = 280.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 45.0;
const TOP: f64 = 30.0;
/// Below the plot: tick labels and the axis name; the legend follows.
const BOTTOM: f64 = 46.0;
/// Colour-blind-safe series colours (Okabe–Ito, with its yellow, which
/// vanishes on white, replaced by Tol's wine).
const COLOURS: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#882255", "#000000",
];

/// Line styles after the colours run out: series 9–16 dashed, 17–24 dotted …
const DASHES: [&str; 4] = ["", "6 3", "2 2", "8 3 2 3"];

/// The colour and dash pattern of series `index`.
fn style_of(index: usize) -> (&'static str, &'static str) {
    (
        COLOURS[index % COLOURS.len()],
        DASHES[(index / COLOURS.len()) % DASHES.len()],
    )
}

/// A tick's label: whole numbers whole (0, not 0.00), others with three
/// significant digits.
fn tick_text(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        super::units::significant(v)
    }
}

/// Round tick values covering `low..=high`: about `count` steps of 1, 2 or
/// 5 × 10ⁿ, starting at a multiple of the step.
pub fn nice_ticks(low: f64, high: f64, count: usize) -> Vec<f64> {
    if !(low.is_finite() && high.is_finite()) || high <= low {
        return vec![low];
    }
    let raw = (high - low) / count.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw * 0.999)
        .unwrap_or(10.0 * magnitude);
    let first = (low / step).ceil() * step;
    (0..)
        .map(|i| first + step * f64::from(i))
        .take_while(|v| *v <= high + step * 1e-9)
        .take(1000)
        .collect()
}

/// One series of a line chart: points (x, y, optional interval).
#[derive(Default)]
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y, low, high), x ascending.
    pub points: Vec<(f64, f64, Option<f64>, Option<f64>)>,
    /// A label beside each point (a knee search's load), or none.
    pub marks: Vec<String>,
    /// The colour and the dash, by index, when the chart groups its series
    /// (a colour per configuration, a dash per file); by its place otherwise.
    pub style: Option<(usize, usize)>,
}

/// The x axis: linear or log₂, and where its labelled ticks go.
pub struct XScale {
    /// Log₂ (sizes) rather than linear.
    pub log2: bool,
    /// (position, label) of each tick.
    pub ticks: Vec<(f64, String)>,
}

impl XScale {
    /// A log₂ axis of sizes with a tick at each size measured, and none
    /// where nothing was.
    pub fn measured_sizes(sizes: impl Iterator<Item = u64>) -> XScale {
        let sizes: std::collections::BTreeSet<u64> = sizes.filter(|size| *size > 0).collect();
        XScale {
            log2: true,
            ticks: sizes
                .into_iter()
                .map(|size| (size as f64, format_size(size)))
                .collect(),
        }
    }

    /// A log₂ axis of sizes with a tick at every power of two from `min` to `max`.
    pub fn sizes(min: u64, max: u64) -> XScale {
        let mut ticks = Vec::new();
        let mut tick = min.max(1).next_power_of_two();
        while tick <= max && tick != 0 {
            ticks.push((tick as f64, format_size(tick)));
            tick = tick.checked_mul(2).unwrap_or(0);
        }
        XScale { log2: true, ticks }
    }
}

/// Pixels per character of an 11 px label, generously: tick labels closer
/// than their width are thinned so they never overlap.
const CHAR_WIDTH: f64 = 7.0;
/// Height of one legend line, below the plot.
const LEGEND_LINE: f64 = 15.0;
/// Characters of a legend line that fit the chart's width; longer names are
/// shortened with "…" and given whole in a tooltip.
const LEGEND_CHARS: usize = 96;

/// The y axis of a line chart: linear from 0, or log₁₀ (latency, which spans
/// orders of magnitude).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum YAxis {
    /// Linear from 0, ticks at 1, 2 or 5 × 10^k.
    Linear,
    /// Log₁₀ between the decades around the data, a tick at each decade.
    Log10,
    /// Latency in µs on a log₁₀ axis, each decade labelled in its own
    /// unit (100 ns, 1 µs, 10 ms, 1 s).
    LatencyLog10,
}

/// A line chart; `y_label` names the unit. The legend goes below the plot,
/// one series per line, so long names are never cut by the plot's edge.
pub fn line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    scale: &XScale,
    y_axis: YAxis,
    series: &[Series],
) -> String {
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .chain(scale.ticks.iter().map(|t| t.0))
        .collect();
    let x_min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let x_max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if series.is_empty() || !x_min.is_finite() {
        return String::new();
    }
    let values = || {
        series.iter().flat_map(|s| {
            s.points
                .iter()
                .flat_map(|p| [Some(p.1), p.2, p.3])
                .flatten()
        })
    };
    let y_top = values().fold(0.0f64, f64::max).max(f64::MIN_POSITIVE);
    // A wide interval (n = 2) must not squash the data: a linear axis
    // stops at 1.5 times the highest mean, and a bar past it is cut with
    // a mark.
    let y_top = match y_axis {
        YAxis::Linear => {
            let means = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
            y_top
                .min(means.fold(0.0f64, f64::max) * 1.5)
                .max(f64::MIN_POSITIVE)
        }
        _ => y_top,
    };
    // Log: whole decades around the data; linear: from 0 with headroom.
    let (y_low, y_high, y_ticks) = match y_axis {
        YAxis::Log10 | YAxis::LatencyLog10 => {
            let positive_min = values()
                .filter(|v| *v > 0.0)
                .fold(f64::INFINITY, f64::min)
                .min(y_top);
            let low = positive_min.log10().floor();
            let high = y_top.log10().ceil().max(low + 1.0);
            let ticks: Vec<f64> = (low as i32..=high as i32).map(|k| 10f64.powi(k)).collect();
            (low, high, ticks)
        }
        YAxis::Linear => {
            let top = y_top * 1.08;
            let raw = top / 5.0;
            let magnitude = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|m| m * magnitude)
                .find(|s| *s >= raw)
                .unwrap_or(10.0 * magnitude);
            let ticks = (0..=((top / step).floor() as u32))
                .map(|i| step * f64::from(i))
                .collect();
            (0.0, top, ticks)
        }
    };
    let map_x = |v: f64| {
        if scale.log2 {
            v.max(f64::MIN_POSITIVE).log2()
        } else {
            v
        }
    };
    let map_y = |v: f64| match y_axis {
        YAxis::Log10 | YAxis::LatencyLog10 => v.max(10f64.powf(y_low)).log10(),
        YAxis::Linear => v,
    };
    let (lx_min, lx_max) = (map_x(x_min), map_x(x_max).max(map_x(x_min) + 1e-9));
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = PLOT_HEIGHT;
    let height = TOP + plot_h + BOTTOM + LEGEND_LINE * series.len() as f64 + 6.0;
    let x = |v: f64| LEFT + (map_x(v) - lx_min) / (lx_max - lx_min) * plot_w;
    let y = |v: f64| TOP + plot_h - (map_y(v) - y_low) / (y_high - y_low) * plot_h;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="chart" data-kind="line" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{t}"><title>{t}</title>"#,
        t = escape(title)
    );
    let _ = write!(
        svg,
        r#"<text x="{LEFT}" y="18" class="title">{}</text>"#,
        escape(title)
    );
    let _ = write!(
        svg,
        r#"<g class="axis x-axis"><line x1="{LEFT}" y1="{b}" x2="{r}" y2="{b}"/>"#,
        b = TOP + plot_h,
        r = LEFT + plot_w
    );
    // A label is drawn only where it clears the one drawn before it; every
    // tick keeps its mark.
    let mut clear_from = f64::NEG_INFINITY;
    for (position, label) in &scale.ticks {
        let p = x(*position);
        let half = label.chars().count() as f64 * CHAR_WIDTH / 2.0;
        let _ = write!(
            svg,
            r#"<line x1="{p}" y1="{b}" x2="{p}" y2="{b2}"/>"#,
            b = TOP + plot_h,
            b2 = TOP + plot_h + 5.0,
        );
        if p - half >= clear_from {
            let _ = write!(
                svg,
                r#"<text x="{p}" y="{ty}" text-anchor="middle">{}</text>"#,
                escape(label),
                ty = TOP + plot_h + 18.0
            );
            clear_from = p + half + CHAR_WIDTH;
        }
    }
    let _ = write!(
        svg,
        r#"<text x="{cx}" y="{ly}" text-anchor="middle" class="label">{}</text></g>"#,
        escape(x_label),
        cx = LEFT + plot_w / 2.0,
        ly = TOP + plot_h + 38.0
    );
    let _ = write!(
        svg,
        r#"<g class="axis y-axis"><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{b}"/>"#,
        b = TOP + plot_h
    );
    for v in y_ticks {
        // Decades print whole: 0.01, 1, 1000; linear ticks with three digits.
        let label = match y_axis {
            YAxis::Log10 => format!("{v:.*}", (-v.log10().round()).max(0.0) as usize),
            YAxis::LatencyLog10 => super::units::latency(v * 1e3),
            YAxis::Linear => tick_text(v),
        };
        let _ = write!(
            svg,
            r#"<line x1="{l}" y1="{p}" x2="{LEFT}" y2="{p}"/><text x="{tx}" y="{ty}" text-anchor="end">{}</text>"#,
            label,
            l = LEFT - 5.0,
            p = y(v),
            tx = LEFT - 8.0,
            ty = y(v) + 4.0
        );
    }
    let axis_name = match y_axis {
        YAxis::Log10 => format!("{y_label} (log scale)"),
        YAxis::LatencyLog10 => "latency (log scale)".to_string(),
        YAxis::Linear => y_label.to_string(),
    };
    let _ = write!(
        svg,
        r#"<text transform="translate(16 {cy}) rotate(-90)" text-anchor="middle" class="label">{}</text></g>"#,
        escape(&axis_name),
        cy = TOP + plot_h / 2.0
    );
    for (index, s) in series.iter().enumerate() {
        let (colour, dash) = match s.style {
            Some((colour, dash)) => (COLOURS[colour % COLOURS.len()], DASHES[dash % DASHES.len()]),
            None => style_of(index),
        };
        let path: Vec<String> = s
            .points
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.0), y(p.1)))
            .collect();
        let _ = write!(
            svg,
            r#"<g class="series" data-series="{n}"><polyline fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}" points="{}"/>"#,
            path.join(" "),
            n = escape(&s.name)
        );
        for (n, p) in s.points.iter().enumerate() {
            let _ = write!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{colour}"/>"#,
                x(p.0),
                y(p.1)
            );
            if let Some(mark) = s.marks.get(n) {
                let _ = write!(
                    svg,
                    r#"<text class="mark" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                    x(p.0),
                    y(p.1) - 7.0,
                    escape(mark)
                );
            }
            if let (Some(low), Some(high)) = (p.2, p.3) {
                let clipped = y_axis == YAxis::Linear && high > y_high;
                let top = y(if clipped { y_high } else { high });
                let _ = write!(
                    svg,
                    r#"<line class="error-bar" x1="{px:.1}" y1="{:.1}" x2="{px:.1}" y2="{top:.1}" stroke="{colour}"/>"#,
                    y(low.max(0.0)),
                    px = x(p.0)
                );
                if clipped {
                    let _ = write!(
                        svg,
                        r#"<text class="clipped" x="{px:.1}" y="{ty:.1}" text-anchor="middle" fill="{colour}"><title>interval up to {}</title>▲</text>"#,
                        tick_text(high),
                        px = x(p.0),
                        ty = TOP + 9.0
                    );
                }
            }
        }
        let ly = TOP + plot_h + BOTTOM + LEGEND_LINE * (index as f64 + 1.0);
        let shown: String = if s.name.chars().count() > LEGEND_CHARS {
            s.name.chars().take(LEGEND_CHARS - 1).chain(['…']).collect()
        } else {
            s.name.clone()
        };
        let _ = write!(
            svg,
            r#"<line x1="{LEFT}" y1="{ry}" x2="{lx}" y2="{ry}" stroke="{colour}" stroke-width="3" stroke-dasharray="{dash}"/><text x="{tx}" y="{ty}" class="legend"><title>{}</title>{}</text></g>"#,
            escape(&s.name),
            escape(&shown),
            ry = ly - 4.0,
            lx = LEFT + 18.0,
            tx = LEFT + 22.0,
            ty = ly
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A heatmap of ratios: rows and columns labelled, the value in each cell,
/// blue above 1 and orange below.
pub fn heatmap(
    title: &str,
    rows: &[String],
    columns: &[String],
    cells: &[Vec<Option<f64>>],
) -> String {
    let cell_w = 64.0;
    let cell_h = 24.0;
    let left = 90.0;
    let top = 50.0;
    let width = left + cell_w * columns.len() as f64 + 10.0;
    let height = top + cell_h * rows.len() as f64 + 10.0;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="chart" data-kind="heatmap" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" aria-label="{t}"><title>{t}</title><text x="4" y="18" class="title">{t}</text>"#,
        t = escape(title)
    );
    for (c, name) in columns.iter().enumerate() {
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            left + cell_w * (c as f64 + 0.5),
            top - 8.0,
            escape(name)
        );
    }
    for (r, name) in rows.iter().enumerate() {
        let ry = top + cell_h * r as f64;
        let _ = write!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 6.0,
            ry + 16.0,
            escape(name)
        );
        for (c, value) in cells[r].iter().enumerate() {
            let Some(value) = value else { continue };
            // Saturates at ×2 and ×0.5.
            let strength = (value.log2().abs().min(1.0) * 0.85 + 0.1).min(1.0);
            let colour = if *value >= 1.0 {
                format!("rgba(0,114,178,{strength:.2})")
            } else {
                format!("rgba(230,159,0,{strength:.2})")
            };
            let cx = left + cell_w * c as f64;
            let _ = write!(
                svg,
                r##"<rect class="cell" x="{cx:.1}" y="{ry:.1}" width="{cell_w}" height="{cell_h}" fill="{colour}" stroke="#fff"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{value:.2}</text>"##,
                cx + cell_w / 2.0,
                ry + 16.0
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

/// A bar: its value and, when measured, its 95% interval.
pub type Bar = (f64, Option<(f64, f64)>);

/// One group of bars: its label under the axis, and one bar per series
/// (`None`: that series has no figure here).
pub struct BarGroup {
    /// Label under the group (a test, a point).
    pub label: String,
    /// One value per series, in the series' order, with its interval.
    pub bars: Vec<Option<Bar>>,
    /// A second figure above each bar's own (`97.0k IOPS` on a 4 KiB
    /// test's MiB/s), by bar; none when shorter than `bars`.
    pub notes: Vec<String>,
}

/// Grouped vertical bars with each bar's figure written on it: quick's
/// eight tests, or several files' points side by side. `series` names the
/// bars of a group (read and write; the files), in the legend.
pub fn bar_chart(title: &str, y_label: &str, series: &[String], groups: &[BarGroup]) -> String {
    let values = groups
        .iter()
        .flat_map(|g| g.bars.iter().flatten())
        .flat_map(|(v, interval)| [Some(*v), interval.map(|i| i.1)])
        .flatten();
    let top = values.fold(0.0f64, f64::max);
    if groups.is_empty() || series.is_empty() || top <= 0.0 {
        return String::new();
    }
    let ticks = nice_ticks(0.0, top * 1.12, 5);
    let y_high = ticks.last().copied().unwrap_or(top).max(top * 1.12);
    let plot_w = WIDTH - LEFT - RIGHT;
    let group_w = plot_w / groups.len() as f64;
    let bar_w = (group_w * 0.8 / series.len() as f64).min(60.0);
    // Group labels wider than their group are slanted, and the chart grows
    // to hold them.
    let longest = groups
        .iter()
        .map(|g| g.label.chars().count())
        .max()
        .unwrap_or(0) as f64;
    let slanted = longest * CHAR_WIDTH > group_w;
    let label_room = if slanted {
        longest * CHAR_WIDTH * 0.6
    } else {
        0.0
    };
    let height = TOP + PLOT_HEIGHT + BOTTOM + label_room + LEGEND_LINE * series.len() as f64 + 6.0;
    let y = |v: f64| TOP + PLOT_HEIGHT - v / y_high * PLOT_HEIGHT;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg class="chart" data-kind="bar" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" role="img" aria-label="{t}"><title>{t}</title><text x="{LEFT}" y="18" class="title">{t}</text>"#,
        t = escape(title)
    );
    let _ = write!(
        svg,
        r#"<g class="axis y-axis"><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{b}"/>"#,
        b = TOP + PLOT_HEIGHT
    );
    for v in &ticks {
        let _ = write!(
            svg,
            r##"<line class="grid" x1="{l}" y1="{p}" x2="{r}" y2="{p}"/><text x="{tx}" y="{ty}" text-anchor="end">{}</text>"##,
            tick_text(*v),
            l = LEFT - 5.0,
            r = LEFT + plot_w,
            p = y(*v),
            tx = LEFT - 8.0,
            ty = y(*v) + 4.0
        );
    }
    let _ = write!(
        svg,
        r#"<text transform="translate(16 {cy}) rotate(-90)" text-anchor="middle" class="label">{}</text></g>"#,
        escape(y_label),
        cy = TOP + PLOT_HEIGHT / 2.0
    );
    let _ = write!(
        svg,
        r#"<g class="axis x-axis"><line x1="{LEFT}" y1="{b}" x2="{r}" y2="{b}"/>"#,
        b = TOP + PLOT_HEIGHT,
        r = LEFT + plot_w
    );
    for (g, group) in groups.iter().enumerate() {
        let centre = LEFT + group_w * (g as f64 + 0.5);
        let ty = TOP + PLOT_HEIGHT + 18.0;
        if slanted {
            let _ = write!(
                svg,
                r#"<text transform="translate({centre:.1} {ty}) rotate(-35)" text-anchor="end">{}</text>"#,
                escape(&group.label),
            );
        } else {
            let _ = write!(
                svg,
                r#"<text x="{centre:.1}" y="{ty}" text-anchor="middle">{}</text>"#,
                escape(&group.label),
            );
        }
        let first = centre - bar_w * series.len() as f64 / 2.0;
        for (b, bar) in group.bars.iter().enumerate() {
            let Some((value, interval)) = bar else {
                continue;
            };
            let (colour, _) = style_of(b);
            let left = first + bar_w * b as f64;
            let _ = write!(
                svg,
                r#"<rect class="bar" x="{left:.1}" y="{top:.1}" width="{w:.1}" height="{h:.1}" fill="{colour}"><title>{}: {}</title></rect>"#,
                escape(&series[b.min(series.len() - 1)]),
                super::units::significant(*value),
                top = y(*value),
                w = bar_w * 0.92,
                h = (TOP + PLOT_HEIGHT - y(*value)).max(0.0)
            );
            if let Some((low, high)) = interval {
                let mid = left + bar_w * 0.46;
                let _ = write!(
                    svg,
                    r##"<line class="error-bar" x1="{mid:.1}" y1="{:.1}" x2="{mid:.1}" y2="{:.1}" stroke="#444"/>"##,
                    y(low.max(0.0)),
                    y(*high)
                );
            }
            // A figure is written on its bar where it fits; the tooltip
            // always has it.
            let figure = super::units::significant(*value);
            if figure.chars().count() as f64 * CHAR_WIDTH <= bar_w + 2.0 {
                let above = y(interval.map_or(*value, |i| i.1.max(*value))) - 4.0;
                let _ = write!(
                    svg,
                    r#"<text class="figure" x="{:.1}" y="{above:.1}" text-anchor="middle">{figure}</text>"#,
                    left + bar_w * 0.46,
                );
                // A word a line, the last nearest the figure, where each fits.
                let words: Vec<&str> = group
                    .notes
                    .get(b)
                    .map(|n| n.split_whitespace().collect())
                    .unwrap_or_default();
                if words
                    .iter()
                    .all(|w| w.chars().count() as f64 * CHAR_WIDTH <= bar_w + 2.0)
                {
                    for (line, word) in words.iter().rev().enumerate() {
                        let _ = write!(
                            svg,
                            r#"<text class="note" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                            left + bar_w * 0.46,
                            above - 13.0 * (line as f64 + 1.0),
                            escape(word)
                        );
                    }
                }
            }
        }
    }
    svg.push_str("</g>");
    for (index, name) in series.iter().enumerate() {
        let (colour, _) = style_of(index);
        let ly = TOP + PLOT_HEIGHT + BOTTOM + label_room + LEGEND_LINE * (index as f64 + 1.0);
        let _ = write!(
            svg,
            r#"<rect x="{LEFT}" y="{ry}" width="10" height="10" fill="{colour}"/><text x="{tx}" y="{ly}" class="legend">{}</text>"#,
            escape(name),
            ry = ly - 9.0,
            tx = LEFT + 14.0
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_bars_carry_their_figures() {
        assert_eq!(
            nice_ticks(0.0, 23_000.0, 5),
            vec![0.0, 5000.0, 10000.0, 15000.0, 20000.0]
        );
        assert_eq!(nice_ticks(0.0, 3.2, 5), vec![0.0, 1.0, 2.0, 3.0]);
        assert_eq!(
            nice_ticks(1000.0, 31_147.0, 4),
            vec![10000.0, 20000.0, 30000.0]
        );
        let svg = bar_chart(
            "quick",
            "MiB/s",
            &["read".into(), "write".into()],
            &[
                BarGroup {
                    label: "SEQ1M Q8".into(),
                    bars: vec![Some((2950.0, None)), Some((1210.0, Some((1200.0, 1220.0))))],
                    notes: Vec::new(),
                },
                BarGroup {
                    label: "RND4K Q1".into(),
                    bars: vec![Some((41.2, None)), None],
                    notes: vec!["10.5k IOPS".into()],
                },
            ],
        );
        assert_eq!(svg.matches(r#"class="bar""#).count(), 3);
        assert!(svg.contains(">2950<") && svg.contains(">41.2<") && svg.contains(">SEQ1M Q8<"));
        assert_eq!(svg.matches("class=\"error-bar\"").count(), 1);
        assert!(
            svg.contains(r#"class="note""#) && svg.contains(">10.5k<") && svg.contains(">IOPS<")
        );
    }

    #[test]
    fn a_line_chart_has_axes_series_error_bars_and_escaped_text() {
        let series = vec![Series {
            name: "read <direct> & co".into(),
            points: vec![
                (4096.0, 100.0, Some(90.0), Some(110.0)),
                (65536.0, 300.0, None, None),
                (1048576.0, 400.0, Some(390.0), Some(410.0)),
            ],
            ..Series::default()
        }];
        let scale = XScale::sizes(4096, 1 << 20);
        let svg = line_chart(
            "MiB/s by block",
            "block size",
            "MiB/s",
            &scale,
            YAxis::Linear,
            &series,
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert!(svg.contains(r#"class="axis x-axis""#) && svg.contains(r#"class="axis y-axis""#));
        assert!(svg.contains(">4KiB<") && svg.contains(">1MiB<") && svg.contains(">64KiB<"));
        assert_eq!(svg.matches("class=\"error-bar\"").count(), 2);
        assert!(svg.contains("read &lt;direct&gt; &amp; co") && !svg.contains("<direct>"));
        assert_eq!(line_chart("t", "x", "y", &scale, YAxis::Linear, &[]), "");
    }

    #[test]
    fn crowded_ticks_are_thinned_long_legends_shortened_and_latency_is_on_decades() {
        let name = "x".repeat(150);
        let series = vec![Series {
            name: name.clone(),
            points: vec![
                (512.0, 3.0, None, None),
                ((1u64 << 30) as f64, 4000.0, None, None),
            ],
            ..Series::default()
        }];
        // 512 B to 1 GiB: 22 ticks, far more than fit side by side.
        let scale = XScale::sizes(512, 1 << 30);
        let svg = line_chart("t", "x", "µs", &scale, YAxis::Log10, &series);
        let marks = svg.matches(r#"y2="315""#).count();
        let labels = svg.matches(r#"text-anchor="middle">"#).count() - 1; // less the axis name
        assert_eq!(marks, 22, "every tick keeps its mark");
        assert!(labels < marks && labels >= 6, "{labels} labels");
        // Labels drawn never overlap: each centre at least one label width from the last.
        let centres: Vec<f64> = svg
            .split(r#"<text x=""#)
            .skip(1)
            .filter(|t| t.contains(r#"y="333" text-anchor="middle""#))
            .map(|t| t.split('"').next().unwrap().parse().unwrap())
            .collect();
        assert!(
            centres.windows(2).all(|w| w[1] - w[0] >= 5.0 * CHAR_WIDTH),
            "{centres:?}"
        );
        // Decades from 1 to 10,000 µs, named as a log scale.
        for tick in [">1<", ">10<", ">100<", ">1000<", ">10000<"] {
            assert!(svg.contains(tick), "{tick} missing");
        }
        assert!(svg.contains("µs (log scale)"));
        // The legend keeps the whole name in its tooltip and shortens the text.
        assert!(svg.contains(&format!("<title>{name}</title>")));
        assert!(svg.contains(&format!("{}…</text>", "x".repeat(LEGEND_CHARS - 1))));
    }

    #[test]
    fn a_wide_interval_is_cut_with_a_mark_and_ticks_stand_at_measured_sizes_only() {
        // Two points at 4 KiB and 1 MiB, one with an n = 2 interval to 6000.
        let series = vec![Series {
            name: "read".into(),
            points: vec![
                (4096.0, 1000.0, Some(0.0), Some(6000.0)),
                ((1u64 << 20) as f64, 2000.0, None, None),
            ],
            ..Series::default()
        }];
        let scale = XScale::measured_sizes([1u64 << 20, 4096, 4096].into_iter());
        assert_eq!(
            scale.ticks.iter().map(|t| t.1.as_str()).collect::<Vec<_>>(),
            ["4KiB", "1MiB"],
            "no tick at the seven sizes between, none twice"
        );
        let svg = line_chart("t", "block size", "MiB/s", &scale, YAxis::Linear, &series);
        assert!(
            svg.contains(">3000<") && !svg.contains(">5000<") && !svg.contains(">6000<"),
            "the axis stops at 1.5 times the highest mean: {svg}"
        );
        assert_eq!(svg.matches(r#"class="clipped""#).count(), 1);
        assert!(svg.contains("interval up to 6000"));
    }

    #[test]
    fn a_heatmap_has_a_cell_per_value() {
        let svg = heatmap(
            "ratio",
            &["64KiB".into(), "1MiB".into()],
            &["4KiB".into()],
            &[vec![Some(1.5)], vec![None]],
        );
        assert_eq!(svg.matches("class=\"cell\"").count(), 1);
        assert!(svg.contains(">1.50<"));
    }
}
