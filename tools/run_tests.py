#!/usr/bin/env python3
"""Run every test binary and every test hook of `make test`; end with one summed line.

    python3 tools/run_tests.py [--timeout S] [--filter SPEC] [--hook TARGET]... BINARY...

Each binary runs with its own time limit, so a crash or a hang in one costs only its own count
(it is counted as one failed test) and the others still run. A hook is a make target whose last
line is "N passed, N failed, N skipped" (its own counts). A binary or hook that prints no such
line is counted as one failed test too, whatever its exit status. After each one a line
"-- NAME took S s" (wall-clock time, for planning runs on a lent GPU). The last line printed is
the sum: "N passed, N failed, N skipped". Exit status 0 when nothing failed, 1 otherwise.
last_counts() reads that line for other tools (delay_mutants.py; grade.py keeps its own copy, so
that it runs with only sanitize.py and deps.sh beside it, as in tests/test_grader.cpp's copy).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

# Our own test runners' last line (tests/main.cpp, and every hook by convention).
COUNTS = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped\s*$", re.M)


def last_counts(output):
    """The last counts line in a test binary's output as (passed, failed, skipped), or None."""
    found = COUNTS.findall(output)
    return tuple(map(int, found[-1])) if found else None


def run(cmd, timeout):
    """(exit status or None when timed out, last counts line or None); output streams through."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                         text=True, errors="replace")
    last, killed = None, []

    def kill():
        killed.append(True)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                return

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        for line in p.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            m = COUNTS.match(line)
            if m:
                last = tuple(map(int, m.groups()))
        p.wait()
    finally:
        timer.cancel()
    return (None if killed else p.returncode), last


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per binary or hook")
    ap.add_argument("--filter", default="", help="a Catch2 test spec for every binary")
    ap.add_argument("--hook", action="append", default=[], help="a make target that prints its counts")
    ap.add_argument("binaries", nargs="*")
    args = ap.parse_args(argv)
    total = [0, 0, 0]
    broken = []
    steps = [([b] + ([args.filter] if args.filter else []), b) for b in args.binaries]
    steps += [(["make", "--no-print-directory", h], f"make {h}") for h in args.hook]
    for cmd, name in steps:
        print(f"== {name}", flush=True)
        started = time.monotonic()
        if not os.path.exists(cmd[0]) and cmd[0] != "make":
            rc, counts = 127, None
        else:
            rc, counts = run(cmd, args.timeout)
        print(f"-- {name} took {time.monotonic() - started:.1f} s", flush=True)
        if counts:
            total = [a + b for a, b in zip(total, counts)]
        if rc is None:
            why = f"timed out after {args.timeout:g} s and was killed"
        elif rc < 0:
            why = f"crashed ({signal.Signals(-rc).name})" if -rc in signal.valid_signals() else f"died (signal {-rc})"
        elif not counts:  # a hook that drifts from the convention must not drop its tests from the sum
            why = f"exited with status {rc} without its counts line"
        elif rc != 0 and counts[1] == 0:
            why = f"exited with status {rc}"
        else:
            why = None
        if why:   # counted as one failed test, on top of what it reported
            total[1] += 1
            broken.append(f"{name}: {why}")
    for line in broken:
        print(f"test: {line} (counted as 1 failed)")
    print(f"{total[0]} passed, {total[1]} failed, {total[2]} skipped", flush=True)
    return 0 if total[1] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
