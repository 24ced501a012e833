"""Attention kernels for flexarray.nn (private; no validation inside).

The GEMMs run in BLAS; these kernels do one online-softmax step on a score tile stored
*transposed*, ST[j, i] = score of query i against key j. Per-query reductions (running
max, sum of weights) then run down the columns: plain elementwise loops over contiguous
rows that LLVM vectorizes without fast-math (a per-row max reduction does not vectorize
under strict IEEE; measured on a 256x512 tile: 64 us transposed against 144 us row-wise).

float32 uses its own ``exp`` (Cody-Waite reduction + Cephes degree-6 polynomial with
explicit FMAs, vectorized: <= 1 ulp from the exact value over 1M points in [-90, 0], where
NumPy's is <= 2.4 ulp; 0.25 ns/element against NumPy's 0.46; results below 2e-38 flush to
0, which cannot change a softmax whose largest weight is 1). float64 uses NumPy's exp.
"""
import math

import numpy as np
from llvmlite import ir

from flexarray._kernels import kernel, numba, ready

_types = numba.core.types
_cgutils = numba.core.cgutils


@numba.extending.intrinsic
def _i32_as_f32(typingctx, i):
    """Reinterpret the bits of an int32 as a float32."""
    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], ir.FloatType())
    return _types.float32(_types.int32), codegen


@numba.extending.intrinsic
def _fma_f32(typingctx, a, b, c):
    """a*b + c rounded once (llvm.fma.f32): exact IEEE semantics, not fast-math."""
    def codegen(context, builder, sig, args):
        ty = ir.FloatType()
        fn = _cgutils.get_or_insert_function(builder.module, ir.FunctionType(ty, [ty] * 3),
                                             "llvm.fma.f32")
        return builder.call(fn, args)
    return _types.float32(_types.float32, _types.float32, _types.float32), codegen


@kernel(inline="always")
def _exp_f32_nonpos(x):
    """exp(x) in float32 for x <= 0 (or NaN): <= 1 ulp; below 2e-38 it returns 0."""
    lo = np.float32(-87.0)
    xc = x if x > lo else lo
    n = np.floor(_fma_f32(xc, np.float32(1.44269504088896341), np.float32(0.5)))
    r = _fma_f32(n, np.float32(-0.693359375), xc)  # ln2 split in two (Cody-Waite)
    r = _fma_f32(n, np.float32(2.12194440e-4), r)
    p = np.float32(1.9875691500e-4)               # Cephes expf minimax polynomial
    p = _fma_f32(p, r, np.float32(1.3981999507e-3))
    p = _fma_f32(p, r, np.float32(8.3334519073e-3))
    p = _fma_f32(p, r, np.float32(4.1665795894e-2))
    p = _fma_f32(p, r, np.float32(1.6666665459e-1))
    p = _fma_f32(p, r, np.float32(5.0000001201e-1))
    e = _fma_f32(p, r * r, r) + np.float32(1.0)
    e = e * _i32_as_f32((np.int32(n) + np.int32(127)) << np.int32(23))
    e = e if x > lo else np.float32(0.0)
    return e if x == x else x


