"""Each study's own tool against iolab on the same work: the driver behind bench/agreement.

Timed comparisons run as A B / B A pairs, so slow drifts of this shared
machine hit both tools alike, and report the median of the per-pair ratios
iolab/tool with their range. Counts (requests and bytes per layer of a device
stack) are exact and reported as differences. The findings, figures filled in
from this run, are written to docs/agreement.md.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import time

MIB = 1 << 20


def sh(args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


class Bench:
    def __init__(self, args):
        self.iolab = os.path.abspath(args.iolab)
        self.study = os.path.abspath(args.study_program)
        self.dir = os.path.abspath(args.dir)
        self.pairs = args.pairs
        self.size = args.size
        self.odirect_bytes = args.odirect_bytes
        self.sections = []
        self.counter = 0
        os.makedirs(self.dir, exist_ok=True)

    # ---- running iolab -------------------------------------------------

    def iolab_run(self, *flags, directory=None):
        """One `iolab run` with its result as JSON; returns the first point."""
        self.counter += 1
        out = os.path.join(self.dir, f"iolab-{self.counter}.json")
        place = [] if "--file" in flags else ["--dir", directory or self.scratch]
        sh([self.iolab, "run", *place, "--repeat", "1", "-o", out, *flags])
        with open(out) as f:
            result = json.load(f)
        os.remove(out)
        return result["points"][0]

    @staticmethod
    def elapsed_s(point):
        return point["repetitions"][-1]["elapsed_ns"] / 1e9

    def pairs_of(self, tool, ours):
        """Runs (tool, ours) and (ours, tool) alternately; returns [(tool, ours)]."""
        figures = []
        for pair in range(self.pairs):
            if pair % 2 == 0:
                a = tool()
                b = ours()
            else:
                b = ours()
                a = tool()
            figures.append((a, b))
        return figures

    @staticmethod
    def ratio_text(figures):
        ratios = [ours / tool for tool, ours in figures]
        return (f"{statistics.median(ratios):.3f}", f"{min(ratios):.3f}–{max(ratios):.3f}")

    # ---- CLOSER 2011: dd ------------------------------------------------

    def dd(self):
        count = self.size // MIB
        dd_file = os.path.join(self.scratch, "dd.out")

        def dd_time(*args):
            size = [] if any(a.startswith("bs=") for a in args) else ["bs=1M"]
            done = sh(["dd", *args, *size])
            seconds = re.search(r"copied, ([0-9.e+-]+) s", done.stderr)
            return float(seconds.group(1))

        def drop(path):
            sh(["dd", f"if={path}", "iflag=nocache", "count=0", "status=none"])

        def fresh_write(*flag):
            if os.path.exists(dd_file):
                os.remove(dd_file)
            return dd_time("if=/dev/zero", f"of={dd_file}", f"count={count}", *flag)

        def lay_out():
            # As iolab lays out the file it reads: written just before,
            # synced, and dropped from the page cache (untimed), so both
            # tools read a file in the same state, in this machine and in
            # any cache below it.
            fresh_write("conv=fsync")
            drop(dd_file)

        size = f"{self.size}"
        modes = [
            ("write (buffered, no sync)", lambda: fresh_write(),
             lambda: self.elapsed_s(self.iolab_run("--op", "write", "--bs", "1m", "--size", size))),
            ("O_DIRECT write", lambda: fresh_write("oflag=direct"),
             lambda: self.elapsed_s(self.iolab_run("--op", "write", "--direct", "--bs", "1m", "--size", size))),
            ("O_DIRECT read", lambda: (lay_out(), dd_time(f"if={dd_file}", "of=/dev/null", "iflag=direct"))[1],
             lambda: self.elapsed_s(self.iolab_run("--op", "read", "--direct", "--bs", "1m", "--size", size))),
            ("read (cold cache)", lambda: (lay_out(), dd_time(f"if={dd_file}", "of=/dev/null"))[1],
             lambda: self.elapsed_s(self.iolab_run("--op", "read", "--bs", "1m", "--size", size))),
        ]
        rows = []
        for name, tool, ours in modes:
            figures = self.pairs_of(tool, ours)
            median, spread = self.ratio_text(figures)
            rows.append((name, statistics.median(t for t, _ in figures), statistics.median(o for _, o in figures), median, spread))
            print(f"dd  {name:28} dd {rows[-1][1]:.4f} s  iolab {rows[-1][2]:.4f} s  iolab/dd {median} ({spread})", flush=True)
        if os.path.exists(dd_file):
            os.remove(dd_file)
        # The cache below this machine: on a freshly written file, what the
        # disk gives O_DIRECT with 16 MiB requests, then a cold buffered read.
        probe = []
        for _ in range(3):
            lay_out()
            direct = dd_time(f"if={dd_file}", "of=/dev/null", "iflag=direct", "bs=16M")
            drop(dd_file)
            probe.append((direct, dd_time(f"if={dd_file}", "of=/dev/null")))
        self.below = [(self.size / a / 1e9, self.size / b / 1e9) for a, b in probe]
        print("dd  O_DIRECT then cold buffered, GB/s: "
              + ", ".join(f"{a:.2f} then {b:.2f}" for a, b in self.below), flush=True)
        if os.path.exists(dd_file):
            os.remove(dd_file)
        # dd's own extra work: every block is read from /dev/zero first.
        self.zero_read_s = statistics.median(
            dd_time("if=/dev/zero", "of=/dev/null", f"count={count}") for _ in range(5))
        print(f"dd  reading {count} MiB from /dev/zero alone: {self.zero_read_s:.4f} s", flush=True)
        self.sections.append(("dd", rows))

    # ---- CLOSER 2011 in a guest: dd and iolab on the guest's raw disk ----

    def guest_dd(self):
        """The study's experiment 3: dd on the guest's empty disk (its
        /dev/xvda2; here the raw virtio disk of `--guest raw=on`, as the
        closer-2011 preset's guest points use it), against `iolab run` on
        the same device, both started in the guest by `iolab guest exec`.
        The guest boots once on netlab's tap (KVM where it runs, else TCG)."""
        netns, tap = "iolab-agreement", "iolab-agr0"
        subprocess.run(["scripts/netlab", "stop", "--name", netns], capture_output=True)
        sh(["scripts/netlab", "start", "--name", netns, "--tap", tap])
        guest_dir = os.path.join(self.dir, "guest")
        os.makedirs(guest_dir, exist_ok=True)
        up = subprocess.Popen(
            ["ip", "netns", "exec", netns, self.iolab, "guest", "up", "--guest", f"tap={tap},raw=on",
             "--dir", guest_dir, "--size", f"{self.size // MIB + 64}m"],
            stderr=subprocess.PIPE, text=True)
        said = []
        try:
            address = None
            for line in up.stderr:
                said.append(line)
                found = re.search(r"up at ([0-9.]+): .*?(/dev/\S+) \(none \(raw device\)\)", line)
                if found:
                    address, device = found.group(1), found.group(2)
                    self.guest_said = line.strip()
                    break
            if address is None:
                raise SystemExit("guest up did not come up:\n" + "".join(said))

            def in_guest(command):
                return sh(["ip", "netns", "exec", netns, self.iolab, "guest", "exec", address, command]).stdout

            count = self.size // MIB

            def dd_time(*args):
                out = in_guest(" ".join(["dd", *args, "bs=1M", f"count={count}"]) + " 2>&1")
                return float(re.search(r"copied, ([0-9.e+-]+) s", out).group(1))

            def ours(*flags):
                self.counter += 1
                result = f"/tmp/iolab-{self.counter}.json"
                consent = ["--destroy-data", device] if "rewrite" in flags else []
                out = in_guest(" ".join([self.iolab, "run", "--file", device, *consent,
                                         "--bs", "1m", "--size", f"{count}m", "--repeat", "1",
                                         "-o", result, *flags]) + f" >/dev/null 2>&1 && cat {result}")
                return self.elapsed_s(json.loads(out)["points"][0])

            modes = [
                ("write (buffered, no sync)", lambda: dd_time("if=/dev/zero", f"of={device}"),
                 lambda: ours("--op", "rewrite")),
                ("O_DIRECT write", lambda: dd_time("if=/dev/zero", f"of={device}", "oflag=direct"),
                 lambda: ours("--op", "rewrite", "--direct")),
                ("O_DIRECT read", lambda: dd_time(f"if={device}", "of=/dev/null", "iflag=direct"),
                 lambda: ours("--op", "read", "--direct")),
            ]
            rows = []
            for name, tool, mine in modes:
                figures = self.pairs_of(tool, mine)
                median, spread = self.ratio_text(figures)
                rows.append((name, statistics.median(t for t, _ in figures),
                             statistics.median(o for _, o in figures), median, spread))
                print(f"guest dd  {name:28} dd {rows[-1][1]:.4f} s  iolab {rows[-1][2]:.4f} s  "
                      f"iolab/dd {median} ({spread})", flush=True)
            # dd's own extra work in the guest: every block read from /dev/zero.
            self.guest_zero_read_s = statistics.median(
                dd_time("if=/dev/zero", "of=/dev/null") for _ in range(3))
            print(f"guest dd  reading {count} MiB from /dev/zero alone: {self.guest_zero_read_s:.4f} s", flush=True)
            self.guest_device = device
            self.sections.append(("guest_dd", rows))
        finally:
            if up.poll() is None:
                up.terminate()
                up.wait()
            subprocess.run(["scripts/netlab", "stop", "--name", netns], capture_output=True)

    # ---- Varlyakov 2013: iostat and atop on dd bs=8k --------------------

    def stack(self):
        """dd bs=8k on ext4 on a loop device (O_DIRECT to its image) on the
        machine's disk. This kernel has no device-mapper, so the study's LVM
        layer cannot be built; atop does not list loop devices."""
        image = os.path.join(self.dir, "stack.img")
        mount = os.path.join(self.dir, "stack-mnt")
        with open(image, "wb") as f:
            f.truncate(1024 * MIB)
        loop = sh(["losetup", "--find", "--show", "--direct-io=on", image]).stdout.strip()
        try:
            sh(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", loop])
            os.makedirs(mount, exist_ok=True)
            sh(["mount", loop, mount])
            try:
                rows = [self.stack_once(mount, loop, run) for run in range(self.pairs)]
            finally:
                sh(["umount", mount])
        finally:
            subprocess.run(["losetup", "--detach", loop], capture_output=True)
            os.remove(image)
        self.sections.append(("stack", rows))

    @staticmethod
    def iostat_kib():
        """kB_read and kB_wrtn per device since boot, by iostat's name (-N: dm names)."""
        out = sh(["iostat", "-d", "-k", "-N"]).stdout.splitlines()
        header = next(i for i, line in enumerate(out) if line.startswith("Device"))
        columns = out[header].split()
        table = {}
        for line in out[header + 1:]:
            fields = line.split()
            if len(fields) == len(columns):
                row = dict(zip(columns, fields))
                table[row["Device"]] = (int(row["kB_read"]), int(row["kB_wrtn"]))
        return table

    def stack_once(self, mount, loop, run):
        count = self.size // 8192
        target = os.path.join(mount, "ddfile")
        if os.path.exists(target):
            os.remove(target)
        sh(["sync"])
        time.sleep(1)
        atop_log = os.path.join(self.dir, "atop.txt")
        with open(atop_log, "w") as log:
            atop = subprocess.Popen(["atop", "-P", "DSK", "1"], stdout=log, stderr=subprocess.DEVNULL)
        # The first sample counts since boot; the run starts after it.
        while open(atop_log).read().count("SEP") < 1:
            time.sleep(0.05)
        before = self.iostat_kib()
        # The result goes to memory: written to the disk, it would add its
        # own writes to iostat's and atop's windows after iolab's closed.
        result_path = os.path.join("/dev/shm", f"iolab-agreement-{os.getpid()}-{run}.json")
        if os.path.exists(result_path):
            os.remove(result_path)
        sh([self.iolab, "measure", "--path", mount, "-o", result_path, "--",
            "dd", "if=/dev/zero", f"of={target}", "bs=8k", f"count={count}", "conv=fsync"])
        after = self.iostat_kib()
        samples_then = open(atop_log).read().count("SEP")
        while open(atop_log).read().count("SEP") < samples_then + 2:
            time.sleep(0.05)
        atop.terminate()
        atop.wait()
        with open(result_path) as f:
            measured = json.load(f)["measurements"][0]["runs"][0]
        os.remove(result_path)
        atop_counts = {}
        seen_reset = False
        for line in open(atop_log):
            fields = line.split()
            if fields[:1] == ["SEP"]:
                seen_reset = True
                continue
            if not seen_reset or fields[0] != "DSK":
                continue
            device = fields[6]
            writes, sectors = int(fields[10]), int(fields[11])
            w, s = atop_counts.get(device, (0, 0))
            atop_counts[device] = (w + writes, s + sectors * 512)
        os.remove(atop_log)
        loop_name = os.path.basename(loop)
        layers = []
        for device in measured["activity"]["devices"]:
            kernel = device["name"]
            iostat_bytes = (after.get(kernel, (0, 0))[1] - before.get(kernel, (0, 0))[1]) * 1024
            atop_w, atop_b = atop_counts.get(kernel, (None, None))
            layers.append({
                "layer": f"{kernel} (loop)" if kernel == loop_name else kernel,
                "iolab_writes": device["writes"], "iolab_bytes": device["write_bytes"],
                "iostat_bytes": iostat_bytes, "atop_writes": atop_w, "atop_bytes": atop_b,
            })
        app = measured["process_io"]["write_calls"]
        for layer in layers:
            print(f"stack run {run}: {layer['layer']:9} iolab {layer['iolab_writes']} writes {layer['iolab_bytes']} B; "
                  f"iostat {layer['iostat_bytes']} B; atop {layer['atop_writes']} writes {layer['atop_bytes']} B; "
                  f"application {app} writes", flush=True)
        return {"app_writes": app, "layers": layers}

    # ---- I/O Measurements 2017: the study's program ---------------------

    def odirect(self):
        chunks = self.odirect_bytes // 131072
        size = str(chunks * 131072)
        laid = self.iolab_run("--op", "write", "--bs", "1m", "--size", size, "--keep", "--fsync-end")
        path = laid["target"]["files"][0]
        rows = []
        try:
            for op, flag in [("read", "simple"), ("read", "direct"), ("write", "simple"), ("write", "direct")]:
                def tool():
                    out = sh([self.study, op, flag, path, str(chunks), "1", str(self.counter)]).stdout
                    return float(out.split()[0])

                def ours():
                    flags = ["--file", path, "--op", "read" if op == "read" else "rewrite", "--pattern", "uniform",
                             "--bs", "128k", "--size", size, "--sync", "osync", "--cache", "keep"]
                    if flag == "direct":
                        flags.append("--direct")
                    return self.elapsed_s(self.iolab_run(*flags))

                figures = self.pairs_of(tool, ours)
                median, spread = self.ratio_text(figures)
                rows.append((f"{op} {flag}", statistics.median(t for t, _ in figures),
                             statistics.median(o for _, o in figures), median, spread))
                print(f"odirect {op} {flag:6} program {rows[-1][1]:.3f} s  iolab {rows[-1][2]:.3f} s  "
                      f"iolab/program {median} ({spread})", flush=True)
        finally:
            os.remove(path)
        self.sections.append(("odirect", rows))

    # ---- fio numjobs ----------------------------------------------------

    def fio(self):
        size = f"{self.size // 4 // MIB}m"
        rows = []
        for direct in (False, True):
            fio_json = os.path.join(self.dir, "fio.json")

            def tool():
                sh(["fio", "--name=agree", f"--directory={self.scratch}", "--rw=read", "--bs=1m", f"--size={size}",
                    "--numjobs=4", "--group_reporting", "--ioengine=psync", f"--direct={int(direct)}",
                    "--output-format=json", f"--output={fio_json}"])
                with open(fio_json) as f:
                    return json.load(f)["jobs"][0]["read"]["bw_bytes"]

            def ours():
                flags = ["--op", "read", "--jobs", "4", "--bs", "1m", "--size", size, "--engine", "psync"]
                if direct:
                    flags.append("--direct")
                return self.iolab_run(*flags)["summary"]["throughput_bps"]["mean"]

            figures = self.pairs_of(tool, ours)
            imported = os.path.join(self.dir, "fio-imported.json")
            if os.path.exists(imported):
                os.remove(imported)
            sh([self.iolab, "import", fio_json, "-o", imported])
            with open(imported) as f:
                points = json.load(f)["points"]
            shape = f"{len(points)} point, jobs {points[0]['workload']['jobs']}"
            os.remove(imported)
            os.remove(fio_json)
            for name in os.listdir(self.scratch):
                if name.startswith("agree."):
                    os.remove(os.path.join(self.scratch, name))
            median, spread = self.ratio_text(figures)
            label = "O_DIRECT" if direct else "buffered, cold"
            rows.append((label, statistics.median(t for t, _ in figures) / MIB,
                         statistics.median(o for _, o in figures) / MIB, median, spread, shape))
            print(f"fio numjobs=4 read {label:15} fio {rows[-1][1]:.0f} MiB/s  iolab {rows[-1][2]:.0f} MiB/s  "
                  f"iolab/fio {median} ({spread}); imported: {shape}", flush=True)
        self.sections.append(("fio", rows))

    @property
    def scratch(self):
        path = os.path.join(self.dir, "scratch")
        os.makedirs(path, exist_ok=True)
        return path


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iolab", required=True)
    parser.add_argument("--study-program", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--size", type=int, default=256 * MIB)
    parser.add_argument("--odirect-bytes", type=int, default=256 * MIB)
    parser.add_argument("--only", default="dd,guest_dd,stack,odirect,fio")
    parser.add_argument("--docs", default="docs/agreement.md")
    args = parser.parse_args()
    bench = Bench(args)
    for part in args.only.split(","):
        getattr(bench, part)()
    if args.docs:
        import agreement_doc  # beside this file
        kept = agreement_doc.kept_part(args.docs)
        with open(args.docs + ".tmp", "w") as f:
            f.write(agreement_doc.render(bench, args) + kept)
        os.replace(args.docs + ".tmp", args.docs)
        print(f"wrote {args.docs}")
    shutil.rmtree(bench.scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
