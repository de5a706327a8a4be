"""iolab's network engines against the client libraries' own tools, side by
side on the same servers: the driver behind bench/vs-netlib.

The servers are scripts/netlab's (nfs-ganesha and tgtd in a network
namespace of their own, loopback at MTU 1500). Each workload runs PAIRS
times as an (iolab, tool) pair in A B / B A order, so slow drifts of this
shared machine hit both alike; reported are each one's median, the median
of the per-pair ratios iolab/tool with their range and a bootstrap 95%
interval, and the CPU the server and the client used, so a reader sees who
is the limit.

- iSCSI reads: libiscsi's iscsi-perf (READ(16) of 8 blocks = 4 KiB,
  sequential, -m commands in flight, its own "iops average" over -t
  seconds) against `iolab run --target iscsi://… --op read --bs 4k
  --iodepth N --runtime T`: both count from their first command to the end.
- NFS sequential 1 MiB transfers: libnfs's nfs-cp (a synchronous 1 MiB
  nfs_pwrite or nfs_pread at a time) against `iolab run --target nfs://…
  --bs 1m`, queue depth 1. nfs-cp prints no time of its own; its rate is
  taken by differential timing: the wall time of copying BIG minus that of
  copying SMALL, over the BIG − SMALL bytes, which removes its start, mount,
  create and close. iolab's is its timed region. libnfs commits a file it
  wrote UNSTABLE when nfs-cp closes it (nfs3_close_async: COMMIT when
  dirty), so nfs-cp's time includes the data reaching the server's disk,
  and iolab's writes run with --fsync-end (a COMMIT inside its timed region).
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

MIB = 1024 * 1024
TICKS = os.sysconf("SC_CLK_TCK")
# With --pin: the prefix that puts a tool on CPU 1, and iolab's flag for it.
CLIENT = []
PIN = []


def bootstrap_median_interval(ratios, rounds=10_000, seed=1):
    """95% percentile-bootstrap interval of the median of `ratios`."""
    generator = random.Random(seed)
    medians = sorted(statistics.median(generator.choices(ratios, k=len(ratios))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]


def cpu_seconds(pid):
    """User + system CPU seconds of process `pid` and all its threads so far."""
    with open(f"/proc/{pid}/stat") as file:
        after_name = file.read().rsplit(")", 1)[1].split()
    return (int(after_name[11]) + int(after_name[12])) / TICKS


class Lab:
    """scripts/netlab's servers, started for the bench and stopped after it."""

    def __init__(self, root, lun_size):
        self.name = "iolab-bench"
        self.dir = "/tmp/iolab-bench"
        self.root = root
        subprocess.run([f"{root}/scripts/netlab", "stop", "--name", self.name, "--dir", self.dir],
                       capture_output=True)
        started = subprocess.run(
            [f"{root}/scripts/netlab", "start", "--name", self.name, "--dir", self.dir,
             "--lun-size", lun_size], capture_output=True, text=True, check=True)
        values = dict(line.split("=", 1) for line in started.stdout.splitlines() if "=" in line)
        self.nfs, self.iscsi, self.export = values["nfs"], values["iscsi"], values["export"]
        self.pids = {server: int(open(f"{self.dir}/{server}.pid").read())
                     for server in ("ganesha", "tgtd")}

    def pin_servers(self, cpu):
        """Puts every thread of the servers on `cpu`, so the clients have the other."""
        for pid in self.pids.values():
            subprocess.run(["taskset", "-a", "-p", "-c", str(cpu), str(pid)], capture_output=True, check=True)

    def command(self, *args):
        return ["ip", "netns", "exec", self.name, *args]

    def stop(self):
        subprocess.run([f"{self.root}/scripts/netlab", "stop", "--name", self.name, "--dir", self.dir],
                       capture_output=True)


