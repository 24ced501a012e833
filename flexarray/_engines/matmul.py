"""The matrix-product engine: NumPy's BLAS on flexarray's thread pool, the integer and
half-float products, ``vecdot`` along strided axes, the tall-matrix SVD and the threads of
LAPACK calls.

Chooses (gates in :mod:`.gates`, "Matrix products" and "BLAS's own threads"):

- :func:`product` (``a @ b`` of any numeric dtype): integers through exact float64 BLAS
  where the operands' magnitudes allow it (``K * max|a| * max|b| < 2**53``, for products
  below ``gates.INT_MATMUL_BLAS_MAX`` multiply-adds or 64-bit integers), else the Numba
  kernel (``flexarray._kernels.linalg.matmul``; NumPy's integer matmul has no BLAS path:
  int32 1024^3 ~4 s, the kernel ~65 ms); float16/bfloat16 from
  ``gates.HALF_MATMUL_KERNEL_MIN`` operand elements through float32 BLAS with the half
  kernels' conversions, rounded once; float32/64 and complex through :func:`matmul`, large
  results into warm recycled memory (:mod:`flexarray._memory`).
- :func:`matmul`: NumPy's BLAS, where OpenBLAS's own threads cost more than they give on
  the pool instead. OpenBLAS, NumPy's BLAS and LAPACK, runs its own threads, and two things
  make them costly beside flexarray's pool (docs/benchmarks.md, "Threads"): after a call
  large enough for them they spin-wait ~0.12 s for the next call, and two flexarray
  threads beside a spinning one lose to one thread (so parallel calls run inline
  meanwhile: ``_threads.blas_ran``); and they split a product along m and n, which are
  short in a Gram matrix ``X^T X`` of a tall ``X``. So the 2-D products where this shows
  run on the pool, each piece a single-threaded BLAS call: a long inner dimension is cut
  into slices whose products are summed; a large shallow result (distances and kernels,
  over which passes follow) is cut along its longer side. The pieces depend on the shape
  alone and run inline where the pool does not serve the call, so a product's bits do not
  depend on the thread count or the thread it runs on (docs/architecture.md, "Same bits
  on any thread"). Mid-size BLAS and LAPACK calls run single-threaded, where BLAS's
  threads gain little (:func:`blas_threads`, :func:`lapack_threads`); the larger ones go
  to OpenBLAS's threads, noted for their spin. Products with a vector on one side (BLAS's
  dot and gemv) never do: OpenBLAS threads them from ~10,000 multiply-adds and their spin
  went unnoted; a matrix of contiguous rows times a vector runs in pieces of rows on the
  pool, the others single-threaded (:func:`_vector_product`).
  Without threadpoolctl, which sets BLAS's thread count, every call goes to OpenBLAS as
  it is. Thin products (a linear model's few outputs) stay out of OpenBLAS's threads where
  they can: SciPy's OpenBLAS, a second library with threads of its own, slows them beside
  it.
- :func:`vecdot`: NumPy's einsum along the contiguous axis where the contracted one is
  strided (from ``gates.VECDOT_STRIDED_MIN`` elements), NumPy's vecdot otherwise.
- :func:`tall_svd`: the reduced SVD of a tall or wide matrix (from ``gates.TALL_SVD_MIN``
  elements and ``gates.TALL_SVD_ASPECT``) through the Gram matrix's eigendecomposition,
  else Cholesky QR (``flexarray._kernels.linalg.tall``), its products on the pool; None
  where LAPACK's SVD is to run.

Operands are NumPy arrays the frontend has validated; results are fresh NumPy arrays.
"""
import contextlib
import ctypes
import math
import os
import sys
import threading

import numpy as np

from .. import _dtypes as _dt
from .. import _memory, _threads
from .._helpers import cast_result, moved
from . import gates

__all__ = ["SingleThreadedBLAS", "blas_libs", "blas_threads", "lapack_threads", "matmul",
           "product", "tall_svd", "thread_counts", "vecdot"]

_F32 = np.dtype(np.float32)
_F64_EXACT = 1 << 53  # every integer of magnitude below this is a float64


# --- BLAS's own threads ------------------------------------------------------------------

_lock = threading.Lock()
_controllers = None  # threadpoolctl's BLAS library controllers, once looked up
_depth = 0
_limited = None


