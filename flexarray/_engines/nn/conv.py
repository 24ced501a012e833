"""NumPy-level convolution engines (no validation: flexarray.nn.conv validates first).

All functions take C-contiguous float32/float64 NumPy arrays in the 3-D layout
(N, C, D, H, W) and return a fresh array of the same dtype. Engines:

* direct loops (Numba, over (image, output channel) pairs): depthwise and other thin
  reductions, where a GEMM would be too thin to pay;
* Winograd F(2x2, 3x3) for 3x3 stride-1 2-D convolutions with enough channels: 2.25x fewer
  multiplies than im2col, the 16 GEMMs through BLAS (16x128x64x64 -> 128: ~2x im2col);
* Winograd F(4, 4) along W for 2-D layers with 4 taps per row phase (7x7 stride 2, the
  first layer of image networks; 4-wide stride 1) and >= 32 output channels: the strided
  row convolution becomes sw stride-1 ones over the row's phases, each 4-output tile
  costing 7 multiplies per row instead of 16; half the GEMM work of im2col, the 7 GEMMs
  through BLAS (4x3x224x224 k7 s2 -> 64: 0.70-0.77 of im2col's time on one core);
* pointwise (1x1, stride 1, unpadded): one GEMM per group on the input itself;
* im2col + GEMM, tiled: column blocks of ~2 MB (cache-resident) per worker thread;
* transposed convolution: GEMM into column blocks, then col2im (scatter-add).

Large problems are cut into blocks run by worker threads (:mod:`.par`), each block
serial inside (single-threaded BLAS, serial Numba kernels). Blocks are sized by the shape
alone (``gates.NN_BALANCE_THREADS``), so that the results do not depend on the thread
count.
"""
import functools
import threading
from fractions import Fraction

import numpy as np

from .. import gates
from . import par

# im2col column blocks of about this many bytes: large enough for an efficient GEMM and
# few Python steps, small enough to stay in cache. Measured on one core (0.5/1/2 MB):
# k7 s2 3->64 on 4x224x224 14.3/12.5/12.6 ms, k3 s2 64->64 on 8x56x56 10.0/8.8/7.5 ms,
# k5 32->64 on 4x64x64 30.4/22.8/21.8 ms.
_COL_BLOCK_BYTES = 1 << 21
# im2col phase-splits strided inputs at least this wide.
_PHASE_MIN_W = 16
# Winograd blocks: V (16 x Cin x tiles) of about this many bytes.
_WINO_BLOCK_BYTES = 1 << 20
# Winograd along W: a block's split input, V and M (alpha x (K + Cout_g) x tiles) of
# about this many bytes. Measured on the k7 s2 3->64 layer (best of 36 calls, two
# threads, under other processes' load): 512 KB 6.9, 1 MB 5.6-5.8, 2 MB 6.3-6.7 ms;
# one thread: 1 MB 9.7, 2 MB 10.2 ms.
_WINO_W_BLOCK_BYTES = 1 << 20
# Winograd-along-W blocks call BLAS from their kernel when NumPy's OpenBLAS is found
# (tests turn it off to check the np.matmul path too)
_WINO_W_FUSED = True
# Threads from gates.CONV_GEMM_THREADS_MIN (CONV_DIRECT_THREADS_MIN for the direct loops)
# multiply-adds; blocks are sized for gates.NN_BALANCE_THREADS threads, never the actual
# count (the same GEMM shapes, the same bits, on any thread count).


