"""Real FFT kernels (private): power-of-two radix-4/2 DIT on SIMD lanes.

Lane blocks
    An (n, W) lane block holds W independent complex sequences of length n as two flat
    arrays ``re``/``im``; element i of lane v is at ``i*W + v``. A butterfly then works on
    whole SIMD vectors of adjacent lanes with one broadcast twiddle, written as an LLVM
    vector intrinsic (``_bfly*``): no shuffles, no alias checks. (Plain Numba loops over 16
    lanes were as fast for float32 but 3x slower for float64, where LLVM's loop vectorizer
    needs >= 24 iterations and ran the scalar loop.)

Real input
    rfft of 2*nc reals = complex FFT of the nc points z[j] = x[2j] + i x[2j+1], unpacked
    with Hermitian symmetry; irfft packs the spectrum into such a z, runs the inverse
    complex FFT (the forward one on (im, re) swapped) and writes z back as reals.

Rows (nc >= nl*nl): a six-step over the (n1, n2) view of z in phases of independent tasks
    COLS (gather a chunk of columns, length-n1 FFTs, twiddle and register-tile transpose
    into q), ROWSFFT (length-n2 FFTs on chunks of q's lanes), OUT (unpack or write reals);
    irfft packs straight from the half spectrum. Chunks stay in L2; a huge row runs each
    phase's tasks on all threads. Short rows run nl at a time as the lanes of one block.

Kinds: RFFT, IRFFT, and the complex CFFT / ICFFT used by the Bluestein path for lengths
that are not powers of two (the engine, ``flexarray._engines.fft``, sends here the float32
lengths with a large prime factor; other lengths go to pocketfft). See docs/fft.md for the
measurements behind each choice.

Indices are uint64: a signed computed index makes Numba emit a negative-index wraparound
select that stops vectorization.
"""
import math
import threading

import numpy as np

from flexarray._kernels import kernel, ready
from flexarray import _threads
from flexarray._engines import gates
from flexarray._kernels.fft.codegen import (_bfly2, _bfly4, _bfly4_first, _bfly8_first, _borrow,
                                            _bfly2_first_pack, _bfly2_first_pairs,
                                            _bfly4_first_pack, _bfly4_first_pairs,
                                            _bfly8_first_pack, _bfly8_first_pairs,
                                            _fetch_add, _load_pairs, _nlanes, _pack_pairs,
                                            _pad, _store_pairs, _twiddle_transpose_tile,
                                            _unpack_pairs, aligned_empty, fma, lanes, pad16)
from flexarray._kernels.fft import standin
from flexarray._kernels.fft.plans import _cached, get_plan

u = np.uint64
U1 = np.uint64(1)
U2 = np.uint64(2)




# ----------------------------------------------------------------------------------------
# LLVM vector butterflies





























# ----------------------------------------------------------------------------------------
# complex FFT over lanes (in place; input rows in _perm order, output in natural order)

@kernel(inline="always")
def _fft_lanes(re, im, n, W, c0, c1, twr, twi, src, x, xb, xn, perm1, n2, col, swap, nc, wr,
               wi, sc):
    """Forward FFT of length n (power of two) on lanes c0..c1-1 of an (n, W) lane block.

    c0, c1 and W are multiples of the vector width. Stages: one twiddle-free first stage,
    radix-8 when log2 n is odd (one pass instead of a radix-2 and a radix-4 pass: 1.2x
    faster lane FFTs of 32 points) else radix-4 (radix-2 for n = 2), then radix-4 stages
    with the twiddles of _lane_twiddles. (Twiddled radix-8 stages were 1.7-3x slower on
    blocks of 512+ points: 14 twiddles per butterfly and 30 live vectors spill.) Call with
    (im, re) swapped for the unnormalized inverse transform.

    src: where the first stage reads. IN_PLACE: re/im. PAIRS / PACK: the six-step's
    column chunk straight from the input, lane block row i and lane c being element
    perm1[i]*n2 + col + c of z: PAIRS reads z as the float pairs of contiguous x from xb
    (_load_real), PACK packs it from the contiguous half spectrum at x[xb..] (nc, wr, wi,
    scale sc: _pack_complex); `swap`: re and im are swapped (the inverse transform). The
    same input lines of the next row (at xn) are prefetched into L2 meanwhile (serial,
    256 rows of 4096 points: irfft float32 3.4 -> 3.05 us a row, irfft of 2048 points
    float64 3.8-3.9 -> 3.0; rfft float32 -5% to -10%, float64 unchanged).
    """
    if n < 2:
        return
    nl = lanes(re)
    uW = u(W)
    k = 0
    while (1 << k) < n:
        k += 1
    L = 2 if k == 1 else (8 if k % 2 == 1 else 4)
    for g in range(0, n, L):
        p = u(g) * uW
        for c in range(c0, c1, nl):
            if src == IN_PLACE:
                if L == 2:
                    _bfly2(re, im, p + u(c), uW)
                elif L == 4:
                    _bfly4_first(re, im, p + u(c), uW)
                else:
                    _bfly8_first(re, im, p + u(c), uW)
                continue
            f = (re, im, p + u(c), uW, x, xb, xn, perm1, u(g), n2, col + u(c), swap, nc, wr,
                 wi, sc)
            if src == PAIRS:
                if L == 2:
                    _bfly2_first_pairs(*f)
                elif L == 4:
                    _bfly4_first_pairs(*f)
                else:
                    _bfly8_first_pairs(*f)
            elif L == 2:
                _bfly2_first_pack(*f)
            elif L == 4:
                _bfly4_first_pack(*f)
            else:
                _bfly8_first_pack(*f)
    L *= 4
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



















