"""Creation functions (the standard's 16)."""
from __future__ import annotations

import builtins
import math
import operator
import reprlib

import numpy as np

from . import _dtypes as _dt
from . import _memory
from ._array import Array, copy_of, wrap, wrap_foreign
from ._device import check_device
from ._helpers import as_count, check_alloc, check_choice, check_copy, check_int, names_its_errors

__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full",
           "full_like", "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros",
           "zeros_like",
           # extensions beyond the standard, with NumPy's names and signatures
           "diag", "logspace"]

_SCALARS = (builtins.bool, int, float, complex)


def _normalize_dtype(dtype, func, allow_none=True):
    return _dt.normalize(dtype, func, allow_none=allow_none)


def _shape(shape, func):
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, builtins.bool) or (
            isinstance(shape, Array) and shape.ndim == 0):  # (a 0-d integer array: as NumPy)
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{func}: 'shape' must be an int or a tuple of ints, got "
                        f"{type(shape).__name__}")
    out = []
    for n in shape:
        if isinstance(n, builtins.bool):
            raise TypeError(f"{func}: 'shape' entries must be ints, got {shape!r}")
        try:
            n = operator.index(n)
        except TypeError:
            raise TypeError(f"{func}: 'shape' entries must be ints, got {shape!r}") from None
        if n < 0:
            raise ValueError(f"{func}: 'shape' entries must be >= 0, got {tuple(shape)}")
        out.append(n)
    return tuple(out)


def _np_result(nd, func):
    if nd.dtype not in _dt._BY_NP:
        raise TypeError(f"{func}: cannot make an array of NumPy dtype {nd.dtype}; flexarray "
                        f"dtypes are {', '.join(d.name for d in _dt.ALL)}")
    return nd


def _infer_dtype(obj):
    """The default dtype of nested Python scalars (bool < int < float < complex); with
    flexarray arrays among them, their promotion (Python scalars weak); with NumPy scalars
    or arrays (beyond the Python float/complex subclasses) but no flexarray array, None:
    NumPy infers it, as ``np.asarray`` and array-api-strict do (``[np.float32(1.5), 2]``
    is float64)."""
    kinds = set()
    numpy_kinds = set()

    def walk(o):
        if isinstance(o, Array):
            kinds.add(o._dtype)
        elif isinstance(o, (list, tuple)):
            for e in o:
                walk(e)
        elif isinstance(o, np.ndarray) or (isinstance(o, np.generic) and
                                           not isinstance(o, (float, complex))):
            numpy_kinds.add(o.dtype)
        else:
            kinds.add(type(o))
    walk(obj)
    arrays = [k for k in kinds if isinstance(k, np.dtype)]
    if numpy_kinds and not arrays:
        return None  # NumPy values beside Python scalars: NumPy's own inference
    arrays += [_dt.from_np(k) for k in numpy_kinds]
    if arrays:
        r = arrays[0]
        for d in arrays[1:]:
            r = _dt.promote(r, d)
        for k in kinds - set(arrays):
            r = _dt.promote(r, _dt.scalar_dtype(k(0), r))
        return r
    for t, d in ((complex, _dt.default_complex), (float, _dt.default_float),
                 (int, _dt.default_int)):
        if any(issubclass(k, t) and not issubclass(k, builtins.bool) for k in kinds):
            return d
    if kinds and all(issubclass(k, (builtins.bool, np.bool_)) for k in kinds):
        return _dt.bool
    return None