def _loaded_blas():
    """threadpoolctl's controllers of the BLAS libraries loaded now ([] when threadpoolctl
    is missing or fails)."""
    try:
        import threadpoolctl
        return threadpoolctl.ThreadpoolController().select(user_api="blas").lib_controllers
    except Exception:  # noqa: BLE001 (whatever fails, BLAS keeps its threads)
        return []


def blas_libs():
    """The controllers of the BLAS libraries loaded when first asked ([] when threadpoolctl
    is missing or fails: BLAS keeps its threads)."""
    global _controllers
    if _controllers is None:
        _controllers = _loaded_blas()
    return _controllers


def _set_threads(lib, n):
    """Set BLAS library ``lib``'s thread count from any thread. threadpoolctl (from 3.8)
    lets only the first Python thread that sets OpenBLAS's count set it again, and ignores
    the others quietly (``OpenBLASController.set_num_threads``): flexarray's calls from
    other threads (Dask's tasks, a ``ThreadPoolExecutor``'s) then left BLAS on its own
    threads inside the pool's pieces, whose results differed in the last bits and whose
    threads fought the pool's. Where the count did not take, the library's own setter
    (``_real_set_num_threads``) has no such rule; flexarray's callers share the count
    through :class:`SingleThreadedBLAS`'s reference count."""
    lib.set_num_threads(n)
    if lib.get_num_threads() != n and hasattr(lib, "_real_set_num_threads"):
        lib._real_set_num_threads(n)


def _openblas_functions(lib):
    """OpenBLAS's own ``(get, set)`` C functions of its thread count for threadpoolctl's
    controller ``lib`` (its symbols may carry SciPy's prefix and a 64-bit suffix); None
    for other libraries and OpenBLAS built on OpenMP (whose count is per thread)."""
    if lib.internal_api != "openblas" or getattr(lib, "threading_layer", "") == "openmp":
        return None
    try:
        dll = ctypes.CDLL(lib.filepath, mode=getattr(os, "RTLD_NOLOAD", 0))  # (loaded)
    except OSError:
        return None
    for prefix in ("", "scipy_"):
        for suffix in ("", "64_", "_64"):
            get = getattr(dll, f"{prefix}openblas_get_num_threads{suffix}", None)
            put = getattr(dll, f"{prefix}openblas_set_num_threads{suffix}", None)
            if get is not None and put is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                put.restype, put.argtypes = None, [ctypes.c_int]
                return get, put
    return None


_counts = None  # (get, set) of each BLAS library's thread count, once looked up


def thread_counts():
    """``(get, set)`` functions of each BLAS library's thread count: OpenBLAS's own C
    functions (~0.1 us a call), else threadpoolctl's methods (:func:`_set_threads`;
    ~0.3-0.6 us a call, which made a single-threaded matrix-vector product's context
    ~6 us with two OpenBLAS libraries loaded)."""
    global _counts
    if _counts is None:
        _counts = [_openblas_functions(lib) or
                   (lib.get_num_threads, lambda n, lib=lib: _set_threads(lib, n))
                   for lib in blas_libs()]
    return _counts


class SingleThreadedBLAS:
    """Reference-counted: BLAS runs single-threaded while any such context is active
    (parallel calls whose pieces call BLAS: flexarray.nn, :func:`matmul`), on whichever
    thread it is entered (:func:`thread_counts`).

    Sets each library's thread count directly (~1 us for the context) rather than through
    ``threadpoolctl.ThreadpoolController.limit`` (~25 us per call, which rereads every
    library's state: serial time at the start of each call)."""

    def __enter__(self):
        global _depth, _limited
        with _lock:
            if _depth == 0:
                _limited = [(put, n) for get, put in thread_counts()
                            if (n := get()) not in (None, 1)]
                for put, _ in _limited:
                    put(1)
            _depth += 1

    def __exit__(self, *exc):
        global _depth, _limited
        with _lock:
            _depth -= 1
            if _depth == 0:
                for put, n in _limited:
                    put(n)
                _limited = None


_two_pools = None


