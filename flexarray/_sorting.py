"""Sorting functions: sort, argsort.

Order: ascending or descending by value, NaN last in both (NumPy's order for ascending).
``stable=True`` (the default) keeps equal elements in their original order in both
directions. Descending order sorts a key that reverses the order exactly, ascending and
stable: ``-x`` for floats (NaN stays NaN, so it still sorts last; ``-0.0``/``+0.0`` stay
equal), ``~x`` for integers and bools (no overflow: ``~x = -x - 1`` for signed, ``max - x``
for unsigned). ``sort`` negates the sorted key back, which restores every bit (sign of NaN
included). Complex arrays have no order: TypeError. bfloat16 sorts as float32 (exact; NumPy's
bfloat16 comparisons misplace NaN).

Engine: NumPy's sorts (``kind='stable'`` when stability is asked for, else its default
SIMD quicksort).
"""
from __future__ import annotations

import numpy as np

from . import _dtypes as _dt
from ._array import wrap
from ._helpers import AxisError, check_array, normalize_axis
from ._manipulation import check_bool
from ._searching import index_result, ordered_operand

__all__ = ["argsort", "sort"]


def _prepare(func, x, axis, descending, stable):
    check_array(x, func)
    descending = check_bool(descending, func, "descending")
    kind = "stable" if check_bool(stable, func, "stable") else None
    a = ordered_operand(x, func)
    if x.ndim == 0:
        raise AxisError(f"{func}: 'x' must have at least one dimension to sort along, got a "
                        f"0-d array")
    ax = normalize_axis(axis, x.ndim, func)
    return a, ax, descending, kind


def _reverse_key(a):
    """A key whose ascending order is ``a``'s descending order (NaN still last)."""
    return np.negative(a) if a.dtype.kind == "f" else np.invert(a)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """A sorted copy of ``x`` along ``axis`` (NaN last; stable by default)."""
    a, ax, descending, kind = _prepare("sort", x, axis, descending, stable)
    if descending:
        r = _reverse_key(np.sort(_reverse_key(a), axis=ax, kind=kind))
    else:
        r = np.sort(a, axis=ax, kind=kind)
    return wrap(r.astype(x._dtype.np, copy=False))


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """int64 indices that sort ``x`` along ``axis`` (NaN last; stable by default)."""
    a, ax, descending, kind = _prepare("argsort", x, axis, descending, stable)
    return index_result(np.argsort(_reverse_key(a) if descending else a, axis=ax, kind=kind))