_FLAT = {float: _dt.default_float, int: _dt.default_int}
_INT64_MIN = int(np.iinfo(_dt.default_int).min)
_INT64_MAX = int(np.iinfo(_dt.default_int).max)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """Convert ``obj`` to an array.

    A flexarray array is returned as it is (``copy`` None or False) or as an O(1) lazy copy
    (``copy=True``: private memory from its first write on). A NumPy array (or any
    buffer/DLPack/``__array__`` object) is shared when ``copy`` is None or False, as NumPy's
    ``asarray`` shares it: writes to either are seen by both. ``copy=True`` never shares.
    flexarray has no date or time dtypes: a NumPy ``datetime64``/``timedelta64`` array
    (without ``dtype``) is returned as the NumPy array it is (a copy with ``copy=True``), as
    ``result_type`` and ``where`` hand such values to NumPy (xarray converts a time
    coordinate with the data's ``asarray`` in ``idxmax``/``idxmin``).
    """
    if dtype is None and device is None and copy is None:  # the common cases, without the
        if type(obj) is Array:                              # checks below (~0.15-0.4 us less)
            return obj
        if type(obj) is np.ndarray and obj.dtype in _dt._BY_NP:
            return wrap_foreign(obj)  # shared, as NumPy's asarray shares it
    if dtype is None and device is None and copy is not False:  # Python scalars (~2-4 us
        t = type(obj)                                           # less than the checks)
        if t is float:
            return wrap(np.array(obj, _dt.default_float))
        if t is bool:
            return wrap(np.array(obj, _dt.bool))
        if t is int and _INT64_MIN <= obj <= _INT64_MAX:
            return wrap(np.array(obj, _dt.default_int))
    if type(obj) is np.ndarray and obj.dtype.kind in "mM" and dtype is None and device is None:
        return obj.copy() if copy else obj  # NumPy's dates and times stay NumPy's (below)
    dtype = _normalize_dtype(dtype, "asarray")
    check_device(device, "asarray")
    check_copy(copy, "asarray")
    if isinstance(obj, Array):
        if dtype is None or dtype is obj._dtype:
            return copy_of(obj) if copy else obj
        if copy is False:
            raise ValueError(f"asarray: converting {obj._dtype} to {dtype} needs a copy, but "
                             f"copy=False")
        _dt.check_complex_cast(obj._dtype, dtype, "asarray")
        return wrap(obj._arr.astype(dtype))
    if isinstance(obj, np.ndarray) or (hasattr(obj, "__array__") and
                                       not isinstance(obj, (list, tuple))):
        try:
            return _of_numpy(np.asarray(obj), dtype, copy)
        except TypeError:  # (torch's bfloat16 has no __array__: DLPack below takes it)
            if not hasattr(obj, "__dlpack__") or isinstance(obj, np.ndarray):
                raise
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj, copy=copy) if dtype is None else asarray(
            from_dlpack(obj, copy=copy), dtype=dtype, copy=copy)
    if (nd := _buffer_array(obj)) is not None:  # the buffer protocol: its values
        return _of_numpy(nd, dtype, copy)
    if copy is False:
        raise ValueError("asarray: copy=False needs an object whose memory can be shared "
                         f"(an array), got {type(obj).__name__}")
    if dtype is None and type(obj) is list and obj and (t := type(obj[0])) in _FLAT:
        # a flat list of Python floats or ints: ~2 us instead of ~8 us of nested walks
        if all(type(e) is t for e in obj) and (t is float or _INT64_MIN <= min(obj) and
                                               max(obj) <= _INT64_MAX):
            return wrap(np.array(obj, _FLAT[t]))
    if not isinstance(obj, _SCALARS + (list, tuple, np.generic)):
        raise TypeError(f"asarray: Unsupported input of type {type(obj).__name__} "
                        f"({reprlib.repr(obj)}); expected an array, a Python scalar or a "
                        f"nested sequence of them")
    if dtype is None:
        dtype = _infer_dtype(obj) if not isinstance(obj, np.generic) else _dt.from_np(obj.dtype)
    if isinstance(obj, (list, tuple)):
        obj = _unwrap_nested(obj)
    if dtype is not None and _dt.is_integer(dtype):
        _check_int_range(obj, dtype)
    try:
        nd = np.array(obj, dtype=None if dtype is None else dtype)
    except OverflowError as e:
        raise OverflowError(f"asarray: {e}") from None
    except (ValueError, TypeError) as e:
        raise ValueError(f"asarray: cannot make an array from the given nested sequence "
                         f"({e})") from None
    if nd.dtype == object:
        raise ValueError("asarray: nested sequences must be rectangular and hold numbers")
    return wrap(_np_result(nd, "asarray"))


def _of_numpy(nd, dtype, copy):
    """``asarray`` of NumPy array ``nd`` (another library's memory): shared unless ``copy``
    or a conversion to ``dtype`` asks for a copy."""
    nd = _np_result(nd, "asarray")
    if dtype is not None and nd.dtype != dtype:
        if copy is False:
            raise ValueError(f"asarray: converting {nd.dtype} to {dtype} needs a copy, "
                             f"but copy=False")
        _dt.check_complex_cast(nd.dtype, dtype, "asarray")
        return wrap(nd.astype(dtype))
    return wrap(np.array(nd, copy=True)) if copy else wrap_foreign(nd)  # (order K)


