"""iolab against fio, side by side: the driver behind bench/vs-fio.

Each workload runs PAIRS times as an (iolab, fio) pair, in A B / B A order,
so slow drifts of this shared machine hit both tools alike. Reported per workload: the
median figure of each tool, the median of the per-pair ratios iolab/fio and
their min-max. Ratios, not single times, are what this noisy 2-core VM can
support; a bootstrap interval of the median ratio says how far the noise
leaves it uncertain.

While each run is in its timed region, the driver also samples the block
device under the shared file (/proc/diskstats): how many requests it held on
average, and how many it completed. That is the device's own account of
each tool's run: it checks the tool's figure, shows whether page-cache runs
made device reads, and tells whether a device-bound workload kept the device
equally busy with both tools.
"""

import argparse
import contextlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time

KIB = 1024
MIB = 1024 * 1024


def parse_size(text):
    match = re.fullmatch(r"(\d+)([kmgt]?)", text.lower())
    if not match:
        raise SystemExit(f"bad size {text!r}")
    return int(match.group(1)) * {"": 1, "k": KIB, "m": MIB, "g": MIB * KIB, "t": MIB * MIB}[match.group(2)]


# Issue 3's targets per workload (8-12: issue 21's, 14: issue 43's, 15: the job
# files issue's): (lowest, highest) median ratio iolab/fio.
TARGETS = {1: (2.0, None), 2: (1.10, None), 3: (1.10, None), 4: (1.00, None),
           5: (0.97, 1.03), 6: (1.00, None), 7: (0.97, 1.03), 8: (1.10, None),
           9: (1.10, None), 10: (0.97, 1.03), 11: (0.99, 1.01), 12: (1.00, None), 13: (0.97, 1.03),
           14: (1.00, None), 15: (1.10, None)}

# Workloads paced to a rate: (number, I/Os per second asked); each tool's
# achieved/asked is printed beside the ratio.
RATE_ROWS = {11: 5000}
# The region row 8's mix runs over: small enough that its writes never reach
# the dirty-page limit (20% of memory by default).
MIX_REGION = "64m"


# Workloads the device limits, whose figures move most from run to run.
DEVICE_BOUND = {5, 6, 7, 10, 13}

# Workloads run in a cgroup that limits the disk's reads to this many I/Os
# per second (blkio v1 read_iops_device, or v2 io.max riops), so that the
# device, not either tool's CPU, is the limit: row 10 on this VM is bound by
# fio's CPU, and row 13 is the same workload made device-bound on purpose.
THROTTLED_ROWS = {13: 20000}


class ReadThrottle:
    """A cgroup of its own whose reads from `device` are limited to `iops`
    per second; `prefix` runs a command inside it. Removed on exit."""

    def __init__(self, device, iops):
        sys_dir = f"/sys/class/block/{device}"
        if os.path.exists(f"{sys_dir}/partition"):
            sys_dir = os.path.realpath(f"{sys_dir}/..")  # a partition's reads are its disk's
        with open(f"{sys_dir}/dev") as dev:
            self.dev = dev.read().strip()
        self.iops = iops
        v1 = "/sys/fs/cgroup/blkio"
        if os.path.exists(f"{v1}/blkio.throttle.read_iops_device"):
            self.dir, self.file, self.rule = f"{v1}/iolab-bench-{os.getpid()}", \
                "blkio.throttle.read_iops_device", f"{self.dev} {iops}"
        else:
            root = "/sys/fs/cgroup/unified" if os.path.isdir("/sys/fs/cgroup/unified") else "/sys/fs/cgroup"
            self.dir, self.file, self.rule = f"{root}/iolab-bench-{os.getpid()}", "io.max", \
                f"{self.dev} riops={iops}"

    def __enter__(self):
        os.makedirs(self.dir, exist_ok=True)
        with open(f"{self.dir}/{self.file}", "w") as limit:
            limit.write(self.rule)
        return self

    def prefix(self):
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', self.dir]

    def __exit__(self, *exc):
        os.rmdir(self.dir)


def describe_target(bounds):
    low, high = bounds
    return f"{low:.2f}-{high:.2f}" if high is not None else f">= {low:.2f}"


