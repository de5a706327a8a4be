//! The rules a workload must meet before anything is created ([`Workload::validate`]): sizes and their alignment, what each engine, sync mode and cache mode allows together, rates, mixes and pacing, steady state, and the limits that keep a run bounded. Each refusal is one line naming the offending value.

use super::rate::Rate;
use super::{MAX_REPETITIONS, Op, Pattern, UsageError, VERIFY_HEADER_BYTES, Workload};
use super::{direction, units};
use crate::engine::kind::EngineKind;
use crate::plan::direction::Direction;
use crate::usage;

impl Workload {
    /// Per-direction rates pace exactly the directions the job takes, and
    /// more than one of them make it a mix in their proportion: a `--mix`
    /// or an op given beside them must agree.
    /// What `--zbd` takes: I/Os on the zones' grid and no longer than a
    /// zone, trims of whole zones by a blocking engine (a reset completes
    /// at once), and none of what fio's emulation treats apart.
    fn check_zones(&self, zbd: super::zbd::Zbd) -> Result<(), UsageError> {
        let largest = self.bssplit.map_or(self.bs, |split| split.largest());
        let grid = self.grid();
        if zbd.zone_size % grid != 0 || zbd.capacity % grid != 0 || largest > zbd.zone_size {
            return Err(usage!(
                "--zbd {zbd}: the zones must be whole blocks of {} and hold the largest I/O ({})",
                units::format_size(grid),
                units::format_size(largest)
            ));
        }
        if self.directions().trims() && (largest != zbd.zone_size || self.bssplit.is_some()) {
            return Err(usage!(
                "--zbd {zbd} with trims: a trim resets one zone, so --bs is the zone size ({}), as fio requires",
                units::format_size(zbd.zone_size)
            ));
        }
        if self.directions().trims() && self.engine.capabilities().queued {
            return Err(usage!(
                "--zbd {zbd} with trims on engine {}: a zone's reset completes at once, which iolab's queued loops do not take; give --engine psync",
                self.engine.name()
            ));
        }
        if matches!(self.pattern, Pattern::Bands { .. }) {
            return Err(usage!(
                "--zbd {zbd} with --pattern {}: fio's zone mode is one, strided bands or a zoned device",
                self.pattern
            ));
        }
        if self.verify || self.op == Op::Trimwrite || self.write_bs.is_some() {
            return Err(usage!(
                "--zbd {zbd} with {}: fio's zoned mode treats it apart (full zones kept for the check, a write at the trim's place); iolab does not",
                if self.verify {
                    "--verify"
                } else if self.op == Op::Trimwrite {
                    "--op trimwrite"
                } else {
                    "--write-bs"
                }
            ));
        }
        if !self.engine.capabilities().local_fd {
            return Err(usage!(
                "--zbd {zbd} on engine {}: zones are emulated on a local file or device",
                self.engine.name()
            ));
        }
        Ok(())
    }

    pub(super) fn check_direction_rates(&self) -> Result<(), UsageError> {
        let (flag, rates, shown) = match (self.rate, self.rate_iops) {
            (Some(Rate::Directions(rates)), _) => ("rate", rates, rates.format(units::format_rate)),
            (_, Some(Rate::Directions(rates))) => ("rate-iops", rates, rates.to_string()),
            _ => return Ok(()),
        };
        let names = |directions: Vec<direction::Direction>| -> String {
            let names: Vec<&str> = directions.iter().map(|d| d.name()).collect();
            names.join(" and ")
        };
        let paced = names(rates.named().map(|(d, _)| d).collect());
        let taken = self.directions();
        let issued = names(
            direction::Direction::ALL
                .into_iter()
                .filter(|&d| taken.takes(d))
                .collect(),
        );
        if rates.named().count() == 1 {
            if rates.named().all(|(d, _)| taken.sole() == Some(d)) {
                return Ok(());
            }
            return Err(usage!(
                "--{flag} {shown} paces only {paced}, but the job issues {issued}: give a rate \
                 for each direction it takes"
            ));
        }
        let implied = rates.implied_mix();
        if self.op != Op::Mix {
            return Err(usage!(
                "--{flag} {shown} paces {paced} on schedules of their own, so the op is mix; \
                 op {} is one direction",
                self.op.name()
            ));
        }
        match (self.mix, implied) {
            (Some(mix), Some(implied)) if mix == implied => Ok(()),
            (mix, implied) => Err(usage!(
                "--mix {} disagrees with --{flag} {shown}, whose proportion is {}: rates per \
                 direction set the mix; drop --mix or give it those shares",
                mix.map_or("-".to_string(), |m| m.to_string()),
                implied.map_or("-".to_string(), |m| m.to_string())
            )),
        }
    }

