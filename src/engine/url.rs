//! The URLs the network engines reach their targets by, told apart by
//! scheme: `nfs://HOST/EXPORT[/DIR]` and `iscsi://HOST[:PORT]/IQN/LUN`.

use super::iscsi::url::IscsiUrl;
use super::kind::EngineKind;
use super::nfs::url::NfsUrl;

/// A checked `--target` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetworkUrl {
    /// A directory on an NFS export.
    Nfs(NfsUrl),
    /// An iSCSI LUN.
    Iscsi(IscsiUrl),
}

impl NetworkUrl {
    /// Checks `text`; the error names the URL and what is wrong with it.
    pub fn parse(text: &str) -> Result<NetworkUrl, String> {
        match EngineKind::for_url(text) {
            Some(EngineKind::Nfs) => NfsUrl::parse(text).map(NetworkUrl::Nfs),
            Some(EngineKind::Iscsi) => IscsiUrl::parse(text).map(NetworkUrl::Iscsi),
            _ => Err(format!(
                "--target {text}: iolab reaches nfs://HOST/EXPORT[/DIR] and iscsi://HOST[:PORT]/IQN/LUN"
            )),
        }
    }

    /// The URL as the user wrote it.
    pub fn text(&self) -> &str {
        match self {
            NetworkUrl::Nfs(url) => &url.text,
            NetworkUrl::Iscsi(url) => &url.text,
        }
    }

    /// The engine that reaches it.
    pub fn engine(&self) -> EngineKind {
        match self {
            NetworkUrl::Nfs(_) => EngineKind::Nfs,
            NetworkUrl::Iscsi(_) => EngineKind::Iscsi,
        }
    }
}

/// The `KEY=VALUE` pairs of a URL's query, in order; a key given twice is
/// refused by name, since which one would count is a guess.
pub(crate) fn query_pairs(query: &str) -> Result<Vec<(&str, &str)>, String> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if pairs.iter().any(|(seen, _)| *seen == key) {
            return Err(format!("'{key}' is given twice; give it once"));
        }
        pairs.push((key, value));
    }
    Ok(pairs)
}

/// A `PORT`: 1 to 65535.
pub(crate) fn parse_port(text: &str) -> Result<u16, String> {
    text.parse::<u16>()
        .ok()
        .filter(|&port| port > 0)
        .ok_or_else(|| format!("port '{text}' is not 1 to 65535"))
}

/// A `timeout=MS` value: milliseconds, 1 to an hour.
pub(crate) fn parse_timeout(value: &str) -> Result<i32, String> {
    value
        .parse::<i32>()
        .ok()
        .filter(|ms| (1..=3_600_000).contains(ms))
        .ok_or_else(|| format!("timeout={value}: milliseconds, 1 to 3600000"))
}

/// A `server_path=` value: an absolute path on this machine.
pub(crate) fn parse_server_path(value: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(value);
    if path.is_absolute() {
        Ok(path)
    } else {
        Err(format!(
            "server_path={value}: an absolute path on this machine"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_picks_the_engine_and_anything_else_is_refused() {
        let nfs = NetworkUrl::parse("nfs://h/export").unwrap();
        assert_eq!(nfs.engine(), EngineKind::Nfs);
        let iscsi = NetworkUrl::parse("iscsi://h/iqn.2004-01.com.example:d/0").unwrap();
        assert_eq!(
            (iscsi.engine(), iscsi.text()),
            (EngineKind::Iscsi, "iscsi://h/iqn.2004-01.com.example:d/0")
        );
        for text in ["smb://h/share", "/mnt/nfs", "nfs:/h/export", ""] {
            let error = NetworkUrl::parse(text).unwrap_err();
            assert!(error.contains("iolab reaches nfs://"), "{text}: {error}");
        }
    }
}
