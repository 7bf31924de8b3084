#!/usr/bin/env python3
"""bench_python.py: satlib.integral against what Python users have, in one process, on one GPU.

  methods  satlib (sums), satlib+squares (sums and squared sums, one pass), torch
           cumsum(cumsum(x, -2), -1), kornia.enhance.integral_image (when importable), CuPy
           cumsum(cumsum(x)), NPP nppiIntegral_8u32s (u8 only, through ctypes, when libnppist is found)
  cases    f32 and u8 images 1920x1080, 4096^2, 8192^2, 16384^2, and a batch of 64 1920x1080
  timing   CUDA events around each rep on the legacy default stream (all methods run there),
           an L2 flush (a write of 2x the L2 size) before each rep, 2 warm-ups, the median of
           --reps (default 20 up to 4096^2, 10 above); every time is also given as a ratio to a
           device-to-device copy of (input + output bytes) / 2, timed the same way
  output   a line per measurement, CSV (--csv, default build/bench_python.csv), a table last
Integer outputs: u8 -> int32 for satlib, torch and CuPy (dtype= on both cumsums) and NPP; kornia
keeps torch's default (int64).
Usage: python3 tools/bench_python.py [--quick] [--reps N] [--csv PATH]  (make bench-python)
"""
import argparse
import csv
import ctypes
import glob
import os
import statistics
import sys

CASES_FULL = [((1080, 1920), 1), ((4096, 4096), 1), ((8192, 8192), 1), ((16384, 16384), 1), ((1080, 1920), 64)]
CASES_QUICK = [((1080, 1920), 1), ((4096, 4096), 1), ((1080, 1920), 8)]  # (rows, cols), batch
METHODS = ["satlib", "satlib+squares", "torch", "kornia", "cupy", "npp"]
OUT_BYTES = {"float32": 4, "uint8": 4}  # the sums' element size (u8 -> int32)


