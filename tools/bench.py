#!/usr/bin/env python3
"""bench.py — `make bench`: every lab's reference solution and the peers, Table II style.

Runs each reference binary (./labN-ref, built by `make refs`) and build/peers (NPP, CUB; built
here with `make build/peers` when missing) through the shared harness, so every row is checked
and carries the device-to-device copy of the same bytes measured in the same process (copy_ms).

  sizes   1K, 2K, 4K, 8K, 16K, 32K squares, plus 1080x1920 and 2160x3840 (rows x cols)
  types   f32, f64, u8i32; i32 too for the library (peers `satlib`: squares, thin shapes) and the
          CUB two-pass (squares), not for the labs (--types names the types of every run instead)
  limits  slow teaching variants stop early: 2R2W at 16K, 4R1W at 4K (side of the matrix);
          the CPU lab (lab 1) runs up to 8K with 3 repetitions
  reps    20 up to 4K, 10 at 8K-16K, 5 at 32K (median reported; L2 flushed before each run)
  lab 6   (1+r)R1W at r = 0.25 (the paper's 1.25R1W) at every size, plus an r sweep
          (--sweep, about 24 values of r) at 4K and 16K, f64 as in Kasagi et al. Table II
  thin    1x16M, 16Mx1, 3x40M, 40Mx3, 33x4M, 4Mx33 (f32, f64, i32, u8i32): the library only (peers
          `satlib`), whose dispatcher sends a short side <= 64 to its 1-D look-back; the labs'
          2-D kernels take 10-200x a copy there (docs/thin.md); tabled apart from the squares
  batch   build/lib/bench_batch (the library's batches: 64 x 1080x1920, 16 x 2160x3840 and one
          1080x1920, f32 and u8i32; one launch vs one call per image vs sums + squares), after the
          thin shapes, into <CSV stem>_batch.csv (--no-batch leaves it out; --quick too)
  order   the peers (the library, CUB, NPP) up to 16K, the thin shapes, the batches and the
          peers at 32K first, then the labs up to 16K and lab 6's sweep, then the labs at 32K;
          32K type by type (f32, u8i32, f64, i32; lab 3 last) while the time budget (--budget,
          default 540 s) lasts; what did not fit is listed as skipped

Output (GPU name in the file name): build/bench_<gpu>.csv (the harness's CSV rows),
build/bench_<gpu>.json (GPU, driver, CUDA, date, the source's commit, what was skipped or missing,
the batch CSV's name; SAT_SOURCE_REV names the commit of a tree copied without .git),
build/bench_<gpu>_batch.csv (bench_batch's rows), build/bench_<gpu>.md
(the summary tables) and build/bench_<gpu>.log (every binary's own output). The printed summary
is time / copy time per algorithm and size. Pictures (--pictures DIR): the box-filter demo and the
tile-completion traces of labs 5, 6, 8 and 9.

Plots: python3 plots/make_plots.py build/bench_<gpu>.csv build/plots   (or make plots CSV=...)
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SQUARES = [1024, 2048, 4096, 8192, 16384, 32768]
RECTS = ["1080x1920", "2160x3840"]  # rows x cols, as the CLI reads and prints shapes
TYPES = ["f32", "f64", "i32", "u8i32"]
# Run by the peers only (the library, LIBRARY_VARIANT, and CUB's two-pass; NPP takes u8 only) unless
# --types names it: the library's fourth type (its targets cover f32, f64, i32 and u8 -> i32, and
# its ratio to the CUB two-pass); the labs stay at three types, within the time budget.
PEERS_ONLY_TYPES = ["i32"]
BIG_TYPE_ORDER = ["f32", "u8i32", "f64", "i32"]  # 32K, most wanted first
# Largest side a slow teaching variant runs at. Formula (1) (4R1W) loses each a[i][j] in f32 once
# b passes 2^24 (about 6000^2, docs/lab5.md), so both 4R1W variants stop at 4096.
SLOW_CAPS = {"2R2W": 16384, "4R1W": 4096, "4R1W(CPU)": 4096}
CPU_MAX_SIDE = 8192
CPU_REPS = 3
LAB6_R = 0.25
SWEEP_SIZES = [4096, 16384]
SWEEP_TYPES = ["f64"]
SWEEP_REPS = 10
# DESIGN.md targets: time / copy, f32 16384x16384, best variant of the lab.
TARGETS = {9: 1.11, 8: 1.3, 4: 1.8, 7: 2.2, 3: 4.5, 0: 1.11}  # 0: the peers, i.e. the library (satlib)


def target_name(lab: int) -> str:
    return "library (peers)" if lab == 0 else f"lab {lab}"
# Thin shapes (rows x cols): the library's 1-D look-back; target <= 1.5 x copy (issue 22).
THIN = ["1x16777216", "16777216x1", "3x40000000", "40000000x3", "33x4000000", "4000000x33"]
THIN_TYPES = ["f32", "f64", "i32", "u8i32"]
LIBRARY_VARIANT = "satlib"  # the library among the peers
THIN_VARIANT = LIBRARY_VARIANT
THIN_REPS = 10
THIN_TARGET = 1.5
THIN_SIDE = 64  # a shape whose short side is at most this is "thin" in the tables
TRANSPOSE_PREFIX = "transpose"  # lab 3's transpose variants compute a transpose, not a SAT
# Batches of images (issue 22): the library's build/lib/bench_batch, its own CSV beside the main one.
BATCH_BINARY = "build/lib/bench_batch"
BATCH_REPS = 20
BATCH_ESTIMATE_S = 60.0  # 3 shapes x 2 types x 4 timings, plus filling and checking 64 x 1080x1920 on the host
BATCH_TARGETS = {(64, 1080, 1920): 1.15, (16, 2160, 3840): 1.15, (1, 1080, 1920): 1.6}  # (images, rows, cols)


def batch_csv_path(csv_path: Path) -> Path:
    """bench_batch's CSV beside the main one: build/bench_<gpu>.csv -> build/bench_<gpu>_batch.csv."""
    return csv_path.with_name(csv_path.stem + "_batch.csv")


