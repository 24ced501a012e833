"""Real FFT kernels (private): power-of-two radix-4/2 DIT on SIMD lanes.

Lane blocks
    An (n, W) lane block holds W independent complex sequences of length n as two flat
    arrays ``re``/``im``; element i of lane v is at ``i*W + v``. A butterfly then works on
    whole SIMD vectors of adjacent lanes with one broadcast twiddle, written as an LLVM
    vector intrinsic (``_bfly*``): no shuffles, no alias checks. (Plain Numba loops over 16
    lanes were as fast for float32 but 3x slower for float64, where LLVM's loop vectorizer
    needs >= 24 iterations and ran the scalar loop.)

Real input
    rfft of 2*nc reals = complex FFT of nc = z[j] = x[2j] + i x[2j+1], then unpacked with
    Hermitian symmetry; irfft packs the spectrum into such a z, runs the inverse complex FFT
    (the forward one on (im, re) swapped) and writes z back as interleaved reals.

Complex FFT of one row (four-step), nc = n1 * n2
    load z as an (n1, n2) lane block (rows in digit-reversed order) -> length-n1 FFTs over
    n2 lanes -> twiddle w^(k1 j2) and transpose into an (n2, n1) block -> length-n2 FFTs
    over n1 lanes -> natural order. The lane FFTs run lane chunk by lane chunk so that a
    chunk stays in cache (this makes the big single transforms a cache-blocked six-step),
    and the chunks of one huge transform run in parallel.

Short rows (nc < 256) put V rows side by side as the lanes of one block instead.

Indices are uint64: a signed computed index makes Numba emit a negative-index wraparound
select that stops vectorization.
"""
import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from flexarray._kernels import kernel, parallel_kernel, numba

u = np.uint64
U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)


def _nlanes(dtype):
    """SIMD lanes per vector: 16 float32 or 8 float64 (one AVX-512 register)."""
    return 512 // (8 * np.dtype(dtype).itemsize)


# ----------------------------------------------------------------------------------------
# LLVM vector butterflies

def _bfly_codegen(npoints, twiddled):
    """Codegen of an in-place radix-`npoints` DIT butterfly on one vector of lanes.

    Points sit at element offsets p0, p0+s, p0+2s, ... of re/im; twiddles (w1..w3) are
    scalars broadcast to all lanes.
    """
    def codegen(context, builder, sig, args):
        re_t = sig.args[0]
        ft = context.get_value_type(re_t.dtype)
        nl = 512 // re_t.dtype.bitwidth
        vt = ir.VectorType(ft, nl)
        align = re_t.dtype.bitwidth // 8
        rdata = context.make_array(sig.args[0])(context, builder, args[0]).data
        idata = context.make_array(sig.args[1])(context, builder, args[1]).data
        offs = [args[2]]
        for _ in range(npoints - 1):
            offs.append(builder.add(offs[-1], args[3]))

        def vptr(base, off):
            return builder.bitcast(builder.gep(base, [off]), vt.as_pointer())

        rp = [vptr(rdata, o) for o in offs]
        ip = [vptr(idata, o) for o in offs]
        xr = [builder.load(p, align=align) for p in rp]
        xi = [builder.load(p, align=align) for p in ip]
        add, sub, mul = builder.fadd, builder.fsub, builder.fmul

        if twiddled:
            zero32 = ir.Constant(ir.IntType(32), 0)
            mask = ir.Constant(ir.VectorType(ir.IntType(32), nl), [0] * nl)
            undef = ir.Constant(vt, ir.Undefined)

            def splat(x):
                return builder.shuffle_vector(builder.insert_element(undef, x, zero32),
                                              undef, mask)

            w = [splat(a) for a in args[4:]]
            for q in range(1, npoints):
                wr, wi = w[2 * q - 2], w[2 * q - 1]
                ar, ai = xr[q], xi[q]
                xr[q] = sub(mul(ar, wr), mul(ai, wi))
                xi[q] = add(mul(ar, wi), mul(ai, wr))

        if npoints == 2:
            out = [(add(xr[0], xr[1]), add(xi[0], xi[1])),
                   (sub(xr[0], xr[1]), sub(xi[0], xi[1]))]
        else:
            t0r, t0i = add(xr[0], xr[2]), add(xi[0], xi[2])
            t1r, t1i = sub(xr[0], xr[2]), sub(xi[0], xi[2])
            t2r, t2i = add(xr[1], xr[3]), add(xi[1], xi[3])
            t3r, t3i = sub(xr[1], xr[3]), sub(xi[1], xi[3])
            out = [(add(t0r, t2r), add(t0i, t2i)),      # a + b + c + d
                   (add(t1r, t3i), sub(t1i, t3r)),      # a - ib - c + id
                   (sub(t0r, t2r), sub(t0i, t2i)),      # a - b + c - d
                   (sub(t1r, t3i), add(t1i, t3r))]      # a + ib - c - id
        for q in range(npoints):
            builder.store(out[q][0], rp[q], align=align)
            builder.store(out[q][1], ip[q], align=align)
        return context.get_dummy_value()
    return codegen


