"""NumPy's BLAS on flexarray's thread pool (private).

OpenBLAS, NumPy's BLAS and LAPACK, runs its own threads, and two things make them costly
beside flexarray's pool (docs/benchmarks.md, "Threads"):

- after a call large enough for them, they spin-wait ~0.12 s for the next call, and two
  flexarray threads beside a spinning one lose to one thread (so parallel calls run inline
  meanwhile: ``_threads.blas_ran``);
- they split a product along m and n, which are short in a Gram matrix ``X^T X`` of a
  tall ``X``.

So the 2-D products where this shows run on the pool instead, each piece a single-threaded
BLAS call (:func:`matmul`): a long inner dimension is cut into slices whose products are
summed; a large shallow result (distances and kernels, over which passes follow) is cut
along its longer side. The pieces depend on the shape alone and run inline where the pool
does not serve the call, so a product's bits do not depend on the thread count or the
thread it runs on (docs/architecture.md, "Same bits on any thread"). Mid-size BLAS and LAPACK calls run single-threaded, where BLAS's
threads gain little (:func:`threads_for`, :func:`lapack_threads`); the larger ones and
matrix-vector products (memory-bound) go to OpenBLAS's threads, noted for their spin.
Without threadpoolctl, which sets BLAS's thread count, every call goes to OpenBLAS as it
is. Thin products (a linear model's few outputs) stay out of OpenBLAS's threads where they
can: SciPy's OpenBLAS, a second library with threads of its own, slows them beside it.
The gates are in ``gates.py`` ("BLAS's own threads", "Matrix products").
"""
import contextlib
import sys
import threading

import numpy as np

from . import _threads
from ._engines import gates

__all__ = ["SingleThreadedBLAS", "blas_libs", "lapack_threads", "matmul", "threads_for"]

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


class SingleThreadedBLAS:
    """Reference-counted: BLAS runs single-threaded while any such context is active
    (parallel calls whose pieces call BLAS: flexarray.nn, :func:`matmul`), on whichever
    thread it is entered (:func:`_set_threads`).

    Sets each library's thread count directly (~1 us) rather than through
    ``threadpoolctl.ThreadpoolController.limit`` (~25 us per call, which rereads every
    library's state: serial time at the start of each call)."""

    def __enter__(self):
        global _depth, _limited
        with _lock:
            if _depth == 0:
                _limited = [(lib, n) for lib in blas_libs()
                            if (n := lib.get_num_threads()) not in (None, 1)]
                for lib, _ in _limited:
                    _set_threads(lib, 1)
            _depth += 1

    def __exit__(self, *exc):
        global _depth, _limited
        with _lock:
            _depth -= 1
            if _depth == 0:
                for lib, n in _limited:
                    _set_threads(lib, n)
                _limited = None


_SPLIT_K_MIN_K = gates.MATMUL_SPLIT_K_MIN_K
_SPLIT_K_MIN_MN = gates.MATMUL_SPLIT_K_MIN_MN
_SPLIT_K_ASPECT = gates.MATMUL_SPLIT_K_ASPECT
_SPLIT_MN_MAX_K = gates.MATMUL_SPLIT_MN_MAX_K
_SPLIT_MN_MIN_BYTES = gates.MATMUL_SPLIT_MN_MIN_BYTES
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
#: pieces of a product, whatever the thread count (a piece's shape sets its bits; 4 is
#: the 2 per thread of 2 threads measured best): the threads take them in turn, so a
#: helper that wakes late takes fewer (the SVD of 50,000 x 64 after 0.2 s idle, 7 runs,
#: 2 threads: 1 piece per thread 15-30 ms, 2 pieces 17-21, 4 pieces 16-28, 8 pieces 18-34)
PIECES = 4
_THREADED_MIN = gates.BLAS_THREADED_MIN_MACS
_SINGLE_MAX = gates.BLAS_SINGLE_THREAD_MAX_MACS
_THIN_MAX = gates.MATMUL_THIN_MAX


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


