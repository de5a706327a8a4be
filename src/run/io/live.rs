//! The live board a status line reads while a point runs: its phase, the bytes laid out, and what the jobs' closed intervals completed per direction — written as each interval closes (never per I/O), read by the status thread.
//!
//! One board per process: a run measures one point at a time, and the
//! status line shows that point. The counters only grow; the reader takes
//! differences between its own ticks, so it needs no lock and the jobs never
//! wait for it. Each job adds its interval's bytes and I/Os when the
//! interval closes (the recorder's cold path, once per `--interval`), so the
//! figures shown lag by at most one interval and cost the I/O loop nothing.

use crate::plan::direction::Direction;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

const DIRECTIONS: usize = Direction::ALL.len();

/// What the point under way is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Between points, or before the first.
    Idle,
    /// Writing the files a read or an overwrite needs, untimed.
    LayingOut,
    /// Evicting or warming the cache before a repetition.
    Preparing,
    /// Unmeasured I/O before the timed region.
    Ramp,
    Measuring,
    /// After the timed region: verifying, checking, recording.
    Checking,
    /// A guest booting under KVM (`accel=auto` probes it first).
    BootingKvm,
    /// A guest booting under TCG, QEMU's emulated CPU.
    BootingTcg,
    /// The guest's agent measuring the point (its figures come at its end).
    InGuest,
}

impl Phase {
    /// The phase in words, for the status line.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "starting",
            Phase::LayingOut => "laying out",
            Phase::Preparing => "preparing the cache",
            Phase::Ramp => "ramp",
            Phase::Measuring => "measuring",
            Phase::Checking => "checking",
            Phase::BootingKvm => "booting guest (kvm)",
            Phase::BootingTcg => "booting guest (tcg)",
            Phase::InGuest => "measuring in the guest",
        }
    }

    const ALL: [Phase; 9] = [
        Phase::Idle,
        Phase::LayingOut,
        Phase::Preparing,
        Phase::Ramp,
        Phase::Measuring,
        Phase::Checking,
        Phase::BootingKvm,
        Phase::BootingTcg,
        Phase::InGuest,
    ];
}

/// The board's counters.
struct Board {
    phase: AtomicU8,
    /// The repetition under way, from 1 (0: none yet).
    repetition: AtomicU64,
    laid_out: AtomicU64,
    bytes: [AtomicU64; DIRECTIONS],
    ops: [AtomicU64; DIRECTIONS],
    /// The highest p99 of any job's interval since the reader last took it.
    p99_ns: [AtomicU64; DIRECTIONS],
}

static BOARD: Board = Board {
    phase: AtomicU8::new(0),
    repetition: AtomicU64::new(0),
    laid_out: AtomicU64::new(0),
    bytes: [const { AtomicU64::new(0) }; DIRECTIONS],
    ops: [const { AtomicU64::new(0) }; DIRECTIONS],
    p99_ns: [const { AtomicU64::new(0) }; DIRECTIONS],
};

/// The point under way entered `phase`.
pub fn set_phase(phase: Phase) {
    let index = Phase::ALL.iter().position(|p| *p == phase).unwrap_or(0);
    BOARD.phase.store(index as u8, Ordering::Relaxed);
}

/// Repetition `number` (from 1) of the point under way starts.
pub fn set_repetition(number: u64) {
    BOARD.repetition.store(number, Ordering::Relaxed);
}

/// `bytes` more were laid out.
pub fn laid_out(bytes: u64) {
    BOARD.laid_out.fetch_add(bytes, Ordering::Relaxed);
}

/// A job closed an interval: `bytes` and `ops` completed in `direction`
/// during it, with `p99_ns` its 99th-percentile latency (0: none).
pub fn interval_closed(direction: Direction, bytes: u64, ops: u64, p99_ns: u64) {
    let d = direction.index();
    BOARD.bytes[d].fetch_add(bytes, Ordering::Relaxed);
    BOARD.ops[d].fetch_add(ops, Ordering::Relaxed);
    BOARD.p99_ns[d].fetch_max(p99_ns, Ordering::Relaxed);
}

/// What the board says at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Reading {
    /// The phase under way.
    pub phase: Option<Phase>,
    /// The repetition under way, from 1 (0: none yet).
    pub repetition: u64,
    /// Bytes laid out since the process started.
    pub laid_out: u64,
    /// Per direction: bytes completed in closed intervals since the process started.
    pub bytes: [u64; DIRECTIONS],
    /// Per direction: I/Os completed in closed intervals since the process started.
    pub ops: [u64; DIRECTIONS],
    /// Per direction: the highest interval p99 since the last reading (0: none).
    pub p99_ns: [u64; DIRECTIONS],
}

/// Reads the board; the p99s start again from zero for the next reading.
pub fn read() -> Reading {
    let load =
        |counters: &[AtomicU64; DIRECTIONS]| counters.each_ref().map(|c| c.load(Ordering::Relaxed));
    Reading {
        phase: Phase::ALL
            .get(usize::from(BOARD.phase.load(Ordering::Relaxed)))
            .copied(),
        repetition: BOARD.repetition.load(Ordering::Relaxed),
        laid_out: BOARD.laid_out.load(Ordering::Relaxed),
        bytes: load(&BOARD.bytes),
        ops: load(&BOARD.ops),
        p99_ns: BOARD
            .p99_ns
            .each_ref()
            .map(|c| c.swap(0, Ordering::Relaxed)),
    }
}
