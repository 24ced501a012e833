"""Shared low-level pieces of the kernel families: half-precision converters and layout prep.

Inside kernels (all vectorize):

- ``f16_load(u16) -> float32`` / ``f16_store(float32) -> uint16``: IEEE float16 through
  LLVM ``fpext``/``fptrunc`` (F16C ``vcvtph2ps``/``vcvtps2ph``), with a NaN fix-up so that the
  bits match NumPy's software conversion exactly (the hardware quiets signaling NaNs, NumPy
  keeps them).
- ``bf16_load(u16) -> float32`` / ``bf16_store(float32) -> uint16``: bfloat16 is the upper 16
  bits of a float32; storing rounds to nearest even and maps every NaN to ml_dtypes' canonical
  quiet NaN (``0x7fc0`` with the sign kept), bit-exact with ``ml_dtypes``.
- ``load_as(kind, x, like)``: an input element converted to an accumulator type; half
  inputs arrive as uint16 with a runtime ``kind`` (``element_kind`` maps dtypes).
- ``stack_array(n, like)``: a small array on the stack (lane accumulators in registers);
  ``gather`` stages a strided run into a contiguous buffer; ``as_readonly`` unifies types.

Python side (~5-30 us per call):

- :func:`flat_view` turns any NumPy view (negative and zero strides included) into a flat
  1-D buffer, an element offset and element strides.
- :func:`plan` sorts, flips and coalesces the dimensions of several operands sharing one
  iteration shape and pads them to a fixed rank, so that a kernel compiles once per dtype.

Threads: kernels take ``run_split`` from the thread pool (``flexarray._threads``); the
pool's polling kernel, :func:`linger` (its helpers' wait for the next job), lives here.

Note: Numba's disk cache is keyed on each kernel's own source file; after editing this
file, clear the kernel caches (``__pycache__/*.nbi``/``*.nbc``) or the families keep
using the old helpers.
"""

import platform

import ml_dtypes
import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic, overload, register_jitable
from numba.np.numpy_support import as_dtype

from flexarray._kernels import kernel

__all__ = ["f16_load", "f16_store", "bf16_load", "bf16_store", "fpext_half", "fptrunc_half",
           "f32_bits", "bits_f32", "PLAIN", "F16", "BF16", "element_kind", "load_as",
           "cast_like", "as_readonly", "stack_array", "gather", "flat_view", "plan",
           "RANK", "row_item", "linger"]

RANK = 4  # kernels take shape/stride tuples of exactly this length


# ---------------------------------------------------------------- bit casts and converters
@intrinsic
def fpext_half(typingctx, u):
    """float16 bits -> float32 by the hardware (signaling NaNs come out quiet)."""
    def codegen(context, builder, signature, args):
        return builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType())
    return types.float32(types.uint16), codegen


@intrinsic
def fptrunc_half(typingctx, f):
    """float32 -> float16 bits by the hardware, round to nearest even (NaNs come out quiet)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(builder.fptrunc(args[0], ir.HalfType()), ir.IntType(16))
    return types.uint16(types.float32), codegen


@intrinsic
def f32_bits(typingctx, f):
    """Reinterpret a float32 as uint32."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.uint32(types.float32), codegen


