"""ctypes binding of lib/include/satlib.h, loaded on first use (never at import).

Where the shared library is looked for, first hit wins:
  1. $SATLIB_LIBRARY (an explicit path; an error if it names no file),
  2. libsatlib.so next to this file (what `pip install .` packages),
  3. build/lib/libsatlib.so of the source checkout this package sits in (python/satlib/..).
"""
import ctypes
import os
import struct

from ._errors import SatlibError

# satlib_dtype, satlib_layout, satlib_box_op, satlib_status (values of satlib.h).
DTYPES = {"uint8": 0, "uint16": 1, "int32": 2, "float32": 3, "float64": 4}
LAYOUTS = {"same": 0, "npp": 1}
BOX_OPS = {"sum": 0, "mean": 1, "variance": 2}
OK, ERR_ARGUMENT, ERR_TYPE, ERR_NO_DEVICE, ERR_OUT_OF_MEMORY, ERR_TIMEOUT, ERR_CUDA = range(7)

_HERE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT_LIB = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "build", "lib", "libsatlib.so")


# satlib_integral_args as the C compiler lays it out (native sizes and alignment, "@"): packed
# with struct, which is several times faster than filling a ctypes.Structure, and passed as a
# pointer to the bytes. Pitches and strides in elements of their own array; pointers as ints.
INTEGRAL_FIELDS = (
    ("input", "P"), ("in_type", "i"), ("in_pitch", "N"), ("in_batch_stride", "N"),
    ("out", "P"), ("out_type", "i"), ("out_pitch", "N"), ("out_batch_stride", "N"),
    ("sq_out", "P"), ("sq_pitch", "N"), ("sq_batch_stride", "N"),
    ("batch", "i"), ("rows", "i"), ("cols", "i"), ("layout", "i"),
)
INTEGRAL_ARGS = struct.Struct("@" + "".join(code for _, code in INTEGRAL_FIELDS))


def library_path():
    """The path the library is (or would be) loaded from, and the places looked at."""
    env = os.environ.get("SATLIB_LIBRARY")
    if env:
        return env, ["$SATLIB_LIBRARY=" + env]
    candidates = [os.path.join(_HERE, "libsatlib.so"), _CHECKOUT_LIB]
    for path in candidates:
        if os.path.isfile(path):
            return path, candidates
    return None, candidates


_lib = None


def load():
    """The loaded library; SatlibError with one line if it is missing or does not load."""
    global _lib
    if _lib is not None:
        return _lib
    path, looked = library_path()
    if path is None or not os.path.isfile(path):
        raise SatlibError("satlib: the library is not built (no libsatlib.so at %s); run `make lib` "
                          "or set SATLIB_LIBRARY" % " or ".join(looked))
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise SatlibError("satlib: cannot load %s: %s" % (path, str(e).splitlines()[0])) from None
    lib.satlib_integral.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]  # INTEGRAL_ARGS bytes
    lib.satlib_integral.restype = ctypes.c_int
    lib.satlib_box.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t,
                               ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t,
                               ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                               ctypes.c_void_p]
    lib.satlib_box.restype = ctypes.c_int
    lib.satlib_last_timeout.argtypes = []
    lib.satlib_last_timeout.restype = ctypes.c_int
    try:
        lib.satlib_wait.argtypes = [ctypes.c_void_p]
    except AttributeError:
        raise SatlibError("satlib: %s is older than this package (no satlib_wait, new in 1.1.0); rebuild it "
                          "with `make lib`" % path) from None
    lib.satlib_wait.restype = ctypes.c_int
    lib.satlib_error_string.argtypes = [ctypes.c_int]
    lib.satlib_error_string.restype = ctypes.c_char_p
    lib.satlib_version.argtypes = []
    lib.satlib_version.restype = ctypes.c_char_p
    _lib = lib
    return lib


def reset():
    """Forget the loaded library and the device check (tests switch SATLIB_LIBRARY)."""
    global _lib, _device_error
    _lib = None
    _device_error = False


def check(status, what):
    """Raise the Python exception for a satlib_status other than SATLIB_OK."""
    if status == OK:
        return
    text = (_lib.satlib_error_string(status) or b"").decode(errors="replace").strip()
    if text.startswith("satlib: "):
        text = text[len("satlib: "):]
    line = "satlib: %s: %s" % (what, text.splitlines()[0] if text else "status %d" % status)
    if status in (ERR_ARGUMENT,):
        raise ValueError(line)
    if status == ERR_TYPE:
        raise TypeError(line)
    if status == ERR_OUT_OF_MEMORY:
        raise MemoryError(line)
    raise SatlibError(line)


# The CUDA driver is asked once whether a device exists, so that a machine without one gets a
# one-line answer before any output is allocated (the frameworks' own messages are long).
DRIVER_NAME = "libcuda.so.1"
_device_error = False  # False: not asked yet; None: a device is there; str: what is missing
_driver = None


