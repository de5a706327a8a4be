"""iolab replay against fio's read_iolog on one generated trace, in A B / B A pairs, and the same trace as a point of `iolab run --trace` (its own file, laid out and evicted before the replay) beside them (bench/vs-replay)."""

import argparse
import json
import os
import random
import statistics
import subprocess


def generate(path, data, ios, iops, size):
    """An iolog v3 of `ios` 4 KiB random reads of `data`, evenly `iops` per second (µs stamps)."""
    rng = random.Random(1)
    blocks = size // 4096
    with open(path, "w") as out:
        out.write(f"fio version 3 iolog\n0 {data} add\n0 {data} open\n")
        for i in range(ios):
            out.write(f"{i * 1_000_000 // iops} {data} read {rng.randrange(blocks) * 4096} 4096\n")
        out.write(f"{ios * 1_000_000 // iops} {data} close\n")


def evict(path):
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)


def iolab(binary, trace, engine, data):
    args = [binary, "replay", trace, "--engine", engine, "--depth", "32"]
    if engine != "null":
        evict(data)
        args += ["--file", data]
    kept = trace + ".record.json"
    if os.path.exists(kept):
        os.remove(kept)
    out = subprocess.run(args + ["-o", kept], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"iolab failed: {out.stderr}")
    with open(kept) as record_file:
        record = json.load(record_file)
    f = record["fidelity"]
    return f["elapsed_ns"] / 1e9, f["lag"]["p50_ns"], f["lag"]["p99_ns"], f["lag"]["drift_us_per_s"]


def point(binary, trace, engine, directory):
    """The trace as a point of `iolab run` (one repetition): its replay's
    duration and issue lag, from the repetition's fidelity."""
    kept = trace + ".point.json"
    args = [binary, "run", "--trace", trace, "--engine", engine, "--dir", directory,
            "--no-report", "--progress", "never", "-o", kept]
    if engine != "null":
        args += ["--iodepth", "32", "--direct"]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"iolab run --trace failed: {out.stderr}")
    with open(kept) as record_file:
        record = json.load(record_file)
    os.remove(kept)
    f = record["points"][0]["repetitions"][0]["replay"]
    return f["elapsed_ns"] / 1e9, f["lag"]["p50_ns"], f["lag"]["p99_ns"], f["lag"]["drift_us_per_s"]


def fio_lags(prefix, trace_times_ms):
    """fio's issue lag, from its per-I/O latency log (completion time in ms,
    latency in ns): each I/O's issue = completion - latency, sorted (fio
    issues in the trace's order) and paired with the trace's times, both
    counted from the first I/O. Resolution: fio's log times are whole ms."""
    issues = []
    with open(prefix + "_lat.1.log") as log:
        for line in log:
            fields = [f.strip() for f in line.split(",")]
            issues.append(int(fields[0]) - int(fields[1]) / 1e6)
    os.remove(prefix + "_lat.1.log")
    issues.sort()
    lags = [(i - issues[0]) - (t - trace_times_ms[0]) for i, t in zip(issues, trace_times_ms)]
    n = len(lags)
    xs = [t / 1e3 for t in trace_times_ms[:n]]
    mx, my = sum(xs) / n, sum(lags) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, lags)) / sum((x - mx) ** 2 for x in xs)
    ordered = sorted(lags)
    return ordered[n // 2], ordered[int(n * 0.99)], ordered[-1], slope


def fio(trace, engine, data):
    prefix = trace + ".fio"
    args = ["fio", "--name=replay", f"--read_iolog={trace}", "--output-format=json",
            f"--write_lat_log={prefix}", "--log_avg_msec=0"]
    if engine == "null":
        args += ["--ioengine=null", "--size=256m"]
    else:
        evict(data)
        name = {"uring": "io_uring", "libaio": "libaio"}[engine]
        args += [f"--ioengine={name}", "--iodepth=32", "--direct=1"]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"fio failed: {out.stderr}")
    text = out.stdout
    job = json.loads(text[text.index("{"):])["jobs"][0]
    for kind in ["clat", "slat"]:
        if os.path.exists(f"{prefix}_{kind}.1.log"):
            os.remove(f"{prefix}_{kind}.1.log")
    return job["job_runtime"] / 1e3, job["read"]["total_ios"], prefix


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iolab", required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--ios", type=int, default=100000)
    p.add_argument("--iops", type=int, default=20000)
    a = p.parse_args()
    size = 256 << 20
    data = os.path.abspath(os.path.join(a.dir, "replay.dat"))
    if not os.path.exists(data) or os.path.getsize(data) != size:
        with open(data, "wb") as out:
            block = os.urandom(1 << 20)
            for _ in range(size >> 20):
                out.write(block)
    trace = os.path.abspath(os.path.join(a.dir, "replay.iolog"))
    generate(trace, data, a.ios, a.iops, size)
    trace_times_ms = [i * 1000 // a.iops for i in range(a.ios)]
    intended = a.ios / a.iops
    print(f"trace: {a.ios} 4 KiB random reads, {a.iops} per second: {intended:.3f} s as recorded")
    print(f"{'engine':<8} {'tool':<6} {'duration, median [range]':<30} {'error':>8}  issue lag p50 / p99 (medians)")
    for engine in os.environ.get("ENGINES", "null,uring,libaio").split(","):
        ours, theirs, lags, fio_lag = [], [], [], []
        points, point_lags = [], []
        for pair in range(a.pairs):
            order = ["iolab", "fio", "point"] if pair % 2 == 0 else ["point", "fio", "iolab"]
            for tool in order:
                if tool == "iolab":
                    seconds, p50, p99, drift = iolab(a.iolab, trace, engine, data)
                    ours.append(seconds)
                    lags.append((p50, p99, drift))
                elif tool == "point":
                    seconds, p50, p99, drift = point(a.iolab, trace, engine, a.dir)
                    points.append(seconds)
                    point_lags.append((p50, p99, drift))
                else:
                    seconds, n, prefix = fio(trace, engine, data)
                    if n != a.ios:
                        raise SystemExit(f"fio replayed {n} of {a.ios} I/Os")
                    theirs.append(seconds)
                    fio_lag.append(fio_lags(prefix, trace_times_ms))
        for tool, runs in [("iolab", ours), ("point", points), ("fio", theirs)]:
            median = statistics.median(runs)
            lag = ""
            if tool in ("iolab", "point"):
                kept = lags if tool == "iolab" else point_lags
                lag = (f"{statistics.median(l[0] for l in kept) / 1e3:.1f} µs / "
                       f"{statistics.median(l[1] for l in kept) / 1e3:.1f} µs, drift "
                       f"{statistics.median(l[2] for l in kept):+.2f} µs/s")
            else:
                med = lambda k: statistics.median(l[k] for l in fio_lag)
                lag = (f"{med(0):.0f} ms / {med(1):.0f} ms, max {med(2):.0f} ms, drift {med(3):+.1f} ms/s "
                       "(fio prints none: from its latency log, whole ms)")
            print(f"{engine:<8} {tool:<6} {median:.3f} s [{min(runs):.3f}–{max(runs):.3f}]{'':<9} "
                  f"{100 * (median - intended) / intended:+7.2f}%  {lag}")


if __name__ == "__main__":
    main()
