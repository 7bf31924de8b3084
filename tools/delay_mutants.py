#!/usr/bin/env python3
"""Planted races that the library's tests must catch in the delays build (make delay-mutants).

    python3 tools/delay_mutants.py --compile CMD --link CMD [--libs FLAGS] --baseline BINARY
                                   --objs OBJ... [--only NAME,...]
    python3 tools/delay_mutants.py --check      every spec still applies to lib/src (no build)

lib/tests/delay_mutants.json holds the specs: {"name", "description", "file" (in lib/src),
"edits": [[find, replace], ...] (each find found exactly once), "tests" (a Catch2 test spec)}.
For each one, lib/src is copied into build/delay-mutants/<name>/src with the edits applied, its
satlib.cu compiled with CMD (mk/lib_delays.mk passes the delays build's flags:
-DSATLIB_TILE_DELAYS) and linked with OBJS (the test runner, lib/tests/test_library.cpp and the
rest of the library) into build/delay-mutants/<name>/lib_delays; the mutants build side by side.
Each spec's tests first run on BASELINE, the unmutated delays build: they must pass there, or the
mutant proves nothing. A mutant is caught when a test fails (or the binary dies or hangs) where the
baseline passed. Without a GPU the mutants are compiled only (skipped). Prints one line per
mutant, then "N caught, N not caught, N skipped, N errors"; exit status 1 when one was not caught
or had an error (its spec no longer applies, it did not build, the baseline failed), 2 for bad
arguments.
"""
import argparse
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from run_tests import last_counts   # tools/run_tests.py: a test binary's counts line

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "lib" / "tests" / "delay_mutants.json"
OUT = ROOT / "build" / "delay-mutants"
TIMEOUT = 300  # seconds a spec's tests may run (a hang is a spin timeout: 2 s a tile)
FIELDS = ("name", "description", "file", "edits", "tests")


def mutated_text(spec):
    """(lib/src/<file> with the spec's edits, None), or (None, what does not apply)."""
    for key in FIELDS:
        if not spec.get(key):
            return None, f"no {key!r}"
    path = ROOT / "lib" / "src" / spec["file"]
    if not path.is_file():
        return None, f"no lib/src/{spec['file']}"
    text = path.read_text()
    for find, replace in spec["edits"]:
        if text.count(find) != 1:
            return None, f"anchor {find!r} found {text.count(find)} times in lib/src/{spec['file']} (want 1)"
        text = text.replace(find, replace)
    return text, None


def build(spec, args):
    """Starts building one mutant in its own copy of lib/src: the running build, or an error."""
    text, error = mutated_text(spec)
    if error:
        return error
    work = OUT / spec["name"]
    shutil.rmtree(work / "src", ignore_errors=True)
    shutil.copytree(ROOT / "lib" / "src", work / "src")
    (work / "src" / spec["file"]).write_text(text)
    obj, binary = work / "satlib.o", work / "lib_delays"
    compile_cmd = shlex.split(args.compile) + ["-c", str(work / "src" / "satlib.cu"), "-o", str(obj)]
    link_cmd = shlex.split(args.link) + args.objs + [str(obj), "-o", str(binary)] + shlex.split(args.libs)
    return subprocess.Popen(f"{shlex.join(compile_cmd)} && {shlex.join(link_cmd)}", shell=True, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def run_tests(binary, tests):
    """(exit status or None when it timed out, (passed, failed, skipped) or None, output)."""
    try:
        done = subprocess.run([str(binary), tests], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as hung:
        return None, None, hung.stdout or ""
    return done.returncode, last_counts(done.stdout), done.stdout


def outcome(spec, built, baseline):
    """(caught | NOT CAUGHT | skipped | ERROR, detail) of one mutant."""
    if isinstance(built, str):
        return "ERROR", f"the spec does not apply: {built}"
    log = built.communicate()[0]
    if built.returncode != 0:
        return "ERROR", "the build failed: " + " / ".join(log.strip().splitlines()[-2:])
    status, counts, _ = run_tests(baseline, spec["tests"])
    if counts is not None and counts[0] == 0 and counts[2] > 0:
        return "skipped", "no GPU: compiled only"
    if status != 0 or counts is None or counts[0] == 0:
        return "ERROR", f"the unmutated delays build did not pass {spec['tests']!r} (status {status}, counts {counts})"
    status, counts, out = run_tests(OUT / spec["name"] / "lib_delays", spec["tests"])
    if status is None:
        return "caught", f"hung past {TIMEOUT} s"
    if counts is None:
        return "caught", f"the tests died (status {status})"
    if counts[1] > 0:
        first = re.search(r"with expansion:\s*\n\s*(.*)", out)
        return "caught", f"{counts[1]} failed" + (f": {first.group(1).strip()}" if first else "")
    return "NOT CAUGHT", f"{counts[0]} passed"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only check that every spec applies")
    ap.add_argument("--compile", help="nvcc and flags of the delays build (no -c/-o)")
    ap.add_argument("--link", help="nvcc and link flags (no -o)")
    ap.add_argument("--libs", default="", help="libraries after the objects")
    ap.add_argument("--baseline", help="the unmutated delays build's test binary")
    ap.add_argument("--objs", nargs="+", default=[], help="objects linked with each mutant's satlib.o")
    ap.add_argument("--only", default="", help="comma-separated mutant names")
    args = ap.parse_args(argv)
    specs = json.loads(SPECS.read_text())
    if args.check:
        bad = [f"{s.get('name', '?')}: {error}" for s in specs if (error := mutated_text(s)[1])]
        names = [s.get("name") for s in specs]
        if len(set(names)) != len(names):
            bad.append("a name is used twice")
        if not specs:
            bad.append(f"no specs in {SPECS.relative_to(ROOT)}")
        for line in bad:
            print(f"delay_mutants: {line}")
        print(f"{len(specs) - len(bad)} of {len(specs)} delay mutant specs apply")
        return 1 if bad else 0
    if not (args.compile and args.link and args.baseline and args.objs):
        ap.error("--compile, --link, --baseline and --objs are needed to build and run the mutants")
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {s.get("name") for s in specs}
        if unknown:
            ap.error(f"no mutant named {', '.join(sorted(unknown))}")
        specs = [s for s in specs if s["name"] in wanted]
    tally = {"caught": 0, "NOT CAUGHT": 0, "skipped": 0, "ERROR": 0}
    builds = [build(spec, args) for spec in specs]  # side by side: each compiles the whole satlib.cu
    for spec, built in zip(specs, builds):
        result, detail = outcome(spec, built, args.baseline)
        tally[result] += 1
        print(f"{spec.get('name', '?')}: {result} ({detail}) — {spec.get('description', '')}", flush=True)
    print(f"{tally['caught']} caught, {tally['NOT CAUGHT']} not caught, {tally['skipped']} skipped, "
          f"{tally['ERROR']} errors")
    return 1 if tally["NOT CAUGHT"] or tally["ERROR"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
