#!/usr/bin/env python3
"""Mutation tests of the grader: planted bugs in the reference solutions must lose points.

    python3 tools/mutants.py check                 every spec applies to solutions/ (CPU, fast)
    python3 tools/mutants.py run [--gpu auto|no] [--only NAME,...] [--lab ID,...] [--seed S]
                                 [--budget SECONDS]

tests/mutants/lab<ID>.json holds the specs of one lab: a list of
    {"name": ..., "category": one of CATEGORIES, "description": ...,
     "edits": [[find, replace], ...]}        (each find: a short anchor found exactly once)
  or {..., "todo": "words of one BEGIN SOLUTION hint"}   (that one region left as its TODO)
applied in order to solutions/lab<ID>_*.{cu,cpp} when the mutant is made, so the specs follow the
solution files as they change. `make mutants` (run) writes each mutant into
build/mutants/<name>/ beside copies of the other solution files, grades it with tools/grade.py
(--code build/mutants/<name>, no speed) and prints a table: mutant, lab, category, correctness
points, caught; each row is printed as soon as its mutant is graded. A mutant is caught when it
loses correctness points. Without a GPU the GPU mutants are only compiled: one that does not
compile is caught (zero points), the others are skipped. With --budget, grading stops after that
many seconds: the mutant being graded then and the ones after it are listed "not run" (never as
caught). Exit status: 0 every mutant graded and caught, 1 one was not caught, not run (budget),
or a spec no longer applies, 2 bad arguments.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from grade import Proc, detect_gpu   # noqa: E402  (tools/grade.py: a child with a time limit)
SPECS = ROOT / "tests" / "mutants"
OUT = ROOT / "build" / "mutants"
CATEGORIES = {
    "lost-carry": "a carry or partial sum lost",
    "off-by-one": "an off-by-one at a tile or matrix edge",
    "partial-warp": "a partial warp or tile handled as a full one",
    "missing-barrier": "a missing __syncthreads() or __syncwarp()",
    "missing-fence": "a missing fence or acquire/release on a flag",
    "one-type": "a slip in one type's path only",
    "large-only": "a bug that shows only on large matrices",
    "out-of-bounds": "an out-of-bounds write",
    "unbounded-spin": "a spin without a bound",
    "todo-left": "a skeleton with one TODO left",
}
# The grader's limits for a mutant: a hang costs one test (TIMEOUT s), and everything left of
# that lab then shares HANG_BUDGET s (tools/grade.py), so a hung mutant costs about 90 s of runs.
TIMEOUT, LAB_BUDGET, SANITIZE_TIMEOUT, HANG_BUDGET = 60, 600, 300, 30
BEGIN = re.compile(r"^(\s*)//\s*BEGIN SOLUTION\b(?:\s*hint:\s*(.*))?\s*$")
END = re.compile(r"^\s*//\s*END SOLUTION\b")


class SpecError(Exception):
    pass


def load_specs():
    specs = []
    for path in sorted(SPECS.glob("lab*.json")):
        for spec in json.loads(path.read_text()):
            spec["spec_file"] = path.relative_to(ROOT).as_posix()
            specs.append(spec)
    return specs


def solution_file(lab):
    files = sorted(p for ext in ("cu", "cpp") for p in (ROOT / "solutions").glob(f"lab{lab}_*.{ext}"))
    if len(files) != 1:
        raise SpecError(f"expected one solutions/lab{lab}_*.cu or .cpp, found {len(files)}")
    return files[0]


def leave_todo(text, hint_part, name):
    """The solution with the one region whose hint contains hint_part as its TODO line."""
    lines, out, found, inside = text.splitlines(keepends=True), [], 0, False
    for line in lines:
        begin = BEGIN.match(line)
        if begin and hint_part in (begin.group(2) or ""):
            found += 1
            inside = True
            out.append(f"{begin.group(1)}// TODO: {begin.group(2).strip()}\n")
        elif inside and END.match(line):
            inside = False
        elif not inside:
            out.append(line)
    if found != 1:
        raise SpecError(f"{name}: {found} regions whose hint contains {hint_part!r} (want 1)")
    return "".join(out)


def mutate(spec):
    """(solution path, mutated text); SpecError when an anchor is not found exactly once."""
    name = spec.get("name", "?")
    for key in ("name", "lab", "category", "description"):
        if not spec.get(key):
            raise SpecError(f"{name}: no {key!r} in {spec.get('spec_file')}")
    if spec["category"] not in CATEGORIES:
        raise SpecError(f"{name}: unknown category {spec['category']!r} (one of {', '.join(CATEGORIES)})")
    path = solution_file(spec["lab"])
    original = text = path.read_text()
    if "todo" in spec:
        text = leave_todo(text, spec["todo"], name)
    for find, replace in spec.get("edits", []):
        count = text.count(find)
        if count != 1:
            raise SpecError(f"{name}: anchor {find!r} found {count} times in {path.relative_to(ROOT)} (want 1)")
        text = text.replace(find, replace)
    if text == original:
        raise SpecError(f"{name}: the spec changes nothing")
    return path, text


def check(_args):
    specs, bad, names = load_specs(), 0, set()
    for spec in specs:
        try:
            if spec.get("name") in names:
                raise SpecError(f"{spec['name']}: the name is used twice")
            names.add(spec.get("name"))
            mutate(spec)
        except SpecError as err:
            print(f"mutants: {err}")
            bad += 1
    labs = sorted({s.get("lab") for s in specs}, key=lambda x: (len(x), x))
    cats = sorted({s.get("category") for s in specs})
    print(f"{len(specs) - bad} of {len(specs)} mutant specs apply; labs {', '.join(labs)}; "
          f"categories {', '.join(cats)}")
    missing = sorted(set(CATEGORIES) - set(cats))
    if missing:
        print(f"mutants: no mutant of category {', '.join(missing)}")
    return 1 if bad or missing else 0


def lab_list():
    p = subprocess.run(["make", "-s", "--no-print-directory", "print-labs"], cwd=ROOT,
                       capture_output=True, text=True)
    return {lab["id"]: lab for lab in json.loads(p.stdout)["labs"]}


def write_mutant(spec):
    """build/mutants/<name>/: copies of every solution file, the mutated one in its place."""
    path, text = mutate(spec)
    folder = OUT / spec["name"]
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for p in (ROOT / "solutions").iterdir():
        if p.is_file() and p.name.startswith("lab"):
            shutil.copy2(p, folder / p.name)
    (folder / path.name).write_text(text)
    return folder, folder / path.name


def grade(spec, folder, gpu, seed, limit=None):
    """(points, max points, one-line note) of the mutant's correctness; (None, None, note) when the
    grader did not finish, and (None, "budget", note) when it was stopped after `limit` seconds."""
    out = folder / "grade"
    cmd = [sys.executable, "tools/grade.py", "--code", folder.relative_to(ROOT).as_posix(), "--lab",
           spec["lab"], "--no-speed", "--quiet", "--gpu", gpu, "--seed", str(seed), "--out",
           out.relative_to(ROOT).as_posix(), "--timeout", str(TIMEOUT), "--lab-budget", str(LAB_BUDGET),
           "--sanitize-timeout", str(SANITIZE_TIMEOUT), "--hang-budget", str(HANG_BUDGET)]
    (out / "results.json").unlink(missing_ok=True)
    p = Proc(cmd, ROOT, limit)   # (the whole grader and what it runs are stopped at the limit)
    (folder / "grade.log").write_text(" ".join(cmd) + "\n\n" + p.output
                                      + (f"\n[stopped after {limit:.0f} s]\n" if p.timed_out else ""))
    if p.timed_out:
        return None, "budget", f"not run: stopped when the --budget ran out ({folder.name}/grade.log)"
    try:
        results = json.loads((out / "results.json").read_text())
    except (OSError, ValueError):
        return None, None, f"the grader did not finish (exit {p.rc}; {folder.name}/grade.log)"
    tests = [t for t in results["tests"] if t["tags"][1] == "correctness"]
    lost = [t for t in tests if t["score"] < t["max_score"] - 1e-9]
    note = (lost[0]["name"] + ": " + (lost[0]["output"].strip().splitlines() or ["failed"])[0]) if lost else ""
    return sum(t["score"] for t in tests), sum(t["max_score"] for t in tests), note


def objects_of(source, lab, gpu):
    """The objects the grader builds from a mutant file (Makefile rules): its test binary's, under
    build/obj/checked/ with -DSAT_CHECK_ORDERING for an order-checked lab, and on a GPU also the
    program's (racecheck and synccheck run it), the plain build/obj/ one."""
    rel = source.relative_to(ROOT).as_posix()
    plain = f"build/obj/{rel}.o"
    if not lab.get("order_checked"):
        return [plain]
    return [f"build/obj/checked/{rel}.o"] + ([plain] if gpu == "yes" else [])


