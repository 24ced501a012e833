"""Convolution kernels for flexarray.nn (private; no validation inside).

Everything is the 3-D case: 1-D and 2-D convolutions arrive with size-1 depth/height.
Operands are C-contiguous and flattened by the caller; one geometry tuple of int64
describes the problem, so each kernel compiles once per dtype (float32, float64).

geometry ``g`` (see ``flexarray.nn.conv._geometry``)::

    0 N  1 C  2 D  3 H  4 W        input  (N, C, D, H, W)
    5 Cout  6 Cin_g  7 Cout_g       channels (per group)
    8 kd  9 kh 10 kw                kernel
   11 sd 12 sh 13 sw                stride
   14 pd 15 ph 16 pw                padding (front/top/left; the back side is implied)
   17 dd 18 dh 19 dw                dilation
   20 Do 21 Ho 22 Wo                output

For transposed convolution the same tuple describes the *forward* convolution whose
adjoint is taken: (D, H, W) is then the transposed conv's output, (Do, Ho, Wo) its input.
"""
import numpy as np

from flexarray._kernels import kernel, ready
from flexarray._kernels.linalg.blas import gemm
from flexarray._kernels.nn.common import _valid_range, transpose8


# ----------------------------------------------------------------------------- im2col

@kernel
def _im2col_row(x, xoff, g, Wq, r, q0, nq, col):
    """Row r of the column matrix (one (c, kz, ky, kx)) for output rows q0..q0+nq.

    Wq > 0: x is phase-split along W (see :func:`im2col`), so strided reads are
    contiguous copies. Flat unsigned indexing, no per-segment slicing or division: with
    short output rows (28 wide) the per-segment overhead was 3/4 of the time."""
    D, H, W = g[2], g[3], g[4]
    kd, kh, kw = g[8], g[9], g[10]
    sd, sh, sw = g[11], g[12], g[13]
    pd, ph, pw = g[14], g[15], g[16]
    dd, dh, dw = g[17], g[18], g[19]
    Ho, Wo = g[21], g[22]
    kx = r % kw
    t = r // kw
    ky = t % kh
    t = t // kh
    kz = t % kd
    c = t // kd
    zero = col.dtype.type(0)
    xoff_x = kx * dw - pw
    lo, hi = _valid_range(Wo, xoff_x, sw, W)
    row_len = W if Wq == 0 else sw * Wq
    ix0 = lo * sw + xoff_x  # the first input column read (when lo < hi)
    if Wq == 0:
        col_off = ix0
    else:  # phase ix0 % sw, position ix0 // sw in it
        col_off = (ix0 % sw) * Wq + ix0 // sw
    cf = col.reshape(-1)
    dbase = np.uint64(r * col.shape[1])
    uWo, ulo, uhi = np.uint64(Wo), np.uint64(lo), np.uint64(hi)
    usw = np.uint64(sw)
    contiguous = sw == 1 or Wq > 0
    oz = q0 // Ho
    oy = q0 - oz * Ho
    for qi in range(nq):
        iz = oz * sd + kz * dd - pd
        iy = oy * sh + ky * dh - ph
        if iz < 0 or iz >= D or iy < 0 or iy >= H:
            for i in range(uWo):
                cf[dbase + i] = zero
        else:
            sbase = np.uint64(xoff + ((c * D + iz) * H + iy) * row_len + col_off)
            for i in range(ulo):
                cf[dbase + i] = zero
            d0 = dbase + ulo
            if contiguous:
                for i in range(uhi - ulo):
                    cf[d0 + i] = x[sbase + i]
            else:
                for i in range(uhi - ulo):
                    cf[d0 + i] = x[sbase + i * usw]
            for i in range(uhi, uWo):
                cf[dbase + i] = zero
        dbase += uWo
        oy += 1
        if oy == Ho:
            oy = 0
            oz += 1


@kernel
def _im2col(x, xoff, g, Wq, nrows, q0, nq, col):
    """col[r, qi*Wo + ox] = x[c, iz, iy, ix] (0 in the padding), r = (c, kz, ky, kx).

    x: flat input (C, D, H, W) per image, or with Wq > 0 phase-split along W as
    (C, D, H, sw, Wq): x[..., p, j] holds column j*sw + p; xoff: element offset of channel
    0 of this image/group; output rows q = oz*Ho + oy in [q0, q0 + nq). Serial: callers
    parallelize by blocks."""
    for r in range(nrows):
        _im2col_row(x, xoff, g, Wq, r, q0, nq, col)


# ----------------------------------------------------------------------------- col2im