def matmul(a, b, out=None):
    """``np.matmul(a, b, out=out)`` for NumPy operands of one dtype: in pieces of
    single-threaded BLAS on the pool when a 2-D product of real floats has a long inner
    dimension (the gates ``MATMUL_SPLIT_K_*``), a large shallow result
    (``MATMUL_SPLIT_MN_*``) or a thin one with contiguous rows (``MATMUL_THIN_MAX``); a
    thin short result single-threaded beside SciPy's BLAS; else in the threads
    :func:`threads_for` gives its size.

    The pieces are chosen by the shape alone and run inline where the pool does not serve
    the call (another thread, ``FLEXARRAY_NUM_THREADS=1``, BLAS's threads spinning): the
    same pieces, the same bits, wherever and on however many threads the product runs."""
    if a.ndim == 2 and b.ndim == 2 and a.dtype in _DTYPES and b.dtype == a.dtype:
        (m, k), n = a.shape, b.shape[1]
        long_k = k >= _SPLIT_K_MIN_K and min(m, n) >= _SPLIT_K_MIN_MN and \
            k >= _SPLIT_K_ASPECT * max(m, n)
        shallow = k <= _SPLIT_MN_MAX_K and m * n * a.itemsize >= _SPLIT_MN_MIN_BYTES
        if (long_k or shallow) and blas_libs():
            return (_split_k if long_k else _split_mn)(a, b, out)
        if min(m, n) <= _THIN_MAX and m * k * n >= _SINGLE_MAX and blas_libs():
            if m > _THIN_MAX and a.strides[1] == a.itemsize:
                return _split_mn(a, b, out)  # rows of a on the pool
            if _two_blas_pools() and not _threads.off_the_pool():  # (there BLAS's
                with SingleThreadedBLAS():                         # thread count is
                    return np.matmul(a, b, out=out)                # left alone)
    # (a stack is one BLAS call per matrix: the multiply-adds of one)
    m, n = (a.shape[-2] if a.ndim > 1 else 1), (b.shape[-1] if b.ndim > 1 else 1)
    with threads_for(m * a.shape[-1] * n, vector=min(m, n) == 1):
        return np.matmul(a, b, out=out)


def lapack_threads(a):
    """The context for a LAPACK call on the matrices ``a`` (its last two axes; one call
    per matrix): :func:`threads_for` a factorization counted as 2 m n^2 multiply-adds
    (its own BLAS calls exceed m n^2: an eigendecomposition of 64 x 64 counted as n^3
    left BLAS's threads spinning)."""
    return threads_for(2 * a.shape[-2] * a.shape[-1] ** 2 if a.ndim >= 2 else 0)


class _SpinNoted:
    """A BLAS call in BLAS's own threads, their spin noted afterwards (_threads.blas_ran)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _threads.blas_ran()


_SPIN_NOTED = _SpinNoted()


_UNTHREADED = contextlib.nullcontext()


def threads_for(macs, vector=False):
    """The context for a BLAS or LAPACK call of about ``macs`` multiply-adds (per matrix):
    none where BLAS runs it on one thread anyway (``gates.BLAS_THREADED_MIN_MACS``) or
    on threads off the pool (Dask's tasks: several at once would set BLAS's thread count,
    a global, under each other);
    single-threaded BLAS up to ``gates.BLAS_SINGLE_THREAD_MAX_MACS``, where BLAS's threads
    gain little and their spin afterwards would cost the next parallel calls more, unless
    the call is a ``vector`` product (matrix-vector: memory-bound, where two threads gain
    up to 2x); above, BLAS's threads, their spin noted."""
    if macs <= _THREADED_MIN or _threads.off_the_pool():
        return _UNTHREADED  # (off the pool: BLAS's thread count, a global, left alone)
    if macs < _SINGLE_MAX and not vector and blas_libs():
        return SingleThreadedBLAS()
    return _SPIN_NOTED


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
