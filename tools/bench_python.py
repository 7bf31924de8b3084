#!/usr/bin/env python3
"""bench_python.py: satlib.integral against what Python users have, in one process, on one GPU.

  methods  satlib (sums), satlib+squares (sums and squared sums, one call), torch
           cumsum(cumsum(x, -2), -1), kornia.enhance.integral_image, CuPy cumsum(cumsum(x)),
           NPP nppiIntegral_8u32s (u8 only, through ctypes); a peer that is missing is named
           with the reason in one line and the run goes on
  kornia   imported as installed; else installed from the wheels of `make wheels`
           (.deps/wheels, no package registry needed) into build/kornia-py3XY
  cases    single images 1920x1080, 4096^2, 8192^2, 16384^2 in f32 and u8; batches of
           64 x 1920x1080 and 16 x 3840x2160 f32, each a (B, H, W) tensor given whole to every
           method (--quick: 1920x1080 and 4096^2 f32 and u8, 8 x 1920x1080 f32)
  checks   every method's output, once before its timing, against an f64 (int64 for u8)
           reference: exact for integers and for f32 sums below 2^24, else max relative error
           <= 1e-3; otherwise the row's note says MISMATCH (it is still timed)
  satlib   the package of this checkout (python/), or the one in a folder that $PYTHONPATH
           names; the library as the package finds it ($SATLIB_LIBRARY, else build/lib)
  timing   all methods on the legacy default stream; per rep: synchronize, an L2 flush (a write
           of 2x the L2 size), CUDA events (created once) around one call; 2 warm-ups, the
           median of --reps (default 20 up to 4096^2 elements per case, 10 above); each time is
           also a ratio to a device-to-device copy of (input + output bytes) / 2, timed the same way
  output   a line per measurement, CSV (--csv, default build/bench_python.csv; the columns of
           docs/data/python_h100.csv), then a table and issue 23's targets
Integer outputs: u8 -> int32 for satlib, torch and CuPy (dtype= on both cumsums) and NPP; kornia
keeps torch's default (int64).
Usage: python3 tools/bench_python.py [--quick] [--reps N] [--csv PATH] [--wheels DIR]
       (make bench-python). Exit 0; 1 if a satlib call failed, was wrong or timed out (after
       the table); 2 without PyTorch, a GPU or the built library, or for bad options
"""
import argparse
import csv
import ctypes
import glob
import importlib
import os
import re
import statistics
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (dtype, (rows, cols), batch)
CASES_FULL = [("float32", (1080, 1920), 1), ("uint8", (1080, 1920), 1),
              ("float32", (4096, 4096), 1), ("uint8", (4096, 4096), 1),
              ("float32", (8192, 8192), 1), ("uint8", (8192, 8192), 1),
              ("float32", (16384, 16384), 1), ("uint8", (16384, 16384), 1),
              ("float32", (1080, 1920), 64), ("float32", (2160, 3840), 16)]
CASES_QUICK = [("float32", (1080, 1920), 1), ("uint8", (1080, 1920), 1),
               ("float32", (4096, 4096), 1), ("uint8", (4096, 4096), 1),
               ("float32", (1080, 1920), 8)]
METHODS = ["satlib", "satlib+squares", "torch", "kornia", "cupy", "npp"]
PEERS = ["kornia", "cupy", "npp"]
OUT_BYTES = {"float32": 4, "uint8": 4}  # the sums' element size (u8 -> int32)
# Device bytes per element a case needs at its peak (the checks: input, f64 reference, an output,
# its f64 copy and their difference), plus a margin.
PEAK_BYTES_PER_ELEMENT = 48
CSV_FIELDS = ["gpu", "case", "dtype", "batch", "rows", "cols", "method", "median_ms", "min_ms", "copy_ms",
              "ratio_to_copy", "reps", "note"]


def fail(line):
    print("bench-python: " + line, file=sys.stderr)
    sys.exit(2)


