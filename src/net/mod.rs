//! The network protocols iolab's own clients speak, one module each, and [`PROTOCOLS`], the one registry that lists them.
//!
//! A protocol's module holds everything iolab does with it beyond the
//! library binding (`engine/<protocol>/`): what its `--target` URL must be
//! ([`Protocol::form`], parsed by the binding's URL type), the checks of
//! what its client cannot do and of the user's consent, the space a
//! session's files live in, the target (layout, cache treatment through the
//! server, identity, release), the job each worker runs on its own
//! connection, and the accounting of what crossed the wire. The rest of
//! iolab reaches a protocol only through [`parse`], [`form_for`] and the
//! [`Remote`] it returns; the runner runs its jobs through
//! [`crate::run::io::client::ClientJob`]. What every protocol does alike lives
//! in `server`.

pub mod iscsi;
pub mod nfs;
pub(crate) mod server;

use crate::plan::{EngineKind, Workload};
use crate::run::Session;
use crate::run::signals::Interrupt;
use std::path::Path;

/// One protocol: its engine, its URL's form, and how a URL becomes a target.
pub struct Protocol {
    /// The engine that speaks it; its scheme is the engine's
    /// [`crate::engine::kind::Capabilities::network`].
    pub engine: EngineKind,
    /// The form of its URL, as messages show it.
    pub form: &'static str,
    /// Checks a URL of this scheme; the error names it and what is wrong.
    pub parse: fn(&str) -> Result<Box<dyn Remote>, String>,
}

/// Every protocol iolab speaks. A new protocol is its module and one line here.
pub const PROTOCOLS: &[Protocol] = &[nfs::PROTOCOL, iscsi::PROTOCOL];

/// A checked `--target`: a network place a session measures.
pub trait Remote: std::fmt::Debug + Send + Sync {
    /// The URL as the user wrote it.
    fn text(&self) -> &str;

    /// The engine that reaches it.
    fn engine(&self) -> EngineKind;

    /// Why this protocol's client cannot run `workload` as asked (a sync
    /// mode it has no request for), in one line; `None` when it can.
    fn refuse_workload(&self, workload: &Workload) -> Option<String> {
        let _ = workload;
        None
    }

    /// Whether the session makes its own files there, one set per group
    /// of a point of groups (an export's directory); a LUN is one
    /// workload's region.
    fn makes_files(&self) -> bool {
        true
    }

    /// The bytes a job that gives no size moves: a LUN's capacity, read at
    /// a login (fio's libiscsi engine sizes its job so); a target of files
    /// has none, and the error says so.
    fn capacity(&self) -> Result<u64, String> {
        Err(format!(
            "{} holds files, not one extent: give the bytes to move",
            self.text()
        ))
    }

    /// Checks `--destroy-data` (`destroy_data`) against this target when
    /// some point writes (`writes`): whether it is this target's consent
    /// (`true`), not needed (`false`), or refused with the reason.
    fn consent(&self, writes: bool, destroy_data: Option<&Path>) -> Result<bool, String>;

    /// A session measuring this target for run `run_id`, writable only when
    /// `consented`; a server that cannot be reached, mounted or logged in to
    /// is refused with the URL.
    fn open(&self, consented: bool, run_id: &str, interrupt: &Interrupt)
    -> Result<Session, String>;
}

/// The protocol `engine` speaks, when it is a network engine.
pub fn protocol_of(engine: EngineKind) -> Option<&'static Protocol> {
    PROTOCOLS.iter().find(|protocol| protocol.engine == engine)
}

/// Checks a `--target` URL: its scheme picks the protocol, which checks the rest.
pub fn parse(text: &str) -> Result<Box<dyn Remote>, String> {
    // The engine registry knows which engine a scheme is (`EngineKind::for_url`).
    match EngineKind::for_url(text).and_then(protocol_of) {
        Some(protocol) => (protocol.parse)(text),
        None => {
            let forms: Vec<&str> = PROTOCOLS.iter().map(|p| p.form).collect();
            Err(format!(
                "--target {text}: iolab reaches {}",
                forms.join(" and ")
            ))
        }
    }
}

/// The capacity of the target `text` names ([`Remote::capacity`]).
pub fn capacity(text: &str) -> Result<u64, String> {
    parse(text)?.capacity()
}

/// The URL form a network engine's `--target` takes, for the message that
/// asks for one.
pub fn form_for(engine: EngineKind) -> Option<&'static str> {
    protocol_of(engine).map(|protocol| protocol.form)
}

/// A `--destroy-data` given for a target that is never overwritten: refused,
/// since it cannot be consent to anything.
pub(crate) fn no_consent_needed(text: &str, destroy_data: Option<&Path>) -> Result<bool, String> {
    match destroy_data {
        Some(_) => Err(format!(
            "--destroy-data is for a block device or an iSCSI LUN; on {text} iolab writes only the files it creates"
        )),
        None => Ok(false),
    }
}

/// A `--destroy-data` for a target whose data a write destroys: it must
/// repeat the URL exactly (compared as text, as a device's path is), and be
/// given when some point writes.
pub(crate) fn consent_by_repeating(
    text: &str,
    what: &str,
    writes: bool,
    destroy_data: Option<&Path>,
) -> Result<bool, String> {
    match destroy_data {
        None if writes => Err(format!(
            "--target {text} is {what} and a write test destroys its data; add --destroy-data={text} to confirm"
        )),
        None => Ok(false),
        Some(given) if given.as_os_str() != text => Err(format!(
            "--destroy-data {} does not repeat the LUN under test; it must be exactly --destroy-data={text}",
            given.display()
        )),
        Some(_) => Ok(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_network_engine_has_one_protocol_and_the_scheme_picks_it() {
        for engine in EngineKind::ALL {
            let listed = PROTOCOLS.iter().filter(|p| p.engine == engine).count();
            let network = engine.capabilities().network.is_some();
            assert_eq!(listed, usize::from(network), "{}", engine.name());
        }
        let nfs = parse("nfs://h/export").unwrap();
        assert_eq!((nfs.engine().name(), nfs.text()), ("nfs", "nfs://h/export"));
        let iscsi = parse("iscsi://h/iqn.2004-01.com.example:d/0").unwrap();
        assert_eq!(iscsi.engine().name(), "iscsi");
        for text in ["smb://h/share", "/mnt/nfs", "nfs:/h/export", ""] {
            let error = parse(text).unwrap_err();
            assert!(error.contains("iolab reaches nfs://"), "{text}: {error}");
        }
    }
}
