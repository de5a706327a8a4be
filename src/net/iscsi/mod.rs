//! SCSI over iSCSI through libiscsi, with no kernel initiator: the protocol's registry entry, the consent a LUN needs, the job each worker runs on its own session, and the commands and PDUs it counts.
//!
//! The binding (libiscsi loaded at run time, the URL, the queued engine,
//! the PDU accounting) is `engine/iscsi/`; the LUN as a target is [`lun`].

pub mod lun;

use super::{Protocol, Remote};
use crate::engine::iscsi::url::IscsiUrl;
use crate::engine::iscsi::wire::{self, Wire};
use crate::engine::iscsi::{CommandCount, CommandCounts, IscsiIo, libiscsi::Context};
use crate::plan::{EngineKind, SyncMode, Workload};
use crate::probe::tcp::TcpTraffic;
use crate::run::Session;
use crate::run::io::buffer::AlignedBuffer;
use crate::run::io::client::{ClientJob, run_on_connection, tcp_around};
use crate::run::io::recorder::{JobMemory, JobOutcome};
use crate::run::io::spec::LoopSpec;
use crate::run::io::traffic::{ClientTraffic, PduTally, RequestTally};
use crate::run::signals::Interrupt;
use lun::{IscsiLun, IscsiPortal};
use rustix::fd::AsRawFd;
use std::path::Path;

/// iSCSI's entry in [`super::PROTOCOLS`].
pub const PROTOCOL: Protocol = Protocol {
    engine: EngineKind::Iscsi,
    form: "iscsi://HOST[:PORT]/IQN/LUN",
    parse: |text| Ok(Box::new(IscsiUrl::parse(text)?)),
};

impl Remote for IscsiUrl {
    /// The LUN's capacity, read at a login of its own (READ CAPACITY).
    fn capacity(&self) -> Result<u64, String> {
        EngineKind::Iscsi.available()?;
        Context::connect(self)
            .map(|context| context.capacity)
            .map_err(|e| format!("{}: {e}", self.text))
    }

    fn text(&self) -> &str {
        &self.text
    }

    fn engine(&self) -> EngineKind {
        EngineKind::Iscsi
    }

    fn refuse_workload(&self, workload: &crate::plan::Workload) -> Option<String> {
        workload.items.map(|items| {
            format!(
                "--items {items}: an iSCSI LUN is blocks, with no files to make a tree of; a metadata workload needs a file system (--dir, or --target nfs://…)"
            )
        })
    }

    fn makes_files(&self) -> bool {
        false
    }

    fn consent(&self, writes: bool, destroy_data: Option<&Path>) -> Result<bool, String> {
        // Written by a write test, or by the layout its reads need.
        super::consent_by_repeating(&self.text, "an iSCSI LUN", writes, destroy_data)
    }

    fn open(
        &self,
        consented: bool,
        run_id: &str,
        interrupt: &Interrupt,
    ) -> Result<Session, String> {
        let mut lun = IscsiLun::connect(self.clone())?;
        if consented {
            lun.refuse_if_in_use()?;
        }
        let portal = IscsiPortal::new(self, run_id);
        let watch = crate::probe::sampler::Watch::default();
        let mut session = Session::in_space(Box::new(portal), watch, interrupt.clone());
        session.use_lun(Box::new(lun)).map_err(|error| error.0)?;
        Ok(session)
    }
}

impl ClientJob for IscsiLun {
    /// Its own login, then the queued loop with its PDUs counted as
    /// libiscsi moves them. An error is a setup failure (connect, login,
    /// block size).
    fn run_job(
        &self,
        workload: &Workload,
        spec: &LoopSpec<'_>,
        memory: JobMemory,
        buffer: &mut AlignedBuffer,
        ready: &mut dyn FnMut() -> bool,
    ) -> std::io::Result<JobOutcome> {
        let context = Context::connect(self.url())?;
        let socket = context.socket();
        // SAFETY: `buffer` holds iodepth * largest_io bytes and outlives the context
        // (dropped at the end of this function), and run_queued reaps every
        // request before returning unless the connection failed.
        let mut io = unsafe {
            IscsiIo::new(
                &context,
                workload.iodepth,
                buffer.as_mut_ptr(),
                workload.largest_io() as usize,
            )?
        };
        // --sync osync or odsync: every WRITE(16) with FUA, durable when it completes.
        io.force_unit_access(workload.sync != SyncMode::None);
        let counting = match (wire::counting_available(), socket) {
            (Ok(()), Some(fd)) => Ok(wire::Counting::start(fd.as_raw_fd())),
            (Ok(()), None) => Err("the session has no socket".to_string()),
            (Err(why), _) => Err(why),
        };
        let (mut outcome, tcp) = run_on_connection(&mut io, socket, workload, spec, memory, ready);
        let wire = counting.as_ref().map(|c| c.wire()).map_err(Clone::clone);
        outcome.network = Some(traffic(io.counts(), wire, tcp));
        Ok(outcome)
    }

