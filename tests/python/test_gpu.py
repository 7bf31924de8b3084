"""GPU tests of the Python package (skipped without a CUDA device): every type pair, squares on
and off, both layouts, batches, non-contiguous views and non-default streams, from PyTorch, CuPy,
JAX and Numba, against numpy (and torch) references. The data are integers small enough that
every partial sum is exact in the output type, so the integral checks are exact.
SATLIB_TEST_SEED=N repeats a run."""
import ctypes
import importlib
import math
import os
import unittest

# JAX takes 75% of the GPU's memory at its first use unless told not to; the other frameworks
# in this process need theirs.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import satlib  # noqa: E402
from satlib import _lib  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

SEED = int(os.environ.get("SATLIB_TEST_SEED", "20261124"))
PAIRS = [("uint8", "int32"), ("uint8", "float32"), ("uint16", "float64"), ("int32", "int32"),
         ("float32", "float32"), ("float32", "float64"), ("float64", "float64")]
# The largest magnitude a partial sum may reach and stay exact in the output type.
EXACT = {"int32": 2**31 - 1, "float32": 2**24, "float64": 2**53}
TYPE_MAX = {"uint8": 255, "uint16": 65535, "int32": 2**31 - 1, "float32": 2**24, "float64": 2**53}
SHAPES = [(1, 1), (1, 700), (700, 1), (37, 53), (255, 257), (1031, 1029)]


def setUpModule():
    if np is None:
        raise unittest.SkipTest("numpy not installed")
    missing = _lib.device_error()
    if missing:
        raise unittest.SkipTest(missing)
    print("\npython GPU tests: seed %d (SATLIB_TEST_SEED), library %s" % (SEED, satlib.library_version()))