def _buffer_array(obj):
    """A NumPy view of an object's buffer, by its format and shape (``memoryview``,
    ``array.array``, ...; ``bytes``/``bytearray``: uint8), or None when ``obj`` has no
    buffer. The values convert to another dtype, never the bytes."""
    if isinstance(obj, (bytes, bytearray)):
        return np.frombuffer(obj, np.uint8)
    if isinstance(obj, (list, tuple, int, float, complex, str)):
        return None
    try:
        view = memoryview(obj)
    except TypeError:
        return None
    try:
        return np.asarray(view)
    except (ValueError, TypeError) as e:
        raise TypeError(f"asarray: a buffer of format {view.format!r} that NumPy cannot read "
                        f"({e})") from None


def _unwrap_nested(obj):
    return [(_unwrap_nested(o) if isinstance(o, (list, tuple)) else
             (o._arr if isinstance(o, Array) else o)) for o in obj]


def _check_int_range(obj, dtype):
    info = np.iinfo(dtype)

    def walk(o):
        if isinstance(o, list):
            for e in o:
                walk(e)
        elif type(o) is int and not info.min <= o <= info.max:
            raise OverflowError(f"asarray: the Python int {o} is out of range for {dtype} "
                                f"[{info.min}, {info.max}]")
    walk(obj if isinstance(obj, list) else [obj])


def from_dlpack(x, /, *, device=None, copy=None):
    """An array from any object with ``__dlpack__``, sharing its memory unless copy=True.
    DLPack's bfloat16 (torch's ``torch.bfloat16``) is taken as flexarray's bfloat16."""
    check_copy(copy, "from_dlpack")
    check_device(device, "from_dlpack")
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: 'x' must support the DLPack protocol (__dlpack__), got "
                        f"{type(x).__name__}")
    if isinstance(x, Array):
        return copy_of(x) if copy else x
    try:
        try:
            nd = np.from_dlpack(x, copy=copy)
        except TypeError:
            nd = np.from_dlpack(x)
            if copy:
                nd = nd.copy()
    except (BufferError, RuntimeError) as e:  # (NumPy's RuntimeError: a dtype it lacks)
        try:  # DLPack's bfloat16 (torch's), which NumPy does not read
            nd = _dt.bfloat16_from_dlpack(x)
        except (BufferError, RuntimeError, TypeError, ValueError):
            nd = None
        if nd is None:  # the exporter's refusal, with the call named
            raise BufferError(f"from_dlpack: {e}") from None
        if copy:
            nd = nd.copy()
    _np_result(nd, "from_dlpack")
    return wrap(nd) if copy else wrap_foreign(nd)


def _filled(func, shape, dtype, device, fill, like=None):
    dtype = _normalize_dtype(dtype, func)
    check_device(device, func)
    if like is not None:
        if not isinstance(like, Array):
            raise TypeError(f"{func}: 'x' must be a flexarray array, got {type(like).__name__}")
        dtype = like._dtype if dtype is None else dtype
        shape = like.shape if shape is None else _shape(shape, func)
    else:
        shape = _shape(shape, func)
    dtype = _dt.default_float if dtype is None else dtype
    check_alloc(shape, dtype.itemsize, func, lambda: f"'shape'={tuple(shape)} of dtype {dtype}")
    if fill is None:
        return wrap(_memory.empty(shape, dtype))
    if type(fill) is int and fill == 0:  # calloc: the system hands out zeroed pages lazily
        return wrap(np.zeros(shape, dtype))
    out = _memory.empty(shape, dtype)
    out.fill(fill)
    return wrap(out)


def empty(shape, *, dtype=None, device=None):
    """An array of ``shape`` whose elements are unspecified."""
    return _filled("empty", shape, dtype, device, None)


def zeros(shape, *, dtype=None, device=None):
    """An array of ``shape`` filled with zeros (default dtype float64)."""
    return _filled("zeros", shape, dtype, device, 0)


