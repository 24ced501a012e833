"""argmax / argmin along one axis (or over all elements) of any strided NumPy view.

Semantics are NumPy's: the first index of the extreme value; NaN counts as the extreme (the
first NaN wins, for argmax and argmin alike). float16/bfloat16 compare as float32 (exact).

- outer mode (a kept dim is more contiguous than the axis, e.g. ``argmax(axis=0)`` of a C
  array): ``_WIDTH`` columns are scanned together, row after row, keeping a best value and
  an index per column (selects: vectorizes). NumPy copies the axis contiguous first; this is
  memory-bound instead (4096x4096 float32, axis 0: ~30x NumPy).
- runs mode (the axis has element stride +-1; also ``axis=None`` of C-contiguous input, as
  one run): chunks of ``_CHUNK`` elements; the chunk's extreme comes from the reduction
  kernels' lanes (``reduce._lanes``: selects only, vectorized, memory-bound), and only a
  chunk that beats the best so far is scanned (from L1) for the first index of its
  extreme. Rows (or segments of one long run) go to threads. Measured ~2.4-3.1 ms for
  4096^2 float32 axis 1, NumPy's SIMD argmax ~2.4 ms on writable memory: the engine
  gives NumPy a writable alias instead (``flexarray._engines.argminmax.numpy_rows``) and
  uses this mode for float16/bfloat16, memory that cannot be aliased writable, and
  ``axis=None``.
- inner mode (the axis is the most contiguous dim but strided): ``_LANES`` lanes keep the
  first extreme of their residue class; lanes merge by (value, smallest index).

Entry points: ``argmax(a, axis=None) -> int64 ndarray``, ``argmin(a, axis=None)``. One
specialization per (dtype, mode) serves both; cold compile ~1.1-1.5 s CPU each.
"""
import numpy as np
from numba.extending import register_jitable

from flexarray._kernels import kernel, ready
from flexarray._kernels._intrinsics import element_kind, flat_view, load_as, stack_array
from flexarray._kernels.reductions.reduce import _LANES as _RLANES
from flexarray._kernels.reductions.reduce import _combine, _identity, _lanes
from flexarray._engines import gates
from flexarray._threads import run_split, threads_for

__all__ = ["argmax", "argmin"]

_WIDTH = 4096      # outer mode: columns scanned together (whole rows read sequentially)
_ROWS = 32         # outer mode: rows per block
_LANES = 32        # inner mode: lanes
_CHUNK = 2048      # runs mode: elements per chunk (extreme pass, then index scan from L1)
_FIND = 64         # runs mode: elements tested at once when looking for the extreme
PARALLEL_MIN = gates.ARG_THREADS_MIN  # measured: flexarray/_engines/gates.py
RUNS_PARALLEL_MIN = gates.ARG_RUNS_THREADS_MIN  # measured: flexarray/_engines/gates.py


ARGMAX, ARGMIN = 0, 1  # ``op`` (a runtime int: LLVM unswitches the branches on it)


@register_jitable
def _better(op, v, best):
    """True when ``v`` replaces ``best`` (strictly better, or the first NaN)."""
    if op == ARGMAX:
        return (v > best) | ((v != v) & (best == best))
    return (v < best) | ((v != v) & (best == best))


@register_jitable
def _extreme(op, v, m):
    """The block extreme: NaN-propagating max (ARGMAX) or min (ARGMIN)."""
    if op == ARGMAX:
        return v if (v > m) | (v != v) else m
    return v if (v < m) | (v != v) else m


@register_jitable
def _block_extreme(op, kind, proto, x, p, s, s2, r, w, bm):
    """``bm[j]`` = extreme of ``x[p + k*s + j*s2]`` over ``k < r`` (its own function, so
    that LLVM unswitches ``op``/``kind``/``s2 == 1`` before inlining it)."""
    if s2 == 1:
        for j in range(w):
            bm[j] = load_as(kind, x[np.uint64(p + j)], proto)
        for k in range(1, r):
            pk = p + k * s
            for j in range(w):
                bm[j] = _extreme(op, load_as(kind, x[np.uint64(pk + j)], proto), bm[j])
    else:
        for j in range(w):
            bm[j] = load_as(kind, x[np.uint64(p + j * s2)], proto)
        for k in range(1, r):
            pk = p + k * s
            for j in range(w):
                bm[j] = _extreme(op, load_as(kind, x[np.uint64(pk + j * s2)], proto), bm[j])