def data(rng, shape, dtype, out_dtype, squares):
    """Integer-valued data whose sums (and squared sums) stay exact in out_dtype."""
    pixels = max(1, math.prod(shape[-2:]))
    limit = EXACT[out_dtype]
    vmax = int(math.isqrt(limit // pixels)) if squares else limit // pixels
    vmax = max(1, min(TYPE_MAX[dtype], vmax, 1000 if dtype == "int32" else vmax))
    signed = dtype not in ("uint8", "uint16")
    x = rng.integers(-vmax if signed else 0, vmax + 1, size=shape)
    return x.astype(dtype)


def ref_integral(x, layout="same", squares=False):
    wide = x.astype(np.int64 if x.dtype.kind in "iu" else np.float64)
    if squares:
        wide = wide * wide
    table = wide.cumsum(-2).cumsum(-1)
    if layout == "npp":
        pad = [(0, 0)] * (table.ndim - 2) + [(1, 0), (1, 0)]
        table = np.pad(table, pad)
    return table


def ref_box(x, r, op):
    """Box sum / mean / variance over the clipped (2r+1)^2 window, in float64 from exact sums."""
    s = ref_integral(x, "npp").astype(np.float64)
    q = ref_integral(x, "npp", squares=True).astype(np.float64)
    h, w = x.shape[-2:]
    i0, i1 = np.clip(np.arange(h) - r, 0, h), np.clip(np.arange(h) + r + 1, 0, h)
    j0, j1 = np.clip(np.arange(w) - r, 0, w), np.clip(np.arange(w) + r + 1, 0, w)

    def window(t):
        return (t[..., i1[:, None], j1[None, :]] - t[..., i0[:, None], j1[None, :]]
                - t[..., i1[:, None], j0[None, :]] + t[..., i0[:, None], j0[None, :]])

    n = ((i1 - i0)[:, None] * (j1 - j0)[None, :]).astype(np.float64)
    total = window(s)
    if op == "sum":
        return total
    if op == "mean":
        return total / n
    return (n * window(q) - total * total) / (n * n)


def need(module):
    """The module, or skip the test class that needs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise unittest.SkipTest("%s not installed" % module) from None


class Checks(unittest.TestCase):
    def assert_exact(self, got, want, what):
        self.assertEqual(got.shape, want.shape, what)
        diff = np.argwhere(got.astype(want.dtype) != want)
        if len(diff):
            at = tuple(int(i) for i in diff[0])
            self.fail("%s: %d wrong values, first at %s: %r, expected %r (seed %d)"
                      % (what, len(diff), at, got[at], want[at], SEED))

    def assert_close(self, got, want, atol, what):
        self.assertEqual(got.shape, want.shape, what)
        err = np.abs(got.astype(np.float64) - want)
        if err.size and err.max() > atol:
            at = np.unravel_index(int(err.argmax()), err.shape)
            self.fail("%s: error %g > %g at %s: %r, expected %r (seed %d)"
                      % (what, err.max(), atol, tuple(int(i) for i in at), got[at], want[at], SEED))


def box_tolerance(x, r, op, out_dtype):
    """Absolute tolerance: rounding of the output type on the result's scale; f32 variances
    also lose digits to E[x^2] - E[x]^2, hence the wider bound."""
    top = float(np.abs(x.astype(np.float64)).max()) if x.size else 0.0
    scale = {"sum": top * (2 * r + 1) ** 2, "mean": top, "variance": top * top}[op] + 1.0
    if out_dtype == "float64":
        return 1e-9 * scale
    return (1e-3 if op == "variance" else 2e-6) * scale


# ---- PyTorch -----------------------------------------------------------------------------------
class TestTorch(Checks):
    @classmethod
    def setUpClass(cls):
        cls.torch = need("torch")
        cls.dev = cls.torch.device("cuda")

    def setUp(self):
        self.rng = np.random.default_rng(SEED)

    def to_gpu(self, a):
        a = np.ascontiguousarray(a)
        if a.dtype == np.uint16:  # torch's unsigned 16-bit support is thin: move the bits as int16
            return self.torch.from_numpy(a.view(np.int16)).to(self.dev).view(self.torch.uint16)
        return self.torch.from_numpy(a).to(self.dev)

    def to_host(self, t):
        if t.dtype == self.torch.uint16:
            return t.view(self.torch.int16).cpu().numpy().view(np.uint16)
        return t.cpu().numpy()

    def check_integral(self, x_np, x, out_dtype, squares, layout, what):
        result = satlib.integral(x, squares=squares, layout=layout,
                                 out_dtype=out_dtype if out_dtype != satlib.INTEGRAL_OUT[str(x_np.dtype)][0] else None)
        sums, sq = result if squares else (result, None)
        for t in (sums,) + ((sq,) if squares else ()):
            self.assertIsInstance(t, self.torch.Tensor)
            self.assertEqual(t.device, x.device)
            self.assertEqual(str(t.dtype), "torch." + out_dtype)
        self.assert_exact(sums.cpu().numpy(), ref_integral(x_np, layout), what + " sums")
        if squares:
            self.assert_exact(sq.cpu().numpy(), ref_integral(x_np, layout, True), what + " squares")
        return sums

    def test_every_pair_shape_layout_squares(self):
        for dtype, out_dtype in PAIRS:
            for shape in SHAPES:
                for squares in (False, True):
                    x_np = data(self.rng, shape, dtype, out_dtype, squares)
                    x = self.to_gpu(x_np)
                    for layout in ("same", "npp"):
                        what = "%s->%s %s squares=%s %s" % (dtype, out_dtype, shape, squares, layout)
                        with self.subTest(what):
                            self.check_integral(x_np, x, out_dtype, squares, layout, what)

    def test_against_torch_cumsum(self):
        for dtype, out_dtype in PAIRS:
            x_np = data(self.rng, (3, 300, 411), dtype, out_dtype, False)
            x = self.to_gpu(x_np)
            got = satlib.integral(x, out_dtype=out_dtype)
            wide = self.to_gpu(x_np.astype(np.float64 if x_np.dtype.kind == "f" else np.int64))
            want = self.torch.cumsum(self.torch.cumsum(wide, -2), -1)
            self.assertTrue(self.torch.equal(got.to(want.dtype), want), "%s->%s vs torch" % (dtype, out_dtype))

    def test_batches(self):
        for dtype, out_dtype in PAIRS:
            for shape in ((3, 37, 53), (64, 20, 30), (2, 1, 1), (5, 1, 300), (4, 300, 1), (2, 517, 1029)):
                for squares, layout in ((False, "same"), (True, "npp"), (True, "same")):
                    x_np = data(self.rng, shape, dtype, out_dtype, squares)
                    what = "%s->%s batch %s squares=%s %s" % (dtype, out_dtype, shape, squares, layout)
                    with self.subTest(what):
                        self.check_integral(x_np, self.to_gpu(x_np), out_dtype, squares, layout, what)

    def test_non_contiguous_views(self):
        for dtype, out_dtype in PAIRS:
            base_np = data(self.rng, (4, 50, 80), dtype, out_dtype, True)
            base = self.to_gpu(base_np)
            views = {"[:, 3:40, 5:70]": (slice(None), slice(3, 40), slice(5, 70)),
                     "[::2, ::3, :]": (slice(None, None, 2), slice(None, None, 3), slice(None)),
                     "[1, 2:, 7:]": (1, slice(2, None), slice(7, None)),
                     "[:, :, 79:]": (slice(None), slice(None), slice(79, None)),
                     "[1:3, 5, :] (rows from two images)": (slice(1, 3), 5, slice(None)),
                     "[3, ::7, 1:-1]": (3, slice(None, None, 7), slice(1, -1))}
            for name, index in views.items():
                for squares, layout in ((False, "same"), (True, "npp")):
                    what = "%s->%s view %s squares=%s %s" % (dtype, out_dtype, name, squares, layout)
                    with self.subTest(what):
                        self.check_integral(base_np[index], base[index], out_dtype, squares, layout, what)
            self.assertTrue(np.array_equal(self.to_host(base), base_np), "the input was written")
            with self.assertRaisesRegex(ValueError, "column stride"):
                satlib.integral(base[0].t())
            with self.assertRaisesRegex(ValueError, "column stride 2"):
                satlib.integral(base[:, :, ::2])

    def test_non_default_stream(self):
        """Work queued on the caller's stream before the call (a sleep, then the input's copy) must
        come first: on any other stream satlib would read the zeros."""
        torch = self.torch
        x_np = data(self.rng, (2, 777, 1111), "float32", "float32", True)
        src = self.to_gpu(x_np)
        x = torch.zeros_like(src)
        torch.cuda.synchronize()
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            torch.cuda._sleep(100_000_000)
            x.copy_(src)
            later = satlib.integral(x, wait=False)
            sums, sq = satlib.integral(x, squares=True, layout="npp")
            box = satlib.box_filter(x, 3, "sum", out_dtype="float64")
        s.synchronize()
        self.assertFalse(satlib.last_timeout())
        self.assert_exact(later.cpu().numpy(), ref_integral(x_np), "stream wait=False")
        self.assert_exact(sums.cpu().numpy(), ref_integral(x_np, "npp"), "stream sums")
        self.assert_exact(sq.cpu().numpy(), ref_integral(x_np, "npp", True), "stream squares")
        self.assert_close(box.cpu().numpy(), ref_box(x_np, 3, "sum"), 1e-9, "stream box sum")

    def test_cuda_graph(self):
        """torch.cuda.graph captures integral and box_filter called with wait=False (a capture
        cannot wait for its stream); every replay clears the tile flags again and reads that
        replay's input: a 2-D batch, a thin view and a box filter, outputs poisoned before each."""
        torch = self.torch
        shape = (3, 517, 1283)  # several tiles per image; [0, :3] is thin (3 rows)
        x = torch.zeros(shape, dtype=torch.float32, device=self.dev)

        def calls():
            return (satlib.integral(x, wait=False), satlib.integral(x[0, :3], wait=False),
                    satlib.box_filter(x, 2, "sum", out_dtype="float64", wait=False))

        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up, as torch asks: a kernel's first call sets it up
            calls()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for fn, args in ((satlib.integral, ()), (satlib.box_filter, (2,))):
                with self.assertRaisesRegex(ValueError, "pass wait=False"):  # refused; the capture goes on
                    fn(x, *args)
            sums, thin, box = calls()
        for replay in range(2):
            x_np = data(self.rng, shape, "float32", "float32", False)
            x.copy_(self.to_gpu(x_np))
            for out in (sums, thin, box):
                out.fill_(float("nan"))
            graph.replay()
            torch.cuda.synchronize()
            what = "graph replay %d" % replay
            self.assert_exact(sums.cpu().numpy(), ref_integral(x_np), what + " sums")
            self.assert_exact(thin.cpu().numpy(), ref_integral(x_np[0, :3]), what + " thin")
            self.assert_close(box.cpu().numpy(), ref_box(x_np, 2, "sum"), 1e-9, what + " box sum")
        self.assertFalse(satlib.last_timeout())

    def test_box_filter_and_variance(self):
        for dtype in satlib.SUPPORTED:
            for shape in ((1, 1), (7, 5), (61, 83), (3, 40, 33)):
                x_np = data(self.rng, shape, dtype, "float32", True)
                x = self.to_gpu(x_np)
                for r in (0, 1, 3, 40):
                    for op in ("sum", "mean", "variance"):
                        for out_dtype in (None, "float32", "float64"):
                            kind = out_dtype or satlib.BOX_OUT[dtype]
                            what = "%s %s r=%d %s -> %s" % (dtype, shape, r, op, kind)
                            with self.subTest(what):
                                got = (satlib.local_variance(x, r, out_dtype=out_dtype) if op == "variance"
                                       else satlib.box_filter(x, r, op, out_dtype=out_dtype))
                                self.assertEqual(str(got.dtype), "torch." + kind)
                                self.assertEqual(tuple(got.shape), shape)
                                self.assert_close(got.cpu().numpy(), ref_box(x_np, r, op),
                                                  box_tolerance(x_np, r, op, kind), what)

    def test_box_filter_of_a_batch(self):
        """A batch (one launch for all its images) gives each image what a call on it alone gives,
        bit for bit, and exact box sums; odd sizes and a radius larger than the image."""
        for dtype in ("uint8", "uint16", "float32", "float64"):
            x_np = data(self.rng, (5, 37, 101), dtype, "float32", True)
            x = self.to_gpu(x_np)
            for r in (0, 1, 150):
                what = "%s (5, 37, 101) r=%d" % (dtype, r)
                self.assert_exact(satlib.box_filter(x, r, "sum", out_dtype="float64").cpu().numpy(),
                                  ref_box(x_np, r, "sum"), "batch box sum " + what)
                for op in ("mean", "variance"):
                    call = satlib.local_variance if op == "variance" else satlib.box_filter  # box_filter: mean
                    batch = call(x, r).cpu().numpy()
                    self.assert_close(batch, ref_box(x_np, r, op), box_tolerance(x_np, r, op, str(batch.dtype)),
                                      "batch %s %s" % (op, what))
                    for b in range(x_np.shape[0]):
                        self.assert_exact(batch[b], call(x[b], r).cpu().numpy(), "image %d of the batch, %s %s"
                                          % (b, op, what))

    def test_box_filter_on_a_view(self):
        base_np = data(self.rng, (3, 90, 120), "uint8", "float32", True)
        base = self.to_gpu(base_np)
        index = (slice(None, None, 2), slice(5, 80), slice(3, 101))
        for r in (1, 6):
            got = satlib.box_filter(base[index], r).cpu().numpy()
            self.assert_close(got, ref_box(base_np[index], r, "mean"), box_tolerance(base_np, r, "mean", "float32"),
                              "box mean on a view r=%d" % r)
            got = satlib.local_variance(base[index], r, out_dtype="float64").cpu().numpy()
            self.assert_close(got, ref_box(base_np[index], r, "variance"),
                              box_tolerance(base_np, r, "variance", "float64"), "variance on a view r=%d" % r)

    def test_errors(self):
        torch = self.torch
        with self.assertRaisesRegex(TypeError, "^satlib: unsupported dtype int64"):
            satlib.integral(torch.zeros(4, 4, dtype=torch.int64, device=self.dev))
        with self.assertRaisesRegex(TypeError, "^satlib: unsupported dtype float16"):
            satlib.box_filter(torch.zeros(4, 4, dtype=torch.float16, device=self.dev), 1)
        with self.assertRaisesRegex(ValueError, "2-D"):
            satlib.integral(torch.zeros(16, device=self.dev))
        with self.assertRaisesRegex(TypeError, "x.cuda()"):
            satlib.integral(torch.zeros(4, 4))
        with self.assertRaisesRegex(TypeError, "int32 or float32"):
            satlib.integral(torch.zeros(4, 4, dtype=torch.uint8, device=self.dev), out_dtype=torch.float64)
        got = satlib.integral(torch.ones(3, 3, dtype=torch.uint8, device=self.dev), out_dtype=torch.float32)
        self.assertEqual(got.dtype, torch.float32)


# ---- Bare pointers (__cuda_array_interface__, which names no device) -----------------------------
class Bare:
    """An array that only __cuda_array_interface__ describes (as a producer without a device would)."""

    def __init__(self, interface):
        self.__cuda_array_interface__ = interface


def host_copy(a):
    """numpy copy of an output for a bare pointer: a CuPy array, else a torch tensor."""
    return a.get() if hasattr(a, "get") else a.cpu().numpy()


class TestBarePointers(Checks):
    @classmethod
    def setUpClass(cls):
        cls.torch = need("torch")

    def bare(self, t):
        return Bare(dict(t.__cuda_array_interface__))

    def assert_still_works(self):  # a fault would have left the process's CUDA context unusable
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        got = satlib.integral(self.torch.from_numpy(x).cuda())
        self.assert_exact(got.cpu().numpy(), ref_integral(x), "a call after it")

    def test_host_memory(self):
        rng = np.random.default_rng(SEED + 5)
        x = data(rng, (37, 53), "float32", "float32", False)
        host = Bare({"shape": x.shape, "typestr": "<f4", "data": (x.ctypes.data, False), "version": 3,
                     "strides": None, "stream": None})
        pageable = ctypes.c_int(0)  # Linux HMM or ATS: the device reads pageable host memory
        _lib._driver.cuDeviceGetAttribute(ctypes.byref(pageable), _lib._PAGEABLE_MEMORY_ACCESS,
                                          _lib.current_device())
        if pageable.value:
            self.assert_exact(host_copy(satlib.integral(host)), ref_integral(x), "pageable host memory")
        else:
            with self.assertRaisesRegex(ValueError, r"^satlib: the array's data \(0x[0-9a-f]+\) is host memory "
                                        r"that device \d+ cannot read; move it to the GPU first$"):
                satlib.integral(host)
        self.assert_still_works()

    def test_another_device(self):
        torch = self.torch
        if torch.cuda.device_count() < 2:
            self.skipTest("one device: another device's memory needs two")
        rng = np.random.default_rng(SEED + 6)
        x = data(rng, (2, 41, 67), "float32", "float32", False)
        on_1 = torch.from_numpy(x).to("cuda:1")
        with torch.cuda.device(0):
            with self.assertRaisesRegex(ValueError, r"^satlib: the array lies on device 1, but the current "
                                        r"device is 0; call satlib with device 1 current"):
                satlib.integral(self.bare(on_1))
            with self.assertRaisesRegex(ValueError, "lies on device 1"):
                satlib.box_filter(self.bare(on_1), 2)
        with torch.cuda.device(1):
            torch.cuda.synchronize()
            got = satlib.integral(self.bare(on_1))  # a CuPy array, else a torch tensor (the output rule)
            self.assertEqual(got.device.id if hasattr(got.device, "id") else got.device.index, 1)
            got_host = host_copy(got)
        self.assert_exact(got_host, ref_integral(x), "device 1 under device 1")
        with torch.cuda.device(0):
            self.assert_still_works()


# ---- CuPy --------------------------------------------------------------------------------------
class TestCupy(Checks):
    @classmethod
    def setUpClass(cls):
        cls.cp = need("cupy")

    def setUp(self):
        self.rng = np.random.default_rng(SEED + 1)

    def check(self, x_np, x, out_dtype, squares, layout, what):
        result = satlib.integral(x, squares=squares, layout=layout, out_dtype=out_dtype)
        sums, sq = result if squares else (result, None)
        self.assertIsInstance(sums, self.cp.ndarray)
        self.assertEqual(sums.dtype.name, out_dtype)
        self.assert_exact(self.cp.asnumpy(sums), ref_integral(x_np, layout), what + " sums")
        if squares:
            self.assert_exact(self.cp.asnumpy(sq), ref_integral(x_np, layout, True), what + " squares")

    def test_pairs_batches_views(self):
        cp = self.cp
        for dtype, out_dtype in PAIRS:
            for shape in ((1, 1), (37, 53), (1031, 1029), (3, 37, 53)):
                for squares, layout in ((False, "same"), (True, "npp")):
                    x_np = data(self.rng, shape, dtype, out_dtype, squares)
                    what = "cupy %s->%s %s squares=%s %s" % (dtype, out_dtype, shape, squares, layout)
                    with self.subTest(what):
                        self.check(x_np, cp.asarray(x_np), out_dtype, squares, layout, what)
            base_np = data(self.rng, (4, 50, 80), dtype, out_dtype, True)
            base = cp.asarray(base_np)
            for index in ((slice(None), slice(3, 40), slice(5, 70)), (slice(None, None, 2), slice(None, None, 3))):
                what = "cupy %s->%s view %s" % (dtype, out_dtype, index)
                with self.subTest(what):
                    self.check(base_np[index], base[index], out_dtype, True, "same", what)
            with self.assertRaisesRegex(ValueError, "backwards"):
                satlib.integral(base[:, ::-1])
            with self.assertRaisesRegex(ValueError, "column stride"):
                satlib.integral(base[0].T)

    def test_box(self):
        x_np = data(self.rng, (2, 61, 83), "uint16", "float64", True)
        x = self.cp.asarray(x_np)
        for r, op in ((2, "mean"), (5, "sum"), (3, "variance")):
            got = satlib.local_variance(x, r) if op == "variance" else satlib.box_filter(x, r, op)
            self.assertIsInstance(got, self.cp.ndarray)
            self.assert_close(self.cp.asnumpy(got), ref_box(x_np, r, op), box_tolerance(x_np, r, op, "float64"),
                              "cupy box %s r=%d" % (op, r))

    def test_wait_beside_a_graph_capture(self):
        """box_filter and integral with wait=True on a stream that is not captured, while another
        stream is captured in global mode (the CUDA default: no thread may wait then, except in
        relaxed mode, which the library takes for its calls): right results, and the graph holds
        the captured work only. The outputs come from CuPy's pool, warmed before the capture."""
        cp = self.cp
        x_np = data(self.rng, (300, 517), "float32", "float32", False)
        x = cp.asarray(x_np)
        marker = cp.zeros(1, dtype=cp.int32)
        captured, other = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
        with other:  # blocks of the outputs' sizes left in the pool
            satlib.box_filter(x, 2, "sum", out_dtype="float64"), satlib.integral(x)
        cp.cuda.Device().synchronize()
        captured.begin_capture(mode=cp.cuda.runtime.streamCaptureModeGlobal)
        try:
            with captured:
                marker += 1
            with other:
                box = satlib.box_filter(x, 2, "sum", out_dtype="float64")  # waits for `other`
                sums = satlib.integral(x)
        finally:
            graph = captured.end_capture()
        self.assert_close(cp.asnumpy(box), ref_box(x_np, 2, "sum"), 1e-9, "cupy box beside a capture")
        self.assert_exact(cp.asnumpy(sums), ref_integral(x_np), "cupy integral beside a capture")
        self.assertEqual(int(marker.get()[0]), 0)  # captured, not run
        graph.launch(stream=captured)
        captured.synchronize()
        self.assertEqual(int(marker.get()[0]), 1)
        self.assertFalse(satlib.last_timeout())

    def test_non_default_stream(self):
        cp = self.cp
        try:
            spin = cp.RawKernel(r'''extern "C" __global__ void spin(long long cycles) {
                long long t0 = clock64(); while (clock64() - t0 < cycles) {} }''', "spin")
            spin.compile()
        except Exception as e:  # NVRTC missing: the stream check needs a kernel that waits
            self.skipTest("cupy cannot compile the spin kernel: %s" % str(e).splitlines()[0])
        x_np = data(self.rng, (777, 1111), "uint8", "int32", True)
        src = cp.asarray(x_np)
        x = cp.zeros_like(src)
        cp.cuda.Device().synchronize()
        s = cp.cuda.Stream(non_blocking=True)
        with s:
            spin((1,), (1,), (np.int64(100_000_000),))
            x[...] = src
            later = satlib.integral(x, wait=False)
            sums, sq = satlib.integral(x, squares=True)
        s.synchronize()
        self.assertFalse(satlib.last_timeout())
        self.assert_exact(cp.asnumpy(later), ref_integral(x_np), "cupy stream wait=False")
        self.assert_exact(cp.asnumpy(sums), ref_integral(x_np), "cupy stream sums")
        self.assert_exact(cp.asnumpy(sq), ref_integral(x_np, squares=True), "cupy stream squares")


# ---- JAX ---------------------------------------------------------------------------------------
class TestJax(Checks):
    @classmethod
    def setUpClass(cls):
        try:
            import jax
            import jax.numpy as jnp
            cls.gpu = jax.devices("gpu")[0]
        except Exception as e:  # not installed, or no GPU backend
            raise unittest.SkipTest("jax on a GPU not available: %s" % str(e).splitlines()[0])
        cls.jax, cls.jnp = jax, jnp
        cls.x64 = bool(getattr(jax.config, "jax_enable_x64", False))

    def test_integral_and_box(self):
        rng = np.random.default_rng(SEED + 2)
        pairs = [p for p in PAIRS if self.x64 or "float64" not in p]
        for dtype, out_dtype in pairs:
            for shape, squares, layout in (((37, 53), False, "same"), ((3, 300, 411), True, "npp")):
                x_np = data(rng, shape, dtype, out_dtype, squares)
                x = self.jax.device_put(x_np, self.gpu)
                what = "jax %s->%s %s squares=%s %s" % (dtype, out_dtype, shape, squares, layout)
                with self.subTest(what):
                    result = satlib.integral(x, squares=squares, layout=layout, out_dtype=out_dtype)
                    sums, sq = result if squares else (result, None)
                    self.assertIsInstance(sums, self.jax.Array)
                    self.assertEqual(str(sums.dtype), out_dtype)
                    self.assert_exact(np.asarray(sums), ref_integral(x_np, layout), what)
                    if squares:
                        self.assert_exact(np.asarray(sq), ref_integral(x_np, layout, True), what + " squares")
        x_np = data(rng, (61, 83), "uint8", "float32", True)
        got = satlib.box_filter(self.jax.device_put(x_np, self.gpu), 2)
        self.assertIsInstance(got, self.jax.Array)
        self.assert_close(np.asarray(got), ref_box(x_np, 2, "mean"), box_tolerance(x_np, 2, "mean", "float32"),
                          "jax box mean")


# ---- Numba -------------------------------------------------------------------------------------
class TestNumba(Checks):
    @classmethod
    def setUpClass(cls):
        try:
            from numba import cuda
            if not cuda.is_available():
                raise RuntimeError("numba.cuda sees no GPU")
            cuda.to_device(np.zeros(1))
        except Exception as e:
            raise unittest.SkipTest("numba.cuda not available: %s" % str(e).splitlines()[0])
        cls.cuda = cuda

    def test_integral(self):
        rng = np.random.default_rng(SEED + 3)
        for dtype, out_dtype in PAIRS:
            x_np = data(rng, (2, 130, 257), dtype, out_dtype, True)
            what = "numba %s->%s" % (dtype, out_dtype)
            with self.subTest(what):
                sums, sq = satlib.integral(self.cuda.to_device(x_np), squares=True, out_dtype=out_dtype)
                self.assertTrue(self.cuda.is_cuda_array(sums))
                self.assert_exact(sums.copy_to_host(), ref_integral(x_np), what)
                self.assert_exact(sq.copy_to_host(), ref_integral(x_np, squares=True), what + " squares")
        view_np = data(rng, (90, 120), "float32", "float64", False)
        got = satlib.integral(self.cuda.to_device(view_np)[5:80, 3:101], layout="npp", out_dtype="float64")
        self.assert_exact(got.copy_to_host(), ref_integral(view_np[5:80, 3:101], "npp"), "numba view")


if __name__ == "__main__":
    unittest.main()