# ---- Sizes --------------------------------------------------------------------------------------

class Size:
    def __init__(self, text: str):
        self.text = text
        if "x" in text:
            rows, cols = text.split("x")
            self.rows, self.cols = int(rows), int(cols)
        else:
            self.rows = self.cols = int(text)
        self.side = max(self.rows, self.cols)

    def __repr__(self):
        return self.text


def reps_for(size: Size) -> int:
    return 20 if size.side <= 4096 else 10 if size.side <= 16384 else 5


# ---- Discovery ----------------------------------------------------------------------------------

def narrowing_options(args) -> list[str]:
    """The command-line options that make a run measure less than `make bench` (tools/results.py
    names such a run by its sizes and labs)."""
    values = [f"--{name} {getattr(args, name)}" for name in ("sizes", "types", "labs") if getattr(args, name)]
    flags = [f"--{name.replace('_', '-')}" for name in ("quick", "no_peers", "no_sweep", "no_thin", "no_batch")
             if getattr(args, name)]
    return values + flags


def lab_binaries() -> list[tuple[int, str, Path]]:
    """(sort key, lab id, path) of every ./labN-ref in the repository root."""
    found = []
    for path in ROOT.glob("lab*-ref"):
        m = re.fullmatch(r"lab(\d+)(x?)-ref", path.name)
        # Labs with an x (lab 8x: task arrays) solve other problems than the SAT: not benchmarked.
        if m and not m.group(2) and os.access(path, os.X_OK):
            found.append((int(m.group(1)) * 10 + (1 if m.group(2) else 0), m.group(1) + m.group(2), path))
    return sorted(found)


def listing(binary: Path) -> dict:
    """The binary's own machine-readable listing (`--list`): {"lab", "gpu", "trace", "variants": [...]}."""
    out = subprocess.run([str(binary), "--list"], capture_output=True, text=True, timeout=30)
    try:
        return json.loads(out.stdout)
    except ValueError:
        raise SystemExit(f"bench: {binary.name} --list gave no JSON (exit {out.returncode}); rebuild with make refs")


def variants_of(binary: Path) -> list[str]:
    return [v["name"] for v in listing(binary)["variants"]]


