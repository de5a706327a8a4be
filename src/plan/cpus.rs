//! CPU sets: the value of `--cpus`, written `0-3+6` (ranges joined by `+`, since commas separate a sweep's values).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The most CPUs a set can name: Linux's `CPU_SETSIZE`, what
/// `sched_setaffinity` takes.
pub const MAX_CPUS: usize = 1024;

/// A non-empty set of CPU numbers below [`MAX_CPUS`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CpuSet {
    bits: [u64; MAX_CPUS / 64],
}

impl CpuSet {
    /// The CPUs in the set, ascending.
    pub fn cpus(&self) -> impl Iterator<Item = usize> + '_ {
        (0..MAX_CPUS).filter(|cpu| self.contains(*cpu))
    }

    /// Whether `cpu` is in the set.
    pub fn contains(&self, cpu: usize) -> bool {
        cpu < MAX_CPUS && self.bits[cpu / 64] & (1 << (cpu % 64)) != 0
    }

    /// How many CPUs the set holds.
    pub fn len(&self) -> usize {
        self.bits
            .iter()
            .map(|word| word.count_ones() as usize)
            .sum()
    }

    /// Whether the set is empty (a parsed set never is).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The set of the CPUs `cpus` yields; `None` when one is out of range or none is given.
    pub fn from_cpus(cpus: impl IntoIterator<Item = usize>) -> Option<CpuSet> {
        let mut set = CpuSet {
            bits: [0; MAX_CPUS / 64],
        };
        for cpu in cpus {
            if cpu >= MAX_CPUS {
                return None;
            }
            set.bits[cpu / 64] |= 1 << (cpu % 64);
        }
        (!set.is_empty()).then_some(set)
    }
}

impl std::str::FromStr for CpuSet {
    type Err = String;

    /// `3`, `0-3`, `0-3+6+8-9`.
    fn from_str(text: &str) -> Result<CpuSet, String> {
        let mut cpus = Vec::new();
        for part in text.split('+') {
            let number = |n: &str| {
                n.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n < MAX_CPUS)
                    .ok_or_else(|| {
                        format!(
                            "'{text}' is not a CPU list such as 0-3+6 (CPU numbers below {MAX_CPUS}, \
                             ranges joined by +)"
                        )
                    })
            };
            let (low, high) = match part.split_once('-') {
                Some((low, high)) => (number(low)?, number(high)?),
                None => (number(part)?, number(part)?),
            };
            if low > high {
                return Err(format!("'{text}': the CPU range {part} runs backwards"));
            }
            cpus.extend(low..=high);
        }
        CpuSet::from_cpus(cpus).ok_or_else(|| format!("'{text}' names no CPU"))
    }
}

impl fmt::Display for CpuSet {
    /// The canonical form: ascending ranges joined by `+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cpus: Vec<usize> = self.cpus().collect();
        let mut first = true;
        let mut i = 0;
        while i < cpus.len() {
            let mut j = i;
            while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
                j += 1;
            }
            if !first {
                f.write_str("+")?;
            }
            first = false;
            if j == i {
                write!(f, "{}", cpus[i])?;
            } else {
                write!(f, "{}-{}", cpus[i], cpus[j])?;
            }
            i = j + 1;
        }
        Ok(())
    }
}

impl fmt::Debug for CpuSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CpuSet({self})")
    }
}

impl Serialize for CpuSet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CpuSet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<CpuSet, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_to_their_canonical_form() {
        for (text, canonical, len) in [
            ("3", "3", 1),
            ("0-3", "0-3", 4),
            ("6+0-3", "0-3+6", 5),
            ("0+1+2", "0-2", 3),
            ("1023", "1023", 1),
        ] {
            let set: CpuSet = text.parse().unwrap();
            assert_eq!((set.to_string().as_str(), set.len()), (canonical, len));
        }
        for bad in ["", "a", "3-1", "1024", "0,1", "-1", "0-", "+"] {
            assert!(bad.parse::<CpuSet>().is_err(), "{bad}");
        }
    }
}