def _outer_kernel(op, kind, proto, x, xo, ksh, kst, n, s, out, lo, hi):
    """Items: (kept outer index ``q`` over ``ksh[0]*ksh[1]``, column chunk ``c``); the axis
    has length ``n`` and stride ``s``; ``out`` is C-contiguous over ``ksh``.

    Rows are taken ``_ROWS`` at a time: the block's extreme per column (a plain vectorized
    max/min), then only the columns whose block extreme beats their best so far look for
    its first row in the block (rare after the first blocks). Measured 1.6x faster than
    updating value and index for every element with selects."""
    k0, k1, k2 = ksh
    ncc = (k2 + _WIDTH - 1) // _WIDTH
    bv = np.full(_WIDTH, proto)
    bm = np.full(_WIDTH, proto)
    idx = np.empty(_WIDTH, np.int64)
    s2 = kst[2]
    for t in range(lo, hi):
        c = t % ncc
        q = t // ncc
        c0 = c * _WIDTH
        w = min(_WIDTH, k2 - c0)
        base = xo + (q // k1) * kst[0] + (q % k1) * kst[1] + c0 * s2
        for j in range(w):
            bv[j] = load_as(kind, x[np.uint64(base + j * s2)], proto)
            idx[j] = 0
        i0 = 1
        while i0 < n:
            r = min(_ROWS, n - i0)
            p = base + i0 * s
            _block_extreme(op, kind, proto, x, p, s, s2, r, w, bm)
            for j in range(w):
                m = bm[j]
                if _better(op, m, bv[j]):
                    pj = p + j * s2
                    for k in range(r):
                        v = load_as(kind, x[np.uint64(pj + k * s)], proto)
                        if (v == m) | ((v != v) & (m != m)):
                            bv[j] = v
                            idx[j] = i0 + k
                            break
            i0 += r
        o = q * k2 + c0
        for j in range(w):
            out[o + j] = idx[j]


_outer = kernel(_outer_kernel)


@register_jitable
def _scan_lanes(op, kind, proto, x, p, s, n):
    """Index of the first extreme of ``x[p + i*s]``, ``i < n`` (n >= 1). Lanes live on the
    stack (in registers)."""
    bv = stack_array(_LANES, proto)
    bi = stack_array(_LANES, np.int64(0))
    m = min(n, _LANES)
    for l in range(m):
        bv[l] = load_as(kind, x[np.uint64(p + l * s)], proto)
        bi[l] = l
    j = m
    while j + _LANES <= n:
        q = p + j * s
        for l in range(_LANES):
            v = load_as(kind, x[np.uint64(q + l * s)], proto)
            b = _better(op, v, bv[l])
            bv[l] = v if b else bv[l]
            bi[l] = j + l if b else bi[l]
        j += _LANES
    q = p + j * s
    for l in range(n - j):
        v = load_as(kind, x[np.uint64(q + l * s)], proto)
        if _better(op, v, bv[l]):
            bv[l] = v
            bi[l] = j + l
    # merge the lanes: best value, then the smallest index
    r = 0
    for l in range(1, m):
        if _better(op, bv[l], bv[r]) or (bi[l] < bi[r] and not _better(op, bv[r], bv[l])):
            r = l
    return bi[r]


def _inner_kernel(op, kind, proto, x, xo, ksh, kst, n, s, out, lo, hi):
    """Items: outputs ``q`` (C order over ``ksh``); each scans the axis (length ``n``,
    stride ``s``) with lanes."""
    k0, k1, k2 = ksh
    for q in range(lo, hi):
        q2 = q % k2
        q1 = (q // k2) % k1
        q0 = q // (k1 * k2)
        p = xo + q0 * kst[0] + q1 * kst[1] + q2 * kst[2]
        out[q] = _scan_lanes(op, kind, proto, x, p, s, n)


_inner = kernel(_inner_kernel)


@register_jitable
def _run_extreme(rop, kind, ident, v, m):
    """The extreme of the contiguous ``v[:m]``, NaN propagating: the reduction kernels'
    lanes (``reduce._lanes`` with op max/min ``rop``: vectorized selects, no index
    bookkeeping), folded pairwise."""
    acc = stack_array(_RLANES, ident)
    for l in range(_RLANES):
        acc[l] = ident
    _lanes(rop, kind, acc, v, m, ident, None)  # (None: the plain variant, no NaN test)
    w = _RLANES // 2
    while w:
        for l in range(w):
            acc[l] = _combine(rop, acc[l], acc[l + w])
        w //= 2
    return acc[0]


@register_jitable
def _is(x, e):
    """``x`` is ``e``, or both are NaN."""
    return (x == e) | ((x != x) & (e != e))


@register_jitable
def _first_equal(kind, ident, v, m, e):
    """Index of the first element of ``v[:m]`` that is ``e`` (the first NaN when ``e`` is
    NaN). Blocks of ``_FIND`` elements are tested at once (a count of compares: vectorizes;
    an element-by-element scan measured 4-8x slower), then the block that hits is scanned."""
    j = 0
    nan = e != e
    while j + _FIND <= m:
        # an int32 flag, truncated each step: Numba widens int32 arithmetic to int64, which
        # halved the vector width (a float counter does not vectorize at all: strict IEEE)
        hit = np.int32(0)
        for i in range(j, j + _FIND):
            x = load_as(kind, v[np.uint64(i)], ident)
            hit = np.int32(hit | np.int32((x != x) if nan else (x == e)))
        if hit:
            break
        j += _FIND
    for i in range(j, m):
        if _is(load_as(kind, v[np.uint64(i)], ident), e):
            return i
    return 0  # not reached: ``e`` is an element of ``v``


def _runs_kernel(op, kind, ident, x, xo, ksh, kst, n, s, seg, out, lo, hi):
    """Items ``t`` = (output ``q`` in C order over ``ksh``, segment ``g``): the axis is a
    contiguous run (element stride ``s`` = 1 or -1) of length ``n``, cut into segments of
    ``seg`` indices; ``out[t]`` = the run index of the segment's first extreme.

    Chunks of ``_CHUNK`` elements in index order: a vectorized pass finds the chunk's
    extreme; only when it beats the best so far does a scan (of L1-resident data) look for
    its first index. Stops at the first NaN."""
    k0, k1, k2 = ksh
    nseg = (n + seg - 1) // seg
    for t in range(lo, hi):
        q = t // nseg
        g = t % nseg
        q2 = q % k2
        q1 = (q // k2) % k1
        q0 = q // (k1 * k2)
        p = xo + q0 * kst[0] + q1 * kst[1] + q2 * kst[2]
        best = ident
        bi = -1
        c0 = g * seg
        c1 = min(n, c0 + seg)
        while c0 < c1:
            m = min(_CHUNK, c1 - c0)
            a0 = p + c0 if s == 1 else p - c0 - m + 1
            v = x[a0:a0 + m]
            e = _run_extreme(2 + op, kind, ident, v, m)
            if bi < 0 or _better(op, e, best):
                best = e
                if s == 1:  # two calls: a layout-'A' union of v and v[::-1] stays scalar
                    bi = c0 + _first_equal(kind, ident, v, m, e)
                else:
                    bi = c0 + _first_equal(kind, ident, v[::-1], m, e)
                if best != best:
                    break
            c0 += m
        out[t] = bi


_runs = kernel(_runs_kernel)


def _merge_kept(shape, strides):
    sh, ss = [], []
    for n, st in zip(shape, strides):
        if n == 1:
            continue
        if sh and ss[-1] == st * n:
            sh[-1] *= n
            ss[-1] = st
            continue
        sh.append(n)
        ss.append(st)
    if len(sh) > 3:
        return None
    pad = 3 - len(sh)
    return (1,) * pad + tuple(sh), (0,) * pad + tuple(ss)


def _arg(opname, a, axis):
    op = ARGMAX if opname == "argmax" else ARGMIN
    if a.dtype.kind not in "biuf" and element_kind(a.dtype)[0] == 0:
        raise TypeError(f"{opname}: needs a real-valued dtype, got {a.dtype}")
    if axis is None:
        if a.ndim == 0:
            return np.zeros((), np.int64)
        if not a.flags.c_contiguous:
            from flexarray._kernels.copy.strided import ascontiguous
            a = ascontiguous(a)
        a = a.reshape(-1)
        axis = 0
    n = a.shape[axis]
    if n == 0:
        raise ValueError(f"{opname}: attempt to get {opname} of an empty sequence")
    kind, view = element_kind(a.dtype)
    out_shape = a.shape[:axis] + a.shape[axis + 1:]
    nout = int(np.prod(out_shape, dtype=np.int64))
    if nout == 0:
        return np.empty(out_shape, np.int64)
    x = a.view(view) if view != a.dtype else a
    if a.dtype == np.bool_:
        x = a.view(np.uint8)
    # a value of the type elements compare as (float32 for halves)
    proto = np.float32(0) if view != a.dtype else x.dtype.type(0)
    fv = flat_view(x, readonly=True)
    if fv is None:
        x = np.ascontiguousarray(x)
        fv = flat_view(x, readonly=True)
    flat, xo, st = fv
    s = st[axis]
    kept = [d for d in range(a.ndim) if d != axis]
    kc = _merge_kept([a.shape[d] for d in kept], [st[d] for d in kept])
    if kc is None:
        return getattr(np, opname)(a, axis=axis)
    ksh, kst = kc
    inner_k = min((abs(v) for m, v in zip(ksh, kst) if m > 1), default=None)
    if abs(s) == 1:
        ident = _identity(2 + op, np.dtype(type(proto)))
        if not ready(_runs, ("runs", a.dtype), op, kind, ident, flat, xo, ksh, kst, n, s, n,
                     _NO_OUT, 0, 1):
            return _standin(opname, a, axis)
        return _arg_runs(op, kind, ident, flat, xo, ksh, kst, n, s, nout,
                         a.dtype).reshape(out_shape)
    out = np.empty(nout, np.int64)
    nth = threads_for(a.size, PARALLEL_MIN)
    outer = inner_k is not None and abs(kst[2]) == inner_k and inner_k < abs(s)
    fn = _outer if outer else _inner
    args = (op, kind, proto, flat, xo, ksh, kst, n, s, out)
    if not ready(fn, (outer, a.dtype), *args, 0, 1):
        return _standin(opname, a, axis)
    if outer:
        ncc = -(-ksh[2] // _WIDTH)
        run_split(_outer, args, ksh[0] * ksh[1] * ncc, nth)
    else:
        run_split(_inner, args, nout, nth)
    return out.reshape(out_shape)


_NO_OUT = np.zeros(0, np.int64)


def _standin(opname, a, axis):
    """NumPy's argmax/argmin, the same indices as the kernels' (first extreme, the first NaN
    counting as the extreme; halves compared as float32, exactly), while the kernel
    compiles in the background (``flexarray._kernels.ready``)."""
    if a.dtype.kind not in "biuf" or a.dtype.itemsize == 2 and a.dtype.kind == "f":
        a = a.astype(np.float32)
    return np.asarray(getattr(np, opname)(a, axis=axis), dtype=np.int64)


def _arg_runs(op, kind, ident, flat, xo, ksh, kst, n, s, nout, dtype):
    """Runs mode: the axis is contiguous (element stride ``s`` = +-1). Rows go to threads
    from ``RUNS_PARALLEL_MIN`` elements; fewer rows than threads are cut into segments whose
    first extremes NumPy's argmax then picks from (in index order: the first one wins)."""
    nth = threads_for(n * nout, RUNS_PARALLEL_MIN)
    nseg = 1
    if nth > 1 and nout < 4 * nth:
        nseg = max(1, min(-(-8 * nth // nout), n // (4 * _CHUNK)))
    seg = -(-n // (nseg * _CHUNK)) * _CHUNK if nseg > 1 else n
    nseg = -(-n // seg)
    out = np.empty(nout * nseg, np.int64)
    run_split(_runs, (op, kind, ident, flat, xo, ksh, kst, n, s, seg, out), nout * nseg, nth)
    if nseg == 1:
        return out
    idx = out.reshape(nout, nseg)
    q = np.arange(nout)
    base = xo + (q // (ksh[1] * ksh[2])) * kst[0] + (q // ksh[2] % ksh[1]) * kst[1] + (
        q % ksh[2]) * kst[2]
    vals = flat[base[:, None] + idx * s]
    if kind:  # halves arrive as uint16: compare as float32 (exact)
        vals = vals.view(dtype).astype(np.float32)
    pick = (np.argmax if op == ARGMAX else np.argmin)(vals, axis=1)
    return idx[q, pick]


def argmax(a, axis=None):
    """Index of the first maximum of NumPy array ``a`` along ``axis`` (int, or None for the
    flattened C-order index), NaN being the maximum; an int64 array of the kept shape."""
    return _arg("argmax", a, axis)


def argmin(a, axis=None):
    """Index of the first minimum (NaN being the minimum), like :func:`argmax`."""
    return _arg("argmin", a, axis)