def gpu_refusal(labs) -> str | None:
    """The one line a GPU lab prints when this machine cannot run it, or None when it can."""
    for _, _, path in labs:
        if not listing(path)["gpu"]:
            continue
        probe = subprocess.run([str(path), "--size", "64", "--reps", "0"], capture_output=True, text=True,
                               cwd=ROOT, timeout=120)
        if probe.returncode == 2:
            lines = (probe.stderr or probe.stdout).strip().splitlines()
            return lines[0] if lines else f"{path.name} exit 2"
        return None
    return None


def gpu_info() -> dict:
    info = {"gpu": None, "driver": None, "cuda_driver_version": None, "nvcc": None}
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        if q.returncode == 0 and q.stdout.strip():
            name, driver = [x.strip() for x in q.stdout.strip().splitlines()[0].split(",")[:2]]
            info["gpu"], info["driver"] = name, driver
        full = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30).stdout
        m = re.search(r"CUDA Version:\s*([\d.]+)", full)
        if m:
            info["cuda_driver_version"] = m.group(1)
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        v = subprocess.run([os.environ.get("NVCC", "nvcc"), "--version"], capture_output=True, text=True, timeout=30)
        m = re.search(r"release ([\d.]+), (V[\d.]+)", v.stdout)
        if m:
            info["nvcc"] = f"{m.group(1)} ({m.group(2)})"
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def source_revision() -> str | None:
    """The commit the tree is checked out at (with "+ changes" when tracked files differ from it),
    or SAT_SOURCE_REV where it is set: a copy of the tree without .git, on a GPU machine, is named
    by the one who copies it. None when neither says."""
    if os.environ.get("SAT_SOURCE_REV"):
        return os.environ["SAT_SOURCE_REV"]
    if not (ROOT / ".git").exists():
        return None
    try:
        git = ["git", "-C", str(ROOT)]
        head = subprocess.run(git + ["rev-parse", "--short=7", "HEAD"], capture_output=True, text=True, timeout=30)
        if head.returncode != 0:
            return None
        changed = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                 text=True, timeout=30).stdout.strip()
        return head.stdout.strip() + (" + changes" if changed else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "gpu"


# ---- Running ------------------------------------------------------------------------------------

class Bench:
    def __init__(self, args):
        self.args = args
        self.start = time.monotonic()
        self.skipped: list[str] = []
        self.failed: list[str] = []
        self.missing: dict[str, str] = {}
        self.group_seconds: dict[str, float] = {}
        self.log = open(args.log, "w")

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def run(self, label: str, cmd: list[str], estimate: float = 0.0, key: str | None = None,
            csv_path: Path | None = None, seed: bool = True) -> bool:
        """Run one binary with --csv (the main CSV unless `csv_path`) and --seed (unless not `seed`);
        skip it when the budget cannot cover `estimate` seconds."""
        left = self.args.budget - self.elapsed()
        if left <= 0 or estimate > left:
            why = f"budget: {self.elapsed():.0f} s used of {self.args.budget:.0f} s" + (
                f", needs about {estimate:.0f} s" if estimate > 0 else "")
            self.skipped.append(f"{label} ({why})")
            print(f"[{self.elapsed():6.1f}s] SKIP {label}: {why}", flush=True)
            return False
        full = cmd + ["--csv", str(csv_path or self.args.csv)] + (["--seed", str(self.args.seed)] if seed else [])
        rel = " ".join(c if c.startswith("-") or "/" not in c else os.path.relpath(c, ROOT) for c in full)
        print(f"[{self.elapsed():6.1f}s] {label}", flush=True)
        self.log.write(f"\n$ {rel}\n")
        self.log.flush()
        t0 = time.monotonic()
        try:
            proc = subprocess.run(full, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT,
                                  timeout=max(30.0, left + 60.0))
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        seconds = time.monotonic() - t0
        if key:
            self.group_seconds[key] = seconds
        if rc != 0:
            what = {1: "a check failed or a run errored", 2: "bad usage, no GPU or unreadable input"}.get(rc, str(rc))
            self.failed.append(f"{label}: exit {rc} ({what}); see {os.path.relpath(self.args.log, ROOT)}")
        print(f"           {seconds:6.1f} s{'' if rc == 0 else f'   exit {rc}'}", flush=True)
        return rc == 0


def plan_and_run(bench: Bench, sizes: list[Size], types: list[str], quick: bool, before_big=None,
                 peers_only: tuple[str, ...] = ()):
    args = bench.args
    labs = lab_binaries()
    if args.labs:
        wanted = set(args.labs.split(","))
        labs = [l for l in labs if l[1] in wanted]
    if not labs:
        print("bench: no ./labN-ref binaries; run `make refs` first", file=sys.stderr)
        sys.exit(2)
    lab_variants = {lab_id: variants_of(path) for _, lab_id, path in labs}

    # Peers: build them, then ask whether NPP is in.
    peers = ROOT / "build" / "peers"
    peer_variants: list[str] = []
    if not args.no_peers:
        if not args.no_build:
            made = subprocess.run(["make", "-s", "build/peers"], cwd=ROOT, capture_output=True, text=True)
            if made.returncode != 0:
                bench.log.write("\n$ make build/peers\n" + made.stdout + made.stderr)
        if peers.exists():
            peer_variants = variants_of(peers)
            probe = subprocess.run([str(peers), "--size", "64", "--type", "u8i32", "--variant", "NPP-integral",
                                    "--reps", "0"], capture_output=True, text=True, cwd=ROOT, timeout=60)
            if probe.returncode != 0:
                reason = next((l.strip() for l in probe.stdout.splitlines() + probe.stderr.splitlines()
                               if "error" in l.lower() or "NPP" in l), f"exit {probe.returncode}")
                bench.missing["NPP-integral"] = reason
                peer_variants = [v for v in peer_variants if v != "NPP-integral"]
            else:
                bench.missing["NPP-integral (f32, f64)"] = "NPP's integral image takes 8-bit input only (8u->32s, 8u->32f)"
        else:
            bench.missing["NPP-integral"] = bench.missing["CUB-two-pass"] = "build/peers did not build (see the log)"

    small = [s for s in sizes if s.side <= 16384]
    big = [s for s in sizes if s.side > 16384]

    def allowed(variants, size, cpu):
        if cpu:
            return [v for v in variants if size.side <= min(CPU_MAX_SIDE, SLOW_CAPS.get(v, 1 << 30))]
        return [v for v in variants if size.side <= SLOW_CAPS.get(v, 1 << 30)]

    def groups(variants, size_list, cpu):
        """Sizes sharing (allowed variants, reps) run in one process."""
        out: dict[tuple, list[Size]] = {}
        for s in size_list:
            vs = allowed(variants, s, cpu)
            if vs:
                out.setdefault((tuple(vs), CPU_REPS if cpu else reps_for(s)), []).append(s)
        return out

    def types_of(variant: str | None) -> list[str]:
        """The types a peer variant runs (None: a lab): NPP u8i32 only; peers_only, not the labs'."""
        return [x for x in types if (variant != "NPP-integral" or x == "u8i32")
                and (variant is not None or x not in peers_only)]

    def command(path, variants, size_list, type_list, reps, extra=()):
        return [str(path), "--sizes", ",".join(s.text for s in size_list), "--type", ",".join(type_list),
                "--variant", ",".join(variants), "--reps", str(reps), *extra]

    # The library and its peers first (what a short budget must not lose), then the labs.
    peer_jobs, lab_jobs = [], []  # (label, path, variants, sizes, types, reps, extra)
    if peer_variants:
        for v in peer_variants:
            t = types_of(v)
            if t:
                for (vs, reps), ss in groups([v], small, False).items():
                    peer_jobs.append(("peers", peers, list(vs), ss, t, reps, ()))
    for _, lab_id, path in labs:
        cpu = lab_id == "1"
        extra = ("--r", str(LAB6_R)) if lab_id == "6" else ()
        for (vs, reps), ss in groups(lab_variants[lab_id], small, cpu).items():
            if types_of(None):
                lab_jobs.append((f"lab{lab_id}", path, list(vs), ss, types_of(None), reps, extra))

    def run_big(jobs_of_type):
        """32K, type by type, while the budget lasts: the jobs (label, binary, variants, extra
        arguments) that jobs_of_type(type) lists; the estimate scales the job's 8K+16K run."""
        for t in [x for x in BIG_TYPE_ORDER if x in types]:
            for label, path, variant_list, extra in jobs_of_type(t):
                for s in big:
                    vs = allowed(variant_list, s, False)
                    if not vs:
                        continue
                    # Seconds per type of this label's 8K+16K jobs (a peer job ran its variant's types).
                    same = [sec / max(1, len(types_of(k.split(":", 1)[1] if label == "peers" else None)))
                            for k, sec in bench.group_seconds.items() if k.startswith(f"{label}:")]
                    estimate = 4.0 * sum(same) * 0.8 if same else 0.0
                    bench.run(f"{label:6} {','.join(vs)}  {s.text}  {t}  reps {reps_for(s)}",
                              command(path, vs, [s], [t], reps_for(s), extra), estimate=estimate)

    def run_jobs(jobs):
        for label, path, vs, ss, ts, reps, extra in jobs:
            key = f"{label}:{','.join(vs)}" if any(s.side == 16384 for s in ss) else None
            bench.run(f"{label:6} {','.join(vs)}  {','.join(s.text for s in ss)}  {','.join(ts)}  reps {reps}",
                      command(path, vs, ss, ts, reps, extra), key=key)

    run_jobs(peer_jobs)

    # Thin shapes: the library only (one process per type).
    if THIN_VARIANT in peer_variants and not args.no_thin and not quick:
        thin = [Size(x) for x in THIN]
        for t in [x for x in THIN_TYPES if x in types]:
            bench.run(f"peers  {THIN_VARIANT}  thin shapes  {t}  reps {THIN_REPS}",
                      command(peers, [THIN_VARIANT], thin, [t], THIN_REPS))

    # The library's batches; a student release has no library source (lib/src), so no batches.
    if not args.no_batch and not quick and (ROOT / "lib" / "src" / "satlib.cu").exists():
        run_batch(bench)

    run_big(lambda t: [("peers", peers, [v for v in peer_variants if t in types_of(v)], ())]
            if peer_variants else [])

    run_jobs(lab_jobs)

    # The r sweep of lab 6.
    lab6 = next((p for _, i, p in labs if i == "6"), None)
    if lab6 is not None and not args.no_sweep:
        sweep_sizes = [Size(str(x)) for x in ([1024] if quick else SWEEP_SIZES)]
        for s in sweep_sizes:
            st = [t for t in SWEEP_TYPES if t in types] or types[:1]
            bench.run(f"lab6   (1+r)R1W --sweep  {s.text}  {','.join(st)}  reps {SWEEP_REPS}",
                      [str(lab6), "--sweep", "--sizes", s.text, "--type", ",".join(st), "--reps", str(SWEEP_REPS)])

    if before_big:
        before_big()  # the pictures: cheap, and wanted even when 32K runs out of time

    # The labs at 32K, lab 3 last (its transposes are the costliest host-side checks at 32K and
    # the least needed there).
    run_big(lambda t: sorted([(f"lab{i}", p, lab_variants[i], ("--r", str(LAB6_R)) if i == "6" else ())
                              for _, i, p in labs if i != "1" and t in types_of(None)],
                             key=lambda job: job[0] == "lab3"))
    return labs, lab_variants, peer_variants


def run_batch(bench: Bench):
    """The library's batches (build/lib/bench_batch, built here unless --no-build) into batch_csv_path."""
    args = bench.args
    binary = ROOT / BATCH_BINARY
    label = f"lib    bench_batch  64x1080x1920,16x2160x3840,1x1080x1920  f32,u8i32  reps {BATCH_REPS}"
    if not args.no_build:
        made = subprocess.run(["make", "-s", BATCH_BINARY], cwd=ROOT, capture_output=True, text=True)
        if made.returncode != 0:
            bench.log.write(f"\n$ make {BATCH_BINARY}\n" + made.stdout + made.stderr)
    if not binary.exists():
        bench.failed.append(f"{label}: {BATCH_BINARY} did not build; see {os.path.relpath(args.log, ROOT)}")
        print(f"[{bench.elapsed():6.1f}s] {label}: {BATCH_BINARY} missing", flush=True)
        return
    out = batch_csv_path(args.csv)
    # bench_batch draws its own data (no --seed); its checks are exact.
    bench.run(label, [str(binary), "--reps", str(BATCH_REPS)], estimate=BATCH_ESTIMATE_S, csv_path=out, seed=False)


def pictures(bench: Bench, out_dir: Path):
    """Box-filter demo and tile-completion traces (each a check-only run, no timing)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    runs = [
        ("lab9-ref", ["--box", "0", "--sizes", "640x480", "--output", str(out_dir / "box_input.png")]),
        ("lab9-ref", ["--box", "15", "--sizes", "640x480", "--output", str(out_dir / "box_filter_r15.png")]),
        ("lab5-ref", ["--variant", "1R1W", "--size", "2048", "--reps", "0", "--trace", str(out_dir / "trace_lab5_1R1W.png")]),
        ("lab6-ref", ["--r", str(LAB6_R), "--size", "2048", "--reps", "0", "--trace", str(out_dir / "trace_lab6_1.25R1W.png")]),
        ("lab8-ref", ["--variant", "SKSS", "--size", "2048", "--reps", "0", "--trace", str(out_dir / "trace_lab8_SKSS.png")]),
        ("lab8-ref", ["--variant", "SKSS-warp", "--size", "2048", "--reps", "0", "--trace", str(out_dir / "trace_lab8_SKSS-warp.png")]),
        ("lab9-ref", ["--size", "2048", "--reps", "0", "--trace", str(out_dir / "trace_lab9_LookBack.png")]),
    ]
    for binary, extra in runs:
        path = ROOT / binary
        if not path.exists():
            print(f"pictures: {binary} missing, skipped", flush=True)
            continue
        cmd = [str(path), *extra, "--seed", str(bench.args.seed)]
        bench.log.write("\n$ " + " ".join(os.path.relpath(c, ROOT) if c.startswith(str(ROOT)) else c for c in cmd) + "\n")
        bench.log.flush()
        rc = subprocess.run(cmd, stdout=bench.log, stderr=subprocess.STDOUT, cwd=ROOT, timeout=120).returncode
        print(f"[{bench.elapsed():6.1f}s] picture {binary} {' '.join(extra[:2])}: {'ok' if rc == 0 else f'exit {rc}'}", flush=True)


# ---- Summary ------------------------------------------------------------------------------------

def read_rows(csv_path: Path) -> list[dict]:
    with open(csv_path, newline="") as f:
        return list(csv.DictReader(f))


def size_label(rows: int, cols: int) -> str:
    if rows == cols:
        return f"{rows // 1024}K" if rows % 1024 == 0 else str(rows)
    if min(rows, cols) <= THIN_SIDE:  # 3x40000000 -> 3x40M, 1x16777216 -> 1x16Mi
        return "x".join(long_side(n) for n in (rows, cols))
    return f"{rows}x{cols}"


def long_side(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}Mi"
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    return str(n)


def images(r: dict) -> int:
    """Images in a harness CSV row (its `batch` column, --batch B); 1 for rows of CSV files written
    before the column existed."""
    return int(r.get("batch") or 1)


def summary_tables(rows: list[dict], types: list[str]) -> tuple[str, str, dict]:
    """Plain-text and Markdown tables of time / copy; also the target check. One image per run
    only: rows of a batch (--batch) are left out."""
    base = [r for r in rows if images(r) == 1 and not (r["lab"] == "6" and abs(float(r["r"]) - LAB6_R) > 1e-9)]
    # Keep one row per (lab, variant, type, size): the sweep adds more lab 6 rows at r = 0.25.
    algos, cells, copies, shapes = [], {}, {}, set()
    for r in base:
        key = (int(r["lab"]), r["variant"])
        if key not in algos:
            algos.append(key)
        shape = (int(r["rows"]), int(r["cols"]))
        shapes.add(shape)
        med, copy = float(r["median_ms"]), float(r["copy_ms"])
        if r["check"] != "PASS":
            val = r["check"]
        elif med > 0 and copy > 0:
            val = med / copy
        else:
            val = "-"
        cells.setdefault((key, r["type"], shape), val)
        if r["lab"] != "1" and copy > 0:
            copies.setdefault((r["type"], shape), []).append(copy)
    algos.sort(key=lambda a: a[0])  # by lab, variants in the order they ran
    order = sorted(shapes, key=lambda s: (s[0] != s[1], s[0] * s[1]))
    text, md = [], []
    for t, thin in [(t, thin) for thin in (False, True) for t in types]:
        cols = [s for s in order if (min(s) <= THIN_SIDE) == thin and any((a, t, s) in cells for a in algos)]
        if not cols:
            continue
        heads = [size_label(*s) for s in cols]
        what = f"{t}, thin shapes (target <= {THIN_TARGET})" if thin else t
        title = f"time / copy time, {what} (median of the reps; copy = device-to-device copy of the same bytes)"
        text.append(title)
        text.append(f"{'lab':>3} {'algorithm':20}" + "".join(f"{h:>10}" for h in heads))
        md.append(f"\n**{what}** — time ÷ copy time (lower is better; 1.00 = copy speed)\n")
        md.append("| lab | algorithm | " + " | ".join(heads) + " |")
        md.append("|---:|---|" + "---:|" * len(heads))
        copy_row = []
        for s in cols:
            c = copies.get((t, s))
            copy_row.append(f"{sorted(c)[len(c) // 2]:.3f}" if c else "-")
        text.append(f"{'':>3} {'copy [ms]':20}" + "".join(f"{c:>10}" for c in copy_row))
        md.append("|  | *copy time [ms]* | " + " | ".join(copy_row) + " |")
        for a in algos:
            vals = [cells.get((a, t, s)) for s in cols]
            if all(v is None for v in vals):
                continue
            fmt = ["-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v)) for v in vals]
            name = a[1] + (f" r={LAB6_R}" if a[0] == 6 else "")
            text.append(f"{a[0]:>3} {name:20}" + "".join(f"{v:>10}" for v in fmt)
                        + ("   (vs CPU memcpy)" if a[0] == 1 else ""))
            md.append(f"| {a[0] if a[0] else 'peer'} | {name}{' (÷ CPU memcpy)' if a[0] == 1 else ''} | "
                      + " | ".join(fmt) + " |")
        text.append("")
    # Targets (DESIGN.md), f32 16384^2, best variant of each lab.
    target_rows = {}
    for lab, bound in TARGETS.items():
        best = None
        for (l, v), t, s in [k for k in cells if k[0][0] == lab and k[1] == "f32" and k[2] == (16384, 16384)]:
            val = cells[((l, v), t, s)]
            if isinstance(val, float) and not v.startswith(TRANSPOSE_PREFIX) and (best is None or val < best[1]):
                best = (v, val)
        target_rows[lab] = (bound, best)
    return "\n".join(text), "\n".join(md), target_rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="CSV path (default build/bench_<gpu>.csv)")
    ap.add_argument("--budget", type=float, default=540.0, help="seconds for all runs (default 540)")
    ap.add_argument("--sizes", help="comma list instead of the default sizes, e.g. 1024,1080x1920 (rows x cols)")
    ap.add_argument("--types", help="comma list, every run at each (default: f32,f64,u8i32, and i32 for the library)")
    ap.add_argument("--labs", help="only these lab ids, e.g. 4,9")
    ap.add_argument("--seed", type=int, default=20140901)
    ap.add_argument("--quick", action="store_true", help="1K and 1080x1920 only, f32 and u8i32: a smoke test")
    ap.add_argument("--pictures", help="also write the box-filter and trace pictures into this folder")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--no-thin", action="store_true", help="leave out the thin shapes (library only)")
    ap.add_argument("--no-batch", action="store_true",
                    help="leave out the library's batches (build/lib/bench_batch -> <CSV stem>_batch.csv)")
    ap.add_argument("--no-build", action="store_true", help="do not run make build/peers or build/lib/bench_batch")
    ap.add_argument("--summary-only", metavar="CSV", help="print the summary of an existing CSV and stop")
    args = ap.parse_args()

    types = args.types.split(",") if args.types else (["f32", "u8i32"] if args.quick else TYPES)
    if args.summary_only:
        text, md, targets = summary_tables(read_rows(Path(args.summary_only)), types)
        print(text)
        print_targets(targets)
        return 0

    # Without a usable GPU nothing can be measured: say so once, before any file is written.
    refusal = gpu_refusal(lab_binaries())
    if refusal:
        print(f"bench: nothing measured: {refusal}", file=sys.stderr)
        return 2
    info = gpu_info()
    gpu = info["gpu"] or "gpu"
    csv_path = Path(args.out) if args.out else ROOT / "build" / f"bench_{slug(gpu)}.csv"
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    for stale in (csv_path, batch_csv_path(csv_path)):
        if stale.exists():
            stale.unlink()  # a fresh CSV per run (the binaries append; the .json names only this run's batch CSV)
    args.csv = csv_path.resolve()
    args.log = csv_path.with_suffix(".log")
    sizes = [Size(x) for x in args.sizes.split(",")] if args.sizes else (
        [Size("1024"), Size("1080x1920")] if args.quick else [Size(str(x)) for x in SQUARES] + [Size(x) for x in RECTS])

    bench = Bench(args)
    started = dt.datetime.now(dt.timezone.utc)
    print(f"bench: {gpu} (driver {info['driver']}, CUDA {info['cuda_driver_version']}, nvcc {info['nvcc']}); "
          f"seed {args.seed}; budget {args.budget:.0f} s; CSV {os.path.relpath(csv_path, ROOT)}", flush=True)
    labs, lab_variants, peer_variants = plan_and_run(
        bench, sizes, types, args.quick,
        before_big=(lambda: pictures(bench, Path(args.pictures))) if args.pictures else None,
        peers_only=() if args.types else tuple(PEERS_ONLY_TYPES))
    elapsed = bench.elapsed()

    rows = read_rows(csv_path) if csv_path.exists() else []
    text, md, targets = summary_tables(rows, types)
    print()
    print(text)
    print_targets(targets)
    slow = ", ".join(f"{v} up to {c // 1024}K" for v, c in SLOW_CAPS.items())
    print(f"limits: slow teaching variants {slow}; CPU lab up to {CPU_MAX_SIDE // 1024}K; lab 6 at r = {LAB6_R}")
    for name, why in bench.missing.items():
        print(f"missing peer: {name}: {why}")
    for s in bench.skipped:
        print(f"skipped: {s}")
    for f in bench.failed:
        print(f"FAILED: {f}")
    bad = [r for r in rows if r["check"] != "PASS"]
    print(f"bench: {len(rows)} rows ({len(bad)} not PASS) in {elapsed:.0f} s -> {os.path.relpath(csv_path, ROOT)}")
    print(f"plots: make plots CSV={os.path.relpath(csv_path, ROOT)}")

    meta = {
        "gpu": gpu, "driver": info["driver"], "cuda_driver_version": info["cuda_driver_version"],
        "nvcc": info["nvcc"], "source": source_revision(), "cpu": cpu_name(), "date": started.strftime("%Y-%m-%d"),
        "started_utc": started.isoformat(timespec="seconds"), "elapsed_s": round(elapsed, 1),
        "seed": args.seed, "budget_s": args.budget, "narrowed_by": narrowing_options(args),
        "sizes": [s.text for s in sizes], "types": types,
        "slow_caps": SLOW_CAPS, "cpu_max_side": CPU_MAX_SIDE, "lab6_r": LAB6_R,
        "labs": {i: lab_variants[i] for _, i, _ in labs}, "peers": peer_variants,
        "missing": bench.missing, "skipped": bench.skipped, "failed": bench.failed,
        "rows": len(rows), "rows_not_pass": len(bad),
        "targets_f32_16384": {str(k): {"bound": b, "best": best} for k, (b, best) in targets.items()},
    }
    batch_csv = batch_csv_path(csv_path)
    if batch_csv.exists():
        meta["batch_csv"] = batch_csv.name  # tools/results.py reads it beside the main CSV
    csv_path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    csv_path.with_suffix(".md").write_text(
        f"# Benchmark summary: {gpu}\n\n{meta['date']}, driver {info['driver']}, CUDA {info['cuda_driver_version']}, "
        f"nvcc {info['nvcc']}, {elapsed:.0f} s, seed {args.seed}\n{md}\n")
    bench.log.close()
    return 0 if not bench.failed and not bad else 1


def print_targets(targets):
    if not targets:
        return
    print("DESIGN targets, f32 16384x16384, best variant per lab (time / copy):")
    for lab, (bound, best) in sorted(targets.items(), key=lambda kv: -kv[0] if kv[0] else -100):
        if best is None:
            print(f"  {target_name(lab)}: <= {bound}: not measured")
        else:
            print(f"  {target_name(lab)}: <= {bound}: {best[0]} {best[1]:.2f}  {'met' if best[1] <= bound else 'MISSED'}")


if __name__ == "__main__":
    sys.exit(main())
