"""Argument checks and small helpers shared by the frontend modules: the one home of each.

Every chapter module, the extensions and nn check their arguments with these, so one rule
holds everywhere: bools are Python ``bool`` or ``np.bool_`` (NumPy scalars pass, as NumPy,
torch and array-api-strict take them) and never count as integers; integers are anything
``operator.index`` takes; axes follow NumPy (``AxisError`` is a ValueError and an
IndexError). Messages name the function, the argument, what was given and what is allowed.
A dtype's category is checked by ``_dtypes.check_dtype`` (see ``_dtypes.py`` for why there).
"""
import builtins
import functools
import operator
import sys

import numpy as np

from . import _dtypes as _dt
from ._array import Array, wrap, wrap_foreign
from ._fp import fp_quiet


class AxisError(ValueError, IndexError):
    """An axis out of range for the array's rank (a ValueError and an IndexError, as NumPy)."""


# --- arguments ------------------------------------------------------------------------------

def numpy_as_array(v):
    """A NumPy array argument of a flexarray dtype as the flexarray array sharing its
    memory (as ``asarray`` and the operators take it); anything else as it is. xarray
    passes NumPy-backed coordinates and data beside flexarray arrays to ``where``,
    ``astype``, ``concat``, ``clip`` and ``einsum`` (``d.where(d.x > 10)``)."""
    if type(v) is np.ndarray and v.dtype in _dt._BY_NP:
        return wrap_foreign(v)
    return v


def check_array(x, func: str, name: str = "x") -> Array:
    """``x`` itself if it is a flexarray Array; TypeError naming the argument otherwise."""
    if not isinstance(x, Array):
        raise TypeError(f"{func}: '{name}' must be a flexarray array, got {type(x).__name__}; "
                        f"convert it with flexarray.asarray()")
    return x