def _two_blas_pools():
    """Whether SciPy's own BLAS (loaded with ``scipy.linalg``, which ``scipy.optimize``
    and scikit-learn import) is another library than NumPy's: two thread pools that slow
    each other (``gates.MATMUL_THIN_MAX``). Looked up once, after ``scipy.linalg`` is
    first seen; False without threadpoolctl."""
    global _two_pools
    if _two_pools is None:
        if "scipy.linalg" not in sys.modules:
            return False
        _two_pools = len({lib.filepath for lib in _loaded_blas()}) >= 2
    return _two_pools


class _SpinNoted:
    """A BLAS call in BLAS's own threads, their spin noted afterwards (_threads.blas_ran)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _threads.blas_ran()


_SPIN_NOTED = _SpinNoted()
_UNTHREADED = contextlib.nullcontext()


def blas_threads(macs, vector=False):
    """The context for a BLAS or LAPACK call of about ``macs`` multiply-adds (per matrix):
    none where BLAS runs it on one thread anyway (``gates.BLAS_THREADED_MIN_MACS``) or
    on threads off the pool (Dask's tasks: several at once would set BLAS's thread count,
    a global, under each other);
    single-threaded BLAS up to ``gates.BLAS_SINGLE_THREAD_MAX_MACS``, where BLAS's threads
    gain little and their spin afterwards would cost the next parallel calls more, unless
    the call is a ``vector`` product (matrix-vector: memory-bound, where two threads gain
    up to 2x); above, BLAS's threads, their spin noted."""
    if macs <= gates.BLAS_THREADED_MIN_MACS or _threads.off_the_pool():
        return _UNTHREADED  # (off the pool: BLAS's thread count, a global, left alone)
    if macs < gates.BLAS_SINGLE_THREAD_MAX_MACS and not vector and blas_libs():
        return SingleThreadedBLAS()
    return _SPIN_NOTED


def lapack_threads(a):
    """The context for a LAPACK call on the matrices ``a`` (its last two axes; one call
    per matrix): :func:`blas_threads` of a factorization counted as 2 m n^2 multiply-adds
    (its own BLAS calls exceed m n^2: an eigendecomposition of 64 x 64 counted as n^3
    left BLAS's threads spinning)."""
    return blas_threads(2 * a.shape[-2] * a.shape[-1] ** 2 if a.ndim >= 2 else 0)


# --- NumPy's BLAS on the pool --------------------------------------------------------------

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
#: pieces of a product, whatever the thread count (a piece's shape sets its bits; 4 is
#: the 2 per thread of 2 threads measured best): the threads take them in turn, so a
#: helper that wakes late takes fewer (the SVD of 50,000 x 64 after 0.2 s idle, 7 runs,
#: 2 threads: 1 piece per thread 15-30 ms, 2 pieces 17-21, 4 pieces 16-28, 8 pieces 18-34)
PIECES = 4


def matmul(a, b, out=None):
    """``np.matmul(a, b, out=out)`` for NumPy operands of one dtype: a product with a
    vector on one side by :func:`_vector_product`; in pieces of
    single-threaded BLAS on the pool when a 2-D product of real floats has a long inner
    dimension (the gates ``MATMUL_SPLIT_K_*``), a large shallow result
    (``MATMUL_SPLIT_MN_*``) or a thin one with contiguous rows (``MATMUL_THIN_MAX``); a
    thin short result single-threaded beside SciPy's BLAS; else in the threads
    :func:`blas_threads` gives its size (a 2-D product of at most
    ``gates.BLAS_THREADED_MIN_MACS``: NumPy's call as it is, one thread in BLAS too).

    The pieces are chosen by the shape alone and run inline where the pool does not serve
    the call (another thread, ``FLEXARRAY_NUM_THREADS=1``, BLAS's threads spinning): the
    same pieces, the same bits, wherever and on however many threads the product runs."""
    if a.ndim <= 2 and b.ndim <= 2 and (a.ndim == 1 or b.ndim == 1 or
                                        min(a.shape[0], b.shape[1]) == 1):
        return _vector_product(a, b, out)
    if a.ndim == 2 and b.ndim == 2:
        (m, k), n = a.shape, b.shape[1]
        if m * k * n <= gates.BLAS_THREADED_MIN_MACS:
            return np.matmul(a, b, out=out)
        if a.dtype in _DTYPES and b.dtype == a.dtype:
            long_k = k >= gates.MATMUL_SPLIT_K_MIN_K and \
                min(m, n) >= gates.MATMUL_SPLIT_K_MIN_MN and \
                k >= gates.MATMUL_SPLIT_K_ASPECT * max(m, n)
            shallow = k <= gates.MATMUL_SPLIT_MN_MAX_K and \
                m * n * a.itemsize >= gates.MATMUL_SPLIT_MN_MIN_BYTES
            if (long_k or shallow) and blas_libs():
                return (_split_k if long_k else _split_mn)(a, b, out)
            if min(m, n) <= gates.MATMUL_THIN_MAX and \
                    m * k * n >= gates.BLAS_SINGLE_THREAD_MAX_MACS and blas_libs():
                if m > gates.MATMUL_THIN_MAX and a.strides[1] == a.itemsize:
                    return _split_mn(a, b, out)  # rows of a on the pool
                if _two_blas_pools() and not _threads.off_the_pool():  # (there BLAS's
                    with SingleThreadedBLAS():                         # thread count is
                        return np.matmul(a, b, out=out)                # left alone)
    # (a stack is one BLAS call per matrix: the multiply-adds of one)
    m, n = (a.shape[-2] if a.ndim > 1 else 1), (b.shape[-1] if b.ndim > 1 else 1)
    with blas_threads(m * a.shape[-1] * n, vector=min(m, n) == 1):
        return np.matmul(a, b, out=out)


