"""iolab's metadata workloads against fio's file engines and fs_mark: the
driver behind bench/vs-metadata.

The same shape for every tool: FILES empty files in one directory, made,
stat'ed and removed by one thread, with the caches kept (none of the tools
drops them). Per file system (a tmpfs, and ext4 on a loop device over an
image in BENCH_DIR) and phase, PAIRS (iolab, tool) pairs in A B / B A order.

- fio 3.33: one job per phase (`ioengine=filecreate`, then `filestat`, then
  `filedelete`, `nrfiles=FILES`, `filesize=4k`, `openfiles=1`, one
  directory, `filename_format=md.$filenum` so the three jobs share their
  files), each phase's rate its own job's IOPS over its own runtime.
- iolab: `iolab run --ops create,stat,delete --items FILES --cache keep`,
  each phase's rate its point's ops/s.
- fs_mark (create only): `fs_mark -d DIR -n FILES -s 0 -S 0 -k`, its
  Files/sec (no sync, files kept; fs_mark's own directory layout).

Each tool's system calls per file come from `strace -f -c` over a whole run
of the phase, less a run of 1 file (start-up and teardown), over FILES - 1.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

PHASES = ("create", "stat", "delete")
FIO_ENGINE = {"create": "filecreate", "stat": "filestat", "delete": "filedelete"}


def run(command, **kwargs):
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


class Mounts:
    """A tmpfs and an ext4 on a loop device, made for the bench and removed after it."""

    def __init__(self, base):
        self.base = os.path.abspath(base)
        # Mount points with short paths: fs_mark takes directories of
        # fewer than 40 bytes. The ext4 image stays in BENCH_DIR, on disk.
        self.points = tempfile.mkdtemp(prefix="iolab-md", dir="/tmp")
        self.mounted = []
        self.loop = None
        tmpfs = os.path.join(self.points, "tmpfs")
        os.makedirs(tmpfs, exist_ok=True)
        run(["mount", "-t", "tmpfs", "-o", "size=1g", "tmpfs", tmpfs])
        self.mounted.append(tmpfs)
        image = os.path.join(self.base, "md-ext4.img")
        with open(image, "wb") as file:
            file.truncate(1 << 30)
        self.image = image
        self.loop = run(["losetup", "--find", "--show", image]).stdout.strip()
        run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", self.loop])
        ext4 = os.path.join(self.points, "ext4")
        os.makedirs(ext4, exist_ok=True)
        run(["mount", self.loop, ext4])
        self.mounted.append(ext4)
        self.targets = {"tmpfs": tmpfs, "ext4 (loop)": ext4}

    def close(self):
        for path in reversed(self.mounted):
            subprocess.run(["umount", path], capture_output=True)
        if self.loop:
            subprocess.run(["losetup", "--detach", self.loop], capture_output=True)
        if os.path.exists(self.image):
            os.remove(self.image)
        shutil.rmtree(self.points, ignore_errors=True)


def fio_job(directory, files):
    """fio's job file: the three phases one after another, as separate jobs."""
    # One set of names for the three jobs (fio names files by job
    # otherwise), so stat and delete work on the files create made.
    text = ["[global]", f"directory={directory}", f"nrfiles={files}", "filesize=4k",
            "openfiles=1", "thread", "filename_format=md.$filenum"]
    for phase in PHASES:
        text += [f"[{phase}]", f"ioengine={FIO_ENGINE[phase]}", "stonewall"]
    return "\n".join(text) + "\n"


def fio_rates(fio_file, prefix=()):
    out = run([*prefix, "fio", "--output-format=json", fio_file]).stdout
    jobs = json.loads(out[out.index("{"):])["jobs"]
    rates = {}
    for job in jobs:
        phase = job["jobname"]
        rates[phase] = max(job["read"]["iops"], job["write"]["iops"])
    return rates


