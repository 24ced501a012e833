"""The reductions' engine (private): ``reduce_np``, the sums, products, maxima and minima
of NumPy arrays over axes, for the statistical functions and for ``all``/``any``.

The Numba reduction kernels where they were measured faster (:mod:`._engines`), NumPy's
reduce otherwise, with three shapes of work NumPy's loop handles slowly taken apart: a
short innermost axis folded column by column, a long outer axis of small slices folded
by halves, and large reductions cut into pieces on the pool's threads.
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _threads
from ._engines import dispatch, gates
from ._helpers import ignore_fp_errors, moved, quiet_call

__all__ = ["UFUNCS", "reduce_np"]

#: the ufunc whose ``reduce`` computes each reduction (``np.sum`` & co. add ~4 us of Python)
UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def reduce_np(op: str, a: np.ndarray, axes: tuple, acc, keepdims: bool = False):
    """``op`` of NumPy array ``a`` over ``axes``, accumulating in NumPy dtype ``acc``: the
    Numba kernel where measured faster (see :mod:`._engines`), else NumPy. Floating
    overflow gives inf without a warning (the IEEE result)."""
    r = dispatch.reduce(op, a, axes, acc, keepdims)
    if r is not None:
        return r
    f = UFUNCS[op]
    full = len(axes) == a.ndim
    r = None
    if not full:  # (the folds reduce one axis of several)
        r = _fold_short_axis(f, op, a, axes, acc, keepdims)
        if r is None:
            r = _fold_rows(f, op, a, axes, acc, keepdims)
    if r is None and (a.nbytes >= _SPLIT_MIN_BYTES or (
            not full and a.size >= _SPLIT_SHORT_ROWS_MIN and _row_length(a) <= _SHORT_ROW)):
        r = _reduce_split(f, op, a, axes, acc, keepdims)
    if r is not None:
        return r
    if full:
        axes = None  # NumPy's full-reduction path: ~7% faster than naming every axis
    if op in ("max", "min"):  # never warns (NaN propagates quietly)
        return f.reduce(a, axes, None, None, keepdims)
    if a.dtype.kind in "biu" and np.dtype(acc).kind in "biu":  # integers wrap quietly
        return f.reduce(a, axes, acc, None, keepdims)
    return quiet_call(f.reduce, a, axes, acc, None, keepdims)


_SPLIT_MIN_BYTES = gates.REDUCE_SPLIT_MIN_BYTES
_SPLIT_SHORT_ROWS_MIN = gates.REDUCE_SPLIT_SHORT_ROWS_MIN
_SHORT_ROW = gates.REDUCE_SHORT_ROW_MAX


def _row_length(a: np.ndarray) -> int:
    """The extent of ``a``'s innermost dim in memory (1 when no dim holds more)."""
    d = dispatch.innermost_dim(a)
    return 1 if d is None else a.shape[d]


_FOLD_MINMAX = gates.SHORT_AXIS_FOLD_MAX_MINMAX
_FOLD_MINMAX_CACHED = gates.SHORT_AXIS_FOLD_MAX_MINMAX_CACHED
_FOLD_CACHED_SIZE = gates.SHORT_AXIS_FOLD_CACHED_MAX_SIZE


def _fold_short_axis(f, op, a, axes, acc, keepdims):
    """``op`` over one short innermost axis as a fold of its slices with the ufunc ``f``
    (``gates.SHORT_AXIS_FOLD_MAX``: NumPy's own bits, ~10-35x faster; max and min, which
    do not round, up to ``SHORT_AXIS_FOLD_MAX_MINMAX[_CACHED]``: NumPy's values, though
    where +0 and -0 tie the sign may be the other one); None otherwise."""
    if len(axes) != 1:
        return None
    ax = axes[0]
    k = a.shape[ax]
    if op in ("max", "min"):
        most = _FOLD_MINMAX if a.size > _FOLD_CACHED_SIZE else _FOLD_MINMAX_CACHED
    else:
        most = gates.SHORT_AXIS_FOLD_MAX
    if not 2 <= k <= most or a.size < k * gates.SHORT_AXIS_FOLD_MIN_OUT:
        return None
    if op in ("sum", "prod") and np.dtype(acc) != a.dtype:
        return None
    if a.flags.c_contiguous and a.shape[-1] > 1:
        if ax != a.ndim - 1:
            return None  # not the innermost axis: NumPy's reduce adds whole rows already
    else:
        step = abs(a.strides[ax])
        if any(abs(s) <= step for d, (n, s) in enumerate(zip(a.shape, a.strides))
               if d != ax and n > 1):
            return None  # (the same)
    lead = (slice(None),) * ax
    with ignore_fp_errors():
        r = f(a[lead + (0,)], a[lead + (1,)])
        for i in range(2, k):
            f(r, a[lead + (i,)], out=r)
    return np.expand_dims(r, ax) if keepdims else r