def _split_k(a, b, out):
    """``a @ b`` with the inner dimension cut into ``PIECES`` slices (``X^T X`` stays a
    ``syrk``), their products summed pairwise by slice index."""
    (m, k), n = a.shape, b.shape[1]
    p = min(k, PIECES)
    parts = np.empty((p, m, n), a.dtype)
    bounds = [k * i // p for i in range(p + 1)]

    def piece(i):
        lo, hi = bounds[i], bounds[i + 1]
        np.matmul(a[:, lo:hi], b[lo:hi], out=parts[i])

    with SingleThreadedBLAS():
        _threads.run_items(piece, range(p), pin=False)
    with np.errstate(all="ignore"):  # (inf - inf between the parts is NaN, as BLAS's sum)
        while p > 1:  # (i, i + h) pairs, then the same over the sums: one order always
            h = p // 2
            np.add(parts[:h], parts[h:2 * h], out=parts[:h])
            if p & 1:
                np.add(parts[0], parts[2 * h], out=parts[0])
            p = h
    if out is None:
        return parts[0].copy()
    np.copyto(out, parts[0])
    return out


def _vector_product(a, b, out):
    """``a @ b`` where one side is a single vector (NumPy calls BLAS's dot or gemv; 1-D or
    2-D operands). OpenBLAS runs these on its own threads from ~10,000 multiply-adds
    (``gates.BLAS_VECTOR_THREADED_MIN``) and they spin ~0.1 s afterwards, taking a core
    from the pool's next calls unnoticed. So none runs there: a matrix with contiguous
    rows times a vector (``X @ v``, ``gates.MATVEC_POOL_MIN_MACS`` and up) in pieces of
    rows on the pool, each result element one row's dot product as in one call; the
    others single-threaded (a transposed matrix's ``X^T y`` reads ``X`` at the memory's
    pace on one thread: pieces on two threads measured no faster). On every thread, a
    Dask task's too: OpenBLAS's threads cut a long dot product into pieces of their own,
    so its bits would depend on where it ran (float32 ``X^T y`` of 50,000 rows did)."""
    macs = (a.size * b.size) // a.shape[-1] if a.shape[-1] else 0
    if macs < gates.BLAS_VECTOR_THREADED_MIN or not blas_libs():
        return np.matmul(a, b, out=out)
    mat, vec = (a, b) if a.ndim == 2 and a.shape[0] > 1 else (b.T, a)  # (v @ X is X^T v)
    if macs >= gates.MATVEC_POOL_MIN_MACS and mat.ndim == 2 and \
            mat.shape[0] >= PIECES and mat.strides[1] == mat.itemsize and \
            a.dtype in _DTYPES and b.dtype == a.dtype and \
            (out is None or out.flags.c_contiguous):
        r = np.empty(a.shape[:-1] + b.shape[1:], a.dtype) if out is None else out
        _split_mn(mat, vec.reshape(-1, 1), r.reshape(-1, 1))  # (a view: r is contiguous)
        return r
    with SingleThreadedBLAS():
        return np.matmul(a, b, out=out)


def _split_mn(a, b, out):
    """``a @ b`` with the result cut along its longer side into ``PIECES`` pieces."""
    (m, _), n = a.shape, b.shape[1]
    r = np.empty((m, n), a.dtype) if out is None else out
    rows = m >= n
    total = m if rows else n
    npieces = min(total, PIECES)
    bounds = [total * i // npieces for i in range(npieces + 1)]

    def piece(i):
        s = slice(bounds[i], bounds[i + 1])
        if rows:
            np.matmul(a[s], b, out=r[s])
        else:
            np.matmul(a, b[:, s], out=r[:, s])

    with SingleThreadedBLAS():
        _threads.run_items(piece, range(npieces), pin=False)
    return r


# --- products of any numeric dtype ---------------------------------------------------------

def product(a, b, dt):
    """``np.matmul(a, b)`` semantics for NumPy operands, as a fresh array of flexarray
    dtype ``dt`` (the promoted dtype; shapes validated)."""
    if _dt.KIND[dt] in "iu":
        a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
        return np.asarray(_int_product(a, b, dt))
    if dt in _dt.HALF:
        a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
        if a.size + b.size >= gates.HALF_MATMUL_KERNEL_MIN:
            return _half_product(a, b)
    ct = _F32 if dt in _dt.HALF else dt
    a, b = a.astype(ct, copy=False), b.astype(ct, copy=False)
    out = None
    if a.ndim == b.ndim == 2 and \
            a.shape[0] * b.shape[1] * ct.itemsize >= _memory.RECYCLE_MIN_BYTES:
        # a large product into warm recycled memory: a fresh block costs a page fault per
        # page (256 x 64 @ 64 x 50,000 float64, 102 MB: ~12 ms of its ~27 ms)
        out = _memory.empty((a.shape[0], b.shape[1]), ct)
    return cast_result(matmul(a, b, out), dt)


def _max_abs(a) -> int:
    if a.size == 0:
        return 0
    hi, lo = int(a.max()), int(a.min())
    return max(abs(hi), abs(lo))


def _int_product(a, b, dt):
    """``a @ b`` (matmul rules, 1-D operands included) for integer operands of NumPy dtype
    ``dt``, wrapping on overflow as NumPy does.

    - exact float64 BLAS: when ``K * max|a| * max|b| < 2**53`` every product and every
      partial sum is an integer that float64 represents exactly, in any summation order,
      so dgemm gives the exact result (wrapped to ``dt`` through int64, as NumPy wraps).
      Checking the bound costs a min/max pass over each operand. Measured against the
      Numba kernel: 3-5x faster below ~128^3 (the kernel's per-call setup) and for 64-bit
      integers at any size (1024^3: ~72 ms vs ~256 ms; no fast 64-bit SIMD multiply);
      equal for int16/int32 at 1024^3, 2x slower for int8.
    - the Numba i-k-j kernel (``_kernels/linalg/matmul.py``) otherwise (~65 ms for int32
      1024^3, 60x NumPy), on threads from ``gates.INT_MATMUL_THREADS_MIN`` multiply-adds;
      on a first call whose kernel is not in the disk cache, its exact stand-in (float64
      BLAS on 16-bit limbs, ``int_matmul_standin``) while it compiles in the background.
    """
    k = a.shape[-1]
    m = a.shape[-2] if a.ndim > 1 else 1
    n = b.shape[-1] if b.ndim > 1 else 1
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    work = m * n * k * math.prod(batch)
    if work == 0:
        return np.matmul(a, b)
    blas_first = work < gates.INT_MATMUL_BLAS_MAX or np.dtype(dt).itemsize == 8
    if blas_first and k * _max_abs(a) * _max_abs(b) < _F64_EXACT:
        r = np.matmul(a.astype(np.float64), b.astype(np.float64))
        return np.asarray(r).astype(np.int64).astype(dt, copy=False)
    from .._kernels.linalg import matmul as kernels
    shape = batch + ((m,) if a.ndim > 1 else ()) + ((n,) if b.ndim > 1 else ())
    return kernels.int_matmul(a, b, np.zeros(shape, dt),
                              _threads.threads_for(work, gates.INT_MATMUL_THREADS_MIN))


def _half_product(a, b):
    """``a @ b`` for float16/bfloat16 operands of one dtype: float32 BLAS (NumPy's float16
    matmul is a slow scalar loop: 512^3 is 70-270x slower) on the half kernels' exact
    conversions, rounded once at the end; conversions into recycled memory."""
    from .._kernels.elementwise import half
    dt = a.dtype

    def to_float32(x):
        return half.to_float32(x, _memory.empty(x.shape, _F32),
                               _threads.threads_for(x.size, gates.HALF_THREADS_MIN))

    r = np.matmul(to_float32(a), to_float32(b))
    return half.from_float32(r, dt, _memory.empty(r.shape, dt),
                             _threads.threads_for(r.size, gates.HALF_THREADS_MIN))


# --- vecdot --------------------------------------------------------------------------------

_BLAS_DTYPES = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128})


