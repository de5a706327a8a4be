//! `nfs://HOST[:PORT]/EXPORT[/DIR][?version=3&mountport=N&timeout=MS&server_path=DIR]`:
//! the NFS target a user names, checked before anything is sent.

use crate::engine::url::{parse_port, parse_server_path, parse_timeout, query_pairs};

/// A checked NFS URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NfsUrl {
    /// As the user wrote it, for messages and the record.
    pub text: String,
    /// The server's name or address.
    pub host: String,
    /// The NFS port, when given (else the server's portmapper says).
    pub nfs_port: Option<u16>,
    /// The MOUNT port, when given.
    pub mount_port: Option<u16>,
    /// The path on the server: the export, then a directory inside it.
    pub path: String,
    /// How long one call may wait for the server before it fails, ms.
    pub timeout_ms: i32,
    /// When the server runs on this machine: the URL's directory as the
    /// server stores it (`server_path=`), whose cached pages iolab then
    /// evicts before a cold read and counts, as for a local file.
    pub server_path: Option<std::path::PathBuf>,
}

/// The longest wait for one reply unless the URL says otherwise: a server
/// that stopped answering fails the run instead of hanging it.
pub const DEFAULT_TIMEOUT_MS: i32 = 30_000;

impl NfsUrl {
    /// Checks `text`; the error names the URL and what is wrong with it.
    pub fn parse(text: &str) -> Result<NfsUrl, String> {
        // A control character is shown escaped: a newline would split the line.
        let shown = text.escape_debug().to_string();
        let bad = |why: &str| format!("--target {shown}: {why}");
        if text.chars().any(char::is_control) {
            return Err(bad("control characters in the URL"));
        }
        let rest = text
            .strip_prefix("nfs://")
            .ok_or_else(|| bad("not an nfs:// URL"))?;
        let (rest, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, path) = match rest.find('/') {
            Some(at) => rest.split_at(at),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(bad(
                "user names and passwords do not go in the URL (NFSv3 with AUTH_SYS has none, and the URL is recorded)",
            ));
        }
        let (host, nfs_port) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(parse_port(port).map_err(|e| bad(&e))?)),
            None => (authority, None),
        };
        if host.is_empty() {
            return Err(bad("no server named (nfs://HOST/EXPORT)"));
        }
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        if parts.is_empty() {
            return Err(bad("no export named (nfs://HOST/EXPORT[/DIR])"));
        }
        if parts.iter().any(|p| *p == "." || *p == "..") {
            return Err(bad("'.' and '..' are not allowed in the path"));
        }
        let mut url = NfsUrl {
            text: text.to_string(),
            host: host.to_string(),
            nfs_port,
            mount_port: None,
            path: format!("/{}", parts.join("/")),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            server_path: None,
        };
        for (key, value) in query_pairs(query).map_err(|e| bad(&e))? {
            match key {
                "version" if value == "3" => {}
                "version" => {
                    return Err(bad(&format!(
                        "version={value}: iolab's NFS client speaks NFSv3 (version=3)"
                    )));
                }
                "mountport" => url.mount_port = Some(parse_port(value).map_err(|e| bad(&e))?),
                "timeout" => url.timeout_ms = parse_timeout(value).map_err(|e| bad(&e))?,
                "server_path" => {
                    url.server_path = Some(parse_server_path(value).map_err(|e| bad(&e))?)
                }
                other => {
                    return Err(bad(&format!(
                        "unknown argument '{other}' (version, mountport, timeout, server_path)"
                    )));
                }
            }
        }
        Ok(url)
    }

    /// The URL libnfs parses for its connection arguments (ports).
    pub fn for_libnfs(&self) -> String {
        let mut arguments = Vec::new();
        if let Some(port) = self.nfs_port {
            arguments.push(format!("nfsport={port}"));
        }
        if let Some(port) = self.mount_port {
            arguments.push(format!("mountport={port}"));
        }
        let query = if arguments.is_empty() {
            String::new()
        } else {
            format!("?{}", arguments.join("&"))
        };
        format!("nfs://{}{}{query}", self.host, self.path)
    }

    /// Where the export may end, longest first: (export, directory inside
    /// it). `/a/b/c` gives `/a/b/c` with no directory, `/a/b` with `c`,
    /// then `/a` with `b/c`.
    pub fn mount_candidates(&self) -> Vec<(String, String)> {
        let parts: Vec<&str> = self.path.split('/').filter(|p| !p.is_empty()).collect();
        (1..=parts.len())
            .rev()
            .map(|n| (format!("/{}", parts[..n].join("/")), parts[n..].join("/")))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_url_is_understood() {
        let url =
            NfsUrl::parse("nfs://127.0.0.1:2049/export/sub/dir?version=3&mountport=20048").unwrap();
        assert_eq!(url.host, "127.0.0.1");
        assert_eq!((url.nfs_port, url.mount_port), (Some(2049), Some(20048)));
        assert_eq!(url.path, "/export/sub/dir");
        assert_eq!(
            url.for_libnfs(),
            "nfs://127.0.0.1/export/sub/dir?nfsport=2049&mountport=20048"
        );
        assert_eq!(
            url.mount_candidates(),
            vec![
                ("/export/sub/dir".to_string(), String::new()),
                ("/export/sub".to_string(), "dir".to_string()),
                ("/export".to_string(), "sub/dir".to_string()),
            ]
        );
        assert_eq!(
            NfsUrl::parse("nfs://server//export/").unwrap().path,
            "/export"
        );
    }

    #[test]
    fn bad_urls_are_refused_naming_the_url_and_the_fault() {
        for (text, fault) in [
            ("http://server/export", "not an nfs:// URL"),
            ("nfs:///export", "no server named"),
            ("nfs://server", "no export named"),
            ("nfs://server/", "no export named"),
            ("nfs://server/export?version=4", "speaks NFSv3"),
            ("nfs://server:0/export", "port '0'"),
            ("nfs://server:99999/export", "port '99999'"),
            ("nfs://server/export?rsize=4096", "unknown argument 'rsize'"),
            ("nfs://server/export/../etc", "'..'"),
            ("nfs://server/export?timeout=0", "timeout=0"),
            ("nfs://server/export?server_path=tmp/x", "an absolute path"),
            ("nfs://server/ex\nport", "control characters"),
            ("nfs://user:pw@server/export", "user names and passwords"),
            (
                "nfs://server/export?server_path=/a&server_path=/b",
                "'server_path' is given twice",
            ),
            (
                "nfs://server/export?timeout=5&timeout=5",
                "'timeout' is given twice",
            ),
        ] {
            let error = NfsUrl::parse(text).unwrap_err();
            assert!(
                error.contains(fault) && error.starts_with("--target "),
                "{text}: {error}"
            );
        }
    }
}