def iolab_rates(iolab, directory, files, out_dir, prefix=()):
    output = os.path.join(out_dir, "iolab.json")
    if os.path.exists(output):
        os.remove(output)
    run([*prefix, iolab, "run", "--ops", ",".join(PHASES), "--items", str(files), "--cache", "keep",
         "--dir", directory, "--output", output])
    with open(output) as file:
        result = json.load(file)
    return {point["workload"]["op"]: point["summary"]["iops"]["mean"] for point in result["points"]}


def fs_mark_rate(directory, files, prefix=()):
    # fs_mark makes its directory itself, and refuses one that exists.
    sub = os.path.join(directory, "fs_mark")
    # fs_mark writes its log (fs_log.txt) into its working directory: one of
    # its own, removed after it, so nothing lands in the checkout.
    log_dir = tempfile.mkdtemp(prefix="fs_mark-log-")
    try:
        out = run(
            [*prefix, "fs_mark", "-d", sub, "-n", str(files), "-s", "0", "-S", "0", "-k", "-L", "1"],
            cwd=log_dir,
        ).stdout
    finally:
        shutil.rmtree(sub, ignore_errors=True)
        shutil.rmtree(log_dir, ignore_errors=True)
    # The result line: "     0        20000            0      12345.6        ..." (FSUse% Count Size Files/sec App Overhead)
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 4 and words[1] == str(files) and words[0].isdigit():
            return float(words[3])
    raise RuntimeError(f"no Files/sec in fs_mark's output:\n{out}")


