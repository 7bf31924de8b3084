"""bench_data.py — read a bench CSV (the harness's --csv rows) and its .json, for make_plots.py.

Only rows whose check is PASS are plotted. Lab 6 rows: the row at the benchmark's r (0.25, the
paper's 1.25R1W) stands for the algorithm; a (type, size) with three or more r values is a sweep.
"""
from __future__ import annotations

import csv
import datetime as dt
import json
import math
import sys
from pathlib import Path

TYPES = ["f32", "f64", "u8i32", "i32"]
LAB6_R = 0.25
NUMERIC = ["median_ms", "min_ms", "max_ms", "copy_ms", "gbps", "pct_copy", "hmm_units", "hmm_latencies",
           "predicted_ms", "unit_ns", "l_launch_us", "l_graph_us", "r"]


def side_label(side: float) -> str:
    s = int(round(side))
    return f"{s // 1024}K" if s % 1024 == 0 else str(s)


class BenchData:
    def __init__(self, rows: list[dict], meta: dict, csv_path: Path):
        self.all_rows = rows
        # Plotted: timed PASS rows of one image per run (rows of a --batch run are left out).
        self.rows = [r for r in rows if r["check"] == "PASS" and r["median_ms"] > 0 and r["batch"] == 1]
        self.meta = meta
        gpu_rows = [r for r in rows if r["lab"] != 1]
        self.gpu = meta.get("gpu") or (gpu_rows[0]["device"] if gpu_rows else "no GPU rows")
        cpu_rows = [r for r in rows if r["lab"] == 1]
        self.cpu = meta.get("cpu") or (cpu_rows[0]["device"] if cpu_rows else "CPU")
        if meta.get("date"):
            extra = ", ".join(x for x in [
                f"driver {meta['driver']}" if meta.get("driver") else "",
                f"CUDA {meta['cuda_driver_version']}" if meta.get("cuda_driver_version") else "",
                f"nvcc {meta['nvcc']}" if meta.get("nvcc") else ""] if x)
            self.date_text = f"benchmark of {meta['date']}" + (f" ({extra})" if extra else "")
        else:
            day = dt.date.fromtimestamp(csv_path.stat().st_mtime).isoformat()
            self.date_text = f"CSV written {day} (no {csv_path.with_suffix('.json').name} beside it)"
        self.provenance = f"{csv_path.name}: {len(rows)} rows, {len(self.rows)} PASS"
        self._primary = self._pick_primary()

    # ---- selection ------------------------------------------------------------------------------

    def _pick_primary(self):
        """One row per (lab, variant, type, shape): lab 6 at r = 0.25 when present."""
        chosen = {}
        for r in self.rows:
            key = (r["lab"], r["variant"], r["type"], r["rows"], r["cols"])
            old = chosen.get(key)
            if old is None:
                chosen[key] = r
            elif r["lab"] == 6 and abs(r["r"] - LAB6_R) < 1e-9 and abs(old["r"] - LAB6_R) > 1e-9:
                chosen[key] = r
        return chosen

    def rows_of(self, type_=None):
        return [r for r in self.rows if type_ is None or r["type"] == type_]

    def algorithms(self):
        seen = []
        for r in sorted(self.rows, key=lambda r: r["lab"]):
            a = (r["lab"], r["variant"])
            if a not in seen:
                seen.append(a)
        return seen

    @staticmethod
    def algo_label(a):
        lab, v = a
        if lab == 0:
            return f"{v} (peer)"
        if lab == 1:
            return f"{v} (lab 1)"
        if lab == 6:
            return f"{v} r={LAB6_R} (lab 6)"
        return f"{v} (lab {lab})"

    @staticmethod
    def is_transpose(a):
        return a[1].startswith("transpose")

    def series(self, algo, type_):
        out = [r for k, r in self._primary.items() if (k[0], k[1]) == algo and k[2] == type_]
        return sorted(out, key=lambda r: (not r["square"], r["side"]))

    def curve(self, algo, type_, value):
        return [(r["side"], r[value], r["square"]) for r in self.series(algo, type_) if r[value] > 0]

    def copy_curve(self, type_):
        by_side = {}
        for r in self.rows:
            if r["lab"] != 1 and r["type"] == type_ and r["square"] and r["copy_ms"] > 0:
                by_side.setdefault(r["side"], []).append(r["copy_ms"])
        return [(s, sorted(v)[len(v) // 2]) for s, v in sorted(by_side.items())]

    def sweeps(self):
        """{(type, rows, cols): points by r} of each lab 6 --sweep: a run of consecutive lab 6 rows
        of one type and size in the CSV (one process, one calibration) with three or more r values.
        Rows of the same size from other runs (the r = 0.25 benchmark row) are left out, since
        their latency calibration, and so their prediction, comes from another process."""
        groups, run_key, run = {}, None, []

        def close():
            if run_key is not None and len({round(r["r"], 9) for r in run}) >= 3:
                best = groups.get(run_key)
                if best is None or len(run) > len(best):
                    groups[run_key] = list(run)

        for r in self.all_rows:  # file order
            key = (r["type"], r["rows"], r["cols"]) if r["lab"] == 6 else None
            if key != run_key:
                close()
                run_key, run = key, []
            if key is not None and r["check"] == "PASS" and r["median_ms"] > 0:
                run.append(r)
        close()
        out = {}
        for key, rows in sorted(groups.items(), key=lambda kv: (kv[0][0] != "f64", kv[0][1] * kv[0][2])):
            by_r = {}
            for r in rows:
                by_r.setdefault(round(r["r"], 9), []).append(r)
            if len(by_r) < 3:
                continue
            pts = []
            for rv, rs in sorted(by_r.items()):
                rs = sorted(rs, key=lambda x: x["median_ms"])
                pts.append(dict(r=rv, median_ms=rs[len(rs) // 2]["median_ms"],
                                predicted_ms=rs[0]["predicted_ms"], copy_ms=rs[0]["copy_ms"]))
            out[key] = pts
        return dict(list(out.items())[:4])

    def model_rows(self, algo):
        return [r for k, r in self._primary.items() if (k[0], k[1]) == algo and r["predicted_ms"] > 0]

    def cpu_best(self, type_):
        best = {}
        for r in self.rows:
            if r["lab"] == 1 and r["type"] == type_:
                key = (r["rows"], r["cols"])
                if key not in best or r["median_ms"] < best[key][0]:
                    best[key] = (r["median_ms"], r["variant"])
        return best


REQUIRED = ["device", "lab", "variant", "type", "rows", "cols", "median_ms", "copy_ms", "check"]


class BenchError(Exception):
    """A file that is not a bench CSV, or holds nothing to show: one line for the user."""


def load(csv_path: Path) -> BenchData:
    """Rows of a bench CSV; raises BenchError (one line) for a file that is not one or is empty."""
    rows = []
    try:
        f = open(csv_path, newline="")
    except OSError as e:
        raise BenchError(f"{csv_path}: cannot read ({e.strerror})") from None
    with f:
        reader = csv.DictReader(f)
        try:
            header = reader.fieldnames or []
        except (csv.Error, UnicodeDecodeError):
            header = []
        missing = [k for k in REQUIRED if k not in header]
        if missing:
            raise BenchError(f"{csv_path}: not a bench CSV (no column {', '.join(missing[:3])}"
                             f"{' ...' if len(missing) > 3 else ''}; make bench or --csv FILE writes one)")
        for line, raw in enumerate(reader, start=2):
            r = dict(raw)
            try:
                r["lab"] = int(r["lab"])
                r["rows"], r["cols"] = int(r["rows"]), int(r["cols"])
                r["batch"] = int(r.get("batch") or 1)  # CSV files before the batch column: one image
            except (TypeError, ValueError):
                raise BenchError(f"{csv_path}:{line}: malformed row (lab, rows, cols and batch must be integers)") from None
            for k in NUMERIC:
                try:
                    r[k] = float(r.get(k) or 0)
                except ValueError:
                    r[k] = 0.0
                if r[k] != r[k]:  # NaN
                    r[k] = 0.0
            r["side"] = math.sqrt(r["rows"] * r["cols"])
            r["square"] = r["rows"] == r["cols"]
            rows.append(r)
    if not rows:
        raise BenchError(f"{csv_path}: holds a header but no rows")
    if not any(r["check"] == "PASS" and r["median_ms"] > 0 and r["batch"] == 1 for r in rows):
        raise BenchError(f"{csv_path}: no timed PASS rows to show")
    meta_path = csv_path.with_suffix(".json")
    meta = {}
    if meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            meta = {}
    return BenchData(rows, meta, csv_path)


def load_from_argv(argv: list[str], prog: str, out_what: str) -> tuple[BenchData, Path, Path]:
    """(data, CSV path, output path) from `prog BENCH.csv OUT`. Anything else, a missing file or
    a file that is not a bench CSV: one line on stderr and SystemExit(2)."""
    if len(argv) != 3:
        print(f"usage: {prog} BENCH.csv {out_what}", file=sys.stderr)
        raise SystemExit(2)
    csv_path, out_path = Path(argv[1]), Path(argv[2])
    if not csv_path.exists():
        print(f"{prog}: {csv_path} not found (run make bench, or use plots/sample_bench.csv)", file=sys.stderr)
        raise SystemExit(2)
    try:
        return load(csv_path), csv_path, out_path
    except BenchError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        raise SystemExit(2) from None
