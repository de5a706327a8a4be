//! `iscsi://HOST[:PORT]/IQN/LUN[?initiator=IQN&timeout=MS&server_path=FILE]`:
//! the iSCSI LUN a user names, checked before anything is sent.
//!
//! CHAP credentials are not taken in the URL, which iolab records with the
//! command line: libiscsi's own environment variables carry them
//! (`LIBISCSI_CHAP_USERNAME`, `LIBISCSI_CHAP_PASSWORD`).

use crate::engine::url::{parse_port, parse_server_path, parse_timeout, query_pairs};

/// The port iSCSI targets listen on unless told otherwise (RFC 7143).
pub const DEFAULT_PORT: u16 = 3260;

/// The initiator name iolab logs in with unless the URL gives one.
pub const DEFAULT_INITIATOR: &str = "iqn.2026-11.org.iolab:initiator";

/// The longest wait for one reply unless the URL says otherwise: a target
/// that stopped answering fails the run instead of hanging it.
pub const DEFAULT_TIMEOUT_MS: i32 = 30_000;

/// A checked iSCSI URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IscsiUrl {
    /// As the user wrote it, for messages and the record.
    pub text: String,
    /// The target's name or address.
    pub host: String,
    /// The portal's TCP port.
    pub port: u16,
    /// The target's iSCSI qualified name.
    pub target: String,
    /// The logical unit number.
    pub lun: u16,
    /// The initiator name to log in with.
    pub initiator: String,
    /// How long one command may wait for the target before it fails, ms.
    pub timeout_ms: i32,
    /// When the target runs on this machine with a file-backed LUN: that
    /// file (`server_path=`), whose cached pages iolab then evicts before a
    /// cold read and counts.
    pub server_path: Option<std::path::PathBuf>,
}