@intrinsic
def bits_f32(typingctx, u):
    """Reinterpret a uint32 as float32."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.uint32), codegen


@intrinsic
def as_readonly(typingctx, arr):
    """The same array typed read-only, so scratch and input views unify to one type."""
    rtype = arr.copy(readonly=True)

    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, rtype, args[0])
    return rtype(arr), codegen


@intrinsic
def _stack_ptr(typingctx, n, like):
    if not isinstance(n, types.IntegerLiteral):
        return None
    size = n.literal_value

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(like), size=size)
    return types.CPointer(like)(n, like), codegen


@register_jitable
def stack_array(n, like):
    """A 1-D array of ``n`` (a compile-time constant) elements of ``like``'s type on the
    stack. LLVM knows it aliases nothing, so loops over it vectorize without runtime checks
    and small ones live in registers: lane accumulators on the heap measured 2-4x slower
    (the unrolled lane loop stayed scalar)."""
    return carray(_stack_ptr(n, like), (n,))


@register_jitable
def gather(src, p, s, k, tmp):
    """``src[p + i*s] for i < k`` as a read-only contiguous view: a slice of ``src`` when
    ``s == 1``, else copied into ``tmp`` (so the caller's hot loop is compiled once, for
    contiguous data)."""
    if s == 1:
        return as_readonly(src[p:p + k])
    for i in range(k):
        tmp[i] = src[np.uint64(p + i * s)]
    return as_readonly(tmp[:k])


@register_jitable
def f16_load(u):
    """float16 bits -> float32 (exact; signaling NaNs kept as NumPy keeps them)."""
    x = fpext_half(u)
    # The hardware sets the quiet bit of a NaN; NumPy copies it from the half. Written as a
    # select (a branch here stops vectorization: 5x slower).
    b = f32_bits(x)
    kept = bits_f32((b & np.uint32(0xFFBFFFFF)) | (np.uint32(u & 0x0200) << np.uint32(13)))
    return kept if x != x else x


@register_jitable
def f16_store(x):
    """float32 -> float16 bits, round to nearest even (NaN payloads as NumPy truncates them)."""
    h = fptrunc_half(x)
    b = f32_bits(x)
    n = np.uint16(((b >> np.uint32(16)) & np.uint32(0x8000)) | np.uint32(0x7C00)
                  | ((b >> np.uint32(13)) & np.uint32(0x03FF)))
    n = np.uint16(n | np.uint16((n & 0x03FF) == 0))  # a NaN must stay a NaN
    return n if x != x else h


@register_jitable
def bf16_load(u):
    """bfloat16 bits -> float32 (exact)."""
    return bits_f32(np.uint32(u) << np.uint32(16))


@register_jitable
def bf16_store(x):
    """float32 -> bfloat16 bits, round to nearest even; NaN -> quiet NaN 0x7fc0 (sign kept)."""
    b = f32_bits(x)
    if x != x:
        return np.uint16(((b >> np.uint32(16)) & np.uint32(0x8000)) | np.uint32(0x7FC0))
    return np.uint16((b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1)))
                     >> np.uint32(16))


# ---------------------------------------------------------------- element kinds
# Half-precision arrays reach kernels as uint16 views plus a runtime ``kind`` (1: float16,
# 2: bfloat16; 0: the elements are what they are). The branch on ``kind`` is loop-invariant:
# LLVM unswitches it out of the hot loops, and only uint16 specializations contain it.
PLAIN, F16, BF16 = 0, 1, 2
_HALF_KIND = {np.dtype(np.float16): F16, np.dtype(ml_dtypes.bfloat16): BF16}


def element_kind(dtype):
    """``(kind, view dtype)`` for a NumPy dtype: halves become uint16 + F16/BF16."""
    k = _HALF_KIND.get(np.dtype(dtype))
    return (PLAIN, np.dtype(dtype)) if k is None else (k, np.dtype(np.uint16))


def cast_like(x, like):
    """``x`` converted to the type of ``like`` (inside kernels)."""


@overload(cast_like)
def _cast_like_impl(x, like):
    if x == like:
        return lambda x, like: x
    nt = as_dtype(like).type
    return lambda x, like: nt(x)


def load_as(kind, x, like):
    """Element ``x`` of a kernel's input, converted to the type of ``like`` (inside kernels)."""


@overload(load_as)
def _load_as_impl(kind, x, like):
    if x == types.uint16:
        def impl(kind, x, like):
            if kind == F16:
                return cast_like(f16_load(x), like)
            if kind == BF16:
                return cast_like(bf16_load(x), like)
            return cast_like(x, like)
        return impl
    return lambda kind, x, like: cast_like(x, like)


# ---------------------------------------------------------------- work items
@register_jitable
def row_item(t, shape, chunk):
    """Work item ``t`` of a rank-4 ``shape`` cut into runs of up to ``chunk`` elements of
    the innermost dim: ``(i0, i1, i2, start, m)``, the run ``[start, start + m)`` of row
    ``(i0, i1, i2)``."""
    n0, n1, n2, n3 = shape
    nci = (n3 + chunk - 1) // chunk
    c = t % nci
    r = t // nci
    i2 = r % n2
    r = r // n2
    i1 = r % n1
    i0 = r // n1
    start = c * chunk
    return i0, i1, i2, start, min(chunk, n3 - start)


# ---------------------------------------------------------------- the thread pool's polling
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def _load_acquire(typingctx, a, i):
    """a[i] (1-D int64 array) read with acquire ordering: a load the compiler may not
    hoist out of a polling loop."""
    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        return builder.load_atomic(builder.gep(ary.data, [args[1]]), "acquire", 8)
    return types.int64(a, i), codegen


@intrinsic
def _cpu_relax(typingctx):
    """The spin-wait hint (x86 ``pause``; nothing elsewhere)."""
    def codegen(context, builder, sig, args):
        if _X86:
            fn = builder.module.declare_intrinsic("llvm.x86.sse2.pause", fnty=ir.FunctionType(
                ir.VoidType(), []))
            builder.call(fn, [])
        return context.get_dummy_value()
    return types.void(), codegen


