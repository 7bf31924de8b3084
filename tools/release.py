#!/usr/bin/env python3
"""Write the student copy of SAT Labs (`make release` -> build/release/; --with-library adds lib/ and lab 10).

    release.py DEST [--allow FILE ...]

What goes in: Makefile, README.md, .gitignore, common/, labs/, the public tests, docs/, plots/
and the tools a student uses (grade.py for a correctness self-check, sanitize.py, deps.sh, ...).
labs/ is generated afresh from solutions/ with tools/gen_skeletons.py, so a stale labs/ can
never leak into a release. What stays out: solutions/, tests/hidden/, the instructor-only tests
and tools listed in LEFT_OUT, build outputs and anything git ignores.

The Makefile needs no edit: without solutions/ it builds `make test` and labN-ref from labs/
(SOL_DIR) and leaves the [skeleton] tests out of `make test` (they check the untouched skeleton).

After copying, the release is checked; any finding is fatal (exit 1):
  - no solutions/ folder, no BEGIN/END SOLUTION marker line, no file left out by LEFT_OUT,
    no object file or executable;
  - no line of a solution region (a code line of 24+ characters that the skeletons do not also
    contain) appears in any file, e.g. a handout quoting the answer. --allow FILE skips a file.
"""
import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import gen_skeletons  # noqa: E402  (the one definition of how a skeleton is made)

# mk/labs.mk: the labs that include a student's earlier lab (6: 4 and 5; 8: 7) are rebuilt when it changes.
TOP_FILES = ["Makefile", "README.md", ".gitignore", "LICENSE", "mk/labs.mk"]
TOP_DIRS = ["labs", "common", "tests", "docs", "plots", "tools"]
# Instructor-only paths (relative to the repository root; a folder covers everything in it).
LEFT_OUT = [
    "solutions",
    "tests/hidden",                 # hidden tests: make grade runs them, students never see them
    "tests/test_grader.cpp",        # self-tests of the grader and of this script (need solutions/)
    "tests/test_skeletons.cpp",     # labs/ vs solutions/ sync (needs solutions/)
    "tests/test_thin.cpp",          # the library's thin-matrix SAT (lib/ is not in a release)
    "docs/instructor.md",
    "tools/release.py",
    "tools/gen_skeletons.py",
    "tests/mutants",                # planted bugs: the solutions with one fault each (make mutants)
    "tools/mutants.py",
    "mk/mutants.mk",
]
# Labs that call the SAT library (lib/), which a release leaves out: without --with-library they
# are left out too; with it, lib/ comes along (a working SAT, so only when an instructor asks).
LIBRARY_LABS = ("10",)
LIBRARY_FILES = ["lib", "mk/lib.mk", "mk/lib_ab.mk", "mk/lib_batch.mk", "mk/lib_host.mk", "mk/lab10.mk"]
# The files outside lib/ that include the library's header (lib/include/sat.hpp): lab 10's strips
# and exchange, the library's face for harness code, and build/peers (the library beside NPP and
# CUB). Every lab binary compiles common/, so without lib/ these would stop every build.
LIBRARY_USERS = ["common/multigpu.cu", "common/multigpu.h", "common/sat_scan.h", "tools/peers.cu"]
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def needs_library(rel):
    """Whether a file is left out of a release without the library: a library lab's or a library user."""
    return rel in LIBRARY_USERS or any(
        re.match(rf"(labs/lab{n}_|tests/test_lab{n}\.cpp$|docs/lab{n}\.md$)", rel) for n in LIBRARY_LABS)


MARKER = re.compile(r"^\s*//\s*(BEGIN|END) SOLUTION\b")
MIN_LEAK_CHARS = 24


def left_out(rel):
    return any(rel == p or rel.startswith(p + "/") for p in LEFT_OUT)


