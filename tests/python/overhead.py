"""Python-side cost of one satlib.integral call on the CPU: a __cuda_array_interface__ stand-in
and a C library stand-in that returns SATLIB_OK at once (no GPU, no libsatlib.so). Prints
microseconds per call (the fastest of 7 runs of N calls).
Usage: python3 tests/python/overhead.py [N]   (N = 10000 calls by default)"""
import os
import sys
import time
from unittest import mock
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import satlib
from satlib import _arrays, _lib
from test_cpu import StandIn, FakeOut

class NullLib:
    def satlib_integral(self, args, stream, check_timeout): return 0
    def satlib_box(self, *args): return 0
    def satlib_last_timeout(self): return 0

def alloc(shape, dtype): return FakeOut(shape, dtype), 0x1000_0000

def per_call(fn, n):
    runs = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(n): fn()
        runs.append((time.perf_counter() - t) / n * 1e6)
    return min(runs)

def main(n=10_000):
    lib = NullLib()
    with mock.patch.object(_lib, "load", lambda: lib), mock.patch.object(_lib, "_lib", lib), \
         mock.patch.object(_lib, "device_error", lambda: None), mock.patch.object(_arrays, "_any_alloc", alloc):
        x = StandIn((1080, 1920))
        xs = StandIn((8, 1080, 1920), "|u1")
        for name, fn in (("integral(x, wait=False) f32 2-D", lambda: satlib.integral(x, wait=False)),
                         ("integral(x, squares=True, wait=False)", lambda: satlib.integral(x, squares=True, wait=False)),
                         ("integral(x8, wait=False) u8 batch of 8", lambda: satlib.integral(xs, wait=False))):
            print("%-42s %6.2f us/call" % (name, per_call(fn, n)))

if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