def normalize_axis(axis, ndim: int, func: str = "", name: str = "axis") -> int:
    """``axis`` as a non-negative int below ``ndim``; AxisError (an IndexError) otherwise."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{func}: '{name}' must be an integer, got {type(axis).__name__}") from None
    if not -ndim <= a < ndim:
        raise AxisError(f"{func}: {name}={axis} is out of range for an array of {ndim} "
                        f"dimension(s); allowed: {-ndim} <= {name} < {ndim}")
    return a % ndim if ndim else a


def normalize_axes(axis, ndim: int, func: str = "", name: str = "axis") -> tuple:
    """``None`` (all axes), an int or a tuple of ints as a sorted tuple of distinct axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        axes = tuple(normalize_axis(a, ndim, func, name) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError(f"{func}: '{name}' has repeated axes: {axis}")
        return tuple(sorted(axes))
    return (normalize_axis(axis, ndim, func, name),)


def check_int(v, func: str, name: str, what: str = "an int") -> int:
    """``v`` as a Python int: anything ``operator.index`` takes (NumPy integers, 0-d integer
    arrays), never a bool; TypeError naming the argument otherwise."""
    if type(v) is int:
        return v
    if isinstance(v, (builtins.bool, np.bool_)):
        raise TypeError(f"{func}: '{name}' must be {what}, got a bool ({v!r})")
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{func}: '{name}' must be {what}, got {type(v).__name__}") from None


def check_bool(v, func: str, name: str) -> builtins.bool:
    """``v`` as a Python bool: a ``bool`` or ``np.bool_`` (never an int)."""
    if not isinstance(v, (builtins.bool, np.bool_)):
        raise TypeError(f"{func}: '{name}' must be a bool, got {type(v).__name__} ({v!r})")
    return builtins.bool(v)


def broadcast_shape_of(shapes, func: str, what: str = "shapes") -> tuple:
    """The broadcast shape of ``shapes``; ValueError naming the clashing sizes otherwise."""
    if all(s == shapes[0] for s in shapes):
        return tuple(shapes[0]) if shapes else ()
    ndim = builtins.max((len(s) for s in shapes), default=0)
    out = []
    for i in range(-ndim, 0):
        size = 1
        for s in shapes:
            n = s[i] if -i <= len(s) else 1
            if n != 1:
                if size not in (1, n):
                    raise ValueError(f"{func}: {what} {', '.join(map(str, shapes))} cannot "
                                     f"be broadcast together: axis {i} has sizes {size} and "
                                     f"{n}; sizes must be equal or 1")
                size = n
        out.append(size)
    return tuple(out)


def reduction_axes(func, x, axis, keepdims):
    """Validated ``x`` and the sorted tuple of axes to reduce."""
    check_array(x, func)
    check_bool(keepdims, func, "keepdims")
    return normalize_axes(axis, x.ndim, func)


def int_tuple(v, func: str, name: str) -> tuple:
    """An int or a tuple/list of ints as a tuple of Python ints."""
    if isinstance(v, (tuple, list)):
        if type(v) is tuple and all(type(e) is int for e in v):
            return v
        return tuple([check_int(e, func, name) for e in v])
    return (check_int(v, func, name),)


def as_count(v, func: str, name: str, minimum: int = 0) -> int:
    """A count or size argument (``n``, ``num``, ``repeats``, ...): an int >= ``minimum``
    that an array dimension can hold (at most ``sys.maxsize``); ValueError otherwise."""
    n = check_int(v, func, name)
    if n < minimum:
        raise ValueError(f"{func}: '{name}' must be >= {minimum}, got {n}")
    if n > sys.maxsize:
        raise ValueError(f"{func}: '{name}'={n} is too large; an array dimension is at most "
                         f"{sys.maxsize}")
    return n


def check_copy(copy, func: str) -> None:
    """The standard's ``copy`` argument: True, False or None; ValueError otherwise."""
    if copy is not None and not isinstance(copy, (bool, np.bool_)):
        raise ValueError(f"{func}: 'copy' must be True, False or None, got {copy!r}")


def check_choice(value, choices, func: str, name: str):
    """``value`` if it is one of the strings ``choices``; ValueError naming them otherwise
    (tested by type first: ``ndarray in (...)`` would raise NumPy's ambiguous-truth error)."""
    if type(value) is not str or value not in choices:
        allowed = ", ".join(repr(c) for c in choices[:-1]) + f" or {choices[-1]!r}"
        raise ValueError(f"{func}: '{name}' must be {allowed}, got {value!r}")
    return value


def check_alloc(shape, itemsize: int, func: str, what="the result") -> None:
    """ValueError naming the call, the request and its bytes when no array of ``shape``
    can exist at all: more bytes than the intp range holds (NumPy: "array is too big",
    "Maximum allowed dimension exceeded", without the context), views included. A size
    that could exist but does not fit in memory raises MemoryError when it is allocated.
    ``what``: the request, naming the argument that set the size, or a function giving it
    (built only for the message)."""
    n = itemsize
    for s in shape:
        n *= max(s, 1)  # (NumPy refuses a huge dimension even beside a zero one)
    if n > sys.maxsize:
        if callable(what):
            what = what()
        raise ValueError(f"{func}: {what} would take {n} bytes; no array can be larger than "
                         f"{sys.maxsize} bytes (the intp range)")


_STANDARD_ERRORS = (IndexError, TypeError, ValueError, OverflowError, MemoryError)


def names_its_errors(func):
    """Decorator for functions built on other functions (``nansum`` on ``sum``): an error
    whose message does not name ``func`` is raised again, of the same type, with
    ``"<func>: "`` in front, so that the user reads the function they called."""
    name = func.__name__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except _STANDARD_ERRORS as e:
            if name in str(e):
                raise
            try:
                renamed = type(e)(f"{name}: {e}")
            except Exception:  # an exception type with another constructor (NumPy's)
                renamed = next(t for t in _STANDARD_ERRORS if isinstance(e, t))(f"{name}: {e}")
            raise renamed from None
    return wrapper


# --- results and operands -------------------------------------------------------------------

def moved(a: np.ndarray, source, destination) -> np.ndarray:
    """``np.moveaxis(a, source, destination)`` for valid axes (ints, or tuples of distinct
    ints, negative ones counting from the end): one transpose, ~0.4 us where NumPy's, which
    checks them again, costs ~3.5 us."""
    nd = a.ndim
    if type(source) is int:
        source, destination = (source,), (destination,)
    source = [s % nd for s in source]
    order = [n for n in range(nd) if n not in source]
    for dst, src in sorted(zip((d % nd for d in destination), source)):
        order.insert(dst, src)
    return a.transpose(order)


def cast_result(r, dt) -> np.ndarray:
    """A fresh NumPy result ``r`` as NumPy dtype of flexarray dtype ``dt`` (no copy when it
    already is). Rounding to a half may overflow to inf: that is the IEEE result, unwarned."""
    r = np.asarray(r)
    if r.dtype == dt:
        return r
    with fp_quiet():
        return r.astype(dt)


def python_scalar(x):
    """A numeric NumPy scalar as the Python scalar it holds (other objects unchanged)."""
    if isinstance(x, np.generic) and type(x) not in (builtins.bool, int, float, complex) and x.dtype in _dt.SUPPORTED:
        return x.item()
    return x


def checked_indices(idx: np.ndarray, n: int, func: str, name: str = "indices") -> np.ndarray:
    """Integer ``idx`` for an axis of length ``n`` as intp in ``[0, n)``; IndexError when
    an index is outside ``[-n, n)``."""
    if idx.size:
        lo, hi = idx.min(), idx.max()
        if lo < -n or hi >= n:
            bad = lo if lo < -n else hi
            raise IndexError(f"{func}: index {bad} in '{name}' is out of bounds for an axis of "
                             f"size {n}; allowed: {-n} <= index < {n}")
    idx = idx.astype(np.intp, copy=False)
    if idx.size and lo < 0:
        idx = np.where(idx < 0, idx + n, idx)
    return idx


_INDEX = np.int64


def index_result(r) -> Array:
    """An int64 flexarray array from a fresh NumPy result (or NumPy scalar)."""
    return wrap(np.asarray(r).astype(_INDEX, copy=False))


def check_ordered(x, func: str, name: str = "x"):
    """TypeError for complex ``x``: complex numbers have no order."""
    _dt.check_dtype(func, name, x, "real numeric or bool",
                    "complex numbers have no order (take real() or abs() first)")


def ordered_operand(x, func: str, name: str = "x") -> np.ndarray:
    """``x``'s elements as a NumPy array whose order NumPy gets right (complex refused)."""
    check_ordered(x, func, name)
    a = x._arr
    return a.astype(np.float32) if x._dtype is _dt.bfloat16 else a
