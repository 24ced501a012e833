"""Statistical functions: cumulative_prod, cumulative_sum, max, mean, min, prod, std, sum, var.

Every reduction validates in the frontend (array, axes, keepdims, dtype) and returns a 0-d
array, never a Python scalar. Result dtypes follow the standard: ``sum``/``prod``/the
cumulative functions give the default integer of the same kind for smaller integers (int32 ->
int64, uint8 -> uint64, bool -> int64) and keep floating dtypes. float16/bfloat16 accumulate
in float32 and round once (NumPy's float16 sum overflows to inf and rounds every step).

Engine: ``sum``/``prod``/``min``/``max`` (and the sums of ``mean``, ``var`` and ``std``)
call the reductions' engine (``flexarray._engines.reductions``: the Numba reduction kernels
where they were measured faster, else NumPy's reductions on the strided view, with its slow
shapes taken apart).
"""
from __future__ import annotations

import builtins
import functools
import math

import numpy as np

from . import _dtypes as _dt
from ._array import Array, wrap
from ._deferred import hold, pending
from ._engines import fusion
from ._engines import reductions as engine
from ._fp import fp_quiet
from ._helpers import (cast_result, check_array, check_bool, normalize_axis, numpy_as_array,
                       reduction_axes)

__all__ = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum",
           "var"]

_F32 = np.dtype(np.float32)
#: kind ranks for the ``dtype=`` argument: it may widen the kind, never narrow it
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


# --- argument checks ------------------------------------------------------------------------

def accumulation_dtype(func: str, xdt, dtype):
    """The result dtype of sum/prod/cumulative_*/trace for input dtype ``xdt``.

    ``dtype=None``: smaller integers go to the default integer of their kind (int64 or
    uint64, bool to int64); floating dtypes are kept. An explicit ``dtype`` must be numeric
    and may not narrow the kind (float -> int or complex -> real would drop data silently).
    """
    if dtype is None:
        if _dt.KIND[xdt] in "bi":
            return _dt.default_int
        if _dt.KIND[xdt] == "u":
            return _dt.uint64
        return xdt
    dtype = _dt.normalize(dtype, func)
    _dt.check_dtype(func, "dtype", dtype, "numeric")
    if _KIND_RANK[_dt.KIND[dtype]] < _KIND_RANK[_dt.KIND[xdt]]:
        raise TypeError(f"{func}: cannot accumulate {xdt} values in dtype={dtype} (it would "
                        f"drop data); allowed: a dtype of the same or a wider kind")
    return dtype




def _compute_np(dt):
    """The NumPy dtype arithmetic runs in for a result of dtype ``dt``."""
    return _F32 if dt in _dt.HALF else dt


def _check_numeric(func, x, allow_bool=True):
    _dt.check_dtype(func, "x", x, "numeric or bool" if allow_bool else "numeric")


def _out_shape(shape, axes, keepdims):
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _count(shape, axes):
    return math.prod(shape[a] for a in axes)


# --- sums and products ----------------------------------------------------------------------

#: floating dtypes that sum in themselves (mean's fast path)
_FLOAT_ACCUMULATION = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128})

#: dtypes that sum and multiply in themselves (no widening, no float32 detour)
_NATIVE_ACCUMULATION = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128,
                                  _dt.int64, _dt.uint64})


def sum_np(a: np.ndarray, axes: tuple, out_dt, keepdims: bool = False) -> np.ndarray:
    """Sum of NumPy array ``a`` over ``axes`` as a fresh array of flexarray dtype ``out_dt``
    (float16/bfloat16 accumulate in float32). Shared with mean, trace and the norms."""
    return cast_result(engine.reduce("sum", a, axes, _compute_np(out_dt), keepdims), out_dt)


def _accumulate(func, x, axis, dtype, keepdims):
    if (type(x) is Array and dtype is None and x._dtype in _NATIVE_ACCUMULATION
            and x._arr.size < engine.KERNEL_MIN):
        # the common small cases (~1.5 us less), exactly what the general path below
        # computes there: NumPy's whole-array reduce in x's own dtype, or one axis
        a = x._arr
        if axis is None and keepdims is False:
            with fp_quiet():
                return wrap(engine.UFUNCS[func].reduce(a, None))
        if type(axis) is int and -a.ndim <= axis < a.ndim and (keepdims is False or
                                                                keepdims is True):
            return wrap(engine.reduce(func, a, (axis % a.ndim,), a.dtype, keepdims))
    axes = reduction_axes(func, x, axis, keepdims)
    _check_numeric(func, x)
    out_dt = accumulation_dtype(func, x._dtype, dtype)
    r = _fused(func, x, axes, _compute_np(out_dt), keepdims)
    if r is None:
        r = engine.reduce(func, x._arr, axes, _compute_np(out_dt), keepdims)
    return wrap(cast_result(r, out_dt))


