#!/usr/bin/env python3
"""results.py — `make results`: docs/results.md from a bench CSV and the .json beside it.

    python3 tools/results.py plots/bench_h100.csv plots/bench_h200.csv docs/results.md

One section per run (one `make bench` on one GPU): the GPU, driver, toolkit, host, date and
(where recorded) the source's commit from the .json (tools/bench.py writes both files), then time
÷ copy time per algorithm and size for each type (the tables tools/bench.py prints), the DESIGN.md
targets, the library's batches (when the .json names a batch CSV beside the CSV:
build/lib/bench_batch's rows, issue 22's targets), and what was skipped or missing.
Edit the CSV/JSON pair (a new `make bench` run), not the page. Exit 2 with one line when the CSV
is not a bench CSV or its metadata is missing.

    python3 tools/results.py --check BENCH.csv [BENCH.csv ...] OUT.md   (make check-results)

writes nothing: exit 0 when OUT.md is the page those runs give, 1 (one line) when it is not, for
example where a run's batch CSV is not committed beside it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "plots"))

from bench import BATCH_TARGETS, RECTS, SQUARES, TARGETS, read_rows, summary_tables, target_name  # noqa: E402
from bench_data import load_from_argv  # noqa: E402

NEEDED = ["gpu", "driver", "nvcc", "date"]
BATCH_METHODS = ["batch", "per image", "+ squares"]  # bench_batch's method column, in table order


def batch_section(batch_path: Path, gpu: str) -> list[str]:
    """The library's batches: time ÷ copy per (images x shape, type) and method, against issue 22's targets."""
    cells: dict[tuple, dict[str, dict]] = {}  # (batch, rows, cols, type) -> method -> row
    for r in read_rows(batch_path):
        cells.setdefault((int(r["batch"]), int(r["rows"]), int(r["cols"]), r["type"]), {})[r["method"]] = r
    out = [
        "",
        f"**batches** — time ÷ copy on the {gpu} (build/lib/bench_batch, from `{batch_path}`; shapes are "
        "images x rows x cols; copy = device-to-device copy of the batch's bytes)",
        "",
        "| images x shape | type | batch (one launch) | per image | sums + squares | check | target | |",
        "|---|---|---:|---:|---:|---|---:|---|",
    ]
    for (n, rows, cols, t), methods in cells.items():
        vals = []
        for m in BATCH_METHODS:
            r = methods.get(m)
            vals.append("-" if r is None else r["check"] if r["check"] != "PASS" else f"{float(r['time_per_copy']):.2f}")
        checks = sorted({r["check"] for r in methods.values()})
        bound = BATCH_TARGETS.get((n, rows, cols))
        one_launch = methods.get("batch")
        verdict = ""
        if bound is not None and one_launch is not None and one_launch["check"] == "PASS":
            verdict = "met" if float(one_launch["time_per_copy"]) <= bound else "missed"
        out.append(f"| {n} x {rows}x{cols} | {t} | " + " | ".join(vals) +
                   f" | {', '.join(checks)} | {bound if bound is not None else ''} | {verdict} |")
    return out


def as_list(value) -> list:
    """A .json list, also when an older bench wrote it as the repr of a Python list."""
    if isinstance(value, list):
        return value
    if isinstance(value, str) and value.startswith("["):
        import ast
        try:
            return list(ast.literal_eval(value))
        except (ValueError, SyntaxError):
            return [value]
    return [] if not value else [value]


def run_sizes(meta: dict) -> list[str]:
    """The sizes the .json says the run measured (none: not recorded)."""
    return [str(s) for s in as_list(meta.get("sizes"))]


def sizes_and_labs(meta: dict) -> str:
    """What a run measured: its sizes and labs from the .json (a run of `tools/bench.py --sizes ..
    --labs ..` measures fewer than `make bench`)."""
    sizes = ", ".join(run_sizes(meta)) or "not recorded"
    if "labs" in meta:
        labs = ", ".join(["peers"] * bool(meta.get("peers")) + [f"lab {k}" for k in meta["labs"]]) or "none"
    else:
        labs = "not recorded"
    return f"{sizes}; {labs}"


def run_name(meta: dict) -> str:
    """The run's GPU and date, and its commit where the .json has one (two runs of one day then
    have two names); a run that measured less than `make bench` (its .json's narrowed_by, or sizes
    other than the default ones) adds its sizes and labs."""
    default_sizes = run_sizes(meta) == [str(s) for s in SQUARES] + RECTS
    narrowed = bool(meta.get("narrowed_by")) or not default_sizes
    commit = f", commit {meta['source']}" if meta.get("source") else ""
    return f"{meta['gpu']}, {meta['date']}{commit}" + (f" ({sizes_and_labs(meta)})" if narrowed else "")


def run_section(csv_path: Path, meta: dict, rows: list[dict]) -> list[str]:
    """One run's facts, its time ÷ copy tables, the targets and what it did not measure."""
    types = [t for t in meta.get("types") or ["f32", "f64", "u8i32"] if any(r["type"] == t for r in rows)]
    _, md, targets = summary_tables(rows, types)
    not_pass = [r for r in rows if r["check"] != "PASS"]
    failed, skipped = as_list(meta.get("failed")), as_list(meta.get("skipped"))
    cuda = f" (CUDA {meta['cuda_driver_version']} driver API)" if meta.get("cuda_driver_version") else ""
    when = meta["date"]  # the run's date (its start time is in the JSON)
    title = run_name(meta)
    if meta.get("elapsed_s"):
        when += f"; {meta['elapsed_s']:.0f} s of benchmark"
    out = [
        f"## {title}",
        "",
        f"From `{csv_path}` and `{csv_path.with_suffix('.json')}`.",
        "",
        "| | |",
        "|---|---|",
        f"| GPU | **{meta['gpu']}**, driver {meta['driver']}{cuda} |",
        f"| toolkit | nvcc {meta['nvcc']} |",
        f"| host | {meta.get('cpu', 'not recorded')} (lab 1 runs here) |",
        f"| date | {when} |",
        f"| seed | {meta.get('seed', 'not recorded')} |",
        f"| sizes, labs | {sizes_and_labs(meta)} |",
        *([f"| source | commit {meta['source']} |"] if meta.get("source") else []),
        f"| rows | {len(rows)}, {len(rows) - len(not_pass)} PASS, {len(not_pass)} not PASS |",
        f"| failed runs | {len(failed) or 'none'} |",
        f"| skipped runs | {len(skipped) or 'none'} (time budget" +
        (f" {meta['budget_s']:.0f} s)" if meta.get("budget_s") else ")") + " |",
        md,
        "",
        f"### Targets (DESIGN.md) on the {title}: f32 16384 x 16384, best variant per lab",
        "",
    ]
    if "16384" in (run_sizes(meta) or ["16384"]):  # sizes not recorded: an older full run
        out += ["| lab | bound (time ÷ copy) | best variant | measured | |", "|---|---:|---|---:|---|"]
        for lab in sorted(TARGETS, key=lambda lab: -lab if lab else -100):  # the library first
            bound, best = targets.get(lab, (TARGETS[lab], None))
            if best is None:
                out.append(f"| {target_name(lab)} | {bound} | not measured | | |")
            else:
                out.append(f"| {target_name(lab)} | {bound} | {best[0]} | {best[1]:.2f} | "
                           f"{'met' if best[1] <= bound else 'missed'} |")
    else:
        out.append("Not measured: this run's sizes leave out 16384 x 16384.")
    batch_name = meta.get("batch_csv")
    batch_path = csv_path.with_name(batch_name) if batch_name else None
    has_batch = batch_path is not None and batch_path.is_file()
    if has_batch:
        out += batch_section(batch_path, meta["gpu"])
    missing = meta.get("missing") or {}
    if missing or skipped or failed or not has_batch:
        out += ["", f"### Not measured on the {title}", ""]
        out += [f"- missing peer {name}: {why}" for name, why in missing.items()]
        out += [f"- skipped: `{' '.join(str(s).split())}`" for s in skipped]
        out += [f"- failed: `{' '.join(str(s).split())}`" for s in failed]
        if not has_batch:
            out.append("- batches (build/lib/bench_batch): no batch section: "
                       + (f"the .json names `{batch_name}`, which is not beside the CSV" if batch_name
                          else "the run's .json names no batch CSV"))
    return out


