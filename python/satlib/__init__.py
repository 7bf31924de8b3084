"""satlib: summed-area tables (integral images) of CUDA arrays, from PyTorch, CuPy, JAX or Numba.

    sums = satlib.integral(x)                         # x: (H, W) or (B, H, W) on a GPU
    sums, squares = satlib.integral(x, squares=True)  # both tables in one pass
    means = satlib.box_filter(x, r)                   # (2r+1)^2 window, clipped at the border
    var = satlib.local_variance(x, r)

The result is an array of the caller's framework on the caller's device, written on the
caller's stream. Importing needs neither a GPU nor the shared library; a call says which is
missing. docs/library.md, section Python, has the details.
"""
import operator

from . import _arrays, _lib
from ._errors import SatlibError

__all__ = ["integral", "box_filter", "local_variance", "last_timeout", "library_version", "SatlibError"]
__version__ = "0.1.0"

SUPPORTED = ("uint8", "uint16", "int32", "float32", "float64")
# input dtype -> (default output dtype, allowed output dtypes); the pairs of satlib.h.
INTEGRAL_OUT = {
    "uint8": ("int32", ("int32", "float32")),
    "uint16": ("float64", ("float64",)),
    "int32": ("int32", ("int32",)),
    "float32": ("float32", ("float32", "float64")),
    "float64": ("float64", ("float64",)),
}
# Box filters write f32 or f64: f32 where it holds the inputs exactly enough (u8, f32 images).
BOX_OUT = {"uint8": "float32", "float32": "float32", "uint16": "float64", "int32": "float64",
           "float64": "float64"}
_INT_MAX = 2**31 - 1
_ALIASES = {"u1": "uint8", "u2": "uint16", "i4": "int32", "f4": "float32", "f8": "float64"}


def integral(x, squares=False, layout="same", out_dtype=None, *, wait=True):
    """The integral image of x, (H, W) or (B, H, W): out[b, i, j] = sum of x[b, :i+1, :j+1].

    squares=True also returns the table of x**2 (same dtype), from the same single pass:
    (sums, squares). layout="npp" gives (H+1, W+1) tables with a zero first row and column
    (NPP / OpenCV). Output dtypes: uint8 -> int32 (or out_dtype=float32), uint16 -> float64,
    int32 -> int32, float32 -> float32 (or float64), float64 -> float64. wait=True waits for the
    stream so that a kernel timeout raises SatlibError; wait=False returns at once (check later
    with last_timeout()).
    """
    a = _input(x)
    if not isinstance(squares, bool):
        raise TypeError("satlib: squares must be True or False, got %r" % (squares,))
    if layout not in ("same", "npp"):
        raise ValueError("satlib: layout must be 'same' or 'npp', got %r" % (layout,))
    npp = layout == "npp"
    default, allowed = INTEGRAL_OUT[a.dtype]
    out_type = default if out_dtype is None else _out_dtype(out_dtype, default, allowed, a.dtype)
    batch, rows, cols, in_pitch, in_stride = _geometry(a)
    if npp and max(rows, cols) + 1 > _INT_MAX:
        raise ValueError("satlib: the image is too large for the npp layout")
    lib = _ready()
    out_rows, out_cols = (rows + 1, cols + 1) if npp else (rows, cols)
    shape = (a.shape[:-2] + (out_rows, out_cols))
    with a.guard():
        stream = _stream(a, wait, "integral")
        out, out_ptr = a.alloc(shape, out_type)
        sq, sq_ptr = a.alloc(shape, out_type) if squares else (None, 0)
        sq_pitch, sq_stride = (out_cols, out_rows * out_cols) if squares else (0, 0)
        args = _lib.INTEGRAL_ARGS.pack(
            a.ptr, _lib.DTYPES[a.dtype], in_pitch, in_stride,
            out_ptr, _lib.DTYPES[out_type], out_cols, out_rows * out_cols,
            sq_ptr, sq_pitch, sq_stride, batch, rows, cols, _lib.LAYOUTS[layout])
        status = lib.satlib_integral(args, stream, 1 if wait else 0)
    if status:
        _lib.check(status, "integral")
    finish = a.finish
    if finish is None:
        return (out, sq) if squares else out
    return (finish(out), finish(sq)) if squares else finish(out)


def box_filter(x, r, op="mean", out_dtype=None, *, wait=True):
    """The sum or mean of x over the (2r+1) x (2r+1) window around each pixel, clipped at the
    border (a mean divides by the pixels inside). Same shape as x; float32 for uint8 and float32
    input, else float64 (out_dtype chooses). wait: as for integral()."""
    if op not in ("mean", "sum"):
        raise ValueError("satlib: op must be 'mean' or 'sum', got %r" % (op,))
    return _box(x, r, op, out_dtype, "box_filter", wait)


def local_variance(x, r, out_dtype=None, *, wait=True):
    """The variance of x over the (2r+1) x (2r+1) window around each pixel, clipped at the
    border (population variance of the pixels inside). Built on the sums and squared sums."""
    return _box(x, r, "variance", out_dtype, "local_variance", wait)


