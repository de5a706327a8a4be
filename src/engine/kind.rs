//! The engines iolab has, by name, and what each can do: the one place an engine's capabilities are declared.
//!
//! Everything outside `engine/` asks [`EngineKind::capabilities`] instead of
//! naming an engine; only the dispatch in `run` (which engine type runs a
//! job) and the engines' own names and fio's mapping name them. A new
//! engine is its file, a variant here with its capabilities, and its arm in
//! that dispatch.

use serde::{Deserialize, Serialize};

/// The interface used to move data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// read(2)/write(2) on the file position, with lseek(2) when not sequential.
    Sync,
    /// pread(2)/pwrite(2).
    Psync,
    /// The C library's fread/fwrite on a FILE stream.
    Stdio,
    /// memcpy from/to a shared mapping of the file.
    Mmap,
    /// io_uring with `iodepth` requests in flight (fio's `io_uring` is accepted).
    #[value(alias = "io_uring")]
    Uring,
    /// Linux native AIO (io_submit/io_getevents) with `iodepth` requests in
    /// flight, as fio's `libaio`; asynchronous only with O_DIRECT.
    Libaio,
    /// POSIX AIO from the C library (aio_read/aio_write, aio_suspend) with
    /// `iodepth` requests in flight, as fio's `posixaio`; glibc's threads
    /// keep buffered requests in flight too.
    Posixaio,
    /// NFSv3 through libnfs, with no local mount: `iodepth` READ/WRITE RPCs
    /// in flight on one connection per job (`--target nfs://…`).
    Nfs,
    /// SCSI over iSCSI through libiscsi, with no kernel initiator:
    /// `iodepth` READ(16)/WRITE(16) commands in flight on one session per
    /// job (`--target iscsi://…`).
    Iscsi,
    /// No system call at all: measures iolab's own cost.
    Null,
}

impl EngineKind {
    /// The engine's name as used on the command line and in the result file.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Sync => "sync",
            EngineKind::Psync => "psync",
            EngineKind::Stdio => "stdio",
            EngineKind::Mmap => "mmap",
            EngineKind::Uring => "uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Posixaio => "posixaio",
            EngineKind::Nfs => "nfs",
            EngineKind::Iscsi => "iscsi",
            EngineKind::Null => "null",
        }
    }
}

/// What an engine can do, declared once per engine (after fio's
/// `ioengine_ops.flags`), so the rest of iolab asks for a capability rather
/// than naming engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Moves data through a file: false for `null`, which makes no system
    /// call, so no file, cache treatment, device counter or check about data
    /// applies to it.
    pub moves_data: bool,
    /// Does its I/O on a local descriptor, which the runner opens from the
    /// target with the workload's flags: false for `null`, and for network
    /// clients that reach their target themselves.
    pub local_fd: bool,
    /// Keeps several requests in flight: `iodepth` and `batch` apply.
    pub queued: bool,
    /// Keeps requests in flight without O_DIRECT too: false for libaio,
    /// whose buffered requests complete inside the submitting call, so its
    /// queue never holds more than one.
    pub queues_buffered: bool,
    /// Reaches its target over the network with its own client, named by
    /// a URL of this scheme given with `--target` (`nfs`, `iscsi`), not
    /// through a local file.
    pub network: Option<&'static str>,
    /// Can open the file with O_DIRECT.
    pub direct: bool,
    /// Its requests carry an I/O priority of their own (libaio's
    /// `aio_reqprio`, io_uring's `sqe->ioprio`), as fio's `cmdprio_*` need.
    pub priority_per_io: bool,
    /// A kernel thread can poll its submission queue (io_uring's SQPOLL,
    /// fio's `sqthread_poll`).
    pub polled_submission: bool,
    /// Reaches the file through a memory mapping, which cannot grow a file:
    /// a new file gets its length before it is written.
    pub maps_file: bool,
    /// Goes through the C library's stream buffer (fwrite/fread), which
    /// IOzone reports apart (its Fwrite and Fread columns).
    pub library_stream: bool,
    /// Can trim (`--op trim`, `trim` in a mix): a hole punched in a file,
    /// a discard on a block device, UNMAP on an iSCSI LUN. io_uring and
    /// iscsi queue their trims like their reads; libaio, which has no trim
    /// request, trims at once in the queueing call (as fio's libaio engine
    /// does). The mapped and stream engines cannot, nor nfs (NFSv3 has no
    /// request that frees a range).
    pub trims: bool,
    /// Replays a trace (`iolab replay`, `--trace`): each I/O at its own
    /// offset and size, a flush as its own request. The position-based,
    /// mapped and stream engines cannot.
    pub replays_trace: bool,
}

