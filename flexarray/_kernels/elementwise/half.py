"""float16 / bfloat16 kernels: elementwise arithmetic and conversions through float32.

Numba cannot load float16 elements and cannot type bfloat16, so the kernels read and write
16-bit integer views: float16 as ``uint16``, bfloat16 as ``int16`` (the flat buffer's dtype
picks the converter at compile time: one specialization per dtype). Arithmetic runs in
float32 and rounds once to the storage type, which is exactly what NumPy (float16) and
ml_dtypes (bfloat16) do, so results are bit-identical to theirs (NaN payloads aside when both
operands are NaN: which one propagates may differ).

Entry points (NumPy level; no validation, the frontend has checked dtypes and shapes):

- ``binary(op, a, b, out, nthreads)``: ``out[...] = op(a, b)`` with ``op`` one of ``"add"``,
  ``"subtract"``, ``"multiply"``, ``"divide"``, ``"maximum"``, ``"minimum"`` (NaN-propagating
  like NumPy); ``a`` and ``b`` broadcast to ``out.shape``; all three share one half dtype;
  any strides. ``out`` must not partially overlap an input (equal is fine).
- ``to_float32(a, out)`` and ``from_float32(x, dtype, out)``; ``convert_into(dst, src)`` for
  any layouts (half -> float32 or float32 -> half).
- ``binary_flat(...)`` / ``convert_flat(...)``: the same on flat buffers with element offsets
  and strides, for a frontend that already holds them (skips ~5 us of view analysis).

Outputs are given (``flexarray._engines.elementwise`` allocates them); ``nthreads`` (default
1) is the caller's thread count. Operands whose innermost stride is not 0 or +-1 are first
restaged into scratch memory by the strided copy kernel (from ``gates.HALF_RESTAGE_MIN``
elements, on threads from the copy gate).

Measured (bench/bench_kernels.py, 16M elements, one thread, busy 2-core machine): float16
add 27-30x NumPy (~3.4 ms: memory-bound), bfloat16 add 8-10x ml_dtypes, float32 -> float16
6-7x NumPy. Cold compile (CPU time): the binary kernel of one dtype (all six ops) ~2.7 s,
of which ~0.5 s is Numba's one-time setup; each conversion direction ~1 s; a warm disk
cache loads in ~10 ms.
"""
from typing import NamedTuple

import ml_dtypes
import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from flexarray._kernels import kernel, ready
from flexarray._kernels._intrinsics import (as_readonly, bf16_load, bf16_store, f16_load,
                                            f16_store, flat_view, fpext_half, fptrunc_half,
                                            plan, row_item)
from flexarray._engines import gates
from flexarray._threads import run_split, threads_for

__all__ = ["binary", "binary_flat", "to_float32", "from_float32", "convert_into",
           "convert_flat", "OPS", "HALF_DTYPES"]

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT16 = np.dtype(np.float16)
HALF_DTYPES = (FLOAT16, BFLOAT16)
# storage view of each half dtype inside kernels (the view dtype selects the converter)
_VIEW = {FLOAT16: np.dtype(np.uint16), BFLOAT16: np.dtype(np.int16)}

OPS = {"add": 0, "subtract": 1, "multiply": 2, "divide": 3, "maximum": 4, "minimum": 5}

_CHUNK = 1 << 14  # elements of the innermost dim per work item
_BLOCK = 2048     # strided operands are staged through contiguous scratch blocks of this size


# ---------------------------------------------------------------- converters by view dtype
def half_load(u):
    """16-bit view element -> float32 (uint16: float16, int16: bfloat16)."""


def half_store(x, like):
    """float32 -> 16-bit view element of the same type as ``like``."""


@overload(half_load)
def _half_load_impl(u):
    if u == types.uint16:
        return lambda u: f16_load(u)
    if u == types.int16:
        return lambda u: bf16_load(np.uint16(u))
    return None


@overload(half_store)
def _half_store_impl(x, like):
    if like == types.uint16:
        return lambda x, like: f16_store(x)
    if like == types.int16:
        return lambda x, like: np.int16(bf16_store(x))
    return None


# Op tags: inside the kernel the runtime ``op`` picks one loop per op, each compiled with its
# op fixed (an empty NamedTuple's class is part of its Numba type). One loop with a branch
# on ``op`` inside was unswitched by LLVM for "add" only: the other ops ran 2x slower.
class _Add(NamedTuple):
    pass


class _Sub(NamedTuple):
    pass


class _Mul(NamedTuple):
    pass


class _Div(NamedTuple):
    pass


class _Max(NamedTuple):
    pass


class _Min(NamedTuple):
    pass


