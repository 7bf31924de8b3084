"""CUDA arrays of any framework seen as (pointer, dtype, shape, strides in elements, stream), and
outputs allocated in the caller's framework.

Frameworks are recognised by the module of the array's type, so none is imported unless the
caller passed one of its arrays: PyTorch, CuPy, JAX (through DLPack into PyTorch or CuPy, and
back), Numba; any other object with __cuda_array_interface__ (v2/v3) or a CUDA __dlpack__.
"""
import contextlib
import sys

from . import _lib

# __cuda_array_interface__ typestr (the kind and size; byte order checked apart) -> dtype name.
_TYPESTR = {"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64", "i1": "int8", "i2": "int16",
            "i4": "int32", "i8": "int64", "f2": "float16", "f4": "float32", "f8": "float64",
            "b1": "bool", "c8": "complex64", "c16": "complex128"}
ITEMSIZE = {"uint8": 1, "uint16": 2, "int32": 4, "float32": 4, "float64": 8}
_DLPACK_CUDA = (2, 13)  # kDLCUDA, kDLCUDAManaged


def _cannot(x, why):
    return TypeError("satlib: %s, got %s" % (why, _type_name(x)))


def _type_name(x):
    t = type(x)
    return "%s.%s" % (t.__module__, t.__qualname__) if t.__module__ != "builtins" else t.__qualname__


_NO_SWITCH = contextlib.nullcontext()  # stateless: one for every call


def _no_switch():
    return _NO_SWITCH


class Array:
    """One caller's array. stream() and alloc() touch the framework (and the GPU) only when called."""
    __slots__ = ("kind", "ptr", "dtype", "shape", "strides", "alloc", "stream", "guard", "finish")

    def __init__(self, kind, ptr, dtype, shape, strides, alloc, stream, guard=None, finish=None):
        self.kind = kind
        self.ptr = ptr
        self.dtype = dtype            # a name: "float32", "uint8", ...
        self.shape = tuple(shape)
        self.strides = tuple(strides)  # in elements
        self.alloc = alloc            # alloc(shape, dtype name) -> (array, device pointer), under guard()
        self.stream = stream          # stream() -> cudaStream_t as an int (0: legacy default)
        self.guard = guard or _no_switch  # guard() -> context on the array's device
        self.finish = finish          # out array -> what the caller gets back (None: the array)


_TENSOR_TYPES = set()  # the torch.Tensor types seen (Tensor, Parameter, ...): the common case first


def wrap(x):
    """The Array for x; TypeError with one line if x is not a CUDA array."""
    if type(x) in _TENSOR_TYPES:
        return _torch(x)
    root = type(x).__module__.split(".")[0]
    if root == "torch" and _is_tensor(x):
        if len(_TENSOR_TYPES) < 16:
            _TENSOR_TYPES.add(type(x))
        return _torch(x)
    if root in ("cupy", "cupy_backends") and hasattr(x, "data") and hasattr(x, "device"):
        return _cupy(x)
    if root in ("jax", "jaxlib"):
        return _jax(x)
    if _has_cai(x):
        return _cai(x, numba=root in ("numba", "numba_cuda"))
    if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        device_type = int(x.__dlpack_device__()[0])
        if device_type not in _DLPACK_CUDA:
            raise _cannot(x, "expected a CUDA array, not one in host memory (DLPack device type %d);"
                             " move it to the GPU first" % device_type)
        return _via_dlpack(x, finish=None)
    raise _cannot(x, "expected a CUDA array (PyTorch, CuPy, JAX, Numba, or any object with "
                     "__cuda_array_interface__ or __dlpack__)")


def _has_cai(x):
    try:
        return hasattr(x, "__cuda_array_interface__")
    except Exception:  # a property that raises (e.g. a CPU array of some framework)
        return False


def _is_tensor(x):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(x, torch.Tensor)


# ---- PyTorch ---------------------------------------------------------------------------------
class _TorchApi:
    """What a call needs from torch, looked up once: dtypes both ways, and the current device and
    stream from torch._C (what torch's own compiled code calls; torch.cuda.current_stream()
    builds a Stream object, microseconds per call), with the public calls as the fallback."""

    def __init__(self, torch):
        self.torch = torch
        self.empty = torch.empty
        self.dtypes = {n: getattr(torch, n) for n in ITEMSIZE if hasattr(torch, n)}  # name -> dtype
        self.names = {d: n for n, d in self.dtypes.items()}                          # dtype -> name
        self.raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or \
            (lambda index: torch.cuda.current_stream(index).cuda_stream)
        self.current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device


_torch_api = None


def _torch(x):
    global _torch_api
    api = _torch_api
    if api is None:
        import torch
        api = _torch_api = _TorchApi(torch)
    if not x.is_cuda:
        raise _cannot(x, "expected a CUDA tensor, not one on %s; move it with x.cuda()" % x.device)
    device = x.device
    index = device.index if device.index is not None else api.torch.cuda.current_device()
    empty, dtypes = api.empty, api.dtypes

    def alloc(shape, dtype):
        out = empty(shape, dtype=dtypes[dtype], device=device)
        return out, out.data_ptr()

    raw_stream, current_device = api.raw_stream, api.current_device

    def guard():  # switching devices only when the tensor is on another one
        return _NO_SWITCH if current_device() == index else api.torch.cuda.device(index)

    dtype = api.names.get(x.dtype) or str(x.dtype).replace("torch.", "")
    return Array("torch", x.data_ptr(), dtype, x.shape, x.stride(), alloc,
                 stream=lambda: raw_stream(index), guard=guard)


