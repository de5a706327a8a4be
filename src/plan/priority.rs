//! I/O priorities (`--priority idle,20%:rt/0`): the class and level each job's thread issues at (fio's `prioclass`/`prio`) and the shares of I/Os given a priority of their own, of a direction or of one block size (fio's `cmdprio_percentage`, `cmdprio_bssplit`, `cmdprio_class`, `cmdprio`, `cmdprio_hint`).
//!
//! A job's priority is set once, with `ioprio_set(2)` on its thread, before
//! its first I/O; the kernel gives it to every request the thread issues
//! that carries none of its own. A command share tags that percentage of a
//! direction's I/Os (or of those of one size: `read=64k/25%:rt/1`), drawn
//! one by one, with its priority in the request itself (libaio's
//! `aio_reqprio`, io_uring's `sqe->ioprio`), so only the queued kernel
//! engines take one. A priority may carry a hint (`be/0+hint1`: a command
//! duration limit's descriptor, for drives that have them). Latency is then
//! kept per priority as fio keeps it (`prios` in its JSON): the job's own
//! and each share's.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The kernel's I/O scheduling classes (`linux/ioprio.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IoClass {
    /// `IOPRIO_CLASS_RT`, 1: served before every other class.
    RealTime = 1,
    /// `IOPRIO_CLASS_BE`, 2: the default class.
    BestEffort = 2,
    /// `IOPRIO_CLASS_IDLE`, 3: served only when no other class waits.
    Idle = 3,
}

impl IoClass {
    /// Its short name, as `--priority` reads it.
    pub fn name(self) -> &'static str {
        match self {
            IoClass::RealTime => "rt",
            IoClass::BestEffort => "be",
            IoClass::Idle => "idle",
        }
    }

    /// The class of fio's number (`prioclass`, `cmdprio_class`): 1 to 3.
    pub fn from_number(number: u64) -> Option<IoClass> {
        match number {
            1 => Some(IoClass::RealTime),
            2 => Some(IoClass::BestEffort),
            3 => Some(IoClass::Idle),
            _ => None,
        }
    }
}

/// The largest hint the kernel's priority value has room for (10 bits).
pub const MAX_HINT: u16 = 1023;

/// A class, a level within it (0 the highest, 7 the lowest) and a hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IoPriority {
    /// The class.
    pub class: IoClass,
    /// 0 to 7; the idle class has none, and keeps 0.
    pub level: u8,
    /// The priority hint (`IOPRIO_PRIO_HINT`, fio's `priohint`): 0 none, 1
    /// to 7 a command duration limit's descriptor on drives that have them.
    pub hint: u16,
}

impl IoPriority {
    /// The class and level, without a hint.
    pub fn new(class: IoClass, level: u8) -> IoPriority {
        IoPriority {
            class,
            level: if class == IoClass::Idle { 0 } else { level },
            hint: 0,
        }
    }

    /// The value the kernel takes (`IOPRIO_PRIO_VALUE_HINT`): the class in
    /// bits 13 to 15, the hint in bits 3 to 12, the level below.
    pub fn value(self) -> u16 {
        ((self.class as u16) << 13) | (self.hint.min(MAX_HINT) << 3) | u16::from(self.level)
    }
}

impl fmt::Display for IoPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.class {
            IoClass::Idle => f.write_str("idle")?,
            class => write!(f, "{}/{}", class.name(), self.level)?,
        }
        if self.hint != 0 {
            write!(f, "+hint{}", self.hint)?;
        }
        Ok(())
    }
}