def page(runs: list[tuple[Path, dict, list[dict]]]) -> str:
    gpus = " and ".join(dict.fromkeys(meta["gpu"] for _, meta, _ in runs))
    sources = ", ".join(f"`{csv_path}`" for csv_path, _, _ in runs)
    out = [
        f"# Measured results: {gpus}",
        "",
        f"Generated by `make results` (tools/results.py) from {sources} and the .json beside each, "
        "each the output of one run of tools/bench.py: `make bench`, or a run of fewer sizes and labs "
        "(its `sizes, labs` row). Do not edit: rerun the bench and `make results`.",
        "",
        "Each cell is the median time over the repetitions of one process divided by a device-to-device "
        "copy of (input + output bytes) / 2, which reads and writes as many bytes as one read of the input "
        "and one write of the output, timed in the same process (lab 1: a host `memcpy`); 1.00 is copy speed. "
        "Shapes are rows x cols; 1K = 1024 x 1024. A cell that is not a number is the row's check "
        "(FAIL/ERROR); `-` means not run at that size. Ratios compare within one run only.",
        "",
    ]
    for csv_path, meta, rows in runs:
        out += run_section(csv_path, meta, rows) + [""]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str]) -> int:
    check = len(argv) > 1 and argv[1] == "--check"
    if check:
        argv = argv[:1] + argv[2:]
    if len(argv) < 3:
        print("usage: results [--check] BENCH.csv [BENCH.csv ...] OUT.md", file=sys.stderr)
        return 2
    runs = []
    for arg in argv[1:-1]:
        _, csv_path, _ = load_from_argv([argv[0], arg, argv[-1]], "results", "OUT.md")
        meta_path = csv_path.with_suffix(".json")
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            print(f"results: {meta_path.name} (the run's GPU, driver, toolkit and date) is missing or not JSON",
                  file=sys.stderr)
            return 2
        absent = [k for k in NEEDED if not meta.get(k)]
        if absent:
            print(f"results: {meta_path.name} does not name the run's {', '.join(absent)}", file=sys.stderr)
            return 2
        runs.append((csv_path, meta, read_rows(csv_path)))
    out_path = Path(argv[-1])
    if check:
        same = out_path.is_file() and out_path.read_text() == page(runs)
        print(f"results: {out_path} " + (f"is the page of its {len(runs)} runs" if same else
                                         f"is not the page of its {len(runs)} runs: run `make results`"))
        return 0 if same else 1
    out_path.write_text(page(runs))
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