def device_error():
    """None when a CUDA device is usable, else one line saying what is missing."""
    global _device_error, _driver
    if _device_error is not False:
        return _device_error
    try:
        driver = _driver = ctypes.CDLL(DRIVER_NAME)
    except OSError:
        _device_error = "satlib: no CUDA driver (%s not found): this machine cannot run satlib" % DRIVER_NAME
        return _device_error
    count = ctypes.c_int(0)
    status = driver.cuInit(0)
    if status == 0:
        status = driver.cuDeviceGetCount(ctypes.byref(count))
    if status == 100 or (status == 0 and count.value == 0):  # CUDA_ERROR_NO_DEVICE
        _device_error = "satlib: no CUDA device on this machine"
    elif status != 0:
        _device_error = "satlib: the CUDA driver does not start (cuInit error %d)" % status
    else:
        _device_error = None
    return _device_error


CAPTURE_IMPLICIT = 906  # CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: the legacy stream while another is captured


def refuse_wait_in_capture(stream, what):
    """A stream being captured into a CUDA graph cannot be waited for: say so before any work
    (the capture stays usable). No driver, or another error in asking: taken as no capture."""
    if _driver is None:
        return
    capture = ctypes.c_int(0)  # CUstreamCaptureStatus: 0 none, 1 active, 2 invalidated
    status = _driver.cuStreamIsCapturing(ctypes.c_void_p(stream), ctypes.byref(capture))
    if status == CAPTURE_IMPLICIT or (status == 0 and capture.value != 0):
        raise ValueError("satlib: %s: the stream is being captured into a CUDA graph, which cannot wait "
                         "for it: pass wait=False" % what)


# cuPointerGetAttributes' attributes, a memory type and a device attribute (cuda.h).
_POINTER_MEMORY_TYPE, _POINTER_IS_MANAGED, _POINTER_DEVICE_ORDINAL = 2, 8, 9
_MEMORYTYPE_DEVICE = 2
_PAGEABLE_MEMORY_ACCESS = 88  # CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS


def current_device():
    """The device the library's calls run on: that of the thread's current context (none yet: the
    runtime's default, device 0)."""
    device = ctypes.c_int(0)
    status = _driver.cuCtxGetDevice(ctypes.byref(device))
    return device.value if status == 0 else 0


def check_pointer(ptr):
    """A bare pointer (__cuda_array_interface__ names no device) must be memory that a kernel on the
    current device can use: refuse, in one line and before any work, one in another device's
    memory or in host memory the device cannot read (a kernel would fault there and leave the
    process's CUDA context unusable). Pinned host and managed memory pass. Another device's memory
    is refused even where peer access would let this device read it: the scan belongs on the
    device that holds the data. No driver: not checked."""
    if _driver is None:
        return
    attributes = (ctypes.c_int * 3)(_POINTER_MEMORY_TYPE, _POINTER_IS_MANAGED, _POINTER_DEVICE_ORDINAL)
    memory_type, managed, ordinal = ctypes.c_uint(0), ctypes.c_int(0), ctypes.c_int(-1)
    data = (ctypes.c_void_p * 3)(ctypes.addressof(memory_type), ctypes.addressof(managed), ctypes.addressof(ordinal))
    # Unlike cuPointerGetAttribute, this answers memory type 0 for memory CUDA does not know.
    if _driver.cuPointerGetAttributes(3, attributes, data, ctypes.c_void_p(ptr)) != 0:
        return  # not answered: the call itself reports what is wrong
    current = current_device()
    if memory_type.value == 0:  # pageable host memory: readable only where the device reads it
        pageable = ctypes.c_int(0)
        if _driver.cuDeviceGetAttribute(ctypes.byref(pageable), _PAGEABLE_MEMORY_ACCESS, current) != 0 \
                or not pageable.value:
            raise ValueError("satlib: the array's data (0x%x) is host memory that device %d cannot read; "
                             "move it to the GPU first" % (ptr, current))
    elif memory_type.value == _MEMORYTYPE_DEVICE and not managed.value and ordinal.value != current:
        raise ValueError("satlib: the array lies on device %d, but the current device is %d; call "
                         "satlib with device %d current (with numba.cuda.gpus[%d]: or with "
                         "cupy.cuda.Device(%d):)" % (ordinal.value, current, ordinal.value,
                                                     ordinal.value, ordinal.value))


def sync(stream, what):
    """Wait for a stream (a cudaStream_t) through the library, which may wait while another stream
    is being captured into a CUDA graph; raise if a kernel of a call without the check (wait=False,
    or a box filter) on this device timed out since the last look: its output is incomplete."""
    check(_lib.satlib_wait(stream), what)
