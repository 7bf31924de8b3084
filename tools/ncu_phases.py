#!/usr/bin/env python3
"""Warp-state samples of the library's 2-D look-back kernel, phase by phase.

Input: the source page of one Nsight Compute report of lookback_sat_kernel, as SASS
(`ncu --section SourceCounters ... -o REP`, then `ncu -i REP.ncu-rep --page source --csv
--print-source sass > SASS.csv`). Nsight Compute samples every warp's state at a fixed
interval and counts the samples per instruction. This script adds them up between the
kernel's markers, in the SASS order of the tile loop (lib/src/lookback_kernel.cuh):

  start              to the first block barrier: the first tile's L2 prefetch, the wait for the
                     clearing kernel, the first ticket
  loads and register rows
                     to the cp.async wait: the tile's loads and the register rows' warp scans
                     (the compiler places most of these before the cp.async commit)
  shared rows        to the next barrier: the wait for the cp.async rows and their warp scans
  row sums           to the next barrier: R and each row's sums over the warps to the left
                     (one thread per row; in the kernel of 13bfef3, also the register rows'
                     warp offsets)
  publish            to the next barrier: C and R stored
  look-back          to the next barrier, the column loop's first: the release of state partial,
                     warp 0 along the tile row, warp 1's first window up the tile column
  column carries     to the next ticket's atomic: the column sums added (the column loop's other
                     barrier and the top strip's barrier lie here too)
  next ticket        to the next barrier
  write-out          to the next barrier: the release of state done, the next tile's L2
                     prefetch, the carries (one read of the warps to the left per row) added
                     and the tile's stores
  loop end           the rest: the loop's back edge and what the compiler places after it (the
                     look-back's out-of-line warp-synchronous paths)

A warp waiting at a barrier is sampled at the instruction after it, so each phase's barrier
share is time its warps spent waiting for the phase before it to end in other warps (in
column carries also at the top strip's barrier and between windows of the column loop).
The markers are checked (their number, and that the look-back ends at the barrier most warps
pass): a kernel whose SASS does not have them as described is refused, not tabled.

With --stall REASON (a stall column of the source page without its "stall_" prefix, e.g.
long_sb; repeatable) each phase also gets the samples of that reason (printed as % of the
case's samples, in the CSV as counts in a column stall_REASON), and with --executed the warp
instructions it executed (printed in millions, in the CSV as a count in a column `executed`).
Rows are appended to an existing CSV only where its header is the one this run would write.

  tools/ncu_phases.py SASS.csv --label "16384² f32" [--stall long_sb]... [--executed]
                      [--csv OUT --run "gpu,driver,cuda,date"]
"""
import argparse
import csv
import os
import re
import sys

KERNEL = "lookback_sat_kernel"
PHASES = ["start", "loads and register rows", "shared rows", "row sums", "publish", "look-back",
          "column carries", "next ticket", "write-out", "loop end"]
BARRIER = re.compile(r"\bBAR\.SYNC\b")
CP_ASYNC_WAIT = re.compile(r"\bDEPBAR\.LE\b")
TICKET = re.compile(r"\bATOMG\.E\.ADD\b")
# The marker that ends each phase but the last, met in this order in the SASS.
ENDS = [BARRIER, CP_ASYNC_WAIT, BARRIER, BARRIER, BARRIER, BARRIER, TICKET, BARRIER, BARRIER]
# How many of each the kernel has: the phases above, plus the top strip's barrier and the column
# loop's second barrier (in column carries) and the first ticket's atomic (in start).
COUNTS = {"BAR.SYNC": (BARRIER, 9), "DEPBAR.LE": (CP_ASYNC_WAIT, 1), "ATOMG.E.ADD": (TICKET, 2)}
# The source page's columns this script reads: samples per instruction, the part of them that
# waits at a barrier, and how often the instruction ran (which barrier most warps pass).
SAMPLES, BARRIER_SAMPLES, EXECUTED = "Warp Stall Sampling (All Samples)", "stall_barrier", "Instructions Executed"


class Refused(Exception):
    """An input this script cannot table; main prints it as one line and exits 1."""


def count(cell, name, line):
    """An integer cell of the source page (empty: 0)."""
    try:
        return int(cell or 0)
    except ValueError:
        raise Refused(f"line {line}: column '{name}' holds '{cell}', not a count") from None


