//! NFS client counters of one mount from /proc/self/mountstats: bytes, RPC operations with round-trip times, and transports.
//!
//! The format is the kernel's (fs/nfs/super.c `nfs_show_stats`,
//! net/sunrpc/stats.c): a `device … mounted on … with fstype nfs4 statvers=1.1`
//! line, then indented `bytes:`, `xprt:` (one per transport: several with
//! `nconnect`) and `per-op statistics` lines.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One RPC operation's counters (`READ: ops trans timeouts sent recv queue rtt execute [errors]`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OpCounters {
    /// Operations requested.
    pub ops: u64,
    /// Transmissions (more than ops when retransmitted).
    pub transmissions: u64,
    /// Major timeouts.
    pub timeouts: u64,
    /// Bytes sent, headers included.
    pub bytes_sent: u64,
    /// Bytes received, headers included.
    pub bytes_received: u64,
    /// Milliseconds queued before transmission, summed.
    pub queue_ms: u64,
    /// Round-trip milliseconds, summed.
    pub rtt_ms: u64,
    /// Milliseconds from queueing to completion, summed.
    pub execute_ms: u64,
    /// Operations that failed (statvers 1.1 on Linux 5.3+; else 0).
    pub errors: u64,
}

/// One transport's counters (`xprt: tcp …`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TransportCounters {
    /// `tcp`, `udp` or `rdma`.
    pub protocol: String,
    /// RPC requests sent.
    pub sends: u64,
    /// RPC replies received.
    pub receives: u64,
    /// Replies that matched no request.
    pub bad_xids: u64,
}

/// The NFS counters of one mount at an instant, or a difference of two.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NfsCounters {
    pub mount_point: PathBuf,
    /// The `bytes:` line: normal read, normal write, O_DIRECT read, O_DIRECT
    /// write, read from the server, written to the server, pages read, pages written.
    pub bytes: [u64; 8],
    /// Per RPC operation (`READ`, `WRITE`, `GETATTR`…), operations that never ran omitted.
    pub ops: BTreeMap<String, OpCounters>,
    /// Per transport, in order.
    pub transports: Vec<TransportCounters>,
}

impl NfsCounters {
    /// The change from `earlier` (same mount); operations without activity are dropped.
    pub fn since(&self, earlier: &NfsCounters) -> NfsCounters {
        let mut bytes = [0; 8];
        for (i, slot) in bytes.iter_mut().enumerate() {
            *slot = self.bytes[i].saturating_sub(earlier.bytes[i]);
        }
        let ops = self
            .ops
            .iter()
            .map(|(name, now)| {
                let then = earlier.ops.get(name).copied().unwrap_or_default();
                let d = |a: u64, b: u64| a.saturating_sub(b);
                let delta = OpCounters {
                    ops: d(now.ops, then.ops),
                    transmissions: d(now.transmissions, then.transmissions),
                    timeouts: d(now.timeouts, then.timeouts),
                    bytes_sent: d(now.bytes_sent, then.bytes_sent),
                    bytes_received: d(now.bytes_received, then.bytes_received),
                    queue_ms: d(now.queue_ms, then.queue_ms),
                    rtt_ms: d(now.rtt_ms, then.rtt_ms),
                    execute_ms: d(now.execute_ms, then.execute_ms),
                    errors: d(now.errors, then.errors),
                };
                (name.clone(), delta)
            })
            .filter(|(_, delta)| delta.ops > 0 || delta.transmissions > 0)
            .collect();
        let transports = self
            .transports
            .iter()
            .enumerate()
            .map(|(i, now)| {
                let then = earlier.transports.get(i).cloned().unwrap_or_default();
                TransportCounters {
                    protocol: now.protocol.clone(),
                    sends: now.sends.saturating_sub(then.sends),
                    receives: now.receives.saturating_sub(then.receives),
                    bad_xids: now.bad_xids.saturating_sub(then.bad_xids),
                }
            })
            .collect();
        NfsCounters {
            mount_point: self.mount_point.clone(),
            bytes,
            ops,
            transports,
        }
    }
}

