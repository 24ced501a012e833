"""Reductions: sum, prod, max, min over any set of axes of any strided NumPy view.

Strict IEEE (no fastmath), deterministic (the summation order depends only on the shape and
layout, never on the thread count or the machine), vectorized, and at least as accurate as
NumPy's pairwise sum:

- inner mode (the innermost reduced dim is the most contiguous): runs along that dim are
  accumulated into ``_LANES`` lanes (``acc[l] += x[j + l]``: vectorizes without
  reassociation), ``_BLOCK`` elements per block; the lanes of a block fold pairwise and the
  block partials combine pairwise (a binary-counter stack).
- outer mode (a kept dim is the most contiguous, e.g. ``sum(axis=0)`` of a C array): a vector
  of ``_WIDTH`` columns accumulates ``_ROWS`` reduced positions per block (vectorized across
  columns); block vectors combine pairwise the same way. NumPy adds row by row here (a naive
  sum, error growing with the length); this is pairwise.
- large reductions are split into segments whose partials NumPy combines pairwise; segment
  sizes depend only on the shape, and segments run on the thread count the engine gives
  (``flexarray._engines.reductions``).
- sequential mode (``sequential``): NumPy's own order for float sums and real products
  along outer axes (``out += row`` row by row, from the identity), bit for bit NumPy's
  result, on one thread (faster than NumPy's loop: 0.68-0.95x its time; cutting the
  columns over threads only slowed it), for the large NumPy-dtype reductions that no cut
  over threads can give the single call's bits.

float16/bfloat16 accumulate in float32 and round once; integers accumulate in the result
dtype and wrap like NumPy; max/min propagate NaN like NumPy (the first NaN met, its bits);
a NaN result of a sum or product is the dtype's default NaN (:func:`_canonical_nan`).

First calls: each kernel asks ``flexarray._kernels.ready`` first; while its specialization
compiles in the background, ``standin`` computes the same bits in NumPy (the same lanes,
blocks, stacks and conversions in the same order; complex products excepted: they compile
on the caller's thread).

Entry points: ``plan(op, a, axes, dtype=None, nan=None) -> Plan`` (the layout: mode,
coalesced shapes, the facts the engine chooses by) and ``run(plan, nthreads) -> ndarray``;
``reduce(op, a, axes, dtype=None, nan=None, nthreads=1)`` (also ``reduce_sum``,
``reduce_prod``, ``reduce_max``, ``reduce_min``) does both. The engine chooses NumPy for
short contiguous runs and the thread count. One specialization per (input dtype,
accumulator dtype) and mode serves all four ops; cold compile ~1.5-2.4 s CPU each.

Measured (bench/bench_kernels.py, 4096x4096 float32, one thread, busy 2-core machine):
sum over all 0.9-1.1x NumPy, axis 1 1.0-1.2x, axis 0 1.0-1.3x (memory-bound: ~2.3-3.3 ms;
noise on this machine is +-15%); max axis 0 0.9-1.1x; float16 sum 12-25x (NumPy converts
element by element). Python overhead ~30 us per call: leave small arrays to NumPy.
"""
from typing import NamedTuple

import ml_dtypes
import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from flexarray._kernels import kernel, ready
from flexarray._kernels._intrinsics import (PLAIN, cast_like, element_kind, flat_view, gather,
                                            load_as, stack_array)
from flexarray._kernels._intrinsics import plan as _plan
from flexarray._kernels.reductions import standin
from flexarray._threads import run_split

__all__ = ["Plan", "plan", "run", "reduce", "reduce_sum", "reduce_prod", "reduce_max",
           "reduce_min", "sequential", "OPS"]

OPS = {"sum": 0, "prod": 1, "max": 2, "min": 3}
_BF16 = np.dtype(ml_dtypes.bfloat16)

_LANES = 64        # inner mode: independent accumulators (4 AVX-512 vectors of float32)
_BLOCK = 4096      # inner mode: elements per block (64 per lane) before the pairwise fold
_WIDTH = 4096      # outer mode: columns accumulated together (whole rows: sequential reads)
_ROWS = 256        # outer mode: reduced positions per block
_SEG = 1 << 16     # inner mode: elements per segment (a multiple of _BLOCK)
_SEG_ELEMS = 1 << 22  # outer mode: about this many elements per work item
_STACK = 64        # pairwise stack depth (2**64 blocks)