@intrinsic
def _bfly2(typingctx, re, im, p0, s):
    """Twiddle-free radix-2 butterfly on the vector at p0 and p0+s (in place)."""
    return types.void(re, im, types.uint64, types.uint64), _bfly_codegen(2, False)


@intrinsic
def _bfly4_first(typingctx, re, im, p0, s):
    """Twiddle-free radix-4 butterfly on the vectors at p0 + {0,1,2,3}*s (in place)."""
    return types.void(re, im, types.uint64, types.uint64), _bfly_codegen(4, False)


@intrinsic
def _bfly4(typingctx, re, im, p0, s, w1r, w1i, w2r, w2i, w3r, w3i):
    """Radix-4 DIT butterfly, points 1..3 multiplied by the broadcast twiddles w1..w3."""
    d = re.dtype
    return (types.void(re, im, types.uint64, types.uint64, d, d, d, d, d, d),
            _bfly_codegen(4, True))


def _transpose_regs(builder, rows, nl):
    """Transpose nl vectors of nl lanes: swap the off-diagonal blocks at every scale."""
    i32v = ir.VectorType(ir.IntType(32), nl)
    h = nl // 2
    while h >= 1:
        lo = [c if c & h == 0 else nl + c - h for c in range(nl)]
        hi = [c + h if c & h == 0 else nl + c for c in range(nl)]
        for i in range(nl):
            if i & h == 0:
                a, b = rows[i], rows[i + h]
                rows[i] = builder.shuffle_vector(a, b, ir.Constant(i32v, lo))
                rows[i + h] = builder.shuffle_vector(a, b, ir.Constant(i32v, hi))
        h //= 2
    return rows


@intrinsic
def _twiddle_transpose_tile(typingctx, pre, pim, twr, twi, qre, qim, perm2, s0, ss, jb, n1, kb):
    """One tile of the four-step transpose, in registers: for r, c < nl (the lane width),
    q[perm2[jb+c]*n1 + kb + r] = p[s0 + r*ss + c] * tw[s0 + r*ss + c]."""
    sig = types.void(pre, pim, twr, twi, qre, qim, perm2, types.uint64, types.uint64,
                     types.uint64, types.uint64, types.uint64)

    def codegen(context, builder, sig, args):
        at = sig.args[0]
        nl = 512 // at.dtype.bitwidth
        vt = ir.VectorType(context.get_value_type(at.dtype), nl)
        align = at.dtype.bitwidth // 8
        data = [context.make_array(sig.args[q])(context, builder, args[q]).data
                for q in range(7)]
        s0_, ss_, jb_, n1_, kb_ = args[7:]
        i64 = ir.IntType(64)

        def vptr(base, off):
            return builder.bitcast(builder.gep(base, [off]), vt.as_pointer())

        offs = [builder.add(s0_, builder.mul(ss_, ir.Constant(i64, r))) for r in range(nl)]
        ld = [[builder.load(vptr(data[q], o), align=align) for o in offs] for q in range(4)]
        rr = [builder.fsub(builder.fmul(a, wr), builder.fmul(b, wi))
              for a, b, wr, wi in zip(*ld)]
        ri = [builder.fadd(builder.fmul(a, wi), builder.fmul(b, wr))
              for a, b, wr, wi in zip(*ld)]
        rr = _transpose_regs(builder, rr, nl)
        ri = _transpose_regs(builder, ri, nl)
        for c in range(nl):
            row = builder.load(builder.gep(data[6], [builder.add(jb_, ir.Constant(i64, c))]))
            off = builder.add(builder.mul(row, n1_), kb_)
            builder.store(rr[c], vptr(data[4], off), align=align)
            builder.store(ri[c], vptr(data[5], off), align=align)
        return context.get_dummy_value()
    return sig, codegen


