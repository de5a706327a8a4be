//! NUMA memory placement of a job's buffers (`--mem-policy bind:0`, fio's `numa_mem_policy`): the policy and its nodes, as `mbind(2)` takes them.

use super::cpus::CpuSet;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a job's I/O buffers live, as fio's `numa_mem_policy` places them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum MemPolicy {
    /// The process's policy (fio's `default`).
    Default,
    /// The node of the CPU that touches a page first (`local`).
    Local,
    /// Node N first, others when it is full (`prefer:N`).
    Prefer(u16),
    /// Only these nodes (`bind:0-1`); the nodes are numbered as CPUs are.
    Bind(CpuSet),
    /// Pages spread round-robin over these nodes (`interleave:0-1`).
    Interleave(CpuSet),
}

impl MemPolicy {
    /// The policy's nodes; `None` for `default` and `local`.
    pub fn nodes(&self) -> Option<CpuSet> {
        match self {
            MemPolicy::Default | MemPolicy::Local => None,
            MemPolicy::Prefer(node) => CpuSet::from_cpus([usize::from(*node)]),
            MemPolicy::Bind(nodes) | MemPolicy::Interleave(nodes) => Some(*nodes),
        }
    }
}

impl std::str::FromStr for MemPolicy {
    type Err = String;

    /// `default`, `local`, `prefer:0`, `bind:0-1`, `interleave:0+2` (fio's
    /// commas are read as `+`, since a comma separates a sweep's values).
    fn from_str(text: &str) -> Result<MemPolicy, String> {
        let (mode, nodes) = text.split_once(':').unwrap_or((text, ""));
        let list = || -> Result<CpuSet, String> {
            nodes
                .replace(',', "+")
                .parse()
                .map_err(|_| format!("'{text}': '{nodes}' is not a list of NUMA nodes such as 0-1"))
        };
        let bare = |policy: MemPolicy| match nodes {
            "" => Ok(policy),
            _ => Err(format!("'{text}': {mode} takes no nodes")),
        };
        match mode.trim() {
            "default" => bare(MemPolicy::Default),
            "local" => bare(MemPolicy::Local),
            "prefer" => nodes
                .trim()
                .parse()
                .map(MemPolicy::Prefer)
                .map_err(|_| format!("'{text}': prefer takes one node, such as prefer:0")),
            "bind" => list().map(MemPolicy::Bind),
            "interleave" => list().map(MemPolicy::Interleave),
            _ => Err(format!(
                "'{text}' is not a memory policy (default, local, prefer:N, bind:NODES or interleave:NODES)"
            )),
        }
    }
}

impl fmt::Display for MemPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemPolicy::Default => f.write_str("default"),
            MemPolicy::Local => f.write_str("local"),
            MemPolicy::Prefer(node) => write!(f, "prefer:{node}"),
            MemPolicy::Bind(nodes) => write!(f, "bind:{nodes}"),
            MemPolicy::Interleave(nodes) => write!(f, "interleave:{nodes}"),
        }
    }
}

impl TryFrom<String> for MemPolicy {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<MemPolicy> for String {
    fn from(policy: MemPolicy) -> String {
        policy.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fios_policies_parse_to_their_canonical_form() {
        for (text, canonical) in [
            ("default", "default"),
            ("local", "local"),
            ("prefer:1", "prefer:1"),
            ("bind:0", "bind:0"),
            ("interleave:0-1", "interleave:0-1"),
            ("interleave:0,2-3", "interleave:0+2-3"),
        ] {
            let policy: MemPolicy = text.parse().unwrap();
            assert_eq!(policy.to_string(), canonical);
            assert_eq!(canonical.parse::<MemPolicy>(), Ok(policy));
        }
        for bad in ["bind", "bind:x", "prefer:0-1", "local:0", "spread:0"] {
            assert!(bad.parse::<MemPolicy>().is_err(), "{bad}");
        }
    }
}
