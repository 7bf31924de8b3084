#!/usr/bin/env python3
"""Warp-state samples of the library's 2-D look-back kernel, phase by phase.

Input: the source page of one Nsight Compute report of lookback_sat_kernel, as SASS
(`ncu --section SourceCounters ... -o REP`, then `ncu -i REP.ncu-rep --page source --csv
--print-source sass > SASS.csv`). Nsight Compute samples every warp's state at a fixed
interval and counts the samples per instruction. This script adds them up between the
kernel's markers, in the order the tile loop runs (lib/src/lookback_kernel.cuh):

  start            up to the first block barrier (L2 prefetch, wait for the cleared flags, ticket)
  loads            up to the cp.async commit (register rows and shared-memory rows issued)
  register rows    up to the cp.async wait (the register rows' warp scans)
  shared rows      up to the next barrier (the shared-memory rows' warp scans)
  row sums         up to the next barrier (warp offsets, R)
  publish          up to the next barrier (C and R stored, state partial released after it)
  look-back        up to the next barrier (warp 0 along the tile row, warp 1 up the column)
  column carries   up to the next ticket's atomic (the column sums added, state done)
  next ticket      up to the next barrier
  write-out        up to the next barrier (the next tile's L2 prefetch, the tile's stores)
  end              the rest (leaving the loop)

A warp waiting at a barrier is sampled at the instruction after it, so each phase's `barrier`
column is the time warps spent waiting for the phase before it to finish in other warps.
The markers are checked: a kernel whose SASS lacks one in this order is an error, not a table.

  tools/ncu_phases.py SASS.csv --label "16384² f32" [--csv OUT --run "gpu,driver,cuda,date"]
"""
import argparse
import csv
import re
import sys

PHASES = ["start", "loads", "register rows", "shared rows", "row sums", "publish", "look-back",
          "column carries", "next ticket", "write-out", "end"]
# The marker that ends each phase but the last, found in this order in the SASS.
BARRIER = re.compile(r"\bBAR\.SYNC\b")
ENDS = [BARRIER, re.compile(r"\bLDGDEPBAR\b"), re.compile(r"\bDEPBAR\.LE\b"), BARRIER, BARRIER, BARRIER,
        BARRIER, re.compile(r"\bATOMG\.E\.ADD\b"), BARRIER, BARRIER]


def read_source_page(path):
    """The SASS rows of one kernel's source page: (instruction text, samples, barrier samples)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header_at = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
    if header_at is None:
        sys.exit(f"ncu_phases: {path}: no 'Address' header (not an ncu --page source --csv file)")
    header = rows[header_at]
    col = {name: k for k, name in enumerate(header)}
    for need in ("Source", "Warp Stall Sampling (All Samples)", "stall_barrier"):
        if need not in col:
            sys.exit(f"ncu_phases: {path}: no column '{need}' (profile with --section SourceCounters)")
    out = []
    for r in rows[header_at + 1:]:
        if len(r) < len(header):
            continue
        num = lambda name: int(r[col[name]] or 0)
        out.append((r[col["Source"]].strip(), num("Warp Stall Sampling (All Samples)"), num("stall_barrier")))
    return out


def phase_of_each(instructions):
    """The phase index of every instruction, cutting after each marker of ENDS in turn."""
    phases, phase = [], 0
    for text, _, _ in instructions:
        phases.append(phase)
        if phase < len(ENDS) and ENDS[phase].search(text):
            phase += 1
    if phase != len(ENDS):
        sys.exit(f"ncu_phases: found the markers of {phase} phases of {len(ENDS)}: "
                 f"not the kernel's SASS, or its structure changed (see PHASES)")
    return phases


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sass_csv")
    ap.add_argument("--label", required=True, help="the profiled case, e.g. '16384² f32'")
    ap.add_argument("--csv", help="append rows to this CSV (header written if new)")
    ap.add_argument("--run", default=",,,", help="gpu,driver,cuda,date of the run, for --csv")
    a = ap.parse_args()
    instructions = read_source_page(a.sass_csv)
    phases = phase_of_each(instructions)
    total = sum(s for _, s, _ in instructions)
    if total == 0:
        sys.exit("ncu_phases: no samples (profile with --section SourceCounters)")
    samples = [0] * len(PHASES)
    barrier = [0] * len(PHASES)
    for (_, s, b), p in zip(instructions, phases):
        samples[p] += s
        barrier[p] += b
    print(f"{a.label}: {total} samples")
    print(f"{'phase':16s} {'% of samples':>12s} {'% waiting at its barrier':>25s}")
    for name, s, b in zip(PHASES, samples, barrier):
        print(f"{name:16s} {100 * s / total:12.1f} {100 * b / total:25.1f}")
    if a.csv:
        import os
        new = not os.path.exists(a.csv) or os.path.getsize(a.csv) == 0
        run = a.run.split(",")
        if len(run) != 4:
            sys.exit("ncu_phases: --run takes gpu,driver,cuda,date")
        with open(a.csv, "a", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            if new:
                w.writerow(["gpu", "driver", "cuda", "date", "case", "phase", "samples", "total_samples",
                            "barrier_samples"])
            for name, s, b in zip(PHASES, samples, barrier):
                w.writerow(run + [a.label, name, s, total, b])


if __name__ == "__main__":
    main()