def meets(value, bounds):
    low, high = bounds
    return value >= low and (high is None or value <= high)


def bootstrap_median_interval(ratios, rounds=10_000, seed=1):
    """95% percentile-bootstrap interval of the median of `ratios` (pairs
    resampled with replacement; fixed seed, so a rerun prints the same)."""
    generator = random.Random(seed)
    medians = sorted(statistics.median(generator.choices(ratios, k=len(ratios))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]


def verdict(row):
    """"yes" or "no" by the median ratio, as the target is stated, and
    "(within noise)" when the bootstrap interval reaches across a bound of
    the target, so that a rerun could well decide the other way."""
    bounds = TARGETS[row["workload"]]
    met = meets(row["ratio_median"], bounds)
    low, high = row["ratio_interval"]
    if met:
        settled = meets(low, bounds) and meets(high, bounds)
    else:
        settled = high < bounds[0] or (bounds[1] is not None and low > bounds[1])
    return ("yes" if met else "no") + ("" if settled else " (within noise)")


def block_device_of(path):
    """The /proc/diskstats name of the block device holding `path` (a
    partition's own name; None for file systems without one, such as tmpfs)."""
    device = os.stat(path).st_dev
    uevent = f"/sys/dev/block/{os.major(device)}:{os.minor(device)}/uevent"
    try:
        with open(uevent) as file:
            for line in file:
                if line.startswith("DEVNAME="):
                    return line.strip().split("=", 1)[1]
    except FileNotFoundError:
        return None
    return None


def diskstats(name):
    """(reads, sectors read, writes, sectors written, weighted ms in queue) of `name`."""
    with open("/proc/diskstats") as file:
        for line in file:
            fields = line.split()
            if fields[2] == name:
                numbers = [int(x) for x in fields[3:]]
                return numbers[0], numbers[2], numbers[4], numbers[6], numbers[10]
    raise SystemExit(f"bench/vs-fio: {name} is not in /proc/diskstats")


def interrupt_cpus(name):
    """The CPUs that take the interrupts of the disk under block device
    `name` (its busiest MSI vector's effective affinity), or None when sysfs
    does not say. Where the waiting thread runs relative to them changes the
    figure: on this VM a QD1 O_DIRECT read ran at 11-12k IOPS on the other
    CPU and 17-19k on the interrupts' CPU, with either tool."""
    disk = os.path.realpath(f"/sys/class/block/{name}")
    if os.path.exists(os.path.join(disk, "partition")):
        disk = os.path.dirname(disk)
    device = os.path.realpath(os.path.join(disk, "device"))
    while device != "/" and not os.path.isdir(os.path.join(device, "msi_irqs")):
        device = os.path.dirname(device)
    if device == "/":
        return None
    vectors = set(os.listdir(os.path.join(device, "msi_irqs")))
    counts = {}
    with open("/proc/interrupts") as file:
        for line in file:
            fields = line.split()
            if fields and fields[0].rstrip(":") in vectors:
                counts[fields[0].rstrip(":")] = sum(int(f) for f in fields[1:] if f.isdigit())
    if not counts or max(counts.values()) == 0:
        return None
    busiest = max(counts, key=counts.get)
    try:
        with open(f"/proc/irq/{busiest}/effective_affinity_list") as file:
            return file.read().strip() or None
    except OSError:
        return None


class DeviceSampler:
    """Samples the device's counters every 0.1 s while a tool runs, and keeps
    the window that ends 0.5 s before the tool exits and spans the runtime
    less 1 s: inside the timed region, whatever the tool's set-up took
    (warming a file can take seconds), as both tools exit within
    milliseconds of their timed region's end (the device's rates agree with
    each tool's figure within 1% in docs/performance.md)."""

    def __init__(self, name, runtime):
        self.name, self.span = name, max(runtime - 1.0, 0.5)
        self.sample = None

    def __enter__(self):
        if self.name:
            self.samples, self.stop = [], threading.Event()
            self.thread = threading.Thread(target=self._collect, daemon=True)
            self.thread.start()
        return self

    def _collect(self):
        while True:
            self.samples.append((time.monotonic(), diskstats(self.name)))
            if self.stop.wait(0.1):
                return

    def __exit__(self, *exc):
        if not self.name:
            return
        self.stop.set()
        self.thread.join()
        self.samples.append((time.monotonic(), diskstats(self.name)))
        end = self.samples[-1][0] - 0.5
        inside = [sample for sample in self.samples if end - self.span <= sample[0] <= end]
        if len(inside) < 2:
            return
        (t0, before), (t1, after) = inside[0], inside[-1]
        reads, read_sectors, writes, written_sectors, queue_ms = (b - a for a, b in zip(before, after))
        seconds = t1 - t0
        self.sample = {"in_flight": queue_ms / (seconds * 1000), "iops": (reads + writes) / seconds,
                       "bw": (read_sectors + written_sectors) * 512 / seconds, "reads": reads,
                       "seconds": seconds}


def workloads(args, shared_file):
    """The seven workloads of issue 3, the mix and skew of issue 21, two jobs at once (issue 43) and four jobs on one file: (number, name, metric, page-cache block
    size or None, iolab args, fio args, fio direction). Every file workload of
    both tools uses `shared_file`: on a VM (and on SSDs) a file's recent history
    changes what writes and reads cost, so the tools must share it."""
    size, runtime, ramp = args.size, args.runtime, args.ramp
    timing_iolab = ["--runtime", f"{runtime}s", "--ramp", f"{ramp}s"]
    timing_fio = ["--time_based", f"--runtime={runtime}", f"--ramp_time={ramp}"]
    # Page-aligned buffers for fio too, as iolab allocates them: fio's default
    # buffer is not page-aligned, which halves its 1 MiB page-cache reads here.
    file_fio = [f"--filename={shared_file}", f"--size={size}", "--iomem_align=4096"]
    file_iolab = ["--file", shared_file]
    return [
        (1, "null engine, 4 KiB", "iops", None,
         ["--dir", args.dir, "--engine", "null", "--bs", "4k", "--size", size],
         ["--ioengine=null", "--rw=read", "--bs=4k", f"--size={size}"], "read"),
        (2, "4 KiB random read, psync, page cache", "iops", 4 * KIB,
         ["--engine", "psync", "--pattern", "random", "--bs", "4k", "--cache", "warm"] + file_iolab,
         ["--ioengine=psync", "--rw=randread", "--bs=4k", "--invalidate=0"] + file_fio, "read"),
        (3, "4 KiB random read, mmap, page cache", "iops", 4 * KIB,
         ["--engine", "mmap", "--pattern", "random", "--bs", "4k", "--cache", "warm"] + file_iolab,
         ["--ioengine=mmap", "--rw=randread", "--bs=4k", "--invalidate=0"] + file_fio, "read"),
        (4, "1 MiB sequential read, psync, page cache", "bw", MIB,
         ["--engine", "psync", "--pattern", "seq", "--bs", "1m", "--cache", "warm"] + file_iolab,
         ["--ioengine=psync", "--rw=read", "--bs=1m", "--invalidate=0"] + file_fio, "read"),
        (5, "4 KiB random read, O_DIRECT, psync QD1", "iops", None,
         ["--engine", "psync", "--pattern", "random", "--bs", "4k", "--direct"] + file_iolab,
         ["--ioengine=psync", "--rw=randread", "--bs=4k", "--direct=1"] + file_fio, "read"),
        (6, "4 KiB random read, O_DIRECT, io_uring QD32", "iops", None,
         ["--engine", "uring", "--iodepth", "32", "--pattern", "random", "--bs", "4k", "--direct"] + file_iolab,
         ["--ioengine=io_uring", "--iodepth=32", "--fixedbufs=1", "--registerfiles=1", "--rw=randread",
          "--bs=4k", "--direct=1"] + file_fio, "read"),
        (7, "1 MiB sequential write, O_DIRECT, psync", "bw", None,
         ["--op", "rewrite", "--engine", "psync", "--pattern", "seq", "--bs", "1m", "--direct"] + file_iolab,
         ["--ioengine=psync", "--rw=write", "--bs=1m", "--direct=1"] + file_fio, "write"),
        # fio's randrw with rwmixread=70 as its wrappers run it; the figure is
        # both directions together (fio: read + write). Over the file's first
        # 64 MiB for both: on the whole file the writes reach the dirty-page
        # limit and both tools are throttled to the writeback rate
        # (balance_dirty_pages), so the row would measure the kernel.
        (8, "4 KiB random read/write 70/30, psync, page cache (64 MiB)", "iops", 4 * KIB,
         ["--mix", "read=70,write=30", "--engine", "psync", "--pattern", "random", "--bs", "4k",
          "--cache", "warm", "--size", MIX_REGION] + file_iolab,
         ["--ioengine=psync", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--invalidate=0",
          f"--filename={shared_file}", f"--size={MIX_REGION}", "--iomem_align=4096"], "both"),
        # Skewed offsets: fio's zipf draw against iolab's (rand_distr's
        # rejection-inversion), both scattering the hot ranks over the file.
        (9, "4 KiB zipf:1.2 random read, psync, page cache", "iops", 4 * KIB,
         ["--engine", "psync", "--pattern", "zipf:1.2", "--bs", "4k", "--cache", "warm"] + file_iolab,
         ["--ioengine=psync", "--rw=randread", "--random_distribution=zipf:1.2", "--bs=4k",
          "--invalidate=0"] + file_fio, "read"),
        (10, "4 KiB random read, O_DIRECT, libaio QD32", "iops", None,
         ["--engine", "libaio", "--iodepth", "32", "--pattern", "random", "--bs", "4k", "--direct"] + file_iolab,
         ["--ioengine=libaio", "--iodepth=32", "--rw=randread", "--bs=4k", "--direct=1"] + file_fio, "read"),
        # Rate accuracy: both tools asked for 5000 I/O/s of page-cache reads,
        # which either could do 200 times over; the figure is what they kept.
        (11, "4 KiB random read at 5000 I/O/s, psync, page cache", "iops", 4 * KIB,
         ["--engine", "psync", "--pattern", "random", "--bs", "4k", "--cache", "warm",
          "--rate-iops", str(RATE_ROWS[11])] + file_iolab,
         ["--ioengine=psync", "--rw=randread", "--bs=4k", "--invalidate=0",
          f"--rate_iops={RATE_ROWS[11]}"] + file_fio, "read"),
        # The queued loop's own cost: io_uring reads served from the page
        # cache complete inline, so the CPU, not the device, bounds the row.
        (12, "4 KiB random read, io_uring QD8, page cache", "iops", 4 * KIB,
         ["--engine", "uring", "--iodepth", "8", "--pattern", "random", "--bs", "4k",
          "--cache", "warm"] + file_iolab,
         ["--ioengine=io_uring", "--iodepth=8", "--fixedbufs=1", "--registerfiles=1", "--rw=randread",
          "--bs=4k", "--invalidate=0"] + file_fio, "read"),
        # Row 10 with the disk's reads limited (THROTTLED_ROWS): device-bound
        # whatever either tool's CPU costs, so the ratio shows whether iolab
        # keeps the device as busy as fio does.
        (13, "4 KiB random read, O_DIRECT, libaio QD32, device throttled", "iops", None,
         ["--engine", "libaio", "--iodepth", "32", "--pattern", "random", "--bs", "4k", "--direct"] + file_iolab,
         ["--ioengine=libaio", "--iodepth=32", "--rw=randread", "--bs=4k", "--direct=1"] + file_fio, "read"),
        # Two different jobs at once (issue 43): iolab's point of two groups
        # against fio's two-job command line, both on the null engine so the
        # CPU bounds the row; the figure is both jobs' I/Os together. The
        # timing is given to the first group (fio: job) here and appended to
        # the second by the runners.
        (14, "two jobs at once: null 4 KiB reads + null 64 KiB writes", "iops", None,
         ["--dir", args.dir, "--engine", "null", "--size", size] + timing_iolab
         + ["--group", "reader", "--bs", "4k", "--group", "writer", "--op", "write", "--bs", "64k"],
         ["--ioengine=null", "--rw=read", "--bs=4k", f"--size={size}"] + timing_fio
         + ["--name=writer", "--ioengine=null", "--rw=write", "--bs=64k", f"--size={size}"], "jobs"),
        # Several jobs on one file (issue "fio's job files as users have
        # them"): fio's `filename=F numjobs=4` against iolab's `--file F
        # --jobs 4`, page-cache reads so the CPU bounds the row; the figure
        # is the four jobs' I/Os together (fio: each job's entry, added).
        (15, "4 jobs on one file: 4 KiB random read, psync, page cache", "iops", 4 * KIB,
         ["--engine", "psync", "--pattern", "random", "--bs", "4k", "--cache", "warm",
          "--jobs", "4"] + file_iolab,
         ["--ioengine=psync", "--rw=randread", "--bs=4k", "--invalidate=0",
          "--numjobs=4"] + file_fio, "jobs"),
    ], timing_iolab, timing_fio


def iolab_pinned(cpus):
    """iolab's flag pinning its I/O threads to `cpus` (a CPU list as taskset
    writes it, 0-1,3), or nothing."""
    return ["--cpus", cpus.replace(",", "+")] if cpus else []


def fio_pinned(cpus):
    """fio's option pinning its jobs to `cpus`, or nothing."""
    return [f"--cpus_allowed={cpus}"] if cpus else []


def run_json(command, sampler=None):
    if sampler is None:
        completed = subprocess.run(command, capture_output=True, text=True)
    else:
        with sampler:
            completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"failed ({completed.returncode}): {' '.join(command)}\n{completed.stderr}")
    return json.loads(completed.stdout[completed.stdout.index("{"):])


