"""The reductions' engine: sums, products, maxima and minima of NumPy arrays over axes
(the statistical functions, ``all``/``any``, the nan-functions, ``trace`` and the norms), the
only place that chooses between the Numba reduction kernels, NumPy's reduce and the pool's
threads for them.

Chooses (gates in :mod:`.gates`, Reductions):

- the kernels (``flexarray._kernels.reductions.reduce``) where they measured faster
  (:func:`by_kernel`): float16/bfloat16 (NumPy converts element by element), widening sums
  and products (integers of less than 64 bits into 64, float32 into float64) and float32
  sums and products, each from its size in ``gates.REDUCE_KERNEL_MIN``, and max/min of
  floats over a kept innermost dim from ``gates.MINMAX_OUTER_KERNEL_MIN_BYTES``; among
  them, NumPy's pairwise loop for short contiguous runs (``_SHORT_RUN``); the kernels'
  threads (:func:`_kernel_threads`);
- the nan-reductions in one pass of the kernels (:func:`nan_reduce`) from
  ``gates.NAN_REDUCE_KERNEL_MIN`` elements;
- NumPy's reduce otherwise (:func:`reduce`), with three shapes of work its loop handles
  slowly taken apart: a short innermost axis folded column by column, a long outer axis of
  small slices folded by halves, and large reductions cut into pieces on the pool's
  threads, each cut giving NumPy's single call's bits (docs/architecture.md, "Same bits
  on any thread").

Operands are NumPy arrays the frontend has validated (axes sorted, max/min over no
elements rejected); results are fresh NumPy arrays or scalars.
"""
import math

import ml_dtypes
import numpy as np

from .. import _threads
from .._fp import fp_quiet, fp_quiet_numpy
from .._helpers import moved
from . import gates

__all__ = ["KERNEL_MIN", "UFUNCS", "by_kernel", "extremum", "innermost_dim",
           "kernel_takes_all", "nan_reduce", "reduce", "sums_rows_in_order"]

_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

#: below this many elements no reduction takes the kernels (the smallest of
#: ``gates.REDUCE_KERNEL_MIN``; checked first, ~0.2 us: the chapters' small-call paths too)
KERNEL_MIN = min(gates.REDUCE_KERNEL_MIN.values())


# --- the kernels ---------------------------------------------------------------------------

def _reduce_gate(op, a, axes, acc):
    """The size from which the kernels take ``op`` of ``a`` over ``axes`` in ``acc``; None
    where they never do."""
    dt = a.dtype
    if dt in _HALF:
        return gates.REDUCE_KERNEL_MIN["float16" if dt == _HALF[0] else "bfloat16"]
    if (op in ("max", "min") and dt.kind == "f"
            and a.nbytes >= gates.MINMAX_OUTER_KERNEL_MIN_BYTES and _reduces_outer(a, axes)):
        return 0
    if op in ("sum", "prod"):
        if (dt.kind in "biu" and dt.itemsize < 8 and acc.itemsize == 8) or (
                dt == _F32 and acc == _F64):
            return gates.REDUCE_KERNEL_MIN["widening"]
        if dt == _F32 and acc == _F32:
            return gates.REDUCE_KERNEL_MIN["float32 sum/prod"]
    return None


#: inner mode over contiguous runs shorter than this: NumPy's pairwise loop, whose per-run
#: cost is lower than the kernel's ~60-100 ns (float32 rows of 64: the kernel at 0.35x
#: NumPy's speed, 256: 0.6x, 512: ~0.9x, 1024-4096: 0.9-1.2x); with no half or widening
#: conversion NumPy is as accurate
_SHORT_RUN = 1024
#: a kernel reduction reads each element this many times or more (overlapping windows):
#: compute-bound, on every thread from gates.REDUCE_OVERLAP_THREADS_MIN
_REUSE = 4


def _kernel_threads(p):
    """The threads of the kernels' plan ``p``: from ``gates.REDUCE_THREADS_MIN`` elements;
    max/min (no rounding) from ``gates.MINMAX_OUTER_KERNEL_MIN_BYTES``; input that overlaps
    itself (``_REUSE`` reads per element) from ``gates.REDUCE_OVERLAP_THREADS_MIN``."""
    total = p.nred * p.nout
    nth = _threads.threads_for(total, gates.REDUCE_THREADS_MIN)
    if p.op >= 2 and p.a.nbytes >= gates.MINMAX_OUTER_KERNEL_MIN_BYTES:
        nth = _threads.NTHREADS
    if total >= gates.REDUCE_OVERLAP_THREADS_MIN and _REUSE * p.span <= total:
        nth = _threads.NTHREADS
    return nth


