//! Checks that hold the application's figures against what each layer of the device stack counted during the same window.

use super::Findings;
use crate::plan::Workload;
use crate::plan::direction::Direction;
use crate::plan::units::human_size as bytes;
use crate::plan::{CacheMode, Op, SyncMode};
use crate::record::environment::Storage;
use crate::record::{Point, Repetition, Severity};
use std::collections::BTreeMap;

/// Below this share of the application's bytes, the device did not carry the I/O.
const DEVICE_SHARE: f64 = 0.5;
/// Too little data to judge by device counters (metadata and other processes weigh more).
const MIN_BYTES: u64 = 4 << 20;
/// A read meant for the page cache that made the device read at least this
/// much, keeping it busy for at least [`EVICTED_BUSY`] of the timed region,
/// had pages missing from the cache.
const EVICTED_BYTES: u64 = 1 << 20;
/// See [`EVICTED_BYTES`]: a small share of bytes, but a device read costs a
/// hundred page-cache reads, so the time it took is what weighs.
const EVICTED_BUSY: f64 = 0.01;

/// The application's bytes in `counted` directions, and the fewest bytes in
/// the same directions that any layer of the stack carried (the devices of
/// one layer summed, so a RAID0's disks count together), summed over the
/// measured repetitions that recorded device activity. The layer that moved
/// least is the one that shows a cache: a loop device over a cached backing
/// file counts every read, the disk below it none.
pub(super) fn totals(
    point: &Point,
    storage: Option<&Storage>,
    counted: &[Direction],
) -> Option<(u64, u64, String)> {
    let workload = &point.workload;
    totals_of(point, storage, counted, |repetition| {
        Some(app_bytes(workload, repetition, counted))
    })
}

/// The bytes `repetition` of a point running `workload` moved in `counted`
/// directions.
fn app_bytes(workload: &Workload, repetition: &Repetition, counted: &[Direction]) -> u64 {
    match workload.directions().sole() {
        Some(direction) if counted.contains(&direction) => repetition.bytes,
        Some(_) => 0,
        None => repetition
            .directions
            .iter()
            .filter(|share| counted.contains(&share.direction))
            .map(|share| share.bytes)
            .sum(),
    }
}

/// [`totals`] with the application's bytes of each of the point's measured
/// repetitions given by `app` (`None`: the repetition is left out).
fn totals_of(
    point: &Point,
    storage: Option<&Storage>,
    counted: &[Direction],
    app_of: impl Fn(&Repetition) -> Option<u64>,
) -> Option<(u64, u64, String)> {
    let depth_of = |name: &str, index: usize| {
        storage
            .and_then(|s| s.devices.iter().find(|d| d.name == name))
            .map_or(index as u32, |d| d.depth)
    };
    let mut app = 0u64;
    let mut layers: BTreeMap<u32, (u64, Vec<String>)> = BTreeMap::new();
    let mut recorded = false;
    for repetition in point.measured() {
        let Some(activity) = repetition
            .activity
            .as_ref()
            .filter(|a| !a.devices.is_empty())
        else {
            continue;
        };
        let Some(bytes) = app_of(repetition) else {
            continue;
        };
        recorded = true;
        app += bytes;
        for (index, device) in activity.devices.iter().enumerate() {
            let layer = layers.entry(depth_of(&device.name, index)).or_default();
            for direction in counted {
                layer.0 += match direction {
                    Direction::Read => device.read_bytes,
                    Direction::Write => device.write_bytes,
                    // Trims carry no data; the findings are about data.
                    Direction::Trim => 0,
                };
            }
            if !layer.1.contains(&device.name) {
                layer.1.push(device.name.clone());
            }
        }
    }
    if !recorded {
        return None;
    }
    let (bytes, names) = layers.into_values().min_by_key(|(bytes, _)| *bytes)?;
    Some((app, bytes, names.join(" + ")))
}

/// What the application and the device did in `counted` directions, as
/// evidence reads: "read", "wrote", or "read and wrote".
fn verb(counted: &[Direction]) -> &'static str {
    match counted {
        [Direction::Read] => "read",
        [Direction::Write] => "wrote",
        _ => "read and wrote",
    }
}

