#!/usr/bin/env python3
"""Run every test binary and every test hook of `make test`; end with one summed line.

    python3 tools/run_tests.py [--timeout S] [--filter SPEC] [--jobs N] [--part BINARY=TERM]...
                               [--hook TARGET]... BINARY...

Each binary runs with its own time limit, so a crash or a hang in one costs only its own count
(it is counted as one failed test) and the others still run. A hook is a make target whose last
line is "N passed, N failed, N skipped" (its own counts). A binary or hook that prints no such
line is counted as one failed test too, whatever its exit status. After each one a line
"-- NAME took S s" (wall-clock time, for planning runs on a lent GPU). The last line printed is
the sum: "N passed, N failed, N skipped". Exit status 0 when nothing failed, 1 otherwise.
With --jobs N (make test TEST_JOBS=N) up to N binaries run at once, and the hooks one after
another beside them (each runs make in this tree, which builds what it needs). Each one's output
is then printed whole when it ends, so the blocks do not interleave; with 1 (the default) it
streams. Side by side needs what make test builds first up to date (some tests run make on it),
and shares the machine among tests that time themselves. A binary given parts (--part BINARY=TERM
once per part; terms such as [library] and ~[library], which hold every case once between them)
runs once per part, with the cases that match both the filter and the part's term, so that a long
binary's parts run side by side. Each part is a step of its own, named "BINARY TERM", with its
own time limit and counts (a crash is one failed test of that part). Ctrl-C kills the running
steps, starts no more and exits with status 130.
last_counts() reads that line for other tools (delay_mutants.py; grade.py keeps its own copy, so
that it runs with only sanitize.py and deps.sh beside it, as in tests/test_grader.cpp's copy).
"""
import argparse
import io
import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

# Our own test runners' last line (tests/main.cpp, and every hook by convention).
COUNTS = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped\s*$", re.M)


def last_counts(output):
    """The last counts line in a test binary's output as (passed, failed, skipped), or None."""
    found = COUNTS.findall(output)
    return tuple(map(int, found[-1])) if found else None


def alternatives(spec):
    """The comma-separated alternatives of a Catch2 test spec (a case runs if it matches any), blank
    ones left out; a backslash escapes the next character, so that "\\," is a comma in a name."""
    return [a for a in re.findall(r"(?:\\.?|[^\\,])+", spec, re.S) if a.strip()]


def part_spec(filter_spec, term):
    """One Catch2 test spec for the cases that match both filter_spec and term ("[library]", "~[a][b]").

    Catch2 ANDs the terms of an alternative, so the term goes in front of each one (after a tag the
    parser is where an alternative starts; after a name the term would join the name). No filter
    stands for "~[.]", the cases Catch2 runs without one: a spec that only excludes, such as
    "~[library]", matches the hidden cases too.
    """
    return ",".join(t + a for t in alternatives(term) for a in (alternatives(filter_spec) or ["~[.]"]))


# The steps' processes running now, and whether Ctrl-C asked every step to stop: each step runs in
# a session of its own (a hang is killed with its children), so none sees the Ctrl-C itself.
live, live_lock, stopping = set(), threading.Lock(), threading.Event()


