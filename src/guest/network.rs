//! The guest's network: one tap device the user made in this network namespace (`scripts/netlab guest-link`), the guest's address on its link (the tap's own address plus one), and never QEMU's user-mode networking.

use super::GuestError;
use std::net::Ipv4Addr;

/// The guest's address with its prefix length (`10.211.0.2/24`): the
/// address after the tap's own on the tap's link. The tap must exist in this
/// network namespace, be a tap (not another interface) and carry an IPv4
/// address; each is said in one line.
pub fn guest_address(tap: &str) -> Result<String, GuestError> {
    let device = std::path::Path::new("/sys/class/net").join(tap);
    if !device.exists() {
        return Err(GuestError::Usage(format!(
            "--guest tap={tap}: no such interface in this network namespace (scripts/netlab guest-link makes one; run iolab inside with scripts/netlab exec)"
        )));
    }
    if !device.join("tun_flags").exists() {
        return Err(GuestError::Usage(format!(
            "--guest tap={tap}: {tap} is not a tap device"
        )));
    }
    let output = std::process::Command::new("ip")
        .args(["-o", "-4", "addr", "show", "dev", tap])
        .output()
        .map_err(|e| GuestError::Missing(format!("ip: {e} (Debian package iproute2)")))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let (address, prefix) = tap_address(&text).ok_or_else(|| {
        GuestError::Usage(format!(
            "--guest tap={tap}: it has no IPv4 address, so the guest has no link to the server (scripts/netlab guest-link gives it one)"
        ))
    })?;
    next_on_link(address, prefix)
        .map(|guest| format!("{guest}/{prefix}"))
        .ok_or_else(|| {
            GuestError::Usage(format!(
                "--guest tap={tap}: its address {address}/{prefix} leaves no room for the guest's on that link"
            ))
        })
}

/// The first `inet A.B.C.D/N` of `ip -o -4 addr show` output.
fn tap_address(text: &str) -> Option<(Ipv4Addr, u8)> {
    let mut words = text.split_whitespace();
    words.find(|&w| w == "inet")?;
    let (address, prefix) = words.next()?.split_once('/')?;
    Some((address.parse().ok()?, prefix.parse().ok()?))
}

/// The address after `address` on its `/prefix` link, when it is neither
/// past the link nor its broadcast address.
fn next_on_link(address: Ipv4Addr, prefix: u8) -> Option<Ipv4Addr> {
    if prefix > 30 {
        return None;
    }
    let host_bits = 32 - u32::from(prefix);
    let mask = u32::MAX.checked_shl(host_bits).unwrap_or(0);
    let next = u32::from(address).checked_add(1)?;
    let broadcast = (u32::from(address) & mask) | !mask;
    (next & mask == u32::from(address) & mask && next != broadcast).then(|| Ipv4Addr::from(next))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guest_takes_the_address_after_the_taps() {
        let text = "7: iolab-tap0    inet 10.211.0.1/24 scope global iolab-tap0\\       valid_lft forever preferred_lft forever\n";
        let (address, prefix) = tap_address(text).unwrap();
        assert_eq!((address, prefix), (Ipv4Addr::new(10, 211, 0, 1), 24));
        assert_eq!(
            next_on_link(address, prefix),
            Some(Ipv4Addr::new(10, 211, 0, 2))
        );
        // The last host address's successor is the broadcast address.
        assert_eq!(next_on_link(Ipv4Addr::new(10, 0, 0, 254), 24), None);
        assert_eq!(next_on_link(Ipv4Addr::new(10, 0, 0, 1), 31), None);
        assert_eq!(tap_address(""), None);
    }
}
