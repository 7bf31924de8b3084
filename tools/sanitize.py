#!/usr/bin/env python3
"""Run one lab under compute-sanitizer (memcheck, racecheck, synccheck): one verdict line per tool.

    python3 tools/sanitize.py N [--binary ./labN-ref] [--sizes 256,97x89] [--types f32,...]
                                [--tool memcheck,racecheck,synccheck] [--timeout S]

`make sanitize LAB=N` builds ./labN-ref and runs this on it (pass --binary ./labN for a student
build); for the CPU lab it says in one line that there is nothing to sanitize and exits 2. Each tool runs the lab at small sizes (a power of two and an odd shape, every type, no
timed repetitions) and the full log goes to build/sanitize/labN_TOOL.log. Exit status: 0 every
tool clean, 1 a tool found errors or the lab's own check failed, 2 nothing could be run (a CPU lab,
no compute-sanitizer, no GPU, no binary). `make grade` runs racecheck and synccheck through
verdict() below on the student build of every GPU lab.
"""
import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from grade import Proc  # noqa: E402  (one child-process runner)
TOOLS = ["memcheck", "racecheck", "synccheck"]
ERROR_EXIT = 86   # compute-sanitizer's exit status when it found errors (--error-exitcode)
# Variants racecheck cannot judge: their blocks hand values over through a flag protocol in
# (distributed) shared memory, which racecheck reports as races by design. memcheck and synccheck
# still run them, and the GPU tests check their results.
RACECHECK_LEAVES_OUT = {
    "8": {"SKSS-cluster": "its hand-over inside a cluster is tagged words in distributed shared memory"},
}


def find_sanitizer():
    candidates = [shutil.which("compute-sanitizer")]
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            candidates.append(os.path.join(os.environ[env], "bin", "compute-sanitizer"))
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(os.path.join(os.path.dirname(os.path.realpath(nvcc)), "compute-sanitizer"))
    candidates.append("/usr/local/cuda/bin/compute-sanitizer")
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def lab_info(lab):
    """The lab's entry in `make -s print-labs` (None when there is no such lab)."""
    p = Proc(["make", "-s", "--no-print-directory", "print-labs"], ROOT, 120)
    try:
        labs = json.loads(p.output)["labs"]
    except (ValueError, KeyError):
        return None
    return next((x for x in labs if x["id"] == lab), None)


def run(cmd, timeout):
    """(exit status or None on a timeout, output, timed out); on a timeout the process group is killed."""
    p = Proc(cmd, ROOT, timeout)
    return (None if p.timed_out else p.rc), p.output, p.timed_out


def verdict(tool, rc, out, timed_out, timeout, tool_only=False):
    """(ok, text) for one tool's run. tool_only (the grader): the tool's findings count, and a
    table the lab's check finds wrong (FAIL) under the tool, so that a kernel that computes
    nothing (an untouched skeleton) earns no race points; a run that stops with an error (ERROR:
    a spin-wait may time out when the tool serialises blocks) does not count against it."""
    lab_rows = [line for line in out.splitlines() if re.search(r"\s(PASS|FAIL|ERROR)\s", line)
                and not line.startswith("=")]
    lab_failed = any(re.search(r"\s(FAIL|ERROR)\s", line) for line in lab_rows)
    lab_wrong = any(re.search(r"\sFAIL\s", line) for line in lab_rows)
    lab_text = f"lab check {'FAIL' if lab_failed else 'PASS'} ({len(lab_rows)} runs)" if lab_rows else "no lab output"
    if timed_out:
        return False, f"DID NOT FINISH in {timeout} s (a spin-wait that never ends under the tool?)"
    if tool == "racecheck":
        m = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", out)
        found = m and (int(m.group(2)) > 0 or int(m.group(3)) > 0)
        summary = (f"{m.group(1)} hazards ({m.group(2)} errors, {m.group(3)} warnings)" if m else None)
    else:
        m = re.search(r"ERROR SUMMARY: (\d+) errors?", out)
        found = m and int(m.group(1)) > 0
        summary = f"{m.group(1)} errors" if m else None
    if summary is None:
        tail = " | ".join(out.strip().splitlines()[-3:])
        return False, f"DID NOT RUN (exit status {rc}): {tail[:300]}"
    if found or rc == ERROR_EXIT:
        first = next((line.strip("= ").strip() for line in out.splitlines()
                      if line.startswith("=========") and re.search(
                          r"Invalid|Race reported|hazard|Barrier|error", line, re.I)
                      and "SUMMARY" not in line), "")
        return False, f"ERRORS: {summary}; first: {first[:200]}; {lab_text}"
    if not tool_only and (lab_failed or rc not in (0, None)):
        return False, f"clean ({summary}), but {lab_text}, exit status {rc}"
    if tool_only and lab_wrong:
        return False, f"clean ({summary}), but the lab's check finds a wrong table under the tool: {lab_text}"
    return True, f"clean ({summary}); {lab_text}"