def fail(line):
    print("bench-python: " + line, file=sys.stderr)
    sys.exit(2)


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="three small cases (a smoke run)")
    ap.add_argument("--reps", type=int, default=0, help="timed reps per method (default 20 up to 4096^2, 10 above)")
    ap.add_argument("--csv", default=os.path.join("build", "bench_python.csv"))
    args = ap.parse_args()
    if args.reps < 0:
        fail("--reps must be positive")
    try:
        import torch
    except ImportError:
        fail("needs PyTorch (torch) installed")
    if not torch.cuda.is_available():
        fail("no CUDA device (torch.cuda.is_available() is False)")
    import satlib
    try:
        satlib.library_version()
    except satlib.SatlibError as e:
        fail(str(e))

    gpu = torch.cuda.get_device_name(0)
    props = torch.cuda.get_device_properties(0)
    l2 = int(getattr(props, "L2_cache_size", 0)) or 64 << 20
    print("bench-python on %s (%d SMs, L2 %d MiB), torch %s, satlib library %s"
          % (gpu, props.multi_processor_count, l2 >> 20, torch.__version__, satlib.library_version()), flush=True)

    # The optional peers: one line each for what is missing.
    peers = {}
    try:
        import kornia
        peers["kornia"] = kornia.enhance.integral_image
        print("kornia %s: kornia.enhance.integral_image" % kornia.__version__)
    except Exception as e:
        print("kornia: skipped (%s)" % str(e).splitlines()[0])
    try:
        import cupy
        peers["cupy"] = cupy
        print("cupy %s" % cupy.__version__)
    except Exception as e:
        print("cupy: skipped (%s)" % str(e).splitlines()[0])
    try:
        peers["npp"] = NppIntegral(torch)
        print("npp: %s (u8 input only)" % peers["npp"].path)
    except Exception as e:
        print("npp: skipped (%s)" % str(e).splitlines()[0])

    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")

    def timed(fn, reps):
        fn()
        fn()
        times = []
        for _ in range(reps):
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times), min(times)

    rows = []
    npp_out = xc = None
    gen = torch.Generator(device="cuda").manual_seed(23)
    for (h, w), batch in (CASES_QUICK if args.quick else CASES_FULL):
        reps = args.reps or (20 if h * w <= 4096 * 4096 else 10)
        shape = (batch, h, w) if batch > 1 else (h, w)
        for dtype in ("float32", "uint8"):
            case = "%s %s%dx%d" % (dtype, "%dx " % batch if batch > 1 else "", w, h)  # width x height
            # Values small enough that u8 sums fit int32 (7 * 16384^2 < 2^31); speed does not
            # depend on them.
            x = torch.randint(0, 8, shape, generator=gen, device="cuda", dtype=torch.int32).to(getattr(torch, dtype))
            copy_bytes = (x.numel() * x.element_size() + x.numel() * OUT_BYTES[dtype]) // 2
            src = torch.empty(copy_bytes, dtype=torch.uint8, device="cuda")
            dst = torch.empty_like(src)
            copy_ms, _ = timed(lambda: dst.copy_(src), reps)
            src = dst = None
            print("%-28s copy of %.0f MB: %.3f ms" % (case, copy_bytes / 1e6, copy_ms), flush=True)

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
                npp_out = torch.empty(shape[:-2] + (h + 1, w + 1), dtype=torch.int32, device="cuda")
                calls["npp"] = lambda: peers["npp"](x, npp_out)

            # One correctness look before timing: satlib against torch (exact for u8 -> int32).
            got = satlib.integral(x)
            if dtype == "uint8":
                ok = torch.equal(got, calls["torch"]())
                check = "exact" if ok else "MISMATCH"
            else:
                want = torch.cumsum(torch.cumsum(x.double(), -2), -1)
                err = float(((got.double() - want).abs().max() / want.abs().max().clamp(min=1)).item())
                check = "max rel err %.1e vs f64" % err
                del want
            del got
            print("%-28s satlib check: %s" % (case, check), flush=True)

            for method in METHODS:
                if method not in calls:
                    continue
                try:
                    med, low = timed(calls[method], reps)
                    note = ""
                    if method.startswith("satlib") and satlib.last_timeout():
                        note = "TIMEOUT (output incomplete)"
                except Exception as e:  # one method failing (memory, a peer's limit) skips only itself
                    med = low = float("nan")
                    note = "error: " + str(e).splitlines()[0]
                rows.append({"gpu": gpu, "case": case, "dtype": dtype, "batch": batch, "rows": h, "cols": w,
                             "method": method, "median_ms": med, "min_ms": low, "copy_ms": copy_ms,
                             "ratio_to_copy": med / copy_ms, "reps": reps,
                             "note": note or (check if method == "satlib" else "")})
                print("%-28s %-15s %9.3f ms  %7.2f x copy  %s" % (case, method, med, med / copy_ms, note), flush=True)
            calls.clear()
            x = npp_out = xc = None
            if "cupy" in peers:
                peers["cupy"].get_default_memory_pool().free_all_blocks()
            torch.cuda.empty_cache()

    os.makedirs(os.path.dirname(os.path.abspath(args.csv)), exist_ok=True)
    with open(args.csv, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        out.writeheader()
        out.writerows(rows)
    print("\nwrote %s (%d rows)" % (args.csv, len(rows)))
    table(rows, gpu)


def table(rows, gpu):
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
        sat, sq, tor = cell.get((c, "satlib")), cell.get((c, "satlib+squares")), cell.get((c, "torch"))
        speed = "%.1f" % (tor["median_ms"] / sat["median_ms"]) if sat and tor else "-"
        cost = "%.2f" % (sq["median_ms"] / sat["median_ms"]) if sat and sq else "-"
        copy = next(cell[(c, m)]["copy_ms"] for m in methods if (c, m) in cell)
        print("| %s | %.3f | %s | %s | %s |" % (c, copy, " | ".join(vals), speed, cost))
    # Issue 23's targets, each against the cases measured here.
    def ratio(case, num, den):
        a, b = cell.get((case, num)), cell.get((case, den))
        return a["median_ms"] / b["median_ms"] if a and b else float("nan")

    print("\ntargets (issue 23) on %s:" % gpu)
    for text, pick, num, den, ok in (
            (">= 8x faster than torch, f32 4096^2-16384^2", lambda c: c.startswith("float32") and "x " not in c
             and int(c.split("x")[-1]) >= 4096, "torch", "satlib", lambda v: v >= 8),
            (">= 5x faster than torch, batch of 64 1920x1080", lambda c: c.split()[1:2] == ["64x"],
             "torch", "satlib", lambda v: v >= 5),
            ("squares and sums <= 1.3x the sums alone", lambda c: True, "satlib+squares", "satlib",
             lambda v: v <= 1.3)):
        for c in filter(pick, cases):
            v = ratio(c, num, den)
            print("  %-48s %-28s %6.2f  %s" % (text, c, v, "met" if ok(v) else "NOT met"))


if __name__ == "__main__":
    main()
