"""CPU tests of the Python package: argument checking through a stand-in with
__cuda_array_interface__ (its pointer is never dereferenced: calls that pass the checks reach a
recording stand-in of the C library), the dtype rules, and the one-line messages of a machine
without a GPU or without the library."""
import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import satlib
from satlib import _arrays, _lib

FAKE_PTR = 0x7F00_0000_0000  # aligned for every dtype; never dereferenced
ITEM = {"|u1": 1, "<u2": 2, "<i4": 4, "<f4": 4, "<f8": 8, "<i8": 8, "<f2": 2, "|b1": 1, ">f4": 4}


class StandIn:
    """A CUDA array as __cuda_array_interface__ v3 describes one; strides in elements here."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=FAKE_PTR, stream=None):
        size = ITEM[typestr]
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "data": (ptr, False), "version": 3,
            "strides": None if strides is None else tuple(s * size for s in strides),
            "stream": stream,
        }


class FakeOut:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


class RecordingLib:
    """Stands in for libsatlib.so: records what each entry point received, returns `status`."""

    def __init__(self, status=_lib.OK, timeout=0):
        self.status, self.timeout, self.calls, self.synced = status, timeout, [], []
        self.wait_status = _lib.OK  # what satlib_wait returns when no timeout is set

    def satlib_integral(self, args, stream, check_timeout):
        fields = dict(zip([name for name, _ in _lib.INTEGRAL_FIELDS], _lib.INTEGRAL_ARGS.unpack(args)))
        for name in ("input", "out", "sq_out"):
            fields[name] = fields[name] or None  # a NULL pointer, as ctypes shows one
        self.calls.append(("integral", fields, stream or None, check_timeout))
        return self.status

    def satlib_box(self, *args):
        self.calls.append(("box", args[:-1], args[-1] or None))
        return self.status

    TEXTS = {_lib.ERR_TIMEOUT: b"satlib: a tile waited more than 2 s for another one; the output is incomplete"}

    def satlib_error_string(self, status):
        return self.TEXTS.get(status, b"a bad shape, pitch or stride")

    def satlib_last_timeout(self):
        return self.timeout

    def satlib_wait(self, stream):
        self.synced.append(stream)
        return _lib.ERR_TIMEOUT if self.timeout else self.wait_status


class Recording:
    """Context: the recording library on a machine that has a device; outputs are FakeOut."""

    def __init__(self, status=_lib.OK, timeout=0, capturing=False, capture_query=0):
        self.lib = RecordingLib(status, timeout)
        self.synced = self.lib.synced  # the streams satlib_wait waited for
        self.capturing = capturing  # what cuStreamIsCapturing says of every stream
        self.capture_query = capture_query  # and the status it returns
        self.capture_asked = []
        self.next_ptr = 0x1000_0000
        # What cuPointerGetAttributes says of every pointer (memory type: 2 device, 1 pinned host,
        # 0 unknown to CUDA; managed; device ordinal), the current device, and whether it reads
        # pageable host memory.
        self.pointer = (2, 0, 0)
        self.current = 0
        self.pageable_access = 0
        self.pointers_asked = []

    def alloc(self, shape, dtype):
        self.next_ptr += 0x100_0000
        return FakeOut(shape, dtype), self.next_ptr

    def cuStreamIsCapturing(self, stream, status):
        self.capture_asked.append(stream.value)
        status._obj.value = 1 if self.capturing else 0  # CU_STREAM_CAPTURE_STATUS_ACTIVE or NONE
        return self.capture_query

    def cuPointerGetAttributes(self, count, attributes, data, ptr):
        self.pointers_asked.append(ptr.value)
        if self.pointer is None:
            return 1  # CUDA_ERROR_INVALID_VALUE
        # cuda.h's CU_POINTER_ATTRIBUTE_MEMORY_TYPE, _IS_MANAGED and _DEVICE_ORDINAL, each a
        # 4-byte answer.
        answers = dict(zip((2, 8, 9), self.pointer))
        for k in range(count):
            ctypes.c_int.from_address(data[k]).value = answers[attributes[k]]
        return 0

    def cuCtxGetDevice(self, device):
        device._obj.value = self.current
        return 0

    def cuDeviceGetAttribute(self, value, attribute, device):
        # CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS of the current device only
        value._obj.value = self.pageable_access if (attribute, device) == (88, self.current) else 0
        return 0

    def __enter__(self):
        self.patches = [mock.patch.object(_lib, "load", return_value=self.lib),
                        mock.patch.object(_lib, "_lib", self.lib),
                        mock.patch.object(_lib, "device_error", return_value=None),
                        mock.patch.object(_lib, "_driver", self),  # cuStreamIsCapturing
                        mock.patch.object(_arrays, "_any_alloc", self.alloc)]
        for p in self.patches:
            p.start()
        return self.lib

    def __exit__(self, *exc):
        for p in reversed(self.patches):
            p.stop()


class OneLine(unittest.TestCase):
    def raises_line(self, exc, fn, *args, contains=None, **kw):
        with self.assertRaises(exc) as cm:
            with Recording():  # nothing may reach the library when the arguments are wrong
                fn(*args, **kw)
        text = str(cm.exception)
        self.assertTrue(text.startswith("satlib: "), text)
        self.assertNotIn("\n", text)
        if contains:
            self.assertIn(contains, text)
        return text


class TestArgumentErrors(OneLine):
    def test_not_an_array(self):
        for x in (None, 3, [[1, 2], [3, 4]], "img"):
            self.raises_line(TypeError, satlib.integral, x, contains="expected a CUDA array")

    def test_numpy_array_is_refused(self):
        try:
            import numpy as np
        except ImportError:
            self.skipTest("numpy not installed")
        self.raises_line(TypeError, satlib.integral, np.zeros((4, 4), np.float32), contains="host memory")
        self.raises_line(TypeError, satlib.box_filter, np.zeros((4, 4), np.uint8), 1, contains="host memory")

    def test_cpu_torch_tensor_is_refused(self):
        try:
            import torch
        except ImportError:
            self.skipTest("torch not installed")
        self.raises_line(TypeError, satlib.integral, torch.zeros(4, 4), contains="x.cuda()")

    def test_unsupported_dtypes(self):
        for typestr, name in (("<i8", "int64"), ("<f2", "float16"), ("|b1", "bool")):
            text = self.raises_line(TypeError, satlib.integral, StandIn((8, 8), typestr), contains=name)
            self.assertIn("supported: uint8, uint16, int32, float32, float64", text)
        self.raises_line(TypeError, satlib.integral, StandIn((8, 8), ">f4"), contains="big-endian")

    def test_bad_shapes(self):
        for shape in ((16,), (2, 3, 4, 5), ()):
            self.raises_line(ValueError, satlib.integral, StandIn(shape), contains="2-D (H, W) or 3-D")
        for shape in ((0, 5), (5, 0), (0, 4, 4)):
            self.raises_line(ValueError, satlib.local_variance, StandIn(shape), 1, contains="empty")
        self.raises_line(ValueError, satlib.integral, StandIn((1, 2**31)), contains="2^31")

    def test_bad_views(self):
        self.raises_line(ValueError, satlib.integral, StandIn((8, 8), strides=(16, 2)),
                         contains="column stride 2 elements")
        self.raises_line(ValueError, satlib.integral, StandIn((8, 8), strides=(1, 8)),  # a transpose
                         contains="column stride 8")
        self.raises_line(ValueError, satlib.integral, StandIn((8, 8), strides=(4, 1)),
                         contains="row stride 4 elements for 8 columns")
        self.raises_line(ValueError, satlib.integral, StandIn((8, 8), strides=(-8, 1)), contains="backwards")
        self.raises_line(ValueError, satlib.integral, StandIn((2, 8, 8), strides=(-64, 8, 1)),
                         contains="batch stride -64")
        cai = StandIn((8, 8))
        cai.__cuda_array_interface__["strides"] = (33, 4)  # not whole f32 elements
        self.raises_line(ValueError, satlib.integral, cai, contains="not whole elements")
        self.raises_line(ValueError, satlib.integral, StandIn((8, 8), ptr=FAKE_PTR + 2), contains="aligned")
        self.raises_line(ValueError, satlib.integral, StandIn((8, 8), ptr=0), contains="null")
        masked = StandIn((8, 8))
        masked.__cuda_array_interface__["mask"] = object()
        self.raises_line(ValueError, satlib.integral, masked, contains="mask")
        self.raises_line(ValueError, satlib.integral, type("Broken", (), {"__cuda_array_interface__": {}})(),
                         contains="malformed")

    def test_bad_options(self):
        x = StandIn((8, 8), "|u1")
        self.raises_line(ValueError, satlib.integral, x, layout="opencv", contains="'same' or 'npp'")
        self.raises_line(TypeError, satlib.integral, x, squares=1, contains="True or False")
        self.raises_line(TypeError, satlib.integral, x, out_dtype="float64", contains="int32 or float32")
        self.raises_line(TypeError, satlib.integral, StandIn((8, 8), "<f4"), out_dtype="int32",
                         contains="float32 or float64")
        self.raises_line(TypeError, satlib.integral, StandIn((8, 8), "<u2"), out_dtype="float32")
        self.raises_line(ValueError, satlib.box_filter, x, -1, contains="between 0")
        self.raises_line(TypeError, satlib.box_filter, x, 1.5, contains="integer radius")
        self.raises_line(TypeError, satlib.box_filter, x, True, contains="integer radius")
        self.raises_line(ValueError, satlib.box_filter, x, 2, op="max", contains="'mean' or 'sum'")
        self.raises_line(TypeError, satlib.local_variance, x, 2, out_dtype="int32", contains="float32 or float64")

    def test_library_errors_become_exceptions(self):
        for status, exc in ((_lib.ERR_ARGUMENT, ValueError), (_lib.ERR_TYPE, TypeError),
                            (_lib.ERR_OUT_OF_MEMORY, MemoryError), (_lib.ERR_TIMEOUT, satlib.SatlibError),
                            (_lib.ERR_CUDA, satlib.SatlibError), (_lib.ERR_NO_DEVICE, satlib.SatlibError)):
            with Recording(status), self.assertRaises(exc) as cm:
                satlib.integral(StandIn((8, 8)))
            text = "a tile waited more than 2 s for another one; the output is incomplete" \
                if status == _lib.ERR_TIMEOUT else "a bad shape, pitch or stride"
            self.assertEqual(str(cm.exception), "satlib: integral: " + text)


class TestBarePointers(unittest.TestCase):
    """__cuda_array_interface__ names no device: its pointer must be memory of the current device
    (or memory every device reads); anything else is refused in one line before any work."""

    def call(self, rec, fn, *args):
        with rec:
            return fn(StandIn((6, 7), "<f4"), *args)

    def refused(self, rec, fn, *args):
        first_output = rec.next_ptr
        with self.assertRaises(ValueError) as cm:
            self.call(rec, fn, *args)
        # nothing reached the library, and no output was allocated
        self.assertEqual((rec.lib.calls, rec.synced, rec.next_ptr), ([], [], first_output))
        self.assertEqual(rec.pointers_asked, [FAKE_PTR])
        return str(cm.exception)

    def test_another_devices_memory_is_refused(self):
        for fn, args in ((satlib.integral, ()), (satlib.box_filter, (1,)), (satlib.local_variance, (1,))):
            with self.subTest(fn=fn.__name__):
                rec = Recording()
                rec.pointer, rec.current = (2, 0, 1), 0
                self.assertEqual(self.refused(rec, fn, *args),
                                 "satlib: the array lies on device 1, but the current device is 0; call satlib "
                                 "with device 1 current (with numba.cuda.gpus[1]: or with cupy.cuda.Device(1):)")

    def test_host_memory_the_device_cannot_read_is_refused(self):
        rec = Recording()
        rec.pointer, rec.current = (0, 0, -1), 3
        self.assertEqual(self.refused(rec, satlib.integral),
                         "satlib: the array's data (0x%x) is host memory that device 3 cannot read; move it "
                         "to the GPU first" % FAKE_PTR)

    def test_memory_the_device_reads_passes(self):
        cases = {"the current device's": ((2, 0, 1), 1, 0), "managed": ((2, 1, 0), 1, 0),
                 "pinned host": ((1, 0, -1), 1, 0), "pageable host, read by the device": ((0, 0, -1), 0, 1)}
        for name, (pointer, current, pageable) in cases.items():
            with self.subTest(name):
                rec = Recording()
                rec.pointer, rec.current, rec.pageable_access = pointer, current, pageable
                self.call(rec, satlib.integral)
                self.assertEqual(len(rec.lib.calls), 1)
                self.assertEqual(rec.pointers_asked, [FAKE_PTR])

    def test_pageable_access_of_another_device_does_not_count(self):
        rec = Recording()
        rec.pointer, rec.current, rec.pageable_access = (0, 0, -1), 1, 0
        with mock.patch.object(rec, "cuDeviceGetAttribute",
                               lambda value, attribute, device: setattr(value._obj, "value", int(device != 1)) or 0):
            self.assertIn("device 1 cannot read", self.refused(rec, satlib.integral))

    def test_unanswered_or_no_driver_goes_on(self):
        """A driver that does not answer, or none: the call goes on and reports what it finds."""
        rec = Recording()
        rec.pointer = None
        self.call(rec, satlib.integral)
        self.assertEqual((len(rec.lib.calls), rec.pointers_asked), (1, [FAKE_PTR]))
        rec = Recording()
        with rec, mock.patch.object(_lib, "_driver", None):
            satlib.integral(StandIn((6, 7), "<f4"))
        self.assertEqual((len(rec.lib.calls), rec.pointers_asked), (1, []))


class TestWhatReachesTheLibrary(unittest.TestCase):
    """The arguments the C entry points receive, for views, batches, layouts and dtypes."""

    def integral_args(self, x, **kw):
        with Recording() as lib:
            result = satlib.integral(x, **kw)
        self.assertEqual(len(lib.calls), 1)
        _, args, stream, check = lib.calls[0]
        return result, args, stream, check

    def test_contiguous_2d(self):
        out, a, stream, check = self.integral_args(StandIn((37, 53)))
        self.assertEqual((a["batch"], a["rows"], a["cols"]), (1, 37, 53))
        self.assertEqual((a["in_pitch"], a["in_batch_stride"]), (53, 37 * 53))
        self.assertEqual((a["in_type"], a["out_type"]), (_lib.DTYPES["float32"],) * 2)
        self.assertEqual((a["out_pitch"], a["out_batch_stride"]), (53, 37 * 53))
        self.assertIsNone(a["sq_out"])
        self.assertEqual(a["input"], FAKE_PTR)
        self.assertEqual(a["layout"], _lib.LAYOUTS["same"])
        self.assertEqual((out.shape, out.dtype), ((37, 53), "float32"))
        self.assertIsNone(stream)  # no v3 stream: the legacy default stream (NULL)
        self.assertEqual(check, 1)

    def test_view_with_pitch_and_batch_stride(self):
        # x[:, 2:40, 5:70] of a (4, 50, 80) u8 array: pitch 80, batch stride 4000.
        x = StandIn((4, 38, 65), "|u1", strides=(4000, 80, 1), ptr=FAKE_PTR + 2 * 80 + 5, stream=0x1234)
        (sums, squares), a, stream, _ = self.integral_args(x, squares=True, layout="npp")
        self.assertEqual((a["batch"], a["rows"], a["cols"]), (4, 38, 65))
        self.assertEqual((a["in_pitch"], a["in_batch_stride"]), (80, 4000))
        self.assertEqual(a["input"], FAKE_PTR + 165)
        self.assertEqual((a["out_pitch"], a["out_batch_stride"]), (66, 39 * 66))
        self.assertEqual((a["sq_pitch"], a["sq_batch_stride"]), (66, 39 * 66))
        self.assertIsNotNone(a["sq_out"])
        self.assertNotEqual(a["sq_out"], a["out"])
        self.assertEqual(a["layout"], _lib.LAYOUTS["npp"])
        self.assertEqual((a["in_type"], a["out_type"]), (_lib.DTYPES["uint8"], _lib.DTYPES["int32"]))
        self.assertEqual((sums.shape, squares.shape, sums.dtype), ((4, 39, 66), (4, 39, 66), "int32"))
        self.assertEqual(stream, 0x1234)  # the producer's stream

    def test_size_one_dimensions_take_any_stride(self):
        _, a, _, _ = self.integral_args(StandIn((1, 1, 9), strides=(0, 0, 1)))
        self.assertEqual((a["batch"], a["rows"], a["in_pitch"], a["in_batch_stride"]), (1, 1, 9, 9))
        _, a, _, _ = self.integral_args(StandIn((5, 1), strides=(7, 3)))  # one column
        self.assertEqual((a["rows"], a["cols"], a["in_pitch"]), (5, 1, 7))

    def test_output_dtypes(self):
        cases = [("|u1", None, "int32"), ("|u1", "float32", "float32"), ("<u2", None, "float64"),
                 ("<i4", None, "int32"), ("<f4", None, "float32"), ("<f4", "float64", "float64"),
                 ("<f4", "f8", "float64"), ("<f8", None, "float64")]
        for typestr, requested, expected in cases:
            with self.subTest(typestr=typestr, out_dtype=requested):
                out, a, _, _ = self.integral_args(StandIn((3, 4), typestr), out_dtype=requested)
                self.assertEqual(out.dtype, expected)
                self.assertEqual(a["out_type"], _lib.DTYPES[expected])

    def test_wait_false(self):
        _, _, _, check = self.integral_args(StandIn((3, 4)), wait=False)
        self.assertEqual(check, 0)

    def test_box_arguments(self):
        x = StandIn((2, 30, 40), "<u2", strides=(1600, 50, 1), stream=2)
        for fn, args, op, out_dtype in ((satlib.box_filter, (3,), "mean", "float64"),
                                        (satlib.box_filter, (0, "sum", "float32"), "sum", "float32"),
                                        (satlib.local_variance, (7,), "variance", "float64")):
            with self.subTest(op=op), Recording() as lib:
                out = fn(x, *args)
                (_, call, stream), = lib.calls
                self.assertEqual(call, (FAKE_PTR, _lib.DTYPES["uint16"], 50, 1600, call[4],
                                        _lib.DTYPES[out_dtype], 40, 1200, 2, 30, 40, args[0], _lib.BOX_OPS[op]))
                self.assertEqual(stream, 2)  # per-thread default stream, as the producer said
                self.assertEqual((out.shape, out.dtype), ((2, 30, 40), out_dtype))
        with Recording():
            self.assertEqual(satlib.box_filter(StandIn((5, 5), "|u1"), 1).dtype, "float32")

    def test_box_waits_and_reports_a_timeout(self):
        rec = Recording(timeout=1)
        with rec, self.assertRaises(satlib.SatlibError) as cm:
            satlib.local_variance(StandIn((5, 5), "|u1", stream=0x77), 1)
        self.assertEqual(rec.synced, [0x77])
        self.assertEqual(str(cm.exception), "satlib: local_variance: a tile waited more than 2 s for another one; "
                         "the output is incomplete")  # as integral's timeout: one message for one status
        rec = Recording(timeout=1)
        with rec:
            satlib.box_filter(StandIn((5, 5), "|u1"), 1, wait=False)  # no wait, no look
        self.assertEqual(rec.synced, [])
        rec = Recording()
        rec.lib.wait_status = _lib.ERR_CUDA  # the wait itself fails: its status goes through check()
        with rec, self.assertRaises(satlib.SatlibError) as cm:
            satlib.box_filter(StandIn((5, 5), "|u1", stream=0x77), 1)
        self.assertEqual(rec.synced, [0x77])
        self.assertEqual(str(cm.exception), "satlib: box_filter: a bad shape, pitch or stride")

    def test_no_wait_in_a_graph_capture(self):
        """On a stream being captured into a CUDA graph, wait=True (the default) is refused in
        one line before the library is called; wait=False goes through without a wait."""
        for fn, args in ((satlib.integral, ()), (satlib.box_filter, (1,)), (satlib.local_variance, (2,))):
            with self.subTest(fn=fn.__name__):
                rec = Recording(capturing=True)
                with rec, self.assertRaises(ValueError) as cm:
                    fn(StandIn((5, 5), "|u1", stream=0x77), *args)
                self.assertEqual(str(cm.exception), "satlib: %s: the stream is being captured into a CUDA "
                                 "graph, which cannot wait for it: pass wait=False" % fn.__name__)
                self.assertEqual((rec.lib.calls, rec.synced, rec.capture_asked), ([], [], [0x77]))
                rec = Recording(capture_query=_lib.CAPTURE_IMPLICIT)  # the legacy stream, another captured
                with rec, self.assertRaises(ValueError):
                    fn(StandIn((5, 5), "|u1"), *args)
                self.assertEqual(rec.lib.calls, [])
                rec = Recording(capturing=True)
                with rec:
                    fn(StandIn((5, 5), "|u1", stream=0x77), *args, wait=False)
                self.assertEqual((len(rec.lib.calls), rec.synced, rec.capture_asked), (1, [], []))

    def test_integral_args_layout(self):
        """The packed satlib_integral_args read back as the C compiler lays the struct out."""
        import ctypes
        kinds = {"P": ctypes.c_void_p, "i": ctypes.c_int, "N": ctypes.c_size_t}

        class Args(ctypes.Structure):
            _fields_ = [(name, kinds[code]) for name, code in _lib.INTEGRAL_FIELDS]

        values = [0x7F00_0000_0000 + k if code == "P" else 1000 + k for k, (_, code) in enumerate(_lib.INTEGRAL_FIELDS)]
        packed = _lib.INTEGRAL_ARGS.pack(*values)
        self.assertEqual(len(packed), ctypes.sizeof(Args))
        back = Args.from_buffer_copy(packed)
        self.assertEqual([getattr(back, name) for name, _ in _lib.INTEGRAL_FIELDS], values)

    def test_dtype_names(self):
        self.assertEqual(satlib._dtype_name("f4"), "float32")
        self.assertEqual(satlib._dtype_name(float), "float")
        try:
            import numpy as np
        except ImportError:
            return
        self.assertEqual(satlib._dtype_name(np.float64), "float64")
        self.assertEqual(satlib._dtype_name(np.dtype("uint8")), "uint8")


class TestNoGpuNoLibrary(unittest.TestCase):
    def setUp(self):
        self.env = os.environ.get("SATLIB_LIBRARY")
        _lib.reset()

    def tearDown(self):
        if self.env is None:
            os.environ.pop("SATLIB_LIBRARY", None)
        else:
            os.environ["SATLIB_LIBRARY"] = self.env
        _lib.reset()

    def test_import_needs_nothing(self):
        code = "import satlib, sys; print(satlib.__version__); sys.exit('torch' in sys.modules)"
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(satlib.__file__)),
                   SATLIB_LIBRARY="/nonexistent/libsatlib.so", CUDA_VISIBLE_DEVICES="")
        run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.strip(), satlib.__version__)

    def test_library_not_built(self):
        os.environ["SATLIB_LIBRARY"] = "/nonexistent/libsatlib.so"
        with mock.patch.object(_lib, "device_error", return_value=None), \
                self.assertRaises(satlib.SatlibError) as cm:
            satlib.integral(StandIn((8, 8)))
        self.assertEqual(str(cm.exception), "satlib: the library is not built (no libsatlib.so at "
                         "$SATLIB_LIBRARY=/nonexistent/libsatlib.so); run `make lib` or set SATLIB_LIBRARY")

    def test_library_does_not_load(self):
        with tempfile.NamedTemporaryFile(suffix=".so") as f:
            f.write(b"not a shared object")
            f.flush()
            os.environ["SATLIB_LIBRARY"] = f.name
            with self.assertRaises(satlib.SatlibError) as cm:
                satlib.library_version()
        self.assertTrue(str(cm.exception).startswith("satlib: cannot load %s: " % f.name))
        self.assertNotIn("\n", str(cm.exception))

    def test_library_older_than_the_package(self):
        """A libsatlib.so without satlib_wait (1.0.0) is named in one line, before any call."""
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            self.skipTest("no C compiler to build a 1.0.0 stand-in")
        with tempfile.TemporaryDirectory() as folder:
            src, so = os.path.join(folder, "old.c"), os.path.join(folder, "libsatlib.so")
            with open(src, "w") as f:
                f.write("int satlib_integral(void) { return 0; }\nint satlib_box(void) { return 0; }\n"
                        "int satlib_last_timeout(void) { return 0; }\n"
                        "const char* satlib_error_string(int s) { return \"\"; }\n"
                        "const char* satlib_version(void) { return \"1.0.0\"; }\n")
            subprocess.run([cc, "-shared", "-fPIC", src, "-o", so], check=True)
            os.environ["SATLIB_LIBRARY"] = so
            with self.assertRaises(satlib.SatlibError) as cm:
                satlib.library_version()
        self.assertEqual(str(cm.exception), "satlib: %s is older than this package (no satlib_wait, new in "
                         "1.1.0); rebuild it with `make lib`" % so)

    def test_no_driver(self):
        with mock.patch.object(_lib, "DRIVER_NAME", "libcuda-not-here.so.1"), \
                mock.patch.object(_lib, "load", return_value=RecordingLib()), \
                self.assertRaises(satlib.SatlibError) as cm:
            satlib.box_filter(StandIn((8, 8)), 2)
        self.assertEqual(str(cm.exception), "satlib: no CUDA driver (libcuda-not-here.so.1 not found): "
                                            "this machine cannot run satlib")

    def test_real_library_accepts_what_the_package_builds(self):
        """The built library (no device here) checks the arguments before it looks for a device:
        every call the package makes must pass its checks and stop only at the device."""
        if _lib.device_error() is None:
            self.skipTest("this machine has a CUDA device: the stand-in's pointers must not reach it")
        try:
            _lib.load()
        except satlib.SatlibError as e:
            self.skipTest(str(e))
        ptrs = iter(range(0x2000_0000, 0x8000_0000, 0x100_0000))
        calls = [(satlib.integral, StandIn((4, 38, 65), "|u1", strides=(4000, 80, 1), ptr=FAKE_PTR + 165, stream=2),
                  dict(squares=True, layout="npp")),
                 (satlib.integral, StandIn((1, 1), "<f8"), {}),
                 (satlib.integral, StandIn((3, 5, 7), "<f4"), dict(out_dtype="float64", squares=True)),
                 (satlib.integral, StandIn((2, 9), "<u2", strides=(40, 1)), {}),
                 (satlib.box_filter, StandIn((2, 30, 40), "<i4", strides=(1600, 50, 1)), dict(r=3, op="sum")),
                 (satlib.local_variance, StandIn((30, 40), "|u1"), dict(r=0))]
        with mock.patch.object(_lib, "device_error", return_value=None), \
                mock.patch.object(_arrays, "_any_alloc", lambda shape, dtype: (FakeOut(shape, dtype), next(ptrs))):
            for fn, x, kw in calls:
                with self.subTest(fn=fn.__name__, shape=x.__cuda_array_interface__["shape"], **kw):
                    with self.assertRaises(satlib.SatlibError) as cm:  # not ValueError / TypeError
                        fn(x, **kw)
                    self.assertNotIn("\n", str(cm.exception))

    def test_this_machine(self):
        """Without a GPU (CI) a valid call says in one line what is missing."""
        if _lib.device_error() is None:
            self.skipTest("this machine has a CUDA device (the GPU tests cover it)")
        with self.assertRaises(satlib.SatlibError) as cm:
            satlib.integral(StandIn((8, 8)))
        text = str(cm.exception)
        self.assertNotIn("\n", text)
        self.assertTrue(any(s in text for s in ("no CUDA device", "no CUDA driver", "not built", "cannot load",
                                                "does not start")), text)


if __name__ == "__main__":
    unittest.main()
