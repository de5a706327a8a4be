//! The zones of an emulated zoned device (`--zbd`), which every job of a repetition on the target shares: each zone's write pointer, the zones open for writing, the reset policy's counts, and where each drawn I/O goes — fio's `zbd_adjust_block` for a device that is not zoned.
//!
//! A write goes to its zone's write pointer; a zone not open when the
//! open-zone limit is reached sends the write to an open one (picked from
//! the drawn offset, as fio's `pick_random_zone_idx`); a full zone is
//! reset before it is written again. A read goes below a write pointer
//! (the nearest zone with data when its own has none; the job ends when
//! none has), and a trim resets a zone, which the emulation does without
//! a command to the device, as fio's. One lock per I/O, as fio's zone
//! locks: the pointers are the jobs' shared state.

use super::spec::Io;
use crate::plan::direction::Direction;
use crate::plan::zbd::Zbd;
use std::sync::{Arc, Mutex};

/// The zones of one target, for every job on it: kept by the session
/// from point to point (a job file's phases), as a device keeps its write
/// pointers, and empty at first, as fio's emulated zones start.
#[derive(Debug, Default)]
pub(in crate::run) struct Zones {
    state: Mutex<ZoneState>,
}

#[derive(Debug, Default)]
struct ZoneState {
    /// Bytes written in each zone so far (its write pointer less its
    /// start), for the zones any job's range reaches.
    written: Vec<u64>,
    /// The zones open for writing, in the order they were opened (fio's
    /// `write_zones`); kept only with an open-zone limit.
    open: Vec<u32>,
    /// Bytes written in every zone (fio's `wp_valid_data_bytes`).
    valid: u64,
    /// Writes past the reset threshold left before one resets its zone
    /// (fio's `write_cnt`).
    writes_to_reset: u32,
}

/// fio's `write_cnt` start: 1/frequency (frequency in thousandths).
fn writes_between_resets(zbd: &Zbd) -> u32 {
    match zbd.reset_frequency {
        0 => u32::MAX,
        f => (1000.0 / f64::from(f)).round().max(1.0) as u32,
    }
}

/// One job's view of the zones: its range of them and its grid.
#[derive(Debug)]
pub(in crate::run) struct ZoneUse {
    zones: Arc<Zones>,
    zbd: Zbd,
    /// Byte offset of the job's block 0.
    base: u64,
    /// The job's grid: bytes per block, the smallest I/O.
    bs: u64,
    /// The job's zones, first and past the last, whole zones of its range.
    first: u64,
    end: u64,
    random: bool,
    /// The zones this job reset (a full zone written again, the reset
    /// policy's, a trim), since it started or [`ZoneUse::clear_resets`]:
    /// fio's `zone_resets`.
    resets: std::cell::Cell<u64>,
}

impl ZoneUse {
    /// The job's use of `zones` (cut as `zbd` says) over `blocks` blocks
    /// of `bs` from `base`: its whole zones (fio rounds a writer's range in
    /// to zone boundaries), the table grown to reach them, and the count
    /// of writes to the next reset started afresh (fio's at a job's start).
    pub(in crate::run) fn new(
        zones: Arc<Zones>,
        zbd: Zbd,
        base: u64,
        blocks: u64,
        bs: u64,
        random: bool,
    ) -> ZoneUse {
        let size = zbd.zone_size;
        let first = base.div_ceil(size);
        let end = (base + blocks * bs) / size;
        let mut state = zones.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.written.len() < end as usize {
            state.written.resize(end as usize, 0);
        }
        state.writes_to_reset = writes_between_resets(&zbd);
        drop(state);
        ZoneUse {
            zones,
            zbd,
            base,
            bs,
            first,
            end: end.max(first),
            random,
            resets: std::cell::Cell::new(0),
        }
    }

    /// The zones this job reset since it started, or since the last
    /// [`ZoneUse::clear_resets`].
    pub(in crate::run) fn resets(&self) -> u64 {
        self.resets.get()
    }

    /// Counts resets afresh (at the end of the ramp, as the timed
    /// region's figures start).
    pub(in crate::run) fn clear_resets(&self) {
        self.resets.set(0);
    }