def kill_group(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return


def run(cmd, timeout, out):
    """(exit status or None when timed out, last counts line or None); output streams to `out`."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                         text=True, errors="replace")
    with live_lock:
        live.add(p)
    if stopping.is_set():  # started as Ctrl-C killed the others
        kill_group(p)
    last, killed = None, []

    def time_out():
        killed.append(True)
        kill_group(p)

    timer = threading.Timer(timeout, time_out)
    timer.start()
    try:
        for line in p.stdout:
            out.write(line)
            out.flush()
            m = COUNTS.match(line)
            if m:
                last = tuple(map(int, m.groups()))
        p.wait()
    except BaseException:  # Ctrl-C while this step runs in the main thread
        kill_group(p)
        raise
    finally:
        timer.cancel()
        with live_lock:
            live.discard(p)
    return (None if killed else p.returncode), last


def run_step(cmd, name, timeout, out):
    """One binary or hook, framed by its name and its time: (exit status or None, counts or None)."""
    out.write(f"== {name}\n")
    out.flush()
    started = time.monotonic()
    if not os.path.exists(cmd[0]) and cmd[0] != "make":
        rc, counts = 127, None
    else:
        rc, counts = run(cmd, timeout, out)
    out.write(f"-- {name} took {time.monotonic() - started:.1f} s\n")
    out.flush()
    return rc, counts


def broken_why(rc, counts, timeout):
    """Why a step counts as one more failed test, or None."""
    if rc is None:
        return f"timed out after {timeout:g} s and was killed"
    if rc < 0:
        return f"crashed ({signal.Signals(-rc).name})" if -rc in signal.valid_signals() else f"died (signal {-rc})"
    if not counts:  # a hook that drifts from the convention must not drop its tests from the sum
        return f"exited with status {rc} without its counts line"
    if rc != 0 and counts[1] == 0:
        return f"exited with status {rc}"
    return None


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per binary or hook")
    ap.add_argument("--filter", default="", help="a Catch2 test spec for every binary")
    ap.add_argument("--jobs", type=int, default=1, help="binaries run at once (the hooks in turn beside them)")
    ap.add_argument("--part", action="append", default=[], metavar="BINARY=TERM",
                    help="run BINARY once per part given, with the cases that also match TERM")
    ap.add_argument("--hook", action="append", default=[], help="a make target that prints its counts")
    ap.add_argument("binaries", nargs="*")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs must be at least 1")
    terms = {}  # binary -> the terms of its parts
    for part in args.part:
        binary, _, term = part.partition("=")
        if binary not in args.binaries or not alternatives(term):
            ap.error(f"--part {part}: expected BINARY=TERM, BINARY one of the binaries given")
        terms.setdefault(binary, []).append(term)
    # A binary named twice runs once (side by side, two copies would share their scratch folders).
    binaries = []
    for b in dict.fromkeys(args.binaries):
        if b in terms:
            binaries += [([b, part_spec(args.filter, t)], f"{b} {t}") for t in terms[b]]
        else:
            binaries.append(([b] + ([args.filter] if args.filter else []), b))
    hooks = [(["make", "--no-print-directory", h], f"make {h}") for h in args.hook]
    steps = binaries + hooks
    results = [None] * len(steps)  # (exit status, counts) of each step
    if args.jobs == 1:
        try:
            for i, (cmd, name) in enumerate(steps):
                results[i] = run_step(cmd, name, args.timeout, sys.stdout)
        except KeyboardInterrupt:  # run() killed the running step
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup short
            print("test: interrupted", flush=True)
            return 130
    else:
        printing = threading.Lock()

        def lane(indices):  # steps one after another, each printed whole when it ends
            for i in indices:
                if stopping.is_set():
                    return
                out = io.StringIO()
                results[i] = run_step(*steps[i], args.timeout, out)
                with printing:
                    sys.stdout.write(out.getvalue())
                    sys.stdout.flush()

        # N binaries at once, and the hooks' lane beside them (submitted first, so that it starts
        # beside the first binary).
        pool = ThreadPoolExecutor(max_workers=args.jobs + bool(hooks))
        hook_lane = [list(range(len(binaries), len(steps)))] if hooks else []
        lanes = hook_lane + [[i] for i in range(len(binaries))]
        try:
            for done in [pool.submit(lane, indices) for indices in lanes]:
                done.result()
        except KeyboardInterrupt:  # no step starts, the running ones are killed, their output printed
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup short
            stopping.set()
            with live_lock:
                for p in live:
                    kill_group(p)
            pool.shutdown(cancel_futures=True)
            print("test: interrupted", flush=True)
            return 130
        pool.shutdown()
    total = [0, 0, 0]
    broken = []
    for (cmd, name), (rc, counts) in zip(steps, results):  # in the order given, whatever order they ended in
        if counts:
            total = [a + b for a, b in zip(total, counts)]
        why = broken_why(rc, counts, args.timeout)
        if why:   # counted as one failed test, on top of what it reported
            total[1] += 1
            broken.append(f"{name}: {why}")
    for line in broken:
        print(f"test: {line} (counted as 1 failed)")
    print(f"{total[0]} passed, {total[1]} failed, {total[2]} skipped", flush=True)
    return 0 if total[1] == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
