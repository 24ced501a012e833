"""Set functions: isin, unique_all, unique_counts, unique_inverse, unique_values.

Uniqueness is value equality (``equal``): every NaN (and every complex value with a NaN
component) is distinct, with a count of one, in the order the NaNs occur; ``-0.0`` and
``+0.0`` are one value, reported as the first of them to occur. Unique values come out in
ascending order (NaN last); ``indices`` are first occurrences.

Engines:

- integer and bool arrays of ``gates.UNIQUE_COUNTING_MIN`` elements or more whose values
  span at most as many integers as there are elements: one counting pass (the sort engine's
  ``unique_by_counting``, ``flexarray._engines.sort``: counts, first occurrences, codes);
- otherwise a sort of the flattened input: NumPy's SIMD sort for ``unique_values`` and
  ``unique_counts``, its SIMD argsort for ``unique_inverse`` and ``unique_all`` (first
  occurrences are the smallest index of each run, ``minimum.reduceat``, so no stable sort
  is needed). float16 and bfloat16 sort as float32 (exact); complex arrays use NumPy's
  stable argsort (NaN sorts in several places).
"""
from __future__ import annotations

import builtins
from typing import NamedTuple

import numpy as np

from . import _dtypes as _dt
from ._array import Array, wrap
from ._engines import sort as _sort
from ._helpers import check_array, check_bool

__all__ = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]


class UniqueAllResult(NamedTuple):
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class UniqueCountsResult(NamedTuple):
    values: Array
    counts: Array


class UniqueInverseResult(NamedTuple):
    values: Array
    inverse_indices: Array


def _first_zero(values, flat):
    """Give the zero among the sorted ``values`` (if any) the sign of the first zero in
    ``flat`` (a SIMD sort may hand one zero's sign to the others)."""
    i = values.searchsorted(0)
    if i < values.size and values[i] == 0:
        values[i] = flat[(flat == 0).argmax()]


def _unique(x, func, need):
    """(values, first indices, inverse indices, counts) as NumPy arrays; those that
    ``need`` ("values", "counts", "inverse" or "all") does not ask for may be None."""
    check_array(x, func)
    flat = x._arr.reshape(-1)
    if (r := _sort.unique_by_counting(flat, x._arr.shape, need)) is not None:
        return r
    n = flat.size
    key = flat.astype(np.float32) if x._dtype in _dt.HALF else flat
    complex_ = key.dtype.kind == "c"  # (NaN comes in several places: a stable sort)
    if need == "values" or (need == "counts" and not complex_):
        s = key.copy()  # (the ndarray methods skip NumPy's Python wrappers)
        s.sort()
        perm = None
    else:
        perm = key.argsort(kind="stable" if complex_ else None)
        s = key[perm]
        if n and s[-1] != s[-1] and not complex_:  # NaNs (each its own value) in the
            perm[s.searchsorted(s[-1]):].sort()   # order they occur
    new = np.empty(n, np.bool_)  # True where a sorted element starts a new value
    if n:
        new[0] = True
        np.not_equal(s[1:], s[:-1], out=new[1:])  # NaN != NaN: each NaN stands alone
    values = s[new]
    if key.dtype.kind == "f":
        _first_zero(values, key)
    values = values.astype(x._dtype, copy=False)
    if need == "values":
        return values, None, None, None
    starts = new.nonzero()[0]
    counts = np.empty(starts.size, np.int64)  # (np.diff(append=) costs ~5 us)
    np.subtract(starts[1:], starts[:-1], out=counts[:-1])
    counts[-1:] = n - starts[-1:]
    if perm is None:
        return values, None, None, counts
    inverse = np.empty(n, np.int64)
    inverse[perm] = new.cumsum() - 1
    first = None
    if need == "all" and n:
        first = np.minimum.reduceat(perm, starts).astype(np.int64, copy=False)
        values = flat[first]  # the first of equal values (-0.0 or +0.0)
    elif need == "all":
        first = np.empty(0, np.int64)
    return values, first, inverse.reshape(x.shape), counts


def unique_values(x, /):
    """The distinct elements of ``x`` (flattened), ascending (each NaN distinct, last)."""
    return wrap(_unique(x, "unique_values", "values")[0])


def unique_counts(x, /):
    """``(values, counts)``: the distinct elements of ``x`` and how often each occurs."""
    v, _, _, c = _unique(x, "unique_counts", "counts")
    return UniqueCountsResult(wrap(v), wrap(c))


def unique_inverse(x, /):
    """``(values, inverse_indices)``: ``values[inverse_indices]`` rebuilds ``x`` (shape of x;
    signed zeros may come back as the other zero)."""
    v, _, inv, _ = _unique(x, "unique_inverse", "inverse")
    return UniqueInverseResult(wrap(v), wrap(inv))


def unique_all(x, /):
    """``(values, indices, inverse_indices, counts)``: the distinct elements, the index of
    each one's first occurrence in flattened ``x``, the inverse, and the counts."""
    v, first, inv, c = _unique(x, "unique_all", "all")
    return UniqueAllResult(wrap(v), wrap(first), wrap(inv), wrap(c))


def _isin_operand(v, other, name):
    """``(NumPy operand, dtype, fits)`` of one isin argument; ``fits`` is False for a Python
    int outside the other array's integer dtype (it equals none of its elements)."""
    if isinstance(v, Array):
        return v._arr, v._dtype, True
    if type(v) not in (int, builtins.bool):
        raise TypeError(f"isin: '{name}' must be a flexarray array or a Python int, got "
                        f"{type(v).__name__}")
    if not isinstance(other, Array):
        raise TypeError("isin: at least one of 'x1', 'x2' must be a flexarray array (got two "
                        "Python ints)")
    d = _dt.scalar_dtype(v, other._dtype)
    if _dt.is_integer(d):
        info = np.iinfo(d)
        if not info.min <= v <= info.max:
            return None, d, False
    return np.asarray(_dt.scalar_operand("isin", v, d)), d, True


def isin(x1, x2, /, *, invert=False):
    """For each element of ``x1``: whether it equals some element of ``x2`` (value equality:
    NaN is in nothing, ``-0.0`` matches ``+0.0``); negated with ``invert=True``.

    Bool array of ``x1``'s shape (0-d when ``x1`` is a Python int).
    """
    invert = check_bool(invert, "isin", "invert")
    a1, d1, fits1 = _isin_operand(x1, x2, "x1")
    a2, d2, fits2 = _isin_operand(x2, x1, "x2")
    shape = x1.shape if isinstance(x1, Array) else ()
    if not (fits1 and fits2):
        return wrap(np.full(shape, invert, np.bool_))
    signed_unsigned = {d1, d2} == {_dt.int64, _dt.uint64}
    if signed_unsigned:
        # no dtype holds both: drop the x2 values x1's dtype cannot hold (they match nothing)
        a2 = a2[a2 >= np.int64(0)] if d1 is _dt.uint64 else a2[a2 <= np.uint64(2**63 - 1)]
        a2, work = a2.astype(d1), d1
    else:
        dt = _dt.promote(d1, d2, "isin")
        work = np.float32 if dt in _dt.HALF else dt
    r = np.isin(a1.astype(work, copy=False), np.asarray(a2).astype(work, copy=False),
                invert=invert)
    return wrap(np.asarray(r, np.bool_).reshape(shape))