/// The highest share of a measured repetition's timed region that any device
/// of the stack spent busy reading.
fn busiest(point: &Point) -> f64 {
    point
        .measured()
        .filter_map(|repetition| repetition.activity.as_ref())
        .flat_map(|activity| &activity.devices)
        .filter(|device| device.read_bytes > 0)
        .filter_map(|device| device.busy_fraction)
        .fold(0.0, f64::max)
}

/// Runs the device-counter checks.
pub(super) fn checks(point: &Point, storage: Option<&Storage>, found: &mut Findings) {
    let workload = &point.workload;
    if !workload.uses_files() {
        return; // the null engine moves no data: there is nothing for a device to carry
    }
    below_resolution(point, found);
    foreign_io(point, found);
    if super::cache::meant_for_page_cache(workload) {
        let Some((app, device, name)) = totals(point, storage, &[Direction::Read]) else {
            return; // no block device under the target (tmpfs, NFS, FUSE) or no activity recorded
        };
        let busy = busiest(point);
        if device >= EVICTED_BYTES && busy >= EVICTED_BUSY {
            found.act(
                "cache-evicted",
                Severity::Warning,
                "a read meant to be served from the page cache made the device read: pages were \
                 missing from the cache (evicted, or never cached), so part of the figure is device speed"
                    .to_string(),
                "a --size well below free memory, with nothing else using memory, keeps it cached",
                format!(
                    "the application read {}, {name} read {} in the same window and was busy up to {:.1}% of it",
                    bytes(app),
                    bytes(device),
                    busy * 100.0
                ),
            );
        }
        return;
    }
    not_carried(point, point, None, storage, found);
}

/// Raises what [`device_owed`] names when the devices under `point` did
/// not carry the I/O they owe `own`: the point itself, or its group
/// `group` (named in the finding).
fn not_carried(
    point: &Point,
    own: &Point,
    group: Option<&str>,
    storage: Option<&Storage>,
    found: &mut Findings,
) {
    let Some((code, summary, action, counted)) = device_owed(&own.workload) else {
        return;
    };
    let app_of = |repetition: &Repetition| {
        let mine = own.measured().find(|r| r.index == repetition.index)?;
        Some(app_bytes(&own.workload, mine, counted))
    };
    let Some((app, device, name)) = totals_of(point, storage, counted, app_of) else {
        return; // no block device under the target (tmpfs, NFS, FUSE) or no activity recorded
    };
    // A cold read that came back to blocks it had read found them cached
    // rightly: the device owes only the distinct blocks a skewed draw touched.
    // Writes synced only at the end owe only what they left: a block
    // written again before the fsync (fio's loops, a random draw's
    // repeats) reaches the device once.
    let owed = match touched_bytes(point, own) {
        Some(distinct) if code == "cache-served" => app.min(distinct),
        distinct if code == "faster-than-device" && synced_only_at_end(&own.workload) => app
            .min(distinct.unwrap_or(u64::MAX))
            .min(region_bytes(point, own)),
        _ => app,
    };
    if owed < MIN_BYTES || (device as f64) >= DEVICE_SHARE * owed as f64 {
        return;
    }
    let verb = verb(counted);
    let (message, who, counted_too) = match group {
        None => (summary.to_string(), "the application".to_string(), ""),
        Some(name) => (
            format!("group {name}: {summary}"),
            format!("group {name}"),
            " (every group's I/O counted)",
        ),
    };
    found.act(
        code,
        Severity::Warning,
        message,
        action,
        format!(
            "{who} {verb} {}, {name} {verb} {} in the same window{counted_too}",
            bytes(app),
            bytes(device)
        ),
    );
}

/// What a device that did not carry a workload's I/O is found with: the
/// finding's code, its summary, what to do, and the directions counted.
type Owed = (
    &'static str,
    &'static str,
    &'static str,
    &'static [Direction],
);

