"""Pooling kernels for flexarray.nn (private; no validation inside).

Inputs are C-contiguous planes (N*C, D, H, W) passed flat; everything is the 3-D case.
Regular pooling loops over taps and vectorizes over output columns (a NaN-propagating
select for max); adaptive pooling walks per-output windows from start/end tables.

geometry ``g`` for regular pooling::

    0 D  1 H  2 W  3 kd  4 kh  5 kw  6 sd  7 sh  8 sw  9 pd 10 ph 11 pw
   12 dd 13 dh 14 dw 15 Do 16 Ho 17 Wo
"""
import numpy as np

from flexarray._kernels import kernel, ready
from flexarray._kernels.nn.common import _valid_range, vector_sum


@kernel
def _column_ranges(g, dil_w):
    """Per tap kx: (first valid output column, end, input column of the first one)."""
    W, kw, sw, pw, Wo = g[2], g[5], g[8], g[11], g[17]
    t = np.empty((kw, 3), np.int64)
    for kx in range(kw):
        off = kx * dil_w - pw
        lo, hi = _valid_range(Wo, off, sw, W)
        t[kx, 0] = lo
        t[kx, 1] = hi
        t[kx, 2] = lo * sw + off
    return t


@kernel
def _max_plane(x, out, idx, want_idx, g, cols, p):
    """Max over each window of plane p; idx gets the flat spatial index of the winner.

    PyTorch's rule: a later tap wins if it is greater or NaN (so NaN propagates, and the
    index is that of the last NaN); ties keep the first; the first valid tap always
    counts (an all -inf window reports its first element). Vectorized along output rows
    (selects, no branches); flat unsigned indexing, tap column ranges precomputed."""
    D, H, W = g[0], g[1], g[2]
    kd, kh, kw = g[3], g[4], g[5]
    sd, sh, sw = g[6], g[7], g[8]
    pd, ph = g[9], g[10]
    dd, dh = g[12], g[13]
    Do, Ho, Wo = g[15], g[16], g[17]
    P = Do * Ho * Wo
    xbase = np.uint64(p * D * H * W)
    usw = np.uint64(sw)
    ninf = out.dtype.type(-np.inf)
    o = np.uint64(p * P)  # first element of the current output row
    for oz in range(Do):
        for oy in range(Ho):
            for i in range(np.uint64(Wo)):
                out[o + i] = ninf
            if want_idx:
                for i in range(np.uint64(Wo)):
                    idx[o + i] = -1
            for kz in range(kd):
                iz = oz * sd + kz * dd - pd
                if iz < 0 or iz >= D:
                    continue
                for ky in range(kh):
                    iy = oy * sh + ky * dh - ph
                    if iy < 0 or iy >= H:
                        continue
                    rowstart = (iz * H + iy) * W
                    for kx in range(kw):
                        lo = np.uint64(cols[kx, 0])
                        m = np.uint64(cols[kx, 1]) - lo
                        start = rowstart + cols[kx, 2]  # flat spatial index of the first
                        s0 = xbase + np.uint64(start)
                        d0 = o + lo
                        if want_idx:
                            for i in range(m):
                                v = x[s0 + i * usw]
                                c = out[d0 + i]
                                ci = idx[d0 + i]
                                take = (v > c) | (v != v) | (ci < 0)
                                out[d0 + i] = v if take else c
                                idx[d0 + i] = start + np.int64(i * usw) if take else ci
                        else:
                            for i in range(m):
                                v = x[s0 + i * usw]
                                c = out[d0 + i]
                                out[d0 + i] = v if (v > c) | (v != v) else c
            o += np.uint64(Wo)


@kernel
def _max_pool(x, out, idx, want_idx, g, p0, p1):
    cols = _column_ranges(g, g[14])
    for p in range(p0, p1):
        _max_plane(x, out, idx, want_idx, g, cols, p)


def max_pool(x, out, idx, want_idx, g, p0, p1):
    """Max pooling of planes p0 <= p < p1 (x, out, idx flat): the kernel, or while it
    compiles in the background (``flexarray._kernels.ready``) its NumPy stand-in, which
    picks the same elements."""
    if ready(_max_pool, (x.dtype, idx.dtype), x, out, idx, want_idx, g, p0, p1):
        _max_pool(x, out, idx, want_idx, g, p0, p1)
    else:
        max_pool_standin(x, out, idx, want_idx, g, p0, p1)


def _taps(n_out, s, k, d, p, n_in):
    """(input position, valid) of each (output position, tap) along one dim."""
    pos = np.arange(n_out)[:, None] * s + np.arange(k)[None, :] * d - p
    return pos, (pos >= 0) & (pos < n_in)