# ----------------------------------------------------------------------------------------
# one row, four-step: pieces shared by rfft and irfft

@kernel(inline="always")
def _load_real(x, base, es, n1, n2, perm1, c0, c1, dre, dim, ld):
    """Columns c0..c1-1 of the (n1, n2) view of z (z[j] = x[2j] + i x[2j+1], x read at
    base + element*es), rows in perm1 order: d[i*ld + j2 - c0] = z[perm1[i]*n2 + j2]."""
    nl = lanes(dre)
    w = c1 - c0
    wv = w // nl * nl if es == 1 else 0         # contiguous: whole vectors first
    for i in range(n1):
        src = base + 2 * (perm1[i] * n2 + c0) * es
        dst = u(i * ld)
        for j in range(0, wv, nl):
            _load_pairs(x, u(src) + U2 * u(j), dre, dim, dst + u(j))
        for j in range(wv, w):
            dre[dst + u(j)] = x[u(src + 2 * j * es)]
            dim[dst + u(j)] = x[u(src + (2 * j + 1) * es)]


@kernel(inline="always")
def _pack_complex(x, base, es, nc, n1, n2, perm1, c0, c1, wr, wi, s, dre, dim, ld):
    """irfft packing, laid out like _load_real: d[i*ld + j2 - c0] = s * Z[j] for
    j = perm1[i]*n2 + j2, c0 <= j2 < c1, from the half spectrum X[0..nc] read as float
    pairs at x[base + k*es]:
    Z[j] = (X[j] + conj X[nc-j]) + i conj(w^j) (X[j] - conj X[nc-j]), w = exp(-i pi/nc).
    The imaginary parts of X[0] and X[nc] are ignored (as pocketfft does).

    Reads X straight from the input: a separate pass de-interleaving X into split arrays
    first (the former phase XLOAD) cost 0.21 / 0.38 ms of 1.07 / 2.07 ms (256 rows of
    4096 points, float32 / float64, one thread)."""
    nl = lanes(dre)
    sc = dre.dtype.type(s)
    unc = u(nc)
    ub = u(base)
    ues = u(es)
    w = c1 - c0
    wv = w // nl * nl if es == 2 else 0         # contiguous: whole vectors first
    for i in range(n1):
        j0 = u(perm1[i] * n2 + c0)
        dst = u(i * ld)
        for jj in range(0, wv, nl):
            j = j0 + u(jj)
            _pack_pairs(x, ub + U2 * j, ub + U2 * (unc - j - u(nl - 1)), wr, wi, j, sc,
                        dre, dim, dst + u(jj))
        for jj in range(wv, w):
            j = j0 + u(jj)
            pa = ub + ues * j
            pb = ub + ues * (unc - j)
            ar = x[pa]
            ai = x[pa + U1]
            br = x[pb]
            bi = x[pb + U1]
            dr = ar - br
            di = ai + bi
            tr = fma(wr[j], dr, wi[j] * di)     # t = conj(w^j) (X[j] - conj X[nc-j])
            ti = fma(wr[j], di, -(wi[j] * dr))
            dre[dst + u(jj)] = sc * ((ar + br) - ti)
            dim[dst + u(jj)] = sc * ((ai - bi) + tr)
        if j0 == 0:                 # Z[0] = (X0 + Xnc) + i (X0 - Xnc), real parts only
            dre[dst] = sc * (x[ub] + x[ub + ues * unc])
            dim[dst] = sc * (x[ub] - x[ub + ues * unc])