# ---- CuPy ------------------------------------------------------------------------------------
def _cupy(x):
    import cupy
    itemsize = x.dtype.itemsize
    if any(s % itemsize for s in x.strides):
        raise ValueError("satlib: the array's strides %s are not whole elements" % (x.strides,))
    device_id = x.device.id

    def alloc(shape, dtype):  # under guard(): on the array's device
        out = cupy.empty(shape, dtype=dtype)
        return out, out.data.ptr

    def guard():  # switching devices only when the array is on another one
        return _NO_SWITCH if cupy.cuda.runtime.getDevice() == device_id else cupy.cuda.Device(device_id)

    return Array("cupy", x.data.ptr, x.dtype.name, x.shape, [s // itemsize for s in x.strides], alloc,
                 stream=lambda: cupy.cuda.get_current_stream(device_id).ptr, guard=guard)


# ---- JAX: read and returned through DLPack (JAX arrays cannot be written in place) -------------
def _jax(x):
    import jax
    try:
        platforms = {d.platform for d in x.devices()}
    except AttributeError:
        raise _cannot(x, "expected a concrete JAX array (not a tracer inside jit)") from None
    if platforms != {"gpu"}:
        raise _cannot(x, "expected a JAX array on one GPU, not on %s; use jax.device_put(x, "
                         "jax.devices('gpu')[0])" % ",".join(sorted(platforms)))
    x.block_until_ready()

    def finish(out):
        out_sync(out)  # JAX reads the output on its own stream
        return jax.dlpack.from_dlpack(out)

    return _via_dlpack(x, finish=finish)


def out_sync(out):
    """Wait until the output of a PyTorch or CuPy stream is written (before handing it on)."""
    mod = type(out).__module__.split(".")[0]
    if mod == "torch":
        import torch
        torch.cuda.current_stream(out.device).synchronize()
    else:
        import cupy
        cupy.cuda.get_current_stream().synchronize()


def _via_dlpack(x, finish):
    """Read a DLPack producer through PyTorch (else CuPy): both pass their current stream to
    x.__dlpack__(stream=...), so the producer orders its work before ours."""
    try:
        import torch
        a = _torch(torch.from_dlpack(x))
    except ImportError:
        try:
            import cupy
        except ImportError:
            raise _cannot(x, "reading a DLPack array needs PyTorch or CuPy installed") from None
        a = _cupy(cupy.from_dlpack(x))
    a.kind = "dlpack"
    if finish is not None:
        a.finish = finish
    return a


# ---- __cuda_array_interface__ (Numba and any other producer) ---------------------------------
def _cai(x, numba):
    cai = x.__cuda_array_interface__
    try:
        shape = tuple(map(int, cai["shape"]))
        typestr = str(cai["typestr"])
        ptr = int(cai["data"][0] or 0)
    except (KeyError, TypeError, ValueError, IndexError):
        raise ValueError("satlib: %s has a malformed __cuda_array_interface__ (needs shape, typestr, "
                         "data)" % _type_name(x)) from None
    if cai.get("mask") is not None:
        raise ValueError("satlib: masked arrays (__cuda_array_interface__ mask) are not supported")
    dtype, size = _CAI_TYPES.get(typestr) or _cai_type(typestr)
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        if len(shape) == 2:
            strides = (max(shape[1], 1), 1)
        else:
            strides, step = [], 1
            for n in reversed(shape):
                strides.append(step)
                step *= max(n, 1)
            strides.reverse()
    else:
        if size == 0 or any(int(s) % size for s in strides):
            raise ValueError("satlib: the array's strides %s are not whole elements" % (tuple(strides),))
        strides = [int(s) // size for s in strides]
    if len(strides) != len(shape):
        raise ValueError("satlib: __cuda_array_interface__ has %d strides for %d dimensions"
                         % (len(strides), len(shape)))
    # v3: the producer's stream (None: no ordering needed; 1 and 2 are the legacy and per-thread
    # default streams, which the runtime accepts as cudaStream_t values as they are).
    producer_stream = cai.get("stream")
    stream = int(producer_stream) if producer_stream is not None else 0
    alloc = _numba_alloc if numba else _any_alloc

    def guard():  # no device to switch to: the pointer must be the current device's (checked)
        _lib.check_pointer(ptr)
        return _NO_SWITCH
    return Array("numba" if numba else "cai", ptr, dtype, shape, strides, alloc, stream=lambda: stream,
                 guard=guard)


_CAI_TYPES = {}  # typestr -> (dtype name, item size), for the typestrs seen (at most 64)


def _cai_type(typestr):
    """(dtype name, item size in bytes; 0 if the typestr has none) of a typestr; TypeError for
    big-endian data of more than one byte."""
    dtype = _TYPESTR.get(typestr[1:], typestr)
    if typestr[:1] == ">" and dtype not in ("uint8",):
        raise TypeError("satlib: big-endian data (%s) is not supported" % typestr)
    size = int(typestr[2:]) if typestr[2:].isdigit() else 0
    if len(_CAI_TYPES) < 64:
        _CAI_TYPES[typestr] = (dtype, size)
    return dtype, size


def _numba_alloc(shape, dtype):
    import numpy
    from numba import cuda
    out = cuda.device_array(shape, dtype=numpy.dtype(dtype))
    return out, int(out.__cuda_array_interface__["data"][0])


def _any_alloc(shape, dtype):
    """An output for a producer we cannot allocate in: a CuPy array, else a PyTorch tensor."""
    try:
        import cupy
        out = cupy.empty(shape, dtype=dtype)
        return out, out.data.ptr
    except ImportError:
        pass
    try:
        import torch
    except ImportError:
        raise TypeError("satlib: an output for this array needs CuPy or PyTorch installed") from None
    out = torch.empty(shape, dtype=getattr(torch, dtype), device="cuda")
    return out, out.data_ptr()