def vecdot(a, b, axis, dt):
    """Dot products of the vectors of NumPy operands ``a`` and ``b`` (of the compute dtype
    of ``dt``) along ``axis`` (negative), ``a`` conjugated, as a fresh array of flexarray
    dtype ``dt``."""
    if dt in _BLAS_DTYPES and max(a.size, b.size) >= gates.VECDOT_STRIDED_MIN and (
            a.strides[axis] != a.itemsize or b.strides[axis] != b.itemsize):
        # NumPy's vecdot walks a strided axis element by element (50,000 x 64 along axis 0:
        # ~23 ms); einsum's loop runs along the contiguous one (~1.8 ms)
        if dt.kind == "c":
            a = np.conjugate(a)
        with np.errstate(all="ignore"):
            if axis != -1:
                a, b = moved(a, axis, -1), moved(b, axis, -1)
            r = np.einsum("...i,...i->...", a, b)
        return cast_result(np.asarray(r), dt)
    long = max(a.shape[axis], b.shape[axis]) >= gates.BLAS_VECTOR_THREADED_MIN and \
        blas_libs()  # (BLAS's dot, single-threaded on any thread: see _vector_product)
    with np.errstate(all="ignore"), SingleThreadedBLAS() if long else _UNTHREADED:
        r = np.vecdot(a, b, axis=axis)
    return cast_result(r, dt)


