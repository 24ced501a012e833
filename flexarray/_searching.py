"""Searching functions: argmax, argmin, count_nonzero, nonzero, searchsorted, where.

Index results are int64 arrays (0-d for a single index), never Python scalars. Orderings
are the ones ``sort`` uses: NaN after every number; complex arrays have no order and are
refused by the ordering functions. bfloat16 is searched as float32 (exact; NumPy's bfloat16
comparisons misplace NaN).

Engines: ``argmax``/``argmin`` run on ``flexarray._engines.argminmax`` (NumPy's scan, its
rows on threads, or the Numba kernels where they measured faster), ``where`` on
``flexarray._engines.select`` (the bit-select kernel, or NumPy's where); the rest on NumPy.
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _dtypes as _dt
from ._array import Array, copy_of, wrap
from ._deferred import Deferred, defer_where
from ._engines import fusion as _fusion
from ._engines import argminmax as _argminmax
from ._engines import select as _select
from ._helpers import (_INDEX, broadcast_shape_of, check_array, check_bool, check_choice, check_ordered,
                       checked_indices, index_result, normalize_axes, normalize_axis,
                       numpy_as_array, ordered_operand, python_scalar)

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]


def _arg_extremum(func, npfunc, x, axis, keepdims):
    check_array(x, func)
    check_bool(keepdims, func, "keepdims")
    check_ordered(x, func)
    ax = None if axis is None else normalize_axis(axis, x.ndim, func)
    if ax is not None and x.shape[ax] and (
            r := _argminmax.numpy_rows(npfunc, x._arr, ax)) is not None:
        if keepdims:
            r = np.expand_dims(r, ax)
        return index_result(r)
    if (x.size if ax is None else x.shape[ax]) and (
            r := _argminmax.kernel(func, x._arr, ax)) is not None:
        if keepdims:
            r = r.reshape((1,) * x.ndim if ax is None else
                          x.shape[:ax] + (1,) + x.shape[ax + 1:])
        return index_result(r)
    a = ordered_operand(x, func)
    if axis is None:
        if a.size == 0:
            raise ValueError(f"{func}: 'x' is empty (shape {x.shape}); an empty array has no "
                             f"{func[3:]}imum")
        r = npfunc(a.reshape(-1))
        if keepdims:
            return index_result(np.full((1,) * a.ndim, r, _INDEX))
        return index_result(r)
    if a.shape[ax] == 0:
        raise ValueError(f"{func}: axis {axis} of 'x' (shape {x.shape}) has size 0; an empty "
                         f"axis has no {func[3:]}imum")
    return index_result(npfunc(a, axis=ax, keepdims=keepdims))


def argmax(x, /, *, axis=None, keepdims=False):
    """Index of the first maximum of ``x`` (flattened if ``axis`` is None); NaN counts as
    the maximum (its first occurrence), as in ``max``."""
    return _arg_extremum("argmax", np.argmax, x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    """Index of the first minimum of ``x`` (flattened if ``axis`` is None); NaN counts as
    the minimum (its first occurrence), as in ``min``."""
    return _arg_extremum("argmin", np.argmin, x, axis, keepdims)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """Number of non-zero elements of ``x`` over ``axis`` (int64; NaN counts as non-zero,
    a complex element is non-zero when either component is)."""
    check_array(x, "count_nonzero")
    check_bool(keepdims, "count_nonzero", "keepdims")
    axes = normalize_axes(axis, x.ndim, "count_nonzero")
    return index_result(np.count_nonzero(x._arr, axis=axes, keepdims=keepdims))


def nonzero(x, /):
    """A tuple of int64 index arrays, one per axis, of the non-zero elements of ``x`` in
    row-major order."""
    check_array(x, "nonzero")
    if x.ndim == 0:
        raise ValueError("nonzero: 'x' must have at least one dimension, got a 0-d array; "
                         "use nonzero(reshape(x, (1,)))")
    return tuple(wrap(np.ascontiguousarray(i, _INDEX)) for i in np.nonzero(x._arr))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Indices at which the elements of ``x2`` would be inserted into the ascending 1-D
    ``x1`` (or ``x1[sorter]``) to keep it sorted; ``side`` picks the end of a run of equal
    values. ``x2`` may be a Python int or float. NaN sorts last, as in ``sort``."""
    check_array(x1, "searchsorted", "x1")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted: 'x1' must be 1-D, got shape {x1.shape}")
    check_choice(side, ("left", "right"), "searchsorted", "side")
    a1 = ordered_operand(x1, "searchsorted", "x1")
    n = a1.shape[0]
    if sorter is not None:
        check_array(sorter, "searchsorted", "sorter")
        _dt.check_dtype("searchsorted", "sorter", sorter, "integral")
        if sorter.shape != x1.shape:
            raise ValueError(f"searchsorted: 'sorter' must have the shape of 'x1' {x1.shape}, "
                             f"got {sorter.shape}")
        sorter = checked_indices(sorter._arr, n, "searchsorted", "sorter")
    if isinstance(x2, Array):
        a2 = ordered_operand(x2, "searchsorted", "x2")
        dt = _dt.promote(x1._dtype, x2._dtype, "searchsorted")
    elif type(x2) in (int, float, builtins.bool):
        dt = _dt.result_type(x1, x2, func="searchsorted")
        if type(x2) is int and _dt.is_integer(dt):
            info = np.iinfo(dt)
            if not info.min <= x2 <= info.max:  # beyond every element of x1
                return index_result(0 if x2 < info.min else n)
        a2 = np.asarray(x2, dt)
    else:
        raise TypeError(f"searchsorted: 'x2' must be a flexarray array, an int or a float, "
                        f"got {type(x2).__name__}")
    if dt is _dt.bfloat16 or dt != a1.dtype or dt != a2.dtype:
        work = np.float32 if dt in _dt.HALF else dt
        a1, a2 = a1.astype(work, copy=False), a2.astype(work, copy=False)
    r = a1.searchsorted(a2, side=side, sorter=sorter)  # (the method: no NumPy wrapper)
    return wrap(r) if type(r) is np.ndarray and r.dtype == _INDEX else index_result(r)