    /// Where `io` goes among the zones; `None`: nowhere (a read or trim
    /// with no written zone to go to, or no whole zone in the range): the
    /// job ends, as fio's does (`io_u_eof`).
    pub(in crate::run) fn place(&self, io: Io) -> Option<Io> {
        if self.first >= self.end {
            return None;
        }
        let zbd = &self.zbd;
        let size = zbd.zone_size;
        let drawn = self.base + io.block * self.bs;
        let len = io.blocks * self.bs;
        let zone = (drawn / size).clamp(self.first, self.end - 1);
        let mut state = self.zones.state.lock().unwrap_or_else(|e| e.into_inner());
        let (offset, len, zone_reset) = match io.direction {
            Direction::Write => {
                let target = self.write_zone(&mut state, zone, drawn);
                let index = target as usize;
                // fio's threshold: past it, one write in 1/frequency resets
                // its zone first.
                let range_bytes = (self.end - self.first) * size;
                let mut reset = false;
                if zbd.reset_frequency > 0
                    && u128::from(state.valid) * 1000
                        >= u128::from(range_bytes) * u128::from(zbd.reset_threshold)
                {
                    state.writes_to_reset -= 1;
                    if state.writes_to_reset == 0 {
                        state.writes_to_reset = writes_between_resets(zbd);
                        reset = true;
                    }
                }
                if reset || state.written[index] + self.bs > zbd.capacity {
                    if state.written[index] > 0 {
                        self.resets.set(self.resets.get() + 1);
                    }
                    state.valid -= state.written[index];
                    state.written[index] = 0;
                }
                let at = state.written[index];
                let len = len.min(zbd.capacity - at) / self.bs * self.bs;
                state.written[index] += len;
                state.valid += len;
                if state.written[index] + self.bs > zbd.capacity {
                    state.open.retain(|&z| u64::from(z) != target);
                }
                (target * size + at, len, false)
            }
            Direction::Read if zbd.read_beyond_wp => (drawn, len, false),
            Direction::Read => {
                let mut target = zone;
                let mut range = state.written[zone as usize];
                if range < self.bs || (!self.random && drawn + self.bs > zone * size + range) {
                    target = self.nearest_written(&state, zone, self.bs)?;
                    range = state.written[target as usize];
                }
                let start = target * size;
                let offset = if range <= len || (!self.random && target != zone) {
                    start
                } else if self.random {
                    start + drawn % size % (range - len) / self.bs * self.bs
                } else {
                    drawn
                };
                let len = len.min(start + range - offset) / self.bs * self.bs;
                (offset, len, false)
            }
            Direction::Trim => {
                let target = if !self.random || state.written[zone as usize] > 0 {
                    zone
                } else {
                    self.nearest_written(&state, zone, 1)?
                };
                let index = target as usize;
                self.resets.set(self.resets.get() + 1);
                state.valid -= state.written[index];
                state.written[index] = 0;
                state.open.retain(|&z| u64::from(z) != target);
                (target * size, len, true)
            }
        };
        drop(state);
        Some(Io {
            block: (offset - self.base) / self.bs,
            blocks: len / self.bs,
            direction: io.direction,
            zone_reset,
        })
    }

    /// The zone a write drawn in `zone` (at `drawn`) goes to: its own,
    /// opened if the limit allows, else an open one picked from the drawn
    /// offset (fio's `zbd_convert_to_write_zone`).
    fn write_zone(&self, state: &mut ZoneState, zone: u64, drawn: u64) -> u64 {
        let limit = self.zbd.max_open as usize;
        if limit == 0 || state.open.contains(&(zone as u32)) {
            return zone;
        }
        if state.open.len() < limit {
            state.open.push(zone as u32);
            return zone;
        }
        let range = (self.end - self.first) * self.zbd.zone_size;
        let start = self.first * self.zbd.zone_size;
        let pick = (u128::from(drawn.saturating_sub(start)) * state.open.len() as u128
            / u128::from(range)) as usize;
        u64::from(state.open[pick.min(state.open.len() - 1)])
    }

