//! I/O priorities as a job runs them: its thread's class (`ioprio_set`), the draw of each queued I/O's own priority, and the latencies of the I/Os that carried one.

use super::kept::Latencies;
use crate::plan::direction::Direction;
use crate::plan::priority::{CommandShare, IoPriority, Priority};
use crate::record::histogram::new_histogram;
use hdrhistogram::Histogram;
use std::io;

/// Gives the calling thread `priority` (`ioprio_set(IOPRIO_WHO_PROCESS, 0,
/// …)`, which names the calling thread): every request it issues without a
/// priority of its own goes at it, as fio's `prioclass`/`prio` set it.
pub fn set_thread_priority(priority: IoPriority) -> io::Result<()> {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    // SAFETY: ioprio_set takes three integers and touches no memory of ours.
    let done = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0 as libc::c_long,
            libc::c_long::from(priority.value()),
        )
    };
    if done < 0 {
        let error = io::Error::last_os_error();
        return Err(io::Error::new(
            error.kind(),
            format!("cannot give the job's thread I/O priority {priority} (ioprio_set): {error}"),
        ));
    }
    Ok(())
}

/// One command share as the draw walks it.
struct Rule {
    /// The block size it draws from, bytes; 0: every size.
    size: u64,
    /// Its percent.
    percent: u32,
    /// The kernel's priority value its I/Os carry.
    value: u16,
}

/// A queued job's draw of the I/Os that carry a priority of their own, and
/// the latencies of those, per direction and priority.
pub struct CommandPriorities {
    /// Per direction (read, write): its shares; trims draw none (fio's
    /// `cmdprio` covers reads and writes).
    rules: [Vec<Rule>; 2],
    /// xorshift64 state, never 0.
    state: u64,
    /// Per direction (read, write): each priority value its shares carry,
    /// once, with the latencies of the I/Os that carried it, ns, as the
    /// job's loop measures every I/O's (fio keeps `prios` per value).
    latency: [Vec<(u16, Histogram<u64>)>; 2],
}

impl CommandPriorities {
    /// The draw of `priority`'s command shares from `seed`, its histograms
    /// allocated; none without a share.
    pub fn new(priority: Option<&Priority>, seed: u64) -> Option<CommandPriorities> {
        let command = &priority.filter(|p| p.per_command())?.command;
        let rules = |shares: &[CommandShare]| {
            shares
                .iter()
                .map(|share| Rule {
                    size: share.size.unwrap_or(0),
                    percent: u32::from(share.percent),
                    value: share.priority.value(),
                })
                .collect::<Vec<_>>()
        };
        let histograms = |shares: &[CommandShare]| {
            let mut kept: Vec<(u16, Histogram<u64>)> = Vec::new();
            for share in shares {
                let value = share.priority.value();
                if kept.iter().all(|(kept, _)| *kept != value) {
                    kept.push((value, new_histogram()));
                }
            }
            kept
        };
        Some(CommandPriorities {
            rules: [rules(&command[0]), rules(&command[1])],
            state: (seed ^ 0x5851_F42D_4C95_7F2D) | 1,
            latency: [histograms(&command[0]), histograms(&command[1])],
        })
    }

    /// The priority value the next I/O of `direction` and `len` bytes
    /// carries; 0 (none: the thread's) for most. As fio draws: no draw
    /// for an I/O no share covers, else one from 0 to 99 walked through
    /// the shares that cover it, each its percent wide.
    #[inline(always)]
    pub fn draw(&mut self, direction: Direction, len: u64) -> u16 {
        let Some(rules) = self.rules.get(direction.index()) else {
            return 0;
        };
        let covers = |rule: &&Rule| rule.size == 0 || rule.size == len;
        if !rules.iter().any(|rule| covers(&rule)) {
            return 0;
        }
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        // The high 32 bits scaled to 0..100, as fio's rand_between(0, 99).
        let roll = (((self.state >> 32) * 100) >> 32) as u32;
        let mut bound = 0;
        for rule in rules.iter().filter(covers) {
            bound += rule.percent;
            if roll < bound {
                return rule.value;
            }
        }
        0
    }

