"""This tree's iolab against an earlier commit's, side by side: the driver behind bench/vs-commit.

Runs the same iolab workloads as bench/vs-fio (its `workloads`) with both
binaries, alternating which goes first, on one shared file, and reports the
median of the per-pair ratios this/base: what a change to the hot path cost.
"""

import argparse
import statistics
import subprocess

import vs_fio


def main():
    parser = argparse.ArgumentParser()
    for flag in ["--iolab", "--base", "--base-name", "--dir", "--size", "--only"]:
        parser.add_argument(flag, default="")
    for flag in ["--pairs", "--runtime", "--ramp", "--settle"]:
        parser.add_argument(flag, type=int)
    args = parser.parse_args()
    chosen = {int(n) for n in args.only.split(",") if n}
    version = lambda binary: subprocess.run([binary, "--version"], capture_output=True,  # noqa: E731
                                            text=True).stdout.strip()
    print(f"bench/vs-commit: {args.pairs} pairs per workload, {args.runtime} s each after a "
          f"{args.ramp} s ramp, files of {args.size} in {args.dir}")
    print(f"  this: {version(args.iolab)}   base ({args.base_name}): {version(args.base)}")
    shared_file = vs_fio.create_shared_file(args)
    table, timing, _ = vs_fio.workloads(args, shared_file)
    base_args = argparse.Namespace(**{**vars(args), "iolab": args.base})
    print(f"{'workload':<46} {'this':>22} {'base':>22} {'this/base':>10} {'range':>13} {'95% interval':>15}")
    for number, name, metric, _, iolab_args, _, _ in table:
        if chosen and number not in chosen:
            continue
        this_runs, base_runs = [], []
        for pair in range(args.pairs):
            run_this = lambda: this_runs.append(  # noqa: E731
                vs_fio.run_iolab(args, iolab_args, timing, None, None)[metric])
            run_base = lambda: base_runs.append(  # noqa: E731
                vs_fio.run_iolab(base_args, iolab_args, timing, None, None)[metric])
            for run in ((run_this, run_base) if pair % 2 == 0 else (run_base, run_this)):
                run()
        ratios = [a / b for a, b in zip(this_runs, base_runs)]
        low, high = vs_fio.bootstrap_median_interval(ratios)
        print(f"{number}. {name:<43} {vs_fio.show(metric, statistics.median(this_runs)):>22} "
              f"{vs_fio.show(metric, statistics.median(base_runs)):>22} {statistics.median(ratios):>10.3f} "
              f"{min(ratios):>6.3f}-{max(ratios):<6.3f} {low:>7.3f}-{high:<7.3f}")


if __name__ == "__main__":
    main()
