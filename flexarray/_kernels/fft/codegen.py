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



def _fma_ir(builder, a, b, c):
    """a*b + c rounded once (llvm.fma), scalars or vectors."""
    t = a.type
    if isinstance(t, ir.VectorType):
        name = f"llvm.fma.v{t.count}{t.element.intrinsic_name}"
    else:
        name = f"llvm.fma.{t.intrinsic_name}"
    mod = builder.module
    f = mod.globals.get(name) or ir.Function(mod, ir.FunctionType(t, [t, t, t]), name)
    return builder.call(f, [a, b, c])


def _cmul(builder, ar, ai, wr, wi):
    """(ar + i ai)(wr + i wi) as ar*wr - ai*wi and ar*wi + ai*wr, each with one fused
    multiply-add (rounded twice instead of three times). The passes are bound by the two
    512-bit FP ports (shuffles share one of them): 4 operations instead of 6 per product
    (measured in context: docs/fft.md)."""
    return (_fma_ir(builder, ar, wr, builder.fneg(builder.fmul(ai, wi))),
            _fma_ir(builder, ar, wi, builder.fmul(ai, wr)))


@intrinsic
def fma(typingctx, a, b, c):
    """a*b + c rounded once, for the scalar loops that must match the vector ones."""
    if not (a == b == c and isinstance(a, types.Float)):
        return None
    return a(a, a, a), lambda context, builder, sig, args: _fma_ir(builder, *args)


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



def _dft_points(builder, npoints, xr, xi, dtype, vt):
    """Forward DFT of npoints (2, 4 or 8) vectors: the (re, im) pairs of the outputs."""
    add, sub = builder.fadd, builder.fsub
    if npoints == 2:
        return [(add(xr[0], xr[1]), add(xi[0], xi[1])), (sub(xr[0], xr[1]), sub(xi[0], xi[1]))]
    if npoints == 4:
        return _dft4(add, sub, xr, xi)
    h = float(np.dtype(dtype.name).type(np.sqrt(0.5)))    # exact in the dtype
    return _dft8(add, sub, builder.fmul, builder.fneg, ir.Constant(vt, [h] * vt.count), xr, xi)


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

        if twiddled:
            zero32 = ir.Constant(ir.IntType(32), 0)
            mask = ir.Constant(ir.VectorType(ir.IntType(32), nl), [0] * nl)
            undef = ir.Constant(vt, ir.Undefined)

            def splat(x):
                return builder.shuffle_vector(builder.insert_element(undef, x, zero32),
                                              undef, mask)

            w = [splat(a) for a in args[4:]]
            for q in range(1, npoints):
                xr[q], xi[q] = _cmul(builder, xr[q], xi[q], w[2 * q - 2], w[2 * q - 1])

        out = _dft_points(builder, npoints, xr, xi, re_t.dtype, vt)
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
        prods = [_cmul(builder, a, b, wr, wi) for a, b, wr, wi in zip(*ld)]
        rr = [p[0] for p in prods]
        ri = [p[1] for p in prods]
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


def pad16(n):
    """:func:`_pad` for Python callers (calling the kernel from Python would compile it)."""
    return (n + 15) // 16 * 16



def aligned_empty(n, dtype):
    """An empty 1-D array of n elements whose data is 64-byte aligned."""
    dtype = np.dtype(dtype)
    raw = np.empty(n * dtype.itemsize + 64, np.uint8)
    skip = -raw.ctypes.data % 64
    return raw[skip:skip + n * dtype.itemsize].view(dtype)



# ----------------------------------------------------------------------------------------
# interleaved <-> split vectors: the loads and stores of the real-FFT passes
#
# The scalar loops of these passes (de-interleave x, pack the half spectrum, unpack the
# spectrum, write interleaved output) read X[k] and X[nc-k] (a reversed interleaved
# access) that LLVM's loop vectorizer left scalar or half-vectorized. As whole vectors of
# nl lanes (two loads or stores and two shuffles per nl complex), one 4096-point row in
# cache, float32: de-interleave 0.18 -> 0.11 us, irfft packing 0.78 -> 0.44, unpack
# 0.73 -> 0.53 (float64 0.70 / 1.55 / 1.44 -> 0.63 / 1.22 / 1.37). The scalar loops that
# still handle remainders and strided input do the same operations in the same order, so
# both paths give the same bits.