impl FromStr for IoPriority {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (text, hint) = match text.split_once("+hint") {
            Some((priority, hint)) => (
                priority,
                hint.parse::<u16>()
                    .ok()
                    .filter(|hint| (1..=MAX_HINT).contains(hint))
                    .ok_or_else(|| format!("'{text}': a hint is +hint1 to +hint{MAX_HINT}"))?,
            ),
            None => (text, 0),
        };
        let (class, level) = match text.split_once('/') {
            Some((class, level)) => (class, Some(level)),
            None => (text, None),
        };
        let class = match class {
            "rt" => IoClass::RealTime,
            "be" => IoClass::BestEffort,
            "idle" => IoClass::Idle,
            _ => {
                return Err(format!(
                    "'{text}': a priority is rt/LEVEL, be/LEVEL or idle"
                ));
            }
        };
        let level = match (class, level) {
            (IoClass::Idle, Some(_)) => {
                return Err(format!("'{text}': the idle class has no levels"));
            }
            (_, None) => {
                if class == IoClass::Idle {
                    0
                } else {
                    4
                }
            }
            (_, Some(level)) => level
                .parse::<u8>()
                .ok()
                .filter(|level| *level <= 7)
                .ok_or_else(|| format!("'{text}': the level is 0 (highest) to 7 (lowest)"))?,
        };
        Ok(IoPriority { class, level, hint })
    }
}

/// The share of one direction's I/Os, or of those of one size, issued at
/// a priority of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CommandShare {
    /// The block size whose I/Os the share draws from (fio's
    /// `cmdprio_bssplit`), bytes; `None`: every I/O of the direction.
    pub size: Option<u64>,
    /// Percent of those I/Os, 1 to 100, each drawn at random.
    pub percent: u8,
    /// Their priority.
    pub priority: IoPriority,
}

impl fmt::Display for CommandShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(size) = self.size {
            write!(f, "{}/", super::units::format_size(size))?;
        }
        write!(f, "{}%:{}", self.percent, self.priority)
    }
}

/// A job's priority and its command shares: `idle,20%:rt/0` (every I/O of
/// the job's thread at the idle class, a fifth of them at real-time level
/// 0), `read=20%:rt/0,write=5%:be/0` for a share per direction,
/// `read=64k/25%:rt/1,read=64k/75%:idle` for shares of one block size's I/Os.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Priority {
    /// The thread's priority, set with `ioprio_set`; `None`: as iolab was started.
    pub job: Option<IoPriority>,
    /// The shares of reads, then of writes, with a priority of their own:
    /// one for every size, or any number each of one size, whose percents
    /// add up to 100 at most per size.
    pub command: [Vec<CommandShare>; 2],
}

impl Priority {
    /// Whether any I/O carries a priority of its own.
    pub fn per_command(&self) -> bool {
        self.command.iter().any(|shares| !shares.is_empty())
    }

    /// Refuses a direction's shares that do not add up: two for every
    /// size, one for every size beside one for a size, or more than 100%
    /// of one size's I/Os.
    fn check(&self, text: &str) -> Result<(), String> {
        for shares in &self.command {
            let every_size = shares.iter().filter(|share| share.size.is_none()).count();
            if every_size > 1 || (every_size == 1 && shares.len() > 1) {
                return Err(format!(
                    "'{text}': a direction's share is given twice (one for all its I/Os, or shares each of one size)"
                ));
            }
            if let Some((_, total)) = overfull(shares) {
                return Err(format!(
                    "'{text}': the shares of one size's I/Os add up to {total}%, more than 100%"
                ));
            }
        }
        Ok(())
    }
}

/// The first size (`None`: every size) whose shares in `shares` add up to
/// more than 100%, with their total.
pub fn overfull(shares: &[CommandShare]) -> Option<(Option<u64>, u32)> {
    shares.iter().find_map(|share| {
        let total: u32 = shares
            .iter()
            .filter(|other| other.size == share.size)
            .map(|other| u32::from(other.percent))
            .sum();
        (total > 100).then_some((share.size, total))
    })
}

impl fmt::Display for Priority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(job) = self.job {
            parts.push(job.to_string());
        }
        let [read, write] = &self.command;
        if read == write {
            parts.extend(read.iter().map(ToString::to_string));
        } else {
            parts.extend(read.iter().map(|share| format!("read={share}")));
            parts.extend(write.iter().map(|share| format!("write={share}")));
        }
        f.write_str(&parts.join(","))
    }
}