    /// The zone with at least `least` bytes written nearest `zone`: the
    /// next ones in order for a sequential job, alternately after and
    /// before for a random one (fio's `zbd_find_zone`).
    fn nearest_written(&self, state: &ZoneState, zone: u64, least: u64) -> Option<u64> {
        let has = |z: u64| state.written[z as usize] >= least;
        for step in 1..=(self.end - self.first) {
            let after = zone + step;
            if after < self.end && has(after) {
                return Some(after);
            }
            if !self.random && after >= self.end {
                return None;
            }
            if self.random && zone >= self.first + step && has(zone - step) {
                return Some(zone - step);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn io(block: u64, direction: Direction) -> Io {
        Io {
            block,
            blocks: 1,
            direction,
            zone_reset: false,
        }
    }

    /// Zones of 1 MiB over 8 MiB, I/Os of 256 KiB (blocks of 256 KiB).
    fn use_of(zbd: &str, random: bool) -> ZoneUse {
        let zbd = zbd.parse().unwrap();
        ZoneUse::new(Arc::default(), zbd, 0, 32, 256 << 10, random)
    }

    #[test]
    fn writes_go_to_their_zones_pointer_and_a_full_zone_is_reset() {
        let zones = use_of("1m", true);
        // Block 9 is in zone 2: written at its start, then on.
        let placed: Vec<u64> = (0..5)
            .map(|_| zones.place(io(9, Direction::Write)).unwrap().block)
            .collect();
        assert_eq!(
            placed,
            [8, 9, 10, 11, 8],
            "the fifth write finds the zone full"
        );
        assert_eq!(zones.resets(), 1, "the full zone's reset is counted");
        zones.clear_resets();
        assert_eq!(zones.resets(), 0);
    }

    #[test]
    fn the_open_zone_limit_sends_writes_to_open_zones() {
        let zones = use_of("1m,open=2", true);
        for block in [0, 4, 8, 12, 16, 28] {
            let placed = zones.place(io(block, Direction::Write)).unwrap();
            assert!(
                placed.block / 4 <= 1,
                "block {block} went to zone {}",
                placed.block / 4
            );
        }
        // Zone 0 and 1 are full after four writes each: closed, so the next
        // zone drawn opens.
        let state = zones.zones.state.lock().unwrap();
        assert!(state.open.len() <= 2, "{:?}", state.open);
    }

    #[test]
    fn reads_stay_below_the_pointers_and_end_with_no_data() {
        let zones = use_of("1m", false);
        assert!(
            zones.place(io(0, Direction::Read)).is_none(),
            "nothing written"
        );
        zones.place(io(20, Direction::Write)).unwrap();
        // A sequential read in an empty zone goes to the next with data.
        let read = zones.place(io(1, Direction::Read)).unwrap();
        assert_eq!(read.block, 20);
        let beyond = use_of("1m,read-beyond-wp", false);
        assert_eq!(beyond.place(io(3, Direction::Read)).unwrap().block, 3);
    }

    #[test]
    fn a_trim_resets_a_written_zone_without_a_command() {
        let zones = use_of("1m", true);
        assert!(
            zones.place(io(0, Direction::Trim)).is_none(),
            "no zone written"
        );
        assert_eq!(
            zones.resets(),
            0,
            "a trim with no zone to go to resets none"
        );
        zones.place(io(13, Direction::Write)).unwrap();
        let trim = zones.place(io(0, Direction::Trim)).unwrap();
        assert_eq!((trim.block, trim.zone_reset), (12, true));
        assert_eq!(zones.resets(), 1);
        assert_eq!(zones.zones.state.lock().unwrap().valid, 0);
        assert_eq!(zones.place(io(13, Direction::Write)).unwrap().block, 12);
    }

    #[test]
    fn past_the_threshold_one_write_in_eight_resets_its_zone() {
        let zones = use_of("1m,reset=0.5/0.125", false);
        let mut resets = 0;
        let mut last_in_zone0 = 0;
        for n in 0..64 {
            let placed = zones.place(io(n % 8, Direction::Write)).unwrap();
            if placed.block / 4 == 0 && placed.block < last_in_zone0 {
                resets += 1;
            }
            if placed.block / 4 == 0 {
                last_in_zone0 = placed.block;
            }
        }
        assert!(resets > 0);
        let state = zones.zones.state.lock().unwrap();
        assert!(state.valid <= 8 * MIB);
    }

    /// A range that starts inside a zone (an offset not on a zone's
    /// start): its first whole zone is its first, and a random read drawn
    /// before it goes there (the offset within its own zone kept, as fio's).
    #[test]
    fn a_range_off_a_zone_boundary_starts_at_its_first_whole_zone() {
        let zbd = "1m".parse().unwrap();
        // 100 KiB blocks of 4 KiB from 100 KiB: zone 0 is partial.
        let zones = ZoneUse::new(Arc::default(), zbd, 100 << 10, 1000, 4096, true);
        let write = zones.place(io(0, Direction::Write)).unwrap();
        assert_eq!((100 << 10) + write.block * 4096, MIB, "zone 1's start");
        for _ in 0..40 {
            zones.place(io(0, Direction::Write)).unwrap();
        }
        let read = zones.place(io(3, Direction::Read)).unwrap();
        let at = (100 << 10) + read.block * 4096;
        assert!((MIB..MIB + 41 * 4096).contains(&at), "{at}");
    }
}