class _Vec:
    """IR helpers for one intrinsic: vectors of nl lanes of the dtype of array argument
    0, element offsets given as uint64 arguments (unaligned loads and stores)."""

    def __init__(self, context, builder, sig, args):
        dt = sig.args[0].dtype
        self.b = builder
        self.nl = 512 // dt.bitwidth
        self.vt = ir.VectorType(context.get_value_type(dt), self.nl)
        self.align = dt.bitwidth // 8
        self.i32v = ir.VectorType(ir.IntType(32), self.nl)
        self.args = args
        self.data = [context.make_array(t)(context, builder, a).data
                     if isinstance(t, types.Array) else None for t, a in zip(sig.args, args)]

    def _ptr(self, q, off, k):
        if k:
            off = self.b.add(off, ir.Constant(ir.IntType(64), k))
        return self.b.bitcast(self.b.gep(self.data[q], [off]), self.vt.as_pointer())

    def load(self, q, off, k=0):
        """The vector at element off + k of array argument q."""
        return self.b.load(self._ptr(q, off, k), align=self.align)

    def store(self, v, q, off, k=0):
        self.b.store(v, self._ptr(q, off, k), align=self.align)

    def shuffle(self, a, b, idx):
        return self.b.shuffle_vector(a, b, ir.Constant(self.i32v, list(idx)))

    def pairs(self, q, off, reverse=False):
        """(re, im) of the nl float pairs at element off of array argument q, lane v
        holding pair v (pair nl-1-v when reverse)."""
        v0, v1 = self.load(q, off), self.load(q, off, self.nl)
        order = range(self.nl - 1, -1, -1) if reverse else range(self.nl)
        return (self.shuffle(v0, v1, [2 * v for v in order]),
                self.shuffle(v0, v1, [2 * v + 1 for v in order]))

    def store_pairs(self, re, im, q, off, reverse=False):
        """re[v], im[v] as the float pairs v = 0..nl-1 at element off of argument q (pair
        nl-1-v when reverse)."""
        nl = self.nl
        lane = (lambda m: nl - 1 - m) if reverse else (lambda m: m)
        for half in (0, 1):
            idx = [lane(half * nl // 2 + c // 2) + (c % 2) * nl for c in range(nl)]
            self.store(self.shuffle(re, im, idx), q, off, half * nl)

    def splat(self, x):
        undef = ir.Constant(self.vt, ir.Undefined)
        v = self.b.insert_element(undef, x, ir.Constant(ir.IntType(32), 0))
        return self.shuffle(v, undef, [0] * self.nl)


def _vec_sig(nargs, body, *args):
    """(signature, codegen) of an intrinsic over one vector of lanes: argument 0 is an
    array fixing the dtype, then arrays, uint64 offsets and dtype scalars as `nargs`
    spells them ('a', 'u', 's'); `body(V, *llvm_args)` emits the IR with V a
    :class:`_Vec`."""
    conv = {"u": types.uint64, "s": args[0].dtype}
    sig = types.void(*[a if c == "a" else conv[c] for a, c in zip(args, nargs)])

    def codegen(context, builder, sig, largs):
        body(_Vec(context, builder, sig, largs), *largs)
        return context.get_dummy_value()
    return sig, codegen


def _load_pairs_body(V, x, src, dre, dim, dst):
    re, im = V.pairs(0, src)
    V.store(re, 2, dst)
    V.store(im, 3, dst)


def _pack_values(V, x, pa, pb, wr, wi, j, sc, first=None):
    """Z[j .. j+nl-1] of the irfft packing (rfft._pack_complex) times sc, as (re, im)
    vectors: X[j+v] from the float pairs at element pa of array argument x, X[nc-j-v]
    from those at pb (pair nc-j-nl+1), the twiddles from array arguments wr, wi at j.
    `first` (an i1, j == 0): lane 0 then takes only the real parts of X[0] and X[nc],
    which gives Z[0] = (X0 + Xnc) + i (X0 - Xnc) with the same roundings as the scalar
    fix-up of _pack_complex."""
    add, sub, mul = V.b.fadd, V.b.fsub, V.b.fmul
    ar, ai = V.pairs(x, pa)
    br, bi = V.pairs(x, pb, reverse=True)
    if first is not None:
        lane0 = V.b.insert_element(ir.Constant(ir.VectorType(ir.IntType(1), V.nl), None),
                                   first, ir.Constant(ir.IntType(32), 0))
        zero = ir.Constant(V.vt, None)
        ai, bi = V.b.select(lane0, zero, ai), V.b.select(lane0, zero, bi)
    vwr, vwi, s = V.load(wr, j), V.load(wi, j), V.splat(sc)
    dr, di = sub(ar, br), add(ai, bi)
    tr = _fma_ir(V.b, vwr, dr, mul(vwi, di))
    ti = _fma_ir(V.b, vwr, di, V.b.fneg(mul(vwi, dr)))
    return mul(s, sub(add(ar, br), ti)), mul(s, add(sub(ai, bi), tr))


def _pack_pairs_body(V, x, pa, pb, wr, wi, j, sc, dre, dim, dst):
    re, im = _pack_values(V, 0, pa, pb, 3, 4, j, sc)
    V.store(re, 7, dst)
    V.store(im, 8, dst)


def _unpack_pairs_body(V, qre, qim, ka, kb, wr, wi, h, out, o, o2):
    add, sub, mul = V.b.fadd, V.b.fsub, V.b.fmul
    rev = list(range(V.nl - 1, -1, -1))
    ar, ai = V.load(0, ka), V.load(1, ka)
    br, bi = V.shuffle(V.load(0, kb), ar, rev), V.shuffle(V.load(1, kb), ar, rev)
    vh, vwr, vwi = V.splat(h), V.load(4, ka), V.load(5, ka)
    er, ei = add(ar, br), sub(ai, bi)
    orr, oi = add(ai, bi), sub(br, ar)
    pr, pi = _cmul(V.b, orr, oi, vwr, vwi)
    V.store_pairs(mul(vh, add(er, pr)), mul(vh, add(ei, pi)), 7, o)
    V.store_pairs(mul(vh, sub(er, pr)), mul(vh, sub(pi, ei)), 7, o2, reverse=True)


def _store_pairs_body(V, qre, qim, k, sc, out, o):
    s = V.splat(sc)
    V.store_pairs(V.b.fmul(s, V.load(0, k)), V.b.fmul(s, V.load(1, k)), 4, o)


@intrinsic
def _load_pairs(typingctx, x, src, dre, dim, dst):
    """d[dst + v] = x[src + 2v] + i x[src + 2v + 1] for the nl lanes v (d: dre, dim)."""
    return _vec_sig("auaau", _load_pairs_body, x, src, dre, dim, dst)


@intrinsic
def _pack_pairs(typingctx, x, pa, pb, wr, wi, j, sc, dre, dim, dst):
    """The irfft packing of rfft._pack_complex for j .. j+nl-1 into d[dst + v]: X[j+v]
    from the float pairs at x[pa], X[nc-j-v] from those at x[pb] (pair nc-j-nl+1)."""
    return _vec_sig("auuaausaau", _pack_pairs_body, x, pa, pb, wr, wi, j, sc, dre, dim, dst)


@intrinsic
def _unpack_pairs(typingctx, qre, qim, ka, kb, wr, wi, h, out, o, o2):
    """The rfft unpack of rfft._unpack_real for k = ka .. ka+nl-1 and nc-k (Z[nc-k] from
    the vector at kb = nc-ka-nl+1, reversed): X[k] as nl float pairs at out[o], X[nc-k]
    at out[o2] (pair kb first)."""
    return _vec_sig("aauuaasauu", _unpack_pairs_body, qre, qim, ka, kb, wr, wi, h, out, o,
                    o2)


@intrinsic
def _store_pairs(typingctx, qre, qim, k, sc, out, o):
    """out[o + 2v], out[o + 2v + 1] = sc * qre[k + v], sc * qim[k + v] for the nl lanes."""
    return _vec_sig("aausau", _store_pairs_body, qre, qim, k, sc, out, o)


# ----------------------------------------------------------------------------------------
# first butterfly stage straight from the input
#
# The six-step's column FFTs began with a pass that gathered the chunk into the lane block
# (rfft: de-interleave x; irfft: pack X) and a first, twiddle-free stage that read it
# back. These intrinsics do both in one: each point of the butterfly is loaded (or
# packed) from the input and only the butterfly's outputs are stored.

def _prefetch(builder, ptr):
    """Prefetch the cache line at ptr into L2 (llvm.prefetch, read, locality 2: prefetcht1)."""
    i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
    mod = builder.module
    f = mod.globals.get("llvm.prefetch.p0") or ir.Function(
        mod, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), "llvm.prefetch.p0")
    builder.call(f, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 2),
                     ir.Constant(i32, 1)])