/// What the device owes a workload, when it owes it anything (see [`Owed`]).
fn device_owed(workload: &Workload) -> Option<Owed> {
    let synced = workload.fsync_end || workload.fsync_every > 0 || workload.sync != SyncMode::None;
    // Which directions a finding is about: O_DIRECT bypasses the cache both
    // ways, so it counts all the workload's I/O; a sync only forces writes out, so
    // a synced mix counts its writes alone (its reads may be cache hits).
    let mix = workload.directions();
    let own: &[Direction] = match (mix.reads(), mix.writes()) {
        (true, false) => &[Direction::Read],
        (false, true) => &[Direction::Write],
        (true, true) => &[Direction::Read, Direction::Write],
        // Only trims: no data for a device to carry or skip.
        (false, false) => return None,
    };
    if workload.direct {
        Some((
            "direct-not-honoured",
            "O_DIRECT was asked for, but the device did not see the I/O: a layer below the file system cached it",
            "measure on a file system and device that honour O_DIRECT end to end (a loop device needs --direct-io=on)",
            own,
        ))
    } else if workload.op == Op::Read && workload.cache == CacheMode::Cold {
        Some((
            "cache-served",
            "a cold read the device did not serve: the data came from a cache (page cache, a cache below it, or read-ahead before the timed region)",
            "--direct reads the device; a time-based buffered read rereads its cached first pass, so give one pass of a file larger than memory",
            &[Direction::Read],
        ))
    } else if workload.op.writes() && synced {
        Some((
            "faster-than-device",
            "synced writes reported done that the device did not receive in the timed region: \
             the figure is faster than the device stack could have carried",
            "say so with the figure: a cache below the file system acknowledged the sync (a VM host's, a controller's)",
            &[Direction::Write],
        ))
    } else {
        None
    }
}

/// The device checks of a point of groups, whose devices' activity is the
/// point's while each group's figures are its own: counters below their
/// resolution; foreign I/O against what all groups together could have
/// made; and each group the device owes its I/O to, against the devices'
/// bytes in its directions. Those bytes carry every group's I/O, so a
/// finding is never made up by another group's, only possibly hidden.
pub(super) fn group_checks(point: &Point, storage: Option<&Storage>, found: &mut Findings) {
    if !point.groups.iter().any(|group| group.workload.uses_files()) {
        return;
    }
    below_resolution(point, found);
    foreign_io(point, found);
    for group in &point.groups {
        not_carried(point, group, Some(&group.label), storage, found);
    }
}

/// Below this window, ns, no page a buffered write dirtied in it has
/// expired: Linux writes a dirty page back 30 s after it was dirtied
/// (`vm.dirty_expire_centisecs`, 3000 by default).
const DIRTY_EXPIRY_NS: u64 = 25_000_000_000;

/// Slack for the device I/O a run makes besides its data: file-system
/// metadata, the journal, the probes reading /proc.
const FOREIGN_SLACK: u64 = 8 << 20;