def _run_kernel(op, a, axes, acc=None, nan=None):
    """``op`` of ``a`` over ``axes`` (result dtype ``acc``; None: ``a``'s) by the kernels,
    with NaN skipped or counted (``nan``: see ``_kernels.reductions.reduce.plan``), or by
    NumPy's loop over short contiguous runs."""
    from .._kernels.reductions import reduce as kernels
    p = kernels.plan(op, a, axes, acc, nan)
    if p.result is None and p.contiguous_runs and p.nred < _SHORT_RUN:
        with np.errstate(all="ignore"):
            r = np.asarray(UFUNCS[op].reduce(p.a, p.axes, p.dt if p.op < 2 else None))
        return r.astype(np.bool_) if p.as_bool else r
    return kernels.run(p, _kernel_threads(p))


def _f32_product(a, axes, nan):
    """A float32 product by the kernel, accumulated in float64 and rounded once. In
    float32 its lanes, whose short products stay near 1 for data near 1, round with a bias
    (products of 4M values in [0.999, 1.001]: relative error -1.6e-3 against NumPy's
    3.7e-5, growing with the length); in float64 it is exact to ~1e-8 at that size and,
    over all axes or the innermost, as fast (4096^2: 1.7-2.3 ms either way, NumPy 17 ms).
    Over an outer axis float64 lanes cost 1.3-1.9x float32's (4096^2 axis 0: 3.3 ms,
    NumPy 2.0): :func:`by_kernel` leaves that to NumPy."""
    r = _run_kernel("prod", a, axes, _F64, nan)
    with np.errstate(over="ignore"):  # (beyond float32's range: inf, the IEEE rounding)
        return r.astype(_F32)


def innermost_dim(a):
    """The dim of ``a`` innermost in memory (the smallest stride, sizes 1 aside); None when
    no dim has more than one element."""
    if a.flags.c_contiguous and a.ndim and a.shape[-1] > 1:
        return a.ndim - 1
    inner = min(((abs(s), d) for d, (n, s) in enumerate(zip(a.shape, a.strides)) if n > 1),
                default=None)
    return None if inner is None else inner[1]


def _reduces_outer(a, axes) -> bool:
    """Whether the innermost dim of ``a`` in memory is a kept one."""
    d = innermost_dim(a)
    return d is not None and d not in axes


def by_kernel(op, a, axes, acc, keepdims):
    """``op`` ("sum", "prod", "max", "min") of ``a`` over the sorted tuple ``axes``,
    accumulating in NumPy dtype ``acc`` (sum/prod), as a fresh array of dtype ``acc`` (or
    ``a.dtype`` for max/min) by the kernels; None when NumPy is faster."""
    if a.size < KERNEL_MIN or not axes:
        return None
    gate = _reduce_gate(op, a, axes, np.dtype(acc))
    if gate is None or a.size < gate:
        return None
    if op == "prod" and a.dtype == _F32 and acc == _F32:
        if _reduces_outer(a, axes):
            return None  # (NumPy's row-by-row product: unbiased, and faster than float64's)
        r = _f32_product(a, axes, None)
    else:
        r = _run_kernel(op, a, axes, acc if op in ("sum", "prod") else None)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
    return r


def kernel_takes_all(op, dt, shape, acc) -> bool:
    """Whether ``op`` over every axis of a C-contiguous array of ``shape`` and NumPy dtype
    ``dt`` (accumulating in ``acc``; None: ``dt``) runs on the kernels rather than NumPy's
    reduce (whose bits the fusion engine reproduces)."""
    a = np.broadcast_to(np.empty((), dt), shape)  # (the gates read its dtype and size)
    if a.size < KERNEL_MIN or not shape:
        return False
    gate = _reduce_gate(op, a, tuple(range(len(shape))), np.dtype(acc if acc else dt))
    return gate is not None and a.size >= gate


def sums_rows_in_order(dt, shape, acc) -> bool:
    """Whether the sum over axis 0 of a C-contiguous array of ``shape`` (two dimensions or
    more, rows of more than one element) and NumPy dtype ``dt``, in ``acc``, adds the rows
    in turn (NumPy's own reduce, or :func:`_sequential`), not by the kernels nor by the
    pairwise fold of :func:`_fold_rows` (many short rows)."""
    n, row = shape[0], math.prod(shape[1:])
    if len(shape) < 2 or shape[-1] < 2 or np.dtype(acc) != dt:
        return False
    if n * row >= KERNEL_MIN:
        gate = _reduce_gate("sum", np.broadcast_to(np.empty((), dt), shape), (0,), np.dtype(acc))
        if gate is not None and n * row >= gate:
            return False
    return not (n >= gates.ROW_FOLD_MIN_ROWS and row <= gates.ROW_FOLD_MAX_OUT)


