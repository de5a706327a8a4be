//! What a comparison compares: a figure of each repetition (throughput, IOPS,
//! a latency percentile, CPU, time), of all I/Os or of one direction's.
//!
//! Written `p99`, or `read.p99` / `write.iops` for one direction of a mixed
//! point (`op mix`); a point whose I/Os all went one way answers for that
//! direction with its totals.

use crate::plan::direction::Direction;
use crate::record::{Point, Repetition};
use serde::Serialize;

/// A figure of a repetition, without regard to direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Bytes per second.
    Throughput,
    /// I/Os per second.
    Iops,
    /// Median latency, ns.
    P50,
    /// 99th percentile latency, ns.
    P99,
    /// CPU time of the I/O threads over wall time.
    Cpu,
    /// Seconds a repetition took, start to end of the timed region (the
    /// completion time the studies report).
    Time,
    /// Network messages of a repetition: its connections' TCP segments
    /// both ways with iolab's own clients, else the packets on every
    /// interface over its window (Radkov's Table 4).
    Messages,
    /// Bytes on the network, counted as `Messages` are.
    WireBytes,
}

impl Figure {
    /// Every figure, in the order `--metric` lists them.
    pub const ALL: [Figure; 8] = [
        Figure::Throughput,
        Figure::Iops,
        Figure::P50,
        Figure::P99,
        Figure::Cpu,
        Figure::Time,
        Figure::Messages,
        Figure::WireBytes,
    ];

    /// Its name on the command line and in files.
    pub const fn name(self) -> &'static str {
        match self {
            Figure::Throughput => "throughput",
            Figure::Iops => "iops",
            Figure::P50 => "p50",
            Figure::P99 => "p99",
            Figure::Cpu => "cpu",
            Figure::Time => "time",
            Figure::Messages => "messages",
            Figure::WireBytes => "wire-bytes",
        }
    }

    /// The figure in words, for headings.
    pub const fn words(self) -> &'static str {
        match self {
            Figure::Throughput => "throughput",
            Figure::Iops => "I/Os per second",
            Figure::P50 => "median latency (p50)",
            Figure::P99 => "99th-percentile latency (p99)",
            Figure::Cpu => "CPU time over wall time",
            Figure::Time => "completion time",
            Figure::Messages => "network messages",
            Figure::WireBytes => "bytes on the wire",
        }
    }

    /// Whether a direction's own value exists: CPU and time belong to the
    /// whole repetition.
    pub const fn per_direction(self) -> bool {
        matches!(
            self,
            Figure::Throughput | Figure::Iops | Figure::P50 | Figure::P99
        )
    }
}

/// What is compared: a figure, of all I/Os or of one direction's, of a
/// point or of one group of a point of groups.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub struct Metric {
    pub figure: Figure,
    /// Only this direction's I/Os; `None` for all of them.
    pub direction: Option<Direction>,
    /// Only this group's I/Os (`logger.write.p99`); `None` for the point's.
    pub group: Option<String>,
}

impl From<Figure> for Metric {
    fn from(figure: Figure) -> Metric {
        Metric {
            figure,
            direction: None,
            group: None,
        }
    }
}

impl Metric {
    /// Whether a larger value is better.
    pub fn higher_is_better(&self) -> bool {
        matches!(self.figure, Figure::Throughput | Figure::Iops)
    }

    /// How much better `other` is than `base`, percent of the base: positive
    /// when the other is better, whichever way the metric improves.
    pub fn delta_percent(&self, base: f64, other: f64) -> f64 {
        if self.higher_is_better() {
            (other - base) / base * 100.0
        } else {
            (base - other) / base * 100.0
        }
    }

    /// Δ% in words, for every header that shows it.
    pub fn delta_definition(&self) -> &'static str {
        match self.figure {
            Figure::Throughput | Figure::Iops => {
                "Δ% = (other − base) / base × 100: how much faster the other is"
            }
            Figure::Time => {
                "Δ% = (base − other) / base × 100 of the time: how much faster the other is \
                 (the O_DIRECT study's \"% direct faster\" when base is normal, other direct)"
            }
            Figure::P50 | Figure::P99 => {
                "Δ% = (base − other) / base × 100 of the latency: how much lower the other's is"
            }
            Figure::Cpu => {
                "Δ% = (base − other) / base × 100 of the CPU: how much less the other uses"
            }
            Figure::Messages | Figure::WireBytes => {
                "Δ% = (base − other) / base × 100 of the network traffic: how much less the other sends"
            }
        }
    }

    /// The metric's value in each measured repetition that completed; for a
    /// direction, only repetitions that issued I/Os in it. A metadata
    /// workload's throughput is its operations per second (it moves few
    /// bytes or none), as mdtest's rate.
    pub fn values(&self, point: &Point) -> Vec<f64> {
        if let Some(name) = &self.group {
            // A group's own figures; a point without it has none.
            let ungrouped = Metric {
                group: None,
                ..self.clone()
            };
            return point
                .groups
                .iter()
                .find(|g| g.label == *name)
                .map_or_else(Vec::new, |group| ungrouped.values(group));
        }
        if self.figure == Figure::Throughput && point.workload.work() == crate::plan::Work::Tree {
            return Metric::from(Figure::Iops).values(point);
        }
        let sole = point.workload.directions().sole();
        point
            .measured()
            .filter_map(|r| match self.direction {
                None => self.whole(r),
                // An unmixed point's totals are its one direction's.
                Some(direction) if r.directions.is_empty() => {
                    (sole == Some(direction)).then(|| self.whole(r)).flatten()
                }
                Some(direction) => {
                    let share = r.directions.iter().find(|d| d.direction == direction)?;
                    match self.figure {
                        Figure::Throughput => share.throughput_bps,
                        Figure::Iops => share.iops,
                        Figure::P50 | Figure::P99 => {
                            percentile(share.latency_ns.as_ref(), self.figure)
                        }
                        Figure::Cpu | Figure::Time | Figure::Messages | Figure::WireBytes => None,
                    }
                }
            })
            .collect()
    }

    /// The figure over all of a repetition's I/Os.
    fn whole(&self, r: &Repetition) -> Option<f64> {
        match self.figure {
            Figure::Throughput => r.throughput_bps,
            Figure::Iops => r.iops,
            Figure::P50 | Figure::P99 => percentile(r.latency_ns.as_ref(), self.figure),
            Figure::Cpu => r.cpu.as_ref().map(|c| c.utilization),
            Figure::Time => r.elapsed_ns.map(|ns| ns as f64 * 1e-9),
            Figure::Messages => r.on_the_wire().map(|(messages, _)| messages as f64),
            Figure::WireBytes => r.on_the_wire().map(|(_, bytes)| bytes as f64),
        }
    }
}

