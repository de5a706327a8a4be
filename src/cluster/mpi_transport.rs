//! The [`Transport`] over MPI (rsmpi), started with MPI_THREAD_FUNNELED: only
//! the main thread calls MPI, which is all iolab needs.

use super::Transport;
use crate::plan::UsageError;
use crate::usage;
use mpi::Count;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// The tag of the point-to-point message that tells the other ranks a
/// signal stopped this one ([`Transport::send_stop`]).
const STOP_TAG: mpi::Tag = 0x5710;
/// The tag of a repetition's report to rank 0 ([`Transport::gather_until`]).
const REPORT_TAG: mpi::Tag = 0x5711;

/// MPI_COMM_WORLD and the universe that finalizes MPI when dropped.
pub struct MpiTransport {
    // Declared first, so it is dropped before the universe finalizes MPI.
    world: SimpleCommunicator,
    _universe: Universe,
}

/// Initializes MPI; refuses when it cannot start.
pub fn start() -> Result<MpiTransport, UsageError> {
    let (universe, _threading) = mpi::initialize_with_threading(mpi::Threading::Funneled)
        .ok_or_else(|| usage!("--mpi: MPI could not be initialized (was it already?)"))?;
    Ok(MpiTransport {
        world: universe.world(),
        _universe: universe,
    })
}

/// Byte counts and their offsets in the gathered buffer.
fn layout(counts: &[Count]) -> (Vec<Count>, usize) {
    let mut displacements = Vec::with_capacity(counts.len());
    let mut total: Count = 0;
    for &count in counts {
        displacements.push(total);
        total += count;
    }
    (displacements, total as usize)
}

fn split(buffer: &[u8], counts: &[Count], displacements: &[Count]) -> Vec<Vec<u8>> {
    counts
        .iter()
        .zip(displacements)
        .map(|(&count, &at)| buffer[at as usize..(at + count) as usize].to_vec())
        .collect()
}

impl Transport for MpiTransport {
    fn rank(&self) -> u32 {
        self.world.rank() as u32
    }

    fn size(&self) -> u32 {
        self.world.size() as u32
    }

    fn barrier(&self) {
        self.world.barrier();
    }

    fn all_gather(&self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut counts = vec![0 as Count; self.world.size() as usize];
        self.world
            .all_gather_into(&(bytes.len() as Count), &mut counts[..]);
        let (displacements, total) = layout(&counts);
        let mut buffer = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut buffer[..], &counts[..], &displacements[..]);
            self.world.all_gather_varcount_into(bytes, &mut partition);
        }
        split(&buffer, &counts, &displacements)
    }

    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        let root = self.world.process_at_rank(0);
        let length = bytes.len() as Count;
        if self.world.rank() != 0 {
            root.gather_into(&length);
            root.gather_varcount_into(bytes);
            return None;
        }
        let mut counts = vec![0 as Count; self.world.size() as usize];
        root.gather_into_root(&length, &mut counts[..]);
        let (displacements, total) = layout(&counts);
        let mut buffer = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut buffer[..], &counts[..], &displacements[..]);
            root.gather_varcount_into_root(bytes, &mut partition);
        }
        Some(split(&buffer, &counts, &displacements))
    }

    fn broadcast(&self, bytes: &[u8]) -> Vec<u8> {
        let root = self.world.process_at_rank(0);
        let mut length = bytes.len() as u64;
        root.broadcast_into(&mut length);
        let mut buffer = if self.world.rank() == 0 {
            bytes.to_vec()
        } else {
            vec![0u8; length as usize]
        };
        root.broadcast_into(&mut buffer[..]);
        buffer
    }

    fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    fn send_stop(&self, signal: i32) {
        for rank in (0..self.world.size()).filter(|&r| r != self.world.rank()) {
            self.world
                .process_at_rank(rank)
                .send_with_tag(&signal, STOP_TAG);
        }
    }

    fn take_stop(&self) -> Option<i32> {
        let mut first = None;
        while let Some((message, _)) = self
            .world
            .any_process()
            .immediate_matched_probe_with_tag(STOP_TAG)
        {
            let (signal, _) = message.matched_receive::<i32>();
            first.get_or_insert(signal);
        }
        first
    }

    fn gather_until(
        &self,
        bytes: &[u8],
        give_up: &dyn Fn() -> bool,
    ) -> Option<Vec<Option<Vec<u8>>>> {
        if self.world.rank() != 0 {
            self.world
                .process_at_rank(0)
                .send_with_tag(bytes, REPORT_TAG);
            return None;
        }
        let size = self.world.size() as usize;
        let mut got: Vec<Option<Vec<u8>>> = vec![None; size];
        got[0] = Some(bytes.to_vec());
        while got.iter().any(Option::is_none) {
            let mut came = false;
            for (rank, slot) in got.iter_mut().enumerate().skip(1) {
                if slot.is_some() {
                    continue;
                }
                if let Some((message, status)) = self
                    .world
                    .process_at_rank(rank as mpi::Rank)
                    .immediate_matched_probe_with_tag(REPORT_TAG)
                {
                    let mut buffer = vec![0u8; status.count(u8::equivalent_datatype()) as usize];
                    message.matched_receive_into(&mut buffer[..]);
                    *slot = Some(buffer);
                    came = true;
                }
            }
            if !came {
                if give_up() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
        Some(got)
    }
}
