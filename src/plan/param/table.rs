//! The table of every workload parameter (`for_each_parameter!`): each one's help, field, flag, kind, default, whether it identifies a point, and the fio options it comes from.
//!
//! One entry per parameter; `plan::param` expands it into [`Param`](super::Param)
//! and `plan` into the [`Workload`](crate::plan::Workload) struct.

/// Expands `$callback! { [ARGS] ENTRIES }` with the table of every workload
/// parameter, outermost sweep axis first: the order is the nesting of a
/// sweep's cross product (the file size outside the record size, the op
/// innermost so the ops of one file run together).
#[macro_export]
macro_rules! for_each_parameter {
    ($callback:ident $(, $($args:tt)*)?) => {
        $callback! {
            [$($($args)*)?]
            /// A block trace replayed instead of drawn I/O (fio's read_iolog):
            /// fio iolog v2/v3, MSR or SPC CSV, blktrace or blkparse, each I/O at
            /// its time onto a file iolab creates, sized to the trace, laid out
            /// and evicted before every repetition; each repetition keeps its
            /// fidelity. The trace gives the I/Os' kinds, offsets, sizes and times.
            Trace trace: Option<TracePath> = "trace" {
                kind: Trace, default: None, identifies: true, fio: "read_iolog",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// A trace's times divided by this (2: twice as fast), or afap: each
            /// I/O as soon as --iodepth allows, in the trace's order.
            TraceSpeed trace_speed: TraceSpeed = "trace-speed" {
                kind: Speed, default: Some("1"), identifies: true, fio: "replay_time_scale, replay_no_stall",
            } serde(skip_serializing_if = "TraceSpeed::is_one", default) study_alias("trace_speed")
            /// Open the files with O_DIRECT, bypassing the page cache.
            Direct direct: bool = "direct" {
                kind: Flag, default: Some("off"), identifies: true, fio: "direct",
            }
            /// Synchronous-write open flag: none, osync (O_SYNC), odsync (O_DSYNC).
            Sync sync: SyncMode = "sync" {
                kind: Sync, default: Some("none"), identifies: true, fio: "sync",
            }
            /// The I/O interface: sync (read/write), psync (pread/pwrite), stdio
            /// (fread/fwrite), mmap (memcpy on a mapping), uring (io_uring), libaio
            /// (Linux AIO), nfs (libnfs, with --target nfs://…), iscsi (libiscsi,
            /// with --target iscsi://…), null (no I/O: iolab's own cost).
            Engine engine: EngineKind = "engine" {
                kind: Engine, default: Some("psync"), identifies: true, fio: "ioengine",
            }
            /// Page cache before each repetition: cold (evict, verify), warm (read
            /// first), keep (touch nothing), clean (fsync untimed, keep cached);
            /// drop, for a metadata tree: every file system's pages, dentries and
            /// inodes dropped (drop_caches, root only).
            Cache cache: CacheMode = "cache" {
                kind: Cache, default: Some("cold"), identifies: true, fio: "invalidate",
            }
            /// Threads, each with its own file, started together.
            Jobs jobs: u32 = "jobs" {
                kind: Count { min: 1, max: 4096 }, default: Some("1"), identifies: true, fio: "numjobs",
            }
            /// CPUs the I/O threads may run on, as 0-3+6 (ranges joined by +);
            /// every thread may use every CPU of the set (fio's cpus_allowed with
            /// cpus_allowed_policy=shared). Absent: wherever the scheduler puts them.
            Cpus cpus: Option<CpuSet> = "cpus" {
                kind: Cpus, default: None, identifies: true, fio: "cpus_allowed",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// Where each job's I/O buffers live: bind:NODES, interleave:NODES,
            /// prefer:N, local or default (fio's numa_mem_policy); NUMA nodes as
            /// CPUs are written, 0-1+3. Absent: where the kernel puts them.
            MemPolicy mem_policy: Option<MemPolicy> = "mem-policy" {
                kind: MemPolicy, default: None, identifies: true, fio: "numa_mem_policy",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// Requests kept in flight (queued engines; 1 for synchronous ones).
            Iodepth iodepth: u32 = "iodepth" {
                kind: Count { min: 1, max: 65536 }, default: Some("1"), identifies: true, fio: "iodepth",
            }
            /// Requests handed to the kernel per submitting system call (queued
            /// engines; fio's iodepth_batch_submit). Batches are plugged together in
            /// the block layer, where adjacent requests merge.
            Batch batch: u32 = "batch" {
                kind: Count { min: 1, max: 65536 }, default: Some("1"), identifies: true, fio: "iodepth_batch_submit",
            }
            /// Completions handled per reaping pass at most before the queue is
            /// refilled (queued engines; fio's iodepth_batch_complete_max, which
            /// fio's job files default to 1: the queue stays full); the others
            /// wait for the next pass, still in flight. 0: every one found.
            Reap reap: u32 = "reap" {
                kind: Count { min: 0, max: 65536 }, default: Some("0"), identifies: true, fio: "iodepth_batch_complete_max",
            } serde(skip_serializing_if = "crate::plan::tree::is_zero", default)
            /// A kernel thread polls the io_uring submission queue (SQPOLL): a
            /// submission enters the kernel only to wake that thread (fio's
            /// sqthread_poll). The uring engine only.
            SqPoll sq_poll: bool = "sqpoll" {
                kind: Flag, default: Some("off"), identifies: true, fio: "sqthread_poll",
            } serde(skip_serializing_if = "std::ops::Not::not", default)
            /// A queued job waits before issuing an I/O whose range overlaps one
            /// still in flight, reaping until none does (fio's
            /// serialize_overlap): no two requests of the job race on a block.
            SerializeOverlap serialize_overlap: bool = "serialize-overlap" {
                kind: Flag, default: Some("off"), identifies: true, fio: "serialize_overlap",
            } serde(skip_serializing_if = "std::ops::Not::not", default) study_alias("serialize_overlap")
            /// Bytes per second each job issues at most (50MiB/s, 50m): I/O k is
            /// due at k × bs / rate after the start, and its latency is also
            /// measured from then; or one rate per direction, read=40m+write=10m
            /// (fio's rate=R,W), each direction on its own schedule and the mix
            /// in their proportion. Absent: as fast as the device goes.
            Rate rate: Option<Rate> = "rate" {
                kind: Rate, default: None, identifies: true, fio: "rate",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// I/Os per second each job issues at most, as --rate in I/Os
            /// (read=700+write=300: a rate per direction).
            RateIops rate_iops: Option<Rate> = "rate-iops" {
                kind: Iops, default: None, identifies: true, fio: "rate_iops",
            } serde(skip_serializing_if = "Option::is_none", default) study_alias("rate_iops")
            /// How the gaps between a rate's issue times are drawn: uniform
            /// (even) or poisson (exponential, of the same mean).
            Arrivals arrivals: Arrivals = "arrivals" {
                kind: Arrivals, default: Some("uniform"), identifies: true, fio: "rate_process",
            } serde(skip_serializing_if = "Arrivals::is_uniform", default)
            /// A pause after every N completed I/Os, outside every latency:
            /// 100us or 100us:every=N.
            Think think: Option<ThinkTime> = "think" {
                kind: Think, default: None, identifies: true, fio: "thinktime, thinktime_blocks",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// fio's flow control: jobs of one flow id (0 unless :id=N) keep
            /// their I/O counts in the ratio of their weights, a job ahead
            /// of its share waiting before its next I/O (:sleep=DURATION
            /// between looks; at once without): 8, 8:id=1, 8:id=1:sleep=1ms.
            Flow flow: Option<Flow> = "flow" {
                kind: Flow, default: None, identifies: true, fio: "flow, flow_id, flow_sleep",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// When one of the group's jobs finishes, which jobs stop with it:
            /// none, group (its group's other jobs: fio's exitall) or point
            /// (every group of the point: fio's exit_what=stonewall).
            Exit exit: ExitScope = "exit" {
                kind: Exit, default: Some("none"), identifies: true, fio: "exitall, exit_what",
            } serde(skip_serializing_if = "ExitScope::is_none", default)
            /// The order blocks are visited in: seq, reverse, random (each block once
            /// per pass, in a seeded order), uniform (independent draws), stride:N,
            /// bands:R/S (R blocks in order, S skipped: fio's zonemode=strided);
            /// or skewed independent draws: zipf:θ, pareto:h, normal:σ% (hot blocks
            /// scattered over the file), zoned:A/S:A/S… (A% of the I/Os to the next
            /// S% of the file); or listed blocks: sequence:B:B… (those blocks in
            /// turn, repeated), sequence-stride:B:B… (each round one list's
            /// length on, ending at the file's end: fio's random_sequence_stride).
            Pattern pattern: Pattern = "pattern" {
                kind: Pattern, default: Some("seq"), identifies: true, fio: "rw, norandommap, random_distribution, random_sequence_stride",
            }
            /// An fsync (msync for mmap) ends each write's timed region (IOzone -e).
            FsyncEnd fsync_end: bool = "fsync-end" {
                kind: Flag, default: Some("off"), identifies: true, fio: "end_fsync",
            } study_alias("fsync_end")
            /// An fsync after every N writes, inside the timed region; 0 = never.
            FsyncEvery fsync_every: u64 = "fsync-every" {
                kind: Count { min: 0, max: u64::MAX }, default: Some("0"), identifies: true, fio: "fsync",
            } study_alias("fsync_every")
            /// The syncs of --fsync-every are fdatasync(2): the data, and of
            /// the metadata only what reading it back needs (fio's fdatasync).
            FsyncData fsync_data: bool = "fsync-data" {
                kind: Flag, default: Some("off"), identifies: true, fio: "fdatasync",
            } serde(skip_serializing_if = "std::ops::Not::not", default) study_alias("fsync_data")
            /// Time-based run length in seconds: passes repeat until it is up.
            /// Absent: one pass over the file.
            Runtime runtime_s: Option<f64> = "runtime" {
                kind: Duration { positive: true }, default: None, identifies: false, fio: "runtime, time_based",
            }
            /// The longest each job's timed region lasts: its pass (or
            /// passes) ends it sooner (fio's runtime without time_based).
            /// Not with --runtime, which runs passes for that long.
            TimeLimit time_limit_s: Option<f64> = "time-limit" {
                kind: Duration { positive: true }, default: None, identifies: false, fio: "runtime (without time_based)",
            } serde(skip_serializing_if = "Option::is_none", default) study_alias("time_limit")
            /// Bytes each job moves in a repetition's timed region, passing
            /// over its file as often as that takes, the last pass cut short
            /// (fio's io_size; number_ios × bs). Absent: --loops passes.
            IoSize io_size: Option<u64> = "io-size" {
                kind: Size, default: None, identifies: true, fio: "io_size, number_ios",
            } serde(skip_serializing_if = "Option::is_none", default) study_alias("io_size")
            /// Passes over the file in each repetition's timed region, one
            /// after another (fio's loops). Not with --runtime, whose passes
            /// repeat until it is up.
            Loops loops: u32 = "loops" {
                kind: Count { min: 1, max: 1_000_000 }, default: Some("1"), identifies: true, fio: "loops",
            } serde(skip_serializing_if = "crate::plan::tree::is_one", default = "crate::plan::tree::one")
            /// A wait before each job's first I/O, every repetition (fio's
            /// startdelay): a group that joins the others later.
            StartDelay start_delay_s: f64 = "start-delay" {
                kind: Duration { positive: false }, default: Some("0s"), identifies: true, fio: "startdelay",
            } serde(skip_serializing_if = "crate::plan::param::is_zero_seconds", default) study_alias("start_delay")
            /// Seconds of I/O before measuring starts, excluded from every figure.
            Ramp ramp_s: f64 = "ramp" {
                kind: Duration { positive: false }, default: Some("0s"), identifies: false, fio: "ramp_time",
            }
            /// Seed of the random patterns and of the data written.
            Seed seed: u64 = "seed" {
                kind: Count { min: 0, max: u64::MAX }, default: Some("0"), identifies: true, fio: "none: fio's random generator is not iolab's",
            }
            /// File size per job, bytes (4k = 4KiB = 4096, 4kB = 4000); with
            /// `run --file`, the file's length unless given.
            Size size: u64 = "size" {
                kind: Size, default: Some("256m"), identifies: true, fio: "size",
            }
            /// Where each job's region starts in a file or device you gave
            /// (`--file`, an iSCSI LUN, a job file's `filename=`), bytes: groups
            /// sharing one take disjoint regions by their offsets. 0: at its start.
            Offset offset: u64 = "offset" {
                kind: Offset, default: Some("0"), identifies: true, fio: "offset",
            } serde(skip_serializing_if = "crate::plan::param::is_zero_bytes", default)
            /// On a file or device you gave: how much further each job's
            /// region starts than the job before it's (job k at --offset plus
            /// k times this), so several jobs split it; 0: every job over the
            /// same region.
            OffsetIncrement offset_increment: u64 = "offset-increment" {
                kind: Offset, default: Some("0"), identifies: true, fio: "offset_increment",
            } serde(skip_serializing_if = "crate::plan::param::is_zero_bytes", default)
            /// Bytes per I/O.
            Bs bs: u64 = "bs" {
                kind: Size, default: Some("4k"), identifies: true, fio: "bs",
            }
            /// Mixed block sizes, 4k=60,64k=30,1m=10 (whole percents adding up to
            /// 100, each size a multiple of the smallest): each I/O's length is
            /// drawn from them, and the smallest becomes --bs, the grid I/Os start
            /// on. --bs written as a split means this.
            Bssplit bssplit: Option<BlockSplit> = "bssplit" {
                kind: Split, default: None, identifies: true, fio: "bssplit",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// A mix's writes' own block size (64k) or split (4k=50+64k=50), where
            /// its reads take --bs or --bssplit (fio's bs=R,W and bssplit=R,W):
            /// each direction walks the file on its own grid, its I/Os starting
            /// on multiples of its smallest size, as fio aligns each direction's.
            WriteBs write_bs: Option<BlockSplit> = "write-bs" {
                kind: Split, default: None, identifies: true, fio: "bs",
            } serde(skip_serializing_if = "Option::is_none", default) study_alias("write_bs")
            /// The target as a zoned block device, emulated as fio emulates one
            /// (fio's zonemode=zbd on a file or a device that is not zoned):
            /// zones of ZONE-SIZE, each written only at its write pointer
            /// (every zone empty at the start), a write drawn elsewhere
            /// moved to its zone's pointer, a full zone reset before it is
            /// written again, at most open=N zones written at once (fio's
            /// max_open_zones), reads only below a pointer unless
            /// read-beyond-wp, and a trim a zone's reset: 256m,open=32.
            Zbd zbd: Option<Zbd> = "zbd" {
                kind: Zbd, default: None, identifies: true, fio: "zonemode=zbd, zonesize, zonecapacity, max_open_zones, zone_reset_threshold, zone_reset_frequency, read_beyond_wp",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// Random offsets drawn independently (uniform, zipf, pareto, normal,
            /// zoned) lie on multiples of this many bytes (fio's blockalign); 0:
            /// the smallest block size, the grid every pattern keeps.
            Align align: u64 = "align" {
                kind: Offset, default: Some("0"), identifies: true, fio: "blockalign",
            } serde(skip_serializing_if = "crate::plan::param::is_zero_bytes", default)
            /// What the written bytes look like: unique (random, each 512-byte
            /// sector stamped with its offset and the write), zeros,
            /// compressible:PCT (each 512-byte chunk PCT% zeros) or dedupe:PCT
            /// (PCT% of the blocks written carry the same bytes), which may add
            /// :working-set=PCT (repeat one of the job's first PCT% of blocks)
            /// and :global (the set shared by every job), after
            /// compressible:PCT+ for both. Files laid out for reading get the
            /// same shape.
            Data data: DataPattern = "data" {
                kind: Data, default: Some("unique"), identifies: true, fio: "zero_buffers, buffer_compress_percentage, dedupe_percentage, dedupe_mode, dedupe_working_set_percentage, dedupe_global",
            } serde(skip_serializing_if = "DataPattern::is_unique", default)
            /// The shares of a mix, read=70,write=30 (whole percents adding up to
            /// 100): each I/O's direction is drawn from them, on a laid-out file.
            /// Giving it makes the op mix.
            Mix mix: Option<DirectionMix> = "mix" {
                kind: Mix, default: None, identifies: true, fio: "rwmixread, rwmixwrite",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// Metadata workload: items (files, or directories for mkdir) each
            /// job makes in each directory of the tree (mdtest -I); the op then
            /// works on them one by one, and read reads each whole file.
            /// Absent: the op works on blocks of one file per job.
            Items items: Option<u64> = "items" {
                kind: Count { min: 1, max: 10_000_000 }, default: None, identifies: true, fio: "nrfiles",
            } serde(skip_serializing_if = "Option::is_none", default)
            /// Levels of directories below the top of a metadata tree (mdtest -z).
            Depth depth: u32 = "depth" {
                kind: Count { min: 0, max: 64 }, default: Some("0"), identifies: true, fio: "none: mdtest -z",
            } serde(skip_serializing_if = "crate::plan::tree::is_zero", default)
            /// Subdirectories of each directory above a metadata tree's last
            /// level (mdtest -b).
            Fanout fanout: u32 = "fanout" {
                kind: Count { min: 1, max: 4096 }, default: Some("1"), identifies: true, fio: "none: mdtest -b",
            } serde(skip_serializing_if = "crate::plan::tree::is_one", default = "crate::plan::tree::one")
            /// Items only in the directories of a metadata tree's last level (mdtest -L).
            LeafOnly leaf_only: bool = "leaf-only" {
                kind: Flag, default: Some("off"), identifies: true, fio: "none: mdtest -L",
            } serde(skip_serializing_if = "std::ops::Not::not", default) study_alias("leaf_only")
            /// A metadata tree per job (mdtest -u); off: one tree all jobs share,
            /// each job's items named by its number.
            UniqueDir unique_dir: bool = "unique-dir" {
                kind: Flag, default: Some("off"), identifies: true, fio: "none: mdtest -u",
            } serde(skip_serializing_if = "std::ops::Not::not", default) study_alias("unique_dir")
            /// Job k stats, reads, lists and deletes the items of job k+N
            /// (mdtest -N), so no client finds what it made itself in its cache;
            /// 0: each its own.
            Stride stride: u32 = "stride" {
                kind: Count { min: 0, max: 1_000_000 }, default: Some("0"), identifies: true, fio: "none: mdtest -N",
            } serde(skip_serializing_if = "crate::plan::tree::is_zero", default)
            /// Bytes a metadata create writes into each file (mdtest -w; IO500's
            /// hard phase 3901), in writes of --bs, and a read reads back.
            /// Absent: empty files.
            FileSize file_size: Option<u64> = "file-size" {
                kind: Size, default: None, identifies: true, fio: "filesize",
            } serde(skip_serializing_if = "Option::is_none", default) study_alias("file_size")
            /// The timed operation, as IOzone defines them: write (a new file),
            /// rewrite, read, reread; or mix (reads and overwrites, drawn per I/O
            /// from --mix); trim; or with --items a metadata op on each item of a
            /// tree: create, stat, read, rename, delete, mkdir, rmdir, dirstat, readdir.
            Op op: Op = "op" {
                kind: Op, default: Some("read"), identifies: true, fio: "rw",
            }
            /// Where the point runs: host (this machine) or guest (the virtual
            /// machine of --guest, its disk an image in the directory under test);
            /// host,guest measures both, back to back.
            Machine machine: Machine = "machine" {
                kind: Machine, default: Some("host"), identifies: true, fio: "none: fio runs where it is started",
            } serde(skip_serializing_if = "Machine::is_host", default)
            /// Which of several --guest configurations a guest point runs in, 1
            /// for the first given (its name in the result's guests); absent with
            /// one guest. Several --guest measure every point in each, one boot
            /// per configuration and round; --guest-config 2 keeps the second's.
            GuestConfig guest_config: Option<u32> = "guest-config" {
                kind: Count { min: 1, max: 8 }, default: None, identifies: true, fio: "none: fio runs where it is started",
            } serde(skip_serializing_if = "Option::is_none", default)
        }
    };
}