def max_pool_standin(x, out, idx, want_idx, g, p0, p1):
    """``_max_pool`` in NumPy: per window, over its valid taps in row-major order, the last
    NaN if there is one, else the first maximum (the kernel's rule: a later tap wins if it
    is greater or NaN), its element's bits copied; a window without valid taps gets -inf
    and index -1. Planes go in groups of at most ~4M (window, tap) pairs."""
    D, H, W, kd, kh, kw, sd, sh, sw, pd, ph, pw, dd, dh, dw, Do, Ho, Wo = g
    z, vz = _taps(Do, sd, kd, dd, pd, D)
    y, vy = _taps(Ho, sh, kh, dh, ph, H)
    c, vc = _taps(Wo, sw, kw, dw, pw, W)
    # (Do, Ho, Wo, kd, kh, kw) -> (P, T): windows by taps, taps in row-major order
    sp = ((z[:, None, None, :, None, None] * H + y[None, :, None, None, :, None]) * W
          + c[None, None, :, None, None, :])
    valid = (vz[:, None, None, :, None, None] & vy[None, :, None, None, :, None]
             & vc[None, None, :, None, None, :])
    P, T = Do * Ho * Wo, kd * kh * kw
    sp = np.where(valid, sp, 0).reshape(P, T)
    valid = valid.reshape(P, T)
    anyvalid = valid.any(axis=1)
    planes = x.reshape(-1, D * H * W)
    step = max(1, (1 << 22) // max(1, P * T))
    for q0 in range(p0, p1, step):
        q1 = min(p1, q0 + step)
        v = planes[q0:q1][:, sp]                               # (planes, P, T)
        nan = np.isnan(v) & valid
        last_nan = T - 1 - np.argmax(nan[:, :, ::-1], axis=2)
        w = np.where(valid, v, -np.inf)
        first_max = np.argmax(valid & (w == w.max(axis=2, keepdims=True)), axis=2)
        t = np.where(nan.any(axis=2), last_nan, first_max)
        s_idx = np.take_along_axis(np.broadcast_to(sp, v.shape), t[:, :, None], 2)[:, :, 0]
        val = np.take_along_axis(planes[q0:q1], s_idx, 1)
        val[:, ~anyvalid] = -np.inf
        out[q0 * P:q1 * P] = val.reshape(-1)
        if want_idx:
            s_idx[:, ~anyvalid] = -1
            idx[q0 * P:q1 * P] = s_idx.reshape(-1)


@kernel
def _avg_plane(x, out, g, divz, divy, divx, cols, p):
    """Window sums of plane p (taps in row-major order), divided by divz*divy*divx."""
    D, H, W = g[0], g[1], g[2]
    kd, kh, kw = g[3], g[4], g[5]
    sd, sh, sw = g[6], g[7], g[8]
    pd, ph = g[9], g[10]
    Do, Ho, Wo = g[15], g[16], g[17]
    P = Do * Ho * Wo
    xbase = np.uint64(p * D * H * W)
    usw = np.uint64(sw)
    zero = out.dtype.type(0)
    o = np.uint64(p * P)
    for oz in range(Do):
        for oy in range(Ho):
            for i in range(np.uint64(Wo)):
                out[o + i] = zero
            for kz in range(kd):
                iz = oz * sd + kz - pd
                if iz < 0 or iz >= D:
                    continue
                for ky in range(kh):
                    iy = oy * sh + ky - ph
                    if iy < 0 or iy >= H:
                        continue
                    rowstart = (iz * H + iy) * W
                    for kx in range(kw):
                        lo = np.uint64(cols[kx, 0])
                        m = np.uint64(cols[kx, 1]) - lo
                        s0 = xbase + np.uint64(rowstart + cols[kx, 2])
                        d0 = o + lo
                        for i in range(m):
                            out[d0 + i] += x[s0 + i * usw]
            dzy = divz[oz] * divy[oy]
            for i in range(np.uint64(Wo)):
                out[o + i] = out[o + i] / (dzy * divx[i])
            o += np.uint64(Wo)


@kernel
def _avg_pool(x, out, g, divz, divy, divx, p0, p1):
    cols = _column_ranges(g, 1)
    for p in range(p0, p1):
        _avg_plane(x, out, g, divz, divy, divx, cols, p)


def avg_pool(x, out, g, divz, divy, divx, p0, p1):
    """Average pooling of planes p0 <= p < p1 (x, out flat): the kernel, or while it
    compiles in the background its NumPy stand-in (the same additions in the same order)."""
    if ready(_avg_pool, x.dtype, x, out, g, divz, divy, divx, p0, p1):
        _avg_pool(x, out, g, divz, divy, divx, p0, p1)
    else:
        avg_pool_standin(x, out, g, divz, divy, divx, p0, p1)


def avg_pool_standin(x, out, g, divz, divy, divx, p0, p1):
    """``_avg_pool`` in NumPy: each window's valid taps added in row-major order into a
    zero of the dtype (a tap outside the input adds nothing, not +0.0: a sum of -0.0 stays
    -0.0), then divided by (divz * divy) * divx, as the kernel rounds them."""
    D, H, W, kd, kh, kw, sd, sh, sw, pd, ph, pw = g[:12]
    Do, Ho, Wo = g[15:18]
    z, vz = _taps(Do, sd, kd, 1, pd, D)
    y, vy = _taps(Ho, sh, kh, 1, ph, H)
    c, vc = _taps(Wo, sw, kw, 1, pw, W)
    planes = x.reshape(-1, D, H, W)[p0:p1]
    acc = np.zeros((p1 - p0, Do, Ho, Wo), x.dtype)
    for kz in range(kd):
        for ky in range(kh):
            for kx in range(kw):
                valid = (vz[:, kz, None, None] & vy[None, :, ky, None]
                         & vc[None, None, :, kx])
                v = planes[:, np.where(vz[:, kz], z[:, kz], 0)[:, None, None],
                           np.where(vy[:, ky], y[:, ky], 0)[None, :, None],
                           np.where(vc[:, kx], c[:, kx], 0)[None, None, :]]
                with np.errstate(all="ignore"):
                    acc = np.where(valid, acc + v, acc)
    div = (divz[:, None] * divy[None, :])[:, :, None] * divx[None, None, :]
    P = Do * Ho * Wo
    with np.errstate(all="ignore"):
        out[p0 * P:p1 * P] = (acc / div).reshape(-1)


@kernel
def _adaptive_plane(x, out, idx, mode, shape, zs, ze, ys, ye, xs, xe, p):
    """Adaptive pooling of plane p over windows [s, e) per axis.

    mode 0: average; 1: max; 2: max with indices (PyTorch's NaN and tie rules)."""
    D, H, W = shape[0], shape[1], shape[2]
    Do, Ho, Wo = zs.size, ys.size, xs.size
    xb = x[p * D * H * W:(p + 1) * D * H * W]
    P = Do * Ho * Wo
    k = p * P
    for oz in range(Do):
        for oy in range(Ho):
            for ox in range(Wo):
                if mode == 0:
                    s = out.dtype.type(0)
                    for iz in range(zs[oz], ze[oz]):
                        for iy in range(ys[oy], ye[oy]):
                            row = xb[(iz * H + iy) * W:]
                            for ix in range(xs[ox], xe[ox]):
                                s += row[ix]
                    cnt = (ze[oz] - zs[oz]) * (ye[oy] - ys[oy]) * (xe[ox] - xs[ox])
                    out[k] = s / cnt
                else:
                    m = out.dtype.type(-np.inf)
                    best = (zs[oz] * H + ys[oy]) * W + xs[ox]
                    for iz in range(zs[oz], ze[oz]):
                        for iy in range(ys[oy], ye[oy]):
                            base = (iz * H + iy) * W
                            for ix in range(xs[ox], xe[ox]):
                                v = xb[base + ix]
                                if v > m or v != v:
                                    m = v
                                    best = base + ix
                    out[k] = m
                    if mode == 2:
                        idx[k] = best
                k += 1


@kernel
def _adaptive(x, out, idx, mode, shape, zs, ze, ys, ye, xs, xe, p0, p1):
    for p in range(p0, p1):
        _adaptive_plane(x, out, idx, mode, shape, zs, ze, ys, ye, xs, xe, p)


def adaptive(x, out, idx, mode, shape, zs, ze, ys, ye, xs, xe, p0, p1):
    """Adaptive pooling of planes p0 <= p < p1: the kernel, or while it compiles in the
    background its NumPy stand-in (the same bits)."""
    args = (x, out, idx, mode, shape, zs, ze, ys, ye, xs, xe, p0, p1)
    if ready(_adaptive, x.dtype, *args):
        _adaptive(*args)
    else:
        adaptive_standin(*args)


def adaptive_standin(x, out, idx, mode, shape, zs, ze, ys, ye, xs, xe, p0, p1):
    """``_adaptive`` in NumPy, one output position at a time over all the planes: average
    (mode 0): the window's elements added in row-major order to a zero of the dtype, then
    divided by the count in float64 and rounded once, as the kernel's ``s / cnt`` does;
    max (1, 2 with indices): the last NaN, else the first maximum, the element's bits."""
    D, H, W = shape
    planes = x.reshape(-1, D, H, W)[p0:p1]
    n = p1 - p0
    Do, Ho, Wo = zs.size, ys.size, xs.size
    P = Do * Ho * Wo
    o = out[p0 * P:p1 * P].reshape(n, P)
    j = idx[p0 * P:p1 * P].reshape(n, P) if mode == 2 else None
    k = 0
    for oz in range(Do):
        for oy in range(Ho):
            for ox in range(Wo):
                z0, y0, x0 = zs[oz], ys[oy], xs[ox]
                w = planes[:, z0:ze[oz], y0:ye[oy], x0:xe[ox]]
                dz, dy, dx = w.shape[1:]
                w = w.reshape(n, -1)
                if mode == 0:
                    acc = np.concatenate([np.zeros((n, 1), w.dtype), w], axis=1)
                    with np.errstate(all="ignore"):
                        s = np.add.accumulate(acc, axis=1)[:, -1]
                        o[:, k] = (s.astype(np.float64) / (dz * dy * dx)).astype(o.dtype)
                else:
                    nan = np.isnan(w)
                    last_nan = w.shape[1] - 1 - np.argmax(nan[:, ::-1], axis=1)
                    first_max = np.argmax(w == w.max(axis=1, keepdims=True), axis=1)
                    t = np.where(nan.any(axis=1), last_nan, first_max)
                    o[:, k] = w[np.arange(n), t]
                    if j is not None:
                        iz, iy, ix = z0 + t // (dy * dx), y0 + t // dx % dy, x0 + t % dx
                        j[:, k] = (iz * H + iy) * W + ix
                k += 1


@kernel
def _mean_rows(x, out, m, r0, r1):
    """out[r] = mean of x[r*m : (r+1)*m] for r0 <= r < r1 (flat contiguous x): global
    average pooling. Vector sums (``vector_sum``) and a scalar tail, then one vectorized
    divide pass (a divide per row inside the loop measured 15 us of 40 on 16x512x7x7,
    a loop over out[r0:r1] by r 7 us, over a slice of it 1.3 us)."""
    V = 64 // x.itemsize
    nvec = m // V
    for r in range(r0, r1):
        b = r * m
        s = vector_sum(x, b, nvec)
        for k in range(b + nvec * V, b + m):
            s += x[k]
        out[r] = s
    d = out.dtype.type(m)
    o = out[r0:r1]  # (indices from 0: no wraparound check, so the loop vectorizes)
    for i in range(o.size):
        o[i] /= d


def mean_rows(x, out, m, r0, r1):
    """Global average pooling of rows r0 <= r < r1: the kernel, or while it compiles in
    the background its NumPy stand-in (the same bits)."""
    if ready(_mean_rows, (x.dtype, x.flags.writeable), x, out, m, r0, r1):
        _mean_rows(x, out, m, r0, r1)
    else:
        mean_rows_standin(x, out, m, r0, r1)


def mean_rows_standin(x, out, m, r0, r1):
    """``_mean_rows`` in NumPy, all the rows at once, each add in the kernel's order: the
    64-byte vectors of a row (V lanes) taken in turn by four accumulators of -0.0 (the
    last ``nvec % 4`` by the first), the accumulators added pairwise, their lanes folded
    by halves (lanes [0, h) += lanes [h, 2h)), the scalar tail added in order, then one
    divide by the row length in the dtype."""
    n = r1 - r0
    if n <= 0:
        return
    V = 64 // x.itemsize
    nvec = m // V
    rows = x[r0 * m:r1 * m].reshape(n, m)
    vecs = rows[:, :nvec * V].reshape(n, nvec, V)
    quads = nvec // 4
    acc = np.full((4, n, V), -0.0, x.dtype)
    with np.errstate(all="ignore"):
        for q in range(quads):
            for a in range(4):
                acc[a] += vecs[:, 4 * q + a]
        for k in range(4 * quads, nvec):
            acc[0] += vecs[:, k]
        v = (acc[0] + acc[1]) + (acc[2] + acc[3])
        h = V // 2
        while h:
            v[:, :h] = v[:, :h] + v[:, h:2 * h]
            h //= 2
        s = v[:, 0].copy()
        for k in range(nvec * V, m):
            s += rows[:, k]
        out[r0:r1] = s / out.dtype.type(m)
