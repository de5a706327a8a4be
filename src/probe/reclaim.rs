//! Proactive reclaim: kernel agents (DAMON) that page out memory they judge cold, evicting cached file data with no memory pressure.
//!
//! A page-cache benchmark assumes a warm file stays cached while there is free
//! memory. Some hosts (cloud VMs handing memory back to their hypervisor) run
//! a DAMON `pageout` scheme that evicts unmapped file pages it thinks are
//! cold, so a warm run may read from the device. This names such agents.

use crate::plan::units::format_size;
use std::path::{Path, PathBuf};

/// The active DAMON schemes that page memory out, in words, read under `sys`
/// (normally `/sys`): kdamonds of the sysfs admin interface whose state is
/// `on`, and the DAMON_RECLAIM module when enabled. Empty when none is found.
pub fn damon_pageout(sys: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (index, kdamond) in numbered(&sys.join("kernel/mm/damon/admin/kdamonds")) {
        if read(&kdamond.join("state")).as_deref() != Some("on") {
            continue;
        }
        for (_, context) in numbered(&kdamond.join("contexts")) {
            let operations = read(&context.join("operations")).unwrap_or_default();
            let aggregation_us = number(&context.join("monitoring_attrs/intervals/aggr_us"));
            for (_, scheme) in numbered(&context.join("schemes")) {
                if read(&scheme.join("action")).as_deref() == Some("pageout") {
                    found.push(describe(index, &operations, aggregation_us, &scheme));
                }
            }
        }
    }
    if read(&sys.join("module/damon_reclaim/parameters/enabled")).as_deref() == Some("Y") {
        found.push("DAMON_RECLAIM module enabled (pages out cold memory)".to_string());
    }
    found
}

/// One pageout scheme: its kdamond, address space, rate quota and the idle
/// time after which memory counts as cold.
fn describe(kdamond: u32, operations: &str, aggregation_us: Option<u64>, scheme: &Path) -> String {
    let mut facts = vec![format!("kdamond {kdamond}")];
    if !operations.is_empty() {
        facts.push(format!("{operations} operations"));
    }
    let quota = number(&scheme.join("quotas/bytes")).filter(|&bytes| bytes > 0);
    let interval = number(&scheme.join("quotas/reset_interval_ms")).filter(|&ms| ms > 0);
    if let (Some(bytes), Some(ms)) = (quota, interval) {
        facts.push(format!("up to {} per {ms} ms", format_size(bytes)));
    }
    let min_age = number(&scheme.join("access_pattern/age/min"));
    if let (Some(age), Some(us)) = (min_age.filter(|&a| a > 0), aggregation_us) {
        let seconds = age.saturating_mul(us) as f64 / 1e6;
        facts.push(format!("of memory idle for {seconds:.0} s or more"));
    }
    format!("DAMON pageout ({})", facts.join(", "))
}

/// The numbered subdirectories of `dir` (0, 1, …) in order, with their numbers.
fn numbered(dir: &Path) -> Vec<(u32, PathBuf)> {
    let mut entries: Vec<(u32, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let index = entry.file_name().to_str()?.parse().ok()?;
            Some((index, entry.path()))
        })
        .collect();
    entries.sort();
    entries
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|text| text.trim().to_string())
}

fn number(path: &Path) -> Option<u64> {
    read(path)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, relative: &str, text: &str) {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("{text}\n")).unwrap();
    }

    /// A sysfs tree laid out as this development VM's: one kdamond with a
    /// physical-address pageout scheme for unmapped file pages.
    fn damon_tree(root: &Path, state: &str) {
        let kdamond = "kernel/mm/damon/admin/kdamonds/0";
        write(root, &format!("{kdamond}/state"), state);
        let context = format!("{kdamond}/contexts/0");
        write(root, &format!("{context}/operations"), "paddr");
        write(
            root,
            &format!("{context}/monitoring_attrs/intervals/aggr_us"),
            "5000000",
        );
        let scheme = format!("{context}/schemes/0");
        write(root, &format!("{scheme}/action"), "pageout");
        write(root, &format!("{scheme}/quotas/bytes"), "134217728");
        write(root, &format!("{scheme}/quotas/reset_interval_ms"), "1000");
        write(root, &format!("{scheme}/access_pattern/age/min"), "12");
        let other = format!("{context}/schemes/1");
        write(root, &format!("{other}/action"), "stat");
    }

    #[test]
    fn an_active_pageout_scheme_is_described() {
        let root = tempfile::tempdir().unwrap();
        damon_tree(root.path(), "on");
        assert_eq!(
            damon_pageout(root.path()),
            vec![
                "DAMON pageout (kdamond 0, paddr operations, up to 128MiB per 1000 ms, \
                 of memory idle for 60 s or more)"
                    .to_string()
            ]
        );
    }

    #[test]
    fn stopped_kdamonds_and_missing_interfaces_find_nothing() {
        let root = tempfile::tempdir().unwrap();
        assert!(damon_pageout(root.path()).is_empty());
        damon_tree(root.path(), "off");
        assert!(damon_pageout(root.path()).is_empty());
        write(root.path(), "module/damon_reclaim/parameters/enabled", "Y");
        assert_eq!(
            damon_pageout(root.path()),
            vec!["DAMON_RECLAIM module enabled (pages out cold memory)".to_string()]
        );
    }
}