def nan_reduce(op, a, axes, acc, nan, keepdims):
    """``op`` ("sum", "prod") of floating ``a`` over the sorted tuple ``axes`` with NaN
    elements skipped (``nan`` "skip": NumPy's nansum/nanprod) or counted ("count": the
    number of elements that are not NaN, with ``op`` "sum"), in NumPy dtype ``acc``, by the
    kernels; None below ``gates.NAN_REDUCE_KERNEL_MIN`` (the caller runs NumPy's
    nan-functions)."""
    if a.size < gates.NAN_REDUCE_KERNEL_MIN or not axes:
        return None
    if op == "prod" and a.dtype == _F32 and acc == _F32:
        r = _f32_product(a, axes, nan)
    else:
        r = _run_kernel(op, a, axes, acc, nan)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
    return r


def extremum(op, a, axes, keepdims):
    """``op`` ("max" or "min") of ``a`` over ``axes`` (none of them empty where the result
    is not): the kernels where they take it, else NumPy's reduce, on float16/bfloat16 in
    float32 (exact; NumPy's own float16/bfloat16 max is 8-18x slower)."""
    r = by_kernel(op, a, axes, a.dtype, keepdims)
    if r is None:
        if a.dtype in _HALF:
            a = a.astype(_F32)
        r = reduce(op, a, axes, a.dtype, keepdims)
    return r


# --- NumPy's reduce ------------------------------------------------------------------------

#: the ufunc whose ``reduce`` computes each reduction (``np.sum`` & co. add ~4 us of Python)
UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def reduce(op: str, a: np.ndarray, axes: tuple, acc, keepdims: bool = False):
    """``op`` of NumPy array ``a`` over ``axes``, accumulating in NumPy dtype ``acc``: the
    Numba kernels where measured faster (:func:`by_kernel`), else NumPy. Floating
    overflow gives inf without a warning (the IEEE result)."""
    r = by_kernel(op, a, axes, acc, keepdims)
    if r is not None:
        return r
    f = UFUNCS[op]
    full = len(axes) == a.ndim
    r = None
    if not full:  # (the folds reduce one axis of several)
        r = _fold_short_axis(f, op, a, axes, acc, keepdims)
        if r is None:
            r = _fold_rows(f, op, a, axes, acc, keepdims)
    if r is None and (a.nbytes >= gates.REDUCE_SPLIT_MIN_BYTES or (
            not full and a.size >= gates.REDUCE_SPLIT_SHORT_ROWS_MIN
            and _row_length(a) <= gates.REDUCE_SHORT_ROW_MAX)):
        r = _reduce_split(f, op, a, axes, acc, keepdims)
    if r is not None:
        return r
    if full:
        axes = None  # NumPy's full-reduction path: ~7% faster than naming every axis
    if op in ("max", "min"):  # never warns (NaN propagates quietly)
        return f.reduce(a, axes, None, None, keepdims)
    if a.dtype.kind in "biu" and np.dtype(acc).kind in "biu":  # integers wrap quietly
        return f.reduce(a, axes, acc, None, keepdims)
    return fp_quiet_numpy(f.reduce, a, axes, acc, None, keepdims)


def _row_length(a: np.ndarray) -> int:
    """The extent of ``a``'s innermost dim in memory (1 when no dim holds more)."""
    d = innermost_dim(a)
    return 1 if d is None else a.shape[d]


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
        most = gates.SHORT_AXIS_FOLD_MAX_MINMAX if a.size > \
            gates.SHORT_AXIS_FOLD_CACHED_MAX_SIZE else gates.SHORT_AXIS_FOLD_MAX_MINMAX_CACHED
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
    with fp_quiet():
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
    if not others or step <= min(others):
        return None  # (or nothing beside it, or not the outer axis)
    if op in ("sum", "prod") and np.dtype(acc) != a.dtype:
        return None
    b = a if ax == 0 else moved(a, ax, 0)
    with fp_quiet():
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