@kernel(inline="always")
def _twiddle_transpose(sre, sim, lds, c0, c1, qre, qim, n1, n2, perm2, tw4r, tw4i):
    """q[perm2[j2]*n1 + k1] = s[k1*lds + j2 - c0] * w^(k1 j2) for all k1 < n1 and
    c0 <= j2 < c1 (perm2: the inverse digit-reversal order of the length-n2 FFT).

    Register tiles of nl x nl (nl = lane width): ~6x faster than scalar 16 x 16 tiles.
    """
    nl = lanes(sre)
    for kb in range(0, n1, nl):
        for jb in range(c0, c1, nl):
            _twiddle_transpose_tile(sre, sim, tw4r, tw4i, qre, qim, perm2,
                                    u(kb * lds + jb - c0), u(lds), u(kb * n2 + jb), u(n2),
                                    u(jb), u(n1), u(kb))


@kernel(inline="always")
def _unpack_real(qre, qim, nc, k0, k1, wr, wi, s, out, obase):
    """Spectrum X[k] and X[nc-k], k0 <= k < k1 <= nc//2 + 1, of the real row from its
    half-length transform Z (natural order in qre/qim), times s, into out (interleaved
    complex): with e = Z[k] + conj Z[nc-k], o = -i (Z[k] - conj Z[nc-k]) and p = w^k o,
    X[k] = s/2 (e + p) and X[nc-k] = s/2 conj(e - p) (w^(nc-k) = -conj w^k): each pair of
    Z read once, half the twiddles, 8 operations per output instead of 16."""
    nl = lanes(qre)
    h = qre.dtype.type(0.5 * s)
    ob = u(obase)
    unc = u(nc)
    half = nc // 2
    ka0, ka1 = max(k0, 1), min(k1, half)
    kv = ka0 + max(0, ka1 - ka0 - nl + 1) // nl * nl     # whole vectors below nc/2
    for k in range(ka0, kv, nl):
        kb = unc - u(k) - u(nl - 1)
        _unpack_pairs(qre, qim, u(k), kb, wr, wi, h, out, ob + U2 * u(k), ob + U2 * kb)
    for k in range(kv, ka1 + (1 if k0 <= half < k1 and half > 0 else 0)):
        ka = u(k)
        kb = unc - ka
        ar = qre[ka]
        ai = qim[ka]
        br = qre[kb]
        bi = qim[kb]
        er = ar + br
        ei = ai - bi
        orr = ai + bi
        oi = br - ar
        pr = fma(orr, wr[ka], -(oi * wi[ka]))
        pi = fma(orr, wi[ka], oi * wr[ka])
        out[ob + U2 * ka] = h * (er + pr)
        out[ob + U2 * ka + U1] = h * (ei + pi)
        if k != half:
            out[ob + U2 * kb] = h * (er - pr)
            out[ob + U2 * kb + U1] = h * (pi - ei)
    zero = h - h
    if k0 == 0:                 # X[0] = Re Z0 + Im Z0, X[nc] = Re Z0 - Im Z0
        out[ob] = 2 * h * (qre[0] + qim[0])
        out[ob + U1] = zero
        out[ob + U2 * unc] = 2 * h * (qre[0] - qim[0])
        out[ob + U2 * unc + U1] = zero


@kernel(inline="always")
def _store(qre, qim, k0, k1, s, out, obase):
    """out[2k], out[2k+1] = s * qre[k], s * qim[k] for k0 <= k < k1."""
    nl = lanes(qre)
    ob = u(obase)
    sc = qre.dtype.type(s)
    kv = k0 + (k1 - k0) // nl * nl
    for k in range(k0, kv, nl):                 # whole vectors, then the remainder
        _store_pairs(qre, qim, u(k), sc, out, ob + U2 * u(k))
    for k in range(kv, k1):
        out[ob + U2 * u(k)] = sc * qre[u(k)]
        out[ob + U2 * u(k) + U1] = sc * qim[u(k)]


@kernel(inline="always")
def _copy_lanes(are, aim, lda, a0, bre, bim, ldb, b0, n, w):
    """b[i*ldb + b0 + v] = a[i*lda + a0 + v] for i < n, v < w (both arrays of a pair)."""
    for i in range(n):
        pa = u(i * lda + a0)
        pb = u(i * ldb + b0)
        for v in range(w):
            bre[pb + u(v)] = are[pa + u(v)]
            bim[pb + u(v)] = aim[pa + u(v)]


# ----------------------------------------------------------------------------------------
# drivers
#
# A row with nc >= nl*nl runs as a six-step in three phases, each a list of independent
# tasks (a huge row runs each phase's tasks on all threads):
#   COLS     per chunk of columns of the (n1, n2) view of z: gather (rfft: de-interleave x;
#            irfft: pack X) -> length-n1 FFTs -> twiddle and transpose into q (n2, n1)
#   ROWSFFT  per chunk of lanes of q: length-n2 FFTs (copied out and back when the chunk
#            is narrower than q: rows a power-of-two stride apart thrash the caches)
#   OUT      per range of k: unpack the spectrum (rfft) or write the reals (irfft)
# Shorter rows run nl at a time as the lanes of one block (phase SMALL).
# All FFT work goes through the one call of _fft_lanes in _unit: Numba links callees into
# every caller and LLVM inlines them, so each extra call site costs seconds of cold compile.

