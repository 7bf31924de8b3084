#!/usr/bin/env python3
"""Grade the student code in labs/: correctness, bonus and speed points per lab.

    python3 tools/grade.py [--lab N[,M]] [--code DIR] [--gpu auto|yes|no] [--timeout S]
                           [--no-speed] [--no-sanitize] [--no-scan] [--seed S] [--out DIR]

(`make grade [LAB=N]` runs it.) The labs, their files and whether each runs on the GPU come from
`make -s print-labs` (JSON). For every lab:

  scan     the student's compiled object (only ALLOWED_SYMBOLS and ALLOWED_QUALIFIED), its source
           after the preprocessor (FORBIDDEN_CALLS, host asm) and its raw source (no #line): code
           that reaches processes, files or the environment could forge the report of the test
           process it runs in, so such a lab scores zero unrun (--no-scan: trusted code).
  build    the lab's own test binary, build/tests-<dir>/lab<ID> (Makefile, STUDENT_DIR=<dir>):
           tests/test_lab<ID>.cpp and tests/hidden/test_lab<ID>_*.cpp linked with that lab's
           student code alone, so another lab's compile error cannot touch this lab's score. A lab
           that does not compile or link scores zero and the report shows the compiler's errors.
  tests    every test case tagged [labN] (a GPU lab: [labN][gpu]; not [skeleton]) runs in its own
           process with the Catch2 XML reporter and a time limit: a hang, a crash or corrupted
           memory costs that test (and the lab's speed points), never another test or lab; what
           a test leaves running is killed when it ends (the grader is its subreaper). Once
           one test or tool run of a lab times out, everything left of that lab (tests, bonus
           tests, race tools) shares HANG_BUDGET seconds more: a kernel that spins without a
           bound hangs every run that reaches it, so a hung lab costs one time limit plus that,
           and what does not fit scores zero, "skipped: an earlier test of this lab hung". Tests
           tagged [bonus] earn bonus points above the lab's maximum. Tests under tests/hidden/
           (left out of the student release) count like the others, marked hidden in results.json.
  races    a GPU lab on a GPU: compute-sanitizer racecheck and synccheck run the student's
           program (build/tests-<dir>/prog/lab<ID>) on every variant and type at a small odd
           shape; each tool is one required test, and a hazard costs its points. Without a GPU
           these tests are skipped and say so.
  speed    only when every required test passed: the student's program and ./labN-ref alternate
           SPEED_ROUNDS times at the lab's stated size; each variant's time is its fastest timed
           repetition (more rounds, up to SPEED_MAX_ROUNDS, while a variant falls short). Full marks
           up to SPEED_SLACK x the reference time, then SPEED_SLACK / ratio of the points, nothing
           beyond SPEED_ZERO x. A variant that fails its check in the timed run earns no speed points.

Writes build/results.json (Gradescope), build/junit.xml and build/grade/report.txt, prints the
per-lab table and the reason for every lost point. Without a GPU the GPU labs are not run and
score zero, with that reason. Exit status 0 when grading finished (whatever the score),
2 for bad arguments.
"""
import argparse
import csv
import ctypes
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

# ---- Grading policy (stated in the report and in docs/instructor.md) -----------------------------
CORRECTNESS_POINTS = 70.0   # per lab, split evenly over its required test cases
SPEED_POINTS = 30.0         # per lab, split evenly over its variants
BONUS_POINTS = 10.0         # per lab with [bonus] tests, split evenly over them, above the maximum
SPEED_SLACK = 1.25          # full speed points up to this many times the reference time
SPEED_ZERO = 10.0           # no speed points beyond this many times the reference time
SPEED_ROUNDS = 3            # reference and student runs alternate this many times ...
SPEED_MAX_ROUNDS = 6        # ... or up to this many while a variant is short of full marks
SPEED_RUN = {"1": (2048, 5)}                # (N for N x N, timed repetitions): the CPU lab
SPEED_RUN_DEFAULT = (4096, 10)              # the GPU labs
SPEED_TYPE = "f32"
TEST_TIMEOUT = 180          # seconds per test case
LAB_BUDGET = 900            # seconds of test time per lab; later tests are not run once spent
HANG_BUDGET = 60            # seconds for all of a lab's later runs once one of its runs timed out
SPEED_TIMEOUT = 180         # seconds per timed run of a lab binary
BUILD_TIMEOUT = 1200        # seconds per make call
HIDDEN_VISIBILITY = "after_published"   # Gradescope visibility of tests from tests/hidden/

SANITIZE_TOOLS = ("racecheck", "synccheck")
SANITIZE_TIMEOUT = 600      # seconds per compute-sanitizer run of one lab
SANITIZE_SHAPE = "97x89"    # rows x cols: primes, partial tiles and warps everywhere
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped\s*$", re.M)
OUTPUT_LIMIT = 3000


def lab_key(lab_id):
    m = re.match(r"(\d+)(.*)", lab_id)
    return (int(m.group(1)), m.group(2))


def fmt(x):
    """Points for humans: 70, 23.33."""
    return f"{x:.2f}".rstrip("0").rstrip(".") if x == x else "-"


