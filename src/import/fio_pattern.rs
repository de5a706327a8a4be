//! How one fio job's `rw` (with its `:N` modifier), `random_distribution`, `norandommap` and `zonemode` become iolab's op and pattern: a second `impl` of [`FioJob`], the rest of its options being read in `fio_job`.

use super::FioJob;
use super::truthy;
use super::units::fio_size;
use crate::plan::direction::Direction;
use crate::plan::pattern::Skew;
use crate::plan::{Op, Pattern};

impl FioJob<'_> {
    /// fio's `rw` (or `readwrite`) as written, `read` when absent.
    fn rw_written(&self) -> &str {
        self.option("rw")
            .or_else(|| self.option("readwrite"))
            .unwrap_or("read")
    }

    /// fio's `rw` without its `:N` modifier.
    pub(super) fn rw(&self) -> &str {
        let written = self.rw_written();
        written.split_once(':').map_or(written, |(base, _)| base)
    }

    /// fio's `rw=…:N` on a sequential job (its `ddir_seq_add`): N bytes
    /// between one I/O's end and the next one's start, wrapping to the
    /// file's start (negative: back, wrapping to its end). A forward skip
    /// of whole blocks is iolab's stride (every (N/bs+1)-th block) and a
    /// step back of two blocks (`read:-8k` at 4 KiB: each I/O the block
    /// before the last) its reverse: the same I/Os and bytes, each pass
    /// covering every block where fio's wrap revisits some (the import's
    /// note says so). On a random job N is fio's I/Os per random offset,
    /// which iolab's draws have no form of.
    fn with_modifier(&self, op: Op, pattern: Pattern) -> Result<Pattern, String> {
        let written = self.rw_written();
        let Some((_, skip)) = written.split_once(':') else {
            return Ok(pattern);
        };
        if pattern != Pattern::Seq {
            return Err(format!(
                "rw={written}: fio makes {skip} I/Os in a row from each random offset; iolab draws every I/O's offset"
            ));
        }
        if op == Op::Mix {
            return Err(format!(
                "rw={written}: a skip on a mix (fio keeps a position per direction) has no iolab equivalent"
            ));
        }
        let (back, magnitude) = match skip.trim().strip_prefix('-') {
            Some(magnitude) => (true, magnitude),
            None => (false, skip.trim()),
        };
        let bad = || format!("rw={written}: {skip} is not a size iolab reads");
        let bytes = fio_size(magnitude, self.kb_base).ok_or_else(bad)?;
        let several = ["bssplit", "bsrange"]
            .iter()
            .any(|key| self.option(key).is_some())
            || self.option("bs").is_some_and(|bs| bs.contains(','));
        if several {
            return Err(format!(
                "rw={written} with several block sizes: iolab's stride moves one block size"
            ));
        }
        let bs = fio_size(self.option("bs").unwrap_or("4k"), self.kb_base)
            .ok_or_else(|| "bs is not a size iolab reads".to_string())?;
        if bytes == 0 {
            return Ok(Pattern::Seq);
        }
        if bytes % bs != 0 {
            return Err(format!(
                "rw={written}: a skip of {bytes} bytes is not a whole number of {bs}-byte blocks; iolab's stride moves whole blocks"
            ));
        }
        match (back, bytes / bs) {
            (false, blocks) => Ok(Pattern::Stride(blocks + 1)),
            (true, 2) => Ok(Pattern::Reverse),
            (true, blocks) => Err(format!(
                "rw={written}: each I/O {} blocks before the last one's start has no iolab equivalent (iolab's reverse is fio's :-{}, one block back)",
                blocks - 1,
                2 * bs
            )),
        }
    }

    /// `rw=randread` → (read, random); fio lays a file out before writing
    /// it, so its writes overwrite: iolab's rewrite. `randrw` and
    /// `readwrite` (`rw`) are a mix, imported as one point.
    pub(super) fn op_and_pattern(&self) -> Result<(Op, Pattern), String> {
        let (op, pattern) = match (self.rw(), self.writes) {
            ("read", false) => (Op::Read, Pattern::Seq),
            ("randread", false) => (Op::Read, Pattern::Random),
            ("write", true) => (Op::Rewrite, Pattern::Seq),
            ("randwrite", true) => (Op::Rewrite, Pattern::Random),
            // A trim job's figures are its "trim" section's, imported as writes are.
            ("trim", true) => (Op::Trim, Pattern::Seq),
            ("randtrim", true) => (Op::Trim, Pattern::Random),
            ("trimwrite", true) => (Op::Trimwrite, Pattern::Seq),
            ("randtrimwrite", true) => (Op::Trimwrite, Pattern::Random),
            ("rw" | "readwrite" | "randrw", _) => {
                let pattern = match self.rw() {
                    "randrw" => Pattern::Random,
                    _ => Pattern::Seq,
                };
                // rwmixread=100 (or 0) is one direction, imported as such.
                match self.mix()?.sole() {
                    None => (Op::Mix, pattern),
                    Some(Direction::Read) => (Op::Read, pattern),
                    Some(_) => (Op::Rewrite, pattern),
                }
            }
            (other, _) => {
                return Err(format!("rw={other} is not a data workload iolab imports"));
            }
        };
        let pattern = self.with_modifier(op, pattern)?;
        if let Some(bands) = self.strided_zones(pattern)? {
            return Ok((op, bands));
        }
        if pattern == Pattern::Random {
            if let Some(skewed) = self.distribution()? {
                return Ok((op, skewed));
            }
            // fio's lfsr "never generates the same offset twice", map or
            // no map: a random order without repeats, as iolab's is.
            let lfsr = self.option("random_generator").map(str::trim) == Some("lfsr");
            if truthy(self.options, "norandommap") && !lfsr {
                return Ok((op, Pattern::Uniform));
            }
        }
        Ok((op, pattern))
    }

    /// fio's `zonemode=strided` on a sequential job as iolab's bands:
    /// `zonesize` bytes in order, then `zoneskip` skipped (`None`: no
    /// zones). fio moves `size` bytes, wrapping over the zones, which the
    /// import's `io_size` keeps.
    fn strided_zones(&self, pattern: Pattern) -> Result<Option<Pattern>, String> {
        match self.option("zonemode").map(str::trim) {
            // fio 3.33 refuses a zone size with no zone mode; a zonerange
            // or zoneskip alone it ignores.
            None | Some("none") if self.option("zonesize").is_some() => {
                return Err(
                    "zonesize without zonemode=strided: fio refuses it (\"--zonemode=none and --zonesize are not compatible\"); give zonemode=strided"
                        .to_string(),
                );
            }
            None | Some("none") => return Ok(None),
            Some("strided") => {}
            // Zones of a zoned device: `FioJob::zbd`.
            Some("zbd") => return Ok(None),
            Some(other) => return Err(format!("zonemode={other}: fio takes none, strided or zbd")),
        }
        let size_of = |key: &str| self.size_option(key);
        let bs = fio_size(self.option("bs").unwrap_or("4k"), self.kb_base)
            .ok_or_else(|| "bs is not a size iolab reads".to_string())?;
        let Some(zone) = size_of("zonesize")?.filter(|&z| z > 0) else {
            return Ok(None);
        };
        let skip = size_of("zoneskip")?.unwrap_or(0);
        if let Some(range) = size_of("zonerange")?.filter(|&r| r != zone) {
            return Err(format!(
                "zonerange={range} beside zonesize={zone}: fio moves zonesize bytes of each zonerange-byte zone; iolab's bands read whole zones (give zonerange=zonesize or leave it out)"
            ));
        }
        if pattern != Pattern::Seq {
            return Err(format!(
                "zonemode=strided on rw={}: iolab's bands are read in order (fio's rw=read or write)",
                self.rw()
            ));
        }
        if ["bssplit", "bsrange"]
            .iter()
            .any(|key| self.option(key).is_some())
            || zone % bs != 0
            || skip % bs != 0
        {
            return Err(format!(
                "zonemode=strided: zonesize={zone} and zoneskip={skip} must be whole {bs}-byte blocks of one size"
            ));
        }
        Ok(Some(Pattern::Bands {
            read: zone / bs,
            skip: skip / bs,
        }))
    }

    /// fio's `random_distribution` as a skewed pattern (`None`: uniform).
    /// fio ignores it for sequential jobs, and so does the import. Its
    /// non-uniform draws are independent, as iolab's are, whether or not
    /// `norandommap` is set.
    pub(super) fn distribution(&self) -> Result<Option<Pattern>, String> {
        let Some(text) = self.option("random_distribution") else {
            return Ok(None);
        };
        let refuse = |why: &str| format!("random_distribution={text}: {why}");
        let (name, parameter) = text.split_once(':').unwrap_or((text, ""));
        let parameter = match name {
            "random" => return Ok(None),
            "sequence" => return self.block_list(parameter).map_err(|why| refuse(&why)),
            "zoned_abs" => return Err(refuse("zones in absolute sizes have no iolab equivalent")),
            _ if text.contains(',') => {
                return Err(refuse(
                    "a distribution per direction has no iolab equivalent",
                ));
            }
            // fio's optional center places the hottest blocks: by default at
            // random for zipf and pareto (iolab scatters the ranks too) and
            // mid-file for normal (as iolab does).
            "normal" => match parameter.split_once(':') {
                Some((sigma, center)) if center.parse::<f64>().ok() == Some(0.5) => sigma,
                Some(_) => return Err(refuse("a center other than 0.5 has no iolab equivalent")),
                None => parameter,
            },
            "zipf" | "pareto" if parameter.contains(':') => {
                return Err(refuse("a fixed center has no iolab equivalent"));
            }
            _ => parameter,
        };
        let filled;
        let parameter = if name == "zoned" {
            filled = fill_zone_sizes(parameter).map_err(|why| refuse(&why))?;
            filled.as_str()
        } else {
            parameter
        };
        match Skew::parse(name, parameter) {
            Some(Ok(skew)) => Ok(Some(Pattern::Skewed(skew))),
            Some(Err(e)) => Err(refuse(&e)),
            None => Err(refuse("not a distribution fio 3.33 knows")),
        }
    }
}

