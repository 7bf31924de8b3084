#!/usr/bin/env python3
"""make bench-ab's program builds and runs: this tree's library against a copy of itself.

Copies lib/src (flat) and common/lookback.cuh into build/test_bench_ab/base, builds
build/lib/bench_ab with AB_BASE pointing there (the copy compiled with its namespaces renamed,
mk/lib_ab.mk) and checks that both versions are in the program. Then: --help is the usage
line; a bad argument is one line and exit 2; without a GPU the program says so in one line and
exits 2; with one, `--quick --reps 3` gives three rows, each "ok" (identical code must agree byte
for byte). Prints
"bench_ab: all checks passed" or FAIL lines; exit 1 on a failure.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "build" / "test_bench_ab" / "base"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def run(cmd, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, **kw)


shutil.rmtree(BASE, ignore_errors=True)
BASE.mkdir(parents=True)
for f in list((ROOT / "lib" / "src").iterdir()) + [ROOT / "common" / "lookback.cuh"]:
    if f.suffix in (".cu", ".cuh", ".h"):
        shutil.copy2(f, BASE / f.name)
built = run(["make", "-j2", "build/lib/bench_ab", f"AB_BASE={BASE.relative_to(ROOT)}"])
check(built.returncode == 0, "make build/lib/bench_ab: " + (built.stdout + built.stderr)[-2000:])
program = ROOT / "build" / "lib" / "bench_ab"
if built.returncode == 0:
    symbols = run(["nm", "-C", str(program)]).stdout
    check("satbase::inclusive_scan_2d(" in symbols, "the base's satbase::inclusive_scan_2d is in the program")
    check(re.search(r" T sat::inclusive_scan_2d\(", symbols) is not None,
          "this tree's sat::inclusive_scan_2d is in the program")

    bad = run([str(program), "--reps", "0"])
    check(bad.returncode == 2 and bad.stderr.count("\n") == 1, f"--reps 0: exit 2 and one line ({bad.stderr!r})")
    bad = run([str(program), "--bogus"])
    check(bad.returncode == 2 and bad.stderr.startswith("bench_ab: ") and bad.stderr.count("\n") == 1,
          f"--bogus: exit 2 and one line ({bad.stderr!r})")
    usage = run([str(program), "--help"])
    check(usage.returncode == 0 and usage.stdout.startswith("usage: bench_ab "), f"--help: the usage line ({usage.stdout!r})")

    quick = run([str(program), "--quick", "--reps", "3"], timeout=600)
    if "no CUDA device" in quick.stderr:
        check(quick.returncode == 2 and quick.stderr == "bench_ab: no CUDA device\n",
              f"no GPU: one line and exit 2 ({quick.stderr!r})")
    else:
        rows = [line for line in quick.stdout.splitlines() if line.split()[:1] and line.split()[0][0].isdigit()]
        check(quick.returncode == 0, f"--quick: exit 0 ({quick.stdout}{quick.stderr})")
        check(len(rows) == 3 and all(line.rstrip().endswith(" ok") for line in rows),
              f"--quick: three rows, each ok:\n{quick.stdout}")

if failures:
    sys.exit(1)
print("bench_ab: all checks passed")
