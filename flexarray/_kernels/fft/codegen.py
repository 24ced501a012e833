"""Code generation for the real FFT kernels: butterflies and register transposes emitted
as LLVM IR over whole SIMD vectors of lanes (``@intrinsic``), the lane count per dtype, and
64-byte aligned allocation. See ``rfft.py`` for the lane-block layout these work on."""
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

from flexarray._kernels import kernel

def _nlanes(dtype):
    """SIMD lanes per vector: 16 float32 or 8 float64 (one AVX-512 register)."""
    return 512 // (8 * np.dtype(dtype).itemsize)



def _dft4(add, sub, xr, xi):
    """Forward 4-point DFT of vectors (lists of re / im parts)."""
    t0r, t0i = add(xr[0], xr[2]), add(xi[0], xi[2])
    t1r, t1i = sub(xr[0], xr[2]), sub(xi[0], xi[2])
    t2r, t2i = add(xr[1], xr[3]), add(xi[1], xi[3])
    t3r, t3i = sub(xr[1], xr[3]), sub(xi[1], xi[3])
    return [(add(t0r, t2r), add(t0i, t2i)),      # a + b + c + d
            (add(t1r, t3i), sub(t1i, t3r)),      # a - ib - c + id
            (sub(t0r, t2r), sub(t0i, t2i)),      # a - b + c - d
            (sub(t1r, t3i), add(t1i, t3r))]      # a + ib - c - id



def _dft8(add, sub, mul, neg, h, xr, xi):
    """Forward 8-point DFT: radix-2 over (p, p+4), the odd half times w8^p (h = 1/sqrt 2
    splat), then two 4-point DFTs giving the even and the odd outputs."""
    ar = [add(xr[p], xr[p + 4]) for p in range(4)]
    ai = [add(xi[p], xi[p + 4]) for p in range(4)]
    br = [sub(xr[p], xr[p + 4]) for p in range(4)]
    bi = [sub(xi[p], xi[p + 4]) for p in range(4)]
    br[1], bi[1] = mul(add(br[1], bi[1]), h), mul(sub(bi[1], br[1]), h)     # * (1-i)/sqrt2
    br[2], bi[2] = bi[2], neg(br[2])                                         # * -i
    br[3], bi[3] = mul(sub(bi[3], br[3]), h), neg(mul(add(br[3], bi[3]), h))  # * -(1+i)/sqrt2
    even, odd = _dft4(add, sub, ar, ai), _dft4(add, sub, br, bi)
    return [v for pair in zip(even, odd) for v in pair]



def _bfly_codegen(npoints, twiddled):
    """Codegen of an in-place radix-`npoints` (2, 4 or 8) DIT butterfly on one vector of
    lanes. Points sit at element offsets p0, p0+s, p0+2s, ... of re/im; twiddles
    (w1..w_{npoints-1}, re and im) are scalars broadcast to all lanes."""
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
        elif npoints == 4:
            out = _dft4(add, sub, xr, xi)
        else:
            h = float(np.dtype(re_t.dtype.name).type(np.sqrt(0.5)))    # exact in the dtype
            out = _dft8(add, sub, mul, builder.fneg, ir.Constant(vt, [h] * nl), xr, xi)
        for q in range(npoints):
            builder.store(out[q][0], rp[q], align=align)
            builder.store(out[q][1], ip[q], align=align)
        return context.get_dummy_value()
    return codegen



def _bfly_sig(npoints, twiddled):
    def typer(typingctx, re, im, p0, s, *w):
        args = (re, im, types.uint64, types.uint64) + (re.dtype,) * len(w)
        return types.void(*args), _bfly_codegen(npoints, twiddled)
    return typer



@intrinsic
def _bfly2(typingctx, re, im, p0, s):
    """Twiddle-free radix-2 butterfly on the vector at p0 and p0+s (in place)."""
    return _bfly_sig(2, False)(typingctx, re, im, p0, s)



@intrinsic
def _bfly4_first(typingctx, re, im, p0, s):
    """Twiddle-free radix-4 butterfly on the vectors at p0 + {0,1,2,3}*s (in place)."""
    return _bfly_sig(4, False)(typingctx, re, im, p0, s)



@intrinsic
def _bfly8_first(typingctx, re, im, p0, s):
    """Twiddle-free radix-8 butterfly on the vectors at p0 + {0..7}*s (in place)."""
    return _bfly_sig(8, False)(typingctx, re, im, p0, s)



@intrinsic
def _bfly4(typingctx, re, im, p0, s, w1r, w1i, w2r, w2i, w3r, w3i):
    """Radix-4 DIT butterfly, points 1..3 multiplied by the broadcast twiddles w1..w3."""
    return _bfly_sig(4, True)(typingctx, re, im, p0, s, w1r, w1i, w2r, w2i, w3r, w3i)



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
def _twiddle_transpose_tile(typingctx, pre, pim, twr, twi, qre, qim, perm2, s0, ss, t0, ts,
                            jb, n1, kb):
    """One tile of the four-step transpose, in registers: for r, c < nl (the lane width),
    q[perm2[jb+c]*n1 + kb + r] = p[s0 + r*ss + c] * tw[t0 + r*ts + c]."""
    u64 = types.uint64
    sig = types.void(pre, pim, twr, twi, qre, qim, perm2, u64, u64, u64, u64, u64, u64, u64)

    def codegen(context, builder, sig, args):
        at = sig.args[0]
        nl = 512 // at.dtype.bitwidth
        vt = ir.VectorType(context.get_value_type(at.dtype), nl)
        align = at.dtype.bitwidth // 8
        data = [context.make_array(sig.args[q])(context, builder, args[q]).data
                for q in range(7)]
        s0_, ss_, t0_, ts_, jb_, n1_, kb_ = args[7:]
        i64 = ir.IntType(64)

        def vptr(base, off):
            return builder.bitcast(builder.gep(base, [off]), vt.as_pointer())

        def row_offs(start, stride):
            return [builder.add(start, builder.mul(stride, ir.Constant(i64, r)))
                    for r in range(nl)]

        so, to = row_offs(s0_, ss_), row_offs(t0_, ts_)
        ld = [[builder.load(vptr(data[q], o), align=align) for o in offs]
              for q, offs in ((0, so), (1, so), (2, to), (3, to))]
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



@kernel(inline="always")
def _pad(n):
    """n rounded up to 16 elements: every scratch / plan part starts 64-byte aligned (the
    vector loads of a part at an odd offset split cache lines: 2x slower lane FFTs)."""
    return (n + 15) // 16 * 16



def aligned_empty(n, dtype):
    """An empty 1-D array of n elements whose data is 64-byte aligned."""
    dtype = np.dtype(dtype)
    raw = np.empty(n * dtype.itemsize + 64, np.uint8)
    skip = -raw.ctypes.data % 64
    return raw[skip:skip + n * dtype.itemsize].view(dtype)

