#!/usr/bin/env python3
"""make bench-ab's program builds and runs: this tree's library against copies of itself.

Copies lib/src, lib/include and common/ into build/test_bench_ab/same (a checkout as AB_BASE
takes it) and builds make bench-ab's program against it (mk/lib_ab.mk). Checks on the CPU: both
versions are in the program, the base's C functions made local; --help is the usage line (with
the sets of cases); a bad argument (an unknown set too) is one line and exit 2; make bench-ab
without AB_BASE, or any goal with an AB_BASE that has no lib/src, stops with one line. Without a
GPU the program says so in one line and exits 2. With one, `--quick --reps 3` against the same
code gives three rows, each "ok"; against a copy whose tiles add 1 to every output of the 2-D
kernel it exits 1 and says the outputs differ.
Prints "bench_ab: all checks passed" or FAIL lines; exit 1 on a failure.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
JOBS = max(2, len(os.sched_getaffinity(0)))  # a core per compile: two builds of the library
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)


def checkout(name, plant=False):
    """A copy of this tree's library as a checkout; planted: its 2-D tiles write every sum + 1."""
    base = ROOT / "build" / "test_bench_ab" / name
    shutil.rmtree(base, ignore_errors=True)
    for folder in ("lib/src", "lib/include", "common"):
        shutil.copytree(ROOT / folder, base / folder, copy_function=shutil.copy)  # new times: rebuilt
    if plant:
        kernel = base / "lib" / "src" / "lookback_kernel.cuh"
        text = kernel.read_text()
        line = "    for (int v = 0; v < V; ++v) acc[v] = top[v];\n"
        check(text.count(line) == 1, "the planted change finds its line in lookback_kernel.cuh")
        kernel.write_text(text.replace(line, "    for (int v = 0; v < V; ++v) acc[v] = top[v] + A(1);\n"))
    built = run(["make", f"-j{JOBS}", "bench-ab", f"AB_BASE={base.relative_to(ROOT)}", "BENCH_AB_ARGS=--help"])
    check(built.returncode == 0, f"make bench-ab AB_BASE={name}: " + (built.stdout + built.stderr)[-2000:])
    programs = glob.glob(str(ROOT / "build" / "lib" / "ab-base" / f"*test_bench_ab_{name}" / "bench_ab"))
    check(len(programs) == 1, f"one program for the base {name}: {programs}")
    return programs[0] if built.returncode == 0 and len(programs) == 1 else None


missing = run(["make", "bench-ab"])
check(missing.returncode != 0 and "AB_BASE=DIR" in missing.stdout + missing.stderr,
      "make bench-ab without AB_BASE stops and says so")
empty = ROOT / "build" / "test_bench_ab" / "no_sources"
empty.mkdir(parents=True, exist_ok=True)
no_sources = run(["make", "-n", "build/lib/ab-base/x/bench_ab", f"AB_BASE={empty.relative_to(ROOT)}"])
check(no_sources.returncode != 0 and "no DIR/lib/src/satlib.cu" in no_sources.stdout + no_sources.stderr,
      "an AB_BASE without lib/src stops any goal, its program's path too, and says so")
program = checkout("same")
if program:
    symbols = run(["nm", "-C", program]).stdout
    check("satbase::inclusive_scan_2d(" in symbols, "the base's satbase::inclusive_scan_2d is in the program")
    check(re.search(r" T sat::inclusive_scan_2d\(", symbols) is not None, "this tree's sat::inclusive_scan_2d too")
    check(re.search(r" t satlib_integral$", symbols, re.M) and re.search(r" T satlib_integral$", symbols, re.M),
          "the base's satlib_integral is local, this tree's global")

    usage = run([program, "--help"])
    check(usage.returncode == 0 and usage.stdout.startswith("usage: bench_ab ") and "[--set targets|squares|thin|lines|widths|same-type|pitches|tall|odd|rows|columns|images|rounds|wide|few-rows]" in usage.stdout,
          f"--help: the usage line, with the sets of cases ({usage.stdout!r})")
    for bad_args in (["--bogus"], ["--reps", "0"], ["--set", "cubes"]):
        bad = run([program] + bad_args)
        check(bad.returncode == 2 and bad.stderr.startswith("bench_ab: ") and bad.stderr.count("\n") == 1,
              f"{bad_args}: exit 2 and one line ({bad.stderr!r})")

    same = run([program, "--quick", "--reps", "3"], timeout=600)
    if "no CUDA device" in same.stderr:
        check(same.returncode == 2 and same.stderr == "bench_ab: no CUDA device\n",
              f"no GPU: one line and exit 2 ({same.stderr!r})")
    else:
        rows = [line for line in same.stdout.splitlines() if line[:1].isdigit()]
        check(same.returncode == 0, f"--quick against the same code: exit 0 ({same.stdout}{same.stderr})")
        check(len(rows) == 3 and all(line.rstrip().endswith(" ok") for line in rows),
              f"--quick against the same code: three rows, each ok:\n{same.stdout}")
        planted = checkout("planted", plant=True)
        if planted:
            differs = run([planted, "--quick", "--reps", "3"], timeout=600)
            check(differs.returncode == 1 and "FAIL: outputs differ" in differs.stdout,
                  f"--quick against a planted difference: exit 1, outputs differ:\n{differs.stdout}")

if failures:
    sys.exit(1)
print("bench_ab: all checks passed")
