"""Host time of one satlib call from Python, in microseconds (the fastest of 15 runs of N calls).

CPU (default): a __cuda_array_interface__ stand-in (tests/python/test_cpu.py) and a stand-in C
library compiled here with cc (every entry point returns SATLIB_OK at once), loaded through the
package's own ctypes setup, so the ctypes conversions count; without cc, a Python stand-in.
No GPU and no libsatlib.so are needed. This is the package's own cost per call.

--torch (a GPU machine with PyTorch; the real library, build/lib/libsatlib.so or
$SATLIB_LIBRARY): 64x64 f32 tensors. Prints torch.empty alone, the bare C call (satlib_integral
with packed arguments and a preallocated output: the library's own host time, what a C++ caller
pays), and satlib.integral and satlib.box_filter with wait=False, each twice: "stream" is a run of
N calls between synchronizations, bounded by the host or by the GPU, whichever is slower; "host"
is a burst of 50 calls after a synchronization, timed until the last call returns, which the
GPU's queue of pending work is too short to hold up: the host's own cost. satlib.integral minus
the bare call minus torch.empty is the package's cost. lib/bench/bench_host.cu (make bench-host)
splits the bare call into the CUDA runtime calls it is made of.

Usage: python3 tests/python/overhead.py [--torch] [N]   (N = 10000 calls by default, 2000 --torch)"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from unittest import mock

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import satlib  # noqa: E402
from satlib import _arrays, _lib  # noqa: E402

STUB_C = r"""
#include <stddef.h>
int satlib_integral(const void* args, void* stream, int check_timeout) { return args == NULL; }
int satlib_box(const void* in, int it, size_t ip, size_t is, void* out, int ot, size_t op, size_t os,
               int batch, int rows, int cols, int radius, int box_op, void* stream) { return in == NULL; }
int satlib_last_timeout(void) { return 0; }
int satlib_wait(void* stream) { return 0; }
const char* satlib_error_string(int status) { return "satlib: stand-in"; }
const char* satlib_version(void) { return "stand-in"; }
"""


class PythonStandIn:
    def satlib_integral(self, args, stream, check_timeout): return 0
    def satlib_box(self, *args): return 0
    def satlib_last_timeout(self): return 0
    def satlib_wait(self, stream): return 0


def per_call(fn, n, sync=None):
    runs = []
    for _ in range(15):  # the fastest run: the least disturbed by other work on the machine
        if sync:
            sync()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        runs.append((time.perf_counter() - t) / n * 1e6)
    if sync:
        sync()
    return min(runs)


def burst_host(fn, sync, calls=50):
    """Host time per call of bursts of `calls` calls, each after a synchronization (the fastest of 15)."""
    runs = []
    for _ in range(15):
        sync()
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        runs.append((time.perf_counter() - t) / calls * 1e6)
    sync()
    return min(runs)


def stand_in_library(folder):
    """libsatlib-standin.so built with cc in `folder`, or None without a compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    src, so = os.path.join(folder, "standin.c"), os.path.join(folder, "libsatlib-standin.so")
    with open(src, "w") as f:
        f.write(STUB_C)
    build = subprocess.run([cc, "-O2", "-shared", "-fPIC", src, "-o", so], capture_output=True, text=True)
    return so if build.returncode == 0 else None


def cpu(n):
    from test_cpu import StandIn, FakeOut
    ptr = [0x1000_0000]

    def alloc(shape, dtype):
        ptr[0] += 0x100_0000
        return FakeOut(shape, dtype), ptr[0]

    with tempfile.TemporaryDirectory() as tmp:
        so = stand_in_library(tmp)
        if so:
            with mock.patch.dict(os.environ, {"SATLIB_LIBRARY": so}):
                _lib.reset()
                lib = _lib.load()
            print("C stand-in library: %s (compiled with cc; ctypes conversions included)" % so)
        else:
            lib = PythonStandIn()
            print("C stand-in library: a Python object (no cc found; ctypes conversions not counted)")
        with mock.patch.object(_lib, "_lib", lib), mock.patch.object(_lib, "_device_error", None), \
                mock.patch.object(_arrays, "_any_alloc", alloc):
            x = StandIn((1080, 1920))
            xs = StandIn((8, 1080, 1920), "|u1")
            for name, fn in (("integral(x, wait=False) f32 1080x1920", lambda: satlib.integral(x, wait=False)),
                             ("integral(x, squares=True, wait=False)",
                              lambda: satlib.integral(x, squares=True, wait=False)),
                             ("integral(x8, wait=False) u8 batch of 8", lambda: satlib.integral(xs, wait=False)),
                             ("box_filter(x, 3, wait=False)", lambda: satlib.box_filter(x, 3, wait=False))):
                print("%-44s %6.2f us/call" % (name, per_call(fn, n)))
        _lib.reset()


def gpu_torch(n):
    import torch
    lib = _lib.load()
    if _lib.device_error():
        sys.exit("overhead: " + _lib.device_error())
    x = torch.rand(64, 64, device="cuda")
    out = torch.empty_like(x)
    packed = _lib.INTEGRAL_ARGS.pack(x.data_ptr(), _lib.DTYPES["float32"], 64, 64 * 64, out.data_ptr(),
                                     _lib.DTYPES["float32"], 64, 64 * 64, 0, 0, 0, 1, 64, 64, 0)
    stream = torch.cuda.current_stream().cuda_stream
    print("%s, torch %s, library %s, 64x64 f32, the fastest of 15 runs of %d calls"
          % (torch.cuda.get_device_name(), torch.__version__, satlib.library_version(), n))
    sync = torch.cuda.synchronize
    for name, fn in (("torch.empty((64, 64), device='cuda')", lambda: torch.empty((64, 64), device="cuda")),
                     ("bare C call: satlib_integral (packed args)", lambda: lib.satlib_integral(packed, stream, 0)),
                     ("satlib.integral(x, wait=False)", lambda: satlib.integral(x, wait=False)),
                     ("satlib.integral(x, squares=True, wait=False)",
                      lambda: satlib.integral(x, squares=True, wait=False)),
                     ("satlib.box_filter(x, 3, wait=False)", lambda: satlib.box_filter(x, 3, wait=False)),
                     ("torch.cumsum(torch.cumsum(x, 0), 1)", lambda: torch.cumsum(torch.cumsum(x, 0), 1))):
        print("%-46s stream %6.2f us/call   host %6.2f us/call" % (name, per_call(fn, n, sync), burst_host(fn, sync)))
    if satlib.last_timeout():
        sys.exit("overhead: a kernel timed out")


def main(argv):
    torch_mode = "--torch" in argv
    counts = [int(a) for a in argv if a != "--torch"]
    n = counts[0] if counts else (2000 if torch_mode else 10_000)
    if torch_mode:
        gpu_torch(n)
    else:
        cpu(n)


if __name__ == "__main__":
    main(sys.argv[1:])