@kernel
def linger(signal, seen, spins):
    """The thread pool's polling kernel (``flexarray._threads._Pool``): poll signal[0]
    (without the GIL) until it differs from ``seen`` or ``spins`` polls have passed;
    returns its last value."""
    v = _load_acquire(signal, 0)
    for _ in range(spins):
        if v != seen:
            break
        _cpu_relax()
        v = _load_acquire(signal, 0)
    return v


# ---------------------------------------------------------------- layout prep
def _address(a):
    return a.__array_interface__["data"][0]


def flat_view(a, readonly=False):
    """``(flat, offset, strides)`` with ``a[i, j, ...] == flat[offset + i*s0 + j*s1 + ...]``.

    ``flat`` is a 1-D C-contiguous array of ``a.dtype`` covering ``a``'s memory, ``offset`` and
    ``strides`` count elements (strides may be negative or zero). With ``readonly=True`` the
    flat array is a read-only view, so every input has the same Numba type. Returns ``None``
    when a stride is not a multiple of the item size (the caller copies first).
    """
    if not readonly and not a.flags.writeable:
        raise ValueError("flat_view: the output array is read-only")
    it = a.itemsize
    est = []
    for s in a.strides:
        q, r = divmod(s, it)
        if r:
            return None
        est.append(q)
    if a.size == 0:
        flat, off = np.empty(0, a.dtype), 0
    elif a.flags.c_contiguous or a.flags.f_contiguous:
        flat, off = a.ravel(order="K"), 0
    else:
        owner = a
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        flat = None
        if owner.dtype == a.dtype and (owner.flags.c_contiguous or owner.flags.f_contiguous):
            off, r = divmod(_address(a) - _address(owner), it)
            if not r:
                flat = owner.ravel(order="K")
        if flat is None:  # foreign or odd owner: a flat window from the lowest address
            low = sum((n - 1) * s for n, s in zip(a.shape, est) if s < 0)
            span = 1 + sum((n - 1) * abs(s) for n, s in zip(a.shape, est))
            first = a[tuple(n - 1 if s < 0 else 0 for n, s in zip(a.shape, est)) + (Ellipsis,)]
            flat = np.lib.stride_tricks.as_strided(first, (span,), (it,))
            off = -low
    if readonly and flat.flags.writeable:
        flat = flat.view()
        flat.flags.writeable = False
    return flat, off, tuple(est)


def plan(shape, strides, offsets, rank=RANK):
    """Sort, flip and coalesce the dims shared by several operands; pad to ``rank``.

    ``shape``: the iteration shape. ``strides``: one tuple of element strides per operand
    (0 for broadcast dims), the first operand (usually the output) decides the order: its
    strides are made non-negative and sorted by decreasing size, so the last dim is the
    innermost. ``offsets``: element offsets, adjusted for flipped dims.

    Returns ``(shape, strides, offsets)`` as tuples of length ``rank`` (leading dims padded
    with size 1, stride 0), or ``None`` when more than ``rank`` dims remain (the caller loops
    over the leading dims in Python), plus the empty case ``(shape with a 0, ...)``.
    """
    nops = len(strides)
    offsets = list(offsets)
    dims = [d for d in range(len(shape)) if shape[d] != 1]
    if any(shape[d] == 0 for d in dims):
        zero = (0,) + (1,) * (rank - 1)
        return zero, tuple((0,) * rank for _ in range(nops)), tuple(offsets)
    st = [list(s) for s in strides]
    # flip dims in which the primary operand runs backwards (all operands together)
    for d in dims:
        if st[0][d] < 0:
            n = shape[d]
            for k in range(nops):
                offsets[k] += (n - 1) * st[k][d]
                st[k][d] = -st[k][d]
    # sort: decreasing |stride| of the primary operand, then of the others
    dims.sort(key=lambda d: tuple(-abs(st[k][d]) for k in range(nops)))
    sh = []
    ss = [[] for _ in range(nops)]
    for d in dims:
        n = shape[d]
        if sh and all(ss[k][-1] == st[k][d] * n for k in range(nops)):
            sh[-1] *= n
            for k in range(nops):
                ss[k][-1] = st[k][d]
            continue
        sh.append(n)
        for k in range(nops):
            ss[k].append(st[k][d])
    if len(sh) > rank:
        return None
    pad = rank - len(sh)
    shape_out = (1,) * pad + tuple(sh)
    strides_out = tuple((0,) * pad + tuple(s) for s in ss)
    return shape_out, strides_out, tuple(offsets)