impl FromStr for Priority {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut chosen = Priority::default();
        for part in text.split(',').map(str::trim) {
            let (directions, share) = match part.split_once('=') {
                Some(("read", share)) => (0..1, share),
                Some(("write", share)) => (1..2, share),
                Some((key, _)) => {
                    return Err(format!(
                        "'{text}': {key}= names no direction (read=, write=)"
                    ));
                }
                None => (0..2, part),
            };
            let Some((percent, priority)) = share.split_once(':') else {
                if directions.len() == 1 || chosen.job.is_some() {
                    return Err(format!(
                        "'{text}': '{part}' is not PERCENT%:PRIORITY, and the job's priority is given once"
                    ));
                }
                chosen.job = Some(part.parse()?);
                continue;
            };
            let (size, percent) = match percent.split_once('/') {
                Some((size, percent)) => (
                    Some(super::units::parse_size(size).map_err(|why| format!("'{text}': {why}"))?),
                    percent,
                ),
                None => (None, percent),
            };
            let percent = percent
                .trim_end_matches('%')
                .parse::<u8>()
                .ok()
                .filter(|percent| (1..=100).contains(percent))
                .ok_or_else(|| format!("'{text}': {percent} is no percentage from 1 to 100"))?;
            let share = CommandShare {
                size,
                percent,
                priority: priority.parse()?,
            };
            for direction in directions {
                chosen.command[direction].push(share);
            }
        }
        if chosen == Priority::default() {
            return Err(format!("'{text}': no priority given"));
        }
        chosen.check(text)?;
        Ok(chosen)
    }
}

impl TryFrom<String> for Priority {
    type Error = String;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Priority> for String {
    fn from(priority: Priority) -> String {
        priority.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_priority_reads_back_as_written() {
        for text in [
            "idle,20%:rt/0",
            "be/7",
            "20%:rt/0",
            "read=20%:rt/0,write=5%:be/3",
            "rt/0,write=100%:idle",
            "64KiB/25%:rt/1,64KiB/75%:idle,1MiB/10%:be/0+hint2",
            "be/7,read=64KiB/100%:rt/0",
            "idle+hint3",
        ] {
            let priority: Priority = text.parse().unwrap();
            assert_eq!(priority.to_string(), text);
        }
        let fios: Priority = "idle,20%:rt/0".parse().unwrap();
        assert_eq!(fios.job.unwrap().value(), 3 << 13);
        assert_eq!(fios.command[1][0].priority.value(), 1 << 13);
        let hinted: IoPriority = "be/0+hint2".parse().unwrap();
        assert_eq!(
            hinted.value(),
            (2 << 13) | (2 << 3),
            "IOPRIO_PRIO_VALUE_HINT"
        );
        let split: Priority = "read=64k/40%:rt/1".parse().unwrap();
        assert_eq!(split.command[0][0].size, Some(65536));
        assert!(split.command[1].is_empty());
        assert_eq!(
            "be".parse::<IoPriority>().unwrap().level,
            4,
            "the kernel's default level"
        );
    }

    #[test]
    fn a_bad_priority_is_refused_by_its_part() {
        for (text, says) in [
            ("0%:rt/0", "no percentage"),
            ("101%:rt/0", "no percentage"),
            ("20%:rt/8", "0 (highest) to 7"),
            ("idle/2", "no levels"),
            ("urgent", "rt/LEVEL"),
            ("idle,be/0", "given once"),
            ("read=20%:rt/0,20%:be/0", "given twice"),
            ("read=20%:rt/0,read=4k/20%:be/0", "given twice"),
            ("4k/60%:rt/0,4k/50%:be/0", "more than 100%"),
            ("be/0+hint0", "+hint1 to"),
            ("x/20%:rt/0", "not a number"),
            ("trim=5%:rt/0", "names no direction"),
            ("", "rt/LEVEL"),
        ] {
            let error = text.parse::<Priority>().unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }
}