# --- the SVD of a tall or wide matrix ------------------------------------------------------

def tall_svd(a, compute_uv=True):
    """The reduced SVD ``(U, S, Vh)`` (or ``S`` alone) of a single tall or wide matrix
    ``a`` through its Gram matrix (several times faster than LAPACK's there: see
    ``flexarray._kernels.linalg.tall``), in float64/complex128; None where it does not
    apply or does not gain, or where ``a`` is too ill-conditioned for it (LAPACK's SVD
    then runs)."""
    if a.ndim != 2 or a.size < gates.TALL_SVD_MIN:
        return None
    lo, hi = sorted(a.shape)
    if lo == 0 or hi < gates.TALL_SVD_ASPECT * lo:
        return None
    from .._kernels.linalg import tall
    wide = a.shape[0] < a.shape[1]
    w = a.conj().T if wide else a
    x = w.astype(np.result_type(w.dtype, np.float64), copy=False)
    try:
        with np.errstate(all="ignore"):
            g = matmul(x.conj().T, x)
            # the m x n factors in warm recycled memory: U of the Gram path, else Q1 and U
            u = _memory.empty(x.shape, x.dtype) if compute_uv else None
            r = tall.gram_svd(x, g, compute_uv, u, matmul, lapack_threads)
            if r is None:
                q = u if u is not None else _memory.empty(x.shape, x.dtype)
                r = tall.cholesky_qr2_svd(x, g, compute_uv, q,
                                          _memory.empty(x.shape, x.dtype) if compute_uv
                                          else None, matmul, lapack_threads)
    except np.linalg.LinAlgError:
        return None
    r = tall.accepted(r, compute_uv)
    if r is None or not compute_uv or not wide:
        return r
    u, s, vh = r  # of x^H = U S Vh, so x = Vh^H S U^H
    return vh.conj().T, s, u.conj().T