@kernel
def _col2im_channel(col, g, c, q0, nq, out, ooff):
    """out[c] += the column-matrix rows of channel c (scatter of the adjoint of im2col)."""
    D, H, W = g[2], g[3], g[4]
    kd, kh, kw = g[8], g[9], g[10]
    sd, sh, sw = g[11], g[12], g[13]
    pd, ph, pw = g[14], g[15], g[16]
    dd, dh, dw = g[17], g[18], g[19]
    Ho, Wo = g[21], g[22]
    kvol = kd * kh * kw
    for kk in range(kvol):
        kx = kk % kw
        t = kk // kw
        ky = t % kh
        kz = t // kh
        src = col[c * kvol + kk]
        xoff_x = kx * dw - pw
        lo, hi = _valid_range(Wo, xoff_x, sw, W)
        for qi in range(nq):
            q = q0 + qi
            oz = q // Ho
            oy = q - oz * Ho
            iz = oz * sd + kz * dd - pd
            iy = oy * sh + ky * dh - ph
            if iz < 0 or iz >= D or iy < 0 or iy >= H:
                continue
            dst = out[ooff + ((c * D + iz) * H + iy) * W:]
            base = qi * Wo
            for ox in range(lo, hi):
                dst[np.uint64(ox * sw + xoff_x)] += src[base + ox]


@kernel
def _col2im(col, g, nchan, q0, nq, out, ooff):
    """Scatter-add the column matrix rows of nchan channels into out[ooff:] (serial)."""
    for c in range(nchan):
        _col2im_channel(col, g, c, q0, nq, out, ooff)


# ----------------------------------------------------------------------------- direct

@kernel
def _direct_job(x, w, b, out, g, job):
    """out[n, co] = b[co] + sum over the group's input channels and taps (direct loops)."""
    C, D, H, W = g[1], g[2], g[3], g[4]
    Cout, Cin_g, Cout_g = g[5], g[6], g[7]
    kd, kh, kw = g[8], g[9], g[10]
    sd, sh, sw = g[11], g[12], g[13]
    pd, ph, pw = g[14], g[15], g[16]
    dd, dh, dw = g[17], g[18], g[19]
    Do, Ho, Wo = g[20], g[21], g[22]
    n = job // Cout
    co = job - n * Cout
    grp = co // Cout_g
    P = Do * Ho * Wo
    ob0 = np.uint64(job * P)
    bv = b[co]
    for i in range(np.uint64(P)):
        out[ob0 + i] = bv
    kvol = kd * kh * kw
    usw = np.uint64(sw)
    for ci in range(Cin_g):
        c = grp * Cin_g + ci
        xb0 = np.uint64((n * C + c) * D * H * W)
        wb = w[(co * Cin_g + ci) * kvol:]
        for kz in range(kd):
            for ky in range(kh):
                for kx in range(kw):
                    wv = wb[(kz * kh + ky) * kw + kx]
                    xoff_x = kx * dw - pw
                    lo, hi = _valid_range(Wo, xoff_x, sw, W)
                    for oz in range(Do):
                        iz = oz * sd + kz * dd - pd
                        if iz < 0 or iz >= D:
                            continue
                        for oy in range(Ho):
                            iy = oy * sh + ky * dh - ph
                            if iy < 0 or iy >= H:
                                continue
                            s0 = xb0 + np.uint64((iz * H + iy) * W + lo * sw + xoff_x)
                            d0 = ob0 + np.uint64((oz * Ho + oy) * Wo + lo)
                            m = np.uint64(hi - lo)
                            if sw == 1:
                                for i in range(m):
                                    out[d0 + i] += wv * x[s0 + i]
                            else:
                                for i in range(m):
                                    out[d0 + i] += wv * x[s0 + i * usw]


@kernel
def _direct(x, w, b, out, g, job0, job1):
    """Direct convolution of (image, output channel) pairs job0 <= n*Cout + co < job1."""
    for job in range(job0, job1):
        _direct_job(x, w, b, out, g, job)


# ------------------------------------------------------ im2col, col2im, direct: first calls
# Each asks ``ready`` first; while its kernel compiles in the background, a NumPy stand-in
# gives the same bits: im2col moves elements (bits gathered, +0.0 in the padding); col2im
# adds each tap's rows in the kernel's tap order (one addition per output element and tap:
# a tap maps its (row, column) positions to distinct outputs); the direct loops add each
# tap's products (rounded, then added: the kernel has no fused multiply-add) in the
# kernel's order, bias first, then input channel, kz, ky, kx.
# NaN operands: which of two NaNs an addition or product returns is the compiled code's
# operand order, which differs between the kernels' vector and scalar loops (measured: a
# +NaN from the input and a -NaN made by inf - inf came out either way). Every NaN that
# finite or infinite operands make is the one default NaN, so the stand-ins of col2im and
# direct serve only operands without a NaN (checked, on first calls only); a call with a
# NaN compiles its kernel on the caller's thread.

_UINT = {4: np.uint32, 8: np.uint64}


def _taps(g):
    """(kz, ky, kx) of each tap, in the kernels' order (kx fastest)."""
    kd, kh, kw = g[8], g[9], g[10]
    t = np.arange(kd * kh * kw)
    return t // (kh * kw), t // kw % kh, t % kw