def mdtest_rates(mdtest, directory, files):
    """mdtest's mean rate of file creation, stat and removal, one task
    under mpirun, FILES files in one directory (-F -C -T -r)."""
    sub = os.path.join(directory, "mdtest")
    os.makedirs(sub, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    try:
        out = run(["mpirun", "--oversubscribe", "--bind-to", "none", "-np", "1", mdtest,
                   "-n", str(files), "-F", "-C", "-T", "-r", "-d", sub], env=env).stdout
    finally:
        shutil.rmtree(sub, ignore_errors=True)
    names = {"File creation": "create", "File stat": "stat", "File removal": "delete"}
    rates = {}
    for line in out.splitlines():
        for name, phase in names.items():
            if line.strip().startswith(name):
                rates[phase] = float(line.split()[4])
    return rates


def strace_calls(command, trace):
    run(["strace", "-f", "-qq", "-c", "-o", trace, *command])
    calls = {}
    with open(trace) as file:
        for line in file:
            words = line.split()
            if len(words) >= 5 and words[3].isdigit() and not line.startswith("%"):
                calls[words[-1]] = int(words[3])
    return calls


def per_file(big, small, files):
    names = sorted(set(big) | set(small))
    per = {name: (big.get(name, 0) - small.get(name, 0)) / (files - 1) for name in names}
    return {name: round(value, 2) for name, value in per.items() if value >= 0.5}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iolab", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--tools", default="fio,fs_mark")
    parser.add_argument("--mdtest", default="", help="mdtest built from hpc/ior's source")
    args = parser.parse_args()
    tools = set(args.tools.split(","))
    if args.mdtest:
        tools.add("mdtest")
    iolab = os.path.abspath(args.iolab)
    mounts = Mounts(args.dir)
    work = tempfile.mkdtemp(dir=args.dir)
    rows = []
    try:
        for fs_name, target in mounts.targets.items():
            fio_dir = os.path.join(target, "fio")
            os.makedirs(fio_dir, exist_ok=True)
            fio_file = os.path.join(work, "phases.fio")
            with open(fio_file, "w") as file:
                file.write(fio_job(fio_dir, args.files))
            measured = {(tool, phase): [] for tool in ("iolab", "fio", "mdtest") for phase in PHASES}
            marks, iolab_creates = [], []
            for pair in range(args.pairs):
                order = (("iolab", "fio", "fs_mark", "mdtest") if pair % 2 == 0
                         else ("mdtest", "fs_mark", "fio", "iolab"))
                for tool in [t for t in order if t == "iolab" or t in tools]:
                    subprocess.run(["sync"])
                    if tool == "iolab":
                        for phase, rate in iolab_rates(iolab, target, args.files, work).items():
                            measured[("iolab", phase)].append(rate)
                    elif tool == "fio":
                        for phase, rate in fio_rates(fio_file).items():
                            measured[("fio", phase)].append(rate)
                        shutil.rmtree(fio_dir)
                        os.makedirs(fio_dir)
                    elif tool == "mdtest":
                        for phase, rate in mdtest_rates(args.mdtest, target, args.files).items():
                            measured[("mdtest", phase)].append(rate)
                    else:
                        marks.append(fs_mark_rate(target, args.files))
                iolab_creates.append(measured[("iolab", "create")][-1])
            for phase in PHASES if "fio" in tools else ():
                ours, theirs = measured[("iolab", phase)], measured[("fio", phase)]
                ratios = [a / b for a, b in zip(ours, theirs)]
                rows.append((fs_name, phase, "fio " + FIO_ENGINE[phase], statistics.median(ours),
                             statistics.median(theirs), statistics.median(ratios), min(ratios), max(ratios)))
            for phase in PHASES if "mdtest" in tools else ():
                ours, theirs = measured[("iolab", phase)], measured[("mdtest", phase)]
                ratios = [a / b for a, b in zip(ours, theirs)]
                rows.append((fs_name, phase, "mdtest -F -C -T -r", statistics.median(ours),
                             statistics.median(theirs), statistics.median(ratios), min(ratios), max(ratios)))
            if "fs_mark" in tools:
                ratios = [a / b for a, b in zip(iolab_creates, marks)]
                rows.append((fs_name, "create", "fs_mark -s 0 -S 0", statistics.median(iolab_creates),
                             statistics.median(marks), statistics.median(ratios), min(ratios), max(ratios)))
        # System calls per file, on the tmpfs.
        target = mounts.targets["tmpfs"]
        fio_dir = os.path.join(target, "fio")
        calls = {}
        for files in (args.files, 1) if "fio" in tools else ():
            with open(os.path.join(work, f"phases-{files}.fio"), "w") as file:
                file.write(fio_job(fio_dir, files))
            calls[("fio", files)] = strace_calls(
                ["fio", "--output-format=json", os.path.join(work, f"phases-{files}.fio")],
                os.path.join(work, "trace"))
            shutil.rmtree(fio_dir)
            os.makedirs(fio_dir)
            calls[("iolab", files)] = strace_calls(
                [iolab, "run", "--ops", ",".join(PHASES), "--items", str(files), "--cache", "keep",
                 "--dir", target, "--output", os.path.join(work, f"strace-{files}.json")],
                os.path.join(work, "trace"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        mounts.close()
    print(f"{args.files} empty files in one directory, one job, caches kept; "
          f"medians of {args.pairs} pairs (A B / B A)")
    print(f"{'file system':<12} {'phase':<7} {'against':<20} {'iolab ops/s':>12} {'tool ops/s':>12} "
          f"{'iolab/tool':>10} {'range':>13}")
    for fs_name, phase, tool, ours, theirs, ratio, low, high in rows:
        print(f"{fs_name:<12} {phase:<7} {tool:<20} {ours:>12.0f} {theirs:>12.0f} {ratio:>10.3f} "
              f"{low:>6.3f}–{high:<6.3f}")
    print("\nsystem calls per file over all three phases (strace -f -c, a run of "
          f"{args.files} files less a run of 1, over {args.files - 1}):")
    for tool in ("iolab", "fio") if "fio" in tools else ():
        print(f"  {tool}: {per_file(calls[(tool, args.files)], calls[(tool, 1)], args.files)}")


if __name__ == "__main__":
    sys.exit(main())
