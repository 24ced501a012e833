"""The reduction kernels' NumPy stand-ins (private): while ``reduce._inner``, ``_outer`` or
``_sequential`` compiles in the background (1.5-6 s of CPU per specialization), these
compute what the kernel would, bit for bit, by doing the kernel's own operations in the
kernel's order, NumPy arrays taking the place of its lanes and column vectors (each lane's
and each column's arithmetic is independent of the others').

- inner mode (:func:`inner`): an element at position ``p`` of an output's reduced
  positions (C order of ``rsh``) goes to lane ``(p - start) % 64`` of its block
  (``p // 4096``), where ``start`` is the later of its block's and its row's first
  position (the kernel restarts its lanes at each run piece); each lane adds its elements
  in order from the identity; the lanes fold by halves (32, 16, ..., 1); a segment's
  blocks combine on the binary-counter stack, the stack then from its top down. The
  elements are laid out by (lane, rank in lane) and padded with an element that changes
  nothing (``-0.0`` for float sums: ``x + -0.0`` is ``x`` for every ``x``; the identity
  otherwise), so that each step of the sequential sum is one NumPy operation over every
  lane of every block of every output.
- outer mode (:func:`outer`): blocks of 256 reduced positions; in each, rows in groups of
  four (``(x0 op x1) op (x2 op x3)``) added to the block's vector in turn, the last
  segment's last rows one by one; blocks on the same stack.
- sequential mode (:func:`sequential`): NumPy's ``ufunc.reduce`` over the outer axis of a
  2-D (positions, columns) view with the kernel's identity as ``initial``: the rows in
  turn, from the identity, like the kernel.

The segments' partials are combined by ``reduce.run`` as for the kernels. Loads are exact
(halves to float32, integers and float32 widened), NaN rules as the kernels' (``nan``).
Complex products are left to the kernels (Numba's complex product may round otherwise
than NumPy's): :func:`supported` says so, and the caller compiles.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from flexarray._kernels._intrinsics import PLAIN

_LANES = 64
_BLOCK = 4096
_ROWS = 256
_CHUNK = 1 << 22   # elements per piece of work (bounds the stand-ins' temporary memory)


def supported(p) -> bool:
    """Whether the stand-ins compute plan ``p`` exactly (all but complex products)."""
    return not (p.op == 1 and np.dtype(p.acc).kind == "c")


def _combine(op, a, b):
    """The kernels' ``_combine``: sum, product, max/min keeping ``a`` on ties and NaN."""
    if op == 0:
        return np.add(a, b)
    if op == 1:
        return np.multiply(a, b)
    keep = (a >= b) if op == 2 else (a <= b)
    if a.dtype.kind in "fc":
        keep |= a != a
    return np.where(keep, a, b)


def _pad(p):
    """An element that leaves any accumulator's bits unchanged under ``p.op``."""
    acc = np.dtype(p.acc)
    if p.op == 0 and acc.kind in "fc":
        return acc.type(-0.0) if acc.kind == "f" else acc.type(complex(-0.0, -0.0))
    return p.ident


def _elements(p, shape, strides):
    """The elements of ``p.flat`` at ``p.xo + i . strides`` over ``shape``, loaded as the
    kernels load them (``_load``: the accumulator's dtype, NaN skipped or counted)."""
    flat = p.flat
    it = flat.itemsize
    if len(flat) == 0:
        v = np.empty(shape, flat.dtype)
    else:
        v = as_strided(flat[p.xo:], shape, tuple(s * it for s in strides), writeable=False)
    if p.kind != PLAIN:
        v = v.view(p.a.dtype).astype(np.float32)
    acc = np.dtype(p.acc)
    if p.nan is None:
        return v.astype(acc)
    isnan = np.isnan(v) if v.dtype.kind in "fc" else np.zeros(v.shape, bool)
    if len(p.nan) == 1:     # NAN_AS_IDENTITY
        x = v.astype(acc)
        x[isnan] = p.ident
        return x
    return np.where(isnan, p.ident, acc.type(1)).astype(acc)     # COUNT_NOT_NAN


def _stack(op, vals):
    """The kernels' pairwise stack over ``vals`` (blocks along axis 0): block partial
    ``count`` merges with the equal-sized partials on top (a binary counter), then the
    stack is combined from its top down: ``stk[i] op r``."""
    stk = []
    for count in range(vals.shape[0]):
        v = vals[count]
        k = count
        while k & 1:
            v = _combine(op, stk.pop(), v)
            k >>= 1
        stk.append(v)
    r = stk[-1]
    for s in reversed(stk[:-1]):
        r = _combine(op, s, r)
    return r


