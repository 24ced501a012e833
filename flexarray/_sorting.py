"""Sorting functions: sort, argsort.

Order: ascending or descending by value, NaN last in both (NumPy's order for ascending).
``stable=True`` (the default) keeps equal elements in their original order in both
directions. Descending order sorts a key that reverses the order exactly, ascending and
stable: ``-x`` for floats (NaN stays NaN, so it still sorts last; ``-0.0``/``+0.0`` stay
equal), ``~x`` for integers and bools (no overflow: ``~x = -x - 1`` for signed, ``max - x``
for unsigned). ``sort`` negates the sorted key back, which restores every bit (sign of NaN
included). Complex arrays have no order: TypeError. bfloat16 sorts as float32 (exact; NumPy's
bfloat16 comparisons misplace NaN).

Engines (gates and their measurements: ``flexarray/_engines/gates.py``, Sorting):

- ``sort`` of integers and bools is NumPy's default sort (SIMD quicksort) whatever
  ``stable`` says: equal integers are the same bits, so every correct sort is the stable
  one. Floats from ``TIES_MIN`` elements: NumPy's SIMD sort, then
  ``_kernels.sort.ties.stable_values`` puts the only equal-comparing elements whose bits
  differ (runs of ``-0.0``/``+0.0`` and of NaNs) in their original order (O(log n) a row
  when there are none). float16 from ``RADIX_MIN`` elements along the axis: the radix kernel.
- ``argsort(stable=True)`` of 32/64-bit numbers (``TIES_MIN`` elements or more, axes up to
  ``TIES_MAX``): NumPy's SIMD argsort, then ``ties.stable_ties`` sorts the indices inside
  each run of equal values; a run longer than ``TIES_MAXRUN`` (many ties) hands the call
  to the radix kernel (``flexarray._kernels.sort.radix``, axes of ``RADIX_MIN`` or more)
  or to NumPy's stable sort. Longer axes: the radix kernel.
- ``stable=False``: NumPy's SIMD sorts; float16 sorts and argsorts as with ``stable=True``
  (the radix kernel, or NumPy's stable sort: NumPy's default float16 sort is wrong on
  AVX-512 CPUs without AVX512-FP16, see ``_kind``).
- Everything else and small calls: NumPy's sorts (``kind='stable'`` when stability is asked
  for), which radix-sort 8/16-bit integers and bool themselves.
"""
from __future__ import annotations

import numpy as np

from ._array import wrap
from ._helpers import (AxisError, check_array, check_bool, index_result, moved, normalize_axis,
                       ordered_operand)
from ._engines import gates

__all__ = ["argsort", "sort"]

RADIX_MIN = gates.RADIX_KERNEL_MIN  # measured: flexarray/_engines/gates.py
TIES_MIN = gates.SORT_TIES_MIN
TIES_MAX = gates.SORT_TIES_MAX
TIES_MAXRUN = gates.SORT_TIES_MAXRUN

#: dtypes NumPy sorts and argsorts with SIMD (x86-simd-sort), after bfloat16 -> float32
_SIMD = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64,
                                        np.uint32, np.uint64))


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


def _ties():
    from ._engines.dispatch import kernel_module
    return kernel_module("sort.ties")


def _radix_rows(x, ax):
    """(radix kernel module, x's elements as C-contiguous rows along ``ax``), or None."""
    a = x._arr
    n = a.shape[ax]
    if n < RADIX_MIN:
        return None
    from ._engines.dispatch import kernel_module
    mod = kernel_module("sort.radix")
    if not mod.supports(a.dtype):
        return None
    if ax != a.ndim - 1:
        a = moved(a, ax, -1)
    return mod, np.ascontiguousarray(a).reshape(-1, n)


def _unrows(r, x, ax):
    """Rows from ``_radix_rows`` back in ``x``'s shape (the sorted axis at ``ax``)."""
    shape = x._arr.shape
    if ax == len(shape) - 1:
        return r.reshape(shape)
    return moved(r.reshape(shape[:ax] + shape[ax + 1:] + (shape[ax],)), -1, ax)


def _last(a, ax):
    """``a`` with axis ``ax`` moved last (a view)."""
    return a if ax == a.ndim - 1 else moved(a, ax, -1)


