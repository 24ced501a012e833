"""Sorting functions: sort, argsort.

Order: ascending or descending by value, NaN last in both (NumPy's order for ascending).
``stable=True`` (the default) keeps equal elements in their original order in both
directions; ``-0.0`` and ``+0.0`` are equal. Complex arrays have no order: TypeError.
bfloat16 sorts as float32 (exact; NumPy's bfloat16 comparisons misplace NaN).

Engine: ``flexarray._engines.sort`` (NumPy's SIMD and stable sorts, the repairs that make
the SIMD sorts stable, the radix kernel; its docstring has the choices and gates).
"""
from __future__ import annotations

from ._array import wrap
from ._engines import sort as _sort
from ._helpers import (AxisError, check_array, check_bool, index_result, normalize_axis,
                       ordered_operand)

__all__ = ["argsort", "sort"]


def _prepare(func, x, axis, descending, stable):
    check_array(x, func)
    descending = check_bool(descending, func, "descending")
    stable = check_bool(stable, func, "stable")
    a = ordered_operand(x, func)
    if x.ndim == 0:
        raise AxisError(f"{func}: 'x' must have at least one dimension to sort along, got a "
                        f"0-d array")
    ax = normalize_axis(axis, x.ndim, func)
    return a, ax, descending, stable


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """A sorted copy of ``x`` along ``axis`` (NaN last; stable by default)."""
    a, ax, descending, stable = _prepare("sort", x, axis, descending, stable)
    return wrap(_sort.sort(x._arr, a, ax, descending, stable))


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """int64 indices that sort ``x`` along ``axis`` (NaN last; stable by default)."""
    a, ax, descending, stable = _prepare("argsort", x, axis, descending, stable)
    return index_result(_sort.argsort(x._arr, a, ax, descending, stable))
