//! NFSv3 through libnfs, with no local mount: the protocol's registry entry, what its client refuses, the job each worker runs on its own connection, and the RPCs it counts.
//!
//! The binding (libnfs loaded at run time, the URL, the queued engine) is
//! `engine/nfs/`; the files of a session on an export are [`space`].

pub mod space;
pub mod tree;

use super::{Protocol, Remote};
use crate::engine::nfs::url::NfsUrl;
use crate::engine::nfs::{NfsIo, ProcedureCount, RpcCounts, libnfs::Context};
use crate::plan::{EngineKind, SyncMode, Workload};
use crate::probe::tcp::TcpTraffic;
use crate::run::Session;
use crate::run::io::buffer::AlignedBuffer;
use crate::run::io::client::{ClientJob, run_on_connection, tcp_around};
use crate::run::io::recorder::{JobMemory, JobOutcome};
use crate::run::io::spec::LoopSpec;
use crate::run::io::traffic::{ClientTraffic, RequestTally};
use crate::run::signals::Interrupt;
use space::{NfsFile, NfsSpace};
use std::path::Path;

/// NFS's entry in [`super::PROTOCOLS`].
pub const PROTOCOL: Protocol = Protocol {
    engine: EngineKind::Nfs,
    form: "nfs://HOST/EXPORT[/DIR]",
    parse: |text| Ok(Box::new(NfsUrl::parse(text)?)),
};

impl Remote for NfsUrl {
    fn text(&self) -> &str {
        &self.text
    }

    fn engine(&self) -> EngineKind {
        EngineKind::Nfs
    }

    fn refuse_workload(&self, workload: &Workload) -> Option<String> {
        if workload.cache == crate::plan::CacheMode::Drop {
            return Some(
                "--cache drop drops this machine's kernel caches; iolab's NFS client keeps none, and the server's are the server's: use --cache cold"
                    .to_string(),
            );
        }
        (workload.sync == SyncMode::Odsync).then(|| {
            "--sync odsync: iolab's NFS client writes FILE_SYNC (--sync osync) or UNSTABLE, not DATA_SYNC"
                .to_string()
        })
    }

    fn consent(&self, _writes: bool, destroy_data: Option<&Path>) -> Result<bool, String> {
        // Only the files this run creates are written.
        super::no_consent_needed(&self.text, destroy_data)
    }

    fn open(
        &self,
        _consented: bool,
        run_id: &str,
        interrupt: &Interrupt,
    ) -> Result<Session, String> {
        let space = NfsSpace::connect(self.clone(), run_id)?;
        let watch = crate::probe::sampler::Watch::default();
        Ok(Session::in_space(Box::new(space), watch, interrupt.clone()))
    }
}

impl ClientJob for NfsFile {
    /// Its own connection and open file, then the queued loop. An error is
    /// a setup failure (connect, mount, open, rsize).
    fn run_job(
        &self,
        workload: &Workload,
        spec: &LoopSpec<'_>,
        memory: JobMemory,
        buffer: &mut AlignedBuffer,
        ready: &mut dyn FnMut() -> bool,
    ) -> std::io::Result<JobOutcome> {
        let context = Context::connect(self.url())?;
        // --sync osync: FILE_SYNC writes (odsync is refused before: libnfs has no DATA_SYNC).
        let file_sync = workload.sync != SyncMode::None;
        let file = context.open_with(self.nfs_path(), workload.directions().writes(), file_sync)?;
        // Opened by name: a file put in its place since is neither read nor written.
        self.check_identity(&file)?;
        // SAFETY: `buffer` holds iodepth * largest_io bytes and outlives the engine,
        // and run_queued reaps every request before returning.
        let mut io = unsafe {
            NfsIo::new(
                &file,
                workload.iodepth,
                buffer.as_mut_ptr(),
                workload.largest_io() as usize,
            )?
        };
        let (mut outcome, tcp) =
            run_on_connection(&mut io, context.socket(), workload, spec, memory, ready);
        outcome.network = Some(traffic(io.counts(), tcp));
        Ok(outcome)
    }

    /// Its own connection and open file (UNSTABLE writes: a flush is a
    /// COMMIT), then `body` over the engine.
    unsafe fn with_queue(
        &self,
        depth: u32,
        buffers: *mut u8,
        len: usize,
        write: bool,
        body: &mut dyn FnMut(&mut dyn crate::engine::DynQueuedIo),
    ) -> std::io::Result<ClientTraffic> {
        let context = Context::connect(self.url())?;
        let file = context.open_with(self.nfs_path(), write, false)?;
        self.check_identity(&file)?;
        // SAFETY: the caller vouches for `buffers` and for reaping.
        let mut io = unsafe { NfsIo::new(&file, depth, buffers, len)? };
        let ((), tcp) = tcp_around(context.socket(), || body(&mut io));
        Ok(traffic(io.counts(), tcp))
    }
}

/// A job's calls by procedure, as the record keeps them.
fn traffic(rpcs: RpcCounts, tcp: Option<TcpTraffic>) -> ClientTraffic {
    let tally = |name, count: ProcedureCount| RequestTally {
        name,
        count: count.calls,
        bytes: count.bytes,
        round_trip_ns: None,
    };
    ClientTraffic {
        protocol: "NFSv3",
        requests_are: "RPCs",
        requests: vec![
            tally("READ", rpcs.read),
            tally("WRITE", rpcs.write),
            tally("COMMIT", rpcs.commit),
        ],
        pdus: None,
        status_in_data: 0,
        tcp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odsync_and_destroy_data_are_refused_by_name() {
        let url = NfsUrl::parse("nfs://h/export").unwrap();
        let mut workload = crate::plan::default_workload();
        assert_eq!(url.refuse_workload(&workload), None);
        workload.sync = SyncMode::Odsync;
        assert!(url.refuse_workload(&workload).unwrap().contains("odsync"));
        assert_eq!(url.consent(true, None), Ok(false));
        let refused = url
            .consent(true, Some(Path::new("nfs://h/export")))
            .unwrap_err();
        assert!(
            refused.contains("writes only the files it creates"),
            "{refused}"
        );
    }
}