def _rows(m):
    """``m`` (sorted axis last) as 2-D rows: a view of C-contiguous results (np.argsort's
    are); inputs may come back as a copy (the kernels only read those)."""
    return m if m.ndim == 2 else m.reshape(-1, m.shape[-1])


def _reverse_key(a):
    """A key whose ascending order is ``a``'s descending order (NaN still last)."""
    return np.negative(a) if a.dtype.kind == "f" else np.invert(a)


def _sorted_key(x, key, ax, stable):
    """``key`` (x's ordered operand, reversed for descending) sorted along ``ax``."""
    floats = key.dtype.kind == "f"  # (equal integers and bools are the same bits: any
    # sort of them is the stable one)
    if floats and stable and key.size >= TIES_MIN and key.dtype in _SIMD:
        m = _last(key, ax)
        r = np.array(m, order="C")  # (np.sort's copy keeps m's layout: rows would copy)
        r.sort(axis=-1)
        _ties().stable_values(_rows(r), _rows(m))
        return r if ax == key.ndim - 1 else moved(r, -1, ax)
    r = key.copy()  # the ndarray methods skip np.sort's Python wrapper (~0.3 us)
    r.sort(axis=ax, kind=_kind(key.dtype, stable))
    return r


def _kind(dtype, stable):
    """NumPy's sort kind for ``dtype``: "stable" where stability is asked for and matters
    (floats: bits of equal values differ), and always for float16: NumPy 2.4's default
    float16 sort (x86-simd-sort's emulated float16, on AVX-512 CPUs without AVX512-FP16)
    returned unsorted arrays with negative values (4,096 of arange % 7 - 3)."""
    if dtype == np.float16:
        return "stable"
    return "stable" if stable and dtype.kind == "f" else None


def sort(x, /, *, axis=-1, descending=False, stable=True):
    """A sorted copy of ``x`` along ``axis`` (NaN last; stable by default)."""
    a, ax, descending, stable = _prepare("sort", x, axis, descending, stable)
    if a.dtype == np.float16 and (radix := _radix_rows(x, ax)) is not None:  # (see _kind)
        return wrap(_as_laid_out(_unrows(radix[0].sort(radix[1], descending), x, ax), x))
    key = _reverse_key(a) if descending else a
    r = _sorted_key(x, key, ax, stable)
    if descending:
        r = _reverse_key(r)
    return wrap(_as_laid_out(r.astype(x._dtype, copy=False), x))


def _as_laid_out(r, x):
    """Sorted values ``r`` in the memory order NumPy's ``np.sort`` gives (its copy of x is
    order "K"), so that reshapes of the result are views exactly where NumPy's are."""
    a = x._arr
    if a.ndim < 2 or (r.flags.c_contiguous and a.flags.c_contiguous) or (
            r.flags.f_contiguous and a.flags.f_contiguous):
        return r
    if a.flags.c_contiguous:  # (sorted along another axis than the last: a moved view)
        return np.ascontiguousarray(r)
    out = np.empty_like(a, dtype=r.dtype)  # (order "K": x's layout, compacted)
    out[...] = r
    return out


def _stable_argsort(key, ax):
    """NumPy's SIMD argsort of ``key`` along ``ax`` made stable, or None (long tie runs)."""
    m = _last(key, ax)
    p = m.argsort(axis=-1)
    if not _ties().stable_ties(_rows(m), _rows(p), TIES_MAXRUN):
        return None
    return p if ax == key.ndim - 1 else moved(p, -1, ax)


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    """int64 indices that sort ``x`` along ``axis`` (NaN last; stable by default)."""
    a, ax, descending, stable = _prepare("argsort", x, axis, descending, stable)
    key = _reverse_key(a) if descending else a
    n = a.shape[ax]
    if not stable and a.dtype != np.float16:
        return index_result(key.argsort(axis=ax))
    if (stable and a.size >= TIES_MIN and a.dtype in _SIMD
            and n <= TIES_MAX[a.dtype.itemsize]
            and (p := _stable_argsort(key, ax)) is not None):
        return index_result(_as_laid_out(p, x))
    if (radix := _radix_rows(x, ax)) is not None:
        return index_result(_as_laid_out(_unrows(radix[0].argsort(radix[1], descending), x,
                                                 ax), x))
    return index_result(key.argsort(axis=ax, kind="stable" if stable else None))
