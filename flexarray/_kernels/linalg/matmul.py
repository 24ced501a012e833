"""Integer matrix products: NumPy has no fast path for them.

``int_matmul(a, b, out, nthreads)``: batched, broadcasting ``out = a @ b`` for integer
arrays of ``out``'s dtype, wrapping on overflow exactly like NumPy (arithmetic modulo
2**bits). NumPy has no BLAS path for integers (int32 1024x1024: ~4 s); here an i-k-j kernel
blocked for the caches (``_KB`` x ``_NB`` panels of ``b`` stay in L2 while a block of
``_MB`` rows runs over them; the ``j`` loop vectorizes in the result dtype, e.g.
``vpmulld``/``vpaddd`` for int32) runs on ``nthreads`` threads over row blocks. Measured on
one thread: ~90 ms for int32 1024^3, 45-55x NumPy (four rows of ``a`` per pass over ``b``,
or other panel sizes, were no faster).

Operands are NumPy arrays with ``ndim >= 1`` (1-D operands follow matmul's rules) of the
result dtype; the engine (``flexarray._engines.matmul``) has checked shapes and dtypes,
chosen the thread count and allocated ``out``. One specialization per integer dtype
(~0.5 s CPU cold).

First calls: ``int_matmul`` asks ``flexarray._kernels.ready`` first; while the kernel's
specialization compiles in the background, :func:`int_matmul_standin` computes the same
integers with float64 BLAS. The kernel's sums are exact modulo 2**bits (products of small
integers widen to int64 in Numba, each sum is stored back wrapped: the wrap of a sum of
wraps is the wrap of the sum), so any exact computation modulo 2**bits gives its bits: the
stand-in cuts each operand's bits into 16-bit limbs (one 8-bit limb for 8-bit dtypes),
multiplies limbs by float64 BLAS (every partial sum below ``K * 2**32 <= 2**53``: exact in
any order) and adds the limb products, shifted, in wrapping uint64. Inner dimensions above
``STANDIN_K_MAX`` have no stand-in (they compile on the caller's thread).
"""
import numpy as np

from flexarray._kernels import kernel, ready
from flexarray._kernels._intrinsics import flat_view
from flexarray._threads import run_split

__all__ = ["int_matmul", "int_matmul_standin", "STANDIN_K_MAX"]

_MB = 32      # rows of a per work item
_KB = 256     # k panel
_NB = 512     # n panel (a _KB x _NB panel of int32 b is 512 KB: stays in L2)
#: the longest inner dimension the stand-in computes exactly (K * (2**16 - 1)**2 < 2**53)
STANDIN_K_MAX = (1 << 53) // ((1 << 16) - 1) ** 2


def _matmul_kernel(a, aoff, sam, sak, b, boff, out, M, N, K, lo, hi):
    """Items ``[lo, hi)`` = (batch ``bt``, row block): ``out[bt] = a[bt] @ b[bt]``.

    ``a``: flat, element ``a[aoff[bt] + i*sam + k*sak]``; ``b``: flat, rows contiguous:
    ``b[boff[bt] + k*N + j]``; ``out``: C-contiguous (nbatch, M, N), zero-filled.
    """
    nmb = (M + _MB - 1) // _MB
    for t in range(lo, hi):
        bt = t // nmb
        i0 = (t % nmb) * _MB
        i1 = min(M, i0 + _MB)
        ao = aoff[bt]
        bo = boff[bt]
        oo = bt * M * N
        for j0 in range(0, N, _NB):
            nb = min(_NB, N - j0)
            for k0 in range(0, K, _KB):
                k1 = min(K, k0 + _KB)
                for i in range(i0, i1):
                    c = out[oo + i * N + j0:oo + i * N + j0 + nb]
                    pa = ao + i * sam
                    for k in range(k0, k1):
                        x = a[pa + k * sak]
                        row = b[bo + k * N + j0:bo + k * N + j0 + nb]
                        for j in range(nb):
                            c[j] += x * row[j]


_matmul = kernel(_matmul_kernel)


def _flat_strided(x):
    """(flat, offset, element strides) of ``x``; copies layouts with odd byte strides."""
    fv = flat_view(x, readonly=True)
    if fv is None:
        x = np.ascontiguousarray(x)
        fv = flat_view(x, readonly=True)
    return fv


def int_matmul(a, b, out, nthreads=1):
    """``out = a @ b`` for integer NumPy arrays of ``out``'s dtype, wrapping like NumPy, on
    up to ``nthreads`` threads. ``out``: zero-filled, C-contiguous, of the product's shape
    (matmul's rules); returned."""
    if a.ndim == 1:
        a = a[None, :]
    if b.ndim == 1:
        b = b[:, None]
    M, K = a.shape[-2:]
    N = b.shape[-1]
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    o = out.reshape(batch + (M, N))
    nbatch = o.size // max(M * N, 1)
    if o.size and K:
        # b: rows made contiguous (each batch matrix C-contiguous); a: any strides
        bb = np.ascontiguousarray(np.broadcast_to(b, batch + (K, N)).reshape(-1, K, N)
                                  if b.ndim > 2 else b)
        bflat = bb.reshape(-1)
        if b.ndim > 2:
            boff = np.arange(nbatch, dtype=np.int64) * (K * N)
        else:
            boff = np.zeros(nbatch, np.int64)
        ab = np.broadcast_to(a, batch + (M, K))
        aflat, ao, ast = _flat_strided(ab)
        # per-batch offsets of a (broadcast batch dims have stride 0)
        aoff = np.full(nbatch, ao, np.int64)
        if batch:
            idx = np.indices(batch).reshape(len(batch), -1)
            aoff += (np.asarray(ast[:-2], np.int64)[:, None] * idx).sum(axis=0)
        sam, sak = ast[-2], ast[-1]
        nmb = -(-M // _MB)
        args = (aflat, aoff, sam, sak, bflat, boff, o.reshape(-1), M, N, K)
        key = (out.dtype, bflat.flags.writeable)
        if K > STANDIN_K_MAX or ready(_matmul, key, *args, 0, 1):
            run_split(_matmul, args, nbatch * nmb, nthreads)
        else:
            o[...] = int_matmul_standin(ab, bb.reshape(batch + (K, N)) if b.ndim > 2 else bb)
    return out


def _limbs(x, width):
    """The unsigned bits of integer array ``x`` in limbs of ``width`` bits, lowest first,
    as float64 arrays."""
    bits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"u{x.dtype.itemsize}")).astype(np.uint64)
    mask = np.uint64((1 << width) - 1)
    return [((u >> np.uint64(s)) & mask).astype(np.float64) for s in range(0, bits, width)]


def int_matmul_standin(a, b):
    """``a @ b`` (2-D or batched, broadcasting; ``K <= STANDIN_K_MAX``) for integer arrays
    of one dtype, wrapped to it: the kernel's result, by float64 BLAS on 16-bit limbs (see
    the module's docstring)."""
    dt = a.dtype
    bits = dt.itemsize * 8
    width = min(bits, 16)
    la, lb = _limbs(a, width), _limbs(b, width)
    acc = None
    for i in range(len(la)):
        for j in range(len(lb) - i):            # limb products that reach the low bits
            p = np.matmul(la[i], lb[j]).astype(np.uint64)
            if i + j:
                p <<= np.uint64(width * (i + j))
            acc = p if acc is None else np.add(acc, p, out=acc)
    return acc.astype(dt)