def _where_operand(v, dt, name):
    if isinstance(v, Array):
        return v._arr if v._dtype is dt else v._arr.astype(dt)
    return _dt.scalar_operand("where", v, dt)


_NOT_GIVEN = object()


def where(condition, x1=_NOT_GIVEN, x2=_NOT_GIVEN, /):
    """Elements of ``x1`` where the bool array ``condition`` is True, of ``x2`` elsewhere.

    ``x1`` and ``x2`` may be Python scalars; the three broadcast together and the result
    has the promoted dtype of ``x1`` and ``x2`` (two scalars: the default dtype of the wider
    kind, as NumPy and torch give). ``where(condition)`` alone is
    ``nonzero(condition)``, as in NumPy and torch (scikit-learn calls it so). With a NumPy
    datetime64/timedelta64 array or scalar as ``x1`` or ``x2``, NumPy's ``where`` (a NumPy
    array: flexarray has no date or time dtypes; xarray's ``idxmax`` along a time axis).
    """
    if any(isinstance(getattr(v, "dtype", None), np.dtype) and v.dtype.kind in "mM" and
           not isinstance(v, Array) for v in (x1, x2)):  # NumPy's dates and times
        try:
            return np.where(*(v._arr if isinstance(v, Array) else v
                              for v in (condition, x1, x2)))
        except (TypeError, ValueError) as e:  # (NumPy's promotion or broadcasting refused)
            raise (TypeError if isinstance(e, TypeError) else ValueError)(
                f"where: NumPy's where of dates or times: {e}") from None
    if np.ndarray in (type(condition), type(x1), type(x2)):  # (xarray's coordinates)
        condition, x1, x2 = map(numpy_as_array, (condition, x1, x2))
    if (type(condition) is Deferred or type(x1) is Deferred or type(x2) is Deferred or
            type(condition) is Array and condition._arr.size >= _fusion.MIN) and (
            r := defer_where(condition, x1, x2)) is not None:
        return r  # (waits, to be computed with the calls that use it)
    if type(condition) is Array and condition._dtype is _dt.bool:
        r = _where_fast(condition._arr, x1, x2)
        if r is not None:
            return r
    check_array(condition, "where", "condition")
    if x1 is _NOT_GIVEN and x2 is _NOT_GIVEN:
        if condition.ndim == 0:
            raise ValueError("where: 'condition' alone (nonzero(condition)) must have at least "
                             "one dimension, got a 0-d array")
        return nonzero(condition)
    if x1 is _NOT_GIVEN or x2 is _NOT_GIVEN:
        raise TypeError("where: pass both 'x1' and 'x2', or neither (nonzero(condition))")
    _dt.check_dtype("where", "condition", condition, "bool", "compare it first (e.g. x != 0)")
    x1, x2 = python_scalar(x1), python_scalar(x2)  # NumPy scalars as the values they hold
    scalars = (builtins.bool, int, float, complex)
    for name, v in (("x1", x1), ("x2", x2)):
        if not isinstance(v, (Array,) + scalars):
            raise TypeError(f"where: '{name}' must be a flexarray array or a Python scalar, "
                            f"got {type(v).__name__}")
    if isinstance(x1, Array) or isinstance(x2, Array):
        dt = _dt.result_type(x1, x2, func="where")
    else:  # two scalars (the standard asks for an array; NumPy and torch take them):
        # the wider kind's default dtype, as NumPy's result for two Python scalars
        dt = _dt.promote(_dt.scalar_dtype(x1), _dt.scalar_dtype(x2))
    shapes = [condition.shape] + [v.shape for v in (x1, x2) if isinstance(v, Array)]
    broadcast_shape_of(shapes, "where", "'condition', 'x1' and 'x2' of shapes")
    a1, a2 = _where_operand(x1, dt, "x1"), _where_operand(x2, dt, "x2")
    r = _select.where(condition._arr, a1, a2, dt)
    if r is None:
        r = np.where(condition._arr, a1, a2)
    return wrap(r if r.dtype == dt else r.astype(dt))


