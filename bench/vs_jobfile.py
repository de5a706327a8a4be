"""One fio job file, run by fio and by iolab: the driver behind bench/vs-jobfile.

Each pair runs the job file with both tools, in A B / B A order so slow
drifts of this shared machine hit both alike; between runs the files of
the previous run are removed (fio leaves its own; iolab removes its own)
and the page cache is written back. Per group (fio: per job name, its
numjobs clones added; iolab: the group of that name) the median IOPS and
p99 completion latency of each tool, and the median of the per-pair ratios
iolab/fio with their range.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile


def run(command):
    completed = subprocess.run(command, capture_output=True, text=True)
    if completed.returncode != 0:
        sys.exit(f"failed ({completed.returncode}): {' '.join(command)}\n{completed.stderr}")
    return completed.stdout


def clean(directory):
    """fio's files (named JOB.N.M) are removed; iolab removes its own."""
    for name in os.listdir(directory):
        if name.count(".") >= 2 and not name.startswith("iolab"):
            os.remove(os.path.join(directory, name))
    os.sync()


def by_fio(job, directory):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        run(["fio", job, "--output-format=json", f"--output={out.name}"])
        document = json.load(open(out.name))
    clean(directory)
    groups = {}
    for entry in document["jobs"]:
        group = groups.setdefault(entry["jobname"], {"iops": 0.0, "p99": 0})
        for direction in ("read", "write"):
            data = entry[direction]
            group["iops"] += data["iops"]
            p99 = data.get("clat_ns", {}).get("percentile", {}).get("99.000000", 0)
            group["p99"] = max(group["p99"], p99)
    return groups


def by_iolab(iolab, job, directory):
    with tempfile.TemporaryDirectory() as out:
        result = os.path.join(out, "r.json")
        run([iolab, "run", job, "-o", result, "--progress", "never"])
        document = json.load(open(result))
    clean(directory)
    groups = {}
    for point in document["points"]:
        for group in point["groups"]:
            repetition = group["repetitions"][0]
            latency = repetition.get("latency_ns") or {}
            p99 = next((p["value"] for p in latency.get("percentiles", []) if p["percentile"] == 99.0), 0)
            groups[group["label"]] = {"iops": repetition["iops"], "p99": p99}
    return groups


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iolab", required=True)
    parser.add_argument("--job", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    version = run(["fio", "--version"]).strip()
    print(f"bench/vs-jobfile: {args.job}, {args.pairs} pairs; {version}; "
          f"{run([args.iolab, '--version']).strip()}; SIZE={os.environ.get('SIZE')} "
          f"RUNTIME={os.environ.get('RUNTIME')} s in {args.dir}")
    runs = {"fio": [], "iolab": []}
    for pair in range(args.pairs):
        order = ["iolab", "fio"] if pair % 2 == 0 else ["fio", "iolab"]
        for tool in order:
            figures = by_iolab(args.iolab, args.job, args.dir) if tool == "iolab" else by_fio(args.job, args.dir)
            runs[tool].append(figures)
    print(f"\n{'group':<10} {'fio IOPS':>12} {'iolab IOPS':>12} {'ratio':>7} {'range':>13}"
          f" {'fio p99':>10} {'iolab p99':>10}")
    for group in runs["iolab"][0]:
        fio = [r[group] for r in runs["fio"]]
        ours = [r[group] for r in runs["iolab"]]
        ratios = [o["iops"] / f["iops"] for o, f in zip(ours, fio) if f["iops"]]
        median = lambda values: statistics.median(values)
        print(f"{group:<10} {median([f['iops'] for f in fio]):>12,.1f} {median([o['iops'] for o in ours]):>12,.1f}"
              f" {median(ratios):>7.3f} {min(ratios):>6.3f}-{max(ratios):<6.3f}"
              f" {median([f['p99'] for f in fio]) / 1e3:>8.1f}µs {median([o['p99'] for o in ours]) / 1e3:>8.1f}µs")


if __name__ == "__main__":
    main()