impl EngineKind {
    /// The deepest queue the engine can hold: io_uring's rings take at most
    /// 32768 entries (the kernel's IORING_MAX_ENTRIES; a larger ring is
    /// refused with EINVAL), the others 65536.
    pub fn max_iodepth(self) -> u32 {
        match self {
            EngineKind::Uring => 32_768,
            _ => 65_536,
        }
    }

    /// The names fio gives this engine's `ioengine`, which `import` maps to
    /// it; none when fio has no such engine. An exhaustive match, so a new
    /// engine cannot compile without a decision on its fio name.
    pub const fn fio_names(self) -> &'static [&'static str] {
        match self {
            EngineKind::Sync => &["sync"],
            EngineKind::Psync => &["psync", "pvsync"],
            // fio's engines are system calls; a C library stream is not one.
            EngineKind::Stdio => &[],
            EngineKind::Mmap => &["mmap"],
            EngineKind::Uring => &["io_uring"],
            EngineKind::Libaio => &["libaio"],
            EngineKind::Posixaio => &["posixaio"],
            // fio's `nfs` engine is libnfs, as iolab's.
            EngineKind::Nfs => &["nfs"],
            // fio's `libiscsi` engine is libiscsi, as iolab's.
            EngineKind::Iscsi => &["libiscsi"],
            EngineKind::Null => &["null"],
        }
    }

    /// The fio option a job file names a network engine's target with
    /// (fio's nfs engine: `nfs_url=nfs://HOST/EXPORT`; its libiscsi engine:
    /// `filename=iscsi://HOST/IQN/LUN`); `None` for a local engine.
    pub const fn fio_target_option(self) -> Option<&'static str> {
        match self {
            EngineKind::Nfs => Some("nfs_url"),
            EngineKind::Iscsi => Some("filename"),
            _ => None,
        }
    }

    /// Every engine, in the order `--help` lists them.
    pub const ALL: [EngineKind; 10] = [
        EngineKind::Sync,
        EngineKind::Psync,
        EngineKind::Stdio,
        EngineKind::Mmap,
        EngineKind::Uring,
        EngineKind::Libaio,
        EngineKind::Posixaio,
        EngineKind::Nfs,
        EngineKind::Iscsi,
        EngineKind::Null,
    ];

    /// The network engine that reaches targets named by `url`, by its
    /// scheme (`nfs://…`, `iscsi://…`).
    pub fn for_url(url: &str) -> Option<EngineKind> {
        let scheme = url.split_once("://")?.0;
        EngineKind::ALL
            .into_iter()
            .find(|engine| engine.capabilities().network == Some(scheme))
    }

    /// Whether this kernel offers the engine's interface: io_uring can be
    /// missing or disabled (`kernel.io_uring_disabled`); the rest are
    /// system calls every Linux has.
    pub fn available(self) -> Result<(), String> {
        match self {
            EngineKind::Uring => io_uring::IoUring::new(1)
                .map(drop)
                .map_err(|error| format!("io_uring is not available on this kernel: {error}")),
            EngineKind::Nfs => super::nfs::libnfs::available(),
            EngineKind::Iscsi => super::iscsi::libiscsi::available(),
            _ => Ok(()),
        }
    }

    /// Why O_DIRECT cannot be honoured by this engine, when it cannot.
    pub const fn no_direct_reason(self) -> Option<&'static str> {
        let capabilities = self.capabilities();
        if capabilities.direct {
            None
        } else if !capabilities.moves_data {
            Some("it does no I/O")
        } else if capabilities.network.is_some() {
            Some("it is a network client that keeps no cache to bypass")
        } else if capabilities.maps_file {
            Some("a mapping always goes through the page cache")
        } else {
            Some("the C library buffers the stream in memory it allocates")
        }
    }

    /// How a network client's cache stands, said beside its name where a
    /// replay describes itself; `None` for a local engine.
    pub fn client_note(self) -> Option<&'static str> {
        match self {
            EngineKind::Nfs => Some("libnfs, no client cache; the server's is not evicted"),
            EngineKind::Iscsi => Some("libiscsi, no initiator cache; the target's is not evicted"),
            _ => None,
        }
    }

    /// The most requests this engine keeps in flight when `asked` allows:
    /// one for an engine that issues one at a time (the null engine keeps
    /// the cap, its I/Os ending as they are issued).
    pub fn in_flight(self, asked: u64) -> u64 {
        let capabilities = self.capabilities();
        if capabilities.queued || !capabilities.moves_data {
            asked.max(1)
        } else {
            1
        }
    }

    /// What this engine can do.
    pub const fn capabilities(self) -> Capabilities {
        let base = Capabilities {
            moves_data: true,
            local_fd: true,
            queued: false,
            queues_buffered: true,
            network: None,
            direct: true,
            priority_per_io: false,
            polled_submission: false,
            maps_file: false,
            library_stream: false,
            trims: false,
            replays_trace: true,
        };
        match self {
            EngineKind::Sync => Capabilities {
                trims: true,
                replays_trace: false,
                ..base
            },
            EngineKind::Psync => Capabilities {
                trims: true,
                ..base
            },
            EngineKind::Stdio => Capabilities {
                direct: false,
                library_stream: true,
                replays_trace: false,
                ..base
            },
            EngineKind::Mmap => Capabilities {
                direct: false,
                maps_file: true,
                replays_trace: false,
                ..base
            },
            EngineKind::Uring => Capabilities {
                queued: true,
                trims: true,
                priority_per_io: true,
                polled_submission: true,
                ..base
            },
            EngineKind::Libaio => Capabilities {
                queued: true,
                priority_per_io: true,
                queues_buffered: false,
                trims: true,
                ..base
            },
            EngineKind::Posixaio => Capabilities {
                queued: true,
                // The replayer drives io_uring and libaio queues alone.
                replays_trace: false,
                ..base
            },
            EngineKind::Nfs => Capabilities {
                local_fd: false,
                queued: true,
                network: Some("nfs"),
                direct: false,
                ..base
            },
            EngineKind::Iscsi => Capabilities {
                local_fd: false,
                queued: true,
                network: Some("iscsi"),
                direct: false,
                // UNMAP, on a LUN whose READ CAPACITY(16) says LBPME.
                trims: true,
                ..base
            },
            EngineKind::Null => Capabilities {
                moves_data: false,
                local_fd: false,
                direct: false,
                trims: true,
                ..base
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_has_a_name_and_capabilities() {
        for engine in EngineKind::ALL {
            let capabilities = engine.capabilities();
            assert!(!engine.name().is_empty());
            // A mapping or a stream buffer cannot do O_DIRECT; only a queued
            // engine keeps requests in flight.
            assert!(
                !(capabilities.direct && (capabilities.maps_file || capabilities.library_stream))
            );
            assert_eq!(
                capabilities.queued,
                matches!(
                    engine,
                    EngineKind::Uring
                        | EngineKind::Libaio
                        | EngineKind::Posixaio
                        | EngineKind::Nfs
                        | EngineKind::Iscsi
                )
            );
            // Only a queued engine can fail to queue buffered requests.
            assert!(capabilities.queues_buffered || capabilities.queued);
            // A network client has no local descriptor; every other mover has one.
            assert_eq!(
                capabilities.network.is_some(),
                !capabilities.local_fd && capabilities.moves_data
            );
        }
        assert!(!EngineKind::Null.capabilities().moves_data);
        assert_eq!(EngineKind::for_url("nfs://h/e"), Some(EngineKind::Nfs));
        assert_eq!(
            EngineKind::for_url("iscsi://h/iqn.x:y/1"),
            Some(EngineKind::Iscsi)
        );
        assert_eq!(EngineKind::for_url("http://h/"), None);
        // Each fio name maps to one engine.
        let mut names: Vec<&str> = EngineKind::ALL
            .into_iter()
            .flat_map(|engine| engine.fio_names().iter().copied())
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "{names:?}");
    }
}
