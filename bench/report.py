#!/usr/bin/env python3
"""Runs the benchmark binaries and prints, per workload, the time per element and
the ratio to memcpy of the same value bytes measured in the same run (medians
of repetitions). Usage: report.py BINARY... [-- extra Google Benchmark flags]"""
import json
import math
import subprocess
import sys

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


def run(binary, extra):
    # Repetitions interleaved at random, so that a noisy neighbour slows every
    # benchmark alike rather than one; the medians are reported.
    cmd = [binary, "--benchmark_format=json", "--benchmark_repetitions=5",
           "--benchmark_enable_random_interleaving=true",
           "--benchmark_report_aggregates_only=true", "--benchmark_min_time=0.2"] + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = [b for b in json.loads(out)["benchmarks"]
            if b.get("aggregate_name") == "median" and not b.get("error_occurred")]
    # In the binary's order of registration, not the random order in which the
    # interleaved repetitions finished, so that reports of two runs line up.
    rows.sort(key=lambda b: (b.get("family_index", 0), b.get("per_family_instance_index", 0)))
    return {b["run_name"]: b for b in rows}


def main():
    args = sys.argv[1:]
    extra = args[args.index("--") + 1:] if "--" in args else []
    binaries = args[:args.index("--")] if "--" in args else args
    print("| benchmark | ns/element | x memcpy | x baseline |")
    print("|---|---:|---:|---:|")
    summaries = []
    for binary in binaries:
        medians = run(binary, extra)
        roofs = {b["value_bytes"]: b["real_time"] for n, b in medians.items() if n.startswith(ROOFLINES)}
        for name, b in medians.items():
            per_elem = 1e9 / b["items_per_second"] if b.get("items_per_second") else float("nan")
            roof = roofs.get(b.get("value_bytes"))
            ratio = f"{b['real_time'] / roof:.2f}" if roof else ""
            base = ""
            for prefix, baseline in BASELINES.items():
                if name.startswith(prefix):
                    # The baseline of the same arguments where it has them, else its first.
                    same = name[name.find("/"):]
                    match = [m for n, m in medians.items() if n.startswith(baseline) and n.endswith(same)]
                    match = match or [m for n, m in medians.items() if n.startswith(baseline)]
                    if match:
                        base = f"{b['real_time'] / match[0]['real_time']:.2f}"
            if name.startswith("paired/") and "x_best_highway" in b:
                base = f"{b['x_best_highway']:.2f} (paired with Highway)"
            for prefix, loops in HIGHWAY.items():
                if name.startswith(prefix):
                    args = name[len(prefix) - 1:]
                    rivals = [medians[h + args]["real_time"] for h in loops if h + args in medians]
                    if rivals:
                        base = f"{b['real_time'] / min(rivals):.2f} (best Highway)"
            print(f"| {name.replace('/real_time', '')} | {per_elem:.3f} | {ratio} | {base} |")
        summaries.append(read_only_table(medians))
        summaries.append(paired_table(medians))
    for table in filter(None, summaries):
        print()
        print(table)


def read_only_table(medians):
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
    for name, b in medians.items():
        if not name.startswith("read_only/"):
            continue
        workload = name[len("read_only/"):]
        ours = medians.get("ours/" + workload)
        rivals = [medians[h + "/" + workload]["real_time"] for h in HIGHWAY["ours/"]
                  if h + "/" + workload in medians]
        if not ours or not rivals:
            continue
        read, hwy = b["real_time"], min(rivals)
        write = medians.get("read_write/" + workload)
        vs_write = f"{ours['real_time'] / write['real_time']:.2f}" if write else "-"
        rows.append(f"| {workload.replace('/real_time', '')} | {ours['real_time'] / read:.2f} | "
                    f"{hwy / read:.2f} | {vs_write} | {ours['real_time'] / hwy:.2f} |")
    if not rows:
        return ""
    return "\n".join(["| workload | ours x read-only | best Highway x read-only | ours x read-write "
                      "| ours x best Highway |", "|---|---:|---:|---:|---:|"] + rows)


def paired_table(medians):
    """Per workload of bench_highway: ours / the best Highway loop timed in
    turn in the same iterations (paired/), and their geometric mean over the
    workloads but density 0.001, which the targets do not name."""
    rows, logs = [], []
    for name, b in medians.items():
        if name.startswith("paired/") and "x_best_highway" in b:
            workload = name[len("paired/"):].replace("/manual_time", "")
            rows.append(f"| {workload} | {b['x_best_highway']:.2f} |")
            if "density_0.001" not in workload:
                logs.append(math.log(b["x_best_highway"]))
    if not rows:
        return ""
    if logs:
        rows.append(f"| geometric mean ({len(logs)} workloads) | "
                    f"{math.exp(sum(logs) / len(logs)):.2f} |")
    return "\n".join(["| workload | ours x best Highway, paired |", "|---|---:|"] + rows)


if __name__ == "__main__":
    main()