_ADD, _SUB, _MUL, _DIV, _MAX, _MIN = _Add(), _Sub(), _Mul(), _Div(), _Max(), _Min()


def _apply(tag, x, y):
    """``op(x, y)`` for an op tag."""


@overload(_apply)
def _apply_impl(tag, x, y):
    return {
        _Add: lambda tag, x, y: x + y,
        _Sub: lambda tag, x, y: x - y,
        _Mul: lambda tag, x, y: x * y,
        _Div: lambda tag, x, y: x / y,
    }[tag.instance_class]


def _takes_first(tag, x, y):
    """NumPy's maximum/minimum pick the first operand: on ties, and when it is NaN."""


@overload(_takes_first)
def _takes_first_impl(tag, x, y):
    if tag.instance_class is _Max:
        return lambda tag, x, y: (x >= y) | (x != x)
    return lambda tag, x, y: (x <= y) | (x != x)


def _arith_load(u):
    """float16 bits -> float32 without the NaN fix-up: a signaling NaN comes out quiet,
    which arithmetic does anyway (2x faster than ``f16_load``)."""


def _arith_store(x, like):
    """float32 -> float16 bits without the NaN fix-up: arithmetic results are quiet NaNs,
    which the hardware rounds exactly as NumPy does."""


@overload(_arith_load)
def _arith_load_impl(u):
    if u == types.uint16:
        return lambda u: fpext_half(u)
    return lambda u: half_load(u)


@overload(_arith_store)
def _arith_store_impl(x, like):
    if like == types.uint16:
        return lambda x, like: fptrunc_half(x)
    return lambda x, like: half_store(x, like)


@register_jitable
def _select_loop(tag, av, bv, ov):
    """maximum/minimum: compare as float32, copy the winner's bits (exact, NaN payloads
    included, with no rounding step)."""
    for i in range(ov.size):
        ov[i] = av[i] if _takes_first(tag, _arith_load(av[i]), _arith_load(bv[i])) else bv[i]


@register_jitable
def _arith_loop(tag, av, bv, ov):
    """add/subtract/multiply/divide: their results are bit-identical with the fast
    converters (maximum/minimum pass NaN inputs through and need the exact ones)."""
    for i in range(ov.size):
        ov[i] = _arith_store(_apply(tag, _arith_load(av[i]), _arith_load(bv[i])), ov[0])


@register_jitable
def _binary_block(op, av, bv, ov):
    if op == 0:
        _arith_loop(_ADD, av, bv, ov)
    elif op == 1:
        _arith_loop(_SUB, av, bv, ov)
    elif op == 2:
        _arith_loop(_MUL, av, bv, ov)
    elif op == 3:
        _arith_loop(_DIV, av, bv, ov)
    elif op == 4:
        _select_loop(_MAX, av, bv, ov)
    else:
        _select_loop(_MIN, av, bv, ov)


@register_jitable
def _gather(src, p, s, k, tmp):
    """``src[p + i*s] for i < k`` as a read-only contiguous view (``tmp`` when strided)."""
    if s == 1:
        return as_readonly(src[p:p + k])
    for i in range(k):
        tmp[i] = src[np.uint64(p + i * s)]
    return as_readonly(tmp[:k])


def _binary_kernel(op, a, ao, sa, b, bo, sb, o, oo, so, shape, lo, hi):
    """Work items ``[lo, hi)``: runs of up to ``_CHUNK`` elements along the innermost dim."""
    ta = np.empty(_BLOCK, a.dtype)
    tb = np.empty(_BLOCK, b.dtype)
    to = np.empty(_BLOCK, o.dtype)
    for t in range(lo, hi):
        i0, i1, i2, start, m = row_item(t, shape, _CHUNK)
        pa = ao + i0 * sa[0] + i1 * sa[1] + i2 * sa[2] + start * sa[3]
        pb = bo + i0 * sb[0] + i1 * sb[1] + i2 * sb[2] + start * sb[3]
        po = oo + i0 * so[0] + i1 * so[1] + i2 * so[2] + start * so[3]
        a3, b3, o3 = sa[3], sb[3], so[3]
        if a3 == 1 and b3 == 1 and o3 == 1:
            _binary_block(op, a[pa:pa + m], b[pb:pb + m], o[po:po + m])
            continue
        for base in range(0, m, _BLOCK):
            k = min(_BLOCK, m - base)
            av = _gather(a, pa + base * a3, a3, k, ta)
            bv = _gather(b, pb + base * b3, b3, k, tb)
            if o3 == 1:
                _binary_block(op, av, bv, o[po + base:po + base + k])
            else:
                _binary_block(op, av, bv, to[:k])
                q = po + base * o3
                for i in range(k):
                    o[np.uint64(q + i * o3)] = to[i]