    /// Its own login, then `body` over the engine, its PDUs counted as for
    /// a job (a flush a SYNCHRONIZE CACHE(16), a trim an UNMAP).
    unsafe fn with_queue(
        &self,
        depth: u32,
        buffers: *mut u8,
        len: usize,
        _write: bool,
        body: &mut dyn FnMut(&mut dyn crate::engine::DynQueuedIo),
    ) -> std::io::Result<ClientTraffic> {
        let context = Context::connect(self.url())?;
        let socket = context.socket();
        // SAFETY: the caller vouches for `buffers` and for reaping; the
        // context outlives the engine (both end here).
        let mut io = unsafe { IscsiIo::new(&context, depth, buffers, len)? };
        let counting = match (wire::counting_available(), socket) {
            (Ok(()), Some(fd)) => Ok(wire::Counting::start(fd.as_raw_fd())),
            (Ok(()), None) => Err("the session has no socket".to_string()),
            (Err(why), _) => Err(why),
        };
        let ((), tcp) = tcp_around(socket, || body(&mut io));
        let wire = counting.as_ref().map(|c| c.wire()).map_err(Clone::clone);
        Ok(traffic(io.counts(), wire, tcp))
    }
}

/// A job's commands by operation and, when they could be counted, its
/// PDUs (`wire`, or why there are none).
fn traffic(
    commands: CommandCounts,
    wire: Result<&Wire, String>,
    tcp: Option<TcpTraffic>,
) -> ClientTraffic {
    let tally = |name, count: CommandCount| RequestTally {
        name,
        count: count.commands,
        bytes: count.bytes,
        round_trip_ns: None,
    };
    let (pdus, status_in_data) = match wire {
        Ok(wire) if wire.lost => (
            Err("the PDU parser lost its place in the stream; counts withheld".to_string()),
            0,
        ),
        Ok(wire) => {
            let mut pdus = Vec::new();
            for (sent, counts) in [(true, &wire.sent), (false, &wire.received)] {
                for opcode in 0..64u8 {
                    let count = counts.pdus[usize::from(opcode)];
                    if count > 0 {
                        pdus.push(PduTally {
                            sent,
                            opcode,
                            name: wire::opcode_name(opcode),
                            count,
                            bytes: counts.bytes[usize::from(opcode)],
                        });
                    }
                }
            }
            (Ok(pdus), wire.received.status_in_data)
        }
        Err(why) => (Err(why), 0),
    };
    ClientTraffic {
        protocol: "iSCSI",
        requests_are: "SCSI commands",
        requests: vec![
            tally("READ(16)", commands.read),
            tally("WRITE(16)", commands.write),
            tally("UNMAP", commands.unmap),
            tally("SYNCHRONIZE CACHE(16)", commands.synchronize),
        ],
        pdus: Some(pdus),
        status_in_data,
        tcp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_needs_the_url_repeated_exactly() {
        let url = IscsiUrl::parse("iscsi://h/iqn.2004-01.com.example:d/0").unwrap();
        assert_eq!(url.consent(false, None), Ok(false));
        let missing = url.consent(true, None).unwrap_err();
        assert!(
            missing.contains("add --destroy-data=iscsi://h/"),
            "{missing}"
        );
        let other = url
            .consent(true, Some(Path::new("iscsi://h/iqn.x:y/1")))
            .unwrap_err();
        assert!(other.contains("does not repeat"), "{other}");
        assert_eq!(url.consent(true, Some(Path::new(&url.text))), Ok(true));
    }
}