def _fold_rows(f, op, a, axes, acc, keepdims):
    """``op`` over one long axis, not the innermost, whose slices are small (axis 0 of a
    (2000, 20) matrix: NumPy's reduce pays ~10 ns per slice there) as a pairwise fold of
    halves with the ufunc ``f`` (``gates.ROW_FOLD_*``: 1.4-10x faster); None otherwise.
    Sums come out pairwise, more accurate than NumPy's slice-by-slice order (the bits may
    differ)."""
    if len(axes) != 1:
        return None
    ax = axes[0]
    n = a.shape[ax]
    if n < gates.ROW_FOLD_MIN_ROWS or a.size > n * gates.ROW_FOLD_MAX_OUT:
        return None
    step = abs(a.strides[ax])
    if step <= a.itemsize:
        return None  # the innermost axis: NumPy's loop is fast
    others = [abs(s) for d, (m, s) in enumerate(zip(a.shape, a.strides)) if d != ax and m > 1]
    if not others or step <= builtins.min(others):
        return None  # (or nothing beside it, or not the outer axis)
    if op in ("sum", "prod") and np.dtype(acc) != a.dtype:
        return None
    b = a if ax == 0 else moved(a, ax, 0)
    with ignore_fp_errors():
        h = n // 2
        r = f(b[:h], b[h:2 * h])
        if n & 1:
            f(r[:1], b[2 * h:], out=r[:1])
        n = h
        while n > 1:
            h = n // 2
            f(r[:h], r[h:2 * h], out=r[:h])
            if n & 1:
                f(r[:1], r[2 * h:n], out=r[:1])
            n = h
    return np.expand_dims(r[0], ax) if keepdims else r[0]


def _reduce_split(f, op, a, axes, acc, keepdims):
    """A large reduction (:func:`reduce_np` gates the size: ``gates.REDUCE_SPLIT_*``) cut
    along its outermost axis into pieces that NumPy's reduce (which releases the GIL)
    takes on the pool's threads, the caller included: NumPy's loop is memory-bound at ~25
    GB/s on one core, and a second one adds ~1.3-1.4x. Cut along a kept axis, every output
    is NumPy's own; cut along a reduced one, the pieces' results are combined with ``f``
    (sums then add in another order than NumPy's, to its error bound). None when it does
    not apply."""
    if _threads.NTHREADS < 2 or _threads.runs_inline():
        return None
    ax = builtins.max(range(a.ndim), key=lambda d: abs(a.strides[d]) if a.shape[d] > 1 else -1)
    n = a.shape[ax]
    pieces = builtins.min(n, 4 * _threads.NTHREADS)
    if pieces < 2:
        return None
    bounds = [n * i // pieces for i in range(pieces + 1)]
    lead = (slice(None),) * ax
    dtype = acc if op in ("sum", "prod") else None
    parts = [None] * pieces

    def work(i):
        with ignore_fp_errors():
            parts[i] = f.reduce(a[lead + (slice(bounds[i], bounds[i + 1]),)], axes, dtype,
                                None, True)

    _threads.run_items(work, range(pieces), pin=False)
    if ax in axes:
        r = parts[0]
        with ignore_fp_errors():
            for p in parts[1:]:
                f(r, p, out=r)
    else:
        r = np.concatenate(parts, axis=ax)
    return r if keepdims else r.reshape([m for d, m in enumerate(r.shape) if d not in axes])
