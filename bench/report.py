#!/usr/bin/env python3
"""Prints the benchmarks' ratios: per workload the time per element, the ratio
to memcpy of the same value bytes and to the workload's baseline, all measured
in the same run (medians of interleaved repetitions).

Each SOURCE is a benchmark binary, run now, or the JSON of an earlier run (a
file ending in .json, as --save writes it or Google Benchmark's
--benchmark_format=json prints it). For bench_highway it also prints the
summary the README's Performance table is made of: ours x memcpy and ours x
the best Highway loop per workload, and their geometric means. With --ranges,
several runs of bench_highway on one CPU become that table's cells: the range
of each ratio over the runs.

  report.py build/bench/bench_kernel build/bench/bench_dense
  report.py --save runs/1 build/bench/bench_highway
  report.py --ranges runs/*/bench_highway.json
  report.py build/bench/bench_highway -- --benchmark_filter=density_0.5
"""
import argparse
import json
import math
import re
import os
import subprocess
import sys

FLAGS = ["--benchmark_format=json", "--benchmark_repetitions=5",
         "--benchmark_enable_random_interleaving=true",
         "--benchmark_report_aggregates_only=true", "--benchmark_min_time=0.2"]
ROOFLINES = ("bench::memcpy_roofline", "memcpy_ragged_values")
# Workloads compared with a baseline other than memcpy: name prefix -> baseline prefix.
BASELINES = {
    "dense_strings": "baseline_strings_copy_if",
    "kernel_rows": "baseline_rows_memcpy",
    "ragged_rows": "baseline_rows_memcpy",
    "ragged_reused": "baseline_ragged_per_row",
    "views_dense": "views_dense_kernel_alone",
    "views_ragged": "views_ragged_owning",
}
# Ours against the best Highway loop of the same workload (bench_highway), at
# the native level and both forced to AVX2.
HIGHWAY = {"ours/": ("highway_compress_storeu", "highway_compress_store"),
           "ours_avx2/": ("highway_avx2_compress_storeu", "highway_avx2_compress_store")}


UNRECORDED = "CPU not recorded"


