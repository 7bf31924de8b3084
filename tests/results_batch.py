#!/usr/bin/env python3
"""results_batch.py — tools/results.py's batch section (tests/test_results.cpp runs it; no GPU).

Builds a tiny bench run in build/test_results: a main CSV (rows of plots/bench_h200_2026-11-25.csv),
its .json naming a batch CSV, and that batch CSV (rows of docs/data/batch_h200.csv); then checks
the page's batch table carries those rows' numbers and issue 22's targets, that a .json without a
batch CSV gets the "Not measured" line instead, that a run of fewer sizes and labs says so and has
no targets table without 16384 x 16384, that a recorded commit is shown, in the heading too
(and SAT_SOURCE_REV names it), and that bench.py --help lists --no-batch.
Prints one line per failed check; exit 1 when any failed.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "test_results"
failures = []


def check(ok: bool, what: str):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def results(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / "results.py"), *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


shutil.rmtree(OUT, ignore_errors=True)
OUT.mkdir(parents=True)
src = ROOT / "plots" / "bench_h200_2026-11-25.csv"
meta = json.loads(src.with_suffix(".json").read_text())
with open(src, newline="") as f:
    rows = list(csv.reader(f))
main_csv = OUT / "bench_tiny.csv"
with open(main_csv, "w", newline="") as f:
    csv.writer(f).writerows(rows[:21])  # the header and 20 rows
batch_src = ROOT / "docs" / "data" / "batch_h200.csv"
shutil.copy(batch_src, OUT / "bench_tiny_batch.csv")
meta["batch_csv"] = "bench_tiny_batch.csv"
main_csv.with_suffix(".json").write_text(json.dumps(meta))

proc = results(main_csv, OUT / "page.md")
check(proc.returncode == 0, f"results.py exit {proc.returncode}: {proc.stderr.strip()}")
page = (OUT / "page.md").read_text() if (OUT / "page.md").exists() else ""
check("**batches** — time ÷ copy" in page, "the page has no batch section")
check("no batch section" not in page, "a run with a batch CSV is listed as having none")
# Every (images x shape, type) of the batch CSV is one table row with its three ratios and target.
with open(batch_src, newline="") as f:
    batch_rows = list(csv.DictReader(f))
targets = {("64", "1080", "1920"): "1.15", ("16", "2160", "3840"): "1.15", ("1", "1080", "1920"): "1.6"}
lines = page.splitlines()
for r in [r for r in batch_rows if r["method"] == "batch"]:
    same = {x["method"]: x for x in batch_rows if (x["batch"], x["rows"], x["cols"], x["type"]) ==
            (r["batch"], r["rows"], r["cols"], r["type"])}
    bound = targets[(r["batch"], r["rows"], r["cols"])]
    ratios = [f"{float(same[m]['time_per_copy']):.2f}" for m in ("batch", "per image", "+ squares")]
    verdict = "met" if float(r["time_per_copy"]) <= float(bound) else "missed"
    want = (f"| {r['batch']} x {r['rows']}x{r['cols']} | {r['type']} | {' | '.join(ratios)} | PASS | "
            f"{bound} | {verdict} |")
    check(want in lines, f"no table row {want!r}")
check(sum(line.startswith("| 64 x 1080x1920 |") for line in lines) == 2, "64 x 1080x1920 is not one row per type")
check("| lab | bound (time ÷ copy) |" in page, "a run of the default sizes has no targets table")
check(f"## {meta['gpu']}, {meta['date']}" in lines, "a run of the default sizes is not headed by its GPU and date alone")


def page_for(changes: dict, drop: str = "") -> tuple[int, str]:
    """results.py's exit and page for the tiny run's .json with `changes` (and key `drop` left out)."""
    m = {k: v for k, v in dict(meta, **changes).items() if k != drop}
    main_csv.with_suffix(".json").write_text(json.dumps(m))
    proc = results(main_csv, OUT / "page.md")
    return proc.returncode, (OUT / "page.md").read_text() if proc.returncode == 0 else ""


# A run of fewer sizes and labs (tools/bench.py --sizes 32768 --labs 9): its sizes and labs in its
# heading and facts, and no targets table, since the targets are at 16384 x 16384.
code, page = page_for({"sizes": ["32768"], "labs": {"9": ["LookBack"]}})
check(code == 0 and "| sizes, labs | 32768; peers, lab 9 |" in page
      and f"## {meta['gpu']}, {meta['date']} (32768; peers, lab 9)" in page,
      "a run of 32768 and lab 9 alone does not say so in its heading and its sizes, labs row")
check("Not measured: this run's sizes leave out 16384 x 16384." in page and "| lab | bound" not in page,
      "a run without 16384 x 16384 has a targets table")
check(f"### Targets (DESIGN.md) on the {meta['gpu']}, {meta['date']} (32768; peers, lab 9):" in page,
      "the subheadings of a run of fewer sizes do not name it as its heading does")


def heading_of(changes: dict, drop: str = "") -> str:
    """The page's first section heading for the tiny run's .json with `changes` (and key `drop` left out)."""
    code, page = page_for(changes, drop)
    heads = [line for line in page.splitlines() if line.startswith("## ")]
    return heads[0] if code == 0 and heads else f"exit {code}"


# The default sizes narrowed another way (bench.py's narrowed_by), no sizes recorded, and a run of
# the peers alone: each is named by its sizes and labs.
name = f"## {meta['gpu']}, {meta['date']}"
got = heading_of({"narrowed_by": ["--labs 9"], "labs": {"9": ["LookBack"]}})
check(got.startswith(name + " (1024, ") and got.endswith("; peers, lab 9)"), f"--labs 9 of the default sizes: {got!r}")
got = heading_of({}, drop="sizes")
check(got.startswith(name + " (not recorded; peers, lab "), f"no sizes in the .json: {got!r}")
got = heading_of({"sizes": ["4096"], "labs": {}})
check(got == name + " (4096; peers)", f"a run of the peers alone: {got!r}")

# The source's commit, where the .json records it, is one row of the run's facts; none, no row.
code, page = page_for({"source": "0123abc + changes"})
check(code == 0 and "| source | commit 0123abc + changes |" in page.splitlines(), "a recorded commit is not shown")
check(f"## {meta['gpu']}, {meta['date']}, commit 0123abc + changes" in page.splitlines(),
      "a recorded commit is not in the run's heading (two runs of one GPU and day would share a name)")
check(f"### Not measured on the {meta['gpu']}, {meta['date']}, commit 0123abc + changes" in page,
      "a recorded commit is not in the run's subheadings")
code, page = page_for({}, drop="source")
check(code == 0 and "| source |" not in page, "a run without a recorded commit has a source row")
check(f"## {meta['gpu']}, {meta['date']}" in page.splitlines(), "a run without a recorded commit names one")
# bench.py's source_revision: SAT_SOURCE_REV where set (a tree copied without .git), else git's.
probe = ("import sys; sys.path.insert(0, 'tools'); import bench; print(bench.source_revision())")
named = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "SAT_SOURCE_REV": "feedbee"}).stdout.strip()
check(named == "feedbee", f"SAT_SOURCE_REV=feedbee gives {named!r}")

# A .json that names no batch CSV, and one naming a file that is not there: the "Not measured" line.
for name, why in ((None, "names no batch CSV"), ("gone_batch.csv", "which is not beside the CSV")):
    if name:
        meta["batch_csv"] = name
    else:
        meta.pop("batch_csv")
    main_csv.with_suffix(".json").write_text(json.dumps(meta))
    proc = results(main_csv, OUT / "page.md")
    page = (OUT / "page.md").read_text()
    check(proc.returncode == 0 and "**batches**" not in page and why in page,
          f"batch CSV {name}: want no batch table and the line '... {why}'")

help_text = subprocess.run([sys.executable, str(ROOT / "tools" / "bench.py"), "--help"],
                           capture_output=True, text=True, cwd=ROOT).stdout
check("--no-batch" in help_text, "bench.py --help does not list --no-batch")

print(f"results_batch: {len(failures)} failed" if failures else "results_batch: all checks passed")
sys.exit(1 if failures else 0)
