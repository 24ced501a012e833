"""Small helpers shared by the flexarray.nn kernel files (private)."""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from flexarray._kernels import kernel


@kernel
def _valid_range(n_out, k_off, stride, n_in):
    """Output positions o in [lo, hi) with 0 <= o*stride + k_off < n_in."""
    if k_off >= 0:
        lo = 0
    else:
        lo = (-k_off + stride - 1) // stride
    last = n_in - 1 - k_off
    if last < 0:
        return 0, 0
    hi = last // stride + 1
    if hi > n_out:
        hi = n_out
    if lo > hi:
        lo = hi
    return lo, hi


# Shuffle masks of an 8 x 8 transpose in three butterfly stages: at distance d, rows k and
# k + d (k without bit d) exchange their blocks of d columns.
_T8_MASKS = {4: ([0, 1, 2, 3, 8, 9, 10, 11], [4, 5, 6, 7, 12, 13, 14, 15]),
             2: ([0, 1, 8, 9, 4, 5, 12, 13], [2, 3, 10, 11, 6, 7, 14, 15]),
             1: ([0, 8, 2, 10, 4, 12, 6, 14], [1, 9, 3, 11, 5, 13, 7, 15])}


@intrinsic
def transpose8(typingctx, dst, d, pitch, src, s):
    """dst[d + k*pitch + j] = src[s + 8*j + k] for j, k < 8 (1-D arrays of one dtype):
    eight vector loads, 24 shuffles (one two-source permute each with AVX-512), eight
    vector stores. The caller guarantees the bounds. (A scalar loop moving the same 64
    elements one by one is what LLVM makes of it otherwise: the row split took 27
    instead of 18 us per block of the k7 s2 benchmark layer.)"""
    def codegen(context, builder, sig, args):
        ety = context.get_data_type(sig.args[0].dtype)
        size = context.get_abi_sizeof(ety)
        vty = ir.VectorType(ety, 8)
        i64 = ir.IntType(64)
        mty = ir.VectorType(ir.IntType(32), 8)
        dary = context.make_array(sig.args[0])(context, builder, args[0])
        sary = context.make_array(sig.args[3])(context, builder, args[3])
        d_, pitch_, s_ = (context.cast(builder, args[i], sig.args[i], types.int64)
                          for i in (1, 2, 4))
        v = [builder.load(builder.bitcast(builder.gep(sary.data, [builder.add(s_, i64(8 * k))]),
                                          vty.as_pointer()), align=size) for k in range(8)]
        for dist in (4, 2, 1):
            lo, hi = _T8_MASKS[dist]
            for k in range(8):
                if not k & dist:
                    a, b = v[k], v[k + dist]
                    v[k] = builder.shuffle_vector(a, b, ir.Constant(mty, lo))
                    v[k + dist] = builder.shuffle_vector(a, b, ir.Constant(mty, hi))
        for k in range(8):
            ptr = builder.gep(dary.data, [builder.add(d_, builder.mul(pitch_, i64(k)))])
            builder.store(v[k], builder.bitcast(ptr, vty.as_pointer()), align=size)
        return context.get_dummy_value()
    return types.void(dst, d, pitch, src, s), codegen


@intrinsic
def vector_sum(typingctx, src, start, nvec):
    """src[start] + ... + src[start + nvec*V - 1] (1-D contiguous src, V elements to a
    64-byte vector), in an order fixed by ``nvec`` alone: four vector accumulators take
    the vectors in turn (one takes the last ``nvec % 4``), then fold pairwise. Strict IEEE
    adds (accumulators start at -0.0, the identity, so a sum of -0.0s stays -0.0). LLVM
    will not vectorize such a sum itself without reassociation: lanes on the stack came
    out as scalar adds, 3x slower (a mean over 49 elements per row, 8192 rows)."""
    if not (isinstance(src, types.Array) and src.ndim == 1 and src.layout == "C"
            and isinstance(src.dtype, types.Float)):
        return None  # a typing error: the loads assume contiguous floats

    def codegen(context, builder, sig, args):
        ety = context.get_data_type(sig.args[0].dtype)
        size = context.get_abi_sizeof(ety)
        V = 64 // size
        vty = ir.VectorType(ety, V)
        i64 = ir.IntType(64)
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        start_, nvec_ = (context.cast(builder, args[i], sig.args[i], types.int64)
                         for i in (1, 2))
        base = builder.gep(ary.data, [start_])
        acc = [cgutils.alloca_once_value(builder, ir.Constant(vty, [ir.Constant(ety, -0.0)] * V))
               for _ in range(4)]

        def add(a, k):  # acc[a] += the k-th vector
            ptr = builder.bitcast(builder.gep(base, [builder.mul(k, i64(V))]), vty.as_pointer())
            builder.store(builder.fadd(builder.load(acc[a]), builder.load(ptr, align=size)),
                          acc[a])
        quads = builder.udiv(nvec_, i64(4))
        with cgutils.for_range(builder, quads) as loop:
            for a in range(4):
                add(a, builder.add(builder.mul(loop.index, i64(4)), i64(a)))
        done = builder.mul(quads, i64(4))
        with cgutils.for_range(builder, builder.sub(nvec_, done)) as loop:
            add(0, builder.add(done, loop.index))
        a = [builder.load(p) for p in acc]
        v = builder.fadd(builder.fadd(a[0], a[1]), builder.fadd(a[2], a[3]))
        h = V // 2
        while h:  # lanes [0, h) += lanes [h, 2h)
            mask = ir.Constant(ir.VectorType(ir.IntType(32), V),
                               [k + h if k < h else k for k in range(V)])
            v = builder.fadd(v, builder.shuffle_vector(v, v, mask))
            h //= 2
        return builder.extract_element(v, i64(0))
    return src.dtype(src, start, nvec), codegen