def candidate_files():
    """Files of the working tree that git would commit (tracked or untracked, not ignored)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"]
                             + TOP_FILES + TOP_DIRS, cwd=ROOT, capture_output=True, check=True).stdout
        files = sorted({f for f in out.decode().split("\0") if f})
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top in TOP_FILES:
            if (ROOT / top).is_file():
                files.append(top)
        for top in TOP_DIRS:
            for dirpath, dirnames, filenames in os.walk(ROOT / top):
                dirnames[:] = [d for d in dirnames if d not in ("__pycache__",) and not d.startswith(".")]
                for name in filenames:
                    if not name.endswith((".o", ".pyc")):
                        files.append(str((Path(dirpath) / name).relative_to(ROOT)))
    return [f for f in files if (ROOT / f).is_file() and not left_out(f)]


def is_text(path):
    data = path.read_bytes()[:8192]
    return b"\0" not in data


def normal(line):
    return " ".join(line.split())


def solution_lines(skeleton_texts):
    """Code lines inside solution regions that the skeletons and common/ do not also contain."""
    known = set()
    for text in skeleton_texts:
        known.update(normal(line) for line in text.splitlines())
    for path in (ROOT / "common").glob("*"):
        if path.is_file() and is_text(path):
            known.update(normal(line) for line in path.read_text(errors="replace").splitlines())
    secret = {}
    for path in sorted((ROOT / "solutions").glob("*")):
        if not path.is_file():
            continue
        inside = False
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if gen_skeletons.BEGIN.match(line):
                inside = True
            elif gen_skeletons.END.match(line):
                inside = False
            elif inside:
                n = normal(line)
                if len(n) >= MIN_LEAK_CHARS and not n.startswith("//") and n not in known:
                    secret.setdefault(n, f"solutions/{path.name}:{number}")
    return secret


# Sections about what a release leaves out: the instructors' tools, and the library (lib/, python/).
INSTRUCTOR_SECTION = re.compile(r"^## (?:For instructors|The library)\n.*?(?=^## |\Z)", re.M | re.S)


def tailor_readme(path, with_library):
    """The student's README: without the instructors' section (its tools and docs are left out),
    and without lab 10 where the release leaves it out."""
    if path.exists():
        text = INSTRUCTOR_SECTION.sub("", path.read_text())
        # Without solutions/, labN-ref builds labs/ too: the quick start's reference line would mislead.
        dropped = ["make lab1-ref && ./lab1-ref", "solutions/", "lib/ ", "python/ "]
        if not with_library:
            dropped += ["./lab10 ", "| 10 | lab10 |"]
        text = "".join(line for line in text.splitlines(True) if not line.startswith(tuple(dropped)))
        text = text.replace("instructor guide, ", "")
        # The release's mk/ holds only labs.mk (and the library's fragments with --with-library).
        text = text.replace("mk/         Makefile fragments per feature (library, lab 10, mutants, Python)",
                            "mk/         Makefile fragments (labs.mk: the labs that include an earlier lab's file)")
        if not with_library:
            text = text.replace("(N = 1 … 10, 8x)", "(N = 1 … 9, 8x)")
            # build/peers, the library beside NPP and CUB, is left out with it.
            text = text.replace(" (lab 9, peers satlib)", " (lab 9)")
            text = text.replace("(1 to 65535; lab 9 and `build/peers --variant satlib`, the variants that take\nbatches)",
                                "(1 to 65535; lab 9, the lab whose variants take\nbatches)")
            text = text.replace(", and lab 10\nsplits the SAT across GPUs with NCCL.",
                                ". Lab 10 (the SAT\nacross GPUs) needs the SAT library, which this copy leaves out.")
            text = text.replace("; lab 10 adds `--gpus`, `--strips`, `--slice-rows`:", ":")
        path.write_text(text.replace("make labN-ref` builds the reference from `solutions/`",
                                     "make labN-ref` builds the same code"))


def main(argv):
    ap = argparse.ArgumentParser(description="Write the student copy of SAT Labs.")
    ap.add_argument("dest", help="where to write it, e.g. build/release")
    ap.add_argument("--allow", action="append", default=[], help="a release file the leak scan skips")
    ap.add_argument("--with-library", action="store_true",
                    help="include lib/ (a working SAT library) and the labs that need it (lab 10)")
    args = ap.parse_args(argv)
    dest = Path(args.dest)
    dest = (dest if dest.is_absolute() else Path.cwd() / dest).resolve()
    if dest == ROOT or dest in ROOT.parents or (dest / ".git").exists():
        print(f"release: refusing to overwrite {dest}", file=sys.stderr)
        return 2
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)

    problems, notes = [], []
    # 1. Copy.
    files = [f for f in candidate_files() if args.with_library or not needs_library(f)]
    if args.with_library:
        out = subprocess.run(["git", "ls-files", "-z", "--"] + LIBRARY_FILES, cwd=ROOT, capture_output=True).stdout
        lib_files = [f for f in out.decode().split("\0") if f]
        files += lib_files
        args.allow += lib_files
    else:
        notes.append("lab " + ", ".join(LIBRARY_LABS) + " left out: it calls the SAT library "
                     "(release.py --with-library includes both)")
    for rel in files:
        if re.match(r"labs/lab[^/]*$", rel) and any(Path(rel).match(p) for p in gen_skeletons.PATTERNS):
            continue   # lab files are written from solutions/ below
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, target)
    # 2. labs/ from solutions/ (the same function `make skeletons` uses).
    try:
        skeletons = gen_skeletons.expected_files(ROOT / "solutions")
    except gen_skeletons.SkeletonError as err:
        print(f"release: {err}", file=sys.stderr)
        return 1
    (dest / "labs").mkdir(exist_ok=True)
    if not args.with_library:
        skeletons = {n: t for n, t in skeletons.items() if not needs_library("labs/" + n)}
    for name, text in skeletons.items():
        (dest / "labs" / name).write_text(text)
        current = ROOT / "labs" / name
        if not current.exists() or current.read_text() != text:
            notes.append(f"labs/{name} is out of date in this repository (run: make skeletons); "
                         "the release has the skeleton generated from solutions/")
        else:
            shutil.copystat(current, dest / "labs" / name)   # keep its time: make need not rebuild
    for path in (ROOT / "labs").glob("lab*"):
        if (path.is_file() and path.name not in skeletons and re.match(r"lab\d", path.name)
                and not needs_library("labs/" + path.name)):
            notes.append(f"labs/{path.name} has no solutions/{path.name}: left out")
    tailor_readme(dest / "README.md", args.with_library)
    for must in ("Makefile", "README.md"):
        if not (dest / must).exists():
            notes.append(f"{must} is missing from the repository, so from the release too")

    # 3. Check what was written.
    secret = solution_lines(skeletons.values())
    allowed = {a.replace("\\", "/") for a in args.allow}
    written = sorted(p for p in dest.rglob("*") if p.is_file() or p.is_dir())
    for path in written:
        rel = path.relative_to(dest).as_posix()
        if path.is_dir():
            if path.name == "solutions":
                problems.append(f"{rel}/: a solutions folder")
            continue
        if left_out(rel):
            problems.append(f"{rel}: instructor-only")
        if path.suffix == ".o" or (path.stat().st_mode & stat.S_IXUSR and path.read_bytes()[:4] == b"\x7fELF"):
            problems.append(f"{rel}: a binary")
            continue
        if not is_text(path) or rel in allowed:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            include = QUOTED_INCLUDE.match(line) if path.suffix in (".cu", ".cpp", ".h", ".cuh") else None
            # A quoted include is found beside the file or through the Makefile's -Icommon (and
            # -Ilib/include where lib/ comes along); one that is not would stop the build.
            if include and not any((d / include.group(1)).is_file()
                                   for d in (path.parent, dest / "common", dest / "lib" / "include")):
                problems.append(f"{rel}:{number}: includes \"{include.group(1)}\", which the release does not have")
            if MARKER.match(line):
                problems.append(f"{rel}:{number}: a solution marker line: {line.strip()}")
            elif secret and normal(line) in secret:
                problems.append(f"{rel}:{number}: gives away {secret[normal(line)]}: {line.strip()}")

    count = sum(1 for p in written if p.is_file())
    for note in notes:
        print(f"release: note: {note}")
    if problems:
        print(f"release: {dest} is NOT fit to publish:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    rel_dest = os.path.relpath(dest, Path.cwd())
    print(f"release: wrote {rel_dest}/ ({count} files, {len(skeletons)} lab skeletons); left out: "
          + ", ".join(p for p in LEFT_OUT if (ROOT / p).exists()))
    print(f"release: checked: no solutions/, no solution markers, no solution line in any file")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