    /// Checks the rules that do not depend on the target file system.
    pub fn validate(&self) -> Result<(), UsageError> {
        self.check_tree()?;
        super::combine::check_trace(self).map_err(|why| usage!("{why}"))?;
        if self.bs == 0 || self.size == 0 {
            return Err(usage!("--bs and --size must be positive"));
        }
        if self.bs > self.size {
            return Err(usage!(
                "--bs {} is larger than --size {}",
                units::format_size(self.bs),
                units::format_size(self.size)
            ));
        }
        if self.size % self.bs != 0 {
            return Err(usage!(
                "--size {} is not a multiple of --bs {}",
                self.size,
                self.bs
            ));
        }
        if self.align != 0 {
            if self.align % self.bs != 0 || self.align > self.size {
                return Err(usage!(
                    "--align {} is not a multiple of the block size {} within --size {} (the grid I/Os start on)",
                    units::format_size(self.align),
                    units::format_size(self.bs),
                    units::format_size(self.size)
                ));
            }
            if self.align != self.bs
                && !matches!(self.pattern, Pattern::Uniform | Pattern::Skewed(_))
            {
                return Err(usage!(
                    "--align {} is for random offsets drawn independently (--pattern uniform, zipf:θ, pareto:h, normal:σ%, zoned:…); --pattern {} keeps the block grid",
                    units::format_size(self.align),
                    self.pattern
                ));
            }
        }
        if let Pattern::Bands { read, skip } = self.pattern {
            let blocks = self.size / self.bs;
            if read > blocks || skip > blocks {
                return Err(usage!(
                    "--pattern {}: a band and a skip lie within the file's {blocks} blocks of {}",
                    self.pattern,
                    units::format_size(self.bs)
                ));
            }
        }
        if let Pattern::Listed(list) = self.pattern {
            let blocks = self.size / self.bs;
            if list.largest() >= blocks {
                return Err(usage!(
                    "--pattern {}: block {} lies past the file's {blocks} blocks of {} (fio stops the job with EINVAL there)",
                    self.pattern,
                    list.largest(),
                    units::format_size(self.bs)
                ));
            }
        }
        if let (Pattern::Bands { .. } | Pattern::Listed(_), Some(split)) =
            (self.pattern, self.bssplit)
        {
            return Err(usage!(
                "--pattern {} with --bssplit {split}: its blocks are of one size; give --bs",
                self.pattern
            ));
        }
        if self.bs > u32::MAX as u64 / 2 {
            return Err(usage!("--bs {} is larger than 2 GiB", self.bs));
        }
        if let Some(split) = self.bssplit {
            if split.smallest() != self.bs {
                return Err(usage!(
                    "--bs {} beside --bssplit {split}: a split's smallest size is the block size; leave out --bs",
                    units::format_size(self.bs)
                ));
            }
            if split.largest() > self.size {
                return Err(usage!(
                    "--bssplit {split}: {} is larger than --size {}",
                    units::format_size(split.largest()),
                    units::format_size(self.size)
                ));
            }
            if split.largest() > u32::MAX as u64 / 2 {
                return Err(usage!("--bssplit {split}: a size is larger than 2 GiB"));
            }
        }
        if let Some(writes) = self.write_bs {
            let mix = self.directions();
            if self.op != Op::Mix || !mix.takes(Direction::Write) || !mix.takes(Direction::Read) {
                return Err(usage!(
                    "--write-bs {writes}: a mix's writes' own sizes; give --op mix with reads and writes (--bs sets every I/O's otherwise)"
                ));
            }
            if mix.takes(Direction::Trim) {
                return Err(usage!(
                    "--write-bs {writes} beside trims: fio gives trims a size of their own; iolab's mix with trims moves one size"
                ));
            }
            if !matches!(self.pattern, Pattern::Seq | Pattern::Random) {
                return Err(usage!(
                    "--write-bs {writes} with --pattern {}: each direction walks the file on its own, sequentially or in random order (--pattern seq or random)",
                    self.pattern
                ));
            }
            if self.verify {
                return Err(usage!(
                    "--write-bs {writes} with --verify: the check seals and reads blocks of one size"
                ));
            }
            let reads = self.bssplit.map_or(self.bs, |split| split.smallest());
            let (least, most) = (reads.min(writes.smallest()), reads.max(writes.smallest()));
            if most % least != 0 {
                return Err(usage!(
                    "--write-bs {writes}: {} is not a multiple of {}: the two directions' grids must nest",
                    units::format_size(most),
                    units::format_size(least)
                ));
            }
            if writes.largest() > self.size || writes.largest() > u32::MAX as u64 / 2 {
                return Err(usage!(
                    "--write-bs {writes}: {} is larger than --size {} or 2 GiB",
                    units::format_size(writes.largest()),
                    units::format_size(self.size)
                ));
            }
        }
        if self.iodepth == 0 {
            return Err(usage!("--iodepth 0: a queue holds at least one I/O"));
        }
        if !self.engine.capabilities().queued && self.iodepth != 1 {
            return Err(usage!(
                "--iodepth {} needs --engine uring; engine {} is synchronous",
                self.iodepth,
                self.engine.name()
            ));
        }
        if !self.engine.capabilities().queued && self.batch != 1 {
            return Err(usage!(
                "--batch {} needs --engine uring; engine {} is synchronous",
                self.batch,
                self.engine.name()
            ));
        }
        if self.batch == 0 || self.batch > self.iodepth {
            return Err(usage!(
                "--batch {} must be between 1 and --iodepth {}",
                self.batch,
                self.iodepth
            ));
        }
        if !(1..=65536).contains(&self.iodepth) {
            return Err(usage!(
                "--iodepth {} must be between 1 and 65536",
                self.iodepth
            ));
        }
        if self.iodepth > self.engine.max_iodepth() {
            return Err(usage!(
                "--iodepth {}: engine {}'s queue holds at most {} I/Os (the kernel's limit)",
                self.iodepth,
                self.engine.name(),
                self.engine.max_iodepth()
            ));
        }
        if !(1..=4096).contains(&self.jobs) {
            return Err(usage!("--jobs {} must be between 1 and 4096", self.jobs));
        }
        let repeat_flag = if self.until_ci.is_some() {
            "--min-repeat"
        } else {
            "--repeat"
        };
        if self.repeat == 0 {
            return Err(usage!("{repeat_flag} 0: at least one repetition is needed"));
        }
        for (flag, count) in [
            (repeat_flag, Some(self.repeat)),
            ("--max-repeat", self.max_repeat),
            ("--warmup", Some(self.warmup)),
        ] {
            if let Some(count) = count.filter(|&count| count > MAX_REPETITIONS) {
                return Err(usage!(
                    "{flag} {count}: at most {MAX_REPETITIONS} repetitions of a point (each is kept in memory until the point is recorded)"
                ));
            }
        }
        let most = u64::from(self.warmup)
            + u64::from(self.max_repeat.unwrap_or(self.repeat).max(self.repeat));
        if most > u64::from(MAX_REPETITIONS) {
            return Err(usage!(
                "--warmup {} with {} measured repetitions: at most {MAX_REPETITIONS} repetitions of a point in all",
                self.warmup,
                self.max_repeat.unwrap_or(self.repeat).max(self.repeat)
            ));
        }
        if let Some(target) = self.until_ci {
            if !(target > 0.0 && target < 1.0) {
                return Err(usage!(
                    "--until-ci {}%: give a half-width between 0% and 100% of the mean",
                    target * 100.0
                ));
            }
            if self.repeat < 2 {
                return Err(usage!(
                    "--until-ci needs --min-repeat of at least 2: an interval needs two repetitions"
                ));
            }
            let max = self.max_repeat.unwrap_or(self.repeat);
            if max < self.repeat {
                return Err(usage!(
                    "--max-repeat {max} is below --min-repeat {}",
                    self.repeat
                ));
            }
        }
        if let (true, Some(reason)) = (self.direct, self.engine.no_direct_reason()) {
            return Err(usage!(
                "--direct cannot be honoured by engine {}: {reason}",
                self.engine.name()
            ));
        }
        // O_SYNC and O_DSYNC are accepted on reads (a study opened its files
        // O_RDONLY|O_SYNC); Linux gives them no effect there, which a check says.
        // The loops count writes only (as fio's fsync=N): a trim is not one.
        if !self.directions().writes() && self.fsync_every > 0 {
            return Err(usage!(
                "--fsync-every {} applies to writes; op {} does not write",
                self.fsync_every,
                self.op.name()
            ));
        }
        if self.fsync_data && self.fsync_every == 0 {
            return Err(usage!(
                "--fsync-data makes the syncs of --fsync-every N fdatasync; give --fsync-every"
            ));
        }
        // NaN fails too: a result file's workload is input.
        if self.interval_s.is_nan() || self.interval_s < units::MIN_INTERVAL.as_secs_f64() {
            return Err(usage!(
                "--interval {}s is below the 1ms floor (the device counters count milliseconds)",
                self.interval_s
            ));
        }
        if let Some(runtime) = self.runtime_s {
            if runtime <= 0.0 {
                return Err(usage!("--runtime must be positive"));
            }
        }
        if let (Some(_), Some(limit)) = (self.runtime_s, self.time_limit_s) {
            return Err(usage!(
                "--time-limit {limit}s with --runtime: a time-based run lasts its runtime; --time-limit caps a run of passes"
            ));
        }
        if let Some(bytes) = self.io_size {
            let clash = if self.runtime_s.is_some() {
                Some("--runtime (a time-based run moves what its time allows)")
            } else if self.loops > 1 {
                Some("--loops (give the bytes, or the passes)")
            } else if self.items.is_some() {
                Some("--items (a metadata workload makes one pass over its items)")
            } else {
                None
            };
            if let Some(clash) = clash {
                return Err(usage!("--io-size {bytes} cannot go with {clash}"));
            }
            if bytes % self.bs != 0 {
                return Err(usage!(
                    "--io-size {bytes} is not a whole number of --bs {} blocks",
                    self.bs
                ));
            }
        }
        if self.loops > 1 && self.runtime_s.is_some() {
            return Err(usage!(
                "--loops {} with --runtime: a time-based run repeats its passes until the runtime is up; give one",
                self.loops
            ));
        }
        if let (Some(limit), Some(_)) = (self.time_limit_s, self.items) {
            return Err(usage!(
                "--time-limit {limit}s: a metadata workload stops at --runtime (mdtest's stonewall)"
            ));
        }
        if self.start_delay_s > 0.0 && self.items.is_some() {
            return Err(usage!(
                "--start-delay: a metadata workload's jobs start together"
            ));
        }
        if self.loops > 1 && self.items.is_some() {
            return Err(usage!(
                "--loops {}: a metadata workload makes one pass over its items",
                self.loops
            ));
        }
        self.check_direction_rates()?;
        match (self.op, self.mix) {
            (Op::Mix, None) => {
                return Err(usage!(
                    "--op mix needs its shares: --mix read=PERCENT,write=PERCENT"
                ));
            }
            (Op::Mix, Some(mix)) if !mix.mixed() => {
                let op = match mix.sole() {
                    Some(direction::Direction::Write) => "rewrite",
                    Some(direction::Direction::Trim) => "trim",
                    _ => "read",
                };
                return Err(usage!(
                    "--mix {mix} is one direction: use --op {op} (a mix has both)"
                ));
            }
            (Op::Mix, Some(_)) | (_, None) => {}
            (op, Some(mix)) => {
                return Err(usage!(
                    "--mix {mix} draws each I/O's direction, so it is op mix; op {} is one direction",
                    op.name()
                ));
            }
        }
        if let (Some(rate), Some(iops)) = (self.rate, self.rate_iops) {
            return Err(usage!(
                "--rate {} and --rate-iops {} both set the pace: give one",
                rate.format(units::format_rate),
                iops.format(|n| n.to_string())
            ));
        }
        if !self.arrivals.is_uniform() && self.target_iops().is_none() {
            return Err(usage!(
                "--arrivals {} draws the gaps of a rate: give --rate or --rate-iops",
                self.arrivals.name()
            ));
        }
        if self.directions().trims() && !self.engine.capabilities().trims {
            let trimmers: Vec<&str> = EngineKind::ALL
                .iter()
                .filter(|engine| engine.capabilities().trims)
                .map(|engine| engine.name())
                .collect();
            return Err(usage!(
                "trims need an engine that trims ({}); engine {} cannot",
                trimmers.join(", "),
                self.engine.name()
            ));
        }
        if let Some(zbd) = self.zbd {
            self.check_zones(zbd)?;
        }
        if self.verify && self.directions().trims() {
            return Err(usage!(
                "--verify with trims: a trimmed block holds no header to check; verify a write, then trim"
            ));
        }
        // A pattern keeps its bytes after each block's header.
        let sealable = matches!(
            self.data,
            crate::plan::data::DataPattern::Unique | crate::plan::data::DataPattern::Fill(_)
        );
        if self.verify && !sealable {
            return Err(usage!(
                "--verify with --data {}: the check seals a header into every block, so the data \
                 would not be {}; verify with the default --data unique (or a pattern:0x…)",
                self.data,
                self.data
            ));
        }
        if let Some(every) = self.verify_backlog {
            if !self.verify {
                return Err(usage!(
                    "--verify-backlog {every} without --verify: the writes carry no seal to check"
                ));
            }
            if !(1..=super::MAX_VERIFY_BACKLOG).contains(&every) {
                return Err(usage!(
                    "--verify-backlog {every}: from 1 to {} writes",
                    super::MAX_VERIFY_BACKLOG
                ));
            }
            if self.engine.capabilities().queued {
                return Err(usage!(
                    "--verify-backlog with engine {}: the writes are read back between a synchronous engine's I/Os (psync, sync, …); a queued engine's are still in flight",
                    self.engine.name()
                ));
            }
        }
        if self.verify && !self.engine.capabilities().moves_data {
            return Err(usage!("--verify needs a file; engine null has none"));
        }
        if self.verify && (self.bs as usize) < VERIFY_HEADER_BYTES {
            return Err(usage!(
                "--verify needs --bs of at least {} bytes for the block header",
                VERIFY_HEADER_BYTES
            ));
        }
        if let Some(target) = &self.latency_target {
            let clash = [
                (
                    self.pace().paces(),
                    "a rate or think time, which sets the pace instead",
                ),
                (
                    self.steady.is_some(),
                    "--steady, which ends the run on its own terms",
                ),
                (self.items.is_some(), "a metadata tree, which has no queue"),
            ];
            if let Some((_, why)) = clash.iter().find(|(given, _)| *given) {
                return Err(usage!("--latency-target {target} cannot go with {why}"));
            }
        }
        if let Some(priority) = &self.priority
            && priority.per_command()
            && !self.engine.capabilities().priority_per_io
        {
            return Err(usage!(
                "--priority {priority}: a priority per I/O travels in libaio's and io_uring's \
                 requests only; engine {} takes the job's priority (--priority CLASS/LEVEL) alone",
                self.engine.name()
            ));
        }
        if let Some(steady) = &self.steady {
            match self.runtime_s {
                None => {
                    return Err(usage!(
                        "--steady {steady} needs --runtime, the longest the run may take"
                    ));
                }
                Some(runtime) if steady.window_s > runtime => {
                    return Err(usage!(
                        "--steady {steady}: its window is longer than --runtime {runtime}s"
                    ));
                }
                _ => {}
            }
            if steady.window_s < 2.0 * self.interval_s {
                return Err(usage!(
                    "--steady {steady}: the window needs at least two --interval {}s intervals",
                    self.interval_s
                ));
            }
        }
        Ok(())
    }
}
