#!/usr/bin/env python3
"""csv_batch.py — the readers of the harness's CSV (tools/bench.py, tools/results.py through it,
tools/library_tables.py, plots/bench_data.py and make_plots.py) with and without its last column,
`batch` (tests/test_plots.cpp runs it; no GPU).

From plots/sample_bench.csv (written before the column existed) it makes, in build/test_csv_batch,
the same rows with a batch column of 1 plus a copy of every row as a batch of 8 with another time;
the readers must give the same tables and figures for both files (rows of a batch are not single
images and are left out). Prints one line per failed check; exit 1 when any failed.
"""
import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "test_csv_batch"
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "plots")]
import bench  # noqa: E402
import bench_data  # noqa: E402
import library_tables  # noqa: E402

failures = []


def check(ok: bool, what: str):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


OUT.mkdir(parents=True, exist_ok=True)
old = ROOT / "plots" / "sample_bench.csv"
with open(old, newline="") as f:
    header, *rows = list(csv.reader(f))
check("batch" not in header, "plots/sample_bench.csv predates the batch column")
new = OUT / "sample_with_batch.csv"
with open(new, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(header + ["batch"])
    median = header.index("median_ms")
    for r in rows:
        w.writerow(r + ["1"])
        w.writerow(r[:median] + [str(float(r[median] or 0) * 1000 + 1)] + r[median + 1:] + ["8"])

types = ["f32", "f64", "u8i32", "i32"]
old_rows, new_rows = bench.read_rows(old), bench.read_rows(new)
check(bench.summary_tables(old_rows, types)[0] == bench.summary_tables(new_rows, types)[0],
      "bench.py's summary of the rows with a batch column differs from the one without")
check([bench.images(r) for r in old_rows[:1] + new_rows[:2]] == [1, 1, 8], "bench.images: 1 without the column")
check(len(library_tables.one_image(new_rows)) == len(old_rows), "library_tables.one_image keeps the single images")
a, b = bench_data.load(old), bench_data.load(new)
check(len(a.rows) == len(b.rows) and a.rows[0]["batch"] == 1, "bench_data plots the same rows with the batch column")
p = subprocess.run([sys.executable, str(ROOT / "plots" / "make_plots.py"), str(new), str(OUT / "plots")],
                   capture_output=True, text=True, cwd=ROOT)
check(p.returncode == 0, f"make_plots.py on the CSV with a batch column: exit {p.returncode}: {p.stderr.strip()[-300:]}")

print("csv_batch: " + ("all checks passed" if not failures else f"{len(failures)} checks failed"))
sys.exit(1 if failures else 0)