# ``nan``: None, or what a kernel does with NaN elements of a floating input: reduce them
# as the op's identity (NumPy's nansum/nanprod), or count the elements that are not NaN.
# Each is a compiled variant of its own, told apart by the Numba type of the argument (a
# runtime flag left LLVM's loops unvectorized: float32 sums over axis 0 1.7 -> 3.6 ms, or
# the NaN-skipping ones 1.5 -> 3.3 ms, depending on which it unswitched).
NAN_AS_IDENTITY = (0,)    # a 1-tuple
COUNT_NOT_NAN = (0, 0)    # a 2-tuple


def _is_nan(kind, v):
    """Whether input element ``v`` (of element kind ``kind``) is a NaN."""


@overload(_is_nan)
def _is_nan_impl(kind, v):
    if v == types.uint16:  # a half: its float32 value
        def impl(kind, v):
            f = load_as(kind, v, np.float32(0))
            return f != f
        return impl
    if isinstance(v, types.Float):
        return lambda kind, v: v != v
    return lambda kind, v: False


def _load(kind, v, ident, nan):
    """Element ``v`` as the accumulator type (``ident``'s), under ``nan`` (the NaN test on
    the element itself: the accumulator may be an integer)."""


@overload(_load)
def _load_impl(kind, v, ident, nan):
    if isinstance(nan, types.NoneType):
        return lambda kind, v, ident, nan: load_as(kind, v, ident)
    if nan.count == len(NAN_AS_IDENTITY):
        return lambda kind, v, ident, nan: ident if _is_nan(kind, v) else load_as(kind, v, ident)
    return lambda kind, v, ident, nan: ident if _is_nan(kind, v) else cast_like(1, ident)


# ---------------------------------------------------------------- kernels
# ``op`` and ``kind`` are runtime ints: the branches on them are loop-invariant and LLVM
# unswitches them, so one specialization per (input, accumulator) dtype serves all four
# ops. (Separate specializations per op, via type tags, measured 0.9 s of cold compile
# each against 1.4 s for all four together.)
def _combine(op, a, b):
    """``op(a, b)``: 0 sum, 1 product, 2 max, 3 min (NaN propagates, like NumPy)."""


@overload(_combine)
def _combine_impl(op, a, b):
    if isinstance(a, types.Complex):  # no max/min for complex numbers
        def impl(op, a, b):
            return a * b if op == 1 else a + b
        return impl

    def impl(op, a, b):
        if op == 0:
            return a + b
        if op == 1:
            return a * b
        # ``|``, not ``or``: a short-circuit branch here stopped vectorization (3x slower)
        if op == 2:
            return a if (a >= b) | (a != a) else b
        return a if (a <= b) | (a != a) else b
    return impl


@register_jitable
def _push(op, stk, top, count, v):
    """Push block partial number ``count`` on the pairwise stack (a binary counter: equal
    sized partials merge); returns the new top."""
    k = count
    while k & 1:
        top -= 1
        v = _combine(op, stk[top], v)
        k >>= 1
    stk[top] = v
    return top + 1


@register_jitable
def _lanes(op, kind, acc, v, m, ident, nan):
    """Accumulate the contiguous ``v[:m]`` into the lanes: ``acc[l] = op(acc[l], v[j+l])``
    (its own function: see ``_accumulate``). The lanes are worked on in a local stack copy,
    which LLVM keeps in vector registers whether or not this function is inlined (lanes
    behind a pointer stayed scalar: 2x slower)."""
    loc = stack_array(_LANES, ident)
    for l in range(_LANES):
        loc[l] = acc[l]
    j = 0
    while j + _LANES <= m:
        for l in range(_LANES):
            loc[l] = _combine(op, loc[l], _load(kind, v[j + l], ident, nan))
        j += _LANES
    for l in range(_LANES):
        acc[l] = loc[l]
    # the tail goes to ``acc`` (the same order as into ``loc``): a variable-length loop over
    # ``loc`` kept it out of registers (64-element rows: 1.2-1.7x slower)
    for l in range(m - j):
        acc[l] = _combine(op, acc[l], _load(kind, v[j + l], ident, nan))