def _by_segment(op, blocks, per_seg):
    """Each segment's stack of ``per_seg`` blocks (the last segment's may be fewer):
    ``blocks`` (nblocks, ...) -> (nseg, ...)."""
    nb = blocks.shape[0]
    nfull = nb // per_seg
    parts = []
    if nfull:
        b = blocks[:nfull * per_seg].reshape((nfull, per_seg) + blocks.shape[1:])
        parts.append(_stack(op, np.swapaxes(b, 0, 1)))
    if nb > nfull * per_seg:
        parts.append(_stack(op, blocks[nfull * per_seg:])[None])
    return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _lane_geometry(p0, m, n):
    """Block (relative to ``p0``'s), lane and rank within the lane of the positions
    ``[p0, p0 + m)`` of a reduction whose innermost reduced dim has ``n`` elements."""
    pos = np.arange(p0, p0 + m, dtype=np.int64)
    block = pos // _BLOCK - p0 // _BLOCK
    bs = pos // _BLOCK * _BLOCK
    ps = np.maximum(bs, pos // n * n)        # the start of the position's run piece
    off = pos - ps
    lane = off % _LANES
    # its rank in its lane: the lane's elements in the block's earlier pieces (a first
    # piece up to the first row start after the block's, then whole rows), then its own
    first = np.minimum(n - bs % n, _BLOCK)
    earlier = np.where(ps > bs, _count(first, lane) + (ps - bs - first) // n * _count(n, lane), 0)
    return block, lane, earlier + off // _LANES


def _count(m, lane):
    """How many elements a run piece of length ``m`` puts in ``lane``."""
    return m // _LANES + (lane < m % _LANES)


def inner(p, seg):
    """The inner kernel's partials, (nseg, nout) in ``p.acc``: row ``g`` column ``q``
    reduces output ``q``'s positions ``[g*seg, (g+1)*seg)``."""
    k0, k1, k2 = p.ksh
    r0, r1, n = p.rsh
    nred, nout = p.nred, p.nout
    nseg = -(-nred // seg)
    x = _elements(p, (k0, k1, k2, r0, r1, n), tuple(p.kst) + tuple(p.rst)).reshape(nout, nred)
    pad, op = _pad(p), p.op
    out = np.empty((nseg, nout), p.acc)
    segs = max(1, _CHUNK // seg)                 # segments per piece
    qs = max(1, _CHUNK // min(nred, segs * seg))  # outputs per piece
    for g0 in range(0, nseg, segs):
        p0 = g0 * seg
        m = min(nred, (g0 + segs) * seg) - p0
        nb = -(-m // _BLOCK)
        if n % _LANES:
            block, lane, rank = _lane_geometry(p0, m, n)
            K = int(rank.max()) + 1
        else:
            K = _BLOCK // _LANES
        for q0 in range(0, nout, qs):
            xq = x[q0:q0 + qs, p0:p0 + m]
            if n % _LANES:
                d = np.full((K, nb, _LANES, xq.shape[0]), pad, p.acc)
                d[rank, block, lane] = xq.T
            else:   # every run piece starts at a multiple of the lanes: block, rank, lane
                if m % _BLOCK:
                    xq = np.concatenate(
                        [xq, np.full((xq.shape[0], nb * _BLOCK - m), pad, p.acc)], axis=1)
                d = xq.reshape(-1, nb, K, _LANES).transpose(2, 1, 3, 0)
            acc = np.full((nb, _LANES, xq.shape[0]), p.ident, p.acc)
            with np.errstate(all="ignore"):
                for k in range(K):
                    acc = _combine(op, acc, d[k])
                w = _LANES // 2
                while w:
                    acc[:, :w] = _combine(op, acc[:, :w], acc[:, w:2 * w])
                    w //= 2
                out[g0:g0 + -(-m // seg), q0:q0 + xq.shape[0]] = _by_segment(
                    op, acc[:, 0], seg // _BLOCK)
    return out


def outer(p, segr):
    """The outer kernel's partials, (nseg, nout) in ``p.acc`` (segments of ``segr``
    reduced positions)."""
    r0, r1, r2 = p.rsh
    nred, nout = p.nred, p.nout
    nseg = -(-nred // segr)
    x = _elements(p, (r0, r1, r2) + tuple(p.ksh), tuple(p.rst) + tuple(p.kst)).reshape(
        nred, nout)
    op = p.op
    out = np.empty((nseg, nout), p.acc)
    nfull = nred // _ROWS                      # whole blocks (only the last may be short)
    cols = max(1, _CHUNK // nred)
    with np.errstate(all="ignore"):
        for c0 in range(0, nout, cols):
            xc = x[:, c0:c0 + cols]
            w = xc.shape[1]
            blocks = np.empty((-(-nred // _ROWS), w), p.acc)
            if nfull:
                y = xc[:nfull * _ROWS].reshape(nfull, _ROWS // 4, 4, w)
                g = _combine(op, _combine(op, y[:, :, 0], y[:, :, 1]),
                             _combine(op, y[:, :, 2], y[:, :, 3]))
                acc = np.full((nfull, w), p.ident, p.acc)
                for i in range(_ROWS // 4):
                    acc = _combine(op, acc, g[:, i])
                blocks[:nfull] = acc
            if nred > nfull * _ROWS:
                t = xc[nfull * _ROWS:]
                acc = np.full(w, p.ident, p.acc)
                j = 0
                while j + 4 <= t.shape[0]:
                    acc = _combine(op, acc, _combine(op, _combine(op, t[j], t[j + 1]),
                                                     _combine(op, t[j + 2], t[j + 3])))
                    j += 4
                for i in range(j, t.shape[0]):
                    acc = _combine(op, acc, t[i])
                blocks[nfull] = acc
            out[:, c0:c0 + w] = _by_segment(op, blocks, segr // _ROWS)
    return out


def sequential(op, a, ufunc, flat, xo, ksh, kst, rsh, rst, ident):
    """The sequential kernel's result (C order over ``ksh``, flattened): every column from
    ``ident``, the reduced positions added in turn (outer reduced dims first)."""
    it = flat.itemsize
    nred = rsh[0] * rsh[1] * rsh[2]
    out = np.empty((ksh[0] * ksh[1], ksh[2]), a.dtype)
    base = as_strided(flat[xo:], (ksh[0], ksh[1]) + tuple(rsh) + (ksh[2],),
                      tuple(s * it for s in (kst[0], kst[1], *rst, kst[2])), writeable=False)
    with np.errstate(all="ignore"):
        for q in range(ksh[0] * ksh[1]):
            v = base[q // ksh[1], q % ksh[1]].reshape(nred, ksh[2])   # (a copy if need be)
            ufunc.reduce(v, axis=0, initial=ident, out=out[q])
    return out.reshape(-1)