def one_line(e):
    text = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, text[0]) if text else type(e).__name__


# ---- kornia, from the carried wheels when it is not installed ------------------------------------
def import_kornia(wheels, target=None):
    """(kornia.enhance.integral_image, 'kornia VERSION from WHERE') or (None, why in one line).
    When `import kornia` fails, installs kornia, kornia-rs and packaging from the wheels in
    `wheels` (no index, no dependency resolution: torch and numpy are the machine's) into
    `target` (default build/kornia-py3XY, one per Python since kornia-rs is compiled) and
    imports from there."""
    try:
        return _kornia_function("site-packages")
    except Exception as e:
        why = one_line(e)
    if not glob.glob(os.path.join(wheels, "kornia-*.whl")):
        return None, "not installed (%s; no kornia wheel in %s: make wheels)" % (why, wheels)
    target = target or os.path.join(ROOT, "build", "kornia-py%d%d" % sys.version_info[:2])
    if not all(os.path.isdir(os.path.join(target, p)) for p in ("kornia", "kornia_rs")):
        error = install_wheels(wheels, target, ["kornia", "kornia-rs", "packaging"])
        if error:
            return None, "not installed (%s; from %s: %s)" % (why, wheels, error)
    if target not in sys.path:
        sys.path.append(target)  # after site-packages: the machine's own packages come first
    importlib.invalidate_caches()
    for name in [m for m in sys.modules if m.split(".")[0] in ("kornia", "kornia_rs")]:
        del sys.modules[name]  # what the failed import left
    try:
        return _kornia_function(target)
    except Exception as e:
        return None, "not importable from %s (%s)" % (target, one_line(e))


def _kornia_function(where):
    import kornia
    from kornia.enhance import integral_image
    return integral_image, "%s (%s), kornia.enhance.integral_image" % (kornia.__version__, where)


def install_wheels(wheels, target, names):
    """pip install --no-index --no-deps from `wheels` into `target`; where this Python has no pip,
    the same wheels unpacked by hand. None on success, else the reason in one line."""
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-index",
           "--no-deps", "--find-links", wheels, "--target", target] + names
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "pip: " + one_line(e)
    if p.returncode == 0:
        return None
    if "No module named pip" not in p.stderr:
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        return "pip install failed: " + (lines[-1].strip() if lines else "exit %d" % p.returncode)
    return unpack_wheels(wheels, target, names)


def unpack_wheels(wheels, target, names):
    """Unpacks, for each name, the newest wheel in `wheels` that this Python can use (its
    Requires-Python and, for a compiled wheel, its cpXY tag). For pure and manylinux wheels
    without data or scripts, unpacking is what pip install does."""
    here = sys.version_info[:2]
    for name in names:
        stem = name.replace("-", "_")
        usable = []
        for path in glob.glob(os.path.join(wheels, stem + "-*.whl")):
            parts = os.path.basename(path)[:-4].split("-")  # name, version, [build], python, abi, platform
            py, platform = parts[-3], parts[-1]
            if py.startswith("cp") and py != "cp%d%d" % here:
                continue
            if platform != "any" and not platform.endswith("x86_64"):
                continue
            with zipfile.ZipFile(path) as z:
                meta = next((n for n in z.namelist() if n.endswith(".dist-info/METADATA")), None)
                text = z.read(meta).decode("utf-8", "replace") if meta else ""
            low = re.search(r"^Requires-Python:.*>=\s*3\.(\d+)", text, re.M)
            if low and here < (3, int(low.group(1))):
                continue
            version = tuple(int(v) if v.isdigit() else 0 for v in re.split(r"[.+]", parts[1]))
            usable.append((version, path))
        if not usable:
            return "no %s wheel for Python %d.%d in %s" % (name, here[0], here[1], wheels)
        with zipfile.ZipFile(max(usable)[1]) as z:
            z.extractall(target)
    return None