def _first_codegen(npoints, pack):
    """Codegen of _bfly{2,4,8}_first_{pairs,pack}: arguments (re, im, p0, s, x, xb, xn,
    perm1, g, n2, col, swap, nc, wr, wi, sc) as in rfft._fft_lanes's first stage."""
    def codegen(context, builder, sig, args):
        V = _Vec(context, builder, sig, args)
        b = builder
        i64 = ir.IntType(64)
        p0, s, xb, xn, g, n2, col, swap, nc = (args[i] for i in (2, 3, 5, 6, 8, 9, 10, 11, 12))

        def prefetch(off):          # the same pairs of the next row (xn: its start)
            for k in (0, V.nl):
                _prefetch(b, V._ptr(4, b.add(b.sub(off, xb), xn), k))

        xr, xi = [], []
        for q in range(npoints):
            row = b.load(b.gep(V.data[7], [b.add(g, ir.Constant(i64, q))]))
            j = b.add(b.mul(row, n2), col)             # element j of z: row of perm1
            pa = b.add(xb, b.shl(j, ir.Constant(i64, 1)))
            prefetch(pa)
            if pack:
                jb = b.sub(b.sub(nc, j), ir.Constant(i64, V.nl - 1))
                pb = b.add(xb, b.shl(jb, ir.Constant(i64, 1)))
                prefetch(pb)
                first = b.icmp_unsigned("==", j, ir.Constant(i64, 0))
                re, im = _pack_values(V, 4, pa, pb, 13, 14, j, args[15], first)
            else:
                re, im = V.pairs(4, pa)
            xr.append(b.select(swap, im, re))          # the inverse: (im, re) swapped
            xi.append(b.select(swap, re, im))
        out = _dft_points(b, npoints, xr, xi, sig.args[0].dtype, V.vt)
        off = p0
        for q in range(npoints):
            V.store(out[q][0], 0, off)
            V.store(out[q][1], 1, off)
            off = b.add(off, s)
        return context.get_dummy_value()
    return codegen