def ones(shape, *, dtype=None, device=None):
    """An array of ``shape`` filled with ones (default dtype float64)."""
    return _filled("ones", shape, dtype, device, 1)


def empty_like(x, /, *, dtype=None, device=None, shape=None):
    """An unfilled array of ``x``'s shape and dtype. ``shape``: NumPy's keyword (an
    extension; cubed passes it), another shape."""
    return _filled("empty_like", shape, dtype, device, None, like=x)


def zeros_like(x, /, *, dtype=None, device=None, shape=None):
    """A zero-filled array of ``x``'s shape and dtype. ``shape``: NumPy's keyword (an
    extension; cubed passes it), another shape."""
    return _filled("zeros_like", shape, dtype, device, 0, like=x)


def ones_like(x, /, *, dtype=None, device=None, shape=None):
    """A one-filled array of ``x``'s shape and dtype. ``shape``: NumPy's keyword (an
    extension; cubed passes it), another shape."""
    return _filled("ones_like", shape, dtype, device, 1, like=x)


def _fill_dtype(fill_value, dtype, func):
    if not isinstance(fill_value, _SCALARS):
        if isinstance(fill_value, Array) and fill_value.ndim == 0:
            fill_value = fill_value._arr[()].item()
        else:
            raise TypeError(f"{func}: 'fill_value' must be a Python scalar, got "
                            f"{type(fill_value).__name__}")
    if dtype is None:
        dtype = _dt.scalar_dtype(fill_value)
    elif _dt.is_bool(dtype) and type(fill_value) is not builtins.bool:
        if type(fill_value) is not int:
            raise TypeError(f"{func}: a {type(fill_value).__name__} fill_value cannot fill a "
                            f"bool array; allowed: a bool, or an int (nonzero is True)")
        fill_value = fill_value != 0  # (NumPy, torch and array-api-strict take an int)
    elif (_dt.is_integer(dtype) and isinstance(fill_value, (float, complex))) or (
            _dt.is_real_floating(dtype) and isinstance(fill_value, complex)):
        raise TypeError(f"{func}: a {type(fill_value).__name__} fill_value cannot fill a "
                        f"{dtype} array without losing data")
    if _dt.is_integer(dtype) and type(fill_value) is int:
        info = np.iinfo(dtype)
        if not info.min <= fill_value <= info.max:
            raise OverflowError(f"{func}: fill_value={fill_value} is out of range for {dtype} "
                                f"[{info.min}, {info.max}]")
    elif type(fill_value) is int and _dt.is_floating(dtype):
        fill_value = _dt.scalar_operand(func, fill_value, dtype)  # (ml_dtypes: no Python int)
    return fill_value, dtype


def full(shape, fill_value, *, dtype=None, device=None):
    """An array of ``shape`` filled with ``fill_value`` (dtype inferred from it if None)."""
    dtype = _normalize_dtype(dtype, "full")
    fill_value, dtype = _fill_dtype(fill_value, dtype, "full")
    return _filled("full", shape, dtype, device, fill_value)


def full_like(x, /, fill_value, *, dtype=None, device=None, shape=None):
    """An array of ``x``'s shape filled with ``fill_value``. ``shape``: NumPy's keyword (an
    extension; cubed passes it), another shape."""
    if not isinstance(x, Array):
        raise TypeError(f"full_like: 'x' must be a flexarray array, got {type(x).__name__}")
    dtype = _normalize_dtype(dtype, "full_like")
    fill_value, dtype = _fill_dtype(fill_value, x._dtype if dtype is None else dtype,
                                    "full_like")
    return _filled("full_like", shape, dtype, device, fill_value, like=x)


def _number(v, func, name, kinds=(int, float)):
    """A Python number from ``v``: a Python or NumPy scalar, or a 0-d flexarray or NumPy
    array (as NumPy and torch take them); TypeError naming the argument otherwise."""
    if isinstance(v, (Array, np.ndarray)) and v.ndim == 0 or isinstance(v, np.generic):
        v = (v._arr if isinstance(v, Array) else np.asarray(v))[()].item()
    if isinstance(v, builtins.bool) or not isinstance(v, kinds):
        allowed = " or ".join(k.__name__ for k in kinds)
        raise TypeError(f"{func}: '{name}' must be a real number ({allowed}, a NumPy scalar "
                        f"or a 0-d array), got {v!r}")
    return v


