#!/usr/bin/env python3
"""bad_input.py — issue 21's malformed inputs, each run for real: exit code, lines, message.

    python3 tests/bad_input.py            (from the repository root, after make lab1-ref lab2-ref)

Runs every case against ./lab1-ref (the CPU lab; GPU labs are hidden with CUDA_VISIBLE_DEVICES=
where a case needs a GPU lab's argument checks) and the plot/bench/results scripts, checks the
exit code, the number of output lines (stdout and stderr together) and a piece of the message,
prints the table (input -> exit code, lines, message) and exits 1 if any case is off. The test
binary runs it ([cpu][input] in tests/test_bad_input.cpp). Files it makes go to build/bad_input/.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TMP = ROOT / "build" / "bad_input"


def make_inputs():
    TMP.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    np.save(TMP / "3d.npy", rng.random((2, 3, 4)))
    np.save(TMP / "4d.npy", rng.random((2, 3, 4, 5)))
    np.save(TMP / "int64.npy", rng.integers(-100, 100, size=(40, 50)))  # numpy's default int type
    big = np.zeros((4, 5), dtype=np.int64)
    big[2, 3] = 5_000_000_000
    np.save(TMP / "int64_big.npy", big)
    nan = rng.random((8, 9)).astype(np.float32)
    nan[3, 4] = np.nan
    np.save(TMP / "nan.npy", nan)
    inf = rng.random((8, 9))
    inf[0, 1] = np.inf
    np.save(TMP / "inf.npy", inf)
    np.save(TMP / "overflow.npy", np.full((300, 300), 100_000, dtype=np.int32))  # sum 9e9
    np.save(TMP / "ok.npy", rng.random((33, 65)).astype(np.float32))
    # A header that claims 40000 x 40000 float32 (6.4 GB) on a file of 200 bytes.
    huge_claim(TMP / "huge_claim.npy")
    # PGM: truncated 8-bit, full 16-bit.
    (TMP / "truncated.pgm").write_bytes(b"P5\n64 48\n255\n" + bytes(1000))
    px16 = (rng.integers(0, 65536, size=(30, 40))).astype(">u2")
    (TMP / "deep.pgm").write_bytes(b"P5\n40 30\n65535\n" + px16.tobytes())
    np.save(TMP / "deep_expected.npy", px16.astype(np.float64).cumsum(0).cumsum(1))
    try:
        from PIL import Image
        img = Image.fromarray(px16.astype(np.uint16))
        img.save(TMP / "deep.png")
    except Exception:  # no Pillow: the 16-bit PNG case is skipped (reported)
        pass
    (TMP / "other.csv").write_text("a,b,c\n1,2,3\n")


def huge_claim(path: Path):
    """A valid .npy header claiming (40000, 40000) float32, then 72 bytes of data."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (40000, 40000), }"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 72)


def run(cmd: str, env_extra: str = "") -> tuple[int, list[str], float]:
    t = time.time()
    p = subprocess.run(f"{env_extra} {cmd}", shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300)
    lines = (p.stdout + p.stderr).splitlines()
    return p.returncode, lines, time.time() - t


def is_png(path: Path) -> bool:
    return path.exists() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# (item, command, exit code, lines (None: any), text that must appear, extra check or None)