class Run:
    """One run of one binary: its medians by run name, in the binary's order
    of registration, and the machine it ran on."""

    def __init__(self, source, data):
        self.source = source
        context = data.get("context", {})
        # bench/common.hpp adds these; runs saved before it did not.
        self.cpu = context.get("ragged_cpu", UNRECORDED)
        self.kernel = context.get("ragged_kernel", "")
        rows = [b for b in data.get("benchmarks", [])
                if b.get("aggregate_name") == "median" and not b.get("error_occurred")]
        # In the binary's order of registration, not the random order in which the
        # interleaved repetitions finished, so that reports of two runs line up.
        rows.sort(key=lambda b: (b.get("family_index", 0), b.get("per_family_instance_index", 0)))
        # Without the "/iterations:N" of benchmarks run a fixed count of times
        # (bench_highway's paired ones), so that names line up across them.
        self.medians = {re.sub(r"/iterations:\d+", "", b["run_name"]): b for b in rows}
        # How much the repetitions of each benchmark varied (Google Benchmark's
        # cv aggregate: standard deviation over mean), as their median: a
        # run whose repetitions varied much was taken while the host's
        # neighbours moved it, and its ratios are not worth quoting.
        cvs = sorted(b["real_time"] for b in data.get("benchmarks", [])
                     if b.get("aggregate_name") == "cv" and not b.get("error_occurred"))
        self.noise = cvs[len(cvs) // 2] if cvs else None
        self.roofs = {b["value_bytes"]: b["real_time"] for n, b in self.medians.items()
                      if n.startswith(ROOFLINES) and "value_bytes" in b}

    def x_memcpy(self, name):
        """The named benchmark's time over memcpy of the same value bytes, or None."""
        b = self.medians[name]
        roof = self.roofs.get(b.get("value_bytes"))
        return b["real_time"] / roof if roof else None

    def best_highway(self, name):
        """The time of the faster Highway loop of the same level (ours/ or
        ours_avx2/) and workload as the named benchmark, or None."""
        for prefix, loops in HIGHWAY.items():
            if name.startswith(prefix):
                workload = name[len(prefix) - 1:]
                rivals = [self.medians[h + workload]["real_time"] for h in loops
                          if h + workload in self.medians]
                return min(rivals) if rivals else None
        return None

    def x_best_highway(self, name):
        """Ours over the faster Highway loop of the same level and workload, or None."""
        best = self.best_highway(name)
        return self.medians[name]["real_time"] / best if best else None

    def workloads(self):
        """bench_highway's workloads that ours and a Highway loop both ran, as
        the part of their names after "ours" ("/int32_2^26_density_0.5/real_time")."""
        return [n[len("ours"):] for n in self.medians
                if n.startswith("ours/") and self.best_highway(n) is not None]


# Runs whose repetitions varied by more than this (median cv) are too noisy to
# quote: quiet runs of bench_highway vary by about 0.04, one taken while
# Highway's AVX2 loops ran at twice their usual time by 0.29.
NOISY = 0.10


def variation(run):
    if run.noise is None:
        return "repetitions' variation not recorded"
    return f"repetitions varied by a median of {100 * run.noise:.1f}% (coefficient of variation)"


def too_noisy(run):
    return run.noise is not None and run.noise > NOISY


def fail(message):
    sys.exit(f"report.py: {message}")


def load(source, extra, save_dir):
    """The run a source names: a .json file read, or a binary run now (its JSON
    written to save_dir/<binary>.json where save_dir is given)."""
    if source.endswith(".json"):
        try:
            with open(source) as f:
                data = json.load(f)
        except OSError as e:
            fail(f"{source}: {e.strerror}")
        except json.JSONDecodeError as e:
            fail(f"{source}: not the JSON of a benchmark run ({e})")
        if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
            fail(f"{source}: not the JSON of a benchmark run (no list of benchmarks)")
        return Run(source, data)
    if not (os.path.isfile(source) and os.access(source, os.X_OK)):
        fail(f"{source}: not an executable benchmark binary or a .json file of a run")
    done = subprocess.run([source] + FLAGS + extra, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        fail(f"{source} exited with status {done.returncode}")
    try:
        data = json.loads(done.stdout)
    except json.JSONDecodeError as e:
        fail(f"{source} did not print a benchmark run's JSON ({e})")
    if save_dir:
        os.makedirs(save_dir, exist_ok=True)
        with open(os.path.join(save_dir, os.path.basename(source) + ".json"), "w") as f:
            f.write(done.stdout)
    return Run(source, data)


def fmt(x):
    return f"{x:.2f}" if x is not None else ""


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def label(workload):
    """A workload as the tables name it: "/int32_2^26_density_0.5/real_time" ->
    "int32_2^26_density_0.5"."""
    return workload[1:].replace("/real_time", "")


def targeted(workload):
    """Whether the Performance targets (README) name the workload: all but
    density 0.001, a selection cut, and a sparse mask in the caches, both
    reported beside them."""
    return "density_0.001" not in workload and "in_cache_density" not in workload


def full_table(run):
    lines = []
    for name, b in run.medians.items():
        per_elem = 1e9 / b["items_per_second"] if b.get("items_per_second") else float("nan")
        base = ""
        for prefix, baseline in BASELINES.items():
            if name.startswith(prefix):
                # The baseline of the same arguments where it has them, else its first.
                same = name[name.find("/"):]
                match = [m for n, m in run.medians.items() if n.startswith(baseline) and n.endswith(same)]
                match = match or [m for n, m in run.medians.items() if n.startswith(baseline)]
                if match:
                    base = fmt(b["real_time"] / match[0]["real_time"])
        if name.startswith("paired/") and "x_best_highway" in b:
            base = f"{b['x_best_highway']:.2f} (paired with Highway)"
        if "x_bytes" in b:  # bench_kernel's bit-packed mask timed in turn with bytes
            base = f"{b['x_bytes']:.2f} (paired with the byte mask)"
        if (vs := run.x_best_highway(name)) is not None:
            base = f"{vs:.2f} (best Highway)"
        lines.append(f"| {name.replace('/real_time', '')} | {per_elem:.3f} | {fmt(run.x_memcpy(name))} | {base} |")
    return lines


def read_only_table(run):
    """Per workload of bench_highway: ours and the best Highway loop against the
    read-only loop (the time to only load the same values and mask bytes, no
    stores), ours against the read-write loop (the same loads, and the kept
    bytes written with whole-vector stores, no compaction), and ours against the
    best Highway loop. Where the best Highway loop is at about 1.0 of the
    read-only loop, the workload is bound by its reads and leaves no store
    strategy much room to beat it; where ours is at about 1.0 of the read-write
    loop (outputs in the caches), the compaction costs nothing beyond the
    traffic of its reads and ordinary stores."""
    rows = []
    for workload in run.workloads():
        read = run.medians.get("read_only" + workload)
        if not read:
            continue
        ours = run.medians["ours" + workload]["real_time"]
        hwy = run.best_highway("ours" + workload)
        write = run.medians.get("read_write" + workload)
        rows.append(f"| {label(workload)} | {ours / read['real_time']:.2f} | "
                    f"{hwy / read['real_time']:.2f} | {fmt(ours / write['real_time'] if write else None)} | "
                    f"{ours / hwy:.2f} |")
    if not rows:
        return []
    return ["| workload | ours x read-only | best Highway x read-only | ours x read-write "
            "| ours x best Highway |", "|---|---:|---:|---:|---:|"] + rows


def paired(run, workload):
    """Ours over the best Highway loop timed in turn in the same iterations, or None."""
    b = run.medians.get("paired" + workload.replace("/real_time", "/manual_time"))
    return b.get("x_best_highway") if b else None


def summary(run):
    """The ratios of one bench_highway run as the README's Performance table
    takes them: per workload ours x memcpy, ours x best Highway (timed
    separately) and ours x best Highway paired; the geometric means over the
    targeted workloads; and both forced to AVX2."""
    rows = {}
    for workload in run.workloads():
        rows[workload] = (run.x_memcpy("ours" + workload), run.x_best_highway("ours" + workload),
                          paired(run, workload))
    avx2 = [run.x_best_highway("ours_avx2" + w) for w in rows
            if targeted(w) and "ours_avx2" + w in run.medians]
    means = (geomean([r[1] for w, r in rows.items() if targeted(w)]),
             geomean([r[2] for w, r in rows.items() if targeted(w) and r[2] is not None]),
             geomean([x for x in avx2 if x is not None]))
    return rows, means


def summary_table(run):
    rows, (separate, paired_mean, avx2) = summary(run)
    if not rows:
        return []
    count = sum(map(targeted, rows))
    noise = variation(run) + (": too noisy to quote, run again" if too_noisy(run) else "")
    lines = [f"{run.cpu}; kernel: {run.kernel or 'not recorded'}", noise, "",
             "| workload | ours x memcpy | ours x best Highway | paired |", "|---|---:|---:|---:|"]
    lines += [f"| {label(w)} | {fmt(m)} | {fmt(h)} | {fmt(p)} |"
              for w, (m, h, p) in rows.items()]
    lines.append(f"| geometric mean of the {count} targeted | | {fmt(separate)} | {fmt(paired_mean)} |")
    if avx2 is not None:
        lines.append(f"| both forced to AVX2, geometric mean x Highway's AVX2 loops | | {fmt(avx2)} | |")
    return lines


def span(xs):
    """A range as the README writes it: lo-hi, or one figure where they round alike."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return ""
    lo, hi = fmt(min(xs)), fmt(max(xs))
    return lo if lo == hi else f"{lo}-{hi}"


def ranges_table(runs):
    """The README's cells for several bench_highway runs on one CPU: per workload
    the range of ours x memcpy / ours x best Highway, the range of the
    separate geometric means, the paired ones in the runs' order, and AVX2."""
    # Runs saved before the benchmarks recorded their CPU are taken to be of
    # the others' CPU, and named.
    cpus = sorted({r.cpu for r in runs if r.cpu != UNRECORDED}) or [UNRECORDED]
    if len(cpus) > 1:
        fail("the runs come from different CPUs (" + "; ".join(cpus) + "): give the runs of one CPU")
    unrecorded = [r.source for r in runs if r.cpu == UNRECORDED and cpus[0] != UNRECORDED]
    runs = [r for r in runs if r.workloads()]
    if not runs:
        fail("none of the runs has bench_highway's workloads")
    noisy = [r for r in runs if too_noisy(r)]
    per_run = [summary(r) for r in runs if not too_noisy(r)]
    if not per_run:
        fail("every run is too noisy to quote (" + variation(noisy[0]) + "): run again")
    workloads = list(dict.fromkeys(w for rows, _ in per_run for w in rows))
    lines = [f"{cpus[0]}, {len(per_run)} run{'s' if len(per_run) > 1 else ''}", ""]
    if unrecorded:
        lines += ["CPU not recorded, taken to be the same: " + ", ".join(unrecorded), ""]
    if noisy:
        lines += [f"left out, too noisy to quote: {r.source} ({variation(r)})" for r in noisy] + [""]
    lines += ["| workload | x memcpy / x best Highway | paired |", "|---|---:|---:|"]
    for w in workloads:
        cells = [rows[w] for rows, _ in per_run if w in rows]
        lines.append(f"| {label(w)} | {span(c[0] for c in cells)} / "
                     f"{span(c[1] for c in cells)} | {span(c[2] for c in cells)} |")
    means = [m for _, m in per_run]
    lines.append(f"| geometric mean, x best Highway | {span(m[0] for m in means)} | "
                 f"{span(m[1] for m in means)} |")
    lines.append("| both forced to AVX2, geometric mean x Highway's AVX2 loops | "
                 f"{span(m[2] for m in means)} | |")
    paired_means = [fmt(m[1]) for m in means if m[1] is not None]
    if paired_means:
        lines += ["", "paired geometric means in the runs' order: " + ", ".join(paired_means)]
    return lines


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Flags after -- go to every binary run.")
    parser.add_argument("sources", metavar="SOURCE", nargs="+",
                        help="a benchmark binary to run, or a .json file of an earlier run")
    parser.add_argument("--save", metavar="DIR",
                        help="write each binary's JSON to DIR/<binary>.json, to report again later")
    parser.add_argument("--ranges", action="store_true",
                        help="the sources are runs of bench_highway on one CPU: print the range of each ratio")
    args = parser.parse_args(argv)
    runs = [load(s, extra, args.save) for s in args.sources]
    if args.ranges:
        print("\n".join(ranges_table(runs)))
        return
    print("| benchmark | ns/element | x memcpy | x baseline |")
    print("|---|---:|---:|---:|")
    for run in runs:
        print("\n".join(full_table(run)))
    for run in runs:
        for table in (read_only_table(run), summary_table(run)):
            if table:
                print()
                print("\n".join(table))


if __name__ == "__main__":
    main()