impl FioJob<'_> {
    /// fio 3.42's `sequence:2,0,1` (with `random_sequence_stride`) as
    /// iolab's listed blocks, where iolab walks it as fio does: fio counts
    /// each direction's I/Os apart, restarts the count when a ramp ends,
    /// and ends the job where an advancing list passes the file's end
    /// (iolab would start another pass).
    fn block_list(&self, list: &str) -> Result<Option<Pattern>, String> {
        let advancing = truthy(self.options, "random_sequence_stride");
        let list = crate::plan::sequence::BlockList::parse(list, advancing)?;
        if self.rw() == "randrw" && self.mix()?.sole().is_none() {
            return Err(
                "on a mix fio walks the list once per direction; iolab has one walk per job"
                    .to_string(),
            );
        }
        if self.option("ramp_time").is_some() {
            return Err(
                "fio starts the list again when ramp_time ends; iolab's walk goes on".to_string(),
            );
        }
        let passes = self
            .option("loops")
            .is_some_and(|loops| loops.trim() != "1");
        if advancing && (truthy(self.options, "time_based") || passes) {
            return Err("random_sequence_stride=1 on a job of several passes: fio ends the job where the list passes the file's end, iolab starts another pass".to_string());
        }
        Ok(Some(Pattern::Listed(list)))
    }
}