def last_timeout():
    """True if a kernel of the library timed out since the last call (its output is incomplete):
    one launched with wait=False, unless a box filter's wait raised for it since, or one whose
    call already raised SatlibError."""
    return bool(_ready().satlib_last_timeout())


def library_version():
    """The version string of the loaded shared library."""
    return _lib.load().satlib_version().decode()


# ---- helpers -----------------------------------------------------------------------------------
def _input(x):
    a = _arrays.wrap(x)
    if a.dtype not in SUPPORTED:
        raise TypeError("satlib: unsupported dtype %s; supported: %s" % (a.dtype, ", ".join(SUPPORTED)))
    if len(a.shape) not in (2, 3):
        raise ValueError("satlib: expected a 2-D (H, W) or 3-D (B, H, W) array, got shape %s"
                         % (a.shape,))
    if 0 in a.shape:
        raise ValueError("satlib: the array is empty (shape %s)" % (a.shape,))
    if max(a.shape) > _INT_MAX:
        raise ValueError("satlib: a dimension of %s is above 2^31 - 1" % (a.shape,))
    if a.ptr == 0:
        raise ValueError("satlib: the array has a null data pointer")
    if a.ptr % _arrays.ITEMSIZE[a.dtype]:
        raise ValueError("satlib: the data pointer is not aligned to its %s elements" % a.dtype)
    return a


def _geometry(a):
    """(batch, rows, cols, row pitch, batch stride) in elements. Views pass as they are when their
    columns are contiguous; anything else is refused (the caller decides whether to copy)."""
    batch, rows, cols = (1,) + a.shape if len(a.shape) == 2 else a.shape
    s_batch, s_row, s_col = (0,) + a.strides if len(a.strides) == 2 else a.strides
    if cols > 1 and s_col != 1:
        raise ValueError("satlib: the columns are not contiguous (column stride %d elements); pass a "
                         "copy with unit column stride, e.g. x.contiguous() or cupy.ascontiguousarray(x)"
                         % s_col)
    if rows == 1:
        s_row = cols
    if s_row < cols:
        raise ValueError("satlib: rows overlap or run backwards (row stride %d elements for %d columns);"
                         " pass a contiguous copy" % (s_row, cols))
    if batch == 1:
        s_batch = rows * s_row
    if s_batch < 0:
        raise ValueError("satlib: the batch runs backwards (batch stride %d elements); pass a "
                         "contiguous copy" % s_batch)
    return batch, rows, cols, s_row, s_batch


def _dtype_name(d):
    """A dtype given as a string, numpy/CuPy/JAX dtype or scalar type, or torch dtype -> its name."""
    if isinstance(d, str):
        name = d
    elif type(d).__module__.split(".")[0] == "torch":
        name = str(d).replace("torch.", "")
    elif isinstance(getattr(d, "name", None), str):
        name = d.name
    elif hasattr(d, "dtype") and isinstance(getattr(d.dtype, "name", None), str):
        name = d.dtype.name
    elif isinstance(d, type):
        name = d.__name__
    else:
        name = str(d)
    return _ALIASES.get(name, name)


def _out_dtype(requested, default, allowed, in_dtype):
    if requested is None:
        return default
    name = _dtype_name(requested)
    if name not in allowed:
        raise TypeError("satlib: out_dtype %s is not available for %s input; choose %s"
                        % (name, in_dtype, " or ".join(allowed)))
    return name


def _ready():
    """The loaded library on a machine with a CUDA device, else SatlibError saying what is missing."""
    lib = _lib._lib
    if lib is None or _lib._device_error is not None:  # the first call, or no device
        lib = _lib.load()
        missing = _lib.device_error()
        if missing:
            raise SatlibError(missing)
    return lib


def _stream(a, wait, what):
    """The caller's stream; with wait, refused first if it is being captured into a CUDA graph
    (a capture cannot wait), before any output is allocated."""
    stream = a.stream()
    if wait:
        _lib.refuse_wait_in_capture(stream, what)
    return stream


def _box(x, r, op, out_dtype, what, wait):
    a = _input(x)
    if isinstance(r, bool):
        raise TypeError("satlib: r must be an integer radius, got %r" % (r,))
    try:
        r = operator.index(r)
    except TypeError:
        raise TypeError("satlib: r must be an integer radius, got %r" % (r,)) from None
    if not 0 <= r <= _INT_MAX:
        raise ValueError("satlib: r must be between 0 and 2^31 - 1, got %d" % r)
    out_type = _out_dtype(out_dtype, BOX_OUT[a.dtype], ("float32", "float64"), a.dtype)
    batch, rows, cols, in_pitch, in_stride = _geometry(a)
    lib = _ready()
    with a.guard():
        stream = _stream(a, wait, what)
        out, out_ptr = a.alloc(a.shape, out_type)
        status = lib.satlib_box(a.ptr, _lib.DTYPES[a.dtype], in_pitch, in_stride,
                                out_ptr, _lib.DTYPES[out_type], cols, rows * cols,
                                batch, rows, cols, r, _lib.BOX_OPS[op], stream)
        if status:
            _lib.check(status, what)
        if wait:  # satlib_box does not wait: satlib_wait waits for the stream, then looks for a timeout
            _lib.sync(stream, what)
    return out if a.finish is None else a.finish(out)