LEAD, ROWS, COLS, ROWSFFT, OUT, SMALL = -2, -1, 0, 1, 2, 3
RFFT, IRFFT, CFFT, ICFFT = 0, 1, 2, 3       # transform kinds
IN_PLACE, PAIRS, PACK = 0, 1, 2             # where the first FFT stage reads (_fft_lanes)
# Complex elements of one lane-FFT chunk: 512 KiB float32, 1 MiB float64 (L2). Measured on
# 2^19-point rows: chunks of 2^13 / 2^14 / 2^15 / 2^16 -> 4.6 / 7.7 / 8.5 / 2.5 ms (float32)
# and 13.9 / 13.6 / 9.6 / 5.7 ms (float64): wide chunks read whole cache lines and pages.
CHUNK = 1 << 16
SPAN = 1 << 14      # elements of one OUT task


@kernel(inline="always")
def _phase_tasks(kind, phase, n1, n2, nl, ntmin):
    """(number of tasks, task width) of a phase of one row; the FFT phases get at least
    ntmin tasks where the lanes allow."""
    nc = n1 * n2
    if phase == COLS:
        w = max(nl, min(n2 // ntmin, CHUNK // n1 // nl * nl))
        return n2 // w, w
    if phase == ROWSFFT:
        w = max(nl, min(n1 // ntmin, CHUNK // n2 // nl * nl))
        return n1 // w, w
    if phase == OUT:
        return (nc // 2 + SPAN if kind == RFFT else nc + SPAN - 1) // SPAN, SPAN
    return 1, 1


@kernel
def _scratch_len(n1, n2, nl):
    """Lengths of the scratch pairs (a, q) of _unit for one thread."""
    nc = n1 * n2
    if n2 == 1:
        return _pad(nc * nl), _pad(nc + 1)
    return _pad(min(nc, max(CHUNK, max(n1, n2) * nl))), _pad(nc + 1)


def _scratch_sizes(n1, n2, nl):
    """:func:`_scratch_len` for Python callers (the kernel would compile on the call)."""
    nc = n1 * n2
    if n2 == 1:
        return pad16(nc * nl), pad16(nc + 1)
    return pad16(min(nc, max(CHUNK, max(n1, n2) * nl))), pad16(nc + 1)


@kernel(inline="always")
def _plan(ip, tw, meta):
    """The plan arrays (perm1, tw1r, tw1i, perm2, tw2r, tw2i, tw4r, tw4i, wr, wi) as views
    of the packed arrays of :class:`Plan`."""
    n1, n2, l1, l2 = meta[0], meta[1], meta[2], meta[3]
    nc = n1 * n2
    a, b, c, d = _pad(l1), _pad(l2), _pad(nc), _pad(nc + 1)
    return (_borrow(ip, 0, n1), _borrow(tw, 0, l1), _borrow(tw, a, l1),
            _borrow(ip, n1, n2), _borrow(tw, 2 * a, l2), _borrow(tw, 2 * a + b, l2),
            _borrow(tw, 2 * a + 2 * b, nc), _borrow(tw, 2 * a + 2 * b + c, nc),
            _borrow(tw, 2 * a + 2 * b + 2 * c, nc + 1),
            _borrow(tw, 2 * a + 2 * b + 2 * c + d, nc + 1))


@kernel(inline="always")
def _views(wa, wq, la, lq):
    """Scratch pairs (a, q) in workspace rows laid out [a_re a_im q_re q_im], each part
    starting 64-byte aligned (lengths padded by _scratch_len)."""
    o = 2 * la
    return _borrow(wa, 0, la), _borrow(wa, la, la), _borrow(wq, o, lq), _borrow(wq, o + lq, lq)


@kernel
def _unit(kind, mode, lo, hi, b, ntmin, xa, ra, es, oa, olen, ip, tw, meta, s, wa, wq,
          claim):
    """Transform `kind` of rows lo..hi-1 (mode ROWS or LEAD), or tasks lo..hi-1 of phase
    `mode` of row b, the phase split into at least ntmin tasks (see _phase_tasks). With a
    non-empty `claim` ([0, m, 0, 0] at first), every call on [lo, hi) takes its rows m at a
    time (m lane blocks of short rows) from the shared counter claim[0], so the threads
    running it share the rows whenever each starts, and counts the rows it finished in
    claim[2]. The caller's call (mode LEAD) then waits, polling, until all rows are done
    and sets claim[3]; the helpers' calls (ROWS) poll, for at most HELPER_POLLS, until
    claim[3] is set: the caller returns to Python first and does not wait for a helper
    to hand the GIL over (see _launch). Input row b starts
    at x[roffs[b]] (x, roffs = xa, ra), elements es apart; output row b at out[b*olen]
    (out = oa, contiguous), the result times s.

    RFFT: 2*nc reals -> nc+1 complex (interleaved). IRFFT: nc+1 complex (float pairs)
    -> 2*nc reals. CFFT / ICFFT: nc complex -> nc complex, forward / inverse.
    The plan is (ip, tw, meta) of :class:`Plan`. Scratch: workspace rows wa (for a) and
    wq (for q), lengths from _scratch_len: a = chunk (six-step) or lane block (short
    rows), q = the transposed block / row buffer.
    """
    # every array as a view without reference count (see _borrow): the inlined helpers
    # bind them to their parameters once per row and phase
    x, roffs, out = _borrow(xa, 0, xa.shape[0]), _borrow(ra, 0, ra.shape[0]), _borrow(
        oa, 0, oa.shape[0])
    pl = _plan(ip, tw, meta)
    perm1, tw1r, tw1i, perm2, tw2r, tw2i, tw4r, tw4i, wr, wi = pl
    n1 = perm1.shape[0]
    n2 = perm2.shape[0]
    nc = n1 * n2
    nl = lanes(tw)
    la, lq = _scratch_len(n1, n2, nl)
    are, aim, qre, qim = _views(wa, wq, la, lq)
    rowwise = n2 > 1
    swap = kind == IRFFT or kind == ICFFT
    fused = es == (2 if kind == IRFFT else 1)   # contiguous input: see _fft_lanes's src
    sout = 1.0 if kind == IRFFT else s      # irfft scales while packing
    lead = mode == LEAD
    if lead:
        mode = ROWS
    if mode == ROWS:
        b, b1 = lo, hi
        p0, p1 = (COLS, OUT + 1) if rowwise else (SMALL, SMALL + 1)
    else:
        b1 = b + 1
        p0, p1 = mode, mode + 1
    step = 1 if rowwise else nl
    dynamic = mode == ROWS and claim.shape[0] > 0
    per = claim[1] if dynamic else b1 - b     # rows per claim, in units of step
    rb = rend = b
    done = 0
    while True:
        if rb >= rend:          # the next rows: claimed, or all of them in order
            rb = b + step * per * _fetch_add(claim, 0, 1) if dynamic else rend
            rend = min(b1, rb + step * per)
            done += max(0, rend - rb)
        if rb >= b1:
            break
        for phase in range(p0, p1):
            ntask, w = _phase_tasks(kind, phase, n1, n2, nl, 1 if mode == ROWS else ntmin)
            ta, tb = (0, ntask) if mode == ROWS else (lo, hi)
            for tt in range(ta, tb):
                lo = tt * w
                if phase == OUT:
                    if kind != RFFT:
                        _store(qre, qim, lo, min(nc, lo + w), sout, out, rb * olen)
                    else:
                        _unpack_real(qre, qim, nc, lo, min(nc // 2 + 1, lo + w), wr, wi, s,
                                     out, rb * olen)
                    continue
                # gather into the FFT's lane block (A, B): n rows, W lanes, lanes c0..c1
                nb = min(nl, b1 - rb)
                src = IN_PLACE
                if phase == SMALL:
                    for v in range(nl):
                        if v >= nb:
                            qre[:] = 0
                            qim[:] = 0
                        elif kind == IRFFT:
                            _pack_complex(x, roffs[rb + v], es, nc, nc, 1, perm1, 0, 1, wr, wi,
                                          s, qre, qim, 1)
                        else:
                            _load_real(x, roffs[rb + v], es, nc, 1, perm1, 0, 1, qre, qim, 1)
                        _copy_lanes(qre, qim, 1, 0, are, aim, nl, v, nc, 1)
                    A, B, n, W, c0, c1, tr, ti = are, aim, nc, nl, 0, nl, tw1r, tw1i
                elif phase == COLS:
                    if fused:               # the first FFT stage reads the input
                        src = PACK if kind == IRFFT else PAIRS
                    elif kind == IRFFT:
                        _pack_complex(x, roffs[rb], es, nc, n1, n2, perm1, lo, lo + w, wr, wi,
                                      s, are, aim, w)
                    else:
                        _load_real(x, roffs[rb], es, n1, n2, perm1, lo, lo + w, are, aim, w)
                    A, B, n, W, c0, c1, tr, ti = are, aim, n1, w, 0, w, tw1r, tw1i
                elif w < n1:
                    _copy_lanes(qre, qim, n1, lo, are, aim, w, 0, n2, w)
                    A, B, n, W, c0, c1, tr, ti = are, aim, n2, w, 0, w, tw2r, tw2i
                else:
                    A, B, n, W, c0, c1, tr, ti = qre, qim, n2, n1, 0, n1, tw2r, tw2i
                if swap:                # the inverse FFT is the forward one on (im, re)
                    A, B = B, A
                _fft_lanes(A, B, n, W, c0, c1, tr, ti, src, x, u(roffs[rb]),
                           u(roffs[min(rb + 1, b1 - 1)]), perm1, u(n2), u(lo), swap, u(nc),
                           wr, wi, x.dtype.type(s))
                # scatter
                if phase == SMALL:
                    for v in range(nb):
                        _copy_lanes(are, aim, nl, v, qre, qim, 1, 0, nc, 1)
                        if kind != RFFT:
                            _store(qre, qim, 0, nc, sout, out, (rb + v) * olen)
                        else:
                            _unpack_real(qre, qim, nc, 0, nc // 2 + 1, wr, wi, s, out,
                                         (rb + v) * olen)
                elif phase == COLS:
                    if swap:
                        S1, S2, D1, D2 = aim, are, qim, qre
                    else:
                        S1, S2, D1, D2 = are, aim, qre, qim
                    _twiddle_transpose(S1, S2, w, lo, lo + w, D1, D2, n1, n2, perm2, tw4r, tw4i)
                elif w < n1:
                    _copy_lanes(are, aim, w, 0, qre, qim, n1, lo, n2, w)
        rb += step
    if dynamic:
        _fetch_add(claim, 2, done)
        if lead:
            while _fetch_add(claim, 2, 0) < b1 - b:     # the helpers' last rows
                pass
            _fetch_add(claim, 3, 1)
        else:
            left = HELPER_POLLS
            while left > 0 and not _fetch_add(claim, 3, 0):
                left -= 1
            for _ in range(min(left, HELPER_POLLS >> 6)):    # the caller takes the GIL
                _fetch_add(claim, 2, 0)


# ----------------------------------------------------------------------------------------
# NumPy-level entry points

_NORMS = ("backward", "ortho", "forward")
PAR_MIN_WORK = gates.FFT_THREADS_MIN  # measured: flexarray/_engines/gates.py
BIG_MIN_NC = gates.FFT_SPLIT_ROW_MIN  # measured: flexarray/_engines/gates.py
PIECES_PER_THREAD = 4    # tasks of a split row's phase per thread
CLAIMS_PER_THREAD = 16   # claims of rows per thread (see _launch)
HELPER_POLLS = 1 << 16   # a helper's polls for the caller to leave (~20-40 ns each, see _unit)
_NO_CLAIM = np.zeros(0, np.int64)    # _unit without a row counter: rows lo..hi-1 in order


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
    if v.flags.c_contiguous:                    # the common case, ~1 us
        flat = v.reshape(-1)
        if flat.base is None:
            flat = flat.view()
        flat.flags.writeable = False
        n = v.shape[-1] if v.ndim else 1
        return flat, np.arange(0, v.size, n, dtype=np.int64), 1
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


_WS = threading.local()


def workspace(pl, full=True):
    """This Python thread's scratch row for _unit (see _views): a and q, or only a
    (`full` False: the private part of a task of a split row). The last two are kept per
    thread and reused: fresh multi-MiB buffers cost a page fault per 4 KiB on every call."""
    sizes = pl.__dict__.get("scratch")
    if sizes is None:           # (a Numba call from Python: ~1 us, ~8 with cold caches)
        sizes = pl.scratch = _scratch_sizes(pl.n1, pl.n2, _nlanes(pl.dtype))
    la, lq = sizes
    size = 2 * (la + lq) if full else 2 * la
    key = (size, pl.dtype.char)
    cache = getattr(_WS, "cache", None)
    if cache is None:
        cache = _WS.cache = {}
    w = cache.pop(key, None)
    if w is None:
        w = aligned_empty(size, pl.dtype)
    cache[key] = w
    while len(cache) > 2:
        del cache[next(iter(cache))]
    return w


_NO_SCRATCH = {}


def _no_scratch(dtype):
    """Empty scratch rows of the workspace's type (``ready`` asks for the types only)."""
    w = _NO_SCRATCH.get(dtype.char)
    if w is None:
        w = _NO_SCRATCH[dtype.char] = aligned_empty(0, dtype)
    return w, w


def _launch(kind, flat, offs, es, out, olen, nc, dtype, scale):
    """Run transform `kind` on the rows: serially below PAR_MIN_WORK; else rows (or lane
    blocks of short rows) spread over the threads, or, for fewer rows than threads of
    nc >= BIG_MIN_NC, each row with each of its phases spread over the threads.

    Threads are Python threads running the nogil kernel (run_split). Rows go to the
    threads one at a time through a shared counter inside the kernel (see _unit's
    `claim`): one kernel call per thread, so a helper that starts late (~35-60 us here: it
    needs the GIL, and a blocked thread's idle vCPU is slow to wake) or is preempted just
    takes fewer rows, and no thread waits on the GIL between pieces. Measured against 4
    pieces per thread through the pool, 256 rows of 4096 points, 2 threads: see
    docs/fft.md. Numba's OpenMP
    prange waited for every thread at each barrier: on the shared machine 10-16 ms per
    call whenever the second thread was not running (median 9.6 ms vs 1.4 ms serial, rows
    of 1024 points), and the parallel build doubled the cold compile."""
    pl = get_plan(nc, dtype)
    nrows = offs.shape[0]
    args = (flat, offs, es, out, olen, pl.ip, pl.tw, pl.meta, scale)
    if not ready(_unit, dtype.char, kind, ROWS, 0, nrows, 0, 1, *args, *_no_scratch(dtype),
                 _NO_CLAIM) and standin.fits(flat, dtype):
        try:    # the kernel compiles in the background meanwhile
            standin.launch(kind, flat, offs, es, out, olen, nc, dtype, scale)
            return
        except standin.Unsafe:
            pass
    nthreads = _threads.threads_for(nrows * nc * 2, PAR_MIN_WORK)
    if nthreads < 2:
        w = workspace(pl)
        _unit(kind, ROWS, 0, nrows, 0, 1, *args, w, w, _NO_CLAIM)
        return
    if not (pl.rowwise and nc >= BIG_MIN_NC and nrows < nthreads):
        units = (nrows + _nlanes(dtype) - 1) // _nlanes(dtype) if not pl.rowwise else nrows
        claim = np.array([0, max(1, units // (nthreads * CLAIMS_PER_THREAD)), 0, 0],
                         np.int64)
        caller = threading.get_ident()

        def rows(_):
            w = workspace(pl)
            role = LEAD if threading.get_ident() == caller else ROWS
            _unit(kind, role, 0, nrows, 0, 1, *args, w, w, claim)

        # a call per thread; the caller's returns when all rows are done (see _unit)
        _threads.run_items(rows, range(nthreads), nthreads, pin=False, wait=False)
        return
    shared = workspace(pl)
    # a power of two: the phases' tasks must divide the row's columns whatever the
    # thread count (3 threads cut 12 ways left columns out)
    ntmin = 1 << (PIECES_PER_THREAD * nthreads - 1).bit_length()
    for b in range(nrows):
        for phase in range(OUT + 1):
            ntask = _phase_tasks.py_func(kind, phase, pl.n1, pl.n2, _nlanes(dtype), ntmin)[0]

            def tasks(lo, hi):
                _unit(kind, phase, lo, hi, b, ntmin, *args, workspace(pl, False),
                      shared, _NO_CLAIM)

            if ntask:
                _threads.run_split(tasks, (), ntask, nthreads, PIECES_PER_THREAD)


def _last_axis(a, axis, m, n, fill):
    """a with `axis` moved last and cut or zero-padded to length n along it."""
    v = a if axis == a.ndim - 1 else np.moveaxis(a, axis, -1)
    if m >= n:
        return v[..., :n]
    w = np.zeros(v.shape[:-1] + (n,), v.dtype)
    w[..., :m] = v
    return w


def _rows_of(v, n, kind, out_len, out_dtype):
    """Output array and kernel arguments for transform `kind` of the last axis of v."""
    rdt = out_dtype if out_dtype.kind == "f" else _REAL[out_dtype.char]
    out = np.empty(v.shape[:-1] + (out_len,), out_dtype)
    if not out.size:
        return out, None, None, None, None, None, rdt
    if kind in (CFFT, ICFFT) and v.strides[-1] != v.itemsize:
        v = np.ascontiguousarray(v)             # CFFT reads pairs at 2j, 2j+1 (es = 1)
    flat, offs, es = _rows(v)
    if flat.dtype.kind == "c":
        # as floats: IRFFT reads X[k] at 2*k*es (+1); CFFT contiguous pairs (es = 1)
        flat, offs, es = flat.view(rdt), 2 * offs, (2 * es if kind == IRFFT else 1)
    olen = out_len * (2 if out.dtype.kind == "c" else 1)
    nc = n if kind in (CFFT, ICFFT) else n // 2
    return out, flat, offs, es, olen, nc, rdt


def cfft(a, inverse=False, scale=1.0):
    """Complex FFT (unnormalized, times `scale`) along the last axis of complex64/128 `a`,
    whose length is a power of two >= 2."""
    n = a.shape[-1]
    out, flat, offs, es, olen, nc, rdt = _rows_of(a, n, CFFT, n, a.dtype)
    if flat is not None:
        _launch(ICFFT if inverse else CFFT, flat, offs, es, out.reshape(-1).view(rdt), olen,
                nc, rdt, scale)
    return out


# ----------------------------------------------------------------------------------------
# other lengths: Bluestein on the power-of-two kernel

_CHIRPS = {}


def _chirp(n, dtype):
    """(M, conj(c)[:n], FFT_M(b) / M) of Bluestein's algorithm, c_j = exp(i pi j^2 / n),
    computed in float64 and rounded once to the complex dtype."""
    def make():
        M = 1 << (2 * n - 2).bit_length()
        j = np.arange(n, dtype=np.int64)
        c = np.exp(1j * np.pi * ((j * j) % (2 * n)) / n)
        b = np.zeros(M, np.complex128)
        b[:n] = c
        b[M - n + 1:] = c[1:][::-1]
        return M, np.conj(c).astype(dtype), (np.fft.fft(b) / M).astype(dtype)
    return _cached(_CHIRPS, (n, np.dtype(dtype).char), make)


def _bluestein(a, n, inverse, keep):
    """First `keep` outputs of the length-n DFT (forward, or unnormalized inverse) along
    the last axis of complex `a` (shape (..., n)), via a power-of-two convolution."""
    M, cc, bf = _chirp(n, a.dtype)
    w = np.zeros(a.shape[:-1] + (M,), a.dtype)
    if inverse:
        np.multiply(np.conj(a), cc, out=w[..., :n])
    else:
        np.multiply(a, cc, out=w[..., :n])
    w = cfft(w)
    w *= bf
    w = cfft(w, inverse=True)
    y = w[..., :keep] * cc[:keep]
    return np.conj(y, out=y) if inverse else y


_CPLX = {"f": np.dtype(np.complex64), "d": np.dtype(np.complex128)}
_REAL = {"F": np.dtype(np.float32), "D": np.dtype(np.float64)}


def rfft(a, n=None, axis=-1, norm="backward"):
    """Real-input FFT along `axis` (NumPy semantics): float32 -> complex64,
    float64 -> complex128. Any strides; power-of-two n use the Numba kernel, other lengths
    a Bluestein convolution on it (the engine sends to pocketfft the lengths it does
    better)."""
    a = np.asarray(a)
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float32 if a.dtype == np.float16 else np.float64)
    axis = axis % a.ndim
    m = a.shape[axis]
    n = m if n is None else n
    cdt = _CPLX[a.dtype.char]
    if not _is_pow2(n):
        v = _last_axis(a, axis, m, n, 0)
        y = _bluestein(v.astype(cdt), n, False, n // 2 + 1)
        y *= _scale(norm, n, False)
        return np.moveaxis(y, -1, axis)
    v = _last_axis(a, axis, m, n, 0)
    out, flat, offs, es, olen, nc, rdt = _rows_of(v, n, RFFT, n // 2 + 1, cdt)
    if flat is not None:
        _launch(RFFT, flat, offs, es, out.reshape(-1).view(rdt), olen, nc, rdt,
                _scale(norm, n, False))
    return out if axis == out.ndim - 1 else np.moveaxis(out, -1, axis)


def irfft(a, n=None, axis=-1, norm="backward"):
    """Inverse of :func:`rfft` (NumPy semantics): complex64 -> float32,
    complex128 -> float64; n defaults to 2*(m-1). Lengths as :func:`rfft`."""
    a = np.asarray(a)
    if a.dtype not in (np.complex64, np.complex128):
        a = a.astype(np.complex64 if a.dtype in (np.float16, np.float32) else np.complex128)
    axis = axis % a.ndim
    m = a.shape[axis]
    n = 2 * (m - 1) if n is None else n
    rdt = _REAL[a.dtype.char]
    if not _is_pow2(n):
        h = _last_axis(a, axis, m, n // 2 + 1, 0)
        full = np.empty(h.shape[:-1] + (n,), a.dtype)       # the Hermitian extension
        full[..., :n // 2 + 1] = h
        np.conj(h[..., 1:(n + 1) // 2][..., ::-1], out=full[..., n // 2 + 1:])
        y = _bluestein(full, n, True, n).real * _scale(norm, n, True)
        return np.moveaxis(y.astype(rdt, copy=False), -1, axis)
    nc = n // 2
    v = _last_axis(a, axis, m, nc + 1, 0)
    out, flat, offs, es, olen, _, _ = _rows_of(v, n, IRFFT, n, rdt)
    if flat is not None:
        _launch(IRFFT, flat, offs, es, out.reshape(-1), olen, nc, rdt,
                _scale(norm, n, True))
    return out if axis == out.ndim - 1 else np.moveaxis(out, -1, axis)