def variants_of(binary):
    """The variant names the lab's --help lists (the lines after 'variants:')."""
    _, out, _ = run([binary, "--help"], 60)
    names, listing = [], False
    for line in (out or "").splitlines():
        if line.strip() == "variants:":
            listing = True
        elif listing and line.startswith("  ") and line.split():
            names.append(line.split()[0])
    return names


def main(argv):
    ap = argparse.ArgumentParser(description="compute-sanitizer verdicts for one lab")
    ap.add_argument("lab", nargs="?", help="lab number, e.g. 5")
    ap.add_argument("--binary", help="the program to check (default ./labN-ref)")
    ap.add_argument("--sizes", default="256,97x89", help="sizes for the lab's --sizes (default 256,97x89)")
    ap.add_argument("--types", default="f32,f64,i32,u8i32", help="types (default all four)")
    ap.add_argument("--tool", default=",".join(TOOLS), help="tools to run (default all three)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per tool (default 600)")
    args = ap.parse_args(argv)
    if not args.lab:
        print("sanitize: which lab? usage: make sanitize LAB=N  (or tools/sanitize.py N)", file=sys.stderr)
        return 2
    lab = args.lab
    info = lab_info(lab)
    if info is None:
        print(f"sanitize: no lab {lab} here (make -s print-labs lists them)", file=sys.stderr)
        return 2
    if not info["gpu"]:
        print(f"sanitize: lab {lab} runs on the CPU, nothing to sanitize (compute-sanitizer checks GPU "
              "kernels; for CPU code try valgrind)", file=sys.stderr)
        return 2
    binary = args.binary or f"./lab{lab}-ref"
    if not (ROOT / binary).exists() and not Path(binary).exists():
        print(f"sanitize: {binary} does not exist (make lab{lab}-ref builds it)", file=sys.stderr)
        return 2
    sanitizer = find_sanitizer()
    if not sanitizer:
        print("sanitize: compute-sanitizer not found (it ships with the CUDA toolkit, in $CUDA_HOME/bin); "
              "nothing was checked", file=sys.stderr)
        return 2
    lab_args = ["--sizes", args.sizes, "--type", args.types, "--reps", "0", "--seed", "1"]
    # The lab itself says clearly when there is no usable GPU (exit status 2).
    rc, out, _ = run([binary, "--size", "32", "--reps", "0", "--seed", "1"], 120)
    if rc == 2:
        line = next((x for x in out.splitlines() if x.strip()), "no output")
        print(f"sanitize: {binary} cannot run here: {line}", file=sys.stderr)
        return 2
    logs = ROOT / "build" / "sanitize"
    logs.mkdir(parents=True, exist_ok=True)
    print(f"compute-sanitizer on {binary} {' '.join(lab_args)}")
    all_ok = True
    for tool in [t.strip() for t in args.tool.split(",") if t.strip()]:
        if tool not in TOOLS:
            print(f"sanitize: unknown tool '{tool}' (choose from {', '.join(TOOLS)})", file=sys.stderr)
            return 2
        cmd = [sanitizer, "--tool", tool, "--error-exitcode", str(ERROR_EXIT)]
        if tool == "racecheck":
            cmd += ["--racecheck-report", "all"]
        cmd += [binary] + lab_args
        left_out = RACECHECK_LEAVES_OUT.get(lab, {}) if tool == "racecheck" else {}
        if left_out:
            kept = [v for v in variants_of(binary) if v not in left_out]
            cmd += ["--variant", ",".join(kept)]
            for name, why in left_out.items():
                print(f"{tool:<10} leaves out {name}: {why}")
        rc, out, timed_out = run(cmd, args.timeout)
        log = logs / f"lab{lab}_{tool}.log"
        log.write_text(" ".join(cmd) + "\n\n" + out)
        ok, text = verdict(tool, rc, out, timed_out, args.timeout)
        all_ok &= ok
        print(f"{tool:<10} {text}   [{os.path.relpath(log, Path.cwd())}]", flush=True)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
