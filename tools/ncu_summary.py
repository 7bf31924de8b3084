#!/usr/bin/env python3
"""One CSV row per Nsight Compute report of a library call (docs/data/ncu_*_h200.csv).

    python3 tools/ncu_summary.py --gpu NAME --driver V --cuda V --date D \\
        --case SHAPE,TYPE,REPORT [--case ...] OUT.csv

Each REPORT is ncu's text output (stdout) of

    ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats \\
        --section WarpStateStats \\
        --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio' \\
        --launch-count 12 build/peers --variant satlib --reps 1 --seed 7 --size SHAPE

Of its launches of the library's SAT kernels (the 2-D look-back or sat::thin; not the flag
clearing, the checks or the page touches), the one of median duration gives the row: grid and
block, registers, shared memory, time, DRAM throughput, SM active cycles ÷ elapsed cycles, warps
per SM, waves, cycles per issued instruction and four of its parts, the stall reasons barrier,
long scoreboard, wait and short scoreboard (cycles per issue each; the other reasons are left out).
Exit 2 with one line when a report has no such launch, lacks a metric or gives one in a unit
this does not know.
"""
import argparse
import csv
import re
import sys

SAT_KERNEL = re.compile(r"^  (?:void )?(?:\S+::)*(lookback_sat_kernel|thin_sat_kernel)<(.*?)>\(.*\) "
                        r"\((\d+), 1, 1\)x\((\d+), 1, 1\)")
TILE_SHAPE = re.compile(r"(\w*TileShape)")  # the 2-D kernel's tile shape (lib/src/lookback_kernel.cuh)
OTHER_KERNEL = re.compile(r"^  \S")
METRIC = re.compile(r"^\s{4}(\S.*?)\s{2,}(\S+\s+)?([\d,.]+)\s*$")
STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
STALLS = [("barrier", "barrier"), ("long scoreboard", "long_scoreboard"), ("wait", "wait"),
          ("short scoreboard", "short_scoreboard")]


def fail(message):
    print(f"ncu_summary: {message}", file=sys.stderr)
    sys.exit(2)


def launches(path):
    """(kernel, template arguments, grid, block, {metric: (unit, value)}) per SAT kernel launch."""
    found, current = [], None
    for line in open(path, errors="replace"):
        head = SAT_KERNEL.match(line)
        if head or OTHER_KERNEL.match(line):
            current = None
            if head:
                current = (head[1], head[2], int(head[3]), int(head[4]), {})
                found.append(current)
            continue
        metric = METRIC.match(line)
        if current is not None and metric:
            current[4][metric[1]] = ((metric[2] or "").strip(), float(metric[3].replace(",", "")))
    return found


MICROSECONDS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
KILOBYTES = {"byte/block": 1e-3, "Kbyte/block": 1.0, "Mbyte/block": 1e3}  # ncu's K is 1000


def in_units(path, m, name, scale):
    """Metric `name` of launch metrics `m` in the units of `scale` (ncu picks a unit per value)."""
    unit, value = m[name]
    if unit not in scale:
        fail(f"{path}: {name} in {unit or 'no unit'}, not one of {', '.join(scale)}")
    return value * scale[unit]


def row(shape, type_, path):
    sat = launches(path)
    if not sat:
        fail(f"{path}: no launch of lookback_sat_kernel or thin_sat_kernel")
    if any("Duration" not in m for *_, m in sat):
        fail(f"{path}: a launch without its Duration (SpeedOfLight section)")
    us = [in_units(path, m, "Duration", MICROSECONDS) for *_, m in sat]
    median = sorted(range(len(sat)), key=us.__getitem__)[(len(sat) - 1) // 2]
    kernel, args, grid, block, m = sat[median]
    try:
        shared = sum(in_units(path, m, f"{kind} Shared Memory Per Block", KILOBYTES) for kind in ("Dynamic", "Static"))
        out = {"shape": shape, "type": type_,
               "kernel": ("look-back, " + TILE_SHAPE.search(args)[1] if kernel == "lookback_sat_kernel"
                          else "sat::thin") + f", {block} threads",
               "grid × block": f"{grid:,} × {block}",
               "registers": f"{m['Registers Per Thread'][1]:.0f}",
               "shared KB per block": f"{shared:.1f}",
               "µs": f"{us[median]:.1f}",
               "DRAM % of peak": f"{m['DRAM Throughput'][1]:.1f}",
               "SM active % of elapsed": f"{100 * m['SM Active Cycles'][1] / m['Elapsed Cycles'][1]:.0f}",
               "warps per SM (of 64)": f"{m['Achieved Active Warps Per SM'][1]:.1f}",
               "waves": f"{m['Waves Per SM'][1]:.2f}",
               "cycles per issue": f"{m['Warp Cycles Per Issued Instruction'][1]:.2f}"}
        for name, key in STALLS:
            out[name] = f"{m[STALL.format(key)][1]:.2f}"
    except (KeyError, TypeError) as missing:
        fail(f"{path}: no metric {missing} (see the command in this file's header)")
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for meta in ("gpu", "driver", "cuda", "date"):
        ap.add_argument(f"--{meta}", required=True)
    ap.add_argument("--case", action="append", required=True, help="SHAPE,TYPE,REPORT")
    ap.add_argument("out")
    args = ap.parse_args(argv)
    rows = []
    for case in args.case:
        shape, type_, path = case.split(",", 2)
        rows.append({"gpu": args.gpu, "driver": args.driver, "cuda": args.cuda, "date": args.date,
                     "shipped": "n/a", **row(shape, type_, path)})
    with open(args.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