/// fio's zones with a size left blank (`zoned:50/5:30/15:20/`): the file
/// the given sizes leave, shared equally by the blank ones, as fio splits
/// what its `bssplit` shares leave; refused when that is no whole percent.
fn fill_zone_sizes(parameter: &str) -> Result<String, String> {
    let zones: Vec<(&str, &str)> = parameter
        .split(':')
        .map(|zone| zone.split_once('/').unwrap_or((zone, "")))
        .collect();
    let blanks = zones
        .iter()
        .filter(|(_, size)| size.trim().is_empty())
        .count() as u64;
    if blanks == 0 {
        return Ok(parameter.to_string());
    }
    let given: u64 = zones
        .iter()
        .filter_map(|(_, size)| size.trim().parse::<u64>().ok())
        .sum();
    let left = 100u64
        .checked_sub(given)
        .filter(|left| left % blanks == 0 && *left > 0)
        .ok_or_else(|| {
            format!("the zone sizes given leave {}% of the file, which the {blanks} blank ones do not share in whole percents", 100i64 - given as i64)
        })?;
    Ok(zones
        .iter()
        .map(|(access, size)| match size.trim() {
            "" => format!("{access}/{}", left / blanks),
            size => format!("{access}/{size}"),
        })
        .collect::<Vec<_>>()
        .join(":"))
}

#[cfg(test)]
mod tests {
    use super::fill_zone_sizes;

    #[test]
    fn a_blank_zone_size_takes_what_the_others_leave() {
        assert_eq!(
            fill_zone_sizes("50/5:30/15:20/").unwrap(),
            "50/5:30/15:20/80"
        );
        assert_eq!(fill_zone_sizes("60/10:40/").unwrap(), "60/10:40/90");
        assert_eq!(fill_zone_sizes("50/:50/").unwrap(), "50/50:50/50");
        assert_eq!(fill_zone_sizes("60/10:40/90").unwrap(), "60/10:40/90");
        assert_eq!(
            fill_zone_sizes("40/:30/:30/50").unwrap(),
            "40/25:30/25:30/50"
        );
        assert!(
            fill_zone_sizes("40/:30/:30/").is_err(),
            "100% in 3 is no whole percent"
        );
        assert!(fill_zone_sizes("50/100:50/").is_err(), "nothing left");
    }
}