fn numbers(text: &str) -> Vec<u64> {
    text.split_whitespace()
        .map_while(|n| n.parse().ok())
        .collect()
}

fn parse_transport(text: &str) -> Option<TransportCounters> {
    let mut fields = text.split_whitespace();
    let protocol = fields.next()?.to_string();
    let values = numbers(&fields.collect::<Vec<_>>().join(" "));
    // Field positions differ by transport (net/sunrpc/xprtsock.c, xprtrdma).
    let (sends, receives, bad_xids) = match protocol.as_str() {
        "udp" => (2, 3, 4),
        "tcp" | "rdma" => (5, 6, 7),
        _ => return None,
    };
    Some(TransportCounters {
        protocol,
        sends: *values.get(sends)?,
        receives: *values.get(receives)?,
        bad_xids: *values.get(bad_xids)?,
    })
}

fn parse_op(line: &str) -> Option<(String, OpCounters)> {
    let (name, rest) = line.split_once(':')?;
    let v = numbers(rest);
    if v.len() < 8 {
        return None;
    }
    Some((
        name.trim().to_string(),
        OpCounters {
            ops: v[0],
            transmissions: v[1],
            timeouts: v[2],
            bytes_sent: v[3],
            bytes_received: v[4],
            queue_ms: v[5],
            rtt_ms: v[6],
            execute_ms: v[7],
            errors: v.get(8).copied().unwrap_or(0),
        },
    ))
}

/// The counters of the NFS mount at `mount_point` in the text of
/// /proc/self/mountstats; None when no NFS mount is there.
pub fn parse(text: &str, mount_point: &Path) -> Option<NfsCounters> {
    let mut found: Option<NfsCounters> = None;
    let mut in_ops = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("device ") {
            if found.is_some() {
                break; // the next mount's block
            }
            // "device SRC mounted on MOUNTPOINT with fstype TYPE [statvers=…]"
            let Some((_, after)) = rest.split_once(" mounted on ") else {
                continue;
            };
            let Some((point, fstype)) = after.rsplit_once(" with fstype ") else {
                continue;
            };
            let fstype = fstype.split_whitespace().next().unwrap_or("");
            let point = PathBuf::from(super::mounts::unescape(point));
            if (fstype == "nfs" || fstype == "nfs4") && point == mount_point {
                found = Some(NfsCounters {
                    mount_point: point,
                    ..NfsCounters::default()
                });
                in_ops = false;
            }
            continue;
        }
        let Some(counters) = found.as_mut() else {
            continue;
        };
        let line = line.trim();
        if in_ops {
            if let Some((name, op)) = parse_op(line) {
                counters.ops.insert(name, op);
            }
        } else if let Some(rest) = line.strip_prefix("bytes:") {
            for (slot, value) in counters.bytes.iter_mut().zip(numbers(rest)) {
                *slot = value;
            }
        } else if let Some(rest) = line.strip_prefix("xprt:") {
            counters.transports.extend(parse_transport(rest));
        } else if line == "per-op statistics" {
            in_ops = true;
        }
    }
    found
}

