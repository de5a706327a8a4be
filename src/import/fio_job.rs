//! One fio job's options read for one direction (`FioJob`): each option to its workload parameter through the parameter table's fio names, fio's units converted exactly, what iolab cannot represent named.

use super::file_engine;
use super::units::{fio_micros, fio_seconds, fio_size, fio_split};
use super::{option, truthy};
use crate::plan::BlockSplit;
use crate::plan::direction::Direction;
use crate::plan::pace::MAX_FLOW_WEIGHT;
use crate::plan::param::Param;
use crate::plan::param::Value as ParamValue;
use crate::plan::rate::DirectionRates;
use crate::plan::trace::TraceSpeed;
use crate::plan::{
    Arrivals, CacheMode, DirectionMix, EngineKind, Flow, Op, Pattern, SyncMode, ThinkTime, Workload,
};
use serde_json::{Map, Value};

/// One job's options, for one direction.
pub(super) struct FioJob<'a> {
    pub(super) options: &'a Map<String, Value>,
    pub(super) writes: bool,
    pub(super) group_reporting: bool,
    pub(super) kb_base: u64,
}

impl FioJob<'_> {
    pub(super) fn option(&self, key: &str) -> Option<&str> {
        option(self.options, key)
    }

    /// A size option in fio's units and this job's `kb_base`; `None` when
    /// absent, refused by name when it is not a size iolab reads.
    pub(super) fn size(&self, key: &str) -> Result<Option<u64>, String> {
        self.option(key)
            .map(|text| {
                fio_size(text, self.kb_base)
                    .ok_or_else(|| format!("{key}={text} is not a size iolab reads"))
            })
            .transpose()
    }

    /// A whole-number option, `default` when absent; a value that is not
    /// a whole number iolab can hold (`-1`, `1.5`, `2^66`) is refused by
    /// the option's name rather than taken for the default.
    pub(super) fn number(&self, key: &str, default: u64) -> Result<u64, String> {
        match self.option(key) {
            None => Ok(default),
            Some(text) => text
                .trim()
                .parse::<u64>()
                .map_err(|_| format!("{key}={text} is not a whole number from 0 to 2^64-1")),
        }
    }

    /// The metadata op of a job on one of fio's file engines.
    pub(super) fn file_op(&self) -> Option<Op> {
        file_engine::op_of(self.option("ioengine")?)
    }

    fn file_engine_value(&self, param: Param, op: Op) -> Result<Option<ParamValue>, String> {
        file_engine::value(
            param,
            op,
            self.number("nrfiles", 1)?,
            self.size("filesize")?,
            self.size("size")?,
        )
    }

    /// The shape of the data fio wrote and laid out: `zero_buffers`,
    /// `buffer_compress_percentage` (in fio's default 512-byte chunks) or
    /// `dedupe_percentage`.
    /// A per-direction option (`bssplit=4k/50:8k/50` or two of them, reads'
    /// then writes'): the job's direction's value, or for a mix the one
    /// value both share; a mix with two different values cannot be
    /// represented. An empty or zero part is no value.
    pub(super) fn directional(&self, key: &str) -> Result<Option<&str>, String> {
        let Some(text) = self.option(key) else {
            return Ok(None);
        };
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let read = parts
            .first()
            .copied()
            .filter(|p| !p.is_empty() && *p != "0");
        let write = parts
            .get(1)
            .copied()
            .or(read)
            .filter(|p| !p.is_empty() && *p != "0");
        // The direction the job moves, from its op: a mix of one
        // direction (`rwmixread=100`) is that direction's; a mix of two
        // block-size splits keeps the reads' here, the writes' in
        // --write-bs.
        Ok(match self.op_and_pattern()?.0 {
            Op::Mix if read != write && key != "bssplit" => {
                return Err(format!(
                    "{key}={text} (one value per direction of a mix) has no iolab equivalent"
                ));
            }
            Op::Mix | Op::Read | Op::Reread => read,
            _ => write,
        })
    }

    /// A mix's writes' own sizes, where fio's `bs=R,W` or `bssplit=R,W`
    /// gives them apart from the reads' (which `bs` and `bssplit` take);
    /// `None` when both directions move the same sizes (fio's mixes,
    /// `rw`/`randrw`, take no trims, so a third value has no I/Os here).
    fn write_sizes(&self) -> Result<Option<BlockSplit>, String> {
        if self.op_and_pattern()?.0 != Op::Mix {
            return Ok(None);
        }
        let pair = |key: &str| -> Option<(String, String)> {
            let text = self.option(key)?;
            let parts: Vec<&str> = text.split(',').map(str::trim).collect();
            let read = parts.first().copied().unwrap_or("");
            let write = parts.get(1).copied().unwrap_or(read);
            Some((read.to_string(), write.to_string()))
        };
        let split = |text: &str| -> Result<BlockSplit, String> {
            if text.contains(['/', ':']) {
                fio_split(text, self.kb_base)
            } else {
                let size = if text.is_empty() {
                    Some(4096)
                } else {
                    fio_size(text, self.kb_base)
                };
                size.filter(|s| *s > 0)
                    .map(BlockSplit::single)
                    .ok_or_else(|| format!("{text} is not a block size iolab reads"))
            }
        };
        let (read, write) = match (pair("bssplit"), pair("bs").or_else(|| pair("blocksize"))) {
            (Some((read, write)), _) => (split(&read)?, split(&write)?),
            (None, Some((read, write))) => (split(&read)?, split(&write)?),
            (None, None) => return Ok(None),
        };
        if read == write {
            return Ok(None);
        }
        Ok(Some(write))
    }

    /// fio's `fsync=N` or `fdatasync=N`: N and whether the syncs are of the
    /// data only; `None` without either (or with 0). Both at once are
    /// refused: fio keeps two counts, iolab one.
    fn fsync_every(&self) -> Result<Option<(u64, bool)>, String> {
        match (self.number("fsync", 0)?, self.number("fdatasync", 0)?) {
            (0, 0) => Ok(None),
            (every, 0) => Ok(Some((every, false))),
            (0, every) => Ok(Some((every, true))),
            (fsync, fdatasync) => Err(format!(
                "fsync={fsync} with fdatasync={fdatasync}: fio counts each apart, iolab syncs every N writes one way: give one"
            )),
        }
    }

    /// fio's `bsrange=MIN-MAX` (`MIN-MAX,MIN-MAX` per direction) for the
    /// job's direction: `None` without one.
    fn block_range(&self) -> Result<Option<(u64, u64)>, String> {
        let Some(text) = self.directional("bsrange")? else {
            return Ok(None);
        };
        let bad = || format!("bsrange={text} is not a range of sizes iolab reads (MIN-MAX)");
        // fio reads `1k-4k` and `1k:4k` alike.
        let (min, max) = text.split_once(['-', ':']).ok_or_else(bad)?;
        let (min, max) = (
            fio_size(min, self.kb_base).ok_or_else(bad)?,
            fio_size(max, self.kb_base).ok_or_else(bad)?,
        );
        if min == 0 || min > max {
            return Err(bad());
        }
        if self.option("bs").is_some() || self.option("bssplit").is_some() {
            return Err(format!(
                "bsrange={text} with {}: give the job's block sizes once",
                if self.option("bs").is_some() {
                    "bs"
                } else {
                    "bssplit"
                }
            ));
        }
        Ok(Some((min, max)))
    }

    /// The sizes fio draws from `bsrange=MIN-MAX`, as a split: fio takes
    /// MIN plus a uniform draw below MAX, rounded down to a multiple of
    /// MIN and capped at MAX (its `get_next_buflen`), so with MAX a
    /// multiple of MIN each of the MAX/MIN multiples has an equal share.
    /// `None` for one size; refused when the shares are no whole percents.
    fn range_split(&self) -> Result<Option<String>, String> {
        let Some((min, max)) = self.block_range()? else {
            return Ok(None);
        };
        if min == max {
            return Ok(None);
        }
        let sizes = max / min;
        if max % min != 0 || 100 % sizes != 0 || sizes as usize > crate::plan::split::MAX_SIZES {
            return Err(format!(
                "bsrange={min}-{max}: fio draws {} sizes from it, which iolab's split of whole-percent shares cannot hold: give bssplit",
                if max % min == 0 {
                    sizes.to_string()
                } else {
                    format!("{}", sizes + 1)
                }
            ));
        }
        Ok(Some(
            (1..=sizes)
                .map(|k| format!("{}/{}", k * min, 100 / sizes))
                .collect::<Vec<_>>()
                .join(":"),
        ))
    }

    /// fio's `rate=R[,W[,T]]` (or `rate_iops`), reads', writes' and trims'
    /// values, each left out inheriting the one before it; an empty or zero
    /// value leaves its direction unpaced. A one-direction job takes its
    /// direction's value. A mix takes a rate per direction: fio paces each
    /// direction apart, so `rate_iops=1000` on `randrw` moves 1000 reads
    /// and 1000 writes a second whatever `rwmixread` says (fio 3.33,
    /// measured), and the rates' proportion is the mix iolab runs. A mix
    /// with a direction unpaced cannot be represented.
    pub(super) fn rates(
        &self,
        key: &str,
        one: impl Fn(&str) -> Option<u64>,
    ) -> Result<Option<ParamValue>, String> {
        let Some(text) = self.option(key) else {
            return Ok(None);
        };
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let mut rates = DirectionRates::default();
        let mut unpaced = Vec::new();
        let (op, _) = self.op_and_pattern()?;
        let taken = match op {
            Op::Mix => self.mix()?,
            Op::Trim => DirectionMix::only(Direction::Trim),
            Op::Trimwrite => DirectionMix::TRIM_THEN_WRITE,
            _ if self.writes => DirectionMix::only(Direction::Write),
            _ => DirectionMix::only(Direction::Read),
        };
        for direction in Direction::ALL.into_iter().filter(|&d| taken.takes(d)) {
            let part = parts
                .get(direction.index())
                .or(parts.last())
                .copied()
                .unwrap_or("");
            if part.is_empty() || part == "0" {
                unpaced.push(direction.name());
                continue;
            }
            let rate = one(part)
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{key}={text} is not a rate iolab reads"))?;
            let _ = rates.set(direction, rate);
        }
        match (rates.named().count(), op) {
            (0, _) => Ok(None),
            (_, Op::Mix) if !unpaced.is_empty() => Err(format!(
                "{key}={text} leaves {} of a mix unpaced: iolab paces every direction of a mix or none",
                unpaced.join(" and ")
            )),
            (_, Op::Mix) => Ok(Some(ParamValue::Rates(rates))),
            _ => Ok(Some(ParamValue::Number(rates.total()))),
        }
    }

    /// thinktime (microseconds unless suffixed) with thinktime_blocks; the
    /// spinning and I/O-time variants are not represented.
    pub(super) fn think(&self) -> Result<Option<ThinkTime>, String> {
        for key in ["thinktime_spin", "thinktime_iotime"] {
            if let Some(value) = self.option(key).filter(|v| *v != "0") {
                return Err(format!("{key}={value} has no iolab equivalent"));
            }
        }
        let Some(text) = self.option("thinktime").filter(|v| *v != "0") else {
            return Ok(None);
        };
        let seconds = fio_micros(text)
            .filter(|s| *s > 0.0)
            .ok_or_else(|| format!("thinktime={text} is not a time iolab reads"))?;
        if seconds > 3600.0 {
            return Err(format!(
                "thinktime={text} is more than an hour, the longest think time iolab takes"
            ));
        }
        let every = match self.number("thinktime_blocks", 1)? {
            0 => return Err("thinktime_blocks=0: think after every how many I/Os?".to_string()),
            every => every,
        };
        let every =
            u32::try_from(every).map_err(|_| format!("thinktime_blocks={every} is too large"))?;
        Ok(Some(ThinkTime {
            ns: (seconds * 1e9).round() as u64,
            every,
        }))
    }

    /// fio's flow control: `flow` (a weight; 0, fio's default, none),
    /// `flow_id`, `flow_sleep` (microseconds).
    /// Option `key` as a size in bytes (`None` when not given); the error
    /// names the key and its text.
    pub(super) fn size_option(&self, key: &str) -> Result<Option<u64>, String> {
        self.option(key)
            .map(|text| {
                fio_size(text, self.kb_base)
                    .ok_or_else(|| format!("{key}={text} is not a size iolab reads"))
            })
            .transpose()
    }

    /// fio's `zonemode=zbd`, emulated as fio emulates it on a target that
    /// is not zoned: `zonesize` (which fio requires there), `zonecapacity`,
    /// `max_open_zones`, `zone_reset_threshold` and `_frequency`,
    /// `read_beyond_wp`.
    pub(super) fn zbd(&self) -> Result<Option<crate::plan::zbd::Zbd>, String> {
        if self.option("zonemode").map(str::trim) != Some("zbd") {
            return Ok(None);
        }
        let size_of = |key: &str| self.size_option(key);
        let zone = size_of("zonesize")?.filter(|&z| z > 0).ok_or_else(|| {
            "zonemode=zbd without zonesize: fio requires the zone size on a target that is not zoned, as iolab does".to_string()
        })?;
        let mut text = crate::plan::units::format_size(zone);
        if let Some(capacity) = size_of("zonecapacity")?.filter(|&c| c != 0 && c != zone) {
            text.push_str(&format!(",capacity={capacity}"));
        }
        let open = self.number("max_open_zones", 0)?;
        if open > 0 {
            text.push_str(&format!(",open={open}"));
        }
        let frequency = self.option("zone_reset_frequency").unwrap_or("0").trim();
        if !frequency.parse::<f64>().is_ok_and(|f| f == 0.0) {
            // fio's threshold has no default: 0, resets from the first write.
            let threshold = self.option("zone_reset_threshold").unwrap_or("0").trim();
            text.push_str(&format!(",reset={threshold}/{frequency}"));
        }
        if self
            .option("read_beyond_wp")
            .is_some_and(|v| !matches!(v.trim(), "0" | "false"))
        {
            text.push_str(",read-beyond-wp");
        }
        text.parse::<crate::plan::zbd::Zbd>()
            .map(Some)
            .map_err(|why| format!("zonemode=zbd: {why}"))
    }

    pub(super) fn flow(&self) -> Result<Option<Flow>, String> {
        let weight = self.number("flow", 0)?;
        // Without a weight fio controls no flow: flow_id and flow_sleep
        // then change nothing, in fio as here.
        if weight == 0 {
            return Ok(None);
        }
        let weight = u32::try_from(weight)
            .ok()
            .filter(|w| *w <= MAX_FLOW_WEIGHT)
            .ok_or_else(|| format!("flow={weight}: fio's weights go up to {MAX_FLOW_WEIGHT}"))?;
        let id = u32::try_from(self.number("flow_id", 0)?)
            .map_err(|_| "flow_id is too large".to_string())?;
        let sleep_ns = self
            .number("flow_sleep", 0)?
            .checked_mul(1000)
            .filter(|ns| *ns <= 3_600_000_000_000)
            .ok_or_else(|| "flow_sleep is more than an hour".to_string())?;
        Ok(Some(Flow {
            weight,
            id,
            sleep_ns,
        }))
    }

    /// A mix's shares from `rwmixread` or `rwmixwrite` (fio: 50/50 when
    /// neither is given; `rwmixread` wins when both are).
    pub(super) fn mix(&self) -> Result<DirectionMix, String> {
        let percent = |key: &str| -> Result<Option<u8>, String> {
            self.option(key)
                .map(|text| {
                    text.trim()
                        .parse::<u8>()
                        .ok()
                        .filter(|p| *p <= 100)
                        .ok_or_else(|| format!("{key}={text} is not a percent from 0 to 100"))
                })
                .transpose()
        };
        let write = match (percent("rwmixread")?, percent("rwmixwrite")?) {
            (Some(read), _) => 100 - read,
            (None, Some(write)) => write,
            (None, None) => 50,
        };
        Ok(DirectionMix::with_write_percent(write).expect("a percent up to 100"))
    }

    /// A replayed log's speed: replay_no_stall (as fast as possible), or
    /// replay_time_scale=P (fio waits P% of each recorded gap: speed 100/P).
    fn trace_speed(&self) -> Result<Option<TraceSpeed>, String> {
        let afap = self
            .option("replay_no_stall")
            .is_some_and(|v| v.trim() != "0");
        let scale = self.option("replay_time_scale");
        match (afap, scale) {
            (true, _) => Ok(Some(TraceSpeed::Afap)),
            (false, None) => Ok(None),
            (false, Some(text)) => {
                let percent = text
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|p| *p > 0)
                    .ok_or_else(|| {
                        format!("replay_time_scale={text} is not a percentage above 0")
                    })?;
                let speed = format!("{}", 100.0 / f64::from(percent));
                speed
                    .parse()
                    .map(Some)
                    .map_err(|why| format!("replay_time_scale={text}: {why}"))
            }
        }
    }

    /// The value of `param` this job gives (`None`: iolab's default), with
    /// the parameters before it in the table already set in `so_far`.
    pub(super) fn value(
        &self,
        param: Param,
        so_far: &Workload,
    ) -> Result<Option<ParamValue>, String> {
        // The parameters a file engine's job shares with a data job are
        // read below; the rest are its own.
        if let Some(op) = self.file_op() {
            if !matches!(param, Param::Jobs | Param::Cpus | Param::Cache) {
                return self.file_engine_value(param, op);
            }
        }
        let writes = self.writes;
        let queued = so_far.engine.capabilities().queued;
        Ok(Some(match param {
            Param::Direct => ParamValue::Flag(truthy(self.options, "direct")),
            Param::Sync => ParamValue::Sync(match self.option("sync") {
                Some("1") | Some("sync") if writes => SyncMode::Osync,
                Some("dsync") if writes => SyncMode::Odsync,
                _ => SyncMode::None,
            }),
            Param::Engine => {
                // fio's names come from the engine registry (`EngineKind::fio_names`).
                let name = self.option("ioengine").unwrap_or("psync");
                let engine = EngineKind::ALL
                    .into_iter()
                    .find(|engine| engine.fio_names().contains(&name));
                match engine {
                    Some(engine) => ParamValue::Engine(engine),
                    None => return Err(format!("ioengine={name} has no iolab equivalent")),
                }
            }
            // fio invalidates the file's cache before a job unless invalidate=0.
            Param::Cache => ParamValue::Cache(if self.option("invalidate") == Some("0") {
                CacheMode::Keep
            } else {
                CacheMode::Cold
            }),
            // Without group_reporting each clone of a numjobs job is an entry of its own.
            Param::Jobs if self.group_reporting => match self.number("numjobs", 1)? {
                0 => return Err("numjobs=0: no job to run".to_string()),
                jobs => ParamValue::Number(jobs),
            },
            Param::Jobs => return Ok(None),
            Param::Cpus => match self.option("cpus_allowed") {
                None => return Ok(None),
                Some(_) if self.option("cpus_allowed_policy") == Some("split") => {
                    return Err(
                        "cpus_allowed_policy=split (a CPU per job) has no iolab equivalent"
                            .to_string(),
                    );
                }
                // fio's list is 0-3,6; iolab joins ranges with +.
                Some(list) => ParamValue::Cpus(
                    list.replace(',', "+")
                        .parse()
                        .map_err(|e| format!("cpus_allowed={list}: {e}"))?,
                ),
            },
            Param::MemPolicy => match self.option("numa_mem_policy") {
                None => return Ok(None),
                Some(text) => ParamValue::MemPolicy(
                    text.parse()
                        .map_err(|e| format!("numa_mem_policy={text}: {e}"))?,
                ),
            },
            Param::Iodepth if queued => ParamValue::Number(self.number("iodepth", 1)?.max(1)),
            Param::Batch if queued => {
                ParamValue::Number(self.number("iodepth_batch_submit", 1)?.max(1))
            }
            // fio reaps at least iodepth_batch_complete_min completions (1)
            // and at most iodepth_batch_complete_max (0 or less: the
            // minimum), so by default one per reaping call.
            Param::Reap if queued => {
                let least = self.number("iodepth_batch_complete_min", 1)?;
                if least > 1 {
                    return Err(format!(
                        "iodepth_batch_complete_min={least}: iolab reaps as soon as one completion is ready, not {least}"
                    ));
                }
                ParamValue::Number(self.number("iodepth_batch_complete_max", 1)?.max(1))
            }
            Param::Iodepth | Param::Batch | Param::Reap => return Ok(None),
            // An option of fio's io_uring engine alone (fio refuses it for
            // another engine).
            Param::SqPoll => match truthy(self.options, "sqthread_poll") {
                true if !so_far.engine.capabilities().polled_submission => {
                    return Err(format!(
                        "sqthread_poll: an option of the io_uring engine, not {}'s",
                        so_far.engine.name()
                    ));
                }
                polled => ParamValue::Flag(polled),
            },
            Param::SerializeOverlap => ParamValue::Flag(truthy(self.options, "serialize_overlap")),
            Param::Pattern => ParamValue::Pattern(self.op_and_pattern()?.1),
            Param::FsyncEnd => ParamValue::Flag(writes && truthy(self.options, "end_fsync")),
            // fio counts fsync= and fdatasync= apart; iolab's one count
            // syncs one way.
            Param::FsyncEvery => ParamValue::Number(match (writes, self.fsync_every()?) {
                (true, Some((every, _))) => every,
                _ => 0,
            }),
            Param::FsyncData => {
                ParamValue::Flag(writes && self.fsync_every()?.is_some_and(|(_, data)| data))
            }
            Param::Runtime => match self.option("runtime").and_then(fio_seconds) {
                Some(seconds) if truthy(self.options, "time_based") && seconds > 0.0 => {
                    ParamValue::Seconds(seconds)
                }
                _ => return Ok(None),
            },
            // Without time_based, fio's runtime caps a size-bound job.
            Param::TimeLimit => match self.option("runtime").and_then(fio_seconds) {
                Some(seconds) if !truthy(self.options, "time_based") && seconds > 0.0 => {
                    ParamValue::Seconds(seconds)
                }
                _ => return Ok(None),
            },
            Param::Ramp => ParamValue::Seconds(
                self.option("ramp_time")
                    .and_then(fio_seconds)
                    .unwrap_or(0.0),
            ),
            // fio's exitall is global and its exit_what reaches across
            // sections: the job file's translation sets it.
            Param::Exit => return Ok(None),
            // fio's random generator is not iolab's: a seed would not
            // reproduce fio's offsets, so iolab's default is kept.
            Param::Seed => return Ok(None),
            // fio moves the lesser of `size` and the file's `filesize`
            // (fio 3.33: size=8m filesize=4m reads 4 MiB): a pass over a
            // file of `filesize`. Less than a pass has no iolab form.
            Param::Size => ParamValue::Number(match (self.size("size")?, self.size("filesize")?) {
                (Some(size), Some(file)) if size < file => {
                    return Err(format!(
                        "size={size} below filesize={file}: fio moves {size} bytes of a {file}-byte file; iolab moves whole passes over its files"
                    ));
                }
                (_, Some(file)) => file,
                (Some(size), None) => size,
                (None, None) => {
                    return Err("no size= option: the file size is unknown".to_string());
                }
            }),
            // fio's io_size moves that many bytes, wrapping over the file;
            // number_ios stops after that many I/Os, never past the size.
            // With loops, fio 3.33 moves io_size per loop, each going on
            // where the last stopped (strace: 3 loops of 256 KiB over 1 MiB
            // write blocks 0 to 11; random, 12 distinct blocks): iolab's
            // io_size of them all, in one loop (`Param::Loops`).
            Param::IoSize => match (self.size("io_size")?, self.option("number_ios")) {
                (Some(bytes), None) if self.number("loops", 1)? > 1 => {
                    let loops = self.number("loops", 1)?;
                    match self.value(Param::Size, so_far)? {
                        Some(ParamValue::Number(size)) if bytes <= size => {
                            ParamValue::Number(bytes.saturating_mul(loops))
                        }
                        _ => {
                            return Err(format!(
                                "io_size={bytes} over size= with loops={loops}: fio 3.33 then moves size per loop, not io_size; give loops=1 or an io_size within size"
                            ));
                        }
                    }
                }
                (Some(bytes), None) => ParamValue::Number(bytes),
                // Strided zones: fio moves `size` bytes, wrapping over them.
                (None, None) if matches!(so_far.pattern, Pattern::Bands { skip, .. } if skip > 0) => {
                    match self.value(Param::Size, so_far)? {
                        Some(size) => size,
                        None => return Ok(None),
                    }
                }
                (None, None) => return Ok(None),
                (io_size, Some(_)) => {
                    if self.option("bssplit").is_some() {
                        return Err("number_ios with bssplit: fio counts I/Os of drawn sizes; iolab's --io-size counts bytes".to_string());
                    }
                    let count = self.number("number_ios", 0)?;
                    let bs = match self.value(Param::Bs, so_far)? {
                        Some(ParamValue::Number(bs)) => bs,
                        _ => 4096,
                    };
                    // It stops early, never goes on: at most the bytes
                    // io_size (or else size) would move.
                    let most = match (io_size, self.value(Param::Size, so_far)?) {
                        (Some(io), _) => io,
                        (None, Some(ParamValue::Number(size))) => size,
                        (None, _) => u64::MAX,
                    };
                    ParamValue::Number(count.saturating_mul(bs).min(most))
                }
            },
            Param::StartDelay => {
                match self.option("startdelay") {
                    None => return Ok(None),
                    Some(text) if text.contains('-') || text.contains(':') => {
                        return Err(format!(
                            "startdelay={text}: a range (fio draws a delay per job) has no iolab equivalent; give one delay"
                        ));
                    }
                    Some(text) => ParamValue::Seconds(fio_seconds(text).ok_or_else(|| {
                        format!("startdelay={text} is not a duration iolab reads")
                    })?),
                }
            }
            Param::Loops => match self.number("loops", 1)? {
                0 => return Err("loops=0: no pass to run".to_string()),
                // io_size counts every loop's bytes (`Param::IoSize`).
                _ if self.option("io_size").is_some() && self.option("number_ios").is_none() => {
                    ParamValue::Number(1)
                }
                loops => ParamValue::Number(loops),
            },
            // fio's blockalign: where random offsets lie, by default the
            // smallest block size (iolab's grid too); fio ignores it on a
            // sequential pattern. One boundary for every direction.
            Param::Align => {
                let Some(text) = self.option("blockalign") else {
                    return Ok(None);
                };
                let mut sizes = text.split(',').filter(|p| !p.is_empty()).map(|part| {
                    fio_size(part, self.kb_base)
                        .filter(|&size| size > 0)
                        .ok_or_else(|| format!("blockalign={text}: {part} is not a size"))
                });
                let align = sizes.next().transpose()?.unwrap_or(so_far.bs);
                if sizes.any(|other| other.as_ref().ok() != Some(&align)) {
                    return Err(format!(
                        "blockalign={text}: a boundary per direction; iolab keeps one for every direction"
                    ));
                }
                match so_far.pattern {
                    _ if align == so_far.bs => return Ok(None),
                    Pattern::Uniform | Pattern::Skewed(_) => ParamValue::Number(align),
                    Pattern::Listed(_) => {
                        return Err(format!(
                            "blockalign={text} with random_distribution=sequence: fio places the listed blocks on the boundary, iolab on the block size"
                        ));
                    }
                    Pattern::Random => {
                        return Err(format!(
                            "blockalign={text} with fio's random map: fio's map is kept in blocks of the smallest size ({} bytes) while its draws lie on the boundary; iolab follows a boundary on independent draws only (add norandommap=1)",
                            so_far.bs
                        ));
                    }
                    Pattern::Seq
                    | Pattern::Reverse
                    | Pattern::Stride(_)
                    | Pattern::Bands { .. } => {
                        return Ok(None);
                    }
                }
            }
            // A percentage of the file (offset=50%) depends on a length
            // iolab learns only at run time.
            Param::Offset | Param::OffsetIncrement => {
                let key = param.fio_options();
                match self.option(key) {
                    None => return Ok(None),
                    Some(text) => ParamValue::Number(fio_size(text, self.kb_base).ok_or_else(|| {
                        format!("{key}={text} is not a size iolab reads (a percentage has no iolab equivalent: give bytes)")
                    })?),
                }
            }
            // bs=4k or bs=4k,64k (read,write): the direction's own.
            // A range's smallest size is the grid its split starts on.
            Param::Bs if self.option("bsrange").is_some() => match self.block_range()? {
                Some((min, _)) => ParamValue::Number(min),
                None => return Ok(None),
            },
            Param::Bs => {
                let text = self
                    .option("bs")
                    .or_else(|| self.option("blocksize"))
                    .unwrap_or("4k");
                // A value left out inherits the one before it; an empty one
                // is fio's default (`bs=8k,32k,`: trims of 4 KiB).
                let parts: Vec<&str> = text.split(',').map(str::trim).collect();
                let size = |part: Option<&&str>| match part {
                    Some(&"") => Ok(4096),
                    part => part
                        .and_then(|b| fio_size(b, self.kb_base))
                        .ok_or_else(|| format!("bs={text} is not a size iolab reads")),
                };
                let read = size(parts.first())?;
                let write = size(parts.get(1).or(parts.first()))?;
                ParamValue::Number(match self.op_and_pattern()?.0 {
                    // A trimwrite's write moves the range its trim took,
                    // as fio's does (`last_pos[DDIR_TRIM]`).
                    Op::Trim | Op::Trimwrite => {
                        size(parts.get(2).or(parts.get(1)).or(parts.first()))?
                    }
                    // A mix of two sizes: the reads' here, the writes' in
                    // --write-bs (Param::WriteBs).
                    Op::Mix | Op::Read | Op::Reread => read,
                    _ => write,
                })
            }
            Param::WriteBs => match self.write_sizes()? {
                Some(split) => ParamValue::Split(split),
                None => return Ok(None),
            },
            Param::Bssplit => match (self.directional("bssplit")?, self.range_split()?) {
                (Some(text), _) => ParamValue::Split(fio_split(text, self.kb_base)?),
                (None, Some(text)) => ParamValue::Split(fio_split(&text, self.kb_base)?),
                (None, None) => return Ok(None),
            },
            Param::Data => ParamValue::Data(self.data()?),
            Param::Rate => match self.rates("rate", |text| fio_size(text, self.kb_base))? {
                Some(value) => value,
                None => return Ok(None),
            },
            Param::RateIops => match self.rates("rate_iops", |text| text.parse().ok())? {
                Some(value) => value,
                None => return Ok(None),
            },
            Param::Arrivals => ParamValue::Arrivals(match self.option("rate_process") {
                None | Some("linear") => Arrivals::Uniform,
                Some("poisson") => Arrivals::Poisson,
                Some(other) => return Err(format!("rate_process={other} has no iolab equivalent")),
            }),
            Param::Think => match self.think()? {
                Some(think) => ParamValue::Think(think),
                None => return Ok(None),
            },
            Param::Zbd => match self.zbd()? {
                Some(zbd) => ParamValue::Zbd(zbd),
                None => return Ok(None),
            },
            Param::Flow => match self.flow()? {
                Some(flow) => ParamValue::Flow(flow),
                None => return Ok(None),
            },
            // Rates per direction set a mix's shares, in fio as in iolab.
            Param::Mix if so_far.mix.is_some() => return Ok(None),
            Param::Mix if self.op_and_pattern()?.0 == Op::Mix => ParamValue::Mix(self.mix()?),
            Param::Mix => return Ok(None),
            Param::Op => ParamValue::Op(self.op_and_pattern()?.0),
            // fio measures the machine it runs on.
            Param::Machine | Param::GuestConfig => return Ok(None),
            Param::Trace => match self.option("read_iolog") {
                Some(path) => ParamValue::Trace(path.trim().parse()?),
                None => return Ok(None),
            },
            Param::TraceSpeed => match self.trace_speed()? {
                Some(speed) => ParamValue::Speed(speed),
                None => return Ok(None),
            },
            // fio's nrfiles spreads one job's size over several files, which
            // is not a tree of items; its filecreate/filestat/filedelete
            // engines are not imported, so a fio job is never a metadata one.
            Param::Items
            | Param::Depth
            | Param::Fanout
            | Param::LeafOnly
            | Param::UniqueDir
            | Param::Stride
            | Param::FileSize => return Ok(None),
        }))
    }
}
