#!/usr/bin/env python3
"""The library's 256-thread 2-D kernels hold their tiles in registers without spilling.

A spill in the tile loop is a local-memory store and a reload the write-out waits for: i32's
kernels spilled 4-64 bytes per thread until their register rows were held whole, and took 1.08
times f32's time at an odd width (docs/library.md, *Integer register rows held whole*). This
compiles the TileShape kernels of f32, f64, i32 and u8 -> i32 (with and without vector
accesses; one image's sums, and for f32, i32 and u8 -> i32 a batch's sums and squares in one
launch) for sm_90 with `ptxas -v`, and checks that each spills 0 bytes. No GPU needed.
Prints "kernel_spills: all checks passed" or FAIL lines; exit 1 on a failure.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

# (input, output, accumulator, table sets): f64's batches and squares take the 128-thread tiles.
PAIRS = [("float", "float", "float", ("Tables::sums, false", "Tables::both, true")),
         ("double", "double", "double", ("Tables::sums, false",)),
         ("int32_t", "int32_t", "uint32_t", ("Tables::sums, false", "Tables::both, true")),
         ("uint8_t", "int32_t", "uint32_t", ("Tables::sums, false", "Tables::both, true"))]


def instantiations():
    """Explicit instantiations of the kernels to check."""
    out = []
    for i, o, a, tables in PAIRS:
        for t in tables:
            for vec in ("false", "true"):
                out.append(f"template __global__ void lookback_sat_kernel<{i}, {o}, TileShape<{i}, {a}>, {vec}, {t}>("
                           f"const {i}*, {o}*, Geometry, TileRecords<sat::Acc<{o}>>, int*, unsigned long long*, {o}*);")
    return out


def demangled(names):
    """The kernels' names as C++ (c++filt), shortened to the template arguments."""
    text = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return [re.sub(r"satlib::|(?<=>)\(.*", "", t) for t in text] if len(text) == len(names) else names


def main():
    kernels = instantiations()
    source = "#include <cstdint>\n#include \"lookback_kernel.cuh\"\nnamespace satlib {\n" + "\n".join(kernels) + "\n}\n"
    with tempfile.TemporaryDirectory() as tmp:
        cu = Path(tmp) / "kernels.cu"
        cu.write_text(source)
        cmd = [os.environ.get("NVCC", "nvcc"), "-std=c++17", "-O3", "-arch=sm_90", "-cubin", "-Icommon",
               "-Ilib/include", "-Ilib/src", "--expt-relaxed-constexpr", "-Xptxas", "-v", str(cu),
               "-o", str(Path(tmp) / "kernels.cubin")]
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout + done.stderr)
        print("FAIL: the kernels did not compile")
        return 1
    # ptxas -v: "Compiling entry function '<mangled>'", then "N bytes spill stores" for it.
    spills, entry = {}, None
    for line in (done.stdout + done.stderr).splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            entry = m.group(1)
        m = re.search(r"(\d+) bytes spill stores", line)
        if m and entry and "lookback_sat_kernel" in entry:
            spills[entry] = int(m.group(1))
            entry = None
    failures = []
    if len(spills) != len(kernels):
        failures.append(f"ptxas reported {len(spills)} lookback_sat_kernel entries, not {len(kernels)}")
    for name, stored in zip(demangled(list(spills)), spills.values()):
        print(f"{stored:4d} bytes spilled  {name}")
        if stored != 0:
            failures.append(f"{name} spills {stored} bytes per thread")
    for f in failures:
        print(f"FAIL: {f}")
    if not failures:
        print("kernel_spills: all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