def _first_intrinsic(npoints, pack):
    """The twiddle-free radix-`npoints` butterfly on the vector of lanes at p0 + {0..}*s
    of re/im, point q loaded from the input rather than from re/im: lane v is element
    j = perm1[g+q]*n2 + col + v of z, read as the float pair at x[xb + 2j] (`pack` False:
    rfft/cfft, contiguous input) or packed from the half spectrum at x[xb..] as
    rfft._pack_complex does (`pack` True: irfft; nc, twiddles wr/wi, scale sc); `swap`
    stores (im, re) for the inverse transform. The same input lines of the row at xn are
    prefetched into L2."""
    def typer(typingctx, re, im, p0, s, x, xb, xn, perm1, g, n2, col, swap, nc, wr, wi, sc):
        u64 = types.uint64
        sig = types.void(re, im, u64, u64, x, u64, u64, perm1, u64, u64, u64, types.boolean,
                         u64, wr, wi, re.dtype)
        return sig, _first_codegen(npoints, pack)
    typer.__name__ = f"_bfly{npoints}_first_{'pack' if pack else 'pairs'}"
    return intrinsic(typer)


_bfly2_first_pairs, _bfly4_first_pairs, _bfly8_first_pairs = (
    _first_intrinsic(L, False) for L in (2, 4, 8))
_bfly2_first_pack, _bfly4_first_pack, _bfly8_first_pack = (
    _first_intrinsic(L, True) for L in (2, 4, 8))


@intrinsic
def _fetch_add(typingctx, a, i, v):
    """a[i] += v atomically (1-D int64 array); returns the old value."""
    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        return builder.atomic_rmw("add", builder.gep(ary.data, [args[1]]), args[2], "seq_cst")
    return types.int64(a, types.int64, types.int64), codegen


@intrinsic
def _borrow(typingctx, a, start, n):
    """a[start:start+n] of a 1-D contiguous array as an array without a reference count
    (no meminfo): the kernel's scratch and plan views. Numba increfs and decrefs array
    views whenever a variable is rebound to one (the lane FFT's operands change per phase:
    one call site of _fft_lanes), an atomic operation each, and the plan's are shared by
    the threads of a call: measured in docs/fft.md. The caller keeps `a` alive."""
    from numba.np.arrayobj import make_array, populate_array
    rt = types.Array(a.dtype, 1, "C")

    def codegen(context, builder, sig, args):
        src = make_array(sig.args[0])(context, builder, args[0])
        ary = make_array(rt)(context, builder)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(
            context.get_data_type(a.dtype)))
        start_, n_ = (context.cast(builder, v, t, types.intp)
                      for v, t in zip(args[1:], sig.args[1:]))
        populate_array(ary, data=builder.gep(src.data, [start_]), shape=[n_],
                       strides=[itemsize], itemsize=itemsize, meminfo=None)
        return ary._getvalue()
    return rt(a, start, n), codegen