def _sequential(op, a, axes, keepdims):
    """A float sum (or real product) along outer axes whose innermost dim in memory is a
    kept one (``sum(axis=0)`` of a C array): NumPy adds such slices in turn, and the
    kernel (``reductions.reduce.sequential``) adds them in the same order, NumPy's bits,
    on one thread, in 0.68-0.95x NumPy's time (2048^2 to 1M x 64 float64; cut over two
    threads it only got slower: no cut over threads gives these bits faster). None for
    other layouts."""
    from .._kernels.reductions import reduce as kernels
    r = kernels.sequential(op, a, axes)
    if r is None or not keepdims:
        return r
    return r.reshape(tuple(1 if d in axes else m for d, m in enumerate(a.shape)))


def _reduce_split(f, op, a, axes, acc, keepdims):
    """A large reduction (:func:`reduce` gates the size: ``gates.REDUCE_SPLIT_*``) cut
    into pieces that NumPy's reduce (which releases the GIL) takes on the pool's threads,
    the caller included: NumPy's loop is memory-bound at ~25 GB/s on one core, and a
    second one adds ~1.3-1.4x. None where NumPy's single call is the result.

    The pieces give NumPy's single call's bits (docs/architecture.md, "Same bits on any
    thread"), so the result depends neither on the thread count nor on where the call
    runs (inline, it is NumPy's single call):

    - cut along a kept axis, the outermost in memory: every output is NumPy's own, however
      the axis is cut; integers (and max and min of integers and bools) along any axis,
      whose results do not depend on the order;
    - a float or complex sum over every axis of an array whose elements form one run in
      memory with positive strides: cut at the nodes of NumPy's own pairwise summation
      tree (:func:`_tree_leaves`), the nodes' sums added along the same tree;
    - a float max or min over every axis: the pieces' extrema, and NumPy's single call
      inline, with a zero's sign and a NaN made canonical (:func:`_canonical_extremum`:
      NumPy's own depend on the order).

    Float sums and real products along outer axes whose innermost dim is kept go to
    :func:`_sequential` first (NumPy's order, inline too). Other float reductions along a
    reduced outermost axis (products over every axis, negative strides, odd layouts) run
    as NumPy's single call: no cut gives its bits.
    """
    full = len(axes) == a.ndim
    if not full and op in ("sum", "prod") and a.dtype == acc and a.dtype.kind in "fc":
        r = _sequential(op, a, axes, keepdims)
        if r is not None:
            return r
    ax = max(range(a.ndim), key=lambda d: abs(a.strides[d]) if a.shape[d] > 1 else -1)
    n = a.shape[ax]
    inline = _threads.NTHREADS < 2 or _threads.runs_inline()
    if ax in axes and not (a.dtype.kind in "biu" and np.dtype(acc).kind in "biu"):
        if op == "sum" and full and a.dtype == acc and a.dtype.kind in "fc":
            run = _one_run(a)
            if run is None or not _numpy_tree_holds(a.dtype) or inline:
                return None
            leaves = _tree_leaves(run.shape[0], a.dtype.kind == "c",
                                  max(1, (4 * _threads.NTHREADS - 1).bit_length()))
            sums = _run_pieces(lambda i: f.reduce(run[leaves[i][0]:leaves[i][1]]),
                               len(leaves))
            r = _tree_combine(sums, leaves)
            return np.reshape(r, (1,) * a.ndim) if keepdims else r
        if op in ("max", "min") and full and a.dtype.kind == "f":
            if inline or n < 2:
                r = f.reduce(a, None, None, None, keepdims)
            else:
                r = _cut(f, a, axes, None, ax, keepdims)
            return _canonical_extremum(op, a, r)
        return None
    if inline or n < 2:
        return None
    return _cut(f, a, axes, acc if op in ("sum", "prod") else None, ax, keepdims)


