"""Indexing functions: take, take_along_axis.

Indices are bounds-checked here, in the frontend (IndexError naming the bad index), and
negative indices count from the end. ``take`` runs on the gather engine
(``flexarray._engines.gather``: NumPy's take, or the Numba gather for large results of
single elements); ``take_along_axis`` on NumPy's.
"""
from __future__ import annotations

import math

import numpy as np

from . import _dtypes as _dt
from ._array import wrap
from ._engines import gather as _gather
from ._helpers import broadcast_shape_of, check_array, checked_indices, normalize_axis

__all__ = ["take", "take_along_axis"]


def _index_array(indices, func):
    check_array(indices, func, "indices")
    _dt.check_dtype(func, "indices", indices, "integral")
    return indices._arr


def take(x, indices, /, *, axis=None):
    """Elements of ``x`` at the 1-D integer ``indices`` along ``axis``.

    ``axis`` may be omitted only for 1-D ``x``. Negative indices count from the end; an index
    outside ``[-n, n)`` raises IndexError. A Python int index (beyond the standard, NumPy's
    meaning; cubed's var/std call ``take(a, 0, axis=...)``) takes one element along
    ``axis`` and drops that axis.
    """
    check_array(x, "take")
    if isinstance(indices, (int, np.integer)) and not isinstance(indices, (bool, np.bool_)):
        i = int(indices)
        n = x.size if axis is None else x.shape[normalize_axis(axis, x.ndim, "take")]
        if not -n <= i < n:
            raise IndexError(f"take: index {i} is out of bounds for an axis of size {n}; "
                             f"allowed: {-n} <= index < {n}")
        r = take(x, wrap(np.array([i], np.int64)), axis=axis)
        return wrap(r._arr[(slice(None),) * (0 if axis is None else
                                             normalize_axis(axis, x.ndim, "take")) + (0,)])
    idx = _index_array(indices, "take")
    if idx.ndim != 1:
        raise ValueError(f"take: 'indices' must be 1-D, got shape {indices.shape}")
    if x.ndim == 0:
        raise ValueError("take: 'x' must have at least one dimension, got a 0-d array")
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"take: 'axis' is required for an array of {x.ndim} dimensions "
                             f"(shape {x.shape}); it may be omitted only for 1-D arrays")
        ax = 0
    else:
        ax = normalize_axis(axis, x.ndim, "take")
    a = x._arr
    shape = a.shape[:ax] + idx.shape + a.shape[ax + 1:]
    nbytes = math.prod(shape) * a.itemsize
    try:  # NumPy's take, where it is the engine, checks every index it uses
        r = _gather.take_checking(a, idx, ax, nbytes)
    except IndexError:
        checked_indices(idx, x.shape[ax], "take")  # raises, naming take
        raise
    if r is not None:
        return wrap(r)
    idx = checked_indices(idx, x.shape[ax], "take")
    return wrap(_gather.take(a, idx, ax, shape, nbytes))


def take_along_axis(x, indices, /, *, axis=-1):
    """Elements of ``x`` at ``indices`` along ``axis`` (``indices`` has x's rank; the other
    axes broadcast). Negative indices count from the end; out-of-range raises IndexError."""
    check_array(x, "take_along_axis")
    idx = _index_array(indices, "take_along_axis")
    if x.ndim == 0:
        raise ValueError("take_along_axis: 'x' must have at least one dimension, got a 0-d "
                         "array")
    if idx.ndim != x.ndim:
        raise ValueError(f"take_along_axis: 'indices' must have as many dimensions as 'x' "
                         f"({x.ndim}), got shape {indices.shape} for x of shape {x.shape}")
    ax = normalize_axis(axis, x.ndim, "take_along_axis")
    rest = [s[:ax] + s[ax + 1:] for s in (x.shape, indices.shape)]
    broadcast_shape_of(rest, "take_along_axis", "'x' and 'indices' (without the axis) of "
                       "shapes")
    idx = checked_indices(idx, x.shape[ax], "take_along_axis")
    return wrap(_gather.take_along(x._arr, idx, ax))
