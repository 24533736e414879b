#!/usr/bin/env python3
"""Tests of bench/report.py, the script every figure in the README's Performance
table comes from: on runs made up here, with known ratios, it must print them
exactly, take ranges over runs of one CPU only, and fail with a clear message
on what it cannot read or run."""
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "report.py")


def median(name, real_time, **counters):
    return dict(name=name + "_median", run_name=name, aggregate_name="median",
                real_time=real_time, **counters)


def highway_run(ours_w1=8.0, cpu="AMD family 0x1A model 2", cv=0.02):
    """A bench_highway run: w1 (ours x memcpy ours_w1/10, x best Highway
    ours_w1/10), w3 (1.0 and 1.0), density_0.001 (0.2 and 0.5, not targeted);
    every benchmark's repetitions varied by `cv` but one, by 0.5."""
    kb = dict(value_bytes=1000, items_per_second=1e11)
    rows = [
        median("read_only/w1/real_time", 5.0, **kb),
        median("ours/w1/real_time", ours_w1, **kb),
        median("ours_avx2/w1/real_time", 12.0, **kb),
        median("highway_compress_storeu/w1/real_time", 10.0, **kb),
        median("highway_compress_store/w1/real_time", 16.0, **kb),
        median("highway_avx2_compress_storeu/w1/real_time", 40.0, **kb),
        median("highway_avx2_compress_store/w1/real_time", 30.0, **kb),
        median("paired/w1/manual_time", ours_w1, x_best_highway=0.9, **kb),
        median("ours/density_0.001/real_time", 2.0, **kb),
        median("highway_compress_storeu/density_0.001/real_time", 4.0, **kb),
        median("paired/density_0.001/manual_time", 2.0, x_best_highway=0.5, **kb),
        median("ours/w3/real_time", 10.0, **kb),
        median("highway_compress_store/w3/real_time", 10.0, **kb),
        median("paired/w3/manual_time", 10.0, x_best_highway=1.1, **kb),
        median("bench::memcpy_roofline/1000", 10.0, **kb),
        # Means and failed runs are not the medians reported.
        dict(name="ours/w1/real_time_mean", run_name="ours/w1/real_time", aggregate_name="mean",
             real_time=1.0, value_bytes=1000),
    ]
    for i, row in enumerate(rows):
        row["family_index"] = i
    rows += [dict(name=r["run_name"] + "_cv", run_name=r["run_name"], aggregate_name="cv",
                  real_time=cv if i else 0.5) for i, r in enumerate(rows)]
    context = {"ragged_kernel": "avx512, whole-vector stores"}
    if cpu:
        context["ragged_cpu"] = cpu
    return {"context": context, "benchmarks": rows}


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, data):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(data if isinstance(data, str) else json.dumps(data))
        return path

    def report(self, *args, ok=True):
        done = subprocess.run([sys.executable, "-B", REPORT, *args], capture_output=True, text=True)
        self.assertEqual(done.returncode == 0, ok, done.stdout + done.stderr)
        return done.stdout.splitlines() if ok else done.stderr

    def test_ratios_of_one_run(self):
        lines = self.report(self.write("run.json", highway_run()))
        self.assertIn("| ours/w1 | 0.010 | 0.80 | 0.80 (best Highway) |", lines)
        self.assertIn("| ours_avx2/w1 | 0.010 | 1.20 | 0.40 (best Highway) |", lines)
        self.assertIn("| paired/w1/manual_time | 0.010 | 0.80 | 0.90 (paired with Highway) |", lines)
        self.assertIn("| w1 | 1.60 | 2.00 |  | 0.80 |", lines)
        self.assertIn("AMD family 0x1A model 2; kernel: avx512, whole-vector stores", lines)
        self.assertIn("repetitions varied by a median of 2.0% (coefficient of variation)", lines)
        self.assertIn("| w1 | 0.80 | 0.80 | 0.90 |", lines)
        self.assertIn("| density_0.001 | 0.20 | 0.50 | 0.50 |", lines)
        # sqrt(0.8 * 1.0) and sqrt(0.9 * 1.1): density 0.001 is left out.
        self.assertIn("| geometric mean of the 2 targeted | | 0.89 | 0.99 |", lines)
        self.assertIn("| both forced to AVX2, geometric mean x Highway's AVX2 loops | | 0.40 | |", lines)
        # The mean aggregate is not reported as a row of its own.
        self.assertEqual(sum(line.startswith("| ours/w1 |") for line in lines), 1)

    def test_bit_packed_mask_paired_with_bytes(self):
        kb = dict(value_bytes=1000, items_per_second=1e11)
        run = {"context": {}, "benchmarks": [
            median("bench::memcpy_roofline/1000", 10.0, **kb),
            median("kernel_bits_paired<std::int32_t>/1000/500/iterations:20/manual_time", 8.0,
                   x_bytes=0.7, **kb)]}
        lines = self.report(self.write("kernel.json", run))
        self.assertIn("| kernel_bits_paired<std::int32_t>/1000/500/manual_time"
                      " | 0.010 | 0.80 | 0.70 (paired with the byte mask) |", lines)

    def test_ranges_over_runs(self):
        runs = [self.write("a.json", highway_run(8.0)), self.write("b.json", highway_run(7.0))]
        lines = self.report("--ranges", *runs)
        self.assertEqual(lines[0], "AMD family 0x1A model 2, 2 runs")
        self.assertIn("| w1 | 0.70-0.80 / 0.70-0.80 | 0.90 |", lines)
        self.assertIn("| w3 | 1.00 / 1.00 | 1.10 |", lines)
        # sqrt(0.7) = 0.84, sqrt(0.8) = 0.89.
        self.assertIn("| geometric mean, x best Highway | 0.84-0.89 | 0.99 |", lines)
        self.assertIn("paired geometric means in the runs' order: 0.99, 0.99", lines)

    def test_noisy_runs_are_named_and_left_out_of_ranges(self):
        noisy = self.write("noisy.json", highway_run(5.0, cv=0.2))
        self.assertIn("repetitions varied by a median of 20.0% (coefficient of variation): "
                      "too noisy to quote, run again", self.report(noisy))
        lines = self.report("--ranges", self.write("quiet.json", highway_run(8.0)), noisy)
        self.assertEqual(lines[0], "AMD family 0x1A model 2, 1 run")
        self.assertIn(f"left out, too noisy to quote: {noisy} (repetitions varied by a median of "
                      "20.0% (coefficient of variation))", lines)
        self.assertIn("| w1 | 0.80 / 0.80 | 0.90 |", lines)
        self.assertIn("every run is too noisy to quote", self.report("--ranges", noisy, ok=False))

    def test_ranges_take_runs_without_a_recorded_cpu_as_the_others(self):
        old = self.write("old.json", highway_run(7.0, cpu=None))
        lines = self.report("--ranges", self.write("new.json", highway_run(8.0)), old)
        self.assertEqual(lines[0], "AMD family 0x1A model 2, 2 runs")
        self.assertIn(f"CPU not recorded, taken to be the same: {old}", lines)
        self.assertIn("| w1 | 0.70-0.80 / 0.70-0.80 | 0.90 |", lines)

    def test_ranges_refuse_runs_of_different_cpus(self):
        runs = [self.write("a.json", highway_run()),
                self.write("b.json", highway_run(cpu="Intel family 0x6 model 207"))]
        err = self.report("--ranges", *runs, ok=False)
        self.assertIn("the runs come from different CPUs", err)
        self.assertIn("Intel family 0x6 model 207", err)

    def test_ranges_need_highway_workloads(self):
        run = self.write("kernel.json", {"benchmarks": [median("kernel/x", 1.0)]})
        self.assertIn("none of the runs has bench_highway's workloads",
                      self.report("--ranges", run, ok=False))

    def test_runs_a_binary_and_saves_its_json(self):
        # A stand-in binary that prints a run's JSON and the flags it was given.
        binary = self.write("bench_fake", "#!/bin/sh\necho \"$@\" > \"$0.args\"\ncat \"$0.json\"\n")
        os.chmod(binary, os.stat(binary).st_mode | stat.S_IXUSR)
        self.write("bench_fake.json", highway_run())
        saved = os.path.join(self.dir.name, "saved")
        lines = self.report("--save", saved, binary, "--", "--benchmark_filter=w1")
        with open(binary + ".args") as f:
            args = f.read().split()
        self.assertIn("--benchmark_repetitions=5", args)
        self.assertEqual(args[-1], "--benchmark_filter=w1")
        self.assertIn("| ours/w1 | 0.010 | 0.80 | 0.80 (best Highway) |", lines)
        # The saved JSON reports the same.
        self.assertEqual(self.report(os.path.join(saved, "bench_fake.json")), lines)

    def test_failing_binary(self):
        binary = self.write("bench_broken", "#!/bin/sh\necho broken >&2\nexit 3\n")
        os.chmod(binary, os.stat(binary).st_mode | stat.S_IXUSR)
        err = self.report(binary, ok=False)
        self.assertIn("broken", err)
        self.assertIn("exited with status 3", err)

    def test_unreadable_sources(self):
        missing = os.path.join(self.dir.name, "bench_missing")
        self.assertIn("not an executable benchmark binary or a .json file",
                      self.report(missing, ok=False))
        self.assertIn("No such file", self.report(missing + ".json", ok=False))
        self.assertIn("not the JSON of a benchmark run",
                      self.report(self.write("bad.json", "{"), ok=False))
        self.assertIn("not the JSON of a benchmark run (no list of benchmarks)",
                      self.report(self.write("list.json", "[]"), ok=False))

    def test_help(self):
        self.assertTrue(any("--ranges" in line for line in self.report("--help")))


if __name__ == "__main__":
    unittest.main()