def _cut(f, a, axes, dtype, ax, keepdims):
    """``f.reduce`` of ``a`` over ``axes`` in ``4 * NTHREADS`` pieces along ``ax`` on the
    pool; the pieces' results joined (``ax`` kept) or combined pairwise (reduced)."""
    n = a.shape[ax]
    pieces = min(n, 4 * _threads.NTHREADS)
    bounds = [n * i // pieces for i in range(pieces + 1)]
    lead = (slice(None),) * ax
    parts = _run_pieces(lambda i: f.reduce(a[lead + (slice(bounds[i], bounds[i + 1]),)],
                                           axes, dtype, None, True), pieces)
    r = _combine_pairwise(f, parts) if ax in axes else np.concatenate(parts, axis=ax)
    return r if keepdims else r.reshape([m for d, m in enumerate(r.shape) if d not in axes])


def _canonical_extremum(op, a, r):
    """The max or min ``r`` (a scalar or 0-d/keepdims array) of float ``a`` over every
    axis, with the order-dependent parts of NumPy's result made canonical: a zero result
    is +0 for max when ``a`` holds a +0 (-0 for min when it holds a -0), a NaN result
    NumPy's default NaN. NumPy's own sign and NaN payload depend on which element its
    SIMD loop met first (the standard leaves both unspecified); a zero or NaN result costs
    one more pass, nothing else does."""
    v = r.reshape(()) if isinstance(r, np.ndarray) else r
    if v != 0 and v == v:
        return r
    if v != v:
        c = a.dtype.type(np.nan)
    else:
        zeros = a == 0
        signed = np.signbit(a)
        want = np.any(zeros & (signed if op == "min" else ~signed))
        c = a.dtype.type(-0.0 if (op == "min") == bool(want) else 0.0)
    return np.full(r.shape, c) if isinstance(r, np.ndarray) else c


def _run_pieces(fn, count):
    """``[fn(i) for i in range(count)]``, the calls on the pool's threads (or inline)."""
    parts = [None] * count

    def work(i):
        with fp_quiet():
            parts[i] = fn(i)

    _threads.run_items(work, range(count), pin=False)
    return parts


def _combine_pairwise(f, parts):
    """``parts`` combined with the ufunc ``f`` pairwise by index: (0 1) (2 3) ..., then
    the same over the results: one order for any thread count."""
    with fp_quiet():
        while len(parts) > 1:
            nxt = [f(parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
            if len(parts) & 1:
                nxt.append(parts[-1])
            parts = nxt
    return parts[0]


def _one_run(a):
    """``a``'s elements as a 1-D view in memory order when they form one evenly spaced
    run with positive strides (C or F order, transposes, a step along the innermost
    axis); None otherwise. NumPy's full reduction of such a layout is one pairwise sum
    over that run (with negative strides its order differs: not taken)."""
    if a.flags.c_contiguous:
        return a.reshape(-1)  # (~0.3 us; as_strided took ~50 us, 5% of a 32 MB sum)
    dims = sorted(((s, d) for d, (m, s) in enumerate(zip(a.shape, a.strides)) if m > 1),
                  reverse=True)
    if not dims or dims[-1][0] <= 0:
        return None
    for (s, _), (inner_s, d) in zip(dims, dims[1:]):
        if s != inner_s * a.shape[d]:
            return None
    return a.transpose([d for _, d in dims] + [d for d in range(a.ndim) if a.shape[d] <= 1]
                       ).reshape(-1, copy=False)


#: NumPy's pairwise summation (``@TYPE@_pairwise_sum``): runs of more than
#: ``_PW_BLOCK`` reals split at half their length, rounded down to a multiple of 8 reals
_PW_BLOCK = 128


def _tree_leaves(n, is_complex, depth):
    """The ``[lo, hi)`` element ranges of the nodes ``depth`` levels down NumPy's pairwise
    summation tree of ``n`` elements (complex elements count as two reals), in order;
    a node that NumPy does not split is a leaf higher up."""
    w = 2 if is_complex else 1
    out = []

    def split(lo, m, d):
        reals = m * w
        if d == 0 or reals <= _PW_BLOCK:
            out.append((lo, lo + m, d))
            return
        h = reals // 2
        h -= h % 8
        split(lo, h // w, d - 1)
        split(lo + h // w, m - h // w, d - 1)

    split(0, n, depth)
    return out


def _tree_combine(sums, leaves):
    """The leaves' sums added along the tree they came from (left + right)."""
    stack = []  # (value, level): a node of level d is complete with its sibling
    for v, (_, _, d) in zip(sums, leaves):
        level = d
        while stack and stack[-1][1] == level:
            left, _ = stack.pop()
            v = left + v
            level += 1
        stack.append((v, level))
    assert len(stack) == 1
    return stack[0][0]


_tree_checked = {}


def _numpy_tree_holds(dt) -> bool:
    """Whether this NumPy sums ``dt`` along the tree :func:`_tree_leaves` describes
    (checked once per dtype on 3,001 random elements, ~0.1 ms): else the third cut."""
    ok = _tree_checked.get(dt)
    if ok is None:
        v = np.random.default_rng(0).standard_normal(2 * 3001).view(np.complex128)
        v = (v if dt.kind == "c" else v.real.copy()).astype(dt)
        leaves = _tree_leaves(v.shape[0], dt.kind == "c", 3)
        r = _tree_combine([np.add.reduce(v[lo:hi]) for lo, hi, _ in leaves], leaves)
        ok = _tree_checked[dt] = bool(r == np.add.reduce(v))
    return ok