# ---- NPP ------------------------------------------------------------------------------------------
class NppIntegral:
    """nppiIntegral_8u32s_C1R_Ctx through ctypes: (H+1) x (W+1) int32 output (NPP's layout)."""

    class Size(ctypes.Structure):
        _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int)]

    class StreamContext(ctypes.Structure):
        _fields_ = [("hStream", ctypes.c_void_p), ("nCudaDeviceId", ctypes.c_int),
                    ("nMultiProcessorCount", ctypes.c_int), ("nMaxThreadsPerMultiProcessor", ctypes.c_int),
                    ("nMaxThreadsPerBlock", ctypes.c_int), ("nSharedMemPerBlock", ctypes.c_size_t),
                    ("nCudaDevAttrComputeCapabilityMajor", ctypes.c_int),
                    ("nCudaDevAttrComputeCapabilityMinor", ctypes.c_int),
                    ("nStreamFlags", ctypes.c_uint), ("nReserved0", ctypes.c_int)]

    def __init__(self, torch):
        roots = [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"] + sorted(glob.glob("/usr/local/cuda-*"))
        found = []
        for root in filter(None, roots):
            found += glob.glob(os.path.join(root, "lib64", "libnppist.so*"))
            found += glob.glob(os.path.join(root, "targets", "*", "lib", "libnppist.so*"))
        for site in sys.path:
            found += glob.glob(os.path.join(site, "nvidia", "*", "lib", "libnppist.so*"))
        if not found:
            raise OSError("libnppist.so not found (CUDA_HOME/lib64, /usr/local/cuda*, nvidia wheels)")
        path = sorted(found, key=len)[0]
        for nppc in sorted(glob.glob(os.path.join(os.path.dirname(path), "libnppc.so*")), key=len)[:1]:
            ctypes.CDLL(nppc, mode=ctypes.RTLD_GLOBAL)
        self.path = path
        lib = ctypes.CDLL(path)
        self.fn = lib.nppiIntegral_8u32s_C1R_Ctx
        self.fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, self.Size,
                            ctypes.c_int, self.StreamContext]
        self.fn.restype = ctypes.c_int
        p = torch.cuda.get_device_properties(0)
        self.ctx = self.StreamContext(
            None, 0, p.multi_processor_count, getattr(p, "max_threads_per_multi_processor", 2048),
            getattr(p, "max_threads_per_block", 1024), getattr(p, "shared_memory_per_block", 49152),
            p.major, p.minor, 0, 0)  # the legacy default stream (flags 0)

    def __call__(self, x, out):
        """x: (B, H, W) or (H, W) u8, contiguous; out: (B, H+1, W+1) int32. One call per image."""
        h, w = x.shape[-2:]
        images = x.reshape(-1, h, w)
        outs = out.reshape(-1, h + 1, w + 1)
        for b in range(images.shape[0]):
            status = self.fn(images[b].data_ptr(), w, outs[b].data_ptr(), (w + 1) * 4, self.Size(w, h), 0, self.ctx)
            if status < 0:
                raise RuntimeError("nppiIntegral_8u32s_C1R_Ctx returned NppStatus %d" % status)
        return out