def cases():
    L = "./lab1-ref"
    t = "build/bad_input"
    sat = lambda name: f"{t}/{name}"  # noqa: E731
    gone = lambda *names: lambda: all(not (ROOT / t / n).exists() for n in names)  # noqa: E731

    def deep_pgm_exact():
        got = np.load(ROOT / t / "deep_sat.npy")
        return got.dtype == np.float64 and np.array_equal(got, np.load(ROOT / t / "deep_expected.npy"))

    out = [
        ("3-D .npy", f"{L} --input {sat('3d.npy')}", 2, 1, "3-D array (2x3x4)", None),
        ("4-D .npy", f"{L} --input {sat('4d.npy')}", 2, 1, "4-D array", None),
        ("truncated binary PGM", f"{L} --input {sat('truncated.pgm')}", 2, 1, "truncated PGM", None),
        ("16-bit PGM (maxval 65535)", f"{L} --input {sat('deep.pgm')} --output {sat('deep_sat.npy')} --reps 0",
         0, None, "f64", deep_pgm_exact),
        ("int32 sums overflow", f"{L} --input {sat('overflow.npy')} --reps 0", 0, None,
         "beyond INT32_MAX; int32 sums wrap", None),
        ("NaN in the input", f"{L} --input {sat('nan.npy')}", 2, 1, "is NaN", None),
        ("Inf in the input", f"{L} --input {sat('inf.npy')}", 2, 1, "is Inf", None),
        ("int64 .npy that fits", f"{L} --input {sat('int64.npy')} --reps 0", 0, None, "int64 data read as int32", None),
        ("int64 .npy too large", f"{L} --input {sat('int64_big.npy')}", 2, 1, "largest 5000000000", None),
        ("--output y.jpg", f"{L} --size 64 --output {sat('y.jpg')}", 2, 1, "unknown format", gone("y.jpg")),
        ("--output y.PNG", f"{L} --size 64 --reps 0 --output {sat('y.PNG')}", 0, None, "wrote",
         lambda: is_png(ROOT / t / "y.PNG")),
        ("--output y.txt", f"{L} --size 64 --output {sat('y.txt')}", 2, 1, "unknown format", gone("y.txt")),
        ("--output y", f"{L} --size 64 --output {sat('y')}", 2, 1, "unknown format", gone("y")),
        ("--output ''", f"{L} --size 64 --output ''", 2, 1, "unknown format", None),
        ("unwritable --output", f"{L} --size 64 --output /nonexistent/dir/y.npy", 2, 1, "cannot write", None),
        ("unwritable --csv", f"{L} --size 64 --csv /nonexistent/dir/x.csv", 2, 1, "cannot write", None),
        ("--csv /dev/full", f"{L} --size 64 --csv /dev/full", 2, 1, "No space left", None),
        ("--csv with another header", f"{L} --size 64 --csv {sat('other.csv')}", 2, 1, "another CSV header", None),
        ("--csv with --model", f"{L} --model --csv {sat('m.csv')}", 2, 1, "--model measures nothing", gone("m.csv")),
        # 40000^2 f64 needs about 83 GiB on the CPU lab; 200000^2 exceeds any test machine.
        ("memory: --size 200000 --type f64", f"{L} --size 200000 --type f64", 2, 1, "of host memory", None),
        ("memory: --size 100000000", f"{L} --size 100000000", 2, 1, "of host memory", None),
        (".npy claiming 40000x40000 in 200 bytes", f"{L} --input {sat('huge_claim.npy')}", 2, 1,
         "but the file holds 72 bytes", None),
        ("--help states exit codes", f"{L} --help", 0, None, "Exit codes: 0 every run passed", None),
        ("--trace on a lab without one", f"{L} --trace {sat('x.png')}", 2, 1, "records no tile trace", gone("x.png")),
        ("--input with two types", f"{L} --input {sat('ok.npy')} --type f32,f64 --reps 0", 0, 9, "PASS",
         None),
        ("--size 1080x1920 is rows x cols", f"{L} --size 1080x1920 --reps 0 --variant threaded", 0, None,
         "1080x1920", None),
        ("-ref binary names itself", f"{L} --size 0", 2, 1, "lab1-ref: --size needs an integer", None),
        ("--size 3x names the whole value", f"{L} --size 3x", 2, 1, "on each side of the x, got '3x'", None),
        ("make plots CSV=README.md", "python3 plots/make_plots.py README.md build/bad_input/plots", 2, 1,
         "not a bench CSV", None),
        ("make plots CSV=/dev/null", "python3 plots/make_plots.py /dev/null build/bad_input/plots", 2, 1,
         "not a bench CSV", lambda: not (ROOT / t / "plots").exists()),
        ("make results CSV=README.md", "python3 tools/results.py README.md build/bad_input/r.md", 2, 1,
         "not a bench CSV", gone("r.md")),
        ("make bench without a GPU", "CUDA_VISIBLE_DEVICES= python3 tools/bench.py --no-build", 2, 1,
         "bench: nothing measured", None),
        ("unknown option", f"{L} --frobnicate", 2, 1, "unknown option '--frobnicate'", None),
        ("option without its value", f"{L} --size", 2, 1, "--size needs a value", None),
    ]
    if (ROOT / t / "deep.png").exists():
        out.insert(4, ("16-bit PNG", f"{L} --input {sat('deep.png')} --output {sat('deep_png_sat.npy')} --reps 0",
                       0, None, "f64", lambda: np.array_equal(np.load(ROOT / t / "deep_png_sat.npy"),
                                                              np.load(ROOT / t / "deep_expected.npy"))))
    return out