def lanes(a):
    """Lanes per SIMD vector for the dtype of array `a` (a compile-time constant)."""
    return _nlanes(a.dtype)


@overload(lanes)
def _lanes_overload(a):
    nl = 512 // a.dtype.bitwidth
    return lambda a: nl


# ----------------------------------------------------------------------------------------
# complex FFT over lanes (in place; input rows in _perm order, output in natural order)

@kernel(inline="always")
def _fft_lanes(re, im, n, W, c0, c1, twr, twi):
    """Forward FFT of length n (power of two) on lanes c0..c1-1 of an (n, W) lane block.

    c0, c1 and W are multiples of the vector width. Call with (im, re) swapped for the
    unnormalized inverse transform.
    """
    if n < 2:
        return
    nl = lanes(re)
    uW = u(W)
    k = 0
    while (1 << k) < n:
        k += 1
    if k % 2 == 1:
        for g in range(0, n, 2):
            for c in range(c0, c1, nl):
                _bfly2(re, im, u(g) * uW + u(c), uW)
        L = 8
    else:
        for g in range(0, n, 4):
            for c in range(c0, c1, nl):
                _bfly4_first(re, im, u(g) * uW + u(c), uW)
        L = 16
    toff = 0
    while L <= n:
        Ls = L // 4
        s = u(Ls) * uW
        for g in range(0, n, L):
            for j in range(Ls):
                t = toff + 3 * j
                w1r = twr[t]
                w1i = twi[t]
                w2r = twr[t + 1]
                w2i = twi[t + 1]
                w3r = twr[t + 2]
                w3i = twi[t + 2]
                p = u(g + j) * uW
                for c in range(c0, c1, nl):
                    _bfly4(re, im, p + u(c), s, w1r, w1i, w2r, w2i, w3r, w3i)
        toff += 3 * Ls
        L *= 4


# ----------------------------------------------------------------------------------------
# plans (computed once per size and dtype, cached)

def _stage_sizes(n):
    """Stage lengths L of the radix plan for a power-of-two n (first stage first)."""
    k = n.bit_length() - 1
    sizes = [2] if k % 2 else ([4] if k else [])
    while sizes and sizes[-1] * 4 <= n:
        sizes.append(sizes[-1] * 4)
    return sizes