fn percentile(latency: Option<&crate::record::LatencySummary>, figure: Figure) -> Option<f64> {
    let wanted = if figure == Figure::P50 { 50.0 } else { 99.0 };
    latency
        .and_then(|l| l.percentile(wanted))
        .map(|ns| ns as f64)
}

impl std::str::FromStr for Metric {
    type Err = String;

    /// `throughput`, `iops`, `p50`, `p99`, `cpu`, `time`, or one of the first
    /// four after `read.`, `write.` or `trim.`.
    fn from_str(text: &str) -> Result<Metric, String> {
        // GROUP.FIGURE or GROUP.DIRECTION.FIGURE: a first part that is
        // neither a direction nor a figure names a group.
        let is_direction = |part: &str| Direction::ALL.iter().any(|d| d.name() == part);
        let (group, text) = match text.split_once('.') {
            Some((first, rest))
                if !is_direction(first) && rest.contains('.') || {
                    !is_direction(first) && Figure::ALL.iter().any(|f| f.name() == rest)
                } =>
            {
                if let Some(problem) = crate::plan::group::name_problem(first) {
                    return Err(format!("'{first}' in '{text}': a group name {problem}"));
                }
                (Some(first.to_string()), rest)
            }
            _ => (None, text),
        };
        let (direction, name) = match text.split_once('.') {
            Some((prefix, name)) => match Direction::ALL.into_iter().find(|d| d.name() == prefix) {
                Some(direction) => (Some(direction), name),
                None => {
                    return Err(format!(
                        "'{prefix}' in '{text}' is not a direction: read.FIGURE, write.FIGURE or trim.FIGURE"
                    ));
                }
            },
            None => (None, text),
        };
        let figure = Figure::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| {
                format!(
                    "'{text}' is not a metric: one of {}, or read./write. before one of \
                     throughput, iops, p50, p99",
                    Figure::ALL.map(Figure::name).join(", ")
                )
            })?;
        if direction.is_some() && !figure.per_direction() {
            return Err(format!(
                "'{text}': {name} belongs to the whole repetition, not to one direction"
            ));
        }
        Ok(Metric {
            figure,
            direction,
            group,
        })
    }
}

impl Metric {
    /// The metric in words (`reads' 99th-percentile latency (p99)`), for headings.
    pub fn words(&self) -> String {
        let words = match self.direction {
            Some(direction) => format!("{}s' {}", direction.name(), self.figure.words()),
            None => self.figure.words().to_string(),
        };
        match &self.group {
            Some(group) => format!("group {group}'s {words}"),
            None => words,
        }
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(group) = &self.group {
            write!(f, "{group}.")?;
        }
        match self.direction {
            Some(direction) => write!(f, "{}.{}", direction.name(), self.figure.name()),
            None => f.write_str(self.figure.name()),
        }
    }
}

impl From<Metric> for String {
    fn from(metric: Metric) -> String {
        metric.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_are_written_as_they_are_read() {
        for text in [
            "throughput",
            "p99",
            "time",
            "read.p99",
            "write.iops",
            "logger.p99",
            "logger.write.p99",
        ] {
            assert_eq!(text.parse::<Metric>().unwrap().to_string(), text);
        }
        let grouped: Metric = "logger.write.p99".parse().unwrap();
        assert_eq!(grouped.group.as_deref(), Some("logger"));
        assert_eq!(grouped.direction, Some(Direction::Write));
        for bad in [
            "read.cpu",
            "write.time",
            "both.p98",
            "p98",
            "read.",
            "",
            "1st.p99",
            "logger.both.p99",
            "logger.read.cpu",
        ] {
            assert!(bad.parse::<Metric>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_direction_of_an_unmixed_point_is_its_totals_and_of_the_other_nothing() {
        let result = crate::record::write::parse(
            include_str!("../../fuzz/seeds/result_file/run.json"),
            "run.json",
        )
        .unwrap();
        let point = &result.points[0];
        let sole = point.workload.directions().sole().unwrap();
        let whole = Metric::from(Figure::Iops).values(point);
        let own: Metric = format!("{}.iops", sole.name()).parse().unwrap();
        assert_eq!(own.values(point), whole);
        let other = Direction::ALL.into_iter().find(|d| *d != sole).unwrap();
        let other: Metric = format!("{}.iops", other.name()).parse().unwrap();
        assert!(other.values(point).is_empty());
    }
}