LONG_RUN = "./lab1-ref --sizes 64,4096 --variant 4R1W(CPU) --seed 3 --reps "


def long_run() -> str:
    """LONG_RUN with enough repetitions for about 4 s after its first row on this machine."""
    global LONG_RUN
    if LONG_RUN.endswith("--reps "):
        p = subprocess.run((LONG_RUN + "3").split(), cwd=ROOT, capture_output=True, text=True, timeout=120)
        row = next(l for l in p.stdout.splitlines() if " 4096x4096 " in l)
        median_ms = float(row.split()[4])
        LONG_RUN += str(max(3, int(4000 / median_ms) + 1))
    return LONG_RUN


def rows_flushed():
    """Through a pipe, the first row arrives while the process is still running."""
    p = subprocess.Popen(long_run().split(), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    early, lines = False, []
    for line in p.stdout:
        lines.append(line.rstrip("\n"))
        if " 64x64 " in line:
            early = p.poll() is None
    err = p.stderr.read()
    p.wait()
    lines += err.splitlines()
    msg = "first row read while the run went on" if early else "first row came only at the end"
    return p.returncode, lines, msg, early and p.returncode == 0 and not err


def progress_on_tty():
    """With stderr on a terminal, a run over 2 s shows one updating line there (and none on a pipe)."""
    import pty
    leader, follower = pty.openpty()
    p = subprocess.Popen(long_run().split(), cwd=ROOT, stdout=subprocess.PIPE, stderr=follower, text=True)
    os.close(follower)
    out = p.stdout.read()
    err = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    p.wait()
    os.close(leader)
    text = err.decode(errors="replace")
    shown = [s for s in text.split("\r") if "run 2 of 2" in s]
    ok = p.returncode == 0 and bool(shown) and "\n" not in text.replace("\r\n", "") and "run" not in out
    msg = shown[-1].replace("\x1b[K", "").strip() if shown else "no progress line"
    return p.returncode, out.splitlines(), msg, ok


def main() -> int:
    os.chdir(ROOT)
    for binary in ("lab1-ref",):
        if not (ROOT / binary).exists():
            print(f"bad_input: ./{binary} is missing (make {binary})", file=sys.stderr)
            return 2
    make_inputs()
    for name in ("y.PNG", "deep_sat.npy", "deep_png_sat.npy"):
        (TMP / name).unlink(missing_ok=True)
    rows, bad = [], []
    for item, cmd, want_rc, want_lines, text, extra in cases():
        rc, lines, seconds = run(cmd)
        joined = "\n".join(lines)
        ok = rc == want_rc and (want_lines is None or len(lines) == want_lines) and text in joined
        ok = ok and (extra is None or extra())
        message = next((l for l in lines if text in l), lines[0] if lines else "")
        rows.append((item, cmd.replace("build/bad_input/", ""), rc, len(lines), message, ok))
        if not ok:
            bad.append(f"{item}: exit {rc} (want {want_rc}), {len(lines)} lines (want {want_lines}), "
                       f"'{text}' {'found' if text in joined else 'missing'}; output:\n{joined[:2000]}")
    for item, suffix, fn in [("rows flushed through a pipe", " | cat", rows_flushed),
                             ("progress line when stderr is a terminal", " 2>/dev/tty", progress_on_tty)]:
        rc, lines, message, ok = fn()
        cmd = long_run() + suffix
        rows.append((item, cmd, rc, len(lines), message, ok))
        if not ok:
            bad.append(f"{item}: exit {rc}, {message}; output:\n" + "\n".join(lines)[:2000])
    print("| item | command | exit | lines | message | ok |")
    print("|---|---|---:|---:|---|---|")
    for item, cmd, rc, n, msg, ok in rows:
        msg = msg if len(msg) <= 110 else msg[:107] + "..."
        print(f"| {item} | `{cmd}` | {rc} | {n} | {msg.replace('|', '/')} | {'yes' if ok else 'NO'} |")
    for b in bad:
        print("FAILED: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
