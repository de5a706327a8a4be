//! I/O priorities as a job runs them: its thread's class (`ioprio_set`), the draw of each queued I/O's own priority, and the latencies of the I/Os that carried one.

use super::kept::Latencies;
use crate::plan::direction::Direction;
use crate::plan::priority::{IoPriority, Priority};
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

/// A queued job's draw of the I/Os that carry a priority of their own, and
/// the latencies of those, per direction.
pub struct CommandPriorities {
    /// Per direction (read, write, trim): an I/O whose draw from 0 to 99 is
    /// below this carries `value`; 0 draws nothing (trims never: fio's
    /// `cmdprio` covers reads and writes).
    below: [u32; 3],
    /// Per direction: the kernel's priority value the drawn I/Os carry.
    value: [u16; 3],
    /// xorshift64 state, never 0.
    state: u64,
    /// Per direction (read, write): the latencies of the I/Os that carried
    /// their priority, ns, as the job's loop measures every I/O's.
    latency: [Option<Histogram<u64>>; 2],
}

impl CommandPriorities {
    /// The draw of `priority`'s command shares from `seed`, its histograms
    /// allocated; none without a share.
    pub fn new(priority: Option<Priority>, seed: u64) -> Option<CommandPriorities> {
        let command = priority.filter(Priority::per_command)?.command;
        let share = |direction: usize| command.get(direction).copied().flatten();
        Some(CommandPriorities {
            below: [0, 1, 2].map(|d| share(d).map_or(0, |s| u32::from(s.percent))),
            value: [0, 1, 2].map(|d| share(d).map_or(0, |s| s.priority.value())),
            state: (seed ^ 0x5851_F42D_4C95_7F2D) | 1,
            latency: [0, 1].map(|d| share(d).map(|_| new_histogram())),
        })
    }

    /// The priority value `direction`'s next I/O carries; 0 (none: the
    /// thread's) for most.
    #[inline(always)]
    pub fn draw(&mut self, direction: Direction) -> u16 {
        let below = self.below[direction.index()];
        if below == 0 {
            return 0;
        }
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        // The high 32 bits scaled to 0..100, as fio's rand_between(0, 99).
        let roll = ((self.state >> 32) * 100) >> 32;
        if (roll as u32) < below {
            self.value[direction.index()]
        } else {
            0
        }
    }

    /// Records the latency of an I/O that carried its direction's priority.
    #[inline]
    pub fn record(&mut self, direction: Direction, latency_ns: u64) {
        if let Some(Some(histogram)) = self.latency.get_mut(direction.index()) {
            histogram.saturating_record(latency_ns);
        }
    }

    /// Forgets what was recorded, as the job's recorder does on a restart.
    pub fn reset(&mut self) {
        for histogram in self.latency.iter_mut().flatten() {
            histogram.reset();
        }
    }

    /// The latencies recorded, per direction that had a share.
    pub fn into_latencies(self) -> Vec<(Direction, Latencies)> {
        let [read, write] = self.latency;
        [(Direction::Read, read), (Direction::Write, write)]
            .into_iter()
            .filter_map(|(direction, histogram)| Some((direction, Latencies::new(histogram?))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_tags_its_percentage_of_its_directions_ios() {
        let priority: Priority = "idle,read=20%:rt/0,write=100%:be/1".parse().unwrap();
        let mut draws = CommandPriorities::new(Some(priority), 7).unwrap();
        let drawn = (0..100_000)
            .filter(|_| draws.draw(Direction::Read) == 1 << 13)
            .count();
        assert!(
            (19_000..21_000).contains(&drawn),
            "{drawn} of 100000 reads at rt/0"
        );
        assert!((0..1000).all(|_| draws.draw(Direction::Write) == (2 << 13) | 1));
        assert!((0..1000).all(|_| draws.draw(Direction::Trim) == 0));
        let job_only: Priority = "idle".parse().unwrap();
        assert!(CommandPriorities::new(Some(job_only), 7).is_none());
    }

    #[test]
    fn the_thread_takes_a_priority() {
        // Best effort at the lowest level needs no privilege.
        let lowest = IoPriority {
            class: crate::plan::priority::IoClass::BestEffort,
            level: 7,
        };
        let thread = std::thread::spawn(move || {
            set_thread_priority(lowest).unwrap();
            // SAFETY: as for ioprio_set.
            unsafe { libc::syscall(libc::SYS_ioprio_get, 1 as libc::c_long, 0 as libc::c_long) }
        });
        assert_eq!(thread.join().unwrap(), i64::from(lowest.value()));
    }
}
