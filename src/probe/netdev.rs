//! Per-interface packet and byte counters from /proc/net/dev: the messages and bytes a workload cost on the network.

use std::collections::BTreeMap;

/// An interface's counters at an instant, or a difference of two.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NetCounters {
    /// Bytes received.
    pub rx_bytes: u64,
    /// Packets received.
    pub rx_packets: u64,
    /// Receive errors.
    pub rx_errors: u64,
    /// Received packets dropped.
    pub rx_dropped: u64,
    /// Bytes sent.
    pub tx_bytes: u64,
    /// Packets sent.
    pub tx_packets: u64,
    /// Send errors.
    pub tx_errors: u64,
    /// Packets dropped on sending.
    pub tx_dropped: u64,
}

impl NetCounters {
    /// The change from `earlier` to `self` (a counter that went backwards counts as zero).
    pub fn since(&self, earlier: &NetCounters) -> NetCounters {
        NetCounters {
            rx_bytes: self.rx_bytes.saturating_sub(earlier.rx_bytes),
            rx_packets: self.rx_packets.saturating_sub(earlier.rx_packets),
            rx_errors: self.rx_errors.saturating_sub(earlier.rx_errors),
            rx_dropped: self.rx_dropped.saturating_sub(earlier.rx_dropped),
            tx_bytes: self.tx_bytes.saturating_sub(earlier.tx_bytes),
            tx_packets: self.tx_packets.saturating_sub(earlier.tx_packets),
            tx_errors: self.tx_errors.saturating_sub(earlier.tx_errors),
            tx_dropped: self.tx_dropped.saturating_sub(earlier.tx_dropped),
        }
    }

    /// Whether nothing moved.
    pub fn is_idle(&self) -> bool {
        self.rx_packets == 0 && self.tx_packets == 0
    }
}

/// Counters by interface name, sorted.
pub type NetTable = BTreeMap<String, NetCounters>;

/// Parses /proc/net/dev (two header lines, then `name: 16 numbers`).
pub fn parse(text: &str) -> NetTable {
    text.lines()
        .filter_map(|line| {
            // Old kernels print "eth0:123" with no space once the counter is wide.
            let (name, numbers) = line.split_once(':')?;
            let numbers: Vec<u64> = numbers
                .split_whitespace()
                .map(|n| n.parse().ok())
                .collect::<Option<_>>()?;
            if numbers.len() < 16 {
                return None;
            }
            Some((
                name.trim().to_string(),
                NetCounters {
                    rx_bytes: numbers[0],
                    rx_packets: numbers[1],
                    rx_errors: numbers[2],
                    rx_dropped: numbers[3],
                    tx_bytes: numbers[8],
                    tx_packets: numbers[9],
                    tx_errors: numbers[10],
                    tx_dropped: numbers[11],
                },
            ))
        })
        .collect()
}

/// Reads /proc/net/dev now (this network namespace); empty when unreadable.
pub fn read() -> NetTable {
    std::fs::read_to_string("/proc/net/dev")
        .map(|text| parse(&text))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NET_DEV: &str = "\
Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 5102374   61402    0    0    0     0          0         0  5102374   61402    0    0    0     0       0          0
  eth0:4294967296 3211 1 2 0 0 0 17 98765 432 3 4 0 0 0 0
eth0.100: 10 1 0 0 0 0 0 0 20 2 0 0 0 0 0 0
";

    #[test]
    fn interfaces_and_counters() {
        let table = parse(NET_DEV);
        assert_eq!(table.len(), 3);
        assert_eq!(table["lo"].rx_bytes, 5_102_374);
        assert_eq!(table["lo"].tx_packets, 61_402);
        let eth0 = table["eth0"];
        assert_eq!(eth0.rx_bytes, 4_294_967_296);
        assert_eq!((eth0.rx_errors, eth0.rx_dropped), (1, 2));
        assert_eq!(
            (
                eth0.tx_bytes,
                eth0.tx_packets,
                eth0.tx_errors,
                eth0.tx_dropped
            ),
            (98765, 432, 3, 4)
        );
        assert!(table.contains_key("eth0.100"));
    }

    #[test]
    fn differences_and_idleness() {
        let before = parse(NET_DEV)["lo"];
        let after = NetCounters {
            rx_bytes: before.rx_bytes + 1000,
            rx_packets: before.rx_packets + 3,
            ..before
        };
        let delta = after.since(&before);
        assert_eq!(
            (delta.rx_bytes, delta.rx_packets, delta.tx_bytes),
            (1000, 3, 0)
        );
        assert!(!delta.is_idle());
        assert!(before.since(&before).is_idle());
    }
}