def _perm(n):
    """Input order of the in-place DIT: lane-block row i takes sequence element perm[i]."""
    radices, prev = [], 1
    for L in _stage_sizes(n):
        radices.append(L // prev)
        prev = L

    def order(idx, rad):
        if len(idx) == 1 or not rad:
            return idx
        r = rad[-1]
        return np.concatenate([order(idx[p::r], rad[:-1]) for p in range(r)])

    return order(np.arange(n, dtype=np.int64), radices)


def _expi(num, den):
    """exp(-2 pi i num/den) in float64, the angle reduced exactly first."""
    num = np.asarray(num, dtype=np.int64) % den
    return np.exp(-2j * np.pi * (num / den))


def _lane_twiddles(n):
    """Twiddles of the twiddled radix-4 stages, in the order _fft_lanes reads them."""
    parts = []
    for L in _stage_sizes(n)[1:]:
        j = np.arange(L // 4)
        parts.append(_expi(np.arange(1, 4)[None, :] * j[:, None], L).ravel())
    return np.concatenate(parts + [np.ones(1, np.complex128)])   # never empty


class Plan:
    """Everything one (nc, dtype) needs: orders and twiddles in the compute dtype.

    Twiddles are computed in float64 and rounded once, so float32 transforms stay well
    inside the 1e-5 accuracy target.
    """

    def __init__(self, nc, dtype):
        dtype = np.dtype(dtype)
        self.nc = nc
        self.dtype = dtype
        nl = _nlanes(dtype)
        k = nc.bit_length() - 1
        # four-step split nc = n1 * n2 with both factors multiples of the lane width
        self.rowwise = nc >= nl * nl
        if self.rowwise:
            self.n1 = 1 << (k // 2)
            self.n2 = nc // self.n1
        else:
            self.n1, self.n2 = nc, 1
        split = lambda w: (np.ascontiguousarray(w.real, dtype), np.ascontiguousarray(w.imag, dtype))
        self.perm1 = _perm(self.n1)
        self.tw1r, self.tw1i = split(_lane_twiddles(self.n1))
        self.perm2 = np.argsort(_perm(self.n2))     # destination row of each column j2
        self.tw2r, self.tw2i = split(_lane_twiddles(self.n2))
        # four-step twiddles w_nc^(k1*j2), laid out [k1, j2]
        k1 = np.arange(self.n1)[:, None]
        j2 = np.arange(self.n2)[None, :]
        self.tw4r, self.tw4i = split(_expi(k1 * j2, nc).ravel())
        # real <-> half-length complex twiddles w_(2nc)^k, k = 0..nc
        self.wr, self.wi = split(_expi(np.arange(nc + 1), 2 * nc))


_PLANS = {}


def get_plan(nc, dtype):
    """The cached :class:`Plan` for complex length nc (a power of two) and float dtype."""
    key = (nc, np.dtype(dtype).char)
    p = _PLANS.get(key)
    if p is None:
        p = _PLANS[key] = Plan(nc, dtype)
    return p


# ----------------------------------------------------------------------------------------
# one row, four-step: pieces shared by rfft and irfft

@kernel(inline="always")
def _load_real(x, base, es, n1, n2, perm1, r0, r1, pre, pim):
    """Rows r0..r1-1 of the (n1, n2) block: pre/pim[i*n2 + j2] = x[2j], x[2j+1],
    j = perm1[i]*n2 + j2 (x read at base + element*es)."""
    for i in range(r0, r1):
        src = base + 2 * perm1[i] * n2 * es
        dst = u(i * n2)
        if es == 1:             # contiguous: a vectorized de-interleave
            us = u(src)
            for j2 in range(n2):
                pre[dst + u(j2)] = x[us + U2 * u(j2)]
                pim[dst + u(j2)] = x[us + U2 * u(j2) + U1]
        else:
            for j2 in range(n2):
                pre[dst + u(j2)] = x[u(src + 2 * j2 * es)]
                pim[dst + u(j2)] = x[u(src + (2 * j2 + 1) * es)]


@kernel(inline="always")
def _twiddle_transpose(pre, pim, qre, qim, n1, n2, perm2, tw4r, tw4i, t0, t1):
    """q[perm2[j2]*n1 + k1] = p[k1*n2 + j2] * w^(k1 j2) for k1 in tile rows t0..t1-1
    (perm2 is the inverse of the digit-reversal order of the length-n2 FFT).

    Register tiles of nl x nl (nl = lane width): ~6x faster than scalar 16 x 16 tiles.
    """
    nl = lanes(pre)
    for kb in range(t0 * nl, t1 * nl, nl):
        for jb in range(0, n2, nl):
            _twiddle_transpose_tile(pre, pim, tw4r, tw4i, qre, qim, perm2, u(kb * n2 + jb),
                                    u(n2), u(jb), u(n1), u(kb))


@kernel(inline="always")
def _unpack_real(qre, qim, nc, k0, k1, wr, wi, s, out, obase):
    """Spectrum X[k], k0 <= k < k1 (k <= nc) of the real row from its half-length
    transform Z (natural order in qre/qim), times s, into out (interleaved complex):
    X[k] = E + w^k O, E = (Z[k] + conj Z[nc-k]) / 2, O = -i (Z[k] - conj Z[nc-k]) / 2."""
    h = qre.dtype.type(0.5 * s)
    ob = u(obase)
    unc = u(nc)
    for k in range(max(k0, 1), min(k1, nc)):
        ka = u(k)
        kb = unc - ka
        ar = qre[ka]
        ai = qim[ka]
        br = qre[kb]
        bi = qim[kb]
        er = h * (ar + br)
        ei = h * (ai - bi)
        orr = h * (ai + bi)
        oi = h * (br - ar)
        out[ob + U2 * ka] = er + (wr[ka] * orr - wi[ka] * oi)
        out[ob + U2 * ka + U1] = ei + (wr[ka] * oi + wi[ka] * orr)
    zero = h - h
    if k0 == 0:                 # X[0] = Re Z0 + Im Z0
        out[ob] = 2 * h * (qre[0] + qim[0])
        out[ob + U1] = zero
    if k1 == nc + 1:            # X[nc] = Re Z0 - Im Z0
        out[ob + U2 * unc] = 2 * h * (qre[0] - qim[0])
        out[ob + U2 * unc + U1] = zero


@kernel(inline="always")
def _load_complex(x, base, es, k0, k1, qre, qim):
    """qre/qim[k] = X[k] for k0 <= k < k1, X read as float pairs at x[base + k*es]."""
    if es == 2:                 # contiguous: a vectorized de-interleave
        ub = u(base)
        for k in range(k0, k1):
            qre[u(k)] = x[ub + U2 * u(k)]
            qim[u(k)] = x[ub + U2 * u(k) + U1]
    else:
        for k in range(k0, k1):
            qre[u(k)] = x[u(base + k * es)]
            qim[u(k)] = x[u(base + k * es + 1)]


@kernel(inline="always")
def _pack_complex(xre, xim, nc, n1, n2, perm1, r0, r1, wr, wi, s, pre, pim):
    """irfft packing of the half spectrum X[0..nc] (split in xre/xim) into rows r0..r1-1
    of the (n1, n2) block: s * Z[j], j = perm1[i]*n2 + j2, with
    Z[j] = (X[j] + conj X[nc-j]) + i conj(w^j) (X[j] - conj X[nc-j]).
    The imaginary parts of X[0] and X[nc] are ignored (as pocketfft does)."""
    sc = pre.dtype.type(s)
    unc = u(nc)
    for i in range(r0, r1):
        j0 = u(perm1[i] * n2)
        dst = u(i * n2)
        for j2 in range(n2):
            j = j0 + u(j2)
            ar = xre[j]
            ai = xim[j]
            br = xre[unc - j]
            bi = xim[unc - j]
            dr = ar - br
            di = ai + bi
            tr = wr[j] * dr + wi[j] * di        # t = conj(w^j) (X[j] - conj X[nc-j])
            ti = wr[j] * di - wi[j] * dr
            pre[dst + u(j2)] = sc * ((ar + br) - ti)
            pim[dst + u(j2)] = sc * ((ai - bi) + tr)
        if j0 == 0:                 # Z[0] = (X0 + Xnc) + i (X0 - Xnc), real parts only
            pre[dst] = sc * (xre[0] + xre[unc])
            pim[dst] = sc * (xre[0] - xre[unc])


@kernel(inline="always")
def _store_real(qre, qim, k0, k1, out, obase):
    """out[2k], out[2k+1] = qre[k], qim[k] for k0 <= k < k1."""
    ob = u(obase)
    for k in range(k0, k1):
        out[ob + U2 * u(k)] = qre[u(k)]
        out[ob + U2 * u(k) + U1] = qim[u(k)]


# Steps of a transform. Every heavy step goes through the one call site of _task in each
# entry point: Numba links callees into every caller and LLVM inlines them, so each extra
# call site of the FFT code costs seconds of cold compile.
FFT1, TRANS, FFT2 = 0, 1, 2
CHUNK = 1 << 13     # complex elements of one lane-FFT task (64 KiB float32, 128 KiB float64)
TILE_ROWS = 4       # transpose tile rows per task


@kernel(inline="always")
def _steps(n1, n2, W1, nl):
    """(number of tasks, task width) of the steps FFT1, TRANS, FFT2 of an (n1, W1) block;
    a block with n2 == 1 only has FFT1."""
    w1 = max(nl, min(W1, CHUNK // n1 // nl * nl))
    if n2 == 1:
        return ((W1 + w1 - 1) // w1, w1), (0, 1), (0, 1)
    w2 = max(nl, min(n1, CHUNK // n2 // nl * nl))
    nt = n1 // nl
    return (((W1 + w1 - 1) // w1, w1), ((nt + TILE_ROWS - 1) // TILE_ROWS, TILE_ROWS),
            ((n1 + w2 - 1) // w2, w2))


@kernel(inline="always")
def _task(step, t, width, a1, a2, a3, a4, n1, n2, W1, pl):
    """Task t of a step: FFT1 = length-n1 FFTs on lanes [t*width, ...) of the (n1, W1) block
    a1/a2; TRANS = twiddle-transpose tile rows [t*width, ...) into a3/a4; FFT2 = length-n2
    FFTs on lanes [t*width, ...) of the (n2, n1) block a3/a4."""
    perm1, tw1r, tw1i, perm2, tw2r, tw2i, tw4r, tw4i, wr, wi = pl
    if step == TRANS:
        _twiddle_transpose(a1, a2, a3, a4, n1, n2, perm2, tw4r, tw4i, t * width,
                           min(n1 // lanes(a1), (t + 1) * width))
        return
    if step == FFT1:
        re, im, n, W, tr, ti = a1, a2, n1, W1, tw1r, tw1i
    else:
        re, im, n, W, tr, ti = a3, a4, n2, n1, tw2r, tw2i
    _fft_lanes(re, im, n, W, t * width, min(W, (t + 1) * width), tr, ti)


# Modes of _unit: a chunk of rows, or one phase task of a huge row.
ROWS, LOAD, PACK, PH_FFT1, PH_TRANS, PH_FFT2, STORE = -1, 0, 1, 2, 3, 4, 5
ROWS_PER_TASK = 64      # block rows per load / pack task of a huge row


@kernel(inline="always")
def _mode_tasks(inverse, mode, nrows, nchunks, n1, n2, nl):
    """(number of tasks, width) of a mode: ROWS splits nrows into nchunks chunks (whole
    lane blocks for short rows); the phases split one huge row."""
    nc = n1 * n2
    span = ROWS_PER_TASK * n2
    if mode == ROWS:
        unit = nl if n2 == 1 else 1
        nunits = (nrows + unit - 1) // unit
        return nchunks, (nunits + nchunks - 1) // nchunks * unit
    if mode == LOAD and inverse or mode == STORE:
        return (nc + span) // span, span
    if mode == LOAD or mode == PACK and inverse:
        return (n1 + ROWS_PER_TASK - 1) // ROWS_PER_TASK, ROWS_PER_TASK
    if mode == PACK:
        return 0, 1
    return _steps(n1, n2, n2, nl)[mode - PH_FFT1]


@kernel
def _unit(inverse, mode, t, width, b, x, roffs, es, out, olen, pl, s,
          pre, pim, qre, qim, zre, zim):
    """Task t of a mode: rfft (irfft if `inverse`) of rows [t*width, (t+1)*width) (mode
    ROWS), or task t of one phase of huge row b (the other modes).

    rfft: row b is 2*nc reals x[roffs[b] + j*es] -> nc+1 interleaved complex out[b*olen:].
    irfft: row b is nc+1 complex (float pairs at x[roffs[b] + k*es]) -> 2*nc reals.
    Rows with nc >= nl*nl run the four-step one at a time; shorter rows run nl at a time
    as the lanes of one block (gathered and scattered through zre/zim).
    """
    perm1, tw1r, tw1i, perm2, tw2r, tw2i, tw4r, tw4i, wr, wi = pl
    n1 = perm1.shape[0]
    n2 = perm2.shape[0]
    nc = n1 * n2
    nl = lanes(pre)
    rowwise = n2 > 1
    W1 = n2 if rowwise else nl
    lo = t * width
    if mode == LOAD or mode == PACK or mode == STORE:
        base = roffs[b]
        if mode == LOAD and inverse:
            _load_complex(x, base, es, lo, min(nc + 1, lo + width), qre, qim)
        elif mode == LOAD:
            _load_real(x, base, es, n1, n2, perm1, lo, min(n1, lo + width), pre, pim)
        elif mode == PACK:
            _pack_complex(qre, qim, nc, n1, n2, perm1, lo, min(n1, lo + width), wr, wi, s,
                          pre, pim)
        elif inverse:
            _store_real(qre, qim, lo, min(nc, lo + width), out, b * olen)
        else:
            _unpack_real(qre, qim, nc, lo, min(nc + 1, lo + width), wr, wi, s, out, b * olen)
        return
    if inverse:
        a1, a2, a3, a4 = pim, pre, qim, qre
    else:
        a1, a2, a3, a4 = pre, pim, qre, qim
    steps = _steps(n1, n2, W1, nl)
    if mode == ROWS:
        b0 = lo
        b1 = min(roffs.shape[0], lo + width)
        units = b1 - b0 if rowwise else (b1 - b0 + nl - 1) // nl
        s0, s1 = 0, 3
    else:
        b0 = b1 = 0
        units = 1
        s0, s1 = mode - PH_FFT1, mode - PH_FFT1 + 1
    for unit in range(max(units, 0)):
        # prologue: the complex sequence z into the lane block
        if mode != ROWS:
            pass
        elif rowwise:
            b = b0 + unit
            if inverse:
                _load_complex(x, roffs[b], es, 0, nc + 1, qre, qim)
                _pack_complex(qre, qim, nc, n1, n2, perm1, 0, n1, wr, wi, s, pre, pim)
            else:
                _load_real(x, roffs[b], es, n1, n2, perm1, 0, n1, pre, pim)
        else:
            c0 = b0 + unit * nl
            for v in range(nl):
                if c0 + v >= b1:
                    zre[:] = 0
                    zim[:] = 0
                elif inverse:
                    _load_complex(x, roffs[c0 + v], es, 0, nc + 1, qre, qim)
                    _pack_complex(qre, qim, nc, nc, 1, perm1, 0, nc, wr, wi, s, zre, zim)
                else:
                    _load_real(x, roffs[c0 + v], es, nc, 1, perm1, 0, nc, zre, zim)
                for i in range(nc):
                    pre[i * nl + v] = zre[i]
                    pim[i * nl + v] = zim[i]
        # the complex FFT: all steps and tasks (ROWS) or the one task of a phase
        for step in range(s0, s1):
            ntask, w = steps[step]
            t0, t1 = (0, ntask) if mode == ROWS else (t, t + 1)
            for tt in range(t0, t1):
                _task(step, tt, w, a1, a2, a3, a4, n1, n2, W1, pl)
        # epilogue: the spectrum (rfft) or the real row (irfft) out
        if mode != ROWS:
            continue
        for v in range(1 if rowwise else min(nl, b1 - b0 - unit * nl)):
            if rowwise:
                ob = (b0 + unit) * olen
            else:
                ob = (b0 + unit * nl + v) * olen
                for i in range(nc):
                    qre[i] = pre[i * nl + v]
                    qim[i] = pim[i * nl + v]
            if inverse:
                _store_real(qre, qim, 0, nc, out, ob)
            else:
                _unpack_real(qre, qim, nc, 0, nc + 1, wr, wi, s, out, ob)


@kernel(inline="always")
def _scratch(pl):
    """Scratch for one thread: lane block (pre, pim), row buffers (qre, qim), (zre, zim)."""
    n1 = pl[0].shape[0]
    n2 = pl[3].shape[0]
    nc = n1 * n2
    dt = pl[1].dtype
    nb = nc if n2 > 1 else nc * lanes(pl[1])
    return (np.empty(nb, dt), np.empty(nb, dt), np.empty(nc + 1, dt), np.empty(nc + 1, dt),
            np.empty(nc, dt), np.empty(nc, dt))


@parallel_kernel
def run_parallel(inverse, split, x, roffs, es, out, olen, pl, s, nchunks):
    """rfft (irfft if `inverse`) of every row on all threads: the rows in nchunks chunks,
    or (`split`) each huge row in turn with each of its phases split over the threads.
    One prange, so one parallel body to compile."""
    n1 = pl[0].shape[0]
    n2 = pl[3].shape[0]
    nl = lanes(pl[1])
    nrows = roffs.shape[0]
    shared = _scratch(pl)
    for b in range(nrows if split else 1):
        for phase in range(6 if split else 1):
            mode = phase if split else ROWS
            ntask, width = _mode_tasks(inverse, mode, nrows, nchunks, n1, n2, nl)
            for t in numba.prange(ntask):
                if split:
                    pre, pim, qre, qim, zre, zim = shared
                else:
                    pre, pim, qre, qim, zre, zim = _scratch(pl)
                _unit(inverse, mode, np.int64(t), width, b, x, roffs, es, out, olen, pl, s,
                      pre, pim, qre, qim, zre, zim)


# ----------------------------------------------------------------------------------------
# NumPy-level entry points

_NORMS = ("backward", "ortho", "forward")
PAR_MIN_WORK = 1 << 15      # reals per call below which one thread is faster
BIG_MIN_NC = 1 << 14        # complex length from which a lone row is split over threads


def _is_pow2(n):
    return n >= 2 and n & (n - 1) == 0


def _scale(norm, n, inverse):
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "forward") != inverse else 1.0


def _rows(v):
    """(flat, row offsets, element stride) of the last axis of v, in elements of v.dtype.

    `flat` is a read-only 1-D view of the memory span of v (no copy). Row b of
    v.reshape(-1, n) starts at flat[offsets[b]].
    """
    isz = v.dtype.itemsize
    if any(st % isz for st in v.strides):
        v = np.ascontiguousarray(v)
    strides = [st // isz if sh > 1 else 0 for sh, st in zip(v.shape, v.strides)]
    low = sum((sh - 1) * st for sh, st in zip(v.shape, strides) if st < 0)
    span = 1 + sum((sh - 1) * abs(st) for sh, st in zip(v.shape, strides))
    start = v[tuple(slice(None, None, -1) if st < 0 else slice(None) for st in strides)]
    flat = np.lib.stride_tricks.as_strided(start, shape=(span,), strides=(isz,))
    flat.flags.writeable = False
    offs = np.full(1, -low, dtype=np.int64)
    for sh, st in zip(v.shape[:-1], strides[:-1]):
        offs = (offs[:, None] + st * np.arange(sh, dtype=np.int64)[None, :]).ravel()
    return flat, offs, strides[-1]


def _launch(kind, flat, offs, es, out, olen, nc, dtype, scale):
    pl = get_plan(nc, dtype)
    tup = (pl.perm1, pl.tw1r, pl.tw1i, pl.perm2, pl.tw2r, pl.tw2i, pl.tw4r, pl.tw4i,
           pl.wr, pl.wi)
    nrows = offs.shape[0]
    nthreads = numba.get_num_threads()
    inverse = kind == "irfft"
    if nthreads < 2 or nrows * nc * 2 < PAR_MIN_WORK:
        nb = nc if pl.rowwise else nc * _nlanes(dtype)
        scratch = [np.empty(k, dtype) for k in (nb, nb, nc + 1, nc + 1, nc, nc)]
        _unit(inverse, ROWS, 0, nrows, 0, flat, offs, es, out, olen, tup, scale, *scratch)
    elif pl.rowwise and nc >= BIG_MIN_NC and nrows < 2 * nthreads:
        run_parallel(inverse, True, flat, offs, es, out, olen, tup, scale, nthreads)
    else:
        nl = _nlanes(dtype)
        nblk = nrows if pl.rowwise else (nrows + nl - 1) // nl
        run_parallel(inverse, False, flat, offs, es, out, olen, tup, scale,
                     min(nthreads, nblk))


def _last_axis(a, axis, m, n, fill):
    """a with `axis` moved last and cut or zero-padded to length n along it."""
    v = np.moveaxis(a, axis, -1)
    if m >= n:
        return v[..., :n]
    w = np.zeros(v.shape[:-1] + (n,), v.dtype)
    w[..., :m] = v
    return w


def rfft(a, n=None, axis=-1, norm="backward"):
    """Real-input FFT along `axis` (NumPy semantics): float32 -> complex64,
    float64 -> complex128. Any strides; power-of-two n use the Numba kernel."""
    a = np.asarray(a)
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float32 if a.dtype == np.float16 else np.float64)
    axis = axis % a.ndim
    m = a.shape[axis]
    n = m if n is None else n
    if not _is_pow2(n):
        # pocketfft through NumPy for the other sizes: see docs/fft.md for the
        # measurement against a Bluestein path on the power-of-two kernel.
        return np.fft.rfft(a, n, axis, norm)
    v = _last_axis(a, axis, m, n, 0)
    cdt = np.result_type(a.dtype, np.complex64)
    nc = n // 2
    out = np.empty(v.shape[:-1] + (nc + 1,), cdt)
    if out.size:
        flat, offs, es = _rows(v)
        _launch("rfft", flat, offs, es, out.reshape(-1).view(a.dtype), 2 * (nc + 1), nc,
                a.dtype, _scale(norm, n, False))
    return np.moveaxis(out, -1, axis)


def irfft(a, n=None, axis=-1, norm="backward"):
    """Inverse of :func:`rfft` (NumPy semantics): complex64 -> float32,
    complex128 -> float64; n defaults to 2*(m-1)."""
    a = np.asarray(a)
    if a.dtype not in (np.complex64, np.complex128):
        a = a.astype(np.complex64 if a.dtype in (np.float16, np.float32) else np.complex128)
    axis = axis % a.ndim
    m = a.shape[axis]
    n = 2 * (m - 1) if n is None else n
    if not _is_pow2(n):
        return np.fft.irfft(a, n, axis, norm)
    nc = n // 2
    v = _last_axis(a, axis, m, nc + 1, 0)
    rdt = a.real.dtype
    out = np.empty(v.shape[:-1] + (n,), rdt)
    if out.size:
        flat, offs, es = _rows(v)
        _launch("irfft", flat.view(rdt), 2 * offs, 2 * es, out.reshape(-1), n, nc, rdt,
                _scale(norm, n, True))
    return np.moveaxis(out, -1, axis)