impl IscsiUrl {
    /// Checks `text`; the error names the URL and what is wrong with it.
    pub fn parse(text: &str) -> Result<IscsiUrl, String> {
        // A control character is shown escaped: a newline would split the line.
        let shown = text.escape_debug().to_string();
        let bad = |why: &str| format!("--target {shown}: {why}");
        if text.chars().any(char::is_control) {
            return Err(bad("control characters in the URL"));
        }
        let rest = text
            .strip_prefix("iscsi://")
            .ok_or_else(|| bad("not an iscsi:// URL"))?;
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        if authority.contains('@') {
            return Err(bad(
                "credentials do not go in the URL, which is recorded: set LIBISCSI_CHAP_USERNAME and LIBISCSI_CHAP_PASSWORD",
            ));
        }
        let (host, port) = split_host_port(authority).map_err(|e| bad(&e))?;
        if host.is_empty() {
            return Err(bad("no target host named (iscsi://HOST/IQN/LUN)"));
        }
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let (target, lun) = match parts.as_slice() {
            [target, lun] => (*target, *lun),
            [] | [_] => return Err(bad("no target and LUN named (iscsi://HOST/IQN/LUN)")),
            _ => return Err(bad("the path is /IQN/LUN, nothing more")),
        };
        check_name(target).map_err(|e| bad(&e))?;
        let lun = lun
            .parse::<u16>()
            .ok()
            .filter(|&lun| lun < 16_384)
            .ok_or_else(|| bad(&format!("LUN '{lun}' is not a number from 0 to 16383")))?;
        let mut url = IscsiUrl {
            text: text.to_string(),
            host: host.to_string(),
            port,
            target: target.to_string(),
            lun,
            initiator: DEFAULT_INITIATOR.to_string(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            server_path: None,
        };
        for (key, value) in query_pairs(query).map_err(|e| bad(&e))? {
            match key {
                "initiator" => {
                    check_name(value).map_err(|e| bad(&format!("initiator: {e}")))?;
                    url.initiator = value.to_string();
                }
                "timeout" => url.timeout_ms = parse_timeout(value).map_err(|e| bad(&e))?,
                "server_path" => {
                    url.server_path = Some(parse_server_path(value).map_err(|e| bad(&e))?)
                }
                other => {
                    return Err(bad(&format!(
                        "unknown argument '{other}' (initiator, timeout, server_path)"
                    )));
                }
            }
        }
        Ok(url)
    }

    /// The portal as libiscsi takes it: `HOST:PORT`, an IPv6 address in brackets.
    pub fn portal(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// `HOST`, `HOST:PORT` or `[IPv6]:PORT`.
fn split_host_port(authority: &str) -> Result<(&str, u16), String> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest
            .split_once(']')
            .ok_or_else(|| "an IPv6 address opened with '[' is not closed".to_string())?;
        return match after {
            "" => Ok((host, DEFAULT_PORT)),
            _ => match after.strip_prefix(':') {
                Some(port) => Ok((host, parse_port(port)?)),
                None => Err(format!("'{after}' after the address is not :PORT")),
            },
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Ok((host, parse_port(port)?)),
        None => Ok((authority, DEFAULT_PORT)),
    }
}

/// An iSCSI name (`iqn.…`, `eui.…`, `naa.…`): the characters RFC 3722 allows.
fn check_name(name: &str) -> Result<(), String> {
    let known = ["iqn.", "eui.", "naa."]
        .iter()
        .any(|prefix| name.to_ascii_lowercase().starts_with(prefix));
    if !known {
        return Err(format!(
            "'{name}' is not an iSCSI name (iqn.…, eui.… or naa.…)"
        ));
    }
    if name.len() > 223 {
        return Err(format!("'{name}' is longer than 223 bytes"));
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':')))
    {
        Some(c) => Err(format!("'{name}' holds '{c}', which iSCSI names may not")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_url_is_understood() {
        let url = IscsiUrl::parse(
            "iscsi://127.0.0.1:3261/iqn.2026-11.org.iolab:netlab/1?initiator=iqn.2026-11.org.test:me&timeout=5000",
        )
        .unwrap();
        assert_eq!(url.host, "127.0.0.1");
        assert_eq!(url.port, 3261);
        assert_eq!(url.target, "iqn.2026-11.org.iolab:netlab");
        assert_eq!(url.lun, 1);
        assert_eq!(url.initiator, "iqn.2026-11.org.test:me");
        assert_eq!(url.timeout_ms, 5000);
        assert_eq!(url.portal(), "127.0.0.1:3261");
        let plain = IscsiUrl::parse("iscsi://server/iqn.2004-01.com.example:disk/0").unwrap();
        assert_eq!((plain.port, plain.lun), (DEFAULT_PORT, 0));
        assert_eq!(plain.initiator, DEFAULT_INITIATOR);
        let v6 = IscsiUrl::parse("iscsi://[::1]:3260/iqn.2004-01.com.example:disk/2").unwrap();
        assert_eq!(
            (v6.host.as_str(), v6.portal().as_str()),
            ("::1", "[::1]:3260")
        );
    }

    #[test]
    fn bad_urls_are_refused_naming_the_url_and_the_fault() {
        for (text, fault) in [
            ("nfs://server/export", "not an iscsi:// URL"),
            (
                "iscsi://server/iqn.2004-01.com.example:d/1?server_path=/a&server_path=/b",
                "'server_path' is given twice",
            ),
            ("iscsi:///iqn.2004-01.com.example:d/1", "no target host"),
            ("iscsi://server", "no target and LUN"),
            (
                "iscsi://server/iqn.2004-01.com.example:d",
                "no target and LUN",
            ),
            (
                "iscsi://server/iqn.2004-01.com.example:d/1/2",
                "nothing more",
            ),
            ("iscsi://server/disk/1", "not an iSCSI name"),
            ("iscsi://server/iqn.2004-01.com.example:d/x", "LUN 'x'"),
            (
                "iscsi://server/iqn.2004-01.com.example:d/16384",
                "LUN '16384'",
            ),
            ("iscsi://server:0/iqn.2004-01.com.example:d/1", "port '0'"),
            ("iscsi://[::1/iqn.2004-01.com.example:d/1", "not closed"),
            (
                "iscsi://me%pw@server/iqn.2004-01.com.example:d/1",
                "LIBISCSI_CHAP",
            ),
            (
                "iscsi://server/iqn.2004-01.com.example:d/1?digest=crc",
                "unknown argument 'digest'",
            ),
            (
                "iscsi://server/iqn.2004-01.com.example:d/1?timeout=0",
                "timeout=0",
            ),
            (
                "iscsi://server/iqn.2004-01.com.example:d/1?initiator=me",
                "initiator: 'me'",
            ),
            ("iscsi://server/iqn.2004-01.com.exa mple:d/1", "holds ' '"),
            ("iscsi://server/iqn.x\n/1", "control characters"),
        ] {
            let error = IscsiUrl::parse(text).unwrap_err();
            assert!(
                error.contains(fault) && error.starts_with("--target "),
                "{text}: {error}"
            );
        }
    }
}