def _fused(op, x, axes, acc, keepdims):
    """``op`` of a deferred ``x`` over ``axes`` in one pass with its chain
    (:func:`._engines.fusion.reduce_all`), with the eager reduction's bits; None where
    that is not how it is computed (the caller computes ``x`` and reduces it)."""
    if op not in ("sum", "max", "min"):
        return None
    node = hold(x)  # (counted: computed meanwhile by another thread, it keeps its values)
    if node is None:
        return None
    # (the eager reduction's order follows memory: the chain's axes in its memory order)
    shape = fusion.in_memory_order(node)
    outer = axes == ((0,) if node.perm is None else (node.perm[0],))
    if len(axes) == len(shape):
        if engine.kernel_takes_all(op, node.dtype, shape, acc):
            return None
        r = fusion.reduce_all(op, node, acc)
    elif outer and op == "sum" and engine.sums_rows_in_order(node.dtype, shape, acc):
        r = fusion.reduce_rows(node, acc)
    elif outer and op != "sum":
        r = fusion.reduce_rows(node, acc, op)
    else:
        return None
    if r is None:
        return None
    return np.reshape(r, _out_shape(node.shape, axes, True)) if keepdims else r


def sum(x, /, *, axis=None, dtype=None, keepdims=False):
    """Sum of ``x`` over ``axis`` (None: all axes; an int or a tuple of ints).

    Integers smaller than 64 bits sum in int64/uint64 unless ``dtype`` says otherwise; the
    empty sum is 0. float16/bfloat16 accumulate in float32 and round once.
    """
    return _accumulate("sum", x, axis, dtype, keepdims)


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    """Product of ``x`` over ``axis``; dtype rules as :func:`sum`; the empty product is 1."""
    return _accumulate("prod", x, axis, dtype, keepdims)


# --- extrema --------------------------------------------------------------------------------

# dtypes whose max/min NumPy computes in place (float16/bfloat16 go through float32)
_NATIVE_ORDER = frozenset(d for d in _dt.ALL if _dt.KIND[d] in "biuf" and d not in _dt.HALF)


def _extremum(func, x, axis, keepdims):
    if (type(x) is Array and x._dtype in _NATIVE_ORDER
            and 0 < x._arr.size < engine.KERNEL_MIN):
        # the common small cases (~1.5 us less), exactly what the general path below
        # computes there: NumPy's whole-array reduce, or one axis
        a = x._arr
        if axis is None and keepdims is False:
            return wrap(engine.UFUNCS[func].reduce(a, None))
        if type(axis) is int and -a.ndim <= axis < a.ndim and (keepdims is False or
                                                                keepdims is True):
            return wrap(engine.reduce(func, a, (axis % a.ndim,), a.dtype, keepdims))
    axes = reduction_axes(func, x, axis, keepdims)
    d = x._dtype
    _dt.check_dtype(func, "x", x, "real numeric or bool",
                    "complex numbers have no order (take real() or abs() first)")
    shape = x.shape
    if math.prod(shape) == 0 and axes and _count(shape, axes) == 0 and math.prod(
            _out_shape(shape, axes, keepdims)) != 0:
        raise ValueError(f"{func}: cannot reduce over a zero-size axis (x has shape "
                         f"{shape}, axis={axis}); the {func} of no elements is undefined "
                         f"(NumPy's words, which Dask looks for: zero-size array to reduction "
                         f"operation {func} which has no identity)")
    r = _fused(func, x, axes, None, keepdims)
    if r is None:
        r = engine.extremum(func, x._arr, axes, keepdims)
    return wrap(cast_result(r, d))


def max(x, /, *, axis=None, keepdims=False):
    """Largest element of ``x`` over ``axis``; NaN propagates. ValueError when a reduced
    axis has no elements."""
    return _extremum("max", x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False):
    """Smallest element of ``x`` over ``axis``; NaN propagates. ValueError when a reduced
    axis has no elements."""
    return _extremum("min", x, axis, keepdims)


# --- moments --------------------------------------------------------------------------------