def settle(seconds):
    """Writes back everything and waits, so no run starts while the device
    (or, on a VM, the host's cache) still digests the previous run's writes."""
    os.sync()
    time.sleep(seconds)


def settle_for(args, extra):
    """Writes need longer: on a VM, O_DIRECT writes fill the host's cache, and
    5 s of them take more than 3 s to drain."""
    writes = {"rewrite", "--rw=write", "--mix", "--rw=randrw"}
    return max(args.settle, 10) if writes & set(extra) else args.settle


def run_iolab(args, extra, timing, device, pin, prefix=()):
    settle(settle_for(args, extra))
    sampler = DeviceSampler(device, args.runtime)
    result = run_json(list(prefix) + [args.iolab, "run", "--json"] + extra + timing + iolab_pinned(pin), sampler)
    repetition = result["points"][0]["repetitions"][0]
    return {"iops": repetition["iops"], "bw": repetition["throughput_bps"], "device": sampler.sample}


def warm(path):
    with open(path, "rb") as file:
        while file.read(8 * MIB):
            pass


def run_fio(args, fio_args, timing, direction, page_cache, shared_file, device, pin, prefix=()):
    if page_cache:
        warm(shared_file)  # invalidate=0 keeps what this read puts in the page cache
    settle(settle_for(args, fio_args))
    sampler = DeviceSampler(device, args.runtime)
    result = run_json(list(prefix) + ["fio", "--name=bench", "--output-format=json"] + fio_args + timing
                      + fio_pinned(pin), sampler)
    if direction == "jobs":
        # Every job's I/Os in both directions, added.
        jobs = [job[d] for job in result["jobs"] for d in ("read", "write")]
    else:
        directions = ["read", "write"] if direction == "both" else [direction]
        jobs = [result["jobs"][0][d] for d in directions]
    return {"iops": sum(j["iops"] for j in jobs), "bw": sum(j["bw_bytes"] for j in jobs),
            "device": sampler.sample}