    /// Records the latency of an I/O that carried priority `value`.
    #[inline]
    pub fn record(&mut self, direction: Direction, value: u16, latency_ns: u64) {
        if let Some(kept) = self.latency.get_mut(direction.index())
            && let Some((_, histogram)) = kept.iter_mut().find(|(kept, _)| *kept == value)
        {
            histogram.saturating_record(latency_ns);
        }
    }

    /// Forgets what was recorded, as the job's recorder does on a restart.
    pub fn reset(&mut self) {
        for (_, histogram) in self.latency.iter_mut().flatten() {
            histogram.reset();
        }
    }

    /// The latencies recorded, per direction and priority value carried.
    pub fn into_latencies(self) -> Vec<(Direction, u16, Latencies)> {
        let [read, write] = self.latency;
        let tag = |direction: Direction, kept: Vec<(u16, Histogram<u64>)>| {
            kept.into_iter()
                .map(move |(value, histogram)| (direction, value, Latencies::new(histogram)))
        };
        tag(Direction::Read, read)
            .chain(tag(Direction::Write, write))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_tags_its_percentage_of_its_directions_ios() {
        let priority: Priority = "idle,read=20%:rt/0,write=100%:be/1".parse().unwrap();
        let mut draws = CommandPriorities::new(Some(&priority), 7).unwrap();
        let drawn = (0..100_000)
            .filter(|_| draws.draw(Direction::Read, 4096) == 1 << 13)
            .count();
        assert!(
            (19_000..21_000).contains(&drawn),
            "{drawn} of 100000 reads at rt/0"
        );
        assert!((0..1000).all(|_| draws.draw(Direction::Write, 4096) == (2 << 13) | 1));
        assert!((0..1000).all(|_| draws.draw(Direction::Trim, 4096) == 0));
        let job_only: Priority = "idle".parse().unwrap();
        assert!(CommandPriorities::new(Some(&job_only), 7).is_none());
    }

    #[test]
    fn shares_of_one_size_tag_only_that_sizes_ios_each_its_percent() {
        // fio's cmdprio-bssplit example, advanced: of 64 KiB reads 25% at
        // rt/1 and 75% idle; 1 MiB reads and every write without.
        let priority: Priority = "read=64k/25%:rt/1,read=64k/75%:idle".parse().unwrap();
        let mut draws = CommandPriorities::new(Some(&priority), 3).unwrap();
        let (rt, idle) = ((1 << 13) | 1, 3 << 13);
        let mut counts = [0u32; 3];
        for _ in 0..100_000 {
            match draws.draw(Direction::Read, 65536) {
                value if value == rt => counts[0] += 1,
                value if value == idle => counts[1] += 1,
                _ => counts[2] += 1,
            }
        }
        assert!((24_000..26_000).contains(&counts[0]), "{counts:?}");
        assert_eq!(
            counts[0] + counts[1],
            100_000,
            "{counts:?}: 25% + 75% is every 64k read"
        );
        assert!((0..1000).all(|_| draws.draw(Direction::Read, 1 << 20) == 0));
        assert!((0..1000).all(|_| draws.draw(Direction::Write, 65536) == 0));
        draws.record(Direction::Read, rt, 1000);
        draws.record(Direction::Read, idle, 2000);
        draws.record(Direction::Read, idle, 3000);
        let kept = draws.into_latencies();
        let count = |value: u16| {
            kept.iter()
                .find(|(_, kept, _)| *kept == value)
                .map(|(_, _, latencies)| latencies.histogram().len())
        };
        assert_eq!((count(rt), count(idle)), (Some(1), Some(2)));
    }

    #[test]
    fn the_thread_takes_a_priority() {
        // Best effort at the lowest level needs no privilege.
        let lowest = IoPriority::new(crate::plan::priority::IoClass::BestEffort, 7);
        let thread = std::thread::spawn(move || {
            set_thread_priority(lowest).unwrap();
            // SAFETY: as for ioprio_set.
            unsafe { libc::syscall(libc::SYS_ioprio_get, 1 as libc::c_long, 0 as libc::c_long) }
        });
        assert_eq!(thread.join().unwrap(), i64::from(lowest.value()));
    }
}