def _inner_kernel(op, kind, x, xo, ksh, kst, rsh, rst, seg, ident, nan, partials, lo, hi):
    """Item ``t`` = (output ``q``, segment ``g``): partials[t] = reduction of the reduced
    positions ``[g*seg, (g+1)*seg)`` of output ``q`` (positions in C order of ``rsh``).
    Runs along the innermost reduced dim feed ``_LANES`` lanes; strided runs are gathered
    into a contiguous buffer first, so the lane loop is compiled once."""
    k0, k1, k2 = ksh
    r0, r1, n = rsh
    total = r0 * r1 * n
    nseg = (total + seg - 1) // seg
    acc = stack_array(_LANES, ident)
    for l in range(_LANES):
        acc[l] = ident
    stk = stack_array(_STACK, ident)
    tmp = np.empty(_BLOCK, x.dtype)
    for t in range(lo, hi):
        q = t // nseg
        g = t % nseg
        base = xo + (q // (k1 * k2)) * kst[0] + ((q // k2) % k1) * kst[1] + (q % k2) * kst[2]
        p = g * seg
        p1 = min(total, p + seg)
        top = 0
        count = 0
        room = _BLOCK
        while p < p1:
            row = p // n
            col = p - row * n
            m = min(n - col, p1 - p, room)
            start = base + (row // r1) * rst[0] + (row % r1) * rst[1] + col * rst[2]
            _lanes(op, kind, acc, gather(x, start, rst[2], m, tmp), m, ident, nan)
            p += m
            room -= m
            if room == 0 or p == p1:  # fold the lanes pairwise, push the block partial
                w = _LANES // 2
                while w:
                    for l in range(w):
                        acc[l] = _combine(op, acc[l], acc[l + w])
                    w //= 2
                top = _push(op, stk, top, count, acc[0])
                for l in range(_LANES):
                    acc[l] = ident
                count += 1
                room = _BLOCK
        r = stk[top - 1]
        for i in range(top - 2, -1, -1):
            r = _combine(op, stk[i], r)
        partials[t] = r


_inner = kernel(_inner_kernel)


@register_jitable
def _accumulate(op, kind, acc, v, w, ident, nan):
    """``acc[j] = op(acc[j], v[j])``: its own function so that LLVM unswitches the op and
    kind branches out of this loop before inlining it (in the big kernel it did not)."""
    for j in range(w):
        acc[j] = _combine(op, acc[j], _load(kind, v[j], ident, nan))


@register_jitable
def _accumulate4(op, kind, acc, v0, v1, v2, v3, w, ident, nan):
    """Four rows at once, combined pairwise first: four read streams and a quarter of the
    accumulator traffic (measured ~1.2x a row at a time, which NumPy does)."""
    for j in range(w):
        a = _combine(op, _load(kind, v0[j], ident, nan), _load(kind, v1[j], ident, nan))
        b = _combine(op, _load(kind, v2[j], ident, nan), _load(kind, v3[j], ident, nan))
        acc[j] = _combine(op, acc[j], _combine(op, a, b))


@register_jitable
def _carry(i0, i1, i2, r1, r2):
    """A position's multi-index ``(i0, i1, i2)`` whose last digit may have reached ``r2``,
    carried over (positions advance without divisions)."""
    if i2 == r2:
        i2 = 0
        i1 += 1
        if i1 == r1:
            i1 = 0
            i0 += 1
    return i0, i1, i2


@register_jitable
def _accumulate_block(op, kind, acc, x, start, step, rows, w, ident, nan, tmp):
    """:func:`_accumulate4` over ``rows`` (a multiple of 4) equally spaced rows of ``w``
    contiguous elements from ``start``: the same groups of four as the general loop, without
    its per-row index arithmetic (~25 ns a row: 1.5x the time of 256-wide float32 rows)."""
    for i in range(0, rows, 4):
        p = start + i * step
        _accumulate4(op, kind, acc, gather(x, p, 1, w, tmp[0]),
                     gather(x, p + step, 1, w, tmp[1]), gather(x, p + 2 * step, 1, w, tmp[2]),
                     gather(x, p + 3 * step, 1, w, tmp[3]), w, ident, nan)


def _outer_kernel(op, kind, x, xo, ksh, kst, rsh, rst, segr, ident, nan, partials, lo,
                  hi):
    """Item ``t`` = (kept outer index ``q``, column chunk ``c``, segment ``g``): the columns
    ``[c*_WIDTH, ...)`` of the innermost kept dim, reduced over the positions
    ``[g*segr, (g+1)*segr)``; partials has shape (nseg, k0*k1*k2) flattened. Blocks of
    ``_ROWS`` positions accumulate into a vector; block vectors combine pairwise."""
    k0, k1, k2 = ksh
    r0, r1, r2 = rsh
    total = r0 * r1 * r2
    nseg = (total + segr - 1) // segr
    ncc = (k2 + _WIDTH - 1) // _WIDTH
    nout = k0 * k1 * k2
    acc = np.empty(_WIDTH, partials.dtype)
    tmp = np.empty((4, _WIDTH), x.dtype)
    stk = np.empty((_STACK, _WIDTH), partials.dtype)
    for t in range(lo, hi):
        g = t % nseg
        r = t // nseg
        c = r % ncc
        q = r // ncc
        c0 = c * _WIDTH
        w = min(_WIDTH, k2 - c0)
        base = xo + (q // k1) * kst[0] + (q % k1) * kst[1] + c0 * kst[2]
        for j in range(w):
            acc[j] = ident
        p = g * segr
        p1 = min(total, p + segr)
        top = 0
        count = 0
        room = _ROWS
        pos = stack_array(4, p)
        i2 = p % r2  # the position's multi-index, advanced without divisions
        i1 = (p // r2) % r1
        i0 = p // (r1 * r2)
        while p < p1:
            if room == _ROWS and p + room <= p1 and r2 - i2 >= room and kst[2] == 1:
                # a whole block of rows along the last reduced dim: one tight loop
                _accumulate_block(op, kind, acc, x,
                                  base + i0 * rst[0] + i1 * rst[1] + i2 * rst[2], rst[2],
                                  room, w, ident, nan, tmp)
                p += room
                i0, i1, i2 = _carry(i0, i1, i2 + room, r1, r2)
                room = 0
            else:
                ng = 4 if room >= 4 and p + 4 <= p1 else 1
                for u in range(ng):  # the rows of the next ng positions
                    pos[u] = base + i0 * rst[0] + i1 * rst[1] + i2 * rst[2]
                    i0, i1, i2 = _carry(i0, i1, i2 + 1, r1, r2)
                s2 = kst[2]
                if ng == 4:
                    _accumulate4(op, kind, acc, gather(x, pos[0], s2, w, tmp[0]),
                                 gather(x, pos[1], s2, w, tmp[1]), gather(x, pos[2], s2, w, tmp[2]),
                                 gather(x, pos[3], s2, w, tmp[3]), w, ident, nan)
                else:
                    _accumulate(op, kind, acc, gather(x, pos[0], s2, w, tmp[0]), w, ident,
                                nan)
                p += ng
                room -= ng
            if room == 0 or p == p1:  # push the block vector on the pairwise stack
                k = count
                while k & 1:
                    top -= 1
                    for j in range(w):
                        acc[j] = _combine(op, stk[top, j], acc[j])
                    k >>= 1
                for j in range(w):
                    stk[top, j] = acc[j]
                    acc[j] = ident
                top += 1
                count += 1
                room = _ROWS
        for j in range(w):
            acc[j] = stk[top - 1, j]
        for i in range(top - 2, -1, -1):
            for j in range(w):
                acc[j] = _combine(op, stk[i, j], acc[j])
        o = g * nout + q * k2 + c0
        for j in range(w):
            partials[o + j] = acc[j]


_outer = kernel(_outer_kernel)


u = np.uint64
_SEQ_WIDTH = 1 << 14  # sequential mode: at most this many columns per work item (L2)


def _sequential_kernel(op, x, xo, ksh, kst, rsh, rst, width, ident, out, lo, hi):
    """NumPy's own order for a reduction whose innermost dim in memory is a kept one
    (``sum(axis=0)`` of a C array): each output is ``ident``, then each reduced position
    combined in turn, outer reduced dims first (NumPy's loop: ``out += row`` row by row).
    Item ``t`` = (outer kept index ``q``, column chunk ``c`` of ``width``); ``out`` is
    C-contiguous over ``ksh``. The columns are independent, so any split of the items
    over threads, and any ``width``, gives the same bits."""
    k0, k1, k2 = ksh
    r0, r1, r2 = rsh
    ncc = (k2 + width - 1) // width
    acc = np.empty(width, out.dtype)
    tmp = np.empty(width, x.dtype)
    for t in range(lo, hi):
        c = t % ncc
        q = t // ncc
        c0 = c * width
        w = min(width, k2 - c0)
        base = xo + (q // k1) * kst[0] + (q % k1) * kst[1] + c0 * kst[2]
        for j in range(w):
            acc[j] = ident
        for i0 in range(r0):
            for i1 in range(r1):
                p = base + i0 * rst[0] + i1 * rst[1]
                if kst[2] == 1:
                    for i2 in range(r2):
                        _accumulate(op, PLAIN, acc, x[u(p + i2 * rst[2]):], w, ident, None)
                else:
                    for i2 in range(r2):
                        _accumulate(op, PLAIN, acc, gather(x, p + i2 * rst[2], kst[2], w, tmp),
                                    w, ident, None)
        o = q * k2 + c0
        for j in range(w):
            out[o + j] = acc[j]


_sequential = kernel(_sequential_kernel)


# ---------------------------------------------------------------- Python side
_NP_COMBINE = (np.add, np.multiply, np.maximum, np.minimum)


def _identity(op, acc):
    if op == 0:
        return acc.type(0)
    if op == 1:
        return acc.type(1)
    if acc.kind == "f":
        return acc.type(-np.inf if op == 2 else np.inf)
    if acc.kind == "b":
        return acc.type(op == 3)
    info = np.iinfo(acc)
    return acc.type(info.min if op == 2 else info.max)


def _pairwise(op, p):
    """Combine ``p`` (nseg, ...) pairwise along axis 0: the same tree for any thread count."""
    f = _NP_COMBINE[op]
    with np.errstate(all="ignore"):     # (overflow to inf, inf - inf: the IEEE results)
        while p.shape[0] > 1:
            h = p.shape[0] // 2
            head = f(p[:h], p[h:2 * h])
            p = np.concatenate([head, p[2 * h:]]) if p.shape[0] % 2 else head
    return p[0]


def _coalesce(shape, strides, rank):
    """Sort dims by decreasing |stride|, flip negative ones, merge, pad to ``rank``.
    Returns (shape, strides, offset delta) or None when more than ``rank`` dims remain."""
    p = _plan(shape, (strides,), (0,), rank=rank)
    if p is None:
        return None
    return p[0], p[1][0], p[2][0]


class Plan(NamedTuple):
    """A reduction laid out for the kernels (:func:`plan`); :func:`run` computes it."""
    op: int              # OPS code
    a: np.ndarray        # the array reduced (a uint8 view of bools, a reordered copy)
    axes: tuple          # its reduced axes, sorted
    dt: np.dtype         # the result dtype
    result: object       # the result when there is nothing to compute (else None)
    as_bool: bool        # max/min of bools: the uint8 result is cast back
    out_shape: tuple = ()
    acc: np.dtype = None  # the accumulator dtype
    kind: int = PLAIN
    nan: object = None   # the kernels' ``nan`` (NAN_AS_IDENTITY, COUNT_NOT_NAN or None)
    flat: np.ndarray = None
    xo: int = 0
    ksh: tuple = ()
    kst: tuple = ()
    rsh: tuple = ()
    rst: tuple = ()
    ident: object = None
    outer: bool = False  # outer mode (a kept dim is the most contiguous), else inner mode
    nred: int = 0        # reduced positions per output
    nout: int = 0        # outputs
    span: int = 0        # elements between the lowest and highest address of ``a``
    contiguous_runs: bool = False  # inner mode over unit-stride runs of a plain dtype,
    # accumulated in itself without a NaN rule: NumPy's own pairwise loop computes it as
    # accurately


def plan(op, a, axes, dtype=None, nan=None):
    """The :class:`Plan` of reducing NumPy array ``a`` over ``axes`` (a tuple of
    non-negative ints, any order): dims sorted, flipped and coalesced to the kernels'
    fixed rank (a contiguous copy where too many remain).

    ``op``: "sum", "prod", "max" or "min". ``dtype``: the result dtype (NumPy dtype; default
    ``a.dtype``); sum/prod accumulate in it (float16/bfloat16 in float32, rounded once at
    the end). max/min of an empty set raise ValueError (the frontend should have raised
    first). ``nan`` (floating ``a``): "skip" reduces NaN elements as the op's identity
    (NumPy's nansum, nanprod); "count" (with op "sum") counts the elements that are not NaN.
    """
    opc = OPS[op]
    if opc >= 2 and a.dtype.kind == "c":
        raise TypeError(f"reduce: {op} is not defined for complex dtype {a.dtype}")
    dt = np.dtype(dtype) if dtype is not None else a.dtype
    if opc >= 2:
        if a.dtype == np.bool_:  # max/min of bools (any/all): on their bytes
            return plan(op, a.view(np.uint8), axes)._replace(as_bool=True)
        dt = a.dtype
    axes = tuple(sorted(set(axes)))
    kept = tuple(d for d in range(a.ndim) if d not in axes)
    out_shape = tuple(a.shape[d] for d in kept)
    nred = 1
    for d in axes:
        nred *= a.shape[d]
    kind, view = element_kind(a.dtype)
    mode = None  # (the kernels' ``nan``)
    if nan is not None and (kind != PLAIN or a.dtype.kind == "f"):
        mode = NAN_AS_IDENTITY if nan == "skip" else COUNT_NOT_NAN
    acc = np.dtype(np.float32) if element_kind(dt)[1] != dt else dt
    if nred == 0:
        if opc >= 2:
            raise ValueError(f"reduce: {op} of an empty set of elements has no value")
        return Plan(opc, a, axes, dt, np.full(out_shape, _identity(opc, acc)).astype(dt),
                    False)
    nout = 1
    for n in out_shape:
        nout *= n
    if nout == 0:
        return Plan(opc, a, axes, dt, np.empty(out_shape, dt), False)
    x = a.view(view) if view != a.dtype else a
    fv = flat_view(x, readonly=True)
    if fv is None:
        x = np.ascontiguousarray(x)
        fv = flat_view(x, readonly=True)
    flat, xo, st = fv
    # Kept dims keep their order (the output is C-contiguous over them); reduced dims are
    # sorted and coalesced freely.
    kc = _merge_kept([a.shape[d] for d in kept], [st[d] for d in kept])
    rc = _coalesce(tuple(a.shape[d] for d in axes), tuple(st[d] for d in axes), 3)
    if kc is None or rc is None:  # too many dims: reorder into a contiguous copy
        c = np.ascontiguousarray(np.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim))))
        return plan(op, c, tuple(range(len(kept), a.ndim)), dtype, nan)
    ksh, kst = kc
    rsh, rst, rdelta = rc
    xo += rdelta
    inner_r = abs(rst[2])
    inner_k = min((abs(s) for n, s in zip(ksh, kst) if n > 1), default=None)
    outer = not (inner_k is None or inner_r < inner_k or abs(kst[2]) != inner_k)
    runs = (not outer and rsh[0] * rsh[1] == 1 and inner_r == 1 and kind == PLAIN
            and mode is None and acc == a.dtype)
    return Plan(opc, a, axes, dt, None, False, out_shape, acc, kind, mode, flat, xo, ksh,
                kst, rsh, rst, _identity(opc, acc), outer, nred, nout, _span(a.shape, st),
                runs)


def run(p, nthreads=1):
    """The result of :class:`Plan` ``p`` (a fresh array of ``p.dt`` and ``p.out_shape``),
    its work items on up to ``nthreads`` threads: the same bits on any count."""
    if p.result is not None:
        res = p.result
    else:
        opc, nred, nout, ksh = p.op, p.nred, p.nout, p.ksh
        if not p.outer:
            seg = max(_BLOCK, -(-nred // _BLOCK) * _BLOCK) if nred <= _SEG else _SEG
            nseg = -(-nred // seg)
            partials = np.empty(nout * nseg, p.acc)
            args = (opc, p.kind, p.flat, p.xo, ksh, p.kst, p.rsh, p.rst, seg, p.ident, p.nan,
                    partials)
            if _ready(_inner, p, args):
                run_split(_inner, args, nout * nseg, nthreads)
                partials = partials.reshape(nout, nseg).T
            else:
                partials = standin.inner(p, seg)
            res = _pairwise(opc, partials) if nseg > 1 else partials[0]
        else:
            width = min(_WIDTH, ksh[2])
            # (max/min, which do not round, in segments of 256K elements: work for every
            # thread; default / one thread, 50,000 x 64 float64 axis 0, idle | busy:
            # 0.54 | 1.02, with 1M-element segments 0.68 | 0.73-1.03, 4M 1.0)
            seg_elems = _SEG_ELEMS if opc < 2 else _SEG_ELEMS >> 4
            segr = max(_ROWS, (seg_elems // width) // _ROWS * _ROWS)
            nseg = -(-nred // segr)
            ncc = -(-ksh[2] // _WIDTH)
            partials = np.empty(nseg * nout, p.acc)
            args = (opc, p.kind, p.flat, p.xo, ksh, p.kst, p.rsh, p.rst, segr, p.ident, p.nan,
                    partials)
            if _ready(_outer, p, args):
                run_split(_outer, args, ksh[0] * ksh[1] * ncc * nseg, nthreads)
                partials = partials.reshape(nseg, nout)
            else:
                partials = standin.outer(p, segr)
            res = _pairwise(opc, partials) if nseg > 1 else partials[0]
        res = np.asarray(res).reshape(p.out_shape)
        if res.dtype != p.dt:
            res = res.astype(p.dt)
        if opc < 2:
            _canonical_nan(res)
    return res.astype(np.bool_) if p.as_bool else res


def _canonical_nan(res):
    """NaN results of a float or complex sum or product (either part of a complex one) set
    to the dtype's default NaN, in place: which NaN an addition of two NaNs returns is the
    compiler's choice of operand order (LLVM's and NumPy's alike), so a NaN's sign and
    payload would depend on the machine code, not on the data."""
    dt = res.dtype
    if dt.kind == "c":
        res = res.reshape(-1).view(np.empty(0, dt).real.dtype)
    elif dt.kind != "f" and dt != _BF16:
        return
    bad = res != res
    if bad.any():
        res[bad] = np.nan


def _ready(disp, p, args) -> bool:
    """Whether ``disp(*args)`` runs without a compile on this thread (``ready``); False
    asks the background process for it and the caller runs the stand-in (``standin``), which
    gives the same bits. Complex products have no stand-in: True (they compile here)."""
    key = (p.flat.dtype, p.flat.flags.writeable, p.acc, None if p.nan is None else len(p.nan))
    return ready(disp, key, *args, 0, 1) or not standin.supported(p)


def reduce(op, a, axes, dtype=None, nan=None, nthreads=1):
    """``run(plan(op, a, axes, dtype, nan), nthreads)``: the kernels' reduction of any
    layout (see :func:`plan`); a new array of ``a``'s shape without ``axes``."""
    return run(plan(op, a, axes, dtype, nan), nthreads)


def _span(shape, strides):
    """Elements between the lowest and the highest address of a view (element strides)."""
    return 1 + sum((n - 1) * abs(s) for n, s in zip(shape, strides))


def _merge_kept(shape, strides):
    """Merge adjacent kept dims (order kept: the output is C-contiguous over them); pad to
    rank 3. Dims of size 1 are dropped."""
    sh, ss = [], []
    for n, s in zip(shape, strides):
        if n == 1:
            continue
        if sh and ss[-1] == s * n:
            sh[-1] *= n
            ss[-1] = s
            continue
        sh.append(n)
        ss.append(s)
    if len(sh) > 3:
        return None
    pad = 3 - len(sh)
    return (1,) * pad + tuple(sh), (0,) * pad + tuple(ss)


def reduce_sum(a, axes, dtype=None):
    """``reduce("sum", a, axes, dtype)``."""
    return reduce("sum", a, axes, dtype)


def reduce_prod(a, axes, dtype=None):
    """``reduce("prod", a, axes, dtype)``."""
    return reduce("prod", a, axes, dtype)


def reduce_max(a, axes):
    """``reduce("max", a, axes)`` (NaN propagates)."""
    return reduce("max", a, axes)


def reduce_min(a, axes):
    """``reduce("min", a, axes)`` (NaN propagates)."""
    return reduce("min", a, axes)


def sequential(op, a, axes):
    """``op`` ("sum", or "prod" of real floats) of float or complex ``a`` over ``axes``
    in NumPy's own order, bit for bit NumPy's ``ufunc.reduce(a, axes)`` (but that every
    column starts from the identity, and a NaN result is the default NaN), when the
    innermost dim of ``a`` in memory is a kept one and the reduced dims' strides are
    positive (NumPy then adds the slices in turn, outer reduced dims first); None for
    other layouts. One thread (see below); any split of its column chunks would give the
    same bits."""
    opc = OPS[op]
    if opc > 1 or a.dtype.kind not in "fc" or a.size == 0 or (
            opc == 1 and a.dtype.kind == "c"):
        return None  # (Numba's complex product rounds otherwise than NumPy's)
    axes = tuple(sorted(set(axes)))
    kept = [d for d in range(a.ndim) if d not in axes and a.shape[d] > 1]
    red = [d for d in axes if a.shape[d] > 1]
    if not kept or not red:
        return None
    fv = flat_view(a, readonly=True)
    if fv is None:
        return None
    flat, xo, st = fv
    inner = min(abs(st[d]) for d in kept)
    if inner != abs(st[kept[-1]]) or any(st[d] <= inner for d in red):
        return None  # (the last kept dim must be the innermost; reduced ones outside it)
    rd = sorted(((st[d], a.shape[d]) for d in red), reverse=True)  # NumPy's loop order
    rs, rn = [rd[0][0]], [rd[0][1]]
    for s_, n_ in rd[1:]:
        if rs[-1] == s_ * n_:
            rs[-1], rn[-1] = s_, rn[-1] * n_
        else:
            rs.append(s_)
            rn.append(n_)
    kc = _merge_kept([a.shape[d] for d in kept], [st[d] for d in kept])
    if kc is None or len(rs) > 3:
        return None
    ksh, kst = kc
    pad = 3 - len(rs)
    rsh, rst = (1,) * pad + tuple(rn), (0,) * pad + tuple(rs)
    out = np.empty(ksh[0] * ksh[1] * ksh[2], a.dtype)
    # Whole rows where they fit in L2, on one thread: a row read in pieces restarts the
    # prefetchers, and one thread streams as fast as memory gives (ms, one thread / the
    # columns cut over two / NumPy: 2048^2 float64 1.43 / 3.12 / 2.02, 4096^2 7.7 / 10.4 /
    # 8.1, 256 x 16384 2.3 / 2.6 / 2.3, 50,000 x 64 0.94 / 1.63 / 1.39)
    width = min(ksh[2], _SEQ_WIDTH)
    ident = _identity(opc, a.dtype)
    args = (opc, flat, xo, ksh, kst, rsh, rst, width, ident, out)
    if ready(_sequential, (flat.dtype, flat.flags.writeable), *args, 0, 1):
        _sequential(*args, 0, ksh[0] * ksh[1] * (-(-ksh[2] // width)))
    else:
        out = standin.sequential(opc, a, _NP_COMBINE[opc], flat, xo, ksh, kst, rsh, rst, ident)
    _canonical_nan(out)
    return out.reshape([a.shape[d] for d in range(a.ndim) if d not in axes])