def read_source_page(path, stalls=()):
    """The SASS rows of the source page's first kernel, which must be KERNEL: a list of
    (instruction text, samples, barrier samples, times executed, (samples of each of stalls))."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as e:
        raise Refused(f"cannot read {path}: {e}") from None
    header_at = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
    if header_at is None:
        raise Refused(f"{path}: no 'Address' header (not an ncu --page source --csv file)")
    names = [r[1] for r in rows[:header_at] if len(r) > 1 and r[0] == "Kernel Name"]
    if not names or KERNEL not in names[-1]:
        raise Refused(f"{path}: the kernel is not {KERNEL} ({names[-1] if names else 'no Kernel Name row'})")
    header = rows[header_at]
    col = {name: k for k, name in enumerate(header)}
    for need in ("Source", SAMPLES, BARRIER_SAMPLES, EXECUTED):
        if need not in col:
            raise Refused(f"{path}: no column '{need}' (profile with --section SourceCounters)")
    for reason in stalls:
        if f"stall_{reason}" not in col:
            have = sorted(n[len("stall_"):] for n in col if n.startswith("stall_") and "(" not in n)
            raise Refused(f"{path}: no column 'stall_{reason}'; its stall reasons: {', '.join(have) or 'none'}")
    out = []
    for line, r in enumerate(rows[header_at + 1:], start=header_at + 2):
        if r and r[0] in ("Kernel Name", "Address"):
            break  # the next kernel of a report of several
        if len(r) != len(header):
            raise Refused(f"{path}: line {line} has {len(r)} cells, the header {len(header)}")
        out.append((r[col["Source"]].strip(), count(r[col[SAMPLES]], SAMPLES, line),
                    count(r[col[BARRIER_SAMPLES]], BARRIER_SAMPLES, line), count(r[col[EXECUTED]], EXECUTED, line),
                    tuple(count(r[col[f"stall_{x}"]], f"stall_{x}", line) for x in stalls)))
    return out


def phase_of_each(instructions):
    """The phase index of every instruction, cutting after each marker of ENDS in turn."""
    for name, (pattern, expected) in COUNTS.items():
        found = sum(1 for text, *_ in instructions if pattern.search(text))
        if found != expected:
            raise Refused(f"{found} {name} instructions, not {expected}: not the kernel's SASS, or its "
                          "structure changed (see the phases above)")
    phases, phase = [], 0
    for text, *_ in instructions:
        phases.append(phase)
        if phase < len(ENDS) and ENDS[phase].search(text):
            phase += 1
    if phase != len(ENDS):
        raise Refused(f"the markers end {phase} of the {len(ENDS)} phases they should, in this order: "
                      "not the kernel's SASS, or its structure changed (see the phases above)")
    # The look-back ends at the column loop's first barrier, which every tile below the top strip
    # passes: the most executed of the barriers from there to the next ticket. Were the top
    # strip's barrier laid out first, the look-back would end there instead.
    look_back, carries = PHASES.index("look-back"), PHASES.index("column carries")
    barriers = [(ex, p) for (text, _, _, ex, _), p in zip(instructions, phases)
                if BARRIER.search(text) and p in (look_back, carries)]
    if barriers[0][1] != look_back or barriers[0][0] < max(ex for ex, _ in barriers):
        raise Refused("the barrier that ends the look-back is not the column loop's (the most executed "
                      "one before the next ticket): the compiler laid the loop out otherwise")
    return phases


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sass_csv")
    ap.add_argument("--label", required=True, help="the profiled case, e.g. '16384² f32'")
    ap.add_argument("--stall", action="append", default=[], metavar="REASON",
                    help="also count this stall reason per phase (e.g. long_sb); repeatable")
    ap.add_argument("--executed", action="store_true", help="also count the warp instructions executed per phase")
    ap.add_argument("--csv", help="append rows to this CSV (header written if new); needs --run")
    ap.add_argument("--run", help="gpu,driver,cuda,date of the run, for --csv")
    args = ap.parse_args()
    run = args.run.split(",") if args.run else []
    if args.csv and (len(run) != 4 or not all(run)):
        ap.error("--csv needs --run gpu,driver,cuda,date (four fields, none empty)")
    header = ["gpu", "driver", "cuda", "date", "case", "phase", "samples", "total_samples", "barrier_samples",
              *(f"stall_{x}" for x in args.stall), *(["executed"] if args.executed else [])]
    try:
        instructions = read_source_page(args.sass_csv, args.stall)
        phases = phase_of_each(instructions)
        new = args.csv and (not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0)
        if args.csv and not new:
            with open(args.csv, newline="", encoding="utf-8") as f:
                if next(csv.reader(f), None) != header:
                    raise Refused(f"{args.csv} has other columns than {','.join(header)}")
    except Refused as e:
        print(f"ncu_phases: {e}", file=sys.stderr)
        return 1
    total = sum(s for _, s, _, _, _ in instructions)
    if total == 0:
        print("ncu_phases: no samples (profile with --section SourceCounters)", file=sys.stderr)
        return 1
    samples, barrier = [0] * len(PHASES), [0] * len(PHASES)
    stalled, executed = [[0] * len(args.stall) for _ in PHASES], [0] * len(PHASES)
    for (_, s, b, ex, by_reason), p in zip(instructions, phases):
        samples[p] += s
        barrier[p] += b
        stalled[p] = [a + n for a, n in zip(stalled[p], by_reason)]
        executed[p] += ex
    print(f"{args.label}: {total} samples")
    print(f"{'phase':24s} {'% of samples':>12s} {'of them at its barrier':>23s}"
          + "".join(f" {'of them ' + x:>16s}" for x in args.stall)
          + (f" {'instructions (M)':>16s}" if args.executed else ""))
    for name, s, b, by_reason, ex in zip(PHASES, samples, barrier, stalled, executed):
        print(f"{name:24s} {100 * s / total:12.1f} {100 * b / total:23.1f}"
              + "".join(f" {100 * n / total:16.1f}" for n in by_reason)
              + (f" {ex / 1e6:16.2f}" if args.executed else ""))
    if args.csv:
        with open(args.csv, "a", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            if new:
                w.writerow(header)
            for name, s, b, by_reason, ex in zip(PHASES, samples, barrier, stalled, executed):
                w.writerow(run + [args.label, name, s, total, b, *by_reason, *([ex] if args.executed else [])])
    return 0


if __name__ == "__main__":
    sys.exit(main())