def im2col(x, xoff, g, Wq, nrows, q0, nq, col):
    """``_im2col`` (see there), or its stand-in while it compiles."""
    args = (x, xoff, g, Wq, nrows, q0, nq, col)
    if ready(_im2col, (x.dtype, x.flags.writeable, col.dtype, col.flags.c_contiguous), *args):
        _im2col(*args)
    else:
        im2col_standin(*args)


def im2col_standin(x, xoff, g, Wq, nrows, q0, nq, col):
    """``_im2col``'s column matrix by NumPy: the same elements' bits, +0.0 in the padding."""
    D, H, W = g[2], g[3], g[4]
    kd, kh, kw = g[8], g[9], g[10]
    sd, sh, sw = g[11], g[12], g[13]
    pd, ph, pw = g[14], g[15], g[16]
    dd, dh, dw = g[17], g[18], g[19]
    Ho, Wo = g[21], g[22]
    if nrows == 0 or nq == 0 or Wo == 0:
        return
    kvol = kd * kh * kw
    r = np.arange(nrows)
    c = r // kvol
    kz, ky, kx = (v[r % kvol] for v in _taps(g))
    q = np.arange(q0, q0 + nq)
    iz = (q // Ho)[None, :] * sd + (kz * dd - pd)[:, None]          # (nrows, nq)
    iy = (q % Ho)[None, :] * sh + (ky * dh - ph)[:, None]
    ix = np.arange(Wo)[None, :] * sw + (kx * dw - pw)[:, None]      # (nrows, Wo)
    ok = (((iz >= 0) & (iz < D) & (iy >= 0) & (iy < H))[:, :, None]
          & ((ix >= 0) & (ix < W))[:, None, :])
    iz, iy, ix = np.clip(iz, 0, D - 1), np.clip(iy, 0, H - 1), np.clip(ix, 0, W - 1)
    row_len = W if Wq == 0 else sw * Wq
    pos = ix if Wq == 0 else (ix % sw) * Wq + ix // sw
    src = xoff + ((c[:, None] * D + iz) * H + iy) * row_len
    bits = _UINT[x.itemsize]
    v = x.view(bits)[src[:, :, None] + pos[:, None, :]]
    v[~ok] = 0
    col[:nrows, :nq * Wo].view(bits)[...] = v.reshape(nrows, nq * Wo)


def col2im(col, g, nchan, q0, nq, out, ooff):
    """``_col2im`` (see there), or its stand-in while it compiles."""
    args = (col, g, nchan, q0, nq, out, ooff)
    if ready(_col2im, (col.dtype, col.flags.writeable, col.flags.c_contiguous), *args) or \
            _has_nan(col) or _has_nan(out[ooff:ooff + nchan * g[2] * g[3] * g[4]]):
        _col2im(*args)
    else:
        col2im_standin(*args)


def _has_nan(a) -> bool:
    return a.dtype.kind == "f" and bool(np.isnan(a).any())


def col2im_standin(col, g, nchan, q0, nq, out, ooff):
    """``_col2im``'s scatter-add by NumPy: tap by tap in the kernel's order, every channel
    at once (each output element gets at most one addition per tap)."""
    D, H, W = g[2], g[3], g[4]
    kd, kh, kw = g[8], g[9], g[10]
    sd, sh, sw = g[11], g[12], g[13]
    pd, ph, pw = g[14], g[15], g[16]
    dd, dh, dw = g[17], g[18], g[19]
    Ho, Wo = g[21], g[22]
    if nchan == 0 or nq == 0 or Wo == 0:
        return
    kvol = kd * kh * kw
    q = np.arange(q0, q0 + nq)
    oz, oy, ox = q // Ho, q % Ho, np.arange(Wo)
    ch = np.arange(nchan)[:, None, None]
    rows = col[:nchan * kvol, :nq * Wo].reshape(nchan, kvol, nq, Wo)
    with np.errstate(all="ignore"):
        for kk, (kz, ky, kx) in enumerate(zip(*_taps(g))):
            iz = oz * sd + kz * dd - pd
            iy = oy * sh + ky * dh - ph
            ix = ox * sw + kx * dw - pw
            okq = (iz >= 0) & (iz < D) & (iy >= 0) & (iy < H)
            okx = (ix >= 0) & (ix < W)
            if not okq.any() or not okx.any():
                continue
            qs, xs = np.nonzero(okq)[0], np.nonzero(okx)[0]
            dst = (ooff + ((ch * D + iz[qs][None, :, None]) * H + iy[qs][None, :, None]) * W
                   + ix[xs][None, None, :])
            out[dst] += rows[:, kk][:, qs][:, :, xs]


def direct(x, w, b, out, g, job0, job1):
    """``_direct`` (see there), or its stand-in while it compiles."""
    args = (x, w, b, out, g, job0, job1)
    key = (x.dtype, x.flags.writeable, w.flags.writeable, b.flags.writeable)
    if ready(_direct, key, *args) or _has_nan(w) or _has_nan(b) or _has_nan(
            _images(x, g, job0, job1)):
        _direct(*args)
    else:
        direct_standin(*args)


def _images(x, g, job0, job1):
    """The input images (flat) that (image, output channel) pairs ``[job0, job1)`` read."""
    plane = g[1] * g[2] * g[3] * g[4]
    return x[job0 // g[5] * plane:((job1 - 1) // g[5] + 1) * plane]


def direct_standin(x, w, b, out, g, job0, job1):
    """``_direct``'s outputs of (image, output channel) pairs ``[job0, job1)`` by NumPy:
    the bias, then each input channel's taps in the kernel's order, every output element
    of every pair a product (rounded) added (rounded) as the kernel adds it."""
    N, C, D, H, W = g[0], g[1], g[2], g[3], g[4]
    Cout, Cin_g, Cout_g = g[5], g[6], g[7]
    sd, sh, sw = g[11], g[12], g[13]
    pd, ph, pw = g[14], g[15], g[16]
    dd, dh, dw = g[17], g[18], g[19]
    Do, Ho, Wo = g[20], g[21], g[22]
    if job1 <= job0:
        return
    P = Do * Ho * Wo
    jobs = np.arange(job0, job1)
    n, co = jobs // Cout, jobs % Cout
    grp = co // Cout_g
    o = out[job0 * P:job1 * P].reshape(-1, Do, Ho, Wo)
    o[...] = b[co][:, None, None, None]
    x5 = x.reshape(N, C, D, H, W)
    kz_, ky_, kx_ = _taps(g)
    kvol = len(kz_)
    w3 = w.reshape(Cout, Cin_g, kvol)

    def span(n_out, k_off, s, n_in):
        lo = 0 if k_off >= 0 else (-k_off + s - 1) // s
        last = n_in - 1 - k_off
        if last < 0:
            return 0, 0, 0
        hi = min(last // s + 1, n_out)
        lo = min(lo, hi)
        return lo, hi, lo * s + k_off

    with np.errstate(all="ignore"):
        for ci in range(Cin_g):
            xs = x5[n, grp * Cin_g + ci]                     # (jobs, D, H, W)
            for t in range(kvol):
                zlo, zhi, z0 = span(Do, kz_[t] * dd - pd, sd, D)
                ylo, yhi, y0 = span(Ho, ky_[t] * dh - ph, sh, H)
                xlo, xhi, x0 = span(Wo, kx_[t] * dw - pw, sw, W)
                if zlo == zhi or ylo == yhi or xlo == xhi:
                    continue
                region = xs[:, z0:z0 + (zhi - zlo - 1) * sd + 1:sd,
                            y0:y0 + (yhi - ylo - 1) * sh + 1:sh,
                            x0:x0 + (xhi - xlo - 1) * sw + 1:sw]
                wv = w3[co, ci, t][:, None, None, None]
                o[:, zlo:zhi, ylo:yhi, xlo:xhi] += wv * region


# ----------------------------------------------------------------------------- Winograd
# F(2x2, 3x3): each 2x2 output tile from a 4x4 input tile with 16 multiplies per channel
# pair instead of 36. V = B^T d B, U = G g G^T (done by the caller), M = U (.) V summed
# over input channels (16 GEMMs), Y = A^T M A.

@kernel
def _wino_input(xp, Hp, Wp, ntr, TW, V):
    """V[k, c, r*TW + tc] = (B^T d B)[k] for the 4x4 tile at rows 2r, cols 2tc of xp[c].

    xp: zero-padded input block (C, Hp, Wp) flat; V: (16, C, ntr*TW) C-contiguous.
    Returns False when the block holds an inf or NaN (or a sum overflows): the transforms
    would then spread NaN to outputs whose window does not contain it (inf - inf), so
    the caller computes that block another way. The column transform runs on whole rows
    (contiguous, vectorized), then the row transform per tile: 3.2x faster than
    transforming tile by tile."""
    C = V.shape[1]
    T = V.shape[2]
    Vf = V.reshape(-1)
    CT = C * T
    rows = np.empty((4, Wp), xp.dtype)
    chk = np.zeros(Wp, xp.dtype)  # stays 0 unless an input is inf or NaN (x * 0 is NaN)
    for c in range(C):
        for r in range(ntr):
            base = (c * Hp + 2 * r) * Wp
            r0 = xp[base:base + Wp]
            r1 = xp[base + Wp:base + 2 * Wp]
            r2 = xp[base + 2 * Wp:base + 3 * Wp]
            r3 = xp[base + 3 * Wp:base + 4 * Wp]
            for j in range(Wp):  # B^T d: the four rows of the tile column
                rows[0, j] = r0[j] - r2[j]
                rows[1, j] = r1[j] + r2[j]
                rows[2, j] = r2[j] - r1[j]
                rows[3, j] = r1[j] - r3[j]
                chk[j] += (r0[j] + r1[j] + r2[j] + r3[j]) * 0
            t0 = c * T + r * TW
            for s in range(4):  # (B^T d) B
                row = rows[s]
                o0 = Vf[(4 * s) * CT + t0:]
                o1 = Vf[(4 * s + 1) * CT + t0:]
                o2 = Vf[(4 * s + 2) * CT + t0:]
                o3 = Vf[(4 * s + 3) * CT + t0:]
                for tc in range(TW):
                    j = np.uint64(2 * tc)
                    u = np.uint64(tc)
                    x0 = row[j]
                    x1 = row[j + np.uint64(1)]
                    x2 = row[j + np.uint64(2)]
                    x3 = row[j + np.uint64(3)]
                    o0[u] = x0 - x2
                    o1[u] = x1 + x2
                    o2[u] = x2 - x1
                    o3[u] = x1 - x3
    for j in range(Wp):
        if chk[j] != 0:
            return False
    return True


@kernel
def _wino_output(M, bias, out, ooff, Ho, Wo, tr0, ntr, TW):
    """out[co, 2tr + a, 2tc + b] = bias[co] + (A^T M A)[a, b] for tile rows tr0..tr0+ntr.

    M: (16, Cout, ntr*TW) C-contiguous; out: flat, channel 0 of the block at ooff, planes
    (Ho, Wo). A^T M runs on contiguous tile rows first, then (A^T M) A per tile."""
    Cout = M.shape[1]
    T = M.shape[2]
    Mf = M.reshape(-1)
    CT = Cout * T
    pq = np.empty((8, TW), M.dtype)
    full = Wo // 2
    for co in range(Cout):
        bv = bias[co]
        for r in range(ntr):
            t0 = co * T + r * TW
            for j in range(4):  # A^T M: p_j = m_j + m_4+j + m_8+j, q_j = m_4+j - m_8+j - m_12+j
                m0 = Mf[j * CT + t0:]
                m1 = Mf[(4 + j) * CT + t0:]
                m2 = Mf[(8 + j) * CT + t0:]
                m3 = Mf[(12 + j) * CT + t0:]
                for tc in range(TW):
                    u = np.uint64(tc)
                    pq[j, tc] = m0[u] + m1[u] + m2[u]
                    pq[4 + j, tc] = m1[u] - m2[u] - m3[u]
            y = 2 * (tr0 + r)
            for a in range(2):
                if y + a >= Ho:
                    break
                o = out[ooff + (co * Ho + y + a) * Wo:]
                s0, s1, s2, s3 = pq[4 * a], pq[4 * a + 1], pq[4 * a + 2], pq[4 * a + 3]
                for tc in range(full):
                    u = np.uint64(tc)
                    x = np.uint64(2 * tc)
                    o[x] = bv + (s0[u] + s1[u] + s2[u])
                    o[x + np.uint64(1)] = bv + (s1[u] - s2[u] - s3[u])
                if full < TW:  # odd width: the last tile's left column only
                    o[2 * full] = bv + (s0[full] + s1[full] + s2[full])


def wino_input(xp, Hp, Wp, ntr, TW, V):
    """:func:`_wino_input`, or while it compiles in the background its NumPy stand-in
    (the same bits)."""
    if ready(_wino_input, (xp.dtype, xp.flags.writeable), xp, Hp, Wp, ntr, TW, V):
        return _wino_input(xp, Hp, Wp, ntr, TW, V)
    return wino_input_standin(xp, Hp, Wp, ntr, TW, V)


def wino_input_standin(xp, Hp, Wp, ntr, TW, V):
    """``_wino_input`` in NumPy, all tiles at once, each difference and sum as the kernel
    forms it (the column transform, then the row transform); False when a tile column's
    ``((r0 + r1) + r2) + r3`` is not finite (the kernel's check)."""
    C = V.shape[1]
    x = xp[:C * Hp * Wp].reshape(C, Hp, Wp)
    # r0..r3: the four input rows of each tile row r (rows 2r .. 2r + 3)
    r0, r1, r2, r3 = (x[:, k:k + 2 * ntr:2] for k in range(4))
    with np.errstate(all="ignore"):
        rows = (r0 - r2, r1 + r2, r2 - r1, r1 - r3)         # (C, ntr, Wp) each
        ok = bool(np.isfinite(((r0 + r1) + r2) + r3).all())
        Vv = V.reshape(16, C, ntr, TW)
        for s_, row in enumerate(rows):
            x0, x1, x2, x3 = (row[:, :, k:k + 2 * TW:2] for k in range(4))
            Vv[4 * s_] = x0 - x2
            Vv[4 * s_ + 1] = x1 + x2
            Vv[4 * s_ + 2] = x2 - x1
            Vv[4 * s_ + 3] = x1 - x3
    return ok


def wino_output(M, bias, out, ooff, Ho, Wo, tr0, ntr, TW):
    """:func:`_wino_output`, or while it compiles in the background its NumPy stand-in
    (the same bits)."""
    args = (M, bias, out, ooff, Ho, Wo, tr0, ntr, TW)
    if ready(_wino_output, (M.dtype, bias.flags.writeable), *args):
        _wino_output(*args)
    else:
        wino_output_standin(*args)


def wino_output_standin(M, bias, out, ooff, Ho, Wo, tr0, ntr, TW):
    """``_wino_output`` in NumPy, all tiles at once: p_j = (m_j + m_4+j) + m_8+j and
    q_j = (m_4+j - m_8+j) - m_12+j, then bias + ((s0 + s1) + s2) and
    bias + ((s1 - s2) - s3) per output pair, as the kernel adds them."""
    Cout = M.shape[1]
    m = M.reshape(4, 4, Cout, ntr, TW)          # m[i, j]: M's row 4i + j
    with np.errstate(all="ignore"):
        p = (m[0] + m[1]) + m[2]                 # (4 j, Cout, ntr, TW)
        q = (m[1] - m[2]) - m[3]
        b = bias[:Cout, None, None]
        o = out[ooff:ooff + Cout * Ho * Wo].reshape(Cout, Ho, Wo)
        y0 = 2 * tr0
        full = Wo // 2
        for a, s in enumerate((p, q)):
            left = b + ((s[0] + s[1]) + s[2])        # (Cout, ntr, TW)
            right = b + ((s[1] - s[2]) - s[3])
            rows = [r for r in range(ntr) if y0 + 2 * r + a < Ho]
            if not rows:
                continue
            ys = [y0 + 2 * r + a for r in rows]
            o[:, ys, 0:2 * full:2] = left[:, rows, :full]
            o[:, ys, 1:2 * full:2] = right[:, rows, :full]
            if full < TW:
                o[:, ys, 2 * full] = left[:, rows, full]


def all_below(a, limit):
    """:func:`_all_below`, or while it compiles in the background ``|a| < limit``
    everywhere in NumPy (the same answer: a NaN fails both)."""
    if ready(_all_below, (a.dtype, a.flags.writeable), a, limit):
        return _all_below(a, limit)
    with np.errstate(invalid="ignore"):
        return bool((np.abs(a) < limit).all())


# ----------------------------------------------------------------------------- Winograd along W
# F(4, r) along the rows only (1-D transforms), for strided or few-channel 2-D layers where
# the 2-D transform's channel GEMM would be too thin: a stride-sw row convolution with kw
# taps is sw stride-1 convolutions with r = ceil(kw / sw) taps over the row's phases,
# which become extra GEMM rows (K = sw * Cin_g * kh). Each 4-output tile then costs alpha
# = r + 3 multiplies per row instead of 4 r (7 x 7 stride 2: 14 instead of 28 per 4
# outputs). The kernels have r = 4 (alpha = 7) written out; the caller builds U = G w.

@kernel
def _tap_offset(base, i, sw, p, S, plane):
    """Offset in xs of tap i's run (column sw*i + p of the tile) for phase p."""
    u = sw * i + p
    return np.uint64(base + (u % S) * plane + u // S)


@kernel
def wino_w_output(M, bias, out, ooff, Ho, Wo, q0, nq, J, Y):
    """out[co, q0 + qi, 4 t + a] = bias[co] + sum_f AT[a, f] M[f, co, qi*J + t].

    M: (7, Cout, nq*J) C-contiguous; out: flat, channel 0 of the block at ooff, planes
    (Ho, Wo); Y: scratch (nq*J*4,). A^T is F(4, 4)'s at the points (0, 1, -1, 2, -2, 1/2,
    inf) (``_cook_toom(4)`` in flexarray._engines.nn.conv), written out with its symmetry:
    with a = m1 + m2, b = m1 - m2, c = m3 + m4, d = m3 - m4,

        y0 = m0 + a + c + m5,  y1 = b + 2 d + m5 / 2,  y2 = a + 4 c + m5 / 4,
        y3 = b + 8 d + m5 / 8 + m6

    (10 additions and 5 multiplies per tile instead of 28 multiply-adds: measured 20 us
    per block of the k7 s2 benchmark layer, against 31 us). The constants are of M's
    dtype (an int or Python float would promote float32 to float64). The tiles of all
    the block's rows go into Y in one long loop (4 interleaved stores, vectorized), then
    each output row is copied out: 2.3x faster than transforming row by row (rows of 28
    tiles are too short for the vector loop)."""
    Cout = M.shape[1]
    T = M.shape[2]
    ft = M.dtype.type
    c4, c8, h2, h4, h8 = ft(4), ft(8), ft(0.5), ft(0.25), ft(0.125)
    for co in range(Cout):
        bv = bias[co]
        m0, m1, m2, m3 = M[0, co], M[1, co], M[2, co], M[3, co]
        m4, m5, m6 = M[4, co], M[5, co], M[6, co]
        for u in range(T):
            a = m1[u] + m2[u]
            b = m1[u] - m2[u]
            c = m3[u] + m4[u]
            d = m3[u] - m4[u]
            e = m5[u]
            x = np.uint64(4 * u)
            Y[x] = bv + (m0[u] + a + c + e)
            Y[x + np.uint64(1)] = bv + (b + (d + d) + e * h2)
            Y[x + np.uint64(2)] = bv + (a + c4 * c + e * h4)
            Y[x + np.uint64(3)] = bv + (b + c8 * d + e * h8 + m6[u])
        for qi in range(nq):
            o = np.uint64(ooff + (co * Ho + q0 + qi) * Wo)
            y = np.uint64(4 * J * qi)
            for i in range(np.uint64(Wo)):
                out[o + i] = Y[y + i]


@kernel
def _split_interior(xf, d, plane, src, ja, jb, pw, S):
    """xf[d + s*plane + j] = src[S*j + s - pw] for j in [ja, jb), s < S (all inside src).
    S = 8: 8 x 8 transposes (the last one overlapping the one before, rewriting the same
    values); measured 18 against 27 us per block of the k7 s2 benchmark layer."""
    if S == 8 and jb - ja >= 8:
        j = ja
        while j + 8 < jb:
            transpose8(xf, d + j, plane, src, 8 * j - pw)
            j += 8
        transpose8(xf, d + jb - 8, plane, src, 8 * (jb - 8) - pw)
        return
    up = np.uint64(plane)
    for j in range(ja, jb):
        o = np.uint64(S * j - pw)
        e = np.uint64(d + j)
        for s in range(S):
            xf[e + np.uint64(s) * up] = src[o + np.uint64(s)]


@kernel
def _split_edge(xf, d, plane, src, j0, j1, pw, S):
    """As :func:`_split_interior` for j in [j0, j1), 0 where S*j + s - pw is outside src."""
    W = src.shape[0]
    zero = xf.dtype.type(0)
    for j in range(j0, j1):
        for s in range(S):
            X = S * j + s - pw
            xf[d + s * plane + j] = src[X] if 0 <= X < W else zero


@kernel
def _all_below(a, limit):
    """Every element of a finite and of magnitude < limit (a NaN or an inf fails). (An
    OR of the failures vectorizes; counting the successes into a Python int did not:
    measured 1.2 against 9.6 us for 20K float32.)"""
    bad = False
    for i in range(a.shape[0]):
        bad |= not (abs(a[i]) < limit)
    return not bad


@kernel
def wino_w_input(x, H, W, sh, ph, S, pw, nc0, q0, kh, sw, dh, limit, xs, R, V):
    """V[f, rr, qi*J + t] = sum_i BT[f, i] d_i for tile t of output row q0 + qi.

    Returns False, V undefined, when an input row the block reads holds a NaN, an inf or a
    value of magnitude >= limit (the transforms would spread or overflow it; checked here,
    on rows already in L1, rather than in a pass over the whole input upfront).

    x: (N*C, H*W) flat planes, the group's channel 0 at plane nc0; V: (7, K, nq*J), K
    = sw * Cin_g * kh. Row rr = (p * Cin_g + c) * kh + ky reads phase p of channel c at
    input row sh*oy + dh*ky - ph; tap i of tile t at column sw*(4 t + i) + p - pw (0
    outside); the last J - ceil(Wo / 4) tiles of each row are unused.

    One channel at a time: its input rows are split into sh phases along H and S = 4 sw
    phases along W, xs (sh, S, Hq, J): xs[hp, s, yq, j] = x[c, sh*(q0 + yq) + hp - ph,
    S*j + s - pw] (0 outside; small enough for L1), so that one tap of a run of rows is
    one contiguous run; then each input row's transform is computed once into R (7,
    Hq*J) and copied to each V row (p, c, ky) that reads it (measured per block of the k7
    s2 benchmark layer, 11 output rows: 29 us, against 40 us for a split pass over the
    block followed by the transform of each V row).

    B^T is F(4, 4)'s at the points (0, 1, -1, 2, -2, 1/2, inf) (``_cook_toom(4)`` in
    flexarray._engines.nn.conv), written out with its symmetry, all seven rows in one pass over
    the seven taps d0..d6 (26 operations per tile instead of 49 multiply-adds over seven
    passes); the constants are of the data's dtype (a Python float would promote float32
    to float64)."""
    K = V.shape[1]
    L = V.shape[2]
    Cin_g = K // (sw * kh)
    Hq, J = xs.shape[2], xs.shape[3]
    nq = L // J
    plane = Hq * J
    xf = xs.reshape(-1)
    Vf = V.reshape(-1)
    uL = np.uint64(L)
    ft = xs.dtype.type
    zero, half, two, four = ft(0), ft(0.5), ft(2), ft(4)
    c25, c5 = ft(2.5), ft(5)
    R0, R1, R2, R3, R4, R5, R6 = R[0], R[1], R[2], R[3], R[4], R[5], R[6]
    ja = min(J, (pw + S - 1) // S)  # j in [ja, jb): all S phases inside the row
    jb = max(ja, min(J, (W + pw - S) // S + 1))
    for c in range(Cin_g):
        for hp in range(sh):
            for yq in range(Hq):
                y = sh * (q0 + yq) + hp - ph
                d = (hp * S * Hq + yq) * J
                if y < 0 or y >= H:
                    for s in range(S):
                        for j in range(J):
                            xf[d + s * plane + j] = zero
                    continue
                src = x[nc0 + c, y * W:(y + 1) * W]
                if not _all_below(src, limit):
                    return False
                _split_edge(xf, d, plane, src, 0, ja, pw, S)
                _split_edge(xf, d, plane, src, jb, J, pw, S)
                _split_interior(xf, d, plane, src, ja, jb, pw, S)
        for hp in range(sh):
            nrow = 0  # R rows that some V row reads (the last tile reads one more)
            for ky in range(kh):
                if (dh * ky) % sh == hp:
                    nrow = max(nrow, (dh * ky) // sh + nq)
            n = np.uint64(nrow * J)
            base = hp * S * plane
            for p in range(sw):
                o0 = _tap_offset(base, 0, sw, p, S, plane)
                o1 = _tap_offset(base, 1, sw, p, S, plane)
                o2 = _tap_offset(base, 2, sw, p, S, plane)
                o3 = _tap_offset(base, 3, sw, p, S, plane)
                o4 = _tap_offset(base, 4, sw, p, S, plane)
                o5 = _tap_offset(base, 5, sw, p, S, plane)
                o6 = _tap_offset(base, 6, sw, p, S, plane)
                for t in range(n):
                    d0, d1, d2, d3 = xf[o0 + t], xf[o1 + t], xf[o2 + t], xf[o3 + t]
                    d4, d5, d6 = xf[o4 + t], xf[o5 + t], xf[o6 + t]
                    P = d1 - two * d2
                    Q = d2 - two * d3
                    A = two * Q - half * d4 + d5  # rows 1, 2: A + B, A - B
                    B = two * P - half * d3 + d4
                    A2 = half * Q - half * d4 + d5  # rows 3, 4: A2 + B2, A2 - B2
                    B2 = P - d3 + two * d4
                    R0[t] = four * d1 - two * d0 + c25 * d2 - c5 * d3 - half * d4 + d5
                    R1[t] = A + B
                    R2[t] = A - B
                    R3[t] = A2 + B2
                    R4[t] = A2 - B2
                    R5[t] = four * d1 - c5 * d3 + d5
                    R6[t] = four * d2 - two * d1 + c25 * d3 - c5 * d4 - half * d5 + d6
                for f in range(7):
                    Rf = R[f]
                    for ky in range(kh):
                        if (dh * ky) % sh == hp:
                            s0 = np.uint64(((dh * ky) // sh) * J)
                            d0 = np.uint64((f * K + (p * Cin_g + c) * kh + ky) * L)
                            for t in range(uL):
                                Vf[d0 + t] = Rf[s0 + t]
    return True


@kernel
def wino_w_block(x, H, W, sh, ph, S, pw, nc0, q0, kh, sw, dh, limit, xs, R, V, gemm_fn, U,
                 uoff, ustep, M, bias, out, ooff, Ho, Wo, J, Y):
    """One block of Winograd along W in one call: :func:`wino_w_input`, the 7 GEMMs
    M[f] = U[f] V[f] through BLAS (:func:`flexarray._kernels.linalg.blas.gemm`; U[f] of the
    group at flat offset uoff + f*ustep, rows K apart), :func:`wino_w_output`. False (out
    untouched) when the input check fails."""
    if not wino_w_input(x, H, W, sh, ph, S, pw, nc0, q0, kh, sw, dh, limit, xs, R, V):
        return False
    K, T = V.shape[1], V.shape[2]
    Cout = M.shape[1]
    Uf, Vf, Mf = U.reshape(-1), V.reshape(-1), M.reshape(-1)
    for f in range(V.shape[0]):
        gemm(gemm_fn, Cout, T, K, Uf, uoff + f * ustep, K, Vf, f * K * T, T, Mf,
             f * Cout * T, T)
    wino_w_output(M, bias, out, ooff, Ho, Wo, q0, T // J, J, Y)
    return True