def clip(text, limit=OUTPUT_LIMIT):
    text = text.strip()
    if len(text) <= limit:
        return text
    return text[: limit // 3] + "\n[... cut ...]\n" + text[-(2 * limit) // 3:]


def signal_name(rc):
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return f"signal {-rc}"


SIGNAL_WHY = {"SIGSEGV": "segmentation fault: a bad host pointer or an out-of-bounds host access",
              "SIGABRT": "aborted", "SIGFPE": "arithmetic error (integer division by zero?)",
              "SIGBUS": "bus error", "SIGILL": "illegal instruction", "SIGKILL": "killed (out of memory?)"}


RUNNING = set()   # process groups of the children running now (killed when the grader is stopped)


def stop_children(signum, _frame):
    """SIGTERM to the grader (make mutants --budget): its children run in their own sessions, so
    a test that spins would outlive it; kill them first."""
    for pgid in list(RUNNING):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os._exit(128 + signum)


# Linux's PR_SET_CHILD_SUBREAPER: a process that a test leaves behind (forked, even into a session
# of its own) becomes the grader's child when its parent exits, so end_orphans can kill it.
PR_SET_CHILD_SUBREAPER = 36


def adopt_orphans():
    """Make the grader the subreaper of everything it starts (Linux; elsewhere a no-op)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def children_of(pid):
    """The pids whose parent is `pid` (from /proc; empty where there is none)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended meanwhile
        fields = stat[stat.rfind(")") + 2:].split()  # after "pid (comm) ": state, ppid, ...
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def end_orphans():
    """Kill and reap every child of the grader that no Proc is running: what a finished test left
    behind. A student's process must not outlive its test (to rewrite results.json, or to hold the
    output pipe open so that the grader waits for ever). Killing one can orphan its own children,
    which the grader adopts in turn: repeat until none is left."""
    for _ in range(100):
        orphans = [pid for pid in children_of(os.getpid()) if pid not in RUNNING]
        if not orphans:
            return
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in orphans:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


class Proc:
    """Outcome of one child process run with a time limit (its whole process group is killed, and
    whatever it left behind: end_orphans)."""

    def __init__(self, cmd, cwd, timeout, env=None):
        self.cmd, self.timed_out, start = cmd, False, time.monotonic()
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        RUNNING.add(p.pid)
        try:
            out, _ = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.timed_out = True
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    p.wait(timeout=5)
                    break
                except subprocess.TimeoutExpired:
                    continue
            end_orphans()  # a process in a session of its own may still hold the output pipe
            out, _ = p.communicate()
        RUNNING.discard(p.pid)
        end_orphans()
        self.rc = p.returncode
        self.seconds = time.monotonic() - start
        self.output = out.decode("utf-8", "replace")

    def what_happened(self, limit):
        if self.timed_out:
            return (f"timed out after {limit:.0f} s and was killed (a kernel or loop that never finishes, "
                    "or a process it started that keeps its output open?)")
        if self.rc is not None and self.rc < 0:
            name = signal_name(self.rc)
            return f"crashed: {name} ({SIGNAL_WHY.get(name, 'killed by a signal')})"
        return f"exited with status {self.rc}"


# ---- Results ---------------------------------------------------------------------------------------

class Item:
    """One graded item: a test case, a speed variant, or a whole component that could not run."""

    def __init__(self, lab, kind, name, max_score, score=0.0, output="", status="failed",
                 hidden=False, seconds=0.0):
        self.lab, self.kind, self.name = lab, kind, name
        self.max_score, self.score = max_score, score
        self.output, self.status, self.hidden, self.seconds = output, status, hidden, seconds
        # status: passed | failed (wrong answer) | error (crash, timeout, build) | notrun

    @property
    def lost(self):
        return self.max_score - self.score


class LabResult:
    def __init__(self, lab_id, title=""):
        self.lab, self.title = lab_id, title
        self.items = []
        self.note = ""          # one line for the table when the lab did not run
        self.hung = None        # the name of the lab's first run that timed out ...
        self.hang_end = None    # ... and the time.monotonic() by which its later runs must end
        self.events = []        # what happened, in order (for the report)

    def points(self, kind):
        items = [i for i in self.items if i.kind == kind]
        return sum(i.score for i in items), sum(i.max_score for i in items), len(items)


# ---- Calls no lab needs ---------------------------------------------------------------------------

# Student code runs in the test process, which writes the report the grader reads; code that
# starts or ends processes, or reaches files or the environment, could forge it (a passing report,
# then _exit), so the grader refuses such a file before it runs. No lab needs any of these. The
# names are read in the preprocessed source (macros expanded, both passes of a .cu file), on the
# student's own lines; the compiled object's calls are checked too (ALLOWED_SYMBOLS).
FORBIDDEN_CALLS = frozenset("""
    fork vfork clone execl execlp execle execv execvp execvpe execve fexecve system popen posix_spawn
    posix_spawnp daemon kill killpg raise signal sigaction ptrace setsid
    exit _exit _Exit quick_exit abort terminate atexit at_quick_exit longjmp setjmp siglongjmp sigsetjmp
    open openat creat fopen freopen fdopen ofstream ifstream fstream filebuf basic_ofstream basic_ifstream
    basic_fstream basic_filebuf filesystem rename unlink unlinkat mkdir rmdir truncate ftruncate mmap
    mprotect dup2 dup3 chdir symlink write pwrite writev pwritev dprintf vdprintf sendfile splice
    copy_file_range fcntl ioctl getenv secure_getenv setenv putenv unsetenv environ
    program_invocation_name program_invocation_short_name dlopen dlsym dlvsym dladdr syscall
    weakref alias redefine_extname
""".split())
# Text that no lab's code holds either: paths of the process and its descriptors, system calls in
# inline assembly, and escapes that could spell a name the scan would not see.
FORBIDDEN_TEXT = ("/proc", "/dev/", "syscall", "sysenter", "int $0x80", "int 0x80", "\\u", "\\U")
# Inline assembly in host code could make system calls that no symbol shows (device code's PTX
# cannot, and labs may use it).
HOST_ASM = frozenset(("asm", "__asm", "__asm__"))
LINE_MARKER = re.compile(r'^#\s*(\d+)\s+"([^"]*)"')
LITERAL = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


# What a student's compiled object may call (nm -u, demangled): names hide from a text scan
# (builtins, asm labels, *64 variants, a forged line marker), not from the linker. The CUDA runtime,
# the C++ runtime and standard library but its files, memory, string, math, stdout, clock, sleep,
# thread and random-number functions, and the harness's entry points that the labs use; the SAT
# library only in the labs that call it.
ALLOWED_SYMBOLS = re.compile(r"""^(?:
    _?_?cuda\w* | __cxa_\w* | _Unwind_Resume | __gxx_personality_v0 | __stack_chk_fail | __tls_get_addr
  | atexit | __dso_handle
  | mem(?:cpy|move|set|cmp) | str(?:len|cmp|ncmp|cpy|ncpy|chr|rchr|str) | (?:c|m|re)alloc | free
  | aligned_alloc | posix_memalign
  | (?:sqrt|cbrt|exp2?|expm1|log(?:2|10|1p)?|pow|fabs|floor|ceil|l?l?round|l?l?rint|trunc|fmod|fma|fmin
     |fmax|hypot|ldexp|frexp|modf|nextafter|copysign|erfc?|[tl]gamma|a?sinh?|a?cosh?|a?tanh?|atan2)[fl]?
  | v?s?n?printf | puts | putchar | fflush | __assert_fail | __errno_location
  | nanosleep | usleep | sleep | sched_yield | clock_gettime | gettimeofday | time | clock
  | pthread_(?:self|equal|once|create|join|detach|mutex_\w+|cond_\w+|rwlock_\w+|spin_\w+|key_\w+
             |getspecific|setspecific|attr_\w+)
  | s?rand(?:om)? | srandom | [sd]rand48 | qsort | bsearch | l?l?abs | strto\w+ | ato[ifl]
  | operator\ (?:new|delete)(?:\[\])?\(.* | (?:typeinfo(?:\ name)?|vtable|VTT|guard\ variable|construction\ vtable)\ for\ .*
)$""", re.X)
# A C++ function by its qualified name (nm -C prints the return type of a template first, and
# the parameters, which may name std:: types of any function): the standard library's, and the
# harness's entry points that the labs use.
ALLOWED_QUALIFIED = re.compile(r"^(?:std::|sat::(?:register_lab|cached_graph|throw_cuda_error|Workspace::|tasks::"
                               r"|multigpu::))")
# ... but not the standard library's files, nor Catch2, whose report the grader reads, nor the CUDA
# runtime's calls that write a file at any path or hand out any driver function by name.
DENIED_SYMBOL_PARTS = ("fstream", "filebuf", "__basic_file", "filesystem", "Catch::", "_exit", "DebugDotPrint", "GetDriverEntryPoint", "GetExportTable", "GetProcAddress")
LIBRARY_QUALIFIED = re.compile(r"^sat::inclusive_scan_2d(?:_scratch)?\b")
LIBRARY_LABS = ("10",)  # the labs whose reference calls the SAT library (tools/release.py's too)


def qualified_name(symbol):
    """The qualified name of a demangled function: before its parameters, after its return type."""
    depth, cut = 0, len(symbol)
    for i, c in enumerate(symbol):
        depth += (c == "<") - (c == ">")
        if c == "(" and depth == 0:
            cut = i
            break
    head = symbol[:cut]
    conversion = head.find("operator ")  # a conversion operator's name holds a space
    depth, start = 0, 0
    for i, c in enumerate(head[:conversion] if conversion >= 0 else head):
        depth += (c == "<") - (c == ">")
        if c == " " and depth == 0:
            start = i + 1
    return head[start:]


def refused_symbols(undefined, lab):
    """The undefined symbols (demangled, from nm -u -C) that lab `lab`'s student object may not call."""
    refused = []
    for name in undefined:
        name = name.split("@")[0].strip()
        qualified = qualified_name(name)
        allowed = (ALLOWED_SYMBOLS.match(name) or ALLOWED_QUALIFIED.match(qualified) or
                   (lab in LIBRARY_LABS and LIBRARY_QUALIFIED.match(qualified)))
        if not allowed or any(part in name for part in DENIED_SYMBOL_PARTS):
            refused.append(name)
    return refused


# The student's source may not move the preprocessor's line markers (a #line, a GNU marker, a raw
# string whose lines look like one): the text scan reads them to tell the student's lines apart.
MOVED_LINES = re.compile(r'^\s*(?:#|%:)\s*(?:line\b|\d)|\b(?:u8|[uUL])?R"', re.M)


def forbidden_in(preprocessed, code_dir):
    """[(file:line, what)] for the forbidden names and text on the lines of a preprocessed source
    that come from files in code_dir (the student's; line markers say which file a line is from)."""
    found, current, line_no, code_dir = [], "", 0, os.path.normpath(code_dir)
    host = False  # the device pass of a .cu file comes first (Makefile, HOST_PASS)
    for line in preprocessed.splitlines():
        marker = LINE_MARKER.match(line)
        if marker:
            host = host or marker.group(2) == "<host pass>"
            current, line_no = os.path.normpath(marker.group(2)), int(marker.group(1))
            if any(t in marker.group(2) for t in ("/proc", "/dev/")):
                found.append((f"#include {marker.group(2)}", "a path of the process"))
            continue
        here, line_no = f"{current}:{line_no}", line_no + 1
        if not current.startswith(code_dir + "/"):
            continue
        forbidden = FORBIDDEN_CALLS | HOST_ASM if host else FORBIDDEN_CALLS
        # (cudafe's host code, the Makefile's fallback, stubs device functions with ::exit(___);
        # a student's own exit is still a call in the object.)
        code = LITERAL.sub(" ", line.replace("::exit(___);", ""))
        names = sorted({w for w in IDENTIFIER.findall(code) if w in forbidden})
        found += [(here, name) for name in names] + [(here, t) for t in FORBIDDEN_TEXT if t in line]
    return found


# ---- The repository --------------------------------------------------------------------------------

class Repo:
    """The labs as the Makefile lists them (make -s print-labs), for the code in `code`."""

    def __init__(self, root, code, jobs):
        self.root, self.code, self.jobs = root, code.rstrip("/"), jobs
        self.tag = self.code.replace("/", "_")
        p = self.make(["-s", "print-labs"], timeout=120)
        try:
            info = json.loads(p.output)
        except ValueError:
            raise SystemExit(f"grade: `make -s print-labs` did not print the lab list:\n{clip(p.output, 600)}")
        self.sol_dir = info["solution_dir"] if info["solution_dir"] == "solutions" else None
        self.labs = {lab["id"]: lab for lab in info["labs"]}

    def make(self, targets, timeout=BUILD_TIMEOUT):
        cmd = ["make", f"-j{self.jobs}", "--no-print-directory", f"STUDENT_DIR={self.code}"]
        return Proc(cmd + targets, self.root, timeout)

    def test_binary(self, lab):
        return f"build/tests-{self.tag}/lab{lab}"

    def program(self, lab):
        return f"build/tests-{self.tag}/prog/lab{lab}"


def detect_gpu(mode):
    if mode != "auto":
        return (True, "assumed present (--gpu yes)") if mode == "yes" else (False, "GPU labs not run (--gpu no)")
    if not shutil.which("nvidia-smi"):
        return False, "no CUDA GPU on this machine (nvidia-smi not found)"
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False, "no CUDA GPU on this machine (nvidia-smi did not answer)"
    gpus = [line for line in p.stdout.splitlines() if line.startswith("GPU ")]
    if p.returncode != 0 or not gpus:
        return False, "no CUDA GPU on this machine (nvidia-smi lists none)"
    return True, gpus[0]


# ---- Catch2 ----------------------------------------------------------------------------------------

def catch_name_spec(name):
    """A Catch2 v2 test spec that matches exactly this test name."""
    return "".join("\\" + c if c in '\\,[]"~*' else c for c in name)


def list_tests(binary, root, spec):
    """[(name, file)] of the tests matching a Catch2 spec; None if the binary does not run."""
    p = Proc([str(binary), spec, "--list-test-names-only", "-v", "high"], root, 120)
    if p.timed_out or p.rc is None or p.rc < 0:   # (Catch2 exits with the count otherwise)
        return None, p
    tests = []
    for line in p.output.splitlines():
        if "\t@" in line:
            name, _, where = line.rpartition("\t@")
            tests.append((name.strip('"'), where.rsplit(":", 1)[0]))
    return tests, p


def xml_failures(path):
    """The failure messages of one Catch2 XML report (with the INFO lines before each)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return None
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        # Cut short (killed, crashed): keep what can be read.
        found = re.findall(r"<(?:Info|FatalErrorCondition|Exception|Failure)[^>]*>(.*?)</", text, re.S)
        return [clip(" ".join(x.split()), 600) for x in found[-4:]] or None
    messages, infos = [], []
    for el in root.iter():
        if el.tag == "Info":
            infos.append((el.text or "").strip())
        elif el.tag == "Expression" and el.get("success") == "false":
            orig = (el.findtext("Original") or "").strip()
            expanded = (el.findtext("Expanded") or "").strip()
            where = f"{el.get('filename', '?')}:{el.get('line', '?')}"
            text_ = f"{el.get('type', 'CHECK')}( {orig} ) failed at {where}"
            if expanded and expanded != orig:
                text_ += f" with expansion {expanded}"
            messages.append("\n".join(infos + [text_]))
            infos = []
        elif el.tag in ("FatalErrorCondition", "Exception", "Failure"):
            where = f"{el.get('filename', '?')}:{el.get('line', '?')}"
            label = {"FatalErrorCondition": "fatal error", "Exception": "exception",
                     "Failure": "failure"}[el.tag]
            messages.append("\n".join(infos + [f"{label} at {where}: {(el.text or '').strip()}"]))
            infos = []
        elif el.tag == "Expression":
            infos = []
    return messages


def xml_passed(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return False
    results = [el.get("success") for el in root.iter("OverallResult")]
    return len(results) == 1 and results[0] == "true"


# ---- One lab -------------------------------------------------------------------------------------------

class Grader:
    def __init__(self, args, root):
        self.args = args
        self.root = root
        self.out = (root / args.out).resolve() if not Path(args.out).is_absolute() else Path(args.out)
        self.work = self.out / "grade"
        self.repo = Repo(root, args.code, args.jobs)
        self.gpu, self.gpu_text = detect_gpu(args.gpu)
        self.seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**63)

    def log(self, text):
        if not self.args.quiet:
            print(text, flush=True)

    # -- build ------------------------------------------------------------------------------------
    def build(self, lab, result):
        """Build lab `lab`'s test binary from the student code alone; None (and a zero) if it fails
        or if the code could reach the system (scan)."""
        (self.work / f"lab{lab}").mkdir(parents=True, exist_ok=True)
        if not self.args.no_scan and not self.scan(lab, result):
            return None
        target = self.repo.test_binary(lab)
        p = self.repo.make([target])
        (self.work / f"lab{lab}" / "build.log").write_text(p.output)
        if p.rc == 0 and (self.root / target).exists():
            return self.root / target
        self.build_failed(lab, result, p)
        return None

    def build_failed(self, lab, result, p):
        """A zero for a build (or preprocessing) that failed, with the compiler's error lines."""
        (self.work / f"lab{lab}" / "build.log").write_text(p.output)
        # Shown to the student: the compiler's and linker's own error lines, else the tail.
        errors = [line for line in p.output.splitlines() if "error" in line.lower()]
        why = (f"the build {p.what_happened(BUILD_TIMEOUT)}" if p.timed_out else
               f"does not compile or link: {self.repo.labs[lab]['student']} "
               f"(build/grade/lab{lab}/build.log)")
        self.fail_lab(result, why, "error", clip("\n".join(errors[:20]) or p.output, 2500))

    def scan(self, lab, result):
        """False (and a zero) where the student's code could reach the system: its compiled object
        calls outside ALLOWED_SYMBOLS, its preprocessed lines hold FORBIDDEN_CALLS, FORBIDDEN_TEXT or
        host asm, or its raw source moves line markers (MOVED_LINES); as the test binary compiles
        it (order-checked labs: with their flags too)."""
        info, work = self.repo.labs[lab], self.work / f"lab{lab}"
        objects = [f"build/obj/{info['student']}.o"]
        if info.get("order_checked") and info["student"].endswith(".cu"):
            objects.append(f"build/obj/checked/{info['student']}.o")
        sources = [o[:-2] + ".i" for o in objects]
        p = self.repo.make(sources + objects)
        if p.rc != 0:  # the preprocessor or the compiler failed: their errors
            self.build_failed(lab, result, p)
            return False
        found = []
        for path in sorted((self.root / self.repo.code).glob("lab*_*.c*")):  # the student's files
            if MOVED_LINES.search(path.read_text(errors="replace").replace("\\\n", "")):
                found.append((f"{path.relative_to(self.root)}", "a #line, line marker or raw string"))
        for source in sources:
            found += forbidden_in((self.root / source).read_text(errors="replace"), self.repo.code)
        for obj in objects:
            nm = subprocess.run(["nm", "-u", "-C", str(self.root / obj)], capture_output=True, text=True)
            undefined = [line.split(None, 1)[-1] for line in nm.stdout.splitlines() if line.strip()]
            if nm.returncode != 0:
                found.append((obj, "unreadable by nm: " + clip(nm.stderr, 200)))
            found += [(obj, name) for name in refused_symbols(undefined, lab)]
        found = list(dict.fromkeys(found))  # in the order of the source
        if not found:
            return True
        (work / "scan.txt").write_text("".join(f"{where}: {what}\n" for where, what in found))
        names = ", ".join(sorted({what for _, what in found}))
        first = found[0][0]
        self.fail_lab(result, f"{info['student']} uses {names} (first at {first}): lab code may not start or "
                              f"end processes, or reach files or the environment, so the grader does not run "
                              f"it (build/grade/lab{lab}/scan.txt)", "error")
        return False

    def fail_lab(self, result, why, status, detail=""):
        result.note = why
        result.events.append(why + (":\n" + detail if detail else ""))
        text = why + ("\n\n" + detail if detail else "")
        result.items.append(Item(result.lab, "correctness", f"lab{result.lab} correctness",
                                 CORRECTNESS_POINTS, 0.0, text, status))
        result.items.append(Item(result.lab, "speed", f"lab{result.lab} speed", SPEED_POINTS, 0.0,
                                 "no speed points: " + why, status))

    # -- hangs ------------------------------------------------------------------------------------
    def hang_limit(self, result, limit):
        """(time limit, note) for a lab's next run: `limit`, or once a run of the lab has hung what
        is left of the hang budget; a limit of None means skip the run (the budget is spent)."""
        if result.hung is None:
            return limit, ""
        left = result.hang_end - time.monotonic()
        note = (f"an earlier test of this lab hung ({result.hung}); the lab's later runs share "
                f"{self.args.hang_budget:.0f} s")
        if left <= 1:
            return None, "skipped: " + note + ", used up"
        return (limit, "") if left >= limit else (left, f"its time limit was cut to {left:.0f} s: " + note)

    def note_hang(self, result, item, timed_out):
        if timed_out and result.hung is None:
            result.hung = item.name
            result.hang_end = time.monotonic() + self.args.hang_budget

    # -- tests ------------------------------------------------------------------------------------
    def run_tests(self, lab, result, binary, gpu_lab):
        # A GPU lab is graded on its [gpu] tests only: its [cpu] tests check the harness side
        # (CPU references, argument checks), which the student does not write.
        tag = f"[lab{lab}]" + ("[gpu]" if gpu_lab else "")
        # [skeleton] tests expect the untouched skeleton; [.] tests are hidden from default runs;
        # [harness] tests check the suite's own plumbing in a lab's binary, not the student's code;
        # [multigpu] tests need several GPUs, which a grading machine may not have.
        required, p = list_tests(binary, self.root, f"{tag}~[skeleton]~[bonus]~[.]~[harness]~[multigpu]")
        if required is None:
            self.fail_lab(result, "the test binary does not start: " + p.what_happened(120), "error",
                          clip(p.output))
            return False
        if gpu_lab and "GPU: none" in p.output:
            self.fail_lab(result, "not run: the CUDA runtime finds no usable GPU", "notrun")
            return False
        bonus, _ = list_tests(binary, self.root, f"{tag}[bonus]~[skeleton]~[.]")
        hidden_tagged, _ = list_tests(binary, self.root, f"{tag}[hidden]")
        hidden_names = {n for n, _ in hidden_tagged or []}
        if not required and not bonus:
            self.fail_lab(result, f"no tests tagged {tag} in the test binary", "error")
            return False
        budget_end = time.monotonic() + self.args.lab_budget
        all_required_passed = bool(required)
        for kind, tests, pool in (("correctness", required, CORRECTNESS_POINTS),
                                  ("bonus", bonus or [], BONUS_POINTS)):
            for index, (name, where) in enumerate(tests):
                hidden = where.replace("\\", "/").startswith("tests/hidden/") or name in hidden_names
                label = name if name.lower().startswith(f"lab{lab} ") else f"lab{lab} {name}"
                label += " [bonus]" if kind == "bonus" else ""
                item = Item(lab, kind, label, pool / len(tests), hidden=hidden)
                result.items.append(item)
                left = budget_end - time.monotonic()
                limit, cut = self.hang_limit(result, min(self.args.timeout, left))
                if left <= 1:
                    item.status = "notrun"
                    item.output = f"not run: the lab's test time ({self.args.lab_budget:.0f} s) was used up"
                elif limit is None:
                    item.status, item.output = "notrun", cut
                else:
                    timed_out = self.run_one(lab, binary, name, item, limit, index, kind)
                    self.note_hang(result, item, timed_out)
                    if cut and item.status != "passed":
                        item.output += "\n" + cut
                if kind == "correctness" and item.status != "passed":
                    all_required_passed = False
        return all_required_passed

    def run_one(self, lab, binary, name, item, limit, index, kind):
        """Run one test case into `item`; True when it timed out."""
        report = self.work / f"lab{lab}" / f"{kind}{index + 1}.xml"
        report.unlink(missing_ok=True)
        env = dict(os.environ, SAT_TEST_SEED=str(self.seed))
        spec = catch_name_spec(name)
        p = Proc([str(binary), spec, "-r", "xml", "-o", str(report)], self.root, limit, env)
        item.seconds = p.seconds
        rel = os.path.relpath(binary, self.root)
        repro = f"reproduce: SAT_TEST_SEED={self.seed} {rel} {shlex.quote(spec)}"
        counts = SUMMARY.findall(p.output)
        passed, failed, skipped = map(int, counts[-1]) if counts else (0, 0, 0)
        if p.rc == 0 and not p.timed_out and (passed, failed, skipped) == (1, 0, 0) and xml_passed(report):
            item.score, item.status = item.max_score, "passed"
            item.output = f"passed in {p.seconds:.1f} s"
            return False
        failures = xml_failures(report) or []
        if p.timed_out or (p.rc is not None and p.rc < 0):
            item.status = "error"
            why = p.what_happened(limit)
            failures = [f for f in failures if "SIGTERM" not in f]   # (the grader's own kill)
            if failures:
                why += "\nlast message before it:\n" + failures[-1]
            tail = "\n".join(p.output.strip().splitlines()[-8:])
            item.output = f"{why}\n{repro}" + (f"\nlast output:\n{tail}" if tail else "")
        elif skipped and not failed:
            item.status = "notrun"
            item.output = f"skipped (no usable GPU?)\n{repro}"
        elif failures:
            item.output = "failed: " + clip("\n".join(failures[:3]), 2000) + f"\n{repro}"
        elif passed + failed + skipped == 0:
            item.status = "error"
            item.output = f"the test did not run ({p.what_happened(limit)}; no summary line)\n{repro}\n" \
                          + clip(p.output, 1000)
        else:
            item.output = f"failed ({p.what_happened(limit)})\n{repro}\n" + clip(p.output, 1500)
        return p.timed_out

    # -- speed ------------------------------------------------------------------------------------
    def time_runs(self, binary, lab, tag, rnd):
        csv_path = self.work / f"lab{lab}" / f"speed_{tag}_{rnd}.csv"
        csv_path.unlink(missing_ok=True)
        size, reps = SPEED_RUN.get(lab, SPEED_RUN_DEFAULT)
        cmd = [f"./{binary}", "--size", str(size), "--reps", str(reps), "--type", SPEED_TYPE,
               "--seed", str(self.seed), "--csv", str(csv_path)]
        p = Proc(cmd, self.root, SPEED_TIMEOUT)
        rows = {}
        if csv_path.exists():
            with open(csv_path, newline="") as f:
                for row in csv.DictReader(f):
                    rows[row["variant"]] = row
        return p, rows, " ".join(cmd[:-2])

    @staticmethod
    def speed_fraction(ratio):
        if ratio <= SPEED_SLACK:
            return 1.0
        return SPEED_SLACK / ratio if ratio <= SPEED_ZERO else 0.0

    def speed(self, lab, result, student_bin, ref_bin, correct):
        def whole(text, status):
            result.items.append(Item(lab, "speed", f"lab{lab} speed", SPEED_POINTS, 0.0, text, status))
        if self.args.no_speed:
            return whole("speed not graded (--no-speed)", "notrun")
        if not correct:
            return whole("no speed points: not every required test passed", "notrun")
        if ref_bin is None:
            return whole("speed not graded: no reference solution in this copy (solutions/ is absent; "
                         "the instructor's grade times it)", "notrun")
        # Reference and student alternate; noise (other processes, clocks) only ever slows a run
        # down, so each variant keeps its fastest timed repetition over all rounds, and while a
        # variant is short of full marks a few more rounds are run.
        best, ref_best, problem, command, rounds = {}, {}, None, "", 0
        while rounds < SPEED_MAX_ROUNDS:
            rp, rrows, _ = self.time_runs(ref_bin, lab, "ref", rounds)
            sp, srows, command = self.time_runs(student_bin, lab, "student", rounds)
            rounds += 1
            if rp.rc != 0 or not rrows:
                return whole(f"speed not graded: the reference run {rp.what_happened(SPEED_TIMEOUT)}\n"
                             + clip(rp.output, 1500), "error")
            for v, row in rrows.items():
                ref_best[v] = min(ref_best.get(v, float("inf")), float(row["min_ms"]))
            if sp.timed_out or (sp.rc is not None and sp.rc < 0):
                problem = f"the timed run `{command}` {sp.what_happened(SPEED_TIMEOUT)}\n" + clip(sp.output, 1500)
                break
            for v, row in srows.items():
                if row.get("check") != "PASS":
                    best[v] = None
                elif best.get(v, 0) is not None:
                    best[v] = min(best.get(v, float("inf")), float(row["min_ms"]))
            short = [v for v in ref_best if best.get(v) is not None
                     and self.speed_fraction(best[v] / ref_best[v]) < 1.0]
            if rounds >= SPEED_ROUNDS and (not short or any(best.get(v) is None for v in ref_best)):
                break
        size, _ = SPEED_RUN.get(lab, SPEED_RUN_DEFAULT)
        variants = sorted(ref_best)
        for v in variants:
            share = SPEED_POINTS / len(variants)
            name = f"lab{lab} speed: {v}, {SPEED_TYPE} {size}x{size}"
            ms, ref_ms = best.get(v), ref_best[v]
            if problem:
                result.items.append(Item(lab, "speed", name, share, 0.0, problem, "error"))
            elif v not in best:
                result.items.append(Item(lab, "speed", name, share, 0.0,
                                         f"no result for {v} from `{command}`", "failed"))
            elif ms is None:
                result.items.append(Item(lab, "speed", name, share, 0.0,
                                         f"{v} failed its check in the timed run `{command}`", "failed"))
            else:
                ratio = ms / ref_ms if ref_ms > 0 else float("inf")
                frac = self.speed_fraction(ratio)
                text = (f"{ratio:.2f}x the reference time: {ms:.3f} ms vs {ref_ms:.3f} ms (fastest of "
                        f"{rounds} alternating runs x {SPEED_RUN.get(lab, SPEED_RUN_DEFAULT)[1]} repetitions; full marks up to {SPEED_SLACK}x, none beyond "
                        f"{SPEED_ZERO:g}x)\n{command}")
                result.items.append(Item(lab, "speed", name, share, round(share * frac, 4), text,
                                         "passed" if frac == 1.0 else "failed"))

    # -- all labs -----------------------------------------------------------------------------------
    def grade(self, wanted):
        ids = sorted(self.repo.labs, key=lab_key)
        if wanted:
            unknown = [w for w in wanted if w not in ids]
            if unknown:
                print(f"grade: no lab {', '.join(unknown)} here (labs: {', '.join(ids) or 'none'})",
                      file=sys.stderr)
                sys.exit(2)
            ids = [i for i in ids if i in wanted]
        self.work.mkdir(parents=True, exist_ok=True)
        results = []
        self.log(f"grading {self.repo.code}/ labs {', '.join(ids)}; GPU: {self.gpu_text}; "
                 f"seed {self.seed}")
        for lab in ids:
            info = self.repo.labs[lab]
            result = LabResult(lab, info["student"] or f"{self.repo.code}/lab{lab}_*")
            results.append(result)
            if not info["student"]:
                self.fail_lab(result, f"missing: no {self.repo.code}/lab{lab}_*.cu or .cpp", "error")
                continue
            if info["gpu"] and not self.gpu:
                self.fail_lab(result, f"not run: GPU lab, {self.gpu_text}", "notrun")
                self.skip_sanitizers(lab, result, f"needs a GPU ({self.gpu_text})")
                continue
            self.log(f"lab{lab}: building {self.repo.test_binary(lab)} from {info['student']}")
            binary = self.build(lab, result)
            if binary is None:
                continue
            self.log(f"lab{lab}: testing")
            correct = self.run_tests(lab, result, binary, info["gpu"])
            if result.note:        # could not run at all
                continue
            if info["gpu"]:
                correct = self.sanitize(lab, result) and correct
            if not correct or self.args.no_speed:
                self.speed(lab, result, None, None, correct)
                continue
            student = self.repo.program(lab)
            p = self.repo.make([student])
            q = self.repo.make([f"lab{lab}-ref"]) if self.repo.sol_dir else None
            if p.rc != 0:
                result.items.append(Item(lab, "speed", f"lab{lab} speed", SPEED_POINTS, 0.0,
                                         f"{student} does not build:\n" + clip(p.output, 1500), "error"))
            elif q is not None and q.rc != 0:
                result.items.append(Item(lab, "speed", f"lab{lab} speed", SPEED_POINTS, 0.0,
                                         f"speed not graded: the reference ./lab{lab}-ref does not build:\n"
                                         + clip(q.output, 1500), "error"))
            else:
                self.log(f"lab{lab}: timing {student} against the reference")
                self.speed(lab, result, student, f"lab{lab}-ref" if q else None, correct)
        return results

    # -- races ----------------------------------------------------------------------------------------
    def skip_sanitizers(self, lab, result, why):
        for tool in SANITIZE_TOOLS:
            result.items.append(Item(lab, "correctness", f"lab{lab} {tool}", 0.0, 0.0,
                                     f"skipped: {tool} {why}", "notrun"))

    def sanitize(self, lab, result):
        """racecheck and synccheck on the student's program, every variant and type at a small odd
        shape; each tool is a required test worth as much as any other. True when both are clean."""
        import sanitize as tools_sanitize   # (tools/sanitize.py: the verdict of one tool's run)
        if self.args.no_sanitize:
            self.skip_sanitizers(lab, result, "not run (--no-sanitize)")
            return True
        sanitizer = tools_sanitize.find_sanitizer()
        if not sanitizer:
            self.skip_sanitizers(lab, result, "not run: compute-sanitizer not found (CUDA toolkit, $CUDA_HOME/bin)")
            return True
        program = self.repo.program(lab)
        p = self.repo.make([program])
        tests = [i for i in result.items if i.kind == "correctness"]
        share = CORRECTNESS_POINTS / (len(tests) + len(SANITIZE_TOOLS))
        for item in tests:                      # re-weight: the tools count as required tests
            item.score = share if item.score > 0 else 0.0
            item.max_score = share
        ok = True
        for tool in SANITIZE_TOOLS:
            item = Item(lab, "correctness", f"lab{lab} {tool}: every variant, {SANITIZE_SHAPE}", share)
            result.items.append(item)
            if p.rc != 0:
                item.status, item.output = "error", f"{program} does not build:\n" + clip(p.output, 1500)
                ok = False
                continue
            cmd = [sanitizer, "--tool", tool, "--error-exitcode", str(tools_sanitize.ERROR_EXIT)]
            if tool == "racecheck":
                cmd += ["--racecheck-report", "all"]
            cmd += [f"./{program}"] + sanitize_args(lab, self.seed)
            left_out = tools_sanitize.RACECHECK_LEAVES_OUT.get(lab, {}) if tool == "racecheck" else {}
            if left_out:
                kept = [v for v in tools_sanitize.variants_of(f"./{program}") if v not in left_out]
                if not kept:
                    item.status, ok = "error", False
                    item.output = (f"{tool} not run: no variants listed by `./{program} --help` "
                                   f"(tools/sanitize.py variants_of), so {', '.join(left_out)} cannot be left out")
                    continue
                cmd += ["--variant", ",".join(kept)]
            limit, cut = self.hang_limit(result, self.args.sanitize_timeout)
            if limit is None:   # it would run the kernel that hung, under the tool
                item.status, item.output, ok = "notrun", f"{tool} {cut}", False
                continue
            run = Proc(cmd, self.root, limit)
            self.note_hang(result, item, run.timed_out)
            item.seconds = run.seconds
            log = self.work / f"lab{lab}" / f"{tool}.log"
            log.write_text(" ".join(cmd) + "\n\n" + run.output)
            clean, text = tools_sanitize.verdict(tool, None if run.timed_out else run.rc, run.output,
                                                 run.timed_out, round(limit), tool_only=True)
            repro = "reproduce: " + " ".join(shlex.quote(c) for c in cmd)
            notes = "".join(f"\n{tool} leaves out {v}: {why}" for v, why in left_out.items())
            if clean:
                item.score, item.status = share, "passed"
                item.output = f"{tool} {text}{notes}\n{repro}"
            else:
                ok = False
                item.status = "error" if run.timed_out else "failed"
                item.output = (f"{tool} {text}{notes}" + (f"\n{cut}" if cut else "")
                               + f"\n{repro}\nfull log: {os.path.relpath(log, self.root)}")
        return ok


def sanitize_args(lab, seed):
    """The small run each tool checks: every variant, every type, one odd shape, no timing."""
    if lab == "8x":   # not a SAT: its own problem sizes
        return ["--size", SANITIZE_SHAPE, "--items", "100", "--capacity", "500", "--reps", "0",
                "--seed", str(seed)]
    return ["--size", SANITIZE_SHAPE, "--type", "f32,f64,i32,u8i32", "--reps", "0", "--seed", str(seed)]


# ---- Reports -------------------------------------------------------------------------------------------

def table(results, grader, public=False):
    lines = [f"SAT Labs grade of {grader.repo.code}/ - GPU: {grader.gpu_text} - test seed {grader.seed}",
             f"correctness {fmt(CORRECTNESS_POINTS)} + speed {fmt(SPEED_POINTS)} per lab, bonus up to "
             f"{fmt(BONUS_POINTS)} on top; speed: full marks up to {SPEED_SLACK}x the reference time",
             "",
             f"{'lab':<5}{'title':<36}{'correctness':>13}{'bonus':>9}{'speed':>9}{'total':>12}"]
    total = total_max = bonus_total = 0.0
    for r in results:
        c, cmax, _ = r.points("correctness")
        b, bmax, nb = r.points("bonus")
        s, smax, _ = r.points("speed")
        total += c + b + s
        bonus_total += b
        total_max += cmax + smax
        title = (r.title[:33] + "...") if len(r.title) > 36 else r.title
        if r.note:
            lines.append(f"{r.lab:<5}{title:<36}{fmt(c) + '/' + fmt(cmax):>13}{'-':>9}"
                         f"{fmt(s) + '/' + fmt(smax):>9}{fmt(c + s) + '/' + fmt(cmax + smax):>12}")
            lines.append(f"     {r.note}")
            continue
        lines.append(f"{r.lab:<5}{title:<36}{fmt(c) + '/' + fmt(cmax):>13}"
                     f"{(fmt(b) + '/' + fmt(bmax)) if nb else '-':>9}{fmt(s) + '/' + fmt(smax):>9}"
                     f"{fmt(c + b + s) + '/' + fmt(cmax + smax):>12}")
    lines.append(f"{'total':<41}{'':>13}{'':>9}{'':>9}{fmt(total) + '/' + fmt(total_max):>12}"
                 + (f"  (includes {fmt(bonus_total)} bonus)" if bonus_total else ""))
    lost = [i for r in results for i in r.items if i.lost > 1e-9]
    if lost:
        lines += ["", "Lost points (why):"]
        for r in results:
            if r.note:   # the lab did not run at all: one line says why
                lines.append(f"  -{fmt(sum(i.lost for i in r.items)):>6}  lab{r.lab}: {r.note}")
        for i in lost:
            if next(r for r in results if r.lab == i.lab).note:
                continue
            first = i.output.strip().splitlines()[0] if i.output.strip() else i.status
            name = i.name
            if i.hidden and public:   # the students' view: no hidden test names or messages
                name, first = f"lab{i.lab} hidden {i.kind} test", "details after grades are published"
            lines.append(f"  -{fmt(i.lost):>6}  {name}: {first}")
    return "\n".join(lines), total, total_max


def details(results):
    lines = []
    for r in results:
        for i in r.items:
            if i.status != "passed" or i.lost > 1e-9:
                lines += ["", f"== {i.name} [{i.status}] {fmt(i.score)}/{fmt(i.max_score)}", i.output.strip()]
    return "\n".join(lines)


def gradescope(results, total, summary, seconds):
    tests = []
    for r in results:
        for n, i in enumerate(r.items, 1):
            t = {"name": i.name, "number": f"{r.lab}.{n}", "score": round(i.score, 4),
                 "max_score": round(i.max_score, 4), "status": "passed" if i.status == "passed" else "failed",
                 "output": i.output, "visibility": HIDDEN_VISIBILITY if i.hidden else "visible",
                 "tags": [f"lab{r.lab}", i.kind]}
            tests.append(t)
    return {"score": round(total, 4), "execution_time": int(seconds), "output": summary,
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}


def junit(results, seconds):
    suites, all_counts = [], [0, 0, 0, 0]
    for r in results:
        cases, counts = [], [0, 0, 0, 0]   # tests, failures, errors, skipped
        for i in r.items:
            counts[0] += 1
            body = ""
            msg = xml_escape(i.output.strip().splitlines()[0] if i.output.strip() else i.status, {'"': "&quot;"})
            full = xml_escape(i.output)
            if i.status == "notrun":
                counts[3] += 1
                body = f'<skipped message="{msg}"/>'
            elif i.status == "error":
                counts[2] += 1
                body = f'<error message="{msg}">{full}</error>'
            elif i.lost > 1e-9:
                counts[1] += 1
                body = f'<failure message="{msg}">{full}</failure>'
            out = f"<system-out>{xml_escape(f'score {fmt(i.score)}/{fmt(i.max_score)}')}</system-out>"
            cases.append(f'    <testcase classname="lab{r.lab}.{i.kind}" name="{xml_escape(i.name, {chr(34): "&quot;"})}" '
                         f'time="{i.seconds:.3f}">{body}{out}</testcase>')
        all_counts = [a + b for a, b in zip(all_counts, counts)]
        suites.append(f'  <testsuite name="lab{r.lab}" tests="{counts[0]}" failures="{counts[1]}" '
                      f'errors="{counts[2]}" skipped="{counts[3]}">\n' + "\n".join(cases) + "\n  </testsuite>")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            # No `skipped` here: strict JUnit schemas (Jenkins xunit) allow it on <testsuite> only.
            f'<testsuites name="SAT Labs grade" tests="{all_counts[0]}" failures="{all_counts[1]}" '
            f'errors="{all_counts[2]}" time="{seconds:.1f}">\n'
            + "\n".join(suites) + "\n</testsuites>\n")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lab", action="append", default=[], help="lab(s) to grade, e.g. 3 or 3,5 (default: all)")
    ap.add_argument("--code", default="labs", metavar="DIR",
                    help="the folder of lab files to grade (default labs; solutions: check that the "
                         "reference scores full marks; make mutants: a mutant's folder)")
    ap.add_argument("--gpu", default="auto", choices=["auto", "yes", "no"], help="run the GPU labs (auto: if a GPU is present)")
    ap.add_argument("--timeout", type=float, default=TEST_TIMEOUT, help=f"seconds per test case (default {TEST_TIMEOUT})")
    ap.add_argument("--lab-budget", type=float, default=LAB_BUDGET, help=f"seconds of tests per lab (default {LAB_BUDGET})")
    ap.add_argument("--hang-budget", type=float, default=HANG_BUDGET,
                    help=f"seconds for all of a lab's later runs once one timed out (default {HANG_BUDGET})")
    ap.add_argument("--no-speed", action="store_true", help="skip the timed runs (speed scores zero)")
    ap.add_argument("--no-scan", action="store_true",
                    help="skip the scan that refuses code able to reach processes, files or the "
                         "environment, for code the instructor trusts")
    ap.add_argument("--no-sanitize", action="store_true", help="skip racecheck and synccheck (their tests are skipped)")
    ap.add_argument("--sanitize-timeout", type=float, default=SANITIZE_TIMEOUT,
                    help=f"seconds per compute-sanitizer run (default {SANITIZE_TIMEOUT})")
    ap.add_argument("--seed", type=int, help="test/input seed (default: fresh, printed)")
    ap.add_argument("--out", default="build", help="where results.json and junit.xml go (default build)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="parallel make jobs")
    ap.add_argument("--quiet", action="store_true", help="print only the table")
    args = ap.parse_args(argv)
    wanted = [x for part in args.lab for x in re.split(r"[,\s]+", part.strip()) if x]
    root = Path(__file__).resolve().parent.parent
    if not (root / "Makefile").exists():
        print(f"grade: {root} has no Makefile", file=sys.stderr)
        return 2
    if Path(args.code).is_absolute() or not (root / args.code).is_dir():
        print(f"grade: --code {args.code}: no such folder under {root}", file=sys.stderr)
        return 2
    start = time.monotonic()
    signal.signal(signal.SIGTERM, stop_children)
    adopt_orphans()
    grader = Grader(args, root)
    results = grader.grade(wanted)
    seconds = time.monotonic() - start
    summary, total, total_max = table(results, grader)
    public_summary, _, _ = table(results, grader, public=True)
    grader.out.mkdir(parents=True, exist_ok=True)
    (grader.out / "results.json").write_text(
        json.dumps(gradescope(results, total, public_summary, seconds), indent=2) + "\n")
    (grader.out / "junit.xml").write_text(junit(results, seconds))
    (grader.work / "report.txt").write_text(summary + "\n" + details(results) + "\n")
    print()
    print(summary)
    rel = os.path.relpath(grader.out, Path.cwd())
    print(f"\nwrote {rel}/results.json, {rel}/junit.xml, and {rel}/grade/report.txt with every reason in "
          "full and the command that reproduces each failure")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