/// Raises `foreign-io` when a layer of the stack counted I/O the measured
/// jobs cannot have caused — another process used the device during the
/// timed region: reads while the point only wrote new files (nothing to
/// read), more reads than the jobs' whole files (a cold read reads each
/// page once, however small the reads; read-ahead stops at the file's
/// end), or more writes than three times what the jobs wrote (the data,
/// a journal copy and metadata) plus a page for each write and, when
/// synced, a journal commit — counting, for buffered writes nothing synced,
/// only what did not stay dirty in the page cache (the machine's dirty
/// bytes grew by the rest over the window). The figures per layer, and
/// the application:device ratios made of them, are then not the run's.
fn foreign_io(point: &Point, found: &mut Findings) {
    let mut seen = Vec::new();
    for repetition in point.measured() {
        let Some(activity) = &repetition.activity else {
            continue;
        };
        // A point of groups: what all of them together could have made.
        let bound = if point.groups.is_empty() {
            Some(IoBound::of(&point.workload, repetition))
        } else {
            point
                .groups
                .iter()
                .try_fold(IoBound::default(), |sum, group| {
                    let mine = group.measured().find(|r| r.index == repetition.index)?;
                    Some(sum.plus(IoBound::of(&group.workload, mine)))
                })
        };
        let Some(bound) = bound else { continue };
        for device in &activity.devices {
            if device.read_bytes > bound.read + FOREIGN_SLACK {
                let jobs = if bound.read == 0 {
                    format!("the jobs only wrote new files of {}", bytes(bound.files))
                } else if bound.app_read > bound.files {
                    format!("the jobs read {}", bytes(bound.app_read))
                } else {
                    format!("the jobs' files hold {}", bytes(bound.files))
                };
                seen.push(format!(
                    "{} read {} in repetition {}, {} more than the jobs explain ({jobs})",
                    device.name,
                    bytes(device.read_bytes),
                    repetition.index,
                    bytes(device.read_bytes - bound.read),
                ));
            }
            if bound.writes && device.write_bytes > bound.write + FOREIGN_SLACK {
                seen.push(format!(
                    "{} wrote {} in repetition {}, {} more than the jobs explain (they wrote {})",
                    device.name,
                    bytes(device.write_bytes),
                    repetition.index,
                    bytes(device.write_bytes - bound.write),
                    bytes(bound.app_write)
                ));
            }
        }
    }
    if seen.is_empty() {
        return;
    }
    found.act(
        "foreign-io",
        Severity::Warning,
        "a device counted I/O the measured jobs cannot have made: another process used it during \
         the timed region, so its figures and the application:device ratios are not this run's"
            .to_string(),
        "measure with the device otherwise idle (iotop or atop name who else used it), or on a \
         device of its own (--dir on another file system)",
        seen.join("; "),
    );
}

/// The most device I/O one repetition's jobs can explain (see
/// [`foreign_io`]); a point of groups adds its groups'.
#[derive(Clone, Copy, Default)]
struct IoBound {
    /// Bytes the device may read: the jobs' whole files, or what they read.
    read: u64,
    /// Bytes the device may write: the data three times, a page per write.
    write: u64,
    /// What the jobs read.
    app_read: u64,
    /// What the jobs wrote.
    app_write: u64,
    /// The jobs' files.
    files: u64,
    /// Whether any of the jobs writes.
    writes: bool,
}

impl IoBound {
    fn of(workload: &Workload, repetition: &Repetition) -> IoBound {
        let mix = workload.directions();
        let files = workload.size.saturating_mul(u64::from(workload.jobs));
        let (app_read, app_write) =
            match mix.sole() {
                Some(Direction::Read) => (repetition.bytes, 0),
                Some(Direction::Write) => (0, repetition.bytes),
                Some(_) => (0, 0),
                None => repetition.directions.iter().fold((0, 0), |(r, w), share| {
                    match share.direction {
                        Direction::Read => (r + share.bytes, w),
                        Direction::Write => (r, w + share.bytes),
                        _ => (r, w),
                    }
                }),
            };
        let write_ops = match mix.sole() {
            Some(Direction::Write) => repetition.ops,
            Some(_) => 0,
            None => repetition
                .directions
                .iter()
                .filter(|share| share.direction == Direction::Write)
                .map(|share| share.ops)
                .sum(),
        };
        // Each write may cost the device a whole page, and a synced one a
        // journal commit besides (ext4 writes about 8-12 KiB for one).
        let synced = workload.fsync_every > 0 || workload.sync != SyncMode::None;
        let per_write: u64 = if synced { 4096 + 16_384 } else { 4096 };
        // Buffered writes nothing synced leave their data dirty in memory:
        // what the machine's dirty bytes grew by over the window stayed
        // there, so the jobs can have put on a device at most what they
        // wrote less that (not their files less that: a page written back
        // and dirtied again by a later pass reaches the device twice). Only where nothing of theirs was dirty before (new
        // files, or a cache treatment that wrote the files back) and no page
        // can have expired (the kernel writes a page back 30 s after it was
        // dirtied, by default; the window is shorter).
        let clean_before = workload.op == Op::Write
            || matches!(
                workload.cache,
                CacheMode::Cold | CacheMode::Clean | CacheMode::Drop
            );
        let unsynced = !workload.direct && !synced && !workload.fsync_end && clean_before;
        let stayed_dirty = repetition
            .activity
            .as_ref()
            .filter(|activity| {
                unsynced
                    && activity.write_back_ns.is_none()
                    && activity.elapsed_ns < DIRTY_EXPIRY_NS
            })
            .and_then(|activity| activity.dirty)
            .map(|dirty| dirty.growth());
        let (app_written_back, write_ops) = match stayed_dirty {
            None => (app_write, write_ops),
            // The page per write is for writes that reached a device.
            Some(stayed) => {
                let reached = app_write.saturating_sub(stayed);
                let ops = (write_ops as u128 * reached as u128 / app_write.max(1) as u128) as u64;
                (reached, ops)
            }
        };
        IoBound {
            read: if workload.op == Op::Write {
                0 // a new file: nothing of it to read
            } else {
                files.max(app_read)
            },
            write: app_written_back
                .saturating_mul(3)
                .saturating_add(write_ops.saturating_mul(per_write)),
            app_read,
            app_write,
            files,
            writes: mix.writes(),
        }
    }