def timed(lab, server, args):
    """Runs `args` in the lab; returns (stdout, wall seconds, server CPU
    seconds, client CPU seconds)."""
    before_children = os.times()
    server_before = cpu_seconds(lab.pids[server])
    start = time.monotonic()
    done = subprocess.run(lab.command(*args), capture_output=True, text=True)
    wall = time.monotonic() - start
    server_cpu = cpu_seconds(lab.pids[server]) - server_before
    after_children = os.times()
    client_cpu = (after_children.children_user - before_children.children_user
                  + after_children.children_system - before_children.children_system)
    if done.returncode != 0:
        sys.exit(f"bench/vs-netlib: {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout, wall, server_cpu, client_cpu


def iolab_rate(lab, server, iolab, args):
    """iolab's throughput (bytes/s) and IOPS over its timed region, with the
    server's and the I/O threads' CPU as fractions of one core over that region."""
    out, wall, server_cpu, _ = timed(lab, server, [iolab, "run", *args, *PIN, "--json"])
    repetition = json.loads(out)["points"][0]["repetitions"][0]
    elapsed = repetition["elapsed_ns"] / 1e9
    return {
        "bps": repetition["throughput_bps"], "iops": repetition["iops"],
        # The server's CPU over the whole command, which is longer than the
        # timed region: an upper bound of its share then.
        "server": server_cpu / wall, "client": repetition["cpu"]["utilization"], "elapsed": elapsed,
    }


def iscsi_perf_rate(lab, depth, runtime):
    """iscsi-perf's own average over its run, and CPU shares over the wall time."""
    out, wall, server_cpu, client_cpu = timed(
        lab, "tgtd", [*CLIENT, "iscsi-perf", "-m", str(depth), "-b", "8", "-t", str(runtime), lab.iscsi])
    final = [line for line in out.replace("\r", "\n").splitlines() if line.startswith("iops average")]
    iops = int(final[-1].split()[2])
    return {"bps": iops * 4096, "iops": iops, "server": server_cpu / wall, "client": client_cpu / wall}


COPIES = iter(range(1_000_000))


def nfs_cp_rate(lab, direction, small, big, scratch):
    """nfs-cp's rate by differential timing of a SMALL and a BIG copy."""
    walls, server, client = [], 0.0, 0.0
    for size in (small, big):
        # A new name each time: nfs-cp creates exclusively, and a file
        # removed behind ganesha's back stays in its cache of the directory.
        name = f"cp-{next(COPIES)}.dat"
        if direction == "write":
            source, destination = f"{scratch}/source-{size}", f"{lab.nfs.split('?')[0]}/{name}"
        else:
            source, destination = f"{lab.nfs.split('?')[0]}/src-{size}.dat", f"{scratch}/{name}"
        _, wall, server_cpu, client_cpu = timed(lab, "ganesha", [*CLIENT, "nfs-cp", source, destination])
        walls.append(wall)
        server, client = server + server_cpu, client + client_cpu
        os.remove(f"{lab.export}/{name}" if direction == "write" else f"{scratch}/{name}")
    seconds = walls[1] - walls[0]
    return {"bps": (big - small) * MIB / seconds, "iops": (big - small) / seconds,
            "server": server / sum(walls), "client": client / sum(walls)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iolab", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--runtime", type=int, default=5)
    parser.add_argument("--small", type=int, default=64, help="MiB")
    parser.add_argument("--big", type=int, default=320, help="MiB")
    parser.add_argument("--only", default="1,2,3,4")
    parser.add_argument("--pin", action="store_true",
                        help="servers on CPU 0, clients on CPU 1 (less noise on a 2-core machine)")
    args = parser.parse_args()
    only = {int(x) for x in args.only.split(",")}
    scratch = "/dev/shm/iolab-bench-netlib"
    os.makedirs(scratch, exist_ok=True)
    lab = Lab(args.root, f"{args.big}M")
    # Pinned, each client runs alone on CPU 1: iolab's I/O thread with
    # --cpus, the tools under taskset.
    CLIENT.extend(["taskset", "-c", "1"] if args.pin else [])
    PIN.extend(["--cpus", "1"] if args.pin else [])
    try:
        if args.pin:
            lab.pin_servers(0)
        # Sources for nfs-cp: local files to write from, and files on the
        # export to read (laid out through the export's directory).
        for size in (args.small, args.big):
            with open(f"{scratch}/source-{size}", "wb") as file:
                file.write(os.urandom(MIB) * size)
            with open(f"{lab.export}/src-{size}.dat", "wb") as file:
                file.write(os.urandom(MIB) * size)
        size = f"{args.big}m"
        runtime = f"{args.runtime}s"
        workloads = {
            1: ("iSCSI 4 KiB sequential reads, 16 in flight", "IOPS",
                lambda: iolab_rate(lab, "tgtd", args.iolab, [
                    "--target", lab.iscsi, "--op", "read", "--bs", "4k", "--size", size,
                    "--iodepth", "16", "--runtime", runtime, "--ramp", "0s"]),
                lambda: iscsi_perf_rate(lab, 16, args.runtime), "iscsi-perf -m 16 -b 8"),
            2: ("iSCSI 4 KiB sequential reads, 1 in flight", "IOPS",
                lambda: iolab_rate(lab, "tgtd", args.iolab, [
                    "--target", lab.iscsi, "--op", "read", "--bs", "4k", "--size", size,
                    "--iodepth", "1", "--runtime", runtime, "--ramp", "0s"]),
                lambda: iscsi_perf_rate(lab, 1, args.runtime), "iscsi-perf -m 1 -b 8"),
            3: ("NFS 1 MiB sequential writes, 1 in flight", "MiB/s",
                lambda: iolab_rate(lab, "ganesha", args.iolab, [
                    "--target", lab.nfs, "--op", "write", "--bs", "1m", "--size", size, "--fsync-end"]),
                lambda: nfs_cp_rate(lab, "write", args.small, args.big, scratch), "nfs-cp local → nfs://"),
            4: ("NFS 1 MiB sequential reads, 1 in flight", "MiB/s",
                lambda: iolab_rate(lab, "ganesha", args.iolab, [
                    "--target", lab.nfs, "--op", "read", "--bs", "1m", "--size", size]),
                lambda: nfs_cp_rate(lab, "read", args.small, args.big, scratch), "nfs-cp nfs:// → tmpfs"),
        }
        print(f"| # | workload | tool | iolab | tool | iolab/tool median (range) [95% CI] "
              f"| server CPU iolab / tool | client CPU iolab / tool |")
        print("|---|---|---|---:|---:|---|---|---|")
        for number in sorted(only):
            name, unit, ours, theirs, tool = workloads[number]
            pairs = []
            for index in range(args.pairs):
                order = (ours, theirs) if index % 2 == 0 else (theirs, ours)
                first, second = order[0](), order[1]()
                pairs.append((first, second) if index % 2 == 0 else (second, first))
            figure = (lambda r: r["iops"]) if unit == "IOPS" else (lambda r: r["bps"] / MIB)
            ratios = [figure(a) / figure(b) for a, b in pairs]
            low, high = bootstrap_median_interval(ratios)
            median = statistics.median
            print(f"| {number} | {name} | {tool} | {median(figure(a) for a, _ in pairs):,.0f} {unit} "
                  f"| {median(figure(b) for _, b in pairs):,.0f} {unit} "
                  f"| {median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) [{low:.3f}-{high:.3f}] "
                  f"| {median(a['server'] for a, _ in pairs):.0%} / {median(b['server'] for _, b in pairs):.0%} "
                  f"| {median(a['client'] for a, _ in pairs):.0%} / {median(b['client'] for _, b in pairs):.0%} |",
                  flush=True)
    finally:
        lab.stop()
        subprocess.run(["rm", "-rf", scratch])


if __name__ == "__main__":
    main()
