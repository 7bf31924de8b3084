#!/usr/bin/env python3
"""bench_order.py — the order in which `make bench` (tools/bench.py) runs its jobs, with the runs
themselves stubbed out (tests/test_results.cpp runs it; no GPU).

A short budget must lose the labs' rows before the library's: the peers up to 16K, then the
library's thin shapes and batches, then the peers at 32K, then the labs up to 16K and lab 6's
sweep, then the labs at 32K. Prints one line per failed check; exit 1 when any failed.
"""
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import bench  # noqa: E402

failures = []


def check(ok: bool, what: str):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


class RecordingBench:
    """bench.Bench's interface as plan_and_run uses it; run() records the job's label."""

    def __init__(self):
        self.args = types.SimpleNamespace(labs=None, no_peers=False, no_build=True, no_sweep=False,
                                          no_thin=False, no_batch=False)
        self.missing, self.group_seconds, self.labels = {}, {}, []

    def run(self, label, cmd, key=None, estimate=0.0, **kwargs):
        self.labels.append(label)


with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)  # a checkout with a built build/peers and the library's source
    (root / "build").mkdir()
    (root / "build" / "peers").write_text("")
    (root / "lib" / "src").mkdir(parents=True)
    (root / "lib" / "src" / "satlib.cu").write_text("")
    bench.ROOT = root
    bench.lab_binaries = lambda: [("lab1-ref", "1", root / "lab1-ref"), ("lab6-ref", "6", root / "lab6-ref"),
                                  ("lab9-ref", "9", root / "lab9-ref")]
    bench.variants_of = lambda path: ["satlib", "CUB-two-pass"] if path.name == "peers" else ["V"]
    bench.subprocess = types.SimpleNamespace(run=lambda *a, **k: types.SimpleNamespace(returncode=0, stdout="", stderr=""))
    bench.run_batch = lambda b: b.labels.append("lib    bench_batch")
    recorder = RecordingBench()
    bench.plan_and_run(recorder, [bench.Size("1024"), bench.Size("16384"), bench.Size("32768")], ["f32"], False)
    # i32 as the default run has it: the peers' type only (peers_only).
    library_run = RecordingBench()
    bench.plan_and_run(library_run, [bench.Size("1024"), bench.Size("32768")], ["f32", "i32"], False,
                       peers_only=("i32",))

labels = recorder.labels
print("\n".join(labels))


def first(pred):
    return next((i for i, l in enumerate(labels) if pred(l)), None)


def last(pred):
    return max((i for i, l in enumerate(labels) if pred(l)), default=None)


is_big = lambda l: "32768" in l
small_peers = last(lambda l: l.startswith("peers") and not is_big(l) and "thin" not in l)
thin, batch = first(lambda l: "thin shapes" in l), first(lambda l: "bench_batch" in l)
big_peers = [i for i, l in enumerate(labels) if l.startswith("peers") and is_big(l)]
small_labs = first(lambda l: l.startswith("lab") and not is_big(l))
sweep, big_labs = first(lambda l: "--sweep" in l), first(lambda l: l.startswith("lab") and is_big(l))
check(None not in (small_peers, thin, batch, small_labs, sweep, big_labs) and big_peers,
      f"a kind of job is missing from {labels}")
if not failures:
    check(small_peers < thin < batch < small_labs, "the peers, thin shapes and batches do not come before the labs")
    check(batch < min(big_peers) and max(big_peers) < small_labs,
          "the peers at 32K do not come between the batches and the labs")
    check(small_labs < sweep < big_labs, "the labs up to 16K and the sweep do not come before the labs at 32K")
# The peers-only type: satlib's squares (up to 16K and at 32K) and thin shapes, CUB's squares, no lab.
with_i32 = [l for l in library_run.labels if any("i32" in token.split(",") for token in l.split())]
runs = lambda l, v: l.startswith("peers ") and v in l.split()[1].split(",")  # peer job l runs variant v
check(any(runs(l, "satlib") and "32768" not in l for l in with_i32) and
      any(runs(l, "satlib") and "32768" in l for l in with_i32) and
      any("thin shapes  i32" in l for l in with_i32), f"the library does not run i32 everywhere: {library_run.labels}")
check(any(runs(l, "CUB-two-pass") for l in with_i32), f"the CUB two-pass does not run i32: {with_i32}")
check(all(l.startswith("peers ") for l in with_i32), f"a run other than the peers' has i32: {with_i32}")
check(any(l.startswith("lab") and " f32 " in l for l in library_run.labels), "the labs lost f32 with i32 for the peers only")
print("bench_order: all checks passed" if not failures else f"bench_order: {len(failures)} checks failed")
sys.exit(1 if failures else 0)