@kernel
def _softmax_tile(ST, scale, mbuf, moff, mqs, mks, mkind, causal, r0, c0, m, alpha, sub,
                  colsum, fused_exp):
    """One online-softmax step on one transposed score tile ST (keys c0.., queries r0..).

    Scales ST, applies the mask (mkind 0: none; 1: additive, mbuf float; 2: boolean, mbuf
    uint8, nonzero = attend; the (query i, key j) element at mbuf[moff + i*mqs + j*mks])
    and the causal rule (key <= query). Updates the running per-query max m and sets
    alpha = exp(old max - new max) (0 while a query saw only masked keys). Then, with
    fused_exp (float32 only), ST = exp(ST - max) and colsum = its column sums; without,
    ST = ST - max, for NumPy's exp. Queries masked so far subtract 0, not -inf."""
    Bk, Bq = ST.shape
    dt = ST.dtype.type
    ninf = dt(-np.inf)
    for i in range(Bq):
        sub[i] = ninf
    umqs = np.uint64(mqs)
    for j in range(Bk):
        row = ST[j]
        start = 0
        if causal:  # queries before key c0 + j cannot see it
            start = min(Bq, max(0, c0 + j - r0))
        for i in range(start):
            row[i] = ninf
        n = np.uint64(Bq - start)
        r = row[start:]
        mx = sub[start:]
        base = np.uint64(moff + j * mks + start * mqs)
        if mkind == 1:
            for i in range(n):
                v = r[i] * scale + mbuf[base + i * umqs]
                r[i] = v
                c = mx[i]
                mx[i] = v if v > c else c
        elif mkind == 2:
            for i in range(n):
                v = r[i] * scale
                v = v if mbuf[base + i * umqs] != 0 else ninf
                r[i] = v
                c = mx[i]
                mx[i] = v if v > c else c
        elif scale != 1:
            for i in range(n):
                v = r[i] * scale
                r[i] = v
                c = mx[i]
                mx[i] = v if v > c else c
        else:  # pre-scaled queries, no mask: a read-only pass
            for i in range(n):
                v = r[i]
                c = mx[i]
                mx[i] = v if v > c else c
    for i in range(Bq):
        mo = m[i]
        mt = sub[i]
        mn = mt if mt > mo else mo
        s = mn if mn > ninf else dt(0)
        alpha[i] = math.exp(mo - s)
        m[i] = mn
        sub[i] = s
    if fused_exp:
        for i in range(Bq):
            colsum[i] = 0
        for j in range(Bk):
            row = ST[j]
            for i in range(Bq):
                e = _exp_f32_nonpos(np.float32(row[i] - sub[i]))
                row[i] = e
                colsum[i] += e
    else:
        for j in range(Bk):
            row = ST[j]
            for i in range(Bq):
                row[i] = row[i] - sub[i]


@kernel
def _softmax_tiles(ST, scale, mbuf, moffs, mqs, mks, mkind, causal, r0, c0, m, alpha, sub,
                   colsum, fused_exp):
    """:func:`_softmax_tile` on each of a stack of tiles ST[h] (one head each): m, alpha,
    sub, colsum are (heads, queries); moffs[h] is head h's mask offset."""
    for h in range(ST.shape[0]):
        _softmax_tile(ST[h], scale, mbuf, moffs[h], mqs, mks, mkind, causal, r0, c0, m[h],
                      alpha[h], sub[h], colsum[h], fused_exp)


@kernel
def _divide_rows(out, l):
    """out[h, i, :] /= l[h, i]; rows whose weights sum to 0 (fully masked) become zeros."""
    H, Bq, Ev = out.shape
    for h in range(H):
        for i in range(Bq):
            s = l[h, i]
            inv = 1 / s if s != 0 else out.dtype.type(0)
            row = out[h, i]
            for j in range(Ev):
                row[j] = row[j] * inv


# ----------------------------------------------------------------------------------------
# drivers: the kernels, or while they compile in the background their NumPy stand-ins
# (the same bits)

def softmax_tiles(ST, scale, mbuf, moffs, mqs, mks, mkind, causal, r0, c0, m, alpha, sub,
                  colsum, fused_exp):
    """:func:`_softmax_tiles`, or its stand-in while it compiles in the background."""
    args = (ST, scale, mbuf, moffs, mqs, mks, mkind, causal, r0, c0, m, alpha, sub, colsum,
            fused_exp)
    if ready(_softmax_tiles, (ST.dtype, mbuf.dtype, ST.flags.c_contiguous), *args):
        _softmax_tiles(*args)
    else:
        softmax_tiles_standin(*args)


def divide_rows(out, l):
    """:func:`_divide_rows`, or its stand-in while it compiles in the background."""
    if ready(_divide_rows, (out.dtype, out.flags.c_contiguous), out, l):
        _divide_rows(out, l)
    else:
        divide_rows_standin(out, l)


def divide_rows_standin(out, l):
    """``_divide_rows`` in NumPy: each row times ``1 / s`` (0 for s == 0), as the kernel
    types them: the integer 1 over a float32 ``s`` is a float64 (Numba's promotion), the
    product float64, rounded once into ``out``."""
    with np.errstate(all="ignore"):
        s = l.astype(np.float64)
        inv = np.where(s != 0, 1.0 / s, 0.0)
        out[...] = (out.astype(np.float64) * inv[:, :, None]).astype(out.dtype)


_LIBM = {}


def _libm_exp(x):
    """The C library's exp / expf (what the kernels' ``math.exp`` calls) of each element."""
    f = _LIBM.get(x.dtype.char)
    if f is None:
        import ctypes
        import ctypes.util
        lib = ctypes.CDLL(ctypes.util.find_library("m") or None)
        c = ctypes.c_float if x.dtype == np.float32 else ctypes.c_double
        fn = lib.expf if x.dtype == np.float32 else lib.exp
        fn.restype, fn.argtypes = c, [c]
        f = _LIBM[x.dtype.char] = np.frompyfunc(fn, 1, 1)
    return f(x).astype(x.dtype)