def _real_scalar(v, func, name):
    return _number(v, func, name)


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in ``[start, stop)`` (like Python's range; floats allowed)."""
    dtype = _normalize_dtype(dtype, "arange")
    check_device(device, "arange")
    start = _real_scalar(start, "arange", "start")
    if stop is None:
        start, stop = 0, start
    stop = _real_scalar(stop, "arange", "stop")
    step = _real_scalar(step, "arange", "step")
    for name, v in (("start", start), ("stop", stop), ("step", step)):
        if type(v) is float and not math.isfinite(v):
            raise ValueError(f"arange: '{name}' must be finite, got {v}")
    if step == 0:
        raise ValueError("arange: 'step' must not be 0")
    if dtype is None:
        dtype = (_dt.default_int if all(type(v) is int for v in (start, stop, step))
                 else _dt.default_float)
    _dt.check_dtype("arange", "dtype", dtype, "numeric")
    if _dt.is_integer(dtype):  # (NumPy casts a fractional step to 0: a range of repeats)
        for name, v in (("start", start), ("step", step)):
            if type(v) is float and not v.is_integer():
                raise ValueError(f"arange: an integer dtype ({dtype}) needs an integral "
                                 f"'{name}', got {v}; make a floating range and convert "
                                 f"it with astype()")
        start, step = int(start), int(step)
    if all(type(v) is int for v in (start, stop, step)):
        n = builtins.max(-((start - stop) // step), 0)  # exact, whatever the magnitudes
    else:
        try:
            n = builtins.max(math.ceil((stop - start) / step), 0)
        except OverflowError:
            raise OverflowError(f"arange: start={start}, stop={stop}, step={step} are beyond "
                                f"the float64 range") from None
    check_alloc((n,), dtype.itemsize, "arange",
                lambda: f"the range from {start} to {stop} by {step} ({n} elements of {dtype})")
    if _dt.is_integer(dtype):
        info = np.iinfo(dtype)
        last = start + (n - 1) * step if n else start
        if n and not (info.min <= start <= info.max and info.min <= last <= info.max):
            raise OverflowError(f"arange: values from {start} to {last} do not fit in {dtype}")
        if n <= 1:  # (start, stop or step may be beyond the dtype then)
            return wrap(np.full(n, start, dtype) if n else np.empty(0, dtype))
        return wrap(np.arange(n, dtype=np.int64).astype(dtype) * dtype.type(step)
                    + dtype.type(start))
    return wrap((start + np.arange(n, dtype=np.float64) * step).astype(dtype))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (real or complex)."""
    dtype = _normalize_dtype(dtype, "linspace")
    check_device(device, "linspace")
    start = _number(start, "linspace", "start", (int, float, complex))
    stop = _number(stop, "linspace", "stop", (int, float, complex))
    num = check_int(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"linspace: 'num' must be a non-negative int, got {num}")
    check_alloc((num,), 16, "linspace", lambda: f"'num'={num} samples")
    try:  # Python ints beyond int64 would make NumPy compute in object dtype
        start, stop = (v if isinstance(v, complex) else float(v) for v in (start, stop))
    except OverflowError:
        raise OverflowError(f"linspace: 'start'={start} or 'stop'={stop} is beyond the "
                            f"float64 range") from None
    if not isinstance(endpoint, builtins.bool):
        raise TypeError(f"linspace: 'endpoint' must be a bool, got {endpoint!r}")
    is_complex = isinstance(start, complex) or isinstance(stop, complex)
    if dtype is None:
        dtype = _dt.default_complex if is_complex else _dt.default_float
    if is_complex:
        _dt.check_dtype("linspace", "dtype", dtype, "complex floating",
                        "a complex 'start' or 'stop' needs a complex dtype")
    _dt.check_dtype("linspace", "dtype", dtype, "numeric")
    if _dt.is_integer(dtype):  # NumPy's rule: float64 samples rounded towards -inf
        r = np.floor(np.linspace(start, stop, num, endpoint=endpoint, dtype=np.float64))
        return wrap(r.astype(dtype))
    wide = np.complex128 if _dt.is_complex(dtype) else np.float64
    r = np.linspace(start, stop, num, endpoint=endpoint, dtype=wide)
    return wrap(r.astype(dtype))


@names_its_errors
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, *, device=None):
    """Extension (NumPy's ``logspace``): ``base ** linspace(start, stop, num)``."""
    dtype = _normalize_dtype(dtype, "logspace")
    check_device(device, "logspace")
    base = _number(base, "logspace", "base", (int, float))
    exponents = linspace(start, stop, num, endpoint=endpoint,
                         dtype=None if dtype is None or not _dt.is_complex(dtype) else dtype)
    with np.errstate(all="ignore"):
        r = np.power(float(base), exponents._arr)
    return wrap(r if dtype is None else r.astype(dtype))


def diag(v, /, k=0):
    """Extension (NumPy's ``diag``): a 1-D ``v`` placed on the ``k``-th diagonal of a new
    square 2-D array, or the ``k``-th diagonal of a 2-D ``v`` as a read-only view (NumPy's
    rule: write to ``linalg.diagonal``'s copy instead)."""
    from ._array import view_of
    if not isinstance(v, Array):
        raise TypeError(f"diag: 'v' must be a flexarray array, got {type(v).__name__}")
    if isinstance(k, builtins.bool) or not isinstance(k, int):
        raise TypeError(f"diag: 'k' must be an int, got {k!r}")
    if v.ndim == 1:
        return wrap(np.diag(v._arr, k))
    if v.ndim == 2:
        return view_of(v, np.diagonal(v._arr, k), overlapping=True)
    raise ValueError(f"diag: 'v' must be 1-D or 2-D, got shape {v.shape}")


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere."""
    dtype = _normalize_dtype(dtype, "eye")
    check_device(device, "eye")
    n_rows = as_count(n_rows, "eye", "n_rows")
    n_cols = n_rows if n_cols is None else as_count(n_cols, "eye", "n_cols")
    k = max(-n_rows, min(n_cols, check_int(k, "eye", "k")))  # beyond the edge: no ones
    dtype = _dt.default_float if dtype is None else dtype
    check_alloc((n_rows, n_cols), dtype.itemsize, "eye",
                lambda: f"'n_rows'={n_rows} by 'n_cols'={n_cols} of dtype {dtype}")
    return wrap(np.eye(n_rows, n_cols, k=k, dtype=dtype))


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from 1-D coordinate vectors (views: broadcasts, O(1) each)."""
    from ._array import view_of
    check_choice(indexing, ("xy", "ij"), "meshgrid", "indexing")
    if len(arrays) == 1 and isinstance(arrays[0], (list, tuple)):
        arrays = tuple(arrays[0])
    for i, a in enumerate(arrays):
        if not isinstance(a, Array):
            raise TypeError(f"meshgrid: argument {i} must be a flexarray array, got "
                            f"{type(a).__name__}")
        if a.ndim != 1:
            raise ValueError(f"meshgrid: argument {i} must be 1-D, got shape {a.shape}")
    if arrays:
        dt = _dt.result_type(*arrays, func="meshgrid")
        if any(a._dtype is not dt for a in arrays):
            raise TypeError(f"meshgrid: all arrays must have the same dtype, got "
                            f"{[str(a.dtype) for a in arrays]}")
    check_alloc([a.shape[0] for a in arrays], 1, "meshgrid",
                lambda: f"the grids of lengths {tuple(a.shape[0] for a in arrays)}")
    grids = np.meshgrid(*(a._arr for a in arrays), indexing=indexing, copy=False, sparse=False)
    return tuple(view_of(a, g, overlapping=True) for a, g in zip(arrays, grids))


def _tri(func, x, k, npfunc):
    if not isinstance(x, Array):
        raise TypeError(f"{func}: 'x' must be a flexarray array, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"{func}: 'x' must have at least 2 dimensions, got shape {x.shape}")
    k = check_int(k, func, "k")
    k = max(-x.shape[-2], min(x.shape[-1], k))  # beyond the edge: all or nothing kept
    return wrap(npfunc(x._arr, k=k))


def tril(x, /, *, k=0):
    """The lower triangle (at and below the ``k``-th diagonal) of the last two axes."""
    return _tri("tril", x, k, np.tril)


def triu(x, /, *, k=0):
    """The upper triangle (at and above the ``k``-th diagonal) of the last two axes."""
    return _tri("triu", x, k, np.triu)
