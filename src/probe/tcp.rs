//! The transport's own account of one TCP connection, from the kernel's
//! `TCP_INFO`: segments and bytes in each direction, and retransmits.
//!
//! A network client engine (NFS, iSCSI) reads it from each of its client
//! sockets before and after a timed region, so the messages and bytes the
//! NFS-vs-iSCSI study counts come from TCP itself, beside the RPCs and PDUs
//! the engine counts. The segment counters are 32-bit in the kernel; the
//! difference of two snapshots is taken modulo 2^32, which is exact as long
//! as fewer than 4 billion segments pass between them.

use rustix::fd::{AsRawFd, BorrowedFd};
use std::io;

/// One snapshot of a connection's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpSnapshot {
    segs_out: u32,
    segs_in: u32,
    data_segs_out: u32,
    data_segs_in: u32,
    bytes_acked: u64,
    bytes_received: u64,
    total_retrans: u32,
    /// The largest segment this end sends, bytes.
    pub send_mss: u32,
}

/// What a connection carried between two snapshots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpTraffic {
    /// Segments sent, acknowledgements and retransmissions included.
    pub segs_out: u64,
    /// Segments received.
    pub segs_in: u64,
    /// Segments sent that carried data.
    pub data_segs_out: u64,
    /// Segments received that carried data.
    pub data_segs_in: u64,
    /// Bytes sent that the peer acknowledged.
    pub bytes_acked: u64,
    /// Bytes received in order.
    pub bytes_received: u64,
    /// Segments retransmitted.
    pub retransmits: u64,
}

impl std::ops::Add for TcpTraffic {
    type Output = TcpTraffic;
    /// Another connection's traffic added.
    fn add(self, other: TcpTraffic) -> TcpTraffic {
        TcpTraffic {
            segs_out: self.segs_out + other.segs_out,
            segs_in: self.segs_in + other.segs_in,
            data_segs_out: self.data_segs_out + other.data_segs_out,
            data_segs_in: self.data_segs_in + other.data_segs_in,
            bytes_acked: self.bytes_acked + other.bytes_acked,
            bytes_received: self.bytes_received + other.bytes_received,
            retransmits: self.retransmits + other.retransmits,
        }
    }
}

impl TcpSnapshot {
    /// The counters of the connected TCP socket `socket`. A kernel whose
    /// `tcp_info` ends before the segment counters (older than 4.2) is
    /// refused rather than read as zeros.
    pub fn of(socket: BorrowedFd<'_>) -> io::Result<TcpSnapshot> {
        // SAFETY: tcp_info is plain integers, for which zero is valid.
        let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        // SAFETY: `info` is writable for `len` bytes, and the kernel writes at most `len`.
        let status = unsafe {
            libc::getsockopt(
                socket.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_INFO,
                (&mut info as *mut libc::tcp_info).cast(),
                &mut len,
            )
        };
        if status != 0 {
            return Err(io::Error::last_os_error());
        }
        let needed = std::mem::offset_of!(libc::tcp_info, tcpi_data_segs_out) + 4;
        if (len as usize) < needed {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!(
                    "TCP_INFO gave {len} bytes; the segment counters need {needed} (Linux 4.6 or later)"
                ),
            ));
        }
        Ok(TcpSnapshot {
            segs_out: info.tcpi_segs_out,
            segs_in: info.tcpi_segs_in,
            data_segs_out: info.tcpi_data_segs_out,
            data_segs_in: info.tcpi_data_segs_in,
            bytes_acked: info.tcpi_bytes_acked,
            bytes_received: info.tcpi_bytes_received,
            total_retrans: info.tcpi_total_retrans,
            send_mss: info.tcpi_snd_mss,
        })
    }

    /// What the connection carried since `earlier`.
    pub fn since(self, earlier: TcpSnapshot) -> TcpTraffic {
        let wrapped = |now: u32, then: u32| u64::from(now.wrapping_sub(then));
        TcpTraffic {
            segs_out: wrapped(self.segs_out, earlier.segs_out),
            segs_in: wrapped(self.segs_in, earlier.segs_in),
            data_segs_out: wrapped(self.data_segs_out, earlier.data_segs_out),
            data_segs_in: wrapped(self.data_segs_in, earlier.data_segs_in),
            bytes_acked: self.bytes_acked.saturating_sub(earlier.bytes_acked),
            bytes_received: self.bytes_received.saturating_sub(earlier.bytes_received),
            retransmits: wrapped(self.total_retrans, earlier.total_retrans),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::fd::AsFd;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};

    #[test]
    fn a_transfer_over_loopback_is_counted_by_both_ends() {
        const SENT: usize = 4 << 20;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let before = TcpSnapshot::of(stream.as_fd()).unwrap();
            // The client sends only after this snapshot.
            stream.write_all(b"g").unwrap();
            let mut buffer = vec![0u8; 1 << 16];
            let mut got = 0;
            while got < SENT {
                got += stream.read(&mut buffer).unwrap();
            }
            // The reply carries the acknowledgement of everything read.
            stream.write_all(b"k").unwrap();
            TcpSnapshot::of(stream.as_fd()).unwrap().since(before)
        });
        let mut client = TcpStream::connect(address).unwrap();
        let mut reply = [0u8; 1];
        client.read_exact(&mut reply).unwrap();
        let before = TcpSnapshot::of(client.as_fd()).unwrap();
        client.write_all(&vec![7u8; SENT]).unwrap();
        client.read_exact(&mut reply).unwrap();
        let sent = TcpSnapshot::of(client.as_fd()).unwrap().since(before);
        let received = server.join().unwrap();
        assert_eq!(received.bytes_received, SENT as u64);
        assert_eq!(sent.bytes_acked, SENT as u64);
        // At least one data segment per MSS of data, each counted by both ends.
        let mss = u64::from(TcpSnapshot::of(client.as_fd()).unwrap().send_mss.max(1));
        assert!(sent.data_segs_out >= SENT as u64 / mss, "{sent:?}");
        // Each end counts segments its own way (a GSO burst by its parts,
        // a coalesced arrival once): they agree to a few in a hundred. Both
        // count a retransmission that arrived; one that was lost the sender
        // alone: the sender's count lies between the receiver's and that
        // plus the retransmissions (9 of 95 seen on this loaded machine).
        let slack = 1 + sent.data_segs_out / 50;
        assert!(
            received.data_segs_in <= sent.data_segs_out + slack
                && sent.data_segs_out <= received.data_segs_in + sent.retransmits + slack,
            "{sent:?} against {received:?}"
        );
        assert!(sent.segs_out >= sent.data_segs_out);
        assert_eq!(received.data_segs_out, 2, "the go and the one-byte reply");
    }

    #[test]
    fn counters_that_wrapped_still_give_the_difference() {
        let earlier = TcpSnapshot {
            segs_out: u32::MAX - 1,
            ..TcpSnapshot::default()
        };
        let later = TcpSnapshot {
            segs_out: 3,
            ..TcpSnapshot::default()
        };
        assert_eq!(later.since(earlier).segs_out, 5);
    }

    #[test]
    fn a_socket_that_is_not_tcp_is_refused() {
        let (one, _other) = std::os::unix::net::UnixStream::pair().unwrap();
        assert!(TcpSnapshot::of(one.as_fd()).is_err());
    }
}