def compile_all(objects, jobs):
    """{source: first error line or ""} for the mutant files, whose objects ({source: [object]})
    are compiled in one parallel make -k."""
    every = [obj for objs in objects.values() for obj in objs]
    for obj in every:
        (ROOT / obj).unlink(missing_ok=True)
    subprocess.run(["make", "-k", f"-j{jobs}", "--no-print-directory"] + every, cwd=ROOT,
                   capture_output=True, text=True)
    errors = {}
    for src, objs in objects.items():
        errors[src] = ""
        for obj in objs:
            if (ROOT / obj).exists():
                continue
            p = subprocess.run(["make", "--no-print-directory", obj], cwd=ROOT, capture_output=True, text=True)
            if p.returncode:
                errors[src] = next((line for line in (p.stdout + p.stderr).splitlines() if "error" in line),
                                   "no object file")
                break
    return errors


def run(args):
    specs = load_specs()
    if args.only:
        wanted = {x for part in args.only for x in part.split(",") if x}
        unknown = wanted - {s["name"] for s in specs}
        if unknown:
            print(f"mutants: no mutant {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        specs = [s for s in specs if s["name"] in wanted]
    if args.lab:
        wanted_labs = {x for part in args.lab for x in part.split(",") if x}
        specs = [s for s in specs if s["lab"] in wanted_labs]
    labs = lab_list()
    gpu = args.gpu
    if gpu == "auto":
        gpu = "yes" if detect_gpu("auto")[0] else "no"
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**63)
    print(f"make mutants: {len(specs)} mutants, GPU: {'yes' if gpu == 'yes' else 'no (GPU mutants: compile only)'}, "
          f"seed {seed}", flush=True)
    start = time.monotonic()
    rows, not_caught, broken, made = [], 0, 0, []

    def row(*values, seconds=None):     # one table row, printed at once
        rows.append(values)
        took = f" ({seconds:.0f} s)" if seconds is not None else ""
        verdict = f"caught {values[4]}" if values[4] in ("yes", "NO", "no") else values[4]
        print(f"  {values[0]} (lab {values[1]}): {values[3]}, {verdict}{took}"
              + (f"; {values[5][:110]}" if values[4] != "yes" else ""), flush=True)

    for spec in specs:
        try:
            made.append((spec, *write_mutant(spec)))
        except SpecError as err:
            row(spec.get("name", "?"), spec.get("lab", "?"), spec.get("category", "?"), "-", "spec", str(err))
            broken += 1
    # Every mutant file is compiled first, all at once in parallel (the grader then only links);
    # without a GPU that is all a GPU mutant gets.
    errors = compile_all({source: objects_of(source, labs.get(spec["lab"], {}), gpu) for spec, _, source in made},
                         args.jobs) if made else {}
    not_run = 0
    for spec, folder, source in made:
        if gpu != "yes" and labs.get(spec["lab"], {}).get("gpu", True):
            if errors[source]:
                row(spec["name"], spec["lab"], spec["category"], "0", "yes", "does not compile: " + errors[source])
            else:
                row(spec["name"], spec["lab"], spec["category"], "-", "skipped", "GPU mutant, no GPU")
            continue
        left = None if args.budget is None else args.budget - (time.monotonic() - start)
        if left is not None and left <= 1:
            row(spec["name"], spec["lab"], spec["category"], "-", "not run",
                f"not run: the --budget of {args.budget:.0f} s was used up")
            not_run += 1
            continue
        began = time.monotonic()
        points, top, note = grade(spec, folder, gpu, seed, left)
        seconds = time.monotonic() - began
        if points is None:
            stopped = top == "budget"
            row(spec["name"], spec["lab"], spec["category"], "-", "not run" if stopped else "no", note,
                seconds=seconds)
            not_run += stopped
            not_caught += not stopped
            continue
        caught = top > 0 and points < top - 1e-9
        not_caught += not caught
        row(spec["name"], spec["lab"], spec["category"], f"{points:.4g}/{top:.4g}",
            "yes" if caught else "NO", note if caught else spec["description"], seconds=seconds)
    header = ("mutant", "lab", "category", "correctness", "caught", "first lost test / why")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(5)]
    lines = ["  ".join(str(v).ljust(widths[i]) for i, v in enumerate(r[:5])) + "  " + r[5][:110]
             for r in [header] + rows]
    table = "\n".join(lines)
    print("\n" + table)
    graded = sum(1 for r in rows if r[4] in ("yes", "NO", "no"))
    skipped = sum(1 for r in rows if r[4] == "skipped")
    caught = sum(1 for r in rows if r[4] == "yes")
    summary = (f"{caught} of {graded} graded mutants caught, {skipped} skipped (GPU mutants without a GPU)"
               + (f", {not_run} not run (--budget {args.budget:g} s used up)" if not_run else "")
               + (f", {broken} specs no longer apply" if broken else ""))
    print(summary)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "table.txt").write_text(table + "\n" + summary + "\n")
    return 1 if not_caught or broken or not_run else 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command")
    sub.add_parser("check", help="every spec applies to solutions/")
    r = sub.add_parser("run", help="grade every mutant and print the table")
    r.add_argument("--gpu", default="auto", choices=["auto", "yes", "no"])
    r.add_argument("--only", action="append", default=[], help="mutant name(s), comma-separated")
    r.add_argument("--lab", action="append", default=[], help="only the mutants of these labs, e.g. 5,8x")
    r.add_argument("--seed", type=int, help="the grader's test seed (default: fresh, printed)")
    r.add_argument("--budget", type=float, metavar="SECONDS",
                   help="stop grading after this many seconds; the rest are listed as not run")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel compiles")
    args = ap.parse_args(argv)
    if args.command == "check":
        return check(args)
    if args.command == "run":
        return run(args)
    ap.print_usage(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