_binary = kernel(_binary_kernel)


def _cvt(x, like):
    """Convert one element to the type of ``like`` (half view <-> float32)."""


@overload(_cvt)
def _cvt_impl(x, like):
    if isinstance(x, types.Integer) and like == types.float32:
        return lambda x, like: half_load(x)
    if x == types.float32 and isinstance(like, types.Integer):
        return lambda x, like: half_store(x, like)
    return None


@register_jitable
def _convert_block(sv, dv):
    for i in range(dv.size):
        dv[i] = _cvt(sv[i], dv[0])


def _convert_kernel(src, so, ss, dst, do, sd, shape, lo, hi):
    ts = np.empty(_BLOCK, src.dtype)
    td = np.empty(_BLOCK, dst.dtype)
    for t in range(lo, hi):
        i0, i1, i2, start, m = row_item(t, shape, _CHUNK)
        ps = so + i0 * ss[0] + i1 * ss[1] + i2 * ss[2] + start * ss[3]
        pd = do + i0 * sd[0] + i1 * sd[1] + i2 * sd[2] + start * sd[3]
        s3, d3 = ss[3], sd[3]
        for base in range(0, m, _BLOCK):
            k = min(_BLOCK, m - base)
            sv = _gather(src, ps + base * s3, s3, k, ts)
            if d3 == 1:
                _convert_block(sv, dst[pd + base:pd + base + k])
            else:
                _convert_block(sv, td[:k])
                q = pd + base * d3
                for i in range(k):
                    dst[np.uint64(q + i * d3)] = td[i]


_convert = kernel(_convert_kernel)