def _float_result(func, x, allow_complex):
    d = x._dtype
    if _dt.KIND[d] in "biu":
        return _dt.default_float
    if not allow_complex:
        _dt.check_dtype(func, "x", x, "real numeric or bool")
    return d


def mean(x, /, *, axis=None, keepdims=False, dtype=None):
    """Arithmetic mean over ``axis``. Integer input gives the default float dtype; the mean
    of no elements is NaN. ``dtype``: NumPy's keyword (an extension; cubed passes it), the
    floating dtype to accumulate in and return. A NumPy array is taken as ``asarray`` takes
    it (cubed calls ``mean`` on NumPy arrays)."""
    if type(x) is np.ndarray:
        x = numpy_as_array(x)
    if type(x) is Array and dtype is None and x._dtype in _FLOAT_ACCUMULATION:
        # the common cases (~2 us less): what the general path below computes there
        a = x._arr
        # (dividing by a positive count raises no floating-point exception; a Python int
        # keeps the float dtype)
        if axis is None and keepdims is False and 0 < a.size < engine.KERNEL_MIN:
            with fp_quiet():
                s = np.add.reduce(a, None)
            return wrap(s / a.size)
        if (type(axis) is int and -a.ndim <= axis < a.ndim and a.shape[axis]
                and (keepdims is False or keepdims is True)):
            return wrap(engine.reduce("sum", a, (axis % a.ndim,), a.dtype, keepdims)
                        / a.shape[axis])
    axes = reduction_axes("mean", x, axis, keepdims)
    out_dt = _float_result("mean", x, allow_complex=True)
    if dtype is not None:
        dtype = _dt.normalize(dtype, "mean")
        _dt.check_dtype("mean", "dtype", dtype, "floating-point")
        if _dt.is_complex(out_dt):
            _dt.check_dtype("mean", "dtype", dtype, "complex floating",
                            f"x is {x._dtype}: its mean is computed in a complex dtype")
        out_dt = dtype
    shape = x.shape
    n = _count(shape, axes)
    if n == 0:
        nan = complex(math.nan, math.nan) if _dt.KIND[out_dt] == "c" else math.nan
        return wrap(np.full(_out_shape(shape, axes, keepdims), nan, out_dt))
    acc = _compute_np(out_dt)
    s = _fused("sum", x, axes, acc, keepdims)
    if s is None:
        s = engine.reduce("sum", x._arr, axes, acc, keepdims)
    with fp_quiet():
        r = np.true_divide(s, n, dtype=acc)
    return wrap(cast_result(r, out_dt))


def _check_correction(func, correction):
    if isinstance(correction, (builtins.bool, np.bool_)) or not isinstance(
            correction, (int, float, np.integer, np.floating)):
        raise TypeError(f"{func}: 'correction' must be a real Python number, got "
                        f"{type(correction).__name__}")
    return correction


def _variance(func, x, axis, correction, keepdims):
    axes = reduction_axes(func, x, axis, keepdims)
    _check_correction(func, correction)
    out_dt = _float_result(func, x, allow_complex=False)
    shape = x.shape
    if _count(shape, axes) - correction <= 0:  # the standard: NaN, not inf or an error
        return wrap(np.full(_out_shape(shape, axes, keepdims), math.nan, out_dt))
    acc = _compute_np(out_dt)
    n = _count(shape, axes)
    with fp_quiet():  # two passes, as np.var, with the engine's faster sums
        s = _fused("sum", x, axes, acc, True)
        a = None if s is not None and pending(x) is not None else x._arr
        m = (engine.reduce("sum", a, axes, acc, True) if s is None else s) / n
        r = _fused_squares(x, a, m, axes, acc)
        if r is None:
            a = x._arr
            d = np.asarray(np.subtract(a, m, dtype=acc))
            r = engine.reduce("sum", np.multiply(d, d, out=d), axes, acc, False)
        if keepdims:
            r = np.reshape(r, _out_shape(shape, axes, True))
        r = r / (n - correction)
        if func == "std":
            r = np.sqrt(r)
    return wrap(cast_result(r, out_dt))


