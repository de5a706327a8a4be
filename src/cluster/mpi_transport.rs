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
}