_EXACT = 1 << 53  # Python ints of smaller magnitude are exact in float32/float64


def _where_fast(c, x1, x2):
    """``where`` for the common calls (two arrays of one dtype, or an array of float32 or
    float64 and a Python float or exact int) without the general checks (~4 us less);
    None for anything else, or when the shapes do not broadcast (the general path says
    why)."""
    if type(x1) is Array:
        dt = x1._dtype
        a1, a2 = x1._arr, _fast_operand(x2, dt)
    elif type(x2) is Array:
        dt = x2._dtype
        a1, a2 = _fast_operand(x1, dt), x2._arr
    else:
        return None
    if a1 is None or a2 is None:
        return None
    k = _select.count(c)
    if k is not None:
        # one side only (the NaN mask of clean data): an O(1) lazy copy of that side
        side, other = (x2, a1) if k == 0 else (x1, a2) if k == c.size else (None, None)
        if type(side) is Array and side.shape == c.shape and _fits(np.shape(other), c.shape):
            return copy_of(side)
    r = _select.where(c, a1, a2, dt, k)
    if r is None:
        try:
            r = np.where(c, a1, a2)
        except ValueError:
            return None
    return wrap(r if r.dtype == dt else r.astype(dt))


_FLOAT_RESULT = frozenset({_dt.float32, _dt.float64})


def _fits(shape, target) -> bool:
    """Whether ``shape`` broadcasts to ``target`` without enlarging it."""
    return len(shape) <= len(target) and all(
        n in (1, t) for n, t in zip(shape[::-1], target[::-1]))


def _fast_operand(v, dt):
    """``v`` beside an array of dtype ``dt`` in :func:`_where_fast`: an array of ``dt``, or
    a Python float or exact int when ``dt`` is float32/float64; None otherwise."""
    t = type(v)
    if t is Array:
        return v._arr if v._dtype is dt else None
    if (t is float or t is int and -_EXACT < v < _EXACT) and dt in _FLOAT_RESULT:
        return v
    return None