def _fused_squares(x, a, m, axes, acc):
    """The sum over every axis (or axis 0) of ``(x - m) ** 2`` in one pass, the deviations
    never stored (``x`` deferred, or ``a`` its C-contiguous values of at least
    ``fusion.MIN`` elements): the eager ``np.subtract(a, m, dtype=acc)``, squared by
    ``np.multiply``, summed in NumPy's order, with their bits; None where the eager passes
    give them."""
    shape = x.shape
    rows = axes == (0,) and len(shape) > 1
    if not (rows or len(axes) == len(shape)) or np.dtype(acc).kind != "f":
        return None
    node = hold(x) if a is None else None
    if node is None and a is None:
        a = x._arr  # (computed meanwhile by another thread)
    if node is not None:
        if not (node.flat or rows) or node.perm is not None:
            return None  # (a chain in another memory order: reduced in its own order)
        base = node
    elif not (a.flags.c_contiguous and a.size >= fusion.MIN):
        return None
    else:
        base = a
    same = (node.dtype if node is not None else a.dtype) == acc  # (dtype=acc changes nothing)
    d = fusion.Node("subtract", np.subtract if same else functools.partial(
        np.subtract, dtype=acc), (base, m), shape, np.dtype(acc), not rows)
    sq = fusion.Node("multiply", np.multiply, (d, d), shape, np.dtype(acc), not rows)
    d.users = 2
    if rows:
        if not engine.sums_rows_in_order(sq.dtype, shape, acc):
            return None
        return fusion.reduce_rows(sq, acc)
    if engine.kernel_takes_all("sum", sq.dtype, shape, acc):
        return None
    return fusion.reduce_all("sum", sq, acc)


def _ddof_alias(func, correction, ddof):
    """``ddof`` is NumPy's name for ``correction`` (accepted beyond the standard: xarray
    passes it); give one of them."""
    if ddof is None:
        return correction
    if correction != 0.0:
        raise ValueError(f"{func}: give 'correction' or NumPy's 'ddof', not both (got "
                         f"correction={correction!r}, ddof={ddof!r})")
    return ddof


def var(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None):
    """Variance over ``axis`` with divisor ``N - correction`` (NaN when that is <= 0).
    Integer input gives the default float dtype. ``ddof``: NumPy's name for
    ``correction`` (an extension)."""
    return _variance("var", x, axis, _ddof_alias("var", correction, ddof), keepdims)


def std(x, /, *, axis=None, correction=0.0, keepdims=False, ddof=None):
    """Standard deviation over ``axis`` with divisor ``N - correction`` (NaN when <= 0).
    ``ddof``: NumPy's name for ``correction`` (an extension)."""
    return _variance("std", x, axis, _ddof_alias("std", correction, ddof), keepdims)


# --- cumulative -----------------------------------------------------------------------------

_ACCUMULATE = {"cumulative_sum": np.add, "cumulative_prod": np.multiply}


def _cumulative(func, npfunc, x, axis, dtype, include_initial):
    if (type(x) is Array and dtype is None and include_initial is False and
            x._dtype in _NATIVE_ACCUMULATION):
        # the common call (~2 us less): the ufunc's accumulate in x's own dtype, what
        # np.cumulative_sum/prod compute there
        a = x._arr
        if axis is None and a.ndim == 1:
            axis = 0
        if type(axis) is int and -a.ndim <= axis < a.ndim:
            with fp_quiet():
                return wrap(_ACCUMULATE[func].accumulate(a, axis))
    check_array(x, func)
    _check_numeric(func, x)
    check_bool(include_initial, func, "include_initial")
    a = x._arr
    if a.ndim == 0:  # as NumPy: a 0-d input is a 1-element vector
        a = a.reshape(1)
        if axis is not None:
            normalize_axis(axis, 1, func)  # 0 or -1: the 1-element vector's axis
        axis = 0
    if axis is None:
        if a.ndim > 1:
            raise ValueError(f"{func}: 'axis' is required for arrays of more than one "
                             f"dimension (x has shape {a.shape})")
        axis = 0
    ax = normalize_axis(axis, a.ndim, func)
    out_dt = accumulation_dtype(func, x._dtype, dtype)
    with fp_quiet():
        r = npfunc(a, axis=ax, dtype=_compute_np(out_dt), include_initial=include_initial)
    return wrap(cast_result(r, out_dt))


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running sums along ``axis`` (required when ``x`` has more than one dimension);
    ``include_initial=True`` prepends the zero. dtype rules as :func:`sum`."""
    return _cumulative("cumulative_sum", np.cumulative_sum, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running products along ``axis``; ``include_initial=True`` prepends the one."""
    return _cumulative("cumulative_prod", np.cumulative_prod, x, axis, dtype,
                       include_initial)