/// Reads the counters of the NFS mount at `mount_point` now.
pub fn read(mount_point: &Path) -> Option<NfsCounters> {
    let text = std::fs::read_to_string("/proc/self/mountstats").ok()?;
    parse(&text, mount_point)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shaped after a Linux 6.x NFSv4.2 client with nconnect=2 (two tcp
    /// transports), next to non-NFS mounts and a second NFSv3 mount over udp.
    const MOUNTSTATS: &str = "\
device /dev/vda mounted on / with fstype ext4
device proc mounted on /proc with fstype proc
device server:/export mounted on /mnt/nfs\\040data with fstype nfs4 statvers=1.1
\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,acregmin=3,acregmax=60,acdirmin=30,acdirmax=60,hard,proto=tcp,nconnect=2,timeo=600,retrans=2,sec=sys,clientaddr=10.0.0.2,local_lock=none
\tage:\t3712
\timpl_id:\tname='',domain='',date='0,0'
\tcaps:\tcaps=0x3ffbffff,wtmult=512,dtsize=1048576,bsize=0,namlen=255
\tnfsv4:\tbm0=0xfdffbfff,bm1=0xf9be3e,bm2=0x68800,acl=0x3,sessions,pnfs=not configured,lease_time=90,lease_expired=0
\tsec:\tflavor=1,pseudoflavor=1
\tevents:\t114 1024 0 1 37 6 1208 0 0 12 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
\tbytes:\t1048576 4096 0 0 1052672 4096 257 1
\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)
\txprt:\ttcp 0 1 1 0 11 133 133 0 133 0 2 0 0
\txprt:\ttcp 0 1 1 0 11 121 121 0 121 0 2 0 0
\tper-op statistics
\t        NULL: 1 1 0 44 24 0 0 0 0
\t        READ: 32 32 0 5376 1052672 3 45 49 0
\t       WRITE: 1 1 0 4280 136 0 2 2 0
\t     GETATTR: 200 200 0 35200 52800 1 60 65 0
\t      LOCK: 0 0 0 0 0 0 0 0 0

device old:/x mounted on /mnt/v3 with fstype nfs statvers=1.1
\tbytes:\t9 9 9 9 9 9 9 9
\tRPC iostats version: 1.0  p/v: 100003/3 (nfs)
\txprt:\tudp 0 1 7 7 0 1 0
\tper-op statistics
\t        READ: 7 8 1 700 900 1 20 22
";

    #[test]
    fn the_mount_with_escaped_spaces_and_two_transports() {
        let nfs = parse(MOUNTSTATS, Path::new("/mnt/nfs data")).unwrap();
        assert_eq!(nfs.bytes, [1_048_576, 4096, 0, 0, 1_052_672, 4096, 257, 1]);
        assert_eq!(nfs.transports.len(), 2);
        assert_eq!(nfs.transports[0].sends, 133);
        assert_eq!(nfs.transports[1].receives, 121);
        let read = nfs.ops["READ"];
        assert_eq!(
            (read.ops, read.bytes_received, read.rtt_ms, read.execute_ms),
            (32, 1_052_672, 45, 49)
        );
        assert_eq!(nfs.ops.len(), 5);
    }

    #[test]
    fn nfsv3_over_udp_without_the_errors_column() {
        let nfs = parse(MOUNTSTATS, Path::new("/mnt/v3")).unwrap();
        assert_eq!(nfs.transports[0].protocol, "udp");
        assert_eq!(
            (nfs.transports[0].sends, nfs.transports[0].receives),
            (7, 7)
        );
        let read = nfs.ops["READ"];
        assert_eq!((read.transmissions, read.timeouts, read.errors), (8, 1, 0));
    }

    #[test]
    fn non_nfs_and_unknown_mounts_give_nothing() {
        assert!(parse(MOUNTSTATS, Path::new("/")).is_none());
        assert!(parse(MOUNTSTATS, Path::new("/mnt/none")).is_none());
    }

    #[test]
    fn differences_drop_idle_operations() {
        let before = parse(MOUNTSTATS, Path::new("/mnt/nfs data")).unwrap();
        let mut after = before.clone();
        after.bytes[0] += 8192;
        after.ops.get_mut("READ").unwrap().ops += 2;
        after.transports[1].sends += 2;
        let delta = after.since(&before);
        assert_eq!(delta.bytes[0], 8192);
        assert_eq!(delta.ops.keys().collect::<Vec<_>>(), ["READ"]);
        assert_eq!(delta.ops["READ"].ops, 2);
        assert_eq!(
            (delta.transports[0].sends, delta.transports[1].sends),
            (0, 2)
        );
    }
}
