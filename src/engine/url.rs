//! The fields network URLs share, parsed once for every protocol's URL type: the query's pairs, a port, a timeout, a server path. A leaf: it names no protocol.

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
    fn fields_are_checked_by_name() {
        assert_eq!(query_pairs("a=1&b").unwrap(), [("a", "1"), ("b", "")]);
        assert!(
            query_pairs("a=1&a=2")
                .unwrap_err()
                .contains("'a' is given twice")
        );
        assert_eq!(parse_port("3260"), Ok(3260));
        assert!(parse_port("0").is_err());
        assert!(parse_timeout("0").is_err());
        assert!(parse_server_path("rel").is_err());
    }
}