def out_size(n, k, s, p_total, d, ceil=False):
    """Output length of a sliding window of k taps (dilation d, stride s) over n + p_total."""
    span = n + p_total - d * (k - 1) - 1
    if span < 0:
        return 0
    return (-(-span // s) if ceil else span // s) + 1


def geometry(x_shape, cout, cin_g, cout_g, ksize, stride, pad_lo, dilation, out_spatial):
    """The int64 geometry tuple the kernels share (see flexarray._kernels.nn.conv)."""
    return tuple(int(v) for v in (*x_shape, cout, cin_g, cout_g, *ksize, *stride, *pad_lo,
                                  *dilation, *out_spatial))


def _blocks(nrows, rows_per_block):
    return [(r, min(rows_per_block, nrows - r)) for r in range(0, nrows, rows_per_block)]


def use_direct(cin_g, cout_g, kvol):
    """Direct loops instead of a GEMM: depthwise, or a reduction too short for BLAS."""
    return cin_g == 1 or cin_g * kvol <= 8 or (cout_g == 1 and cin_g * kvol <= 64)


def use_winograd(cin_g, cout_g, ks, stride, dilation, D, kd_pad):
    """Winograd F(2x2,3x3): 3x3 taps, stride 1, dilation 1, 2-D, enough channels."""
    return (ks == (1, 3, 3) and stride[1:] == (1, 1) and dilation[1:] == (1, 1)
            and D == 1 and kd_pad == (0, 0) and cin_g >= 16 and cout_g >= 16)


def conv3d(x, w, b, stride, pad_lo, pad_hi, dilation, groups):
    """Cross-correlation like torch.nn.functional.conv3d (pads may be asymmetric)."""
    from flexarray._kernels.nn import conv as nn_conv_kernels

    N, C, D, H, W = x.shape
    Cout, Cin_g = w.shape[:2]
    ks = tuple(w.shape[2:])
    Cout_g = Cout // groups
    osp = tuple(out_size(n, k, s, pl + ph, d)
                for n, k, s, pl, ph, d in zip((D, H, W), ks, stride, pad_lo, pad_hi, dilation))
    Do, Ho, Wo = osp
    dtype = x.dtype
    P = Do * Ho * Wo
    kvol = ks[0] * ks[1] * ks[2]
    Kdim = Cin_g * kvol
    if P == 0 or N == 0 or Cout == 0 or Kdim == 0:
        out = np.empty((N, Cout, Do, Ho, Wo), dtype)
        out[...] = (b if b is not None else np.zeros(Cout, dtype))[:, None, None, None]
        return out
    g = geometry(x.shape, Cout, Cin_g, Cout_g, ks, stride, pad_lo, dilation, osp)
    macs = N * Cout * P * Kdim

    if use_direct(Cin_g, Cout_g, kvol):
        out = np.empty((N, Cout, Do, Ho, Wo), dtype)
        bb = b if b is not None else np.zeros(Cout, dtype)
        xf, wf, of = x.reshape(-1), w.reshape(-1), out.reshape(-1)
        par.run_ranges(lambda j0, j1: nn_conv_kernels.direct(xf, wf, bb, of, g, j0, j1), N * Cout,
                        macs >= gates.CONV_DIRECT_THREADS_MIN)
        return out

    if (use_winograd(Cin_g, Cout_g, ks, stride, dilation, D, (pad_lo[0], pad_hi[0]))
            and nn_conv_kernels.all_below(w.reshape(-1), _wino_w_limit(dtype))
            and (b is None or np.isfinite(b).all())):
        return _winograd(x, w, b, pad_lo[1:], osp[1:], groups, macs, g)

    if (use_winograd_w(Cout_g, ks, stride, dilation, D, osp)
            and nn_conv_kernels.all_below(w.reshape(-1), _wino_w_limit(dtype))
            and (b is None or np.isfinite(b).all())):
        out = _winograd_w(x, w, b, g, groups, macs)
        if out is not None:
            return out

    out = np.empty((N, Cout, P), dtype)
    if kvol == 1 and stride == (1, 1, 1) and pad_lo == (0, 0, 0) and osp == (D, H, W):
        # pointwise: the input already is the column matrix
        x3 = x.reshape(N, C, P)
        for grp in range(groups):
            co = slice(grp * Cout_g, (grp + 1) * Cout_g)
            np.matmul(w[co].reshape(Cout_g, Cin_g), x3[:, grp * Cin_g:(grp + 1) * Cin_g],
                      out=out[:, co])
        if b is not None:
            out += b[:, None]
        return out.reshape(N, Cout, Do, Ho, Wo)

    block, nq = _im2col_blocks(x, w, b, g, out, groups)
    par.run(block, [(n, grp, q0, nqb) for n in range(N) for grp in range(groups)
                     for q0, nqb in _blocks(Do * Ho, nq)], macs >= gates.CONV_GEMM_THREADS_MIN)
    return out.reshape(N, Cout, Do, Ho, Wo)


def _im2col_blocks(x, w, b, g, out, groups):
    """(block function, output rows per block) of im2col + GEMM into out (N, Cout, P).

    block((n, group, q0, nq)) computes output rows q = oz*Ho + oy in [q0, q0 + nq) of
    image n, group; a row of ones in the column matrix carries the bias."""
    from flexarray._kernels.nn import conv as nn_conv_kernels

    N, C, D, H, W = x.shape
    Cout, Cin_g = w.shape[:2]
    Cout_g = Cout // groups
    Kdim = Cin_g * w.shape[2] * w.shape[3] * w.shape[4]
    Wo = g[22]
    rows = Kdim + (b is not None)
    wmats = []
    for grp in range(groups):
        wg = w[grp * Cout_g:(grp + 1) * Cout_g].reshape(Cout_g, Kdim)
        if b is not None:
            wg = np.concatenate([wg, b[grp * Cout_g:(grp + 1) * Cout_g, None]], axis=1)
        wmats.append(np.ascontiguousarray(wg))
    nrows_out = g[20] * g[21]
    nq = max(1, min(nrows_out, _COL_BLOCK_BYTES // max(1, rows * Wo * x.itemsize)))
    # at least two blocks per thread, for balance (threads counted by shape alone)
    nq = max(1, min(nq, -(-N * groups * nrows_out // (2 * gates.NN_BALANCE_THREADS))))
    sw = g[13]
    Wq = 0
    if sw > 1 and W >= _PHASE_MIN_W:
        # phase-split rows (x[..., p, j] = x[..., j*sw + p]): strided gathers in im2col
        # become contiguous copies, for one pass over the input (im2col of k7 s2 on
        # 224x224: 0.50 -> 0.20 ns per element)
        Wq = -(-W // sw)
        xs = np.empty((N, C, D, H, sw, Wq), x.dtype)
        for p in range(sw):  # one strided copy per phase; the short phases end in a zero
            n_p = len(range(p, W, sw))
            xs[..., p, :n_p] = x[..., p::sw]
            xs[..., p, n_p:] = 0
        x = xs
    xflat = x.reshape(-1)
    plane = D * H * (W if Wq == 0 else Wq * sw)

    def block(item):
        n, grp, q0, nqb = item
        m = nqb * Wo
        col = par.scratch("im2col", (rows, m), x.dtype)
        if b is not None:
            col[Kdim] = 1
        nn_conv_kernels.im2col(xflat, (n * C + grp * Cin_g) * plane, g, Wq, Kdim, q0, nqb, col)
        np.matmul(wmats[grp], col,
                  out=out[n, grp * Cout_g:(grp + 1) * Cout_g, q0 * Wo:q0 * Wo + m])

    return block, nq


def _winograd(x, w, b, pad, osp, groups, macs, g):
    """3x3 stride-1 convolution of (N, C, 1, H, W) by Winograd F(2x2, 3x3)."""
    from flexarray._kernels.nn import conv as nn_conv_kernels

    N, C, _, H, W = x.shape
    Cout, Cin_g = w.shape[:2]
    Cout_g = Cout // groups
    Ho, Wo = osp
    ph, pw = pad
    dtype = x.dtype
    TH, TW = -(-Ho // 2), -(-Wo // 2)
    Wp = 2 * TW + 2
    # U = G g G^T, shape (16, Cout, Cin_g)
    G = np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]], dtype)
    U = np.einsum("ak,ockl,bl->aboc", G, w[:, :, 0], G)
    U = np.ascontiguousarray(U.reshape(16, Cout, Cin_g))
    bias = b if b is not None else np.zeros(Cout, dtype)
    out = np.empty((N, Cout, 1, Ho, Wo), dtype)
    oflat = out.reshape(-1)
    fallback = None
    limit = _wino_w_limit(dtype)
    ntr = max(1, min(TH, _WINO_BLOCK_BYTES // max(1, 16 * Cin_g * TW * x.itemsize)))

    def block(item):
        n, grp, tr0, nb = item
        T = nb * TW
        Hp = 2 * nb + 2
        xp = par.scratch("wino_x", (Cin_g, Hp, Wp), dtype)
        V = par.scratch("wino_v", (16, Cin_g, T), dtype)
        M = par.scratch("wino_m", (16, Cout_g, T), dtype)
        # the zero-padded input rows this block of tiles reads
        y0 = 2 * tr0 - ph
        r0 = min(max(-y0, 0), Hp)          # xp rows [r0, r1) hold input rows y0+r0 ...
        r1 = max(r0, min(H - y0, Hp))
        xp[:, :r0] = 0
        xp[:, r1:] = 0
        c1 = min(pw + W, Wp)
        xp[:, r0:r1, :pw] = 0
        xp[:, r0:r1, c1:] = 0
        xp[:, r0:r1, pw:c1] = x[n, grp * Cin_g:(grp + 1) * Cin_g, 0, y0 + r0:y0 + r1, :c1 - pw]
        if not (nn_conv_kernels.all_below(xp.reshape(-1), limit) and
                nn_conv_kernels.wino_input(xp.reshape(-1), Hp, Wp, nb, TW, V)):
            # inf/NaN in this block, or values that the transforms' sums would overflow
            # (limit): its output rows by im2col, as the definition says
            nonlocal fallback
            if fallback is None:
                fallback = _im2col_blocks(x, w, b, g, out.reshape(N, Cout, Ho * Wo), groups)[0]
            r0 = 2 * tr0
            fallback((n, grp, r0, min(Ho, r0 + 2 * nb) - r0))
            return
        np.matmul(U[:, grp * Cout_g:(grp + 1) * Cout_g], V, out=M)
        nn_conv_kernels.wino_output(M, bias[grp * Cout_g:(grp + 1) * Cout_g], oflat,
                       (n * Cout + grp * Cout_g) * Ho * Wo, Ho, Wo, tr0, nb, TW)

    par.run(block, [(n, grp, tr0, nb) for n in range(N) for grp in range(groups)
                     for tr0, nb in _blocks(TH, ntr)], macs >= gates.CONV_GEMM_THREADS_MIN)
    return out


# Winograd along W: F(4, r) with these interpolation points (the last one is infinity).
# Exact rational transforms from the Cook-Toom construction; the points are the usual
# small ones (0, +-1, +-2, then 1/2), which keep float32 errors near im2col's (k7 s2:
# 1.3e-6 of the output's scale). Only r = 4 is used: measured on one core against
# im2col, r = 4 (7x7 stride 2 on 3-32 channels -> 64) took 0.70-0.77 of the time, where
# r = 3 (3x3 stride 1, 5x5 stride 2; 8-32 output channels) took 0.93-1.27.
_WINO_W_POINTS = {4: (0, 1, -1, 2, -2, Fraction(1, 2))}


@functools.lru_cache(maxsize=None)
def _cook_toom(r):
    """(A^T (4, a), G (a, r), B^T (a, a)) in float64 for F(4, r), a = r + 3:
    y[i] = sum_k g[k] d[i + k] = A^T [(G g) * (B^T d)] for i < 4."""
    m = 4
    pts = [Fraction(p) for p in _WINO_W_POINTS[r]]
    a = m + r - 1

    def poly_without(skip):  # coefficients of prod over the points not in skip of (x - p)
        poly = [Fraction(1)]
        for l, q in enumerate(pts):
            if l != skip:
                poly = [(poly[k - 1] if k else 0) - q * (poly[k] if k < len(poly) else 0)
                        for k in range(len(poly) + 1)]
        return poly + [Fraction(0)] * (a - len(poly))

    AT = [[q ** i for q in pts] + [Fraction(int(i == m - 1))] for i in range(m)]
    G = []
    for j, q in enumerate(pts):
        f = Fraction(1)
        for l, o in enumerate(pts):
            if l != j:
                f *= q - o
        G.append([q ** k / f for k in range(r)])
    G.append([Fraction(int(k == r - 1)) for k in range(r)])
    BT = [poly_without(j) for j in range(a - 1)] + [poly_without(-1)]
    return tuple(np.array([[float(v) for v in row] for row in M]) for M in (AT, G, BT))


def use_winograd_w(cout_g, ks, stride, dilation, D, osp):
    """Winograd F(4, 4) along W: 2-D (at least 8 x 8 outputs), stride 1 or 2 along W
    with r = ceil(kw / sw) = 4 taps per phase (kw 4 at stride 1, 7 or 8 at stride 2), no
    dilation along W, and >= 32 output channels per group (the transforms' cost is
    shared by fewer channels otherwise; measured ahead at 64)."""
    sw = stride[2]
    return (D == 1 and ks[0] == 1 and dilation[2] == 1 and sw in (1, 2)
            and -(-ks[2] // sw) in _WINO_W_POINTS and osp[1] >= 8 and osp[2] >= 8
            and cout_g >= 32)


@functools.lru_cache(maxsize=None)
def _wino_w_limit(dtype):
    """Inputs and weights below this magnitude (a dtype scalar) cannot overflow the
    transforms' sums (both Winograd engines: F(2x2, 3x3) and F(4, r) along W); a NaN or
    an inf fails the check too (the kernels' ``all_below``), since the transforms would
    spread it over whole tiles: such calls (or blocks) go to im2col. (F(2x2, 3x3) had
    checked finiteness alone: alternating +-3e38 float32 inputs gave NaN everywhere.)"""
    return dtype.type(np.sqrt(np.finfo(dtype).max) * 1e-6)


def _winograd_w(x, w, b, g, groups, macs):
    """2-D convolution of (N, C, 1, H, W) by Winograd F(4, r) along W (see the kernels),
    or None when x holds an inf, NaN or a value large enough to overflow the transforms."""
    from flexarray._kernels.linalg import blas
    from flexarray._kernels.nn import conv as nn_conv_kernels

    N, C, _, H, W = x.shape
    Cout, Cin_g, _, kh, kw = w.shape
    Cout_g = Cout // groups
    sh, sw, ph, pw, dh = g[12], g[13], g[15], g[16], g[18]
    Ho, Wo = g[21], g[22]
    dtype = x.dtype
    r = -(-kw // sw)
    alpha = r + 3
    S = 4 * sw
    G, limit = _cook_toom(r)[1], _wino_w_limit(dtype)
    TW = -(-Wo // 4)
    J = TW + (sw * 7 - 1) // S  # room for the kernel's 7 taps (zero past alpha)
    x2 = x.reshape(N * C, H * W)
    # Each block splits the input rows it reads (a few rows more than its outputs' share;
    # measured: 0.4-0.8 ms less per call on two threads than one split pass upfront), one
    # channel at a time, fused with the input transform, which it computes once per input
    # row (the kernel): against a split pass then a transform per V row, measured 29 vs
    # 40 us per block, and per call (interleaved, best of 15 rounds, load 0.6-0.7)
    # 9.0-9.2 vs 9.8-10.0 ms on one core (thread CPU time; torch 10.1 ms) and 5.2-6.1 vs
    # 7.0-7.2 ms on two threads (torch 5.2-5.6 ms). The kernel also checks each row it
    # reads for values the transforms cannot take (a pass over x upfront cost ~0.1 ms
    # of serial time per call, ~2% on two threads).
    extra = (dh * (kh - 1)) // sh + 1  # (one spare row for the unused tiles of the last)
    K = sw * Cin_g * kh
    # U[f, co, (p, c, ky)] = sum_j G[f, j] w[co, c, ky, sw*j + p] (0 past the kernel)
    wp = np.zeros((Cout, Cin_g, kh, r * sw))
    wp[..., :kw] = w[:, :, 0]
    wp = wp.reshape(Cout, Cin_g, kh, r, sw).transpose(3, 0, 4, 1, 2)
    U = (G @ wp.reshape(r, Cout * K)).astype(dtype).reshape(alpha, Cout, K)
    bias = b if b is not None else np.zeros(Cout, dtype)
    out = np.empty((N, Cout, 1, Ho, Wo), dtype)
    oflat = out.reshape(-1)
    row_bytes = (alpha * (K + Cout_g) + Cin_g * sh * S) * J * x.itemsize
    nq = max(1, min(Ho, _WINO_W_BLOCK_BYTES // max(1, row_bytes)))
    nq = max(1, min(nq, -(-N * groups * Ho // (2 * gates.NN_BALANCE_THREADS))))

    Ug = [U[:, grp * Cout_g:(grp + 1) * Cout_g] for grp in range(groups)]
    gemm_fn = _WINO_W_FUSED and blas.gemm_pointer(dtype)  # 0: np.matmul between kernels
    bg = [bias[grp * Cout_g:(grp + 1) * Cout_g] for grp in range(groups)]
    views = {}  # (thread, rows) -> that thread's scratch arrays, made once per call
    rejected = []  # set by a block whose input rows the transforms cannot take

    def block(item):
        n, grp, q0, nb = item
        key = (threading.get_ident(), nb)
        bufs = views.get(key)
        if bufs is None:
            T = nb * J
            bufs = views[key] = (par.scratch("winow_xc", (sh, S, nb + extra, J), dtype),
                                 par.scratch("winow_r", (alpha, (nb + extra) * J), dtype),
                                 par.scratch("winow_v", (alpha, K, T), dtype),
                                 par.scratch("winow_m", (alpha, Cout_g, T), dtype),
                                 par.scratch("winow_y", (4 * T,), dtype))
        xs, R, V, M, Y = bufs
        nc0, ooff = n * C + grp * Cin_g, (n * Cout + grp * Cout_g) * Ho * Wo
        if rejected:
            return
        if gemm_fn:  # the whole block in one nogil call
            if not nn_conv_kernels.wino_w_block(x2, H, W, sh, ph, S, pw, nc0, q0, kh, sw, dh, limit, xs,
                                   R, V, gemm_fn, U, grp * Cout_g * K, Cout * K, M, bg[grp],
                                   oflat, ooff, Ho, Wo, J, Y):
                rejected.append(item)
            return
        if not nn_conv_kernels.wino_w_input(x2, H, W, sh, ph, S, pw, nc0, q0, kh, sw, dh, limit, xs, R, V):
            rejected.append(item)
            return
        np.matmul(Ug[grp], V, out=M)
        nn_conv_kernels.wino_w_output(M, bg[grp], oflat, ooff, Ho, Wo, q0, nb, J, Y)

    par.run(block, [(n, grp, q0, nb) for n in range(N) for grp in range(groups)
                     for q0, nb in _blocks(Ho, nq)], macs >= gates.CONV_GEMM_THREADS_MIN)
    return None if rejected else out


def conv_transpose3d(x, w, b, stride, padding, output_padding, dilation, groups):
    """Transposed convolution like torch.nn.functional.conv_transpose3d.

    GEMM (W^T x) into a column block, then col2im scatters it into the output. Work is
    split over (image, group, output-channel chunk): disjoint outputs, so no races."""
    from flexarray._kernels.nn import conv as nn_conv_kernels

    N, Cin, Di, Hi, Wi = x.shape
    Cin_g = Cin // groups
    Cout_g = w.shape[1]
    ks = tuple(w.shape[2:])
    Cout = Cout_g * groups
    osp = tuple((n - 1) * s - 2 * p + d * (k - 1) + op + 1
                for n, s, p, d, k, op in zip((Di, Hi, Wi), stride, padding, dilation, ks,
                                             output_padding))
    Do, Ho, Wo = osp
    dtype = x.dtype
    out = np.empty((N, Cout, Do, Ho, Wo), dtype)
    out[...] = (b if b is not None else np.zeros(Cout, dtype))[:, None, None, None]
    if out.size == 0 or Di * Hi * Wi == 0 or Cin_g == 0:
        return out
    kvol = ks[0] * ks[1] * ks[2]
    # The adjoint of the forward conv (Cout_g channels of size osp) -> (Di, Hi, Wi).
    g = geometry((N, Cout, Do, Ho, Wo), Cin, Cout_g, Cin_g, ks, stride, padding, dilation,
                 (Di, Hi, Wi))
    Pin = Di * Hi * Wi
    macs = N * Cin * Pin * Cout_g * kvol
    parallel = macs >= gates.CONV_GEMM_THREADS_MIN
    nchunk = 1
    if parallel and N * groups < gates.NN_BALANCE_THREADS:
        nchunk = min(Cout_g, gates.NN_BALANCE_THREADS)  # (a chunk's rows set its GEMM's shape)
    step = -(-Cout_g // nchunk)
    chunks = [(c0, min(Cout_g, c0 + step)) for c0 in range(0, Cout_g, step)]
    x3 = x.reshape(N, Cin, Pin)
    oflat = out.reshape(-1)
    wmat = w.reshape(Cin, Cout_g * kvol)
    Rmax = max(c1 - c0 for c0, c1 in chunks) * kvol
    nq = max(1, min(Di * Hi, _COL_BLOCK_BYTES // max(1, Rmax * Wi * x.itemsize)))

    def item_fn(item):
        n, grp, c0, c1 = item
        R = (c1 - c0) * kvol
        wT = wmat[grp * Cin_g:(grp + 1) * Cin_g, c0 * kvol:c1 * kvol].T
        xg = x3[n, grp * Cin_g:(grp + 1) * Cin_g]
        ooff = (n * Cout + grp * Cout_g + c0) * Do * Ho * Wo
        for q0, nqb in _blocks(Di * Hi, nq):
            m = nqb * Wi
            col = par.scratch("col2im", (R, m), dtype)
            np.matmul(wT, xg[:, q0 * Wi:q0 * Wi + m], out=col)
            nn_conv_kernels.col2im(col, g, c1 - c0, q0, nqb, oflat, ooff)

    par.run(item_fn, [(n, grp, c0, c1) for n in range(N) for grp in range(groups)
                       for c0, c1 in chunks], parallel)
    return out
