#!/usr/bin/env python3
"""Planted races that the library's tests must catch in the delays build (make delay-mutants).

    python3 tools/delay_mutants.py --compile CMD --link CMD --objs OBJ... [--only NAME,...]
    python3 tools/delay_mutants.py --check      every spec still applies to lib/src (no build)

lib/tests/delay_mutants.json holds the specs: {"name", "description", "file" (in lib/src),
"edits": [[find, replace], ...] (each find found exactly once), "tests" (a Catch2 test spec)}.
For each one, lib/src is copied into build/delay-mutants/<name>/src with the edits applied, its
satlib.cu compiled with CMD (mk/lib_delays.mk passes the delays build's: -DSATLIB_TILE_DELAYS)
and linked with OBJS (the test runner, lib/tests/test_library.cpp and the rest of the library)
into build/delay-mutants/<name>/lib_delays (all mutants built side by side), which runs the spec's
tests. A mutant is caught when a test fails. Without a GPU the mutants are compiled only
(skipped). Prints one line per mutant, then "N caught, N not caught, N skipped"; exit status 1
when one was not caught, did not build, or its spec no longer applies.
"""
import argparse
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPECS = ROOT / "lib" / "tests" / "delay_mutants.json"
OUT = ROOT / "build" / "delay-mutants"
COUNTS = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped\s*$", re.M)
TIMEOUT = 300  # seconds a mutant's tests may run (a hang is a spin timeout: 2 s a tile)


def mutated_text(spec):
    """(lib/src/<file> with the spec's edits, None), or (None, what does not apply)."""
    for key in ("name", "description", "file", "edits", "tests"):
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


def spec_error(spec):
    return mutated_text(spec)[1]


def mutated_source(spec, dest):
    """Copies lib/src into dest with the spec's edits; returns an error or None."""
    text, error = mutated_text(spec)
    if error:
        return error
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(ROOT / "lib" / "src", dest)
    (dest / spec["file"]).write_text(text)
    return None


def build(spec, args):
    """Starts building one mutant (its own copy of lib/src); returns the running build, or an error."""
    work = OUT / spec["name"]
    error = mutated_source(spec, work / "src")
    if error:
        return error
    obj, binary = work / "satlib.o", work / "lib_delays"
    compile_cmd = shlex.join(shlex.split(args.compile) + ["-c", str(work / "src" / "satlib.cu"), "-o", str(obj)])
    link_cmd = shlex.join(shlex.split(args.link) + args.objs + [str(obj), "-o", str(binary)])
    return subprocess.Popen(f"{compile_cmd} && {link_cmd}", shell=True, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def run(spec, built):
    """(outcome, detail) of one mutant: caught, NOT CAUGHT, skipped, or an error."""
    if isinstance(built, str):
        return "SPEC FAILS", built
    log = built.communicate()[0]
    if built.returncode != 0:
        return "BUILD FAILS", log.strip().splitlines()[-1:]
    binary = OUT / spec["name"] / "lib_delays"
    try:
        done = subprocess.run([str(binary), spec["tests"]], cwd=ROOT, capture_output=True, text=True,
                              timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "caught", f"timed out after {TIMEOUT} s"
    counts = COUNTS.findall(done.stdout)
    passed, failed, skipped = map(int, counts[-1]) if counts else (0, 0, 0)
    if failed:
        first = re.search(r"first wrong.*|with expansion:\s*\n\s*(.*)", done.stdout)
        return "caught", f"{failed} failed" + (f": {first.group(0).strip()}" if first else "")
    if passed == 0 and skipped:
        return "skipped", "no GPU: compiled only"
    if passed == 0:
        return "NOT CAUGHT", f"no test matched {spec['tests']!r}"
    return "NOT CAUGHT", f"{passed} passed"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only check that every spec applies")
    ap.add_argument("--compile", help="nvcc and flags of the delays build (no -c/-o)")
    ap.add_argument("--link", help="nvcc and link flags (no -o)")
    ap.add_argument("--objs", nargs="+", default=[], help="objects linked with each mutant's satlib.o")
    ap.add_argument("--only", default="", help="comma-separated mutant names")
    args = ap.parse_args(argv)
    specs = json.loads(SPECS.read_text())
    if args.check:
        bad = [f"{s['name']}: {e}" for s in specs if (e := spec_error(s))]
        for line in bad:
            print(f"delay_mutants: {line}")
        print(f"{len(specs) - len(bad)} of {len(specs)} delay mutant specs apply")
        return 1 if bad else 0
    if not (args.compile and args.link and args.objs):
        ap.error("--compile, --link and --objs are needed to build the mutants")
    if args.only:
        specs = [s for s in specs if s["name"] in args.only.split(",")]
    tally = {"caught": 0, "not caught": 0, "skipped": 0}
    builds = [build(spec, args) for spec in specs]  # side by side: each compiles the whole satlib.cu
    for spec, built in zip(specs, builds):
        outcome, detail = run(spec, built)
        print(f"{spec['name']}: {outcome} ({detail}) — {spec['description']}", flush=True)
        key = outcome if outcome in ("caught", "skipped") else "not caught"
        tally[key] += 1
    print(f"{tally['caught']} caught, {tally['not caught']} not caught, {tally['skipped']} skipped")
    return 1 if tally["not caught"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