# ---------------------------------------------------------------- entry points
def _launch(fn, args, shape, nthreads):
    """Run a chunked kernel over ``shape`` (rank RANK) on up to ``nthreads`` threads."""
    n = shape[0] * shape[1] * shape[2] * shape[3]
    if n == 0:
        return
    items = shape[0] * shape[1] * shape[2] * ((shape[3] + _CHUNK - 1) // _CHUNK)
    run_split(fn, args + (shape,), items, nthreads)


def binary_flat(op, shape, a, ao, sa, b, bo, sb, out, oo, so, nthreads=1):
    """``binary`` on flat buffers: ``a``, ``b``, ``out`` are 1-D 16-bit views (float16 as
    ``uint16``, bfloat16 as ``int16``; ``a``/``b`` may be read-only), ``*o`` element offsets,
    ``s*`` element strides over ``shape`` (0 for broadcast dims)."""
    p = plan(shape, (so, sa, sb), (oo, ao, bo))
    if p is None:  # more than RANK dims after coalescing: loop over the first one
        for i in range(shape[0]):
            binary_flat(op, shape[1:], a, ao + i * sa[0], sa[1:], b, bo + i * sb[0], sb[1:],
                        out, oo + i * so[0], so[1:], nthreads)
        return
    shp, (so4, sa4, sb4), (oo, ao, bo) = p
    a, ao, sa4 = _restage(shp, a, ao, sa4)
    b, bo, sb4 = _restage(shp, b, bo, sb4)
    _launch(_binary, (OPS[op], a, ao, sa4, b, bo, sb4, out, oo, so4), shp, nthreads)


def _restage(shp, x, xo, xs):
    """A strided operand copied into scratch memory in the planned order (see above)."""
    n = shp[0] * shp[1] * shp[2] * shp[3]
    if abs(xs[3]) <= 1 or n < gates.HALF_RESTAGE_MIN:
        return x, xo, xs
    from flexarray._kernels.copy.strided import copy_flat
    cs = (shp[1] * shp[2] * shp[3], shp[2] * shp[3], shp[3], 1)
    tmp = np.empty(n, x.dtype)
    copy_flat(shp, x, xo, xs, tmp, 0, cs, threads_for(n, gates.COPY_THREADS_MIN))
    tmp.flags.writeable = False
    return tmp, 0, cs


def _half_flat(x, readonly):
    v = x.view(_VIEW[x.dtype]) if x.dtype in _VIEW else x
    f = flat_view(v, readonly=readonly)
    if f is None:  # odd byte strides: work on a copy
        if not readonly:
            raise ValueError("half kernels: output strides must be multiples of the item size")
        f = flat_view(np.ascontiguousarray(v), readonly=True)
    return f


_PROBES = {}


def _probe(dtype, readonly):
    """A 1-D array of the flat view type of ``dtype`` (the kernels' argument type)."""
    v = _PROBES.get((dtype, readonly))
    if v is None:
        v = np.zeros(1, _VIEW.get(dtype, dtype))
        v.flags.writeable = not readonly
        _PROBES[(dtype, readonly)] = v
    return v


_T4 = (0, 0, 0, 0)


_BINARY_READY = set()    # dtypes whose binary kernel is ready (one set lookup a call)


def _binary_ready(dtype):
    """Whether the binary kernel of ``dtype`` runs without a compile on this thread (else
    it compiles in the background: ``flexarray._kernels.ready``)."""
    if dtype in _BINARY_READY:
        return True
    r = _probe(dtype, True)
    if ready(_binary, dtype, 0, r, 0, _T4, r, 0, _T4, _probe(dtype, False), 0, _T4, _T4, 0, 1):
        _BINARY_READY.add(dtype)
        return True
    return False


def _convert_ready(src, dst):
    return ready(_convert, (src, dst), _probe(src, True), 0, _T4, _probe(dst, False), 0, _T4,
                 _T4, 0, 1)


def _standin_binary(op, a, b, out):
    """The kernel's bits through NumPy: the operands widened to float32 exactly, NumPy's
    float32 ufunc, rounded once to the storage type by NumPy's (float16) or ml_dtypes'
    (bfloat16) cast; maximum/minimum copy the winning operand's bits as the kernel does.
    Tested bit for bit against the kernel (tests/test_first_call.py)."""
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        if op in ("maximum", "minimum"):
            first = (a32 >= b32) if op == "maximum" else (a32 <= b32)
            first |= np.isnan(a32)
            out[...] = np.where(first, a, b)
        else:
            out[...] = getattr(np, op)(a32, b32).astype(out.dtype)
    return out


def binary(op, a, b, out, nthreads=1):
    """``out[...] = op(a, b)`` for float16/bfloat16 NumPy arrays (see module docstring), on
    up to ``nthreads`` threads."""
    if not (a.dtype == b.dtype == out.dtype and out.dtype in _VIEW):
        raise TypeError(f"half.binary: a, b and out must share one dtype of float16 or "
                        f"bfloat16, got {a.dtype}, {b.dtype}, {out.dtype}")
    if not _binary_ready(out.dtype):
        return _standin_binary(op, a, b, out)
    shape = out.shape
    a = np.broadcast_to(a, shape) if a.shape != shape else a
    b = np.broadcast_to(b, shape) if b.shape != shape else b
    af, ao, sa = _half_flat(a, True)
    bf, bo, sb = _half_flat(b, True)
    of, oo, so = _half_flat(out, False)
    binary_flat(op, shape, af, ao, sa, bf, bo, sb, of, oo, so, nthreads)
    return out


def convert_flat(shape, src, so, ss, dst, do, sd, nthreads=1):
    """``convert_into`` on flat buffers (16-bit views as in :func:`binary_flat`, float32)."""
    p = plan(shape, (sd, ss), (do, so))
    if p is None:
        for i in range(shape[0]):
            convert_flat(shape[1:], src, so + i * ss[0], ss[1:], dst, do + i * sd[0], sd[1:],
                         nthreads)
        return
    shp, (sd4, ss4), (do, so) = p
    src, so, ss4 = _restage(shp, src, so, ss4)
    _launch(_convert, (src, so, ss4, dst, do, sd4), shp, nthreads)


def convert_into(dst, src, nthreads=1):
    """``dst[...] = src`` converting float16/bfloat16 <-> float32 (bit-exact with NumPy and
    ml_dtypes casts), on up to ``nthreads`` threads; ``src`` broadcasts to ``dst.shape``."""
    if src.shape != dst.shape:
        src = np.broadcast_to(src, dst.shape)
    if not _convert_ready(src.dtype, dst.dtype):
        with np.errstate(all="ignore"):     # NumPy's and ml_dtypes' casts: the same bits
            dst[...] = src.astype(dst.dtype)
        return dst
    sf, so, ss = _half_flat(src, True)
    df, do, sd = _half_flat(dst, False)
    convert_flat(dst.shape, sf, so, ss, df, do, sd, nthreads)
    return dst


def to_float32(a, out=None, nthreads=1):
    """The values of float16/bfloat16 ``a`` in float32: into ``out`` (C-contiguous float32
    of a's shape) when given, else into scratch memory of the kernel's own (``np.empty``)."""
    return convert_into(np.empty(a.shape, np.float32) if out is None else out, a, nthreads)


def from_float32(x, dtype, out=None, nthreads=1):
    """Float32 ``x`` rounded once to ``dtype`` (float16 or bfloat16): into ``out``
    (C-contiguous, x's shape) when given, else into scratch memory (``np.empty``)."""
    return convert_into(np.empty(x.shape, dtype) if out is None else out, x, nthreads)