def create_shared_file(args):
    """Has iolab write the file both tools use (sequential, O_DIRECT) and keep
    it: it then carries iolab's marker, so iolab may also overwrite it."""
    result = run_json([args.iolab, "run", "--dir", args.dir, "--op", "write", "--bs", "1m", "--size", args.size,
                       "--direct", "--keep", "--json"])
    return result["points"][0]["target"]["files"][0]


def peak_rss_kib(command):
    completed = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{completed.stderr}")
    return int(completed.stderr.strip().splitlines()[-1])


def show(metric, value):
    if metric == "iops":
        return f"{value / 1e3:,.1f}k IOPS"
    return f"{value / MIB:,.0f} MiB/s ({value / 1e6:,.0f} MB/s)"


def describe_device(row, metric, page_cache):
    """The device's account of the runs: for page-cache workloads the most
    reads it served in one run (0: the runs were from the cache); otherwise
    the medians of requests in flight and of its own rate, beside which each
    tool's figure can be checked."""
    iolab_runs = [run for run in row["iolab_device"] if run]
    fio_runs = [run for run in row["fio_device"] if run]
    if not iolab_runs or not fio_runs:
        return "not sampled: runs shorter than the sampling window needs"
    if page_cache:
        most = lambda runs: max(run["reads"] for run in runs)  # noqa: E731
        return (f"reads in the sampled windows, most in one run: iolab {most(iolab_runs)}, "
                f"fio {most(fio_runs)}")

    def account(runs):
        rate = statistics.median(run[metric] for run in runs)
        return f"{statistics.median(run['in_flight'] for run in runs):.2f} requests in flight, {show(metric, rate)}"
    return f"iolab {account(iolab_runs)}; fio {account(fio_runs)} (medians)"


