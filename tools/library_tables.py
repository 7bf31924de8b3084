#!/usr/bin/env python3
"""Regenerate the measured tables of docs/library.md from committed CSV (make library-tables).

    docs/data/library_h100.csv  the C++ library (build/peers variant satlib) beside NPP and CUB,
                                measured through the harness (one row per variant, type, shape)
    docs/data/python_h100.csv   tools/bench_python.py (satlib.integral against torch, kornia, CuPy, NPP)

Each table goes between its <!-- BEGIN/END ... --> markers; every number is time / a device copy
of the same bytes timed in the same process.
"""
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "library.md"


def library_table(path):
    rows = list(csv.DictReader(open(path)))
    first = rows[0]
    by = {(r["variant"], r["type"], f'{r["rows"]}x{r["cols"]}'): r for r in rows}
    shapes = list(dict.fromkeys(f'{r["rows"]}x{r["cols"]}' for r in rows))
    types = list(dict.fromkeys(r["type"] for r in rows))
    ratio = lambda r: float(r["median_ms"]) / float(r["copy_ms"])
    runs = sorted({r.get("run", "A") for r in rows})
    out = [f'{first["gpu"]}, driver {first["driver"]}, CUDA {first["cuda"]}, {first["date"]}: '
           "`build/peers --variant satlib,CUB-two-pass,NPP-integral --reps 10`, time / copy "
           "(rows x cols; median time of satlib in ms in brackets)"
           + (f"; {len(runs)} runs on that machine, rows marked * from run {runs[-1]}" if len(runs) > 1 else "")
           + ".", "",
           "| shape | type | satlib | CUB two-pass | NPP (u8 only) |", "|---|---|---:|---:|---:|"]
    for s in shapes:
        for t in types:
            lib = by.get(("satlib", t, s))
            if not lib:
                continue
            mark = "*" if len(runs) > 1 and lib.get("run", "A") == runs[-1] else ""
            cells = [f'{ratio(lib):.2f} ({float(lib["median_ms"]):.3f}){mark}']
            for v in ("CUB-two-pass", "NPP-integral"):
                r = by.get((v, t, s))
                cells.append(f"{ratio(r):.2f}" if r else "-")
            out.append(f"| {s} | {t} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def python_table(path):
    rows = list(csv.DictReader(open(path)))
    cases = list(dict.fromkeys(r["case"] for r in rows))
    methods = ["satlib", "satlib+squares", "torch", "kornia", "cupy", "npp"]
    methods = [m for m in methods if any(r["method"] == m for r in rows)]
    by = {(r["case"], r["method"]): float(r["ratio_to_copy"]) for r in rows}
    quick = " --quick" if all(int(r["rows"]) <= 4096 for r in rows) else ""  # the full run has 8192^2
    out = [f'{rows[0]["gpu"]}: `tools/bench_python.py{quick}` (time / copy, median; one call per '
           "timed repetition, asynchronous).", "",
           "| case | " + " | ".join(methods) + " |", "|---|" + "---:|" * len(methods)]
    for c in cases:
        out.append(f"| {c} | " + " | ".join(f"{by[(c, m)]:.2f}" if (c, m) in by else "-" for m in methods) + " |")
    return "\n".join(out)


def replace(text, begin, end, table):
    a, b = text.index(begin), text.index(end)
    return text[: a + len(begin)] + "\n" + table + "\n" + text[b:]


def main():
    try:
        text = DOC.read_text()
        text = replace(text, "<!-- BEGIN LIBRARY TABLE -->", "<!-- END LIBRARY TABLE -->",
                       library_table(ROOT / "docs/data/library_h100.csv"))
        text = replace(text, "<!-- BEGIN MEASURED TABLE -->", "<!-- END MEASURED TABLE -->",
                       python_table(ROOT / "docs/data/python_h100.csv"))
    except (OSError, ValueError, KeyError) as e:
        print(f"library_tables: {e}", file=sys.stderr)
        return 2
    DOC.write_text(text)
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