def fma_f32(a, b, c):
    """``a*b + c`` rounded once to float32, in NumPy (float32 arrays): the product is exact
    in float64; the float64 sum, made round-to-odd from its exact error (TwoSum), rounds
    to float32 as the single rounding would (53 bits >= 24 + 2)."""
    with np.errstate(all="ignore"):
        p = a.astype(np.float64) * b.astype(np.float64)
        cc = c.astype(np.float64)
        s = p + cc
        bb = s - p
        e = (p - (s - bb)) + (cc - bb)
        odd = (s.view(np.int64) & 1) == 1
        fix = (e != 0) & ~odd & np.isfinite(s)
        if fix.any():
            s[fix] = np.nextafter(s[fix], np.where(e[fix] > 0, np.inf, -np.inf))
        return s.astype(np.float32)


def exp_f32_nonpos(x):
    """``_exp_f32_nonpos`` in NumPy (float32 arrays), each operation as the kernel's."""
    f = np.float32
    lo = f(-87.0)
    with np.errstate(all="ignore"):
        xc = np.where(x > lo, x, lo)
        n = np.floor(fma_f32(xc, np.full_like(xc, f(1.44269504088896341)),
                             np.full_like(xc, f(0.5))))
        r = fma_f32(n, np.full_like(n, f(-0.693359375)), xc)
        r = fma_f32(n, np.full_like(n, f(2.12194440e-4)), r)
        p = np.full_like(r, f(1.9875691500e-4))
        for k in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
                  5.0000001201e-1):
            p = fma_f32(p, r, np.full_like(r, f(k)))
        e = fma_f32(p, r * r, r) + f(1.0)
        scale = ((n.astype(np.int32) + np.int32(127)) << np.int32(23)).view(np.float32)
        e = e * scale
        e = np.where(x > lo, e, f(0.0))
        return np.where(x == x, e, x)


def softmax_tiles_standin(ST, scale, mbuf, moffs, mqs, mks, mkind, causal, r0, c0, m, alpha,
                          sub, colsum, fused_exp):
    """``_softmax_tiles`` in NumPy, a whole tile at a time: the scores scaled and masked as
    the kernel rounds them (-inf before a causal row's first query), the maxima by the
    kernel's key-by-key rule (``v > c``: NaN never wins, of equal values the first stays,
    which only a zero's sign shows), ``alpha`` by the C library's exp as the kernel's
    ``math.exp``, then the kernel's own float32 exp and the column sums added key by key
    (NumPy's accumulate is sequential), or the scores minus the maxima for NumPy's exp."""
    dt = ST.dtype.type
    ninf = dt(-np.inf)
    with np.errstate(all="ignore"):
        for h in range(ST.shape[0]):
            T, mh, ah, sh, ch = ST[h], m[h], alpha[h], sub[h], colsum[h]
            Bk, Bq = T.shape
            j = np.arange(Bk, dtype=np.int64)[:, None]
            i = np.arange(Bq, dtype=np.int64)[None, :]
            if mkind == 1 or mkind == 2:
                mv = mbuf[moffs[h] + j * mks + i * mqs]
            if mkind == 1:
                V = T * scale + mv
            elif mkind == 2:
                V = np.where(mv != 0, T * scale, ninf)
            elif scale != 1:
                V = T * scale
            else:
                V = T
            if causal:
                V = np.where(i < np.clip(c0 + j - r0, 0, Bq), ninf, V)
            if V is not T:
                T[...] = V
            if Bk:
                Vn = np.where(np.isnan(T), ninf, T)
                mx = Vn.max(axis=0)
                zero = mx == 0
                if zero.any():
                    first = np.argmax(Vn == 0, axis=0)
                    mx = np.where(zero, T[first, np.arange(Bq)], mx)
                sh[:] = mx
            else:
                sh[:] = ninf
            mn = np.where(sh > mh, sh, mh)
            s = np.where(mn > ninf, mn, dt(0))
            ah[:] = _libm_exp(mh - s)
            mh[:] = mn
            sh[:] = s
            if fused_exp:
                E = exp_f32_nonpos((T - sh).astype(np.float32))
                T[...] = E
                ch[:] = np.add.accumulate(np.concatenate([np.zeros((1, Bq), E.dtype), E]),
                                          axis=0)[-1]
            else:
                T -= sh