    fn plus(self, other: IoBound) -> IoBound {
        IoBound {
            read: self.read.saturating_add(other.read),
            write: self.write.saturating_add(other.write),
            app_read: self.app_read.saturating_add(other.app_read),
            app_write: self.app_write.saturating_add(other.app_write),
            files: self.files.saturating_add(other.files),
            writes: self.writes || other.writes,
        }
    }
}

/// The bytes of the distinct blocks `own` (the point, or one of its
/// groups) touched in the measured repetitions in which `point` recorded
/// device activity, when every one of them recorded its coverage (patterns
/// that draw blocks independently).
fn touched_bytes(point: &Point, own: &Point) -> Option<u64> {
    let mut distinct = 0u64;
    for repetition in point.measured().filter(|r| r.activity.is_some()) {
        let mine = own.measured().find(|r| r.index == repetition.index)?;
        let coverage = mine.coverage?;
        distinct = distinct.saturating_add(coverage.blocks_touched.saturating_mul(own.workload.bs));
    }
    Some(distinct)
}

/// Whether `workload`'s writes are forced out only by the fsync at its end.
fn synced_only_at_end(workload: &Workload) -> bool {
    workload.fsync_end && workload.fsync_every == 0 && workload.sync == SyncMode::None
}

/// The most distinct bytes `own`'s jobs can write in the repetitions of
/// `point` the devices were counted in: each job's region once per
/// repetition.
fn region_bytes(point: &Point, own: &Point) -> u64 {
    let repetitions = point.measured().filter(|r| r.activity.is_some()).count() as u64;
    own.workload
        .size
        .saturating_mul(u64::from(own.workload.jobs.max(1)))
        .saturating_mul(repetitions)
}

/// Device time figures (await, avio, busy) whose counters moved less than
/// their resolution while the device completed I/O: said, so that a reader
/// does not take the bounds shown for measured zeros.
fn below_resolution(point: &Point, found: &mut Findings) {
    let mut figures: Vec<String> = Vec::new();
    for device in point
        .measured()
        .filter_map(|repetition| repetition.activity.as_ref())
        .flat_map(|activity| &activity.devices)
    {
        for field in &device.below_resolution {
            let name = match field.as_str() {
                "busy_fraction" => "busy",
                other => other.trim_end_matches("_ns"),
            };
            let figure = format!("{name} of {}", device.name);
            if !figures.contains(&figure) {
                figures.push(figure);
            }
        }
    }
    if figures.is_empty() {
        return;
    }
    found.add(
        "device-below-resolution",
        Severity::Info,
        "some device time figures are below what /proc/diskstats resolves in this window \
         (I/O time in whole ms, busy time in jiffies): they are shown as bounds or \"below res.\", \
         not as zeros; a longer run measures them"
            .to_string(),
        figures.join(", "),
    );
}