# ---- the run --------------------------------------------------------------------------------------
def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="five small cases (a smoke run)")
    ap.add_argument("--reps", type=int, default=0, help="timed reps per method (default 20 up to 4096^2, 10 above)")
    ap.add_argument("--csv", default=os.path.join(ROOT, "build", "bench_python.csv"))
    ap.add_argument("--wheels", default=os.path.join(ROOT, ".deps", "wheels"),
                    help="where make wheels put kornia's wheels (used when kornia is not installed)")
    args = ap.parse_args(argv)
    args.wheels = os.path.abspath(args.wheels)
    if args.reps < 0:
        fail("--reps must be 0 (the default) or more, got %d" % args.reps)
    folder = os.path.dirname(os.path.abspath(args.csv))
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        fail("cannot write --csv %s (%s)" % (args.csv, e.strerror or e))
    if not os.access(folder, os.W_OK) or os.path.isdir(args.csv):
        fail("cannot write --csv %s" % args.csv)
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        import torch
    except Exception as e:
        fail("needs PyTorch with CUDA (import torch: %s)" % one_line(e))
    if not torch.cuda.is_available():
        fail("needs a GPU (torch.cuda.is_available() is False)")
    # The package of this checkout, unless $PYTHONPATH names a folder holding one (an A/B of two
    # versions of the package against one library: SATLIB_LIBRARY=... PYTHONPATH=old/python).
    given = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if not any(os.path.isfile(os.path.join(p, "satlib", "__init__.py")) for p in given):
        sys.path.insert(0, os.path.join(ROOT, "python"))
    import satlib
    try:
        version = satlib.library_version()
    except satlib.SatlibError as e:
        fail(str(e))

    gpu = torch.cuda.get_device_name(0)
    props = torch.cuda.get_device_properties(0)
    l2 = int(getattr(props, "L2_cache_size", 0)) or 64 << 20
    print("bench-python on %s (%d SMs, L2 %d MiB), Python %d.%d, torch %s, satlib library %s, package %s"
          % (gpu, props.multi_processor_count, l2 >> 20, sys.version_info[0], sys.version_info[1],
             torch.__version__, version, os.path.dirname(os.path.abspath(satlib.__file__))), flush=True)

    # The peers: one line each, what is used or why it is missing.
    peers, missing = {}, {}
    fn, text = import_kornia(args.wheels)
    if fn:
        peers["kornia"] = fn
    else:
        missing["kornia"] = text
    print("kornia: " + text, flush=True)
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        peers["cupy"] = cupy
        print("cupy: cupy %s" % cupy.__version__)
    except Exception as e:
        missing["cupy"] = ("not installed (%s)" if isinstance(e, ImportError) else "unusable (%s)") % one_line(e)
        print("cupy: " + missing["cupy"])
    try:
        peers["npp"] = NppIntegral(torch)
        print("npp: %s (u8 input only)" % peers["npp"].path, flush=True)
    except Exception as e:
        missing["npp"] = "not found (%s)" % one_line(e)
        print("npp: " + missing["npp"], flush=True)

    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")

    # Two events for every timing, created (at their first record) before it: an event created
    # inside the timed interval would add its creation to the host time of small cases.
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    end.record()
    end.synchronize()

    def timed(fn, reps):
        for _ in range(2):
            fn()
        times = []
        for _ in range(reps):
            torch.cuda.synchronize()
            flush.zero_()
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times), min(times)

    rows = []
    gen = torch.Generator(device="cuda").manual_seed(23)
    print("input: integers 0..7 (torch generator seed 23); integer sums exact, f32 sums rounded above 2^24",
          flush=True)
    for dtype, (h, w), batch in (CASES_QUICK if args.quick else CASES_FULL):
        n = batch * h * w
        reps = args.reps or (20 if n <= 4096 * 4096 else 10)
        shape = (batch, h, w) if batch > 1 else (h, w)
        case = "%s %s%dx%d" % (dtype, "%dx " % batch if batch > 1 else "", w, h)  # width x height
        free, _ = torch.cuda.mem_get_info()
        if n * PEAK_BYTES_PER_ELEMENT > free:
            print("%-28s skipped: needs about %.1f GiB of device memory, %.1f GiB free"
                  % (case, n * PEAK_BYTES_PER_ELEMENT / 2**30, free / 2**30), flush=True)
            continue
        # Values small enough that u8 sums fit int32 (7 * 16384^2 < 2^31); speed does not
        # depend on them.
        x = torch.randint(0, 8, shape, generator=gen, device="cuda", dtype=torch.int32).to(getattr(torch, dtype))
        copy_bytes = (x.numel() * x.element_size() + x.numel() * OUT_BYTES[dtype]) // 2
        src = torch.empty(copy_bytes, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        copy_ms, _ = timed(lambda: dst.copy_(src), reps)
        src = dst = None
        print("%-28s copy of %.0f MB: %.3f ms" % (case, copy_bytes / 1e6, copy_ms), flush=True)

        calls = methods_for(x, dtype, torch, satlib, peers)
        for method in METHODS:
            if method not in calls:
                continue
            try:
                note = check(calls[method], x, method, torch)
                med, low = timed(calls[method], reps)
                if method.startswith("satlib") and satlib.last_timeout():
                    note = "TIMEOUT (output incomplete); " + note
                if method == "kornia" and dtype == "uint8":
                    note += ", int64 output"
            except Exception as e:  # one method failing (memory, a peer's limit) skips only itself
                med = low = float("nan")
                note = "error: " + one_line(e)
            rows.append({"gpu": gpu, "case": case, "dtype": dtype, "batch": batch, "rows": h, "cols": w,
                         "method": method, "median_ms": med, "min_ms": low, "copy_ms": copy_ms,
                         "ratio_to_copy": med / copy_ms, "reps": reps, "note": note})
            print("%-28s %-15s %9.3f ms  %7.2f x copy  %s" % (case, method, med, med / copy_ms, note), flush=True)
        calls.clear()
        x = None
        if "cupy" in peers:
            peers["cupy"].get_default_memory_pool().free_all_blocks()
        torch.cuda.empty_cache()

    if not rows:
        fail("nothing measured (every case was skipped)")
    with open(args.csv, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        out.writeheader()
        out.writerows(rows)
    print("\nwrote %s (%d rows)" % (args.csv, len(rows)))
    table(rows, gpu, missing)
    wrong = [r for r in rows if r["method"].startswith("satlib")
             and any(w in r["note"] for w in ("MISMATCH", "TIMEOUT", "error:"))]
    for r in wrong:
        print("bench-python: %s %s: %s" % (r["case"], r["method"], r["note"]), file=sys.stderr)
    return 1 if wrong else 0


def methods_for(x, dtype, torch, satlib, peers):
    """method -> a call that returns its output (a tensor, a CuPy array or a tuple)."""
    calls = {"satlib": lambda: satlib.integral(x, wait=False),
             "satlib+squares": lambda: satlib.integral(x, squares=True, wait=False)}
    if dtype == "float32":
        calls["torch"] = lambda: torch.cumsum(torch.cumsum(x, -2), -1)
    else:
        calls["torch"] = lambda: torch.cumsum(torch.cumsum(x, -2, dtype=torch.int32), -1, dtype=torch.int32)
    if "kornia" in peers:
        calls["kornia"] = lambda: peers["kornia"](x)
    if "cupy" in peers:
        cp = peers["cupy"]
        xc = cp.from_dlpack(x)
        kw = {"dtype": cp.int32} if dtype == "uint8" else {}
        calls["cupy"] = lambda: cp.cumsum(cp.cumsum(xc, axis=-2, **kw), axis=-1, **kw)
    if "npp" in peers and dtype == "uint8":
        h, w = x.shape[-2:]
        npp_out = torch.empty(x.shape[:-2] + (h + 1, w + 1), dtype=torch.int32, device="cuda")
        calls["npp"] = lambda: peers["npp"](x, npp_out)
    return calls


def check(call, x, method, torch):
    """One call's output against the f64 (int64 for integers) reference, as a note: 'exact' or
    the max relative error; 'MISMATCH' where the output is wrong (the method is still timed)."""
    exact = not x.dtype.is_floating_point
    ref_type = torch.int64 if exact else torch.float64
    got = call()
    outs = got if isinstance(got, tuple) else (got,)
    notes = []
    for i, out in enumerate(outs):  # satlib+squares: the sums, then the squares
        out = out if isinstance(out, torch.Tensor) else torch.from_dlpack(out)
        if method == "npp":
            out = out[..., 1:, 1:]  # NPP's zero first row and column
        want = x.to(ref_type)
        if i == 1:
            want = want * want
        want = torch.cumsum(want, -2)
        want = torch.cumsum(want, -1)  # one f64 temporary at a time (16384^2: 2 GiB each)
        what = "squares " if i == 1 else ""
        if out.shape != want.shape:
            notes.append("MISMATCH: %soutput shape %s, expected %s" % (what, tuple(out.shape), tuple(want.shape)))
        elif exact:
            # 32-bit integer tables are sums modulo 2^32 (u8 squares pass 2^32 from about 256^2
            # pixels): compare modulo 2^32, as the C++ checker does.
            diff = out.to(ref_type) - want
            if out.dtype == torch.int32:
                diff = torch.remainder(diff, 2**32)
            notes.append(what + ("exact" if not bool(diff.any()) else "MISMATCH vs int64 (mod 2^32)"))
            del diff
        else:
            top = float(want.abs().max().item())
            err = float((out.to(ref_type) - want).abs_().max().item()) / max(top, 1.0)
            # Integer sums below 2^24 are exact in f32 in any order of addition; above, rounding
            # gives about 1e-7 (a worst-case sequential sum of 16384 terms about 1e-3).
            tolerance = 0.0 if top < 2**24 else 1e-3
            notes.append("%s%smax rel err %.1e vs f64" % ("" if err <= tolerance else "MISMATCH: ", what, err))
        del out, want
    del got, outs
    return ", ".join(notes)


def table(rows, gpu, missing):
    """Time / copy per case and method, then satlib's speed-up over torch and the squares' cost."""
    cases = list(dict.fromkeys(r["case"] for r in rows))
    cell = {(r["case"], r["method"]): r for r in rows}
    methods = [m for m in METHODS if any((c, m) in cell for c in cases)]
    print("\nsatlib.integral on %s: time / copy time (median; copy = device copy of the same bytes)" % gpu)
    head = "| case | copy [ms] | " + " | ".join(methods) + " | torch / satlib | squares / sums |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for c in cases:
        vals = []
        for m in methods:
            r = cell.get((c, m))
            vals.append("-" if r is None or r["median_ms"] != r["median_ms"] else "%.2f" % r["ratio_to_copy"])
        speed, cost = ratio(cell, c, "torch", "satlib"), ratio(cell, c, "satlib+squares", "satlib")
        copy = next(cell[(c, m)]["copy_ms"] for m in methods if (c, m) in cell)
        print("| %s | %.3f | %s | %s | %s |" % (c, copy, " | ".join(vals), "%.1f" % speed if speed == speed else "-",
                                               "%.2f" % cost if cost == cost else "-"))
    for m in PEERS:
        if m in missing:
            print("%s: %s" % (m, missing[m]))

    print("\ntargets (issue 23) on %s:" % gpu)
    big_f32 = lambda c: c.startswith("float32 ") and "x " not in c and int(c.split("x")[-1]) >= 4096
    batch64 = lambda c: c.startswith("float32 64x 1920x1080")
    for text, pick, num, den, ok in (
            ("torch / satlib >= 5, batch of 64 1920x1080 f32", batch64, "torch", "satlib", lambda v: v >= 5),
            ("torch / satlib >= 8, f32 4096^2-16384^2", big_f32, "torch", "satlib", lambda v: v >= 8),
            ("squares+sums / sums <= 1.3", lambda c: True, "satlib+squares", "satlib", lambda v: v <= 1.3)):
        picked = [c for c in cases if pick(c)]
        if not picked:
            print("  %-48s not measured in this run" % text)
        for c in picked:
            v = ratio(cell, c, num, den)
            print("  %-48s %-28s %6.2f  %s" % (text, c, v, "met" if ok(v) else "NOT met"))


def ratio(cell, case, num, den):
    a, b = cell.get((case, num)), cell.get((case, den))
    return a["median_ms"] / b["median_ms"] if a and b else float("nan")


if __name__ == "__main__":
    sys.exit(main())