def main():
    parser = argparse.ArgumentParser()
    for flag in ["--iolab", "--memcpy", "--dir", "--size", "--only", "--pin"]:
        parser.add_argument(flag, default="")
    for flag in ["--pairs", "--device-pairs", "--runtime", "--ramp", "--settle"]:
        parser.add_argument(flag, type=int)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    chosen = {int(n) for n in args.only.split(",") if n}

    print(f"bench/vs-fio: {args.pairs} pairs per workload ({args.device_pairs} for 5-7, 10 and 13), "
          f"{args.runtime} s each after a {args.ramp} s ramp and a {args.settle} s settle, "
          f"files of {args.size} in {args.dir}")
    print(f"  iolab: {subprocess.run([args.iolab, '--version'], capture_output=True, text=True).stdout.strip()}"
          f"   fio: {subprocess.run(['fio', '--version'], capture_output=True, text=True).stdout.strip()}"
          f"   kernel: {os.uname().release}   cpus: {os.cpu_count()}")
    reclaim = json.loads(subprocess.run([args.iolab, "env", "--json", "--path", args.dir], capture_output=True,
                                        text=True, check=True).stdout)["environment"].get("proactive_reclaim")
    print(f"  proactive reclaim: {'; '.join(reclaim) if reclaim else 'none found'}")
    ceiling = json.loads(subprocess.run([args.memcpy, str(1 << 30), "2"], capture_output=True, text=True,
                                        check=True).stdout)
    print("  memcpy ceiling: " + ", ".join(f"{int(bs) // KIB} KiB blocks {show('bw', rate)}"
                                           for bs, rate in ceiling.items()))
    shared_file = create_shared_file(args)
    device = block_device_of(shared_file)
    print(f"  shared file: {shared_file} (written by iolab, used by both tools), "
          f"on block device {device or 'none (not sampled)'}")
    # Both tools run the device-bound workloads on the CPUs that take the
    # disk's interrupts: where the scheduler puts the waiting thread otherwise
    # moves a QD1 figure by a third, run to run, whichever the tool.
    pin = args.pin if args.pin != "auto" else (interrupt_cpus(device) if device else None)
    print(f"  device-bound workloads 5-7, 10 and 13: I/O threads on CPU(s) {pin} (iolab --cpus, fio cpus_allowed)" if pin and pin != "none"
          else "  device-bound workloads 5-7, 10 and 13: not pinned")
    pin = None if pin == "none" else pin
    table, timing_iolab, timing_fio = workloads(args, shared_file)
    rows = []
    for number, name, metric, cached_bs, iolab_args, fio_args, direction in table:
        if chosen and number not in chosen:
            continue
        iolab_runs, fio_runs = [], []
        sampled = device if number != 1 else None  # the null engine touches no device
        pairs = args.device_pairs if number in DEVICE_BOUND else args.pairs
        throttle = ReadThrottle(device, THROTTLED_ROWS[number]) if number in THROTTLED_ROWS else None
        if throttle:
            print(f"{number}. reads of {device} limited to {throttle.iops} I/O/s for both tools "
                  f"({throttle.file} in {throttle.dir})")
        with throttle or contextlib.nullcontext():
            prefix = throttle.prefix() if throttle else ()
            for pair in range(pairs):
                cpus = pin if number in DEVICE_BOUND else None
                run_a = lambda: iolab_runs.append(  # noqa: E731
                    run_iolab(args, iolab_args, timing_iolab, sampled, cpus, prefix))
                run_b = lambda: fio_runs.append(  # noqa: E731
                    run_fio(args, fio_args, timing_fio, direction, cached_bs is not None, shared_file, sampled,
                            cpus, prefix))
                # A B, B A, A B...: which tool goes first alternates, so a drift of
                # the machine or an after-effect of the previous run hits both alike.
                for run in ((run_a, run_b) if pair % 2 == 0 else (run_b, run_a)):
                    run()
        iolab_values = [run[metric] for run in iolab_runs]
        fio_values = [run[metric] for run in fio_runs]
        ratios = [a / b for a, b in zip(iolab_values, fio_values)]
        row = {
            "workload": number, "name": name, "metric": metric,
            "iolab_median": statistics.median(iolab_values), "fio_median": statistics.median(fio_values),
            "ratio_median": statistics.median(ratios), "ratio_min": min(ratios), "ratio_max": max(ratios),
            "ratio_interval": bootstrap_median_interval(ratios),
            "iolab": iolab_values, "fio": fio_values,
            "iolab_device": [run["device"] for run in iolab_runs], "fio_device": [run["device"] for run in fio_runs],
        }
        row["met"] = verdict(row)
        if cached_bs is not None:
            rate = ceiling[str(cached_bs)]
            bandwidth = lambda v: v * cached_bs if metric == "iops" else v  # noqa: E731
            row["iolab_of_memcpy"] = bandwidth(row["iolab_median"]) / rate
            row["fio_of_memcpy"] = bandwidth(row["fio_median"]) / rate
        rows.append(row)
        print(f"\n{number}. {name}")
        print(f"   iolab median {show(metric, row['iolab_median'])}")
        print(f"   fio   median {show(metric, row['fio_median'])}")
        print(f"   iolab/fio    {row['ratio_median']:.3f} (median of {pairs} pairs; "
              f"range {row['ratio_min']:.3f}-{row['ratio_max']:.3f}; "
              f"95% interval {row['ratio_interval'][0]:.3f}-{row['ratio_interval'][1]:.3f})")
        print(f"   target       {describe_target(TARGETS[number])}: {row['met']}")
        if number in RATE_ROWS:
            asked = RATE_ROWS[number]
            row["iolab_of_rate"] = row["iolab_median"] / asked
            row["fio_of_rate"] = row["fio_median"] / asked
            print(f"   of the rate  iolab {row['iolab_of_rate']:.4f}, fio {row['fio_of_rate']:.4f} "
                  f"(medians of achieved over {asked} I/O/s asked)")
        if cached_bs is not None:
            print(f"   of memcpy    iolab {row['iolab_of_memcpy']:.0%}, fio {row['fio_of_memcpy']:.0%}")
        if sampled:
            print(f"   device       {describe_device(row, metric, cached_bs is not None)}")
    os.remove(shared_file)

    if not chosen or 1 in chosen:
        small = peak_rss_kib([args.iolab, "run", "--dir", args.dir, "--engine", "null", "--bs", "4k",
                              "--size", str(1_000_000 * 4 * KIB), "--json"])
        large = peak_rss_kib([args.iolab, "run", "--dir", args.dir, "--engine", "null", "--bs", "4k",
                              "--size", str(10_000_000 * 4 * KIB), "--json"])
        print(f"\npeak RSS, null engine: 1,000,000 I/Os {small / KIB:.1f} MiB; 10,000,000 I/Os {large / KIB:.1f} MiB "
              f"({(large - small) / small:+.1%})")
    print("\nsummary (median iolab/fio ratio, range, 95% interval of the median, target, met):")
    for row in rows:
        print(f"  {row['workload']}. {row['name']:<46} {row['ratio_median']:.3f}  "
              f"({row['ratio_min']:.3f}-{row['ratio_max']:.3f})  "
              f"[{row['ratio_interval'][0]:.3f}-{row['ratio_interval'][1]:.3f}]  "
              f"{describe_target(TARGETS[row['workload']]):<10}  {row['met']}")
    with open(os.path.join(args.dir, "vs-fio.json"), "w") as out:
        json.dump({"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows}, out, indent=1)


if __name__ == "__main__":
    main()
