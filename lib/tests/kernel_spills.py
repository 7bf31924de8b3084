#!/usr/bin/env python3
"""The library's 2-D kernels hold their tiles in registers without spilling.

A spill in the tile loop is a local-memory store and a reload that the write-out waits for:
73521d0's i32 kernels spilled 4-64 bytes per thread, and at an odd width took 1.08 times f32's
time, until their register rows were held whole (docs/tiles.md, *Integer register rows held
whole*). This compiles, for sm_90 with `-Xptxas -v`, every instantiation of lookback_sat_kernel
that the library launches for the f32, i32, u8 -> i32 and u8 -> f32 accumulators (the 256-thread
tiles of rows on whole 16-byte pieces and of the others, the small tiles with and without vector
accesses; sums, squares or both, one image or a batch), the short tiles of every pair (one
image's sums, with and without vector accesses; the f64 accumulator's 8 + 9 rows at 5 blocks of
128 threads too), the tall small tiles of f32 and i32 (one image's sums, with and without vector
accesses), the 256-thread kernels of the f64 accumulator (one image's sums:
lib/src/satlib.cu, large_tiles_for_one_image_sums_only), its wide thin tiles of 12 + 22 rows
(one image's sums, with and without vector accesses: satlib.cu, wide_thin_tiles) and the other
f32, i32 and u8 -> i32 wide thin tiles of 16 + 18 and 4 + 30 rows (one image's sums, without vector
accesses), and checks that none spills. f64's small tiles (12 + 20 rows at 5 blocks of 128 threads, 96 registers a thread)
spill 12-72 bytes in 23 of 36 (docs/tiles.md, *The shared-memory rows' output pointer stepped by
the pitch*) and are not checked. No GPU needed.
Prints "kernel_spills: all checks passed" or FAIL lines; exit 1 on a failure.
"""
import itertools
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

# (input, output, accumulator) of the library's type pairs.
F32, I32 = ("float", "float", "float"), ("int32_t", "int32_t", "uint32_t")
FLOAT_INT_PAIRS = [F32, I32, ("uint8_t", "int32_t", "uint32_t"), ("uint8_t", "float", "float")]
F64_PAIRS = [("double", "double", "double"), ("uint16_t", "double", "double"), ("float", "double", "double")]
TABLES = ("sums", "squares", "both")


def instantiations():
    """The explicit instantiation of each kernel to check."""
    # TileShape takes the rows that start on whole 16-byte pieces (vector accesses), LanesTileShape
    # the others, SmallTileShape both (lib/src/satlib.cu, compiled_for).
    shapes = [("TileShape", True), ("LanesTileShape", False), ("SmallTileShape", False), ("SmallTileShape", True)]
    cases = [(p, shape, vec, t, batched)
             for p, (shape, vec), t, batched in itertools.product(FLOAT_INT_PAIRS, shapes, TABLES, (False, True))]
    cases += [(p, shape, vec, "sums", False) for p in F64_PAIRS for shape, vec in shapes[:2]]
    # The short tiles of every pair: one image of sums (satlib.cu, short_tiles and scan_shaped's
    # one_image_per_launch).
    cases += [(p, "ShortTileShape", vec, "sums", False) for p in FLOAT_INT_PAIRS + F64_PAIRS for vec in (False, True)]
    # The tall small tiles of f32 and i32: one image of sums (satlib.cu, tall_small_tiles).
    cases += [(p, "TallSmallTileShape", vec, "sums", False) for p in (F32, I32) for vec in (False, True)]
    # The wide thin tiles: one image of sums (satlib.cu, wide_thin_tiles), the f64 accumulator's
    # with and without vector accesses, the others' without (satlib.cu, wide_thin_serves).
    cases += [(p, "WideThinTileShape", vec, "sums", False) for p in F64_PAIRS for vec in (False, True)]
    cases += [(p, "WideThinTileShape", False, "sums", False) for p in FLOAT_INT_PAIRS[:3]]
    b = lambda flag: "true" if flag else "false"
    return [f"template __global__ void lookback_sat_kernel<{i}, {o}, {shape}<{i}, {a}>, {b(vec)}, Tables::{t}, "
            f"{b(batched)}>(const {i}*, {o}*, Geometry, TileRecords<sat::Acc<{o}>>, int*, unsigned long long*, {o}*);"
            for (i, o, a), shape, vec, t, batched in cases]


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
    # ptxas -v: "Function properties for <entry>", then "N bytes stack frame, N bytes spill
    # stores, N bytes spill loads" for it.
    lines = (done.stdout + done.stderr).splitlines()
    spills = {}
    for at, line in enumerate(lines):
        m = re.search(r"Function properties for (\S+)", line)
        if m and "lookback_sat_kernel" in m.group(1) and at + 1 < len(lines):
            n = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", lines[at + 1])
            spills[m.group(1)] = tuple(int(x) for x in n.groups()) if n else None
    failures = []
    if len(spills) != len(kernels):
        failures.append(f"ptxas reported {len(spills)} lookback_sat_kernel entries, not {len(kernels)}")
    names = demangled(list(spills))
    for name, counts in zip(names, spills.values()):
        if counts is None:
            failures.append(f"{name}: no spill counts in ptxas's output")
        elif counts[1] or counts[2]:
            failures.append(f"{name} spills {counts[1]} bytes per thread (stores; {counts[2]} loaded)")
    print(f"{len(spills)} kernels compiled; {len(kernels)} instantiated")
    for f in failures:
        print(f"FAIL: {f}")
    if not failures:
        print("kernel_spills: all checks passed")
    return 1 if failures else 0


def demangled(names):
    """The kernels' names as C++ (c++filt), the template arguments only, Tables by name."""
    text = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    if len(text) != len(names):
        return names
    tables = lambda m: "Tables::" + TABLES[int(m.group(1))]
    return [re.sub(r"\(Tables\)(\d)", tables, re.sub(r"satlib::|(?<=>)\(.*", "", t)) for t in text]


if __name__ == "__main__":
    sys.exit(main())
